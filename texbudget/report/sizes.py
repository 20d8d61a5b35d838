"""Renderers for the calculator (`texbudget size`) and the format table (`texbudget formats`)."""

from __future__ import annotations

from collections.abc import Sequence

from texbudget.model import MipLevel, PixelFormat
from texbudget.units import human_bytes


def mips_json(mips: Sequence[MipLevel]) -> list[dict]:
    return [{"level": m.level, "width": m.width, "height": m.height, "depth": m.depth, "bytes": m.bytes} for m in mips]


def size_json(fmt: PixelFormat, mips: Sequence[MipLevel], content: int, allocated: int) -> dict:
    """Shaped like a texture entry of the report (DESIGN.md §5)."""
    return {
        "gpu_format": fmt.name,
        "vk_format": fmt.vk_name,
        "dxgi_format": fmt.dxgi_name,
        "mips": mips_json(mips),
        "gpu_bytes": content,
        "allocated_bytes": allocated,
        "allocation_model": "d3d12",
    }


def size_text(
    fmt: PixelFormat, dims: tuple[int, int, int], faces: int, layers: int,
    mips: Sequence[MipLevel], content: int, allocated: int,
) -> str:
    w, h, d = dims
    shape = f"{w}x{h}" + (f"x{d}" if d > 1 else "")
    extra = (" cube" if faces == 6 else "") + (f", {layers} layers" if layers > 1 else "")
    lines = [f"{fmt.name} {shape}{extra}: {len(mips)} level{'s' if len(mips) != 1 else ''}, "
             f"{fmt.bits_per_pixel:g} bits/px, {_block_text(fmt)} blocks of {fmt.bytes_per_block} B"]
    show_depth = d > 1
    head = f"{'level':>5}  {'width':>6}  {'height':>6}" + (f"  {'depth':>5}" if show_depth else "") + f"  {'bytes':>14}"
    lines.append(head)
    for m in mips:
        lines.append(f"{m.level:>5}  {m.width:>6}  {m.height:>6}" + (f"  {m.depth:>5}" if show_depth else "") + f"  {m.bytes:>14,}")
    lines.append(f"content    {content:>14,} B  ({human_bytes(content)})")
    lines.append(f"allocated  {allocated:>14,} B  ({human_bytes(allocated)}, D3D12 placement alignment; an estimate)")
    return "\n".join(lines)


def formats_json(rows: Sequence[PixelFormat]) -> list[dict]:
    return [{
        "name": f.name, "block": [f.block_width, f.block_height, f.block_depth],
        "bytes_per_block": f.bytes_per_block, "bits_per_pixel": round(f.bits_per_pixel, 4),
        "channels": f.channels, "alpha": f.alpha, "srgb": f.srgb, "hdr": f.hdr,
        "compressed": f.compressed, "family": f.family, "transcodable": f.transcodable,
        "vk_format": f.vk_format, "vk_name": f.vk_name, "dxgi_format": f.dxgi_format,
        "dxgi_name": f.dxgi_name, "gl_internal_format": f.gl_internal_format,
        "dds_fourcc": list(f.dds_fourcc), "d3dfmt": list(f.d3dfmt), "aliases": list(f.aliases),
        "signed": f.signed, "min_blocks": [f.min_blocks_x, f.min_blocks_y],
    } for f in rows]


def formats_csv(rows: Sequence[PixelFormat]) -> str:
    """``formats_json``'s fields, one row a format; lists joined by spaces."""
    import csv
    import io

    table = formats_json(rows)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(table[0]) if table else ["name"], lineterminator="\r\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: " ".join(str(x) for x in v) if isinstance(v, list) else ("" if v is None else v)
                         for k, v in row.items()})
    return buf.getvalue()


def _block_text(f: PixelFormat) -> str:
    return f"{f.block_width}x{f.block_height}" + (f"x{f.block_depth}" if f.block_depth > 1 else "")


def formats_text(rows: Sequence[PixelFormat], whole: bool = False) -> str:
    """The rows grouped by family (``formats.FAMILIES`` order), each group under its title
    and count; the last line counts them (``whole``: by source, for the whole table)."""
    from texbudget.formats import FAMILIES

    width = max((len(f.name) for f in rows), default=4)
    head = f"{'name':<{width}} {'block':>6} {'B/blk':>5} {'bpp':>6} {'vk':>10} {'dxgi':>4} {'gl':>6}  aliases"
    lines = [head]
    for family, title in FAMILIES.items():
        group = [f for f in rows if f.family == family]
        if not group:
            continue
        lines += ["", f"{family} — {title}; {len(group)} format{'s' if len(group) != 1 else ''}"]
        for f in group:
            gl = f"0x{f.gl_internal_format:04X}" if f.gl_internal_format else "-"
            lines.append(
                f"{f.name:<{width}} {_block_text(f):>6} {f.bytes_per_block:>5} {f.bits_per_pixel:>6.2f} "
                f"{f.vk_format if f.vk_format is not None else '-':>10} {f.dxgi_format if f.dxgi_format is not None else '-':>4} "
                f"{gl:>6}  {', '.join(f.aliases)}".rstrip()
            )
    lines.append("")
    if whole:
        vk = sum(f.vk_format is not None for f in rows)
        dxgi = sum(f.vk_format is None and f.dxgi_format is not None for f in rows)
        rest = len(rows) - vk - dxgi
        lines.append(f"{len(rows)} formats: {vk} Vulkan formats (every single-plane VkFormat but *SCALED), "
                     f"{dxgi} DXGI formats Vulkan has no twin for, {rest} others (ETC1, Basis Universal)")
    else:
        lines.append(f"{len(rows)} format{'s' if len(rows) != 1 else ''}")
    return "\n".join(lines)


def cards_json(rows) -> list[dict]:
    """``rows``: (Card, usable bytes, reserve bytes) with the default reserve."""
    return [{
        "id": c.id, "name": c.name, "kind": c.kind, "vendor": c.vendor, "rt_vendor": c.rt_vendor,
        "vram_bytes": c.vram_bytes, "usable_bytes": usable, "reserve_bytes": reserve, "note": c.note,
    } for c, usable, reserve in rows]


def cards_text(rows) -> str:
    lines = [f"{'id':<22} {'name':<28} {'VRAM':>10} {'usable':>10}  {'RT':<8} note"]
    for c, usable, _ in rows:
        lines.append(f"{c.id:<22} {c.name:<28} {human_bytes(c.vram_bytes):>10} {human_bytes(usable):>10}  {c.rt_vendor or '-':<8} {c.note}")
    lines.append(f"{len(rows)} cards; usable = VRAM - max(768 MiB, 7 %) unless a platform gives its own (configurable: [budget] reserve, reserve_min)")
    return "\n".join(lines)
