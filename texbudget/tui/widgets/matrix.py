"""The verdict matrix: scenarios × cards, each cell used / usable, margin and verdict.

Rows are the report's scenarios (keyed ``s0``, ``s1``, … in report order), columns the
cards (keyed by card id). A card a scenario does not judge (another vendor's RT) shows "—".
The cell text is chosen to fit the width: ``✓ fits  6.67/7.20 GiB +542.72 MiB`` when there
is room, ``✓ 6.7/7.2 +543M``, then ``✓ 6.7/7.2`` (the breakdown below always gives the margin
of the selected cell). The symbol comes first so no narrow column can cut it; colour
follows the verdict and only adds to the symbol.
"""

from __future__ import annotations

from rich.text import Text
from textual.coordinate import Coordinate
from textual.reactive import reactive

from texbudget.model import CardVerdict, ScenarioResult
from texbudget.pipeline import Report
from texbudget.report.text import SYMBOL
from texbudget.tui.state import short_resolution
from texbudget.tui.widgets.cells import gib
from texbudget.tui.widgets.keyed import FreshWidths
from texbudget.units import GIB, KIB, MIB, human_bytes


def scenario_label(s: ScenarioResult, qualities: int = 1) -> str:
    """``1080p RT off``, ``4k @0.67 high RT nvidia`` (quality only when several are shown)."""
    scale = "" if s.render_scale == 1.0 else f" @{s.render_scale:.2g}"
    quality = f" {s.quality}" if qualities > 1 else ""
    return f"{short_resolution(s.resolution)}{scale}{quality} RT {s.rt}"


def card_columns(report: Report) -> list[tuple[str, str]]:
    """(card id, header) in first-seen order across the scenarios."""
    seen: dict[str, str] = {}
    for s in report.scenarios:
        for c in s.cards:
            seen.setdefault(c.name, c.name)
    return list(seen.items())


def cell_text(s: ScenarioResult, c: CardVerdict | None, tier: int) -> str:
    if c is None:
        return "—"
    sym = SYMBOL[c.verdict]
    if tier == 0:
        return f"{sym} {c.verdict:<5} {gib(s.total_bytes, 2)}/{gib(c.usable_bytes, 2)} GiB {human_bytes(c.free_bytes, signed=True)}"
    if tier == 1:
        return f"{sym} {gib(s.total_bytes)}/{gib(c.usable_bytes)} {short_bytes(c.free_bytes)}"
    return f"{sym} {gib(s.total_bytes)}/{gib(c.usable_bytes)}"


def short_bytes(n: int) -> str:
    """A signed margin in three or four digits: ``+1.2G``, ``-26M``, ``+512K``."""
    a = abs(n)
    sign = "-" if n < 0 else "+"
    if a >= GIB:
        return f"{sign}{a / GIB:.1f}G"
    if a >= MIB:
        return f"{sign}{a / MIB:.0f}M"
    return f"{sign}{a / KIB:.0f}K"


TIERS = (0, 1, 2)
#: The key of the first column, which holds the scenario labels.
LABEL = "scenario"


class VerdictMatrix(FreshWidths):
    """Scenarios × cards. Highlighting a cell selects the scenario and card the breakdown
    shows (the screen listens to ``CellHighlighted``)."""

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The report shown (bound to the screen's ``report``)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=False)
        self.fixed_columns = 1
        self._shape: tuple = ()
        self._tier = 0
        self.border_title = "Verdict: ✓ fits  ! tight  ✗ over   (GiB used/usable, margin)"

    def _style(self, verdict: str) -> str:
        colours = self.app.theme_variables
        return {
            "fits": colours.get("success", "green"),
            "tight": colours.get("warning", "yellow"),
            "over": "bold " + colours.get("error", "red"),
        }[verdict]

    def _pick_tier(self, report: Report, columns: list[tuple[str, str]]) -> int:
        width = self.size.width or self.app.size.width
        qualities = len({s.quality for s in report.scenarios})
        label_w = max((len(scenario_label(s, qualities)) for s in report.scenarios), default=0)
        for tier in TIERS:
            widths = []
            for key, header in columns:
                cells = [cell_text(s, next((c for c in s.cards if c.name == key), None), tier) for s in report.scenarios]
                widths.append(max(len(header), *(len(x) for x in cells)))
            if label_w + 2 + sum(w + 2 for w in widths) <= width - 2:
                return tier
        return TIERS[-1]

    def watch_report(self, report: Report | None) -> None:
        self.refill()

    def on_resize(self) -> None:
        if self.report is not None and self._pick_tier(self.report, card_columns(self.report)) != self._tier:
            self.refill()

    def refill(self) -> None:
        report = self.report
        if report is None:
            return
        columns = card_columns(report)
        verdicts = {c.verdict for s in report.scenarios for c in s.cards}
        self.set_class("over" in verdicts, "-over")
        self.set_class("tight" in verdicts and "over" not in verdicts, "-tight")
        qualities = len({s.quality for s in report.scenarios})
        tier = self._pick_tier(report, columns)
        labels = [scenario_label(s, qualities) for s in report.scenarios]
        shape = (tuple(columns), tuple(labels), tier)
        cursor = self.cursor_coordinate
        # Always refilled, columns too (a few dozen cells): DataTable caches a cell's rendering
        # at the column width of the moment, so an updated cell that widens its column would
        # stay cut, and columns never narrow by themselves.
        self.clear(columns=True)
        self.add_column("", key=LABEL)
        for key, header in columns:
            self.add_column(Text(header, justify="right"), key=key)
        for i, label in enumerate(labels):
            self.add_row(Text(label, style="bold", no_wrap=True), *self._cells(report.scenarios[i], columns, tier), key=f"s{i}")
        self._shape = shape
        self._tier = tier
        if self.row_count and cursor.row < self.row_count and cursor.column <= len(columns):
            self.cursor_coordinate = cursor

    def validate_cursor_coordinate(self, value: Coordinate) -> Coordinate:
        """The cursor never rests on the scenario labels (column 0)."""
        value = super().validate_cursor_coordinate(value)
        if value.column == 0 and len(self.columns) > 1:
            value = Coordinate(value.row, 1)
        return value

    def _cells(self, s: ScenarioResult, columns: list[tuple[str, str]], tier: int) -> list[Text]:
        by_name = {c.name: c for c in s.cards}
        out = []
        for key, _ in columns:
            card = by_name.get(key)
            text = cell_text(s, card, tier)
            out.append(Text(text, style=self._style(card.verdict) if card else "dim", justify="right", no_wrap=True))
        return out

    def selected(self) -> tuple[int, str | None]:
        """(scenario index, card id) under the cursor."""
        if not self.row_count or not self.columns:
            return 0, None
        keys = self.coordinate_to_cell_key(self.cursor_coordinate)
        return int(str(keys.row_key.value)[1:]), str(keys.column_key.value)
