"""``texbudget tui LEVEL``: the app opens on what the level loads (``levels.reading.level_scanner``),
and a settings switch re-evaluates the level without reading again."""

from __future__ import annotations

from functools import partial

import pytest

from tests.integration import level_projects as lp
from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.cli import main
from texbudget.levels.reading import level_scanner
from texbudget.tui.app import make_app
from texbudget.tui.screens.main import MainScreen

from .conftest import settle


async def test_the_app_shows_the_level(tmp_path):
    root = lp.godot_project(tmp_path / "game")
    config = config_mod.load(None)
    settings = pipeline.build_settings(config)
    calls = []

    def scanner(*args, **kwargs):
        calls.append(args[2])
        return level_scanner(*args, **kwargs)

    app = make_app(settings, root, config, [root / "levels" / "town.tscn"], partial(scanner, scene="levels/town.tscn"), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        report = app.report
        assert sorted(t.facts.path for t in report.textures) == lp.TOWN_TEXTURES
        assert {m.facts.path: m.cost.instances for m in report.meshes} == lp.TOWN_MESHES
        assert report.scenarios[0].bytes["textures"] == lp.TOWN_TEXTURE_BYTES
        evaluations = app.evaluations
        app.choices = app.choices.set("quality", ("low",), False)
        app.evaluate_now()
        await settle(app, pilot)
        assert app.evaluations == evaluations + 1 and len(calls) == 1  # re-evaluated, not read again
        assert app.report.scenarios[0].quality == "low"
        # low drops the top 3 levels: each of the four textures is 32 px or less on top, one 4 KiB page
        assert app.report.scenarios[0].bytes["textures"] == 4 * 4096


def test_tui_level_runs_the_app_on_the_level(capsys, tmp_path, monkeypatch: pytest.MonkeyPatch):
    import texbudget.tui.app as app

    root = lp.godot_project(tmp_path / "game")
    seen = {}

    def fake_run(root, config, settings, explicit, **kwargs):
        seen.update(root=root, level=kwargs.get("level"))
        return 0

    monkeypatch.setattr(app, "run", fake_run)
    monkeypatch.setenv("TEXBUDGET_TUI_FORCE", "1")
    assert main(["tui", str(root / "levels" / "town.tscn"), "--no-cache"]) == 0
    assert seen == {"root": root, "level": "levels/town.tscn"}
    assert main(["tui", str(root), "--no-cache"]) == 0
    assert seen == {"root": root, "level": None}
