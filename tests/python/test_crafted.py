"""Files from strangers (tests/crafted.py): each crafted file gives its error through the command
line (exit status, `error: …` naming the culprit, no output, no temporary file, inputs untouched)
and through the Python module (the exception class, the message, and for a refused glTF the node
and faces), never a crash, a hang or a read outside the level's folder. Then what a failed or
killed write leaves behind."""

import hashlib
import os
import resource
import signal
import stat
import subprocess
import time

import crafted
import llamawad
import numpy as np
import pytest

pytestmark = pytest.mark.generator


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return crafted.build(tmp_path_factory.mktemp("crafted"))


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def temporaries(folder) -> list:
    return sorted(p.name for p in folder.rglob("*") if ".llamawad-" in p.name and p.name.endswith(".tmp"))


def test_the_corpus_has_a_file_per_defect_class(corpus):
    names = [c.name for c in corpus]
    assert len(names) >= 40 and len(set(names)) == len(names)
    kinds = {n.split("-")[0] for n in names}
    assert {"glb", "node", "accessor", "position", "uri", "wad", "overwrite", "output", "check", "probe", "floors", "zone"} <= kinds


# Every case is answered within these on this machine (the CLI's address space is held to the
# memory limit: past it an allocation fails and the process aborts).
SECONDS = 2.0
MEMORY = 500 * 2**20
PREVIOUS = b"the previous output, which a refused command leaves as it is"


def limited_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def folder_state(folder) -> dict:
    """Every entry under ``folder`` as lstat sees it (a link, pipe or device not followed): its
    kind, inode, size and time of change, so that anything written, replaced or removed shows."""
    state = {}
    for p in sorted(folder.rglob("*")):
        st = os.lstat(p)
        state[p.relative_to(folder).as_posix()] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_size, st.st_mtime_ns)
    return state


def test_the_cli_refuses_each_with_a_message_and_writes_nothing(corpus, repo, run_cli):
    assert run_cli("--version").returncode == 0  # built
    binary = repo / "target" / "release" / "llamawad"
    failures = []
    for case in corpus:
        before = {name: digest(case.folder / name) for name in case.inputs}
        if case.out:
            (case.folder / case.out).write_bytes(PREVIOUS)
        state = folder_state(case.folder)
        start = time.monotonic()
        try:
            result = subprocess.run(
                [binary, *case.cli], cwd=case.folder, capture_output=True, text=True, stdin=subprocess.DEVNULL, preexec_fn=limited_memory, timeout=60
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{case.name}: still running after 60 s")
            continue
        seconds = time.monotonic() - start
        problems = []
        if seconds > SECONDS:
            problems.append(f"took {seconds:.1f} s")
        if result.returncode != case.exit_status:
            problems.append(f"exit {result.returncode}, expected {case.exit_status}")
        said = result.stdout if case.report else result.stderr
        if case.report:
            if result.stderr:
                problems.append("an error line besides the report")
        elif not result.stderr.startswith("error: ") or "panicked" in result.stderr:
            problems.append("not one error line")
        problems += [f"does not say {w!r}" for w in case.words if w not in said]
        if case.out and (case.folder / case.out).read_bytes() != PREVIOUS:
            problems.append(f"{case.out} was written")
        if temporaries(case.folder):
            problems.append(f"left {temporaries(case.folder)}")
        problems += [f"{n} changed" for n, d in before.items() if digest(case.folder / n) != d]
        after = folder_state(case.folder)
        problems += [f"{n} written, replaced or removed" for n in sorted(set(state) | set(after)) if state.get(n) != after.get(n)]
        if problems:
            failures.append(f"{case.name}: {'; '.join(problems)}\n    {said.strip()[:2000]}")
    assert not failures, "\n".join(failures)


def call_python(case, base):
    kind, data, *rest = case.python
    match kind:
        case "gltf_to_wad":
            return llamawad.gltf_to_wad(rest[1] if len(rest) > 1 else base, data, directory=rest[0])
        case "wad_to_glb":
            return llamawad.wad_to_glb(data)
        case "probe":
            return llamawad.probe(data, rest[0])
        case "floors":
            return llamawad.floors(data, data, points=rest[0])
        case "check":
            return llamawad.check(data)
        case "polygon_outlines":
            return llamawad.polygon_outlines(data, rest[0])
        case "strats":
            return llamawad.strats(data)
        case "bake":
            return llamawad.bake(data, (0, -1, 0), (1, 1, 1), (0.5, 0.5, 0.5))
        case "fit_light":
            return llamawad.fit_light(data)
    raise AssertionError(kind)


def resident() -> int:
    """This process's resident memory now, bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak() -> int:
    """This process's largest resident memory so far, bytes (Linux counts kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bounded(case, base):
    """The case's call, its time and the memory it took beyond what the process held (when it
    raised the process's peak; otherwise it stayed below what an earlier call took)."""
    before, peak_before = resident(), peak()
    start = time.monotonic()
    try:
        return call_python(case, base), None
    except llamawad.WadError as e:
        return None, e
    finally:
        seconds = time.monotonic() - start
        grown = peak() - before if peak() > peak_before else 0
        assert seconds < SECONDS, f"{case.name}: took {seconds:.1f} s"
        assert grown < MEMORY, f"{case.name}: took {grown / 2**20:.0f} MB"


def test_the_python_module_raises_each_as_a_wad_error(corpus):
    failures = []
    base = crafted.BASE.read_bytes()
    for case in (c for c in corpus if c.python and not c.report):
        result, e = bounded(case, base)
        if e is not None:
            problems = []
            if type(e).__name__ != case.exception:
                problems.append(f"{type(e).__name__}, expected {case.exception}")
            problems += [f"does not say {w!r}" for w in case.words if w not in str(e)]
            if case.exception == "GltfToWadRefused":
                if e.node_index != case.node:
                    problems.append(f"node {e.node_index!r}, expected {case.node!r}")
                if case.faces is not None and e.faces != case.faces:
                    problems.append(f"faces {e.faces}, expected {case.faces}")
            if problems:
                failures.append(f"{case.name}: {'; '.join(problems)}\n    {e}")
        else:
            failures.append(f"{case.name}: no error")
    assert not failures, "\n".join(failures)


def test_the_python_check_reports_each_as_an_error(corpus):
    failures = []
    for case in (c for c in corpus if c.report):
        report, e = bounded(case, None)
        if e is not None:
            failures.append(f"{case.name}: raised {e}")
            continue
        errors = [p["message"] for p in report["problems"] if p["severity"] == "error"]
        missing = [w for w in case.words if not any(w in m for m in errors)]
        if missing:
            failures.append(f"{case.name}: no error says {missing}\n    {errors[:5]}")
    assert not failures, "\n".join(failures)


def test_nothing_outside_the_folder_is_read(corpus, tmp_path):
    """The same sandbox with the folder given as a `directory`: a pipe is never opened (opening
    one blocks until a writer comes), a link out of the folder never followed."""
    base = crafted.BASE.read_bytes()
    fifo = next(c for c in corpus if c.name == "uri-fifo")
    with pytest.raises(llamawad.WadError, match="not a regular file"):
        llamawad.gltf_to_wad(base, fifo.python[1], directory=str(fifo.folder / "in"))
    # A real buffer file inside the folder is read: beside the .gltf, in a subfolder under an
    # %-escaped name, or through a link that stays inside.
    fine = tmp_path / "fine"
    (fine / "sub").mkdir(parents=True)
    g = crafted.base_gltf(base)
    (fine / "sub" / "level one.bin").write_bytes(bytes(g.bin))
    os.symlink("sub/level one.bin", fine / "link.bin")
    for uri in ("sub/level%20one.bin", "./sub/level%20one.bin", "link.bin"):
        g.json["buffers"][0]["uri"] = uri
        assert llamawad.gltf_to_wad(base, g.json_bytes(), directory=fine)[0] == base, uri


def limited_write(limit_bytes: int, ignore_signal: bool):
    """A preexec_fn: files the child writes may not grow beyond `limit_bytes` (a full disk when
    SIGXFSZ is ignored: the write fails with EFBIG; otherwise the kernel kills the child there)."""

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN if ignore_signal else signal.SIG_DFL)

    return limit


def run_limited(repo, args, cwd, limit):
    return subprocess.run(
        [repo / "target" / "release" / "llamawad", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )


def test_a_failed_write_leaves_no_file(repo, tmp_path):
    (tmp_path / "level.wad").write_bytes(crafted.BASE.read_bytes())
    result = run_limited(repo, ["roundtrip", "level.wad", "out.wad"], tmp_path, limited_write(4096, True))
    assert result.returncode == 1 and result.stderr.startswith("error: out.wad:"), result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.wad"]
    # Both files of a .gltf or neither.
    result = run_limited(repo, ["wad2gltf", "level.wad", "out.gltf"], tmp_path, limited_write(64 * 1024, True))
    assert result.returncode == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.wad"]


def test_a_killed_write_leaves_a_named_temporary_the_next_run_removes(repo, tmp_path, run_cli):
    (tmp_path / "level.wad").write_bytes(crafted.BASE.read_bytes())
    result = run_limited(repo, ["roundtrip", "level.wad", "out.wad"], tmp_path, limited_write(4096, False))
    assert result.returncode == -signal.SIGXFSZ, (result.returncode, result.stderr)
    left = temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(".out.wad.llamawad-"), left
    assert not (tmp_path / "out.wad").exists()
    assert run_cli("roundtrip", "level.wad", "out.wad", cwd=tmp_path).returncode == 0
    assert temporaries(tmp_path) == [] and (tmp_path / "out.wad").read_bytes() == crafted.BASE.read_bytes()


def test_a_device_or_pipe_named_as_a_level_is_refused_unread(run_cli, tmp_path):
    """A level that is a link to /dev/zero (which never ends) or a pipe (whose opening waits for a
    writer) is refused before it is opened, by the CLI and by info_file."""
    os.symlink("/dev/zero", tmp_path / "zero.wad")
    os.mkfifo(tmp_path / "pipe.wad")
    for name in ("zero.wad", "pipe.wad"):
        result = run_cli("info", name, cwd=tmp_path)
        assert result.returncode == 1 and "not a regular file" in result.stderr, result.stderr
        with pytest.raises(llamawad.WadError, match="not a regular file"):
            llamawad.info_file(tmp_path / name)


@pytest.mark.parametrize(
    "call",
    [
        lambda p: llamawad.bake_points(crafted.BASE.read_bytes(), p, p, (0, -1, 0), (1, 1, 1), (1, 1, 1), lamps=[{"kind": "x"}]),
        lambda p: llamawad.bake_points(crafted.BASE.read_bytes(), p, p, (0, -1, 0), (1, 1, 1), (1, 1, 1), lamps=["a sun"]),
        lambda p: llamawad.face_uvs([{"u0": "a"}], [0], [0]),
        lambda p: llamawad.face_uvs([{"flags": 0, "u0": 0, "u1": 0, "v0": 0, "v1": 300}], [0], [0]),
    ],
    ids=["lamp-without-colour", "lamp-not-a-dict", "entry-not-a-number", "entry-past-a-byte"],
)
def test_a_badly_formed_item_of_a_binding_is_a_wad_error_naming_it(call):
    """Once a bare KeyError or TypeError, where the stubs promise WadError."""
    with pytest.raises(llamawad.WadError, match=r"^(lamps|entries)\[0\]: "):
        call(np.zeros(3, np.float32))
