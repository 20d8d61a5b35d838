"""Reading levels (the I/O side of docs/levels.md): start from each level's scene file,
resolve, read the files the levels name that were not read yet (``Level.wanted``), resolve
again, until nothing new is named. The readers and the resolver are pure; this loop is the
only place that decides what to read next.

- ``read_level(root, config, scene)``: ``texbudget scan LEVEL`` — only what that level loads
  is read (with the read cache, as any scan).
- ``scan_levels(scan, config)``: the levels of a whole scan — the config's ``[[level]]``
  entries, else, when the scan holds a Godot project or a Unity ``Assets`` folder, the
  project's own (``EngineProject.automatic_levels``); None when there are none. What the
  levels load that the scan did not read (a file ``[scan] exclude`` leaves out, or one
  ``[scan] follow = "gltf"`` does not follow) is read for them, and counted in the levels only.
- ``project_levels(scan, config)``: every level for the TUI's picker (``[[level]]``, then the
  project's levels it does not name); ``LevelReader`` reads levels with the TUI's jobs and cache.

A level loads what its files name, whatever ``[scan] include`` and ``exclude`` say: the
engine loads it too. Every round reads its files in one ``read_scene`` call (cache, process
pool and engine sidecars as in any scan); a scene of a few levels of props nested a few deep
takes a few rounds.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from texbudget.config import Config
from texbudget.errors import ConfigError
from texbudget.levels.graph import Graph, Level, default_name, loaded_textures, resolve_level
from texbudget.levels.project import EngineProject
from texbudget.levels.reports import LevelSet
from texbudget.model import SceneFacts, file_of
from texbudget.scan.job import Progress
from texbudget.scan.scene import Scan, read_scene

#: Rounds of reading at most: a chain of files each naming the next is read a level of
#: nesting a round; past this many the rest is reported missing (a generated chain, not a game).
MAX_ROUNDS = 64


def _unfiltered(config: Config) -> Config:
    """The config with ``[scan] include`` and ``exclude`` emptied: a level reads what it names."""
    return replace(config, scan=replace(config.scan, include=(), exclude=()))


def _join(base: Scan, part: Scan) -> Scan:
    """``base`` and a scan of other files, together."""
    return Scan(root=base.root, textures=base.textures + part.textures, meshes=base.meshes + part.meshes,
                scenes=base.scenes + part.scenes, findings=tuple(dict.fromkeys(base.findings + part.findings)),
                engine={**base.engine, **part.engine}, files=tuple(dict.fromkeys(base.files + part.files)),
                skipped=base.skipped + part.skipped, cache=part.cache if base.cache.status == "off" else base.cache)


def graph_of(scan: Scan, read: Collection[str]) -> Graph:
    """The resolver's graph of a scan's facts; ``read``: every file read, with or without facts."""
    return Graph(scan.meshes, scan.scenes, [t.path for t in scan.textures], read)


def _read_of(scan: Scan) -> set[str]:
    read = set(scan.files)
    for group in (scan.textures, scan.meshes, scan.scenes):
        read.update(file_of(x.path) for x in group)
    return read


def read_levels(
    root: Path, config: Config, scenes: Sequence[tuple[str, str]], source: str, *,
    base: Scan | None = None, project: EngineProject | None = None, jobs: int | None = None,
    progress: Progress | None = None, use_cache: bool = False,
) -> LevelSet:
    """The levels ``scenes`` ((name, scene path) each) resolved in ``base`` (None: nothing read
    yet), reading what they name until nothing new is named."""
    root = Path(root)
    scan = base if base is not None else Scan(root=root)
    project = project or EngineProject(root, scan.files, use_cache=use_cache)
    read = _read_of(scan)
    plain = _unfiltered(config)
    pending = sorted({scene for _, scene in scenes if scene not in read and os.path.isfile(root / scene)})
    levels: list[Level] = []
    for _ in range(MAX_ROUNDS):
        if pending:
            part = read_scene(root, plain, [root / rel for rel in pending], jobs=jobs, progress=progress, use_cache=use_cache)
            scan = _join(scan, part)
            read.update(pending, _read_of(part))
        graph = graph_of(scan, read)
        project.graph = graph
        levels = [resolve_level(scene, graph, project, name) for name, scene in scenes]
        pending = sorted({w for lv in levels for w in lv.wanted
                          if w not in read and os.path.isfile(root / w)})
        if not pending:
            break
    found = tuple(dict.fromkeys([f for lv in levels for f in lv.findings] + list(project.findings())))
    return LevelSet(scan=scan, levels=tuple(levels), source=source, findings=found)


def project_scan(scan: Scan, levels: LevelSet | None = None, *, project: EngineProject | None = None,
                 use_cache: bool = False) -> Scan:
    """The whole scan as its report counts it when it holds engine scenes or resources
    (docs/levels.md, "The whole scan of an engine project"): ``scan`` and one more
    ``SceneFacts`` (role "project", path "") holding

    - every texture a material or scene of the scan references (a ``texture`` edge of a Godot
      ``.tres``/``.tscn``, a sub-resource material, a Unity ``.mat``; resolved by the project
      index to a texture the scan read) as a (texture, material, slot) use, as a glTF's
      materials give them: ``used_by`` names the material, its slot counts as a glTF slot
      does, and such a texture is not "unused" (TB006); an AtlasTexture or SpriteFrames file
      a material or a 3D sprite uses (an "instance" edge with a slot) gives each texture it
      loads a use of that slot too (a Sprite3D's sprite sheet is drawn in 3D);
    - the instances ``levels`` place, summed over the levels (the whole scan is every level
      loaded at once, as a folder of glTF scenes is every scene); ``pipeline.instance_counts``
      takes them instead of a model's own scene graph.

    ``scan`` itself when there is nothing to add (a texture or glTF tree: unchanged)."""
    engine = [s for s in scan.scenes if s.refs]
    if not engine and (levels is None or not levels.levels):
        return scan
    have = {t.path for t in scan.textures}
    uses: dict[tuple[str, str, str], None] = {}
    if engine:
        project = project or EngineProject(Path(scan.root), scan.files, use_cache=use_cache)
        relayed: list[tuple[str, str]] = []
        for facts in engine:
            for ref in facts.refs:
                if ref.kind == "texture":
                    path = project.resolve(ref.target, facts.path, kind="texture")
                    if path in have:
                        uses[(path, ref.holder, ref.slot)] = None
                elif ref.kind == "instance" and ref.slot:
                    path = project.resolve(ref.target, facts.path, kind="instance")
                    if path is not None:
                        relayed.append((file_of(path), ref.slot))
        if relayed:  # rare (a Sprite3D's sprite sheet file): the graph only then
            loaded = loaded_textures(dict.fromkeys(file for file, _ in relayed), graph_of(scan, _read_of(scan)), project)
            for file, slot in relayed:
                for tex in loaded[file]:
                    if tex in have:
                        uses[(tex, file, slot)] = None
    meshes = {m.path for m in scan.meshes}
    placed: dict[str, int] = {}
    for level in levels.levels if levels is not None else ():
        for mesh, n in level.meshes.items():
            if mesh in meshes:
                placed[mesh] = placed.get(mesh, 0) + n
    if not uses and not placed:
        return scan
    extra = SceneFacts.from_uses(path="", instances=sorted(placed.items()), texture_usage=uses, role="project")
    return replace(scan, scenes=(*scan.scenes, extra))


def level_name(scene: str, config: Config) -> str:
    """The name ``[[level]]`` gives ``scene``, else its file name without the suffix."""
    return next((name for name, configured in config.levels if configured == scene), default_name(scene))


def read_level(root: Path, config: Config, scene: str, *, jobs: int | None = None,
               progress: Progress | None = None, use_cache: bool = False) -> LevelSet:
    """``texbudget scan LEVEL``: the one level ``scene`` (a path relative to ``root``), with only
    what it loads read."""
    return read_levels(root, config, [(level_name(scene, config), scene)], "path",
                       jobs=jobs, progress=progress, use_cache=use_cache)


def configured_scenes(root: Path, config: Config) -> list[tuple[str, str]]:
    """``[[level]]`` entries, each scene checked to exist: a missing one is one error line."""
    for i, (name, scene) in enumerate(config.levels, 1):
        if not os.path.isfile(Path(root) / scene):
            raise ConfigError(f"{config.path or 'config'}: [[level]] #{i} ({name}) scene = {scene!r}: "
                              f"no such file under the scan root {root}")
    return list(config.levels)


def _unique(scenes: Sequence[str]) -> list[tuple[str, str]]:
    """A name per scene: its file name without the suffix, or its path where two share one."""
    stems = [posixpath.basename(s).rsplit(".", 1)[0] for s in scenes]
    return [(stem if stems.count(stem) == 1 else s.rsplit(".", 1)[0], s) for stem, s in zip(stems, scenes, strict=True)]


def scan_levels(scan: Scan, config: Config, *, jobs: int | None = None, progress: Progress | None = None,
                use_cache: bool = False, project: EngineProject | None = None) -> LevelSet | None:
    """The levels of a whole scan: ``[[level]]`` (source "config"), else those of the Godot or
    Unity projects in it (source "auto"); None when there are none. Nothing is looked for in
    a scan without a Godot or Unity scene, unless the config names levels. ``project``: the
    scan's (shared with ``project_scan``: its indexes are built once)."""
    root = Path(scan.root)
    project = project or EngineProject(root, scan.files, use_cache=use_cache)
    if config.levels:
        return read_levels(root, config, configured_scenes(root, config), "config", base=scan, project=project,
                           jobs=jobs, progress=progress, use_cache=use_cache)
    found = _automatic(scan, project)
    if not found:
        return None
    return read_levels(root, config, _unique(found), "auto", base=scan, project=project,
                       jobs=jobs, progress=progress, use_cache=use_cache)


def _automatic(scan: Scan, project: EngineProject) -> tuple[str, ...]:
    """The project's own levels (``EngineProject.automatic_levels``); none without a scene."""
    if not any(s.role == "scene" for s in scan.scenes):
        return ()
    graph = graph_of(scan, _read_of(scan))
    project.graph = graph
    return project.automatic_levels(scan.scenes, graph)


def project_levels(scan: Scan, config: Config, *, jobs: int | None = None, use_cache: bool = False,
                   project: EngineProject | None = None) -> tuple[LevelSet, ...]:
    """Every level of a whole scan, for the TUI's picker: the ``[[level]]`` levels (source
    "config"), then the project's levels that ``[[level]]`` does not name (source "auto", named
    by their file, or their path where a name is taken). The first set is ``scan_levels``'s
    (its findings are the whole report's), the project's levels read on its scan; () when
    there are none."""
    project = project or EngineProject(Path(scan.root), scan.files, use_cache=use_cache)
    first = scan_levels(scan, config, jobs=jobs, use_cache=use_cache, project=project)
    if first is None or first.source == "auto":
        return () if first is None else (first,)
    named = {scene for _, scene in config.levels}
    found = [s for s in _automatic(first.scan, project) if s not in named]
    if not found:
        return (first,)
    taken = {name for name, _ in config.levels}
    scenes = [(name if name not in taken else scene.rsplit(".", 1)[0], scene) for name, scene in _unique(found)]
    return (first, read_levels(Path(scan.root), config, scenes, "auto", base=first.scan, project=project, jobs=jobs,
                               use_cache=use_cache))


@dataclass(frozen=True)
class LevelReader:
    """How the TUI reads levels, with its scanner's ``jobs`` and read cache: ``project`` after a
    whole scan (``project_levels``), ``one`` for the level ``tui LEVEL`` names (``read_level``:
    shown before the whole scan is read, and kept in the picker when the project's levels do
    not include it)."""

    jobs: int | None = None
    use_cache: bool = False

    def engine(self, scan: Scan) -> EngineProject:
        """The scan's engine project, to share between ``project`` and ``counted``."""
        return EngineProject(Path(scan.root), scan.files, use_cache=self.use_cache)

    def project(self, scan: Scan, config: Config, engine: EngineProject | None = None) -> tuple[LevelSet, ...]:
        return project_levels(scan, config, jobs=self.jobs, use_cache=self.use_cache, project=engine)

    def one(self, root: Path, config: Config, scene: str) -> LevelSet:
        return read_level(root, config, scene, jobs=self.jobs, use_cache=self.use_cache)

    def counted(self, scan: Scan, levels: LevelSet | None, engine: EngineProject | None = None) -> Scan:
        """The whole scan as its report counts it (``project_scan``)."""
        return project_scan(scan, levels, project=engine, use_cache=self.use_cache)
