//! Geometry the game needs recomputed when a model changes: face planes, smoothed normals,
//! bounding boxes, render batches, and the encoding of collision polygons.
