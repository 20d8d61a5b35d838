"""The glTF reader's limits, found by building files that are small on disk and huge in work:
a scene walk that was scenes × depth, JSON that parses into gigabytes, a rule broken a million
times (a million findings), images that all point at the same bytes."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.readers.gltf_factories import png_bytes
from texbudget.readers import Source, gltf_container, gltf_images, read_path
from texbudget.readers.gltf_accessors import Layout
from texbudget.readers.gltf_scene import SceneGraph
from texbudget.readers.gltf_schema import Document


def _write(tmp_path: Path, doc: dict | bytes, name: str = "t.gltf") -> str:
    (tmp_path / name).write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
    return name


def _codes(result) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in result.findings]


TRIANGLE = {"accessors": [{"componentType": 5126, "type": "VEC3", "count": 3}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}


# --- the scene walk: linear, and the same counts as walking every scene ---------------------


def test_many_scenes_over_a_deep_chain_is_linear(tmp_path: Path) -> None:
    """10,000 scenes each listing the top of a 10,000-node chain (480 KB): 10^8 instances.
    Before: every scene walked the chain, 46 s; now one numbering of the forest."""
    n = 10_000
    doc = {"asset": {"version": "2.0"}, **TRIANGLE,
           "nodes": [{"mesh": 0, "children": [k + 1]} for k in range(n - 1)] + [{"mesh": 0}],
           "scenes": [{"nodes": [0]} for _ in range(n)]}
    start = time.perf_counter()
    result = read_path(tmp_path, _write(tmp_path, doc))
    seconds = time.perf_counter() - start
    assert result.scenes[0].instances == (("t.gltf#mesh/0", n * n),)
    assert result.findings == ()
    assert seconds < 30  # a hang guard only (it takes ~0.1 s); the counts are the assertion


def _old_walk(graph: SceneGraph, children: list[list[int]], has_parent: list[bool]) -> tuple[dict[int, int], int]:
    """The walk as it was (each scene's tree in turn): node -> scenes reaching it, and how
    many times a node was reached twice in one scene."""
    visited: dict[int, int] = {}
    twice = 0
    for roots in graph.scene_roots(has_parent):
        seen: set[int] = set()
        stack = list(reversed(roots))
        while stack:
            k = stack.pop()
            if k in seen:
                twice += 1
                continue
            seen.add(k)
            visited[k] = visited.get(k, 0) + 1
            stack.extend(reversed(children[k]))
    return visited, twice


@settings(max_examples=300, deadline=None, database=None)
@given(
    children=st.lists(st.lists(st.integers(0, 9), max_size=3), min_size=1, max_size=10),
    scenes=st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=4),
    default=st.one_of(st.none(), st.integers(0, 3)),
)
def test_the_linear_walk_counts_as_the_old_walk(children, scenes, default) -> None:
    n = len(children)
    nodes = [{"children": [c for c in kids if c < n]} for kids in children]
    doc: dict = {"asset": {"version": "2.0"}, "nodes": nodes}
    if scenes:
        doc["scenes"] = [{"nodes": [k for k in roots if k < n]} for roots in scenes]
        if default is not None and default < len(scenes):
            doc["scene"] = default
    ctx = gltf_container.Context(Source(rel="t.gltf", data=b"{}", suffix_hint=".gltf"), msgspec.convert(doc, Document))
    graph = SceneGraph(ctx, Layout(ctx))
    kids, has_parent = graph.tree()
    old_visited, old_twice = _old_walk(graph, kids, has_parent)
    reach = graph.reach(kids, has_parent)
    assert {k: r for k, r in enumerate(reach) if r} == old_visited
    assert sum("reached twice in one scene" in f.message for f in ctx.found) == old_twice


# --- JSON that parses into gigabytes ---------------------------------------------------------


def test_json_of_a_million_empty_objects_is_refused_unparsed(tmp_path: Path, monkeypatch) -> None:
    """64 MiB of ``{},`` parses into 1.5 GiB over 15 s (json, for a document msgspec refuses);
    the objects are counted first, and neither parser sees it."""
    parsed: list[int] = []
    real = gltf_container.json.loads
    monkeypatch.setattr(gltf_container.json, "loads", lambda s, **kw: parsed.append(len(s)) or real(s, **kw))

    class Spy:
        def decode(self, data: bytes) -> Document:
            parsed.append(len(data))
            return msgspec.json.decode(data, type=Document)

    monkeypatch.setattr(gltf_container, "_DECODER", Spy())
    data = b'{"asset": {"version": "2.0"}, "x": [' + b"{}," * 1_000_000 + b"{}]}"
    result = read_path(tmp_path, _write(tmp_path, data))
    assert _codes(result) == [("TB071", "the JSON holds 1000004 objects and arrays; texbudget parses at most 1000000 (parsing takes about 70 bytes of memory each)")]
    assert parsed == []


def test_json_of_millions_of_values_is_refused_unparsed(tmp_path: Path) -> None:
    data = b'{"asset": {"version": "2.0"}, "x": [' + b"0," * 4_000_000 + b"0]}"
    result = read_path(tmp_path, _write(tmp_path, data))
    assert _codes(result) == [("TB071", "the JSON holds 4000001 values; texbudget parses at most 4000000")]


def test_glb_json_chunk_is_counted_too(tmp_path: Path) -> None:
    js = b'{"asset":{"version":"2.0"},"x":[' + b"[]," * 1_000_000 + b"[]]}"
    js += b" " * (-len(js) % 4)
    data = b"glTF" + (2).to_bytes(4, "little") + (20 + len(js)).to_bytes(4, "little") + len(js).to_bytes(4, "little") + b"JSON" + js
    result = read_path(tmp_path, _write(tmp_path, data, "t.glb"))
    assert _codes(result) == [("TB071", "the JSON holds 1000004 objects and arrays; texbudget parses at most 1000000 (parsing takes about 70 bytes of memory each)")]


# --- a rule broken many times: 50 findings, then a count ---------------------------------------


def test_findings_of_one_code_are_capped(tmp_path: Path) -> None:
    n = 200  # node 0 listed as a child by 199 nodes: 198 second parents
    doc = {"asset": {"version": "2.0"}, **TRIANGLE, "nodes": [{"mesh": 0}] + [{"children": [0]} for _ in range(n - 1)]}
    result = read_path(tmp_path, _write(tmp_path, doc))
    codes = [c for c, _ in _codes(result)]
    assert codes == ["TB080"] * 51
    assert result.findings[0].message == "node 0 has two parents (nodes 1 and 2); the link from 2 was ignored"
    assert result.findings[-1].message == "… and 148 more TB080 findings in this file, not listed"


# --- embedded images: at most 10,000, read once per bufferView, within the buffers' bytes -----


def _image_doc(images: list[dict], views: list[tuple[int, int]], blob: bytes) -> dict:
    uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    return {"asset": {"version": "2.0"}, "buffers": [{"uri": uri, "byteLength": len(blob)}],
            "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in views],
            "images": images, "textures": [{"source": i} for i in range(len(images))],
            "materials": [{"emissiveTexture": {"index": i}} for i in range(len(images))]}


def test_images_sharing_a_buffer_view_are_read_once(tmp_path: Path, monkeypatch) -> None:
    png = png_bytes(8, 4)
    reads: list[str] = []
    real = gltf_images.read_bytes
    monkeypatch.setattr(gltf_images, "read_bytes", lambda rel, data, hint=None: reads.append(rel) or real(rel, data, hint))
    doc = _image_doc([{"bufferView": 0, "mimeType": "image/png"}] * 1000, [(0, len(png))], png)
    result = read_path(tmp_path, _write(tmp_path, doc))
    assert reads == ["t.gltf#image/0"]
    assert [t.path for t in result.textures] == [f"t.gltf#image/{i}" for i in range(1000)]
    assert {(t.width, t.height) for t in result.textures} == {(8, 4)}
    assert result.findings == ()


def test_overlapping_image_views_cannot_read_more_than_the_buffers_hold(tmp_path: Path) -> None:
    png = png_bytes(8, 4)
    doc = _image_doc([{"bufferView": v, "mimeType": "image/png"} for v in range(3)], [(0, len(png))] * 3, png)
    result = read_path(tmp_path, _write(tmp_path, doc))
    assert len(result.textures) == 1
    n = len(png)
    assert _codes(result) == [
        ("TB078", f"image 1: the embedded images so far need {2 * n} bytes, more than the file's buffers hold ({n}); they overlap, and this one was not read"),
        ("TB078", f"image 2: the embedded images so far need {2 * n} bytes, more than the file's buffers hold ({n}); they overlap, and this one was not read"),
    ]


def test_at_most_max_embedded_images_are_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(gltf_images, "MAX_EMBEDDED_IMAGES", 3)
    uri = "data:image/png;base64," + base64.b64encode(png_bytes(4, 4)).decode()
    doc = {"asset": {"version": "2.0"}, "images": [{"uri": uri}] * 5,
           "textures": [{"source": i} for i in range(5)], "materials": [{"emissiveTexture": {"index": i}} for i in range(5)]}
    result = read_path(tmp_path, _write(tmp_path, doc))
    assert [t.path for t in result.textures] == ["t.gltf#image/0", "t.gltf#image/1", "t.gltf#image/2"]
    assert _codes(result) == [("TB078", "image 3 and the images after it were not read: texbudget reads at most 3 embedded images per file")]
