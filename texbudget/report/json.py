"""The JSON report, schema 1 (DESIGN.md §5). Stable: golden tests pin it.

Keys are added, never renamed or removed, within schema 1. Besides the keys DESIGN.md §5
shows, texture entries carry ``mips_policy``, ``tier_drop`` and ``streamed``; mesh entries
``engine_index_bytes``, ``buffer_bytes`` and ``basis`` (which size the budget counted); the
``blas`` object names its ``source``; scenarios carry ``upscaler`` and ``renderer``; the top
level has ``acceleration`` (per RT profile: BLAS, TLAS, instance descriptors, peak build
scratch, all estimates) and ``summary`` counts.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from texbudget import __version__, formats
from texbudget.model import Finding, PixelFormat, ScenarioResult
from texbudget.pipeline import MeshRow, Report, TextureRow
from texbudget.report.sizes import mips_json

SCHEMA = 1


def texture_entry(row: TextureRow, mips: Any = None,
                  find: Callable[[str], PixelFormat | None] = formats.find) -> dict[str, Any]:
    """A texture's entry; ``mips``: a stand-in for its mip list (``render`` splices the list
    in, written once per chain); ``find``: ``formats.find`` (``render`` remembers its answers
    for the report's few format names)."""
    f, p, c = row.facts, row.plan, row.cost
    stored = find(f.stored_format) if f.stored_format else None
    gpu = find(p.gpu_format)
    shown = stored or gpu
    return {
        "path": f.path,
        "container": f.container,
        "width": f.width,
        "height": f.height,
        "depth": f.depth,
        "layers": f.layers,
        "faces": f.faces,
        "stored_levels": f.stored_levels,
        "stored_format": f.stored_format or f.transcodable,
        "vk_format": shown.vk_name if shown else None,
        "gpu_format": p.gpu_format,
        "dxgi_format": gpu.dxgi_name if gpu else None,
        "role": p.role,
        "decided_by": p.decided_by,
        "mips_policy": p.mips,
        "tier_drop": p.tier_drop,
        "streamed": p.streamed,
        "mips": mips_json(c.mips) if mips is None else mips,
        "gpu_bytes": c.gpu_bytes,
        "allocated_bytes": c.allocated_bytes,
        "disk_bytes": f.disk_bytes,
        "used_by": list(row.used_by),
    }


def mesh_entry(row: MeshRow) -> dict[str, Any]:
    m, c, b = row.facts, row.cost, row.blas
    return {
        "path": m.path,
        "name": m.name,
        "primitives": len(m.primitives),
        "vertices": m.vertices,
        "indices": m.indices,
        "triangles": m.triangles,
        "vertex_bytes": m.vertex_bytes,
        "index_bytes": m.index_bytes,
        "morph_bytes": m.morph_bytes,
        "skinned": m.skinned,
        "engine_vertex_bytes": c.engine_vertex_bytes,
        "engine_index_bytes": c.engine_index_bytes,
        "buffer_bytes": c.buffer_bytes,
        "basis": c.basis,
        "instances": c.instances,
        "blas": None if b is None else {
            "profile": b.profile,
            "prebuild_bytes": b.prebuild_bytes,
            "compacted_bytes": b.compacted_bytes,
            "scratch_bytes": b.scratch_bytes,
            "estimate": True,
            "source": b.source,
        },
    }


def finding_entry(f: Finding) -> dict[str, Any]:
    return {"path": f.path, "code": f.code, "severity": f.severity.value, "message": f.message, "hint": f.hint}


def scenario_entry(s: ScenarioResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "resolution": s.resolution,
        "render_scale": s.render_scale,
        "quality": s.quality,
        "rt": s.rt,
        "bytes": dict(s.bytes),
        "total_bytes": s.total_bytes,
        "cards": [{
            "name": c.name,
            "vram_bytes": c.vram_bytes,
            "usable_bytes": c.usable_bytes,
            "free_bytes": c.free_bytes,
            "verdict": c.verdict,
        } for c in s.cards],
        "fixes": [{"card": x.card, "action": x.action, "path": x.path, "saves_bytes": x.saves_bytes} for x in s.fixes],
    }
    for extra in ("upscaler", "renderer", "streaming"):
        value = getattr(s, extra, None)
        if value is not None:
            out[extra] = value
    return out


def report_dict(report: Report) -> dict[str, Any]:
    return _with_levels(_report_dict(report, [texture_entry(t) for t in report.textures]), report)


def _with_levels(data: dict[str, Any], report: Report) -> dict[str, Any]:
    """The additive ``levels`` list (docs/levels.md), when the report has levels."""
    if report.levels:
        data["levels"] = levels_entries(report)
    return data


def levels_entries(report: Report) -> list[dict[str, Any]]:
    """One entry a level: its name, scene, source, counts and bytes, and its own scenarios."""
    return [{
        "name": lv.name,
        "scene": lv.scene,
        "source": lv.source,
        "textures": len(lv.report.textures),
        "meshes": len(lv.report.meshes),
        "texture_bytes": lv.texture_bytes,
        "mesh_bytes": lv.mesh_bytes,
        "instances": sum(m.cost.instances for m in lv.report.meshes),
        "scenarios": [scenario_entry(s) for s in lv.report.scenarios],
    } for lv in report.levels]


def _report_dict(report: Report, textures: list) -> dict[str, Any]:
    s = report.settings
    rts = sorted({x.rt for x in report.scenarios})
    return {
        "schema": SCHEMA,
        "tool": {"name": "texbudget", "version": __version__},
        "settings": {
            "platform": s.policy.platform,
            "quality": s.policy.quality,
            "rt": rts[0] if len(rts) == 1 else rts,
            "renderer": s.budget.renderer,
            "config": s.config_label,
        },
        "textures": textures,
        "meshes": [mesh_entry(m) for m in report.meshes],
        "findings": [finding_entry(f) for f in report.findings],
        "scenarios": [scenario_entry(x) for x in report.scenarios],
        "acceleration": {
            vendor: {
                "blas_bytes": a.blas_bytes,
                "blas_uncompacted_bytes": a.blas_uncompacted_bytes,
                "tlas_bytes": a.tlas_bytes,
                "instance_desc_bytes": a.instance_desc_bytes,
                "peak_scratch_bytes": a.peak_scratch_bytes,
                "total_bytes": a.total_bytes,
                "estimate": True,
                "source": a.source,
            }
            for vendor, a in report.acceleration.items()
        },
        "summary": {
            "textures": len(report.textures),
            "meshes": len(report.meshes),
            "instances": sum(m.cost.instances for m in report.meshes),
            "triangles_instanced": sum(m.cost.triangles * m.cost.instances for m in report.meshes),
            "findings": len(report.findings),
        },
    }


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(data: Any) -> str:
    """JSON text that is always valid UTF-8 and laid out one entry per line.

    The top object and its direct children are indented; anything deeper (a texture, a mesh,
    a finding, a scenario) is written on one line. A report of 10,000 textures is then 10,000
    lines that ``grep`` and ``git diff`` show one asset at a time, and CPython's C encoder
    writes each line (``indent=2`` everywhere takes its pure-Python encoder, 4x slower).
    Non-ASCII is kept readable, but the lone surrogates Python uses for file names that are not
    UTF-8 are escaped as ``\\udcXX`` (which ``json`` reads back as the same name)."""
    parts: list[str] = []
    _layout(data, 0, parts)
    text = "".join(parts)  # the report's one copy of its megabytes
    if text.isascii():  # known without a look at the text: no surrogate
        return text
    try:  # no lone surrogate either (encoding checks megabytes faster than a search)
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: Containers down to this depth get one line per item; deeper ones are one line.
_EXPANDED_DEPTH = 1


#: Every value written on one line goes through this encoder: json's own separators without
#: ``indent`` (", " and ": "), non-ASCII kept, no check for cycles (a report holds none). Its
#: ``encode`` is json's public API and runs CPython's C encoder. (json's private
#: ``c_make_encoder``, made once, saved a tenth of the report's instructions; msgspec would
#: save a third but writes some floats, NaN and lone surrogates differently: see
#: docs/decisions.md.)
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)
_compact = _ENCODER.encode


class _Encoded(str):
    """JSON text already written (``render``'s texture entries)."""


def _layout(value: Any, depth: int, out: list[str]) -> None:
    """Append ``value``'s text to ``out``: containers down to ``_EXPANDED_DEPTH`` one item a
    line, each item indented two spaces deeper than its container, the rest on one line."""
    if type(value) is _Encoded:
        out.append(value)
    elif depth > _EXPANDED_DEPTH or not isinstance(value, (dict, list)) or not value:
        out.append(_compact(value))
    else:
        first = "\n" + "  " * (depth + 1)
        rest = "," + first
        if isinstance(value, dict):
            out.append("{")
            for i, (k, v) in enumerate(value.items()):
                out.append(f"{rest if i else first}{_compact(str(k))}: ")
                _layout(v, depth + 1, out)
            out.append("\n" + "  " * depth + "}")
        else:
            out.append("[")
            for i, v in enumerate(value):
                out.append(rest if i else first)
                _layout(v, depth + 1, out)
            out.append("\n" + "  " * depth + "]")


def render(report: Report) -> str:
    """``dumps(report_dict(report))``, the same text, written faster: a texture's entry is
    encoded with a stand-in for its mip list, and the list's JSON, written once per chain
    (textures decided alike share one), is spliced in. At 10k textures the mip lists were
    two thirds of the report's 13 MB and of the time to write it."""
    chains: dict[int, str] = {}  # id of a cost's mips tuple (alive in the report) -> JSON
    find = functools.cache(formats.find)  # a report names a few formats, ten thousand times
    lines = []
    for row in report.textures:
        mips = row.cost.mips
        chain = chains.get(id(mips))
        if chain is None:
            chain = chains[id(mips)] = f', "mips": {_compact(mips_json(mips))}, "gpu_bytes": '
        lines.append(_Encoded(_compact(texture_entry(row, _MIPS_STAND_IN, find)).replace(_MIPS_SLOT, chain, 1)))
    return dumps(_with_levels(_report_dict(report, lines), report))


#: The stand-in and where it lands in an encoded entry: a ``, "`` never occurs inside a JSON
#: string (a quote there is escaped), so the first match is the entry's own key.
_MIPS_STAND_IN = 0
_MIPS_SLOT = ', "mips": 0, "gpu_bytes": '
