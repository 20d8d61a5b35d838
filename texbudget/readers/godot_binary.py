"""Godot's binary resource format ("RSRC": ``.scn``, ``.res``, ``.mesh``) as a ``Doc``.

The layout, from Godot's ``core/io/resource_format_binary.cpp`` (format versions 3–6; Godot 3
writes 3, Godot 4 writes 4–6):

- ``RSRC``, then u32 big-endian flag, u32 use-real64, u32 engine major, u32 minor, u32 format;
- the main resource's type (a string: u32 length counting its NUL, then UTF-8), u64 offset of
  import metadata, u32 flags (1 named sub-resource ids, 2 uids, 4 reals are doubles, 8 a script
  class follows), u64 uid (-1: none), the script class string when flag 8 is set, then 11
  reserved u32;
- the string table: u32 count, strings (property names are indices into it);
- external resources: u32 count, each a type string, a path string and (flag 2) a u64 uid;
- internal resources: u32 count, each a path string (``local://ID``) and a u64 file offset;
  the last one is the main resource;
- at each offset: the type string, u32 property count, and per property a name (u32 string
  index, or an inline string when its top bit is set) and a Variant: u32 type id and its
  payload. Packed arrays are a u32 element count and the elements (bytes padded to 4).

A PackedScene's nodes are in its ``_bundled`` dictionary (``scene/resources/packed_scene.cpp``,
``SceneState::set_bundled_scene``): ``names``, ``variants``, and ``nodes``, an int32 array of
per node: parent, owner, type (a name index, 0x7FFFFFFF for a node instanced or inherited),
name index (low 18 bits), instance (a variant index, -1 none; bit 30 a placeholder path),
property count and (name index, variant index) pairs, group count and group name indices.

Every count is checked against the bytes left before it is used, and values nest at most
``MAX_DEPTH`` deep.

``RSCC`` is the compressed form (``core/io/file_access_compressed.cpp``; the editor saves
binary resources so by default, ``filesystem/on_save/compress_binary_resources``): ``RSCC``,
u32 compression mode (``Compression::Mode``: 0 FastLZ, 1 Deflate, 2 Zstandard, the default,
3 gzip, 4 Brotli), u32 block size, u32 uncompressed size, then the compressed size of each of
(size / block size) + 1 blocks (u32 each), then the blocks, every one compressed on its own
and inflating to the block size (the last to the rest). Inflated, they are the file after its
``RSRC`` magic (the saver writes no magic into the compressed stream, and the offsets of the
internal resources count from the stream's start). The blocks are inflated one by one, each
to no more than it must hold; Zstandard needs the
``zstd`` module (Python 3.14's ``compression.zstd``, else ``backports.zstd``). FastLZ (Godot 2)
and Brotli (which Godot only decompresses, for fonts) are refused.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from typing import Any

from texbudget.readers.godot_variant import MAX_DEPTH, Call, Doc, ExtRes, Node, Packed, Ref, Res

#: Format versions this reader knows (Godot 3.x writes 3; 4.0–4.2 write 4 and 5; 4.3+ 6).
KNOWN_FORMATS = range(1, 7)
RESERVED_FIELDS = 11
FLAG_NAMED_SCENE_IDS, FLAG_UIDS, FLAG_REAL_T_IS_DOUBLE, FLAG_HAS_SCRIPT_CLASS = 1, 2, 4, 8
INVALID_UID = 0xFFFFFFFFFFFFFFFF
#: SceneState's packing (packed_scene.h).
NAME_INDEX_BITS = 18
TYPE_INSTANTIATED = 0x7FFFFFFF
FLAG_ID_IS_PATH = 1 << 30
FLAG_INSTANCE_IS_PLACEHOLDER = 1 << 30
FLAG_PROP_NAME_MASK = (1 << 30) - 1
FLAG_MASK = (1 << 24) - 1

#: ResourceUID's text form: base 34, "a".."y" then "0".."8" (resource_uid.cpp).
_UID_CHARS = "abcdefghijklmnopqrstuvwxy012345678"


#: What the reader reads from: the file's bytes, or a read-only mmap of it.
Buffer = bytes | memoryview | mmap.mmap


class BinaryError(ValueError):
    """The binary resource is broken (truncated, an offset or count beyond the file)."""


class UnsupportedError(ValueError):
    """A binary resource texbudget does not read: compressed in a way it cannot inflate, or of
    a newer format."""


#: Compression::Mode of an RSCC file.
COMPRESSION_MODES = {0: "FastLZ", 1: "Deflate", 2: "Zstandard", 3: "gzip", 4: "Brotli"}
#: The largest uncompressed RSCC content inflated (as large as a text resource is read).
MAX_INFLATED_BYTES = 256 * 1024 * 1024


def _zstd() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found,no-redef]
        except ImportError:
            return None
    return zstd


def _inflate_block(block: bytes | memoryview, mode: int, want: int) -> bytes:
    """One RSCC block inflated to at most ``want + 1`` bytes (a longer one is an error)."""
    zstd = _zstd() if mode == 2 else None
    if mode == 2 and zstd is None:
        raise UnsupportedError("a compressed binary resource (RSCC, Zstandard): reading it needs the "
                               "zstd module (`pip install backports.zstd`); its content is not read")
    errors = (zlib.error,) if zstd is None else (zlib.error, zstd.ZstdError)
    try:
        if zstd is not None:
            inflater = zstd.ZstdDecompressor()
            out = inflater.decompress(block, max_length=want + 1)
        else:  # Deflate: a zlib stream (window bits 15); gzip: 15 + 16
            inflater = zlib.decompressobj(15 if mode == 1 else 31)
            out = inflater.decompress(block, want + 1)
    except errors as exc:
        raise BinaryError(f"a compressed block does not inflate ({COMPRESSION_MODES[mode]}: {exc})") from None
    if len(out) != want or not inflater.eof:
        got = f"more than {want:,}" if len(out) > want else f"{len(out):,}"
        raise BinaryError(f"a compressed block inflates to {got} bytes, not the {want:,} its header gives")
    return out


def inflate(buf: Buffer, size: int, limit: int = MAX_INFLATED_BYTES) -> bytes:
    """The content an ``RSCC`` file holds: what an uncompressed file holds after its ``RSRC``
    magic (Godot's loader reads the magic, then the rest through FileAccessCompressed), with
    offsets counted from its start. Raises BinaryError for a broken one, UnsupportedError for
    a compression mode texbudget cannot inflate."""
    if size < 16:
        raise BinaryError(f"the compressed resource's header needs 16 bytes; the file has {size}")
    mode, block_size, total = struct.unpack_from("<III", buf, 4)
    if mode not in (1, 2, 3):
        name = COMPRESSION_MODES.get(mode, f"unknown mode {mode}")
        raise UnsupportedError(f"a compressed binary resource (RSCC, {name}): its content is not read")
    if block_size == 0:
        raise BinaryError("the compressed resource's block size is 0")
    if total > limit:
        raise BinaryError(f"the compressed resource claims {total:,} bytes uncompressed, more than texbudget inflates ({limit:,})")
    blocks = total // block_size + 1
    if 16 + 4 * blocks > size:
        raise BinaryError(f"the compressed resource lists {blocks:,} blocks; the {size:,}-byte file cannot hold their sizes")
    sizes = struct.unpack_from(f"<{blocks}I", buf, 16)
    at = 16 + 4 * blocks
    if at + sum(sizes) > size:
        raise BinaryError(f"the compressed blocks need {at + sum(sizes):,} bytes; the file has {size:,}")
    out = bytearray()
    view = memoryview(buf)
    try:
        for i, csize in enumerate(sizes):
            want = block_size if i < blocks - 1 else total - block_size * (blocks - 1)
            if want:
                out += _inflate_block(view[at:at + csize], mode, want)
            at += csize
    finally:
        view.release()
    return bytes(out)


def uid_text(uid: int) -> str:
    """``uid://…`` for a binary uid (ResourceUID::id_to_text); "" for none."""
    if uid == INVALID_UID or uid < 0:
        return ""
    uid &= 0x7FFFFFFFFFFFFFFF
    digits = []
    while True:
        uid, c = divmod(uid, len(_UID_CHARS))
        digits.append(_UID_CHARS[c])
        if not uid:
            break
    return "uid://" + "".join(reversed(digits))


#: Variant ids (resource_format_binary.cpp) with a fixed payload: name -> (real count, 32-bit count).
_FIXED: dict[int, tuple[str, int, int]] = {
    10: ("Vector2", 2, 0), 11: ("Rect2", 4, 0), 12: ("Vector3", 3, 0), 13: ("Plane", 4, 0),
    14: ("Quaternion", 4, 0), 15: ("AABB", 6, 0), 16: ("Basis", 9, 0), 17: ("Transform3D", 12, 0),
    18: ("Transform2D", 6, 0), 20: ("Color", 0, 4), 45: ("Vector2i", 0, 2), 46: ("Rect2i", 0, 4),
    47: ("Vector3i", 0, 3), 50: ("Vector4", 4, 0), 51: ("Vector4i", 0, 4), 52: ("Projection", 16, 0),
}
#: Packed arrays: id -> (name, bytes per element; 0: reals, counted by ``_PACKED_REALS``).
_PACKED: dict[int, tuple[str, int]] = {
    31: ("PackedByteArray", 1), 32: ("PackedInt32Array", 4), 33: ("PackedFloat32Array", 4),
    35: ("PackedVector3Array", 0), 36: ("PackedColorArray", 16), 37: ("PackedVector2Array", 0),
    48: ("PackedInt64Array", 8), 49: ("PackedFloat64Array", 8), 53: ("PackedVector4Array", 0),
}
_PACKED_REALS = {35: 3, 37: 2, 53: 4}


class _Reader:
    """Bounded reads over a buffer (bytes, or a read-only mmap)."""

    __slots__ = ("buf", "e", "internal_ids", "named", "pos", "real", "size", "strings", "ver_format")

    def __init__(self, buf: Buffer, size: int) -> None:
        self.buf = buf
        self.size = size
        self.pos = 0
        self.e = "<"
        self.real = 4
        self.strings: list[str] = []
        self.ver_format = 0
        self.internal_ids: list[str] = []
        self.named = False

    def need(self, n: int, what: str) -> int:
        if n < 0 or self.pos + n > self.size:
            raise BinaryError(f"the file ends inside {what} (at byte {self.pos}, {n} bytes needed, {self.size - self.pos} left)")
        at = self.pos
        self.pos += n
        return at

    def u32(self, what: str) -> int:
        return struct.unpack_from(self.e + "I", self.buf, self.need(4, what))[0]

    def i32(self, what: str) -> int:
        return struct.unpack_from(self.e + "i", self.buf, self.need(4, what))[0]

    def u64(self, what: str) -> int:
        return struct.unpack_from(self.e + "Q", self.buf, self.need(8, what))[0]

    def string(self, what: str) -> str:
        length = self.u32(what)
        at = self.need(length, what)
        raw = bytes(self.buf[at:at + length])
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")

    def count(self, what: str, min_bytes: int) -> int:
        """A u32 count whose items take at least ``min_bytes`` each: refused when the bytes
        left cannot hold them (nothing is ever sized from a count)."""
        n = self.u32(what)
        if n * min_bytes > self.size - self.pos:
            raise BinaryError(f"{what} claims {n} entries; the {self.size - self.pos} bytes left cannot hold them")
        return n

    def name(self, what: str) -> str:
        """A property or node-path name: a string-table index, or inline when bit 31 is set."""
        ident = self.u32(what)
        if ident & 0x80000000:
            length = ident & 0x7FFFFFFF
            at = self.need(length, what)
            return bytes(self.buf[at:at + length]).split(b"\0", 1)[0].decode("utf-8", "replace")
        if ident >= len(self.strings):
            raise BinaryError(f"{what}: string index {ident} beyond the table of {len(self.strings)}")
        return self.strings[ident]

    def variant(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise BinaryError(f"values nested deeper than {MAX_DEPTH}")
        kind = self.u32("a value's type")
        if kind == 1:
            return None
        if kind in (2, 3):
            value = self.i32("an integer")
            return bool(value) if kind == 2 else value
        if kind == 40:
            return struct.unpack_from(self.e + "q", self.buf, self.need(8, "an integer"))[0]
        if kind == 4:
            return struct.unpack_from(self.e + ("d" if self.real == 8 else "f"), self.buf, self.need(self.real, "a float"))[0]
        if kind == 41:
            return struct.unpack_from(self.e + "d", self.buf, self.need(8, "a float"))[0]
        if kind in (5, 44):
            return self.string("a string")
        fixed = _FIXED.get(kind)
        if fixed is not None:
            self.need(fixed[1] * self.real + fixed[2] * 4, fixed[0])
            return Call(fixed[0])
        packed = _PACKED.get(kind)
        if packed is not None:
            return self.packed(kind, *packed)
        if kind == 24:
            return self.object()
        if kind == 26:
            out: dict = {}
            for _ in range(self.count("a dictionary", 8) & 0x7FFFFFFF):
                key = self.variant(depth + 1)
                try:
                    out[key] = self.variant(depth + 1)
                except TypeError:  # an unhashable key
                    out[repr(key)] = self.variant(depth + 1)
            return out
        if kind == 30:
            return [self.variant(depth + 1) for _ in range(self.count("an array", 4) & 0x7FFFFFFF)]
        if kind == 34:
            strings = tuple(self.string("a string") for _ in range(self.count("a string array", 4)))
            return Packed("PackedStringArray", len(strings), strings)
        if kind == 22:
            names = struct.unpack_from(self.e + "HH", self.buf, self.need(4, "a node path"))
            total = names[0] + (names[1] & 0x7FFF) + (1 if self.ver_format < 3 else 0)
            parts = [self.name("a node path name") for _ in range(total)]
            return Call("NodePath", ("/".join(parts[:names[0]]),))
        if kind == 23:
            self.need(4, "an RID")
            return Call("RID")
        if kind in (42, 43):
            return Call("Callable" if kind == 42 else "Signal")
        raise BinaryError(f"unknown value type {kind} at byte {self.pos - 4}")

    def packed(self, kind: int, name: str, size: int) -> Packed:
        n = self.u32(name)
        if size == 0:
            size = _PACKED_REALS[kind] * self.real
        if n * size > self.size - self.pos:
            raise BinaryError(f"{name} claims {n} elements; the {self.size - self.pos} bytes left cannot hold them")
        at = self.need(n * size, name)
        data = None
        if kind == 32:  # scene node tables: kept, as bytes, to decode when needed
            data = bytes(self.buf[at:at + n * 4])
        if kind == 31 and n % 4:
            self.need(min(4 - n % 4, self.size - self.pos), name)  # padding (absent at the end of a cut file)
        return Packed(name, n, data)

    def object(self) -> Any:
        kind = self.u32("an object reference")
        if kind == 0:
            return None
        if kind == 1:  # the old form: a type and a path
            self.string("a resource type")
            return Ref("path", self.string("a resource path"))
        if kind == 2:  # named ids (flag 1): a position in the list; else the N of "local://N"
            index = self.u32("a sub-resource index")
            if not self.named:
                return Ref("sub", str(index))
            return Ref("sub", self.internal_ids[index] if index < len(self.internal_ids) else f"#{index}")
        if kind == 3:
            return Ref("ext", str(self.u32("an external resource index")))
        raise BinaryError(f"unknown object reference kind {kind}")


def inflate_first_block(head: bytes) -> bytes:
    """The first block of an ``RSCC`` file, inflated, from the file's first bytes (it holds the
    header: the uid); ``b""`` when they do not hold the whole block or it does not inflate."""
    if len(head) < 20 or head[:4] != b"RSCC":
        return b""
    mode, block_size, total = struct.unpack_from("<III", head, 4)
    if block_size == 0 or mode not in (1, 2, 3):
        return b""
    blocks = total // block_size + 1
    at = 16 + 4 * blocks
    if at > len(head):
        return b""
    csize = struct.unpack_from("<I", head, 16)[0]
    if at + csize > len(head):
        return b""
    try:
        return _inflate_block(head[at:at + csize], mode, min(block_size, total))
    except (BinaryError, UnsupportedError):
        return b""


def read_doc(buf: Buffer, size: int) -> Doc:
    """The document of a binary resource held in ``buf`` (``size`` bytes). Raises
    BinaryError for a broken file, UnsupportedError for one texbudget does not read."""
    magic = bytes(buf[:4])
    start = 4
    if magic == b"RSCC":  # the stream after the magic is the file after "RSRC": offsets count from its start
        buf = inflate(buf, size)
        size, start = len(buf), 0
    elif magic != b"RSRC":
        raise BinaryError(f"not a Godot binary resource: it starts with {magic!r}, not RSRC")
    r = _Reader(buf, size)
    r.pos = start
    big_endian = r.u32("the header")
    r.e = ">" if big_endian else "<"
    r.u32("the header")  # use_real64: the writer's own precision; the flag below says what was written
    major, minor, ver_format = r.u32("the header"), r.u32("the header"), r.u32("the header")
    r.ver_format = ver_format
    if ver_format not in KNOWN_FORMATS or major > 4:
        raise UnsupportedError(f"binary resource format {ver_format} of Godot {major}.{minor}; texbudget reads formats 1–6 (Godot 3 and 4)")
    main_type = r.string("the main resource's type")
    r.u64("the header")  # import metadata offset
    flags = r.u32("the header")
    uid = r.u64("the header")
    if flags & FLAG_REAL_T_IS_DOUBLE:
        r.real = 8
    r.named = bool(flags & FLAG_NAMED_SCENE_IDS)
    script_class = flags & FLAG_HAS_SCRIPT_CLASS and ver_format >= 5
    if script_class:
        r.string("the script class")
    r.need(RESERVED_FIELDS * 4, "the header")
    r.strings = [r.string("the string table") for _ in range(r.count("the string table", 4))]
    doc = Doc(kind="scene" if main_type == "PackedScene" else "resource", type=main_type,
              uid=uid_text(uid) if flags & FLAG_UIDS else "", format=ver_format)
    for i in range(r.count("the external resources", 8)):
        ext_type, path = r.string("an external resource"), r.string("an external resource")
        ext_uid = uid_text(r.u64("an external resource")) if flags & FLAG_UIDS else ""
        doc.ext[str(i)] = ExtRes(type=ext_type, path=path, uid=ext_uid)
    internal: list[tuple[str, int]] = []
    for _ in range(r.count("the internal resources", 12)):
        path = r.string("an internal resource")
        internal.append((path.removeprefix("local://"), r.u64("an internal resource")))
    r.internal_ids = [ident for ident, _ in internal]
    if not internal:
        raise BinaryError("the file lists no internal resource (it holds no main resource)")
    for n, (ident, offset) in enumerate(internal):
        if offset >= size:
            raise BinaryError(f"internal resource {ident} lies at byte {offset}, past the end of the {size}-byte file")
        r.pos = offset
        res_type = r.string("an internal resource's type")
        props: dict[str, Any] = {}
        for _ in range(r.count("an internal resource's properties", 8)):
            key = r.name("a property name")
            props[key] = r.variant(0)
        if n == len(internal) - 1:
            doc.main = Res(type=res_type, id="", props=props)
        else:
            doc.subs.append(Res(type=res_type, id=ident, props=props))
    if doc.kind == "scene" and doc.main is not None:
        bundled = doc.main.props.get("_bundled")
        if isinstance(bundled, dict):
            _scene_nodes(doc, bundled)
        else:
            doc.notes.append("the PackedScene holds no _bundled scene data; its nodes were not read")
    return doc


def _ints(value: object) -> list[int]:
    if isinstance(value, Packed) and isinstance(value.data, bytes):
        return list(struct.unpack(f"<{value.length}i", value.data))
    return []


def _scene_nodes(doc: Doc, bundled: dict) -> None:
    """``doc.nodes`` from a binary PackedScene's ``_bundled`` (text-like parents: "." for a
    child of the root, "A/B" below it)."""
    names_v, variants = bundled.get("names"), bundled.get("variants")
    names = list(names_v.data) if isinstance(names_v, Packed) and isinstance(names_v.data, tuple) else []
    variants = variants if isinstance(variants, list) else []
    paths_v = bundled.get("node_paths")
    node_paths = [c.args[0] if isinstance(c, Call) and c.args else "" for c in paths_v] if isinstance(paths_v, list) else []
    base = bundled.get("base_scene")
    if isinstance(base, int) and 0 <= base < len(variants):
        doc.base_scene = variants[base]
    ints = _ints(bundled.get("nodes"))
    count = bundled.get("node_count")
    if not isinstance(count, int) or count < 0 or count * 6 > len(ints):
        doc.notes.append(f"the scene's node table is inconsistent (node_count {count!r}, {len(ints)} integers); its nodes were not read")
        return

    def name_of(index: int) -> str | None:
        return names[index] if 0 <= index < len(names) else None

    def variant_of(index: int) -> object:
        return variants[index] if 0 <= index < len(variants) else None

    built: list[tuple[str, str]] = []  # (path from the root, name) per node
    i = 0
    try:
        for _ in range(count):
            parent, _owner, type_index, name_index, instance, nprops = ints[i:i + 6]
            i += 6
            props: dict[str, object] = {}
            for _ in range(nprops):
                key, value = ints[i], ints[i + 1]
                i += 2
                key_name = name_of(key & FLAG_PROP_NAME_MASK)
                if key_name is not None:
                    props[key_name] = variant_of(value)
            i += 1 + ints[i]  # groups
            name = name_of(name_index & ((1 << NAME_INDEX_BITS) - 1)) or f"node{len(built)}"
            if parent < 0 or parent == TYPE_INSTANTIATED:
                parent_text, path = None, name
            elif parent & FLAG_ID_IS_PATH:
                k = parent & FLAG_MASK
                parent_text = node_paths[k] if k < len(node_paths) else "."
                root = built[0][0] if built else ""
                path = f"{root}/{parent_text}/{name}" if parent_text not in ("", ".") else f"{root}/{name}"
            elif parent < len(built):
                parent_path = built[parent][0]
                root = built[0][0]
                parent_text = "." if parent == 0 else parent_path.removeprefix(root + "/")
                path = f"{parent_path}/{name}"
            else:
                doc.notes.append(f"node {name!r} names parent {parent}, which comes after it; its parent was dropped")
                parent_text, path = ".", name
            built.append((path, name))
            ref: object = None
            placeholder = ""
            if instance >= 0:
                target = variant_of(instance & FLAG_MASK)
                if instance & FLAG_INSTANCE_IS_PLACEHOLDER:
                    placeholder = target if isinstance(target, str) else ""
                else:
                    ref = target if isinstance(target, Ref) else None
            node_type = "" if type_index == TYPE_INSTANTIATED else (name_of(type_index) or "")
            doc.nodes.append(Node(name=name, type=node_type, parent=parent_text, instance=ref, props=props,
                                  placeholder=placeholder))
    except (IndexError, ValueError):
        doc.notes.append(f"the scene's node table ends inside node {len(built)} of {count}; the rest were not read")
