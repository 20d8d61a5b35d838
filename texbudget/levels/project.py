"""The engine project of one scan: the Godot and Unity indexes behind the resolver's one
``Project`` (``texbudget.levels.graph``), where a level's project root is, and which scenes a
project's levels are when the config names none.

``EngineProject(root)`` answers every id the readers write: ``unity:<guid>:<fileID>`` through the
Unity index (``levels/unity.py``, built on first use: every .meta of the project read once, kept
between runs by ``levels/metacache.py``), ``res://`` and ``uid://`` through the Godot index
(``levels/godot.py``, lazy file by file), anything else as a path relative to the scan root.
One object serves a whole scan: each index is built once.

A Unity mesh is named by a fileID inside its model, which the index matches against the names
of the meshes the model's reader gave (``UnityProject.resolve(meshes=…)``). The resolver sets
``graph`` before it walks; while a model has not been read yet, an id inside it resolves to
the model file itself, so the resolver asks for it to be read, and the next round finds the
mesh.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from texbudget.levels.godot import GodotIndex
from texbudget.levels.graph import ENGINE_PREFIXES, Graph, instanced_scenes, normal_path
from texbudget.levels.unity import MODEL_SUFFIXES, UnityProject
from texbudget.model import Finding, SceneFacts, is_part

_GODOT_SCENES = (".tscn", ".scn", ".escn")
_UNITY_SCENES = (".unity", ".prefab")


def project_root(path: Path) -> Path | None:
    """The root of the engine project a scene file belongs to: the folder of the nearest
    ``project.godot`` above a Godot scene, the folder that holds the ``Assets`` folder above a
    Unity scene or prefab; None for a glTF, or a scene in no project."""
    path = Path(path).resolve()
    name = path.name.lower()
    if name.endswith(_GODOT_SCENES):
        return next((folder for folder in path.parents if (folder / "project.godot").is_file()), None)
    if name.endswith(_UNITY_SCENES):
        return next((folder.parent for folder in path.parents if folder.name == "Assets"), None)
    return None


class EngineProject:
    """The ``Project`` of a scan root: Godot and Unity ids, plain paths, built-ins.
    ``files``: paths discovery listed (spare the Godot index a stat for them);
    ``use_cache``: keep the Unity index's .meta files between runs."""

    def __init__(self, root: Path, files: Iterable[str] = (), *, use_cache: bool = False) -> None:
        self.root = Path(root)
        self.files = frozenset(files)
        self.use_cache = use_cache
        self._graph: Graph | None = None
        self._godot: GodotIndex | None = None
        self._unity: UnityProject | None = None
        # answers already given: a level names the same props thousands of times. Godot's by
        # (target, holder file), for the whole scan; Unity's by (target, kind), for one
        # graph (a model read since may name a mesh that was not there)
        self._godot_paths: dict[tuple[str, str], str | None] = {}
        self._unity_paths: dict[tuple[str, str], str | None] = {}

    @property
    def graph(self) -> Graph | None:
        """The facts the resolver walks (a Unity mesh is matched by the names in them)."""
        return self._graph

    @graph.setter
    def graph(self, graph: Graph | None) -> None:
        if graph is not self._graph:
            self._unity_paths.clear()
        self._graph = graph

    @property
    def godot(self) -> GodotIndex:
        if self._godot is None:
            self._godot = GodotIndex(self.root, self.files)
        return self._godot

    @property
    def unity(self) -> UnityProject:
        if self._unity is None:
            from texbudget.levels.metacache import read_index

            self._unity = read_index(self.root, self.use_cache)
        return self._unity

    def findings(self) -> tuple[Finding, ...]:
        """What the indexes built so far found (TB109, TB115–TB117)."""
        out: list[Finding] = []
        if self._godot is not None:
            out += self._godot.findings
        if self._unity is not None:
            out += self._unity.findings
        return tuple(out)

    # --- the resolver's protocol

    def resolve(self, target: str, holder_file: str, *, kind: str = "") -> str | None:
        if target.startswith("unity:"):
            key = (target, kind)
            if key not in self._unity_paths:
                self._unity_paths[key] = self._unity_path(target, kind)
            return self._unity_paths[key]
        if target.startswith(("res://", "uid://")):
            key = (target, holder_file)
            if key not in self._godot_paths:
                self._godot_paths[key] = self.godot.resolve(target, holder_file)
            return self._godot_paths[key]
        if target.startswith(ENGINE_PREFIXES):
            return None
        return target if is_part(target) else normal_path(target)

    def material_remap(self, material: str) -> str | None:
        if not material.lower().rpartition("#")[0].endswith((".glb", ".gltf")):
            return None
        return self.godot.material_remap(material)

    def builtin(self, target: str) -> str | None:
        found = UnityProject.builtin(target) if target.startswith("unity:") else None
        return None if found is None else f"Unity's {found}"

    def explain(self, target: str, holder_file: str, *, kind: str = "") -> str:
        if target.startswith("unity:"):
            return self.unity.explain(target, "", self._mesh_names, kind=kind)
        return self.godot.explain(target, holder_file, kind=kind)

    # --- Unity

    def _mesh_names(self, model: str) -> Sequence[tuple[str, str]]:
        graph = self.graph
        if graph is None:
            return ()
        return [(part, graph.meshes[part].name) for part in graph.meshes_of.get(model, ())]

    def _unity_path(self, target: str, kind: str) -> str | None:
        unity = self.unity
        path = unity.resolve(target, "", self._mesh_names, kind=kind)
        if path is not None:
            return path
        # an object inside a model that has not been read (or could not be): the model file,
        # which the resolver then asks for (or reports unreadable)
        guid = target.split(":", 2)[1] if target.count(":") >= 2 else ""
        model = unity.paths.get(guid)
        graph = self.graph
        if (model is not None and posixpath.splitext(model)[1].lower() in MODEL_SUFFIXES
                and (graph is None or model not in graph.meshes_of)):
            return model
        return None

    # --- automatic levels

    def automatic_levels(self, scenes: Sequence[SceneFacts], graph: Graph) -> tuple[str, ...]:
        """The levels of the projects in the scan, when the config names none: for a Godot
        project (a ``project.godot`` at or under the scan root), its main scene and every scene
        no other scene instances; for a Unity project (scenes under an ``Assets`` folder), the
        scenes its Build Settings enable, else every ``.unity`` scene. Main scenes first, then
        in path order."""
        godot, unity = [], []
        for scene in scenes:
            low = scene.path.lower()
            if scene.role != "scene":
                continue
            if low.endswith(_GODOT_SCENES) and self._in_godot_project(scene.path):
                godot.append(scene.path)
            elif low.endswith(".unity") and ("/" + scene.path).find("/Assets/") >= 0:
                unity.append(scene.path)
        mains: list[str] = []
        if godot:
            for folder in sorted({self._godot_folder(p) for p in godot}):
                main = self.godot.main_scene(folder)
                if main is not None and main in graph.scenes:
                    mains.append(main)
            used = instanced_scenes(graph, self)
            godot = [p for p in godot if p not in used]
        if unity:
            enabled = [p for p in self.unity.levels if p in graph.scenes]
            unity = enabled or sorted(unity)
        return tuple(dict.fromkeys([*mains, *sorted(godot), *unity]))

    def _godot_folder(self, rel: str) -> str:
        """The scan-root folder of the project.godot ``rel`` belongs to ("" the root)."""
        found = self.godot.project_dir(rel) or ""
        folder = os.path.relpath(found, self.godot.real_root).replace(os.sep, "/")
        return "" if folder == "." else folder

    def _in_godot_project(self, rel: str) -> bool:
        folder = self._godot_folder(rel)
        return not folder.startswith("..") and os.path.isfile(os.path.join(self.root, folder, "project.godot"))
