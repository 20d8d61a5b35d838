"""Radiance HDR (RGBE / XYZE) headers: the text header and the resolution line.

The header is ``#?PROGRAM``, ``KEY=value`` lines, a blank line, then one resolution line:
``-Y <height> +X <width>`` for the standard orientation, any sign for each axis, and the
axes swapped (``+X <width> -Y <height>``) for images stored column by column. The number
after ``X`` is always the width, the one after ``Y`` the height; the first axis is the one
that changes slowest, so a swapped file's scanlines are its columns. At most 64 KiB of header
is scanned. Data is new-style RLE (each scanline starts ``02 02``), whose smallest possible
encoding bounds the payload from below; a file shorter than that bound is cut (TB043).
"""

from __future__ import annotations

import re

from texbudget.model import ReadResult, TextureFacts
from texbudget.readers import Source
from texbudget.readers._common import HEADER_SCAN_LIMIT, check_dims, fail

_RESOLUTION = re.compile(rb"([+-])([XY]) (\d{1,10}) ([+-])([XY]) (\d{1,10})")
_FORMATS = {b"32-bit_rle_rgbe", b"32-bit_rle_xyze"}


def read_hdr(src: Source) -> ReadResult:
    """Facts of one Radiance HDR file: hdr, 3 channels, linear. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(HEADER_SCAN_LIMIT)
    if not head.startswith(b"#?"):
        if any(m.startswith(head) for m in (b"#?RADIANCE", b"#?RGBE")):
            return fail(src.rel, "TB042", f"HDR header truncated: the file has {len(head)} bytes, it ends inside the signature")
        return fail(src.rel, "TB041", f"the file does not start with the Radiance signature '#?' (first bytes {head[:8].hex(' ')})")
    ended = len(head) < HEADER_SCAN_LIMIT  # the whole file is in `head`
    blank = head.find(b"\n\n")
    if blank < 0:
        if ended:
            return fail(src.rel, "TB042", f"HDR header truncated: the file ({size} bytes) ends before the blank line that closes the header")
        return fail(src.rel, "TB054", f"HDR header: no blank line in the first {HEADER_SCAN_LIMIT} bytes")
    for line in head[:blank].split(b"\n")[1:]:
        if line.startswith(b"FORMAT=") and line[7:].strip() not in _FORMATS:
            return fail(src.rel, "TB046", f"HDR FORMAT={line[7:].strip().decode('latin-1')!s} (known: 32-bit_rle_rgbe, 32-bit_rle_xyze)")
    start = blank + 2
    newline = head.find(b"\n", start)
    if newline < 0:
        if ended:
            return fail(src.rel, "TB042", f"HDR header truncated: the file ends inside the resolution line at offset {start}")
        return fail(src.rel, "TB054", f"HDR header: no resolution line in the first {HEADER_SCAN_LIMIT} bytes")
    line = head[start:newline].strip()
    match = _RESOLUTION.fullmatch(line)
    if match is None or match.group(2) == match.group(5):
        shown = line[:60].decode("latin-1")
        return fail(src.rel, "TB054", f"HDR resolution line {shown!r} is not like '-Y <height> +X <width>'")
    values = {match.group(2): int(match.group(3)), match.group(5): int(match.group(6))}
    width, height = values[b"X"], values[b"Y"]
    bad = check_dims(src.rel, "HDR", width, height)
    if bad is not None:
        return bad
    data_start = newline + 1
    have = size - data_start
    first = head[data_start:data_start + 2]
    # The first axis of the resolution line changes slowest: "-Y h +X w" is h scanlines of w
    # pixels, "+X w -Y h" is w scanlines (columns) of h pixels.
    lines, length = int(match.group(3)), int(match.group(6))
    # New-style RLE: 4-byte scanline header, then per channel runs of at most 127 texels in
    # 2 bytes (a run) or 128 texels in 129 bytes (literals): at least 2*ceil(n/127) bytes.
    if first == b"\x02\x02" and 8 <= length < 32768:
        needed = lines * (4 + 4 * 2 * -(-length // 127))
    else:
        needed = 4  # flat or old-style RLE: at least one pixel
    if have < needed:
        return fail(src.rel, "TB043", f"HDR pixel data truncated: {width}x{height} needs at least {needed} bytes after the header at offset {data_start}, the file has {have} (at least {needed - have} bytes missing)")
    facts = TextureFacts(
        path=src.rel, container="hdr", width=width, height=height, channels=3, alpha=False,
        bit_depth=32, hdr=True, color_space="linear", disk_bytes=size,
    )
    return ReadResult(textures=(facts,))
