"""The glTF bindings, llamawad.wad_to_glb and llamawad.wad_to_gltf: what they return, that they
agree with each other and with `llamawad wad2gltf`, their errors, and that they release the GIL."""

import json
import struct
import threading
import time

import llamawad
import pytest

# A WAD with nothing but a WFPC chunk (`u32 total`, then `{tag reversed, u32 size, payload}`): it
# parses, but has no TRAK for a glTF.
WFPC_ONLY = struct.pack("<I", 16) + b"CPFW" + struct.pack("<II", 4, 0x1F)


def glb_chunks(glb: bytes) -> tuple[bytes, bytes]:
    """The JSON and BIN chunks of a GLB, checking the header and the chunk layout on the way."""
    magic, version, length = struct.unpack_from("<4sII", glb)
    assert (magic, version, length) == (b"glTF", 2, len(glb))
    json_length, json_type = struct.unpack_from("<I4s", glb, 12)
    assert json_type == b"JSON" and json_length % 4 == 0
    bin_start = 20 + json_length
    bin_length, bin_type = struct.unpack_from("<I4s", glb, bin_start)
    assert bin_type == b"BIN\0" and bin_length % 4 == 0
    assert bin_start + 8 + bin_length == len(glb)
    return glb[20:bin_start], glb[bin_start + 8 :]


@pytest.mark.generator
class TestConversion:
    def test_wad_to_glb_returns_a_glb_and_warnings(self, tiny_wad):
        glb, warnings = llamawad.wad_to_glb(tiny_wad)
        assert isinstance(glb, bytes)
        json_chunk, _ = glb_chunks(glb)
        document = json.loads(json_chunk)
        assert document["asset"]["version"] == "2.0"
        assert isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)

    def test_wad_to_gltf_is_the_glb_in_parts(self, tiny_wad):
        glb, glb_warnings = llamawad.wad_to_glb(tiny_wad)
        text, buffer, warnings = llamawad.wad_to_gltf(tiny_wad)
        assert isinstance(text, str) and isinstance(buffer, bytes)
        assert warnings == glb_warnings
        document = json.loads(text)
        # No uri: the buffer is the one handed back, as in a GLB.
        assert document["buffers"] == [{"byteLength": len(buffer)}]
        json_chunk, bin_chunk = glb_chunks(glb)
        # The GLB pads its chunks, JSON with spaces and BIN with zeros, to 4 bytes.
        assert json_chunk.rstrip(b" ").decode() == text
        assert bin_chunk[: len(buffer)] == buffer and not bin_chunk[len(buffer) :].strip(b"\0")

    def test_bytes_like_input(self, tiny_wad):
        assert llamawad.wad_to_glb(bytearray(tiny_wad)) == llamawad.wad_to_glb(tiny_wad)
        assert llamawad.wad_to_gltf(bytearray(tiny_wad)) == llamawad.wad_to_gltf(tiny_wad)

    def test_the_cli_writes_the_same_files(self, run_cli, tiny_wad, tmp_path):
        wad = tmp_path / "tiny.wad"
        wad.write_bytes(tiny_wad)
        for out in ("tiny.glb", "tiny.gltf"):
            done = run_cli("wad2gltf", wad, tmp_path / out)
            assert done.returncode == 0, done.stderr
        glb, warnings = llamawad.wad_to_glb(tiny_wad)
        assert (tmp_path / "tiny.glb").read_bytes() == glb
        # The CLI prints the same warnings.
        assert [line.removeprefix("warning: ") for line in done.stdout.splitlines()[1:]] == warnings

        text, buffer, _ = llamawad.wad_to_gltf(tiny_wad)
        assert (tmp_path / "tiny.bin").read_bytes() == buffer
        written = json.loads((tmp_path / "tiny.gltf").read_text())
        assert written["buffers"] == [{"byteLength": len(buffer), "uri": "tiny.bin"}]
        written["buffers"][0].pop("uri")
        assert written == json.loads(text)

    def test_the_gil_is_released(self):
        """While a full-size level converts, another Python thread keeps running. With the GIL held
        for the whole conversion, the other thread could not run in the middle of it at all."""
        wad = llamawad.generate(1, "full")
        stop = threading.Event()
        ticks: list[float] = []

        def tick():
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.0005)

        thread = threading.Thread(target=tick)
        thread.start()
        try:
            calls = []
            for convert in (llamawad.wad_to_glb, llamawad.wad_to_gltf) * 3:
                start = time.perf_counter()
                convert(wad)
                calls.append((start, time.perf_counter()))
        finally:
            stop.set()
            thread.join()
        # Ticks in the middle half of a call: the other thread ran while Rust was converting.
        inside = [
            t for start, end in calls for t in ticks if start + (end - start) / 4 < t < end - (end - start) / 4
        ]
        assert inside, f"no tick of the other thread inside any of the calls {calls}"


def test_a_level_without_trak_raises_wad_error():
    assert llamawad.parse_info(WFPC_ONLY)["chunks"] == [{"tag": "WFPC", "size": 4, "kept_as": "typed"}]
    for convert in (llamawad.wad_to_glb, llamawad.wad_to_gltf):
        with pytest.raises(llamawad.WadError, match="TRAK") as caught:
            convert(WFPC_ONLY)
        assert type(caught.value) is llamawad.WadError


@pytest.mark.parametrize("data", [b"", b"not a level", WFPC_ONLY[:-1]], ids=["empty", "text", "truncated"])
def test_unreadable_bytes_raise_wad_error(data):
    for convert in (llamawad.wad_to_glb, llamawad.wad_to_gltf):
        with pytest.raises(llamawad.WadError) as caught:
            convert(data)
        assert type(caught.value) is llamawad.WadParseError
        # The same message as parsing alone gives.
        with pytest.raises(llamawad.WadError) as parsed:
            llamawad.parse_info(data)
        assert str(caught.value) == str(parsed.value)
