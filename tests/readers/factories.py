"""Factories for texture files of every container texbudget reads, for tests in any folder.

Each ``*_bytes(...)`` function returns the bytes of one file built with ``struct`` (or Pillow
for the image formats it writes); ``write(tmp_path, name, data)`` puts bytes on disk and
returns the path, and ``make_all(tmp_path)`` writes a folder holding one good file of each
family (handy for CLI and integration tests).

Payload lengths come from ``chain_bytes``, a deliberately plain restatement of the spec's
formula (spec/textures.md §2), independent of ``texbudget.sizing``. Payload bytes are zeros:
readers never look at them.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

# --- helpers ----------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def chain_bytes(width: int, height: int, depth: int = 1, levels: int = 1, block: tuple[int, int, int] = (4, 4, 16), images: int = 1) -> int:
    """Σ over levels of ceil(w_i/bw)·ceil(h_i/bh)·d_i·bytes_per_block, times images."""
    bw, bh, bpb = block
    total = 0
    for i in range(levels):
        w, h, d = max(1, width >> i), max(1, height >> i), max(1, depth >> i)
        total += -(-w // bw) * -(-h // bh) * d * bpb
    return total * images


def full_levels(*dims: int) -> int:
    return max(dims).bit_length()


# --- PNG (raw writer: every colour type and bit depth, any chunk) ------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type -> samples per pixel
_PNG_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def png_bytes(
    width: int = 4, height: int = 4, *, color_type: int = 2, bit_depth: int = 8,
    srgb: bool = False, gamma: int | None = None, icc_name: bytes | None = None,
    trns: bytes | None = None, palette_entries: int = 4, idat: bool = True,
) -> bytes:
    """A valid PNG of the given colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA)
    and bit depth; ``gamma`` in PNG units (45455 = 1/2.2, 100000 = linear); ``icc_name`` puts
    an iCCP chunk whose profile description is that text. Pixel rows are zeros."""
    out = PNG_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
    if srgb:
        out += _chunk(b"sRGB", b"\x00")
    if gamma is not None:
        out += _chunk(b"gAMA", struct.pack(">I", gamma))
    if icc_name is not None:
        out += _chunk(b"iCCP", b"profile\x00\x00" + zlib.compress(icc_profile(icc_name)))
    if color_type == 3:
        out += _chunk(b"PLTE", bytes(3 * palette_entries))
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    if idat:
        row = 1 + -(-width * _PNG_SAMPLES[color_type] * bit_depth // 8)
        out += _chunk(b"IDAT", zlib.compress(bytes(row * height)))
    return out + _chunk(b"IEND", b"")


def png_huge_bytes(width: int, height: int) -> bytes:
    """IHDR of a huge image, a tiny IDAT and IEND: the header says width x height."""
    return (PNG_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(b"\0" * 16)) + _chunk(b"IEND", b""))


def icc_profile(description: bytes) -> bytes:
    """A minimal ICC v2-like blob: 128-byte header with 'RGB ' colour space, then a 'desc'
    tag holding ``description`` in ASCII (enough for a name-based hint)."""
    desc = b"desc" + bytes(4) + struct.pack(">I", len(description) + 1) + description + b"\0"
    header = struct.pack(">I", 128 + 4 + 12 + len(desc)) + bytes(12) + b"RGB XYZ " + bytes(128 - 24)
    tags = struct.pack(">I", 1) + b"desc" + struct.pack(">II", 128 + 4 + 12, len(desc))
    return header + tags + desc


# --- Pillow-written images --------------------------------------------------------------------


def pillow_bytes(fmt: str, mode: str = "RGB", size: tuple[int, int] = (8, 6), **params: object) -> bytes:
    """An image Pillow writes: ``fmt`` is a Pillow format name (JPEG, TGA, BMP, TIFF, GIF,
    WEBP, DDS, PNG); ``params`` go to ``save`` (e.g. ``transparency=0``, ``lossless=True``,
    ``pixel_format="DXT1"``)."""
    image = Image.new(mode, size)
    buf = io.BytesIO()
    image.save(buf, format=fmt, **params)
    return buf.getvalue()


def animated_bytes(fmt: str, size: tuple[int, int] = (8, 6), frames: int = 3, mode: str = "RGB", **params: object) -> bytes:
    """An animation Pillow writes (``WEBP``, ``PNG`` as APNG, ``GIF``): ``frames`` frames, each
    a different flat colour (Pillow merges identical frames)."""
    images = [Image.new(mode, size, (40 * i,) * len(mode)) for i in range(frames)]
    buf = io.BytesIO()
    images[0].save(buf, format=fmt, save_all=True, append_images=images[1:], **params)
    return buf.getvalue()


# --- PSD --------------------------------------------------------------------------------------


def psd_bytes(width: int = 8, height: int = 6, *, channels: int = 3, depth: int = 8, mode: int = 3, version: int = 1) -> bytes:
    """Photoshop header (mode 1 grey, 2 indexed, 3 RGB, 4 CMYK), empty sections, raw data."""
    header = b"8BPS" + struct.pack(">H6xHIIHH", version, channels, height, width, depth, mode)
    sections = struct.pack(">III", 0, 0, 0) if version == 1 else struct.pack(">IIQ", 0, 0, 0)
    data = struct.pack(">H", 0) + bytes(channels * height * -(-width * depth // 8))
    return header + sections + data


# --- DDS --------------------------------------------------------------------------------------

DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PIXELFORMAT = 0x1, 0x2, 0x4, 0x1000
DDSD_MIPMAPCOUNT, DDSD_DEPTH = 0x20000, 0x800000
DDPF_ALPHAPIXELS, DDPF_ALPHA, DDPF_FOURCC, DDPF_RGB, DDPF_LUMINANCE = 0x1, 0x2, 0x4, 0x40, 0x20000
CAPS2_CUBEMAP, CAPS2_ALL_FACES, CAPS2_VOLUME = 0x200, 0xFC00, 0x200000


def dds_bytes(
    width: int, height: int, *, fourcc: bytes | int | None = b"DXT1", dxgi: int | None = None,
    pf_flags: int | None = None, bit_count: int = 0, masks: Sequence[int] = (0, 0, 0, 0),
    mips: int = 1, depth: int = 0, caps2: int = 0, dimension: int = 3, misc: int = 0,
    array_size: int = 1, misc2: int = 0, header_size: int = 124, extra_flags: int = 0,
    payload: int | None = None, block: tuple[int, int, int] = (4, 4, 8), images: int = 1,
) -> bytes:
    """A DDS file. ``dxgi`` set = DX10 header (FourCC 'DX10'); else ``fourcc`` (bytes or a
    numeric D3DFMT) or, with ``fourcc=None``, a bit-mask format from ``pf_flags``,
    ``bit_count`` and ``masks``. ``payload`` defaults to the chain the header implies for a
    ``block`` (bw, bh, bytes) format over ``images`` (faces × layers) and ``depth``."""
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | extra_flags
    if mips > 1:
        flags |= DDSD_MIPMAPCOUNT
    if depth:
        flags |= DDSD_DEPTH
    if dxgi is not None:
        fourcc = b"DX10"
    if fourcc is not None:
        pf = DDPF_FOURCC if pf_flags is None else pf_flags
        code = fourcc if isinstance(fourcc, int) else int.from_bytes(fourcc.ljust(4, b"\0"), "little")
    else:
        pf = pf_flags or 0
        code = 0
    header = b"DDS " + struct.pack("<7I", header_size, flags, height, width, 0, depth, mips) + bytes(44)
    header += struct.pack("<8I", 32, pf, code, bit_count, *masks)
    header += struct.pack("<5I", 0x1000 | (0x400008 if mips > 1 else 0), caps2, 0, 0, 0)
    if dxgi is not None:
        header += struct.pack("<5I", dxgi, dimension, misc, array_size, misc2)
    if payload is None:
        payload = chain_bytes(width, max(1, height), max(1, depth), max(1, mips), block, images)
    return header + bytes(payload)


# --- KTX 1.1 ----------------------------------------------------------------------------------

KTX1_MAGIC = b"\xabKTX 11\xbb\r\n\x1a\n"


def ktx1_bytes(
    width: int, height: int, *, gl_internal: int = 0x8E8C, gl_type: int = 0, gl_format: int = 0,
    gl_base: int = 0x1908, depth: int = 0, array_elements: int = 0, faces: int = 1,
    levels: int = 1, kvd: bytes = b"", big_endian: bool = False,
    block: tuple[int, int, int] = (4, 4, 16), texel_bytes: int | None = None,
    image_sizes: Sequence[int] | None = None, endian_word: int = 0x04030201,
) -> bytes:
    """A KTX 1.1 file. Compressed formats use ``block``; uncompressed ones pass
    ``texel_bytes`` (rows padded to 4 bytes). ``image_sizes`` overrides the imageSize
    words (data written is still ``imageSize`` bytes per level)."""
    order = ">" if big_endian else "<"
    non_array_cube = faces == 6 and array_elements == 0
    images = 1 if non_array_cube else faces * max(1, array_elements)
    sizes = []
    for i in range(max(1, levels)):
        w, h, d = max(1, width >> i), max(1, max(1, height) >> i), max(1, max(1, depth) >> i)
        if texel_bytes is not None:
            one = ((w * texel_bytes + 3) & ~3) * h * d
        else:
            one = chain_bytes(w, h, d, 1, block)
        sizes.append(one * images)
    if image_sizes is not None:
        sizes = list(image_sizes)
    out = KTX1_MAGIC + struct.pack(order + "I", endian_word)
    out += struct.pack(order + "12I", gl_type, 1, gl_format, gl_internal, gl_base, width, height, depth,
                       array_elements, faces, levels, len(kvd)) + kvd
    copies = 6 if non_array_cube else 1
    for size in sizes:
        out += struct.pack(order + "I", size)
        out += bytes(((size + 3) & ~3) * copies)
    return out


# --- KTX2 -------------------------------------------------------------------------------------

KTX2_MAGIC = b"\xabKTX 20\xbb\r\n\x1a\n"
KHR_DF_MODEL_RGBSDA, KHR_DF_MODEL_ETC1S, KHR_DF_MODEL_UASTC = 1, 163, 166
KHR_DF_MODEL_UASTC_HDR_4X4, KHR_DF_MODEL_UASTC_HDR_6X6I = 167, 168
#: KHR_DF_SAMPLE_DATATYPE_* qualifiers (the high nibble of a sample's channelType byte)
KHR_DF_LINEAR, KHR_DF_EXPONENT, KHR_DF_SIGNED, KHR_DF_FLOAT = 0x10, 0x20, 0x40, 0x80
FLOAT_ONE, FLOAT_MINUS_ONE = 0x3F800000, 0xBF800000  # 1.0f and -1.0f as sampleUpper / sampleLower


@dataclass(frozen=True, slots=True)
class DfdSample:
    """One sample of a basic descriptor block (Khronos Data Format Specification §"Sample
    information"): ``bits`` is the real length (the file stores bits − 1)."""

    bit_offset: int
    bits: int
    channel: int
    qualifiers: int = 0
    lower: int = 0
    upper: int = 0xFFFFFFFF
    position: tuple[int, int, int, int] = (0, 0, 0, 0)

    def pack(self) -> bytes:
        return struct.pack("<HBB4BII", self.bit_offset, self.bits - 1, self.channel | self.qualifiers,
                           *self.position, self.lower, self.upper)


def dfd_descriptor(
    model: int, samples: Sequence[DfdSample], *, block: tuple[int, int, int] = (1, 1, 1),
    planes: Sequence[int] = (), primaries: int = 1, transfer: int = 1, flags: int = 0, version: int = 2,
) -> bytes:
    """A whole data format descriptor: dfdTotalSize and one Khronos basic descriptor block
    (vendorId 0, descriptorType 0, versionNumber 2 = KDF 1.3) with ``samples``; ``block`` is
    the texel block's sides, ``planes`` bytesPlane0.. (the rest 0)."""
    body = b"".join(s.pack() for s in samples)
    head = struct.pack("<IHH", 0, version, 24 + len(body)) + bytes([model, primaries, transfer, flags])
    head += bytes([block[0] - 1, block[1] - 1, block[2] - 1, 0]) + bytes((list(planes) + [0] * 8)[:8])
    return struct.pack("<I", 4 + len(head) + len(body)) + head + body


def dfd_bytes(model: int = KHR_DF_MODEL_RGBSDA, *, transfer: int = 1, primaries: int = 1,
              channel_ids: Sequence[int] = (0,), block: tuple[int, int] = (4, 4), bytes_plane0: int = 16) -> bytes:
    """A data format descriptor with one Khronos basic block and one whole-block sample per
    channel id (the shape of a block-compressed format's descriptor)."""
    samples = [DfdSample(0, 128, cid & 0x0F) for cid in channel_ids]
    return dfd_descriptor(model, samples, block=(*block, 1), planes=(bytes_plane0,), primaries=primaries, transfer=transfer)


def uastc_hdr_dfd(side: int) -> bytes:
    """The descriptor basis_universal writes for UASTC HDR 4x4 (``side`` 4: colour model 167)
    and UASTC HDR 6x6 intermediate (``side`` 6: model 168) data (``encoder/basisu_comp.cpp``):
    BT.709 primaries, linear transfer, one 128-bit float sample of 0.0..1.0, 16 bytes a block."""
    model = KHR_DF_MODEL_UASTC_HDR_4X4 if side == 4 else KHR_DF_MODEL_UASTC_HDR_6X6I
    return dfd_descriptor(model, [DfdSample(0, 128, 0, KHR_DF_FLOAT, 0, FLOAT_ONE)], block=(side, side, 1), planes=(16,))


def ktx2_bytes(
    width: int, height: int, *, vk_format: int = 145, type_size: int = 1, depth: int = 0, layers: int = 0,
    faces: int = 1, levels: int = 1, scheme: int = 0, dfd: bytes | None = None,
    kvd: bytes = b"", sgd: bytes = b"", block: tuple[int, int, int] = (4, 4, 16),
    level_lengths: Sequence[int] | None = None, uncompressed: Sequence[int] | None = None,
    index: Sequence[tuple[int, int, int]] | None = None, align: int | None = None,
) -> bytes:
    """A KTX2 file with levels stored smallest first. Level byte lengths default to the
    chain for ``block`` over faces × layers; ``level_lengths`` sets the stored lengths (for
    supercompressed data) and ``uncompressed`` the uncompressedByteLength column (default:
    the computed length, or 0 for BasisLZ). ``index`` replaces the level index outright."""
    n = max(1, levels) if index is None else len(index)
    images = faces * max(1, layers)
    computed = [chain_bytes(max(1, width >> i), max(1, max(1, height) >> i), max(1, max(1, depth) >> i), 1, block) * images for i in range(n)]
    lengths = list(level_lengths) if level_lengths is not None else computed
    if uncompressed is None:
        uncompressed = [0] * n if scheme == 1 else computed
    dfd = dfd if dfd is not None else dfd_bytes()
    if align is None:
        align = 16 if scheme == 0 else 1
    pos = 80 + 24 * n
    dfd_offset = pos
    pos += len(dfd)
    kvd_offset = pos if kvd else 0
    pos += len(kvd)
    sgd_offset = 0
    if sgd:
        pos = (pos + 7) & ~7
        sgd_offset = pos
        pos += len(sgd)
    offsets = [0] * n
    for i in reversed(range(n)):  # smallest level first
        pos = -(-pos // align) * align
        offsets[i] = pos
        pos += lengths[i]
    entries = list(index) if index is not None else [(offsets[i], lengths[i], uncompressed[i]) for i in range(n)]
    header = KTX2_MAGIC + struct.pack("<13I", vk_format, type_size, width, height, depth, layers, faces,
                                      levels, scheme, dfd_offset, len(dfd), kvd_offset, len(kvd))
    header += struct.pack("<2Q", sgd_offset, len(sgd))
    header += b"".join(struct.pack("<3Q", *e) for e in entries)
    body = bytearray(max(pos, 80 + 24 * n + len(dfd)))
    body[: len(header)] = header
    body[dfd_offset : dfd_offset + len(dfd)] = dfd
    if kvd:
        body[kvd_offset : kvd_offset + len(kvd)] = kvd
    if sgd:
        body[sgd_offset : sgd_offset + len(sgd)] = sgd
    return bytes(body)


# --- OpenEXR ----------------------------------------------------------------------------------

EXR_MAGIC = b"v/1\x01"


def _attr(name: str, kind: str, value: bytes) -> bytes:
    return name.encode() + b"\0" + kind.encode() + b"\0" + struct.pack("<i", len(value)) + value


def exr_header(
    width: int, height: int, *, channels: Sequence[tuple[str, int]] = (("B", 1), ("G", 1), ("R", 1)),
    compression: int = 0, tiles: tuple[int, int, int] | None = None, origin: tuple[int, int] = (0, 0),
    part_type: str | None = None, omit: Sequence[str] = (),
) -> bytes:
    """One header's attributes (sorted, as OpenEXR writes them) and the terminating NUL.
    ``channels`` are (name, pixel type: 0 UINT, 1 HALF, 2 FLOAT); ``tiles`` is (x size,
    y size, mode byte: level mode | rounding << 4)."""
    ch = b"".join(n.encode() + b"\0" + struct.pack("<iB3xii", t, 0, 1, 1) for n, t in channels) + b"\0"
    x0, y0 = origin
    window = struct.pack("<4i", x0, y0, x0 + width - 1, y0 + height - 1)
    attrs = {
        "channels": _attr("channels", "chlist", ch),
        "compression": _attr("compression", "compression", bytes([compression])),
        "dataWindow": _attr("dataWindow", "box2i", window),
        "displayWindow": _attr("displayWindow", "box2i", window),
        "lineOrder": _attr("lineOrder", "lineOrder", b"\0"),
        "pixelAspectRatio": _attr("pixelAspectRatio", "float", struct.pack("<f", 1.0)),
        "screenWindowCenter": _attr("screenWindowCenter", "v2f", struct.pack("<2f", 0, 0)),
        "screenWindowWidth": _attr("screenWindowWidth", "float", struct.pack("<f", 1.0)),
    }
    if tiles is not None:
        attrs["tiles"] = _attr("tiles", "tiledesc", struct.pack("<IIB", *tiles))
    if part_type is not None:
        attrs["type"] = _attr("type", "string", part_type.encode())
        attrs["name"] = _attr("name", "string", b"part")
        attrs["chunkCount"] = _attr("chunkCount", "int", struct.pack("<i", 1))
    return b"".join(v for k, v in sorted(attrs.items()) if k not in omit) + b"\0"


def exr_bytes(
    width: int, height: int, *, flags: int = 0, chunks: int | None = None, parts: int = 1,
    payload: int = 64, **header: object,
) -> bytes:
    """A single-part scanline (or, with ``tiles``, tiled: flag 0x200) OpenEXR file: header,
    a zero offset table of ``chunks`` entries (default one per scanline) and ``payload`` bytes.
    ``parts`` > 1 writes a multi-part file (flag 0x1000) of identical headers."""
    tiled = header.get("tiles") is not None
    version = 2 | flags | (0x200 if tiled and parts == 1 else 0) | (0x1000 if parts > 1 else 0)
    if parts > 1:
        header.setdefault("part_type", "tiledimage" if tiled else "scanlineimage")
        body = b"".join(exr_header(width, height, **header) for _ in range(parts)) + b"\0"  # type: ignore[arg-type]
    else:
        body = exr_header(width, height, **header)  # type: ignore[arg-type]
    n = height if chunks is None else chunks
    return EXR_MAGIC + struct.pack("<I", version) + body + bytes(8 * n * parts) + bytes(payload)


def exr_with_chunks(tiled: bool = False) -> bytes:
    """A 4x3 uncompressed EXR (B, G, R half) with its offset table filled in and every chunk
    written: one per scanline (y, size, 24 bytes), or with ``tiled`` one 4x4 tile (x, y, level
    x, level y, size, 96 bytes: the tile is whole, past the data window)."""
    version = 2 | (0x200 if tiled else 0)
    head = EXR_MAGIC + struct.pack("<I", version) + exr_header(4, 3, tiles=(4, 4, 0) if tiled else None)
    bodies = [struct.pack("<4ii", 0, 0, 0, 0, 96) + bytes(96)] if tiled else [struct.pack("<ii", y, 24) + bytes(24) for y in range(3)]
    return _exr_with_table(head, bodies)


def _exr_with_table(head: bytes, chunks: Sequence[bytes]) -> bytes:
    """A single-part file: ``head`` (magic, version, header), the offset table filled in,
    then the chunks in table order."""
    at = len(head) + 8 * len(chunks)
    offsets = []
    for chunk in chunks:
        offsets.append(at)
        at += len(chunk)
    return head + struct.pack(f"<{len(offsets)}Q", *offsets) + b"".join(chunks)


def exr_tiled_levels_bytes(width: int, height: int, *, tile: int = 4, mode: int = 1, round_up: bool = False,
                           channels: Sequence[tuple[str, int]] = (("A", 1), ("B", 1), ("G", 1), ("R", 1))) -> bytes:
    """A complete tiled OpenEXR (OpenEXR "File Layout"): ``mode`` 0 one level, 1 MIPMAP, 2
    RIPMAP; every tile of every level written uncompressed (tile x, tile y, level x, level
    y, data size, then the tile's pixels), the offset table filled in, in the order OpenEXR
    keeps it (levels — a ripmap's x levels inside its y levels — then tile rows, then tiles).
    A level's side is the full side halved per level, rounded down or up, at least 1."""

    def count(side: int) -> int:
        return (side - 1).bit_length() + 1 if round_up else side.bit_length()

    def side_at(side: int, level: int) -> int:
        return max(1, -(-side // (1 << level)) if round_up else side >> level)

    if mode == 0:
        levels = [(0, 0)]
    elif mode == 1:
        levels = [(i, i) for i in range(count(max(width, height)))]
    else:
        levels = [(lx, ly) for ly in range(count(height)) for lx in range(count(width))]
    pixel = sum({0: 4, 1: 2, 2: 4}[t] for _, t in channels)
    chunks = []
    for lx, ly in levels:
        w, h = side_at(width, lx), side_at(height, ly)
        for ty in range(-(-h // tile)):
            for tx in range(-(-w // tile)):
                data = bytes(min(tile, w - tx * tile) * min(tile, h - ty * tile) * pixel)
                chunks.append(struct.pack("<5i", tx, ty, lx, ly, len(data)) + data)
    head = EXR_MAGIC + struct.pack("<I", 2 | 0x200) + exr_header(width, height, channels=channels,
                                                                   tiles=(tile, tile, mode | (round_up << 4)))
    return _exr_with_table(head, chunks)


# --- Radiance HDR -----------------------------------------------------------------------------


def hdr_bytes(
    width: int, height: int, *, resolution: bytes | None = None, program: bytes = b"RADIANCE",
    fmt: bytes | None = b"32-bit_rle_rgbe", rle: bool = True, payload: int | None = None,
) -> bytes:
    """A Radiance file: header, resolution line (default ``-Y h +X w``) and pixel data —
    new-style RLE scanlines of runs (the smallest valid encoding) or flat RGBE. The first
    axis of the line changes slowest: with X first, the scanlines are the columns."""
    head = b"#?" + program + b"\n# made by texbudget tests\n"
    if fmt is not None:
        head += b"FORMAT=" + fmt + b"\n"
    head += b"EXPOSURE=1.0\n\n"
    head += (resolution if resolution is not None else f"-Y {height} +X {width}".encode()) + b"\n"
    if payload is not None:
        return head + bytes(payload)
    lines, length = (width, height) if resolution is not None and resolution[1:2] == b"X" else (height, width)
    if rle and 8 <= length < 32768:
        runs = b""
        for _ in range(4):
            left = length
            while left:
                n = min(127, left)
                runs += bytes([128 + n, 0])
                left -= n
        line = bytes([2, 2, length >> 8, length & 0xFF]) + runs
        return head + line * lines
    return head + bytes(4 * width * height)


# --- a mixed folder ---------------------------------------------------------------------------


def make_all(tmp_path: Path) -> dict[str, Path]:
    """One good file of every family, by a short key (the file names are the keys + suffix)."""
    files = {
        "rgb.png": png_bytes(16, 16),
        "grey16.png": png_bytes(16, 16, color_type=0, bit_depth=16),
        "photo.jpg": pillow_bytes("JPEG", "RGB", (16, 16)),
        "src.tga": pillow_bytes("TGA", "RGBA", (16, 16)),
        "src.bmp": pillow_bytes("BMP", "RGB", (16, 16)),
        "src.tif": pillow_bytes("TIFF", "RGB", (16, 16)),
        "src.webp": pillow_bytes("WEBP", "RGBA", (16, 16), lossless=True),
        "anim.gif": pillow_bytes("GIF", "P", (16, 16)),
        "art.psd": psd_bytes(16, 16),
        "bc1.dds": dds_bytes(64, 64, fourcc=b"DXT1", mips=7),
        "bc7_array.dds": dds_bytes(32, 32, dxgi=98, array_size=2, mips=6, block=(4, 4, 16), images=2),
        "bc7.ktx": ktx1_bytes(32, 32, levels=6),
        "bc7.ktx2": ktx2_bytes(32, 32, levels=6),
        "uastc.ktx2": ktx2_bytes(32, 32, vk_format=0, levels=6, dfd=dfd_bytes(KHR_DF_MODEL_UASTC, channel_ids=(3,))),
        "probe.exr": exr_bytes(16, 8, channels=(("A", 1), ("B", 1), ("G", 1), ("R", 1))),
        "sky.hdr": hdr_bytes(32, 16),
    }
    return {name: write(tmp_path, name, data) for name, data in files.items()}
