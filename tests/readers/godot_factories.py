"""Godot 4 binary resources ("RSRC") written by hand, as ``core/io/resource_format_binary.cpp``
(``ResourceFormatSaverBinaryInstance::save``) writes them: header, string table, external and
internal resource tables, each internal resource's properties, and the ``RSRC`` end mark.

``rsrc(main_type, ext, internal)`` builds a file: ``ext`` is a list of (type, path, uid text),
``internal`` a list of (local id, type, properties) with the main resource last. Property
values are Python values and the ``V`` markers below (a value's type chosen explicitly where
Python's type is ambiguous). ``bundled(nodes, …)`` builds a PackedScene's ``_bundled``
dictionary from simple node tuples. ``text_surface`` writes a text ArrayMesh surface.

Also the uid text form (``uid_text`` is the reader's; ``uid_value`` is its inverse here).
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

_CHARS = "abcdefghijklmnopqrstuvwxy012345678"

# Variant ids (resource_format_binary.cpp)
NIL, BOOL, INT, FLOAT, STRING = 1, 2, 3, 4, 5
VECTOR3, AABB, TRANSFORM3D, COLOR, NODE_PATH, OBJECT = 12, 15, 17, 20, 22, 24
DICTIONARY, ARRAY, BYTES, INT32S, FLOAT32S, STRINGS, INT64 = 26, 30, 31, 32, 33, 34, 40


def uid_value(text: str) -> int:
    """``uid://…`` → its 63-bit id (ResourceUID::text_to_id)."""
    value = 0
    for ch in text.removeprefix("uid://"):
        value = value * len(_CHARS) + _CHARS.index(ch)
    return value & 0x7FFFFFFFFFFFFFFF


@dataclass(frozen=True)
class Ext:
    """A reference to external resource ``index`` (OBJECT_EXTERNAL_RESOURCE_INDEX)."""

    index: int


@dataclass(frozen=True)
class Sub:
    """A reference to internal resource ``index`` (OBJECT_INTERNAL_RESOURCE)."""

    index: int


@dataclass(frozen=True)
class V:
    """A value written with an explicit variant id (``kind``): VECTOR3, AABB, BYTES, INT32S …"""

    kind: int
    value: object = None


def _ustring(s: str) -> bytes:
    raw = s.encode("utf-8") + b"\0"
    return struct.pack("<I", len(raw)) + raw


class _Writer:
    def __init__(self) -> None:
        self.strings: list[str] = []

    def name(self, s: str) -> bytes:
        if s not in self.strings:
            self.strings.append(s)
        return struct.pack("<I", self.strings.index(s))

    def variant(self, v: object) -> bytes:
        if v is None:
            return struct.pack("<I", NIL)
        if isinstance(v, bool):
            return struct.pack("<II", BOOL, int(v))
        if isinstance(v, int):
            if -(2**31) <= v < 2**31:
                return struct.pack("<Ii", INT, v)
            return struct.pack("<Iq", INT64, v)
        if isinstance(v, float):
            return struct.pack("<If", FLOAT, v)
        if isinstance(v, str):
            return struct.pack("<I", STRING) + _ustring(v)
        if isinstance(v, Ext):
            return struct.pack("<III", OBJECT, 3, v.index)
        if isinstance(v, Sub):
            return struct.pack("<III", OBJECT, 2, v.index)
        if isinstance(v, list):
            return struct.pack("<II", ARRAY, len(v)) + b"".join(self.variant(x) for x in v)
        if isinstance(v, dict):
            return struct.pack("<II", DICTIONARY, len(v)) + b"".join(self.variant(k) + self.variant(x) for k, x in v.items())
        if isinstance(v, V):
            return self.explicit(v)
        raise TypeError(v)

    def explicit(self, v: V) -> bytes:
        head = struct.pack("<I", v.kind)
        if v.kind == BYTES:
            data = bytes(v.value)  # type: ignore[arg-type]
            return head + struct.pack("<I", len(data)) + data + bytes(-len(data) % 4)
        if v.kind == INT32S:
            ints = list(v.value)  # type: ignore[call-overload]
            return head + struct.pack(f"<I{len(ints)}i", len(ints), *ints)
        if v.kind == FLOAT32S:
            fl = list(v.value)  # type: ignore[call-overload]
            return head + struct.pack(f"<I{len(fl)}f", len(fl), *fl)
        if v.kind == STRINGS:
            items = list(v.value)  # type: ignore[call-overload]
            return head + struct.pack("<I", len(items)) + b"".join(_ustring(s) for s in items)
        reals = {VECTOR3: 3, AABB: 6, TRANSFORM3D: 12, COLOR: 4}
        if v.kind in reals:
            return head + struct.pack(f"<{reals[v.kind]}f", *([0.0] * reals[v.kind]))
        if v.kind == NODE_PATH:
            names = str(v.value).split("/") if v.value else []
            return head + struct.pack("<HH", len(names), 0) + b"".join(self.name(n) for n in names)
        raise TypeError(v)


def rsrc(main_type: str, ext: list[tuple[str, str, str]], internal: list[tuple[str, str, dict]], *,
         major: int = 4, minor: int = 3, fmt: int = 6, uid: str = "", named: bool = True, magic: bool = True) -> bytes:
    """A binary resource. Internal resource ids are written ``local://ID``; the last one is the
    main resource (as Godot writes it, with an empty path when ``named``). ``magic=False``
    leaves out the leading ``RSRC``, as the saver does when it writes through
    FileAccessCompressed (offsets then count from the stream's start): ``rscc`` compresses it."""
    w = _Writer()
    bodies = []
    for _ident, res_type, props in internal:
        body = _ustring(res_type) + struct.pack("<I", len(props))
        for key, value in props.items():
            body += w.name(key) + w.variant(value)
        bodies.append(body)
    flags = (1 if named else 0) | 2
    head = (b"RSRC" if magic else b"") + struct.pack("<IIIII", 0, 0, major, minor, fmt) + _ustring(main_type)
    head += struct.pack("<QIQ", 0, flags, uid_value(uid) if uid else 0xFFFFFFFFFFFFFFFF) + bytes(11 * 4)
    head += struct.pack("<I", len(w.strings)) + b"".join(_ustring(s) for s in w.strings)
    head += struct.pack("<I", len(ext))
    for ext_type, path, ext_uid in ext:
        head += _ustring(ext_type) + _ustring(path) + struct.pack("<Q", uid_value(ext_uid) if ext_uid else 0xFFFFFFFFFFFFFFFF)
    head += struct.pack("<I", len(internal))
    table_size = sum(len(_ustring(f"local://{ident}")) + 8 for ident, _, _ in internal)
    offset = len(head) + table_size
    table = b""
    for (ident, _, _), body in zip(internal, bodies, strict=True):
        table += _ustring(f"local://{ident}") + struct.pack("<Q", offset)
        offset += len(body)
    return head + table + b"".join(bodies) + b"RSRC"


def rscc(stream: bytes, mode: int = 2, block_size: int = 4096) -> bytes:
    """A compressed binary resource as ``FileAccessCompressed`` writes one (``configure("RSCC")``,
    core/io/file_access_compressed.cpp): "RSCC", u32 mode (1 Deflate: a zlib stream, 2
    Zstandard, 3 gzip), u32 block size, u32 length of ``stream``, the compressed size of each
    of (length / block size) + 1 blocks, then the blocks, each compressed on its own."""
    import gzip
    import zlib

    from backports import zstd

    blocks = [stream[i:i + block_size] for i in range(0, len(stream) // block_size * block_size + 1, block_size)]
    squeeze = {1: lambda b: zlib.compress(b, 9), 2: lambda b: zstd.compress(b, 3), 3: lambda b: gzip.compress(b, mtime=0)}[mode]
    packed = [squeeze(b) for b in blocks]
    return (b"RSCC" + struct.pack("<III", mode, block_size, len(stream)) + struct.pack(f"<{len(packed)}I", *map(len, packed))
            + b"".join(packed))


def bundled(names: list[str], variants: list[object], nodes: list[tuple], *, node_paths: tuple[str, ...] = ()) -> dict:
    """A PackedScene's ``_bundled``. ``nodes``: (parent, type name or None for an instanced
    node, name, instance variant index or -1, [(property name, variant index)]); parent is a
    node index, -1 for the root, or ("path", k) for ``node_paths[k]``."""
    ints: list[int] = []
    for parent, type_name, name, instance, props in nodes:
        if isinstance(parent, tuple):
            parent = parent[1] | (1 << 30)
        type_index = 0x7FFFFFFF if type_name is None else names.index(type_name)
        ints += [parent, -1, type_index, names.index(name) | (1 << 18), instance, len(props)]
        for key, value in props:
            ints += [names.index(key), value]
        ints += [0]
    return {"names": V(STRINGS, names), "variants": variants, "node_count": len(nodes), "nodes": V(INT32S, ints),
            "conn_count": 0, "conns": V(INT32S, []), "node_paths": [V(NODE_PATH, p) for p in node_paths],
            "editable_instances": [], "version": 3}


def text_bytes(data: bytes, *, b64: bool = True) -> str:
    """A PackedByteArray as a text resource writes it: base64 (Godot 4.3+) or decimal."""
    if b64:
        return f'PackedByteArray("{base64.b64encode(data).decode()}")'
    return "PackedByteArray(" + ", ".join(str(b) for b in data) + ")"


def text_surface(fmt: int, vertices: int, vertex_bytes: int, attribute_bytes: int = 0, skin_bytes: int = 0,
                 index_count: int = 0, index_bytes: int = 0, primitive: int = 3, material: str = "",
                 extra: str = "", b64: bool = True) -> str:
    """One ``_surfaces`` dictionary of a text ArrayMesh, with zero bytes of the given sizes."""
    lines = ['{', '"aabb": AABB(0, 0, 0, 1, 1, 1),']
    if attribute_bytes:
        lines.append(f'"attribute_data": {text_bytes(bytes(attribute_bytes), b64=b64)},')
    lines.append(f'"format": {fmt},')
    if index_count:
        lines += [f'"index_count": {index_count},', f'"index_data": {text_bytes(bytes(index_bytes), b64=b64)},']
    if material:
        lines.append(f'"material": {material},')
    lines.append(f'"primitive": {primitive},')
    if skin_bytes:
        lines.append(f'"skin_data": {text_bytes(bytes(skin_bytes), b64=b64)},')
    lines += [extra, f'"vertex_count": {vertices},', f'"vertex_data": {text_bytes(bytes(vertex_bytes), b64=b64)}', '}']
    return "\n".join(line for line in lines if line)
