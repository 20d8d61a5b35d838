"""Reading one file: a prefetched source for the readers' header looks (``_Prefetched``:
one ``read`` serves them all), the engine sidecar beside a texture, a pool worker's chunk, and
what a file's result depends on besides itself (a glTF's buffers and images, an FBX's
textures: the cache stores them with the result).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from texbudget import cache as cache_mod
from texbudget.engine import EngineImport
from texbudget.model import Finding, ReadResult, is_part
from texbudget.readers import Source, read_source
from texbudget.readers.sidecars import read_engine_import

#: (rel, result, engine) of a file; the engine is an ``EngineImport``, a ``Finding`` or None (a pool
#: worker sends it as the cache stores values).
Reader = Callable[[tuple[Path, str]], tuple[str, ReadResult, object]]

#: Files up to this size are read whole, once, for the readers' looks (the raw-read baseline
#: of the benchmarks reads 64 KiB of every file).
PREFETCH_BYTES = 64 * 1024
#: Bytes read up front from a larger file: every fixed header fits, and most glTF JSON chunks.
PREFETCH_HEAD_BYTES = 16 * 1024

_SCENES = (".gltf", ".glb")


def is_scene(rel: str) -> bool:
    """A glTF or GLB file."""
    return rel.lower().endswith(_SCENES)


#: A glTF's dependency paths; None: it cannot be cached; False: they were not looked for.
_Deps = list[str] | Literal[False] | None


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
        engine = read_engine_import(root / rel, rel)
    return result, engine


def _read_one(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    """Read one file and, for a texture, the engine sidecar beside it (the plain reader;
    ``read_scene`` uses the same path with what it already knows)."""
    root, rel = args
    result, engine = _read_file(root, rel, True)
    return rel, result, engine


def _read_chunk(root: Path, items: list[tuple[str, bool]], reader: Reader | None,
                for_cache: bool) -> tuple[list[bytes], list[_Stored], list[_Deps]]:
    """A pool worker's chunk (``_MESSAGES``' fields but its number), in the chunk's order:
    when ``for_cache``, each file's (ReadResult, engine) as its cache blob (the cache stores it
    as is) and its glTF dependencies (False where they were not looked for); otherwise each
    file's value in the stored form (``cache.stored``), for the message to hold as records:
    one encode a chunk in the worker and one decode a chunk here, not one of each a file. An
    exception (a bug: the readers turn a bad file into findings) names the file."""
    blobs: list[bytes] = []
    values: list[_Stored] = []
    deps: list[_Deps] = []
    for rel, sidecar in items:
        try:
            if reader is None:
                value = _read_file(root, rel, sidecar)
            else:
                _, result, engine = reader((root, rel))
                value = (result, engine)
            if not for_cache:
                values.append(cache_mod.stored(value))
                continue
            blobs.append(cache_mod.dumps(value))
            deps.append(_dependencies(root, rel, value) if has_dependencies(rel) else False)
        except Exception as exc:
            exc.add_note(f"texbudget was reading {rel}")
            raise
    return blobs, values, deps


#: A file's value as the cache stores it (``cache.stored``).
_Stored = tuple[ReadResult, EngineImport | None, Finding | None]
#: A pool worker's message: the chunk's number and ``_read_chunk``'s lists (for a scan that
#: writes the cache, each file's value as its cache blob and its glTF dependencies (``_Deps``);
#: otherwise each file's value as records), its files the chunk's, in order; or, as its last
#: message, the traceback of its unexpected exception (``pool.WorkerFailed``).
_MESSAGES = cache_mod.Codec(tuple[int, list[bytes], list[_Stored], list[list[str] | bool | None]] | str)


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
