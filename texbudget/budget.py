"""The budget: costs + scenario + cards → verdicts, and the cheapest changes that make it fit.

Pure (no I/O except reading the shipped ``data/cards.toml`` and, for the fixes' compression
family, ``data/platforms.toml`` once each, cached). DESIGN.md §1
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

Fixes (for each card that is ``over`` or ``tight``; docs/budget.md has the whole rule): the
cheapest change that makes the card fit — the fewest, least intrusive steps with the least
overshoot. The candidate changes, in order of preference (tiers):

  (a) quality-neutral: compress an uncompressed texture (by role: BC5 normals, BC4 single
      channel, BC6H HDR, BC1 opaque colour, BC7 colour; ASTC or EAC on ``astc`` platforms,
      ETC2 / EAC on ``etc2``), BC1 for an opaque BC2/BC3, turn on BLAS compaction;
  (a') re-encodes that lose a little: BC1 for an opaque BC7, compress a UI texture;
  (b) cap one texture to a power of two (not below ``fix_min_cap_size``), or lower the
      streaming pool exactly as far as needed;
  (c) drop the top mip of a group (a role, or a folder);
  (d) render at a lower upscaler preset (``performance`` at most).

The rule, per card, with ``need`` = headroom − free: at every point, if some single change
covers what is still needed, take the one of the lowest tier that does, and within that tier
the one that saves least (least overshoot); otherwise take the change that saves the most
(one step: one texture, one power of two, one mip of one group, the next upscaler preset)
and repeat. Savings are exact (re-priced against the state after the steps before; under
streaming, what the pool variant counts). The largest-first steps are the same for every
card, so they form one sequence per scenario (its texture part shared by every scenario of
the same inputs when streaming is off) that each card walks until a single change covers the
rest. Repeated steps on the same target are merged (cap 8192 → 4096, then → 2048 is one "cap
to 2048"). The platform picks the compression family (``BudgetSettings.fix_family``).
"""

from __future__ import annotations

import bisect
import difflib
import re
import tomllib
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from importlib import resources
from operator import itemgetter
from typing import Any, NamedTuple

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
    evolve,
    file_of,
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
FIX_FORMATS = ("bc", "astc", "etc2")
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
    # Compression targets of the fixes: "bc" (desktop, consoles), "astc" or "etc2" (mobile);
    # None = from the platform (``fix_family``).
    fix_formats: str | None = None
    max_fix_steps: int = 500

    def __post_init__(self) -> None:
        for name in ("cards", "resolutions", "quality"):
            object.__setattr__(self, name, _tuple_of_str(getattr(self, name), name))
        if self.rt is not None:
            rt = tuple(v.lower() for v in _tuple_of_str(self.rt, "rt"))
            _check(bool(rt), "rt", self.rt, "give at least one of off, nvidia, amd, intel")
            object.__setattr__(self, "rt", tuple(dict.fromkeys(rt)))
        _check(bool(self.quality), "quality", self.quality, "give at least one quality tier")
        _check(bool(self.cards), "cards", self.cards, "give at least one card")
        _check(bool(self.resolutions), "resolutions", self.resolutions, "give at least one resolution")
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
        _check(self.fix_formats is None or self.fix_formats in FIX_FORMATS, "fix_formats", self.fix_formats, f"allowed values are {', '.join(FIX_FORMATS)}")

    @property
    def pool_bytes(self) -> int:
        return DEFAULT_STREAMING_POOL_BYTES if self.streaming_pool_bytes is None else self.streaming_pool_bytes

    @property
    def fix_family(self) -> str:
        """The compression family the fixes suggest: ``fix_formats`` when set, else the
        platform's (``fix_family_for``)."""
        return self.fix_formats or fix_family_for(self.platform)


def fix_family_for(platform: str) -> str:
    """"bc", "astc" or "etc2" for a platform: a shipped profile's family (``family`` in
    data/platforms.toml; the uncompressed reference is a desktop: "bc"); any other name by
    its prefix: "mobile-etc2…" → "etc2", "mobile…" → "astc", else "bc"."""
    # the profile table, read once (policy never imports budget: no cycle)
    from texbudget.policy import load_platforms

    profile = load_platforms().get(platform)
    family = profile.family if profile is not None else None
    if family in FIX_FORMATS:
        return family
    if family is None and platform.startswith("mobile"):
        return "etc2" if platform.startswith("mobile-etc2") else "astc"
    return "bc"


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
    return file_of(path).rpartition("/")[0]


# --- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetInputs:
    """What the pipeline priced for one quality tier / platform: every texture's cost, the
    mesh buffers, the acceleration structures per RT vendor, and the texture paths known to
    be opaque (no alpha; for the "BC1 for an opaque BC3 / BC7" and "compress to BC1" fixes). Sums
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
    def _floors(self) -> dict[tuple, Any]:
        # per argument pair: the floors; also the fix search's registry and sequences
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
            plan = c.plan
            role, folder = plan.role, _folder(plan.path)
            if role in roles:
                roles[role].append(i)
            else:
                roles[role] = [i]
            if folder in folders:
                folders[folder].append(i)
            else:
                folders[folder] = [i]
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
        needs = {v.name: v.headroom_bytes - v.free_bytes for v in verdicts if v.verdict != "fits"}
        per_card = _card_fixes(inputs, scenario, settings, needs, targets.total_bytes, accel)
        for i, v in enumerate(verdicts):
            if v.name in per_card:
                fixes += per_card[v.name]
                saved = sum(f.saves_bytes for f in per_card[v.name])
                verdicts[i] = evolve(v, free_after_fixes_bytes=v.free_bytes + saved)

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

# Preference tiers of a change (lowest first). When several single changes each cover what a
# card still needs, the one of the lowest tier is taken, and within a tier the smallest.
TIER_NEUTRAL = 0  # compress an uncompressed texture, BC1 for an opaque BC2/BC3, BLAS compaction
TIER_REENCODE = 1  # BC1 for an opaque BC7 (coarser colour); compress a UI texture
TIER_CAP = 2  # cap one texture's size; lower the streaming pool (exactly as far as needed)
TIER_GROUP = 3  # drop the top mip of a group (a role or a folder)
TIER_UPSCALER = 4  # render at a lower upscaler preset
TIERS = (TIER_NEUTRAL, TIER_REENCODE, TIER_CAP, TIER_GROUP, TIER_UPSCALER)
# Order of kinds when two changes of one tier save the same bytes.
_KIND_ORDER = {k: n for n, k in enumerate(("compress", "bc1", "compaction", "pool", "cap", "drop_mips", "upscaler"))}
# Roles whose colour precision matters too much for a BC7 → BC1 suggestion.
_NO_BC1_ROLES = frozenset({"ui", "normal", "hdr"})


def _compress_target(plan: TexturePlan, fmt, opaque: bool, family: str) -> str | None:
    """The compressed format an uncompressed texture should use, by role and channels, for
    the fix family ("bc", "astc" or "etc2"); None when there is none (or it is compressed)."""
    if fmt.compressed or fmt.family != "uncompressed":
        return None
    srgb, signed = fmt.srgb, fmt.signed
    hdr = fmt.hdr or plan.role == "hdr"
    two = plan.role == "normal" or fmt.channels == 2
    one = fmt.channels == 1 or plan.role in ("single", "height")
    if family == "astc":
        if hdr:
            return "ASTC_6x6_SFLOAT"
        if two:
            return "EAC_R11G11_SNORM" if signed else "EAC_R11G11_UNORM"
        if one:
            return "EAC_R11_SNORM" if signed else "EAC_R11_UNORM"
        return "ASTC_6x6_SRGB" if srgb else "ASTC_6x6_UNORM"
    if family == "etc2":
        if hdr:  # ETC2 / EAC have no HDR format
            return None
        if two:
            return "EAC_R11G11_SNORM" if signed else "EAC_R11G11_UNORM"
        if one:
            return "EAC_R11_SNORM" if signed else "EAC_R11_UNORM"
        if opaque or not fmt.alpha:
            return "ETC2_R8G8B8_SRGB" if srgb else "ETC2_R8G8B8_UNORM"
        return "ETC2_R8G8B8A8_SRGB" if srgb else "ETC2_R8G8B8A8_UNORM"
    if hdr:
        return "BC6H_SFLOAT" if signed else "BC6H_UFLOAT"
    if two:
        return "BC5_SNORM" if signed else "BC5_UNORM"
    if one:
        return "BC4_SNORM" if signed else "BC4_UNORM"
    if opaque and plan.role != "ui":
        return "BC1_RGB_SRGB" if srgb else "BC1_RGB_UNORM"
    return "BC7_SRGB" if srgb else "BC7_UNORM"


def _opaque_twin(plan: TexturePlan, fmt, opaque: bool, family: str) -> tuple[str, int] | None:
    """(BC1 format, tier) for an opaque texture stored with an alpha channel it does not use:
    BC2/BC3 → BC1 keeps the very same colour block (quality-neutral); BC7 → BC1 halves the
    bytes with coarser colour (a re-encode, never for UI, normal or HDR roles)."""
    if family != "bc" or not opaque:
        return None
    twin = "BC1_RGB_SRGB" if fmt.srgb else "BC1_RGB_UNORM"
    if fmt.family in ("bc2", "bc3"):
        return twin, TIER_NEUTRAL
    if fmt.family == "bc7" and plan.role not in _NO_BC1_ROLES:
        return twin, TIER_REENCODE
    return None


def _cap_plan(plan: TexturePlan, size: int) -> TexturePlan:
    """The plan with its top level at most ``size`` per side: top levels dropped from the
    chain (an unmipped texture is resized the same way)."""
    k = 0
    while max(level_dims(plan.width, plan.height, plan.depth, k)[:2]) > size:
        k += 1
    w, h, d = level_dims(plan.width, plan.height, plan.depth, k)
    levels = max(1, plan.levels - k)
    return evolve(plan, width=w, height=h, depth=d, levels=levels,
                  tier_drop=min(plan.tier_drop, levels - 1), max_size=size)


def _can_drop(plan: TexturePlan) -> bool:
    return plan.levels - plan.tier_drop > 1


def _cap_sizes(plan: TexturePlan, floor_size: int) -> list[int]:
    """The caps a fix may suggest, largest first: every power of two below the longest side,
    down to ``floor_size``."""
    top = max(plan.width, plan.height)
    size = 1 << ((top - 1).bit_length() - 1) if top > 1 else 0
    out = []
    while size >= max(1, floor_size):
        out.append(size)
        size //= 2
    return out


def apply_change(plan: TexturePlan, kind: str, value: str) -> TexturePlan:
    """One texture change of a Fix applied to a plan (pure)."""
    if kind in ("compress", "bc1"):
        return evolve(plan, gpu_format=value, decided_by=f"what-if: {value}")
    if kind == "cap":
        return _cap_plan(plan, int(value))
    if kind == "drop_mips":
        for _ in range(int(value)):
            if _can_drop(plan):
                plan = evolve(plan, tier_drop=plan.tier_drop + 1)
        return plan
    raise ValueError(f"not a texture change: {kind!r}")


class _Delta(NamedTuple):
    """What a texture step changed: members per texture state, and the drop-a-mip savings
    of the groups (fully resident, off the streaming floor)."""

    counts: dict[int, int]
    groups: dict[int, tuple[int, int]]


@dataclass
class _Step:
    kind: str
    path: str
    group: str
    value: str
    saves: int
    before: str  # what was there before (format, size, upscaler, pool)
    estimate: bool = False
    delta: _Delta | None = None  # texture steps: the state change (for replaying the sequence)


def _action(kind: str, first: _Step, last: _Step, steps: int) -> str:
    if kind == "compress":
        return f"compress {first.before} to {last.value}"
    if kind == "bc1":
        if formats.get(first.before).family == "bc7":
            return f"use {last.value} for this opaque {first.before} texture (coarser colour than BC7)"
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


def _group_path(key: str) -> str:
    """A group's ``Fix.path``: "" for a role, "env/rocks/*" for a folder."""
    if key.startswith("role:"):
        return ""
    folder = key.split(":", 1)[1]
    return f"{folder}/*" if folder else "*"


class _Cand(NamedTuple):
    """One change of a texture state: what it becomes and what that saves."""

    kind: str
    value: str
    before: str
    tier: int
    target: int  # the state it leads to
    d_full: int  # bytes saved fully resident
    d_floor: int  # bytes saved off the streaming floor


class _Scene(NamedTuple):
    """The scene-wide part of a search state (after some steps)."""

    full: int  # textures fully resident
    floor: int  # streaming floor
    pool: int | None  # streaming pool; None = no streaming (textures count ``full``)
    compaction: int  # what BLAS compaction would still save
    upscaler: str
    rt_bytes: int  # render targets at that upscaler


class _Registry:
    """The texture states of one inputs, shared by every search over them.

    Textures in the same state — format, size, levels, tier drop, role, opaque, streamed —
    have the same changes with the same savings, so the search works on states ("classes")
    and counts how many textures are in each: a scene of 10,000 textures has a few dozen
    states. Each state's changes are found once, when a texture first enters it, and kept in
    lists sorted by what they save (per preference tier; and one list of the one-level steps
    the largest-first sequence picks from). The registry only grows; searches keep their own
    counts."""

    def __init__(self, inputs: BudgetInputs, settings: BudgetSettings, keep: int) -> None:
        self.model, self.keep = settings.allocation_model, keep
        self.family, self.min_cap = settings.fix_family, settings.fix_min_cap_size
        self.index: dict[tuple, int] = {}
        self.plans: list[TexturePlan] = []  # a plan in each state (its path is a member's)
        self.opaque: list[bool] = []
        self.known: list[bool] = []
        self.alloc: list[int] = []
        self.floor: list[int] = []
        self.dfull: list[int] = []  # what dropping one more top level saves, fully resident
        self.dfloor: list[int] = []  # … and off the streaming floor
        self.drop_to: list[int | None] = []  # state after that drop (-1 = not looked up yet)
        self.cands: list[tuple[_Cand, ...]] = []
        self.active: list[bool] = []
        self.by_tier: list[list[tuple[int, int, int, int]]] = [[] for _ in TIERS]  # (bound, kind, state, cand)
        self.one_level: list[tuple[int, int, int, int, int]] = []  # (-bound, tier, kind, state, cand)

        live = inputs.live
        self.paths = tuple(c.plan.path for c in live)
        floors = inputs.floors(keep, self.model) if keep else None
        opaque = inputs.opaque
        cls0: list[int] = []
        members: dict[int, list[int]] = {}
        known: dict[str, bool] = {}
        index = self.index
        for i, c in enumerate(live):
            p = c.plan
            f = p.gpu_format
            if f not in known:
                known[f] = formats.find(f) is not None
            if not known[f]:  # counted as priced, never changed
                cid = self._register(("unknown", i), p, False, False, c.allocated_bytes,
                                     floors[i] if floors else c.allocated_bytes)
            else:  # _ensure, with the common case inline (10,000 textures, a few dozen states)
                o = p.path in opaque
                ident = ((f, p.width, p.height, p.depth, p.levels, p.faces, p.layers, p.tier_drop),
                         p.role, o, bool(keep) and p.streamed)
                found = index.get(ident)
                cid = self._ensure(p, o) if found is None else found
            cls0.append(cid)
            if cid in members:
                members[cid].append(i)
            else:
                members[cid] = [i]
        self.cls0 = tuple(cls0)
        self.base_count = {c: len(m) for c, m in members.items()}
        for cid in members:
            self.activate(cid)
        self.groups = inputs.groups
        member_groups: list[list[int]] = [[] for _ in live]
        dfull, dfloor = self.dfull, self.dfloor
        group_full, group_floor = [], []
        for g, (_, ms) in enumerate(self.groups):
            for i in ms:
                member_groups[i].append(g)
            states = list(map(cls0.__getitem__, ms))  # summed by C loops: a role holds thousands
            group_full.append(sum(map(dfull.__getitem__, states)))
            group_floor.append(sum(map(dfloor.__getitem__, states)))
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        # per texture, the groups it is in (one tuple per distinct combination)
        self.member_groups: Sequence[tuple[int, ...]] = [shared.setdefault(t, t) for t in map(tuple, member_groups)]
        self.group_full0, self.group_floor0 = tuple(group_full), tuple(group_floor)
        self._parts: dict[int, tuple[tuple[tuple[int, ...], list[int]], ...]] = {}
        self.full0 = inputs.texture_allocated_bytes
        self.floor0 = sum(floors) if floors else self.full0

    def _register(self, ident: tuple, plan: TexturePlan, opaque: bool, known: bool, alloc: int, floor: int,
                  dfull: int = 0, dfloor: int = 0, drop_to: int | None = None) -> int:
        cid = len(self.plans)
        self.index[ident] = cid
        self.plans.append(plan)
        self.opaque.append(opaque)
        self.known.append(known)
        self.alloc.append(alloc)
        self.floor.append(floor)
        self.dfull.append(dfull)
        self.dfloor.append(dfloor)
        self.drop_to.append(drop_to)
        self.cands.append(())
        self.active.append(False)
        return cid

    def _ensure(self, plan: TexturePlan, opaque: bool) -> int:
        """The state of a plan in a known format (registered on first sight)."""
        streamed = bool(self.keep) and plan.streamed
        key = _key(plan)
        ident = (key, plan.role, opaque, streamed)
        cid = self.index.get(ident)
        if cid is not None:
            return cid
        keep = self.keep if streamed else 0
        alloc, floor = _state(key, self.model, keep)
        dropped = _dropped(key)
        if dropped is None:
            return self._register(ident, plan, opaque, True, alloc, floor)
        a2, f2 = _state(dropped, self.model, keep)
        return self._register(ident, plan, opaque, True, alloc, floor, alloc - a2, floor - f2, -1)

    def parts(self, g: int) -> tuple[tuple[tuple[int, ...], list[int]], ...]:
        """Group ``g``'s members split by the groups each is in (``g`` and at most a folder or
        a role): what a drop of ``g`` changes in each of those groups is summed over one
        part (made once per group, on its first drop)."""
        found = self._parts.get(g)
        if found is None:
            by: dict[tuple[int, ...], list[int]] = {}
            member_groups = self.member_groups
            for i in self.groups[g][1]:
                key = member_groups[i]
                if key in by:
                    by[key].append(i)
                else:
                    by[key] = [i]
            found = self._parts[g] = tuple(by.items())
        return found

    def drop_target(self, cid: int) -> int | None:
        """The state after dropping one more top level (None: one level is left)."""
        t = self.drop_to[cid]
        if t == -1:
            plan = self.plans[cid]
            t = self._ensure(evolve(plan, tier_drop=plan.tier_drop + 1), self.opaque[cid])
            self.drop_to[cid] = t
        return t

    def activate(self, cid: int) -> None:
        """A texture entered state ``cid``: find its changes (once) and list them."""
        if self.active[cid]:
            return
        self.active[cid] = True
        if not self.known[cid]:
            return
        plan, opaque = self.plans[cid], self.opaque[cid]
        fmt = formats.get(plan.gpu_format)
        options: list[tuple[str, str, str, int, bool]] = []  # kind, value, before, tier, one level
        target = _compress_target(plan, fmt, opaque, self.family)
        if target and formats.find(target) is not None:  # UI is kept uncompressed on purpose more often
            options.append(("compress", target, fmt.name, TIER_REENCODE if plan.role == "ui" else TIER_NEUTRAL, True))
        twin = _opaque_twin(plan, fmt, opaque, self.family)
        if twin:
            options.append(("bc1", twin[0], fmt.name, twin[1], True))
        for n, size in enumerate(_cap_sizes(plan, self.min_cap)):
            options.append(("cap", str(size), f"{plan.width}x{plan.height}", TIER_CAP, n == 0))
        cands: list[_Cand] = []
        for kind, value, before, tier, one in options:
            t = self._ensure(apply_change(plan, kind, value), opaque)
            d_full, d_floor = self.alloc[cid] - self.alloc[t], self.floor[cid] - self.floor[t]
            bound = max(d_full, d_floor)
            if bound <= 0:
                continue
            ci = len(cands)
            cands.append(_Cand(kind, value, before, tier, t, d_full, d_floor))
            bisect.insort(self.by_tier[tier], (bound, _KIND_ORDER[kind], cid, ci))
            if one:
                bisect.insort(self.one_level, (-bound, tier, _KIND_ORDER[kind], cid, ci))
        self.cands[cid] = tuple(cands)


def _registry(inputs: BudgetInputs, settings: BudgetSettings, keep: int) -> _Registry:
    cache = inputs._floors
    ck = ("fix-registry", settings.allocation_model, keep, settings.fix_family, settings.fix_min_cap_size)
    if ck not in cache:
        cache[ck] = _Registry(inputs, settings, keep)
    return cache[ck]


def _upscaler_bytes(scenario: Scenario, settings: BudgetSettings, preset: str) -> int:
    return _targets(scenario, settings, upscaler=preset, render_scale=upscaler_scale(preset)).total_bytes


def _later_upscalers(current: str, settings: BudgetSettings) -> tuple[str, ...]:
    """The presets an upscaler fix may suggest after ``current`` (none with a custom scale)."""
    if settings.render_scale is not None or current not in UPSCALER_STEPS:
        return ()
    return UPSCALER_STEPS[UPSCALER_STEPS.index(current) + 1:]


def _saving(scene: _Scene, d_full: int, d_floor: int) -> int:
    """What a texture change saves in a state: exact (streaming counts min(full, max(floor,
    pool)), so a change may save less than its bytes there)."""
    if scene.pool is None:
        return d_full
    return _counted(scene.full, scene.floor, scene.pool) - _counted(scene.full - d_full, scene.floor - d_floor, scene.pool)


def _pool_saving(scene: _Scene) -> int:
    """What lowering the streaming pool as far as the floor saves."""
    if scene.pool is None:
        return 0
    return _counted(scene.full, scene.floor, scene.pool) - _counted(scene.full, scene.floor, min(scene.pool, scene.floor))


class _GroupSavings:
    """What dropping the top mip of each group saves, fully resident (``full``) and off the
    streaming floor (``floor``), in one search state. ``order`` lists ``(bound, group)``
    sorted, the bound being the larger of the two: no state's exact saving (``_saving``) is
    above it, so a search looks only at the groups whose bound is high enough instead of at
    every group (a 100k-file tree has about a thousand folders)."""

    def __init__(self, full: Sequence[int], floor: Sequence[int]) -> None:
        self.full, self.floor = list(full), list(floor)
        self.resort()

    def add(self, g: int, d_full: int, d_floor: int) -> None:
        """Group ``g`` saves ``d_full``/``d_floor`` more (or less, when negative)."""
        del self.order[bisect.bisect_left(self.order, (max(self.full[g], self.floor[g]), g))]
        self.full[g] += d_full
        self.floor[g] += d_floor
        bisect.insort(self.order, (max(self.full[g], self.floor[g]), g))

    def apply(self, changes: Mapping[int, tuple[int, int]]) -> None:
        """``add`` for each group changed; a step that changes many groups (a role's mip
        drop touches each folder of that role) changes them all and sorts once."""
        if len(changes) <= 16:
            for g, (d_full, d_floor) in changes.items():
                self.add(g, d_full, d_floor)
            return
        for g, (d_full, d_floor) in changes.items():
            self.full[g] += d_full
            self.floor[g] += d_floor
        self.resort()

    def resort(self) -> None:
        """``order`` again, after many changes to ``full``/``floor`` made directly."""
        self.order = sorted((max(a, b), g) for g, (a, b) in enumerate(zip(self.full, self.floor, strict=True)))

    def covering(self, scene: _Scene, need: int) -> tuple[int, int] | None:
        """(saving, group) of the group that saves least but at least ``need`` (ties: the
        first group), or None."""
        best = None
        for j in range(bisect.bisect_left(self.order, (need,)), len(self.order)):
            g = self.order[j][1]
            s = _saving(scene, self.full[g], self.floor[g])
            if s >= need and (best is None or (s, g) < best):
                best = (s, g)
                if scene.pool is None:
                    break  # exact savings are the sort keys: the first that covers is the smallest
        return best

    def largest(self, scene: _Scene, above: int = 0) -> tuple[int, int] | None:
        """(saving, group) of the group that saves most, if more than 0 and at least ``above``
        (ties: the first group), or None."""
        best = None
        for j in range(len(self.order) - 1, -1, -1):
            bound, g = self.order[j]
            if bound <= 0 or bound < (above if best is None else best[0]):
                break
            s = _saving(scene, self.full[g], self.floor[g])
            if s > 0 and s >= above and (best is None or (-s, g) < (-best[0], best[1])):
                best = (s, g)
        return best


class _Sequence:
    """A largest-first sequence of steps, extended on demand: ``steps[k]`` is the step after
    ``k`` others, ``states[k]`` the scene state before it. Every card's search replays it."""

    reg: _Registry
    tex: _LargestFirst  # the sequence that keeps the texture states after each step
    settings: BudgetSettings
    steps: list[_Step]
    states: list[_Scene]
    done: bool

    def _next(self) -> _Step | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def step(self, k: int) -> _Step | None:
        """Step ``k`` (extending the sequence), or None when no step saves anything more."""
        while len(self.steps) <= k and not self.done:
            if len(self.steps) >= self.settings.max_fix_steps or self._next() is None:
                self.done = True
        return self.steps[k] if k < len(self.steps) else None


class _LargestFirst(_Sequence):
    """Always the one-level change that saves the most now: compress or re-encode one
    texture, cap one texture one power of two down, drop the top mip of one group, and with
    ``scene`` changes on, BLAS compaction, the next upscaler preset, the pool down to the
    floor. Changes are priced exactly against the current state. Keeps what each texture
    step moved, so the texture states after any earlier step can be rebuilt."""

    def __init__(self, reg: _Registry, settings: BudgetSettings, start: _Scene,
                 scenario: Scenario | None = None, *, scene: bool = False) -> None:
        self.reg, self.settings, self.scenario, self.scene = reg, settings, scenario, scene
        self.cls = list(reg.cls0)
        self.count = dict(reg.base_count)
        self.groups = _GroupSavings(reg.group_full0, reg.group_floor0)
        # per state, no texture before this index is in it now (its first member is found
        # from there: textures only leave a state behind the one a step names, or enter it)
        self.first: dict[int, int] = {}
        for i, c in enumerate(reg.cls0):
            self.first.setdefault(c, i)
        # per texture step: (textures, state -> new state); each of those textures in one of
        # those states moved (a group drop lists the group and what each state became)
        self.moves: list[tuple[Sequence[int], Mapping[int, int | None]]] = []
        self.snapshots: dict[int, list[int]] = {0: list(reg.cls0)}  # states after k texture steps
        self.tex_steps = 0
        self.steps, self.states, self.done = [], [start], False

    @property
    def tex(self) -> _LargestFirst:  # type: ignore[override]  # itself; a property, not a cycle
        return self

    # -- which texture of a state a change names
    def states_at(self, tp: int) -> list[int]:
        """Every texture's state after ``tp`` texture steps (rebuilt from the nearest kept
        copy and the moves since; the last few are kept)."""
        if tp == self.tex_steps:
            return self.cls
        if tp not in self.snapshots:
            k = max(k for k in self.snapshots if k <= tp)
            states = list(self.snapshots[k])
            for textures, to in self.moves[k:tp]:
                for i in textures:
                    t = to.get(states[i])
                    if t is not None:
                        states[i] = t
            if len(self.snapshots) > 8:
                del self.snapshots[max(k for k in self.snapshots if k)]
            self.snapshots[tp] = states
        return self.snapshots[tp]

    def member(self, cid: int, tp: int) -> int:
        """The first texture (in scan order) in state ``cid`` after ``tp`` texture steps."""
        if tp == self.tex_steps:
            i = self.cls.index(cid, self.first[cid])
            self.first[cid] = i
            return i
        return self.states_at(tp).index(cid)

    def _entered(self, t: int, i: int) -> None:
        """Texture ``i`` (the first of those that did) entered state ``t``."""
        if i < self.first.get(t, i + 1):
            self.first[t] = i

    # -- one step
    def _next(self) -> _Step | None:
        reg, scene = self.reg, self.states[-1]
        best: tuple | None = None  # (-saving, tier, kind order, index), then what to do
        pick: tuple = ()
        count = self.count
        for negb, tier, ko, cid, ci in reg.one_level:
            if -negb <= 0 or (best is not None and -negb < -best[0]):
                break
            if count.get(cid, 0) <= 0:
                continue
            cand = reg.cands[cid][ci]
            s = _saving(scene, cand.d_full, cand.d_floor)
            key = (-s, tier, ko, cid)
            if s > 0 and (best is None or key < best):
                best, pick = key, ("texture", cid, cand)
            if scene.pool is None and best is not None:
                break  # exact savings are the sort keys: the first is the largest
        group = self.groups.largest(scene, 0 if best is None else -best[0])
        if group is not None:
            key = (-group[0], TIER_GROUP, _KIND_ORDER["drop_mips"], group[1])
            if best is None or key < best:
                best, pick = key, ("group", group[1])
        if self.scene:
            assert self.scenario is not None  # scene changes are searched for one scenario
            options: list[tuple[tuple[int, int, int, int], tuple]] = []
            if scene.compaction > 0:
                options.append(((-scene.compaction, TIER_NEUTRAL, _KIND_ORDER["compaction"], 0), ("compaction",)))
            later = _later_upscalers(scene.upscaler, self.settings)
            if later:
                cost = _upscaler_bytes(self.scenario, self.settings, later[0])
                options.append(((cost - scene.rt_bytes, TIER_UPSCALER, _KIND_ORDER["upscaler"], 0), ("upscaler", later[0], cost)))
            pool = _pool_saving(scene)
            if pool > 0:
                options.append(((-pool, TIER_CAP, _KIND_ORDER["pool"], 0), ("pool",)))
            for key, what in options:
                if key[0] < 0 and (best is None or key < best):
                    best, pick = key, what
        if best is None:
            return None
        saving = -best[0]
        kind = pick[0]
        if kind == "texture":
            _, cid, cand = pick
            i = self.member(cid, self.tex_steps)
            delta, scene = self._move(i, cid, cand.target, scene)
            step = _Step(cand.kind, reg.paths[i], "", cand.value, saving, cand.before, delta=delta)
        elif kind == "group":
            g = pick[1]
            delta, scene = self._drop_group(g, scene)
            gkey = reg.groups[g][0]
            step = _Step("drop_mips", _group_path(gkey), gkey, "1", saving, "", delta=delta)
        elif kind == "compaction":
            step = _Step("compaction", "", "", "on", saving, "off", estimate=True)
            scene = scene._replace(compaction=0)
        elif kind == "upscaler":
            step = _Step("upscaler", "", "", pick[1], saving, scene.upscaler, estimate=True)
            scene = scene._replace(upscaler=pick[1], rt_bytes=pick[2])
        else:
            assert scene.pool is not None  # the pool step is offered only under streaming
            target = min(scene.pool, scene.floor)
            step = _Step("pool", "", "", str(target), saving, str(scene.pool))
            scene = scene._replace(pool=target)
        self.steps.append(step)
        self.states.append(scene)
        return step

    def _move(self, i: int, c: int, t: int, scene: _Scene) -> tuple[_Delta, _Scene]:
        """Texture ``i`` changes from state ``c`` to ``t``."""
        reg = self.reg
        reg.activate(t)
        self.cls[i] = t
        self._entered(t, i)
        self.count[c] -= 1
        self.count[t] = self.count.get(t, 0) + 1
        df, dfl = reg.dfull[t] - reg.dfull[c], reg.dfloor[t] - reg.dfloor[c]
        groups = {}
        for h in reg.member_groups[i]:
            self.groups.add(h, df, dfl)
            groups[h] = (df, dfl)
        self.moves.append(((i,), {c: t}))
        self.tex_steps += 1
        scene = scene._replace(full=scene.full + reg.alloc[t] - reg.alloc[c], floor=scene.floor + reg.floor[t] - reg.floor[c])
        return _Delta({c: -1, t: 1}, groups), scene

    def _drop_group(self, g: int, scene: _Scene) -> tuple[_Delta, _Scene]:
        """Drop one top level of every member of group ``g`` that has more than one. A role's
        drop moves a third of the textures of the scene and changes every folder that holds
        that role, so the work per member is done by C loops: the members' states are read,
        counted and written back with ``map``, and each other group's change is summed over
        the members it shares with ``g`` (``_Registry.parts``); Python loops go over states
        and groups only."""
        reg, cls = self.reg, self.cls
        members = reg.groups[g][1]  # at least two, in scan order
        before = itemgetter(*members)(cls)
        counted = Counter(before)
        first = dict(zip(reversed(before), reversed(members), strict=True))  # per state, its first member
        # states are registered in the order the members are in (their numbers break ties)
        to: dict[int, int | None] = {c: reg.drop_target(c) for c in counted}  # None: one level left
        d_full: dict[int, int] = {}  # state -> what the drop changes in its group savings
        d_floor: dict[int, int] = {}
        counts: dict[int, int] = {}
        full, floor = scene.full, scene.floor
        for t in to.values():
            if t is not None:
                reg.activate(t)
        for c, n in counted.items():
            t = to[c]
            if t is None:
                d_full[c] = d_floor[c] = 0
                continue
            self._entered(t, first[c])
            counts[c] = counts.get(c, 0) - n
            counts[t] = counts.get(t, 0) + n
            full += n * (reg.alloc[t] - reg.alloc[c])
            floor += n * (reg.floor[t] - reg.floor[c])
            d_full[c], d_floor[c] = reg.dfull[t] - reg.dfull[c], reg.dfloor[t] - reg.dfloor[c]
        changed: dict[int, tuple[int, int]] = {}
        for in_groups, shared in reg.parts(g):
            states = list(map(cls.__getitem__, shared))
            a, b = sum(map(d_full.__getitem__, states)), sum(map(d_floor.__getitem__, states))
            if a or b:
                for h in in_groups:
                    x, y = changed.get(h, (0, 0))
                    changed[h] = (x + a, y + b)
        after = {c: c if t is None else t for c, t in to.items()}
        deque(map(cls.__setitem__, members, map(after.__getitem__, before)), maxlen=0)
        for c, n in counts.items():
            self.count[c] = self.count.get(c, 0) + n
        groups = {h: d for h, d in sorted(changed.items()) if d != (0, 0)}
        for h, (a, b) in groups.items():
            self.groups.full[h] += a
            self.groups.floor[h] += b
        self.groups.resort()
        self.moves.append((members, to))
        self.tex_steps += 1
        return _Delta(counts, groups), scene._replace(full=full, floor=floor)


class _Merged(_Sequence):
    """Without streaming, texture changes and scene-wide ones (compaction, upscaler) do not
    change each other's savings: one texture-only sequence per inputs is shared by every
    scenario, merged here with one scenario's scene-wide steps, the larger saving first."""

    def __init__(self, tex: _LargestFirst, scenario: Scenario, settings: BudgetSettings,
                 rt_bytes: int, compaction: int) -> None:
        self.tex, self.reg, self.scenario, self.settings = tex, tex.reg, scenario, settings
        self.position = 0  # next step of the texture sequence
        self.steps, self.done = [], False
        self.states = [_Scene(0, 0, None, compaction, scenario.upscaler, rt_bytes)]

    def _next(self) -> _Step | None:
        scene = self.states[-1]
        texture_step = self.tex.step(self.position)
        other: tuple[int, str, Any] | None = None
        if scene.compaction > 0:
            other = (scene.compaction, "compaction", None)
        later = _later_upscalers(scene.upscaler, self.settings)
        if later:
            cost = _upscaler_bytes(self.scenario, self.settings, later[0])
            if scene.rt_bytes - cost > 0 and (other is None or scene.rt_bytes - cost > other[0]):
                other = (scene.rt_bytes - cost, "upscaler", (later[0], cost))
        if other is not None and (texture_step is None or other[0] > texture_step.saves):
            saving, kind, payload = other
            if kind == "compaction":
                step = _Step("compaction", "", "", "on", saving, "off", estimate=True)
                scene = scene._replace(compaction=0)
            else:
                step = _Step("upscaler", "", "", payload[0], saving, scene.upscaler, estimate=True)
                scene = scene._replace(upscaler=payload[0], rt_bytes=payload[1])
        elif texture_step is not None:
            self.position += 1
            step = texture_step
        else:
            return None
        self.steps.append(step)
        self.states.append(scene)
        return step


def _sequence(inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
              targets_bytes: int, accel: AccelerationSummary | None) -> _Sequence:
    """The largest-first sequence of a scenario (shared texture part without streaming; with
    streaming, pool and floor couple every change, so each scenario has its own)."""
    compaction = accel.compaction_saves_bytes if accel else 0
    if settings.streaming:
        reg = _registry(inputs, settings, settings.streaming_min_resident_levels)
        start = _Scene(reg.full0, reg.floor0, settings.pool_bytes, compaction, scenario.upscaler, targets_bytes)
        return _LargestFirst(reg, settings, start, scenario, scene=True)
    reg = _registry(inputs, settings, 0)
    cache = inputs._floors
    ck = ("fix-textures", settings.allocation_model, settings.fix_family, settings.fix_min_cap_size, settings.max_fix_steps)
    if ck not in cache:
        cache[ck] = _LargestFirst(reg, settings, _Scene(reg.full0, reg.floor0, None, 0, "", 0))
    return _Merged(cache[ck], scenario, settings, targets_bytes, compaction)


def _cover(seq: _Sequence, scenario: Scenario, R: int, scene: _Scene, count: Callable[[int], int],
           groups: _GroupSavings, tp: int) -> _Step | None:
    """The single change that saves at least ``R`` in this state, or None: of the lowest
    preference tier that has one, the one that saves least (ties: kind order, then scan or
    group order)."""
    reg, settings = seq.reg, seq.settings
    for tier in TIERS:
        best: tuple | None = None  # (saving, kind order, index), what
        pick: tuple = ()
        entries = reg.by_tier[tier]
        for j in range(bisect.bisect_left(entries, (R,)), len(entries)):
            _, ko, cid, ci = entries[j]
            if count(cid) <= 0:
                continue
            cand = reg.cands[cid][ci]
            s = _saving(scene, cand.d_full, cand.d_floor)
            if s >= R and (best is None or (s, ko, cid) < best):
                best, pick = (s, ko, cid), ("texture", cid, cand)
                if scene.pool is None:
                    break  # exact savings are the sort keys: the first that covers is the smallest
        if tier == TIER_NEUTRAL and scene.compaction >= R:
            key = (scene.compaction, _KIND_ORDER["compaction"], 0)
            if best is None or key < best:
                best, pick = key, ("compaction",)
        if tier == TIER_CAP and _pool_saving(scene) >= R:  # the pool goes down exactly as far as needed
            key = (R, _KIND_ORDER["pool"], 0)
            if best is None or key < best:
                best, pick = key, ("pool",)
        if tier == TIER_GROUP:
            group = groups.covering(scene, R)
            if group is not None:
                key = (group[0], _KIND_ORDER["drop_mips"], group[1])
                if best is None or key < best:
                    best, pick = key, ("group", group[1])
        if tier == TIER_UPSCALER:
            for n, preset in enumerate(_later_upscalers(scene.upscaler, settings)):
                s = scene.rt_bytes - _upscaler_bytes(scenario, settings, preset)
                key = (s, _KIND_ORDER["upscaler"], n)
                if s >= R and (best is None or key < best):
                    best, pick = key, ("upscaler", preset)
        if best is None:
            continue
        saving, kind = best[0], pick[0]
        if kind == "texture":
            _, cid, cand = pick
            i = seq.tex.member(cid, tp)
            return _Step(cand.kind, reg.paths[i], "", cand.value, saving, cand.before)
        if kind == "group":
            gkey = reg.groups[pick[1]][0]
            return _Step("drop_mips", _group_path(gkey), gkey, "1", saving, "")
        if kind == "compaction":
            return _Step("compaction", "", "", "on", saving, "off", estimate=True)
        if kind == "pool":
            counted = _counted(scene.full, scene.floor, scene.pool)
            return _Step("pool", "", "", str(counted - R), R, str(scene.pool))
        return _Step("upscaler", "", "", pick[1], saving, scene.upscaler, estimate=True)
    return None


def _steps_for(seq: _Sequence, scenario: Scenario, needs: Mapping[str, int]) -> dict[str, list[_Step]]:
    """Each card's steps (``needs``: card id → bytes it must save): walking the largest-first
    sequence, at every point the smallest single change that covers what the card still
    needs (preferring quality-neutral ones) ends its search; until one does, the largest step
    is taken. All the steps there are when even they are not enough. The cards walk the
    sequence together, so the state after each step is found once for all of them."""
    reg = seq.reg
    base = reg.base_count
    delta: dict[int, int] = {}
    groups = _GroupSavings(reg.group_full0, reg.group_floor0)

    def count(cid: int) -> int:
        return base.get(cid, 0) + delta.get(cid, 0)

    out: dict[str, list[_Step]] = {}
    walking = dict(needs)
    k = tp = saved = 0
    while walking:
        for card, need in list(walking.items()):
            if k >= seq.settings.max_fix_steps or saved >= need:
                out[card] = seq.steps[:k]
                del walking[card]
                continue
            cover = _cover(seq, scenario, need - saved, seq.states[k], count, groups, tp)
            if cover is not None:
                out[card] = [*seq.steps[:k], cover]
                del walking[card]
        step = seq.step(k) if walking else None
        if step is None:
            out.update((card, seq.steps[:k]) for card in walking)
            break
        if step.delta is not None:
            for c, n in step.delta.counts.items():
                delta[c] = delta.get(c, 0) + n
            groups.apply(step.delta.groups)
            tp += 1
        saved += step.saves
        k += 1
    return {card: out[card] for card in needs}


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


def _card_fixes(inputs: BudgetInputs, scenario: Scenario, settings: BudgetSettings,
               needs: Mapping[str, int], targets_bytes: int | None = None,
               accel: AccelerationSummary | None = None) -> dict[str, list[Fix]]:
    """The fixes for each card of ``needs`` (card id → bytes it must save); what ``assess``
    attaches to a scenario. ``targets_bytes`` None = priced here."""
    if targets_bytes is None:
        targets_bytes = _targets(scenario, settings).total_bytes
    seq = _sequence(inputs, scenario, settings, targets_bytes, accel)
    return {card: _merge(card, steps) for card, steps in _steps_for(seq, scenario, needs).items()}


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
                if formats.find(live[i].plan.gpu_format) is not None:  # an unknown format is never re-priced
                    changed[i] = apply_change(changed.get(i, live[i].plan), "drop_mips", fix.value)
        elif fix.kind == "compaction":
            a = accel[scenario.rt]
            saves = a.compaction_saves_bytes
            accel[scenario.rt] = replace(a, blas_bytes=a.blas_bytes - saves, total_bytes=a.total_bytes - saves)
        elif fix.kind == "upscaler":
            scale = upscaler_scale(fix.value)
            rw, rh = render_size(scenario.width, scenario.height, scale)
            scenario = evolve(scenario, upscaler=fix.value, render_scale=scale, render_width=rw, render_height=rh)
            settings = replace(settings, upscaler=fix.value)
        elif fix.kind == "pool":
            settings = replace(settings, streaming_pool_bytes=int(fix.value))
        else:
            raise ValueError(f"unknown fix kind {fix.kind!r}")
    model = settings.allocation_model
    textures = tuple(price_plan(changed[i], model) if i in changed else c for i, c in enumerate(live))
    return replace(inputs, textures=textures, acceleration=accel), scenario, settings
