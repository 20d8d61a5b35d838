"""The budget: exact category totals, verdict boundaries, scenarios, fixes and streaming."""

from __future__ import annotations

import itertools
import random
from types import SimpleNamespace

import pytest

from texbudget.budget.assessment import assess, assess_all, budget_findings
from texbudget.budget.cards import Card
from texbudget.budget.fixes import apply_fixes
from texbudget.budget.inputs import (
    AccelerationSummary,
    BudgetInputs,
    price_plan,
    resident_floor_bytes,
    summarize_acceleration,
)
from texbudget.budget.settings import BudgetSettings, scenarios, settings_from_config
from texbudget.config import BudgetSection
from texbudget.model import Budget, TexturePlan, evolve
from texbudget.sizing.targets import price_targets

GIB, MIB, KIB = 1 << 30, 1 << 20, 1 << 10


# --- independent helpers: the block formula and the D3D12 alignment, written out here ----


def chain_bytes(w: int, h: int, block_bytes: int, block: int = 4, levels: int | None = None, first: int = 0) -> int:
    """Σ ceil(w_i / 4) · ceil(h_i / 4) · bytes per block over the levels (uncompressed: block=1)."""
    total, i = 0, 0
    while True:
        if i >= first:
            total += -(-max(1, w >> i) // block) * -(-max(1, h >> i) // block) * block_bytes
        if max(w >> i, h >> i) <= 1 or (levels is not None and i + 1 >= levels):
            return total
        i += 1


def align(n: int, a: int) -> int:
    return -(-n // a) * a


def full_levels(w: int, h: int) -> int:
    return max(w, h).bit_length()


def plan(path: str, fmt: str, w: int, h: int, role: str = "albedo", *, levels: int | None = None,
         tier: int = 0, streamed: bool = True, ignored: bool = False) -> TexturePlan:
    return TexturePlan(
        path=path, gpu_format=fmt, width=w, height=h, depth=1, layers=1, faces=1,
        levels=full_levels(w, h) if levels is None else levels, mips="stored" if levels != 1 else "none",
        role=role, decided_by="test", tier_drop=tier, ignored=ignored, streamed=streamed,
    )


def nvidia_acceleration(triangles: int, instances: int, *, compacted: bool = True) -> AccelerationSummary:
    """bvh.md §10, nvidia: BLAS prebuild 512 + 52T, compacted 256 + 26T, TLAS 512 + 128I, each
    rounded up to 256 B; 64 B of instance descriptor per instance."""
    prebuild = align(512 + 52 * triangles, 256)
    compact = align(256 + 26 * triangles, 256)
    tlas = align(512 + 128 * instances, 256)
    blas = compact if compacted else prebuild
    return AccelerationSummary(
        total_bytes=blas + tlas + 64 * instances, blas_bytes=blas, blas_uncompacted_bytes=prebuild,
        tlas_bytes=tlas, instance_desc_bytes=64 * instances, peak_scratch_bytes=align(512 + 52 * triangles, 256),
        blas_compacted_bytes=compact, source="bvh.md §10 nvidia",
    )


def settings(**kw) -> BudgetSettings:
    base = {"cards": ("8GB",), "resolutions": ("1080p",), "rt": ("off",)}
    base.update(kw)
    return BudgetSettings(**base)


def one(inputs: BudgetInputs, s: BudgetSettings, **kw):
    (scenario,) = scenarios(s)
    return assess(inputs, scenario, s, **kw)


# --- exact category totals -------------------------------------------------------------------


def test_hand_built_scene_content_bytes():
    textures = (
        price_plan(plan("a/albedo.dds", "BC7_SRGB", 1024, 1024), "none"),
        price_plan(plan("a/mask.dds", "BC1_RGB_UNORM", 512, 512, "mask", levels=1), "none"),
        price_plan(plan("ui/logo.png", "R8G8B8A8_SRGB", 300, 200, "ui", levels=1), "none"),
        price_plan(plan("old/unused.dds", "BC7_UNORM", 2048, 2048, ignored=True), "none"),
    )
    assert [t.gpu_bytes for t in textures[:3]] == [
        chain_bytes(1024, 1024, 16), 512 * 512 // 2, 300 * 200 * 4]
    assert [t.gpu_bytes for t in textures[:3]] == [1_398_128, 131_072, 240_000]
    inputs = BudgetInputs(textures=textures, mesh_bytes=1_000_000)
    s = settings(allocation_model="none")
    r = one(inputs, s)
    rt = price_targets("deferred", 1920, 1080, allocation_model="none").total_bytes
    assert rt == 216_437_066 + 6_493_112  # content + 3 % metadata overhead, no alignment
    assert r.bytes == {"textures": 1_769_200, "meshes": 1_000_000, "acceleration_structures": 0, "render_targets": rt}
    assert r.total_bytes == 1_769_200 + 1_000_000 + rt
    assert r.details["textures_content_bytes"] == r.details["textures_allocated_bytes"] == 1_769_200
    assert (r.resolution, r.render_resolution, r.render_scale, r.quality, r.rt) == ("1920x1080", "1920x1080", 1.0, "ultra", "off")


def test_textures_count_allocated_bytes():
    textures = (
        price_plan(plan("t/small.dds", "BC7_UNORM", 256, 256)),  # D3D12 small: 4 KiB
        price_plan(plan("t/big.dds", "BC7_SRGB", 1024, 1024)),  # 64 KiB
        price_plan(plan("t/rgba.png", "R8G8B8A8_UNORM", 128, 128, levels=1)),  # small: 4 KiB
    )
    small, big = chain_bytes(256, 256, 16), chain_bytes(1024, 1024, 16)
    assert [t.gpu_bytes for t in textures] == [small, big, 65_536]
    assert [t.allocated_bytes for t in textures] == [align(small, 4 * KIB), align(big, 64 * KIB), 65_536]
    r = one(BudgetInputs(textures=textures), settings())
    assert r.bytes["textures"] == align(small, 4 * KIB) + align(big, 64 * KIB) + 65_536 == 90_112 + 1_441_792 + 65_536
    assert r.details["textures_content_bytes"] == small + big + 65_536
    assert r.bytes["render_targets"] == 223_482_808  # deferred 1080p, see test_targets


def test_rt_adds_acceleration_and_rt_targets():
    acc = nvidia_acceleration(1_000, 10)
    inputs = BudgetInputs(mesh_bytes=5, acceleration={"nvidia": acc})
    on = one(inputs, settings(rt=("nvidia",)))
    off = one(inputs, settings())
    assert acc.total_bytes == 26_368 + 1_792 + 640
    assert on.bytes["acceleration_structures"] == 28_800
    assert off.bytes["acceleration_structures"] == 0
    assert on.bytes["render_targets"] == price_targets("deferred", 1920, 1080, rt=True).total_bytes
    assert on.details["blas_bytes"] == 26_368 and on.details["tlas_bytes"] == 1_792
    assert any("estimate" in n and "nvidia" in n for n in on.notes)
    with pytest.raises(ValueError, match="no acceleration-structure estimate for RT 'amd'"):
        one(inputs, settings(rt=("amd",)))


# --- verdict boundaries -------------------------------------------------------------------------

USABLE_8GB = 8 * GIB - 768 * MIB  # 7,784,628,224
HEADROOM_8GB = 389_231_412  # ceil(5 % of usable)


@pytest.mark.parametrize(("free", "headroom", "verdict"), [
    (HEADROOM_8GB, 0.05, "fits"),
    (HEADROOM_8GB - 1, 0.05, "tight"),
    (1, 0.05, "tight"),
    (0, 0.05, "tight"),  # exactly at usable: inside the headroom
    (0, 0.0, "fits"),  # exactly at usable, no headroom asked for
    (-1, 0.05, "over"),  # one byte over
    (-1, 0.0, "over"),
])
def test_verdict_boundaries(free, headroom, verdict):
    s = settings(headroom_fraction=headroom, fixes=False)
    rt = price_targets("deferred", 1920, 1080).total_bytes
    inputs = BudgetInputs(mesh_bytes=USABLE_8GB - rt - free)
    (card,) = one(inputs, s).cards
    assert (card.name, card.vram_bytes, card.usable_bytes, card.reserve_bytes) == ("8GB", 8 * GIB, USABLE_8GB, 768 * MIB)
    assert card.headroom_bytes == (HEADROOM_8GB if headroom else 0)
    assert card.free_bytes == free
    assert card.verdict == verdict


# --- scenarios -------------------------------------------------------------------------------------


def test_scenarios_cover_every_combination_in_order():
    s = BudgetSettings(resolutions=("1080p", "4k"), quality=("ultra", "low"), rt=("off", "nvidia"), upscaler="quality")
    got = [(x.quality, x.rt, x.resolution, x.render_resolution) for x in scenarios(s)]
    assert got == [
        ("ultra", "off", "1920x1080", "1280x720"), ("ultra", "off", "3840x2160", "2560x1440"),
        ("ultra", "nvidia", "1920x1080", "1280x720"), ("ultra", "nvidia", "3840x2160", "2560x1440"),
        ("low", "off", "1920x1080", "1280x720"), ("low", "off", "3840x2160", "2560x1440"),
        ("low", "nvidia", "1920x1080", "1280x720"), ("low", "nvidia", "3840x2160", "2560x1440"),
    ]
    assert {x.upscaler for x in scenarios(s)} == {"quality"}


def test_named_card_pulls_its_rt_vendor():
    s = BudgetSettings(cards=("rtx-4070",), resolutions=("4k",))
    (x,) = scenarios(s)
    assert x.rt == "nvidia"
    assert [x.rt for x in scenarios(BudgetSettings(cards=("8GB", "16GB")))] == ["off"] * 3
    assert [x.rt for x in scenarios(BudgetSettings(cards=("ps5",), resolutions=("4k",)))] == ["amd"]


def test_mixed_vendors_get_one_scenario_each_and_judge_their_own_cards():
    inputs = BudgetInputs(acceleration={v: nvidia_acceleration(10, 1) for v in ("nvidia", "amd", "intel")})
    s = BudgetSettings(cards=("8GB", "rx-7800-xt", "rtx-4070", "arc-b580"), resolutions=("1080p",))
    result = assess_all(inputs, s)
    assert isinstance(result, Budget)
    assert [x.rt for x in result.scenarios] == ["amd", "nvidia", "intel"]
    assert [[c.name for c in x.cards] for x in result.scenarios] == [
        ["8GB", "rx-7800-xt"], ["8GB", "rtx-4070"], ["8GB", "arc-b580"]]
    assert result.cards == ("8GB", "rx-7800-xt", "rtx-4070", "arc-b580")
    # an explicit --rt judges every card in every scenario
    forced = assess_all(inputs, evolve(s, rt=("off",)))
    assert [[c.name for c in x.cards] for x in forced.scenarios] == [["8GB", "rx-7800-xt", "rtx-4070", "arc-b580"]]


def test_platform_card_notes_shared_memory():
    inputs = BudgetInputs(acceleration={"amd": nvidia_acceleration(10, 1)})
    r = one(inputs, BudgetSettings(cards=("ps5",), resolutions=("4k",)))
    (card,) = r.cards
    assert (card.name, card.usable_bytes, card.reserve_bytes) == ("ps5", 13_421_772_800, 16 * GIB - 13_421_772_800)
    assert "CPU" in card.note and any("CPU" in n for n in r.notes)


# --- the eight-material scene ------------------------------------------------------------------

BC7_8K = chain_bytes(8192, 8192, 16)  # albedo BC7_SRGB, ORM BC7_UNORM: 14 levels
BC5_8K = chain_bytes(8192, 8192, 16)  # normal BC5_UNORM: also 16 B per 4x4 block
ALLOC_8K = align(BC7_8K, 64 * KIB)
MESH_BYTES = 56_000_000  # 2 M triangles: 1 M vertices x 32 B (float3 position, float3 normal, float2 uv) + 6 M x u32 indices
RT_4K = 1_095_460_431  # deferred, 4K native, CSM, RT extras (test_targets pins the parts)


def pbr_scene(materials: int = 8, *, compacted: bool = True) -> BudgetInputs:
    textures = []
    for m in range(materials):
        textures += [
            price_plan(plan(f"materials/m{m}/albedo.ktx2", "BC7_SRGB", 8192, 8192, "albedo")),
            price_plan(plan(f"materials/m{m}/normal.ktx2", "BC5_UNORM", 8192, 8192, "normal")),
            price_plan(plan(f"materials/m{m}/orm.ktx2", "BC7_UNORM", 8192, 8192, "mask")),
        ]
    return BudgetInputs(textures=tuple(textures), mesh_bytes=MESH_BYTES,
                        acceleration={"nvidia": nvidia_acceleration(2_000_000, 1, compacted=compacted)})


def test_pbr_texture_bytes_from_the_block_formula():
    assert BC7_8K == 89_478_512 == 67_108_864 + 22_369_648  # level 0 + the 4096 chain of spec §7
    assert ALLOC_8K == 89_522_176
    for t in pbr_scene(1).textures:
        assert len(t.mips) == 14 and t.gpu_bytes == BC7_8K and t.allocated_bytes == ALLOC_8K


def test_eight_8k_materials_at_4k_with_rt_on_8_12_24_gb():
    s = BudgetSettings(cards=("8GB", "12GB", "24GB"), resolutions=("4k",), rt=("nvidia",))
    r = one(pbr_scene(), s)
    acc = 52_000_256 + 768 + 64  # compacted BLAS 256 + 26T, TLAS 512 + 128, one instance desc
    rt_content = (40 * 8_294_400 + 11_184_810 + 2 * 8 * 8_294_400 + 22_112_160 + 3 * 4 * 8_294_400
                  + 4 * 2048 * 2048 * 4 + 48 * 8_294_400)
    assert r.details["render_targets_content_bytes"] == rt_content == 1_062_556_234
    assert r.bytes == {
        "textures": 24 * ALLOC_8K,  # 2,148,532,224
        "meshes": 56_000_000,
        "acceleration_structures": acc,
        "render_targets": RT_4K,
    }
    total = 24 * ALLOC_8K + 56_000_000 + acc + RT_4K
    assert r.total_bytes == total == 3_351_993_743
    assert r.details["textures_content_bytes"] == 24 * BC7_8K
    got = [(c.name, c.usable_bytes, c.free_bytes, c.verdict) for c in r.cards]
    assert got == [
        ("8GB", 7_784_628_224, 7_784_628_224 - total, "fits"),
        ("12GB", 11_982_958_755, 11_982_958_755 - total, "fits"),
        ("24GB", 23_965_917_511, 23_965_917_511 - total, "fits"),
    ]
    assert r.fixes == ()


# --- fixes ---------------------------------------------------------------------------------------


def card(usable: int, name: str = "test") -> Card:
    """A card whose usable bytes are exactly ``usable`` (no reserve)."""
    return Card(id=name, name=name, vram_bytes=usable, kind="generic", usable_bytes=usable)


def check_fixes_work(inputs, s, name: str, cards=None):
    """Apply a card's fixes, re-assess: the verdict is fits and the total fell by Σ saves."""
    (scenario,) = scenarios(s)
    before = assess(inputs, scenario, s, cards)
    fixes = [f for f in before.fixes if f.card == name]
    verdict = next(c for c in before.cards if c.name == name)
    assert verdict.verdict in ("over", "tight") and fixes
    i2, sc2, s2 = apply_fixes(inputs, scenario, s, fixes)
    after = assess(i2, sc2, s2, cards)
    assert before.total_bytes - after.total_bytes == sum(f.saves_bytes for f in fixes)
    fixed = next(c for c in after.cards if c.name == name)
    assert fixed.verdict == "fits"
    assert fixed.free_bytes == verdict.free_after_fixes_bytes
    return before, fixes


def test_fixes_bring_an_over_scenario_under():
    s = BudgetSettings(cards=("3GB", "4GB", "8GB"), resolutions=("4k",), rt=("nvidia",))
    before, fixes = check_fixes_work(pbr_scene(), s, "3GB")
    assert [c.verdict for c in before.cards] == ["over", "tight", "fits"]
    # dropping the top mip of one role's eight 8K textures saves 8 x (8K chain - 4K chain)
    per_role = 8 * (ALLOC_8K - align(chain_bytes(4096, 4096, 16), 64 * KIB))
    assert per_role == 536_870_912
    assert [(f.kind, f.group, f.saves_bytes) for f in fixes] == [
        ("drop_mips", "role:albedo", per_role), ("drop_mips", "role:mask", per_role)]
    assert fixes[0].action == "drop the top mip of every albedo texture" and fixes[0].path == ""
    check_fixes_work(pbr_scene(), s, "4GB")  # tight gets fixes until it fits too
    assert not [f for f in before.fixes if f.card == "8GB"]


def test_compress_uncompressed_by_role():
    rgba = 4096 * 4096 * 4  # one level, 64 MiB
    textures = (
        price_plan(plan("ui/atlas.png", "R8G8B8A8_SRGB", 4096, 4096, "ui", levels=1)),
        price_plan(plan("env/rock_n.png", "R8G8B8A8_UNORM", 4096, 4096, "normal", levels=1)),
        price_plan(plan("env/wall.png", "R8G8B8A8_SRGB", 4096, 4096, "albedo", levels=1)),
    )
    inputs = BudgetInputs(textures=textures, opaque=frozenset({"env/wall.png"}))
    total = price_targets("deferred", 1920, 1080).total_bytes + 3 * rgba
    s = settings(headroom_fraction=0.0, fix_min_cap_size=8192)  # no caps: only compression
    _, fixes = check_fixes_work(inputs, s, "test", [card(total - 40 * MIB)])
    # 40 MiB to go: BC5 for the normal map (48 MiB) and BC1 for the opaque wall (56 MiB) both
    # cover it; the smaller saving wins (least overshoot)
    assert [(f.path, f.kind, f.value, f.saves_bytes) for f in fixes] == [
        ("env/rock_n.png", "compress", "BC5_UNORM", rgba - rgba // 4)]
    assert fixes[0].action == "compress R8G8B8A8_UNORM to BC5_UNORM"
    # 150 MiB: no single change covers it. The largest first (the wall as BC1: 56 MiB), then
    # the normal (48 MiB; the UI atlas saves as much, but compressing UI is less preferred);
    # the 46 MiB left are covered by the UI atlas as BC7 (never BC1 for UI)
    _, fixes2 = check_fixes_work(inputs, s, "test", [card(total - 150 * MIB)])
    assert [(f.path, f.kind, f.value, f.saves_bytes) for f in fixes2] == [
        ("env/wall.png", "compress", "BC1_RGB_SRGB", rgba - rgba // 8),
        ("env/rock_n.png", "compress", "BC5_UNORM", rgba - rgba // 4),
        ("ui/atlas.png", "compress", "BC7_SRGB", rgba - rgba // 4),
    ]


def test_bc1_for_opaque_bc3_and_cap():
    bc3 = price_plan(plan("props/crate.dds", "BC3_SRGB", 1024, 1024, "albedo"))  # too small to cap
    huge = price_plan(plan("hero/skin.dds", "BC7_SRGB", 8192, 8192, "skin"))
    inputs = BudgetInputs(textures=(bc3, huge), opaque=frozenset({"props/crate.dds"}))
    total = price_targets("deferred", 1920, 1080).total_bytes + bc3.allocated_bytes + huge.allocated_bytes
    s = settings(headroom_fraction=0.0, fix_min_cap_size=2048)  # never suggest a cap below 2048
    before, fixes = check_fixes_work(inputs, s, "test", [card(total - 1)])  # one byte over
    assert before.cards[0].free_bytes == -1 and before.cards[0].verdict == "over"
    cap = ALLOC_8K - align(chain_bytes(4096, 4096, 16), 64 * KIB)
    bc1 = bc3.allocated_bytes - align(chain_bytes(1024, 1024, 8), 64 * KIB)
    # BC1 for the opaque BC3 (704 KiB, quality-neutral) beats the 64 MiB cap
    assert [(f.kind, f.path, f.value, f.saves_bytes) for f in fixes] == [("bc1", "props/crate.dds", "BC1_RGB_SRGB", bc1)]
    assert fixes[0].action == "use BC1_RGB_SRGB for this opaque BC3_SRGB texture"
    # 64 MiB to go: the cap covers it, BC1 does not
    _, fixes1 = check_fixes_work(inputs, s, "test", [card(total - cap)])
    assert [(f.kind, f.path, f.value, f.saves_bytes) for f in fixes1] == [("cap", "hero/skin.dds", "4096", cap)]
    assert fixes1[0].action == "cap to 4096 (was 8192x8192)"
    # more need than any single change: the largest step each time — cap to 4096 (64 MiB),
    # quality upscaler (23.5 MB at 1080p), cap on to 2048 (16 MiB), balanced (9.3 MB),
    # performance (8.2 MB) — and the last byte is covered by BC3 → BC1 (704 KiB); the steps
    # on one target merge into one fix
    rt = [price_targets("deferred", 1920, 1080, upscaler=u).total_bytes for u in ("native", "quality", "balanced", "performance")]
    ups = [a - b for a, b in itertools.pairwise(rt)]
    to_2048 = ALLOC_8K - align(chain_bytes(2048, 2048, 16), 64 * KIB)
    assert (cap, ups, to_2048 - cap, bc1) == (67_108_864, [23_469_487, 9_313_050, 8_165_585], 16_777_216, 720_896)
    _, fixes2 = check_fixes_work(inputs, s, "test", [card(total - to_2048 - sum(ups) - 1)])
    assert [(f.kind, f.path, f.value, f.saves_bytes) for f in fixes2] == [
        ("cap", "hero/skin.dds", "2048", to_2048), ("upscaler", "", "performance", sum(ups)),
        ("bc1", "props/crate.dds", "BC1_RGB_SRGB", bc1)]
    assert fixes2[1].action == "render at the upscaler's performance preset (was native; working set is an estimate)"
    assert next(f for f in fixes2 if f.kind == "cap").action == "cap to 2048 (was 8192x8192)"


def test_compaction_and_upscaler_fixes():
    inputs = BudgetInputs(acceleration={"nvidia": nvidia_acceleration(2_000_000, 1, compacted=False)})
    native = price_targets("deferred", 3840, 2160, rt=True).total_bytes
    quality = price_targets("deferred", 3840, 2160, rt=True, upscaler="quality").total_bytes
    acc = inputs.acceleration["nvidia"]
    assert acc.compaction_saves_bytes == 104_000_512 - 52_000_256
    total = native + acc.total_bytes
    s = BudgetSettings(resolutions=("4k",), rt=("nvidia",), headroom_fraction=0.0)
    # one byte over: compaction (quality-neutral) covers it, though the upscaler saves more
    _, fixes = check_fixes_work(inputs, s, "test", [card(total - 1)])
    assert [(f.kind, f.value, f.saves_bytes, f.estimate) for f in fixes] == [("compaction", "on", 52_000_256, True)]
    assert fixes[0].action == "turn on BLAS compaction (estimate)"
    # one byte more than compaction saves: the smallest upscaler step that covers it
    _, fixes1 = check_fixes_work(inputs, s, "test", [card(total - 52_000_256 - 1)])
    assert native - quality > 52_000_256
    assert [(f.kind, f.value, f.saves_bytes, f.estimate) for f in fixes1] == [("upscaler", "quality", native - quality, True)]
    # one byte more than performance saves: quality 342.9 MB, balanced 80.5 MB, performance
    # 67.9 MB each save more than compaction (52 MB) and go first; compaction covers the rest
    performance = price_targets("deferred", 3840, 2160, rt=True, upscaler="performance").total_bytes
    _, fixes2 = check_fixes_work(inputs, s, "test", [card(total - (native - performance) - 1)])
    assert [(f.kind, f.value, f.saves_bytes) for f in fixes2] == [
        ("upscaler", "performance", native - performance), ("compaction", "on", 52_000_256)]


def test_no_fixes_when_nothing_helps_and_when_disabled():
    s = settings(cards=("1GB",), fixes=False)
    r = one(BudgetInputs(mesh_bytes=2 * GIB), s)
    assert r.cards[0].verdict == "over" and r.fixes == () and r.cards[0].free_after_fixes_bytes is None
    r2 = one(BudgetInputs(mesh_bytes=2 * GIB), evolve(s, fixes=True))
    # only the upscaler can help meshes that do not fit; every step to performance is not enough
    rt = [price_targets("deferred", 1920, 1080, upscaler=u).total_bytes for u in ("native", "performance")]
    assert [(f.kind, f.value, f.saves_bytes) for f in r2.fixes] == [("upscaler", "performance", rt[0] - rt[1])]
    assert r2.cards[0].free_after_fixes_bytes == r2.cards[0].free_bytes + rt[0] - rt[1] < 0


# --- streaming -------------------------------------------------------------------------------------


def streaming_scene():
    streamed = price_plan(plan("world/ground.dds", "BC7_SRGB", 4096, 4096))
    resident = price_plan(plan("ui/hud.dds", "BC7_SRGB", 1024, 1024, "ui", streamed=False))
    small = price_plan(plan("world/decal.dds", "BC7_SRGB", 64, 64))  # 7 levels: all resident
    return BudgetInputs(textures=(streamed, resident, small)), streamed, resident, small


def test_streaming_floor_and_pool():
    inputs, streamed, resident, small = streaming_scene()
    tail = align(chain_bytes(4096, 4096, 16, first=6), 4 * KIB)  # levels 64x64 .. 1x1
    assert tail == align(chain_bytes(64, 64, 16), 4 * KIB) == 8_192
    floor = tail + resident.allocated_bytes + small.allocated_bytes
    assert resident_floor_bytes(streamed, 7) == tail
    assert resident_floor_bytes(resident, 7) == resident.allocated_bytes
    full = streamed.allocated_bytes + resident.allocated_bytes + small.allocated_bytes
    rt = price_targets("deferred", 1920, 1080).total_bytes
    for pool, counted in ((4 * MIB, 4 * MIB), (100 * MIB, full), (KIB, floor)):
        s = settings(streaming=True, streaming_pool_bytes=pool, cards=("1GB",), fixes=False)
        r = one(inputs, s)
        assert r.bytes["textures"] == counted
        assert r.streaming["fully_resident_bytes"] == full
        assert r.streaming["floor_bytes"] == floor
        assert r.streaming["pool_bytes"] == pool
        assert r.streaming["counted_bytes"] == counted
        assert r.streaming["fully_resident_total_bytes"] == full + rt
        assert r.streaming["floor_exceeds_pool"] == (floor > pool)
    assert settings(streaming=True).pool_bytes == 1000 * MIB  # UE r.Streaming.PoolSize (Epic)


def test_streaming_verdict_uses_the_pool_and_keeps_the_fully_resident_one():
    inputs, streamed, resident, small = streaming_scene()
    full = streamed.allocated_bytes + resident.allocated_bytes + small.allocated_bytes
    rt = price_targets("deferred", 1920, 1080).total_bytes
    s = settings(streaming=True, streaming_pool_bytes=4 * MIB, headroom_fraction=0.0)
    r = one(inputs, s, cards=[card(rt + 8 * MIB)])  # fits with a 4 MiB pool, not fully resident
    assert r.cards[0].verdict == "fits" and r.cards[0].free_bytes == 4 * MIB
    (fr,) = r.streaming["fully_resident_cards"]
    assert fr["verdict"] == "over" and fr["free_bytes"] == 8 * MIB - full


def test_streaming_fix_lowers_the_pool_as_far_as_needed():
    inputs, *_ = streaming_scene()
    # at the performance preset no upscaler step is left to suggest
    s = settings(streaming=True, streaming_pool_bytes=4 * MIB, headroom_fraction=0.0, upscaler="performance")
    rt = price_targets("deferred", 1920, 1080, upscaler="performance").total_bytes
    _, fixes = check_fixes_work(inputs, s, "test", [card(rt + 3 * MIB)])
    assert [(f.kind, f.value, f.saves_bytes) for f in fixes] == [("pool", str(3 * MIB), MIB)]
    assert fixes[0].action == "lower the streaming pool to 3.00 MiB (was 4.00 MiB)"


# --- acceleration summary, settings --------------------------------------------------------------


def test_summarize_acceleration_from_a_bvh_estimate():
    blas = SimpleNamespace(resident_bytes=1_024, compacted_bytes=512, dynamic=False)
    dyn = SimpleNamespace(resident_bytes=2_048, compacted_bytes=1_024, dynamic=True)
    cost = SimpleNamespace(total_bytes=3_072 + 768 + 64, blas_bytes=3_072, blas_uncompacted_bytes=3_072,
                           tlas_bytes=768, instance_desc_bytes=64, peak_scratch_bytes=4_096,
                           per_mesh=(("a", blas), ("b", dyn)), source="nvidia (bvh.md §10)")
    a = summarize_acceleration(cost)
    assert (a.total_bytes, a.blas_bytes, a.tlas_bytes, a.instance_desc_bytes, a.peak_scratch_bytes) == (3_904, 3_072, 768, 64, 4_096)
    assert a.blas_compacted_bytes == 512 + 2_048  # a dynamic BLAS is not compacted
    assert a.compaction_saves_bytes == 512 and a.estimate and a.source == "nvidia (bvh.md §10)"


def test_settings_from_config():
    """Config keys become field names with their units; flags (overrides) win. The values were
    checked when the config was read (tests/unit/test_config.py)."""
    section = BudgetSection(
        cards=("8GB",), resolutions=("1920x1080",), quality=("high",), platform="desktop", high_quality=False,
        rt=("off", "nvidia"), renderer="forward", upscaler="quality", shadows="vsm", msaa=4, reserve=0.1,
        reserve_min=GIB, headroom=0.02, allocation="none", streaming=True, streaming_pool=None, rt_compaction=False,
    )
    s = settings_from_config(section, upscaler="performance")
    assert (s.cards, s.rt, s.renderer, s.upscaler, s.shadows, s.msaa) == (("8GB",), ("off", "nvidia"), "forward", "performance", "vsm", 4)
    assert (s.reserve_fraction, s.reserve_min_bytes, s.headroom_fraction, s.allocation_model) == (0.1, GIB, 0.02, "none")
    assert s.streaming and s.streaming_pool_bytes is None and s.pool_bytes == 1000 * MIB and not s.rt_compaction


def test_assess_all_with_inputs_per_quality():
    tex = {q: BudgetInputs(textures=(price_plan(plan("a.dds", "BC7_SRGB", 1024, 1024, tier=t)),))
           for q, t in (("ultra", 0), ("low", 2))}
    s = BudgetSettings(cards=("8GB",), resolutions=("1080p",), quality=("ultra", "low"), rt=("off",))
    result = assess_all(lambda sc: tex[sc.quality], s)
    assert [x.bytes["textures"] for x in result.scenarios] == [
        align(chain_bytes(1024, 1024, 16), 64 * KIB), align(chain_bytes(256, 256, 16), 4 * KIB)]
    assert result.worst == "fits"


def test_ten_thousand_textures_fixes_still_bring_it_under():
    rng = random.Random(7)
    formats_by_role = {"albedo": "BC7_SRGB", "normal": "BC5_UNORM", "mask": "BC7_UNORM", "ui": "R8G8B8A8_SRGB"}
    textures = []
    for i in range(10_000):
        role = rng.choice(list(formats_by_role))
        size = rng.choice([128, 256, 512, 1024, 2048])
        textures.append(price_plan(plan(f"f{i % 50}/t{i}.dds", formats_by_role[role], size, size, role)))
    inputs = BudgetInputs(textures=tuple(textures), opaque=frozenset(t.plan.path for t in textures[::3]),
                          acceleration={"nvidia": nvidia_acceleration(3_000_000, 40, compacted=False)})
    s = BudgetSettings(cards=("8GB", "12GB"), resolutions=("4k",), rt=("nvidia",))
    first = assess_all(inputs, s)
    assert first == assess_all(inputs, s)  # cached sums give the same answer
    check_fixes_work(inputs, s, "8GB")
    check_fixes_work(inputs, s, "12GB")


def test_budget_findings():
    s = BudgetSettings(cards=("3GB", "4GB", "8GB"), resolutions=("4k",), rt=("nvidia",))
    result = assess_all(pbr_scene(), s)
    found = budget_findings(result, ".")
    total = result.scenarios[0].total_bytes
    assert [(f.code, f.severity.value, f.path) for f in found] == [("TB030", "error", "."), ("TB031", "warning", ".")]
    assert total - (3 * GIB - 768 * MIB) == 936_074_639  # 892.71 MiB over
    assert found[0].message == "3840x2160 ultra rt nvidia: over on 3GB by 892.71 MiB (total 3.12 GiB, usable 2.25 GiB)"
    assert found[0].hint == ("fix: drop the top mip of every albedo texture, saves 512.00 MiB; "
                             "drop the top mip of every mask texture, saves 512.00 MiB")
    assert found[1].message.startswith("3840x2160 ultra rt nvidia: tight on 4GB: 131.29 MiB free, under the 166.40 MiB headroom")
    inputs, *_ = streaming_scene()
    tight_pool = assess_all(inputs, settings(streaming=True, streaming_pool_bytes=KIB))
    (floor,) = budget_findings(tight_pool)
    assert floor.code == "TB032" and floor.message == "1920x1080 ultra rt off: streaming floor 1.39 MiB exceeds the pool 1.00 KiB"


def test_a_texture_in_an_unknown_format_counts_but_gets_no_fix():
    odd = price_plan(plan("x/odd.dds", "BC7_SRGB", 4096, 4096, "albedo"))
    odd = evolve(odd, plan=evolve(odd.plan, gpu_format="NOT_A_FORMAT"))
    twin = evolve(odd, plan=evolve(odd.plan, path="x/odd2.dds"))
    s = settings(streaming=True, fixes=True, upscaler="performance")
    r = one(BudgetInputs(textures=(odd, twin)), s, cards=[card(1)])
    assert r.bytes["textures"] == min(2 * odd.allocated_bytes, s.pool_bytes)
    assert r.streaming["floor_bytes"] == 2 * odd.allocated_bytes
    assert r.cards[0].verdict == "over" and r.fixes == ()


@pytest.mark.parametrize("p", [
    plan("a.dds", "BC7_SRGB", 8192, 8192, tier=1),
    plan("b.png", "R8G8B8A8_UNORM", 300, 200, "ui", levels=1),
    plan("c.dds", "BC1_RGB_UNORM", 256, 256),
    evolve(plan("d.ktx2", "BC6H_UFLOAT", 512, 512, "hdr"), faces=6),
    evolve(plan("e.ktx2", "BC4_UNORM", 1024, 1024, "single"), layers=4, tier_drop=2),
])
def test_fixes_reprice_like_the_policy(p):
    """The fixes re-price changed plans; they must agree with what the pipeline priced."""
    from texbudget.policy.decision import price

    for model in ("d3d12", "none"):
        assert price_plan(p, model) == price(p, model)
