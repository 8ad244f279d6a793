"""Writes the artist's guide's page "When Blender says no" (addon/docs/guide/when-blender-says-no.md)
from the one table of problem and refusal codes, rust/core/src/codes.rs: one section per code
with what it means in the game, where the artist meets it, how to fix it (the table's `=>` text)
and the exact words the check or the export says (the messages next to the code in the Rust core,
`{…}` where they fill in numbers and names). Plain Python, no Blender. Run by scripts/guide-codes:

  guide_codes.py [--check]     --check: exit 1 when the page is not what the table makes
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "rust" / "core" / "src" / "codes.rs"
CORE = ROOT / "rust" / "core" / "src"
PAGE = ROOT / "addon" / "docs" / "guide" / "when-blender-says-no.md"

_STRING = r'"(?:[^"\\]|\\[\s\S])*"'
_ENTRY = re.compile(rf"^    (\w+) = \"([a-z0-9-]+)\": ({_STRING})(?:\s*=> ({_STRING}))?,", re.M)


@dataclass
class Code:
    variant: str
    name: str
    meaning: str
    fix: str | None
    words: list[str] = field(default_factory=list)
    check: bool = False
    export: bool = False
    errors: bool = False
    warnings: bool = False


def _unquote(literal: str) -> str:
    # Rust string literals: a backslash before a newline joins the lines, leading blanks dropped.
    text = re.sub(r"\\\n\s*", "", literal[1:-1])
    return re.sub(r'\\(["\\n])', lambda m: {"n": " ", '"': '"', "\\": "\\"}[m.group(1)], text)


def read_table(text: str | None = None) -> list[Code]:
    text = TABLE.read_text() if text is None else text
    return [Code(v, n, _unquote(m), _unquote(f) if f else None) for v, n, m, f in _ENTRY.findall(text)]


def _calls(source: str) -> list[tuple[int, int]]:
    """Every pair of matched parentheses, strings, characters and comments skipped."""
    literal = re.compile(rf"{_STRING}|'(?:[^'\\]|\\.)'|//[^\n]*", re.S)
    opens, pairs = [], []
    i = 0
    while i < len(source):
        m = literal.match(source, i)
        if m:
            i = m.end()
            continue
        if source[i] == "(":
            opens.append(i)
        elif source[i] == ")" and opens:
            pairs.append((opens.pop(), i))
        i += 1
    return pairs


def _span(source: str, calls: list[tuple[int, int]], at: int) -> tuple[int, int]:
    """The smallest call around ``at`` that holds a string literal: the message's expression."""
    around = sorted(((o, e) for o, e in calls if o < at < e), key=lambda oe: oe[1] - oe[0])
    for o, e in around[:4]:
        if re.search(_STRING, source[o:e]):
            return o, e
    return at, at


def find_words(codes: list[Code]) -> None:
    """Each code's messages in the Rust core (tests left out), and whether the check or the way
    back says it, as an error or a warning."""
    by_variant = {c.variant: c for c in codes}
    for path in sorted(CORE.rglob("*.rs")):
        if path.name == "tests.rs" or "tests" in path.relative_to(CORE).parts or path == TABLE:
            continue
        source = path.read_text()
        source = source.split("#[cfg(test)]")[0]
        rel = path.relative_to(CORE).as_posix()
        calls = _calls(source)
        for m in re.finditer(r"Code::(\w+)", source):
            code = by_variant.get(m.group(1))
            if code is None:
                continue
            code.check |= rel.startswith("game/check")
            code.export |= rel.startswith("gltf/gltf_to_wad") or not rel.startswith("game/check")
            start, end = _span(source, calls, m.start())
            expression = source[start:end]
            before = source[max(0, start - 40) : start]
            code.errors |= "error" in before or "error" in expression[:40] or not rel.startswith("game/check")
            code.warnings |= "warning" in before or "warning" in expression[:40]
            for literal in re.findall(_STRING, expression, re.S):
                # Numbers and names filled in are shown as "…".
                words = re.sub(r"\{[^{}]*\}", "…", _unquote(literal)).replace("`", "'")
                # Messages, not attribute names or format pieces: a few words at least.
                if len(words.split()) >= 3 and words not in code.words:
                    code.words.append(words)


def anchor(name: str) -> str:
    return name


def page(codes: list[Code]) -> str:
    out = [
        "# When Blender says no",
        "",
        "<!-- Made by scripts/guide-codes from rust/core/src/codes.rs, the one table of codes: edit the",
        "     table (its `=>` text is the fix), not this page. -->",
        "",
        "Every problem Check Level lists, and every refusal of the export, carries a short code",
        "(the Level panel's list shows the message; the `?` beside it opens its section here). Each",
        "section says what the code means in the game, where you meet it, how to fix it, and the",
        "words the add-on shows (`…` stands for the numbers and names it fills in). The add-on's",
        "own messages, about files and selections, are on [their own page](add-on-messages.md).",
        "",
        "- **Error**: export refuses the level and writes nothing; the Level panel lists every",
        "  problem and selects the first culprit.",
        "- **Warning**: export writes the level and reports it; the game may show a flaw.",
        "- A problem the base level has already is greyed in the list (\"in the base already\") and",
        "  never refuses an export.",
        "",
        "| Code | Means |",
        "| --- | --- |",
    ]
    for c in codes:
        out.append(f"| [`{c.name}`](#{anchor(c.name)}) | {c.meaning} |")
    for c in codes:
        where = []
        if c.check:
            where.append("Level › Check Level lists it" + (", and export refuses the level" if c.errors else ""))
        if c.export and not c.check:
            where.append("Export refuses the scene with it (and Check Level, which converts the scene as export does)")
        kinds = " and ".join(k for k, on in (("error", c.errors), ("warning", c.warnings)) if on) or "error"
        out += ["", f"## {c.name}", "", f"**In the game:** {c.meaning}.", ""]
        out.append(f"**What you see:** {'; '.join(where) or 'the export or the check names it'} ({kinds}).")
        out += ["", f"**How to fix it:** {c.fix or '(no fix written in the table yet)'}", ""]
        if c.words:
            out.append("**The words:**")
            out.append("")
            out += [f"- `{w}`" for w in c.words]
        else:
            out.append("**The words:** the message names the culprit; see the problems it lists.")
    return "\n".join(out) + "\n"


def make() -> tuple[list[Code], str]:
    codes = read_table()
    find_words(codes)
    return codes, page(codes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    codes, text = make()
    missing = [c.name for c in codes if not c.fix]
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE.relative_to(ROOT)} is not what the table makes: run scripts/guide-codes", file=sys.stderr)
            return 1
        return 0
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text)
    print(f"{PAGE.relative_to(ROOT)}: {len(codes)} codes" + (f"; without a fix: {', '.join(missing)}" if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
