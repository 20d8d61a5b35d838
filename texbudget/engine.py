"""What a game engine's import sidecar beside a texture says, and the engines' own tables.

``EngineImport`` is a Godot 4 ``.import`` or a Unity ``.meta`` as read (``UnityPlatform``: one
of a Unity TextureImporter's ``platformSettings``); the tables are Godot's compress modes,
importers and cubemap arrangements and Unity's TextureImporterFormat numbers, compression
levels and texture shapes. The readers (``readers.godot``, ``readers.unity``) build these
records and the policy (``policy.decision``) decides with them: both import this module, and
neither imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from texbudget.model import Finding, Record


class UnityPlatform(Record, frozen=True):
    """One ``platformSettings`` entry of a Unity TextureImporter."""

    build_target: str
    max_size: int | None = None
    texture_format: int = -1  # TextureImporterFormat number, -1 = Automatic
    compression: int | None = None  # TextureImporterCompression: 0 none, 1 normal, 2 HQ, 3 LQ
    overridden: bool = False


class EngineImport(Record, frozen=True):
    """What a Godot 4 ``.import`` or Unity ``.meta`` beside a texture says. ``None`` = the key
    is absent (the engine's default applies). ``findings`` are settings texbudget did not
    understand (the profile decided those); ``settings`` are the raw pairs read, for
    ``texbudget explain``."""

    engine: str  # "godot" or "unity"
    source: str  # the sidecar's file name, e.g. "rock_n.png.import"
    importer: str  # Godot importer ("texture", "2d_array_texture", …) or Unity importer class
    # --- Godot 4 [params]
    compress_mode: int | None = None  # 0 lossless, 1 lossy, 2 VRAM compressed, 3 VRAM uncompressed, 4 Basis
    high_quality: bool | None = None
    high_quality_mode: int | None = None  # 0 automatic, 1 max quality, 2 compressed, 3 max compression
    normal_map: int | None = None  # 0 detect, 1 enable, 2 disable
    hdr_compression: int | None = None  # 0 disabled, 1 opaque only, 2 always
    channel_pack: int | None = None  # 0 sRGB friendly, 1 optimized, 2 normal map (RG)
    mipmaps: bool | None = None
    mipmap_limit: int | None = None
    size_limit: int | None = None  # 0 = none
    detect_3d: int | None = None  # detect_3d/compress_to: 0 disabled, 1 VRAM compressed, 2 Basis
    slices_horizontal: int | None = None
    slices_vertical: int | None = None
    arrangement: int | None = None  # cubemaps: 0 1x6, 1 2x3, 2 3x2, 3 6x1
    layout: int | None = None  # cubemap arrays: 0 horizontal, 1 vertical
    amount: int | None = None  # cubemap arrays: number of cubemaps
    # --- Unity TextureImporter
    texture_type: int | None = None  # 0 default, 1 normal map, 2 editor GUI, 7 cursor, 8 sprite, 10 single channel …
    texture_shape: int | None = None  # 1 2D, 2 cube, 4 2D array, 8 3D
    srgb: bool | None = None
    alpha_source: int | None = None  # 0 none, 1 from input, 2 from grey scale
    alpha_is_transparency: bool | None = None
    max_size: int | None = None  # top-level maxTextureSize (legacy default)
    compression: int | None = None  # top-level textureCompression (legacy default)
    texture_format: int | None = None  # top-level textureFormat (legacy; used only without platformSettings)
    single_channel_component: int | None = None
    ignore_mipmap_limit: bool = False
    flipbook_rows: int | None = None
    flipbook_columns: int | None = None
    generate_cubemap: int | None = None
    platforms: tuple[UnityPlatform, ...] = ()
    # --- both
    findings: tuple[Finding, ...] = ()
    settings: tuple[tuple[str, str], ...] = ()


# --- Godot 4 -----------------------------------------------------------------------------

GODOT_MODES: Mapping[int, str] = MappingProxyType({
    0: "lossless", 1: "lossy", 2: "VRAM compressed", 3: "VRAM uncompressed", 4: "Basis Universal",
})
#: Godot importer -> (defaults for compress/mode, mipmaps/generate)
GODOT_IMPORTERS: Mapping[str, tuple[int, bool]] = MappingProxyType({
    "texture": (0, False), "2d_array_texture": (1, True), "3d_texture": (1, True),
    "cubemap_texture": (1, True), "cubemap_array_texture": (1, True),
})
GODOT_ARRANGEMENTS: Mapping[int, tuple[int, int]] = MappingProxyType({0: (1, 6), 1: (2, 3), 2: (3, 2), 3: (6, 1)})

# --- Unity -------------------------------------------------------------------------------

#: TextureImporterFormat number -> (canonical format, Unity name). Source: UnityCsReference
#: Editor/Mono/AssetPipeline/TextureImporterEnums.cs. RGB24 / RGB48 are expanded to four
#: channels on the GPU (spec/textures.md §1.2); crunched formats are DXT/ETC on the GPU.
UNITY_FORMATS: Mapping[int, tuple[str, str]] = MappingProxyType({
    1: ("R8_UNORM", "Alpha8"),
    2: ("R4G4B4A4_UNORM", "ARGB16"),
    3: ("R8G8B8A8_UNORM", "RGB24"),
    4: ("R8G8B8A8_UNORM", "RGBA32"),
    5: ("B8G8R8A8_UNORM", "ARGB32"),
    7: ("R5G6B5_UNORM", "RGB16"),
    9: ("R16_UNORM", "R16"),
    10: ("BC1_RGB_UNORM", "DXT1"),
    12: ("BC3_UNORM", "DXT5"),
    13: ("R4G4B4A4_UNORM", "RGBA16"),
    15: ("R16_SFLOAT", "RHalf"),
    16: ("R16G16_SFLOAT", "RGHalf"),
    17: ("R16G16B16A16_SFLOAT", "RGBAHalf"),
    18: ("R32_SFLOAT", "RFloat"),
    19: ("R32G32_SFLOAT", "RGFloat"),
    20: ("R32G32B32A32_SFLOAT", "RGBAFloat"),
    22: ("E5B9G9R9_UFLOAT", "RGB9E5"),
    24: ("BC6H_UFLOAT", "BC6H"),
    25: ("BC7_UNORM", "BC7"),
    26: ("BC4_UNORM", "BC4"),
    27: ("BC5_UNORM", "BC5"),
    28: ("BC1_RGB_UNORM", "DXT1Crunched"),
    29: ("BC3_UNORM", "DXT5Crunched"),
    30: ("PVRTC1_2BPP_UNORM", "PVRTC_RGB2"),
    31: ("PVRTC1_2BPP_UNORM", "PVRTC_RGBA2"),
    32: ("PVRTC1_4BPP_UNORM", "PVRTC_RGB4"),
    33: ("PVRTC1_4BPP_UNORM", "PVRTC_RGBA4"),
    34: ("ETC1_R8G8B8_UNORM", "ETC_RGB4"),
    35: ("ETC1_R8G8B8_UNORM", "ATC_RGB4 (obsolete, now ETC_RGB4)"),
    36: ("ETC2_R8G8B8A8_UNORM", "ATC_RGBA8 (obsolete, now ETC2_RGBA8)"),
    41: ("EAC_R11_UNORM", "EAC_R"),
    42: ("EAC_R11_SNORM", "EAC_R_SIGNED"),
    43: ("EAC_R11G11_UNORM", "EAC_RG"),
    44: ("EAC_R11G11_SNORM", "EAC_RG_SIGNED"),
    45: ("ETC2_R8G8B8_UNORM", "ETC2_RGB4"),
    46: ("ETC2_R8G8B8A1_UNORM", "ETC2_RGB4_PUNCHTHROUGH_ALPHA"),
    47: ("ETC2_R8G8B8A8_UNORM", "ETC2_RGBA8"),
    48: ("ASTC_4x4_UNORM", "ASTC_4x4"),
    49: ("ASTC_5x5_UNORM", "ASTC_5x5"),
    50: ("ASTC_6x6_UNORM", "ASTC_6x6"),
    51: ("ASTC_8x8_UNORM", "ASTC_8x8"),
    52: ("ASTC_10x10_UNORM", "ASTC_10x10"),
    53: ("ASTC_12x12_UNORM", "ASTC_12x12"),
    54: ("ASTC_4x4_UNORM", "ASTC_RGBA_4x4 (obsolete)"),
    55: ("ASTC_5x5_UNORM", "ASTC_RGBA_5x5 (obsolete)"),
    56: ("ASTC_6x6_UNORM", "ASTC_RGBA_6x6 (obsolete)"),
    57: ("ASTC_8x8_UNORM", "ASTC_RGBA_8x8 (obsolete)"),
    58: ("ASTC_10x10_UNORM", "ASTC_RGBA_10x10 (obsolete)"),
    59: ("ASTC_12x12_UNORM", "ASTC_RGBA_12x12 (obsolete)"),
    62: ("R8G8_UNORM", "RG16"),
    63: ("R8_UNORM", "R8"),
    64: ("ETC1_R8G8B8_UNORM", "ETC_RGB4Crunched"),
    65: ("ETC2_R8G8B8A8_UNORM", "ETC2_RGBA8Crunched"),
    66: ("ASTC_4x4_SFLOAT", "ASTC_HDR_4x4"),
    67: ("ASTC_5x5_SFLOAT", "ASTC_HDR_5x5"),
    68: ("ASTC_6x6_SFLOAT", "ASTC_HDR_6x6"),
    69: ("ASTC_8x8_SFLOAT", "ASTC_HDR_8x8"),
    70: ("ASTC_10x10_SFLOAT", "ASTC_HDR_10x10"),
    71: ("ASTC_12x12_SFLOAT", "ASTC_HDR_12x12"),
    72: ("R16G16_UNORM", "RG32"),
    73: ("R16G16B16A16_UNORM", "RGB48"),
    74: ("R16G16B16A16_UNORM", "RGBA64"),
})
#: Negative TextureImporterFormat values: Automatic (-1) and the obsolete automatic variants.
UNITY_AUTOMATIC = frozenset({-1, -2, -3, -5, -6, -7})
UNITY_COMPRESSION: Mapping[int, str] = MappingProxyType({0: "None", 1: "Normal Quality", 2: "High Quality", 3: "Low Quality"})
UNITY_SHAPES: Mapping[int, str] = MappingProxyType({1: "2D", 2: "Cube", 4: "2D Array", 8: "3D"})
