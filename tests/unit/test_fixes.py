"""The fixes: the cheapest change that makes a card fit (docs/budget.md §4).

The rule: at every point, if one change covers what is still needed, take the one of the
lowest preference tier that does, and within it the one that saves least; otherwise take the
largest step and repeat. Expected bytes are computed here from the block formula and the
D3D12 alignment, independently of the code under test.
"""

from __future__ import annotations

import random

import pytest

from texbudget.budget import assessment
from texbudget.budget import settings as budget_settings
from texbudget.budget.cards import Card, resolve_cards
from texbudget.budget.fixes import apply_fixes
from texbudget.budget.inputs import AccelerationSummary, BudgetInputs, price_plan
from texbudget.budget.settings import BudgetSettings, fix_family_for, settings_from_config
from texbudget.config import BudgetSection
from texbudget.model import ScenarioResult, TexturePlan, evolve
from texbudget.sizing.targets import price_targets

MIB, KIB = 1 << 20, 1 << 10


# --- independent arithmetic ------------------------------------------------------------------


def chain(w: int, h: int, block_bytes: int, block_w: int = 4, block_h: int | None = None, levels: int | None = None) -> int:
    """Σ ⌈w_i / bw⌉ · ⌈h_i / bh⌉ · bytes per block over the levels (uncompressed: 1x1 blocks)."""
    block_h = block_w if block_h is None else block_h
    total, i = 0, 0
    while True:
        total += -(-max(1, w >> i) // block_w) * -(-max(1, h >> i) // block_h) * block_bytes
        if max(w >> i, h >> i) <= 1 or (levels is not None and i + 1 >= levels):
            return total
        i += 1


def align64k(n: int) -> int:
    """D3D12 default placement alignment (every texture here is too big for 4 KiB)."""
    return -(-n // (64 * KIB)) * 64 * KIB


RGBA8_8K = align64k(chain(8192, 8192, 4, 1))  # 8K RGBA8, 14 levels
BC5_8K = align64k(chain(8192, 8192, 16))  # 8K BC5 (16 B per 4x4 block), 14 levels


def plan(path: str, fmt: str, w: int, h: int, role: str = "albedo", *, levels: int | None = None) -> TexturePlan:
    return TexturePlan(
        path=path, gpu_format=fmt, width=w, height=h, depth=1, layers=1, faces=1,
        levels=max(w, h).bit_length() if levels is None else levels,
        mips="stored" if levels != 1 else "none", role=role, decided_by="test",
    )


def card(usable: int, name: str = "test") -> Card:
    """A card whose usable bytes are exactly ``usable``."""
    return Card(id=name, name=name, vram_bytes=usable, kind="generic", usable_bytes=usable)


def settings(**kw) -> BudgetSettings:
    base = {"cards": ("8GB",), "resolutions": ("1080p",), "rt": ("off",)}
    base.update(kw)
    return BudgetSettings(**base)


def assess(inputs: BudgetInputs, s: BudgetSettings, cards) -> ScenarioResult:
    (scenario,) = budget_settings.scenarios(s)
    return assessment.assess(inputs, scenario, s, cards)


def fixes_of(result, name: str) -> list[tuple]:
    return [(f.kind, f.path, f.group, f.value, f.saves_bytes) for f in result.fixes if f.card == name]


def check_applied(inputs: BudgetInputs, s: BudgetSettings, cards, result=None) -> None:
    """Every card's fixes, applied and re-assessed: the total falls by exactly their savings,
    the free bytes are what the report promised, and the card fits when it said it would."""
    (scenario,) = budget_settings.scenarios(s)
    result = result or assessment.assess(inputs, scenario, s, cards)
    for v in result.cards:
        fixes = [f for f in result.fixes if f.card == v.name]
        if v.verdict == "fits":
            assert not fixes and v.free_after_fixes_bytes is None
            continue
        i2, sc2, s2 = apply_fixes(inputs, scenario, s, fixes)
        after = assessment.assess(i2, sc2, evolve(s2, fixes=False), cards)
        assert result.total_bytes - after.total_bytes == sum(f.saves_bytes for f in fixes)
        fixed = next(c for c in after.cards if c.name == v.name)
        assert fixed.free_bytes == v.free_after_fixes_bytes
        if v.free_after_fixes_bytes >= v.headroom_bytes:
            assert fixed.verdict == "fits"


# --- the clock tower ----------------------------------------------------------------------------


def clocktower_scene() -> BudgetInputs:
    """One uncompressed 8K normal map among forty 4K BC7 albedo textures in two folders."""
    textures = [price_plan(plan("textures/buildings/clocktower_normal.ktx2", "R8G8B8A8_UNORM", 8192, 8192, "normal"))]
    for folder in ("buildings", "street"):
        textures += [price_plan(plan(f"textures/{folder}/t{k:02}_albedo.ktx2", "BC7_SRGB", 4096, 4096))
                     for k in range(20)]
    return BudgetInputs(textures=tuple(textures))


BC7_4K = align64k(chain(4096, 4096, 16))
BC7_2K = align64k(chain(2048, 2048, 16))
TEXTURES = RGBA8_8K + 40 * BC7_4K
RT_1080 = 223_482_808  # deferred 1080p native (test_targets pins the parts)
USABLE = 11_982_958_755  # a 12 GB card: 12 GiB − 7 %
HEADROOM = -(-USABLE // 20)  # ⌈5 % of usable⌉


def test_the_numbers_of_the_clocktower_scene():
    assert RGBA8_8K == align64k(357_913_940) == 357_957_632  # 341.38 MiB, as the demo shows
    assert BC5_8K == align64k(89_478_512) == 89_522_176
    assert RGBA8_8K - BC5_8K == 268_435_456  # exactly 256 MiB
    assert (BC7_4K, BC7_2K, HEADROOM) == (22_413_312, 5_636_096, 599_147_938)
    inputs = clocktower_scene()
    r = assess(inputs, settings(fixes=False), [card(USABLE)])
    assert r.bytes["textures"] == TEXTURES and r.bytes["render_targets"] == RT_1080


def test_tight_by_120_mib_takes_the_single_compression_not_a_group_drop():
    inputs = clocktower_scene()
    # meshes fill the card up to 120 MiB short of its headroom: tight
    mesh = USABLE - (HEADROOM - 120 * MIB) - TEXTURES - RT_1080
    inputs = evolve(inputs, mesh_bytes=mesh)
    s = settings()
    r = assess(inputs, s, [card(USABLE, "12GB")])
    (v,) = r.cards
    assert (v.verdict, v.free_bytes, v.headroom_bytes) == ("tight", HEADROOM - 120 * MIB, HEADROOM)
    # dropping the top mip of textures/buildings/* would save 256 MiB + 20 × 16 MiB, of every
    # albedo texture 40 × 16 MiB, capping the normal map to 4K 256 MiB too: the one
    # quality-neutral change that covers 120 MiB wins
    assert fixes_of(r, "12GB") == [
        ("compress", "textures/buildings/clocktower_normal.ktx2", "", "BC5_UNORM", RGBA8_8K - BC5_8K)]
    assert r.fixes[0].saves_bytes == 268_435_456
    assert r.fixes[0].action == "compress R8G8B8A8_UNORM to BC5_UNORM"
    assert v.free_after_fixes_bytes == HEADROOM - 120 * MIB + 268_435_456
    check_applied(inputs, s, [card(USABLE, "12GB")], r)


def test_each_card_gets_its_own_cheapest_fixes():
    """One scenario, three cards: 120 MiB to go, 700 MiB to go, and fits."""
    inputs = evolve(clocktower_scene(), mesh_bytes=1_000_000_000)
    total = TEXTURES + 1_000_000_000 + RT_1080
    s = settings(headroom_fraction=0.0)
    cards = [card(total - 120 * MIB, "small"), card(total - 700 * MIB, "smaller"), card(total, "exact")]
    r = assess(inputs, s, cards)
    assert [c.verdict for c in r.cards] == ["over", "over", "fits"]
    assert fixes_of(r, "small") == [
        ("compress", "textures/buildings/clocktower_normal.ktx2", "", "BC5_UNORM", 268_435_456)]
    # 700 MiB: nothing single covers it (the largest, every albedo's top mip, saves 640 MiB);
    # that goes first, and the 60 MiB left are covered by the quality-neutral compression
    # (256 MiB) rather than the street folder's top mips (20 × 4 MiB, less overshoot but a
    # loss of detail)
    assert 40 * (BC7_4K - BC7_2K) == 640 * MIB
    assert fixes_of(r, "smaller") == [
        ("drop_mips", "", "role:albedo", "1", 640 * MIB),
        ("compress", "textures/buildings/clocktower_normal.ktx2", "", "BC5_UNORM", 268_435_456)]
    assert fixes_of(r, "exact") == []
    check_applied(inputs, s, cards, r)


# --- several steps --------------------------------------------------------------------------------


def materials_scene(n: int = 4) -> BudgetInputs:
    """n materials of an 8K BC7 albedo and an 8K BC5 normal, one folder each."""
    textures = []
    for k in range(n):
        textures += [price_plan(plan(f"mat/m{k}/albedo.ktx2", "BC7_SRGB", 8192, 8192)),
                     price_plan(plan(f"mat/m{k}/normal.ktx2", "BC5_UNORM", 8192, 8192, "normal"))]
    return BudgetInputs(textures=tuple(textures))


def test_no_single_change_covers_it_largest_first_then_the_smallest_that_covers():
    inputs = materials_scene()
    drop = BC5_8K - BC7_4K  # one 8K level off: exactly 64 MiB
    assert drop == 64 * MIB
    # no upscaler steps (already at performance), no RT: textures only
    s = settings(headroom_fraction=0.0, upscaler="performance")
    rt = price_targets("deferred", 1920, 1080, upscaler="performance").total_bytes
    total = 8 * BC5_8K + rt
    # 300 MiB: the largest single change is a role's top mip (4 × 64 MiB); it goes first, and
    # the 44 MiB left are covered by the smallest cap that does: one normal map to 4096
    # (64 MiB; the albedos, now 4K, save at most 20 MiB capped, a folder's top mips 80 MiB)
    r = assess(inputs, s, [card(total - 300 * MIB)])
    assert fixes_of(r, "test") == [
        ("drop_mips", "", "role:albedo", "1", 4 * drop),
        ("cap", "mat/m0/normal.ktx2", "", "4096", drop)]
    assert [f.action for f in r.fixes] == ["drop the top mip of every albedo texture", "cap to 4096 (was 8192x8192)"]
    assert r.cards[0].free_after_fixes_bytes == 20 * MIB
    check_applied(inputs, s, [card(total - 300 * MIB)], r)
    # 600 MiB: both roles' top mips (256 + 256 MiB); for the 88 MiB left no single change
    # is enough (each role's next mip saves 4 × 16 MiB, a texture capped at most 21 MiB), so
    # the albedos' next mip (64 MiB); the 24 MiB left: no cap saves that much (a 4K normal
    # capped to 1024 saves 22,020,096 B), a material folder's mips 4 + 16 MiB, the normals'
    # next mip 64 MiB — that one. Two mips of each role, merged
    second = BC7_4K - BC7_2K  # 16 MiB
    assert BC7_4K - align64k(chain(512, 512, 16)) == 22_020_096 < 24 * MIB
    r2 = assess(inputs, s, [card(total - 600 * MIB)])
    assert fixes_of(r2, "test") == [
        ("drop_mips", "", "role:albedo", "2", 4 * (drop + second)),
        ("drop_mips", "", "role:normal", "2", 4 * (drop + second))]
    assert [f.action for f in r2.fixes] == ["drop the top 2 mips of every albedo texture", "drop the top 2 mips of every normal texture"]
    check_applied(inputs, s, [card(total - 600 * MIB)], r2)


def test_a_cap_covers_in_one_change_several_powers_of_two_down():
    inputs = BudgetInputs(textures=(price_plan(plan("hero/skin.dds", "BC7_SRGB", 8192, 8192, "skin")),))
    s = settings(headroom_fraction=0.0, upscaler="performance")
    rt = price_targets("deferred", 1920, 1080, upscaler="performance").total_bytes
    to_2048 = BC5_8K - BC7_2K  # 80 MiB
    # 70 MiB: capping to 4096 saves 64 MiB, to 2048 80 MiB: one change, "cap to 2048"
    r = assess(inputs, s, [card(BC5_8K + rt - 70 * MIB)])
    assert fixes_of(r, "test") == [("cap", "hero/skin.dds", "", "2048", to_2048)]
    assert r.fixes[0].action == "cap to 2048 (was 8192x8192)"


# --- the order of preference --------------------------------------------------------------------


def preference_scene(*, uncompressed: bool, opaque: bool, mipped: bool) -> BudgetInputs:
    normal = price_plan(plan("big/normal.ktx2", "R8G8B8A8_UNORM" if uncompressed else "BC5_UNORM", 8192, 8192, "normal"))
    crates = tuple(price_plan(plan(f"props/crate_{x}.dds", "BC7_SRGB", 2048, 2048, levels=None if mipped else 1))
                   for x in "ab")
    return BudgetInputs(textures=(normal, *crates),
                        opaque=frozenset(c.plan.path for c in crates) if opaque else frozenset())


UPSCALER_QUALITY_1080 = 23_469_487  # deferred 1080p: native − quality (test_budget pins it)


@pytest.mark.parametrize(("scene", "min_cap", "expected"), [
    # (a) quality-neutral: compress the uncompressed normal map — 256 MiB, though 2.7 MiB would do
    ({"uncompressed": True, "opaque": True, "mipped": True}, 1024,
     ("compress", "big/normal.ktx2", "", "BC5_UNORM", RGBA8_8K - BC5_8K)),
    # (a') re-encode: BC1 for an opaque BC7 (the first crate in scan order)
    ({"uncompressed": False, "opaque": True, "mipped": True}, 1024,
     ("bc1", "props/crate_a.dds", "", "BC1_RGB_SRGB", BC7_2K - align64k(chain(2048, 2048, 8)))),
    # (b) cap one texture: the crate to 1024 (4 MiB), not the normal map to 4096 (64 MiB)
    ({"uncompressed": False, "opaque": False, "mipped": True}, 1024,
     ("cap", "props/crate_a.dds", "", "1024", BC7_2K - align64k(chain(1024, 1024, 16)))),
    # (c) no caps allowed: the top mip of both crates (the albedo role)
    ({"uncompressed": False, "opaque": False, "mipped": True}, 16384,
     ("drop_mips", "", "role:albedo", "1", 2 * (BC7_2K - align64k(chain(1024, 1024, 16))))),
    # (d) nothing else saves: the upscaler's quality preset
    ({"uncompressed": False, "opaque": False, "mipped": False}, 16384,
     ("upscaler", "", "", "quality", UPSCALER_QUALITY_1080)),
])
def test_order_of_preference_when_several_single_changes_cover_the_need(scene, min_cap, expected):
    inputs = preference_scene(**scene)
    s = settings(headroom_fraction=0.0, fix_min_cap_size=min_cap)
    total = assess(inputs, s, [card(1 << 40)]).total_bytes
    r = assess(inputs, s, [card(total - MIB)])  # 1 MiB to go
    assert fixes_of(r, "test") == [expected]
    check_applied(inputs, s, [card(total - MIB)], r)


def test_the_preference_numbers():
    assert BC7_2K - align64k(chain(2048, 2048, 8)) == 5_636_096 - 2_818_048
    assert BC7_2K - align64k(chain(1024, 1024, 16)) == 4 * MIB
    native = price_targets("deferred", 1920, 1080).total_bytes
    quality = price_targets("deferred", 1920, 1080, upscaler="quality").total_bytes
    assert native - quality == UPSCALER_QUALITY_1080


def test_bc1_for_an_opaque_bc7_says_what_it_costs():
    inputs = preference_scene(uncompressed=False, opaque=True, mipped=True)
    s = settings(headroom_fraction=0.0)
    total = assess(inputs, s, [card(1 << 40)]).total_bytes
    (fix,) = assess(inputs, s, [card(total - MIB)]).fixes
    assert fix.action == "use BC1_RGB_SRGB for this opaque BC7_SRGB texture (coarser colour than BC7)"


def test_compaction_is_quality_neutral_and_wins_over_a_cap():
    blas = AccelerationSummary(total_bytes=200 * MIB, blas_bytes=200 * MIB, blas_uncompacted_bytes=200 * MIB,
                               tlas_bytes=0, instance_desc_bytes=0, peak_scratch_bytes=0,
                               blas_compacted_bytes=100 * MIB)
    inputs = evolve(materials_scene(1), acceleration={"nvidia": blas})
    s = settings(headroom_fraction=0.0, rt=("nvidia",))
    total = assess(inputs, s, [card(1 << 40)]).total_bytes
    # 64 MiB to go: a cap of either 8K texture to 4096 saves exactly that, compaction 100 MiB
    r = assess(inputs, s, [card(total - 64 * MIB)])
    assert fixes_of(r, "test") == [("compaction", "", "", "on", 100 * MIB)]
    check_applied(inputs, s, [card(total - 64 * MIB)], r)


# --- the platform picks the compression family ---------------------------------------------------


@pytest.mark.parametrize(("platform", "family"), [
    ("desktop", "bc"), ("desktop-bc7", "bc"), ("uncompressed", "bc"), ("mobile-astc", "astc"),
    ("mobile-etc2", "etc2"), ("mobile-vulkan", "astc"), ("mobile-etc2-gles3", "etc2"), ("console", "bc"),
])
def test_fix_family_follows_the_platform(platform, family):
    assert fix_family_for(platform) == family
    assert BudgetSettings(platform=platform).fix_family == family
    assert settings_from_config(BudgetSection(platform=platform)).fix_family == family


def test_fix_formats_overrides_the_platform():
    assert BudgetSettings(platform="desktop", fix_formats="etc2").fix_family == "etc2"
    assert evolve(BudgetSettings(platform="desktop"), platform="mobile-astc").fix_family == "astc"


RGBA8_2K = 2048 * 2048 * 4  # one level, 16 MiB


@pytest.mark.parametrize(("platform", "fmt", "role", "opaque", "target", "target_bytes"), [
    ("desktop", "R8G8B8A8_SRGB", "albedo", True, "BC1_RGB_SRGB", chain(2048, 2048, 8, levels=1)),
    ("desktop", "R8G8B8A8_SRGB", "albedo", False, "BC7_SRGB", chain(2048, 2048, 16, levels=1)),
    ("desktop", "R8G8B8A8_UNORM", "normal", False, "BC5_UNORM", chain(2048, 2048, 16, levels=1)),
    ("mobile-astc", "R8G8B8A8_SRGB", "albedo", True, "ASTC_6x6_SRGB", chain(2048, 2048, 16, 6, levels=1)),
    ("mobile-astc", "R8G8B8A8_UNORM", "normal", False, "EAC_R11G11_UNORM", chain(2048, 2048, 16, levels=1)),
    ("mobile-astc", "R8_UNORM", "single", False, "EAC_R11_UNORM", chain(2048, 2048, 8, levels=1)),
    ("mobile-etc2", "R8G8B8A8_SRGB", "albedo", True, "ETC2_R8G8B8_SRGB", chain(2048, 2048, 8, levels=1)),
    ("mobile-etc2", "R8G8B8A8_SRGB", "albedo", False, "ETC2_R8G8B8A8_SRGB", chain(2048, 2048, 16, levels=1)),
    ("mobile-etc2", "R8G8B8A8_UNORM", "normal", False, "EAC_R11G11_UNORM", chain(2048, 2048, 16, levels=1)),
])
def test_compress_targets_by_platform(platform, fmt, role, opaque, target, target_bytes):
    tex = price_plan(plan("t/tex.png", fmt, 2048, 2048, role, levels=1))
    inputs = BudgetInputs(textures=(tex,), opaque=frozenset({"t/tex.png"}) if opaque else frozenset())
    s = settings(headroom_fraction=0.0, platform=platform)
    r = assess(inputs, s, [card(tex.allocated_bytes + RT_1080 - 1)])  # one byte over
    assert fixes_of(r, "test") == [("compress", "t/tex.png", "", target, tex.allocated_bytes - align64k(target_bytes))]
    assert chain(2048, 2048, 16, 6, levels=1) == 342 * 342 * 16  # ASTC 6x6: ⌈2048 / 6⌉ blocks a side
    check_applied(inputs, s, [card(tex.allocated_bytes + RT_1080 - 1)], r)


def test_no_bc1_suggestion_off_desktop():
    tex = price_plan(plan("props/crate.dds", "BC3_SRGB", 1024, 1024))
    inputs = BudgetInputs(textures=(tex,), opaque=frozenset({"props/crate.dds"}))
    total = tex.allocated_bytes + RT_1080
    desktop = assess(inputs, settings(headroom_fraction=0.0), [card(total - 1)])
    mobile = assess(inputs, settings(headroom_fraction=0.0, platform="mobile-astc"), [card(total - 1)])
    assert [f.kind for f in desktop.fixes] == ["bc1"]
    assert fixes_of(mobile, "test") == [("upscaler", "", "", "quality", UPSCALER_QUALITY_1080)]


# --- every suggestion really fits ----------------------------------------------------------------


def random_scene(seed: int) -> BudgetInputs:
    rng = random.Random(seed)
    choices = [
        ("albedo", "BC7_SRGB"), ("albedo", "BC3_SRGB"), ("albedo", "R8G8B8A8_SRGB"), ("albedo", "BC1_RGB_SRGB"),
        ("normal", "BC5_UNORM"), ("normal", "R8G8B8A8_UNORM"), ("mask", "BC7_UNORM"), ("single", "R8_UNORM"),
        ("single", "BC4_UNORM"), ("ui", "R8G8B8A8_SRGB"), ("hdr", "R16G16B16A16_SFLOAT"),
    ]
    textures, opaque = [], set()
    for i in range(rng.randint(5, 60)):
        role, fmt = rng.choice(choices)
        w = 1 << rng.randint(6, 13)
        h = w if rng.random() < 0.8 else max(1, w >> rng.randint(1, 2))
        p = plan(f"f{rng.randint(0, 5)}/t{i}.dds", fmt, w, h, role, levels=1 if rng.random() < 0.15 else None)
        p = evolve(p, tier_drop=min(rng.choice([0, 0, 1, 2]), p.levels - 1), streamed=rng.random() < 0.8,
                    layers=rng.choice([1, 1, 1, 4]))
        textures.append(price_plan(p))
        if rng.random() < 0.5:
            opaque.add(p.path)
    accel = AccelerationSummary(total_bytes=300 * MIB, blas_bytes=280 * MIB, blas_uncompacted_bytes=280 * MIB,
                                tlas_bytes=20 * MIB, instance_desc_bytes=0, peak_scratch_bytes=0,
                                blas_compacted_bytes=rng.choice([140 * MIB, 280 * MIB]))
    return BudgetInputs(textures=tuple(textures), opaque=frozenset(opaque), mesh_bytes=rng.randint(0, 500 * MIB),
                        acceleration={"nvidia": accel})


@pytest.mark.parametrize("seed", range(30))
def test_every_suggested_set_of_fixes_makes_the_card_fit(seed):
    rng = random.Random(1000 + seed)
    inputs = random_scene(seed)
    streaming = seed % 3 == 0
    s = BudgetSettings(
        cards=("8GB",), resolutions=(rng.choice(["1080p", "1440p", "4k"]),), rt=(rng.choice(["off", "nvidia"]),),
        streaming=streaming, streaming_pool_bytes=rng.choice([64 * MIB, 256 * MIB, 1000 * MIB]),
        platform=rng.choice(["desktop", "mobile-astc", "mobile-etc2"]), fix_min_cap_size=rng.choice([256, 1024]),
    )
    total = assess(inputs, evolve(s, fixes=False), [card(1 << 40)]).total_bytes
    cards = [card(int(total * f), f"c{k}") for k, f in enumerate((0.25, 0.5, 0.8, 0.9, 0.97, 1.0, 1.04, 1.2))]
    result = assess(inputs, s, cards)
    assert any(c.verdict != "fits" for c in result.cards)
    check_applied(inputs, s, cards, result)
    enough = [c for c in result.cards if c.verdict != "fits" and c.free_after_fixes_bytes >= c.headroom_bytes]
    assert enough, "some card is brought under"


def test_the_shared_sequence_gives_the_same_fixes_in_any_order():
    """Scenarios share the texture steps of one inputs; a card asking for an earlier state
    (a smaller need after a bigger one) gets what a fresh search gives."""
    s = BudgetSettings(cards=("4GB", "6GB", "8GB", "12GB"), resolutions=("1080p", "1440p", "4k"), rt=("nvidia",))
    cards = resolve_cards(s.cards)
    scenarios = budget_settings.scenarios(s)
    shared = random_scene(7)
    shared = evolve(shared, mesh_bytes=6 << 30)
    in_order = [assessment.assess(shared, sc, s, cards) for sc in reversed(scenarios)][::-1]
    fresh = [assessment.assess(evolve(shared), sc, s, cards) for sc in scenarios]
    assert [r.fixes for r in in_order] == [r.fixes for r in fresh]
    assert any(r.fixes for r in fresh)


def test_a_group_drop_keeps_each_equal_change_of_the_other_groups_once():
    """The steps of the shared sequence keep what each changed in every group (for each
    card's replay): a role's drop changes every folder of that role, mostly by the same
    amount, and equal changes are one tuple (the 100k ``glb`` benchmark tree's sequence held
    12,600, 1,400 distinct)."""
    from texbudget.budget.fixes import _LargestFirst

    model = "d3d12"
    textures = tuple(price_plan(plan(f"env/f{f}/t{t}.png", "BC7_SRGB", 2048, 2048), model)
                     for f in range(6) for t in range(2))
    inputs = BudgetInputs(textures=textures)
    s = settings()
    result = assess(inputs, s, [card(1 * MIB)])
    assert fixes_of(result, "test")  # the card is over: the search ran
    (seq,) = [v for v in inputs._floors.values() if isinstance(v, _LargestFirst)]
    drops = [st for st in seq.steps if st.group == "role:albedo"]
    assert drops
    changes = drops[0].delta.groups
    top, half, quarter = (align64k(chain(n, n, 16)) for n in (2048, 1024, 512))
    # each folder's drop saved 2 x (2048 chain - 1024 chain); after it, 2 x (1024 - 512)
    d = 2 * ((half - quarter) - (top - half))
    folders = [v for h, v in changes.items() if seq.reg.groups[h][0].startswith("folder:")]
    assert folders == [(d, d)] * 6
    assert len({id(v) for v in folders}) == 1
    assert len({id(v) for v in changes.values()}) == len(set(changes.values()))
