"""Mesh buffer pricing: stored bytes, engine layouts, index size rule, skinned copies, LODs."""

from __future__ import annotations

import pytest

from texbudget.model import AttributeFacts, MeshFacts, PrimitiveFacts
from texbudget.sizing.meshes import (
    DEFAULT_LAYOUT,
    SKINNED_COPY_LAYOUT,
    VertexLayout,
    engine_index_count,
    index_bytes_per,
    lod_of,
    price_mesh,
)

QUANTISED = VertexLayout(
    (("position", "UNSIGNED_SHORT", 4), ("normal", "BYTE", 4), ("tangent", "BYTE", 4), ("uv0", "HALF_FLOAT", 2)),
    name="quantised",
)


def rock(vertices: int = 3_986, indices: int = 22_359, **kw) -> MeshFacts:
    """The DESIGN.md §5 example mesh: POSITION/NORMAL f32x3 + TANGENT f32x4 + UV f32x2 = 48 B."""
    attrs = (AttributeFacts("POSITION", "FLOAT", 3, vertices, vertices * 12), AttributeFacts("NORMAL", "FLOAT", 3, vertices, vertices * 12),
             AttributeFacts("TANGENT", "FLOAT", 4, vertices, vertices * 16), AttributeFacts("TEXCOORD_0", "FLOAT", 2, vertices, vertices * 8))
    prim = PrimitiveFacts(mode=4, vertex_count=vertices, triangles=indices // 3, attributes=attrs, index_count=indices, index_bytes_per=2)
    return MeshFacts.from_primitives(path="level.glb#mesh/3", name="Rock", primitives=(prim,), vertices=vertices,
                                     indices=indices, triangles=indices // 3, vertex_bytes=vertices * 48,
                                     index_bytes=indices * 2, **kw)


@pytest.mark.parametrize(
    ("layout", "bytes_per_vertex"),
    [(DEFAULT_LAYOUT, 48), (SKINNED_COPY_LAYOUT, 40), (QUANTISED, 8 + 4 + 4 + 4),
     (VertexLayout((("position", "FLOAT", 3), ("uv0", "FLOAT", 2), ("uv1", "HALF_FLOAT", 2), ("color", "UNSIGNED_BYTE", 4))), 12 + 8 + 4 + 4)],
)
def test_layout_bytes_per_vertex(layout, bytes_per_vertex):
    assert layout.bytes_per_vertex == bytes_per_vertex


def test_layout_rejects_unknown_types():
    with pytest.raises(ValueError, match="vertex attribute 'p': unknown component type 'DOUBLE'"):
        VertexLayout((("p", "DOUBLE", 3),))
    with pytest.raises(ValueError, match="vertex attribute 'p': 17 components; allowed 1–16"):
        VertexLayout((("p", "FLOAT", 17),))


@pytest.mark.parametrize(("vertices", "size"), [(1, 2), (65_535, 2), (65_536, 4), (10**7, 4)])
def test_index_size_rule(vertices, size):
    assert index_bytes_per(vertices) == size


def test_price_stored():
    cost = price_mesh(rock(), instances=12)
    # DESIGN.md §5: vertex_bytes 191328, index_bytes 44718
    assert (cost.vertex_bytes, cost.index_bytes, cost.morph_bytes) == (191_328, 44_718, 0)
    assert (cost.engine_vertex_bytes, cost.engine_index_bytes) == (None, None)
    assert (cost.buffer_bytes, cost.basis, cost.instances) == (191_328 + 44_718, "stored", 12)
    assert (cost.path, cost.name, cost.vertices, cost.triangles, cost.indices) == ("level.glb#mesh/3", "Rock", 3_986, 7_453, 22_359)
    assert not cost.dynamic and cost.geometries == 1


def test_price_engine_layout():
    cost = price_mesh(rock(), layout=QUANTISED)
    assert cost.engine_vertex_bytes == 3_986 * 20 == 79_720
    assert cost.engine_index_bytes == 7_453 * 3 * 2 == 44_718
    assert (cost.buffer_bytes, cost.basis) == (79_720 + 44_718, "engine layout")
    assert cost.vertex_bytes == 191_328  # the stored size is still reported


def test_engine_layout_unrolls_strips_and_fans_and_picks_u32():
    prims = (
        PrimitiveFacts(mode=5, vertex_count=70_000, triangles=69_998, index_count=0),  # unindexed strip
        PrimitiveFacts(mode=6, vertex_count=10, triangles=8, index_count=10, index_bytes_per=1),
        PrimitiveFacts(mode=1, vertex_count=10, triangles=0, index_count=6, index_bytes_per=1),  # lines keep theirs
        PrimitiveFacts(mode=0, vertex_count=10, triangles=0),  # points
    )
    mesh = MeshFacts.from_primitives(path="m#mesh/0", name="m", primitives=prims, vertices=70_030, indices=16,
                                     triangles=70_006, vertex_bytes=0, index_bytes=16)
    assert engine_index_count(mesh) == (3 * 69_998 + 3 * 8 + 6, 3 * 69_998 * 4 + 3 * 8 * 2 + 6 * 2)
    cost = price_mesh(mesh, layout=DEFAULT_LAYOUT)
    assert cost.engine_vertex_bytes == 70_030 * 48
    assert cost.geometries == 2  # triangle primitives only


def test_morph_bytes_count_in_both_bases_and_make_the_mesh_dynamic():
    mesh = rock(morph_bytes=9_000, morph_targets=2)
    assert price_mesh(mesh).buffer_bytes == 191_328 + 44_718 + 9_000
    assert price_mesh(mesh, layout=DEFAULT_LAYOUT).buffer_bytes == 3_986 * 48 + 44_718 + 9_000
    assert price_mesh(mesh).dynamic


def test_skinned_copy_per_instance():
    mesh = rock(skinned=True)
    plain = price_mesh(mesh, instances=3)
    assert (plain.skinned, plain.dynamic, plain.skinned_copy_bytes) == (True, True, 0)
    copied = price_mesh(mesh, instances=3, skinned_copy=True)
    assert copied.skinned_copy_bytes == 3 * 3_986 * 40 == 478_320
    assert copied.buffer_bytes == 191_328 + 44_718 + 478_320
    assert price_mesh(rock(), instances=3, skinned_copy=True).skinned_copy_bytes == 0  # not skinned


def test_lod_fields_are_carried():
    cost = price_mesh(rock(lod=1, lod_group="level.glb#lod/Rock"))
    assert (cost.lod, cost.lod_group) == (1, "level.glb#lod/Rock")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Rock_LOD0", ("Rock", 0)), ("rock_lod12", ("rock", 12)), ("Tree-LOD3", ("Tree", 3)), ("a.b LOD1", ("a.b", 1)),
     ("props/rock_LOD1", ("props/rock", 1)), ("LOD1", None), ("Rock", None), ("RockLOD1", None), ("Rock_LOD", None), ("Rock_LOD1_1", None)],
)
def test_lod_of(name, expected):
    assert lod_of(name) == expected
