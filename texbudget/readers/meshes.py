"""OBJ, PLY, STL and OFF through trimesh (imported here, only when such a file is read).

These files carry no GPU layout, so every mesh is priced in the default engine layout
(``sizing.meshes.DEFAULT_LAYOUT``: position f32x3 + normal f32x3 + tangent f32x4 + uv f32x2 =
48 B/vertex) with triangle-list indices, u16 up to 65535 vertices, else u32 (× 3 per triangle).

Counts are trimesh's after its default processing: identical vertices are welded (STL stores
three corners per triangle; engines weld them on import), vertices that differ in UV or normal
stay apart (an OBJ ``f 1/1/1`` vs ``1/2/1``). A file trimesh loads as a scene gives one mesh per
geometry (``file.obj#mesh/N`` in the scene's order) and a SceneFacts with each geometry's
instance count from the scene graph. A single-mesh file named ``rock_LOD1.obj`` is LOD 1 of
the group ``<folder>/rock#lod`` (its sibling ``rock_LOD0.obj`` is LOD 0).

Safety: the file is read into memory only below MAX_MESH_FILE_BYTES (256 MiB; trimesh's
parsers build arrays several times the file size), and handed to trimesh as bytes, with no
file name: trimesh then has no resolver, so an OBJ's ``mtllib`` or texture paths can never
make it open another file, and remote loading stays off.

Memory: trimesh's meshes hold reference cycles (their caches keep bound methods of the mesh),
vertex and face arrays included, so only the cyclic collector frees them; a scan pauses the
collector while it reads, and forked worker processes inherit that. ``collector.own_garbage`` collects
each file's cycles as soon as the facts are out, walking only the objects that file made.
"""

from __future__ import annotations

import io
import logging
import posixpath
import warnings
from collections.abc import Hashable

from texbudget.collector import own_garbage
from texbudget.model import MeshFacts, PrimitiveFacts, ReadResult, SceneFacts
from texbudget.readers import Source
from texbudget.readers._common import fail, read_upto
from texbudget.sizing.meshes import DEFAULT_LAYOUT, index_bytes_per, lod_of

#: Largest mesh file handed to trimesh.
MAX_MESH_FILE_BYTES = 256 * 1024 * 1024

_TYPES = {".obj": "obj", ".ply": "ply", ".stl": "stl", ".off": "off"}

# trimesh logs parse failures at WARNING with a traceback ("failed to extract face_normals");
# with no logging configured Python would print them to stderr. The finding already says it.
logging.getLogger("trimesh").addHandler(logging.NullHandler())


def read_trimesh(src: Source) -> ReadResult:
    """One MeshFacts per mesh trimesh finds in the file (``source="trimesh"``)."""
    rel = src.rel
    file_type = _TYPES.get(src.suffix)
    if file_type is None:
        return fail(rel, "TB085", f"{src.suffix or 'no suffix'}: not a mesh type the trimesh reader handles")
    size = src.size()
    if size > MAX_MESH_FILE_BYTES:
        return fail(rel, "TB086", f"the file is {size} bytes; texbudget hands at most {MAX_MESH_FILE_BYTES} to trimesh")
    with src.open() as f:
        data = read_upto(f, MAX_MESH_FILE_BYTES + 1)
    if len(data) > MAX_MESH_FILE_BYTES:  # it grew since it was measured
        return fail(rel, "TB086", f"the file is over {MAX_MESH_FILE_BYTES} bytes; texbudget hands at most {MAX_MESH_FILE_BYTES} to trimesh")
    if file_type == "stl":
        bad = _check_binary_stl(rel, data)
        if bad is not None:
            return bad
    with own_garbage():
        return _load(rel, data, file_type)


def _load(rel: str, data: bytes, file_type: str) -> ReadResult:
    import numpy as np
    import trimesh

    try:
        # numpy warns (overflow, invalid values) on hostile counts and coordinates; the
        # result or the finding says what matters, stderr stays clean.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            loaded = trimesh.load(io.BytesIO(data), file_type=file_type, process=True)
    except Exception as exc:  # trimesh raises anything (ValueError, IndexError, …) for a bad file
        return fail(rel, "TB085", f"trimesh could not read it as {file_type.upper()}: {type(exc).__name__}: {str(exc)[:200]}")
    if isinstance(loaded, trimesh.Scene):
        geometry = [(name, g) for name, g in loaded.geometry.items() if isinstance(g, trimesh.Trimesh)]
        counts: dict[Hashable, int] = {}  # by geometry name (the scene graph types it Hashable)
        for node in loaded.graph.nodes_geometry:
            name = loaded.graph[node][1]
            counts[name] = counts.get(name, 0) + 1
    elif isinstance(loaded, trimesh.Trimesh):
        geometry, counts = [(None, loaded)], {}
    else:
        geometry, counts = [], {}
    geometry = [(name, g) for name, g in geometry if len(g.faces) > 0]
    if not geometry:
        return fail(rel, "TB087", f"trimesh found no triangles in it ({type(loaded).__name__})")
    stem = posixpath.splitext(rel)[0]  # folder/rock_LOD1.obj: the file's LODs group by folder/rock
    meshes = []
    for n, (name, mesh) in enumerate(geometry):
        vertices = int(np.asarray(mesh.vertices).shape[0])
        triangles = int(np.asarray(mesh.faces).shape[0])
        # LODs by file name only: trimesh names OBJ geometries after objects and materials
        # loosely (a split by material is "Rock_LOD0_1"), so those names do not say the LOD.
        lod = lod_of(stem) if len(geometry) == 1 else None
        group = None if lod is None else f"{lod[0]}#lod"
        meshes.append(_facts(f"{rel}#mesh/{n}", name or posixpath.basename(stem), vertices, triangles, lod, group))
    scenes: tuple[SceneFacts, ...] = ()
    if counts:
        scenes = (SceneFacts(path=rel, mesh_paths=tuple(m.path for m in meshes),
                             mesh_counts=tuple(counts.get(name or "", 0) for name, _ in geometry)),)
    return ReadResult(meshes=tuple(meshes), scenes=scenes)


def _check_binary_stl(rel: str, data: bytes) -> ReadResult | None:
    """A binary STL is an 80-byte header, a u32 triangle count and 50 bytes per triangle.
    When the length disagrees with the count and the file does not read as ASCII (``solid``),
    say so: trimesh would fall back to its ASCII parser and report something unrelated."""
    if data.lstrip()[:5].lower() == b"solid":
        return None  # ASCII (or a binary file whose header starts "solid": trimesh decides)
    if len(data) < 84:
        return fail(rel, "TB085", f"binary STL header truncated: the file has {len(data)} bytes, the header and triangle count need 84")
    count = int.from_bytes(data[80:84], "little")
    needed = 84 + 50 * count
    if needed != len(data):
        return fail(rel, "TB085", f"binary STL header gives {count} triangles, which need {needed} bytes; the file has {len(data)}")
    return None


def _facts(path: str, name: str, vertices: int, triangles: int, lod: tuple[str, int] | None, group: str | None) -> MeshFacts:
    """A mesh in the default engine layout: 48 B/vertex, 3 indices per triangle."""
    index_size = index_bytes_per(vertices)
    prim = PrimitiveFacts(mode=4, vertex_count=vertices, triangles=triangles, index_count=3 * triangles, index_bytes_per=index_size)
    return MeshFacts.from_primitives(
        path=path,
        name=name,
        primitives=(prim,),
        vertices=vertices,
        indices=3 * triangles,
        triangles=triangles,
        vertex_bytes=vertices * DEFAULT_LAYOUT.bytes_per_vertex,
        index_bytes=3 * triangles * index_size,
        source="trimesh",
        lod=None if lod is None else lod[1],
        lod_group=group,
    )

