"""A what-if written with ``w`` survives: config loading reads the rule back, the evaluation
changes, and ``texbudget check`` honours it."""

from __future__ import annotations

from PIL import Image

from texbudget import cli, limits, pipeline
from texbudget import config as config_mod
from texbudget.scan.scene import read_scene
from texbudget.tui.app import make_app

from .conftest import settle
from .test_app import open_asset

CONFIG = """\
# Lantern Row — test budget
[budget]
cards = ["8GB"]          # min spec
resolutions = ["1080p"]
rt = ["off"]

[limits]
max_bytes = "512KiB"     # nothing above half a MiB in this test
"""


def texture_row(report, path):
    return next(t for t in report.textures if t.facts.path == path)


async def test_a_written_rule_is_read_back_and_check_honours_it(tmp_path, capsys):
    Image.new("RGB", (1024, 1024), (120, 80, 40)).save(tmp_path / "wall_albedo.png")
    Image.new("RGB", (256, 256), (20, 80, 40)).save(tmp_path / "small_albedo.png")
    toml = tmp_path / "texbudget.toml"
    toml.write_text(CONFIG, encoding="utf-8")

    config = config_mod.load_for(tmp_path)
    settings = pipeline.build_settings(config)
    before = texture_row(pipeline.evaluate(read_scene(tmp_path, config), settings), "wall_albedo.png")
    assert (before.plan.gpu_format, before.plan.width, before.cost.gpu_bytes, before.cost.allocated_bytes) == (
        "BC1_RGB_SRGB", 1024, 699_064, 720_896)
    assert cli.main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "wall_albedo.png: 1024x1024 BC1_RGB_SRGB, 704.00 KiB > max_bytes 512.00 KiB [TB020]" in out

    app = make_app(settings, tmp_path, config, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        screen = await open_asset(pilot, app, "wall_albedo.png")
        screen.query_one("#wf-size").value = "512"
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        assert app.what_ifs == {}

    text = toml.read_text(encoding="utf-8")
    assert text.startswith(CONFIG + "\n# texbudget tui what-if, ")
    assert text.endswith('[[rule]]\nmatch = "wall_albedo.png"\nmax_size = 512\n')

    config = config_mod.load_for(tmp_path)
    assert [(r.match, r.keys, r.max_size, r.index) for r in config.rules] == [("wall_albedo.png", {"max_size"}, 512, 1)]
    report = pipeline.evaluate(read_scene(tmp_path, config), pipeline.build_settings(config))
    after = texture_row(report, "wall_albedo.png")
    assert (after.plan.width, after.plan.max_size, after.cost.gpu_bytes, after.cost.allocated_bytes) == (512, 512, 174_776, 196_608)
    assert after.plan.decided_by == "name '_albedo' → albedo → BC1_RGB_SRGB (desktop); rule 1 in texbudget.toml: max_size 512"
    assert limits.check_limits(report, config.limits) == ()
    assert cli.main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out == ""
