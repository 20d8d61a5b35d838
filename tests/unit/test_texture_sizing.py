"""Exact texture sizes against spec/textures.md §7 and the KTX developer guide."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from texbudget import formats
from texbudget.sizing.textures import (
    allocated_bytes,
    cap_levels,
    chain_bytes,
    full_mip_count,
    level_bytes,
    mip_chain,
    small_alignment_ok,
)

# spec/textures.md §7: (format, w, h, d, mips, faces, layers, levels, exact bytes)
VECTORS = [
    ("BC1_RGB_UNORM", 1024, 1024, 1, False, 1, 1, 1, 524288),
    ("BC1_RGB_UNORM", 1024, 1024, 1, True, 1, 1, 11, 699064),
    ("BC1_RGB_UNORM", 1, 1, 1, False, 1, 1, 1, 8),
    ("BC7_UNORM", 3, 3, 1, True, 1, 1, 2, 32),
    ("BC7_UNORM", 4096, 4096, 1, True, 1, 1, 13, 22369648),
    ("BC7_UNORM", 2048, 1024, 1, True, 1, 1, 12, 2796240),
    ("BC3_UNORM", 1000, 600, 1, True, 1, 1, 10, 801488),
    ("BC5_UNORM", 2048, 2048, 1, True, 1, 1, 12, 5592432),
    ("BC4_UNORM", 4096, 4096, 1, True, 1, 16, 13, 178957184),
    ("BC6H_UFLOAT", 512, 512, 1, True, 6, 1, 10, 2097312),
    ("BC6H_UFLOAT", 256, 256, 1, True, 6, 4, 9, 2097792),
    ("R8G8B8A8_UNORM", 1920, 1080, 1, False, 1, 1, 1, 8294400),
    ("R8G8B8A8_SRGB", 256, 256, 1, True, 1, 4, 9, 1398096),
    ("R16G16B16A16_SFLOAT", 2560, 1440, 1, False, 1, 1, 1, 29491200),
    ("R32G32B32A32_SFLOAT", 64, 64, 64, True, 1, 1, 7, 4793488),
    ("B10G11R11_UFLOAT", 3840, 2160, 1, False, 1, 1, 1, 33177600),
    ("D32_SFLOAT_S8_UINT", 3840, 2160, 1, False, 1, 1, 1, 66355200),
    ("R8_UNORM", 1, 1, 1, False, 1, 1, 1, 1),
    ("ETC2_R8G8B8_UNORM", 512, 512, 1, True, 1, 1, 10, 174776),
    ("ETC2_R8G8B8A8_UNORM", 1024, 1024, 1, True, 1, 1, 11, 1398128),
    ("EAC_R11G11_UNORM", 256, 256, 1, False, 1, 1, 1, 65536),
    ("ASTC_4x4_UNORM", 2048, 2048, 1, True, 1, 1, 12, 5592432),
    ("ASTC_6x6_UNORM", 1000, 1000, 1, True, 1, 1, 10, 597152),
    ("ASTC_8x8_UNORM", 1024, 512, 1, True, 1, 1, 11, 174816),
    ("ASTC_12x12_UNORM", 100, 100, 1, True, 1, 1, 7, 1904),
    ("PVRTC1_4BPP_UNORM", 1024, 1024, 1, True, 1, 1, 11, 699136),
    ("PVRTC1_2BPP_UNORM", 512, 512, 1, True, 1, 1, 10, 87488),
]


@pytest.mark.parametrize(("name", "w", "h", "d", "mips", "faces", "layers", "levels", "expected"), VECTORS)
def test_reference_vectors(name, w, h, d, mips, faces, layers, levels, expected):
    fmt = formats.get(name)
    chain = mip_chain(fmt, w, h, d, levels=None if mips else 1, faces=faces, layers=layers)
    assert len(chain) == levels
    assert sum(m.bytes for m in chain) == expected


def _detail(name, w, h, d=1):
    return [(m.width, m.height, m.bytes) for m in mip_chain(formats.get(name), w, h, d)]


def test_bc3_1000x600_levels():
    assert _detail("BC3_UNORM", 1000, 600) == [
        (1000, 600, 600000), (500, 300, 150000), (250, 150, 38304), (125, 75, 9728),
        (62, 37, 2560), (31, 18, 640), (15, 9, 192), (7, 4, 32), (3, 2, 16), (1, 1, 16),
    ]


def test_astc_6x6_1000_levels():
    assert [b for _, _, b in _detail("ASTC_6x6_UNORM", 1000, 1000)] == [
        446224, 112896, 28224, 7056, 1936, 576, 144, 64, 16, 16,
    ]


def test_pvrtc_4bpp_tail_is_32_bytes():
    assert _detail("PVRTC1_4BPP_UNORM", 1024, 1024)[-5:] == [
        (16, 16, 128), (8, 8, 32), (4, 4, 32), (2, 2, 32), (1, 1, 32),
    ]


def test_pvrtc_2bpp_minimum_matches_webgl_formula():
    fmt = formats.get("PVRTC1_2BPP_UNORM")
    for w, h in [(1, 1), (8, 8), (16, 8), (32, 4), (64, 64), (2, 128)]:
        assert level_bytes(fmt, w, h) == max(w, 16) * max(h, 8) // 4
    fmt4 = formats.get("PVRTC1_4BPP_UNORM")
    for w, h in [(1, 1), (4, 4), (8, 8), (16, 2), (64, 64)]:
        assert level_bytes(fmt4, w, h) == max(w, 8) * max(h, 8) // 2


def test_rgba32f_volume_depth_halves():
    chain = mip_chain(formats.get("R32G32B32A32_SFLOAT"), 64, 64, 64)
    assert [m.bytes for m in chain] == [4194304, 524288, 65536, 8192, 1024, 128, 16]
    assert [m.depth for m in chain] == [64, 32, 16, 8, 4, 2, 1]


def test_ktx_developer_guide_100x200_block_table():
    # KTXDeveloperGuide.md: 4x4-block counts per level of a 100x200 texture.
    fmt = formats.get("BC7_UNORM")
    blocks = [(m.width + 3) // 4 * ((m.height + 3) // 4) for m in mip_chain(fmt, 100, 200)]
    assert blocks == [25 * 50, 13 * 25, 7 * 13, 3 * 7, 2 * 3, 1 * 2, 1 * 1, 1 * 1]
    assert [m.bytes for m in mip_chain(fmt, 100, 200)] == [b * 16 for b in blocks]


def test_full_mip_count():
    assert full_mip_count(2048, 1024) == 12
    assert full_mip_count(1000, 600) == 10
    assert full_mip_count(1, 1) == 1
    assert full_mip_count(4, 4, 64) == 7


def test_first_level_drops_top_mips_and_renumbers():
    fmt = formats.get("BC7_UNORM")
    chain = mip_chain(fmt, 4096, 4096, first_level=1)
    assert chain[0].level == 0 and chain[0].width == 2048
    assert len(chain) == 12
    assert sum(m.bytes for m in chain) == 22369648 - 16777216
    assert len(mip_chain(fmt, 4096, 4096, levels=1, first_level=3)) == 1  # never below one level


def test_cap_levels():
    assert cap_levels(4096, 4096, 1, 13, 2048) == 1
    assert cap_levels(4096, 2048, 1, 13, 1024) == 2
    assert cap_levels(512, 512, 1, 10, 2048) == 0
    assert cap_levels(4096, 4096, 1, 1, 256) == 0  # a single level is never dropped
    assert cap_levels(4096, 4096, 1, 13, None) == 0


# D3D12 small-resource rule examples, spec/textures.md §3.1
@pytest.mark.parametrize(("name", "size", "ok"), [
    ("BC1_RGBA_UNORM", 256, True), ("BC1_RGBA_UNORM", 512, False),
    ("BC7_UNORM", 256, True), ("BC7_UNORM", 512, False),
    ("R8G8B8A8_UNORM", 128, True), ("R8G8B8A8_UNORM", 256, False),
    ("R8_UNORM", 256, True), ("R16G16B16A16_SFLOAT", 64, True),
    ("R16G16B16A16_SFLOAT", 128, False),
])
def test_small_alignment_examples(name, size, ok):
    assert small_alignment_ok(formats.get(name), size, size) is ok


def test_allocated_bytes():
    bc7 = formats.get("BC7_UNORM")
    small = chain_bytes(bc7, 256, 256)  # 87,376
    assert allocated_bytes(bc7, 256, 256, 1, small) == 90112  # 22 x 4 KiB
    big = chain_bytes(bc7, 512, 512)  # 349,536
    assert allocated_bytes(bc7, 512, 512, 1, big) == 393216  # 6 x 64 KiB
    assert allocated_bytes(bc7, 512, 512, 1, big, model="none") == big
    rgba = formats.get("R8G8B8A8_UNORM")
    assert allocated_bytes(rgba, 128, 128, 1, 65536, render_target=True) == 65536
    assert allocated_bytes(rgba, 128, 128, 1, 65537, render_target=True) == 131072
    assert allocated_bytes(rgba, 1920, 1080, 1, 8294400 * 4, samples=4, render_target=True) == 8 * 4 * 1024 * 1024
    with pytest.raises(ValueError, match="allowed: d3d12, none"):
        allocated_bytes(rgba, 1, 1, 1, 4, model="vulkan")


def _independent_total(fmt, w, h, levels):
    """DirectXTex-style loop: halve every dimension > 1, count whole blocks."""
    total, level = 0, 0
    while True:
        bx = max(fmt.min_blocks_x, (w + fmt.block_width - 1) // fmt.block_width)
        by = max(fmt.min_blocks_y, (h + fmt.block_height - 1) // fmt.block_height)
        total += bx * by * fmt.bytes_per_block
        level += 1
        if level == levels or (w == 1 and h == 1):
            return total, level
        w, h = max(1, w // 2), max(1, h // 2)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(formats.all_formats()), st.integers(1, 9000), st.integers(1, 9000))
def test_sum_of_levels_matches_independent_loop(fmt, w, h):
    total, count = _independent_total(fmt, w, h, levels=0)
    chain = mip_chain(fmt, w, h)
    assert len(chain) == count
    assert sum(m.bytes for m in chain) == total


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(formats.all_formats()), st.integers(1, 9000), st.integers(1, 9000),
       st.integers(0, 5), st.sampled_from([None, 16, 256, 1024, 2048, 4096]))
def test_drops_and_caps_never_grow(fmt, w, h, drop, cap):
    full = chain_bytes(fmt, w, h)
    levels = full_mip_count(w, h)
    capped = cap_levels(w, h, 1, levels, cap)
    assert chain_bytes(fmt, w, h, first_level=drop) <= full
    assert chain_bytes(fmt, w, h, first_level=capped) <= full
    assert chain_bytes(fmt, w, h, first_level=capped + drop) <= chain_bytes(fmt, w, h, first_level=capped)
    assert len(mip_chain(fmt, w, h, first_level=capped + drop)) >= 1


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(formats.all_formats()), st.integers(1, 9000), st.integers(1, 9000), st.integers(1, 64),
       st.integers(1, 6), st.integers(1, 4), st.integers(0, 3))
def test_each_level_is_level_dims_and_level_bytes(fmt, w, h, d, faces, layers, first):
    # mip_chain works the levels out inline; each must be what the two functions give
    from texbudget.sizing.textures import level_dims

    for k, level in enumerate(mip_chain.__wrapped__(fmt, w, h, d, None, faces, layers, first)):
        dims = level_dims(w, h, d, k + first)
        assert (level.level, level.width, level.height, level.depth) == (k, *dims)
        assert level.bytes == level_bytes(fmt, *dims) * faces * layers


# --- blocks of the whole table: 3D ASTC, 4:2:2, planar video, PVRTC2 -----------------------


def test_astc_3d_chain_divides_depth_in_blocks():
    """ASTC 3x3x3 64^3, full chain (KTX2 levelImages: num_blocks_z = ceil(d_i / 3)):
    22^3, 11^3, 6^3, 3^3, 2^3, 1, 1 blocks of 16 bytes."""
    chain = mip_chain(formats.get("ASTC_3x3x3_UNORM"), 64, 64, 64)
    assert [m.bytes for m in chain] == [170368, 21296, 3456, 432, 128, 16, 16]
    assert [m.depth for m in chain] == [64, 32, 16, 8, 4, 2, 1]


def test_astc_3d_block_depth_on_a_flat_texture():
    """A 2D image in a 3D-block format is one block deep: 4x4x4 on 16x16x1 = 4x4x1 blocks."""
    assert level_bytes(formats.get("ASTC_4x4x4_UNORM"), 16, 16, 1) == 16 * 16
    assert level_bytes(formats.get("ASTC_6x6x5_SRGB"), 100, 50, 7) == 17 * 9 * 2 * 16


@pytest.mark.parametrize(("name", "w", "h", "expected"), [
    ("G8B8G8R8_422_UNORM", 7, 3, 4 * 3 * 4),  # pairs of texels: ceil(7/2) = 4 blocks a row
    ("G16B16G16R16_422_UNORM", 8, 8, 4 * 8 * 8),
    ("NV12", 1920, 1080, 1920 * 1080 * 3 // 2),  # 3110400: Y plane + half-size UV plane
    ("P010", 1920, 1080, 1920 * 1080 * 3),
    ("NV11", 10, 2, 3 * 2 * 8),
    ("R1_UNORM", 9, 3, 2 * 3),
    ("PVRTC2_4BPP_UNORM", 1, 1, 8),  # no 2x2-block minimum (IMG_texture_compression_pvrtc2)
    ("PVRTC2_2BPP_UNORM", 17, 5, 3 * 2 * 8),
])
def test_block_shapes(name, w, h, expected):
    assert level_bytes(formats.get(name), w, h) == expected


def test_alignment_tiles_count_blocks():
    """D3D12's small-alignment test counts blocks: a 3D ASTC volume 64^3 in 3x3x3 blocks is
    22^3 units of 128 bits, 3x3x6 = 54 tiles of 8x8x4 (> 16, 64 KiB); YUY2 256x64 is 128x64
    units of 32 bits, 4x2 = 8 tiles of 32x32 (4 KiB)."""
    assert not small_alignment_ok(formats.get("ASTC_3x3x3_UNORM"), 64, 64, 64)
    assert small_alignment_ok(formats.get("ASTC_3x3x3_UNORM"), 24, 24, 24)  # 8^3 units: 1x1x2 tiles
    assert small_alignment_ok(formats.get("G8B8G8R8_422_UNORM"), 256, 64)
    assert not small_alignment_ok(formats.get("G8B8G8R8_422_UNORM"), 512, 128)  # 256x128 units: 8x4 = 32
    assert not small_alignment_ok(formats.get("NV12"), 16, 16)  # 48-bit blocks: no standard tile
