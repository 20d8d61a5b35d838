"""The fix search: for each card that is ``over`` or ``tight``, the cheapest changes that
make it fit, and ``apply_fixes`` (docs/budget.md has the whole rule; the changes themselves and
the texture states are in ``budget.changes``).

The cheapest change that makes the card fit — the fewest, least intrusive steps with the least
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
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from texbudget import formats
from texbudget.budget.changes import (
    _KIND_ORDER,
    TIER_CAP,
    TIER_GROUP,
    TIER_NEUTRAL,
    TIER_UPSCALER,
    TIERS,
    _action,
    _Delta,
    _group_path,
    _Registry,
    _registry,
    _Scene,
    _Step,
    apply_change,
)
from texbudget.budget.inputs import (
    AccelerationSummary,
    BudgetInputs,
    _counted,
    _targets,
    price_plan,
)
from texbudget.budget.settings import BudgetSettings
from texbudget.model import Fix, Scenario, TexturePlan, evolve
from texbudget.sizing.targets import render_size, upscaler_scale

# Upscaler steps a fix may suggest, in order; ultra-performance is meant for 8K and is never
# suggested.
UPSCALER_STEPS = ("native", "quality", "balanced", "performance")


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
            a = sum(map(d_full.__getitem__, map(cls.__getitem__, shared)))
            # without streaming a state's floor is its allocation: the floor moves as much
            b = sum(map(d_floor.__getitem__, map(cls.__getitem__, shared))) if reg.keep else a
            if a or b:
                for h in in_groups:
                    x, y = changed.get(h, (0, 0))
                    changed[h] = (x + a, y + b)
        after = {c: c if t is None else t for c, t in to.items()}
        deque(map(cls.__setitem__, members, map(after.__getitem__, before)), maxlen=0)
        for c, n in counts.items():
            self.count[c] = self.count.get(c, 0) + n
        # kept with the step (``_Delta``) for every card's replay: a role's drop changes each
        # folder of it, mostly by the same few amounts, so equal changes are one tuple (the 100k
        # glb tree's sequence held 12,600 of them, 1,400 distinct: 1.3 MiB at the scan's peak)
        same: dict[tuple[int, int], tuple[int, int]] = {}
        groups = {h: same.setdefault(d, d) for h, d in sorted(changed.items()) if d != (0, 0)}
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
            accel[scenario.rt] = evolve(a, blas_bytes=a.blas_bytes - saves, total_bytes=a.total_bytes - saves)
        elif fix.kind == "upscaler":
            scale = upscaler_scale(fix.value)
            rw, rh = render_size(scenario.width, scenario.height, scale)
            scenario = evolve(scenario, upscaler=fix.value, render_scale=scale, render_width=rw, render_height=rh)
            settings = evolve(settings, upscaler=fix.value)
        elif fix.kind == "pool":
            settings = evolve(settings, streaming_pool_bytes=int(fix.value))
        else:
            raise ValueError(f"unknown fix kind {fix.kind!r}")
    model = settings.allocation_model
    textures = tuple(price_plan(changed[i], model) if i in changed else c for i, c in enumerate(live))
    return evolve(inputs, textures=textures, acceleration=accel), scenario, settings
