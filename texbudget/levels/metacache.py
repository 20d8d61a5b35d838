"""The Unity index's .meta files, kept between runs (``.texbudget/unity-meta.json``).

A level of a Unity project is resolved through the guid of every asset, so the index
(``texbudget.levels.unity``) reads every ``.meta`` of the project: thousands of small files,
where a warm scan reads none of the assets themselves. This keeps what ``parse_meta_ids``
found in each, under the same signature the read cache uses (size, mtime and ctime:
``texbudget.cache.signature``), so a warm run stats the .meta files instead of reading them.

Kept apart from the read cache on purpose: that cache holds one row per asset read and prunes
every other row after a whole-tree scan, and .meta files are not assets. This file is written
only where the read cache's folder exists (the scan made it: the cache is on), replaced whole
(a temporary file renamed over it), and thrown away when it cannot be read or is of another
version (``CACHE_VERSION``). A .meta modified within the racy window is read but not kept, as
in the read cache. Measured in ``benchmarks/levels.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from texbudget.cache import CACHE_DIR, CACHE_VERSION, is_racy, signature
from texbudget.levels.unity import MetaIds, UnityProject, read_meta_ids, read_project

FILE = "unity-meta.json"


def _encode(ids: MetaIds | str) -> object:
    if isinstance(ids, str):
        return ids
    return [ids.guid, ids.importer, [list(n) for n in ids.names]]


def _decode(value: object) -> MetaIds | str | None:
    """A stored value back; None when it is not one this module wrote."""
    if isinstance(value, str):
        return value
    if not (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and isinstance(value[1], str)
            and isinstance(value[2], list)):
        return None
    names = []
    for n in value[2]:
        if not (isinstance(n, list) and len(n) == 3 and isinstance(n[0], int) and isinstance(n[1], int) and isinstance(n[2], str)):
            return None
        names.append((n[0], n[1], n[2]))
    return MetaIds(guid=value[0], importer=value[1], names=tuple(names))


def _load(path: Path) -> dict[str, list]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or not isinstance(data.get("metas"), dict):
        return {}
    return data["metas"]


def _save(path: Path, metas: dict[str, list]) -> None:
    """Replace the file whole; a folder that cannot be written leaves it as it was."""
    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(prefix=".unity-meta-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": CACHE_VERSION, "metas": metas}, f, separators=(",", ":"))
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


class MetaReader:
    """``read(rel)`` for ``unity.read_project``: a .meta's ids from the kept file when its
    signature is unchanged, else read (and kept); ``hits`` and ``misses`` count them."""

    def __init__(self, root: Path, use_cache: bool) -> None:
        self.root = Path(root)
        folder = self.root / CACHE_DIR
        self.path: Path | None = folder / FILE if use_cache and folder.is_dir() else None
        self.old = _load(self.path) if self.path is not None else {}
        self.new: dict[str, list] = {}
        self.hits = self.misses = 0

    def __call__(self, rel: str) -> MetaIds | str:
        full = self.root / rel
        try:
            st = os.stat(full)
        except OSError:
            return read_meta_ids(full)  # its own reason ("cannot read: …")
        sig = signature(st)
        kept = self.old.get(rel)
        if isinstance(kept, list) and len(kept) == 2 and kept[0] == sig:
            ids = _decode(kept[1])
            if ids is not None:
                self.hits += 1
                self.new[rel] = kept
                return ids
        self.misses += 1
        ids = read_meta_ids(full)
        if not is_racy(st):
            self.new[rel] = [sig, _encode(ids)]
        return ids

    def save(self) -> None:
        """Write what this run found, when it differs from what was kept."""
        if self.path is not None and self.new != self.old:
            _save(self.path, self.new)


def read_index(root: Path, use_cache: bool = False) -> UnityProject:
    """The Unity index of ``root`` (``unity.read_project``), its .meta files kept between runs
    when ``use_cache`` and the read cache's folder exists."""
    reader = MetaReader(root, use_cache)
    project = read_project(Path(root), read=reader)
    reader.save()
    return project
