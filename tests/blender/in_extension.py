"""Run by test_addon_extension.py in a Blender process of its own (the bpy module), as a new user
with only the extension zip: installs the zip (the guide's install.md, steps 2 and 3), finds the
page every "?" of the installed add-on opens (each panel's header, and a problem's for every
code), and follows every other page of the guide (guide_walk.py) with the installed add-on. The
llamawad of the test venv is hidden: the add-on and the walks use the wheel Blender installed.

  in_extension.py ZIP LEVEL.wad WORK_DIR      prints RESULT {json}
"""

import importlib.abc
import importlib.machinery
import json
import sys
import traceback
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

venv_site = [p for p in sys.path if p.endswith("site-packages")]


class HideVenvLlamawad(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "llamawad":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [p for p in sys.path if p not in venv_site])


sys.meta_path.insert(0, HideVenvLlamawad())
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpy  # noqa: E402

zip_path, level, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
result: dict = {"extensions": bpy.utils.user_resource("EXTENSIONS")}

# install.md: 2. Install from Disk…, the zip; 3. listed and enabled.
bpy.ops.wm.read_homefile(use_empty=True)
result["install"] = sorted(bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True))
result["enabled"] = sorted(m for m in bpy.context.preferences.addons.keys() if "llamawad" in m)
# "Check that it works": File › Import and File › Export have the level.
result["menus"] = [hasattr(bpy.ops.import_scene, "llamawad"), hasattr(bpy.ops.export_scene, "llamawad")]
# A fresh file keeps installed extensions enabled (read_factory_settings would not).
bpy.ops.wm.read_homefile(use_empty=True)


class Layout:
    """Records the url of every button a draw call makes."""

    def __init__(self, urls):
        self.urls = urls

    def operator(self, idname, **kwargs):
        button = SimpleNamespace()
        if idname == "wm.url_open":
            self.urls.append(button)
        return button

    def __getattr__(self, name):
        return lambda *args, **kwargs: Layout(self.urls)


def opened(url: str) -> dict:
    """What the browser gets from a "?": the file and the section it opens."""
    parsed = urlparse(url)
    path = Path(url2pathname(unquote(parsed.path))) if parsed.scheme == "file" else None
    found = path is not None and path.is_file()
    anchor = parsed.fragment
    return {
        "url": url,
        "file": str(path) if path else None,
        "found": found,
        "section_found": not anchor or (found and f'id="{anchor}"' in path.read_text(encoding="utf-8")),
    }


import llamawad  # noqa: E402  (the wheel Blender installed for the extension)

result["llamawad"] = llamawad.__file__
targets = {}
for name in dir(bpy.types):
    cls = getattr(bpy.types, name)
    if name.startswith("LLAMAWAD_PT_") and hasattr(cls, "draw_header"):
        buttons = []
        cls.draw_header(SimpleNamespace(layout=Layout(buttons), bl_idname=cls.bl_idname), bpy.context)
        targets[name] = opened(buttons[0].url)
for code in llamawad.CODES:
    buttons = []
    item = SimpleNamespace(message="", pre_existing=False, error=True, object="", code=code)
    bpy.types.LLAMAWAD_UL_problems.draw_item(None, bpy.context, Layout(buttons), None, item, 0, None, "", 0)
    targets[f"problem {code}"] = opened(buttons[0].url)
result["targets"] = targets

import guide_walk  # noqa: E402

result["walks"] = {}
for page, fn in guide_walk.WALKS.items():
    folder = work / page
    folder.mkdir(parents=True)
    walk = guide_walk.Walk(page, level.read_bytes(), folder)
    try:
        fn(walk)
        result["walks"][page] = {"ran": walk.ran, "ops": walk.ops}
    except Exception:  # noqa: BLE001  (reported by the test, page by page)
        result["walks"][page] = {"error": traceback.format_exc()}
result["llamawad_after"] = sys.modules["llamawad"].__file__
print("RESULT " + json.dumps(result))
