"""Hand-made Godot and Unity projects for the level tests (docs/levels.md): every construct a
level follows, with sizes chosen so each expected byte count can be worked out by hand.

Textures are RGB PNGs written by Pillow (no alpha: BC1 on the desktop profile, 0.5 byte a
texel plus the mip chain); meshes are Godot ArrayMesh surfaces of ``POSITION f32x3`` and u16
indices (``godot_factories.text_surface``: 12 bytes a vertex), or the FBX cube of
``fbx_factories`` (24 vertices of position and normal, 36 u16 indices).
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from tests.readers import fbx_factories as fbx
from tests.readers import godot_factories as gf
from tests.readers import unity_files as uf

V2, VERTEX, INDEX = 1 << 35, 1, 1 << 12

#: Texture side -> allocated bytes of an RGB PNG on the desktop profile (BC1_RGB_SRGB, full
#: chain; D3D12 placement: 4 KiB when the top level is at most 64 KiB, else 64 KiB).
#: 256: 32768 + 8192 + 2048 + 512 + 128 + 32 + 3 × 8 = 43,704 content bytes, 11 × 4 KiB.
#: 128: 8192 + 2048 + 512 + 128 + 32 + 3 × 8 = 10,936 content bytes, 3 × 4 KiB.
#: 512: 131072 + 43704 = 174,776 content bytes, 3 × 64 KiB.
ALLOCATED = {128: 12288, 256: 45056, 512: 196608}


def png(path: Path, side: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (side, side), (90, 60, 30)).save(path)


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def array_mesh(name: str, vertices: int, indices: int, *materials: str) -> str:
    """A text ArrayMesh resource: one surface per material (a Godot id, "" for none), each of
    ``vertices`` positions (12 bytes each) and ``indices`` u16 indices."""
    surfaces = [gf.text_surface(V2 | VERTEX | INDEX, vertices, 12 * vertices, index_count=indices, index_bytes=2 * indices,
                                material=f'ExtResource("{i + 1}")' if m else "")
                for i, m in enumerate(materials or ("",))]
    ext = "".join(f'[ext_resource type="Material" path="{m}" id="{i + 1}"]\n' for i, m in enumerate(materials) if m)
    return (f'[gd_resource type="ArrayMesh" load_steps={len(materials) + 1} format=3]\n{ext}[resource]\n'
            f'resource_name = "{name}"\n_surfaces = [{", ".join(surfaces)}]\n')


def material(*slots: tuple[str, str]) -> str:
    """A StandardMaterial3D resource: (property, texture path) per slot."""
    ext = "".join(f'[ext_resource type="Texture2D" path="{tex}" id="{i + 1}"]\n' for i, (_, tex) in enumerate(slots))
    props = "".join(f'{prop} = ExtResource("{i + 1}")\n' for i, (prop, _) in enumerate(slots))
    return f'[gd_resource type="StandardMaterial3D" format=3]\n{ext}[resource]\n{props}'


# --- Godot ------------------------------------------------------------------------------------

TOWN = """[gd_scene load_steps=9 format=3 uid="uid://ctown"]

[ext_resource type="PackedScene" uid="uid://bbarrel" path="res://props/old_barrel.tscn" id="1_b"]
[ext_resource type="PackedScene" path="res://props/market.tscn" id="2_m"]
[ext_resource type="ArrayMesh" path="res://meshes/rock.tres" id="3_r"]
[ext_resource type="Material" path="res://mat/moss.tres" id="4_moss"]
[ext_resource type="PackedScene" path="res://props/gone.tscn" id="5_g"]
[ext_resource type="PackedScene" path="res://props/broken.tscn" id="6_x"]

[sub_resource type="MultiMesh" id="MultiMesh_f"]
transform_format = 1
instance_count = 250
mesh = ExtResource("3_r")

[node name="Town" type="Node3D"]

[node name="Barrel" parent="." instance=ExtResource("1_b")]

[node name="Market" parent="." instance=ExtResource("2_m")]

[node name="Rock" type="MeshInstance3D" parent="."]
mesh = ExtResource("3_r")
material_override = ExtResource("4_moss")

[node name="Field" type="MultiMeshInstance3D" parent="."]
multimesh = SubResource("MultiMesh_f")
material_override = ExtResource("4_moss")

[node name="Gone" parent="." instance=ExtResource("5_g")]

[node name="Broken" parent="." instance=ExtResource("6_x")]
"""

BARREL = """[gd_scene load_steps=2 format=3 uid="uid://bbarrel"]

[ext_resource type="ArrayMesh" path="res://meshes/barrel.tres" id="1_m"]

[node name="Barrel" type="MeshInstance3D"]
mesh = ExtResource("1_m")
"""

MARKET = """[gd_scene load_steps=4 format=3]

[ext_resource type="PackedScene" uid="uid://bbarrel" path="res://props/barrel.tscn" id="1_b"]
[ext_resource type="ArrayMesh" path="res://meshes/stall.tres" id="2_s"]
[ext_resource type="Material" path="res://mat/iron.tres" id="3_i"]

[node name="Market" type="Node3D"]

[node name="Stall" type="MeshInstance3D" parent="."]
mesh = ExtResource("2_s")
surface_material_override/1 = ExtResource("3_i")

[node name="B1" parent="." instance=ExtResource("1_b")]

[node name="B2" parent="." instance=ExtResource("1_b")]

[node name="B3" parent="." instance=ExtResource("1_b")]
"""

LOOP = """[gd_scene load_steps=3 format=3]

[ext_resource type="PackedScene" path="res://levels/loop.tscn" id="1_self"]
[ext_resource type="ArrayMesh" path="res://meshes/barrel.tres" id="2_m"]

[node name="Loop" type="Node3D"]

[node name="Again" parent="." instance=ExtResource("1_self")]

[node name="Barrel" type="MeshInstance3D" parent="."]
mesh = ExtResource("2_m")
"""

#: What ``town.tscn`` loads, worked out by hand:
#: - barrel.tres (100 vertices, 300 indices: 1,200 + 600 = 1,800 bytes): the Barrel node (its
#:   uid found though its path is stale) and the market's three: 4 instances;
#: - stall.tres (2 surfaces of 40 vertices, 60 indices: 2 × (480 + 120) = 1,200 bytes): 1;
#: - rock.tres (50 vertices, 90 indices: 600 + 180 = 780 bytes): the Rock node and the
#:   MultiMesh's 250 (instance_count), both with moss.tres as material_override: 251 instances;
#: - textures: wood.png 256 (barrel's and the stall's surface 0), iron.png 128 (the stall's
#:   surface 1 override), moss.png 128 (the rock's material_override), shared_n.png 256
#:   (iron's and moss's normal_texture: once; a normal map, BC5: 1 byte a texel, 87,408 content
#:   bytes, top level 64 KiB: 22 × 4 KiB), and stone.png 256 (the rock's own material) and
#:   cloth.png 256 (the stall's own surface 1): Godot loads a mesh's surface materials with the
#:   mesh, an override only changes what it is drawn with (docs/levels.md, "Overrides") — not
#:   unused.png 512;
#: - a TB120 for gone.tscn and a TB121 for broken.tscn, both on levels/town.tscn.
TOWN_MESHES = {"meshes/barrel.tres#mesh/0": 4, "meshes/rock.tres#mesh/0": 251, "meshes/stall.tres#mesh/0": 1}
TOWN_MESH_BYTES = 1800 + 780 + 1200
TOWN_TEXTURES = ["tex/cloth.png", "tex/iron.png", "tex/moss.png", "tex/shared_n.png", "tex/stone.png", "tex/wood.png"]
TOWN_TEXTURE_BYTES = 3 * ALLOCATED[256] + 2 * ALLOCATED[128] + 90112


def godot_project(root: Path) -> Path:
    """A Godot 4 project whose main scene is ``levels/town.tscn`` (named by its uid)."""
    write(root, "project.godot", 'config_version=5\n\n[application]\nconfig/name="Town"\nrun/main_scene="uid://ctown"\n')
    write(root, "levels/town.tscn", TOWN)
    write(root, "levels/loop.tscn", LOOP)
    write(root, "props/barrel.tscn", BARREL)
    write(root, "props/market.tscn", MARKET)
    write(root, "props/broken.tscn", "[gd_scene format=3]\n[node name=\"Broken\" type=\"Node3D\"\nthis line breaks the syntax\n")
    write(root, "meshes/barrel.tres", array_mesh("Barrel", 100, 300, "res://mat/wood.tres"))
    write(root, "meshes/stall.tres", array_mesh("Stall", 40, 60, "res://mat/wood.tres", "res://mat/cloth.tres"))
    write(root, "meshes/rock.tres", array_mesh("Rock", 50, 90, "res://mat/stone.tres"))
    write(root, "mat/wood.tres", material(("albedo_texture", "res://tex/wood.png")))
    write(root, "mat/cloth.tres", material(("albedo_texture", "res://tex/cloth.png")))
    write(root, "mat/stone.tres", material(("albedo_texture", "res://tex/stone.png")))
    write(root, "mat/iron.tres", material(("albedo_texture", "res://tex/iron.png"), ("normal_texture", "res://tex/shared_n.png")))
    write(root, "mat/moss.tres", material(("albedo_texture", "res://tex/moss.png"), ("normal_texture", "res://tex/shared_n.png")))
    for name, side in {"wood": 256, "cloth": 256, "stone": 256, "iron": 128, "moss": 128, "shared_n": 256, "unused": 512}.items():
        png(root / "tex" / f"{name}.png", side)
    return root


# --- Unity ------------------------------------------------------------------------------------

GUIDS = {name: uf.guid(name) for name in ("main", "crate", "stack", "variant", "model", "wood", "paint", "wood-png", "paint-png",
                                            "normal-png", "unused-png")}
#: The FBX cube's mesh, named "Crate" after its Model (as Unity names it), by the id Unity
#: 2019.3+ hashes from the name (no table in the .meta): xxHash64("Type:Mesh->Crate0").
CRATE_MESH = "Crate"


def _meta(guid: str, importer: str = "DefaultImporter", body: str = "") -> str:
    """A .meta as Unity writes it: the name tables (in ``body``) before ``externalObjects``."""
    return f"fileFormatVersion: 2\nguid: {guid}\n{importer}:\n{body}  externalObjects: {{}}\n  userData: \n"


def _crate_object(go: int, name: str, materials: list[str], father: int = 0) -> str:
    """A GameObject with a MeshFilter of the crate model's mesh and a MeshRenderer."""
    from texbudget.levels.unity import hashed_file_id

    mesh = uf.ref(hashed_file_id("Mesh", CRATE_MESH), GUIDS["model"])
    return (uf.game_object(go, name, [go + 1, go + 2, go + 3]) + uf.transform(go + 1, go, father)
            + uf.mesh_filter(go + 2, go, mesh) + uf.renderer(go + 3, go, materials))


def _wood() -> str:
    return uf.ref(2100000, GUIDS["wood"], 2)


def _paint() -> str:
    return uf.ref(2100000, GUIDS["paint"], 2)


#: What ``Main.unity`` loads, worked out by hand:
#: - the crate mesh (Crate.fbx#mesh/0, 24 vertices × 24 bytes + 36 u16 indices = 648 bytes):
#:   the scene's two Crate instances, the stack's three, the variant's one, and the scene's
#:   own two crate objects: 8 instances;
#: - textures: wood.png 256 (Wood.mat: the crate's own material, still counted beside the
#:   overrides, TB113), paint.png 128 and normal.png 256 (Painted.mat: the variant's and one
#:   instance's m_Materials override) — not unused.png;
#:   normal.png is linear (its TextureImporter sets no sRGB): BC1_RGB_UNORM, the same bytes;
#: - the built-in Cube mesh and Default-Material: TB124 (info), not priced; a guid in no
#:   .meta: TB123 naming it.
MAIN_MESHES = {"Assets/Models/Crate.fbx#mesh/0": 8}
MAIN_MESH_BYTES = 24 * 24 + 36 * 2
MAIN_TEXTURES = ["Assets/Textures/normal.png", "Assets/Textures/paint.png", "Assets/Textures/wood.png"]
MAIN_TEXTURE_BYTES = ALLOCATED[256] * 2 + ALLOCATED[128]


def unity_project(root: Path) -> Path:
    """A Unity project (text serialization) whose Build Settings enable ``Assets/Scenes/Main.unity``."""
    g = GUIDS
    override = uf.modification(uf.ref(2300000, g["crate"]), "m_Materials.Array.data[0]", "", _paint())
    main = uf.HEAD + uf.scene_settings() + "".join([
        uf.prefab_instance(1000, g["crate"]), uf.prefab_instance(1100, g["crate"], modifications=[override]),
        uf.prefab_instance(1200, g["stack"]), uf.prefab_instance(1300, g["variant"]),
        _crate_object(2000, "Loose crate", [_wood()]),
        _crate_object(2100, "Plain crate", [uf.ref(10303, "0000000000000000f000000000000000", 0)]),
        uf.game_object(3000, "Box", [3001, 3002, 3003]), uf.transform(3001, 3000),
        uf.mesh_filter(3002, 3000, uf.ref(10202, uf.BUILTIN, 0)), uf.renderer(3003, 3000, [_wood()]),
        uf.game_object(4000, "Ghost", [4001, 4002, 4003]), uf.transform(4001, 4000),
        uf.mesh_filter(4002, 4000, uf.ref(4300000, uf.guid("deleted-model"))), uf.renderer(4003, 4000, [_wood()]),
    ])
    write(root, "Assets/Scenes/Main.unity", main)
    write(root, "Assets/Prefabs/Crate.prefab", uf.HEAD + _crate_object(100, "Crate", [_wood()]))
    write(root, "Assets/Prefabs/CrateStack.prefab", uf.HEAD + uf.game_object(10, "Stack", [11]) + uf.transform(11, 10)
          + "".join(uf.prefab_instance(100 * k, g["crate"], parent=11) for k in (1, 2, 3)))
    write(root, "Assets/Prefabs/CrateVariant.prefab", uf.HEAD + uf.prefab_instance(100, g["crate"], modifications=[override]))
    scene = fbx.Scene(meshes=[fbx.cube(CRATE_MESH, models=(CRATE_MESH,), layers=[fbx.flat_normals()], materials=[0])], materials=["Wood"])
    write(root, "Assets/Models/Crate.fbx", scene.binary())
    write(root, "Assets/Materials/Wood.mat", uf.material("Wood", [uf.texture_slot("_BaseMap", uf.ref(2800000, g["wood-png"]))]))
    write(root, "Assets/Materials/Painted.mat", uf.material("Painted", [uf.texture_slot("_BaseMap", uf.ref(2800000, g["paint-png"])),
                                                                         uf.texture_slot("_BumpMap", uf.ref(2800000, g["normal-png"]))]))
    for name, side in {"wood": 256, "paint": 128, "normal": 256, "unused": 512}.items():
        png(root / "Assets" / "Textures" / f"{name}.png", side)
        write(root, f"Assets/Textures/{name}.png.meta", _meta(g[f"{name}-png"], "TextureImporter", "  mipmaps:\n    enableMipMap: 1\n"))
    for rel, key, importer in [("Scenes/Main.unity", "main", "DefaultImporter"), ("Prefabs/Crate.prefab", "crate", "PrefabImporter"),
                               ("Prefabs/CrateStack.prefab", "stack", "PrefabImporter"),
                               ("Prefabs/CrateVariant.prefab", "variant", "PrefabImporter"),
                               ("Models/Crate.fbx", "model", "ModelImporter"), ("Materials/Wood.mat", "wood", "NativeFormatImporter"),
                               ("Materials/Painted.mat", "paint", "NativeFormatImporter")]:
        write(root, f"Assets/{rel}.meta", _meta(g[key], importer))
    write(root, "ProjectSettings/EditorBuildSettings.asset",
          "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1045 &1\nEditorBuildSettings:\n  m_ObjectHideFlags: 0\n"
          f"  serializedVersion: 2\n  m_Scenes:\n  - enabled: 1\n    path: Assets/Scenes/Main.unity\n    guid: {g['main']}\n")
    return root
