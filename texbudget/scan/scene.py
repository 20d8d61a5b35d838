"""Reading a scene (the I/O stage of DESIGN.md §1): ``read_scene`` discovers, reads each
file with its engine sidecar (``scan.job``), and gathers everything into one immutable
``Scan``; ``gc_paused`` is the collector's pause the pipeline shares.

``read_scene`` is the only function of ``texbudget.scan`` the rest of texbudget calls; the TUI
keeps the ``Scan`` it returns and re-runs ``pipeline.evaluate`` on it for every settings
switch.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from texbudget import cache as cache_mod
from texbudget.config import Config
from texbudget.discover import Discovered, discover
from texbudget.engine import EngineImport
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, TextureFacts, is_part
from texbudget.readers import KNOWN_FILES
from texbudget.scan.job import CacheStats, Progress, _Job, _stats
from texbudget.scan.reading import Reader, _read_one, is_scene


def follows_gltf(config: Config, paths: Sequence[Path] | None) -> bool:
    """``[scan] follow = "gltf"`` applies: a walk reads the scenes and the images they use
    only; files named on the command line are read as given."""
    return paths is None and config["scan.follow"] == "gltf"


@dataclass(frozen=True)
class Scan:
    """Everything read from disk for one scan root. Immutable; the TUI keeps it."""

    root: Path
    textures: tuple[TextureFacts, ...] = ()
    meshes: tuple[MeshFacts, ...] = ()
    scenes: tuple[SceneFacts, ...] = ()
    findings: tuple[Finding, ...] = ()
    engine: Mapping[str, EngineImport] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    skipped: int = 0
    cache: CacheStats = field(default_factory=CacheStats, compare=False)


# --- the scene ------------------------------------------------------------------------------


def read_scene(
    root: Path,
    config: Config,
    paths: Sequence[Path] | None = None,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    reader: Reader = _read_one,
    cache: cache_mod.Cache | None = None,
    use_cache: bool = False,
    found: Discovered | None = None,
) -> Scan:
    """Discover and read every asset under ``root`` (or just ``paths``); ``found``: that
    discovery, made already by the caller (``check`` looks before it imports the pipeline).

    ``cache``: an open ``texbudget.cache.Cache`` of this root (the caller closes it), or
    ``use_cache=True`` to open and close one here. The cache is used with the default
    ``reader`` only: a custom reader's results are never stored. ``jobs``: worker processes
    for cache misses (default: the number of cores); a pool is started only for
    ``POOL_MIN_FILES`` misses or more. ``progress(done, total)`` is called as files are
    read or found in the cache. ``Scan.cache`` says what the cache did.
    """
    root = Path(root)
    if cache is None and use_cache:
        with cache_mod.Cache.open(root) as opened:
            return read_scene(root, config, paths, jobs=jobs, progress=progress, reader=reader, cache=opened, found=found)
    if found is None:
        found = discover(root, config["scan.include"], config["scan.exclude"], paths)
    files = list(found.files)
    following = follows_gltf(config, paths)
    if following:
        files = [rel for rel in files if is_scene(rel)]  # and what they reference
    active = cache if reader is _read_one else None
    before = active.counts() if active is not None else (0, 0, 0, 0)
    job = _Job(root, active, reader, jobs, progress, len(files), found.listed - found.with_sidecars)
    known = KNOWN_FILES.set((os.fspath(root), frozenset(found.files)))  # what a glTF's URIs need not walk
    try:
        with gc_paused():
            values = job.read(files)
            results = [(rel, *values[rel]) for rel in files]
            scan = _combine(root, found, files if following else None, results, job)
    finally:
        KNOWN_FILES.reset(known)
    if active is not None:
        if paths is None:
            active.prune(set(files) | job.followed)
        notes = tuple(active.take_notes())
        scan = Scan(
            root=scan.root, textures=scan.textures, meshes=scan.meshes, scenes=scan.scenes,
            findings=scan.findings + notes, engine=scan.engine, files=scan.files,
            skipped=scan.skipped, cache=_stats(active, before, bool(notes)),
        )
    elif cache is not None:
        scan = _with_stats(scan, CacheStats("off", reason="a custom reader was given; the cache is not used"))
    return scan


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while facts or a report are built: they hold no cycles,
    and the collector's passes over tens of thousands of new objects cost about 20% of a warm
    read (10k files from the cache: 0.25 s -> 0.20 s) and of a recompute (109 -> 87 ms)."""
    was = gc.isenabled()
    gc.disable()
    frozen = gc.get_freeze_count()
    try:
        yield
    finally:
        # What the block built lives on (the scan, the report); the collection that the
        # allocation count now due would set off walks every object of it (0.4 s after a scan
        # of 100k files). Promote it all to the oldest generation instead, without walking
        # it: freeze and unfreeze move the lists whole. When something was frozen before (the
        # console script's start-up, or a caller's own), it stays frozen, and so does this.
        gc.freeze()
        if not frozen:
            gc.unfreeze()
        if was:
            gc.enable()


def _with_stats(scan: Scan, stats: CacheStats) -> Scan:
    return Scan(root=scan.root, textures=scan.textures, meshes=scan.meshes, scenes=scan.scenes,
                findings=scan.findings, engine=scan.engine, files=scan.files, skipped=scan.skipped,
                cache=stats)


def _keep_engine(rel: str, eng: object, engine: dict, findings: list[Finding]) -> None:
    if isinstance(eng, Finding):
        findings.append(eng)
    elif isinstance(eng, EngineImport):
        engine[rel] = eng
        findings.extend(eng.findings)


def _combine(root: Path, found, following: list[str] | None, results: Iterable[tuple[str, ReadResult, object]], job: _Job) -> Scan:
    """The scan from the files read (all that discovery ``found``, or under ``[scan] follow
    = "gltf"`` the glTF/GLB files in ``following``), with the images their scenes use that
    were not read yet (excluded from discovery, or not read under ``follow``)."""
    textures: list[TextureFacts] = []
    meshes: list[MeshFacts] = []
    scenes: list[SceneFacts] = []
    findings: list[Finding] = list(found.findings)
    engine: dict[str, EngineImport] = {}
    for rel, result, eng in results:
        textures += result.textures
        meshes += result.meshes
        scenes += result.scenes
        findings += result.findings
        if eng is not None:
            _keep_engine(rel, eng, engine, findings)
    read_paths = {t.path for t in textures} | set(found.files if following is None else following)
    follow: list[str] = []
    for scene in scenes:
        for tex, _, _ in scene.texture_usage:
            if not is_part(tex) and tex not in read_paths and os.path.isfile(os.path.join(root, tex)):
                read_paths.add(tex)
                follow.append(tex)
    if follow:
        job.total += len(follow)
        job.followed.update(follow)
        values = job.read(follow)
        for tex in follow:
            result, eng = values[tex]
            textures += result.textures
            findings += result.findings
            _keep_engine(tex, eng, engine, findings)
    return Scan(
        root=root, textures=tuple(textures), meshes=tuple(meshes), scenes=tuple(scenes),
        findings=tuple(findings), engine=engine, skipped=found.skipped,
        files=found.files if following is None else tuple(sorted({*following, *follow})),
    )
