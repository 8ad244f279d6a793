"""The export rules the add-on can check before the conversion, so that the level check lists
every problem at once (the Rust conversion stops at the first). Each mirrors a refusal of
rust/core (gltf/import.rs, geometry.rs encode_collision_polygon, level/check.rs). No bpy."""

from __future__ import annotations

import math

import numpy as np

MAX_MODEL_VERTICES = 8000
MAX_MODEL_FACES = 65535
MAX_QUAD_WARP = 0.01
# Collision planes store d in 16 bits at 1/4064 units: about 8 units from the tile's origin.
MAX_COLLISION_REACH = 32767 / 4064
MIN_EDGE = 1e-4


def collision_polygon_problem(corners: np.ndarray) -> str | None:
    """Why these corners (game space, tile frame, in order) cannot be a collision polygon, or
    None."""
    p = np.asarray(corners, np.float64)
    n = len(p)
    if not 3 <= n <= 4:
        return f"a collision polygon has 3 or 4 corners; this one has {n}: split it"
    if not np.isfinite(p).all():
        return "a corner is not a finite number"
    nxt = np.roll(p, -1, axis=0)
    edges = nxt - p
    lengths = np.linalg.norm(edges, axis=1)
    centroid = p.mean(axis=0)
    newell = np.cross(p - centroid, nxt - centroid).sum(axis=0)
    longest = lengths.max()
    if (lengths < MIN_EDGE).any() or np.linalg.norm(newell) <= 1e-6 * longest * longest:
        return "the corners do not enclose an area"
    normal = newell / np.linalg.norm(newell)
    if n == 4:
        off = np.abs((p - centroid) @ normal)
        if off.max() > MAX_QUAD_WARP:
            return f"the four corners do not lie in one plane (corner {int(off.argmax())} is {off.max():.3f} units off): split the quad"
        turns = np.cross(np.roll(edges, 1, axis=0), edges) @ normal
        if (turns <= 1e-9 * longest * longest).any():
            return f"the quad is not convex at corner {int(np.argmax(turns <= 1e-9 * longest * longest))}: split it"
    reach = np.abs(p).max()
    if reach > MAX_COLLISION_REACH:
        return f"the polygon lies {reach:.2f} units from its tile's origin; collision reaches only {MAX_COLLISION_REACH:.1f}"
    return None


def placement_problem(translation, rotation_xyzw, scale, grid) -> str | None:
    """Why a tile cannot stand where it is (file space), or None."""
    if any(abs(s - 1.0) > 1e-3 for s in scale):
        return "is scaled; tiles cannot be scaled: apply the scale to the mesh (Ctrl A › Scale)"
    x, y, z, w = rotation_xyzw
    # The tile's up axis after the rotation must still be up.
    up = np.array([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)])
    if np.abs(up - [0, 1, 0]).max() > 1e-3:
        return "is turned about a horizontal axis; the game turns tiles about the vertical only: clear that rotation"
    width, height = grid
    tx, _, tz = translation
    if not (0 <= tx < width and 0 <= tz < height):
        return f"stands at x {tx:.2f}, z {tz:.2f}, outside the {width}×{height} grid: move it inside"
    return None


def rotation_steps(rotation_xyzw) -> int:
    """The game's rotation (0–4095) of a turn about the vertical."""
    x, y, z, w = rotation_xyzw
    angle = 2 * math.atan2(y, w)
    return round(angle / (2 * math.pi) * 4096) % 4096
