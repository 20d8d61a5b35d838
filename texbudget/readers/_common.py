"""Small helpers the texture readers share: limits, bounded reads and one-finding results.

Readers never trust a header: dimensions and counts are checked against these limits and
against the file's length before anything is computed from them, and no read is ever sized
by a number the file claims without first clamping it to the bytes that exist.
"""

from __future__ import annotations

from typing import BinaryIO

from texbudget import findings
from texbudget.model import Finding, PixelFormat, ReadResult, TextureFacts

#: No GPU accepts more texels on a side (D3D12 2D max 16384, Vulkan devices up to 32768);
#: a header above this is corrupt or not a texture.
MAX_DIMENSION = 65536
#: Array layers (times faces) texbudget accepts before calling a header absurd.
MAX_LAYERS = 65536
#: Text-like headers (Radiance HDR, OpenEXR attributes) are scanned at most this far.
HEADER_SCAN_LIMIT = 64 * 1024


def texture_result(facts: TextureFacts, notes: tuple[Finding, ...] | list[Finding] = ()) -> ReadResult:
    """A ReadResult holding one texture and its notes: what most files give."""
    return ReadResult(textures=(facts,), findings=tuple(notes))


def fail(rel: str, code: str, message: str) -> ReadResult:
    """A ReadResult holding one finding and nothing else: the file is broken."""
    return ReadResult(findings=(findings.make(rel, code, message),))


def check_dims(rel: str, what: str, width: int, height: int, depth: int = 1) -> ReadResult | None:
    """TB044 for a zero dimension, TB045 for an absurd one; None when the dims are sane."""
    if 0 < width <= MAX_DIMENSION and 0 < height <= MAX_DIMENSION and 0 < depth <= MAX_DIMENSION:
        return None  # the usual case: no message to write
    dims = f"{width}x{height}" + (f"x{depth}" if depth != 1 else "")
    if width <= 0 or height <= 0 or depth <= 0:
        return fail(rel, "TB044", f"{what} header gives size {dims}; every dimension must be at least 1")
    return fail(rel, "TB045", f"{what} header gives size {dims}; more than {MAX_DIMENSION} texels on a side is beyond any GPU")


def read_at(f: BinaryIO, offset: int, n: int, file_size: int) -> bytes:
    """At most ``n`` bytes at ``offset``, never more than the file holds (the caller checks
    the length it got)."""
    if offset >= file_size or n <= 0:
        return b""
    f.seek(offset)
    return f.read(min(n, file_size - offset))


#: Block size of ``read_upto``.
READ_BLOCK = 1024 * 1024


def read_upto(f: BinaryIO, limit: int) -> bytes:
    """The rest of the file, but at most ``limit`` bytes, read in blocks: ``f.read(n)`` on a
    real file allocates ``n`` bytes before it reads, so a cap passed to it whole would cost
    the cap, not the file. Callers pass their cap + 1 to see that a file is over it."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        block = f.read(min(left, READ_BLOCK))
        if not block:
            break
        chunks.append(block)
        left -= len(block)
    return b"".join(chunks)


_WIDE_CHANNELS = (("64", 64), ("32", 32), ("16", 16))
#: Bytes of an ICC profile looked at for its description.
ICC_LOOK_BYTES = 4096


def icc_says_linear(icc: bytes) -> bool:
    """An ICC profile's description names linear profiles ("Linear sRGB", "scRGB linear", …);
    v2 profiles store it in ASCII, v4 in UTF-16BE."""
    text = icc[:ICC_LOOK_BYTES].lower()
    return b"linear" in text or "linear".encode("utf-16-be") in text


def bit_depth_of(fmt: PixelFormat) -> int:
    """Bits per channel a format stores: 64 or 32 for 64/32-bit float/int, 16 for 16-bit
    and BC6H (half floats), 8 for everything else (8-bit, BCn, ETC, ASTC LDR, packed 10/11-bit)."""
    name = fmt.name
    if not fmt.compressed:
        for text, bits in _WIDE_CHANNELS:
            if text in name:
                return bits
    if fmt.hdr:
        return 16
    return 8


def color_space_of(fmt: PixelFormat) -> str | None:
    """"srgb" for an sRGB format, "linear" for float/HDR data, None when UNORM data does not say."""
    if fmt.srgb:
        return "srgb"
    if fmt.hdr:
        return "linear"
    return None
