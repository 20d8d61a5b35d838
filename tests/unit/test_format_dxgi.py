"""The DXGI rows against DirectXTex: every DXGI_FORMAT it sizes has a row, and a row's level
bytes are what DirectXTex's ``ComputePitch`` gives (the slice pitch), except the
deliberate differences ``format_table.REFERENCE_DIFFERENCES`` lists.

Oracle: ``tests/directxtex.py``, DirectXTex's ``BitsPerPixel`` and ``ComputePitch``
(DirectXTex/DirectXTexUtil.cpp at 0bb96f0) restated.
"""

from __future__ import annotations

import pytest

from tests.directxtex import BC_8, BC_16, BITS_PER_PIXEL, directxtex_slice
from texbudget import format_table, formats
from texbudget.sizing.textures import level_bytes

SIZES = [*range(1, 18), 31, 64, 100, 257, 1000]


def test_every_dxgi_format_directxtex_sizes_has_a_row():
    assert len(BITS_PER_PIXEL) == 126
    assert set(format_table.DXGI_FORMATS) == set(BITS_PER_PIXEL)
    for code in BITS_PER_PIXEL:
        assert formats.by_dxgi(code) is not None, code
    assert formats.by_dxgi(0) is None and formats.by_dxgi(121) is None and formats.by_dxgi(192) is None


@pytest.mark.parametrize("code", sorted(BITS_PER_PIXEL))
def test_level_bytes_are_directxtex_slices(code):
    f = formats.by_dxgi(code)
    difference = format_table.REFERENCE_DIFFERENCES.get(f.name)
    compared = 0
    for w in SIZES:
        for h in SIZES:
            want = directxtex_slice(code, w, h)
            if want is None:
                continue
            got = level_bytes(f, w, h)
            if difference is not None and difference.reference == "DirectXTex" and difference.when == "odd heights" and h % 2:
                assert got > want, (f.name, w, h)  # texbudget rounds up; it never counts less
                continue
            assert got == want, (f.name, w, h, got, want)
            compared += 1
    assert compared >= len(SIZES) ** 2 // 2


def test_directxtex_differences_are_real():
    listed = {n for n, d in format_table.REFERENCE_DIFFERENCES.items() if d.reference == "DirectXTex" and not n.startswith("D3DFMT_")}
    assert listed == {"V408", "XBOX_D16_UNORM_S8_UINT"}
    assert level_bytes(formats.get("V408"), 10, 5) == 150 != directxtex_slice(132, 10, 5) == 130
    assert level_bytes(formats.get("XBOX_D16_UNORM_S8_UINT"), 10, 5) == 180 != directxtex_slice(118, 10, 5) == 160


def test_bits_per_pixel_of_plain_rows_is_directxtex_bits_per_pixel():
    """Outside the packed, planar and BC formats (whose BitsPerPixel counts a pair of texels
    or an average), a texel is BitsPerPixel bits: the row's bits per pixel is the same."""
    special = BC_8 | BC_16 | {68, 69, 107, 108, 109, 103, 104, 105, 106, 110, 118, 119, 120, 130, 131, 132}
    for code, bits in BITS_PER_PIXEL.items():
        f = formats.by_dxgi(code)
        if code in special:
            continue
        assert f.bits_per_pixel == bits, (code, f.name)
    assert formats.get("YUY2").bytes_per_block * 8 == BITS_PER_PIXEL[107]  # BitsPerPixel of a pair
    assert formats.get("NV12").bits_per_pixel == BITS_PER_PIXEL[103] == 12
    assert formats.get("P010").bits_per_pixel == BITS_PER_PIXEL[104] == 24
    assert formats.get("NV11").bits_per_pixel == 16 != BITS_PER_PIXEL[110]  # ComputePitch's pitch rule


def test_dxgi_twins_of_vulkan_rows_have_their_size():
    """A row's ``dxgi_format`` (the DXGI format of its layout) is a DXGI row of the same size."""
    twins = 0
    for f in formats.all_formats():
        if f.dxgi_format is None:
            continue
        twin = formats.by_dxgi(f.dxgi_format)
        assert (twin.block_width, twin.block_height, twin.bytes_per_block) == (f.block_width, f.block_height, f.bytes_per_block), f.name
        assert f.dxgi_name == format_table.dxgi_name(f.dxgi_format)
        twins += 1
    assert twins == 98


@pytest.mark.parametrize(("code", "name"), [
    (85, "R5G6B5_UNORM"), (86, "A1R5G5B5_UNORM"), (115, "A4R4G4B4_UNORM"), (191, "R4G4B4A4_UNORM"),
    (24, "A2B10G10R10_UNORM"), (25, "A2B10G10R10_UINT"), (65, "A8_UNORM"), (30, "R8G8B8A8_UINT"),
    (103, "NV12"), (107, "YUY2"), (66, "R1_UNORM"), (106, "420_OPAQUE"), (21, "D32_SFLOAT_S8_UINT"),
    (46, "D24_UNORM_S8_UINT"), (5, "R32G32B32_SFLOAT"), (118, "XBOX_D16_UNORM_S8_UINT"),
    (119, "XBOX_D16_UNORM_S8_UINT"), (189, "XBOX_R10G10B10_SNORM_A2_UNORM"), (190, "XBOX_R4G4_UNORM"),
])
def test_dxgi_numbers(code, name):
    assert formats.by_dxgi(code).name == name
