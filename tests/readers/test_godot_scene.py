"""The Godot scene and resource reader (``readers/godot_scene.py``): the edges of every construct
docs/levels.md names, meshes priced from their declarations by Godot's layout rules, the value
syntax, malformed files and binary resources.

Oracles: Godot's own writers where this machine has one (the Godot 3.2 files in
``data/godot3``, written by ``data/godot3/make.gd`` with ``godot3-server``), the layout rules
of ``RenderingServer::mesh_surface_make_offsets_from_format`` (each expected size below is
worked out from them by hand, in the comment beside it), and the text/binary pair of one
scene, which must give the same edges.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.readers import godot_factories as gf
from texbudget.model import SceneRef, Severity
from texbudget.readers import Source, read_path, read_source
from texbudget.readers.godot_binary import uid_text
from texbudget.readers.godot_scene import MAX_TEXT_BYTES, edge_kind
from texbudget.readers.godot_variant import (
    Call,
    GodotSyntaxError,
    Packed,
    Ref,
    TextSpan,
    parse_sections,
    parse_value,
)

DATA = Path(__file__).parent / "data" / "godot3"
V2 = 1 << 35  # ARRAY_FLAG_FORMAT_VERSION_2
VERTEX, NORMAL, TANGENT, COLOR, UV, UV2, CUSTOM0 = 1, 2, 4, 8, 16, 32, 64
BONES, WEIGHTS, INDEX = 1 << 10, 1 << 11, 1 << 12
COMPRESS, BONES8, TWO_D = 1 << 29, 1 << 27, 1 << 25


def read(tmp_path: Path, name: str, content: str | bytes):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return read_path(tmp_path, name)


def edges(result) -> list[tuple]:
    """(kind, holder, target, count, slot, material, surfaces, where) per edge."""
    return [(e.kind, e.holder, e.target, e.count, e.slot, e.material, e.surfaces, e.where)
            for s in result.scenes for e in s.refs]


def codes(result) -> list[str]:
    return [f.code for f in result.findings]


# --- scenes -------------------------------------------------------------------------------------

LEVEL = """[gd_scene load_steps=4 format=3 uid="uid://c7level"]

[ext_resource type="PackedScene" uid="uid://b3barrel" path="res://props/barrel.tscn" id="1_bar"]
[ext_resource type="PackedScene" path="res://props/rock.glb" id="2_rock"]
[ext_resource type="PackedScene" path="market.tscn" id="3_mkt"]

[node name="Town" type="Node3D"]

[node name="Market" parent="." instance=ExtResource("3_mkt")]

[node name="Barrel" parent="Market" instance=ExtResource("1_bar")]

[node name="Barrel2" parent="Market" instance=ExtResource("1_bar")]

[node name="Rock" parent="Market/Barrel2" instance=ExtResource("2_rock")]

[node name="Later" parent="." instance_placeholder="res://props/far.tscn"]
"""


def test_instances_one_edge_per_node_with_the_node_path(tmp_path):
    r = read(tmp_path, "levels/town.tscn", LEVEL)
    assert codes(r) == []
    assert r.scenes[0].role == "scene" and r.meshes == ()
    assert edges(r) == [
        ("instance", "levels/town.tscn", "levels/market.tscn", 1, "", "", (), "Town/Market"),  # relative to the file
        ("instance", "levels/town.tscn", "uid://b3barrel::res://props/barrel.tscn", 1, "", "", (), "Town/Market/Barrel"),
        ("instance", "levels/town.tscn", "uid://b3barrel::res://props/barrel.tscn", 1, "", "", (), "Town/Market/Barrel2"),
        ("instance", "levels/town.tscn", "res://props/rock.glb", 1, "", "", (), "Town/Market/Barrel2/Rock"),
    ]  # the placeholder loads nothing until the game asks


def test_inherited_scene_root_is_an_instance(tmp_path):
    text = """[gd_scene format=3]
[ext_resource type="PackedScene" path="res://base.tscn" id="1"]
[node name="Derived" instance=ExtResource("1")]
[node name="Extra" type="Node3D" parent="."]
"""
    assert edges(read(tmp_path, "d.tscn", text)) == [("instance", "d.tscn", "res://base.tscn", 1, "", "", (), "Derived")]


MESHES = """[gd_scene format=3]

[ext_resource type="ArrayMesh" path="res://meshes/barrel.res" id="1_m"]
[ext_resource type="Material" uid="uid://dwood" path="res://mat/wood.tres" id="2_w"]
[ext_resource type="Material" path="res://mat/iron.tres" id="3_i"]
[ext_resource type="Texture2D" path="res://tex/decal.png" id="4_t"]

[sub_resource type="StandardMaterial3D" id="Mat_a"]
albedo_texture = ExtResource("4_t")

[sub_resource type="MultiMesh" id="MultiMesh_c"]
transform_format = 1
instance_count = 250
mesh = ExtResource("1_m")

[node name="Market" type="Node3D"]

[node name="Barrel" type="MeshInstance3D" parent="."]
mesh = ExtResource("1_m")
surface_material_override/0 = ExtResource("3_i")
surface_material_override/2 = SubResource("Mat_a")

[node name="Painted" type="MeshInstance3D" parent="."]
mesh = ExtResource("1_m")
material_override = ExtResource("2_w")
material_overlay = SubResource("Mat_a")

[node name="Crowd" type="MultiMeshInstance3D" parent="."]
multimesh = SubResource("MultiMesh_c")

[node name="Sparks" type="GPUParticles3D" parent="."]
draw_passes = 2
process_material = ExtResource("3_i")
draw_pass_1 = ExtResource("1_m")
draw_pass_2 = ExtResource("1_m")
draw_pass_3 = ExtResource("1_m")
"""


def test_mesh_instances_overrides_multimesh_and_particles(tmp_path):
    r = read(tmp_path, "m.tscn", MESHES)
    assert codes(r) == []
    mesh, wood, iron = "res://meshes/barrel.res", "uid://dwood::res://mat/wood.tres", "res://mat/iron.tres"
    assert edges(r) == [
        ("texture", "m.tscn#material/0", "res://tex/decal.png", 1, "albedo_texture", "", (), "Mat_a"),
        ("mesh", "m.tscn", mesh, 1, "", "", (iron, "", "m.tscn#material/0"), "Market/Barrel"),
        ("mesh", "m.tscn", mesh, 1, "", wood, (), "Market/Painted"),
        ("material", "m.tscn", "m.tscn#material/0", 1, "", "", (), "Market/Painted"),  # material_overlay
        ("mesh", "m.tscn", mesh, 250, "", "", (), "Market/Crowd"),  # MultiMesh instance_count
        ("mesh", "m.tscn", mesh, 1, "", "", (), "Market/Sparks"),  # draw passes 1 and 2 (draw_passes = 2), not 3
        ("material", "m.tscn", iron, 1, "", "", (), "Market/Sparks"),  # process_material
    ]


def test_multimesh_resource_file_places_its_mesh(tmp_path):
    text = """[gd_resource type="MultiMesh" format=3]
[ext_resource type="ArrayMesh" path="res://grass.res" id="1"]
[resource]
instance_count = 4096
mesh = ExtResource("1")
"""
    r = read(tmp_path, "grass.tres", text)
    assert r.scenes[0].role == "resource"
    assert edges(r) == [("mesh", "grass.tres", "res://grass.res", 4096, "", "", (), "")]
    node = """[gd_scene format=3]
[ext_resource type="MultiMesh" path="res://grass.tres" id="1"]
[ext_resource type="Material" path="res://g.tres" id="2"]
[node name="Field" type="MultiMeshInstance3D"]
multimesh = ExtResource("1")
material_override = ExtResource("2")
"""
    assert edges(read(tmp_path, "field.tscn", node)) == [
        ("instance", "field.tscn", "res://grass.tres", 1, "", "", (), "Field"),
        ("material", "field.tscn", "res://g.tres", 1, "", "", (), "Field"),
    ]


def test_overrides_on_an_instanced_scenes_nodes_load_their_materials(tmp_path):
    text = """[gd_scene format=3]
[ext_resource type="PackedScene" path="res://rock.glb" id="1"]
[ext_resource type="Material" path="res://moss.tres" id="2"]
[node name="Cliff" instance=ExtResource("1")]
[node name="Mesh" parent="Root/Rock"]
surface_material_override/1 = ExtResource("2")
"""
    assert edges(read(tmp_path, "cliff.tscn", text)) == [
        ("instance", "cliff.tscn", "res://rock.glb", 1, "", "", (), "Cliff"),
        ("material", "cliff.tscn", "res://moss.tres", 1, "", "", (), "Cliff/Root/Rock/Mesh"),
    ]


# --- materials ----------------------------------------------------------------------------------

MATERIALS = """[gd_scene format=3]

[ext_resource type="Texture2D" uid="uid://alb" path="res://t/rock_albedo.png" id="1"]
[ext_resource type="CompressedTexture2D" path="res://t/rock_n.png" id="2"]
[ext_resource type="Texture2D" path="res://t/orm.png" id="3"]
[ext_resource type="Shader" path="res://s/water.gdshader" id="4"]
[ext_resource type="Texture3D" path="res://t/fog.png" id="5"]
[ext_resource type="Texture2D" path="res://t/atlas.png" id="6"]
[ext_resource type="Script" path="res://x.gd" id="7"]

[sub_resource type="NoiseTexture2D" id="Noise_1"]
width = 256

[sub_resource type="AtlasTexture" id="Atlas_1"]
atlas = ExtResource("6")
region = Rect2(0, 0, 32, 32)

[sub_resource type="StandardMaterial3D" id="M_rock"]
albedo_texture = ExtResource("1")
normal_enabled = true
normal_texture = ExtResource("2")
detail_albedo = SubResource("Atlas_1")

[sub_resource type="ShaderMaterial" id="M_water"]
shader = ExtResource("4")
shader_parameter/foam = ExtResource("3")
shader_parameter/noise = SubResource("Noise_1")
shader_parameter/layers = [ExtResource("5"), ExtResource("3")]

[sub_resource type="ORMMaterial3D" id="M_orm"]
orm_texture = ExtResource("3")
next_pass = SubResource("M_water")

[node name="Root" type="Node3D"]
script = ExtResource("7")
"""


def test_sub_resource_materials_are_numbered_holders_of_their_textures(tmp_path):
    r = read(tmp_path, "mats.tscn", MATERIALS)
    assert edges(r) == [
        # Atlas_1 is no material: its atlas is the file's, and the material's that uses it
        ("texture", "mats.tscn", "res://t/atlas.png", 1, "atlas", "", (), "Atlas_1"),
        ("texture", "mats.tscn#material/0", "uid://alb::res://t/rock_albedo.png", 1, "albedo_texture", "", (), "M_rock"),
        ("texture", "mats.tscn#material/0", "res://t/rock_n.png", 1, "normal_texture", "", (), "M_rock"),
        ("texture", "mats.tscn#material/0", "res://t/atlas.png", 1, "detail_albedo", "", (), "M_rock"),
        ("texture", "mats.tscn#material/1", "res://t/orm.png", 1, "shader_parameter/foam", "", (), "M_water"),
        ("texture", "mats.tscn#material/1", "res://t/fog.png", 1, "shader_parameter/layers", "", (), "M_water"),
        ("texture", "mats.tscn#material/1", "res://t/orm.png", 1, "shader_parameter/layers", "", (), "M_water"),
        ("texture", "mats.tscn#material/2", "res://t/orm.png", 1, "orm_texture", "", (), "M_orm"),
        ("material", "mats.tscn#material/2", "mats.tscn#material/1", 1, "", "", (), "M_orm"),  # next_pass
    ]  # the shader and the script give no edge
    assert [(f.code, f.severity) for f in r.findings] == [("TB105", Severity.INFO)]
    assert r.findings[0].message == "generated at load time or embedded, not priced: 1 NoiseTexture2D"


def test_material_resource_file_holds_its_own_textures(tmp_path):
    text = """[gd_resource type="StandardMaterial3D" load_steps=3 format=3 uid="uid://wood"]
[ext_resource type="Texture2D" path="res://wood_albedo.png" id="1"]
[ext_resource type="Texture2D" path="wood_rough.png" id="2"]
[sub_resource type="StandardMaterial3D" id="Outline"]
albedo_color = Color(0, 0, 0, 1)
[resource]
albedo_texture = ExtResource("1")
roughness_texture = ExtResource("2")
emission_texture = ExtResource("1")
heightmap_texture = ExtResource("2")
next_pass = SubResource("Outline")
"""
    r = read(tmp_path, "mat/wood.tres", text)
    assert r.scenes[0].role == "resource"
    assert edges(r) == [
        ("texture", "mat/wood.tres", "res://wood_albedo.png", 1, "albedo_texture", "", (), ""),
        ("texture", "mat/wood.tres", "mat/wood_rough.png", 1, "roughness_texture", "", (), ""),
        ("texture", "mat/wood.tres", "res://wood_albedo.png", 1, "emission_texture", "", (), ""),
        ("texture", "mat/wood.tres", "mat/wood_rough.png", 1, "heightmap_texture", "", (), ""),
        ("material", "mat/wood.tres", "mat/wood.tres#material/0", 1, "", "", (), ""),
    ]


def test_environment_sky_panorama_and_shader_sky(tmp_path):
    text = """[gd_resource type="Environment" load_steps=5 format=3]
[ext_resource type="Texture2D" path="res://sky/noon.hdr" id="1"]
[ext_resource type="CompressedCubemap" path="res://sky/stars.png" id="2"]
[sub_resource type="PanoramaSkyMaterial" id="Pano"]
panorama = ExtResource("1")
[sub_resource type="ShaderMaterial" id="Night"]
shader_parameter/stars = ExtResource("2")
[sub_resource type="Sky" id="Sky_1"]
sky_material = SubResource("Pano")
[resource]
background_mode = 2
sky = SubResource("Sky_1")
"""
    r = read(tmp_path, "env.tres", text)
    assert edges(r) == [
        ("texture", "env.tres#material/0", "res://sky/noon.hdr", 1, "panorama", "", (), "Pano"),
        ("texture", "env.tres#material/1", "res://sky/stars.png", 1, "shader_parameter/stars", "", (), "Night"),
        ("material", "env.tres", "env.tres#material/0", 1, "", "", (), "Sky_1"),
    ]
    scene = """[gd_scene format=3]
[ext_resource type="Environment" path="res://env.tres" id="1"]
[node name="World" type="WorldEnvironment"]
environment = ExtResource("1")
"""
    assert edges(read(tmp_path, "w.tscn", scene)) == [("instance", "w.tscn", "res://env.tres", 1, "", "", (), "World")]


def test_node_textures_and_resource_paths(tmp_path):
    text = """[gd_scene format=3]
[ext_resource type="Texture2D" path="res://ui/crosshair.png" id="1"]
[node name="Root" type="Node3D"]
[node name="Decal" type="Decal" parent="."]
texture_albedo = ExtResource("1")
[node name="Icon" type="Sprite3D" parent="Decal"]
texture = Resource("uid://icon", "res://icon.png")
[node name="Sound" type="AudioStreamPlayer" parent="."]
stream = Resource("res://a.ogg")
"""
    assert edges(read(tmp_path, "n.tscn", text)) == [
        ("texture", "n.tscn", "res://ui/crosshair.png", 1, "texture_albedo", "", (), "Root/Decal"),
        ("texture", "n.tscn", "uid://icon::res://icon.png", 1, "Sprite3D.texture", "", (), "Root/Decal/Icon"),
    ]


SPRITES = """[gd_scene format=3]
[ext_resource type="Texture2D" path="res://tex/sheet.png" id="1"]
[ext_resource type="SpriteFrames" path="res://anim/walk.tres" id="2"]
[ext_resource type="Texture2D" path="res://tex/atlas.tres" id="3"]
[ext_resource type="Texture2D" path="res://tex/hero.png" id="4"]
[sub_resource type="AtlasTexture" id="Cut"]
atlas = ExtResource("1")
region = Rect2(0, 0, 16, 16)
[sub_resource type="SpriteFrames" id="Frames"]
animations = [{
"frames": [{"duration": 1.0, "texture": SubResource("Cut")}, {"duration": 1.0, "texture": ExtResource("4")}],
"loop": true, "name": &"default", "speed": 5.0
}]
[sub_resource type="StandardMaterial3D" id="Mat"]
albedo_texture = ExtResource("3")
[node name="Root" type="Node3D"]
[node name="Flat" type="AnimatedSprite2D" parent="."]
sprite_frames = SubResource("Frames")
[node name="Deep" type="AnimatedSprite3D" parent="."]
sprite_frames = SubResource("Frames")
[node name="Walker" type="AnimatedSprite3D" parent="."]
sprite_frames = ExtResource("2")
[node name="Sign" type="Sprite3D" parent="."]
texture = ExtResource("3")
material_overlay = SubResource("Mat")
[node name="Label" type="Sprite2D" parent="."]
texture = ExtResource("3")
"""


def test_3d_sprites_give_their_textures_a_3d_slot(tmp_path):
    """A 3D sprite's properties are written ``Type.property``; what they lead to (an inline
    SpriteFrames and its AtlasTexture, an AtlasTexture or SpriteFrames file) fills that slot
    too, as a material's does; a 2D node's (AnimatedSprite2D, Sprite2D) keep their own."""
    assert edges(read(tmp_path, "s.tscn", SPRITES)) == [
        ("texture", "s.tscn", "res://tex/sheet.png", 1, "atlas", "", (), "Cut"),
        ("texture", "s.tscn", "res://tex/hero.png", 1, "animations", "", (), "Frames"),
        # the material's AtlasTexture file: its image fills albedo_texture
        ("instance", "s.tscn#material/0", "res://tex/atlas.tres", 1, "albedo_texture", "", (), "Mat"),
        ("texture", "s.tscn", "res://tex/sheet.png", 1, "AnimatedSprite3D.sprite_frames", "", (), "Root/Deep"),
        ("texture", "s.tscn", "res://tex/hero.png", 1, "AnimatedSprite3D.sprite_frames", "", (), "Root/Deep"),
        ("instance", "s.tscn", "res://anim/walk.tres", 1, "AnimatedSprite3D.sprite_frames", "", (), "Root/Walker"),
        ("instance", "s.tscn", "res://tex/atlas.tres", 1, "Sprite3D.texture", "", (), "Root/Sign"),
        ("material", "s.tscn", "s.tscn#material/0", 1, "", "", (), "Root/Sign"),
        ("instance", "s.tscn", "res://tex/atlas.tres", 1, "", "", (), "Root/Label"),
    ]


@pytest.mark.parametrize(("type_name", "path", "kind"), [
    ("PackedScene", "res://a.tscn", "instance"), ("PackedScene", "res://a.glb", "instance"),
    ("Texture2D", "res://a.png", "texture"), ("CompressedTexture2DArray", "res://a.png", "texture"),
    ("Cubemap", "uid://x", "texture"), ("Texture2D", "res://noise.tres", "instance"),
    ("StandardMaterial3D", "res://m.tres", "material"), ("ShaderMaterial", "res://m.res", "material"),
    ("Material", "res://m.material", "material"), ("ArrayMesh", "res://m.obj", "mesh"), ("Mesh", "res://m.res", "mesh"),
    ("MultiMesh", "res://mm.tres", "instance"), ("Environment", "res://e.tres", "instance"),
    ("MeshLibrary", "res://lib.res", "instance"), ("LightmapGIData", "res://l.lmbake", "instance"),
    ("Script", "res://s.gd", None), ("Shader", "res://s.gdshader", None), ("AudioStreamOggVorbis", "res://a.ogg", None),
    ("FontFile", "res://f.ttf", None), ("Animation", "res://a.anim", None),
])
def test_edge_kind_by_type_and_suffix(type_name, path, kind):
    assert edge_kind(type_name, path) == kind


# --- ArrayMesh pricing (RenderingServer::mesh_surface_make_offsets_from_format) -------------------


def mesh_tres(*surfaces: str, extra: str = "") -> str:
    return ('[gd_resource type="ArrayMesh" format=3]\n[ext_resource type="Material" path="res://m.tres" id="1"]\n'
            '[sub_resource type="StandardMaterial3D" id="S"]\n[resource]\nresource_name = "Barrel"\n'
            f"{extra}_surfaces = [{', '.join(surfaces)}]\n")


def test_array_mesh_uncompressed_layout(tmp_path):
    # position f32x3 12 + normal 4 + tangent 4 = 20 B/vertex; uv 8 + uv2 8 = 16; 24 vertices
    fmt = V2 | VERTEX | NORMAL | TANGENT | UV | UV2 | INDEX
    s = gf.text_surface(fmt, 24, 24 * 20, 24 * 16, index_count=36, index_bytes=72, material='ExtResource("1")')
    r = read(tmp_path, "barrel.tres", mesh_tres(s))
    assert codes(r) == []
    (m,) = r.meshes
    assert (m.path, m.name, m.source) == ("barrel.tres#mesh/0", "Barrel", "godot")
    assert (m.vertices, m.indices, m.triangles, m.vertex_bytes, m.index_bytes, m.morph_bytes) == (24, 36, 12, 864, 72, 0)
    (p,) = m.primitives
    assert (p.mode, p.index_bytes_per, p.material) == (4, 2, "res://m.tres")
    assert (m.surfaces, m.mode, m.material) == ((), 4, "res://m.tres")  # one surface: inline
    assert [(a.name, a.component_type, a.components, a.bytes) for a in p.attributes] == [
        ("POSITION", "FLOAT", 3, 288), ("NORMAL", "UNSIGNED_SHORT", 2, 96), ("TANGENT", "UNSIGNED_SHORT", 2, 96),
        ("TEXCOORD_0", "FLOAT", 2, 192), ("TEXCOORD_1", "FLOAT", 2, 192)]


def test_array_mesh_compressed_skinned_custom_and_strips(tmp_path):
    # compressed: position u16x4 8 + normal 4, no tangent = 12; colour 4 + uv u16x2 4 = 8
    compressed = gf.text_surface(V2 | COMPRESS | VERTEX | NORMAL | TANGENT | COLOR | UV | INDEX, 100, 1200, 800,
                                 index_count=300, index_bytes=600, material='SubResource("S")', b64=False)
    # 8 bone weights: bones u16x8 16 + weights u16x8 16 = 32; custom0 RGBA_FLOAT (7 << 13) 16
    skinned = gf.text_surface(V2 | BONES8 | VERTEX | BONES | WEIGHTS | CUSTOM0 | (7 << 13), 10, 120, 160, 320)
    # 2D vertices f32x2 8, a triangle strip of 6 vertices: 4 triangles
    strip = gf.text_surface(V2 | TWO_D | VERTEX, 6, 48, primitive=4)
    r = read(tmp_path, "mix.tres", mesh_tres(compressed, skinned, strip))
    assert codes(r) == []
    (m,) = r.meshes
    assert (m.vertices, m.triangles, m.vertex_bytes, m.index_bytes, m.skinned) == (116, 100 + 3 + 4, 1200 + 800 + 120 + 160 + 320 + 48, 600, True)
    c, k, s = m.primitives
    assert (m.mode, m.surfaces) == (None, (c, k, s))
    assert [(p.vertex_count, p.index_count) for p in m.surfaces] == [(100, 300), (10, 0), (6, 0)]
    assert [(a.name, a.component_type, a.components) for a in c.attributes] == [
        ("POSITION", "UNSIGNED_SHORT", 4), ("NORMAL", "UNSIGNED_SHORT", 2), ("COLOR_0", "UNSIGNED_BYTE", 4), ("TEXCOORD_0", "UNSIGNED_SHORT", 2)]
    assert c.material == "mix.tres#material/0" and c.triangles == 100
    assert [(a.name, a.components, a.bytes) for a in k.attributes] == [
        ("POSITION", 3, 120), ("CUSTOM0", 4, 160), ("JOINTS_0", 8, 160), ("WEIGHTS_0", 8, 160)]
    assert (k.mode, k.triangles, s.mode, s.triangles) == (4, 3, 5, 4)  # unindexed list: 10 // 3; strip: 6 - 2


def test_array_mesh_lods_blend_shapes_and_u32_indices(tmp_path):
    # 70,000 vertices: more than 65536, so u32 indices (3 * 4 bytes a triangle)
    big = gf.text_surface(V2 | VERTEX | INDEX, 70000, 70000 * 12, index_count=3, index_bytes=12,
                          extra='"lods": [0.5, PackedByteArray("AAAAAAAAAAA="), 1.0, PackedByteArray(0, 0, 0, 0)],')
    shapes = gf.text_surface(V2 | VERTEX | NORMAL | TANGENT, 4, 80,
                             extra=f'"blend_shapes": {gf.text_bytes(bytes(160))},')  # 216 base64 characters, "==" ending
    r = read(tmp_path, "lod.tres", mesh_tres(big, shapes, extra='blend_shape/names = PackedStringArray("open", "close")\n'))
    assert codes(r) == []
    (m,) = r.meshes
    a, b = m.primitives
    assert (a.index_bytes_per, a.index_count) == (4, 3)
    assert m.index_bytes == 12 + 8 + 4  # LOD 0, and the two generated LODs' index buffers
    assert (m.morph_bytes, m.morph_targets, b.morph_targets) == (160, 2, 2)  # two shapes of 4 x 20 bytes


def test_array_mesh_that_disagrees_with_its_flags_is_priced_as_stored(tmp_path):
    s = gf.text_surface(V2 | VERTEX | UV | INDEX, 8, 90, 64, index_count=6, index_bytes=24)
    r = read(tmp_path, "bad.tres", mesh_tres(s, "{}", '{"format": 1}'))
    (m,) = r.meshes
    assert (m.vertex_bytes, m.index_bytes) == (90 + 64, 24)
    assert codes(r) == ["TB104"]
    assert r.findings[0].message == (
        "bad.tres#mesh/0: surface 0: vertex_data holds 90 bytes; its format flags and 8 vertices make 96; priced as stored; "
        "bad.tres#mesh/0: surface 0: index_data holds 24 bytes for 6 indices (u16 expected: 12); priced as stored; "
        "bad.tres#mesh/0: surface 1 lacks a valid format, primitive, vertex_count or vertex_data; it was not priced; and 1 more")


def test_meshes_in_a_scene_are_parts_the_nodes_place(tmp_path):
    s = gf.text_surface(V2 | VERTEX, 3, 36, material='SubResource("Mat")')
    text = f"""[gd_scene format=3]
[sub_resource type="StandardMaterial3D" id="Mat"]
[sub_resource type="ArrayMesh" id="Shadow"]
_surfaces = [{gf.text_surface(V2 | VERTEX, 3, 36)}]
[sub_resource type="ArrayMesh" id="Body"]
_surfaces = [{s}]
shadow_mesh = SubResource("Shadow")
[sub_resource type="BoxMesh" id="Box"]
material = SubResource("Mat")
[node name="Root" type="Node3D"]
[node name="Body" type="MeshInstance3D" parent="."]
mesh = SubResource("Body")
[node name="Box" type="MeshInstance3D" parent="."]
mesh = SubResource("Box")
[node name="Wall" type="CSGBox3D" parent="."]
"""
    r = read(tmp_path, "s.tscn", text)
    assert [(m.path, m.name, m.primitives[0].material) for m in r.meshes] == [
        ("s.tscn#mesh/0", "Shadow", None), ("s.tscn#mesh/1", "Body", "s.tscn#material/0")]
    assert edges(r) == [
        ("mesh", "s.tscn", "s.tscn#mesh/0", 1, "", "", (), "Body"),  # the shadow mesh is loaded with it
        ("material", "s.tscn", "s.tscn#material/0", 1, "", "", (), "Box"),  # a BoxMesh's own material
        ("mesh", "s.tscn", "s.tscn#mesh/1", 1, "", "", (), "Root/Body"),
    ]
    assert r.findings[0].message == "generated at load time or embedded, not priced: 1 BoxMesh, 1 CSGBox3D"


# --- references that lead nowhere, paths, malformed files ---------------------------------------


def test_missing_ids_and_paths_that_leave_the_root(tmp_path):
    text = """[gd_scene format=3]
[ext_resource type="Texture2D" path="../../outside.png" id="1"]
[ext_resource type="Texture2D" path="/etc/passwd.png" id="2"]
[ext_resource type="Texture2D" path="user://cache.png" id="3"]
[node name="Root" type="Sprite3D"]
texture = ExtResource("9")
[node name="A" type="MeshInstance3D" parent="."]
mesh = SubResource("nope")
[node name="B" type="Sprite3D" parent="."]
texture = ExtResource("1")
[node name="C" type="Sprite3D" parent="."]
texture = ExtResource("2")
[node name="D" type="Sprite3D" parent="."]
texture = ExtResource("3")
"""
    r = read(tmp_path, "x/bad.tscn", text)
    assert edges(r) == []
    assert {f.code: f.message for f in r.findings} == {
        "TB103": 'Root: ExtResource("9") is not declared; Root/A: SubResource("nope") is not declared',
        "TB106": "Root/B: '../../outside.png' leaves the scan root; not followed; Root/C: the absolute path "
                 "'/etc/passwd.png' was not followed; Root/D: 'user://cache.png' is not a res:// path; not followed",
    }


@pytest.mark.parametrize(("text", "message"), [
    ("", "the file is empty (0 bytes)"),
    ('[gd_scene format=3]\n[node name="A" type="Node"]\ntext = "never closed\n', "line 3: unexpected character '\"'"),
    ("[gd_scene format=3]\n[node name=\"A\"]\nposition = Vector3(1, 2)\n", "line 3: Vector3() takes 3 numbers, got 2"),
    ("[gd_scene format=3]\n[node name=\"A\"]\nx = Banana\n", "line 3: unexpected identifier 'Banana'"),
    ("[gd_scene format=3]\n[node name=\"A\" type]\n", "line 2: expected '=' after type in [node …], got ']'"),
    ("[gd_scene format=3]\n[node name=\"A\"]\nx = [1, 2\n", "line 4: unexpected end of file"),
    ("[gd_scene format=3]\n[node name=\"A\"]\nx = {\"a\" 1}\n", "line 3: expected ':' after a dictionary key, got '1'"),
    ("[gd_scene format=3]\nx = PackedByteArray(\"AB$=\")\n", "line 2: PackedByteArray(): the string is not base64"),
    ("[gd_scene format=3]\nx = PackedInt32Array(1, 2, a)\n", "line 2: expected a number in PackedInt32Array(), got 'a'"),
    ("[gd_scene format=3]\nx = " + "[" * 70 + "]" * 70 + "\n", "line 2: values nested deeper than 64"),
    ("<<<<<<< HEAD\n[gd_scene format=3]\n", "line 1: not a Godot scene or resource: it starts with properties before any tag, not [gd_scene] or [gd_resource]"),
    ("[remap]\nimporter=\"texture\"\n", "line 1: not a Godot scene or resource: it starts with [remap], not [gd_scene] or [gd_resource]"),
])
def test_malformed_text_is_one_finding(tmp_path, text, message):
    r = read(tmp_path, "bad.tscn", text)
    assert (r.meshes, r.scenes) == ((), ())
    (f,) = r.findings
    assert (f.code, f.severity) == ("TB040" if not text else "TB100", Severity.ERROR)
    assert f.message == (message if not text else f"not a valid Godot text resource: {message}")


def test_text_over_the_size_limit_is_not_read(tmp_path, monkeypatch):
    import texbudget.readers.godot_scene as gs

    monkeypatch.setattr(gs, "MAX_TEXT_BYTES", 64)
    r = read(tmp_path, "big.tres", "[gd_resource type=\"Resource\" format=3]\n" + "; padding\n" * 10)
    assert codes(r) == ["TB107"] and MAX_TEXT_BYTES == 256 * 2**20


def test_unknown_sections_and_ids_are_noted_not_fatal(tmp_path):
    text = '[gd_scene format=3]\n[ext_resource type="Texture2D" path="res://a.png"]\n[weird]\n[node name="A" type="Node"]\n'
    r = read(tmp_path, "w.tscn", text)
    assert r.scenes and codes(r) == ["TB104"]
    assert r.findings[0].message == "an [ext_resource] without an id (res://a.png) was skipped; an unknown section [weird] was skipped"


# --- the value syntax ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [
    ('"a\\nb\\t\\"q\\" \\\\ \\u00e9 \\U01F600 \\ud83d\\ude00"', 'a\nb\t"q" \\ é 😀 😀'),
    ('"line one\n[node name=\\"fake\\"]\nkey = 3"', 'line one\n[node name="fake"]\nkey = 3'),
    ('&"StringName"', "StringName"), ("-12", -12), ("1e-05", 1e-05), ("2.5", 2.5), ("-inf", float("-inf")),
    ("[1, 2, ]", [1, 2]), ("[ ]", []), ('{"a": 1, 2: [true, null], }', {"a": 1, 2: [True, None]}),
    ("[1, ; a comment ]\n 2]", [1, 2]),
    ('ExtResource("1_ab")', Ref("ext", "1_ab")), ("ExtResource( 3 )", Ref("ext", "3")),
    ('SubResource("Mesh_x")', Ref("sub", "Mesh_x")), ('Resource("res://a.png")', Ref("path", "res://a.png")),
    ('Resource("uid://abc", "res://a.png")', Ref("path", "uid://abc", "res://a.png")),
    ("Vector3(0, -1.5, 2e3)", Call("Vector3")), ("Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)", Call("Transform3D")),
    ("Color(inf, nan, 0, 1)", Call("Color")), ('NodePath("A/B:x")', Call("NodePath", ("A/B:x",))),
    ("PackedByteArray()", Packed("PackedByteArray", 0)), ("PackedByteArray(1, 2, 3)", Packed("PackedByteArray", 3)),
    ('PackedByteArray("AAECAwQ=")', Packed("PackedByteArray", 5)), ('PackedByteArray("")', Packed("PackedByteArray", 0)),
    ("PackedVector3Array(0, 0, 0, 1, 1, 1)", Packed("PackedVector3Array", 2)),
    ('PackedStringArray("a", "b)")', Packed("PackedStringArray", 2, ("a", "b)"))),
    ("Array[int]([1, 2])", [1, 2]), ('Array[ExtResource("1")]([SubResource("a")])', [Ref("sub", "a")]),
    ('Dictionary[String, int]({"a": 1})', {"a": 1}),
    ('Object(InputEventKey,"keycode":32,"script":null)', Call("Object", ("InputEventKey", {"keycode": 32, "script": None}))),
    ("RID()", Call("RID")), ("Callable()", Call("Callable")),
])
def test_values(text, value):
    got = parse_value(text)
    if isinstance(value, float) and value != value:
        assert got != got
    else:
        assert got == value


@pytest.mark.parametrize(("text", "length", "numbers"), [
    ("PoolIntArray( 1, 2 )", 2, " 1, 2 "), ("PackedInt32Array()", 0, ""),
    ("PackedInt32Array(3, 0, ; a comment\n 7)", 3, "3, 0, ; a comment\n 7"),
])
def test_int32_arrays_keep_where_their_numbers_are(text, length, numbers):
    """A PackedInt32Array keeps the span of its numbers in the text (a GridMap's cells are read
    from it), not a copy; the other packed arrays keep their count only."""
    got = parse_value(text)
    assert isinstance(got, Packed) and (got.type, got.length) == ("PackedInt32Array", length)
    assert isinstance(got.data, TextSpan) and got.data.text is text
    assert text[got.data.start:got.data.end] == numbers


def test_sections_keys_and_multi_line_values():
    text = ('config_version=5\n\n[application]\n\nconfig/name="A"\nrun/main_scene="uid://m"\n'
            '"quoted key"={\n"events": [Object(InputEventKey,"keycode":1)\n, 2]\n}\n[other.Android]\nx=1\n')
    sections = parse_sections(text, simple_tags=True)
    assert [(name, props) for name, _, props in sections] == [
        ("", {"config_version": 5}),
        ("application", {"config/name": "A", "run/main_scene": "uid://m",
                         "quoted key": {"events": [Call("Object", ("InputEventKey", {"keycode": 1})), 2]}}),
        ("other.Android", {"x": 1}),
    ]
    with pytest.raises(GodotSyntaxError) as err:
        parse_value("[1, 2] 3")
    assert err.value.line == 1


def test_big_packed_arrays_are_counted_not_tokenised():
    n = 300_000
    text = "PackedFloat32Array(" + ", ".join(["-1.5e-3"] * n) + ")"
    assert parse_value(text) == Packed("PackedFloat32Array", n)


# --- files Godot 3.2 wrote (data/godot3, from make.gd) -------------------------------------------


@pytest.mark.parametrize("suffix", ["scn", "tscn"])
def test_godot3_scene_binary_and_text_agree(suffix):
    level = read_path(DATA, f"level.{suffix}")
    assert codes(level) == []
    assert edges(level) == [("instance", f"level.{suffix}", "res://part.scn", 1, "", "", (), f"Level/Part{i}") for i in range(3)]
    part = read_path(DATA, f"part.{suffix}")
    assert codes(part) == []
    assert edges(part) == [
        ("mesh", f"part.{suffix}", "res://tri.res", 1, "", "", ("res://red.tres",), "Town/Barrel"),  # Godot 3's material/0
        ("mesh", f"part.{suffix}", "res://tri.res", 7, "", "", (), "Town/Crowd"),
    ]


@pytest.mark.parametrize("suffix", ["res", "tres"])
def test_godot3_mesh_is_not_priced_but_its_material_is_loaded(suffix):
    r = read_path(DATA, f"tri.{suffix}")
    assert r.meshes == ()
    assert edges(r) == [("material", f"tri.{suffix}", f"tri.{suffix}#material/0", 1, "", "", (), "")]
    assert [f.message for f in r.findings] == ["generated at load time or embedded, not priced: 1 Godot 3 ArrayMesh"]


# --- Godot 4 binary resources (godot_factories, the saver's layout) --------------------------------


def binary_scene(*, magic: bool = True) -> bytes:
    """A binary PackedScene: a material sub-resource with a texture, a mesh sub-resource, a
    node placing the mesh with a surface override, an instanced scene and a MultiMesh.
    ``magic=False``: the stream a compressed file holds (``gf.rscc``)."""
    surface = {"format": V2 | VERTEX | UV | INDEX, "primitive": 3, "vertex_count": 4,
               "vertex_data": gf.V(gf.BYTES, bytes(48)), "attribute_data": gf.V(gf.BYTES, bytes(32)),
               "aabb": gf.V(gf.AABB), "index_count": 6, "index_data": gf.V(gf.BYTES, bytes(12)), "material": gf.Sub(0)}
    names = ["Town", "Node3D", "Barrel", "MeshInstance3D", "mesh", "surface_material_override/0", "Prop", "Crowd",
             "MultiMeshInstance3D", "multimesh", "Child"]
    variants = [gf.Sub(1), gf.Ext(1), gf.Ext(2), gf.Sub(2)]
    nodes = [(-1, "Node3D", "Town", -1, []),
             (0, "MeshInstance3D", "Barrel", -1, [("mesh", 0), ("surface_material_override/0", 1)]),
             (0, None, "Prop", 2, []),
             (1, "MultiMeshInstance3D", "Crowd", -1, [("multimesh", 3)]),
             (("path", 0), "Node3D", "Child", -1, [])]
    return gf.rsrc("PackedScene", [("Texture2D", "res://tex/a.png", "uid://ctex"), ("Material", "res://m.tres", ""),
                                   ("PackedScene", "res://prop.tscn", "uid://prop")], [
        ("StandardMaterial3D_1", "StandardMaterial3D", {"albedo_texture": gf.Ext(0), "albedo_color": gf.V(gf.COLOR)}),
        ("ArrayMesh_1", "ArrayMesh", {"resource_name": "Barrel", "_surfaces": [surface]}),
        ("MultiMesh_1", "MultiMesh", {"instance_count": 12, "mesh": gf.Sub(1), "buffer": gf.V(gf.FLOAT32S, [0.0] * 24)}),
        ("", "PackedScene", {"_bundled": gf.bundled(names, variants, nodes, node_paths=("Barrel/Deep",))}),
    ], uid="uid://scene", magic=magic)


BINARY_EDGES = [
    ("texture", "town.scn#material/0", "uid://ctex::res://tex/a.png", 1, "albedo_texture", "", (), "StandardMaterial3D_1"),
    ("mesh", "town.scn", "town.scn#mesh/0", 1, "", "", ("res://m.tres",), "Town/Barrel"),
    ("instance", "town.scn", "uid://prop::res://prop.tscn", 1, "", "", (), "Town/Prop"),
    ("mesh", "town.scn", "town.scn#mesh/0", 12, "", "", (), "Town/Barrel/Crowd"),
]


def test_binary_scene(tmp_path):
    r = read(tmp_path, "town.scn", binary_scene())
    assert codes(r) == []
    assert r.scenes[0].role == "scene"
    assert edges(r) == BINARY_EDGES
    (m,) = r.meshes
    # position 12 B x 4 + uv 8 B x 4; 6 u16 indices
    assert (m.path, m.name, m.vertex_bytes, m.index_bytes, m.triangles, m.primitives[0].material) == (
        "town.scn#mesh/0", "Barrel", 80, 12, 2, "town.scn#material/0")


def test_binary_scene_in_memory_and_under_a_text_name(tmp_path):
    data = binary_scene()
    assert edges(read_source(Source(rel="town.scn", data=data, suffix_hint=".scn"))) == BINARY_EDGES
    r = read(tmp_path, "town.tscn", data)
    assert codes(r) == ["TB003"]
    assert [e[0] for e in edges(r)] == [e[0] for e in BINARY_EDGES]


def test_binary_mesh_file_and_lightmap(tmp_path):
    surface = {"format": V2 | VERTEX | NORMAL | TANGENT | INDEX, "primitive": 3, "vertex_count": 3,
               "vertex_data": gf.V(gf.BYTES, bytes(60)), "aabb": gf.V(gf.AABB), "index_count": 3,
               "index_data": gf.V(gf.BYTES, bytes(6))}  # 3 x (12 + 4 + 4); 3 u16 indices (6 bytes, padded to 8)
    data = gf.rsrc("ArrayMesh", [], [("", "ArrayMesh", {"_surfaces": [surface], "blend_shape_mode": 1})], fmt=5, minor=2)
    r = read(tmp_path, "rock.mesh", data)
    assert codes(r) == [] and r.scenes[0].role == "resource"
    assert [(m.path, m.vertex_bytes, m.index_bytes) for m in r.meshes] == [("rock.mesh#mesh/0", 60, 6)]
    lightmap = gf.rsrc("LightmapGIData", [("TextureLayered", "res://level.exr", "uid://lm")], [
        ("", "LightmapGIData", {"lightmap_textures": [gf.Ext(0)], "uses_spherical_harmonics": True})])
    assert edges(read(tmp_path, "level.lmbake", lightmap)) == [
        ("texture", "level.lmbake", "uid://lm::res://level.exr", 1, "lightmap_textures", "", (), "")]


def test_binary_uid_text_matches_godots_base_34():
    # ResourceUID::id_to_text: digits a..y then 0..8, most significant first
    assert uid_text(0) == "uid://a" and uid_text(33) == "uid://8" and uid_text(34) == "uid://ba"
    assert uid_text(0xFFFFFFFFFFFFFFFF) == ""
    for text in ("uid://b3barrel", "uid://c7level", "uid://d4n4ub6itg400"):
        assert uid_text(gf.uid_value(text)) == text


def _cuts(data: bytes) -> list[int]:
    return sorted(set(range(0, 120)) | set(range(120, len(data) - 4, 7)))


def test_truncated_binary_is_always_an_error(tmp_path):
    data = binary_scene()
    for cut in _cuts(data):
        r = read(tmp_path, "cut.scn", data[:cut])
        assert (r.meshes, r.scenes) == ((), ()), cut
        (f,) = r.findings
        assert f.code == ("TB040" if cut == 0 else "TB101"), (cut, f.message)
    r = read(tmp_path, "cut.scn", data[:-4])  # the "RSRC" end mark is not needed to read the file
    assert edges(r) == [(k, h.replace("town", "cut"), t.replace("town", "cut"), *rest) for k, h, t, *rest in BINARY_EDGES]


def _offset(data: bytes, entry: bytes, value: int) -> bytes:
    """``data`` with the internal-table offset after ``entry`` set to ``value``."""
    at = data.index(entry) + len(entry)
    return data[:at] + struct.pack("<Q", value) + data[at + 8:]


@pytest.mark.parametrize(("patch", "code", "message"), [
    (lambda d: b"RSCC" + d[4:], "TB102", "a compressed binary resource (RSCC, FastLZ): its content is not read"),
    (lambda d: d[:20] + struct.pack("<I", 7) + d[24:], "TB102",
     "binary resource format 7 of Godot 4.3; texbudget reads formats 1–6 (Godot 3 and 4)"),
    (lambda d: b"OGRE" + d[4:], "TB108", ".mesh file that is not a Godot resource (it starts with b'OGRE'); not read"),
    (lambda d: _offset(d, b"local://MultiMesh_1\0", 2**40), "TB101",
     "broken Godot binary resource: internal resource MultiMesh_1 lies at byte 1099511627776, past the end of the 1795-byte file"),
])
def test_binary_refused(tmp_path, patch, code, message):
    r = read(tmp_path, "x.mesh", patch(binary_scene()))
    assert (r.meshes, r.scenes, [f.code for f in r.findings]) == ((), (), [code])
    assert message is None or r.findings[0].message == message


def test_binary_counts_beyond_the_file_are_refused_without_allocating(tmp_path):
    data = bytearray(binary_scene())
    at = data.index(b"PackedScene\0") + len(b"PackedScene\0") + 8 + 4 + 8 + 44  # the string table's count
    data[at:at + 4] = struct.pack("<I", 2**31)
    (f,) = read(tmp_path, "x.scn", bytes(data)).findings
    assert f.code == "TB101" and "claims 2147483648 entries" in f.message


def test_text_resource_under_a_binary_name(tmp_path):
    r = read(tmp_path, "m.res", mesh_tres(gf.text_surface(V2 | VERTEX, 3, 36)))
    assert codes(r) == ["TB003"]
    assert [m.vertex_bytes for m in r.meshes] == [36]


def test_every_edge_kind_is_one_of_the_vocabulary(tmp_path):
    from texbudget.model import REF_KINDS

    for text in (LEVEL, MESHES, MATERIALS):
        for e in (ref for s in read(tmp_path, "k.tscn", text).scenes for ref in s.refs):
            assert isinstance(e, SceneRef) and e.kind in REF_KINDS


# --- compressed binary resources (RSCC): the editor saves .scn/.res so by default --------------


@pytest.mark.parametrize(("mode", "block_size"), [(2, 4096), (2, 256), (1, 300), (3, 1024)])
def test_compressed_binary_reads_as_the_uncompressed_one(tmp_path, mode, block_size):
    """Zstandard (Godot's default), Deflate and gzip; one block, or many (the scene's 1.8 KB
    stream in 256-byte blocks is 8 blocks, the last partial). The offsets in the stream count
    from its start, without the RSRC magic (3d/platformer's grid_map.scn and the cube.mesh of
    the character demos are such files)."""
    stream = binary_scene(magic=False)
    assert len(stream) == len(binary_scene()) - 4
    r = read(tmp_path, "town.scn", gf.rscc(stream, mode, block_size))
    assert codes(r) == []
    assert edges(r) == BINARY_EDGES
    assert [(m.path, m.vertex_bytes, m.index_bytes) for m in r.meshes] == [("town.scn#mesh/0", 80, 12)]


def test_compressed_binary_uid_is_read_from_its_first_block(tmp_path):
    from texbudget.levels.godot import GodotIndex, binary_uid

    data = gf.rscc(binary_scene(magic=False), 2, 256)
    assert binary_uid(data) == "uid://scene"
    assert binary_uid(data[:40]) == ""  # the first block is not all there
    (tmp_path / "town.scn").write_bytes(data)
    assert GodotIndex(tmp_path).uid_of("town.scn") == "uid://scene"


def _blocks(data: bytes) -> tuple[int, int, list[int]]:
    _mode, block_size, total = struct.unpack_from("<III", data, 4)
    n = total // block_size + 1
    return block_size, total, list(struct.unpack_from(f"<{n}I", data, 16))


@pytest.mark.parametrize(("patch", "code", "message"), [
    (lambda d: d[:4] + struct.pack("<I", 0) + d[8:], "TB102", "a compressed binary resource (RSCC, FastLZ): its content is not read"),
    (lambda d: d[:4] + struct.pack("<I", 4) + d[8:], "TB102", "a compressed binary resource (RSCC, Brotli): its content is not read"),
    (lambda d: d[:4] + struct.pack("<I", 9) + d[8:], "TB102", "a compressed binary resource (RSCC, unknown mode 9): its content is not read"),
    (lambda d: d[:8] + struct.pack("<I", 0) + d[12:], "TB101", "broken Godot binary resource: the compressed resource's block size is 0"),
    (lambda d: d[:12] + struct.pack("<I", 2**31) + d[16:], "TB101", "broken Godot binary resource: the compressed resource claims "
     "2,147,483,648 bytes uncompressed, more than texbudget inflates (268,435,456)"),
    (lambda d: d[:8] + struct.pack("<II", 1, 2**20) + d[16:], "TB101", "broken Godot binary resource: the compressed resource lists "
     "1,048,577 blocks; the 1,036-byte file cannot hold their sizes"),
    (lambda d: d[:-1], "TB101", "broken Godot binary resource: the compressed blocks need 1,036 bytes; the file has 1,035"),
    (lambda d: d[:50] + bytes(b ^ 0xFF for b in d[50:58]) + d[58:], "TB101", None),  # the first block's data broken
    (lambda d: d[:12] + struct.pack("<I", 1691) + d[16:], "TB101", "broken Godot binary resource: a compressed block inflates to "
     "more than 155 bytes, not the 155 its header gives"),  # the last block is longer than the header's length says
])
def test_compressed_binary_refused(tmp_path, patch, code, message):
    data = gf.rscc(binary_scene(magic=False), 1, 256)
    assert len(data) == 1036 and _blocks(data)[:2] == (256, 1791)  # 6 blocks of 256 bytes and one of 255
    r = read(tmp_path, "x.scn", patch(data))
    assert (r.meshes, r.scenes, codes(r)) == ((), (), [code])
    if message is None:
        assert r.findings[0].message.startswith("broken Godot binary resource: a compressed block "), r.findings[0].message
    else:
        assert r.findings[0].message == message


def test_compressed_block_is_never_inflated_past_its_size(tmp_path):
    """A block that inflates to far more than its block (a compression bomb) is refused after
    at most one byte more than the block holds."""
    from backports import zstd

    bomb = zstd.compress(bytes(64 * 1024 * 1024))  # 64 MiB of zeros in a few KiB
    data = b"RSCC" + struct.pack("<IIII", 2, 4096, 100, len(bomb)) + bomb
    (f,) = read(tmp_path, "bomb.res", data).findings
    assert (f.code, f.message) == ("TB101", "broken Godot binary resource: a compressed block inflates to more than 100 bytes, not the 100 its header gives")


def test_truncated_compressed_binary_is_always_an_error(tmp_path):
    data = gf.rscc(binary_scene(magic=False), 2, 256)
    for cut in range(0, len(data), 5):
        r = read(tmp_path, "cut.scn", data[:cut])
        assert (r.meshes, r.scenes) == ((), ()), cut
        (f,) = r.findings
        assert f.code == ("TB040" if cut == 0 else "TB101"), (cut, f.message)


def test_compressed_zstd_block_that_does_not_inflate_and_no_zstd_module(tmp_path, monkeypatch):
    from texbudget.readers import godot_binary

    data = gf.rscc(binary_scene(magic=False), 2, 4096)  # one block: its frame starts at byte 20
    broken = data[:24] + bytes(b ^ 0xFF for b in data[24:40]) + data[40:]
    (f,) = read(tmp_path, "x.scn", broken).findings
    assert f.code == "TB101" and f.message.startswith("broken Godot binary resource: a compressed block does not inflate (Zstandard: ")
    monkeypatch.setattr(godot_binary, "_zstd", lambda: None)  # Python before 3.14 without backports.zstd
    (f,) = read(tmp_path, "y.scn", data).findings
    assert (f.code, f.message) == ("TB102", "a compressed binary resource (RSCC, Zstandard): reading it needs the zstd "
                                   "module (`pip install backports.zstd`); its content is not read")
