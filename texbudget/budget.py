"""The budget: costs + scenario + cards → verdicts, and the cheapest changes that make it fit.

Pure (no I/O except reading the shipped ``data/cards.toml`` once, cached). DESIGN.md §1
"assess"; facts in spec/cards.md and spec/textures.md §5–§6.

What counts, per scenario (``ScenarioResult.bytes``):

- ``textures``: **allocated** bytes (content rounded to the allocation model's placement
  alignment, D3D12 by default) — what a driver reserves, so the honest number for VRAM. The
  exact content bytes are in ``details["textures_content_bytes"]``. Plans marked ``ignored``
  do not count. With ``streaming`` on, textures count ``min(fully_resident, max(floor, pool))``
  (spec/textures.md §6) and both variants are in ``ScenarioResult.streaming``.
- ``meshes``: what the pipeline priced (vertex, index and morph buffers of every mesh).
- ``acceleration_structures``: the RT vendor's ``AccelerationSummary.total_bytes``
  (BLASes + TLAS + instance descriptors; estimate); 0 when RT is off.
- ``render_targets``: ``sizing.targets.price_targets`` total: allocated targets + §3.4
  metadata overhead (estimate) + upscaler working set (estimate).

Per card: usable = VRAM − reserve, reserve = max(reserve_min_bytes, ⌈reserve_fraction ×
VRAM⌉) (unified-memory platforms give their usable memory directly); headroom =
⌈headroom_fraction × usable⌉; free = usable − total; ``fits`` when free ≥ headroom, ``tight``
when 0 ≤ free < headroom, ``over`` when free < 0.

RT and mixed card lists: when ``rt`` is not set, each named card brings its RT vendor. The
scenarios get one RT setting per vendor present among the named cards ("off" when only generic
classes are listed), and in a vendor's scenario only that vendor's cards and the generic
classes are judged (an AMD card is never priced with NVIDIA's BVH). When ``rt`` is set, every
card is judged in every scenario.

Fixes (for each card that is ``over`` or ``tight``): one greedy sequence per scenario — always
the change that saves the most bytes now, re-priced after every step — of: compress an
uncompressed texture (BC7 / BC1 for opaque colour / BC5 normals / BC4 single channel / BC6H
HDR), use BC1 for an opaque BC3, cap a large texture one power of two down, drop the top mip
of a group (a role, or a folder), turn on BLAS compaction, step the upscaler down one preset
(to ``performance`` at most), lower the streaming pool. Each card takes the shortest prefix of
that sequence that makes it fit (or all of it); repeated steps on the same target are merged
(cap 8192 → 4096 → 2048 is one "cap to 2048").
"""

from __future__ import annotations

import difflib
import heapq
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any

from texbudget import findings, formats
from texbudget.errors import UsageError
from texbudget.model import (
    Budget,
    CardVerdict,
    Finding,
    Fix,
    MipLevel,
    Scenario,
    ScenarioResult,
    TextureCost,
    TexturePlan,
)
from texbudget.sizing.targets import load_presets, price_targets, render_size, upscaler_scale
from texbudget.sizing.textures import allocated_bytes, level_dims, mip_chain
from texbudget.units import GIB, MIB, human_bytes, parse_resolution

DEFAULT_CARDS: tuple[str, ...] = ("8GB", "12GB", "16GB", "24GB")
DEFAULT_RESOLUTIONS: tuple[str, ...] = ("1920x1080", "2560x1440", "3840x2160")
DEFAULT_RESERVE_MIN_BYTES = 768 * MIB
DEFAULT_RESERVE_FRACTION = 0.07
DEFAULT_HEADROOM_FRACTION = 0.05
# UE's r.Streaming.PoolSize at sg.TextureQuality 3 (Epic) is 1000 MB (spec/textures.md §6).
DEFAULT_STREAMING_POOL_BYTES = 1000 * MIB
# UE3's MinTextureResidentMipCount (spec/textures.md §6): the always-resident tail.
DEFAULT_MIN_RESIDENT_LEVELS = 7
VERDICTS = ("fits", "tight", "over")
RENDERERS = ("deferred", "forward")
SHADOWS = ("csm", "vsm", "none")
ALLOCATION_MODELS = ("d3d12", "none")
FIX_FORMATS = ("bc", "astc")
# Upscaler steps a fix may suggest, in order; ultra-performance is meant for 8K and is never
# suggested.
UPSCALER_STEPS = ("native", "quality", "balanced", "performance")
CATEGORIES = ("textures", "meshes", "acceleration_structures", "render_targets")


# --- cards --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Card:
    """A graphics card, a generic VRAM class or a unified-memory platform (spec/cards.md)."""

    id: str  # "8GB", "rtx-4070", "ps5"
    name: str  # display name
    vram_bytes: int  # GiB × 2^30 (platforms: total memory)
    kind: str  # "generic", "card" or "platform"
    vendor: str | None = None  # "nvidia", "amd", "intel"; None for generic classes
    rt_vendor: str | None = None  # BVH profile its acceleration structures are priced with
    usable_bytes: int | None = None  # platforms: the memory a game may use (reserve taken out)
    series: str = ""
    note: str = ""
    aliases: tuple[str, ...] = ()


_CUSTOM = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*gi?b\s*$", re.IGNORECASE)


def _gib(value: Any) -> int:
    return int(Fraction(str(value)) * GIB)


def parse_cards(text: str) -> tuple[tuple[Card, ...], tuple[str, ...]]:
    """Cards and the default id list from a cards data file (``load_cards`` reads the shipped one)."""
    data = tomllib.loads(text)
    cards: list[Card] = []
    for g in data.get("generic", ()):
        gib = g["vram_gib"]
        cards.append(Card(id=g["id"], name=f"{gib} GB", vram_bytes=_gib(gib), kind="generic"))
    for c in data.get("card", ()):
        cards.append(Card(
            id=c["id"], name=c["name"], vram_bytes=_gib(c["vram_gib"]), kind="card",
            vendor=c["vendor"], rt_vendor=c["rt"], series=c.get("series", ""),
            aliases=tuple(c.get("aliases", ())),
        ))
    for p in data.get("platform", ()):
        cards.append(Card(
            id=p["id"], name=p["name"], vram_bytes=_gib(p["memory_gib"]), kind="platform",
            vendor=p.get("vendor"), rt_vendor=p.get("rt"), usable_bytes=_gib(p["usable_gib"]),
            note=p.get("note", ""), aliases=tuple(p.get("aliases", ())),
        ))
    ids = [k.lower() for c in cards for k in (c.id, *c.aliases)]
    dupes = sorted({k for k in ids if ids.count(k) > 1})
    if dupes:
        raise ValueError(f"cards.toml: duplicate card ids {dupes}")
    return tuple(cards), tuple(data.get("default", DEFAULT_CARDS))


@cache
def _shipped_cards() -> tuple[tuple[Card, ...], tuple[str, ...]]:
    text = resources.files("texbudget.data").joinpath("cards.toml").read_text(encoding="utf-8")
    return parse_cards(text)


def load_cards() -> tuple[Card, ...]:
    """Every shipped card: the generic classes, the named cards, the platforms (cached)."""
    return _shipped_cards()[0]


@cache
def _card_index() -> dict[str, Card]:
    index: dict[str, Card] = {}
    for card in load_cards():
        for key in (card.id, *card.aliases):
            index[key.lower()] = card
    return index


def _custom_card(token: str) -> Card | None:
    m = _CUSTOM.match(token)
    if not m:
        return None
    number = m.group(1)
    vram = _gib(number)
    if vram <= 0:
        return None
    label = number.rstrip("0").rstrip(".") if "." in number else number
    return Card(id=f"{label}GB", name=f"{label} GB (custom)", vram_bytes=vram, kind="generic")


def resolve_cards(spec: str | Sequence[str]) -> tuple[Card, ...]:
    """Cards from "8GB,12GB,rtx-4070" or a list of ids (case-insensitive; aliases such as
    "rtx-4060-ti-8gb" work; any "<n>GB" is a custom generic class). Duplicates are dropped.
    An unknown id raises UsageError naming it and the nearest ids."""
    tokens = spec.split(",") if isinstance(spec, str) else [t for s in spec for t in str(s).split(",")]
    out: list[Card] = []
    seen: set[str] = set()
    index = _card_index()
    for raw in tokens:
        token = raw.strip()
        if not token:
            continue
        card = index.get(token.lower()) or _custom_card(token)
        if card is None:
            near = difflib.get_close_matches(token.lower(), list(index), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise UsageError(f"unknown card {token!r}{hint} (`texbudget cards` lists them; any '<n>GB' is a generic class)")
        if card.id not in seen:
            seen.add(card.id)
            out.append(card)
    return tuple(out)


def _ceil_share(n: int, fraction: float) -> int:
    """⌈n × fraction⌉ with the fraction read exactly as written (0.07 is 7/100)."""
    f = Fraction(str(fraction))
    return -(-n * f.numerator // f.denominator)


def card_budget(card: Card, reserve_min_bytes: int = DEFAULT_RESERVE_MIN_BYTES,
                reserve_fraction: float = DEFAULT_RESERVE_FRACTION) -> tuple[int, int]:
    """(usable_bytes, reserve_bytes). PC cards: reserve = max(reserve_min, ⌈fraction × VRAM⌉);
    platforms: their published game budget (reserve = the rest)."""
    if card.usable_bytes is not None:
        return card.usable_bytes, card.vram_bytes - card.usable_bytes
    reserve = min(card.vram_bytes, max(reserve_min_bytes, _ceil_share(card.vram_bytes, reserve_fraction)))
    return card.vram_bytes - reserve, reserve


def verdict_of(free_bytes: int, headroom_bytes: int) -> str:
    if free_bytes < 0:
        return "over"
    return "fits" if free_bytes >= headroom_bytes else "tight"


# --- acceleration structures ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccelerationSummary:
    """A scene's ray-tracing acceleration structures for one RT vendor, as the budget needs
    them. ``total_bytes`` is what stays resident (BLASes as counted + TLAS + instance
    descriptors); build scratch (``peak_scratch_bytes``) is transient and shown apart.
    ``blas_compacted_bytes`` is what the BLASes would take with compaction on (equal to
    ``blas_bytes`` when they already are compacted, or cannot be)."""

    total_bytes: int
    blas_bytes: int
    blas_uncompacted_bytes: int
    tlas_bytes: int
    instance_desc_bytes: int
    peak_scratch_bytes: int
    blas_compacted_bytes: int | None = None  # None = same as blas_bytes
    estimate: bool = True
    source: str = ""

    @property
    def compaction_saves_bytes(self) -> int:
        if self.blas_compacted_bytes is None:
            return 0
        return max(0, self.blas_bytes - self.blas_compacted_bytes)


def summarize_acceleration(cost: Any) -> AccelerationSummary:
    """An ``AccelerationSummary`` from ``sizing.bvh.AccelerationCost`` (duck-typed: the
    totals and ``per_mesh`` BLAS estimates with ``compacted_bytes``/``resident_bytes``/
    ``dynamic``)."""
    per_mesh = getattr(cost, "per_mesh", ())
    compacted = sum(b.resident_bytes if b.dynamic else min(b.resident_bytes, b.compacted_bytes) for _, b in per_mesh)
    return AccelerationSummary(
        total_bytes=cost.total_bytes, blas_bytes=cost.blas_bytes,
        blas_uncompacted_bytes=cost.blas_uncompacted_bytes, tlas_bytes=cost.tlas_bytes,
        instance_desc_bytes=cost.instance_desc_bytes, peak_scratch_bytes=cost.peak_scratch_bytes,
        blas_compacted_bytes=compacted if per_mesh else None,
        estimate=True, source=getattr(cost, "source", ""),
    )


# --- settings -------------------------------------------------------------------------------


def _tuple_of_str(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, Iterable):
        items = [str(v).strip() for v in value]
    else:
        raise ValueError(f"budget {name} = {value!r}: must be a string or a list of strings")
    return tuple(i for i in items if i)


def _check(ok: bool, name: str, value: Any, allowed: str) -> None:
    if not ok:
        raise ValueError(f"budget {name} = {value!r}: {allowed}")


@dataclass(frozen=True)
class BudgetSettings:
    """How the budget is judged. Field names follow the ``[budget]`` config keys (DESIGN.md
    §6) with units added: ``reserve`` → ``reserve_fraction``, ``reserve_min`` →
    ``reserve_min_bytes``, ``headroom`` → ``headroom_fraction``, ``allocation`` →
    ``allocation_model``, ``streaming_pool`` → ``streaming_pool_bytes``; ``settings_from_config``
    maps a validated ``[budget]`` table. Strings for list fields are split on commas. Bad values
    raise ValueError naming the field, the value and what is allowed."""

    cards: tuple[str, ...] = DEFAULT_CARDS
    resolutions: tuple[str, ...] = DEFAULT_RESOLUTIONS  # "1080p", "4k", "2560x1080", …
    quality: tuple[str, ...] = ("ultra",)
    platform: str = "desktop"
    rt: tuple[str, ...] | None = None  # None: each named card's RT vendor ("off" if none)
    renderer: str = "deferred"  # a render_targets.toml preset
    upscaler: str = "native"
    render_scale: float | None = None  # None = the upscaler's; a number = custom screen %
    upscaler_profile: str = "fsr3"  # upscaler working-set table (estimate)
    shadows: str = "csm"
    msaa: int = 1
    reserve_min_bytes: int = DEFAULT_RESERVE_MIN_BYTES
    reserve_fraction: float = DEFAULT_RESERVE_FRACTION
    headroom_fraction: float = DEFAULT_HEADROOM_FRACTION
    render_target_overhead_fraction: float | None = None  # None = render_targets.toml (3 %)
    allocation_model: str = "d3d12"
    rt_compaction: bool = True  # read by the BVH estimate (pipeline), not here
    streaming: bool = False
    streaming_pool_bytes: int | None = None  # None = DEFAULT_STREAMING_POOL_BYTES
    streaming_min_resident_levels: int = DEFAULT_MIN_RESIDENT_LEVELS
    fixes: bool = True
    fix_min_cap_size: int = 1024  # never suggest capping a texture below this
    fix_formats: str = "bc"  # "bc" (desktop, consoles) or "astc" (mobile) compression targets
    max_fix_steps: int = 500

    def __post_init__(self) -> None:
        for name in ("cards", "resolutions", "quality"):
            object.__setattr__(self, name, _tuple_of_str(getattr(self, name), name))
        if self.rt is not None:
            rt = tuple(v.lower() for v in _tuple_of_str(self.rt, "rt"))
            _check(bool(rt), "rt", self.rt, "give at least one of off, nvidia, amd, intel")
            object.__setattr__(self, "rt", tuple(dict.fromkeys(rt)))
        _check(bool(self.quality), "quality", self.quality, "give at least one quality tier")
        for r in self.resolutions:
            try:
                parse_resolution(r)
            except ValueError as exc:
                raise ValueError(f"budget resolutions = {r!r}: {str(exc).split(': ', 1)[-1]}") from None
        presets = load_presets()
        _check(self.renderer in presets.presets, "renderer", self.renderer, f"allowed values are {', '.join(presets.presets)}")
        _check(self.upscaler in presets.upscalers, "upscaler", self.upscaler, f"allowed values are {', '.join(presets.upscalers)}")
        _check(self.upscaler_profile in presets.working_sets, "upscaler_profile", self.upscaler_profile, f"allowed values are {', '.join(presets.working_sets)}")
        _check(self.shadows in presets.shadows, "shadows", self.shadows, f"allowed values are {', '.join(presets.shadows)}")
        _check(self.msaa in (1, 2, 4, 8), "msaa", self.msaa, "allowed values are 1, 2, 4, 8")
        _check(self.render_scale is None or 0 < self.render_scale <= 4, "render_scale", self.render_scale, "must be more than 0 and at most 4")
        _check(isinstance(self.reserve_min_bytes, int) and self.reserve_min_bytes >= 0, "reserve_min_bytes", self.reserve_min_bytes, "must be a whole number of bytes >= 0")
        for name in ("reserve_fraction", "headroom_fraction"):
            v = getattr(self, name)
            _check(isinstance(v, (int, float)) and 0 <= v < 1, name, v, "must be a fraction from 0 to below 1 (e.g. 0.05 for 5 %)")
        v = self.render_target_overhead_fraction
        _check(v is None or 0 <= v < 1, "render_target_overhead_fraction", v, "must be a fraction from 0 to below 1")
        _check(self.allocation_model in ALLOCATION_MODELS, "allocation_model", self.allocation_model, f"allowed values are {', '.join(ALLOCATION_MODELS)}")
        _check(self.streaming_pool_bytes is None or self.streaming_pool_bytes >= 0, "streaming_pool_bytes", self.streaming_pool_bytes, "must be a whole number of bytes >= 0")
        _check(self.streaming_min_resident_levels >= 1, "streaming_min_resident_levels", self.streaming_min_resident_levels, "must be at least 1")
        _check(self.fix_formats in FIX_FORMATS, "fix_formats", self.fix_formats, f"allowed values are {', '.join(FIX_FORMATS)}")

    @property
    def pool_bytes(self) -> int:
        return DEFAULT_STREAMING_POOL_BYTES if self.streaming_pool_bytes is None else self.streaming_pool_bytes


_CONFIG_KEYS = {
    "cards": "cards", "resolutions": "resolutions", "quality": "quality", "platform": "platform",
    "rt": "rt", "renderer": "renderer", "upscaler": "upscaler", "shadows": "shadows",
    "msaa": "msaa", "reserve": "reserve_fraction", "reserve_min": "reserve_min_bytes",
    "headroom": "headroom_fraction", "allocation": "allocation_model", "streaming": "streaming",
    "streaming_pool": "streaming_pool_bytes", "rt_compaction": "rt_compaction",
}


def settings_from_config(section: Mapping[str, Any], **overrides: Any) -> BudgetSettings:
    """``BudgetSettings`` from a validated ``[budget]`` table (config keys → field names);
    keys the budget does not use (e.g. ``high_quality``) are left to their owners;
    ``overrides`` (field names) win, e.g. CLI flags."""
    values = {field_name: section[key] for key, field_name in _CONFIG_KEYS.items() if key in section and section[key] is not None}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return BudgetSettings(**values)


# --- scenarios ------------------------------------------------------------------------------


def _rt_settings(settings: BudgetSettings, cards: Sequence[Card]) -> tuple[str, ...]:
    if settings.rt is not None:
        return settings.rt
    vendors = tuple(dict.fromkeys(c.rt_vendor for c in cards if c.rt_vendor))
    return vendors or ("off",)


def scenarios(settings: BudgetSettings, cards: Sequence[Card] | None = None) -> tuple[Scenario, ...]:
    """Every quality × RT setting × resolution, in that nesting order. ``cards`` None =
    ``resolve_cards(settings.cards)`` (only read when ``rt`` is not set)."""
    if settings.rt is None and cards is None:
        cards = resolve_cards(settings.cards)
    rts = _rt_settings(settings, cards or ())
    scale = upscaler_scale(settings.upscaler) if settings.render_scale is None else settings.render_scale
    sizes = [parse_resolution(r) for r in settings.resolutions]
    out = []
    for quality in settings.quality:
        for rt in rts:
            for w, h in dict.fromkeys(sizes):
                rw, rh = render_size(w, h, scale)
                out.append(Scenario(
                    width=w, height=h, render_scale=scale, quality=quality, rt=rt,
                    renderer=settings.renderer, upscaler=settings.upscaler,
                    platform=settings.platform, render_width=rw, render_height=rh,
                ))
    return tuple(out)


def cards_for(scenario: Scenario, cards: Sequence[Card], settings: BudgetSettings) -> tuple[Card, ...]:
    """The cards judged in a scenario: all of them, except that with ``rt`` unset an RT
    scenario judges only its vendor's cards and the generic classes."""
    if settings.rt is not None or scenario.rt == "off":
        return tuple(cards)
    return tuple(c for c in cards if c.rt_vendor in (None, scenario.rt))


# --- texture pricing (pure, cached) ---------------------------------------------------------


@lru_cache(maxsize=65536)
def _price(fmt_name: str, width: int, height: int, depth: int, levels: int, faces: int,
           layers: int, first: int, model: str) -> tuple[tuple[MipLevel, ...], int, int]:
    fmt = formats.get(fmt_name)
    mips = mip_chain(fmt, width, height, depth, levels, faces, layers, first)
    content = sum(m.bytes for m in mips)
    top = mips[0]
    return mips, content, allocated_bytes(fmt, top.width, top.height, top.depth, content, layers=layers * faces, model=model)


@lru_cache(maxsize=65536)
def _tail(fmt_name: str, mips: tuple[MipLevel, ...], faces: int, layers: int, keep: int, model: str) -> int:
    fmt = formats.get(fmt_name)
    tail = mips[-keep:]
    content = sum(m.bytes for m in tail)
    top = tail[0]
    return allocated_bytes(fmt, top.width, top.height, top.depth, content, layers=layers * faces, model=model)


def price_plan(plan: TexturePlan, allocation_model: str = "d3d12") -> TextureCost:
    """A plan priced: the chain after the cap (``width``/``levels``) and the quality tier drop
    (``tier_drop`` top levels), content bytes and allocated bytes (alignment tested on the top
    level that remains). The fixes re-price changed plans with this."""
    mips, content, alloc = _price(plan.gpu_format, plan.width, plan.height, plan.depth, plan.levels,
                                  plan.faces, plan.layers, plan.tier_drop, allocation_model)
    return TextureCost(plan=plan, mips=mips, gpu_bytes=content, allocated_bytes=alloc)


def resident_floor_bytes(cost: TextureCost, min_resident_levels: int, allocation_model: str = "d3d12") -> int:
    """The always-resident part of a texture under streaming: all of it when it is not
    streamed or has no more than ``min_resident_levels`` levels, else the allocation of its
    smallest ``min_resident_levels`` levels."""
    if not cost.plan.streamed or len(cost.mips) <= min_resident_levels or formats.find(cost.plan.gpu_format) is None:
        return cost.allocated_bytes
    return _tail(cost.plan.gpu_format, cost.mips, cost.plan.faces, cost.plan.layers, min_resident_levels, allocation_model)


def _folder(path: str) -> str:
    base = path.split("#", 1)[0]
    return base.rsplit("/", 1)[0] if "/" in base else ""


# --- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetInputs:
    """What the pipeline priced for one quality tier / platform: every texture's cost, the
    mesh buffers, the acceleration structures per RT vendor, and the texture paths known to
    be opaque (no alpha; for the "BC1 for an opaque BC3" and "compress to BC1" fixes). Sums
    are computed once per object (cached), so the TUI can re-assess on every key press."""

    textures: tuple[TextureCost, ...] = ()
    mesh_bytes: int = 0
    acceleration: Mapping[str, AccelerationSummary] = field(default_factory=dict)
    opaque: frozenset[str] = frozenset()

    @cached_property
    def live(self) -> tuple[TextureCost, ...]:
        """The textures that count (plans not ``ignored``)."""
        return tuple(c for c in self.textures if not c.plan.ignored)

    @cached_property
    def texture_allocated_bytes(self) -> int:
        return sum(c.allocated_bytes for c in self.live)

    @cached_property
    def texture_content_bytes(self) -> int:
        return sum(c.gpu_bytes for c in self.live)

    @cached_property
    def _floors(self) -> dict[tuple[int, str], tuple[int, ...]]:
        return {}

    def floors(self, min_resident_levels: int, allocation_model: str) -> tuple[int, ...]:
        """Per live texture, its streaming floor (cached per argument pair)."""
        key = (min_resident_levels, allocation_model)
        if key not in self._floors:
            self._floors[key] = tuple(resident_floor_bytes(c, min_resident_levels, allocation_model) for c in self.live)
        return self._floors[key]

    @cached_property
    def groups(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Texture groups a "drop the top mip" fix can target: each role and each folder with
        at least two textures ("role:normal", "folder:env/rocks"); identical member sets are
        listed once (the role wins)."""
        roles: dict[str, list[int]] = {}
        folders: dict[str, list[int]] = {}
        for i, c in enumerate(self.live):
            roles.setdefault(c.plan.role, []).append(i)
            folders.setdefault(_folder(c.plan.path), []).append(i)
        out: list[tuple[str, tuple[int, ...]]] = []
        seen: set[tuple[int, ...]] = set()
        for prefix, table in (("role", roles), ("folder", folders)):
            for key, members in sorted(table.items()):
                m = tuple(members)
                if len(m) >= 2 and m not in seen:
                    seen.add(m)
                    out.append((f"{prefix}:{key}", m))
        return tuple(out)


# --- assess -----------------------------------------------------------------------------------


def _counted(full: int, floor: int, pool: int | None) -> int:
    """Textures counted: fully resident, or under streaming min(full, max(floor, pool))."""
    return full if pool is None else min(full, max(floor, pool))


def _targets(scenario: Scenario, settings: BudgetSettings, upscaler: str | None = None, render_scale: float | None = None):
    ups = scenario.upscaler if upscaler is None else upscaler
    scale = scenario.render_scale if render_scale is None else render_scale
    return price_targets(
        scenario.renderer, scenario.width, scenario.height, render_scale=scale,
        rt=scenario.rt != "off", upscaler=ups, shadows=settings.shadows, msaa=settings.msaa,
        overhead_fraction=settings.render_target_overhead_fraction,
        upscaler_profile=settings.upscaler_profile, allocation_model=settings.allocation_model,
    )


def _acceleration(inputs: BudgetInputs, rt: str) -> AccelerationSummary | None:
    if rt == "off":
        return None
    if rt not in inputs.acceleration:
        raise ValueError(f"no acceleration-structure estimate for RT {rt!r}; the inputs have {', '.join(inputs.acceleration) or 'none'}")
    return inputs.acceleration[rt]


def _judge(card: Card, total: int, settings: BudgetSettings) -> CardVerdict:
    usable, reserve = card_budget(card, settings.reserve_min_bytes, settings.reserve_fraction)
    headroom = _ceil_share(usable, settings.headroom_fraction)
    free = usable - total
    note = card.note if card.kind == "platform" else ""
    return CardVerdict(
        name=card.id, vram_bytes=card.vram_bytes, usable_bytes=usable, free_bytes=free,
        verdict=verdict_of(free, headroom), headroom_bytes=headroom, reserve_bytes=reserve,
        display_name=card.name, note=note,
    )


def assess(inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
           cards: Sequence[Card] | None = None) -> ScenarioResult:
    """One scenario judged on every card (``cards`` None = ``resolve_cards(settings.cards)``),
    with the fixes for each card that is over or tight."""
    if cards is None:
        cards = resolve_cards(settings.cards)
    judged = cards_for(scenario, cards, settings)
    targets = _targets(scenario, settings)
    accel = _acceleration(inputs, scenario.rt)
    full = inputs.texture_allocated_bytes
    pool = settings.pool_bytes if settings.streaming else None
    floor = sum(inputs.floors(settings.streaming_min_resident_levels, settings.allocation_model)) if settings.streaming else 0
    textures = _counted(full, floor, pool)
    accel_bytes = accel.total_bytes if accel else 0
    categories = {
        "textures": textures,
        "meshes": inputs.mesh_bytes,
        "acceleration_structures": accel_bytes,
        "render_targets": targets.total_bytes,
    }
    total = sum(categories.values())
    verdicts = [_judge(c, total, settings) for c in judged]

    details = {
        "textures_content_bytes": inputs.texture_content_bytes,
        "textures_allocated_bytes": full,
        "render_targets_content_bytes": targets.content_bytes,
        "render_targets_allocated_bytes": targets.allocated_bytes,
        "render_targets_overhead_bytes": targets.overhead_bytes,
        "upscaler_working_set_bytes": targets.working_set_bytes,
    }
    notes = list(targets.notes)
    notes.append(f"render targets: {targets.preset} at {targets.render_width}x{targets.render_height} render / "
                 f"{scenario.resolution} output; +{targets.overhead_fraction:.0%} metadata overhead is an estimate (textures.md §3.4)")
    if targets.working_set_bytes:
        notes.append(f"upscaler working set ({settings.upscaler_profile}) is an estimate (textures.md §5.2)")
    if accel is not None:
        details.update({
            "blas_bytes": accel.blas_bytes, "blas_uncompacted_bytes": accel.blas_uncompacted_bytes,
            "tlas_bytes": accel.tlas_bytes, "instance_desc_bytes": accel.instance_desc_bytes,
            "peak_scratch_bytes": accel.peak_scratch_bytes,
        })
        notes.append(f"acceleration structures ({scenario.rt}) are an estimate" + (f": {accel.source}" if accel.source else ""))
    if any(c.kind == "platform" for c in judged):
        notes.append("unified memory: a platform's usable memory also holds CPU-side data")

    streaming = None
    if settings.streaming:
        fr_total = total - textures + full
        fr_cards = [_judge(c, fr_total, settings) for c in judged]
        streaming = {
            "fully_resident_bytes": full,
            "floor_bytes": floor,
            "pool_bytes": pool,
            "counted_bytes": textures,
            "min_resident_levels": settings.streaming_min_resident_levels,
            "floor_exceeds_pool": floor > (pool or 0),
            "fully_resident_total_bytes": fr_total,
            "fully_resident_cards": [
                {"name": v.name, "free_bytes": v.free_bytes, "verdict": v.verdict} for v in fr_cards
            ],
        }
        if floor > (pool or 0):
            notes.append(f"streaming floor {human_bytes(floor)} exceeds the pool {human_bytes(pool or 0)}: the engine overshoots the pool or blurs")

    fixes: list[Fix] = []
    if settings.fixes and any(v.verdict != "fits" for v in verdicts):
        search = _searcher(inputs, scenario, settings, targets.total_bytes, accel)
        for i, v in enumerate(verdicts):
            if v.verdict == "fits":
                continue
            need = v.headroom_bytes - v.free_bytes
            card_fixes, saved = search.fixes_for(v.name, need)
            fixes += card_fixes
            verdicts[i] = replace(v, free_after_fixes_bytes=v.free_bytes + saved)

    return ScenarioResult(
        resolution=scenario.resolution, render_scale=scenario.render_scale,
        quality=scenario.quality, rt=scenario.rt, bytes=categories, total_bytes=total,
        cards=tuple(verdicts), fixes=tuple(fixes), upscaler=scenario.upscaler,
        renderer=scenario.renderer, platform=scenario.platform,
        render_resolution=scenario.render_resolution, details=details, streaming=streaming,
        notes=tuple(notes), scenario=scenario,
    )


def assess_all(inputs: BudgetInputs | Callable[[Scenario], BudgetInputs], settings: BudgetSettings,
               cards: Sequence[Card] | None = None) -> Budget:
    """Every scenario of ``settings`` assessed. ``inputs`` is one BudgetInputs for all, or a
    function giving the inputs of a scenario (textures depend on its quality tier)."""
    if cards is None:
        cards = resolve_cards(settings.cards)
    get = inputs if callable(inputs) else (lambda _s: inputs)
    results = tuple(assess(get(s), s, settings, cards) for s in scenarios(settings, cards))
    return Budget(scenarios=results, cards=tuple(c.id for c in cards))


def budget_findings(budget: Budget, path: str = ".") -> tuple[Finding, ...]:
    """Findings for ``check`` and SARIF: TB030 per over card and scenario, TB031 per tight one
    (the hint lists that card's first fixes), TB032 when the streaming floor exceeds the pool.
    ``path`` is the scan root (the budget is scene-wide)."""
    out: list[Finding] = []
    for s in budget.scenarios:
        label = f"{s.resolution} {s.quality} rt {s.rt}" + (f" {s.upscaler}" if s.upscaler not in (None, "native") else "")
        for c in s.cards:
            if c.verdict == "fits":
                continue
            fixes = [f for f in s.fixes if f.card == c.name]
            hint = None
            if fixes:
                shown = "; ".join(f"{f.action}{' (' + f.path + ')' if f.path else ''}, saves {human_bytes(f.saves_bytes)}" for f in fixes[:3])
                hint = f"fix: {shown}" + (f"; and {len(fixes) - 3} more" if len(fixes) > 3 else "")
            if c.verdict == "over":
                msg = (f"{label}: over on {c.name} by {human_bytes(-c.free_bytes)} "
                       f"(total {human_bytes(s.total_bytes)}, usable {human_bytes(c.usable_bytes)})")
                out.append(findings.make(path, "TB030", msg, hint))
            else:
                msg = (f"{label}: tight on {c.name}: {human_bytes(c.free_bytes)} free, under the "
                       f"{human_bytes(c.headroom_bytes)} headroom (total {human_bytes(s.total_bytes)})")
                out.append(findings.make(path, "TB031", msg, hint))
        if s.streaming and s.streaming["floor_exceeds_pool"]:
            msg = (f"{label}: streaming floor {human_bytes(s.streaming['floor_bytes'])} exceeds the pool "
                   f"{human_bytes(s.streaming['pool_bytes'])}")
            out.append(findings.make(path, "TB032", msg))
    return tuple(out)


# --- fixes --------------------------------------------------------------------------------------


def _compress_target(plan: TexturePlan, fmt, opaque: bool, family: str) -> str | None:
    """The compressed format an uncompressed texture should use, by role and channels."""
    if fmt.compressed or fmt.family != "uncompressed":
        return None
    srgb = fmt.srgb
    if family == "astc":
        if fmt.hdr or plan.role == "hdr":
            return "ASTC_6x6_SFLOAT"
        if plan.role == "normal" or fmt.channels == 2:
            return "EAC_R11G11_UNORM"
        if fmt.channels == 1 or plan.role == "single":
            return "EAC_R11_UNORM"
        return "ASTC_6x6_SRGB" if srgb else "ASTC_6x6_UNORM"
    if fmt.hdr or plan.role == "hdr":
        return "BC6H_SFLOAT" if fmt.signed else "BC6H_UFLOAT"
    if plan.role == "normal" or fmt.channels == 2:
        return "BC5_SNORM" if fmt.signed else "BC5_UNORM"
    if fmt.channels == 1 or plan.role == "single":
        return "BC4_SNORM" if fmt.signed else "BC4_UNORM"
    if opaque and plan.role != "ui":
        return "BC1_RGB_SRGB" if srgb else "BC1_RGB_UNORM"
    return "BC7_SRGB" if srgb else "BC7_UNORM"


def _cap_plan(plan: TexturePlan, size: int) -> TexturePlan:
    """The plan with its top level at most ``size`` per side: top levels dropped from the
    chain (an unmipped texture is resized the same way)."""
    k = 0
    while max(level_dims(plan.width, plan.height, plan.depth, k)[:2]) > size:
        k += 1
    w, h, d = level_dims(plan.width, plan.height, plan.depth, k)
    levels = max(1, plan.levels - k)
    return replace(plan, width=w, height=h, depth=d, levels=levels,
                   tier_drop=min(plan.tier_drop, levels - 1), max_size=size)


def _can_drop(plan: TexturePlan) -> bool:
    return plan.levels - plan.tier_drop > 1


def _cap_size(plan: TexturePlan, floor_size: int) -> int | None:
    top = max(plan.width, plan.height)
    size = 1 << ((top - 1).bit_length() - 1) if top > 1 else 0
    return size if size >= floor_size and top > size else None


def apply_change(plan: TexturePlan, kind: str, value: str) -> TexturePlan:
    """One texture change of a Fix applied to a plan (pure)."""
    if kind in ("compress", "bc1"):
        return replace(plan, gpu_format=value, decided_by=f"what-if: {value}")
    if kind == "cap":
        return _cap_plan(plan, int(value))
    if kind == "drop_mips":
        for _ in range(int(value)):
            if _can_drop(plan):
                plan = replace(plan, tier_drop=plan.tier_drop + 1)
        return plan
    raise ValueError(f"not a texture change: {kind!r}")


@dataclass
class _Step:
    kind: str
    path: str
    group: str
    value: str
    saves: int
    before: str  # what was there before (format, size, upscaler, pool)
    estimate: bool = False
    base: int = 0  # pool steps: textures counted before the step


def _action(kind: str, first: _Step, last: _Step, steps: int) -> str:
    if kind == "compress":
        return f"compress {first.before} to {last.value}"
    if kind == "bc1":
        return f"use {last.value} for this opaque {first.before} texture"
    if kind == "cap":
        return f"cap to {last.value} (was {first.before})"
    if kind == "drop_mips":
        what = f"every {last.group.split(':', 1)[1]} texture" if last.group.startswith("role:") else f"every texture in {last.path}"
        return f"drop the top mip of {what}" if steps == 1 else f"drop the top {steps} mips of {what}"
    if kind == "compaction":
        return "turn on BLAS compaction (estimate)"
    if kind == "upscaler":
        return f"render at the upscaler's {last.value} preset (was {first.before}; working set is an estimate)"
    if kind == "pool":
        return f"lower the streaming pool to {human_bytes(int(last.value))} (was {human_bytes(int(first.before))})"
    return kind  # pragma: no cover


def _key(plan: TexturePlan) -> tuple:
    return (plan.gpu_format, plan.width, plan.height, plan.depth, plan.levels, plan.faces, plan.layers, plan.tier_drop)


@lru_cache(maxsize=65536)
def _state(key: tuple, model: str, keep: int) -> tuple[int, int]:
    """(allocated, streaming floor if streamed) of a texture state; ``keep`` 0 = no streaming."""
    mips, _, alloc = _price(*key, model)
    if not keep or len(mips) <= keep:
        return alloc, alloc
    return alloc, _tail(key[0], mips, key[5], key[6], keep, model)


def _dropped(key: tuple) -> tuple | None:
    """The state with one more top level dropped, or None when one level is left."""
    return (*key[:7], key[7] + 1) if key[4] - key[7] > 1 else None


@lru_cache(maxsize=65536)
def _drop_step(key: tuple, model: str, keep: int) -> tuple[tuple, int, int, int, int] | None:
    """Dropping one more top level of a state: (new state, its allocated bytes, its floor,
    and what dropping one more after that would save, fully resident and off the floor)."""
    d = _dropped(key)
    if d is None or formats.find(key[0]) is None:  # an unknown format is never re-priced
        return None
    alloc, floor = _state(d, model, keep)
    dd = _dropped(d)
    if dd is None:
        return d, alloc, floor, 0, 0
    a2, f2 = _state(dd, model, keep)
    return d, alloc, floor, alloc - a2, floor - f2


@dataclass(frozen=True)
class _SearchBase:
    """Per-inputs starting state of the fix search (the same for every scenario)."""

    keys: tuple[tuple, ...]
    alloc: tuple[int, ...]
    floor: tuple[int, ...]
    drop_full: tuple[int, ...]  # bytes one more dropped top level saves, fully resident
    drop_floor: tuple[int, ...]  # … and off the streaming floor
    groups: tuple[tuple[str, tuple[int, ...]], ...]
    member_groups: tuple[tuple[int, ...], ...]
    by_size: tuple[tuple[int, int], ...]  # (alloc, index), largest first
    group_full: tuple[int, ...]  # per group: what dropping its top level saves, fully resident
    group_floor: tuple[int, ...]  # … and off the streaming floor


def _search_base(inputs: BudgetInputs, model: str, keep: int) -> _SearchBase:
    cache = inputs._floors
    ck = ("search", model, keep)
    if ck in cache:
        return cache[ck]  # type: ignore[return-value]
    live = inputs.live
    keys = tuple(_key(c.plan) for c in live)
    alloc = tuple(c.allocated_bytes for c in live)
    floor = inputs.floors(keep, model) if keep else alloc
    drop_full, drop_floor = [], []
    for c, k, a, f in zip(live, keys, alloc, floor, strict=True):
        step = _drop_step(k, model, keep if c.plan.streamed else 0)
        drop_full.append(a - step[1] if step else 0)
        drop_floor.append(f - step[2] if step else 0)
    member_groups: list[list[int]] = [[] for _ in live]
    for g, (_, members) in enumerate(inputs.groups):
        for i in members:
            member_groups[i].append(g)
    base = _SearchBase(
        keys=keys, alloc=alloc, floor=tuple(floor), drop_full=tuple(drop_full),
        drop_floor=tuple(drop_floor), groups=inputs.groups,
        member_groups=tuple(tuple(m) for m in member_groups),
        by_size=tuple(sorted(((a, i) for i, a in enumerate(alloc)), key=lambda x: (-x[0], x[1]))),
        group_full=tuple(sum(drop_full[i] for i in m) for _, m in inputs.groups),
        group_floor=tuple(sum(drop_floor[i] for i in m) for _, m in inputs.groups),
    )
    cache[ck] = base  # type: ignore[assignment]
    return base


class _Sequence:
    """A greedy sequence of steps with running savings, extended on demand; each card takes
    the shortest prefix that saves what it needs."""

    steps: list[_Step]
    saved: list[int]  # cumulative savings after each step
    done: bool

    def next_step(self) -> _Step | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _extend(self) -> _Step | None:
        step = self.next_step()
        if step is not None:
            self.steps.append(step)
            self.saved.append((self.saved[-1] if self.saved else 0) + step.saves)
        return step

    def fixes_for(self, card: str, need: int) -> tuple[list[Fix], int]:
        """The merged fixes of the shortest prefix that saves ``need`` bytes (or every step
        there is), and the bytes they save."""
        n = next((k + 1 for k, s in enumerate(self.saved) if s >= need), None)
        while n is None and not self.done:
            if self._extend() is None:
                self.done = True
                break
            if self.saved[-1] >= need:
                n = len(self.steps)
        steps = self.steps[: n if n is not None else len(self.steps)]
        if steps and steps[-1].kind == "pool":  # a pool only needs to shrink as far as needed
            last = steps[-1]
            already = self.saved[len(steps) - 2] if len(steps) > 1 else 0
            cut = min(last.saves, max(0, need - already))
            steps = [*steps[:-1], replace(last, saves=cut, value=str(last.base - cut))]
        return _merge(card, steps), sum(s.saves for s in steps)


def _searcher(inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
              targets_bytes: int, accel: AccelerationSummary | None) -> _Sequence:
    """The fix sequence of a scenario. Without streaming, texture changes and scene-wide ones
    (compaction, upscaler) do not change each other's savings, so one texture-only sequence
    per inputs is shared by every scenario and merged with that scenario's few scene-wide
    steps; with streaming (pool and floor couple them) each scenario searches on its own."""
    if settings.streaming:
        return _FixSearch(inputs, scenario, settings, targets_bytes, accel)
    key = ("textures-only", settings.allocation_model, settings.fix_formats, settings.fix_min_cap_size, settings.max_fix_steps)
    cache = inputs._floors
    if key not in cache:
        cache[key] = _FixSearch(inputs, scenario, settings, 0, None, scene_wide=False)  # type: ignore[assignment]
    return _Merged(cache[key], scenario, settings, targets_bytes, accel)  # type: ignore[arg-type]


class _Merged(_Sequence):
    """A shared texture-only sequence merged with one scenario's scene-wide steps: at every
    point the larger saving goes first."""

    def __init__(self, textures: _FixSearch, scenario: Scenario, settings: BudgetSettings,
                 targets_bytes: int, accel: AccelerationSummary | None) -> None:
        self.textures, self.scenario, self.settings = textures, scenario, settings
        self.position = 0  # next step of the texture sequence
        self.compaction = accel.compaction_saves_bytes if accel else 0
        self.upscaler, self.rt_bytes = scenario.upscaler, targets_bytes
        self.steps, self.saved, self.done = [], [], False

    def _scene_wide(self) -> tuple[int, str, Any] | None:
        options: list[tuple[int, str, Any]] = []
        if self.compaction > 0:
            options.append((self.compaction, "compaction", None))
        nxt = _next_upscaler(self.upscaler)
        if nxt is not None and self.settings.render_scale is None:
            cost = _targets(self.scenario, self.settings, upscaler=nxt, render_scale=upscaler_scale(nxt)).total_bytes
            if self.rt_bytes - cost > 0:
                options.append((self.rt_bytes - cost, "upscaler", (nxt, cost)))
        return max(options, key=lambda o: o[0]) if options else None

    def next_step(self) -> _Step | None:
        if len(self.steps) >= self.settings.max_fix_steps:
            return None
        tex = self.textures
        if self.position >= len(tex.steps) and not tex.done and tex._extend() is None:
            tex.done = True
        texture_step = tex.steps[self.position] if self.position < len(tex.steps) else None
        other = self._scene_wide()
        if other is not None and (texture_step is None or other[0] > texture_step.saves):
            saving, kind, payload = other
            if kind == "compaction":
                self.compaction = 0
                return _Step("compaction", "", "", "on", saving, "off", estimate=True)
            before = self.upscaler
            self.upscaler, self.rt_bytes = payload
            return _Step("upscaler", "", "", payload[0], saving, before, estimate=True)
        if texture_step is not None:
            self.position += 1
        return texture_step


class _FixSearch(_Sequence):
    """The greedy sequence of one scenario, extended lazily (lazy greedy: every entry carries
    an upper bound of its saving, is re-priced exactly when it reaches the top, and is applied
    only if it still beats the next bound). Textures enter as placeholders bounded by their
    bytes, largest first, and are expanded into concrete changes only when reached; group
    savings are kept as running sums, so 10,000 textures cost little."""

    def __init__(self, inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
                 targets_bytes: int, accel: AccelerationSummary | None, *, scene_wide: bool = True) -> None:
        self.inputs, self.scenario, self.settings = inputs, scenario, settings
        self.model = settings.allocation_model
        self.streaming = settings.streaming
        self.keep = settings.streaming_min_resident_levels if self.streaming else 0
        base = _search_base(inputs, self.model, self.keep)
        self.base = base
        live = inputs.live
        self.plans = [c.plan for c in live]
        self.keys = list(base.keys)
        self.alloc = list(base.alloc)
        self.floors = list(base.floor)
        self.drop_full = list(base.drop_full)
        self.drop_floor = list(base.drop_floor)
        self.version = [0] * len(live)
        self.group_full = list(base.group_full)
        self.group_floor = list(base.group_floor)
        self.full = inputs.texture_allocated_bytes
        self.floor = sum(self.floors)
        self.pool = settings.pool_bytes if self.streaming else None
        self.rt_bytes = targets_bytes
        self.upscaler = scenario.upscaler
        self.compaction = accel.compaction_saves_bytes if accel else 0
        self.steps: list[_Step] = []
        self.saved: list[int] = []  # cumulative savings after each step
        self.heap: list[tuple[int, int, str, Any]] = []
        self.parked: list[tuple[int, str, Any]] = []
        self.next_placeholder = 0  # position in base.by_size
        self.pool_version = 0
        self.seq = 0
        self.done = False
        for g in range(len(base.groups)):
            self._push(max(self.group_full[g], self.group_floor[g]), "group", g)
        if not scene_wide:
            return
        if self.compaction:
            self._push(self.compaction, "compaction", None)
        self._push_upscaler()
        if self.streaming:
            self._push(self._counted(), "pool", 0)

    # -- bookkeeping
    def _push(self, bound: int, kind: str, payload: Any) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (-bound, self.seq, kind, payload))

    def _push_upscaler(self) -> None:
        nxt = _next_upscaler(self.upscaler)
        if nxt is not None and self.settings.render_scale is None:
            self._push(self.rt_bytes, "upscaler", nxt)

    def _counted(self, full: int | None = None, floor: int | None = None, pool: Any = False) -> int:
        return _counted(self.full if full is None else full, self.floor if floor is None else floor,
                        self.pool if pool is False else pool)

    def _saving(self, d_full: int, d_floor: int) -> int:
        return self._counted() - self._counted(self.full - d_full, self.floor - d_floor)

    def _texture_state(self, i: int, key: tuple) -> tuple[int, int]:
        return _state(key, self.model, self.keep if self.plans[i].streamed else 0)

    def _plan(self, i: int) -> TexturePlan:
        """Texture ``i``'s plan in its current state (group drops only move the key)."""
        plan, k = self.plans[i], self.keys[i]
        if _key(plan) != k:
            plan = replace(plan, gpu_format=k[0], width=k[1], height=k[2], depth=k[3], levels=k[4], tier_drop=k[7])
            self.plans[i] = plan
        return plan

    def _candidates(self, i: int) -> list[tuple[str, str, str]]:
        """(kind, value, before) of the concrete changes for texture ``i``."""
        plan = self._plan(i)
        fmt = formats.find(plan.gpu_format)
        if fmt is None:
            return []
        out = []
        opaque = plan.path in self.inputs.opaque
        target = _compress_target(plan, fmt, opaque, self.settings.fix_formats)
        if target and formats.find(target) is not None:
            out.append(("compress", target, fmt.name))
        if fmt.family == "bc3" and opaque and self.settings.fix_formats == "bc":
            out.append(("bc1", "BC1_RGB_SRGB" if fmt.srgb else "BC1_RGB_UNORM", fmt.name))
        size = _cap_size(plan, self.settings.fix_min_cap_size)
        if size:
            out.append(("cap", str(size), f"{plan.width}x{plan.height}"))
        return out

    # -- applying a texture change
    def _set_texture(self, i: int, plan: TexturePlan, alloc: int, floor: int) -> None:
        self.full += alloc - self.alloc[i]
        self.floor += floor - self.floors[i]
        self.plans[i], self.keys[i], self.alloc[i], self.floors[i] = plan, _key(plan), alloc, floor
        d = _dropped(self.keys[i])
        if d is None:
            df = dfl = 0
        else:
            na, nf = self._texture_state(i, d)
            df, dfl = alloc - na, floor - nf
        for g in self.base.member_groups[i]:
            self.group_full[g] += df - self.drop_full[i]
            self.group_floor[g] += dfl - self.drop_floor[i]
        self.drop_full[i], self.drop_floor[i] = df, dfl
        self.version[i] += 1
        self._push(alloc, "tex", (i, self.version[i]))

    # -- one entry re-priced against the current state: (saving, apply) or None when stale
    def _evaluate(self, kind: str, payload: Any) -> tuple[int, Callable[[], _Step]] | None:
        if kind == "texfix":
            i, ver, fkind, value, before = payload
            if ver != self.version[i]:
                return None
            new = apply_change(self._plan(i), fkind, value)
            alloc, floor = self._texture_state(i, _key(new))
            saving = self._saving(self.alloc[i] - alloc, self.floors[i] - floor)

            def apply_texture() -> _Step:
                path = new.path
                self._set_texture(i, new, alloc, floor)
                return _Step(fkind, path, "", value, saving, before)
            return saving, apply_texture
        if kind == "group":
            g = payload
            saving = self._saving(self.group_full[g], self.group_floor[g])
            key, members = self.base.groups[g]

            def apply_group() -> _Step:
                self._drop_members(members)
                self._push(max(self.group_full[g], self.group_floor[g]), "group", g)
                folder = key.split(":", 1)[1]
                path = "" if key.startswith("role:") else (f"{folder}/*" if folder else "*")
                return _Step("drop_mips", path, key, "1", saving, "")
            return saving, apply_group
        if kind == "compaction":
            saving = self.compaction

            def apply_compaction() -> _Step:
                self.compaction = 0
                return _Step("compaction", "", "", "on", saving, "off", estimate=True)
            return saving, apply_compaction
        if kind == "upscaler":
            nxt = payload
            if nxt != _next_upscaler(self.upscaler):
                return None
            cost = _targets(self.scenario, self.settings, upscaler=nxt, render_scale=upscaler_scale(nxt)).total_bytes
            saving = self.rt_bytes - cost

            def apply_upscaler() -> _Step:
                before = self.upscaler
                self.upscaler, self.rt_bytes = nxt, cost
                self._push_upscaler()
                return _Step("upscaler", "", "", nxt, saving, before, estimate=True)
            return saving, apply_upscaler
        if kind == "pool":
            if self.pool is None or payload != self.pool_version:
                return None
            target = min(self.pool, self.floor)
            base = self._counted()
            saving = base - self._counted(pool=target)

            def apply_pool() -> _Step:
                before = self.pool
                self.pool = target
                return _Step("pool", "", "", str(target), saving, str(before), base=base)
            return saving, apply_pool
        raise AssertionError(kind)  # pragma: no cover

    def _drop_members(self, members: Sequence[int]) -> None:
        """Drop one top level of every member that has more than one (the hot loop of a
        group fix: per member a cached transition and a few list updates)."""
        keys, alloc, floors, version = self.keys, self.alloc, self.floors, self.version
        drop_full, drop_floor, group_full, group_floor = self.drop_full, self.drop_floor, self.group_full, self.group_floor
        member_groups, plans, model, keep, heap = self.base.member_groups, self.plans, self.model, self.keep, self.heap
        d_full = d_floor = 0
        for i in members:
            step = _drop_step(keys[i], model, keep if plans[i].streamed else 0)
            if step is None:
                continue
            k, a, f, df, dfl = step
            d_full += a - alloc[i]
            d_floor += f - floors[i]
            keys[i], alloc[i], floors[i] = k, a, f
            for g in member_groups[i]:
                group_full[g] += df - drop_full[i]
                group_floor[g] += dfl - drop_floor[i]
            drop_full[i], drop_floor[i] = df, dfl
            version[i] += 1
            self.seq += 1
            heapq.heappush(heap, (-a, self.seq, "tex", (i, version[i])))
        self.full += d_full
        self.floor += d_floor

    def _expand(self, i: int) -> None:
        """Texture ``i`` reached the top: push its concrete changes with exact bounds."""
        for fkind, value, before in self._candidates(i):
            alloc, floor = self._texture_state(i, _key(apply_change(self._plan(i), fkind, value)))
            bound = max(self.alloc[i] - alloc, self.floors[i] - floor)
            if bound > 0:
                self._push(bound, "texfix", (i, self.version[i], fkind, value, before))

    def _pop(self) -> tuple[int, str, Any] | None:
        by_size = self.base.by_size
        while self.next_placeholder < len(by_size):
            bound, i = by_size[self.next_placeholder]
            if self.heap and -self.heap[0][0] > bound:
                break
            self.next_placeholder += 1
            if self.version[i] == 0:  # else a fresher placeholder is in the heap
                return bound, "tex", (i, 0)
        if not self.heap:
            return None
        neg, _, kind, payload = heapq.heappop(self.heap)
        return -neg, kind, payload

    def _top_bound(self) -> int:
        top = -self.heap[0][0] if self.heap else 0
        if self.next_placeholder < len(self.base.by_size):
            top = max(top, self.base.by_size[self.next_placeholder][0])
        return top

    def next_step(self) -> _Step | None:
        while len(self.steps) < self.settings.max_fix_steps:
            item = self._pop()
            if item is None:
                return None
            bound, kind, payload = item
            if kind == "tex":
                i, ver = payload
                if ver == self.version[i]:
                    self._expand(i)
                continue
            result = self._evaluate(kind, payload)
            if result is None:
                continue
            saving, apply = result
            if saving <= 0:
                if self.streaming:  # may pay once the pool or the floor moves
                    self.parked.append((bound, kind, payload))
                continue
            if saving < self._top_bound():
                self._push(saving, kind, payload)
                continue
            step = apply()
            if self.streaming:
                for entry in self.parked:
                    self._push(*entry)
                self.parked.clear()
                self.pool_version += 1
                self._push(self._counted(), "pool", self.pool_version)
            return step
        return None


def _next_upscaler(current: str) -> str | None:
    if current in UPSCALER_STEPS and current != UPSCALER_STEPS[-1]:
        return UPSCALER_STEPS[UPSCALER_STEPS.index(current) + 1]
    return None


def _merge(card: str, steps: Sequence[_Step]) -> list[Fix]:
    order: dict[tuple[str, str, str], list[_Step]] = {}
    for s in steps:
        order.setdefault((s.kind, s.path, s.group), []).append(s)
    out = []
    for (kind, path, group), group_steps in order.items():
        first, last = group_steps[0], group_steps[-1]
        value = str(len(group_steps)) if kind == "drop_mips" else last.value
        out.append(Fix(
            card=card, action=_action(kind, first, last, len(group_steps)), path=path,
            saves_bytes=sum(s.saves for s in group_steps), kind=kind, value=value, group=group,
            estimate=any(s.estimate for s in group_steps),
        ))
    return out


def apply_fixes(inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
                fixes: Sequence[Fix]) -> tuple[BudgetInputs, Scenario, BudgetSettings]:
    """The inputs, scenario and settings with ``fixes`` applied, in order (pure): textures are
    re-planned and re-priced, compaction sets the BLASes to their compacted size, an upscaler
    fix changes the scenario, a pool fix the settings. Assessing the result shows what the
    fixes bring."""
    live = list(inputs.live)
    changed: dict[int, TexturePlan] = {}
    by_path = {c.plan.path: i for i, c in enumerate(live)}
    groups = dict(inputs.groups)
    accel = dict(inputs.acceleration)
    for fix in fixes:
        if fix.kind in ("compress", "bc1", "cap"):
            i = by_path[fix.path]
            changed[i] = apply_change(changed.get(i, live[i].plan), fix.kind, fix.value)
        elif fix.kind == "drop_mips":
            for i in groups[fix.group]:
                changed[i] = apply_change(changed.get(i, live[i].plan), "drop_mips", fix.value)
        elif fix.kind == "compaction":
            a = accel[scenario.rt]
            saves = a.compaction_saves_bytes
            accel[scenario.rt] = replace(a, blas_bytes=a.blas_bytes - saves, total_bytes=a.total_bytes - saves)
        elif fix.kind == "upscaler":
            scale = upscaler_scale(fix.value)
            rw, rh = render_size(scenario.width, scenario.height, scale)
            scenario = replace(scenario, upscaler=fix.value, render_scale=scale, render_width=rw, render_height=rh)
            settings = replace(settings, upscaler=fix.value)
        elif fix.kind == "pool":
            settings = replace(settings, streaming_pool_bytes=int(fix.value))
        else:
            raise ValueError(f"unknown fix kind {fix.kind!r}")
    model = settings.allocation_model
    textures = tuple(price_plan(changed[i], model) if i in changed else c for i, c in enumerate(live))
    return replace(inputs, textures=textures, acceleration=accel), scenario, settings
