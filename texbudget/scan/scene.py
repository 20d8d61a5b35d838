"""Reading a scene (the I/O stage of DESIGN.md §1): ``read_scene`` discovers, reads each
file with its engine sidecar (``scan.job``), and gathers everything into one immutable
``Scan`` (the collector paused while it reads: ``collector.paused``).

``read_scene`` is the only function of ``texbudget.scan`` the rest of texbudget calls; the TUI
keeps the ``Scan`` it returns and re-runs ``pipeline.evaluate`` on it for every settings
switch.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from operator import itemgetter
from pathlib import Path
from typing import TypeVar

from texbudget import cache as cache_mod
from texbudget.collector import paused
from texbudget.config import Config
from texbudget.discover import Discovered, discover
from texbudget.engine import EngineImport
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, TextureFacts, is_part
from texbudget.readers import KNOWN_FILES
from texbudget.scan.job import CacheStats, Progress, _Job, _stats
from texbudget.scan.memory import keep_big_blocks_mapped
from texbudget.scan.reading import Reader, _read_one, is_scene

T = TypeVar("T")

#: Files from which a scan's freed big blocks are given back to the system as they are freed
#: (``scan.memory``): below it the tables are small and the holes they leave too.
BIG_SCAN = 10_000


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
    files: Sequence[str] = found.files  # (not a list of them: 0.8 MiB at 100k files)
    following = follows_gltf(config, paths)
    if following:
        files = [rel for rel in files if is_scene(rel)]  # and what they reference
    if len(files) >= BIG_SCAN:
        keep_big_blocks_mapped()
    active = cache if reader is _read_one else None
    before = active.counts() if active is not None else (0, 0, 0, 0)
    job = _Job(root, active, reader, jobs, progress, len(files), found.listed - found.with_sidecars)
    gathered = _Gathered(files)
    # what a glTF's URIs need not walk: every file discovery listed (when all are read, the
    # gathered files' own table: a second set of 100k paths was 4 MiB at the scan's peak)
    listed = frozenset(found.files) if following else gathered.position.keys()
    known = KNOWN_FILES.set((os.fspath(root), listed))
    try:
        with paused():
            job.read(files, gathered.take, gathered.position)
            scan = _combine(root, found, files if following else None, gathered, job)
    finally:
        KNOWN_FILES.reset(known)
    if active is not None:
        if paths is None:
            # every file read: the gathered table (no copy of its paths; the job's Signatures
            # are by it, so the cache knows every path it was asked for is kept) and those followed
            active.prune({*files, *job.followed} if job.followed else gathered.position)
        notes = tuple(active.take_notes())
        scan = Scan(
            root=scan.root, textures=scan.textures, meshes=scan.meshes, scenes=scan.scenes,
            findings=scan.findings + notes, engine=scan.engine, files=scan.files,
            skipped=scan.skipped, cache=_stats(active, before, bool(notes)),
        )
    elif cache is not None:
        scan = _with_stats(scan, CacheStats("off", reason="a custom reader was given; the cache is not used"))
    return scan


def _with_stats(scan: Scan, stats: CacheStats) -> Scan:
    return Scan(root=scan.root, textures=scan.textures, meshes=scan.meshes, scenes=scan.scenes,
                findings=scan.findings, engine=scan.engine, files=scan.files, skipped=scan.skipped,
                cache=stats)


class _Gathered:
    """The records of files read in any order (``_Job.read`` hands each file's over as it
    comes: cache hits, then the pool's chunks as they arrive), in the order of ``files``.

    Each file's records are appended to one list per kind as they come, and where they went
    is noted in arrays: per kind, for each file that gave records of it, the file's position
    and the length of the list after them (machine ints: no object per file, and nothing for
    a file that gave none). ``ordered`` puts a kind's records in the files' order, once, at the
    end, when its files did not come in that order. A file's ``ReadResult`` and the tuples
    around it are freed as soon as its records are taken, rather than all held until the last
    file is read: held, they were about 20 MiB of a 100k file scan, left as holes between the
    records that stay (benchmarks/README.md, "The glb tree after issue 22"). An engine
    sidecar's finding, or an ``EngineImport``'s findings, follow the file's own."""

    def __init__(self, files: Sequence[str]) -> None:
        self.position = {rel: i for i, rel in enumerate(files)}
        self.n = len(files)
        self.textures: list[TextureFacts] = []
        self.meshes: list[MeshFacts] = []
        self.scenes: list[SceneFacts] = []
        self.findings: list[Finding] = []
        # per kind (textures, meshes, scenes, findings), in the order the files came: the
        # position of each file that gave records of it, and where they end in the kind's list
        # (4-byte ints; per file and kind a start and a count were 3.2 MiB at 100k files)
        self.at = tuple(array("I") for _ in range(4))
        self.ends = tuple(array("I") for _ in range(4))
        self.last = [-1] * 4  # per kind: the position of the file that gave some last
        # per kind: where in ``at`` a run of files in order starts again, a file that comes
        # before the one taken last (the pool's chunks come in runs)
        self.breaks: tuple[list[int], ...] = ([], [], [], [])
        self.engine: list[tuple[int, str, EngineImport]] = []

    def take(self, rel: str, result: ReadResult, engine: object) -> None:
        i = self.position[rel]
        at, ends, last, breaks = self.at, self.ends, self.last, self.breaks
        if result.textures:
            self.textures += result.textures
            if i < last[0]:
                breaks[0].append(len(at[0]))
            last[0] = i
            at[0].append(i)
            ends[0].append(len(self.textures))
        if result.meshes:
            self.meshes += result.meshes
            if i < last[1]:
                breaks[1].append(len(at[1]))
            last[1] = i
            at[1].append(i)
            ends[1].append(len(self.meshes))
        if result.scenes:
            self.scenes += result.scenes
            if i < last[2]:
                breaks[2].append(len(at[2]))
            last[2] = i
            at[2].append(i)
            ends[2].append(len(self.scenes))
        findings = result.findings
        if engine is not None:  # (most files have no sidecar)
            if isinstance(engine, Finding):
                findings += (engine,)
            elif isinstance(engine, EngineImport):
                self.engine.append((i, rel, engine))
                findings += engine.findings
        if findings:
            self.findings += findings
            if i < last[3]:
                breaks[3].append(len(at[3]))
            last[3] = i
            at[3].append(i)
            ends[3].append(len(self.findings))

    def ordered(self) -> tuple[list[TextureFacts], list[MeshFacts], list[SceneFacts], list[Finding], dict[str, EngineImport]]:
        """(textures, meshes, scenes, findings, engine imports by path), in the files' order."""
        engine = {rel: eng for _, rel, eng in sorted(self.engine, key=itemgetter(0))}
        at, ends, breaks, n = self.at, self.ends, self.breaks, self.n
        return (_in_order(self.textures, at[0], ends[0], breaks[0], n), _in_order(self.meshes, at[1], ends[1], breaks[1], n),
                _in_order(self.scenes, at[2], ends[2], breaks[2], n), _in_order(self.findings, at[3], ends[3], breaks[3], n),
                engine)


def _in_order(items: list[T], at: array, ends: array, breaks: list[int], n: int) -> list[T]:
    """``items`` in the order of the ``n`` files: the ``k``-th file that gave some (the one at
    position ``at[k]``) gave those from ``ends[k - 1]`` (0 for the first) to ``ends[k]``;
    ``breaks``: the ``k`` where a file came before the one before it. ``items`` itself when
    there are none (they came in order).

    Files come in runs in order (the pool's chunks, a few dozen of them): the runs are merged
    a stretch at a time (a slice of ``items`` each, where a run's files come before every
    other run's next one: found by bisection), while that takes a stretch per 64 files at
    most (a big scan's chunks hold 128); otherwise (chunks of two types whose files
    alternate, as the textures of folders of mixed types) file by file, as before that: the
    stretches tried first cost a tenth of that or less (10k mix tree: about 2 ms either way)."""
    if not breaks:
        return items
    heads = [(at[start], start, stop) for start, stop in zip([0, *breaks], [*breaks, len(at)], strict=True)]
    heapify(heads)
    out: list[T] = []
    budget = 4 + len(at) // 64
    while heads and budget:
        _, start, stop = heappop(heads)
        cut = bisect_left(at, heads[0][0], start, stop) if heads else stop  # its files before the next head
        out += items[ends[start - 1] if start else 0 : ends[cut - 1]]
        if cut < stop:
            heappush(heads, (at[cut], cut, stop))
        budget -= 1
    if not heads:
        return out
    taken = array("i", [-1]) * n  # per file position: which file taken it was (-1: none)
    for k, i in enumerate(at):
        taken[i] = k
    out = []
    for k in filter((0).__le__, taken):
        start, end = ends[k - 1] if k else 0, ends[k]
        if end - start == 1:
            out.append(items[start])
        else:
            out += items[start:end]
    return out


def _combine(root: Path, found, following: Sequence[str] | None, gathered: _Gathered, job: _Job) -> Scan:
    """The scan from the files read (all that discovery ``found``, or under ``[scan] follow
    = "gltf"`` the glTF/GLB files in ``following``), with the images their scenes use that
    were not read yet (excluded from discovery, or not read under ``follow``)."""
    textures, meshes, scenes, read_findings, engine = gathered.ordered()
    findings: list[Finding] = [*found.findings, *read_findings]
    read = gathered.position  # every file read (not a set of them and the textures' paths: 8 MiB at 100k files)
    texture_paths: set[str] | None = None  # the textures' paths, made when a use is not a file read
    follow: dict[str, None] = {}
    for scene in scenes:
        for tex in scene.texture_paths:
            if tex in read or tex in follow or is_part(tex):
                continue
            if texture_paths is None:
                texture_paths = {t.path for t in textures}
            if tex not in texture_paths and os.path.isfile(os.path.join(root, tex)):
                follow[tex] = None
    if follow:
        job.total += len(follow)
        job.followed.update(follow)
        more_files = list(follow)
        more = _Gathered(more_files)
        job.read(more_files, more.take, more.position)
        more_textures, _, _, more_findings, more_engine = more.ordered()
        textures += more_textures
        findings += more_findings
        engine.update(more_engine)
    return Scan(
        root=root, textures=tuple(textures), meshes=tuple(meshes), scenes=tuple(scenes),
        findings=tuple(findings), engine=engine, skipped=found.skipped,
        files=found.files if following is None else tuple(sorted({*following, *follow})),
    )
