"""The alternatives table (texbudget/alternatives.py): formats × max sizes for one texture,
with byte numbers recomputed here from the block formula and the D3D12 alignment rule, and
the properties every table has (the current plan is one row with saves_bytes 0; every row
priced again through apply_alternative + policy.decision.price gives its own bytes)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from texbudget.alternatives import (
    Alternative,
    alternatives,
    apply_alternative,
    candidate_formats,
    max_sizes,
)
from texbudget.config import parse_rules
from texbudget.model import TextureFacts, evolve
from texbudget.policy.decision import decide, price
from texbudget.policy.profiles import PolicySettings

KIB = 1024
BLOCKS = {  # format -> (block width, block height, bytes per block)
    "BC1_RGB_SRGB": (4, 4, 8), "BC3_SRGB": (4, 4, 16), "BC7_SRGB": (4, 4, 16), "BC7_UNORM": (4, 4, 16),
    "BC4_UNORM": (4, 4, 8), "BC5_UNORM": (4, 4, 16), "BC6H_UFLOAT": (4, 4, 16),
    "R8G8B8A8_SRGB": (1, 1, 4), "R8G8B8A8_UNORM": (1, 1, 4), "R8_UNORM": (1, 1, 1), "R16G16B16A16_SFLOAT": (1, 1, 8),
    "ASTC_4x4_SRGB": (4, 4, 16), "ASTC_5x5_SRGB": (5, 5, 16), "ASTC_6x6_SRGB": (6, 6, 16), "ASTC_8x8_SRGB": (8, 8, 16),
    "ETC2_R8G8B8_SRGB": (4, 4, 8),
}


def chain(fmt: str, w: int, h: int, levels: int | None = None) -> int:
    """Σ over levels of ceil(w/bw)·ceil(h/bh)·bytes per block; levels default to the full chain."""
    bw, bh, bpb = BLOCKS[fmt]
    total, i = 0, 0
    while True:
        total += -(-w // bw) * -(-h // bh) * bpb
        i += 1
        if (w == 1 and h == 1) or i == levels:
            return total
        w, h = max(1, w // 2), max(1, h // 2)


def aligned(content: int, small: bool) -> int:
    """D3D12: 4 KiB when the top level fits in 16 4-KiB tiles (decided by hand per row below),
    else 64 KiB."""
    a = 4 * KIB if small else 64 * KIB
    return -(-content // a) * a


def facts(path: str = "tex/rock_albedo.png", w: int = 2048, h: int = 2048, **kw) -> TextureFacts:
    kw.setdefault("container", "png")
    kw.setdefault("channels", 4 if kw.get("alpha") else 3)
    return TextureFacts(path=path, width=w, height=h, **kw)


def table(alts: tuple[Alternative, ...]) -> list[tuple]:
    return [(a.gpu_format, a.max_size, a.width, a.height, a.levels, a.gpu_bytes, a.allocated_bytes, a.saves_bytes, a.current)
            for a in alts]


def test_desktop_albedo_source_exact_table() -> None:
    f = facts()
    plan = decide(f, PolicySettings())
    assert (plan.gpu_format, plan.levels) == ("BC1_RGB_SRGB", 12)
    # (format, max_size, side, small-resource alignment?) — 4 KiB tiles hold 32x16 BC1 blocks,
    # 16x16 BC7 blocks, 32x32 RGBA8 texels; small = the top level needs at most 16 tiles
    cells = [
        ("BC1_RGB_SRGB", None, 2048, False), ("BC1_RGB_SRGB", 1024, 1024, False), ("BC1_RGB_SRGB", 512, 512, False), ("BC1_RGB_SRGB", 256, 256, True),
        ("BC7_SRGB", None, 2048, False), ("BC7_SRGB", 1024, 1024, False), ("BC7_SRGB", 512, 512, False), ("BC7_SRGB", 256, 256, True),
        ("R8G8B8A8_SRGB", None, 2048, False), ("R8G8B8A8_SRGB", 1024, 1024, False), ("R8G8B8A8_SRGB", 512, 512, False), ("R8G8B8A8_SRGB", 256, 256, False),
    ]
    current = aligned(chain("BC1_RGB_SRGB", 2048, 2048), False)
    assert current == 2818048
    expected = []
    for fmt, size, side, small in cells:
        content = chain(fmt, side, side)
        alloc = aligned(content, small)
        is_current = fmt == "BC1_RGB_SRGB" and size is None
        expected.append((fmt, size, side, side, side.bit_length(), content, alloc, 0 if is_current else current - alloc, is_current))
    expected.sort(key=lambda r: (r[5], r[6], not r[8], r[0], -r[2]))
    assert table(alternatives(plan, f)) == expected
    # a few of them spelled out
    assert chain("BC1_RGB_SRGB", 256, 256) == 43704 and aligned(43704, True) == 45056
    assert chain("BC7_SRGB", 2048, 2048) == 5592432 and aligned(5592432, False) == 5636096
    assert chain("R8G8B8A8_SRGB", 2048, 2048) == 22369620


def test_mobile_astc_exact_bytes() -> None:
    f = facts()
    plan = decide(f, PolicySettings(platform="mobile-astc"))
    assert plan.gpu_format == "ASTC_6x6_SRGB"
    alts = {(a.gpu_format, a.max_size): a for a in alternatives(plan, f, platform="mobile-astc")}
    assert {fmt for fmt, _ in alts} == {"ASTC_6x6_SRGB", "ASTC_4x4_SRGB", "ASTC_5x5_SRGB", "ASTC_8x8_SRGB",
                                        "ETC2_R8G8B8_SRGB", "R8G8B8A8_SRGB"}
    for fmt in ("ASTC_4x4_SRGB", "ASTC_5x5_SRGB", "ASTC_6x6_SRGB", "ASTC_8x8_SRGB", "ETC2_R8G8B8_SRGB"):
        assert alts[(fmt, None)].gpu_bytes == chain(fmt, 2048, 2048)
        assert alts[(fmt, 512)].gpu_bytes == chain(fmt, 512, 512)
    assert alts[("ASTC_6x6_SRGB", None)].gpu_bytes == 2497712
    assert alts[("ASTC_8x8_SRGB", 256)].gpu_bytes == 21888
    assert alts[("ASTC_6x6_SRGB", None)].current
    assert alts[("ASTC_8x8_SRGB", None)].saves_bytes == price(plan).allocated_bytes - alts[("ASTC_8x8_SRGB", None)].allocated_bytes


@pytest.mark.parametrize(("kw", "platform", "expected"), [
    ({"path": "t/rock_normal.png"}, "desktop", ("BC5_UNORM", "BC7_UNORM", "R8G8B8A8_UNORM")),
    ({"path": "t/rock_rough.png", "channels": 1}, "desktop", ("BC4_UNORM", "R8_UNORM")),
    ({"path": "t/sky.exr", "container": "exr", "hdr": True, "bit_depth": 16}, "desktop", ("BC6H_UFLOAT", "R16G16B16A16_SFLOAT")),
    ({"path": "t/leaf_albedo.png", "alpha": True}, "desktop", ("BC3_SRGB", "BC7_SRGB", "R8G8B8A8_SRGB")),
    ({"path": "t/leaf_albedo.png", "alpha": True}, "desktop-bc7", ("BC7_SRGB", "BC3_SRGB", "R8G8B8A8_SRGB")),
    ({"path": "t/rock_normal.png"}, "mobile-etc2", ("EAC_R11G11_UNORM", "R8G8B8A8_UNORM")),
    ({"path": "t/leaf_albedo.png", "alpha": True}, "mobile-etc2", ("ETC2_R8G8B8A8_SRGB", "R8G8B8A8_SRGB")),
    ({"path": "t/rock_orm.png"}, "mobile-astc", ("ASTC_8x8_UNORM", "ASTC_4x4_UNORM", "ASTC_5x5_UNORM", "ASTC_6x6_UNORM",
                                                  "ETC2_R8G8B8_UNORM", "R8G8B8A8_UNORM")),
    ({"path": "t/sky.hdr", "container": "hdr", "hdr": True}, "mobile-astc", ("ASTC_4x4_SFLOAT", "ASTC_5x5_SFLOAT", "ASTC_6x6_SFLOAT",
                                                                             "ASTC_8x8_SFLOAT", "R16G16B16A16_SFLOAT")),
])
def test_candidate_formats_by_role_and_platform(kw: dict, platform: str, expected: tuple[str, ...]) -> None:
    f = facts(w=512, h=512, **kw)
    plan = decide(f, PolicySettings(platform=platform))
    assert candidate_formats(plan, f, platform) == expected


def test_max_sizes() -> None:
    assert max_sizes(2048) == (None, 1024, 512, 256)
    assert max_sizes(3000) == (None, 2048, 1024, 512, 256)
    assert max_sizes(300) == (None, 256)
    assert max_sizes(256) == (None,)
    assert max_sizes(64) == (None,)


def test_non_square_caps_halve_both_sides() -> None:
    f = facts(w=3000, h=1500)
    plan = decide(f, PolicySettings())
    rows = [(a.max_size, a.width, a.height, a.levels, a.gpu_bytes) for a in alternatives(plan, f) if a.gpu_format == "BC1_RGB_SRGB"]
    assert sorted(rows, key=lambda r: -r[1]) == [
        (None, 3000, 1500, 12, chain("BC1_RGB_SRGB", 3000, 1500)),
        (2048, 1500, 750, 11, chain("BC1_RGB_SRGB", 1500, 750)),
        (1024, 750, 375, 10, chain("BC1_RGB_SRGB", 750, 375)),
        (512, 375, 187, 9, chain("BC1_RGB_SRGB", 375, 187)),
        (256, 187, 93, 8, chain("BC1_RGB_SRGB", 187, 93)),
    ]


def test_stored_bc7_ktx2_keeps_its_format_as_current() -> None:
    f = TextureFacts("t/graffiti_albedo.ktx2", "ktx2", 512, 512, stored_levels=10, stored_format="BC7_SRGB", alpha=True, channels=4)
    plan = decide(f, PolicySettings())
    alts = alternatives(plan, f)
    (cur,) = [a for a in alts if a.current]
    assert (cur.gpu_format, cur.max_size, cur.width, cur.levels, cur.gpu_bytes, cur.allocated_bytes) == (
        "BC7_SRGB", None, 512, 10, chain("BC7_SRGB", 512, 512), aligned(chain("BC7_SRGB", 512, 512), False))
    assert [a.gpu_format for a in alts if a.max_size is None] == ["BC7_SRGB", "BC3_SRGB", "R8G8B8A8_SRGB"]
    bc3 = next(a for a in alts if a.gpu_format == "BC3_SRGB" and a.max_size is None)
    assert (bc3.gpu_bytes, bc3.saves_bytes, bc3.current) == (349552, 0, False)


def test_a_capped_plan_shows_the_uncapped_sizes_too() -> None:
    f = facts(w=4096, h=4096)
    rules = parse_rules([{"match": "tex/*", "max_size": 1024}], "test")
    plan = decide(f, PolicySettings(), rules)
    assert (plan.width, plan.max_size) == (1024, 1024)
    alts = [a for a in alternatives(plan, f) if a.gpu_format == "BC1_RGB_SRGB"]
    assert sorted((a.max_size or 0, a.width, a.current) for a in alts) == [
        (0, 4096, False), (256, 256, False), (512, 512, False), (1024, 1024, True), (2048, 2048, False)]
    uncapped = next(a for a in alts if a.max_size is None)
    assert uncapped.saves_bytes == price(plan).allocated_bytes - aligned(chain("BC1_RGB_SRGB", 4096, 4096), False) < 0


def test_ui_without_mips_stays_without_mips() -> None:
    f = facts(path="ui/hud.png", w=512, h=512, alpha=True)
    plan = decide(f, PolicySettings())
    assert (plan.role, plan.mips, plan.levels) == ("ui", "none", 1)
    alts = alternatives(plan, f)
    assert {(a.levels, a.mips) for a in alts} == {(1, False)}
    rgba = next(a for a in alts if a.gpu_format == "R8G8B8A8_SRGB" and a.max_size is None)
    assert rgba.current and rgba.gpu_bytes == 512 * 512 * 4


def test_a_stored_file_without_mips_is_its_own_row() -> None:
    """A DDS with one level: the current row has 1 level; the table's rows show the full
    chain (what adding mips costs)."""
    f = TextureFacts("t/sign_albedo.dds", "dds", 1024, 1024, stored_levels=1, stored_format="BC1_RGB_SRGB", channels=3)
    plan = decide(f, PolicySettings())
    alts = alternatives(plan, f)
    (cur,) = [a for a in alts if a.current]
    assert (cur.levels, cur.mips, cur.gpu_bytes) == (1, False, 1024 * 1024 // 2)
    full = next(a for a in alts if a.gpu_format == "BC1_RGB_SRGB" and a.max_size is None and not a.current)
    assert full.levels == 11 and full.gpu_bytes == chain("BC1_RGB_SRGB", 1024, 1024)
    assert full.saves_bytes == aligned(524288, False) - aligned(chain("BC1_RGB_SRGB", 1024, 1024), False) < 0


def test_quality_tier_drop_is_kept() -> None:
    f = facts()
    plan = decide(f, PolicySettings(quality="high"))
    assert plan.tier_drop == 1
    alts = {(a.gpu_format, a.max_size): a for a in alternatives(plan, f)}
    assert alts[("BC1_RGB_SRGB", None)].current
    assert alts[("BC1_RGB_SRGB", None)].gpu_bytes == chain("BC1_RGB_SRGB", 1024, 1024)  # top level dropped
    assert alts[("BC7_SRGB", 512)].gpu_bytes == chain("BC7_SRGB", 256, 256)


def test_ignored_plan_costs_nothing_and_every_row_costs_more() -> None:
    f = facts()
    rules = parse_rules([{"match": "tex/*", "ignore": True}], "test")
    plan = decide(f, PolicySettings(), rules)
    assert plan.ignored
    alts = alternatives(plan, f)
    (cur,) = [a for a in alts if a.current]
    assert (cur.gpu_bytes, cur.allocated_bytes, cur.saves_bytes) == (0, 0, 0)
    assert all(a.saves_bytes == -a.allocated_bytes for a in alts)


def test_unknown_platform() -> None:
    f = facts()
    with pytest.raises(ValueError, match="unknown platform 'switch'"):
        alternatives(decide(f, PolicySettings()), f, platform="switch")


def test_apply_alternative() -> None:
    f = facts()
    plan = decide(f, PolicySettings())
    alts = alternatives(plan, f)
    bc7 = next(a for a in alts if a.gpu_format == "BC7_SRGB" and a.max_size == 1024)
    changed = apply_alternative(plan, bc7)
    assert (changed.gpu_format, changed.width, changed.height, changed.levels, changed.max_size) == ("BC7_SRGB", 1024, 1024, 11, 1024)
    assert changed.decided_by.startswith("what-if: BC7_SRGB, max_size 1024; was: ")
    cost = price(changed)
    assert (cost.gpu_bytes, cost.allocated_bytes) == (bc7.gpu_bytes, bc7.allocated_bytes) == (chain("BC7_SRGB", 1024, 1024), 1441792)
    current = next(a for a in alts if a.current)
    assert apply_alternative(plan, current) is plan


# --- properties over many textures -------------------------------------------------------------

ROLE_NAMES = ("albedo", "normal", "orm", "rough", "height", "emissive")


@settings(max_examples=150, deadline=None)
@given(
    w=st.integers(1, 5000), h=st.integers(1, 5000), alpha=st.booleans(), role=st.sampled_from(ROLE_NAMES),
    platform=st.sampled_from(("desktop", "desktop-bc7", "mobile-astc", "mobile-etc2", "uncompressed")),
    quality=st.sampled_from(("ultra", "high", "low")), stored=st.sampled_from((None, "BC7_SRGB", "BC1_RGB_UNORM", "R8G8B8A8_UNORM")),
    stored_levels=st.integers(1, 3), cap=st.sampled_from((None, 512, 1024)),
)
def test_properties(w, h, alpha, role, platform, quality, stored, stored_levels, cap) -> None:
    f = facts(path=f"t/x_{role}.{'dds' if stored else 'png'}", w=w, h=h, alpha=alpha, stored_format=stored,
              stored_levels=stored_levels if stored else 1, container="dds" if stored else "png")
    rules = parse_rules([{"match": "t/*", "max_size": cap}], "test") if cap else ()
    plan = decide(f, PolicySettings(platform=platform, quality=quality), rules)
    now = price(plan)
    alts = alternatives(plan, f, platform=platform)
    current = [a for a in alts if a.current]
    assert len(current) == 1
    (cur,) = current
    assert (cur.gpu_format, cur.saves_bytes, cur.gpu_bytes, cur.allocated_bytes) == (plan.gpu_format, 0, now.gpu_bytes, now.allocated_bytes)
    assert [a.gpu_bytes for a in alts] == sorted(a.gpu_bytes for a in alts)
    assert len({(a.gpu_format, a.width, a.height, a.levels) for a in alts}) == len(alts)
    for a in alts:
        cost = price(apply_alternative(plan, a))
        assert (cost.gpu_bytes, cost.allocated_bytes) == (a.gpu_bytes, a.allocated_bytes)
        assert a.saves_bytes == now.allocated_bytes - a.allocated_bytes
        assert a.current or a.max_size is None or (max(a.width, a.height) <= a.max_size and a.max_size >= 256)
    assert evolve(plan) == plan  # the plan itself is untouched
