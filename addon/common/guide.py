"""Where the artist's guide lives (addon/docs/guide/ in the repository, left out of the extension)
and which page each panel's "?" opens. The one place that names the guide's address: the
manifest's `website` is the same (tests/python/test_guide.py holds them together)."""

from __future__ import annotations

from urllib.parse import urljoin

# The guide's index on the project's forge; every other page is a file beside it.
GUIDE_URL = "https://github.com/llamawad/llamawad/blob/main/addon/docs/guide/README.md"

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


def page_url(page: str, section: str | None = None) -> str:
    return urljoin(GUIDE_URL, page) + (f"#{section}" if section else "")


def code_url(code: str) -> str:
    """The section of "When Blender says no" that explains a problem's or refusal's code."""
    return page_url(CODES_PAGE, code or None)
