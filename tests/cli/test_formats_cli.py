"""`texbudget formats` and `texbudget size` over the whole table: lookups by Vulkan and DXGI
name, number and alias; the grouped listing with its count; one-line errors."""

from __future__ import annotations

import csv
import io
import json

import pytest

from texbudget import formats
from texbudget.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("text", "name", "level0"), [
    ("VK_FORMAT_B5G6R5_UNORM_PACK16", "B5G6R5_UNORM", 8192),
    ("vk:5", "B5G6R5_UNORM", 8192),
    ("5", "B5G6R5_UNORM", 8192),
    ("DXGI_FORMAT_B5G6R5_UNORM", "R5G6B5_UNORM", 8192),
    ("dxgi:85", "R5G6B5_UNORM", 8192),
    ("gl:0x8D62", "R5G6B5_UNORM", 8192),
    ("VK_FORMAT_ASTC_4x4x4_UNORM_BLOCK_EXT", "ASTC_4x4x4_UNORM", 16 * 16 * 16),  # 64x64x1: 16x16x1 blocks
    ("DXGI_FORMAT_NV12", "NV12", 64 * 64 * 3 // 2),
    ("YUY2", "YUY2", 64 * 64 * 2),
    ("R64G64B64A64_SFLOAT", "R64G64B64A64_SFLOAT", 64 * 64 * 32),
])
def test_size_finds_every_kind_of_name(capsys, text, name, level0):
    code, out, err = run(capsys, "size", text, "64x64", "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["gpu_format"] == name
    assert data["mips"][0]["bytes"] == data["gpu_bytes"] == level0


def test_size_astc_3d_volume_text(capsys):
    code, out, _ = run(capsys, "size", "ASTC_3x3x3", "64x64x64", "--mips")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "ASTC_3x3x3_UNORM 64x64x64: 7 levels, 4.74074 bits/px, 3x3x3 blocks of 16 B"
    assert lines[2] == "    0      64      64     64         170,368"
    assert lines[-2] == "content           195,712 B  (191.12 KiB)"


@pytest.mark.parametrize(("argv", "message"), [
    (["size", "vk:99999", "4x4"], "texbudget: error: unknown format 'vk:99999': no VkFormat 99999 in the table; `texbudget formats` lists them"),
    (["size", "dxgi:0", "4x4"], "texbudget: error: unknown format 'dxgi:0': no DXGI_FORMAT 0 in the table"),
    (["size", "12345", "4x4"], "texbudget: error: unknown format '12345': no VkFormat 12345 in the table"),
    (["size", "gl:0xBEEF", "4x4"], "texbudget: error: unknown format 'gl:0xBEEF': no GL internal format 48879 in the table"),
    (["size", "VK_FORMAT_B5G6R5_UNORM_PAK16", "4x4"], "texbudget: error: unknown format 'VK_FORMAT_B5G6R5_UNORM_PAK16'; did you mean"),
    (["formats", "BC9"], "texbudget: error: unknown format 'BC9'; did you mean"),
    (["formats", "--family", "bc9"], "texbudget: error: --family bc9: allowed values are uncompressed, integer, depth, video, bc1"),
    (["formats", "--format", "xml"], "texbudget: error: --format xml: allowed values are text, json, csv"),
])
def test_lookup_errors_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_formats_text_groups_by_family_with_counts(capsys):
    code, out, _ = run(capsys, "formats")
    lines = out.splitlines()
    assert code == 0
    assert lines[-1] == ("277 formats: 245 Vulkan formats (every single-plane VkFormat but *SCALED), "
                         "27 DXGI formats Vulkan has no twin for, 5 others (ETC1, Basis Universal)")
    headings = [line for line in lines if " — " in line]
    assert [h.split(" — ")[0] for h in headings] == list(formats.FAMILIES)
    assert "astc — ASTC: 2D and 3D blocks, LDR (UNORM, sRGB) and HDR (SFLOAT); 72 formats" in headings
    assert sum(int(h.rsplit("; ", 1)[1].split()[0]) for h in headings) == 277
    row = next(line for line in lines if line.startswith("R5G6B5_UNORM "))
    assert row.split() == ["R5G6B5_UNORM", "1x1", "2", "16.00", "4", "85", "0x8D62", "RGB565,", "B5G6R5"]
    row = next(line for line in lines if line.startswith("ASTC_6x6x6_SRGB "))
    assert row.split() == ["ASTC_6x6x6_SRGB", "6x6x6", "16", "0.59", "1000288028", "-", "0x93E9"]


def test_formats_by_name_number_and_family(capsys):
    code, out, _ = run(capsys, "formats", "vk:4", "dxgi:85", "DXGI_FORMAT_NV12", "--format", "json")
    assert code == 0 and [r["name"] for r in json.loads(out)] == ["R5G6B5_UNORM", "NV12"]
    code, out, _ = run(capsys, "formats", "--family", "pvrtc2")
    assert out.splitlines()[-1] == "4 formats"
    code, out, _ = run(capsys, "formats", "--family", "video", "--format", "json")
    assert len(json.loads(out)) == 26


def test_formats_csv(capsys):
    code, out, _ = run(capsys, "formats", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 277
    nv12 = next(r for r in rows if r["name"] == "NV12")
    assert (nv12["block"], nv12["bytes_per_block"], nv12["dxgi_format"], nv12["vk_format"], nv12["family"]) == ("2 2 1", "6", "103", "", "video")
    bc1 = next(r for r in rows if r["name"] == "BC1_RGBA_UNORM")
    assert (bc1["dds_fourcc"], bc1["aliases"], bc1["gl_internal_format"]) == ("DXT1", "DXT1 BC1A", str(0x83F1))
