"""The plain PNG and TGA header readers (no Pillow) give exactly what Pillow's path gives.

``images._png_plain_info`` and ``images._tga_plain_mode`` answer for the common plain files and
step aside (None) for everything else. Each case here is read twice, once as shipped and once
with both plain readers switched off, and the two results must be equal, facts and findings.
Each case also says whether the plain reader must answer it, so the comparison cannot pass by
the plain reader never answering."""

from __future__ import annotations

import struct
import zlib

import pytest

from tests.readers import factories as fx
from texbudget.readers import Source, images


def _chunk(kind: bytes, data: bytes, *, crc: int | None = None) -> bytes:
    value = zlib.crc32(kind + data) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", value)


def _png(chunks: list[bytes], *, width: int = 9, height: int = 7, depth: int = 8, colour: int = 2,
         interlace: int = 0) -> bytes:
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))
    samples = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 3)
    row = 1 + -(-width * samples * depth // 8)
    idat = _chunk(b"IDAT", zlib.compress(bytes(row * height)))
    return fx.PNG_SIGNATURE + ihdr + b"".join(chunks) + idat + _chunk(b"IEND", b"")


PLTE = _chunk(b"PLTE", bytes(12))

# (name, bytes, the plain reader answers)
PNG_CASES = [
    *[(f"ct{c}-d{d}", _png([PLTE] if c == 3 else [], colour=c, depth=d), True)
      for c, depths in {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}.items()
      for d in depths],
    ("srgb", _png([_chunk(b"sRGB", b"\x00")]), True),
    ("srgb-perceptual", _png([_chunk(b"sRGB", b"\x03")]), True),
    ("gamma-linear", _png([_chunk(b"gAMA", struct.pack(">I", 100000))]), True),
    ("gamma-2.2", _png([_chunk(b"gAMA", struct.pack(">I", 45455))]), True),
    ("chrm", _png([_chunk(b"cHRM", bytes(32))]), True),
    ("phys", _png([_chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))]), True),
    ("text", _png([_chunk(b"tEXt", b"Software\x00make_demo"), _chunk(b"tEXt", b"Comment\x00caf\xe9")]), True),
    ("text-empty-key", _png([_chunk(b"tEXt", b"\x00value")]), True),
    ("text-no-nul", _png([_chunk(b"tEXt", b"lonely")]), True),
    ("bkgd-time-sbit", _png([_chunk(b"bKGD", bytes(6)), _chunk(b"tIME", bytes(7)), _chunk(b"sBIT", b"\x08\x08\x08")]), True),
    ("interlaced", _png([], interlace=1), True),
    ("big", _png([], width=4096, height=2048), True),
    # Pillow's own, every time:
    ("trns", _png([_chunk(b"tRNS", bytes(6))]), False),
    ("palette-trns", _png([PLTE, _chunk(b"tRNS", b"\x00\xff")], colour=3), False),
    ("iccp", fx.png_bytes(8, 8, icc_name=b"sRGB IEC61966-2.1"), False),
    ("ztxt", _png([_chunk(b"zTXt", b"k\x00\x00" + zlib.compress(b"v"))]), False),
    ("itxt", _png([_chunk(b"iTXt", b"k\x00\x00\x00\x00\x00v")]), False),
    ("exif", _png([_chunk(b"eXIf", b"MM\x00*\x00\x00\x00\x08\x00\x00")]), False),
    ("apng", _png([_chunk(b"acTL", struct.pack(">II", 1, 0))]), False),
    ("private-chunk", _png([_chunk(b"prVt", b"x")]), False),
    ("bad-crc", _png([_chunk(b"gAMA", struct.pack(">I", 45455), crc=1)]), False),
    ("short-gama", _png([_chunk(b"gAMA", b"\x00\x01")]), False),
    ("short-chrm", _png([_chunk(b"cHRM", bytes(8))]), False),
    ("short-phys", _png([_chunk(b"pHYs", bytes(4))]), False),
    ("empty-srgb", _png([_chunk(b"sRGB", b"")]), False),
    ("odd-depth", _png([], depth=3), False),
    ("rgb-depth-4", _png([], colour=2, depth=4), False),
    ("colour-type-5", _png([], colour=5), False),
    ("late-idat", _png([_chunk(b"tEXt", b"pad\x00" + bytes(20_000))]), False),
]


def _tga(image_type: int, depth: int, *, cmap: int = 0, map_bits: int = 24, flags: int = 0x20,
         width: int = 5, height: int = 3, id_len: int = 0) -> bytes:
    map_len = 4 if cmap else 0
    head = struct.pack("<BBBHHBHHHHBB", id_len, cmap, image_type, 0, map_len, map_bits if cmap else 0,
                       0, 0, width, height, depth, flags)
    pixels = bytes((width * height * max(depth, 8) + 7) // 8)
    if image_type & 8:  # RLE: raw packets of up to 128 pixels
        n, step, out = width * height, max(depth, 8) // 8, b""
        while n:
            k = min(n, 128)
            out += bytes([k - 1]) + bytes(k * step)
            n -= k
        pixels = out
    return head + bytes(id_len) + bytes((map_len * map_bits + 7) // 8) + pixels + bytes(8) + b"TRUEVISION-XFILE.\x00"


TGA_CASES = [
    *[(f"t{t}-d{d}", _tga(t, d), d != 15) for t in (2, 10) for d in (8, 15, 16, 24, 32)],
    *[(f"t{t}-d{d}", _tga(t, d), True) for t in (3, 11) for d in (1, 8, 16, 24)],
    *[(f"t{t}-map{b}", _tga(t, 8, cmap=1, map_bits=b), b in (16, 24, 32)) for t in (1, 9) for b in (15, 16, 24, 32, 8)],
    ("t1-no-map", _tga(1, 8), True),
    ("t2-cmap-present", _tga(2, 24, cmap=1, map_bits=24), True),
    *[(f"flags-{f:02x}", _tga(2, 32, flags=f), True) for f in (0x00, 0x08, 0x10, 0x28, 0x30)],
    ("id-field", _tga(2, 24, id_len=9), True),
]


def _read(name: str, data: bytes) -> object:
    return images.read_image(Source(rel=name, data=data, suffix_hint="." + name.rsplit(".", 1)[1]))


def _through_pillow(monkeypatch: pytest.MonkeyPatch, name: str, data: bytes) -> object:
    with monkeypatch.context() as m:
        m.setattr(images, "_png_plain_info", lambda src: None)
        m.setattr(images, "_tga_plain_mode", lambda head: None)
        return _read(name, data)


@pytest.mark.parametrize(("case", "data", "plain"), PNG_CASES, ids=[c[0] for c in PNG_CASES])
def test_plain_png_is_pillow(monkeypatch: pytest.MonkeyPatch, case: str, data: bytes, plain: bool) -> None:
    assert (images._png_plain_info(Source(rel="a.png", data=data, suffix_hint=".png")) is not None) is plain
    assert _read("a.png", data) == _through_pillow(monkeypatch, "a.png", data)


@pytest.mark.parametrize(("case", "data", "plain"), TGA_CASES, ids=[c[0] for c in TGA_CASES])
def test_plain_tga_is_pillow(monkeypatch: pytest.MonkeyPatch, case: str, data: bytes, plain: bool) -> None:
    assert (images._tga_plain_mode(data[:18]) is not None) is plain
    assert _read("a.tga", data) == _through_pillow(monkeypatch, "a.tga", data)


def test_plain_png_facts_are_exact() -> None:
    """The plain path's facts themselves, for one sRGB RGBA and one linear 16-bit grey file."""
    (rgba,) = _read("a.png", _png([_chunk(b"sRGB", b"\x00")], colour=6, width=300, height=200)).textures
    assert (rgba.width, rgba.height, rgba.channels, rgba.alpha, rgba.bit_depth, rgba.color_space) == (300, 200, 4, True, 8, "srgb")
    (grey,) = _read("g.png", _png([_chunk(b"gAMA", struct.pack(">I", 100000))], colour=0, depth=16)).textures
    assert (grey.channels, grey.alpha, grey.grey, grey.bit_depth, grey.color_space) == (1, False, True, 16, "linear")
