"""Source images (PNG, JPEG, TGA, BMP, TIFF, WebP, GIF, PSD): size, channels, bit depth and
colour-space hints, read from headers without decoding a pixel.

PNG, JPEG, TGA, BMP, TIFF and GIF go through Pillow's plugin classes, which parse headers
lazily; we never call ``load()`` or ``convert()``. The plugin class is constructed directly
rather than through ``Image.open``: that skips Pillow's decompression-bomb guard, which exists
to protect pixel decoding we never do (a 16384x16384 height map is a normal texture, and
``Image.open`` refuses it), and it keeps Pillow from guessing a type we did not sniff.
Absurd sizes are still refused by our own limit (TB045, ``_common.MAX_DIMENSION``).

WebP and PSD are parsed by texbudget: Pillow's WebP plugin reads the whole file into memory
to open it, and its PSD plugin reads header sections with a length the file claims (an
unbounded allocation) and refuses 16/32-bit documents. WebP's chunks are walked in
``readers/webp.py``; PSD's header is a few fixed fields, read here.

Hints: ``bit_depth`` is the precision of a colour channel (8 or 16, 32 for float TIFF/PSD),
not the PNG index depth (a 4-bit palette image is 8). Palette images report 3 channels, or 4
with transparency; grey images 1, or 2 with transparency; CMYK/YCbCr/Lab 3 (they are converted
to RGB on import). ``color_space`` is "srgb" for a PNG sRGB chunk, a gamma below 1, JPEG and
WebP (sRGB by default), or an ICC profile whose description does not say linear; "linear" for
gAMA 1.0, a linear ICC profile, or float data; None when the file says nothing.
"""

from __future__ import annotations

import functools
import importlib
import re
import struct
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from texbudget import findings
from texbudget.model import Finding, ReadResult, TextureFacts
from texbudget.readers import Source, sniff
from texbudget.readers._common import (
    check_dims,
    fail,
    icc_says_linear,
    read_at,
    texture_result,
)
from texbudget.readers.webp import MIN_HEADER as _WEBP_MIN_HEADER
from texbudget.readers.webp import read_webp

#: container -> (Pillow plugin module, ImageFile class)
_PIL_CLASSES = {
    "png": ("PngImagePlugin", "PngImageFile"),
    "jpeg": ("JpegImagePlugin", "JpegImageFile"),
    "tga": ("TgaImagePlugin", "TgaImageFile"),
    "bmp": ("BmpImagePlugin", "BmpImageFile"),
    "tiff": ("TiffImagePlugin", "TiffImageFile"),
    "gif": ("GifImagePlugin", "GifImageFile"),
}

_BY_SUFFIX = {
    ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".tga": "tga", ".bmp": "bmp",
    ".tif": "tiff", ".tiff": "tiff", ".webp": "webp", ".gif": "gif", ".psd": "psd",
}

#: The signatures a container must start with (TGA has none).
_MAGICS = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpeg": (b"\xff\xd8\xff",),
    "bmp": (b"BM",),
    "tiff": (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"),  # classic TIFF, BigTIFF
    "gif": (b"GIF87a", b"GIF89a"),
    "psd": (b"8BPS",),
    "webp": (b"RIFF",),
}

#: Bytes each container needs before its size is known (fixed headers).
_MIN_HEADER = {"png": 33, "gif": 13, "bmp": 26, "tga": 18, "psd": 26, "webp": _WEBP_MIN_HEADER, "jpeg": 4, "tiff": 8}

#: Everything Pillow may raise while parsing a header it does not like. SyntaxError is its
#: "not my format / bad header"; the rest escape from some plugins on truncated or odd data.
_PIL_ERRORS = (SyntaxError, OSError, ValueError, EOFError, struct.error, IndexError, KeyError,
               TypeError, NotImplementedError, ZeroDivisionError, OverflowError, zlib.error)

_TAIL_BYTES = 4096
_PNG_IEND = b"IEND\xaeB`\x82"
_JPEG_EOI = b"\xff\xd9"


@functools.cache
def pillow_image() -> Any:
    """``PIL.Image``, imported on first use (`check` on a warm cache and plain PNG/TGA headers
    never need it). Pillow logs some header rejections at ERROR level (TIFF "More samples per
    pixel …"); with no logging configured Python would print them to stderr, and the finding
    already says it: its logger gets a handler that drops them."""
    import logging

    from PIL import Image

    logging.getLogger("PIL").addHandler(logging.NullHandler())
    return Image


@dataclass(frozen=True, slots=True)
class _Shape:
    channels: int
    alpha: bool
    grey: bool = False
    palette: bool = False
    bit_depth: int = 8
    hdr: bool = False


def read_image(src: Source) -> ReadResult:
    """Facts of one source image, from its header. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(64)
    container = _container_of(src, head)
    if isinstance(container, ReadResult):
        return container
    if len(head) < _MIN_HEADER[container]:
        return fail(src.rel, "TB042", f"{container.upper()} header truncated: the file has {len(head)} bytes, the header needs {_MIN_HEADER[container]}")
    if container == "webp":
        return read_webp(src, head, size)
    if container == "psd":
        return _read_psd(src, head, size)
    early = _check_fixed_header(src, container, head, size)
    if early is not None:
        return early
    if container == "png":
        info = _png_plain_info(src)
        if info is not None:
            width, height = struct.unpack_from(">II", head, 16)
            return _facts(src, container, width, height, _shape_of(container, "", info, head, {}), info, size)
    elif container == "tga":
        mode = _tga_plain_mode(head)
        if mode is not None:
            width, height = struct.unpack_from("<HH", head, 12)
            return _facts(src, container, width, height, _shape_of(container, mode, {}, head, {}), {}, size)
    return _read_with_pillow(src, container, head, size)


def _container_of(src: Source, head: bytes) -> str | ReadResult:
    """The image type the bytes say (or the suffix, for TGA), else a TB041/TB042 result."""
    sniffed = sniff(head)
    if sniffed is not None:
        if sniffed[0] in _MIN_HEADER:
            return sniffed[0]
        return fail(src.rel, "TB041", f"the file is {sniffed[0].upper()} data, not an image texbudget reads with the image reader")
    claimed = _BY_SUFFIX.get(src.suffix)
    if claimed == "tga":
        return "tga"
    if claimed is None:
        return fail(src.rel, "TB041", f"{src.suffix or 'no suffix'}: no image signature found")
    for magic in _MAGICS[claimed]:
        if len(head) < len(magic) and magic.startswith(head):
            return fail(src.rel, "TB042", f"{claimed.upper()} header truncated: the file has {len(head)} bytes, it ends inside the signature")
    if claimed == "webp" and head.startswith(b"RIFF") and len(head) < 12:
        return fail(src.rel, "TB042", f"WEBP header truncated: the file has {len(head)} bytes")
    return fail(src.rel, "TB041", f"the file does not start with the {claimed.upper()} signature (first bytes {head[:8].hex(' ')})")


def _check_fixed_header(src: Source, container: str, head: bytes, size: int) -> ReadResult | None:
    """Dimensions and payload length from the fixed headers of PNG, GIF, BMP and TGA, so a
    zero, absurd or short file gets its specific finding rather than Pillow's generic error."""
    what = container.upper()
    if container == "png":
        if head[12:16] != b"IHDR":
            return fail(src.rel, "TB054", "PNG: the first chunk is not IHDR")
        width, height = struct.unpack_from(">II", head, 16)
        return check_dims(src.rel, what, width, height) or _check_end(src, size, what, _PNG_IEND, "IEND chunk")
    if container == "gif":
        width, height = struct.unpack_from("<HH", head, 6)
        return check_dims(src.rel, what, width, height)
    if container == "jpeg":
        return _check_end(src, size, what, _JPEG_EOI, "end-of-image marker", _foreign)
    if container == "bmp":
        header_size = struct.unpack_from("<I", head, 14)[0]
        if header_size == 12:
            width, height = struct.unpack_from("<HH", head, 18)
            bits, compression = struct.unpack_from("<H", head, 24)[0], 0
        elif len(head) >= 34 and header_size >= 40:
            width, height = struct.unpack_from("<ii", head, 18)
            bits, compression = struct.unpack_from("<HI", head, 28)
            height = abs(height)  # negative height = top-down rows
        else:
            return None  # let Pillow judge an odd header
        bad = check_dims(src.rel, what, width, height)
        if bad is not None or compression not in (0, 3) or bits not in (1, 4, 8, 16, 24, 32):
            return bad
        data_offset = struct.unpack_from("<I", head, 10)[0]
        needed = data_offset + ((bits * width + 31) // 32) * 4 * height
        return _short(src.rel, what, needed, size)
    if container == "tga":
        id_len, cmap_type, image_type = head[0], head[1], head[2]
        cmap_len, cmap_bits = struct.unpack_from("<H", head, 5)[0], head[7]
        width, height, depth = *struct.unpack_from("<HH", head, 12), head[16]
        if cmap_type not in (0, 1) or image_type not in (1, 2, 3, 9, 10, 11) or depth not in (1, 8, 15, 16, 24, 32):
            return fail(src.rel, "TB041", f"not a TGA file (colour map type {cmap_type}, image type {image_type}, {depth} bits per pixel)")
        bad = check_dims(src.rel, what, width, height)
        if bad is not None or image_type & 8:  # RLE data has no fixed length
            return bad
        needed = 18 + id_len + (cmap_len * cmap_bits + 7) // 8 * cmap_type + (width * height * depth + 7) // 8
        return _short(src.rel, what, needed, size)
    return None


def _short(rel: str, what: str, needed: int, size: int) -> ReadResult | None:
    if size < needed:
        return fail(rel, "TB043", f"{what} pixel data truncated: the header needs {needed} bytes, the file has {size} ({needed - size} bytes missing)")
    return None


def _check_end(src: Source, size: int, what: str, marker: bytes, named: str,
               appended: Callable[[bytes], bool] | None = None) -> ReadResult | None:
    """TB043 unless the file's last 4 KiB hold its end ``marker`` (trailing junk up to that is
    allowed): a PNG ends with its IEND chunk, a JPEG with its EOI marker FF D9, which appears
    nowhere else in the compressed data (an FF there is followed by 00 or a restart marker).
    A cut file does not. (A cut JPEG of under 4 KiB with an EXIF thumbnail, whose own EOI is
    near its start, passes.) ``appended`` says whether a tail without the marker is something
    appended after the file's end rather than the file cut short, as a JPEG whose last 4 KiB
    are not JPEG data at all (``_foreign``: a phone's motion photo and its video); then the
    end is not looked for."""
    tail = src.read_at(max(0, size - _TAIL_BYTES), _TAIL_BYTES)
    if marker not in tail and not (appended is not None and appended(tail)):
        return fail(src.rel, "TB043", f"{what} pixel data truncated: the file ({size} bytes) ends before its {named}")
    return None


#: In a JPEG stream an FF byte is followed by 00 (stuffing), 01 or C0-FF (markers, fill); in
#: JPEG-LS data by 00-7F. FF then 80-BF is in neither: bytes that are not JPEG. Compressed
#: video, as a motion photo appends, has such a pair every few hundred bytes.
_NOT_JPEG = re.compile(rb"\xff[\x80-\xbf]")
#: What ends a JPEG that has something appended: MP4 boxes (Google's and others' motion
#: photos append the video; its "moov" or "mdat" is at the end) and Samsung's trailer.
_TRAILERS = (b"moov", b"mdat", b"mvhd", b"ftyp")


def _foreign(tail: bytes) -> bool:
    """The last bytes of a JPEG file are not JPEG data (something is appended after it)."""
    return tail.endswith(b"SEFT") or any(box in tail for box in _TRAILERS) or _NOT_JPEG.search(tail) is not None


def _read_with_pillow(src: Source, container: str, head: bytes, size: int) -> ReadResult:
    Image = pillow_image()
    module_name, class_name = _PIL_CLASSES[container]
    cls = getattr(importlib.import_module(f"PIL.{module_name}"), class_name)
    what = container.upper()
    try:
        with src.open() as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow warns on odd metadata; findings say what matters
            im = cls(f)
            mode, (width, height), info = im.mode, im.size, dict(im.info)
            tiff_tags = _tiff_tags(im) if container == "tiff" else {}
            frames = getattr(im, "n_frames", 1) if container == "png" else 1  # APNG: from acTL
    except _PIL_ERRORS as exc:
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise  # the registry reports these as TB005/TB001
        return fail(src.rel, _pillow_code(exc), f"{what} header not readable: {_describe(exc)}")
    except Image.DecompressionBombError as exc:  # a GIF frame or TIFF tile far larger than any texture
        return fail(src.rel, "TB045", f"{what} header describes an image part beyond any GPU: {exc}")
    bad = check_dims(src.rel, what, width, height)
    if bad is not None:
        return bad
    notes: tuple[Finding, ...] = ()
    if container == "tiff":
        checked = _check_tiff_data(src, tiff_tags, size, width, height)
        if isinstance(checked, ReadResult):
            return checked
        notes = checked
    if isinstance(frames, int) and frames > 1:
        default = "its default image, which a PNG decoder shows" if info.get("default_image") else "its first frame, which a PNG decoder shows"
        notes = (findings.make(src.rel, "TB062", f"APNG of {frames} frames: priced as one {width}x{height} image, {default}"),)
    return _facts(src, container, width, height, _shape_of(container, mode, info, head, tiff_tags), info, size, notes)


def _facts(src: Source, container: str, width: int, height: int, shape: _Shape, info: dict[str, Any], size: int,
           notes: tuple[Finding, ...] = ()) -> ReadResult:
    facts = TextureFacts(
        path=src.rel, container=container, width=width, height=height, channels=shape.channels,
        alpha=shape.alpha, bit_depth=shape.bit_depth, hdr=shape.hdr,
        color_space=_color_space(container, info, shape), disk_bytes=size, grey=shape.grey,
        palette=shape.palette,
    )
    return texture_result(facts, notes)


# --- headers Pillow need not open -------------------------------------------------------------
#
# Most PNG and TGA files are plain: their header says everything in a few fixed fields. These
# read them without Pillow (whose plugin classes cost more than the rest of a read). They
# answer only when the answer is certainly Pillow's, and None otherwise: then Pillow opens
# the file as before, and its verdict (including every error) stands. A test compares both
# on every case they accept.

#: Bytes of a PNG looked at for the chunks before its first IDAT.
_PNG_PLAIN_LOOK = 16 * 1024
#: (bit depth, colour type) pairs Pillow opens (``PngImagePlugin._MODES``).
_PNG_MODES = frozenset({(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (8, 2), (16, 2), (1, 3), (2, 3), (4, 3),
                        (8, 3), (8, 4), (16, 4), (8, 6), (16, 6)})
#: Chunks before IDAT the plain PNG reader follows, with the length below which Pillow's
#: handler refuses the chunk. Any other chunk (tRNS, iCCP, zTXt, iTXt, eXIf, APNG's acTL, …)
#: sends the file to Pillow. bKGD, tIME, sBIT and hIST have no handler in Pillow: only their
#: CRC is checked.
_PNG_PLAIN_CHUNKS = {b"PLTE": 0, b"gAMA": 4, b"cHRM": 32, b"sRGB": 1, b"pHYs": 9, b"tEXt": 0,
                     b"bKGD": 0, b"tIME": 0, b"sBIT": 0, b"hIST": 0}


def _png_plain_info(src: Source) -> dict[str, Any] | None:
    """The ``info`` Pillow would give for the PNG (its ``srgb``, ``gamma`` and text keys), or
    None when the file is not plain: a chunk outside ``_PNG_PLAIN_CHUNKS``, a bad CRC, an odd
    IHDR, or no IDAT within the first ``_PNG_PLAIN_LOOK`` bytes."""
    data = src.head(_PNG_PLAIN_LOOK)
    ihdr = data[16:29]
    if data[8:16] != b"\x00\x00\x00\x0dIHDR" or len(ihdr) < 13 or ihdr[11] or (ihdr[8], ihdr[9]) not in _PNG_MODES:
        return None
    info: dict[str, Any] = {"interlace": 1} if ihdr[12] else {}
    offset = 8
    while offset + 8 <= len(data):
        length, cid = struct.unpack_from(">I4s", data, offset)
        if cid == b"IDAT":
            return info
        end = offset + 12 + length
        if end > len(data) or (offset > 8 and cid not in _PNG_PLAIN_CHUNKS):
            return None
        body = data[offset + 8 : offset + 8 + length]
        if zlib.crc32(body, zlib.crc32(cid)) != struct.unpack_from(">I", data, end - 4)[0]:
            return None
        if length < _PNG_PLAIN_CHUNKS.get(cid, 0):
            return None
        if cid == b"gAMA":
            info["gamma"] = struct.unpack_from(">I", body)[0] / 100000.0
        elif cid == b"sRGB":
            info["srgb"] = body[0]
        elif cid == b"tEXt":
            key, _, value = body.partition(b"\x00")
            if key:
                info[key.decode("latin-1")] = value if key == b"exif" else value.decode("latin-1", "replace")
        offset = end
    return None


#: TGA colour-map entry sizes Pillow reads.
_TGA_MAP_BITS = (16, 24, 32)


def _tga_plain_mode(head: bytes) -> str | None:
    """The mode Pillow gives a TGA whose fixed header ``_check_fixed_header`` accepted, or
    None for the headers Pillow refuses (15-bit pixels, odd colour-map entries)."""
    cmap_type, image_type, depth = head[1], head[2], head[16]
    if depth == 15 or (cmap_type and head[7] not in _TGA_MAP_BITS):
        return None
    if image_type in (3, 11):
        return {1: "1", 16: "LA"}.get(depth, "L")
    if image_type in (1, 9):
        return "P" if cmap_type else "L"
    return "RGB" if depth == 24 else "RGBA"


def _tiff_tags(im: Any) -> dict[int, tuple[int, ...]]:
    """The TIFF tags texbudget looks at, as tuples of ints. A tag whose type a corrupt file
    changed (an ASCII BitsPerSample, a rational SampleFormat) is left out, as if absent."""
    tags = getattr(im, "tag_v2", None)
    if tags is None:
        return {}
    out: dict[int, tuple[int, ...]] = {}
    # BitsPerSample, ExtraSamples, SampleFormat, Strip/Tile offsets and byte counts,
    # Compression, SamplesPerPixel, RowsPerStrip, PlanarConfiguration
    for tag in (258, 338, 339, 273, 279, 324, 325, 259, 277, 278, 284):
        try:
            value = tags.get(tag)
        except _PIL_ERRORS:
            continue
        values = value if isinstance(value, tuple) else (value,)
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            out[tag] = values
    return out


def _check_tiff_data(src: Source, tags: dict[int, tuple[int, ...]], size: int, width: int,
                     height: int) -> ReadResult | tuple[Finding, ...]:
    """The first image directory and its strips (or tiles) must lie inside the file (a
    failing ReadResult when not; else the warnings). Pillow keeps the entries of a directory
    the file cuts short, without a word, so the directory's own end is checked here. An
    uncompressed file whose StripByteCounts claim more than its strips' rows need, past the
    end of a file that holds those rows, is read with a TB055 warning, as Pillow reads it (it
    reads the rows the image's size needs)."""
    rel = src.rel
    end = _tiff_directory_end(src, size)
    if end is not None and end > size:
        return fail(rel, "TB042", f"TIFF header truncated: the first image directory ends at {end}, the file at {size}")
    if 273 not in tags and 324 not in tags:
        return fail(rel, "TB054", "TIFF: the first image directory has no StripOffsets or TileOffsets (a required field)")
    for offsets_tag, counts_tag in ((273, 279), (324, 325)):
        offsets, counts = tags.get(offsets_tag), tags.get(counts_tag)
        if offsets is None or counts is None or len(offsets) != len(counts):
            continue
        ends = [o + c for o, c in zip(offsets, counts, strict=True)]
        if ends and max(ends) > size:
            rows = _raw_strip_bytes(tags, width, height, len(offsets)) if offsets_tag == 273 else None
            if rows is not None and max(o + n for o, n in zip(offsets, rows, strict=True)) <= size:
                return (findings.make(rel, "TB055", f"TIFF: StripByteCounts says its strips end at {max(ends)}, past the file's end at {size}, but the uncompressed rows the image's size needs ({sum(rows)} bytes) are all in the file; read as Pillow reads it"),)
            return fail(rel, "TB043", f"TIFF pixel data truncated: its strips or tiles end at {max(ends)}, the file at {size} ({max(ends) - size} bytes missing)")
    return ()


def _raw_strip_bytes(tags: dict[int, tuple[int, ...]], width: int, height: int, strips: int) -> list[int] | None:
    """The bytes each strip of an uncompressed, chunky TIFF holds, from the image's size,
    bits per sample and rows per strip (None for compressed or planar data, whose strips'
    lengths only StripByteCounts gives)."""
    if tags.get(259, (1,))[0] != 1 or tags.get(284, (1,))[0] != 1:
        return None
    samples = tags.get(277, (1,))[0]
    bits = tags.get(258, (1,))
    pixel_bits = sum(bits) if len(bits) == samples else bits[0] * samples
    per_strip = min(tags.get(278, (height,))[0] or height, height)
    row = -(-width * pixel_bits // 8)
    if strips != -(-height // per_strip):
        return None
    return [min(per_strip, height - i * per_strip) * row for i in range(strips)]


#: TIFF version -> (header bytes, IFD offset format, entry-count format, entry bytes,
#: next-IFD offset bytes): classic TIFF (42) and BigTIFF (43, 64-bit offsets and counts).
_TIFF_LAYOUT = {42: (8, "I", "H", 12, 4), 43: (16, "Q", "Q", 20, 8)}


def _tiff_directory_end(src: Source, size: int) -> int | None:
    """Where the first image directory of a TIFF or BigTIFF ends (its entries and next-IFD
    offset), or None when the header is not one of them."""
    head = src.head(16)
    order = "<" if head[:2] == b"II" else ">"
    layout = _TIFF_LAYOUT.get(struct.unpack_from(order + "H", head, 2)[0]) if len(head) >= 8 else None
    if layout is None or len(head) < layout[0]:
        return None
    _, offset_fmt, count_fmt, entry, next_bytes = layout
    offset = struct.unpack_from(order + offset_fmt, head, 8 if offset_fmt == "Q" else 4)[0]
    count_bytes = struct.calcsize(count_fmt)
    with src.open() as f:
        raw = read_at(f, offset, count_bytes, size)
    if len(raw) < count_bytes:
        return offset + count_bytes
    return offset + count_bytes + entry * struct.unpack(order + count_fmt, raw)[0] + next_bytes


def _pillow_code(exc: BaseException) -> str:
    """TB042 when Pillow ran out of header bytes, TB044 for a zero size, TB054 otherwise."""
    chain = [exc, exc.__cause__, exc.__context__]
    if any(isinstance(e, (EOFError, struct.error, IndexError)) for e in chain if e is not None):
        return "TB042"
    text = str(exc).lower()
    if "truncat" in text or "end of file" in text or "eof" in text or "not enough data" in text:
        return "TB042"
    return "TB054"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


_GREY_MODES = {"1", "L", "LA", "La", "I", "F", "I;16", "I;16L", "I;16B", "I;16N", "I;16S"}


def _shape_of(container: str, mode: str, info: dict[str, Any], head: bytes, tiff_tags: dict[int, tuple[int, ...]]) -> _Shape:
    transparency = "transparency" in info
    bit_depth = 8
    hdr = False
    if mode.startswith("I;16"):
        bit_depth = 16
    elif mode in ("I", "F"):
        bit_depth, hdr = 32, mode == "F"
    if container == "png":  # IHDR says it exactly (Pillow widens 16-bit grey+alpha to RGBA)
        bit_depth = 16 if head[24] == 16 else 8
        color_type = head[25]
        if color_type == 3:
            return _Shape(4 if transparency else 3, transparency, palette=True)
        if color_type in (0, 4):
            alpha = color_type == 4 or transparency
            return _Shape(2 if alpha else 1, alpha, grey=True, bit_depth=bit_depth)
        alpha = color_type == 6 or transparency
        return _Shape(4 if alpha else 3, alpha, bit_depth=bit_depth)
    if container == "tiff":
        bits = max(tiff_tags.get(258, (0,)))
        if bits in (16, 32, 64):
            bit_depth = min(bits, 32)
        if tiff_tags.get(339, (0,))[0] == 3:  # SampleFormat: IEEE float
            hdr = True
    if mode in ("P", "PA"):
        alpha = transparency or mode == "PA"
        return _Shape(4 if alpha else 3, alpha, palette=True, bit_depth=8)
    if mode in _GREY_MODES:
        alpha = mode in ("LA", "La") or transparency
        return _Shape(2 if alpha else 1, alpha, grey=True, bit_depth=bit_depth, hdr=hdr)
    if mode in ("RGBA", "RGBa"):
        return _Shape(4, True, bit_depth=bit_depth, hdr=hdr)
    alpha = transparency
    return _Shape(4 if alpha else 3, alpha, bit_depth=bit_depth, hdr=hdr)


def _color_space(container: str, info: dict[str, Any], shape: _Shape) -> str | None:
    if shape.hdr:
        return "linear"
    if "srgb" in info:  # PNG sRGB chunk
        return "srgb"
    icc = info.get("icc_profile")
    if isinstance(icc, bytes) and icc:
        return "linear" if icc_says_linear(icc) else "srgb"
    gamma = info.get("gamma")
    if isinstance(gamma, (int, float)) and gamma > 0:
        return "linear" if abs(gamma - 1.0) < 0.01 else "srgb"
    if container in ("jpeg", "webp"):
        return "srgb"
    return None


# --- PSD / PSB ------------------------------------------------------------------------------

#: Photoshop colour modes: mode -> (colour channels, grey, palette)
_PSD_MODES = {0: (1, True, False), 1: (1, True, False), 2: (3, False, True), 3: (3, False, False),
              4: (3, False, False), 7: (1, True, False), 8: (1, True, False), 9: (3, False, False)}
#: Colour channels stored in the file for each mode (CMYK stores 4).
_PSD_STORED = {0: 1, 1: 1, 2: 1, 3: 3, 4: 4, 7: 1, 8: 1, 9: 3}


#: Largest table of RLE row lengths read to find where a PSD's merged image ends (a PSB of
#: 4 channels of 65,536 rows); past it only the table's own length is checked.
_PSD_MAX_RLE_TABLE = 1 << 20


def _psd_cut(f: BinaryIO, offset: int, size: int, psb: bool, rows: int, row_bytes: int) -> str | None:
    """Where a PSD ends short after its image resources (at ``offset``), or None: the layer
    and mask section (its length is 8 bytes in a PSB), then the merged image, a compression
    word and ``rows`` rows of every channel: raw rows of ``row_bytes``, or RLE rows whose
    lengths lead the data (2 bytes each, 4 in a PSB). ZIP data has no length to check."""
    raw = read_at(f, offset, 8 if psb else 4, size)
    if len(raw) < (8 if psb else 4):
        return f"the layer and mask section's length at offset {offset} is missing"
    offset += len(raw) + int.from_bytes(raw, "big")
    if offset + 2 > size:
        return f"the layer and mask section ends at {offset}, the merged image's compression word at {offset + 2}, the file at {size}"
    compression = int.from_bytes(read_at(f, offset, 2, size), "big")
    offset += 2
    if compression == 0:
        needed = offset + rows * row_bytes
    elif compression == 1:
        entry = 4 if psb else 2  # bytes of one row's length
        needed = offset + rows * entry
        if needed <= size and rows * entry <= _PSD_MAX_RLE_TABLE:
            table = read_at(f, offset, rows * entry, size)
            if len(table) == rows * entry:
                needed += sum(struct.unpack(f">{rows}{'I' if psb else 'H'}", table))
    else:
        return None
    if needed > size:
        what = "raw" if compression == 0 else "RLE"
        return f"the merged image ({what}) ends at {needed}, the file at {size} ({needed - size} bytes missing)"
    return None


#: The smallest layer record (Adobe's spec): its rectangle (16 bytes), channel count (2),
#: blend-mode signature and key (8), opacity, clipping, flags and filler (4), extra-data
#: length (4); each channel adds 6 bytes (10 in a PSB).
_PSD_MIN_LAYER_RECORD = 34


def _psd_layers_bad(f: BinaryIO, offset: int, size: int, psb: bool) -> str | None:
    """What is wrong with the layer info at the start of the layer and mask section (at
    ``offset``), or None: its length must fit the section, and its layer count (negative
    when the first alpha channel is the merged image's transparency) must fit its length.
    Pillow reads such a file's merged image but refuses its layers ("Layer block too short
    for number of layers requested"), so it is a warning (TB055)."""
    width = 8 if psb else 4
    raw = read_at(f, offset, 2 * width + 2, size)
    if len(raw) < 2 * width + 2:
        return None  # a short section is _psd_cut's to report
    section, info = int.from_bytes(raw[:width], "big"), int.from_bytes(raw[width : 2 * width], "big")
    if section < width or info == 0:
        return None
    if width + info > section:
        return f"the layer info ({info} bytes) runs past the layer and mask section ({section} bytes) at offset {offset}"
    count = abs(int.from_bytes(raw[2 * width :], "big", signed=True))
    if count * _PSD_MIN_LAYER_RECORD > info - 2:
        return f"the layer info ({info} bytes at offset {offset + width}) claims {count} layers; their records need at least {count * _PSD_MIN_LAYER_RECORD}"
    return None


def _read_psd(src: Source, head: bytes, size: int) -> ReadResult:
    version, = struct.unpack_from(">H", head, 4)
    stored, height, width, depth, mode = struct.unpack_from(">HIIHH", head, 12)
    if version not in (1, 2):
        return fail(src.rel, "TB054", f"PSD: version {version} (1 = PSD, 2 = PSB)")
    if depth not in (1, 8, 16, 32) or mode not in _PSD_MODES or not 1 <= stored <= 56:
        return fail(src.rel, "TB054", f"PSD: invalid header ({stored} channels, {depth} bits, colour mode {mode})")
    bad = check_dims(src.rel, "PSD", width, height)
    if bad is not None:
        return bad
    # The colour-mode and image-resource sections follow; a cut file ends inside them.
    offset = 26
    with src.open() as f:
        for section in ("colour mode data", "image resources"):
            raw = read_at(f, offset, 4, size)
            if len(raw) < 4:
                return fail(src.rel, "TB042", f"PSD header truncated: the {section} length at offset {offset} is missing")
            offset += 4 + struct.unpack(">I", raw)[0]
            if offset > size:
                return fail(src.rel, "TB042", f"PSD header truncated: the {section} section ends at {offset}, the file at {size}")
        layers = _psd_layers_bad(f, offset, size, version == 2)
        cut = _psd_cut(f, offset, size, version == 2, stored * height, -(-width * depth // 8))
    if cut is not None:
        return fail(src.rel, "TB043", f"PSD pixel data truncated: {cut}")
    channels, grey, palette = _PSD_MODES[mode]
    alpha = stored > _PSD_STORED[mode]
    facts = TextureFacts(
        path=src.rel, container="psd", width=width, height=height,
        channels=channels + (1 if alpha else 0), alpha=alpha, bit_depth=max(8, depth),
        hdr=depth == 32, color_space="linear" if depth == 32 else None, disk_bytes=size,
        grey=grey, palette=palette,
    )
    notes = () if layers is None else (findings.make(src.rel, "TB055", f"PSD: {layers}; the merged image was read (Pillow reads it, not the layers)"),)
    return texture_result(facts, notes)
