"""The settings bar (what the verdicts are for) and the scan status line with its progress bar."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Label, ProgressBar, Static

from texbudget.pipeline import Report
from texbudget.tui.state import LevelLabel, rt_label, short_resolution

WHAT_IF = "what-if"


class SettingsBar(Static):
    """platform · quality · resolutions · RT · renderer · upscaler · cards · config (names of
    the settings and the card list only when the terminal is wide enough)."""

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The report whose settings are shown (bound to the screen's ``report``)."""
    level: reactive[LevelLabel | None] = reactive(None)
    """Which level the report is of (bound to the screen's ``level``); None: no levels."""

    WIDE = 120

    def watch_report(self) -> None:
        self.refresh_text()

    def watch_level(self) -> None:
        self.refresh_text()

    def on_resize(self) -> None:
        self.refresh_text()

    def refresh_text(self) -> None:
        report = self.report
        if report is None:
            self.update("reading…")
            return
        wide = (self.size.width or self.app.size.width) >= self.WIDE
        b = report.settings.budget
        what_ifs = sum(1 for r in report.settings.rules if r.source == WHAT_IF)
        out = Text()
        parts = [
            ("platform", b.platform),
            ("quality", ",".join(b.quality)),
            ("res", " ".join(short_resolution(r) for r in b.resolutions)),
            ("RT", rt_label(b.rt) if wide or b.rt is not None else "per card"),
            ("renderer", b.renderer),
            ("upscaler", b.upscaler),
        ]
        if wide:
            parts.append(("cards", ",".join(b.cards)))
        sep = " │ " if wide else " · "
        level = self.level
        if level is not None:  # which level, first: the whole screen is of it
            if level.name:
                out.append("level ", style="dim")
                out.append(level.name, style="bold reverse")
                if wide:
                    out.append(f" {level.scene}", style="italic")
            else:
                out.append("whole scan", style="bold")
            out.append(sep, style="dim")
        for i, (name, value) in enumerate(parts):
            if i:
                out.append(sep, style="dim")
            if wide or name == "RT":
                out.append(f"{name} ", style="dim")
            out.append(value, style="bold")
        if wide:
            out.append(sep, style="dim")
            out.append(report.settings.config_label, style="italic")
        if what_ifs:
            out.append(f"  what-if: {what_ifs} unsaved", style="reverse")
        self.update(out)


class ScanStatus(Horizontal):
    """"reading 120/231 files" and a progress bar while a scan runs; the totals after."""

    DEFAULT_CSS = "ScanStatus { height: 1; } ScanStatus > Label { width: 1fr; } ScanStatus > ProgressBar { width: auto; }"

    def compose(self) -> ComposeResult:
        yield Label("", id="scan-label")
        yield ProgressBar(total=None, show_eta=False, id="scan-progress")

    def progress(self, done: int, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=max(total, 1), progress=done)
        self.query_one("#scan-label", Label).update(f"reading {done:,}/{total:,} files…")

    def finished(self, text: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#scan-label", Label).update(text)

    def failed(self, text: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#scan-label", Label).update(Text(f"✗ {text}", style="bold red"))
