"""Mesh buffer bytes: as stored, and in an engine's vertex layout (pure, no I/O).

Two sizes are kept apart (issue 5, DESIGN.md §5):

- **stored** bytes are what the file declares: each glTF accessor counted once per mesh
  (``MeshFacts.vertex_bytes`` / ``index_bytes`` / ``morph_bytes``; equal to glTF-Transform
  ``inspect``'s mesh size), or for OBJ/PLY/STL/OFF the default engine layout below.
- **engine layout** bytes are what an engine that re-packs every vertex into one fixed layout
  uploads: ``vertices × layout.bytes_per_vertex``, plus triangle-list indices at u16 when a
  primitive has at most 65535 vertices, else u32. Quantisation is just a smaller layout.

``buffer_bytes`` is what the budget counts: the engine layout when one is configured, else the
stored bytes; ``basis`` says which. A skinned mesh can add its skinned copy (the deformed
position/normal/tangent stream an engine writes per animated instance, f32, 40 B/vertex).
"""

from __future__ import annotations

import re

import msgspec

from texbudget.model import MeshFacts, Record

#: Bytes per component for the glTF componentType names (and the layout's own types).
COMPONENT_BYTES: dict[str, int] = {
    "BYTE": 1,
    "UNSIGNED_BYTE": 1,
    "SHORT": 2,
    "UNSIGNED_SHORT": 2,
    "HALF_FLOAT": 2,
    "UNSIGNED_INT": 4,
    "INT": 4,
    "FLOAT": 4,
}

#: Largest vertex count whose indices an engine stores as u16 (0xFFFF stays free for
#: primitive restart).
U16_MAX_VERTICES = 65535

#: glTF draw modes that make triangles (4 list, 5 strip, 6 fan); an engine draws them as a list.
TRIANGLE_MODES = (4, 5, 6)


class VertexLayout(msgspec.Struct, frozen=True):
    """An engine's vertex format: ``attributes`` are ``(name, component type, components)``,
    e.g. ``("position", "FLOAT", 3)``. Component types are the keys of COMPONENT_BYTES."""

    attributes: tuple[tuple[str, str, int], ...]
    name: str = "custom"

    def __post_init__(self) -> None:
        for attr_name, ctype, components in self.attributes:
            if ctype not in COMPONENT_BYTES:
                raise ValueError(f"vertex attribute {attr_name!r}: unknown component type {ctype!r}; allowed: {', '.join(COMPONENT_BYTES)}")
            if not 1 <= components <= 16:
                raise ValueError(f"vertex attribute {attr_name!r}: {components} components; allowed 1–16")

    @property
    def bytes_per_vertex(self) -> int:
        return sum(COMPONENT_BYTES[ctype] * n for _, ctype, n in self.attributes)


#: The default engine layout (issue 5): position f32x3, normal f32x3, tangent f32x4, uv f32x2
#: = 48 bytes per vertex. Used for OBJ/PLY/STL/OFF, whose files carry no GPU layout.
DEFAULT_LAYOUT = VertexLayout(
    (("position", "FLOAT", 3), ("normal", "FLOAT", 3), ("tangent", "FLOAT", 4), ("uv0", "FLOAT", 2)),
    name="default",
)

#: What skinning writes per animated instance: deformed position, normal and tangent, f32.
SKINNED_COPY_LAYOUT = VertexLayout(
    (("position", "FLOAT", 3), ("normal", "FLOAT", 3), ("tangent", "FLOAT", 4)),
    name="skinned copy",
)


def index_bytes_per(vertices: int) -> int:
    """The engine's index size for a draw of ``vertices`` vertices: 2 (u16) up to 65535, else 4."""
    return 2 if vertices <= U16_MAX_VERTICES else 4


_LOD_NAME = re.compile(r"^(?P<base>.+?)[_\-. ]LOD(?P<lod>\d{1,3})$", re.IGNORECASE)


def lod_of(name: str) -> tuple[str, int] | None:
    """``("Rock", 1)`` for a name ending ``_LOD1`` (also ``-LOD1``, ``.LOD1``, `` LOD1``, any
    case); None when the name has no LOD suffix."""
    m = _LOD_NAME.match(name)
    if m is None:
        return None
    return m.group("base"), int(m.group("lod"))


class BlasEstimate(msgspec.Struct, frozen=True):
    """One BLAS, every size aligned to 256 bytes. ``resident_bytes`` is the compacted size for
    a static mesh when compaction is on, else the prebuild size; ``compacted`` says which.
    ``sizing.bvh`` makes them (``bvh.estimate_blas``, also named ``bvh.BlasEstimate``); it is
    defined here because a report's mesh row, its ``MeshCost``, carries one (``blas``), and
    ``bvh`` imports this module."""

    triangles: int
    prebuild_bytes: int
    compacted_bytes: int
    scratch_bytes: int
    update_scratch_bytes: int  # 0 unless dynamic (DXR: 0 without ALLOW_UPDATE)
    resident_bytes: int
    compacted: bool
    dynamic: bool
    profile: str
    source: str
    estimate: bool = True


class MeshCost(Record, frozen=True):
    """What one mesh costs. ``buffer_bytes`` is what the budget counts, ``basis`` says how.

    The mesh's own names, counts and sizes (``path``, ``name``, ``vertices``, ``triangles``,
    ``indices``, the stored ``vertex_bytes``, ``index_bytes`` and ``morph_bytes``,
    ``skinned``, ``lod``, ``lod_group``) and what follows from them alone (``dynamic``,
    ``geometries``) are read from its ``facts``, not copied: a report holds a cost per mesh,
    140,000 of them for the 100k-file ``glb`` benchmark tree, and the eleven copies made each
    cost 80 bytes more, the two others 16 (``benchmarks/README.md``).

    A report's mesh rows are its costs (``pipeline.Report.meshes``): ``blas`` is the BLAS
    estimate of the report's first RT vendor, None when no vendor is on (the priced costs
    themselves, blas-free, are the rows then: no second object per mesh)."""

    facts: MeshFacts
    engine_vertex_bytes: int | None  # with a configured layout, else None
    buffer_bytes: int
    instances: int = 1
    skinned_copy_bytes: int = 0  # included in buffer_bytes
    blas: BlasEstimate | None = None

    @property
    def basis(self) -> str:
        """How ``buffer_bytes`` was counted: "stored" (the file's own buffers) or "engine
        layout" (a configured vertex layout: the engine sizes are set). Follows from them
        rather than held: a field was 8 bytes a mesh, 1.1 MiB at the 100k ``glb`` tree's peak."""
        return "stored" if self.engine_vertex_bytes is None else "engine layout"

    @property
    def engine_index_bytes(self) -> int | None:
        """With a configured layout (``engine_vertex_bytes`` set), the indices as the engine
        draws them (``engine_index_count``: they follow from the facts alone, whatever the
        layout), else None. Made when read rather than held: a field was 8 bytes a mesh, and
        the 100k ``glb`` tree's 140,000 costs went from 80- to 64-byte blocks without it
        (2.1 MiB at the scan's peak)."""
        return None if self.engine_vertex_bytes is None else engine_index_count(self.facts)[1]

    @property
    def dynamic(self) -> bool:
        """Skinned or morphing: its BLAS is refitted, never compacted."""
        return self.facts.skinned or self.facts.morph_targets > 0

    @property
    def geometries(self) -> int:
        """Triangle primitives (at least one): the geometries of its BLAS. (A mesh of one
        primitive held inline has no ``surfaces``: one.)"""
        return max(sum(1 for p in self.facts.surfaces if p.mode in TRIANGLE_MODES and p.triangles > 0), 1)

    @property
    def path(self) -> str:
        return self.facts.path

    @property
    def name(self) -> str:
        return self.facts.name

    @property
    def vertices(self) -> int:
        return self.facts.vertices

    @property
    def triangles(self) -> int:
        return self.facts.triangles

    @property
    def indices(self) -> int:
        return self.facts.indices

    @property
    def vertex_bytes(self) -> int:
        """Stored (each accessor once)."""
        return self.facts.vertex_bytes

    @property
    def index_bytes(self) -> int:
        """Stored."""
        return self.facts.index_bytes

    @property
    def morph_bytes(self) -> int:
        return self.facts.morph_bytes

    @property
    def skinned(self) -> bool:
        return self.facts.skinned

    @property
    def lod(self) -> int | None:
        return self.facts.lod

    @property
    def lod_group(self) -> str | None:
        return self.facts.lod_group


def engine_index_count(mesh: MeshFacts) -> tuple[int, int]:
    """(index count, index bytes) when the engine draws every triangle primitive as an indexed
    list: 3 indices per triangle (strips and fans unrolled, unindexed lists indexed), u16 or u32
    per primitive by its vertex count. Point and line primitives keep their stored indices."""
    if mesh.mode is not None:  # one primitive, held inline: its counts are the mesh's
        n = 3 * mesh.triangles if mesh.mode in TRIANGLE_MODES else mesh.indices
        return n, n * index_bytes_per(mesh.vertices)
    count = total = 0
    for prim in mesh.surfaces:
        n = 3 * prim.triangles if prim.mode in TRIANGLE_MODES else prim.index_count
        count += n
        total += n * index_bytes_per(prim.vertex_count)
    return count, total


def price_mesh(
    mesh: MeshFacts,
    instances: int = 1,
    layout: VertexLayout | None = None,
    skinned_copy: bool = False,
    *,
    sizes: dict[int, int] | None = None,
) -> MeshCost:
    """Price one mesh. Without ``layout`` the budget counts the stored bytes (vertex + index +
    morph); with it, ``vertices × layout.bytes_per_vertex`` + engine indices + morph bytes. With
    ``skinned_copy`` a skinned mesh adds 40 B/vertex per instance (SKINNED_COPY_LAYOUT).
    ``sizes``: the ``buffer_bytes`` met so far, each its own key; an equal one is that int
    object (``pipeline.price_meshes``: a mesh library repeats a few sizes)."""
    if layout is None:
        engine_vertex = None
        buffer_bytes = mesh.vertex_bytes + mesh.index_bytes + mesh.morph_bytes
    else:  # the cost's engine_index_bytes is this index size again, made when read
        engine_vertex = mesh.vertices * layout.bytes_per_vertex
        buffer_bytes = engine_vertex + engine_index_count(mesh)[1] + mesh.morph_bytes
    copy_bytes = 0
    if skinned_copy and mesh.skinned:
        copy_bytes = mesh.vertices * SKINNED_COPY_LAYOUT.bytes_per_vertex * instances
    buffer_bytes += copy_bytes
    if sizes is not None:
        buffer_bytes = sizes.setdefault(buffer_bytes, buffer_bytes)
    return MeshCost(
        facts=mesh,
        engine_vertex_bytes=engine_vertex,
        buffer_bytes=buffer_bytes,
        instances=instances,
        skinned_copy_bytes=copy_bytes,
    )
