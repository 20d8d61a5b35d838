"""The text report for people: verdict matrix, category totals, top assets, fixes, findings.

Symbols always carry the meaning (✓ fits, ! tight, ✗ over); colour only adds to them, and
only when the caller says stdout is a terminal.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TypeVar

from texbudget.model import CardVerdict, Finding, ScenarioResult
from texbudget.pipeline import LevelReport, Report
from texbudget.units import GIB, human_bytes

T = TypeVar("T")

SYMBOL = {"fits": "✓", "tight": "!", "over": "✗"}
_COLOUR = {"fits": "\033[32m", "tight": "\033[33m", "over": "\033[31m"}
_RESET = "\033[0m"
CATEGORIES = ("textures", "meshes", "acceleration_structures", "render_targets")
CATEGORY_LABEL = {
    "textures": "textures",
    "meshes": "meshes",
    "acceleration_structures": "ray tracing (est.)",
    "render_targets": "render targets",
}


#: Characters a terminal acts on or that reorder what it shows: C0 controls but the tab
#: (ESC starts a sequence that can clear the screen, set the title or write the clipboard;
#: a line break would split a one-line problem), DEL, C1 controls, and the bidirectional
#: overrides and isolates ("Trojan Source").
_UNPRINTABLE = {c: f"\\x{c:02x}" for c in (*range(0x09), *range(0x0A, 0x20), 0x7F, *range(0x80, 0xA0))}
_UNPRINTABLE.update({c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def printable(text: str) -> str:
    """Text for a terminal or a log, shown as written: each character in ``_UNPRINTABLE``
    becomes its escape (``\\x1b``), as git quotes such a file name. A file's name or a
    glTF's strings reach the text report and ``check``'s lines. Text ``isprintable`` holds
    none of them (each is a control or format character), so it is returned as it is
    without the character-by-character table: a TUI table builds tens of thousands of
    cells through here (70,000 short cells: 39 ms translated, 5 ms checked)."""
    return text if text.isprintable() else text.translate(_UNPRINTABLE)


def gib(n: int) -> str:
    return f"{n / GIB:.1f}"


def scenario_label(s: ScenarioResult) -> str:
    scale = "" if s.render_scale == 1.0 else f" @{s.render_scale:g}"
    rt = "RT off" if s.rt == "off" else f"RT {s.rt}"
    return f"{s.resolution}{scale} {s.quality} {rt}"


def _paint(text: str, verdict: str, colour: bool) -> str:
    return f"{_COLOUR[verdict]}{text}{_RESET}" if colour else text


def verdict_matrix(scenarios: Sequence[ScenarioResult], colour: bool = False) -> list[str]:
    """Rows are scenarios, columns cards; a cell is ``used/usable GiB symbol``."""
    if not scenarios:
        return ["(no scenarios)"]
    cards = [c.name for c in scenarios[0].cards]
    label_w = max(len(scenario_label(s)) for s in scenarios)
    cells = [[f"{gib(s.total_bytes)}/{gib(c.usable_bytes)} {SYMBOL[c.verdict]}" for c in s.cards] for s in scenarios]
    col_w = [max(len(cards[i]), *(len(row[i]) for row in cells)) for i in range(len(cards))]
    lines = [" " * label_w + "  " + "  ".join(name.rjust(w) for name, w in zip(cards, col_w, strict=True)) + "   (GiB used/usable)"]
    for s, row in zip(scenarios, cells, strict=True):
        parts = [_paint(cell.rjust(w), c.verdict, colour) for cell, w, c in zip(row, col_w, s.cards, strict=True)]
        lines.append(scenario_label(s).ljust(label_w) + "  " + "  ".join(parts))
    return lines


def category_table(scenarios: Sequence[ScenarioResult]) -> list[str]:
    head = f"{'scenario':<34}" + "".join(f"{CATEGORY_LABEL[c]:>20}" for c in CATEGORIES) + f"{'total':>12}"
    lines = [head]
    for s in scenarios:
        lines.append(
            f"{scenario_label(s):<34}"
            + "".join(f"{human_bytes(s.bytes.get(c, 0)):>20}" for c in CATEGORIES)
            + f"{human_bytes(s.total_bytes):>12}"
        )
    return lines


def top_assets(report: Report, n: int = 10) -> list[str]:
    """The ``n`` largest textures and meshes (ties: by path), with each one's share of them all.
    Only those ``n`` are formatted: a scene of 100,000 assets has 10 lines to show."""
    textures = [t for t in report.textures if not t.plan.ignored]
    total = sum(t.cost.allocated_bytes for t in textures) + sum(m.buffer_bytes for m in report.meshes) or 1
    # (-size, path, k): the largest first, then by path, then textures before meshes in their
    # order; made one at a time for the heap, not listed (at 100k assets a list of them all
    # took 15 MiB at the report's peak)
    keyed = itertools.chain(((-t.cost.allocated_bytes, t.facts.path, k) for k, t in enumerate(textures)),
                            ((-m.buffer_bytes, m.facts.path, -1 - k) for k, m in enumerate(report.meshes)))
    lines = [f"{'VRAM':>11} {'share':>6}  {'asset':<44} {'size':<22} {'format':<18} why"]
    for neg_size, path, k in heapq.nsmallest(n, keyed):
        if k >= 0:
            t = textures[k]
            dims, fmt, why = f"{t.facts.width}x{t.facts.height}", t.plan.gpu_format, t.plan.decided_by
        else:
            m = report.meshes[-1 - k]
            dims, fmt, why = f"{m.facts.triangles:,} tris x{m.instances}", "mesh", m.basis
        lines.append(f"{human_bytes(-neg_size):>11} {100 * -neg_size / total:>5.1f}%  {path:<44} {dims:<22} {fmt:<18} {why}")
    return lines


#: Fixes listed per card in a report for people; the rest are summed on one line (the JSON
#: report lists every one). A scene far over budget gets hundreds of one-texture steps,
#: which no one reads and which would push a pull-request comment over its size limit.
MAX_FIXES_SHOWN = 15


def shown_fixes(fixes: Sequence[T], saves: Callable[[T], int]) -> tuple[Sequence[T], str | None]:
    """The first ``MAX_FIXES_SHOWN`` fixes (largest first, as the search found them), and
    the line that sums the rest (None when none is left out)."""
    if len(fixes) <= MAX_FIXES_SHOWN:
        return fixes, None
    rest = fixes[MAX_FIXES_SHOWN:]
    saved = human_bytes(sum(map(saves, rest)))
    return fixes[:MAX_FIXES_SHOWN], f"… and {len(rest)} smaller changes: save {saved} more (--format json lists every one)"


def fixes_section(scenarios: Sequence[ScenarioResult]) -> list[str]:
    """The fixes of every over or tight cell; cells of one card with the same fixes are
    listed together."""
    groups: dict[tuple, list[tuple[ScenarioResult, CardVerdict]]] = {}
    for s in scenarios:
        for card in s.cards:
            fixes = tuple((f.action, f.path, f.saves_bytes) for f in s.fixes if f.card == card.name)
            if card.verdict != "fits" and fixes:
                groups.setdefault((card.name, fixes), []).append((s, card))
    lines: list[str] = []
    for (card_name, fixes), cells in groups.items():
        verdicts = " / ".join(dict.fromkeys(c.verdict for _, c in cells))
        frees = sorted(c.free_bytes for _, c in cells)
        free = human_bytes(frees[0], signed=True) + ("" if frees[0] == frees[-1] else f" to {human_bytes(frees[-1], signed=True)}")
        labels = ", ".join(scenario_label(s) for s, _ in cells)
        lines.append(f"{card_name}, {labels} ({verdicts}, {free} free):")
        shown, rest = shown_fixes(fixes, itemgetter(2))
        for action, path, saves in shown:
            where = f" {path}" if path and path not in action else ""
            lines.append(f"  - {action}{where}: saves {human_bytes(saves)}")
        if rest:
            lines.append(f"  - {rest}")
        saved = sum(x[2] for x in fixes)
        fits = all(c.free_bytes + saved >= c.headroom_bytes for _, c in cells)
        lines.append(f"    together: {human_bytes(saved)}{' — enough to fit' if fits else ' — not enough on its own'}")
    return lines


def findings_by_code(findings: Sequence[Finding]) -> list[tuple[str, str, int, Finding]]:
    """(code, severity, count, first finding) per code, sorted; shared by text and Markdown."""
    by_code = Counter((f.code, f.severity) for f in findings)  # (.value per finding costs more than the count)
    first: dict[str, Finding] = {}
    for f in findings:
        first.setdefault(f.code, f)
    counted = sorted(((code, severity.value), n) for (code, severity), n in by_code.items())
    return [(code, severity, n, first[code]) for (code, severity), n in counted]


def findings_summary(report: Report) -> list[str]:
    if not report.findings:
        return ["no findings"]
    return [f"{code} {severity:<7} x{n:<4} {ex.path}: {ex.message}"
            for code, severity, n, ex in findings_by_code(report.findings)]


def levels_lines(report: Report, colour: bool = False) -> list[str]:
    """The levels' table under the verdict matrix, then each judged level's matrix
    (texbudget/report/levels.py); nothing for a report without levels, or of one level."""
    levels = report.levels
    if not levels:
        return []
    if levels[0].source == "path":  # the report is the level's: its head says so; its meshes
        return placed_lines(levels[0])
    from texbudget.report.levels import HEAD, rows, title

    table, rest = rows(levels)
    out = ["", printable(title(levels) + ":"), *_columns(HEAD, table, left=(0, 1))]
    if rest:
        out.append(rest)
    if levels[0].source != "auto":
        for lv in levels:
            out += ["", printable(f"Level {lv.name} ({lv.scene}), verdict:"), *verdict_matrix(lv.report.scenarios, colour)]
            fixes = fixes_section(lv.report.scenarios)  # as the JSON's level scenarios hold them
            if fixes:
                out += ["", printable(f"What would make level {lv.name} fit:"), *map(printable, fixes)]
    return out


def placed_lines(level: LevelReport) -> list[str]:
    """``scan LEVEL``: the meshes the level places, by instances (report/levels.py ``placed``)."""
    from texbudget.report.levels import PLACED_HEAD, placed

    table, rest = placed(level)
    if not table:
        return []
    out = ["", "Meshes the level places, by instances:", *_columns(PLACED_HEAD, table, left=(1,))]
    return [*out, rest] if rest else out


def _columns(head: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int]) -> list[str]:
    """``head`` and ``rows`` as aligned columns two spaces apart, the columns of ``left``
    flush left and the rest right (the rows ``printable``: they hold names from files)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if i in left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))).rstrip()

    return [line(head), *(printable(line(r)) for r in rows)]


def render(report: Report, colour: bool = False, top: int = 10) -> str:
    """The report as text; every line is ``printable`` but the verdict matrix's, whose colour
    codes are its own (it holds card names and scenario labels, no file's text)."""
    s = report.settings
    head = [
        f"texbudget: {len(report.textures)} textures, {len(report.meshes)} meshes, "
        f"{len(report.findings)} findings — platform {s.policy.platform}, config {s.config_label}",
        "",
        "Verdict (✓ fits, ! tight, ✗ over):",
    ]
    rest = [
        "",
        "By category:",
        *category_table(report.scenarios),
        "",
        f"Top {top} assets by VRAM (allocated, first scenario's quality):",
        *top_assets(report, top),
    ]
    fixes = fixes_section(report.scenarios)
    if fixes:
        rest += ["", "What would make it fit:", *fixes]
    rest += ["", "Findings:", *findings_summary(report)]
    levels = levels_lines(report, colour)
    if report.levels and report.levels[0].source == "path":
        from texbudget.report.levels import summary

        head.insert(1, summary(report.levels[0]))
    return "\n".join([*map(printable, head), *verdict_matrix(report.scenarios, colour), *levels, *map(printable, rest)])
