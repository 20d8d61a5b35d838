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
- Bit-mask formats map to the DXGI format of the same layout; X8 variants (no alpha) map to
  the A8 format of the same size with ``alpha`` False; 24-bit BGR maps to ``B8G8R8_UNORM``
  (3 bytes per texel on disk; the GPU policy pads it); A8 is sized as ``R8_UNORM``.
"""

from __future__ import annotations

import struct

from texbudget import findings, formats
from texbudget.model import Finding, PixelFormat, ReadResult
from texbudget.readers import Source
from texbudget.readers._common import (
    MAX_LAYERS,
    bit_depth_of,
    check_dims,
    color_space_of,
    fail,
    new_texture,
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

#: (pixel-format flags kind, bit count, (R, G, B, A) masks) -> (format name, alpha present)
#: DirectXTex ``GetDXGIFormat``; D3DX wrote the 10:10:10:2 masks swapped, both are accepted.
_MASKS: dict[tuple[str, int, tuple[int, int, int, int]], tuple[str, bool]] = {
    ("rgb", 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000)): ("R8G8B8A8_UNORM", True),
    ("rgb", 32, (0xFF, 0xFF00, 0xFF0000, 0)): ("R8G8B8A8_UNORM", False),
    ("rgb", 32, (0xFF0000, 0xFF00, 0xFF, 0xFF000000)): ("B8G8R8A8_UNORM", True),
    ("rgb", 32, (0xFF0000, 0xFF00, 0xFF, 0)): ("B8G8R8A8_UNORM", False),
    ("rgb", 32, (0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000)): ("A2B10G10R10_UNORM", True),
    ("rgb", 32, (0x3FF, 0xFFC00, 0x3FF00000, 0xC0000000)): ("A2B10G10R10_UNORM", True),
    ("rgb", 32, (0xFFFF, 0xFFFF0000, 0, 0)): ("R16G16_UNORM", False),
    ("rgb", 32, (0xFFFFFFFF, 0, 0, 0)): ("R32_SFLOAT", False),
    ("rgb", 24, (0xFF0000, 0xFF00, 0xFF, 0)): ("B8G8R8_UNORM", False),
    ("rgb", 24, (0xFF, 0xFF00, 0xFF0000, 0)): ("R8G8B8_UNORM", False),
    ("rgb", 16, (0xF800, 0x7E0, 0x1F, 0)): ("R5G6B5_UNORM", False),
    ("rgb", 16, (0x7C00, 0x3E0, 0x1F, 0x8000)): ("A1R5G5B5_UNORM", True),
    ("rgb", 16, (0x7C00, 0x3E0, 0x1F, 0)): ("A1R5G5B5_UNORM", False),
    ("rgb", 16, (0xF00, 0xF0, 0xF, 0xF000)): ("R4G4B4A4_UNORM", True),
    ("rgb", 16, (0xF00, 0xF0, 0xF, 0)): ("R4G4B4A4_UNORM", False),
    ("bump", 16, (0xFF, 0xFF00, 0, 0)): ("R8G8_SNORM", False),
    ("bump", 32, (0xFF, 0xFF00, 0xFF0000, 0xFF000000)): ("R8G8B8A8_SNORM", True),
    ("bump", 32, (0xFFFF, 0xFFFF0000, 0, 0)): ("R16G16_SNORM", False),
}


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
        channels, grey = fmt.channels, False
        data_offset = DX10_HEADER_BYTES
    else:
        resolved = _legacy_format(src.rel, pf_flags, fourcc, bit_count, tuple(masks))
        if isinstance(resolved, ReadResult):
            return resolved
        fmt, alpha, channels, grey = resolved
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
    payload = sum(m.bytes for m in chain)
    needed = data_offset + payload
    if size < needed:
        return fail(src.rel, "TB043", f"DDS pixel data truncated: {levels} level(s) x {faces * layers} image(s) of {fmt.name} need {payload} bytes at offset {data_offset}, the file has {size - data_offset} ({needed - size} bytes missing)")

    facts = new_texture(  # positional (TextureFacts' field order): a keyword call costs a µs more
        src.rel,  # path
        "dds",  # container
        width,
        height,
        depth,
        layers,
        faces,
        levels,  # stored_levels
        fmt.name,  # stored_format
        channels,
        alpha,
        bit_depth_of(fmt),  # bit_depth
        fmt.hdr,  # hdr
        color_space_of(fmt),  # color_space
        size,  # disk_bytes
        None, None,  # supercompression, transcodable
        tuple(m.bytes for m in chain),  # level_bytes
        False,  # mips_generate
        grey,
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
) -> tuple[PixelFormat, bool, int, bool] | ReadResult:
    """(format, alpha, channels, grey) of a DDS without the DX10 header, or a TB046 result."""
    if pf_flags & DDPF_FOURCC:
        text = _fourcc_text(fourcc)
        fmt = formats.by_fourcc(text) if text else None
        if fmt is None:
            fmt = formats.by_d3dfmt(fourcc)
        if fmt is None:
            shown = f"'{text}' (0x{fourcc:08x})" if text else f"{fourcc} (0x{fourcc:08x})"
            return fail(rel, "TB046", f"DDS FourCC {shown} is not a format texbudget knows")
        return fmt, fmt.alpha, fmt.channels, False
    r, g, b, a = masks
    has_alpha_bits = bool(pf_flags & DDPF_ALPHAPIXELS) and a != 0
    if pf_flags & DDPF_LUMINANCE:
        if bit_count == 8:
            return formats.get("R8_UNORM"), has_alpha_bits, 2 if has_alpha_bits else 1, True
        if bit_count == 16 and pf_flags & DDPF_ALPHAPIXELS:
            return formats.get("R8G8_UNORM"), True, 2, True
        if bit_count == 16:
            return formats.get("R16_UNORM"), False, 1, True
    elif pf_flags & DDPF_ALPHA and bit_count == 8:
        return formats.get("R8_UNORM"), True, 1, False
    elif pf_flags & (DDPF_RGB | DDPF_BUMPDUDV):
        kind = "rgb" if pf_flags & DDPF_RGB else "bump"
        key = (kind, bit_count, (r, g, b, a if pf_flags & (DDPF_ALPHAPIXELS | DDPF_BUMPDUDV) else 0))
        entry = _MASKS.get(key)
        if entry is not None:
            fmt = formats.get(entry[0])
            return fmt, entry[1], (4 if entry[1] else min(fmt.channels, 3)), False
    return fail(rel, "TB046", f"DDS pixel format not recognised: flags 0x{pf_flags:x}, {bit_count} bits, masks R 0x{r:x} G 0x{g:x} B 0x{b:x} A 0x{a:x}")
