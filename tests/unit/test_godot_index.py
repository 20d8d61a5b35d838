"""The Godot project index (``texbudget/levels/godot.py``): res:// paths by the nearest
``project.godot``, uids by ``.import`` / ``.uid`` / scene headers / binary headers (per
project), extracted glTF materials, the main scene, and what it refuses.

The files are written as Godot 4 writes them: ``.import`` and ``project.godot`` in ConfigFile
syntax with ``[remap] uid=``, ``.uid`` files holding one uid (Godot 4.4+), binary resources
from ``godot_factories`` (the saver's layout)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from tests.readers import godot_factories as gf
from texbudget.levels.godot import (
    GodotIndex,
    ImportInfo,
    binary_uid,
    gltf_material_names,
    parse_import,
    parse_project,
    parse_uid_file,
    split_target,
    text_uid,
)

PNG_IMPORT = """[remap]

importer="texture"
type="CompressedTexture2D"
uid="uid://cpng"
path="res://.godot/imported/rock.png-0123.ctex"
metadata={
"vram_texture": false
}

[deps]

source_file="res://tex/rock.png"
dest_files=["res://.godot/imported/rock.png-0123.ctex"]

[params]

compress/mode=0
"""

GLB_IMPORT = """[remap]

importer="scene"
importer_version=1
type="PackedScene"
uid="uid://cglb"
path="res://.godot/imported/props.glb-77.scn"

[params]

nodes/root_type=""
_subresources={
"materials": {
"Rock": {
"use_external/enabled": true,
"use_external/fallback_path": "res://mat/rock.tres",
"use_external/path": "uid://crock"
},
"material_2": {
"use_external/enabled": true,
"use_external/path": "res://mat/plain.tres"
},
"Wood": {
"use_external/enabled": false,
"use_external/path": "res://mat/wood.tres"
}
},
"meshes": {
"props_Rock": {
"save_to_file/enabled": false
}
}
}
gltf/naming_version=2
"""


def write(root: Path, rel: str, content: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


def glb(materials: list[dict]) -> bytes:
    doc = json.dumps({"asset": {"version": "2.0"}, "materials": materials}).encode()
    doc += b" " * (-len(doc) % 4)
    return b"glTF" + struct.pack("<II", 2, 20 + len(doc)) + struct.pack("<II", len(doc), 0x4E4F534A) + doc


def project(root: Path) -> None:
    write(root, "game/project.godot", 'config_version=5\n\n[application]\n\nconfig/name="Game"\nrun/main_scene="uid://cmain"\n'
                                      'config/features=PackedStringArray("4.4")\n')
    write(root, "game/levels/town.tscn", '[gd_scene load_steps=2 format=3 uid="uid://cmain"]\n\n[node name="Town" type="Node3D"]\n')
    write(root, "game/tex/rock.png", b"png")
    write(root, "game/tex/rock.png.import", PNG_IMPORT)
    write(root, "game/scripts/a.gd", "extends Node\n")
    write(root, "game/scripts/a.gd.uid", "uid://cscript\n")
    write(root, "game/mat/rock.tres", '[gd_resource type="StandardMaterial3D" format=3 uid="uid://crock"]\n[resource]\n')
    write(root, "game/mat/plain.tres", '[gd_resource type="StandardMaterial3D" format=3]\n[resource]\n')
    write(root, "game/meshes/barrel.res", gf.rsrc("ArrayMesh", [], [("", "ArrayMesh", {})], uid="uid://cbarrel"))
    write(root, "game/props.glb", glb([{"name": "Wood"}, {"name": "Rock"}, {}, {"name": ""}]))
    write(root, "game/props.glb.import", GLB_IMPORT)
    write(root, "game/.godot/imported/ghost.tscn", '[gd_scene format=3 uid="uid://cghost"]\n')
    write(root, "game/addons/ignored/.gdignore", "")
    write(root, "game/addons/ignored/x.tscn", '[gd_scene format=3 uid="uid://cignored"]\n')


# --- the pure functions -------------------------------------------------------------------------


def test_parse_import():
    assert parse_import(PNG_IMPORT) == ImportInfo(uid="uid://cpng", importer="texture", type="CompressedTexture2D")
    info = parse_import(GLB_IMPORT)
    assert info is not None and info.uid == "uid://cglb" and info.importer == "scene"
    assert info.external_materials == (("Rock", "uid://crock::res://mat/rock.tres"), ("material_2", "res://mat/plain.tres"))
    assert parse_import("[deps]\nsource_file=\"x\"\n") is None


def test_uids_from_files():
    assert parse_uid_file("uid://cscript\n") == "uid://cscript"
    assert parse_uid_file("") == parse_uid_file("not a uid") == ""
    assert text_uid('[gd_scene load_steps=2 format=3 uid="uid://cmain"]\n') == "uid://cmain"
    assert text_uid('[gd_resource type="Environment" uid="uid://b0" format=3]') == "uid://b0"
    assert text_uid("[gd_scene format=3]\n[ext_resource uid=\"uid://notmine\"]") == ""
    assert binary_uid(gf.rsrc("ArrayMesh", [], [("", "ArrayMesh", {})], uid="uid://cbarrel")) == "uid://cbarrel"
    assert binary_uid(gf.rsrc("ArrayMesh", [], [("", "ArrayMesh", {})])) == ""
    assert binary_uid(b"RSRC" + bytes(10)) == binary_uid(b"RSCC" + bytes(100)) == ""
    assert parse_project('[application]\nrun/main_scene="res://main.tscn"\n') == "res://main.tscn"
    assert parse_project("config_version=5\n") == ""
    assert split_target("uid://c::res://a.png") == ("uid://c", "res://a.png")
    assert split_target("res://a.png") == ("", "res://a.png") and split_target("uid://c") == ("uid://c", "")


def test_gltf_material_names_as_godot_names_them():
    assert gltf_material_names(glb([{"name": "Wood"}, {}, {"name": ""}])) == ["Wood", "material_1", "material_2"]
    assert gltf_material_names(json.dumps({"materials": [{"name": "A"}]}).encode()) == ["A"]
    assert gltf_material_names(b"glTF" + bytes(30)) is None
    assert gltf_material_names(b"{not json") is None
    assert gltf_material_names(b"{}") == []


# --- resolution -----------------------------------------------------------------------------------


def test_res_paths_from_the_project_root(tmp_path):
    project(tmp_path)
    index = GodotIndex(tmp_path)
    assert index.resolve("res://tex/rock.png", "game/levels/town.tscn") == "game/tex/rock.png"  # the imported file's source
    assert index.resolve("res://nope.png", "game/levels/town.tscn") == "game/nope.png"  # the caller says it is missing
    assert index.resolve("game/tex/rock.png", "game/levels/town.tscn") == "game/tex/rock.png"
    assert index.resolve("game/levels/town.tscn#mesh/1", "game/levels/town.tscn") == "game/levels/town.tscn#mesh/1"
    assert index.main_scene("game") == "game/levels/town.tscn"
    assert index.main_scene() is None  # no project.godot at the root
    assert index.projects() == ("game",)


def test_uids_from_every_source(tmp_path):
    project(tmp_path)
    index = GodotIndex(tmp_path)
    holder = "game/levels/town.tscn"
    assert index.resolve("uid://cpng", holder) == "game/tex/rock.png"  # .import
    assert index.resolve("uid://cscript", holder) == "game/scripts/a.gd"  # .uid
    assert index.resolve("uid://crock", holder) == "game/mat/rock.tres"  # text header
    assert index.resolve("uid://cbarrel", holder) == "game/meshes/barrel.res"  # binary header
    assert index.resolve("uid://cglb", holder) == "game/props.glb"
    assert index.resolve("uid://cghost", holder) is None  # .godot is no part of the project
    assert index.resolve("uid://cignored", holder) is None  # nor a folder with a .gdignore
    assert index.resolve("uid://cunknown", holder) is None
    assert index.findings == []


def test_a_uid_wins_over_a_stale_path_and_a_path_over_an_unknown_uid(tmp_path):
    project(tmp_path)
    index = GodotIndex(tmp_path)
    holder = "game/levels/town.tscn"
    assert index.resolve("uid://cpng::res://tex/rock.png", holder) == "game/tex/rock.png"
    assert index._uids is None  # the path's own uid matched: the tree was not indexed
    assert index.resolve("uid://cpng::res://old/moved.png", holder) == "game/tex/rock.png"  # the file moved
    assert index.resolve("uid://cgone::res://tex/rock.png", holder) == "game/tex/rock.png"  # Godot falls back to the path
    assert index.resolve("uid://cgone::res://none.png", holder) == "game/none.png"


def test_projects_side_by_side_keep_their_own_res_and_uids(tmp_path):
    for name in ("a", "b"):
        write(tmp_path, f"{name}/project.godot", "config_version=5\n")
        write(tmp_path, f"{name}/icon.png", b"png")
        write(tmp_path, f"{name}/icon.png.import", PNG_IMPORT.replace("cpng", "cicon"))  # a demo copied: same uid
        write(tmp_path, f"{name}/scenes/main.tscn", "[gd_scene format=3]\n")
    index = GodotIndex(tmp_path)
    assert index.resolve("res://icon.png", "a/scenes/main.tscn") == "a/icon.png"
    assert index.resolve("res://icon.png", "b/scenes/main.tscn") == "b/icon.png"
    assert index.resolve("uid://cicon", "a/scenes/main.tscn") == "a/icon.png"
    assert index.resolve("uid://cicon", "b/scenes/main.tscn") == "b/icon.png"
    assert index.findings == []
    assert index.projects() == ("a", "b")


def test_a_uid_two_files_claim_in_one_project_is_a_finding(tmp_path):
    write(tmp_path, "project.godot", "config_version=5\n")
    write(tmp_path, "x.tscn", '[gd_scene format=3 uid="uid://cdup"]\n')
    write(tmp_path, "y.tscn", '[gd_scene format=3 uid="uid://cdup"]\n')
    index = GodotIndex(tmp_path)
    assert index.resolve("uid://cdup", "x.tscn") == "x.tscn"
    assert [(f.path, f.code, f.message) for f in index.findings] == [
        ("y.tscn", "TB109", "uid://cdup is also the uid of x.tscn; x.tscn is used")]


def test_project_above_the_scan_root(tmp_path):
    write(tmp_path, "project.godot", "config_version=5\n")
    write(tmp_path, "levels/town.tscn", "[gd_scene format=3]\n")
    index = GodotIndex(tmp_path / "levels")
    assert index.resolve("res://levels/market.tscn", "town.tscn") == "market.tscn"
    assert index.resolve("res://props/barrel.tscn", "town.tscn") is None  # outside the scan root


def test_no_project_godot_means_the_scan_root(tmp_path):
    index = GodotIndex(tmp_path)
    assert index.resolve("res://a/b.png", "x/y.tscn") == "a/b.png"
    assert index.resolve("res://../../etc/passwd", "x/y.tscn") is None
    assert index.main_scene() is None


def test_material_remap(tmp_path):
    project(tmp_path)
    index = GodotIndex(tmp_path)
    assert index.material_remap("game/props.glb#material/1") == "game/mat/rock.tres"  # "Rock", by uid
    assert index.material_remap("game/props.glb#material/2") == "game/mat/plain.tres"  # unnamed: "material_2"
    assert index.material_remap("game/props.glb#material/0") is None  # "Wood": use_external disabled
    assert index.material_remap("game/props.glb#material/3") is None  # "material_3": not extracted
    assert index.material_remap("game/props.glb#material/9") is None
    assert index.material_remap("game/tex/rock.png#material/0") is None
    assert index.material_remap("game/props.glb") is None


def test_broken_files_are_findings_not_errors(tmp_path):
    write(tmp_path, "project.godot", '[application]\nrun/main_scene="never closed\n')
    write(tmp_path, "a.png", b"png")
    write(tmp_path, "a.png.import", "[remap]\nuid=[1, 2\n")
    index = GodotIndex(tmp_path)
    assert index.main_scene() is None
    assert index.resolve("uid://cx::res://a.png", "s.tscn") == "a.png"
    assert sorted((f.path, f.code) for f in index.findings) == [("a.png.import", "TB109"), ("project.godot", "TB109")]


def test_links_out_of_the_root_are_not_read(tmp_path):
    outside = tmp_path / "outside"
    write(outside, "secret.tscn", '[gd_scene format=3 uid="uid://csecret"]\n')
    root = tmp_path / "root"
    write(root, "project.godot", "config_version=5\n")
    (root / "link.tscn").symlink_to(outside / "secret.tscn")
    index = GodotIndex(root)
    assert index.resolve("uid://csecret", "x.tscn") is None
    assert index.uid_of("link.tscn") == ""
