"""KTX2 files of every single-plane format of the Vulkan registry, each with a real data
format descriptor, derived from Khronos' registry package ``vulkan-object`` (vk.xml's
``<format>`` elements: blockSize, blockExtent, packed, chroma, compressed and components).

``registry_formats()`` lists every VkFormat that is not multi-planar and not ``*_SCALED``
(KTX 2.0 §"Prohibited Formats" bans both), as a ``RegistryFormat`` holding its descriptor;
``ktx2_file(fmt, w, h, ...)`` writes a valid KTX2 file of it (levels stored smallest first,
mipPadding to lcm(texel block size, 4), the level index filled in). Level lengths are worked
out here from the registry's block shape, independently of ``texbudget.sizing``.

The descriptor follows KTX 2.0 §"Data Format Descriptor" and the Khronos Data Format
Specification:

- colour model RGBSDA for plain formats, YUVSDA for the ``*_422_*`` ones (KTX 2.0 says so),
  the block-compressed model of the family otherwise (BC1A…BC7 128–134, ETC2 161 for ETC2
  and EAC, ASTC 162, PVRTC 164, PVRTC2 165);
- primaries BT.709 and transfer sRGB for ``*_SRGB`` formats, linear for the rest, both
  unspecified for integer, depth and stencil formats (KTX 2.0 "Restrictions");
- texel block dimensions from ``blockExtent``; bytesPlane0 = ``blockSize``, except the two
  depth/stencil formats KTX 2.0 gives another texel block size (D16_UNORM_S8_UINT 4,
  D32_SFLOAT_S8_UINT 8, §"mipPadding");
- one sample per component: bit offsets in order of increasing address for unpacked formats,
  from the most significant bit for packed ones (the name lists packed components from the
  top; ``X`` is padding), channel ids R 0, G 1, B 2, A 15, D 14, S 13 (Y 0, Cb 1, Cr 2 for
  YUVSDA), qualifiers SIGNED for SNORM / SINT / SFIXED5, FLOAT (+ SIGNED) for (S|U)FLOAT,
  LINEAR on the alpha of an sRGB format, EXPONENT for a shared exponent; a block-compressed
  format has the whole-block samples of its model (BC3: alpha then colour, 64 bits each …).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

from tests.readers import factories as fx
from tests.readers.factories import DfdSample

RGBSDA, YUVSDA = 1, 2
_CHANNELS = {"R": 0, "G": 1, "B": 2, "A": 15, "D": 14, "S": 13}
_YUV_CHANNELS = {"G": 0, "B": 1, "R": 2}  # Y', Cb, Cr of the 4:2:2 formats
#: KTX 2.0 §"mipPadding": the texel block sizes that are not vk.xml's blockSize
_KTX2_BLOCK_BYTES = {"VK_FORMAT_D16_UNORM_S8_UINT": 4, "VK_FORMAT_D32_SFLOAT_S8_UINT": 8}
_NUMERIC = ("UNORM", "SNORM", "UINT", "SINT", "SFLOAT", "UFLOAT", "SRGB", "SFIXED5", "BOOL", "USCALED", "SSCALED")

# Block-compressed models and their samples: (name prefix, model, [(channel, bit offset, bits)]).
# Khronos Data Format Specification §5.6 (KHR_DF_MODEL_BC1A … PVRTC2) channel names.
_COMPRESSED: tuple[tuple[str, int, tuple[tuple[int, int, int], ...]], ...] = (
    ("BC1_RGBA", 128, ((0, 0, 64), (1, 0, 64))),  # colour and a cosited "alpha present" sample
    ("BC1_RGB", 128, ((0, 0, 64),)),
    ("BC2", 129, ((15, 0, 64), (0, 64, 64))),
    ("BC3", 130, ((15, 0, 64), (0, 64, 64))),
    ("BC4", 131, ((0, 0, 64),)),
    ("BC5", 132, ((0, 0, 64), (1, 64, 64))),
    ("BC6H", 133, ((0, 0, 128),)),
    ("BC7", 134, ((0, 0, 128),)),
    ("ETC2_R8G8B8A8", 161, ((15, 0, 64), (2, 64, 64))),
    ("ETC2_R8G8B8A1", 161, ((2, 0, 64), (15, 0, 64))),
    ("ETC2_R8G8B8", 161, ((2, 0, 64),)),
    ("EAC_R11G11", 161, ((0, 0, 64), (1, 64, 64))),
    ("EAC_R11", 161, ((0, 0, 64),)),
    ("ASTC", 162, ((0, 0, 128),)),
    ("PVRTC1", 164, ((0, 0, 64),)),
    ("PVRTC2", 165, ((0, 0, 64),)),
)


@dataclass(frozen=True, slots=True)
class RegistryFormat:
    name: str  # VK_FORMAT_…
    value: int
    block: tuple[int, int, int]
    block_bytes: int  # KTX2's texel block size
    min_blocks: int  # PVRTC1: every level at least 2x2 blocks (WEBGL_compressed_texture_pvrtc)
    type_size: int
    dfd: bytes
    depth_stencil: bool
    ycbcr: bool  # a 4:2:2 format

    @property
    def allows_3d(self) -> bool:
        """Vulkan creates no 3D image of a depth/stencil format (nor of a Y'CbCr one)."""
        return not (self.depth_stencil or self.ycbcr)


def _numeric(name: str) -> str:
    for part in name.removeprefix("VK_FORMAT_").split("_"):
        if part in _NUMERIC:
            return part
    raise ValueError(f"{name}: no numeric format in the name")


def _qualifiers(numeric: str, channel: int) -> int:
    return {
        "SNORM": fx.KHR_DF_SIGNED, "SINT": fx.KHR_DF_SIGNED, "SFIXED5": fx.KHR_DF_SIGNED,
        "SFLOAT": fx.KHR_DF_FLOAT | fx.KHR_DF_SIGNED, "UFLOAT": fx.KHR_DF_FLOAT,
        "SRGB": fx.KHR_DF_LINEAR if channel == 15 else 0,
    }.get(numeric, 0)


def _range(numeric: str, bits: int) -> tuple[int, int]:
    """(sampleLower, sampleUpper) as a writer sets them: the integer range of a normalized
    value, 0..1 for integers, -1.0..1.0 / 0..1.0 for floats (32-bit patterns)."""
    mask = (1 << min(bits, 32)) - 1
    if numeric in ("UNORM", "SRGB"):
        return 0, mask
    if numeric == "SNORM":
        top = (1 << (min(bits, 32) - 1)) - 1
        return (-top) & 0xFFFFFFFF, top
    if numeric == "SFLOAT":
        return fx.FLOAT_MINUS_ONE, fx.FLOAT_ONE
    if numeric == "UFLOAT":
        return 0, fx.FLOAT_ONE
    if numeric in ("SINT", "SFIXED5"):
        return 0xFFFFFFFF, 1
    return 0, 1


def _sample(kind: str, offset: int, bits: int, numeric: str, yuv: bool, srgb: bool = False) -> DfdSample:
    if kind == "E":  # the shared exponent of E5B9G9R9
        return DfdSample(offset, bits, 0, fx.KHR_DF_EXPONENT)
    channel = _YUV_CHANNELS[kind] if yuv else _CHANNELS[kind]
    lower, upper = _range(numeric, bits)
    qualifiers = _qualifiers("SRGB" if srgb else numeric, channel)
    return DfdSample(offset, bits, channel, qualifiers, lower, upper)


def _packed_samples(name: str, unit: int, components: list, yuv: bool) -> list[DfdSample]:
    """Samples of a packed format: the name's component tokens (R10, X6, E5 …) fill units of
    ``unit`` bits from the top; unit i starts at bit ``unit * i``."""
    head = name.removeprefix("VK_FORMAT_").split("_" + _numeric(name))[0].replace("_422", "")
    tokens = [(k, int(n)) for k, n in re.findall(r"([RGBADSXE])(\d+)", head)]
    listed = iter(components)
    out, start, used = [], 0, 0
    for kind, bits in tokens:
        used += bits
        if kind != "X":
            numeric = _numeric(name)
            if kind != "E":
                comp = next(listed)
                assert (comp.type, int(comp.bits)) == (kind, bits), (name, comp, kind, bits)
                numeric = comp.numericFormat
            out.append(_sample(kind, start + unit - used, bits, numeric, yuv, _numeric(name) == "SRGB"))
        if used == unit:
            start, used = start + unit, 0
    assert used == 0 and next(listed, None) is None, name
    exponent = [s for s in out if s.qualifiers == fx.KHR_DF_EXPONENT]
    if exponent:  # a shared exponent: each mantissa is followed by its own exponent sample
        (e,) = exponent
        mantissas = sorted((s for s in out if s is not e), key=lambda s: s.channel)
        return [x for m in mantissas for x in (DfdSample(m.bit_offset, m.bits, m.channel, 0, m.lower, m.upper),
                                                DfdSample(e.bit_offset, e.bits, m.channel, fx.KHR_DF_EXPONENT, e.lower, e.upper))]
    return sorted(out, key=lambda s: s.bit_offset)  # in order of increasing bit offset, as KTX-Software writes them


def _plain_samples(name: str, components: list, yuv: bool) -> list[DfdSample]:
    if name == "VK_FORMAT_D24_UNORM_S8_UINT":  # stencil in the low byte, as KTX-Software writes it
        return [_sample("S", 0, 8, "UINT", False), _sample("D", 8, 24, "UNORM", False)]
    out, offset = [], 0
    srgb = _numeric(name) == "SRGB"
    for comp in components:
        bits = int(comp.bits)
        out.append(_sample(comp.type, offset, bits, comp.numericFormat, yuv, srgb))
        offset += bits
    return out


def _compressed(name: str) -> tuple[int, list[DfdSample]]:
    short = name.removeprefix("VK_FORMAT_")
    numeric = _numeric(name)
    for prefix, model, samples in _COMPRESSED:
        if short.startswith(prefix):
            lower, upper = _range(numeric, 32)
            return model, [DfdSample(offset, bits, ch, _qualifiers(numeric, ch), lower, upper) for ch, offset, bits in samples]
    raise ValueError(f"{name}: no compressed model known for it")


def _dfd(name: str, f, block: tuple[int, int, int], block_bytes: int) -> bytes:
    numeric = _numeric(name)
    depth_stencil = any(c.type in "DS" for c in f.components)
    non_colour = depth_stencil or numeric in ("UINT", "SINT", "BOOL")
    primaries, transfer = (0, 0) if non_colour else (1, 2 if numeric == "SRGB" else 1)
    if f.chroma == "422":
        primaries = 0  # Y'CbCr data names no RGB primaries (KTX-Software writes 0 too)
    if f.compressed:
        model, samples = _compressed(name)
    else:
        yuv = f.chroma == "422"
        model = YUVSDA if yuv else RGBSDA
        samples = _packed_samples(name, f.packed, f.components, yuv) if f.packed else _plain_samples(name, f.components, yuv)
    return fx.dfd_descriptor(model, samples, block=block, planes=(block_bytes,), primaries=primaries, transfer=transfer)


def _type_size(f, depth_stencil: bool) -> int:
    """KTX 2.0 §"typeSize": 1 for block-compressed data, else the size of the type the data
    is read as (the packed word, or one component)."""
    if f.compressed:
        return 1
    if f.packed:
        return f.packed // 8
    if depth_stencil:
        return 4 if any(int(c.bits) >= 24 for c in f.components) else 2
    return max(1, int(f.components[0].bits) // 8)


@cache
def registry_formats() -> tuple[RegistryFormat, ...]:
    from vulkan_object import get_vulkan_object

    vk = get_vulkan_object()
    values = {field.name: field.value for field in vk.enums["VkFormat"].fields}
    out = []
    for name, f in vk.formats.items():
        if f.planes or "SCALED" in name:
            continue
        block = tuple(int(x) for x in f.blockExtent) if f.blockExtent else (1, 1, 1)
        block_bytes = _KTX2_BLOCK_BYTES.get(name, f.blockSize)
        depth_stencil = any(c.type in "DS" for c in f.components)
        out.append(RegistryFormat(
            name=name, value=values[name], block=block, block_bytes=block_bytes,  # type: ignore[arg-type]
            min_blocks=2 if "PVRTC1" in name else 1, type_size=_type_size(f, depth_stencil),
            dfd=_dfd(name, f, block, block_bytes), depth_stencil=depth_stencil, ycbcr=f.chroma == "422",  # type: ignore[arg-type]
        ))
    return tuple(out)


def level_lengths(fmt: RegistryFormat, width: int, height: int, depth: int = 1, levels: int = 1, images: int = 1) -> list[int]:
    """Bytes of each level (all ``images`` = faces × layers): whole blocks on every axis,
    PVRTC1's 2x2-block minimum, each side halving (truncated) to 1."""
    bw, bh, bd = fmt.block
    out = []
    for i in range(levels):
        w, h, d = max(1, width >> i), max(1, height >> i), max(1, depth >> i)
        blocks = max(fmt.min_blocks, -(-w // bw)) * max(fmt.min_blocks, -(-h // bh)) * -(-d // bd)
        out.append(blocks * fmt.block_bytes * images)
    return out


def ktx2_file(fmt: RegistryFormat, width: int, height: int, *, depth: int = 0, layers: int = 0,
              faces: int = 1, levels: int = 1) -> bytes:
    """A valid KTX2 file of ``fmt`` (no supercompression)."""
    lengths = level_lengths(fmt, width, max(1, height), max(1, depth), levels, faces * max(1, layers))
    return fx.ktx2_bytes(width, height, vk_format=fmt.value, type_size=fmt.type_size, depth=depth, layers=layers,
                         faces=faces, levels=levels, dfd=fmt.dfd, level_lengths=lengths, uncompressed=lengths,
                         align=math.lcm(fmt.block_bytes, 4))
