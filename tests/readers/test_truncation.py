"""No reader ever raises: every valid file cut at any byte, or with header bytes flipped,
gives facts or findings (and a cut container file always gives an error finding)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.readers import factories as fx
from texbudget.model import ReadResult, Severity
from texbudget.readers import Source
from texbudget.readers.dds import read_dds
from texbudget.readers.exr import read_exr
from texbudget.readers.hdr import read_hdr
from texbudget.readers.images import read_image
from texbudget.readers.ktx import read_ktx1, read_ktx2

Reader = Callable[[Source], ReadResult]

#: (name, reader, bytes, whether every strict prefix must be an error)
SAMPLES: list[tuple[str, Reader, bytes, bool]] = [
    ("a.png", read_image, fx.png_bytes(16, 8, color_type=3, trns=b"\0", icc_name=b"sRGB"), True),
    ("a16.png", read_image, fx.png_bytes(16, 8, color_type=4, bit_depth=16, gamma=45455), True),
    ("a.jpg", read_image, fx.pillow_bytes("JPEG", "RGB", (16, 8)), True),
    ("a.tga", read_image, fx.pillow_bytes("TGA", "RGBA", (16, 8)), False),  # a cut 26-byte footer is harmless
    ("a.bmp", read_image, fx.pillow_bytes("BMP", "RGB", (16, 8)), True),
    ("a.tif", read_image, fx.pillow_bytes("TIFF", "RGB", (16, 8)), True),
    ("a.gif", read_image, fx.pillow_bytes("GIF", "P", (16, 8), transparency=0), False),
    ("a.webp", read_image, fx.pillow_bytes("WEBP", "RGBA", (16, 8), lossless=True), True),
    ("a.psd", read_image, fx.psd_bytes(16, 8), True),
    ("b.psd", read_image, fx.psd_bytes(16, 8, version=2, depth=16, channels=4), True),
    ("a.dds", read_dds, fx.dds_bytes(16, 16, fourcc=b"DXT1", mips=5, caps2=fx.CAPS2_CUBEMAP | fx.CAPS2_ALL_FACES, images=6), True),
    ("b.dds", read_dds, fx.dds_bytes(16, 16, dxgi=98, array_size=2, mips=5, block=(4, 4, 16), images=2), True),
    ("a.ktx", read_ktx1, fx.ktx1_bytes(16, 16, levels=5, kvd=bytes(8)), True),
    ("b.ktx", read_ktx1, fx.ktx1_bytes(8, 8, gl_internal=0x8058, faces=6, levels=4, texel_bytes=4, big_endian=True), True),
    ("a.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, levels=5), True),
    ("b.ktx2", read_ktx2, fx.ktx2_bytes(32, 16, vk_format=0, levels=6, scheme=1, sgd=bytes(32),
                                         dfd=fx.dfd_bytes(fx.KHR_DF_MODEL_ETC1S, channel_ids=(0, 15)),
                                         level_lengths=[40, 20, 10, 8, 8, 8]), True),
    ("a.exr", read_exr, fx.exr_bytes(16, 8, payload=0), True),
    ("b.exr", read_exr, fx.exr_bytes(16, 8, tiles=(8, 8, 1), chunks=2 + 1 + 1 + 1 + 1, payload=0), True),
    ("c.exr", read_exr, fx.exr_with_chunks(), True),  # offsets filled in, every chunk written
    ("d.exr", read_exr, fx.exr_with_chunks(tiled=True), True),
    ("a.hdr", read_hdr, fx.hdr_bytes(16, 8), True),
]


def _run(name: str, reader: Reader, data: bytes) -> ReadResult:
    result = reader(Source(rel=name, data=data, suffix_hint="." + name.rsplit(".", 1)[1]))
    assert result.textures or result.findings
    assert all(f.code != "TB009" for f in result.findings)
    return result


def test_every_sample_is_valid() -> None:
    for name, reader, data, _ in SAMPLES:
        result = _run(name, reader, data)
        assert result.findings == (), (name, result.findings)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.floats(0.0, 1.0, exclude_max=True))
def test_truncating_any_valid_file_never_raises(sample: tuple[str, Reader, bytes, bool], where: float) -> None:
    name, reader, data, strict = sample
    cut = int(where * len(data))
    result = _run(name, reader, data[:cut])
    if strict:
        assert result.textures == (), (name, cut)
        assert any(f.severity is Severity.ERROR for f in result.findings), (name, cut, result.findings)


def test_every_cut_point_of_the_container_samples() -> None:
    """Exhaustive over the first 400 bytes (all the headers) of each sample."""
    for name, reader, data, strict in SAMPLES:
        for cut in range(min(len(data), 400)):
            result = _run(name, reader, data[:cut])
            if strict:
                assert result.textures == (), (name, cut)


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(SAMPLES), st.lists(st.tuples(st.integers(0, 199), st.integers(0, 255)), min_size=1, max_size=6))
def test_flipped_header_bytes_never_raise(sample: tuple[str, Reader, bytes, bool], edits: list[tuple[int, int]]) -> None:
    name, reader, data, _ = sample
    mutated = bytearray(data)
    for pos, value in edits:
        if pos < len(mutated):
            mutated[pos] = value
    _run(name, reader, bytes(mutated))
