"""DDS headers: exact formats, dims and per-level bytes (hand-computed from the spec's
formulas), Pillow-written files, and a specific finding for each kind of broken file."""

from __future__ import annotations

import pytest

from tests.readers import factories as fx
from texbudget.model import ReadResult, TextureFacts
from texbudget.readers import Source, read_path
from texbudget.readers.dds import read_dds


def _read(data: bytes) -> ReadResult:
    return read_dds(Source(rel="t.dds", data=data, suffix_hint=".dds"))


def _one(data: bytes) -> TextureFacts:
    result = _read(data)
    assert result.findings == (), result.findings
    (facts,) = result.textures
    return facts


def _code(data: bytes) -> tuple[str, str]:
    result = _read(data)
    assert result.textures == ()
    (finding,) = result.findings
    return finding.code, finding.message


def test_bc1_256_full_chain() -> None:
    data = fx.dds_bytes(256, 256, fourcc=b"DXT1", mips=9)
    f = _one(data)
    # 64x64 blocks x 8 B = 32768, then /4 per level; 4x4 and below are one 8-byte block
    assert f.level_bytes == (32768, 8192, 2048, 512, 128, 32, 8, 8, 8)
    assert sum(f.level_bytes) == 43704
    assert (f.container, f.width, f.height, f.depth, f.layers, f.faces, f.stored_levels) == ("dds", 256, 256, 1, 1, 1, 9)
    assert (f.stored_format, f.alpha, f.channels, f.disk_bytes) == ("BC1_RGBA_UNORM", True, 4, 128 + 43704)


def test_bc1_cube_64_with_7_mips() -> None:
    data = fx.dds_bytes(64, 64, fourcc=b"DXT1", mips=7, caps2=fx.CAPS2_CUBEMAP | fx.CAPS2_ALL_FACES, images=6)
    f = _one(data)
    # per face 2048, 512, 128, 32, 8, 8, 8 = 2744; x6
    assert f.level_bytes == (12288, 3072, 768, 192, 48, 48, 48)
    assert sum(f.level_bytes) == 16464
    assert (f.faces, f.layers, f.stored_levels, f.disk_bytes) == (6, 1, 7, 128 + 16464)


def test_dx10_bc7_array_of_4() -> None:
    data = fx.dds_bytes(128, 128, dxgi=98, array_size=4, mips=8, block=(4, 4, 16), images=4)
    f = _one(data)
    assert f.level_bytes == (65536, 16384, 4096, 1024, 256, 64, 64, 64)
    assert sum(f.level_bytes) == 87488
    assert (f.stored_format, f.layers, f.faces, f.disk_bytes) == ("BC7_UNORM", 4, 1, 148 + 87488)


def test_dx10_bc6h_cube_array_matches_spec_vector_11() -> None:
    data = fx.dds_bytes(256, 256, dxgi=95, misc=0x4, array_size=4, mips=9, block=(4, 4, 16), images=24)
    f = _one(data)
    assert (f.stored_format, f.faces, f.layers, f.stored_levels) == ("BC6H_UFLOAT", 6, 4, 9)
    assert f.level_bytes[0] == 1572864
    assert sum(f.level_bytes) == 2097792  # spec/textures.md §7 #11
    assert (f.hdr, f.bit_depth, f.color_space) == (True, 16, "linear")


def test_legacy_volume_rgba8() -> None:
    masks = (0xFF, 0xFF00, 0xFF0000, 0xFF000000)
    data = fx.dds_bytes(32, 32, fourcc=None, pf_flags=fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, bit_count=32, masks=masks,
                        depth=32, mips=6, caps2=fx.CAPS2_VOLUME, block=(1, 1, 4))
    f = _one(data)
    assert f.level_bytes == (131072, 16384, 2048, 256, 32, 4)  # w·h·d·4, depth halves too
    assert (f.stored_format, f.depth, f.alpha, f.disk_bytes) == ("R8G8B8A8_UNORM", 32, True, 128 + 149796)


def test_dx10_volume_rgba16f() -> None:
    data = fx.dds_bytes(16, 16, dxgi=10, dimension=4, depth=4, mips=5, block=(1, 1, 8))
    f = _one(data)
    assert f.level_bytes == (8192, 1024, 128, 32, 8)
    assert (f.stored_format, f.depth, f.bit_depth, f.hdr) == ("R16G16B16A16_SFLOAT", 4, 16, True)


def test_dx10_1d_texture() -> None:
    data = fx.dds_bytes(256, 1, dxgi=28, dimension=2, mips=9, block=(1, 1, 4))
    f = _one(data)
    assert (f.width, f.height, f.stored_levels) == (256, 1, 9)
    assert f.level_bytes == (1024, 512, 256, 128, 64, 32, 16, 8, 4)


def test_mip_count_zero_is_one_level() -> None:
    f = _one(fx.dds_bytes(64, 32, fourcc=b"DXT5", mips=0, block=(4, 4, 16)))
    assert (f.stored_levels, f.level_bytes, f.stored_format) == (1, (2048,), "BC3_UNORM")


@pytest.mark.parametrize(
    ("fourcc", "name", "block"),
    [
        (b"DXT1", "BC1_RGBA_UNORM", (4, 4, 8)),
        (b"DXT2", "BC2_UNORM", (4, 4, 16)),
        (b"DXT3", "BC2_UNORM", (4, 4, 16)),
        (b"DXT4", "BC3_UNORM", (4, 4, 16)),
        (b"DXT5", "BC3_UNORM", (4, 4, 16)),
        (b"ATI1", "BC4_UNORM", (4, 4, 8)),
        (b"BC4U", "BC4_UNORM", (4, 4, 8)),
        (b"BC4S", "BC4_SNORM", (4, 4, 8)),
        (b"ATI2", "BC5_UNORM", (4, 4, 16)),
        (b"BC5U", "BC5_UNORM", (4, 4, 16)),
        (b"BC5S", "BC5_SNORM", (4, 4, 16)),
        (b"BC6H", "BC6H_UFLOAT", (4, 4, 16)),
        (b"BC7L", "BC7_UNORM", (4, 4, 16)),
        (36, "R16G16B16A16_UNORM", (1, 1, 8)),
        (111, "R16_SFLOAT", (1, 1, 2)),
        (112, "R16G16_SFLOAT", (1, 1, 4)),
        (113, "R16G16B16A16_SFLOAT", (1, 1, 8)),
        (114, "R32_SFLOAT", (1, 1, 4)),
        (115, "R32G32_SFLOAT", (1, 1, 8)),
        (116, "R32G32B32A32_SFLOAT", (1, 1, 16)),
    ],
)
def test_legacy_fourcc_formats(fourcc: bytes | int, name: str, block: tuple[int, int, int]) -> None:
    f = _one(fx.dds_bytes(12, 20, fourcc=fourcc, block=block))
    bw, bh, bpb = block
    assert f.stored_format == name
    assert f.level_bytes == (-(-12 // bw) * -(-20 // bh) * bpb,)


@pytest.mark.parametrize(
    ("flags", "bits", "masks", "name", "alpha", "channels", "grey", "texel"),
    [
        (fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000), "R8G8B8A8_UNORM", True, 4, False, 4),
        (fx.DDPF_RGB, 32, (0xFF, 0xFF00, 0xFF0000, 0), "R8G8B8A8_UNORM", False, 3, False, 4),
        (fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, 32, (0xFF0000, 0xFF00, 0xFF, 0xFF000000), "B8G8R8A8_UNORM", True, 4, False, 4),
        (fx.DDPF_RGB, 32, (0xFF0000, 0xFF00, 0xFF, 0), "B8G8R8A8_UNORM", False, 3, False, 4),
        (fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000), "A2B10G10R10_UNORM", True, 4, False, 4),
        (fx.DDPF_RGB, 32, (0xFFFF, 0xFFFF0000, 0, 0), "R16G16_UNORM", False, 2, False, 4),
        (fx.DDPF_RGB, 24, (0xFF0000, 0xFF00, 0xFF, 0), "B8G8R8_UNORM", False, 3, False, 3),
        (fx.DDPF_RGB, 16, (0xF800, 0x7E0, 0x1F, 0), "R5G6B5_UNORM", False, 3, False, 2),
        (fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, 16, (0x7C00, 0x3E0, 0x1F, 0x8000), "A1R5G5B5_UNORM", True, 4, False, 2),
        (fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, 16, (0xF00, 0xF0, 0xF, 0xF000), "A4R4G4B4_UNORM", True, 4, False, 2),
        (fx.DDPF_LUMINANCE, 8, (0xFF, 0, 0, 0), "R8_UNORM", False, 1, True, 1),
        (fx.DDPF_LUMINANCE | fx.DDPF_ALPHAPIXELS, 16, (0xFF, 0, 0, 0xFF00), "R8G8_UNORM", True, 2, True, 2),
        (fx.DDPF_LUMINANCE, 16, (0xFFFF, 0, 0, 0), "R16_UNORM", False, 1, True, 2),
        (fx.DDPF_ALPHA, 8, (0, 0, 0, 0xFF), "A8_UNORM", True, 1, False, 1),
        (0x80000, 16, (0xFF, 0xFF00, 0, 0), "R8G8_SNORM", False, 2, False, 2),
    ],
)
def test_legacy_bitmask_formats(flags: int, bits: int, masks: tuple, name: str, alpha: bool, channels: int, grey: bool, texel: int) -> None:
    f = _one(fx.dds_bytes(10, 6, fourcc=None, pf_flags=flags, bit_count=bits, masks=masks, block=(1, 1, texel)))
    assert (f.stored_format, f.alpha, f.channels, f.grey) == (name, alpha, channels, grey)
    assert f.level_bytes == (10 * 6 * texel,)


def test_dx10_srgb_and_opaque_alpha_mode() -> None:
    f = _one(fx.dds_bytes(16, 16, dxgi=99, block=(4, 4, 16)))
    assert (f.stored_format, f.color_space, f.alpha) == ("BC7_SRGB", "srgb", True)
    f = _one(fx.dds_bytes(16, 16, dxgi=99, misc2=3, block=(4, 4, 16)))
    assert f.alpha is False


def test_bgrx_dxgi_88_is_b8g8r8a8_sized() -> None:
    f = _one(fx.dds_bytes(5, 3, dxgi=88, block=(1, 1, 4)))
    assert (f.stored_format, f.level_bytes) == ("B8G8R8A8_UNORM", (60,))


# --- Pillow's DDS writer --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "params", "name", "level0", "codes"),
    [
        # 100x60: 25x15 = 375 blocks
        ("RGBA", {"pixel_format": "DXT1"}, "BC1_RGBA_UNORM", 3000, []),
        ("RGBA", {"pixel_format": "DXT3"}, "BC2_UNORM", 6000, []),
        ("RGBA", {"pixel_format": "DXT5"}, "BC3_UNORM", 6000, []),
        ("RGBA", {"pixel_format": "BC3"}, "BC3_UNORM", 6000, ["TB049"]),
        ("RGB", {"pixel_format": "BC5"}, "BC5_UNORM", 6000, ["TB049"]),
        ("RGBA", {}, "B8G8R8A8_UNORM", 24000, []),
        ("RGB", {}, "B8G8R8_UNORM", 18000, []),
        ("L", {}, "R8_UNORM", 6000, []),
        ("LA", {}, "R8G8_UNORM", 12000, []),
    ],
)
def test_pillow_written_dds_reads_back(tmp_path, mode: str, params: dict, name: str, level0: int, codes: list[str]) -> None:
    data = fx.pillow_bytes("DDS", mode, (100, 60), **params)
    fx.write(tmp_path, "p.dds", data)
    result = read_path(tmp_path, "p.dds")
    assert [f.code for f in result.findings] == codes
    (f,) = result.textures
    assert (f.width, f.height, f.stored_format, f.stored_levels, f.level_bytes) == (100, 60, name, 1, (level0,))
    header = 148 if "TB049" in codes else 128
    assert f.disk_bytes == len(data) == header + level0


# --- broken files -----------------------------------------------------------------------------

CUBE = fx.CAPS2_CUBEMAP | fx.CAPS2_ALL_FACES

BROKEN = [
    ("empty", b"", "TB040"),
    ("wrong magic", b"PNG " + fx.dds_bytes(4, 4)[4:], "TB041"),
    ("truncated magic", b"DD", "TB042"),
    ("truncated header", fx.dds_bytes(4, 4)[:100], "TB042"),
    ("truncated dx10 header", fx.dds_bytes(4, 4, dxgi=71)[:140], "TB042"),
    ("truncated payload", fx.dds_bytes(64, 64, mips=7)[:-1], "TB043"),
    ("zero width", fx.dds_bytes(0, 64, payload=64), "TB044"),
    ("zero height", fx.dds_bytes(64, 0, payload=64), "TB044"),
    ("volume depth 0", fx.dds_bytes(8, 8, caps2=fx.CAPS2_VOLUME, payload=64), "TB044"),
    ("absurd width", fx.dds_bytes(2**31, 4, payload=0), "TB045"),
    ("absurd array", fx.dds_bytes(4, 4, dxgi=71, array_size=2**31, payload=0), "TB045"),
    ("unknown dxgi", fx.dds_bytes(4, 4, dxgi=200), "TB046"),
    ("unknown fourcc", fx.dds_bytes(4, 4, fourcc=b"ABCD"), "TB046"),
    ("unknown numeric fourcc", fx.dds_bytes(4, 4, fourcc=999), "TB046"),
    ("unknown masks", fx.dds_bytes(4, 4, fourcc=None, pf_flags=fx.DDPF_RGB, bit_count=32, masks=(1, 2, 3, 0), payload=64), "TB046"),
    ("too many mips", fx.dds_bytes(64, 64, mips=8), "TB047"),
    ("partial cube", fx.dds_bytes(16, 16, caps2=fx.CAPS2_CUBEMAP | 0x400 | 0x800 | 0x1000 | 0x2000 | 0x4000, images=6), "TB048"),
    ("non-square cube", fx.dds_bytes(16, 8, caps2=CUBE, images=6), "TB048"),
    ("dx10 cube on 3D", fx.dds_bytes(16, 16, dxgi=71, dimension=4, misc=4, depth=1), "TB048"),
    ("header size", fx.dds_bytes(4, 4, header_size=100), "TB054"),
    ("resource dimension", fx.dds_bytes(4, 4, dxgi=71, dimension=7), "TB054"),
    ("3D array", fx.dds_bytes(4, 4, dxgi=71, dimension=4, depth=4, array_size=2), "TB054"),
    ("cube and volume", fx.dds_bytes(4, 4, caps2=CUBE | fx.CAPS2_VOLUME, depth=4), "TB054"),
]


@pytest.mark.parametrize(("label", "data", "code"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_dds_give_their_specific_finding(label: str, data: bytes, code: str) -> None:
    got, message = _code(data)
    assert got == code, message


def test_truncated_payload_says_how_many_bytes_are_missing() -> None:
    data = fx.dds_bytes(64, 64, fourcc=b"DXT1", mips=7, caps2=CUBE, images=6)[:-1000]
    code, message = _code(data)
    assert code == "TB043"
    assert message == ("DDS pixel data truncated: 7 level(s) x 6 image(s) of BC1_RGBA_UNORM need 16464 bytes "
                       "at offset 128, the file has 15464 (1000 bytes missing)")


def test_partial_cube_names_the_missing_face() -> None:
    data = fx.dds_bytes(16, 16, caps2=fx.CAPS2_CUBEMAP | 0x400 | 0x800 | 0x1000 | 0x2000 | 0x4000, images=6)
    assert _code(data) == ("TB048", "DDS cubemap has 5 of 6 faces; missing -Z")


def test_unknown_codes_are_named() -> None:
    assert "DXGI format 200" in _code(fx.dds_bytes(4, 4, dxgi=200))[1]
    assert "'ABCD'" in _code(fx.dds_bytes(4, 4, fourcc=b"ABCD"))[1]
    assert "999" in _code(fx.dds_bytes(4, 4, fourcc=999))[1]


def test_too_many_mips_message() -> None:
    assert _code(fx.dds_bytes(64, 64, mips=8))[1] == "DDS header gives 8 mip levels; 64x64 allows at most 7"


def test_dx10_array_size_zero_is_a_warning_and_reads_one_layer() -> None:
    result = _read(fx.dds_bytes(8, 8, dxgi=98, array_size=0, block=(4, 4, 16)))
    assert [f.code for f in result.findings] == ["TB049"]
    (f,) = result.textures
    assert (f.layers, f.level_bytes) == (1, (64,))
