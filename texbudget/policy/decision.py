"""What each texture becomes on the GPU, and why (DESIGN.md §1 "decide" and "price").

``decide`` turns the facts of one texture into a ``TexturePlan``: GPU format, size after any
cap, mip chain, quality-tier mip drop, role, and ``decided_by`` — a short sentence naming the
rule, engine setting, glTF slot, file name or header that chose it. ``price`` turns a plan
into bytes with ``sizing.textures``. Both are pure; the engine sidecars they read are read by
``readers.sidecars.read_engine_import`` (the records and tables are in ``texbudget.engine``).

Order of strength (docs/policy.md §3):

- **Stored GPU formats** (DDS, KTX/KTX2 with a real format) are kept as they are; only a rule
  can drop their top levels (``max_size``) or ignore them.
- **Basis Universal** data (KTX2 ETC1S / UASTC) gets the profile's transcode target, or a
  rule's ``format``.
- **Source images**: the role comes from a ``[[rule]]``, then the engine's import settings,
  then the glTF material slot, then the file name, then the header. The format comes from a
  rule, then the engine (what Godot / Unity would produce: the choices below), then the
  platform profile for the role. The ``uncompressed`` reference profile ignores rules and
  engine settings.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from types import MappingProxyType

from msgspec.structs import fields, replace

from texbudget import formats
from texbudget.engine import (
    GODOT_ARRANGEMENTS,
    GODOT_IMPORTERS,
    GODOT_MODES,
    UNITY_AUTOMATIC,
    UNITY_COMPRESSION,
    UNITY_FORMATS,
    EngineImport,
    UnityPlatform,
)
from texbudget.model import (
    COMPOSED_CONTAINER,
    PixelFormat,
    TextureCost,
    TextureFacts,
    TexturePlan,
)
from texbudget.policy.naming import role_from_header, role_from_name
from texbudget.policy.profiles import COLOUR_ROLES, QUALITY_TIERS, PolicySettings
from texbudget.policy.rules import _NO_RULES, Rule, _Applied, _cascade
from texbudget.sizing import textures as sizing
from texbudget.slots import role_from_slots

#: Basis HDR pseudo-formats (formats.py) -> their transcode key.
_HDR_TRANSCODE = {"UASTC_HDR_4x4": "uastc_hdr_4x4", "UASTC_HDR_6x6i": "uastc_hdr_6x6i"}

# --- the decision ------------------------------------------------------------------------


# Cached: a lookup in the fixed format table by name (the canonical names plans carry).
@lru_cache(maxsize=512)
def _find(name: str) -> PixelFormat | None:
    return formats.find(name)


def _fmt(name: str) -> PixelFormat:
    fmt = _find(name)
    if fmt is None:
        raise KeyError(name)
    return fmt


# Cached: the twin depends only on the name and the flag (the format table is fixed).
@lru_cache(maxsize=512)
def _srgb_twin(name: str, srgb: bool) -> str:
    return formats.with_srgb(_fmt(name), srgb).name


# Cached: a pure function of four ints.
@lru_cache(maxsize=4096)
def _cap_halving(width: int, height: int, depth: int, max_size: int | None) -> tuple[int, int, int]:
    """Dimensions after dropping top mip levels until the longest side fits (rules, profiles,
    Unity's Max Size)."""
    if not max_size:
        return width, height, depth
    full = sizing.full_mip_count(width, height, depth)
    drop = sizing.cap_levels(width, height, depth, full, max_size)
    return sizing.level_dims(width, height, depth, drop)


def _cap_scaled(width: int, height: int, max_size: int | None) -> tuple[int, int]:
    """Godot's ``process/size_limit``: the longer side becomes the limit, the other scales
    with integer division (resource_importer_texture.cpp)."""
    if not max_size or (width <= max_size and height <= max_size):
        return width, height
    if width >= height:
        return max_size, max(1, height * max_size // width)
    return max(1, width * max_size // height), max_size


@dataclass(slots=True)
class _Shape:
    width: int
    height: int
    depth: int
    layers: int
    faces: int
    note: str = ""


def _shape_of(facts: TextureFacts) -> _Shape:
    return _Shape(facts.width, facts.height, facts.depth, facts.layers, facts.faces)


def content_role(facts: TextureFacts, slots: Sequence[str] = ()) -> tuple[str, str]:
    """(role, reason) from what the texture itself tells: its glTF material slots, then its
    file name, then its header. It does not depend on settings, so a caller deciding many
    settings for one scan computes it once and passes it to ``decide``."""
    if facts.container == COMPOSED_CONTAINER:  # declared by the glTF, not by a file's header
        return "hdr", "EXT_lights_image_based radiance cubemap"
    found = _role_from_slot_tuple(tuple(slots)) if slots else None
    return found or role_from_name(facts.path) or role_from_header(facts)


# Cached: a scene's materials use a handful of slot combinations for thousands of textures.
@lru_cache(maxsize=1024)
def _role_from_slot_tuple(slots: tuple[str, ...]) -> tuple[str, str] | None:
    return role_from_slots(slots)


def decide(
    facts: TextureFacts,
    settings: PolicySettings,
    rules: Sequence[Rule] = (),
    engine: EngineImport | None = None,
    slots: Sequence[str] = (),
    own_role: tuple[str, str] | None = None,
    *,
    applied: _Applied | None = None,
    alpha_unused: str | None = None,
) -> TexturePlan:
    """What ``facts`` becomes on the GPU under ``settings``, and why. ``own_role`` is
    ``content_role(facts, slots)`` when the caller has it already (None: found here);
    ``applied`` the rules' cascade on this path (``decide_all`` has it; None: found here);
    ``alpha_unused``: why no use reads the image's alpha (``slots.alpha_unread``), which makes
    a source image with alpha opaque for the platform profile's format."""
    if own_role is None:
        own_role = content_role(facts, slots)
    if facts.stored_format and not facts.transcodable:
        stored = _find(facts.stored_format)
        if stored is not None and stored.transcodable:  # a reader that names ETC1S/UASTC as stored
            facts = replace(facts, stored_format=None, transcodable=stored.name)
    profile = settings.profile
    if profile.reference:
        return _decide_reference(facts, settings, own_role)
    if applied is None:
        applied = _cascade(facts.path, rules, settings.platform)
    role, role_reason = _infer_role(applied, engine, own_role)
    tier = QUALITY_TIERS[settings.quality]
    if facts.stored_format and not facts.transcodable:
        plan = _decide_stored(facts, role, applied, tier, engine)
    elif facts.transcodable:
        plan = _decide_transcoded(facts, settings, role, role_reason, applied, tier, engine)
    else:
        plan = _decide_source(facts, settings, role, role_reason, applied, engine, slots, alpha_unused)
    ignore = applied.get("ignore")
    if ignore is not None and ignore[0]:
        plan = replace(plan, ignored=True, decided_by=f"{ignore[1].where}: ignore; {plan.decided_by}")
    return plan


#: The facts a decision reads, all but the texture's path and file size (``_facts_key``).
_DECISION_FACTS = tuple(f.name for f in fields(TextureFacts) if f.name not in ("path", "disk_bytes"))
_facts_key = attrgetter(*_DECISION_FACTS)


def decide_all(
    textures: Sequence[TextureFacts],
    settings: PolicySettings,
    rules: Sequence[Rule],
    engines: Mapping[str, EngineImport],
    slots: Mapping[str, Sequence[str]],
    own_roles: Sequence[tuple[str, str]],
    model: str = "d3d12",
    alpha_unused: Mapping[str, str] = MappingProxyType({}),
) -> tuple[TextureCost, ...]:
    """``price(decide(...))`` of every texture of a scan (``own_roles``: ``content_role`` of
    each; ``alpha_unused``: path -> why its alpha is read by no use). Textures that no rule and no engine sidecar touch and that agree in every fact
    but their path and file size are decided alike: the plan is made and priced once and
    copied with each one's path (a scene has thousands of textures and a few hundred kinds;
    a settings switch in the TUI decides them all again)."""
    memo: dict[tuple, TextureCost] = {}
    out: list[TextureCost] = []
    platform = settings.platform
    for facts, own_role in zip(textures, own_roles, strict=True):
        path = facts.path
        engine = engines.get(path) if engines else None
        on = slots.get(path, ())
        unused = alpha_unused.get(path) if alpha_unused else None
        applied = _cascade(path, rules, platform) if rules else _NO_RULES
        if engine is not None or applied.values:
            out.append(price(decide(facts, settings, rules, engine, on, own_role, applied=applied, alpha_unused=unused), model))
            continue
        key = (_facts_key(facts), on if type(on) is tuple else tuple(on), own_role, unused)
        cost = memo.get(key)
        if cost is None:
            cost = memo[key] = price(decide(facts, settings, (), None, on, own_role, alpha_unused=unused), model)
            out.append(cost)
            continue
        out.append(replace(cost, plan=replace(cost.plan, path=path)))
    return tuple(out)


# The plans' ``decided_by`` texts are interned (``sys.intern``): textures decided alike share
# one string (a scan of 85,000 textures has a few hundred distinct texts, not 85,000 copies).


def _tier(levels: int, role: str, drop: int, engine: EngineImport | None) -> tuple[int, str]:
    """(top levels the quality tier drops, a note for ``decided_by``): ``drop`` but keeping
    the last level; none for one-level or UI textures, nor when a Unity .meta says the
    texture ignores the mipmap limit."""
    if levels <= 1 or role == "ui" or drop == 0:
        return 0, ""
    if engine is not None and engine.ignore_mipmap_limit:
        return 0, "; Unity .meta: ignores the mipmap limit"
    return min(drop, levels - 1), ""


def _infer_role(applied: _Applied, engine: EngineImport | None, own_role: tuple[str, str]) -> tuple[str, str]:
    """A rule's role, else the engine's, else the texture's own (slot, name, header)."""
    rule = applied.get("role")
    if rule is not None:
        return str(rule[0]), f"{rule[1].where}: role {rule[0]}"
    if engine is not None:
        found = _engine_role(engine)
        if found is not None:
            return found
    return own_role


_UNITY_TYPES = {1: ("normal", "Normal map"), 2: ("ui", "Editor GUI"), 7: ("ui", "Cursor"),
                8: ("ui", "Sprite"), 10: ("single", "Single Channel")}


def _engine_role(engine: EngineImport) -> tuple[str, str] | None:
    if engine.engine == "godot":
        if engine.normal_map == 1 or engine.channel_pack == 2:
            return "normal", "Godot .import: normal map"
        return None
    if engine.texture_type in _UNITY_TYPES:
        role, name = _UNITY_TYPES[engine.texture_type]
        return role, f"Unity .meta: texture type {name}"
    return None


def _is_colour(role: str, srgb_hint: bool | None) -> bool:
    return srgb_hint if srgb_hint is not None else role in COLOUR_ROLES


def _decide_reference(facts: TextureFacts, settings: PolicySettings, own_role: tuple[str, str]) -> TexturePlan:
    """``uncompressed``: RGBA8 (RGBA16F for HDR data), full chain — glTF-Transform's gpuSize.
    Rules, engine sidecars and the quality tier are ignored; stored formats are still kept."""
    profile = settings.profile
    role = own_role[0]
    if facts.stored_format and not facts.transcodable:
        return _decide_stored(facts, role, _Applied())
    if facts.transcodable:
        return _decide_transcoded(facts, settings, role, "", _Applied())
    key = "hdr" if facts.hdr else role
    fmt = profile.format_for(key, facts.alpha)
    levels = sizing.full_mip_count(facts.width, facts.height, facts.depth)
    mips, chain = "generated", "full mip chain (as glTF-Transform inspect)"
    if facts.container == COMPOSED_CONTAINER:
        levels, mips = _listed_levels(facts, facts.width), "stored"
        chain = f"{levels} level{'s' if levels != 1 else ''} as EXT_lights_image_based lists them"
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=facts.width, height=facts.height, depth=facts.depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=f"uncompressed reference: {fmt}, {chain}; rules and engine settings ignored",
        streamed=levels > 1 and role != "ui",
    )


def _listed_levels(facts: TextureFacts, width: int) -> int:
    """The levels an EXT_lights_image_based cubemap lists (Babylon.js and Wicked Engine
    allocate exactly those; the last is the most blurred, roughness 1), less those a cap
    dropped to bring the top size to ``width`` (at least one)."""
    dropped = (facts.width // width).bit_length() - 1 if width < facts.width else 0
    return max(1, facts.stored_levels - dropped)


def _drop_stored(facts: TextureFacts, levels: int, max_size: int | None) -> tuple[int, int, int, int]:
    """A rule's ``max_size`` on a file whose levels are stored (block-compressed or
    transcoded): the top levels dropped until the longest side fits, at most all but the
    last of the ``levels`` the file gives; (width, height, depth, levels dropped)."""
    drop = sizing.cap_levels(facts.width, facts.height, facts.depth, levels, max_size)
    if not drop:
        return facts.width, facts.height, facts.depth, 0
    return (*sizing.level_dims(facts.width, facts.height, facts.depth, drop), drop)


def _decide_stored(facts: TextureFacts, role: str, applied: _Applied, tier: int = 0,
                   engine: EngineImport | None = None) -> TexturePlan:
    fmt = facts.stored_format or "R8G8B8A8_UNORM"
    if facts.mips_generate:
        levels = sizing.full_mip_count(facts.width, facts.height, facts.depth)
        mips, reason = "generated", f"stored format {fmt}, mips generated at load (levelCount 0)"
    else:
        levels, mips, reason = max(1, facts.stored_levels), "stored", f"stored format {fmt}"
    cap = applied.get("max_size")
    max_size = None if cap is None else int(cap[0])  # type: ignore[call-overload]
    width, height, depth, drop = _drop_stored(facts, levels, max_size)
    levels -= drop
    if cap is not None and max_size is not None:
        if drop:
            reason += f"; {cap[1].where}: max_size {max_size} drops {drop} stored level{'s' if drop > 1 else ''}"
        elif max(width, height, depth) > max_size:
            reason += f"; {cap[1].where}: max_size {max_size} cannot apply (only {levels} stored level)"
    for key in ("format", "mips"):
        hit = applied.get(key)
        if hit is not None:
            reason += f"; {hit[1].where}: {key} ignored (the file stores {fmt})"
    tier_drop, note = _tier(levels, role, tier, engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=sys.intern(reason + note), tier_drop=tier_drop, max_size=max_size,
        streamed=levels > 1 and role != "ui",
    )


def _decide_transcoded(
    facts: TextureFacts, settings: PolicySettings, role: str, role_reason: str, applied: _Applied,
    tier: int = 0, engine: EngineImport | None = None,
) -> TexturePlan:
    profile = settings.profile
    srgb = facts.color_space == "srgb" if facts.color_space else role in COLOUR_ROLES
    rule_fmt = applied.get("format")
    if rule_fmt is not None:
        fmt = _rule_format(rule_fmt, role, srgb)
        reason = f"{rule_fmt[1].where}: format {fmt} (transcode target for {facts.transcodable})"
    else:
        fmt = _srgb_twin(profile.transcode[_transcode_key(facts)], srgb)
        reason = f"{facts.transcodable} → {fmt} ({settings.platform} transcode target)"
    if facts.mips_generate:
        levels, mips = sizing.full_mip_count(facts.width, facts.height, facts.depth), "generated"
    else:
        levels, mips = max(1, facts.stored_levels), "stored"
    cap = applied.get("max_size")
    max_size = None if cap is None else int(cap[0])  # type: ignore[call-overload]
    width, height, depth, drop = _drop_stored(facts, levels, max_size)
    levels -= drop
    if cap is not None and drop:
        reason += f"; {cap[1].where}: max_size {max_size}"
    tier_drop, note = _tier(levels, role, tier, engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=sys.intern(reason + note), tier_drop=tier_drop, max_size=max_size,
        streamed=levels > 1 and role != "ui",
    )


def _transcode_key(facts: TextureFacts) -> str:
    """The profile's ``[transcode]`` key for a Basis payload: the HDR codec (UASTC HDR is RGB
    only), or the LDR codec and the channels the DFD gives (an unknown name counts as ETC1S)."""
    name = facts.transcodable or "ETC1S"
    if name in _HDR_TRANSCODE:
        return _HDR_TRANSCODE[name]
    kind = name.lower() if name in ("ETC1S", "UASTC") else "etc1s"
    variant = "r" if facts.channels == 1 else "rg" if facts.channels == 2 else "rgba" if facts.alpha else "rgb"
    return f"{kind}_{variant}"


def _rule_format(hit: tuple[object, Rule], role: str, srgb: bool | None = None) -> str:
    name = str(hit[0])
    if hit[1].format_exact:
        return name
    return _srgb_twin(name, role in COLOUR_ROLES if srgb is None else srgb)


@dataclass(slots=True)
class _EngineChoice:
    fmt: str | None = None  # None = the profile decides
    mips: bool | None = None
    max_size: int | None = None
    cap_mode: str = "halve"  # "halve" (mip drop) or "scale" (Godot's proportional resize)
    reason: str = ""
    shape: _Shape | None = None
    ignored: bool = False


#: No engine sidecar: the profile decides (shared; nothing writes to a choice once made).
_NO_ENGINE = _EngineChoice()


def _decide_source(
    facts: TextureFacts, settings: PolicySettings, role: str, role_reason: str,
    applied: _Applied, engine: EngineImport | None, slots: Sequence[str], alpha_unused: str | None = None,
) -> TexturePlan:
    profile = settings.profile
    choice = _NO_ENGINE
    if engine is not None:
        if engine.engine == "godot":
            choice = _godot_choice(engine, facts, role, profile.godot_target, slots)
        elif engine.engine == "unity":
            target = settings.unity_build_target or profile.unity_build_target
            choice = _unity_choice(engine, facts, role, target, profile.family)
    shape = choice.shape or _shape_of(facts)
    alpha = facts.alpha and alpha_unused is None
    srgb_hint = engine.srgb if engine is not None and engine.engine == "unity" else None
    colour = _is_colour(role, srgb_hint)
    parts: list[str] = []

    # format: rule > engine > profile
    rule_fmt = applied.get("format")
    if rule_fmt is not None:
        fmt = _rule_format(rule_fmt, role, colour)
        parts.append(f"{role_reason} → {role}; {rule_fmt[1].where}: format {fmt}")
    elif choice.fmt is not None:
        fmt = choice.fmt
        if not role_reason.startswith(("Godot", "Unity", "header")):
            parts.append(role_reason)  # a slot or name that told the engine's mapping the role
        parts.append(choice.reason)
    else:
        key = "hdr" if facts.hdr or role == "hdr" else role
        base = profile.format_for(key, alpha, settings.high_quality)
        fmt = base if key == "hdr" else _srgb_twin(base, colour)
        hq = " high quality" if settings.high_quality and base != profile.format_for(key, alpha) else ""
        shown = role if key == role else f"{role}, HDR data"
        parts.append(f"{role_reason} → {shown} → {fmt} ({settings.platform}{hq})")
        if alpha_unused is not None and facts.alpha and base != profile.format_for(key, True, settings.high_quality):
            parts.append(alpha_unused)
        if choice.reason:
            parts.append(choice.reason)

    # mips: rule > engine > profile
    rule_mips = applied.get("mips")
    if rule_mips is not None:
        mips_on = bool(rule_mips[0])
        parts.append(f"{rule_mips[1].where}: mips {'on' if mips_on else 'off'}")
    elif choice.mips is not None:
        mips_on = choice.mips
    else:
        mips_on = role not in profile.no_mips
        if not mips_on:
            parts.append(f"no mips ({role})")

    # size cap: rule > engine > profile
    rule_cap = applied.get("max_size")
    cap_mode = "halve"
    if rule_cap is not None:
        max_size: int | None = int(rule_cap[0])  # type: ignore[call-overload]
        parts.append(f"{rule_cap[1].where}: max_size {max_size}")
    elif choice.max_size:
        max_size, cap_mode = choice.max_size, choice.cap_mode
    else:
        max_size = profile.cap_for(role)
        if max_size and max(shape.width, shape.height, shape.depth) > max_size:
            parts.append(f"{settings.platform} max_size {max_size}")
    if cap_mode == "scale":
        width, height = _cap_scaled(shape.width, shape.height, max_size)
        depth = shape.depth
    else:
        width, height, depth = _cap_halving(shape.width, shape.height, shape.depth, max_size)
    if shape.note:
        parts.append(shape.note)

    levels = sizing.full_mip_count(width, height, depth) if mips_on else 1
    mips = "generated" if mips_on else "none"
    if mips_on and facts.container == COMPOSED_CONTAINER:
        levels, mips = _listed_levels(facts, width), "stored"
        parts.append(f"{levels} level{'s' if levels != 1 else ''} as EXT_lights_image_based lists them")
    tier_drop, note = _tier(levels, role, QUALITY_TIERS[settings.quality], engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=shape.layers, faces=shape.faces, levels=levels,
        mips=mips, role=role,
        decided_by=sys.intern("; ".join(filter(None, parts)) + note), tier_drop=tier_drop,
        max_size=max_size, ignored=choice.ignored, streamed=mips_on and role != "ui",
    )


# --- Godot 4 -----------------------------------------------------------------------------


def _godot_channels(facts: TextureFacts, normal: bool) -> str:
    """Godot's ``Image::UsedChannels`` as far as the header tells it: L, LA, RG, RGB, RGBA."""
    if normal:
        return "RG"
    if facts.channels <= 2 or facts.grey:
        return "LA" if facts.alpha else "L"
    return "RGBA" if facts.alpha else "RGB"


def _godot_uncompressed(facts: TextureFacts, colour: bool) -> str:
    """The GPU format of an image Godot keeps uncompressed (lossless, lossy, VRAM uncompressed):
    L8 → R8, LA8 → RG8, RGB8/RGBA8 → RGBA8 (RGB8 is expanded on upload), Radiance HDR →
    RGBE9995, other float images → RGBA half or float (16-bit PNGs load as 8-bit)."""
    if facts.hdr:
        if facts.container == "hdr":
            return "E5B9G9R9_UFLOAT"
        return "R32G32B32A32_SFLOAT" if facts.bit_depth >= 32 else "R16G16B16A16_SFLOAT"
    if facts.channels == 1:
        return "R8_UNORM"
    if facts.channels == 2:
        return "R8G8_UNORM"
    return "R8G8B8A8_SRGB" if colour else "R8G8B8A8_UNORM"


_GODOT_ASTC_MODES = {1: "4x4", 2: "6x6", 3: "8x8"}


def _godot_vram(facts: TextureFacts, engine: EngineImport, target: str, normal: bool, colour: bool) -> tuple[str, str]:
    """(format, words) for VRAM compressed on ``target`` (resource_importer_texture.cpp):
    high quality or HDR → BPTC (BC7 / BC6H) on desktop, ASTC on mobile; otherwise S3TC
    (BC1 opaque, BC3 alpha, BC5 normal) on desktop, ETC2 on mobile."""
    hq = bool(engine.high_quality)
    if facts.hdr:
        hdr_mode = 1 if engine.hdr_compression is None else engine.hdr_compression
        if hdr_mode == 0:
            return "E5B9G9R9_UFLOAT", "HDR compression disabled"
        if facts.alpha and hdr_mode == 1:
            return "E5B9G9R9_UFLOAT", "HDR with alpha (opaque only)"
        fmt = "BC6H_UFLOAT" if target == "desktop" else "ASTC_4x4_SFLOAT"
        return fmt, "HDR" + (", alpha dropped" if facts.alpha else "")
    channels = _godot_channels(facts, normal)
    words = ", normal map" if normal else ""
    if target == "desktop":
        if hq:
            return _srgb_twin("BC7_UNORM", colour), f"high quality{words}"
        fmt = {"RG": "BC5_UNORM", "L": "BC1_RGB_UNORM", "RGB": "BC1_RGB_UNORM",
               "LA": "BC3_UNORM", "RGBA": "BC3_UNORM"}[channels]
        return (fmt if channels == "RG" else _srgb_twin(fmt, colour)), words.lstrip(", ")
    if hq:
        mode = engine.high_quality_mode or 0
        block = _GODOT_ASTC_MODES.get(mode) or {"L": "8x8", "LA": "6x6", "RG": "6x6"}.get(channels, "4x4")
        fmt = f"ASTC_{block}_UNORM"
        return (_srgb_twin(fmt, colour) if not normal else fmt), f"high quality{words}"
    fmt = {"RG": "EAC_R11G11_UNORM", "L": "ETC2_R8G8B8_UNORM", "RGB": "ETC2_R8G8B8_UNORM",
           "LA": "ETC2_R8G8B8A8_UNORM", "RGBA": "ETC2_R8G8B8A8_UNORM"}[channels]
    return (fmt if channels == "RG" else _srgb_twin(fmt, colour)), words.lstrip(", ")


def _godot_shape(engine: EngineImport, facts: TextureFacts) -> _Shape | None:
    importer = engine.importer
    if importer == "texture":
        return None
    if importer in ("2d_array_texture", "3d_texture"):
        h = engine.slices_horizontal or 8
        v = engine.slices_vertical or 8
    else:
        h, v = GODOT_ARRANGEMENTS.get(engine.arrangement if engine.arrangement is not None else 1, (2, 3))
        if importer == "cubemap_array_texture":
            amount = max(1, engine.amount or 1)
            if (engine.layout if engine.layout is not None else 1) == 0:
                h *= amount
            else:
                v *= amount
    sw, sh = facts.width // h, facts.height // v
    if sw < 1 or sh < 1:
        return _Shape(facts.width, facts.height, 1, 1, 1,
                      note=f"Godot .import: {h}x{v} slices do not fit a {facts.width}x{facts.height} image; read as 2D")
    if importer == "2d_array_texture":
        return _Shape(sw, sh, 1, h * v, 1, note=f"Godot 2D array: {h}x{v} slices of {sw}x{sh}")
    if importer == "3d_texture":
        return _Shape(sw, sh, h * v, 1, 1, note=f"Godot 3D texture: {h * v} slices of {sw}x{sh}")
    if importer == "cubemap_texture":
        return _Shape(sw, sh, 1, 1, 6, note=f"Godot cubemap: {h}x{v} faces of {sw}x{sh}")
    return _Shape(sw, sh, 1, max(1, (h * v) // 6), 6, note=f"Godot cubemap array: {(h * v) // 6} cubes of {sw}x{sh}")


#: Slots whose texture never reaches a 3D material, so Godot's ``detect_3d`` leaves it as
#: imported. Godot calls a texture's detect_3d callback only from a material's texture
#: uniforms (``MaterialStorage::MaterialData::update_textures``, when ``p_3d_material``: the
#: scene, sky and fog shaders; GLES3: ``p_is_3d_shader_type``), so a material's slot
#: (``albedo_texture``, a glTF slot, a shader parameter) converts it. These do not:
#:
#: - 2D nodes' properties, drawn on a canvas: Sprite2D, Polygon2D, Line2D, MeshInstance2D,
#:   the 2D particles and lights, TextureRect, NinePatchRect (``texture``), TextureButton
#:   (``texture_normal`` …), TextureProgressBar (``texture_under`` …), Button (``icon``),
#:   ItemList, PopupMenu, OptionButton and TabBar items (``item_N/icon``, ``tab_N/icon``), a
#:   TileSet atlas, a StyleBoxTexture (``texture``), a CanvasTexture (``diffuse_texture``,
#:   ``specular_texture``; its ``normal_texture`` is named as StandardMaterial3D's: counted 3D);
#:   Godot 3's AnimatedSprite (``frames``); and metadata (``metadata/…``, Godot 3's
#:   ``__meta__``: the editor's icons), never drawn;
#: - what a resource hands to its user: a SpriteFrames' ``animations``, an AtlasTexture's
#:   ``atlas``. Where a 3D material or a 3D sprite uses one, the reader gives its textures
#:   that use's slot as well (``readers/godot_scene.py``);
#: - a Decal's and a Light3D's projector textures (copied into the decal atlas,
#:   ``TextureStorage::decal_set_texture``, no material) and a MeshLibrary item's ``preview``
#:   (drawn in the editor's palette).
#:
#: A Sprite3D's or AnimatedSprite3D's texture is bound to a material of its own (SpriteBase3D
#: ``material_set_param(…, "texture_albedo", …)`` on a StandardMaterial3D shader): its slot is
#: written ``Sprite3D.texture`` / ``AnimatedSprite3D.sprite_frames``, not listed here.
NOT_3D_SLOTS = frozenset({
    "texture", "icon", "texture_normal", "texture_pressed", "texture_hover", "texture_disabled", "texture_focused",
    "texture_click_mask", "texture_under", "texture_over", "texture_progress",
    "diffuse_texture", "specular_texture", "__meta__",
    "animations", "frames", "atlas",
    "texture_albedo", "texture_orm", "texture_emission", "light_projector", "preview",
})
#: The same for slots that hold an index or a name: a Control's items and tabs, metadata.
_NOT_3D_KEYS = re.compile(r"(?:popup/)?(?:item|tab)_[0-9]+/icon|metadata/.*", re.S)


def is_3d_use(slot: str) -> bool:
    """A texture in ``slot`` reaches a 3D material (Godot's ``detect_3d`` converts it)."""
    return slot not in NOT_3D_SLOTS and _NOT_3D_KEYS.fullmatch(slot) is None


def _godot_choice(engine: EngineImport, facts: TextureFacts, role: str, target: str, slots: Sequence[str]) -> _EngineChoice:
    if engine.importer == "skip":
        return _EngineChoice(reason="Godot .import: importer skip (not imported)", ignored=True)
    if engine.importer not in GODOT_IMPORTERS:
        return _EngineChoice()
    default_mode, default_mips = GODOT_IMPORTERS[engine.importer]
    mode = default_mode if engine.compress_mode is None else engine.compress_mode
    mips = default_mips if engine.mipmaps is None else engine.mipmaps
    words = GODOT_MODES.get(mode, f"compress/mode {mode}")
    detect = (engine.detect_3d or 0) if engine.importer == "texture" else 0
    if detect and any(is_3d_use(s) for s in slots):
        # Godot rewrites the .import the first time a 3D material uses the texture
        # (ResourceImporterTexture::update_imports): compress/mode and mipmaps/generate.
        new_mode = 2 if detect == 1 else 4
        if new_mode != mode:
            words = f"{words}, used in 3D → {GODOT_MODES[new_mode]} (detect_3d)"
        elif not mips:
            words = f"{words}, used in 3D → mipmaps (detect_3d)"
        mode, mips = new_mode, True
    normal = engine.normal_map == 1 or engine.channel_pack == 2 or (engine.normal_map in (None, 0) and role == "normal")
    if engine.normal_map == 2:
        normal = False
    colour = role in COLOUR_ROLES
    if mode in (0, 1, 3):
        fmt = _godot_uncompressed(facts, colour)
        detail = ""
    elif mode == 2:
        fmt, detail = _godot_vram(facts, engine, target, normal, colour)
        if normal and engine.normal_map in (None, 0) and "normal" in detail:
            detail = detail.replace("normal map", "normal map (detected)")
    else:  # Basis Universal: transcoded at load — BC7 on desktop, ASTC 4x4 on mobile
        fmt = _srgb_twin("BC7_UNORM" if target == "desktop" else "ASTC_4x4_UNORM", colour)
        detail = f"transcoded for {target}"
    reason = f"Godot .import: {words}" + (f", {detail}" if detail else "") + f" → {fmt}"
    if not mips:
        reason += ", no mipmaps"
    size_limit = engine.size_limit if engine.importer == "texture" and engine.size_limit else None
    if size_limit and max(facts.width, facts.height) > size_limit:
        reason += f", size_limit {size_limit}"
    if engine.mipmap_limit not in (None, -1):
        reason += " (mipmaps/limit has no effect in Godot 4)"
    return _EngineChoice(fmt=fmt, mips=mips, max_size=size_limit, cap_mode="scale", reason=reason,
                         shape=_godot_shape(engine, facts))


# --- Unity -------------------------------------------------------------------------------


_UNITY_KINDS = {"rgb": "RGB", "rgba": "RGBA", "hdr": "HDR", "normal": "normal map", "single": "single channel"}
_UNITY_TARGET_ALIASES = {"iPhone": ("iPhone", "iOS"), "iOS": ("iPhone", "iOS")}


def unity_automatic(family: str, compression: int, kind: str, colour: bool) -> str:
    """Unity's Automatic format (manual "Texture formats reference", default formats per
    platform) for ``kind`` in {"rgb", "rgba", "normal", "single", "hdr"}."""
    if compression == 0:
        fmt = {"hdr": "R16G16B16A16_SFLOAT", "single": "R8_UNORM", "normal": "R8G8B8A8_UNORM"}.get(kind, "R8G8B8A8_UNORM")
    elif family == "astc":
        block = {1: "6x6", 2: "4x4", 3: "8x8"}.get(compression, "6x6")
        fmt = {"hdr": f"ASTC_{block}_SFLOAT", "single": "EAC_R11_UNORM"}.get(kind, f"ASTC_{block}_UNORM")
    elif family == "etc2":
        fmt = {"hdr": "R16G16B16A16_SFLOAT", "single": "EAC_R11_UNORM", "normal": "ETC2_R8G8B8_UNORM",
               "rgba": "ETC2_R8G8B8A8_UNORM"}.get(kind, "ETC2_R8G8B8_UNORM")
    elif compression == 2:
        fmt = {"hdr": "BC6H_UFLOAT", "single": "BC4_UNORM", "normal": "BC5_UNORM"}.get(kind, "BC7_UNORM")
    else:
        fmt = {"hdr": "BC6H_UFLOAT", "single": "BC4_UNORM", "normal": "BC3_UNORM",
               "rgba": "BC3_UNORM"}.get(kind, "BC1_RGB_UNORM")
    return _srgb_twin(fmt, colour) if kind in ("rgb", "rgba") else fmt


def _unity_entry(engine: EngineImport, target: str) -> tuple[UnityPlatform | None, str]:
    names = _UNITY_TARGET_ALIASES.get(target, (target,))
    for entry in engine.platforms:
        if entry.build_target in names and entry.overridden:
            return entry, f"{entry.build_target} override"
    for entry in engine.platforms:
        if entry.build_target == "DefaultTexturePlatform":
            return entry, "Default"
    return None, "TextureImporter"


def _unity_shape(engine: EngineImport, facts: TextureFacts) -> _Shape | None:
    shape = engine.texture_shape or 1
    w, h = facts.width, facts.height
    if shape in (4, 8):
        cols, rows = max(1, engine.flipbook_columns or 1), max(1, engine.flipbook_rows or 1)
        sw, sh = w // cols, h // rows
        if sw < 1 or sh < 1:
            return None
        n = cols * rows
        if shape == 4:
            return _Shape(sw, sh, 1, n, 1, note=f"Unity 2D array: {cols}x{rows} flipbook of {sw}x{sh}")
        return _Shape(sw, sh, n, 1, 1, note=f"Unity 3D texture: {n} slices of {sw}x{sh}")
    if shape == 2:
        if w == 6 * h:
            face, layout = h, "6x1 strip"
        elif h == 6 * w:
            face, layout = w, "1x6 strip"
        elif 3 * w == 4 * h:
            face, layout = w // 4, "4x3 cross"
        elif 4 * w == 3 * h:
            face, layout = w // 3, "3x4 cross"
        else:
            face, layout = max(1, w // 4), "panorama; face size estimated as width/4"
        return _Shape(face, face, 1, 1, 6, note=f"Unity cubemap ({layout}): faces {face}x{face}")
    return None


def _unity_choice(engine: EngineImport, facts: TextureFacts, role: str, target: str, family: str) -> _EngineChoice:
    if engine.importer != "TextureImporter":
        return _EngineChoice()
    entry, which = _unity_entry(engine, target)
    colour = engine.srgb if engine.srgb is not None else role in COLOUR_ROLES
    if engine.alpha_source == 0:
        alpha = False
    elif engine.alpha_source == 2:
        alpha = True
    else:
        alpha = facts.alpha
    max_size = entry.max_size if entry and entry.max_size else engine.max_size
    mips = engine.mipmaps if engine.mipmaps is not None else True
    code = entry.texture_format if entry is not None else (engine.texture_format if engine.texture_format is not None else -1)
    compression = entry.compression if entry and entry.compression is not None else engine.compression
    compression = 1 if compression is None else compression
    if code not in UNITY_AUTOMATIC and code in UNITY_FORMATS:
        name, unity_name = UNITY_FORMATS[code]
        fmt = _srgb_twin(name, colour)
        reason = f"Unity .meta ({which}): format {unity_name} → {fmt}"
    else:
        if code == -3:  # obsolete AutomaticTruecolor: uncompressed
            compression = 0
        if facts.hdr:
            kind = "hdr"
        elif engine.texture_type == 1:
            kind = "normal"
        elif engine.texture_type == 10:
            kind = "single"
        else:
            kind = "rgba" if alpha else "rgb"
        fmt = unity_automatic("bc" if family == "uncompressed" else family, compression, kind, colour)
        words = UNITY_COMPRESSION.get(compression, f"compression {compression}")
        reason = f"Unity .meta ({which}): Automatic, {words}, {_UNITY_KINDS[kind]} → {fmt}"
    if not mips:
        reason += ", no mipmaps"
    if max_size and max(facts.width, facts.height) > max_size:
        reason += f", Max Size {max_size}"
    return _EngineChoice(fmt=fmt, mips=mips, max_size=max_size, cap_mode="scale", reason=reason,
                         shape=_unity_shape(engine, facts))


# --- price -------------------------------------------------------------------------------


def price(plan: TexturePlan, model: str = "d3d12") -> TextureCost:
    """Bytes of a plan: each mip level after the tier drop (every face and layer), their sum,
    and the allocation model's rounding. An ignored plan costs nothing."""
    if plan.ignored:
        return TextureCost(plan=plan, mips=(), gpu_bytes=0, allocated_bytes=0)
    mips, content, allocated = sizing.chain_cost(
        _fmt(plan.gpu_format), plan.width, plan.height, plan.depth, plan.levels,
        plan.faces, plan.layers, plan.tier_drop, model,
    )
    return TextureCost(plan=plan, mips=mips, gpu_bytes=content, allocated_bytes=allocated)
