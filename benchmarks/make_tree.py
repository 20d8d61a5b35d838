"""Synthetic asset trees for the benchmarks: 1k, 10k or 100k files, deterministic.

    python benchmarks/make_tree.py OUT_DIR --files 10000 [--shape mix] [--seed 0]

Files go in folders of 100 under five top-level categories, as a game's asset tree is. A
shape says which kinds make up each 100 files (``SHAPES``):

- ``mix`` (the default, and the only shape before issue 22): 40 PNG, 10 TGA, 20 DDS,
  15 KTX2, 15 GLB.
- ``png``: 90 small PNGs (16 to 256 px: icons, UI, decals, sprites), 5 DDS, 5 GLB.
- ``glb``: 80 GLB and the 20 PNGs their materials use.
- ``ktx2``: 90 KTX2, 5 PNG, 5 GLB.

Every file has a real, valid header and a realistic size in its header:

- PNG: real images (IHDR, one IDAT of zlib-compressed flat scanlines, IEND), 256 to 2048 px
  (16 to 256 px in the ``png`` shape), grey, RGB or RGBA; a few KiB each (tens to hundreds
  of bytes when small) because flat pixels compress well.
- TGA: real RLE true-colour images (type 10), 128 to 512 px, with the TGA 2.0 footer.
- DDS: legacy DXT1/DXT5 and DX10 BC7/BC5/BC4/BC6H headers, 256 to 4096 px, full mip chains,
  some cubemaps. The payload is a hole: the file is extended with ``truncate`` to the exact
  length the header describes, so it is a sparse file (its size is real, its disk use small).
- KTX2: BC7, BC1, ASTC 6x6, RGBA8 and UASTC, with a level index and a basic data format
  descriptor; the payload is a hole as for DDS.
- GLB: 1 to 3 meshes of 500 to 20,000 vertices (POSITION, NORMAL, TEXCOORD_0, sometimes
  TANGENT; 16- or 32-bit indices), a material per mesh that uses PNGs of the same folder by
  relative URI, and a node per mesh; the BIN chunk is a hole of the declared length.

Nothing here comes from texbudget or its tests, so the tree stands on its own. The same
``(files, shape, seed)`` always writes the same bytes (the ``mix`` tree is byte for byte the
one this script wrote before it had shapes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import struct
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

#: Kinds per 100 files, in the order they are dealt within each block of 100, by shape.
SHAPES: dict[str, tuple[tuple[str, int], ...]] = {
    "mix": (("png", 40), ("tga", 10), ("dds", 20), ("ktx2", 15), ("glb", 15)),
    "png": (("png", 90), ("dds", 5), ("glb", 5)),
    "glb": (("png", 20), ("glb", 80)),
    "ktx2": (("png", 5), ("ktx2", 90), ("glb", 5)),
}
MIX = SHAPES["mix"]
#: PNG sides (the RNG picks one) by shape: the ``png`` shape's are small.
_PNG_SIDES = {"png": (16, 32, 32, 64, 64, 64, 128, 128, 256)}
_DEFAULT_PNG_SIDES = (256, 512, 512, 1024, 1024, 1024, 2048)
FILES_PER_FOLDER = 100
#: Every file's mtime (2024-01-01 00:00:00 UTC): deterministic, and old enough that a cache
#: never takes a file for one that is still being written.
MTIME_NS = 1_704_067_200 * 10**9
CATEGORIES = ("characters", "environment", "props", "vehicles", "ui")


@dataclass
class TreeStats:
    files: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    apparent_bytes: int = 0  # sum of file sizes (what stat says)
    seconds: float = 0.0


# --- PNG ---------------------------------------------------------------------------------

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_CACHE: dict[tuple[int, int, int], bytes] = {}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(width: int, height: int, color_type: int, srgb: bool = True) -> bytes:
    """A valid PNG of flat pixels (colour type 0 grey, 2 RGB, 6 RGBA; 8-bit)."""
    key = (width, height, color_type)
    idat = _PNG_CACHE.get(key)
    if idat is None:
        channels = {0: 1, 2: 3, 6: 4}[color_type]
        row = b"\x00" + b"\x80" * (width * channels)  # filter 0, mid-grey
        comp = zlib.compressobj(9)
        parts = [comp.compress(row) for _ in range(height)]
        parts.append(comp.flush())
        idat = _PNG_CACHE[key] = _chunk(b"IDAT", b"".join(parts))
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
    srgb_chunk = _chunk(b"sRGB", b"\x00") if srgb else b""
    return _PNG_SIG + ihdr + srgb_chunk + idat + _chunk(b"IEND", b"")


# --- TGA ---------------------------------------------------------------------------------

def tga_bytes(width: int, height: int, bits: int) -> bytes:
    """A valid RLE true-colour TGA (image type 10) of one flat colour, with the 2.0 footer."""
    bpp = bits // 8
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 10, 0, 0, 0, 0, 0, width, height, bits, 8 if bits == 32 else 0)
    pixels = width * height
    packet = bytes([0x80 | 127]) + b"\x40" * bpp
    full, rest = divmod(pixels, 128)
    body = packet * full + (bytes([0x80 | (rest - 1)]) + b"\x40" * bpp if rest else b"")
    footer = struct.pack("<II", 0, 0) + b"TRUEVISION-XFILE.\x00"
    return header + body + footer


# --- block-compressed sizes -----------------------------------------------------------------

def _levels(width: int, height: int) -> int:
    return max(width, height).bit_length()


def _level_bytes(width: int, height: int, block: tuple[int, int], block_bytes: int, level: int) -> int:
    w, h = max(1, width >> level), max(1, height >> level)
    return -(-w // block[0]) * -(-h // block[1]) * block_bytes


# --- DDS ---------------------------------------------------------------------------------

# name -> (legacy FourCC or None, DXGI format, block bytes)
_DDS_FORMATS = {
    "DXT1": (b"DXT1", 71, 8),
    "DXT5": (b"DXT5", 77, 16),
    "BC7": (None, 98, 16),  # BC7_UNORM_SRGB is 99; 98 is BC7_UNORM
    "BC7_SRGB": (None, 99, 16),
    "BC5": (None, 83, 16),
    "BC4": (None, 80, 8),
    "BC6H": (None, 95, 16),
}


def dds_header(width: int, height: int, fmt: str, cube: bool) -> tuple[bytes, int]:
    """(header bytes, total file length) of a DDS with a full mip chain."""
    fourcc, dxgi, block_bytes = _DDS_FORMATS[fmt]
    levels = _levels(width, height)
    faces = 6 if cube else 1
    payload = faces * sum(_level_bytes(width, height, (4, 4), block_bytes, i) for i in range(levels))
    flags = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000  # CAPS HEIGHT WIDTH PIXELFORMAT MIPMAPCOUNT LINEARSIZE
    linear = _level_bytes(width, height, (4, 4), block_bytes, 0)
    caps = 0x1000 | 0x400000 | 0x8 | (0x8 if cube else 0)
    caps2 = 0xFE00 if cube else 0
    pf = struct.pack("<II4sI4I", 32, 0x4, fourcc or b"DX10", 0, 0, 0, 0, 0)
    header = b"DDS " + struct.pack("<7I", 124, flags, height, width, linear, 0, levels) + b"\0" * 44 + pf
    header += struct.pack("<5I", caps, caps2, 0, 0, 0)
    if fourcc is None:
        header += struct.pack("<5I", dxgi, 3, 0x4 if cube else 0, 1, 0)
    return header, len(header) + payload


# --- KTX2 --------------------------------------------------------------------------------

_KTX2_MAGIC = b"\xabKTX 20\xbb\r\n\x1a\n"
# name -> (vkFormat, block dims, block bytes, DFD colour model, transfer: 1 linear / 2 sRGB)
_KTX2_FORMATS = {
    "BC7_SRGB": (146, (4, 4), 16, 128, 2),
    "BC1_SRGB": (132, (4, 4), 8, 128, 2),
    "ASTC_6x6_SRGB": (166, (6, 6), 16, 162, 2),
    "R8G8B8A8_UNORM": (37, (1, 1), 4, 1, 1),
    "UASTC": (0, (4, 4), 16, 166, 2),
}


def ktx2_header(width: int, height: int, fmt: str) -> tuple[bytes, int]:
    """(header, level index and DFD bytes, total file length) of a KTX2 with a full chain,
    levels stored smallest first as the spec wants, each 8-byte aligned."""
    vk, block, block_bytes, model, transfer = _KTX2_FORMATS[fmt]
    levels = _levels(width, height)
    dfd_block = struct.pack("<IHHBBBB4B", 0, 2, 24 + 16, model, 1, transfer, 0, block[0] - 1, block[1] - 1, 0, 0)
    dfd_block += struct.pack("<I", block_bytes) + b"\0" * 4  # bytesPlane0..7
    channel = 3 if model == 166 else 0  # UASTC: RGBA; otherwise the first colour channel
    dfd_block += struct.pack("<HBBIII", 0, block_bytes * 8 - 1, channel, 0, 0, 0xFFFFFFFF)  # one sample
    dfd = struct.pack("<I", 4 + len(dfd_block)) + dfd_block
    index_offset = 80
    dfd_offset = index_offset + 24 * levels
    data_start = -(-(dfd_offset + len(dfd)) // 16) * 16
    sizes = [_level_bytes(width, height, block, block_bytes, i) for i in range(levels)]
    offsets = [0] * levels
    cursor = data_start
    for i in reversed(range(levels)):
        cursor = -(-cursor // 16) * 16
        offsets[i] = cursor
        cursor += sizes[i]
    header = _KTX2_MAGIC + struct.pack(
        "<13I2Q", vk, 1, width, height, 0, 0, 1, levels, 0,
        dfd_offset, len(dfd), 0, 0, 0, 0,
    )
    index = b"".join(struct.pack("<3Q", offsets[i], sizes[i], sizes[i]) for i in range(levels))
    body = header + index + dfd
    return body + b"\0" * (data_start - len(body)), cursor


# --- GLB ---------------------------------------------------------------------------------

def glb_bytes(name: str, meshes: list[tuple[int, bool, bool]], images: list[str]) -> tuple[bytes, int]:
    """(GLB header + JSON chunk + BIN chunk header, total length). ``meshes``: (vertices,
    tangents, 32-bit indices) per mesh; ``images``: relative URIs of PNGs the materials use."""
    accessors, views, mesh_list, materials, nodes = [], [], [], [], []
    offset = 0

    def add(count: int, ctype: int, kind: str, comps: int, size: int, target: int) -> int:
        nonlocal offset
        length = count * comps * size
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": length, "target": target})
        acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": kind}
        if kind == "VEC3" and ctype == 5126 and len(accessors) % 4 == 0:
            acc["min"], acc["max"] = [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]
        accessors.append(acc)
        offset += -(-length // 4) * 4
        return len(accessors) - 1

    textures = [{"source": i} for i in range(len(images))]
    for m, (vertices, tangents, wide) in enumerate(meshes):
        attrs = {
            "POSITION": add(vertices, 5126, "VEC3", 3, 4, 34962),
            "NORMAL": add(vertices, 5126, "VEC3", 3, 4, 34962),
            "TEXCOORD_0": add(vertices, 5126, "VEC2", 2, 4, 34962),
        }
        if tangents:
            attrs["TANGENT"] = add(vertices, 5126, "VEC4", 4, 4, 34962)
        triangles = vertices * 2 - 4
        indices = add(triangles * 3, 5125 if wide else 5123, "SCALAR", 1, 4 if wide else 2, 34963)
        material: dict = {"name": f"{name}_mat{m}", "pbrMetallicRoughness": {}}
        if images:
            material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": m % len(images)}
            if len(images) > 1:
                material["normalTexture"] = {"index": (m + 1) % len(images)}
        materials.append(material)
        mesh_list.append({"name": f"{name}_{m}", "primitives": [{"attributes": attrs, "indices": indices, "material": m}]})
        nodes.append({"mesh": m, "name": f"{name}_node{m}"})
    doc = {
        "asset": {"version": "2.0", "generator": "texbudget benchmarks/make_tree.py"},
        "scene": 0, "scenes": [{"nodes": list(range(len(nodes)))}], "nodes": nodes,
        "meshes": mesh_list, "materials": materials, "accessors": accessors,
        "bufferViews": views, "buffers": [{"byteLength": offset}],
    }
    if images:
        doc["images"] = [{"uri": uri} for uri in images]
        doc["textures"] = textures
    raw = json.dumps(doc, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 4)
    total = 12 + 8 + len(raw) + 8 + offset
    head = struct.pack("<4sII", b"glTF", 2, total) + struct.pack("<II", len(raw), 0x4E4F534A) + raw
    head += struct.pack("<II", offset, 0x004E4942)
    return head, total


# --- the tree ----------------------------------------------------------------------------

def _kind_of(i: int, mix: tuple[tuple[str, int], ...] = MIX) -> str:
    slot = i % 100
    for kind, share in mix:
        if slot < share:
            return kind
        slot -= share
    raise AssertionError(slot)


def _write(path: Path, head: bytes, total: int | None = None) -> int:
    with open(path, "wb") as f:
        f.write(head)
        if total is not None and total > len(head):
            f.truncate(total)  # a hole: the size is real, the disk use is not
    os.utime(path, ns=(MTIME_NS, MTIME_NS))
    return total if total is not None else len(head)


def _entry(i: int) -> tuple[str, str]:
    """(folder, file stem) of file ``i``: folders of 100 under the categories."""
    block = i // FILES_PER_FOLDER
    category = CATEGORIES[block % len(CATEGORIES)]
    return f"{category}/set_{block:04d}", f"{category[:4]}_{i:06d}"


def make_tree(root: Path, files: int, seed: int = 0, shape: str = "mix") -> TreeStats:
    """Write ``files`` assets of ``shape`` (a key of ``SHAPES``) under ``root``. A tree this
    script wrote before (it leaves a ``.tree.json`` marker) is kept when its size, shape and
    seed match and replaced otherwise; any other non-empty folder is refused. Returns what
    was written."""
    mix = SHAPES[shape]
    png_sides = _PNG_SIDES.get(shape, _DEFAULT_PNG_SIDES)
    root = Path(root)
    marker = root / ".tree.json"
    if marker.is_file():
        try:
            saved = json.loads(marker.read_text())
            if saved.get("files") == files and saved.get("seed") == seed and saved.get("shape", "mix") == shape:
                return TreeStats(files, saved["by_kind"], saved["apparent_bytes"], 0.0)
        except (ValueError, KeyError):
            pass
        shutil.rmtree(root)
    elif root.is_dir() and any(root.iterdir()):
        raise FileExistsError(f"{root}: not empty and not a tree make_tree.py wrote; choose another folder")
    started = time.perf_counter()
    stats = TreeStats()
    rng = random.Random(seed)
    folder_pngs: dict[str, list[str]] = {}
    for i in range(files):
        kind = _kind_of(i, mix)
        folder, stem = _entry(i)
        directory = root / folder
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{stem}.{kind}"
        if kind == "png":
            side = rng.choice(png_sides)
            ratio = rng.choice((1, 1, 1, 2))
            color = rng.choice((2, 2, 6, 6, 6, 0))
            size = _write(path, png_bytes(side, max(1, side // ratio), color, srgb=color != 0))
            folder_pngs.setdefault(folder, []).append(path.name)
        elif kind == "tga":
            side = rng.choice((128, 256, 256, 512))
            size = _write(path, tga_bytes(side, side, rng.choice((24, 32))))
        elif kind == "dds":
            fmt = rng.choice(tuple(_DDS_FORMATS))
            cube = rng.random() < 0.05
            side = rng.choice((128, 256, 512)) if cube else rng.choice((256, 512, 1024, 1024, 2048, 2048, 4096))
            head, total = dds_header(side, side if cube else side // rng.choice((1, 1, 2)), fmt, cube)
            size = _write(path, head, total)
        elif kind == "ktx2":
            fmt = rng.choice(tuple(_KTX2_FORMATS))
            side = rng.choice((256, 512, 1024, 2048, 2048, 4096))
            head, total = ktx2_header(side, side, fmt)
            size = _write(path, head, total)
        else:
            meshes = [(rng.choice((500, 2000, 5000, 12000, 20000)), rng.random() < 0.5, rng.random() < 0.3)
                      for _ in range(rng.choice((1, 1, 2, 3)))]
            images = folder_pngs.get(folder, [])[-2:]
            head, total = glb_bytes(stem, meshes, images)
            size = _write(path, head, total)
        stats.files += 1
        stats.by_kind[kind] = stats.by_kind.get(kind, 0) + 1
        stats.apparent_bytes += size
    stats.seconds = time.perf_counter() - started
    marker.write_text(json.dumps({"files": files, "seed": seed, "shape": shape, "by_kind": stats.by_kind,
                                  "apparent_bytes": stats.apparent_bytes}))
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write (created)")
    parser.add_argument("--files", type=int, default=1000, help="number of asset files (default 1000)")
    parser.add_argument("--shape", choices=tuple(SHAPES), default="mix", help="which kinds make up the tree (default mix)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.files < 1:
        parser.error("--files must be 1 or more")
    stats = make_tree(args.out, args.files, args.seed, args.shape)
    kinds = ", ".join(f"{n} {k.upper()}" for k, n in sorted(stats.by_kind.items()))
    print(f"{args.out}: {stats.files} files ({kinds}), {stats.apparent_bytes / 2**20:.1f} MiB apparent, {stats.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
