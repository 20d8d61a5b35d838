"""The asset browser's rows, built from a ``Report`` (pure and Textual-free).

``build(report, query)`` gives one ``AssetRow`` per texture and mesh that passes the filter,
with the raw values the table sorts by, and the folder tree in the manner of ncdu: every
folder's entries (sub-folders and assets) with sizes summed per folder, biggest first. The
widgets only format these values; every byte shown here comes from the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from texbudget.model import file_of
from texbudget.pipeline import Report


@dataclass(frozen=True, slots=True)
class AssetRow:
    """One asset as the browser shows it. ``key`` is its identity (the POSIX path)."""

    key: str
    name: str  # the last path segment; ``#mesh/2`` for ``level.glb#mesh/2``
    folder: str  # "" at the root; ``level.glb`` for what is inside level.glb
    kind: str  # a texture's role ("albedo", "normal", …) or "mesh"
    dims: str  # "4096x4096", "4096x4096x6" for cubes, "12,345 tris" for meshes
    pixels: int  # the sort value of dims: texels of the top level, or triangles
    format: str  # GPU format, or "mesh"
    mips: int  # levels in VRAM (after the quality tier); 0 for meshes
    vram_bytes: int  # allocated bytes (textures), buffer bytes (meshes)
    share: float  # of every listed asset's bytes, 0..1
    used_by: tuple[str, ...]
    ignored: bool = False
    mesh: bool = False
    instances: int = 1


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a folder in the tree view: a sub-folder or an asset."""

    key: str  # folder path with a trailing "/" for folders, the asset key for assets
    name: str
    is_folder: bool
    vram_bytes: int
    count: int  # assets inside (1 for an asset)
    share: float


@dataclass(frozen=True)
class Browse:
    rows: tuple[AssetRow, ...] = ()
    total_bytes: int = 0  # of every asset in the report, filter or not
    shown_bytes: int = 0  # of the rows that pass the filter
    query: str = ""
    folders: Mapping[str, tuple[Entry, ...]] = field(default_factory=lambda: MappingProxyType({}))

    def children(self, folder: str) -> tuple[Entry, ...]:
        return self.folders.get(folder, ())

    def by_key(self) -> dict[str, AssetRow]:
        return {r.key: r for r in self.rows}


def split(path: str) -> tuple[str, str]:
    """``a/b/c.png`` -> (``a/b``, ``c.png``). An asset inside a file is inside that file as
    in a folder: ``m/x.glb#mesh/1`` -> (``m/x.glb``, ``#mesh/1``)."""
    base = file_of(path)
    if base != path:
        return base, path[len(base):]
    folder, _, name = base.rpartition("/")
    return folder, name


def parent(folder: str) -> str:
    return folder.rpartition("/")[0]


def matches_text(hay: str, query: str) -> bool:
    """Every word of ``query`` is found in ``hay`` (case-insensitive)."""
    hay = hay.lower()
    return all(word in hay for word in query.lower().split())


def matches(row: AssetRow, query: str) -> bool:
    """The filter: every word of ``query`` must be found (case-insensitive) in the path, the
    GPU format or the kind (role)."""
    return matches_text(f"{row.key}\0{row.format}\0{row.kind}", query)


def rows_of(report: Report) -> tuple[tuple[AssetRow, ...], int]:
    total = sum(t.cost.allocated_bytes for t in report.textures) + sum(m.buffer_bytes for m in report.meshes)
    scale = total or 1
    rows: list[AssetRow] = []
    for t in report.textures:
        f, p, c = t.facts, t.plan, t.cost
        folder, name = split(f.path)
        top = c.mips[0] if c.mips else None
        w, h, d = (top.width, top.height, top.depth) if top else (p.width, p.height, p.depth)
        dims = f"{w}x{h}" + (f"x{d}" if d > 1 else "") + (" cube" if p.faces == 6 else "") + (f" [{p.layers}]" if p.layers > 1 else "")
        rows.append(AssetRow(
            key=f.path, name=name, folder=folder, kind=p.role, dims=dims, pixels=w * h * d * p.faces * p.layers,
            format=p.gpu_format, mips=len(c.mips), vram_bytes=c.allocated_bytes, share=c.allocated_bytes / scale,
            used_by=t.used_by, ignored=p.ignored,
        ))
    for m in report.meshes:
        folder, name = split(m.facts.path)
        rows.append(AssetRow(
            key=m.facts.path, name=name, folder=folder, kind="mesh", dims=f"{m.facts.triangles:,} tris",
            pixels=m.facts.triangles, format="mesh", mips=0, vram_bytes=m.buffer_bytes,
            share=m.buffer_bytes / scale, used_by=(), mesh=True, instances=m.instances,
        ))
    return tuple(rows), total


def _ancestors(folder: str, memo: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``a/b/c`` -> (``a/b/c``, ``a/b``, ``a``, "") (memoised: assets share their folders)."""
    got = memo.get(folder)
    if got is None:
        got = memo[folder] = (folder, *(_ancestors(parent(folder), memo) if folder else ()))
    return got


def tree(rows: tuple[AssetRow, ...], total: int) -> dict[str, tuple[Entry, ...]]:
    """Folder -> its entries, sizes summed over everything below, biggest first (then name)."""
    scale = total or 1
    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    assets: dict[str, list[Entry]] = {}
    memo: dict[str, tuple[str, ...]] = {}
    for r in rows:
        assets.setdefault(r.folder, []).append(Entry(r.key, r.name, False, r.vram_bytes, 1, r.vram_bytes / scale))
        for folder in _ancestors(r.folder, memo):
            sizes[folder] = sizes.get(folder, 0) + r.vram_bytes
            counts[folder] = counts.get(folder, 0) + 1
    subfolders: dict[str, list[str]] = {"": []}
    for folder in memo:
        if folder:
            subfolders.setdefault(parent(folder), []).append(folder)
        subfolders.setdefault(folder, [])
    out: dict[str, tuple[Entry, ...]] = {}
    for folder, subs in subfolders.items():
        entries = [
            Entry(sub + "/", sub.rpartition("/")[2] + "/", True, sizes[sub], counts[sub], sizes[sub] / scale)
            for sub in subs
        ]
        entries += assets.get(folder, ())
        out[folder] = tuple(sorted(entries, key=lambda e: (-e.vram_bytes, e.name)))
    return out


def build(report: Report | None, query: str = "") -> Browse:
    if report is None:
        return Browse(query=query)
    rows, total = rows_of(report)
    shown = tuple(r for r in rows if matches(r, query)) if query.strip() else rows
    return Browse(
        rows=shown, total_bytes=total, shown_bytes=sum(r.vram_bytes for r in shown), query=query,
        folders=MappingProxyType(tree(shown, total)),
    )
