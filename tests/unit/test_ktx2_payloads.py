"""Basis Universal HDR payloads priced per platform, and KTX2 files sized from their own data
format descriptor, through the whole pipeline: read → decide → price, ``explain`` and the JSON
report. Byte counts are worked out by hand in the comments (spec/textures.md §2.3)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.readers import factories as fx
from tests.readers import ktx2_registry as reg
from texbudget import config, pipeline
from texbudget.cli import main
from texbudget.model import TextureFacts
from texbudget.policy.decision import decide, price
from texbudget.policy.profiles import PolicySettings
from texbudget.report import explain
from texbudget.scan.scene import read_scene

UNKNOWN_VK = 1000999000  # a vkFormat number no format has


def hdr_facts(kind: str, w: int = 40, h: int = 40, levels: int = 6) -> TextureFacts:
    return TextureFacts(path="t/sky.ktx2", container="ktx2", width=w, height=h, stored_levels=levels,
                        transcodable=kind, channels=3, hdr=True, bit_depth=16, color_space="linear",
                        supercompression="UASTC HDR 6x6i" if kind == "UASTC_HDR_6x6i" else None)


# 40x40, 6 levels (40, 20, 10, 5, 2, 1): 4x4 blocks 100 + 25 + 9 + 4 + 1 + 1 = 140 (2,240 B at 16 B);
# 6x6 blocks 49 + 16 + 4 + 1 + 1 + 1 = 72 (1,152 B); texels 1600 + 400 + 100 + 25 + 4 + 1 = 2,130
# (17,040 B at 8 B a texel).
HDR_TARGETS = [
    ("desktop", "UASTC_HDR_4x4", "BC6H_UFLOAT", 2240),
    ("desktop", "UASTC_HDR_6x6i", "BC6H_UFLOAT", 2240),
    ("desktop-bc7", "UASTC_HDR_6x6i", "BC6H_UFLOAT", 2240),
    ("mobile-astc", "UASTC_HDR_4x4", "ASTC_4x4_SFLOAT", 2240),
    ("mobile-astc", "UASTC_HDR_6x6i", "ASTC_6x6_SFLOAT", 1152),
    ("mobile-etc2", "UASTC_HDR_4x4", "R16G16B16A16_SFLOAT", 17040),
    ("mobile-etc2", "UASTC_HDR_6x6i", "R16G16B16A16_SFLOAT", 17040),
    ("uncompressed", "UASTC_HDR_6x6i", "R16G16B16A16_SFLOAT", 17040),
]


@pytest.mark.parametrize(("platform", "kind", "fmt", "size40"), HDR_TARGETS)
def test_basis_hdr_transcode_targets(platform: str, kind: str, fmt: str, size40: int) -> None:
    plan = decide(hdr_facts(kind), PolicySettings(platform=platform))
    assert (plan.gpu_format, plan.mips, plan.levels, plan.role) == (fmt, "stored", 6, "hdr")
    assert plan.decided_by == f"{kind} → {fmt} ({platform} transcode target)"
    assert price(plan).gpu_bytes == size40


def test_a_rule_format_overrides_the_hdr_target() -> None:
    from texbudget.config import parse_rules

    rules = parse_rules([{"match": "*.ktx2", "format": "E5B9G9R9_UFLOAT"}], "t.toml")
    plan = decide(hdr_facts("UASTC_HDR_6x6i"), PolicySettings(platform="mobile-etc2"), rules)
    assert plan.gpu_format == "E5B9G9R9_UFLOAT"
    assert price(plan).gpu_bytes == 2130 * 4
    assert plan.decided_by == "rule 1 in t.toml: format E5B9G9R9_UFLOAT (transcode target for UASTC_HDR_6x6i)"


def build(root: Path) -> Path:
    fx.write(root, "texbudget.toml", b'[budget]\ncards = ["8GB"]\nresolutions = ["1080p"]\nrt = ["off"]\n')
    fx.write(root, "env/sky.ktx2", fx.ktx2_bytes(256, 256, vk_format=0, levels=9, scheme=4, dfd=fx.uastc_hdr_dfd(6),
                                                 sgd=bytes(9 * 12), level_lengths=[900, 300, 100, 40, 20, 10, 10, 10, 10]))
    fx.write(root, "env/probe.ktx2", fx.ktx2_bytes(64, 64, vk_format=1000066000, levels=7, dfd=fx.uastc_hdr_dfd(4)))
    # ASTC 4x4x4's descriptor under a vkFormat no format has (the table knows every one)
    astc3d = {f.name: f for f in reg.registry_formats()}["VK_FORMAT_ASTC_4x4x4_UNORM_BLOCK_EXT"]
    unknown = dataclasses.replace(astc3d, value=UNKNOWN_VK)
    fx.write(root, "fog/volume.ktx2", reg.ktx2_file(unknown, 64, 64, depth=16, levels=7))
    return root


def report_of(root: Path, platform: str = "desktop") -> pipeline.Report:
    cfg = config.load(root / "texbudget.toml")
    return pipeline.evaluate(read_scene(root, cfg, jobs=1), pipeline.build_settings(cfg, platform=platform))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return build(tmp_path / "scene")


# 256x256, 9 levels: BC6H 4096 + 1024 + 256 + 64 + 16 + 4 + 1 + 1 + 1 = 5,463 blocks = 87,408 B;
# ASTC 6x6 43² + 22² + 11² + 6² + 3² + 2² + 1 + 1 + 1 = 2,506 blocks = 40,096 B;
# RGBA half 87,381 texels x 8 = 699,048 B. 64x64, 7 levels: 343 4x4 blocks = 5,488 B; RGBA half
# 5,461 texels x 8 = 43,688 B. ASTC 4x4x4 64x64x16, 7 levels: 16x16x4 + 8x8x2 + 4x4x1 + 2x2x1
# + 1 + 1 + 1 blocks = 1,175 x 16 = 18,800 B whatever the platform (a stored format).
PER_PLATFORM = {
    "desktop": {"env/sky.ktx2": ("BC6H_UFLOAT", 87408), "env/probe.ktx2": ("BC6H_UFLOAT", 5488)},
    "mobile-astc": {"env/sky.ktx2": ("ASTC_6x6_SFLOAT", 40096), "env/probe.ktx2": ("ASTC_4x4_SFLOAT", 5488)},
    "mobile-etc2": {"env/sky.ktx2": ("R16G16B16A16_SFLOAT", 699048), "env/probe.ktx2": ("R16G16B16A16_SFLOAT", 43688)},
}


@pytest.mark.parametrize("platform", list(PER_PLATFORM))
def test_scan_prices_each_payload_per_platform(root: Path, platform: str) -> None:
    report = report_of(root, platform)
    rows = {t.facts.path: t for t in report.textures}
    got = {path: (rows[path].plan.gpu_format, rows[path].cost.gpu_bytes) for path in PER_PLATFORM[platform]}
    assert got == PER_PLATFORM[platform]
    volume = rows["fog/volume.ktx2"]
    assert (volume.plan.gpu_format, volume.cost.gpu_bytes, volume.plan.decided_by) == ("DFD_4x4x4_16B", 18800, "stored format DFD_4x4x4_16B")
    assert sum(volume.facts.level_bytes) == 18800
    assert [f.code for f in report.findings] == ["TB057"]


def test_explain_says_what_the_payload_is_and_becomes(root: Path) -> None:
    lines = explain.render(report_of(root), "env/sky.ktx2").splitlines()
    assert ("  payload       Basis Universal UASTC HDR 6x6 intermediate (supercompressed ASTC HDR 6x6; 16 B per 6x6 block "
            "once decoded); transcoded at load to BC6H_UFLOAT (16 B per 4x4 block) on desktop") in lines
    assert "  transcodable      UASTC_HDR_6x6i" in lines
    assert "  supercompression  UASTC HDR 6x6i" in lines
    lines = explain.render(report_of(root, "mobile-astc"), "env/probe.ktx2").splitlines()
    assert any(line.endswith("transcoded at load to ASTC_4x4_SFLOAT (16 B per 4x4 block) on mobile-astc") for line in lines)


def test_explain_names_a_format_sized_from_its_descriptor(root: Path) -> None:
    lines = explain.render(report_of(root), "fog/volume.ktx2").splitlines()
    assert "  gpu format    DFD_4x4x4_16B" in lines
    assert "  format        not in texbudget's table: sized from the file's data format descriptor, 16 B per 4x4x4 block" in lines
    assert ("  TB057 warning: KTX2 vkFormat 1000999000 is not in texbudget's table; sized from the file's data format "
            "descriptor: 4x4x4 blocks of 16 bytes.") in lines


def test_json_report_and_check(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(root), "--format", "json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    entries = {t["path"]: t for t in data["textures"]}
    sky, volume = entries["env/sky.ktx2"], entries["fog/volume.ktx2"]
    assert (sky["stored_format"], sky["gpu_format"], sky["vk_format"], sky["gpu_bytes"]) == (
        "UASTC_HDR_6x6i", "BC6H_UFLOAT", "VK_FORMAT_BC6H_UFLOAT_BLOCK", 87408)
    assert (volume["stored_format"], volume["gpu_format"], volume["vk_format"], volume["dxgi_format"], volume["gpu_bytes"]) == (
        "DFD_4x4x4_16B", "DFD_4x4x4_16B", None, None, 18800)
    assert [(f["path"], f["code"], f["severity"]) for f in data["findings"]] == [("fog/volume.ktx2", "TB057", "warning")]
    assert main(["check", str(root), "--no-cache"]) == 0  # a warning never fails a commit


def test_size_calculator_takes_a_self_sized_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["size", "DFD_4x4x4_16B", "64x64x16", "--mips", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["gpu_format"], data["gpu_bytes"]) == ("DFD_4x4x4_16B", 18800)
    assert main(["size", "UASTC_HDR_6x6i", "64x64"]) == 2  # transcoded on load: size its target
