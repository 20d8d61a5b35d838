"""The pre-commit hooks: the manifest's `files:` regexes equal the reader registry's, and the
real `pre-commit` package refuses a commit with an oversize texture and accepts a good one.

The second test makes a temporary git repository whose `.pre-commit-config.yaml` points at
this checkout (`pre-commit try-repo`, which also takes uncommitted changes), so pre-commit
builds its own environment for texbudget with pip (it needs PyPI, as CI has).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from texbudget.readers import files_regex, supported_suffixes

REPO = Path(__file__).resolve().parents[2]


def _manifest() -> list[dict]:
    yaml = pytest.importorskip("yaml")  # pre-commit depends on PyYAML; it is in the test extra
    return yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_manifest_regexes_come_from_the_registry():
    hooks = {h["id"]: h for h in _manifest()}
    assert hooks["texbudget-files"]["files"] == files_regex()
    assert hooks["texbudget-total"]["files"] == files_regex((r"(^|/)texbudget\.toml",))
    assert hooks["texbudget-total"]["pass_filenames"] is False
    assert hooks["texbudget-total"]["require_serial"] is True
    assert all(h["language"] == "python" for h in hooks.values())


@pytest.mark.parametrize("name", ["a/rock_albedo.PNG", "x.ktx2", "lvl/level.glb", "t.dds.import", "t.png.meta"])
def test_files_regex_matches_assets_and_sidecars(name):
    assert re.search(files_regex(), name)


@pytest.mark.parametrize("name", ["README.md", "x.png.bak", "script.py", "pngs/readme.txt"])
def test_files_regex_skips_other_files(name):
    assert not re.search(files_regex(), name)


def test_every_registered_suffix_is_in_the_regex():
    for suffix in supported_suffixes():
        assert re.search(files_regex(), f"dir/file{suffix}")


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_precommit_refuses_an_oversize_texture(tmp_path):
    pytest.importorskip("pre_commit")
    from PIL import Image

    work = tmp_path / "game"
    work.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    _git(work, "init", "-q")
    (work / "texbudget.toml").write_text('[limits]\nmax_bytes = "1 MiB"\n', encoding="utf-8")
    Image.new("RGB", (256, 256), (120, 90, 60)).save(work / "small_albedo.png")  # BC1 with mips: 43,704 B
    Image.new("RGBA", (2048, 2048), (120, 90, 60, 128)).save(work / "big_albedo.png")  # BC3: 5,592,432 B, 5.38 MiB allocated
    _git(work, "add", "texbudget.toml", "small_albedo.png")
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "texbudget-files", "--files"]

    good = subprocess.run([*cmd, "small_albedo.png"], cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    assert good.returncode == 0, good.stdout + good.stderr

    bad = subprocess.run([*cmd, "big_albedo.png"], cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "big_albedo.png: 2048x2048 BC3_SRGB, 5.38 MiB > max_bytes 1.00 MiB [TB020]" in bad.stdout
    assert "small_albedo.png" not in bad.stdout.replace("big_albedo.png", "")
