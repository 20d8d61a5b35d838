"""The rows of the GPU format table (DESIGN.md §2, spec/textures.md §1): data, built into
``PixelFormat`` records once, on first use (``formats.all_formats``).

Three sources, each a table below:

- ``VULKAN``: every single-plane VkFormat of the Vulkan registry (vk.xml, as the Khronos
  package ``vulkan-object`` 1.4.366 ships it) except the ``*SCALED`` ones: its number, its
  registry name, bytes per block, the GL internal format and the DXGI format of the same
  layout (from the KTX2 specification's ``formats.json``, KhronosGroup/KTX-Specification
  ac39917, and DXGI's bit orders). Everything else about a row (block extent, channels,
  alpha, sRGB, HDR, signed, family) follows from the registry name (``vulkan_row``);
  ``tests/unit/test_format_registry.py`` checks every row against vk.xml.
- ``DXGI_ONLY``: the DXGI formats DirectXTex sizes that no VkFormat matches (video, palette,
  packed RGBG, R1, XR-bias and the Xbox formats), sized as DirectXTex's ``ComputePitch``
  sizes them (DirectXTex/DirectXTexUtil.cpp, microsoft/DirectXTex 0bb96f0).
- ``DXGI_FORMATS``: every DXGI_FORMAT number DirectXTex sizes, with its name and the row
  that sizes it (typeless and X8 view formats share the row of their layout).

Deliberate differences from those references are listed once, in ``REFERENCE_DIFFERENCES``;
the tests read that list. A new format is one row here plus one test row.
"""

from __future__ import annotations

from typing import NamedTuple

from texbudget.model import PixelFormat

# ASTC 2D footprints, in Vulkan enum order (VK 157 = 4x4 UNORM … 184 = 12x12 SRGB).
ASTC_BLOCKS: tuple[tuple[int, int], ...] = (
    (4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8),
    (10, 5), (10, 6), (10, 8), (10, 10), (12, 10), (12, 12),
)

#: Format families, in the order ``texbudget formats`` lists them, with a title each.
#: the policy and the budget's fixes read ``family``: "uncompressed" rows may be compressed by a fix;
#: "integer" (UINT/SINT/BOOL), "depth" and "video" rows never are; "bc2"/"bc3"/"bc7" have
#: BC1 twins; "depth" never gets D3D12's small alignment.
FAMILIES: dict[str, str] = {
    "uncompressed": "colour texels: UNORM, SNORM, sRGB, float, packed",
    "integer": "UINT, SINT, BOOL: not filterable, never block-compressed",
    "depth": "depth and stencil",
    "video": "YCbCr video and palette formats: 4:2:2, 4:2:0, 4:1:1, 4:4:4",
    "bc1": "BC1 (DXT1)", "bc2": "BC2 (DXT2, DXT3)", "bc3": "BC3 (DXT4, DXT5)",
    "bc4": "BC4 (ATI1, RGTC1)", "bc5": "BC5 (ATI2, RGTC2)", "bc6h": "BC6H (BPTC float)",
    "bc7": "BC7 (BPTC)", "etc1": "ETC1", "etc2": "ETC2", "eac": "EAC",
    "astc": "ASTC: 2D and 3D blocks, LDR (UNORM, sRGB) and HDR (SFLOAT)",
    "pvrtc1": "PVRTC1: every level at least 2x2 blocks", "pvrtc2": "PVRTC2",
    "basis": "Basis Universal: transcoded on load, not a GPU format",
}
_COMPRESSED_FAMILIES = frozenset({"bc1", "bc2", "bc3", "bc4", "bc5", "bc6h", "bc7", "etc1", "etc2",
                                  "eac", "astc", "pvrtc1", "pvrtc2", "basis"})


class Difference(NamedTuple):
    """Where texbudget sizes a format otherwise than a reference does, and why."""

    reference: str  # "vk.xml" or "DirectXTex" (ComputePitch / the legacy DDS map)
    says: str  # what the reference gives
    when: str  # "always", or the sizes it concerns ("odd heights")
    reason: str


#: The one list of deliberate differences; the registry, DirectXTex and DDS tests use it.
REFERENCE_DIFFERENCES: dict[str, Difference] = {
    "D32_SFLOAT_S8_UINT": Difference(
        "vk.xml", "blockSize 5", "always",
        "D3D allocates it as 64 bits (DXGI D32_FLOAT_S8X24_UINT, DirectXTex 64 bpp); Vulkan's 5 "
        "is nominal, drivers keep depth and stencil in separate planes (spec/textures.md §1.2)"),
    "D16_UNORM_S8_UINT": Difference(
        "vk.xml", "blockSize 3", "always",
        "KTX 2.0 stores it as 4 bytes a texel (16 bits of depth, 8 of stencil, 8 unused; "
        "§mipPadding), and no GPU allocates 24-bit texels; D3D has no such format"),
    "V408": Difference(
        "DirectXTex", "ComputePitch w*(h + (h>>1)*4): w*(3h-2) for odd h", "odd heights",
        "4:4:4 planar keeps three full planes, 3 bytes a texel; DirectXTex's formula drops two "
        "chroma rows of an odd height (even heights agree)"),
    "XBOX_D16_UNORM_S8_UINT": Difference(
        "DirectXTex", "ComputePitch ceil(w/2)*4*(h + ceil(h/2))", "odd heights",
        "2x2 blocks of 12 bytes, DirectXTex's own P010 layout, which it does not require an "
        "even height for here; an odd height rounds up to whole blocks (4*ceil(w/2) bytes more)"),
    "D3DFMT_R8G8B8": Difference(
        "DirectXTex", "legacy 24-bit RGB expands to R8G8B8A8_UNORM", "always",
        "kept as the file's own 3-byte layout B8G8R8_UNORM (a VkFormat); padding RGB to four "
        "channels is the GPU policy's decision (spec/textures.md §1.2)"),
}

#: Registry names (without ``VK_FORMAT_``) and texbudget's bytes per block. GL and DXGI: the
#: format of the same layout, on one row each (a code several rows share, e.g. GL_RGBA8 for
#: R8G8B8A8 and B8G8R8A8, sits on the first). (VkFormat, name, bytes, GL, DXGI)
VULKAN: tuple[tuple[int, str, int, int | None, int | None], ...] = (
    (1, "R4G4_UNORM_PACK8", 1, None, None),
    (2, "R4G4B4A4_UNORM_PACK16", 2, 0x8056, 191),
    (3, "B4G4R4A4_UNORM_PACK16", 2, None, None),
    (4, "R5G6B5_UNORM_PACK16", 2, 0x8D62, 85),
    (5, "B5G6R5_UNORM_PACK16", 2, None, None),
    (6, "R5G5B5A1_UNORM_PACK16", 2, None, None),
    (7, "B5G5R5A1_UNORM_PACK16", 2, None, None),
    (8, "A1R5G5B5_UNORM_PACK16", 2, 0x8057, 86),
    (1000470000, "A1B5G5R5_UNORM_PACK16", 2, None, None),
    (1000470001, "A8_UNORM", 1, 0x803C, 65),
    (9, "R8_UNORM", 1, 0x8229, 61),
    (10, "R8_SNORM", 1, 0x8F94, 63),
    (13, "R8_UINT", 1, 0x8232, 62),
    (14, "R8_SINT", 1, 0x8231, 64),
    (15, "R8_SRGB", 1, 0x8FBD, None),
    (16, "R8G8_UNORM", 2, 0x822B, 49),
    (17, "R8G8_SNORM", 2, 0x8F95, 51),
    (20, "R8G8_UINT", 2, 0x8238, 50),
    (21, "R8G8_SINT", 2, 0x8237, 52),
    (22, "R8G8_SRGB", 2, 0x8FBE, None),
    (23, "R8G8B8_UNORM", 3, 0x8051, None),
    (24, "R8G8B8_SNORM", 3, 0x8F96, None),
    (27, "R8G8B8_UINT", 3, 0x8D7D, None),
    (28, "R8G8B8_SINT", 3, 0x8D8F, None),
    (29, "R8G8B8_SRGB", 3, 0x8C41, None),
    (30, "B8G8R8_UNORM", 3, None, None),
    (31, "B8G8R8_SNORM", 3, None, None),
    (34, "B8G8R8_UINT", 3, None, None),
    (35, "B8G8R8_SINT", 3, None, None),
    (36, "B8G8R8_SRGB", 3, None, None),
    (37, "R8G8B8A8_UNORM", 4, 0x8058, 28),
    (38, "R8G8B8A8_SNORM", 4, 0x8F97, 31),
    (41, "R8G8B8A8_UINT", 4, 0x8D7C, 30),
    (42, "R8G8B8A8_SINT", 4, 0x8D8E, 32),
    (43, "R8G8B8A8_SRGB", 4, 0x8C43, 29),
    (44, "B8G8R8A8_UNORM", 4, None, 87),
    (45, "B8G8R8A8_SNORM", 4, None, None),
    (48, "B8G8R8A8_UINT", 4, None, None),
    (49, "B8G8R8A8_SINT", 4, None, None),
    (50, "B8G8R8A8_SRGB", 4, None, 91),
    (51, "A8B8G8R8_UNORM_PACK32", 4, None, None),
    (52, "A8B8G8R8_SNORM_PACK32", 4, None, None),
    (55, "A8B8G8R8_UINT_PACK32", 4, None, None),
    (56, "A8B8G8R8_SINT_PACK32", 4, None, None),
    (57, "A8B8G8R8_SRGB_PACK32", 4, None, None),
    (58, "A2R10G10B10_UNORM_PACK32", 4, None, None),
    (59, "A2R10G10B10_SNORM_PACK32", 4, None, None),
    (62, "A2R10G10B10_UINT_PACK32", 4, None, None),
    (63, "A2R10G10B10_SINT_PACK32", 4, None, None),
    (64, "A2B10G10R10_UNORM_PACK32", 4, 0x8059, 24),
    (65, "A2B10G10R10_SNORM_PACK32", 4, None, None),
    (68, "A2B10G10R10_UINT_PACK32", 4, 0x906F, 25),
    (69, "A2B10G10R10_SINT_PACK32", 4, None, None),
    (70, "R16_UNORM", 2, 0x822A, 56),
    (71, "R16_SNORM", 2, 0x8F98, 58),
    (74, "R16_UINT", 2, 0x8234, 57),
    (75, "R16_SINT", 2, 0x8233, 59),
    (76, "R16_SFLOAT", 2, 0x822D, 54),
    (77, "R16G16_UNORM", 4, 0x822C, 35),
    (78, "R16G16_SNORM", 4, 0x8F99, 37),
    (81, "R16G16_UINT", 4, 0x823A, 36),
    (82, "R16G16_SINT", 4, 0x8239, 38),
    (83, "R16G16_SFLOAT", 4, 0x822F, 34),
    (84, "R16G16B16_UNORM", 6, 0x8054, None),
    (85, "R16G16B16_SNORM", 6, 0x8F9A, None),
    (88, "R16G16B16_UINT", 6, 0x8D77, None),
    (89, "R16G16B16_SINT", 6, 0x8D89, None),
    (90, "R16G16B16_SFLOAT", 6, 0x881B, None),
    (91, "R16G16B16A16_UNORM", 8, 0x805B, 11),
    (92, "R16G16B16A16_SNORM", 8, 0x8F9B, 13),
    (95, "R16G16B16A16_UINT", 8, 0x8D76, 12),
    (96, "R16G16B16A16_SINT", 8, 0x8D88, 14),
    (97, "R16G16B16A16_SFLOAT", 8, 0x881A, 10),
    (98, "R32_UINT", 4, 0x8236, 42),
    (99, "R32_SINT", 4, 0x8235, 43),
    (100, "R32_SFLOAT", 4, 0x822E, 41),
    (101, "R32G32_UINT", 8, 0x823C, 17),
    (102, "R32G32_SINT", 8, 0x823B, 18),
    (103, "R32G32_SFLOAT", 8, 0x8230, 16),
    (104, "R32G32B32_UINT", 12, 0x8D71, 7),
    (105, "R32G32B32_SINT", 12, 0x8D83, 8),
    (106, "R32G32B32_SFLOAT", 12, 0x8815, 6),
    (107, "R32G32B32A32_UINT", 16, 0x8D70, 3),
    (108, "R32G32B32A32_SINT", 16, 0x8D82, 4),
    (109, "R32G32B32A32_SFLOAT", 16, 0x8814, 2),
    (110, "R64_UINT", 8, None, None),
    (111, "R64_SINT", 8, None, None),
    (112, "R64_SFLOAT", 8, None, None),
    (113, "R64G64_UINT", 16, None, None),
    (114, "R64G64_SINT", 16, None, None),
    (115, "R64G64_SFLOAT", 16, None, None),
    (116, "R64G64B64_UINT", 24, None, None),
    (117, "R64G64B64_SINT", 24, None, None),
    (118, "R64G64B64_SFLOAT", 24, None, None),
    (119, "R64G64B64A64_UINT", 32, None, None),
    (120, "R64G64B64A64_SINT", 32, None, None),
    (121, "R64G64B64A64_SFLOAT", 32, None, None),
    (122, "B10G11R11_UFLOAT_PACK32", 4, 0x8C3A, 26),
    (123, "E5B9G9R9_UFLOAT_PACK32", 4, 0x8C3D, 67),
    (124, "D16_UNORM", 2, 0x81A5, 55),
    (125, "X8_D24_UNORM_PACK32", 4, 0x81A6, None),
    (126, "D32_SFLOAT", 4, 0x8CAC, 40),
    (127, "S8_UINT", 1, 0x8D48, None),
    (128, "D16_UNORM_S8_UINT", 4, None, None),
    (129, "D24_UNORM_S8_UINT", 4, 0x88F0, 45),
    (130, "D32_SFLOAT_S8_UINT", 8, 0x8CAD, 20),
    (131, "BC1_RGB_UNORM_BLOCK", 8, 0x83F0, 71),
    (132, "BC1_RGB_SRGB_BLOCK", 8, 0x8C4C, 72),
    (133, "BC1_RGBA_UNORM_BLOCK", 8, 0x83F1, 71),
    (134, "BC1_RGBA_SRGB_BLOCK", 8, 0x8C4D, 72),
    (135, "BC2_UNORM_BLOCK", 16, 0x83F2, 74),
    (136, "BC2_SRGB_BLOCK", 16, 0x8C4E, 75),
    (137, "BC3_UNORM_BLOCK", 16, 0x83F3, 77),
    (138, "BC3_SRGB_BLOCK", 16, 0x8C4F, 78),
    (139, "BC4_UNORM_BLOCK", 8, 0x8DBB, 80),
    (140, "BC4_SNORM_BLOCK", 8, 0x8DBC, 81),
    (141, "BC5_UNORM_BLOCK", 16, 0x8DBD, 83),
    (142, "BC5_SNORM_BLOCK", 16, 0x8DBE, 84),
    (143, "BC6H_UFLOAT_BLOCK", 16, 0x8E8F, 95),
    (144, "BC6H_SFLOAT_BLOCK", 16, 0x8E8E, 96),
    (145, "BC7_UNORM_BLOCK", 16, 0x8E8C, 98),
    (146, "BC7_SRGB_BLOCK", 16, 0x8E8D, 99),
    (147, "ETC2_R8G8B8_UNORM_BLOCK", 8, 0x9274, None),
    (148, "ETC2_R8G8B8_SRGB_BLOCK", 8, 0x9275, None),
    (149, "ETC2_R8G8B8A1_UNORM_BLOCK", 8, 0x9276, None),
    (150, "ETC2_R8G8B8A1_SRGB_BLOCK", 8, 0x9277, None),
    (151, "ETC2_R8G8B8A8_UNORM_BLOCK", 16, 0x9278, None),
    (152, "ETC2_R8G8B8A8_SRGB_BLOCK", 16, 0x9279, None),
    (153, "EAC_R11_UNORM_BLOCK", 8, 0x9270, None),
    (154, "EAC_R11_SNORM_BLOCK", 8, 0x9271, None),
    (155, "EAC_R11G11_UNORM_BLOCK", 16, 0x9272, None),
    (156, "EAC_R11G11_SNORM_BLOCK", 16, 0x9273, None),
    (157, "ASTC_4x4_UNORM_BLOCK", 16, 0x93B0, None),
    (158, "ASTC_4x4_SRGB_BLOCK", 16, 0x93D0, None),
    (159, "ASTC_5x4_UNORM_BLOCK", 16, 0x93B1, None),
    (160, "ASTC_5x4_SRGB_BLOCK", 16, 0x93D1, None),
    (161, "ASTC_5x5_UNORM_BLOCK", 16, 0x93B2, None),
    (162, "ASTC_5x5_SRGB_BLOCK", 16, 0x93D2, None),
    (163, "ASTC_6x5_UNORM_BLOCK", 16, 0x93B3, None),
    (164, "ASTC_6x5_SRGB_BLOCK", 16, 0x93D3, None),
    (165, "ASTC_6x6_UNORM_BLOCK", 16, 0x93B4, None),
    (166, "ASTC_6x6_SRGB_BLOCK", 16, 0x93D4, None),
    (167, "ASTC_8x5_UNORM_BLOCK", 16, 0x93B5, None),
    (168, "ASTC_8x5_SRGB_BLOCK", 16, 0x93D5, None),
    (169, "ASTC_8x6_UNORM_BLOCK", 16, 0x93B6, None),
    (170, "ASTC_8x6_SRGB_BLOCK", 16, 0x93D6, None),
    (171, "ASTC_8x8_UNORM_BLOCK", 16, 0x93B7, None),
    (172, "ASTC_8x8_SRGB_BLOCK", 16, 0x93D7, None),
    (173, "ASTC_10x5_UNORM_BLOCK", 16, 0x93B8, None),
    (174, "ASTC_10x5_SRGB_BLOCK", 16, 0x93D8, None),
    (175, "ASTC_10x6_UNORM_BLOCK", 16, 0x93B9, None),
    (176, "ASTC_10x6_SRGB_BLOCK", 16, 0x93D9, None),
    (177, "ASTC_10x8_UNORM_BLOCK", 16, 0x93BA, None),
    (178, "ASTC_10x8_SRGB_BLOCK", 16, 0x93DA, None),
    (179, "ASTC_10x10_UNORM_BLOCK", 16, 0x93BB, None),
    (180, "ASTC_10x10_SRGB_BLOCK", 16, 0x93DB, None),
    (181, "ASTC_12x10_UNORM_BLOCK", 16, 0x93BC, None),
    (182, "ASTC_12x10_SRGB_BLOCK", 16, 0x93DC, None),
    (183, "ASTC_12x12_UNORM_BLOCK", 16, 0x93BD, None),
    (184, "ASTC_12x12_SRGB_BLOCK", 16, 0x93DD, None),
    (1000156000, "G8B8G8R8_422_UNORM", 4, None, None),
    (1000156001, "B8G8R8G8_422_UNORM", 4, None, None),
    (1000156007, "R10X6_UNORM_PACK16", 2, None, None),
    (1000156008, "R10X6G10X6_UNORM_2PACK16", 4, None, None),
    (1000156009, "R10X6G10X6B10X6A10X6_UNORM_4PACK16", 8, None, None),
    (1000156010, "G10X6B10X6G10X6R10X6_422_UNORM_4PACK16", 8, None, None),
    (1000156011, "B10X6G10X6R10X6G10X6_422_UNORM_4PACK16", 8, None, None),
    (1000156017, "R12X4_UNORM_PACK16", 2, None, None),
    (1000156018, "R12X4G12X4_UNORM_2PACK16", 4, None, None),
    (1000156019, "R12X4G12X4B12X4A12X4_UNORM_4PACK16", 8, None, None),
    (1000156020, "G12X4B12X4G12X4R12X4_422_UNORM_4PACK16", 8, None, None),
    (1000156021, "B12X4G12X4R12X4G12X4_422_UNORM_4PACK16", 8, None, None),
    (1000156027, "G16B16G16R16_422_UNORM", 8, None, None),
    (1000156028, "B16G16R16G16_422_UNORM", 8, None, None),
    (1000054000, "PVRTC1_2BPP_UNORM_BLOCK_IMG", 8, 0x8C03, None),
    (1000054001, "PVRTC1_4BPP_UNORM_BLOCK_IMG", 8, 0x8C02, None),
    (1000054002, "PVRTC2_2BPP_UNORM_BLOCK_IMG", 8, 0x9137, None),
    (1000054003, "PVRTC2_4BPP_UNORM_BLOCK_IMG", 8, 0x9138, None),
    (1000054004, "PVRTC1_2BPP_SRGB_BLOCK_IMG", 8, 0x8A56, None),
    (1000054005, "PVRTC1_4BPP_SRGB_BLOCK_IMG", 8, 0x8A57, None),
    (1000054006, "PVRTC2_2BPP_SRGB_BLOCK_IMG", 8, 0x93F0, None),
    (1000054007, "PVRTC2_4BPP_SRGB_BLOCK_IMG", 8, 0x93F1, None),
    (1000066000, "ASTC_4x4_SFLOAT_BLOCK", 16, None, None),
    (1000066001, "ASTC_5x4_SFLOAT_BLOCK", 16, None, None),
    (1000066002, "ASTC_5x5_SFLOAT_BLOCK", 16, None, None),
    (1000066003, "ASTC_6x5_SFLOAT_BLOCK", 16, None, None),
    (1000066004, "ASTC_6x6_SFLOAT_BLOCK", 16, None, None),
    (1000066005, "ASTC_8x5_SFLOAT_BLOCK", 16, None, None),
    (1000066006, "ASTC_8x6_SFLOAT_BLOCK", 16, None, None),
    (1000066007, "ASTC_8x8_SFLOAT_BLOCK", 16, None, None),
    (1000066008, "ASTC_10x5_SFLOAT_BLOCK", 16, None, None),
    (1000066009, "ASTC_10x6_SFLOAT_BLOCK", 16, None, None),
    (1000066010, "ASTC_10x8_SFLOAT_BLOCK", 16, None, None),
    (1000066011, "ASTC_10x10_SFLOAT_BLOCK", 16, None, None),
    (1000066012, "ASTC_12x10_SFLOAT_BLOCK", 16, None, None),
    (1000066013, "ASTC_12x12_SFLOAT_BLOCK", 16, None, None),
    (1000288000, "ASTC_3x3x3_UNORM_BLOCK_EXT", 16, 0x93C0, None),
    (1000288001, "ASTC_3x3x3_SRGB_BLOCK_EXT", 16, 0x93E0, None),
    (1000288002, "ASTC_3x3x3_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288003, "ASTC_4x3x3_UNORM_BLOCK_EXT", 16, 0x93C1, None),
    (1000288004, "ASTC_4x3x3_SRGB_BLOCK_EXT", 16, 0x93E1, None),
    (1000288005, "ASTC_4x3x3_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288006, "ASTC_4x4x3_UNORM_BLOCK_EXT", 16, 0x93C2, None),
    (1000288007, "ASTC_4x4x3_SRGB_BLOCK_EXT", 16, 0x93E2, None),
    (1000288008, "ASTC_4x4x3_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288009, "ASTC_4x4x4_UNORM_BLOCK_EXT", 16, 0x93C3, None),
    (1000288010, "ASTC_4x4x4_SRGB_BLOCK_EXT", 16, 0x93E3, None),
    (1000288011, "ASTC_4x4x4_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288012, "ASTC_5x4x4_UNORM_BLOCK_EXT", 16, 0x93C4, None),
    (1000288013, "ASTC_5x4x4_SRGB_BLOCK_EXT", 16, 0x93E4, None),
    (1000288014, "ASTC_5x4x4_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288015, "ASTC_5x5x4_UNORM_BLOCK_EXT", 16, 0x93C5, None),
    (1000288016, "ASTC_5x5x4_SRGB_BLOCK_EXT", 16, 0x93E5, None),
    (1000288017, "ASTC_5x5x4_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288018, "ASTC_5x5x5_UNORM_BLOCK_EXT", 16, 0x93C6, None),
    (1000288019, "ASTC_5x5x5_SRGB_BLOCK_EXT", 16, 0x93E6, None),
    (1000288020, "ASTC_5x5x5_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288021, "ASTC_6x5x5_UNORM_BLOCK_EXT", 16, 0x93C7, None),
    (1000288022, "ASTC_6x5x5_SRGB_BLOCK_EXT", 16, 0x93E7, None),
    (1000288023, "ASTC_6x5x5_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288024, "ASTC_6x6x5_UNORM_BLOCK_EXT", 16, 0x93C8, None),
    (1000288025, "ASTC_6x6x5_SRGB_BLOCK_EXT", 16, 0x93E8, None),
    (1000288026, "ASTC_6x6x5_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000288027, "ASTC_6x6x6_UNORM_BLOCK_EXT", 16, 0x93C9, None),
    (1000288028, "ASTC_6x6x6_SRGB_BLOCK_EXT", 16, 0x93E9, None),
    (1000288029, "ASTC_6x6x6_SFLOAT_BLOCK_EXT", 16, None, None),
    (1000340000, "A4R4G4B4_UNORM_PACK16", 2, None, 115),
    (1000340001, "A4B4G4R4_UNORM_PACK16", 2, None, None),
    (1000464000, "R16G16_SFIXED5_NV", 4, None, None),
    (1000609000, "R10X6_UINT_PACK16_ARM", 2, None, None),
    (1000609001, "R10X6G10X6_UINT_2PACK16_ARM", 4, None, None),
    (1000609002, "R10X6G10X6B10X6A10X6_UINT_4PACK16_ARM", 8, None, None),
    (1000609003, "R12X4_UINT_PACK16_ARM", 2, None, None),
    (1000609004, "R12X4G12X4_UINT_2PACK16_ARM", 4, None, None),
    (1000609005, "R12X4G12X4B12X4A12X4_UINT_4PACK16_ARM", 8, None, None),
    (1000609006, "R14X2_UINT_PACK16_ARM", 2, None, None),
    (1000609007, "R14X2G14X2_UINT_2PACK16_ARM", 4, None, None),
    (1000609008, "R14X2G14X2B14X2A14X2_UINT_4PACK16_ARM", 8, None, None),
    (1000609009, "R14X2_UNORM_PACK16_ARM", 2, None, None),
    (1000609010, "R14X2G14X2_UNORM_2PACK16_ARM", 4, None, None),
    (1000609011, "R14X2G14X2B14X2A14X2_UNORM_4PACK16_ARM", 8, None, None),
    (1000460000, "R8_BOOL_ARM", 1, None, None),
    (1000460001, "R16_SFLOAT_FPENCODING_BFLOAT16_ARM", 2, None, None),
    (1000460002, "R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM", 1, None, None),
    (1000460003, "R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM", 1, None, None),
)

#: Every DXGI_FORMAT DirectXTex sizes (BitsPerPixel non-zero): number -> (name without
#: ``DXGI_FORMAT_``, or the whole ``XBOX_DXGI_FORMAT_…`` name; the row that sizes it).
#: 189 and 190 are DXGI's sampler-feedback codes, which DirectXTex reads as the Xbox formats.
DXGI_FORMATS: dict[int, tuple[str, str]] = {
    1: ("R32G32B32A32_TYPELESS", "R32G32B32A32_SFLOAT"),
    2: ("R32G32B32A32_FLOAT", "R32G32B32A32_SFLOAT"),
    3: ("R32G32B32A32_UINT", "R32G32B32A32_UINT"),
    4: ("R32G32B32A32_SINT", "R32G32B32A32_SINT"),
    5: ("R32G32B32_TYPELESS", "R32G32B32_SFLOAT"),
    6: ("R32G32B32_FLOAT", "R32G32B32_SFLOAT"),
    7: ("R32G32B32_UINT", "R32G32B32_UINT"),
    8: ("R32G32B32_SINT", "R32G32B32_SINT"),
    9: ("R16G16B16A16_TYPELESS", "R16G16B16A16_SFLOAT"),
    10: ("R16G16B16A16_FLOAT", "R16G16B16A16_SFLOAT"),
    11: ("R16G16B16A16_UNORM", "R16G16B16A16_UNORM"),
    12: ("R16G16B16A16_UINT", "R16G16B16A16_UINT"),
    13: ("R16G16B16A16_SNORM", "R16G16B16A16_SNORM"),
    14: ("R16G16B16A16_SINT", "R16G16B16A16_SINT"),
    15: ("R32G32_TYPELESS", "R32G32_SFLOAT"),
    16: ("R32G32_FLOAT", "R32G32_SFLOAT"),
    17: ("R32G32_UINT", "R32G32_UINT"),
    18: ("R32G32_SINT", "R32G32_SINT"),
    19: ("R32G8X24_TYPELESS", "D32_SFLOAT_S8_UINT"),
    20: ("D32_FLOAT_S8X24_UINT", "D32_SFLOAT_S8_UINT"),
    21: ("R32_FLOAT_X8X24_TYPELESS", "D32_SFLOAT_S8_UINT"),
    22: ("X32_TYPELESS_G8X24_UINT", "D32_SFLOAT_S8_UINT"),
    23: ("R10G10B10A2_TYPELESS", "A2B10G10R10_UNORM"),
    24: ("R10G10B10A2_UNORM", "A2B10G10R10_UNORM"),
    25: ("R10G10B10A2_UINT", "A2B10G10R10_UINT"),
    26: ("R11G11B10_FLOAT", "B10G11R11_UFLOAT"),
    27: ("R8G8B8A8_TYPELESS", "R8G8B8A8_UNORM"),
    28: ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM"),
    29: ("R8G8B8A8_UNORM_SRGB", "R8G8B8A8_SRGB"),
    30: ("R8G8B8A8_UINT", "R8G8B8A8_UINT"),
    31: ("R8G8B8A8_SNORM", "R8G8B8A8_SNORM"),
    32: ("R8G8B8A8_SINT", "R8G8B8A8_SINT"),
    33: ("R16G16_TYPELESS", "R16G16_UNORM"),
    34: ("R16G16_FLOAT", "R16G16_SFLOAT"),
    35: ("R16G16_UNORM", "R16G16_UNORM"),
    36: ("R16G16_UINT", "R16G16_UINT"),
    37: ("R16G16_SNORM", "R16G16_SNORM"),
    38: ("R16G16_SINT", "R16G16_SINT"),
    39: ("R32_TYPELESS", "R32_SFLOAT"),
    40: ("D32_FLOAT", "D32_SFLOAT"),
    41: ("R32_FLOAT", "R32_SFLOAT"),
    42: ("R32_UINT", "R32_UINT"),
    43: ("R32_SINT", "R32_SINT"),
    44: ("R24G8_TYPELESS", "D24_UNORM_S8_UINT"),
    45: ("D24_UNORM_S8_UINT", "D24_UNORM_S8_UINT"),
    46: ("R24_UNORM_X8_TYPELESS", "D24_UNORM_S8_UINT"),
    47: ("X24_TYPELESS_G8_UINT", "D24_UNORM_S8_UINT"),
    48: ("R8G8_TYPELESS", "R8G8_UNORM"),
    49: ("R8G8_UNORM", "R8G8_UNORM"),
    50: ("R8G8_UINT", "R8G8_UINT"),
    51: ("R8G8_SNORM", "R8G8_SNORM"),
    52: ("R8G8_SINT", "R8G8_SINT"),
    53: ("R16_TYPELESS", "R16_UNORM"),
    54: ("R16_FLOAT", "R16_SFLOAT"),
    55: ("D16_UNORM", "D16_UNORM"),
    56: ("R16_UNORM", "R16_UNORM"),
    57: ("R16_UINT", "R16_UINT"),
    58: ("R16_SNORM", "R16_SNORM"),
    59: ("R16_SINT", "R16_SINT"),
    60: ("R8_TYPELESS", "R8_UNORM"),
    61: ("R8_UNORM", "R8_UNORM"),
    62: ("R8_UINT", "R8_UINT"),
    63: ("R8_SNORM", "R8_SNORM"),
    64: ("R8_SINT", "R8_SINT"),
    65: ("A8_UNORM", "A8_UNORM"),
    66: ("R1_UNORM", "R1_UNORM"),
    67: ("R9G9B9E5_SHAREDEXP", "E5B9G9R9_UFLOAT"),
    68: ("R8G8_B8G8_UNORM", "R8G8_B8G8_UNORM"),
    69: ("G8R8_G8B8_UNORM", "G8R8_G8B8_UNORM"),
    70: ("BC1_TYPELESS", "BC1_RGBA_UNORM"),
    71: ("BC1_UNORM", "BC1_RGBA_UNORM"),
    72: ("BC1_UNORM_SRGB", "BC1_RGBA_SRGB"),
    73: ("BC2_TYPELESS", "BC2_UNORM"),
    74: ("BC2_UNORM", "BC2_UNORM"),
    75: ("BC2_UNORM_SRGB", "BC2_SRGB"),
    76: ("BC3_TYPELESS", "BC3_UNORM"),
    77: ("BC3_UNORM", "BC3_UNORM"),
    78: ("BC3_UNORM_SRGB", "BC3_SRGB"),
    79: ("BC4_TYPELESS", "BC4_UNORM"),
    80: ("BC4_UNORM", "BC4_UNORM"),
    81: ("BC4_SNORM", "BC4_SNORM"),
    82: ("BC5_TYPELESS", "BC5_UNORM"),
    83: ("BC5_UNORM", "BC5_UNORM"),
    84: ("BC5_SNORM", "BC5_SNORM"),
    85: ("B5G6R5_UNORM", "R5G6B5_UNORM"),
    86: ("B5G5R5A1_UNORM", "A1R5G5B5_UNORM"),
    87: ("B8G8R8A8_UNORM", "B8G8R8A8_UNORM"),
    88: ("B8G8R8X8_UNORM", "B8G8R8A8_UNORM"),
    89: ("R10G10B10_XR_BIAS_A2_UNORM", "R10G10B10_XR_BIAS_A2_UNORM"),
    90: ("B8G8R8A8_TYPELESS", "B8G8R8A8_UNORM"),
    91: ("B8G8R8A8_UNORM_SRGB", "B8G8R8A8_SRGB"),
    92: ("B8G8R8X8_TYPELESS", "B8G8R8A8_UNORM"),
    93: ("B8G8R8X8_UNORM_SRGB", "B8G8R8A8_SRGB"),
    94: ("BC6H_TYPELESS", "BC6H_UFLOAT"),
    95: ("BC6H_UF16", "BC6H_UFLOAT"),
    96: ("BC6H_SF16", "BC6H_SFLOAT"),
    97: ("BC7_TYPELESS", "BC7_UNORM"),
    98: ("BC7_UNORM", "BC7_UNORM"),
    99: ("BC7_UNORM_SRGB", "BC7_SRGB"),
    100: ("AYUV", "AYUV"),
    101: ("Y410", "Y410"),
    102: ("Y416", "Y416"),
    103: ("NV12", "NV12"),
    104: ("P010", "P010"),
    105: ("P016", "P016"),
    106: ("420_OPAQUE", "420_OPAQUE"),
    107: ("YUY2", "YUY2"),
    108: ("Y210", "Y210"),
    109: ("Y216", "Y216"),
    110: ("NV11", "NV11"),
    111: ("AI44", "AI44"),
    112: ("IA44", "IA44"),
    113: ("P8", "P8"),
    114: ("A8P8", "A8P8"),
    115: ("B4G4R4A4_UNORM", "A4R4G4B4_UNORM"),
    116: ("XBOX_DXGI_FORMAT_R10G10B10_7E3_A2_FLOAT", "XBOX_R10G10B10_7E3_A2_FLOAT"),
    117: ("XBOX_DXGI_FORMAT_R10G10B10_6E4_A2_FLOAT", "XBOX_R10G10B10_6E4_A2_FLOAT"),
    118: ("XBOX_DXGI_FORMAT_D16_UNORM_S8_UINT", "XBOX_D16_UNORM_S8_UINT"),
    119: ("XBOX_DXGI_FORMAT_R16_UNORM_X8_TYPELESS", "XBOX_D16_UNORM_S8_UINT"),
    120: ("XBOX_DXGI_FORMAT_X16_TYPELESS_G8_UINT", "XBOX_D16_UNORM_S8_UINT"),
    130: ("P208", "P208"),
    131: ("V208", "V208"),
    132: ("V408", "V408"),
    189: ("XBOX_DXGI_FORMAT_R10G10B10_SNORM_A2_UNORM", "XBOX_R10G10B10_SNORM_A2_UNORM"),
    190: ("XBOX_DXGI_FORMAT_R4G4_UNORM", "XBOX_R4G4_UNORM"),
    191: ("A4B4G4R4_UNORM", "R4G4B4A4_UNORM"),
}

#: DXGI formats no VkFormat matches, sized as DirectXTex's ComputePitch sizes them:
#: (name, DXGI number, block width, height, bytes per block, channels, family, alpha).
#: Planar 4:2:0 formats are 2x2 blocks (the Y texels and their shared chroma); DirectXTex
#: requires an even height for NV12, P010, P016, 420_OPAQUE and V208, where the block form
#: is exact. HDR: the names with FLOAT; signed: SNORM.
DXGI_ONLY: tuple[tuple[str, int, int, int, int, int, str, bool], ...] = (
    ("R1_UNORM", 66, 8, 1, 1, 1, "uncompressed", False),  # one bit a texel, rows of whole bytes
    ("R8G8_B8G8_UNORM", 68, 2, 1, 4, 3, "uncompressed", False),  # two texels share R and B
    ("G8R8_G8B8_UNORM", 69, 2, 1, 4, 3, "uncompressed", False),
    ("R10G10B10_XR_BIAS_A2_UNORM", 89, 1, 1, 4, 4, "uncompressed", True),
    ("AYUV", 100, 1, 1, 4, 4, "video", True),
    ("Y410", 101, 1, 1, 4, 4, "video", True),
    ("Y416", 102, 1, 1, 8, 4, "video", True),
    ("NV12", 103, 2, 2, 6, 3, "video", False),  # 4 Y bytes + one U,V pair
    ("P010", 104, 2, 2, 12, 3, "video", False),  # NV12 in 16-bit words
    ("P016", 105, 2, 2, 12, 3, "video", False),
    ("420_OPAQUE", 106, 2, 2, 6, 3, "video", False),
    ("YUY2", 107, 2, 1, 4, 3, "video", False),  # Y0 U Y1 V
    ("Y210", 108, 2, 1, 8, 3, "video", False),
    ("Y216", 109, 2, 1, 8, 3, "video", False),
    # NV11 (4:1:1): ComputePitch gives the UV plane the Y plane's pitch, 16 bits a texel in
    # all (its BitsPerPixel says 12, the bytes a tight layout would need); the pitch rule wins.
    ("NV11", 110, 4, 1, 8, 3, "video", False),
    ("AI44", 111, 1, 1, 1, 2, "video", True),
    ("IA44", 112, 1, 1, 1, 2, "video", True),
    ("P8", 113, 1, 1, 1, 1, "video", False),
    ("A8P8", 114, 1, 1, 2, 2, "video", True),
    ("P208", 130, 2, 1, 4, 3, "video", False),  # 4:2:2 planar: Y + UV at half width, full height
    ("V208", 131, 1, 2, 4, 3, "video", False),  # 4:4:0 planar: chroma at half height
    ("V408", 132, 1, 1, 3, 3, "video", False),  # 4:4:4 planar: three full planes
    ("XBOX_R10G10B10_7E3_A2_FLOAT", 116, 1, 1, 4, 4, "uncompressed", True),
    ("XBOX_R10G10B10_6E4_A2_FLOAT", 117, 1, 1, 4, 4, "uncompressed", True),
    ("XBOX_D16_UNORM_S8_UINT", 118, 2, 2, 12, 2, "depth", False),  # planar like P010
    ("XBOX_R10G10B10_SNORM_A2_UNORM", 189, 1, 1, 4, 4, "uncompressed", True),
    ("XBOX_R4G4_UNORM", 190, 1, 1, 1, 2, "uncompressed", False),
)

#: Extra names a row answers to (case-insensitive), by canonical name.
ALIASES: dict[str, tuple[str, ...]] = {
    "R8_UNORM": ("R8", "L8"), "R8G8_UNORM": ("RG8", "L8A8"), "R8G8B8_UNORM": ("RGB8",),
    "R8G8B8_SRGB": ("SRGB8",), "B8G8R8_UNORM": ("BGR8",), "R8G8B8A8_UNORM": ("RGBA8", "RGBA32"),
    "R8G8B8A8_SRGB": ("RGBA8_SRGB", "SRGB8_ALPHA8"), "B8G8R8A8_UNORM": ("BGRA8",),
    "B8G8R8A8_SRGB": ("BGRA8_SRGB",), "R5G6B5_UNORM": ("RGB565", "B5G6R5"),
    "A1R5G5B5_UNORM": ("RGB5A1", "B5G5R5A1"), "R4G4B4A4_UNORM": ("RGBA4",),
    "A2B10G10R10_UNORM": ("RGB10A2", "R10G10B10A2_UNORM"), "A8_UNORM": ("A8",),
    "R16_UNORM": ("R16", "L16"), "R16_SFLOAT": ("R16F",), "R16G16_UNORM": ("RG16", "G16R16"),
    "R16G16_SFLOAT": ("RG16F",), "R16G16B16_UNORM": ("RGB16",), "R16G16B16_SFLOAT": ("RGB16F",),
    "R16G16B16A16_UNORM": ("RGBA16",), "R16G16B16A16_SFLOAT": ("RGBA16F",), "R32_SFLOAT": ("R32F",),
    "R32G32_SFLOAT": ("RG32F",), "R32G32B32_SFLOAT": ("RGB32F",), "R32G32B32A32_SFLOAT": ("RGBA32F",),
    "B10G11R11_UFLOAT": ("R11G11B10F", "RG11B10F"), "E5B9G9R9_UFLOAT": ("RGB9E5",),
    "D16_UNORM": ("D16",), "X8_D24_UNORM": ("D24X8",), "D32_SFLOAT": ("D32F", "D32"), "S8_UINT": ("S8",),
    "D16_UNORM_S8_UINT": ("D16S8",), "D24_UNORM_S8_UINT": ("D24S8",),
    "D32_SFLOAT_S8_UINT": ("D32S8", "D32FS8"),
    "BC1_RGBA_UNORM": ("DXT1", "BC1A"), "BC1_RGBA_SRGB": ("BC1A_SRGB",), "BC1_RGB_UNORM": ("BC1",),
    "BC1_RGB_SRGB": ("BC1_SRGB",), "BC2_UNORM": ("BC2", "DXT3"), "BC3_UNORM": ("BC3", "DXT5"),
    "BC4_UNORM": ("BC4", "ATI1"), "BC5_UNORM": ("BC5", "ATI2"), "BC6H_UFLOAT": ("BC6H", "BC6"),
    "BC7_UNORM": ("BC7",), "ETC1_R8G8B8_UNORM": ("ETC1",),
    "ETC2_R8G8B8_UNORM": ("ETC2_RGB", "ETC2_RGB8", "ETC2"), "ETC2_R8G8B8A1_UNORM": ("ETC2_RGB8A1", "ETC2_RGBA1"),
    "ETC2_R8G8B8A8_UNORM": ("ETC2_RGBA", "ETC2_RGBA8"), "EAC_R11_UNORM": ("EAC_R11",),
    "EAC_R11G11_UNORM": ("EAC_RG11",),
    "PVRTC1_2BPP_UNORM": ("PVRTC1_2BPP",), "PVRTC1_4BPP_UNORM": ("PVRTC1_4BPP", "PVRTC"),
    "PVRTC2_2BPP_UNORM": ("PVRTC2_2BPP",), "PVRTC2_4BPP_UNORM": ("PVRTC2_4BPP", "PVRTC2"),
    "ETC1S": ("BASISLZ",),
    **{f"ASTC_{d}_UNORM": (f"ASTC_{d}", f"ASTC{d}") for d in (
        *(f"{w}x{h}" for w, h in ASTC_BLOCKS),
        "3x3x3", "4x3x3", "4x4x3", "4x4x4", "5x4x4", "5x5x4", "5x5x5", "6x5x5", "6x6x5", "6x6x6")},
}

#: Older registry names of a row (vk.xml ``alias`` attributes): extensions promoted to core.
VULKAN_ALIASES: dict[str, tuple[str, ...]] = {
    **{n: (f"VK_FORMAT_{n}_KHR",) for n in (
        "G8B8G8R8_422_UNORM", "B8G8R8G8_422_UNORM", "G16B16G16R16_422_UNORM", "B16G16R16G16_422_UNORM",
        "A8_UNORM")},
    **{n: (f"VK_FORMAT_{n}_{pack}_KHR",) for n, pack in (
        ("R10X6_UNORM", "PACK16"), ("R10X6G10X6_UNORM", "2PACK16"), ("R10X6G10X6B10X6A10X6_UNORM", "4PACK16"),
        ("G10X6B10X6G10X6R10X6_422_UNORM", "4PACK16"), ("B10X6G10X6R10X6G10X6_422_UNORM", "4PACK16"),
        ("R12X4_UNORM", "PACK16"), ("R12X4G12X4_UNORM", "2PACK16"), ("R12X4G12X4B12X4A12X4_UNORM", "4PACK16"),
        ("G12X4B12X4G12X4R12X4_422_UNORM", "4PACK16"), ("B12X4G12X4R12X4G12X4_422_UNORM", "4PACK16"),
        ("A1B5G5R5_UNORM", "PACK16"))},
    "A4R4G4B4_UNORM": ("VK_FORMAT_A4R4G4B4_UNORM_PACK16_EXT",),
    "A4B4G4R4_UNORM": ("VK_FORMAT_A4B4G4R4_UNORM_PACK16_EXT",),
    **{f"ASTC_{w}x{h}_SFLOAT": (f"VK_FORMAT_ASTC_{w}x{h}_SFLOAT_BLOCK_EXT",) for w, h in ASTC_BLOCKS},
    "R16G16_SFIXED5": ("VK_FORMAT_R16G16_S10_5_NV",),
}

#: DDS FourCC codes (DirectXTex's legacy map; DDS.h), by canonical name. The swizzled DXT5
#: variants (xGBR, RxBG, …) are BC3 data with channels moved; UYVY is YUY2 with bytes swapped.
FOURCC: dict[str, tuple[str, ...]] = {
    "BC1_RGBA_UNORM": ("DXT1",), "BC2_UNORM": ("DXT2", "DXT3"),
    "BC3_UNORM": ("DXT4", "DXT5", "A2D5", "xGBR", "RxBG", "RBxG", "xRBG", "RGxB", "xGxR", "GXRB",
                  "GRXB", "RXGB", "BRGX"),
    "BC4_UNORM": ("ATI1", "BC4U"), "BC4_SNORM": ("BC4S",), "BC5_UNORM": ("ATI2", "BC5U", "A2XY"),
    "BC5_SNORM": ("BC5S",), "BC6H_UFLOAT": ("BC6H",), "BC7_UNORM": ("BC7L", "BC7"),
    "ETC1_R8G8B8_UNORM": ("ETC1",), "R8G8_B8G8_UNORM": ("RGBG",), "G8R8_G8B8_UNORM": ("GRGB",),
    "YUY2": ("YUY2", "UYVY"),
}

#: D3DFORMAT numbers a DDS stores in its FourCC field, by canonical name: DirectXTex's
#: 36 and 110–116, and two it does not load, sized as Direct3D 9 defines them:
#: 82 D3DFMT_D32F_LOCKABLE (32-bit float depth) and 117 D3DFMT_CxV8U8 (V8U8, C computed).
D3DFMT: dict[str, tuple[int, ...]] = {
    "R16G16B16A16_UNORM": (36,), "R16G16B16A16_SNORM": (110,), "R16_SFLOAT": (111,),
    "R16G16_SFLOAT": (112,), "R16G16B16A16_SFLOAT": (113,), "R32_SFLOAT": (114,),
    "R32G32_SFLOAT": (115,), "R32G32B32A32_SFLOAT": (116,), "D32_SFLOAT": (82,), "R8G8_SNORM": (117,),
}

#: GL internal formats that mean a row whose own GL code is another: the RGB enums of
#: formats whose row carries the RGBA one.
GL_EXTRA: dict[int, str] = {
    0x8C00: "PVRTC1_4BPP_UNORM", 0x8C01: "PVRTC1_2BPP_UNORM",
    0x8A54: "PVRTC1_2BPP_SRGB", 0x8A55: "PVRTC1_4BPP_SRGB",
}

#: Names two rows could answer to, and which one does. A bare DXGI name (no ``DXGI_FORMAT_``)
#: that is also another row's canonical name means the canonical row: DXGI and Vulkan name
#: packed formats from opposite ends, so DXGI's B5G6R5 is Vulkan's R5G6B5_PACK16. The full
#: DXGI name (``DXGI_FORMAT_B5G6R5_UNORM``) always means the DXGI format. Sizes agree.
NAME_COLLISIONS: dict[str, str] = {
    "B5G6R5_UNORM": "DXGI_FORMAT_B5G6R5_UNORM is R5G6B5_UNORM; the bare name is VK_FORMAT_B5G6R5_UNORM_PACK16",
    "B5G5R5A1_UNORM": "DXGI_FORMAT_B5G5R5A1_UNORM is A1R5G5B5_UNORM; the bare name is VK_FORMAT_B5G5R5A1_UNORM_PACK16",
    "B4G4R4A4_UNORM": "DXGI_FORMAT_B4G4R4A4_UNORM is A4R4G4B4_UNORM; the bare name is VK_FORMAT_B4G4R4A4_UNORM_PACK16",
    "A4B4G4R4_UNORM": "DXGI_FORMAT_A4B4G4R4_UNORM is R4G4B4A4_UNORM; the bare name is VK_FORMAT_A4B4G4R4_UNORM_PACK16",
}


# --- building rows ---------------------------------------------------------------------------

_VENDOR_SUFFIXES = ("_IMG", "_EXT", "_KHR", "_NV", "_ARM")
_PACK_SUFFIXES = ("_BLOCK", "_PACK8", "_PACK16", "_PACK32", "_2PACK16", "_4PACK16")
_NUMERIC = ("UNORM", "SNORM", "UINT", "SINT", "SRGB", "SFLOAT", "UFLOAT", "SFIXED5", "BOOL")
_COMPONENT_LETTERS = frozenset("RGBAXDSE")
_COMPONENT_CHARS = frozenset("RGBAXDSE0123456789")
_NOT_CHANNELS = frozenset("XE0123456789")  # padding, shared exponent, bit counts
# Channels and alpha of compressed formats whose name does not list components.
_BLOCK_CHANNELS = {"BC1_RGB": (3, False), "BC1_RGBA": (4, True), "BC2": (4, True), "BC3": (4, True),
                   "BC4": (1, False), "BC5": (2, False), "BC6H": (3, False), "BC7": (4, True),
                   "ASTC": (4, True), "PVRTC1": (4, True), "PVRTC2": (4, True)}


def canonical_name(vk_name: str) -> str:
    """DESIGN.md §2: the registry name without ``VK_FORMAT_``, the vendor suffix and then
    ``_BLOCK`` / ``_PACKnn`` (``PVRTC1_2BPP_UNORM_BLOCK_IMG`` -> ``PVRTC1_2BPP_UNORM``)."""
    name = vk_name.removeprefix("VK_FORMAT_")
    for suffix in _VENDOR_SUFFIXES:
        name = name.removesuffix(suffix)
    for suffix in _PACK_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _components(tokens: list[str]) -> set[str]:
    """Component letters of the name's component tokens (``R8G8B8A8``, ``D24``, ``S8``),
    without padding (X) and shared exponents (E)."""
    letters: set[str] = set()
    for tok in tokens:
        if tok[0] in _COMPONENT_LETTERS and tok[-1].isdigit() and _COMPONENT_CHARS.issuperset(tok):
            letters.update(tok)
    return letters - _NOT_CHANNELS


def _family(name: str, letters: set[str], numeric: str) -> str:
    head = name.split("_")[0]
    if head.startswith("BC"):
        return head.lower()
    if head in ("ETC2", "EAC", "ASTC", "PVRTC1", "PVRTC2"):
        return head.lower()
    if "_422_" in name:
        return "video"
    if letters <= {"D", "S"}:
        return "depth"
    if numeric in ("UINT", "SINT", "BOOL"):
        return "integer"
    return "uncompressed"


def _block(name: str, family: str) -> tuple[int, int, int]:
    if family == "astc":
        dims = [int(v) for v in name.split("_")[1].split("x")]
        return dims[0], dims[1], dims[2] if len(dims) == 3 else 1
    if family in ("pvrtc1", "pvrtc2"):
        return (8, 4, 1) if "_2BPP_" in name else (4, 4, 1)
    if family in _COMPRESSED_FAMILIES:
        return 4, 4, 1
    return (2, 1, 1) if "_422_" in name else (1, 1, 1)


def vulkan_row(vk: int, registry: str, bytes_per_block: int, gl: int | None, dxgi: int | None) -> PixelFormat:
    """The row of one ``VULKAN`` entry; every attribute but the ids follows from the name."""
    name = canonical_name(registry)
    tokens = name.split("_")
    numeric = next((t for t in tokens if t in _NUMERIC), "")
    letters = _components(tokens)
    family = _family(name, letters, numeric)
    bw, bh, bd = _block(name, family)
    prefix = "BC1_" + tokens[1] if family == "bc1" else tokens[0]
    if prefix in _BLOCK_CHANNELS:
        channels, alpha = _BLOCK_CHANNELS[prefix]
    else:
        channels, alpha = len(letters), "A" in letters
    return PixelFormat(
        name=name, block_width=bw, block_height=bh, block_depth=bd, bytes_per_block=bytes_per_block,
        channels=channels, srgb=numeric == "SRGB",
        hdr=numeric in ("SFLOAT", "UFLOAT") and family != "depth",
        compressed=family in _COMPRESSED_FAMILIES, family=family,
        vk_format=vk, vk_name=f"VK_FORMAT_{registry}",
        dxgi_format=dxgi, dxgi_name=dxgi_name(dxgi) if dxgi is not None else None,
        gl_internal_format=gl, dds_fourcc=FOURCC.get(name, ()), d3dfmt=D3DFMT.get(name, ()),
        aliases=ALIASES.get(name, ()), alpha=alpha,
        signed=numeric in ("SNORM", "SINT", "SFIXED5") or name == "BC6H_SFLOAT",
        min_blocks_x=2 if family == "pvrtc1" else 1, min_blocks_y=2 if family == "pvrtc1" else 1,
    )


def dxgi_name(code: int) -> str:
    """The full DXGI name of a DXGI_FORMATS number (``DXGI_FORMAT_BC7_UNORM``)."""
    short = DXGI_FORMATS[code][0]
    return short if short.startswith("XBOX_") else f"DXGI_FORMAT_{short}"


def dxgi_only_row(name: str, dxgi: int, bw: int, bh: int, bpb: int, channels: int, family: str, alpha: bool) -> PixelFormat:
    return PixelFormat(
        name=name, block_width=bw, block_height=bh, block_depth=1, bytes_per_block=bpb,
        channels=channels, srgb=False, hdr="FLOAT" in name, compressed=False, family=family,
        dxgi_format=dxgi, dxgi_name=dxgi_name(dxgi), dds_fourcc=FOURCC.get(name, ()),
        aliases=ALIASES.get(name, ()), alpha=alpha, signed="SNORM" in name,
    )


def other_rows() -> tuple[PixelFormat, ...]:
    """ETC1 (GL only: a bit-compatible subset of ETC2 RGB) and the Basis Universal
    pseudo-formats, whose GPU format is the policy's transcode target; their
    ``bytes_per_block`` is the data's own block (UASTC 16, ETC1S nominally 8)."""
    etc1 = PixelFormat(
        name="ETC1_R8G8B8_UNORM", block_width=4, block_height=4, block_depth=1, bytes_per_block=8,
        channels=3, srgb=False, hdr=False, compressed=True, family="etc1", gl_internal_format=0x8D64,
        dds_fourcc=FOURCC["ETC1_R8G8B8_UNORM"], aliases=ALIASES["ETC1_R8G8B8_UNORM"],
    )
    basis = tuple(
        PixelFormat(name=name, block_width=4, block_height=4, block_depth=1, bytes_per_block=bpb,
                    channels=4, srgb=False, hdr=False, compressed=True, family="basis",
                    transcodable=True, aliases=ALIASES.get(name, ()))
        for name, bpb in (("ETC1S", 8), ("UASTC", 16))
    )
    # Basis Universal HDR (basis_universal transcoder/basisu_transcoder.h; KTX-Software 5.0):
    # UASTC HDR 4x4 is ASTC HDR 4x4 data (vkFormat ASTC_4x4_SFLOAT, DFD colour model 167),
    # UASTC HDR 6x6 intermediate is supercompressed ASTC HDR 6x6 (vkFormat 0, model 168).
    hdr = tuple(
        PixelFormat(name=name, block_width=side, block_height=side, block_depth=1, bytes_per_block=16,
                    channels=3, srgb=False, hdr=True, compressed=True, family="basis", transcodable=True)
        for name, side in (("UASTC_HDR_4x4", 4), ("UASTC_HDR_6x6i", 6))
    )
    return (etc1, *basis, *hdr)


def build_rows() -> tuple[PixelFormat, ...]:
    """Every row: the Vulkan registry's, then the DXGI-only ones, ETC1 and the Basis pair."""
    return (
        *(vulkan_row(*entry) for entry in VULKAN),
        *(dxgi_only_row(*entry) for entry in DXGI_ONLY),
        *other_rows(),
    )
