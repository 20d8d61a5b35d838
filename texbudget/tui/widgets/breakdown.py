"""The selected scenario by category: one stacked bar with bytes.

Each category has its own fill character (█ textures, ▓ meshes, ▒ ray tracing, ░ render
targets, · free) so the bar reads without colour; a ┃ marks the card's usable VRAM when the
scene is over it. Estimates are labelled "est." as everywhere else.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from texbudget.model import CardVerdict, ScenarioResult
from texbudget.pipeline import Report
from texbudget.report.text import SYMBOL
from texbudget.tui.widgets.matrix import scenario_label
from texbudget.units import human_bytes

#: (category, legend label, fill character, theme colour)
PARTS = (
    ("textures", "textures", "█", "primary"),
    ("meshes", "meshes", "▓", "secondary"),
    ("acceleration_structures", "RT (est.)", "▒", "accent"),
    ("render_targets", "targets", "░", "warning"),
)
FREE = "·"
USABLE = "┃"


def segments(s: ScenarioResult, card: CardVerdict | None, width: int) -> list[tuple[str, int]]:
    """(fill character, cells) for each part of the bar, then the free space (pure; the
    scale is the larger of the total and the card's usable bytes)."""
    usable = card.usable_bytes if card else 0
    scale = max(s.total_bytes, usable, 1)
    out: list[tuple[str, int]] = []
    used = 0
    for key, _, char, _ in PARTS:
        n = s.bytes.get(key, 0)
        cells = round(n / scale * width)
        if n > 0 and cells == 0:
            cells = 1
        cells = min(cells, width - used)
        out.append((char, cells))
        used += cells
    if card and usable > s.total_bytes:
        out.append((FREE, max(0, min(width - used, round(usable / scale * width) - used))))
    return out


class Breakdown(Widget):
    """The bytes of the selected scenario, on the selected card."""

    DEFAULT_CSS = "Breakdown { height: auto; }"

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The report shown (bound to the screen's ``report``)."""
    selected: reactive[tuple[int, str | None]] = reactive((0, None))
    """(scenario index, card id) picked in the matrix (bound to the screen's ``selected``)."""

    def _pick(self) -> tuple[ScenarioResult, CardVerdict | None] | None:
        report = self.report
        if report is None or not report.scenarios:
            return None
        index, card_id = self.selected
        s = report.scenarios[min(index, len(report.scenarios) - 1)]
        card = next((c for c in s.cards if c.name == card_id), s.cards[0] if s.cards else None)
        return s, card

    def _sync_classes(self) -> None:
        picked = self._pick()
        verdict = picked[1].verdict if picked and picked[1] else ""
        self.set_class(verdict == "tight", "-tight")
        self.set_class(verdict == "over", "-over")

    def watch_report(self) -> None:
        self._sync_classes()

    def watch_selected(self) -> None:
        self._sync_classes()

    def _colour(self, name: str) -> str:
        return self.app.theme_variables.get(name, "white")

    def render(self) -> Text:
        report = self.report
        picked = self._pick()
        if report is None or picked is None:
            return Text("no scenario yet", style="dim")
        s, card = picked
        qualities = len({x.quality for x in report.scenarios})
        out = Text(no_wrap=False)
        if card:
            verdict_style = {"fits": "success", "tight": "warning", "over": "error"}[card.verdict]
            out.append(f"{SYMBOL[card.verdict]} {card.verdict}", style="bold " + self._colour(verdict_style))
            out.append(f"  {scenario_label(s, qualities)} on {card.name}: ", style="bold")
            out.append(f"{human_bytes(s.total_bytes)} of {human_bytes(card.usable_bytes)}")
            word = "free" if card.free_bytes >= 0 else "over"
            out.append(f", {human_bytes(abs(card.free_bytes))} {word}")
            if self.size.width >= 100:
                out.append(f" (headroom {human_bytes(card.headroom_bytes)})")
        else:
            out.append(f"{scenario_label(s, qualities)}: {human_bytes(s.total_bytes)}", style="bold")
        out.append("\n")
        width = max(10, self.size.width - 2)
        bar = Text()
        used = 0
        for (char, cells), part in zip(segments(s, card, width), (*PARTS, None), strict=False):
            colour = self._colour(part[3]) if part else "grey50"
            bar.append(char * cells, style=colour)
            used += cells
        if card and s.total_bytes > card.usable_bytes:
            mark = round(card.usable_bytes / max(s.total_bytes, 1) * width)
            if 0 <= mark < len(bar.plain):
                bar = bar[:mark] + Text(USABLE, style="bold " + self._colour("error")) + bar[mark + 1:]
        out.append(bar)
        out.append("\n")
        for key, label, char, colour in PARTS:
            out.append(char, style=self._colour(colour))
            out.append(f" {label} {human_bytes(s.bytes.get(key, 0))} ")
        return out
