"""The budget's verdicts: costs + scenario + cards → a ``ScenarioResult`` per scenario,
with the fixes (``budget.fixes``) for each card that is over or tight, and the findings
``check`` and SARIF report from them. DESIGN.md §1 "assess"; facts in spec/cards.md and
spec/textures.md §5–§6.

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

Each card is judged as ``budget.cards`` says (usable, headroom, verdict).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from texbudget import findings
from texbudget.budget.cards import Card, _ceil_share, card_budget, resolve_cards, verdict_of
from texbudget.budget.inputs import AccelerationSummary, BudgetInputs, _counted, _targets
from texbudget.budget.settings import BudgetSettings, cards_for, scenarios
from texbudget.model import Budget, CardVerdict, Finding, Fix, Scenario, ScenarioResult, evolve
from texbudget.units import human_bytes

CATEGORIES = ("textures", "meshes", "acceleration_structures", "render_targets")

# --- assess -----------------------------------------------------------------------------------


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
        # imported here: a report without fixes (the text check) or where every card fits
        # never runs the search, and its modules (``budget.changes``) cost start-up
        from texbudget.budget.fixes import _card_fixes

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
