"""Levels on the hostile folder (``hostile.write_hostile_tree``): every scene, prefab and glTF in
it scanned as a level, and the whole folder as a Godot and Unity project, end with a report —
no exception, no TB009 (a reader or the resolver failing), every finding with a known code."""

from __future__ import annotations

import json

import pytest

from tests.robustness.hostile import write_hostile_tree
from texbudget import config as config_mod
from texbudget import findings
from texbudget.cli import main
from texbudget.config import is_level_file
from texbudget.levels.reading import read_level, scan_levels
from texbudget.scan.scene import read_scene


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile_levels") / "root"
    write_hostile_tree(root)
    (root / "project.godot").write_text('[application]\nrun/main_scene="res://tscn/nowhere.tscn"\n')
    (root / "Assets").mkdir(exist_ok=True)
    return root


def test_every_scene_as_a_level(tree):
    config = config_mod.load(None)
    scenes = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and is_level_file(p.name))
    assert len(scenes) >= 100
    for rel in scenes:
        found = read_level(tree, config, rel)
        (level,) = found.levels
        assert level.scene == rel
        codes = {f.code for f in (*found.findings, *found.scan.findings)}
        assert "TB009" not in codes, rel
        assert codes <= set(findings.CODES), rel


def test_the_whole_folder_as_a_project(tree, capsys):
    config = config_mod.load(None)
    scan = read_scene(tree, config)
    found = scan_levels(scan, config)
    assert found is not None and found.source == "auto" and len(found.levels) >= 10
    assert "TB009" not in {f.code for f in found.findings}
    code = main(["scan", str(tree), "--format", "json", "--no-cache", "--cards", "8GB", "--resolution", "1080p"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    data = json.loads(out)
    assert [lv["name"] for lv in data["levels"]] == [lv.name for lv in found.levels]
