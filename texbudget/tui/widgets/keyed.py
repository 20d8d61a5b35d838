"""A DataTable that is updated by diffing: rows keyed by asset path, columns keyed by name.

``sync(rows)`` compares the new rows with the ones on screen and updates only the cells that
changed, adds the new rows and removes the gone ones (dolphie); only when many rows come or
go (``remove_row`` is linear in the table size) it clears and refills. The cursor stays on
the same key.

Speed with 10,000 rows (measured, see the report of issue 8): DataTable measures every cell
of a new row with Rich (``console.options`` per cell: about 1 s for 80,000 cells), and
``update_cell(update_width=True)`` re-measures a whole column whenever a cell gets
narrower. Every cell here is a ``Cell`` holding one line of ``Text``, whose width is its
``cell_len``, so the measurement takes that for rows of ``Cell``s and leaves other rows to
DataTable, and changed cells only ever widen their column. Many changed rows (a quality
switch changes every size) are written into the table's data with one refresh.

Everything goes through DataTable's public API (``add_row(key=)``, ``update_cell``,
``remove_row``, ``get_row``, ``sort``, ``move_cursor``, ``get_row_index``, ``columns``,
``virtual_size``, ``notify_style_update``) except two things that have no public way
(Textual 8.2), both in this module only and pinned by tests/tui/test_keyed.py:

- ``_update_dimensions``, overridden: the one place DataTable measures new rows, when it is
  idle. It has no hook or event, so the fast widths and the cache drop (``FreshWidths``)
  wrap it.
- ``_data``, written in ``_write_cells`` for many changed rows at once: the public
  ``update_cell`` refreshes the widget on every call (about 65 µs a cell, ten times the
  write: 2 s for 30,000 cells, measured on a busy host), and DataTable has no call that
  updates many cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from texbudget.tui.widgets.cells import Cell

#: Above this share of changed rows, clearing and refilling beats cell-by-cell updates.
REBUILD_FRACTION = 0.3
#: ``remove_row`` is linear in the table size; more removals than this and we refill.
MAX_REMOVALS = 64
#: More changed rows than this are written straight into the table's data with one
#: refresh (``update_cell`` refreshes the widget once per cell: 0.5 s for 10,000 rows).
BULK_UPDATES = 200


class FreshWidths(DataTable):
    """A DataTable that drops its rendering caches when column widths change.

    DataTable measures new or updated cells when it is idle, but its render caches are keyed
    without the column widths: a row drawn between the change and the measurement stays
    drawn at the old width (a cell cut short, a column too narrow) until the data changes
    again. Measured with a screenshot taken right after a refill. These tables have no row
    labels, so the columns' widths are all there is to compare."""

    def _widths(self) -> list[int]:
        return [c.get_render_width(self) for c in self.ordered_columns]

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:  # no public hook: see above
        before = self._widths()
        self._measure(new_rows)
        if self._widths() != before:
            self.notify_style_update()  # drops DataTable's render caches and refreshes

    def _measure(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)


class KeyedTable(FreshWidths):
    """``COLUMNS`` is ``((key, label), …)``; rows are ``(key, (Cell, …))``."""

    COLUMNS: tuple[tuple[str, str], ...] = ()
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select_cursor", "open", tooltip="open the highlighted row")]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self._shown: dict[str, tuple[Cell, ...]] = {}
        self._sort: tuple[tuple[str, ...], Callable[[Any], Any] | None, bool] = ((), None, False)
        self.last_sync = "none"  # "rebuild", "diff" or "none": what the last sync did (tests)

    def on_mount(self) -> None:
        self.set_columns(self.COLUMNS)

    def set_columns(self, columns: Sequence[tuple[str, str]]) -> None:
        self.clear(columns=True)
        self._shown = {}
        for key, label in columns:
            self.add_column(label, key=key)

    def _widen(self, columns: Sequence[str], widths: Sequence[int]) -> None:
        grew = False
        for key, width in zip(columns, widths, strict=True):
            column = self.columns[ColumnKey(key)]
            if width > column.content_width:
                column.content_width = width
                grew = True
        if grew:  # the scrollable width follows (these tables have no row labels)
            width = sum(c.get_render_width(self) for c in self.columns.values())
            self.virtual_size = Size(width, self.virtual_size.height)
            self.notify_style_update()

    def _measure(self, new_rows: Iterable[RowKey]) -> None:
        """DataTable's, with the widths of rows made of ``Cell``s taken from ``Cell.width``."""
        rest: list[RowKey] = []
        columns = self.ordered_columns
        widths = [c.content_width for c in columns]
        for row_key in new_rows:
            row = self.rows.get(row_key)
            if row is None:  # removed before DataTable was idle
                continue
            if row.label is not None or row.auto_height:
                rest.append(row_key)
                continue
            cells = self.get_row(row_key)
            if not all(isinstance(c, Cell) for c in cells):
                rest.append(row_key)
                continue
            for i, cell in enumerate(cells):
                w = cell.width  # type: ignore[union-attr]
                if w > widths[i]:
                    widths[i] = w
        for column, width in zip(columns, widths, strict=True):
            column.content_width = width
        super()._measure(rest)

    def _write_cells(self, writes: Sequence[tuple[str, str, Cell]]) -> None:
        """``update_cell`` for every ``(row key, column key, cell)``, with one refresh: the
        one write into DataTable's private ``_data`` (see the module's docstring)."""
        for row, column, cell in writes:
            self._data[RowKey(row)][ColumnKey(column)] = cell
        self.notify_style_update()  # what update_cell's refresh and new update count do, once

    @property
    def column_keys(self) -> list[str]:
        return [str(c.key.value) for c in self.ordered_columns]

    def set_sort(self, columns: Sequence[str], key: Callable[[Any], Any] | None = None, reverse: bool = False) -> None:
        self._sort = (tuple(columns), key, reverse)
        self._apply_sort()

    def _apply_sort(self) -> None:
        columns, key, reverse = self._sort
        if columns and self.row_count:
            self.sort(*columns, key=key, reverse=reverse)

    @property
    def cursor_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:  # an out-of-range cursor has no key
            return None

    def move_to_key(self, key: str | None) -> bool:
        if key is None or key not in self._shown:
            return False
        self.move_cursor(row=self.get_row_index(key), animate=False, scroll=True)
        return True

    def sync(self, rows: Sequence[tuple[str, tuple[Cell, ...]]]) -> None:
        """Show exactly ``rows`` (in the table's sort order), touching as little as it can."""
        keep = self.cursor_key
        new = dict(rows)
        old = self._shown
        gone = [k for k in old if k not in new]
        added = [k for k in new if k not in old]
        changed = [k for k in new if k in old and old[k] != new[k]]
        work = len(gone) + len(added) + len(changed)
        if not old or len(gone) > MAX_REMOVALS or len(added) > REBUILD_FRACTION * max(len(new), 1):
            self.clear()
            for key, cells in rows:
                self.add_row(*cells, key=key)
            self.last_sync = "rebuild"
        elif work:
            columns = self.column_keys
            widths = [0] * len(columns)
            for key in gone:
                self.remove_row(key)
            bulk = len(changed) > BULK_UPDATES
            writes = []
            for key in changed:
                for i, (col, before, after) in enumerate(zip(columns, old[key], new[key], strict=True)):
                    if before != after:
                        if bulk:
                            writes.append((key, col, after))
                        else:
                            self.update_cell(key, col, after)
                        widths[i] = max(widths[i], after.width)
            if writes:
                self._write_cells(writes)
            self._widen(columns, widths)
            for key in added:
                self.add_row(*new[key], key=key)
            self.last_sync = "diff"
        else:
            self.last_sync = "none"
        self._shown = new
        if work or self.last_sync == "rebuild":
            self._apply_sort()
        if not self.move_to_key(keep) and self.row_count:
            self.move_cursor(row=min(self.cursor_row, self.row_count - 1), animate=False)
