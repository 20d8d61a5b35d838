"""Unity scenes, prefabs and materials (``readers/unity_scene.py``): the exact edges of files
written as Unity writes them (``unity_files``), each also read by PyYAML (``unity_oracle``) and
compared, and every construct: hierarchy paths, skinned renderers, nested prefab instances,
variants, overrides, a prefab that contains itself, malformed and binary files."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

import pytest

from tests.readers import unity_oracle as oracle
from tests.readers.unity_files import (
    BUILTIN,
    HEAD,
    doc,
    game_object,
    guid,
    material,
    mesh_filter,
    modification,
    mono_behaviour,
    prefab_instance,
    ref,
    renderer,
    scene_settings,
    stripped,
    texture_slot,
    transform,
)
from texbudget.levels.unity import read_project
from texbudget.model import SceneRef, Severity
from texbudget.readers import read_path, unity_scene

FBX, MAT_A, MAT_B, BARREL, CRATE = guid("rock-fbx"), guid("stone-mat"), guid("moss-mat"), guid("barrel-prefab"), guid("crate-prefab")
M1, M2 = -4767823104392330369, 8316657487648104825  # hashed mesh fileIDs, as Unity 2019.3+ writes them


def _read(tmp_path: Path, name: str, text: str | bytes):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return read_path(tmp_path, name)


def _edges(result) -> list[tuple]:
    (scene,) = result.scenes
    return [(e.kind, e.target, e.surfaces, e.slot, e.where) for e in scene.refs]


def _agrees_with_pyyaml(result, text: str) -> None:
    (scene,) = result.scenes
    mine = Counter((e.kind, e.target, e.surfaces, e.slot) for e in scene.refs)
    theirs = oracle.material_edges(text) if scene.role == "resource" else oracle.scene_edges(text)
    assert mine == theirs


def u(guid_: str, file_id: int) -> str:
    return f"unity:{guid_}:{file_id}"


def _town() -> str:
    """Town > Market > Barrel (a mesh with two materials, the second wrapped), Town > Lamp (a
    renderer listed before its Transform), and a MonoBehaviour whose m_Mesh is no mesh."""
    return HEAD + scene_settings(ref(2100000, guid("sky-mat"), 2)) + "".join([
        game_object(100, "Town", [101]), transform(101, 100, 0, [201, 301]),
        game_object(200, "Market", [201]), transform(201, 200, 101, [401]),
        game_object(400, "Barrel", [401, 402, 403, 404]), transform(401, 400, 201),
        mesh_filter(402, 400, ref(M1, FBX)),
        renderer(403, 400, [ref(2100000, MAT_A, 2), ref(2100000, MAT_B, 2, wrap=True)]),
        mono_behaviour(404, 400),
        renderer(303, 300, [ref(2100000, MAT_B, 2)]), mesh_filter(302, 300, ref(10202, BUILTIN, 0)),
        game_object(300, "Lamp", [301, 302, 303]), transform(301, 300, 101),
    ])


def test_a_scene_gives_its_meshes_with_their_materials_and_paths(tmp_path) -> None:
    text = _town()
    result = _read(tmp_path, "Assets/Town.unity", text)
    assert result.findings == ()
    assert result.scenes[0].role == "scene" and result.scenes[0].path == "Assets/Town.unity"
    assert _edges(result) == [
        ("mesh", u(FBX, M1), (u(MAT_A, 2100000), u(MAT_B, 2100000)), "", "Town/Market/Barrel"),
        ("mesh", u(BUILTIN, 10202), (u(MAT_B, 2100000),), "", "Town/Lamp"),
        ("material", u(guid("sky-mat"), 2100000), (), "", "RenderSettings"),
    ]
    assert {e.holder for e in result.scenes[0].refs} == {"Assets/Town.unity"} and {e.count for e in result.scenes[0].refs} == {1}
    _agrees_with_pyyaml(result, text)


def test_crlf_line_ends_and_a_byte_order_mark_read_the_same(tmp_path) -> None:
    text = _town()
    plain = _edges(_read(tmp_path, "a.unity", text))
    assert _edges(_read(tmp_path, "b.unity", b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())) == plain


def test_a_skinned_renderer_places_its_own_mesh(tmp_path) -> None:
    text = HEAD + "".join([
        game_object(10, "Hero", [11, 12, 13]), transform(11, 10),
        mesh_filter(12, 10, ref(M2, FBX)),  # ignored: a SkinnedMeshRenderer draws its own m_Mesh
        renderer(13, 10, [ref(2100000, MAT_A, 2), "{fileID: 0}"], skinned_mesh=ref(M1, FBX, wrap=True)),
        game_object(20, "Cape", [21, 22]), transform(21, 20, 11),
        renderer(22, 20, [ref(2100000, MAT_B, 2)], skinned_mesh="{fileID: 0}"),
    ])
    result = _read(tmp_path, "Hero.prefab", text)
    assert _edges(result) == [("mesh", u(FBX, M1), (u(MAT_A, 2100000), ""), "", "Hero"),
                              ("material", u(MAT_B, 2100000), (), "", "Hero/Cape")]
    _agrees_with_pyyaml(result, text)


def test_prefab_instances_each_count_and_are_named_by_their_place(tmp_path) -> None:
    """Two crates and a barrel under Market; the barrel prefab itself holds a crate (nesting:
    the resolver multiplies), and a scene-made GameObject hangs under a crate's stripped Transform."""
    name = modification(ref(100000, CRATE), "m_Name", "Crate")
    text = HEAD + scene_settings() + "".join([
        game_object(200, "Market", [201]), transform(201, 200, 0, [901]),
        prefab_instance(500, CRATE, 201, [name, modification(ref(400000, CRATE), "m_LocalPosition.x", "3")]),
        prefab_instance(600, CRATE, 201, [modification(ref(100000, CRATE), "m_Name", "'Crate: spare'")]),
        prefab_instance(700, BARREL, 201),
        stripped(4, 501, "Transform", ref(400000, CRATE), 500),
        game_object(900, "Label", [901, 902, 903]), transform(901, 900, 501),
        mesh_filter(902, 900, ref(M2, FBX)), renderer(903, 900, [ref(2100000, MAT_A, 2)]),
    ])
    result = _read(tmp_path, "Market.unity", text)
    assert _edges(result) == [
        ("mesh", u(FBX, M2), (u(MAT_A, 2100000),), "", "Market/Crate/Label"),
        ("instance", u(CRATE, 100100000), (), "", "Market/Crate"),
        ("instance", u(CRATE, 100100000), (), "", "Market/Crate: spare"),
        ("instance", u(BARREL, 100100000), (), "", "Market/(prefab instance &700)"),
    ]
    _agrees_with_pyyaml(result, text)
    nested = HEAD + game_object(1, "Barrel", [2]) + transform(2, 1, 0) + prefab_instance(3, CRATE, 2, [name])
    assert _edges(_read(tmp_path, "Barrel.prefab", nested)) == [("instance", u(CRATE, 100100000), (), "", "Barrel/Crate")]


def test_a_prefab_variant_is_an_instance_of_its_base_with_what_it_adds(tmp_path) -> None:
    """The root is a PrefabInstance (m_TransformParent 0); a renderer added to the base's root
    GameObject (a stripped placeholder) and an added child are the variant's own."""
    base = guid("ship-fbx")
    text = HEAD + "".join([
        prefab_instance(7146, base, 0, [modification(ref(100000, base), "m_Name", "Ship Variant")]),
        stripped(1, 7147, "GameObject", ref(100000, base), 7146),
        stripped(4, 7148, "Transform", ref(400000, base), 7146),
        renderer(7149, 7147, [ref(2100000, MAT_B, 2)]),
        game_object(20, "Antenna", [21, 22, 23]), transform(21, 20, 7148),
        mesh_filter(22, 20, ref(M1, FBX)), renderer(23, 20, [ref(M2, FBX)]),
    ])
    result = _read(tmp_path, "Ship Variant.prefab", text)
    assert _edges(result) == [
        ("material", u(MAT_B, 2100000), (), "", "Ship Variant"),
        ("mesh", u(FBX, M1), (u(FBX, M2),), "", "Ship Variant/Antenna"),
        ("instance", u(base, 100100000), (), "", "Ship Variant"),
    ]
    _agrees_with_pyyaml(result, text)


def test_material_and_mesh_overrides_of_an_instance_are_counted_and_said(tmp_path) -> None:
    mods = [
        modification(ref(100000, BARREL), "m_Name", "Barrel"),
        modification(ref(2300000, BARREL), "m_Materials.Array.size", "2"),
        modification(ref(2300000, BARREL), "'m_Materials.Array.data[0]'", "", ref(2100000, MAT_A, 2)),  # Unity 2020+ quotes it
        modification(ref(2300000, BARREL), "m_Materials.Array.data[1]", "", ref(2100000, MAT_B, 2, wrap=True)),
        modification(ref(3300000, BARREL), "m_Mesh", "", ref(M2, FBX, wrap=True)),
        modification(ref(2300000, BARREL), "m_Materials.Array.data[2]", "", "{fileID: 0}"),  # set to none: nothing loaded
    ]
    text = HEAD + prefab_instance(5, BARREL, 0, mods, removed=[ref(6500000, BARREL), ref(5400000, BARREL, wrap=True)])
    result = _read(tmp_path, "Barrels.prefab", text)
    assert _edges(result) == [
        ("instance", u(BARREL, 100100000), (), "", "Barrel"),
        ("material", u(MAT_A, 2100000), (), "", "Barrel"),
        ("material", u(MAT_B, 2100000), (), "", "Barrel"),
        ("mesh", u(FBX, M2), (), "", "Barrel"),
    ]
    _agrees_with_pyyaml(result, text)
    (note,) = result.findings
    assert (note.code, note.severity) == ("TB113", Severity.INFO)
    assert note.message == ("1 prefab instance overrides 3 materials or meshes: the overriding assets are counted as well "
                            "as the prefab's own; 2 components or GameObjects removed from prefab instances still count "
                            "(an overestimate where nothing else uses them)")


def test_a_prefab_that_contains_itself_gives_the_edge(tmp_path) -> None:
    """The reader does not know its own guid (its .meta does): it writes the edge, and the
    resolver, which does, finds the cycle."""
    own = guid("loop-prefab")
    text = HEAD + game_object(1, "Loop", [2]) + transform(2, 1) + prefab_instance(3, own, 2)
    (tmp_path / "Loop.prefab.meta").write_text(f"fileFormatVersion: 2\nguid: {own}\nPrefabImporter:\n  externalObjects: {{}}\n")
    assert _edges(_read(tmp_path, "Loop.prefab", text)) == [("instance", u(own, 100100000), (), "", "Loop/(prefab instance &3)")]
    assert read_project(tmp_path).resolve(u(own, 100100000), "Loop.prefab") == "Loop.prefab"  # the cycle the resolver sees


def test_other_renderers_sprites_cookies_and_references_inside_the_file(tmp_path) -> None:
    sprite = guid("sprite-png")
    text = HEAD + "".join([
        game_object(1, "Smoke", [2, 3]), transform(2, 1),
        renderer(3, 1, [ref(2100000, MAT_A, 2)], cls=199, name="ParticleSystemRenderer", extra=f"  m_Mesh: {ref(M1, FBX)}\n"),
        game_object(4, "Coin", [5, 6]), transform(5, 4),
        renderer(6, 4, [ref(10754, "0000000000000000f000000000000000", 0)], cls=212, name="SpriteRenderer",
                 extra=f"  m_Sprite: {ref(21300000, sprite)}\n"),
        game_object(7, "Lamp", [8, 9]), transform(8, 7),
        doc(108, 9, "Light", f"  m_GameObject: {{fileID: 7}}\n  m_Enabled: 1\n  m_Type: 0\n  m_Cookie: {ref(2800000, guid('cookie'))}\n"),
        game_object(10, "Wall", [11, 12, 13]), transform(11, 10),
        mesh_filter(12, 10, "{fileID: 4312}"),  # a mesh stored in this file (ProBuilder)
        renderer(13, 10, [ref(2100000, MAT_B, 2), "{fileID: 2112}"]),
        doc(43, 4312, "Mesh", "  m_Name: pb_Mesh1\n  serializedVersion: 10\n"),
    ])
    result = _read(tmp_path, "Props.prefab", text)
    assert _edges(result) == [
        ("material", u(MAT_B, 2100000), (), "", "Wall"),
        ("material", u(MAT_A, 2100000), (), "", "Smoke"),
        ("material", u("0000000000000000f000000000000000", 10754), (), "", "Coin"),
        ("texture", u(sprite, 21300000), (), "m_Sprite", "Coin"),
        ("texture", u(guid("cookie"), 2800000), (), "m_Cookie", "Lamp"),
    ]
    _agrees_with_pyyaml(result, text)
    assert [(f.code, f.message) for f in result.findings] == [
        ("TB114", "2 references to meshes or materials stored inside this file (made by ProBuilder or a script) are not priced")]


def test_unity_before_2018_3_copies_every_instance_and_its_prefab_is_not_followed(tmp_path) -> None:
    """A ``Prefab`` document (1001) beside the instance's full objects: those are read."""
    old = doc(1001, 40, "Prefab", f"  m_ObjectHideFlags: 1\n  serializedVersion: 2\n  m_Modification:\n    m_TransformParent: {{fileID: 0}}\n"
              f"    m_Modifications: []\n    m_RemovedComponents: []\n  m_ParentPrefab: {{fileID: 100100000, guid: {CRATE}, type: 2}}\n"
              "  m_RootGameObject: {fileID: 10}\n  m_IsPrefabParent: 0\n")
    text = HEAD + game_object(10, "Crate", [11, 12, 13]) + transform(11, 10) + mesh_filter(12, 10, ref(4300000, FBX)) \
        + renderer(13, 10, [ref(2100000, MAT_A, 2)]) + old
    result = _read(tmp_path, "Old.unity", text)
    assert _edges(result) == [("mesh", u(FBX, 4300000), (u(MAT_A, 2100000),), "", "Crate")]
    _agrees_with_pyyaml(result, text)


def test_names_are_unquoted_as_yaml_says(tmp_path) -> None:
    text = HEAD + "".join([
        game_object(1, "'It''s: here'", [2]), transform(2, 1, 0, [4]),
        game_object(3, '"Caf\\u00E9 \\"7\\""', [4, 5, 6]), transform(4, 3, 2),
        mesh_filter(5, 3, ref(M1, FBX)), renderer(6, 3, []),
    ])
    assert _edges(_read(tmp_path, "Names.prefab", text)) == [("mesh", u(FBX, M1), (), "", 'It\'s: here/Café "7"')]


# --- malformed, binary, not Unity ----------------------------------------------------------


def test_malformed_documents_are_skipped_and_said_the_rest_is_read(tmp_path, monkeypatch) -> None:
    text = HEAD + "".join([
        "--- !u!33 &notanumber\nMeshFilter:\n  m_GameObject: {fileID: 1}\n",  # a header Unity never writes
        game_object(1, "A", [2, 3, 4]), transform(2, 1, 6),
        mesh_filter(3, 1, "{fileID: zz, guid: 12}"),  # not a reference
        renderer(4, 1, ["{fileID: 2100000, guid: short}"]),
        doc(33, 9, "MeshFilter", f"  m_Mesh: {ref(M2, FBX)}\n"),  # no GameObject
        game_object(5, "B", [6, 7, 8]), transform(6, 5, 2),  # A and B are each other's parent
        mesh_filter(7, 5, ref(M1, FBX)), renderer(8, 5, [ref(2100000, MAT_A, 2)]),
        mesh_filter(10, 1, f"{{fileID: {2**64}, guid: {FBX}, type: 3}}"),
    ])
    result = _read(tmp_path, "Broken.prefab", text)
    assert _edges(result) == [("mesh", u(FBX, M1), (u(MAT_A, 2100000),), "", "…/A/B")]
    (problem,) = result.findings
    assert (problem.code, problem.severity) == ("TB112", Severity.WARNING)
    assert problem.message == (
        "6 parts could not be read and were skipped: MeshFilter &3: not a reference: '{fileID: zz, guid: 12}'; "
        "MeshRenderer &4: m_Materials item is not a reference: '{fileID: 2100000, guid: short}'; "
        "MeshFilter &9 names no GameObject; and 3 more")
    monkeypatch.setattr(unity_scene, "_SHOWN", 10)
    assert _read(tmp_path, "Broken.prefab", text).findings[0].message.split("; ")[3:] == [
        f"MeshFilter &10: fileID {2**64} is not a 64-bit integer",
        "1 document header not of the form '--- !u!<classID> &<fileID>'",
        "the Transform hierarchy loops (or is deeper than 4096) at &6"]


def _serialized(version: int, length: int = 4096) -> bytes:
    """The header of Unity's binary serialized file (big-endian; 64-bit sizes from version 22)."""
    if version >= 22:
        head = struct.pack(">IIIIB3xIqqq", 0, 0, version, 0, 0, 0x8C, length, 0x1000, 0)
    else:
        head = struct.pack(">IIIIB3x", 0x8C, length, version, 0x1000, 0)
    return head + bytes(length - len(head))


BINARY = "binary serialization: Unity wrote this scene in its binary format, which texbudget does not read"


@pytest.mark.parametrize(("data", "code", "severity", "message"), [
    (_serialized(17), "TB110", Severity.WARNING, BINARY),  # Unity 2018-2019
    (_serialized(22), "TB110", Severity.WARNING, BINARY),  # Unity 2020 on
    (_serialized(17)[:-1], "TB111", Severity.ERROR, "not a Unity text scene: binary content, and no Unity serialized-file header"),
    (bytes(300), "TB111", Severity.ERROR, "not a Unity text scene: binary content, and no Unity serialized-file header"),
    (b"", "TB111", Severity.ERROR, "the file is empty: no Unity scene"),
    (b"hello: world\n", "TB111", Severity.ERROR, "not a Unity text scene: it does not start with '%YAML' ('hello: world')"),
    (HEAD.encode(), "TB111", Severity.ERROR, "no Unity object in the file ('--- !u!' documents): an empty or cut scene"),
])
def test_what_is_not_a_text_scene_is_a_finding(tmp_path, data, code, severity, message) -> None:
    result = _read(tmp_path, "Level.unity", data)
    assert result.scenes == ()
    assert [(f.code, f.severity, f.message) for f in result.findings] == [(code, severity, message)]


def test_a_binary_material_and_a_text_file_that_holds_no_material(tmp_path) -> None:
    binary = _read(tmp_path, "Stone.mat", _serialized(21))
    assert [(f.code, f.message) for f in binary.findings] == [
        ("TB110", "binary serialization: Unity wrote this material in its binary format, which texbudget does not read")]
    other = _read(tmp_path, "NotAMat.mat", HEAD + game_object(1, "A", []))
    assert [(f.code, f.message) for f in other.findings] == [("TB111", "no Material (class 21) in the file: not a Unity material")]
    matlab = _read(tmp_path, "data.mat", b"MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024".ljust(116) + bytes(12))
    assert [(f.code, f.severity, f.message) for f in matlab.findings] == [
        ("TB002", Severity.INFO, ".mat: a MATLAB data file, not a Unity material; not read")]


# --- materials ------------------------------------------------------------------------------

ALBEDO, NORMAL, MASK = guid("albedo-png"), guid("normal-png"), guid("mask-tga")


def test_a_material_gives_its_texture_slots(tmp_path) -> None:
    text = material("Stone", [texture_slot("_BaseMap", ref(2800000, ALBEDO)), texture_slot("_BumpMap", ref(2800000, NORMAL, wrap=True)),
                              texture_slot("_EmissionMap", "{fileID: 0}"), texture_slot("_MetallicGlossMap", ref(2800000, MASK)),
                              texture_slot("_MainTex", ref(2800000, ALBEDO)), texture_slot("_Baked", "{fileID: 2800002}")])
    result = _read(tmp_path, "Materials/Stone.mat", text)
    (scene,) = result.scenes
    assert scene.role == "resource"
    assert [(e.holder, e.kind, e.target, e.slot) for e in scene.refs] == [
        ("Materials/Stone.mat", "texture", u(ALBEDO, 2800000), "_BaseMap"),
        ("Materials/Stone.mat", "texture", u(NORMAL, 2800000), "_BumpMap"),
        ("Materials/Stone.mat", "texture", u(MASK, 2800000), "_MetallicGlossMap"),
        ("Materials/Stone.mat", "texture", u(ALBEDO, 2800000), "_MainTex"),
    ]
    assert [(f.code, f.message) for f in result.findings] == [("TB114", "1 texture stored inside this file are not priced")]
    _agrees_with_pyyaml(result, text)


def test_a_material_variant_loads_its_parent(tmp_path) -> None:
    text = material("Moss", [texture_slot("_BaseMap", ref(2800000, MASK))], parent=ref(2100000, MAT_A, 2))
    result = _read(tmp_path, "Moss.mat", text)
    assert [(e.kind, e.target, e.slot, e.where) for e in result.scenes[0].refs] == [
        ("material", u(MAT_A, 2100000), "", "m_Parent"), ("texture", u(MASK, 2800000), "_BaseMap", "")]
    _agrees_with_pyyaml(result, text)


OLDER = {
    # Unity 5.0-5.5 (serializedVersion 2): a list of first/second pairs
    "5.x": ("    - first:\n        name: _MainTex\n      second:\n        m_Texture: {ALBEDO}\n        m_Scale: {{x: 1, y: 1}}\n"
            "        m_Offset: {{x: 0, y: 0}}\n    - first:\n        name: _BumpMap\n      second:\n        m_Texture: {{fileID: 0}}\n"
            "        m_Scale: {{x: 1, y: 1}}\n        m_Offset: {{x: 0, y: 0}}\n    - first:\n        name: _Mask\n      second:\n"
            "        m_Texture: {MASK}\n        m_Scale: {{x: 1, y: 1}}\n        m_Offset: {{x: 0, y: 0}}\n"),
    # Unity 4: one "data:" per slot (a key YAML sees repeated)
    "4.x": ("      data:\n        first:\n          name: _MainTex\n        second:\n          m_Texture: {ALBEDO}\n"
            "          m_Scale: {{x: 1, y: 1}}\n          m_Offset: {{x: 0, y: 0}}\n      data:\n        first:\n          name: _Mask\n"
            "        second:\n          m_Texture: {MASK}\n          m_Scale: {{x: 1, y: 1}}\n          m_Offset: {{x: 0, y: 0}}\n"),
}


@pytest.mark.parametrize("version", sorted(OLDER))
def test_older_material_serializations(tmp_path, version) -> None:
    slots = OLDER[version].format(ALBEDO=ref(2800000, ALBEDO, wrap=True), MASK=ref(2800000, MASK))
    text = HEAD + doc(21, 2100000, "Material", f"  serializedVersion: 6\n  m_Name: Old\n  m_SavedProperties:\n    serializedVersion: 2\n"
                      f"    m_TexEnvs:\n{slots}    m_Floats:\n    - first:\n        name: _Cutoff\n      second: 0.5\n")
    result = _read(tmp_path, f"Old{version}.mat", text)
    assert [(e.target, e.slot) for e in result.scenes[0].refs] == [(u(ALBEDO, 2800000), "_MainTex"), (u(MASK, 2800000), "_Mask")]
    _agrees_with_pyyaml(result, text)


def test_edges_are_scene_refs_built_by_keyword(tmp_path) -> None:
    result = _read(tmp_path, "Town.unity", _town())
    first = result.scenes[0].refs[0]
    assert first == SceneRef(holder="Town.unity", target=u(FBX, M1), kind="mesh",
                             surfaces=(u(MAT_A, 2100000), u(MAT_B, 2100000)), where="Town/Market/Barrel")
