"""The node tree of an FBX file, binary or ASCII, with arrays decoded only when asked.

An FBX document is a tree of nodes; each node has a name, a tuple of properties and child
nodes (the same in both encodings). ``parse(data)`` returns ``Document(version, ascii,
nodes)`` holding the top-level nodes that ``fbx.py`` needs (``Objects``, ``Connections``,
and of ``Objects`` only the kinds in ``KEEP_OBJECTS``, whole); everything else is skipped
unread (a binary node by its end offset).

Binary layout (Blender's "FBX binary file format specification", 2013; the fbx-book by
lo48576; ufbx): a 27-byte header, ``Kaydara FBX Binary  \\x00``, 0x1A, an endianness byte (0
little-endian), a u32 version. Then node records: end offset (absolute), property count,
property-list length — u32 each before version 7500, u64 from 7500 — a u8 name length and
the name, the properties, the child records and, when there are children, a null record
(13 or 25 zero bytes). Property type codes: ``Y`` i16, ``C`` bool byte, ``I`` i32, ``F``
f32, ``D`` f64, ``L`` i64, ``S`` and ``R`` a u32 length and bytes, and the arrays ``f d l i
b c``: u32 element count, u32 encoding (0 raw, 1 zlib deflate), u32 stored length, data.
Before 7.0 an "array" is the node's properties themselves, one scalar each (6.1's
``Vertices`` holds one ``D`` per coordinate).

ASCII: ``Name: prop, prop, ... {`` children ``}``, ``;`` comments, strings in double quotes,
7.x arrays as ``Name: *N { a: v,v,... }``; 6.x writes the values straight after the name,
wrapped over lines.

Hostile input: every record is checked against its parent's end and the file's (an end
offset that does not move forward is refused, so no loop), nesting is limited to MAX_DEPTH,
nodes to MAX_NODES; an array is decoded only when asked, never larger than MAX_ARRAY_BYTES,
a raw one only when its stored length is its size, a zlib one only when its decoded size is
within ZLIB_MAX_RATIO times its stored length (and decompressed with that as a cap). Any
breach raises ``FbxError`` with the finding code and message; nothing allocates from a
claimed size first.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

#: What a binary FBX starts with (the 21 bytes named in the readers' magic table).
BINARY_MAGIC = b"Kaydara FBX Binary  \x00"
HEADER_BYTES = 27
#: Versions read: 6.0 (6000) through 7.x (the 7.7 SDK writes 7700).
MIN_VERSION, MAX_VERSION = 6000, 7999
MAX_DEPTH = 64
MAX_NODES = 2_000_000
#: Largest decoded array (elements × element size).
MAX_ARRAY_BYTES = 1 << 30
#: zlib's deflate expands at most about 1032:1; a stored length claiming more is a lie.
ZLIB_MAX_RATIO = 1032
#: A binary node with more properties than this keeps them unparsed (6.x arrays).
EAGER_PROPS = 64
#: An ASCII run of more numbers than this is kept as text until asked.
EAGER_NUMBERS = 64

#: Kinds of ``Objects`` children kept (the rest are skipped unread).
KEEP_OBJECTS = frozenset({"Geometry", "Model", "Material", "Texture", "Video", "Deformer", "LayeredTexture"})
_KEEP_TOP = frozenset({"Objects", "Connections", "FBXHeaderExtension"})

#: Array type code -> (numpy dtype, bytes per element).
ARRAY_TYPES: dict[str, tuple[str, int]] = {"f": ("f4", 4), "d": ("f8", 8), "l": ("i8", 8), "i": ("i4", 4), "b": ("u1", 1), "c": ("u1", 1)}
_SCALARS: dict[str, tuple[str, int]] = {"Y": ("h", 2), "C": ("B", 1), "I": ("i", 4), "F": ("f", 4), "D": ("d", 8), "L": ("q", 8)}


class FbxError(Exception):
    """The file cannot be read further: ``code`` and ``message`` make its finding."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Node:
    name: str
    props: list[Any] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    def child(self, name: str) -> Node | None:
        for c in self.children:
            if c.name == name:
                return c
        return None

    def kids(self, name: str) -> list[Node]:
        return [c for c in self.children if c.name == name]

    def value(self, name: str, default: Any = None) -> Any:
        """The first property of the child called ``name`` (a string decoded), or default."""
        c = self.child(name)
        if c is None or not c.props:
            return default
        v = c.props[0]
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


@dataclass(frozen=True, slots=True)
class Document:
    version: int
    ascii: bool
    nodes: tuple[Node, ...]


# --- arrays ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BinaryArray:
    """A 7.x array property, not yet decoded."""

    code: str
    count: int
    encoding: int
    stored: int
    offset: int
    data: Any  # the file's buffer
    big_endian: bool

    def decode(self) -> Any:
        import numpy as np

        dtype, size = ARRAY_TYPES[self.code]
        need = self.count * size
        if need > MAX_ARRAY_BYTES:
            raise FbxError("TB092", f"an array of {self.count} '{self.code}' elements ({need} bytes) is over texbudget's limit of {MAX_ARRAY_BYTES}")
        raw = self.data[self.offset : self.offset + self.stored]
        if self.encoding == 0:
            if self.stored != need:
                raise FbxError("TB092", f"a raw array of {self.count} '{self.code}' elements stores {self.stored} bytes, not {need}")
        elif self.encoding == 1:
            if need > self.stored * ZLIB_MAX_RATIO + 64:
                raise FbxError("TB092", f"a zlib array claims {need} bytes from {self.stored} stored, beyond zlib's ratio")
            inflate = zlib.decompressobj()
            try:
                raw = inflate.decompress(raw, need)
            except zlib.error as exc:
                raise FbxError("TB092", f"a zlib array does not inflate: {exc}") from None
            if len(raw) != need:
                raise FbxError("TB092", f"a zlib array inflates to {len(raw)} bytes, not the {need} its {self.count} elements need")
        else:
            raise FbxError("TB092", f"an array has encoding {self.encoding}; FBX knows 0 (raw) and 1 (zlib)")
        out = np.frombuffer(bytes(raw), dtype=np.dtype(dtype).newbyteorder(">" if self.big_endian else "<"))
        return out.astype(dtype) if self.big_endian else out


@dataclass(frozen=True, slots=True)
class ScalarRun:
    """A 6.x binary "array": ``count`` scalar properties in ``data[start:end]``."""

    start: int
    end: int
    count: int
    data: Any
    big_endian: bool

    def decode(self) -> Any:
        import numpy as np

        if self.count == 0:
            return np.zeros(0, dtype="f8")
        code = chr(self.data[self.start])
        scalar = _SCALARS.get(code)
        if scalar is None:
            raise FbxError("TB092", f"a 6.x array holds a '{code}' property; only numbers make an array")
        fmt, size = scalar
        stride = size + 1
        if (self.end - self.start != stride * self.count
                or bytes(self.data[self.start : self.end : stride]) != code.encode() * self.count):
            raise FbxError("TB092", "a 6.x array mixes property types; texbudget reads runs of one type")
        order = ">" if self.big_endian else "<"
        rows = np.frombuffer(bytes(self.data[self.start : self.end]), dtype=np.dtype([("t", "u1"), ("v", order + fmt)]))
        return rows["v"].astype(fmt)


@dataclass(frozen=True, slots=True)
class TextArray:
    """Comma-separated numbers of an ASCII file, in ``data[start:end]``."""

    start: int
    end: int
    data: bytes

    @property
    def count(self) -> int:
        return self.data.count(b",", self.start, self.end) + 1

    def decode(self) -> Any:
        import numpy as np

        if self.count * 8 > MAX_ARRAY_BYTES:
            raise FbxError("TB092", f"an array of {self.count} numbers is over texbudget's limit")
        text = self.data[self.start : self.end]
        parts = text.split(b",")
        try:
            if b"." in text or b"e" in text or b"E" in text:
                return np.array([float(p) for p in parts], dtype="f8")
            return np.array([int(p) for p in parts], dtype="i8")
        except ValueError as exc:
            raise FbxError("TB094", f"an ASCII array holds something that is not a number: {str(exc)[:80]}") from None
        except OverflowError:
            raise FbxError("TB092", "an ASCII array holds an integer beyond 64 bits") from None


def array_of(node: Node | None) -> Any:
    """The decoded numbers of an array node (7.x array property, 6.x run or ASCII), or None."""
    if node is None or not node.props:
        return None
    import numpy as np

    first = node.props[0]
    if isinstance(first, BinaryArray | ScalarRun | TextArray):
        return first.decode()
    if all(isinstance(p, int | float) and not isinstance(p, bool) for p in node.props):
        try:
            return np.array(node.props, dtype="f8" if any(isinstance(p, float) for p in node.props) else "i8")
        except OverflowError:
            raise FbxError("TB092", f"{node.name} holds an integer beyond 64 bits") from None
    raise FbxError("TB092", f"{node.name} is not an array of numbers")


# --- binary ---------------------------------------------------------------------------------


def parse(data: Any) -> Document:
    """The document of a binary or ASCII FBX (``data`` supports len() and slicing)."""
    if len(data) >= len(BINARY_MAGIC) and bytes(data[: len(BINARY_MAGIC)]) == BINARY_MAGIC:
        return _Binary(data).document()
    return _Ascii(bytes(data)).document()


class _Binary:
    __slots__ = ("big", "data", "nodes", "size", "version", "wide")

    def __init__(self, data: Any) -> None:
        self.data = data
        self.size = len(data)
        self.nodes = 0

    def document(self) -> Document:
        data = self.data
        if self.size < HEADER_BYTES:
            raise FbxError("TB090", f"the binary FBX header needs {HEADER_BYTES} bytes; the file has {self.size}")
        self.big = data[22] != 0
        self.version = struct.unpack_from(">I" if self.big else "<I", data, 23)[0]
        if not MIN_VERSION <= self.version <= MAX_VERSION:
            raise FbxError("TB093", f"binary FBX version {self.version}; texbudget reads 6000–7999 (FBX 6.0–7.7)")
        self.wide = self.version >= 7500
        top: list[Node] = []
        pos = HEADER_BYTES
        null = 25 if self.wide else 13
        while True:
            if pos + null > self.size:
                raise FbxError("TB091", f"the top-level node list runs to byte {pos} of {self.size} without its null record (the file is cut short)")
            node, pos, is_null = self._record(pos, self.size, 0, keep=_KEEP_TOP)
            if is_null:
                break
            if node is not None:
                top.append(node)
        return Document(self.version, False, tuple(top))

    def _record(self, pos: int, limit: int, depth: int, keep: frozenset[str] | None) -> tuple[Node | None, int, bool]:
        """The record at ``pos`` (inside ``[pos, limit)``): (node or None when skipped, the
        position after it, whether it was a null record)."""
        data, wide = self.data, self.wide
        head = 25 if wide else 13
        if pos + head > limit:
            raise FbxError("TB091", f"a node record at byte {pos} is cut short by its parent's end at {limit}")
        order = ">" if self.big else "<"
        end, nprops, plen = struct.unpack_from(order + ("QQQ" if wide else "III"), data, pos)
        name_len = data[pos + head - 1]
        if end == 0 and name_len == 0:
            return None, pos + head, True
        start = pos + head + name_len
        if end == 0:  # some writers leave a leaf's end offset 0: it ends after its properties
            end = start + plen
            if end > limit:
                raise FbxError("TB091", f"the node record at byte {pos} has {plen} bytes of properties past its parent's end at {limit}")
        if end <= pos or end > limit:
            raise FbxError("TB091", f"the node record at byte {pos} ends at {end}, outside its parent ({pos}–{limit})")
        if start + plen > end:
            raise FbxError("TB091", f"the node record at byte {pos} has {plen} bytes of properties past its end at {end}")
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise FbxError("TB091", f"more than {MAX_NODES} nodes or {MAX_DEPTH} levels of nesting")
        name = bytes(data[pos + head : start]).decode("utf-8", "replace")
        if keep is not None and name not in keep:
            return None, end, False
        node = Node(name, self._props(start, start + plen, nprops))
        child_keep = _child_keep(name, depth)
        cpos = start + plen
        if cpos < end:
            null = head
            while cpos < end:
                child, cpos, is_null = self._record(cpos, end, depth + 1, child_keep)
                if is_null:
                    break
                if child is not None:
                    node.children.append(child)
            if cpos != end:
                raise FbxError("TB091", f"the children of node {name!r} end at byte {cpos}, not at the record's end {end} (null record {null} bytes)")
        return node, end, False

    def _props(self, pos: int, end: int, count: int) -> list[Any]:
        data = self.data
        if count > EAGER_PROPS:
            return [ScalarRun(pos, end, count, data, self.big)]
        order = ">" if self.big else "<"
        out: list[Any] = []
        for _ in range(count):
            if pos >= end:
                raise FbxError("TB091", f"a property list ends at byte {end} before its {count} properties")
            code = chr(data[pos])
            pos += 1
            scalar = _SCALARS.get(code)
            if scalar is not None:
                fmt, size = scalar
                if pos + size > end:
                    raise FbxError("TB091", f"a '{code}' property at byte {pos - 1} runs past its list's end")
                out.append(struct.unpack_from(order + fmt, data, pos)[0])
                pos += size
            elif code in ("S", "R"):
                if pos + 4 > end:
                    raise FbxError("TB091", f"a '{code}' property at byte {pos - 1} runs past its list's end")
                n = struct.unpack_from(order + "I", data, pos)[0]
                if pos + 4 + n > end:
                    raise FbxError("TB091", f"a '{code}' property of {n} bytes at byte {pos - 1} runs past its list's end at {end}")
                out.append(bytes(data[pos + 4 : pos + 4 + n]))
                pos += 4 + n
            elif code in ARRAY_TYPES:
                if pos + 12 > end:
                    raise FbxError("TB092", f"an array header at byte {pos - 1} runs past its list's end")
                n, encoding, stored = struct.unpack_from(order + "III", data, pos)
                if pos + 12 + stored > end:
                    raise FbxError("TB092", f"an array at byte {pos - 1} stores {stored} bytes, past its list's end at {end}")
                out.append(BinaryArray(code, n, encoding, stored, pos + 12, data, self.big))
                pos += 12 + stored
            else:
                raise FbxError("TB091", f"unknown property type {code!r} at byte {pos - 1}")
        return out


def _child_keep(name: str, depth: int) -> frozenset[str] | None:
    """Which children of a node are kept: under ``Objects`` only KEEP_OBJECTS, else all."""
    if depth == 0 and name == "Objects":
        return KEEP_OBJECTS
    return None


# --- ASCII ----------------------------------------------------------------------------------

_NUM = rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_KEY = re.compile(rb"\s*([A-Za-z0-9_|.\-]+)\s*:")
_RUN = re.compile(_NUM + rb"(?:\s*,\s*" + _NUM + rb")*")
_STRING = re.compile(rb'"([^"]*)"')
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_COUNT = re.compile(rb"\*(\d+)")
_BLANK = re.compile(rb"(?:\s|;[^\n]*)*")
_INLINE = re.compile(rb"[ \t\r]*")
_VERSION_COMMENT = re.compile(rb";\s*FBX\s+(\d+)\.(\d+)\.(\d+)")


class _Ascii:
    __slots__ = ("data", "nodes", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.nodes = 0

    def fail(self, what: str) -> FbxError:
        line = self.data.count(b"\n", 0, self.pos) + 1
        return FbxError("TB094", f"ASCII FBX line {line}: {what}")

    def document(self) -> Document:
        data = self.data
        if not data.strip():
            raise FbxError("TB090", "the file is empty or blank: not an FBX file")
        head = data[:4096]
        top = self._list(0, closing=False)
        found = {n.name for n in top}
        if not found & {"Objects", "FBXHeaderExtension", "Connections"}:
            raise FbxError("TB090", "no FBXHeaderExtension, Objects or Connections section: not an FBX file")
        version = 0
        for n in top:
            if n.name == "FBXHeaderExtension":
                v = n.value("FBXVersion")
                version = v if isinstance(v, int) else 0
        if not version:
            m = _VERSION_COMMENT.search(head)
            if m:
                version = int(m.group(1)) * 1000 + int(m.group(2)) * 100 + int(m.group(3)) * 10
        if not version:
            version = 7400 if any(n.name == "Objects" and any(c.props and isinstance(c.props[0], int) for c in n.children) for n in top) else 6100
        if not MIN_VERSION <= version <= MAX_VERSION:
            raise FbxError("TB093", f"ASCII FBX version {version}; texbudget reads 6000–7999 (FBX 6.0–7.7)")
        return Document(version, True, tuple(n for n in top if n.name in _KEEP_TOP))

    def _list(self, depth: int, closing: bool) -> list[Node]:
        data = self.data
        out: list[Node] = []
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels")
        while True:
            self.pos = _BLANK.match(data, self.pos).end()  # type: ignore[union-attr]
            if self.pos >= len(data):
                if closing:
                    raise self.fail("the file ends inside a { block")
                return out
            if data[self.pos] == ord("}"):
                if not closing:
                    raise self.fail("a } closes no block")
                self.pos += 1
                return out
            m = _KEY.match(data, self.pos)
            if m is None:
                raise self.fail(f"expected 'Name:', found {data[self.pos : self.pos + 20]!r}")
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise self.fail(f"more than {MAX_NODES} nodes")
            self.pos = m.end()
            values = self._values()
            if not values and self.pos < len(data) and data[self.pos] == ord("\n"):
                # 6.x animation keys: "Key:" with its values on the lines below
                after = _BLANK.match(data, self.pos).end()  # type: ignore[union-attr]
                if after < len(data) and data[after] in b'-+.0123456789"' and _KEY.match(data, after) is None:
                    self.pos = after
                    values = self._values()
            node = Node(m.group(1).decode("latin-1"), values)
            if self.pos < len(data) and data[self.pos] == ord("{"):
                self.pos += 1
                node.children = self._list(depth + 1, closing=True)
                if node.props and isinstance(node.props[0], str) and node.props[0].startswith("*"):
                    a = node.child("a")  # 7.x "Name: *N { a: ... }"
                    node.props = a.props if a is not None else []
                    node.children = []
            out.append(node)

    def _values(self) -> list[Any]:
        """The properties after ``Name:``, up to the end of the line (a value list goes on
        over a line that ends with a comma), stopping before a ``{``."""
        data = self.data
        out: list[Any] = []
        while True:
            self.pos = _INLINE.match(data, self.pos).end()  # type: ignore[union-attr]
            if self.pos >= len(data):
                return out
            c = data[self.pos]
            if c in b"\n;":
                after = _BLANK.match(data, self.pos).end()  # type: ignore[union-attr]
                if out and after < len(data) and data[after] == ord(","):
                    self.pos = after  # 6.x: the next line goes on with ",value"
                    continue
                return out
            if c in b"{}":
                return out
            if c == ord('"'):
                m = _STRING.match(data, self.pos)
                if m is None:
                    raise self.fail("a string is not closed")
                out.append(m.group(1).replace(b"&quot;", b'"'))
                self.pos = m.end()
            elif c == ord("*"):
                m = _COUNT.match(data, self.pos)
                if m is None:
                    raise self.fail("a * is not followed by a count")
                out.append("*" + m.group(1).decode())
                self.pos = m.end()
            elif c in b"-+.0123456789":
                m = _RUN.match(data, self.pos)
                if m is None:
                    raise self.fail(f"not a number: {data[self.pos : self.pos + 20]!r}")
                self.pos = m.end()
                run = TextArray(m.start(), m.end(), data)
                if run.count > EAGER_NUMBERS:
                    out.append(run)
                else:
                    out.extend(_number(p) for p in data[m.start() : m.end()].split(b","))
            elif c == ord(","):
                self.pos += 1
                self.pos = _BLANK.match(data, self.pos).end()  # type: ignore[union-attr]  # a list goes on after a comma
            else:
                m = _WORD.match(data, self.pos)
                if m is None:
                    raise self.fail(f"unexpected {data[self.pos : self.pos + 20]!r}")
                out.append(m.group(0))
                self.pos = m.end()


def _number(text: bytes) -> int | float:
    text = text.strip()
    if b"." in text or b"e" in text or b"E" in text:
        return float(text)
    return int(text)
