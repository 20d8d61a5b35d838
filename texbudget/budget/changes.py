"""The changes a fix can make, and the texture states the fix search works on
(``budget.fixes`` has the search and the rule).

Tiers, in order of preference: (a) quality-neutral: compress an uncompressed texture (by role:
BC5 normals, BC4 single channel, BC6H HDR, BC1 opaque colour, BC7 colour; ASTC or EAC on
``astc`` platforms, ETC2 / EAC on ``etc2``), BC1 for an opaque BC2/BC3, turn on BLAS
compaction; (a') re-encodes that lose a little: BC1 for an opaque BC7, compress a UI texture;
(b) cap one texture to a power of two, or lower the streaming pool; (c) drop the top mip of a
group (a role, or a folder); (d) render at a lower upscaler preset. ``_Registry`` holds the
texture states of one inputs and each state's changes, sorted by what they save.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from functools import lru_cache
from operator import attrgetter
from typing import NamedTuple

import msgspec

from texbudget import formats
from texbudget.budget.inputs import BudgetInputs, _price, _tail
from texbudget.budget.settings import BudgetSettings
from texbudget.model import TexturePlan, evolve
from texbudget.sizing.textures import level_dims
from texbudget.units import human_bytes

# --- the changes -------------------------------------------------------------------------

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


class _Step(msgspec.Struct):
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


#: A plan's texture state apart from role, opacity and streaming: what prices it.
_key = attrgetter("gpu_format", "width", "height", "depth", "levels", "faces", "layers", "tier_drop")


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
                ident = (_key(p), p.role, o, bool(keep) and p.streamed)
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
