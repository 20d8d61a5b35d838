"""The level resolver (texbudget/levels/graph.py) on hand-made facts: counts multiply along
nested instances, shared assets count once, overrides (a Unity renderer's replace a mesh's own
materials, a Godot one's add to them), and
missing files, unknown ids and cycles are findings, never a hang."""

from __future__ import annotations

from texbudget.levels.graph import Graph, PlainProject, instanced_scenes, normal_path, resolve_level
from texbudget.model import MeshFacts, PrimitiveFacts, SceneFacts, SceneRef


def _mesh(path: str, *materials: str) -> MeshFacts:
    prims = tuple(PrimitiveFacts(mode=4, vertex_count=3, triangles=1, material=m or None) for m in materials or ("",))
    return MeshFacts.from_primitives(path=path, name=path, primitives=prims, vertices=3 * len(prims), indices=0,
                                     triangles=len(prims), vertex_bytes=36 * len(prims), index_bytes=0)


def _scene(path: str, *refs: SceneRef, role: str = "scene", **kw) -> SceneFacts:
    return SceneFacts(path=path, refs=refs, role=role, **kw)


def _ref(holder: str, target: str, kind: str, count: int = 1, **kw) -> SceneRef:
    return SceneRef(holder=holder, target=target, kind=kind, count=count, **kw)


def _graph(meshes=(), scenes=(), textures=(), read=None) -> Graph:
    meshes, scenes, textures = list(meshes), list(scenes), list(textures)
    files = {m.path.split("#")[0] for m in meshes} | {s.path for s in scenes} | {t.split("#")[0] for t in textures}
    return Graph(meshes, scenes, textures, files if read is None else read)


def _codes(level) -> list[tuple[str, str]]:
    return sorted((f.path, f.code) for f in level.findings)


def test_nested_instances_multiply_and_shared_meshes_sum():
    graph = _graph(
        meshes=[_mesh("props/rock.glb#mesh/0"), _mesh("props/barrel.glb#mesh/0"), _mesh("props/bolt.glb#mesh/0")],
        scenes=[
            _scene("town.tscn", _ref("town.tscn", "props/rock.glb#mesh/0", "mesh", 3),
                   _ref("town.tscn", "props/barrel.tscn", "instance", 2),
                   _ref("town.tscn", "props/bolt.tscn", "instance", 1)),
            _scene("props/barrel.tscn", _ref("props/barrel.tscn", "props/barrel.glb#mesh/0", "mesh"),
                   _ref("props/barrel.tscn", "props/bolt.tscn", "instance", 4)),
            _scene("props/bolt.tscn", _ref("props/bolt.tscn", "props/bolt.glb#mesh/0", "mesh")),
        ],
    )
    level = resolve_level("town.tscn", graph)
    assert level.meshes == {"props/rock.glb#mesh/0": 3, "props/barrel.glb#mesh/0": 2, "props/bolt.glb#mesh/0": 2 * 4 + 1}
    assert level.name == "town" and level.findings == () and level.wanted == ()
    assert level.files[0] == "town.tscn"
    assert set(level.files) == {"town.tscn", "props/rock.glb", "props/barrel.tscn", "props/barrel.glb", "props/bolt.tscn", "props/bolt.glb"}


def test_diamond_counts_every_path_and_loads_a_texture_once():
    graph = _graph(
        meshes=[_mesh("d.glb#mesh/0", "d.glb#material/0")],
        scenes=[
            _scene("a.tscn", _ref("a.tscn", "b.tscn", "instance", 2), _ref("a.tscn", "c.tscn", "instance", 3)),
            _scene("b.tscn", _ref("b.tscn", "d.tscn", "instance", 5)),
            _scene("c.tscn", _ref("c.tscn", "d.tscn", "instance", 7)),
            _scene("d.tscn", _ref("d.tscn", "d.glb#mesh/0", "mesh")),
            SceneFacts.from_uses(path="d.glb", texture_usage=(("d.glb#image/0", "d.glb#material/0", "baseColorTexture"),)),
        ],
        textures=["d.glb#image/0"],
    )
    level = resolve_level("a.tscn", graph)
    assert level.meshes == {"d.glb#mesh/0": 2 * 5 + 3 * 7}
    assert level.textures == {"d.glb#image/0": (("d.glb#material/0", "baseColorTexture"),)}


def test_an_instanced_gltf_brings_its_own_scene_graph_and_materials():
    graph = _graph(
        meshes=[_mesh("house.glb#mesh/0", "house.glb#material/0"), _mesh("house.glb#mesh/1", "house.glb#material/1"),
                _mesh("house.glb#mesh/2", "house.glb#material/1")],
        scenes=[
            _scene("level.tscn", _ref("level.tscn", "house.glb", "instance", 4)),
            SceneFacts.from_uses(path="house.glb", instances=(("house.glb#mesh/0", 1), ("house.glb#mesh/1", 6), ("house.glb#mesh/2", 0)),
                                 texture_usage=(("tex/wall.png", "house.glb#material/0", "baseColorTexture"),
                                                ("tex/roof.png", "house.glb#material/1", "baseColorTexture"),
                                                ("tex/unused.png", "house.glb#material/7", "baseColorTexture"))),
        ],
        textures=["tex/wall.png", "tex/roof.png", "tex/unused.png"],
    )
    level = resolve_level("level.tscn", graph)
    assert level.meshes == {"house.glb#mesh/0": 4, "house.glb#mesh/1": 24, "house.glb#mesh/2": 0}
    assert set(level.textures) == {"tex/wall.png", "tex/roof.png"}  # material 7 is on no placed mesh


def _override_graph(ext: str) -> Graph:
    """A two-surface rock placed twice by scenes of suffix ``ext``: ``all`` overrides every
    surface (Godot's ``material_override``), ``one`` surface 0 only (``surfaces``)."""
    own = "rock.glb#material/0"
    return _graph(
        meshes=[_mesh("rock.glb#mesh/0", own, "rock.glb#material/1")],
        scenes=[
            _scene(f"all{ext}", _ref(f"all{ext}", "rock.glb#mesh/0", "mesh", material="mat/moss.tres")),
            _scene(f"one{ext}", _ref(f"one{ext}", "rock.glb#mesh/0", "mesh", surfaces=(f"one{ext}#material/0",)),
                   _ref(f"one{ext}#material/0", "tex/snow.png", "texture", slot="albedo_texture")),
            _scene("mat/moss.tres", _ref("mat/moss.tres", "tex/moss.png", "texture", slot="albedo_texture"), role="resource"),
            SceneFacts.from_uses(path="rock.glb", texture_usage=((("tex/rock.png", own, "baseColorTexture")),
                                                                 ("tex/rock_detail.png", "rock.glb#material/1", "baseColorTexture"))),
        ],
        textures=["tex/rock.png", "tex/rock_detail.png", "tex/moss.png", "tex/snow.png"],
    )


def test_a_godot_override_loads_the_meshes_own_materials_too():
    """Godot loads a mesh resource's surface materials with it (dependencies of the mesh): an
    override changes what the mesh is drawn with, not what is in VRAM."""
    graph = _override_graph(".tscn")
    every = resolve_level("all.tscn", graph)
    assert every.textures == {
        "tex/moss.png": (("mat/moss.tres", "albedo_texture"),),  # the override
        "tex/rock.png": (("rock.glb#material/0", "baseColorTexture"),),  # and the mesh's own two
        "tex/rock_detail.png": (("rock.glb#material/1", "baseColorTexture"),),
    }
    assert "mat/moss.tres" in every.files
    first = resolve_level("one.tscn", graph)
    assert first.textures == {
        "tex/snow.png": (("one.tscn#material/0", "albedo_texture"),),
        "tex/rock.png": (("rock.glb#material/0", "baseColorTexture"),),
        "tex/rock_detail.png": (("rock.glb#material/1", "baseColorTexture"),),
    }


def test_a_unity_override_replaces_the_meshes_own_materials():
    """A Unity Mesh holds no material: the renderer's materials are all that is loaded, a
    surface left empty keeps the model's own."""
    graph = _override_graph(".prefab")
    every = resolve_level("all.prefab", graph)
    assert every.textures == {"tex/moss.png": (("mat/moss.tres", "albedo_texture"),)}
    first = resolve_level("one.prefab", graph)
    assert first.textures == {
        "tex/snow.png": (("one.prefab#material/0", "albedo_texture"),),
        "tex/rock_detail.png": (("rock.glb#material/1", "baseColorTexture"),),  # surface 1 keeps its own
    }


def test_a_mesh_file_places_every_mesh_it_holds():
    graph = _graph(meshes=[_mesh("m/rock.res#mesh/0"), _mesh("m/rock.res#mesh/1")],
                   scenes=[_scene("l.tscn", _ref("l.tscn", "m/rock.res", "mesh", 100, where="L/Rocks"))])
    assert resolve_level("l.tscn", graph).meshes == {"m/rock.res#mesh/0": 100, "m/rock.res#mesh/1": 100}


def test_cycles_are_findings_not_hangs():
    graph = _graph(
        meshes=[_mesh("m.glb#mesh/0")],
        scenes=[
            _scene("a.tscn", _ref("a.tscn", "b.tscn", "instance", 2), _ref("a.tscn", "m.glb#mesh/0", "mesh")),
            _scene("b.tscn", _ref("b.tscn", "a.tscn", "instance", where="B/A")),
            _scene("self.tscn", _ref("self.tscn", "self.tscn", "instance"), _ref("self.tscn", "m.glb#mesh/0", "mesh")),
        ],
    )
    level = resolve_level("a.tscn", graph)
    assert level.meshes == {"m.glb#mesh/0": 1}
    assert _codes(level) == [("b.tscn", "TB122")]
    assert "a.tscn -> b.tscn -> a.tscn" in level.findings[0].message and "(B/A)" in level.findings[0].message
    alone = resolve_level("self.tscn", graph)
    assert alone.meshes == {"m.glb#mesh/0": 1} and _codes(alone) == [("self.tscn", "TB122")]


def test_missing_unreadable_and_unknown_targets_are_findings_naming_both_files():
    graph = _graph(
        scenes=[_scene("l.tscn", _ref("l.tscn", "gone.tscn", "instance", where="L/Gone"),
                       _ref("l.tscn", "broken.glb#mesh/0", "mesh"),
                       _ref("l.tscn", "uid://abc", "instance"),
                       _ref("l.tscn", "../outside.png", "texture"))],
        read={"l.tscn", "broken.glb"},
    )
    level = resolve_level("l.tscn", graph)
    assert _codes(level) == [("l.tscn", "TB120"), ("l.tscn", "TB120"), ("l.tscn", "TB121"), ("l.tscn", "TB123")]
    messages = " | ".join(f.message for f in level.findings)
    assert "gone.tscn (L/Gone), which does not exist" in messages
    assert "broken.glb#mesh/0, which could not be read" in messages
    assert level.wanted == ("gone.tscn",)
    assert level.meshes == {} and level.textures == {}


def test_a_level_not_read_yet_is_wanted_and_an_unreadable_one_is_a_finding():
    graph = _graph(read={"bad.tscn"})
    assert resolve_level("new.tscn", graph).wanted == ("new.tscn",)
    bad = resolve_level("bad.tscn", graph)
    assert _codes(bad) == [("bad.tscn", "TB121")] and bad.wanted == ()


def test_engine_ids_go_through_the_project():
    class Ids(PlainProject):
        def resolve(self, target: str, holder_file: str, *, kind: str = "") -> str | None:
            return {"uid://barrel": "props/barrel.tscn", "res://props/b.glb": "props/b.glb"}.get(target) or super().resolve(target, holder_file)

        def material_remap(self, material: str) -> str | None:
            return {"props/b.glb#material/0": "mat/ext.tres"}.get(material)

    graph = _graph(
        meshes=[_mesh("props/b.glb#mesh/0", "props/b.glb#material/0")],
        scenes=[
            _scene("l.tscn", _ref("l.tscn", "uid://barrel", "instance", 3)),
            _scene("props/barrel.tscn", _ref("props/barrel.tscn", "res://props/b.glb", "instance")),
            SceneFacts.from_uses(path="props/b.glb", instances=(("props/b.glb#mesh/0", 2),),
                                 texture_usage=(("props/own.png", "props/b.glb#material/0", "baseColorTexture"),)),
            _scene("mat/ext.tres", _ref("mat/ext.tres", "tex/ext.png", "texture", slot="albedo_texture"), role="resource"),
        ],
        textures=["props/own.png", "tex/ext.png"],
    )
    project = Ids()
    level = resolve_level("l.tscn", graph, project)
    assert level.meshes == {"props/b.glb#mesh/0": 6}
    assert set(level.textures) == {"tex/ext.png"}  # the extracted material replaced the glb's own
    assert instanced_scenes(graph, project) == frozenset({"props/barrel.tscn", "props/b.glb"})


def test_normal_path():
    assert normal_path("a/./b/../c.png") == "a/c.png"
    assert normal_path("../x.png") is None and normal_path("/abs.png") is None
    assert normal_path("C:/x.png") is None and normal_path("a\\b.png") is None and normal_path("") is None
