"""The add-on's layers (addon/README.md, "What may use what"), read from the code's imports.

Every module of the add-on belongs to one layer; it may import from the layers below it and
from its own package, never from its own layer or one above it: the two directions
(wad_to_scene, scene_to_wad) never import each other. Read with `ast`, so no Blender is needed.
"""

import ast
import sys
from pathlib import Path

import pytest

ADDON = Path(__file__).resolve().parents[2] / "addon"

# The layers, highest first (addon/README.md lists the same). A module may import from a layer
# below its own and from its own package; modules on one line share a layer and never import
# each other.
ORDER = [
    ["ui"],
    ["operators"],
    ["properties"],
    ["blender.strats", "blender.light"],
    ["blender.probe", "blender.written", "blender.previews"],
    ["blender.check"],
    ["blender.collision"],
    ["blender.convert"],
    ["blender.wad_to_scene", "blender.scene_to_wad"],
    ["blender.read_only", "blender.faces"],
    ["blender.scene"],
    ["blender.materials", "blender.modes", "blender.page_files"],
    ["common"],
]
LEVEL = {tuple(name.split(".")): len(ORDER) - k for k, line in enumerate(ORDER) for name in line}


def unit(parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The layer entry a module (its package path, without .py) belongs to."""
    for length in (2, 1):
        if parts[:length] in LEVEL:
            return parts[:length]
    return None


def modules():
    for path in sorted(ADDON.rglob("*.py")):
        parts = path.relative_to(ADDON).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            yield path, parts


def imports(path: Path, parts: tuple[str, ...]):
    """Each module of the add-on that `path` imports, as a package path."""
    package = parts if path.name == "__init__.py" else parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = package[: len(package) - (node.level - 1)]
            target = base + tuple(node.module.split(".") if node.module else ())
            if node.module:
                yield node.lineno, target
            else:
                for alias in node.names:
                    yield node.lineno, target + (alias.name,)


def test_every_module_has_a_layer():
    missing = [".".join(p) for _, p in modules() if unit(p) is None and len(p) > 1]
    assert not missing, f"add these to LAYERS and to addon/README.md: {missing}"


def test_imports_go_downwards_only():
    wrong = []
    for path, parts in modules():
        me = unit(parts)
        if me is None:
            continue  # the add-on's own __init__.py registers everything
        for line, target in imports(path, parts):
            them = unit(target)
            if them is None or them == me:
                continue
            if LEVEL[them] >= LEVEL[me]:
                wrong.append(f"{path.relative_to(ADDON)}:{line} imports {'.'.join(target)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("bad", ["from ...operators import face", "from ..scene_to_wad import level"])
def test_the_rule_finds_a_wrong_import(tmp_path, monkeypatch, bad):
    """The test can fail: an import upwards, and one between the two directions."""
    module = tmp_path / "blender" / "wad_to_scene" / "level.py"
    module.parent.mkdir(parents=True)
    module.write_text(bad)
    monkeypatch.setattr(sys.modules[__name__], "ADDON", tmp_path)
    with pytest.raises(AssertionError, match="imports"):
        test_imports_go_downwards_only()
