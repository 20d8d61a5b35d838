"""The levels of a report (``Report.levels``, docs/levels.md) in every output: one place, so
the JSON, text, Markdown and CSV say the same thing.

- JSON: ``levels_json`` — the additive ``levels`` list of DESIGN.md §5, one entry a level:
  ``name``, ``scene``, ``source``, counts, bytes and its own ``scenarios`` (the shape of the
  top-level scenarios, judged for that level alone).
- Text and Markdown: a table of the levels under the verdict matrix; for levels named by
  ``[[level]]`` (or on the command line) each level's own verdict matrix after it.
- CSV: rows of kind ``level``, one per level, scenario and card, in appended columns
  (``LEVEL_COLUMNS``), only when the report has levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from texbudget.report.md import cell, code
from texbudget.units import human_bytes

if TYPE_CHECKING:
    from texbudget.levels.reports import LevelReport
    from texbudget.pipeline import Report

#: Rows the text and Markdown tables show of levels found automatically (JSON lists all).
MAX_AUTO_ROWS = 20
#: What the CSV appends to its columns when the report has levels.
LEVEL_COLUMNS = ("level", "scenario", "card", "total_bytes", "usable_bytes", "free_bytes", "verdict")
_SYMBOL = {"fits": "✓", "tight": "!", "over": "✗"}
_RANK = {"fits": 0, "tight": 1, "over": 2}


def worst(level: LevelReport) -> str:
    """The worst verdict of the level on any card in any scenario."""
    verdicts = [c.verdict for s in level.report.scenarios for c in s.cards]
    return max(verdicts, key=lambda v: _RANK.get(v, 0), default="fits")


def largest_total(level: LevelReport) -> int:
    return max((s.total_bytes for s in level.report.scenarios), default=0)


def levels_json(report: Report) -> list[dict[str, Any]]:
    """The ``levels`` entries of the JSON report."""
    from texbudget.report.json import scenario_entry

    return [{
        "name": lv.name,
        "scene": lv.scene,
        "source": lv.source,
        "textures": len(lv.report.textures),
        "meshes": len(lv.report.meshes),
        "texture_bytes": lv.texture_bytes,
        "mesh_bytes": lv.mesh_bytes,
        "instances": sum(m.cost.instances for m in lv.report.meshes),
        "scenarios": [scenario_entry(s) for s in lv.report.scenarios],
    } for lv in report.levels]


def _title(levels: Sequence[LevelReport], markdown: bool = False) -> str:
    level = code("[[level]]") if markdown else "[[level]]"
    if levels[0].source == "auto":
        return f"Levels: the project's main scene and the scenes nothing else instances (set {level} to judge them)"
    return f"Levels ({level}), each judged alone"


def _rows(levels: Sequence[LevelReport]) -> tuple[list[tuple[str, ...]], str]:
    """The table's rows (name, scene, textures, meshes, texture VRAM, mesh VRAM, largest
    total, worst) and the line for the rows left out ("" when none is)."""
    shown = levels[:MAX_AUTO_ROWS] if levels[0].source == "auto" else levels
    rows: list[tuple[str, ...]] = [(lv.name, lv.scene, f"{len(lv.report.textures):,}", f"{len(lv.report.meshes):,}", human_bytes(lv.texture_bytes),
             human_bytes(lv.mesh_bytes), human_bytes(largest_total(lv)), f"{_SYMBOL[worst(lv)]} {worst(lv)}") for lv in shown]
    rest = len(levels) - len(shown)
    return rows, (f"… and {rest} more levels (--format json lists every one)" if rest else "")


_HEAD = ("level", "scene", "textures", "meshes", "texture VRAM", "mesh VRAM", "largest total", "worst")


def text_lines(report: Report, colour: bool = False) -> list[str]:
    """The text report's levels: the table, then each judged level's matrix."""
    from texbudget.report.text import printable, verdict_matrix

    levels = report.levels
    if not levels or levels[0].source == "path":  # the report is the level's: its head says so
        return []
    rows, rest = _rows(levels)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(_HEAD)]
    left = (0, 1)

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if i in left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))).rstrip()

    out = ["", printable(_title(levels) + ":"), line(_HEAD), *(printable(line(r)) for r in rows)]
    if rest:
        out.append(rest)
    if levels[0].source != "auto":
        for lv in levels:
            out += ["", printable(f"Level {lv.name} ({lv.scene}), verdict:"), *verdict_matrix(lv.report.scenarios, colour)]
    return out


def markdown_lines(report: Report) -> list[str]:
    """The Markdown report's levels: the table, then each judged level's matrix."""
    from texbudget.report.markdown import table, verdict_matrix

    levels = report.levels
    if not levels:
        return []
    if levels[0].source == "path":
        return ["", f"Level {cell(levels[0].name)}: {code(levels[0].scene)} and what it loads."]
    rows, rest = _rows(levels)
    body = [[cell(r[0]), code(r[1]), *r[2:]] for r in rows]
    out = ["", "### Levels", "", _title(levels, markdown=True) + ".", "", *table(list(_HEAD), body, "llrrrrrl")]
    if rest:
        out += ["", cell(rest)]
    if levels[0].source != "auto":
        for lv in levels:
            out += ["", f"#### Level {cell(lv.name)} ({code(lv.scene)})", "", *verdict_matrix(lv.report.scenarios)]
    return out


def csv_rows(report: Report) -> list[dict[str, object]]:
    """One row per level, scenario and card (kind ``level``, ``path`` the scene), the level's
    totals in ``allocated_bytes`` (textures) and ``buffer_bytes`` (meshes)."""
    from texbudget.report.csv import safe_text
    from texbudget.report.text import scenario_label

    out: list[dict[str, object]] = []
    for lv in report.levels:
        for s in lv.report.scenarios:
            for c in s.cards:
                out.append({
                    "kind": "level", "path": safe_text(lv.scene), "allocated_bytes": lv.texture_bytes,
                    "buffer_bytes": lv.mesh_bytes, "level": safe_text(lv.name), "scenario": scenario_label(s),
                    "card": c.name, "total_bytes": s.total_bytes, "usable_bytes": c.usable_bytes,
                    "free_bytes": c.free_bytes, "verdict": c.verdict,
                })
    return out
