"""What every output says of a report's levels (``Report.levels``, docs/levels.md), in one
place: the table's title, head and rows, the worst verdict and largest total of a level, the
CSV's appended columns. Each renderer lays them out (``json.levels_entries``,
``text.levels_lines``, ``markdown.levels_section``, ``csv.level_rows``); this module imports
none of them.

- JSON: the additive ``levels`` list of DESIGN.md §5, one entry a level: ``name``, ``scene``,
  ``source``, counts, bytes and its own ``scenarios`` (the shape of the top-level scenarios,
  judged for that level alone).
- Text and Markdown: a table of the levels under the verdict matrix; for levels named by
  ``[[level]]`` each level's own verdict matrix after it. For ``scan LEVEL`` (the report is the
  level's): what it loads in its head (``summary``) and the meshes it places (``placed``).
- CSV: rows of kind ``level``, one per level, scenario and card, in appended columns
  (``LEVEL_COLUMNS``), only when the report has levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from texbudget.model import Budget
from texbudget.report.md import code
from texbudget.units import human_bytes

if TYPE_CHECKING:
    from texbudget.pipeline import LevelReport

#: Rows the text and Markdown tables show of levels found automatically (JSON lists all).
MAX_AUTO_ROWS = 20
#: What the CSV appends to its columns when the report has levels.
LEVEL_COLUMNS = ("level", "scenario", "card", "total_bytes", "usable_bytes", "free_bytes", "verdict")
_SYMBOL = {"fits": "✓", "tight": "!", "over": "✗"}


def worst(level: LevelReport) -> str:
    """The worst verdict of the level on any card in any scenario (``Budget.worst``)."""
    return Budget(scenarios=level.report.scenarios).worst


def largest_total(level: LevelReport) -> int:
    return max((s.total_bytes for s in level.report.scenarios), default=0)


def title(levels: Sequence[LevelReport], markdown: bool = False) -> str:
    level = code("[[level]]") if markdown else "[[level]]"
    if levels[0].source == "auto":
        return f"Levels: the project's main scene and the scenes nothing else instances (set {level} to judge them)"
    return f"Levels ({level}), each judged alone"


def rows(levels: Sequence[LevelReport]) -> tuple[list[tuple[str, ...]], str]:
    """The table's rows (name, scene, textures, meshes, texture VRAM, mesh VRAM, largest
    total, worst) and the line for the rows left out ("" when none is)."""
    shown = levels[:MAX_AUTO_ROWS] if levels[0].source == "auto" else levels
    rows: list[tuple[str, ...]] = [(lv.name, lv.scene, f"{len(lv.report.textures):,}", f"{len(lv.report.meshes):,}", human_bytes(lv.texture_bytes),
             human_bytes(lv.mesh_bytes), human_bytes(largest_total(lv)), f"{_SYMBOL[worst(lv)]} {worst(lv)}") for lv in shown]
    rest = len(levels) - len(shown)
    return rows, (f"… and {rest} more levels (--format json lists every one)" if rest else "")


HEAD = ("level", "scene", "textures", "meshes", "texture VRAM", "mesh VRAM", "largest total", "worst")


#: Meshes ``placed`` lists of a level named on the command line (JSON lists all).
MAX_PLACED_ROWS = 10
PLACED_HEAD = ("instances", "mesh", "buffer")


def summary(level: LevelReport) -> str:
    """``scan LEVEL``'s head: the level, its scene, and what it loads (``loads``)."""
    return f"level {level.name}: {level.scene} and what it loads: {loads(level)}"


def loads(level: LevelReport) -> str:
    """What a level loads: textures with their content and allocated bytes at the first
    quality (ignored ones not counted), meshes with their instances."""
    rows = [t for t in level.report.textures if not t.plan.ignored]
    content = sum(t.cost.gpu_bytes for t in rows)
    instances = sum(m.instances for m in level.report.meshes)
    return (f"{len(level.report.textures):,} textures ({human_bytes(content)} content, "
            f"{human_bytes(level.texture_bytes)} allocated), {len(level.report.meshes):,} meshes ({instances:,} instances)")


def placed(level: LevelReport) -> tuple[list[tuple[str, ...]], str]:
    """The meshes the level places, most instances first (then by path): (instances, mesh,
    buffer bytes) rows, and the line for the rows left out ("" when none is)."""
    meshes = sorted(level.report.meshes, key=lambda m: (-m.instances, m.facts.path))
    rows: list[tuple[str, ...]] = [(f"{m.instances:,}", m.facts.path, human_bytes(m.buffer_bytes))
                                   for m in meshes[:MAX_PLACED_ROWS]]
    rest = len(meshes) - len(rows)
    return rows, (f"… and {rest} more mesh{'es' if rest != 1 else ''} (--format json lists every one)" if rest else "")
