#!/usr/bin/env python3
"""Make the texbudget demo scene: "Lantern Row", a market street at dusk.

    python assets/make_demo.py --out assets/demo            # the committed trees (and assets/godot_demo)
    python assets/make_demo.py --out /tmp/demo --summary    # and print the designed VRAM

A small game level (glTF scene, ~200 textures, engine sidecars, a team config) that is small
on disk and large in VRAM. Deterministic: fixed seeds, sorted iteration, no timestamps, so two
runs write byte-identical files. PNG and TGA are encoded here (stdlib zlib), so only JPEG bytes
depend on Pillow (its libjpeg build); PNG and ZLIB-supercompressed KTX2 bytes depend on
Python's zlib, whose deflate output has been stable across 1.2.x/1.3.x releases.

Standalone on purpose: stdlib + numpy + Pillow, no texbudget imports. Every container this
writes (KTX2 with its level index and data format descriptor, DDS with a DX10 header, a hand-
made Zstandard frame, Radiance HDR run-length scanlines, glTF accessors, Godot ``.import`` and
Unity ``.meta`` sidecars) is written from its specification here, so the demo checks the
readers independently rather than agreeing with them by construction.

How it stays small on disk:
- KTX2 and DDS payloads are zero-filled (the tool reads headers; the GPU size is the content
  size). KTX2 levels are supercompressed: Zstandard (scheme 2) as RLE blocks, 4 bytes per
  128 KiB, or ZLIB (scheme 3, stdlib zlib, ~1/1000). DDS cannot be supercompressed, so DDS
  files stay at or below 1024x1024.
- Source images (PNG, TGA, JPEG) are flat colour with blocky detail, drawn at low resolution
  and upscaled, which deflate and RLE squeeze to a few KB per megapixel.
- Big triangle counts come from instancing a few dense meshes, not from a big ``.bin``.

The knobs (which texture sets exist, at which size, in which container) are the SETS table
below; ``--summary`` prints the VRAM this design expects on the desktop profile so the table
can be retuned against what ``texbudget scan`` reports.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import math
import struct
import sys
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

# =============================================================================================
# THE KNOBS: every texture set of the level.
#
# kind           what is written (names follow <name>_albedo / _normal / _orm)
#   ktx2         KTX2 BC7_SRGB albedo, BC5_UNORM normal, BC7_UNORM orm; Zstandard (scheme 2)
#   ktx2-zlib    the same with ZLIB supercompression (scheme 3)
#   ktx2-array   KTX2 2D arrays (layers = ARRAY_LAYERS): BC7_SRGB albedo + BC5 normal, Zstandard
#   uastc        KTX2 UASTC (vkFormat 0, DFD colour model 166), Zstandard; transcoded on load
#   png          PNG albedo (RGB, or RGBA when alpha), PNG normal, PNG orm
#   png-masks    PNG albedo and normal, separate greyscale _roughness and _ao masks (no ORM)
#   tga          TGA (RLE) albedo, normal, orm
#   jpg          JPEG albedo and orm, PNG normal (a normal map in JPEG would be a mistake)
#   dds          DDS DX10 BC7_SRGB albedo + BC5 normal, full mip chains
# sidecar        "godot" / "unity": engine import settings written beside each file
# alpha          albedo carries an alpha channel (cut-out foliage, hanging flowers)
#
# Desktop-profile VRAM per set with full mips (sources: colour BC1 4 bpp, normal BC5 8 bpp,
# ORM BC1 4 bpp, grey masks BC4 4 bpp; stored KTX2/DDS as stored):
#   source set   1K 2.7 MiB   2K 10.7 MiB   4K 42.7 MiB   8K 170.7 MiB
#   KTX2 set     1K 4.0 MiB   2K 16.0 MiB   4K 64.0 MiB   8K 256.0 MiB
# =============================================================================================


@dataclass(frozen=True)
class Set:
    path: str  # "folder/name" under textures/
    size: int
    kind: str
    look: str  # pattern: cobble, tiles, bricks, planks, cloth, stripes, metal, noise, leaves, glass
    color: tuple[int, int, int]
    rough: int = 170  # 0..255 roughness for the ORM green channel
    metal: int = 0  # 0..255 metalness for the ORM blue channel
    alpha: bool = False
    sidecar: str | None = None


SETS: tuple[Set, ...] = (
    # --- street: the ground everyone looks at, authored at 8K
    Set("street/cobblestone", 8192, "ktx2", "cobble", (92, 84, 78), 190),
    Set("street/flagstone", 8192, "ktx2", "tiles", (120, 112, 100), 180),
    Set("street/sidewalk", 8192, "ktx2", "tiles", (132, 126, 118), 200),
    Set("street/cobblestone_worn", 8192, "ktx2", "cobble", (104, 96, 88), 200),
    Set("street/plaza_mosaic", 8192, "ktx2", "tiles", (150, 110, 80), 160),
    Set("street/curb", 4096, "ktx2", "tiles", (140, 136, 130), 200),
    Set("street/gutter", 4096, "png", "planks", (70, 70, 72), 120, 40),
    Set("street/drain_grate", 2048, "ktx2", "metal", (50, 50, 55), 110, 230),
    Set("street/manhole", 1024, "tga", "metal", (60, 58, 56), 120, 220),
    Set("street/puddle", 2048, "png-masks", "noise", (40, 42, 48), 30),
    Set("street/ground_layers", 4096, "ktx2-array", "cobble", (100, 90, 80)),
    Set("street/cobblestone_wet", 8192, "ktx2", "cobble", (70, 66, 64), 60),
    Set("street/stair_steps", 8192, "ktx2", "tiles", (128, 120, 110), 200),
    Set("street/tram_rails", 8192, "ktx2-zlib", "metal", (90, 88, 86), 90, 240),
    # --- buildings: facades, roofs, the clock tower
    Set("buildings/plaster", 8192, "ktx2", "noise", (214, 190, 160), 220),
    Set("buildings/plaster_weathered", 8192, "ktx2", "noise", (190, 170, 140), 225),
    Set("buildings/plaster_ochre", 8192, "ktx2", "noise", (200, 150, 70), 220),
    Set("buildings/brick", 8192, "ktx2", "bricks", (150, 72, 52), 200),
    Set("buildings/timber", 8192, "ktx2", "planks", (90, 60, 38), 180),
    Set("buildings/roof_tiles", 8192, "ktx2", "tiles", (160, 70, 50), 170),
    Set("buildings/slate", 8192, "ktx2", "tiles", (70, 76, 84), 150),
    Set("buildings/arch_stone", 8192, "ktx2", "bricks", (170, 160, 140), 200),
    Set("buildings/stone_trim", 4096, "ktx2", "tiles", (180, 172, 160), 190),
    Set("buildings/window_glass", 4096, "ktx2", "glass", (60, 80, 100), 20),
    Set("buildings/shutter", 4096, "ktx2-zlib", "planks", (60, 100, 80), 170),
    Set("buildings/door", 4096, "ktx2-zlib", "planks", (100, 50, 30), 160),
    Set("buildings/balcony_iron", 4096, "ktx2", "metal", (40, 40, 44), 120, 240),
    Set("buildings/drainpipe", 4096, "ktx2", "metal", (80, 84, 88), 100, 250),
    Set("buildings/chimney", 2048, "png", "bricks", (120, 70, 60), 210),
    Set("buildings/clock_face", 4096, "ktx2-zlib", "metal", (220, 210, 180), 90, 120),
    Set("buildings/plaster_rose", 8192, "ktx2", "noise", (206, 150, 140), 220),
    Set("buildings/plaster_blue", 8192, "ktx2", "noise", (140, 160, 190), 220),
    Set("buildings/brick_dark", 8192, "ktx2", "bricks", (110, 60, 48), 200),
    Set("buildings/brick_painted", 8192, "ktx2", "bricks", (200, 196, 186), 210),
    Set("buildings/timber_frame", 8192, "ktx2", "planks", (70, 48, 30), 180),
    Set("buildings/roof_moss", 8192, "ktx2", "tiles", (110, 100, 60), 200),
    Set("buildings/cornice", 8192, "ktx2-zlib", "tiles", (196, 188, 170), 190),
    Set("buildings/archway_keystone", 8192, "ktx2", "bricks", (176, 166, 146), 200),
    # clocktower: see PLANTED below (8K BC7 albedo/orm and an uncompressed 8K normal)
    # --- market: stalls, goods, lanterns
    Set("market/stall", 4096, "png", "planks", (140, 100, 60), 180),
    Set("market/canopy", 4096, "ktx2", "stripes", (180, 60, 50), 210),
    Set("market/tent_canvas", 8192, "ktx2", "cloth", (200, 186, 150), 220),
    Set("market/tent_canvas_dyed", 8192, "ktx2", "cloth", (160, 60, 40), 220),
    Set("market/awning_striped", 8192, "ktx2", "stripes", (200, 180, 60), 210),
    Set("market/awning", 2048, "png", "stripes", (40, 110, 150), 210, sidecar="godot"),
    Set("market/rug", 4096, "ktx2", "cloth", (150, 40, 60), 230),
    Set("market/fabric_bolts", 4096, "ktx2", "stripes", (90, 60, 140), 220),
    Set("market/baskets", 4096, "ktx2", "planks", (170, 130, 80), 200),
    Set("market/bread", 4096, "ktx2", "noise", (190, 140, 80), 210),
    Set("market/cheese", 4096, "ktx2", "noise", (230, 200, 110), 150),
    Set("market/spice_jars", 4096, "ktx2", "glass", (170, 90, 40), 80),
    Set("market/copper_pots", 4096, "ktx2", "metal", (180, 100, 60), 90, 230),
    Set("market/olive_jars", 2048, "ktx2", "glass", (90, 110, 60), 80),
    Set("market/price_tags", 2048, "ktx2", "noise", (230, 220, 190), 200),
    Set("market/signboard", 2048, "ktx2", "planks", (120, 80, 50), 170),
    Set("market/crate", 1024, "tga", "planks", (150, 110, 70), 190, sidecar="unity"),
    Set("market/barrel", 1024, "tga", "planks", (110, 70, 40), 180, sidecar="unity"),
    Set("market/produce", 2048, "jpg", "noise", (170, 60, 40), 140),
    Set("market/sacks", 2048, "jpg", "cloth", (180, 160, 120), 230),
    Set("market/fish_ice", 2048, "png", "noise", (170, 190, 200), 60),
    Set("market/pottery", 2048, "png", "noise", (180, 100, 60), 150),
    Set("market/hanging_flowers", 2048, "png", "leaves", (200, 80, 120), 200, alpha=True),
    Set("market/lantern", 1024, "uastc", "metal", (200, 150, 60), 100, 200),
    # --- props
    Set("props/lamp_post", 4096, "ktx2-zlib", "metal", (30, 32, 34), 110, 240),
    Set("props/fountain_stone", 8192, "ktx2", "bricks", (160, 156, 150), 200),
    Set("props/fountain_water", 2048, "png-masks", "noise", (40, 80, 100), 10),
    Set("props/well", 4096, "png", "bricks", (130, 126, 120), 200),
    Set("props/bench", 2048, "png", "planks", (120, 90, 60), 180, sidecar="unity"),
    Set("props/bollard", 4096, "ktx2", "metal", (50, 52, 56), 130, 230),
    Set("props/hand_cart", 4096, "ktx2", "planks", (130, 95, 60), 190),
    Set("props/flower_box", 4096, "ktx2", "planks", (90, 110, 60), 190),
    Set("props/graffiti", 512, "dds", "stripes", (60, 160, 200), 160),
    # --- nature
    Set("nature/tree_bark", 4096, "ktx2", "planks", (80, 64, 50), 220),
    Set("nature/moss", 4096, "ktx2", "noise", (70, 100, 50), 230),
    Set("nature/vines", 4096, "ktx2", "leaves", (60, 110, 60), 200),
    Set("nature/ivy", 2048, "png", "leaves", (50, 100, 50), 200, alpha=True, sidecar="godot"),
    Set("nature/leaves", 2048, "png", "leaves", (70, 120, 40), 200, alpha=True),
    Set("nature/grass", 1024, "png", "leaves", (80, 130, 50), 210, alpha=True),
)

ARRAY_LAYERS = 8  # street/ground_layers: 8 terrain layers per array

# PLANTED PROBLEMS (documented in demo/README.md): what `texbudget check` must flag.
CLOCKTOWER = ("buildings/clocktower", 8192)  # albedo/orm BC7, normal R8G8B8A8_UNORM (uncompressed)
POSTER = ("market/poster_albedo.jpg", 1000, 750)  # not a multiple of 4
SIGN_DECAL = ("props/sign_decal_albedo.dds", 1024)  # DXT1 without mips
UNUSED = Set("props/old_cart", 2048, "png", "planks", (110, 90, 70), 190)  # no material uses it
GODOT_LOSSLESS = "market/awning_normal.png"  # Godot compress/mode=0 (lossless = uncompressed)

SKY = ("env/sky_dusk_cube.ktx2", 2048)  # BC6H_UFLOAT cubemap, ZLIB
PROBE = ("env/market_probe.hdr", 512, 256)  # Radiance RGBE, run-length scanlines
HUD = ("ui/hud_atlas.png", 4096, 2048)  # RGBA UI atlas
FOUNTAIN_TRIANGLES = (128, 96)  # lathe segments x rings: 24,576 triangles > max_triangles 20,000

GENERATOR = "texbudget assets/make_demo.py 1"

# =============================================================================================
# Small helpers
# =============================================================================================


def seed_of(name: str) -> int:
    """A stable seed per name (crc32 is the same everywhere, unlike hash())."""
    return zlib.crc32(name.encode("utf-8"))


def write(path: Path, data: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def full_levels(w: int, h: int = 1) -> int:
    return max(w, h).bit_length()


# --- pixel formats this script writes: name -> (vkFormat, DXGI, block w, block h, bytes/block)
FORMATS = {
    "BC1_RGB_UNORM": (131, 71, 4, 4, 8),
    "BC1_RGB_SRGB": (132, 72, 4, 4, 8),
    "BC5_UNORM": (141, 83, 4, 4, 16),
    "BC6H_UFLOAT": (143, 95, 4, 4, 16),
    "BC7_UNORM": (145, 98, 4, 4, 16),
    "BC7_SRGB": (146, 99, 4, 4, 16),
    "R8G8B8A8_UNORM": (37, 28, 1, 1, 4),
    "UASTC": (0, None, 4, 4, 16),
}


def level_size(fmt: str, w: int, h: int, level: int) -> int:
    """Bytes of one face/layer of mip ``level`` (spec/textures.md §2.2–2.3: floor halving,
    block rounding, at least one block)."""
    _, _, bw, bh, bpb = FORMATS[fmt]
    lw, lh = max(1, w >> level), max(1, h >> level)
    return max(1, -(-lw // bw)) * max(1, -(-lh // bh)) * bpb


# =============================================================================================
# Supercompression: a hand-made Zstandard frame, and stdlib zlib
# =============================================================================================

ZSTD_MAGIC = 0xFD2FB528
ZSTD_BLOCK_MAX = 128 * 1024


def zstd_zeros(n: int) -> bytes:
    """A valid Zstandard frame (RFC 8878) that decodes to ``n`` zero bytes, built from RLE
    blocks: frame header with Single_Segment and a 4-byte Frame_Content_Size, then per
    128 KiB a 3-byte block header (Last_Block, Block_Type 1 = RLE, Block_Size) and the one
    byte to repeat. ``zstd -d`` accepts it."""
    out = bytearray(struct.pack("<I", ZSTD_MAGIC))
    out.append((2 << 6) | (1 << 5))  # FCS flag 2 (4 bytes), Single_Segment; no checksum, no dict
    out += struct.pack("<I", n)
    left = n
    while True:
        size = min(left, ZSTD_BLOCK_MAX)
        left -= size
        last = 1 if left == 0 else 0
        block_type = 1 if size else 0  # an empty frame is one empty raw block
        out += struct.pack("<I", last | (block_type << 1) | (size << 3))[:3]
        if size:
            out.append(0)
        if last:
            return bytes(out)


_ZERO_MIB = bytes(1 << 20)


def zlib_zeros(n: int) -> bytes:
    """``n`` zero bytes, zlib-compressed at level 6, fed in 1 MiB chunks (no big buffer)."""
    comp = zlib.compressobj(6)
    parts = []
    left = n
    while left:
        take = min(left, len(_ZERO_MIB))
        parts.append(comp.compress(_ZERO_MIB[:take]))
        left -= take
    parts.append(comp.flush())
    return b"".join(parts)


SCHEMES = {"none": 0, "zstd": 2, "zlib": 3}

# =============================================================================================
# KTX2 (KTX 2.0 spec "File Structure"; spec/textures.md §4.1)
# =============================================================================================

KTX2_MAGIC = b"\xabKTX 20\xbb\r\n\x1a\n"

# Khronos Data Format: colour models and channel ids
DF_MODEL_RGBSDA, DF_MODEL_BC5, DF_MODEL_BC6H, DF_MODEL_BC7, DF_MODEL_UASTC = 1, 132, 133, 134, 166
DF_PRIMARIES_BT709 = 1
DF_TRANSFER_LINEAR, DF_TRANSFER_SRGB = 1, 2
DF_SAMPLE_FLOAT = 0x80  # channelType qualifier bits (top of the byte)


def dfd_for(fmt: str, *, alpha: bool = False, srgb: bool = False) -> bytes:
    """A minimal valid data format descriptor: dfdTotalSize + one basic descriptor block.
    ``srgb`` marks transcodable (UASTC) colour data; plain formats say it in their name."""
    srgb = srgb or fmt.endswith("_SRGB")
    transfer = DF_TRANSFER_SRGB if srgb else DF_TRANSFER_LINEAR
    # samples: (bitOffset, bitLength-1, channelType, lower, upper)
    if fmt.startswith("BC7"):
        model, dims, plane0 = DF_MODEL_BC7, (3, 3, 0, 0), 16
        samples = [(0, 127, 0, 0, 0xFFFFFFFF)]
    elif fmt == "BC5_UNORM":
        model, dims, plane0 = DF_MODEL_BC5, (3, 3, 0, 0), 16
        samples = [(0, 63, 0, 0, 0xFFFFFFFF), (64, 63, 1, 0, 0xFFFFFFFF)]
    elif fmt == "BC6H_UFLOAT":
        model, dims, plane0 = DF_MODEL_BC6H, (3, 3, 0, 0), 16
        samples = [(0, 127, DF_SAMPLE_FLOAT, 0, 0x477FE000)]  # 0.0 .. 65504.0 (half max)
    elif fmt == "UASTC":
        model, dims, plane0 = DF_MODEL_UASTC, (3, 3, 0, 0), 16
        samples = [(0, 127, 3 if alpha else 0, 0, 0xFFFFFFFF)]  # channel id RGBA 3 / RGB 0
    elif fmt == "R8G8B8A8_UNORM":
        model, dims, plane0 = DF_MODEL_RGBSDA, (0, 0, 0, 0), 4
        samples = [(0, 7, 0, 0, 255), (8, 7, 1, 0, 255), (16, 7, 2, 0, 255), (24, 7, 15, 0, 255)]
    else:  # pragma: no cover - the script only writes the formats above
        raise ValueError(fmt)
    block_size = 24 + 16 * len(samples)
    block = struct.pack("<IHH", 0, 2, block_size)  # vendor 0 (Khronos), type 0, version 1.3 (=2)
    block += bytes((model, DF_PRIMARIES_BT709, transfer, 0))
    block += bytes(dims)
    block += bytes((plane0, 0, 0, 0, 0, 0, 0, 0))
    for offset, length, channel, lower, upper in samples:
        block += struct.pack("<HBB", offset, length, channel) + bytes(4) + struct.pack("<II", lower, upper)
    return struct.pack("<I", 4 + len(block)) + block


def kvd_writer() -> bytes:
    """One key/value pair, KTXwriter, padded to 4 bytes."""
    kv = b"KTXwriter\x00" + GENERATOR.encode("utf-8") + b"\x00"
    entry = struct.pack("<I", len(kv)) + kv
    return entry + bytes(-len(entry) % 4)


def ktx2(fmt: str, width: int, height: int, *, levels: int | None = None, faces: int = 1,
         layers: int = 0, scheme: str = "zstd", alpha: bool = False, srgb: bool = False) -> bytes:
    """A KTX2 file with a zero-filled payload. Levels are stored smallest-first and indexed
    largest-first; byteLength is the on-disk (supercompressed) length, uncompressedByteLength
    the exact level size (all layers and faces)."""
    vk = FORMATS[fmt][0]
    n = full_levels(width, height) if levels is None else levels
    copies = faces * max(1, layers)
    sizes = [level_size(fmt, width, height, i) * copies for i in range(n)]
    code = SCHEMES[scheme]
    blobs = [zstd_zeros(s) if code == 2 else zlib_zeros(s) if code == 3 else bytes(s) for s in sizes]
    dfd = dfd_for(fmt, alpha=alpha, srgb=srgb)
    kvd = kvd_writer()
    index_at = 80
    dfd_at = index_at + 24 * n
    kvd_at = dfd_at + len(dfd)
    pos = kvd_at + len(kvd)
    align = 1 if code else math.lcm(FORMATS[fmt][4], 4)
    offsets = [0] * n
    body = bytearray()
    for i in reversed(range(n)):  # smallest level first in the file
        pad = -pos % align
        body += bytes(pad)
        pos += pad
        offsets[i] = pos
        body += blobs[i]
        pos += len(blobs[i])
    header = KTX2_MAGIC + struct.pack(
        "<13I", vk, 1, width, height, 0, layers, faces, n, code, dfd_at, len(dfd), kvd_at, len(kvd),
    ) + struct.pack("<QQ", 0, 0)
    index = b"".join(struct.pack("<QQQ", offsets[i], len(blobs[i]), sizes[i]) for i in range(n))
    return header + index + dfd + kvd + bytes(body)


# =============================================================================================
# DDS (DirectXTex DDS.h; spec/textures.md §4.3)
# =============================================================================================

DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PIXELFORMAT = 0x1, 0x2, 0x4, 0x1000
DDSD_MIPMAPCOUNT, DDSD_LINEARSIZE = 0x20000, 0x80000
DDPF_FOURCC = 0x4
DDSCAPS_COMPLEX, DDSCAPS_TEXTURE, DDSCAPS_MIPMAP = 0x8, 0x1000, 0x400000
DDS_DIMENSION_TEXTURE2D = 3


def dds(fmt: str, width: int, height: int, *, mips: bool, legacy_fourcc: str | None = None) -> bytes:
    """A DDS file with a zero-filled payload: DX10 header (or a legacy FourCC such as DXT1)."""
    n = full_levels(width, height) if mips else 1
    payload = sum(level_size(fmt, width, height, i) for i in range(n))
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | DDSD_LINEARSIZE
    caps = DDSCAPS_TEXTURE
    if mips:
        flags |= DDSD_MIPMAPCOUNT
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP
    fourcc = (legacy_fourcc or "DX10").encode("ascii")
    header = b"DDS " + struct.pack("<7I", 124, flags, height, width, level_size(fmt, width, height, 0), 0, n)
    header += bytes(44)  # reserved1[11]
    header += struct.pack("<II4s5I", 32, DDPF_FOURCC, fourcc, 0, 0, 0, 0, 0)
    header += struct.pack("<5I", caps, 0, 0, 0, 0)
    if legacy_fourcc is None:
        header += struct.pack("<5I", FORMATS[fmt][1], DDS_DIMENSION_TEXTURE2D, 0, 1, 0)
    return header + bytes(payload)


# =============================================================================================
# Radiance HDR (RGBE, new-style run-length scanlines)
# =============================================================================================


def rgbe(rgb: np.ndarray) -> np.ndarray:
    """float (…, 3) -> uint8 (…, 4) shared-exponent RGBE."""
    v = rgb.max(axis=-1)
    mant, exp = np.frexp(v)
    scale = np.where(v > 1e-32, mant * 256.0 / np.maximum(v, 1e-32), 0.0)
    out = np.zeros((*rgb.shape[:-1], 4), np.uint8)
    out[..., :3] = np.clip(rgb * scale[..., None], 0, 255).astype(np.uint8)
    out[..., 3] = np.where(v > 1e-32, exp + 128, 0).astype(np.uint8)
    return out


def rle_channel(values: bytes) -> bytes:
    """Radiance run-length packets for one channel of one scanline: a run is (128+n, value)
    for 3 <= n <= 127; literals are (n, bytes) for n <= 128."""
    out = bytearray()
    i, n = 0, len(values)
    literal = bytearray()
    while i < n:
        run = 1
        while i + run < n and run < 127 and values[i + run] == values[i]:
            run += 1
        if run >= 3:
            if literal:
                out += bytes((len(literal),)) + literal
                literal.clear()
            out += bytes((128 + run, values[i]))
            i += run
        else:
            literal.append(values[i])
            i += 1
            if len(literal) == 128:
                out += bytes((128,)) + literal
                literal.clear()
    if literal:
        out += bytes((len(literal),)) + literal
    return bytes(out)


def radiance_hdr(pixels: np.ndarray) -> bytes:
    h, w, _ = pixels.shape
    header = (b"#?RADIANCE\n# " + GENERATOR.encode() + b"\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n"
              + f"-Y {h} +X {w}\n".encode())
    body = bytearray()
    data = rgbe(pixels)
    for y in range(h):
        body += bytes((2, 2, w >> 8, w & 0xFF))
        for c in range(4):
            body += rle_channel(data[y, :, c].tobytes())
    return header + bytes(body)


# =============================================================================================
# Procedural texture content (low resolution, upscaled: flat areas compress to almost nothing)
# =============================================================================================


@dataclass
class Pattern:
    height: np.ndarray  # (L, L) 0..1
    albedo: np.ndarray  # (L, L, 3) 0..255 float
    alpha: np.ndarray | None = None  # (L, L) 0..255


def make_pattern(s: Set, res: int = 128) -> Pattern:
    rng = np.random.default_rng(seed_of(s.path))
    y, x = np.mgrid[0:res, 0:res]
    base = np.array(s.color, np.float64)
    height = np.full((res, res), 0.6)
    tint = np.zeros((res, res))
    alpha = None
    if s.look in ("tiles", "bricks", "cobble"):
        rows = {"tiles": 8, "bricks": 16, "cobble": 12}[s.look]
        cell = res // rows
        offset = ((y // cell) % 2) * (cell // 2) if s.look != "tiles" else 0
        cx = (x + offset) // cell
        cy = y // cell
        cell_id = (cy * 131 + cx * 17) % 97
        jitter = rng.uniform(-18, 18, 97)
        tint = jitter[cell_id]
        mortar = (((x + offset) % cell) == 0) | ((y % cell) == 0)
        height = np.where(mortar, 0.1, 0.7 + jitter[cell_id] / 200)
        tint = np.where(mortar, -40, tint)
    elif s.look == "planks":
        width = res // 8
        board = x // width
        jitter = rng.uniform(-15, 15, 16)
        tint = jitter[board % 16] + np.where((y + board * 7) % 32 == 0, -20, 0)
        gap = (x % width) == 0
        height = np.where(gap, 0.15, 0.65)
        tint = np.where(gap, -45, tint)
    elif s.look in ("cloth", "stripes"):
        band = res // (8 if s.look == "stripes" else 32)
        stripe = (x // band) % 2
        tint = np.where(stripe == 1, 45, -10) if s.look == "stripes" else np.where(stripe == 1, 8, -8)
        height = 0.55 + 0.05 * stripe
    elif s.look == "metal":
        tint = np.zeros((res, res))
        for _ in range(6):  # a few scratches
            row = int(rng.integers(0, res))
            tint[row, int(rng.integers(0, res // 2)):] += 25
        rivets = ((x % (res // 4)) == res // 8) & ((y % (res // 4)) == res // 8)
        height = np.where(rivets, 0.9, 0.5)
    elif s.look == "glass":
        frame = ((x % (res // 2)) < 3) | ((y % (res // 2)) < 3)
        tint = np.where(frame, -40, 20)
        height = np.where(frame, 0.8, 0.4)
    elif s.look == "leaves":
        alpha = np.zeros((res, res))
        for _ in range(40):
            cx, cy, r = rng.uniform(0, res), rng.uniform(0, res), rng.uniform(res / 20, res / 8)
            inside = ((x - cx) / r) ** 2 + ((y - cy) / (r * 0.5)) ** 2 < 1
            alpha = np.where(inside, 255, alpha)
            tint = np.where(inside, rng.uniform(-25, 25), tint)
        height = np.where(alpha > 0, 0.7, 0.3)
    else:  # noise: blocky low-frequency variation
        cells = rng.uniform(-14, 14, (8, 8))
        tint = np.kron(cells, np.ones((res // 8, res // 8)))
        height = 0.5 + tint / 100
    albedo = np.clip(base[None, None, :] + tint[..., None], 0, 255)
    return Pattern(height=height, albedo=albedo, alpha=alpha)


def normal_from_height(height: np.ndarray, strength: float = 4.0) -> np.ndarray:
    dy, dx = np.gradient(height)
    n = np.stack([-dx * strength, -dy * strength, np.ones_like(height)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    return np.round((n * 0.5 + 0.5) * 255)


def upscale(arr: np.ndarray, width: int, height: int) -> np.ndarray:
    """Nearest-neighbour upscale of a low-resolution map to width x height, as uint8. Integer
    factors use numpy (exact everywhere); other sizes fall back to Pillow's NEAREST."""
    arr = np.clip(arr, 0, 255).astype(np.uint8)
    ah, aw = arr.shape[:2]
    if width % aw == 0 and height % ah == 0:
        return np.repeat(np.repeat(arr, height // ah, axis=0), width // aw, axis=1)
    return np.asarray(Image.fromarray(arr).resize((width, height), Image.NEAREST))


def low_maps(s: Set) -> dict[str, np.ndarray]:
    """albedo, normal, orm, roughness and ao of a set, at the pattern's low resolution."""
    p = make_pattern(s)
    albedo = p.albedo
    if p.alpha is not None:
        albedo = np.concatenate([albedo, p.alpha[..., None]], axis=-1)
    ao = 255 - (1 - p.height) * 90
    rough = np.clip(s.rough + (p.height - 0.5) * 40, 0, 255)
    metal = np.full_like(p.height, s.metal)
    return {
        "albedo": albedo,
        "normal": normal_from_height(p.height),
        "orm": np.stack([ao, rough, metal], axis=-1),
        "roughness": rough,
        "ao": ao,
    }


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(arr: np.ndarray) -> bytes:
    """A PNG (8-bit grey, grey+alpha, RGB or RGBA) written with the stdlib only, so the bytes
    do not depend on Pillow's build. Each row uses filter Up when it repeats the row above
    (all zeros) and Sub otherwise; one IDAT chunk, zlib level 6; no timestamps or text."""
    arr = np.ascontiguousarray(arr, np.uint8)
    h, w = arr.shape[:2]
    c = 1 if arr.ndim == 2 else arr.shape[2]
    rows = arr.reshape(h, w * c)
    sub = rows.copy()
    sub[:, c:] -= rows[:, :-c]  # uint8 arithmetic wraps modulo 256, as PNG filters do
    same = np.zeros(h, bool)
    same[1:] = np.all(rows[1:] == rows[:-1], axis=1)
    filtered = np.empty((h, 1 + w * c), np.uint8)
    filtered[:, 0] = np.where(same, 2, 1)
    filtered[:, 1:] = np.where(same[:, None], 0, sub)
    colour_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    ihdr = struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
            + png_chunk(b"IDAT", zlib.compress(filtered.tobytes(), 6)) + png_chunk(b"IEND", b""))


def tga_rle_row(pixels: np.ndarray) -> bytes:
    """TGA run-length packets for one scanline (packets never cross a scanline): a run is
    0x80 | (n - 1) and one pixel, a raw packet (n - 1) and n pixels, n <= 128."""
    w = len(pixels)
    change = np.flatnonzero(np.any(pixels[1:] != pixels[:-1], axis=1)) + 1
    starts = [0, *change.tolist()]
    ends = [*change.tolist(), w]
    out = bytearray()
    literal: list[int] = []

    def flush() -> None:
        for i in range(0, len(literal), 128):
            chunk = literal[i:i + 128]
            out.append(len(chunk) - 1)
            for x in chunk:
                out.extend(pixels[x].tobytes())
        literal.clear()

    for a, b in zip(starts, ends, strict=True):
        if b - a == 1:
            literal.append(a)
            continue
        flush()
        left = b - a
        while left:
            n = min(left, 128)
            out.append(0x80 | (n - 1))
            out.extend(pixels[a].tobytes())
            left -= n
    flush()
    return bytes(out)


def tga_bytes(arr: np.ndarray) -> bytes:
    """A run-length TGA (image type 10, 24 or 32 bpp, top-left origin) with the TGA 2.0
    footer, written with the stdlib only."""
    arr = np.ascontiguousarray(arr, np.uint8)
    h, w, c = arr.shape
    bgr = np.ascontiguousarray(arr[..., [2, 1, 0, 3][:c]])
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 10, 0, 0, 0, 0, 0, w, h, 8 * c, (8 if c == 4 else 0) | 0x20)
    body = bytearray()
    cache: dict[bytes, bytes] = {}
    for y in range(h):
        key = bgr[y].tobytes()
        if key not in cache:
            cache[key] = tga_rle_row(bgr[y])
        body += cache[key]
    return header + bytes(body) + struct.pack("<II", 0, 0) + b"TRUEVISION-XFILE.\x00"


def jpeg_bytes(arr: np.ndarray, width: int, height: int) -> bytes:
    """A baseline JPEG through Pillow (bilinear upscale: JPEG likes smooth images). Its bytes
    depend on Pillow's libjpeg, which is why the test pins PNG/TGA/KTX2/DDS bytes, not these."""
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).resize((width, height), Image.BILINEAR)
    buf = io.BytesIO()
    img.convert("RGB").save(buf, "JPEG", quality=80, subsampling=2, optimize=False, progressive=False)
    return buf.getvalue()


# =============================================================================================
# Engine sidecars: Godot 4 .import, Unity .meta (shapes of real files)
# =============================================================================================


def godot_import(res_path: str, *, mode: int, normal_map: int = 0, size_limit: int = 0, detect_3d: int = 1) -> str:
    """A Godot 4 ``.import`` for ResourceImporterTexture. mode: 0 lossless, 1 lossy,
    2 VRAM compressed, 3 VRAM uncompressed, 4 Basis Universal. detect_3d: what a texture
    first used in 3D is switched to (0 disabled, 1 VRAM compressed, 2 Basis Universal)."""
    name = res_path.rsplit("/", 1)[-1]
    digest = hashlib.md5(res_path.encode()).hexdigest()
    uid_alphabet = "abcdefghijklmnopqrstuvwxy0123456789"
    uid_n = int(hashlib.sha1(res_path.encode()).hexdigest(), 16)
    uid = ""
    for _ in range(13):
        uid_n, r = divmod(uid_n, len(uid_alphabet))
        uid += uid_alphabet[r]
    if mode == 2:
        paths = (f'path.s3tc="res://.godot/imported/{name}-{digest}.s3tc.ctex"\n'
                 f'path.etc2="res://.godot/imported/{name}-{digest}.etc2.ctex"\n'
                 'metadata={\n"imported_formats": ["s3tc_bptc", "etc2_astc"],\n"vram_texture": true\n}\n')
        dest = (f'dest_files=["res://.godot/imported/{name}-{digest}.s3tc.ctex", '
                f'"res://.godot/imported/{name}-{digest}.etc2.ctex"]\n')
    else:
        paths = (f'path="res://.godot/imported/{name}-{digest}.ctex"\n'
                 'metadata={\n"vram_texture": false\n}\n')
        dest = f'dest_files=["res://.godot/imported/{name}-{digest}.ctex"]\n'
    return (
        '[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\n'
        f'uid="uid://{uid}"\n{paths}\n'
        f'[deps]\n\nsource_file="res://{res_path}"\n{dest}\n'
        "[params]\n\n"
        f"compress/mode={mode}\ncompress/high_quality=false\ncompress/lossy_quality=0.7\n"
        "compress/hdr_compression=1\n"
        f"compress/normal_map={normal_map}\ncompress/channel_pack=0\n"
        "mipmaps/generate=true\nmipmaps/limit=-1\n"
        'roughness/mode=0\nroughness/src_normal=""\n'
        "process/fix_alpha_border=true\nprocess/premult_alpha=false\n"
        "process/normal_map_invert_y=false\nprocess/hdr_as_srgb=false\n"
        f"process/hdr_clamp_exposure=false\nprocess/size_limit={size_limit}\n"
        f"detect_3d/compress_to={detect_3d}\n"
    )


UNITY_PLATFORM = """  - serializedVersion: 3
    buildTarget: {target}
    maxTextureSize: {max_size}
    resizeAlgorithm: 0
    textureFormat: {fmt}
    textureCompression: {compression}
    compressionQuality: 50
    crunchedCompression: 0
    allowsAlphaSplitting: 0
    overridden: {overridden}
    ignorePlatformSupport: 0
    androidETC2FallbackOverride: 0
    forceMaximumCompressionQuality_BC6H_BC7: 0
"""

UNITY_META = """fileFormatVersion: 2
guid: {guid}
TextureImporter:
  internalIDToNameTable: []
  externalObjects: {{}}
  serializedVersion: 13
  mipmaps:
    mipMapMode: 0
    enableMipMap: 1
    sRGBTexture: {srgb}
    linearTexture: 0
    fadeOut: 0
    borderMipMap: 0
    mipMapsPreserveCoverage: 0
    alphaTestReferenceValue: 0.5
    mipMapFadeDistanceStart: 1
    mipMapFadeDistanceEnd: 3
  bumpmap:
    convertToNormalMap: 0
    externalNormalMap: 0
    heightScale: 0.25
    normalMapFilter: 0
    flipGreenChannel: 0
  isReadable: 0
  streamingMipmaps: 0
  streamingMipmapsPriority: 0
  vTOnly: 0
  ignoreMipmapLimit: 0
  grayScaleToAlpha: 0
  generateCubemap: 6
  cubemapConvolution: 0
  seamlessCubemap: 0
  textureFormat: 1
  maxTextureSize: {max_size}
  textureSettings:
    serializedVersion: 2
    filterMode: 1
    aniso: 4
    mipBias: 0
    wrapU: 0
    wrapV: 0
    wrapW: 0
  nPOTScale: 1
  lightmap: 0
  compressionQuality: 50
  spriteMode: 0
  spriteExtrude: 1
  spriteMeshType: 1
  alignment: 0
  spritePivot: {{x: 0.5, y: 0.5}}
  spritePixelsToUnits: 100
  spriteBorder: {{x: 0, y: 0, z: 0, w: 0}}
  spriteGenerateFallbackPhysicsShape: 1
  alphaUsage: {alpha_usage}
  alphaIsTransparency: 0
  spriteTessellationDetail: -1
  textureType: {texture_type}
  textureShape: 1
  singleChannelComponent: 0
  flipbookRows: 1
  flipbookColumns: 1
  maxTextureSizeSet: 0
  compressionQualitySet: 0
  textureFormatSet: 0
  ignorePngGamma: 0
  applyGammaDecoding: 0
  swizzle: 50462976
  cookieLightType: 0
  platformSettings:
{platforms}  spriteSheet:
    serializedVersion: 2
    sprites: []
    outline: []
    physicsShape: []
    bones: []
    spriteID:
    internalID: 0
    vertices: []
    indices:
    edges: []
    weights: []
    secondaryTextures: []
    nameFileIdTable: {{}}
  mipmapLimitGroupName:
  pSDRemoveMatte: 0
  userData:
  assetBundleName:
  assetBundleVariant:
"""

# Unity TextureImporterFormat numbers: -1 automatic, 10 DXT1, 12 DXT5, 25 BC7, 27 BC5, 4 RGBA32
UNITY_BC7, UNITY_BC5, UNITY_AUTO = 25, 27, -1


def unity_meta(rel: str, *, role: str, max_size: int, standalone: tuple[int, int] | None) -> str:
    """A Unity TextureImporter ``.meta``. role: albedo / normal / mask. ``standalone`` =
    (max size, TextureImporterFormat) for an overridden Standalone platform, or None."""
    guid = hashlib.md5(("Assets/LanternRow/" + rel).encode()).hexdigest()
    platforms = UNITY_PLATFORM.format(target="DefaultTexturePlatform", max_size=max_size, fmt=UNITY_AUTO,
                                      compression=1, overridden=0)
    if standalone:
        platforms += UNITY_PLATFORM.format(target="Standalone", max_size=standalone[0], fmt=standalone[1],
                                           compression=1, overridden=1)
    return UNITY_META.format(
        guid=guid, srgb=1 if role == "albedo" else 0, max_size=max_size,
        texture_type=1 if role == "normal" else 0, alpha_usage=1 if role == "albedo" else 0,
        platforms=platforms,
    )


# =============================================================================================
# Writing the textures
# =============================================================================================


@dataclass
class Material:
    name: str
    albedo: str
    normal: str
    orm: str | None = None  # metallicRoughness + occlusion from one ORM image
    roughness: str | None = None  # separate masks (png-masks sets)
    ao: str | None = None
    alpha: bool = False
    metal: float = 0.0


@dataclass
class Written:
    materials: list[Material] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # rel path -> bytes on disk
    vram: dict[str, int] = field(default_factory=dict)  # rel path -> designed desktop bytes


def chain_bytes(fmt: str, w: int, h: int, *, mips: bool = True, copies: int = 1) -> int:
    n = full_levels(w, h) if mips else 1
    return sum(level_size(fmt, w, h, i) for i in range(n)) * copies


def source_vram(role: str, w: int, h: int, alpha: bool = False) -> int:
    """The designed desktop-profile cost of a source image (issue 4: opaque colour BC1, colour
    with alpha BC3 (= BC7 size), normal BC5, single channel BC4 (= BC1 size), full mips)."""
    if role == "normal":
        return chain_bytes("BC5_UNORM", w, h)
    if role == "albedo" and alpha:
        return chain_bytes("BC7_SRGB", w, h)
    return chain_bytes("BC1_RGB_UNORM", w, h)


class Writer:
    def __init__(self, out: Path):
        self.out = out
        self.tex = out / "textures"
        self.done = Written()

    def put(self, rel: str, data: bytes | str, vram: int | None = None) -> str:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.done.files[rel] = write(self.tex / rel, raw)
        if vram is not None:
            self.done.vram[rel] = vram
        return "textures/" + rel

    # --- one texture set
    def write_set(self, s: Set, *, material: bool = True) -> None:
        n = s.size
        k = s.kind
        uri: dict[str, str] = {}
        if k in ("ktx2", "ktx2-zlib"):
            scheme = "zlib" if k == "ktx2-zlib" else "zstd"
            for role, fmt in (("albedo", "BC7_SRGB"), ("normal", "BC5_UNORM"), ("orm", "BC7_UNORM")):
                uri[role] = self.put(f"{s.path}_{role}.ktx2", ktx2(fmt, n, n, scheme=scheme), chain_bytes(fmt, n, n))
        elif k == "ktx2-array":
            for role, fmt in (("albedo", "BC7_SRGB"), ("normal", "BC5_UNORM")):
                uri[role] = self.put(f"{s.path}_{role}.ktx2", ktx2(fmt, n, n, layers=ARRAY_LAYERS),
                                     chain_bytes(fmt, n, n, copies=ARRAY_LAYERS))
        elif k == "uastc":
            for role in ("albedo", "normal", "orm"):
                data = ktx2("UASTC", n, n, alpha=s.alpha, srgb=(role == "albedo"))
                uri[role] = self.put(f"{s.path}_{role}.ktx2", data, chain_bytes("UASTC", n, n))
        elif k == "dds":
            uri["albedo"] = self.put(f"{s.path}_albedo.dds", dds("BC7_SRGB", n, n, mips=True), chain_bytes("BC7_SRGB", n, n))
            uri["normal"] = self.put(f"{s.path}_normal.dds", dds("BC5_UNORM", n, n, mips=True), chain_bytes("BC5_UNORM", n, n))
        else:
            maps = low_maps(s)
            roles = ("albedo", "normal", "roughness", "ao") if k == "png-masks" else ("albedo", "normal", "orm")
            for role in roles:
                if k == "tga":
                    ext, data = "tga", tga_bytes(upscale(maps[role], n, n))
                elif k == "jpg" and role != "normal":
                    ext, data = "jpg", jpeg_bytes(maps[role], n, n)
                else:
                    ext, data = "png", png_bytes(upscale(maps[role], n, n))
                rel = f"{s.path}_{role}.{ext}"
                vram = source_vram("normal" if role == "normal" else "albedo" if role == "albedo" else "mask", n, n, s.alpha)
                if rel == GODOT_LOSSLESS:
                    vram = chain_bytes("R8G8B8A8_UNORM", n, n)  # Godot lossless: RGBA8 in VRAM
                uri[role] = self.put(rel, data, vram)
                self.sidecar(s, rel, role)
        if material:
            self.done.materials.append(Material(
                name=s.path, albedo=uri["albedo"], normal=uri["normal"], orm=uri.get("orm"),
                roughness=uri.get("roughness"), ao=uri.get("ao"), alpha=s.alpha, metal=s.metal / 255,
            ))

    def sidecar(self, s: Set, rel: str, role: str) -> None:
        if s.sidecar == "godot":
            res = "textures/" + rel
            if rel == GODOT_LOSSLESS:
                # PLANTED: lossless with 3D detection off stays uncompressed (RGBA8) in VRAM
                text = godot_import(res, mode=0, normal_map=1, detect_3d=0)
            elif s.path == "nature/ivy":
                text = godot_import(res, mode=2, normal_map=1 if role == "normal" else 0, size_limit=1024)
            else:
                text = godot_import(res, mode=2, normal_map=1 if role == "normal" else 0)
            self.put(rel + ".import", text)
        elif s.sidecar == "unity":
            cap = 512 if s.path == "market/barrel" else s.size  # the barrel is small on screen
            fmt = UNITY_BC5 if role == "normal" else UNITY_BC7
            self.put(rel + ".meta", unity_meta(rel, role="mask" if role == "orm" else role, max_size=cap,
                                               standalone=(cap, fmt)))

    # --- the special files
    def write_clocktower(self) -> None:
        path, n = CLOCKTOWER
        albedo = self.put(f"{path}_albedo.ktx2", ktx2("BC7_SRGB", n, n, scheme="zlib"), chain_bytes("BC7_SRGB", n, n))
        # PLANTED: the 8K normal map was exported uncompressed (R8G8B8A8_UNORM, 341.3 MiB).
        normal = self.put(f"{path}_normal.ktx2", ktx2("R8G8B8A8_UNORM", n, n, scheme="zlib"),
                          chain_bytes("R8G8B8A8_UNORM", n, n))
        orm = self.put(f"{path}_orm.ktx2", ktx2("BC7_UNORM", n, n, scheme="zlib"), chain_bytes("BC7_UNORM", n, n))
        self.done.materials.append(Material(name=path, albedo=albedo, normal=normal, orm=orm))

    def write_planted(self) -> None:
        # PLANTED: a poster at 1000x750 (750 is not a multiple of 4: BC blocks pad it).
        rel, w, h = POSTER
        s = Set("market/poster", 0, "jpg", "stripes", (200, 170, 90))
        poster = self.put(rel, jpeg_bytes(low_maps(s)["albedo"], w, h), source_vram("albedo", w, h))
        flat = np.broadcast_to(np.array([128, 128, 255], np.uint8), (h, w, 3))
        flat_normal = self.put("market/poster_normal.png", png_bytes(flat), source_vram("normal", w, h))
        self.done.materials.append(Material(name="market/poster", albedo=poster, normal=flat_normal))
        # PLANTED: a DDS decal saved without mips (legacy DXT1 header, mipMapCount 1).
        rel, n = SIGN_DECAL
        decal = self.put(rel, dds("BC1_RGB_UNORM", n, n, mips=False, legacy_fourcc="DXT1"),
                         chain_bytes("BC1_RGB_UNORM", n, n, mips=False))
        self.done.materials.append(Material(name="props/sign_decal", albedo=decal, normal=flat_normal))
        # PLANTED: an old cart set that no material uses any more.
        self.write_set(UNUSED, material=False)

    def write_environment(self) -> None:
        rel, n = SKY
        self.put(rel, ktx2("BC6H_UFLOAT", n, n, faces=6, scheme="zlib"), chain_bytes("BC6H_UFLOAT", n, n, copies=6))
        rel, w, h = PROBE
        v = np.linspace(0.0, 1.0, h)[:, None, None]
        horizon = np.array([2.4, 1.1, 0.5])  # warm dusk at the horizon
        zenith = np.array([0.15, 0.22, 0.6])
        ground = np.array([0.08, 0.07, 0.06])
        sky = np.where(v < 0.5, zenith + (horizon - zenith) * (v / 0.5), ground + 0 * v)
        pixels = np.broadcast_to(sky, (h, w, 3)).copy()
        pixels[h // 2 - 6:h // 2 - 2, w // 3:w // 3 + 8] = (40.0, 22.0, 9.0)  # the setting sun
        self.put(rel, radiance_hdr(pixels), chain_bytes("BC6H_UFLOAT", w, h))
        rel, w, h = HUD
        res = 64
        rng = np.random.default_rng(seed_of(rel))
        atlas = np.zeros((res // 2, res, 4))
        for i in range(24):  # icons on a transparent sheet
            cx, cy = (i % 8) * 8 + 4, (i // 8) * 8 + 4
            colour = rng.uniform(80, 255, 3)
            atlas[cy - 3:cy + 3, cx - 3:cx + 3, :3] = colour
            atlas[cy - 3:cy + 3, cx - 3:cx + 3, 3] = 255
        self.put(rel, png_bytes(upscale(atlas, w, h)), w * h * 4)  # desktop UI: RGBA8, no mips


# =============================================================================================
# Meshes (procedural) and the glTF level
# =============================================================================================


@dataclass
class Part:
    pos: np.ndarray
    nrm: np.ndarray
    uv: np.ndarray
    idx: np.ndarray

    def moved(self, t=(0.0, 0.0, 0.0), s=(1.0, 1.0, 1.0), yaw: float = 0.0) -> Part:
        c, si = math.cos(yaw), math.sin(yaw)
        rot = np.array([[c, 0, si], [0, 1, 0], [-si, 0, c]])
        scale = np.array(s, np.float64)
        pos = (self.pos * scale) @ rot.T + np.array(t)
        nrm = (self.nrm / scale) @ rot.T
        nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
        return Part(pos, nrm, self.uv, self.idx)


def merge(parts: Iterable[Part]) -> Part:
    parts = list(parts)
    offsets = np.cumsum([0] + [len(p.pos) for p in parts[:-1]])
    return Part(
        np.concatenate([p.pos for p in parts]), np.concatenate([p.nrm for p in parts]),
        np.concatenate([p.uv for p in parts]), np.concatenate([p.idx + o for p, o in zip(parts, offsets, strict=True)]),
    )


def grid_indices(nu: int, nv: int) -> np.ndarray:
    i = np.arange(nu)[None, :] + (nu + 1) * np.arange(nv)[:, None]
    a, b, c, d = i, i + 1, i + nu + 1, i + nu + 2
    return np.stack([a, c, b, b, c, d], axis=-1).reshape(-1)


def quad(origin, udir, vdir, nu: int, nv: int, uv_scale=(1.0, 1.0)) -> Part:
    """A flat subdivided quad: origin + u*udir + v*vdir, normal = udir x vdir."""
    o, ud, vd = (np.array(a, np.float64) for a in (origin, udir, vdir))
    u = np.linspace(0, 1, nu + 1)
    v = np.linspace(0, 1, nv + 1)
    uu, vv = np.meshgrid(u, v)
    pos = o + uu.reshape(-1, 1) * ud + vv.reshape(-1, 1) * vd
    n = np.cross(ud, vd)
    n /= np.linalg.norm(n)
    uv = np.stack([uu.reshape(-1) * uv_scale[0], vv.reshape(-1) * uv_scale[1]], axis=1)
    return Part(pos, np.tile(n, (len(pos), 1)), uv, grid_indices(nu, nv))


def box(sx: float, sy: float, sz: float, n: int = 1, base: float = 0.0) -> Part:
    """An axis-aligned box standing on y = base, centred on x/z, each face n x n quads."""
    x, y, z = sx / 2, sy, sz / 2
    faces = [
        quad((-x, base, z), (sx, 0, 0), (0, y, 0), n, n),  # +z
        quad((x, base, -z), (-sx, 0, 0), (0, y, 0), n, n),  # -z
        quad((x, base, z), (0, 0, -sz), (0, y, 0), n, n),  # +x
        quad((-x, base, -z), (0, 0, sz), (0, y, 0), n, n),  # -x
        quad((-x, base + y, z), (sx, 0, 0), (0, 0, -sz), n, n),  # +y
        quad((-x, base, -z), (sx, 0, 0), (0, 0, sz), n, n),  # -y
    ]
    return merge(faces)


def lathe(profile: list[tuple[float, float]], seg: int, rings: int | None = None) -> Part:
    """Revolve a (radius, height) profile around +y; ``rings`` resamples it evenly."""
    prof = np.array(profile, np.float64)
    if rings:
        length = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(prof, axis=0), axis=1))])
        t = np.linspace(0, length[-1], rings + 1)
        prof = np.stack([np.interp(t, length, prof[:, 0]), np.interp(t, length, prof[:, 1])], axis=1)
    r, h = prof[:, 0], prof[:, 1]
    dr, dh = np.gradient(r), np.gradient(h)
    nr, nh = dh, -dr  # outward normal of the profile curve
    norm = np.hypot(nr, nh)
    norm[norm == 0] = 1
    nr, nh = nr / norm, nh / norm
    theta = np.linspace(0, 2 * math.pi, seg + 1)
    ct, st = np.cos(theta)[None, :], np.sin(theta)[None, :]
    pos = np.stack([r[:, None] * ct, np.broadcast_to(h[:, None], (len(r), seg + 1)), r[:, None] * st], axis=-1)
    nrm = np.stack([nr[:, None] * ct, np.broadcast_to(nh[:, None], (len(r), seg + 1)), nr[:, None] * st], axis=-1)
    vv, uu = np.meshgrid(np.linspace(0, 1, len(r)), np.linspace(0, 1, seg + 1), indexing="ij")
    uv = np.stack([uu, vv], axis=-1)
    return Part(pos.reshape(-1, 3), nrm.reshape(-1, 3), uv.reshape(-1, 2), grid_indices(seg, len(r) - 1))


def cylinder(r: float, h: float, seg: int = 24, rings: int = 4) -> Part:
    return lathe([(0.0, 0.0), (r, 0.0), (r, h), (0.0, h)], seg, rings)


def bumpy_tile(n: int, size: float, amp: float, cells: int) -> Part:
    """A street tile: an n x n grid of quads with rounded cobbles (height field)."""
    p = quad((-size / 2, 0, size / 2), (size, 0, 0), (0, 0, -size), n, n, (1, 1))
    u = p.uv[:, 0] * cells
    v = p.uv[:, 1] * cells
    hgt = amp * (np.sin(math.pi * (u % 1)) * np.sin(math.pi * (v % 1))) ** 0.5
    pos = p.pos.copy()
    pos[:, 1] = hgt
    eps = 1e-4
    du = amp * 0.5 * math.pi * cells * np.cos(math.pi * (u % 1)) * np.sin(math.pi * (v % 1)) / np.maximum(np.sqrt(np.abs(np.sin(math.pi * (u % 1)) * np.sin(math.pi * (v % 1)))), eps)
    dv = amp * 0.5 * math.pi * cells * np.sin(math.pi * (u % 1)) * np.cos(math.pi * (v % 1)) / np.maximum(np.sqrt(np.abs(np.sin(math.pi * (u % 1)) * np.sin(math.pi * (v % 1)))), eps)
    nrm = np.stack([-du / size, np.ones_like(du), dv / size], axis=1)
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    return Part(pos, nrm, p.uv, p.idx)


def tangents(p: Part) -> np.ndarray:
    """Per-vertex tangents (xyz + handedness w) from positions, normals and UVs."""
    tri = p.idx.reshape(-1, 3)
    p0, p1, p2 = (p.pos[tri[:, i]] for i in range(3))
    w0, w1, w2 = (p.uv[tri[:, i]] for i in range(3))
    e1, e2 = p1 - p0, p2 - p0
    d1, d2 = w1 - w0, w2 - w0
    det = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    r = np.where(np.abs(det) > 1e-12, 1.0 / np.where(det == 0, 1, det), 0.0)
    sdir = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) * r[:, None]
    tdir = (e2 * d1[:, 0:1] - e1 * d2[:, 0:1]) * r[:, None]
    t = np.zeros_like(p.pos)
    b = np.zeros_like(p.pos)
    for i in range(3):
        np.add.at(t, tri[:, i], sdir)
        np.add.at(b, tri[:, i], tdir)
    n = p.nrm
    t = t - n * np.sum(n * t, axis=1, keepdims=True)
    length = np.linalg.norm(t, axis=1, keepdims=True)
    fallback = np.cross(n, np.array([0.0, 0.0, 1.0]))
    fallback[np.linalg.norm(fallback, axis=1) < 1e-6] = (1.0, 0.0, 0.0)
    t = np.where(length > 1e-9, t / np.maximum(length, 1e-12), fallback / np.linalg.norm(fallback, axis=1, keepdims=True))
    w = np.where(np.sum(np.cross(n, t) * b, axis=1) < 0, -1.0, 1.0)
    return np.concatenate([t, w[:, None]], axis=1)


# Each mesh: name -> list of (part, material name). Built once, instanced by nodes.
def build_meshes() -> dict[str, list[tuple[Part, str]]]:
    m: dict[str, list[tuple[Part, str]]] = {}
    m["cobble_tile"] = [(bumpy_tile(96, 2.0, 0.04, 8), "street/cobblestone")]
    m["flagstone_tile"] = [(quad((-1, 0, 1), (2, 0, 0), (0, 0, -2), 32, 32), "street/flagstone")]
    m["sidewalk_tile"] = [(quad((-1, 0.15, 1), (2, 0, 0), (0, 0, -2), 16, 16), "street/sidewalk"),
                          (box(2.0, 0.15, 0.3, 4).moved((0, 0, 1.15)), "street/curb"),
                          (quad((-1, 0.01, 1.45), (2, 0, 0), (0, 0, -0.25), 8, 2), "street/gutter"),
                          (quad((-1, 0.151, -0.6), (2, 0, 0), (0, 0, -0.4), 8, 2), "street/cobblestone_worn")]
    m["plaza"] = [(quad((-6, 0.02, 6), (12, 0, 0), (0, 0, -12), 48, 48, (4, 4)), "street/plaza_mosaic"),
                  (quad((-3, 0.03, 3), (6, 0, 0), (0, 0, -6), 24, 24, (2, 2)), "street/ground_layers"),
                  (quad((-0.5, 0.031, 0.5), (1, 0, 0), (0, 0, -1), 4, 4), "street/drain_grate"),
                  (cylinder(0.4, 0.03, 32, 1).moved((3.5, 0, 3.5)), "street/manhole"),
                  (quad((-1.5, 0.035, 1.5), (3, 0, 0), (0, 0, -3), 8, 8), "street/puddle")]
    house_a = [
        (box(8, 9, 7, 8), "buildings/plaster"),
        (lathe([(6.0, 9.0), (0.01, 12.0)], 4, 6).moved((0, 0, 0), (1, 1, 0.9), math.pi / 4), "buildings/roof_tiles"),
        (box(8.2, 0.3, 7.2, 4, base=3.0), "buildings/stone_trim"),
        (box(1.6, 2.6, 0.2, 1, base=0).moved((0, 0, 3.55)), "buildings/door"),
        (box(7.9, 8.9, 6.9, 2).moved((0, 0, 0)), "buildings/timber"),
        (box(0.6, 3.0, 0.6, 2, base=11.0).moved((2, 0, 1)), "buildings/chimney"),
    ]
    for x in (-2.5, 0.0, 2.5):
        for y in (4.0, 6.8):
            house_a.append((quad((x - 0.6, y, 3.56), (1.2, 0, 0), (0, 1.6, 0), 1, 1), "buildings/window_glass"))
            house_a.append((quad((x - 1.3, y, 3.57), (0.6, 0, 0), (0, 1.6, 0), 2, 4), "buildings/shutter"))
    m["house_plaster"] = house_a
    m["house_brick"] = [
        (box(7, 11, 7, 8), "buildings/brick"),
        (lathe([(5.5, 11.0), (0.01, 14.0)], 4, 6).moved((0, 0, 0), (1, 1, 1), math.pi / 4), "buildings/slate"),
        (box(6.0, 0.2, 1.2, 4, base=4.2).moved((0, 0, 4.0)), "buildings/balcony_iron"),
        (cylinder(0.08, 11.0, 12, 8).moved((3.4, 0, 3.4)), "buildings/drainpipe"),
        (box(2.4, 3.2, 0.4, 4, base=0).moved((0, 0, 3.5)), "buildings/arch_stone"),
        (box(7.1, 6.0, 7.1, 4, base=0.0), "buildings/plaster_weathered"),
        (quad((-2.8, 0.2, 3.8), (5.6, 0, 0), (0, 0.6, 0.4), 8, 2), "props/flower_box"),
    ]
    m["house_ochre"] = [
        (box(6, 8, 7, 8), "buildings/plaster_ochre"),
        (lathe([(5.0, 8.0), (0.01, 11.0)], 4, 6).moved((0, 0, 0), (1, 1, 1.1), math.pi / 4), "buildings/roof_tiles"),
        (box(6.1, 7.9, 7.1, 2), "buildings/timber"),
        (box(1.4, 2.4, 0.2, 1, base=0).moved((0, 0, 3.55)), "buildings/door"),
    ]
    m["clocktower"] = [
        (box(5, 28, 5, 16), "buildings/clocktower"),
        (cylinder(1.6, 0.1, 48, 1).moved((0, 22, 2.55), yaw=0).moved((0, 0, 0)), "buildings/clock_face"),
        (lathe([(3.8, 28.0), (0.01, 34.0)], 4, 8).moved(yaw=math.pi / 4), "buildings/slate"),
    ]
    m["stall"] = [
        (merge([box(0.12, 2.4, 0.12, 1).moved((x, 0, z)) for x in (-1.4, 1.4) for z in (-0.9, 0.9)]
               + [box(3.0, 0.1, 2.0, 4, base=0.9)]), "market/stall"),
        (quad((-1.6, 2.6, 1.1), (3.2, 0, 0), (0, -0.3, -2.3), 24, 12), "market/canopy"),
        (box(3.0, 0.02, 2.0, 4, base=1.0), "market/rug"),
        (quad((-0.8, 2.2, 1.2), (1.6, 0, 0), (0, 0.4, 0), 2, 1), "market/signboard"),
        (box(0.5, 0.3, 0.5, 2, base=1.02).moved((-0.8, 0, 0)), "market/bread"),
        (lathe([(0.25, 0), (0.22, 0.08), (0.0, 0.08)], 24, 4).moved((0.8, 1.02, 0.3)), "market/cheese"),
        (box(0.8, 0.4, 0.4, 2, base=1.02).moved((0.2, 0, -0.5)), "market/fabric_bolts"),
        (merge([lathe([(0.06, 0), (0.07, 0.1), (0.04, 0.16)], 16, 4).moved((x, 1.02, 0.6)) for x in (-0.3, -0.1, 0.1)]),
         "market/spice_jars"),
        (merge([lathe([(0.0, 0.0), (0.15, 0.0), (0.16, 0.12), (0.12, 0.14)], 20, 4).moved((x, 1.02, -0.2)) for x in (1.0, 1.3)]),
         "market/copper_pots"),
        (lathe([(0.0, 0.0), (0.08, 0.0), (0.1, 0.15), (0.05, 0.22)], 16, 4).moved((-1.2, 1.02, 0.5)), "market/olive_jars"),
        (quad((-0.2, 1.05, 0.95), (0.4, 0, 0), (0, 0.15, 0.05), 1, 1), "market/price_tags"),
    ]
    m["awning"] = [(quad((-2, 3.2, 0), (4, 0, 0), (0, -0.6, 1.6), 32, 16), "market/awning")]
    m["tent"] = [(lathe([(3.0, 0.0), (3.0, 2.0), (0.05, 4.5)], 48, 12), "market/tent_canvas")]
    m["crate"] = [(box(0.8, 0.8, 0.8, 6), "market/crate")]
    m["barrel"] = [(lathe([(0.0, 0.0), (0.35, 0.0), (0.42, 0.5), (0.35, 1.0), (0.0, 1.0)], 32, 16), "market/barrel")]
    m["goods_basket"] = [
        (lathe([(0.0, 0.0), (0.3, 0.0), (0.4, 0.3), (0.38, 0.32)], 24, 6), "market/baskets"),
        (lathe([(0.35, 0.25), (0.2, 0.4), (0.0, 0.45)], 24, 6), "market/produce"),
    ]
    m["sack"] = [(lathe([(0.0, 0.0), (0.3, 0.05), (0.32, 0.5), (0.1, 0.7), (0.0, 0.72)], 20, 10), "market/sacks")]
    m["fish_table"] = [(box(1.6, 0.8, 0.8, 4), "market/fish_ice"),
                       (lathe([(0.0, 0.0), (0.2, 0.0), (0.25, 0.3), (0.15, 0.45)], 20, 6).moved((0.5, 0.8, 0)), "market/pottery")]
    m["hanging_flowers"] = [(merge([quad((-0.4, 0, 0), (0.8, 0, 0), (0, 0.6, 0), 2, 2).moved(yaw=a) for a in (0, math.pi / 2)]),
                             "market/hanging_flowers")]
    m["lamp_post"] = [(cylinder(0.07, 4.0, 16, 8), "props/lamp_post"),
                      (box(0.35, 0.5, 0.35, 2, base=4.0), "market/lantern")]
    fr, fh = FOUNTAIN_TRIANGLES
    m["fountain"] = [
        (lathe([(0.0, 0.0), (3.0, 0.0), (3.0, 0.6), (2.7, 0.6), (2.6, 0.2), (0.5, 0.2), (0.4, 1.6),
                (1.0, 1.8), (0.9, 2.0), (0.3, 2.0), (0.2, 3.0), (0.0, 3.1)], fr, fh), "props/fountain_stone"),
        (quad((-2.6, 0.5, 2.6), (5.2, 0, 0), (0, 0, -5.2), 8, 8), "props/fountain_water"),
    ]
    m["well"] = [(lathe([(0.9, 0.0), (0.9, 0.9), (0.7, 0.9), (0.7, 0.2)], 32, 6), "props/well")]
    m["bench"] = [(merge([box(1.8, 0.06, 0.45, 2, base=0.45), box(1.8, 0.5, 0.05, 2, base=0.5).moved((0, 0, -0.2)),
                          box(0.08, 0.45, 0.4, 1).moved((-0.8, 0, 0)), box(0.08, 0.45, 0.4, 1).moved((0.8, 0, 0))]),
                   "props/bench")]
    m["bollard"] = [(lathe([(0.0, 0.0), (0.15, 0.0), (0.12, 0.8), (0.14, 0.85), (0.0, 0.95)], 20, 10), "props/bollard")]
    m["hand_cart"] = [(merge([box(1.4, 0.4, 0.9, 3, base=0.5), lathe([(0.0, -0.05), (0.35, -0.05), (0.35, 0.05), (0.0, 0.05)], 20, 3)
                              .moved((0, 0.35, 0.5), yaw=0)]), "props/hand_cart")]
    m["decal"] = [(quad((-1, 0.01, 1), (2, 0, 0), (0, 0, -2), 1, 1), "props/graffiti"),
                  (quad((-0.6, 1.5, 0.02), (1.2, 0, 0), (0, 0.6, 0), 1, 1), "props/sign_decal"),
                  (quad((-0.5, 1.0, 0.03), (1.0, 0, 0), (0, 0.75, 0), 1, 1), "market/poster")]
    m["tree"] = [(lathe([(0.3, 0.0), (0.2, 2.0), (0.12, 4.0)], 16, 12), "nature/tree_bark"),
                 (merge([quad((-1.5, 2.5, 0), (3, 0, 0), (0, 2.5, 0), 3, 3).moved(yaw=a) for a in (0, math.pi / 3, 2 * math.pi / 3)]),
                  "nature/leaves"),
                 (quad((-0.5, 0.01, 0.5), (1, 0, 0), (0, 0, -1), 2, 2), "nature/moss")]
    m["ivy_wall"] = [(quad((-2, 0, 0), (4, 0, 0), (0, 5, 0), 4, 6), "nature/ivy"),
                     (quad((-1, 0, 0.02), (2, 0, 0), (0, 3, 0), 2, 4), "nature/vines")]
    m["grass_tuft"] = [(merge([quad((-0.3, 0, 0), (0.6, 0, 0), (0, 0.4, 0), 1, 1).moved(yaw=a) for a in (0, math.pi / 2)]),
                        "nature/grass")]
    return m


def layout(rng: np.random.Generator) -> list[tuple[str, str, tuple, float, tuple]]:
    """(group, mesh, translation, yaw, scale) of every instance, in a fixed order."""
    out: list[tuple[str, str, tuple, float, tuple]] = []

    def add(group, mesh, t, yaw=0.0, s=(1.0, 1.0, 1.0)):
        out.append((group, mesh, tuple(round(float(v), 3) for v in t), round(float(yaw), 4), tuple(round(float(v), 3) for v in s)))

    for ix in range(30):  # the street: 60 m x 8 m of cobble tiles
        for iz in range(4):
            add("Street", "cobble_tile", (ix * 2 - 29, 0, iz * 2 - 3), (ix + iz) % 4 * math.pi / 2)
    for side in (-1, 1):
        for ix in range(30):
            add("Street", "sidewalk_tile", (ix * 2 - 29, 0, side * 5), 0 if side > 0 else math.pi)
    for ix in range(5):
        for iz in range(4):
            add("Street", "flagstone_tile", (36 + ix * 2, 0, iz * 2 - 3))
    add("Street", "plaza", (40, 0, 0))
    for side in (-1, 1):
        for i in range(7):
            x = -26 + i * 8.5
            mesh = ("house_plaster", "house_brick", "house_ochre")[(i + (side > 0)) % 3]
            add("Houses", mesh, (x, 0, side * 10.5), 0 if side < 0 else math.pi)
    add("Houses", "clocktower", (40, 0, -10))
    for i in range(12):  # stalls down the middle, awnings on the house fronts
        add("Market", "stall", (-24 + i * 4.2, 0, 0 if i % 2 else 1.5), rng.uniform(-0.1, 0.1))
    for side in (-1, 1):
        for i in range(7):
            add("Market", "awning", (-26 + i * 8.5, 0, side * 6.9), 0 if side > 0 else math.pi)
    add("Market", "tent", (44, 0, 5))
    add("Market", "tent", (36, 0, 6))
    for _ in range(60):
        add("Market", "crate", (rng.uniform(-28, 28), 0, rng.choice([-3.5, 3.5]) + rng.uniform(-0.6, 0.6)), rng.uniform(0, math.pi))
    for _ in range(40):
        add("Market", "barrel", (rng.uniform(-28, 28), 0, rng.choice([-4.0, 4.0]) + rng.uniform(-0.4, 0.4)))
    for i in range(24):
        add("Market", "goods_basket", (-24 + (i // 2) * 4.2 + rng.uniform(-1, 1), 1.0, rng.uniform(-0.5, 0.5)))
    for _ in range(30):
        add("Market", "sack", (rng.uniform(-28, 28), 0, rng.choice([-2.8, 2.8])), rng.uniform(0, math.pi))
    for i in range(6):
        add("Market", "fish_table", (-20 + i * 8, 0, -2.5))
    for side in (-1, 1):
        for i in range(10):
            add("Market", "hanging_flowers", (-27 + i * 6, 3.4, side * 7.0))
    for side in (-1, 1):
        for i in range(12):
            add("Props", "lamp_post", (-27 + i * 5, 0, side * 4.6))
    add("Props", "fountain", (40, 0, 0))
    add("Props", "well", (-32, 0, 0))
    for i in range(10):
        add("Props", "bench", (34 + (i % 5) * 2.5, 0, -4.5 if i < 5 else 4.5), 0 if i < 5 else math.pi)
    for i in range(16):
        add("Props", "bollard", (-30 + i * 4, 0, 3.9 if i % 2 else -3.9))
    for _ in range(4):
        add("Props", "hand_cart", (rng.uniform(-25, 25), 0, rng.choice([-3.0, 3.0])), rng.uniform(0, math.pi))
    for _ in range(8):
        add("Props", "decal", (rng.uniform(-28, 28), 0, rng.uniform(-3, 3)), rng.uniform(0, math.pi))
    for i in range(8):
        add("Nature", "tree", (34 + (i % 4) * 4, 0, -7 if i < 4 else 7))
    for side in (-1, 1):
        for i in range(6):
            add("Nature", "ivy_wall", (-24 + i * 9, 0, side * 7.05), 0 if side > 0 else math.pi)
    for _ in range(40):
        add("Nature", "grass_tuft", (34 + rng.uniform(0, 12), 0, rng.uniform(-6, 6)), rng.uniform(0, math.pi))
    return out


class Gltf:
    """Accumulates a glTF 2.0 document and its one binary buffer."""

    def __init__(self):
        self.bin = bytearray()
        self.doc: dict = {
            "asset": {"version": "2.0", "generator": GENERATOR, "copyright": "CC0: procedural demo content"},
            "extensionsUsed": ["KHR_texture_basisu", "MSFT_texture_dds"],
            "scene": 0, "scenes": [], "nodes": [], "meshes": [], "materials": [], "textures": [],
            "images": [], "samplers": [{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}],
            "accessors": [], "bufferViews": [], "buffers": [],
        }
        self.images: dict[str, int] = {}

    def view(self, data: bytes, target: int) -> int:
        self.bin += bytes(-len(self.bin) % 4)
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data), "target": target})
        self.bin += data
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, arr: np.ndarray, kind: str, *, indices: bool = False, minmax: bool = False) -> int:
        ctype = {np.dtype("float32"): 5126, np.dtype("uint16"): 5123, np.dtype("uint32"): 5125}[arr.dtype]
        acc = {"bufferView": self.view(arr.tobytes(), 34963 if indices else 34962), "componentType": ctype,
               "count": int(arr.shape[0]), "type": kind}
        if minmax:
            acc["min"] = [float(v) for v in arr.min(axis=0)]
            acc["max"] = [float(v) for v in arr.max(axis=0)]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def texture(self, uri: str) -> int:
        if uri not in self.images:
            image = {"uri": uri}
            ext = uri.rsplit(".", 1)[-1]
            mime = {"png": "image/png", "jpg": "image/jpeg", "ktx2": "image/ktx2", "dds": "image/vnd-ms.dds"}.get(ext)
            if mime:
                image["mimeType"] = mime
            self.doc["images"].append(image)
            self.images[uri] = len(self.doc["images"]) - 1
            tex: dict = {"sampler": 0, "source": self.images[uri]}
            if ext == "dds":
                tex["extensions"] = {"MSFT_texture_dds": {"source": self.images[uri]}}
            elif ext == "ktx2" and "/lantern_" in uri:  # UASTC: a Basis Universal texture
                tex["extensions"] = {"KHR_texture_basisu": {"source": self.images[uri]}}
            self.doc["textures"].append(tex)
        return self.images[uri]  # one texture per image, same index

    def material(self, m: Material) -> int:
        pbr: dict = {"baseColorTexture": {"index": self.texture(m.albedo)}, "metallicFactor": round(m.metal, 3), "roughnessFactor": 1.0}
        mat: dict = {"name": m.name, "pbrMetallicRoughness": pbr, "normalTexture": {"index": self.texture(m.normal)}}
        if m.orm:
            pbr["metallicRoughnessTexture"] = {"index": self.texture(m.orm)}
            mat["occlusionTexture"] = {"index": self.texture(m.orm)}
        if m.roughness:
            pbr["metallicRoughnessTexture"] = {"index": self.texture(m.roughness)}
        if m.ao:
            mat["occlusionTexture"] = {"index": self.texture(m.ao)}
        if m.alpha:
            mat["alphaMode"] = "MASK"
            mat["alphaCutoff"] = 0.5
            mat["doubleSided"] = True
        self.doc["materials"].append(mat)
        return len(self.doc["materials"]) - 1

    def mesh(self, name: str, prims: list[tuple[Part, int]], force_u32: bool = False) -> int:
        out = []
        for part, material in prims:
            attrs = {
                "POSITION": self.accessor(part.pos.astype(np.float32), "VEC3", minmax=True),
                "NORMAL": self.accessor(part.nrm.astype(np.float32), "VEC3"),
                "TANGENT": self.accessor(tangents(part).astype(np.float32), "VEC4"),
                "TEXCOORD_0": self.accessor(part.uv.astype(np.float32), "VEC2"),
            }
            wide = force_u32 or len(part.pos) > 65535
            idx = part.idx.astype(np.uint32 if wide else np.uint16)
            out.append({"attributes": attrs, "indices": self.accessor(idx, "SCALAR", indices=True),
                        "material": material, "mode": 4})
        self.doc["meshes"].append({"name": name, "primitives": out})
        return len(self.doc["meshes"]) - 1


def write_level(out: Path, materials: list[Material]) -> dict[str, int]:
    g = Gltf()
    mat_index = {m.name: g.material(m) for m in materials}
    meshes = build_meshes()
    mesh_index: dict[str, int] = {}
    stats = {"meshes": 0, "instances": 0, "triangles": 0, "instanced_triangles": 0}
    tris: dict[str, int] = {}
    for name, prims in meshes.items():  # dict order is the build order: fixed
        mesh_index[name] = g.mesh(name, [(p, mat_index[mat]) for p, mat in prims], force_u32=(name == "fountain"))
        tris[name] = sum(len(p.idx) // 3 for p, _ in prims)
    placed = layout(np.random.default_rng(seed_of("layout")))
    groups: dict[str, list[int]] = {}
    counts: dict[str, int] = {}
    for group, mesh, t, yaw, s in placed:
        counts[mesh] = counts.get(mesh, 0) + 1
        node: dict = {"name": f"{mesh}.{counts[mesh]:03d}", "mesh": mesh_index[mesh], "translation": list(t)}
        if yaw:
            node["rotation"] = [0.0, round(math.sin(yaw / 2), 6), 0.0, round(math.cos(yaw / 2), 6)]
        if s != (1.0, 1.0, 1.0):
            node["scale"] = list(s)
        g.doc["nodes"].append(node)
        groups.setdefault(group, []).append(len(g.doc["nodes"]) - 1)
        stats["instanced_triangles"] += tris[mesh]
    group_nodes = []
    for group in ("Street", "Houses", "Market", "Props", "Nature"):
        g.doc["nodes"].append({"name": group, "children": groups[group]})
        group_nodes.append(len(g.doc["nodes"]) - 1)
    g.doc["nodes"].append({"name": "LanternRow", "children": group_nodes})
    g.doc["scenes"].append({"name": "Lantern Row (market street at dusk)", "nodes": [len(g.doc["nodes"]) - 1]})
    g.bin += bytes(-len(g.bin) % 4)
    g.doc["buffers"].append({"uri": "level.bin", "byteLength": len(g.bin)})
    unused = set(mesh_index) - set(counts)
    if unused:  # pragma: no cover - a mesh nobody places is a mistake in this script
        raise SystemExit(f"meshes never placed: {sorted(unused)}")
    write(out / "level.bin", bytes(g.bin))
    write(out / "level.gltf", (json.dumps(g.doc, indent=1) + "\n").encode("utf-8"))
    stats.update(meshes=len(mesh_index), instances=len(placed), triangles=sum(tris.values()), mesh_index=mesh_index,
                 bin_bytes=len(g.bin), max_mesh_triangles=max(tris.values()), mesh_triangles=tris)
    return stats


# =============================================================================================
# The team's config
# =============================================================================================

CONFIG = """\
# texbudget.toml — Lantern Row (market street at dusk)
#
# The budget the art team signed off with rendering: we ship on PC, the minimum spec is an
# 8 GB card at 1080p, and the marketing shots are 4K with ray-traced reflections on NVIDIA.
# Keys and defaults: see the texbudget README ("Configuration").

[budget]
cards = ["8GB", "12GB", "16GB", "24GB"]   # min spec, recommended, high, enthusiast
resolutions = ["1080p", "1440p", "4k"]
rt = ["off", "nvidia"]                   # RT reflections are an NVIDIA-first feature for launch
quality = ["ultra", "high"]              # texture presets: 8 GB cards ship with "high"
platform = "desktop"                     # BC1/BC3/BC5/BC4/BC6H, UI uncompressed (see README)
renderer = "deferred"
shadows = "csm"
reserve = "7%"                           # Windows compositor, overlays, the browser on screen 2
headroom = "5%"                          # under this much spare VRAM a cell turns "tight"

[scan]
exclude = ["**/*.blend", "**/*.psd"]     # working files never ship

[limits]
max_size = 8192               # hero surfaces may be 8K; nothing bigger
max_bytes = "200MiB"          # no single texture above 200 MiB in VRAM
require_mips = true           # DDS/KTX2 must carry their mip chains
forbid_uncompressed = true    # RGBA8 in VRAM is for UI only (see the rule below)
multiple_of_4 = true          # BC blocks are 4x4: pad or resize in the DCC, not on the GPU
max_triangles = 20000         # per mesh; hero props get a LOD chain instead
forbid_unused = true          # textures no material uses do not ship

# The HUD atlas is drawn 1:1 and stays uncompressed on purpose.
[[rule]]
match = "textures/ui/*"
role = "ui"
"""


# =============================================================================================
# The demo's README: what is in the scene, what is planted and what `check` must say
# =============================================================================================


def readme(st: dict) -> str:
    mib = float(1 << 20)
    vram = st["vram_by_file"]

    def size_of(rel: str) -> str:
        return f"{vram[rel] / mib:.2f} MiB"

    kinds = ", ".join(f"{n} {ext.upper()}" for ext, n in sorted(st["kinds"].items(), key=lambda kv: (-kv[1], kv[0])))
    fountain = st["mesh_index"]["fountain"]
    n = CLOCKTOWER[1]
    bc5_8k = chain_bytes("BC5_UNORM", n, n)
    awning_bc5 = chain_bytes("BC5_UNORM", 2048, 2048)
    old_cart = sum(v for k, v in vram.items() if k.startswith(UNUSED.path))
    return f"""# Lantern Row: the texbudget demo scene

A market street at dusk: sixty metres of cobbles, fourteen houses, a clock tower, twelve
market stalls and a fountain plaza. It is small on disk ({st["disk"] / mib:.1f} MiB) and large in
VRAM (about {st["texture_vram"] / (1 << 30):.2f} GiB of textures on the desktop profile), because
the tool reads headers: KTX2 and DDS payloads are zero-filled and supercompressed, and the
source images are flat colour drawn at low resolution.

**Generated; do not edit by hand.** Everything here, this file included, is written by
`python assets/make_demo.py --out assets/demo`, deterministically (byte-identical on re-run).
Change the scene by editing the `SETS` table at the top of that script.

```
texbudget tui assets/demo               # the matrix, the assets, the fixes
texbudget scan assets/demo              # the same as a report (--format json for tools)
texbudget check assets/demo             # exits 1: the planted problems below
```

## What is in it

| | |
|---|---|
| level | `level.gltf` + `level.bin` ({st["bin_bytes"] / mib:.2f} MiB): {st["meshes"]} meshes, {st["instances"]} instances (nodes), {st["instanced_triangles"]:,} triangles counting instances ({st["triangles"]:,} unique) |
| textures | {st["textures"]} files under `textures/`: {kinds} |
| texture sets | {len(SETS) + 2} PBR sets named `<name>_albedo`, `_normal`, `_orm` (or `_roughness` + `_ao` masks), 512 to 8192 px |
| containers | KTX2 BC7/BC5 with full mip chains, Zstandard (scheme 2) or ZLIB (scheme 3) supercompressed; KTX2 arrays ({ARRAY_LAYERS} layers); KTX2 UASTC (transcoded to BC7 on desktop); a BC6H sky cubemap (`{SKY[0]}`); DDS BC7/BC5 with mips; PNG, TGA (RLE) and JPEG sources; a Radiance HDR light probe (`{PROBE[0]}`); a UI atlas (`{HUD[0]}`) |
| engine sidecars | {st["sidecars"][".import"]} Godot 4 `.import` files (`market/awning_*`, `nature/ivy_*`: VRAM compressed, a `process/size_limit` of 1024) and {st["sidecars"][".meta"]} Unity `.meta` files (`market/crate_*`, `market/barrel_*` capped at 512, `props/bench_*`: Standalone overrides to BC7/BC5) |
| budget | `texbudget.toml`: cards 8/12/16/24 GB, 1080p/1440p/4K, RT off and NVIDIA, ultra and high, desktop, and the team's `[limits]` |

The sky cubemap, the light probe and the HUD atlas are used by the engine (sky, reflections,
HUD), not by a material of the level, so no glTF material names them.

## The budget story

Desktop profile, deferred renderer, two texture presets: ultra and high. Textures dominate
(about {st["texture_vram"] / (1 << 30):.2f} GiB at ultra, a quarter of that at high, which drops
the top mip); meshes are a few MiB and the BVH a few more, because the triangle count comes
from instancing. Render targets grow from about 0.2 GiB at 1080p to about 1 GiB at 4K with ray
tracing. The intended verdicts (run `texbudget scan assets/demo` for the numbers of your
texbudget version):

| scenario | 8 GB | 12 GB | 16 GB | 24 GB |
|---|---|---|---|---|
| ultra, 1080p / 1440p / 4K, RT off | **over** | fits | fits | fits |
| ultra, 1080p / 1440p, RT NVIDIA | **over** | fits | fits | fits |
| ultra, 4K, RT NVIDIA | **over** | tight | fits | fits |
| high, every resolution and RT setting | fits | fits | fits | fits |

So: ultra textures need the 12 GB card, which is tight at 4K with ray tracing; 8 GB cards
ship the high preset. For every over or tight cell `scan` lists the changes that would make
it fit (fixing the first planted problem alone, the uncompressed clock-tower normal map,
saves {(vram[CLOCKTOWER[0] + "_normal.ktx2"] - bc5_8k) / mib:.0f} MiB).

## Planted problems: what `texbudget check assets/demo` must flag

| # | file | what is wrong | `[limits]` rule | the fix |
|---|---|---|---|---|
| 1 | `textures/{CLOCKTOWER[0]}_normal.ktx2` | an 8192x8192 normal map stored uncompressed: KTX2 vkFormat 37 `R8G8B8A8_UNORM` with a full mip chain, {size_of(CLOCKTOWER[0] + "_normal.ktx2")} in VRAM (ZLIB keeps it at {st_disk(st, CLOCKTOWER[0] + "_normal.ktx2")} on disk) | `forbid_uncompressed`, `max_bytes = "200MiB"` | re-encode as BC5: {bc5_8k / mib:.2f} MiB |
| 2 | `textures/{GODOT_LOSSLESS}` (+ `.import`) | Godot `compress/mode=0` (Lossless) with `detect_3d/compress_to=0`: the engine uploads it as RGBA8, {size_of(GODOT_LOSSLESS)} | `forbid_uncompressed` | `compress/mode=2` (VRAM Compressed), normal map: BC5, {awning_bc5 / mib:.2f} MiB |
| 3 | `textures/{POSTER[0]}` | {POSTER[1]}x{POSTER[2]}: {POSTER[2]} is not a multiple of 4, so BC blocks pad it and some engines refuse it | `multiple_of_4` | resize to 1000x752 or 1024x768 |
| 4 | `textures/{SIGN_DECAL[0]}` | a {SIGN_DECAL[1]}x{SIGN_DECAL[1]} DDS (legacy DXT1) saved with mipMapCount 1: it shimmers at a distance and costs its full size at every distance | `require_mips` | re-export with mips (+1/3: {chain_bytes("BC1_RGB_UNORM", SIGN_DECAL[1], SIGN_DECAL[1]) / mib:.2f} MiB) |
| 5 | `textures/{UNUSED.path}_albedo.png`, `_normal.png`, `_orm.png` | no material of `level.gltf` uses them (the cart was cut), yet a tree scan loads them: {old_cart / mib:.2f} MiB for nothing | `forbid_unused` | delete them, or exclude them in `[scan]` |
| 6 | `level.gltf#mesh/{fountain}` (`fountain`) | {st["mesh_triangles"]["fountain"]:,} triangles, exported without decimation | `max_triangles = 20000` | decimate, or add LODs |

Not planted, but worth a look in the TUI: every 8K set (the street, the facades, the roofs,
the fountain) is a candidate for a 4096 cap on the 8 GB card; the Unity barrel is already capped
to 512 by its `.meta`, and the Godot ivy to 1024 by `process/size_limit`.
"""


def st_disk(st: dict, rel: str) -> str:
    return f"{st['file_bytes'][rel] / 1024:.0f} KiB"


# =============================================================================================
# The Godot 4 project: two levels that share props (assets/godot_demo, issue 23)
#
# "Lantern Row" as a Godot 4.6 project: a main menu and two levels, the market and the harbour,
# that share the lantern posts, the crates and their materials. Every file is written as the
# Godot 4.6 editor writes it (the official demo projects after their 4.6 upgrade are the model:
# `[gd_scene format=3 uid=…]` without load_steps, `unique_id` on every node, ext_resource ids
# `N_xxxxx`, `.import` files with `[remap]`/`[deps]`/`[params]`, `.uid` files for scripts and
# shaders). Uids and ids are derived from names (sha256), never random, so the project is the
# same on every run. Textures are flat PNGs drawn at low resolution, as in the glTF demo: a few
# KiB on disk, megabytes in VRAM once Godot compresses them.
# =============================================================================================

GODOT_FOLDER = "godot_demo"  # beside the glTF demo: a scan of assets/demo must not change
GODOT_FEATURES = '"4.6", "Forward Plus"'
#: Godot's uid and scene-id alphabet: 'a'..'y' then '0'..'8' (ResourceUID::id_to_text and
#: Resource::generate_scene_unique_id count ('z' - 'a') letters and ('9' - '0') digits).
GODOT_ID_CHARS = "abcdefghijklmnopqrstuvwxy012345678"


@dataclass(frozen=True)
class GodotTex:
    res: str  # path inside the project
    size: tuple[int, int]
    role: str  # albedo, normal, orm, emission, ui
    look: Set  # the pattern it is drawn from (low_maps)
    note: str = ""


def gd_tex(res: str, n: int, role: str, look: str, color: tuple[int, int, int], rough: int = 170, metal: int = 0,
           note: str = "") -> GodotTex:
    return GodotTex(res, (n, n), role, Set(res.rsplit(".", 1)[0], n, "png", look, color, rough, metal), note)


GODOT_TEXTURES: tuple[GodotTex, ...] = (
    gd_tex("textures/cobble_albedo.png", 4096, "albedo", "cobble", (96, 88, 80), 200),
    gd_tex("textures/cobble_normal.png", 4096, "normal", "cobble", (96, 88, 80)),
    gd_tex("textures/planks_albedo.png", 4096, "albedo", "planks", (112, 84, 58), 190),
    gd_tex("textures/planks_normal.png", 4096, "normal", "planks", (112, 84, 58)),
    gd_tex("textures/iron_albedo.png", 1024, "albedo", "metal", (44, 46, 50), 120, 230),
    gd_tex("textures/iron_normal.png", 1024, "normal", "metal", (44, 46, 50)),
    gd_tex("textures/brass_albedo.png", 1024, "albedo", "metal", (180, 140, 60), 90, 240),
    gd_tex("textures/brass_orm.png", 1024, "orm", "metal", (180, 140, 60), 90, 240),
    gd_tex("textures/lantern_glow.png", 512, "emission", "glass", (255, 190, 110)),
    gd_tex("textures/crate_albedo.png", 2048, "albedo", "planks", (150, 110, 70), 190),
    gd_tex("textures/crate_normal.png", 2048, "normal", "planks", (150, 110, 70)),
    gd_tex("textures/awning_albedo.png", 2048, "albedo", "stripes", (170, 50, 45), 210),
    gd_tex("textures/water_foam.png", 1024, "albedo", "noise", (200, 215, 220), 60),
    GodotTex("ui/title_card.png", (1920, 1080), "ui", Set("ui/title_card", 0, "png", "stripes", (30, 24, 40))),
    gd_tex("textures/test/uv_checker.png", 4096, "albedo", "tiles", (128, 128, 128),
           note="a UV test texture left in the project: no level loads it"),
)
GODOT_UNUSED = "textures/test/uv_checker.png"

#: The two levels: the ground (material, columns x rows of 2 m tiles in one MultiMesh), the
#: lantern posts, the market's stalls (x, z, quarter turns; each holds a crate stack) and the
#: crate stacks standing on their own; the harbour's water is one more paving tile.
GODOT_LEVELS: dict[str, dict] = {
    "market": {"ground": ("materials/cobble.tres", 8, 8), "posts": [(-6, -6), (-6, 0), (-6, 6), (6, -6), (6, 0), (6, 6)],
               "stalls": [(-4, -2, 0), (-4, 2, 0), (4, -2, 2), (4, 2, 2)], "stacks": [(0, 6)], "water": False},
    "harbor": {"ground": ("materials/planks.tres", 8, 5), "posts": [(-6, -4), (-2, -4), (2, -4), (6, -4)],
               "stalls": [], "stacks": [(-3, 2), (2, 3)], "water": True},
}


def godot_id(name: str, digits: int) -> str:
    """``digits`` characters of Godot's id alphabet from a name (a fixed hash, not random)."""
    n = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")
    out = ""
    for _ in range(digits):
        n, c = divmod(n, len(GODOT_ID_CHARS))
        out += GODOT_ID_CHARS[c]
    return out


def godot_uid(res: str) -> str:
    """A resource uid as Godot writes one: a 63-bit id in base 34, most significant digit
    first (``ResourceUID::id_to_text``); derived from the path, as the official demos' are."""
    n = int.from_bytes(hashlib.sha256(("uid:" + res).encode("utf-8")).digest()[:8], "big") & 0x7FFF_FFFF_FFFF_FFFF
    digits = ""
    while True:
        n, c = divmod(n, len(GODOT_ID_CHARS))
        digits = GODOT_ID_CHARS[c] + digits
        if not n:
            return "uid://" + digits


def gd_num(x: float) -> str:
    """A number inside a constructor (``Vector3(1, 0.5, 0)``), as Godot writes a real: the
    shortest text that reads back as the same float32, integral values without a point."""
    f = np.float32(x)
    if float(f).is_integer():
        return str(int(f))
    return np.format_float_positional(f, unique=True, trim="-")


def gd_real(x: float) -> str:
    """A float property on its own line (``roughness = 1.0``)."""
    text = gd_num(x)
    return text if "." in text else text + ".0"


def gd_transform(origin: tuple[float, float, float], scale: tuple[float, float, float] = (1, 1, 1), quarter_turns: int = 0) -> str:
    """``Transform3D(basis rows…, origin)`` of a scale and a yaw in quarter turns (exact)."""
    c, s = ((1, 0), (0, 1), (-1, 0), (0, -1))[quarter_turns % 4]
    sx, sy, sz = scale
    basis = (c * sx, 0, s * sz, 0, sy, 0, -s * sx, 0, c * sz)
    return "Transform3D(" + ", ".join(gd_num(v) for v in (*basis, *origin)) + ")"


def texture_import(res: str, *, mode: int, normal_map: int = 0, mipmaps: bool = True, detect_3d: int = 0) -> str:
    """A ``.import`` for ResourceImporterTexture as Godot 4.6 writes it on a desktop project
    (S3TC/BPTC only). A texture a 3D material uses has been switched by the editor to VRAM
    Compressed (``compress/mode=2``, ``detect_3d/compress_to=0``), a normal map to
    ``compress/normal_map=1``; a 2D texture keeps Lossless (0) and ``detect_3d/compress_to=1``."""
    name = res.rsplit("/", 1)[-1]
    digest = hashlib.md5(("res://" + res).encode("utf-8")).hexdigest()  # Godot: source path's md5
    if mode == 2:
        dest = f"res://.godot/imported/{name}-{digest}.s3tc.ctex"
        remap = (f'path.s3tc="{dest}"\nmetadata={{\n"imported_formats": ["s3tc_bptc"],\n"vram_texture": true\n}}\n')
    else:
        dest = f"res://.godot/imported/{name}-{digest}.ctex"
        remap = f'path="{dest}"\nmetadata={{\n"vram_texture": false\n}}\n'
    return (
        f'[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\nuid="{godot_uid(res)}"\n{remap}\n'
        f'[deps]\n\nsource_file="res://{res}"\ndest_files=["{dest}"]\n\n'
        "[params]\n\n"
        f"compress/mode={mode}\ncompress/high_quality=false\ncompress/lossy_quality=0.7\n"
        "compress/uastc_level=0\ncompress/rdo_quality_loss=0.0\ncompress/hdr_compression=1\n"
        f"compress/normal_map={normal_map}\ncompress/channel_pack=0\n"
        f"mipmaps/generate={'true' if mipmaps else 'false'}\nmipmaps/limit=-1\n"
        'roughness/mode=0\nroughness/src_normal=""\n'
        "process/channel_remap/red=0\nprocess/channel_remap/green=1\nprocess/channel_remap/blue=2\n"
        "process/channel_remap/alpha=3\nprocess/fix_alpha_border=true\nprocess/premult_alpha=false\n"
        "process/normal_map_invert_y=false\nprocess/hdr_as_srgb=false\nprocess/hdr_clamp_exposure=false\n"
        f"process/size_limit=0\ndetect_3d/compress_to={detect_3d}\n"
    )


def scene_import(res: str, external_materials: dict[str, str]) -> str:
    """A ``.import`` for ResourceImporterScene (a ``.glb``) as Godot 4.6 writes it; a material
    extracted to a file is listed under ``_subresources``."""
    name = res.rsplit("/", 1)[-1]
    dest = f"res://.godot/imported/{name}-{hashlib.md5(('res://' + res).encode('utf-8')).hexdigest()}.scn"
    if external_materials:
        entries = ",\n".join(
            f'"{material}": {{\n"use_external/enabled": true,\n"use_external/fallback_path": "res://{path}",\n'
            f'"use_external/path": "{godot_uid(path)}"\n}}'
            for material, path in sorted(external_materials.items()))
        subresources = f'_subresources={{\n"materials": {{\n{entries}\n}}\n}}\n'
    else:
        subresources = "_subresources={}\n"
    return (
        f'[remap]\n\nimporter="scene"\nimporter_version=1\ntype="PackedScene"\nuid="{godot_uid(res)}"\npath="{dest}"\n\n'
        f'[deps]\n\nsource_file="res://{res}"\ndest_files=["{dest}"]\n\n'
        "[params]\n\n"
        'nodes/root_type=""\nnodes/root_name=""\nnodes/root_script=null\nnodes/apply_root_scale=false\n'
        "nodes/root_scale=1.0\nnodes/import_as_skeleton_bones=false\nnodes/use_name_suffixes=false\n"
        "nodes/use_node_type_suffixes=false\nmeshes/ensure_tangents=true\nmeshes/generate_lods=true\n"
        "meshes/create_shadow_meshes=true\nmeshes/light_baking=1\nmeshes/lightmap_texel_size=0.2\n"
        "meshes/force_disable_compression=false\nskins/use_named_skins=true\nanimation/import=true\n"
        "animation/fps=30\nanimation/trimming=false\nanimation/remove_immutable_tracks=true\n"
        'animation/import_rest_as_RESET=false\nimport_script/path=""\nmaterials/extract=0\n'
        'materials/extract_format=0\nmaterials/extract_path=""\n'
        f"{subresources}gltf/naming_version=2\ngltf/embedded_image_handling=1\n"
    )


class GodotText:
    """One ``.tscn`` / ``.tres`` as Godot 4.6's ResourceFormatSaverText writes it: the header,
    ext_resources (ids ``N_xxxxx``, in id order), sub_resources, then the main resource or the
    nodes and connections, sections one blank line apart, one newline at the end."""

    def __init__(self, res: str, *, resource_type: str = "", format: int = 3) -> None:
        self.res, self.resource_type, self.format = res, resource_type, format
        self.ext: list[str] = []
        self.ext_ids: dict[str, str] = {}
        self.sections: list[str] = []
        self.body: list[str] = []

    def ext_res(self, kind: str, path: str) -> str:
        if path not in self.ext_ids:
            rid = f"{len(self.ext) + 1}_{godot_id(self.res + '>' + path, 5)}"
            self.ext_ids[path] = rid
            self.ext.append(f'[ext_resource type="{kind}" uid="{godot_uid(path)}" path="res://{path}" id="{rid}"]')
        return f'ExtResource("{self.ext_ids[path]}")'

    def sub_res(self, kind: str, name: str, props: list[tuple[str, str]]) -> str:
        sid = f"{kind}_{godot_id(self.res + '#' + name, 5)}"
        self.sections.append("\n".join([f'[sub_resource type="{kind}" id="{sid}"]', *(f"{k} = {v}" for k, v in props)]))
        return f'SubResource("{sid}")'

    def node(self, name: str, kind: str | None = None, parent: str | None = None, instance: str | None = None,
             props: Iterable[tuple[str, str]] = ()) -> None:
        path = name if parent is None else f"{parent}/{name}"
        head = f'[node name="{name}"'
        if kind:
            head += f' type="{kind}"'
        if parent is not None:
            head += f' parent="{parent}"'
        head += f" unique_id={zlib.crc32((self.res + ':' + path).encode('utf-8')) & 0x7FFFFFFF}"
        if instance:
            head += f" instance={instance}"
        self.body.append("\n".join([head + "]", *(f"{k} = {v}" for k, v in props)]))

    def connection(self, signal: str, source: str, target: str, method: str) -> None:
        self.body.append(f'[connection signal="{signal}" from="{source}" to="{target}" method="{method}"]')

    def resource(self, props: list[tuple[str, str]]) -> None:
        self.body.append("\n".join(["[resource]", *(f"{k} = {v}" for k, v in props)]))

    def text(self) -> str:
        if self.resource_type:
            head = f'[gd_resource type="{self.resource_type}" format={self.format} uid="{godot_uid(self.res)}"]'
        else:
            head = f'[gd_scene format={self.format} uid="{godot_uid(self.res)}"]'
        ext = ["\n".join(self.ext)] if self.ext else []
        connections = [b for b in self.body if b.startswith("[connection")]
        rest = [b for b in self.body if not b.startswith("[connection")]
        blocks = [head, *ext, *self.sections, *rest]
        if connections:
            blocks.append("\n".join(connections))
        return "\n\n".join(blocks) + "\n"


def octahedral(v: np.ndarray) -> np.ndarray:
    """Vector3::octahedron_encode: unit vectors -> [0, 1]^2."""
    n = v / np.sum(np.abs(v), axis=1, keepdims=True)
    x, y = n[:, 0].copy(), n[:, 1].copy()
    back = n[:, 2] < 0
    x[back] = (1 - np.abs(n[back, 1])) * np.where(n[back, 0] >= 0, 1, -1)
    y[back] = (1 - np.abs(n[back, 0])) * np.where(n[back, 1] >= 0, 1, -1)
    return np.stack([x * 0.5 + 0.5, y * 0.5 + 0.5], axis=1)


def array_mesh_surface(part: Part, material: str | None) -> str:
    """One ``_surfaces`` entry of an ArrayMesh as Godot 4.2+ stores it (format version 2,
    attributes not compressed): vertex_data = every position (f32x3), then every normal and
    tangent (u16x2 octahedral each); attribute_data = UV (f32x2); index_data u16; Godot's
    clockwise winding. Base64 PackedByteArray, so the file is format=4."""
    fmt = 1 | 2 | 4 | 16 | 4096 | (1 << 35)  # VERTEX NORMAL TANGENT TEX_UV INDEX, format version 2
    pos = part.pos.astype(np.float32)
    tan = tangents(part)
    normal = octahedral(part.nrm)
    tangent = octahedral(tan[:, :3])
    tangent[:, 1] = np.maximum(tangent[:, 1], 1 / 32767) * 0.5 + 0.5
    tangent[:, 1] = np.where(tan[:, 3] >= 0, tangent[:, 1], 1 - tangent[:, 1])
    packed = np.clip(np.concatenate([normal, tangent], axis=1) * 65535, 0, 65535).astype("<u2")
    vertex = pos.astype("<f4").tobytes() + packed.tobytes()
    attribute = part.uv.astype("<f4").tobytes()
    tri = part.idx.reshape(-1, 3)[:, [0, 2, 1]]  # glTF counter-clockwise -> Godot clockwise
    index = tri.astype("<u2").tobytes()
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    aabb = ", ".join(gd_num(v) for v in (*lo, *(hi - lo)))
    lines = [
        f'"aabb": AABB({aabb}),',
        f'"attribute_data": PackedByteArray("{base64.b64encode(attribute).decode()}"),',
        f'"format": {fmt},',
        f'"index_count": {len(part.idx)},',
        f'"index_data": PackedByteArray("{base64.b64encode(index).decode()}"),',
    ]
    if material:
        lines.append(f'"material": {material},')
    lines += ['"primitive": 3,', '"uv_scale": Vector4(0, 0, 0, 0),', f'"vertex_count": {len(part.pos)},',
              f'"vertex_data": PackedByteArray("{base64.b64encode(vertex).decode()}")']
    return "{\n" + "\n".join(lines) + "\n}"


def glb_bytes(g: Gltf) -> bytes:
    """A binary glTF (GLB) of a Gltf document and its buffer: JSON chunk padded with spaces,
    BIN chunk with zeros (glTF 2.0 §4.4)."""
    g.bin += bytes(-len(g.bin) % 4)
    g.doc["buffers"] = [{"byteLength": len(g.bin)}]
    js = json.dumps(g.doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(g.bin), 0x004E4942) + bytes(g.bin)
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body


def small_gltf() -> Gltf:
    g = Gltf()
    del g.doc["extensionsUsed"]
    g.doc["samplers"] = []
    return g


def gltf_material(g: Gltf, name: str, *, albedo: str | None = None, normal: str | None = None,
                  emission: str | None = None, color: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0),
                  metallic: float = 0.0, roughness: float = 0.8) -> int:
    pbr: dict = {"baseColorFactor": list(color), "metallicFactor": metallic, "roughnessFactor": roughness}
    mat: dict = {"name": name, "pbrMetallicRoughness": pbr}
    if albedo:
        pbr["baseColorTexture"] = {"index": g.texture(albedo)}
    if normal:
        mat["normalTexture"] = {"index": g.texture(normal)}
    if emission:
        mat["emissiveTexture"] = {"index": g.texture(emission)}
        mat["emissiveFactor"] = [1.0, 0.8, 0.5]
    for tex in g.doc["textures"]:
        tex.pop("sampler", None)
    g.doc["materials"].append(mat)
    return len(g.doc["materials"]) - 1


class GodotProject:
    """Writes the project and keeps what the README tells: every file, texture VRAM, meshes."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.files: dict[str, int] = {}
        self.vram: dict[str, int] = {}
        self.triangles: dict[str, int] = {}

    def put(self, rel: str, data: bytes | str) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.files[rel] = write(self.out / rel, raw)

    # --- textures
    def textures(self) -> None:
        for t in GODOT_TEXTURES:
            w, h = t.size
            if t.role == "ui":
                self.put(t.res, png_bytes(upscale(title_card(), w, h)))
                self.put(t.res + ".import", texture_import(t.res, mode=0, mipmaps=False, detect_3d=1))
                self.vram[t.res] = w * h * 4  # Lossless: RGBA8, no mips (a 2D texture)
                continue
            maps = low_maps(t.look)
            pixels = maps["normal" if t.role == "normal" else "orm" if t.role == "orm" else "albedo"]
            if t.res == GODOT_UNUSED:
                pixels = uv_checker()
            self.put(t.res, png_bytes(upscale(pixels, w, h)))
            self.put(t.res + ".import", texture_import(t.res, mode=2, normal_map=1 if t.role == "normal" else 0))
            self.vram[t.res] = source_vram("normal" if t.role == "normal" else "albedo", w, h)

    # --- meshes
    def meshes(self) -> None:
        tile = quad((-1, 0, 1), (2, 0, 0), (0, 0, -2), 8, 8)
        mesh = GodotText("meshes/paving_tile.tres", resource_type="ArrayMesh", format=4)
        mesh.resource([("resource_name", '"PavingTile"'), ("_surfaces", f"[{array_mesh_surface(tile, None)}]")])
        self.put(mesh.res, mesh.text())
        self.triangles["meshes/paving_tile.tres#mesh/0"] = len(tile.idx) // 3
        post = box(0.16, 3.0, 0.16)
        mesh = GodotText("meshes/lamp_post.tres", resource_type="ArrayMesh", format=4)
        iron = mesh.ext_res("Material", "materials/iron.tres")
        mesh.resource([("resource_name", '"LampPost"'), ("_surfaces", f"[{array_mesh_surface(post, iron)}]")])
        self.put(mesh.res, mesh.text())
        self.triangles["meshes/lamp_post.tres#mesh/0"] = len(post.idx) // 3
        # crate.glb: one box, its own material with albedo and normal textures beside it
        g = small_gltf()
        crate = box(0.8, 0.8, 0.8, 2)
        material = gltf_material(g, "Crate", albedo="../textures/crate_albedo.png", normal="../textures/crate_normal.png")
        g.mesh("Crate", [(crate, material)])
        g.doc["nodes"] = [{"name": "Crate", "mesh": 0}]
        g.doc["scenes"] = [{"name": "Scene", "nodes": [0]}]
        self.put("models/crate.glb", glb_bytes(g))
        self.put("models/crate.glb.import", scene_import("models/crate.glb", {}))
        self.triangles["models/crate.glb#mesh/0"] = len(crate.idx) // 3
        # lantern.glb: a brass frame (material extracted to materials/brass.tres by the
        # .import) and four glass panes (the glTF's own material, an emissive texture)
        g = small_gltf()
        frame = box(0.3, 0.5, 0.3)
        pane = quad((-0.12, 0.06, 0.151), (0.24, 0, 0), (0, 0.38, 0), 1, 1)
        brass = gltf_material(g, "Brass", color=(0.7, 0.55, 0.25, 1.0), metallic=1.0, roughness=0.35)
        glass = gltf_material(g, "Glass", emission="../textures/lantern_glow.png", roughness=0.1)
        g.mesh("LanternFrame", [(frame, brass)])
        g.mesh("LanternPane", [(pane, glass)])
        nodes: list[dict] = [{"name": "Frame", "mesh": 0}]
        for i, name in enumerate(("PaneNorth", "PaneEast", "PaneSouth", "PaneWest")):
            nodes.append({"name": name, "mesh": 1, "rotation": [0.0, [0.0, 0.7071068, 1.0, 0.7071068][i], 0.0,
                                                                 [1.0, 0.7071068, 0.0, -0.7071068][i]]})
        nodes.append({"name": "Lantern", "children": [0, 1, 2, 3, 4]})
        g.doc["nodes"] = nodes
        g.doc["scenes"] = [{"name": "Scene", "nodes": [5]}]
        self.put("models/lantern.glb", glb_bytes(g))
        self.put("models/lantern.glb.import", scene_import("models/lantern.glb", {"Brass": "materials/brass.tres"}))
        self.triangles["models/lantern.glb#mesh/0"] = len(frame.idx) // 3
        self.triangles["models/lantern.glb#mesh/1"] = len(pane.idx) // 3

    # --- materials
    def materials(self) -> None:
        for res, name, albedo, normal, extra in (
            ("materials/cobble.tres", "Cobble", "textures/cobble_albedo.png", "textures/cobble_normal.png",
             [("uv1_scale", "Vector3(2, 2, 2)")]),
            ("materials/planks.tres", "Planks", "textures/planks_albedo.png", "textures/planks_normal.png",
             [("uv1_scale", "Vector3(2, 2, 2)")]),
            ("materials/iron.tres", "Iron", "textures/iron_albedo.png", "textures/iron_normal.png", []),
        ):
            mat = GodotText(res, resource_type="StandardMaterial3D")
            a, n = mat.ext_res("Texture2D", albedo), mat.ext_res("Texture2D", normal)
            metal = [("metallic", "0.8")] if name == "Iron" else []
            mat.resource([("resource_name", f'"{name}"'), ("albedo_texture", a), *metal,
                          ("roughness", "0.85" if name != "Iron" else "0.45"),
                          ("normal_enabled", "true"), ("normal_texture", n), *extra])
            self.put(res, mat.text())
        mat = GodotText("materials/brass.tres", resource_type="ORMMaterial3D")
        a, orm = mat.ext_res("Texture2D", "textures/brass_albedo.png"), mat.ext_res("Texture2D", "textures/brass_orm.png")
        mat.resource([("resource_name", '"Brass"'), ("albedo_texture", a), ("orm_texture", orm), ("metallic", "1.0")])
        self.put(mat.res, mat.text())

    # --- scripts and shaders (Godot 4.4+ keeps their uid in a .uid file beside them)
    def code(self) -> None:
        self.put("menu/main_menu.gd", MENU_SCRIPT)
        self.put("menu/main_menu.gd.uid", godot_uid("menu/main_menu.gd") + "\n")
        self.put("shaders/water.gdshader", WATER_SHADER)
        self.put("shaders/water.gdshader.uid", godot_uid("shaders/water.gdshader") + "\n")

    # --- props: scenes the levels instance
    def props(self) -> None:
        s = GodotText("props/crate.tscn")
        model = s.ext_res("PackedScene", "models/crate.glb")
        shape = s.sub_res("BoxShape3D", "shape", [("size", "Vector3(0.8, 0.8, 0.8)")])
        s.node("Crate", "StaticBody3D")
        s.node("Model", parent=".", instance=model)
        s.node("CollisionShape3D", "CollisionShape3D", ".", props=[("transform", gd_transform((0, 0.4, 0))), ("shape", shape)])
        self.put(s.res, s.text())

        s = GodotText("props/crate_stack.tscn")
        crate = s.ext_res("PackedScene", "props/crate.tscn")
        s.node("CrateStack", "Node3D")
        for i, (origin, turns) in enumerate((((0, 0, 0), 0), ((0.85, 0, 0.1), 1), ((0.4, 0.8, 0.05), 3))):
            s.node("Crate" if i == 0 else f"Crate{i + 1}", parent=".", instance=crate, props=[("transform", gd_transform(origin, quarter_turns=turns))])
        self.put(s.res, s.text())

        s = GodotText("props/lantern_post.tscn")
        post = s.ext_res("ArrayMesh", "meshes/lamp_post.tres")
        lantern = s.ext_res("PackedScene", "models/lantern.glb")
        s.node("LanternPost", "Node3D")
        s.node("Post", "MeshInstance3D", ".", props=[("mesh", post)])
        s.node("Lantern", parent=".", instance=lantern, props=[("transform", gd_transform((0, 3, 0)))])
        s.node("Light", "OmniLight3D", "Lantern", props=[("transform", gd_transform((0, 0.25, 0))),
                                                        ("light_color", "Color(1, 0.75, 0.45, 1)"), ("omni_range", "6.0")])
        self.put(s.res, s.text())

        s = GodotText("props/stall.tscn")
        tile = s.ext_res("ArrayMesh", "meshes/paving_tile.tres")
        awning_tex = s.ext_res("Texture2D", "textures/awning_albedo.png")
        crates = s.ext_res("PackedScene", "props/crate_stack.tscn")
        awning = s.sub_res("StandardMaterial3D", "awning", [("resource_name", '"Awning"'), ("cull_mode", "2"),
                                                            ("albedo_texture", awning_tex), ("roughness", "0.9")])
        s.node("Stall", "Node3D")
        s.node("Awning", "MeshInstance3D", ".", props=[("transform", gd_transform((0, 2.5, 0), (1.5, 1, 1))), ("mesh", tile),
                                                      ("surface_material_override/0", awning)])
        s.node("Crates", parent=".", instance=crates, props=[("transform", gd_transform((-0.5, 0, 0.5)))])
        self.put(s.res, s.text())

    # --- the levels and the menu
    def level(self, res: str, root: str, ground: tuple[str, int, int], posts: list[tuple[float, float]],
              extra: Callable[[GodotText], None]) -> None:
        s = GodotText(res)
        tile = s.ext_res("ArrayMesh", "meshes/paving_tile.tres")
        material = s.ext_res("Material", ground[0])
        lantern_post = s.ext_res("PackedScene", "props/lantern_post.tscn")
        cols, rows = ground[1], ground[2]
        buffer = []
        for r in range(rows):
            for c in range(cols):
                buffer += [1, 0, 0, 2 * c - cols + 1, 0, 1, 0, 0, 0, 0, 1, 2 * r - rows + 1]
        multimesh = s.sub_res("MultiMesh", "ground", [
            ("transform_format", "1"), ("instance_count", str(cols * rows)), ("mesh", tile),
            ("buffer", "PackedFloat32Array(" + ", ".join(gd_num(v) for v in buffer) + ")")])
        env = s.sub_res("Environment", "env", [("background_mode", "1"), ("background_color", "Color(0.08, 0.07, 0.12, 1)"),
                                               ("ambient_light_source", "2"), ("ambient_light_color", "Color(0.35, 0.3, 0.4, 1)")])
        s.node(root, "Node3D")
        s.node("WorldEnvironment", "WorldEnvironment", ".", props=[("environment", env)])
        s.node("Moon", "DirectionalLight3D", ".", props=[("transform", "Transform3D(1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 10, 0)"),
                                                         ("light_color", "Color(0.6, 0.65, 0.9, 1)"), ("shadow_enabled", "true")])
        s.node("Ground", "MultiMeshInstance3D", ".", props=[("material_override", material), ("multimesh", multimesh)])
        s.node("Lanterns", "Node3D", ".")
        for i, (x, z) in enumerate(posts):
            s.node("LanternPost" if i == 0 else f"LanternPost{i + 1}", parent="Lanterns", instance=lantern_post,
                   props=[("transform", gd_transform((x, 0, z)))])
        extra(s)
        self.put(res, s.text())

    def levels(self) -> None:
        market, harbor = GODOT_LEVELS["market"], GODOT_LEVELS["harbor"]

        def market_extra(s: GodotText) -> None:
            stall = s.ext_res("PackedScene", "props/stall.tscn")
            crates = s.ext_res("PackedScene", "props/crate_stack.tscn")
            s.node("Stalls", "Node3D", ".")
            for i, (x, z, turns) in enumerate(market["stalls"]):
                s.node("Stall" if i == 0 else f"Stall{i + 1}", parent="Stalls", instance=stall,
                       props=[("transform", gd_transform((x, 0, z), quarter_turns=turns))])
            for i, (x, z) in enumerate(market["stacks"]):
                s.node("CrateStack" if i == 0 else f"CrateStack{i + 1}", parent=".", instance=crates,
                       props=[("transform", gd_transform((x, 0, z)))])

        def harbor_extra(s: GodotText) -> None:
            crates = s.ext_res("PackedScene", "props/crate_stack.tscn")
            shader = s.ext_res("Shader", "shaders/water.gdshader")
            foam = s.ext_res("Texture2D", "textures/water_foam.png")
            tile = s.ext_res("ArrayMesh", "meshes/paving_tile.tres")
            water = s.sub_res("ShaderMaterial", "water", [("render_priority", "0"), ("shader", shader),
                                                          ("shader_parameter/foam_texture", foam),
                                                          ("shader_parameter/water_color", "Color(0.08, 0.22, 0.3, 1)")])
            s.node("Cargo", "Node3D", ".")
            for i, (x, z) in enumerate(harbor["stacks"]):
                s.node("CrateStack" if i == 0 else f"CrateStack{i + 1}", parent="Cargo", instance=crates,
                       props=[("transform", gd_transform((x, 0, z)))])
            s.node("Water", "MeshInstance3D", ".", props=[("transform", gd_transform((0, -0.5, 14), (12, 1, 4))),
                                                         ("mesh", tile), ("surface_material_override/0", water)])

        self.level("levels/market.tscn", "Market", market["ground"], market["posts"], market_extra)
        self.level("levels/harbor.tscn", "Harbor", harbor["ground"], harbor["posts"], harbor_extra)

        s = GodotText("menu/main_menu.tscn")
        script = s.ext_res("Script", "menu/main_menu.gd")
        title = s.ext_res("Texture2D", "ui/title_card.png")
        s.node("MainMenu", "Control", props=[("layout_mode", "3"), ("anchors_preset", "15"), ("anchor_right", "1.0"),
                                             ("anchor_bottom", "1.0"), ("grow_horizontal", "2"), ("grow_vertical", "2"),
                                             ("script", script)])
        s.node("TitleCard", "TextureRect", ".", props=[("layout_mode", "1"), ("anchors_preset", "15"), ("anchor_right", "1.0"),
                                                       ("anchor_bottom", "1.0"), ("grow_horizontal", "2"), ("grow_vertical", "2"),
                                                       ("texture", title), ("expand_mode", "1"), ("stretch_mode", "6")])
        s.node("Buttons", "VBoxContainer", ".", props=[("layout_mode", "1"), ("anchors_preset", "7"), ("anchor_left", "0.5"),
                                                       ("anchor_top", "1.0"), ("anchor_right", "0.5"), ("anchor_bottom", "1.0"),
                                                       ("offset_left", "-80.0"), ("offset_top", "-160.0"), ("offset_right", "80.0"),
                                                       ("offset_bottom", "-40.0"), ("grow_horizontal", "2"), ("grow_vertical", "0")])
        for name, text in (("Market", "The Market"), ("Harbor", "The Harbour"), ("Quit", "Quit")):
            s.node(name, "Button", "Buttons", props=[("layout_mode", "2"), ("text", f'"{text}"')])
        for name in ("Market", "Harbor", "Quit"):
            s.connection("pressed", f"Buttons/{name}", ".", f"_on_{name.lower()}_pressed")
        self.put(s.res, s.text())

    def project(self) -> None:
        self.put("project.godot", PROJECT_GODOT.format(features=GODOT_FEATURES, main=godot_uid("menu/main_menu.tscn")))


def title_card() -> np.ndarray:
    """The menu's title card at 1/8 of 1920x1080: dusk bands and a row of lanterns."""
    h, w = 135, 240
    y = np.arange(h)[:, None, None] / h
    sky = np.array([30, 24, 60]) * (1 - y) + np.array([200, 110, 60]) * y
    img = np.broadcast_to(sky, (h, w, 3)).copy()
    img[100:, :] = (24, 20, 28)
    for x in range(20, w, 40):
        img[70:100, x:x + 2] = (40, 40, 44)
        img[62:70, x - 3:x + 5] = (255, 190, 110)
    return img


def uv_checker() -> np.ndarray:
    """A 16x16 colour checker (a UV test texture), drawn at 16x16 px."""
    y, x = np.mgrid[0:16, 0:16]
    hue = np.stack([x * 16, y * 16, 255 - x * 8], axis=-1).astype(np.float64)
    return np.where(((x + y) % 2 == 0)[..., None], hue, hue * 0.35)


PROJECT_GODOT = """\
; Engine configuration file.
; It's best edited using the editor UI and not directly,
; since the parameters that go here are not all obvious.
;
; Format:
;   [section] ; section goes between []
;   param=value ; assign values to parameters

config_version=5

[application]

config/name="Lantern Row (Godot)"
config/description="The texbudget demo as a Godot project: a menu and two levels, the market
and the harbour, that share the lantern posts, the crates and their materials."
run/main_scene="{main}"
config/features=PackedStringArray({features})

[display]

window/size/viewport_width=1920
window/size/viewport_height=1080
"""

MENU_SCRIPT = """\
extends Control


func _on_market_pressed() -> void:
\tget_tree().change_scene_to_file("res://levels/market.tscn")


func _on_harbor_pressed() -> void:
\tget_tree().change_scene_to_file("res://levels/harbor.tscn")


func _on_quit_pressed() -> void:
\tget_tree().quit()
"""

WATER_SHADER = """\
shader_type spatial;

uniform sampler2D foam_texture : source_color, repeat_enable;
uniform vec4 water_color : source_color = vec4(0.08, 0.22, 0.3, 1.0);

void fragment() {
\tfloat foam = texture(foam_texture, UV * 8.0 + vec2(TIME * 0.02, 0.0)).r;
\tALBEDO = mix(water_color.rgb, vec3(1.0), foam * 0.3);
\tROUGHNESS = 0.05;
}
"""


def write_godot_project(out: Path) -> dict:
    """The Godot project under ``out``; returns what its README tells."""
    p = GodotProject(out)
    p.project()
    p.textures()
    p.meshes()
    p.materials()
    p.code()
    p.props()
    p.levels()
    write(out / "README.md", godot_readme(p).encode("utf-8"))
    return {"files": p.files, "vram": p.vram}


def godot_design(level: str) -> tuple[dict[str, int], list[str]]:
    """What a level of the design loads: mesh -> instances (nested instances multiply), and
    its textures. The README's table; tests/integration/test_demo.py checks the readers and the
    resolver against numbers written out by hand, not against this."""
    d = GODOT_LEVELS[level]
    posts, stalls, stacks = len(d["posts"]), len(d["stalls"]), len(d["stacks"])
    meshes = {  # as texbudget names them: the N-th mesh of a file is file#mesh/N
        "meshes/paving_tile.tres#mesh/0": d["ground"][1] * d["ground"][2] + stalls + (1 if d["water"] else 0),
        "meshes/lamp_post.tres#mesh/0": posts,
        "models/lantern.glb#mesh/0": posts,  # LanternFrame
        "models/lantern.glb#mesh/1": 4 * posts,  # LanternPane
        "models/crate.glb#mesh/0": 3 * (stalls + stacks),
    }
    ground = d["ground"][0].split("/")[1].split(".")[0]
    textures = [f"textures/{ground}_albedo.png", f"textures/{ground}_normal.png", "textures/iron_albedo.png",
                "textures/iron_normal.png", "textures/brass_albedo.png", "textures/brass_orm.png",
                "textures/lantern_glow.png", "textures/crate_albedo.png", "textures/crate_normal.png"]
    if stalls:
        textures.append("textures/awning_albedo.png")
    if d["water"]:
        textures.append("textures/water_foam.png")
    return meshes, sorted(textures)


def godot_readme(p: GodotProject) -> str:
    mib = float(1 << 20)
    market, market_tex = godot_design("market")
    harbor, harbor_tex = godot_design("harbor")
    names = {"meshes/paving_tile.tres#mesh/0": "PavingTile (an ArrayMesh .tres)", "meshes/lamp_post.tres#mesh/0": "LampPost (an ArrayMesh .tres)",
             "models/lantern.glb#mesh/0": "LanternFrame", "models/lantern.glb#mesh/1": "LanternPane", "models/crate.glb#mesh/0": "Crate"}
    rows = []
    for mesh in market:
        rows.append(f"| `{mesh}` | {names[mesh]} | {p.triangles[mesh]:,} | {market[mesh]} | {harbor[mesh]} |")
    tex_rows = []
    for t in GODOT_TEXTURES:
        where = [name for name, used in (("market", market_tex), ("harbour", harbor_tex)) if t.res in used]
        if t.res == "ui/title_card.png":
            where = ["menu"]
        w, h = t.size
        fmt = {"normal": "BC5", "ui": "RGBA8, no mips"}.get(t.role, "BC1")
        tex_rows.append(f"| `{t.res}` | {w}x{h} | {fmt} | {p.vram[t.res] / mib:.2f} MiB | {', '.join(where) or '**none**'} |")
    both = sorted(set(market_tex) & set(harbor_tex))
    market_vram = sum(p.vram[t] for t in market_tex)
    harbor_vram = sum(p.vram[t] for t in harbor_tex)
    every = sum(p.vram.values())
    disk = sum(p.files.values())
    return f"""# Lantern Row (Godot): two levels that share props

The texbudget demo as a Godot 4.6 project: a main menu and two levels, the market and the
harbour, built from the same props. It is {disk / 1024:.0f} KiB on disk; its textures take
{every / mib:.2f} MiB of VRAM on the desktop profile, of which a level loads less than half.

**Generated; do not edit by hand.** Written, with the glTF demo beside it (`assets/demo`), by
`python assets/make_demo.py --out assets/demo` (this folder is `--godot-out`, by default
`{GODOT_FOLDER}` beside the demo), deterministically: every uid and id is derived from a name.
Every file is written as the Godot 4.6 editor writes it: `[gd_scene format=3 uid=…]`,
`unique_id` on each node, `.import` files for the textures and the `.glb` models, `.uid` files
for the script and the shader. The folder is its own scan root, kept apart from `assets/demo`
so that the glTF demo's numbers do not change.

```
texbudget scan assets/{GODOT_FOLDER}/levels/market.tscn   # what the market loads, nothing else
texbudget scan assets/{GODOT_FOLDER}/levels/harbor.tscn   # the harbour
texbudget scan assets/{GODOT_FOLDER}                      # every file: the menu's title card and the UV checker too
```

## The project

| | |
|---|---|
| `project.godot` | `run/main_scene` is the menu, by uid (`menu/main_menu.tscn`) |
| `levels/market.tscn`, `levels/harbor.tscn` | the levels: a MultiMesh of paving tiles for the ground (`material_override` cobble or planks), lantern posts; the market's stalls and a crate stack; the harbour's crate stacks and its water (a ShaderMaterial sub-resource) |
| `menu/main_menu.tscn` + `.gd` | the main scene: a title card and three buttons; its script changes scene, so the levels are not edges of it |
| `props/lantern_post.tscn` | a lamp post (`meshes/lamp_post.tres`, an ArrayMesh) and an instance of `models/lantern.glb` |
| `props/stall.tscn` | an awning (a paving tile with `surface_material_override/0`, a StandardMaterial3D sub-resource) and an instance of `props/crate_stack.tscn` |
| `props/crate_stack.tscn` | three instances of `props/crate.tscn`, which instances `models/crate.glb` |
| `models/crate.glb` | one mesh, its own material with albedo and normal textures beside it |
| `models/lantern.glb` | a brass frame and a glass pane placed four times; its `.import` extracts the brass material to `materials/brass.tres` (an ORMMaterial3D), the glass keeps its own (an emissive texture) |
| `materials/*.tres` | StandardMaterial3D cobble, planks, iron (albedo + normal textures); ORMMaterial3D brass |
| `textures/test/uv_checker.png` | {GODOT_TEXTURES[-1].note} |

## What each level loads

Meshes and their instances in the level (nested instances multiply: a stall holds a stack of
three crates, the market four stalls and one more stack):

| mesh | name | triangles | market | harbour |
|---|---|---|---|---|
{chr(10).join(rows)}

Textures (desktop profile: Godot's VRAM Compressed is BC1 for colour, BC5 for normal maps;
the title card is a 2D texture kept Lossless):

| texture | size | GPU format | VRAM | loaded by |
|---|---|---|---|---|
{chr(10).join(tex_rows)}

The market loads {len(market_tex)} textures ({market_vram / mib:.2f} MiB), the harbour
{len(harbor_tex)} ({harbor_vram / mib:.2f} MiB); {len(both)} of them are shared, and each counts once in a
level however many props use it. A scan of the whole folder prices all {len(GODOT_TEXTURES)}
({every / mib:.2f} MiB): the menu's title card, and the UV checker that nothing loads.
"""


# =============================================================================================
# Main
# =============================================================================================


def generate(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    w = Writer(out)
    for s in sorted(SETS, key=lambda s: s.path):
        w.write_set(s)
    w.write_clocktower()
    w.write_planted()
    w.write_environment()
    stats = write_level(out, w.done.materials)
    write(out / "texbudget.toml", CONFIG.encode("utf-8"))
    stats["textures"] = sum(1 for rel in w.done.files if not rel.endswith((".import", ".meta")))
    stats["texture_vram"] = sum(w.done.vram.values())
    stats["vram_by_file"] = w.done.vram
    stats["file_bytes"] = w.done.files
    stats["kinds"] = {}
    for rel in w.done.vram:
        ext = rel.rsplit(".", 1)[-1]
        stats["kinds"][ext] = stats["kinds"].get(ext, 0) + 1
    stats["sidecars"] = {ext: sum(1 for rel in w.done.files if rel.endswith(ext)) for ext in (".import", ".meta")}
    stats["disk"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.name != "README.md")
    write(out / "README.md", readme(stats).encode("utf-8"))
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="folder to write the demo into")
    ap.add_argument("--godot-out", type=Path, help=f"folder to write the Godot project into (default: {GODOT_FOLDER} beside --out)")
    ap.add_argument("--summary", action="store_true", help="print the designed VRAM and sizes")
    args = ap.parse_args(argv)
    stats = generate(args.out)
    godot = write_godot_project(args.godot_out or args.out.parent / GODOT_FOLDER)
    if args.summary:
        gib, mib = float(1 << 30), float(1 << 20)
        print(f"textures: {stats['textures']}  designed desktop VRAM: {stats['texture_vram'] / gib:.2f} GiB")
        print(f"meshes: {stats['meshes']}  instances: {stats['instances']}  unique triangles: {stats['triangles']:,}"
              f"  instanced: {stats['instanced_triangles']:,}  largest mesh: {stats['max_mesh_triangles']:,}")
        print(f"level.bin: {stats['bin_bytes'] / mib:.2f} MiB   on disk: {stats['disk'] / mib:.2f} MiB")
        print("triangles per mesh:", ", ".join(f"{k} {v:,}" for k, v in stats["mesh_triangles"].items()))
        top = sorted(stats["vram_by_file"].items(), key=lambda kv: (-kv[1], kv[0]))[:10]
        for rel, b in top:
            print(f"  {b / mib:9.2f} MiB  {rel}")
        print(f"Godot project: {len(godot['files'])} files, {sum(godot['files'].values()) / 1024:.0f} KiB on disk, "
              f"textures {sum(godot['vram'].values()) / mib:.2f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
