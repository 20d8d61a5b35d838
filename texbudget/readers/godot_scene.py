"""Godot 4 scenes and resources as the engine loads them: ``.tscn`` / ``.tres`` / ``.escn``
(text, ``godot_variant``) and ``.scn`` / ``.res`` / ``.mesh`` / ``.lmbake`` (binary,
``godot_binary``) → ``SceneFacts`` whose ``refs`` say what the file loads (docs/levels.md),
plus ``MeshFacts`` for the ArrayMesh resources it holds (``godot_mesh``).

Godot loads every resource a file lists when it loads the file. The edges written here:

- a node with ``instance=ExtResource(…)`` (an instanced or inherited scene, a ``.glb``):
  "instance", count 1 per node; ``instance_placeholder`` nodes load nothing until the game
  asks, and give no edge;
- a node's ``mesh`` (MeshInstance3D, CSGMesh3D, CPUParticles3D …): "mesh", count 1, with
  ``material_override`` as the edge's ``material`` and ``surface_material_override/N`` as its
  ``surfaces``; MultiMeshInstance3D's MultiMesh: "mesh" with count = ``instance_count``;
  GPUParticles3D's ``draw_pass_1``…``draw_pass_N`` (``draw_passes``): "mesh", count 1;
- a GridMap's cells (``godot_gridmap``): "cells" edges, one per item its cells use (count the
  cells), and a MeshLibrary's items: "mesh" edges of count 0 (loaded, in no cell) with slot
  ``item/N`` (docs/levels.md, "GridMap");
- any other reference, in a node, a sub-resource or the main resource, by what it names:
  "texture" (``slot`` the property, e.g. ``albedo_texture``, ``shader_parameter/tex``; a
  Sprite3D's or AnimatedSprite3D's ``Sprite3D.texture``: drawn by a 3D material), "material",
  "mesh" (count 1), or "instance" for another resource file that holds references of its own
  (an Environment, a Theme, a MeshLibrary, a MultiMesh ``.tres``; an AtlasTexture or
  SpriteFrames file a material or a 3D sprite uses carries that ``slot``: its textures fill
  it). Scripts, shaders, audio and fonts give no edge.

The holder of an edge is the material resource it sits in — the file itself for a material
``.tres``, ``file#material/N`` for the N-th material ``[sub_resource]`` (counted from 0 in
file order) — and the file for everything else. The N-th ArrayMesh resource of a file is
``file#mesh/N``. Targets are written as the file writes them: ``res://…``, or
``uid://…::res://…`` when the file gives both (Godot tries the uid first and falls back to
the path), or a path relative to the scan root for a path relative to the file; the project
index (``texbudget.levels.godot``) resolves them. ``where`` is the node path
(``Town/Market/Barrel``) or the sub-resource's id.

Content generated at load time (NoiseTexture2D and other procedural textures, BoxMesh and
other primitive meshes) is not priced; one TB105 note per file says how many there were.
"""

from __future__ import annotations

import io
import mmap
import posixpath
import re

from texbudget import findings
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, SceneRef
from texbudget.readers import Source, suffix_of
from texbudget.readers._common import read_upto
from texbudget.readers.godot_binary import BinaryError, UnsupportedError, read_doc
from texbudget.readers.godot_gridmap import cell_items, library_item
from texbudget.readers.godot_mesh import array_mesh, is_godot3_mesh
from texbudget.readers.godot_variant import (
    Call,
    Doc,
    GodotSyntaxError,
    Node,
    Ref,
    Res,
    parse_sections,
    text_doc,
)

#: A text scene larger than this is not read (the largest real ones are a few tens of MiB).
MAX_TEXT_BYTES = 256 * 1024 * 1024
#: Findings of one code merged into one message name at most this many cases.
_EXAMPLES = 3
_BINARY_MAGICS = (b"RSRC", b"RSCC")

#: Suffixes of files Godot loads as resources (a reference to one is followed).
RESOURCE_SUFFIXES = frozenset((".tscn", ".tres", ".escn", ".scn", ".res", ".mesh", ".lmbake", ".meshlib"))
#: Binary suffixes other programs use too (Ogre meshes, Windows resource scripts compiled):
#: such a file without Godot's signature is only noted.
SHARED_SUFFIXES = frozenset((".res", ".mesh"))
#: Files Godot imports as textures, and as scenes (a ``Resource("res://…")`` names no type).
IMAGE_SUFFIXES = frozenset((".png", ".jpg", ".jpeg", ".tga", ".bmp", ".tif", ".tiff", ".webp", ".gif", ".psd",
                            ".dds", ".ktx", ".ktx2", ".exr", ".hdr", ".svg"))
SCENE_SUFFIXES = frozenset((".glb", ".gltf", ".fbx", ".blend", ".dae", ".obj"))
#: Resource types that hold nothing texbudget prices (code, sound, fonts, shaders).
_SKIPPED_TYPES = re.compile(r"^(?:Script|GDScript|CSharpScript|Shader|VisualShader|ShaderInclude|AudioStream\w*|"
                            r"Font\w*|SystemFont|Translation\w*|InputEvent\w*|JSON|GDExtension)$")
#: Mesh resource types whose geometry Godot generates at load time.
_PRIMITIVE_MESHES = frozenset(("BoxMesh", "SphereMesh", "CapsuleMesh", "CylinderMesh", "PlaneMesh", "QuadMesh",
                               "PrismMesh", "TorusMesh", "TextMesh", "PointMesh", "RibbonTrailMesh", "TubeTrailMesh"))
_NOT_MESHES = frozenset(("MultiMesh", "NavigationMesh", "MeshLibrary"))
_SURFACE_OVERRIDE = "surface_material_override/"
_SURFACE_OVERRIDE_3 = "material/"  # Godot 3's MeshInstance
#: Node properties read as structure (the rest are scanned for references).
_STRUCTURAL = frozenset(("mesh", "multimesh", "material_override", "draw_passes",
                         "draw_pass_1", "draw_pass_2", "draw_pass_3", "draw_pass_4"))
_UID = re.compile(r"uid://[a-z0-9]+")
#: Nodes that draw their texture in 3D: SpriteBase3D binds it as ``texture_albedo`` of a
#: StandardMaterial3D-made material of its own (``scene/3d/sprite_3d.cpp``), so it reaches a 3D
#: material as a material's slot does (and Godot's ``detect_3d`` converts it). Their
#: properties' slots are written ``Type.property`` (``Sprite3D.texture``); other nodes'
#: properties keep their names (``texture``: a 2D node's, drawn on a canvas).
SPRITES_3D = frozenset(("Sprite3D", "AnimatedSprite3D"))
_SPRITE_3D_SLOTS = tuple(f"{t}." for t in sorted(SPRITES_3D))
#: Resources that hand their textures to whoever uses them (not textures of their own).
_RELAYS = frozenset(("SpriteFrames", ""))


_MATERIAL = re.compile(r"\w*Material(?:3D|2D)?$")


def is_material_type(name: str) -> bool:
    """StandardMaterial3D, ORMMaterial3D, ShaderMaterial, PanoramaSkyMaterial, Material, …"""
    return _MATERIAL.match(name) is not None


def is_texture_type(name: str) -> bool:
    return "Texture" in name or "Cubemap" in name


def is_mesh_type(name: str) -> bool:
    return name.endswith("Mesh") and name not in _NOT_MESHES


def edge_kind(type_name: str, path: str) -> str | None:
    """What a reference to a resource of ``type_name`` at ``path`` loads: "instance",
    "texture", "material", "mesh", or None for nothing texbudget prices."""
    suffix = suffix_of(path.rpartition("::")[2]) if path else ""
    if type_name == "PackedScene":
        return "instance"
    if is_material_type(type_name):
        return "material"
    if is_texture_type(type_name):
        return "instance" if suffix in RESOURCE_SUFFIXES else "texture"  # an AtlasTexture .tres holds its image
    if is_mesh_type(type_name):
        return "mesh"
    if _SKIPPED_TYPES.match(type_name):
        return None
    if suffix in RESOURCE_SUFFIXES or (not suffix and not type_name):
        return "instance"
    return None


def _instance_count(props: dict[str, object]) -> int:
    """A MultiMesh's ``instance_count`` (0 when absent or not a count)."""
    count = props.get("instance_count", 0)
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 0


def _surface_index(key: str) -> int | None:
    """N of a ``surface_material_override/N`` (Godot 3: ``material/N``) key, else None."""
    for prefix in (_SURFACE_OVERRIDE, _SURFACE_OVERRIDE_3):
        if key.startswith(prefix):
            digits = key[len(prefix):]
            if digits.isdigit() and len(digits) < 4 and int(digits) < 256:  # Godot's surface limit
                return int(digits)
    return None


def _holds_refs(value: object, depth: int = 0) -> bool:
    if isinstance(value, Ref):
        return True
    if depth > 8:
        return False
    if isinstance(value, dict):
        return any(_holds_refs(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_holds_refs(v, depth + 1) for v in value)
    return False


def _merge(rel: str, notes: list[tuple[str, str]]) -> list[Finding]:
    """One finding per code: the first cases named, the rest counted."""
    by_code: dict[str, list[str]] = {}
    for code, message in notes:
        by_code.setdefault(code, []).append(message)
    out = []
    for code, messages in by_code.items():
        unique = list(dict.fromkeys(messages))
        text = "; ".join(unique[:_EXAMPLES])
        if len(unique) > _EXAMPLES:
            text += f"; and {len(unique) - _EXAMPLES} more"
        out.append(findings.make(rel, code, text))
    return out


class _Interpreter:
    """One document → edges, meshes and notes."""

    def __init__(self, doc: Doc, rel: str) -> None:
        self.doc, self.rel = doc, rel
        self.base = posixpath.dirname(rel)
        self.refs: list[SceneRef] = []
        self.meshes: list[MeshFacts] = []
        self.notes: list[tuple[str, str]] = [("TB104", n) for n in doc.notes]
        self.procedural: dict[str, set[str]] = {}  # type -> ids of what is not priced
        self.subs: dict[str, Res] = {r.id: r for r in doc.subs}
        self.holders: dict[str, str] = {}  # material sub-resource id -> holder id
        self.parts: dict[str, str] = {}  # ArrayMesh sub-resource id -> mesh part id
        self.libraries: dict[str, str] = {}  # MeshLibrary sub-resource id -> library part id
        self.visiting: set[str] = set()
        materials = meshes = 0
        for r in doc.subs:
            if is_material_type(r.type):
                self.holders[r.id] = f"{rel}#material/{materials}"
                materials += 1
            elif r.type == "ArrayMesh":
                self.parts[r.id] = f"{rel}#mesh/{meshes}"
                meshes += 1
            elif r.type == "MeshLibrary":
                self.libraries[r.id] = f"{rel}#library/{len(self.libraries)}"
        self.main_part = f"{rel}#mesh/{meshes}"

    # targets
    def target(self, path: str, uid: str, where: str) -> str | None:
        """A target id from an external resource's path and uid, or None (with a note) for a
        path that cannot be followed."""
        if path and "://" not in path:
            if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
                self.notes.append(("TB106", f"{where or self.rel}: the absolute path {path!r} was not followed"))
                return None
            joined = posixpath.normpath(posixpath.join(self.base, path))
            if joined.startswith("../") or joined == "..":
                self.notes.append(("TB106", f"{where or self.rel}: {path!r} leaves the scan root; not followed"))
                return None
            path = joined
        elif path and not path.startswith(("res://", "uid://")):
            self.notes.append(("TB106", f"{where or self.rel}: {path!r} is not a res:// path; not followed"))
            return None
        if uid and _UID.fullmatch(uid) and path and not path.startswith("uid://"):
            return f"{uid}::{path}"
        return path or (uid if uid and _UID.fullmatch(uid) else None)

    def resolve(self, ref: Ref, where: str) -> tuple[str, str, str] | None:
        """(target id, kind, type) of a reference; kind is an edge kind, or "sub" for a
        sub-resource that is no material or mesh (its own properties give its edges),
        "procedural" / "multimesh"; None when it leads nowhere."""
        if ref.kind == "ext":
            ext = self.doc.ext.get(ref.id)
            if ext is None:
                self.notes.append(("TB103", f"{where or self.rel}: ExtResource(\"{ref.id}\") is not declared"))
                return None
            kind = edge_kind(ext.type, ext.path or ext.uid)
            if kind is None:
                return None
            target = self.target(ext.path, ext.uid, where)
            return (target, kind, ext.type) if target else None
        if ref.kind == "sub":
            sub = self.subs.get(ref.id)
            if sub is None:
                self.notes.append(("TB103", f"{where or self.rel}: SubResource(\"{ref.id}\") is not declared"))
                return None
            if ref.id in self.holders:
                return self.holders[ref.id], "material", sub.type
            if ref.id in self.parts:
                return self.parts[ref.id], "mesh", sub.type
            if sub.type == "MultiMesh":
                return ref.id, "multimesh", sub.type
            if sub.type in _PRIMITIVE_MESHES or (is_texture_type(sub.type) and not _holds_refs(sub.props)):
                return ref.id, "procedural", sub.type  # an AtlasTexture's atlas is a reference: scanned
            return ref.id, "sub", sub.type
        uid = ref.id if ref.id.startswith("uid://") else ""
        path = ref.fallback if uid else ref.id
        suffix = suffix_of(path)
        if suffix in IMAGE_SUFFIXES:
            kind = "texture"
        elif not suffix or suffix in RESOURCE_SUFFIXES or suffix in SCENE_SUFFIXES:
            kind = "instance"
        else:
            return None  # Resource("res://script.gd"), a sound, a font: nothing priced
        target = self.target(path, uid, where)
        return (target, kind, "") if target else None

    # edges
    def add(self, holder: str, target: str, kind: str, where: str, **extra: object) -> None:
        self.refs.append(SceneRef(holder=holder, target=target, kind=kind, where=where, **extra))  # type: ignore[arg-type]

    def scan(self, value: object, holder: str, slot: str, where: str, depth: int = 0) -> None:
        """Every reference inside ``value`` (a property of ``slot``) as an edge of ``holder``."""
        if isinstance(value, Ref):
            self.edge(value, holder, slot, where)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, (Ref, list, dict, Call)):
                    self.scan(item, holder, slot, where, depth + 1)
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, (Ref, list, dict, Call)):
                    self.scan(item, holder, slot, where, depth + 1)
        elif isinstance(value, Call) and value.args:
            for item in value.args:
                self.scan(item, holder, slot, where, depth + 1)

    def edge(self, ref: Ref, holder: str, slot: str, where: str) -> None:
        found = self.resolve(ref, where)
        if found is None:
            return
        target, kind, type_name = found
        if kind == "texture":
            self.add(holder, target, "texture", where, slot=slot)
        elif kind == "instance" and self.in_3d(holder, slot) and (is_texture_type(type_name) or type_name in _RELAYS):
            self.add(holder, target, kind, where, slot=slot)  # an AtlasTexture or SpriteFrames file: its textures fill the slot
        elif kind in ("material", "instance", "mesh"):
            self.add(holder, target, kind, where)
        elif kind == "multimesh":
            self.multimesh(ref.id, where, "", ())
        elif kind == "sub" and self.in_3d(holder, slot) and ref.id not in self.visiting:
            self.visiting.add(ref.id)  # a material's AtlasTexture or Sky, a Sprite3D's SpriteFrames: its references fill the slot too
            for value in self.subs[ref.id].props.values():
                self.scan(value, holder, slot, where)
            self.visiting.discard(ref.id)
        elif kind == "procedural":
            self.procedural.setdefault(type_name, set()).add(target)

    def in_3d(self, holder: str, slot: str) -> bool:
        """A reference held by a material (``holder`` is not the file), or by a 3D sprite's
        property: what it leads to is drawn by a 3D material in ``slot``."""
        return holder != self.rel or slot.startswith(_SPRITE_3D_SLOTS)

    def material(self, value: object, where: str) -> str:
        """The target id of a material property's value ("" when it holds none)."""
        if not isinstance(value, Ref):
            return ""
        found = self.resolve(value, where)
        return found[0] if found is not None and found[1] == "material" else ""

    def mesh(self, value: object, where: str, count: int, material: str, surfaces: tuple[str, ...],
             slot: str = "") -> bool:
        """A "mesh" edge for a mesh property (``slot``: a MeshLibrary item's, ``item/N``); True
        when one was written."""
        if not isinstance(value, Ref):
            return False
        found = self.resolve(value, where)
        if found is None:
            return False
        target, kind, type_name = found
        if kind == "mesh":
            self.add(self.rel, target, "mesh", where, count=count, material=material, surfaces=surfaces, slot=slot)
            return True
        if kind == "procedural":
            self.procedural.setdefault(type_name, set()).add(target)
        elif kind in ("instance", "material", "texture"):
            self.edge(value, self.rel, "mesh", where)
        return False

    def multimesh(self, sub_id: str, where: str, material: str, surfaces: tuple[str, ...]) -> None:
        props = self.subs[sub_id].props
        if not self.mesh(props.get("mesh"), where, _instance_count(props), material, surfaces) and material:
            self.add(self.rel, material, "material", where)

    # nodes
    def nodes(self) -> None:
        nodes = self.doc.nodes
        root = nodes[0].name if nodes else ""
        if self.doc.base_scene is not None and isinstance(self.doc.base_scene, Ref):
            self.edge(self.doc.base_scene, self.rel, "", root)
        for node in nodes:
            where = node_path(root, node)
            if node.type.startswith("CSG") and node.type not in ("CSGMesh3D", "CSGCombiner3D"):
                self.procedural.setdefault(node.type, set()).add(where)  # its mesh is built at run time
            if node.instance is not None:
                self.instance(node.instance, where)
            self.node(node.props, where, f"{node.type}." if node.type in SPRITES_3D else "")
            if node.type == "GridMap" or node.instance is not None:
                self.gridmap(node, where)

    def instance(self, ref: object, where: str) -> None:
        if not isinstance(ref, Ref):
            return
        found = self.resolve(ref, where)
        if found is not None and found[1] in ("instance", "mesh"):
            self.add(self.rel, found[0], "instance", where)

    def node(self, props: dict[str, object], where: str, prefix: str = "") -> None:
        """A node's edges; ``prefix`` goes before its properties' slots (``Sprite3D.``)."""
        override = self.material(props.get("material_override"), where)
        slots: dict[int, str] = {}
        for key, value in props.items():
            index = _surface_index(key)
            if index is not None:
                slots[index] = self.material(value, where)
        surfaces = tuple(slots.get(i, "") for i in range(max(slots) + 1)) if slots else ()
        placed = self.mesh(props.get("mesh"), where, 1, override, surfaces)
        multimesh = props.get("multimesh")
        if isinstance(multimesh, Ref):
            found = self.resolve(multimesh, where)
            if found is not None and found[1] == "multimesh":
                self.multimesh(multimesh.id, where, override, ())
                placed = True
            elif found is not None:
                self.edge(multimesh, self.rel, "multimesh", where)
        passes = props.get("draw_passes", 1)
        passes = passes if isinstance(passes, int) and 1 <= passes <= 4 else 1
        for i in range(1, passes + 1):
            placed = self.mesh(props.get(f"draw_pass_{i}"), where, 1, override, ()) or placed
        if not placed:  # overrides on an instanced scene's node, or a node without a mesh
            for material in (override, *surfaces):
                if material:
                    self.add(self.rel, material, "material", where)
        for key, value in props.items():
            if key not in _STRUCTURAL and _surface_index(key) is None:
                self.scan(value, self.rel, prefix + key, where)

    def gridmap(self, node: Node, where: str) -> None:
        """A GridMap's cells as "cells" edges (docs/levels.md, "GridMap"): count 0 and slot
        ``mesh_library`` names the library it uses; slot ``item/N`` places item N in ``count``
        cells; on an instanced scene's node that sets ``data``, slot ``data`` (count 0, target
        the scene) says the cells of that scene's root GridMap are replaced, and the items are
        the ones of that root's library unless the node sets its own."""
        props = node.props
        library = self.library(props.get("mesh_library"), where)
        if library:
            self.add(self.rel, library, "cells", where, count=0, slot="mesh_library")
        data = props.get("data")
        if not isinstance(data, dict) or "cells" not in data:
            return  # no cells (an instanced GridMap keeps its scene's)
        items, why = cell_items(data["cells"])
        if why:  # Godot keeps the cells the map had: none, or the instanced scene's
            self.notes.append(("TB104", f"{where}: the GridMap's cells {why}; they are not counted"))
            return
        if node.instance is not None:
            found = self.resolve(node.instance, where) if isinstance(node.instance, Ref) else None
            if found is None or found[1] != "instance":
                return
            self.add(self.rel, found[0], "cells", where, count=0, slot="data")
            library = library or found[0]
        baked = props.get("baked_meshes")
        if not library or (isinstance(baked, list) and any(isinstance(m, Ref) for m in baked)):
            return  # no library: nothing drawn; baked meshes: drawn instead of the cells (their own edges)
        for item, cells in items.items():
            self.add(self.rel, library, "cells", where, count=cells, slot=f"item/{item}")

    def library(self, value: object, where: str) -> str:
        """The target id of a ``mesh_library`` property's MeshLibrary ("" when it holds none)."""
        if not isinstance(value, Ref):
            return ""
        if value.kind == "sub":
            return self.libraries.get(value.id, "")
        found = self.resolve(value, where)
        return found[0] if found is not None and found[1] == "instance" else ""

    # resources
    def resources(self) -> None:
        for res in self.doc.subs:
            self.resource(res, self.holders.get(res.id, self.rel), self.parts.get(res.id, ""), res.id)
        main = self.doc.main
        if main is not None and is_texture_type(main.type) and not _holds_refs(main.props):
            self.procedural.setdefault(main.type, set()).add(self.rel)
        if main is not None and self.doc.kind != "scene":
            self.resource(main, self.rel, self.main_part if main.type == "ArrayMesh" else "", "")

    def resource(self, res: Res, holder: str, part: str, where: str) -> None:
        if part:
            if is_godot3_mesh(res.props):
                self.procedural.setdefault("Godot 3 ArrayMesh", set()).add(part or self.main_part)
            else:
                self.array_mesh(res, part or self.main_part, where)
            for key, value in res.props.items():
                if key != "_surfaces":
                    self.scan(value, holder, key, where)
            return
        if res.type == "MeshLibrary":
            self.mesh_library(res, holder, where)
            return
        if res.type == "MultiMesh":
            if not where:  # a MultiMesh .tres: its instances are placed by whoever loads it
                self.mesh(res.props.get("mesh"), where, _instance_count(res.props), "", ())
            for key, value in res.props.items():
                if key != "mesh":
                    self.scan(value, holder, key, where)
            return
        for key, value in res.props.items():
            self.scan(value, holder, key, where)

    def mesh_library(self, res: Res, holder: str, where: str) -> None:
        """A MeshLibrary: each item's mesh is loaded with it and placed nowhere ("mesh" edge,
        count 0, slot ``item/N``, or ``library/K/item/N`` for the K-th MeshLibrary
        sub-resource); a GridMap's cells place it. Everything else (previews, shapes,
        navigation meshes) is scanned as any resource's properties."""
        part = self.libraries.get(res.id, "") if where else ""
        prefix = f"{part.rpartition('#')[2]}/" if part else ""
        for key, value in res.props.items():
            item = library_item(key)
            if item is not None and item[1] == "mesh":
                self.mesh(value, where, 0, "", (), slot=f"{prefix}item/{item[0]}")
            elif item is None and key.startswith("item/") and key.endswith("/mesh"):
                self.mesh(value, where, 0, "", ())  # no item Godot makes (item/-5): loaded, in no cell
            else:  # a preview is drawn in the editor's palette only: slot "preview" (2D)
                self.scan(value, holder, "preview" if item is not None and item[1] == "preview" else key, where)

    def array_mesh(self, res: Res, part: str, where: str) -> None:
        name = res.props.get("resource_name")
        name = name if isinstance(name, str) and name else (res.id or posixpath.basename(self.rel))

        def material_of(value: object) -> str:
            return self.material(value, where)

        facts, notes = array_mesh(part, name, res.props, material_of)
        self.notes += [("TB104", f"{part}: {n}") for n in notes]
        if facts is not None:
            self.meshes.append(facts)

    def result(self) -> ReadResult:
        self.resources()
        self.nodes()
        if self.procedural:
            kinds = ", ".join(f"{len(ids)} {t}" for t, ids in sorted(self.procedural.items()))
            self.notes.append(("TB105", f"generated at load time or embedded, not priced: {kinds}"))
        refs = tuple(dict.fromkeys(self.refs))
        scene = SceneFacts(path=self.rel, refs=refs, role="scene" if self.doc.kind == "scene" else "resource")
        return ReadResult(meshes=tuple(self.meshes), scenes=(scene,), findings=tuple(_merge(self.rel, self.notes)))


def node_path(root: str, node: Node) -> str:
    """``Root/Parent/Name`` from a node's ``parent`` as the file writes it."""
    if node.parent is None:
        return node.name
    if node.parent in (".", ""):
        return f"{root}/{node.name}"
    return f"{root}/{node.parent}/{node.name}"


def interpret(doc: Doc, rel: str) -> ReadResult:
    """What a parsed document loads: its SceneFacts (edges), MeshFacts and findings."""
    return _Interpreter(doc, rel).result()


# --- the registry's entry points -----------------------------------------------------------------


def _load(src: Source) -> bytes | None:
    if src.data is not None:
        return src.data
    with src.open() as f:
        return read_upto(f, MAX_TEXT_BYTES + 1)


def read_godot_text(src: Source) -> ReadResult:
    """A ``.tscn`` / ``.tres`` / ``.escn`` (a binary resource under such a name is read as one)."""
    data = _load(src)
    assert data is not None
    if not data:
        return ReadResult(findings=(findings.make(src.rel, "TB040", "the file is empty (0 bytes)"),))
    if data[:4] in _BINARY_MAGICS:
        note = findings.make(src.rel, "TB003", f"the file is a binary Godot resource named {src.suffix}; read as binary")
        return ReadResult(findings=(note,)) + _binary(src, data)
    if len(data) > MAX_TEXT_BYTES:
        return ReadResult(findings=(findings.make(src.rel, "TB107", f"the text resource is over {MAX_TEXT_BYTES // 2**20} MiB; it was not read"),))
    text = data.decode("utf-8-sig", "replace")
    if "\0" in text:  # Godot's text loader stops at a NUL byte, as at the end of the file
        text = text[: text.index("\0")]
    try:
        doc = text_doc(parse_sections(text))
    except GodotSyntaxError as exc:
        return ReadResult(findings=(findings.make(src.rel, "TB100", f"not a valid Godot text resource: {exc}"),))
    except RecursionError:
        return ReadResult(findings=(findings.make(src.rel, "TB107", "values are nested too deep to read"),))
    return interpret(doc, src.rel)


def read_godot_binary(src: Source) -> ReadResult:
    """A ``.scn`` / ``.res`` / ``.mesh`` / ``.lmbake`` (a text resource under such a name is
    read as text)."""
    if src.data is not None:
        return _binary(src, src.data)
    with src.open() as f:
        head = f.read(4)
        if not head:
            return ReadResult(findings=(findings.make(src.rel, "TB040", "the file is empty (0 bytes)"),))
        if head not in _BINARY_MAGICS:
            return _not_binary(src, head)
        try:  # a big mesh is read where it lies, not copied into memory
            view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError, io.UnsupportedOperation):  # bytes already in memory (prefetched), or no map
            f.seek(0)
            data = read_upto(f, MAX_TEXT_BYTES + 1)
            if len(data) > MAX_TEXT_BYTES:
                return ReadResult(findings=(findings.make(src.rel, "TB102", f"over {MAX_TEXT_BYTES // 2**20} MiB and cannot be mapped; not read"),))
            return _binary(src, data)
        with view:
            return _binary(src, view)


def _not_binary(src: Source, head: bytes) -> ReadResult:
    if len(head) < 4 and any(magic.startswith(head) for magic in _BINARY_MAGICS):
        return ReadResult(findings=(findings.make(src.rel, "TB101", f"broken Godot binary resource: the file ends inside its signature ({head!r})"),))
    if head.startswith(b"[gd_") or head.startswith(b"\xef\xbb\xbf["):
        note = findings.make(src.rel, "TB003", f"the file is a Godot text resource named {src.suffix}; read as text")
        return ReadResult(findings=(note,)) + read_godot_text(src)
    if src.suffix in SHARED_SUFFIXES:  # an Ogre .mesh, a Windows .res
        return ReadResult(findings=(findings.make(src.rel, "TB108", f"{src.suffix} file that is not a Godot resource (it starts with {head!r}); not read"),))
    return ReadResult(findings=(findings.make(src.rel, "TB101", f"not a Godot binary resource: it starts with {head!r}, not RSRC"),))


def _binary(src: Source, buf: bytes | mmap.mmap) -> ReadResult:
    if len(buf) == 0:
        return ReadResult(findings=(findings.make(src.rel, "TB040", "the file is empty (0 bytes)"),))
    if bytes(buf[:4]) not in _BINARY_MAGICS:
        return _not_binary(src, bytes(buf[:4]))
    try:
        doc = read_doc(buf, len(buf))
    except UnsupportedError as exc:
        return ReadResult(findings=(findings.make(src.rel, "TB102", f"{exc}"),))
    except BinaryError as exc:
        return ReadResult(findings=(findings.make(src.rel, "TB101", f"broken Godot binary resource: {exc}"),))
    return interpret(doc, src.rel)

