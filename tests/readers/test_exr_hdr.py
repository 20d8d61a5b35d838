"""OpenEXR and Radiance HDR headers: exact facts and a specific finding per broken file."""

from __future__ import annotations

import struct

import numpy as np
import OpenEXR
import pytest

from tests.readers import factories as fx
from texbudget.model import ReadResult, TextureFacts
from texbudget.readers import Source, read_path
from texbudget.readers.exr import read_exr
from texbudget.readers.hdr import read_hdr


def _exr(data: bytes) -> ReadResult:
    return read_exr(Source(rel="t.exr", data=data, suffix_hint=".exr"))


def _hdr(data: bytes) -> ReadResult:
    return read_hdr(Source(rel="t.hdr", data=data, suffix_hint=".hdr"))


def _one(result: ReadResult, codes: tuple[str, ...] = ()) -> TextureFacts:
    assert tuple(f.code for f in result.findings) == codes, result.findings
    (facts,) = result.textures
    return facts


def _code(result: ReadResult) -> tuple[str, str]:
    assert result.textures == ()
    (finding,) = result.findings
    return finding.code, finding.message


HALF, FLOAT, UINT = 1, 2, 0

# --- OpenEXR --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("channels", "expected"),
    [
        # (channels, alpha, bit_depth, grey)
        ((("B", HALF), ("G", HALF), ("R", HALF)), (3, False, 16, False)),
        ((("A", HALF), ("B", HALF), ("G", HALF), ("R", HALF)), (4, True, 16, False)),
        ((("B", FLOAT), ("G", FLOAT), ("R", FLOAT)), (3, False, 32, False)),
        ((("A", HALF), ("B", FLOAT), ("G", HALF), ("R", HALF)), (4, True, 32, False)),
        ((("Y", HALF),), (1, False, 16, True)),
        ((("Z", FLOAT),), (1, False, 32, True)),
        ((("id", UINT),), (1, False, 32, True)),
        ((("A", HALF), ("B", HALF), ("G", HALF), ("R", HALF), ("Z", FLOAT)), (4, True, 32, False)),
        ((("depth.Z", FLOAT), ("diffuse.B", HALF), ("diffuse.G", HALF), ("diffuse.R", HALF)), (3, False, 16, False)),
        ((("A", HALF), ("B", HALF), ("G", HALF), ("R", HALF), ("spec.B", FLOAT)), (4, True, 16, False)),
    ],
)
def test_exr_channels(channels: tuple, expected: tuple) -> None:
    data = fx.exr_bytes(40, 24, channels=channels)
    f = _one(_exr(data))
    assert (f.container, f.width, f.height, f.hdr, f.color_space, f.disk_bytes) == ("exr", 40, 24, True, "linear", len(data))
    assert (f.channels, f.alpha, f.bit_depth, f.grey) == expected
    assert (f.stored_format, f.stored_levels, f.level_bytes) == (None, 1, ())


def test_exr_data_window_with_offset_origin() -> None:
    f = _one(_exr(fx.exr_bytes(100, 50, origin=(-10, 7))))
    assert (f.width, f.height) == (100, 50)


@pytest.mark.parametrize(
    ("width", "height", "mode", "levels", "chunks"),
    [
        (64, 32, 0x00, 1, 8),  # ONE_LEVEL: 4x2 tiles of 16
        (64, 32, 0x01, 7, 8 + 2 + 1 + 1 + 1 + 1 + 1),  # MIPMAP round down: 64x32, 32x16, 16x8, ... 1x1
        (65, 33, 0x11, 8, 15 + 6 + 2 + 1 + 1 + 1 + 1 + 1),  # MIPMAP round up: 65x33, 33x17, 17x9, 9x5, 5x3, 3x2, 2x1, 1x1
        (64, 32, 0x02, 1, (4 + 2 + 1 + 1 + 1 + 1 + 1) * (2 + 1 + 1 + 1 + 1 + 1)),  # RIPMAP: x levels x y levels
    ],
)
def test_exr_tiled_levels_and_offset_table(width: int, height: int, mode: int, levels: int, chunks: int) -> None:
    data = fx.exr_bytes(width, height, tiles=(16, 16, mode), chunks=chunks, payload=0)
    assert _one(_exr(data)).stored_levels == levels
    code, message = _code(_exr(data[:-1]))
    assert code == "TB043"
    assert message.endswith(f"the offset table of {chunks} chunks ends at {len(data)}, the file at {len(data) - 1} (1 bytes missing)")


@pytest.mark.parametrize(("compression", "chunks"), [(0, 64), (2, 64), (3, 4), (4, 2), (9, 1), (10, 1), (11, 2), (12, 1), (13, 64)])
def test_exr_scanline_offset_table_by_compression(compression: int, chunks: int) -> None:
    data = fx.exr_bytes(16, 64, compression=compression, chunks=chunks, payload=0)
    _one(_exr(data))
    assert _code(_exr(data[:-8]))[0] == "TB043"


def _header_end(data: bytes) -> int:
    """Where a single-part header's attributes (name, type, size, value) end: the table."""
    pos = 8
    while data[pos]:
        pos = data.index(b"\0", data.index(b"\0", pos) + 1) + 1
        pos += 4 + struct.unpack_from("<i", data, pos)[0]
    return pos + 1


@pytest.mark.parametrize("compression", [c for c in dir(OpenEXR.Compression) if c.endswith("_COMPRESSION")])
def test_exr_lines_per_chunk_are_the_openexr_writers(tmp_path, compression: str) -> None:
    """The offset table of a 1000-line file the openexr package writes has the entries
    LINES_PER_CHUNK gives; cut inside its table it is TB043."""
    from texbudget.readers.exr import LINES_PER_CHUNK

    code = getattr(OpenEXR.Compression, compression)
    data = _exr_from_openexr(tmp_path, {"compression": code, "type": OpenEXR.scanlineimage}, {"RGB": np.zeros((1000, 3, 3), np.float16)})
    table = _header_end(data)
    entries = (struct.unpack_from("<Q", data, table)[0] - table) // 8
    assert entries == -(-1000 // LINES_PER_CHUNK[int(code)])
    _one(_exr(data))
    assert _code(_exr(data[: table + 8]))[0] == "TB043"


def test_exr_unknown_compression_skips_the_table_check() -> None:
    _one(_exr(fx.exr_bytes(16, 64, compression=42, chunks=0, payload=0)))


@pytest.mark.parametrize("tiled", [False, True])
def test_exr_cut_in_its_last_chunk_is_truncated(tiled: bool) -> None:
    data = fx.exr_with_chunks(tiled)
    whole = read_exr(Source(rel="a.exr", data=data))
    assert whole.findings == () and (whole.textures[0].width, whole.textures[0].height) == (4, 3)
    head = 20 if tiled else 8
    last = len(data) - head - (96 if tiled else 24)
    cut = read_exr(Source(rel="a.exr", data=data[:-5]))
    assert [(f.code, f.message) for f in cut.findings] == [
        ("TB043", f"EXR pixel data truncated: the last chunk (at byte {last}) ends at {len(data)}, the file at {len(data) - 5} (5 bytes missing)")]
    headless = read_exr(Source(rel="a.exr", data=data[: last + 2]))
    assert [(f.code, f.message) for f in headless.findings] == [
        ("TB043", f"EXR pixel data truncated: the offset table names a chunk at byte {last}, whose header ends at {last + head}, "
                  f"the file at {last + 2} ({head - 2} bytes missing)")]


def _exr_from_openexr(tmp_path, header: dict, channels: dict) -> bytes:
    path = tmp_path / "w.exr"
    with OpenEXR.File(header, channels) as f:
        f.write(str(path))
    return path.read_bytes()


def _mip_tiles(mode: object = OpenEXR.MIPMAP_LEVELS) -> object:
    tiles = OpenEXR.TileDescription()
    tiles.xSize, tiles.ySize, tiles.mode, tiles.roundingMode = 4, 4, mode, OpenEXR.ROUND_DOWN
    return tiles


@pytest.mark.parametrize(("mode", "chunks", "written"), [(OpenEXR.MIPMAP_LEVELS, 20, 15), (OpenEXR.RIPMAP_LEVELS, 60, 15)],
                         ids=["mipmap", "ripmap"])
def test_an_exr_whose_lower_levels_were_never_written_is_cut(tmp_path, mode: object, chunks: int, written: int) -> None:
    """The openexr package (3.5) writes a mip- or rip-mapped tiled file with only its first
    level's tiles, the other table entries 0; OpenEXR's own reader refuses it. Before: read
    as a complete 5-level texture."""
    path = tmp_path / "m.exr"
    path.write_bytes(_exr_from_openexr(tmp_path, {"type": OpenEXR.tiledimage, "tiles": _mip_tiles(mode)},
                                       {"RGBA": np.zeros((9, 17, 4), np.float16)}))
    with pytest.raises(ValueError, match="file has 0 parts"):  # its pixels: "corrupt chunk table"
        OpenEXR.File(str(path), separate_channels=True).channels()
    assert _code(_exr(path.read_bytes())) == (
        "TB043", f"EXR pixel data truncated: the offset table leaves {chunks - written} of its {chunks} chunks at 0 and the file "
        f"holds {written}: {chunks - written} were never written (OpenEXR refuses a file whose chunks it cannot all find)")


def _table_at(width: int, height: int, mode: int) -> int:
    return 8 + len(fx.exr_header(width, height, channels=(("A", 1), ("B", 1), ("G", 1), ("R", 1)), tiles=(4, 4, mode)))


def test_an_exr_table_entry_left_at_0_is_fine_when_its_chunk_is_there(tmp_path) -> None:
    """OpenEXR rebuilds a table with entries missing by walking the chunks: all there, it reads."""
    data = fx.exr_tiled_levels_bytes(17, 9, mode=1)
    at = _table_at(17, 9, 1) + 8 * 19  # the last level's entry
    data = data[:at] + bytes(8) + data[at + 8 :]
    (tmp_path / "z.exr").write_bytes(data)
    with OpenEXR.File(str(tmp_path / "z.exr"), separate_channels=True) as f:
        assert f.channels()["R"].pixels.shape == (9, 17)
    assert _one(_exr(data)).stored_levels == 5


def test_a_complete_mip_mapped_exr_reads_its_levels(tmp_path) -> None:
    """Written by the layout spec (fx.exr_tiled_levels_bytes), read back by the openexr package."""
    for mode, round_up, levels in ((1, False, 5), (1, True, 6), (2, False, 1), (0, False, 1)):
        data = fx.exr_tiled_levels_bytes(17, 9, mode=mode, round_up=round_up)
        (tmp_path / "t.exr").write_bytes(data)
        with OpenEXR.File(str(tmp_path / "t.exr"), separate_channels=True) as f:
            assert f.channels()["R"].pixels.shape == (9, 17)
        assert _one(_exr(data)).stored_levels == levels


def test_exr_multipart_reads_the_first_part() -> None:
    result = _exr(fx.exr_bytes(32, 16, parts=2))
    f = _one(result, ("TB056",))
    assert (f.width, f.height, f.channels) == (32, 16, 3)


def test_exr_on_disk(tmp_path) -> None:
    fx.write(tmp_path, "probe.exr", fx.exr_bytes(8, 4))
    (f,) = read_path(tmp_path, "probe.exr").textures
    assert (f.path, f.width, f.height) == ("probe.exr", 8, 4)


def _exr_with_version(version: int) -> bytes:
    data = fx.exr_bytes(8, 8)
    return data[:4] + struct.pack("<I", version) + data[8:]


EXR_BROKEN = [
    ("empty", b"", "TB040"),
    ("wrong magic", b"\x76\x2f\x31\x02" + bytes(100), "TB041"),
    ("truncated magic", b"v/", "TB042"),
    ("no version", b"v/1\x01\x02", "TB042"),
    ("truncated attributes", fx.exr_bytes(8, 8)[:60], "TB042"),
    ("truncated offset table", fx.exr_bytes(8, 8, payload=0)[:-3], "TB043"),
    ("empty data window", fx.exr_bytes(0, 8), "TB044"),
    ("inverted data window", fx.exr_bytes(-5, 8), "TB044"),
    ("absurd data window", fx.exr_bytes(2**31 - 1, 8, chunks=0), "TB045"),
    ("deep flag", fx.exr_bytes(8, 8, flags=0x800), "TB046"),
    ("deep part", fx.exr_bytes(8, 8, part_type="deepscanline"), "TB046"),
    ("version 3", _exr_with_version(3), "TB054"),
    ("no channels", fx.exr_bytes(8, 8, omit=("channels",)), "TB054"),
    ("no data window", fx.exr_bytes(8, 8, omit=("dataWindow",)), "TB054"),
    ("bad pixel type", fx.exr_bytes(8, 8, channels=(("R", 7),)), "TB054"),
    ("empty channel list", fx.exr_bytes(8, 8, channels=()), "TB054"),
    ("zero tile size", fx.exr_bytes(8, 8, tiles=(0, 16, 0)), "TB054"),
    ("bad level mode", fx.exr_bytes(8, 8, tiles=(16, 16, 5)), "TB054"),
    ("header over 64 KiB", fx.EXR_MAGIC + struct.pack("<I", 2) + b"comment\0string\0" + struct.pack("<i", 70000) + bytes(70000), "TB054"),
    ("name too long", fx.EXR_MAGIC + struct.pack("<I", 2) + b"x" * 40 + b"\0" + bytes(100), "TB054"),
]


@pytest.mark.parametrize(("label", "data", "code"), EXR_BROKEN, ids=[b[0] for b in EXR_BROKEN])
def test_broken_exr_give_their_specific_finding(label: str, data: bytes, code: str) -> None:
    got, message = _code(_exr(data))
    assert got == code, message


# --- Radiance HDR -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "resolution",
    [b"-Y 32 +X 64", b"+Y 32 +X 64", b"-Y 32 -X 64", b"+Y 32 -X 64", b"+X 64 -Y 32", b"-X 64 +Y 32"],
)
def test_hdr_orientations(resolution: bytes) -> None:
    data = fx.hdr_bytes(64, 32, resolution=resolution)
    f = _one(_hdr(data))
    assert (f.container, f.width, f.height, f.channels, f.alpha, f.hdr, f.color_space) == ("hdr", 64, 32, 3, False, True, "linear")
    assert (f.bit_depth, f.disk_bytes, f.stored_format) == (32, len(data), None)


def test_hdr_with_swapped_axes_is_sized_by_its_columns() -> None:
    """Before: '+X 8 -Y 1000' (8 columns of 1000 pixels, RLE) was sized as 1000 rows of 8
    pixels, a lower bound of 12,000 bytes over the 8 x 68 = 544 it has: a false TB043."""
    data = fx.hdr_bytes(8, 1000, resolution=b"+X 8 -Y 1000")
    assert len(data) - data.index(b"+X 8 -Y 1000\n") - 13 == 8 * (4 + 4 * 2 * 8)  # 8 columns, 8 runs a channel
    f = _one(_hdr(data))
    assert (f.width, f.height) == (8, 1000)
    code, message = _code(_hdr(data[:-1]))
    assert (code, message) == ("TB043", f"HDR pixel data truncated: 8x1000 needs at least 544 bytes after the header at offset {len(data) - 544}, the file has 543 (at least 1 bytes missing)")


def test_hdr_variants() -> None:
    assert _one(_hdr(fx.hdr_bytes(300, 2, fmt=b"32-bit_rle_xyze"))).width == 300
    assert _one(_hdr(fx.hdr_bytes(4, 4, rle=False))).width == 4  # narrow images are flat
    assert _one(_hdr(fx.hdr_bytes(16, 16, program=b"RGBE", fmt=None))).height == 16


def test_hdr_on_disk(tmp_path) -> None:
    fx.write(tmp_path, "sky.hdr", fx.hdr_bytes(128, 64))
    (f,) = read_path(tmp_path, "sky.hdr").textures
    assert (f.path, f.width, f.height) == ("sky.hdr", 128, 64)


def test_hdr_truncated_rle_data_counts_missing_bytes() -> None:
    data = fx.hdr_bytes(254, 10)  # each scanline: 4 + 4 channels x 2 runs x 2 bytes = 20 bytes
    head = len(data) - 200
    code, message = _code(_hdr(data[:-50]))
    assert (code, message) == ("TB043", f"HDR pixel data truncated: 254x10 needs at least 200 bytes after the header at offset {head}, the file has 150 (at least 50 bytes missing)")


HDR_BROKEN = [
    ("empty", b"", "TB040"),
    ("wrong magic", b"P6\n64 32\n255\n" + bytes(100), "TB041"),
    ("truncated magic", b"#", "TB042"),
    ("no blank line", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n", "TB042"),
    ("no resolution line", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4", "TB042"),
    ("truncated payload", fx.hdr_bytes(64, 32)[:-1], "TB043"),
    ("no payload", fx.hdr_bytes(4, 4, payload=0), "TB043"),
    ("zero height", fx.hdr_bytes(64, 0, resolution=b"-Y 0 +X 64", payload=16), "TB044"),
    ("absurd width", fx.hdr_bytes(64, 32, resolution=b"-Y 32 +X 2147483648", payload=16), "TB045"),
    ("unknown format", fx.hdr_bytes(8, 8, fmt=b"48-bit_rgb"), "TB046"),
    ("malformed resolution", fx.hdr_bytes(8, 8, resolution=b"Y 8 X 8"), "TB054"),
    ("same axis twice", fx.hdr_bytes(8, 8, resolution=b"-Y 8 +Y 8"), "TB054"),
    ("huge number", fx.hdr_bytes(8, 8, resolution=b"-Y " + b"9" * 5000 + b" +X 8"), "TB054"),
    ("header over 64 KiB", b"#?RADIANCE\n#" + b"x" * 70000 + b"\n\n-Y 1 +X 1\n" + bytes(4), "TB054"),
]


@pytest.mark.parametrize(("label", "data", "code"), HDR_BROKEN, ids=[b[0] for b in HDR_BROKEN])
def test_broken_hdr_give_their_specific_finding(label: str, data: bytes, code: str) -> None:
    got, message = _code(_hdr(data))
    assert got == code, message
