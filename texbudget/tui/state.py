"""What the artist switched: the TUI's settings on top of the ones it started with.

Pure and Textual-free. ``Choices`` holds the overrides the keys set (platform, quality,
resolutions, RT, card set, upscaler); ``apply`` turns the starting ``Settings`` plus the
choices plus extra rules (what-ifs, rules just written) into the ``Settings`` that
``pipeline.evaluate`` gets. ``options_*`` list what each picker offers, the current value
first-class marked by the screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from texbudget.budget.cards import DEFAULT_CARDS, load_cards
from texbudget.model import evolve
from texbudget.pipeline import Settings
from texbudget.policy.profiles import QUALITY_TIERS, load_platforms
from texbudget.policy.rules import Rule
from texbudget.units import RESOLUTIONS, parse_resolution

if TYPE_CHECKING:
    from texbudget.levels.reports import LevelSet
    from texbudget.scan.scene import Scan

#: The settings keys of ``BudgetSettings`` the TUI switches.
KEYS = ("resolutions", "quality", "rt", "platform", "cards", "upscaler")

#: The RT vendors a picker offers (BVH profiles; DESIGN.md §4 ``--rt``).
RT_VENDORS = ("nvidia", "amd", "intel")

_SHORT = {v: k for k, v in RESOLUTIONS.items() if k not in ("2160p",)}


@dataclass(frozen=True)
class Option:
    """One line of a picker: what it says and the value it sets (``configured`` = drop the
    override and use the starting settings)."""

    label: str
    value: Any = None
    configured: bool = False


@dataclass(frozen=True)
class Choices:
    """Overrides of ``BudgetSettings`` fields (``KEYS``); a key that is absent keeps the
    starting value. Immutable: every switch makes a new one."""

    overrides: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def set(self, key: str, value: Any, configured: bool = False) -> Choices:
        if key not in KEYS:
            raise KeyError(key)
        new = dict(self.overrides)
        if configured:
            new.pop(key, None)
        else:
            new[key] = value
        return Choices(MappingProxyType(new))


def apply(base: Settings, choices: Choices, extra_rules: Sequence[Rule] = ()) -> Settings:
    """The starting settings with the choices and ``extra_rules`` (appended, so they win)."""
    changes = dict(choices.overrides)
    bsettings = evolve(base.budget, **changes) if changes else base.budget
    psettings = base.policy
    if psettings.platform != bsettings.platform or psettings.quality != bsettings.quality[0]:
        psettings = evolve(psettings, platform=bsettings.platform, quality=bsettings.quality[0])
    return evolve(base, budget=bsettings, policy=psettings, rules=tuple(base.rules) + tuple(extra_rules))


def short_resolution(res: str) -> str:
    """``1920x1080`` -> ``1080p``; other sizes stay ``WxH``."""
    try:
        size = parse_resolution(res)
    except ValueError:
        return res
    return _SHORT.get(size, f"{size[0]}x{size[1]}")


def _res(names: Sequence[str]) -> tuple[str, ...]:
    return tuple("{}x{}".format(*parse_resolution(n)) for n in names)


def options_resolutions(base: Settings) -> tuple[Option, ...]:
    configured = base.budget.resolutions
    out = [Option("as configured: " + ", ".join(short_resolution(r) for r in configured), configured, True)]
    for name in ("1080p", "1440p", "4k"):
        out.append(Option(name, _res([name])))
    out.append(Option("1080p, 1440p, 4k", _res(["1080p", "1440p", "4k"])))
    out.append(Option("720p", _res(["720p"])))
    out.append(Option("8k", _res(["8k"])))
    return tuple(out)


def options_quality(base: Settings) -> tuple[Option, ...]:
    configured = base.budget.quality
    out = [Option("as configured: " + ", ".join(configured), configured, True)]
    out += [Option(q, (q,)) for q in QUALITY_TIERS]
    out.append(Option("every tier: " + ", ".join(QUALITY_TIERS), tuple(QUALITY_TIERS)))
    return tuple(out)


def rt_label(rt: Sequence[str] | None) -> str:
    return "each card's own" if rt is None else ", ".join(rt)


def options_rt(base: Settings) -> tuple[Option, ...]:
    out = [Option("as configured: " + rt_label(base.budget.rt), base.budget.rt, True)]
    out.append(Option("off", ("off",)))
    out += [Option(v, (v,)) for v in RT_VENDORS]
    out.append(Option("off and " + ", ".join(RT_VENDORS), ("off", *RT_VENDORS)))
    out.append(Option("each card's own vendor", None))
    return tuple(out)


def options_platform(base: Settings) -> tuple[Option, ...]:
    configured = base.budget.platform
    out = [Option(f"as configured: {configured}", configured, True)]
    out += [Option(name, name) for name in load_platforms()]
    return tuple(out)


def options_cards(base: Settings) -> tuple[Option, ...]:
    configured = tuple(base.budget.cards)
    cards = load_cards()
    out = [Option("as configured: " + ", ".join(configured), configured, True)]
    out.append(Option("8GB, 12GB, 16GB, 24GB", DEFAULT_CARDS))
    generic = tuple(c.id for c in cards if c.kind == "generic")
    out.append(Option("every VRAM class: " + ", ".join(generic), generic))
    series: dict[str, list[str]] = {}
    for c in cards:
        if c.kind == "card":
            series.setdefault(f"{c.vendor.upper() if c.vendor else ''} {c.series}".strip(), []).append(c.id)
    for name, ids in series.items():
        out.append(Option(f"{name} ({len(ids)} cards)", tuple(ids)))
    platforms = tuple(c.id for c in cards if c.kind == "platform")
    if platforms:
        out.append(Option("consoles: " + ", ".join(platforms), platforms))
    return tuple(out)


def options_upscaler(base: Settings) -> tuple[Option, ...]:
    from texbudget.sizing.targets import load_presets

    configured = base.budget.upscaler
    out = [Option(f"as configured: {configured}", configured, True)]
    out += [Option(name, name) for name in load_presets().upscalers]
    return tuple(out)


#: key -> (picker title, options function)
PICKERS = {
    "resolutions": ("Resolutions", options_resolutions),
    "quality": ("Quality tier", options_quality),
    "rt": ("Ray tracing", options_rt),
    "platform": ("Platform", options_platform),
    "cards": ("Card set", options_cards),
    "upscaler": ("Upscaler", options_upscaler),
}


def current_index(options: Sequence[Option], choices: Choices, key: str) -> int:
    """Which option is in force: the override's value, else the "as configured" line."""
    if key not in choices.overrides:
        return 0
    value = choices.overrides[key]
    for i, opt in enumerate(options):
        if not opt.configured and opt.value == value:
            return i
    return 0


# --- levels ----------------------------------------------------------------------------------


class LevelLabel(NamedTuple):
    """Which level a report is of, for the settings bar: ``name`` "" is the whole scan."""

    name: str
    scene: str


#: ``LevelSet.source`` as the level picker says it
LEVEL_SOURCES = {"config": "[[level]]", "auto": "found", "path": "named"}


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" if n == 1 else f"{n:,} {what}{'es' if what.endswith('sh') else 's'}"


def options_levels(sets: Sequence[LevelSet], whole: Scan) -> tuple[Option, ...]:
    """The level picker: the whole scan first, then each set's levels in order (``[[level]]``,
    found in the project, named on the command line), each with what it loads. An option's
    value is (source, name); the whole scan's None."""
    out = [Option(f"whole scan: {_count(len(whole.textures), 'texture')}, {_count(len(whole.meshes), 'mesh')}", None)]
    for levels in sets:
        for lv in levels.levels:
            shown = f"{_count(len(lv.textures), 'texture')}, {_count(len(lv.meshes), 'mesh')}"
            if lv.meshes:
                shown += f" ({_count(sum(lv.meshes.values()), 'instance')})"
            out.append(Option(f"{lv.name}: {lv.scene} · {shown} · {LEVEL_SOURCES[levels.source]}", (levels.source, lv.name)))
    return tuple(out)


def current_index_of(options: Sequence[Option], value: Any) -> int:
    """The option whose value is ``value``; the first when none is."""
    return next((i for i, o in enumerate(options) if o.value == value), 0)
