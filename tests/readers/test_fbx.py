"""The FBX reader: exact counts and bytes for scenes written in every encoding by the test-side
writer (``fbx_factories``), one file exported by Blender, and broken or hostile files as
findings (TB090–TB095).

``tests/data/fbx/blender_crate.fbx`` was exported by Blender 3.4.1 (Debian's package) with
``blender -b --factory-startup --python make.py -- blender_crate.fbx``, make.py being::

    import sys, bpy
    out = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=2)
    cube = bpy.context.active_object
    cube.name = "Crate"; cube.data.name = "CrateMesh"
    wood = bpy.data.materials.new("Wood"); metal = bpy.data.materials.new("Metal")
    cube.data.materials.append(wood); cube.data.materials.append(metal)
    cube.data.polygons[0].material_index = 1
    cube.shape_key_add(name="Basis"); key = cube.shape_key_add(name="Squash")
    key.data[0].co.z += 0.5
    copy = cube.copy(); copy.name = "Crate.copy"; copy.location.x = 4
    bpy.context.collection.objects.link(copy)
    bpy.ops.mesh.primitive_cylinder_add(vertices=12)
    cyl = bpy.context.active_object; cyl.name = "Pillar"; cyl.data.name = "PillarMesh"
    bpy.ops.export_scene.fbx(filepath=out, use_selection=False, object_types={"MESH"},
                             mesh_smooth_type="OFF", use_mesh_modifiers=False,
                             add_leaf_bones=False, bake_anim=False)

Its expected numbers are assimp 5.2.5's (``assimp dump blender_crate.fbx out.assxml -jiv
-tri``: meshes of 20/10, 4/2 and 72/44 vertices/triangles; ``assimp info``: 4 nodes, the crate
mesh on two of them), checked when the file was made; CI has neither tool.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from tests.readers import factories as fx
from tests.readers import fbx_factories as ff
from texbudget.model import ReadResult
from texbudget.readers import read_bytes, read_path
from texbudget.readers.fbx import texture_dependencies
from texbudget.sizing.meshes import price_mesh

DATA = Path(__file__).resolve().parents[1] / "data" / "fbx"

#: (label, writer): every encoding the reader handles.
ENCODINGS = [
    ("binary-6100", lambda s: s.binary(6100)),
    ("binary-7400-zlib", lambda s: s.binary(7400)),
    ("binary-7400-raw", lambda s: s.binary(7400, compress=False)),
    ("binary-7500", lambda s: s.binary(7500)),
    ("binary-7700-raw", lambda s: s.binary(7700, compress=False)),
    ("binary-7500-big-endian", lambda s: ff.write_binary(s.nodes(7500, False), 7500, True, big_endian=True)[0]),
    ("ascii-6100", lambda s: s.ascii(6100)),
    ("ascii-7400", lambda s: s.ascii(7400)),
]
IDS = [e[0] for e in ENCODINGS]


def read(tmp_path: Path, data: bytes, name: str = "scene.fbx") -> ReadResult:
    (tmp_path / name).write_bytes(data)
    result = read_path(tmp_path, name)
    assert not [f for f in result.findings if f.code == "TB009"], result.findings
    return result


def codes(result: ReadResult) -> list[str]:
    return [f.code for f in result.findings]


def smooth_normals() -> ff.Layer:
    """One normal per control point (ByVertice): no split by normal."""
    return ff.Layer("Normal", [0.0, 0.0, 1.0] * 8, mapping="ByVertice")


def seam_uvs() -> ff.Layer:
    """IndexToDirect UVs: 4 distinct UVs; the cube's 24 polygon-vertices use them so that
    control points 0 and 7 get two UVs each: 8 + 2 = 10 distinct combinations."""
    index = []
    for poly in ff.CUBE_P:
        for cp in poly:
            index.append(1 if cp == 0 and poly is ff.CUBE_P[0] else 2 if cp == 7 and poly is ff.CUBE_P[1] else 0 if cp % 2 else 3)
    return ff.Layer("UV", [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0], reference="IndexToDirect", index=index)


@pytest.mark.parametrize(("label", "write"), ENCODINGS, ids=IDS)
def test_flat_cube_in_every_encoding(tmp_path, label, write) -> None:
    scene = ff.Scene(meshes=[ff.cube(layers=[ff.flat_normals()])])
    result = read(tmp_path, write(scene))
    assert codes(result) == []
    (mesh,) = result.meshes
    # 6 quads: 12 triangles; each face its own normal: 4 GPU vertices a face
    assert (mesh.path, mesh.name, mesh.vertices, mesh.triangles, mesh.indices) == ("scene.fbx#mesh/0", "Cube", 24, 12, 36)
    assert [a.name for a in mesh.primitives[0].attributes] == ["POSITION", "NORMAL"]
    assert (mesh.surfaces, mesh.mode, mesh.index_bytes_per, mesh.primitive_count) == ((), 4, 2, 1)  # one: inline
    assert (mesh.vertex_bytes, mesh.index_bytes, mesh.morph_bytes, mesh.skinned) == (24 * 24, 36 * 2, 0, False)
    assert mesh.source == "fbx"
    assert result.scenes[0].instances == (("scene.fbx#mesh/0", 1),)


@pytest.mark.parametrize(("label", "write"), ENCODINGS, ids=IDS)
def test_welding_by_value_per_attribute(tmp_path, label, write) -> None:
    scene = ff.Scene(meshes=[ff.cube(layers=[smooth_normals(), seam_uvs()])])
    (mesh,) = read(tmp_path, write(scene)).meshes
    prim = mesh.primitives[0]
    assert (mesh.vertices, prim.vertex_count) == (10, 10)
    assert [(a.name, a.component_type, a.components, a.bytes) for a in prim.attributes] == [
        ("POSITION", "FLOAT", 3, 120), ("NORMAL", "FLOAT", 3, 120), ("TEXCOORD_0", "FLOAT", 2, 80)]
    assert mesh.vertex_bytes == 10 * 32


def test_no_layers_welds_to_control_points(tmp_path) -> None:
    (mesh,) = read(tmp_path, ff.Scene(meshes=[ff.cube()]).binary()).meshes
    assert (mesh.vertices, mesh.triangles) == (8, 12)


def test_ngons_fan_and_degenerate_polygons(tmp_path) -> None:
    """A pentagon makes 3 triangles, a triangle 1, a two-vertex polygon none."""
    mesh = ff.Mesh("Fan", [float(i) for i in range(3 * 7)], [[0, 1, 2, 3, 4], [4, 5, 6], [0, 6]], models=["Fan"])
    (facts,) = read(tmp_path, ff.Scene(meshes=[mesh]).binary()).meshes
    assert (facts.triangles, facts.indices, facts.vertices) == (4, 12, 7)


@pytest.mark.parametrize(("label", "write"), ENCODINGS, ids=IDS)
def test_materials_split_surfaces_and_textures(tmp_path, label, write) -> None:
    (tmp_path / "tex").mkdir()
    (tmp_path / "tex" / "rock_n.png").write_bytes(b"png")
    (tmp_path / "rock_d.png").write_bytes(b"png")
    per_polygon = ff.Layer("Material", [0, 0, 0, 0, 0, 1], mapping="ByPolygon", reference="IndexToDirect")
    scene = ff.Scene(
        meshes=[ff.cube(layers=[ff.flat_normals(), per_polygon], materials=[0, 1])],
        materials=["Stone", "Moss"],
        textures=[ff.Texture("N", 1, "NormalMap", relative="tex\\rock_n.png", filename="D:\\art\\rock_n.png"),
                  ff.Texture("D", 0, "DiffuseColor", relative="../../elsewhere/rock_d.png", filename="C:\\art\\rock_d.png")],
    )
    result = read(tmp_path, write(scene))
    assert codes(result) == []
    (mesh,) = result.meshes
    assert [(p.material, p.vertex_count, p.triangles, p.index_bytes_per) for p in mesh.primitives] == [
        ("scene.fbx#material/0", 20, 10, 2), ("scene.fbx#material/1", 4, 2, 2)]
    assert (mesh.mode, len(mesh.surfaces), mesh.vertices, mesh.triangles, mesh.indices) == (None, 2, 24, 12, 36)
    # RelativeFilename from the FBX's folder; the diffuse one leaves the root, so its name is
    # looked for beside the FBX
    assert sorted(result.scenes[0].texture_usage) == [
        ("rock_d.png", "scene.fbx#material/0", "DiffuseColor"),
        ("tex/rock_n.png", "scene.fbx#material/1", "NormalMap")]


def test_texture_outside_the_root_absolute_or_missing(tmp_path) -> None:
    scene = ff.Scene(meshes=[ff.cube(materials=[0])], materials=["M"], textures=[
        ff.Texture("Out", 0, "DiffuseColor", relative="../secret/x.png"),
        ff.Texture("Abs", 0, "NormalMap", filename="/etc/passwd.png"),
        ff.Texture("Gone", 0, "EmissiveColor", relative="textures/gone.png")])
    (tmp_path / "sub").mkdir()
    result = read(tmp_path / "sub", scene.binary(), "scene.fbx")
    messages = sorted((f.code, f.message) for f in result.findings)
    assert messages == [
        ("TB074", "texture 'Abs': file name '/etc/passwd.png' is an absolute path; not opened, nor found as passwd.png"),
        ("TB074", "texture 'Out': file name '../secret/x.png' leaves the scan root; not opened, nor found as x.png"),
        ("TB075", "texture 'Gone': textures/gone.png does not exist"),
    ]
    assert result.scenes[0].texture_usage == ()
    assert texture_dependencies(tmp_path / "sub", "scene.fbx") == ["gone.png", "passwd.png", "textures/gone.png", "x.png"]


@pytest.mark.parametrize(("label", "write"), ENCODINGS, ids=IDS)
def test_instances_names_skin_and_blend_shapes(tmp_path, label, write) -> None:
    scene = ff.Scene(meshes=[ff.cube("CubeGeo", models=("Left", "Right"), layers=[ff.flat_normals()], skin_bones=3, shapes=[True, False]),
                             ff.cube("Spare", models=())], orphan_models=["Lost"])
    result = read(tmp_path, write(scene))
    meshes = {m.path: m for m in result.meshes}
    crate = meshes["scene.fbx#mesh/0"]
    joints = [a for a in crate.primitives[0].attributes if a.name in ("JOINTS_0", "WEIGHTS_0")]
    assert [(a.component_type, a.components) for a in joints] == [("UNSIGNED_BYTE", 4), ("FLOAT", 4)]
    # position, normal, joints u8x4, weights f32x4 = 12 + 12 + 4 + 16
    assert (crate.skinned, crate.vertex_bytes) == (True, 24 * 44)
    # two shapes, one with normals: 24 vertices × (12 + 12) + 24 × 12
    assert (crate.morph_targets, crate.morph_bytes) == (2, 24 * 24 + 24 * 12)
    if label.endswith("6100"):
        # FBX 6 has no shared geometry: each Model holds its own copy
        assert [(m.name, n) for m, (_, n) in zip(result.meshes, result.scenes[0].instances, strict=True)] == [("Left", 1), ("Right", 1), ("Spare", 0)]
        assert codes(result) == ["TB084"]
    else:
        assert crate.name == "Left"  # the Model's name, as Unity names the mesh
        assert result.scenes[0].instances == (("scene.fbx#mesh/0", 2), ("scene.fbx#mesh/1", 0))
        assert meshes["scene.fbx#mesh/1"].name == "Spare"  # no Model: the geometry's name
        assert codes(result) == ["TB084"]
    assert price_mesh(crate).buffer_bytes == crate.vertex_bytes + 72 + crate.morph_bytes


def test_many_bones_use_u16_joints(tmp_path) -> None:
    (mesh,) = read(tmp_path, ff.Scene(meshes=[ff.cube(skin_bones=300)]).binary(7500)).meshes
    assert [(a.name, a.component_type) for a in mesh.primitives[0].attributes][-2:] == [("JOINTS_0", "UNSIGNED_SHORT"), ("WEIGHTS_0", "FLOAT")]


def test_blender_export_matches_assimp() -> None:
    result = read_path(DATA, "blender_crate.fbx")
    assert codes(result) == []
    crate, pillar = result.meshes
    assert [(p.vertex_count, p.triangles, p.material) for p in crate.primitives] == [
        (20, 10, "blender_crate.fbx#material/0"), (4, 2, "blender_crate.fbx#material/1")]
    assert (crate.name, crate.morph_targets, crate.morph_bytes) == ("Crate", 1, 24 * 12 * 2)
    assert [a.name for a in crate.primitives[0].attributes] == ["POSITION", "NORMAL", "TEXCOORD_0"]
    assert (pillar.name, pillar.vertices, pillar.triangles, pillar.primitives[0].material) == ("Pillar", 72, 44, None)
    assert (crate.mode, len(crate.surfaces), pillar.mode, pillar.surfaces) == (None, 2, 4, ())
    assert pillar.primitives[0].index_count == pillar.indices == 132
    assert result.scenes[0].instances == (("blender_crate.fbx#mesh/0", 2), ("blender_crate.fbx#mesh/1", 1))


def test_sniffed_binary_under_another_name(tmp_path) -> None:
    result = read(tmp_path, ff.Scene(meshes=[ff.cube()]).binary(), "crate.glb")
    assert codes(result) == ["TB003"] and result.meshes[0].triangles == 12


def test_in_memory_source_reads_without_texture_files() -> None:
    scene = ff.Scene(meshes=[ff.cube(materials=[0])], materials=["M"], textures=[ff.Texture("T", 0, "DiffuseColor", relative="t.png")])
    result = read_bytes("pack.zip#scene.fbx", scene.binary(), ".fbx")
    assert (result.meshes[0].triangles, codes(result)) == (12, ["TB075"])


# --- broken and hostile files --------------------------------------------------------------------


def _patch(data: bytes, fields: list[tuple[str, int, str]], name: str, value: int) -> bytes:
    _, offset, fmt = next(f for f in fields if f[0] == name)
    return data[:offset] + struct.pack(fmt, value) + data[offset + struct.calcsize(fmt):]


def test_zip_bomb_array_is_inflated_only_as_far_as_it_claims(tmp_path) -> None:
    """64 MiB of zeros deflated to 65 KB: claiming 24 doubles it is inflated to 192 bytes and
    no further (the read stays far under 64 MiB); claiming 2^32−1 doubles it is over the
    limit; a claim beyond zlib's 1032:1 ratio of what is stored is refused before inflating."""
    import tracemalloc

    bomb = zlib.compress(bytes(64 * 1024 * 1024), 9)

    def with_vertices(count: int, payload: bytes) -> bytes:
        nodes = ff.Scene(meshes=[ff.cube()]).nodes(7400, False)
        geometry = next(n for n in nodes[1].children if n.name == "Geometry")
        geometry.children[0].props = [("bytes", b"d" + struct.pack("<III", count, 1, len(payload)) + payload)]
        return ff.write_binary(nodes, 7400)[0]

    data = with_vertices(24, bomb)
    read(tmp_path, data)  # warm: imports
    tracemalloc.start()
    result = read(tmp_path, data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (codes(result), result.meshes[0].triangles) == ([], 12)
    assert peak < 4 * 1024 * 1024, peak
    result = read(tmp_path, with_vertices(2**32 - 1, bomb))
    assert codes(result) == ["TB092"] and "over texbudget's limit" in result.findings[0].message
    result = read(tmp_path, with_vertices(2**27 - 1, zlib.compress(bytes(100))))
    assert codes(result) == ["TB092"] and "beyond zlib's ratio" in result.findings[0].message
    result = read(tmp_path, with_vertices(24, b"not zlib at all"))
    assert codes(result) == ["TB092"] and "does not inflate" in result.findings[0].message


def test_node_offset_that_loops_backwards(tmp_path) -> None:
    data, fields = ff.Scene(meshes=[ff.cube()]).binary_fields(7500)
    offset = next(off for name, off, _ in fields if name == "Objects/Geometry/Vertices.end")
    looped = _patch(data, fields, "Objects/Geometry/Vertices.end", offset - 100)
    result = read(tmp_path, looped)
    assert codes(result) == ["TB091"]
    assert "outside its parent" in result.findings[0].message


@pytest.mark.parametrize(("data", "code"), [
    (ff.MAGIC + b"\x1a\x00", "TB090"),
    (ff.MAGIC + b"\x1a\x00" + struct.pack("<I", 5800) + bytes(40), "TB093"),
    (ff.MAGIC + b"\x1a\x00" + struct.pack("<I", 8000) + bytes(40), "TB093"),
    (b"; FBX 7.4.0 project file\nObjects:  {\n\tModel: 1, \"Model::A\", \"Mesh\" {\n", "TB094"),
    (b"; FBX 7.4.0 project file\nObjects:  {\n}\n}\n", "TB094"),
    (b"hello: world\n", "TB090"),
    (b"; FBX 5.8.0 project file\nObjects:  {\n}\n", "TB093"),
    (b"", "TB040"),
], ids=["cut-header", "version-5800", "version-8000", "ascii-unclosed", "ascii-extra-brace", "ascii-not-fbx", "ascii-5800", "empty"])
def test_broken_files(tmp_path, data, code) -> None:
    result = read(tmp_path, data)
    assert codes(result) == [code] and not result.meshes


def test_truncated_binary(tmp_path) -> None:
    data = ff.Scene(meshes=[ff.cube()]).binary()
    for cut in (27, 40, len(data) // 2, len(data) - 200):
        result = read(tmp_path, data[:cut])
        assert codes(result) in (["TB091"], ["TB092"]) and not result.meshes, cut


def test_polygon_index_past_the_control_points(tmp_path) -> None:
    mesh = ff.Mesh("Bad", [0.0] * 9, [[0, 1, 5]], models=["Bad"])
    result = read(tmp_path, ff.Scene(meshes=[mesh, ff.cube()]).binary())
    assert codes(result) == ["TB092"] and "control point 5; there are 3" in result.findings[0].message
    assert [m.path for m in result.meshes] == ["scene.fbx#mesh/1"]  # the good one keeps its number


def test_short_layer_element_is_left_out(tmp_path) -> None:
    short = ff.Layer("UV", [0.0, 0.0, 1.0, 1.0], reference="IndexToDirect", index=[0, 1, 9] + [0] * 21)
    result = read(tmp_path, ff.Scene(meshes=[ff.cube(layers=[ff.flat_normals(), short])]).ascii())
    assert codes(result) == ["TB095"] and "holds 2 values" in result.findings[0].message
    assert [a.name for a in result.meshes[0].primitives[0].attributes] == ["POSITION", "NORMAL"]


def test_model_hierarchy_loop(tmp_path) -> None:
    nodes = ff.Scene(meshes=[ff.cube(models=("A",))]).nodes(7400, True)
    links = nodes[2].children
    model = next(n for n in nodes[1].children if n.name == "Model").props[0][1]
    extra = 99999
    nodes[1].children.append(ff.N("Model", [("L", extra), ("S", "Model::B"), ("S", "Null")]))
    links[:] = [c for c in links if not (c.props[1][1] == model and c.props[2][1] == 0)]
    links += [ff.N("C", [("S", "OO"), ("L", model), ("L", extra)]), ff.N("C", [("S", "OO"), ("L", extra), ("L", model)])]
    result = read(tmp_path, ff.write_ascii(nodes, 7400))
    assert codes(result) == ["TB095", "TB084"]
    assert result.scenes[0].instances == (("scene.fbx#mesh/0", 0),)


def test_cache_reads_an_fbx_again_when_its_texture_appears(tmp_path) -> None:
    """The FBX's result depends on whether its texture files exist: the scan's cache keeps
    them as its dependencies (``texture_dependencies``), so a texture added later is a miss."""
    import os

    from texbudget import config as config_mod
    from texbudget.scan.scene import read_scene

    old = 1_600_000_000_000_000_000  # outside the cache's racy window
    scene = ff.Scene(meshes=[ff.cube(materials=[0])], materials=["M"],
                     textures=[ff.Texture("T", 0, "DiffuseColor", relative="tex/rock_d.png")])
    (tmp_path / "crate.fbx").write_bytes(scene.binary())
    os.utime(tmp_path / "crate.fbx", ns=(old, old))
    config = config_mod.load(None)
    first = read_scene(tmp_path, config, jobs=1, use_cache=True)
    again = read_scene(tmp_path, config, jobs=1, use_cache=True)
    assert [f.code for f in first.findings] == [f.code for f in again.findings] == ["TB075"]
    assert (again.cache.hits, again.cache.misses) == (1, 0)
    (tmp_path / "tex").mkdir()
    (tmp_path / "tex" / "rock_d.png").write_bytes(fx.png_bytes(8, 8))
    os.utime(tmp_path / "tex" / "rock_d.png", ns=(old, old))
    after = read_scene(tmp_path, config, jobs=1, use_cache=True)
    assert "TB075" not in [f.code for f in after.findings]
    assert after.scenes[0].texture_usage == (("tex/rock_d.png", "crate.fbx#material/0", "DiffuseColor"),)


def test_lod_names_group_the_models(tmp_path) -> None:
    scene = ff.Scene(meshes=[ff.cube("g0", models=("Rock_LOD0",)), ff.cube("g1", models=("Rock_LOD1",))])
    meshes = read(tmp_path, scene.binary()).meshes
    assert [(m.name, m.lod, m.lod_group) for m in meshes] == [("Rock_LOD0", 0, "scene.fbx#lod/Rock"), ("Rock_LOD1", 1, "scene.fbx#lod/Rock")]
