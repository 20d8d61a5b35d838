"""Ray-tracing acceleration structures: BLAS per unique mesh, TLAS over every instance (pure).

The vendor and driver profiles are data (``texbudget/data/bvh_profiles.toml``); this module
holds a small set of named layout functions that the data picks from, each a restatement of a
driver's size rule from ``spec/bvh.md`` (§2–§6, the Python of §8) or a linear model of
published measurements (§7, §10). Every figure is an estimate and carries its profile's source.

Rules (spec/bvh.md §7, §10):

- Every acceleration structure and scratch buffer is placed at 256-byte alignment.
- A static mesh's BLAS is compacted (when the engine compacts, ``compaction=True``); a skinned
  or morphing ("dynamic") mesh is built updatable, never compacted, and keeps an update scratch.
- One BLAS per unique mesh; one TLAS over all instances plus 64 bytes of instance descriptor
  per instance (D3D12_RAYTRACING_INSTANCE_DESC / VkAccelerationStructureInstanceKHR).
- Build scratch is transient: ``peak_scratch_bytes`` is the largest single build or update
  scratch (builds one at a time, scratch reused), reported apart from resident memory.
- RT LOD: meshes of one LOD group (``_LOD0``… names, MSFT_lod) share one BLAS, built from the
  chosen LOD (``rt_lod``, default 0, or the nearest LOD the group has); the others get none.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import msgspec

from texbudget.sizing.meshes import BlasEstimate, MeshCost

#: D3D12_RAYTRACING_ACCELERATION_STRUCTURE_BYTE_ALIGNMENT; Vulkan's AS offset rule.
AS_ALIGNMENT = 256
#: D3D12_RAYTRACING_INSTANCE_DESC and VkAccelerationStructureInstanceKHR.
INSTANCE_DESC_BYTES = 64


def align(x: int, a: int) -> int:
    """``x`` rounded up to a multiple of ``a`` (any positive ``a``, not only powers of two)."""
    return -(-x // a) * a


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --- internal-node counts the drivers reserve (spec/bvh.md §3, §4) -------------------------


def _nodes_binary(n: int) -> int:
    """A binary tree's internal nodes: max(T, 2) − 1."""
    return max(n, 2) - 1


def _nodes_gpurt4(n: int) -> int:
    """gpurt's bound for 4-wide nodes with at least 2 primitives per last-level node."""
    return n * 4 // 6 + 1


def _nodes_gpurt8(n: int) -> int:
    """gpurt's bound for 8-wide nodes with at least 3 primitives per last-level node (RDNA4)."""
    return n * 8 // 21 + 1


NODE_COUNTS: dict[str, Callable[[int], int]] = {
    "binary": _nodes_binary,
    "gpurt4": _nodes_gpurt4,
    "gpurt8": _nodes_gpurt8,
}


# --- layouts: (n, tlas, geometries, **params) -> (prebuild, compacted), before alignment ----


def _layout_linear(n: int, tlas: bool, geometries: int, *, prebuild_base: int, prebuild_per_triangle: int,
                   compacted_base: int, compacted_per_triangle: int, tlas_base: int, tlas_per_instance: int) -> tuple[int, int]:
    """Linear fits of measured or derived bytes per triangle / instance (spec/bvh.md §10)."""
    if tlas:
        size = tlas_base + tlas_per_instance * n
        return size, size
    return prebuild_base + prebuild_per_triangle * n, compacted_base + compacted_per_triangle * n


def _layout_compacted_ratio(n: int, tlas: bool, geometries: int, *, compacted_base: int, compacted_per_triangle: int,
                            prebuild_factor: int, tlas_base: int, tlas_per_instance: int) -> tuple[int, int]:
    """A measured compacted size (rounded to 256) and a prebuild assumed a fixed multiple of it
    (spec/bvh.md §8's NVIDIA column: compacted 256 + 26T rounded up to 256, times 2)."""
    if tlas:
        size = tlas_base + tlas_per_instance * n
        return size, size
    compacted = align(compacted_base + compacted_per_triangle * n, AS_ALIGNMENT)
    return prebuild_factor * compacted, compacted


def _layout_radv_bvh4(n: int, tlas: bool, geometries: int, *, header_bytes: int, node_count: str,
                      compacted_box_bytes: int, wide_ratio: float) -> tuple[int, int]:
    """RADV 4-wide (RDNA2/3): header, a 4-B parent link per 64 B of nodes (aligned to 64), the
    root, the leaves, then the other reserved 128-B box nodes. Compacted keeps everything up to
    the leaves plus ``wide_ratio × T`` box nodes of ``compacted_box_bytes``."""
    leaf = 128 if tlas else 64
    ic = NODE_COUNTS[node_count](n)
    bvh = leaf * n + 128 * ic
    inodes = align(header_bytes + bvh // 64 * 4, 64) + 128 + leaf * n
    return inodes + 128 * (ic - 1), inodes + compacted_box_bytes * (max(1, round(wide_ratio * n)) - 1)


def _layout_radv_gfx12(n: int, tlas: bool, geometries: int, *, header_bytes: int) -> tuple[int, int]:
    """RADV on RDNA4: 8-wide 128-B nodes; BLAS leaves hold two triangles per 128-B node, TLAS
    leaves are 256 B plus a 4 B/instance offset table. Compaction is not modelled (= prebuild)."""
    if tlas:
        leaf, leaf_nodes, ic, offsets = 256, n, n * 8 // 14 + 1, 4 * n
    else:
        leaf, leaf_nodes, ic, offsets = 128, _ceil_div(n, 2), _nodes_gpurt8(n), 0
    size = align(header_bytes + offsets, 64) + 128 * ic + leaf * leaf_nodes
    return size, size


def _layout_anv_bvh6(n: int, tlas: bool, geometries: int, *, wide_ratio: float) -> tuple[int, int]:
    """ANV Mesa ≥25: 256-B header, 64-B internal nodes for a binary count, 64-B quad leaves with
    one triangle (TLAS: 128-B instance leaves + 8 B/instance pointers), update maps on every
    BLAS. Compacted: header + 64 B × (wide_ratio × T internal + T leaf) blocks."""
    ic = _nodes_binary(n)
    off = align(256 + 64 * ic + (128 if tlas else 64) * n, 64)
    off += 8 * n if tlas else 4 * (ic + n + 1) + 4 * n
    return align(off, 64), 256 + 64 * (max(1, round(wide_ratio * n)) + n)


def _layout_grl(n: int, tlas: bool, geometries: int, *, quads_per_triangle: float, wide_ratio: float) -> tuple[int, int]:
    """Intel GRL as ANV ≤24 requests it: 192-B header, a worst-case reserve of 64-B internal
    nodes (one fat leaf per primitive + one parent per 5), 64-B quad leaves (TLAS: 128-B
    instance leaves + a 64-B copy of each instance desc), 8 B per geometry (a TLAS counts
    one, as ANV reserves it). Compacted:
    header + quads + wide nodes + instance desc + geometry meta."""
    inner = n + _ceil_div(n, 5)
    s = 192 + max(inner * 64, 64 if tlas else 8 * n, 64) + (128 if tlas else 64) * n
    size = align(align(s, 64) + (64 * n if tlas else 0) + 8 * geometries, 64)
    quads = max(1, round(quads_per_triangle * n))
    compacted = align(192 + 64 * quads + 64 * max(1, round(wide_ratio * quads)) + 64, 64)
    return size, compacted


def _layout_lavapipe(n: int, tlas: bool, geometries: int) -> tuple[int, int]:
    """lavapipe's binary BVH: 40-B header, 56-B box nodes, 48-B triangle / 120-B instance
    leaves, rounded to 56; compaction returns the same size."""
    size = 40 + align(56 * _nodes_binary(n) + (120 if tlas else 48) * n, 56)
    return size, size


def _layout_gpurt_rdna23(n: int, tlas: bool, geometries: int) -> tuple[int, int]:
    """AMD gpurt, RDNA2/3: 128-B header, ⌊4T/6⌋+1 fp32 box nodes of 128 B, 64-B triangle
    (128-B instance) leaves, 12 B per geometry, 4 B per primitive-node pointer, metadata of
    256 B + 4 B per 64 B of node data. No compacted model (the profile supplies one)."""
    nodes = _nodes_gpurt4(n) * 128 + (128 if tlas else 64) * n
    size = 128 + nodes + (0 if tlas else 12 * geometries) + 4 * n + 256 + 4 * (nodes // 64)
    return size, size


LAYOUTS: dict[str, Callable[..., tuple[int, int]]] = {
    "linear": _layout_linear,
    "compacted_ratio": _layout_compacted_ratio,
    "radv_bvh4": _layout_radv_bvh4,
    "radv_gfx12": _layout_radv_gfx12,
    "anv_bvh6": _layout_anv_bvh6,
    "grl": _layout_grl,
    "lavapipe": _layout_lavapipe,
    "gpurt_rdna23": _layout_gpurt_rdna23,
}


# --- build scratch: (n, tlas, updatable, size, **params) -> bytes, before alignment ---------
# ``size`` is the structure's own (prebuild) size, for drivers whose scratch is assumed equal.

#: Mesa common runtime IR sizes (vk_acceleration_structure.c, spec/bvh.md §2).
MESA_IR_HEADER = 108
MESA_IR_TRIANGLE = 68
MESA_IR_INSTANCE = 96
MESA_IR_BOX = 40


def _scratch_linear(n: int, tlas: bool, updatable: bool, size: int, *, blas_base: int, blas_per_triangle: int,
                    tlas_base: int, tlas_per_instance: int) -> int:
    return tlas_base + tlas_per_instance * n if tlas else blas_base + blas_per_triangle * n


def _scratch_prebuild(n: int, tlas: bool, updatable: bool, size: int) -> int:
    """No published figure: scratch assumed equal to the structure's prebuild size (NVIDIA)."""
    return size


def _scratch_mesa(n: int, tlas: bool, updatable: bool, size: int, *, sort_block: int, histogram_block: int, blas_builder: str,
                  blas_update_builder: str, tlas_builder: str, triangle_extra_bytes: int) -> int:
    """The Mesa common runtime (RADV ≥25, ANV ≥25, lavapipe): IR header, two radix-sort
    key/value buffers, one aliased region (radix internals / PLOC partitions / LBVH node info,
    + 4 B/node for H-PLOC), IR leaves and IR box nodes (spec/bvh.md §2). LBVH for T ≤ 4 and
    for updatable builds. RDNA4 adds encode scratch that overlaps the sort region."""
    builder = tlas_builder if tlas else (blas_update_builder if updatable else blas_builder)
    sort_blocks = _ceil_div(n, sort_block)
    kv = 2 * 8 * _ceil_div(sort_blocks * sort_block, histogram_block) * histogram_block
    ic = _nodes_binary(n)
    algo = 16 * ic if (n <= 4 or builder == "lbvh") else _ceil_div(n, 1024) * 8
    off = MESA_IR_HEADER + kv + max((8 + sort_blocks - 1) * 1024, algo) + (4 * ic if builder == "hploc" else 0)
    extra = 0 if tlas else triangle_extra_bytes * n
    leaf = MESA_IR_INSTANCE if tlas else MESA_IR_TRIANGLE
    return max(off, MESA_IR_HEADER + extra) + leaf * n + MESA_IR_BOX * ic


def _scratch_grl(n: int, tlas: bool, updatable: bool, size: int) -> int:
    """GRL: 120-B globals + 32 B/primref + 8 B/index + 8 B per qnode slot (spec/bvh.md §5)."""
    return 120 + 40 * n + 8 * (n + _ceil_div(n, 5))


SCRATCH: dict[str, Callable[..., int]] = {
    "linear": _scratch_linear,
    "prebuild": _scratch_prebuild,
    "mesa": _scratch_mesa,
    "grl": _scratch_grl,
}


# --- update (refit) scratch of an updatable BLAS: (n, geometries, build_scratch, **params) ---


def _update_build(n: int, geometries: int, build_scratch: int) -> int:
    """The driver has no separate update path: update scratch = build scratch."""
    return build_scratch


def _update_nodes(n: int, geometries: int, build_scratch: int, *, per_node: int, node_count: str,
                  per_triangle: int = 0, per_geometry: int = 0) -> int:
    return per_triangle * n + per_node * NODE_COUNTS[node_count](n) + per_geometry * geometries


UPDATES: dict[str, Callable[..., int]] = {
    "build": _update_build,
    "nodes": _update_nodes,
}


# --- profiles ------------------------------------------------------------------------------


class RawBlas(msgspec.Struct, frozen=True):
    """Driver sizes before the 256-byte placement alignment (the numbers of spec/bvh.md §8)."""

    prebuild: int
    compacted: int
    scratch: int
    update_scratch: int


class BvhProfile(msgspec.Struct, frozen=True):
    name: str
    label: str
    source: str
    layout: str
    layout_params: Mapping[str, Any] = msgspec.field(default_factory=dict)
    compacted: tuple[int, int] | None = None  # linear override: (base, per triangle)
    scratch: str = "linear"
    scratch_params: Mapping[str, Any] = msgspec.field(default_factory=dict)
    update: str = "build"
    update_params: Mapping[str, Any] = msgspec.field(default_factory=dict)
    compaction_ratio: float | None = None

    def blas_raw(self, triangles: int, *, updatable: bool = False, geometries: int = 1) -> RawBlas:
        prebuild, compacted = LAYOUTS[self.layout](triangles, False, geometries, **self.layout_params)
        if self.compacted is not None:
            compacted = self.compacted[0] + self.compacted[1] * triangles
        compacted = min(compacted, prebuild)  # DXR: a compacted AS is never larger
        scratch = SCRATCH[self.scratch](triangles, False, updatable, prebuild, **self.scratch_params)
        update = UPDATES[self.update](triangles, geometries, scratch, **self.update_params)
        return RawBlas(prebuild, compacted, scratch, update)

    def tlas_raw(self, instances: int) -> tuple[int, int]:
        """(TLAS size, build scratch) before alignment."""
        size = LAYOUTS[self.layout](instances, True, 1, **self.layout_params)[0]
        return size, SCRATCH[self.scratch](instances, True, False, size, **self.scratch_params)


def _profile(name: str, row: Mapping[str, Any]) -> BvhProfile:
    compacted = row.get("compacted")
    return BvhProfile(
        name=name,
        label=row["label"],
        source=row["source"],
        layout=row["layout"],
        layout_params=dict(row.get("layout_params", {})),
        compacted=tuple(compacted) if compacted is not None else None,
        scratch=row.get("scratch", "linear"),
        scratch_params=dict(row.get("scratch_params", {})),
        update=row.get("update", "build"),
        update_params=dict(row.get("update_params", {})),
        compaction_ratio=row.get("compaction_ratio"),
    )


@cache
def _load() -> tuple[BvhProfile, ...]:
    text = resources.files("texbudget.data").joinpath("bvh_profiles.toml").read_text(encoding="utf-8")
    return tuple(_profile(name, row) for name, row in tomllib.loads(text).items())


def load_profiles() -> dict[str, BvhProfile]:
    """Every shipped profile by name (``nvidia``, ``amd``, ``intel``, ``radv``, …)."""
    return {p.name: p for p in _load()}


def _resolve(profile: BvhProfile | str) -> BvhProfile:
    if isinstance(profile, BvhProfile):
        return profile
    profiles = load_profiles()
    if profile not in profiles:
        raise KeyError(f"unknown BVH profile {profile!r}; known: {', '.join(profiles)}")
    return profiles[profile]


# --- estimates -----------------------------------------------------------------------------


def estimate_blas(profile: BvhProfile | str, triangles: int, *, dynamic: bool = False,
                  compaction: bool = True, geometries: int = 1) -> BlasEstimate:
    """The BLAS of a mesh with ``triangles`` triangles. A mesh without triangles gets no BLAS
    (all zeros)."""
    prof = _resolve(profile)
    if triangles <= 0:
        return BlasEstimate(0, 0, 0, 0, 0, 0, False, dynamic, prof.name, prof.source)
    raw = prof.blas_raw(triangles, updatable=dynamic, geometries=geometries)
    prebuild = align(raw.prebuild, AS_ALIGNMENT)
    compacted_bytes = align(raw.compacted, AS_ALIGNMENT)
    compacted = compaction and not dynamic
    return BlasEstimate(
        triangles=triangles,
        prebuild_bytes=prebuild,
        compacted_bytes=compacted_bytes,
        scratch_bytes=align(raw.scratch, AS_ALIGNMENT),
        update_scratch_bytes=align(raw.update_scratch, AS_ALIGNMENT) if dynamic else 0,
        resident_bytes=compacted_bytes if compacted else prebuild,
        compacted=compacted,
        dynamic=dynamic,
        profile=prof.name,
        source=prof.source,
    )


class TlasEstimate(msgspec.Struct, frozen=True):
    instances: int
    tlas_bytes: int
    instance_desc_bytes: int  # 64 B per instance, app memory beside the TLAS
    scratch_bytes: int
    profile: str
    source: str
    estimate: bool = True


def estimate_tlas(profile: BvhProfile | str, instances: int) -> TlasEstimate:
    """The TLAS over ``instances`` instances (zero when there are none)."""
    prof = _resolve(profile)
    if instances <= 0:
        return TlasEstimate(0, 0, 0, 0, prof.name, prof.source)
    size, scratch = prof.tlas_raw(instances)
    return TlasEstimate(
        instances=instances,
        tlas_bytes=align(size, AS_ALIGNMENT),
        instance_desc_bytes=INSTANCE_DESC_BYTES * instances,
        scratch_bytes=align(scratch, AS_ALIGNMENT),
        profile=prof.name,
        source=prof.source,
    )


class AccelerationCost(msgspec.Struct, frozen=True):
    """A scene's acceleration structures. ``total_bytes`` (resident) = BLASes + TLAS +
    instance descriptors; build scratch is transient and kept apart."""

    blas_bytes: int  # resident: compacted where compacted
    blas_uncompacted_bytes: int  # the same BLASes at their prebuild size
    tlas_bytes: int
    instance_desc_bytes: int
    peak_scratch_bytes: int
    total_bytes: int
    per_mesh: tuple[tuple[str, BlasEstimate], ...]
    tlas: TlasEstimate
    profile: str
    source: str
    estimate: bool = True


def rt_meshes(meshes: Sequence[MeshCost], rt_lod: int = 0) -> tuple[tuple[MeshCost, int], ...]:
    """The meshes that get a BLAS, each with its TLAS instance count. A mesh outside any LOD
    group is kept with its instances (none when 0). In a LOD group only the member whose LOD
    is nearest ``rt_lod`` (the finer on a tie) is kept, with the group's largest instance count
    (engines place all LODs of an object at the same node)."""
    chosen: list[tuple[MeshCost, int]] = []
    groups: dict[str, list[MeshCost]] = {}
    seen: set[str] = set()
    for mesh in meshes:
        if mesh.path in seen:
            continue
        seen.add(mesh.path)
        if mesh.lod_group is not None and mesh.lod is not None:
            if mesh.lod_group not in groups:
                groups[mesh.lod_group] = []
                chosen.append((mesh, -1))  # placeholder keeps the first member's position
            groups[mesh.lod_group].append(mesh)
        else:
            chosen.append((mesh, mesh.instances))
    out: list[tuple[MeshCost, int]] = []
    for mesh, instances in chosen:
        if instances == -1:
            members = groups[mesh.lod_group]  # type: ignore[index]
            best = min(members, key=lambda m: (abs(m.lod - rt_lod), m.lod))  # type: ignore[operator]
            mesh, instances = best, max(m.instances for m in members)
        if instances > 0:
            out.append((mesh, instances))
    return tuple(out)


def estimate_scene(profile: BvhProfile | str, meshes: Sequence[MeshCost], *, compaction: bool = True,
                   rt_lod: int = 0) -> AccelerationCost:
    """One BLAS per unique mesh with instances (per LOD group: the chosen LOD's), one TLAS over
    every instance, 64 B of instance descriptor per instance."""
    prof = _resolve(profile)
    per_mesh: list[tuple[str, BlasEstimate]] = []
    total_instances = 0
    for mesh, instances in rt_meshes(meshes, rt_lod):
        if mesh.triangles <= 0:
            continue
        blas = estimate_blas(prof, mesh.triangles, dynamic=mesh.dynamic, compaction=compaction, geometries=mesh.geometries)
        per_mesh.append((mesh.path, blas))
        total_instances += instances
    tlas = estimate_tlas(prof, total_instances)
    blas_bytes = sum(b.resident_bytes for _, b in per_mesh)
    scratches = [tlas.scratch_bytes] + [max(b.scratch_bytes, b.update_scratch_bytes) for _, b in per_mesh]
    return AccelerationCost(
        blas_bytes=blas_bytes,
        blas_uncompacted_bytes=sum(b.prebuild_bytes for _, b in per_mesh),
        tlas_bytes=tlas.tlas_bytes,
        instance_desc_bytes=tlas.instance_desc_bytes,
        peak_scratch_bytes=max(scratches),
        total_bytes=blas_bytes + tlas.tlas_bytes + tlas.instance_desc_bytes,
        per_mesh=tuple(per_mesh),
        tlas=tlas,
        profile=prof.name,
        source=prof.source,
    )
