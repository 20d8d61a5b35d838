"""Discovery and reading under abuse, end to end through ``texbudget scan --format json``:
symbolic link loops, links leaving the root, FIFOs and devices, unreadable folders and files
(simulated: the tests run as root, where chmod denies nothing), files deleted, cut or grown
between discovery and reading, and names that are not UTF-8. Every case ends with exit code 0,
valid JSON, and each file as facts or a finding."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness import audit
from tests.robustness.scanning import load, per_file, scan_json
from tests.robustness.seeds import SCENE_ONLY_SEEDS, all_seeds, seed

PNG = seed("palette.png").data
DDS = seed("cube_bc1.dds").data


def _write(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _findings(report: dict) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for f in report["findings"]:
        out.setdefault(f["path"], []).append((f["code"], f["message"]))
    return out


def test_link_loops_links_out_fifos_and_devices(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    _write(outside, "leak.png", PNG)
    _write(root, "a/b/ok.png", PNG)
    (root / "a" / "b" / "loop").symlink_to(root / "a")  # back to an ancestor
    (root / "self").symlink_to(root)  # the root itself
    (root / "out_dir").symlink_to(outside)  # a folder outside
    (root / "out.png").symlink_to(outside / "leak.png")  # a file outside
    (root / "dangling.png").symlink_to(root / "gone.png")  # a target that does not exist
    (root / "zero.png").symlink_to("/dev/zero")  # a device: reading it never ends
    os.mkfifo(root / "pipe.png")  # reading a FIFO blocks forever
    (root / "inner_pipe.dds").symlink_to(root / "pipe.png")  # a link to it, inside the root

    scan_json(root)  # imports, outside what is watched
    with audit.watching() as watched:
        code, out, err = scan_json(root)
    assert (code, err) == (0, "")
    report = load(out)
    assert [t["path"] for t in report["textures"]] == ["a/b/ok.png"]
    assert _findings(report) == {
        "a/b/loop": [("TB004", "symbolic link loops back to a folder above it; not followed")],
        "dangling.png": [("TB001", f"broken symbolic link (target {str(root / 'gone.png')!r} does not exist)")],
        "inner_pipe.dds": [("TB001", "not a regular file (a FIFO, socket or device); not read")],
        "out.png": [("TB004", "symbolic link leaves the scan root; not followed")],
        "out_dir": [("TB004", "symbolic link leaves the scan root; not followed")],
        "pipe.png": [("TB001", "not a regular file (a FIFO, socket or device); not read")],
        "self": [("TB004", "symbolic link loops back to a folder above it; not followed")],
        "zero.png": [("TB004", "symbolic link leaves the scan root; not followed")],
    }
    assert watched.outside(root) == []
    assert not [p for p in watched.opened if p.endswith(("pipe.png", "inner_pipe.dds", "zero.png"))]


def test_fifo_named_on_the_command_line(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, "ok.png", PNG)
    os.mkfifo(tmp_path / "pipe.png")
    monkeypatch.chdir(tmp_path)  # a file named on the command line is relative to the current folder
    code, out, _ = scan_json(Path("pipe.png"))
    assert code == 0
    assert _findings(load(out)) == {"pipe.png": [("TB001", "not a regular file (a FIFO, socket or device); not read")]}


def _deny(monkeypatch, denied: set[str]) -> None:
    """os.scandir, open and os.open raise PermissionError for the given paths, as chmod 000
    would for a user who is not root."""
    real_scandir, real_open, real_os_open = os.scandir, builtins.open, os.open

    def scandir(path="."):
        if os.fspath(path) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def guarded_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *args, **kwargs)

    def guarded_os_open(path, *args, **kwargs):
        if os.fspath(path) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)


def test_unreadable_folders_and_files(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, "ok.png", PNG)
    _write(tmp_path, "locked/hidden.png", PNG)
    _write(tmp_path, "secret.dds", DDS)
    _deny(monkeypatch, {str(tmp_path / "locked"), str(tmp_path / "secret.dds")})
    code, out, err = scan_json(tmp_path)
    assert (code, err) == (0, "")
    report = load(out)
    assert [t["path"] for t in report["textures"]] == ["ok.png"]
    assert _findings(report) == {
        "locked": [("TB001", "cannot list the folder: Permission denied")],
        "secret.dds": [("TB001", "cannot read: Permission denied")],
    }


def test_unreadable_root(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, "ok.png", PNG)
    _deny(monkeypatch, {str(tmp_path)})
    code, out, _ = scan_json(tmp_path)
    assert code == 0
    assert _findings(load(out)) == {".": [("TB001", "cannot list the folder: Permission denied")]}


# --- files that change between discovery and reading ----------------------------------------

#: Each seed made larger than the scan's 64 KiB prefetch, so the reader goes back to the disk
#: (and sees the change); junk after the data is something every reader tolerates or reports.
PAD = 70_000


def _changes(path: Path, how: str) -> None:
    if how == "deleted":
        path.unlink()
    elif how == "cut to 100 bytes":
        with open(path, "r+b") as f:
            f.truncate(100)
    elif how == "cut in half":
        with open(path, "r+b") as f:
            f.truncate(path.stat().st_size // 2)
    elif how == "grown by 1 MiB":
        with open(path, "ab") as f:
            f.write(bytes(1 << 20))
    elif how == "replaced by a folder":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("how", ["deleted", "cut to 100 bytes", "cut in half", "grown by 1 MiB", "replaced by a folder"])
def test_files_change_while_the_scan_reads_them(tmp_path: Path, monkeypatch, how: str) -> None:
    """The registry's loader is wrapped so each file changes after the scan measured and
    prefetched it and before its reader runs."""
    import texbudget.readers as registry

    for s in all_seeds():
        _write(tmp_path, s.name, s.data + bytes(PAD))
        for name, data in s.companions:
            _write(tmp_path, name, data)
    real_load = registry._load

    def load_then_change(target: str):
        reader = real_load(target)

        def changed(src):
            if src.root is not None and "#" not in src.rel and (src.root / src.rel).exists():
                _changes(src.root / src.rel, how)
            return reader(src)

        return changed

    monkeypatch.setattr(registry, "_load", load_then_change)
    code, out, err = scan_json(tmp_path, "--jobs", "1")
    assert (code, err) == (0, "")
    seen = per_file(load(out))
    for s in all_seeds():
        got = seen.get(s.name, [])
        assert got or s.name in SCENE_ONLY_SEEDS, (s.name, how)  # the report lists scene files by findings only
        assert not [c for c, _ in got if c == "TB009"], (s.name, how, got)


def test_file_deleted_between_discovery_and_reading(tmp_path: Path, monkeypatch) -> None:
    from texbudget.scan import scene as scan_mod

    _write(tmp_path, "ok.png", PNG)
    _write(tmp_path, "gone.dds", DDS)
    real = scan_mod.discover

    def discover_then_delete(*args, **kwargs):
        found = real(*args, **kwargs)
        (tmp_path / "gone.dds").unlink()
        return found

    monkeypatch.setattr(scan_mod, "discover", discover_then_delete)
    code, out, err = scan_json(tmp_path)
    assert (code, err) == (0, "")
    findings = _findings(load(out))
    assert list(findings) == ["gone.dds"]
    assert findings["gone.dds"][0][0] == "TB005"


def test_file_deleted_between_discovery_and_reading_is_tb005(tmp_path: Path, monkeypatch) -> None:
    from texbudget.scan import scene as scan_mod

    _write(tmp_path, "gone.dds", DDS)
    real = scan_mod.discover

    def discover_then_delete(*args, **kwargs):
        found = real(*args, **kwargs)
        (tmp_path / "gone.dds").unlink()
        return found

    monkeypatch.setattr(scan_mod, "discover", discover_then_delete)
    _, out, _ = scan_json(tmp_path)
    assert [c for c, _ in _findings(load(out))["gone.dds"]] == ["TB005"]


# --- names that are not UTF-8 ------------------------------------------------------------------


def _non_utf8_tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"bad\xff.png"), "wb") as f:
        f.write(PNG)
    os.mkdir(os.path.join(os.fsencode(root), b"dir\xfe"))
    with open(os.path.join(os.fsencode(root), b"dir\xfe", b"ok.dds"), "wb") as f:
        f.write(DDS)
    with open(os.path.join(os.fsencode(root), b"broken\xff.ktx2"), "wb") as f:
        f.write(b"not a ktx2")
    return root


def test_non_utf8_names_are_read(tmp_path: Path) -> None:
    root = _non_utf8_tree(tmp_path)
    code, out, err = scan_json(root)
    assert (code, err) == (0, "")
    report = load(out)  # the in-process text: names carry surrogate escapes
    assert sorted(t["path"] for t in report["textures"]) == ["bad\udcff.png", "dir\udcfe/ok.dds"]
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("broken\udcff.ktx2", "TB041")]


def test_non_utf8_names_give_valid_utf8_json(tmp_path: Path) -> None:
    root = _non_utf8_tree(tmp_path)
    _, out, _ = scan_json(root)
    out.encode("utf-8")  # what reaches a strict UTF-8 stdout
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "texbudget", "scan", str(root), "--format", "json", "--no-cache"],
                          cwd=repo, capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})
    assert done.returncode == 0, done.stderr
    report = load(done.stdout.decode("utf-8"))
    assert sorted(t["path"] for t in report["textures"]) == ["bad\udcff.png", "dir\udcfe/ok.dds"]


def test_names_that_would_drive_a_terminal_are_shown_escaped(tmp_path: Path) -> None:
    """A name with an escape sequence (clear the screen, set the title), a line break or a
    bidirectional override reaches the text report, check's lines and explain escaped, one
    line per problem; JSON keeps the name exact."""
    evil = "evil\x1b]0;pwned\x07\x1b[2J\nsecond\u202egnp.png"
    _write(tmp_path, evil, PNG)
    (tmp_path / "texbudget.toml").write_text("[limits]\nmax_size = 1\n", encoding="utf-8")
    shown = "evil\\x1b]0;pwned\\x07\\x1b[2J\\x0asecond\\u202egnp.png"
    repo = Path(__file__).resolve().parents[2]

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "texbudget", *argv], cwd=repo, capture_output=True, text=True, timeout=120)

    check = run("check", str(tmp_path), "--no-cache")
    assert check.returncode == 1 and check.stdout.splitlines()[0].startswith(f"{shown}: ")
    assert len(check.stdout.splitlines()) == 2 and "\x1b" not in check.stdout and "\u202e" not in check.stdout
    scan = run("scan", str(tmp_path), "--no-cache")
    assert scan.returncode == 0 and shown in scan.stdout and "\x1b" not in scan.stdout
    explain = run("explain", str(tmp_path / evil), "--no-cache")
    assert explain.returncode == 0 and shown in explain.stdout and "\x1b" not in explain.stdout
    report = load(run("scan", str(tmp_path), "--no-cache", "--format", "json").stdout)
    assert [t["path"] for t in report["textures"]] == [evil]


def test_printable_escapes_what_a_terminal_acts_on() -> None:
    from texbudget.report.text import printable

    assert printable("tab\tstays, ümlaut ✓ stays") == "tab\tstays, ümlaut ✓ stays"
    assert printable("\x00\x1b\x7f\x85\u2066\u202a") == "\\x00\\x1b\\x7f\\x85\\u2066\\u202a"
    # the fast path returns printable text as it is: no character it escapes is printable
    from texbudget.report.text import _UNPRINTABLE

    assert not any(chr(c).isprintable() for c in _UNPRINTABLE)


def test_non_utf8_names_are_cached_pruned_and_located_in_sarif(tmp_path: Path) -> None:
    """The cache holds a name that is not UTF-8 (SQLite's text cannot: storing one crashed
    every cached scan once the file was older than the racy window), a glTF's dependency in
    such a folder too, and SARIF locates it by its bytes."""
    import io
    import json
    from contextlib import redirect_stdout

    from tests.readers.gltf_factories import GltfBuilder
    from texbudget import config as config_mod
    from texbudget.cli import main
    from texbudget.scan.scene import read_scene

    root = _non_utf8_tree(tmp_path)
    b = GltfBuilder()
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(b.add_image_uri("ok.dds"))}})
    b.write_gltf(Path(os.fsdecode(os.path.join(os.fsencode(root), b"dir\xfe", b"s.gltf"))))
    for folder, _, names in os.walk(os.fsencode(root)):
        for name in names:
            os.utime(os.path.join(folder, name), (1_700_000_000, 1_700_000_000))  # past the racy window
    config = config_mod.load(None)
    first = read_scene(root, config, use_cache=True, jobs=1)
    second = read_scene(root, config, use_cache=True, jobs=1)
    assert (first.cache.status, first.cache.stored) == ("on", 4)
    assert (second.cache.hits, second.cache.misses) == (4, 0)
    assert second.textures == first.textures and second.findings == first.findings
    assert sorted(t.path for t in second.textures) == ["bad\udcff.png", "dir\udcfe/ok.dds"]
    # the glTF's dependency in the folder that is not UTF-8 is checked: its image changed
    os.utime(os.path.join(os.fsencode(root), b"dir\xfe", b"ok.dds"), (1_700_000_100, 1_700_000_100))
    assert read_scene(root, config, use_cache=True, jobs=1).cache.misses == 2  # ok.dds and s.gltf
    os.remove(os.path.join(os.fsencode(root), b"bad\xff.png"))
    assert read_scene(root, config, use_cache=True, jobs=1).cache.pruned == 1

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["scan", str(root), "--format", "sarif"]) == 0
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out.getvalue())["runs"][0]["results"]]
    assert "broken%FF.ktx2" in uris
