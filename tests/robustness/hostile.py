"""A folder of a few hundred broken, truncated and hostile files: every container, every kind of
breakage. ``write_hostile_tree(root)`` writes it and returns the manifest: each file's path
(relative, POSIX) and what a scan must say about it.

Expectations, strongest first:

- ``"error"``: the file must have an error finding (it cannot be read as it is);
- ``"finding"``: it must have a finding of some severity (a warning is enough);
- ``"listed"``: it must appear in the report (as facts or a finding); it may still read.

Per seed file (``seeds.all_seeds``: PNG, JPEG, TGA, BMP, TIFF, WebP, GIF, PSD, DDS, KTX,
KTX2, EXR, HDR, glTF, GLB, OBJ, PLY, STL, OFF, Unity scene, prefab and material): empty, cut in its header, cut in half, cut by
one byte, zero-filled, random bytes, a burst of bit flips in the header, junk appended, a
splice of itself, its header fields set to 0 and 2^32−1 (four fields each), and content of
another type under its name; good textures beside broken engine sidecars. Plus hostile glTF
(``hostile_gltf_files``): URIs that leave the
root, absolute paths, ``file:`` and network schemes, bad and huge data URIs, accessor counts
of 2^40, node cycles, JSON nested 100,000 deep, GLB chunk lengths that lie; hostile FBX
(``hostile_fbx_files``): a record end offset that loops back, a zlib array claiming more than
zlib can hold, nesting 10,000 deep, a texture path out of the root; hostile GridMaps and
MeshLibraries (``hostile_gridmap_files``): cells that are not cells, negative items, a binary
cells array claiming 2^31 integers, a library that is its own scene, a GridMap scene that
instances itself; and a few text files with texture names.
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path

from tests.readers import fbx_factories as fbx
from tests.readers import godot_factories as gf
from tests.robustness.seeds import (
    SCENE_ONLY_SEEDS,
    SHARED_SUFFIX_SEEDS,
    TEXT_SEEDS,
    Seed,
    all_seeds,
    checked_length,
    set_field,
)


def _write(root: Path, rel: str, data: bytes, manifest: dict[str, str], expect: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    manifest[rel] = expect


def _seed_files(root: Path, s: Seed, rng: random.Random, manifest: dict[str, str]) -> None:
    folder = s.suffix.lstrip(".")
    stem, suffix = s.name.rsplit(".", 1)
    data = s.data
    n = len(data)
    binary = s.name not in TEXT_SEEDS  # a magic or a fixed header: garbage is an error
    checked = checked_length(s)

    def cut(at: int) -> str:
        return "error" if at < checked else "listed"

    def put(kind: str, content: bytes, expect: str) -> None:
        if s.name in SCENE_ONLY_SEEDS and expect == "listed":
            expect = ""  # read, but the report lists scene files only by their findings
        _write(root, f"{folder}/{stem}.{kind}.{suffix}", content, manifest if expect else {}, expect)

    for name, other in s.companions:  # a .gltf's .bin, once
        _write(root, f"{folder}/{name}", other, {}, "listed")
    put("empty", b"", "error" if binary else "finding")
    put("cut-header", data[:12], "error" if binary else "listed")  # inside every fixed header
    put("cut-half", data[: n // 2], cut(n // 2))
    put("cut-last-byte", data[:-1], cut(n - 1))
    garbage = "finding" if s.name in SHARED_SUFFIX_SEEDS else "error" if binary else "listed"
    put("zeros", bytes(n), garbage)
    put("random", bytes(rng.randrange(256) for _ in range(n)), garbage)
    flipped = bytearray(data)
    for _ in range(8):
        pos = rng.randrange(min(n, 64))
        flipped[pos] ^= 1 << rng.randrange(8)
    put("flipped", bytes(flipped), "listed")
    put("junk-appended", data + bytes(rng.randrange(256) for _ in range(37)), "listed")
    put("spliced", data[: n // 3] + data[: n // 2] + data[n // 3 :], "listed")
    for f in s.fields[:4]:
        for value in (0, 2**32 - 1):
            put(f"set-{f.name.replace('#', '_')}-{value}", set_field(data, f, value), "listed")


def _mislabelled(root: Path, manifest: dict[str, str]) -> None:
    """Content of one type under another type's name: read as what it is (TB003), or refused."""
    by_name = {s.name: s.data for s in all_seeds()}
    pairs = [("palette.png", "really_png.dds"), ("cube_bc1.dds", "really_dds.png"), ("scene.glb", "really_glb.gltf"),
             ("bc7.ktx2", "really_ktx2.ktx"), ("photo.jpg", "really_jpeg.tga"), ("sky.hdr", "really_hdr.exr")]
    for src, rel in pairs:
        _write(root, f"mislabelled/{rel}", by_name[src], manifest, "finding")
    for rel, text in (("text/readme.png", b"this is not a PNG\n"), ("text/notes.dds", b"TODO: export the real texture\n"),
                      ("text/lfs.ktx2", b"version https://git-lfs.github.com/spec/v1\noid sha256:0000\nsize 1048576\n")):
        _write(root, rel, text, manifest, "error")


def _sidecars(root: Path, manifest: dict[str, str], rng: random.Random) -> None:
    """Good textures beside broken engine sidecars (Godot ``.import``, Unity ``.meta``): the
    texture is still read (a TB010/TB011/TB012 finding may say the sidecar was not used)."""
    png = next(s.data for s in all_seeds() if s.name == "palette.png")
    sidecars = {
        "binary.png.import": bytes(rng.randrange(256) for _ in range(512)),
        "cut.png.import": b'[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\n[params]\ncompress/mode=',
        "nested.png.import": b"[params]\n" + b"x=" + b"[" * 50_000 + b"\n",
        "huge.png.meta": b"fileFormatVersion: 2\nTextureImporter:\n" + b"  a: b\n" * 400_000,
        "deep.png.meta": b"TextureImporter:\n" + b"".join(b" " * i + b"k:\n" for i in range(0, 3000, 2)),
        "utf16.png.meta": "TextureImporter:\n  textureType: 0\n".encode("utf-16"),
        "empty.png.meta": b"",
    }
    for name, data in sidecars.items():
        texture = name.rsplit(".", 1)[0]
        _write(root, f"sidecars/{texture}", png, manifest, "listed")
        _write(root, f"sidecars/{name}", data, {}, "listed")


def hostile_gltf_files(folder: str = "") -> dict[str, bytes]:
    """Hostile glTF documents (path relative to the root, under ``folder`` -> bytes); each
    must give an error finding. The ``..`` URIs climb exactly to ``outside.bin`` beside the
    root."""
    asset = {"version": "2.0"}
    prefix = f"{folder.strip('/')}/" if folder.strip("/") else ""
    up = "../" * (prefix.count("/") + 2)  # out of uri/, out of the folders above it, out of the root

    def doc(**parts: object) -> bytes:
        return json.dumps({"asset": asset, **parts}).encode()

    def buffer_uri(uri: str, length: int = 80) -> bytes:
        return doc(buffers=[{"uri": uri, "byteLength": length}])

    def image_uri(uri: str) -> bytes:
        return doc(images=[{"uri": uri}], textures=[{"source": 0}], materials=[{"emissiveTexture": {"index": 0}}])

    tri = {"accessors": [{"componentType": 5126, "type": "VEC3", "count": 3}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}
    files = {
        "uri/dotdot.gltf": buffer_uri(up + "outside.bin"),
        "uri/dotdot_deep.gltf": buffer_uri("a/b/../../" + up + "outside.bin"),
        "uri/dotdot_encoded.gltf": buffer_uri(up.replace("..", "%2e%2e") + "outside.bin"),
        "uri/dotdot_backslash.gltf": buffer_uri(up.replace("/", "\\") + "outside.bin"),
        "uri/absolute.gltf": buffer_uri("/etc/passwd"),
        "uri/absolute_image.gltf": image_uri("/etc/hostname"),
        "uri/drive.gltf": buffer_uri("C:\\Windows\\win.ini"),
        "uri/file_scheme.gltf": buffer_uri("file:///etc/passwd"),
        "uri/file_image.gltf": image_uri("file:///etc/hostname"),
        "uri/http.gltf": buffer_uri("http://127.0.0.1:9/x.bin"),
        "uri/https_image.gltf": image_uri("https://example.com/a.png"),
        "uri/ftp.gltf": buffer_uri("ftp://example.com/x.bin"),
        "uri/nul.gltf": buffer_uri("a\u0000.bin"),
        "data/bad_base64.gltf": buffer_uri("data:application/octet-stream;base64,@@@@", 3),
        "data/bad_padding.gltf": buffer_uri("data:application/octet-stream;base64,AAA", 3),
        "data/not_base64.gltf": buffer_uri("data:application/octet-stream,%00%00", 2),
        "data/terabyte_claim.gltf": buffer_uri("data:application/octet-stream;base64,AAAA", 2**40),
        "data/petabyte_claim.gltf": buffer_uri("data:application/octet-stream;base64,AAAA", 10**15),
        "data/bad_image.gltf": image_uri("data:image/png;base64,iVBORw0KGgo="),
        "counts/accessor_2_40.gltf": doc(**{**tri, "accessors": [{"componentType": 5126, "type": "VEC3", "count": 2**40}]},
                                         nodes=[{"mesh": 0}], scenes=[{"nodes": [0]}]),
        "counts/accessor_2_64.gltf": doc(**{**tri, "accessors": [{"componentType": 5126, "type": "VEC3", "count": 2**64}]}),
        "graph/cycle.gltf": doc(**tri, nodes=[{"mesh": 0, "children": [1]}, {"children": [2]}, {"children": [0]}], scenes=[{"nodes": [0]}]),
        "graph/self.gltf": doc(**tri, nodes=[{"mesh": 0, "children": [0]}], scenes=[{"nodes": [0]}]),
        "graph/index_out_of_range.gltf": doc(**tri, nodes=[{"mesh": 7}], scenes=[{"nodes": [0, 9]}]),
        "json/nested_100k.gltf": b"[" * 100_000 + b"]" * 100_000,
        "json/nested_object_100k.gltf": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        "json/not_utf8.gltf": b'{"asset": {"version": "2.0", "x": "\xff\xfe"}}',
        "json/top_level_array.gltf": b"[1, 2, 3]",
        "json/huge_integer.gltf": b'{"asset": {"version": "2.0"}, "scene": ' + b"9" * 5000 + b"}",
        "json/glTF_1.gltf": json.dumps({"asset": {"version": "1.0"}}).encode(),
    }
    glb_json = json.dumps({"asset": asset, "buffers": [{"byteLength": 8}]}).encode()
    glb_json += b" " * (-len(glb_json) % 4)

    def glb(total: int | None = None, json_len: int | None = None, bin_len: int | None = None) -> bytes:
        body = struct.pack("<II", len(glb_json) if json_len is None else json_len, 0x4E4F534A) + glb_json
        body += struct.pack("<II", 8 if bin_len is None else bin_len, 0x004E4942) + bytes(8)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body) if total is None else total) + body

    files.update({
        "glb/total_length_lies.glb": glb(total=2**32 - 1),
        "glb/json_length_lies.glb": glb(json_len=2**31),
        "glb/bin_length_lies.glb": glb(bin_len=2**32 - 1),
        "glb/json_length_zero.glb": glb(json_len=0),
        "glb/version_1.glb": struct.pack("<4sII", b"glTF", 1, 12),
        "glb/header_only.glb": struct.pack("<4sII", b"glTF", 2, 12),
    })
    return {prefix + rel: data for rel, data in files.items()}


def hostile_fbx_files() -> dict[str, bytes]:
    """Hostile FBX files (path -> bytes); each must give an error finding."""
    data, fields = fbx.Scene(meshes=[fbx.cube()]).binary_fields(7400)
    end = next(off for name, off, _ in fields if name == "Objects/Geometry/Vertices.end")
    nodes = fbx.Scene(meshes=[fbx.cube()]).nodes(7500, False)
    geometry = next(n for n in nodes[1].children if n.name == "Geometry")
    geometry.children[0].props = [("bytes", b"d" + struct.pack("<III", 2**27, 1, 16) + bytes(16))]
    scene = fbx.Scene(meshes=[fbx.cube(materials=[0])], materials=["M"],
                      textures=[fbx.Texture("Out", 0, "DiffuseColor", relative="../../../outside.bin")])
    return {
        "fbx/offset_loops_back.fbx": data[:end] + struct.pack("<I", end - 64) + data[end + 4 :],
        "fbx/zlib_beyond_ratio.fbx": fbx.write_binary(nodes, 7500)[0],
        "fbx/nested_10k.fbx": b"; FBX 7.4.0 project file\nObjects: {\n" + b"a: {\n" * 10_000 + b"}\n" * 10_001,
        "fbx/texture_outside.fbx": scene.binary(),
    }


def hostile_gridmap_files() -> dict[str, tuple[bytes, str]]:
    """Hostile GridMaps and MeshLibraries (path -> (bytes, expectation)): cells that are not
    whole cells of integers (a finding; Godot refuses them too), items no library has and
    negative ones (valid: the low 16 bits name the item), a binary scene whose cells array
    claims 2^31 − 1 integers (an error), a GridMap whose library is its own scene, one that
    instances itself with cells of its own, and item keys no MeshLibrary makes."""
    head = ('[gd_scene format=3]\n[ext_resource type="MeshLibrary" path="res://gridmap/lib.tres" id="1"]\n'
            '[node name="Map" type="GridMap"]\nmesh_library = ExtResource("1")\n')

    def grid(cells: str, extra: str = "") -> bytes:
        return (head + f'data = {{ "cells": {cells} }}\n' + extra).encode()

    library = (b'[gd_resource type="MeshLibrary" format=3]\n[ext_resource type="ArrayMesh" path="res://gridmap/no.tres" id="1"]\n'
               b'[resource]\nitem/-5/mesh = ExtResource("1")\nitem/99999999999999999999/mesh = ExtResource("1")\n'
               b'item/x/mesh = ExtResource("1")\nitem/0/mesh = "not a mesh"\nitem/1/mesh = ExtResource("9")\n')
    scene = gf.rsrc("PackedScene", [("MeshLibrary", "res://gridmap/lib.tres", "")], [
        ("", "PackedScene", {"_bundled": gf.bundled(["Map", "GridMap", "mesh_library", "data"],
                                                    [gf.Ext(0), {"cells": gf.V(gf.INT32S, [0, 0, 1, 0, 0, 2])}],
                                                    [(-1, "GridMap", "Map", -1, [("mesh_library", 0), ("data", 1)])])})])
    at = scene.index(struct.pack("<II", gf.INT32S, 6))
    claims = scene[:at] + struct.pack("<II", gf.INT32S, 2**31 - 1) + scene[at + 8:]
    self_lib = ('[gd_scene format=3]\n[ext_resource type="MeshLibrary" path="res://gridmap/self_library.tscn" id="1"]\n'
                '[node name="Map" type="GridMap"]\nmesh_library = ExtResource("1")\ndata = { "cells": PackedInt32Array(0, 0, 1) }\n')
    self_instance = ('[gd_scene format=3]\n[ext_resource type="PackedScene" path="res://gridmap/self_instance.tscn" id="1"]\n'
                     '[node name="Map" instance=ExtResource("1")]\ndata = { "cells": PackedInt32Array(0, 0, 1, 1, 0, 1) }\n')
    return {
        "gridmap/odd_length.tscn": (grid("PackedInt32Array(0, 0, 1, 7)"), "finding"),
        "gridmap/decimals.tscn": (grid("PackedInt32Array(0, 0, 1.5)"), "finding"),
        "gridmap/inf.tscn": (grid("PackedInt32Array(0, 0, inf)"), "finding"),
        "gridmap/wide_number.tscn": (grid("PackedInt32Array(0, 0, 99999999999999999999)"), "finding"),
        "gridmap/not_an_array.tscn": (grid('"cells"'), "finding"),
        "gridmap/negative_items.tscn": (grid("PackedInt32Array(0, 0, -1, 1, 0, -65536, 2, 0, -2147483648, 3, 0, 2147483647)"), ""),
        "gridmap/baked.tscn": (grid("PackedInt32Array(0, 0, 1)", 'baked_meshes = [null, 7, "x"]\n'), ""),
        "gridmap/lib.tres": (library, "finding"),  # item/1 names an ExtResource not declared: TB103
        "gridmap/claims.scn": (claims, "error"),
        "gridmap/self_library.tscn": (self_lib.encode(), ""),
        "gridmap/self_instance.tscn": (self_instance.encode(), ""),
    }


def write_hostile_tree(root: Path, seed: int = 0) -> dict[str, str]:
    """Write the folder under ``root``; the manifest maps each file to its expectation.
    A file ``outside.bin`` is written beside ``root`` (never inside it): the URIs that leave
    the root point at it, and nothing may open it."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root.parent / "outside.bin").write_bytes(bytes(80))
    manifest: dict[str, str] = {}
    for s in all_seeds():
        _seed_files(root, s, rng, manifest)
    _mislabelled(root, manifest)
    _sidecars(root, manifest, rng)
    for rel, data in hostile_gltf_files("gltf").items():
        _write(root, rel, data, manifest, "error")
    for rel, data in hostile_fbx_files().items():
        _write(root, rel, data, manifest, "error")
    for rel, (data, expect) in hostile_gridmap_files().items():
        _write(root, rel, data, manifest if expect else {}, expect)
    return manifest
