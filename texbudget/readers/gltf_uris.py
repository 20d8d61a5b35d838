"""A glTF's URIs (buffers and images): resolved inside the scan root only, never opened here.

``..`` escapes, absolute paths, NUL bytes and any scheme other than ``data:`` (``file:``,
``http:``…) are TB074, a file that does not exist TB075, a symbolic link on the way that leads
out of the root TB074. A ``data:`` URI must be base64 (TB079) and is decoded within a cap
checked before decoding.
"""

from __future__ import annotations

import binascii
import os
import posixpath
import re
import stat
import sys
from collections.abc import Set
from pathlib import Path
from urllib.parse import unquote

from texbudget.readers import KNOWN_FILES
from texbudget.readers.gltf_container import MAX_DATA_URI_BYTES, Context

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")
#: The characters ``resolve`` must look at: NUL, a scheme's or drive's colon, ``#``, ``?``,
#: ``%``, a backslash.
_SPECIAL = re.compile(r"[\x00:#?%\\]")


class Resolver:
    """One file's URIs. ``plain_folders`` holds the folders (relative to the root) found to be
    a chain of real folders in this read: the images of a glTF share their folder, walked once."""

    __slots__ = ("ctx", "known", "plain_base", "plain_folders")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.plain_folders: set[str] = set()
        self.plain_base = not ctx.base or _plain(ctx.base)  # the file's folder is plain segments
        # the files discovery listed, when it listed this root: inside it, nothing to walk
        self.known = _known_files(KNOWN_FILES.get(), ctx.src.root)

    def resolve(self, uri: str, where: str) -> str | None:
        """The URI as a POSIX path relative to the scan root; None with a TB074/TB075 finding
        when it is refused or missing. Nothing is opened."""
        note = self.ctx.note
        base = self.ctx.base
        if self.plain_base and _plain(uri):
            # plain segments, as the URIs of real files are: nothing to refuse, decode or normalise
            rel = f"{base}/{uri}" if base else uri
        else:
            found = self._relative(uri, where)
            if found is None:
                return None
            rel = found
        root = self.ctx.src.root
        if root is None:
            note("TB075", f"{where}: URI {_shown(uri)!r} cannot be resolved: the glTF is not a file on disk")
            return None
        if self.known is not None and rel in self.known:
            # a file discovery listed: inside the root, nothing to walk. One string per file
            # in a process: every glTF that uses the image holds it in its scene's usage
            return sys.intern(rel)
        state = locate(root, rel, self.plain_folders)
        if state == "outside":
            note("TB074", f"{where}: URI {_shown(uri)!r} leads through a symbolic link out of the scan root; not opened")
            return None
        if state == "missing":
            note("TB075", f"{where}: {rel} does not exist")
            return None
        return rel

    def _relative(self, uri: str, where: str) -> str | None:
        """The URI's path relative to the scan root, normalised; None with a TB074 finding when
        it is refused."""
        note = self.ctx.note
        if "\x00" in uri:
            note("TB074", f"{where}: URI {_shown(uri)!r} holds a NUL byte; not opened")
            return None
        if (":" in uri and _DRIVE.match(uri)) or uri.startswith(("/", "\\")):
            note("TB074", f"{where}: URI {_shown(uri)!r} is an absolute path; not opened")
            return None
        scheme = _SCHEME.match(uri) if ":" in uri else None
        if scheme:
            note("TB074", f"{where}: URI {_shown(uri)!r} uses the {scheme.group(1).lower()}: scheme; texbudget never opens or fetches it")
            return None
        path = uri.partition("#")[0].partition("?")[0] if "#" in uri or "?" in uri else uri
        path = unquote(path).replace("\\", "/") if "%" in path or "\\" in path else path
        if path.startswith("/") or "\x00" in path:
            what = "a NUL byte" if "\x00" in path else "an absolute path"
            note("TB074", f"{where}: URI {_shown(uri)!r} decodes to {what}; not opened")
            return None
        rel = join_normal(self.ctx.base, path)
        if rel in (".", "..") or rel.startswith("../"):
            note("TB074", f"{where}: URI {_shown(uri)!r} leaves the scan root; not opened")
            return None
        return rel

    def data(self, uri: str, where: str, limit: int = MAX_DATA_URI_BYTES) -> bytes | None:
        """The bytes of a base64 ``data:`` URI; None with a TB079 finding when it is not base64,
        holds more than ``limit`` bytes (counted before decoding) or does not decode."""
        head, sep, payload = uri.partition(",")
        if not sep or not head.lower().endswith(";base64"):
            self.ctx.note("TB079", f"{where}: the data: URI is not base64 ('{head[:40]}')")
            return None
        claimed = len(payload) * 3 // 4
        if claimed > limit:
            self.ctx.note("TB079", f"{where}: the data: URI holds about {claimed} bytes; texbudget decodes at most {limit}")
            return None
        try:
            return binascii.a2b_base64(payload, strict_mode=True)
        except (binascii.Error, ValueError) as exc:
            self.ctx.note("TB079", f"{where}: the data: URI's base64 is invalid ({exc})")
            return None


def _known_files(known: tuple[str, Set[str]] | None, root: Path | None) -> Set[str] | None:
    """The files discovery listed (``KNOWN_FILES``), when it listed ``root``."""
    if known is None or root is None or known[0] != os.fspath(root):
        return None
    return known[1]


def _plain(path: str) -> bool:
    """``path`` is plain segments (``a/b/c.png``): none of the ``_SPECIAL`` characters, no empty
    segment or one that starts with a dot, no slash at either end."""
    padded = f"/{path}/"
    return "//" not in padded and "/." not in padded and _SPECIAL.search(path) is None


def _shown(uri: str) -> str:
    """A URI as a message shows it: at most 120 characters."""
    return uri if len(uri) <= 120 else uri[:117] + "..."


def media_type(uri: str) -> str:
    """A ``data:`` URI's media type, lower case (``image/png``)."""
    return uri[5:].split(";", 1)[0].split(",", 1)[0].strip().lower()


def join_normal(base: str, path: str) -> str:
    """``posixpath.normpath(posixpath.join(base, path))``, without the work when ``path`` is
    already plain (no empty, ``.`` or ``..`` segment), as URIs in real files are."""
    joined = f"{base}/{path}" if base else path
    padded = f"/{joined}/"  # each segment between slashes
    if "//" in padded or "/./" in padded or "/../" in padded:
        return posixpath.normpath(posixpath.join(base, path))
    return joined


def locate(root: Path, rel: str, plain_folders: set[str]) -> str:
    """Where a normalised relative path leads: "file" (a regular file inside ``root``),
    "outside" (a symbolic link on the way leads out of ``root``) or "missing". One ``lstat``
    per path segment; only a path through a symbolic link is resolved in full.
    ``plain_folders``: the folders already found to be a chain of real folders."""
    path = os.fspath(root)
    folder, _, name = rel.rpartition("/")
    if folder in plain_folders:  # only the last segment is new
        path, parts = f"{path}/{folder}", [name]
    else:
        parts = rel.split("/")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        path = f"{path}/{part}"
        try:
            mode = os.lstat(path).st_mode
        except (OSError, ValueError):
            return "missing"
        if stat.S_ISLNK(mode):
            return _locate_through_link(root, rel)
        if i == last:
            if folder:  # every segment before this one was a real folder
                plain_folders.add(folder)
            return "file" if stat.S_ISREG(mode) else "missing"
        if not stat.S_ISDIR(mode):
            return "missing"
    return "missing"


def _locate_through_link(root: Path, rel: str) -> str:
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        return "outside"
    return "file" if target.is_file() else "missing"
