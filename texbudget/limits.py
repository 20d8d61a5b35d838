"""Per-file rules of ``[limits]`` for ``texbudget check`` (pure: a Report in, findings out).

Each broken rule is one Finding whose message reads as ``what, measured > limit`` so that
``check`` prints ``path: message [code]``. Limits not set in the config are not checked.
"""

from __future__ import annotations

from collections.abc import Collection

from texbudget import findings, formats
from texbudget.budget.assessment import budget_findings
from texbudget.config import LimitsSection
from texbudget.model import Budget, Finding, Severity, file_of
from texbudget.pipeline import Report, TextureRow
from texbudget.sizing.meshes import MeshCost
from texbudget.sizing.textures import full_mip_count
from texbudget.units import human_bytes

#: roles a profile keeps uncompressed on purpose (UI): `forbid_uncompressed` spares them
_UNCOMPRESSED_OK_ROLES = frozenset({"ui"})


def _shape(row: TextureRow) -> str:
    f = row.facts
    dims = f"{f.width}x{f.height}" + (f"x{f.depth}" if f.depth > 1 else "")
    if f.faces == 6:
        dims += " cube"
    if f.layers > 1:
        dims += f" x{f.layers} layers"
    return f"{dims} {row.plan.gpu_format}"


def _is_pot(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def texture_limits(row: TextureRow, limits: LimitsSection) -> list[Finding]:
    f, plan, cost = row.facts, row.plan, row.cost
    if plan.ignored:
        return []
    out: list[Finding] = []
    path = f.path
    # the format's record only for the two limits that read it (most configs set neither)
    fmt = formats.find(plan.gpu_format) if limits.forbid_uncompressed or limits.multiple_of_4 else None
    if limits.max_bytes is not None and cost.allocated_bytes > limits.max_bytes:
        out.append(findings.make(path, "TB020", f"{_shape(row)}, {human_bytes(cost.allocated_bytes)} > max_bytes {human_bytes(limits.max_bytes)}"))
    if limits.max_size is not None and max(f.width, f.height) > limits.max_size:
        out.append(findings.make(path, "TB021", f"{f.width}x{f.height} > max_size {limits.max_size}"))
    if limits.forbid_uncompressed and fmt is not None and not fmt.compressed and plan.role not in _UNCOMPRESSED_OK_ROLES:
        out.append(findings.make(path, "TB022", f"{_shape(row)}, {human_bytes(cost.allocated_bytes)} uncompressed (forbid_uncompressed; {plan.decided_by})"))
    if limits.require_mips and f.stored_format and f.stored_levels == 1 and max(f.width, f.height) > 1 and not f.mips_generate:
        full = full_mip_count(f.width, f.height, f.depth)
        out.append(findings.make(path, "TB023", f"{_shape(row)}, 1 mip level stored < {full} of a full chain (require_mips)"))
    if limits.multiple_of_4 and fmt is not None and fmt.compressed and (f.width % 4 or f.height % 4):
        out.append(findings.make(path, "TB024", f"{f.width}x{f.height} is not a multiple of 4 for {plan.gpu_format} (multiple_of_4)"))
    if limits.power_of_two and not (_is_pot(f.width) and _is_pot(f.height)):
        out.append(findings.make(path, "TB025", f"{f.width}x{f.height} is not a power of two (power_of_two)"))
    return out


def mesh_limits(row: MeshCost, limits: LimitsSection) -> list[Finding]:
    cap = limits.max_triangles
    if cap is not None and row.facts.triangles > cap:
        return [findings.make(row.facts.path, "TB026", f"{row.facts.triangles:,} triangles > max_triangles {cap:,}")]
    return []


def check_limits(report: Report, limits: LimitsSection, only: Collection[str] | None = None) -> tuple[Finding, ...]:
    """Every broken per-file limit; ``only`` restricts to these files (asset paths whose file
    part is in it, so ``level.glb`` covers ``level.glb#mesh/3``)."""
    out: list[Finding] = []
    if limits.forbid_unused:
        out += [findings.make(f.path, "TB029", f.message + " (forbid_unused)") for f in report.findings
                if f.code == "TB006" and (only is None or f.path in only)]
    for t in report.textures:
        if only is None or file_of(t.facts.path) in only:
            out += texture_limits(t, limits)
    for m in report.meshes:
        if only is None or file_of(m.facts.path) in only:
            out += mesh_limits(m, limits)
    return tuple(out)


def total_limits(report: Report, limits: LimitsSection) -> tuple[Finding, ...]:
    """``max_total``: the largest scenario total against a fixed byte limit."""
    cap = limits.max_total
    if cap is None or not report.scenarios:
        return ()
    worst = max(report.scenarios, key=lambda s: s.total_bytes)
    if worst.total_bytes <= cap:
        return ()
    label = f"{worst.resolution} {worst.quality} rt {worst.rt}"
    return (findings.make(".", "TB027", f"{label}: scene total {human_bytes(worst.total_bytes)} > max_total {human_bytes(cap)}"),)


def total_problems(report: Report, limits: LimitsSection) -> list[Finding]:
    """``check --total``'s problems of one report (the whole scan's, or a level's): every
    failing budget verdict (``budget_findings``' errors: TB030) and ``max_total`` (TB027)."""
    scenarios = report.scenarios
    budget = Budget(scenarios=scenarios, cards=tuple(c.name for c in scenarios[0].cards) if scenarios else ())
    return [f for f in (*budget_findings(budget), *total_limits(report, limits)) if f.severity is Severity.ERROR]
