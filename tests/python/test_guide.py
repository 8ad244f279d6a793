"""The artist's guide (addon/docs/guide/): every link resolves, every picture it shows is there
and small, every problem and refusal code has its section with a fix, the page of codes is what
the one table makes, the README points to it, and its HTML (what the extension packs,
scripts/guide_html.py) holds every page, link and picture with no Markdown left over. (That every operator and panel
is named, that every panel's "?" opens a page and that the pictures' script runs are tested in
real Blender: tests/blender/test_addon_guide.py.)"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import llamawad
import pytest

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "addon" / "docs" / "guide"
PICTURES = GUIDE / "pictures"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from addon.common import guide  # noqa: E402

import guide_codes  # noqa: E402
import guide_html  # noqa: E402

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# Small enough that the repository does not bloat.
MAX_PICTURE_BYTES = 250_000
MAX_PICTURES_BYTES = 3_000_000


def pages() -> list[Path]:
    return sorted(GUIDE.glob("*.md"))


slug = guide_html.slug


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(), re.M)}


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return LINK.findall(text)


def test_the_guide_has_its_pages():
    names = {p.name for p in pages()}
    assert {"README.md", guide.CODES_PAGE, "limits.md"} <= names
    assert set(guide.PANEL_PAGES.values()) <= names
    index = links(GUIDE / "README.md")
    for page in names - {"README.md"}:
        assert page in index, f"{page} is not in the guide's index"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_link_resolves(page):
    for target in links(page):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_file(), f"{page.name}: {target} does not exist"
        if anchor:
            assert anchor in anchors(resolved), f"{page.name}: {target}: no such heading"


def test_every_picture_shown_exists_and_every_picture_is_shown():
    shown = {(p.parent / t).resolve() for p in pages() for t in links(p) if t.endswith((".jpg", ".png"))}
    assert shown, "the guide shows no pictures"
    for picture in shown:
        assert picture.is_file(), picture
        assert picture.parent == PICTURES
    on_disk = set(PICTURES.glob("*"))
    assert on_disk == shown, f"pictures no page shows: {sorted(p.name for p in on_disk - shown)}"
    sizes = {p.name: p.stat().st_size for p in on_disk}
    assert max(sizes.values()) <= MAX_PICTURE_BYTES, sizes
    assert sum(sizes.values()) <= MAX_PICTURES_BYTES


def test_every_picture_has_a_caption():
    # The line after a picture is its caption in italics: what is selected, which panel state.
    for page in pages():
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("!["):
                assert lines[i + 1] == "" and lines[i + 2].startswith("*"), f"{page.name}: {line} has no caption"


def test_every_code_has_a_section_with_a_fix():
    page = (GUIDE / guide.CODES_PAGE).read_text()
    sections = set(re.findall(r"^## (\S+)$", page, re.M))
    missing = sorted(set(llamawad.CODES) - sections)
    assert not missing, f"codes without a section in {guide.CODES_PAGE}: {missing}"
    table = guide_codes.read_table()
    assert {c.name for c in table} == set(llamawad.CODES), "the table read is not the module's"
    assert not [c.name for c in table if not c.fix], "codes without a fix in rust/core/src/codes.rs"


def test_the_page_of_codes_is_what_the_table_makes():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "guide_codes.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_words_found_are_the_messages_of_their_code():
    codes = {c.name: c for c in guide_codes.make()[0]}
    assert "no texture entry and no UVs to fit one from: unwrap them onto their page" in codes["no-uvs"].words
    assert any("reaches into cell" in w for w in codes["coverage"].words)
    assert codes["coverage"].check and codes["no-uvs"].export and not codes["no-uvs"].check


def test_the_manifest_names_no_website_and_the_readme_points_to_the_guide():
    # Nothing is published: the guide ships inside the extension.
    with (REPO / "blender_manifest.toml").open("rb") as f:
        assert "website" not in tomllib.load(f)
    assert "addon/docs/guide/README.md" in (REPO / "README.md").read_text()


def test_every_command_of_the_command_line_has_its_place_in_blender(run_cli):
    # command-line.md: a row per command, its job and where it is in Blender.
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    listed = re.search(r"Commands:\n(.*?)\n\n", done.stdout, re.S).group(1)
    commands = {line.split()[0] for line in listed.splitlines()} - {"help"}
    assert len(commands) >= 15
    rows = {re.match(r"\| `([\w-]+)", line).group(1): line for line in (GUIDE / "command-line.md").read_text().splitlines() if line.startswith("| `")}
    assert set(rows) == commands
    for command, row in rows.items():
        where = row.split(" | ")[2]
        assert "**" in where or where.startswith("not in Blender:"), f"{command}: {where}"


def test_the_extension_packs_the_guide_as_html():
    # scripts/build-extension drops addon/docs (the README's pictures and the guide's Markdown)
    # and renders the guide into the add-on's guide/, where common/guide.py looks for it.
    text = (REPO / "scripts" / "build-extension").read_text()
    assert 'rm -rf "$stage/docs"' in text and 'guide_html.py" "$stage/guide"' in text
    assert guide.RENDERED.name == "guide" and guide.RENDERED.parent == REPO / "addon"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("guide")
    guide_html.build(out)
    return out


def ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text()))


def test_every_page_is_rendered_with_its_pictures(rendered):
    assert sorted(p.stem for p in rendered.glob("*.html")) == sorted(p.stem for p in pages())
    assert sorted(p.name for p in (rendered / "pictures").iterdir()) == sorted(p.name for p in PICTURES.iterdir())
    for picture in (rendered / "pictures").iterdir():
        assert picture.read_bytes() == (PICTURES / picture.name).read_bytes()


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_rendered_link_and_picture_resolves_offline(rendered, page):
    html = (rendered / f"{page.stem}.html").read_text()
    targets = re.findall(r'\b(?:href|src)="([^"]+)"', html)
    assert targets or page.name == "limits.md"
    for target in targets:
        assert not re.match(r"[a-z]+:", target), f"{page.name}: {target} is not in the guide"
        path, _, anchor = target.partition("#")
        resolved = (rendered / path) if path else rendered / f"{page.stem}.html"
        assert resolved.is_file(), f"{page.name}: {target}"
        if anchor:
            assert anchor in ids(resolved), f"{page.name}: {target}: no such id"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_no_markdown_is_left_in_the_rendered_page(rendered, page):
    html = (rendered / f"{page.stem}.html").read_text()
    body = re.sub(r"<pre><code>.*?</code></pre>|<code>.*?</code>", "", html.split("<main>")[1], flags=re.S)
    text = re.sub(r"<[^>]+>", "", body)
    for left in ("**", "](", "```", "<!--", "|---", "\n# ", "\n## ", "\n- ", "\n1. "):
        assert left not in text, f"{page.name}: {left!r} left over"
    # Every picture, link, heading, list item and table row of the page is there.
    markdown = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    assert html.count("<img ") == len(re.findall(r"!\[", markdown))
    assert len(re.findall(r"<h[1-6] ", html)) == len(re.findall(r"^#+ ", markdown, re.M))
    assert html.count("<li>") == len(re.findall(r"^ *(?:\d+\.|-) ", markdown, re.M))
    assert html.count("<tr>") == len(re.findall(r"^\|", markdown, re.M)) - markdown.count("\n| ---") - markdown.count("\n|---")


def test_the_converter_writes_what_the_guide_uses():
    link = lambda target: target.replace(".md", ".html")  # noqa: E731
    assert guide_html.inline("*a **b** `c*d`* [e](x.md#f) ![g](p.jpg)", link) == (
        '<em>a <strong>b</strong> <code>c*d</code></em> <a href="x.html#f">e</a> <img src="p.jpg" alt="g">'
    )
    made = guide_html.blocks(["1. one", "   more", "", "   ![p](p.jpg)", "2. two", "   - a", "   - b", "", "para < 3"], link)
    assert made == (
        "<ol>\n<li><p>one\nmore</p>\n<p><img src=\"p.jpg\" alt=\"p\"></p></li>\n"
        "<li><p>two</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul></li>\n</ol>\n<p>para &lt; 3</p>"
    )


def _error_reports() -> list[str]:
    """The fixed words of every error the operators report: a message's text up to the first
    name or number filled in (a piece of at least two words), and the text of the messages
    made by a helper of operators/_edit.py."""
    import ast

    helpers = {}
    edit = ast.parse((REPO / "addon" / "operators" / "_edit.py").read_text())
    for fn in edit.body:
        if isinstance(fn, ast.FunctionDef) and fn.name.endswith("_message"):
            (ret,) = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
            helpers[fn.name] = ret.value
    found = []

    def pieces(node) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.JoinedStr):
            return [v.value for v in node.values if isinstance(v, ast.Constant)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in helpers:
            return pieces(helpers[node.func.attr])
        return []  # str(e), a problem's message: they carry a code

    for source in sorted((REPO / "addon" / "operators").glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "report"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Set)
                and [e.value for e in node.args[0].elts] == ["ERROR"]
            ):
                found += [p.strip() for p in pieces(node.args[1]) if len(p.split()) >= 2]
    return found


def test_every_error_of_the_add_on_itself_is_on_its_page():
    # Lines wrap on the page: compare with single spaces.
    page = " ".join((GUIDE / "add-on-messages.md").read_text().split())
    words = [" ".join(w.split()) for w in _error_reports()]
    assert len(words) >= 15
    missing = [w for w in words if w not in page]
    assert not missing, f"errors the operators report that add-on-messages.md does not quote: {missing}"
