"""The SARIF 2.1.0 report (``--format sarif``) for code-scanning UIs (GitHub code scanning,
the VS Code SARIF viewer, Azure DevOps).

One run; ``tool.driver.rules`` holds one rule per finding code that occurs (its
``shortDescription`` is the code's meaning and ``help`` its hint, from
``texbudget/findings.py``); each finding is one result with ``ruleId``, ``ruleIndex``,
``level`` (error / warning / note) and ``message``. A result's location is the asset's file:
its POSIX path relative to the scan root, with ``uriBaseId`` ``%SRCROOT%`` (run texbudget
from the repository root, or keep ``texbudget.toml`` there, so these paths are the
repository's). An asset inside a file (``level.glb#mesh/3``) is located at the file, and its
fragment starts the message ("mesh/3: …"). A finding about the whole scene (path ``""`` or
``"."``: budget verdicts) is located at the scan's ``texbudget.toml``, where the budget is
set; without a config file it has no location (GitHub code scanning rejects such results,
so keep a ``texbudget.toml`` when uploading budget verdicts).

``extra`` adds findings that are not in the report (``check``'s rule violations and budget
verdicts).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from texbudget import __version__
from texbudget import findings as findings_mod
from texbudget.model import Finding, Severity, file_of
from texbudget.pipeline import Report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/texbudget/texbudget"
URI_BASE_ID = "%SRCROOT%"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    """A relative URI reference for a POSIX path: spaces, ``%``, ``#``, ``?`` and other
    characters a URI cannot hold are percent-encoded (RFC 3986), from the name's bytes on
    disk (a name that is not UTF-8 holds surrogate escapes, which UTF-8 cannot encode)."""
    import os
    from urllib.parse import quote

    return quote(os.fsencode(path), safe="/-._~!$&'()*+,;=:@")


def rule(code: str, severity: Severity) -> dict[str, Any]:
    entry = findings_mod.CODES.get(code)
    meaning = entry.meaning if entry else code
    out: dict[str, Any] = {
        "id": code,
        "shortDescription": {"text": meaning},
        "defaultConfiguration": {"level": LEVELS[entry.severity if entry else severity]},
    }
    if entry and entry.hint:
        out["help"] = {"text": entry.hint}
    return out


def _location(uri: str) -> list[dict[str, Any]]:
    return [{"physicalLocation": {"artifactLocation": {"uri": _uri(uri), "uriBaseId": URI_BASE_ID}}}]


def result(f: Finding, index: int, scene_file: str | None = None) -> dict[str, Any]:
    """One result; ``scene_file`` locates scene-wide findings (path "" or ".")."""
    base = file_of(f.path)
    fragment = f.path[len(base) + 1:]  # "mesh/3" of a part, else ""
    message = f"{fragment}: {f.message}" if fragment else f.message
    out: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index,
        "level": LEVELS[f.severity],
        "message": {"text": message},
    }
    if base and base != ".":
        out["locations"] = _location(base)
    elif scene_file:
        out["locations"] = _location(scene_file)
    entry = findings_mod.CODES.get(f.code)
    if f.hint and (entry is None or f.hint != entry.hint):
        out["properties"] = {"hint": f.hint}
    return out


def sarif_dict(found: Sequence[Finding], scene_file: str | None = None) -> dict[str, Any]:
    codes = sorted({f.code for f in found})
    first_severity: dict[str, Severity] = {}
    for f in found:
        first_severity.setdefault(f.code, f.severity)
    index = {c: i for i, c in enumerate(codes)}
    return {
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "texbudget",
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule(c, first_severity[c]) for c in codes],
            }},
            "columnKind": "unicodeCodePoints",
            "results": [result(f, index[f.code], scene_file) for f in found],
        }],
    }


def scene_file(report: Report) -> str | None:
    """The config file, relative to the scan root, when it lies there (the usual case: the
    root is the config file's folder)."""
    label = report.settings.config_label
    if label == "defaults" or not (Path(report.root) / label).is_file():
        return None
    return label


def render(report: Report, extra: Sequence[Finding] = ()) -> str:
    return json.dumps(sarif_dict((*report.findings, *extra), scene_file(report)), indent=2, ensure_ascii=False)
