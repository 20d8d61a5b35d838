"""FBX (.fbx, binary 6.x–7.7 and ASCII): meshes as an engine imports them, their instances,
materials and textures. The node tree is ``fbxtree``'s; this module reads what it means.

What is read, per geometry (``file.fbx#mesh/N``, N in file order of the mesh geometries: 7.x
``Geometry`` nodes of class "Mesh", 6.x ``Model`` nodes of class "Mesh", which hold their
geometry themselves):

- **Polygons**: control points (``Vertices``), polygon-vertex indices (``PolygonVertexIndex``,
  a negative index ``~i`` ends a polygon) and triangles after fan triangulation (an n-gon
  makes n − 2; polygons of one or two vertices make none).
- **Surfaces**: ``LayerElementMaterial`` (AllSame or ByPolygon) splits the geometry into one
  PrimitiveFacts per material used, ``material`` = ``file.fbx#material/M`` (M in file order of
  the Material nodes) through the material list of the first Model in the scene that uses the
  geometry (an FBX material index is a position in a Model's connected materials).
- **GPU vertices, exactly**: engines draw one vertex per distinct combination of attribute
  values within a surface (Unity "Weld Vertices", Godot's SurfaceTool.index() after ufbx,
  assimp's JoinIdenticalVertices): texbudget builds, for every polygon-vertex, its position
  and each layer element's value (normal, tangent, every UV set, the first colour set) through
  the element's mapping (ByPolygonVertex, ByVertice, ByPolygon, AllSame) and reference
  (Direct, IndexToDirect), as float32 like the engine's buffer, and counts the distinct rows
  per surface. With blend shapes the control point's index replaces its position (Godot keeps
  vertices of distinct control points apart then). Binormals only give a tangent's sign and do
  not split. Above MAX_WELD_CELLS the count is the polygon-vertex count, an upper bound, and
  the mesh's ``source`` says so ("fbx, vertices: upper bound").
- **Layout**: POSITION, NORMAL (always: engines generate missing normals), TANGENT f32x4 when
  the file has tangents, TEXCOORD_n f32x2 per UV set (at most 8), COLOR_0 u8x4 normalised
  (Unity's Color32, Godot's RGBA8), and for a skinned mesh JOINTS_0 u8x4 (u16x4 past 256
  bones) and WEIGHTS_0 f32x4: 4 influences, engines' default. ``vertex_bytes`` is vertices ×
  that layout; indices are triangle lists, u16 up to 65535 vertices of a surface, else u32.
- **Skin**: a Deformer "Skin" connected to the geometry makes it skinned; its bones are its
  "Cluster" sub-deformers.
- **Blend shapes**: BlendShape → BlendShapeChannel → Shape geometries (6.x: ``Shape`` nodes in
  the Model). Each shape (every in-between too) is one morph target, counted as glTF stores a
  morph target and Godot a blend shape: dense over the surface's GPU vertices, position deltas
  f32x3 plus normal deltas f32x3 when the shape has normals. (Unity stores only the vertices
  a shape moves; this is then an upper bound for Unity.)
- **Instances and names**: a geometry's instances are the Models connected to it that reach
  the scene's root through the Model hierarchy (``Connections``: OO links geometry → Model,
  Model → Model → root). ``MeshFacts.name`` is that Model's name (Unity names an imported mesh
  after its node, and a Unity scene finds a model's mesh by that name; Godot's FBX importer
  uses the geometry's own name), else the geometry's name.
- **Textures**: a Texture connected to a Material property (OP link, e.g. "DiffuseColor",
  "NormalMap", directly or through a LayeredTexture) is used by ``file.fbx#material/M`` in that
  slot. Its file is found as engines find it: ``RelativeFilename`` from the FBX's folder, then
  ``FileName`` when relative, then the file name alone beside the FBX (exporters write the
  artist's absolute path in ``FileName``). Nothing outside the scan root is opened; a path
  that leaves it or is absolute is TB074, a missing file TB075 (the glTF reader's codes).

Hostile input: see ``fbxtree`` (bounded records, arrays decoded only when needed); index
arrays are range-checked before use.
"""

from __future__ import annotations

import os
import posixpath
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from texbudget import findings
from texbudget.model import (
    AttributeFacts,
    Finding,
    MeshFacts,
    PrimitiveFacts,
    ReadResult,
    SceneFacts,
    file_of,
)
from texbudget.readers import KNOWN_FILES, Source
from texbudget.readers._common import fail, read_upto
from texbudget.readers.fbxtree import Document, FbxError, Node, array_of, parse
from texbudget.sizing.meshes import COMPONENT_BYTES, index_bytes_per, lod_of

#: Largest FBX read (a file on disk is mapped, not read into memory).
MAX_FBX_BYTES = 2 * 1024 * 1024 * 1024
#: Largest text FBX read into memory.
MAX_ASCII_BYTES = 512 * 1024 * 1024
#: Polygon-vertices × key columns up to which the welded vertex count is computed exactly.
MAX_WELD_CELLS = 64 * 1024 * 1024
MAX_UV_SETS = 8
#: Findings of one code kept per file.
MAX_NOTES_PER_CODE = 50

_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
#: Layer element -> (values node, index node, components, GPU attribute).
_LAYERS = {
    "LayerElementNormal": ("Normals", "NormalsIndex", 3),
    "LayerElementTangent": ("Tangents", "TangentsIndex", 3),
    "LayerElementUV": ("UV", "UVIndex", 2),
    "LayerElementColor": ("Colors", "ColorIndex", 4),
}


def read_fbx(src: Source) -> ReadResult:
    """Meshes (``file.fbx#mesh/N``) and one SceneFacts (instances, texture usage)."""
    rel = src.rel
    size = src.size()
    if size == 0:
        return fail(rel, "TB040", "the file is empty (0 bytes)")
    if size > MAX_FBX_BYTES:
        return fail(rel, "TB090", f"the file is {size} bytes; texbudget reads FBX files up to {MAX_FBX_BYTES}")
    try:
        with _contents(src, size) as data:
            doc = parse(data)
            return _Reader(src, doc).read()
    except FbxError as exc:
        return fail(rel, exc.code, exc.message)


class _contents:
    """The file's bytes: in memory for a Source in memory or a small file, else mapped."""

    def __init__(self, src: Source, size: int) -> None:
        self.src, self.size = src, size
        self.map: Any = None
        self.file: Any = None

    def __enter__(self) -> Any:
        src = self.src
        if src.data is not None:
            return src.data
        self.file = src.open()
        try:
            return self._bytes()
        except BaseException:
            self.__exit__()
            raise

    def _bytes(self) -> Any:
        try:
            import mmap

            self.map = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)
            head = self.map[:21]
            if head != b"Kaydara FBX Binary  \x00" and self.size > MAX_ASCII_BYTES:
                raise FbxError("TB090", f"the text FBX is {self.size} bytes; texbudget parses text FBX files up to {MAX_ASCII_BYTES}")
            return self.map
        except (OSError, ValueError, AttributeError):  # no file descriptor (prefetched bytes), or an empty map
            data = read_upto(self.file, MAX_ASCII_BYTES + 1)
            if len(data) > MAX_ASCII_BYTES and not data.startswith(b"Kaydara FBX Binary  \x00"):
                raise FbxError("TB090", f"the text FBX is over {MAX_ASCII_BYTES} bytes; texbudget parses text FBX files up to that") from None
            return data

    def __exit__(self, *exc: object) -> None:
        if self.map is not None:
            self.map.close()
        if self.file is not None:
            self.file.close()


@dataclass(slots=True)
class _Element:
    kind: str  # the node's name: "Geometry", "Model", "Material", …
    key: Any  # 7.x: the int id; 6.x: "Class::Name"
    name: str
    subclass: str
    node: Node
    index: int = 0  # position among the elements of its kind (materials: #material/N)


@dataclass(slots=True)
class _Links:
    """The ``Connections`` section: OO and OP links both ways."""

    parents: dict[Any, list[tuple[Any, str]]] = field(default_factory=dict)
    children: dict[Any, list[tuple[Any, str]]] = field(default_factory=dict)


def _split_name(raw: Any) -> tuple[str, str]:
    """(class, name) of an object name: binary ``Name\\x00\\x01Class``, ASCII ``Class::Name``."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if "\x00\x01" in text:
        name, _, cls = text.partition("\x00\x01")
        return cls, name
    cls, sep, name = text.partition("::")
    return (cls, name) if sep else ("", text)


def _key6(raw: Any) -> str:
    cls, name = _split_name(raw)
    return f"{cls}::{name}"


class _Reader:
    def __init__(self, src: Source, doc: Document) -> None:
        self.src = src
        self.rel = src.rel
        self.doc = doc
        self.v7 = doc.version >= 7000
        self.found: list[Finding] = []
        self._notes: dict[str, int] = {}
        self.elements: dict[Any, _Element] = {}
        self.by_kind: dict[str, list[_Element]] = {}
        self.links = _Links()
        self.root: Any = 0 if self.v7 else "Model::Scene"
        self._base = posixpath.dirname(file_of(self.rel))

    def note(self, code: str, message: str) -> None:
        count = self._notes[code] = self._notes.get(code, 0) + 1
        if count <= MAX_NOTES_PER_CODE:
            self.found.append(findings.make(self.rel, code, message))
        elif count == MAX_NOTES_PER_CODE + 1:
            self.found.append(findings.make(self.rel, code, f"… more {code} findings in this file, not listed"))

    # --- objects and connections

    def _collect(self) -> None:
        objects = next((n for n in self.doc.nodes if n.name == "Objects"), None)
        for node in objects.children if objects is not None else ():
            props = node.props
            key: Any
            if self.v7:
                if len(props) < 2 or not isinstance(props[0], int):
                    continue
                key, (_, name) = props[0], _split_name(props[1])
                subclass = props[2] if len(props) > 2 else b""
            else:
                if not props or not isinstance(props[0], bytes):
                    continue
                key, name = _key6(props[0]), _split_name(props[0])[1]
                subclass = props[1] if len(props) > 1 else b""
            sub = subclass.decode("utf-8", "replace") if isinstance(subclass, bytes) else str(subclass)
            kind = node.name
            if kind == "Deformer" and sub in ("Cluster", "BlendShapeChannel"):
                kind = "SubDeformer"
            same = self.by_kind.setdefault(kind, [])
            element = _Element(kind, key, name, sub, node, len(same))
            same.append(element)
            self.elements.setdefault(key, element)
        connections = next((n for n in self.doc.nodes if n.name == "Connections"), None)
        for c in connections.children if connections is not None else ():
            if c.name not in ("C", "Connect") or len(c.props) < 3:
                continue
            kind, child, parent = c.props[0], c.props[1], c.props[2]
            if not self.v7:
                child, parent = _key6(child), _key6(parent)
            prop = c.props[3].decode("utf-8", "replace") if len(c.props) > 3 and isinstance(c.props[3], bytes) else ""
            if kind not in (b"OO", b"OP"):
                continue
            self.links.parents.setdefault(child, []).append((parent, prop))
            self.links.children.setdefault(parent, []).append((child, prop))

    def _related(self, key: Any, kind: str, up: bool, subclass: str | None = None) -> list[tuple[_Element, str]]:
        """Elements of ``kind`` linked to ``key`` as parents (``up``) or children, in order."""
        table = self.links.parents if up else self.links.children
        out = []
        for other, prop in table.get(key, ()):
            element = self.elements.get(other)
            if element is not None and element.kind == kind and (subclass is None or element.subclass == subclass):
                out.append((element, prop))
        return out

    def _in_scene(self, model: _Element, memo: dict[Any, bool]) -> bool:
        """The Model reaches the root through Model parents (cycles never do)."""
        path: list[Any] = []
        key = model.key
        result = False
        while True:
            if key in memo:
                result = memo[key]
                break
            if key in path:
                self.note("TB095", f"the Model hierarchy loops through {self.elements[key].name!r}; that branch is not in the scene")
                break
            path.append(key)
            parents = self.links.parents.get(key, ())
            if any(p == self.root for p, _ in parents):
                result = True
                break
            up = next((p for p, _ in parents if p in self.elements and self.elements[p].kind == "Model"), None)
            if up is None:
                break
            key = up
        for k in path:
            memo[k] = result
        return result

    # --- the whole file

    def read(self) -> ReadResult:
        import numpy as np

        self._collect()
        memo: dict[Any, bool] = {}
        if self.v7:
            geometries = [g for g in self.by_kind.get("Geometry", []) if g.subclass == "Mesh"]
        else:
            geometries = [m for m in self.by_kind.get("Model", []) if m.subclass == "Mesh"]
        any_models = bool(self.by_kind.get("Model"))
        meshes: list[MeshFacts] = []
        instances: list[tuple[str, int]] = []
        for n, geom in enumerate(geometries):
            path = f"{self.rel}#mesh/{n}"
            models = [geom] if not self.v7 else [m for m, _ in self._related(geom.key, "Model", up=True)]
            placed = [m for m in models if self._in_scene(m, memo)]
            owner = placed[0] if placed else (models[0] if models else None)
            name = owner.name if owner is not None and owner.name else geom.name or f"mesh {n}"
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):  # inf/NaN in hostile arrays
                    warnings.simplefilter("ignore")
                    facts = self._mesh(path, name, geom, owner)
            except FbxError as exc:
                self.note(exc.code, f"mesh {n} ({name}): {exc.message}; not priced")
                continue
            if facts is None:
                self.note("TB087", f"mesh {n} ({name}) holds no triangles; nothing was priced")
                continue
            meshes.append(facts)
            if any_models:
                instances.append((path, len(placed)))
                if not placed:
                    self.note("TB084", f"mesh {n} ({name}) is used by no Model of the scene")
        if not geometries and not self.found:
            self.note("TB087", "the file holds no mesh geometry; nothing was priced")
        usage = self._texture_usage()
        scene = SceneFacts.from_uses(path=self.rel, instances=instances, texture_usage=usage)
        return ReadResult(meshes=tuple(meshes), scenes=(scene,), findings=tuple(self.found))

    # --- one geometry

    def _mesh(self, path: str, name: str, geom: _Element, owner: _Element | None) -> MeshFacts | None:
        import numpy as np

        node = geom.node
        coords = array_of(node.child("Vertices"))
        pvi = array_of(node.child("PolygonVertexIndex"))
        if coords is None or pvi is None or len(pvi) == 0:
            return None
        if len(coords) % 3:
            raise FbxError("TB092", f"Vertices holds {len(coords)} numbers, not a multiple of 3")
        n_cp = len(coords) // 3
        pvi = pvi.astype(np.int64)
        ends = pvi < 0
        ends[-1] = True  # an open last polygon ends with the array
        cp = np.where(pvi < 0, -pvi - 1, pvi)
        if cp.size and int(cp.max()) >= n_cp:
            raise FbxError("TB092", f"PolygonVertexIndex points to control point {int(cp.max())}; there are {n_cp}")
        n_pv = len(cp)
        end_at = np.flatnonzero(ends)
        sizes = np.diff(np.concatenate(([-1], end_at)))
        polygon = np.repeat(np.arange(len(sizes)), sizes)  # polygon of each polygon-vertex
        tris = np.maximum(sizes - 2, 0)
        owner_materials = self._model_materials(owner)
        # surfaces numbered densely in order of their material index (an index with no
        # material still makes its own surface, as assimp and ufbx split them)
        raw = self._materials_per_polygon(node, len(sizes))
        labels, surface_of = np.unique(raw, return_inverse=True) if raw is not None else (np.zeros(1, dtype=np.int64), np.zeros(len(sizes), dtype=np.int64))
        shapes = self._shapes(geom)
        skin = self._skin(geom)
        columns: list[Any] = []
        if shapes:
            columns.append(cp.astype(np.uint32).view(np.float32)[:, None])
        else:
            columns.append(coords.astype(np.float32).reshape(-1, 3)[cp])
        attributes: list[tuple[str, str, int, bool]] = [("POSITION", "FLOAT", 3, False), ("NORMAL", "FLOAT", 3, False)]
        uv_sets = 0
        for layer_name, (values_name, index_name, components) in _LAYERS.items():
            elements = node.kids(layer_name)
            if layer_name != "LayerElementUV":
                elements = elements[:1]
            for k, element in enumerate(elements[:MAX_UV_SETS]):
                values = self._layer_values(element, values_name, index_name, components, cp, polygon, n_pv, f"{layer_name} {k}")
                if values is None:
                    continue
                columns.append(values)
                if layer_name == "LayerElementTangent":
                    attributes.append(("TANGENT", "FLOAT", 4, False))
                elif layer_name == "LayerElementUV":
                    attributes.append((f"TEXCOORD_{uv_sets}", "FLOAT", 2, False))
                    uv_sets += 1
                elif layer_name == "LayerElementColor":
                    attributes.append(("COLOR_0", "UNSIGNED_BYTE", 4, True))
        if skin is not None:
            attributes.append(("JOINTS_0", "UNSIGNED_BYTE" if skin <= 256 else "UNSIGNED_SHORT", 4, False))
            attributes.append(("WEIGHTS_0", "FLOAT", 4, False))
        counts, exact = _weld(np.hstack(columns), surface_of[polygon])
        per_vertex = sum(COMPONENT_BYTES[t] * c for _, t, c, _ in attributes)
        morph_per_vertex = sum(12 + (12 if has_normals else 0) for has_normals in shapes)
        prims: list[PrimitiveFacts] = []
        tri_per_surface = np.bincount(surface_of, weights=tris, minlength=len(labels))
        for surface, vertex_count in counts:
            triangles = int(tri_per_surface[surface])
            if triangles == 0:
                continue
            index = int(labels[surface])
            mat = owner_materials[index] if 0 <= index < len(owner_materials) else None
            attrs = tuple(AttributeFacts(name=a, component_type=t, components=c, count=vertex_count,
                                         bytes=vertex_count * COMPONENT_BYTES[t] * c, normalized=norm)
                          for a, t, c, norm in attributes)
            prims.append(PrimitiveFacts(
                mode=4, vertex_count=vertex_count, triangles=triangles, attributes=attrs,
                index_count=3 * triangles, index_bytes_per=index_bytes_per(vertex_count),
                morph_targets=len(shapes), morph_bytes=vertex_count * morph_per_vertex,
                material=None if mat is None else f"{self.rel}#material/{mat.index}",
            ))
        if not prims:
            return None
        vertices = sum(p.vertex_count for p in prims)
        lod = lod_of(name) if "lod" in name.lower() else None
        return MeshFacts.from_primitives(
            path=path, name=name, primitives=prims, vertices=vertices,
            indices=sum(p.index_count for p in prims), triangles=sum(p.triangles for p in prims),
            vertex_bytes=vertices * per_vertex, index_bytes=sum(p.index_count * p.index_bytes_per for p in prims),
            morph_bytes=sum(p.morph_bytes for p in prims), skinned=skin is not None, morph_targets=len(shapes),
            source="fbx" if exact else "fbx, vertices: upper bound",
            lod=None if lod is None else lod[1], lod_group=None if lod is None else f"{self.rel}#lod/{lod[0]}",
        )

    def _layer_values(self, element: Node, values_name: str, index_name: str, components: int,
                      cp: Any, polygon: Any, n_pv: int, where: str) -> Any:
        """The element's value for every polygon-vertex (float32 rows), or None with a TB095
        when it does not fit the geometry (the attribute is then left out)."""
        import numpy as np

        mapping = str(element.value("MappingInformationType", "ByPolygonVertex"))
        reference = str(element.value("ReferenceInformationType", "Direct"))
        values = array_of(element.child(values_name))
        if values is None or len(values) < components:
            return None
        if values_name == "Colors" and len(values) % 4 and len(values) % 3 == 0:
            components = 3  # some exporters write RGB
        rows = values[: len(values) // components * components].astype(np.float32).reshape(-1, components)
        if mapping == "ByPolygonVertex":
            base = np.arange(n_pv)
        elif mapping in ("ByVertice", "ByVertex", "ByControlPoint"):
            base = cp
        elif mapping == "ByPolygon":
            base = polygon
        elif mapping == "AllSame":
            base = np.zeros(n_pv, dtype=np.int64)
        else:
            self.note("TB095", f"{where}: mapping {mapping[:40]!r} is not one texbudget reads; the attribute was left out")
            return None
        if reference in ("IndexToDirect", "Index"):
            index = array_of(element.child(index_name))
            if index is None:
                self.note("TB095", f"{where}: IndexToDirect without {index_name}; the attribute was left out")
                return None
            if len(base) and int(base.max()) >= len(index):
                self.note("TB095", f"{where}: {index_name} holds {len(index)} entries; {mapping} needs {int(base.max()) + 1}; the attribute was left out")
                return None
            base = index.astype(np.int64)[base]
        if len(base) and (int(base.max()) >= len(rows) or int(base.min()) < -1):
            self.note("TB095", f"{where}: {values_name} holds {len(rows)} values; the mapping needs {int(base.max()) + 1}; the attribute was left out")
            return None
        return rows[np.maximum(base, 0)]

    def _materials_per_polygon(self, node: Node, polygons: int) -> Any:
        """The material index of each polygon (a position in the Model's material list; a
        negative one is 0), or None when the geometry has no material layer."""
        import numpy as np

        element = node.child("LayerElementMaterial")
        if element is None:
            return None
        index = array_of(element.child("Materials"))
        if index is None or len(index) == 0:
            return None
        index = index.astype(np.int64)
        mapping = str(element.value("MappingInformationType", "AllSame"))
        if mapping == "AllSame" or len(index) < polygons:
            if mapping != "AllSame":
                self.note("TB095", f"LayerElementMaterial ({mapping}) holds {len(index)} entries for {polygons} polygons; the first material is used for all")
            index = np.full(polygons, index[0], dtype=np.int64)
        index = index[:polygons]
        return np.where(index < 0, 0, index)

    def _shapes(self, geom: _Element) -> list[bool]:
        """One entry per morph target (blend shape, or in-between): whether it has normals."""
        # 6.x and 7.1 (FBX 2011): Shape nodes inside the geometry
        out = [s.child("Normals") is not None for s in geom.node.kids("Shape")]
        if not self.v7:
            return out
        for blend, _ in self._related(geom.key, "Deformer", up=False, subclass="BlendShape"):
            for channel, _ in self._related(blend.key, "SubDeformer", up=False, subclass="BlendShapeChannel"):
                for shape, _ in self._related(channel.key, "Geometry", up=False):
                    out.append(shape.node.child("Normals") is not None)
        return out

    def _skin(self, geom: _Element) -> int | None:
        """Bones of the geometry's skin (its clusters), or None when it has none."""
        key = geom.key
        skins = self._related(key, "Deformer", up=False, subclass="Skin")
        if not skins:
            return None
        return sum(len(self._related(s.key, "SubDeformer", up=False, subclass="Cluster")) for s, _ in skins)

    def _model_materials(self, model: _Element | None) -> list[_Element]:
        if model is None:
            return []
        return [m for m, _ in self._related(model.key, "Material", up=False)]

    # --- materials and textures

    def _texture_usage(self) -> tuple[tuple[str, str, str], ...]:
        usage: dict[tuple[str, str, str], None] = {}
        resolved: dict[Any, str | None] = {}
        for mat in self.by_kind.get("Material", []):
            user = f"{self.rel}#material/{mat.index}"
            for child, prop in self.links.children.get(mat.key, ()):
                element = self.elements.get(child)
                if element is None:
                    continue
                textures = [element] if element.kind == "Texture" else (
                    [t for t, _ in self._related(element.key, "Texture", up=False)] if element.kind == "LayeredTexture" else [])
                for tex in textures:
                    if tex.key not in resolved:
                        resolved[tex.key] = self._texture_file(tex)
                    target = resolved[tex.key]
                    if target is not None:
                        usage[(target, user, prop or "DiffuseColor")] = None
        if not self.v7:  # 6.x: textures connect to the Model; the slot is the diffuse one
            for tex in self.by_kind.get("Texture", []):
                for model, _ in self._related(tex.key, "Model", up=True):
                    mats = self._model_materials(model)
                    user = f"{self.rel}#material/{mats[0].index}" if mats else self.rel
                    if tex.key not in resolved:
                        resolved[tex.key] = self._texture_file(tex)
                    target = resolved[tex.key]
                    if target is not None:
                        usage[(target, user, "DiffuseColor")] = None
        return tuple(usage)

    def _texture_file(self, tex: _Element) -> str | None:
        """The texture's file relative to the scan root, or None with TB074/TB075."""
        candidates = texture_names(tex.node, [v.node for v, _ in self._related(tex.key, "Video", up=False)])
        if not candidates:
            return None
        found, problem = locate_texture(self.src.root, self._base, candidates)
        if found is None and problem is not None:
            code, message = problem
            self.note(code, f"texture {tex.name!r}: {message}")
        return found


def _weld(rows: Any, surfaces: Any) -> tuple[list[tuple[int, int]], bool]:
    """(surface, distinct rows) for every surface in ``surfaces``, and whether it was exact."""
    import numpy as np

    used = np.unique(surfaces)
    if rows.size > MAX_WELD_CELLS:
        return [(int(s), int(np.count_nonzero(surfaces == s))) for s in used], False
    packed = np.ascontiguousarray(rows, dtype=np.float32)
    keyed = np.hstack([surfaces.astype(np.uint32).view(np.float32)[:, None], packed])
    keyed = np.where(keyed == 0, np.float32(0), keyed)  # -0.0 and 0.0 are one value to an engine
    distinct = np.unique(np.ascontiguousarray(keyed).view(np.dtype((np.void, keyed.shape[1] * 4))).ravel())
    first = np.frombuffer(distinct.tobytes(), dtype=np.uint32)[:: keyed.shape[1]] if len(distinct) else np.zeros(0, dtype=np.uint32)
    per = np.bincount(first.astype(np.int64), minlength=int(used.max()) + 1 if len(used) else 0)
    return [(int(s), int(per[s])) for s in used], True


# --- texture files (shared with the scan's cache dependencies) ------------------------------


def texture_names(texture: Node, videos: list[Node]) -> list[str]:
    """The file names a Texture (and its Video) give, in the order engines try them."""
    out: list[str] = []
    for node in (texture, *videos):
        for key in ("RelativeFilename", "FileName", "Filename"):
            v = node.value(key)
            if isinstance(v, str) and v.strip() and v not in out:
                out.append(v)
    rel_first = [n for n in out if not _absolute(n)] + [n for n in out if _absolute(n)]
    return rel_first


def _absolute(name: str) -> bool:
    return bool(_DRIVE.match(name)) or name.startswith(("/", "\\"))


def candidate_paths(base: str, names: list[str]) -> tuple[list[str], tuple[str, str] | None]:
    """The paths (relative to the scan root) to look for, in order, and the finding to give
    when none exists: TB074 for a name that leaves the root or is absolute or has a scheme,
    TB075 for a file that is not there."""
    paths: list[str] = []
    problem: tuple[str, str] | None = None
    for name in names:
        shown = name if len(name) <= 120 else name[:117] + "..."
        text = name.replace("\\", "/")
        if "\x00" in text:
            problem = problem or ("TB074", f"file name {shown!r} holds a NUL byte; not opened")
            continue
        if _absolute(name):
            problem = problem or ("TB074", f"file name {shown!r} is an absolute path; not opened")
            continue
        if _SCHEME.match(text):
            problem = problem or ("TB074", f"file name {shown!r} uses the {_SCHEME.match(text).group(1).lower()}: scheme; not opened")  # type: ignore[union-attr]
            continue
        path = posixpath.normpath(posixpath.join(base, text))
        if path in (".", "..") or path.startswith("../"):
            problem = problem or ("TB074", f"file name {shown!r} leaves the scan root; not opened")
            continue
        if path not in paths:
            paths.append(path)
            problem = problem if problem and problem[0] == "TB075" else ("TB075", f"{path} does not exist")
    leaf = names[0].replace("\\", "/").rsplit("/", 1)[-1] if names else ""
    if leaf and leaf not in (".", "..") and "\x00" not in leaf:
        beside = posixpath.join(base, leaf) if base else leaf
        if beside not in paths:
            paths.append(beside)
    if problem is not None and problem[0] == "TB074" and paths:
        problem = (problem[0], problem[1] + f", nor found as {paths[-1]}")
    return paths, problem


def locate_texture(root: Path | None, base: str, names: list[str]) -> tuple[str | None, tuple[str, str] | None]:
    """The first candidate that is a regular file inside the root, and the finding otherwise."""
    paths, problem = candidate_paths(base, names)
    if root is None:
        return None, ("TB075", "the FBX is not a file on disk; its texture files cannot be resolved")
    known = KNOWN_FILES.get()
    listed = known[1] if known is not None and known[0] == os.fspath(root) else None
    real_root = os.path.realpath(root)
    for path in paths:
        if listed is not None and path in listed:
            return path, None
        full = os.path.realpath(os.path.join(root, path))
        if (full == real_root or full.startswith(real_root + os.sep)) and os.path.isfile(full):
            return path, None
    return None, problem


def texture_dependencies(root: Path, rel: str) -> list[str] | None:
    """Every path the reader looks at for this FBX's texture files (found or not): a change
    to one changes the FBX's result. None when the file cannot be parsed."""
    try:
        src = Source(rel=rel, root=root)
        with _contents(src, src.size()) as data:
            doc = parse(data)
    except (OSError, ValueError, FbxError):
        return None
    reader = _Reader(src, doc)
    reader._collect()
    deps: set[str] = set()
    for tex in reader.by_kind.get("Texture", []):
        names = texture_names(tex.node, [v.node for v, _ in reader._related(tex.key, "Video", up=False)])
        deps.update(candidate_paths(reader._base, names)[0])
    return sorted(deps)
