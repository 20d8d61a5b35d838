"""``MeshFacts``' two forms (texbudget/model.py): a mesh of one primitive whose counts are the
mesh's holds it inline, any other lists its primitives in ``surfaces``; ``from_primitives``
chooses, ``primitives`` gives the same ``PrimitiveFacts`` either way, and a mesh in the form
it could not have is refused."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

import texbudget
from texbudget.model import AttributeFacts, MeshFacts, PrimitiveFacts, evolve

ATTRS = (AttributeFacts("POSITION", "FLOAT", 3, 100, 1200), AttributeFacts("NORMAL", "FLOAT", 3, 100, 1200))
PRIM = PrimitiveFacts(mode=4, vertex_count=100, triangles=50, attributes=ATTRS, index_count=150, index_bytes_per=2,
                      morph_targets=2, morph_bytes=2400, material="a.glb#material/0", compression="draco")
#: the mesh of PRIM alone: its counts are PRIM's
COUNTS = {"vertices": 100, "indices": 150, "triangles": 50, "morph_targets": 2, "morph_bytes": 2400}
INLINE = ("mode", "attributes", "index_bytes_per", "material", "compression")


def mesh(primitives: tuple[PrimitiveFacts, ...], **changes: int) -> MeshFacts:
    return MeshFacts.from_primitives(path="a.glb#mesh/0", name="Rock", primitives=primitives,
                                     **{"vertex_bytes": 2400, "index_bytes": 300, **COUNTS, **changes})


def test_one_primitive_whose_counts_are_the_meshs_is_held_inline():
    m = mesh((PRIM,))
    assert m.surfaces == ()
    assert (m.mode, m.attributes, m.index_bytes_per, m.material, m.compression) == (4, ATTRS, 2, "a.glb#material/0", "draco")
    assert m.attributes is PRIM.attributes
    assert m.primitives == (PRIM,) and m.primitive_count == 1
    assert m == mesh((PRIM,)) and hash(m) == hash(mesh((PRIM,)))


def test_from_primitives_puts_every_field_in_its_place():
    """The inline form is built by position (a call of 16 keywords costs four times as much):
    every field, each of a value no other has, lands where its name says."""
    fields = {"path": "p.glb#mesh/0", "name": "n", "vertex_bytes": 7, "index_bytes": 8, "skinned": True,
              "source": "fbx", "lod": 3, "lod_group": "p.glb#lod/n", **COUNTS}
    expected = {**fields, "surfaces": (), "mode": 4, "attributes": ATTRS, "index_bytes_per": 2,
                "material": "a.glb#material/0", "compression": "draco"}
    inline = MeshFacts.from_primitives(primitives=[PRIM], **fields)
    assert msgspec.structs.asdict(inline) == expected and inline == MeshFacts(**expected)
    listed = MeshFacts.from_primitives(primitives=iter([PRIM, PRIM]), **fields)
    assert msgspec.structs.asdict(listed) == {**expected, "surfaces": (PRIM, PRIM), "mode": None, "attributes": (),
                                              "index_bytes_per": 0, "material": None, "compression": None}


@pytest.mark.parametrize(("mesh_field", "value"), [
    ("vertices", 101), ("triangles", 51), ("indices", 151), ("morph_targets", 3), ("morph_bytes", 0)])
def test_one_primitive_whose_counts_differ_from_the_meshs_stays_in_surfaces(mesh_field, value):
    """A glTF accessor used as an attribute and as a morph target is counted once per mesh
    (so the mesh's morph bytes are below its one primitive's): inline, the primitive would
    read the mesh's count; it keeps its own."""
    m = mesh((PRIM,), **{mesh_field: value})
    assert (m.surfaces, m.mode, m.attributes, m.material) == ((PRIM,), None, (), None)
    assert m.primitives == (PRIM,) and m.primitives[0] is PRIM and m.primitive_count == 1
    assert getattr(m, mesh_field) == value


def test_several_primitives_are_listed_and_none_is_no_primitive():
    other = evolve(PRIM, mode=1, triangles=0, index_count=6, material=None, compression=None)
    two = mesh((PRIM, other), triangles=50, indices=156)
    assert (two.surfaces, two.mode, two.primitives, two.primitive_count) == ((PRIM, other), None, (PRIM, other), 2)
    none = mesh(())
    assert (none.surfaces, none.mode, none.primitives, none.primitive_count) == ((), None, (), 0)
    assert all(getattr(none, f) == getattr(two, f) for f in INLINE)  # the defaults: no inline primitive


def test_primitives_are_equal_whichever_form_holds_them():
    """The same primitive inline and in ``surfaces`` (once its mesh's counts differ) reads the
    same; inline, each access builds it anew."""
    inline = mesh((PRIM,))
    listed = mesh((PRIM,), vertices=150)
    assert inline.primitives == listed.primitives == (PRIM,)
    assert inline.primitives[0] is not inline.primitives[0]
    assert msgspec.structs.asdict(inline.primitives[0]) == msgspec.structs.asdict(PRIM)


def test_a_mesh_in_a_form_it_cannot_have_is_refused():
    fields = {"path": "a.glb#mesh/0", "name": "Rock", "vertex_bytes": 2400, "index_bytes": 300, **COUNTS}
    with pytest.raises(ValueError, match="not both"):
        MeshFacts(**fields, surfaces=(PRIM, PRIM), mode=4)
    with pytest.raises(ValueError, match="holds it inline"):
        MeshFacts(**fields, surfaces=(PRIM,))  # its counts are the mesh's: two forms of one mesh
    for name, value in [("attributes", ATTRS), ("index_bytes_per", 2), ("material", "a.glb#material/0"),
                        ("compression", "draco")]:
        with pytest.raises(ValueError, match="mode None"):
            MeshFacts(**fields, **{name: value})
    inline = mesh((PRIM,))
    with pytest.raises(ValueError, match="not both"):
        evolve(inline, surfaces=(PRIM, PRIM))
    # a change of the mesh's counts that its inline primitive's would need is the caller's:
    # evolve copies the fields, and the primitive reads the new count
    assert evolve(inline, vertices=7).primitives[0].vertex_count == 7


def test_readers_build_meshes_with_from_primitives():
    """Each reader builds a mesh through ``MeshFacts.from_primitives``, which chooses its form."""
    readers = Path(texbudget.__file__).parent / "readers"
    direct = []
    built = []
    for path in sorted(readers.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "MeshFacts":
                direct.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_primitives":
                built.append(path.name)
    assert direct == []
    assert sorted(set(built)) == ["fbx.py", "gltf_meshes.py", "godot_mesh.py", "meshes.py"]
