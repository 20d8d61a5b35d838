"""The read cache: what each file's readers found, kept between runs in SQLite.

``<scan root>/.texbudget/cache.sqlite`` holds one row per file read: its POSIX path relative to
the scan root, a *signature* of what the file system says about it, and the file's
``ReadResult`` with its engine sidecar result (``EngineImport``, ``Finding`` or ``None``). A
row is used only while the signature still matches, so a cache hit gives exactly what reading
the file again would give. The folder also gets a ``.gitignore`` of ``*``: the cache is never
committed.

The signature (``signature``) is size, ``st_mtime_ns`` and ``st_ctime_ns`` of the file, plus
the same three numbers of its Godot ``.import`` / Unity ``.meta`` sidecar when there is one:
editing a sidecar re-reads the texture. ctime catches tools that restore an old mtime
(``tar``, ``cp -p``, ``touch -d``); mtime alone would not. A glTF also lists the files its
result depends on (external ``.bin`` buffers and images, whose size and existence the reader
checks) with their signatures; any change there is a miss too. ``CACHE_VERSION`` (texbudget's
version and the schema number) is stored in the file; another version empties the cache.

Racy entries: a file modified within ``RACY_SECONDS`` of now is read but not stored, because a
second write in the same clock tick would keep size and mtime (git's "racily clean" problem).

Safety:

- WAL journal, one transaction per batch of writes, ``busy_timeout`` for concurrent runs: two
  runs on the same tree both finish, and a run killed mid-write (even ``kill -9``) leaves the
  last committed state, which SQLite recovers on the next open.
- A cache file that is not ours, not SQLite, truncated or of the wrong schema is deleted and
  created again; ``Cache.notes`` then holds one TB007 finding. A row whose value cannot be
  decoded is dropped and the file read again (also TB007).
- A folder where the cache cannot be created or written (read-only checkout, permissions)
  turns the cache off for the run: ``Cache.usable`` is False and ``Cache.reason`` says why, for
  the CLI to print. Nothing raises.
- Values are msgpack, written and read by ``msgspec`` with a typed decoder (see "values"
  below): a blob holds data only, never a type to build or code to run, and one that is not
  exactly a value's shape is refused and dropped (TB007). Measured against the restricted
  unpickler this replaced in ``benchmarks/README.md`` ("Cache value format").
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from itertools import compress
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import force_setattr

from texbudget import __version__, findings
from texbudget.model import (
    AttributeFacts,
    Finding,
    MeshFacts,
    PrimitiveFacts,
    ReadResult,
    TextureFacts,
)

#: Bump when the table layout or the meaning of a stored value changes.
SCHEMA = 11  # 2: SceneFacts.fallbacks; 3: SceneFacts.refs and role (levels); 4: alpha_modes, cube_faces;
#            5: the whole format table (issue 21): KTX/KTX2/DDS files read otherwise; 6: KTX2 sized from its DFD, Basis HDR;
#            7: EngineImport and UnityPlatform stored as texbudget.engine's (they were texbudget.policy's);
#            8: values are msgpack (msgspec), no longer pickles (8, not 7: both layouts once numbered 7 are dropped);
#            9: Godot readers: GridMap "cells" edges, MeshLibrary items, 3D sprites' slots (issue 23 gaps);
#            10: SceneFacts' instances and texture uses as columns;
#            11: MeshFacts holds a primitive whose counts are the mesh's inline, the others in surfaces;
#                PrimitiveFacts without accessor_ids
#: Stored in the file; a different value empties the cache (texbudget version / schema).
CACHE_VERSION = f"{__version__}/{SCHEMA}"
#: ``PRAGMA application_id`` of our files ("TBc1"), so another SQLite file at the path is
#: recognised as not ours.
APPLICATION_ID = 0x54426331
#: Folder under the scan root, and the file in it.
CACHE_DIR = ".texbudget"
CACHE_FILE = "cache.sqlite"
#: A file modified this recently is read but not stored (see the module docstring).
RACY_SECONDS = 2.0
#: How long a run waits for another run's write transaction before giving up on writing.
BUSY_TIMEOUT_MS = 5000
#: Rows fetched per ``IN (...)`` query (SQLite's default variable limit is 999 or more).
_BATCH = 900

#: SQLite error names that mean the file is damaged or not a database: rebuild it.
_CORRUPT = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT", "SQLITE_IOERR_SHORT_READ"})
#: ... that mean the folder or file cannot be written: run without the cache.
_UNWRITABLE_PREFIXES = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_FULL", "SQLITE_IOERR")
#: ... that mean another run holds the lock: skip this write, keep the cache.
_BUSY_PREFIXES = ("SQLITE_BUSY", "SQLITE_LOCKED")

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    rel TEXT PRIMARY KEY,
    sig TEXT NOT NULL,
    deps TEXT NOT NULL,
    value BLOB NOT NULL
) WITHOUT ROWID;
"""


class _Corrupt(Exception):
    """The cache file is damaged or not ours."""


def _key(rel: str) -> str:
    """A path as the table holds it: itself, or for a name that is not UTF-8 (it holds
    surrogate escapes, which SQLite's UTF-8 text cannot) "/" and the hex of its bytes on
    disk: a relative path never starts with "/", so no two paths share a key."""
    if rel.isascii():
        return rel
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "/" + os.fsencode(rel).hex()
    return rel


def _rel(key: str) -> str:
    """The path of a table key (``_key`` undone). A key starting with "/" that is not hex was
    not written by texbudget (no file has its path: a relative path never starts with "/"):
    it stays itself, never a hit, and a whole-tree scan prunes it."""
    if not key.startswith("/"):
        return key
    try:
        return os.fsdecode(bytes.fromhex(key[1:]))
    except ValueError:
        return key


def signature(st: os.stat_result, sidecars: Iterable[os.stat_result] = ()) -> str:
    """The cache signature of a file's stat and its sidecars' stats."""
    own = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
    if not sidecars:  # nearly every file: one string, no list to join
        return own
    return "|".join([own, *(f"{s.st_size}:{s.st_mtime_ns}:{s.st_ctime_ns}" for s in sidecars)])


def stat_signature(path: str) -> str:
    """The signature of a dependency by path; ``-`` when it does not exist or cannot be read."""
    try:
        return signature(os.stat(path))
    except OSError:
        return "-"


def is_racy(st: os.stat_result, now_ns: int | None = None) -> bool:
    """True when the file changed so recently that a same-size rewrite could keep its mtime."""
    now = time.time_ns() if now_ns is None else now_ns
    return now - st.st_mtime_ns < RACY_SECONDS * 1e9


def is_racy_signature(sig: str, now_ns: int | None = None) -> bool:
    """``is_racy`` of the file a ``signature`` was made for (its mtime is the second number)."""
    now = time.time_ns() if now_ns is None else now_ns
    return now - int(sig.split(":", 2)[1]) < RACY_SECONDS * 1e9


class Signatures(Mapping[str, str]):
    """The signatures of a scan's files (path -> ``signature``'s string), each made when it
    is asked for rather than held: a string of about 90 bytes a file and the table around
    them were 13 MiB of the warm check's peak at 100k files (``benchmarks/README.md``).

    ``files`` are the scan's paths and ``position`` each one's index in ``files`` (the
    caller's table when it has one, else made here). ``put(i, stat, sidecars)`` notes file
    ``i``'s size, mtime and ctime as machine ints, one column each (``stat`` does it for every
    file); a file with sidecars keeps its whole signature as a string too, and so does one
    whose numbers the columns cannot hold (a time before 1970 or after 2554). A file never put
    (it vanished, or was not looked at) is not in the mapping. ``own(path)`` is the file's
    signature without its sidecars; ``paths()`` the mapping's paths, without the columns."""

    def __init__(self, files: Sequence[str], position: Mapping[str, int] | None = None) -> None:
        self.files = files
        self.position = {rel: i for i, rel in enumerate(files)} if position is None else position
        n = len(files)
        # unsigned: an array of "q" converts each number it is given through PyArg_Parse,
        # one of "Q" directly (a time before 1970 is kept as a string, as one past 2554)
        self.sizes = array("Q", bytes(8 * n))
        self.mtimes = array("Q", bytes(8 * n))
        self.ctimes = array("Q", bytes(8 * n))
        # per file: 0 not put, 1 its signature in the columns, 2 in the columns and, with
        # its sidecars', in ``joined``, 3 in ``joined`` and ``unfit`` (numbers the columns
        # cannot hold)
        self.kinds = bytearray(n)
        self.joined: dict[str, str] = {}
        self.unfit: dict[str, str] = {}  # a kind-3 file's own signature
        self._paths = _Paths(files, self.position, self.kinds)
        self.prefix = ""  # what ``stat`` put before each path

    def stat(self, prefix: str, sidecars: Callable[[str], Sequence[os.stat_result]]) -> set[str]:
        """``put`` every file's stat (of ``prefix + path``; one that cannot be stat'ed is left
        out) with its sidecars' (``sidecars(path)``), and return the files that have some. For
        a new ``Signatures``: every file is marked in the columns first, then the few that
        are not (``put``'s work written out for the usual file rather than a call a file)."""
        sizes, mtimes, ctimes, kinds, put = self.sizes, self.mtimes, self.ctimes, self.kinds, self.put
        with_sidecar: set[str] = set()
        stat = os.stat
        self.prefix = prefix
        kinds[:] = b"\x01" * len(kinds)  # every file in the columns, but those marked otherwise below
        for i, rel in enumerate(self.files):
            sides = sidecars(rel)
            if sides:
                with_sidecar.add(rel)
            try:
                st = stat(prefix + rel)
            except OSError:
                kinds[i] = 0
                continue
            if sides:
                put(i, st, sides)
                continue
            try:
                sizes[i], mtimes[i], ctimes[i] = st.st_size, st.st_mtime_ns, st.st_ctime_ns
            except OverflowError:
                put(i, st)
        return with_sidecar

    def put(self, i: int, st: os.stat_result, sidecars: Sequence[os.stat_result] = ()) -> None:
        """Note the stat of ``files[i]`` and of its sidecars."""
        try:
            self.sizes[i], self.mtimes[i], self.ctimes[i] = st.st_size, st.st_mtime_ns, st.st_ctime_ns
        except OverflowError:
            rel = self.files[i]
            self.unfit[rel] = signature(st)
            self.joined[rel] = signature(st, sidecars)
            self.kinds[i] = 3
            return
        if sidecars:
            self.joined[self.files[i]] = signature(st, sidecars)
            self.kinds[i] = 2
        else:
            self.kinds[i] = 1

    def get(self, rel: str, default: Any = None) -> Any:  # one call per cache row: not Mapping's
        i = self.position.get(rel)
        if i is None:
            return default
        kind = self.kinds[i]
        if kind == 1:
            return f"{self.sizes[i]}:{self.mtimes[i]}:{self.ctimes[i]}"
        return self.joined[rel] if kind else default

    def own(self, rel: str) -> str | None:
        """The signature of ``rel`` without its sidecars; None when it is not here."""
        i = self.position.get(rel)
        if i is None:
            return None
        kind = self.kinds[i]
        if kind == 3:
            return self.unfit[rel]
        return f"{self.sizes[i]}:{self.mtimes[i]}:{self.ctimes[i]}" if kind else None

    def dependency(self, rel: str) -> str:
        """A dependency's signature (``Cache.each_hit``'s ``dep_sig``): ``own(rel)``, or for a
        file that is not here ``stat_signature`` of it under the prefix ``stat`` was given.
        (A glTF's dependencies are checked once per distinct list, ``Cache.each_hit``: this
        is not hot enough to write ``own`` out again.)"""
        return self.own(rel) or stat_signature(self.prefix + rel)

    def __getitem__(self, rel: str) -> str:
        sig = self.get(rel)
        if sig is None:
            raise KeyError(rel)
        return sig

    def __contains__(self, rel: object) -> bool:
        return rel in self._paths

    def __iter__(self) -> Iterator[str]:
        return compress(self.files, self.kinds)

    def __len__(self) -> int:
        return len(self._paths)

    def paths(self) -> Set[str]:
        """The paths of the mapping, as it changes, without the signatures' columns (what a
        cache keeps after a lookup, ``Cache.prune``)."""
        return self._paths

    def columns(self) -> _Columns:
        """(position.get, kinds, sizes, mtimes, ctimes): what ``Cache.each_hit`` makes a kind-1
        file's signature from, inline."""
        return self.position.get, self.kinds, self.sizes, self.mtimes, self.ctimes


_Columns = tuple[Callable[[str], "int | None"], bytearray, array, array, array]
#: ``Signatures.columns`` of a mapping that has none: every path is looked up with ``get``.
_NO_COLUMNS: _Columns = (dict[str, int]().get, bytearray(), array("Q"), array("Q"), array("Q"))


class _Paths(Set[str]):
    """``Signatures.paths``: the files whose kind is not 0."""

    def __init__(self, files: Sequence[str], position: Mapping[str, int], kinds: bytearray) -> None:
        self.files, self.position, self.kinds = files, position, kinds

    def __contains__(self, rel: object) -> bool:
        i = self.position.get(rel)  # type: ignore[call-overload]
        return i is not None and self.kinds[i] != 0

    def __iter__(self) -> Iterator[str]:
        return compress(self.files, self.kinds)

    def __len__(self) -> int:
        return len(self.kinds) - self.kinds.count(0)


# --- values -------------------------------------------------------------------------------
#
# A value is a file's ``(ReadResult, engine)``, ``engine`` an ``EngineImport``, a ``Finding``
# (the sidecar could not be read) or None. It is stored as the msgpack array
# ``[ReadResult, EngineImport or nil, Finding or nil]``, every record an array of its fields in
# order (``model.Record`` is ``array_like``), and decoded by a typed ``msgspec`` decoder:
# anything but that shape, a field of another type, too few or too many fields, is refused
# (``msgspec.ValidationError``; damaged bytes ``msgspec.DecodeError``), and nothing in a blob
# names a type to build, so a crafted cache file cannot run code.
#
# msgpack strings are UTF-8, and a path that is not (a file name in another encoding, held
# with surrogate escapes by ``os.fsdecode``) cannot be one. A value holding such a string is
# stored in a second form (``_ESCAPED``): the marker byte 0xc1, which msgpack never uses and
# so never starts a plain value, then the value with each such string as the msgpack
# extension ``_FS_NAME`` holding ``os.fsencode`` of it. That form is decoded without a type
# (the extension's hook gives the string back) and then converted to the records.

#: The marker of a value stored with its non-UTF-8 strings as ``_FS_NAME`` extensions.
_ESCAPED = b"\xc1"
#: The msgpack extension type of a string that is not UTF-8: its ``os.fsencode`` bytes.
_FS_NAME = 1


def _fs_name(code: int, data: memoryview) -> str:
    if code != _FS_NAME:
        raise ValueError(f"msgpack extension type {code} is not texbudget's")
    return os.fsdecode(bytes(data))


def _escaped(obj: object) -> object:
    """``obj`` (builtins: lists and tuples, dicts, strings, numbers) with every string that
    is not UTF-8 as a ``_FS_NAME`` extension."""
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return msgspec.msgpack.Ext(_FS_NAME, os.fsencode(obj))
        return obj
    if isinstance(obj, (list, tuple)):
        return [_escaped(item) for item in obj]
    if isinstance(obj, dict):
        return {_escaped(k): _escaped(v) for k, v in obj.items()}
    return obj


class Codec:
    """msgpack for one type (``kind``): ``dumps`` any value of it, ``loads`` it back built as
    that type (records, enums, tuples) or raise. Strings that are not UTF-8 go through the
    escaped form (see above)."""

    def __init__(self, kind: Any) -> None:
        self.kind = kind
        self.decode = msgspec.msgpack.Decoder(kind).decode
        self.encode = msgspec.msgpack.Encoder().encode

    def dumps(self, value: object) -> bytes:
        try:
            return self.encode(value)
        except UnicodeEncodeError:  # a string that is not UTF-8
            plain = msgspec.to_builtins(value, builtin_types=(bytes, bytearray, memoryview))
            return _ESCAPED + self.encode(_escaped(plain))

    def loads(self, blob: bytes) -> Any:
        if blob[:1] != _ESCAPED:
            return self.decode(blob)
        raw = msgspec.msgpack.Decoder(ext_hook=_fs_name).decode(memoryview(blob)[1:])
        return msgspec.convert(raw, self.kind)


@functools.cache
def _values() -> Codec:
    """The codec of stored values (made on first use, not at import)."""
    from texbudget.engine import EngineImport

    return Codec(tuple[ReadResult, EngineImport | None, Finding | None])


def stored(value: tuple[ReadResult, object]) -> tuple[ReadResult, Any, Finding | None]:
    """A cache value ``(ReadResult, EngineImport | Finding | None)`` in its stored form,
    ``(ReadResult, EngineImport | None, Finding | None)``: what ``dumps`` writes (and a pool
    worker sends, ``scan.reading._MESSAGES``)."""
    result, engine = value
    if isinstance(engine, Finding):
        return result, None, engine
    return result, engine, None


def dumps(value: tuple[ReadResult, object]) -> bytes:
    """The stored form of a cache value ``(ReadResult, EngineImport | Finding | None)``."""
    return _values().dumps(stored(value))


def loads(blob: bytes) -> tuple[ReadResult, object]:
    """A cache value from its stored form; ``msgspec.ValidationError`` or
    ``msgspec.DecodeError`` (or ``ValueError`` from an unknown extension) when the bytes are
    damaged or of another shape."""
    result, engine, refused = _values().loads(blob)
    return result, engine if engine is not None else refused


def _share_texture(texture: TextureFacts, share: Callable[[Any, Any], Any]) -> None:
    """Point a texture's strings but its path (``Decoder.share`` keeps that), sizes and
    chain of level sizes (the fields whose values recur across files) at the equal objects
    ``share`` kept. Written out field by field: a loop over the names took about 1.4 times
    as long (``benchmarks/README.md``)."""
    value: object = texture.container
    kept: object
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "container", kept)
    value = texture.stored_format
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "stored_format", kept)
    value = texture.color_space
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "color_space", kept)
    if texture.supercompression is not None:  # the two are None but for Basis and supercompressed KTX2
        value = texture.supercompression
        if (kept := share(value, value)) is not value:
            force_setattr(texture, "supercompression", kept)
    if texture.transcodable is not None:
        value = texture.transcodable
        if (kept := share(value, value)) is not value:
            force_setattr(texture, "transcodable", kept)
    _share_texture_sizes(texture, share)


def _share_texture_sizes(texture: TextureFacts, share: Callable[[Any, Any], Any]) -> None:
    """A texture's sizes and chain of level sizes (``_share_texture``'s numbers)."""
    value: object = texture.width
    kept: object
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "width", kept)
    value = texture.height
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "height", kept)
    value = texture.level_bytes
    if (kept := share(value, value)) is not value:
        force_setattr(texture, "level_bytes", kept)


def _share_mesh_sizes(mesh: MeshFacts, share: Callable[[Any, Any], Any]) -> None:
    """Point a mesh's counts and sizes, and its ``surfaces``' counts, at the equal ints ``share`` kept.
    A mesh library repeats a few vertex counts and layouts, and an int decoded (or summed by
    a reader) is an object of its own, 32 bytes: eight of them per mesh held 35 MiB of the
    100k ``glb`` benchmark tree's 140,000 meshes (``benchmarks/README.md``). Written out
    field by field, as ``_share_texture``."""
    value = mesh.vertices
    if (kept := share(value, value)) is not value:
        force_setattr(mesh, "vertices", kept)
    value = mesh.indices
    if (kept := share(value, value)) is not value:
        force_setattr(mesh, "indices", kept)
    value = mesh.triangles
    if (kept := share(value, value)) is not value:
        force_setattr(mesh, "triangles", kept)
    value = mesh.vertex_bytes
    if (kept := share(value, value)) is not value:
        force_setattr(mesh, "vertex_bytes", kept)
    value = mesh.index_bytes
    if (kept := share(value, value)) is not value:
        force_setattr(mesh, "index_bytes", kept)
    if mesh.morph_bytes:
        value = mesh.morph_bytes
        if (kept := share(value, value)) is not value:
            force_setattr(mesh, "morph_bytes", kept)
    if not mesh.surfaces:  # none, or one held inline: its counts are the mesh's, kept above
        return
    # a primitive's count is often the mesh's (primitives that share one POSITION accessor)
    vertices, indices, triangles = mesh.vertices, mesh.indices, mesh.triangles
    for primitive in mesh.surfaces:
        value = primitive.vertex_count
        if (kept := vertices if value == vertices else share(value, value)) is not value:
            force_setattr(primitive, "vertex_count", kept)
        value = primitive.triangles
        if (kept := triangles if value == triangles else share(value, value)) is not value:
            force_setattr(primitive, "triangles", kept)
        value = primitive.index_count
        if (kept := indices if value == indices else share(value, value)) is not value:
            force_setattr(primitive, "index_count", kept)
        if primitive.morph_bytes:
            value = primitive.morph_bytes
            if (kept := share(value, value)) is not value:
                force_setattr(primitive, "morph_bytes", kept)


class Decoder:
    """Loads cache values (``loads``), sharing what they have in common.

    A texture's strings, sizes and chain of level sizes (``_share_texture``), a mesh's
    ``source`` and its and its primitives' counts and sizes (``_share_mesh_sizes``), a
    primitive's attributes (equal ``AttributeFacts`` kept once) and compression, inline in
    its mesh or not (``_share_primitive``), the texture paths and slots a scene uses (and
    its columns of instance counts and of slots) and the targets, kinds and slots of its references are kept once for
    all values; mesh and material paths once
    within a value (msgpack, unlike the readers and pickle, writes a string as often as it
    occurs). The records just decoded, seen by no one yet, are pointed at the kept objects
    with ``msgspec.structs.force_setattr``. ``share_sizes`` does the same for the numbers of
    a value read in this process. One decoder serves one lookup or one scan: its tables live
    as long as it does.

    A path field (a texture's, a scene's, the textures a scene uses, a reference's target)
    is first looked up in ``paths``, the files of the scan, by ``position`` (each one's index
    in ``paths``: the caller's table when it has one, else made here), so a file's path is
    the very string discovery listed. The other kept values, paths that are not files among
    them, are in ``shared``. (Seeded with the paths, ``shared`` grew threefold, to 10 MiB at
    100k files, once the first value that is not a string went in; a table of the paths
    alone would be another 3.7 MiB beside the position table that a scan has anyway.)"""

    def __init__(self, paths: Iterable[str] = (), position: Mapping[str, int] | None = None) -> None:
        self.paths: Sequence[str] = paths if isinstance(paths, Sequence) else list(paths)
        self.position = {p: i for i, p in enumerate(self.paths)} if position is None else position
        self.shared: dict[object, object] = {}
        self._attributes: dict[AttributeFacts, AttributeFacts] = {}

    @classmethod
    def of(cls, sigs: Mapping[str, str]) -> Decoder:
        """The decoder of a lookup of ``sigs``' paths (a scan's ``Signatures``: its table)."""
        if isinstance(sigs, Signatures):
            return cls(sigs.files, sigs.position)
        return cls(list(sigs))

    def loads(self, blob: bytes) -> tuple[ReadResult, object]:
        """A cache value from its blob (``loads``), shared."""
        return self.take(_values().loads(blob))

    def take(self, value: tuple[ReadResult, object, Finding | None]) -> tuple[ReadResult, object]:
        """A cache value from its stored form just decoded (``stored``; a pool worker's
        message holds them so when no cache is written), shared."""
        result, engine, refused = value
        self.share(result)
        return result, engine if engine is not None else refused

    def share_sizes(self, result: ReadResult) -> None:
        """Point the numbers of ``result`` (read in this process, seen by no one yet: its
        strings and a primitive's attributes are shared by the readers) at the equal ones
        this decoder met before: a texture's sizes and chain of level sizes, a mesh's and its
        primitives' counts and sizes."""
        share = self.shared.setdefault
        for texture in result.textures:
            _share_texture_sizes(texture, share)
        for mesh in result.meshes:
            _share_mesh_sizes(mesh, share)

    def share(self, result: ReadResult) -> None:
        """Point ``result``'s records (just decoded, seen by no one yet) at the equal values
        this decoder met before."""
        share = self.shared.setdefault
        # a path field: the file's own string (``paths[at(path)]``), else a kept one
        paths, at = self.paths, self.position.get
        for texture in result.textures:
            value = texture.path
            if (kept := paths[i] if (i := at(value)) is not None else share(value, value)) is not value:
                force_setattr(texture, "path", kept)
            _share_texture(texture, share)
        if not (result.meshes or result.scenes):
            return
        # A file's mesh and material paths recur within its value (a scene's instances and
        # texture uses name them again), not in other files': kept for this value only.
        local: dict[object, object] = {}
        own = local.setdefault
        for mesh in result.meshes:
            own(mesh.path, mesh.path)
            force_setattr(mesh, "source", share(mesh.source, mesh.source))
            _share_mesh_sizes(mesh, share)
            if mesh.mode is not None:  # one primitive, held inline
                self._share_primitive(mesh, share, own)
            for primitive in mesh.surfaces:
                self._share_primitive(primitive, share, own)
        for scene in result.scenes:
            value = scene.path
            force_setattr(scene, "path", own(value, paths[i] if (i := at(value)) is not None else share(value, value)))
            # the columns of own and kept values rebuilt by a map (a comprehension is a call
            # of its own on Python 3.11)
            if scene.mesh_paths:
                force_setattr(scene, "mesh_paths", tuple(map(own, scene.mesh_paths, scene.mesh_paths)))
                force_setattr(scene, "mesh_counts", share(scene.mesh_counts, scene.mesh_counts))
            if scene.texture_paths:
                force_setattr(scene, "texture_paths", tuple([paths[i] if (i := at(t)) is not None else share(t, t) for t in scene.texture_paths]))
                force_setattr(scene, "texture_users", tuple(map(own, scene.texture_users, scene.texture_users)))
                slots = self.shared.get(scene.texture_slots)
                if slots is None:  # kept with its slots kept
                    slots = tuple(map(share, scene.texture_slots, scene.texture_slots))
                    share(slots, slots)
                force_setattr(scene, "texture_slots", slots)
            for ref in scene.refs:
                force_setattr(ref, "holder", own(ref.holder, ref.holder))
                value = ref.target
                force_setattr(ref, "target", paths[i] if (i := at(value)) is not None else share(value, value))
                force_setattr(ref, "kind", share(ref.kind, ref.kind))
                force_setattr(ref, "slot", share(ref.slot, ref.slot))

    def _share_primitive(self, primitive: MeshFacts | PrimitiveFacts, share: Callable[[Any, Any], Any],
                         own: Callable[[Any, Any], Any]) -> None:
        """A primitive's attributes (equal ``AttributeFacts`` kept once) and compression, for
        all values, and its material for this value (``own``); ``primitive`` is one of a
        mesh's ``surfaces`` or the mesh that holds its one primitive inline (the same fields)."""
        attributes = self.shared.get(primitive.attributes)
        if attributes is None:  # kept with its AttributeFacts kept, not the decoded ones
            wholes = self._attributes.setdefault
            attributes = tuple(wholes(a, a) for a in primitive.attributes)
            share(attributes, attributes)
        force_setattr(primitive, "attributes", attributes)
        if primitive.compression is not None:
            force_setattr(primitive, "compression", share(primitive.compression, primitive.compression))
        if primitive.material is not None:
            force_setattr(primitive, "material", own(primitive.material, primitive.material))


#: A damaged or hostile blob makes the decoder raise (DecodeError, ValidationError, ValueError
#: from an unknown extension, RecursionError from nesting in the escaped form, MemoryError);
#: every one means "drop this entry".
_LOAD_ERRORS = (Exception,)


# --- the cache -----------------------------------------------------------------------------


class Cache:
    """One scan root's cache. Create with ``Cache.open(root)``; every method is safe to call
    when the cache is off (``usable`` False): lookups miss and writes do nothing.
    (A plain class, not a dataclass: defining one costs a millisecond of start-up.)"""

    def __init__(self, path: Path, conn: sqlite3.Connection | None = None, reason: str = "") -> None:
        self.path = path
        self.conn = conn
        self.reason = reason  # why the cache is off ("" while it works)
        self.notes: list[Finding] = []  # TB007 when it was rebuilt or entries were dropped
        self.hits = self.misses = self.stored = self.pruned = 0
        # after a lookup that read the whole table: the paths it was asked for (the keys of
        # the mapping given, not a copy) and the table's paths not among them (``prune``)
        self._table: tuple[Set[str], set[str]] | None = None
        self._taken = 0  # notes already handed out by take_notes

    def take_notes(self) -> list[Finding]:
        """The TB007 notes not handed out yet (a cache used for several scans reports each
        rebuild once)."""
        fresh = self.notes[self._taken :]
        self._taken = len(self.notes)
        return fresh

    def counts(self) -> tuple[int, int, int, int]:
        """(hits, misses, stored, pruned) so far."""
        return self.hits, self.misses, self.stored, self.pruned

    @property
    def usable(self) -> bool:
        return self.conn is not None

    @property
    def shown(self) -> str:
        return f"{CACHE_DIR}/{CACHE_FILE}"

    # --- opening

    @classmethod
    def open(cls, root: Path) -> Cache:
        """The cache under ``root``; created when missing, rebuilt when damaged, off (with a
        reason) when the folder cannot be written."""
        folder = Path(root) / CACHE_DIR
        cache = cls(folder / CACHE_FILE)
        try:
            folder.mkdir(exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# texbudget's read cache; never commit it\n*\n")
        except OSError as exc:
            cache.reason = f"cannot create {folder}: {exc.strerror or exc}"
            return cache
        try:
            cache.conn = cache._connect()
        except _Corrupt as exc:
            cache._rebuild(str(exc))
        except sqlite3.Error as exc:
            cache._off(exc)
        return cache

    def _connect(self) -> sqlite3.Connection:
        """Open, check the file is ours and of this schema, set up WAL. ``_Corrupt`` when it is
        damaged or not ours; other ``sqlite3.Error`` when it cannot be opened or written."""
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            state = _look(conn)
            if state is None:
                self._create(conn)
            else:
                version = _judge(state)
                if version != CACHE_VERSION:
                    self._reset(conn)
            _use_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _error_name(exc) in _CORRUPT:
                raise _Corrupt(f"{_error_name(exc)}: {exc}") from None
            raise
        except _Corrupt:
            conn.close()
            raise

    def _create(self, conn: sqlite3.Connection) -> None:
        """Make the tables of an empty file, under the write lock. Another run may have made
        them since we looked: then its work is judged instead."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            state = _look(conn, in_transaction=True)
            if state is not None:
                conn.execute("COMMIT")
                if _judge(state) != CACHE_VERSION:
                    self._reset(conn)
                return
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA}")
            for statement in _TABLES.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (CACHE_VERSION,))
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _reset(self, conn: sqlite3.Connection) -> None:
        """Empty a cache another texbudget version wrote, and claim it for this one."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            schema = conn.execute("PRAGMA user_version").fetchone()[0]
            if row is None or row[0] != CACHE_VERSION or schema != SCHEMA:
                conn.execute("DELETE FROM entries")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (CACHE_VERSION,))
                conn.execute(f"PRAGMA user_version = {SCHEMA}")
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

    def _rebuild(self, why: str) -> None:
        """Delete the damaged file (and its WAL) and start an empty cache; a TB007 note."""
        self._table = None
        if self.conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            self.conn = None
        try:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
            self.conn = self._connect()
        except (OSError, sqlite3.Error, _Corrupt) as exc:
            self.reason = f"cannot rebuild {self.path}: {exc}"
            self.conn = None
        self.notes.append(findings.make(self.shown, "TB007", f"the read cache was corrupt ({why}); it was rebuilt and every file read again"))

    def _off(self, exc: BaseException) -> None:
        self.reason = f"cannot use {self.path}: {exc}"
        if self.conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
        self.conn = None

    def _failed(self, exc: sqlite3.Error) -> None:
        """An error during use: rebuild when the file is damaged, else turn the cache off."""
        name = _error_name(exc)
        if name in _CORRUPT:
            self._rebuild(f"{name}: {exc}")
        elif not name.startswith(_BUSY_PREFIXES):
            self._off(exc)

    def close(self) -> None:
        self._table = None
        if self.conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            self.conn = None

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- use

    def lookup(self, sigs: Mapping[str, str], dep_sig: Callable[[str], str] | None = None) -> dict[str, object]:
        """The values of the entries of ``sigs`` (path -> current signature) that are still
        valid: path -> ``(ReadResult, EngineImport | Finding | None)`` (``each_hit``, gathered)."""
        return dict(self.each_hit(sigs, dep_sig))

    def each_hit(self, sigs: Mapping[str, str], dep_sig: Callable[[str], str] | None = None) -> Iterator[tuple[str, Any]]:
        """(path, value) of each entry of ``sigs`` (path -> current signature) that is still
        valid, one at a time as it is decoded (a scan takes each value's records and lets the
        rest go before the next). ``dep_sig(rel)`` gives a dependency's current signature
        (default: stat it under the scan root). The counts, and the TB007 note of entries
        that could not be decoded, are updated when the iteration ends; when the table
        fails part way, the entries not given yet are misses.

        Asked for most of the table, the lookup reads it whole, once, and keeps the paths of
        ``sigs`` (not a copy: they must not change until ``prune``) and the table's other
        paths for ``prune``."""
        if self.conn is None or not sigs:
            self.misses += len(sigs)
            return
        root = self.path.parent.parent
        dep_sig = dep_sig or (lambda rel: stat_signature(os.path.join(root, rel)))
        given = 0
        bad: list[str] = []
        decoder = Decoder.of(sigs)
        paths, position = decoder.paths, decoder.position  # the caller's strings, not the rows' copies
        # a scan's Signatures: a file's signature is made from its columns here rather than
        # by a call a row (about 8 M instructions of the 10k warm check); another mapping's
        # by get
        at, kinds, sizes, mtimes, ctimes = sigs.columns() if isinstance(sigs, Signatures) else _NO_COLUMNS
        try:
            rows, whole = self._rows(sigs)
            matched = ""  # the dependencies of the last entry that had some, and they matched
            others: set[str] | None = None  # reading the whole table: its paths not in sigs
            current: str | None  # the signature of a row's file now
            if whole:
                self._table, others = None, set()
            for key, sig, deps, blob in rows:
                rel = _rel(key) if key[:1] == "/" else key  # (a call only for a name that is not UTF-8)
                if (i := at(rel)) is not None and kinds[i] == 1:  # Signatures.get's, inline
                    current = f"{sizes[i]}:{mtimes[i]}:{ctimes[i]}"
                else:
                    current = sigs.get(rel)
                if current != sig:
                    if current is None and others is not None:
                        others.add(rel)
                    continue
                if deps and deps != matched:
                    if not self._deps_match(deps, dep_sig):
                        continue
                    # files of a folder often use the same ones (the 10k glb benchmark tree:
                    # 7,900 of 8,000 lists equal the row's before): each checked once a run
                    matched = deps
                try:
                    value = decoder.loads(blob)
                except _LOAD_ERRORS:
                    bad.append(rel)
                    continue
                given += 1
                yield paths[position[rel]], value
            if others is not None:
                self._table = (sigs.paths() if isinstance(sigs, Signatures) else sigs.keys(), others)
        except sqlite3.Error as exc:
            self._failed(exc)
        if bad:
            self.notes.append(findings.make(self.shown, "TB007", f"the read cache was corrupt ({len(bad)} entr{'y' if len(bad) == 1 else 'ies'} could not be decoded, e.g. {bad[0]}); they were dropped and the files read again"))
            self._delete(bad)
        self.hits += given
        self.misses += len(sigs) - given

    @staticmethod
    def _deps_match(deps: str, dep_sig: Callable[[str], str]) -> bool:
        for line in deps.split("\n"):
            rel, _, sig = line.rpartition("\t")
            if dep_sig(_rel(rel) if rel[:1] == "/" else rel) != sig:
                return False
        return True

    def _rows(self, sigs: Mapping[str, str]) -> tuple[Iterator[tuple[str, str, str, bytes]], bool]:
        """The rows (key, signature, dependencies, blob) of the paths of ``sigs`` (and maybe
        others), fetched as they are used: a whole table is never held in memory (at 100k
        files it would be 60 MB); and whether they are the whole table (asked for most of
        it, one scan beats many lookups)."""
        assert self.conn is not None
        total = self.conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        if len(sigs) * 4 >= total:
            return self.conn.execute("SELECT rel, sig, deps, value FROM entries"), True
        return self._keyed("rel, sig, deps, value", list(map(_key, sigs))), False

    def _keyed(self, columns: str, keys: list[str]) -> Iterator[Any]:
        """``columns`` of the rows of ``keys``, ``_BATCH`` keys a query."""
        assert self.conn is not None
        for i in range(0, len(keys), _BATCH):
            chunk = keys[i : i + _BATCH]
            marks = ",".join("?" * len(chunk))
            yield from self.conn.execute(f"SELECT {columns} FROM entries WHERE rel IN ({marks})", chunk).fetchall()

    def store(self, items: Iterable[tuple[str, str, Iterable[tuple[str, str]], bytes]]) -> int:
        """Write ``(rel, signature, dependencies [(rel, signature)], blob)`` rows in one
        transaction. Returns how many were written (0 when another run held the lock for
        longer than ``BUSY_TIMEOUT_MS``, or the cache is off)."""
        if self.conn is None:
            return 0
        rows = [(_key(rel), sig, "\n".join(f"{_key(d)}\t{s}" for d, s in deps), blob) for rel, sig, deps, blob in items]
        if not rows:
            return 0
        if not self._write(lambda conn: conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", rows)):
            return 0
        self.stored += len(rows)
        if self._table is not None:
            asked, others = self._table
            others.update(rel for rel in map(_rel, (r[0] for r in rows)) if rel not in asked)
        return len(rows)

    def prune(self, keep: Iterable[str]) -> int:
        """Delete the entries of files not in ``keep`` (call after a whole-tree scan). A set
        or a mapping (its keys) is used as it is, anything else copied into a set.

        After a lookup that read the whole table, the table is what it read (the paths it was
        asked for, and the others), with what this cache stored and deleted since: of the paths
        asked for, those not in ``keep`` (a scan keeps every file it asked for: usually none)
        are looked up in the table; the table is not read again (that took 47 ms at 100k
        files). Otherwise its paths are read."""
        if self.conn is None:
            return 0
        if not isinstance(keep, (Set, Mapping)):
            keep = set(keep)
        table, self._table = self._table, None
        try:
            if table is not None:
                asked, others = table
                stale = [rel for rel in others if rel not in keep]
                # a scan keeps the very table its Signatures are by (``_Paths.position``):
                # nothing asked for to look at (at 100k files, 10-15 ms to go through them)
                within = isinstance(asked, _Paths) and asked.position is keep
                if not within and (gone := [rel for rel in asked if rel not in keep]):
                    stale += self._held(gone)
            else:
                stale = [rel for (key,) in self.conn.execute("SELECT rel FROM entries") if (rel := _rel(key)) not in keep]
        except sqlite3.Error as exc:
            self._failed(exc)
            return 0
        self._delete(stale)
        self.pruned += len(stale)
        return len(stale)

    def _held(self, rels: list[str]) -> list[str]:
        """The paths of ``rels`` the table holds (in no set order)."""
        return [_rel(key) for (key,) in self._keyed("rel", list(map(_key, rels)))]

    def _delete(self, rels: list[str]) -> None:
        if not rels or self.conn is None:
            return
        if self._table is not None:
            self._table[1].difference_update(rels)
        self._write(lambda conn: conn.executemany("DELETE FROM entries WHERE rel = ?", [(_key(r),) for r in rels]))

    def _write(self, work: Callable[[sqlite3.Connection], object]) -> bool:
        """Run ``work`` inside BEGIN IMMEDIATE … COMMIT. False (nothing written) when the lock
        could not be had or the cache failed; that is handled here, never raised."""
        conn = self.conn
        if conn is None:
            return False
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._failed(exc)
            return False
        try:
            work(conn)
            conn.execute("COMMIT")
            return True
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            self._failed(exc)
            return False
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise


_State = tuple[int, int, frozenset[str], tuple[str, ...], tuple[str, ...], "str | None"]


def _look(conn: sqlite3.Connection, in_transaction: bool = False) -> _State | None:
    """(application id, user_version, tables, entries columns, meta columns, stored
    version) read in one snapshot, so a file another run is creating is seen either empty
    or whole; None for an empty file."""
    if not in_transaction:
        conn.execute("BEGIN")
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = frozenset(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        entries = tuple(r[1] for r in conn.execute("PRAGMA table_info(entries)"))
        meta = tuple(r[1] for r in conn.execute("PRAGMA table_info(meta)"))
        version = None
        if meta == ("key", "value"):
            row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            version = row[0] if row is not None else None
    finally:
        if not in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")
    if app_id == 0 and user_version == 0 and not tables:
        return None
    return app_id, user_version, tables, entries, meta, version


def _judge(state: _State) -> str | None:
    """The stored version of a file that is ours with the tables this schema has; ``_Corrupt``
    otherwise. A file of another schema number with these tables is another texbudget's
    (an upgrade changed what a value holds): its version never matches, so it is emptied
    and claimed as for another texbudget version, with no finding."""
    app_id, user_version, _tables, entries, meta, version = state
    if app_id != APPLICATION_ID:
        raise _Corrupt(f"not a texbudget cache (application id 0x{app_id:08x})")
    if entries != ("rel", "sig", "deps", "value") or meta != ("key", "value"):
        raise _Corrupt(f"wrong schema (version {user_version}, entries {', '.join(entries) or 'missing'}, meta {', '.join(meta) or 'missing'})")
    return version if user_version == SCHEMA else f"schema {user_version}"


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to the WAL journal (kept in the file, so this is once per cache). Another run
    holding a lock can make the switch fail for a moment; it is retried, and if it never
    takes the rollback journal is used, which is as safe, only less concurrent."""
    for _ in range(40):
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if not _error_name(exc).startswith(_BUSY_PREFIXES):
                raise
            mode = "busy"
        if str(mode).lower() == "wal":
            return
        time.sleep(0.05)


def _error_name(exc: BaseException) -> str:
    return getattr(exc, "sqlite_errorname", "") or ""

