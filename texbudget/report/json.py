"""The JSON report, schema 1 (DESIGN.md §5). Stable: golden tests pin it.

Keys are added, never renamed or removed, within schema 1. Besides the keys DESIGN.md §5
shows, texture entries carry ``mips_policy``, ``tier_drop`` and ``streamed``; mesh entries
``engine_index_bytes``, ``buffer_bytes`` and ``basis`` (which size the budget counted); the
``blas`` object names its ``source``; scenarios carry ``upscaler`` and ``renderer``; the top
level has ``acceleration`` (per RT profile: BLAS, TLAS, instance descriptors, peak build
scratch, all estimates) and ``summary`` counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from texbudget import __version__, formats
from texbudget.model import Finding, ScenarioResult
from texbudget.pipeline import Report, TextureRow
from texbudget.report.sizes import mips_json
from texbudget.sizing.meshes import MeshCost

SCHEMA = 1


def texture_entry(row: TextureRow) -> dict[str, Any]:
    """A texture's entry: the keys and values the report writes (``_Textures`` writes the
    same text without the dict)."""
    f, p, c = row.facts, row.plan, row.cost
    stored = formats.find(f.stored_format) if f.stored_format else None
    gpu = formats.find(p.gpu_format)
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
        "mips": mips_json(c.mips),
        "gpu_bytes": c.gpu_bytes,
        "allocated_bytes": c.allocated_bytes,
        "disk_bytes": f.disk_bytes,
        "used_by": list(row.used_by),
    }


def mesh_entry(c: MeshCost) -> dict[str, Any]:
    m, b = c.facts, c.blas
    return {
        "path": m.path,
        "name": m.name,
        "primitives": m.primitive_count,
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
    """The report as plain data: what ``chunks`` writes, as dicts and lists (``check
    --baseline`` reads it; the tests hold ``chunks`` to it)."""
    return _with_levels(_report_dict(report, [texture_entry(t) for t in report.textures],
                                     [mesh_entry(m) for m in report.meshes], [finding_entry(f) for f in report.findings]),
                        report)


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
        "instances": sum(m.instances for m in lv.report.meshes),
        "scenarios": [scenario_entry(s) for s in lv.report.scenarios],
    } for lv in report.levels]


def _report_dict(report: Report, textures: Any, meshes: Any, findings: Any) -> dict[str, Any]:
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
        "meshes": meshes,
        "findings": findings,
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
            "instances": sum(m.instances for m in report.meshes),
            "triangles_instanced": sum(m.triangles * m.instances for m in report.meshes),
            "findings": len(report.findings),
        },
    }


def chunks(report: Report, violations: Sequence[Finding] | None = None) -> Iterator[bytes]:
    """The report's JSON text (``dumps(report_dict(report))``), UTF-8, piece by piece as it
    is made: a caller writes each piece and drops it, so the report is never held whole (at
    100k textures it is about 130 MB). ``violations``: ``check``'s problems, a last list."""
    findings = _Findings()
    data = _with_levels(_report_dict(report, _Lines(report.textures, _Textures()), _Lines(report.meshes, _Meshes()),
                                     _Lines(report.findings, findings)), report)
    if violations is not None:
        data["violations"] = _Lines(violations, findings)
    return _layout(data, 0)


def render(report: Report) -> str:
    """The report's JSON text whole (``chunks`` joined)."""
    return b"".join(chunks(report)).decode()


def dumps(data: Any) -> str:
    """JSON text that is always valid UTF-8 and laid out one entry per line.

    The top object and its direct children are indented; anything deeper (a texture, a mesh,
    a finding, a scenario) is written on one line. A report of 10,000 textures is then 10,000
    lines that ``grep`` and ``git diff`` show one asset at a time, and CPython's C encoder
    writes each line (``indent=2`` everywhere takes its pure-Python encoder, 4x slower).
    Non-ASCII is kept readable, but the lone surrogates Python uses for file names that are not
    UTF-8 are escaped as ``\\udcXX`` (which ``json`` reads back as the same name)."""
    return b"".join(_layout(data, 0)).decode()


#: Containers down to this depth get one line per item; deeper ones are one line.
_EXPANDED_DEPTH = 1


#: Every value written on one line goes through this encoder: json's own separators without
#: ``indent`` (", " and ": "), non-ASCII kept, no check for cycles (a report holds none). Its
#: ``encode`` is json's public API and runs CPython's C encoder. The entries of the long
#: lists are written by templates instead (``_Textures``, ``_Meshes``, ``_Findings``).
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)
_compact = _ENCODER.encode

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> bytes:
    """JSON ``text`` as UTF-8, the lone surrogates of names that are not UTF-8 written
    ``\\udcXX`` (json's encoder keeps them as they are when it keeps non-ASCII)."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode()


def _small(value: Any) -> bytes:
    """``value`` on one line, UTF-8: json's encoder, the exact form."""
    return _utf8(_compact(value))


def _layout(value: Any, depth: int) -> Iterator[bytes]:
    """``value``'s text in pieces: containers down to ``_EXPANDED_DEPTH`` one item a line,
    each item indented two spaces deeper than its container, the rest on one line."""
    if type(value) is _Lines:
        yield from value.chunks()
    elif depth > _EXPANDED_DEPTH or not isinstance(value, (dict, list)) or not value:
        yield _small(value)
    else:
        first = b"\n" + b"  " * (depth + 1)
        rest = b"," + first
        if isinstance(value, dict):
            yield b"{"
            for i, (k, v) in enumerate(value.items()):
                yield (rest if i else first) + _small(str(k)) + b": "
                yield from _layout(v, depth + 1)
            yield b"\n" + b"  " * depth + b"}"
        else:
            yield b"["
            for i, v in enumerate(value):
                yield rest if i else first
                yield from _layout(v, depth + 1)
            yield b"\n" + b"  " * depth + b"]"


# --- the long lists ------------------------------------------------------------------------
#
# A report is mostly its textures, meshes and findings (at 10k textures, 13 MB; json's
# encoder took 0.1 s to write them, a dict and a call each). Their entries are written by a
# template of the entry's keys instead, in the layout ``_layout`` gives a list at depth 1:
# each value as json writes it, the ints with ``%d``, the booleans ``true``/``false``, the
# strings a report repeats (formats, roles, codes, hints) through json's encoder once each,
# the mip chain once per chain, and the free text (paths, names, messages) through msgspec's
# encoder (the same bytes as json's for every string it takes; a batch that holds a lone
# surrogate, which msgspec refuses, is written again with json's). The tests hold each
# template to json's text of the entry's dict (``texture_entry``, ``mesh_entry``,
# ``finding_entry``); docs/decisions.md says why msgspec.

_ENCODE = msgspec.json.Encoder().encode
_FORMAT = msgspec.json.format
#: Entries written per piece: about 120 KB of textures (a texture's entry lists every
#: material that uses it: 1,000 of a mesh library's were 1.2 MB, a piece and its parts 3.6 MiB
#: at the 100k ``glb`` tree's peak, 250 still 0.6 MiB; benchmarks/README.md). Smaller pieces
#: are also written faster (they stay in the CPU's caches).
_BATCH = 100
#: Between two entries of a list at depth 1, one a line.
_NEXT = b",\n    "
#: Most values a memo keeps before it starts again (a report that repeats nothing would
#: otherwise hold a second copy of its repeated strings).
_MEMO_MAX = 4096


class _Words(dict):
    """JSON of the strings a report repeats, written once each by json."""

    def __missing__(self, value: Any) -> bytes:
        return _remember(self, value, _small(value))


class _Lines:
    """A list of the report written one entry a line at depth 1: ``write`` makes each batch's
    entries, each followed by ``_NEXT``, with a function for the free text: msgspec's
    encoder, or json's (``_small``) for a batch msgspec refused."""

    def __init__(self, rows: Sequence[Any], write: Callable[[Sequence[Any], Callable[[str], bytes]], list[bytes]]):
        self.rows, self.write = rows, write

    def chunks(self) -> Iterator[bytes]:
        rows = self.rows
        if not rows:
            yield b"[]"
            return
        yield b"[\n    "
        for start in range(0, len(rows), _BATCH):
            batch = rows[start:start + _BATCH]
            try:
                pieces = self.write(batch, _ENCODE)
            except UnicodeEncodeError:  # a lone surrogate: json writes it, msgspec refuses
                pieces = self.write(batch, _small)
            if start + _BATCH >= len(rows):
                pieces[-1] = pieces[-1].removesuffix(_NEXT)
            yield b"".join(pieces)
        yield b"\n  ]"


class _Textures:
    """Texture entries (``texture_entry``'s keys and values). All of an entry but its path,
    ``disk_bytes`` and ``used_by`` is shared by the textures of one size, format, decision
    and mip chain (the 10k benchmark trees have 40 to 271 such kinds), and written once per
    kind: its size by the template, its formats, role and decision by json (once per
    combination), its mip chain (two thirds of a report) once per chain, by the id of its
    tuple (textures decided alike share one, alive while the report is)."""

    def __init__(self) -> None:
        self.words = _Words()
        self.kinds: dict[tuple, bytes] = {}
        self.middles: dict[tuple, bytes] = {}
        self.chains: dict[int, bytes] = {}

    def __call__(self, rows: Sequence[TextureRow], string: Callable[[str], bytes]) -> list[bytes]:
        out: list[bytes] = []
        add = out.append
        kinds = self.kinds
        for row in rows:
            f, p, c = row.facts, row.plan, row.cost
            key = (f.container, f.width, f.height, f.depth, f.layers, f.faces, f.stored_levels, f.stored_format,
                   f.transcodable, p.gpu_format, p.role, p.decided_by, p.mips, p.tier_drop, p.streamed, id(c.mips),
                   c.gpu_bytes, c.allocated_bytes)
            kind = kinds.get(key)
            if kind is None:
                kind = self._kind(row, key)
            used = row.used_by
            add(b'{"path": ')
            add(string(f.path))
            add(kind)
            add(b', "disk_bytes": %d, "used_by": [%b]},\n    ' % (f.disk_bytes, b", ".join(map(string, used)) if used else b""))
        return out

    def _kind(self, row: TextureRow, key: tuple) -> bytes:
        """From ``"container"`` to ``"allocated_bytes"``."""
        f, c = row.facts, row.cost
        middle_key = key[7:15]
        middle = self.middles.get(middle_key)
        if middle is None:
            entry = texture_entry(row)
            middle = _small({k: entry[k] for k in _MIDDLE})[1:-1]
            _remember(self.middles, middle_key, middle)
        chain = self.chains.get(id(c.mips))
        if chain is None:
            chain = _remember(self.chains, id(c.mips), _FORMAT(_ENCODE(mips_json(c.mips)), indent=0))  # ints: json's text
        kind = b''.join([
            b', "container": %b, "width": %d, "height": %d, "depth": %d, "layers": %d, "faces": %d, '
            b'"stored_levels": %d, ' % (self.words[f.container], f.width, f.height, f.depth, f.layers, f.faces,
                                        f.stored_levels),
            middle, b', "mips": ', chain, b', "gpu_bytes": %d, "allocated_bytes": %d' % (c.gpu_bytes, c.allocated_bytes),
        ])
        return _remember(self.kinds, key, kind)


#: The keys of a texture entry that ``_Textures`` writes with json.
_MIDDLE = ("stored_format", "vk_format", "gpu_format", "dxgi_format", "role", "decided_by", "mips_policy", "tier_drop",
           "streamed")


def _remember(memo: dict, key: Any, value: bytes) -> bytes:
    """``memo[key] = value`` (a memo that holds ``_MEMO_MAX`` values starts again)."""
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = value
    return value


_MESH = (b'{"path": %b, "name": %b, "primitives": %d, "vertices": %d, "indices": %d, "triangles": %d, '
         b'"vertex_bytes": %d, "index_bytes": %d, "morph_bytes": %d, "skinned": %b, "engine_vertex_bytes": %b, '
         b'"engine_index_bytes": %b, "buffer_bytes": %d, "basis": %b, "instances": %d, "blas": %b},\n    ')
_BLAS = (b'{"profile": %b, "prebuild_bytes": %d, "compacted_bytes": %d, "scratch_bytes": %d, "estimate": true, '
         b'"source": %b}')


class _Meshes:
    """Mesh entries (``mesh_entry``'s keys and values)."""

    def __init__(self) -> None:
        self.words = _Words()

    def __call__(self, rows: Sequence[MeshCost], string: Callable[[str], bytes]) -> list[bytes]:
        words = self.words
        out: list[bytes] = []
        add = out.append
        for c in rows:
            m, b = c.facts, c.blas
            vertex, index = c.engine_vertex_bytes, c.engine_index_bytes
            blas = b"null" if b is None else _BLAS % (
                words[b.profile], b.prebuild_bytes, b.compacted_bytes, b.scratch_bytes, words[b.source])
            add(_MESH % (string(m.path), string(m.name), m.primitive_count, m.vertices, m.indices, m.triangles,
                         m.vertex_bytes, m.index_bytes, m.morph_bytes, b"true" if m.skinned else b"false",
                         b"null" if vertex is None else b"%d" % vertex, b"null" if index is None else b"%d" % index,
                         c.buffer_bytes, words[c.basis], c.instances, blas))
        return out


_FINDING = b'{"path": %b, "code": %b, "severity": %b, "message": %b, "hint": %b},\n    '


class _Findings:
    """Finding entries (``finding_entry``'s keys and values)."""

    def __init__(self) -> None:
        self.words = _Words()

    def __call__(self, rows: Sequence[Finding], string: Callable[[str], bytes]) -> list[bytes]:
        words = self.words
        # a Severity is a str whose value is its text: msgspec writes that without the
        # enum's Python-level ``value`` and ``__hash__``
        return [_FINDING % (string(f.path), words[f.code], _ENCODE(f.severity), string(f.message), words[f.hint])
                for f in rows]
