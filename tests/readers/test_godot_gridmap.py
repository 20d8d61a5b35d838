"""A GridMap's cells and a MeshLibrary's items as the Godot readers write them (docs/levels.md,
"GridMap"; ``readers/godot_gridmap.py``, ``readers/godot_scene.py``).

Cells are encoded here as Godot's ``GridMap::_get("data")`` encodes them (``cell``); the
encoder is checked against cells the Godot editor wrote (the official demo projects'
3d/kinematic_character and 3d/platformer levels): a cell at x −5, y 2 is ``196603, 0, 0`` and
item 3 turned (orientation 16) ``…, 1048579``.
"""

from __future__ import annotations

import struct

import pytest

from tests.readers import godot_factories as gf
from texbudget.readers import Source, read_source
from texbudget.readers import godot_gridmap as gm
from texbudget.readers.godot_variant import Packed, parse_value


def cell(x: int, y: int, z: int, item: int, rot: int = 0, layer: int = 0) -> tuple[int, int, int]:
    """The three int32 of one cell: the key (x, y, z as int16 in a uint64) and the cell
    (``item`` bits 0–15, ``rot`` 16–20, ``layer`` 21–28), as signed int32."""
    key = (x & 0xFFFF) | ((y & 0xFFFF) << 16) | ((z & 0xFFFF) << 32)
    lo, hi = struct.unpack("<ii", struct.pack("<Q", key))
    (value,) = struct.unpack("<i", struct.pack("<I", (item & 0xFFFF) | (rot << 16) | (layer << 21)))
    return lo, hi, value


def cells(*triples: tuple[int, int, int]) -> list[int]:
    return [n for t in triples for n in t]


def text_array(ints: list[int]) -> Packed:
    value = parse_value("PackedInt32Array(" + ", ".join(map(str, ints)) + ")")
    assert isinstance(value, Packed)
    return value


def binary_array(ints: list[int]) -> Packed:
    return Packed("PackedInt32Array", len(ints), struct.pack(f"<{len(ints)}i", *ints))


def test_the_encoder_gives_what_the_godot_editor_writes():
    assert cell(0, 0, 0, 0) == (0, 0, 0) and cell(-6, 0, 0, 0) == (65530, 0, 0)
    assert cell(-5, 2, 0, 0) == (196603, 0, 0) and cell(0, 1, 0, 0)[0] == 65536
    assert cell(3, 0, 0, 3, rot=16) == (3, 0, 1048579) and cell(12, 0, 0, 3, rot=22) == (12, 0, 1441795)


MAP = cells(cell(0, 0, 0, 2), cell(1, 0, 0, 2, rot=10), cell(-1, -3, 7, 2, layer=5), cell(0, 1, 0, 0),
            cell(0, 0, 1, 9, rot=3), cell(-300, 40, -2, 65535))


@pytest.mark.parametrize("form", [text_array, binary_array])
def test_cells_count_per_item_whatever_the_orientation_layer_or_position(form):
    assert gm.cell_items(form(MAP)) == ({0: 1, 2: 3, 9: 1, 65535: 1}, "")


@pytest.mark.parametrize("form", [text_array, binary_array])
def test_a_cell_written_twice_keeps_its_last_item(form):
    """GridMap::_set("data") fills a map keyed by the whole uint64: the last one wins."""
    ints = cells(cell(4, 5, 6, 1), cell(0, 0, 0, 1), cell(4, 5, 6, 7), cell(4, 5, 6, 8), cell(4, 5, -6, 1))
    assert gm.cell_items(form(ints)) == ({1: 2, 8: 1}, "")


def test_a_negative_or_wide_number_names_the_item_of_its_low_16_bits():
    """The item is an unsigned 16-bit field; a text number wraps to int32 as Godot's parser
    stores it (-1 and 4294967295 are both item 65535; 65539 is item 3)."""
    assert gm.cell_items(text_array([0, 0, -1, 1, 0, 4294967295, 2, 0, 65539, 3, 0, -65536])) == ({0: 1, 3: 1, 65535: 2}, "")
    assert gm.cell_items(binary_array([0, 0, -1, 1, 0, 65539])) == ({3: 1, 65535: 1}, "")


def test_no_cells():
    assert gm.cell_items(text_array([])) == ({}, "") == gm.cell_items(binary_array([]))


@pytest.mark.parametrize(("value", "why"), [
    (text_array([0, 0, 1, 5]), "hold 4 integers, not 3 per cell (Godot refuses them too)"),
    (binary_array([0, 0]), "hold 2 integers, not 3 per cell (Godot refuses them too)"),
    (parse_value("PackedInt32Array(0, 0, 1.5)"), "hold something else than integers (a decimal, inf or nan, a comment)"),
    (parse_value("PackedInt32Array(0, 0, inf)"), "hold something else than integers (a decimal, inf or nan, a comment)"),
    (parse_value("PackedInt32Array(0, 0, 12345678901)"), "hold something else than integers (a decimal, inf or nan, a comment)"),
    (parse_value("PackedInt32Array(0, 0, ; note\n 3)"), "hold something else than integers (a decimal, inf or nan, a comment)"),
    (parse_value("PackedByteArray(0, 0, 1)"), "are of type PackedByteArray, not PackedInt32Array"),
    ([0, 0, 1], "are of type Array, not PackedInt32Array"),
    (Packed("PackedInt32Array", 3), "could not be read (their numbers were not kept)"),
])
def test_cells_that_are_not_cells_are_not_counted(value, why):
    assert gm.cell_items(value) == ({}, why)


def test_more_cells_than_counted(monkeypatch):
    monkeypatch.setattr(gm, "MAX_GRID_CELLS", 2)
    assert gm.cell_items(text_array(cells(cell(0, 0, 0, 1), cell(1, 0, 0, 1)))) == ({1: 2}, "")
    three = cells(cell(0, 0, 0, 1), cell(1, 0, 0, 1), cell(2, 0, 0, 1))
    assert gm.cell_items(text_array(three)) == ({}, "are 3 cells, more than the 2 texbudget counts")
    assert gm.cell_items(binary_array(three)) == ({}, "are 3 cells, more than the 2 texbudget counts")


@pytest.mark.parametrize(("key", "item"), [
    ("item/0/mesh", (0, "mesh")), ("item/17/preview", (17, "preview")), ("item/3/shapes", (3, "shapes")),
    ("item/-1/mesh", None), ("item/99999999999/mesh", None), ("item/x/mesh", None), ("items/0/mesh", None),
    ("resource_name", None),
])
def test_library_item_keys(key, item):
    assert gm.library_item(key) == item


# --- the edges --------------------------------------------------------------------------------------


def read(rel: str, data: str | bytes):
    suffix = "." + rel.rsplit(".", 1)[1]
    return read_source(Source(rel=rel, data=data.encode() if isinstance(data, str) else data, suffix_hint=suffix))


def edges(result) -> list[tuple]:
    (scene,) = result.scenes
    return [(e.kind, e.holder, e.target, e.count, e.slot, e.where) for e in scene.refs]


LIBRARY = """[gd_resource type="MeshLibrary" load_steps=6 format=3 uid="uid://blib"]

[ext_resource type="ArrayMesh" path="res://meshes/floor.tres" id="1_f"]
[ext_resource type="ArrayMesh" uid="uid://bwall" path="res://meshes/wall.tres" id="2_w"]
[ext_resource type="Texture2D" path="res://previews/floor.png" id="3_p"]
[ext_resource type="Shape3D" path="res://shapes/box.tres" id="4_s"]

[sub_resource type="BoxMesh" id="BoxMesh_1"]

[resource]
item/0/name = "Floor"
item/0/mesh = ExtResource("1_f")
item/0/mesh_transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)
item/0/shapes = [ExtResource("4_s"), Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)]
item/0/preview = ExtResource("3_p")
item/4/name = "Wall"
item/4/mesh = ExtResource("2_w")
item/6/name = "Box"
item/6/mesh = SubResource("BoxMesh_1")
"""


def test_a_library_loads_each_item_mesh_placed_nowhere():
    """Every item's mesh is a "mesh" edge of count 0 (loaded, in no cell) and slot item/N; a
    key no MeshLibrary makes (item/-1: ``create_item`` refuses it) loads its mesh in no item."""
    r = read("tiles/lib.tres", LIBRARY + 'item/-1/mesh = ExtResource("1_f")\n')
    assert edges(r) == [
        ("mesh", "tiles/lib.tres", "res://meshes/floor.tres", 0, "item/0", ""),
        ("instance", "tiles/lib.tres", "res://shapes/box.tres", 1, "", ""),
        ("texture", "tiles/lib.tres", "res://previews/floor.png", 1, "preview", ""),
        ("mesh", "tiles/lib.tres", "uid://bwall::res://meshes/wall.tres", 0, "item/4", ""),
        ("mesh", "tiles/lib.tres", "res://meshes/floor.tres", 0, "", ""),
    ]
    assert [(f.code, f.message) for f in r.findings] == [("TB105", "generated at load time or embedded, not priced: 1 BoxMesh")]


DUNGEON = """[gd_scene load_steps=3 format=3]

[ext_resource type="MeshLibrary" uid="uid://blib" path="res://tiles/lib.tres" id="1_l"]
[ext_resource type="PackedScene" path="res://props/room.tscn" id="2_r"]

[node name="Dungeon" type="Node3D"]

[node name="Map" type="GridMap" parent="."]
mesh_library = ExtResource("1_l")
data = {
"cells": PackedInt32Array(%s)
}

[node name="Room" parent="." instance=ExtResource("2_r")]
data = {
"cells": PackedInt32Array(%s)
}

[node name="Plain" parent="." instance=ExtResource("2_r")]
"""


def test_a_gridmap_places_each_used_item_once_per_cell():
    own = cells(*(cell(x, 0, 0, 0) for x in range(5)), cell(0, 1, 0, 4), cell(1, 1, 0, 4), cell(0, 2, 0, 7))
    room = cells(cell(0, 0, 0, 4), cell(1, 0, 0, 4), cell(2, 0, 0, 0))
    r = read("levels/dungeon.tscn", DUNGEON % (", ".join(map(str, own)), ", ".join(map(str, room))))
    lib = "uid://blib::res://tiles/lib.tres"
    assert edges(r) == [
        ("instance", "levels/dungeon.tscn", lib, 1, "", "Dungeon/Map"),
        ("cells", "levels/dungeon.tscn", lib, 0, "mesh_library", "Dungeon/Map"),
        ("cells", "levels/dungeon.tscn", lib, 5, "item/0", "Dungeon/Map"),
        ("cells", "levels/dungeon.tscn", lib, 2, "item/4", "Dungeon/Map"),
        ("cells", "levels/dungeon.tscn", lib, 1, "item/7", "Dungeon/Map"),
        # the instanced GridMap scene whose cells the node sets: its root's cells are replaced
        ("instance", "levels/dungeon.tscn", "res://props/room.tscn", 1, "", "Dungeon/Room"),
        ("cells", "levels/dungeon.tscn", "res://props/room.tscn", 0, "data", "Dungeon/Room"),
        ("cells", "levels/dungeon.tscn", "res://props/room.tscn", 1, "item/0", "Dungeon/Room"),
        ("cells", "levels/dungeon.tscn", "res://props/room.tscn", 2, "item/4", "Dungeon/Room"),
        ("instance", "levels/dungeon.tscn", "res://props/room.tscn", 1, "", "Dungeon/Plain"),
    ]
    assert r.findings == ()


@pytest.mark.parametrize(("props", "kept"), [
    # no library: Godot draws nothing, and nothing is placed
    ("", []),
    # baked meshes are drawn instead of the cells (each placed once, by its own edge)
    ('mesh_library = ExtResource("1_l")\nbaked_meshes = [ExtResource("2_m")]',
     [("instance", "uid://blib::res://tiles/lib.tres", 1, ""), ("mesh", "res://baked.tres", 1, ""),
      ("cells", "uid://blib::res://tiles/lib.tres", 0, "mesh_library")]),
    # baked_meshes without a mesh: Godot skips them (ERR_CONTINUE) and draws the cells
    ('mesh_library = ExtResource("1_l")\nbaked_meshes = [null, 7]',
     [("instance", "uid://blib::res://tiles/lib.tres", 1, ""), ("cells", "uid://blib::res://tiles/lib.tres", 0, "mesh_library"),
      ("cells", "uid://blib::res://tiles/lib.tres", 1, "item/1")]),
])
def test_cells_that_place_nothing_or_are_baked(props, kept):
    text = f"""[gd_scene format=3]
[ext_resource type="MeshLibrary" uid="uid://blib" path="res://tiles/lib.tres" id="1_l"]
[ext_resource type="ArrayMesh" path="res://baked.tres" id="2_m"]
[node name="Map" type="GridMap"]
{props}
data = {{
"cells": PackedInt32Array({", ".join(map(str, cell(0, 0, 0, 1)))})
}}
"""
    r = read("m.tscn", text)
    assert [(k, t, n, s) for k, _, t, n, s, _ in edges(r)] == kept
    assert r.findings == ()


@pytest.mark.parametrize(("cells_text", "why"), [
    ("PackedInt32Array(0, 0, 1, 2)", "hold 4 integers, not 3 per cell (Godot refuses them too)"),
    ("PackedInt32Array(0, 0, 1.0)", "hold something else than integers (a decimal, inf or nan, a comment)"),
    ("[0, 0, 1]", "are of type Array, not PackedInt32Array"),
])
def test_broken_cells_are_a_finding_and_place_nothing(cells_text, why):
    text = f"""[gd_scene format=3]
[ext_resource type="MeshLibrary" path="res://tiles/lib.tres" id="1_l"]
[ext_resource type="PackedScene" path="res://props/room.tscn" id="2_r"]
[node name="Map" type="GridMap"]
mesh_library = ExtResource("1_l")
data = {{ "cells": {cells_text} }}
[node name="Room" parent="." instance=ExtResource("2_r")]
data = {{ "cells": {cells_text} }}
"""
    r = read("m.tscn", text)
    # the instanced scene keeps its own cells (Godot refuses the new ones): no "data" edge
    assert [(k, n, s) for k, _, _, n, s, _ in edges(r)] == [("instance", 1, ""), ("cells", 0, "mesh_library"), ("instance", 1, "")]
    assert [(f.code, f.message) for f in r.findings] == [
        ("TB104", f"Map: the GridMap's cells {why}; they are not counted; Map/Room: the GridMap's cells {why}; they are not counted")]


def test_a_library_inside_the_scene():
    """A MeshLibrary sub-resource is the part ``file#library/K``; its items' slots say so."""
    text = f"""[gd_scene format=3]
[ext_resource type="ArrayMesh" path="res://meshes/floor.tres" id="1_f"]
[sub_resource type="MeshLibrary" id="Other"]
item/0/mesh = ExtResource("1_f")
[sub_resource type="ArrayMesh" id="Inline"]
_surfaces = []
[sub_resource type="MeshLibrary" id="Lib"]
item/2/mesh = SubResource("Inline")
[node name="Map" type="GridMap"]
mesh_library = SubResource("Lib")
data = {{ "cells": PackedInt32Array({", ".join(map(str, cells(cell(0, 0, 0, 2), cell(1, 0, 0, 2))))}) }}
"""
    r = read("s.tscn", text)
    assert edges(r) == [
        ("mesh", "s.tscn", "res://meshes/floor.tres", 0, "library/0/item/0", "Other"),
        ("mesh", "s.tscn", "s.tscn#mesh/0", 0, "library/1/item/2", "Lib"),
        ("cells", "s.tscn", "s.tscn#library/1", 0, "mesh_library", "Map"),
        ("cells", "s.tscn", "s.tscn#library/1", 2, "item/2", "Map"),
    ]


def test_binary_library_and_binary_gridmap_scene():
    """A ``.meshlib`` (MeshLibrary's own binary suffix) and a ``.scn`` GridMap, as the editor
    saves them: the same edges as text."""
    lib = gf.rsrc("MeshLibrary", [("ArrayMesh", "res://meshes/floor.tres", "uid://bfloor")],
                  [("", "MeshLibrary", {"item/3/name": "Floor", "item/3/mesh": gf.Ext(0)})])
    assert edges(read("tiles/lib.meshlib", lib)) == [
        ("mesh", "tiles/lib.meshlib", "uid://bfloor::res://meshes/floor.tres", 0, "item/3", "")]
    names = ["Map", "GridMap", "mesh_library", "data"]
    data = {"cells": gf.V(gf.INT32S, cells(cell(0, 0, 0, 3), cell(0, 0, 1, 3), cell(5, 5, 5, 1)))}
    scene = gf.rsrc("PackedScene", [("MeshLibrary", "res://tiles/lib.meshlib", "uid://blib")], [
        ("", "PackedScene", {"_bundled": gf.bundled(names, [gf.Ext(0), data], [(-1, "GridMap", "Map", -1, [("mesh_library", 0), ("data", 1)])])})])
    assert edges(read("map.scn", scene)) == [
        ("instance", "map.scn", "uid://blib::res://tiles/lib.meshlib", 1, "", "Map"),
        ("cells", "map.scn", "uid://blib::res://tiles/lib.meshlib", 0, "mesh_library", "Map"),
        ("cells", "map.scn", "uid://blib::res://tiles/lib.meshlib", 1, "item/1", "Map"),
        ("cells", "map.scn", "uid://blib::res://tiles/lib.meshlib", 2, "item/3", "Map"),
    ]


def test_a_custom_node_with_a_data_dictionary_is_no_gridmap():
    text = """[gd_scene format=3]
[node name="Save" type="Node"]
data = { "cells": PackedInt32Array(0, 0, 1) }
"""
    assert edges(read("s.tscn", text)) == []


def test_a_godot_3_gridmap():
    """Godot 3 writes the same cells (``PoolIntArray``) and item keys."""
    text = f"""[gd_scene load_steps=2 format=2]
[ext_resource path="res://lib.meshlib" type="MeshLibrary" id=1]
[node name="GridMap" type="GridMap"]
mesh_library = ExtResource( 1 )
data = {{
"cells": PoolIntArray( {", ".join(map(str, cells(cell(0, 0, 0, 5), cell(-1, 0, 0, 5, rot=22))))} )
}}
"""
    assert edges(read("old.tscn", text)) == [
        ("instance", "old.tscn", "res://lib.meshlib", 1, "", "GridMap"),
        ("cells", "old.tscn", "res://lib.meshlib", 0, "mesh_library", "GridMap"),
        ("cells", "old.tscn", "res://lib.meshlib", 2, "item/5", "GridMap"),
    ]
