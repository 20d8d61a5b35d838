"""Readers: one module per container, a registry keyed by suffix, content sniffed by magic.

Every reader is ``read_xxx(src: Source) -> ReadResult`` and never raises for a bad file: it
returns a ReadResult holding a Finding. ``read_source`` is the one entry point; it sniffs the
content, dispatches, and turns anything a reader lets escape into a TB009 finding so one bad
file never stops a scan.

Readers are named as ``"module:function"`` strings and imported on first use, so knowing the
suffixes costs nothing and trimesh is imported only when a mesh file that needs it is read.
The records (``texbudget.model``, and with it msgspec) are imported when a file is read, not
with the registry: discovery and ``check`` with nothing to read need only the suffixes.
"""

from __future__ import annotations

import importlib
import io
import re
from collections.abc import Callable, Iterable, Set
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from texbudget.model import ReadResult

#: suffix -> (kind, "module:function"); kind is "texture", "mesh" or "scene" (an engine scene
#: or resource file, whose SceneFacts.refs say what it loads: docs/levels.md).
_BY_SUFFIX: dict[str, tuple[str, str]] = {
    ".png": ("texture", "images:read_image"),
    ".jpg": ("texture", "images:read_image"),
    ".jpeg": ("texture", "images:read_image"),
    ".tga": ("texture", "images:read_image"),
    ".bmp": ("texture", "images:read_image"),
    ".tif": ("texture", "images:read_image"),
    ".tiff": ("texture", "images:read_image"),
    ".webp": ("texture", "images:read_image"),
    ".gif": ("texture", "images:read_image"),
    ".psd": ("texture", "images:read_image"),
    ".dds": ("texture", "dds:read_dds"),
    ".ktx": ("texture", "ktx:read_ktx1"),
    ".ktx2": ("texture", "ktx:read_ktx2"),
    ".exr": ("texture", "exr:read_exr"),
    ".hdr": ("texture", "hdr:read_hdr"),
    ".gltf": ("mesh", "gltf:read_gltf"),
    ".glb": ("mesh", "gltf:read_glb"),
    ".obj": ("mesh", "meshes:read_trimesh"),
    ".ply": ("mesh", "meshes:read_trimesh"),
    ".stl": ("mesh", "meshes:read_trimesh"),
    ".off": ("mesh", "meshes:read_trimesh"),
    ".fbx": ("mesh", "fbx:read_fbx"),
    ".tscn": ("scene", "godot_scene:read_godot_text"),
    ".tres": ("scene", "godot_scene:read_godot_text"),
    ".escn": ("scene", "godot_scene:read_godot_text"),
    ".scn": ("scene", "godot_scene:read_godot_binary"),
    ".res": ("scene", "godot_scene:read_godot_binary"),
    ".mesh": ("scene", "godot_scene:read_godot_binary"),
    ".lmbake": ("scene", "godot_scene:read_godot_binary"),
    ".meshlib": ("scene", "godot_scene:read_godot_binary"),
    ".unity": ("scene", "unity_scene:read_unity_scene"),
    ".prefab": ("scene", "unity_scene:read_unity_scene"),
    ".mat": ("scene", "unity_scene:read_unity_material"),
}

#: magic prefix -> (container name, suffix whose reader handles it)
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png", ".png"),
    (b"\xff\xd8\xff", "jpeg", ".jpg"),
    (b"DDS ", "dds", ".dds"),
    (b"\xabKTX 11\xbb\r\n\x1a\n", "ktx", ".ktx"),
    (b"\xabKTX 20\xbb\r\n\x1a\n", "ktx2", ".ktx2"),
    (b"v/1\x01", "exr", ".exr"),
    (b"#?RADIANCE", "hdr", ".hdr"),
    (b"#?RGBE", "hdr", ".hdr"),
    (b"glTF", "glb", ".glb"),
    (b"GIF87a", "gif", ".gif"),
    (b"GIF89a", "gif", ".gif"),
    (b"BM", "bmp", ".bmp"),
    (b"8BPS", "psd", ".psd"),
    (b"II*\x00", "tiff", ".tif"),
    (b"MM\x00*", "tiff", ".tif"),
    (b"Kaydara FBX Binary  \x00", "fbx", ".fbx"),
    (b"II+\x00", "tiff", ".tif"),  # BigTIFF
    (b"MM\x00+", "tiff", ".tif"),
)

#: bytes read to sniff; every magic above fits (the binary FBX one is the longest, 21).
SNIFF_BYTES = 21

#: The files a scan's discovery listed, as (root, relative paths): regular files inside the
#: root (a symbolic link on the way stays inside it; discovery checked). A reader that must
#: know whether a path another file names is such a file (a glTF's image URIs) looks here
#: first and walks the path with ``lstat`` only when it is not listed. ``scan.scene.read_scene``
#: sets it while it reads; forked pool workers inherit it; unset, every path is walked.
KNOWN_FILES: ContextVar[tuple[str, Set[str]] | None] = ContextVar("texbudget_known_files", default=None)


@dataclass(frozen=True, slots=True)
class Source:
    """A file to read: on disk under ``root`` at ``rel``, or bytes in memory (an image
    inside a GLB). ``rel`` is the asset identity used in findings and reports."""

    rel: str
    root: Path | None = None
    data: bytes | None = None
    suffix_hint: str | None = None  # for bytes in memory: the type the container claims

    @property
    def abspath(self) -> Path:
        if self.root is None:
            raise ValueError(f"{self.rel} is in memory, it has no path")
        return self.root / self.rel

    @property
    def suffix(self) -> str:
        """The type the name claims: the container's hint for bytes in memory (whose ``rel``
        names a part, ``scene.glb#image/0``), else the file's own suffix. A file on disk is
        named by its path alone, which may hold a "#" (``rock#1_n.tga``)."""
        if self.data is not None:
            return (self.suffix_hint or "").lower()
        return suffix_of(self.rel)

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return self.abspath.stat().st_size

    def open(self) -> BinaryIO:
        if self.data is not None:
            return io.BytesIO(self.data)
        return open(self.abspath, "rb")

    def head(self, n: int) -> bytes:
        """At most ``n`` bytes from the start of the file."""
        if self.data is not None:
            return self.data[:n]
        with open(self.abspath, "rb") as f:
            return f.read(n)

    def read_at(self, offset: int, n: int) -> bytes:
        """At most ``n`` bytes at ``offset``, never more than ``size()`` says the file holds
        (the caller checks the length it got: a file can shrink after it was measured). For
        a few looks near the start; a reader that walks a file opens it once instead."""
        if self.data is not None:
            return self.data[offset : offset + max(n, 0)]
        from texbudget.readers._common import read_at

        size = self.size()
        with self.open() as f:
            return read_at(f, offset, n, size)


def suffix_of(path: str) -> str:
    """The lower-case suffix of a POSIX path's last segment, as ``os.path.splitext`` gives it
    (``.png``; ``""`` for ``README`` or ``.hidden``), without its cost."""
    dot = path.rfind(".")
    start = path.rfind("/") + 1
    if dot <= start or not path[start:dot].strip("."):
        return ""
    return path[dot:].lower()


def supported_suffixes() -> tuple[str, ...]:
    """The single source for discovery, help text and the pre-commit ``files:`` regex."""
    return tuple(sorted(_BY_SUFFIX))


#: Engine sidecars beside a texture: a change to one changes the texture's plan.
SIDECAR_SUFFIXES = (".import", ".meta")


def files_regex(extra: tuple[str, ...] = ()) -> str:
    """The pre-commit ``files:`` regex: every readable suffix, alone or with a sidecar suffix
    after it, plus ``extra`` alternatives (e.g. the config file). Case-insensitive."""
    suffixes = "|".join(s.lstrip(".") for s in supported_suffixes())
    sidecars = "|".join(s.lstrip(".") for s in SIDECAR_SUFFIXES)
    alternatives = [rf"\.({suffixes})(\.({sidecars}))?", *extra]
    body = alternatives[0] if len(alternatives) == 1 else "(" + "|".join(alternatives) + ")"
    return rf"(?i){body}$"


def kind_of(suffix: str) -> str | None:
    entry = _BY_SUFFIX.get(suffix.lower())
    return entry[0] if entry else None


#: The magics by their first two bytes (every magic has at least two).
_MAGIC_BY_START: dict[bytes, tuple[tuple[bytes, str, str], ...]] = {}
for _entry in _MAGIC:
    _MAGIC_BY_START[_entry[0][:2]] = (*_MAGIC_BY_START.get(_entry[0][:2], ()), _entry)


def sniff(head: bytes) -> tuple[str, str] | None:
    """(container, suffix) from the first bytes, or None when no magic matches. TGA, OBJ,
    PLY, STL, glTF JSON and ASCII FBX have no reliable magic and are trusted by suffix."""
    for magic, container, suffix in _MAGIC_BY_START.get(head[:2], ()):
        if head.startswith(magic):
            return container, suffix
    if head[8:12] == b"WEBP" and head.startswith(b"RIFF"):
        return "webp", ".webp"
    return None


_LOADED: dict[str, Callable[[Source], ReadResult]] = {}


def _load(target: str) -> Callable[[Source], ReadResult]:
    func = _LOADED.get(target)
    if func is None:
        module, name = target.split(":")
        func = _LOADED[target] = getattr(importlib.import_module(f"texbudget.readers.{module}"), name)
    return func


def preload(suffixes: Iterable[str]) -> None:
    """Import the readers of these suffixes now (a process about to fork workers does it
    once for all of them)."""
    for suffix in {s.lower() for s in suffixes}:
        entry = _BY_SUFFIX.get(suffix)
        if entry is not None:
            _load(entry[1])


# Suffixes whose readers accept each other's content (a .jpeg named .jpg is no mismatch).
_SAME = {".jpeg": ".jpg", ".tiff": ".tif"}


def _noted(rel: str, code: str, message: str) -> ReadResult:
    """A result holding one finding and nothing else (``_common.fail``, imported with the
    records only when there is a finding to make)."""
    from texbudget.readers._common import fail

    return fail(rel, code, message)


def read_source(src: Source) -> ReadResult:
    """Sniff, dispatch, and never let an exception out: the scan goes on."""
    claimed = src.suffix
    suffix = _SAME.get(claimed, claimed)
    try:
        head = src.head(SNIFF_BYTES)
    except FileNotFoundError:
        return _noted(src.rel, "TB005", "the file vanished before it could be read")
    except OSError as exc:
        return _noted(src.rel, "TB001", f"cannot read: {exc.strerror or exc}")
    if head.startswith(_LFS_HEAD):
        lfs = _lfs_pointer(src)
        if lfs is not None:
            return lfs
    sniffed = sniff(head)
    extra = None
    if sniffed is not None and sniffed[1] != suffix and suffix in _BY_SUFFIX:
        container, real = sniffed
        extra = _noted(src.rel, "TB003", f"the file is {container.upper()} data named {claimed}; read as {container.upper()}")
        suffix = real
    elif sniffed is not None and suffix not in _BY_SUFFIX:
        suffix = sniffed[1]
    entry = _BY_SUFFIX.get(suffix)
    if entry is None:
        return _noted(src.rel, "TB002", f"{claimed or 'no suffix'}: not a texture or mesh type texbudget reads")
    try:
        result = (_LOADED.get(entry[1]) or _load(entry[1]))(src)
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        code = "TB005" if isinstance(exc, FileNotFoundError) else "TB001"
        result = _noted(src.rel, code, f"cannot read: {exc.strerror or exc}")
    except (MemoryError, RecursionError, Exception) as exc:  # a reader bug must not stop the scan
        result = _noted(src.rel, "TB009", f"internal error in the {entry[1].split(':')[0]} reader: {type(exc).__name__}: {exc}")
    if extra is not None:
        result = extra + result
    return result


#: How a Git LFS pointer file starts (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).
_LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"
_LFS_HEAD = _LFS_POINTER[:SNIFF_BYTES]
#: A pointer is under 200 bytes; its spec caps it at 1024.
_LFS_MAX_BYTES = 1024


def _lfs_pointer(src: Source) -> ReadResult | None:
    """TB008 when the file is a Git LFS pointer (a checkout without ``git lfs pull``); the
    size it names is said when it names one."""
    try:
        text = src.head(_LFS_MAX_BYTES + 1)
    except OSError:
        return None
    if not text.startswith(_LFS_POINTER) or len(text) > _LFS_MAX_BYTES:
        return None
    size = re.search(rb"^size (\d{1,20})$", text, re.M)
    real = f" of {int(size.group(1)):,} bytes" if size else ""
    return _noted(src.rel, "TB008", f"a Git LFS pointer, not the file: its content{real} was not fetched; not priced")


def read_path(root: Path, rel: str) -> ReadResult:
    return read_source(Source(rel=rel, root=root))


def read_bytes(rel: str, data: bytes, suffix_hint: str | None = None) -> ReadResult:
    """Read an image held in memory (a GLB buffer view, a data URI) through the same readers.
    ``suffix_hint`` is what the container claims (``.png`` for ``image/png``); when the bytes
    say otherwise that is a TB003 warning, and without a hint the bytes decide."""
    return read_source(Source(rel=rel, data=data, suffix_hint=suffix_hint))
