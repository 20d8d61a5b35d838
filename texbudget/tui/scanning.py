"""Reading for the TUI: the scan in batches, merging partial scans, and watching mtimes.

Textual-free. The app runs these in worker threads:

- ``read_in_batches(root, config, paths, progress=...)`` is the default *scanner*: it
  discovers once, then yields partial ``Scan`` objects through ``scan.scene.read_scene`` (scene
  files first with the images they reference, then the rest in growing batches, so the screen
  fills in at once and every file is read once). A scanner may also return one whole ``Scan`` (tests pass a fake).
- ``merge(base, part, touched)`` puts a partial scan into the one on screen: everything
  that came from a touched file is replaced, the rest kept.
- ``snapshot(root, config, paths)`` and ``changes(old, new)`` are the watch: mtimes and
  sizes of every discovered file (and its engine sidecar), compared every couple of seconds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from texbudget.config import Config
from texbudget.discover import SIDECAR_SUFFIXES, discover
from texbudget.model import file_of, is_part
from texbudget.scan.reading import is_scene
from texbudget.scan.scene import Scan, follows_gltf, read_scene

Progress = Callable[[int, int], None]
#: ``scanner(root, config, paths, progress=callback) -> Scan | Iterable[Scan]``
Scanner = Callable[..., "Scan | Iterable[Scan]"]

FIRST_BATCH = 64
MAX_BATCH = 4096


def read_in_batches(
    root: Path, config: Config, paths: Sequence[Path] | None = None, *,
    progress: Progress | None = None, jobs: int | None = None, use_cache: bool = False,
    first: int = FIRST_BATCH, largest: int = MAX_BATCH,
) -> Iterator[Scan]:
    """The scan as partial ``Scan`` objects: first the discovery (files, findings, skipped),
    then each batch's facts; merged in order they hold what one ``read_scene`` returns.

    Scene files (glTF/GLB) come first in one batch of their own (``read_scene`` reads the
    images they reference with them), then the other files not read yet in growing batches
    (``first``, 2×``first``, … up to ``largest``), so the screen fills in at once and every
    file is read once."""
    found = discover(root, config.scan.include, config.scan.exclude, paths)
    scenes = [f for f in found.files if is_scene(f)]
    # [scan] follow = "gltf": the scenes and the images they use (read with them) only
    follow = follows_gltf(config, paths)
    others = [] if follow else [f for f in found.files if not is_scene(f)]
    listed = tuple(scenes) if follow else found.files
    yield Scan(root=root, findings=found.findings, files=listed, skipped=found.skipped)
    total = len(listed)
    done = 0
    if progress:
        progress(0, total)
    size = first
    while scenes or others:
        if scenes:
            batch, scenes = scenes, []
        else:
            batch, others = others[:size], others[size:]
            size = min(size * 2, largest)

        def step(i: int, n: int, offset: int = done) -> None:
            if progress:
                progress(offset + i, max(total, offset + i))

        part = read_scene(root, config, [root / f for f in batch], jobs=jobs, progress=step, use_cache=use_cache)
        followed = {t.path for t in part.textures if not is_part(t.path)} - set(batch)
        done += len(batch) + len(followed & set(others))
        others = [f for f in others if f not in followed]
        # The batch's own discovery only repeats what the first one said.
        yield Scan(
            root=root, textures=part.textures, meshes=part.meshes, scenes=part.scenes,
            findings=tuple(f for f in part.findings if f not in found.findings), engine=part.engine,
            files=tuple(sorted({*batch, *followed})) if follow else tuple(batch), cache=part.cache,
        )


def as_batches(result: Scan | Iterable[Scan]) -> Iterable[Scan]:
    return (result,) if isinstance(result, Scan) else result


def touched_by(part: Scan) -> frozenset[str]:
    """The files a partial scan speaks for: its listed files and the files of its facts."""
    out = set(part.files)
    for group in (part.textures, part.meshes, part.scenes):
        out.update(file_of(x.path) for x in group)
    return frozenset(out)


def merge(base: Scan, part: Scan, touched: Iterable[str] | None = None, removed: Iterable[str] = ()) -> Scan:
    """``base`` with everything from the ``touched`` files (default: ``touched_by(part)``) and
    the ``removed`` files dropped, and ``part`` added. Order is kept: assets already on
    screen keep their place, new ones come after."""
    gone = set(touched_by(part) if touched is None else touched) | set(removed)

    def keep(path: str) -> bool:
        return file_of(path) not in gone

    def combine(old, new):
        fresh = {x.path: x for x in new}
        out = {x.path: fresh.get(x.path, x) for x in old if x.path in fresh or keep(x.path)}
        out.update(fresh)
        return tuple(out.values())

    findings = tuple(dict.fromkeys(
        [f for f in base.findings if keep(f.path)] + list(part.findings)
    ))
    engine = {k: v for k, v in base.engine.items() if keep(k)}
    engine.update(part.engine)
    removed_set = set(removed)
    files = tuple(sorted((set(base.files) | set(part.files)) - removed_set))
    return Scan(
        root=base.root, textures=combine(base.textures, part.textures), meshes=combine(base.meshes, part.meshes),
        scenes=combine(base.scenes, part.scenes), findings=findings, engine=engine, files=files,
        skipped=max(base.skipped, part.skipped),
    )


def prune(scan: Scan, files: Iterable[str]) -> Scan:
    """Keep only what came from ``files`` (after a full rescan: files that are gone go)."""
    keep_files = set(files)
    stale = {file_of(x.path) for group in (scan.textures, scan.meshes, scan.scenes) for x in group} - keep_files
    stale |= set(scan.files) - keep_files
    if not stale:
        return scan
    return merge(scan, Scan(root=scan.root), touched=(), removed=stale)


# --- watch ---------------------------------------------------------------------------------


Stamp = tuple[int, int]  # (mtime_ns, size)


@dataclass(frozen=True)
class Changes:
    changed: frozenset[str]  # modified or added files (sidecar edits name their texture)
    removed: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)


def stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """(mtime_ns, size) of a file; None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def snapshot(root: Path, config: Config, paths: Sequence[Path] | None = None,
             extra: Iterable[str] = ()) -> dict[str, tuple[Stamp | None, ...]]:
    """Every discovered file, and every file of ``extra`` (the files levels load that
    discovery leaves out) -> (its stamp, its sidecars' stamps)."""
    found = discover(root, config.scan.include, config.scan.exclude, paths)
    out: dict[str, tuple[Stamp | None, ...]] = {}
    for rel in (*found.files, *extra):
        full = os.path.join(root, rel)
        out[rel] = (stamp(full), *(stamp(full + s) for s in SIDECAR_SUFFIXES))
    return out


def rebase(before: Mapping[str, tuple], after: Mapping[str, tuple], old_extra: frozenset[str],
           new_extra: frozenset[str]) -> dict[str, tuple]:
    """``before`` as if the watch had always watched ``new_extra`` (the files the levels load
    now, outside discovery) instead of ``old_extra``: a file the levels start or stop loading
    is no change to report."""
    out = {k: v for k, v in before.items() if k in after or k not in old_extra}
    for k in new_extra - old_extra:
        if k not in out and k in after:
            out[k] = after[k]
    return out


def to_read_again(changed: Iterable[str], scan: Scan, config: Config, paths: Sequence[Path] | None = None) -> frozenset[str]:
    """The changed files a rescan reads: all of them, except under ``[scan] follow = "gltf"``,
    where a file that is no scene and that no scene uses (not in ``scan``) stays unread, as a
    whole scan would leave it. A scene's new images are read with it."""
    found = frozenset(changed)
    if not follows_gltf(config, paths):
        return found
    held = {*scan.files, *(t.path for t in scan.textures)}
    return frozenset(p for p in found if is_scene(p) or p in held)


def changes(old: Mapping[str, tuple], new: Mapping[str, tuple]) -> Changes:
    changed = frozenset(k for k, v in new.items() if old.get(k) != v)
    removed = frozenset(k for k in old if k not in new)
    return Changes(changed, removed)
