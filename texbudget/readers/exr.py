"""OpenEXR headers: magic, version flags, and the attributes texbudget needs.

Layout (OpenEXR "File Layout"): magic ``76 2f 31 01``, a u32 version field (low byte 2;
flag 0x200 single-part tiled, 0x400 long names, 0x800 deep data, 0x1000 multi-part), then
attributes ``name\\0 type\\0 size:i32 value`` ending with an empty name, then the chunk
offset table. At most 64 KiB of header is scanned.

Reported: the data window's size, the channels of the first layer (the default layer when
present: ``R``, ``G``, ``B``, ``A``; else the first named layer, e.g. ``diffuse.*``) capped at 4,
alpha when that layer has an ``A`` channel, bit depth 16 when every channel is HALF and 32
otherwise, hdr True, colour space linear. A tiled MIPMAP file reports its stored level count
(rounding mode honoured); ONE_LEVEL and RIPMAP files report 1 (ripmaps are not GPU mips).
A file too short for its chunk offset table, or for the chunk at the largest offset the
table names, is cut (TB043); so is one whose table leaves entries at 0 (not filled in) while
the file holds fewer chunks than the table has, as OpenEXR finds when it rebuilds the table
(the ``openexr`` Python package writes mip-mapped files with only their first level's tiles;
OpenEXR's own readers refuse them). A table of zeros only says nothing. Deep files have no fixed texel
size (TB046); multi-part files are read from their first part (TB056).
"""

from __future__ import annotations

import struct

from texbudget import findings
from texbudget.model import Finding, ReadResult, TextureFacts
from texbudget.readers import Source
from texbudget.readers._common import HEADER_SCAN_LIMIT, check_dims, fail, read_at

MAGIC = b"v/1\x01"
FLAG_TILED, FLAG_LONG_NAMES, FLAG_DEEP, FLAG_MULTIPART = 0x200, 0x400, 0x800, 0x1000
PIXEL_TYPES = {0: ("UINT", 32), 1: ("HALF", 16), 2: ("FLOAT", 32)}
ONE_LEVEL, MIPMAP_LEVELS, RIPMAP_LEVELS = 0, 1, 2
#: scanlines per chunk by compression (NONE, RLE, ZIPS, ZIP, PIZ, PXR24, B44, B44A, DWAA, DWAB,
#: then HTJ2K256, HTJ2K32, LJ2K and ZSTD, as the openexr package 3.5 writes them)
LINES_PER_CHUNK = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32, 9: 256, 10: 256, 11: 32, 12: 256, 13: 1}


class _Truncated(Exception):
    """The header ran past the bytes scanned."""


def read_exr(src: Source) -> ReadResult:
    """Facts of one OpenEXR file from its (first) header. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(HEADER_SCAN_LIMIT)
    if not head.startswith(MAGIC):
        if MAGIC.startswith(head):
            return fail(src.rel, "TB042", f"EXR header truncated: the file has {len(head)} bytes, it ends inside the signature")
        return fail(src.rel, "TB041", f"the file does not start with the OpenEXR signature 76 2f 31 01 (first bytes {head[:8].hex(' ')})")
    if len(head) < 8:
        return fail(src.rel, "TB042", f"EXR header truncated: the file has {len(head)} bytes, the version field needs 8")
    version_field = struct.unpack_from("<I", head, 4)[0]
    if version_field & 0xFF != 2:
        return fail(src.rel, "TB054", f"EXR version {version_field & 0xFF} (texbudget reads version 2)")
    if version_field & FLAG_DEEP:
        return fail(src.rel, "TB046", "deep OpenEXR data (per-pixel sample lists) has no fixed texel size; it is not a texture")
    max_name = 255 if version_field & FLAG_LONG_NAMES else 31
    try:
        attrs, header_end = _attributes(head, 8, max_name)
    except _Truncated:
        if len(head) < HEADER_SCAN_LIMIT:
            return fail(src.rel, "TB042", f"EXR header truncated: the file ({size} bytes) ends inside the attribute list")
        return fail(src.rel, "TB054", f"EXR header: the attribute list does not end within the first {HEADER_SCAN_LIMIT} bytes")
    except ValueError as exc:
        return fail(src.rel, "TB054", f"EXR header: {exc}")

    notes: list[Finding] = []
    part_type = attrs.get("type", ("", b""))[1].rstrip(b"\0")
    if part_type.startswith(b"deep"):
        return fail(src.rel, "TB046", f"deep OpenEXR part ({part_type.decode('latin-1')}) has no fixed texel size; it is not a texture")
    multipart = bool(version_field & FLAG_MULTIPART)
    if multipart:
        notes.append(findings.make(src.rel, "TB056", "multi-part OpenEXR: only the first part's header was read"))

    for name, kind in (("channels", "chlist"), ("dataWindow", "box2i")):
        if name not in attrs:
            return fail(src.rel, "TB054", f"EXR header has no '{name}' attribute")
        if attrs[name][0] != kind:
            return fail(src.rel, "TB054", f"EXR '{name}' attribute has type '{attrs[name][0]}' (must be {kind})")
    window = attrs["dataWindow"][1]
    if len(window) != 16:
        return fail(src.rel, "TB054", f"EXR dataWindow is {len(window)} bytes (must be 16)")
    xmin, ymin, xmax, ymax = struct.unpack("<4i", window)
    width, height = xmax - xmin + 1, ymax - ymin + 1
    bad = check_dims(src.rel, "EXR", width, height)
    if bad is not None:
        return bad
    try:
        channels = _channels(attrs["channels"][1])
    except ValueError as exc:
        return fail(src.rel, "TB054", f"EXR channels: {exc}")
    if not channels:
        return fail(src.rel, "TB054", "EXR channel list is empty")

    tiled = bool(version_field & FLAG_TILED) or part_type == b"tiledimage"
    levels = 1
    tile = None
    if tiled:
        if attrs.get("tiles", ("",))[0] != "tiledesc" or len(attrs["tiles"][1]) != 9:
            return fail(src.rel, "TB054", "tiled EXR without a valid 'tiles' attribute")
        tx, ty, mode = struct.unpack("<IIB", attrs["tiles"][1])
        level_mode, round_up = mode & 0x0F, bool(mode >> 4)
        if tx == 0 or ty == 0 or level_mode not in (ONE_LEVEL, MIPMAP_LEVELS, RIPMAP_LEVELS):
            return fail(src.rel, "TB054", f"EXR tiles attribute: {tx}x{ty} tiles, level mode {level_mode}")
        tile = (tx, ty, level_mode, round_up)
        if level_mode == MIPMAP_LEVELS:
            levels = _level_count(max(width, height), round_up)

    if not multipart:
        chunks = _chunk_count(width, height, attrs, tile)
        if chunks is not None:
            needed = header_end + 8 * chunks
            if size < needed:
                return fail(src.rel, "TB043", f"EXR pixel data truncated: the offset table of {chunks} chunks ends at {needed}, the file at {size} ({needed - size} bytes missing)")
            cut = _last_chunk_cut(src, header_end, chunks, size, 20 if tile else 8)
            if cut is not None:
                return fail(src.rel, "TB043", f"EXR pixel data truncated: {cut}")

    layer = _first_layer(channels)
    facts = TextureFacts(
        path=src.rel, container="exr", width=width, height=height, stored_levels=levels,
        channels=min(4, len(layer)), alpha=any(n.rsplit(".", 1)[-1] == "A" for n, _ in layer),
        bit_depth=max(bits for _, bits in layer), hdr=True, color_space="linear",
        disk_bytes=size, grey=len(layer) == 1,
    )
    return ReadResult(textures=(facts,), findings=tuple(notes))


#: Largest chunk offset table read to find the file's last chunk (131,072 chunks: a 16k-line
#: uncompressed image); past it only the table's own length is checked.
MAX_OFFSET_TABLE_BYTES = 1 << 20


def _last_chunk_cut(src: Source, table_at: int, chunks: int, size: int, head_bytes: int) -> str | None:
    """How the last chunk (the one at the largest offset) runs past the end of the file, or
    None when it fits. A chunk is its header (``head_bytes``: the scanline's y, or the tile's
    four coordinates, then the data size) and its data. A table of zeros (not filled in, which
    the OpenEXR library rebuilds by reading the chunks) says nothing."""
    if not chunks or 8 * chunks > MAX_OFFSET_TABLE_BYTES:
        return None
    table = src.read_at(table_at, 8 * chunks)
    if len(table) < 8 * chunks:
        return None  # the file shrank after it was measured; its length was checked above
    offsets = struct.unpack(f"<{chunks}Q", table)
    last = max(offsets)
    if last == 0:
        return None
    unset = offsets.count(0)
    if unset:
        found = _chunks_in_file(src, table_at + 8 * chunks, size, head_bytes, chunks)
        if found < chunks:
            return (f"the offset table leaves {unset} of its {chunks} chunks at 0 and the file holds {found}: "
                    f"{chunks - found} were never written (OpenEXR refuses a file whose chunks it cannot all find)")
    end = last + head_bytes
    if end > size:
        return f"the offset table names a chunk at byte {last}, whose header ends at {end}, the file at {size} ({end - size} bytes missing)"
    (data,) = struct.unpack("<i", src.read_at(end - 4, 4))
    if end + data > size:
        return f"the last chunk (at byte {last}) ends at {end + data}, the file at {size} ({end + data - size} bytes missing)"
    return None


def _chunks_in_file(src: Source, start: int, size: int, head_bytes: int, limit: int) -> int:
    """How many whole chunks (header, then as many bytes of data as it says) follow one
    another from ``start``, up to ``limit``: what OpenEXR finds when it rebuilds an offset
    table that has entries missing."""
    count, pos = 0, start
    with src.open() as f:
        while count < limit and pos + head_bytes <= size:
            raw = read_at(f, pos + head_bytes - 4, 4, size)
            if len(raw) < 4:
                break
            (data,) = struct.unpack("<i", raw)
            if data < 0 or pos + head_bytes + data > size:
                break
            pos += head_bytes + data
            count += 1
    return count


def _cstring(data: bytes, pos: int, limit: int) -> tuple[str, int]:
    end = data.find(b"\0", pos, pos + limit + 1)
    if end < 0:
        if len(data) - pos <= limit:
            raise _Truncated
        raise ValueError(f"a name at offset {pos} is longer than {limit} characters")
    return data[pos:end].decode("latin-1"), end + 1


def _attributes(head: bytes, pos: int, max_name: int) -> tuple[dict[str, tuple[str, bytes]], int]:
    """name -> (type, value bytes) up to the header's terminating NUL; the offset after it."""
    attrs: dict[str, tuple[str, bytes]] = {}
    while True:
        if pos >= len(head):
            raise _Truncated
        if head[pos] == 0:
            return attrs, pos + 1
        name, pos = _cstring(head, pos, max_name)
        kind, pos = _cstring(head, pos, max_name)
        if pos + 4 > len(head):
            raise _Truncated
        length = struct.unpack_from("<i", head, pos)[0]
        pos += 4
        if length < 0:
            raise ValueError(f"attribute '{name}' has negative size {length}")
        if pos + length > len(head):
            raise _Truncated
        attrs.setdefault(name, (kind, head[pos:pos + length]))
        pos += length


def _channels(data: bytes) -> list[tuple[str, int]]:
    """(name, bits) for each channel of a chlist value."""
    out: list[tuple[str, int]] = []
    pos = 0
    while pos < len(data) and data[pos] != 0:
        end = data.find(b"\0", pos)
        if end < 0 or end + 17 > len(data):
            raise ValueError("the channel list ends inside an entry")
        name = data[pos:end].decode("latin-1")
        pixel_type = struct.unpack_from("<i", data, end + 1)[0]
        if pixel_type not in PIXEL_TYPES:
            raise ValueError(f"channel '{name}' has pixel type {pixel_type} (0 UINT, 1 HALF, 2 FLOAT)")
        out.append((name, PIXEL_TYPES[pixel_type][1]))
        pos = end + 17  # pixel type i32, pLinear u8, 3 reserved, xSampling i32, ySampling i32
    return out


def _first_layer(channels: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The default layer (names without a dot) when present, else the first layer holding a
    colour channel (R, G, B, Y or A), else the first layer."""
    layers: dict[str, list[tuple[str, int]]] = {}
    for c in channels:
        layers.setdefault(c[0].rsplit(".", 1)[0] if "." in c[0] else "", []).append(c)
    if "" in layers:
        return layers[""]
    for group in layers.values():
        if any(n.rsplit(".", 1)[-1] in ("R", "G", "B", "Y", "A") for n, _ in group):
            return group
    return next(iter(layers.values()))


def _level_count(size: int, round_up: bool) -> int:
    """Levels of an EXR mip chain: floor(log2(size)) + 1, or ceil(log2(size)) + 1 rounding up."""
    floor_log = size.bit_length() - 1
    if round_up and size & (size - 1):
        return floor_log + 2
    return floor_log + 1


def _level_size(size: int, level: int, round_up: bool) -> int:
    if round_up:
        return max(1, -(-size // (1 << level)))
    return max(1, size >> level)


def _chunk_count(width: int, height: int, attrs: dict[str, tuple[str, bytes]], tile: tuple[int, int, int, bool] | None) -> int | None:
    """Entries of the chunk offset table, or None when the compression is unknown."""
    if tile is None:
        raw = attrs.get("compression", ("compression", b"\0"))[1]
        lines = LINES_PER_CHUNK.get(raw[0] if raw else 0)
        return None if lines is None else -(-height // lines)
    tx, ty, mode, round_up = tile
    if mode == ONE_LEVEL:
        return -(-width // tx) * -(-height // ty)
    nx, ny = _level_count(width, round_up), _level_count(height, round_up)
    if mode == MIPMAP_LEVELS:
        n = max(nx, ny)
        return sum(-(-_level_size(width, i, round_up) // tx) * -(-_level_size(height, i, round_up) // ty) for i in range(n))
    return sum(-(-_level_size(width, i, round_up) // tx) for i in range(nx)) * sum(-(-_level_size(height, j, round_up) // ty) for j in range(ny))
