"""``texbudget explain FILE``: one asset in depth.

A texture: the facts its header gave, the decision and why (``decided_by``, and the engine
import settings when a Godot ``.import`` / Unity ``.meta`` sits beside it), the mip table
(levels the quality tier drops are listed and marked), the cost, and the alternatives table
(formats × max sizes, from ``texbudget.alternatives``). A mesh: counts per primitive, the
buffers as stored and in the engine layout (the configured ``[meshes] layout``, else the
default 48-byte layout), instances, and the BLAS estimate for every shipped RT profile.

Every estimate is labelled as one (allocated bytes: D3D12 placement alignment; BLAS: the
profile's published measurements). ``find_asset`` / ``find_assets`` resolve the path the user
typed; ``render`` / ``render_json`` are what ``cmd_explain`` prints.
"""

from __future__ import annotations

import difflib
import json
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec.structs import asdict, fields

from texbudget import __version__, formats
from texbudget.alternatives import Alternative, alternatives
from texbudget.engine import EngineImport
from texbudget.errors import UsageError
from texbudget.model import (
    Finding,
    MeshFacts,
    MipLevel,
    PixelFormat,
    Record,
    TextureFacts,
    file_of,
    is_part,
)
from texbudget.pipeline import Report, TextureRow
from texbudget.readers.sidecars import read_engine_import
from texbudget.report.text import printable
from texbudget.sizing import bvh
from texbudget.sizing.meshes import DEFAULT_LAYOUT, MeshCost, VertexLayout, price_mesh
from texbudget.sizing.textures import mip_chain
from texbudget.units import human_bytes

Row = TextureRow | MeshCost  # a report's texture row, or its mesh row (the mesh's cost)

MODES = {0: "points", 1: "lines", 2: "line loop", 3: "line strip", 4: "triangles", 5: "triangle strip", 6: "triangle fan"}
_CTYPES = {"FLOAT": "f32", "HALF_FLOAT": "f16", "UNSIGNED_INT": "u32", "INT": "s32", "UNSIGNED_SHORT": "u16",
           "SHORT": "s16", "UNSIGNED_BYTE": "u8", "BYTE": "s8"}
ALLOCATION_NOTE = {"d3d12": "D3D12 placement alignment; an estimate", "none": "no alignment model"}


# --- finding the asset -------------------------------------------------------------------------


def _candidates(report: Report, path: str | Path) -> list[str]:
    """The identities ``path`` may mean: as typed (POSIX, normalised), and relative to the scan
    root when it resolves inside it (an absolute path, or one relative to the current folder)."""
    text = path.as_posix() if isinstance(path, Path) else str(path)
    base = file_of(text)
    fragment = text[len(base):]  # "#mesh/3" of a part, else ""
    out = []
    if base and not Path(base).is_absolute():
        out.append(posixpath.normpath(base))
    try:
        rel = Path(base or ".").resolve().relative_to(Path(report.root).resolve()).as_posix()
    except ValueError:
        rel = None
    if rel is not None and rel != "." and rel not in out:
        out.append(rel)
    return [c + fragment for c in out]


def _rows(report: Report) -> list[Row]:
    return [*report.textures, *report.meshes]


def _path(row: Row) -> str:
    return row.facts.path


def find_asset(report: Report, path: str | Path) -> Row | None:
    """The one texture or mesh whose identity is ``path`` (relative to the scan root, e.g.
    ``textures/rock.png`` or ``level.glb#mesh/3``; an absolute path or one relative to the
    current folder inside the root also works), or None. A bare glTF/GLB path matches only
    when the file holds exactly one asset; ``find_assets`` returns all of them."""
    found = find_assets(report, path)
    return found[0] if len(found) == 1 else None


def find_assets(report: Report, path: str | Path) -> tuple[Row, ...]:
    """Every asset ``path`` names: the asset itself, or for a container (a glTF/GLB, an OBJ)
    every asset inside it (``file#image/N``, ``file#mesh/N``), textures first. External images a
    .gltf references are their own assets and are not included."""
    rows = _rows(report)
    for candidate in _candidates(report, path):
        exact = [r for r in rows if _path(r) == candidate]
        if exact:
            return (exact[0],)
        inside = [r for r in rows if file_of(_path(r)) == candidate]  # its parts (exact rows returned above)
        if inside:
            return tuple(inside)
    return ()


def _not_found(report: Report, path: str | Path) -> UsageError:
    known = sorted({_path(r) for r in _rows(report)} | {file_of(_path(r)) for r in _rows(report)})
    wanted = _candidates(report, path)
    near = difflib.get_close_matches(wanted[-1] if wanted else str(path), known, n=3, cutoff=0.7)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    return UsageError(f"{path}: no texture or mesh with this path in the scan of {report.root}{hint}")


def _engine(report: Report, row: TextureRow, engines: Mapping[str, EngineImport] | None) -> EngineImport | None:
    """The engine import settings for a texture: from ``engines`` (``Scan.engine``) when given,
    else read from the sidecar beside the file."""
    if engines is not None:
        return engines.get(row.facts.path)
    if is_part(row.facts.path):
        return None
    found = read_engine_import(Path(report.root) / row.facts.path, row.facts.path)
    return found if isinstance(found, EngineImport) else None


# --- shared text helpers ------------------------------------------------------------------------


def _b(n: int) -> str:
    """``2,796,216 B (2.67 MiB)``: exact bytes and the human figure."""
    return f"{n:,} B" if n < 1024 else f"{n:,} B ({human_bytes(n)})"


def _kv(rows: Sequence[tuple[str, object]], indent: str = "  ") -> list[str]:
    width = max((len(k) for k, _ in rows), default=0)
    return [f"{indent}{k:<{width}}  {v}" for k, v in rows]


def _yes(v: bool) -> str:
    return "yes" if v else "no"


def _findings_for(report: Report, path: str) -> list[Finding]:
    base = file_of(path)
    return [f for f in report.findings if f.path in (path, base) or file_of(f.path) == path]


def _findings_lines(found: Sequence[Finding]) -> list[str]:
    if not found:
        return []
    return ["", "Findings:", *(f"  {f.code} {f.severity.value}: {f.message}" for f in found)]


# --- textures -------------------------------------------------------------------------------------


def _facts_rows(f: TextureFacts) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for fld in fields(f):
        if fld.name == "path":
            continue
        value = getattr(f, fld.name)
        if fld.name == "level_bytes":
            if not value:
                continue
            value = f"{len(value)} levels, {sum(value):,} B stored" + (f" ({', '.join(f'{v:,}' for v in value[:4])}{', …' if len(value) > 4 else ''})")
        elif fld.name == "disk_bytes":
            value = _b(value)
        elif isinstance(value, bool):
            value = _yes(value)
        elif value is None:
            value = "—"
        out.append((fld.name.replace("_", " "), value))
    return out


def full_mip_table(row: TextureRow) -> tuple[MipLevel, ...]:
    """The plan's whole chain (after the cap), levels numbered from the top before the
    quality tier's drop; the first ``plan.tier_drop`` levels are not resident."""
    p = row.plan
    fmt = formats.find(p.gpu_format)
    if fmt is None or p.ignored:
        return row.cost.mips
    return mip_chain(fmt, p.width, p.height, p.depth, levels=p.levels, faces=p.faces, layers=p.layers)


def _mip_lines(row: TextureRow) -> list[str]:
    p = row.plan
    if p.ignored:
        return ["  (ignored: the texture costs nothing)"]
    chain = full_mip_table(row)
    show_depth = any(m.depth > 1 for m in chain)
    head = f"  {'level':>5}  {'width':>6}  {'height':>6}" + (f"  {'depth':>5}" if show_depth else "") + f"  {'bytes':>14}"
    out = [head]
    for m in chain:
        dropped = m.level < p.tier_drop
        line = f"  {m.level:>5}  {m.width:>6}  {m.height:>6}" + (f"  {m.depth:>5}" if show_depth else "") + f"  {m.bytes:>14,}"
        out.append(line + ("  dropped by the quality tier" if dropped else ""))
    images = p.faces * p.layers
    if images > 1:
        out.append(f"  (bytes cover {p.faces} face{'s' if p.faces > 1 else ''} × {p.layers} layer{'s' if p.layers > 1 else ''})")
    return out


def _alt_size(a: Alternative) -> str:
    return f"{a.width}x{a.height}" + (f"x{a.depth}" if a.depth > 1 else "")


def _alternative_lines(alts: Sequence[Alternative]) -> list[str]:
    head = f"  {'format':<20} {'max size':>8} {'size':>11} {'levels':>6} {'content':>14} {'allocated':>11} {'saves':>12}"
    out = [head]
    for a in alts:
        saves = "—" if a.current else human_bytes(a.saves_bytes, signed=True)
        mark = "  ← current" if a.current else ""
        out.append(f"  {a.gpu_format:<20} {a.max_size if a.max_size is not None else '—':>8} {_alt_size(a):>11} "
                   f"{a.levels:>6} {a.gpu_bytes:>14,} {human_bytes(a.allocated_bytes):>11} {saves:>12}{mark}")
    return out


#: What each Basis Universal payload is (``TextureFacts.transcodable``; basis_universal's README
#: and transcoder, the KTX 2.0 spec).
PAYLOADS = {
    "ETC1S": "Basis Universal ETC1S (a subset of ETC1, BasisLZ-supercompressed)",
    "UASTC": "Basis Universal UASTC LDR 4x4 (16 B per 4x4 block)",
    "UASTC_HDR_4x4": "Basis Universal UASTC HDR 4x4 (ASTC HDR 4x4 data constrained for fast transcoding to BC6H; 16 B per 4x4 block)",
    "UASTC_HDR_6x6i": "Basis Universal UASTC HDR 6x6 intermediate (supercompressed ASTC HDR 6x6; 16 B per 6x6 block once decoded)",
}


def block_shape(fmt: PixelFormat) -> str:
    """``16 B per 4x4 block``, ``16 B per 4x4x4 block``, ``8 B per texel``."""
    if fmt.block_width * fmt.block_height * fmt.block_depth == 1:
        return f"{fmt.bytes_per_block} B per texel"
    dims = f"{fmt.block_width}x{fmt.block_height}" + (f"x{fmt.block_depth}" if fmt.block_depth > 1 else "")
    return f"{fmt.bytes_per_block} B per {dims} block"


def _format_rows(row: TextureRow, report: Report, fmt: PixelFormat | None) -> list[tuple[str, object]]:
    """What a Basis payload becomes on the chosen platform, or what a format the table lacks is."""
    f, p = row.facts, row.plan
    if f.transcodable and not p.ignored:
        target = f"{p.gpu_format} ({block_shape(fmt)})" if fmt else p.gpu_format
        what = PAYLOADS.get(f.transcodable, f.transcodable)
        return [("payload", f"{what}; transcoded at load to {target} on {report.settings.policy.platform}")]
    if fmt is not None and fmt.family == "unknown":
        return [("format", f"not in texbudget's table: sized from the file's data format descriptor, {block_shape(fmt)}")]
    return []


def _decision_rows(row: TextureRow, report: Report) -> list[tuple[str, object]]:
    p = row.plan
    fmt = formats.find(p.gpu_format)
    names = ", ".join(n for n in ((fmt.vk_name, fmt.dxgi_name) if fmt else ()) if n)
    quality = report.settings.policy.quality
    mips = {"stored": "as stored", "generated": "generated at load", "none": "none"}.get(p.mips, p.mips)
    out: list[tuple[str, object]] = [
        ("gpu format", f"{p.gpu_format}" + (f" ({names})" if names else "")),
        *_format_rows(row, report, fmt),
        ("role", p.role),
        ("size", f"{p.width}x{p.height}" + (f"x{p.depth}" if p.depth > 1 else "") + (f", {p.layers} layers" if p.layers > 1 else "") + (" cube" if p.faces == 6 else "")),
        ("max size", p.max_size if p.max_size is not None else "—"),
        ("mips", f"{mips}, {p.levels} level{'s' if p.levels != 1 else ''}"),
        ("quality tier", f"{quality}: drops {p.tier_drop} top level{'s' if p.tier_drop != 1 else ''}"),
        ("streamed", _yes(p.streamed)),
        ("ignored", _yes(p.ignored)),
        ("decided by", p.decided_by),
    ]
    return out


def _engine_lines(engine: EngineImport | None) -> list[str]:
    if engine is None:
        return []
    label = {"godot": "Godot", "unity": "Unity"}.get(engine.engine, engine.engine)
    out = ["", f"Engine import settings ({label}, {engine.source}):"]
    out += _kv([(k, v) for k, v in engine.settings] or [("importer", engine.importer)], "  ")
    out += [f"  note: {f.code} {f.message}" for f in engine.findings]
    return out


def explain_texture(row: TextureRow, report: Report, engine: EngineImport | None = None) -> str:
    """The explain text of one texture (``engine``: its Godot/Unity import settings, if any)."""
    f, p, c = row.facts, row.plan, row.cost
    model = report.settings.budget.allocation_model
    total = sum(t.cost.allocated_bytes for t in report.textures) or 1
    out = [f"{f.path} (texture)", "", "Facts (from the file header):", *_kv(_facts_rows(f))]
    out += ["", "Decision:", *_kv(_decision_rows(row, report))]
    out += _engine_lines(engine)
    if row.used_by:
        out += ["", "Used by:", *(f"  {u}" for u in row.used_by)]
    out += ["", f"Mip levels ({p.gpu_format}):", *_mip_lines(row)]
    out += [
        "", "Cost:",
        *_kv([
            ("content", _b(c.gpu_bytes)),
            ("allocated", f"{_b(c.allocated_bytes)}, {ALLOCATION_NOTE.get(model, model)}"),
            ("share", f"{100 * c.allocated_bytes / total:.2f} % of all textures (allocated)"),
        ]),
    ]
    platform = report.settings.policy.platform
    alts = alternatives(p, f, platform=platform, model=model)
    out += ["", f"Alternatives on {platform} (formats × max sizes; allocated bytes, saves vs the current plan):",
            *_alternative_lines(alts)]
    out += _findings_lines(_findings_for(report, f.path))
    return "\n".join(map(printable, out))  # a file's text shown, never acted on


# --- meshes ---------------------------------------------------------------------------------------


def _attr(a: Any) -> str:
    t = _CTYPES.get(a.component_type, a.component_type)
    return f"{a.name} {t}x{a.components}" + (" norm" if a.normalized else "")


def _layout_name(layout: VertexLayout) -> str:
    return ", ".join(f"{n} {_CTYPES.get(t, t)}x{c}" for n, t, c in layout.attributes)


def _blas_rows(c: MeshCost, report: Report) -> list[bvh.BlasEstimate]:
    compaction = report.settings.budget.rt_compaction
    return [bvh.estimate_blas(p, c.triangles, dynamic=c.dynamic, compaction=compaction,
                              geometries=c.geometries) for p in bvh.load_profiles().values()]


def _engine_layout(c: MeshCost, report: Report) -> tuple[VertexLayout, str, Any]:
    layout = report.settings.layout
    which = "configured [meshes] layout"
    if layout is None:
        layout, which = DEFAULT_LAYOUT, "default layout (no [meshes] layout configured)"
    return layout, which, price_mesh(c.facts, c.instances, layout)


def explain_mesh(c: MeshCost, report: Report) -> str:
    """The explain text of one mesh (its row in the report: its cost)."""
    m = c.facts
    out = [f"{m.path} (mesh{', ' + repr(m.name) if m.name else ''})", "", "Facts (from the file):"]
    out += _kv([
        ("source", m.source), ("primitives", len(m.primitives)), ("vertices", f"{m.vertices:,}"),
        ("indices", f"{m.indices:,}"), ("triangles", f"{m.triangles:,}"), ("morph targets", m.morph_targets),
        ("skinned", _yes(m.skinned)), ("lod", "—" if m.lod is None else f"{m.lod} of {m.lod_group}"),
    ])
    out += ["", "Primitives:",
            f"  {'#':>3}  {'mode':<14} {'vertices':>10} {'indices':>10} {'type':>4} {'triangles':>10}  attributes"]
    for i, prim in enumerate(m.primitives):
        itype = {0: "—", 1: "u8", 2: "u16", 4: "u32"}.get(prim.index_bytes_per, str(prim.index_bytes_per))
        attrs = ", ".join(_attr(a) for a in prim.attributes) or "—"
        extra = [x for x in (
            f"material {prim.material}" if prim.material else "",
            f"{prim.morph_targets} morph targets ({prim.morph_bytes:,} B)" if prim.morph_targets else "",
            f"{prim.compression} compressed" if prim.compression else "",
        ) if x]
        out.append(f"  {i:>3}  {MODES.get(prim.mode, f'mode {prim.mode}'):<14} {prim.vertex_count:>10,} {prim.index_count:>10,} "
                   f"{itype:>4} {prim.triangles:>10,}  {attrs}" + (f"; {'; '.join(extra)}" if extra else ""))
    layout, which, engine_cost = _engine_layout(c, report)
    stored = m.vertex_bytes + m.index_bytes + m.morph_bytes
    out += ["", "Buffers:"]
    out += _kv([
        ("stored", f"vertex {m.vertex_bytes:,} B + index {m.index_bytes:,} B + morph {m.morph_bytes:,} B = {_b(stored)} "
                   "(each accessor once, as the file declares)"),
        ("engine layout", f"vertex {engine_cost.engine_vertex_bytes:,} B ({layout.bytes_per_vertex} B/vertex) + index "
                          f"{engine_cost.engine_index_bytes:,} B (u16 up to 65,535 vertices, else u32) + morph {m.morph_bytes:,} B = "
                          f"{_b(engine_cost.engine_vertex_bytes + engine_cost.engine_index_bytes + m.morph_bytes)}"),
        ("layout", f"{which}: {_layout_name(layout)}"),
        ("skinned copy", _b(c.skinned_copy_bytes) + " (deformed stream per instance)" if c.skinned_copy_bytes else "—"),
        ("budget counts", f"{_b(c.buffer_bytes)} ({c.basis})"),
    ])
    out += ["", "Instances:", *_kv([
        ("instances", f"{c.instances:,}"), ("triangles drawn", f"{c.triangles * c.instances:,}"),
        ("TLAS descriptors", f"{64 * c.instances:,} B (64 B per instance)"),
    ])]
    kind = "dynamic: refitted, never compacted" if c.dynamic else (
        "static, compacted" if report.settings.budget.rt_compaction else "static, compaction off")
    out += ["", f"Ray tracing: one BLAS shared by every instance ({kind}; {c.triangles:,} triangles, {c.geometries} geometr{'ies' if c.geometries != 1 else 'y'}).",
            "Estimates from each profile's published measurements; sizes 256-byte aligned.",
            f"  {'profile':<14} {'prebuild':>12} {'compacted':>12} {'scratch':>12} {'resident':>12}  source"]
    for b in _blas_rows(c, report):
        mark = "  ← in this report" if c.blas is not None and c.blas.profile == b.profile else ""
        out.append(f"  {b.profile:<14} {b.prebuild_bytes:>12,} {b.compacted_bytes:>12,} {b.scratch_bytes:>12,} "
                   f"{b.resident_bytes:>12,}  {b.source.split(':', 1)[0]}{mark}")
    out += _findings_lines(_findings_for(report, m.path))
    return "\n".join(map(printable, out))  # a file's text shown, never acted on


# --- JSON -----------------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    """``value`` as JSON's types: a record as an object of its fields in order (the records
    inside it too), a tuple as a list, an enum as its value."""
    if isinstance(value, Record):
        return {f.name: _jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, (int, float, str)):
        return value.value
    return value


#: The fields of ``MeshFacts`` that hold its primitives, inline or listed (``primitives`` gives them).
_PRIMITIVE_FIELDS = frozenset({"surfaces", "mode", "attributes", "index_bytes_per", "material", "compression"})


def _mesh_facts(m: MeshFacts) -> dict[str, Any]:
    """A mesh's facts as JSON: its fields in order with its primitives as one list after its
    name, whichever of its two forms holds them (the object ``explain`` always wrote)."""
    out = {"path": m.path, "name": m.name, "primitives": _jsonable(m.primitives)}
    out.update((f.name, _jsonable(getattr(m, f.name))) for f in fields(m)
               if f.name not in _PRIMITIVE_FIELDS and f.name not in out)
    return out


def explain_json(row: Row, report: Report, engine: EngineImport | None = None) -> dict[str, Any]:
    """The explain data of one asset, JSON-ready (``texbudget explain --format json``)."""
    found = [{"code": f.code, "severity": f.severity.value, "message": f.message} for f in _findings_for(report, row.facts.path)]
    if isinstance(row, TextureRow):
        p, c = row.plan, row.cost
        model = report.settings.budget.allocation_model
        chain = full_mip_table(row)
        return {
            "kind": "texture",
            "path": row.facts.path,
            "facts": _jsonable(row.facts),
            "plan": _jsonable(p),
            "engine": None if engine is None else {
                "engine": engine.engine, "source": engine.source, "importer": engine.importer,
                "settings": dict(engine.settings),
            },
            "used_by": list(row.used_by),
            "mips": [{"level": m.level, "width": m.width, "height": m.height, "depth": m.depth, "bytes": m.bytes,
                      "resident": m.level >= p.tier_drop} for m in chain],
            "gpu_bytes": c.gpu_bytes,
            "allocated_bytes": c.allocated_bytes,
            "allocation_model": model,
            "allocated_estimate": model != "none",
            "alternatives": [asdict(a) for a in alternatives(p, row.facts, platform=report.settings.policy.platform, model=model)],
            "findings": found,
        }
    m, mc = row.facts, row
    layout, _, engine_cost = _engine_layout(mc, report)
    return {
        "kind": "mesh",
        "path": m.path,
        "facts": _mesh_facts(m),
        "buffers": {
            "vertex_bytes": m.vertex_bytes, "index_bytes": m.index_bytes, "morph_bytes": m.morph_bytes,
            "stored_bytes": m.vertex_bytes + m.index_bytes + m.morph_bytes,
            "engine_vertex_bytes": engine_cost.engine_vertex_bytes,
            "engine_index_bytes": engine_cost.engine_index_bytes,
            "engine_layout": {"name": layout.name, "bytes_per_vertex": layout.bytes_per_vertex,
                              "configured": report.settings.layout is not None},
            "skinned_copy_bytes": mc.skinned_copy_bytes,
            "buffer_bytes": mc.buffer_bytes,
            "basis": mc.basis,
        },
        "instances": mc.instances,
        "blas": [asdict(b) for b in _blas_rows(mc, report)],
        "blas_in_report": None if mc.blas is None else mc.blas.profile,
        "findings": found,
    }


# --- what cmd_explain prints ----------------------------------------------------------------------


def explain_row(row: Row, report: Report, engines: Mapping[str, EngineImport] | None = None) -> str:
    if isinstance(row, TextureRow):
        return explain_texture(row, report, _engine(report, row, engines))
    return explain_mesh(row, report)


def render(report: Report, path: str | Path, *, engines: Mapping[str, EngineImport] | None = None) -> str:
    """The explain text for ``path`` (every asset inside it, for a glTF/GLB), or a UsageError
    naming the nearest known paths. ``engines`` is ``Scan.engine``; without it the sidecar
    beside each texture is read."""
    rows = find_assets(report, path)
    if not rows:
        raise _not_found(report, path)
    return "\n\n".join(explain_row(r, report, engines) for r in rows)


def render_json(report: Report, path: str | Path, *, engines: Mapping[str, EngineImport] | None = None) -> str:
    rows = find_assets(report, path)
    if not rows:
        raise _not_found(report, path)
    assets = [explain_json(r, report, _engine(report, r, engines) if isinstance(r, TextureRow) else None) for r in rows]
    return json.dumps({"schema": 1, "tool": {"name": "texbudget", "version": __version__}, "assets": assets},
                      indent=2, ensure_ascii=False)
