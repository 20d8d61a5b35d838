"""Reading a scene (the I/O stage of DESIGN.md §1): discover, read each file with its
engine sidecar, and gather everything into one immutable ``Scan``.

``read_scene`` is the only function here the rest of texbudget calls; the TUI keeps the
``Scan`` it returns and re-runs ``pipeline.evaluate`` on it for every settings switch.

How a file is read, cheaply:

- One ``os.stat`` per file gives the size (readers never stat again) and the cache signature.
- One ``read`` serves every header look of the readers: a file of at most ``PREFETCH_BYTES``
  is read whole and served from memory (``_Prefetched``), a larger one only its first
  ``PREFETCH_HEAD_BYTES`` (headers, a GLB's JSON), so most files are opened once. Reading
  64 KiB of a large file costs three times as much as 16 KiB (measured: 13 µs against 5 µs on
  the benchmark tree's DDS, KTX2 and GLB files).
- Engine sidecars (``.import`` / ``.meta``) are found from one listing per folder, so a
  texture without one costs no extra ``stat``.
- With a ``cache`` (``texbudget.cache.Cache``), files whose signature is unchanged are not
  read at all; the rest are read and stored. After a whole-tree scan, entries of files that
  are gone are pruned.
- Files are read grouped by type (``_by_type``): one reader after another keeps its code and
  data hot, a fifth faster than the walk's mixed order.
- Cache misses are read in a process pool when there are at least ``POOL_MIN_FILES`` of them
  and ``jobs`` > 1; below that a pool's start-up costs more than it saves (measured on a
  2-core machine, see ``benchmarks/README.md``). The main process reads too; workers are
  forked (spawned by multiprocessing in a process with threads, the TUI) and send each chunk
  back as one msgpack message holding each file's value as the cache stores it (its blob,
  which the cache stores as is when it is on).
- A glTF's image URIs that name files discovery listed are not walked again
  (``readers.KNOWN_FILES``).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import os
import select
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from texbudget import cache as cache_mod
from texbudget import policy
from texbudget.config import Config
from texbudget.discover import discover
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, TextureFacts, is_part
from texbudget.readers import KNOWN_FILES, Source, read_source

Progress = Callable[[int, int], None]
#: (rel, result, engine) of a file; the engine is an ``EngineImport``, a ``Finding`` or None (a pool
#: worker sends it as the cache stores values).
Reader = Callable[[tuple[Path, str]], tuple[str, ReadResult, object]]

#: Files up to this size are read whole, once, for the readers' looks (the raw-read baseline
#: of the benchmarks reads 64 KiB of every file).
PREFETCH_BYTES = 64 * 1024
#: Bytes read up front from a larger file: every fixed header fits, and most glTF JSON chunks.
PREFETCH_HEAD_BYTES = 16 * 1024
#: Fewest cache misses worth a process pool (measured, benchmarks/README.md).
POOL_MIN_FILES = 2000
#: Most files per chunk (the balancing step: the last wait is for one chunk at most).
POOL_CHUNK = 128
#: Engine sidecars, in the order ``policy.read_engine_import`` prefers them.
SIDECARS = (".import", ".meta")
_SCENES = (".gltf", ".glb")


def is_scene(rel: str) -> bool:
    """A glTF or GLB file."""
    return rel.lower().endswith(_SCENES)


def follows_gltf(config: Config, paths: Sequence[Path] | None) -> bool:
    """``[scan] follow = "gltf"`` applies: a walk reads the scenes and the images they use
    only; files named on the command line are read as given."""
    return paths is None and config["scan.follow"] == "gltf"


#: A glTF's dependency paths; None: it cannot be cached; False: they were not looked for.
_Deps = list[str] | Literal[False] | None


@dataclass(frozen=True)
class CacheStats:
    """What the cache did in one ``read_scene``: ``status`` is "on", "off" (not asked for),
    "unavailable" (asked for, but the folder cannot be written: ``reason`` says why) or
    "rebuilt" (it was corrupt; a TB007 finding is in the scan)."""

    status: str = "off"
    hits: int = 0
    misses: int = 0
    stored: int = 0
    pruned: int = 0
    reason: str = ""


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
    cache: CacheStats = field(default_factory=CacheStats, compare=False)


# --- reading one file -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Prefetched(Source):
    """A file on disk whose size and first bytes were read once; every look a reader takes
    within them is served from memory, and a file that fits is never opened again."""

    path: str = ""
    known_size: int = 0
    prefix: bytes = b""

    @property
    def abspath(self) -> Path:
        return Path(self.path)

    def size(self) -> int:
        return self.known_size

    def _whole(self) -> bool:
        return len(self.prefix) >= self.known_size

    def open(self) -> BinaryIO:
        if self._whole():
            return io.BytesIO(self.prefix)
        return open(self.path, "rb")

    def head(self, n: int) -> bytes:
        if n <= len(self.prefix) or self._whole():
            return self.prefix[:n]
        with open(self.path, "rb") as f:
            return f.read(n)

    def read_at(self, offset: int, n: int) -> bytes:
        if n <= 0:
            return b""
        if offset + n <= len(self.prefix) or self._whole():
            return self.prefix[offset : offset + n]
        return Source.read_at(self, offset, n)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _read_file(root: Path, rel: str, sidecar: bool) -> tuple[ReadResult, object]:
    """Read one file (and its engine sidecar when ``sidecar``): the registry's ``read_source``
    on a prefetched source. A file that cannot be opened goes to the registry as is, which
    turns the error into its finding."""
    path = os.path.join(root, rel)
    try:
        # os-level calls: one fstat and one read, and no file object (open() would stat too)
        fd = os.open(path, _READ_FLAGS)
        try:
            size = os.fstat(fd).st_size
            prefix = os.read(fd, size if size <= PREFETCH_BYTES else PREFETCH_HEAD_BYTES)
        finally:
            os.close(fd)
        src: Source = _Prefetched(rel=rel, root=root, path=path, known_size=size, prefix=prefix)
    except OSError:
        src = Source(rel=rel, root=root)
    result = read_source(src)
    engine = None
    if sidecar and result.textures and not is_part(rel):
        engine = policy.read_engine_import(root / rel, rel)
    return result, engine


def _read_one(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    """Read one file and, for a texture, the engine sidecar beside it (the plain reader;
    ``read_scene`` uses the same path with what it already knows)."""
    root, rel = args
    result, engine = _read_file(root, rel, True)
    return rel, result, engine


def _read_chunk(root: Path, items: list[tuple[str, bool]], reader: Reader | None, for_cache: bool) -> tuple[list[bytes], list[_Deps]]:
    """A pool worker's chunk: each file's (ReadResult, engine) as its cache blob (the cache
    stores it as is), and when ``for_cache`` its glTF dependencies (False where they were not
    looked for), in the chunk's order."""
    blobs: list[bytes] = []
    deps: list[_Deps] = []
    for rel, sidecar in items:
        if reader is None:
            value = _read_file(root, rel, sidecar)
        else:
            _, result, engine = reader((root, rel))
            value = (result, engine)
        blobs.append(cache_mod.dumps(value))
        deps.append(_dependencies(root, rel, value) if for_cache and has_dependencies(rel) else False)
    return blobs, deps


#: A pool worker's message: the chunk's number, each file's value as its cache blob, and each
#: file's glTF dependencies (``_Deps``); its paths are the chunk's, in order.
_MESSAGES = cache_mod.Codec(tuple[int, list[bytes], list[list[str] | bool | None]])


# --- what the file system says --------------------------------------------------------------


class _Folders:
    """Engine sidecars per folder, from one listing each: name -> stat of the sidecar.
    ``without``: folders known to hold none (discovery listed them and saw none)."""

    def __init__(self, root: Path, without: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.without = without
        self.listed: dict[str, dict[str, os.stat_result | None]] = {}

    def sidecars(self, rel: str) -> list[os.stat_result]:
        folder, _, name = rel.rpartition("/")
        if folder in self.without:
            return []
        names = self.listed.get(folder)
        if names is None:
            names = self.listed[folder] = self._list(folder)
        if not names:  # the usual case: a folder without engine sidecars
            return []
        out = []
        for suffix in SIDECARS:
            key = name + suffix
            if key in names:
                st = names[key]
                if st is None:
                    st = names[key] = _stat(os.path.join(self.root, folder, key))
                if st is not None:
                    out.append(st)
        return out

    def _list(self, folder: str) -> dict[str, os.stat_result | None]:
        try:
            with os.scandir(os.path.join(self.root, folder)) as it:
                return {e.name: None for e in it if e.name.endswith(SIDECARS) and e.is_file()}
        except OSError:
            return {}


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def has_dependencies(rel: str) -> bool:
    """The file's result depends on other files: a glTF's buffers and images, an FBX's
    texture files (whether they exist)."""
    return is_scene(rel) or rel.lower().endswith(".fbx")


def _dependencies(root: Path, rel: str, value: object) -> list[str] | None:
    if is_scene(rel):
        return _gltf_dependencies(root, rel, value)
    from texbudget.readers.fbx import texture_dependencies

    found = texture_dependencies(root, rel)
    return [] if found is None and _broken(value) else found


def _gltf_dependencies(root: Path, rel: str, value: object) -> list[str] | None:
    """Files a glTF's result depends on besides itself: its external buffers and images
    (the reader checks their size and existence). None when the JSON cannot be read (then
    the result is not cached: it may have depended on anything)."""
    import json
    import posixpath
    import struct
    from urllib.parse import unquote

    path = os.path.join(root, rel)
    try:
        with open(path, "rb") as f:
            if rel.lower().endswith(".glb"):
                head = f.read(20)
                if len(head) < 20 or head[:4] != b"glTF":
                    return []
                json_len = struct.unpack_from("<I", head, 12)[0]
                if json_len > 64 * 1024 * 1024:
                    return []
                raw = f.read(json_len)
            else:
                raw = f.read(64 * 1024 * 1024 + 1)
        doc = json.loads(raw)
    except (OSError, ValueError, RecursionError, struct.error):
        return [] if _broken(value) else None
    if not isinstance(doc, dict):
        return []
    base = posixpath.dirname(rel)
    deps: list[str] = []
    for key in ("buffers", "images"):
        items = doc.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            uri = item.get("uri") if isinstance(item, dict) else None
            if not isinstance(uri, str) or uri.startswith("data:") or ":" in uri.split("/", 1)[0]:
                continue
            target = unquote(uri.split("#", 1)[0].split("?", 1)[0]).replace("\\", "/")
            if not target or "\x00" in target or target.startswith("/"):
                continue
            dep = posixpath.normpath(posixpath.join(base, target))
            if not dep.startswith("../") and dep not in ("..", "."):
                deps.append(dep)
    return sorted(set(deps))


def _broken(value: object) -> bool:
    """The file was refused outright (a result with findings only)."""
    result = value[0] if isinstance(value, tuple) else None
    return isinstance(result, ReadResult) and not (result.textures or result.meshes or result.scenes)


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
) -> Scan:
    """Discover and read every asset under ``root`` (or just ``paths``).

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
            return read_scene(root, config, paths, jobs=jobs, progress=progress, reader=reader, cache=opened)
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


def _stats(cache: cache_mod.Cache, before: tuple[int, int, int, int], rebuilt: bool) -> CacheStats:
    """What the cache did in this call (its counters minus ``before``)."""
    if not cache.usable:
        status = "unavailable"
    elif rebuilt:
        status = "rebuilt"
    else:
        status = "on"
    hits, misses, stored, pruned = (now - then for now, then in zip(cache.counts(), before, strict=True))
    return CacheStats(status, hits, misses, stored, pruned, cache.reason)


def _with_stats(scan: Scan, stats: CacheStats) -> Scan:
    return Scan(root=scan.root, textures=scan.textures, meshes=scan.meshes, scenes=scan.scenes,
                findings=scan.findings, engine=scan.engine, files=scan.files, skipped=scan.skipped,
                cache=stats)


class _Job:
    """One ``read_scene``'s reading: cache lookups, the serial or pooled reads of misses,
    storing what was read, and the progress count."""

    def __init__(self, root: Path, cache: cache_mod.Cache | None, reader: Reader, jobs: int | None,
                 progress: Progress | None, total: int, without_sidecars: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.root_str = os.fspath(root)
        self.cache = cache
        self.reader = reader
        self.jobs = jobs if jobs is not None else (os.cpu_count() or 1)
        self.progress = progress
        self.total = total
        self.done = 0
        self.folders = _Folders(root, without_sidecars)  # folders discovery saw no sidecar in
        self.followed: set[str] = set()

    def step(self, n: int) -> None:
        self.done += n
        if self.progress and n:
            self.progress(min(self.done, self.total), max(self.total, self.done))

    def read(self, rels: Sequence[str]) -> dict[str, tuple[ReadResult, object]]:
        """rel -> (ReadResult, engine) for every path, from the cache or read."""
        out: dict[str, tuple[ReadResult, object]] = {}
        sigs: dict[str, str] = {}  # the cache signature of each file
        own: dict[str, str] = {}  # ... without its sidecars, for the few files that have one
        with_sidecar: set[str] = set()
        default = self.reader is _read_one
        # without a cache, a file in a folder discovery saw no sidecar in needs nothing here
        plain = self.folders.without if self.cache is None else frozenset()
        for rel in rels if default else ():
            if rel.rpartition("/")[0] in plain:
                continue
            sides = self.folders.sidecars(rel)
            if sides:
                with_sidecar.add(rel)
            if self.cache is not None:
                st = _stat(os.path.join(self.root_str, rel))
                if st is not None:
                    sigs[rel] = cache_mod.signature(st)
                    if sides:
                        own[rel] = sigs[rel]
                        sigs[rel] = cache_mod.signature(st, sides)
        dep_sig = functools.partial(self._dep_sig, sigs=sigs, own=own)
        if self.cache is not None and sigs:
            hits = self.cache.lookup(sigs, dep_sig)
            for rel, value in hits.items():
                out[rel] = value  # type: ignore[assignment]
            self.step(len(hits))
        misses = [r for r in rels if r not in out]
        blobs = self._read_misses(misses, with_sidecar)
        store = []
        now = None
        for rel, (value, blob, names) in blobs.items():
            out[rel] = value
            sig = sigs.get(rel)
            if sig is None or self.cache is None:
                continue
            now = now or _now_ns()
            if cache_mod.is_racy_signature(sig, now):
                continue
            deps: list[tuple[str, str]] = []
            if has_dependencies(rel):
                found = _dependencies(self.root, rel, value) if names is False else names
                if found is None:
                    continue
                deps = [(d, dep_sig(d)) for d in found]
            store.append((rel, sig, deps, blob if blob is not None else cache_mod.dumps(value)))
        if self.cache is not None and store:
            self.cache.store(store)
        return out

    def _dep_sig(self, rel: str, sigs: Mapping[str, str], own: Mapping[str, str]) -> str:
        """A dependency's signature: its own stat only (no sidecars), from this run's
        signatures when it is one of the files read."""
        sig = own.get(rel) or sigs.get(rel)
        if sig is not None:
            return sig
        return cache_mod.stat_signature(os.path.join(self.root_str, rel))

    def _read_misses(self, rels: list[str], sidecar: set[str]) -> dict[str, tuple[tuple[ReadResult, object], bytes | None, _Deps]]:
        """rel -> ((ReadResult, engine), cache blob or None, glTF dependencies or False when
        not looked for) for the files to read."""
        out: dict[str, tuple[tuple[ReadResult, object], bytes | None, _Deps]] = {}
        rels = _by_type(rels)
        if self.jobs > 1 and len(rels) >= POOL_MIN_FILES:
            self._pooled(rels, sidecar, out)
            return out
        for rel in rels:
            out[rel] = (self._read_here(rel, sidecar), None, False)
            self.step(1)
        return out

    def _read_here(self, rel: str, sidecar: set[str]) -> tuple[ReadResult, object]:
        """Read one file in this process; ``sidecar``: the files with an engine sidecar."""
        if self.reader is _read_one:
            return _read_file(self.root, rel, rel in sidecar)
        _, result, engine = self.reader((self.root, rel))
        return result, engine

    def _pooled(self, rels: list[str], sidecar: set[str], out: dict) -> None:
        """Read ``rels`` into ``out`` with ``jobs - 1`` worker processes and this one.

        The files go in chunks, numbered; every process takes the next number from a shared
        source (``_Tickets``, where this process reads the scenes first and the workers the
        rest; ``_Counter`` when spawned), so no core waits while another has work and the
        last wait is for one chunk at most. A worker sends each chunk back as
        one message through its own pipe (``_MESSAGES``: each file's value as the cache
        stores it, loaded as the cache loads its values), and this process takes them in
        between its own chunks. No executor: its threads competed with this process's
        reading for the interpreter lock, and the chunks it had queued for a worker could
        not be taken back. A chunk a worker took but never sent (the worker died), or that
        no process took, is read here at the end."""
        from texbudget import readers

        default = self.reader is _read_one
        # Each file's value is loaded as the cache loads its values, sharing equal values
        # across files (a custom reader's too: its engine is an EngineImport, a Finding or None).
        decoder = cache_mod.Decoder(rels)
        keep = self.cache is not None  # the values come as blobs, for the cache to store as is
        if default:  # imported once here, before the fork, rather than in every worker
            readers.preload({rel[rel.rfind("."):] for rel in rels})  # (what is no suffix loads nothing)
        size = max(16, min(POOL_CHUNK, len(rels) // (self.jobs * 8)), -(-len(rels) // MAX_CHUNKS))
        chunks = [rels[i : i + size] for i in range(0, len(rels), size)]
        # The scenes lead (``_by_type``) and their chunks are this process's own queue
        # (``_Tickets``): their results are the costliest to send (the 10k benchmark scan:
        # 0.51 -> 0.46 s, median of 16).
        scenes = next((k for k, rel in enumerate(rels) if not is_scene(rel)), len(rels))
        split = -(-scenes // size)
        done = [False] * len(chunks)
        task = (self.root, chunks, sidecar, None if default else self.reader, keep)
        # fork is cheap, inherits the imports and needs no multiprocessing; it is unsafe in a
        # process with other threads (the TUI reads in a worker thread), where spawn is used.
        start = _forked if threading.active_count() == 1 and hasattr(os, "fork") else _spawned
        workers = min(self.jobs, len(chunks)) - 1  # a process per chunk at most
        with start(task, len(chunks), workers, split) as (next_chunk, live, stop):

            def read_here(k: int) -> None:
                for rel in chunks[k]:
                    out[rel] = (self._read_here(rel, sidecar), None, False)
                done[k] = True
                self.step(len(chunks[k]))

            def take(receive: Any) -> bool:
                """One message from a worker into ``out``; False at its end."""
                try:
                    number, blobs, deps = _MESSAGES.loads(receive.recv_bytes())
                except (EOFError, OSError):
                    live.remove(receive)
                    return False
                for rel, blob, names in zip(chunks[number], blobs, deps, strict=True):
                    out[rel] = (decoder.loads(blob), blob if keep else None, names)
                done[number] = True
                self.step(len(blobs))
                return True

            while (k := next_chunk()) is not None:
                read_here(k)
                for receive in list(live):
                    while receive in live and receive.poll() and take(receive):
                        pass
            while live:  # this process is done: wait for the workers' last chunks
                for ready in _wait(live):
                    take(ready)
            stop(all(done))
            for k in range(len(chunks)):  # taken by a worker that died before sending it
                if not done[k]:
                    read_here(k)


def _by_type(rels: list[str]) -> list[str]:
    """The files grouped by suffix, in walk order within each group: the scenes' groups
    first (``_pooled`` reads them in this process), then the others in the order their first
    file was found. Reading one type after another keeps each reader's code and data hot in
    the CPU caches: the 10k benchmark tree reads in a fifth less time than in walk order,
    where every folder mixes PNG, DDS, KTX2, TGA and GLB. What was read is keyed by path, so
    the order of the results is the caller's."""
    groups: dict[str, list[str]] = {}
    for rel in rels:
        key = rel.rpartition(".")[2]  # a grouping key only (suffix_of gives the suffix)
        if key in groups:
            groups[key].append(rel)
        else:
            groups[key] = [rel]
    if len(groups) < 2:
        return rels
    ordered = sorted(groups.values(), key=lambda group: not is_scene(group[0]))  # stable
    return [rel for group in ordered for rel in group]


#: Most chunks of one pooled read (bigger chunks past that): ``_Tickets`` writes every chunk
#: number into a pipe up front, in one write that a pipe of a single page always takes.
MAX_CHUNKS = 1024

#: What a pool start gives ``_pooled``: the next chunk's number (None when none is left), the
#: workers' channels (``recv_bytes``, ``poll``, ``fileno``), and ``stop(finished)``, which
#: ends the workers (killing them unless ``finished``) and waits for them.
_Pool = tuple[Callable[[], int | None], list[Any], Callable[[bool], None]]


class _Tickets:
    """The chunk numbers, each taken by one process, from two queues: chunks before ``split``
    are this process's own (the scenes: a glTF's meshes and scene graph cost the most to
    send from a worker and to load here, so they are best read here), the rest the
    workers'. Each process takes from its own queue first and from the other once its own is
    empty, so neither waits while the other has work.

    A queue is a pipe holding its numbers, two bytes each, written at once before the
    workers are forked. A read of two bytes from a pipe holding an even number of them is
    atomic, so no lock is needed, and a worker that dies loses only the numbers it took
    (their chunks are read at the end). Numbers that did not fit in a pipe (never, below
    ``MAX_CHUNKS``) are left to that end too."""

    def __init__(self, total: int, split: int = 0) -> None:
        total = min(total, MAX_CHUNKS)
        split = min(split, total)
        self.own = self._queue(range(0, split))
        self.theirs = self._queue(range(split, total))

    @staticmethod
    def _queue(numbers: range) -> int:
        read, write = os.pipe()
        try:
            os.set_blocking(write, False)
            with contextlib.suppress(BlockingIOError):
                os.write(write, b"".join(k.to_bytes(2, "little") for k in numbers))
        finally:
            os.close(write)
        return read

    def __call__(self) -> int | None:
        """The next chunk for this process."""
        return self._first(self.own, self.theirs)

    def worker(self) -> int | None:
        """The next chunk for a worker."""
        return self._first(self.theirs, self.own)

    def close(self) -> None:
        os.close(self.own)
        os.close(self.theirs)

    @classmethod
    def _first(cls, queue: int, other: int) -> int | None:
        k = cls._take(queue)
        return k if k is not None else cls._take(other)

    @staticmethod
    def _take(queue: int) -> int | None:
        ticket = os.read(queue, 2)
        return int.from_bytes(ticket, "little") if len(ticket) == 2 else None


class _PipeSender:
    """A worker's end of its result pipe: each message is its length (8 bytes) and itself."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send_bytes(self, data: bytes) -> None:
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(self.fd, view):]

    def close(self) -> None:
        os.close(self.fd)


class _PipeReceiver:
    """This process's end of a forked worker's result pipe (``_PipeSender`` writes it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def poll(self) -> bool:
        return bool(_wait([self], timeout=0))

    def recv_bytes(self) -> bytes:
        return self._exactly(int.from_bytes(self._exactly(8), "little"))

    def _exactly(self, n: int) -> bytes:
        parts, left = [], n
        while left:
            part = os.read(self.fd, min(left, 1 << 20))
            if not part:
                raise EOFError("the worker ended")
            parts.append(part)
            left -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        os.close(self.fd)


def _wait(receivers: list[Any], timeout: float | None = None) -> list[Any]:
    """The receivers with a message or an end to take (``timeout`` None: wait for one)."""
    if not hasattr(select, "poll"):  # Windows (spawned workers only): multiprocessing's own wait
        from multiprocessing.connection import wait

        return list(wait(receivers, timeout))
    poller = select.poll()
    by_fd = {}
    for r in receivers:
        by_fd[r.fileno()] = r
        poller.register(r.fileno(), select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(None if timeout is None else timeout * 1000)]


#: A result pipe's buffer where the system allows it (Linux: up to ``pipe-max-size``, 1 MiB
#: by default): a worker sends on while this process reads a long chunk of its own (the
#: scenes), instead of waiting on a full 64 KiB pipe.
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    with contextlib.suppress(OSError, AttributeError, ImportError):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


@contextlib.contextmanager
def _forked(task: tuple, total: int, workers: int, split: int = 0) -> Iterator[_Pool]:
    """Workers made with ``os.fork``: they inherit the imports and the task, take chunk
    numbers from ``_Tickets`` and send through plain pipes (no multiprocessing import, a
    tenth of the start-up). When the system refuses a fork, the workers already made (or
    this process alone) read everything."""
    tickets = _Tickets(total, split)
    pids: list[int] = []

    def stop(finished: bool) -> None:
        while pids:  # each worker is waited for once (a pid waited for may be reused)
            pid = pids.pop()
            if not finished:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    receivers: list[_PipeReceiver] = []
    try:
        for _ in range(workers):
            try:
                read, write = os.pipe()
            except OSError:  # no file descriptor to spare: fewer workers, or none
                break
            _widen(write)
            try:
                pid = os.fork()
            except OSError:  # no process to spare (a limit, memory): fewer workers, or none
                os.close(read)
                os.close(write)
                break
            if pid == 0:  # the worker: never returns into the caller's code
                code = 1
                try:
                    os.close(read)
                    _pool_worker(task, tickets.worker, _PipeSender(write))
                    code = 0
                finally:
                    os._exit(code)
            os.close(write)
            pids.append(pid)
            receivers.append(_PipeReceiver(read))
        yield tickets, list(receivers), stop  # (``_pooled`` removes each as it ends)
    finally:
        stop(False)
        for receive in receivers:
            receive.close()
        tickets.close()


@contextlib.contextmanager
def _spawned(task: tuple, total: int, workers: int, split: int = 0) -> Iterator[_Pool]:
    """Workers started by multiprocessing's spawn (fresh interpreters), for a process with
    threads, where a fork could copy a lock another thread holds."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    counter = _Counter(ctx.Value("q", 0), total)
    procs: list[tuple[Any, Any]] = []

    def stop(finished: bool) -> None:
        for worker, _ in procs:
            if worker.is_alive() and not finished:
                worker.terminate()
            worker.join()

    try:
        for _ in range(workers):
            try:
                receive, send = ctx.Pipe(duplex=False)
            except OSError:  # no file descriptor to spare: fewer workers, or none
                break
            worker = ctx.Process(target=_pool_worker, args=(task, counter, send), daemon=True)
            try:
                worker.start()
            except OSError:  # no process to spare: fewer workers, or none
                receive.close()
                send.close()
                break
            send.close()
            procs.append((worker, receive))
        yield counter, [receive for _, receive in procs], stop
    finally:
        stop(False)
        for _, receive in procs:
            receive.close()


class _Counter:
    """The chunk numbers from a shared integer under its lock (a spawned worker gets it
    pickled; ``_Tickets``' pipe is not passed to a fresh interpreter)."""

    def __init__(self, value: Any, total: int) -> None:
        self.value, self.total = value, total

    def __call__(self) -> int | None:
        with self.value.get_lock():
            k = self.value.value
            if k >= self.total:
                return None
            self.value.value = k + 1
            return k


def _pool_worker(task: tuple[Path, list[list[str]], set[str], Reader | None, bool], next_chunk: Callable[[], int | None], send: Any) -> None:
    """A pool worker: take chunks until none is left, send each back as it is read."""
    root, chunks, sidecar, reader, for_cache = task
    try:
        while (k := next_chunk()) is not None:
            blobs, deps = _read_chunk(root, [(rel, rel in sidecar) for rel in chunks[k]], reader, for_cache)
            send.send_bytes(_MESSAGES.dumps((k, blobs, deps)))
    except (BrokenPipeError, KeyboardInterrupt):  # the main process has stopped listening
        pass
    finally:
        send.close()


def _now_ns() -> int:
    import time

    return time.time_ns()


def _keep_engine(rel: str, eng: object, engine: dict, findings: list[Finding]) -> None:
    if isinstance(eng, Finding):
        findings.append(eng)
    elif isinstance(eng, policy.EngineImport):
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
    engine: dict[str, policy.EngineImport] = {}
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
