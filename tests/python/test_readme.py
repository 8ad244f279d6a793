"""The README's examples of the command line, run: each example's block shows how the file it
runs on is made (the `$` lines before it) and what each command prints, and running the block's
commands in an empty folder prints that. A line `…` stands for one or more lines left out, and
`…` within a line for the rest of it, as the README elides them."""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
ELIDED = "…"


def blocks() -> list[list[str]]:
    """The README's fenced blocks, each as its lines without the fence's indentation."""
    out, current, indent = [], None, ""
    for line in README.read_text().splitlines():
        stripped = line.lstrip(" ")
        if stripped.startswith("```"):
            if current is None:
                current, indent = [], line[: len(line) - len(stripped)]
            else:
                out.append(current)
                current = None
        elif current is not None:
            current.append(line[len(indent) :])
    return out


def examples() -> list[list[tuple[str, list[str]]]]:
    """Each block of `$ ` lines: its commands, each with the lines it prints."""
    out = []
    for lines in blocks():
        if not lines or not lines[0].startswith("$ "):
            continue
        commands: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith("$ "):
                commands.append((line[2:], []))
            else:
                commands[-1][1].append(line)
        out.append(commands)
    return out


def matches(expected: list[str], printed: list[str]) -> bool:
    if not expected:
        return not printed
    head = expected[0]
    if head == ELIDED:
        return any(matches(expected[1:], printed[k:]) for k in range(1, len(printed) + 1))
    if not printed:
        return False
    pattern = ".*".join(map(re.escape, head.split(ELIDED)))
    return re.fullmatch(pattern, printed[0]) is not None and matches(expected[1:], printed[1:])


def test_the_readme_has_its_examples():
    runs = [command for block in examples() for command, _ in block]
    assert sum(c.startswith("scripts/llamawad generate") for c in runs) >= 3
    assert {"strats", "strat-table", "testlevel"} <= {c.split()[1] for c in runs if c.startswith("scripts/llamawad")}


@pytest.mark.parametrize("block", examples(), ids=lambda b: b[-1][0].split()[1])
def test_each_example_prints_what_the_readme_shows(block, tmp_path):
    bash = shutil.which("bash")
    llamawad = shlex.quote((REPO / "scripts" / "llamawad").as_posix())
    for command, expected in block:
        # The file an example runs on is made by the commands before it, in the same folder.
        assert command.startswith(("scripts/llamawad ", "mkdir ", "printf ")), command
        done = subprocess.run(
            [bash, "-c", command.replace("scripts/llamawad", llamawad, 1)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        assert done.returncode == 0, f"$ {command}\n{done.stderr}"
        printed = done.stdout.splitlines()
        assert matches(expected, printed), f"$ {command}\nthe README shows:\n" + "\n".join(expected) + "\nit prints:\n" + done.stdout


def test_an_elision_stands_for_lines_left_out():
    """The comparison can fail: a line that differs, a line missing, a line too many."""
    printed = ["a", "b", "c", "d: more"]
    assert matches(["a", ELIDED, "d: …"], printed)
    assert matches(["a", "b", ELIDED], printed)
    assert not matches(["a", ELIDED, "d: less"], printed)
    assert not matches(["a", "b", "c"], printed)
    assert not matches(["a", ELIDED, "b", "c", "d: more"], printed)
