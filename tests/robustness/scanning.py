"""Running ``texbudget scan --format json`` in process and reading what it says per file."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from texbudget.cli import main


def scan_json(root: Path, *extra: str, command: str = "scan") -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``texbudget <command> ROOT --format json --no-cache``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([command, str(root), "--format", "json", "--no-cache", *extra])
    return code, out.getvalue(), err.getvalue()


def per_file(report: dict) -> dict[str, list[tuple[str, str]]]:
    """File (the part before ``#``) -> what the report says of it: ("texture", "") and
    ("mesh", "") for facts, (code, severity) for each finding."""
    out: dict[str, list[tuple[str, str]]] = {}
    for t in report["textures"]:
        out.setdefault(t["path"].split("#", 1)[0], []).append(("texture", ""))
    for m in report["meshes"]:
        out.setdefault(m["path"].split("#", 1)[0], []).append(("mesh", ""))
    for f in report["findings"]:
        out.setdefault(f["path"].split("#", 1)[0], []).append((f["code"], f["severity"]))
    return out


def unmet(manifest: dict[str, str], report: dict) -> list[tuple[str, str, list]]:
    """Files whose expectation ("error", "finding", "listed") the report does not meet."""
    seen = per_file(report)
    bad = []
    for rel, expect in manifest.items():
        got = seen.get(rel, [])
        ok = {
            "listed": bool(got),
            "finding": any(sev for _, sev in got),
            "error": any(sev == "error" for _, sev in got),
        }[expect]
        if not ok:
            bad.append((rel, expect, got))
    return bad


def load(text: str) -> dict:
    return json.loads(text)
