"""The vocabulary every stage shares (DESIGN.md §2).

Frozen ``msgspec`` Structs (``Record``); every size is an ``int`` in bytes. An asset's
identity is its POSIX path relative to the scan root, with ``#image/N`` / ``#mesh/N`` inside a
glTF (``file_of``).

A record is built with keywords (``TextureFacts(path=..., container="png", ...)``), compares
by value, hashes by value (``PixelFormat`` by its name) and cannot be changed: ``evolve`` (that
is ``msgspec.structs.replace``) gives a copy with some fields changed. Records are not tracked
by the cyclic garbage collector (``gc=False``): none can hold itself, directly or through
another (they hold strings, numbers, enums, tuples and other records; ``ScenarioResult`` dicts
of numbers). The read cache stores them with ``msgspec.msgpack`` (``texbudget/cache.py``),
as arrays of their fields in order (``array_like``): a change to the fields of a record the
cache holds bumps ``cache.SCHEMA``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from typing import Any

import msgspec

#: ``evolve(record, **changes)``: a copy of ``record`` with ``changes`` (``msgspec.structs.replace``).
evolve = msgspec.structs.replace


class Record(msgspec.Struct, frozen=True, gc=False, array_like=True, forbid_unknown_fields=True):
    """The base of texbudget's records: immutable, compared and hashed by value, untracked
    by the cyclic garbage collector (they hold no cycles), stored as arrays of their fields
    (``array_like``: the read cache's msgpack and the worker processes' messages). An array
    with more items than the record has fields is refused; one with fewer takes the defaults
    of the missing last fields, and is refused when a missing field has none (msgspec's
    rules). Each record says ``frozen=True`` again: type checkers do not inherit it."""


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


#: What ends the path of a part of a file: ``#image/N``, ``#mesh/N``, ``#material/N``,
#: ``#light/N`` (glTF: an EXT_lights_image_based cubemap; and the mesh readers' ``#mesh/N``),
#: ``#library/N`` (a Godot file's N-th MeshLibrary sub-resource). Anything else with a "#" is
#: a file's own name.
_PART = re.compile(r"#(?:image|mesh|material|light|library)/[0-9]+$")


def file_of(path: str) -> str:
    """The file an asset's path names: ``level.glb#mesh/2`` -> ``level.glb``. A file whose own
    name holds a "#" (``rock#1_n.tga``, ``tex#2/a.png``) is itself: only a part's ending
    (``_PART``) is cut off."""
    if "#" not in path:
        return path
    found = _PART.search(path)
    return path[: found.start()] if found else path


def is_part(path: str) -> bool:
    """``path`` names a part inside a file (an embedded image, a mesh), not a file."""
    return "#" in path and _PART.search(path) is not None


class Finding(Record, frozen=True):
    """A problem with one file or asset. A bad file is data, never a crash."""

    path: str
    code: str  # "TBnnn", documented in texbudget/findings.py
    severity: Severity
    message: str
    hint: str = ""


class PixelFormat(Record, frozen=True):
    """One GPU pixel format. Canonical names are Vulkan's without ``VK_FORMAT_`` and the
    ``_BLOCK``/``_PACKnn`` suffix (``BC7_SRGB``, ``R8G8B8A8_UNORM``, ``ASTC_6x6_SFLOAT``)."""

    name: str
    block_width: int
    block_height: int
    block_depth: int
    bytes_per_block: int
    channels: int
    srgb: bool
    hdr: bool
    compressed: bool
    family: str  # formats.FAMILIES: "uncompressed", "integer", "depth", "video", "bc1".."bc7", "etc1", "etc2", "eac", "astc", "pvrtc1", "pvrtc2", "basis", "unknown" (formats.self_sized)
    vk_format: int | None = None
    vk_name: str | None = None
    dxgi_format: int | None = None
    dxgi_name: str | None = None
    gl_internal_format: int | None = None
    dds_fourcc: tuple[str, ...] = ()
    d3dfmt: tuple[int, ...] = ()
    aliases: tuple[str, ...] = ()
    alpha: bool = False  # carries an alpha channel (BC1_RGBA, BC3, RGBA8, …)
    signed: bool = False
    min_blocks_x: int = 1  # PVRTC1: every level is at least 2x2 blocks
    min_blocks_y: int = 1
    transcodable: bool = False  # ETC1S / UASTC pseudo-formats: GPU format chosen by policy

    def __hash__(self) -> int:
        # Formats are looked up by name (sizing caches chains on them); hashing every field
        # of a format for each lookup cost a microsecond. Equal formats have equal names.
        return hash(self.name)

    @property
    def bits_per_pixel(self) -> float:
        texels = self.block_width * self.block_height * self.block_depth
        return self.bytes_per_block * 8 / texels


class MipLevel(Record, frozen=True):
    """One mip level. ``bytes`` covers every layer, face and depth slice of the level."""

    level: int
    width: int
    height: int
    depth: int
    bytes: int


#: ``TextureFacts.container`` of a texture a glTF composes from several of its images: an
#: EXT_lights_image_based cubemap (``file.gltf#light/N``), whose levels are the ones it lists.
COMPOSED_CONTAINER = "gltf"


class TextureFacts(Record, frozen=True):
    """What a texture file says about itself (read from headers)."""

    path: str
    container: str  # "png", "jpeg", "dds", "ktx", "ktx2", "exr", "hdr", …
    width: int
    height: int
    depth: int = 1
    layers: int = 1
    faces: int = 1
    stored_levels: int = 1
    stored_format: str | None = None  # PixelFormat name for GPU containers; None for sources
    channels: int = 4
    alpha: bool = False
    bit_depth: int = 8
    hdr: bool = False
    color_space: str | None = None  # "srgb", "linear" or None when the file does not say
    disk_bytes: int = 0
    supercompression: str | None = None  # "BasisLZ", "Zstandard", "ZLIB", …
    transcodable: str | None = None  # Basis data (stored_format None): "ETC1S", "UASTC", "UASTC_HDR_4x4", "UASTC_HDR_6x6i"
    level_bytes: tuple[int, ...] = ()  # content bytes per stored level, when the file says
    mips_generate: bool = False  # KTX levelCount 0: the loader generates the chain
    grey: bool = False  # the header says the data is greyscale (L / LA modes)
    palette: bool = False


class AttributeFacts(Record, frozen=True):
    """One vertex attribute accessor: ``component_type`` is a glTF name ("FLOAT",
    "UNSIGNED_SHORT", …), ``components`` 1–16 (VEC3 = 3, MAT4 = 16)."""

    name: str
    component_type: str
    components: int
    count: int
    bytes: int
    normalized: bool = False


class PrimitiveFacts(Record, frozen=True):
    """One primitive (a draw) of a mesh: ``MeshFacts.primitives`` gives them."""

    mode: int  # glTF draw mode: 4 triangles, 5 strip, 6 fan, 0 points, 1 lines …
    vertex_count: int
    triangles: int
    attributes: tuple[AttributeFacts, ...] = ()
    index_count: int = 0
    index_bytes_per: int = 0  # 1, 2 or 4; 0 when not indexed
    morph_targets: int = 0
    morph_bytes: int = 0
    material: str | None = None  # "file.glb#material/N"
    compression: str | None = None  # "draco", "meshopt" or None


class MeshFacts(Record, frozen=True):
    """One mesh of a file (``file.glb#mesh/N``; a whole OBJ/PLY/STL is ``#mesh/0``).

    ``primitives`` gives its primitives, held in one of two forms that ``from_primitives``
    chooses (build a mesh with it): a mesh of one primitive whose counts are the mesh's
    (``vertex_count``, ``triangles``, ``index_count``, ``morph_targets``, ``morph_bytes``
    equal to ``vertices``, ``triangles``, ``indices``, ``morph_targets``, ``morph_bytes``) holds
    that primitive's other fields inline (``mode`` … ``compression``; ``mode`` None: no inline
    primitive), and every other mesh lists them in ``surfaces``. Most meshes are of one
    primitive, and a ``PrimitiveFacts`` and its tuple were 152 bytes a mesh
    (``benchmarks/README.md``). A single primitive whose counts differ from the mesh's (a glTF
    accessor used as an attribute and as a morph target is counted once per mesh) stays in
    ``surfaces``: the inline form is lossless. Each mesh has one form, so equal meshes
    compare equal: a mesh with both, or with one ``surfaces`` entry that could be inline, is
    refused (and so is a cache blob of that shape). ``evolve`` of an inline mesh's counts
    changes its primitive's too."""

    path: str
    name: str
    vertices: int
    indices: int
    triangles: int
    vertex_bytes: int  # as stored (each accessor counted once)
    index_bytes: int
    morph_bytes: int = 0
    skinned: bool = False
    morph_targets: int = 0
    source: str = "gltf"  # "gltf" or "trimesh"
    lod: int | None = None  # from `_LOD0`… naming or MSFT_lod
    lod_group: str | None = None
    surfaces: tuple[PrimitiveFacts, ...] = ()  # its primitives, unless one is held inline
    # the one primitive held inline (its counts are the mesh's); mode None: none is
    mode: int | None = None
    attributes: tuple[AttributeFacts, ...] = ()
    index_bytes_per: int = 0
    material: str | None = None
    compression: str | None = None

    def __post_init__(self) -> None:
        surfaces = self.surfaces
        if surfaces:
            if self.mode is not None:
                raise ValueError(f"{self.path}: a mesh lists its primitives in surfaces or holds one inline, not both")
            if len(surfaces) == 1 and _counts_are_the_meshs(surfaces[0], self.vertices, self.triangles, self.indices,
                                                            self.morph_targets, self.morph_bytes):
                raise ValueError(f"{self.path}: a mesh of one primitive whose counts are the mesh's holds it inline")
        elif self.mode is None and (self.attributes or self.index_bytes_per or self.material is not None
                                    or self.compression is not None):
            raise ValueError(f"{self.path}: a mesh without an inline primitive (mode None) holds none of its fields")

    @classmethod
    def from_primitives(cls, *, primitives: Iterable[PrimitiveFacts], path: str, name: str, vertices: int, indices: int,
                        triangles: int, vertex_bytes: int, index_bytes: int, morph_bytes: int = 0, skinned: bool = False,
                        morph_targets: int = 0, source: str = "gltf", lod: int | None = None,
                        lod_group: str | None = None) -> MeshFacts:
        """The mesh of these primitives and fields, in its one form: a single primitive whose
        counts are the mesh's inline, any other in ``surfaces``."""
        prims = tuple(primitives)
        if len(prims) == 1:
            p = prims[0]
            if _counts_are_the_meshs(p, vertices, triangles, indices, morph_targets, morph_bytes):
                # Every field by position, in their order: a call of 16 keywords or more is
                # compiled as a dict and costs four times as much on Python 3.11
                # (benchmarks/README.md); tests/unit/test_mesh_facts.py checks each field.
                return cls(path, name, vertices, indices, triangles, vertex_bytes, index_bytes, morph_bytes, skinned,
                           morph_targets, source, lod, lod_group, (),
                           p.mode, p.attributes, p.index_bytes_per, p.material, p.compression)
        return cls(path=path, name=name, vertices=vertices, indices=indices, triangles=triangles,
                   vertex_bytes=vertex_bytes, index_bytes=index_bytes, morph_bytes=morph_bytes, skinned=skinned,
                   morph_targets=morph_targets, source=source, lod=lod, lod_group=lod_group, surfaces=prims)

    @property
    def primitives(self) -> tuple[PrimitiveFacts, ...]:
        """Its primitives (the inline one built on each access: hot code reads ``surfaces``
        and the inline fields, or ``primitive_count``)."""
        if self.mode is None:
            return self.surfaces
        return (PrimitiveFacts(mode=self.mode, vertex_count=self.vertices, triangles=self.triangles,
                               attributes=self.attributes, index_count=self.indices, index_bytes_per=self.index_bytes_per,
                               morph_targets=self.morph_targets, morph_bytes=self.morph_bytes, material=self.material,
                               compression=self.compression),)

    @property
    def primitive_count(self) -> int:
        """``len(self.primitives)``, without building them."""
        return len(self.surfaces) if self.mode is None else 1


def _counts_are_the_meshs(p: PrimitiveFacts, vertices: int, triangles: int, indices: int, morph_targets: int,
                          morph_bytes: int) -> bool:
    """A mesh of this one primitive and these counts can hold it inline (losslessly)."""
    return (p.vertex_count == vertices and p.triangles == triangles and p.index_count == indices
            and p.morph_targets == morph_targets and p.morph_bytes == morph_bytes)


#: What a ``SceneRef`` loads (docs/levels.md): another scene or resource file whose content
#: is loaded ``count`` times ("instance"), a mesh placed ``count`` times, a material, a texture,
#: or a Godot GridMap's cells ("cells": a MeshLibrary item placed ``count`` times, slot ``item/N``).
REF_KINDS: tuple[str, ...] = ("instance", "mesh", "material", "texture", "cells")


class SceneRef(Record, frozen=True):
    """One thing a scene or resource file loads: an edge of a level's graph (docs/levels.md).

    ``holder`` is what holds the reference: the file's own path, or a material defined inside
    it (``town.tscn#material/N``, as a glTF's ``file.glb#material/N``). ``target`` is a path
    relative to the scan root (a file, or a part: ``rock.glb#mesh/2``) or an id the project
    index resolves: ``res://…`` and ``uid://…`` (Godot), ``unity:<guid>:<fileID>`` (Unity).
    ``count`` multiplies along "instance" and "mesh" edges (nested scene instances multiply);
    materials and textures are loaded once whatever the count. For a "mesh" edge, ``material``
    replaces the mesh's own material on every surface (Godot ``material_override``) and
    ``surfaces`` surface by surface ("" keeps the mesh's own; Unity's ``m_Materials``).
    ``slot`` names a texture's slot in its material (``albedo_texture``, ``_MainTex``), a
    MeshLibrary item's "mesh" edge's item and a "cells" edge's (``item/N``, docs/levels.md,
    "GridMap"); ``where`` the node in the scene, for messages (``Town/Market/Barrel``)."""

    holder: str
    target: str
    kind: str  # one of REF_KINDS
    count: int = 1
    slot: str = ""
    material: str = ""
    surfaces: tuple[str, ...] = ()
    where: str = ""


class SceneFacts(Record, frozen=True):
    """What a scene file says about how assets are used.

    Its meshes' instances and its texture uses are held as columns, one tuple per field:
    mesh ``mesh_paths[i]`` is placed ``mesh_counts[i]`` times, and texture
    ``texture_paths[i]`` is used by ``texture_users[i]`` (a material) in slot
    ``texture_slots[i]``. A tuple per pair or triple cost 56–64 bytes each; columns of equal
    counts or slots are one tuple for many scenes (the readers and ``cache.Decoder`` keep
    them once). ``instances`` and ``texture_usage`` give the pairs and triples."""

    path: str
    mesh_paths: tuple[str, ...] = ()
    mesh_counts: tuple[int, ...] = ()  # instances of each of ``mesh_paths``
    texture_paths: tuple[str, ...] = ()
    texture_users: tuple[str, ...] = ()  # the material (or other user) of each use
    texture_slots: tuple[str, ...] = ()  # its slot ("baseColorTexture", "albedo_texture", …)
    # images that are only the fallback ``source`` of textures whose extension source
    # (KHR_texture_basisu, EXT_texture_webp, …) is the one used: never loaded with it
    fallbacks: tuple[str, ...] = ()
    # what an engine scene or resource file loads (Godot .tscn/.tres, Unity .unity/.prefab/
    # .mat): the edges a level follows (docs/levels.md); a glTF's own graph is in the fields above
    refs: tuple[SceneRef, ...] = ()
    # "scene": a file an engine loads as a level or instances (.tscn, .unity, .prefab);
    # "resource": a file other files load (.tres material, .mat); "" for glTF and meshes;
    # "level" and "project" (path ""): a level's view and an engine project's uses
    # (texbudget/levels/reports.py level_scan, levels/reading.py project_scan)
    role: str = ""
    # glTF materials whose alphaMode is not OPAQUE (the default), with the mode as written
    # ("MASK", "BLEND"): their baseColor's alpha is coverage; an OPAQUE material ignores it
    alpha_modes: tuple[tuple[str, str], ...] = ()
    # (image, cubemap): the images an EXT_lights_image_based light makes into one cubemap
    # texture (``file.gltf#light/N``), which is priced instead of them
    cube_faces: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if len(self.mesh_paths) != len(self.mesh_counts):
            raise ValueError(f"{self.path}: {len(self.mesh_paths)} mesh paths but {len(self.mesh_counts)} counts")
        if not len(self.texture_paths) == len(self.texture_users) == len(self.texture_slots):
            raise ValueError(f"{self.path}: texture uses of unequal columns ({len(self.texture_paths)} textures, "
                             f"{len(self.texture_users)} users, {len(self.texture_slots)} slots)")

    @classmethod
    def from_uses(cls, *, path: str, instances: Iterable[tuple[str, int]] = (),
                  texture_usage: Iterable[tuple[str, str, str]] = (), **fields: Any) -> SceneFacts:
        """The scene whose columns hold these (mesh path, count) pairs and (texture path,
        user, slot) triples; ``fields``: its other fields."""
        pairs = tuple(instances)
        triples = tuple(texture_usage)
        return cls(path=path, mesh_paths=tuple([m for m, _ in pairs]), mesh_counts=tuple([n for _, n in pairs]),
                   texture_paths=tuple([t for t, _, _ in triples]), texture_users=tuple([u for _, u, _ in triples]),
                   texture_slots=tuple([s for _, _, s in triples]), **fields)

    @property
    def instances(self) -> tuple[tuple[str, int], ...]:
        """(mesh path, instance count) of each mesh the scene places."""
        return tuple(zip(self.mesh_paths, self.mesh_counts, strict=True))

    @property
    def texture_usage(self) -> tuple[tuple[str, str, str], ...]:
        """(texture path, user, slot) of each texture use."""
        return tuple(zip(self.texture_paths, self.texture_users, self.texture_slots, strict=True))


class ReadResult(Record, frozen=True):
    """Everything one file yields. A GLB gives many textures and meshes; a broken file gives
    one finding and nothing else."""

    textures: tuple[TextureFacts, ...] = ()
    meshes: tuple[MeshFacts, ...] = ()
    scenes: tuple[SceneFacts, ...] = ()
    findings: tuple[Finding, ...] = ()

    def __add__(self, other: ReadResult) -> ReadResult:
        return ReadResult(
            textures=self.textures + other.textures,
            meshes=self.meshes + other.meshes,
            scenes=self.scenes + other.scenes,
            findings=self.findings + other.findings,
        )


class TexturePlan(Record, frozen=True):
    """What a texture becomes on the GPU, and why."""

    path: str
    gpu_format: str
    width: int  # after max-size cap, before the quality tier mip drop
    height: int
    depth: int
    layers: int
    faces: int
    levels: int  # levels in the chain after the cap, before the tier drop
    mips: str  # "stored", "generated" or "none"
    role: str
    decided_by: str
    tier_drop: int = 0  # top levels the quality tier drops
    max_size: int | None = None
    ignored: bool = False
    streamed: bool = True


class TextureCost(Record, frozen=True):
    plan: TexturePlan
    mips: tuple[MipLevel, ...]  # after the tier drop
    gpu_bytes: int  # content bytes: sum of mips
    allocated_bytes: int  # after the allocation model's alignment


class Fix(Record, frozen=True):
    """One concrete change that would make a scenario fit on a card, with the bytes it saves
    (exact for texture changes; an estimate when ``estimate``: BLAS compaction, upscaler).

    ``kind``: "compress", "bc1", "cap", "drop_mips", "compaction", "upscaler", "pool".
    ``path``: the texture, a folder glob ("env/rocks/*") or "" for scene-wide changes.
    ``value``: the new format, max size, number of levels dropped, upscaler preset or pool
    bytes. ``group``: "role:albedo" or "folder:env/rocks" for a group change, else ""."""

    card: str
    action: str
    path: str
    saves_bytes: int
    kind: str = ""
    value: str = ""
    group: str = ""
    estimate: bool = False


class CardVerdict(Record, frozen=True):
    """One card in one scenario. ``free_bytes`` = usable − total (negative when over);
    ``fits`` when free ≥ headroom, ``tight`` when 0 ≤ free < headroom, ``over`` when free < 0."""

    name: str  # the card id: "12GB", "rtx-4070", "ps5"
    vram_bytes: int
    usable_bytes: int
    free_bytes: int  # negative when over
    verdict: str  # "fits", "tight", "over"
    headroom_bytes: int = 0
    reserve_bytes: int = 0  # vram − usable (OS, driver, compositor; a platform's system share)
    display_name: str = ""
    note: str = ""  # unified memory: "CPU data shares this budget"
    free_after_fixes_bytes: int | None = None  # free once this card's fixes are applied


class Scenario(Record, frozen=True):
    """One combination the budget is judged for: output resolution, render scale (from the
    upscaler), quality tier, RT vendor or "off", renderer preset, platform."""

    width: int
    height: int
    render_scale: float
    quality: str
    rt: str  # "off" or a BVH profile / vendor ("nvidia", "amd", "intel", …)
    renderer: str = "deferred"
    upscaler: str = "native"
    platform: str = "desktop"
    render_width: int = 0  # round(width × render_scale), half up
    render_height: int = 0

    @property
    def resolution(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def render_resolution(self) -> str:
        return f"{self.render_width or self.width}x{self.render_height or self.height}"


class ScenarioResult(Record, frozen=True):
    """The budget of one scenario. ``bytes`` holds the four categories (textures count
    *allocated* bytes, and under streaming the pool variant); ``details`` the parts behind
    them (content vs allocated, estimates); ``streaming`` (a JSON-ready dict) both variants."""

    resolution: str  # "3840x2160"
    render_scale: float
    quality: str
    rt: str
    bytes: dict[str, int] = msgspec.field(default_factory=dict)
    total_bytes: int = 0
    cards: tuple[CardVerdict, ...] = ()
    fixes: tuple[Fix, ...] = ()
    upscaler: str | None = None
    renderer: str | None = None
    platform: str = "desktop"
    render_resolution: str = ""
    details: dict[str, int] = msgspec.field(default_factory=dict)
    streaming: dict | None = None
    notes: tuple[str, ...] = ()
    scenario: Scenario | None = None


class Budget(Record, frozen=True):
    """Every scenario of one evaluation, judged on every card."""

    scenarios: tuple[ScenarioResult, ...] = ()
    cards: tuple[str, ...] = ()  # card ids, in the order asked for
    notes: tuple[str, ...] = ()

    @property
    def worst(self) -> str:
        """The worst verdict of any card in any scenario: over, then tight, then fits."""
        verdicts = {c.verdict for s in self.scenarios for c in s.cards}
        return next((v for v in ("over", "tight") if v in verdicts), "fits")
