"""Render targets per resolution against spec/textures.md §5 (tables of exact bytes)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from texbudget import formats
from texbudget.sizing.targets import (
    hzb_size,
    load_presets,
    parse_presets,
    price_targets,
    render_size,
    scaled,
    working_set_bytes,
)

MIB = 1 << 20
GBUFFER = (
    "SceneColor", "GBufferA (normal)", "GBufferB (metallic, specular, roughness)",
    "GBufferC (base colour, AO)", "GBufferD (custom data)", "GBufferE (precomputed shadow factors)",
    "Velocity", "SceneDepth",
)


def rows(cost):
    return {r.name: r for r in cost.rows}


def r16f_chain(w: int, h: int) -> int:
    """Independent HZB sum: every level of an R16F chain, 2 bytes a texel."""
    total = 0
    while True:
        total += w * h * 2
        if w == 1 and h == 1:
            return total
        w, h = max(1, w // 2), max(1, h // 2)


def align(n: int, a: int) -> int:
    return -(-n // a) * a


# §5.1 table: (output, 40 B/px set, one 4 B/px target, 3 swapchains, 2x RGBA16F history, HZB dims)
TABLE = [
    ((1920, 1080), 82_944_000, 8_294_400, 24_883_200, 33_177_600, (1024, 1024)),
    ((2560, 1440), 147_456_000, 14_745_600, 44_236_800, 58_982_400, (2048, 1024)),
    ((3840, 2160), 331_776_000, 33_177_600, 99_532_800, 132_710_400, (2048, 2048)),
]


@pytest.mark.parametrize(("size", "gbuffer", "one", "swap", "history", "hzb"), TABLE)
def test_deferred_matches_spec_table(size, gbuffer, one, swap, history, hzb):
    cost = price_targets("deferred", *size)
    r = rows(cost)
    assert sum(r[n].content_bytes for n in GBUFFER) == gbuffer
    assert sum(formats.get(r[n].format).bytes_per_block for n in GBUFFER) == 40
    assert r["GBufferB (metallic, specular, roughness)"].content_bytes == one
    assert r["Swapchain"].count == 3 and r["Swapchain"].content_bytes == swap
    assert r["TAA history"].count == 2 and r["TAA history"].format == "R16G16B16A16_SFLOAT"
    assert r["TAA history"].content_bytes == history
    assert (r["HZB (furthest)"].width, r["HZB (furthest)"].height) == hzb
    assert r["HZB (furthest)"].format == "R16_SFLOAT"
    assert r["HZB (furthest)"].content_bytes == r16f_chain(*hzb)
    assert r["SceneDepth"].format == "D32_SFLOAT_S8_UINT"


def test_spec_table_mib_values():
    # The MiB column of §5.1, to two decimals.
    mib = [(82_944_000, "79.10"), (147_456_000, "140.63"), (331_776_000, "316.41"),
           (24_883_200, "23.73"), (44_236_800, "42.19"), (99_532_800, "94.92"),
           (33_177_600, "31.64"), (58_982_400, "56.25"), (132_710_400, "126.56"),
           (r16f_chain(1024, 1024), "2.67"), (r16f_chain(2048, 1024), "5.33"), (r16f_chain(2048, 2048), "10.67")]
    for n, text in mib:  # the spec rounds half up (140.625 -> 140.63)
        assert abs(n / MIB - float(text)) <= 0.005


def test_hzb_chain_exact_bytes():
    assert r16f_chain(1024, 1024) == 2_796_202
    assert r16f_chain(2048, 1024) == 5_592_406
    assert r16f_chain(2048, 2048) == 11_184_810
    assert hzb_size(1920, 1080) == (1024, 1024)
    assert hzb_size(2560, 1440) == (2048, 1024)
    assert hzb_size(3840, 2160) == (2048, 2048)
    assert hzb_size(1, 1) == (1, 1)
    assert hzb_size(1024, 768) == (512, 512)


def test_bloom_pyramid_is_a_third_of_one_8_byte_target():
    r = rows(price_targets("deferred", 1920, 1080))["Bloom pyramid"]
    expected = sum((960 >> i) * (540 >> i) * 8 for i in range(6))
    assert (r.width, r.height, r.levels) == (960, 540, 6)
    assert r.content_bytes == expected == 5_527_200
    assert 0.33 < expected / (1920 * 1080 * 8) < 0.334


def test_shadows_csm_and_vsm():
    csm = [r for r in price_targets("deferred", 1920, 1080, shadows="csm").rows if r.group == "shadows"]
    assert [(r.name, r.count, r.width, r.height, r.format) for r in csm] == [("Shadow cascade", 4, 2048, 2048, "D32_SFLOAT")]
    assert csm[0].content_bytes == 4 * 2048 * 2048 * 4 == 64 * MIB
    vsm = [r for r in price_targets("deferred", 1920, 1080, shadows="vsm").rows if r.group == "shadows"]
    assert vsm[0].content_bytes == 2048 * 64 * 1024 == 134_217_728
    assert vsm[0].allocated_bytes == 134_217_728  # 64 KiB pages are already aligned
    assert [r for r in price_targets("deferred", 1920, 1080, shadows="none").rows if r.group == "shadows"] == []
    # shadows do not change with resolution
    a = rows(price_targets("deferred", 3840, 2160, shadows="vsm"))
    assert a["VSM physical page pool (2048 pages of 128x128)"].content_bytes == 134_217_728


def test_allocation_and_overhead_are_kept_apart():
    cost = price_targets("deferred", 1920, 1080)
    r = rows(cost)["SceneColor"]
    assert r.content_bytes == 16_588_800
    assert r.allocated_bytes == align(16_588_800, 65536) == 16_646_144  # render targets: 64 KiB
    assert r.overhead_bytes == 497_664  # 3 % of the content (estimate, §3.4)
    assert cost.content_bytes == sum(x.content_bytes for x in cost.rows)
    assert cost.allocated_bytes == sum(x.allocated_bytes for x in cost.rows)
    assert cost.overhead_bytes == sum(x.overhead_bytes for x in cost.rows)
    assert cost.total_bytes == cost.allocated_bytes + cost.overhead_bytes + cost.working_set_bytes
    assert cost.content_bytes == 216_437_066
    assert cost.total_bytes == 223_482_808
    bare = price_targets("deferred", 1920, 1080, overhead_fraction=0.0, allocation_model="none")
    assert bare.overhead_bytes == 0 and bare.total_bytes == bare.content_bytes == 216_437_066
    more = price_targets("deferred", 1920, 1080, overhead_fraction=0.10)
    assert rows(more)["SceneColor"].overhead_bytes == 1_658_880


def test_deferred_1080p_content_from_first_principles():
    px = 1920 * 1080
    expected = (40 * px  # GBuffer set
                + r16f_chain(1024, 1024)  # HZB
                + 2 * 8 * px  # TAA history
                + 5_527_200  # bloom
                + 3 * 4 * px  # swapchain
                + 4 * 2048 * 2048 * 4)  # CSM
    assert price_targets("deferred", 1920, 1080).content_bytes == expected


@pytest.mark.parametrize(("upscaler", "render"), [
    ("native", (3840, 2160)),
    ("quality", (2560, 1440)),
    ("balanced", (2227, 1253)),
    ("performance", (1920, 1080)),
    ("ultra-performance", (1280, 720)),
])
def test_upscaler_render_resolution_at_4k(upscaler, render):
    cost = price_targets("deferred", 3840, 2160, upscaler=upscaler)
    assert (cost.render_width, cost.render_height) == render
    r = rows(cost)
    assert (r["SceneColor"].width, r["SceneColor"].height) == render
    assert (r["Swapchain"].width, r["Swapchain"].height) == (3840, 2160)  # output
    assert (r["Bloom pyramid"].width, r["Bloom pyramid"].height) == (1920, 1080)  # output / 2


def test_quality_upscaler_scales_render_targets_and_adds_working_set():
    q = price_targets("deferred", 3840, 2160, upscaler="quality")
    native1440 = price_targets("deferred", 2560, 1440)
    r, n = rows(q), rows(native1440)
    assert sum(r[x].content_bytes for x in GBUFFER) == 147_456_000
    assert r["HZB (furthest)"].content_bytes == n["HZB (furthest)"].content_bytes == 5_592_406
    assert "TAA history" not in r  # the upscaler keeps its own history
    assert q.working_set_bytes == 218_000_000  # FSR 3.1 Quality @4K (estimate)
    ws = [x for x in q.rows if x.group == "upscaler"]
    assert len(ws) == 1 and ws[0].estimate and ws[0].overhead_bytes == 0
    assert q.render_scale == pytest.approx(2 / 3)


def test_working_sets_at_other_resolutions():
    data = load_presets()
    fsr3, fsr2 = data.working_sets["fsr3"], data.working_sets["fsr2"]
    assert working_set_bytes(fsr3, 2560, 1440) == 106_000_000
    assert working_set_bytes(fsr3, 1920, 1080) == 106_000_000 * 1920 * 1080 // (2560 * 1440) == 59_625_000
    assert working_set_bytes(fsr3, 7680, 4320) == 4 * 218_000_000
    assert working_set_bytes(fsr2, 1920, 1080) == 115_000_000
    assert price_targets("deferred", 1920, 1080, upscaler="quality", upscaler_profile="fsr2").working_set_bytes == 115_000_000


def test_render_scale_override_and_rounding():
    assert render_size(3840, 2160, 2 / 3) == (2560, 1440)
    assert render_size(1920, 1080, 0.667) == (1281, 720)  # round(1280.64), round(720.36)
    assert scaled(5, 0.5) == 3  # half up
    assert scaled(1, 0.1) == 1  # never below one pixel
    cost = price_targets("deferred", 1920, 1080, render_scale=0.5)
    assert (cost.render_width, cost.render_height) == (960, 540)
    assert "TAA history" in rows(cost)  # native AA with a custom screen percentage


def test_rt_extras_only_when_rt_is_on():
    off = price_targets("deferred", 3840, 2160, rt=False)
    on = price_targets("deferred", 3840, 2160, rt=True)
    extras = [r for r in on.rows if r.group == "rt"]
    assert not [r for r in off.rows if r.group == "rt"]
    assert all(r.estimate for r in extras)
    # RGBA16F + 2 history, RG16 + 2 history, R11G11B10F + 2 history = 48 B/px at render res
    assert sum(r.content_bytes for r in extras) == 48 * 3840 * 2160 == 398_131_200
    q = price_targets("deferred", 3840, 2160, rt=True, upscaler="quality")
    assert sum(r.content_bytes for r in q.rows if r.group == "rt") == 48 * 2560 * 1440


def test_forward_msaa():
    one = rows(price_targets("forward", 1920, 1080))
    assert "MSAA resolve" not in one
    assert one["SceneColor (HDR)"].content_bytes == 16_588_800
    four = rows(price_targets("forward", 1920, 1080, msaa=4))
    assert four["SceneColor (HDR)"].samples == 4
    assert four["SceneColor (HDR)"].content_bytes == 4 * 16_588_800
    assert four["SceneColor (HDR)"].allocated_bytes == align(4 * 16_588_800, 4 * MIB)  # MSAA: 4 MiB
    assert four["SceneDepth"].content_bytes == 4 * 8 * 1920 * 1080
    assert four["MSAA resolve"].samples == 1 and four["MSAA resolve"].content_bytes == 16_588_800
    assert four["Swapchain"].samples == 1
    note = price_targets("deferred", 1920, 1080, msaa=4).notes
    assert note == ("msaa 4 ignored: the deferred preset has no MSAA targets",)


def test_every_target_uses_a_canonical_format():
    data = load_presets()
    sets = [*data.presets.values(), *data.shadows.values(), data.rt]
    names = [t.format for s in sets for t in s.targets]
    assert names and all(formats.get(n).name == n for n in names)
    assert set(data.presets) == {"deferred", "forward"}
    assert set(data.shadows) == {"csm", "vsm", "none"}
    assert list(data.upscalers) == ["native", "quality", "balanced", "performance", "ultra-performance"]
    assert [round(u.scale, 3) for u in data.upscalers.values()] == [1.0, 0.667, 0.58, 0.5, 0.333]
    assert data.overhead_fraction == 0.03


def test_cached_and_bad_arguments():
    assert price_targets("deferred", 1920, 1080) is price_targets("deferred", 1920, 1080)
    assert load_presets() is load_presets()
    with pytest.raises(ValueError, match="unknown renderer preset 'tiled'"):
        price_targets("tiled", 1920, 1080)
    with pytest.raises(ValueError, match="unknown shadows 'rt'"):
        price_targets("deferred", 1920, 1080, shadows="rt")
    with pytest.raises(ValueError, match="unknown upscaler 'dlss'"):
        price_targets("deferred", 1920, 1080, upscaler="dlss")
    with pytest.raises(ValueError, match="msaa 3"):
        price_targets("forward", 1920, 1080, msaa=3)
    with pytest.raises(ValueError, match="at least 1x1"):
        price_targets("deferred", 0, 1080)


def test_bad_data_file_is_refused():
    text = """
[presets.x]
targets = [{ name = "A", format = "RGBA8" }]
[shadows.none]
targets = []
[rt]
targets = []
[upscalers.native]
scale = "1"
[working_sets.fsr3]
points = [{ width = 1, height = 1, bytes = 1 }]
"""
    with pytest.raises(ValueError, match="not a canonical format name"):
        parse_presets(text)
    ok = parse_presets(text.replace('"RGBA8"', '"R8G8B8A8_UNORM"'))
    assert ok.presets["x"].targets[0].relative_to == "render"


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 10**15), st.integers(0, 10**6), st.integers(1, 10**6))
def test_a_share_is_the_fraction_rounded_half_up(n, p, q):
    # worked out in integers; the same as Fraction arithmetic
    from fractions import Fraction

    from texbudget.sizing.targets import _share

    assert _share(n, Fraction(p, q)) == math.floor(n * Fraction(p, q) + Fraction(1, 2))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 20000), st.floats(0.01, 4.0))
def test_scaled_is_the_simple_fraction_rounded_half_up(dim, scale):
    from fractions import Fraction

    exact = Fraction(scale).limit_denominator(10_000) * dim
    assert scaled(dim, scale) == max(1, math.floor(exact + Fraction(1, 2)))
