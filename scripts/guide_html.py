"""The artist's guide (addon/docs/guide/*.md) as HTML pages the installed extension opens offline
(its "?" buttons; addon/common/guide.py). Run by scripts/build-extension, which packs the result
into the zip as `guide/`:

  guide_html.py OUT_DIR

Each page becomes OUT_DIR/PAGE.html (README.md the index, README.html), its pictures are copied
into OUT_DIR/pictures/, links to other pages point at their .html (anchors kept: a heading's id is
the slug a Markdown forge gives it), and a link out of the guide (to the repository's FORMAT.md)
keeps its words without a link: the extension holds only the guide.

The converter is the project's own and small: it reads the Markdown the guide is written in
(headings, paragraphs, lists with continuation lines and nested lists or pictures, tables, fenced
code, code spans, links, pictures, bold and italics, HTML comments), with nothing to download.
tests/python/test_guide.py renders every page and checks that no Markdown is left over and that
every link and picture resolves.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

GUIDE = Path(__file__).resolve().parent.parent / "addon" / "docs" / "guide"
INDEX = "README.md"
TITLE = "llamawad: the artist's guide"

CSS = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 52em; margin: 0 auto; padding: 1em 1.5em 4em; color: #1d1d1f; }
nav { font-size: 0.9em; margin-bottom: 1.5em; }
img { max-width: 100%; height: auto; }
code, pre { font: 0.9em/1.4 ui-monospace, Menlo, Consolas, monospace; background: #f2f2f4; border-radius: 3px; }
code { padding: 0.05em 0.3em; }
pre { padding: 0.7em 1em; overflow-x: auto; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
th { background: #f2f2f4; }
h1, h2, h3 { line-height: 1.25; }
li > p { margin: 0.4em 0; }
""".strip()


def slug(heading: str) -> str:
    """The anchor a Markdown forge gives a heading: lower case, punctuation dropped, spaces as -."""
    text = unicodedata.normalize("NFKC", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


# --- inline: code spans, pictures, links, bold, italics

_CODE = re.compile(r"`([^`]+)`")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", re.S)


def inline(text: str, link: Callable[[str], str | None]) -> str:
    """A paragraph's text as HTML. ``link`` maps a link's target to its href (None: no link, the
    words only)."""
    kept: list[str] = []

    def keep(piece: str) -> str:
        kept.append(piece)
        return f"\x00{len(kept) - 1}\x00"

    text = _CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(1), quote=False)}</code>"), text)
    text = html.escape(text, quote=False)

    def image(m: re.Match) -> str:
        src = link(html.unescape(m.group(2)))
        return keep(f'<img src="{html.escape(src or m.group(2))}" alt="{html.escape(html.unescape(m.group(1)))}">')

    def anchor(m: re.Match) -> str:
        href = link(html.unescape(m.group(2)))
        return m.group(1) if href is None else f'<a href="{html.escape(href)}">{m.group(1)}</a>'

    text = _IMAGE.sub(image, text)
    text = _LINK.sub(anchor, text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    while "\x00" in text:
        text = re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)
    return text


# --- blocks

_HEADING = re.compile(r"(#{1,6}) (.+)$")
_ITEM = re.compile(r"( *)(\d+\.|[-*]) ")
_FENCE = "```"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _starts_block(line: str) -> bool:
    return bool(_HEADING.match(line) or _ITEM.match(line) or line.startswith(("|", _FENCE)))


def _table(lines: list[str], link) -> str:
    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    head, rows = cells(lines[0]), [cells(line) for line in lines[2:]]
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{inline(c, link)}</th>" for c in head) + "</tr></thead>", "<tbody>"]
    out += ["<tr>" + "".join(f"<td>{inline(c, link)}</td>" for c in row) + "</tr>" for row in rows]
    return "\n".join(out + ["</tbody>", "</table>"])


def _item_of(line: str, ordered: bool) -> int | None:
    """The width of the marker when ``line`` starts an item of this list (unindented, of its
    kind), else None."""
    m = _ITEM.match(line)
    if m is None or m.group(1) != "" or m.group(2)[0].isdigit() != ordered:
        return None
    return len(m.group(0))


def _list(lines: list[str], start: int, link) -> tuple[str, int]:
    """The list that starts at ``lines[start]``: its HTML and the line after it. An item holds
    the lines indented past its marker (blank lines too, when the item goes on after them) and a
    paragraph's unindented continuation; items apart (a blank line between them) or of several
    blocks make a loose list, whose items' text is in paragraphs."""
    first = _ITEM.match(lines[start])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    items: list[list[str]] = []
    loose = False
    i = start
    while i < len(lines) and (width := _item_of(lines[i], ordered)) is not None:
        item = [lines[i][width:]]
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                following = next((l for l in lines[i + 1 :] if l.strip()), None)
                if following is None or _indent(following) < width:
                    break
                item.append("")
            elif _indent(line) >= width:
                item.append(line[width:])
            elif item[-1].strip() and not _starts_block(line):
                item.append(line.strip())
            else:
                break
            i += 1
        items.append(item)
        loose = loose or "" in item
        following = next((k for k in range(i, len(lines)) if lines[k].strip()), len(lines))
        if following > i and following < len(lines) and _item_of(lines[following], ordered) is not None:
            loose, i = True, following
    tag = "ol" if ordered else "ul"
    number = int(first.group(2)[:-1]) if ordered else 1
    opening = f'<{tag} start="{number}">' if ordered and number != 1 else f"<{tag}>"
    body = []
    for item in items:
        inner = blocks(item, link)
        if not loose and inner.startswith("<p>") and inner.count("<p>") == 1:
            inner = inner[3:].replace("</p>", "", 1)
        body.append(f"<li>{inner}</li>")
    return "\n".join([opening, *body, f"</{tag}>"]), i


def blocks(lines: list[str], link) -> str:
    """Lines of Markdown (a page, or a list item's content unindented) as HTML blocks."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith(_FENCE):
            end = next(k for k in range(i + 1, len(lines)) if lines[k].startswith(_FENCE))
            code = "\n".join(lines[i + 1 : end])
            out.append(f"<pre><code>{html.escape(code, quote=False)}</code></pre>")
            i = end + 1
        elif m := _HEADING.match(line):
            level, words = len(m.group(1)), m.group(2).strip()
            out.append(f'<h{level} id="{slug(words)}">{inline(words, link)}</h{level}>')
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"\|[\s:|-]+\|$", lines[i + 1].strip()):
            end = i
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            out.append(_table(lines[i:end], link))
            i = end
        elif _ITEM.match(line) and _ITEM.match(line).group(1) == "":
            made, i = _list(lines, i, link)
            out.append(made)
        else:
            paragraph = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
                paragraph.append(lines[i].strip())
                i += 1
            out.append(f"<p>{inline(chr(10).join(paragraph), link)}</p>")
    return "\n".join(out)


def page_title(markdown: str) -> str:
    m = re.search(r"^# (.+)$", markdown, re.M)
    return m.group(1).strip() if m else TITLE


def html_name(page: str) -> str:
    return Path(page).with_suffix(".html").name


def render(page: Path, pages: set[str]) -> tuple[str, list[str]]:
    """The HTML of ``page`` and the pictures it shows (paths relative to the guide)."""
    markdown = re.sub(r"<!--.*?-->", "", page.read_text(encoding="utf-8"), flags=re.S)
    pictures: list[str] = []

    def link(target: str) -> str | None:
        if re.match(r"[a-z]+://", target):
            return target
        path, hash_, anchor = target.partition("#")
        if not path:
            return target
        if path in pages:
            return html_name(path) + hash_ + anchor
        if path.startswith("pictures/"):
            pictures.append(path)
            return path
        return None  # out of the guide: the words only

    body = blocks(markdown.splitlines(), link)
    title = page_title(markdown)
    nav = "" if page.name == INDEX else f'<nav><a href="{html_name(INDEX)}">{html.escape(TITLE)}</a></nav>\n'
    document = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n"
        f"{nav}<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
    return document, pictures


def build(out: Path, guide: Path = GUIDE) -> list[Path]:
    """Every page of ``guide`` rendered into ``out`` (made when missing), with the pictures the
    pages show. Returns the pages written."""
    out.mkdir(parents=True, exist_ok=True)
    pages = sorted(guide.glob("*.md"))
    names = {p.name for p in pages}
    written = []
    for page in pages:
        document, pictures = render(page, names)
        target = out / html_name(page.name)
        target.write_text(document, encoding="utf-8")
        written.append(target)
        for picture in pictures:
            (out / picture).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(guide / picture, out / picture)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    for path in build(Path(argv[0])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
