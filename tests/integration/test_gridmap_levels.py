"""A GridMap's cells in a level (docs/levels.md, "GridMap"), through ``main([...])`` on a
hand-made Godot project: each used MeshLibrary item's mesh is placed once per cell, nested
instances multiply, a node that sets an instanced GridMap scene's cells replaces that scene's
own, a MeshLibrary sub-resource works as a file does, an item never used is loaded with its
library (0 instances, its material's textures counted), a cell naming an item without a mesh
is TB125, and a MeshLibrary's previews are not converted by ``detect_3d``.

Meshes are text ArrayMeshes of ``POSITION f32x3`` (12 bytes a vertex) and u16 indices
(``level_projects.array_mesh``): floor 4 vertices, 6 indices (60 bytes), wall 8 / 12 (120),
pillar 10 / 24 (168), column 6 / 12 (96).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration import level_projects as lp
from tests.integration.test_detect_3d import texture_import
from tests.readers.test_godot_gridmap import cell, cells
from texbudget.cli import main

FLAGS = ("--cards", "8GB", "--resolution", "1080p", "--no-cache")


def packed(*triples: tuple[int, int, int]) -> str:
    return "PackedInt32Array(" + ", ".join(map(str, cells(*triples))) + ")"


LIBRARY = """[gd_resource type="MeshLibrary" load_steps=6 format=3 uid="uid://blib"]

[ext_resource type="ArrayMesh" path="res://meshes/floor.tres" id="1_f"]
[ext_resource type="ArrayMesh" path="res://meshes/wall.tres" id="2_w"]
[ext_resource type="ArrayMesh" path="res://meshes/pillar.tres" id="3_p"]
[ext_resource type="Texture2D" uid="uid://bprev" path="res://previews/floor.png" id="4_v"]

[sub_resource type="BoxMesh" id="BoxMesh_b"]

[resource]
item/0/name = "Floor"
item/0/mesh = ExtResource("1_f")
item/0/preview = ExtResource("4_v")
item/4/name = "Wall"
item/4/mesh = ExtResource("2_w")
item/5/name = "Pillar"
item/5/mesh = ExtResource("3_p")
item/6/name = "Box"
item/6/mesh = SubResource("BoxMesh_b")
item/8/name = "Nothing"
"""

#: A GridMap scene of its own: 10 floor cells.
ROOM = f"""[gd_scene load_steps=2 format=3]

[ext_resource type="MeshLibrary" uid="uid://blib" path="res://tiles/lib.tres" id="1_l"]

[node name="Room" type="GridMap"]
mesh_library = ExtResource("1_l")
data = {{
"cells": {packed(*(cell(x, 0, 0, 0) for x in range(10)))}
}}
"""

#: Two rooms: one as it is, one whose cells are set here (2 walls): 10 + 0 floors, 2 walls.
TOWER = f"""[gd_scene load_steps=2 format=3]

[ext_resource type="PackedScene" path="res://props/room.tscn" id="1_r"]

[node name="Tower" type="Node3D"]

[node name="Base" parent="." instance=ExtResource("1_r")]

[node name="Top" parent="." instance=ExtResource("1_r")]
data = {{
"cells": {packed(cell(0, 5, 0, 4), cell(1, 5, 0, 4))}
}}
"""

DUNGEON = f"""[gd_scene load_steps=6 format=3 uid="uid://bdungeon"]

[ext_resource type="MeshLibrary" uid="uid://blib" path="res://tiles/lib.tres" id="1_l"]
[ext_resource type="PackedScene" path="res://props/room.tscn" id="2_r"]
[ext_resource type="PackedScene" path="res://props/tower.tscn" id="3_t"]
[ext_resource type="ArrayMesh" path="res://meshes/column.tres" id="4_c"]

[sub_resource type="MeshLibrary" id="MeshLibrary_in"]
item/1/mesh = ExtResource("4_c")

[node name="Dungeon" type="Node3D"]

[node name="Map" type="GridMap" parent="."]
mesh_library = ExtResource("1_l")
data = {{
"cells": {packed(*(cell(x, 0, 0, 0) for x in range(5)), cell(0, 1, 0, 4), cell(1, 1, 0, 4, rot=16),
                 cell(0, 2, 0, 7), cell(0, 3, 0, 6), cell(1, 3, 0, 6), cell(0, 0, 0, 0))}
}}

[node name="Inline" type="GridMap" parent="."]
mesh_library = SubResource("MeshLibrary_in")
data = {{
"cells": {packed(cell(0, 0, 9, 1), cell(1, 0, 9, 1))}
}}

[node name="Room" parent="." instance=ExtResource("2_r")]
data = {{
"cells": {packed(cell(0, 0, 0, 4), cell(1, 0, 0, 4), cell(2, 0, 0, 4), cell(3, 0, 0, 0))}
}}

[node name="Plain" parent="." instance=ExtResource("2_r")]

[node name="Tower1" parent="." instance=ExtResource("3_t")]

[node name="Tower2" parent="." instance=ExtResource("3_t")]

[node name="Tower3" parent="." instance=ExtResource("3_t")]
"""

#: What dungeon.tscn places, worked out by hand:
#: - floor: the map's 5 (a cell written twice counts once), the Room's 1 (its own 10 replaced),
#:   Plain's 10, three towers' Base 10 each (their Top's replaced): 5 + 1 + 10 + 30 = 46;
#: - wall: the map's 2, the Room's 3, the towers' Top 2 each: 2 + 3 + 6 = 11;
#: - column: the inline library's item 1, 2 cells; pillar: in the library, no cell: 0;
#: - items 7 (no such item) and 6 (a BoxMesh): TB125, nothing placed.
MESHES = {"meshes/floor.tres#mesh/0": (46, 60), "meshes/wall.tres#mesh/0": (11, 120),
          "meshes/column.tres#mesh/0": (2, 96), "meshes/pillar.tres#mesh/0": (0, 168)}


def gridmap_project(root: Path) -> Path:
    lp.write(root, "project.godot", 'config_version=5\n\n[application]\nrun/main_scene="uid://bdungeon"\n')
    lp.write(root, "tiles/lib.tres", LIBRARY)
    lp.write(root, "props/room.tscn", ROOM)
    lp.write(root, "props/tower.tscn", TOWER)
    lp.write(root, "levels/dungeon.tscn", DUNGEON)
    lp.write(root, "meshes/floor.tres", lp.array_mesh("Floor", 4, 6, "res://mat/stone.tres"))
    lp.write(root, "meshes/wall.tres", lp.array_mesh("Wall", 8, 12))
    lp.write(root, "meshes/pillar.tres", lp.array_mesh("Pillar", 10, 24, "res://mat/moss.tres"))
    lp.write(root, "meshes/column.tres", lp.array_mesh("Column", 6, 12))
    lp.write(root, "mat/stone.tres", lp.material(("albedo_texture", "res://tex/stone.png")))
    lp.write(root, "mat/moss.tres", lp.material(("albedo_texture", "res://tex/moss.png")))
    lp.png(root / "tex" / "stone.png", 256)
    lp.png(root / "tex" / "moss.png", 128)
    lp.png(root / "previews" / "floor.png", 64)
    # lossless, no mipmaps, detect_3d on (as the editor imports a preview): never drawn in 3D, it stays so
    lp.write(root, "previews/floor.png.import", texture_import("previews/floor.png"))
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = gridmap_project(tmp_path / "game")
    monkeypatch.chdir(tmp_path)
    return root


def scan_json(capsys, target: Path) -> dict:
    code = main(["scan", str(target), "--format", "json", *FLAGS])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_a_level_places_each_item_once_per_cell(capsys, project):
    data = scan_json(capsys, project / "levels" / "dungeon.tscn")
    assert {m["path"]: (m["instances"], m["buffer_bytes"]) for m in data["meshes"]} == MESHES
    assert data["levels"][0]["instances"] == 46 + 11 + 2
    textures = {t["path"]: (t["gpu_format"], t["allocated_bytes"], t["used_by"]) for t in data["textures"]}
    assert textures == {
        "tex/stone.png": ("BC1_RGB_SRGB", lp.ALLOCATED[256], ["mat/stone.tres"]),
        # the unused item's mesh is loaded with the library, and with it its material
        "tex/moss.png": ("BC1_RGB_SRGB", lp.ALLOCATED[128], ["mat/moss.tres"]),
        # lossless as imported: 64 × 64 × 4 bytes, no mipmaps (a preview is no 3D use)
        "previews/floor.png": ("R8G8B8A8_SRGB", 64 * 64 * 4, ["tiles/lib.tres"]),
    }
    assert [(f["path"], f["code"], f["message"]) for f in data["findings"]] == [
        ("levels/dungeon.tscn", "TB125", "Dungeon/Map: item 6 (2 cells): tiles/lib.tres gives no mesh for it (no such item, "
                                         "an item without a mesh, or a generated one); nothing priced there"),
        ("levels/dungeon.tscn", "TB125", "Dungeon/Map: item 7 (1 cell): tiles/lib.tres gives no mesh for it (no such item, "
                                         "an item without a mesh, or a generated one); nothing priced there"),
        ("tiles/lib.tres", "TB105", "generated at load time or embedded, not priced: 1 BoxMesh"),
    ]


def test_the_whole_project_counts_the_cells_of_its_levels(capsys, project):
    data = scan_json(capsys, project)
    assert [lv["scene"] for lv in data["levels"]] == ["levels/dungeon.tscn"]
    assert {m["path"]: (m["instances"], m["buffer_bytes"]) for m in data["meshes"]} == MESHES


def test_a_gridmap_scene_as_its_own_level(capsys, project):
    data = scan_json(capsys, project / "props" / "tower.tscn")
    assert {m["path"]: m["instances"] for m in data["meshes"]} == {
        "meshes/floor.tres#mesh/0": 10, "meshes/wall.tres#mesh/0": 2, "meshes/pillar.tres#mesh/0": 0}


def test_a_missing_library_is_named_once(capsys, project):
    (project / "tiles" / "lib.tres").unlink()
    data = scan_json(capsys, project / "props" / "room.tscn")
    assert data["meshes"] == []
    assert [(f["path"], f["code"], f["message"]) for f in data["findings"]] == [
        ("props/room.tscn", "TB120", "loads uid://blib::res://tiles/lib.tres (tiles/lib.tres) (Room), which does not exist; not priced")]


def test_cells_of_a_scene_whose_root_has_no_library(capsys, project):
    lp.write(project, "props/room.tscn", '[gd_scene format=3]\n\n[node name="Room" type="GridMap"]\n')
    data = scan_json(capsys, project / "props" / "tower.tscn")
    assert data["meshes"] == []
    assert [(f["code"], f["message"]) for f in data["findings"]] == [
        ("TB125", "Tower/Top: item 4 (2 cells): the root GridMap of res://props/room.tscn has no MeshLibrary; nothing drawn there")]
