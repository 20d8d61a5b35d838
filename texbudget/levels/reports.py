"""A level's report: the one pipeline's ``evaluate`` over the scan as the level sees it.

Pure, like ``pipeline.evaluate``: nothing here reads a file. ``level_scan(levels, level)`` is a
``Scan`` holding only what the level loads — its textures and meshes (facts shared with the
whole scan, not copied), one ``SceneFacts`` whose ``instances`` are the level's counts and
whose ``texture_usage`` is the level's (material, slot) users, and the findings of its files —
so ``evaluate(level_scan(...), settings)`` is the level's report, priced, judged and fixed as
any scan is, and a settings switch re-evaluates it without reading anything (the TUI's
contract). The API the CLI and the TUI share:

- ``LevelSet``: the levels of one scan (``texbudget.levels.reading`` makes it);
- ``level_scan(levels, level)``: the scan of one level; ``level_report`` evaluates it;
- ``level_reports(levels, settings)``: every level's report; ``with_levels(report, …)`` the
  whole report with them (``Report.levels``) and the levels' findings;
- ``level_problems(report, limits)``: ``check --total``'s problems, each naming its level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from texbudget import findings as findings_mod
from texbudget.levels.graph import Level
from texbudget.model import Finding, SceneFacts, evolve, file_of
from texbudget.pipeline import LevelReport, Report, Settings, evaluate
from texbudget.scan.scene import Scan

if TYPE_CHECKING:
    from texbudget.config import LimitsSection

#: ``LevelSet.source``: levels named by ``[[level]]``; found in the project (no ``[[level]]``);
#: the one level named on the command line (``scan LEVEL``).
SOURCES = ("config", "auto", "path")
_SIDECARS = (".meta", ".import")


@dataclass(frozen=True)
class LevelSet:
    """The levels of one scan. ``scan``: the facts they are resolved in (the scan, plus the
    files they load that it did not read); ``levels`` in order; ``source`` one of ``SOURCES``;
    ``findings``: the levels' own (missing references, cycles, unknown ids) and the project
    indexes', each once."""

    scan: Scan
    levels: tuple[Level, ...]
    source: str = "config"
    findings: tuple[Finding, ...] = ()
    _order: dict[str, dict[str, int]] = field(default_factory=dict, compare=False, repr=False)

    def order(self, kind: str) -> Mapping[str, int]:
        """Asset path -> its place in the scan (``kind``: "textures" or "meshes"), found once."""
        found = self._order.get(kind)
        if found is None:
            found = self._order[kind] = {x.path: i for i, x in enumerate(getattr(self.scan, kind))}
        return found

    def level(self, name: str) -> Level | None:
        return next((lv for lv in self.levels if lv.name == name), None)


def _owner(path: str) -> str:
    """The asset a finding is about: ``rock.png.meta`` -> ``rock.png``, ``a.glb#mesh/0`` -> ``a.glb``."""
    path = file_of(path)
    for suffix in _SIDECARS:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def level_scan(levels: LevelSet, level: Level) -> Scan:
    """The scan as ``level`` sees it: its textures and meshes in the scan's order, one scene
    with its instance counts and texture users, its files' findings (for the level named on
    the command line, every finding of the scan: it read the level's files only)."""
    scan = levels.scan
    files = frozenset(level.files)
    own = [s for s in scan.scenes if s.path in files]
    cubes = {cube for s in own for _, cube in s.cube_faces}  # a glTF's IBL cubemaps: loaded with it
    wanted = set(level.textures) | cubes
    by_place = levels.order("textures")
    textures = tuple(scan.textures[i] for i in sorted(by_place[p] for p in wanted if p in by_place))
    mesh_place = levels.order("meshes")
    meshes = tuple(scan.meshes[i] for i in sorted(mesh_place[p] for p in level.meshes if p in mesh_place))
    scene = SceneFacts.from_uses(
        path=level.scene,
        instances=level.meshes.items(),
        texture_usage=[(tex, user, slot) for tex, users in level.textures.items() for user, slot in users],
        fallbacks=tuple(f for s in own for f in s.fallbacks if f in wanted),
        role="level",
        alpha_modes=tuple(m for s in own for m in s.alpha_modes),
        cube_faces=tuple(c for s in own for c in s.cube_faces),
    )
    if levels.source == "path":
        found = (*level.findings, *scan.findings, *levels.findings)
    else:
        found = (*level.findings, *(f for f in (*scan.findings, *levels.findings) if _owner(f.path) in files))
    return Scan(root=scan.root, textures=textures, meshes=meshes, scenes=(scene,),
                findings=tuple(dict.fromkeys(found)), engine=scan.engine,
                files=tuple(f for f in level.files if f in scan.files or f in files), cache=scan.cache)


def level_report(levels: LevelSet, level: Level, settings: Settings) -> Report:
    """``evaluate`` of the level's scan: the level's report."""
    return evaluate(level_scan(levels, level), settings)


def level_reports(levels: LevelSet, settings: Settings, *, fixes: bool | None = None) -> tuple[LevelReport, ...]:
    """Every level's report. ``fixes``: search fixes for over and tight cells (default: for
    named levels, not for levels found automatically, whose table shows totals only)."""
    if fixes is None:
        fixes = levels.source != "auto"
    if not fixes and settings.budget.fixes:
        settings = evolve(settings, budget=evolve(settings.budget, fixes=False))
    return tuple(LevelReport(name=lv.name, scene=lv.scene, source=levels.source, report=level_report(levels, lv, settings))
                 for lv in levels.levels)


def with_levels(report: Report, levels: LevelSet | None, settings: Settings, *, reports: bool = True,
                fixes: bool | None = None) -> Report:
    """The whole report with the levels' findings (each once) and, when ``reports``, their
    reports (``Report.levels``)."""
    if levels is None or not levels.levels:
        return report
    found = tuple(dict.fromkeys((*report.findings, *levels.findings)))
    return evolve(report, findings=found, levels=level_reports(levels, settings, fixes=fixes) if reports else ())


def path_report(levels: LevelSet, settings: Settings) -> Report:
    """``scan LEVEL``: the level's report is the report, and its one entry of ``levels``."""
    (level,) = levels.levels
    report = level_report(levels, level, settings)
    return evolve(report, levels=(LevelReport(name=level.name, scene=level.scene, source=levels.source, report=report),))


def level_problems(report: Report, limits: LimitsSection) -> list[Finding]:
    """``check --total`` for levels: every failing budget verdict (TB030) and
    ``max_total`` (TB027) of each named level, the level named in the line; levels found
    automatically are shown by ``scan``, not judged."""
    from texbudget.limits import total_problems

    return [findings_mod.make(lv.scene, f.code, f"level {lv.name}: {f.message}", f.hint or None)
            for lv in report.levels if lv.source != "auto" for f in total_problems(lv.report, limits)]


def judged(report: Report) -> bool:
    """Whether ``check --total`` judges the levels instead of the whole scan: levels named in
    the config or on the command line."""
    return any(lv.source != "auto" for lv in report.levels)
