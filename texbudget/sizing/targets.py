"""Render targets per resolution: GBuffer, depth, HZB, history, post, swapchain, shadows, RT
extras and upscaler working sets (spec/textures.md §5).

The presets are data (``texbudget/data/render_targets.toml``), read once and cached. Pricing is
pure: ``price_targets(preset, output_w, output_h, ...)`` returns a ``TargetsCost`` whose rows hold
the exact content bytes of each target (block formula, ``sizing.textures``), the D3D12-aligned
allocation, and the per-surface metadata overhead of §3.4 kept apart as an estimate; the
upscaler working set (§5.2) is its own estimated row.

Resolutions: render-resolution targets are sized ``round(output × render_scale)`` per side
(half up; 4K at quality 2/3 renders 2560x1440); history, post chain and swapchain follow the
output resolution. When an upscaler other than ``native`` runs, its working set replaces the
TAA history (targets marked ``when = "native"``): FSR/DLSS/XeSS keep their own history.
"""

from __future__ import annotations

import math
import tomllib
from fractions import Fraction
from functools import cache, lru_cache
from importlib import resources

import msgspec

from texbudget import formats
from texbudget.sizing.textures import allocated_bytes, mip_chain

RELATIVE_TO = ("render", "output", "fixed")
WHEN = ("always", "msaa", "native")
MIP0 = ("scaled", "hzb")
MSAA_SAMPLES = (1, 2, 4, 8)


class RenderTarget(msgspec.Struct, frozen=True):
    """One render target (or ``count`` identical ones) of a preset, as the data file says."""

    name: str
    format: str  # canonical texbudget.formats name
    relative_to: str  # "render", "output" or "fixed"
    scale: float = 1.0  # per side, of the resolution it is relative to
    count: int = 1
    mips: int | None = 1  # None = full chain
    mip0: str = "scaled"  # "scaled" or "hzb" (next_pow2(dim) / 2 per side)
    msaa: bool = False  # samples follow the msaa setting
    when: str = "always"  # "always", "msaa", "native"
    width: int = 0  # "fixed" targets only
    height: int = 0
    estimate: bool = False
    source: str = ""


class TargetSet(msgspec.Struct, frozen=True):
    """A named group of targets: a renderer preset, a shadow option or the RT extras."""

    name: str
    description: str
    source: str
    targets: tuple[RenderTarget, ...]


class Upscaler(msgspec.Struct, frozen=True):
    name: str
    scale: float  # render side / output side
    description: str


class WorkingSetProfile(msgspec.Struct, frozen=True):
    """Published upscaler working sets: (width, height, bytes) points. Estimate."""

    name: str
    description: str
    source: str
    points: tuple[tuple[int, int, int], ...]


class TargetPresets(msgspec.Struct, frozen=True):
    """Everything ``render_targets.toml`` holds."""

    presets: dict[str, TargetSet]
    shadows: dict[str, TargetSet]
    rt: TargetSet
    upscalers: dict[str, Upscaler]
    working_sets: dict[str, WorkingSetProfile]
    overhead_fraction: float


class TargetCost(msgspec.Struct, frozen=True):
    """One priced row: ``count`` surfaces of ``width`` x ``height`` (mip 0), ``levels`` levels."""

    name: str
    group: str  # "renderer", "shadows", "rt", "upscaler"
    format: str  # "" for the upscaler working set
    relative_to: str
    width: int
    height: int
    levels: int
    count: int
    samples: int
    content_bytes: int  # exact: every level, sample and surface
    allocated_bytes: int  # D3D12 placement alignment per surface (estimate of the driver)
    overhead_bytes: int  # §3.4 metadata overhead (estimate)
    estimate: bool
    source: str

    @property
    def total_bytes(self) -> int:
        return self.allocated_bytes + self.overhead_bytes


class TargetsCost(msgspec.Struct, frozen=True):
    """The render targets of one scenario. ``total_bytes`` = allocated + overhead + upscaler
    working set; ``content_bytes`` is the exact texel sum of the targets alone."""

    preset: str
    output_width: int
    output_height: int
    render_width: int
    render_height: int
    render_scale: float
    upscaler: str
    shadows: str
    rt: bool
    msaa: int
    rows: tuple[TargetCost, ...]
    content_bytes: int
    allocated_bytes: int
    overhead_bytes: int  # estimate (§3.4)
    working_set_bytes: int  # upscaler working set, estimate (§5.2)
    total_bytes: int
    overhead_fraction: float
    notes: tuple[str, ...] = ()


# --- loading -----------------------------------------------------------------------------


def _fraction(text: object, where: str) -> float:
    try:
        value = float(Fraction(str(text)))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"render_targets.toml: {where}: {text!r} is not a number or fraction") from None
    if not 0 < value <= 4:
        raise ValueError(f"render_targets.toml: {where}: {text!r} must be in (0, 4]")
    return value


def _target(raw: dict, where: str) -> RenderTarget:
    known = {"name", "format", "relative_to", "scale", "count", "mips", "mip0", "msaa", "when",
             "width", "height", "estimate", "source"}
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"render_targets.toml: {where}: unknown key {sorted(unknown)[0]!r}")
    name = raw["name"]
    fmt = formats.find(raw["format"])
    if fmt is None or fmt.name != raw["format"]:
        raise ValueError(f"render_targets.toml: {where} {name!r}: format {raw['format']!r} is not a canonical format name")
    rel = raw.get("relative_to", "render")
    if rel not in RELATIVE_TO:
        raise ValueError(f"render_targets.toml: {where} {name!r}: relative_to {rel!r}; allowed: {', '.join(RELATIVE_TO)}")
    mips = raw.get("mips", 1)
    if mips == "full":
        mips = None
    elif not isinstance(mips, int) or mips < 1:
        raise ValueError(f"render_targets.toml: {where} {name!r}: mips {mips!r} must be a whole number >= 1 or \"full\"")
    target = RenderTarget(
        name=name, format=fmt.name, relative_to=rel,
        scale=_fraction(raw.get("scale", 1), f"{where} {name!r} scale"),
        count=int(raw.get("count", 1)), mips=mips, mip0=raw.get("mip0", "scaled"),
        msaa=bool(raw.get("msaa", False)), when=raw.get("when", "always"),
        width=int(raw.get("width", 0)), height=int(raw.get("height", 0)),
        estimate=bool(raw.get("estimate", False)), source=str(raw.get("source", "")),
    )
    if target.when not in WHEN or target.mip0 not in MIP0 or target.count < 1:
        raise ValueError(f"render_targets.toml: {where} {name!r}: bad when/mip0/count")
    if rel == "fixed" and (target.width < 1 or target.height < 1):
        raise ValueError(f"render_targets.toml: {where} {name!r}: a fixed target needs width and height")
    return target


def _set(name: str, raw: dict, where: str) -> TargetSet:
    return TargetSet(
        name=name, description=str(raw.get("description", "")), source=str(raw.get("source", "")),
        targets=tuple(_target(t, f"{where}.{name}") for t in raw.get("targets", ())),
    )


def parse_presets(text: str) -> TargetPresets:
    """Parse and check a render-target data file (``load_presets`` reads the shipped one)."""
    data = tomllib.loads(text)
    upscalers = {
        n: Upscaler(n, _fraction(u["scale"], f"upscalers.{n}.scale"), str(u.get("description", "")))
        for n, u in data["upscalers"].items()
    }
    working_sets = {
        n: WorkingSetProfile(
            n, str(w.get("description", "")), str(w.get("source", "")),
            tuple((int(p["width"]), int(p["height"]), int(p["bytes"])) for p in w["points"]),
        )
        for n, w in data["working_sets"].items()
    }
    overhead = float(data.get("overhead_fraction", 0.0))
    if not 0 <= overhead < 1:
        raise ValueError(f"render_targets.toml: overhead_fraction {overhead} must be in [0, 1)")
    return TargetPresets(
        presets={n: _set(n, p, "presets") for n, p in data["presets"].items()},
        shadows={n: _set(n, s, "shadows") for n, s in data["shadows"].items()},
        rt=_set("rt", data["rt"], ""),
        upscalers=upscalers,
        working_sets=working_sets,
        overhead_fraction=overhead,
    )


@cache
def load_presets() -> TargetPresets:
    """The shipped presets, read once per process."""
    text = resources.files("texbudget.data").joinpath("render_targets.toml").read_text(encoding="utf-8")
    return parse_presets(text)


# --- pricing -----------------------------------------------------------------------------


def scaled(dim: int, scale: float) -> int:
    """``round(dim × scale)``, half up, at least 1. The scale is read as the nearest simple
    fraction (2/3 stays 2/3), so 3840 × 2/3 is exactly 2560."""
    return max(1, _share(dim, _simple(scale)))


@lru_cache(maxsize=256)
def _simple(scale: float) -> Fraction:
    """The nearest fraction to ``scale`` with a denominator up to 10,000 (a handful of scales
    price every target)."""
    return Fraction(scale).limit_denominator(10_000)


def render_size(output_w: int, output_h: int, render_scale: float) -> tuple[int, int]:
    """Render resolution for an output resolution and a render scale (4K at 2/3 -> 2560x1440)."""
    return scaled(output_w, render_scale), scaled(output_h, render_scale)


def hzb_size(width: int, height: int) -> tuple[int, int]:
    """UE's HZB mip 0: next power of two of each side of the view, halved (§5.1)."""
    def side(n: int) -> int:
        return max(1, (1 << max(0, (n - 1).bit_length())) // 2)
    return side(width), side(height)


def working_set_bytes(profile: WorkingSetProfile, output_w: int, output_h: int) -> int:
    """The published working set at the nearest published output resolution, scaled by output
    pixel count (exact at a published point). Estimate."""
    pixels = output_w * output_h
    pw, ph, b = min(profile.points, key=lambda p: (abs(math.log(p[0] * p[1] / pixels)), -p[0] * p[1]))
    return b * pixels // (pw * ph)


def _share(n: int, fraction: Fraction) -> int:
    """``n × fraction`` rounded half up: floor(n·p/q + 1/2) = (2·n·p + q) // 2q, in integers
    (Fraction arithmetic made pricing the targets a few times slower)."""
    p, q = fraction.numerator, fraction.denominator
    return (2 * n * p + q) // (2 * q)


def upscaler_scale(upscaler: str) -> float:
    presets = load_presets()
    if upscaler not in presets.upscalers:
        raise ValueError(f"unknown upscaler {upscaler!r}; allowed: {', '.join(presets.upscalers)}")
    return presets.upscalers[upscaler].scale


def price_targets(
    preset: str, output_w: int, output_h: int, *, render_scale: float | None = None,
    rt: bool = False, upscaler: str = "native", shadows: str = "csm", msaa: int = 1,
    overhead_fraction: float | None = None, upscaler_profile: str = "fsr3",
    allocation_model: str = "d3d12",
) -> TargetsCost:
    """Price every render target of ``preset`` at an output resolution.

    ``render_scale`` None = the upscaler's scale; a number overrides it (a custom screen
    percentage). ``rt`` adds the RT extras; ``shadows`` is "csm", "vsm" or "none"; ``msaa``
    (1, 2, 4, 8) applies to targets marked ``msaa`` (the forward preset). ``overhead_fraction``
    None = the data file's §3.4 default (0.03). Cached: the same arguments return the same
    object, so the TUI re-prices for free."""
    return _price(preset, output_w, output_h, render_scale, rt, upscaler, shadows, msaa,
                  overhead_fraction, upscaler_profile, allocation_model)


@lru_cache(maxsize=1024)
def _price(
    preset: str, output_w: int, output_h: int, render_scale: float | None, rt: bool,
    upscaler: str, shadows: str, msaa: int, overhead_fraction: float | None,
    upscaler_profile: str, allocation_model: str,
) -> TargetsCost:
    data = load_presets()
    if preset not in data.presets:
        raise ValueError(f"unknown renderer preset {preset!r}; allowed: {', '.join(data.presets)}")
    if shadows not in data.shadows:
        raise ValueError(f"unknown shadows {shadows!r}; allowed: {', '.join(data.shadows)}")
    if msaa not in MSAA_SAMPLES:
        raise ValueError(f"msaa {msaa!r}: allowed {', '.join(map(str, MSAA_SAMPLES))}")
    if output_w < 1 or output_h < 1:
        raise ValueError(f"output resolution {output_w}x{output_h} must be at least 1x1")
    scale = upscaler_scale(upscaler) if render_scale is None else float(render_scale)
    if not 0 < scale <= 4:
        raise ValueError(f"render scale {scale} must be in (0, 4]")
    fraction = data.overhead_fraction if overhead_fraction is None else overhead_fraction
    if not 0 <= fraction < 1:
        raise ValueError(f"render-target overhead {fraction} must be in [0, 1)")
    exact_fraction = Fraction(str(fraction))
    render_w, render_h = render_size(output_w, output_h, scale)
    notes: list[str] = []

    groups: list[tuple[str, TargetSet]] = [("renderer", data.presets[preset]), ("shadows", data.shadows[shadows])]
    if rt:
        groups.append(("rt", data.rt))
    if msaa > 1 and not any(t.msaa for t in data.presets[preset].targets):
        notes.append(f"msaa {msaa} ignored: the {preset} preset has no MSAA targets")

    rows: list[TargetCost] = []
    for group, tset in groups:
        for t in tset.targets:
            if (t.when == "msaa" and msaa == 1) or (t.when == "native" and upscaler != "native"):
                continue
            if t.relative_to == "fixed":
                w, h = t.width, t.height
            else:
                bw, bh = (render_w, render_h) if t.relative_to == "render" else (output_w, output_h)
                w, h = hzb_size(bw, bh) if t.mip0 == "hzb" else (scaled(bw, t.scale), scaled(bh, t.scale))
            fmt = formats.get(t.format)
            samples = msaa if t.msaa else 1
            levels = mip_chain(fmt, w, h, 1, t.mips)
            one = sum(m.bytes for m in levels) * samples
            one_alloc = allocated_bytes(fmt, w, h, 1, one, model=allocation_model, samples=samples, render_target=True)
            content = one * t.count
            rows.append(TargetCost(
                name=t.name, group=group, format=t.format, relative_to=t.relative_to,
                width=w, height=h, levels=len(levels), count=t.count, samples=samples,
                content_bytes=content, allocated_bytes=one_alloc * t.count,
                overhead_bytes=_share(content, exact_fraction),
                estimate=t.estimate, source=t.source,
            ))

    ws = 0
    if upscaler != "native":
        if upscaler_profile not in data.working_sets:
            raise ValueError(f"unknown upscaler profile {upscaler_profile!r}; allowed: {', '.join(data.working_sets)}")
        profile = data.working_sets[upscaler_profile]
        ws = working_set_bytes(profile, output_w, output_h)
        rows.append(TargetCost(
            name=f"Upscaler working set ({profile.name}, {upscaler})", group="upscaler", format="",
            relative_to="output", width=output_w, height=output_h, levels=1, count=1, samples=1,
            content_bytes=ws, allocated_bytes=ws, overhead_bytes=0, estimate=True,
            source=profile.source,
        ))

    content_total = sum(r.content_bytes for r in rows if r.group != "upscaler")
    allocated_total = sum(r.allocated_bytes for r in rows if r.group != "upscaler")
    overhead_total = sum(r.overhead_bytes for r in rows)
    return TargetsCost(
        preset=preset, output_width=output_w, output_height=output_h,
        render_width=render_w, render_height=render_h, render_scale=scale, upscaler=upscaler,
        shadows=shadows, rt=rt, msaa=msaa, rows=tuple(rows), content_bytes=content_total,
        allocated_bytes=allocated_total, overhead_bytes=overhead_total, working_set_bytes=ws,
        total_bytes=allocated_total + overhead_total + ws, overhead_fraction=fraction,
        notes=tuple(notes),
    )
