"""TB017: a [[rule]] of the config file whose match names no scanned texture does nothing,
and says so (a typo, a renamed or excluded folder, a Windows backslash between folders)."""

from __future__ import annotations

from pathlib import Path

from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.config import parse_rules
from texbudget.model import TextureFacts, evolve
from texbudget.scan.scene import Scan

TEXTURES = tuple(
    TextureFacts(path=p, container="png", width=256, height=256, channels=3)
    for p in ("textures/rock_n.png", "level.glb#image/0", "ui/hud.png")
)
RULES = [
    {"match": "textures/*", "max_size": 128},  # matches
    {"match": "*.glb", "max_size": 128},  # matches an image inside the GLB through its file
    {"match": "/hud.png", "ignore": True},  # anchored at the root: hud.png is in ui/
    {"match": "textures\\*.png", "max_size": 64},  # a Windows separator
    {"match": "*.png", "max_size": 64, "platform": "mobile-astc"},  # matches; its platform is not this one
    {"match": "textrues/**", "role": "normal"},  # a typo
]


def _settings(rules: list[dict], path: Path = Path("texbudget.toml")) -> pipeline.Settings:
    config = config_mod.validate({"rule": rules}, path)
    return pipeline.build_settings(config)


def test_rules_that_name_no_texture_are_tb017() -> None:
    scan = Scan(root=Path("/scene"), textures=TEXTURES, files=("textures/rock_n.png", "level.glb", "ui/hud.png"))
    settings = _settings(RULES)
    report = pipeline.evaluate(scan, settings)
    found = [(f.path, f.code, f.severity.value, f.message) for f in report.findings if f.code == "TB017"]
    assert found == [
        ("texbudget.toml", "TB017", "warning", "[[rule]] #3 match '/hud.png' names no scanned texture; it does nothing"),
        ("texbudget.toml", "TB017", "warning", "[[rule]] #4 match 'textures\\\\*.png' names no scanned texture; it does nothing; "
                                               "globs separate folders with /, not \\"),
        ("texbudget.toml", "TB017", "warning", "[[rule]] #6 match 'textrues/**' names no scanned texture; it does nothing"),
    ]
    # the set-wise test agrees with Rule.matches, path by path
    paths = {t.path for t in TEXTURES} | {"level.glb"}
    for rule in settings.rules:
        assert rule.matches_any(paths, {p.rpartition("/")[2] for p in paths}) is any(rule.matches(t.path) for t in TEXTURES)
    # looked for once per scan and set of matches: a platform switch reuses it
    again = pipeline.unmatched_rules(scan, evolve(settings, policy=evolve(settings.policy, platform="mobile-astc")))
    assert again is pipeline.unmatched_rules(scan, settings)


def test_what_ifs_and_a_scene_without_rules_give_none() -> None:
    scan = Scan(root=Path("/scene"), textures=TEXTURES)
    settings = _settings([{"match": "textures/*", "max_size": 128}])
    what_if = parse_rules([{"match": "gone.png", "max_size": 64}], "what-if")
    assert pipeline.unmatched_rules(scan, evolve(settings, rules=settings.rules + what_if)) == ()
    assert pipeline.unmatched_rules(scan, _settings([])) == ()
    empty = Scan(root=Path("/scene"))
    assert [f.message for f in pipeline.unmatched_rules(empty, settings)] == [
        "[[rule]] #1 match 'textures/*' names no scanned texture; it does nothing"]
