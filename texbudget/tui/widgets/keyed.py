"""A DataTable that is updated by diffing: rows keyed by asset path, columns keyed by name.

``sync(rows)`` compares the new rows with the ones on screen and updates only the cells that
changed, adds the new rows and removes the gone ones (dolphie); only when many rows come or
go (``remove_row`` is linear in the table size) it clears and refills. The cursor stays on
the same key.

Speed with 10,000 rows (measured, see the report of issue 8): DataTable measures every cell
of a new row with Rich (``console.options`` per cell: about 1 s for 80,000 cells), and
``update_cell(update_width=True)`` re-measures a whole column whenever a cell gets
narrower. Every cell here is a ``Cell`` holding one line of ``Text``, whose width is its
``cell_len``, so ``_update_dimensions`` takes that for rows of ``Cell``s and leaves other
rows to DataTable, and changed cells only ever widen their column. Many changed rows (a
quality switch changes every size) are written into the table's data with one refresh. The
private names used (``_update_dimensions``, ``_require_update_dimensions``, ``_clear_caches``,
``_label_column``, ``_data``, ``_update_count``) are touched in this module only, and
tests/tui/test_keyed.py pins what they must do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
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
    again. Measured with a screenshot taken right after a refill."""

    def _widths(self) -> list[int]:
        return [c.content_width for c in self.columns.values()] + [self._label_column.content_width]

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        before = self._widths()
        self._measure(new_rows)
        if self._widths() != before:
            self._clear_caches()
            self.refresh()

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
        if grew:
            self._require_update_dimensions = True
            self.refresh(layout=True)

    def _measure(self, new_rows: Iterable[RowKey]) -> None:
        """DataTable's, with the widths of rows made of ``Cell``s taken from ``Cell.width``."""
        rest: list[RowKey] = []
        columns = self.ordered_columns
        widths = [c.content_width for c in columns]
        for row_key in new_rows:
            row = self.rows.get(row_key)
            data = self._data.get(row_key)
            if row is None or data is None:
                continue
            if row.label is not None or row.auto_height:
                rest.append(row_key)
                continue
            cells = [data.get(c.key) for c in columns]
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
            for key in changed:
                data = self._data[RowKey(key)] if bulk else None
                for i, (col, before, after) in enumerate(zip(columns, old[key], new[key], strict=True)):
                    if before != after:
                        if data is not None:
                            data[ColumnKey(col)] = after
                        else:
                            self.update_cell(key, col, after)
                        widths[i] = max(widths[i], after.width)
            if bulk:  # what update_cell does per cell, once
                self._update_count += 1
                self.refresh()
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
