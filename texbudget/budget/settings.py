"""How the budget is judged: ``BudgetSettings`` (the ``[budget]`` config, DESIGN.md §6),
``settings_from_config``, and the scenarios a settings object asks for.

RT and mixed card lists: when ``rt`` is not set, each named card brings its RT vendor. The
scenarios get one RT setting per vendor present among the named cards ("off" when only generic
classes are listed), and in a vendor's scenario only that vendor's cards and the generic
classes are judged (an AMD card is never priced with NVIDIA's BVH). When ``rt`` is set, every
card is judged in every scenario. The platform picks the fixes' compression family
(``BudgetSettings.fix_family``; ``data/platforms.toml``, read once).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from texbudget.budget.cards import (
    DEFAULT_CARDS,
    DEFAULT_HEADROOM_FRACTION,
    DEFAULT_RESERVE_FRACTION,
    DEFAULT_RESERVE_MIN_BYTES,
    Card,
    resolve_cards,
)
from texbudget.model import Scenario
from texbudget.sizing.targets import load_presets, render_size, upscaler_scale
from texbudget.units import MIB, parse_resolution

DEFAULT_RESOLUTIONS: tuple[str, ...] = ("1920x1080", "2560x1440", "3840x2160")

# UE's r.Streaming.PoolSize at sg.TextureQuality 3 (Epic) is 1000 MB (spec/textures.md §6).
DEFAULT_STREAMING_POOL_BYTES = 1000 * MIB
# UE3's MinTextureResidentMipCount (spec/textures.md §6): the always-resident tail.
DEFAULT_MIN_RESIDENT_LEVELS = 7

RENDERERS = ("deferred", "forward")
SHADOWS = ("csm", "vsm", "none")
ALLOCATION_MODELS = ("d3d12", "none")
FIX_FORMATS = ("bc", "astc", "etc2")


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
    from texbudget.policy.profiles import load_platforms

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
