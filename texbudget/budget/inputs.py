"""What the budget is given and how it counts it: texture plans priced (``price_plan``,
pure and cached; the fixes re-price changed plans with it), the streaming floor,
``BudgetInputs`` (what the pipeline priced for one quality tier), the acceleration structures'
summary, and the counting the assessment and the fix search share (``_counted``: textures
under streaming; ``_targets``: the render targets of a scenario).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property, lru_cache
from typing import Any

import msgspec

from texbudget import formats
from texbudget.budget.settings import BudgetSettings
from texbudget.model import MipLevel, Scenario, TextureCost, TexturePlan, file_of
from texbudget.sizing.targets import price_targets
from texbudget.sizing.textures import allocated_bytes, mip_chain

# --- acceleration structures ----------------------------------------------------------------


class AccelerationSummary(msgspec.Struct, frozen=True):
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


class BudgetInputs(msgspec.Struct, frozen=True, dict=True):
    """What the pipeline priced for one quality tier / platform: every texture's cost, the
    mesh buffers, the acceleration structures per RT vendor, and the texture paths known to
    be opaque (no alpha; for the "BC1 for an opaque BC3 / BC7" and "compress to BC1" fixes). Sums
    are computed once per object (cached, in the instance's ``__dict__``: ``dict=True``), so the TUI
    can re-assess on every key press."""

    textures: tuple[TextureCost, ...] = ()
    mesh_bytes: int = 0
    acceleration: Mapping[str, AccelerationSummary] = msgspec.field(default_factory=dict)
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


# --- counting (the assessment's and the fix search's) -------------------------------------


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
