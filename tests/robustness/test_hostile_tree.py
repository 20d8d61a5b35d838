"""The "done when" of issue 11: a folder of a few hundred broken, truncated and hostile files
(``hostile.write_hostile_tree``: every container, every kind of breakage, hostile glTF, plus
link loops, links out of the root and a FIFO) scans in process and as ``python -m texbudget``
with exit code 0, clean JSON on stdout, a finding for every bad file and no traceback; its peak
RSS stays under 300 MB. ``check`` on the same folder exits 1 (errors), without a traceback.
Time is recorded (``record_property``), never asserted."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.robustness.hostile import write_hostile_tree
from tests.robustness.scanning import load, scan_json, unmet
from texbudget.cli import main

REPO = Path(__file__).resolve().parents[2]
#: Peak resident memory the scan subprocess may reach (it imports numpy, Pillow and trimesh).
RSS_LIMIT_BYTES = 300 * 1024 * 1024


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("hostile_tree")
    root = base / "root"
    manifest = write_hostile_tree(root)
    os.mkdir(base / "elsewhere")
    (root / "links").mkdir()
    (root / "links" / "loop").symlink_to(root)
    (root / "links" / "out").symlink_to(base / "elsewhere")
    (root / "links" / "out.png").symlink_to(base / "outside.bin")
    os.mkfifo(root / "links" / "pipe.dds")
    manifest.update({"links/loop": "finding", "links/out": "finding", "links/out.png": "finding", "links/pipe.dds": "error"})
    return root, manifest


def test_the_folder_holds_every_kind(tree) -> None:
    _, manifest = tree
    assert 500 <= len(manifest) <= 1200  # about 20 files a seed, and the hand-made hostile ones
    kinds = collections.Counter(rel.split("/", 1)[0] for rel in manifest)
    assert set(kinds) >= {"png", "jpeg", "jpg", "tga", "bmp", "tif", "tiff", "webp", "gif", "psd", "dds", "ktx", "ktx2",
                          "exr", "hdr", "gltf", "glb", "obj", "ply", "stl", "off", "fbx", "tscn", "tres", "escn", "scn",
                          "res", "mesh", "lmbake", "unity", "prefab", "mat", "mislabelled", "text", "sidecars", "links"}


def test_scan_in_process(tree, record_property) -> None:
    root, manifest = tree
    start = time.perf_counter()
    code, out, err = scan_json(root)
    record_property("seconds", round(time.perf_counter() - start, 2))
    assert code == 0
    assert "Traceback" not in err
    report = load(out)
    assert unmet(manifest, report) == []
    assert not [f for f in report["findings"] if f["code"] == "TB009"]
    record_property("files", len(manifest))
    record_property("findings", len(report["findings"]))


#: ``python -m texbudget ARGS`` (through runpy, exactly as ``-m`` does) that also writes the
#: process's peak resident memory (Linux VmHWM) to the file named by the first argument.
#: Measured inside: a child's ru_maxrss includes the memory of the process it was forked from
#: (Linux folds the pre-exec high-water mark in), here the whole pytest process.
_MEASURED_MAIN = """
import atexit, runpy, sys
out = sys.argv.pop(1)

def peak():
    with open("/proc/self/status") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(out, "w") as f:
        f.write(str(kib * 1024))

atexit.register(peak)
sys.argv[0] = "texbudget"
runpy.run_module("texbudget", run_name="__main__", alter_sys=True)
"""


def _run_measured(args: list[str], tmp: Path) -> tuple[int, bytes, bytes, int]:
    """(exit code, stdout, stderr, peak RSS in bytes) of ``python -m texbudget ARGS``."""
    peak = tmp / "peak_rss"
    done = subprocess.run([sys.executable, "-c", _MEASURED_MAIN, str(peak), *args], cwd=REPO, capture_output=True, timeout=300)
    return done.returncode, done.stdout, done.stderr, int(peak.read_text())


def test_scan_in_a_subprocess(tree, tmp_path, record_property) -> None:
    root, manifest = tree
    start = time.perf_counter()
    code, stdout, stderr_bytes, rss = _run_measured(["scan", str(root), "--format", "json"], tmp_path)
    record_property("seconds", round(time.perf_counter() - start, 2))
    record_property("peak_rss_bytes", rss)
    stderr = stderr_bytes.decode("utf-8", "replace")
    assert code == 0, stderr
    assert stderr == ""  # no traceback, no warning, no log record: stderr is not a terminal, so no progress either
    report = load(stdout.decode("utf-8"))  # clean: strict UTF-8, nothing but the JSON
    assert unmet(manifest, report) == []
    assert not [f for f in report["findings"] if f["code"] == "TB009"]
    assert rss < RSS_LIMIT_BYTES


def test_check_exits_1_without_a_traceback(tree, capsys) -> None:
    root, _ = tree
    assert main(["check", str(root), "--no-cache"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert out.splitlines()[-1].startswith("texbudget check: ")
    done = subprocess.run([sys.executable, "-m", "texbudget", "check", str(root)], cwd=REPO, capture_output=True, timeout=300)
    assert done.returncode == 1
    assert b"Traceback" not in done.stdout + done.stderr
