"""Godot's ``detect_3d`` by the node that draws a texture (``policy/decision.py: NOT_3D_SLOTS``,
docs/levels.md), through ``main([...])`` on a hand-made Godot project whose every texture is
imported Lossless, without mipmaps, with ``detect_3d/compress_to=1`` (the editor's default for
a 2D texture): a texture a 3D material draws — a Sprite3D's, an AnimatedSprite3D's frames
(inline or in a SpriteFrames file, through AtlasTextures inline or in files), a material's
AtlasTexture file — is converted to VRAM Compressed with mipmaps; one only 2D nodes draw
(Sprite2D, AnimatedSprite2D through its SpriteFrames and AtlasTextures), or a Decal, stays as
imported. Both in the level's report and in the whole project's.

Every texture is a 64 × 64 RGB PNG: Lossless is R8G8B8A8_SRGB, 16,384 bytes (4 KiB placement);
converted, BC1_RGB_SRGB with the full chain, 2,048 + 512 + 128 + 32 + 3 × 8 = 2,744 content
bytes in one 4 KiB placement.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration import level_projects as lp
from texbudget.cli import main

LOSSLESS = ("R8G8B8A8_SRGB", 1, 16384)
CONVERTED = ("BC1_RGB_SRGB", 7, 4096)

LEVEL = """[gd_scene load_steps=12 format=3 uid="uid://bsprites"]

[ext_resource type="Texture2D" path="res://tex/sign.png" id="1"]
[ext_resource type="Texture2D" path="res://tex/deep.png" id="2"]
[ext_resource type="Texture2D" path="res://tex/deep_sheet.png" id="3"]
[ext_resource type="SpriteFrames" path="res://anim/walk.tres" id="4"]
[ext_resource type="Texture2D" path="res://tex/flat.png" id="5"]
[ext_resource type="Texture2D" path="res://tex/flat_sheet.png" id="6"]
[ext_resource type="SpriteFrames" path="res://anim/hud.tres" id="7"]
[ext_resource type="Texture2D" path="res://tex/label.png" id="8"]
[ext_resource type="Texture2D" path="res://tex/decal.png" id="9"]
[ext_resource type="Texture2D" path="res://anim/rune.tres" id="10"]
[ext_resource type="ArrayMesh" path="res://meshes/box.tres" id="11"]

[sub_resource type="AtlasTexture" id="DeepCut"]
atlas = ExtResource("3")
region = Rect2(0, 0, 32, 32)

[sub_resource type="SpriteFrames" id="DeepFrames"]
animations = [{
"frames": [{"duration": 1.0, "texture": ExtResource("2")}, {"duration": 1.0, "texture": SubResource("DeepCut")}],
"loop": true,
"name": &"default",
"speed": 5.0
}]

[sub_resource type="AtlasTexture" id="FlatCut"]
atlas = ExtResource("6")
region = Rect2(0, 0, 32, 32)

[sub_resource type="SpriteFrames" id="FlatFrames"]
animations = [{
"frames": [{"duration": 1.0, "texture": ExtResource("5")}, {"duration": 1.0, "texture": SubResource("FlatCut")}],
"loop": true,
"name": &"default",
"speed": 5.0
}]

[sub_resource type="StandardMaterial3D" id="Rune"]
albedo_texture = ExtResource("10")

[node name="World" type="Node3D"]

[node name="Sign" type="Sprite3D" parent="."]
texture = ExtResource("1")

[node name="Deep" type="AnimatedSprite3D" parent="."]
sprite_frames = SubResource("DeepFrames")

[node name="Walker" type="AnimatedSprite3D" parent="."]
sprite_frames = ExtResource("4")

[node name="Flat" type="AnimatedSprite2D" parent="."]
sprite_frames = SubResource("FlatFrames")

[node name="Hud" type="AnimatedSprite2D" parent="."]
sprite_frames = ExtResource("7")

[node name="Label" type="Sprite2D" parent="."]
texture = ExtResource("8")

[node name="Decal" type="Decal" parent="."]
texture_albedo = ExtResource("9")

[node name="Box" type="MeshInstance3D" parent="."]
mesh = ExtResource("11")
material_override = SubResource("Rune")
"""

WALK = """[gd_resource type="SpriteFrames" load_steps=3 format=3]

[ext_resource type="Texture2D" path="res://tex/walk.png" id="1"]
[ext_resource type="Texture2D" path="res://anim/cut.tres" id="2"]

[resource]
animations = [{
"frames": [{"duration": 1.0, "texture": ExtResource("1")}, {"duration": 1.0, "texture": ExtResource("2")}],
"loop": true,
"name": &"walk",
"speed": 8.0
}]
"""

HUD = """[gd_resource type="SpriteFrames" load_steps=2 format=3]

[ext_resource type="Texture2D" path="res://tex/hud.png" id="1"]

[resource]
animations = [{
"frames": [{"duration": 1.0, "texture": ExtResource("1")}],
"loop": true,
"name": &"blink",
"speed": 2.0
}]
"""


def atlas(image: str) -> str:
    return (f'[gd_resource type="AtlasTexture" load_steps=2 format=3]\n\n[ext_resource type="Texture2D" path="{image}" id="1"]\n\n'
            '[resource]\natlas = ExtResource("1")\nregion = Rect2(0, 0, 16, 16)\n')


def texture_import(rel: str) -> str:
    return ('[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\n\n[deps]\n\n'
            f'source_file="res://{rel}"\n\n[params]\n\ncompress/mode=0\nmipmaps/generate=false\ndetect_3d/compress_to=1\n')


#: What Godot leaves each texture as.
EXPECTED = {
    "tex/sign.png": CONVERTED,  # a Sprite3D's texture
    "tex/deep.png": CONVERTED, "tex/deep_sheet.png": CONVERTED,  # an AnimatedSprite3D's inline frames
    "tex/walk.png": CONVERTED, "tex/walk_sheet.png": CONVERTED,  # its SpriteFrames file, an AtlasTexture file in it
    "tex/rune.png": CONVERTED,  # a material's AtlasTexture file
    "tex/flat.png": LOSSLESS, "tex/flat_sheet.png": LOSSLESS,  # an AnimatedSprite2D's inline frames
    "tex/hud.png": LOSSLESS,  # an AnimatedSprite2D's SpriteFrames file
    "tex/label.png": LOSSLESS,  # a Sprite2D's
    "tex/decal.png": LOSSLESS,  # a Decal's: copied into the decal atlas, no material
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "game"
    lp.write(root, "project.godot", 'config_version=5\n\n[application]\nrun/main_scene="uid://bsprites"\n')
    lp.write(root, "levels/sprites.tscn", LEVEL)
    lp.write(root, "anim/walk.tres", WALK)
    lp.write(root, "anim/hud.tres", HUD)
    lp.write(root, "anim/cut.tres", atlas("res://tex/walk_sheet.png"))
    lp.write(root, "anim/rune.tres", atlas("res://tex/rune.png"))
    lp.write(root, "meshes/box.tres", lp.array_mesh("Box", 8, 36))
    for rel in EXPECTED:
        lp.png(root / rel, 64)
        lp.write(root, f"{rel}.import", texture_import(rel))
    monkeypatch.chdir(tmp_path)
    return root


def priced(capsys, target: Path) -> dict[str, tuple[str, int, int]]:
    code = main(["scan", str(target), "--format", "json", "--cards", "8GB", "--resolution", "1080p", "--no-cache"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    data = json.loads(out)
    assert data["findings"] == []
    return {t["path"]: (t["gpu_format"], len(t["mips"]), t["allocated_bytes"]) for t in data["textures"]}


def test_a_level_converts_what_it_draws_in_3d(capsys, project):
    assert priced(capsys, project / "levels" / "sprites.tscn") == EXPECTED


def test_the_whole_project_converts_what_its_scenes_draw_in_3d(capsys, project):
    assert priced(capsys, project) == EXPECTED


def test_a_texture_drawn_in_2d_and_in_3d_is_converted(capsys, project):
    """The first 3D use converts it, whatever draws it in 2D as well."""
    level = (project / "levels" / "sprites.tscn").read_text()
    lp.write(project, "levels/sprites.tscn", level.replace('path="res://tex/label.png"', 'path="res://tex/sign.png"'))
    (project / "tex" / "label.png").unlink()
    expected = {k: v for k, v in EXPECTED.items() if k != "tex/label.png"}
    assert priced(capsys, project / "levels" / "sprites.tscn") == expected
