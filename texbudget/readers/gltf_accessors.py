"""A glTF's buffers, bufferViews and accessors, checked, never read.

A .bin's size (stat) is checked against its declared byteLength, bufferViews against their
buffer, accessors against their bufferView (byteStride and matrix column padding included).
A data: URI buffer is base64-checked (bounded by the JSON cap). An accessor's bytes are its
typed-array length, ``count × components × component size`` (glTF-Transform's
``getArray().byteLength``; a bufferView's byteStride does not change it). A view that lies past
its buffer's data makes the accessors in it unusable (the mesh is not priced); a buffer that is
missing or refused is a finding, and its accessors are still priced from their declarations.
EXT_meshopt_compression (and KHR_meshopt_compression): a view's own range is the decoded
data, the extension's the compressed one; both are checked.
"""

from __future__ import annotations

import msgspec

from texbudget.readers.gltf_container import (
    MAX_ACCESSOR_COUNT,
    MAX_IMAGE_BYTES,
    Broken,
    Context,
    at_least,
    index,
    required,
)
from texbudget.readers.gltf_schema import Buffer, BufferView
from texbudget.readers.gltf_uris import Resolver

COMPONENT_TYPES: dict[int, tuple[str, int]] = {
    5120: ("BYTE", 1),
    5121: ("UNSIGNED_BYTE", 1),
    5122: ("SHORT", 2),
    5123: ("UNSIGNED_SHORT", 2),
    5125: ("UNSIGNED_INT", 4),
    5126: ("FLOAT", 4),
}
#: accessor type -> (components, columns); matrices pad each column to 4 bytes in a buffer.
TYPES: dict[str, tuple[int, int]] = {
    "SCALAR": (1, 1), "VEC2": (2, 1), "VEC3": (3, 1), "VEC4": (4, 1),
    "MAT2": (4, 2), "MAT3": (9, 3), "MAT4": (16, 4),
}
#: (type, componentType) -> (component name, components, bytes of one element, bytes of one
#: element in a buffer, matrix columns padded), worked out once for the 42 valid pairs.
_LAYOUTS: dict[tuple[str | None, int | None], tuple[str, int, int, int]] = {
    (type_name, ctype): (name, components, components * size,
                         columns * ((components // columns * size + 3) // 4 * 4) if columns > 1 else components * size)
    for type_name, (components, columns) in TYPES.items()
    for ctype, (name, size) in COMPONENT_TYPES.items()
}


def _bad_layout(i: int, ctype: int | None, type_name: str | None) -> Broken:
    """The finding of an accessor whose componentType or type is not glTF's."""
    where = f"accessor {i}"
    at_least(required(ctype, "componentType", where), "componentType", where, 0)
    if ctype not in COMPONENT_TYPES:
        return Broken("TB073", f"{where}: componentType {ctype} is not a glTF component type")
    return Broken("TB073", f"{where}: type {str(type_name)[:20]!r} is not SCALAR, VEC2–4 or MAT2–4")


class BufferData(msgspec.Struct, gc=False):
    """Where a buffer's bytes are. ``kind``: "glb" (the GLB's BIN chunk, at ``glb_offset``),
    "file" (``rel``, relative to the root), "data" (a data: URI's decoded ``data``),
    "fallback" (EXT_meshopt_compression's: no data, never read) or "missing"."""

    declared: int
    kind: str
    available: int | None = None  # bytes that exist (None: unknown / not available)
    rel: str | None = None
    data: bytes | None = None
    glb_offset: int = 0


class Declared(msgspec.Struct, gc=False):
    """An accessor's declaration, checked: its fields after ``name`` are an AttributeFacts'."""

    component_type: str
    components: int
    count: int
    bytes: int
    normalized: bool
    meshopt: bool


class Layout:
    """The buffers, views and accessors of one file. A bufferView's values are read from the
    document once ``read_views`` has checked them (its ``buffer`` and ``byteLength`` are set);
    its state is in ``states``: "ok", "nodata" (its buffer is not available: declarations are
    still priced) or "broken" (past its buffer's data: its accessors are unusable)."""

    __slots__ = ("_image_bytes", "accessors", "buffers", "checked", "ctx", "meshopt", "meshopt_views", "n_views", "states",
                 "views")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.accessors = ctx.doc.accessors or []
        self.buffers: list[BufferData] = []
        self.views: list[BufferView] = ctx.doc.buffer_views or []
        self.n_views = len(self.views)
        self.states: list[str] = []  # per view, once checked
        self.meshopt = False  # a view is meshopt-compressed (else no accessor is)
        self.meshopt_views: set[int] = set()
        self.checked: dict[int, Declared | None] = {}  # accessor -> ``accessor(i)``, once asked
        self._image_bytes = 0  # bytes of embedded images read so far

    # --- buffers

    def read_buffers(self, resolver: Resolver, bin_chunk: tuple[int, int] | None) -> None:
        for i, buf in enumerate(self.ctx.doc.buffers or ()):
            where = f"buffer {i}"
            declared = buf.byte_length
            if declared is None or declared < 1:
                declared = at_least(required(declared, "byteLength", where), "byteLength", where, 1)
            uri = buf.uri
            if uri is None:
                entry = self._without_uri(i, buf, declared, bin_chunk)
            elif uri.startswith("data:"):
                data = resolver.data(uri, where)
                entry = BufferData(declared=declared, kind="data", available=None if data is None else len(data), data=data)
            else:
                rel = resolver.resolve(uri, where)
                if rel is None:
                    entry = BufferData(declared=declared, kind="missing")
                else:
                    root = self.ctx.src.root
                    assert root is not None  # resolve found the file under it
                    size = (root / rel).stat().st_size
                    entry = BufferData(declared=declared, kind="file", available=size, rel=rel)
            if entry.available is not None and entry.available < declared and entry.kind != "glb":
                holder = "its data" if entry.kind == "data" else entry.rel
                self.ctx.note("TB076", f"{where} declares {declared} bytes, but {holder} holds {entry.available}")
            self.buffers.append(entry)

    def _without_uri(self, i: int, buf: Buffer, declared: int, bin_chunk: tuple[int, int] | None) -> BufferData:
        if i == 0 and bin_chunk is not None:
            offset, length = bin_chunk
            if length < declared:
                self.ctx.note("TB076", f"buffer 0 declares {declared} bytes, but the GLB's BIN chunk holds {length}")
            return BufferData(declared=declared, kind="glb", available=length, glb_offset=offset)
        ext = buf.extensions
        meshopt = None if ext is None else ext.ext_meshopt or ext.khr_meshopt
        if meshopt is not None and meshopt.fallback is True:
            return BufferData(declared=declared, kind="fallback")
        why = "the GLB has no BIN chunk" if (i == 0 and bin_chunk is None and self.ctx.src.suffix == ".glb") else "it has no uri"
        self.ctx.note("TB073", f"buffer {i} has no data: {why}")
        return BufferData(declared=declared, kind="missing")

    # --- views

    def read_views(self) -> None:
        buffers, states = self.buffers, self.states
        n_buffers = len(buffers)
        for k, view in enumerate(self.views):
            # (each value's message is written only when it is wrong)
            b = view.buffer
            if b is None or not 0 <= b < n_buffers:
                b = index(required(b, "buffer", f"bufferView {k}"), f"bufferView {k}: 'buffer'", n_buffers, "buffer")
            offset = view.byte_offset or 0
            if offset < 0:
                at_least(offset, "byteOffset", f"bufferView {k}", 0)
            length = view.byte_length
            if length is None or length < 1:
                length = at_least(required(length, "byteLength", f"bufferView {k}"), "byteLength", f"bufferView {k}", 1)
            stride = view.byte_stride  # 0 is no stride
            if stride and not 4 <= stride <= 252:
                at_least(stride, "byteStride", f"bufferView {k}", 0)
                raise Broken("TB073", f"bufferView {k}: byteStride {stride} is outside 4–252")
            ext = view.extensions
            if ext is None or (meshopt := ext.ext_meshopt or ext.khr_meshopt) is None:
                buf = buffers[b]
                end = offset + length
                if end > buf.declared:
                    state = self._past(b, offset, length, k)
                else:
                    available = buf.available
                    state = "nodata" if available is None else "broken" if end > available else "ok"
                states.append(state)
                continue
            # The view's own range is the decoded data; the compressed range is the extension's.
            where = f"bufferView {k} EXT_meshopt_compression"
            mb = index(required(meshopt.buffer, "buffer", where), f"{where}: 'buffer'", n_buffers, "buffer")
            m_off = at_least(meshopt.byte_offset or 0, "byteOffset", where, 0)
            m_len = at_least(required(meshopt.byte_length, "byteLength", where), "byteLength", where, 1)
            state = self._range_state(mb, m_off, m_len, k, " (compressed data)")
            if buffers[b].kind != "fallback" and state == "ok":
                state = self._range_state(b, offset, length, k)
            states.append(state)
            self.meshopt_views.add(k)
            self.meshopt = True

    def _past(self, b: int, offset: int, length: int, k: int, what: str = "") -> str:
        """A view past its buffer's declared bytes: TB076, and it is broken."""
        self.ctx.note("TB076", f"bufferView {k}{what} covers bytes {offset}–{offset + length} of buffer {b}, which declares {self.buffers[b].declared}")
        return "broken"

    def _range_state(self, b: int, offset: int, length: int, k: int, what: str = "") -> str:
        buf = self.buffers[b]
        end = offset + length
        if end > buf.declared:
            return self._past(b, offset, length, k, what)
        if buf.available is None:
            return "nodata"
        if end > buf.available:
            return "broken"  # the short buffer has its own finding
        return "ok"

    # --- accessors

    def accessor(self, i: int) -> Declared | None:
        """Accessor ``i`` (an index checked by the caller), checked once; None (with its
        finding, once) when it cannot be priced."""
        checked = self.checked
        if i in checked:
            return checked[i]
        acc = self.accessors[i]
        try:
            layout = _LAYOUTS.get((acc.type, acc.component_type))
            if layout is None:
                raise _bad_layout(i, acc.component_type, acc.type)
            name, components, size, element = layout
            count = acc.count
            if not (count and 0 < count <= MAX_ACCESSOR_COUNT):
                where = f"accessor {i}"
                at_least(required(count, "count", where), "count", where, 1)
                raise Broken("TB078", f"{where}: count {count} is beyond {MAX_ACCESSOR_COUNT}; not priced")
            v = acc.buffer_view
            if v is None:
                meshopt = False
            else:
                if not 0 <= v < self.n_views:
                    index(v, f"accessor {i}: 'bufferView'", self.n_views, "bufferView")
                if self.states[v] == "broken":
                    checked[i] = None
                    return None  # the view's finding says why
                meshopt = self.meshopt and v in self.meshopt_views
                view = self.views[v]
                length = view.byte_length
                assert length is not None  # read_views checked it
                offset = acc.byte_offset or 0
                if offset < 0:
                    at_least(offset, "byteOffset", f"accessor {i}", 0)
                stride = view.byte_stride or element  # 0 is no stride
                need = offset + (count - 1) * stride + element
                if need > length:
                    raise Broken("TB077", f"accessor {i} needs {need} bytes of bufferView {v} (offset {offset} + {count} × {stride}-byte stride), which holds {length}")
        except Broken as exc:
            self.ctx.note(exc.code, exc.message)
            checked[i] = None
            return None
        found = checked[i] = Declared(component_type=name, components=components, count=count, bytes=count * size,
                                      normalized=acc.normalized is True, meshopt=meshopt)
        return found

    def instances(self, attributes: dict[str, int], where: str) -> int:
        """EXT_mesh_gpu_instancing: the count of its first attribute's accessor (1 when it is
        unusable or there is none)."""
        n_accessors = len(self.accessors)
        for name, i in attributes.items():
            acc = self.accessor(index(i, f"{where}: '{name}'", n_accessors, "accessor"))
            return acc.count if acc is not None else 1
        return 1

    # --- bytes of a view (embedded images)

    def view_bytes(self, v: int, where: str) -> bytes | None:
        """The bytes of view ``v`` (an index checked by the caller), read for an embedded
        image; None (with a finding when the caps refuse it) when they cannot be read."""
        if self.states[v] != "ok" or v in self.meshopt_views:
            return None
        view = self.views[v]
        b, length, offset = view.buffer, view.byte_length, view.byte_offset or 0
        assert b is not None and length is not None  # read_views checked them
        note = self.ctx.note
        if length > MAX_IMAGE_BYTES:
            note("TB078", f"{where} is {length} bytes; texbudget reads embedded images up to {MAX_IMAGE_BYTES}")
            return None
        # Images that share or overlap bufferViews could make a small file read terabytes:
        # all embedded images together may not need more bytes than the buffers hold.
        held = sum(buf.available or 0 for buf in self.buffers)
        if self._image_bytes + length > held:
            note("TB078", f"{where}: the embedded images so far need {self._image_bytes + length} bytes, more than the file's buffers hold ({held}); they overlap, and this one was not read")
            return None
        self._image_bytes += length
        buf = self.buffers[b]
        if buf.kind == "data":
            assert buf.data is not None
            return buf.data[offset : offset + length]
        src = self.ctx.src
        if buf.kind == "glb":
            start = buf.glb_offset + offset
            f = src.open()
        else:
            assert buf.rel is not None and src.root is not None
            start = offset
            f = open(src.root / buf.rel, "rb")  # noqa: SIM115 (closed by the with below)
        with f:
            f.seek(start)
            data = f.read(length)
        if len(data) != length:
            note("TB005", f"{where}: expected {length} bytes at offset {start}, got {len(data)} (the file changed while read)")
            return None
        return data
