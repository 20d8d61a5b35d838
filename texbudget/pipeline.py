"""The one pipeline (DESIGN.md §1): discover → read → decide → price → assess.

``scan.scene.read_scene`` does the I/O (discovery, readers, engine sidecars) and returns a
``Scan``. ``evaluate`` is pure: facts + ``Settings`` → ``Report``. Switching
platform, quality, resolution or RT in the CLI or the TUI re-runs ``evaluate`` only; files
are never read again. The CLI, the TUI and the benchmarks all call these two functions.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec

from texbudget import findings
from texbudget.budget.assessment import assess
from texbudget.budget.cards import resolve_cards
from texbudget.budget.inputs import BudgetInputs, summarize_acceleration
from texbudget.budget.settings import BudgetSettings, settings_from_config
from texbudget.budget.settings import scenarios as budget_scenarios
from texbudget.collector import paused
from texbudget.config import Config
from texbudget.model import (
    Finding,
    Record,
    ScenarioResult,
    SceneFacts,
    TextureCost,
    TextureFacts,
    TexturePlan,
    evolve,
    file_of,
    is_part,
)
from texbudget.policy.decision import content_role, decide_all, price
from texbudget.policy.profiles import PolicySettings
from texbudget.policy.rules import Rule
from texbudget.scan.scene import Scan
from texbudget.sizing import bvh
from texbudget.sizing.meshes import MeshCost, VertexLayout, price_mesh
from texbudget.slots import alpha_unread
from texbudget.units import human_bytes


class Settings(msgspec.Struct, frozen=True):
    """The resolved settings of one evaluation: config defaults overridden by flags or keys."""

    policy: PolicySettings
    budget: BudgetSettings
    rules: tuple[Rule, ...] = ()
    instances: tuple[tuple[str, int], ...] = ()
    layout: VertexLayout | None = None
    skinned_copy: bool = False
    rt_lod: int = 0
    config_label: str = "defaults"


class TextureRow(Record, frozen=True):
    facts: TextureFacts
    plan: TexturePlan
    cost: TextureCost
    used_by: tuple[str, ...] = ()


class Report(msgspec.Struct, frozen=True):
    """What every renderer and the TUI show. ``textures``/``meshes`` are priced at the first
    quality tier and RT vendor of the settings; ``scenarios`` cover every combination. A mesh's
    row is its ``MeshCost`` (which holds its facts, ``facts``), with the first RT vendor's BLAS
    estimate in ``blas`` (None without RT)."""

    root: Path
    settings: Settings
    textures: tuple[TextureRow, ...]
    meshes: tuple[MeshCost, ...]
    findings: tuple[Finding, ...]
    scenarios: tuple[ScenarioResult, ...]
    acceleration: Mapping[str, bvh.AccelerationCost] = msgspec.field(default_factory=dict)
    # the levels' own reports (texbudget.levels.reports.with_levels; docs/levels.md)
    levels: tuple[LevelReport, ...] = ()


class LevelReport(msgspec.Struct, frozen=True):
    """One level's own report, as the whole report carries it (``Report.levels``,
    docs/levels.md): ``source`` is "config" (``[[level]]``), "auto" (found in the project) or
    "path" (the level named on the command line)."""

    name: str
    scene: str
    source: str
    report: Report

    @property
    def texture_bytes(self) -> int:
        """What the level's textures count (allocated, first quality tier; ignored ones not)."""
        return sum(t.cost.allocated_bytes for t in self.report.textures if not t.plan.ignored)

    @property
    def mesh_bytes(self) -> int:
        return sum(m.buffer_bytes for m in self.report.meshes)


# --- evaluate (pure) -------------------------------------------------------------------


class _Prepared(msgspec.Struct, frozen=True):
    """What ``evaluate`` needs of a scan that no setting changes: who uses each texture, in
    which glTF slots, which textures are opaque, and each texture's own role (slots, name,
    header). A settings switch in the TUI re-runs ``evaluate`` on the same scan; this part
    is found once per scan (``prepare``)."""

    users: Mapping[str, tuple[str, ...]]  # texture path -> materials that use it
    slots: Mapping[str, tuple[str, ...]]  # texture path -> glTF slots it fills
    own_roles: tuple[tuple[str, str], ...]  # per scan texture: policy.decision.content_role
    opaque: frozenset[str]  # paths of the textures without alpha, or whose alpha no use reads
    # path -> why no use reads the alpha of this texture with alpha (slots.alpha_unread)
    alpha_unused: Mapping[str, str] = msgspec.field(default_factory=dict)
    # path -> why it is not counted: an image that is only a glTF texture's fallback
    # (SceneFacts.fallbacks; an engine that reads the extension never loads it), or a face of
    # an EXT_lights_image_based cubemap (SceneFacts.cube_faces; priced as the cubemap), that
    # no material uses otherwise
    not_counted: Mapping[str, str] = msgspec.field(default_factory=dict)


#: The last scan prepared and what was found. Keyed on the Scan object itself (identity; a
#: Scan is immutable, and holding it keeps the key from being reused): everything in
#: ``_Prepared`` comes from the scan's textures and scenes alone. One entry: the TUI
#: re-evaluates one scan; a new scan replaces it.
_prepared: tuple[Scan, _Prepared] | None = None


def prepare(scan: Scan) -> _Prepared:
    """What no setting changes about ``scan`` (``_Prepared``), found once per scan."""
    global _prepared
    last = _prepared
    if last is not None and last[0] is scan:
        return last[1]
    # Each texture's users in the order met, and its slots once each (a dict as an ordered
    # set): one dict lookup per use (a mesh library's scenes hold tens of thousands of uses of
    # a few hundred textures); then its users once each in that order.
    scenes = scan.scenes
    uses: dict[str, tuple[list[str], dict[str, None]]] = {}
    for tex, user, slot in zip(_column(scenes, "texture_paths"), _column(scenes, "texture_users"),
                               _column(scenes, "texture_slots"), strict=True):
        listed = uses.get(tex)
        if listed is None:
            uses[tex] = ([user], {slot: None})
        else:
            listed[0].append(user)
            listed[1][slot] = None
    users = {tex: tuple(dict.fromkeys(listed[0])) for tex, listed in uses.items()}
    found = {tex: tuple(listed[1]) for tex, listed in uses.items()}
    del uses
    # Per used texture with alpha, the (slot, alphaMode) of its uses, each once: every
    # material is OPAQUE but those with an alphaMode (rare: then the uses are walked again)
    modes = dict(_column(scenes, "alpha_modes"))
    alpha = [f.path for f in scan.textures if f.alpha and f.path in found]
    reads: dict[str, dict[tuple[str, str], None]]
    if modes:
        reads = {tex: {} for tex in alpha}
        for tex, user, slot in zip(_column(scenes, "texture_paths"), _column(scenes, "texture_users"),
                                   _column(scenes, "texture_slots"), strict=True):
            if tex in reads:
                reads[tex][slot, modes.get(user, "OPAQUE")] = None
    else:
        reads = {tex: dict.fromkeys(zip(found[tex], repeat("OPAQUE"))) for tex in alpha}
    roles: dict[tuple[str, str], tuple[str, str]] = {}  # one copy of each (role, reason)
    own_roles = []
    alpha_unused: dict[str, str] = {}
    for facts in scan.textures:
        role = content_role(facts, found.get(facts.path, ()))
        own_roles.append(roles.setdefault(role, role))
        if facts.alpha and facts.path in reads:
            reason = alpha_unread(reads[facts.path])
            if reason is not None:
                alpha_unused[facts.path] = reason
    not_counted = {path: FALLBACK for path in _column(scenes, "fallbacks") if path not in users}
    for face, cube in _column(scenes, "cube_faces"):
        if face not in users:
            not_counted.setdefault(face, f"a face of the cubemap {cube} (EXT_lights_image_based), priced there: not counted")
    prepared = _Prepared(
        users=users, slots=found, own_roles=tuple(own_roles),
        opaque=frozenset(f.path for f in scan.textures if not f.alpha) | alpha_unused.keys(),
        alpha_unused=alpha_unused, not_counted=not_counted,
    )
    _prepared = (scan, prepared)
    return prepared


def instance_counts(scan: Scan, overrides: Sequence[tuple[str, int]]) -> dict[str, int]:
    """Instances per mesh: the scene graphs' counts, then ``[[instances]]`` globs (last wins);
    a mesh no scene places and no glob names is not listed: it counts once. An engine
    project's levels (a scene of role "project", ``levels.reading.project_scan``) replace the
    count of each mesh they place."""
    project = [s for s in scan.scenes if s.role == "project"]
    counts = _placed([s for s in scan.scenes if s.role != "project"] if project else scan.scenes)
    counts.update(_placed(project))
    for pattern, n in overrides:
        for mesh in scan.meshes:
            if fnmatch.fnmatchcase(mesh.path, pattern) or fnmatch.fnmatchcase(file_of(mesh.path), pattern):
                counts[mesh.path] = n
    return counts


def _placed(scenes: Sequence[SceneFacts]) -> dict[str, int]:
    """What ``scenes`` place of each mesh, summed. A mesh library places each mesh in one
    scene once: the columns end to end are the counts then (C loops, no sums)."""
    paths = list(_column(scenes, "mesh_paths"))
    counts = dict(zip(paths, _column(scenes, "mesh_counts"), strict=True))
    if len(counts) < len(paths):  # some mesh is placed more than once: sum its counts
        counts = {}
        for scene in scenes:
            for placed, n in zip(scene.mesh_paths, scene.mesh_counts, strict=True):
                counts[placed] = counts.get(placed, 0) + n
    return counts


def _column(scenes: Sequence[SceneFacts], field: str) -> Iterator[Any]:
    """One field (a tuple) of every scene, end to end: the scenes are walked by C loops."""
    return chain.from_iterable(map(attrgetter(field), scenes))


def _plan_textures(scan: Scan, prepared: _Prepared, settings: Settings, quality: str) -> tuple[TextureCost, ...]:
    """Every texture decided and priced at one quality tier (a cost holds its plan); a
    glTF texture's fallback image (``FALLBACK``) and a cubemap's face are not counted."""
    model = settings.budget.allocation_model
    costs = decide_all(
        scan.textures, evolve(settings.policy, quality=quality), settings.rules, scan.engine,
        prepared.slots, prepared.own_roles, model, prepared.alpha_unused,
    )
    skip = prepared.not_counted
    if not skip:
        return costs
    return tuple(
        price(evolve(c.plan, ignored=True, decided_by=f"{skip[c.plan.path]}; {c.plan.decided_by}"), model)
        if c.plan.path in skip and not c.plan.ignored else c
        for c in costs
    )


#: Why a fallback image costs nothing.
FALLBACK = ("only the fallback source of a glTF texture whose extension source (KHR_texture_basisu, "
            "EXT_texture_webp, …) is used: not counted")


def price_meshes(scan: Scan, settings: Settings) -> tuple[MeshCost, ...]:
    """Every mesh priced. Equal ``buffer_bytes`` are one int object (a mesh library repeats a
    few sizes; 140,000 ints of their own were 4 MiB of the 100k ``glb`` benchmark tree's
    report), as the scan's counts and sizes are (``cache.Decoder``)."""
    counts = instance_counts(scan, settings.instances)
    kept: dict[int, int] = {}
    layout, skinned_copy = settings.layout, settings.skinned_copy
    return tuple([price_mesh(m, counts.get(m.path, 1), layout, skinned_copy, sizes=kept) for m in scan.meshes])


#: The last scan's meshes priced, their acceleration estimates by (vendor, compaction, RT
#: LOD), and the mesh rows with the BLAS of the last such key a report showed (``_with_blas``):
#: one entry, like ``_prepared``. A platform or quality switch leaves the meshes and rows as
#: they were; a change of instances, vertex layout or skinning prices them again.
_meshes: tuple[Scan, tuple, tuple[MeshCost, ...], dict[tuple, bvh.AccelerationCost],
               dict[tuple, tuple[MeshCost, ...]]] | None = None


def _priced_meshes(scan: Scan, settings: Settings) -> tuple[
        tuple[MeshCost, ...], dict[tuple, bvh.AccelerationCost], dict[tuple, tuple[MeshCost, ...]]]:
    global _meshes
    key = (settings.instances, settings.layout, settings.skinned_copy)
    last = _meshes
    if last is None or last[0] is not scan or last[1] != key:
        last = _meshes = (scan, key, price_meshes(scan, settings), {}, {})
    return last[2], last[3], last[4]


def _with_blas(costs: tuple[MeshCost, ...], acceleration: bvh.AccelerationCost) -> tuple[MeshCost, ...]:
    """The mesh rows of a report with RT: each cost with its BLAS in ``acceleration`` on a
    copy (the priced costs stay blas-free for the next switch); a mesh without one (a LOD
    group's other members) is its cost."""
    by_path = dict(acceleration.per_mesh)
    return tuple(c if (b := by_path.get(c.path)) is None else evolve(c, blas=b) for c in costs)


#: Roles an engine loads without a material (skies, probes, UI): never "unused".
_NOT_MATERIAL_ROLES = frozenset({"ui", "hdr"})


def unused_textures(users: Mapping[str, Sequence[str]], rows: Sequence[TextureRow]) -> tuple[Finding, ...]:
    """In a scene-driven scan (some scanned material uses textures), the texture files no
    material uses (``users``: texture path -> its users). UI, HDR and cubemap textures are
    loaded by other means and not listed."""
    if not users:
        return ()
    out = []
    messages: dict[int, str] = {}  # bytes -> message: one string for the many of one size
    for row in rows:
        facts, plan = row.facts, row.plan
        if (is_part(facts.path) or facts.path in users or plan.role in _NOT_MATERIAL_ROLES
                or facts.faces == 6 or plan.ignored):
            continue
        size = row.cost.allocated_bytes
        if size not in messages:
            messages[size] = f"no material of the scanned scenes uses this texture; it still counts {human_bytes(size)}"
        out.append(findings.make(facts.path, "TB006", messages[size]))
    return tuple(out)


#: The last scan's rules that matched no texture, by the config's matches: one entry, like
#: ``_prepared`` (a TUI switch of platform or quality does not look again).
_unmatched: tuple[Scan, tuple[str, ...], tuple[Finding, ...]] | None = None


def unmatched_rules(scan: Scan, settings: Settings) -> tuple[Finding, ...]:
    """TB017 for each ``[[rule]]`` of the config file whose match names no scanned texture
    (its platforms aside): a typo or a renamed folder that silently does nothing. Rules
    from elsewhere (the TUI's what-ifs) are not looked at."""
    global _unmatched
    rules = [r for r in settings.rules if r.source == settings.config_label]
    key = tuple(r.match for r in rules)
    last = _unmatched
    if last is not None and last[0] is scan and last[1] == key:
        return last[2]
    out: list[Finding] = []
    if rules:
        paths = {t.path for t in scan.textures}
        paths |= {file_of(p) for p in paths if is_part(p)}
        names = {p.rpartition("/")[2] for p in paths}
        for rule in rules:
            if not rule.matches_any(paths, names):
                slash = "; globs separate folders with /, not \\" if "\\" in rule.match else ""
                out.append(findings.make(settings.config_label, "TB017",
                                         f"[[rule]] #{rule.index} match {rule.match!r} names no scanned texture; it does nothing{slash}"))
    _unmatched = (scan, key, tuple(out))
    return _unmatched[2]


def evaluate(scan: Scan, settings: Settings) -> Report:
    """Pure: facts + settings → priced rows and a verdict per scenario and card."""
    with paused():
        return _evaluate(scan, settings)


def _evaluate(scan: Scan, settings: Settings) -> Report:
    prepared = prepare(scan)
    cards = resolve_cards(settings.budget.cards)
    scenarios = budget_scenarios(settings.budget, cards)
    qualities = list(dict.fromkeys(s.quality for s in scenarios)) or [settings.policy.quality]
    planned = {q: _plan_textures(scan, prepared, settings, q) for q in qualities}
    mesh_costs, estimates, blas_rows = _priced_meshes(scan, settings)
    mesh_bytes = sum(m.buffer_bytes for m in mesh_costs)
    vendors = list(dict.fromkeys(s.rt for s in scenarios if s.rt != "off"))
    keys = {v: (v, settings.budget.rt_compaction, settings.rt_lod) for v in vendors}
    acceleration = {}
    for v, key in keys.items():
        if key not in estimates:
            estimates[key] = bvh.estimate_scene(v, mesh_costs, compaction=settings.budget.rt_compaction, rt_lod=settings.rt_lod)
        acceleration[v] = estimates[key]
    summaries = {v: summarize_acceleration(a) for v, a in acceleration.items()}
    inputs = {
        q: BudgetInputs(textures=costs, mesh_bytes=mesh_bytes, acceleration=summaries, opaque=prepared.opaque)
        for q, costs in planned.items()
    }
    results = tuple(assess(inputs[s.quality], s, settings.budget, cards) for s in scenarios)
    # the inputs keep the fix search's tables (BudgetInputs._floors), which no row needs: gone
    # before the rows are made (about 5 MiB of the 100k glb tree's, at evaluate's peak)
    del inputs
    users = prepared.users
    tex_rows = tuple(
        TextureRow(facts=facts, plan=cost.plan, cost=cost, used_by=users.get(facts.path, ()))
        for facts, cost in zip(scan.textures, planned[qualities[0]], strict=True)
    )
    mesh_rows = mesh_costs  # the priced costs themselves without RT: no second object per mesh
    if vendors:  # with the first vendor's BLAS: made once for a key (the last key's kept)
        first = keys[vendors[0]]
        rows = blas_rows.get(first)
        if rows is None:
            blas_rows.clear()
            rows = blas_rows[first] = _with_blas(mesh_costs, acceleration[vendors[0]])
        mesh_rows = rows
    return Report(
        root=scan.root, settings=settings, textures=tex_rows, meshes=mesh_rows,
        findings=scan.findings + unused_textures(users, tex_rows) + unmatched_rules(scan, settings), scenarios=results,
        acceleration=acceleration,
    )


def deep_findings(report: Report) -> tuple[Finding, ...]:
    """``--deep``: decode each source image (one at a time) for opaque alpha and grey colour.
    Images inside a GLB are not decoded (their bytes are not kept after the header read)."""
    from texbudget.deep import deep_inspect

    out: list[Finding] = []
    for row in report.textures:
        if is_part(row.facts.path) or row.facts.stored_format or row.facts.transcodable:
            continue
        out.extend(deep_inspect(report.root / row.facts.path, row.facts, row.plan))
    return tuple(out)


# --- settings --------------------------------------------------------------------------


def build_settings(
    config: Config, *, platform: str | None = None, quality: Sequence[str] | str | None = None,
    resolutions: Sequence[str] | None = None, rt: Sequence[str] | str | None = None,
    cards: Sequence[str] | str | None = None,
) -> Settings:
    """The config's values overridden by flags (None = not given). Nothing is checked here:
    the config was checked when it was read (``config.load``) and the flags when they were
    parsed (``config.check_flag``), each mistake one line naming the file and key or the flag."""
    budget = config.budget
    qualities = (quality,) if isinstance(quality, str) else tuple(quality or budget.quality)
    plat = platform or budget.platform
    psettings = PolicySettings(platform=plat, quality=qualities[0], high_quality=budget.high_quality)
    bsettings = settings_from_config(
        budget, platform=plat, quality=qualities, resolutions=tuple(resolutions) if resolutions else None,
        rt=((rt,) if isinstance(rt, str) else tuple(rt)) if rt else None,
        cards=((cards,) if isinstance(cards, str) else tuple(cards)) if cards else None,
    )
    return Settings(
        policy=psettings, budget=bsettings, rules=config.rules, instances=config.instances,
        layout=config.meshes.layout, skinned_copy=config.meshes.skinned_copy, rt_lod=config.meshes.rt_lod,
        config_label=config.label,
    )
