"""The findings view: every problem of the scan, and the hint of the highlighted one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from texbudget.findings import CODES
from texbudget.model import Finding
from texbudget.pipeline import Report
from texbudget.report.text import printable
from texbudget.tui.browse import matches_text
from texbudget.tui.widgets.cells import SEVERITY_SYMBOL, STYLE, Cell
from texbudget.tui.widgets.keyed import KeyedTable

_RANK = {"error": 0, "warning": 1, "info": 2}


def finding_keys(findings: tuple[Finding, ...]) -> list[tuple[str, Finding]]:
    """A stable key per finding (path, code, message; a counter for exact repeats)."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        base = f"{f.path}|{f.code}|{f.message}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append((base if n == 0 else f"{base}|{n}", f))
    return out


class FindingTable(KeyedTable):
    COLUMNS = (("severity", "severity"), ("code", "code"), ("path", "path"), ("message", "message"))


class FindingsView(Vertical):
    """Findings, errors first, filtered by the same ``/`` query as the assets."""

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The report whose findings are listed (bound to the screen's ``report``)."""
    filter_text: reactive[str] = reactive("")
    """The filter (bound to the screen's ``filter_text``): words found in path, code or message."""

    def compose(self) -> ComposeResult:
        yield FindingTable(id="finding-table")
        yield Static("", id="finding-hint")

    def on_mount(self) -> None:
        self._by_key: dict[str, Finding] = {}
        table = self.query_one(FindingTable)
        table.set_sort(["severity", "path"], key=lambda cells: (cells[0].raw, cells[1].raw))

    def watch_report(self) -> None:
        self.refill()

    def watch_filter_text(self) -> None:
        self.refill()

    def refill(self) -> None:
        if not self.is_mounted or self.report is None:
            return
        table = self.query_one(FindingTable)
        if not table.columns:
            return
        self._by_key = {}
        rows = []
        for key, f in finding_keys(self.report.findings):
            sev = f.severity.value
            if not matches_text(f"{f.path}\0{f.code}\0{sev}\0{f.message}", self.filter_text):
                continue
            self._by_key[key] = f
            rows.append((key, (
                Cell(f"{SEVERITY_SYMBOL[sev]} {sev}", _RANK[sev]).styled(STYLE[sev]),
                Cell(f.code, f.code), Cell(f.path, f.path), Cell(f.message, f.message),
            )))
        table.sync(rows)
        n = len(self.report.findings)
        self.border_title = f"Findings: {len(rows)} of {n}" + (" (filtered)" if len(rows) != n else "")
        self.show_hint()

    def show_hint(self) -> None:
        table = self.query_one(FindingTable)
        hint = self.query_one("#finding-hint", Static)
        key = table.cursor_key
        f = self._by_key.get(key) if key else None
        if f is None:
            hint.update("no findings" if not table.row_count else "")
            return
        code = CODES.get(f.code)
        text = Text()
        text.append(f"{f.code} {printable(f.path)}: ", style="bold")
        text.append(printable(f.message))
        text.append("\nhint: ", style="bold")
        text.append(f.hint or (code.hint if code else ""))
        hint.update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_hint()
