"""The main screen: settings bar, verdict matrix, breakdown, asset browser, findings.

The app assigns each new ``Report`` to this screen's ``report`` (inside ``batch_update``);
the widgets get it, and the browser rows built from it, through ``data_bind``. Keys that
switch a setting open a picker and ask the app to re-evaluate (no file is read again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Footer, Input

from texbudget.pipeline import Report
from texbudget.tui import browse as browse_mod
from texbudget.tui.host import ScreenHost
from texbudget.tui.state import LevelLabel
from texbudget.tui.widgets.assets import SORTS, AssetChosen, AssetTable, FolderTable
from texbudget.tui.widgets.breakdown import Breakdown
from texbudget.tui.widgets.findings import FindingsView, FindingTable
from texbudget.tui.widgets.keyed import KeyedTable
from texbudget.tui.widgets.matrix import VerdictMatrix
from texbudget.tui.widgets.settings_bar import ScanStatus, SettingsBar

VIEWS = ("tree", "table", "findings")


class FilterInput(Input):
    """The ``/`` filter: words found in an asset's path, GPU format or role."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear", "clear filter")]

    if TYPE_CHECKING:
        screen: MainScreen  # for the type checker only: the filter is composed in the main screen alone

    def action_clear(self) -> None:
        self.value = ""
        self.screen.action_close_filter()


class MainScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "app.help", "help", key_display="?", tooltip="every key and symbol"),
        Binding("q", "app.quit", "quit", tooltip="leave texbudget"),
        Binding("r", "pick('resolutions')", "resolution", tooltip="choose the output resolutions"),
        Binding("l", "pick('quality')", "quality", tooltip="choose the quality level (texture mip drop)"),
        Binding("t", "pick('rt')", "ray tracing", tooltip="ray tracing: off, or a vendor's BVH estimate"),
        Binding("p", "pick('platform')", "platform", tooltip="platform profile (GPU formats)"),
        Binding("c", "pick('cards')", "cards", tooltip="the card set to judge against"),
        Binding("u", "pick('upscaler')", "upscaler", tooltip="upscaler preset (render scale)"),
        Binding("m", "pick_level", "level", tooltip="show one level (what its scene loads) or the whole scan"),
        Binding("v", "toggle_view", "tree/table", tooltip="switch the asset browser: folder tree or flat table"),
        Binding("s", "sort", "sort", tooltip="next sort order (table: VRAM, name, kind, …; tree: VRAM or name)"),
        Binding("slash", "filter", "filter", key_display="/", tooltip="filter assets by path, format or role"),
        Binding("f", "findings", "findings", tooltip="show or hide the findings and their hints"),
        Binding("f5", "app.rescan", "rescan", tooltip="read every file again"),
        Binding("enter", "open", "open", tooltip="open the highlighted asset or folder"),
        Binding("escape", "back", "back", tooltip="close the findings or the filter, or go up a folder"),
        Binding("tab", "app.focus_next", "next pane", show=False, tooltip="move between the matrix and the browser"),
    ]

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The evaluation on screen; the app replaces it after every switch or scan batch."""
    browse: reactive[browse_mod.Browse | None] = reactive(None, always_update=True)
    """The browser's rows: ``report`` after the filter (built here, pure)."""
    selected: reactive[tuple[int, str | None]] = reactive((0, None))
    """(scenario index, card id) highlighted in the matrix; the breakdown shows it."""
    filter_text: reactive[str] = reactive("")
    """The ``/`` filter text."""
    view: reactive[str] = reactive("table")
    """Which browser view is shown: "tree", "table" or "findings"."""
    level: reactive[LevelLabel | None] = reactive(None)
    """The level ``report`` is of (name "" the whole scan); None when the scan has no levels."""

    def __init__(self, host: ScreenHost) -> None:
        super().__init__()
        self.host = host  # the app: what the screen asks of it (``tui.host``)
        self._browser = "table"
        self.prebuilt: tuple[Report, browse_mod.Browse] | None = None  # rows the app built with a report

    def compose(self) -> ComposeResult:
        yield SettingsBar(id="settings").data_bind(report=MainScreen.report, level=MainScreen.level)
        yield ScanStatus(id="status")
        yield VerdictMatrix(id="matrix").data_bind(report=MainScreen.report)
        yield Breakdown(id="breakdown").data_bind(report=MainScreen.report, selected=MainScreen.selected)
        with ContentSwitcher(initial="table", id="browser"):
            yield FolderTable(id="tree").data_bind(browse=MainScreen.browse)
            yield AssetTable(id="table").data_bind(browse=MainScreen.browse)
            yield FindingsView(id="findings").data_bind(report=MainScreen.report, filter_text=MainScreen.filter_text)
        yield FilterInput(placeholder="filter: words in path, format or role (Esc clears)", id="filter")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.report = self.host.report
        self.query_one("#filter", FilterInput).display = False
        self.query_one("#table", AssetTable).focus()

    # --- data ---------------------------------------------------------------------------

    def watch_report(self, report: Report | None) -> None:
        ready, self.prebuilt = self.prebuilt, None
        if ready is not None and ready[0] is report and ready[1].query == self.filter_text:
            self.browse = ready[1]
        else:
            self.browse = browse_mod.build(report, self.filter_text)

    def watch_filter_text(self, text: str) -> None:
        self.browse = browse_mod.build(self.report, text)

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        if isinstance(event.data_table, VerdictMatrix):
            self.selected = event.data_table.selected()

    def on_asset_chosen(self, event: AssetChosen) -> None:
        self.host.open_asset(event.key)

    # --- actions ------------------------------------------------------------------------

    def action_pick(self, key: str) -> None:
        self.host.pick(key)

    def action_pick_level(self) -> None:
        self.host.pick_level()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The level key is there when the scan has levels (the footer shows it then)."""
        return self.host.has_levels if action == "pick_level" else True

    def watch_view(self, view: str) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = view
        if view == "table":
            self.query_one(AssetTable).shown()
        target = self.query_one(FindingTable) if view == "findings" else switcher.query_one(f"#{view}")
        target.focus()

    def action_toggle_view(self) -> None:
        self._browser = "table" if self.view == "tree" else "tree"
        self.view = self._browser

    def action_findings(self) -> None:
        self.view = self._browser if self.view == "findings" else "findings"

    def action_sort(self) -> None:
        if self.view == "table":
            table = self.query_one(AssetTable)
            table.sort_index = (table.sort_index + 1) % len(SORTS)
            self.notify(f"sorted by {SORTS[table.sort_index][0]}", timeout=1.5)
        elif self.view == "tree":
            tree = self.query_one(FolderTable)
            tree.by_name = not tree.by_name
            self.notify(f"folders sorted by {'name' if tree.by_name else 'VRAM'}", timeout=1.5)

    def action_filter(self) -> None:
        box = self.query_one("#filter", FilterInput)
        box.display = True
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.action_close_filter()

    def action_close_filter(self) -> None:
        box = self.query_one("#filter", FilterInput)
        box.display = bool(box.value)
        self.watch_view(self.view)

    def action_open(self) -> None:
        if self.view == "findings":
            return
        table = self.query_one(f"#{self.view}", KeyedTable)  # the tree or the table
        key = table.cursor_key
        if key is None:
            return
        if isinstance(table, FolderTable) and (key.endswith("/") or key == ".."):
            table.action_select_cursor()
            return
        self.host.open_asset(key)

    def action_back(self) -> None:
        if self.view == "findings":
            self.view = self._browser
        elif self.filter_text:
            box = self.query_one("#filter", FilterInput)
            box.value = ""
            box.display = False
            self.filter_text = ""
        elif self.view == "tree":
            self.query_one(FolderTable).action_up()

    # --- scan status (called by the app) -----------------------------------------------

    @property
    def status(self) -> ScanStatus:
        return self.query_one(ScanStatus)
