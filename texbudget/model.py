"""The vocabulary every stage shares (DESIGN.md §2).

Frozen dataclasses; every size is an ``int`` in bytes. An asset's identity is its POSIX
path relative to the scan root, with ``#image/N`` / ``#mesh/N`` inside a glTF.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem with one file or asset. A bad file is data, never a crash."""

    path: str
    code: str  # "TBnnn", documented in texbudget/findings.py
    severity: Severity
    message: str
    hint: str = ""


@dataclass(frozen=True, slots=True)
class PixelFormat:
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
    family: str  # "bc1".."bc7", "etc1", "etc2", "eac", "astc", "pvrtc1", "uncompressed", "depth", "basis"
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

    @property
    def bits_per_pixel(self) -> float:
        texels = self.block_width * self.block_height * self.block_depth
        return self.bytes_per_block * 8 / texels


@dataclass(frozen=True, slots=True)
class MipLevel:
    """One mip level. ``bytes`` covers every layer, face and depth slice of the level."""

    level: int
    width: int
    height: int
    depth: int
    bytes: int


@dataclass(frozen=True, slots=True)
class TextureFacts:
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
    transcodable: str | None = None  # "ETC1S" or "UASTC" for Basis data (stored_format None)
    level_bytes: tuple[int, ...] = ()  # content bytes per stored level, when the file says
    mips_generate: bool = False  # KTX levelCount 0: the loader generates the chain
    grey: bool = False  # the header says the data is greyscale (L / LA modes)
    palette: bool = False


@dataclass(frozen=True, slots=True)
class AttributeFacts:
    """One vertex attribute accessor: ``component_type`` is a glTF name ("FLOAT",
    "UNSIGNED_SHORT", …), ``components`` 1–16 (VEC3 = 3, MAT4 = 16)."""

    name: str
    component_type: str
    components: int
    count: int
    bytes: int
    normalized: bool = False


@dataclass(frozen=True, slots=True)
class PrimitiveFacts:
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
    accessor_ids: tuple[int, ...] = ()  # glTF accessor indices this primitive uses (dedup)


@dataclass(frozen=True, slots=True)
class MeshFacts:
    """One mesh of a file (``file.glb#mesh/N``; a whole OBJ/PLY/STL is ``#mesh/0``)."""

    path: str
    name: str
    primitives: tuple[PrimitiveFacts, ...]
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


@dataclass(frozen=True, slots=True)
class SceneFacts:
    """What a scene file says about how assets are used."""

    path: str
    instances: tuple[tuple[str, int], ...] = ()  # mesh path -> instance count
    texture_usage: tuple[tuple[str, str, str], ...] = ()  # (texture path, user, slot)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Everything one file yields. A GLB gives many textures and meshes; a broken file gives
    one finding and nothing else."""

    textures: tuple[TextureFacts, ...] = ()
    meshes: tuple[MeshFacts, ...] = ()
    scenes: tuple[SceneFacts, ...] = ()
    findings: tuple[Finding, ...] = ()

    def __add__(self, other: ReadResult) -> ReadResult:
        return ReadResult(
            self.textures + other.textures,
            self.meshes + other.meshes,
            self.scenes + other.scenes,
            self.findings + other.findings,
        )


@dataclass(frozen=True, slots=True)
class TexturePlan:
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


@dataclass(frozen=True, slots=True)
class TextureCost:
    plan: TexturePlan
    mips: tuple[MipLevel, ...]  # after the tier drop
    gpu_bytes: int  # content bytes: sum of mips
    allocated_bytes: int  # after the allocation model's alignment


@dataclass(frozen=True, slots=True)
class Fix:
    card: str
    action: str
    path: str
    saves_bytes: int


@dataclass(frozen=True, slots=True)
class CardVerdict:
    name: str
    vram_bytes: int
    usable_bytes: int
    free_bytes: int  # negative when over
    verdict: str  # "fits", "tight", "over"
    headroom_bytes: int = 0


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    resolution: str  # "3840x2160"
    render_scale: float
    quality: str
    rt: str
    bytes: dict[str, int] = field(default_factory=dict)
    total_bytes: int = 0
    cards: tuple[CardVerdict, ...] = ()
    fixes: tuple[Fix, ...] = ()
