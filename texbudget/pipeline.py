"""The one pipeline (DESIGN.md §1): discover → read → decide → price → assess.

``read_scene`` does the I/O (discovery, readers, engine sidecars) and returns ``SceneFacts``-
level data in a ``Scan``. ``evaluate`` is pure: facts + ``Settings`` → ``Report``. Switching
platform, quality, resolution or RT in the CLI or the TUI re-runs ``evaluate`` only; files
are never read again. The CLI, the TUI and the benchmarks all call these two functions.
"""

from __future__ import annotations

import fnmatch
import os
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from texbudget import budget as budget_mod
from texbudget import policy
from texbudget.config import Config
from texbudget.discover import discover
from texbudget.model import (
    Finding,
    MeshFacts,
    ReadResult,
    ScenarioResult,
    SceneFacts,
    TextureCost,
    TextureFacts,
    TexturePlan,
)
from texbudget.readers import read_path
from texbudget.sizing import bvh
from texbudget.sizing.meshes import MeshCost, VertexLayout, price_mesh

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Scan:
    """Everything read from disk for one scan root. Immutable; the TUI keeps it."""

    root: Path
    textures: tuple[TextureFacts, ...] = ()
    meshes: tuple[MeshFacts, ...] = ()
    scenes: tuple[SceneFacts, ...] = ()
    findings: tuple[Finding, ...] = ()
    engine: Mapping[str, policy.EngineImport] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    skipped: int = 0


@dataclass(frozen=True)
class Settings:
    """The resolved settings of one evaluation: config defaults overridden by flags or keys."""

    policy: policy.PolicySettings
    budget: budget_mod.BudgetSettings
    rules: tuple[policy.Rule, ...] = ()
    instances: tuple[tuple[str, int], ...] = ()
    layout: VertexLayout | None = None
    skinned_copy: bool = False
    rt_lod: int = 0
    config_label: str = "defaults"


@dataclass(frozen=True)
class TextureRow:
    facts: TextureFacts
    plan: TexturePlan
    cost: TextureCost
    used_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeshRow:
    facts: MeshFacts
    cost: MeshCost
    blas: bvh.BlasEstimate | None = None


@dataclass(frozen=True)
class Report:
    """What every renderer and the TUI show. ``textures``/``meshes`` are priced at the first
    quality tier and RT vendor of the settings; ``scenarios`` cover every combination."""

    root: Path
    settings: Settings
    textures: tuple[TextureRow, ...]
    meshes: tuple[MeshRow, ...]
    findings: tuple[Finding, ...]
    scenarios: tuple[ScenarioResult, ...]
    acceleration: Mapping[str, bvh.AccelerationCost] = field(default_factory=dict)


# --- read (I/O) ----------------------------------------------------------------------


def _read_one(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    root, rel = args
    result = read_path(root, rel)
    engine = None
    if result.textures and "#" not in rel:
        engine = policy.read_engine_import(root / rel)
    return rel, result, engine


def read_scene(
    root: Path,
    config: Config,
    paths: Sequence[Path] | None = None,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    reader: Callable[[tuple[Path, str]], tuple[str, ReadResult, object]] = _read_one,
) -> Scan:
    """Discover and read every asset under ``root`` (or just ``paths``)."""
    found = discover(root, config["scan.include"], config["scan.exclude"], paths)
    files = list(found.files)
    results: list[tuple[str, ReadResult, object]] = []
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs > 1 and len(files) >= 64:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, item in enumerate(pool.map(reader, [(root, f) for f in files], chunksize=32), 1):
                results.append(item)
                if progress:
                    progress(i, len(files))
    else:
        for i, rel in enumerate(files, 1):
            results.append(reader((root, rel)))
            if progress:
                progress(i, len(files))
    return _combine(root, found, results, reader)


def _combine(root: Path, found, results, reader) -> Scan:
    textures: list[TextureFacts] = []
    meshes: list[MeshFacts] = []
    scenes: list[SceneFacts] = []
    findings: list[Finding] = list(found.findings)
    engine: dict[str, policy.EngineImport] = {}
    for rel, result, eng in results:
        textures += result.textures
        meshes += result.meshes
        scenes += result.scenes
        findings += result.findings
        if isinstance(eng, Finding):
            findings.append(eng)
        elif eng is not None:
            engine[rel] = eng
    # Images a glTF references but discovery did not list (excluded, or a `gltf` follow scan)
    read_paths = {t.path for t in textures} | set(found.files)
    for scene in scenes:
        for tex, _, _ in scene.texture_usage:
            if "#" not in tex and tex not in read_paths and (root / tex).is_file():
                rel, result, eng = reader((root, tex))
                read_paths.add(tex)
                textures += result.textures
                findings += result.findings
                if eng is not None and not isinstance(eng, Finding):
                    engine[rel] = eng
    return Scan(
        root=root, textures=tuple(textures), meshes=tuple(meshes), scenes=tuple(scenes),
        findings=tuple(findings), engine=engine, files=tuple(found.files), skipped=found.skipped,
    )


# --- evaluate (pure) -------------------------------------------------------------------


def _usage(scan: Scan) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    users: dict[str, list[str]] = defaultdict(list)
    slots: dict[str, list[str]] = defaultdict(list)
    for scene in scan.scenes:
        for tex, user, slot in scene.texture_usage:
            if user not in users[tex]:
                users[tex].append(user)
            if slot not in slots[tex]:
                slots[tex].append(slot)
    return users, slots


def instance_counts(scan: Scan, overrides: Sequence[tuple[str, int]]) -> dict[str, int]:
    """Instances per mesh: the scene graphs' counts, then ``[[instances]]`` globs (last wins);
    a mesh no scene places counts once."""
    counts: dict[str, int] = {}
    for scene in scan.scenes:
        for mesh, n in scene.instances:
            counts[mesh] = counts.get(mesh, 0) + n
    for mesh in scan.meshes:
        counts.setdefault(mesh.path, 1)
        for pattern, n in overrides:
            base = mesh.path.split("#", 1)[0]
            if fnmatch.fnmatchcase(mesh.path, pattern) or fnmatch.fnmatchcase(base, pattern):
                counts[mesh.path] = n
    return counts


def plan_textures(scan: Scan, settings: Settings, quality: str) -> tuple[tuple[TextureFacts, TexturePlan, TextureCost], ...]:
    _, slots = _usage(scan)
    psettings = replace(settings.policy, quality=quality)
    out = []
    for facts in scan.textures:
        plan = policy.decide(facts, psettings, settings.rules, scan.engine.get(facts.path), slots.get(facts.path, ()))
        out.append((facts, plan, policy.price(plan)))
    return tuple(out)


def price_meshes(scan: Scan, settings: Settings) -> tuple[MeshCost, ...]:
    counts = instance_counts(scan, settings.instances)
    return tuple(
        price_mesh(m, counts.get(m.path, 1), settings.layout, settings.skinned_copy)
        for m in scan.meshes
    )


def evaluate(scan: Scan, settings: Settings) -> Report:
    """Pure: facts + settings → priced rows and a verdict per scenario and card."""
    users, _ = _usage(scan)
    scenarios = budget_mod.scenarios(settings.budget)
    qualities = list(dict.fromkeys(s.quality for s in scenarios)) or [settings.policy.quality]
    planned = {q: plan_textures(scan, settings, q) for q in qualities}
    mesh_costs = price_meshes(scan, settings)
    mesh_bytes = sum(m.buffer_bytes for m in mesh_costs)
    profiles = bvh.load_profiles()
    vendors = sorted({s.rt for s in scenarios if s.rt != "off"})
    acceleration = {
        v: bvh.estimate_scene(profiles[v], mesh_costs, compaction=settings.budget.rt_compaction, rt_lod=settings.rt_lod)
        for v in vendors
    }
    summaries = {v: budget_mod.summarize_acceleration(a) for v, a in acceleration.items()}
    results = []
    for scenario in scenarios:
        costs = tuple(c for _, _, c in planned[scenario.quality])
        opaque = frozenset(f.path for f, _, _ in planned[scenario.quality] if not f.alpha)
        inputs = budget_mod.BudgetInputs(textures=costs, mesh_bytes=mesh_bytes, acceleration=summaries, opaque=opaque)
        results.append(budget_mod.assess(inputs, scenario, settings.budget))
    first = planned[qualities[0]]
    tex_rows = tuple(
        TextureRow(f, p, c, tuple(users.get(f.path, ()))) for f, p, c in first
    )
    first_accel = acceleration.get(vendors[0]) if vendors else None
    blas_by_path = dict(first_accel.per_mesh) if first_accel else {}
    mesh_rows = tuple(MeshRow(m, c, blas_by_path.get(c.path)) for m, c in zip(scan.meshes, mesh_costs, strict=True))
    return Report(
        root=scan.root, settings=settings, textures=tex_rows, meshes=mesh_rows,
        findings=scan.findings, scenarios=tuple(results), acceleration=acceleration,
    )
