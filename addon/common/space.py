"""File space (glTF, the game: y up) and Blender space (z up), as io_scene_gltf2 converts them:
file (x, y, z) is Blender (x, −z, y). No bpy."""

from __future__ import annotations

import math

import numpy as np


def file_to_blender(points: np.ndarray) -> np.ndarray:
    """(n, 3) file-space points or directions as Blender's (x, −z, y)."""
    points = np.asarray(points)
    out = np.empty(points.shape, np.float32)
    out[:, 0] = points[:, 0]
    out[:, 1] = -points[:, 2]
    out[:, 2] = points[:, 1]
    return out


def blender_to_file(points: np.ndarray) -> np.ndarray:
    """(n, 3) Blender points as file space: (x, z, −y). Exact inverse of file_to_blender."""
    points = np.asarray(points)
    out = np.empty(points.shape, np.float32)
    out[:, 0] = points[:, 0]
    out[:, 1] = points[:, 2]
    out[:, 2] = -points[:, 1]
    return out


def vector_to_blender(v) -> tuple[float, float, float]:
    x, y, z = v
    return (x, -z, y)


def vector_to_file(v) -> list[float]:
    x, y, z = v
    return [x, z, -y]


def quaternion_to_blender(q) -> tuple[float, float, float, float]:
    """A file-space rotation (x, y, z, w) as Blender's quaternion (w, x, y, z)."""
    x, y, z, w = q
    return (w, x, -z, y)


def vertical_angle(q) -> float:
    """The angle about file +y (= Blender +z) of a file-space rotation (x, y, z, w) that turns
    about y only."""
    x, y, z, w = q
    return 2.0 * math.atan2(y, w)


# The axis change: file (x, y, z) is Blender (x, −z, y).
_AXES = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], np.float32)


def matrices_to_file(m: np.ndarray) -> np.ndarray:
    """(n, 4, 4) Blender matrices (rows) as glTF matrices in file space, column-major, 16 a
    matrix: C⁻¹·M·C with C the file-to-Blender axis change, which only permutes and negates, so
    every value is Blender's own."""
    return (_AXES.T @ np.asarray(m, np.float32) @ _AXES).transpose(0, 2, 1).reshape(-1, 16)


def uv_to_blender(uv: np.ndarray) -> np.ndarray:
    """glTF texture coordinates (origin top-left) as Blender's (origin bottom-left)."""
    out = np.array(uv, np.float32, copy=True)
    out[:, 1] = 1.0 - out[:, 1]
    return out
