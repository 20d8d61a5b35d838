"""WebP (RFC 9649): every layout Pillow writes is read, header-only, with Pillow's size and
alpha; every file libwebp refuses gets a finding that says why, and Pillow refusing it too is
asserted, so the verdicts rest on the reference library rather than on our own reading."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import Image

from tests.readers import factories as fx
from texbudget.model import ReadResult, TextureFacts
from texbudget.readers import read_bytes


def _read(data: bytes) -> ReadResult:
    return read_bytes("a.webp", data, ".webp")


def _facts(data: bytes) -> TextureFacts:
    result = _read(data)
    assert result.findings == ()
    (facts,) = result.textures
    return facts


def _pillow(data: bytes) -> tuple[str, tuple[int, int], int]:
    """(mode, size, frames) as Pillow gives them, after decoding every frame."""
    with Image.open(io.BytesIO(data)) as im:
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            im.load()
        return im.mode, im.size, getattr(im, "n_frames", 1)


def _pillow_refuses(data: bytes) -> None:
    with pytest.raises((OSError, SyntaxError, ValueError, EOFError)):
        _pillow(data)


def _error(data: bytes) -> tuple[str, str]:
    result = _read(data)
    assert result.textures == ()
    (finding,) = result.findings
    assert finding.severity.value == "error"
    return finding.code, finding.message


def _webp(image: Image.Image, **params: object) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="WEBP", **params)
    return buf.getvalue()


def _chunks(data: bytes, start: int = 12, end: int | None = None) -> list[tuple[bytes, int, int]]:
    """(FourCC, offset of the chunk header, payload size) of the chunks from ``start``."""
    end = len(data) if end is None else end
    out = []
    pos = start
    while pos + 8 <= end:
        size = struct.unpack_from("<I", data, pos + 4)[0]
        out.append((data[pos : pos + 4], pos, size))
        pos += 8 + size + (size & 1)
    return out


def _at(data: bytes, kind: bytes, nth: int = 0) -> int:
    """Offset of the header of the ``nth`` top-level chunk of this kind."""
    return [pos for k, pos, _ in _chunks(data) if k == kind][nth]


def _put(data: bytes, offset: int, raw: bytes) -> bytes:
    return data[:offset] + raw + data[offset + len(raw) :]


# --- what Pillow writes is read --------------------------------------------------------------


def test_a_28_byte_lossless_webp_is_read() -> None:
    """Issue 21: a flat 64x64 VP8L is 28 bytes (its header is 5 bytes after the chunk
    header); texbudget called it 'header truncated: needs 30'."""
    data = _webp(Image.new("RGBA", (64, 64), (0, 0, 0, 0)), lossless=True, quality=100, method=6)
    assert len(data) == 28 and data[12:16] == b"VP8L"
    assert _pillow(data) == ("RGBA", (64, 64), 1)
    facts = _facts(data)
    assert (facts.width, facts.height, facts.channels, facts.alpha, facts.disk_bytes) == (64, 64, 4, True, 28)


#: (name, image, save parameters, first chunk, Pillow's mode, channels, alpha, colour space)
WRITTEN = [
    ("lossy", Image.new("RGB", (17, 9), (9, 90, 200)), {}, b"VP8 ", "RGB", 3, False, "srgb"),
    ("lossy-1x1", Image.new("RGB", (1, 1)), {}, b"VP8 ", "RGB", 3, False, "srgb"),
    ("lossy-16383-wide", Image.new("RGB", (16383, 2)), {}, b"VP8 ", "RGB", 3, False, "srgb"),
    ("lossy-alpha", Image.new("RGBA", (17, 9), (9, 90, 200, 100)), {}, b"VP8X", "RGBA", 4, True, "srgb"),
    ("lossless", Image.new("RGB", (3, 5), (1, 2, 3)), {"lossless": True}, b"VP8L", "RGB", 3, False, "srgb"),
    ("lossless-alpha", Image.new("RGBA", (3, 5), (1, 2, 3, 4)), {"lossless": True}, b"VP8L", "RGBA", 4, True, "srgb"),
    ("lossless-16383-wide", Image.new("RGBA", (16383, 1)), {"lossless": True}, b"VP8L", "RGBA", 4, True, "srgb"),
    ("icc-linear", Image.new("RGB", (3, 5)), {"icc_profile": fx.icc_profile(b"Linear sRGB")}, b"VP8X", "RGB", 3, False, "linear"),
    ("icc-srgb", Image.new("RGB", (3, 5)), {"icc_profile": fx.icc_profile(b"sRGB IEC61966-2.1")}, b"VP8X", "RGB", 3, False, "srgb"),
    ("icc-lossless-alpha", Image.new("RGBA", (17, 9), (1, 2, 3, 4)), {"lossless": True, "icc_profile": fx.icc_profile(b"Linear")},
     b"VP8X", "RGBA", 4, True, "linear"),
    ("exif-xmp", Image.new("RGB", (3, 5)), {"exif": b"Exif\0\0II*\0\x08\0\0\0\0\0", "xmp": b"<x:xmpmeta/>"}, b"VP8X", "RGB", 3, False, "srgb"),
]


@pytest.mark.parametrize(("image", "params", "first", "mode", "channels", "alpha", "color_space"),
                         [w[1:] for w in WRITTEN], ids=[w[0] for w in WRITTEN])
def test_every_still_layout_pillow_writes(image, params, first, mode, channels, alpha, color_space) -> None:
    data = _webp(image, **params)
    assert data[12:16] == first
    assert _pillow(data) == (mode, image.size, 1)
    facts = _facts(data)
    assert (facts.width, facts.height) == image.size
    assert (facts.channels, facts.alpha, facts.color_space, facts.bit_depth, facts.grey) == (channels, alpha, color_space, 8, False)


@pytest.mark.parametrize(("mode", "params"), [("RGB", {}), ("RGBA", {"lossless": True})], ids=["lossy", "lossless-alpha"])
def test_an_animated_webp_is_priced_as_its_canvas_with_a_warning(mode: str, params: dict) -> None:
    data = fx.animated_bytes("WEBP", (17, 9), frames=3, mode=mode, **params)
    assert [k for k, _, _ in _chunks(data)] == [b"VP8X", b"ANIM", b"ANMF", b"ANMF", b"ANMF"]
    assert _pillow(data) == (mode, (17, 9), 3)
    result = _read(data)
    (facts,) = result.textures
    assert (facts.width, facts.height, facts.channels, facts.alpha) == (17, 9, len(mode), mode == "RGBA")
    assert [(f.code, f.severity.value, f.message) for f in result.findings] == [
        ("TB062", "warning", "animated WebP: priced as one 17x9 image (its canvas, one frame); libwebp's still-image decoder, which Godot's importer uses, refuses animated WebP")]


# --- what libwebp refuses gets a finding that says why -----------------------------------------

_LOSSY = _webp(Image.new("RGB", (17, 9), (9, 90, 200)))
_LOSSLESS = _webp(Image.new("RGBA", (3, 5), (1, 2, 3, 4)), lossless=True)
_ICC = _webp(Image.new("RGB", (3, 5)), icc_profile=fx.icc_profile(b"sRGB"))
_ANIMATED = fx.animated_bytes("WEBP", (17, 9))


def _vp8_tag(data: bytes, change: int, mask: int) -> bytes:
    """The lossy file with its VP8 frame tag's bits under ``mask`` set to ``change``."""
    tag = int.from_bytes(data[20:23], "little")
    return _put(data, 20, ((tag & ~mask) | change).to_bytes(3, "little"))


REFUSED = [
    ("riff-size-too-small", _put(_LOSSY, 4, struct.pack("<I", 4)), "TB054",
     "WEBP: the RIFF chunk's size is 4; it must hold the form type and a chunk header (at least 12)"),
    ("first-chunk-unknown", _put(_LOSSY, 12, b"ALPH"), "TB054",
     "WEBP: the first chunk is b'ALPH'; a WebP starts with a 'VP8 ', 'VP8L' or 'VP8X' chunk"),
    ("vp8-not-a-key-frame", _vp8_tag(_LOSSY, 1, 1), "TB054", "WEBP lossy: the VP8 frame is not a key frame"),
    ("vp8-profile-5", _vp8_tag(_LOSSY, 5 << 1, 7 << 1), "TB054", "WEBP lossy: VP8 profile 5 (0-3 exist)"),
    ("vp8-not-shown", _vp8_tag(_LOSSY, 0, 1 << 4), "TB054", "WEBP lossy: the VP8 frame is marked not to be shown"),
    ("vp8-partition-too-long", _vp8_tag(_LOSSY, 4000 << 5, 0x7FFFF << 5), "TB054",
     f"WEBP lossy: the VP8 first partition (4000 bytes) is not inside the {len(_LOSSY) - 20}-byte chunk"),
    ("vp8-start-code", _put(_LOSSY, 23, b"\x9d\x01\x2b"), "TB054", "WEBP lossy: bad VP8 start code (must be 9d 01 2a)"),
    ("vp8l-version-1", _put(_LOSSLESS, 24, bytes([_LOSSLESS[24] | 0x20])), "TB054", "WEBP lossless: bitstream version 1 (only 0 exists)"),
    ("vp8l-signature", _put(_LOSSLESS, 20, b"\x2e"), "TB054", "WEBP lossless: bad signature byte 0x2e (must be 0x2f)"),
    ("vp8x-size-8", _put(_ICC, 16, struct.pack("<I", 8)), "TB054", "WEBP: the VP8X chunk is 8 bytes; it must be at least 10"),
    ("still-image-not-its-canvas", _put(_ICC, 24, (4 - 1).to_bytes(3, "little")), "TB054",
     "WEBP: the image is 3x5, the VP8X canvas 4x5; a still image must be its canvas size"),
    ("chunk-past-the-riff-end", _put(_ICC, 34, struct.pack("<I", 4000)), "TB054",
     f"WEBP: the 'ICCP' chunk at offset 30 (4000 bytes) runs past the end of the RIFF chunk at {len(_ICC)}"),
    ("frame-outside-the-canvas", _put(_ANIMATED, _at(_ANIMATED, b"ANMF") + 8, (1).to_bytes(3, "little")), "TB054",
     "WEBP: the first animation frame (17x9 at 2,0) lies outside the 17x9 canvas"),
    ("frame-before-anim", _put(_ANIMATED, _at(_ANIMATED, b"ANIM"), b"XYZW"), "TB054",
     "WEBP: an animation frame (ANMF) before the ANIM chunk (RFC 9649 requires ANIM first)"),
    ("frame-without-the-animation-flag", _put(_ANIMATED, 20, bytes([_ANIMATED[20] & ~0x02])), "TB054",
     "WEBP: an animation frame (ANMF) in a file whose VP8X does not set the animation flag"),
    ("cut", _LOSSY[:-10], "TB043",
     f"WEBP pixel data truncated: the RIFF chunk ends at {len(_LOSSY)}, the file at {len(_LOSSY) - 10} (10 bytes missing)"),
]


@pytest.mark.parametrize(("data", "code", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_file_libwebp_refuses_gets_a_finding_that_says_why(data: bytes, code: str, message: str) -> None:
    _pillow_refuses(data)
    assert _error(data) == (code, message)


def test_a_header_cut_short_is_tb042_naming_the_layout() -> None:
    assert _error(_LOSSY[:27]) == ("TB042", "WEBP header truncated: the file has 27 bytes, the VP8 (lossy) header needs 30")
    assert _error(_LOSSLESS[:24]) == ("TB042", "WEBP header truncated: the file has 24 bytes, the header needs 25")


def test_an_odd_last_chunk_without_its_padding_byte_is_read_with_a_warning() -> None:
    """libwebp's decoder (engines' importers) reads it; its demuxer, which Pillow uses, does
    not: the file is priced and the warning says what is wrong."""
    body = _LOSSLESS[20:]
    odd = len(body) | 1
    payload = body[:odd] if len(body) >= odd else body + b"\0"
    data = b"RIFF" + struct.pack("<I", 12 + len(payload)) + b"WEBPVP8L" + struct.pack("<I", len(payload)) + payload
    _pillow_refuses(data)
    result = _read(data)
    (facts,) = result.textures
    assert (facts.width, facts.height, facts.alpha) == (3, 5, True)
    assert [(f.code, f.severity.value) for f in result.findings] == [("TB055", "warning")]
    assert result.findings[0].message.startswith(f"WEBP: the last chunk 'VP8L' has an odd size ({len(payload)}) and no padding byte")
