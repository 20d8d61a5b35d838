"""Hostile glTF end to end through ``texbudget scan --format json``: every file is an error
finding with its exact code; no file outside the scan root is opened (audit hook on ``open``);
no network is touched (audit ``socket.*``, ``urllib.*``…); nothing recurses out of the stack;
a 200 MB JSON and a GLB claiming a 150 MB JSON chunk are refused by size, unread; memory stays
bounded (tracemalloc)."""

from __future__ import annotations

import io
import json
import os
import struct
import tracemalloc
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tests.robustness import audit
from tests.robustness.hostile import hostile_gltf_files
from texbudget.cli import main

BIG = 200 * 1024 * 1024

#: Each hostile file and the codes of its findings, in order.
EXPECTED = {
    "uri/dotdot.gltf": ["TB074"],
    "uri/dotdot_deep.gltf": ["TB074"],
    "uri/dotdot_encoded.gltf": ["TB074"],
    "uri/dotdot_backslash.gltf": ["TB074"],
    "uri/absolute.gltf": ["TB074"],
    "uri/absolute_image.gltf": ["TB074"],
    "uri/drive.gltf": ["TB074"],
    "uri/file_scheme.gltf": ["TB074"],
    "uri/file_image.gltf": ["TB074"],
    "uri/http.gltf": ["TB074"],
    "uri/https_image.gltf": ["TB074"],
    "uri/ftp.gltf": ["TB074"],
    "uri/nul.gltf": ["TB074"],
    "data/bad_base64.gltf": ["TB079"],
    "data/bad_padding.gltf": ["TB079"],
    "data/not_base64.gltf": ["TB079"],
    "data/terabyte_claim.gltf": ["TB076"],
    "data/petabyte_claim.gltf": ["TB076"],
    "data/bad_image.gltf": ["TB042"],
    "counts/accessor_2_40.gltf": ["TB078"],
    "counts/accessor_2_64.gltf": ["TB078"],
    "graph/cycle.gltf": ["TB080"],
    "graph/self.gltf": ["TB080"],
    "graph/index_out_of_range.gltf": ["TB073"],
    "json/nested_100k.gltf": ["TB070"],
    "json/nested_object_100k.gltf": ["TB070"],
    "json/not_utf8.gltf": ["TB070"],
    "json/top_level_array.gltf": ["TB070"],
    "json/huge_integer.gltf": ["TB070"],
    "json/glTF_1.gltf": ["TB082"],
    "glb/total_length_lies.glb": ["TB072"],
    "glb/json_length_lies.glb": ["TB072"],
    "glb/bin_length_lies.glb": ["TB072"],
    "glb/json_length_zero.glb": ["TB070"],
    "glb/version_1.glb": ["TB082"],
    "glb/header_only.glb": ["TB072"],
    "links/through_link.gltf": ["TB074"],
    "links/image_link.gltf": ["TB074"],
    "big/padded.gltf": ["TB071"],
    "big/claims.glb": ["TB071"],
}

#: Exact messages for the cases the brief names.
MESSAGES = {
    "uri/dotdot.gltf": "buffer 0: URI '../../outside.bin' leaves the scan root; not opened",
    "uri/file_scheme.gltf": "buffer 0: URI 'file:///etc/passwd' uses the file: scheme; texbudget never opens or fetches it",
    "uri/http.gltf": "buffer 0: URI 'http://127.0.0.1:9/x.bin' uses the http: scheme; texbudget never opens or fetches it",
    "uri/absolute.gltf": "buffer 0: URI '/etc/passwd' is an absolute path; not opened",
    "data/terabyte_claim.gltf": f"buffer 0 declares {2**40} bytes, but its data holds 3",
    "counts/accessor_2_40.gltf": f"accessor 0: count {2**40} is beyond {2**31 - 1}; not priced",
    "graph/cycle.gltf": "nodes 0 → 1 → 2 → 0 form a cycle; the link from 2 to 0 was ignored",
    "json/nested_100k.gltf": "the JSON is nested deeper than its parser can follow",
    "glb/json_length_lies.glb": f"the JSON chunk claims {2**31} bytes at offset 20, but the file ends at 100",
    "links/through_link.gltf": "buffer 0: URI 'secret.bin' leads through a symbolic link out of the scan root; not opened",
    "big/padded.gltf": f"the JSON is {BIG} bytes; texbudget parses at most {64 * 1024 * 1024}",
    "big/claims.glb": f"the JSON chunk is {150 * 1024 * 1024} bytes; texbudget parses at most {64 * 1024 * 1024}",
}


def _big_json(path: Path) -> None:
    """A 200 MB .gltf: a real JSON start, then padding. The padding is a hole (a sparse file,
    made by seeking) so the test writes a few bytes, not 200 MB; a reader that read it would
    still get 200 MB."""
    head = b'{"asset": {"version": "2.0"}, "pad": "'
    with open(path, "wb") as f:
        f.write(head)
        f.seek(BIG - 2)
        f.write(b'"}')


def _big_glb(path: Path) -> None:
    json_len = 150 * 1024 * 1024
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, 20 + json_len) + struct.pack("<II", json_len, 0x4E4F534A) + b'{"asset":{"version":"2.0"}}')
        f.truncate(20 + json_len)


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("hostile_gltf")
    root = base / "root"
    root.mkdir()
    (base / "outside.bin").write_bytes(bytes(80))
    (base / "secret.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    for rel, data in hostile_gltf_files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    links = root / "links"
    links.mkdir()
    (links / "secret.bin").symlink_to(base / "outside.bin")
    (links / "secret_image.png").symlink_to(base / "secret.png")  # discovery refuses it: TB004
    (links / "through_link.gltf").write_text(json.dumps({"asset": {"version": "2.0"}, "buffers": [{"uri": "secret.bin", "byteLength": 80}]}))
    (links / "image_link.gltf").write_text(json.dumps({"asset": {"version": "2.0"}, "images": [{"uri": "secret_image.png"}],
                                                       "textures": [{"source": 0}], "materials": [{"normalTexture": {"index": 0}}]}))
    (root / "big").mkdir()
    _big_json(root / "big" / "padded.gltf")
    _big_glb(root / "big" / "claims.glb")
    return root


def _scan(root: Path) -> tuple[int, dict]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["scan", str(root), "--format", "json", "--no-cache", "--jobs", "1"])
    return code, json.loads(out.getvalue())


def test_hostile_gltf_scan(hostile_root: Path) -> None:
    _scan(hostile_root)  # imports and lazily built tables, outside what is measured
    before = audit.bytes_read()
    tracemalloc.start()
    with audit.watching() as watched:
        code, report = _scan(hostile_root)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    after = audit.bytes_read()

    assert code == 0
    by_file: dict[str, list[tuple[str, str, str]]] = {}
    for f in report["findings"]:
        by_file.setdefault(f["path"].split("#", 1)[0], []).append((f["code"], f["severity"], f["message"]))
    for rel, codes in EXPECTED.items():
        got = by_file.get(rel, [])
        assert [c for c, _, _ in got] == codes, (rel, got)
        assert all(sev == "error" for _, sev, _ in got), (rel, got)
    for rel, message in MESSAGES.items():
        assert by_file[rel][0][2] == message, rel
    # the symbolic link itself is refused by discovery, never read
    assert by_file["links/secret_image.png"] == [("TB004", "warning", "symbolic link leaves the scan root; not followed")]
    assert {t["path"] for t in report["textures"]} == set()

    assert watched.outside(hostile_root) == []  # links resolved: root/links/secret.bin counts as outside
    assert watched.network == []
    assert peak < 32 * 1024 * 1024, peak
    if before is not None and after is not None:
        assert after - before < 16 * 1024 * 1024  # the 200 MB and 150 MB files were not read


def test_no_recursion_error_reaches_the_scan(hostile_root: Path) -> None:
    """Deep JSON under a low recursion limit (a scan inside a thread or a deep call stack)."""
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        from texbudget.readers import read_path

        for rel in ("json/nested_100k.gltf", "json/nested_object_100k.gltf"):
            result = read_path(hostile_root, rel)
            assert [(f.code, f.message) for f in result.findings] == [("TB070", "the JSON is nested deeper than its parser can follow")]
    finally:
        sys.setrecursionlimit(old)


def test_sparse_big_files_are_really_big(hostile_root: Path) -> None:
    assert os.path.getsize(hostile_root / "big" / "padded.gltf") == BIG
    assert os.path.getsize(hostile_root / "big" / "claims.glb") == 20 + 150 * 1024 * 1024


def test_the_watch_sees_what_it_must(hostile_root: Path) -> None:
    """The audit helper itself: an open through the link out of the root and a socket are seen."""
    import socket

    with audit.watching() as watched:
        (hostile_root / "links" / "secret.bin").read_bytes()
        (hostile_root / "uri" / "http.gltf").read_bytes()
        socket.socket().close()
    assert watched.outside(hostile_root) == [str(hostile_root / "links" / "secret.bin")]
    assert [event for event, _ in watched.network] == ["socket.__new__"]
