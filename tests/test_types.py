"""The package type-checks: mypy (pinned in the ``test`` extra) with the settings in
pyproject.toml finds nothing. A type error is a failing test, like any other defect."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install '.[test]'")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
         str(REPO / "texbudget")],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
