"""A test-side FBX writer: binary (6.1 scalar-run arrays, 7.4 32-bit and 7.5+ 64-bit records,
raw or zlib arrays) and ASCII (6.1 inline values, 7.x ``*N { a: }`` arrays), from one scene
description, written from the layout the format's public descriptions give (Blender's 2013
binary specification, the fbx-book), not from any reader's code.

``Scene`` holds meshes (control points, polygons, layer elements, material per polygon,
the Models that use them), materials, textures (file names, the material slot), skins and
blend shapes; ``scene.binary(version)`` / ``scene.ascii(version)`` write it. ``binary``
returns the bytes; ``binary_fields`` also the offsets of every record's header fields and
every array's header (for the robustness seeds).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

MAGIC = b"Kaydara FBX Binary  \x00"


@dataclass
class N:
    """One node: ``props`` are (type code, value): "L" i64, "I" i32, "D" f64, "S" string,
    "C" bool, "i"/"d"/"l"/"f" arrays (lists), "bytes" a property's bytes as given."""

    name: str
    props: list[tuple[str, Any]] = field(default_factory=list)
    children: list[N] = field(default_factory=list)


_SCALAR = {"Y": "h", "C": "?", "I": "i", "F": "f", "D": "d", "L": "q"}
_ARRAY = {"f": "f", "d": "d", "l": "q", "i": "i", "b": "?", "c": "B"}


class _BinaryWriter:
    def __init__(self, version: int, compress: bool, big_endian: bool = False) -> None:
        self.version = version
        self.wide = version >= 7500
        self.compress = compress
        self.o = ">" if big_endian else "<"
        self.out = bytearray(MAGIC + b"\x1a" + bytes([big_endian]) + struct.pack(self.o + "I", version))
        self.fields: list[tuple[str, int, str]] = [("version", 23, self.o + "I")]

    def prop(self, code: str, value: Any, where: str) -> bytes:
        if code == "bytes":  # a property written as given (hostile tests)
            return value
        if code in _SCALAR:
            return code.encode() + struct.pack(self.o + _SCALAR[code], value)
        if code in ("S", "R"):
            raw = value if isinstance(value, bytes) else value.encode()
            return code.encode() + struct.pack(self.o + "I", len(raw)) + raw
        fmt = _ARRAY[code]
        raw = struct.pack(f"{self.o}{len(value)}{fmt}", *value)
        encoding = 0
        if self.compress and len(raw) > 16:
            raw, encoding = zlib.compress(raw), 1
        return code.encode() + struct.pack(self.o + "III", len(value), encoding, len(raw)) + raw

    def node(self, n: N, path: str) -> None:
        out = self.out
        start = len(out)
        head = 25 if self.wide else 13
        fmt = self.o + ("QQQ" if self.wide else "III")
        out += bytes(head - 1) + bytes([len(n.name)]) + n.name.encode()
        props = n.props
        if self.version < 7000:  # 6.x arrays: one scalar property per value
            expanded: list[tuple[str, Any]] = []
            for code, value in props:
                if code in _ARRAY:
                    expanded += [("D" if code in "df" else "I" if code == "i" else "L", v) for v in value]
                else:
                    expanded.append((code, value))
            props = expanded
        prop_start = len(out)
        for k, (code, value) in enumerate(props):
            pos = len(out)
            out += self.prop(code, value, path)
            if code in _ARRAY and self.version >= 7000:
                self.fields += [(f"{path}.array{k}.count", pos + 1, self.o + "I"), (f"{path}.array{k}.encoding", pos + 5, self.o + "I"),
                                (f"{path}.array{k}.stored", pos + 9, self.o + "I")]
        prop_len = len(out) - prop_start
        for c in n.children:
            self.node(c, f"{path}/{c.name}")
        if n.children:
            out += bytes(head)
        struct.pack_into(fmt, out, start, len(out), len(props), prop_len)
        size = 8 if self.wide else 4
        self.fields += [(f"{path}.end", start, fmt[:1] + fmt[1]), (f"{path}.nprops", start + size, fmt[:1] + fmt[1]),
                        (f"{path}.plen", start + 2 * size, fmt[:1] + fmt[1]), (f"{path}.name_len", start + head - 1, "B")]

    def document(self, nodes: list[N]) -> bytes:
        for n in nodes:
            self.node(n, n.name)
        self.out += bytes(25 if self.wide else 13)
        self.out += bytes(16) + struct.pack("<I", 0) + struct.pack("<I", self.version) + bytes(120) + bytes(16)
        return bytes(self.out)


def write_binary(nodes: list[N], version: int = 7400, compress: bool = True, big_endian: bool = False) -> tuple[bytes, list[tuple[str, int, str]]]:
    w = _BinaryWriter(version, compress, big_endian)
    return w.document(nodes), w.fields


def _ascii_value(code: str, value: Any) -> str:
    if code in ("S", "R"):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        return '"' + text.replace('"', "&quot;") + '"'
    if code in ("D", "F"):
        return repr(float(value))
    if code == "C":
        return "T" if value else "F"
    return str(int(value))


def write_ascii(nodes: list[N], version: int = 7400) -> bytes:
    lines = [f"; FBX {version // 1000}.{version // 100 % 10}.{version // 10 % 10} project file", "; written by texbudget's tests", ""]

    def emit(n: N, depth: int) -> None:
        pad = "\t" * depth
        arrays = [(c, v) for c, v in n.props if c in _ARRAY]
        if arrays and version >= 7000:
            code, values = arrays[0]
            lines.append(f"{pad}{n.name}: *{len(values)} {{")
            lines.append(f"{pad}\ta: " + ",".join(_ascii_value("D" if code in "df" else "L", v) for v in values))
            lines.append(f"{pad}}}")
            return
        parts = []
        for code, value in n.props:
            if code in _ARRAY:
                # 6.x: inline, wrapped after every 8 values with the comma ending the line
                items = [_ascii_value("D" if code in "df" else "L", v) for v in value]
                parts.append(",\n".join(",".join(items[i : i + 8]) for i in range(0, len(items), 8)))
            else:
                parts.append(_ascii_value(code, value))
        head = f"{pad}{n.name}: " + ", ".join(parts)
        if n.children:
            lines.append(head + " {")
            for c in n.children:
                emit(c, depth + 1)
            lines.append(f"{pad}}}")
        else:
            lines.append(head)

    for n in nodes:
        emit(n, 0)
    return ("\n".join(lines) + "\n").encode()


# --- a scene -----------------------------------------------------------------------------------


@dataclass
class Layer:
    """One layer element: ``kind`` "Normal", "UV", "Color", "Tangent", "Material"."""

    kind: str
    values: list[float]
    mapping: str = "ByPolygonVertex"
    reference: str = "Direct"
    index: list[int] | None = None


@dataclass
class Mesh:
    name: str
    vertices: list[float]
    polygons: list[list[int]]
    layers: list[Layer] = field(default_factory=list)
    models: list[str] = field(default_factory=list)  # Model names using it (each under the root)
    materials: list[int] = field(default_factory=list)  # material ids of its Models, in order
    skin_bones: int = 0
    shapes: list[bool] = field(default_factory=list)  # one per blend shape: has normals


@dataclass
class Texture:
    name: str
    material: int  # index in Scene.materials
    slot: str
    relative: str = ""
    filename: str = ""


@dataclass
class Scene:
    meshes: list[Mesh] = field(default_factory=list)
    materials: list[str] = field(default_factory=list)
    textures: list[Texture] = field(default_factory=list)
    orphan_models: list[str] = field(default_factory=list)  # Models not connected to the root

    def nodes(self, version: int, ascii: bool) -> list[N]:
        return _nodes7(self, ascii) if version >= 7000 else _nodes6(self, ascii)

    def binary(self, version: int = 7400, compress: bool = True) -> bytes:
        return write_binary(self.nodes(version, False), version, compress)[0]

    def binary_fields(self, version: int = 7400, compress: bool = True) -> tuple[bytes, list[tuple[str, int, str]]]:
        return write_binary(self.nodes(version, False), version, compress)

    def ascii(self, version: int = 7400) -> bytes:
        return write_ascii(self.nodes(version, True), version)


def _name(cls: str, name: str, ascii: bool) -> tuple[str, str]:
    return ("S", f"{cls}::{name}" if ascii else f"{name}\x00\x01{cls}")


_LAYER_NODES = {"Normal": ("LayerElementNormal", "Normals", "NormalsIndex"), "UV": ("LayerElementUV", "UV", "UVIndex"),
                "Color": ("LayerElementColor", "Colors", "ColorIndex"), "Tangent": ("LayerElementTangent", "Tangents", "TangentsIndex"),
                "Material": ("LayerElementMaterial", "Materials", "")}


def _geometry_children(mesh: Mesh) -> list[N]:
    pvi = [i for poly in mesh.polygons for i in [*poly[:-1], ~poly[-1]]]
    out = [N("Vertices", [("d", mesh.vertices)]), N("PolygonVertexIndex", [("i", pvi)]), N("GeometryVersion", [("I", 124)])]
    counters: dict[str, int] = {}
    for layer in mesh.layers:
        node_name, values_name, index_name = _LAYER_NODES[layer.kind]
        k = counters[node_name] = counters.get(node_name, -1) + 1
        kids = [N("Version", [("I", 101)]), N("Name", [("S", "")]),
                N("MappingInformationType", [("S", layer.mapping)]), N("ReferenceInformationType", [("S", layer.reference)]),
                N(values_name, [("i" if layer.kind == "Material" else "d", layer.values)])]
        if layer.index is not None:
            kids.append(N(index_name, [("i", layer.index)]))
        out.append(N(node_name, [("I", k)], kids))
    return out


def _nodes7(scene: Scene, ascii: bool) -> list[N]:
    objects: list[N] = []
    links: list[N] = []
    next_id = [1000]

    def new_id() -> int:
        next_id[0] += 1
        return next_id[0]

    def link(child: int, parent: int, prop: str = "") -> None:
        props = [("S", "OP" if prop else "OO"), ("L", child), ("L", parent)]
        links.append(N("C", props + ([("S", prop)] if prop else [])))

    material_ids = []
    for name in scene.materials:
        mid = new_id()
        material_ids.append(mid)
        objects.append(N("Material", [("L", mid), _name("Material", name, ascii), ("S", "")], [N("ShadingModel", [("S", "phong")])]))
    for tex in scene.textures:
        tid = new_id()
        kids = [N("Type", [("S", "TextureVideoClip")]), N("FileName", [("S", tex.filename)]), N("RelativeFilename", [("S", tex.relative)])]
        objects.append(N("Texture", [("L", tid), _name("Texture", tex.name, ascii), ("S", "")], kids))
        link(tid, material_ids[tex.material], tex.slot)
    for mesh in scene.meshes:
        gid = new_id()
        objects.append(N("Geometry", [("L", gid), _name("Geometry", mesh.name, ascii), ("S", "Mesh")], _geometry_children(mesh)))
        for model in mesh.models:
            mid = new_id()
            objects.append(N("Model", [("L", mid), _name("Model", model, ascii), ("S", "Mesh")], [N("Version", [("I", 232)])]))
            link(mid, 0)
            link(gid, mid)
            for m in mesh.materials:
                link(material_ids[m], mid)
        if mesh.skin_bones:
            sid = new_id()
            objects.append(N("Deformer", [("L", sid), _name("Deformer", "Skin", ascii), ("S", "Skin")]))
            link(sid, gid)
            for b in range(mesh.skin_bones):
                cid, bone = new_id(), new_id()
                objects.append(N("Deformer", [("L", cid), _name("SubDeformer", f"Cluster{b}", ascii), ("S", "Cluster")],
                                 [N("Indexes", [("i", [0])]), N("Weights", [("d", [1.0])])]))
                objects.append(N("Model", [("L", bone), _name("Model", f"Bone{b}", ascii), ("S", "LimbNode")]))
                link(cid, sid)
                link(bone, cid)
        if mesh.shapes:
            bid = new_id()
            objects.append(N("Deformer", [("L", bid), _name("Deformer", "Morph", ascii), ("S", "BlendShape")]))
            link(bid, gid)
            for k, normals in enumerate(mesh.shapes):
                cid, shape = new_id(), new_id()
                objects.append(N("Deformer", [("L", cid), _name("SubDeformer", f"Key{k}", ascii), ("S", "BlendShapeChannel")]))
                kids = [N("Indexes", [("i", [0])]), N("Vertices", [("d", [0.0, 0.1, 0.0])])]
                if normals:
                    kids.append(N("Normals", [("d", [0.0, 0.0, 0.0])]))
                objects.append(N("Geometry", [("L", shape), _name("Geometry", f"Key{k}", ascii), ("S", "Shape")], kids))
                link(cid, bid)
                link(shape, cid)
    for name in scene.orphan_models:
        objects.append(N("Model", [("L", new_id()), _name("Model", name, ascii), ("S", "Null")]))
    header = N("FBXHeaderExtension", [], [N("FBXHeaderVersion", [("I", 1003)]), N("FBXVersion", [("I", 7400)])])
    return [header, N("Objects", [], objects), N("Connections", [], links)]


def _nodes6(scene: Scene, ascii: bool) -> list[N]:
    """FBX 6.1: each Mesh Model holds its geometry; links name objects ("Model::Cube")."""
    objects: list[N] = []
    links: list[N] = []

    def link(child: str, parent: str, prop: str = "") -> None:
        props = [("S", "OP" if prop else "OO"), ("S", child), ("S", parent)]
        links.append(N("Connect", props + ([("S", prop)] if prop else [])))

    for mesh in scene.meshes:
        for k, model in enumerate(mesh.models or [mesh.name]):
            kids = [N("Version", [("I", 232)]), *_geometry_children(mesh)]
            kids += [N("Shape", [("S", f"Key{s}")], [N("Indexes", [("i", [0])]), N("Vertices", [("d", [0.0, 0.1, 0.0])])]
                       + ([N("Normals", [("d", [0.0, 0.0, 0.0])])] if normals else [])) for s, normals in enumerate(mesh.shapes)]
            objects.append(N("Model", [_name("Model", model, ascii), ("S", "Mesh")], kids))
            if mesh.models:
                link(f"Model::{model}", "Model::Scene")
            for m in mesh.materials:
                link(f"Material::{scene.materials[m]}", f"Model::{model}")
            if mesh.skin_bones and k == 0:
                objects.append(N("Deformer", [_name("Deformer", f"Skin {model}", ascii), ("S", "Skin")]))
                link(f"Deformer::Skin {model}", f"Model::{model}")
                for b in range(mesh.skin_bones):
                    objects.append(N("Deformer", [_name("SubDeformer", f"Cluster {b}", ascii), ("S", "Cluster")]))
                    link(f"SubDeformer::Cluster {b}", f"Deformer::Skin {model}")
    for name in scene.materials:
        objects.append(N("Material", [_name("Material", name, ascii), ("S", "")]))
    for tex in scene.textures:
        objects.append(N("Texture", [_name("Texture", tex.name, ascii), ("S", "TextureVideoClip")],
                         [N("FileName", [("S", tex.filename)]), N("RelativeFilename", [("S", tex.relative)])]))
        link(f"Texture::{tex.name}", f"Material::{scene.materials[tex.material]}", tex.slot)
    header = N("FBXHeaderExtension", [], [N("FBXHeaderVersion", [("I", 1003)]), N("FBXVersion", [("I", 6100)])])
    return [header, N("Objects", [], objects), N("Connections", [], links)]


# --- meshes with known answers -----------------------------------------------------------------

#: A unit cube: 8 control points, 6 quads.
CUBE_V = [float(c) for p in [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)] for c in p]
CUBE_P = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]
_FACE_N = [(-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]


def flat_normals() -> Layer:
    """Per polygon-vertex, Direct: each face its own normal (24 GPU vertices on a cube)."""
    return Layer("Normal", [c for n in _FACE_N for _ in range(4) for c in n])


def cube(name: str = "Cube", models: tuple[str, ...] = ("Cube",), **kw: Any) -> Mesh:
    return Mesh(name, list(CUBE_V), [list(p) for p in CUBE_P], models=list(models), **kw)
