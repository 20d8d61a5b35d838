"""The asset browser's two views: a flat sortable table and an ncdu-like folder tree.

Both get a ``Browse`` (texbudget.tui.browse) through ``data_bind`` and only format it. Rows
are keyed by asset path (folders by ``path/``), so the cursor stays on the same asset when
the report changes. Enter on an asset posts ``AssetChosen``; in the tree, Enter on a folder
goes in and Backspace goes up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable

from texbudget.tui.browse import AssetRow, Browse, Entry, parent
from texbudget.tui.widgets.cells import Cell, bar, bytes_cell, right, share_text
from texbudget.tui.widgets.keyed import KeyedTable
from texbudget.units import human_bytes


class AssetChosen(Message):
    """The artist chose an asset (Enter) to open."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__()


#: Where the share cell sits in a row of AssetTable.
SHARE = 2


@lru_cache(maxsize=4096)
def _share_cell(shown: str, raw: float) -> Cell:
    return right(shown, raw)


def share_cell(share: float) -> Cell:
    """The share as shown (0.1 %), sorting by the shown value: one cached cell per value."""
    shown = share_text(share)
    return _share_cell(shown, round(share, 3))


def used_by_text(users: tuple[str, ...]) -> str:
    if not users:
        return ""
    return users[0] + (f" +{len(users) - 1}" if len(users) > 1 else "")


#: sort name -> (column, descending)
SORTS: tuple[tuple[str, str, bool], ...] = (
    ("VRAM", "vram", True),
    ("name", "name", False),
    ("kind", "kind", False),
    ("format", "format", False),
    ("dims", "dims", True),
    ("mips", "mips", True),
    ("used by", "used_by", True),
)


def _sort_key(descending: bool) -> Callable[[Any], Any]:
    if descending:
        return lambda cells: (-cells[0].raw, cells[1].raw)
    return lambda cells: (cells[0].raw, cells[1].raw)


class AssetTable(KeyedTable):
    """Every asset that passes the filter, one row each."""

    COLUMNS = (
        ("name", "asset"), ("vram", "VRAM"), ("share", "share"), ("kind", "kind"), ("format", "format"),
        ("dims", "dims"), ("mips", "mips"), ("used_by", "used by"),
    )

    browse: reactive[Browse | None] = reactive(None, always_update=True)
    """The rows to show (bound to the screen's ``browse``)."""
    sort_index: reactive[int] = reactive(0)
    """Which of ``SORTS`` orders the rows (``s`` steps through them)."""

    def on_mount(self) -> None:
        super().on_mount()
        self._cells: dict[str, tuple[AssetRow, tuple[Cell, ...]]] = {}
        self._set_sort(self.sort_index)

    def watch_browse(self, browse: Browse | None) -> None:
        if browse is None or not self.columns:
            return
        if not self.display:
            self._stale = True  # filled when shown (10,000 rows cost even when hidden)
            return
        self._stale = False
        # An unchanged row keeps its cells (the same objects compare in no time); when only
        # its share moved (one asset changed the total), only the share cell is new, and it
        # is the same object as long as the shown percentage is the same.
        old = self._cells
        new: dict[str, tuple[AssetRow, tuple[Cell, ...]]] = {}
        for r in browse.rows:
            prev = old.get(r.key)
            if prev is not None and prev[0] == r:
                cells = prev[1]
            elif prev is not None and replace(prev[0], share=r.share) == r:
                cells = (*prev[1][:SHARE], share_cell(r.share), *prev[1][SHARE + 1:])
            else:
                cells = self.cells(r)
            new[r.key] = (r, cells)
        self._cells = new
        self.sync([(key, cells) for key, (_, cells) in new.items()])
        self.border_title = f"Assets: {len(browse.rows)} shown, {human_bytes(browse.shown_bytes)}, sorted by {SORTS[self.sort_index][0]}"

    def shown(self) -> None:
        """Called when the view switches to the table: fill it if a report came meanwhile."""
        if getattr(self, "_stale", False) and self.browse is not None:
            self.watch_browse(self.browse)

    def watch_sort_index(self, index: int) -> None:
        if self.columns:
            self._set_sort(index)
            if self.browse is not None:
                self.watch_browse(self.browse)

    def _set_sort(self, index: int) -> None:
        _, column, descending = SORTS[index]
        self.set_sort([column, "name"], key=_sort_key(descending))

    @staticmethod
    def cells(r: AssetRow) -> tuple[Cell, ...]:
        kind = r.kind + (" (ignored)" if r.ignored else "") + (f" x{r.instances}" if r.mesh and r.instances != 1 else "")
        return (
            Cell(r.key, r.key),
            bytes_cell(r.vram_bytes),
            share_cell(r.share),
            Cell(kind, r.kind),
            Cell(r.format, r.format),
            right(r.dims, r.pixels),
            right(str(r.mips) if not r.mesh else "", r.mips),
            Cell(used_by_text(r.used_by), len(r.used_by)),
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(AssetChosen(str(event.row_key.value)))


UP = ".."


class FolderTable(KeyedTable):
    """One folder at a time, biggest first, sizes summed per folder (ncdu)."""

    COLUMNS = (("vram", "VRAM"), ("share", "share"), ("bar", "          "), ("name", "name"))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("backspace", "up", "up a folder", show=False),
    ]

    browse: reactive[Browse | None] = reactive(None, always_update=True)
    """The folders and rows to show (bound to the screen's ``browse``)."""
    folder: reactive[str] = reactive("")
    """The folder shown ("" = the scan root)."""
    by_name: reactive[bool] = reactive(False)
    """Sort by name instead of by VRAM (``s``)."""

    def on_mount(self) -> None:
        super().on_mount()
        self._set_sort()

    def _set_sort(self) -> None:
        if self.by_name:
            self.set_sort(["name", "vram"], key=lambda cells: (cells[0].raw, -cells[1].raw))
        else:
            self.set_sort(["vram", "name"], key=_sort_key(True))

    def watch_by_name(self) -> None:
        if self.columns:
            self._set_sort()

    def watch_browse(self, browse: Browse | None) -> None:
        if browse is None:
            return
        folder = self.folder
        while folder and folder not in browse.folders:
            folder = parent(folder)
        if folder != self.folder:
            self.folder = folder  # watch_folder refills
        else:
            self.refill()

    def watch_folder(self, old: str, new: str) -> None:
        self.refill()
        if old.startswith(new) and old != new:
            # Coming up: land on the folder we left.
            child = old[len(new):].lstrip("/").split("/", 1)[0]
            self.move_to_key(f"{new}/{child}/" if new else f"{child}/")

    def refill(self) -> None:
        browse = self.browse
        if browse is None or not self.columns:
            return
        rows = [(e.key, self.cells(e)) for e in browse.children(self.folder)]
        if self.folder:
            rows.insert(0, (UP, (right("", float("inf")), right("", 0.0), Cell("", 0), Cell("/..", ""))))
        self.sync(rows)
        shown = f"{self.folder}/" if self.folder else "/"
        size = sum(e.vram_bytes for e in browse.children(self.folder))
        self.border_title = f"{shown}  {human_bytes(size)}  (Enter: open, Backspace: up)"

    def cells(self, e: Entry) -> tuple[Cell, ...]:
        name = Text(e.name, style="bold" if e.is_folder else "", no_wrap=True)
        if e.is_folder:
            name.append(f"  {e.count} asset{'s' if e.count != 1 else ''}", style="dim")
        return (
            bytes_cell(e.vram_bytes),
            share_cell(e.share),
            Cell(f"[{bar(e.share)}]", e.share),
            Cell(name, e.name),
        )

    def action_up(self) -> None:
        if self.folder:
            self.folder = parent(self.folder)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = str(event.row_key.value)
        if key == UP:
            self.action_up()
        elif key.endswith("/"):
            self.folder = key[:-1]
        else:
            self.post_message(AssetChosen(key))
