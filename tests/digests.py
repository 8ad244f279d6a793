"""The stored digests of generated output (fixtures/digests.json): which levels, what of each is
digested, and how a computed set is compared with the stored one. Two tests compute them:
python/test_digests.py with the Python module, release/test_windows_cli.py with the command-line
tool (this machine's build, and the Windows build under Wine), so that every build is held to
the same bytes."""

import hashlib
import json
import struct
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DIGESTS = FIXTURES / "digests.json"

LEVELS = [("tiny", 1), ("tiny", 2), ("tiny", 3), ("small", 1), ("small", 2), ("small", 3), ("full", 1)]
# What each level is baked with: a sun, a sky and its own occlusion (the defaults).
SUN_DIRECTION = (0.4, -1.0, 0.3)
SUN_COLOUR = (0.7, 0.6, 0.5)
SKY_COLOUR = (0.3, 0.35, 0.4)


def level_name(level: tuple[str, int]) -> str:
    size, seed = level
    return f"{size}-{seed}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def glb_chunks(glb: bytes) -> tuple[bytes, bytes]:
    """A GLB's JSON and its buffer, as wad_to_gltf returns them: the chunks without the padding
    that makes each a multiple of 4 bytes (spaces after the JSON, the buffer's length in it)."""
    magic, _version, _length = struct.unpack_from("<4sII", glb, 0)
    assert magic == b"glTF", magic
    (json_length,) = struct.unpack_from("<I", glb, 12)
    text = glb[20 : 20 + json_length].rstrip(b" ")
    buffer_length = json.loads(text)["buffers"][0]["byteLength"]
    bin_start = 20 + json_length + 8
    return text, glb[bin_start : bin_start + buffer_length]


def differences(stored: dict, computed: dict) -> list[str]:
    """Each level and output whose digest is not the stored one, or that is stored and no
    longer made, or made and not stored."""
    found = []
    for name in sorted(stored.keys() | computed.keys()):
        if name not in computed:
            found.append(f"{name}: stored, no longer made")
        elif name not in stored:
            found.append(f"{name}: made, not stored")
        else:
            found += [
                f"{name} {kind}: {stored[name].get(kind)} stored, {computed[name].get(kind)} made"
                for kind in sorted(stored[name].keys() | computed[name].keys())
                if stored[name].get(kind) != computed[name].get(kind)
            ]
    return found


def stored_digests() -> dict:
    if not DIGESTS.is_file():
        pytest.fail(f"{DIGESTS} is missing: LLAMAWAD_UPDATE_DIGESTS=1 writes it", pytrace=False)
    return json.loads(DIGESTS.read_text())["levels"]
