"""KTX 1.1 and KTX2 headers (spec/textures.md §4.1, §4.4; Khronos KTX 1.1 and KTX 2.0 specs).

Headers, the KTX1 per-level ``imageSize`` words and the KTX2 level index and data format
descriptor are read; level data never is. Every count is bounded before it is used (the
level count by the full chain, layers and faces by ``MAX_LAYERS``), so nothing is allocated
from a number the file claims.

KTX1: the endianness word decides the byte order of every later u32 (big-endian files are
read too). ``numberOfMipmapLevels`` 0 means the loader generates the chain: one stored level,
``mips_generate`` True. Each level's ``imageSize`` is checked against the size the format
gives (rows of uncompressed data padded to 4 bytes, GL_UNPACK_ALIGNMENT 4; for a non-array
cubemap ``imageSize`` is one face) and against the file length, by walking the level
headers with seeks.

KTX2: the level index is validated (inside the file, not inside the header, not
overlapping, at most floor(log2(max dim)) + 1 levels). For a vkFormat of texbudget's table the
computed per-level bytes must equal each level's ``uncompressedByteLength`` (``byteLength``
without supercompression); a difference is a TB053 warning, the table's size is used.

A vkFormat the table lacks, or vkFormat 0 with a colour model texbudget does not model, is
sized from the file's own data format descriptor (``readers/dfd.py``): its texel block
dimensions and bytesPlane0..7 make a ``formats.self_sized`` format (``DFD_4x4x1_16B``), a
TB057 warning names it, and the level index must agree with it exactly (nothing else tells
which is right, so a difference is the TB058 error); a descriptor that breaks the rules is
TB054, none at all TB046.

Basis Universal payloads are reported as ``transcodable`` with ``stored_format`` None (the
policy picks the GPU format per platform): ETC1S (vkFormat 0, DFD colour model 163,
BasisLZ), UASTC LDR 4x4 (vkFormat 0, model 166), UASTC HDR 4x4 (vkFormat ASTC_4x4_SFLOAT,
model 167) and UASTC HDR 6x6 intermediate (vkFormat 0, model 168, supercompression scheme
4) — the vkFormats, models and scheme as basis_universal writes and reads them
(``encoder/basisu_comp.cpp``, ``ktx2_transcoder::init``). Alpha comes from the DFD samples
(UASTC HDR has none).
"""

from __future__ import annotations

import itertools
import struct
from typing import BinaryIO

from texbudget import findings, formats
from texbudget.model import Finding, PixelFormat, ReadResult, TextureFacts
from texbudget.readers import Source
from texbudget.readers import dfd as khr_dfd
from texbudget.readers._common import (
    MAX_LAYERS,
    bit_depth_of,
    check_dims,
    color_space_of,
    fail,
    read_at,
    texture_result,
)
from texbudget.sizing.textures import full_mip_count, level_bytes, level_dims, mip_chain

KTX1_MAGIC = b"\xabKTX 11\xbb\r\n\x1a\n"
KTX2_MAGIC = b"\xabKTX 20\xbb\r\n\x1a\n"
KTX1_HEADER_BYTES = 64
KTX2_HEADER_BYTES = 80
KTX2_LEVEL_ENTRY = 24
ENDIAN_REF = 0x04030201

#: Scheme 4 is reserved in the published KTX 2.0 spec; KTX-Software 5.0
#: (``KTX_SS_UASTC_HDR_6x6_INTERMEDIATE``) and basis_universal (``KTX2_SS_UASTC_HDR_6x6I``)
#: give it to UASTC HDR 6x6 intermediate data.
SUPERCOMPRESSION = {0: None, 1: "BasisLZ", 2: "Zstandard", 3: "ZLIB", 4: "UASTC HDR 6x6i"}
MODEL_ETC1S = 163
MODEL_UASTC = 166
MODEL_UASTC_HDR_4X4 = 167
MODEL_UASTC_HDR_6X6I = 168
VK_ASTC_4X4_SFLOAT = 1000066000
#: (vkFormat, DFD colour model) -> (Basis HDR pseudo-format, the schemes its writers use).
#: UASTC HDR 4x4 is ASTC HDR 4x4 data under vkFormat ASTC_4x4_SFLOAT, raw, Zstandard or ZLIB
#: (KTX-Software writes all three); UASTC HDR 6x6i has vkFormat 0 and scheme 4, BasisLZ in
#: files of basis_universal 1.6 and 2.0 (its ``ktx2_transcoder::init`` accepts both).
_BASIS_HDR: dict[tuple[int, int | None], tuple[str, tuple[int, ...]]] = {
    (VK_ASTC_4X4_SFLOAT, MODEL_UASTC_HDR_4X4): ("UASTC_HDR_4x4", (0, 2, 3)),
    (0, MODEL_UASTC_HDR_6X6I): ("UASTC_HDR_6x6i", (4, 1)),
}
#: vkFormats KTX2 prohibits (spec §"Prohibited Formats"): *_SCALED and multi-planar.
_PROHIBITED = frozenset((11, 12, 18, 19, 25, 26, 32, 33, 39, 40, 46, 47, 53, 54, 60, 61, 66, 67,
                         72, 73, 79, 80, 86, 87, 93, 94,
                         *range(1000156002, 1000156007), *range(1000156012, 1000156017),
                         *range(1000156022, 1000156027), *range(1000156029, 1000156034),
                         *range(1000330000, 1000330004)))
TRANSFER_LINEAR, TRANSFER_SRGB = 1, 2
#: bytes of a DFD read at most: the basic block header (24) and up to 60 samples
DFD_READ_LIMIT = 24 + 4 + 60 * 16

# ETC1S slice channel ids: RGB 0, RRR 3, GGG 4, AAA 15 (KHR_DF_CHANNEL_ETC1S_*)
_ETC1S_CHANNELS = {0: 3, 3: 1, 4: 1, 15: 1}
_ETC1S_ALPHA = 15
# UASTC channel id of sample 0 -> (channels, alpha): RGB 0, RGBA 3, RRR 4, RRRG 5, RG 6
_UASTC_CHANNELS = {0: (3, False), 3: (4, True), 4: (1, False), 5: (2, True), 6: (2, False)}

# Unsized KTX1 glInternalFormat (legacy writers) + glType -> format
_GL_UNSIGNED_BYTE, _GL_UNSIGNED_SHORT, _GL_HALF_FLOAT, _GL_FLOAT = 0x1401, 0x1403, 0x140B, 0x1406
_GL_UNSIZED = {
    (0x1908, _GL_UNSIGNED_BYTE): "R8G8B8A8_UNORM",  # GL_RGBA
    (0x1907, _GL_UNSIGNED_BYTE): "R8G8B8_UNORM",  # GL_RGB
    (0x1909, _GL_UNSIGNED_BYTE): "R8_UNORM",  # GL_LUMINANCE
    (0x190A, _GL_UNSIGNED_BYTE): "R8G8_UNORM",  # GL_LUMINANCE_ALPHA
    (0x1906, _GL_UNSIGNED_BYTE): "R8_UNORM",  # GL_ALPHA
    (0x1903, _GL_UNSIGNED_BYTE): "R8_UNORM",  # GL_RED
    (0x8227, _GL_UNSIGNED_BYTE): "R8G8_UNORM",  # GL_RG
    (0x1908, _GL_UNSIGNED_SHORT): "R16G16B16A16_UNORM",
    (0x1908, _GL_HALF_FLOAT): "R16G16B16A16_SFLOAT",
    (0x1908, _GL_FLOAT): "R32G32B32A32_SFLOAT",
    (0x1907, _GL_HALF_FLOAT): "R16G16B16_SFLOAT",
    (0x1907, _GL_FLOAT): "R32G32B32_SFLOAT",
}


def _magic_problem(rel: str, head: bytes, magic: bytes, what: str) -> ReadResult | None:
    if head.startswith(magic):
        return None
    if magic.startswith(head):
        return fail(rel, "TB042", f"{what} header truncated: the file has {len(head)} bytes, it ends inside the signature")
    return fail(rel, "TB041", f"the file does not start with the {what} signature (first bytes {head[:12].hex(' ')})")


def _dims_of(rel: str, what: str, width: int, height: int, depth: int, faces: int, layers: int) -> tuple[int, int, int] | ReadResult:
    """(w, h, d) with 1D/2D zeros turned into 1, after the shared dimension checks."""
    if width == 0:
        return fail(rel, "TB044", f"{what} header gives width 0")
    if depth > 0 and height == 0:
        return fail(rel, "TB054", f"{what} header gives depth {depth} with height 0 (a 3D texture needs a height)")
    w, h, d = width, max(1, height), max(1, depth)
    bad = check_dims(rel, what, w, h, d)
    if bad is not None:
        return bad
    if faces not in (1, 6):
        return fail(rel, "TB048", f"{what} header gives {faces} faces; a texture has 1, a cubemap 6")
    if faces == 6 and (w != h or depth > 0):
        return fail(rel, "TB048", f"{what} cubemap faces are {w}x{h}" + (f"x{depth}" if depth else "") + "; cube faces must be square and 2D")
    if faces * layers > MAX_LAYERS:
        return fail(rel, "TB045", f"{what} header gives {layers} layers x {faces} faces; more than {MAX_LAYERS} images is beyond any GPU")
    return w, h, d


def _too_many_levels(rel: str, what: str, levels: int, w: int, h: int, d: int) -> ReadResult | None:
    full = full_mip_count(w, h, d)
    if levels > full:
        dims = f"{w}x{h}" + (f"x{d}" if d > 1 else "")
        return fail(rel, "TB047", f"{what} header gives {levels} mip levels; {dims} allows at most {full}")
    return None


# --- KTX 1.1 --------------------------------------------------------------------------------


def read_ktx1(src: Source) -> ReadResult:
    """Facts of one KTX 1.1 file. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(KTX1_HEADER_BYTES)
    bad = _magic_problem(src.rel, head, KTX1_MAGIC, "KTX")
    if bad is not None:
        return bad
    if len(head) < KTX1_HEADER_BYTES:
        return fail(src.rel, "TB042", f"KTX header truncated: the file has {len(head)} bytes, the header needs {KTX1_HEADER_BYTES}")
    endian_word = struct.unpack_from("<I", head, 12)[0]
    if endian_word == ENDIAN_REF:
        order = "<"
    elif endian_word == 0x01020304:
        order = ">"
    else:
        return fail(src.rel, "TB054", f"KTX endianness word is 0x{endian_word:08x} (must be 0x04030201 in either byte order)")
    (gl_type, _type_size, _gl_format, gl_internal, _gl_base, width, height, depth,
     array_elements, faces, mip_levels, kvd_bytes) = struct.unpack_from(order + "12I", head, 16)

    fmt = formats.by_gl(gl_internal) or _unsized(gl_internal, gl_type)
    if fmt is None or fmt.transcodable:
        return fail(src.rel, "TB046", f"KTX glInternalFormat 0x{gl_internal:04X} (glType 0x{gl_type:04X}) is not a format texbudget knows")
    layers = max(1, array_elements)
    dims = _dims_of(src.rel, "KTX", width, height, depth, faces, layers)
    if isinstance(dims, ReadResult):
        return dims
    w, h, d = dims
    generate = mip_levels == 0
    levels = max(1, mip_levels)
    bad = _too_many_levels(src.rel, "KTX", levels, w, h, d)
    if bad is not None:
        return bad
    data_start = KTX1_HEADER_BYTES + kvd_bytes
    if data_start > size:
        return fail(src.rel, "TB042", f"KTX header truncated: {kvd_bytes} bytes of key/value data end at {data_start}, the file at {size}")

    chain = mip_chain(fmt, w, h, d, levels=levels, faces=faces, layers=layers)
    non_array_cube = faces == 6 and array_elements == 0
    expected_sizes = [_ktx1_image_size(fmt, *level_dims(w, h, d, i)) * (1 if non_array_cube else faces * layers) for i in range(levels)]
    notes: list[Finding] = []
    with src.open() as f:
        walked = _walk_ktx1_levels(src.rel, f, size, order, data_start, expected_sizes, non_array_cube)
    if isinstance(walked, ReadResult):
        return walked
    if walked:
        shown = "; ".join(f"level {i}: imageSize {got}, expected {want}" for i, got, want in walked[:3])
        notes.append(findings.make(src.rel, "TB053", f"KTX imageSize disagrees with {fmt.name} {w}x{h}: {shown}" + (" …" if len(walked) > 3 else "")))

    facts = TextureFacts(
        path=src.rel, container="ktx", width=w, height=h, depth=d, layers=layers, faces=faces,
        stored_levels=levels, stored_format=fmt.name, channels=fmt.channels, alpha=fmt.alpha,
        bit_depth=bit_depth_of(fmt), hdr=fmt.hdr, color_space=color_space_of(fmt),
        disk_bytes=size, level_bytes=tuple(m.bytes for m in chain), mips_generate=generate,
    )
    return texture_result(facts, notes)


def _unsized(gl_internal: int, gl_type: int) -> PixelFormat | None:
    """Legacy writers put an unsized enum (GL_RGBA) in glInternalFormat; glType sizes it."""
    name = _GL_UNSIZED.get((gl_internal, gl_type))
    return formats.find(name) if name else None


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def _ktx1_image_size(fmt: PixelFormat, w: int, h: int, d: int) -> int:
    """One face of one layer of a level as KTX1 stores it: rows of uncompressed data padded
    to 4 bytes (GL_UNPACK_ALIGNMENT 4); compressed data is whole blocks."""
    if fmt.compressed:
        return level_bytes(fmt, w, h, d)
    return _pad4(w * fmt.bytes_per_block) * h * d


def _walk_ktx1_levels(
    rel: str, f: BinaryIO, size: int, order: str, offset: int, expected: list[int], non_array_cube: bool,
) -> list[tuple[int, int, int]] | ReadResult:
    """Follow the ``imageSize`` words level by level. Returns the mismatches (level, stored,
    expected), or a TB043 result when the file ends before the last level's data."""
    copies = 6 if non_array_cube else 1
    mismatches: list[tuple[int, int, int]] = []
    for i, want in enumerate(expected):
        raw = read_at(f, offset, 4, size)
        if len(raw) < 4:
            missing = sum(4 + _pad4(e) * copies for e in expected[i:]) - (size - offset)
            return fail(rel, "TB043", f"KTX pixel data truncated: level {i}'s imageSize at offset {offset} is past the end of the file at {size} ({missing} bytes missing)")
        got = struct.unpack(order + "I", raw)[0]
        if got != want:
            mismatches.append((i, got, want))
        end = offset + 4 + _pad4(got) * copies
        if end > size:
            missing = end + sum(4 + _pad4(e) * copies for e in expected[i + 1:]) - size
            return fail(rel, "TB043", f"KTX pixel data truncated: level {i} needs {got * copies} bytes at offset {offset + 4}, the file ends at {size} ({missing} bytes missing)")
        offset = end
    return mismatches


# --- KTX2 -----------------------------------------------------------------------------------


def read_ktx2(src: Source) -> ReadResult:
    """Facts of one KTX2 file. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(KTX2_HEADER_BYTES)
    bad = _magic_problem(src.rel, head, KTX2_MAGIC, "KTX2")
    if bad is not None:
        return bad
    if len(head) < KTX2_HEADER_BYTES:
        return fail(src.rel, "TB042", f"KTX2 header truncated: the file has {len(head)} bytes, the header needs {KTX2_HEADER_BYTES}")
    (vk_format, _type_size, width, height, depth, layer_count, face_count, level_count,
     scheme, dfd_offset, dfd_length, kvd_offset, kvd_length) = struct.unpack_from("<13I", head, 12)
    sgd_offset, sgd_length = struct.unpack_from("<2Q", head, 64)

    layers = max(1, layer_count)
    dims = _dims_of(src.rel, "KTX2", width, height, depth, face_count, layers)
    if isinstance(dims, ReadResult):
        return dims
    w, h, d = dims
    faces = face_count
    generate = level_count == 0
    levels = max(1, level_count)
    bad = _too_many_levels(src.rel, "KTX2", levels, w, h, d)
    if bad is not None:
        return bad
    index_end = KTX2_HEADER_BYTES + KTX2_LEVEL_ENTRY * levels
    if index_end > size:
        return fail(src.rel, "TB042", f"KTX2 header truncated: the level index of {levels} level(s) ends at {index_end}, the file at {size}")

    notes: list[Finding] = []
    supercompression = SUPERCOMPRESSION.get(scheme, f"unknown ({scheme})")
    if scheme not in SUPERCOMPRESSION:
        notes.append(findings.make(src.rel, "TB052", f"KTX2 supercompressionScheme {scheme} (0x{scheme:x}) is not one texbudget knows; sizes come from the header"))

    for name, off, length in (("data format descriptor", dfd_offset, dfd_length),
                              ("key/value data", kvd_offset, kvd_length),
                              ("supercompression global data", sgd_offset, sgd_length)):
        if length and (off < index_end or off + length > size):
            return fail(src.rel, "TB054", f"KTX2 {name} at bytes {off}..{off + length} lies outside the file's data area ({index_end}..{size})")

    index = src.read_at(KTX2_HEADER_BYTES, index_end - KTX2_HEADER_BYTES)
    dfd = src.read_at(dfd_offset, min(dfd_length, DFD_READ_LIMIT)) if dfd_length else b""
    if len(index) < index_end - KTX2_HEADER_BYTES:  # the file was cut after it was measured
        return fail(src.rel, "TB005", f"KTX2 level index: {index_end - KTX2_HEADER_BYTES} bytes at offset {KTX2_HEADER_BYTES} expected, {len(index)} read (the file changed while it was read)")
    entries = list(struct.iter_unpack("<3Q", index))  # (byteOffset, byteLength, uncompressedByteLength)
    bad = _check_level_index(src.rel, entries, index_end, size)
    if bad is not None:
        return bad

    parsed = _parse_dfd(src.rel, dfd)
    if isinstance(parsed, ReadResult):
        return parsed
    model, transfer, sample_ids = parsed

    transcodable: str | None = None
    fmt: PixelFormat | None = None  # the stored format: the table's, or the file's own DFD's
    own: khr_dfd.Descriptor | None = None  # set when the DFD sizes the file (TB057)
    hdr = False
    if vk_format == 0 and model == MODEL_ETC1S:
        transcodable = "ETC1S"
        channels = min(4, sum(_ETC1S_CHANNELS.get(c, 1) for c in sample_ids) or 3)
        alpha = _ETC1S_ALPHA in sample_ids
        if scheme != 1:
            notes.append(findings.make(src.rel, "TB055", f"KTX2 ETC1S data with supercompression {supercompression or 'none'}; the spec requires BasisLZ"))
    elif vk_format == 0 and model == MODEL_UASTC:
        transcodable = "UASTC"
        channels, alpha = _UASTC_CHANNELS.get(sample_ids[0] if sample_ids else 0, (4, True))
    elif (vk_format, model) in _BASIS_HDR:
        transcodable, schemes = _BASIS_HDR[vk_format, model]
        channels, alpha, hdr = 3, False, True  # UASTC HDR has no alpha (basis_universal)
        if scheme not in schemes:
            notes.append(findings.make(src.rel, "TB055", f"KTX2 {transcodable} data with supercompression {supercompression or 'none'}; its writers use {' or '.join(SUPERCOMPRESSION[k] or 'none' for k in schemes)}"))
    else:
        fmt = formats.by_vk(vk_format) if vk_format else None
        if fmt is None or fmt.transcodable:
            got = _self_sized(src.rel, vk_format, model, dfd, dfd_length, scheme)
            if isinstance(got, ReadResult):
                return got
            fmt, own, note = got
            notes.append(note)
            channels, alpha, hdr = own.channels, own.alpha, own.hdr
        else:
            channels, alpha, hdr = fmt.channels, fmt.alpha, fmt.hdr
        if scheme == 1:
            notes.append(findings.make(src.rel, "TB055", f"KTX2 {fmt.name} data with BasisLZ supercompression; BasisLZ is defined for ETC1S only"))
        if generate and fmt.compressed:
            notes.append(findings.make(src.rel, "TB055", f"KTX2 levelCount 0 (generate mips) with block-compressed {fmt.name}; the spec forbids it"))
    if scheme == 4 and transcodable != "UASTC_HDR_6x6i":
        notes.append(findings.make(src.rel, "TB055", f"KTX2 supercompressionScheme 4 (UASTC HDR 6x6i) with {fmt.name if fmt else transcodable} data; it is defined for UASTC HDR 6x6 intermediate data only"))

    sized = fmt if fmt is not None else (formats.get(transcodable) if transcodable and transcodable != "ETC1S" else None)
    computed: tuple[int, ...] = ()
    if sized is not None:
        computed = tuple(m.bytes for m in mip_chain(sized, w, h, d, levels=levels, faces=faces, layers=layers))
        mismatch = _level_mismatches(entries, computed, scheme)
        if mismatch:
            shown = "; ".join(f"level {i}: {field} {got}, expected {want}" for i, field, got, want in mismatch[:3]) + (" …" if len(mismatch) > 3 else "")
            size_text = f"{w}x{h}" + (f"x{d}" if d > 1 else "")
            if own is not None:  # nothing else tells which of the two is right
                return fail(src.rel, "TB058", f"KTX2 level index disagrees with the file's data format descriptor ({_shape(sized)}) for {size_text}: {shown}")
            notes.append(findings.make(src.rel, "TB053", f"KTX2 level index disagrees with {sized.name} {size_text}: {shown}"))

    if transfer == TRANSFER_SRGB or (fmt is not None and fmt.srgb):
        color_space: str | None = "srgb"
    elif transfer == TRANSFER_LINEAR or hdr:
        color_space = "linear"
    else:
        color_space = color_space_of(fmt) if fmt is not None else None
    if own is not None:
        bit_depth = own.bit_depth
    else:
        bit_depth = bit_depth_of(fmt) if fmt is not None else (16 if hdr else 8)

    facts = TextureFacts(
        path=src.rel, container="ktx2", width=w, height=h, depth=d, layers=layers, faces=faces,
        stored_levels=levels, stored_format=fmt.name if fmt is not None else None, channels=channels,
        alpha=alpha, bit_depth=bit_depth, hdr=hdr, color_space=color_space, disk_bytes=size,
        supercompression=supercompression, transcodable=transcodable, level_bytes=computed,
        mips_generate=generate,
    )
    return texture_result(facts, notes)


def _shape(fmt: PixelFormat) -> str:
    n = fmt.bytes_per_block
    return f"{fmt.block_width}x{fmt.block_height}x{fmt.block_depth} blocks of {n} byte{'s' if n != 1 else ''}"


def _self_sized(
    rel: str, vk_format: int, model: int | None, dfd: bytes, dfd_length: int, scheme: int,
) -> tuple[PixelFormat, khr_dfd.Descriptor, Finding] | ReadResult:
    """The format a KTX2 file's own data format descriptor gives when texbudget's table lacks
    its vkFormat (or vkFormat is 0 with a model texbudget does not model): a TB057 note naming
    what was assumed, or TB046 (no descriptor) / TB054 (a descriptor that breaks the rules)."""
    if vk_format:
        what = f"KTX2 vkFormat {vk_format} is not in texbudget's table"
    elif model is None:
        what = "KTX2 vkFormat 0 (undefined) names no format"
    else:
        what = f"KTX2 vkFormat 0 (undefined) with colour model {model} ({khr_dfd.MODEL_NAMES.get(model, 'not registered')}) is not a format texbudget models"
    desc = khr_dfd.parse(dfd) if dfd else None
    if desc is None:
        return fail(rel, "TB046", f"{what}, and the file has no data format descriptor to size it from")
    supercompressed = scheme != 0
    bad = khr_dfd.problem(desc, dfd_length, supercompressed)
    if bad is not None:
        return fail(rel, "TB054", f"{what}; its data format descriptor cannot size it: {bad}")
    per_block, from_samples = khr_dfd.block_bytes(desc, supercompressed)
    bw, bh, bd, _ = desc.block
    fmt = formats.self_sized(bw, bh, bd, per_block)
    how = " (bytesPlane0..7 are 0, as in supercompressed files of older writers: the block size comes from the samples)" if from_samples else ""
    prohibited = " KTX2 prohibits this vkFormat (a *_SCALED or multi-planar format)." if vk_format in _PROHIBITED else ""
    return fmt, desc, findings.make(rel, "TB057", f"{what}; sized from the file's data format descriptor: {_shape(fmt)}{how}.{prohibited}")


def _level_mismatches(entries: list[tuple[int, int, int]], computed: tuple[int, ...], scheme: int) -> list[tuple[int, str, int, int]]:
    """(level, field, stored, computed) wherever the index defines a content length that
    differs: ``byteLength`` and ``uncompressedByteLength`` without supercompression,
    ``uncompressedByteLength`` under Zstandard/ZLIB; BasisLZ and unknown schemes define none."""
    out: list[tuple[int, str, int, int]] = []
    for i, ((_, length, inflated), want) in enumerate(zip(entries, computed, strict=True)):
        if scheme == 0:
            if length != want:
                out.append((i, "byteLength", length, want))
            elif inflated != want:
                out.append((i, "uncompressedByteLength", inflated, want))
        elif scheme in (2, 3) and inflated != want:
            out.append((i, "uncompressedByteLength", inflated, want))
    return out


def _check_level_index(rel: str, entries: list[tuple[int, int, int]], index_end: int, size: int) -> ReadResult | None:
    for i, (offset, length, _) in enumerate(entries):
        if length == 0:
            return fail(rel, "TB054", f"KTX2 level {i} has byteLength 0")
        if offset + length > size:
            return fail(rel, "TB050", f"KTX2 level {i} is bytes {offset}..{offset + length}, but the file ends at {size} ({offset + length - size} bytes past the end)")
        if offset < index_end:
            return fail(rel, "TB054", f"KTX2 level {i} starts at {offset}, inside the header and level index (which end at {index_end})")
    ordered = sorted((off, off + length, i) for i, (off, length, _) in enumerate(entries))
    for (_, end_a, a), (start_b, _, b) in itertools.pairwise(ordered):
        if start_b < end_a:
            return fail(rel, "TB051", f"KTX2 levels {a} and {b} overlap: level {a} ends at {end_a}, level {b} starts at {start_b}")
    return None


def _parse_dfd(rel: str, dfd: bytes) -> tuple[int | None, int | None, tuple[int, ...]] | ReadResult:
    """(colour model, transfer function, channel ids of the samples) from the first basic
    descriptor block; (None, None, ()) when there is no DFD."""
    if not dfd:
        return None, None, ()
    if len(dfd) < 4 + 24:
        return fail(rel, "TB054", f"KTX2 data format descriptor is {len(dfd)} bytes; a basic descriptor block needs at least 28")
    block_size = struct.unpack_from("<H", dfd, 4 + 6)[0]
    model, _primaries, transfer = dfd[4 + 8], dfd[4 + 9], dfd[4 + 10]
    if block_size < 24:
        return fail(rel, "TB054", f"KTX2 data format descriptor block size {block_size} (at least 24)")
    n_samples = min((block_size - 24) // 16, (len(dfd) - 28) // 16)
    ids = tuple(dfd[4 + 24 + 16 * s + 3] & 0x0F for s in range(n_samples))
    return model, transfer, ids
