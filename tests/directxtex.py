"""What DirectXTex says about DXGI and legacy DDS formats, restated as test data (the
oracle of tests/unit/test_format_dxgi.py and tests/readers/test_dds_formats.py).

Source: microsoft/DirectXTex at 0bb96f0f3fb95b7a38a3a6a8293af14249efa796 —
DirectXTex/DirectXTexUtil.cpp (``BitsPerPixel``, ``ComputePitch``), DirectXTex/DirectXTexP.h
(the Xbox and Windows 10/11 DXGI numbers), DirectXTex/DDS.h and DirectXTex/DirectXTexDDS.cpp
(``g_LegacyDDSMap``: the legacy pixel formats and the DXGI format each loads as).
"""

from __future__ import annotations

from typing import NamedTuple


def _bpp(bits: int, *codes: int) -> dict[int, int]:
    return dict.fromkeys(codes, bits)


#: DirectXTex ``BitsPerPixel`` (non-zero), by DXGI number.
BITS_PER_PIXEL: dict[int, int] = {
    **_bpp(128, 1, 2, 3, 4),
    **_bpp(96, 5, 6, 7, 8),
    **_bpp(64, *range(9, 23), 102, 108, 109),  # RGBA16, RG32, R32G8X24 family, Y416, Y210, Y216
    **_bpp(32, *range(23, 48), 67, 68, 69, 87, 88, 89, 90, 91, 92, 93, 100, 101, 107, 116, 117, 189),
    **_bpp(24, 104, 105, 118, 119, 120, 132),  # P010, P016, Xbox D16S8 views, V408
    **_bpp(16, *range(48, 60), 85, 86, 114, 115, 130, 131, 191),
    **_bpp(12, 103, 106, 110),  # NV12, 420_OPAQUE, NV11
    **_bpp(8, *range(60, 66), *range(73, 79), *range(82, 85), *range(94, 100), 111, 112, 113, 190),
    **_bpp(4, 70, 71, 72, 79, 80, 81),
    **_bpp(1, 66),
}
BC_8 = {70, 71, 72, 79, 80, 81}
BC_16 = {73, 74, 75, 76, 77, 78, 82, 83, 84, 94, 95, 96, 97, 98, 99}


def directxtex_slice(code: int, w: int, h: int) -> int | None:
    """DirectXTex ``ComputePitch``'s slice pitch of a ``w`` x ``h`` image (default flags);
    None where it refuses the size (4:2:0 and V208 need an even height)."""
    half_w = (w + 1) // 2
    if code in BC_8 or code in BC_16:
        return max(1, (w + 3) // 4) * (8 if code in BC_8 else 16) * max(1, (h + 3) // 4)
    if code in (68, 69, 107):  # R8G8_B8G8, G8R8_G8B8, YUY2
        return half_w * 4 * h
    if code in (108, 109):  # Y210, Y216
        return half_w * 8 * h
    if code in (103, 106):  # NV12, 420_OPAQUE
        return None if h % 2 else half_w * 2 * (h + (h + 1) // 2)
    if code in (104, 105):  # P010, P016
        return None if h % 2 else half_w * 4 * (h + (h + 1) // 2)
    if code in (118, 119, 120):  # Xbox D16_UNORM_S8_UINT and its views
        return half_w * 4 * (h + (h + 1) // 2)
    if code == 110:  # NV11
        return (w + 3) // 4 * 4 * h * 2
    if code == 130:  # P208
        return half_w * 2 * h * 2
    if code == 131:  # V208
        return None if h % 2 else w * (h + (h + 1) // 2 * 2)
    if code == 132:  # V408
        return w * (h + h // 2 * 4)
    return (w * BITS_PER_PIXEL[code] + 7) // 8 * h


# --- the legacy DDS map ------------------------------------------------------------------------

FOURCC, RGB, RGBA, LUM, LUMA, ALPHA, PAL8, PAL8A = 0x4, 0x40, 0x41, 0x20000, 0x20001, 0x2, 0x20, 0x21
BUMPLUM, BUMPDUDV, BUMPDUDVA = 0x40000, 0x80000, 0x80001


class Legacy(NamedTuple):
    """One ``g_LegacyDDSMap`` entry: a DDS_PIXELFORMAT (DDS.h) and the DXGI format
    DirectXTex loads it as; ``file_bits``: bits a texel in the file when it expands the data
    (CONV_FLAGS_EXPAND: ComputePitch with CP_FLAGS_24BPP / 16BPP / 8BPP), else 0."""

    name: str
    flags: int
    fourcc: bytes | int
    bits: int
    masks: tuple[int, int, int, int]
    dxgi: int
    file_bits: int = 0


LEGACY_MAP: tuple[Legacy, ...] = (
    Legacy("DXT1", FOURCC, b"DXT1", 0, (0, 0, 0, 0), 71),
    Legacy("DXT3", FOURCC, b"DXT3", 0, (0, 0, 0, 0), 74),
    Legacy("DXT5", FOURCC, b"DXT5", 0, (0, 0, 0, 0), 77),
    Legacy("DXT2", FOURCC, b"DXT2", 0, (0, 0, 0, 0), 74),
    Legacy("DXT4", FOURCC, b"DXT4", 0, (0, 0, 0, 0), 77),
    *(Legacy(cc.decode(), FOURCC, cc, 0, (0, 0, 0, 0), 77) for cc in (
        b"A2D5", b"xGBR", b"RxBG", b"RBxG", b"xRBG", b"RGxB", b"xGxR", b"GXRB", b"GRXB", b"RXGB", b"BRGX")),
    Legacy("BC4U", FOURCC, b"BC4U", 0, (0, 0, 0, 0), 80),
    Legacy("BC4S", FOURCC, b"BC4S", 0, (0, 0, 0, 0), 81),
    Legacy("BC5U", FOURCC, b"BC5U", 0, (0, 0, 0, 0), 83),
    Legacy("BC5S", FOURCC, b"BC5S", 0, (0, 0, 0, 0), 84),
    Legacy("ATI1", FOURCC, b"ATI1", 0, (0, 0, 0, 0), 80),
    Legacy("ATI2", FOURCC, b"ATI2", 0, (0, 0, 0, 0), 83),
    Legacy("A2XY", FOURCC, b"A2XY", 0, (0, 0, 0, 0), 83),
    Legacy("BC6H", FOURCC, b"BC6H", 0, (0, 0, 0, 0), 95),
    Legacy("BC7L", FOURCC, b"BC7L", 0, (0, 0, 0, 0), 98),
    Legacy("BC7", FOURCC, b"BC7\0", 0, (0, 0, 0, 0), 98),
    Legacy("R8G8_B8G8", FOURCC, b"RGBG", 0, (0, 0, 0, 0), 68),
    Legacy("G8R8_G8B8", FOURCC, b"GRGB", 0, (0, 0, 0, 0), 69),
    Legacy("A8R8G8B8", RGBA, 0, 32, (0xFF0000, 0xFF00, 0xFF, 0xFF000000), 87),
    Legacy("X8R8G8B8", RGB, 0, 32, (0xFF0000, 0xFF00, 0xFF, 0), 88),
    Legacy("A8B8G8R8", RGBA, 0, 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000), 28),
    Legacy("X8B8G8R8", RGB, 0, 32, (0xFF, 0xFF00, 0xFF0000, 0), 28),
    Legacy("G16R16", RGB, 0, 32, (0xFFFF, 0xFFFF0000, 0, 0), 35),
    Legacy("A2R10G10B10", RGBA, 0, 32, (0x3FF, 0xFFC00, 0x3FF00000, 0xC0000000), 24),
    Legacy("A2B10G10R10", RGBA, 0, 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000), 24),
    Legacy("R8G8B8", RGB, 0, 24, (0xFF0000, 0xFF00, 0xFF, 0), 28, 24),
    Legacy("R5G6B5", RGB, 0, 16, (0xF800, 0x7E0, 0x1F, 0), 85),
    Legacy("A1R5G5B5", RGBA, 0, 16, (0x7C00, 0x3E0, 0x1F, 0x8000), 86),
    Legacy("X1R5G5B5", RGB, 0, 16, (0x7C00, 0x3E0, 0x1F, 0), 86),
    Legacy("A8R3G3B2", RGBA, 0, 16, (0xE0, 0x1C, 0x3, 0xFF00), 28, 16),
    Legacy("R3G3B2", RGB, 0, 8, (0xE0, 0x1C, 0x3, 0), 85, 8),
    Legacy("L8", LUM, 0, 8, (0xFF, 0, 0, 0), 61),
    Legacy("L16", LUM, 0, 16, (0xFFFF, 0, 0, 0), 56),
    Legacy("A8L8", LUMA, 0, 16, (0xFF, 0, 0, 0xFF00), 49),
    Legacy("A8L8_ALT", LUMA, 0, 8, (0xFF, 0, 0, 0xFF00), 49),
    Legacy("L8_NVTT1", RGB, 0, 8, (0xFF, 0, 0, 0), 61),
    Legacy("L16_NVTT1", RGB, 0, 16, (0xFFFF, 0, 0, 0), 56),
    Legacy("A8L8_NVTT1", RGBA, 0, 16, (0xFF, 0, 0, 0xFF00), 49),
    Legacy("A8", ALPHA, 0, 8, (0, 0, 0, 0xFF), 65),
    Legacy("A16B16G16R16", FOURCC, 36, 0, (0, 0, 0, 0), 11),
    Legacy("Q16W16V16U16", FOURCC, 110, 0, (0, 0, 0, 0), 13),
    Legacy("R16F", FOURCC, 111, 0, (0, 0, 0, 0), 54),
    Legacy("G16R16F", FOURCC, 112, 0, (0, 0, 0, 0), 34),
    Legacy("A16B16G16R16F", FOURCC, 113, 0, (0, 0, 0, 0), 10),
    Legacy("R32F", FOURCC, 114, 0, (0, 0, 0, 0), 41),
    Legacy("G32R32F", FOURCC, 115, 0, (0, 0, 0, 0), 16),
    Legacy("A32B32G32R32F", FOURCC, 116, 0, (0, 0, 0, 0), 2),
    Legacy("R32F_RGB", RGB, 0, 32, (0xFFFFFFFF, 0, 0, 0), 41),
    Legacy("A8P8", PAL8A, 0, 16, (0, 0, 0, 0xFF00), 28, 16),
    Legacy("P8", PAL8, 0, 8, (0, 0, 0, 0), 28, 8),
    Legacy("A4R4G4B4", RGBA, 0, 16, (0xF00, 0xF0, 0xF, 0xF000), 115),
    Legacy("X4R4G4B4", RGB, 0, 16, (0xF00, 0xF0, 0xF, 0), 115),
    Legacy("A4L4", LUMA, 0, 8, (0xF, 0, 0, 0xF0), 115, 8),
    Legacy("YUY2", FOURCC, b"YUY2", 0, (0, 0, 0, 0), 107),
    Legacy("UYVY", FOURCC, b"UYVY", 0, (0, 0, 0, 0), 107),
    Legacy("V8U8", BUMPDUDV, 0, 16, (0xFF, 0xFF00, 0, 0), 51),
    Legacy("Q8W8V8U8", BUMPDUDV, 0, 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000), 31),
    Legacy("V16U16", BUMPDUDV, 0, 32, (0xFFFF, 0xFFFF0000, 0, 0), 37),
    Legacy("L6V5U5", BUMPLUM, 0, 16, (0x1F, 0x3E0, 0xFC00, 0), 28, 16),
    Legacy("X8L8V8U8", BUMPLUM, 0, 32, (0xFF, 0xFF00, 0xFF0000, 0), 28),
    Legacy("A2W10V10U10", BUMPDUDVA, 0, 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000), 24),
)
#: The palette (256 32-bit entries) DirectXTex reads after the header of a P8 / A8P8 file.
PALETTE_BYTES = 1024
