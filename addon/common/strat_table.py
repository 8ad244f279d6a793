"""The strat table of a folder (``llamawad.strat_table``) laid out as ``llamawad strat-table``
prints it: the counts are the Rust core's; this only puts them into columns, so that the artist
reads in Blender what the command line shows (tests/blender/test_addon_jobs.py compares the two)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any


def counted(n: int, what: str) -> str:
    return f"1 {what}" if n == 1 else f"{n} {what}s"


def table_lines(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Rows of cells in columns as wide as their widest cell, two spaces apart, each column
    aligned ``l``eft or ``r``ight as ``align`` says; the last column is not padded (the command
    line's ``write_table``)."""
    columns = max((len(r) for r in rows), default=0)
    widths = [max((len(r[c]) for r in rows if c < len(r)), default=0) for c in range(columns)]
    out = []
    for row in rows:
        line = "  "
        for c, cell in enumerate(row):
            pad = " " * (widths[c] - len(cell))
            last = c + 1 == len(row)
            if c < len(align) and align[c] == "r":
                line += pad + cell
            else:
                line += cell + ("" if last else pad)
            if not last:
                line += "  "
        out.append(line.rstrip())
    return out


def text(folder: str, table: Mapping[str, Any]) -> str:
    """The table as ``llamawad strat-table FOLDER`` prints it: a line of counts, a row per type
    with a column per level (headed by its file name without ``.wad``; ``.`` where a level lacks
    the type), its total and the number of levels placing it, then the files skipped and why."""
    levels, types, skipped = table["levels"], table["types"], table["skipped"]
    lines = [f"{folder}: {counted(len(levels), 'level')}, {counted(len(types), 'type')}, {counted(len(skipped), 'file')} skipped"]
    if types:
        lines.append("")
        rows = [["type", *(PurePath(name).stem for name in levels), "total", "levels"]]
        for t in types:
            rows.append([t["name"], *("." if c == 0 else str(c) for c in t["counts"]), str(t["total"]), str(t["levels"])])
        lines += table_lines(rows, "l" + "r" * (len(levels) + 2))
    if skipped:
        lines += ["", "skipped"]
        lines += [f"  {s['file']}: {s['reason']}" for s in skipped]
    return "\n".join(lines) + "\n"
