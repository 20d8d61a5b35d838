"""Issue 21 item 4: a file the reference library opens is never an error. Every image kind
Pillow writes — PNG, JPEG, WebP, TGA, GIF, BMP, TIFF, DDS, in every mode and option that
matters — at awkward sizes (1x1, 3x5, 17x9, 16384 wide and tall where the encoder allows it),
opened and decoded by Pillow, then read by texbudget: no error finding, and the exact size,
channels, alpha and bit depth. (Files Pillow cannot write are in ``test_corpus_spec.py``.)

Channel conventions (``readers/images.py``): palette images 3 channels, 4 with transparency;
grey 1, 2 with alpha; CMYK, YCbCr and Lab 3 (converted to RGB on import). The mode each case
names is the one Pillow opens the file as, asserted, so each row says what the reference
reader sees next to what texbudget reports.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from tests.readers import factories as fx
from tests.readers.corpus import SMALL_SIZES, Case, Expect, check, params


def _pillow(mode: str, frames: int = 1, transparency: bool = False) -> Callable[[Path], tuple[int, int]]:
    """The oracle: Pillow opens the file as ``mode`` with ``frames`` frames (and a
    transparent colour or not) and decodes each."""

    def oracle(path: Path) -> tuple[int, int]:
        with Image.open(path) as im:
            assert (im.mode, getattr(im, "n_frames", 1), "transparency" in im.info) == (mode, frames, transparency)
            for i in range(frames):
                im.seek(i)
                im.load()
            return im.size

    return oracle


#: A palette of colours (Pillow's default palette is grey, which its readers of BMP and TGA
#: take for a grey image).
_PALETTE = [c for i in range(256) for c in (i, 255 - i, (7 * i) % 256)]


def _save(fmt: str, mode: str, colour: object = 1, **options: object) -> Callable[[int, int], bytes]:
    def write(width: int, height: int) -> bytes:
        image = Image.new(mode, (width, height), colour)
        if mode == "P":
            image.putpalette(_PALETTE)
        buf = io.BytesIO()
        image.save(buf, format=fmt, **options)
        return buf.getvalue()

    return write


def _animated(fmt: str, mode: str = "RGB", **options: object) -> Callable[[int, int], bytes]:
    return lambda w, h: fx.animated_bytes(fmt, (w, h), frames=3, mode=mode, **options)


#: WebP's encoder stops at 16383 on a side.
WEBP_SIZES = (*SMALL_SIZES, (16383, 2), (2, 16383))
RGB, RGBA = Expect(3, False), Expect(4, True)
GREY, GREY_ALPHA = Expect(1, False, grey=True), Expect(2, True, grey=True)
PALETTE, PALETTE_ALPHA = Expect(3, False, palette=True), Expect(4, True, palette=True)

CASES = [
    # PNG: every mode Pillow writes, with and without tRNS transparency
    Case("png-1", ".png", _save("PNG", "1"), GREY, _pillow("1")),
    Case("png-L", ".png", _save("PNG", "L"), GREY, _pillow("L")),
    Case("png-LA", ".png", _save("PNG", "LA", (1, 2)), GREY_ALPHA, _pillow("LA")),
    Case("png-P", ".png", _save("PNG", "P"), PALETTE, _pillow("P")),
    Case("png-P-trns", ".png", _save("PNG", "P", transparency=1), PALETTE_ALPHA, _pillow("P", transparency=True)),
    Case("png-L-trns", ".png", _save("PNG", "L", transparency=0), GREY_ALPHA, _pillow("L", transparency=True)),
    Case("png-RGB", ".png", _save("PNG", "RGB", (1, 2, 3)), RGB, _pillow("RGB")),
    Case("png-RGB-trns", ".png", _save("PNG", "RGB", (1, 2, 3), transparency=(0, 0, 0)), RGBA, _pillow("RGB", transparency=True)),
    Case("png-RGBA", ".png", _save("PNG", "RGBA", (1, 2, 3, 4)), RGBA, _pillow("RGBA")),
    Case("png-I16", ".png", _save("PNG", "I;16", 300), Expect(1, False, grey=True, bit_depth=16), _pillow("I;16")),
    Case("png-icc", ".png", _save("PNG", "RGB", icc_profile=fx.icc_profile(b"sRGB IEC61966-2.1")), RGB, _pillow("RGB")),
    Case("apng", ".png", _animated("PNG"), Expect(3, False, findings=("TB062",)), _pillow("RGB", 3)),
    # JPEG
    Case("jpeg-L", ".jpg", _save("JPEG", "L"), GREY, _pillow("L")),
    Case("jpeg-RGB", ".jpg", _save("JPEG", "RGB", (1, 2, 3)), RGB, _pillow("RGB")),
    Case("jpeg-CMYK", ".jpg", _save("JPEG", "CMYK", (1, 2, 3, 4)), RGB, _pillow("CMYK")),
    Case("jpeg-progressive", ".jpeg", _save("JPEG", "RGB", (1, 2, 3), progressive=True), RGB, _pillow("RGB")),
    Case("jpeg-progressive-L", ".jpg", _save("JPEG", "L", progressive=True), GREY, _pillow("L")),
    Case("jpeg-420-q95-icc", ".jpg", _save("JPEG", "RGB", (9, 9, 9), quality=95, subsampling=2, icc_profile=fx.icc_profile(b"sRGB")),
         RGB, _pillow("RGB")),
    # WebP (the encoder stops at 16383 on a side)
    Case("webp-lossy", ".webp", _save("WEBP", "RGB", (1, 2, 3)), RGB, _pillow("RGB"), WEBP_SIZES),
    Case("webp-lossy-alpha", ".webp", _save("WEBP", "RGBA", (1, 2, 3, 4)), RGBA, _pillow("RGBA"), WEBP_SIZES),
    Case("webp-lossless", ".webp", _save("WEBP", "RGB", (1, 2, 3), lossless=True), RGB, _pillow("RGB"), WEBP_SIZES),
    Case("webp-lossless-alpha", ".webp", _save("WEBP", "RGBA", (1, 2, 3, 4), lossless=True), RGBA, _pillow("RGBA"),
         WEBP_SIZES),
    Case("webp-lossless-smallest", ".webp", _save("WEBP", "RGBA", (0, 0, 0, 0), lossless=True, quality=100, method=6), RGBA,
         _pillow("RGBA"), WEBP_SIZES),
    Case("webp-icc", ".webp", _save("WEBP", "RGB", icc_profile=fx.icc_profile(b"sRGB IEC61966-2.1")), RGB, _pillow("RGB"), SMALL_SIZES),
    Case("webp-icc-lossless-alpha", ".webp", _save("WEBP", "RGBA", (1, 2, 3, 4), lossless=True, icc_profile=fx.icc_profile(b"sRGB")),
         RGBA, _pillow("RGBA"), SMALL_SIZES),
    Case("webp-exif", ".webp", _save("WEBP", "RGB", exif=b"Exif\0\0II*\0\x08\0\0\0\0\0"), RGB, _pillow("RGB"), SMALL_SIZES),
    Case("webp-animated", ".webp", _animated("WEBP"), Expect(3, False, findings=("TB062",)), _pillow("RGB", 3), SMALL_SIZES),
    Case("webp-animated-lossless-alpha", ".webp", _animated("WEBP", "RGBA", lossless=True), Expect(4, True, findings=("TB062",)),
         _pillow("RGBA", 3), SMALL_SIZES),
    # TGA: raw and RLE, with and without alpha, both origins (bottom-left, top-left)
    *[Case(f"tga-{mode}{'-rle' if rle else ''}-{origin}", ".tga",
           _save("TGA", mode, 1 if mode in ("L", "P") else (1,) * len(mode), orientation=1 if origin == "top" else -1,
                 **({"compression": "tga_rle"} if rle else {})),
           expect, _pillow(mode))
      for mode, expect in (("RGB", RGB), ("RGBA", RGBA), ("L", GREY), ("LA", GREY_ALPHA), ("P", PALETTE))
      for rle in (False, True) for origin in ("bottom", "top")],
    Case("tga-1", ".tga", _save("TGA", "1"), GREY, _pillow("1")),
    # GIF
    Case("gif", ".gif", _save("GIF", "P", 3), PALETTE, _pillow("P")),
    Case("gif-transparent", ".gif", _save("GIF", "P", 0, transparency=0), PALETTE_ALPHA, _pillow("P", transparency=True)),
    Case("gif-animated", ".gif", _animated("GIF"), PALETTE, _pillow("P", 3)),
    # BMP (what Pillow writes: 1, 8 and 24 bits, and 32 bits from RGBA, which Pillow reads back as RGB)
    Case("bmp-1", ".bmp", _save("BMP", "1"), GREY, _pillow("1")),
    Case("bmp-8-L", ".bmp", _save("BMP", "L"), GREY, _pillow("L")),
    Case("bmp-8-P", ".bmp", _save("BMP", "P", 3), PALETTE, _pillow("P")),
    Case("bmp-24", ".bmp", _save("BMP", "RGB", (1, 2, 3)), RGB, _pillow("RGB")),
    Case("bmp-32", ".bmp", _save("BMP", "RGBA", (1, 2, 3, 4)), RGB, _pillow("RGB")),
    # TIFF: modes, 16 and 32 bits, every compression Pillow writes for the mode, BigTIFF, pages
    *[Case(f"tiff-{name}", ".tif", _save("TIFF", mode, colour), expect, _pillow(mode))
      for name, mode, colour, expect in (
          ("1", "1", 1, GREY), ("L", "L", 1, GREY), ("LA", "LA", (1, 2), GREY_ALPHA), ("P", "P", 1, PALETTE),
          ("RGB", "RGB", (1, 2, 3), RGB), ("RGBA", "RGBA", (1, 2, 3, 4), RGBA), ("CMYK", "CMYK", (1, 2, 3, 4), RGB),
          ("YCbCr", "YCbCr", (1, 2, 3), RGB), ("LAB", "LAB", (1, 2, 3), RGB),
          ("I16", "I;16", 300, Expect(1, False, grey=True, bit_depth=16)),
          ("I16B", "I;16B", 300, Expect(1, False, grey=True, bit_depth=16)),
          ("I32", "I", 70000, Expect(1, False, grey=True, bit_depth=32)),
          ("F32", "F", 1.5, Expect(1, False, grey=True, bit_depth=32, hdr=True)))],
    *[Case(f"tiff-{mode.replace(';', '')}-{compression}", ".tif", _save("TIFF", mode, 1, compression=compression),
           {"1": GREY, "L": GREY, "RGB": RGB, "RGBA": RGBA, "I;16": Expect(1, False, grey=True, bit_depth=16)}[mode], _pillow(mode))
      for compression, modes in (
          ("tiff_lzw", ("1", "L", "RGB", "RGBA", "I;16")), ("tiff_adobe_deflate", ("1", "L", "RGB", "RGBA", "I;16")),
          ("packbits", ("1", "L", "RGB", "RGBA", "I;16")), ("lzma", ("L", "RGB", "I;16")), ("zstd", ("L", "RGB", "I;16")),
          ("jpeg", ("L", "RGB", "RGBA")), ("group3", ("1",)), ("group4", ("1",)))
      for mode in modes],
    Case("tiff-bigtiff", ".tif", _save("TIFF", "RGB", (1, 2, 3), big_tiff=True), RGB, _pillow("RGB")),
    Case("tiff-pages", ".tif", lambda w, h: fx.animated_bytes("TIFF", (w, h), frames=3), RGB, _pillow("RGB", 3)),
    # DDS: what Pillow writes
    Case("dds-dxt1", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4), pixel_format="DXT1"), Expect(4, True, stored_format="BC1_RGBA_UNORM"),
         _pillow("RGBA")),
    Case("dds-dxt3", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4), pixel_format="DXT3"), Expect(4, True, stored_format="BC2_UNORM"),
         _pillow("RGBA")),
    Case("dds-dxt5", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4), pixel_format="DXT5"), Expect(4, True, stored_format="BC3_UNORM"),
         _pillow("RGBA")),
    Case("dds-bc2-dx10", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4), pixel_format="BC2"),
         Expect(4, True, stored_format="BC2_UNORM", findings=("TB049",)), _pillow("RGBA")),
    Case("dds-bc3-dx10", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4), pixel_format="BC3"),
         Expect(4, True, stored_format="BC3_UNORM", findings=("TB049",)), _pillow("RGBA")),
    Case("dds-bc5-dx10", ".dds", _save("DDS", "RGB", (1, 2, 3), pixel_format="BC5"),
         Expect(2, False, stored_format="BC5_UNORM", findings=("TB049",)),
         _pillow("RGB")),
    Case("dds-RGB", ".dds", _save("DDS", "RGB", (1, 2, 3)), Expect(3, False, stored_format="B8G8R8_UNORM"), _pillow("RGB")),
    Case("dds-RGBA", ".dds", _save("DDS", "RGBA", (1, 2, 3, 4)), Expect(4, True, stored_format="B8G8R8A8_UNORM"), _pillow("RGBA")),
    Case("dds-L", ".dds", _save("DDS", "L"), Expect(1, False, grey=True, stored_format="R8_UNORM"), _pillow("L")),
    Case("dds-LA", ".dds", _save("DDS", "LA", (1, 2)), Expect(2, True, grey=True, stored_format="R8G8_UNORM"), _pillow("LA")),
]

ROWS, IDS = params(CASES)


@pytest.mark.parametrize(("case", "width", "height"), ROWS, ids=IDS)
def test_a_file_pillow_writes_and_reads_is_read(tmp_path: Path, case: Case, width: int, height: int) -> None:
    check(tmp_path, case, width, height)


def test_the_corpus_covers_every_format_pillow_writes_that_texbudget_reads() -> None:
    assert {c.suffix for c in CASES} == {".png", ".jpg", ".jpeg", ".webp", ".tga", ".gif", ".bmp", ".tif", ".dds"}
    assert len(ROWS) > 300
