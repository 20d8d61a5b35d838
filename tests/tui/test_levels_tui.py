"""Levels in the TUI: the level picker (``m``) switches the whole screen to one level, a
settings switch keeps it, a rescan keeps it while it is still a level, and ``tui LEVEL`` opens
on that level (read alone first) with the project's other levels to pick.

The Godot demo project (assets/godot_demo, its levels written out in
tests/integration/test_demo.py) and the hand-made projects of tests/integration/level_projects.py
are read by the real scanner and resolver."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.integration import level_projects as lp
from tests.integration.test_demo import GODOT, HARBOR_MESHES, MARKET_MESHES, MARKET_TEXTURES
from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.cli import main
from texbudget.levels.reading import LevelReader
from texbudget.tui.app import make_app
from texbudget.tui.scanning import read_in_batches
from texbudget.tui.screens.asset import AssetScreen
from texbudget.tui.screens.help import HelpScreen
from texbudget.tui.screens.main import MainScreen
from texbudget.tui.screens.picker import PickerScreen
from texbudget.tui.widgets.settings_bar import SettingsBar

from .conftest import settle

#: The demo's picker, in order: the whole scan, then the levels found in the project (its main
#: scene first, then the scenes no other scene instances, by path).
DEMO_OPTIONS = [
    "whole scan: 15 textures, 5 meshes",
    "main_menu: menu/main_menu.tscn · 1 texture, 0 meshes · found",
    "harbor: levels/harbor.tscn · 10 textures, 5 meshes (71 instances) · found",
    "market: levels/market.tscn · 10 textures, 5 meshes (119 instances) · found",
]
#: The market's textures on the desktop profile at ultra (allocated: D3D12 placement)
MARKET_ALLOCATED = 48_693_248


class CountingScanner:
    """The real scanner, counting the scans it is asked for (a switch must read nothing)."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def __call__(self, root, config, paths, progress=None):
        self.calls.append(paths)
        return read_in_batches(root, config, paths, progress=progress)


def demo_app(root: Path = GODOT, config=None, scanner=None, **kw):
    config = config or config_mod.load(None)
    return make_app(pipeline.build_settings(config), root, config, None, scanner or CountingScanner(), watch=False, **kw)


async def choose(pilot, app, label: str) -> None:
    """Open the level picker and choose ``label`` with the arrow keys."""
    await pilot.press("m")
    await pilot.pause()
    picker = app.screen
    assert isinstance(picker, PickerScreen)
    labels = [o.label for o in picker.options]
    steps = labels.index(label) - picker.current
    for _ in range(abs(steps)):
        await pilot.press("down" if steps > 0 else "up")
    await pilot.press("enter")
    await settle(app, pilot)


def bar_text(app) -> str:
    return str(app.screen.query_one(SettingsBar).render())


async def test_the_picker_switches_the_whole_screen_to_a_level_and_back():
    scanner = CountingScanner()
    app = demo_app(scanner=scanner)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.resolutions == 1 and [s.source for s in app.level_sets] == ["auto"]
        assert len(app.report.textures) == 15 and app.level is None
        # the whole scan as `texbudget scan` counts it: the engine materials' textures used,
        # the meshes the levels place with every level's instances
        assert [(f.path, f.code) for f in app.report.findings] == [("textures/test/uv_checker.png", "TB006")]
        assert {m.facts.path: m.instances for m in app.report.meshes} == {
            p: MARKET_MESHES[p] + HARBOR_MESHES[p] for p in MARKET_MESHES}
        assert bar_text(app).startswith("whole scan │ platform desktop")
        assert app.screen.level == ("", "")
        shown = {b.key for _, b, _, _ in app.screen.active_bindings.values() if b.show}
        assert "m" in shown  # the scan has levels: the key is in the footer
        evaluations = app.evaluations

        await pilot.press("m")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [o.label for o in picker.options] == DEMO_OPTIONS
        assert picker.current == 0  # the whole scan is in force
        await pilot.press("escape")
        await pilot.pause()

        await choose(pilot, app, DEMO_OPTIONS[3])
        assert app.level == ("auto", "market")
        report = app.report
        assert {m.facts.path: m.instances for m in report.meshes} == MARKET_MESHES
        assert {t.facts.path for t in report.textures} == MARKET_TEXTURES
        assert report.scenarios[0].bytes["textures"] == MARKET_ALLOCATED
        assert report.findings == ()
        main_screen = app.screen
        assert isinstance(main_screen, MainScreen)
        # every part of the screen is the level's: the bar, the browser rows, the title
        assert main_screen.level == ("market", "levels/market.tscn")
        assert bar_text(app).startswith("level market levels/market.tscn │ platform desktop")
        assert app.title == "texbudget: godot_demo · level market"
        assert main_screen.browse is not None
        assert sorted(r.key for r in main_screen.browse.rows if not r.mesh) == sorted(MARKET_TEXTURES)
        assert app.evaluations == evaluations + 1 and len(scanner.calls) == 1 and app.resolutions == 1

        # a settings switch keeps the level (and reads nothing)
        app.choices = app.choices.set("quality", ("low",), False)
        app.evaluate_now()
        await settle(app, pilot)
        assert app.level == ("auto", "market") and app.report.scenarios[0].quality == "low"
        assert {m.facts.path: m.instances for m in app.report.meshes} == MARKET_MESHES
        assert len(scanner.calls) == 1

        # the picker marks the level in force; another level, then the whole scan again
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.current == 3
        await pilot.press("escape")
        await pilot.pause()
        await choose(pilot, app, DEMO_OPTIONS[2])
        assert {m.facts.path: m.instances for m in app.report.meshes} == HARBOR_MESHES
        await choose(pilot, app, DEMO_OPTIONS[0])
        assert app.level is None and len(app.report.textures) == 15
        assert app.title == "texbudget: godot_demo" and len(scanner.calls) == 1


async def test_a_what_if_applies_inside_a_level():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose(pilot, app, DEMO_OPTIONS[3])
        key = "textures/cobble_normal.png"
        before = next(t for t in app.report.textures if t.facts.path == key)
        assert before.cost.allocated_bytes == 22_413_312  # BC5 4096², full chain
        decided = app.decided_cost(key)
        assert decided is not None and decided.allocated_bytes == 22_413_312
        app.set_what_if(key, {"max_size": 1024})
        await settle(app, pilot)
        after = next(t for t in app.report.textures if t.facts.path == key)
        assert after.cost.allocated_bytes == 1_441_792  # BC5 1024², full chain
        assert app.report.scenarios[0].bytes["textures"] == MARKET_ALLOCATED - 22_413_312 + 1_441_792
        assert app.level == ("auto", "market")


async def test_f5_keeps_the_level_and_a_level_that_is_gone_goes_back_to_the_whole_scan(tmp_path):
    root = tmp_path / "godot_demo"
    shutil.copytree(GODOT, root)
    scanner = CountingScanner()
    app = demo_app(root, scanner=scanner)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose(pilot, app, DEMO_OPTIONS[2])
        await pilot.press("f5")
        await settle(app, pilot)
        assert len(scanner.calls) == 2 and app.resolutions == 2
        assert app.level == ("auto", "harbor")
        assert {m.facts.path: m.instances for m in app.report.meshes} == HARBOR_MESHES

        (root / "levels" / "harbor.tscn").unlink()
        await pilot.press("f5")
        await settle(app, pilot)
        assert app.resolutions == 3 and app.level is None
        assert [lv.name for s in app.level_sets for lv in s.levels] == ["main_menu", "market"]
        assert len(app.report.textures) == 15  # the whole scan, which still holds every texture


async def test_tui_level_opens_on_the_level_and_offers_the_project_s_others():
    scanner = CountingScanner()
    app = demo_app(scanner=scanner, level="levels/market.tscn")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert scanner.calls == [None]  # the whole project is scanned, not only the level's file
        assert app.level == ("auto", "market")  # the project's market now (it was read alone first)
        assert [s.source for s in app.level_sets] == ["auto"]
        assert {m.facts.path: m.instances for m in app.report.meshes} == MARKET_MESHES
        assert app.report.scenarios[0].bytes["textures"] == MARKET_ALLOCATED
        await pilot.press("m")
        await pilot.pause()
        assert [o.label for o in app.screen.options] == DEMO_OPTIONS and app.screen.current == 3
        await pilot.press("escape")
        await choose(pilot, app, DEMO_OPTIONS[0])
        assert app.level is None and len(app.report.textures) == 15


async def test_tui_level_shows_the_level_before_the_project_is_read():
    """The named level is read alone and shown first: its report is on screen while the
    project's scan has not given a file yet."""
    import threading

    gate = threading.Event()

    class Held(CountingScanner):
        def __call__(self, root, config, paths, progress=None):
            self.calls.append(paths)
            gate.wait(10)
            return read_in_batches(root, config, paths, progress=progress)

    app = demo_app(scanner=Held(), level="levels/harbor.tscn")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause()
            if app.report is not None:
                break
        assert app.scanning and len(app.scan.files) == 0
        assert [s.source for s in app.level_sets] == ["path"] and app.level == ("path", "harbor")
        assert {m.facts.path: m.instances for m in app.report.meshes} == HARBOR_MESHES
        gate.set()
        await settle(app, pilot)
        assert app.level == ("auto", "harbor") and app.resolutions == 1


async def test_configured_levels_come_first_then_the_found_ones_and_a_named_one_is_kept(tmp_path):
    root = lp.godot_project(tmp_path / "game")
    (root / "texbudget.toml").write_text('[[level]]\nname = "bazaar"\nscene = "props/market.tscn"\n')
    config = config_mod.load(root / "texbudget.toml")
    app = demo_app(root, config, level="props/barrel.tscn")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert [(s.source, [lv.name for lv in s.levels]) for s in app.level_sets] == [
            ("config", ["bazaar"]), ("auto", ["town", "loop"]), ("path", ["barrel"])]
        assert app.level == ("path", "barrel")  # instanced by town: no level of the project's, but named
        await pilot.press("m")
        await pilot.pause()
        labels = [o.label for o in app.screen.options]
        assert labels[1:] == [
            "bazaar: props/market.tscn · 4 textures, 2 meshes (4 instances) · [[level]]",
            "town: levels/town.tscn · 6 textures, 3 meshes (256 instances) · found",
            "loop: levels/loop.tscn · 1 texture, 1 mesh (1 instance) · found",
            "barrel: props/barrel.tscn · 1 texture, 1 mesh (1 instance) · named",
        ]
        assert app.screen.current == 4


async def test_without_levels_the_key_is_hidden_and_says_so(tmp_path):
    from .conftest import FakeScanner, make_config

    config = make_config()
    app = make_app(pipeline.build_settings(config), tmp_path, config, scanner=FakeScanner(), watch=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        assert app.level_sets == () and app.resolutions == 1
        shown = {b.key for _, b, _, _ in app.screen.active_bindings.values() if b.show}
        assert "m" not in shown
        assert app.screen.level is None and not bar_text(app).startswith("whole scan")
        app.pick_level()
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)  # no picker: a notice instead
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = dict(r for _, section in app.screen.sections for r in section)
        assert rows["m"] == "show one level (what its scene loads) or the whole scan"


async def test_the_asset_screen_of_a_level_asset(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await choose(pilot, app, DEMO_OPTIONS[3])
        app.open_asset("textures/awning_albedo.png")
        await settle(app, pilot)
        assert isinstance(app.screen, AssetScreen)
        assert app.screen.report is app.report


def test_tui_level_runs_the_app_on_the_level(capsys, tmp_path, monkeypatch: pytest.MonkeyPatch):
    import texbudget.tui.app as app

    root = lp.godot_project(tmp_path / "game")
    seen = {}

    def fake_make_app(settings, root, config, paths, scanner, **kwargs):
        seen.update(root=root, paths=paths, level=kwargs.get("level"), reader=kwargs.get("level_reader"))

        class Ran:
            return_code = 0

            def run(self):
                return None

        return Ran()

    monkeypatch.setattr(app, "make_app", fake_make_app)
    monkeypatch.setenv("TEXBUDGET_TUI_FORCE", "1")
    assert main(["tui", str(root / "levels" / "town.tscn"), "--no-cache", "--jobs", "1"]) == 0
    # the project is scanned whole (no paths), the level read first and chosen
    assert seen == {"root": root, "paths": None, "level": "levels/town.tscn", "reader": LevelReader(jobs=1, use_cache=False)}
    assert main(["tui", str(root), "--no-cache", "--jobs", "1"]) == 0
    assert seen == {"root": root, "paths": None, "level": None, "reader": LevelReader(jobs=1, use_cache=False)}


async def test_the_watch_follows_what_the_chosen_level_loads(tmp_path):
    """An edit to a scene the scan holds rescans it and resolves the levels again; an edit to
    a file only a level loads (``[scan] exclude`` leaves it out) resolves them again too."""
    from .test_watch import wait_for

    root = lp.godot_project(tmp_path / "game")
    (root / "texbudget.toml").write_text('[scan]\nexclude = ["tex/iron.png"]\n')
    config = config_mod.load(root / "texbudget.toml")
    app = make_app(pipeline.build_settings(config), root, config, None, CountingScanner(), watch=True, watch_interval=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.level_only == frozenset({"tex/iron.png"})
        await choose(pilot, app, "town: levels/town.tscn · 6 textures, 3 meshes (256 instances) · found")
        assert {m.facts.path: m.instances for m in app.report.meshes} == lp.TOWN_MESHES

        def iron() -> int:
            return next(t.cost.allocated_bytes for t in app.report.textures if t.facts.path == "tex/iron.png")

        assert iron() == lp.ALLOCATED[128]
        assert (app.resolutions, app.rescans) == (1, 0)
        lp.png(tmp_path / "iron.png", 512)
        os.replace(tmp_path / "iron.png", root / "tex" / "iron.png")  # only the level reads it
        await wait_for(app, pilot, lambda: iron() == lp.ALLOCATED[512])
        assert app.level == ("auto", "town") and "tex/iron.png" not in {t.path for t in app.scan.textures}
        assert (app.resolutions, app.rescans) == (2, 0)  # resolved again, nothing rescanned

        market = (root / "props" / "market.tscn").read_text()
        lp.write(tmp_path, "market.tscn", market + '\n[node name="B4" parent="." instance=ExtResource("1_b")]\n')
        os.replace(tmp_path / "market.tscn", root / "props" / "market.tscn")
        await wait_for(app, pilot, lambda: dict((m.facts.path, m.instances) for m in app.report.meshes)
                       .get("meshes/barrel.tres#mesh/0") == 5)
        assert app.level == ("auto", "town") and (app.resolutions, app.rescans) == (3, 1)
