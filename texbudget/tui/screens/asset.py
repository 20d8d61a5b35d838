"""One asset in depth: facts, the decision and why, the mip table, the alternatives, and
the what-if (format, size cap, mips) whose effect the matrix on this screen shows live.

``w`` keeps the what-if: the app appends it to texbudget.toml as a ``[[rule]]``.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Footer, Label, Select, Static

from texbudget import alternatives as alt_mod
from texbudget.pipeline import Report, TextureRow
from texbudget.report.text import printable
from texbudget.sizing.meshes import MeshCost
from texbudget.tui.host import ScreenHost
from texbudget.tui.widgets.cells import Cell, bytes_cell, right
from texbudget.tui.widgets.keyed import KeyedTable
from texbudget.tui.widgets.matrix import VerdictMatrix
from texbudget.units import human_bytes

NO_CAP = "none"
#: A ``max_size`` that lifts any cap (the largest a rule may give).
LIFT_CAP = 65536


def find_row(report: Report | None, key: str) -> TextureRow | MeshCost | None:
    if report is None:
        return None
    for t in report.textures:
        if t.facts.path == key:
            return t
    for m in report.meshes:
        if m.facts.path == key:
            return m
    return None


class _Rows(Table):
    """A Rich table whose string cells are plain text: a glTF's names, a file's text and a
    rule's note reach them, and Rich would read "[...]" in a string as markup (a stray "[/x]"
    raises) and the terminal would act on an escape sequence."""

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(Text(printable(r)) if isinstance(r, str) else r for r in renderables), **kwargs)


def _facts_table() -> Table:
    """Two columns, label and value; a value is shown as plain text (``_Rows.add_row``)."""
    t = _Rows(box=None, show_header=False, padding=(0, 1, 0, 0))
    t.add_column(style="dim", no_wrap=True)
    t.add_column()
    return t


def texture_facts_table(row: TextureRow) -> Table:
    f, p, c = row.facts, row.plan, row.cost
    t = _facts_table()
    dims = f"{f.width}x{f.height}" + (f"x{f.depth}" if f.depth > 1 else "")
    shape = []
    if f.faces == 6:
        shape.append("cubemap")
    if f.layers > 1:
        shape.append(f"{f.layers} layers")
    t.add_row("file", f"{f.container}, {dims}{', ' + ', '.join(shape) if shape else ''}, {human_bytes(f.disk_bytes)} on disk")
    stored = f.stored_format or (f"{f.transcodable} (transcoded)" if f.transcodable else "source image")
    t.add_row("stored", f"{stored}, {f.stored_levels} level{'s' if f.stored_levels != 1 else ''}"
              + (f", {f.supercompression}" if f.supercompression else ""))
    t.add_row("pixels", f"{f.channels} channels{', alpha' if f.alpha else ''}, {f.bit_depth}-bit"
              + (", HDR" if f.hdr else "") + (f", {f.color_space}" if f.color_space else ""))
    t.add_row("GPU", Text(f"{p.gpu_format}, {p.role}, {p.width}x{p.height}, {len(c.mips)} level{'s' if len(c.mips) != 1 else ''} in VRAM", style="bold"))
    t.add_row("mips", f"{p.mips}" + (f", quality drops {p.tier_drop}" if p.tier_drop else "") + (f", max_size {p.max_size}" if p.max_size else "")
              + (", streamed" if p.streamed else ""))
    t.add_row("bytes", Text(f"{human_bytes(c.gpu_bytes)} content, {human_bytes(c.allocated_bytes)} allocated", style="bold"))
    t.add_row("why", p.decided_by + (" (ignored: counts nothing)" if p.ignored else ""))
    t.add_row("used by", ", ".join(row.used_by) if row.used_by else "no material of the scanned scenes")
    return t


def mesh_facts_table(c: MeshCost) -> Table:
    """A mesh's row in the report (its cost, with its facts and the first RT vendor's BLAS)."""
    f = c.facts
    t = _facts_table()
    t.add_row("mesh", f"{f.name or '(unnamed)'}, {len(f.primitives)} primitive{'s' if len(f.primitives) != 1 else ''}, source {f.source}")
    t.add_row("geometry", f"{f.vertices:,} vertices, {f.triangles:,} triangles, {f.indices:,} indices"
              + (", skinned" if f.skinned else "") + (f", {f.morph_targets} morph targets" if f.morph_targets else ""))
    t.add_row("instances", f"{c.instances:,}")
    t.add_row("buffers", f"vertex {human_bytes(c.vertex_bytes)}, index {human_bytes(c.index_bytes)}, morph {human_bytes(c.morph_bytes)} ({c.basis})")
    t.add_row("bytes", Text(f"{human_bytes(c.buffer_bytes)} in VRAM", style="bold"))
    if c.blas is not None:
        b = c.blas
        t.add_row("BLAS", f"{human_bytes(b.resident_bytes)} resident ({'compacted' if b.compacted else 'prebuild'}), "
                  f"scratch {human_bytes(b.scratch_bytes)}, {b.profile} (estimate: {b.source})")
    return t


class AltTable(KeyedTable):
    COLUMNS = (("format", "format"), ("max", "max size"), ("dims", "dims"), ("levels", "levels"),
               ("vram", "VRAM"), ("saves", "saves"))


class MipTable(KeyedTable):
    COLUMNS = (("level", "level"), ("dims", "dims"), ("bytes", "bytes"))


class AssetScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "app.help", "help", key_display="?", tooltip="every key and symbol"),
        Binding("escape", "back", "back", tooltip="back to the main screen (a what-if stays until reset)"),
        Binding("w", "write", "write rule", tooltip="append the what-if as a [[rule]] to texbudget.toml"),
        Binding("x", "reset", "reset what-if", tooltip="drop this asset's what-if"),
        Binding("enter", "choose", "use alternative", tooltip="make the highlighted alternative the what-if"),
    ]

    report: reactive[Report | None] = reactive(None, always_update=True)
    """The evaluation on screen (with the what-ifs); the app replaces it after every change."""

    def __init__(self, key: str, host: ScreenHost) -> None:
        super().__init__()
        self.host = host  # the app: what the screen asks of it (``tui.host``)
        self.key = key
        self._alts: dict[str, alt_mod.Alternative] = {}
        self._options_for: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(printable(self.key), style="bold"), id="asset-title")
        with VerticalScroll(id="asset-body"):
            with Horizontal(id="asset-top"):
                yield Static("", id="asset-facts")
                with Vertical(id="whatif"):
                    yield Label("What if", id="whatif-title")
                    yield Select([], prompt="format: as decided", id="wf-format", compact=True)
                    yield Select([], prompt="max size: as decided", id="wf-size", compact=True)
                    yield Checkbox("mip chain", value=True, id="wf-mips", compact=True)
                    yield Static("", id="wf-effect")
            yield VerdictMatrix(id="asset-matrix").data_bind(report=AssetScreen.report)
            with Horizontal(id="asset-tables"):
                yield MipTable(id="asset-mips")
                yield AltTable(id="asset-alts")
        yield Footer(compact=True)

    NARROW = 110

    def on_mount(self) -> None:
        self.report = self.host.report
        self.query_one("#asset-alts", AltTable).set_sort(["vram", "format"], key=lambda c: (c[0].raw, c[1].raw))

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.NARROW, "-narrow")

    def watch_report(self, report: Report | None) -> None:
        if not self.query("#asset-facts"):
            return  # not composed yet; on_mount shows it
        row = find_row(report, self.key)
        facts = self.query_one("#asset-facts", Static)
        if row is None:
            facts.update(Text("this asset is not in the scan any more (removed or renamed)", style="bold red"))
            return
        assert report is not None  # find_row found the row in it
        if isinstance(row, MeshCost):
            facts.update(mesh_facts_table(row))
            self.query_one("#whatif").display = False
            self.query_one("#asset-tables").display = False
            return
        facts.update(texture_facts_table(row))
        self._fill_mips(row)
        self._fill_alternatives(row, report)
        if self._options_for is None:
            self._fill_options(row, report)
        self._show_effect(row)

    # --- tables ---------------------------------------------------------------------------

    def _fill_mips(self, row: TextureRow) -> None:
        table = self.query_one("#asset-mips", MipTable)
        rows = []
        for m in row.cost.mips:
            dims = f"{m.width}x{m.height}" + (f"x{m.depth}" if m.depth > 1 else "")
            rows.append((str(m.level), (right(str(m.level), m.level), right(dims, m.width * m.height * m.depth), bytes_cell(m.bytes))))
        table.sync(rows)
        table.border_title = f"Mips: {human_bytes(row.cost.gpu_bytes)} content, {human_bytes(row.cost.allocated_bytes)} allocated"

    def _fill_alternatives(self, row: TextureRow, report: Report) -> None:
        settings = report.settings
        alts = alt_mod.alternatives(row.plan, row.facts, platform=settings.policy.platform, model=settings.budget.allocation_model)
        self._alts = {}
        rows = []
        stored = self._stored(row)
        for a in alts:
            key = f"{a.gpu_format}|{a.max_size}|{a.mips}"
            self._alts[key] = a
            mark = "● " if a.current else ""
            if stored and a.gpu_format != row.plan.gpu_format:
                mark = "re-export: "  # a rule cannot change what a DDS/KTX stores
            saves = "current" if a.current else human_bytes(a.saves_bytes, signed=True)
            style = "bold" if a.current else ("green" if a.saves_bytes > 0 else "")
            rows.append((key, (
                Cell(Text(mark + a.gpu_format, style=style, no_wrap=True), a.gpu_format),
                right(str(a.max_size) if a.max_size else "full", a.max_size or 1 << 30),
                right(f"{a.width}x{a.height}", a.width * a.height),
                right(str(a.levels), a.levels),
                bytes_cell(a.allocated_bytes),
                right(saves, a.saves_bytes, style),
            )))
        table = self.query_one("#asset-alts", AltTable)
        table.sync(rows)
        table.border_title = "Alternatives (Enter: use as what-if)"

    # --- what-if --------------------------------------------------------------------------

    def _stored(self, row: TextureRow) -> bool:
        return bool(row.facts.stored_format) and not row.facts.transcodable

    def _fill_options(self, row: TextureRow, report: Report) -> None:
        self._options_for = self.key
        platform = report.settings.policy.platform
        formats = alt_mod.candidate_formats(row.plan, row.facts, platform)
        longest = max(row.facts.width, row.facts.height, row.facts.depth)
        sizes = [s for s in alt_mod.max_sizes(longest) if s is not None]
        current = self.host.what_ifs.get(self.key, {})
        fmt = self.query_one("#wf-format", Select)
        fmt.set_options([(f, f) for f in formats])
        size = self.query_one("#wf-size", Select)
        size.set_options([(f"full size ({longest})", NO_CAP)] + [(str(s), str(s)) for s in sizes])
        mips = self.query_one("#wf-mips", Checkbox)
        with self.prevent(Select.Changed, Checkbox.Changed):
            fmt.value = current.get("format", Select.NULL) if current.get("format") in formats else Select.NULL
            cap = current.get("max_size")
            size.value = (NO_CAP if cap == LIFT_CAP else str(cap)) if cap else Select.NULL
            mips.value = cast(bool, current.get("mips", row.plan.mips != "none"))  # a what-if's mips is a bool
        stored = self._stored(row)
        fmt.disabled = stored
        mips.disabled = stored

    def _what_if(self) -> dict[str, object]:
        out: dict[str, object] = {}
        fmt = self.query_one("#wf-format", Select).value
        if fmt is not Select.NULL and not self.query_one("#wf-format", Select).disabled:
            out["format"] = fmt
        size = self.query_one("#wf-size", Select).value
        if size == NO_CAP:
            if self._decided_cap() is not None:  # lift the cap a rule or the engine set
                out["max_size"] = LIFT_CAP
        elif size is not Select.NULL:
            out["max_size"] = int(cast(str, size))  # a size option (str): Select.NULL is ruled out above
        row = find_row(self.report, self.key)
        mips = self.query_one("#wf-mips", Checkbox)
        previous = self.host.what_ifs.get(self.key, {})
        decided = isinstance(row, TextureRow) and (row.plan.mips != "none")
        if not mips.disabled and ("mips" in previous or mips.value != decided):
            out["mips"] = mips.value
        return out

    def _decided_cap(self) -> int | None:
        decided = self.host.decided_cost(self.key)
        return decided.plan.max_size if decided is not None else None

    def on_select_changed(self, event: Select.Changed) -> None:
        self.host.set_what_if(self.key, self._what_if())

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.host.set_what_if(self.key, self._what_if())

    def _show_effect(self, row: TextureRow) -> None:
        effect = self.query_one("#wf-effect", Static)
        what_if = self.host.what_ifs.get(self.key)
        decided = self.host.decided_cost(self.key)
        text = Text()
        if self._stored(row):
            text.append(f"The file stores {row.facts.stored_format}: only a size cap applies (re-export to change format or mips).\n", style="dim")
        if not what_if:
            text.append("no what-if: pick a format, a size cap or mips, or Enter on an alternative")
        else:
            words = ", ".join(f"{k} {v}" for k, v in what_if.items())
            now = row.cost.allocated_bytes
            text.append(f"what-if {words}: {human_bytes(now)}", style="bold")
            if decided is not None:
                saved = decided.allocated_bytes - now
                text.append(f" (was {human_bytes(decided.allocated_bytes)}, ")
                text.append(f"{'saves' if saved >= 0 else 'costs'} {human_bytes(abs(saved))}",
                            style="bold green" if saved > 0 else "bold red" if saved < 0 else "")
                text.append(")")
            text.append("\nw writes it to " + self.host.config_target.name + ", x resets it")
        effect.update(text)

    # --- actions --------------------------------------------------------------------------

    def action_choose(self) -> None:
        table = self.query_one("#asset-alts", AltTable)
        if self.focused is not table:
            return
        alt = self._alts.get(table.cursor_key or "")
        row = find_row(self.report, self.key)
        if alt is None or not isinstance(row, TextureRow):
            return
        self._apply_alternative(alt, row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "asset-alts":
            event.stop()
            alt = self._alts.get(str(event.row_key.value))
            row = find_row(self.report, self.key)
            if alt is not None and isinstance(row, TextureRow):
                self._apply_alternative(alt, row)

    def _apply_alternative(self, alt: alt_mod.Alternative, row: TextureRow) -> None:
        what_if: dict[str, object] = {}
        if not self._stored(row) and alt.gpu_format != row.plan.gpu_format:
            what_if["format"] = alt.gpu_format
        if alt.max_size is not None:
            what_if["max_size"] = alt.max_size
        elif self._decided_cap() is not None:
            what_if["max_size"] = LIFT_CAP
        if not self._stored(row) and alt.mips != (row.plan.mips != "none"):
            what_if["mips"] = alt.mips
        if alt.current:
            what_if = dict(self.host.what_ifs.get(self.key, {}))
        with self.prevent(Select.Changed, Checkbox.Changed):
            fmt = self.query_one("#wf-format", Select)
            if "format" in what_if:
                fmt.value = what_if["format"]
            size = self.query_one("#wf-size", Select)
            cap = what_if.get("max_size")
            size.value = (NO_CAP if cap == LIFT_CAP else str(cap)) if cap else Select.NULL
        self.host.set_what_if(self.key, what_if)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_write(self) -> None:
        self.host.write_what_if(self.key)

    def action_reset(self) -> None:
        self._options_for = None
        self.host.set_what_if(self.key, {})
