"""The Markdown report (``--format markdown``) for wikis and pull requests (GitHub-flavoured
tables): the verdict matrix, category totals per scenario, the top assets by cost with their
format and why, the fixes for ``over`` and ``tight`` cells, and the findings by code.

The symbols carry the verdict (✓ fits, ! tight, ✗ over), as in the text report. Paths are in
code spans whose fence is longer than any run of backticks in them; free text shows ``|``,
``[``, ``]``, ``<`` and ``>`` as themselves, so a cell never breaks a table and a file's name
or a glTF's strings (which reach the findings' messages) never become a link, an image or
HTML in a wiki or a pull request.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from texbudget import findings as findings_mod
from texbudget.model import ScenarioResult
from texbudget.pipeline import Report
from texbudget.report.md import cell, code
from texbudget.report.text import (
    CATEGORIES,
    CATEGORY_LABEL,
    SYMBOL,
    findings_by_code,
    gib,
    scenario_label,
    shown_fixes,
)
from texbudget.units import human_bytes

TOP = 15


def table(head: Sequence[str], rows: Sequence[Sequence[object]], align: str) -> list[str]:
    """A GFM table; ``align`` has one letter per column: l(eft) or r(ight)."""
    rule = {"l": "---", "r": "--:"}
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def verdict_cell(total: int, usable: int, verdict: str) -> str:
    return f"{gib(total)} / {gib(usable)} GiB {SYMBOL[verdict]}"


def verdict_matrix(scenarios: Sequence[ScenarioResult]) -> list[str]:
    if not scenarios:
        return ["_No scenarios._"]
    cards = [c.name for c in scenarios[0].cards]
    rows = []
    for s in scenarios:
        by_name = {c.name: c for c in s.cards}
        rows.append([cell(scenario_label(s)), *(
            verdict_cell(s.total_bytes, by_name[n].usable_bytes, by_name[n].verdict) if n in by_name else "–"
            for n in cards)])
    out = table(["scenario", *(cell(n) for n in cards)], rows, "l" + "r" * len(cards))
    return [*out, "", "✓ fits · ! tight (fits, but inside the headroom) · ✗ over — cells are used / usable VRAM"]


def category_table(scenarios: Sequence[ScenarioResult]) -> list[str]:
    rows = [[cell(scenario_label(s)), *(human_bytes(s.bytes.get(c, 0)) for c in CATEGORIES), f"**{human_bytes(s.total_bytes)}**"]
            for s in scenarios]
    return table(["scenario", *(CATEGORY_LABEL[c] for c in CATEGORIES), "total"], rows, "l" + "r" * (len(CATEGORIES) + 1))


def top_assets(report: Report, n: int = TOP) -> list[str]:
    items = [(t.cost.allocated_bytes, t.facts.path, f"{t.facts.width}x{t.facts.height}", t.plan.gpu_format, t.plan.decided_by)
             for t in report.textures if not t.plan.ignored]
    items += [(m.buffer_bytes, m.facts.path, f"{m.facts.triangles:,} tris ×{m.instances}", "mesh", m.basis)
              for m in report.meshes]
    if not items:
        return ["_No assets._"]
    items.sort(key=lambda r: (-r[0], r[1]))
    total = sum(r[0] for r in items) or 1
    rows = [[i, code(path), human_bytes(size), f"{100 * size / total:.1f} %", dims, code(fmt) if fmt != "mesh" else "mesh", cell(why)]
            for i, (size, path, dims, fmt, why) in enumerate(items[:n], 1)]
    return table(["#", "asset", "VRAM", "share", "size", "format", "why"], rows, "rlrrlll")


def action_text(action: str, path: str) -> str:
    """A fix's action with its path (a file or a folder glob) as a code span, written once."""
    if not path:
        return cell(action)
    if path in action:
        return cell(action).replace(cell(path), code(path))
    return f"{cell(action)} {code(path)}"


def fixes_section(scenarios: Sequence[ScenarioResult]) -> list[str]:
    lines: list[str] = []
    for s in scenarios:
        for card in s.cards:
            if card.verdict == "fits":
                continue
            fixes = [f for f in s.fixes if f.card == card.name]
            lines.append(f"- **{cell(scenario_label(s))} on {cell(card.name)}**: {card.verdict} {SYMBOL[card.verdict]}, "
                         f"{human_bytes(card.free_bytes, signed=True)} free")
            if not fixes:
                lines.append("  - no texture or scene change found; drop the card, resolution or RT setting")
                continue
            shown, rest = shown_fixes(fixes, attrgetter("saves_bytes"))
            for f in shown:
                est = " (estimate)" if f.estimate else ""
                lines.append(f"  - {action_text(f.action, f.path)}: saves {human_bytes(f.saves_bytes)}{est}")
            if rest:
                lines.append(f"  - {cell(rest)}")
            saved = sum(f.saves_bytes for f in fixes)
            enough = card.free_bytes + saved >= card.headroom_bytes
            lines.append(f"  - together: {human_bytes(saved)} — {'enough to fit' if enough else 'not enough on its own'}")
    return lines


def findings_section(report: Report) -> list[str]:
    if not report.findings:
        return ["No findings."]
    rows = []
    for c, severity, n, example in findings_by_code(report.findings):
        entry = findings_mod.CODES.get(c)
        rows.append([code(c), severity, n, cell(entry.meaning if entry else ""), f"{code(example.path)}: {cell(example.message)}"])
    return table(["code", "severity", "count", "meaning", "first"], rows, "llrll")


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def levels_section(report: Report) -> list[str]:
    """The levels' table and each judged level's matrix (texbudget/report/levels.py); the
    level's name for a report of one level; nothing for a report without levels."""
    levels = report.levels
    if not levels:
        return []
    if levels[0].source == "path":
        from texbudget.report.levels import PLACED_HEAD, loads, placed

        level = levels[0]
        out = ["", f"Level {cell(level.name)}: {code(level.scene)} and what it loads: {loads(level)}."]
        body, rest = placed(level)
        if body:
            out += ["", "#### Meshes the level places", "", *table(list(PLACED_HEAD), [[r[0], code(r[1]), r[2]] for r in body], "rlr")]
            if rest:
                out += ["", cell(rest)]
        return out
    from texbudget.report.levels import HEAD, rows, title

    body, rest = rows(levels)
    out = ["", "### Levels", "", title(levels, markdown=True) + ".", "",
           *table(list(HEAD), [[cell(r[0]), code(r[1]), *r[2:]] for r in body], "llrrrrrl")]
    if rest:
        out += ["", cell(rest)]
    if levels[0].source != "auto":
        for lv in levels:
            out += ["", f"#### Level {cell(lv.name)} ({code(lv.scene)})", "", *verdict_matrix(lv.report.scenarios)]
            fixes = fixes_section(lv.report.scenarios)  # as the JSON's level scenarios hold them
            if fixes:
                out += ["", f"What would make level {cell(lv.name)} fit:", "", *fixes]
    return out


def render(report: Report, top: int = TOP) -> str:
    s = report.settings
    worst = next((v for v in ("over", "tight") if any(c.verdict == v for x in report.scenarios for c in x.cards)), "fits")
    headline = {"fits": "fits every card ✓", "tight": "tight on some cards !", "over": "over on some cards ✗"}[worst]
    out = [
        f"## texbudget: scene {headline}",
        "",
        f"{_count(len(report.textures), 'texture')}, {_count(len(report.meshes), 'mesh', 'meshes')}, "
        f"{_count(len(report.findings), 'finding')} — "
        f"platform {code(s.policy.platform)}, quality {code(s.policy.quality)}, config {code(s.config_label)}",
        "",
        "### Verdict",
        "",
        *verdict_matrix(report.scenarios),
        *levels_section(report),
        "",
        "### By category",
        "",
        *category_table(report.scenarios),
        "",
        "Ray tracing sizes are estimates from published driver measurements; textures count allocated bytes.",
        "",
        f"### Top {top} assets by VRAM",
        "",
        *top_assets(report, top),
    ]
    fixes = fixes_section(report.scenarios)
    if fixes:
        out += ["", "### What would make it fit", "", *fixes]
    out += ["", "### Findings", "", *findings_section(report)]
    return "\n".join(out) + "\n"
