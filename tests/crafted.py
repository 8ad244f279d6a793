"""Crafted files from strangers: one per defect class of a damaged or hostile input, each with the
error it must give. Made deterministically from the committed fixture tests/fixtures/tiny-1.wad
(and its glTF, as llamawad.wad_to_gltf writes it), so the corpus costs nothing on disk: the glTFs
in crafted_gltf.py, the WADs in crafted_wad.py, the commands' inputs and outputs here.

    python tests/crafted.py FOLDER     # writes the corpus into FOLDER and lists it

Each case is a folder: a glTF case holds `base.wad` and `in.glb` or `in/level.gltf` (with whatever
sits beside it: buffers, links, a pipe); a WAD case `in.wad`; an overwrite case the files of a
command whose output is one of its inputs; an output case a command whose output is a device, a
pipe or a folder. `Case.cli` is the command, `Case.python` the call of the
Python module (None where the module writes nothing), and the expectations: the CLI's exit status
and words of its message, the Python exception class, and for a refused glTF the node and faces.
"""

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from crafted_gltf import (
    Gltf,
    accessor_cases,
    base_gltf,
    glb_cases,
    index_cases,
    node_graph_cases,
    reader_cap_cases,
    size_cases,
    uri_cases,
    value_cases,
    zone_mask_cases,
)
from crafted_wad import check_cases, light_cases, limit_wad_cases, strat_cases, wad_cases, with_strats

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "tests" / "fixtures" / "tiny-1.wad"


@dataclass
class Case:
    name: str
    folder: Path
    # Arguments of scripts/llamawad, relative to `folder` (run there); OUT is what must not appear.
    cli: list[str]
    out: str
    # What the Python module is given: ("gltf_to_wad", data, directory[, base]), ("wad_to_glb", data),
    # ("probe", level, points), ("floors", level, points), ("check", level), ("strats", level), ("bake", level) or ("fit_light", level).
    python: tuple | None
    words: list[str]
    exit_status: int = 1
    exception: str = "WadError"
    # For a refusal (GltfToWadRefused): the index of the node named among the glTF's nodes, and
    # the faces when the fault is in faces.
    node: int | None = None
    faces: list[int] | None = None
    # Files of the case that must be exactly as they were afterwards (inputs never overwritten).
    inputs: list[str] = field(default_factory=list)
    # The verdict is a `check` report (stdout, and the Python module's dict) holding an error that
    # says `words`, not a refusal to read.
    report: bool = False


def command_cases(root: Path, wad: bytes) -> list[Case]:
    """The floor probe and comparison given inputs without a limit: refused before the work."""
    out = []

    def case(name, cli, python, words, setup=None):
        path = root / name
        path.mkdir(parents=True)
        (path / "base.wad").write_bytes(wad)
        if setup:
            setup(path)
        out.append(Case(name, path, cli, None, python, words, inputs=["base.wad"]))

    # Read whole, /dev/zero once grew until the machine ran out of memory; a pipe waited forever.
    for name, make in (("zero", lambda p: os.symlink("/dev/zero", p / "points.txt")), ("fifo", lambda p: os.mkfifo(p / "points.txt"))):
        case(f"probe-points-{name}", ["probe", "base.wad", "--points", "points.txt", "--json"], None, ["points.txt", "not a regular file"], make)
    nan = float("nan")
    case("probe-nan", ["probe", "base.wad", "NaN", "0", "0"], ("probe", wad, [(nan, nan, nan)]), ["not three finite numbers"])
    case("probe-infinite", ["probe", "base.wad", "1", "inf", "1"], ("probe", wad, [(1.0, 2.0, 3.0), (1.0, float("inf"), 1.0)]), ["(1, inf, 1)", "not three finite numbers"])
    # A points file of one line of 40 MB: once echoed whole in the refusal.
    case("probe-points-line-40-mb", ["probe", "base.wad", "--points", "points.txt"], None, ["points.txt line 1", "`0 0 0 0 0", "…`"], lambda p: (p / "points.txt").write_text("0 " * 20_000_000))
    many = [(1.5, 1.0, 1.5)] * 65_537
    case("probe-points-65537", ["probe", "base.wad", "--points", "points.txt"], ("probe", wad, many), ["65537", "at most 65536"], lambda p: (p / "points.txt").write_text("1.5 1 1.5\n" * 65_537))
    case("polygon-outlines-65537", ["probe", "base.wad", "--points", "points.txt"], ("polygon_outlines", wad, [(0, 0)] * 65_537), ["65537", "at most 65536"], lambda p: (p / "points.txt").write_text("1.5 1 1.5\n" * 65_537))
    for count in (10**12, 2**64 - 1):
        case(
            f"floors-points-{count}",
            ["floors", "base.wad", "--compare", "base.wad", "--points", str(count)],
            ("floors", wad, count),
            [f"{count} points asked for", "at most 1000000"],
        )
    return out


def build(root: Path) -> list[Case]:
    """Writes every case into a folder of its own under `root`; the cases, in a fixed order."""
    wad = BASE.read_bytes()
    g = base_gltf(wad)
    return [
        *gltf_file_cases(root, wad, g),
        *wad_file_cases(root, wad),
        strat_copies_case(root, wad),
        *check_file_cases(root, wad),
        *command_cases(root, wad),
        *overwrite_cases(root, wad, g),
        *output_cases(root, wad, g),
    ]


def _in_wad(root: Path, name: str, data: bytes) -> Path:
    """The case's folder, with the level given as `in.wad`."""
    path = root / name
    path.mkdir(parents=True)
    (path / "in.wad").write_bytes(data)
    return path


def gltf_file_cases(root: Path, wad: bytes, g: Gltf) -> list[Case]:
    """`gltf2wad` (and `llamawad.gltf_to_wad`) given each crafted glTF against the base."""
    cases: list[Case] = []

    def folder(name: str) -> Path:
        path = root / name
        path.mkdir(parents=True)
        (path / "base.wad").write_bytes(wad)
        return path

    def glb_case(name, data, words, node=None, faces=None, refused=False):
        path = folder(name)
        (path / "in.glb").write_bytes(data)
        refused = refused or node is not None
        cases.append(
            Case(
                name,
                path,
                ["gltf2wad", "--base", "base.wad", "in.glb", "out.wad"],
                "out.wad",
                ("gltf_to_wad", data, None),
                # The message names the node as "node 'NAME'".
                words + ([g.label(node)] if node is not None else []),
                exception="GltfToWadRefused" if refused else "WadError",
                node=node,
                faces=faces,
                inputs=["base.wad", "in.glb"],
            )
        )

    def gltf_case(path: Path, text: bytes, words: list[str], inputs: list[str]) -> None:
        cases.append(
            Case(
                path.name,
                path,
                ["gltf2wad", "--base", "base.wad", "in/level.gltf", "out.wad"],
                "out.wad",
                ("gltf_to_wad", text, path / "in"),
                words,
                inputs=["base.wad", "in/level.gltf", *inputs],
            )
        )

    for name, data, words in glb_cases(g.copy()):
        glb_case(name, data, words)
    for maker in (index_cases, node_graph_cases, accessor_cases):
        for name, edited, words in maker(g):
            # Faults inside one mesh's data are refusals of its node; the rest, unreadable files.
            node = g.tile() if maker is accessor_cases else None
            glb_case(name, edited.glb(), words, node=node)
    for name, edited, words, node, faces in value_cases(g):
        glb_case(name, edited.glb(), words, node=node, faces=faces)
    for name, edited, words, node in size_cases(g):
        glb_case(name, edited.glb(), words, node=node, refused=True)
    for name, edited, words in reader_cap_cases(g):
        glb_case(name, edited.glb(), words)
    for name, edited, words in zone_mask_cases(g):
        glb_case(name, edited.glb(), words, refused=True)

    for name, uri, words, around in uri_cases(g):
        path = folder(name)
        (path / "in").mkdir()
        c = g.copy()
        c.json["buffers"][0]["uri"] = uri
        text = c.json_bytes()
        (path / "in" / "level.gltf").write_bytes(text)
        if around is not None:
            around(path)
        gltf_case(path, text, ["buffer 0"] + words, [])

    # The same file named by 2,000 buffers: once read 2,000 times, 750 MB.
    path = folder("buffers-2000-naming-one-file")
    (path / "in").mkdir()
    c = g.copy()
    c.json["buffers"] = [{"byteLength": len(c.bin), "uri": "level.bin"}] * 2000
    text = json.dumps(c.json).encode()
    (path / "in" / "level.gltf").write_bytes(text)
    (path / "in" / "level.bin").write_bytes(bytes(c.bin))
    gltf_case(path, text, ["more than 268435456 bytes in all"], ["in/level.bin"])
    return cases


def wad_file_cases(root: Path, wad: bytes) -> list[Case]:
    """The commands that read a level given each crafted WAD: `wad2gltf`, `strats`, `testlevel`,
    `bake` and `fit-light`, as each case says."""
    cases: list[Case] = []
    # Bytes that are no level, which the parser refuses; levels past a cap.
    for cases_of, exception in [(wad_cases, "WadParseError"), (limit_wad_cases, "WadError")]:
        for name, data, words in cases_of(wad):
            path = _in_wad(root, name, data)
            cli = ["wad2gltf", "in.wad", "out.glb"]
            cases.append(Case(name, path, cli, "out.glb", ("wad_to_glb", data), words, exception=exception, inputs=["in.wad"]))

    for name, data, words in strat_cases(wad):
        path = _in_wad(root, name, data)
        cases.append(Case(f"{name}-listed", path, ["strats", "in.wad", "--json"], None, ("strats", data), words, inputs=["in.wad"]))
        cases.append(Case(f"{name}-tested", path, ["testlevel", "in.wad", "out.wad"], "out.wad", None, words, inputs=["in.wad"]))
        if "parameters" in name:
            cases.append(Case(name, path, ["wad2gltf", "in.wad", "out.glb"], "out.glb", ("wad_to_glb", data), words, inputs=["in.wad"]))

    for name, data, words, fit_too in light_cases(wad):
        path = _in_wad(root, name, data)
        light = ["--sun", "0,-1,0", "--sun-colour", "1,1,1", "--sky", "0.5,0.5,0.5"]
        cases.append(Case(f"{name}-baked", path, ["bake", "in.wad", "out.wad", *light], "out.wad", ("bake", data), words, inputs=["in.wad"]))
        if fit_too:
            cases.append(Case(f"{name}-fitted", path, ["fit-light", "in.wad"], None, ("fit_light", data), words, inputs=["in.wad"]))
    return cases


def check_file_cases(root: Path, wad: bytes) -> list[Case]:
    """`check` given each crafted level: its report names the fault."""
    import llamawad

    return [
        Case(name, _in_wad(root, name, data), ["check", "in.wad"], None, ("check", data), words, inputs=["in.wad"], report=True)
        for name, data, words in check_cases(wad, llamawad.generate(1, "full"))
    ]


def strat_copies_case(root: Path, wad: bytes) -> Case:
    """A base whose one new strat names a million parameters, and a glTF of 500 copies of its
    node (extras without the list: the copies take the base's): once a 2 GB allocation."""
    import llamawad

    name = "strat-copies-500-of-1000000-parameters"
    path = root / name
    path.mkdir(parents=True)
    big = with_strats(wad, 1_000_000, [(1_000_000, None, -1)])
    (path / "base.wad").write_bytes(big)
    c = base_gltf(big)
    strat = next(i for i, n in enumerate(c.json["nodes"]) if (n.get("extras") or {}).get("strat") == len(llamawad.strats(wad)["strats"]))
    copy_of = {k: v for k, v in c.json["nodes"][strat].items() if k != "extras"}
    copy_of["extras"] = {k: v for k, v in c.json["nodes"][strat]["extras"].items() if k != "parameters"}
    first = len(c.json["nodes"])
    c.json["nodes"] += [dict(copy_of, name=f"copy {k}") for k in range(500)]
    group = next(n for n in c.json["nodes"] if strat in n.get("children", []))
    group["children"] += list(range(first, first + 500))
    (path / "in.glb").write_bytes(c.glb())
    return Case(
        name,
        path,
        ["gltf2wad", "--base", "base.wad", "in.glb", "out.wad"],
        "out.wad",
        ("gltf_to_wad", c.glb(), None, big),
        ["append", "parameters", "at most 1048576"],
        exception="GltfToWadRefused",
        inputs=["base.wad", "in.glb"],
    )


def overwrite_cases(root: Path, wad: bytes, g: Gltf) -> list[Case]:
    """Commands whose output is one of their inputs, by another name or a link: refused before
    anything is written (the input keeps its bytes)."""
    out = []

    def case(name, cli, target, inputs, words, setup):
        path = root / name
        path.mkdir(parents=True)
        (path / "level.wad").write_bytes(wad)
        setup(path)
        out.append(Case(name, path, cli, target, None, words, inputs=inputs))

    def gltf_beside(path):
        c = g.copy()
        c.json["buffers"][0]["uri"] = "level.bin"
        (path / "level.gltf").write_bytes(c.json_bytes())
        (path / "level.bin").write_bytes(bytes(c.bin))
        (path / "level.glb").write_bytes(g.glb())

    nothing = lambda path: None  # noqa: E731
    case("overwrite-roundtrip-same-name", ["roundtrip", "level.wad", "./level.wad"], None, ["level.wad"], ["is the input file"], nothing)
    case(
        "overwrite-roundtrip-hard-link",
        ["roundtrip", "level.wad", "other.wad"],
        None,
        ["level.wad"],
        ["is the input file"],
        lambda p: os.link(p / "level.wad", p / "other.wad"),
    )
    case(
        "overwrite-wad2gltf-glb-link",
        ["wad2gltf", "level.wad", "out.glb"],
        None,
        ["level.wad"],
        ["is the input level"],
        lambda p: os.symlink("level.wad", p / "out.glb"),
    )
    case(
        "overwrite-wad2gltf-same-name",
        ["wad2gltf", "level.glb", "level.glb"],
        None,
        ["level.glb"],
        ["is the input level"],
        lambda p: (p / "level.glb").write_bytes(wad),
    )
    case(
        "overwrite-wad2gltf-bin",
        ["wad2gltf", "level.bin", "level.gltf"],
        "level.gltf",
        ["level.bin"],
        ["level.bin is the input level"],
        lambda p: (p / "level.bin").write_bytes(wad),
    )
    case("overwrite-gltf2wad-base", ["gltf2wad", "--base", "level.wad", "level.glb", "level.wad"], None, ["level.wad", "level.glb"], ["is the base level"], gltf_beside)
    case("overwrite-gltf2wad-input", ["gltf2wad", "--base", "level.wad", "level.glb", "level.glb"], None, ["level.wad", "level.glb"], ["is the input glTF"], gltf_beside)
    case(
        "overwrite-gltf2wad-buffer",
        ["gltf2wad", "--base", "level.wad", "level.gltf", "level.bin"],
        None,
        ["level.wad", "level.gltf", "level.bin"],
        ["is a buffer of the input glTF"],
        gltf_beside,
    )
    return out


def output_cases(root: Path, wad: bytes, g: Gltf) -> list[Case]:
    """Outputs that are no regular file: refused before anything is written, the device, pipe or
    folder left as it is (a rename would have put a file in its place)."""
    out = []

    def case(name, cli, inputs, setup):
        path = root / name
        path.mkdir(parents=True)
        (path / "level.wad").write_bytes(wad)
        setup(path)
        out.append(Case(name, path, cli, None, None, ["not a regular file"], inputs=inputs))

    def old_gltf(path):
        (path / "out.gltf").write_bytes(b"the old .gltf")
        os.mkfifo(path / "out.bin")

    def folder(path):
        (path / "out.wad").mkdir()
        (path / "out.wad" / "keep").write_bytes(b"kept")

    roundtrip = ["roundtrip", "level.wad", "out.wad"]
    case("output-device-link", roundtrip, ["level.wad"], lambda p: os.symlink("/dev/null", p / "out.wad"))
    case("output-fifo", roundtrip, ["level.wad"], lambda p: os.mkfifo(p / "out.wad"))
    case("output-folder", roundtrip, ["level.wad", "out.wad/keep"], folder)
    case("output-generate-fifo", ["generate", "--seed", "1", "--size", "tiny", "out.wad"], [], lambda p: os.mkfifo(p / "out.wad"))
    case("output-glb-device-link", ["wad2gltf", "level.wad", "out.glb"], ["level.wad"], lambda p: os.symlink("/dev/null", p / "out.glb"))
    case("output-bin-fifo", ["wad2gltf", "level.wad", "out.gltf"], ["level.wad", "out.gltf"], old_gltf)

    def glb_and_fifo(path):
        (path / "level.glb").write_bytes(g.glb())
        os.mkfifo(path / "out.wad")

    case("output-gltf2wad-fifo", ["gltf2wad", "--base", "level.wad", "level.glb", "out.wad"], ["level.wad", "level.glb"], glb_and_fifo)
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    target = Path(sys.argv[1])
    for c in build(target):
        print(f"{c.name}: llamawad {' '.join(c.cli)} -> exit {c.exit_status}, {c.exception}: {c.words}")
