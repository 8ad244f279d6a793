"""Generated output is the same across runs, machines and builds: the SHA-256 of generated levels
(seeds 1-3 tiny and small, seed 1 full), of their glTF (llamawad.wad_to_glb, and wad_to_gltf's
JSON and binary buffer) and of the level with light baked into it (llamawad.bake) are stored in
tests/fixtures/digests.json, which every run on every system compares against (the release
workflow runs this test with the released wheels on Windows and macOS, and
tests/release/test_windows_cli.py holds the command-line tool to the same digests, the Windows
build under Wine too). A change in what the generator or the conversion writes fails here,
naming each level and output that changed, until it is made on purpose: then

    LLAMAWAD_UPDATE_DIGESTS=1 .venv/bin/pytest tests/python/test_digests.py

rewrites digests.json and the level fixtures (tests/fixtures/tiny-N.wad, the generator's tiny
levels, held to it here too), to be committed with the change."""

import json
import os

import llamawad
import pytest
from digests import (
    DIGESTS,
    FIXTURES,
    LEVELS,
    SKY_COLOUR,
    SUN_COLOUR,
    SUN_DIRECTION,
    differences,
    level_name,
    sha256,
    stored_digests,
)

pytestmark = pytest.mark.generator

UPDATE = os.environ.get("LLAMAWAD_UPDATE_DIGESTS") == "1"

FIXTURE_SEEDS = range(1, 6)
ABOUT = (
    "SHA-256 of generated levels, their glTF (wad_to_glb; wad_to_gltf's JSON and buffer) and their bake: "
    "tests/python/test_digests.py compares, LLAMAWAD_UPDATE_DIGESTS=1 rewrites"
)


def outputs(wad: bytes) -> dict[str, bytes]:
    """What the project writes of a level: the level, its GLB, its .gltf JSON and .bin, and the
    level lit by a sun, a sky and its own occlusion (rays against a BVH, over the cores: the
    bytes must not depend on either)."""
    glb, _warnings = llamawad.wad_to_glb(wad)
    text, buffer, _warnings = llamawad.wad_to_gltf(wad)
    baked, _report = llamawad.bake(wad, SUN_DIRECTION, SUN_COLOUR, SKY_COLOUR)
    return {"wad": wad, "glb": glb, "gltf": text.encode(), "bin": buffer, "baked": baked}


def digests_of(wad: bytes) -> dict[str, str]:
    return {kind: sha256(data) for kind, data in outputs(wad).items()}


@pytest.fixture(scope="module")
def computed() -> dict[str, dict[str, str]]:
    return {level_name(level): digests_of(llamawad.generate(level[1], level[0])) for level in LEVELS}


def test_generated_levels_and_their_gltf_have_the_stored_digests(computed):
    if UPDATE:
        DIGESTS.write_text(json.dumps({"about": ABOUT, "levels": computed}, indent=2, sort_keys=True) + "\n")
    changed = differences(stored_digests(), computed)
    assert changed == [], (
        "generated output changed; if on purpose, rerun with LLAMAWAD_UPDATE_DIGESTS=1 and commit "
        "tests/fixtures/digests.json:\n" + "\n".join(changed)
    )


@pytest.mark.parametrize("seed", FIXTURE_SEEDS)
def test_the_level_fixtures_are_the_generators(seed):
    path = FIXTURES / f"tiny-{seed}.wad"
    made = llamawad.generate(seed, "tiny")
    if UPDATE:
        path.write_bytes(made)
    assert path.read_bytes() == made, (
        f"{path.name} is not what `scripts/llamawad generate --seed {seed} --size tiny` makes: "
        "LLAMAWAD_UPDATE_DIGESTS=1 remakes it"
    )


def test_a_changed_output_fails_the_comparison():
    """What the comparison must catch, whatever the generator makes today: one byte more or
    changed in a level, its GLB, its glTF JSON, its buffer or its bake, another level in a level's place,
    a level left out, a level added."""
    stored = stored_digests()
    made = outputs(llamawad.generate(1, "tiny"))
    for kind, data in made.items():
        for changed in (data + b"\0", bytes([data[0] ^ 1]) + data[1:]):
            altered = dict(stored, **{"tiny-1": dict(stored["tiny-1"], **{kind: sha256(changed)})})
            assert [d.split(":")[0] for d in differences(stored, altered)] == [f"tiny-1 {kind}"]
    altered = dict(stored, **{"tiny-1": stored["tiny-2"]})
    assert [d.split(":")[0] for d in differences(stored, altered)] == [f"tiny-1 {k}" for k in ("baked", "bin", "glb", "gltf", "wad")]
    without = {k: v for k, v in stored.items() if k != "full-1"}
    assert differences(stored, without) == ["full-1: stored, no longer made"]
    assert differences(stored, dict(stored, **{"tiny-9": {}})) == ["tiny-9: made, not stored"]
    assert differences(stored, stored) == []
