"""The GPU format table: one PixelFormat row per format, and lookups by every id kind.

The rows are data in ``texbudget/format_table.py`` (sources there): every single-plane
VkFormat of the Vulkan registry but the ``*SCALED`` ones, every DXGI format DirectXTex sizes,
ETC1 and the Basis Universal pseudo-formats. They are built once, on first use.

Names are Vulkan's without ``VK_FORMAT_`` and the ``_BLOCK`` / ``_PACKnn`` / vendor
(``_IMG``, ``_EXT``, ``_KHR``, ``_NV``, ``_ARM``) suffixes. ``find`` accepts, case-insensitively:

- a canonical name (``BC7_SRGB``), a Vulkan name (``VK_FORMAT_B5G6R5_UNORM_PACK16``, or an
  older registry alias such as ``VK_FORMAT_A8_UNORM_KHR``), a DXGI name
  (``DXGI_FORMAT_B5G6R5_UNORM``, or without its prefix) or an alias (``BC7``, ``DXT1``,
  ``RGBA8``, ``RGBA16F``, ``ATI2``…);
- a number: ``vk:4`` (VkFormat), ``dxgi:85`` (DXGI_FORMAT), ``gl:0x8D62`` (GL internal
  format, decimal or 0x hex), or a bare integer, read as a VkFormat (the number KTX2 files
  and their error messages give).

Where a bare DXGI name is also another row's canonical name, the canonical row wins
(``format_table.NAME_COLLISIONS`` lists every such name and says why).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import msgspec

from texbudget import format_table
from texbudget.format_table import ASTC_BLOCKS, FAMILIES
from texbudget.model import PixelFormat

__all__ = [
    "ASTC_BLOCKS", "FAMILIES", "all_formats", "by_d3dfmt", "by_dxgi", "by_fourcc", "by_gl", "by_vk",
    "find", "get", "is_alias", "name_collisions", "nearest", "parse_number", "with_srgb",
]

#: The number prefixes ``find`` reads (``vk:4``); a bare integer is a VkFormat.
NUMBER_KINDS = ("vk", "dxgi", "gl")


@cache
def all_formats() -> tuple[PixelFormat, ...]:
    return format_table.build_rows()


def _key(text: str) -> str:
    return text.strip().upper().replace("-", "_").replace(" ", "_")


class _Indexes(msgspec.Struct, frozen=True):
    name: dict[str, PixelFormat]
    vk: dict[int, PixelFormat]
    dxgi: dict[int, PixelFormat]
    gl: dict[int, PixelFormat]
    fourcc: dict[str, PixelFormat]
    d3dfmt: dict[int, PixelFormat]
    #: names that would mean a second row, and the row they mean instead
    shadowed: dict[str, tuple[str, str]]
    #: names that are an alias only (``BC7``, ``RGBA8``), not a format's own name or id
    aliases: frozenset[str]


@cache
def _indexes() -> _Indexes:
    rows = all_formats()
    by_name = {_key(f.name): f for f in rows}
    shadowed: dict[str, tuple[str, str]] = {}

    def add(text: str, f: PixelFormat) -> None:  # ids and aliases never shadow a canonical name
        key = _key(text)
        have = by_name.setdefault(key, f)
        if have is not f:
            shadowed[key] = (f.name, have.name)

    for f in rows:
        for extra in f.aliases:
            add(extra, f)
    alias_keys = frozenset(by_name) - {_key(f.name) for f in rows}
    for f in rows:
        for extra in format_table.VULKAN_ALIASES.get(f.name, ()):
            add(extra, f)
        if f.vk_name:
            add(f.vk_name, f)
    by_dxgi: dict[int, PixelFormat] = {}
    for code, (short, row) in format_table.DXGI_FORMATS.items():
        f = by_dxgi[code] = by_name[_key(row)]
        add(format_table.dxgi_name(code), f)
        if not short.startswith("XBOX_"):  # Xbox names stay whole: XBOX_D16_UNORM_S8_UINT is not VK's
            add(short, f)
    by_gl = {f.gl_internal_format: f for f in rows if f.gl_internal_format is not None}
    for code, name in format_table.GL_EXTRA.items():
        by_gl.setdefault(code, by_name[_key(name)])
    return _Indexes(
        name=by_name,
        vk={f.vk_format: f for f in rows if f.vk_format is not None},
        dxgi=by_dxgi,
        gl=by_gl,
        fourcc={cc: f for f in rows for cc in f.dds_fourcc},
        d3dfmt={code: f for f in rows for code in f.d3dfmt},
        shadowed=shadowed,
        aliases=alias_keys,
    )


def parse_number(text: str) -> tuple[str, int] | None:
    """(kind, number) of ``vk:4``, ``dxgi:85``, ``gl:0x8D62`` or a bare ``4`` (a VkFormat);
    None when ``text`` is not a number of that form."""
    kind, _, number = _key(text).rpartition(":")
    kind = kind.lower() or "vk"
    if kind not in NUMBER_KINDS or not number.isascii():
        return None
    if number.startswith("0X") and len(number) > 2:
        try:
            return kind, int(number[2:], 16)
        except ValueError:
            return None
    return (kind, int(number)) if number.isdigit() else None


def find(name: str) -> PixelFormat | None:
    """A format by canonical name, Vulkan or DXGI name, alias or number (module docstring),
    or a ``DFD_…`` name of ``self_sized``; None when unknown."""
    index = _indexes()
    key = _key(name)
    hit = index.name.get(key)
    if hit is not None:
        return hit
    number = parse_number(name)
    if number is None:
        return _self_sized_named(key)
    kind, code = number
    return getattr(index, kind).get(code)


def is_alias(name: str) -> bool:
    """``name`` is one of the short aliases (``BC7``, ``DXT5``, ``RGBA8``), not a format's
    canonical, Vulkan or DXGI name nor a number: a rule that names a format by alias lets the
    texture's role pick the sRGB or linear twin."""
    return _key(name) in _indexes().aliases


# --- formats a KTX2 file sizes itself ---------------------------------------------------------

#: Texel block dimensions and bytesPlane0..7 are bytes in a data format descriptor: a side is
#: 1..256 texels, a block at most 8 x 255 bytes.
SELF_SIZED_MAX_SIDE, SELF_SIZED_MAX_BYTES = 256, 8 * 255
_SELF_SIZED_KEY = re.compile(r"DFD_([1-9]\d{0,2})X([1-9]\d{0,2})X([1-9]\d{0,2})_([1-9]\d{0,3})B")


# Cached and bounded: a hostile scan could name a new shape per file.
@lru_cache(maxsize=256)
def self_sized(block_width: int, block_height: int, block_depth: int, bytes_per_block: int) -> PixelFormat:
    """The format of a KTX2 file whose vkFormat the table lacks (or is 0 with a data format
    descriptor texbudget does not model), built from the descriptor's texel block dimensions
    and bytesPlane0..7 (readers/ktx.py): ``DFD_4x4x1_16B`` is 4x4x1 blocks of 16 bytes.

    It carries the block shape only: family "unknown" (no fix proposes another format for it;
    a stored format is kept as stored anyway), ``channels`` 0, not sRGB, not HDR (the file's
    facts say those), compressed when a block holds more than one texel. ``find`` resolves
    the name, so a plan that names it prices like any other format. ValueError outside the
    ranges a descriptor can hold."""
    if not (all(1 <= v <= SELF_SIZED_MAX_SIDE for v in (block_width, block_height, block_depth))
            and 1 <= bytes_per_block <= SELF_SIZED_MAX_BYTES):
        raise ValueError(f"no data format descriptor gives {block_width}x{block_height}x{block_depth} blocks of {bytes_per_block} bytes")
    return PixelFormat(
        name=f"DFD_{block_width}x{block_height}x{block_depth}_{bytes_per_block}B",
        block_width=block_width, block_height=block_height, block_depth=block_depth,
        bytes_per_block=bytes_per_block, channels=0, srgb=False, hdr=False,
        compressed=block_width * block_height * block_depth > 1, family="unknown",
    )


def _self_sized_named(key: str) -> PixelFormat | None:
    match = _SELF_SIZED_KEY.fullmatch(key)
    if match is None:
        return None
    w, h, d, n = (int(g) for g in match.groups())
    try:
        return self_sized(w, h, d, n)
    except ValueError:
        return None


def get(name: str) -> PixelFormat:
    fmt = find(name)
    if fmt is None:
        raise KeyError(name)
    return fmt


def by_vk(code: int) -> PixelFormat | None:
    return _indexes().vk.get(code)


def by_dxgi(code: int) -> PixelFormat | None:
    return _indexes().dxgi.get(code)


def by_gl(code: int) -> PixelFormat | None:
    return _indexes().gl.get(code)


def by_fourcc(code: str | bytes) -> PixelFormat | None:
    """A DDS FourCC (``DXT1``, ``ATI2``, ``BC5U``…); trailing NULs and spaces are ignored."""
    text = code.decode("latin-1") if isinstance(code, bytes) else code
    return _indexes().fourcc.get(text.rstrip("\0 "))


def by_d3dfmt(code: int) -> PixelFormat | None:
    """A numeric D3DFORMAT stored in a DDS FourCC field (36, 82, 110–117)."""
    return _indexes().d3dfmt.get(code)


def name_collisions() -> dict[str, tuple[str, str]]:
    """Names that two rows could answer to: name -> (the row it names as an id, the row it
    means). ``format_table.NAME_COLLISIONS`` must list every one (a test keeps them equal)."""
    return dict(_indexes().shadowed)


def nearest(name: str, n: int = 3) -> list[str]:
    """Closest canonical names and aliases, for 'did you mean' messages."""
    import difflib  # only for a mistake

    names = {f.name for f in all_formats()} | {a for f in all_formats() for a in f.aliases}
    by_upper = {_key(x): x for x in names}
    return [by_upper[k] for k in difflib.get_close_matches(_key(name), list(by_upper), n=n, cutoff=0.5)]


def with_srgb(fmt: PixelFormat, srgb: bool) -> PixelFormat:
    """The sRGB (or linear) twin of a format, or the format itself when it has none."""
    if fmt.srgb == srgb:
        return fmt
    if srgb:
        if fmt.name.endswith("_UNORM"):
            twin = find(fmt.name.removesuffix("_UNORM") + "_SRGB")
            if twin is not None:
                return twin
        return fmt
    twin = find(fmt.name.removesuffix("_SRGB") + "_UNORM")
    return twin if twin is not None else fmt
