"""What one level loads: the scan's facts walked from a scene file (docs/levels.md).

Pure: the facts of the files read (a ``Graph``) and a ``Project`` that turns engine ids into
paths go in; a ``Level`` comes out — every mesh the level places with its instance count, every
texture it loads with the materials that use it, the files it needs, and findings for what it
names but cannot have. Nothing here reads a file; ``wanted`` tells the caller which files a
level needs that were not read yet, so the caller can read them and resolve again.

A file's content is found once however many times it is instanced (``_content`` is memoized
per file), so a scene that places one prop ten thousand times, or a prop that nests others, is
walked once; the counts multiply. A scene that instances itself, directly or through others, is
a TB122 finding on the edge that closes the loop, and that edge is not followed.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from texbudget import findings
from texbudget.model import Finding, MeshFacts, SceneFacts, SceneRef, file_of, is_part

#: Ids an engine's project index resolves; anything else is a path relative to the scan root.
ENGINE_PREFIXES = ("res://", "uid://", "unity:")
#: The slot of a MeshLibrary item's "mesh" edge: ``item/N``, or ``library/K/item/N`` in the
#: K-th MeshLibrary sub-resource of a file (readers/godot_scene.py).
_ITEM_SLOT = re.compile(r"(?:library/[0-9]+/)?item/[0-9]+")
#: A scene whose root GridMap takes its library from another scene's root: followed this deep.
MAX_LIBRARY_DEPTH = 8


class Project(Protocol):
    """What an engine's project index offers the resolver (texbudget/levels/godot.py, unity.py;
    ``texbudget.levels.project.EngineProject`` puts them together)."""

    def resolve(self, target: str, holder_file: str, *, kind: str = "") -> str | None:
        """The path relative to the scan root (a file or a part) an id names, or None when the
        project does not know it. ``kind`` is the edge's (``"material"`` for a material id: a
        Unity model's own material is ``""``, the mesh's own)."""
        ...

    def material_remap(self, material: str) -> str | None:
        """The material that replaces a model's own (Godot's material extraction of an
        imported scene), or None."""
        ...

    def builtin(self, target: str) -> str | None:
        """The name of an engine's built-in resource an id names (Unity's Cube mesh), which
        ships with the engine and is not priced; None for anything else."""
        ...

    def explain(self, target: str, holder_file: str, *, kind: str = "") -> str:
        """Why ``target`` does not resolve, in words ("" when there is nothing to add)."""
        ...


class PlainProject:
    """No engine project: targets are paths relative to the scan root; engine ids are unknown."""

    def resolve(self, target: str, holder_file: str, *, kind: str = "") -> str | None:
        if target.startswith(ENGINE_PREFIXES):
            return None
        return normal_path(target)

    def material_remap(self, material: str) -> str | None:
        return None

    def builtin(self, target: str) -> str | None:
        return None

    def explain(self, target: str, holder_file: str, *, kind: str = "") -> str:
        return ""


def normal_path(path: str) -> str | None:
    """``a/./b/../c.png`` -> ``a/c.png``; None for a path that leaves the root or is absolute."""
    if not path or path.startswith("/") or "\\" in path or (len(path) > 1 and path[1] == ":"):
        return None
    joined = posixpath.normpath(path)
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


@dataclass(frozen=True, slots=True)
class Level:
    """What one level loads. ``meshes``: mesh path -> instances in the level (the sum over every
    path to it of the product of counts); ``textures``: texture path -> the (material, slot)
    pairs that load it (a texture reached twice is one texture); ``files``: every file the level
    needs, the level's own file first; ``wanted``: files it names that the graph has no facts
    for and no finding about (the caller reads them and resolves again)."""

    name: str
    scene: str
    meshes: Mapping[str, int] = field(default_factory=dict)
    textures: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    wanted: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()


class Graph:
    """The facts of the files read, indexed for walking. ``read`` names every file that was
    read (with facts or only findings); a file read that gave no facts is "unreadable"."""

    def __init__(self, meshes: Iterable[MeshFacts], scenes: Iterable[SceneFacts],
                 textures: Iterable[str], read: Collection[str]) -> None:
        self.meshes: dict[str, MeshFacts] = {}
        self.meshes_of: dict[str, list[str]] = {}
        for mesh in meshes:
            self.meshes[mesh.path] = mesh
            self.meshes_of.setdefault(file_of(mesh.path), []).append(mesh.path)
        self.scenes: dict[str, SceneFacts] = {s.path: s for s in scenes}
        self.refs: dict[str, list[SceneRef]] = {}  # holder -> its edges
        self.usage: dict[str, list[tuple[str, str]]] = {}  # glTF material -> (texture, slot)
        self.items: dict[tuple[str, str], list[SceneRef]] = {}  # (MeshLibrary file, item slot) -> its mesh
        for scene in self.scenes.values():
            for ref in scene.refs:
                self.refs.setdefault(ref.holder, []).append(ref)
                if ref.kind == "mesh" and ref.slot and _ITEM_SLOT.fullmatch(ref.slot):
                    self.items.setdefault((ref.holder, ref.slot), []).append(ref)
            for tex, user, slot in zip(scene.texture_paths, scene.texture_users, scene.texture_slots, strict=True):
                self.usage.setdefault(user, []).append((tex, slot))
        self.textures = frozenset(textures)
        self.texture_files = frozenset(file_of(t) for t in self.textures)
        self.read = frozenset(read)

    def has_facts(self, file: str) -> bool:
        return file in self.scenes or file in self.meshes_of or file in self.texture_files


@dataclass(slots=True)
class _Content:
    """One instance of a file: the meshes it places (with counts) and what it loads once."""

    meshes: dict[str, int] = field(default_factory=dict)
    textures: dict[str, dict[tuple[str, str], None]] = field(default_factory=dict)
    files: dict[str, None] = field(default_factory=dict)
    # (material, file naming it) loaded into this instance already: loading one again adds
    # nothing (and a material that names itself, through next_pass, is not walked forever)
    materials: set[tuple[str, str]] = field(default_factory=set)

    def add(self, other: _Content, times: int) -> None:
        for mesh, n in other.meshes.items():
            self.meshes[mesh] = self.meshes.get(mesh, 0) + n * times
        for tex, users in other.textures.items():
            self.textures.setdefault(tex, {}).update(users)
        self.files.update(other.files)


class _Walk:
    def __init__(self, graph: Graph, project: Project) -> None:
        self.graph = graph
        self.project = project
        self.done: dict[tuple[str, bool], _Content] = {}  # (file, its root cells replaced) -> content
        self.active: list[str] = []  # the files being walked, outermost first
        self.found: dict[tuple[str, str, str], None] = {}  # (path, code, message), made at the end
        self.wanted: dict[str, None] = {}

    def note(self, path: str, code: str, message: str) -> None:
        self.found[(path, code, message)] = None

    def all_findings(self) -> tuple[Finding, ...]:
        return tuple(findings.make(*key) for key in self.found)

    # --- ids and files

    def target(self, ref: SceneRef, holder_file: str) -> str | None:
        """The path a ref names, or None (with a finding) when it names nothing there is."""
        path = self.project.resolve(ref.target, holder_file, kind=ref.kind)
        if path is None:
            self.unresolved(ref.kind, ref.target, ref.where, holder_file)
            return None
        return path

    def unresolved(self, kind: str, target: str, where: str, holder_file: str) -> None:
        """The finding for an id or path that names nothing: a built-in resource (info), an id
        the project does not know (TB123, with the index's reason), a path outside the root."""
        at = f" ({where})" if where else ""
        builtin = self.project.builtin(target)
        if builtin is not None:
            self.note(holder_file, "TB124", f"{kind} {target}{at} is {builtin}: shipped with the engine, not priced")
        elif target.startswith(ENGINE_PREFIXES):
            why = self.project.explain(target, holder_file, kind=kind)
            self.note(holder_file, "TB123", f"{kind} {target}{at}: " + (why or "the project knows no file by that id") + "; not priced")
        else:
            self.note(holder_file, "TB120", f"{kind} {target}{at} is not a path inside the scan root; not priced")

    def available(self, path: str, ref: SceneRef, holder_file: str) -> bool:
        """The file behind ``path`` has facts; otherwise a finding, or a wish to read it."""
        file = file_of(path)
        graph = self.graph
        if graph.has_facts(file):
            return True
        shown = ref.target if ref.target == path else f"{ref.target} ({path})"
        at = f" ({ref.where})" if ref.where else ""
        if file in graph.read:
            self.note(holder_file, "TB121", f"loads {shown}{at}, which could not be read (its own finding says why); not priced")
        else:
            self.wanted[file] = None
            self.note(holder_file, "TB120", f"loads {shown}{at}, which does not exist; not priced")
        return False

    # --- content

    def content(self, file: str, cells_replaced: bool = False) -> _Content:
        """One instance of ``file``: a scene's edges, or a glTF/FBX/mesh file's own graph.
        ``cells_replaced``: the instancing node sets the root GridMap's cells (Godot's
        ``data``), so the scene's own root cells are not placed."""
        known = self.done.get((file, cells_replaced))
        if known is not None:
            return known
        self.active.append(file)
        out = _Content(files={file: None})
        scene = self.graph.scenes.get(file)
        if scene is not None:
            for mesh, n in zip(scene.mesh_paths, scene.mesh_counts, strict=True):  # a glTF's (or FBX's) own scene graph
                self.place(out, mesh, n, "", (), file)
        self.holder(out, file, file, cells_replaced)
        self.active.pop()
        self.done[(file, cells_replaced)] = out
        return out

    def holder(self, out: _Content, holder: str, file: str, root_cells_replaced: bool = False) -> None:
        """Follow the edges ``holder`` (a file or a material inside it) holds. Instances of
        one file are added together, once (a level places one prop thousands of times)."""
        placed: list[tuple[str, str, int]] = []  # (file, node, count) of each instance edge
        replaced: set[tuple[str, str]] = set()  # (file, node): an instance whose root cells this file sets
        relayed: list[tuple[str, str]] = []  # (file, slot): an AtlasTexture or SpriteFrames file a 3D slot uses
        for ref in self.graph.refs.get(holder, ()):
            if ref.kind == "instance":
                target = self.instance(ref, file)
                if target is not None:
                    placed.append((target, ref.where, max(ref.count, 0)))
                    if ref.slot:
                        relayed.append((target, ref.slot))
            elif ref.kind == "cells":
                if ref.slot == "data":
                    path = self.project.resolve(ref.target, file, kind="instance")
                    if path is not None:
                        replaced.add((file_of(path), ref.where))
                elif ref.count > 0 and not (root_cells_replaced and "/" not in ref.where):
                    self.cells(out, ref, file)
            elif ref.kind == "mesh":
                path = self.target(ref, file)
                if path is not None and self.available(path, ref, file):
                    surfaces = tuple(self.material_id(s, file) for s in ref.surfaces)
                    material = self.material_id(ref.material, file) if ref.material else ""
                    self.place(out, path, ref.count, material, surfaces, file)
            elif ref.kind == "material":
                material = self.material_id(ref.target, file)
                if material:
                    self.material(out, material, file)
            elif ref.kind == "texture":
                path = self.target(ref, file)
                if path is not None and self.available(path, ref, file):
                    self.texture(out, path, holder, ref.slot)
        instances: dict[tuple[str, bool], int] = {}
        for target, where, count in placed:
            key = (target, (target, where) in replaced)
            instances[key] = instances.get(key, 0) + count
        for (target, cells_replaced), count in instances.items():
            out.add(self.content(target, cells_replaced), count)
        for target, slot in relayed:  # its textures fill the slot too (a Sprite3D's, a material's)
            for tex in self.content(target).textures:
                self.texture(out, tex, target, slot)

    def cells(self, out: _Content, ref: SceneRef, file: str) -> None:
        """A GridMap's ``ref.count`` cells of one item (``ref.slot``, ``item/N``): the item's
        mesh placed once per cell. Its library (``ref.target``) is loaded by its own edge,
        which reports it when it is missing; an item the library has no mesh for is TB125."""
        found = self.library(ref.target, file, 0)
        if found is None:
            return
        library, prefix = found
        what = f"{ref.where + ': ' if ref.where else ''}{ref.slot.replace('/', ' ')} ({ref.count:,} cell{'s' if ref.count != 1 else ''})"
        if not library:
            self.note(file, "TB125", f"{what}: the root GridMap of {ref.target} has no MeshLibrary; nothing drawn there")
            return
        meshes = self.graph.items.get((library, prefix + ref.slot), ())
        if not meshes:
            shown = library + (f"#{prefix[:-1]}" if prefix else "")
            self.note(file, "TB125", f"{what}: {shown} gives no mesh for it (no such item, an item without a mesh, "
                                     "or a generated one); nothing priced there")
            return
        for mesh in meshes:
            path = self.project.resolve(mesh.target, library, kind="mesh")
            if path is not None and self.graph.has_facts(file_of(path)):  # else the library's own edge says why
                self.place(out, path, ref.count, "", (), library)

    def library(self, target: str, file: str, depth: int) -> tuple[str, str] | None:
        """(library file, item slot prefix) of a "cells" edge's target: a MeshLibrary file, a
        MeshLibrary sub-resource (``file#library/K``: prefix ``library/K/``), or a scene, whose
        root GridMap's library it is (``("", "")`` when that root has none). None when the
        target is not there to read (its own edge says why)."""
        path = self.project.resolve(target, file, kind="instance")
        if path is None:
            return None
        owner = file_of(path)
        if not self.graph.has_facts(owner):
            return None
        if owner != path:
            return owner, f"{path[len(owner) + 1:]}/"
        if not self.is_scene(owner):
            return owner, ""
        return self.root_library(owner, depth)

    def root_library(self, scene: str, depth: int) -> tuple[str, str] | None:
        """The library of ``scene``'s root GridMap: the one it names, else the one of the
        scene its root instances (an instanced or inherited GridMap scene); ``("", "")``
        for none."""
        if depth >= MAX_LIBRARY_DEPTH:
            return "", ""
        refs = [r for r in self.graph.refs.get(scene, ()) if "/" not in r.where]  # the root node's
        for r in refs:
            if r.kind == "cells" and r.slot == "mesh_library":
                return self.library(r.target, scene, depth + 1)
        for r in refs:
            if r.kind == "instance":
                path = self.project.resolve(r.target, scene, kind="instance")
                if path is not None and self.is_scene(path):
                    return self.root_library(path, depth + 1)
        return "", ""

    def is_scene(self, file: str) -> bool:
        facts = self.graph.scenes.get(file)
        return facts is not None and facts.role == "scene"

    def instance(self, ref: SceneRef, file: str) -> str | None:
        """The file an instance edge loads, or None (with a finding: missing, unreadable, or a
        scene that is being walked, a cycle)."""
        path = self.target(ref, file)
        if path is None or not self.available(path, ref, file):
            return None
        target = file_of(path)
        if target in self.active:
            loop = " -> ".join([*self.active[self.active.index(target):], target])
            at = f" ({ref.where})" if ref.where else ""
            self.note(file, "TB122", f"instances {ref.target}{at}, which instances this scene again ({loop}); that instance is not followed")
            return None
        return target

    def material_id(self, target: str, file: str) -> str:
        """A material's path (a file, or a part: ``town.tscn#material/2``, ``a.glb#material/0``);
        "" when it names nothing (with a finding)."""
        if not target:
            return ""
        if "#material/" in target and not target.startswith(ENGINE_PREFIXES):
            return target  # a material inside a file, named by the reader itself
        path = self.project.resolve(target, file, kind="material")
        if path is None:
            self.unresolved("material", target, "", file)
            return ""
        return path

    def material(self, out: _Content, material: str, file: str) -> None:
        """Load a material: its textures (a glTF material's slots, a material file's or a
        material part's texture edges)."""
        key = (material, file)
        if key in out.materials:
            return
        out.materials.add(key)
        material = self.project.material_remap(material) or material
        owner = file_of(material)
        if owner != file and owner not in out.files:
            if not self.graph.has_facts(owner):
                ref = SceneRef(holder=file, target=material, kind="material")
                if not self.available(material, ref, file):
                    return
            out.files[owner] = None
        for tex, slot in self.graph.usage.get(material, ()):
            self.texture(out, tex, material, slot)
        self.holder(out, material, owner)

    def texture(self, out: _Content, path: str, user: str, slot: str) -> None:
        out.textures.setdefault(path, {})[(user, slot)] = None
        out.files[file_of(path)] = None

    def place(self, out: _Content, path: str, count: int, material: str, surfaces: Sequence[str], file: str) -> None:
        """``count`` instances of a mesh (a part) or of every mesh of a mesh file, with the
        materials its surfaces load."""
        graph = self.graph
        meshes = [path] if is_part(path) or path in graph.meshes else graph.meshes_of.get(path, [])
        for mesh_path in meshes:
            mesh = graph.meshes.get(mesh_path)
            if mesh is None:
                self.note(file, "TB120", f"places mesh {mesh_path}, which its file does not hold; not priced")
                continue
            out.meshes[mesh_path] = out.meshes.get(mesh_path, 0) + max(count, 0)
            mesh_file = file_of(mesh_path)
            out.files[mesh_file] = None
            both = loads_own_material(file)
            for i, prim in enumerate(mesh.primitives):
                override = material or (surfaces[i] if i < len(surfaces) else "")
                if override:
                    self.material(out, override, mesh_file)
                if not override or both:
                    own = self.material_id(prim.material or "", mesh_file)
                    if own:
                        self.material(out, own, mesh_file)


#: Files of an engine whose meshes keep their own materials loaded under an override: Godot
#: (an ArrayMesh's surface materials are dependencies of the mesh resource, loaded with it,
#: whatever a MeshInstance3D draws it with; docs/levels.md, "Overrides").
GODOT_FILES = (".tscn", ".scn", ".escn", ".tres", ".res", ".meshlib")


def loads_own_material(file: str) -> bool:
    """Whether a mesh placed by ``file`` loads its own materials even where the placement
    overrides them: a Godot scene or resource does; a Unity scene or prefab does not (a Unity
    Mesh holds no material: the renderer's ``m_Materials`` are all there is)."""
    return file.lower().endswith(GODOT_FILES)


def resolve_level(scene: str, graph: Graph, project: Project | None = None, name: str = "") -> Level:
    """What the level ``scene`` (a path relative to the scan root) loads."""
    walk = _Walk(graph, project or PlainProject())
    if not graph.has_facts(scene):
        if scene in graph.read:
            walk.note(scene, "TB121", "the level's scene file could not be read (its own finding says why); nothing priced")
        else:
            walk.wanted[scene] = None
        return Level(name=name or default_name(scene), scene=scene, wanted=tuple(walk.wanted),
                     findings=walk.all_findings())
    content = walk.content(scene)
    files = dict.fromkeys([scene, *content.files])
    return Level(
        name=name or default_name(scene), scene=scene, meshes=dict(content.meshes),
        textures={tex: tuple(users) for tex, users in content.textures.items()},
        files=tuple(files), wanted=tuple(walk.wanted), findings=walk.all_findings(),
    )


def loaded_textures(files: Iterable[str], graph: Graph, project: Project | None = None) -> dict[str, tuple[str, ...]]:
    """Every texture one instance of each of ``files`` loads (what an "instance" edge with a
    slot hands to that slot: ``levels.reading.project_scan``), in one walk."""
    walk = _Walk(graph, project or PlainProject())
    return {file: tuple(walk.content(file).textures) for file in files}


def default_name(scene: str) -> str:
    """``levels/town.tscn`` -> ``town``."""
    base = posixpath.basename(scene)
    return base.rsplit(".", 1)[0] if "." in base.strip(".") else base


def instanced_scenes(graph: Graph, project: Project | None = None) -> frozenset[str]:
    """Scene files some other scene instances (so they are not levels of their own)."""
    project = project or PlainProject()
    out: set[str] = set()
    for holder, refs in graph.refs.items():
        for ref in refs:
            if ref.kind == "instance":
                path = project.resolve(ref.target, file_of(holder), kind="instance")
                if path is not None and file_of(path) != file_of(holder):
                    out.add(file_of(path))
    return frozenset(out)
