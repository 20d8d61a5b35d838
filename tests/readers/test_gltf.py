"""glTF/GLB reader: exact counts and bytes from written fixtures, the scene graph, materials,
images read in place, and hostile files (each a specific finding, never an exception)."""

from __future__ import annotations

import builtins
import copy
import json
import struct
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.readers.gltf_factories import (
    FLOAT,
    UBYTE,
    UINT,
    USHORT,
    GltfBuilder,
    png_bytes,
    triangle_mesh,
)
from texbudget.model import ReadResult
from texbudget.readers import (
    gltf,
    gltf_accessors,
    gltf_container,
    gltf_images,
    gltf_uris,
    read_path,
)
from texbudget.sizing.bvh import estimate_scene
from texbudget.sizing.meshes import price_mesh


def read(root: Path, rel: str) -> ReadResult:
    result = read_path(root, rel)
    assert not [f for f in result.findings if f.code == "TB009"], result.findings
    return result


def codes(result: ReadResult) -> list[str]:
    return [f.code for f in result.findings]


def only(result: ReadResult, code: str) -> str:
    """The one finding's message; the result holds exactly that finding."""
    assert codes(result) == [code], result.findings
    return result.findings[0].message


def quad_glb(tmp_path: Path, name: str = "a.glb", nodes: int = 1) -> Path:
    b = GltfBuilder()
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Quad")
    b.add_scene([b.add_node(mesh=m) for _ in range(nodes)])
    return b.write_glb(tmp_path / name)


# --- meshes: exact bytes -------------------------------------------------------------------


def test_mesh_in_40_nodes_is_40_instances_and_one_blas(tmp_path):
    b = GltfBuilder()
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Quad")
    kids = [b.add_node(mesh=m, translation=[float(i), 0.0, 0.0]) for i in range(40)]
    b.add_scene([b.add_node(children=kids)])
    b.write_glb(tmp_path / "level.glb")
    r = read(tmp_path, "level.glb")
    assert codes(r) == []
    (mesh,) = r.meshes
    assert (mesh.path, mesh.name, mesh.vertices, mesh.indices, mesh.triangles) == ("level.glb#mesh/0", "Quad", 4, 6, 2)
    # POSITION 4 × 12 + NORMAL 4 × 12 = 96; indices 6 × 2 = 12
    assert (mesh.vertex_bytes, mesh.index_bytes, mesh.morph_bytes, mesh.skinned) == (96, 12, 0, False)
    (prim,) = mesh.primitives
    assert [(a.name, a.component_type, a.components, a.count, a.bytes) for a in prim.attributes] == [
        ("POSITION", "FLOAT", 3, 4, 48), ("NORMAL", "FLOAT", 3, 4, 48)]
    assert (prim.mode, prim.index_count, prim.index_bytes_per) == (4, 6, 2)
    assert mesh.surfaces == () and mesh.primitive_count == 1  # held inline: its counts are the mesh's
    (scene,) = r.scenes
    assert scene.instances == (("level.glb#mesh/0", 40),)
    cost = estimate_scene("nvidia", [price_mesh(mesh, instances=40)])
    assert len(cost.per_mesh) == 1 and cost.tlas.instances == 40 and cost.instance_desc_bytes == 2_560


@pytest.mark.parametrize("writer", ["glb", "external", "data"])
def test_buffers_glb_external_and_data_uri_agree(tmp_path, writer):
    b = GltfBuilder()
    m = triangle_mesh(b, 5, [0, 1, 2, 2, 3, 4, 0, 2, 4], name="Pent")
    b.add_scene([b.add_node(mesh=m)])
    name = {"glb": "p.glb", "external": "p.gltf", "data": "p.gltf"}[writer]
    {"glb": b.write_glb, "external": b.write_gltf, "data": b.write_gltf_embedded}[writer](tmp_path / name)
    r = read(tmp_path, name)
    assert codes(r) == []
    (mesh,) = r.meshes
    assert (mesh.vertices, mesh.triangles, mesh.vertex_bytes, mesh.index_bytes) == (5, 3, 120, 18)


def test_external_bin_may_climb_inside_the_root(tmp_path):
    (tmp_path / "levels").mkdir()
    (tmp_path / "shared").mkdir()
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_gltf(tmp_path / "levels" / "a.gltf", bin_name="../shared/a%20b.bin")
    (tmp_path / "levels" / "../shared/a%20b.bin").rename(tmp_path / "shared" / "a b.bin")
    r = read(tmp_path, "levels/a.gltf")
    assert codes(r) == [] and r.meshes[0].vertex_bytes == 72


def test_draw_modes_strips_fans_points_lines(tmp_path):
    b = GltfBuilder()
    pos = b.positions(6)
    prims = [
        {"attributes": {"POSITION": pos}, "indices": b.indices([0, 1, 2, 3, 4, 5]), "mode": 5},  # strip: 6 − 2
        {"attributes": {"POSITION": pos}, "mode": 6},  # fan, unindexed: 6 − 2
        {"attributes": {"POSITION": pos}},  # list, unindexed: 6 / 3
        {"attributes": {"POSITION": pos}, "mode": 0},  # points
        {"attributes": {"POSITION": pos}, "indices": b.indices([0, 1, 1, 2], UBYTE), "mode": 1},  # lines
        {"attributes": {"POSITION": pos}, "mode": 3},  # line strip
    ]
    b.add_scene([b.add_node(mesh=b.add_mesh(prims, "Modes"))])
    b.write_glb(tmp_path / "m.glb")
    (mesh,) = read(tmp_path, "m.glb").meshes
    assert [(p.mode, p.triangles) for p in mesh.primitives] == [(5, 4), (6, 4), (4, 2), (0, 0), (1, 0), (3, 0)]
    assert (mesh.mode, len(mesh.surfaces), mesh.primitive_count) == (None, 6, 6)  # several: listed
    assert mesh.triangles == 10
    assert mesh.vertices == 6  # one POSITION accessor, counted once
    assert (mesh.vertex_bytes, mesh.index_bytes, mesh.indices) == (72, 12 + 4, 10)
    assert mesh.primitives[4].index_bytes_per == 1


def test_shared_and_interleaved_accessors_count_once(tmp_path):
    b = GltfBuilder()
    # POSITION and NORMAL interleaved in one 24-byte-stride view of 8 vertices (192 bytes).
    view = b.add_view(bytes(8 * 24), stride=24)
    pos = b.add_accessor(None, FLOAT, "VEC3", count=8, view=view, min=[0, 0, 0], max=[1, 1, 1])
    nrm = b.add_accessor(None, FLOAT, "VEC3", count=8, view=view, byteOffset=12)
    i0, i1 = b.indices([0, 1, 2]), b.indices([4, 5, 6, 4, 6, 7], UINT)
    attrs = {"POSITION": pos, "NORMAL": nrm}
    m = b.add_mesh([{"attributes": attrs, "indices": i0, "material": 0}, {"attributes": attrs, "indices": i1, "material": 1}])
    b.add_material(name="a")
    b.add_material(name="b")
    b.add_scene([b.add_node(mesh=m)])
    b.write_glb(tmp_path / "s.glb")
    (mesh,) = read(tmp_path, "s.glb").meshes
    # byteStride does not change an accessor's bytes: 8 × 12 each, counted once per mesh.
    assert (mesh.vertices, mesh.vertex_bytes, mesh.index_bytes, mesh.triangles) == (8, 192, 6 + 24, 3)
    assert [p.material for p in mesh.primitives] == ["s.glb#material/0", "s.glb#material/1"]
    assert [p.index_bytes_per for p in mesh.primitives] == [2, 4]
    assert [(p.vertex_count, p.index_count, p.triangles) for p in mesh.surfaces] == [(8, 3, 1), (8, 6, 2)]


def test_morph_targets(tmp_path):
    b = GltfBuilder()
    targets = [{"POSITION": b.vec(4, "VEC3"), "NORMAL": b.vec(4, "VEC3")} for _ in range(2)]
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Face", targets=targets)
    b.doc["meshes"][m]["weights"] = [0.0, 0.0]
    b.add_scene([b.add_node(mesh=m)])
    b.write_glb(tmp_path / "f.glb")
    (mesh,) = read(tmp_path, "f.glb").meshes
    assert (mesh.morph_targets, mesh.morph_bytes, mesh.vertex_bytes, mesh.index_bytes) == (2, 2 * (48 + 48), 96, 12)
    assert (mesh.primitives[0].morph_targets, mesh.primitives[0].morph_bytes) == (2, 192)
    assert (mesh.surfaces, mesh.mode) == ((), 4)  # its counts are the mesh's: inline
    cost = price_mesh(mesh)
    assert cost.dynamic and cost.buffer_bytes == 96 + 12 + 192


def test_one_primitive_whose_morph_target_is_an_attribute_keeps_its_own_counts(tmp_path):
    """An accessor used as an attribute and as a morph target is counted once per mesh, in
    its first category (vertex bytes): the mesh's morph bytes are 48 below its one
    primitive's, so the primitive is listed in ``surfaces``, not held inline."""
    b = GltfBuilder()
    pos = b.positions(4)
    targets = [{"POSITION": pos}, {"POSITION": b.vec(4, "VEC3")}]
    prim = {"attributes": {"POSITION": pos}, "indices": b.indices([0, 1, 2, 0, 2, 3]), "targets": targets}
    b.add_scene([b.add_node(mesh=b.add_mesh([prim], "Odd"))])
    b.write_glb(tmp_path / "o.glb")
    (mesh,) = read(tmp_path, "o.glb").meshes
    assert (mesh.vertices, mesh.vertex_bytes, mesh.morph_targets, mesh.morph_bytes) == (4, 48, 2, 48)
    assert (mesh.mode, mesh.primitive_count) == (None, 1)
    (p,) = mesh.surfaces
    assert (p.vertex_count, p.index_count, p.triangles, p.morph_targets, p.morph_bytes) == (4, 6, 2, 2, 96)
    assert mesh.primitives == (p,)


def test_skins(tmp_path):
    b = GltfBuilder()
    prim = {"attributes": {"POSITION": b.positions(4), "JOINTS_0": b.vec(4, "VEC4", UBYTE), "WEIGHTS_0": b.vec(4, "VEC4")},
            "indices": b.indices([0, 1, 2, 0, 2, 3])}
    skinned_mesh = b.add_mesh([prim], "Body")
    static_mesh = triangle_mesh(b, 3, [0, 1, 2], name="Rock")
    joint = b.add_node(name="root_joint")
    b.doc["skins"] = [{"joints": [joint]}]
    b.add_scene([b.add_node(mesh=skinned_mesh, skin=0), joint, b.add_node(mesh=static_mesh)])
    b.write_glb(tmp_path / "k.glb")
    body, rock = read(tmp_path, "k.glb").meshes
    assert (body.skinned, rock.skinned) == (True, False)
    assert body.vertex_bytes == 48 + 16 + 64  # f32x3 + u8x4 + f32x4, 4 vertices


def test_draco_priced_at_decoded_size(tmp_path):
    b = GltfBuilder()
    draco_view = b.add_view(b"\x00" * 400)  # the compressed stream (opaque to texbudget)
    pos = b.add_accessor(None, FLOAT, "VEC3", count=1_000, min=[0, 0, 0], max=[1, 1, 1])
    uv = b.add_accessor(None, FLOAT, "VEC2", count=1_000)
    idx = b.add_accessor(None, UINT, "SCALAR", count=3_000)
    prim = {"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx,
            "extensions": {"KHR_draco_mesh_compression": {"bufferView": draco_view, "attributes": {"POSITION": 0, "TEXCOORD_0": 1}}}}
    b.doc["extensionsUsed"] = b.doc["extensionsRequired"] = ["KHR_draco_mesh_compression"]
    b.add_scene([b.add_node(mesh=b.add_mesh([prim], "Draco"))])
    b.write_glb(tmp_path / "d.glb")
    r = read(tmp_path, "d.glb")
    assert codes(r) == []
    (mesh,) = r.meshes
    assert (mesh.vertices, mesh.triangles, mesh.vertex_bytes, mesh.index_bytes) == (1_000, 1_000, 12_000 + 8_000, 12_000)
    assert mesh.primitives[0].compression == "draco"


def test_meshopt_priced_at_decoded_size(tmp_path):
    (tmp_path / "c.bin").write_bytes(b"\x00" * 200)
    doc = {
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression"], "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [{"byteLength": 1_200, "extensions": {"EXT_meshopt_compression": {"fallback": True}}},
                    {"uri": "c.bin", "byteLength": 200}],
        "bufferViews": [{"buffer": 0, "byteLength": 1_200, "byteStride": 12, "extensions": {"EXT_meshopt_compression": {
            "buffer": 1, "byteOffset": 0, "byteLength": 200, "byteStride": 12, "count": 100, "mode": "ATTRIBUTES"}}}],
        "accessors": [{"bufferView": 0, "componentType": FLOAT, "type": "VEC3", "count": 100}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    }
    (tmp_path / "o.gltf").write_text(json.dumps(doc))
    r = read(tmp_path, "o.gltf")
    assert codes(r) == []
    (mesh,) = r.meshes
    assert (mesh.vertex_bytes, mesh.triangles, mesh.primitives[0].compression) == (1_200, 33, "meshopt")
    assert r.scenes[0].instances == ()  # no nodes: a mesh library


def test_meshopt_compressed_range_checked(tmp_path):
    (tmp_path / "c.bin").write_bytes(b"\x00" * 100)
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 1_200, "extensions": {"EXT_meshopt_compression": {"fallback": True}}},
                    {"uri": "c.bin", "byteLength": 100}],
        "bufferViews": [{"buffer": 0, "byteLength": 1_200, "extensions": {"EXT_meshopt_compression": {
            "buffer": 1, "byteOffset": 0, "byteLength": 200, "byteStride": 12, "count": 100}}}],
        "accessors": [{"bufferView": 0, "componentType": FLOAT, "type": "VEC3", "count": 100}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    }
    (tmp_path / "o.gltf").write_text(json.dumps(doc))
    r = read(tmp_path, "o.gltf")
    assert "bufferView 0 (compressed data) covers bytes 0–200 of buffer 1, which declares 100" in only(r, "TB076")
    assert r.meshes == ()


# --- scene graph -----------------------------------------------------------------------------


def test_gpu_instancing_multiplies(tmp_path):
    b = GltfBuilder()
    m = triangle_mesh(b, 3, [0, 1, 2], name="Grass")
    translations = b.vec(250, "VEC3")
    b.doc["extensionsUsed"] = ["EXT_mesh_gpu_instancing"]
    inst = b.add_node(mesh=m, extensions={"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": translations}}})
    b.add_scene([inst, b.add_node(mesh=m)])
    b.write_glb(tmp_path / "g.glb")
    assert read(tmp_path, "g.glb").scenes[0].instances == (("g.glb#mesh/0", 251),)


def test_default_scene_only_else_all_scenes_else_root_nodes(tmp_path):
    b = GltfBuilder()
    m0, m1 = triangle_mesh(b, 3, [0, 1, 2], name="A"), triangle_mesh(b, 3, [0, 1, 2], name="B")
    b.add_scene([b.add_node(mesh=m0)], default=False)
    b.add_scene([b.add_node(mesh=m1), b.add_node(mesh=m1)], default=True)
    b.write_glb(tmp_path / "one.glb")
    r = read(tmp_path, "one.glb")
    assert r.scenes[0].instances == (("one.glb#mesh/0", 0), ("one.glb#mesh/1", 2))
    assert only(r, "TB084") == "mesh 0 (A) is used by no node of the scene"
    del b.doc["scene"]
    b.write_glb(tmp_path / "all.glb")
    assert read(tmp_path, "all.glb").scenes[0].instances == (("all.glb#mesh/0", 1), ("all.glb#mesh/1", 2))
    del b.doc["scenes"]
    b.doc["nodes"].append({"children": [0]})  # node 0 now has a parent; 1, 2, 3 are roots
    b.write_glb(tmp_path / "none.glb")
    assert read(tmp_path, "none.glb").scenes[0].instances == (("none.glb#mesh/0", 1), ("none.glb#mesh/1", 2))


def test_nested_hierarchy_counts_each_node_once(tmp_path):
    b = GltfBuilder()
    m = triangle_mesh(b, 3, [0, 1, 2])
    leaves = [b.add_node(mesh=m) for _ in range(3)]
    mid = b.add_node(mesh=m, children=leaves)
    b.add_scene([b.add_node(children=[mid]), b.add_node(mesh=m)])
    b.write_glb(tmp_path / "h.glb")
    assert read(tmp_path, "h.glb").scenes[0].instances == (("h.glb#mesh/0", 5),)


def test_lod_names_and_msft_lod(tmp_path):
    b = GltfBuilder()
    lod0, lod1 = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Rock_LOD0"), triangle_mesh(b, 3, [0, 1, 2], name="Rock_LOD1")
    tree0, tree1, tree2 = (triangle_mesh(b, 3, [0, 1, 2], name=f"Tree{i}") for i in range(3))
    far1, far2 = b.add_node(mesh=tree1), b.add_node(mesh=tree2)  # reached only through MSFT_lod
    host = b.add_node(mesh=tree0, extensions={"MSFT_lod": {"ids": [far1, far2]}})
    b.add_scene([b.add_node(mesh=lod0), b.add_node(mesh=lod1), host])
    b.write_glb(tmp_path / "l.glb")
    r = read(tmp_path, "l.glb")
    assert codes(r) == []
    got = {m.name: (m.lod, m.lod_group) for m in r.meshes}
    assert got == {
        "Rock_LOD0": (0, "l.glb#lod/Rock"), "Rock_LOD1": (1, "l.glb#lod/Rock"),
        "Tree0": (0, f"l.glb#lod/node/{host}"), "Tree1": (1, f"l.glb#lod/node/{host}"), "Tree2": (2, f"l.glb#lod/node/{host}"),
    }
    assert dict(r.scenes[0].instances) == {f"l.glb#mesh/{i}": 1 for i in range(5)}
    cost = estimate_scene("nvidia", [price_mesh(m, instances=dict(r.scenes[0].instances)[m.path]) for m in r.meshes])
    assert [p for p, _ in cost.per_mesh] == ["l.glb#mesh/0", "l.glb#mesh/2"]


# --- images, textures, materials -------------------------------------------------------------


def test_materials_resolve_slots_to_image_identities(tmp_path):
    (tmp_path / "textures").mkdir()
    (tmp_path / "levels").mkdir()
    (tmp_path / "textures" / "rock a.png").write_bytes(png_bytes(8, 8))
    (tmp_path / "textures" / "rock.ktx2").write_bytes(b"not read by the glTF reader")
    b = GltfBuilder()
    embedded = b.add_image_view(png_bytes(64, 32))
    external = b.add_image_uri("../textures/rock%20a.png")
    ktx = b.add_image_uri("../textures/rock.ktx2", mimeType="image/ktx2")
    b.add_image_view(png_bytes(4, 4, "L"))  # an image no texture uses
    t_emb, t_ext = b.add_texture(embedded), b.add_texture(external)
    t_basis = b.add_texture(external, KHR_texture_basisu={"source": ktx})
    b.add_material(name="rock", pbrMetallicRoughness={"baseColorTexture": {"index": t_basis}, "metallicRoughnessTexture": {"index": t_emb}},
                   normalTexture={"index": t_ext}, occlusionTexture={"index": t_emb}, emissiveTexture={"index": t_emb})
    b.add_material(name="car", extensions={"KHR_materials_clearcoat": {"clearcoatTexture": {"index": t_emb}, "clearcoatFactor": 1.0},
                                           "KHR_materials_sheen": {"sheenColorTexture": {"index": t_ext}}})
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_glb(tmp_path / "levels" / "a.glb")
    r = read(tmp_path, "levels/a.glb")
    assert only(r, "TB081") == "image 3 (levels/a.glb#image/3) is used by no material"
    assert r.scenes[0].texture_usage == (
        ("textures/rock.ktx2", "levels/a.glb#material/0", "baseColor"),
        ("levels/a.glb#image/0", "levels/a.glb#material/0", "metallicRoughness"),
        ("textures/rock a.png", "levels/a.glb#material/0", "normal"),
        ("levels/a.glb#image/0", "levels/a.glb#material/0", "occlusion"),
        ("levels/a.glb#image/0", "levels/a.glb#material/0", "emissive"),
        ("levels/a.glb#image/0", "levels/a.glb#material/1", "clearcoat"),
        ("textures/rock a.png", "levels/a.glb#material/1", "sheenColor"),
    )
    # Embedded images are read in place; external ones are left to the scan.
    assert [(t.path, t.container, t.width, t.height, t.channels) for t in r.textures] == [
        ("levels/a.glb#image/0", "png", 64, 32, 4), ("levels/a.glb#image/3", "png", 4, 4, 1)]
    assert r.meshes[0].primitives[0].material == "levels/a.glb#material/0"
    # rock a.png is the basisu texture's fallback, but the normal slot uses it as itself
    assert r.scenes[0].fallbacks == ()


def test_fallback_images_of_extension_textures_are_listed(tmp_path):
    """An image that is only the fallback ``source`` of textures whose KHR_texture_basisu (or
    EXT_texture_webp) source is the one used is never loaded with it: the scene lists it."""
    b = GltfBuilder()
    ktx = b.add_image_uri("rock.ktx2", mimeType="image/ktx2")
    png = b.add_image_uri("rock.png")
    embedded = b.add_image_view(png_bytes(16, 16))
    webp = b.add_image_uri("moss.webp", mimeType="image/webp")
    shared = b.add_image_view(png_bytes(8, 8))  # a fallback here, used as itself below
    t_rock = b.add_texture(png, KHR_texture_basisu={"source": ktx})
    t_moss = b.add_texture(embedded, EXT_texture_webp={"source": webp})
    t_grass = b.add_texture(shared, KHR_texture_basisu={"source": ktx})
    t_plain = b.add_texture(shared)
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": t_rock}, "metallicRoughnessTexture": {"index": t_moss}},
                   normalTexture={"index": t_grass}, occlusionTexture={"index": t_plain})
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_glb(tmp_path / "a.glb")
    for name in ("rock.ktx2", "rock.png", "moss.webp"):
        (tmp_path / name).write_bytes(b"located, not read by the glTF reader")
    r = read(tmp_path, "a.glb")
    assert not r.findings
    assert r.scenes[0].fallbacks == ("rock.png", "a.glb#image/2")
    assert [u[0] for u in r.scenes[0].texture_usage] == ["rock.ktx2", "moss.webp", "rock.ktx2", "a.glb#image/4"]


def test_data_uri_image_and_jpeg_mime(tmp_path):
    import base64
    import io

    from PIL import Image

    jpg = io.BytesIO()
    Image.new("RGB", (40, 24)).save(jpg, format="JPEG")
    b = GltfBuilder()
    b.add_image_uri("data:image/png;base64," + base64.b64encode(png_bytes(16, 8)).decode())
    b.add_image_view(jpg.getvalue(), mime="image/jpeg")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}},
                   emissiveTexture={"index": b.add_texture(1)})
    b.write_gltf_embedded(tmp_path / "i.gltf")
    r = read(tmp_path, "i.gltf")
    assert codes(r) == []
    assert [(t.path, t.container, t.width, t.height) for t in r.textures] == [("i.gltf#image/0", "png", 16, 8), ("i.gltf#image/1", "jpeg", 40, 24)]


def test_image_in_a_truncated_view_is_not_read(tmp_path):
    b = GltfBuilder()
    b.add_image_view(png_bytes(16, 16))
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}})
    b.write_gltf(tmp_path / "t.gltf")
    data = (tmp_path / "t.bin").read_bytes()
    (tmp_path / "t.bin").write_bytes(data[:20])
    r = read(tmp_path, "t.gltf")
    assert only(r, "TB076") == f"buffer 0 declares {len(data)} bytes, but t.bin holds 20"
    assert r.textures == ()


# --- hostile and broken files: one specific finding each -----------------------------------


def write_json(tmp_path: Path, doc: object, name: str = "x.gltf") -> str:
    (tmp_path / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return name


def test_bad_json(tmp_path):
    r = read(tmp_path, write_json(tmp_path, '{"asset": {"version": "2.0"},'))
    assert only(r, "TB070").startswith("not valid JSON: Expecting property name enclosed in double quotes at line 1")


def test_not_utf8(tmp_path):
    (tmp_path / "x.gltf").write_bytes(b'{"asset": "\xff\xfe"}')
    assert only(read(tmp_path, "x.gltf"), "TB070") == "the JSON is not UTF-8 (byte 11)"


def test_a_byte_order_mark_is_allowed_once_and_counted_in_offsets(tmp_path):
    bom = b"\xef\xbb\xbf"
    (tmp_path / "x.gltf").write_bytes(bom + b'{"asset": {"version": "2.0"}}')
    assert read(tmp_path, "x.gltf").findings == ()
    (tmp_path / "x.gltf").write_bytes(bom + b'{"asset": "\xff\xfe"}')
    assert only(read(tmp_path, "x.gltf"), "TB070") == "the JSON is not UTF-8 (byte 14)"
    (tmp_path / "x.gltf").write_bytes(bom + bom + b'{"asset": {"version": "2.0"}}')
    assert only(read(tmp_path, "x.gltf"), "TB070").startswith("not valid JSON: Unexpected UTF-8 BOM")


@pytest.mark.parametrize(("text", "expected"), [
    # what msgspec's strict JSON refuses and json reads as it always did
    ('{"asset": {"version": "2.0"}, "extras": NaN, "x": -Infinity}', []),
    ('{"asset": {"version": "2.0", "generator": "\\ud83d\\ude00 \\ud800"}}', []),
    ('{"asset": {"version": "1.0"}, "asset": {"version": "2.0"}}', []),  # the last of a key wins
    ('{"asset": {"version": "2.0"}, "scene": 0.0, "scenes": [{"nodes": [0.0]}], "nodes": [{}]}', []),  # 0.0 is 0
    ('{"asset": {"version": "2.0"}} \n\t\r', []),
    # not JSON: json's own message, line and column
    ('{"asset": {"version": "2.0"}} x', [("TB070", "not valid JSON: Extra data at line 1 column 31")]),
    ('{"asset": {"version": "2.0"}}{}', [("TB070", "not valid JSON: Extra data at line 1 column 30")]),
    ('{"asset": {"version": "2.0"},}', [("TB070", "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 30")]),
    ('{"asset": {"version": "2.0\x01"}}', [("TB070", "not valid JSON: Invalid control character at at line 1 column 27")]),
    ('', [("TB070", "not valid JSON: Expecting value at line 1 column 1")]),
    ('"s"', [("TB070", "the JSON's top level is str, not an object")]),
    # a value of the wrong type: its field, as msgspec names it
    ('{"asset": {"version": 2}}', [("TB073", "$.asset.version: expected `str | null`, got `int`")]),
    ('{"asset": {"version": "2.0"}, "scene": 0.5}', [("TB073", "$.scene: expected `int | null`, got `float`")]),
    ('{"asset": {"version": "2.0"}, "nodes": [{"mesh": true}]}', [("TB073", "$.nodes[0].mesh: expected `int | null`, got `bool`")]),
])
def test_json_that_msgspec_refuses_reads_as_json_reads_it(tmp_path, text, expected):
    """msgspec decodes the document; what its strict JSON refuses goes to json (NaN, lone
    surrogates, 4.0 for 4) and is converted to the schema, or gets json's message."""
    r = read(tmp_path, write_json(tmp_path, text))
    assert [(f.code, f.message) for f in r.findings] == expected


def test_json_nested_100k_deep(tmp_path):
    r = read(tmp_path, write_json(tmp_path, '{"asset": {"version": "2.0"}, "extras": ' + "[" * 100_000 + "]" * 100_000 + "}"))
    assert only(r, "TB070") == "the JSON is nested deeper than its parser can follow"


def test_json_top_level_array_and_giant_integer(tmp_path):
    assert only(read(tmp_path, write_json(tmp_path, "[1, 2]")), "TB070") == "the JSON's top level is list, not an object"
    r = read(tmp_path, write_json(tmp_path, '{"asset": {"version": "2.0"}, "scene": ' + "9" * 5_000 + "}"))
    assert only(r, "TB070").startswith("not valid JSON: Exceeds the limit")
    # in a field texbudget does not read, it is skipped (the JSON is valid; Python's limit is Python's)
    assert read(tmp_path, write_json(tmp_path, '{"asset": {"version": "2.0"}, "n": ' + "9" * 5_000 + "}")).findings == ()


def test_json_over_the_cap_is_not_read(tmp_path):
    with open(tmp_path / "big.gltf", "wb") as f:
        f.truncate(200 * 1024 * 1024)  # sparse: 200 MB without writing them
    tracemalloc.start()
    r = read(tmp_path, "big.gltf")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert only(r, "TB071") == f"the JSON is {200 * 1024 * 1024} bytes; texbudget parses at most {64 * 1024 * 1024}"
    assert peak < 1024 * 1024


def test_not_gltf_2(tmp_path):
    r = read(tmp_path, write_json(tmp_path, {"asset": {"version": "1.0"}}))
    assert only(r, "TB082") == "asset.version is '1.0'; texbudget reads glTF 2.x"
    assert only(read(tmp_path, write_json(tmp_path, {"meshes": []})), "TB073") == "the required 'asset' object is missing"


def test_unknown_required_extension_warns(tmp_path):
    b = GltfBuilder()
    b.doc["extensionsRequired"] = ["KHR_texture_basisu", "VENDOR_magic"]
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_glb(tmp_path / "e.glb")
    r = read(tmp_path, "e.glb")
    assert only(r, "TB083") == "the file requires extension VENDOR_magic, which texbudget does not know"
    assert r.meshes[0].vertex_bytes == 72


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"meshes": {}}, "$.meshes: expected `array | null`, got `object`"),
        ({"accessors": [{"componentType": 9999, "type": "VEC3", "count": 3}]}, "accessor 0: componentType 9999 is not a glTF component type"),
        ({"accessors": [{"componentType": FLOAT, "type": "VEC5", "count": 3}]}, "accessor 0: type 'VEC5' is not SCALAR, VEC2–4 or MAT2–4"),
        ({"accessors": [{"componentType": FLOAT, "type": "VEC3", "count": "three"}]}, "$.accessors[0].count: expected `int | null`, got `str`"),
        ({"meshes": [{"primitives": [{"attributes": {"POSITION": 7}}]}]}, "mesh 0 primitive 0: 'POSITION' points to accessor 7, but the file has 1"),
        ({"meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 9}]}]}, "mesh 0 primitive 0: mode 9 is not a glTF draw mode (0–6)"),
        ({"meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 0}]}]}, "mesh 0 primitive 0: index accessor 0 is FLOAT x3; indices are UNSIGNED_BYTE/SHORT/INT scalars"),
        ({"meshes": [{"primitives": []}]}, "mesh 0 has no primitives"),
        ({"nodes": [{"children": [-1]}]}, "node 0 children is -1, not an index"),
        ({"buffers": [{"byteLength": 36}]}, "buffer 0 has no data: it has no uri"),
    ],
)
def test_schema_errors(tmp_path, patch, message):
    doc = {"asset": {"version": "2.0"}, "accessors": [{"componentType": FLOAT, "type": "VEC3", "count": 3}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}], **patch}
    r = read(tmp_path, write_json(tmp_path, doc))
    assert message in [f.message for f in r.findings] and set(codes(r)) == {"TB073"}


def test_accessor_past_the_end_of_its_buffer_view(tmp_path):
    b = GltfBuilder()
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Bad")
    b.doc["accessors"][0]["count"] = 5  # 5 × 12 = 60 bytes from a 48-byte view
    good = triangle_mesh(b, 3, [0, 1, 2], name="Good")
    b.add_scene([b.add_node(mesh=m), b.add_node(mesh=good)])
    b.write_gltf(tmp_path / "p.gltf")
    r = read(tmp_path, "p.gltf")
    assert only(r, "TB077") == "accessor 0 needs 60 bytes of bufferView 0 (offset 0 + 5 × 12-byte stride), which holds 48"
    assert [m.name for m in r.meshes] == ["Good"]


def test_strided_accessor_past_the_end(tmp_path):
    b = GltfBuilder()
    view = b.add_view(bytes(4 * 24), stride=24)
    b.add_accessor(None, FLOAT, "VEC3", count=4, view=view, byteOffset=16)  # 16 + 3 × 24 + 12 = 100 > 96
    b.add_mesh([{"attributes": {"POSITION": 0}}])
    b.write_glb(tmp_path / "s.glb")
    assert only(read(tmp_path, "s.glb"), "TB077") == "accessor 0 needs 100 bytes of bufferView 0 (offset 16 + 4 × 24-byte stride), which holds 96"


def test_buffer_view_past_the_buffer(tmp_path):
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.doc["bufferViews"][2]["byteOffset"] = 4_000
    b.write_glb(tmp_path / "v.glb")
    r = read(tmp_path, "v.glb")
    assert only(r, "TB076") == "bufferView 2 covers bytes 4000–4006 of buffer 0, which declares 80"
    assert r.meshes == ()


def test_missing_bin_prices_the_declarations(tmp_path):
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_gltf(tmp_path / "m.gltf")
    (tmp_path / "m.bin").unlink()
    r = read(tmp_path, "m.gltf")
    assert only(r, "TB075") == "buffer 0: m.bin does not exist"
    assert (r.meshes[0].vertex_bytes, r.meshes[0].index_bytes) == (72, 6)


def test_short_bin(tmp_path):
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_gltf(tmp_path / "s.gltf")
    (tmp_path / "s.bin").write_bytes(bytes(50))
    r = read(tmp_path, "s.gltf")
    assert only(r, "TB076") == "buffer 0 declares 80 bytes, but s.bin holds 50"
    assert r.meshes == ()


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("../outside.bin", "buffer 0: URI '../outside.bin' leaves the scan root; not opened"),
        ("a/../../outside.bin", "buffer 0: URI 'a/../../outside.bin' leaves the scan root; not opened"),
        ("%2e%2e/outside.bin", "buffer 0: URI '%2e%2e/outside.bin' leaves the scan root; not opened"),
        ("..\\outside.bin", "buffer 0: URI '..\\\\outside.bin' leaves the scan root; not opened"),
        ("/etc/passwd", "buffer 0: URI '/etc/passwd' is an absolute path; not opened"),
        ("C:\\Windows\\x.bin", "buffer 0: URI 'C:\\\\Windows\\\\x.bin' is an absolute path; not opened"),
        ("%2Fetc%2Fpasswd", "buffer 0: URI '%2Fetc%2Fpasswd' decodes to an absolute path; not opened"),
        ("file:///etc/passwd", "buffer 0: URI 'file:///etc/passwd' uses the file: scheme; texbudget never opens or fetches it"),
        ("http://example.com/x.bin", "buffer 0: URI 'http://example.com/x.bin' uses the http: scheme; texbudget never opens or fetches it"),
        ("https://example.com/x.bin", "buffer 0: URI 'https://example.com/x.bin' uses the https: scheme; texbudget never opens or fetches it"),
        ("smb://host/share/x.bin", "buffer 0: URI 'smb://host/share/x.bin' uses the smb: scheme; texbudget never opens or fetches it"),
    ],
)
def test_uris_outside_the_root_are_refused_and_never_opened(tmp_path, monkeypatch, uri, message):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.bin").write_bytes(bytes(80))
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_gltf(root / "u.gltf", bin_name="u.bin")
    doc = json.loads((root / "u.gltf").read_text())
    doc["buffers"][0]["uri"] = uri
    (root / "u.gltf").write_text(json.dumps(doc))
    opened: list[str] = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    r = read(root, "u.gltf")
    monkeypatch.undo()
    assert only(r, "TB074") == message
    assert set(opened) == {str(root / "u.gltf")}


def test_equal_attributes_and_their_tuples_are_kept_once(tmp_path):
    # As the cache's decoder shares them: a scene's meshes repeat vertex counts and layouts.
    for name in ("a", "b"):
        b = GltfBuilder()
        b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
        b.write_gltf(tmp_path / f"{name}.gltf", bin_name=f"{name}.bin")
    (pa,) = read(tmp_path, "a.gltf").meshes[0].primitives
    (pb,) = read(tmp_path, "b.gltf").meshes[0].primitives
    assert pa == pb and pa is not pb
    assert pa.attributes is pb.attributes
    assert [x.name for x in pa.attributes] == ["POSITION", "NORMAL"]
    assert all(x is y for x, y in zip(pa.attributes, pb.attributes, strict=True))


def test_symlink_out_of_the_root_is_refused(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.bin").write_bytes(bytes(80))
    (root / "link.bin").symlink_to(tmp_path / "secret.bin")
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    b.write_gltf(root / "l.gltf", bin_name="real.bin")
    doc = json.loads((root / "l.gltf").read_text())
    doc["buffers"][0]["uri"] = "link.bin"
    (root / "l.gltf").write_text(json.dumps(doc))
    assert only(read(root, "l.gltf"), "TB074") == "buffer 0: URI 'link.bin' leads through a symbolic link out of the scan root; not opened"


def test_external_image_uri_refused(tmp_path):
    b = GltfBuilder()
    b.add_image_uri("https://cdn.example.com/a.png")
    b.add_image_uri("missing.png")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}}, normalTexture={"index": b.add_texture(1)})
    b.write_gltf(tmp_path / "i.gltf")
    r = read(tmp_path, "i.gltf")
    assert [(f.code, f.message) for f in r.findings] == [
        ("TB074", "image 0: URI 'https://cdn.example.com/a.png' uses the https: scheme; texbudget never opens or fetches it"),
        ("TB075", "image 1: missing.png does not exist"),
    ]
    # The usage still names the material slots, under the images' in-file identities.
    assert r.scenes[0].texture_usage == (("i.gltf#image/0", "i.gltf#material/0", "baseColor"), ("i.gltf#image/1", "i.gltf#material/0", "normal"))


@pytest.mark.parametrize("with_view", [True, False])
def test_accessor_count_2_pow_40(tmp_path, with_view):
    b = GltfBuilder()
    m = triangle_mesh(b, 3, [0, 1, 2])
    if not with_view:
        del b.doc["accessors"][0]["bufferView"]
    b.doc["accessors"][0]["count"] = 2**40
    b.add_scene([b.add_node(mesh=m)])
    b.write_glb(tmp_path / "c.glb")
    tracemalloc.start()
    r = read(tmp_path, "c.glb")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert only(r, "TB078") == f"accessor 0: count {2**40} is beyond {2**31 - 1}; not priced"
    assert r.meshes == () and peak < 4 * 1024 * 1024


def test_gpu_instancing_count_2_pow_40(tmp_path):
    b = GltfBuilder()
    m = triangle_mesh(b, 3, [0, 1, 2])
    acc = b.add_accessor(None, FLOAT, "VEC3", count=2**40)
    b.add_scene([b.add_node(mesh=m, extensions={"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": acc}}})])
    b.write_glb(tmp_path / "g.glb")
    r = read(tmp_path, "g.glb")
    assert only(r, "TB078") == f"accessor 3: count {2**40} is beyond {2**31 - 1}; not priced"
    assert r.scenes[0].instances == (("g.glb#mesh/0", 1),)


@pytest.mark.parametrize(
    ("nodes", "scene", "messages", "instances"),
    [
        ([{"mesh": 0, "children": [1]}, {"mesh": 0, "children": [0]}], [0],
         ["nodes 0 → 1 → 0 form a cycle; the link from 1 to 0 was ignored"], 2),
        ([{"mesh": 0, "children": [0]}], [0], ["node 0 lists itself as a child (a cycle); the link was ignored"], 1),
        ([{"children": [2]}, {"children": [2]}, {"mesh": 0}], [0, 1],
         ["node 2 has two parents (nodes 0 and 1); the link from 1 was ignored"], 1),
        ([{"mesh": 0, "children": [1]}, {"mesh": 0, "children": [2]}, {"mesh": 0, "children": [1]}], [0],
         ["node 1 has two parents (nodes 0 and 2); the link from 2 was ignored"], 3),
        ([{"mesh": 0, "children": [1]}, {"mesh": 0}], [0, 1],
         ["node 1 is reached twice in one scene (the scene lists a node that is also a child); counted once"], 2),
    ],
)
def test_node_graph_that_is_not_a_tree(tmp_path, nodes, scene, messages, instances):
    b = GltfBuilder()
    triangle_mesh(b, 3, [0, 1, 2])
    b.doc["nodes"] = nodes
    b.doc["scenes"], b.doc["scene"] = [{"nodes": scene}], 0
    b.write_glb(tmp_path / "c.glb")
    r = read(tmp_path, "c.glb")
    assert [(f.code, f.message) for f in r.findings] == [("TB080", m) for m in messages]
    assert r.scenes[0].instances == (("c.glb#mesh/0", instances),)


def test_long_cycle_away_from_the_roots_terminates(tmp_path):
    n = 50_000
    b = GltfBuilder()
    triangle_mesh(b, 3, [0, 1, 2])
    b.doc["nodes"] = [{"mesh": 0, "children": [(k + 1) % n]} for k in range(n)]
    b.doc["scenes"], b.doc["scene"] = [{"nodes": []}], 0
    b.write_glb(tmp_path / "c.glb")
    r = read(tmp_path, "c.glb")
    assert codes(r) == ["TB080", "TB084"]
    assert r.findings[0].message.endswith(f"form a cycle; the link from {n - 1} to 0 was ignored")


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("data:application/octet-stream;base64,@@@@", "buffer 0: the data: URI's base64 is invalid (Only base64 data is allowed)"),
        ("data:application/octet-stream;base64,AAA", "buffer 0: the data: URI's base64 is invalid (Incorrect padding)"),
        ("data:application/octet-stream,%00%00", "buffer 0: the data: URI is not base64 ('data:application/octet-stream')"),
    ],
)
def test_bad_data_uris(tmp_path, uri, message):
    doc = {"asset": {"version": "2.0"}, "buffers": [{"uri": uri, "byteLength": 3}]}
    assert only(read(tmp_path, write_json(tmp_path, doc)), "TB079") == message


def test_data_uri_claim_checked_before_decoding(tmp_path, monkeypatch):
    monkeypatch.setattr(gltf_images, "MAX_IMAGE_BYTES", 1_000)
    decoded: list[int] = []
    real = gltf_uris.binascii.a2b_base64
    monkeypatch.setattr(gltf_uris.binascii, "a2b_base64", lambda s, **kw: decoded.append(len(s)) or real(s, **kw))
    doc = {"asset": {"version": "2.0"}, "images": [{"uri": "data:image/png;base64," + "A" * 4_000}],
           "textures": [{"source": 0}], "materials": [{"emissiveTexture": {"index": 0}}]}
    r = read(tmp_path, write_json(tmp_path, doc))
    assert only(r, "TB079") == "image 0: the data: URI holds about 3000 bytes; texbudget decodes at most 1000"
    assert decoded == []


def test_buffer_claiming_a_terabyte(tmp_path):
    doc = {"asset": {"version": "2.0"}, "buffers": [{"uri": "data:application/octet-stream;base64,AAAA", "byteLength": 2**40}]}
    assert only(read(tmp_path, write_json(tmp_path, doc)), "TB076") == f"buffer 0 declares {2**40} bytes, but its data holds 3"


def test_embedded_image_over_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(gltf_accessors, "MAX_IMAGE_BYTES", 50)
    b = GltfBuilder()
    b.add_image_view(png_bytes(64, 64))
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}})
    b.write_glb(tmp_path / "i.glb")
    r = read(tmp_path, "i.glb")
    assert only(r, "TB078") == "image 0 is 96 bytes; texbudget reads embedded images up to 50"
    assert r.textures == ()


# --- GLB containers --------------------------------------------------------------------------


def _glb(tmp_path: Path, data: bytes, name: str = "x.glb") -> ReadResult:
    (tmp_path / name).write_bytes(data)
    return read(tmp_path, name)


def test_glb_header_and_chunk_lies(tmp_path):
    good = quad_glb(tmp_path).read_bytes()
    json_len = struct.unpack_from("<I", good, 12)[0]
    cases = {
        "short": (good[:7], "TB072", "the file is 7 bytes; a GLB header needs 12"),
        "total": (good[:8] + struct.pack("<I", 10**9) + good[12:], "TB072", f"the GLB header says the file is {10**9} bytes, but it has {len(good)} (truncated)"),
        "json": (good[:12] + struct.pack("<I", 2**31) + good[16:], "TB072", f"the JSON chunk claims {2**31} bytes at offset 20, but the file ends at {len(good)}"),
        "bin": (good[: 20 + json_len] + struct.pack("<I", 10**6) + good[24 + json_len :], "TB072",
                f"the chunk at offset {20 + json_len} claims {10**6} bytes, but the file ends at {len(good)}"),
        "type": (good[:16] + b"XXXX" + good[20:], "TB072", "the first GLB chunk has type 0x58585858, not JSON"),
        "version": (good[:4] + struct.pack("<I", 1) + good[8:], "TB082", "the GLB header says version 1; texbudget reads glTF 2.0"),
        "nochunk": (struct.pack("<4sII", b"glTF", 2, 12), "TB072", "the GLB has no JSON chunk"),
    }
    for case, (data, code, message) in cases.items():
        assert only(_glb(tmp_path, data, f"{case}.glb"), code) == message, case


def test_glb_bad_magic_is_sniffed_away(tmp_path):
    # Without the magic the registry no longer sees a GLB: read_glb itself reports it.
    from texbudget.readers import Source

    r = gltf.read_glb(Source("x.glb", data=b"NOPE" + bytes(20), suffix_hint=".glb"))
    assert only(r, "TB072") == "the file starts with b'NOPE', not the GLB magic b'glTF'"


def test_glb_json_chunk_over_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(gltf_container, "MAX_JSON_BYTES", 64)
    r = _glb(tmp_path, quad_glb(tmp_path).read_bytes())
    assert only(r, "TB071").startswith("the JSON chunk is ")


def test_glb_trailing_bytes_are_reported_and_ignored(tmp_path):
    data = quad_glb(tmp_path).read_bytes()
    r = _glb(tmp_path, data + b"junk")
    assert only(r, "TB072") == f"the GLB header says the file is {len(data)} bytes, but it has {len(data) + 4}; the 4 bytes after it were ignored"
    assert r.meshes[0].vertex_bytes == 96


def test_glb_without_bin_chunk(tmp_path):
    b = GltfBuilder()
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2]))])
    data = b.glb_bytes()
    json_len = struct.unpack_from("<I", data, 12)[0]
    cut = struct.pack("<4sII", b"glTF", 2, 20 + json_len) + data[12 : 20 + json_len]
    r = _glb(tmp_path, cut)
    assert only(r, "TB073") == "buffer 0 has no data: the GLB has no BIN chunk"


def test_mesh_sizes_match_gltf_transform_inspect(tmp_path):
    """glTF-Transform inspect's mesh size: the unique accessors of a mesh (attributes, morph
    targets, indices), each at count × components × component size."""
    b = GltfBuilder()
    pos, uv = b.positions(10), b.vec(10, "VEC2", USHORT)
    target = {"POSITION": b.vec(10, "VEC3")}
    idx = b.indices(list(range(12)))
    m = b.add_mesh([{"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx, "targets": [target]},
                    {"attributes": {"POSITION": pos}, "indices": idx, "targets": [target]}])
    b.add_scene([b.add_node(mesh=m)])
    b.write_glb(tmp_path / "t.glb")
    (mesh,) = read(tmp_path, "t.glb").meshes
    inspect_size = 10 * 12 + 10 * 2 * 2 + 10 * 12 + 12 * 2
    assert mesh.vertex_bytes + mesh.index_bytes + mesh.morph_bytes == inspect_size == 304
    assert (mesh.vertex_bytes, mesh.morph_bytes, mesh.index_bytes, mesh.vertices, mesh.triangles) == (160, 120, 24, 10, 8)


# --- fuzz: mutated valid files never escape as an exception --------------------------------


def _rich_builder() -> GltfBuilder:
    b = GltfBuilder()
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Rock_LOD0", targets=[{"POSITION": b.vec(4, "VEC3")}])
    triangle_mesh(b, 5, [], name="Fan", mode=6)
    img = b.add_image_view(png_bytes(8, 8))
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(img)}})
    inst = b.vec(3, "VEC3")
    kids = [b.add_node(mesh=1), b.add_node(mesh=m, skin=0, extensions={"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": inst}}})]
    b.doc["skins"] = [{"joints": [kids[0]]}]
    b.add_scene([b.add_node(children=kids, extensions={"MSFT_lod": {"ids": [kids[0]]}})])
    return b


_GLB = _rich_builder().glb_bytes()
_HOSTILE = st.sampled_from([0, 1, -1, 2**31 - 1, 2**32 - 1, 2**40, 2**64, 1.5, "x", None, True, [], {}, [0, 0], {"a": 1}])


def _check(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / name).write_bytes(data)
    result = read_path(tmp_path, name)
    assert not [f for f in result.findings if f.code == "TB009"], result.findings


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, len(_GLB)), flips=st.lists(st.tuples(st.integers(0, len(_GLB) - 1), st.integers(0, 7)), max_size=4),
       tail=st.binary(max_size=16))
def test_fuzz_glb_bytes(tmp_path, cut, flips, tail):
    data = bytearray(_GLB[:cut] + tail)
    for pos, bit in flips:
        if pos < len(data):
            data[pos] ^= 1 << bit
    _check(tmp_path, "f.glb", bytes(data))


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


_DOC = json.loads(_rich_builder().json_bytes())
_DOC_PATHS = [p for p in _paths(_DOC) if p]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(_DOC_PATHS), _HOSTILE), min_size=1, max_size=3))
def test_fuzz_gltf_json_fields(tmp_path, edits):
    b = _rich_builder()
    doc = b.doc
    for path, value in edits:
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue
    b.write_gltf(tmp_path / "f.gltf")
    result = read_path(tmp_path, "f.gltf")
    assert not [f for f in result.findings if f.code == "TB009"], result.findings
