"""KeyedTable: updates by diffing, keeps the cursor on its key, sorts by raw values, and its
fast width path agrees with DataTable's own measurement."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from texbudget.tui.widgets.cells import Cell, bytes_cell, right
from texbudget.tui.widgets.keyed import KeyedTable


class Table(KeyedTable):
    COLUMNS = (("name", "name"), ("bytes", "bytes"))


class Plain(DataTable):
    pass


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield Table()
        yield Plain()


def rows(n: int, bump: dict[str, int] | None = None) -> list[tuple[str, tuple[Cell, ...]]]:
    out = []
    for i in range(n):
        key = f"asset{i:03d}.png"
        size = (i + 1) * 1000 + (bump or {}).get(key, 0)
        out.append((key, (Cell(key, key), bytes_cell(size))))
    return out


def keys(table) -> list[str]:
    return [str(r.key.value) for r in table.ordered_rows]


async def test_diffing_updates_few_cells_and_keeps_the_cursor():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(Table)
        table.set_sort(["bytes", "name"], key=lambda c: (-c[0].raw, c[1].raw))
        table.sync(rows(100))
        await pilot.pause()
        assert table.last_sync == "rebuild"
        assert keys(table)[:2] == ["asset099.png", "asset098.png"]  # sorted by the raw bytes
        table.move_to_key("asset050.png")
        table.sync(rows(100, {"asset010.png": 500_000}))
        await pilot.pause()
        assert table.last_sync == "diff"
        assert keys(table)[0] == "asset010.png"
        assert str(table.get_cell("asset010.png", "bytes")) == "499.02 KiB"  # 11,000 + 500,000 B
        assert table.cursor_key == "asset050.png"
        table.sync(rows(100, {"asset010.png": 500_000}))
        assert table.last_sync == "none"
        table.sync(rows(99, {"asset010.png": 500_000}))  # one row gone
        await pilot.pause()
        assert table.last_sync == "diff" and table.row_count == 99 and "asset099.png" not in keys(table)
        table.sync(rows(10))  # most rows gone: refill
        await pilot.pause()
        assert table.last_sync == "rebuild" and table.row_count == 10
        assert table.cursor_key == "asset009.png"  # the old key is gone: nearest row


async def test_fast_widths_equal_datatable_measurement():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(Table)
        plain = app.query_one(Plain)
        data = [
            (Cell("käse/ü.png", "k"), right("12.00 MiB", 1), Cell(Text("wide ✓ 漢字", style="bold"), 2)),
            (Cell("a", "a"), right("1 B", 0), Cell("x" * 17, 3)),
        ]
        table.set_columns([("a", "a"), ("b", "b"), ("c", "c")])
        for key in ("a", "b", "c"):
            plain.add_column(key, key=key)
        for i, cells in enumerate(data):
            table.add_row(*cells, key=str(i))
            plain.add_row(*cells, key=str(i))
        await pilot.pause()
        fast = [c.content_width for c in table.ordered_columns]
        slow = [c.content_width for c in plain.ordered_columns]
        assert fast == slow == [10, 9, 17]
        # a cell that grows widens its column through the diff path too
        table._shown = {str(i): cells for i, cells in enumerate(data)}
        table.sync([("0", data[0]), ("1", (data[1][0], right("123456789012 B", 5), data[1][2]))])
        await pilot.pause()
        assert [c.content_width for c in table.ordered_columns] == [10, 14, 17]


def test_cells_sort_and_compare_by_raw_value():
    small, big = bytes_cell(9 * 1024 * 1024), bytes_cell(10 * 1024)
    assert str(small) == "9.00 MiB" and str(big) == "10.00 KiB"
    assert big < small  # by bytes, not by text
    assert sorted([small, big]) == [big, small]
    assert Cell("a", 1) == Cell("a", 1) and Cell("a", 1) != Cell("a", 2)
    assert Cell("a", 1).styled("red") != Cell("a", 1)
    assert Cell("漢字", 0).width == 4


async def test_many_changed_rows_are_written_in_bulk():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(Table)
        table.set_sort(["bytes", "name"], key=lambda c: (-c[0].raw, c[1].raw))
        table.sync(rows(500))
        await pilot.pause()
        table.move_to_key("asset123.png")
        bump = {f"asset{i:03d}.png": 10_000_000 - i * 1000 for i in range(300)}  # 300 rows change
        table.sync(rows(500, bump))
        await pilot.pause()
        assert table.last_sync == "diff"
        assert str(table.get_cell("asset000.png", "bytes")) == "9.54 MiB"
        assert str(table.get_cell("asset499.png", "bytes")) == "488.28 KiB"
        assert keys(table)[:2] == ["asset000.png", "asset001.png"]
        assert table.cursor_key == "asset123.png"
        assert table.ordered_columns[1].content_width == len("488.28 KiB")  # columns never narrow


async def test_a_row_drawn_before_it_was_measured_is_drawn_again_at_its_width():
    """DataTable's render caches are keyed without the column widths: a row drawn between a
    refill and the idle measurement would stay cut short at the old width. FreshWidths drops
    them when the measurement changes a width."""
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(Table)
        table.sync([(f"a{i}", (Cell(f"a{i}", i), bytes_cell(i))) for i in range(3)])
        await pilot.pause()
        table.sync(rows(3))  # every key new: cleared and refilled with longer names
        assert table.last_sync == "rebuild"
        early = table.render_line(1).text  # the first row, drawn at the old widths
        assert "asset000.png" not in early and "asse" in early
        await pilot.pause()
        assert table.ordered_columns[0].content_width == len("asset000.png")
        assert "asset000.png" in table.render_line(1).text
