"""Issue 21 item 4, the files Pillow cannot write: OpenEXR written by the official ``openexr``
package (scanline and tiled, half, float and uint, every compression it offers, mip-mapped
and rip-mapped tiles) and read back by it as the oracle; and files written here by their
format's specification, decoded by Pillow where it reads them: Photoshop (Adobe's "Photoshop
File Formats Specification": every colour mode, 8/16/32 bits, raw and PackBits RLE, PSB),
BMP (Microsoft's BITMAPINFOHEADER family: 4-bit, RLE8, RLE4, 16-bit 555 and 565 bit fields,
32-bit with an alpha mask, top-down, OS/2), tiled TIFF (TIFF 6.0 §15; Pillow writes strips
only) and Radiance HDR (Greg Ward's RGBE: all four axis orientations, new-style RLE with
runs and dumps, and flat scanlines). Each at awkward sizes, read with no error finding and
its exact facts.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import OpenEXR
import pytest
from PIL import Image

from tests.readers import factories as fx
from tests.readers.corpus import SIZES, SMALL_SIZES, Case, Expect, check, params


def _pillow(mode: str | None) -> Callable[[Path], tuple[int, int]]:
    """The oracle: Pillow opens the file (as ``mode``, unless None) and decodes it."""

    def oracle(path: Path) -> tuple[int, int]:
        with Image.open(path) as im:
            assert mode is None or im.mode == mode
            im.load()
            return im.size

    return oracle


def _pixels(n: int, salt: int = 0) -> bytes:
    """``n`` bytes of a pattern with runs and changes, so RLE writes both kinds of packet."""
    return bytes(((i // 5) * 37 + salt) & 0xFF if (i // 40) % 2 else 200 for i in range(n))


# --- Photoshop (Adobe's Photoshop File Formats Specification) -----------------------------------


def _packbits(row: bytes) -> bytes:
    """PackBits: a run of 2..128 equal bytes is (257 - n, byte), else up to 128 literals
    (n - 1, bytes)."""
    out, i = bytearray(), 0
    while i < len(row):
        run = 1
        while i + run < len(row) and run < 128 and row[i + run] == row[i]:
            run += 1
        if run >= 2:
            out += bytes([257 - run, row[i]])
            i += run
            continue
        j = i + 1
        while j < len(row) and j - i < 128 and not (j + 1 < len(row) and row[j] == row[j + 1]):
            j += 1
        out += bytes([j - i - 1]) + row[i:j]
        i = j
    return bytes(out)


def _psd(width: int, height: int, *, mode: int, channels: int, depth: int = 8, rle: bool = False, psb: bool = False) -> bytes:
    """Header; colour mode data (a 768-byte palette for indexed colour); image resources (a
    ResolutionInfo block, id 1005); a layer and mask section holding an empty layer list;
    then the merged image, raw or PackBits RLE (row lengths first: 2 bytes each, 4 in a PSB)."""
    header = b"8BPS" + struct.pack(">H6xHIIHH", 2 if psb else 1, channels, height, width, depth, mode)
    colour_mode = bytes(range(256)) * 3 if mode == 2 else b""
    resolution = b"8BIM" + struct.pack(">H", 1005) + b"\0\0" + struct.pack(">I", 16) + struct.pack(">IHHIHH", 72 << 16, 1, 1, 72 << 16, 1, 1)
    layer_info = struct.pack(">H", 0)  # no layers
    if psb:
        layers = struct.pack(">Q", len(layer_info)) + layer_info + struct.pack(">I", 0)
        layers = struct.pack(">Q", len(layers)) + layers
    else:
        layers = struct.pack(">I", len(layer_info)) + layer_info + struct.pack(">I", 0)
        layers = struct.pack(">I", len(layers)) + layers
    row_bytes = -(-width * depth // 8)
    rows = [_pixels(row_bytes, salt=c * 7 + y) for c in range(channels) for y in range(height)]
    if rle:
        packed = [_packbits(r) for r in rows]
        data = struct.pack(">H", 1) + b"".join(struct.pack(">I" if psb else ">H", len(p)) for p in packed) + b"".join(packed)
    else:
        data = struct.pack(">H", 0) + b"".join(rows)
    return (header + struct.pack(">I", len(colour_mode)) + colour_mode + struct.pack(">I", len(resolution)) + resolution
            + layers + data)


def _psd_case(name: str, mode: int, channels: int, expect: Expect, pil_mode: str | None, depth: int = 8,
              psb: bool = False, sizes: tuple[tuple[int, int], ...] = SIZES) -> list[Case]:
    return [Case(f"psd-{name}{'-rle' if rle else ''}", ".psd",
                 lambda w, h, rle=rle: _psd(w, h, mode=mode, channels=channels, depth=depth, rle=rle, psb=psb),
                 expect, _pillow(pil_mode) if pil_mode else None, sizes)
            for rle in (False, True)]


PSD_CASES = [
    *_psd_case("rgb", 3, 3, Expect(3, False), "RGB"),
    *_psd_case("rgba", 3, 4, Expect(4, True), "RGBA"),
    *_psd_case("grey", 1, 1, Expect(1, False, grey=True), "L"),
    *_psd_case("grey-alpha", 1, 2, Expect(2, True, grey=True), "L"),  # Pillow drops the extra channel
    *_psd_case("bitmap", 0, 1, Expect(1, False, grey=True, bit_depth=8), "1", depth=1),
    *_psd_case("indexed", 2, 1, Expect(3, False, palette=True), "P"),
    *_psd_case("cmyk", 4, 4, Expect(3, False), "CMYK"),
    *_psd_case("lab", 9, 3, Expect(3, False), "LAB"),
    # Pillow reads 8-bit PSD version 1 only: the spec is the oracle for these
    *_psd_case("rgb16", 3, 3, Expect(3, False, bit_depth=16), None, depth=16),
    *_psd_case("rgba32", 3, 4, Expect(4, True, bit_depth=32, hdr=True), None, depth=32, sizes=SMALL_SIZES),
    *_psd_case("psb-rgb", 3, 3, Expect(3, False), None, psb=True),
]


# --- BMP (Microsoft's BITMAPFILEHEADER, BITMAPINFOHEADER, BITMAPV4HEADER, BITMAPCOREHEADER) -----


def _bmp(width: int, height: int, *, bits: int, compression: int = 0, header: int = 40, masks: tuple[int, ...] = (),
         colours: int = 0, top_down: bool = False, pixels: bytes | None = None) -> bytes:
    """A BMP: file header, info header of ``header`` bytes (12 OS/2 core, 40 info, 108 V4),
    BITFIELDS masks after a 40-byte header, a palette of ``colours`` entries, then pixels
    (rows padded to 4 bytes, bottom-up unless ``top_down``; ``pixels`` given for RLE)."""
    if header == 12:
        info = struct.pack("<IHHHH", 12, width, height, 1, bits)
    else:
        info = struct.pack("<IiiHHIIiiII", header, width, -height if top_down else height, 1, bits, compression, 0, 2835, 2835, colours, 0)
        if header == 108:
            info += struct.pack("<4I", *masks) + b"BGRs" + bytes(36) + bytes(12)
        elif masks:
            info += struct.pack(f"<{len(masks)}I", *masks)
    entry = 3 if header == 12 else 4
    palette = b"".join(bytes([(i * 40) & 0xFF, (255 - i * 9) & 0xFF, (i * 77) & 0xFF, 0][:entry]) for i in range(colours))
    if pixels is None:
        stride = (bits * width + 31) // 32 * 4
        pixels = b"".join(_pixels(stride, salt=y) for y in range(height))
    offset = 14 + len(info) + len(palette)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + palette + pixels


def _rle(width: int, height: int, bits: int) -> bytes:
    """RLE8 or RLE4 pixels: each row a run of half its width, then an absolute (literal) run
    of the rest (at least 3 pixels; shorter rests are runs), end of line, end of bitmap."""
    out = bytearray()
    for y in range(height):
        run = width // 2
        if run:
            out += bytes([run, (y * 3 + 1) & (0xFF if bits == 8 else 0x77)])
        rest = width - run
        if rest >= 3:
            literal = bytes((i * 5 + y) & 0xFF if bits == 8 else 0x12 for i in range(rest if bits == 8 else -(-rest // 2)))
            out += bytes([0, rest]) + literal + b"\0" * (len(literal) & 1)
        elif rest:
            out += bytes([rest, 2])
        out += b"\0\0"
    return bytes(out[:-2]) + b"\0\1"


BMP_CASES = [
    Case("bmp-4", ".bmp", lambda w, h: _bmp(w, h, bits=4, colours=16), Expect(3, False, palette=True), _pillow("P")),
    Case("bmp-rle8", ".bmp", lambda w, h: _bmp(w, h, bits=8, compression=1, colours=256, pixels=_rle(w, h, 8)),
         Expect(3, False, palette=True), _pillow("P"), (*SMALL_SIZES, (255, 3))),
    Case("bmp-rle4", ".bmp", lambda w, h: _bmp(w, h, bits=4, compression=2, colours=16, pixels=_rle(w, h, 4)),
         Expect(3, False, palette=True), _pillow("P"), (*SMALL_SIZES, (255, 3))),
    Case("bmp-16-555", ".bmp", lambda w, h: _bmp(w, h, bits=16), Expect(3, False), _pillow("RGB")),
    Case("bmp-16-565", ".bmp", lambda w, h: _bmp(w, h, bits=16, compression=3, masks=(0xF800, 0x7E0, 0x1F)), Expect(3, False),
         _pillow("RGB")),
    Case("bmp-32-alpha-v4", ".bmp", lambda w, h: _bmp(w, h, bits=32, compression=3, header=108,
                                                      masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000)), Expect(4, True), _pillow("RGBA")),
    Case("bmp-24-top-down", ".bmp", lambda w, h: _bmp(w, h, bits=24, top_down=True), Expect(3, False), _pillow("RGB")),
    Case("bmp-24-os2", ".bmp", lambda w, h: _bmp(w, h, bits=24, header=12), Expect(3, False), _pillow("RGB")),
    Case("bmp-8-os2", ".bmp", lambda w, h: _bmp(w, h, bits=8, header=12, colours=256), Expect(3, False, palette=True), _pillow("P")),
]


# --- tiled TIFF (TIFF 6.0 §15) -----------------------------------------------------------------


def _tiled_tiff(width: int, height: int, *, samples: int, bits: int, photometric: int, sample_format: int = 1, tile: int = 16,
                extra: int = 0) -> bytes:
    """A little-endian TIFF of ``tile`` x ``tile`` uncompressed tiles (edge tiles padded to
    the whole tile, as §15 requires); ``extra`` is the ExtraSamples value of a 4th sample
    (2: unassociated alpha)."""
    across, down = -(-width // tile), -(-height // tile)
    tile_bytes = tile * tile * samples * bits // 8
    tiles = across * down
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, samples, bits), (259, 3, 1, 1), (262, 3, 1, photometric),
               (277, 3, 1, samples), (284, 3, 1, 1), (322, 3, 1, tile), (323, 3, 1, tile), (324, 4, tiles, 0), (325, 4, tiles, tile_bytes),
               (339, 3, samples, sample_format)]
    if extra:
        entries.insert(-1, (338, 3, 1, extra))
    ifd_size = 2 + 12 * len(entries) + 4
    extra = bytearray()
    pos = 8 + ifd_size

    def value(kind: int, count: int, v: int, offsets: list[int] | None = None) -> bytes:
        nonlocal pos
        size = 2 if kind == 3 else 4
        items = offsets if offsets is not None else [v] * count
        raw = struct.pack(f"<{count}{'H' if kind == 3 else 'I'}", *items)
        if count * size <= 4:
            return raw.ljust(4, b"\0")
        extra.extend(raw)
        at = pos
        pos += len(raw)
        return struct.pack("<I", at)

    data_at = pos + sum(count * (2 if kind == 3 else 4) for _, kind, count, _ in entries if count * (2 if kind == 3 else 4) > 4)
    offsets = [data_at + i * tile_bytes for i in range(tiles)]
    body = b"".join(struct.pack("<HHI", tag, kind, count) + value(kind, count, v, offsets if tag == 324 else None)
                    for tag, kind, count, v in entries)
    pixels = b"".join(_pixels(tile_bytes, salt=i) for i in range(tiles))
    return b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries)) + body + b"\0\0\0\0" + bytes(extra) + pixels


TIFF_CASES = [
    Case("tiff-tiled-rgb", ".tif", lambda w, h: _tiled_tiff(w, h, samples=3, bits=8, photometric=2), Expect(3, False), _pillow("RGB")),
    Case("tiff-tiled-rgba", ".tif", lambda w, h: _tiled_tiff(w, h, samples=4, bits=8, photometric=2, extra=2), Expect(4, True),
         _pillow("RGBA")),
    Case("tiff-tiled-grey16", ".tif", lambda w, h: _tiled_tiff(w, h, samples=1, bits=16, photometric=1),
         Expect(1, False, grey=True, bit_depth=16), _pillow("I;16")),
    Case("tiff-tiled-float", ".tif", lambda w, h: _tiled_tiff(w, h, samples=1, bits=32, photometric=1, sample_format=3),
         Expect(1, False, grey=True, bit_depth=32, hdr=True), _pillow("F")),
    Case("tiff-tiled-rgb16", ".tif", lambda w, h: _tiled_tiff(w, h, samples=3, bits=16, photometric=2),
         Expect(3, False, bit_depth=16), _pillow(None), SMALL_SIZES),
]


# --- OpenEXR, written and read back by the openexr package ---------------------------------------


def _exr(channels: str, dtype: type, *, compression: object = OpenEXR.NO_COMPRESSION, tiles: tuple | None = None) -> Callable[[int, int], bytes]:
    def write(width: int, height: int) -> bytes:
        header: dict = {"compression": compression, "type": OpenEXR.scanlineimage}
        if tiles is not None:
            description = OpenEXR.TileDescription()
            description.xSize, description.ySize, description.mode, description.roundingMode = tiles
            header.update(type=OpenEXR.tiledimage, tiles=description)
        values = np.arange(width * height * len(channels), dtype=np.float64).reshape(height, width, len(channels)) % 7
        pixels = {name: values[:, :, i].astype(dtype) for i, name in enumerate(channels.split(","))}
        buf = io.BytesIO()
        with OpenEXR.File(header, pixels) as f:
            f.write(buf)
        return buf.getvalue()

    return write


def _exr_oracle(path: Path) -> tuple[int, int]:
    """The openexr package reads the file back, pixels and all."""
    with OpenEXR.File(str(path), separate_channels=True) as f:
        (xmin, ymin), (xmax, ymax) = f.header()["dataWindow"]
        assert all(c.pixels.size == (xmax - xmin + 1) * (ymax - ymin + 1) for c in f.channels().values())
        return xmax - xmin + 1, ymax - ymin + 1


def _levels(round_up: bool) -> Callable[[int, int], Expect]:
    """A mip-mapped file's levels (OpenEXR's rule): floor(log2(max side)) + 1 levels, or
    ceil(log2(max side)) + 1 rounding up."""

    def expect(width: int, height: int) -> Expect:
        size = max(width, height)
        levels = (size - 1).bit_length() + 1 if round_up else size.bit_length()
        return Expect(4, True, bit_depth=16, hdr=True, levels=levels)

    return expect


_COMPRESSIONS = [c for c in dir(OpenEXR.Compression) if c.endswith("_COMPRESSION")]
DOWN = OpenEXR.ROUND_DOWN
EXR_CASES = [
    Case("exr-half-rgb", ".exr", _exr("R,G,B", np.float16), Expect(3, False, bit_depth=16, hdr=True), _exr_oracle),
    Case("exr-half-rgba", ".exr", _exr("R,G,B,A", np.float16), Expect(4, True, bit_depth=16, hdr=True), _exr_oracle),
    Case("exr-float-rgba", ".exr", _exr("R,G,B,A", np.float32), Expect(4, True, bit_depth=32, hdr=True), _exr_oracle),
    Case("exr-uint-y", ".exr", _exr("Y", np.uint32), Expect(1, False, grey=True, bit_depth=32, hdr=True), _exr_oracle),
    Case("exr-float-depth", ".exr", _exr("Z", np.float32), Expect(1, False, grey=True, bit_depth=32, hdr=True), _exr_oracle),
    Case("exr-layers", ".exr", _exr("diffuse.R,diffuse.G,diffuse.B,specular.R", np.float16),
         Expect(3, False, bit_depth=16, hdr=True), _exr_oracle),
    *[Case(f"exr-{c.split('_')[0].lower()}", ".exr", _exr("R,G,B,A", np.float16, compression=getattr(OpenEXR.Compression, c)),
           Expect(4, True, bit_depth=16, hdr=True), _exr_oracle, (*SMALL_SIZES, (300, 70)))
      for c in _COMPRESSIONS],
    Case("exr-tiled-half", ".exr", _exr("R,G,B,A", np.float16, tiles=(8, 8, OpenEXR.ONE_LEVEL, DOWN)),
         Expect(4, True, bit_depth=16, hdr=True), _exr_oracle),
    Case("exr-tiled-float-zip", ".exr", _exr("R,G,B", np.float32, compression=OpenEXR.ZIP_COMPRESSION, tiles=(16, 16, OpenEXR.ONE_LEVEL, DOWN)),
         Expect(3, False, bit_depth=32, hdr=True), _exr_oracle),
    # The openexr package writes only the first level of a mip- or rip-mapped file, which its
    # own reader then refuses (test_exr_hdr.py); these are written by the layout spec, every
    # level, and read back by the openexr package.
    Case("exr-mip-down", ".exr", lambda w, h: fx.exr_tiled_levels_bytes(w, h, mode=1), _levels(False), _exr_oracle,
         (*SMALL_SIZES, (300, 7), (16384, 2))),
    Case("exr-mip-up", ".exr", lambda w, h: fx.exr_tiled_levels_bytes(w, h, mode=1, round_up=True), _levels(True), _exr_oracle,
         (*SMALL_SIZES, (300, 7), (2, 16384))),
    Case("exr-mip-tile-32", ".exr", lambda w, h: fx.exr_tiled_levels_bytes(w, h, tile=32, mode=1), _levels(False), _exr_oracle,
         (*SMALL_SIZES, (300, 7))),
    Case("exr-rip", ".exr", lambda w, h: fx.exr_tiled_levels_bytes(w, h, mode=2, round_up=True), Expect(4, True, bit_depth=16, hdr=True),
         _exr_oracle, (*SMALL_SIZES, (300, 7))),
]


# --- Radiance HDR (RGBE) -------------------------------------------------------------------------


def _rle_channel(values: bytes) -> bytes:
    """New-style RLE of one channel of a scanline: runs of 3..127 equal bytes as (128 + n,
    byte), the rest as dumps of up to 128 literal bytes (n, bytes), as Radiance writes."""
    out, i = bytearray(), 0
    while i < len(values):
        run = 1
        while i + run < len(values) and run < 127 and values[i + run] == values[i]:
            run += 1
        if run >= 3:
            out += bytes([128 + run, values[i]])
            i += run
            continue
        j = i
        while j < len(values) and j - i < 128 and not (j + 2 < len(values) and values[j] == values[j + 1] == values[j + 2]):
            j += 1
        out += bytes([j - i]) + values[i:j]
        i = j
    return bytes(out)


def _hdr(width: int, height: int, *, axes: str, rle: bool) -> bytes:
    """``axes`` is the resolution line's shape, e.g. ``-Y {h} +X {w}`` (N scanlines of M
    pixels) or ``+X {w} -Y {h}`` (scanlines are columns: M of N pixels). Scanlines are RLE
    (``02 02``, length, then each channel) when ``rle``, else flat RGBE pixels."""
    columns = axes.startswith(("+X", "-X"))
    lines, length = (width, height) if columns else (height, width)
    head = b"#?RADIANCE\n# written by the texbudget corpus test\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n"
    head += axes.format(w=width, h=height).encode() + b"\n"
    body = bytearray()
    for y in range(lines):
        pixels = [_pixels(length, salt=y * 4 + c) for c in range(3)] + [bytes([128]) * length]
        if rle:
            body += bytes([2, 2, length >> 8, length & 0xFF]) + b"".join(_rle_channel(p) for p in pixels)
        else:
            body += bytes(v for x in range(length) for v in (pixels[0][x], pixels[1][x], pixels[2][x], 128))
    return head + bytes(body)


#: Sizes for the Radiance cases: with a long scanline on either axis (8x1000, 1000x8).
_HDR_SIZES = (*SIZES, (8, 1000), (1000, 8))


def _hdr_sizes(axes: str, rle: bool) -> tuple[tuple[int, int], ...]:
    """Every size, flat; for RLE the sizes whose scanlines (rows, or columns when X comes
    first) are 8 to 32767 pixels, the lengths new-style RLE encodes."""
    columns = axes.startswith(("+X", "-X"))
    return tuple((w, h) for w, h in _HDR_SIZES if not rle or 8 <= (h if columns else w) < 32768)


HDR_AXES = {"minusY-plusX": "-Y {h} +X {w}", "plusY-plusX": "+Y {h} +X {w}", "minusY-minusX": "-Y {h} -X {w}",
            "plusX-minusY": "+X {w} -Y {h}", "minusX-plusY": "-X {w} +Y {h}"}
HDR_CASES = [
    Case(f"hdr-{name}-{'rle' if rle else 'flat'}", ".hdr", lambda w, h, axes=axes, rle=rle: _hdr(w, h, axes=axes, rle=rle),
         Expect(3, False, bit_depth=32, hdr=True), None, _hdr_sizes(axes, rle))
    for name, axes in HDR_AXES.items() for rle in (False, True)
]

CASES = PSD_CASES + BMP_CASES + TIFF_CASES + EXR_CASES + HDR_CASES
ROWS, IDS = params(CASES)


@pytest.mark.parametrize(("case", "width", "height"), ROWS, ids=IDS)
def test_a_file_written_by_its_spec_or_openexr_is_read(tmp_path: Path, case: Case, width: int, height: int) -> None:
    check(tmp_path, case, width, height)


def test_the_spec_corpus_covers_every_format_pillow_cannot_write() -> None:
    assert {c.suffix for c in CASES} == {".psd", ".bmp", ".tif", ".exr", ".hdr"}
    assert {"NO_COMPRESSION", "ZIP_COMPRESSION", "PIZ_COMPRESSION", "DWAB_COMPRESSION"} <= set(_COMPRESSIONS)
