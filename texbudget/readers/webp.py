"""WebP headers (RFC 9649, "WebP Image Format"): size, alpha and colour space of every kind of
WebP, read from its chunk headers without decoding a pixel.

A WebP is a RIFF chunk (``RIFF`` size ``WEBP``) holding chunks, each a FourCC, a u32 payload
size and the payload, padded to an even length. Three layouts (§2.5–2.7):

- simple lossy: one ``VP8 `` chunk, a VP8 key frame (RFC 6386 §9.1: a 3-byte frame tag, the
  start code ``9d 01 2a``, then width and height in 14 bits each; 10 bytes);
- simple lossless: one ``VP8L`` chunk (the WebP lossless bitstream: signature ``2f``, then
  14 bits of width − 1, 14 of height − 1, an alpha hint bit and a 3-bit version, 0; 5 bytes,
  so a whole flat lossless image can be a 28-byte file);
- extended: a ``VP8X`` chunk (flags: ICC 0x20, alpha 0x10, Exif 0x08, XMP 0x04, animation
  0x02; then the canvas width − 1 and height − 1 in 24 bits each), an optional ``ICCP``
  colour profile, then either one image (optional ``ALPH``, then ``VP8 `` or ``VP8L``, whose
  size must equal the canvas) or, for an animation, ``ANIM`` and one ``ANMF`` chunk per frame
  (a frame's x/2, y/2, width − 1, height − 1, duration, flags, then its own ALPH/VP8/VP8L
  chunks); Exif, XMP and unknown chunks anywhere after.

Reported, as Pillow (libwebp's demuxer) reports it: the canvas size; alpha from the VP8X alpha
flag, or a VP8L's alpha bit (a lossy simple file has none); 4 channels with alpha, else 3; 8
bits; colour space from the ICC profile's description when there is one, else sRGB (the
format's default, §2.7.1.4).

An animated WebP is priced as one image of its canvas size: one frame, as a still-image
importer would hold it (TB062 says so). Engines do not import animations as one texture:
libwebp's still-image decoder, which Godot's WebP importer calls, refuses an animated file
(``VP8_STATUS_UNSUPPORTED_FEATURE``); Pillow and browsers show the frames on the canvas.

Checked, as libwebp checks before it decodes (a file it refuses is an error here, saying
why): the RIFF size and the file's length, the first chunk (Pillow opens only ``VP8 ``,
``VP8L`` and ``VP8X`` files), the VP8 frame tag (a visible key frame of a known profile) and
the VP8L signature and version, the VP8X size, chunk sizes inside the RIFF chunk, a still
image equal to its canvas, the first frame of an animation inside the canvas. Later frames
of an animation are not read (they do not change what is priced). A last chunk of odd size
without its padding byte is read with a TB055 warning: libwebp's decoder accepts it, its
demuxer (Pillow, animation players) does not.
"""

from __future__ import annotations

import struct

from texbudget import findings
from texbudget.model import Finding, ReadResult, TextureFacts
from texbudget.readers import Source
from texbudget.readers._common import (
    ICC_LOOK_BYTES,
    check_dims,
    fail,
    icc_says_linear,
    texture_result,
)

#: RIFF header (12 bytes) + the first chunk's header (8).
_FIRST_PAYLOAD = 20
#: Payload bytes each kind of first chunk needs before the image size is known.
_HEADER_BYTES = {b"VP8 ": 10, b"VP8L": 5, b"VP8X": 10}
#: The fewest bytes a WebP can have before its size is known (a VP8L: 20 + 5).
MIN_HEADER = _FIRST_PAYLOAD + min(_HEADER_BYTES.values())
_NAMES = {b"VP8 ": "VP8 (lossy)", b"VP8L": "VP8L (lossless)", b"VP8X": "VP8X (extended)"}
_FLAG_ICC, _FLAG_ALPHA, _FLAG_ANIMATION = 0x20, 0x10, 0x02
#: Bytes of an ANMF chunk before its frame's own chunks.
_ANMF_HEADER = 16
#: Chunks of an extended file looked at before its image (ICCP, ANIM, unknown chunks): a
#: real file has a few; a hostile one is not walked further.
_MAX_CHUNKS = 1024
#: The largest frame area libwebp accepts (its ``MAX_IMAGE_AREA``, 2^32 − 1).
_MAX_AREA = (1 << 32) - 1


class _Bad(Exception):
    """A WebP that libwebp refuses: ``code`` and the message that says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def read_webp(src: Source, head: bytes, size: int) -> ReadResult:
    """Facts of one WebP file (``head``: its first bytes, at least ``MIN_HEADER`` of them).
    Never raises for a bad file."""
    try:
        return _read(src, head, size)
    except _Bad as bad:
        return fail(src.rel, bad.code, str(bad))


def _read(src: Source, head: bytes, size: int) -> ReadResult:
    if head[8:12] != b"WEBP":
        raise _Bad("TB041", "RIFF file without the WEBP form type")
    riff_size = _u32(head, 4)
    if riff_size < 12:
        raise _Bad("TB054", f"WEBP: the RIFF chunk's size is {riff_size}; it must hold the form type and a chunk header (at least 12)")
    kind, chunk_size = head[12:16], _u32(head, 16)
    need = _HEADER_BYTES.get(kind)
    if need is None:
        raise _Bad("TB054", f"WEBP: the first chunk is {kind!r}; a WebP starts with a 'VP8 ', 'VP8L' or 'VP8X' chunk")
    if len(head) < _FIRST_PAYLOAD + need:
        raise _Bad("TB042", f"WEBP header truncated: the file has {len(head)} bytes, the {_NAMES[kind]} header needs {_FIRST_PAYLOAD + need}")
    end = 8 + riff_size
    if end > size:
        raise _Bad("TB043", f"WEBP pixel data truncated: the RIFF chunk ends at {end}, the file at {size} ({end - size} bytes missing)")
    notes: list[Finding] = []
    _check_fits(src.rel, kind, _FIRST_PAYLOAD - 8, chunk_size, end, notes)
    icc = b""
    if kind == b"VP8X":
        if chunk_size < 10:
            raise _Bad("TB054", f"WEBP: the VP8X chunk is {chunk_size} bytes; it must be at least 10")
        flags = head[20]
        width, height = 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
        _check_size(src.rel, "VP8X canvas", width, height)
        alpha = bool(flags & _FLAG_ALPHA)
        icc = _extended(src.rel, _Looks(src, head), flags, width, height, _FIRST_PAYLOAD + chunk_size + (chunk_size & 1), end, notes)
        if flags & _FLAG_ANIMATION:
            notes.append(findings.make(src.rel, "TB062", f"animated WebP: priced as one {width}x{height} image (its canvas, one frame); libwebp's still-image decoder, which Godot's importer uses, refuses animated WebP"))
    else:
        width, height, alpha = _bitstream(kind, head[_FIRST_PAYLOAD : _FIRST_PAYLOAD + need], chunk_size)
        _check_size(src.rel, _NAMES[kind].split()[0], width, height)
    facts = TextureFacts(
        path=src.rel, container="webp", width=width, height=height, channels=4 if alpha else 3,
        alpha=alpha, bit_depth=8, color_space="linear" if icc and icc_says_linear(icc) else "srgb",
        disk_bytes=size,
    )
    return texture_result(facts, notes)


def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<I", data, at)[0])


def _u24(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 3], "little")


def _check_size(rel: str, what: str, width: int, height: int) -> None:
    bad = check_dims(rel, "WEBP", width, height)
    if bad is not None:
        finding = bad.findings[0]
        raise _Bad(finding.code, finding.message)
    if width * height > _MAX_AREA:
        raise _Bad("TB045", f"WEBP {what} is {width}x{height}: more than 2^32 − 1 pixels, which libwebp refuses")


def _check_fits(rel: str, kind: bytes, at: int, chunk_size: int, end: int, notes: list[Finding]) -> None:
    """The chunk whose header is at ``at`` must lie inside the RIFF chunk (which ends at
    ``end``), its padding byte included; a last chunk short of only its padding is read
    with a TB055 warning."""
    stop = at + 8 + chunk_size
    shown = kind.decode("latin-1")
    if stop > end:
        raise _Bad("TB054", f"WEBP: the '{shown}' chunk at offset {at} ({chunk_size} bytes) runs past the end of the RIFF chunk at {end}")
    if chunk_size & 1 and stop == end:
        notes.append(findings.make(rel, "TB055", f"WEBP: the last chunk '{shown}' has an odd size ({chunk_size}) and no padding byte (RFC 9649 §2.3 requires one); libwebp's decoder reads it, its demuxer (Pillow, animation players) refuses the file"))


def _bitstream(kind: bytes, data: bytes, chunk_size: int) -> tuple[int, int, bool]:
    """(width, height, alpha) of a VP8 or VP8L bitstream's header, checked as libwebp's
    ``VP8GetInfo`` and ``VP8LGetInfo`` check it."""
    if kind == b"VP8L":
        if chunk_size < 5:
            raise _Bad("TB054", f"WEBP lossless: the VP8L chunk is {chunk_size} bytes; its header alone is 5")
        if data[0] != 0x2F:
            raise _Bad("TB054", f"WEBP lossless: bad signature byte 0x{data[0]:02x} (must be 0x2f)")
        bits = _u32(data, 1)
        if bits >> 29:
            raise _Bad("TB054", f"WEBP lossless: bitstream version {bits >> 29} (only 0 exists)")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF), bool(bits >> 28 & 1)
    if chunk_size < 10:
        raise _Bad("TB054", f"WEBP lossy: the VP8 chunk is {chunk_size} bytes; a key frame's header alone is 10")
    if data[3:6] != b"\x9d\x01\x2a":
        raise _Bad("TB054", "WEBP lossy: bad VP8 start code (must be 9d 01 2a)")
    tag = data[0] | data[1] << 8 | data[2] << 16
    if tag & 1:
        raise _Bad("TB054", "WEBP lossy: the VP8 frame is not a key frame")
    if (tag >> 1) & 7 > 3:
        raise _Bad("TB054", f"WEBP lossy: VP8 profile {(tag >> 1) & 7} (0-3 exist)")
    if not tag >> 4 & 1:
        raise _Bad("TB054", "WEBP lossy: the VP8 frame is marked not to be shown")
    if tag >> 5 >= chunk_size:
        raise _Bad("TB054", f"WEBP lossy: the VP8 first partition ({tag >> 5} bytes) is not inside the {chunk_size}-byte chunk")
    width, height = struct.unpack_from("<HH", data, 6)
    return width & 0x3FFF, height & 0x3FFF, False


def _extended(rel: str, f: _Looks, flags: int, width: int, height: int, pos: int, end: int, notes: list[Finding]) -> bytes:
    """Walk an extended file's chunks from ``pos`` to its image: a still image must be the
    canvas size, the first frame of an animation must lie inside the canvas. Returns the ICC
    profile's first bytes (b"" without one)."""
    animated = bool(flags & _FLAG_ANIMATION)
    icc = b""
    anim = False
    for _ in range(_MAX_CHUNKS):
        if pos + 8 > end:
            break
        header = f.take(pos, 8, end, "a chunk header")
        kind, chunk_size = header[:4], _u32(header, 4)
        _check_fits(rel, kind, pos, chunk_size, end, notes)
        payload = pos + 8
        if kind == b"ICCP" and not icc and flags & _FLAG_ICC:
            icc = f.take(payload, min(chunk_size, ICC_LOOK_BYTES), end, "the ICC profile")
        elif kind == b"ANIM":
            anim = True
        elif kind in (b"VP8 ", b"VP8L", b"ALPH"):
            if animated:
                raise _Bad("TB054", f"WEBP: an animated file (VP8X animation flag) holds a '{kind.decode('latin-1')}' chunk outside its frames (ANMF)")
            w, h, _ = _frame_image(f, pos, end)
            if (w, h) != (width, height):
                raise _Bad("TB054", f"WEBP: the image is {w}x{h}, the VP8X canvas {width}x{height}; a still image must be its canvas size")
            return icc
        elif kind == b"ANMF":
            if not animated:
                raise _Bad("TB054", "WEBP: an animation frame (ANMF) in a file whose VP8X does not set the animation flag")
            if not anim:
                raise _Bad("TB054", "WEBP: an animation frame (ANMF) before the ANIM chunk (RFC 9649 requires ANIM first)")
            _first_frame(f, payload, chunk_size, width, height)
            return icc
        pos = payload + chunk_size + (chunk_size & 1)
    else:
        raise _Bad("TB054", f"WEBP: no image within the first {_MAX_CHUNKS} chunks")
    what = "no animation frame (ANMF)" if animated else "no image chunk (VP8 or VP8L)"
    raise _Bad("TB054", f"WEBP: the extended file holds {what}")


class _Looks:
    """The few looks an extended file's walk takes: from the first bytes already read, else
    through the source (a scan's source serves them from the bytes it read up front)."""

    __slots__ = ("head", "src")

    def __init__(self, src: Source, head: bytes) -> None:
        self.src, self.head = src, head

    def take(self, pos: int, n: int, end: int, what: str) -> bytes:
        """``n`` bytes at ``pos``, inside a container that ends at ``end``: TB054 when they
        run past it, TB043 when the file holds fewer (it shrank after it was measured)."""
        if pos + n > end:
            raise _Bad("TB054", f"WEBP: {what} at offset {pos} runs past the end of its container at {end}")
        raw = self.head[pos : pos + n] if pos + n <= len(self.head) else self.src.read_at(pos, n)
        if len(raw) < n:
            raise _Bad("TB043", f"WEBP pixel data truncated: the file ends inside {what} at offset {pos}")
        return raw


def _frame_image(f: _Looks, pos: int, end: int) -> tuple[int, int, bool]:
    """(width, height, alpha) of the bitstream of the image whose chunks start at ``pos``:
    an optional ALPH chunk, then VP8 or VP8L."""
    header = f.take(pos, 8, end, "the image's chunk header")
    if header[:4] == b"ALPH":
        size = _u32(header, 4)
        pos += 8 + size + (size & 1)
        header = f.take(pos, 8, end, "the chunk header after the ALPH chunk")
        if header[:4] == b"VP8L":
            raise _Bad("TB054", "WEBP: an ALPH chunk before a VP8L image (lossless images carry their own alpha)")
    kind, chunk_size = header[:4], _u32(header, 4)
    if kind not in (b"VP8 ", b"VP8L"):
        raise _Bad("TB054", f"WEBP: the image at offset {pos} has no VP8 or VP8L chunk (found {kind!r})")
    if pos + 8 + chunk_size > end:
        raise _Bad("TB054", f"WEBP: the '{kind.decode('latin-1')}' chunk at offset {pos} ({chunk_size} bytes) runs past the end of its container at {end}")
    need = _HEADER_BYTES[kind]
    return _bitstream(kind, f.take(pos + 8, min(need, chunk_size), end, f"the '{kind.decode('latin-1')}' header"), chunk_size)


def _first_frame(f: _Looks, payload: int, chunk_size: int, width: int, height: int) -> None:
    """The first ANMF frame (payload at ``payload``) must hold an image inside the canvas."""
    if chunk_size < _ANMF_HEADER + 8:
        raise _Bad("TB054", f"WEBP: the first animation frame (ANMF) is {chunk_size} bytes; its header and an image chunk need at least {_ANMF_HEADER + 8}")
    raw = f.take(payload, _ANMF_HEADER, payload + chunk_size, "the ANMF frame header")
    x, y = 2 * _u24(raw, 0), 2 * _u24(raw, 3)
    w, h, _ = _frame_image(f, payload + _ANMF_HEADER, payload + chunk_size)
    if x + w > width or y + h > height:
        raise _Bad("TB054", f"WEBP: the first animation frame ({w}x{h} at {x},{y}) lies outside the {width}x{height} canvas")
