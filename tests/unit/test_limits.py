"""`check`'s [limits] rules, each with the exact line it prints (texbudget/limits.py)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from PIL import Image

from tests.readers.factories import dds_bytes, ktx2_bytes
from texbudget.cli import main


def check(capsys, root: Path, *extra: str) -> tuple[int, list[str]]:
    code = main(["check", str(root), *extra])
    return code, capsys.readouterr().out.splitlines()


def config(root: Path, limits: str, budget: str = 'cards = ["8GB"]\nresolutions = ["1080p"]\nrt = ["off"]') -> None:
    (root / "texbudget.toml").write_text(f"[budget]\n{budget}\n\n[limits]\n{limits}\n", encoding="utf-8")


def test_max_size_tb021(capsys, tmp_path):
    config(tmp_path, "max_size = 1024")
    Image.new("RGB", (2048, 512)).save(tmp_path / "wide_albedo.png")
    Image.new("RGB", (1024, 1024)).save(tmp_path / "ok_albedo.png")
    assert check(capsys, tmp_path) == (1, ["wide_albedo.png: 2048x512 > max_size 1024 [TB021]", "texbudget check: 1 problem in 1 file"])


def test_forbid_uncompressed_tb022_spares_ui(capsys, tmp_path):
    config(tmp_path, "forbid_uncompressed = true")
    (tmp_path / "ui").mkdir()
    Image.new("RGBA", (256, 256)).save(tmp_path / "ui" / "atlas.png")  # desktop: UI stays RGBA8
    (tmp_path / "raw_normal.ktx2").write_bytes(ktx2_bytes(vk_format=37, width=256, height=256, levels=9))
    code, lines = check(capsys, tmp_path)
    assert code == 1
    assert lines == [
        "raw_normal.ktx2: 256x256 R8G8B8A8_UNORM, 384.00 KiB uncompressed (forbid_uncompressed; stored format R8G8B8A8_UNORM) [TB022]",
        "texbudget check: 1 problem in 1 file",
    ]


def test_require_mips_tb023(capsys, tmp_path):
    config(tmp_path, "require_mips = true")
    (tmp_path / "decal.dds").write_bytes(dds_bytes(fourcc=b"DXT1", width=512, height=512, mips=1))
    (tmp_path / "good.dds").write_bytes(dds_bytes(fourcc=b"DXT1", width=512, height=512, mips=10))
    code, lines = check(capsys, tmp_path)
    assert (code, lines) == (1, [
        "decal.dds: 512x512 BC1_RGBA_UNORM, 1 mip level stored < 10 of a full chain (require_mips) [TB023]",
        "texbudget check: 1 problem in 1 file",
    ])


def test_power_of_two_tb025(capsys, tmp_path):
    config(tmp_path, "power_of_two = true")
    Image.new("RGB", (1000, 512)).save(tmp_path / "npot_albedo.png")
    Image.new("RGB", (512, 256)).save(tmp_path / "pot_albedo.png")
    assert check(capsys, tmp_path) == (1, ["npot_albedo.png: 1000x512 is not a power of two (power_of_two) [TB025]", "texbudget check: 1 problem in 1 file"])


def _gltf(root: Path, triangles: int, images: list[str]) -> None:
    """One mesh of ``triangles`` (non-indexed positions), one material using ``images``."""
    n = 3 * triangles
    data = struct.pack(f"<{3 * n}f", *([0.0] * (3 * n)))
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"uri": "mesh.bin", "byteLength": len(data)}],
        "bufferViews": [{"buffer": 0, "byteLength": len(data)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}],
        "images": [{"uri": u} for u in images],
        "textures": [{"source": i} for i in range(len(images))],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}] if images else [],
        "meshes": [{"name": "rock", "primitives": [{"attributes": {"POSITION": 0}, **({"material": 0} if images else {})}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    (root / "mesh.bin").write_bytes(data)
    (root / "level.gltf").write_text(json.dumps(doc), encoding="utf-8")


def test_max_triangles_tb026(capsys, tmp_path):
    config(tmp_path, "max_triangles = 100")
    _gltf(tmp_path, 120, [])
    assert check(capsys, tmp_path) == (1, ["level.gltf#mesh/0: 120 triangles > max_triangles 100 [TB026]", "texbudget check: 1 problem in 1 file"])


def test_unused_texture_tb006_and_forbid_unused_tb029(capsys, tmp_path):
    config(tmp_path, "")
    _gltf(tmp_path, 1, ["rock_albedo.png"])
    Image.new("RGB", (64, 64)).save(tmp_path / "rock_albedo.png")
    Image.new("RGB", (64, 64)).save(tmp_path / "cut_albedo.png")
    assert main(["scan", str(tmp_path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["code"], f["severity"]) for f in report["findings"]] == [("cut_albedo.png", "TB006", "warning")]
    assert check(capsys, tmp_path) == (0, [])  # a warning does not fail check
    config(tmp_path, "forbid_unused = true")
    code, lines = check(capsys, tmp_path)
    assert code == 1
    assert lines[0].startswith("cut_albedo.png: no material of the scanned scenes uses this texture")
    assert lines[0].endswith("(forbid_unused) [TB029]")


def test_max_total_tb027(capsys, tmp_path):
    config(tmp_path, 'max_total = "100 MiB"\ntotal = true')
    Image.new("RGB", (64, 64)).save(tmp_path / "a_albedo.png")
    code, lines = check(capsys, tmp_path)  # 1080p render targets alone are ~200 MiB
    assert code == 1
    assert lines[0].startswith(".: 1920x1080 ultra rt off: scene total ")
    assert lines[0].endswith(" > max_total 100.00 MiB [TB027]")


def test_baseline_growth_tb028(capsys, tmp_path):
    config(tmp_path, "")
    Image.new("RGB", (1024, 1024)).save(tmp_path / "a_albedo.png")
    assert main(["scan", str(tmp_path), "--format", "json"]) == 0
    base = tmp_path / "base.json"
    base.write_text(capsys.readouterr().out, encoding="utf-8")
    assert check(capsys, tmp_path, "--baseline", str(base), "--max-growth", "5%") == (0, [])
    Image.new("RGBA", (8192, 8192)).save(tmp_path / "b_albedo.png")  # BC3 8K: +85 MiB
    code, lines = check(capsys, tmp_path, "--baseline", str(base), "--max-growth", "5%")
    assert code == 1
    assert lines[0].startswith(".: scene grew +")
    assert lines[0].endswith(f"since {base} > max_growth 5.0% [TB028]")


def test_max_growth_needs_baseline(capsys, tmp_path):
    config(tmp_path, "")
    assert main(["check", str(tmp_path), "--max-growth", "5%"]) == 2
    assert "--max-growth needs --baseline" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["lots", "-3%", "200%"])
def test_bad_max_growth_flag(capsys, tmp_path, value):
    config(tmp_path, "")
    assert main(["check", str(tmp_path), "--baseline", "x.json", "--max-growth", value]) == 2
    assert "--max-growth" in capsys.readouterr().err
