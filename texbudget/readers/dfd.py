"""The Khronos data format descriptor (DFD) of a KTX2 file, read far enough to size a texel
block: what ``readers/ktx.py`` falls back on when texbudget's format table lacks the file's
vkFormat (or the vkFormat is 0 and the colour model is not a Basis one texbudget models).

Layout (Khronos Data Format Specification 1.3/1.4, §"Basic Data Format Descriptor Block";
KTX 2.0 spec §"Data Format Descriptor"): a u32 ``dfdTotalSize``, then descriptor blocks. The
first must be the Khronos basic block: u32 vendorId (17 bits) | descriptorType (15 bits), both
0; u16 versionNumber, u16 descriptorBlockSize (24 + 16 per sample); u8 colorModel,
colorPrimaries, transferFunction, flags; u8 texelBlockDimension0..3 (each the side − 1);
u8 bytesPlane0..7; then 16-byte samples: u16 bitOffset, u8 bitLength − 1, u8 channelType
(channel id in the low 4 bits, qualifiers LINEAR 0x10, EXPONENT 0x20, SIGNED 0x40, FLOAT 0x80
in the high ones), u8 samplePosition0..3, u32 sampleLower, u32 sampleUpper.

A texel block is ``bytesPlane0 + … + bytesPlane7`` bytes (KTX2 allows one plane, except the
two slices of ETC1S; the sum is exact either way). Supercompressed files written before the
KTX 2.0 spec's revision of January 2025 (KTX-Specification #221, "Remove requirement that
bytesPlane be 0 for supercompressed") carry bytesPlane0..7 = 0 ("unsized"); the spec says
software must still handle them, and the block size then comes from the samples, as
KTX-Software's ``reconstructDFDBytesPlanesFromSamples`` does: the end of the sample that
starts last, in bytes, except for the depth/stencil formats whose padding no sample shows
(X8_D24 and D16_S8: 4 bytes, D32_S8: 8 bytes, the KTX2 texel block sizes of those formats).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from texbudget import formats

#: KHR_DF_MODEL_* names for messages (khr_df.h; 167–170 as basis_universal defines them).
MODEL_NAMES = {
    0: "unspecified", 1: "RGBSDA", 2: "YUVSDA", 3: "YIQSDA", 4: "LABSDA", 5: "CMYKA", 6: "XYZW",
    7: "HSVA_ANG", 8: "HSLA_ANG", 9: "HSVA_HEX", 10: "HSLA_HEX", 11: "YCGCOA", 12: "YCCBCCRC",
    13: "ICTCP", 14: "CIEXYZ", 15: "CIEXYY", 128: "BC1A", 129: "BC2", 130: "BC3", 131: "BC4",
    132: "BC5", 133: "BC6H", 134: "BC7", 160: "ETC1", 161: "ETC2", 162: "ASTC", 163: "ETC1S",
    164: "PVRTC", 165: "PVRTC2", 166: "UASTC", 167: "UASTC_HDR_4x4", 168: "UASTC_HDR_6x6",
    169: "XUASTC_LDR", 170: "XUBC7",
}
#: colorModel values from here up are block-compressed formats (khr_df.h).
FIRST_COMPRESSED_MODEL = 128
CHANNEL_ALPHA, CHANNEL_DEPTH, CHANNEL_STENCIL = 15, 14, 13
QUALIFIER_FLOAT = 0x80
#: A sample whose bitOffset is 0xFFFF holds a constant, not stored bits (KDF §"bitOffset").
NO_OFFSET = 0xFFFF
#: bytesPlane0..7 are bytes: a texel block holds at most 8 x 255 bytes.
MAX_BLOCK_BYTES = formats.SELF_SIZED_MAX_BYTES
_BASIC_BLOCK = 24  # bytes of the basic block before its samples
_SAMPLE = 16


@dataclass(frozen=True, slots=True)
class Sample:
    bit_offset: int
    bit_length: int  # bits (the stored value + 1)
    channel: int
    qualifiers: int


@dataclass(frozen=True, slots=True)
class Descriptor:
    """The first (basic) descriptor block of a DFD, as far as sizing needs it."""

    total_size: int  # dfdTotalSize, as the DFD says
    vendor: int
    kind: int  # descriptorType
    block_size: int  # descriptorBlockSize, as the block says
    model: int
    primaries: int
    transfer: int
    flags: int
    block: tuple[int, int, int, int]  # texel block sides (texelBlockDimension + 1)
    planes: tuple[int, ...]  # bytesPlane0..7
    samples: tuple[Sample, ...]

    @property
    def model_name(self) -> str:
        return MODEL_NAMES.get(self.model, "not registered")

    @property
    def compressed(self) -> bool:
        return self.model >= FIRST_COMPRESSED_MODEL

    @property
    def block_bytes(self) -> int:
        """bytesPlane0 + … + bytesPlane7: one texel block's bytes (0: an unsized descriptor)."""
        return sum(self.planes)

    def reconstructed_bytes(self) -> int:
        """The texel block's bytes from the samples, for a descriptor whose bytesPlane0..7 are 0
        (module docstring); 0 when no sample says."""
        stored = [s for s in self.samples if s.bit_offset != NO_OFFSET]
        if not stored:
            return 0
        first = stored[0]
        if first.channel == CHANNEL_DEPTH and not self.compressed:
            if len(stored) == 1 and first.bit_length == 24:
                return 4  # X8_D24_UNORM_PACK32
            if len(stored) == 2 and first.bit_length == 16:
                return 4  # D16_UNORM_S8_UINT
            if len(stored) == 2 and first.bit_length == 32 and stored[1].channel == CHANNEL_STENCIL:
                return 8  # D32_SFLOAT_S8_UINT
        last = max(stored, key=lambda s: s.bit_offset)
        return (last.bit_offset + last.bit_length) // 8

    @property
    def alpha(self) -> bool:
        """An alpha sample (RGBSDA, YUVSDA and the other colour models give alpha id 15)."""
        return not self.compressed and any(s.channel == CHANNEL_ALPHA for s in self.samples)

    @property
    def channels(self) -> int:
        """Distinct channels the samples give (1–4); 4 for a block-compressed model, whose
        samples name parts of the block rather than channels."""
        if self.compressed or not self.samples:
            return 4
        return max(1, min(4, len({s.channel for s in self.samples})))

    @property
    def hdr(self) -> bool:
        """A floating-point colour sample (not depth or stencil)."""
        return any(s.qualifiers & QUALIFIER_FLOAT and s.channel not in (CHANNEL_DEPTH, CHANNEL_STENCIL)
                   for s in self.samples)

    @property
    def bit_depth(self) -> int:
        """Bits of the widest sample of an uncompressed block; 16 for floating-point and 8 for
        other compressed data (as ``readers._common.bit_depth_of`` counts table formats)."""
        if self.compressed or not self.samples:
            return 16 if self.hdr else 8
        return max(s.bit_length for s in self.samples)


def parse(dfd: bytes) -> Descriptor | None:
    """The first descriptor block of ``dfd`` (the DFD as read, at most its first
    ``ktx.DFD_READ_LIMIT`` bytes), or None when it is shorter than a basic block. Samples past
    the bytes read or past the block's own size are not parsed; ``problem`` judges the rest."""
    if len(dfd) < 4 + _BASIC_BLOCK:
        return None
    total, head, version_and_size = struct.unpack_from("<III", dfd, 0)
    block_size = version_and_size >> 16
    model, primaries, transfer, flags, *rest = dfd[12:28]
    n = max(0, min((block_size - _BASIC_BLOCK) // _SAMPLE, (len(dfd) - 4 - _BASIC_BLOCK) // _SAMPLE))
    samples = []
    for i in range(n):
        offset, length, channel_type = struct.unpack_from("<HBB", dfd, 4 + _BASIC_BLOCK + _SAMPLE * i)
        samples.append(Sample(offset, length + 1, channel_type & 0x0F, channel_type & 0xF0))
    return Descriptor(
        total_size=total, vendor=head & 0x1FFFF, kind=head >> 17, block_size=block_size,
        model=model, primaries=primaries, transfer=transfer, flags=flags,
        block=(rest[0] + 1, rest[1] + 1, rest[2] + 1, rest[3] + 1), planes=tuple(rest[4:12]),
        samples=tuple(samples),
    )


def problem(desc: Descriptor, dfd_length: int, supercompressed: bool) -> str | None:
    """Why ``desc`` cannot size a texel block (a KTX2 rule it breaks), or None. ``dfd_length``
    is the header's dfdByteLength; ``supercompressed``: the file's scheme is not 0, so
    bytesPlane0..7 may be 0 (module docstring)."""
    if desc.total_size != dfd_length:
        return f"dfdTotalSize is {desc.total_size}, the header's dfdByteLength {dfd_length}"
    if desc.vendor != 0 or desc.kind != 0:
        return f"the first descriptor block is vendor {desc.vendor} type {desc.kind}, not the Khronos basic block (0, 0)"
    if desc.block_size < _BASIC_BLOCK or (desc.block_size - _BASIC_BLOCK) % _SAMPLE:
        return f"descriptorBlockSize {desc.block_size} is not 24 + 16 per sample"
    if 4 + desc.block_size > desc.total_size:
        return f"the basic descriptor block ({desc.block_size} bytes) is longer than the descriptor ({desc.total_size} bytes)"
    if not desc.samples:
        return "the basic descriptor block has no sample"
    if desc.block[3] != 1:
        return f"texelBlockDimension3 gives {desc.block[3]} (a fourth block dimension; KTX2 images have three)"
    size = desc.block_bytes or (desc.reconstructed_bytes() if supercompressed else 0)
    if size == 0:
        if supercompressed:
            return "bytesPlane0..7 are all 0 and no sample gives the block's size"
        return "bytesPlane0..7 are all 0 in a file that is not supercompressed"
    if size > MAX_BLOCK_BYTES:
        return f"the samples end {size} bytes into the texel block; bytesPlane0..7 hold at most {MAX_BLOCK_BYTES}"
    for i, s in enumerate(desc.samples):
        if s.bit_offset != NO_OFFSET and s.bit_offset + s.bit_length > 8 * size:
            return f"sample {i} ends at bit {s.bit_offset + s.bit_length}, past the {size}-byte texel block"
    return None


def block_bytes(desc: Descriptor, supercompressed: bool) -> tuple[int, bool]:
    """(bytes of one texel block, whether they came from the samples rather than bytesPlane);
    call after ``problem`` found none."""
    if desc.block_bytes:
        return desc.block_bytes, False
    return desc.reconstructed_bytes() if supercompressed else 0, True
