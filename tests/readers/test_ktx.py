"""KTX 1.1 and KTX2 headers: exact facts (hand-computed sizes), Basis data, and a specific
finding for each kind of broken file."""

from __future__ import annotations

import struct

import pytest

from tests.readers import factories as fx
from texbudget.model import ReadResult, TextureFacts
from texbudget.readers import Source, read_path
from texbudget.readers.ktx import read_ktx1, read_ktx2

BC7_256_CHAIN = (65536, 16384, 4096, 1024, 256, 64, 16, 16, 16)  # 64x64 blocks x 16 B, /4 ..., 1 block min


def _read1(data: bytes) -> ReadResult:
    return read_ktx1(Source(rel="t.ktx", data=data, suffix_hint=".ktx"))


def _read2(data: bytes) -> ReadResult:
    return read_ktx2(Source(rel="t.ktx2", data=data, suffix_hint=".ktx2"))


def _one(result: ReadResult, codes: tuple[str, ...] = ()) -> TextureFacts:
    assert tuple(f.code for f in result.findings) == codes, result.findings
    (facts,) = result.textures
    return facts


def _code(result: ReadResult) -> tuple[str, str]:
    assert result.textures == ()
    (finding,) = result.findings
    return finding.code, finding.message


# --- KTX 1.1 --------------------------------------------------------------------------------


def test_ktx1_bc7_256_full_chain() -> None:
    data = fx.ktx1_bytes(256, 256, gl_internal=0x8E8C, levels=9)
    f = _one(_read1(data))
    assert f.level_bytes == BC7_256_CHAIN
    assert sum(f.level_bytes) == 87408
    assert (f.container, f.stored_format, f.width, f.height, f.depth, f.layers, f.faces, f.stored_levels) == (
        "ktx", "BC7_UNORM", 256, 256, 1, 1, 1, 9)
    assert f.disk_bytes == len(data) == 64 + 9 * 4 + 87408


def test_ktx1_big_endian_etc2() -> None:
    f = _one(_read1(fx.ktx1_bytes(64, 64, gl_internal=0x9274, levels=7, big_endian=True, block=(4, 4, 8))))
    assert (f.stored_format, f.level_bytes) == ("ETC2_R8G8B8_UNORM", (2048, 512, 128, 32, 8, 8, 8))


def test_ktx1_non_array_cube_image_size_is_one_face() -> None:
    data = fx.ktx1_bytes(16, 16, gl_internal=0x8058, faces=6, levels=5, texel_bytes=4)
    assert struct.unpack_from("<I", data, 64)[0] == 1024  # imageSize of level 0 = one face
    f = _one(_read1(data))
    assert (f.stored_format, f.faces, f.layers) == ("R8G8B8A8_UNORM", 6, 1)
    assert f.level_bytes == (6144, 1536, 384, 96, 24)


def test_ktx1_array_astc() -> None:
    f = _one(_read1(fx.ktx1_bytes(32, 32, gl_internal=0x93B0, array_elements=3, levels=1)))
    assert (f.stored_format, f.layers, f.level_bytes) == ("ASTC_4x4_UNORM", 3, (3072,))


def test_ktx1_cube_array_image_size_covers_all_faces() -> None:
    data = fx.ktx1_bytes(8, 8, gl_internal=0x83F1, faces=6, array_elements=2, levels=1, block=(4, 4, 8))
    assert struct.unpack_from("<I", data, 64)[0] == 4 * 8 * 12
    f = _one(_read1(data))
    assert (f.faces, f.layers, f.level_bytes, f.stored_format) == (6, 2, (384,), "BC1_RGBA_UNORM")


def test_ktx1_rows_of_uncompressed_data_are_padded_to_4_bytes() -> None:
    data = fx.ktx1_bytes(3, 2, gl_internal=0x8051, texel_bytes=3)  # GL_RGB8: rows 9 -> 12 bytes
    assert struct.unpack_from("<I", data, 64)[0] == 24
    f = _one(_read1(data))
    assert (f.stored_format, f.level_bytes, f.channels) == ("R8G8B8_UNORM", (18,), 3)


def test_ktx1_unsized_gl_rgba() -> None:
    f = _one(_read1(fx.ktx1_bytes(4, 4, gl_internal=0x1908, gl_type=0x1401, texel_bytes=4)))
    assert (f.stored_format, f.level_bytes) == ("R8G8B8A8_UNORM", (64,))


def test_ktx1_levels_zero_means_generate() -> None:
    f = _one(_read1(fx.ktx1_bytes(64, 64, levels=0)))
    assert (f.stored_levels, f.mips_generate, f.level_bytes) == (1, True, (4096,))


def test_ktx1_1d_and_3d() -> None:
    f = _one(_read1(fx.ktx1_bytes(64, 0, gl_internal=0x8058, texel_bytes=4)))
    assert (f.width, f.height, f.level_bytes) == (64, 1, (256,))
    f = _one(_read1(fx.ktx1_bytes(8, 8, depth=4, gl_internal=0x8058, texel_bytes=4, levels=4)))
    assert (f.depth, f.level_bytes) == (4, (1024, 128, 16, 4))


def test_ktx1_with_key_value_data() -> None:
    f = _one(_read1(fx.ktx1_bytes(8, 8, kvd=struct.pack("<I", 12) + b"KTXorientation\0"[:12])))
    assert f.level_bytes == (64,)


def test_ktx1_image_size_mismatch_is_a_warning() -> None:
    result = _read1(fx.ktx1_bytes(8, 8, levels=2, image_sizes=[64, 20]))
    f = _one(result, ("TB053",))
    assert f.level_bytes == (64, 16)
    assert "level 1: imageSize 20, expected 16" in result.findings[0].message


def test_ktx1_srgb_format_colour_space() -> None:
    f = _one(_read1(fx.ktx1_bytes(8, 8, gl_internal=0x8E8D)))
    assert (f.stored_format, f.color_space) == ("BC7_SRGB", "srgb")


KTX1_BROKEN = [
    ("empty", b"", "TB040"),
    ("wrong magic", b"\xabKTX 20\xbb\r\n\x1a\n" + bytes(80), "TB041"),
    ("truncated magic", fx.KTX1_MAGIC[:6], "TB042"),
    ("truncated header", fx.ktx1_bytes(8, 8)[:40], "TB042"),
    ("kvd past end", fx.ktx1_bytes(8, 8, kvd=b"\0" * 8)[:64] + struct.pack("<I", 0), "TB042"),
    ("truncated payload", fx.ktx1_bytes(64, 64, levels=7)[:-5], "TB043"),
    ("missing level", fx.ktx1_bytes(64, 64, levels=7)[:-20], "TB043"),
    ("zero width", fx.ktx1_bytes(0, 8, image_sizes=[0]), "TB044"),
    ("absurd width", fx.ktx1_bytes(2**31, 8, image_sizes=[0]), "TB045"),
    ("absurd layers", fx.ktx1_bytes(8, 8, array_elements=2**31, image_sizes=[0]), "TB045"),
    ("unknown format", fx.ktx1_bytes(8, 8, gl_internal=0x1234), "TB046"),
    ("too many levels", fx.ktx1_bytes(64, 64, levels=8), "TB047"),
    ("five faces", fx.ktx1_bytes(8, 8, faces=5), "TB048"),
    ("non-square cube", fx.ktx1_bytes(8, 4, faces=6), "TB048"),
    ("bad endianness", fx.ktx1_bytes(8, 8, endian_word=0x11223344), "TB054"),
    ("3D without height", fx.ktx1_bytes(8, 0, depth=4), "TB054"),
]


@pytest.mark.parametrize(("label", "data", "code"), KTX1_BROKEN, ids=[b[0] for b in KTX1_BROKEN])
def test_broken_ktx1_give_their_specific_finding(label: str, data: bytes, code: str) -> None:
    got, message = _code(_read1(data))
    assert got == code, message


def test_ktx1_truncated_payload_counts_missing_bytes() -> None:
    data = fx.ktx1_bytes(64, 64, levels=7)  # levels 4096, 1024, 256, 64, 16, 16, 16 plus 7 imageSize words
    code, message = _code(_read1(data[:-20]))  # loses the last level's data and imageSize
    assert code == "TB043"
    assert message.endswith("(20 bytes missing)")
    code, message = _code(_read1(data[:64 + 4 + 100]))
    assert message == "KTX pixel data truncated: level 0 needs 4096 bytes at offset 68, the file ends at 168 (5412 bytes missing)"  # 5580 - 168


# --- KTX2 -----------------------------------------------------------------------------------


def test_ktx2_bc7_256_full_chain() -> None:
    data = fx.ktx2_bytes(256, 256, vk_format=145, levels=9)
    f = _one(_read2(data))
    assert f.level_bytes[0] == 65536
    assert f.level_bytes == BC7_256_CHAIN
    assert sum(f.level_bytes) == 87408  # 9 levels (256..1); the first 7 (256..4) sum to 87,376
    assert sum(f.level_bytes[:7]) == 87376
    assert (f.container, f.stored_format, f.stored_levels, f.supercompression, f.transcodable) == ("ktx2", "BC7_UNORM", 9, None, None)
    assert (f.disk_bytes, f.mips_generate) == (len(data), False)


def test_ktx2_bc7_srgb_transfer_function() -> None:
    f = _one(_read2(fx.ktx2_bytes(16, 16, vk_format=146, dfd=fx.dfd_bytes(transfer=2))))
    assert (f.stored_format, f.color_space) == ("BC7_SRGB", "srgb")
    f = _one(_read2(fx.ktx2_bytes(16, 16, vk_format=37, dfd=fx.dfd_bytes(transfer=2), block=(1, 1, 4))))
    assert (f.stored_format, f.color_space) == ("R8G8B8A8_UNORM", "srgb")


@pytest.mark.parametrize(("scheme", "name"), [(2, "Zstandard"), (3, "ZLIB")])
def test_ktx2_zstd_and_zlib(scheme: int, name: str) -> None:
    data = fx.ktx2_bytes(64, 64, vk_format=145, levels=7, scheme=scheme, level_lengths=[900, 300, 100, 40, 16, 16, 16])
    f = _one(_read2(data))
    assert (f.supercompression, f.level_bytes) == (name, (4096, 1024, 256, 64, 16, 16, 16))
    assert f.disk_bytes == len(data)


def test_ktx2_uncompressed_length_mismatch_is_a_warning() -> None:
    data = fx.ktx2_bytes(64, 64, vk_format=145, levels=2, scheme=2, level_lengths=[900, 300], uncompressed=[4096, 1000])
    result = _read2(data)
    f = _one(result, ("TB053",))
    assert f.level_bytes == (4096, 1024)
    assert "level 1: uncompressedByteLength 1000, expected 1024" in result.findings[0].message


def test_ktx2_byte_length_mismatch_without_supercompression() -> None:
    result = _read2(fx.ktx2_bytes(16, 16, vk_format=145, level_lengths=[200], uncompressed=[200]))
    assert "level 0: byteLength 200, expected 256" in result.findings[0].message
    _one(result, ("TB053",))


@pytest.mark.parametrize(
    ("channel_ids", "channels", "alpha"),
    [((0,), 3, False), ((0, 15), 4, True), ((3,), 1, False), ((3, 4), 2, False)],
)
def test_ktx2_etc1s(channel_ids: tuple[int, ...], channels: int, alpha: bool) -> None:
    dfd = fx.dfd_bytes(fx.KHR_DF_MODEL_ETC1S, transfer=2, channel_ids=channel_ids, bytes_plane0=0)
    data = fx.ktx2_bytes(128, 64, vk_format=0, levels=8, scheme=1, dfd=dfd, sgd=bytes(64), level_lengths=[500, 200, 80, 40, 20, 10, 10, 10])
    f = _one(_read2(data))
    assert (f.transcodable, f.stored_format, f.supercompression, f.level_bytes) == ("ETC1S", None, "BasisLZ", ())
    assert (f.channels, f.alpha, f.color_space, f.stored_levels, f.width, f.height) == (channels, alpha, "srgb", 8, 128, 64)


@pytest.mark.parametrize(
    ("channel_id", "channels", "alpha"),
    [(0, 3, False), (3, 4, True), (4, 1, False), (5, 2, True), (6, 2, False)],
)
def test_ktx2_uastc(channel_id: int, channels: int, alpha: bool) -> None:
    dfd = fx.dfd_bytes(fx.KHR_DF_MODEL_UASTC, channel_ids=(channel_id,))
    f = _one(_read2(fx.ktx2_bytes(64, 64, vk_format=0, levels=7, dfd=dfd)))
    assert (f.transcodable, f.stored_format, f.channels, f.alpha) == ("UASTC", None, channels, alpha)
    assert f.level_bytes == (4096, 1024, 256, 64, 16, 16, 16)  # UASTC data: 16 B per 4x4 block


def test_ktx2_uastc_zstd() -> None:
    dfd = fx.dfd_bytes(fx.KHR_DF_MODEL_UASTC, channel_ids=(3,))
    f = _one(_read2(fx.ktx2_bytes(16, 16, vk_format=0, levels=3, scheme=2, dfd=dfd, level_lengths=[100, 30, 10])))
    assert (f.transcodable, f.supercompression, f.level_bytes) == ("UASTC", "Zstandard", (256, 64, 16))


@pytest.mark.parametrize(("scheme", "lengths"), [(0, None), (2, [300, 90, 30, 16, 16, 16]), (3, [310, 95, 32, 16, 16, 16])])
def test_ktx2_uastc_hdr_4x4_is_a_transcodable_payload(scheme: int, lengths: list[int] | None) -> None:
    """basis_universal writes UASTC HDR 4x4 as vkFormat ASTC_4x4_SFLOAT with DFD colour model
    167; the policy transcodes it per platform (BC6H on desktop), so it is not a stored format."""
    data = fx.ktx2_bytes(32, 32, vk_format=1000066000, levels=6, scheme=scheme, dfd=fx.uastc_hdr_dfd(4), level_lengths=lengths)
    f = _one(_read2(data))
    assert (f.stored_format, f.transcodable, f.hdr, f.channels, f.alpha, f.color_space, f.bit_depth) == (
        None, "UASTC_HDR_4x4", True, 3, False, "linear", 16)
    assert f.level_bytes == (1024, 256, 64, 16, 16, 16)  # 8x8 blocks of 16 B, then 4x4, 2x2, 1x1 ...
    assert f.supercompression == (None, "BasisLZ", "Zstandard", "ZLIB")[scheme]


def test_ktx2_astc_4x4_sfloat_with_a_plain_astc_dfd_stays_stored() -> None:
    """ASTC HDR data that is not UASTC (DFD colour model 162, ASTC) is an ordinary stored format."""
    dfd = fx.dfd_descriptor(162, [fx.DfdSample(0, 128, 0, fx.KHR_DF_FLOAT | fx.KHR_DF_SIGNED)], block=(4, 4, 1), planes=(16,))
    f = _one(_read2(fx.ktx2_bytes(32, 32, vk_format=1000066000, levels=6, dfd=dfd)))
    assert (f.stored_format, f.transcodable, f.hdr) == ("ASTC_4x4_SFLOAT", None, True)


def _hdr_6x6i(scheme: int = 4, **kw: object) -> bytes:
    return fx.ktx2_bytes(100, 60, vk_format=0, levels=7, scheme=scheme, dfd=fx.uastc_hdr_dfd(6), sgd=bytes(7 * 12),
                         level_lengths=[900, 300, 100, 40, 20, 10, 10], **kw)  # type: ignore[arg-type]


def test_ktx2_uastc_hdr_6x6_intermediate() -> None:
    """vkFormat 0, DFD colour model 168, supercompression scheme 4 (KTX-Software 5.0,
    basis_universal): level_bytes are the ASTC HDR 6x6 blocks it decodes to, 16 B each."""
    f = _one(_read2(_hdr_6x6i()))
    assert (f.stored_format, f.transcodable, f.supercompression, f.hdr, f.channels, f.alpha) == (
        None, "UASTC_HDR_6x6i", "UASTC HDR 6x6i", True, 3, False)
    # 100x60: 17x10 blocks, 50x30: 9x5, 25x15: 5x3, 12x7: 2x2, 6x3, 3x1, 1x1: one block each
    assert f.level_bytes == (170 * 16, 45 * 16, 15 * 16, 4 * 16, 16, 16, 16)


def test_ktx2_uastc_hdr_6x6i_of_basis_universal_2_0_uses_basislz() -> None:
    """basis_universal 1.6 and 2.0 wrote the 6x6 intermediate with scheme 1 (BasisLZ); its
    transcoder still reads such files, so they are no rule break here."""
    f = _one(_read2(_hdr_6x6i(scheme=1)))
    assert (f.transcodable, f.supercompression) == ("UASTC_HDR_6x6i", "BasisLZ")


def test_ktx2_uastc_hdr_6x6i_with_another_scheme_is_a_warning() -> None:
    result = _read2(_hdr_6x6i(scheme=2, uncompressed=[2720, 720, 240, 64, 16, 16, 16]))
    f = _one(result, ("TB055",))
    assert f.transcodable == "UASTC_HDR_6x6i"
    assert result.findings[0].message == ("KTX2 UASTC_HDR_6x6i data with supercompression Zstandard; "
                                          "its writers use UASTC HDR 6x6i or BasisLZ")


def test_ktx2_scheme_4_on_other_data_is_a_warning() -> None:
    result = _read2(fx.ktx2_bytes(16, 16, vk_format=145, scheme=4, level_lengths=[100]))
    _one(result, ("TB055",))
    assert "it is defined for UASTC HDR 6x6 intermediate data only" in result.findings[0].message


def test_ktx2_bc6h_cube_matches_spec_vector_10() -> None:
    f = _one(_read2(fx.ktx2_bytes(512, 512, vk_format=143, faces=6, levels=10)))
    assert (f.faces, f.layers, f.stored_format) == (6, 1, "BC6H_UFLOAT")
    assert f.level_bytes[0] == 1572864
    assert sum(f.level_bytes) == 2097312


def test_ktx2_bc6h_cube_array_matches_spec_vector_11() -> None:
    f = _one(_read2(fx.ktx2_bytes(256, 256, vk_format=143, faces=6, layers=4, levels=9)))
    assert (f.faces, f.layers, sum(f.level_bytes)) == (6, 4, 2097792)


def test_ktx2_rgba32f_volume_matches_spec_vector_15() -> None:
    f = _one(_read2(fx.ktx2_bytes(64, 64, depth=64, vk_format=109, levels=7, block=(1, 1, 16))))
    assert f.level_bytes == (4194304, 524288, 65536, 8192, 1024, 128, 16)
    assert (sum(f.level_bytes), f.depth, f.bit_depth, f.hdr) == (4793488, 64, 32, True)


def test_ktx2_1d_texture() -> None:
    f = _one(_read2(fx.ktx2_bytes(64, 0, vk_format=37, levels=7, block=(1, 1, 4))))
    assert (f.width, f.height, f.level_bytes) == (64, 1, (256, 128, 64, 32, 16, 8, 4))


def test_ktx2_level_count_zero() -> None:
    f = _one(_read2(fx.ktx2_bytes(16, 16, vk_format=37, levels=0, block=(1, 1, 4))))
    assert (f.stored_levels, f.mips_generate, f.level_bytes) == (1, True, (1024,))
    result = _read2(fx.ktx2_bytes(16, 16, vk_format=145, levels=0))
    f = _one(result, ("TB055",))
    assert f.mips_generate is True


def test_ktx2_unknown_supercompression_is_a_warning_and_still_reported() -> None:
    result = _read2(fx.ktx2_bytes(16, 16, vk_format=145, scheme=0x10000))
    f = _one(result, ("TB052",))
    assert (f.stored_format, f.supercompression, f.level_bytes) == ("BC7_UNORM", "unknown (65536)", (256,))
    assert "65536" in result.findings[0].message


def test_ktx2_etc1s_without_basislz_is_a_warning() -> None:
    dfd = fx.dfd_bytes(fx.KHR_DF_MODEL_ETC1S, channel_ids=(0,))
    f = _one(_read2(fx.ktx2_bytes(16, 16, vk_format=0, dfd=dfd)), ("TB055",))
    assert f.transcodable == "ETC1S"


def test_ktx2_on_disk_via_registry(tmp_path) -> None:
    fx.write(tmp_path, "tex/a.ktx2", fx.ktx2_bytes(32, 32, levels=6))
    (f,) = read_path(tmp_path, "tex/a.ktx2").textures
    assert (f.path, f.level_bytes) == ("tex/a.ktx2", (1024, 256, 64, 16, 16, 16))


def _ktx2_index(entries: list[tuple[int, int, int]], **kw: object) -> bytes:
    return fx.ktx2_bytes(16, 16, index=entries, **kw)  # type: ignore[arg-type]


KTX2_BROKEN = [
    ("empty", b"", "TB040"),
    ("wrong magic", fx.KTX1_MAGIC + bytes(100), "TB041"),
    ("truncated magic", fx.KTX2_MAGIC[:3], "TB042"),
    ("truncated header", fx.ktx2_bytes(16, 16)[:60], "TB042"),
    ("truncated level index", fx.ktx2_bytes(64, 64, levels=7)[:80 + 24 * 3], "TB042"),
    ("zero width", fx.ktx2_bytes(0, 16, level_lengths=[16]), "TB044"),
    ("absurd width", fx.ktx2_bytes(2**31, 16, level_lengths=[16]), "TB045"),
    ("absurd height", fx.ktx2_bytes(16, 2**31, level_lengths=[16]), "TB045"),
    ("absurd layers", fx.ktx2_bytes(16, 16, layers=2**31, level_lengths=[16]), "TB045"),
    ("unknown vkFormat without dfd", fx.ktx2_bytes(16, 16, vk_format=99999, dfd=b""), "TB046"),
    ("vkFormat 0 without dfd", fx.ktx2_bytes(16, 16, vk_format=0, dfd=b""), "TB046"),
    ("unknown vkFormat, level index off the dfd", fx.ktx2_bytes(16, 16, vk_format=99999, level_lengths=[255]), "TB058"),
    ("too many levels", fx.ktx2_bytes(64, 64, levels=8), "TB047"),
    ("absurd level count", fx.ktx2_bytes(64, 64, levels=2**32 - 1, index=[(0, 0, 0)]), "TB047"),
    ("five faces", fx.ktx2_bytes(16, 16, faces=5), "TB048"),
    ("cube with fewer faces", fx.ktx2_bytes(16, 16, faces=3), "TB048"),
    ("non-square cube", fx.ktx2_bytes(16, 8, faces=6), "TB048"),
    ("level index past the end", fx.ktx2_bytes(64, 64, levels=2)[:-100], "TB050"),
    ("level offset past the end", _ktx2_index([(10_000, 256, 256)]), "TB050"),
    ("overlapping levels", fx.ktx2_bytes(16, 16, levels=2, index=[(200, 256, 256), (300, 64, 64)], align=1)
        + bytes(400), "TB051"),
    ("level inside header", _ktx2_index([(40, 256, 256)]) + bytes(300), "TB054"),
    ("zero-length level", _ktx2_index([(200, 0, 0)]) + bytes(300), "TB054"),
    ("dfd outside file", fx.ktx2_bytes(16, 16)[:48] + struct.pack("<I", 1_000_000) + fx.ktx2_bytes(16, 16)[52:], "TB054"),
    ("3D without height", fx.ktx2_bytes(16, 0, depth=4, level_lengths=[64]), "TB054"),
]


@pytest.mark.parametrize(("label", "data", "code"), KTX2_BROKEN, ids=[b[0] for b in KTX2_BROKEN])
def test_broken_ktx2_give_their_specific_finding(label: str, data: bytes, code: str) -> None:
    got, message = _code(_read2(data))
    assert got == code, message


def test_ktx2_level_past_end_message() -> None:
    data = fx.ktx2_bytes(16, 16)
    code, message = _code(_read2(data[:-6]))
    offset = len(data) - 256
    assert (code, message) == ("TB050", f"KTX2 level 0 is bytes {offset}..{offset + 256}, but the file ends at {len(data) - 6} (6 bytes past the end)")


def test_ktx2_too_many_levels_message() -> None:
    assert _code(_read2(fx.ktx2_bytes(64, 64, levels=8)))[1] == "KTX2 header gives 8 mip levels; 64x64 allows at most 7"
