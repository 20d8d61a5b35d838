"""Exact texture sizes: mip chains, block rounding, faces, layers, volumes, alignment.

Pure functions (spec/textures.md §2–§3). Content bytes are exact: the sum of the levels as
DDS/KTX2 store them. Allocated bytes apply the D3D12 placement-alignment model (§3.1), the
only vendor-neutral published rule; they are an estimate of what a driver reserves.
"""

from __future__ import annotations

from functools import lru_cache

from texbudget.model import MipLevel, PixelFormat

KIB = 1024
SMALL_ALIGNMENT = 4 * KIB  # D3D12_SMALL_RESOURCE_PLACEMENT_ALIGNMENT
DEFAULT_ALIGNMENT = 64 * KIB  # D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT
SMALL_MSAA_ALIGNMENT = 64 * KIB  # D3D12_SMALL_MSAA_RESOURCE_PLACEMENT_ALIGNMENT
DEFAULT_MSAA_ALIGNMENT = 4 * KIB * KIB  # D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT

ALLOCATION_MODELS = ("d3d12", "none")

# 4 KiB tile shapes in units (texels, or 4x4 blocks for BC) by bits per unit (D3D12MA
# GetSmallAlignmentTileShape, spec §3.1); 64 KiB shapes serve the MSAA test.
_TILE_4K_2D = {8: (64, 64, 1), 16: (64, 32, 1), 32: (32, 32, 1), 64: (32, 16, 1), 128: (16, 16, 1)}
_TILE_4K_3D = {8: (16, 16, 16), 16: (16, 16, 8), 32: (16, 8, 8), 64: (8, 8, 8), 128: (8, 8, 4)}
_TILE_64K_2D = {8: (256, 256, 1), 16: (256, 128, 1), 32: (128, 128, 1), 64: (128, 64, 1), 128: (64, 64, 1)}


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def full_mip_count(width: int, height: int, depth: int = 1) -> int:
    """Levels in a full chain: floor(log2(max(w, h, d))) + 1."""
    return max(width, height, depth, 1).bit_length()


def level_dims(width: int, height: int, depth: int, level: int) -> tuple[int, int, int]:
    """Dimensions of mip ``level``: each halves with truncation, never below 1."""
    return max(1, width >> level), max(1, height >> level), max(1, depth >> level)


def level_bytes(fmt: PixelFormat, width: int, height: int, depth: int = 1) -> int:
    """Bytes of one image of one level (one face of one layer, every depth slice): whole
    blocks, at least one block (PVRTC1: at least 2x2 blocks)."""
    bx = max(fmt.min_blocks_x, _ceil_div(width, fmt.block_width))
    by = max(fmt.min_blocks_y, _ceil_div(height, fmt.block_height))
    bz = max(1, _ceil_div(depth, fmt.block_depth))
    return bx * by * bz * fmt.bytes_per_block


# Cached: a chain depends only on these arguments (a frozen PixelFormat and ints) and is an
# immutable tuple of frozen levels, so textures of the same format and shape share one. A
# scene has a few hundred distinct chains; the bound keeps a long TUI session small.
@lru_cache(maxsize=4096)
def mip_chain(
    fmt: PixelFormat, width: int, height: int, depth: int = 1, levels: int | None = None,
    faces: int = 1, layers: int = 1, first_level: int = 0,
) -> tuple[MipLevel, ...]:
    """The levels of a texture, largest first. ``levels`` counts from the base (None = full
    chain); ``first_level`` skips that many top levels (a quality tier or a cap) and the
    rest are renumbered from 0. Each MipLevel's bytes covers every face and layer."""
    full = full_mip_count(width, height, depth)
    count = full if levels is None else max(1, min(levels, full))
    first = max(0, min(first_level, count - 1))
    out = []
    # level_dims and level_bytes, inline (a cold scene prices a few hundred chains)
    bw, bh, bd = fmt.block_width, fmt.block_height, fmt.block_depth
    min_x, min_y = fmt.min_blocks_x, fmt.min_blocks_y
    per_block = fmt.bytes_per_block * faces * layers
    for i in range(first, count):
        w, h, d = width >> i or 1, height >> i or 1, depth >> i or 1  # each side at least 1
        bx, by, bz = -(-w // bw), -(-h // bh), -(-d // bd)  # whole blocks
        out.append(MipLevel(level=i - first, width=w, height=h, depth=d, bytes=max(min_x, bx) * max(min_y, by) * bz * per_block))
    return tuple(out)


def chain_bytes(
    fmt: PixelFormat, width: int, height: int, depth: int = 1, levels: int | None = None,
    faces: int = 1, layers: int = 1, first_level: int = 0,
) -> int:
    return sum(m.bytes for m in mip_chain(fmt, width, height, depth, levels, faces, layers, first_level))


# Cached like mip_chain, on the same arguments plus the allocation model.
@lru_cache(maxsize=4096)
def chain_cost(
    fmt: PixelFormat, width: int, height: int, depth: int, levels: int, faces: int, layers: int,
    first_level: int, model: str = "d3d12",
) -> tuple[tuple[MipLevel, ...], int, int]:
    """(levels, content bytes, allocated bytes) of a texture: ``mip_chain``, the sum of its
    levels, and that sum rounded by ``allocated_bytes`` (alignment tested on the top level
    that remains; every face and layer counted)."""
    mips = mip_chain(fmt, width, height, depth, levels, faces, layers, first_level)
    content = sum(m.bytes for m in mips)
    top = mips[0]
    return mips, content, allocated_bytes(fmt, top.width, top.height, top.depth, content, layers=layers * faces, model=model)


def cap_levels(width: int, height: int, depth: int, levels: int, max_size: int | None) -> int:
    """How many top levels to drop so the top level is at most ``max_size`` on every side;
    never drops the last level."""
    if not max_size or max_size < 1:
        return 0
    drop = 0
    while drop < levels - 1 and max(level_dims(width, height, depth, drop)) > max_size:
        drop += 1
    return drop


def _units(fmt: PixelFormat, width: int, height: int, depth: int) -> tuple[int, int, int, int] | None:
    """(units x, y, z, bits per unit) for the D3D12 tile test: blocks (texels for 1x1
    formats, 4x4 blocks for BC); None when the format has no standard tile shape (24-bit,
    96-bit, planar depth/stencil and video)."""
    bpu = fmt.bytes_per_block * 8
    if bpu not in _TILE_4K_2D:
        return None
    units = (_ceil_div(width, fmt.block_width), _ceil_div(height, fmt.block_height), _ceil_div(depth, fmt.block_depth))
    return (*units, bpu)


def small_alignment_ok(
    fmt: PixelFormat, width: int, height: int, depth: int = 1, *, samples: int = 1,
    render_target: bool = False,
) -> bool:
    """D3D12's small-resource rule (§3.1), as D3D12MA implements it: the most detailed mip
    tiled with 4 KiB tiles fits in 16 tiles (MSAA: 64 KiB tiles with bits × samples, 64 tiles).
    Non-MSAA render targets and depth buffers never qualify."""
    units = _units(fmt, width, height, depth)
    if units is None:
        return False
    ux, uy, uz, bpu = units
    if samples > 1:
        bits = bpu * samples
        if bits not in _TILE_64K_2D or depth > 1:
            return False
        tw, th, _ = _TILE_64K_2D[bits]
        return _ceil_div(ux, tw) * _ceil_div(uy, th) <= 64
    if render_target or fmt.family == "depth":
        return False
    tw, th, td = _TILE_4K_3D[bpu] if depth > 1 else _TILE_4K_2D[bpu]
    return _ceil_div(ux, tw) * _ceil_div(uy, th) * _ceil_div(uz, td) <= 16


def allocated_bytes(
    fmt: PixelFormat, width: int, height: int, depth: int, content_bytes: int, *,
    layers: int = 1, model: str = "d3d12", samples: int = 1, render_target: bool = False,
) -> int:
    """Content bytes rounded up to the allocation model's placement alignment.

    ``d3d12``: 4 KiB when the small-resource rule grants it, else 64 KiB (MSAA: 64 KiB or
    4 MiB). ``none``: the content bytes. ``layers`` does not change eligibility (§3.1)."""
    if model == "none":
        return content_bytes
    if model != "d3d12":
        raise ValueError(f"unknown allocation model {model!r}; allowed: {', '.join(ALLOCATION_MODELS)}")
    small = small_alignment_ok(fmt, width, height, depth, samples=samples, render_target=render_target)
    if samples > 1:
        align = SMALL_MSAA_ALIGNMENT if small else DEFAULT_MSAA_ALIGNMENT
    else:
        align = SMALL_ALIGNMENT if small else DEFAULT_ALIGNMENT
    return _ceil_div(content_bytes, align) * align
