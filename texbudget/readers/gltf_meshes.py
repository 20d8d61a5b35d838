"""A glTF's meshes (``file#mesh/N``) from the accessor declarations; buffers are never decoded.

Per primitive: the vertex count (its POSITION accessor), every attribute (component type,
components, count, bytes), indices, the draw mode's triangles (list n/3, strip and fan n−2,
points and lines 0), morph targets. A mesh's ``vertex_bytes`` / ``index_bytes`` /
``morph_bytes`` count each accessor once, so their sum is glTF-Transform ``inspect``'s mesh
size; ``vertices`` counts each POSITION accessor once. KHR_draco_mesh_compression and
EXT_meshopt_compression are priced at their decoded size: the accessor declarations give the
decoded counts and types. A mesh with an accessor that cannot be priced is left out (the
accessor's finding says why).

The scene walk decides what a mesh's declarations cannot say (skinned, MSFT_lod levels):
``placed`` gives those meshes its answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from texbudget.model import AttributeFacts, MeshFacts, PrimitiveFacts, evolve
from texbudget.readers.gltf_accessors import Layout
from texbudget.readers.gltf_container import (
    SHARED,
    Broken,
    Context,
    at_least,
    index,
    kept,
    required,
)
from texbudget.readers.gltf_schema import Primitive
from texbudget.sizing.meshes import lod_of

_TRIANGLE_MODES = (4, 5, 6)
_INDEX_TYPES = ("UNSIGNED_BYTE", "UNSIGNED_SHORT", "UNSIGNED_INT")


def _attribute(key: tuple[str, str, int, int, int, bool]) -> AttributeFacts:
    """The one kept AttributeFacts of these fields (name, component type, components, count,
    bytes, normalized)."""
    found: AttributeFacts | None = SHARED.get(key)
    if found is not None:
        return found
    name, component_type, components, count, size, normalized = key
    return kept(key, AttributeFacts(name=name, component_type=component_type, components=components,
                                    count=count, bytes=size, normalized=normalized))


def _attributes(keys: list[tuple[str, str, int, int, int, bool]]) -> tuple[AttributeFacts, ...]:
    """The one kept tuple of these attributes (keyed by their fields, not by the facts:
    hashing a fact hashes each of its fields in Python)."""
    key = (*keys, "attributes")
    found: tuple[AttributeFacts, ...] | None = SHARED.get(key)
    if found is not None:
        return found
    return kept(key, tuple(_attribute(k) for k in keys))


def read_meshes(ctx: Context, layout: Layout) -> dict[int, MeshFacts]:
    """Every mesh that can be priced, by index: not skinned, its LOD from its name (the scene
    walk knows better: ``placed``)."""
    doc = ctx.doc
    n_accessors = len(doc.accessors or ())
    n_materials = len(doc.materials or ())
    out: dict[int, MeshFacts] = {}
    for n, mesh in enumerate(doc.meshes or ()):
        if not mesh.primitives:
            raise Broken("TB073", f"mesh {n} has no primitives")
        facts = _read_mesh(ctx, layout, n, mesh.name, mesh.primitives, n_accessors, n_materials)
        if facts is not None:
            out[n] = facts
    return out


def placed(meshes: dict[int, MeshFacts], skinned: set[int], lods: dict[int, tuple[int, str]]) -> tuple[MeshFacts, ...]:
    """The meshes with what the scene walk found: skinned by a node's skin, and (level, group)
    from MSFT_lod, which wins over a name's."""
    if not skinned and not lods:
        return tuple(meshes.values())
    out = []
    for m, facts in meshes.items():
        changes: dict[str, Any] = {}
        if m in skinned:
            changes["skinned"] = True
        if m in lods:
            changes["lod"], changes["lod_group"] = lods[m]
        out.append(evolve(facts, **changes) if changes else facts)
    return tuple(out)


def _read_mesh(ctx: Context, layout: Layout, n: int, name: str | None, prims: list[Primitive],
               n_accessors: int, n_materials: int) -> MeshFacts | None:
    """One mesh, or None when an accessor it uses cannot be priced."""
    primitives: list[PrimitiveFacts] = []
    counted: set[int] = set()  # each accessor once per mesh, in its first category
    positions: set[int] = set()
    vertex_bytes = index_bytes = morph_bytes = vertices = morph_targets = indices = triangles_sum = 0
    broken = False
    accessor, checked = layout.accessor, layout.checked
    n_views = layout.n_views
    for p, prim in enumerate(prims):
        attr_ids, morph_ids, ii, mode, m, compression = _check_primitive(prim, n, p, n_accessors, n_materials, n_views)
        # Every accessor the primitive uses is checked (and its finding made) before one that
        # cannot be priced leaves the mesh out: attributes, morph targets, indices. Each is
        # counted once per mesh, in the first category it is used in (a mesh left out is not
        # counted at all).
        usable = True
        keys = []
        for attribute_name, i in attr_ids.items():
            acc = accessor(i)
            if acc is None:
                usable = False
            elif usable:
                keys.append((attribute_name, acc.component_type, acc.components, acc.count, acc.bytes, acc.normalized))
                if i not in counted:
                    counted.add(i)
                    vertex_bytes += acc.bytes
        morphs: Sequence[Any] = [accessor(i) for i in morph_ids] if morph_ids else ()
        index_acc: Any = None if ii is None else accessor(ii)
        if not usable or None in morphs or (index_acc is None and ii is not None):
            broken = True
            continue
        if index_acc is None:
            index_count = index_size = 0
        else:
            if index_acc.component_type not in _INDEX_TYPES or index_acc.components != 1:
                raise Broken("TB073", f"mesh {n} primitive {p}: index accessor {ii} is {index_acc.component_type} x{index_acc.components}; indices are UNSIGNED_BYTE/SHORT/INT scalars")
            index_count = index_acc.count
            index_size = index_acc.bytes // index_count
        first = attr_ids.get("POSITION")
        if first is None:
            first = next(iter(attr_ids.values()))
        vertex_acc: Any = checked[first]  # asked above
        vertex_count = vertex_acc.count
        if first not in positions:
            positions.add(first)
            vertices += vertex_count
        drawn = vertex_count if index_acc is None else index_count
        triangles = drawn // 3 if mode == 4 else max(drawn - 2, 0) if mode in _TRIANGLE_MODES else 0
        prim_morph_bytes = 0
        if morph_ids:
            for i, acc in zip(morph_ids, morphs, strict=True):
                if i not in counted:
                    counted.add(i)
                    morph_bytes += acc.bytes
            prim_morph_bytes = sum(acc.bytes for acc in dict(zip(morph_ids, morphs, strict=True)).values())
        if ii is not None and ii not in counted:
            counted.add(ii)
            index_bytes += index_acc.bytes
        targets = len(prim.targets) if prim.targets else 0
        if targets > morph_targets:
            morph_targets = targets
        indices += index_count
        triangles_sum += triangles
        if compression is None and layout.meshopt:
            declared: list[Any] = [accessor(i) for i in (*attr_ids.values(), *morph_ids)]
            if any(acc.meshopt for acc in declared) or (index_acc is not None and index_acc.meshopt):
                compression = "meshopt"
        primitives.append(PrimitiveFacts(
            mode=mode,
            vertex_count=vertex_count,
            triangles=triangles,
            attributes=_attributes(keys),
            index_count=index_count,
            index_bytes_per=index_size,
            morph_targets=targets,
            morph_bytes=prim_morph_bytes,
            material=None if m is None else ctx.material_id(m),
            compression=compression,
        ))
    if broken:
        return None
    name = name if name else f"mesh {n}"
    lod = lod_of(name) if "lod" in name.lower() else None  # a name without "lod" has no LOD suffix
    return MeshFacts.from_primitives(
        path=f"{ctx.rel}#mesh/{n}", name=name, primitives=primitives, vertices=vertices,
        indices=indices, triangles=triangles_sum, vertex_bytes=vertex_bytes, index_bytes=index_bytes,
        morph_bytes=morph_bytes, skinned=False, morph_targets=morph_targets, source="gltf",
        lod=None if lod is None else lod[1], lod_group=None if lod is None else f"{ctx.rel}#lod/{lod[0]}",
    )


def _check_primitive(prim: Primitive, n: int, p: int, n_accessors: int, n_materials: int,
                     n_views: int) -> tuple[dict[str, int], list[int], int | None, int, int | None, str | None]:
    """Primitive ``p`` of mesh ``n``, its indices checked: (attribute name -> accessor, morph
    target accessors, indices, mode, material, "draco" when it is Draco-compressed)."""
    attrs = prim.attributes
    if not attrs:
        raise Broken("TB073", f"mesh {n} primitive {p} has no attributes")
    ids = attrs.values()
    if not (min(ids) >= 0 and max(ids) < n_accessors):  # the first one out of range says so
        for attribute_name, i in attrs.items():
            if not 0 <= i < n_accessors:
                index(i, f"mesh {n} primitive {p}: '{attribute_name}'", n_accessors, "accessor")
    morph_ids: list[int] = []
    if prim.targets:
        for t, target in enumerate(prim.targets):
            for attribute_name, i in target.items():
                if not 0 <= i < n_accessors:
                    index(i, f"mesh {n} primitive {p} target {t}: '{attribute_name}'", n_accessors, "accessor")
                morph_ids.append(i)
    ii = prim.indices
    if ii is not None and not 0 <= ii < n_accessors:
        index(ii, f"mesh {n} primitive {p}: 'indices'", n_accessors, "accessor")
    mode = prim.mode
    if mode is None:
        mode = 4
    elif not 0 <= mode <= 6:
        at_least(mode, "mode", f"mesh {n} primitive {p}", 0)
        raise Broken("TB073", f"mesh {n} primitive {p}: mode {mode} is not a glTF draw mode (0–6)")
    m = prim.material
    if m is not None and not 0 <= m < n_materials:
        index(m, f"mesh {n} primitive {p}: 'material'", n_materials, "material")
    exts = prim.extensions
    if exts is None or exts.draco is None:
        return attrs, morph_ids, ii, mode, m, None
    v = exts.draco.buffer_view
    where = f"mesh {n} primitive {p} KHR_draco_mesh_compression"
    index(required(v, "bufferView", where), f"{where}: 'bufferView'", n_views, "bufferView")
    return attrs, morph_ids, ii, mode, m, "draco"
