"""OBJ / PLY / STL / OFF through trimesh: exact counts and default-layout bytes, scenes,
LOD names, and broken, hostile and oversized files as findings."""

from __future__ import annotations

import builtins
import gc
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

from texbudget.model import ReadResult
from texbudget.readers import meshes as mesh_reader
from texbudget.readers import read_path

QUAD_OBJ = """# a unit quad
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
f 1 2 3 4
"""


def read(root: Path, rel: str) -> ReadResult:
    result = read_path(root, rel)
    assert not [f for f in result.findings if f.code == "TB009"], result.findings
    return result


def only(result: ReadResult, code: str) -> str:
    assert [f.code for f in result.findings] == [code], result.findings
    return result.findings[0].message


def cube_stl() -> bytes:
    """Binary STL of a unit cube: 12 triangles, 36 stored corners, 8 distinct positions."""
    corners = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    out = bytearray(b"\x00" * 80 + struct.pack("<I", len(tris)))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 0)
        for i in t:
            out += struct.pack("<3f", *corners[i])
        out += b"\x00\x00"
    return bytes(out)


def grid_ply(nx: int, ny: int) -> bytes:
    """Binary PLY of an nx × ny vertex grid, two triangles per cell."""
    xs, ys = np.meshgrid(np.arange(nx, dtype="<f4"), np.arange(ny, dtype="<f4"))
    verts = np.stack([xs.ravel(), ys.ravel(), np.zeros(nx * ny, "<f4")], axis=1)
    i = (np.arange(ny - 1)[:, None] * nx + np.arange(nx - 1)[None, :]).ravel()
    tris = np.concatenate([np.stack([i, i + 1, i + nx], 1), np.stack([i + 1, i + nx + 1, i + nx], 1)])
    faces = np.zeros(len(tris), dtype=[("n", "u1"), ("v", "<i4", 3)])
    faces["n"], faces["v"] = 3, tris
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(verts)}\nproperty float x\nproperty float y\n"
              f"property float z\nelement face {len(tris)}\nproperty list uchar int vertex_indices\nend_header\n")
    return header.encode() + verts.tobytes() + faces.tobytes()


def test_obj_quad(tmp_path):
    (tmp_path / "quad.obj").write_text(QUAD_OBJ)
    r = read(tmp_path, "quad.obj")
    assert r.findings == () and r.scenes == ()
    (m,) = r.meshes
    assert (m.path, m.name, m.source, m.vertices, m.triangles, m.indices) == ("quad.obj#mesh/0", "quad", "trimesh", 4, 2, 6)
    # default engine layout: 48 B/vertex; u16 indices × 3 per triangle
    assert (m.vertex_bytes, m.index_bytes) == (4 * 48, 6 * 2)
    assert (m.primitives[0].mode, m.primitives[0].index_bytes_per) == (4, 2)
    # trimesh's meshes are of one primitive, held inline
    assert (m.surfaces, m.mode, m.primitive_count, m.primitives[0].vertex_count, m.primitives[0].index_count) == ((), 4, 1, 4, 6)


def test_stl_corners_are_welded(tmp_path):
    (tmp_path / "cube.stl").write_bytes(cube_stl())
    (m,) = read(tmp_path, "cube.stl").meshes
    assert (m.vertices, m.triangles, m.vertex_bytes, m.index_bytes) == (8, 12, 384, 72)


def test_ply_over_65535_vertices_uses_u32(tmp_path):
    (tmp_path / "grid.ply").write_bytes(grid_ply(300, 240))
    (m,) = read(tmp_path, "grid.ply").meshes
    assert (m.vertices, m.triangles) == (72_000, 2 * 299 * 239)
    assert (m.vertex_bytes, m.index_bytes, m.primitives[0].index_bytes_per) == (72_000 * 48, 3 * 2 * 299 * 239 * 4, 4)


def test_off_tetrahedron(tmp_path):
    (tmp_path / "tet.off").write_text("OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n")
    (m,) = read(tmp_path, "tet.off").meshes
    assert (m.vertices, m.triangles, m.vertex_bytes, m.index_bytes) == (4, 4, 192, 24)


def test_obj_uv_seams_split_vertices(tmp_path):
    # Two triangles share positions 1 and 3 but not their UVs: 6 GPU vertices, as an engine makes.
    obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n" \
          "f 1/1 2/2 3/3\nf 1/5 3/5 4/4\n"
    (tmp_path / "seam.obj").write_text(obj)
    (m,) = read(tmp_path, "seam.obj").meshes
    assert (m.vertices, m.triangles) == (6, 2)


def test_obj_with_two_materials_is_a_scene(tmp_path):
    (tmp_path / "two.mtl").write_text("newmtl a\nKd 1 0 0\nnewmtl b\nKd 0 1 0\n")
    obj = "mtllib two.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 5 5 5\nusemtl a\nf 1 2 3\nusemtl b\nf 1 3 4\nf 1 4 5\n"
    (tmp_path / "two.obj").write_text(obj)
    r = read(tmp_path, "two.obj")
    assert sorted((m.vertices, m.triangles) for m in r.meshes) == [(3, 1), (4, 2)]
    assert [p for p, _ in r.scenes[0].instances] == ["two.obj#mesh/0", "two.obj#mesh/1"]
    assert [n for _, n in r.scenes[0].instances] == [1, 1]


def test_lod_from_file_names(tmp_path):
    (tmp_path / "props").mkdir()
    (tmp_path / "props" / "rock_LOD1.obj").write_text(QUAD_OBJ)
    (m,) = read(tmp_path, "props/rock_LOD1.obj").meshes
    assert (m.name, m.lod, m.lod_group) == ("rock_LOD1", 1, "props/rock#lod")


def test_obj_never_opens_other_files(tmp_path, monkeypatch):
    (tmp_path / "secret.mtl").write_text("newmtl a\nmap_Kd ../../../etc/passwd\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "m.obj").write_text("mtllib ../secret.mtl\nmtllib /etc/passwd\nusemtl a\n" + QUAD_OBJ)
    opened: list[str] = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    r = read(tmp_path / "in", "m.obj")
    monkeypatch.undo()
    assert r.meshes[0].triangles == 2
    assert set(opened) == {str(tmp_path / "in" / "m.obj")}


def test_garbage_is_a_finding(tmp_path):
    (tmp_path / "bad.ply").write_bytes(b"ply\nformat binary_little_endian 1.0\nelement vertex 1099511627776\nproperty float x\nend_header\n\x00")
    assert only(read(tmp_path, "bad.ply"), "TB085") == "trimesh could not read it as PLY: ValueError: PLY is unexpected length!"
    (tmp_path / "junk.ply").write_bytes(b"\x00\x01garbage")
    assert only(read(tmp_path, "junk.ply"), "TB085").startswith("trimesh could not read it as PLY: ")


def test_no_triangles_is_a_finding(tmp_path):
    (tmp_path / "empty.obj").write_text("# nothing\n")
    assert only(read(tmp_path, "empty.obj"), "TB087") == "trimesh found no triangles in it (Scene)"
    (tmp_path / "pts.ply").write_text("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n1 1 1\n")
    assert only(read(tmp_path, "pts.ply"), "TB087") == "trimesh found no triangles in it (PointCloud)"


def test_file_over_the_cap_is_not_read(tmp_path, monkeypatch):
    with open(tmp_path / "huge.stl", "wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse
    assert only(read(tmp_path, "huge.stl"), "TB086") == f"the file is {300 * 1024 * 1024} bytes; texbudget hands at most {256 * 1024 * 1024} to trimesh"
    monkeypatch.setattr(mesh_reader, "MAX_MESH_FILE_BYTES", 10)
    (tmp_path / "quad.obj").write_text(QUAD_OBJ)
    assert only(read(tmp_path, "quad.obj"), "TB086") == f"the file is {len(QUAD_OBJ)} bytes; texbudget hands at most 10 to trimesh"


def test_trimesh_is_imported_only_when_a_mesh_file_is_read(tmp_path):
    (tmp_path / "quad.obj").write_text(QUAD_OBJ)
    code = (
        "import sys\nfrom pathlib import Path\nfrom texbudget.readers import read_path\n"
        "import texbudget.readers.gltf, texbudget.readers.meshes, texbudget.sizing.bvh, texbudget.sizing.meshes\n"
        "assert 'trimesh' not in sys.modules\n"
        f"r = read_path(Path({str(tmp_path)!r}), 'quad.obj')\n"
        "assert 'trimesh' in sys.modules and r.meshes[0].triangles == 2\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


def test_a_paused_collector_keeps_no_trimesh_garbage(tmp_path: Path) -> None:
    """trimesh's meshes are reference cycles holding their arrays; a scan reads with the
    collector paused (worker processes too), so the reader frees each file's cycles itself,
    and what older objects were frozen stays in the collector's care after."""
    for n in range(12):
        (tmp_path / f"quad_{n}.obj").write_text(QUAD_OBJ)
        (tmp_path / f"grid_{n}.ply").write_bytes(grid_ply(4 + n, 3))
    read(tmp_path, "quad_0.obj")  # trimesh imported, its one-time garbage collected
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        for n in range(12):
            assert read(tmp_path, f"quad_{n}.obj").meshes[0].triangles == 2
            assert read(tmp_path, f"grid_{n}.ply").meshes[0].triangles == 2 * (3 + n) * 2
        left = gc.collect()
    finally:
        if was:
            gc.enable()
    assert left == 0, f"{left} objects in reference cycles were left for the collector"
    assert gc.get_freeze_count() == 0
