"""The read cache (texbudget/cache.py): signatures, stored values, hits and misses, version
changes, corruption (TB007), a folder it cannot write, concurrent writers and kill -9.

Everything here works on ``Cache`` directly; ``tests/unit/test_scan.py`` drives it through
``read_scene`` on real trees.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import msgspec
import pytest

from texbudget import cache as cache_mod
from texbudget import findings
from texbudget.cache import CACHE_VERSION, Cache
from texbudget.engine import EngineImport, UnityPlatform
from texbudget.model import (
    AttributeFacts,
    Finding,
    MeshFacts,
    PrimitiveFacts,
    ReadResult,
    SceneFacts,
    SceneRef,
    Severity,
    TextureFacts,
    evolve,
)

REPO = Path(__file__).resolve().parents[2]


def texture(path: str = "a.png", width: int = 1024) -> TextureFacts:
    return TextureFacts(path=path, container="png", width=width, height=width, channels=3, disk_bytes=4096,
                        color_space="srgb", level_bytes=(1, 2, 3))


def value(path: str = "a.png", width: int = 1024) -> tuple[ReadResult, object]:
    return ReadResult(textures=(texture(path, width),)), None


def stat(size: int, mtime_ns: int, ctime_ns: int) -> os.stat_result:
    return os.stat_result((0o100644, 1, 2, 1, 0, 0, size, 0, 0, 0, 0.0, 0.0, 0.0, 0, mtime_ns, ctime_ns))


def entry_row(cache: Cache, rel: str, sig: str, v: object = None, deps=()) -> None:
    v = value(rel) if v is None else v
    assert cache.store([(rel, sig, deps, cache_mod.dumps(v))]) == 1


# --- signatures -------------------------------------------------------------------------------


def test_signature_is_size_mtime_ctime_then_each_sidecar():
    assert cache_mod.signature(stat(10, 20, 30)) == "10:20:30"
    assert cache_mod.signature(stat(10, 20, 30), [stat(1, 2, 3), stat(4, 5, 6)]) == "10:20:30|1:2:3|4:5:6"


def test_stat_signature_of_a_real_file_and_a_missing_one(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(b"12345")
    os.utime(f, ns=(1_000_000_000, 1_700_000_000_123_456_789))
    st = os.stat(f)
    assert cache_mod.stat_signature(str(f)) == f"5:1700000000123456789:{st.st_ctime_ns}"
    assert cache_mod.stat_signature(str(tmp_path / "gone")) == "-"


def test_signatures_are_made_when_asked_equal_to_signature():
    """``Signatures`` keeps a file's stat as numbers and makes ``signature``'s string when asked:
    with and without sidecars, and for numbers the columns cannot hold (a time before 1970,
    one past 2554); a file never put is not in the mapping."""
    files = ["a.png", "b.png", "gone.png", "old.png", "far.png", "c.png"]
    stats = {
        "a.png": (stat(10, 1_700_000_000_123_456_789, 1_700_000_001_000_000_001), []),
        "b.png": (stat(11, 21, 31), [stat(1, 2, 3), stat(4, 5, 6)]),
        "old.png": (stat(12, -5_000_000_000, 7), []),
        "far.png": (stat(13, 2**64, 8), [stat(9, 9, 9)]),
        "c.png": (stat(0, 0, 0), []),
    }
    sigs = cache_mod.Signatures(files)
    for rel, (st, sides) in stats.items():
        sigs.put(files.index(rel), st, sides)
    want = {rel: cache_mod.signature(st, sides) for rel, (st, sides) in stats.items()}
    assert dict(sigs) == want and want["b.png"] == "11:21:31|1:2:3|4:5:6" and want["old.png"] == "12:-5000000000:7"
    assert list(sigs) == ["a.png", "b.png", "old.png", "far.png", "c.png"] and len(sigs) == 5
    assert {rel: sigs.own(rel) for rel in stats} == {rel: cache_mod.signature(st) for rel, (st, _) in stats.items()}
    assert {rel: sigs.dependency(rel) for rel in stats} == {rel: sigs.own(rel) for rel in stats}
    assert "gone.png" not in sigs and sigs.get("gone.png") is None and sigs.own("gone.png") is None
    assert sigs.get("nowhere.png", "-") == "-" and sigs.own("nowhere.png") is None and "nowhere.png" not in sigs
    with pytest.raises(KeyError):
        sigs["gone.png"]
    assert sigs.paths() == set(want) and "b.png" in sigs.paths() and "gone.png" not in sigs.paths()
    sigs.put(files.index("b.png"), stat(11, 21, 32))  # its sidecars gone: the columns again
    assert sigs["b.png"] == "11:21:32" and sigs.own("b.png") == "11:21:32"
    sigs.put(files.index("gone.png"), stat(1, 1, 1))
    assert sigs["gone.png"] == "1:1:1" and len(sigs) == 6 and len(sigs.paths()) == 6


def test_signatures_stat_the_files_and_their_sidecars(tmp_path):
    files = ["a.png", "b.png", "gone.png", "gone_with_sidecar.png"]
    for rel in ("a.png", "b.png", "b.png.import"):
        (tmp_path / rel).write_bytes(b"x" * len(rel))
    side = os.stat(tmp_path / "b.png.import")
    sidecars = {"b.png": [side], "gone_with_sidecar.png": [side]}
    position = {rel: i for i, rel in enumerate(files)}
    sigs = cache_mod.Signatures(files, position)
    assert sigs.position is position
    assert sigs.stat(f"{tmp_path}{os.sep}", lambda rel: sidecars.get(rel, [])) == {"b.png", "gone_with_sidecar.png"}
    assert dict(sigs) == {"a.png": cache_mod.stat_signature(str(tmp_path / "a.png")),
                          "b.png": cache_mod.signature(os.stat(tmp_path / "b.png"), [side])}
    assert sigs.own("b.png") == cache_mod.stat_signature(str(tmp_path / "b.png"))
    # a dependency: its own signature, or (not one of the files) what a stat of it says
    assert sigs.dependency("a.png") == sigs.own("a.png") and sigs.dependency("b.png") == sigs.own("b.png")
    assert sigs.dependency("b.png.import") == cache_mod.stat_signature(str(tmp_path / "b.png.import"))
    assert sigs.dependency("gone.png") == sigs.dependency("elsewhere.bin") == "-"


@pytest.mark.parametrize(("age_s", "racy"), [(0.0, True), (1.9, True), (2.1, False), (3600.0, False)])
def test_racy_window_is_two_seconds(age_s, racy):
    now = 1_800_000_000 * 10**9
    assert cache_mod.is_racy(stat(1, now - int(age_s * 1e9), 0), now) is racy


def test_cache_version_names_texbudget_and_the_schema():
    from texbudget import __version__

    assert f"{__version__}/{cache_mod.SCHEMA}" == CACHE_VERSION


# --- values -----------------------------------------------------------------------------------


def test_every_kind_of_value_round_trips_equal():
    attr = AttributeFacts("POSITION", "FLOAT", 3, 100, 1200)
    prim = PrimitiveFacts(mode=4, vertex_count=100, triangles=50, attributes=(attr,), index_count=150,
                          index_bytes_per=2, material="a.glb#material/0")
    mesh = MeshFacts.from_primitives(path="a.glb#mesh/0", name="Rock", primitives=(prim,), vertices=100, indices=150,
                                     triangles=50, vertex_bytes=1200, index_bytes=300, lod=0, lod_group="a.glb#lod/0")
    scene = SceneFacts.from_uses(path="a.glb", instances=(("a.glb#mesh/0", 3),), texture_usage=(("t.png", "a.glb#material/0", "baseColorTexture"),))
    note = Finding("a.glb", "TB081", Severity.INFO, "unused image", "hint")
    result = ReadResult(textures=(texture("a.glb#image/0"),), meshes=(mesh,), scenes=(scene,), findings=(note,))
    engine = EngineImport(engine="unity", source="a.png.meta", importer="TextureImporter", srgb=True,
                          platforms=(UnityPlatform("Standalone", 2048, 25, 1, True),),
                          findings=(findings.make("a.png.meta", "TB012", "odd"),), settings=(("k", "v"),))
    for v in [(result, None), (result, engine), (ReadResult(), findings.make("a.png.import", "TB010", "broken"))]:
        back = cache_mod.loads(cache_mod.dumps(v))
        assert back == v
        assert type(back[0].findings[0].severity if back[0].findings else Severity.INFO) is Severity


def test_values_are_msgpack_arrays_of_the_fields_in_order():
    """A value is ``[ReadResult, EngineImport or nil, Finding or nil]`` and every record the
    array of its fields in order: plain data, with no type named in it."""
    value = (ReadResult(textures=(texture("a.png"),), findings=(findings.make("a.png", "TB006", "unused"),)), None)
    raw = msgspec.msgpack.decode(cache_mod.dumps(value))
    facts = texture("a.png")
    assert raw == [
        [[[*msgspec.structs.astuple(facts)[:-4], [1, 2, 3], False, False, False]], [], [],
         [["a.png", "TB006", "warning", "unused", findings.CODES["TB006"].hint]]],
        None, None,
    ]
    refused = (ReadResult(), findings.make("a.png.import", "TB010", "broken"))
    assert msgspec.msgpack.decode(cache_mod.dumps(refused))[1:] == [None, ["a.png.import", "TB010", "warning", "broken", findings.CODES["TB010"].hint]]
    assert cache_mod.loads(cache_mod.dumps(value)) == value and cache_mod.loads(cache_mod.dumps(refused)) == refused


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch should-not-exist",))


def _hostile_blobs() -> dict[str, bytes]:
    """Blobs a damaged or crafted cache file could hold in place of a value."""
    good = msgspec.msgpack.decode(cache_mod.dumps(value()))
    wrong_type = msgspec.msgpack.decode(cache_mod.dumps(value()))
    wrong_type[0][0][0][2] = "1024"  # a string for the width
    return {
        "a pickle that runs a command": pickle.dumps(_Evil()),
        "a pickle of another type": pickle.dumps(Path("x")),
        "garbage": b"\x80\x05garbage",
        "empty": b"",
        "truncated": cache_mod.dumps(value())[:-3],
        "trailing bytes": cache_mod.dumps(value()) + b"\x00",
        "a map for the value": msgspec.msgpack.encode({"textures": []}),
        "two items": msgspec.msgpack.encode(good[:2]),
        "four items": msgspec.msgpack.encode([*good, None]),
        "a string for a number": msgspec.msgpack.encode(wrong_type),
        "an extension": msgspec.msgpack.encode([msgspec.msgpack.Ext(1, b"x"), None, None]),
        "an array of 2**32-1 items in 5 bytes": b"\xdd\xff\xff\xff\xff",
        "a string of 2**32-1 bytes in 5 bytes": b"\xdb\xff\xff\xff\xff",
        "escaped: an unknown extension": cache_mod._ESCAPED + msgspec.msgpack.encode([[[], [], [], []], None, msgspec.msgpack.Ext(7, b"x")]),
        "escaped: a name where a number goes": cache_mod._ESCAPED + msgspec.msgpack.encode([[[[msgspec.msgpack.Ext(1, b"a"), "png", msgspec.msgpack.Ext(1, b"\xff")]], [], [], []], None, None]),
        "escaped: nested 100,000 deep": cache_mod._ESCAPED + b"\x91" * 100_000 + b"\xc0",
        "escaped: nothing": cache_mod._ESCAPED,
    }


@pytest.mark.parametrize("name", list(_hostile_blobs()))
def test_loading_refuses_anything_but_a_value(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    blob = _hostile_blobs()[name]
    with pytest.raises(cache_mod._LOAD_ERRORS):
        cache_mod.loads(blob)
    with pytest.raises(cache_mod._LOAD_ERRORS):
        cache_mod.Decoder().loads(blob)
    assert not (tmp_path / "should-not-exist").exists()


@pytest.mark.parametrize("keep", [3, len(TextureFacts.__struct_fields__) + 1])
def test_a_record_with_a_required_field_missing_or_a_field_too_many_is_refused(keep):
    raw = msgspec.msgpack.decode(cache_mod.dumps(value()))
    fields = raw[0][0][0]  # the texture's: path, container, width, height (required), …
    raw[0][0][0] = fields[:keep] if keep < len(fields) else [*fields, 0]
    with pytest.raises(msgspec.ValidationError):
        cache_mod.loads(msgspec.msgpack.encode(raw))
    assert cache_mod.loads(msgspec.msgpack.encode(msgspec.msgpack.decode(cache_mod.dumps(value())))) == value()


def test_a_scene_whose_columns_differ_in_length_is_refused():
    """SceneFacts holds its instances and texture uses as columns; a blob whose columns do not
    pair up (a mesh path without its count, a texture without its slot) is refused as any
    other wrong shape, and no code can build such a scene."""
    scene = SceneFacts.from_uses(path="a.glb", instances=(("a.glb#mesh/0", 3),),
                                 texture_usage=(("t.png", "a.glb#material/0", "baseColorTexture"),))
    good = msgspec.msgpack.decode(cache_mod.dumps((ReadResult(scenes=(scene,)), None)))
    fields = SceneFacts.__struct_fields__
    for column in ("mesh_counts", "texture_slots"):
        raw = msgspec.msgpack.decode(msgspec.msgpack.encode(good))
        raw[0][2][0][fields.index(column)] = []
        with pytest.raises(msgspec.ValidationError):
            cache_mod.loads(msgspec.msgpack.encode(raw))
        with pytest.raises(ValueError):
            SceneFacts(**{**{f: getattr(scene, f) for f in fields}, column: ()})
    assert cache_mod.loads(msgspec.msgpack.encode(good))[0].scenes == (scene,)
    assert scene.instances == (("a.glb#mesh/0", 3),)
    assert scene.texture_usage == (("t.png", "a.glb#material/0", "baseColorTexture"),)


def _meshes_of_every_form() -> tuple[MeshFacts, ...]:
    """A mesh of one primitive held inline, one whose one primitive's counts are not the
    mesh's (in ``surfaces``), one of two primitives and one of none."""
    attrs = (AttributeFacts("POSITION", "FLOAT", 3, 100, 1200),)
    prim = PrimitiveFacts(mode=4, vertex_count=100, triangles=50, attributes=attrs, index_count=150, index_bytes_per=2,
                          morph_targets=1, morph_bytes=1200, material="a.glb#material/0", compression="meshopt")
    line = PrimitiveFacts(mode=1, vertex_count=100, triangles=0, attributes=attrs, index_count=6, index_bytes_per=1)
    fields = {"name": "Rock", "vertices": 100, "indices": 150, "triangles": 50, "vertex_bytes": 1200,
              "index_bytes": 300, "morph_targets": 1, "morph_bytes": 1200}
    return (MeshFacts.from_primitives(path="a.glb#mesh/0", primitives=(prim,), **fields),
            MeshFacts.from_primitives(path="a.glb#mesh/1", primitives=(prim,), **{**fields, "morph_bytes": 0}),
            MeshFacts.from_primitives(path="a.glb#mesh/2", primitives=(prim, line), **{**fields, "indices": 156}),
            MeshFacts.from_primitives(path="a.glb#mesh/3", primitives=(), **fields))


def test_meshes_of_every_form_round_trip_equal():
    meshes = _meshes_of_every_form()
    assert [(m.mode, len(m.surfaces)) for m in meshes] == [(4, 0), (None, 1), (None, 2), (None, 0)]
    blob = cache_mod.dumps((ReadResult(meshes=meshes), None))
    for back in (cache_mod.loads(blob)[0].meshes, cache_mod.Decoder().loads(blob)[0].meshes):
        assert back == meshes
        assert [m.primitives for m in back] == [m.primitives for m in meshes]
        assert [(m.mode, len(m.surfaces)) for m in back] == [(4, 0), (None, 1), (None, 2), (None, 0)]


def test_a_mesh_blob_of_schema_10_or_of_two_forms_is_refused():
    """Schema 10 stored a mesh as [path, name, [primitive, …], vertices, …] and a primitive
    with its accessor ids (11 fields): such a blob is refused, not read as meshes of another
    shape, and so is a mesh with a primitive both listed and inline, or listed where it would
    be inline. (A cache file of schema 10 is emptied on open before any blob is read:
    ``test_another_schema_number_is_emptied_and_claimed_without_a_finding``.)"""
    inline = _meshes_of_every_form()[0]
    (primitive,) = inline.primitives
    old_primitive = [*msgspec.structs.astuple(primitive)[:3], [list(msgspec.structs.astuple(a)) for a in primitive.attributes],
                     *msgspec.structs.astuple(primitive)[4:], [0, 1]]
    old_mesh = [inline.path, inline.name, [old_primitive], inline.vertices, inline.indices, inline.triangles,
                inline.vertex_bytes, inline.index_bytes, inline.morph_bytes, False, inline.morph_targets, "gltf", None, None]
    good = msgspec.msgpack.decode(cache_mod.dumps((ReadResult(meshes=(inline,)), None)))
    fields = MeshFacts.__struct_fields__
    both = msgspec.msgpack.decode(msgspec.msgpack.encode(good))
    both[0][1][0][fields.index("surfaces")] = [msgspec.msgpack.decode(msgspec.msgpack.encode(msgspec.structs.astuple(primitive)))] * 2
    listed = msgspec.msgpack.decode(msgspec.msgpack.encode(both))
    listed[0][1][0][fields.index("surfaces")] = listed[0][1][0][fields.index("surfaces")][:1]
    listed[0][1][0][fields.index("mode"):] = [None, [], 0, None, None]
    old = [[[], [old_mesh], [], []], None, None]
    for raw, why in ((old, r"Expected `int`, got `array` - at `\$\[0\]\[1\]\[0\]\[2\]`"), (both, "not both"),
                     (listed, "holds it inline")):
        with pytest.raises(msgspec.ValidationError, match=why):
            cache_mod.loads(msgspec.msgpack.encode(raw))
        with pytest.raises(cache_mod._LOAD_ERRORS):
            cache_mod.Decoder().loads(msgspec.msgpack.encode(raw))
    assert cache_mod.loads(msgspec.msgpack.encode(good))[0].meshes == (inline,)


def test_a_record_short_of_fields_with_defaults_takes_the_defaults():
    """msgspec's rule for array-like records (how a field added at the end with a default
    reads older data): never written by texbudget, whose schema number changes instead."""
    made = evolve(texture(), palette=True, grey=True)
    raw = msgspec.msgpack.decode(cache_mod.dumps((ReadResult(textures=(made,)), None)))
    raw[0][0][0] = raw[0][0][0][:-2]
    assert cache_mod.loads(msgspec.msgpack.encode(raw))[0].textures == (texture(),)


def test_names_that_are_not_utf8_round_trip():
    """A file name in another encoding (surrogate escapes from os.fsdecode) cannot be a msgpack
    string: such a value is stored escaped (marker 0xc1, the names as extension 1)."""
    name = os.fsdecode(b"props/caf\xe9.png")
    inside = os.fsdecode(b"props/\xff\xfe.glb")
    scene = SceneFacts.from_uses(path=inside, texture_usage=((name, f"{inside}#material/0", "baseColorTexture"),))
    note = Finding(name, "TB081", Severity.INFO, f"{name}: unused", "")
    for v in [value(name), (ReadResult(scenes=(scene,), findings=(note,)), findings.make(name + ".import", "TB010", name))]:
        blob = cache_mod.dumps(v)
        assert blob[:1] == cache_mod._ESCAPED
        assert cache_mod.loads(blob) == v and cache_mod.Decoder([name]).loads(blob) == v
    assert cache_mod.dumps(value("props/café.png"))[:1] != cache_mod._ESCAPED  # UTF-8 names are plain


# --- opening ----------------------------------------------------------------------------------


def test_open_creates_the_folder_its_gitignore_and_an_application_id(tmp_path):
    with Cache.open(tmp_path) as cache:
        assert cache.usable and cache.reason == "" and cache.notes == []
        assert cache.path == tmp_path / ".texbudget" / "cache.sqlite"
    assert (tmp_path / ".texbudget" / ".gitignore").read_text().splitlines()[-1] == "*"
    conn = sqlite3.connect(tmp_path / ".texbudget" / "cache.sqlite")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == cache_mod.APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == cache_mod.SCHEMA
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0] == CACHE_VERSION


def test_an_existing_gitignore_is_left_alone(tmp_path):
    (tmp_path / ".texbudget").mkdir()
    (tmp_path / ".texbudget" / ".gitignore").write_text("mine\n")
    Cache.open(tmp_path).close()
    assert (tmp_path / ".texbudget" / ".gitignore").read_text() == "mine\n"


# --- hits and misses --------------------------------------------------------------------------


def test_hit_only_while_the_signature_matches(tmp_path):
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", "10:20:30")
        entry_row(cache, "b.png", "11:20:30", value("b.png", 512))
        hits = cache.lookup({"a.png": "10:20:30", "b.png": "11:20:31", "c.png": "1:1:1"})
        assert list(hits) == ["a.png"]
        assert hits["a.png"] == value("a.png")
        assert (cache.hits, cache.misses, cache.stored) == (1, 2, 2)


def test_a_lookup_of_signatures_hits_as_a_dict_of_their_strings(tmp_path):
    """A lookup of a scan's ``Signatures`` (a file's columns read inline) gives what a dict of
    the same strings gives: for a file in the columns, one with sidecars, one whose numbers
    the columns cannot hold, one never put (vanished), and entries not asked for."""
    files = ["a.png", "b.png", "old.png", "gone.png"]
    stats = {"a.png": (stat(10, 20, 30), []), "b.png": (stat(11, 21, 31), [stat(1, 2, 3)]),
             "old.png": (stat(12, -5, 32), [])}
    sigs = cache_mod.Signatures(files)
    for rel, (st, sides) in stats.items():
        sigs.put(files.index(rel), st, sides)
    with Cache.open(tmp_path) as cache:
        for rel, (st, sides) in stats.items():
            entry_row(cache, rel, cache_mod.signature(st, sides))
        for rel in ("gone.png", "other.png"):
            entry_row(cache, rel, "1:1:1")
        assert sorted(cache.lookup(dict(sigs))) == sorted(cache.lookup(sigs)) == ["a.png", "b.png", "old.png"]
        entry_row(cache, "a.png", "10:20:31")  # its ctime
        entry_row(cache, "b.png", "11:21:31")  # without its sidecar
        assert sorted(cache.lookup(sigs)) == ["old.png"] and (cache.hits, cache.misses) == (7, 2)


@pytest.mark.parametrize("changed", ["size", "mtime", "ctime", "sidecar added", "sidecar changed"])
def test_each_part_of_the_signature_invalidates(tmp_path, changed):
    base = cache_mod.signature(stat(10, 20, 30), [stat(1, 2, 3)])
    now = {
        "size": cache_mod.signature(stat(11, 20, 30), [stat(1, 2, 3)]),
        "mtime": cache_mod.signature(stat(10, 21, 30), [stat(1, 2, 3)]),
        "ctime": cache_mod.signature(stat(10, 20, 31), [stat(1, 2, 3)]),
        "sidecar added": cache_mod.signature(stat(10, 20, 30), [stat(1, 2, 3), stat(4, 5, 6)]),
        "sidecar changed": cache_mod.signature(stat(10, 20, 30), [stat(1, 2, 4)]),
    }[changed]
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", base)
        assert list(cache.lookup({"a.png": base})) == ["a.png"]
        assert cache.lookup({"a.png": now}) == {}


def test_dependencies_must_match_too(tmp_path):
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.gltf", "1:2:3", deps=[("a.bin", "100:2:3"), ("t.png", "-")])
        current = {"a.bin": "100:2:3", "t.png": "-"}
        assert list(cache.lookup({"a.gltf": "1:2:3"}, current.get)) == ["a.gltf"]
        current["t.png"] = "5:6:7"  # the missing image appeared
        assert cache.lookup({"a.gltf": "1:2:3"}, current.get) == {}
        current.update({"t.png": "-", "a.bin": "99:2:3"})
        assert cache.lookup({"a.gltf": "1:2:3"}, current.get) == {}


def test_store_replaces_and_lookup_batches_beyond_the_variable_limit(tmp_path):
    n = 2500  # more than one IN (...) batch, and few enough against the table to use them
    with Cache.open(tmp_path) as cache:
        rows = [(f"t/{i}.png", f"{i}:1:1", (), cache_mod.dumps(value(f"t/{i}.png", 1 + i))) for i in range(4 * n)]
        assert cache.store(rows) == 4 * n
        assert cache.store([("t/0.png", "0:1:2", (), cache_mod.dumps(value("t/0.png", 7)))]) == 1
        hits = cache.lookup({f"t/{i}.png": f"{i}:1:1" for i in range(n)})
        assert len(hits) == n - 1 and "t/0.png" not in hits
        assert hits["t/2499.png"] == value("t/2499.png", 2500)
        assert cache.lookup({"t/0.png": "0:1:2"})["t/0.png"] == value("t/0.png", 7)


def test_prune_deletes_the_entries_not_kept(tmp_path):
    with Cache.open(tmp_path) as cache:
        for rel in ("a.png", "b.png", "c.png"):
            entry_row(cache, rel, "1:1:1")
        assert cache.prune(["a.png", "c.png", "new.png"]) == 1
        assert sorted(cache.lookup({"a.png": "1:1:1", "b.png": "1:1:1", "c.png": "1:1:1"})) == ["a.png", "c.png"]
        assert cache.pruned == 1


def _rels(cache: Cache) -> set[str]:
    assert cache.conn is not None
    return {cache_mod._rel(key) for (key,) in cache.conn.execute("SELECT rel FROM entries ORDER BY rel")}


def _table_reads(cache: Cache) -> list[str]:
    """The statements that read every path of the table, from now on."""
    reads: list[str] = []
    assert cache.conn is not None
    cache.conn.set_trace_callback(lambda sql: reads.append(sql) if sql.strip() == "SELECT rel FROM entries" else None)
    return reads


def test_prune_after_a_lookup_of_the_whole_table_does_not_read_it_again(tmp_path):
    """A full lookup keeps the paths it was asked for and the table's others; prune deletes
    exactly the table's paths not kept, those asked for among them (looked up, so one asked
    for but never stored is not counted), those stored since, and not those deleted since."""
    with Cache.open(tmp_path) as cache:
        for rel in ("a.png", "b.png", "c.png", "d.png", "bad.png"):
            entry_row(cache, rel, "1:1:1")
        assert cache.conn is not None
        cache.conn.execute("UPDATE entries SET value = x'00' WHERE rel = 'bad.png'")
        asked = {"a.png": "1:1:1", "b.png": "2:2:2", "c.png": "1:1:1", "new.png": "1:1:1", "bad.png": "1:1:1"}
        assert sorted(cache.lookup(asked)) == ["a.png", "c.png"]  # bad.png dropped (TB007)
        entry_row(cache, "followed.png", "1:1:1")  # stored after the lookup, not asked for
        entry_row(cache, "new.png", "1:1:1")  # asked for, stored since
        reads = _table_reads(cache)
        assert cache.prune(["a.png", "b.png"]) == 4  # c (asked), d (not asked), followed, new
        assert reads == [] and cache.pruned == 4
        assert _rels(cache) == {"a.png", "b.png"}
        assert cache.prune(["a.png"]) == 1 and reads == ["SELECT rel FROM entries"]  # forgotten after a prune
        assert _rels(cache) == {"a.png"}


def test_prune_keeping_the_table_of_the_signatures_looked_up_reads_nothing(tmp_path):
    """A scan prunes with the path -> position table its Signatures are by: every path asked
    for is kept without going through them, and the table's others not kept are deleted."""
    files = ["a.png", "b.png", "c.png"]
    position = {rel: i for i, rel in enumerate(files)}
    sigs = cache_mod.Signatures(files, position)
    for i in range(2):  # c.png vanished
        sigs.put(i, stat(1, 1, 1))
    with Cache.open(tmp_path) as cache:
        for rel in ("a.png", "b.png", "c.png", "d.png"):
            entry_row(cache, rel, "1:1:1")
        assert sorted(cache.lookup(sigs)) == ["a.png", "b.png"]
        assert cache.conn is not None
        statements: list[str] = []
        cache.conn.set_trace_callback(statements.append)
        assert cache.prune(position) == 1  # d.png; c.png is one of the files kept
        assert not [sql for sql in statements if sql.lstrip().startswith("SELECT")]
        assert _rels(cache) == {"a.png", "b.png", "c.png"}


def test_prune_after_a_keyed_lookup_reads_the_table(tmp_path):
    with Cache.open(tmp_path) as cache:
        for i in range(10):
            entry_row(cache, f"t/{i}.png", "1:1:1")
        assert list(cache.lookup({"t/0.png": "1:1:1"})) == ["t/0.png"]  # 1 of 10: by key
        reads = _table_reads(cache)
        assert cache.prune({"t/0.png": None, "t/1.png": None}.keys()) == 8
        assert reads == ["SELECT rel FROM entries"] and _rels(cache) == {"t/0.png", "t/1.png"}


def test_a_key_texbudget_did_not_write_is_no_files_and_is_pruned(tmp_path):
    """A key starting with "/" is a name that is not UTF-8, in hex: one that is not hex (a
    crafted or damaged file) made every lookup of the whole table raise, and so a scan."""
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", "1:1:1")
        assert cache.conn is not None
        cache.conn.execute("INSERT INTO entries SELECT '/zz', sig, deps, value FROM entries")
        assert list(cache.lookup({"a.png": "1:1:1"})) == ["a.png"]
        assert cache.prune(["a.png"]) == 1 and _rels(cache) == {"a.png"}


def test_another_version_empties_the_cache_without_a_warning(tmp_path, monkeypatch):
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", "1:1:1")
    monkeypatch.setattr(cache_mod, "CACHE_VERSION", "9.9.9/1")
    with Cache.open(tmp_path) as cache:
        assert cache.usable and cache.notes == []
        assert cache.lookup({"a.png": "1:1:1"}) == {}
        entry_row(cache, "a.png", "1:1:1")
    with Cache.open(tmp_path) as cache:
        assert list(cache.lookup({"a.png": "1:1:1"})) == ["a.png"]


def test_an_off_cache_misses_and_ignores_writes(tmp_path):
    cache = Cache(tmp_path / "nowhere.sqlite", reason="test")
    assert not cache.usable
    assert cache.lookup({"a.png": "1:1:1"}) == {}
    assert cache.store([("a.png", "1:1:1", (), b"x")]) == 0
    assert cache.prune([]) == 0
    assert cache.misses == 1


# --- corruption -------------------------------------------------------------------------------


def _tb007(cache: Cache) -> Finding:
    assert len(cache.notes) == 1, cache.notes
    note = cache.notes[0]
    assert (note.path, note.code, note.severity) == (".texbudget/cache.sqlite", "TB007", Severity.WARNING)
    return note


def _works(cache: Cache) -> None:
    assert cache.usable, cache.reason
    entry_row(cache, "z.png", "1:1:1")
    assert list(cache.lookup({"z.png": "1:1:1"})) == ["z.png"]


def test_a_garbage_file_is_rebuilt_with_tb007(tmp_path):
    (tmp_path / ".texbudget").mkdir()
    (tmp_path / ".texbudget" / "cache.sqlite").write_bytes(b"this is not a database at all\n" * 200)
    with Cache.open(tmp_path) as cache:
        note = _tb007(cache)
        assert note.message.startswith("the read cache was corrupt (")
        assert note.message.endswith("); it was rebuilt and every file read again")
        _works(cache)


def test_a_truncated_file_is_rebuilt_with_tb007(tmp_path):
    with Cache.open(tmp_path) as cache:
        big = b"\x01" * 3000
        cache.store([(f"t/{i}.png", "1:1:1", (), cache_mod.dumps((ReadResult(), Finding("x", "TB001", Severity.ERROR, "m", big.hex())))) for i in range(400)])
    path = tmp_path / ".texbudget" / "cache.sqlite"
    for suffix in ("-wal", "-shm"):  # checkpointed on close; make sure only the main file is left
        assert not Path(f"{path}{suffix}").exists()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    with Cache.open(tmp_path) as cache:
        hits = cache.lookup({f"t/{i}.png": "1:1:1" for i in range(400)})
        assert hits == {}
        _tb007(cache)
        _works(cache)


def test_a_file_of_another_application_is_rebuilt_with_tb007(tmp_path):
    (tmp_path / ".texbudget").mkdir()
    conn = sqlite3.connect(tmp_path / ".texbudget" / "cache.sqlite")
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.commit()
    conn.close()
    with Cache.open(tmp_path) as cache:
        assert "not a texbudget cache" in _tb007(cache).message
        _works(cache)


@pytest.mark.parametrize("schema", [cache_mod.SCHEMA - 1, 99])
def test_another_schema_number_is_emptied_and_claimed_without_a_finding(tmp_path, schema):
    """An upgrade that changes what a value holds bumps the schema: the older (or newer)
    texbudget's cache is emptied and claimed, as for another version; nothing is "corrupt"."""
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", "1:1:1")
    conn = sqlite3.connect(tmp_path / ".texbudget" / "cache.sqlite")
    conn.execute(f"PRAGMA user_version = {schema}")
    conn.commit()
    conn.close()
    with Cache.open(tmp_path) as cache:
        assert cache.take_notes() == [] and cache.lookup({"a.png": "1:1:1"}) == {}
        _works(cache)
    conn = sqlite3.connect(tmp_path / ".texbudget" / "cache.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == cache_mod.SCHEMA
    conn.close()


@pytest.mark.parametrize("damage", ["drop column", "drop table"])
def test_a_wrong_schema_is_rebuilt_with_tb007(tmp_path, damage):
    Cache.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / ".texbudget" / "cache.sqlite")
    if damage == "drop column":
        conn.execute("DROP TABLE entries")
        conn.execute("CREATE TABLE entries (rel TEXT PRIMARY KEY, value BLOB)")
    else:
        conn.execute("DROP TABLE meta")
    conn.commit()
    conn.close()
    with Cache.open(tmp_path) as cache:
        assert "wrong schema" in _tb007(cache).message
        _works(cache)


def test_an_undecodable_entry_is_dropped_with_tb007(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    hostile = {f"bad/{i}.png": blob for i, blob in enumerate(_hostile_blobs().values())}
    with Cache.open(tmp_path) as cache:
        entry_row(cache, "a.png", "1:1:1")
        cache.store([(rel, "1:1:1", (), blob) for rel, blob in hostile.items()])
    with Cache.open(tmp_path) as cache:
        hits = cache.lookup({"a.png": "1:1:1", **dict.fromkeys(hostile, "1:1:1")})
        assert list(hits) == ["a.png"] and hits["a.png"] == value("a.png")
        assert _tb007(cache).message.startswith(f"the read cache was corrupt ({len(hostile)} entries could not be decoded, e.g. ")
    with Cache.open(tmp_path) as cache:
        assert cache.lookup(dict.fromkeys(hostile, "1:1:1")) == {}
        assert cache.notes == []
    assert not (tmp_path / "should-not-exist").exists()


def test_tb007_is_in_the_findings_table():
    code = findings.CODES["TB007"]
    assert code.severity is Severity.WARNING and "rebuilt" in code.meaning


# --- a folder it cannot write ------------------------------------------------------------------


def test_a_file_where_the_folder_should_be_turns_the_cache_off(tmp_path):
    (tmp_path / ".texbudget").write_text("not a folder")
    cache = Cache.open(tmp_path)
    assert not cache.usable
    assert cache.reason.startswith(f"cannot create {tmp_path / '.texbudget'}: ")
    assert cache.lookup({"a.png": "1:1:1"}) == {} and cache.notes == []


def test_a_cache_path_that_cannot_be_opened_turns_the_cache_off(tmp_path):
    (tmp_path / ".texbudget" / "cache.sqlite").mkdir(parents=True)
    cache = Cache.open(tmp_path)
    assert not cache.usable
    assert cache.reason.startswith(f"cannot use {tmp_path / '.texbudget' / 'cache.sqlite'}: ")
    assert cache.notes == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user for a read-only folder")
def test_a_read_only_folder_turns_the_cache_off(tmp_path):
    tmp_path.chmod(0o555)
    try:
        cache = Cache.open(tmp_path)
        assert not cache.usable and cache.reason
    finally:
        tmp_path.chmod(0o755)


def test_a_read_only_database_turns_the_cache_off(tmp_path):
    """A cache someone else made read-only (or a read-only mount): the WAL cannot be set up
    or written. Simulated with SQLite's own read-only mode, which works even as root."""
    Cache.open(tmp_path).close()
    cache = Cache(tmp_path / ".texbudget" / "cache.sqlite")
    uri = f"file:{cache.path}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    cache.conn = conn
    assert cache.store([("a.png", "1:1:1", (), cache_mod.dumps(value()))]) == 0
    assert not cache.usable and "readonly" in cache.reason.replace("-", "").replace(" ", "")


# --- concurrency and kill -9 ------------------------------------------------------------------


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from texbudget import cache as c
    from texbudget.model import ReadResult, TextureFacts
    root, tag, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    with c.Cache.open(root) as cache:
        assert cache.usable, cache.reason
        for batch in range(10):
            rows = [(f"{tag}/{i}.png", "1:1:1", (), c.dumps((ReadResult(textures=(TextureFacts(f"{tag}/{i}.png", "png", i + 1, 1),)), None)))
                    for i in range(batch * n, (batch + 1) * n)]
            written = cache.store(rows)
            assert written == n, (written, cache.reason)
            seen = cache.lookup({r[0]: "1:1:1" for r in rows})
            assert len(seen) == n
        assert cache.notes == [], cache.notes
    print("ok")
""")


def _python(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kw)


def test_two_processes_writing_at_once_both_finish(tmp_path):
    procs = [_python("-c", _WRITER, str(tmp_path), tag, "300") for tag in ("a", "b")]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "ok"
    with Cache.open(tmp_path) as cache:
        hits = cache.lookup({f"{t}/{i}.png": "1:1:1" for t in "ab" for i in range(3000)})
        assert len(hits) == 6000
        assert hits["b/2999.png"][0].textures[0].width == 3000


_KILLED = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from texbudget import cache as c
    from texbudget.model import ReadResult
    root = Path(sys.argv[1])
    cache = c.Cache.open(root)
    cache.store([("kept.png", "1:1:1", (), c.dumps((ReadResult(), None)))])
    conn = cache.conn
    conn.execute("BEGIN IMMEDIATE")
    blob = c.dumps((ReadResult(), None)) + b"x" * 4000
    conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, '1:1:1', '', ?)", ((f"lost/{i}.png", blob) for i in range(20000)))
    print("writing", flush=True)
    time.sleep(600)
""")


def test_a_run_killed_during_a_write_leaves_a_working_cache(tmp_path):
    proc = _python("-c", _KILLED, str(tmp_path))
    assert proc.stdout.readline().strip() == "writing"
    wal = tmp_path / ".texbudget" / "cache.sqlite-wal"
    assert wal.stat().st_size > 1_000_000  # the uncommitted rows spilled into the WAL
    proc.kill()
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    with Cache.open(tmp_path) as cache:
        assert cache.usable and cache.notes == []
        assert list(cache.lookup({"kept.png": "1:1:1"})) == ["kept.png"]
        assert cache.lookup({"lost/0.png": "1:1:1", "lost/19999.png": "1:1:1"}) == {}
        _works(cache)


_OPEN = "import sys; from pathlib import Path; from texbudget.cache import Cache; c = Cache.open(Path(sys.argv[1])); print(c.usable, len(c.notes), c.reason)"


def test_runs_creating_the_same_cache_at_once_all_use_it(tmp_path):
    """No run may take another's half-made file for a corrupt one (and delete it), or give
    up on a lock it only had to wait for."""
    for round_ in range(6):
        root = tmp_path / str(round_)
        root.mkdir()
        procs = [_python("-c", _OPEN, str(root)) for _ in range(4)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            assert out.strip() == "True 0", out


def test_one_decoder_keeps_one_copy_of_equal_values():
    a = texture("props/a.png")
    b = texture("props/b.png")
    blobs = [cache_mod.dumps((ReadResult(textures=(t,)), None)) for t in (a, b)]
    decoder = cache_mod.Decoder(["props/a.png"])
    first, second = (decoder.loads(blob)[0].textures[0] for blob in blobs)
    assert (first, second) == (a, b)
    assert first.container is second.container and first.width is second.width
    assert first.path is next(p for p in decoder.paths if p == "props/a.png")  # the caller's string
    assert first.level_bytes is second.level_bytes
    with pytest.raises(msgspec.DecodeError):
        decoder.loads(pickle.dumps(_Evil()))


def test_one_decoder_keeps_one_copy_of_equal_mesh_parts():
    """Across values: attributes and compression (of a primitive held inline in its mesh and
    of a mesh's ``surfaces``), source, texture paths and slots; within a value: the mesh and
    material paths its scene names again."""
    attr = AttributeFacts("POSITION", "FLOAT", 3, 100, 1200)

    def result(n: str) -> ReadResult:
        material = f"{n}.glb#material/0"
        prim = PrimitiveFacts(mode=4, vertex_count=100, triangles=50, attributes=(attr,), compression="draco",
                              material=material)
        scene = SceneFacts.from_uses(path=f"{n}.glb", instances=((f"{n}.glb#mesh/0", 2),),
                                     texture_usage=(("t.png", material, "baseColorTexture"), ("t.png", material, "normalTexture")))
        mesh = MeshFacts.from_primitives(path=f"{n}.glb#mesh/0", name="Rock", primitives=(prim,), vertices=100,
                                         indices=0, triangles=50, vertex_bytes=1200, index_bytes=0)
        two = MeshFacts.from_primitives(path=f"{n}.glb#mesh/1", name="Rocks", primitives=(prim, prim), vertices=100,
                                        indices=0, triangles=100, vertex_bytes=1200, index_bytes=0)
        return ReadResult(meshes=(mesh, two), scenes=(scene,))

    blobs = [cache_mod.dumps((result(n), None)) for n in ("a", "b")]
    decoder = cache_mod.Decoder(["a.glb", "t.png"])
    first, second = (decoder.loads(blob)[0] for blob in blobs)
    assert (first, second) == (result("a"), result("b"))
    assert first.meshes[0].mode == 4 and len(first.meshes[1].surfaces) == 2  # one form of each
    one, two = first.meshes[0], second.meshes[0]
    assert one.attributes is two.attributes and one.attributes[0] is two.attributes[0]
    assert one.compression is two.compression
    surfaces = first.meshes[1].surfaces + second.meshes[1].surfaces
    assert all(p.attributes is one.attributes and p.compression is one.compression for p in surfaces)
    assert surfaces[0].material is surfaces[1].material is one.material
    assert first.meshes[0].source is second.meshes[0].source
    assert first.scenes[0].path is next(p for p in decoder.paths if p == "a.glb")
    (texture, material, slot), (texture_2, material_2, _) = first.scenes[0].texture_usage
    assert texture is texture_2 is next(p for p in decoder.paths if p == "t.png")
    assert material is material_2 is one.material and slot is second.scenes[0].texture_usage[0][2]
    assert first.scenes[0].instances[0][0] is first.meshes[0].path


def test_the_files_paths_are_a_table_that_does_not_grow():
    """A path field (a texture's, a scene's, a texture a scene uses, a reference's target)
    takes the string of the files given when it is one of them, and is kept once among the
    shared values otherwise; the files' table is the caller's (``Signatures``') and is never
    added to."""
    files = ["lvl/a.tscn", "lvl/b.tscn", "t.png"]
    sigs = cache_mod.Signatures(files)
    decoder = cache_mod.Decoder.of(sigs)
    assert decoder.paths is files and decoder.position is sigs.position

    def result(n: str) -> ReadResult:
        refs = (SceneRef(holder=f"lvl/{n}.tscn", target="t.png", kind="texture", slot="albedo_texture"),
                SceneRef(holder=f"lvl/{n}.tscn", target="gone.png", kind="texture", slot="albedo_texture"))
        scene = SceneFacts.from_uses(path=f"lvl/{n}.tscn", texture_usage=(("t.png", f"lvl/{n}.tscn", "albedo"),
                                                                           ("gone.png", f"lvl/{n}.tscn", "albedo")), refs=refs)
        return ReadResult(textures=(texture("t.png"), texture("gone.png")), scenes=(scene,))

    first, second = (decoder.loads(cache_mod.dumps((result(n), None)))[0] for n in ("a", "b"))
    assert (first, second) == (result("a"), result("b"))
    kept = decoder.shared["gone.png"]
    for got in (first, second):
        assert got.textures[0].path is files[2] and got.textures[1].path is kept
        assert got.scenes[0].texture_paths[0] is files[2] and got.scenes[0].texture_paths[1] is kept
        assert got.scenes[0].refs[0].target is files[2] and got.scenes[0].refs[1].target is kept
    assert first.scenes[0].path is files[0] and second.scenes[0].path is files[1]
    assert len(decoder.position) == 3 and "t.png" not in decoder.shared
    assert cache_mod.Decoder(iter(files)).paths == files  # any iterable of paths


def _sized_mesh(n: str) -> ReadResult:
    """A mesh whose counts and sizes are ints made at run time (each its own object)."""
    def big(k: int) -> int:
        return int(str(k))  # not a constant the compiler shares

    prim = PrimitiveFacts(mode=4, vertex_count=big(7000), triangles=big(9000), index_count=big(27000),
                          morph_bytes=big(3000))
    one = MeshFacts.from_primitives(path=f"{n}.glb#mesh/0", name="Rock", primitives=(prim,), vertices=big(7000),
                                    indices=big(27000), triangles=big(9000), vertex_bytes=big(84000),
                                    index_bytes=big(54000), morph_bytes=big(3000))
    # two primitives: the first's vertex count is the mesh's, the others are their own
    prims = (PrimitiveFacts(mode=4, vertex_count=big(7000), triangles=big(9000), index_count=big(27000)),
             PrimitiveFacts(mode=4, vertex_count=big(7000), triangles=big(300), index_count=big(900), morph_bytes=big(3000)))
    two = MeshFacts.from_primitives(path=f"{n}.glb#mesh/1", name="Rocks", primitives=prims, vertices=big(7000),
                                    indices=big(27900), triangles=big(9300), vertex_bytes=big(84000),
                                    index_bytes=big(55800), morph_bytes=big(3000))
    return ReadResult(meshes=(one, two),
                      textures=(TextureFacts(path=f"{n}.png", container="png", width=big(4096), height=big(2048)),))


_MESH_INTS = ("vertices", "indices", "triangles", "vertex_bytes", "index_bytes", "morph_bytes")
_PRIMITIVE_INTS = ("vertex_count", "triangles", "index_count", "morph_bytes")


@pytest.mark.parametrize("how", ["decoded", "read here"])
def test_one_decoder_keeps_one_copy_of_equal_counts_and_sizes(how: str):
    """A mesh's and its primitives' counts and sizes, and a texture's sides, are one int
    object for every value of a scan, decoded (``loads``) or read in this process
    (``share_sizes``); the values stay equal."""
    decoder = cache_mod.Decoder()
    if how == "decoded":
        first, second = (decoder.loads(cache_mod.dumps((_sized_mesh(n), None)))[0] for n in ("a", "b"))
    else:
        first, second = _sized_mesh("a"), _sized_mesh("b")
        assert first.meshes[0].vertices is not second.meshes[0].vertices
        decoder.share_sizes(first)
        decoder.share_sizes(second)
    assert (first, second) == (_sized_mesh("a"), _sized_mesh("b"))
    for one, two in zip(first.meshes, second.meshes, strict=True):
        for name in _MESH_INTS:
            assert getattr(one, name) is getattr(two, name), name
        for p, q in zip(one.primitives, two.primitives, strict=True):
            for name in _PRIMITIVE_INTS:
                assert getattr(p, name) is getattr(q, name), name
        assert one.primitives[0].vertex_count is one.vertices
    inline, listed = first.meshes
    assert inline.mode == 4 and inline.primitives[0].index_count is inline.indices
    assert len(listed.surfaces) == 2 and listed.surfaces[1].morph_bytes is listed.morph_bytes
    assert listed.surfaces[0].triangles is inline.triangles  # across meshes too
    assert first.textures[0].width is second.textures[0].width and first.textures[0].height is second.textures[0].height


def test_a_pool_workers_message_round_trips_with_names_that_are_not_utf8():
    """A worker sends (chunk number, each file's blob, no records, each file's dependencies)
    when the cache is written, (chunk number, no blobs, each file's value as records in the
    stored form, no dependencies) when not, through ``cache.Codec``, or its traceback as its
    last message; a dependency's name, a record's path (or the file a traceback names) may be
    in another encoding, a blob is bytes."""
    from texbudget.scan.reading import _MESSAGES

    name = os.fsdecode(b"maps/\xe9t\xe9.bin")
    odd = value(os.fsdecode(b"caf\xe9.png"))
    blob = cache_mod.dumps(odd)
    message = (3, [blob, cache_mod.dumps(value())], [], [[name, "a.png"], False])
    sent = _MESSAGES.dumps(message)
    assert sent[:1] == cache_mod._ESCAPED
    assert _MESSAGES.loads(sent) == message
    records = (4, [], [cache_mod.stored(odd), cache_mod.stored(value())], [])
    sent = _MESSAGES.dumps(records)
    assert sent[:1] == cache_mod._ESCAPED
    assert _MESSAGES.loads(sent) == records
    assert [cache_mod.Decoder().take(v) for v in _MESSAGES.loads(sent)[2]] == [odd, value()]
    assert _MESSAGES.loads(_MESSAGES.dumps((0, [], [], []))) == (0, [], [], [])
    with pytest.raises(msgspec.ValidationError):
        _MESSAGES.loads(msgspec.msgpack.encode([0, ["not bytes"], [], [None]]))
    with pytest.raises(msgspec.ValidationError):
        _MESSAGES.loads(msgspec.msgpack.encode([0, [], [["not a result", None, None]], []]))
    # a worker's last message, its exception's traceback (pool.WorkerFailed), names the file
    failed = f"Traceback (most recent call last):\nKeyError: 'a bug'\ntexbudget was reading {name}\n"
    assert _MESSAGES.loads(_MESSAGES.dumps(failed)) == failed
    with pytest.raises(msgspec.ValidationError):
        _MESSAGES.loads(msgspec.msgpack.encode(3))
