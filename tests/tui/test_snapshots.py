"""Snapshots of the screens at 80×24 and 160×48 (pytest-textual-snapshot). After a deliberate
change of the look, refresh them with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the SVGs."""

from __future__ import annotations

import pytest

from texbudget import pipeline
from texbudget.tui.app import make_app

from .conftest import ROOT, FakeScanner, make_config, settle

SIZES = [(80, 24), (160, 48)]


def fresh_app():
    config = make_config()
    return make_app(pipeline.build_settings(config), ROOT, config, scanner=FakeScanner(), watch=False)


def after(*keys: str, table_key: str | None = None):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(app, pilot)
        for key in keys:
            if key == "open" and table_key:
                app.screen.query_one("#table").move_to_key(table_key)
                key = "enter"
            await pilot.press(key)
            await settle(app, pilot)
    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen(snap_compare, size):
    assert snap_compare(fresh_app(), terminal_size=size, run_before=after())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_folder_tree(snap_compare, size):
    assert snap_compare(fresh_app(), terminal_size=size, run_before=after("v", "enter"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_asset_screen(snap_compare, size):
    run = after("open", table_key="textures/props/crate_normal.png")
    assert snap_compare(fresh_app(), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_findings(snap_compare, size):
    assert snap_compare(fresh_app(), terminal_size=size, run_before=after("f"))


def test_help(snap_compare):
    assert snap_compare(fresh_app(), terminal_size=(80, 24), run_before=after("question_mark"))


def test_picker(snap_compare):
    assert snap_compare(fresh_app(), terminal_size=(80, 24), run_before=after("t"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_level_screen(snap_compare, size):
    """The Godot demo project with its market level chosen (``m``, the last level)."""
    from .test_levels_tui import demo_app

    assert snap_compare(demo_app(), terminal_size=size, run_before=after("m", "end", "enter"))
