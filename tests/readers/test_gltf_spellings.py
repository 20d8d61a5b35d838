"""Values a glTF may write in other spellings read as the plain ones: an integer as 4.0 (as
glTF-Validator takes it; msgspec refuses it, json and ``msgspec.convert`` read it), a null
optional field (absent), an empty ``extensions``, a URI that needs normalising. Each variant
below must give the plain file's result, finding for finding; and values that are wrong are
still reported, each with its message."""

from __future__ import annotations

import copy
import json
import os
import posixpath
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.readers.gltf_factories import GltfBuilder, triangle_mesh
from texbudget.model import ReadResult
from texbudget.readers import Source, gltf, gltf_uris, read_path
from texbudget.readers.gltf_schema import Document
from texbudget.sizing.meshes import lod_of


def _doc() -> tuple[dict, bytes]:
    """Two meshes (one skinned, one a LOD by name), three nodes, two materials over two
    textures and two external images in a sub-folder, one image unused."""
    b = GltfBuilder()
    m0 = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Rock")
    m1 = triangle_mesh(b, 3, [0, 1, 2], name="Rock_LOD1")
    b.add_image_uri("tex/a.png")
    b.add_image_uri("tex/b.png")
    b.add_image_uri("tex/a.png")
    b.add_texture(0)
    b.add_texture(1)
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": 0}}, normalTexture={"index": 1})
    b.add_material(emissiveTexture={"index": 1})
    b.doc["meshes"][0]["primitives"][0]["material"] = 0
    b.doc["meshes"][1]["primitives"][0]["material"] = 1
    b.doc["skins"] = [{"joints": [2]}]
    b.add_scene([b.add_node(mesh=m0, skin=0), b.add_node(mesh=m1), b.add_node()])
    data = b.glb_bytes()
    return json.loads(data[20:20 + int.from_bytes(data[12:16], "little")]), data


def _glb(doc: dict, data: bytes) -> bytes:
    json_len = int.from_bytes(data[12:16], "little")
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    body = len(js).to_bytes(4, "little") + b"JSON" + js + data[20 + json_len:]
    return b"glTF" + (2).to_bytes(4, "little") + (12 + len(body)).to_bytes(4, "little") + body


def _read(root: Path, doc: dict, data: bytes) -> ReadResult:
    (root / "tex").mkdir(exist_ok=True)
    for name in ("a.png", "b.png"):
        (root / "tex" / name).write_bytes(b"not read here")
    (root / "m.glb").write_bytes(_glb(doc, data))
    return read_path(root, "m.glb")


def _set(path: str, value: object) -> Callable[[dict], None]:
    """Set the field at a slash path ("accessors/0/count") to ``value``."""
    def change(doc: dict) -> None:
        *parents, last = path.split("/")
        at: object = doc
        for key in parents:
            at = at[int(key)] if isinstance(at, list) else at[key]  # type: ignore[index]
        at[int(last) if isinstance(at, list) else last] = value  # type: ignore[index]
    return change


def _float(path: str) -> Callable[[dict], None]:
    """The integer at ``path`` written as a float (4 → 4.0), which glTF readers accept."""
    def change(doc: dict) -> None:
        *parents, last = path.split("/")
        at: object = doc
        for key in parents:
            at = at[int(key)] if isinstance(at, list) else at[key]  # type: ignore[index]
        index: int | str = int(last) if isinstance(at, list) else last
        at[index] = float(at[index])  # type: ignore[index]
    return change


VARIANTS: dict[str, Callable[[dict], None]] = {
    "view buffer 0.0": _float("bufferViews/1/buffer"),
    "view byteOffset 0.0": _float("bufferViews/1/byteOffset"),
    "view byteLength as float": _float("bufferViews/2/byteLength"),
    "view byteOffset null": _set("bufferViews/0/byteOffset", None),
    "view byteStride 0": _set("bufferViews/0/byteStride", 0),
    "view empty extensions": _set("bufferViews/3/extensions", {}),
    "accessor count as float": _float("accessors/0/count"),
    "accessor componentType as float": _float("accessors/1/componentType"),
    "accessor bufferView as float": _float("accessors/2/bufferView"),
    "accessor byteOffset 0.0": _set("accessors/3/byteOffset", 0.0),
    "accessor byteOffset null": _set("accessors/3/byteOffset", None),
    "accessor bufferView null": _set("accessors/4/bufferView", None),
    "buffer uri null": _set("buffers/0/uri", None),
    "buffer byteLength as float": _float("buffers/0/byteLength"),
    "attribute index as float": _float("meshes/0/primitives/0/attributes/POSITION"),
    "indices as float": _float("meshes/1/primitives/0/indices"),
    "mode 4.0": _set("meshes/0/primitives/0/mode", 4.0),
    "mode null": _set("meshes/0/primitives/0/mode", None),
    "material as float": _float("meshes/0/primitives/0/material"),
    "targets null": _set("meshes/0/primitives/0/targets", None),
    "targets empty": _set("meshes/1/primitives/0/targets", []),
    "primitive empty extensions": _set("meshes/0/primitives/0/extensions", {}),
    "texture source as float": _float("textures/1/source"),
    "texture empty extensions": _set("textures/0/extensions", {}),
    "material index as float": _float("materials/0/normalTexture/index"),
    "material empty extensions": _set("materials/1/extensions", {}),
    "material extension not an object": _set("materials/1/extensions", {"X": 3}),
    "node mesh as float": _float("nodes/1/mesh"),
    "node skin as float": _float("nodes/0/skin"),
    "node empty extensions": _set("nodes/2/extensions", {}),
    "node children null": _set("nodes/1/children", None),
    "node children empty": _set("nodes/1/children", []),
    "scene node as float": _float("scenes/0/nodes/1"),
    "image uri ./": _set("images/1/uri", "./tex/b.png"),
    "image uri with ..": _set("images/1/uri", "tex/../tex/b.png"),
    "image uri escaped": _set("images/0/uri", "tex/%61.png"),
    "image uri with a query": _set("images/0/uri", "tex/a.png?v=2"),
    "image bufferView null": _set("images/2/bufferView", None),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_another_spelling_of_a_value_reads_the_same(tmp_path: Path, name: str) -> None:
    doc, data = _doc()
    plain = _read(tmp_path, doc, data)
    assert [m.name for m in plain.meshes] == ["Rock", "Rock_LOD1"]
    assert [f.code for f in plain.findings] == ["TB081"]  # image 2: only a duplicate of image 0
    variant = copy.deepcopy(doc)
    VARIANTS[name](variant)
    assert json.dumps(variant) != json.dumps(doc)
    assert _read(tmp_path, variant, data) == plain


def test_wrong_values_are_still_reported(tmp_path: Path) -> None:
    """A value of the wrong type stops the file, naming its field (msgspec's path); a value
    the schema allows but glTF does not is the reader's finding: an unusable accessor is
    one and the file is read on, the rest stop the file."""
    doc, data = _doc()
    unused = ("TB081", "image 2 (tex/a.png) is used by no material")
    cases = {
        "accessors/0/count": (True, [("TB073", "$.accessors[0].count: expected `int | null`, got `bool`")]),
        "accessors/1/type": (["VEC3"], [("TB073", "$.accessors[1].type: expected `str | null`, got `array`")]),
        "accessors/1/componentType": (5127, [("TB073", "accessor 1: componentType 5127 is not a glTF component type"), unused]),
        "accessors/0/count/": (0, [("TB073", "accessor 0: 'count' is 0; it must be at least 1"), unused]),
        "bufferViews/1/byteStride": (2, [("TB073", "bufferView 1: byteStride 2 is outside 4–252")]),
        "meshes/0/primitives/0/attributes/NORMAL": (99, [("TB073", "mesh 0 primitive 0: 'NORMAL' points to accessor 99, but the file has 6")]),
        "nodes/0/mesh": (-1, [("TB073", "node 0: 'mesh' is -1, not an index")]),
        "materials/1/emissiveTexture": ({"index": 2.5}, [("TB073", "material 1 emissiveTexture: 'index' is 2.5, not an index")]),
    }
    for path, (value, expected) in cases.items():
        variant = copy.deepcopy(doc)
        _set(path.rstrip("/"), value)(variant)
        result = _read(tmp_path, variant, data)
        assert [(f.code, f.message) for f in result.findings] == expected, path


def test_images_in_a_folder_reached_through_a_link_out_of_the_root_are_refused(tmp_path: Path) -> None:
    """The folders on an image's way are looked at once per file: a folder that is a link out
    of the root refuses every image in it, not only the first."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.png").write_bytes(b"x")
    (outside / "b.png").write_bytes(b"x")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "tex")
    doc, data = _doc()
    (root / "m.glb").write_bytes(_glb(doc, data))
    result = read_path(root, "m.glb")
    assert [f.code for f in result.findings if f.code == "TB074"] == ["TB074"] * 3


def test_a_missing_folder_and_a_plain_one_in_the_same_file(tmp_path: Path) -> None:
    doc, data = _doc()
    _set("images/1/uri", "gone/b.png")(doc)
    result = _read(tmp_path, doc, data)
    assert [(f.code, f.message) for f in result.findings] == [("TB075", "image 1: gone/b.png does not exist"), ("TB081", "image 2 (tex/a.png) is used by no material")]


_SEGMENT = st.sampled_from(["a", "b.png", ".", "..", "", "c d"])


@settings(max_examples=300, deadline=None, database=None)
@given(base=st.lists(_SEGMENT, max_size=3).map("/".join), path=st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join))
def test_join_normal_is_normpath_of_join(base: str, path: str) -> None:
    """Plain paths skip normpath; the answer is normpath's either way."""
    assert gltf_uris.join_normal(base, path) == posixpath.normpath(posixpath.join(base, path))


@settings(max_examples=500, deadline=None, database=None)
@given(st.text(alphabet=st.sampled_from("lLoOdD_-. 0123xİı"), max_size=12))
def test_a_mesh_name_without_lod_has_no_lod_suffix(name: str) -> None:
    """The reader asks lod_of only about names that hold "lod" in some case."""
    if "lod" not in name.lower():
        assert lod_of(name) is None


def test_a_document_converted_from_objects_reads_like_the_registry() -> None:
    """read_document takes a Document however it was made (the scene-walk tests convert dicts)."""
    doc, _ = _doc()
    result = gltf.read_document(Source(rel="t.gltf", data=b"{}", suffix_hint=".gltf"), msgspec.convert(doc, Document), None)
    assert [m.name for m in result.meshes] == ["Rock", "Rock_LOD1"]  # priced from the declarations
    assert [f.code for f in result.findings] == ["TB073", "TB075", "TB075", "TB075", "TB081"]
