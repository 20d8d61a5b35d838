"""A KTX2 file sizes itself: a vkFormat texbudget's table lacks (or 0 with a colour model it
does not model) is sized from the file's own data format descriptor (TB057); a descriptor that
breaks the rules is TB054, a level index that disagrees with it TB058. Sizes are worked out by
hand in the comments; the descriptors are the registry helper's (``ktx2_registry``), which
match KTX-Software's for every format both know."""

from __future__ import annotations

import dataclasses
import struct

import pytest

from tests.readers import factories as fx
from tests.readers import ktx2_registry as reg
from texbudget import formats
from texbudget.model import ReadResult, Severity, TextureFacts
from texbudget.readers import Source
from texbudget.readers.ktx import read_ktx2

REGISTRY = {f.name.removeprefix("VK_FORMAT_"): f for f in reg.registry_formats()}
#: A vkFormat number no format has (VK_ARM_format_pack's R8_BOOL is 1000460000): the table
#: covers every registry format, so the descriptor is what sizes a file that names this one.
UNKNOWN_VK = 1000999000


def _unknown(name: str) -> reg.RegistryFormat:
    """The registry format ``name`` with its real descriptor but a vkFormat the table lacks."""
    fmt = REGISTRY[name]
    assert formats.by_vk(fmt.value) is not None and formats.by_vk(UNKNOWN_VK) is None
    return dataclasses.replace(fmt, value=UNKNOWN_VK)


def _same_as_the_table(name: str, data_of, level_bytes: tuple[int, ...]) -> None:
    """Under its own vkFormat the table sizes the file alike, without a finding."""
    known = _read(data_of(REGISTRY[name]))
    assert (known.findings, known.textures[0].level_bytes) == ((), level_bytes)


def _read(data: bytes) -> ReadResult:
    return read_ktx2(Source(rel="t.ktx2", data=data, suffix_hint=".ktx2"))


def _self_sized(data: bytes) -> tuple[TextureFacts, str]:
    result = _read(data)
    assert [f.code for f in result.findings] == ["TB057"], result.findings
    (facts,) = result.textures
    return facts, result.findings[0].message


def _error(data: bytes) -> tuple[str, str]:
    result = _read(data)
    assert result.textures == ()
    (finding,) = result.findings
    assert finding.severity is Severity.ERROR
    return finding.code, finding.message


def test_a_vkformat_the_table_lacks_is_sized_from_its_descriptor() -> None:
    fmt = _unknown("R8_BOOL_ARM")  # VK_ARM_format_pack's descriptor: 1 byte a texel
    facts, message = _self_sized(reg.ktx2_file(fmt, 64, 64, levels=7))
    assert message == (f"KTX2 vkFormat {UNKNOWN_VK} is not in texbudget's table; sized from the file's data format "
                       "descriptor: 1x1x1 blocks of 1 byte.")
    assert facts.stored_format == "DFD_1x1x1_1B"
    assert facts.level_bytes == (4096, 1024, 256, 64, 16, 4, 1)
    _same_as_the_table("R8_BOOL_ARM", lambda f: reg.ktx2_file(f, 64, 64, levels=7), facts.level_bytes)
    assert (facts.channels, facts.alpha, facts.hdr, facts.bit_depth, facts.color_space) == (1, False, False, 8, None)


def test_astc_3d_blocks() -> None:
    """ASTC 4x4x4 (VK_EXT_texture_compression_astc_3d), 7x5x3 with 3 levels: 2x2x1 blocks,
    then 3x2x1 texels in 1 block, then 1x1x1 in 1 block; 16 B a block."""
    facts, message = _self_sized(reg.ktx2_file(_unknown("ASTC_4x4x4_SFLOAT_BLOCK_EXT"), 7, 5, depth=3, levels=3))
    assert message.endswith("sized from the file's data format descriptor: 4x4x4 blocks of 16 bytes.")
    assert (facts.stored_format, facts.level_bytes, facts.depth) == ("DFD_4x4x4_16B", (64, 16, 16), 3)
    assert (facts.hdr, facts.bit_depth, facts.color_space) == (True, 16, "linear")
    _same_as_the_table("ASTC_4x4x4_SFLOAT_BLOCK_EXT", lambda f: reg.ktx2_file(f, 7, 5, depth=3, levels=3), facts.level_bytes)


def test_pvrtc2_has_no_minimum_block_count() -> None:
    """PVRTC2 (unlike PVRTC1, in the table with its 2x2-block minimum) is whole 4x4 blocks of
    8 bytes down to 1x1 (KTX-Software's vk_format.h gives PVRTC2 no minBlocks)."""
    facts, _ = _self_sized(reg.ktx2_file(_unknown("PVRTC2_4BPP_UNORM_BLOCK_IMG"), 8, 8, levels=4))
    assert facts.level_bytes == (32, 8, 8, 8)
    _same_as_the_table("PVRTC2_4BPP_UNORM_BLOCK_IMG", lambda f: reg.ktx2_file(f, 8, 8, levels=4), facts.level_bytes)
    pvrtc1 = _read(reg.ktx2_file(REGISTRY["PVRTC1_4BPP_UNORM_BLOCK_IMG"], 8, 8, levels=4))
    assert (pvrtc1.findings, pvrtc1.textures[0].level_bytes) == ((), (32, 32, 32, 32))


def test_a_422_format_has_2x1_blocks() -> None:
    """G8B8G8R8_422_UNORM, 3x5: ceil(3/2) = 2 blocks a row, 5 rows, 4 bytes a block."""
    facts, message = _self_sized(reg.ktx2_file(_unknown("G8B8G8R8_422_UNORM"), 3, 5))
    assert facts.level_bytes == (40,)
    assert "2x1x1 blocks of 4 bytes" in message
    _same_as_the_table("G8B8G8R8_422_UNORM", lambda f: reg.ktx2_file(f, 3, 5), facts.level_bytes)


def test_vkformat_0_with_a_plain_descriptor() -> None:
    """vkFormat 0 is for formats Vulkan lacks; an RGBSDA descriptor still sizes the data."""
    dfd = fx.dfd_descriptor(1, [fx.DfdSample(0, 16, 0, fx.KHR_DF_FLOAT | fx.KHR_DF_SIGNED), fx.DfdSample(16, 16, 15, fx.KHR_DF_FLOAT | fx.KHR_DF_SIGNED)],
                            planes=(4,))
    facts, message = _self_sized(fx.ktx2_bytes(10, 6, vk_format=0, dfd=dfd, block=(1, 1, 4)))
    assert message == ("KTX2 vkFormat 0 (undefined) with colour model 1 (RGBSDA) is not a format texbudget models; "
                       "sized from the file's data format descriptor: 1x1x1 blocks of 4 bytes.")
    assert (facts.level_bytes, facts.channels, facts.alpha, facts.hdr, facts.bit_depth) == ((240,), 2, True, True, 16)


def test_a_prohibited_vkformat_is_still_sized_and_named() -> None:
    """R8_USCALED (11) is banned by KTX 2.0 §"Prohibited Formats"; its bytes are still known."""
    dfd = fx.dfd_descriptor(1, [fx.DfdSample(0, 8, 0, 0, 0, 255)], planes=(1,))
    facts, message = _self_sized(fx.ktx2_bytes(4, 4, vk_format=11, dfd=dfd, block=(1, 1, 1)))
    assert facts.level_bytes == (16,)
    assert message.endswith("1x1x1 blocks of 1 byte. KTX2 prohibits this vkFormat (a *_SCALED or multi-planar format).")


@pytest.mark.parametrize(("name", "texel_bytes"), [
    ("R16G16B16A16_SNORM", 8), ("A2B10G10R10_SNORM_PACK32", 4), ("R32G32B32_SINT", 12),
    ("X8_D24_UNORM_PACK32", 4), ("D16_UNORM_S8_UINT", 4), ("D32_SFLOAT_S8_UINT", 8), ("R64G64B64A64_SFLOAT", 32),
])
def test_unsized_supercompressed_descriptor_is_sized_from_its_samples(name: str, texel_bytes: int) -> None:
    """Files written before KTX-Specification #221 (January 2025) set bytesPlane0..7 to 0 when
    supercompressed; the block size then comes from the samples (the last sample's end, or the
    KTX2 texel block size of the depth/stencil formats whose padding no sample shows)."""
    fmt = REGISTRY[name]
    dfd = bytearray(fmt.dfd)
    dfd[4 + 16 : 4 + 24] = bytes(8)  # bytesPlane0..7 = 0
    inflated = [16 * texel_bytes, 4 * texel_bytes, texel_bytes]
    data = fx.ktx2_bytes(4, 4, vk_format=fmt.value, levels=3, scheme=2, dfd=bytes(dfd), level_lengths=[9, 5, 3], uncompressed=inflated)
    result = _read(data)
    (facts,) = result.textures
    assert facts.level_bytes == tuple(inflated)
    if formats.by_vk(fmt.value) is None:
        (note,) = result.findings
        assert note.code == "TB057"
        assert f"1x1x1 blocks of {texel_bytes} bytes (bytesPlane0..7 are 0, as in supercompressed files" in note.message


def _with(fmt_name: str, **patch: int) -> bytes:
    """A 4x4 file of ``fmt_name`` whose descriptor has bytes patched: ``at_N=value``."""
    fmt = _unknown(fmt_name)
    dfd = bytearray(fmt.dfd)
    for key, value in patch.items():
        dfd[int(key.removeprefix("at_"))] = value
    return fx.ktx2_bytes(4, 4, vk_format=fmt.value, dfd=bytes(dfd), level_lengths=reg.level_lengths(fmt, 4, 4), align=4)


BROKEN = [
    ("no descriptor", fx.ktx2_bytes(4, 4, vk_format=UNKNOWN_VK, dfd=b"", level_lengths=[16]), "TB046",
     f"KTX2 vkFormat {UNKNOWN_VK} is not in texbudget's table, and the file has no data format descriptor to size it from"),
    ("total size", _with("R8_BOOL_ARM", at_0=99), "TB054", "dfdTotalSize is 99, the header's dfdByteLength 44"),
    ("vendor block", _with("R8_BOOL_ARM", at_4=7), "TB054",
     "the first descriptor block is vendor 7 type 0, not the Khronos basic block (0, 0)"),
    ("block size", _with("R8_BOOL_ARM", at_10=30), "TB054", "descriptorBlockSize 30 is not 24 + 16 per sample"),
    ("block past the descriptor", _with("R8_BOOL_ARM", at_10=56), "TB054",
     "the basic descriptor block (56 bytes) is longer than the descriptor (44 bytes)"),
    ("no sample", _with("R8_BOOL_ARM", at_10=24), "TB054", "the basic descriptor block has no sample"),
    ("fourth dimension", _with("R8_BOOL_ARM", at_19=1), "TB054",
     "texelBlockDimension3 gives 2 (a fourth block dimension; KTX2 images have three)"),
    ("zero bytesPlane", _with("R8_BOOL_ARM", at_20=0), "TB054", "bytesPlane0..7 are all 0 in a file that is not supercompressed"),
    ("sample past the block", _with("R8_BOOL_ARM", at_30=15), "TB054", "sample 0 ends at bit 16, past the 1-byte texel block"),
]


@pytest.mark.parametrize(("label", "data", "code", "why"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_descriptor_that_cannot_size_the_file_is_an_error(label: str, data: bytes, code: str, why: str) -> None:
    got, message = _error(data)
    assert got == code
    assert message.endswith(why), message


def test_level_index_that_disagrees_with_the_descriptor_is_tb058() -> None:
    fmt = _unknown("R8_BOOL_ARM")
    data = fx.ktx2_bytes(8, 8, vk_format=fmt.value, levels=2, dfd=fmt.dfd, level_lengths=[64, 15], align=4)
    assert _error(data) == ("TB058", "KTX2 level index disagrees with the file's data format descriptor "
                                     "(1x1x1 blocks of 1 byte) for 8x8: level 1: byteLength 15, expected 16")
    zstd = fx.ktx2_bytes(8, 8, vk_format=fmt.value, levels=2, scheme=2, dfd=fmt.dfd, level_lengths=[20, 9], uncompressed=[64, 17])
    assert _error(zstd)[1].endswith("level 1: uncompressedByteLength 17, expected 16")


def test_a_known_format_with_a_wrong_level_keeps_the_table_size_as_a_warning() -> None:
    """The table is an independent source: a known format's mismatch stays TB053."""
    result = _read(fx.ktx2_bytes(16, 16, vk_format=145, level_lengths=[255]))
    assert [f.code for f in result.findings] == ["TB053"]
    assert result.textures[0].level_bytes == (256,)


def test_self_sized_format_names_resolve() -> None:
    fmt = formats.find("dfd_4x4x4_16b")
    assert fmt is not None and fmt is formats.self_sized(4, 4, 4, 16)
    assert (fmt.name, fmt.family, fmt.compressed, fmt.transcodable, fmt.bits_per_pixel) == ("DFD_4x4x4_16B", "unknown", True, False, 2.0)
    assert formats.find("DFD_1x1x1_4B").compressed is False  # type: ignore[union-attr]
    for name in ("DFD_0x4x1_16B", "DFD_4x4x1_0B", "DFD_257x1x1_4B", "DFD_1x1x1_2041B", "DFD_04x4x1_16B", "DFD_4x4_16B"):
        assert formats.find(name) is None, name
    with pytest.raises(ValueError):
        formats.self_sized(1, 1, 1, 0)


def test_the_registry_descriptor_fields_land_where_the_reader_looks() -> None:
    """The helper's descriptor for a format the table knows, read by hand: BC7_SRGB (146)."""
    dfd = REGISTRY["BC7_SRGB_BLOCK"].dfd
    total, head, size = struct.unpack_from("<IIH", dfd, 0)[0], struct.unpack_from("<I", dfd, 4)[0], struct.unpack_from("<H", dfd, 10)[0]
    assert (total, head, size, dfd[12:16], dfd[16:20], dfd[20]) == (44, 0, 40, bytes([134, 1, 2, 0]), bytes([3, 3, 0, 0]), 16)
