"""Source images through Pillow headers (and our own WebP/PSD parsers): exact facts, and a
specific finding for every kind of broken file."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from tests.readers import factories as fx
from texbudget.model import TextureFacts
from texbudget.readers import Source, read_bytes, read_path
from texbudget.readers.images import read_image


def _one(data: bytes, name: str) -> TextureFacts:
    result = read_image(Source(rel=name, data=data, suffix_hint="." + name.rsplit(".", 1)[1]))
    assert result.findings == ()
    (facts,) = result.textures
    return facts


def _code(data: bytes, name: str) -> tuple[str, str]:
    result = read_image(Source(rel=name, data=data, suffix_hint="." + name.rsplit(".", 1)[1]))
    assert result.textures == ()
    (finding,) = result.findings
    return finding.code, finding.message


# (colour type, bit depth, tRNS) -> (channels, alpha, bit_depth, grey, palette)
PNG_CASES = [
    (2, 8, None, (3, False, 8, False, False)),
    (6, 8, None, (4, True, 8, False, False)),
    (0, 8, None, (1, False, 8, True, False)),
    (0, 16, None, (1, False, 16, True, False)),
    (0, 4, None, (1, False, 8, True, False)),
    (2, 16, None, (3, False, 16, False, False)),
    (6, 16, None, (4, True, 16, False, False)),
    (4, 8, None, (2, True, 8, True, False)),
    (4, 16, None, (2, True, 16, True, False)),
    (3, 8, None, (3, False, 8, False, True)),
    (3, 4, None, (3, False, 8, False, True)),
    (3, 8, b"\x00\xff", (4, True, 8, False, True)),
    (0, 8, b"\x00\x00", (2, True, 8, True, False)),
    (2, 8, b"\x00\x00\x00\x00\x00\x00", (4, True, 8, False, False)),
]


@pytest.mark.parametrize(("color_type", "bit_depth", "trns", "expected"), PNG_CASES)
def test_png_variants(color_type: int, bit_depth: int, trns: bytes | None, expected: tuple) -> None:
    data = fx.png_bytes(37, 21, color_type=color_type, bit_depth=bit_depth, trns=trns)
    facts = _one(data, "a.png")
    assert (facts.width, facts.height) == (37, 21)
    assert (facts.channels, facts.alpha, facts.bit_depth, facts.grey, facts.palette) == expected
    assert facts.container == "png"
    assert facts.disk_bytes == len(data)
    assert (facts.stored_format, facts.stored_levels, facts.level_bytes, facts.hdr) == (None, 1, (), False)


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ({}, None),
        ({"srgb": True}, "srgb"),
        ({"gamma": 45455}, "srgb"),
        ({"gamma": 100000}, "linear"),
        ({"icc_name": b"sRGB IEC61966-2.1"}, "srgb"),
        ({"icc_name": b"Linear Rec709 (sRGB primaries)"}, "linear"),
        ({"srgb": True, "gamma": 100000}, "srgb"),
    ],
)
def test_png_color_space_hints(chunks: dict, expected: str | None) -> None:
    assert _one(fx.png_bytes(4, 4, **chunks), "a.png").color_space == expected


@pytest.mark.parametrize(
    ("fmt", "mode", "params", "name", "expected"),
    [
        # (container, channels, alpha, bit_depth, grey, palette, color_space, hdr)
        ("JPEG", "RGB", {}, "a.jpg", ("jpeg", 3, False, 8, False, False, "srgb", False)),
        ("JPEG", "L", {}, "a.jpeg", ("jpeg", 1, False, 8, True, False, "srgb", False)),
        ("JPEG", "CMYK", {}, "a.jpg", ("jpeg", 3, False, 8, False, False, "srgb", False)),
        ("TGA", "RGB", {}, "a.tga", ("tga", 3, False, 8, False, False, None, False)),
        ("TGA", "RGBA", {}, "a.tga", ("tga", 4, True, 8, False, False, None, False)),
        ("TGA", "L", {}, "a.tga", ("tga", 1, False, 8, True, False, None, False)),
        ("TGA", "RGBA", {"compression": "tga_rle"}, "a.tga", ("tga", 4, True, 8, False, False, None, False)),
        ("BMP", "RGB", {}, "a.bmp", ("bmp", 3, False, 8, False, False, None, False)),
        ("BMP", "P", {}, "a.bmp", ("bmp", 1, False, 8, True, False, None, False)),  # grey palette -> L
        ("TIFF", "RGB", {}, "a.tif", ("tiff", 3, False, 8, False, False, None, False)),
        ("TIFF", "RGBA", {}, "a.tiff", ("tiff", 4, True, 8, False, False, None, False)),
        ("TIFF", "I;16", {}, "a.tif", ("tiff", 1, False, 16, True, False, None, False)),
        ("TIFF", "F", {}, "a.tif", ("tiff", 1, False, 32, True, False, "linear", True)),
        ("GIF", "P", {}, "a.gif", ("gif", 3, False, 8, False, True, None, False)),
        ("GIF", "P", {"transparency": 0}, "a.gif", ("gif", 4, True, 8, False, True, None, False)),
        ("WEBP", "RGB", {}, "a.webp", ("webp", 3, False, 8, False, False, "srgb", False)),
        ("WEBP", "RGB", {"lossless": True}, "a.webp", ("webp", 3, False, 8, False, False, "srgb", False)),
        ("WEBP", "RGBA", {"lossless": True}, "a.webp", ("webp", 4, True, 8, False, False, "srgb", False)),
        ("WEBP", "RGBA", {"quality": 50}, "a.webp", ("webp", 4, True, 8, False, False, "srgb", False)),
        ("PNG", "I;16", {}, "a.png", ("png", 1, False, 16, True, False, None, False)),
        ("PNG", "P", {"transparency": 1}, "a.png", ("png", 4, True, 8, False, True, None, False)),
    ],
)
def test_pillow_written_images(fmt: str, mode: str, params: dict, name: str, expected: tuple) -> None:
    data = fx.pillow_bytes(fmt, mode, (45, 23), **params)
    facts = _one(data, name)
    assert (facts.width, facts.height, facts.disk_bytes) == (45, 23, len(data))
    got = (facts.container, facts.channels, facts.alpha, facts.bit_depth, facts.grey, facts.palette, facts.color_space, facts.hdr)
    assert got == expected


def test_jpeg_with_linear_icc_profile_is_linear() -> None:
    data = fx.pillow_bytes("JPEG", "RGB", (8, 8), icc_profile=fx.icc_profile(b"Linear sRGB"))
    assert _one(data, "a.jpg").color_space == "linear"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # (channels, alpha, bit_depth, grey, palette, hdr, color_space)
        ({"channels": 3}, (3, False, 8, False, False, False, None)),
        ({"channels": 4}, (4, True, 8, False, False, False, None)),
        ({"channels": 3, "depth": 16}, (3, False, 16, False, False, False, None)),
        ({"channels": 4, "depth": 32}, (4, True, 32, False, False, True, "linear")),
        ({"channels": 1, "mode": 1}, (1, False, 8, True, False, False, None)),
        ({"channels": 2, "mode": 1, "depth": 16}, (2, True, 16, True, False, False, None)),
        ({"channels": 1, "mode": 2}, (3, False, 8, False, True, False, None)),
        ({"channels": 4, "mode": 4}, (3, False, 8, False, False, False, None)),
        ({"channels": 5, "mode": 4}, (4, True, 8, False, False, False, None)),
        ({"channels": 3, "version": 2}, (3, False, 8, False, False, False, None)),
    ],
)
def test_psd_headers(kwargs: dict, expected: tuple) -> None:
    data = fx.psd_bytes(40, 30, **kwargs)
    facts = _one(data, "art.psd")
    assert (facts.container, facts.width, facts.height, facts.disk_bytes) == ("psd", 40, 30, len(data))
    assert (facts.channels, facts.alpha, facts.bit_depth, facts.grey, facts.palette, facts.hdr, facts.color_space) == expected


def _psd_rle(psb: bool, rows: int = 3 * 6, row: bytes = b"\x00\x07" + bytes(8)) -> bytes:
    """An 8x6 RGB PSD (or PSB) whose merged image is RLE: a row-length table, then rows."""
    head = fx.psd_bytes(8, 6, version=2 if psb else 1)[:26]
    sections = struct.pack(">III", 0, 0, 0) if not psb else struct.pack(">IIQ", 0, 0, 0)
    counts = struct.pack(f">{rows}{'I' if psb else 'H'}", *[len(row)] * rows)
    return head + sections + struct.pack(">H", 1) + counts + row * rows


@pytest.mark.parametrize("psb", [False, True])
def test_psd_merged_image_cut_short_is_truncated(psb: bool) -> None:
    raw = fx.psd_bytes(8, 6, version=2 if psb else 1)
    assert _one(raw, "a.psd").width == 8
    assert _code(raw[:-5], "a.psd") == ("TB043", f"PSD pixel data truncated: the merged image (raw) ends at {len(raw)}, the file at {len(raw) - 5} (5 bytes missing)")
    rle = _psd_rle(psb)
    assert _one(rle, "a.psd").width == 8
    assert _code(rle[:-3], "a.psd") == ("TB043", f"PSD pixel data truncated: the merged image (RLE) ends at {len(rle)}, the file at {len(rle) - 3} (3 bytes missing)")
    sections_end = 26 + (16 if psb else 12)
    assert _code(raw[:sections_end - 1], "a.psd")[0] == "TB043"  # the layer section's length cut
    assert _code(raw[:sections_end + 1], "a.psd")[1].endswith(f"the merged image's compression word at {sections_end + 2}, the file at {sections_end + 1}")
    zipped = raw[:sections_end] + struct.pack(">H", 2) + b"zip data, no length to check"
    assert _one(zipped, "a.psd").width == 8


def test_huge_png_header_is_read_without_pillows_bomb_guard() -> None:
    """20000x20000 is over Pillow's decompression-bomb error limit (2 x 89.5 Mpx); texbudget
    decodes nothing, so the header's size is reported."""
    facts = _one(fx.png_huge_bytes(20000, 20000), "big.png")
    assert (facts.width, facts.height) == (20000, 20000)


def test_image_on_disk(tmp_path) -> None:
    data = fx.png_bytes(64, 32, color_type=6)
    fx.write(tmp_path, "sub/a.png", data)
    result = read_path(tmp_path, "sub/a.png")
    (facts,) = result.textures
    assert (facts.path, facts.width, facts.height, facts.alpha, facts.disk_bytes) == ("sub/a.png", 64, 32, True, len(data))


def test_a_file_whose_name_holds_a_hash_is_read_by_its_own_suffix(tmp_path) -> None:
    # "#" names a part inside a file (scene.glb#image/0) only for bytes in memory: on disk a
    # TGA (which has no signature to sniff) named rock#1_n.tga is still a TGA.
    fx.write(tmp_path, "t/rock#1_n.tga", fx.pillow_bytes("TGA", "RGBA", (16, 8)))
    result = read_path(tmp_path, "t/rock#1_n.tga")
    assert result.findings == ()
    (facts,) = result.textures
    assert (facts.path, facts.container, facts.width, facts.height) == ("t/rock#1_n.tga", "tga", 16, 8)
    assert Source(rel="x.glb#image/0", data=b"", suffix_hint=".PNG").suffix == ".png"


def test_jpeg_named_png_is_read_as_jpeg_with_tb003(tmp_path) -> None:
    fx.write(tmp_path, "photo.png", fx.pillow_bytes("JPEG", "RGB", (10, 12)))
    result = read_path(tmp_path, "photo.png")
    assert [f.code for f in result.findings] == ["TB003"]
    (facts,) = result.textures
    assert (facts.container, facts.width, facts.height) == ("jpeg", 10, 12)


def test_image_bytes_in_memory_without_hint_is_sniffed() -> None:
    result = read_bytes("scene.glb#image/0", fx.png_bytes(8, 4))
    (facts,) = result.textures
    assert (facts.path, facts.container, facts.width, facts.height) == ("scene.glb#image/0", "png", 8, 4)


# --- broken files -------------------------------------------------------------------------


def _png_with_ihdr(width: int, height: int) -> bytes:
    good = fx.png_bytes(4, 4)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return good[:16] + ihdr + good[29:]


def _noise_jpeg() -> bytes:
    """A JPEG of noise, about 12 KB: its pixel data runs past the 4 KiB the tail check reads."""
    buf = io.BytesIO()
    Image.effect_noise((96, 96), 80).convert("RGB").save(buf, format="JPEG", quality=95)
    return buf.getvalue()


BROKEN = [
    ("empty.png", b"", "TB040"),
    ("empty.jpg", b"", "TB040"),
    ("text.png", b"this is not a png at all, just text", "TB041"),
    ("text.jpg", b"hello world", "TB041"),
    ("text.gif", b"GIF00a" + bytes(20), "TB041"),
    ("dds.png", b"DDS " + bytes(200), "TB041"),
    ("sig.png", fx.PNG_SIGNATURE[:5], "TB042"),
    ("head.png", fx.png_bytes(4, 4)[:20], "TB042"),
    ("head.gif", b"GIF89a\x10\x00", "TB042"),
    ("head.bmp", fx.pillow_bytes("BMP", "RGB")[:20], "TB042"),
    ("head.psd", fx.psd_bytes()[:20], "TB042"),
    ("head.webp", fx.pillow_bytes("WEBP", "RGB")[:20], "TB042"),
    ("head.jpg", b"\xff\xd8", "TB042"),
    ("cut.png", fx.png_bytes(64, 64)[:-30], "TB043"),
    ("cut.jpg", fx.pillow_bytes("JPEG", "RGB", (64, 64))[:-1], "TB043"),
    ("cut-half.jpg", _noise_jpeg()[: len(_noise_jpeg()) // 2], "TB043"),
    ("cut.bmp", fx.pillow_bytes("BMP", "RGB", (32, 32))[:-100], "TB043"),
    ("cut.tga", fx.pillow_bytes("TGA", "RGB", (32, 32))[:-100], "TB043"),
    ("cut.tif", fx.pillow_bytes("TIFF", "RGB", (32, 32))[:-10], "TB043"),
    ("cut.webp", fx.pillow_bytes("WEBP", "RGB", (64, 64))[:-10], "TB043"),
    ("zero.png", _png_with_ihdr(0, 16), "TB044"),
    ("zero.gif", b"GIF89a" + struct.pack("<HH", 0, 5) + bytes(20), "TB044"),
    ("zero.psd", fx.psd_bytes(0, 4), "TB044"),
    ("zero.tga", fx.pillow_bytes("TGA", "RGB", (4, 4))[:12] + b"\0\0\4\0" + fx.pillow_bytes("TGA", "RGB", (4, 4))[16:], "TB044"),
    ("huge.png", _png_with_ihdr(2**31, 16), "TB045"),
    ("huge.psd", fx.psd_bytes(70000, 4, channels=1, mode=1)[:40], "TB045"),
    ("noihdr.png", fx.PNG_SIGNATURE + b"\0\0\0\x01sRGB\0" + bytes(20), "TB054"),
    ("version.psd", fx.psd_bytes(version=3), "TB054"),
    ("badvp8l.webp", b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8L" + struct.pack("<I", 10) + b"\x00" + bytes(20), "TB054"),
]


@pytest.mark.parametrize(("name", "data", "code"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_images_give_their_specific_finding(name: str, data: bytes, code: str) -> None:
    got, message = _code(data, name)
    assert got == code, message


def _progressive_jpeg() -> bytes:
    buf = io.BytesIO()
    Image.effect_noise((96, 96), 80).convert("RGB").save(buf, format="JPEG", quality=95, progressive=True)
    return buf.getvalue()


@pytest.mark.parametrize("appended", [
    random.Random(7).randbytes(300_000),  # a motion photo's video: compressed data
    b"\x00\x00\x00\x18ftypmp42" + bytes(20_000) + b"\x00\x00\x10\x00moov" + bytes(4_000),  # MP4 boxes, no FF
    bytes(10_000) + b"SEFH" + bytes(200) + b"\xc8\x00\x00\x00SEFT",  # Samsung's trailer
], ids=["video", "mp4-boxes", "samsung"])
def test_a_jpeg_with_data_appended_after_its_end_is_not_reported_cut(appended: bytes) -> None:
    # a phone's motion photo is a JPEG with its video after the end-of-image marker
    result = read_bytes("photo.jpg", _noise_jpeg() + appended, ".jpg")
    assert result.findings == ()
    assert (result.textures[0].width, result.textures[0].height) == (96, 96)


def test_a_cut_progressive_jpeg_is_still_reported_cut() -> None:
    # its tail holds the markers between scans (FF C4, FF DA), which are JPEG data
    data = _progressive_jpeg()
    for cut in (len(data) // 2, len(data) - 1, len(data) - 300):
        assert _code(data[:cut], "cut.jpg")[0] == "TB043"


def test_truncated_bmp_says_how_many_bytes_are_missing() -> None:
    data = fx.pillow_bytes("BMP", "RGB", (32, 32))
    _, message = _code(data[:-100], "cut.bmp")
    assert message.endswith(f"the header needs {len(data)} bytes, the file has {len(data) - 100} (100 bytes missing)")


def test_zero_width_png_message() -> None:
    code, message = _code(_png_with_ihdr(0, 16), "zero.png")
    assert (code, message) == ("TB044", "PNG header gives size 0x16; every dimension must be at least 1")


def test_pillow_errors_become_findings(tmp_path) -> None:
    """A TIFF whose first IFD offset points past the end: Pillow raises, we report."""
    data = b"II*\x00" + struct.pack("<I", 10_000) + bytes(8)
    code, _ = _code(data, "bad.tif")
    assert code in ("TB042", "TB054")


@pytest.mark.parametrize(("params", "shown"), [({}, "its first frame"), ({"default_image": True}, "its default image")],
                         ids=["first-frame", "default-image"])
def test_an_apng_is_priced_as_one_image_with_a_warning(params: dict, shown: str) -> None:
    data = fx.animated_bytes("PNG", (17, 9), frames=3, **params)
    with Image.open(io.BytesIO(data)) as im:  # the oracle: Pillow sees an animation on a 17x9 canvas
        assert (im.size, im.n_frames) == ((17, 9), 3)
    result = read_bytes("anim.png", data, ".png")
    (facts,) = result.textures
    assert (facts.width, facts.height, facts.channels) == (17, 9, 3)
    assert [(f.code, f.severity.value, f.message) for f in result.findings] == [
        ("TB062", "warning", f"APNG of 3 frames: priced as one 17x9 image, {shown}, which a PNG decoder shows")]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_an_apng_of_one_frame_is_a_png() -> None:
    """acTL says one frame, and the fcTL before IDAT makes the default image that frame."""
    png = fx.png_bytes(17, 9)
    fctl = struct.pack(">IIIIIHHBB", 0, 17, 9, 0, 0, 1, 10, 0, 0)
    data = png[:33] + _chunk(b"acTL", struct.pack(">II", 1, 0)) + _chunk(b"fcTL", fctl) + png[33:]
    with Image.open(io.BytesIO(data)) as im:
        assert im.n_frames == 1
    assert read_bytes("one.png", data, ".png").findings == ()


def test_a_bigtiff_is_read() -> None:
    """Before: 'II+\\0' was no TIFF signature to texbudget (TB041); Pillow writes and reads it."""
    data = fx.pillow_bytes("TIFF", "RGB", (17, 9), big_tiff=True)
    assert data[:4] == b"II+\x00"
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        assert (im.mode, im.size) == ("RGB", (17, 9))
    facts = _one(data, "big.tif")
    assert (facts.container, facts.width, facts.height, facts.channels) == ("tiff", 17, 9, 3)
    assert read_bytes("big.tif", data).textures[0].width == 17  # sniffed without a suffix hint too


def test_a_bigtiff_cut_inside_its_directory_is_truncated() -> None:
    data = fx.pillow_bytes("TIFF", "F", (16, 8), big_tiff=True)  # 10 entries of 20 bytes at offset 16
    assert _code(data[:200], "big.tif") == ("TB042", "TIFF header truncated: the first image directory ends at 232, the file at 200")


def test_a_tiff_whose_strip_byte_counts_overshoot_but_whose_rows_are_there_is_read() -> None:
    """Pillow's own test file tiff_wrong_bits_per_sample.tiff has StripByteCounts of 35 MB in
    an 11 KB file that holds every row; Pillow reads it by the image's size. Before: TB043
    '35,700,416 bytes missing'. A file cut inside its rows is still TB043."""
    from tests.robustness.seeds import seed, set_field

    s = seed("rgb.tif")  # one uncompressed strip of 16x8 RGB: 384 bytes
    data = set_field(s.data, s.fields[s.field("tag279.value")], 35_711_440)
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        assert (im.mode, im.size) == ("RGB", (16, 8))
    result = read_bytes("a.tif", data, ".tif")
    (facts,) = result.textures
    assert (facts.width, facts.height, facts.channels) == (16, 8, 3)
    assert [(f.code, f.severity.value) for f in result.findings] == [("TB055", "warning")]
    assert "the uncompressed rows the image's size needs (384 bytes) are all in the file" in result.findings[0].message
    assert _code(data[:-1], "a.tif")[0] == "TB043"
