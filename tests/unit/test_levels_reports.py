"""The level view (``levels/reports.py``): a ``Scan`` of what one level loads, whose ``evaluate``
is the level's report, built from the whole scan's own facts."""

from __future__ import annotations

from tests.integration import level_projects as lp
from texbudget import config as config_mod
from texbudget.levels.reading import scan_levels
from texbudget.levels.reports import level_report, level_scan, with_levels
from texbudget.model import SceneFacts
from texbudget.pipeline import build_settings, evaluate
from texbudget.scan.scene import Scan, read_scene


def test_a_level_view_holds_the_levels_facts_counts_and_users(tmp_path):
    root = lp.godot_project(tmp_path / "game")
    config = config_mod.load(None)
    scan = read_scene(root, config)
    levels = scan_levels(scan, config)
    assert levels is not None and [lv.name for lv in levels.levels] == ["town", "loop"]
    town = levels.level("town")
    assert town is not None and levels.level("nowhere") is None
    view = level_scan(levels, town)
    assert sorted(t.path for t in view.textures) == lp.TOWN_TEXTURES
    assert all(any(t is s for s in scan.textures) for t in view.textures)  # the scan's own facts
    (scene,) = view.scenes
    assert (scene.path, scene.role, dict(scene.instances)) == ("levels/town.tscn", "level", lp.TOWN_MESHES)
    assert sorted(scene.texture_usage) == [
        ("tex/cloth.png", "mat/cloth.tres", "albedo_texture"),
        ("tex/iron.png", "mat/iron.tres", "albedo_texture"), ("tex/moss.png", "mat/moss.tres", "albedo_texture"),
        ("tex/shared_n.png", "mat/iron.tres", "normal_texture"), ("tex/shared_n.png", "mat/moss.tres", "normal_texture"),
        ("tex/stone.png", "mat/stone.tres", "albedo_texture"), ("tex/wood.png", "mat/wood.tres", "albedo_texture")]
    assert [f.code for f in view.findings] == ["TB120", "TB121"]  # the level's; broken.tscn's own is not its file
    settings = build_settings(config)
    report = level_report(levels, town, settings)
    assert report.scenarios == evaluate(view, settings).scenarios
    whole = with_levels(evaluate(scan, settings), levels, settings)
    assert [lv.name for lv in whole.levels] == ["town", "loop"] and whole.levels[0].texture_bytes == lp.TOWN_TEXTURE_BYTES
    assert whole.levels[1].mesh_bytes == 1800 and whole.levels[0].source == "auto"
    # findings only (check's automatic levels): no reports
    assert with_levels(evaluate(scan, settings), levels, settings, reports=False).levels == ()


def test_project_scan_adds_the_engine_uses_and_leaves_a_gltf_tree_alone(tmp_path):
    """``project_scan``: the textures engine materials reference and the meshes levels place,
    as one scene of role "project"; a scan without engine files is returned as it is."""
    from texbudget.levels.reading import project_scan
    from texbudget.pipeline import instance_counts

    root = lp.godot_project(tmp_path / "game")
    config = config_mod.load(None)
    scan = read_scene(root, config)
    levels = scan_levels(scan, config)
    counted = project_scan(scan, levels)
    (extra,) = counted.scenes[len(scan.scenes):]
    assert (extra.path, extra.role) == ("", "project")
    # every material file's texture (unused.png has none); the user is the material, the slot its property
    assert sorted(extra.texture_usage) == [
        ("tex/cloth.png", "mat/cloth.tres", "albedo_texture"),
        ("tex/iron.png", "mat/iron.tres", "albedo_texture"),
        ("tex/moss.png", "mat/moss.tres", "albedo_texture"),
        ("tex/shared_n.png", "mat/iron.tres", "normal_texture"),
        ("tex/shared_n.png", "mat/moss.tres", "normal_texture"),
        ("tex/stone.png", "mat/stone.tres", "albedo_texture"),
        ("tex/wood.png", "mat/wood.tres", "albedo_texture"),
    ]
    # the levels' instances summed (town and loop): the barrel is 4 in town and 1 in loop
    assert dict(extra.instances) == {"meshes/barrel.tres#mesh/0": 5, "meshes/rock.tres#mesh/0": 251,
                                     "meshes/stall.tres#mesh/0": 1}
    assert instance_counts(counted, ()) == dict(extra.instances)
    assert project_scan(Scan(root=tmp_path), None) == Scan(root=tmp_path)
    plain = Scan(root=tmp_path, scenes=(SceneFacts.from_uses(path="a.glb", instances=(("a.glb#mesh/0", 2),)),))
    assert project_scan(plain, None) is plain
