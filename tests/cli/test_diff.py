"""``texbudget diff``: two hand-made schema-1 reports (a texture that grew, a new texture, a
removed one, a mesh that shrank, a verdict that got worse) and the exact Markdown lines of
the pull-request comment; ``growth`` for ``check --max-growth``; schema checks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from texbudget.errors import UsageError
from texbudget.report.diff import diff, growth, load, load_json_report, render_markdown, summary

GIB, MIB = 1 << 30, 1 << 20
# allocated bytes of BC7 textures with full mip chains (content rounded up to 64 KiB)
BC7_1K = 1441792  # 1024x1024: 1,398,128 B content
BC7_2K = 5636096  # 2048x2048: 5,592,432 B content
BC1_4K = 11206656  # 4096x4096 BC1: 11,184,880 B content
RGBA8_1K = 5636096  # 1024x1024 RGBA8: 5,592,404 B content


def texture(path: str, size: int, fmt: str, allocated: int) -> dict:
    return {"path": path, "width": size, "height": size, "gpu_format": fmt, "allocated_bytes": allocated}


def card(name: str, usable: int, total: int, headroom: float = 0.05) -> dict:
    free = usable - total
    verdict = "over" if free < 0 else "tight" if free < headroom * usable else "fits"
    return {"name": name, "vram_bytes": 0, "usable_bytes": usable, "free_bytes": free, "verdict": verdict}


def scenario(resolution: str, rt: str, total: int) -> dict:
    return {
        "resolution": resolution, "render_scale": 1.0, "quality": "ultra", "rt": rt,
        "bytes": {}, "total_bytes": total,
        "cards": [card("8GB", 7784628224, total), card("12GB", 11982958755, total)], "fixes": [],
    }


BASE_4K = 7_780_000_000  # fits on 8GB? free 4.6 MB < 5 % headroom -> tight
BASE_1080 = 6_000_000_000


def reports() -> tuple[dict, dict]:
    base = {
        "schema": 1,
        "textures": [
            texture("textures/rock_albedo.ktx2", 1024, "BC7_SRGB", BC7_1K),
            texture("textures/old_sign.png", 1024, "R8G8B8A8_SRGB", RGBA8_1K),
            texture("textures/same.png", 1024, "BC7_SRGB", BC7_1K),
        ],
        "meshes": [{"path": "level.glb#mesh/0", "triangles": 1000, "instances": 2, "buffer_bytes": 64_000}],
        "findings": [{"path": "textures/old_sign.png", "code": "TB006"}],
        "scenarios": [scenario("3840x2160", "nvidia", BASE_4K), scenario("1920x1080", "off", BASE_1080)],
    }
    delta = (BC7_2K - BC7_1K) + BC1_4K - RGBA8_1K - 32_000
    head = copy.deepcopy(base)
    head["textures"] = [
        texture("textures/rock_albedo.ktx2", 2048, "BC7_SRGB", BC7_2K),
        texture("textures/same.png", 1024, "BC7_SRGB", BC7_1K),
        texture("textures/new_banner_albedo.png", 4096, "BC1_RGB_SRGB", BC1_4K),
    ]
    head["meshes"] = [{"path": "level.glb#mesh/0", "triangles": 500, "instances": 2, "buffer_bytes": 32_000}]
    head["findings"] = []
    head["scenarios"] = [scenario("3840x2160", "nvidia", BASE_4K + delta), scenario("1920x1080", "off", BASE_1080 + delta)]
    return base, head


def test_verdicts_of_the_hand_made_reports() -> None:
    base, head = reports()
    assert [c["verdict"] for c in base["scenarios"][0]["cards"]] == ["tight", "fits"]
    assert [c["verdict"] for c in head["scenarios"][0]["cards"]] == ["over", "fits"]
    assert [c["verdict"] for c in head["scenarios"][1]["cards"]] == ["fits", "fits"]


def test_diff_markdown_exact_lines() -> None:
    base, head = reports()
    text = render_markdown(diff(base, head))
    # delta = +4,194,304 (rock) + 11,206,656 (new) - 5,636,096 (removed) - 32,000 (mesh) = 9,732,864 B
    assert text.splitlines() == [
        "**texbudget:** Scene VRAM +9.28 MiB (+0.1 %) at 4K ultra RT nvidia; "
        "1 verdict got worse: 4K ultra RT nvidia on 8GB tight → over",
        "",
        "### Scenarios",
        "",
        "| scenario | before | after | change | verdicts |",
        "|---|--:|--:|--:|---|",
        "| 4K ultra RT nvidia | 7.25 GiB | 7.25 GiB | +9.28 MiB (+0.1 %) | 8GB: tight → over ✗ |",
        "| 1080p ultra RT off | 5.59 GiB | 5.60 GiB | +9.28 MiB (+0.2 %) | unchanged |",
        "",
        "### Assets that grew or appeared",
        "",
        "| asset | before | after | change | what |",
        "|---|--:|--:|--:|---|",
        "| `textures/new_banner_albedo.png` (new) | – | 10.69 MiB | +10.69 MiB | 4096x4096 BC1_RGB_SRGB |",
        "| `textures/rock_albedo.ktx2` | 1.38 MiB | 5.38 MiB | +4.00 MiB (+290.9 %) | 1024x1024 BC7_SRGB → 2048x2048 BC7_SRGB |",
        "",
        "<details><summary>2 assets shrank or were removed (-5.41 MiB)</summary>",
        "",
        "| asset | before | after | change | what |",
        "|---|--:|--:|--:|---|",
        "| `textures/old_sign.png` (removed) | 5.38 MiB | – | -5.38 MiB | 1024x1024 R8G8B8A8_SRGB |",
        "| `level.glb#mesh/0` | 62.50 KiB | 31.25 KiB | -31.25 KiB (-50.0 %) | 1,000 tris ×2 → 500 tris ×2 |",
        "",
        "</details>",
        "",
        "### Findings",
        "",
        "| code | before | after |",
        "|---|--:|--:|",
        "| TB006 | 1 | 0 |",
    ]


def test_diff_structure() -> None:
    base, head = reports()
    d = diff(base, head)
    assert [(c.path, c.status, c.delta_bytes) for c in d.grown] == [
        ("textures/new_banner_albedo.png", "new", BC1_4K),
        ("textures/rock_albedo.ktx2", "grew", BC7_2K - BC7_1K),
    ]
    assert [(c.path, c.status, c.delta_bytes) for c in d.shrunk] == [
        ("textures/old_sign.png", "removed", -RGBA8_1K),
        ("level.glb#mesh/0", "shrank", -32_000),
    ]
    assert d.headline is not None and d.headline.label == "4K ultra RT nvidia"
    assert [(s.label, v.text) for s, v in d.worse] == [("4K ultra RT nvidia", "8GB: tight → over")]
    assert d.better == ()
    assert d.findings == (("TB006", 1, 0),)


def test_growth_is_the_headline_scenarios_relative_change() -> None:
    base, head = reports()
    delta = (BC7_2K - BC7_1K) + BC1_4K - RGBA8_1K - 32_000
    assert delta == 9_732_864
    assert growth(base, head) == delta / BASE_4K
    assert growth(head, base) == -delta / (BASE_4K + delta)
    assert growth(base, base) == 0.0


def test_growth_without_common_scenarios_uses_asset_bytes() -> None:
    base, head = reports()
    head["scenarios"] = [scenario("2560x1440", "off", 1)]
    base_assets = BC7_1K + RGBA8_1K + BC7_1K + 64_000
    head_assets = BC7_2K + BC7_1K + BC1_4K + 32_000
    assert growth(base, head) == (head_assets - base_assets) / base_assets
    d = diff(base, head)
    assert d.headline is None
    assert summary(d).startswith(f"Asset VRAM +9.28 MiB (+{100 * (head_assets - base_assets) / base_assets:.1f} %); ")
    lines = render_markdown(d).splitlines()
    assert "| 1440p ultra RT off | – | 1 B | +1 B | new scenario |" in lines
    assert "| 4K ultra RT nvidia | 7.25 GiB | – | -7.25 GiB | scenario removed |" in lines


def test_summary_when_nothing_got_worse() -> None:
    base, head = reports()
    assert summary(diff(base, base)) == "Scene VRAM unchanged (7.25 GiB) at 4K ultra RT nvidia; no verdict changed"
    assert summary(diff(head, base)) == (
        "Scene VRAM -9.28 MiB (-0.1 %) at 4K ultra RT nvidia; 1 verdict got better"
    )


def test_summary_names_at_most_three_worse_verdicts() -> None:
    base, head = reports()
    for s in head["scenarios"]:
        for c in s["cards"]:
            c["verdict"] = "over"
    text = summary(diff(base, head))
    assert text.endswith(
        "4 verdicts got worse: 4K ultra RT nvidia on 8GB tight → over, 4K ultra RT nvidia on 12GB fits → over, "
        "1080p ultra RT off on 8GB fits → over and 1 more"
    )


def test_same_size_format_change_is_listed_apart() -> None:
    base, head = reports()
    head = copy.deepcopy(base)
    head["textures"][2]["gpu_format"] = "BC3_SRGB"
    d = diff(base, head)
    assert d.grown == () and d.shrunk == ()
    assert [(c.path, c.base_what, c.head_what) for c in d.changed] == [
        ("textures/same.png", "1024x1024 BC7_SRGB", "1024x1024 BC3_SRGB")]
    lines = render_markdown(d).splitlines()
    assert "None." in lines
    assert "<details><summary>1 asset changed without changing size</summary>" in lines
    assert "| `textures/same.png` | 1.38 MiB | 1.38 MiB | ±0 B | 1024x1024 BC7_SRGB → 1024x1024 BC3_SRGB |" in lines


def test_long_lists_are_cut_with_a_total() -> None:
    base, head = reports()
    head["textures"] += [texture(f"textures/t{i:02}.png", 64, "BC1_RGB_SRGB", 4096 * (i + 1)) for i in range(30)]
    lines = render_markdown(diff(base, head), top=5).splitlines()
    rows = [line for line in lines if line.startswith("| `textures/")]
    assert [r.split(" |")[0] for r in rows[:5]] == [
        "| `textures/new_banner_albedo.png` (new)", "| `textures/rock_albedo.ktx2`",
        "| `textures/t29.png` (new)", "| `textures/t28.png` (new)", "| `textures/t27.png` (new)",
    ]
    assert rows[2] == "| `textures/t29.png` (new) | – | 120.00 KiB | +120.00 KiB | 64x64 BC1_RGB_SRGB |"
    assert len(rows) == 5 + 1  # and the old sign in the collapsed section
    cut = sum(4096 * (i + 1) for i in range(27))  # t00..t26
    assert f"…and 27 more (+{cut / MIB:.2f} MiB)." in lines


def test_real_reports_diff_cleanly() -> None:
    """The golden scene report against itself, and against a copy with one texture doubled."""
    golden = json.loads((Path(__file__).parent / "golden" / "scene.json").read_text(encoding="utf-8"))
    assert summary(diff(golden, golden)) == "Scene VRAM unchanged (1.02 GiB) at 4K ultra RT nvidia; no verdict changed"
    head = copy.deepcopy(golden)
    head["textures"][1]["allocated_bytes"] += 90112
    for s in head["scenarios"]:
        s["total_bytes"] += 90112
    d = diff(golden, head)
    assert summary(d) == "Scene VRAM +88.00 KiB (+0.0 %) at 4K ultra RT nvidia; no verdict changed"
    assert [(c.path, c.delta_bytes) for c in d.grown] == [("textures/rock_albedo.ktx2", 90112)]


@pytest.mark.parametrize(("schema", "shown"), [(2, "2"), (None, "null"), ("1", '"1"')])
def test_other_schemas_are_rejected(schema: object, shown: str) -> None:
    base, head = reports()
    bad = dict(head)
    if schema is None:
        del bad["schema"]
    else:
        bad["schema"] = schema
    with pytest.raises(UsageError) as err:
        diff(base, bad, head_name="head.json")
    assert str(err.value) == (
        f"head.json: report schema {shown}; this texbudget reads schema 1 "
        "(write the report again with `texbudget scan --format json`)"
    )
    with pytest.raises(UsageError):
        growth(bad, base)


def test_load(tmp_path: Path) -> None:
    base, _ = reports()
    good = tmp_path / "base.json"
    good.write_text(json.dumps(base), encoding="utf-8")
    assert load(good) == load_json_report(good) == base
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match=r"broken\.json: not JSON \(Expecting property name enclosed in double quotes at line 1 column 2\)"):
        load(broken)
    with pytest.raises(UsageError, match=r"missing\.json: no such file"):
        load(tmp_path / "missing.json")
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    with pytest.raises(UsageError, match=r"list\.json: not a texbudget JSON report"):
        load(listed)


def test_a_hostile_path_stays_in_its_code_span() -> None:
    base, head = reports()
    evil = "textures/x`![i](https://e.example/t.png)`<img src=y>|.png"
    head["textures"].append(texture(evil, 1024, "BC7_SRGB", BC7_1K))
    row = next(line for line in render_markdown(diff(base, head)).splitlines() if "e.example" in line)
    assert row == "| ``textures/x`![i](https://e.example/t.png)`<img src=y>\\|.png`` (new) | – | 1.38 MiB | +1.38 MiB | 1024x1024 BC7_SRGB |"


def test_levels_are_matched_by_name_and_a_worse_level_verdict_is_in_the_summary():
    base, head = reports()
    base["levels"] = [
        {"name": "town", "scene": "levels/town.tscn", "scenarios": [scenario("1920x1080", "off", 7_000_000_000)]},
        {"name": "old", "scene": "levels/old.tscn", "scenarios": [scenario("1920x1080", "off", 1 * GIB)]},
    ]
    head["levels"] = [
        {"name": "town", "scene": "levels/town.tscn", "scenarios": [scenario("1920x1080", "off", 7_900_000_000)]},
        {"name": "new", "scene": "levels/new.tscn", "scenarios": [scenario("1920x1080", "off", 2 * GIB)]},
    ]
    d = diff(base, head)
    assert [(lv.name, lv.in_base, lv.in_head) for lv in d.levels] == [("town", True, True), ("new", False, True), ("old", True, False)]
    (town_worse,) = d.levels[0].worse
    assert town_worse[1].text == "8GB: fits → over"
    assert summary(d).endswith("; 1 level verdict got worse: town 1080p ultra RT off on 8GB fits → over")
    lines = render_markdown(d).splitlines()
    at = lines.index("### Levels")
    assert lines[at + 2:at + 7] == [
        "| level | scenario | before | after | change | verdicts |", "|---|---|--:|--:|--:|---|",
        "| town (`levels/town.tscn`) | 1080p ultra RT off | 6.52 GiB | 7.36 GiB | +858.31 MiB (+12.9 %) | 1080p ultra RT off: 8GB: fits → over ✗ |",
        "| new (`levels/new.tscn`) | 1080p ultra RT off | – | 2.00 GiB | +2.00 GiB | new level |",
        "| old (`levels/old.tscn`) | 1080p ultra RT off | 1.00 GiB | – | -1.00 GiB | level removed |",
    ]
    # reports without levels: no section, as before
    plain = render_markdown(diff(*reports()))
    assert "### Levels" not in plain
