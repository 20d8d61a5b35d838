"""Pilot tests: every key and screen of the TUI, with the fake scanner (state first)."""

from __future__ import annotations

import re
import threading

import pytest

from texbudget import alternatives, pipeline
from texbudget.tui.app import make_app
from texbudget.tui.screens.asset import AltTable, AssetScreen
from texbudget.tui.screens.help import HelpScreen
from texbudget.tui.screens.main import MainScreen
from texbudget.tui.screens.picker import PickerScreen
from texbudget.tui.widgets.assets import SORTS, AssetTable, FolderTable
from texbudget.tui.widgets.breakdown import Breakdown
from texbudget.tui.widgets.cells import Cell
from texbudget.tui.widgets.findings import FindingTable
from texbudget.tui.widgets.matrix import VerdictMatrix
from texbudget.units import human_bytes

from .conftest import ROOT, FakeScanner, make_config, settle

SIZE = (120, 40)


def app_for(settings, config, scanner=None, **kw):
    return make_app(settings, ROOT, config, scanner=scanner or FakeScanner(), watch=False, **kw)


def rows(table) -> list[str]:
    return [str(r.key.value) for r in table.ordered_rows]


def cell(table, row: str, col: str) -> str:
    return str(table.get_cell(row, col))


async def pick(pilot, app, key: str, label: str) -> None:
    """Press ``key``, then choose the option whose label is ``label`` in the picker."""
    await pilot.press(key)
    await pilot.pause()
    picker = app.screen
    assert isinstance(picker, PickerScreen)
    index = [o.label for o in picker.options].index(label)
    options = picker.query_one("#picker-list")
    options.highlighted = index
    await pilot.press("enter")
    await settle(app, pilot)


# --- scanning ---------------------------------------------------------------------------------


async def test_scan_fills_the_main_screen(settings, config):
    scanner = FakeScanner()
    app = app_for(settings, config, scanner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert len(scanner.calls) == 1 and scanner.calls[0] is None
        report = screen.report
        assert report is app.report
        assert len(report.textures) == 8 and len(report.meshes) == 2
        matrix = screen.query_one(VerdictMatrix)
        assert matrix.row_count == 4  # 1080p, 4k × RT off, nvidia
        assert [str(c.key.value) for c in matrix.ordered_columns] == ["scenario", "1GB", "1.85GB", "8GB"]
        assert cell(matrix, "s3", "1.85GB").startswith("! ")  # 4k RT nvidia is tight on 1.85 GB
        assert cell(matrix, "s0", "1GB").startswith("✗ ")
        assert cell(matrix, "s0", "8GB").startswith("✓ ")
        tree = screen.query_one(FolderTable)
        assert rows(tree) == ["textures/", "level.glb/"]
        status = str(screen.status.query_one("#scan-label").render())
        assert status == "9 files · 8 textures · 2 meshes"


async def test_batches_fill_in_while_the_scan_runs(settings, config):
    gate = threading.Event()
    scanner = FakeScanner(batches=3, gate=gate)
    app = app_for(settings, config, scanner)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause(0.02)
            if app.report is not None and len(app.report.textures) == 4:
                break
        # the first half is on screen and the screen answers keys while the scan waits
        assert app.scanning
        assert len(app.screen.report.textures) == 4
        assert app.screen.query_one("#scan-progress").display
        await pilot.press("v")
        assert app.screen.view == "tree"
        await pilot.press("v")
        gate.set()
        await settle(app, pilot)
        assert not app.scanning
        assert len(app.screen.report.textures) == 8
        assert not app.screen.query_one("#scan-progress").display
        assert app.screen.query_one(AssetTable).row_count == 10


async def test_a_failing_scanner_is_reported_and_the_app_lives_on(settings, config):
    app = app_for(settings, config, FakeScanner(fail=OSError("disk on fire")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        label = str(app.screen.status.query_one("#scan-label").render())
        assert label == "✗ the scan failed: disk on fire"
        assert not app.scanning
        await pilot.press("v")  # still answering
        assert app.screen.view == "tree"


async def test_f5_rescans_and_keeps_the_selection(settings, config):
    scanner = FakeScanner()
    app = app_for(settings, config, scanner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(AssetTable)
        table.move_to_key("textures/props/crate_normal.png")
        await pilot.press("f5")
        await settle(app, pilot)
        assert len(scanner.calls) == 2
        assert app.scans == 2
        assert table.cursor_key == "textures/props/crate_normal.png"


# --- switches: recompute from facts, never rescan ------------------------------------------------


async def test_r_l_t_p_c_u_switch_and_never_rescan(settings, config):
    scanner = FakeScanner()
    app = app_for(settings, config, scanner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = app.evaluations

        await pick(pilot, app, "r", "4k")
        assert app.screen.report.settings.budget.resolutions == ("3840x2160",)
        assert app.screen.query_one(VerdictMatrix).row_count == 2

        await pick(pilot, app, "l", "high")
        report = app.screen.report
        assert report.settings.budget.quality == ("high",)
        crate = next(t for t in report.textures if t.facts.path == "textures/props/crate_albedo.png")
        assert crate.plan.tier_drop == 1
        assert crate.cost.mips[0].width == 1024

        await pick(pilot, app, "t", "off")
        assert app.screen.report.settings.budget.rt == ("off",)
        assert app.screen.query_one(VerdictMatrix).row_count == 1

        await pick(pilot, app, "p", "mobile-astc")
        report = app.screen.report
        assert report.settings.policy.platform == "mobile-astc"
        crate = next(t for t in report.textures if t.facts.path == "textures/props/crate_albedo.png")
        assert crate.plan.gpu_format.startswith("ASTC_")

        await pick(pilot, app, "c", "8GB, 12GB, 16GB, 24GB")
        matrix = app.screen.query_one(VerdictMatrix)
        assert [str(c.key.value) for c in matrix.ordered_columns][1:] == ["8GB", "12GB", "16GB", "24GB"]

        await pick(pilot, app, "u", "performance")
        assert app.screen.report.scenarios[0].render_scale == 0.5

        await pick(pilot, app, "r", "as configured: 1080p, 4k")
        assert app.screen.report.settings.budget.resolutions == ("1920x1080", "3840x2160")

        assert len(scanner.calls) == 1  # facts read once
        assert app.evaluations == before + 7


async def test_t_offers_off_and_each_vendor(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        labels = [o.label for o in app.screen.options]
        assert labels[:5] == ["as configured: off, nvidia", "off", "nvidia", "amd", "intel"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await pick(pilot, app, "t", "amd")
        assert app.screen.report.settings.budget.rt == ("amd",)
        assert {s.rt for s in app.screen.report.scenarios} == {"amd"}


async def test_escape_in_a_picker_changes_nothing(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = app.evaluations
        await pilot.press("l")
        await pilot.pause()
        await pilot.press("down", "escape")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.evaluations == before
        assert app.choices.overrides == {}


async def test_a_switch_keeps_the_selected_asset(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(AssetTable)
        table.move_to_key("textures/props/crate_orm.png")
        await pick(pilot, app, "l", "low")
        assert table.cursor_key == "textures/props/crate_orm.png"
        assert cell(table, "textures/props/crate_orm.png", "mips") == "8"  # 11 levels, low drops 3


# --- browser ------------------------------------------------------------------------------------


async def test_v_switches_tree_and_table_and_s_sorts(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.view == "table"  # biggest assets first, at once
        table = screen.query_one(AssetTable)
        assert table.has_focus
        by_vram = rows(table)
        assert by_vram[:2] == ["textures/buildings/wall_albedo.ktx2", "textures/buildings/wall_normal.dds"]
        assert by_vram[-1] == "level.glb#mesh/0"
        assert cell(table, "textures/buildings/wall_albedo.ktx2", "vram") == "21.38 MiB"
        assert cell(table, "textures/buildings/wall_albedo.ktx2", "share") == " 31.2%"
        assert cell(table, "textures/props/crate_albedo.png", "used_by") == "level.glb#material/0"
        await pilot.press("s")
        assert table.sort_index == 1 and SORTS[1][0] == "name"
        assert rows(table) == sorted(by_vram)
        for _ in range(len(SORTS) - 1):
            await pilot.press("s")
        assert table.sort_index == 0
        assert rows(table) == by_vram
        await pilot.press("v")
        assert screen.view == "tree"
        tree = screen.query_one(FolderTable)
        assert tree.has_focus
        await pilot.press("s")
        assert tree.by_name and rows(tree) == ["level.glb/", "textures/"]


async def test_tree_enter_goes_in_backspace_goes_up_enter_opens(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        tree = app.screen.query_one(FolderTable)
        assert tree.has_focus
        assert cell(tree, "textures/", "vram") == "67.56 MiB"  # level.glb#image/0 is in level.glb/
        await pilot.press("enter")  # into textures/
        assert tree.folder == "textures"
        # 42.75 MiB, 8.76 MiB, 8.06 MiB, 8.00 MiB: biggest first
        assert rows(tree) == ["..", "textures/buildings/", "textures/props/", "textures/env/", "textures/ui/"]
        tree.move_to_key("textures/props/")
        await pilot.press("enter")
        assert tree.folder == "textures/props"
        assert rows(tree)[1:] == ["textures/props/crate_normal.png", "textures/props/crate_albedo.png",
                                  "textures/props/crate_orm.png"]
        await pilot.press("backspace")
        assert tree.folder == "textures"
        assert tree.cursor_key == "textures/props/"  # lands on the folder it left
        await pilot.press("escape")  # Escape goes up too
        assert tree.folder == ""
        tree.move_to_key("level.glb/")
        await pilot.press("enter")
        assert rows(tree)[1:] == ["level.glb#mesh/1", "level.glb#image/0", "level.glb#mesh/0"]
        tree.move_to_key("level.glb#mesh/1")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, AssetScreen) and app.screen.key == "level.glb#mesh/1"
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert tree.folder == "level.glb"


async def test_slash_filters_by_path_format_or_role_and_escape_clears(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        box = app.screen.query_one("#filter")
        assert box.display and box.has_focus
        await pilot.press(*"normal")
        await settle(app, pilot)
        table = app.screen.query_one(AssetTable)
        assert sorted(rows(table)) == ["textures/buildings/wall_normal.dds", "textures/props/crate_normal.png"]
        assert app.screen.filter_text == "normal"
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.filter_text == "" and table.row_count == 10
        await pilot.press("slash", *"bc1", "enter")  # a format; Enter keeps the filter and goes back
        await settle(app, pilot)
        assert sorted(rows(table)) == ["level.glb#image/0", "textures/props/crate_albedo.png", "textures/props/crate_orm.png"]
        assert table.has_focus
        await pilot.press("escape")  # Escape on the screen clears it
        await pilot.press("slash", *"mask", "enter")  # a role
        await settle(app, pilot)
        assert rows(table) == ["textures/props/crate_orm.png"]


async def test_f_shows_findings_with_hints(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        screen = app.screen
        assert screen.view == "findings"
        table = screen.query_one(FindingTable)
        assert table.has_focus
        assert [cell(table, k, "code") for k in rows(table)] == ["TB040", "TB006"]  # errors first
        assert cell(table, rows(table)[0], "severity") == "✗ error"
        hint = str(screen.query_one("#finding-hint").render())
        assert hint.startswith("TB040 broken/empty.dds: the file is empty (0 bytes)\nhint: ")
        await pilot.press("down")
        hint = str(screen.query_one("#finding-hint").render())
        assert "TB006 textures/buildings/wall_normal.dds" in hint
        await pilot.press("f")
        assert screen.view == "table"
        await pilot.press("f", "escape")
        assert screen.view == "table"


async def test_matrix_cell_selects_the_breakdown(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        matrix = screen.query_one(VerdictMatrix)
        matrix.focus()
        await pilot.press("down", "down", "down", "right")
        assert screen.selected == (3, "1.85GB")
        text = str(screen.query_one(Breakdown).render())
        card = screen.report.scenarios[3].cards[1]
        assert card.verdict == "tight" and card.name == "1.85GB"
        assert text.startswith(f"! tight  4k RT nvidia on 1.85GB: 1.09 GiB of 1.10 GiB, {human_bytes(card.free_bytes)} free")
        assert "█ textures 67.75 MiB" in text
        assert screen.query_one(Breakdown).has_class("-tight")
        await pilot.press("left")
        assert screen.query_one(Breakdown).has_class("-over")


async def test_help_lists_every_key(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = {k for _, section in app.screen.sections for k, _ in section}
        for key in ("r", "l", "t", "p", "c", "v", "s", "/", "f", "F5", "Enter", "Esc", "q", "?", "w", "x", "Backspace"):
            assert key in keys, key
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_every_main_key_is_in_the_footer(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        shown = {b.key for _, b, _, _ in app.screen.active_bindings.values() if b.show}
        for key in ("r", "l", "t", "p", "c", "v", "s", "slash", "f", "f5", "enter", "escape", "q", "question_mark"):
            assert key in shown, key


async def test_q_quits(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running


# --- asset screen and what-if -------------------------------------------------------------------


async def open_asset(pilot, app, key: str) -> AssetScreen:
    if app.screen.view != "table":
        await pilot.press("v")
    app.screen.query_one(AssetTable).move_to_key(key)
    await pilot.press("enter")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, AssetScreen) and screen.key == key
    return screen


async def test_asset_screen_shows_facts_decision_mips_and_alternatives(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        screen = await open_asset(pilot, app, "textures/props/crate_albedo.png")
        facts = screen.query_one("#asset-facts").render()
        mips = screen.query_one("#asset-mips")
        assert mips.row_count == 12  # 2048 → 1
        assert cell(mips, "0", "bytes") == "2.00 MiB"
        assert cell(mips, "0", "dims") == "2048x2048"
        alts = screen.query_one(AltTable)
        row = next(t for t in app.report.textures if t.facts.path == "textures/props/crate_albedo.png")
        expected = alternatives.alternatives(row.plan, row.facts, platform="desktop", model="d3d12")
        assert alts.row_count == len(expected)
        current = next(a for a in expected if a.current)
        key = f"{current.gpu_format}|{current.max_size}|{current.mips}"
        assert cell(alts, key, "saves") == "current"
        assert screen.query_one(VerdictMatrix).row_count == 4
        assert facts is not None


async def test_what_if_updates_the_matrix_live_and_w_writes_a_rule(settings, tmp_path):
    path = tmp_path / "texbudget.toml"
    path.write_text("# our budget\n[budget]\ncards = [\"1GB\", \"1.85GB\", \"8GB\"]  # keep\n", encoding="utf-8")
    config = make_config(path=path)
    app = make_app(settings, ROOT, config, scanner=FakeScanner(), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        before = app.report.scenarios[0].total_bytes
        was = next(t for t in app.report.textures if t.facts.path == "textures/props/crate_normal.png").cost
        screen = await open_asset(pilot, app, "textures/props/crate_normal.png")
        size = screen.query_one("#wf-size")
        size.value = "512"
        await settle(app, pilot)
        assert app.what_ifs == {"textures/props/crate_normal.png": {"max_size": 512}}
        row = next(t for t in screen.report.textures if t.facts.path == "textures/props/crate_normal.png")
        assert (row.plan.width, row.plan.max_size) == (512, 512)
        assert row.plan.decided_by == "glTF slot normalTexture → normal → BC5_UNORM (desktop); rule 1 in what-if: max_size 512"
        saved = was.allocated_bytes - row.cost.allocated_bytes
        assert (was.allocated_bytes, row.cost.allocated_bytes) == (5_636_096, 393_216)  # 2048² and 512² BC5, D3D12
        assert screen.report.scenarios[0].total_bytes == before - saved
        effect = str(screen.query_one("#wf-effect").render())
        assert "what-if max_size 512:" in effect and f"saves {human_bytes(saved)}" in effect
        assert "what-if: 1 unsaved" in str(app.main_screen.query_one("#settings").render())

        await pilot.press("w")
        await settle(app, pilot)
        assert app.what_ifs == {}
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# our budget\n[budget]\ncards = [\"1GB\", \"1.85GB\", \"8GB\"]  # keep\n\n# texbudget tui what-if")
        assert text.endswith('[[rule]]\nmatch = "textures/props/crate_normal.png"\nmax_size = 512\n')
        row = next(t for t in screen.report.textures if t.facts.path == "textures/props/crate_normal.png")
        assert row.plan.width == 512
        assert row.plan.decided_by.endswith("; rule 2 in texbudget.toml: max_size 512")
        assert screen.report.scenarios[0].total_bytes == before - saved


async def test_x_resets_and_escape_keeps_the_what_if(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        before = app.report.scenarios[0].total_bytes
        screen = await open_asset(pilot, app, "textures/props/crate_albedo.png")
        screen.query_one("#wf-format").value = "BC7_SRGB"
        await settle(app, pilot)
        row = next(t for t in app.report.textures if t.facts.path == "textures/props/crate_albedo.png")
        assert row.plan.gpu_format == "BC7_SRGB"
        assert app.report.scenarios[0].total_bytes > before  # BC7 is twice BC1
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert app.what_ifs  # kept until reset or written
        await open_asset(pilot, app, "textures/props/crate_albedo.png")
        assert app.screen.query_one("#wf-format").value == "BC7_SRGB"
        await pilot.press("x")
        await settle(app, pilot)
        assert app.what_ifs == {}
        assert app.report.scenarios[0].total_bytes == before


async def test_enter_on_an_alternative_is_the_what_if(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        screen = await open_asset(pilot, app, "textures/props/crate_orm.png")
        row = next(t for t in app.report.textures if t.facts.path == "textures/props/crate_orm.png")
        alts = alternatives.alternatives(row.plan, row.facts, platform="desktop", model="d3d12")
        alt = next(a for a in alts if a.gpu_format == "BC7_UNORM" and a.max_size == 512)
        table = screen.query_one(AltTable)
        table.focus()
        table.move_to_key(f"{alt.gpu_format}|{alt.max_size}|{alt.mips}")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.what_ifs["textures/props/crate_orm.png"] == {"format": "BC7_UNORM", "max_size": 512}
        now = next(t for t in app.report.textures if t.facts.path == "textures/props/crate_orm.png")
        expected = alternatives.apply_alternative(row.plan, alt)
        assert (now.plan.gpu_format, now.plan.width, now.plan.height, now.plan.levels) == (
            expected.gpu_format, expected.width, expected.height, expected.levels)
        assert now.cost.allocated_bytes == alt.allocated_bytes


async def test_stored_textures_offer_only_a_size_cap(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        screen = await open_asset(pilot, app, "textures/buildings/wall_albedo.ktx2")
        assert screen.query_one("#wf-format").disabled
        assert screen.query_one("#wf-mips").disabled
        screen.query_one("#wf-size").value = "2048"
        await settle(app, pilot)
        row = next(t for t in app.report.textures if t.facts.path == "textures/buildings/wall_albedo.ktx2")
        assert (row.plan.width, row.plan.levels, row.cost.allocated_bytes) == (2048, 12, 5_636_096)


async def test_w_without_a_what_if_writes_nothing(settings, tmp_path):
    config = make_config(path=tmp_path / "texbudget.toml")
    app = make_app(settings, ROOT, config, scanner=FakeScanner(), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        await open_asset(pilot, app, "textures/props/crate_orm.png")
        await pilot.press("w")
        await settle(app, pilot)
        assert not (tmp_path / "texbudget.toml").exists()


async def test_mesh_asset_screen(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        screen = await open_asset(pilot, app, "level.glb#mesh/1")
        assert not screen.query_one("#whatif").display
        from rich.console import Console

        console = Console(width=120, record=True)
        console.print(screen.query_one("#asset-facts").content)
        text = console.export_text()
        assert "20,002 vertices, 20,000 triangles, 60,000 indices" in text
        assert re.search(r"^instances +6 *$", text, re.M)


async def test_80x24_fits_the_matrix_symbols(settings, config):
    app = app_for(settings, config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        matrix = app.screen.query_one(VerdictMatrix)
        assert matrix.size.width <= 80
        assert cell(matrix, "s0", "1GB") == "✗ 0.3/0.2 -26M"  # symbol, used/usable GiB, margin
        assert app.screen.query_one(AssetTable).size.height >= 4  # the browser keeps room at 80x24


def test_make_app_is_the_factory(settings, config):
    scanner = FakeScanner()
    app = make_app(settings, ROOT, config, None, scanner)
    assert app.scanner is scanner and app.root == ROOT and app.config is config
    assert app.base_settings is settings


@pytest.mark.parametrize("quality", ["ultra", "low"])
def test_settings_follow_the_choices(settings, quality):
    from texbudget.tui import state

    choices = state.Choices().set("quality", (quality,))
    got = state.apply(settings, choices)
    assert got.budget.quality == (quality,) and got.policy.quality == quality
    assert state.apply(settings, choices.set("quality", None, configured=True)).budget.quality == ("ultra",)


async def test_full_size_lifts_a_configured_cap_and_survives_reopening(tmp_path):
    raw = {"budget": {"cards": ["8GB"], "resolutions": ["1080p"], "rt": ["off"]},
           "rule": [{"match": "crate_albedo.png", "max_size": 1024}]}
    config = make_config(raw)
    settings = pipeline.build_settings(config)
    app = make_app(settings, ROOT, config, scanner=FakeScanner(), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        key = "textures/props/crate_albedo.png"
        assert next(t for t in app.report.textures if t.facts.path == key).plan.width == 1024
        screen = await open_asset(pilot, app, key)
        screen.query_one("#wf-size").value = "none"
        await settle(app, pilot)
        assert app.what_ifs == {key: {"max_size": 65536}}
        assert next(t for t in app.report.textures if t.facts.path == key).plan.width == 2048
        await pilot.press("escape")
        screen = await open_asset(pilot, app, key)
        assert screen.query_one("#wf-size").value == "none"
        # an uncapped texture: "full size" is no change, so no what-if
        await pilot.press("escape")
        screen = await open_asset(pilot, app, "textures/props/crate_normal.png")
        screen.query_one("#wf-size").value = "none"
        await settle(app, pilot)
        assert "textures/props/crate_normal.png" not in app.what_ifs


async def test_hostile_names_are_shown_as_written(settings, config):
    """A file name with an escape sequence and markup, a glTF mesh and finding with markup:
    shown escaped and literal everywhere (tables, the asset screen, the finding's hint);
    Rich never reads them as markup (a stray "[/x]" would raise) and the terminal never acts
    on them."""
    from rich.console import Console

    from texbudget import findings as findings_mod
    from texbudget.model import evolve
    from texbudget.scan.scene import Scan

    from .conftest import SCAN

    evil = "textures/[/x]evil\x1b[2J\x1b]0;t\x07.png"
    shown = "textures/[/x]evil\\x1b[2J\\x1b]0;t\\x07.png"
    tex = evolve(SCAN.textures[1], path=evil)
    mesh = evolve(SCAN.meshes[0], name="[/x][bold]crate\x1b[2J")
    finding = findings_mod.make(evil, "TB043", "cut [/x] short\x1b[2J")
    scan = Scan(root=ROOT, textures=(*SCAN.textures, tex), meshes=(mesh, *SCAN.meshes[1:]), scenes=SCAN.scenes,
                findings=(*SCAN.findings, finding), files=(*SCAN.files, evil))
    app = app_for(settings, config, scanner=FakeScanner(scan))

    def text_of(renderable) -> str:
        console = Console(width=200, record=True, color_system=None)
        console.print(renderable)
        return console.export_text()

    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        if app.screen.view != "table":
            await pilot.press("v")
        table = app.screen.query_one(AssetTable)
        names = [c.plain for c in table.get_row(evil) if isinstance(c, Cell) and "evil" in c.plain]
        assert names and all("\x1b" not in n and "\\x1b[2J" in n for n in names)
        screen = await open_asset(pilot, app, evil)
        title = text_of(screen.query_one("#asset-title").render())
        assert shown in title and "\x1b" not in title
        await pilot.press("escape")
        await settle(app, pilot)
        screen = await open_asset(pilot, app, mesh.path)
        facts = text_of(screen.query_one("#asset-facts").content)
        assert "[/x][bold]crate\\x1b[2J" in facts and "\x1b" not in facts
        await pilot.press("escape")
        await settle(app, pilot)
        findings = app.screen.query_one(FindingTable)
        messages = [c.plain for key in findings.rows for c in findings.get_row(key) if isinstance(c, Cell)]
        assert "cut [/x] short\\x1b[2J" in messages and shown in messages
        assert not any("\x1b" in m for m in messages)
