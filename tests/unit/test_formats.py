"""The format table: block sizes against vk.xml, and lookups by every id kind."""

from __future__ import annotations

import pytest

from texbudget import format_table, formats
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
    suffixes = ("_IMG", "_EXT", "_KHR", "_NV", "_ARM", "_BLOCK", "_PACK8", "_PACK16", "_PACK32", "_2PACK16", "_4PACK16")
    for f in formats.all_formats():
        if f.vk_name:
            stripped = f.vk_name.removeprefix("VK_FORMAT_")
            for s in suffixes:
                stripped = stripped.removesuffix(s)
            assert stripped == f.name
    assert formats.get("PVRTC2_4BPP_SRGB").vk_name == "VK_FORMAT_PVRTC2_4BPP_SRGB_BLOCK_IMG"
    assert formats.get("R10X6G10X6_UINT").vk_name == "VK_FORMAT_R10X6G10X6_UINT_2PACK16_ARM"


def test_every_family_is_listed_and_used():
    used = {f.family for f in formats.all_formats()}
    assert used == set(formats.FAMILIES)
    # what the policy and the budget's fixes read: only "uncompressed" rows get a compression fix
    assert formats.get("R8G8B8A8_UINT").family == "integer" and formats.get("R32_UINT").family == "integer"
    assert formats.get("R64_SFLOAT").family == "uncompressed" and formats.get("R8_BOOL").family == "integer"
    assert formats.get("G8B8G8R8_422_UNORM").family == "video" and formats.get("NV12").family == "video"
    assert formats.get("D16_UNORM_S8_UINT").family == "depth" and formats.get("XBOX_D16_UNORM_S8_UINT").family == "depth"
    assert formats.get("PVRTC2_2BPP_UNORM").family == "pvrtc2"


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
    (0x8C02, "PVRTC1_4BPP_UNORM"), (0x9137, "PVRTC2_2BPP_UNORM"), (0x93F1, "PVRTC2_4BPP_SRGB"),
    (0x93C0, "ASTC_3x3x3_UNORM"), (0x93E9, "ASTC_6x6x6_SRGB"), (0x8232, "R8_UINT"), (0x906F, "A2B10G10R10_UINT"),
    (0x8FBD, "R8_SRGB"), (0x8056, "R4G4B4A4_UNORM"), (0x8057, "A1R5G5B5_UNORM"), (0x8051, "R8G8B8_UNORM"),
])
def test_by_gl(code, name):
    assert formats.by_gl(code).name == name


def test_gl_codes_are_on_one_row_each():
    codes = [f.gl_internal_format for f in formats.all_formats() if f.gl_internal_format is not None]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize(("cc", "name"), [
    ("DXT1", "BC1_RGBA_UNORM"), ("DXT2", "BC2_UNORM"), ("DXT3", "BC2_UNORM"),
    ("DXT4", "BC3_UNORM"), ("DXT5", "BC3_UNORM"), ("ATI1", "BC4_UNORM"), ("BC4U", "BC4_UNORM"),
    ("BC4S", "BC4_SNORM"), ("ATI2", "BC5_UNORM"), ("BC5U", "BC5_UNORM"), ("BC5S", "BC5_SNORM"),
    ("BC6H", "BC6H_UFLOAT"), ("BC7L", "BC7_UNORM"), (b"BC7\0", "BC7_UNORM"), ("xGBR", "BC3_UNORM"),
    ("RXGB", "BC3_UNORM"), ("A2XY", "BC5_UNORM"), ("RGBG", "R8G8_B8G8_UNORM"), ("GRGB", "G8R8_G8B8_UNORM"),
    ("YUY2", "YUY2"), ("UYVY", "YUY2"),
])
def test_by_fourcc(cc, name):
    assert formats.by_fourcc(cc).name == name


@pytest.mark.parametrize(("code", "name"), [
    (36, "R16G16B16A16_UNORM"), (110, "R16G16B16A16_SNORM"), (111, "R16_SFLOAT"),
    (112, "R16G16_SFLOAT"), (113, "R16G16B16A16_SFLOAT"), (114, "R32_SFLOAT"),
    (115, "R32G32_SFLOAT"), (116, "R32G32B32A32_SFLOAT"), (117, "R8G8_SNORM"), (82, "D32_SFLOAT"),
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


@pytest.mark.parametrize(("text", "name"), [
    ("VK_FORMAT_B5G6R5_UNORM_PACK16", "B5G6R5_UNORM"), ("vk:5", "B5G6R5_UNORM"), ("5", "B5G6R5_UNORM"),
    ("DXGI_FORMAT_B5G6R5_UNORM", "R5G6B5_UNORM"), ("dxgi:85", "R5G6B5_UNORM"), ("gl:0x8D62", "R5G6B5_UNORM"),
    ("GL:36194", "R5G6B5_UNORM"), (" Vk:4 ", "R5G6B5_UNORM"), ("1000288000", "ASTC_3x3x3_UNORM"),
    ("VK_FORMAT_ASTC_6x6x6_SFLOAT_BLOCK_EXT", "ASTC_6x6x6_SFLOAT"), ("VK_FORMAT_A8_UNORM_KHR", "A8_UNORM"),
    ("VK_FORMAT_A1B5G5R5_UNORM_PACK16_KHR", "A1B5G5R5_UNORM"), ("VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK_EXT", "ASTC_4x4_SFLOAT"),
    ("VK_FORMAT_R16G16_S10_5_NV", "R16G16_SFIXED5"), ("VK_FORMAT_R16G16_SFIXED5_NV", "R16G16_SFIXED5"),
    ("DXGI_FORMAT_NV12", "NV12"), ("dxgi:103", "NV12"), ("DXGI_FORMAT_420_OPAQUE", "420_OPAQUE"),
    ("DXGI_FORMAT_R8G8B8A8_TYPELESS", "R8G8B8A8_UNORM"), ("R32G8X24_TYPELESS", "D32_SFLOAT_S8_UINT"),
    ("XBOX_DXGI_FORMAT_D16_UNORM_S8_UINT", "XBOX_D16_UNORM_S8_UINT"), ("D16_UNORM_S8_UINT", "D16_UNORM_S8_UINT"),
    ("DXGI_FORMAT_A4B4G4R4_UNORM", "R4G4B4A4_UNORM"), ("A4B4G4R4_UNORM", "A4B4G4R4_UNORM"),
    ("DXGI_FORMAT_B4G4R4A4_UNORM", "A4R4G4B4_UNORM"), ("B4G4R4A4_UNORM", "B4G4R4A4_UNORM"),
    ("astc_5x5x5", "ASTC_5x5x5_UNORM"), ("PVRTC2", "PVRTC2_4BPP_UNORM"), ("D16S8", "D16_UNORM_S8_UINT"),
])
def test_lookup_by_name_number_and_alias(text, name):
    assert formats.find(text).name == name


@pytest.mark.parametrize("text", ["vk:", "vk:x", "dx:5", "vk:-1", "gl:0x", "gl:0xZZ", "4.0", "99999", "dxgi:0", "vk:²"])
def test_numbers_that_name_nothing(text):
    assert formats.find(text) is None


def test_parse_number():
    assert formats.parse_number("vk:4") == ("vk", 4)
    assert formats.parse_number("DXGI:85") == ("dxgi", 85)
    assert formats.parse_number("gl:0x8058") == ("gl", 0x8058)
    assert formats.parse_number("37") == ("vk", 37)
    assert formats.parse_number("BC7") is None and formats.parse_number("420_OPAQUE") is None


def test_name_collisions_are_the_listed_ones():
    """A bare DXGI name that is another row's canonical name means the canonical row; every
    such name is listed, with its reason, and they differ only in layout, never in size."""
    collisions = formats.name_collisions()
    assert set(collisions) == set(format_table.NAME_COLLISIONS)
    for key, (as_dxgi, canonical) in collisions.items():
        assert formats.find(key).name == canonical == key
        a, b = formats.get(as_dxgi), formats.get(canonical)
        assert (a.block_width, a.block_height, a.bytes_per_block) == (b.block_width, b.block_height, b.bytes_per_block)
        assert formats.find(f"DXGI_FORMAT_{key}") is a


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


def test_new_rows_sizes():
    """Hand-checked against vk.xml / DirectXTex: bytes per block and block extent."""
    for name, block, bpb in [
        ("B5G6R5_UNORM", (1, 1, 1), 2), ("A1B5G5R5_UNORM", (1, 1, 1), 2), ("A8_UNORM", (1, 1, 1), 1),
        ("R64G64B64A64_SFLOAT", (1, 1, 1), 32), ("R64G64B64_UINT", (1, 1, 1), 24), ("D16_UNORM_S8_UINT", (1, 1, 1), 4),
        ("G8B8G8R8_422_UNORM", (2, 1, 1), 4), ("B16G16R16G16_422_UNORM", (2, 1, 1), 8),
        ("R10X6G10X6B10X6A10X6_UNORM", (1, 1, 1), 8), ("R12X4_UNORM", (1, 1, 1), 2), ("R14X2G14X2_UINT", (1, 1, 1), 4),
        ("ASTC_3x3x3_SRGB", (3, 3, 3), 16), ("ASTC_6x5x5_SFLOAT", (6, 5, 5), 16), ("PVRTC2_2BPP_SRGB", (8, 4, 1), 8),
        ("R16G16_SFIXED5", (1, 1, 1), 4), ("R8_BOOL", (1, 1, 1), 1), ("R16_SFLOAT_FPENCODING_BFLOAT16", (1, 1, 1), 2),
        ("NV12", (2, 2, 1), 6), ("P010", (2, 2, 1), 12), ("YUY2", (2, 1, 1), 4), ("NV11", (4, 1, 1), 8),
        ("R1_UNORM", (8, 1, 1), 1), ("V208", (1, 2, 1), 4), ("V408", (1, 1, 1), 3), ("A8P8", (1, 1, 1), 2),
    ]:
        f = formats.get(name)
        assert ((f.block_width, f.block_height, f.block_depth), f.bytes_per_block) == (block, bpb), name
    assert formats.get("PVRTC2_4BPP_UNORM").min_blocks_x == 1  # IMG_texture_compression_pvrtc2: no minimum
    assert formats.get("ASTC_3x3x3_SFLOAT").hdr and formats.get("ASTC_3x3x3_SRGB").srgb
    assert formats.get("R16G16_SFIXED5").signed and formats.get("R8G8B8A8_SINT").signed
    assert not formats.get("R16G16B16A16_SFLOAT").signed


def test_with_srgb():
    assert formats.with_srgb(formats.get("BC7_UNORM"), True).name == "BC7_SRGB"
    assert formats.with_srgb(formats.get("BC7_SRGB"), False).name == "BC7_UNORM"
    assert formats.with_srgb(formats.get("BC5_UNORM"), True).name == "BC5_UNORM"
    assert formats.with_srgb(formats.get("ASTC_6x6_UNORM"), True).name == "ASTC_6x6_SRGB"
    assert formats.with_srgb(formats.get("ASTC_4x4x4_UNORM"), True).name == "ASTC_4x4x4_SRGB"
    assert formats.with_srgb(formats.get("PVRTC2_2BPP_SRGB"), False).name == "PVRTC2_2BPP_UNORM"
    assert formats.with_srgb(formats.get("R8G8_UNORM"), True).name == "R8G8_SRGB"
    assert formats.with_srgb(formats.get("NV12"), True).name == "NV12"


def test_bits_per_pixel():
    assert formats.get("ASTC_12x12_UNORM").bits_per_pixel == pytest.approx(0.8889, abs=1e-4)
    assert formats.get("BC1_RGB_UNORM").bits_per_pixel == 4
    assert formats.get("PVRTC1_2BPP_UNORM").bits_per_pixel == 2


@pytest.mark.parametrize(("given", "name", "exact"), [
    ("vk:4", "R5G6B5_UNORM", True), (37, "R8G8B8A8_UNORM", True), ("37", "R8G8B8A8_UNORM", True),
    ("dxgi:103", "NV12", True), ("VK_FORMAT_B5G6R5_UNORM_PACK16", "B5G6R5_UNORM", True),
    ("DXGI_FORMAT_B5G6R5_UNORM", "R5G6B5_UNORM", True), ("ASTC_4x4x4", "ASTC_4x4x4_UNORM", False),
    ("VK_FORMAT_BC7_UNORM_BLOCK", "BC7_UNORM", True), ("bc7", "BC7_UNORM", False),
])
def test_rule_formats_take_every_kind_of_name(given, name, exact):
    from texbudget.config import parse_rules

    (rule,) = parse_rules([{"match": "a/**", "format": given}], "t.toml")
    assert (rule.format, rule.format_exact) == (name, exact)


def test_rule_format_errors_say_how_to_give_a_number():
    from texbudget.config import parse_rules
    from texbudget.errors import ConfigError

    for given in ("vk:99999", True, 99999):
        with pytest.raises(ConfigError, match=r"format = .*: not a GPU format.*or a number: vk:37, dxgi:28$"):
            parse_rules([{"match": "a", "format": given}], "t.toml")


#: What issue 21 changed in the rows the table had before (every other field of every such
#: row is as it was): the new ids and the one family move.
CHANGED_SINCE_ISSUE21 = {
    ("R8G8_SNORM", "d3dfmt"): [117],  # D3DFMT_CxV8U8, V8U8's layout
    ("D32_SFLOAT", "d3dfmt"): [82],  # D3DFMT_D32F_LOCKABLE
    ("R4G4B4A4_UNORM", "dxgi_format"): 191, ("R4G4B4A4_UNORM", "dxgi_name"): "DXGI_FORMAT_A4B4G4R4_UNORM",
    ("R8_SRGB", "gl_internal_format"): 0x8FBD,  # GL_SR8_EXT
    ("R32_UINT", "family"): "integer",
    ("BC3_UNORM", "dds_fourcc"): ["DXT4", "DXT5", "A2D5", "xGBR", "RxBG", "RBxG", "xRBG", "RGxB", "xGxR", "GXRB", "GRXB", "RXGB", "BRGX"],
    ("BC5_UNORM", "dds_fourcc"): ["ATI2", "BC5U", "A2XY"],
}


def test_the_rows_from_before_the_whole_table_are_unchanged():
    """The 116 rows of the table before issue 21 (tests/unit/data, written from its code):
    every size and every field the same, but the listed additions."""
    import json
    from pathlib import Path

    from msgspec.structs import asdict

    before = json.loads((Path(__file__).parent / "data" / "formats_before_issue21.json").read_text(encoding="utf-8"))
    assert len(before) == 116
    for old in before:
        new = asdict(formats.get(old["name"]))
        for field, value in old.items():
            now = list(new[field]) if isinstance(new[field], tuple) else new[field]
            assert now == CHANGED_SINCE_ISSUE21.get((old["name"], field), value), (old["name"], field)
