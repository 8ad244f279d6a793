"""Where the artist's guide is and which page each panel's "?" opens. The guide ships inside the
extension: scripts/build-extension renders addon/docs/guide/ to HTML into the add-on's `guide/`
folder, and the "?" buttons open the installed page in the web browser, offline and always of
the version installed. In a checkout, where the guide is not rendered, they open its Markdown."""

from __future__ import annotations

from pathlib import Path

ADDON = Path(__file__).resolve().parent.parent
# The rendered guide in the installed extension, and its Markdown in the repository.
RENDERED = ADDON / "guide"
SOURCE = ADDON / "docs" / "guide"

# The guide's index.
INDEX = "README.md"

# The page that teaches each panel (bl_idname -> file in addon/docs/guide/).
PANEL_PAGES = {
    "LLAMAWAD_PT_level": "export.md",
    "LLAMAWAD_PT_pages": "textures.md",
    "LLAMAWAD_PT_probe": "check-and-probe.md",
    "LLAMAWAD_PT_light": "vertex-colours.md",
    "LLAMAWAD_PT_face": "textures.md",
    "LLAMAWAD_PT_collision": "collision.md",
    "LLAMAWAD_PT_zones": "zones.md",
    "LLAMAWAD_PT_zone_matrix": "zones.md",
    "LLAMAWAD_PT_strat": "objects.md",
}

# The page with one section per problem and refusal code (its anchor is the code).
CODES_PAGE = "when-blender-says-no.md"


def page_file(page: str) -> Path:
    """The file of a guide page (``export.md``): its HTML where the guide is rendered (the
    installed extension), else its Markdown."""
    if RENDERED.is_dir():
        return RENDERED / Path(page).with_suffix(".html").name
    return SOURCE / page


def page_url(page: str, section: str | None = None) -> str:
    """The ``file://`` address of a guide page, at a section (a heading's anchor) when given."""
    return page_file(page).as_uri() + (f"#{section}" if section else "")


def code_url(code: str) -> str:
    """The section of "When Blender says no" that explains a problem's or refusal's code."""
    return page_url(CODES_PAGE, code or None)
