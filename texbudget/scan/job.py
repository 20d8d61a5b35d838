"""One ``read_scene``'s reading (``_Job``): cache lookups by signature (a file's stat
and its sidecars'; a glTF's dependencies by their own), the serial or pooled reads of the
misses grouped by type, storing what was read, the progress count, and what the cache did
(``CacheStats``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from itertools import compress
from pathlib import Path

import msgspec

from texbudget import cache as cache_mod
from texbudget.model import ReadResult
from texbudget.scan.reading import (
    _MESSAGES,
    Reader,
    _dependencies,
    _Deps,
    _read_file,
    _read_one,
    has_dependencies,
    is_scene,
)
from texbudget.scan.sidecars import _Folders

Progress = Callable[[int, int], None]
#: ``take(rel, result, engine)``: one file's value, as ``_Job.read`` hands it over.
Take = Callable[[str, ReadResult, object], None]
#: ``arrived(rel, (result, engine), cache blob or None, glTF dependencies)``: one file read.
Arrived = Callable[[str, tuple[ReadResult, object], bytes | None, _Deps], None]

#: Fewest cache misses worth a process pool (measured, benchmarks/README.md).
POOL_MIN_FILES = 2000
#: Most files per chunk (the balancing step: the last wait is for one chunk at most).
POOL_CHUNK = 128
#: Files read per cache write (one transaction each): their blobs are held until it.
STORE_BATCH = 2048


class CacheStats(msgspec.Struct, frozen=True):
    """What the cache did in one ``read_scene``: ``status`` is "on", "off" (not asked for),
    "unavailable" (asked for, but the folder cannot be written: ``reason`` says why) or
    "rebuilt" (it was corrupt; a TB007 finding is in the scan)."""

    status: str = "off"
    hits: int = 0
    misses: int = 0
    stored: int = 0
    pruned: int = 0
    reason: str = ""


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

    def read(self, rels: Sequence[str], take: Take, position: Mapping[str, int] | None = None) -> None:
        """Every path's (ReadResult, engine), from the cache or read, each handed to
        ``take(rel, result, engine)`` as it comes (cache hits first, then the files read, in
        no set order), so no file's value is held after it was taken. What is read is stored
        in the cache in batches of ``STORE_BATCH`` as it comes. ``position``: each path's
        index in ``rels``, when the caller has that table (``_Gathered.position``; made here
        otherwise, with a cache)."""
        default = self.reader is _read_one
        sidecars = self.folders.sidecars
        if self.cache is None or not default:
            with_sidecar: set[str] = set()
            # without a cache, a file in a folder discovery saw no sidecar in needs nothing here
            plain = self.folders.without
            for rel in rels if default else ():
                if plain and rel.rpartition("/")[0] in plain:
                    continue
                if sidecars(rel):
                    with_sidecar.add(rel)
            self._read_misses(list(rels), with_sidecar, self._arrived(take, None), (rels, position))
            return
        # the cache signature of each file (with its sidecars'), made when asked for: its
        # stat is kept as numbers. A file's path is the root's with a separator, then ``rel``
        # (relative, "/"-separated): what os.path.join gives, without its checks per file (a
        # tenth of a warm read).
        sigs = cache_mod.Signatures(rels, position)
        with_sidecar = sigs.stat(os.path.join(self.root_str, ""), sidecars)
        # a dependency's signature: its own stat only (no sidecars), from this run's when it
        # is one of the files read (called for every dependency of every glTF the cache holds)
        dep_sig = sigs.dependency

        hits = 0
        wanted = bytearray(b"\x01") * len(rels)  # per file: 1 until the cache gave it
        if sigs:
            at = sigs.position
            for rel, (result, engine) in self.cache.each_hit(sigs, dep_sig):
                wanted[at[rel]] = 0
                hits += 1
                take(rel, result, engine)
            self.step(hits)
        store = _Store(self, sigs, dep_sig)
        self._read_misses(list(compress(rels, wanted)) if hits else list(rels), with_sidecar, self._arrived(take, store),
                          (rels, sigs.position))
        store.flush()

    @staticmethod
    def _arrived(take: Take, store: _Store | None) -> Arrived:
        """What ``_read_misses`` hands each file read to: ``take`` it, and ``store`` it."""

        def arrived(rel: str, value: tuple[ReadResult, object], blob: bytes | None, names: _Deps) -> None:
            take(rel, *value)
            if store is not None:
                store.add(rel, value, blob, names)

        return arrived

    def _read_misses(self, rels: list[str], sidecar: set[str], arrived: Arrived,
                     paths: tuple[Sequence[str], Mapping[str, int] | None] = ((), None)) -> None:
        """Read the files, each handed to ``arrived(rel, (ReadResult, engine), cache blob or
        None, glTF dependencies or False when not looked for)`` as it is read. ``paths``: the
        files of the read and their position table, if there is one (for ``_pooled``)."""
        rels = _by_type(rels)
        if self.jobs > 1 and len(rels) >= POOL_MIN_FILES:
            self._pooled(rels, sidecar, arrived, paths)
            return
        decoder = cache_mod.Decoder()  # shares the numbers of what is read (share_sizes)
        for rel in rels:
            value = self._read_here(rel, sidecar)
            decoder.share_sizes(value[0])
            arrived(rel, value, None, False)
            self.step(1)

    def _read_here(self, rel: str, sidecar: set[str]) -> tuple[ReadResult, object]:
        """Read one file in this process; ``sidecar``: the files with an engine sidecar. An
        exception (a bug: the readers turn a bad file into findings) names the file."""
        try:
            if self.reader is _read_one:
                return _read_file(self.root, rel, rel in sidecar)
            _, result, engine = self.reader((self.root, rel))
        except Exception as exc:
            exc.add_note(f"texbudget was reading {rel}")
            raise
        return result, engine

    def _pooled(self, rels: list[str], sidecar: set[str], arrived: Arrived,
                paths: tuple[Sequence[str], Mapping[str, int] | None] = ((), None)) -> None:
        """Read ``rels`` (each handed to ``arrived``, as ``_read_misses``) with ``jobs - 1`` worker processes and this one
        (``scan.pool``: how the chunks are shared and sent). Every process takes the next
        chunk from a shared source, so no core waits while another has work and the last wait
        is for one chunk at most; this process reads the scenes' chunks first and takes the
        workers' messages in between its own chunks (``_MESSAGES``: each file's value in the
        cache's stored form, as its blob when the cache is written and as records in the
        message otherwise, shared as the cache shares its values). A chunk that a worker took but
        never sent (it died), or that no process took, is read here at the end."""
        # the process pool (and its threading and signal) only for a pooled read
        from texbudget import readers
        from texbudget.scan import pool

        default = self.reader is _read_one
        # Each file's value is shared as the cache's values are (``Decoder``: equal values
        # across files kept once; a custom reader's too: its engine is an EngineImport, a Finding or None);
        # the numbers of what this process reads are shared with them. A file's path is
        # the string of ``paths`` (the read's files and their table, when given).
        decoder = cache_mod.Decoder(*paths) if paths[1] is not None else cache_mod.Decoder(rels)
        keep = self.cache is not None  # the values come as blobs, for the cache to store as is
        # (otherwise as records: one encode and one decode a chunk, not one of each a file)
        if default:  # imported once here, before the fork, rather than in every worker
            readers.preload({rel[rel.rfind("."):] for rel in rels})  # (what is no suffix loads nothing)
        size = max(16, min(POOL_CHUNK, len(rels) // (self.jobs * 8)), -(-len(rels) // pool.MAX_CHUNKS))
        chunks = [rels[i : i + size] for i in range(0, len(rels), size)]
        done = [False] * len(chunks)

        def read_here(k: int) -> None:
            for rel in chunks[k]:
                value = self._read_here(rel, sidecar)
                decoder.share_sizes(value[0])
                arrived(rel, value, None, False)
            done[k] = True
            self.step(len(chunks[k]))

        def take(message: bytes) -> None:
            loaded = _MESSAGES.loads(message)
            if isinstance(loaded, str):  # the worker's last message: its exception
                raise pool.WorkerFailed(loaded)
            number = loaded[0]
            arrive_chunk(loaded, chunks[number], decoder, keep, arrived)
            done[number] = True
            self.step(len(chunks[number]))

        # The scenes lead (``_by_type``) and their chunks are this process's own: their
        # results are the costliest to send (the 10k benchmark scan: 0.51 -> 0.46 s, median
        # of 16).
        scenes = next((k for k, rel in enumerate(rels) if not is_scene(rel)), len(rels))
        task = pool.Task(root=self.root, chunks=chunks, sidecar=sidecar, reader=None if default else self.reader, for_cache=keep)
        workers = min(self.jobs, len(chunks)) - 1  # a process per chunk at most
        with pool.start(task, split=-(-scenes // size), workers=workers) as started:
            while (k := started.next_chunk()) is not None:
                read_here(k)
                for message in started.received():
                    take(message)
            for message in started.received(wait=True):  # this process is done: the workers' last chunks
                take(message)
        left = [k for k, finished in enumerate(done) if not finished]
        if ended := [p.exitcode for p in started.processes if p.exitcode]:
            _note_ended_early(ended, sum(len(chunks[k]) for k in left))
        for k in left:
            read_here(k)


def arrive_chunk(message: tuple, files: Sequence[str], decoder: cache_mod.Decoder, keep: bool, arrived: Arrived) -> None:
    """A worker's chunk of ``files`` (``_MESSAGES`` loaded: its number, then each file's blob
    and glTF dependencies when the cache is written (``keep``), each file's records
    otherwise), each file's value loaded by ``decoder`` and handed to ``arrived``."""
    _, blobs, values, deps = message
    if keep:
        for rel, blob, names in zip(files, blobs, deps, strict=True):
            arrived(rel, decoder.loads(blob), blob, names)
    else:
        for rel, value in zip(files, values, strict=True):
            arrived(rel, decoder.take(value), None, False)


class _Store:
    """What one ``_Job.read`` stores in the cache, in batches of ``STORE_BATCH`` files as they
    are read: a blob is held until its batch is written, not until the last file is read (a
    cold scan of 100k files held them all, about 1 KB a GLB). A file modified less than
    ``cache.RACY_SECONDS`` before its batch is written is not stored; a glTF's dependencies
    are listed with their signatures as it comes, and a glTF whose dependencies cannot be
    listed (its JSON is unreadable) is not stored."""

    def __init__(self, job: _Job, sigs: Mapping[str, str], dep_sig: Callable[[str], str]) -> None:
        self.job = job
        self.sigs = sigs
        self.dep_sig = dep_sig
        self.rows: list[tuple[str, str, list[tuple[str, str]], bytes]] = []

    def add(self, rel: str, value: tuple[ReadResult, object], blob: bytes | None, names: _Deps) -> None:
        sig = self.sigs.get(rel)
        if sig is None:
            return
        deps: list[tuple[str, str]] = []
        if has_dependencies(rel):
            found = _dependencies(self.job.root, rel, value) if names is False else names
            if found is None:
                return
            deps = [(d, self.dep_sig(d)) for d in found]
        self.rows.append((rel, sig, deps, blob if blob is not None else cache_mod.dumps(value)))
        if len(self.rows) >= STORE_BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the rows held (less the racy ones) in one transaction."""
        cache = self.job.cache
        if not self.rows or cache is None:
            return
        now = _now_ns()
        rows = [row for row in self.rows if not cache_mod.is_racy_signature(row[1], now)]
        self.rows = []
        if rows:
            cache.store(rows)


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


def _note_ended_early(codes: list[int], files: int) -> None:
    """One line on stderr: a worker ended before it sent all it took (the output is still
    complete: those files were read here)."""
    how = ", ".join(f"killed by signal {-c}" if c < 0 else f"exit code {c}" for c in codes)
    print(f"texbudget: note: a worker process ended early ({how}); its {files:,} files were read in the main process", file=sys.stderr)


def _now_ns() -> int:
    import time

    return time.time_ns()
