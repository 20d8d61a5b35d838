"""The Unity project index (``levels/unity.py``): .meta ids as Unity writes them, the guid map,
resolving ``unity:<guid>:<fileID>`` (files, a model's prefab, its meshes by table and by the
id Unity hashes from the name, its materials, built-ins, missing guids) and the levels of
Build Settings."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.readers.unity_files import guid
from texbudget.levels import unity
from texbudget.levels.unity import (
    MetaIds,
    assemble,
    hashed_file_id,
    parse_build_settings,
    parse_meta_ids,
    read_project,
    xxh64,
)
from texbudget.model import Severity

ROCKS, STONE, CRATE, LOGO, OLD = guid("rocks-fbx"), guid("stone-mat"), guid("crate-prefab"), guid("logo-png"), guid("old-fbx")

TEXTURE_META = f"""fileFormatVersion: 2
guid: {LOGO}
TextureImporter:
  internalIDToNameTable: []
  externalObjects: {{}}
  serializedVersion: 12
  mipmaps:
    mipMapMode: 0
  spriteSheet:
    serializedVersion: 2
"""
# A model as Unity 2019.3+ writes it: the table lists an animation, not the meshes (hashed ids)
MODEL_META = f"""fileFormatVersion: 2
guid: {ROCKS}
ModelImporter:
  serializedVersion: 27
  internalIDToNameTable:
  - first:
      74: 1827226128182048838
    second: Take 001
  - first:
      43: 4300002
    second: Legacy_Rock
  externalObjects: {{}}
  materials:
    materialImportMode: 2
"""
# Unity 2018 and before: fileIDToRecycleName, a legacy fileID = class * 100000 + n
OLD_META = f"""fileFormatVersion: 2
guid: {OLD}
timeCreated: 1500000000
licenseType: Free
ModelImporter:
  serializedVersion: 22
  fileIDToRecycleName:
    100000: //RootNode
    400000: //RootNode
    2100000: crate_mat
    2300000: //RootNode
    3300000: //RootNode
    4300000: "Crate: lid"
    4300002: crate_body
  materials:
    importMaterials: 1
"""
PREFAB_META = f"fileFormatVersion: 2\nguid: {CRATE}\nPrefabImporter:\n  externalObjects: {{}}\n  userData: \n"
MAT_META = f"fileFormatVersion: 2\nguid: {STONE}\nNativeFormatImporter:\n  externalObjects: {{}}\n  mainObjectFileID: 2100000\n"
SCENE = guid("town-unity")


def _project(**extra) -> unity.UnityProject:
    metas = [("Assets/Env/Rocks.fbx.meta", parse_meta_ids(MODEL_META)), ("Assets/Old/crate.FBX.meta", parse_meta_ids(OLD_META)),
             ("Assets/Stone.mat.meta", parse_meta_ids(MAT_META)), ("Assets/Crate.prefab.meta", parse_meta_ids(PREFAB_META)),
             ("Assets/UI/logo.png.meta", parse_meta_ids(TEXTURE_META)), ("Assets/Town.unity.meta", MetaIds(guid=SCENE, importer="DefaultImporter"))]
    return assemble(metas, **extra)


def test_a_meta_gives_its_guid_importer_and_a_models_name_tables() -> None:
    assert parse_meta_ids(TEXTURE_META) == MetaIds(guid=LOGO, importer="TextureImporter")
    assert parse_meta_ids(MAT_META) == MetaIds(guid=STONE, importer="NativeFormatImporter")
    assert parse_meta_ids(MODEL_META) == MetaIds(guid=ROCKS, importer="ModelImporter", names=((43, 4300002, "Legacy_Rock"),))
    assert parse_meta_ids(OLD_META) == MetaIds(guid=OLD, importer="ModelImporter", names=(
        (21, 2100000, "crate_mat"), (43, 4300000, "Crate: lid"), (43, 4300002, "crate_body")))
    assert parse_meta_ids("fileFormatVersion: 2\nTextureImporter:\n  a: 1\n") == "no 'guid:' line: not a Unity .meta"


def test_xxh64_matches_the_reference_and_unitys_ids() -> None:
    # the xxHash test vectors (seed 0) and the python-xxhash README's example
    assert xxh64(b"") == 0xEF46DB3751D8E999
    assert xxh64(b"a") == 0xD24EC4F1A98C6E5B
    assert xxh64(b"abc") == 0x44BC2CF5AD770999
    assert xxh64(b"Nobody inspects the spammish repetition") == 0xFBCEA83C8A378BF1
    # fileIDs in real files: BoatAttack's Rock_Large_01.prefab names Env_Rocks.fbx's meshes so
    assert [hashed_file_id("Mesh", f"Rock_Large_01_LOD{i}") for i in range(4)] == [
        -1813093079833577664, -5215231401816384979, -4767823104392330369, 8316657487648104825]
    try:
        import xxhash
    except ImportError:
        return
    rng = random.Random(23)
    for n in [*range(0, 70), 1000]:
        data = bytes(rng.randrange(256) for _ in range(n))
        assert xxh64(data) == xxhash.xxh64(data).intdigest(), n


def _meshes(path: str) -> list[tuple[str, str]]:
    if path == "Assets/Env/Rocks.fbx":
        return [(f"{path}#mesh/{i}", name) for i, name in enumerate(["Rock_A", "Rock_B", "Rock_A", "Legacy_Rock"])]
    if path == "Assets/Old/crate.FBX":
        return [(f"{path}#mesh/0", "crate_body"), (f"{path}#mesh/1", "Crate: lid")]
    return []


def test_references_resolve_to_files_parts_and_own_materials() -> None:
    p = _project()
    cases = {
        f"unity:{STONE}:2100000": "Assets/Stone.mat",
        f"unity:{CRATE}:100100000": "Assets/Crate.prefab",
        f"unity:{LOGO}:21300000": "Assets/UI/logo.png",  # a sprite of the texture: the texture
        f"unity:{ROCKS}:100100000": "Assets/Env/Rocks.fbx",  # the model's own prefab
        f"unity:{ROCKS}:{hashed_file_id('Mesh', 'Rock_B')}": "Assets/Env/Rocks.fbx#mesh/1",
        f"unity:{ROCKS}:{hashed_file_id('Mesh', 'Rock_A', 1)}": "Assets/Env/Rocks.fbx#mesh/2",  # the second "Rock_A"
        f"unity:{ROCKS}:4300002": "Assets/Env/Rocks.fbx#mesh/3",  # by the table
        f"unity:{OLD}:4300000": "Assets/Old/crate.FBX#mesh/1",
    }
    for target, path in cases.items():
        assert p.resolve(target, "Assets/Town.unity", _meshes) == path, target
    assert p.resolve(f"unity:{OLD}:2100000", "Assets/Town.unity", _meshes, kind="material") == ""
    assert p.resolve(f"unity:{ROCKS}:{hashed_file_id('Material', 'Stone')}", "x", _meshes, kind="material") == ""
    assert p.explain(f"unity:{OLD}:2100000", "x", _meshes, kind="material") == f"unity:{OLD}:2100000 is a material of its model: the mesh's own"


@pytest.mark.parametrize(("target", "why"), [
    (f"unity:{guid('gone')}:2100000", f"guid {guid('gone')} is in no .meta under the scan root: a deleted asset, or one outside it "
                                      "(a package in Library/PackageCache)"),
    (f"unity:{ROCKS}:12345", "fileID 12345 of Assets/Env/Rocks.fbx is none of the meshes the model's reader gave"),
    (f"unity:{OLD}:2100000", "fileID 2100000 of Assets/Old/crate.FBX is none of the meshes the model's reader gave"),  # a material, asked as a mesh
    ("unity:0000000000000000e000000000000000:10207", "unity:0000000000000000e000000000000000:10207 is Unity's Sphere mesh (built-in): "
                                                     "in the player's own resources, not priced"),
    ("res://x.tres", "'res://x.tres' is not a Unity reference (unity:<guid>:<fileID>)"),
])
def test_what_does_not_resolve_says_why(target, why) -> None:
    p = _project()
    assert p.resolve(target, "Assets/Town.unity", _meshes, kind="mesh") is None
    assert p.explain(target, "Assets/Town.unity", _meshes, kind="mesh") == why


def test_without_mesh_names_only_the_table_resolves() -> None:
    p = _project()
    assert p.resolve(f"unity:{ROCKS}:{hashed_file_id('Mesh', 'Rock_B')}", "x") is None
    assert p.explain(f"unity:{ROCKS}:5", "x") == "fileID 5 of Assets/Env/Rocks.fbx: no mesh named in its .meta, and no mesh names to match it"


def test_builtin_resources_are_named() -> None:
    assert [unity.UnityProject.builtin(f"unity:0000000000000000e000000000000000:{i}") for i in (10202, 10206, 10207, 10208, 10209, 10210)] == [
        "Cube mesh (built-in)", "Cylinder mesh (built-in)", "Sphere mesh (built-in)", "Capsule mesh (built-in)",
        "Plane mesh (built-in)", "Quad mesh (built-in)"]
    assert unity.UnityProject.builtin("unity:0000000000000000f000000000000000:10303") == "Default-Material (built-in)"
    assert unity.UnityProject.builtin("unity:0000000000000000e000000000000000:10001") == "built-in resource 10001 of unity default resources"
    assert unity.UnityProject.builtin(f"unity:{STONE}:2100000") is None


def test_unreadable_and_duplicate_metas_are_findings() -> None:
    p = assemble([("b/Copy.mat.meta", parse_meta_ids(MAT_META)), ("a/Stone.mat.meta", parse_meta_ids(MAT_META)),
                  ("c/x.png.meta", "binary content (Unity writes .meta files as text)")])
    assert p.paths == {STONE: "a/Stone.mat"}
    assert [(f.code, f.severity, f.path, f.message) for f in p.findings] == [
        ("TB116", Severity.WARNING, "b/Copy.mat.meta", f"guid {STONE} is also the guid of a/Stone.mat; references to it resolve to a/Stone.mat"),
        ("TB115", Severity.WARNING, "c/x.png.meta", "binary content (Unity writes .meta files as text); what references this asset cannot be resolved"),
    ]


BUILD_SETTINGS = f"""%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!1045 &1
EditorBuildSettings:
  m_ObjectHideFlags: 0
  serializedVersion: 2
  m_Scenes:
  - enabled: 1
    path: Assets/Town.unity
    guid: {SCENE}
  - enabled: 0
    path: Assets/Menu.unity
    guid: {guid('menu')}
  - enabled: 1
    path: Assets/Stone.mat
    guid: 00000000000000000000000000000000
  - enabled: 1
    path: Assets/Gone.unity
    guid: {guid('gone')}
  m_configObjects:
    com.unity.addressableassets: {{fileID: 11400000, guid: 3f119a19757f84dac85ee298b9dd65d3,
      type: 2}}
"""


def test_build_settings_name_the_enabled_scenes() -> None:
    assert parse_build_settings(BUILD_SETTINGS) == [
        (True, "Assets/Town.unity", SCENE), (False, "Assets/Menu.unity", guid("menu")),
        (True, "Assets/Stone.mat", "00000000000000000000000000000000"), (True, "Assets/Gone.unity", guid("gone"))]
    p = _project(build_settings=("ProjectSettings/EditorBuildSettings.asset", BUILD_SETTINGS))
    assert p.levels == ("Assets/Town.unity", "Assets/Stone.mat")  # by guid, then by path
    assert [(f.code, f.message) for f in p.findings] == [("TB117", "the enabled scene 'Assets/Gone.unity' is not in the project: not a level")]
    broken = _project(build_settings=("ProjectSettings/EditorBuildSettings.asset", "not yaml"))
    assert [(f.code, f.message) for f in broken.findings] == [("TB117", "no EditorBuildSettings in the file: the project's levels are not known")]


def test_read_project_walks_what_unity_imports(tmp_path: Path) -> None:
    game = tmp_path / "Game"
    files = {"Assets/Stone.mat.meta": MAT_META, "Assets/Env/Rocks.fbx.meta": MODEL_META, "Assets/Town.unity.meta": f"fileFormatVersion: 2\nguid: {SCENE}\nDefaultImporter:\n",
             "Assets/Samples~/Copy.mat.meta": MAT_META.replace(STONE, guid("sample")), "Assets/.hidden/x.mat.meta": MAT_META,
             "Library/PackageCache/x.mat.meta": MAT_META, "Assets/Library/logo.png.meta": TEXTURE_META,
             "ProjectSettings/EditorBuildSettings.asset": BUILD_SETTINGS}
    for rel, text in files.items():
        (game / rel).parent.mkdir(parents=True, exist_ok=True)
        (game / rel).write_text(text)
    metas, settings = unity.find_metas(tmp_path)
    assert metas == ["Game/Assets/Env/Rocks.fbx.meta", "Game/Assets/Library/logo.png.meta", "Game/Assets/Stone.mat.meta", "Game/Assets/Town.unity.meta"]
    assert settings == "Game/ProjectSettings/EditorBuildSettings.asset"
    p = read_project(tmp_path)
    assert p.paths == {ROCKS: "Game/Assets/Env/Rocks.fbx", LOGO: "Game/Assets/Library/logo.png", STONE: "Game/Assets/Stone.mat",
                       SCENE: "Game/Assets/Town.unity"}
    assert p.levels == ("Game/Assets/Town.unity", "Game/Assets/Stone.mat")
    (game / "Assets/Stone.mat.meta").write_bytes(b"\x00\x01binary")
    assert [f.code for f in read_project(tmp_path).findings] == ["TB115", "TB117", "TB117"]  # Stone.mat is no level now
