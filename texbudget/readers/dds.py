"""DirectDraw Surface (DDS) headers: legacy FourCC and bit-mask formats, the DX10 extension,
mips, cubemaps, arrays and volumes (spec/textures.md §4.3; DirectXTex ``DDS.h`` and
``DirectXTexDDS.cpp``).

Only the 128-byte header (148 with DX10) is read. The payload the header implies (every
array item and face with all its mips, or every slice of every mip of a volume) is sized
with ``sizing.textures.mip_chain`` and checked against the file length.

Decisions, where readers disagree:
- ``mipMapCount`` is used whether or not the MIPMAPCOUNT flag is set (as DirectXTex does);
  0 means 1 level.
- A DX10 ``arraySize`` of 0 is read as 1 with a TB049 warning: Pillow's DDS writer produces
  it for BC2/BC3/BC5, while DirectXTex refuses such files. A ``resourceDimension`` of 0
  (unknown) is read as 2D with a TB055 warning, as Pillow reads it (its test files bc1.dds
  and bc1_typeless.dds have it); DirectXTex refuses it too.
- Legacy formats (no DX10 header) are read as DirectXTex's DDS loader reads them
  (``LEGACY_FORMATS``, the FourCC and D3DFORMAT ids in ``format_table``): the stored format
  is the DXGI format it loads the file as, so the GPU bytes are what a D3D10+ or Vulkan
  engine allocates. X8 variants (no alpha) map to the A8 format of the same size with
  ``alpha`` False. Formats no GPU has any more (P8, A8P8, R3G3B2, A8R3G3B2, A4L4, L6V5U5)
  are expanded on load: the file's payload is checked at its own bytes a texel (after the
  1 KiB palette of P8/A8P8), ``level_bytes`` gives those stored bytes, and a TB060 note
  says so. One exception (``format_table.REFERENCE_DIFFERENCES``): 24-bit RGB stays
  ``B8G8R8_UNORM``, 3 bytes a texel, where DirectXTex expands it to RGBA8.
- DX10 headers take every DXGI format DirectXTex sizes (``formats.by_dxgi``), the video
  and palette formats included (DirectXTex refuses the palette ones in a DX10 header).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from texbudget import findings, formats
from texbudget.model import Finding, PixelFormat, ReadResult, TextureFacts
from texbudget.readers import Source
from texbudget.readers._common import (
    MAX_LAYERS,
    bit_depth_of,
    check_dims,
    color_space_of,
    fail,
    texture_result,
)
from texbudget.sizing.textures import full_mip_count, mip_chain

MAGIC = b"DDS "
HEADER_BYTES = 128  # magic + 124-byte DDS_HEADER
DX10_HEADER_BYTES = 148  # + 20-byte DDS_HEADER_DXT10

# DDS_HEADER.flags
DDSD_DEPTH = 0x800000
# DDS_PIXELFORMAT.flags
DDPF_ALPHAPIXELS = 0x1
DDPF_ALPHA = 0x2
DDPF_FOURCC = 0x4
DDPF_RGB = 0x40
DDPF_LUMINANCE = 0x20000
DDPF_BUMPDUDV = 0x80000
# caps2
DDSCAPS2_CUBEMAP = 0x200
DDSCAPS2_VOLUME = 0x200000
CUBE_FACE_BITS = (0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000)  # +X -X +Y -Y +Z -Z
CUBE_FACE_NAMES = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")
# DDS_HEADER_DXT10
DIMENSION_1D, DIMENSION_2D, DIMENSION_3D = 2, 3, 4
MISC_TEXTURECUBE = 0x4
ALPHA_MODE_OPAQUE = 3

class _Legacy(NamedTuple):
    """One bit-mask pixel format of DirectXTex's legacy DDS map (``DDS.h``,
    ``g_LegacyDDSMap`` in DirectXTexDDS.cpp) and what texbudget reads it as."""

    d3dfmt: str  # the Direct3D 9 name
    flags: int  # DDS_PIXELFORMAT.flags as DDS.h writes them
    bits: int
    masks: tuple[int, int, int, int]  # R, G, B, A
    format: str  # the row: DirectXTex's DXGI format (REFERENCE_DIFFERENCES has the one exception)
    alpha: bool
    channels: int
    grey: bool = False
    #: bytes a texel in the file when DirectXTex expands the data on load (0: the format's own)
    disk_bytes: int = 0


_RGB, _RGBA, _LUM, _LUMA = DDPF_RGB, DDPF_RGB | DDPF_ALPHAPIXELS, DDPF_LUMINANCE, DDPF_LUMINANCE | DDPF_ALPHAPIXELS
_PAL8, _BUMPLUM, _BUMPDUDV = 0x20, 0x40000, DDPF_BUMPDUDV

#: Every bit-mask format DirectXTex's DDS loader maps, in its order, plus 24-bit RGB in
#: R-low order (a layout it refuses; Vulkan has R8G8B8_UNORM). D3DX wrote the 10:10:10:2 masks
#: swapped; both orders are A2B10G10R10 (as DirectXTex reads them).
LEGACY_FORMATS: tuple[_Legacy, ...] = (
    _Legacy("A8R8G8B8", _RGBA, 32, (0xFF0000, 0xFF00, 0xFF, 0xFF000000), "B8G8R8A8_UNORM", True, 4),
    _Legacy("X8R8G8B8", _RGB, 32, (0xFF0000, 0xFF00, 0xFF, 0), "B8G8R8A8_UNORM", False, 3),
    _Legacy("A8B8G8R8", _RGBA, 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000), "R8G8B8A8_UNORM", True, 4),
    _Legacy("X8B8G8R8", _RGB, 32, (0xFF, 0xFF00, 0xFF0000, 0), "R8G8B8A8_UNORM", False, 3),
    _Legacy("G16R16", _RGB, 32, (0xFFFF, 0xFFFF0000, 0, 0), "R16G16_UNORM", False, 2),
    _Legacy("A2R10G10B10", _RGBA, 32, (0x3FF, 0xFFC00, 0x3FF00000, 0xC0000000), "A2B10G10R10_UNORM", True, 4),
    _Legacy("A2B10G10R10", _RGBA, 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000), "A2B10G10R10_UNORM", True, 4),
    _Legacy("R8G8B8", _RGB, 24, (0xFF0000, 0xFF00, 0xFF, 0), "B8G8R8_UNORM", False, 3),
    _Legacy("B8G8R8", _RGB, 24, (0xFF, 0xFF00, 0xFF0000, 0), "R8G8B8_UNORM", False, 3),
    _Legacy("R5G6B5", _RGB, 16, (0xF800, 0x7E0, 0x1F, 0), "R5G6B5_UNORM", False, 3),
    _Legacy("A1R5G5B5", _RGBA, 16, (0x7C00, 0x3E0, 0x1F, 0x8000), "A1R5G5B5_UNORM", True, 4),
    _Legacy("X1R5G5B5", _RGB, 16, (0x7C00, 0x3E0, 0x1F, 0), "A1R5G5B5_UNORM", False, 3),
    _Legacy("A8R3G3B2", _RGBA, 16, (0xE0, 0x1C, 0x3, 0xFF00), "R8G8B8A8_UNORM", True, 4, disk_bytes=2),
    _Legacy("R3G3B2", _RGB, 8, (0xE0, 0x1C, 0x3, 0), "R5G6B5_UNORM", False, 3, disk_bytes=1),
    _Legacy("L8", _LUM, 8, (0xFF, 0, 0, 0), "R8_UNORM", False, 1, grey=True),
    _Legacy("L16", _LUM, 16, (0xFFFF, 0, 0, 0), "R16_UNORM", False, 1, grey=True),
    _Legacy("A8L8", _LUMA, 16, (0xFF, 0, 0, 0xFF00), "R8G8_UNORM", True, 2, grey=True),
    # DirectXTex's A8L8_ALT: an 8 in the bit count, two bytes a texel all the same
    _Legacy("A8L8 (8-bit count)", _LUMA, 8, (0xFF, 0, 0, 0xFF00), "R8G8_UNORM", True, 2, grey=True),
    _Legacy("L8 (NVTT 1, RGB flag)", _RGB, 8, (0xFF, 0, 0, 0), "R8_UNORM", False, 1, grey=True),
    _Legacy("L16 (NVTT 1, RGB flag)", _RGB, 16, (0xFFFF, 0, 0, 0), "R16_UNORM", False, 1, grey=True),
    _Legacy("A8L8 (NVTT 1, RGB flag)", _RGBA, 16, (0xFF, 0, 0, 0xFF00), "R8G8_UNORM", True, 2, grey=True),
    _Legacy("A8", DDPF_ALPHA, 8, (0, 0, 0, 0xFF), "A8_UNORM", True, 1),
    _Legacy("R32F", _RGB, 32, (0xFFFFFFFF, 0, 0, 0), "R32_SFLOAT", False, 1),
    _Legacy("A8P8", _PAL8 | DDPF_ALPHAPIXELS, 16, (0, 0, 0, 0xFF00), "R8G8B8A8_UNORM", True, 4, disk_bytes=2),
    _Legacy("P8", _PAL8, 8, (0, 0, 0, 0), "R8G8B8A8_UNORM", False, 3, disk_bytes=1),
    _Legacy("A4R4G4B4", _RGBA, 16, (0xF00, 0xF0, 0xF, 0xF000), "A4R4G4B4_UNORM", True, 4),
    _Legacy("X4R4G4B4", _RGB, 16, (0xF00, 0xF0, 0xF, 0), "A4R4G4B4_UNORM", False, 3),
    _Legacy("A4L4", _LUMA, 8, (0xF, 0, 0, 0xF0), "A4R4G4B4_UNORM", True, 2, grey=True, disk_bytes=1),
    _Legacy("V8U8", _BUMPDUDV, 16, (0xFF, 0xFF00, 0, 0), "R8G8_SNORM", False, 2),
    _Legacy("Q8W8V8U8", _BUMPDUDV, 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000), "R8G8B8A8_SNORM", True, 4),
    _Legacy("V16U16", _BUMPDUDV, 32, (0xFFFF, 0xFFFF0000, 0, 0), "R16G16_SNORM", False, 2),
    _Legacy("L6V5U5", _BUMPLUM, 16, (0x1F, 0x3E0, 0xFC00, 0), "R8G8B8A8_UNORM", False, 3, disk_bytes=2),
    _Legacy("X8L8V8U8", _BUMPLUM, 32, (0xFF, 0xFF00, 0xFF0000, 0), "R8G8B8A8_UNORM", False, 3),
    _Legacy("A2W10V10U10", _BUMPDUDV | DDPF_ALPHAPIXELS, 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000), "A2B10G10R10_UNORM", True, 4),
)
#: A palette of 256 32-bit entries follows the header of a P8 / A8P8 file.
PALETTE_BYTES = 256 * 4


def _legacy_key(flags: int, bits: int, masks: tuple[int, ...]) -> tuple:
    """What DirectXTex compares to match a bit-mask format: the kind of format (the first of
    palette, luminance, bump-luminance, bump, RGB, alpha the flags set), the bit count and the
    masks that kind reads (bump: R, and A with alpha-pixels; RGB: R, G, B, and A with
    alpha-pixels; bump-luminance: R, G, B). Luminance and alpha formats match on the bit count
    and the alpha-pixels flag alone, with the A mask only to tell 8-bit A4L4 from A8L8: Pillow
    writes its L and LA files with masks DirectXTex would refuse (R 0xFF000000). Other flag
    bits (NVTT's sRGB and normal-map bits) are ignored."""
    r, g, b, a = masks
    a_used = a if flags & DDPF_ALPHAPIXELS else 0
    if flags & _PAL8:
        return ("pal8", bits)
    if flags & DDPF_LUMINANCE:
        return ("lum", bits, bool(a_used), a_used if bits == 8 else 0)
    if flags & _BUMPLUM:
        return ("bumplum", bits, r, g, b)
    if flags & DDPF_BUMPDUDV:
        return ("bump", bits, r, a_used)
    if flags & DDPF_RGB:
        return ("rgb", bits, r, g, b, a_used)
    if flags & DDPF_ALPHA:
        return ("alpha", bits)
    return ("none", flags, bits)


_BY_KEY: dict[tuple, _Legacy] = {_legacy_key(e.flags, e.bits, e.masks): e for e in LEGACY_FORMATS}
assert len(_BY_KEY) == len(LEGACY_FORMATS), "two legacy DDS formats match alike"


def read_dds(src: Source) -> ReadResult:
    """Facts of one DDS file, from its header. Never raises for a bad file."""
    size = src.size()
    if size == 0:
        return fail(src.rel, "TB040", "the file is empty (0 bytes)")
    head = src.head(DX10_HEADER_BYTES)
    if not head.startswith(MAGIC):
        if MAGIC.startswith(head):
            return fail(src.rel, "TB042", f"DDS header truncated: the file has {len(head)} bytes, it ends inside the signature")
        return fail(src.rel, "TB041", f"the file does not start with the DDS signature 'DDS ' (first bytes {head[:8].hex(' ')})")
    if len(head) < HEADER_BYTES:
        return fail(src.rel, "TB042", f"DDS header truncated: the file has {len(head)} bytes, the header needs {HEADER_BYTES}")
    (header_size, flags, height, width, _pitch, depth, mip_count) = struct.unpack_from("<7I", head, 4)
    pf_size, pf_flags, fourcc, bit_count, *masks = struct.unpack_from("<8I", head, 76)
    _caps, caps2 = struct.unpack_from("<2I", head, 108)
    if header_size != 124 or pf_size != 32:
        return fail(src.rel, "TB054", f"DDS header size {header_size} (must be 124), pixel-format size {pf_size} (must be 32)")

    notes: list[Finding] = []
    is_dx10 = bool(pf_flags & DDPF_FOURCC) and fourcc == _fourcc_int(b"DX10")
    if is_dx10:
        if len(head) < DX10_HEADER_BYTES:
            return fail(src.rel, "TB042", f"DDS DX10 header truncated: the file has {len(head)} bytes, the header needs {DX10_HEADER_BYTES}")
        dxgi, dimension, misc, array_size, misc2 = struct.unpack_from("<5I", head, 128)
        fmt = formats.by_dxgi(dxgi)
        if fmt is None:
            return fail(src.rel, "TB046", f"DDS DX10 header: unknown or unsupported DXGI format {dxgi}")
        if dimension == 0:  # D3D10_RESOURCE_DIMENSION_UNKNOWN: Pillow reads such files as 2D
            notes.append(findings.make(src.rel, "TB055", "DDS DX10 header gives resourceDimension 0 (unknown); read as 2D, as Pillow reads it (DirectXTex refuses it)"))
            dimension = DIMENSION_2D
        if dimension not in (DIMENSION_1D, DIMENSION_2D, DIMENSION_3D):
            return fail(src.rel, "TB054", f"DDS DX10 header: resourceDimension {dimension} (must be 2 = 1D, 3 = 2D or 4 = 3D)")
        if array_size == 0:
            notes.append(findings.make(src.rel, "TB049", "DDS DX10 header gives arraySize 0; read as 1"))
            array_size = 1
        cube = bool(misc & MISC_TEXTURECUBE)
        if cube and dimension != DIMENSION_2D:
            return fail(src.rel, "TB048", f"DDS DX10 header: TEXTURECUBE on a resourceDimension {dimension} texture (cubes are 2D)")
        if dimension == DIMENSION_3D:
            if array_size != 1:
                return fail(src.rel, "TB054", f"DDS DX10 header: a 3D texture with arraySize {array_size} (3D arrays do not exist)")
        else:
            depth = 1
        if dimension == DIMENSION_1D:
            height = max(1, height)
        faces, layers = (6, array_size) if cube else (1, array_size)
        alpha = fmt.alpha and (misc2 & 0x7) != ALPHA_MODE_OPAQUE
        channels, grey, legacy = fmt.channels, False, None
        data_offset = DX10_HEADER_BYTES
    else:
        resolved = _legacy_format(src.rel, pf_flags, fourcc, bit_count, tuple(masks))
        if isinstance(resolved, ReadResult):
            return resolved
        fmt, alpha, channels, grey, legacy = resolved
        faces, layers = 1, 1
        if caps2 & DDSCAPS2_CUBEMAP:
            present = [name for bit, name in zip(CUBE_FACE_BITS, CUBE_FACE_NAMES, strict=True) if caps2 & bit]
            if len(present) != 6:
                missing = [n for n in CUBE_FACE_NAMES if n not in present]
                return fail(src.rel, "TB048", f"DDS cubemap has {len(present)} of 6 faces; missing {', '.join(missing)}")
            faces = 6
        volume = bool(caps2 & DDSCAPS2_VOLUME) or bool(flags & DDSD_DEPTH and depth > 0)
        if volume and faces == 6:
            return fail(src.rel, "TB054", "DDS header marks the texture both a cubemap and a volume")
        if not volume:
            depth = 1
        data_offset = HEADER_BYTES

    bad = check_dims(src.rel, "DDS", width, height, depth)
    if bad is not None:
        return bad
    if faces == 6 and width != height:
        return fail(src.rel, "TB048", f"DDS cubemap faces are {width}x{height}; cube faces must be square")
    if faces * layers > MAX_LAYERS:
        return fail(src.rel, "TB045", f"DDS header gives {layers} array items x {faces} faces; more than {MAX_LAYERS} images is beyond any GPU")
    levels = max(1, mip_count)
    full = full_mip_count(width, height, depth)
    if levels > full:
        return fail(src.rel, "TB047", f"DDS header gives {levels} mip levels; {width}x{height}" + (f"x{depth}" if depth > 1 else "") + f" allows at most {full}")

    chain = mip_chain(fmt, width, height, depth, levels=levels, faces=faces, layers=layers)
    stored, shown = tuple(m.bytes for m in chain), fmt.name
    if legacy is not None and legacy.disk_bytes:  # the file holds a layout DirectXTex expands on load
        stored, shown = _disk_levels(legacy, width, height, depth, levels, faces * layers), f"D3DFMT_{legacy.d3dfmt}"
        if legacy.flags & _PAL8:
            data_offset += PALETTE_BYTES
        notes.append(findings.make(src.rel, "TB060", f"DDS legacy format D3DFMT_{legacy.d3dfmt} ({legacy.disk_bytes} byte(s) a texel in the file) has no GPU equivalent; sized as {fmt.name}, the format DirectXTex loads it as"))
    payload = sum(stored)
    needed = data_offset + payload
    if size < needed:
        return fail(src.rel, "TB043", f"DDS pixel data truncated: {levels} level(s) x {faces * layers} image(s) of {shown} need {payload} bytes at offset {data_offset}, the file has {size - data_offset} ({needed - size} bytes missing)")

    facts = TextureFacts(
        path=src.rel, container="dds", width=width, height=height, depth=depth, layers=layers,
        faces=faces, stored_levels=levels, stored_format=fmt.name, channels=channels, alpha=alpha,
        bit_depth=bit_depth_of(fmt), hdr=fmt.hdr, color_space=color_space_of(fmt), disk_bytes=size,
        level_bytes=stored, grey=grey,
    )
    return texture_result(facts, notes)


def _fourcc_int(code: bytes) -> int:
    return int.from_bytes(code, "little")


def _fourcc_text(value: int) -> str:
    raw = value.to_bytes(4, "little")
    if all(32 <= b < 127 for b in raw.rstrip(b"\0")) and raw.rstrip(b"\0"):
        return raw.rstrip(b"\0").decode("ascii")
    return ""


def _legacy_format(
    rel: str, pf_flags: int, fourcc: int, bit_count: int, masks: tuple[int, ...],
) -> tuple[PixelFormat, bool, int, bool, _Legacy | None] | ReadResult:
    """(format, alpha, channels, grey, the bit-mask entry or None) of a DDS without the DX10
    header, or a TB046 result."""
    if pf_flags & DDPF_FOURCC:
        text = _fourcc_text(fourcc)
        fmt = formats.by_fourcc(text) if text else None
        if fmt is None:
            fmt = formats.by_d3dfmt(fourcc)
        if fmt is None:
            shown = f"'{text}' (0x{fourcc:08x})" if text else f"{fourcc} (0x{fourcc:08x})"
            return fail(rel, "TB046", f"DDS FourCC {shown} is not a format texbudget knows")
        return fmt, fmt.alpha, fmt.channels, False, None
    entry = _BY_KEY.get(_legacy_key(pf_flags, bit_count, masks))
    if entry is None:
        r, g, b, a = masks
        return fail(rel, "TB046", f"DDS pixel format not recognised: flags 0x{pf_flags:x}, {bit_count} bits, masks R 0x{r:x} G 0x{g:x} B 0x{b:x} A 0x{a:x}")
    return formats.get(entry.format), entry.alpha, entry.channels, entry.grey, entry


def _disk_levels(entry: _Legacy, width: int, height: int, depth: int, levels: int, images: int) -> tuple[int, ...]:
    """Bytes of each level (every face) as the file stores a legacy format DirectXTex
    expands on load: rows of ``disk_bytes`` texels, tightly packed (its CP_FLAGS_8BPP/16BPP)."""
    return tuple(
        max(1, width >> i) * max(1, height >> i) * max(1, depth >> i) * entry.disk_bytes * images
        for i in range(levels)
    )
