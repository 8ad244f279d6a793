"""The artist's guide (addon/docs/guide/) read as steps: each page's numbered steps by section
(the heading above them), whether a step names an operator of the add-on, and the pictures a
section shows after its steps. Plain Python: the tests in Blender compare these with what the
guide's walk (guide_walk.py) and the pictures' script (scripts/guide_pictures.py) run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "addon" / "docs" / "guide"

# Pages whose numbered lists are no steps (the index's list of pages).
NOT_STEPS = {"README.md"}

_HEADING = re.compile(r"(#+) (.+)$")
_STEP = re.compile(r"(\d+)\. (.*)$")
_PICTURE = re.compile(r"!\[[^\]]*\]\(pictures/([^)]+)\.jpg\)")
# The add-on's entries of File › Import and File › Export, and their operators' names.
MENU_ENTRIES = {
    "File › Import › Emperor's New Groove level (.wad)": "Import Emperor's New Groove level",
    "File › Export › Emperor's New Groove level (.wad)": "Export Emperor's New Groove level",
}


@dataclass(frozen=True)
class Step:
    page: str
    section: str
    number: int
    text: str


@dataclass(frozen=True)
class Shown:
    """A picture on a page: its section, the section's steps above it, and its caption."""

    page: str
    section: str
    picture: str
    steps_before: tuple[int, ...]
    caption: str


def pages() -> list[Path]:
    return sorted(GUIDE.glob("*.md"))


def _lines(page: Path) -> list[str]:
    return re.sub(r"```.*?```", "", page.read_text(), flags=re.S).splitlines()


def steps(page: Path) -> list[Step]:
    """The page's numbered steps, each with its text (continuation lines joined)."""
    if page.name in NOT_STEPS:
        return []
    out: list[Step] = []
    section, current = "", None
    for line in _lines(page):
        if m := _HEADING.match(line):
            section, current = m.group(2).strip(), None
        elif m := _STEP.match(line):
            current = [section, int(m.group(1)), m.group(2)]
            out.append(Step(page.name, section, current[1], current[2]))
        elif current is not None and line.startswith(" "):
            out[-1] = Step(page.name, section, out[-1].number, out[-1].text + " " + line.strip())
        elif current is not None and line.strip():
            current = None
    return out


def shown(page: Path) -> list[Shown]:
    """Every picture of the page with the steps of its section above it."""
    out = []
    lines = _lines(page)
    section, numbers = "", []
    for i, line in enumerate(lines):
        if m := _HEADING.match(line):
            section, numbers = m.group(2).strip(), []
        elif (m := _STEP.match(line)) and page.name not in NOT_STEPS:
            numbers.append(int(m.group(1)))
        elif m := _PICTURE.search(line):
            caption = lines[i + 2].strip() if i + 2 < len(lines) else ""
            out.append(Shown(page.name, section, m.group(1), tuple(numbers), caption))
    return out


def buttons() -> dict[str, set[str]]:
    """The buttons of the WAD panels as find-your-way.md's table names them, each with the names
    in F3 search of the operators it runs (none for a field)."""
    table = (GUIDE / "find-your-way.md").read_text()
    out: dict[str, set[str]] = {}
    for row, does in re.findall(r"^\| [^|]+ \| ([^|]+) \| ([^|]+) \|", table, re.M):
        for name in re.split(r", | / ", row.strip()):
            out.setdefault(name.strip(), set()).update(re.findall(r'"([^"]+)"', does))
    return out


def named_operators(step: Step, labels: set[str]) -> set[str]:
    """The add-on's operators a step names, by their names in F3 search (``labels``): a button
    in bold, alone or at the end of a menu path ("**Level › Check Level**"), a name in quotes,
    or an entry of File › Import or File › Export."""
    named: set[str] = set()
    by_button = buttons()
    for bold in re.findall(r"\*\*(.+?)\*\*", step.text):
        last = bold.split("›")[-1].strip()
        if bold in MENU_ENTRIES:
            named.add(MENU_ENTRIES[bold])
        named |= by_button.get(last, set())
        if last in labels:
            named.add(last)
    named |= set(re.findall(r'"([^"]+)"', step.text))
    return named & labels
