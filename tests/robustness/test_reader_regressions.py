"""Regression tests for the reader bugs the fuzzing found (docs/robustness.md lists them)."""

from __future__ import annotations

import io
import struct
import tracemalloc
from pathlib import Path

import pytest

from tests.robustness.seeds import seed, set_field
from texbudget.readers import read_bytes, read_path
from texbudget.readers._common import read_upto


def _codes(result) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in result.findings]


# --- 1. f.read(cap) on a real file allocates the cap: meshes and glTF JSON -------------------


def test_read_upto_reads_in_blocks_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(256)) * 10)
    with open(path, "rb") as f:
        assert read_upto(f, 100) == (bytes(range(256)) * 10)[:100]
    with open(path, "rb") as f:
        assert read_upto(f, 10**12) == bytes(range(256)) * 10
    with open(path, "rb") as f:
        tracemalloc.start()
        read_upto(f, 2**40)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 2 * 1024 * 1024  # one 1 MiB block at most, not 2^40 bytes


@pytest.mark.parametrize("name", ["two.obj", "cube.stl", "embedded.gltf"])
def test_small_mesh_and_gltf_files_do_not_allocate_the_cap(tmp_path: Path, name: str) -> None:
    """Before: ``f.read(MAX_MESH_FILE_BYTES + 1)`` and ``f.read(MAX_JSON_BYTES + 1)`` asked
    for 256 MiB and 64 MiB for every file (CPython allocates the size asked for, up front)."""
    s = seed(name)
    (tmp_path / name).write_bytes(s.data)
    read_path(tmp_path, name)  # imports
    tracemalloc.start()
    result = read_path(tmp_path, name)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.meshes and peak < 4 * 1024 * 1024


def test_mesh_file_that_grew_past_the_cap_is_refused(tmp_path: Path, monkeypatch) -> None:
    from texbudget.readers import meshes

    monkeypatch.setattr(meshes, "MAX_MESH_FILE_BYTES", 100)
    (tmp_path / "m.obj").write_bytes(b"v 0 0 0\n" * 10)  # 80 bytes: under the cap when measured
    from texbudget.readers import Source

    class Growing(Source):
        def open(self):  # the file grew between stat and read
            return io.BytesIO(b"v 0 0 0\n" * 20)

    result = meshes.read_trimesh(Growing(rel="m.obj", root=tmp_path))
    assert _codes(result) == [("TB086", "the file is over 100 bytes; texbudget hands at most 100 to trimesh")]


def test_gltf_that_grew_past_the_cap_is_refused(tmp_path: Path, monkeypatch) -> None:
    from texbudget.readers import Source, gltf, gltf_container

    monkeypatch.setattr(gltf_container, "MAX_JSON_BYTES", 100)

    class Growing(Source):
        def size(self):
            return 50

        def open(self):
            return io.BytesIO(b" " * 200)

    result = gltf.read_gltf(Growing(rel="g.gltf", root=tmp_path))
    assert _codes(result) == [("TB071", "the JSON is over 100 bytes; texbudget parses at most 100")]


# --- 2. TIFF: tags of a corrupt type, a directory the file cuts short ------------------------


def test_tiff_tag_of_a_wrong_type_is_ignored_not_an_internal_error() -> None:
    """Before: StripByteCounts retyped as ASCII reached ``int('\\x00')``: TB009."""
    s = seed("float.tiff")
    data = set_field(s.data, s.fields[s.field("tag279.type")], 2)  # ASCII
    result = read_bytes("f.tiff", data, ".tiff")
    assert result.findings == ()
    (t,) = result.textures
    assert (t.width, t.height, t.bit_depth, t.hdr, t.channels) == (16, 8, 32, True, 1)
    data = set_field(s.data, s.fields[s.field("tag258.type")], 2)  # BitsPerSample as ASCII
    assert not [f for f in read_bytes("f.tiff", data, ".tiff").findings if f.code == "TB009"]


def test_tiff_cut_inside_its_directory_is_truncated() -> None:
    """Before: Pillow kept the entries before the cut and the file read as a texture."""
    s = seed("float.tiff")  # Pillow writes this one's directory first, at offset 8
    result = read_bytes("f.tiff", s.data[:82], ".tiff")
    assert result.textures == ()
    assert _codes(result) == [("TB042", "TIFF header truncated: the first image directory ends at 134, the file at 82")]


def test_tiff_without_strip_offsets() -> None:
    s = seed("rgb.tif")
    data = set_field(s.data, s.fields[s.field("tag273.type")], 2)  # StripOffsets unreadable
    result = read_bytes("f.tif", data, ".tif")
    assert _codes(result) == [("TB054", "TIFF: the first image directory has no StripOffsets or TileOffsets (a required field)")]


# --- 3. binary STL whose length disagrees with its triangle count ---------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d[:600], "binary STL header gives 12 triangles, which need 684 bytes; the file has 600"),
        (lambda d: d[:50], "binary STL header truncated: the file has 50 bytes, the header and triangle count need 84"),
        (lambda d: d[:80] + struct.pack("<I", 2**32 - 1) + d[84:], "binary STL header gives 4294967295 triangles, which need 214748364834 bytes; the file has 684"),
    ],
)
def test_binary_stl_count_mismatch(change, message) -> None:
    """Before: trimesh fell back to its ASCII parser and the finding named a missing module
    (``No module named 'charset_normalizer'``)."""
    result = read_bytes("c.stl", change(seed("cube.stl").data), ".stl")
    assert _codes(result) == [("TB085", message)]


def test_binary_stl_whose_header_says_solid_still_reads() -> None:
    data = b"solid but binary".ljust(80, b" ") + seed("cube.stl").data[80:]
    (mesh,) = read_bytes("c.stl", data, ".stl").meshes
    assert (mesh.vertices, mesh.triangles) == (8, 12)


# --- 4. trimesh's log records and numpy's warnings stay off stderr ---------------------------


_NOISY = """
import sys
from tests.robustness.seeds import seed, set_field
from texbudget.readers import read_bytes
ascii_stl = seed("cube_ascii.stl").data.replace(b"facet normal 0 0 0", b"facet normal 0 0 x", 1)
(mesh,) = read_bytes("a.stl", ascii_stl, ".stl").meshes  # trimesh logs a traceback, then reads it
off = seed("cube.off")
result = read_bytes("o.off", set_field(off.data, off.fields[0], 2**63 - 1), ".off")  # numpy overflows
print(mesh.vertices, mesh.triangles, [f.code for f in result.findings])
"""


def test_trimesh_logs_and_numpy_warnings_do_not_reach_stderr() -> None:
    """Before: trimesh's WARNING record with its traceback and numpy's RuntimeWarning went to
    stderr (Python's last-resort logging handler and the warnings module), into the output
    of ``texbudget scan``. A subprocess, because pytest captures logging itself."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _NOISY], cwd=root, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "8 12 ['TB085']\n", "")


# --- 5. files cut after they were measured (a scan's stat, then the reader's read) ----------


class _CutAfterStat:
    """A Source whose size and first bytes are the whole file's, but whose open() sees it cut
    to ``keep`` bytes: the file shrank between the scan's stat/prefetch and the reader."""

    @staticmethod
    def make(rel: str, data: bytes, keep: int):
        from texbudget.readers import Source

        class Cut(Source):
            def size(self) -> int:
                return len(data)

            def head(self, n: int) -> bytes:
                return data[:n]

            def open(self):
                return io.BytesIO(data[:keep])

        return Cut(rel=rel, data=None, root=Path("/nonexistent"))


def test_ktx2_level_index_cut_after_measuring() -> None:
    """Before: ``struct.unpack_from`` on the short level index: TB009."""
    from texbudget.readers.ktx import read_ktx2

    result = read_ktx2(_CutAfterStat.make("t.ktx2", seed("bc7.ktx2").data, 100))
    assert _codes(result) == [("TB005", "KTX2 level index: 120 bytes at offset 80 expected, 20 read (the file changed while it was read)")]


def test_glb_chunk_header_cut_after_measuring() -> None:
    """Before: ``struct.unpack`` on a short chunk header: TB009."""
    from texbudget.readers.gltf import read_glb

    data = seed("scene.glb").data
    json_len = struct.unpack_from("<I", data, 12)[0]
    result = read_glb(_CutAfterStat.make("s.glb", data, 20 + json_len + 3))
    assert _codes(result) == [("TB005", f"the chunk header at offset {20 + json_len} could not be read (the file changed while it was read)")]


def test_broken_link_that_vanishes_while_listed(tmp_path: Path, monkeypatch) -> None:
    """Before: ``os.readlink`` on a link removed meanwhile raised out of discovery."""
    import os

    from texbudget import discover as discover_mod

    (tmp_path / "gone.png").symlink_to(tmp_path / "nowhere.png")

    def vanished(path):
        raise FileNotFoundError(2, "No such file or directory", path)

    monkeypatch.setattr(os, "readlink", vanished)
    found = discover_mod.discover(tmp_path)
    assert [(f.path, f.code, f.message) for f in found.findings] == [("gone.png", "TB001", "broken symbolic link (target unknown does not exist)")]
