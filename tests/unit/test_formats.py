"""The format table: block sizes against vk.xml, and lookups by every id kind."""

from __future__ import annotations

import pytest

from texbudget import formats
from texbudget.formats import ASTC_BLOCKS

# (canonical name, block w, h, bytes per block) — vk.xml blockExtent / blockSize
BLOCKS = [
    ("BC1_RGB_UNORM", 4, 4, 8), ("BC1_RGBA_SRGB", 4, 4, 8), ("BC2_UNORM", 4, 4, 16),
    ("BC3_SRGB", 4, 4, 16), ("BC4_SNORM", 4, 4, 8), ("BC5_UNORM", 4, 4, 16),
    ("BC6H_SFLOAT", 4, 4, 16), ("BC7_SRGB", 4, 4, 16), ("ETC1_R8G8B8_UNORM", 4, 4, 8),
    ("ETC2_R8G8B8_UNORM", 4, 4, 8), ("ETC2_R8G8B8A1_SRGB", 4, 4, 8),
    ("ETC2_R8G8B8A8_UNORM", 4, 4, 16), ("EAC_R11_SNORM", 4, 4, 8), ("EAC_R11G11_UNORM", 4, 4, 16),
    ("PVRTC1_2BPP_UNORM", 8, 4, 8), ("PVRTC1_4BPP_SRGB", 4, 4, 8),
    ("R8_UNORM", 1, 1, 1), ("R8G8_UNORM", 1, 1, 2), ("R8G8B8A8_SRGB", 1, 1, 4),
    ("B8G8R8A8_UNORM", 1, 1, 4), ("R16_SFLOAT", 1, 1, 2), ("R16G16_UNORM", 1, 1, 4),
    ("R16G16B16A16_SFLOAT", 1, 1, 8), ("R32G32B32A32_SFLOAT", 1, 1, 16),
    ("B10G11R11_UFLOAT", 1, 1, 4), ("E5B9G9R9_UFLOAT", 1, 1, 4), ("A2B10G10R10_UNORM", 1, 1, 4),
    ("D16_UNORM", 1, 1, 2), ("D32_SFLOAT", 1, 1, 4), ("D24_UNORM_S8_UINT", 1, 1, 4),
    ("D32_SFLOAT_S8_UINT", 1, 1, 8),
]


@pytest.mark.parametrize(("name", "bw", "bh", "bpb"), BLOCKS)
def test_block_sizes(name, bw, bh, bpb):
    f = formats.get(name)
    assert (f.block_width, f.block_height, f.bytes_per_block) == (bw, bh, bpb)


def test_every_astc_block_in_three_variants():
    for i, (bw, bh) in enumerate(ASTC_BLOCKS):
        for kind, vk in (("UNORM", 157 + 2 * i), ("SRGB", 158 + 2 * i), ("SFLOAT", 1000066000 + i)):
            f = formats.get(f"ASTC_{bw}x{bh}_{kind}")
            assert (f.block_width, f.block_height, f.bytes_per_block, f.vk_format) == (bw, bh, 16, vk)
    assert formats.by_vk(157).name == "ASTC_4x4_UNORM"
    assert formats.by_vk(184).name == "ASTC_12x12_SRGB"
    assert formats.get("ASTC_6x6_SFLOAT").hdr


def test_names_are_unique_and_vk_names_consistent():
    names = [f.name for f in formats.all_formats()]
    assert len(names) == len(set(names))
    suffixes = ("_BLOCK_IMG", "_BLOCK", "_PACK16", "_PACK32")
    for f in formats.all_formats():
        if f.vk_name:
            stripped = f.vk_name.removeprefix("VK_FORMAT_")
            for s in suffixes:
                stripped = stripped.removesuffix(s)
            assert stripped == f.name


@pytest.mark.parametrize(("code", "name"), [
    (37, "R8G8B8A8_UNORM"), (43, "R8G8B8A8_SRGB"), (97, "R16G16B16A16_SFLOAT"),
    (122, "B10G11R11_UFLOAT"), (130, "D32_SFLOAT_S8_UINT"), (131, "BC1_RGB_UNORM"),
    (134, "BC1_RGBA_SRGB"), (143, "BC6H_UFLOAT"), (146, "BC7_SRGB"), (147, "ETC2_R8G8B8_UNORM"),
    (156, "EAC_R11G11_SNORM"), (1000054001, "PVRTC1_4BPP_UNORM"), (1000054004, "PVRTC1_2BPP_SRGB"),
])
def test_by_vk(code, name):
    assert formats.by_vk(code).name == name


@pytest.mark.parametrize(("code", "name"), [
    (2, "R32G32B32A32_SFLOAT"), (10, "R16G16B16A16_SFLOAT"), (24, "A2B10G10R10_UNORM"),
    (26, "B10G11R11_UFLOAT"), (28, "R8G8B8A8_UNORM"), (29, "R8G8B8A8_SRGB"),
    (61, "R8_UNORM"), (71, "BC1_RGBA_UNORM"), (72, "BC1_RGBA_SRGB"), (77, "BC3_UNORM"),
    (80, "BC4_UNORM"), (84, "BC5_SNORM"), (87, "B8G8R8A8_UNORM"), (88, "B8G8R8A8_UNORM"),
    (95, "BC6H_UFLOAT"), (96, "BC6H_SFLOAT"), (98, "BC7_UNORM"), (99, "BC7_SRGB"),
    (97, "BC7_UNORM"), (27, "R8G8B8A8_UNORM"), (20, "D32_SFLOAT_S8_UINT"),
])
def test_by_dxgi(code, name):
    assert formats.by_dxgi(code).name == name


@pytest.mark.parametrize(("code", "name"), [
    (0x83F0, "BC1_RGB_UNORM"), (0x83F1, "BC1_RGBA_UNORM"), (0x83F3, "BC3_UNORM"),
    (0x8C4F, "BC3_SRGB"), (0x8DBD, "BC5_UNORM"), (0x8E8C, "BC7_UNORM"), (0x8E8F, "BC6H_UFLOAT"),
    (0x9274, "ETC2_R8G8B8_UNORM"), (0x9278, "ETC2_R8G8B8A8_UNORM"), (0x93B0, "ASTC_4x4_UNORM"),
    (0x93B4, "ASTC_6x6_UNORM"), (0x93DD, "ASTC_12x12_SRGB"), (0x8D64, "ETC1_R8G8B8_UNORM"),
    (0x8058, "R8G8B8A8_UNORM"), (0x881A, "R16G16B16A16_SFLOAT"), (0x8C00, "PVRTC1_4BPP_UNORM"),
    (0x8C02, "PVRTC1_4BPP_UNORM"),
])
def test_by_gl(code, name):
    assert formats.by_gl(code).name == name


@pytest.mark.parametrize(("cc", "name"), [
    ("DXT1", "BC1_RGBA_UNORM"), ("DXT2", "BC2_UNORM"), ("DXT3", "BC2_UNORM"),
    ("DXT4", "BC3_UNORM"), ("DXT5", "BC3_UNORM"), ("ATI1", "BC4_UNORM"), ("BC4U", "BC4_UNORM"),
    ("BC4S", "BC4_SNORM"), ("ATI2", "BC5_UNORM"), ("BC5U", "BC5_UNORM"), ("BC5S", "BC5_SNORM"),
    ("BC6H", "BC6H_UFLOAT"), ("BC7L", "BC7_UNORM"), (b"BC7\0", "BC7_UNORM"),
])
def test_by_fourcc(cc, name):
    assert formats.by_fourcc(cc).name == name


@pytest.mark.parametrize(("code", "name"), [
    (36, "R16G16B16A16_UNORM"), (110, "R16G16B16A16_SNORM"), (111, "R16_SFLOAT"),
    (112, "R16G16_SFLOAT"), (113, "R16G16B16A16_SFLOAT"), (114, "R32_SFLOAT"),
    (115, "R32G32_SFLOAT"), (116, "R32G32B32A32_SFLOAT"),
])
def test_by_d3dfmt(code, name):
    assert formats.by_d3dfmt(code).name == name


@pytest.mark.parametrize(("alias", "name"), [
    ("BC7", "BC7_UNORM"), ("bc7_srgb", "BC7_SRGB"), ("DXT1", "BC1_RGBA_UNORM"), ("BC1", "BC1_RGB_UNORM"),
    ("DXT5", "BC3_UNORM"), ("RGBA8", "R8G8B8A8_UNORM"), ("RGBA16F", "R16G16B16A16_SFLOAT"),
    ("ATI2", "BC5_UNORM"), ("astc_4x4", "ASTC_4x4_UNORM"), ("VK_FORMAT_BC7_SRGB_BLOCK", "BC7_SRGB"),
    ("DXGI_FORMAT_BC7_UNORM_SRGB", "BC7_SRGB"), ("BC6H_UF16", "BC6H_UFLOAT"),
    ("R11G11B10F", "B10G11R11_UFLOAT"), ("D32S8", "D32_SFLOAT_S8_UINT"), ("etc2-rgba", "ETC2_R8G8B8A8_UNORM"),
    ("PVRTC1_4BPP", "PVRTC1_4BPP_UNORM"), ("R8G8B8A8_UNORM_SRGB", "R8G8B8A8_SRGB"),
])
def test_aliases(alias, name):
    assert formats.get(alias).name == name


def test_unknown_and_nearest():
    assert formats.find("BC9") is None
    with pytest.raises(KeyError):
        formats.get("BC9")
    assert "BC7_UNORM" in formats.nearest("BC7_UNROM")
    assert formats.by_vk(999999) is None and formats.by_dxgi(9999) is None


def test_transcodable_pseudo_formats():
    assert formats.get("ETC1S").transcodable and formats.get("UASTC").transcodable
    assert formats.get("UASTC").bytes_per_block == 16
    assert formats.get("UASTC").vk_format is None


def test_with_srgb():
    assert formats.with_srgb(formats.get("BC7_UNORM"), True).name == "BC7_SRGB"
    assert formats.with_srgb(formats.get("BC7_SRGB"), False).name == "BC7_UNORM"
    assert formats.with_srgb(formats.get("BC5_UNORM"), True).name == "BC5_UNORM"
    assert formats.with_srgb(formats.get("ASTC_6x6_UNORM"), True).name == "ASTC_6x6_SRGB"


def test_bits_per_pixel():
    assert formats.get("ASTC_12x12_UNORM").bits_per_pixel == pytest.approx(0.8889, abs=1e-4)
    assert formats.get("BC1_RGB_UNORM").bits_per_pixel == 4
    assert formats.get("PVRTC1_2BPP_UNORM").bits_per_pixel == 2
