"""Watch: files changed, added and removed while the app runs are read again; the selection
stays. Real PNG files in tmp_path and the real batched scanner."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from PIL import Image
from textual.content import Content

from tests.readers.gltf_factories import GltfBuilder
from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.tui import scanning
from texbudget.tui.app import make_app
from texbudget.tui.widgets.assets import AssetTable

from .conftest import settle


def png(path: Path, width: int, height: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (width, height), (90, 60, 30)).save(path)


def dims(app) -> dict[str, tuple[int, int]]:
    return {t.facts.path: (t.facts.width, t.facts.height) for t in app.report.textures}


async def wait_for(app, pilot, condition, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        await pilot.pause(0.05)
        if app.report is not None and condition() and not app._rescanning:
            await settle(app, pilot)
            if condition():
                return
    raise AssertionError("the watch did not pick up the change")


async def test_changed_added_and_removed_files_are_read_again(tmp_path):
    png(tmp_path / "tex/a.png", 256, 256)
    png(tmp_path / "tex/b.png", 128, 128)
    png(tmp_path / "tex/d.png", 64, 64)
    config = config_mod.load(None)
    settings = pipeline.build_settings(config, resolutions=["1920x1080"], cards=["8GB"], rt=["off"])
    app = make_app(settings, tmp_path, config, watch=True, watch_interval=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert dims(app) == {"tex/a.png": (256, 256), "tex/b.png": (128, 128), "tex/d.png": (64, 64)}
        table = app.screen.query_one(AssetTable)
        table.move_to_key("tex/b.png")
        before = app.rescans

        png(tmp_path / "tex/a.png", 512, 256)
        await wait_for(app, pilot, lambda: dims(app).get("tex/a.png") == (512, 256))
        png(tmp_path / "tex/c.png", 32, 32)
        await wait_for(app, pilot, lambda: "tex/c.png" in dims(app))
        (tmp_path / "tex/d.png").unlink()
        await wait_for(app, pilot, lambda: "tex/d.png" not in dims(app))

        assert dims(app) == {"tex/a.png": (512, 256), "tex/b.png": (128, 128), "tex/c.png": (32, 32)}
        assert app.scans == 1 and app.rescans > before  # only the changed files were read again
        assert table.cursor_key == "tex/b.png"
        assert sorted(app.scan.files) == ["tex/a.png", "tex/b.png", "tex/c.png"]


async def test_a_sidecar_edit_rereads_its_texture(tmp_path):
    png(tmp_path / "a.png", 256, 256)
    config = config_mod.load(None)
    before = scanning.snapshot(tmp_path, config)
    (tmp_path / "a.png.meta").write_text("fileFormatVersion: 2\n", encoding="utf-8")
    after = scanning.snapshot(tmp_path, config)
    assert scanning.changes(before, after) == scanning.Changes(frozenset({"a.png"}), frozenset())
    assert not scanning.changes(after, scanning.snapshot(tmp_path, config))


async def test_under_follow_gltf_a_change_to_an_image_no_scene_uses_is_not_read(tmp_path):
    png(tmp_path / "tex/used.png", 256, 256)
    png(tmp_path / "tex/loose.png", 128, 128)
    b = GltfBuilder()
    b.add_image_uri("../tex/used.png")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}})
    (tmp_path / "scene").mkdir()
    b.write_gltf(tmp_path / "scene" / "s.gltf")
    config = config_mod.load(None)
    config = replace(config, scan=replace(config.scan, follow="gltf"))
    settings = pipeline.build_settings(config, resolutions=["1920x1080"], cards=["8GB"], rt=["off"])
    app = make_app(settings, tmp_path, config, watch=True, watch_interval=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert dims(app) == {"tex/used.png": (256, 256)}
        before = app.rescans
        png(tmp_path / "tex/loose.png", 64, 64)  # no scene uses it: a whole scan would not read it
        png(tmp_path / "tex/used.png", 512, 256)
        await wait_for(app, pilot, lambda: dims(app).get("tex/used.png") == (512, 256))
        assert dims(app) == {"tex/used.png": (512, 256)}
        assert "tex/loose.png" not in app.scan.files and app.rescans > before
        assert scanning.to_read_again({"tex/loose.png", "tex/used.png", "scene/new.glb"}, app.scan, config) == {"tex/used.png", "scene/new.glb"}


def recorded(app) -> list[tuple[str, str]]:
    """The app's notifications from now on, (message, severity), as it shows them."""
    notes: list[tuple[str, str]] = []
    shown = app.notify

    def notify(message: str, **kw) -> None:
        notes.append((message, kw.get("severity", "information")))
        shown(message, **kw)

    app.notify = notify
    return notes


def write_config(path: Path, text: str) -> None:
    """As an editor saves: whole, at once (the watch never sees half a file)."""
    part = path.with_name(path.name + ".part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


def plan_of(app, path: str):
    return next(t.plan for t in app.report.textures if t.facts.path == path)


def cards_of(app) -> list[str]:
    return [c.name for c in app.report.scenarios[0].cards]


async def test_an_edit_to_the_config_file_applies_with_the_flags_kept(tmp_path):
    png(tmp_path / "tex/a.png", 256, 256)
    png(tmp_path / "other/b.png", 64, 64)
    path = tmp_path / "texbudget.toml"
    path.write_text('# our budget\n[budget]\ncards = ["8GB"]\n', encoding="utf-8")
    config = config_mod.load(path)

    def settings_for(c):  # as the command line's flags: one resolution, RT off
        return pipeline.build_settings(c, resolutions=["1920x1080"], rt=["off"])

    app = make_app(settings_for(config), tmp_path, config, watch=True, watch_interval=0.1, settings_for=settings_for)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        notes = recorded(app)
        assert cards_of(app) == ["8GB"] and plan_of(app, "tex/a.png").width == 256

        write_config(path, '# our budget\n[budget]\ncards = ["8GB", "12GB"]\n\n[[rule]]\nmatch = "tex/*"\nmax_size = 128\n')
        await wait_for(app, pilot, lambda: plan_of(app, "tex/a.png").width == 128)
        assert cards_of(app) == ["8GB", "12GB"]
        assert [s.resolution for s in app.report.scenarios] == ["1920x1080"]  # the flags still apply
        assert {s.rt for s in app.report.scenarios} == {"off"}
        assert plan_of(app, "tex/a.png").decided_by.endswith("rule 1 in texbudget.toml: max_size 128")
        assert app.scans == 1  # no [scan] key changed: nothing read again
        assert notes == [("texbudget.toml read again", "information")]

        # a file that does not load changes nothing, and says why in one line
        write_config(path, '[budget]\ncardz = ["8GB"]\n')
        await wait_for(app, pilot, lambda: len(notes) == 2)
        assert notes[1] == (f"{path}: [budget] unknown key 'cardz'; did you mean 'cards'? (allowed: cards, resolutions, quality, "
                            "platform, high_quality, rt, renderer, upscaler, shadows, msaa, reserve, reserve_min, headroom, allocation, "
                            "streaming, streaming_pool, rt_compaction); the settings before it are kept", "error")
        # shown as written: "[budget]" is no markup tag
        shown = [n for n in app._notifications if n.severity == "error"]  # as its toast renders it
        assert [str(Content(n.message) if not n.markup else Content.from_markup(n.message)) for n in shown] == [notes[1][0]]
        assert cards_of(app) == ["8GB", "12GB"] and plan_of(app, "tex/a.png").width == 128

        # a [scan] key: scanned again with it
        write_config(path, '[budget]\ncards = ["8GB"]\n[scan]\nexclude = ["other/**"]\n')
        await wait_for(app, pilot, lambda: "other/b.png" not in dims(app) and not app.scanning)
        assert app.scans == 2 and dims(app) == {"tex/a.png": (256, 256)}
        assert notes[2] == ("texbudget.toml read again: scanning again", "information")


async def test_a_rule_the_app_writes_is_read_back_quietly(tmp_path):
    png(tmp_path / "a.png", 256, 256)
    config = config_mod.load(None)  # no config file yet: the app writes texbudget.toml
    settings = pipeline.build_settings(config, resolutions=["1920x1080"], cards=["8GB"], rt=["off"])
    app = make_app(settings, tmp_path, config, watch=True, watch_interval=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.set_what_if("a.png", {"max_size": 64})
        await settle(app, pilot)
        notes = recorded(app)
        assert app.write_what_if("a.png") == 1
        await wait_for(app, pilot, lambda: app.config.path == tmp_path / "texbudget.toml")
        assert app.written == [] and app.what_ifs == {}  # the rule is the file's now
        assert plan_of(app, "a.png").width == 64
        assert plan_of(app, "a.png").decided_by.endswith("rule 1 in texbudget.toml: max_size 64")
        assert [m for m, _ in notes] == ["written as rule 1 in " + str(tmp_path / "texbudget.toml")]


def test_rebase_reports_no_change_for_files_the_levels_start_or_stop_loading():
    a, b, c = ((1, 10),), ((2, 20),), ((3, 30),)
    before = {"tex/a.png": a, "lvl/only.png": b}
    after = {"tex/a.png": a, "lvl/new.png": c}  # the levels now load new.png, no longer only.png
    rebased = scanning.rebase(before, after, frozenset({"lvl/only.png"}), frozenset({"lvl/new.png"}))
    assert rebased == {"tex/a.png": a, "lvl/new.png": c}
    assert not scanning.changes(rebased, after)
    # a discovered file that went away is still a removal
    gone = scanning.rebase({"tex/a.png": a, "tex/b.png": b}, {"tex/a.png": a}, frozenset(), frozenset())
    assert scanning.changes(gone, {"tex/a.png": a}).removed == {"tex/b.png"}
