"""A Godot GridMap's cells and a MeshLibrary's items, as ``godot_scene`` writes them into edges
(docs/levels.md, "GridMap").

A GridMap node stores its cells in ``data = {"cells": PackedInt32Array(…)}``. Godot's
``GridMap::_get("data")`` (``modules/gridmap/grid_map.cpp``) writes three int32 per cell: the
cell's key, a ``uint64`` (``union IndexKey``: x, y, z as int16, the top 16 bits unused), in
the first two, and the cell, a ``uint32`` (``union Cell``: bits 0–15 ``item``, 16–20 ``rot``,
21–28 ``layer``), in the third. ``GridMap::_set("data")`` reads them back into a map keyed by
the whole ``uint64`` (a key written twice keeps its last cell), and refuses an array whose
length is not a multiple of 3 (``ERR_FAIL_COND_V(amount % 3, false)``: the map keeps what it
had). The item is an unsigned 16-bit field: any int32 names an item 0–65535, a negative one
included (-1 is item 65535).

``cell_items`` turns such an array into {item: cells}. Numbers of a text file are read as
Godot's text parser reads them into a ``PackedInt32Array``: an integer wraps to 32 bits (only
the low 16 bits of the third, and the whole key, matter). An array of more than
``MAX_GRID_CELLS`` cells, or holding anything else than integers of at most 10 digits (a
decimal, ``inf``, a comment), is not counted, and the reason is returned for a finding.

A MeshLibrary (``scene/resources/3d/mesh_library.cpp``, ``MeshLibrary::_set``) holds its items
as ``item/N/name``, ``item/N/mesh``, ``item/N/preview``, … with N an int (``to_int`` of the
second part; ``create_item`` refuses N < 0). ``library_item`` reads N from such a key.
"""

from __future__ import annotations

import re

from texbudget.readers.godot_variant import Packed, TextSpan

#: A GridMap with more cells than this is not counted (a finding says so): 48 MiB of cells in
#: a binary scene, the memory decoding them takes bounded (the Godot demo projects' largest
#: map has 2,921 cells).
MAX_GRID_CELLS = 1 << 22
#: The numbers of a text PackedInt32Array as cells: integers of at most 10 digits (an int32
#: written as text has at most 10), separated by commas.
_INTS = re.compile(r"\s*+(?:-?[0-9]{1,10}+\s*+(?:,\s*+-?[0-9]{1,10}+\s*+)*+)?+")
#: What a value read from a Godot file is, in Godot's words, for messages.
_VARIANT_NAMES: dict[type, str] = {str: "String", list: "Array", dict: "Dictionary", int: "int", float: "float", bool: "bool"}
#: ``item/N/what``: N, and what (``mesh``, ``preview``, …).
_ITEM_KEY = re.compile(r"item/(-?[0-9]+)/(.*)", re.S)


def library_item(key: str) -> tuple[int, str] | None:
    """(N, what) of a MeshLibrary property ``item/N/what``; None for any other key, and for an
    N that is negative or beyond int32 (Godot creates no such item)."""
    m = _ITEM_KEY.fullmatch(key)
    if m is None or len(m.group(1)) > 11:
        return None
    n = int(m.group(1))
    return (n, m.group(2)) if 0 <= n < 2**31 else None


def cell_items(value: object) -> tuple[dict[int, int], str]:
    """The cells of a GridMap's ``data["cells"]`` as {item: number of cells}, in item order,
    and "" — or ({}, why they are not counted)."""
    if not isinstance(value, Packed) or value.type != "PackedInt32Array":
        kind = value.type if isinstance(value, Packed) else _VARIANT_NAMES.get(type(value), "value of another type")
        return {}, f"are of type {kind}, not PackedInt32Array"
    if value.length % 3:
        return {}, f"hold {value.length:,} integers, not 3 per cell (Godot refuses them too)"
    if value.length // 3 > MAX_GRID_CELLS:
        return {}, f"are {value.length // 3:,} cells, more than the {MAX_GRID_CELLS:,} texbudget counts"
    if value.length == 0:
        return {}, ""
    import numpy as np  # only a scene with a GridMap needs it

    data = value.data
    if isinstance(data, bytes) and len(data) == 4 * value.length:
        ints = np.frombuffer(data, dtype="<i4")
    elif isinstance(data, TextSpan):
        text = data.text[data.start:data.end]
        if _INTS.fullmatch(text) is None:
            return {}, "hold something else than integers (a decimal, inf or nan, a comment)"
        ints = np.fromstring(text, dtype=np.int64, sep=",").astype(np.uint32).view(np.int32)  # wrapped to 32 bits
        if ints.size != value.length:  # the pattern and the parse disagree: never counted silently
            return {}, "could not be read as integers"
    else:
        return {}, "could not be read (their numbers were not kept)"
    cells = ints.reshape(-1, 3).view(np.uint32)
    keys = cells[:, 0].astype(np.uint64) | (cells[:, 1].astype(np.uint64) << np.uint64(32))
    # A key written twice keeps its last cell, as Godot's map does: the first of each key in
    # the reversed order.
    _, last = np.unique(keys[::-1], return_index=True)
    items = (cells[::-1, 2][last] & 0xFFFF).astype(np.int64)
    found, counts = np.unique(items, return_counts=True)
    return {int(i): int(n) for i, n in zip(found, counts, strict=True)}, ""
