"""The CSV report (``--format csv``): one row per asset, textures then meshes, in the
report's order, for spreadsheets and scripts.

Columns are fixed (``COLUMNS``) and only ever appended to. RFC 4180: comma separated, CRLF
line ends, fields quoted by the ``csv`` module when they hold a comma, quote or line break.
Empty cells mean "does not apply" (a mesh has no pixel format, a texture no triangles).

- ``width``…``faces``, ``stored_format``, ``disk_bytes``: what the file says.
- ``levels``: mip levels resident on the GPU (after the cap and the quality tier's drop).
- ``gpu_bytes`` content bytes; ``allocated_bytes`` after the allocation model (textures).
- ``share_pct``: the asset's share, in percent with two decimals, of the sum over all rows
  of what the budget counts for them (allocated bytes for textures, ``buffer_bytes`` for
  meshes); acceleration structures and render targets are not in the sum.
- ``buffer_bytes``: a mesh's vertex + index + morph bytes as the budget counts them;
  ``blas_bytes``: its resident BLAS for the first RT profile of the scan (an estimate),
  empty when RT is off.

With levels (``Report.levels``, docs/levels.md), the columns ``level``, ``scenario``,
``card``, ``total_bytes``, ``usable_bytes``, ``free_bytes`` and ``verdict`` are appended, and
each level has a row of kind ``level`` per scenario and card: ``path`` its scene,
``allocated_bytes`` and ``buffer_bytes`` its textures' and meshes' bytes. A report without
levels has exactly the columns above.

A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (a file
named ``=HYPERLINK(…).png`` in a repository) is written after an apostrophe, as OWASP's
rule for CSV injection says: a spreadsheet then shows it as text instead of running it as
a formula. A script reading ``path`` drops one leading apostrophe from such a cell; no
other cell changes.
"""

from __future__ import annotations

import csv
import io

from texbudget.pipeline import Report, TextureRow
from texbudget.sizing.meshes import MeshCost

COLUMNS: tuple[str, ...] = (
    "kind", "path", "width", "height", "depth", "layers", "faces", "levels",
    "stored_format", "gpu_format", "role", "decided_by", "gpu_bytes", "allocated_bytes",
    "disk_bytes", "share_pct", "triangles", "instances", "buffer_bytes", "blas_bytes",
)


def counted_bytes(row: TextureRow | MeshCost) -> int:
    """What the budget counts for one asset: allocated bytes or mesh buffer bytes."""
    if isinstance(row, TextureRow):
        return row.cost.allocated_bytes
    return row.buffer_bytes


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.2f}" if total else "0.00"


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    """A text cell as a spreadsheet will show it, never run it."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def texture_row(row: TextureRow, total: int) -> dict[str, object]:
    f, p, c = row.facts, row.plan, row.cost
    return {
        "kind": "texture", "path": safe_text(f.path), "width": f.width, "height": f.height, "depth": f.depth,
        "layers": f.layers, "faces": f.faces, "levels": len(c.mips),
        "stored_format": f.stored_format or f.transcodable or "", "gpu_format": p.gpu_format,
        "role": p.role, "decided_by": safe_text(p.decided_by), "gpu_bytes": c.gpu_bytes,
        "allocated_bytes": c.allocated_bytes, "disk_bytes": f.disk_bytes,
        "share_pct": _share(c.allocated_bytes, total),
    }


def mesh_row(row: MeshCost, total: int) -> dict[str, object]:
    m = row.facts
    return {
        "kind": "mesh", "path": safe_text(m.path), "share_pct": _share(row.buffer_bytes, total),
        "decided_by": safe_text(row.basis), "triangles": m.triangles, "instances": row.instances,
        "buffer_bytes": row.buffer_bytes, "blas_bytes": "" if row.blas is None else row.blas.resident_bytes,
    }


def rows(report: Report) -> list[dict[str, object]]:
    total = sum(counted_bytes(r) for r in report.textures) + sum(counted_bytes(r) for r in report.meshes)
    out = [texture_row(t, total) for t in report.textures]
    out += [mesh_row(m, total) for m in report.meshes]
    return out


def level_rows(report: Report) -> list[dict[str, object]]:
    """One row per level, scenario and card (kind ``level``, ``path`` the scene), the level's
    totals in ``allocated_bytes`` (textures) and ``buffer_bytes`` (meshes)."""
    from texbudget.report.text import scenario_label

    return [{
        "kind": "level", "path": safe_text(lv.scene), "allocated_bytes": lv.texture_bytes,
        "buffer_bytes": lv.mesh_bytes, "level": safe_text(lv.name), "scenario": scenario_label(s),
        "card": c.name, "total_bytes": s.total_bytes, "usable_bytes": c.usable_bytes,
        "free_bytes": c.free_bytes, "verdict": c.verdict,
    } for lv in report.levels for s in lv.report.scenarios for c in s.cards]


def render(report: Report) -> str:
    columns, out = COLUMNS, rows(report)
    if report.levels:  # rows of kind "level" in appended columns (texbudget/report/levels.py)
        from texbudget.report.levels import LEVEL_COLUMNS

        columns, out = columns + LEVEL_COLUMNS, out + level_rows(report)
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=columns, restval="", lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(out)
    return buf.getvalue()
