"""What else one texture could be: a table of formats × max sizes, each priced exactly.

``alternatives(plan, facts)`` answers "what would this texture cost as BC7 at 2048, as BC1 at
1024, …" for ``texbudget explain`` and the TUI's asset screen. Every row is a modified
``TexturePlan`` (``msgspec.structs.replace``) priced by ``policy.decision.price``, the same function the
scan uses, so a row's bytes are exactly what the scan would report after that change.

Rules of the table (written down in docs, tested in tests/unit/test_alternatives.py):

- **Formats** come from the platform family and the texture's role, channels and alpha:
  desktop (``bc`` and the ``uncompressed`` reference): BC1/BC3 (alpha) / BC4 (one channel) /
  BC5 (normals) / BC6H (HDR) / BC7, and the uncompressed RGBA8 (R8 for one channel, RGBA16F
  for HDR); ``astc``: ASTC 4x4, 5x5, 6x6 and 8x8 blocks, ETC2 / EAC and RGBA8; ``etc2``: ETC2
  / EAC and RGBA8. Colour formats keep the current format's sRGB-ness. The current format is
  always in the table.
- **Sizes**: the full size (``max_size`` None), then every power of two below it down to 256
  (``max_size`` 2048, 1024, …, 256). A cap drops top mip levels until the longest side fits,
  as a ``[[rule]] max_size`` does. The full size is the file's size, so a texture capped today
  also shows what the cap saves.
- **Mips**: a full chain from the capped size, unless the current plan has no mips by choice
  (``mips = "none"``: UI, a rule, an engine setting), which the alternatives keep. A stored
  file without mips (``mips = "stored"``, one level) is shown with a full chain, which is
  what adding mips costs.
- The quality tier's mip drop of the current plan is kept (none at ``ultra``).
- ``saves_bytes`` is the current plan's **allocated** bytes minus the row's (what the budget
  counts); negative when the row costs more. The current plan is one row, marked
  ``current``, with ``saves_bytes`` 0.
- Rows are sorted by ``gpu_bytes`` (content bytes), then allocated bytes, format, size.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from texbudget import formats
from texbudget.budget.settings import fix_family_for
from texbudget.model import TextureFacts, TexturePlan
from texbudget.policy.decision import price
from texbudget.policy.profiles import COLOUR_ROLES, load_platforms
from texbudget.sizing import textures as sizing

#: The smallest max_size offered.
MIN_SIZE = 256

#: ASTC block sizes offered on ASTC platforms (the presets engines use: Unity HQ 4x4,
#: normal 6x6, LQ 8x8; Godot 4x4/6x6/8x8).
ASTC_BLOCKS = ("4x4", "5x5", "6x6", "8x8")

#: Platform names that are not profiles but are accepted as shorthands.
_SHORTHANDS = {"desktop": "bc", "mobile": "astc"}


class Alternative(msgspec.Struct, frozen=True):
    """One cell of the formats × max sizes table. ``width``/``height``/``levels`` are after
    the cap (before the quality tier's drop); ``gpu_bytes`` content bytes and
    ``allocated_bytes`` after the allocation model, both after the tier drop;
    ``saves_bytes`` = current allocated − this row's allocated (negative: costs more)."""

    gpu_format: str
    max_size: int | None
    mips: bool
    width: int
    height: int
    levels: int
    gpu_bytes: int
    allocated_bytes: int
    saves_bytes: int
    current: bool
    depth: int = 1


def platform_family(platform: str) -> str:
    """"bc", "astc" or "etc2" for a platform profile name (or "desktop" / "mobile"): a profile's
    as the fix search takes it (``budget.settings.fix_family_for``); another name is refused here."""
    profiles = load_platforms()
    if platform in profiles:
        return fix_family_for(platform)
    if platform in _SHORTHANDS:
        return _SHORTHANDS[platform]
    raise ValueError(f"unknown platform {platform!r}; allowed: {', '.join([*profiles, *_SHORTHANDS])}")


def _kind(plan: TexturePlan, facts: TextureFacts) -> str:
    """"hdr", "normal", "single" or "colour" (RGB/RGBA data: albedo, emissive, mask, ui)."""
    current = formats.find(plan.gpu_format)
    if plan.role == "hdr" or facts.hdr or (current is not None and current.hdr):
        return "hdr"
    if plan.role == "normal":
        return "normal"
    if plan.role in ("single", "height") or facts.channels == 1:
        return "single"
    return "colour"


def candidate_formats(plan: TexturePlan, facts: TextureFacts, platform: str = "desktop") -> tuple[str, ...]:
    """The formats the table offers for this texture on ``platform``, current format first."""
    family = platform_family(platform)
    current = formats.find(plan.gpu_format)
    srgb = current.srgb if current is not None else plan.role in COLOUR_ROLES
    signed = current is not None and current.signed
    alpha = facts.alpha
    kind = _kind(plan, facts)

    def twin(name: str) -> str:
        return formats.with_srgb(formats.get(name), srgb).name

    names: list[str]
    if family == "bc":
        if kind == "hdr":
            names = ["BC6H_SFLOAT" if signed else "BC6H_UFLOAT", "R16G16B16A16_SFLOAT"]
        elif kind == "normal":
            names = ["BC5_UNORM", "BC7_UNORM", "R8G8B8A8_UNORM"]
        elif kind == "single":
            names = ["BC4_UNORM", "R8_UNORM"]
        else:
            names = [twin("BC3_UNORM" if alpha else "BC1_RGB_UNORM"), twin("BC7_UNORM"), twin("R8G8B8A8_UNORM")]
    else:
        etc = {
            "hdr": [],
            "normal": ["EAC_R11G11_UNORM"],
            "single": ["EAC_R11_UNORM"],
            "colour": [twin("ETC2_R8G8B8A8_UNORM" if alpha else "ETC2_R8G8B8_UNORM")],
        }[kind]
        astc: list[str] = []
        if family == "astc":
            if kind == "hdr":
                astc = [f"ASTC_{b}_SFLOAT" for b in ASTC_BLOCKS]
            elif kind == "colour":
                astc = [twin(f"ASTC_{b}_UNORM") for b in ASTC_BLOCKS]
            else:
                astc = [f"ASTC_{b}_UNORM" for b in ASTC_BLOCKS]
        plain = {"hdr": "R16G16B16A16_SFLOAT", "single": "R8_UNORM", "normal": "R8G8B8A8_UNORM",
                 "colour": twin("R8G8B8A8_UNORM")}[kind]
        names = [*astc, *etc, plain]
    out = [plan.gpu_format] if current is not None else []
    out += [n for n in names if n not in out]
    return tuple(out)


def _full_shape(plan: TexturePlan, facts: TextureFacts) -> tuple[int, int, int]:
    """The largest size the table starts from: the file's size when the plan keeps the file's
    faces and layers and is no larger than it (a cap or none), else the plan's own size
    (an engine that slices an image into an array or a cubemap)."""
    same_images = (plan.faces, plan.layers) == (facts.faces, facts.layers)
    fits = plan.width <= facts.width and plan.height <= facts.height and plan.depth <= max(1, facts.depth)
    if same_images and fits:
        return facts.width, facts.height, max(1, facts.depth)
    return plan.width, plan.height, plan.depth


def max_sizes(longest: int) -> tuple[int | None, ...]:
    """None (the full size), then each power of two below ``longest`` down to MIN_SIZE."""
    out: list[int | None] = [None]
    size = 1 << (max(1, longest) - 1).bit_length()  # smallest power of two >= longest
    size //= 2
    while size >= MIN_SIZE and size < longest:
        out.append(size)
        size //= 2
    return tuple(out)


def _variant(plan: TexturePlan, fmt: str, shape: tuple[int, int, int], max_size: int | None, mips: bool) -> TexturePlan:
    w, h, d = shape
    if max_size is not None:
        drop = sizing.cap_levels(w, h, d, sizing.full_mip_count(w, h, d), max_size)
        w, h, d = sizing.level_dims(w, h, d, drop)
    levels = sizing.full_mip_count(w, h, d) if mips else 1
    size_words = f", max_size {max_size}" if max_size is not None else ""
    return replace(
        plan, gpu_format=fmt, width=w, height=h, depth=d, levels=levels,
        mips=("generated" if plan.mips == "none" else plan.mips) if mips else "none",
        max_size=max_size, tier_drop=min(plan.tier_drop, levels - 1), ignored=False,
        streamed=mips and plan.role != "ui",
        decided_by=f"what-if: {fmt}{size_words}{'' if mips else ', no mips'}",
    )


def _same(a: TexturePlan, b: TexturePlan) -> bool:
    return (a.gpu_format, a.width, a.height, a.depth, a.levels, a.tier_drop) == (
        b.gpu_format, b.width, b.height, b.depth, b.levels, b.tier_drop)


def alternatives(
    plan: TexturePlan, facts: TextureFacts, *, platform: str = "desktop", model: str = "d3d12",
) -> tuple[Alternative, ...]:
    """The formats × max sizes table for one texture, sorted by content bytes; the current
    plan is the row marked ``current`` (``saves_bytes`` 0)."""
    now = price(plan, model)
    mips = plan.mips != "none"
    shape = _full_shape(plan, facts)
    rows: list[Alternative] = []
    current_found = False
    for fmt in candidate_formats(plan, facts, platform):
        seen: set[tuple[int, int, int, int]] = set()
        for size in max_sizes(max(shape)):
            variant = _variant(plan, fmt, shape, size, mips)
            key = (variant.width, variant.height, variant.depth, variant.levels)
            if key in seen:
                continue
            seen.add(key)
            is_current = not plan.ignored and _same(variant, plan)
            cost = now if is_current else price(variant, model)
            current_found |= is_current
            rows.append(Alternative(
                gpu_format=fmt, max_size=size, mips=mips, width=variant.width,
                height=variant.height, levels=variant.levels, gpu_bytes=cost.gpu_bytes,
                allocated_bytes=cost.allocated_bytes,
                saves_bytes=0 if is_current else now.allocated_bytes - cost.allocated_bytes,
                current=is_current, depth=variant.depth,
            ))
    if not current_found:
        rows.append(Alternative(
            gpu_format=plan.gpu_format, max_size=plan.max_size, mips=plan.levels > 1,
            width=plan.width, height=plan.height, levels=plan.levels, gpu_bytes=now.gpu_bytes,
            allocated_bytes=now.allocated_bytes, saves_bytes=0, current=True, depth=plan.depth,
        ))
    rows.sort(key=lambda a: (a.gpu_bytes, a.allocated_bytes, not a.current, a.gpu_format, -a.width, -a.height))
    return tuple(rows)


def apply_alternative(plan: TexturePlan, alt: Alternative) -> TexturePlan:
    """The plan with ``alt``'s format, size and mips (for a what-if); pricing it with
    ``policy.decision.price`` gives ``alt.gpu_bytes`` / ``alt.allocated_bytes``. The current row
    returns the plan itself."""
    if alt.current:
        return plan
    levels = max(1, alt.levels)
    size_words = f", max_size {alt.max_size}" if alt.max_size is not None else ""
    return replace(
        plan, gpu_format=alt.gpu_format, width=alt.width, height=alt.height, depth=alt.depth,
        levels=levels, mips=("generated" if plan.mips == "none" else plan.mips) if alt.mips else "none",
        max_size=alt.max_size, tier_drop=min(plan.tier_drop, levels - 1), ignored=False,
        streamed=alt.mips and plan.role != "ui",
        decided_by=f"what-if: {alt.gpu_format}{size_words}{'' if alt.mips else ', no mips'}; was: {plan.decided_by}",
    )
