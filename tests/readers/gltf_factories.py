"""Build glTF 2.0 files in tests: JSON plus struct-packed buffers, written as .gltf with an
external .bin, .gltf with a data: URI buffer, or .glb. Sizes are exactly what the tests say:
every accessor's data is really packed, so the files are valid glTF."""

from __future__ import annotations

import base64
import io
import json
import struct
from pathlib import Path
from typing import Any

FLOAT, UBYTE, USHORT, UINT, BYTE, SHORT = 5126, 5121, 5123, 5125, 5120, 5122
_FMT = {FLOAT: "f", UBYTE: "B", USHORT: "H", UINT: "I", BYTE: "b", SHORT: "h"}
_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def png_bytes(width: int, height: int, mode: str = "RGBA") -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new(mode, (width, height)).save(out, format="PNG")
    return out.getvalue()


class GltfBuilder:
    def __init__(self) -> None:
        self.doc: dict[str, Any] = {"asset": {"version": "2.0", "generator": "texbudget tests"}}
        self.bin = bytearray()

    def _list(self, key: str) -> list:
        return self.doc.setdefault(key, [])

    # --- buffers

    def add_view(self, data: bytes, stride: int | None = None) -> int:
        self._pad()
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            view["byteStride"] = stride
        self.bin += data
        self._list("bufferViews").append(view)
        return len(self.doc["bufferViews"]) - 1

    def add_accessor(self, values: list[float] | None, ctype: int, type_: str, count: int | None = None,
                     view: int | None = None, **extra: Any) -> int:
        """Pack ``values`` into a new bufferView (or point at ``view``, or at none)."""
        n = _COMPONENTS[type_]
        acc: dict[str, Any] = {"componentType": ctype, "type": type_, "count": count if count is not None else len(values) // n}  # type: ignore[arg-type]
        if values is not None:
            acc["bufferView"] = self.add_view(struct.pack(f"<{len(values)}{_FMT[ctype]}", *values))
        elif view is not None:
            acc["bufferView"] = view
        acc.update(extra)
        self._list("accessors").append(acc)
        return len(self.doc["accessors"]) - 1

    def positions(self, n: int) -> int:
        vals = [float(i % 7) for i in range(3 * n)]
        return self.add_accessor(vals, FLOAT, "VEC3", min=[0.0] * 3, max=[6.0] * 3)

    def vec(self, n: int, type_: str, ctype: int = FLOAT) -> int:
        return self.add_accessor([0] * (n * _COMPONENTS[type_]), ctype, type_)

    def indices(self, values: list[int], ctype: int = USHORT) -> int:
        return self.add_accessor(values, ctype, "SCALAR")

    # --- meshes, nodes, scenes

    def add_mesh(self, primitives: list[dict], name: str | None = None) -> int:
        mesh: dict[str, Any] = {"primitives": primitives}
        if name is not None:
            mesh["name"] = name
        self._list("meshes").append(mesh)
        return len(self.doc["meshes"]) - 1

    def add_node(self, **fields: Any) -> int:
        self._list("nodes").append(fields)
        return len(self.doc["nodes"]) - 1

    def add_scene(self, nodes: list[int], default: bool = True) -> int:
        self._list("scenes").append({"nodes": nodes})
        if default:
            self.doc["scene"] = len(self.doc["scenes"]) - 1
        return len(self.doc["scenes"]) - 1

    # --- images, textures, materials

    def add_image_view(self, data: bytes, mime: str = "image/png") -> int:
        self._list("images").append({"bufferView": self.add_view(data), "mimeType": mime})
        return len(self.doc["images"]) - 1

    def add_image_uri(self, uri: str, **extra: Any) -> int:
        self._list("images").append({"uri": uri, **extra})
        return len(self.doc["images"]) - 1

    def add_texture(self, source: int | None, **extensions: Any) -> int:
        tex: dict[str, Any] = {} if source is None else {"source": source}
        if extensions:
            tex["extensions"] = extensions
        self._list("textures").append(tex)
        return len(self.doc["textures"]) - 1

    def add_material(self, **fields: Any) -> int:
        self._list("materials").append(fields)
        return len(self.doc["materials"]) - 1

    # --- writers

    def _pad(self) -> None:
        while len(self.bin) % 4:
            self.bin.append(0)

    def _buffers(self, uri: str | None) -> None:
        self._pad()
        if self.bin:
            buf: dict[str, Any] = {"byteLength": len(self.bin)}
            if uri is not None:
                buf["uri"] = uri
            self.doc["buffers"] = [buf, *self.doc.get("buffers", [])[1:]]

    def json_bytes(self) -> bytes:
        return json.dumps(self.doc).encode()

    def write_gltf(self, path: Path, bin_name: str | None = None) -> Path:
        """A .gltf beside ``bin_name`` (default: the glTF's stem + .bin)."""
        bin_name = bin_name or path.with_suffix(".bin").name
        self._buffers(bin_name)
        path.write_bytes(self.json_bytes())
        if self.bin:
            (path.parent / bin_name).write_bytes(bytes(self.bin))
        return path

    def write_gltf_embedded(self, path: Path) -> Path:
        """A .gltf whose buffer is a base64 data: URI."""
        self._pad()
        self._buffers("data:application/octet-stream;base64," + base64.b64encode(bytes(self.bin)).decode())
        path.write_bytes(self.json_bytes())
        return path

    def glb_bytes(self) -> bytes:
        self._buffers(None)
        js = self.json_bytes()
        js += b" " * (-len(js) % 4)
        body = struct.pack("<II", len(js), 0x4E4F534A) + js
        if self.bin:
            body += struct.pack("<II", len(self.bin), 0x004E4942) + bytes(self.bin)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body

    def write_glb(self, path: Path) -> Path:
        path.write_bytes(self.glb_bytes())
        return path


def triangle_mesh(b: GltfBuilder, vertices: int, index_values: list[int], name: str | None = None,
                  mode: int | None = None, **prim_extra: Any) -> int:
    """A mesh of one primitive: POSITION (f32x3) + NORMAL (f32x3) + indices (u16)."""
    prim: dict[str, Any] = {"attributes": {"POSITION": b.positions(vertices), "NORMAL": b.vec(vertices, "VEC3")}}
    if index_values:
        prim["indices"] = b.indices(index_values)
    if mode is not None:
        prim["mode"] = mode
    prim.update(prim_extra)
    return b.add_mesh([prim], name)
