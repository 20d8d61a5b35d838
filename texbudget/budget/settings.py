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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from texbudget.budget.cards import (
    DEFAULT_CARDS,
    DEFAULT_HEADROOM_FRACTION,
    DEFAULT_RESERVE_FRACTION,
    DEFAULT_RESERVE_MIN_BYTES,
    Card,
    resolve_cards,
)
from texbudget.model import Scenario
from texbudget.sizing.targets import render_size, upscaler_scale
from texbudget.units import MIB, parse_resolution

if TYPE_CHECKING:
    from texbudget.config import BudgetSection

DEFAULT_RESOLUTIONS: tuple[str, ...] = ("1920x1080", "2560x1440", "3840x2160")

# UE's r.Streaming.PoolSize at sg.TextureQuality 3 (Epic) is 1000 MB (spec/textures.md §6).
DEFAULT_STREAMING_POOL_BYTES = 1000 * MIB
# UE3's MinTextureResidentMipCount (spec/textures.md §6): the always-resident tail.
DEFAULT_MIN_RESIDENT_LEVELS = 7

FIX_FORMATS = ("bc", "astc", "etc2")


# --- settings ---------------------------------------------------------------------------------


class BudgetSettings(msgspec.Struct, frozen=True):
    """How the budget is judged. Field names follow the ``[budget]`` config keys (DESIGN.md
    §6) with units added: ``reserve`` → ``reserve_fraction``, ``reserve_min`` →
    ``reserve_min_bytes``, ``headroom`` → ``headroom_fraction``, ``allocation`` →
    ``allocation_model``, ``streaming_pool`` → ``streaming_pool_bytes``; ``settings_from_config``
    maps a ``[budget]`` section. A plain record: the values a user gives are checked once,
    where they are read (``config``: the file's keys and the flags that override them); the
    other fields are set by the code (the fix search, the tests)."""

    cards: tuple[str, ...] = DEFAULT_CARDS
    resolutions: tuple[str, ...] = DEFAULT_RESOLUTIONS  # "1920x1080", "2560x1080", …
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


def settings_from_config(section: BudgetSection, **overrides: Any) -> BudgetSettings:
    """``BudgetSettings`` from a ``[budget]`` section (config keys → field names; keys the
    budget does not use, e.g. ``high_quality``, are left to their owners); ``overrides``
    (field names) win, e.g. CLI flags. Both are checked already (``config``)."""
    values = {name: getattr(section, key) for key, name in _CONFIG_KEYS.items() if getattr(section, key) is not None}
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
