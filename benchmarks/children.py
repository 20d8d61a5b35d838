"""Child processes for the benchmarks: each command runs in a fresh interpreter, timed and
with its peak resident set, the same way for ``run.py`` and ``startup.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


#: Where child interpreters keep bytecode (set by ``main``): an installed texbudget has its
#: .pyc files, so the benchmark must not compile every module on every run, even where
#: PYTHONDONTWRITEBYTECODE is set; the prefix keeps them out of the source tree.
PYCACHE: Path | None = None


def child_env() -> dict[str, str]:
    """The environment of every child interpreter: this checkout's texbudget first, colour
    as a pipe gets it, and the shared bytecode (``PYCACHE``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env.pop("NO_COLOR", None)
    if PYCACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def run_child(argv: list[str], cwd: Path | None = None) -> dict:
    """Run ``argv`` to the end: wall seconds, peak RSS (of the child and the children it
    waited for, e.g. its process pool) in bytes, exit code, bytes written to stdout."""
    env = child_env()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0, os.SEEK_END)
        err.seek(0)
        return {
            "seconds": seconds,
            "rss_bytes": usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
            "code": proc.returncode,
            "stdout_bytes": out.tell(),
            "stderr": err.read().decode(errors="replace")[-2000:],
        }


def texbudget(*args: str) -> list[str]:
    return [sys.executable, "-m", "texbudget", *args]


def best(runs: list[dict]) -> dict:
    """The fastest run, with the largest RSS of all runs."""
    fastest = min(runs, key=lambda r: r["seconds"])
    return {**fastest, "rss_bytes": max(r["rss_bytes"] for r in runs)}


def checked(result: dict, what: str) -> dict:
    if result["code"] not in (0, 1):
        raise SystemExit(f"benchmark: {what} failed with exit code {result['code']}:\n{result['stderr']}")
    return result
