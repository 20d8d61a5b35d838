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


#: Each hostile GridMap scene as a level: (meshes placed, level findings as (code, message)).
#: gridmap/lib.tres names a mesh file the folder does not have (TB120, on the library).
_NO_MESH = ("TB120", "loads res://gridmap/no.tres (gridmap/no.tres), which does not exist; not priced")
GRIDMAP_LEVELS = {
    "gridmap/odd_length.tscn": [_NO_MESH],  # its cells are the reader's TB104; nothing placed
    "gridmap/negative_items.tscn": [
        ("TB125", "Map: item 0 (2 cells): gridmap/lib.tres gives no mesh for it (no such item, an item without a mesh, "
                  "or a generated one); nothing priced there"),
        ("TB125", "Map: item 65535 (2 cells): gridmap/lib.tres gives no mesh for it (no such item, an item without a mesh, "
                  "or a generated one); nothing priced there"), _NO_MESH],
    "gridmap/claims.scn": [("TB121", "the level's scene file could not be read (its own finding says why); nothing priced")],
    "gridmap/self_library.tscn": [
        ("TB122", "instances res://gridmap/self_library.tscn (Map), which instances this scene again "
                  "(gridmap/self_library.tscn -> gridmap/self_library.tscn); that instance is not followed"),
        ("TB125", "Map: item 1 (1 cell): the root GridMap of res://gridmap/self_library.tscn has no MeshLibrary; nothing drawn there")],
    "gridmap/self_instance.tscn": [
        ("TB122", "instances res://gridmap/self_instance.tscn (Map), which instances this scene again "
                  "(gridmap/self_instance.tscn -> gridmap/self_instance.tscn); that instance is not followed"),
        ("TB125", "Map: item 1 (2 cells): the root GridMap of res://gridmap/self_instance.tscn has no MeshLibrary; nothing drawn there")],
}


@pytest.mark.parametrize("rel", sorted(GRIDMAP_LEVELS))
def test_hostile_gridmaps_as_levels(tree, rel):
    """A library that is its own scene, a GridMap scene that instances itself, cells naming
    items no library has: findings, a finite walk, nothing placed."""
    (level,) = read_level(tree, config_mod.load(None), rel).levels
    assert level.meshes == {}
    assert [(f.code, f.message) for f in level.findings] == GRIDMAP_LEVELS[rel]
