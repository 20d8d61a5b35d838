"""``scan.scene.read_scene``: the same Scan with and without the cache, what invalidates an entry,
pruning, the process pool, custom readers, a cache that cannot be used, concurrent runs, and
the prefetched source the readers are handed.

Trees come from ``benchmarks/make_tree.py`` (real headers; every file's mtime is set in 2024
so the cache's racy-file rule does not apply), plus a glTF with an external buffer and image
and a Godot sidecar written here.
"""

from __future__ import annotations

import errno
import functools
import gc
import hashlib
import importlib.util
import json
import os
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from texbudget import cache as cache_mod
from texbudget import config as config_mod
from texbudget.discover import discover
from texbudget.model import Finding, MeshFacts, ReadResult, Severity, TextureFacts
from texbudget.readers import read_path
from texbudget.readers.sidecars import read_engine_import
from texbudget.scan import job, pool, reading, scene
from texbudget.scan.job import CacheStats
from texbudget.scan.scene import Scan, read_scene

REPO = Path(__file__).resolve().parents[2]
OLD_NS = 1_704_067_200 * 10**9  # 2024-01-01, as make_tree writes
CONFIG = config_mod.load(None)


def _make_tree_module():
    spec = importlib.util.spec_from_file_location("bench_make_tree", REPO / "benchmarks" / "make_tree.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_make_tree", module)
    spec.loader.exec_module(module)
    return module


make_tree = _make_tree_module()

GODOT_IMPORT = '[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\n\n[params]\n\ncompress/mode={mode}\nmipmaps/generate=true\n'


def _old(path: Path, ns: int = OLD_NS) -> None:
    os.utime(path, ns=(ns, ns))


def _gltf(root: Path) -> None:
    """scene/level.gltf: one triangle in scene/level.bin, a material using scene/wall.png."""
    scene = root / "scene"
    scene.mkdir()
    (scene / "level.bin").write_bytes(struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0))
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"name": "Tri", "primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}], "images": [{"uri": "wall.png"}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"uri": "level.bin", "byteLength": 36}],
    }
    (scene / "level.gltf").write_text(json.dumps(doc))
    (scene / "wall.png").write_bytes(make_tree.png_bytes(256, 256, 2))
    for f in scene.iterdir():
        _old(f)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    make_tree.make_tree(root, 120)
    (root / ".tree.json").unlink()
    _gltf(root)
    png = root / "characters" / "set_0000" / "char_000000.png"
    sidecar = png.with_name(png.name + ".import")
    sidecar.write_text(GODOT_IMPORT.format(mode=2))
    _old(sidecar)
    return root


def same(a: Scan, b: Scan) -> bool:
    return a == b and dict(a.engine) == dict(b.engine)


def digest(scan: Scan) -> str:
    parts = (scan.textures, scan.meshes, scan.scenes, scan.findings, scan.files, sorted(scan.engine.items()))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


# --- equal with and without the cache ---------------------------------------------------------


def test_the_cache_gives_the_same_scan_as_reading(tree):
    plain = read_scene(tree, CONFIG, jobs=1)
    assert plain.cache == CacheStats("off")
    assert len(plain.files) == 122 and len(plain.textures) == 106 and len(plain.meshes) == 24
    assert set(plain.engine) == {"characters/set_0000/char_000000.png"}
    cold = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    warm = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert same(plain, cold) and same(plain, warm)
    assert cold.cache == CacheStats("on", hits=0, misses=122, stored=122)
    assert warm.cache == CacheStats("on", hits=122, misses=0, stored=0)


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_is_read_is_stored_in_batches_but_not_a_racy_file(tree, monkeypatch, jobs):
    """A cold scan writes the cache a batch of files at a time as they are read (its blobs
    are not all held to the end); a file changed within the racy window is read, not stored."""
    monkeypatch.setattr(job, "STORE_BATCH", 10)
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    writes: list[int] = []
    real_store = cache_mod.Cache.store

    def store(self, items):
        items = list(items)
        writes.append(len(items))
        return real_store(self, items)

    monkeypatch.setattr(cache_mod.Cache, "store", store)
    plain = read_scene(tree, CONFIG, jobs=jobs)
    fresh = tree / "characters" / "set_0000" / "char_000001.png"
    os.utime(fresh)  # now: within the racy window
    cold = read_scene(tree, CONFIG, jobs=jobs, use_cache=True)
    assert same(plain, cold)
    assert cold.cache == CacheStats("on", hits=0, misses=122, stored=121)
    assert sum(writes) == 121 and len(writes) >= 12 and max(writes) <= 10
    warm = read_scene(tree, CONFIG, jobs=jobs, use_cache=True)
    assert same(plain, warm)
    assert (warm.cache.hits, warm.cache.misses, warm.cache.stored) == (121, 1, 0)


def test_an_open_cache_can_be_passed_and_stays_open(tree):
    with cache_mod.Cache.open(tree) as cache:
        first = read_scene(tree, CONFIG, jobs=1, cache=cache)
        second = read_scene(tree, CONFIG, jobs=1, cache=cache)
        assert cache.usable
    assert same(first, second)
    assert (first.cache.hits, first.cache.misses) == (0, 122)  # each scan's own counts
    assert (second.cache.hits, second.cache.misses) == (122, 0)


def test_explicit_paths_are_served_from_the_cache_too(tree):
    read_scene(tree, CONFIG, jobs=1, use_cache=True)
    picked = [tree / "scene", tree / "characters" / "set_0000" / "char_000000.png"]
    plain = read_scene(tree, CONFIG, picked, jobs=1)
    warm = read_scene(tree, CONFIG, picked, jobs=1, use_cache=True)
    assert same(plain, warm)
    assert warm.cache == CacheStats("on", hits=3, misses=0)


# --- what invalidates -------------------------------------------------------------------------


def _png(tree: Path) -> tuple[Path, str]:
    path = tree / "characters" / "set_0000" / "char_000001.png"
    return path, path.relative_to(tree).as_posix()


def _warm(tree: Path) -> Scan:
    read_scene(tree, CONFIG, jobs=1, use_cache=True)
    return read_scene(tree, CONFIG, jobs=1, use_cache=True)


def test_a_changed_file_is_read_again(tree):
    _warm(tree)
    path, rel = _png(tree)
    path.write_bytes(make_tree.png_bytes(64, 32, 6))
    _old(path)  # same mtime as before: the size and ctime tell
    after = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert after.cache == CacheStats("on", hits=121, misses=1, stored=1)
    facts = next(t for t in after.textures if t.path == rel)
    assert (facts.width, facts.height, facts.channels) == (64, 32, 4)
    assert same(after, read_scene(tree, CONFIG, jobs=1))


def test_only_what_the_cache_did_not_give_is_read(tree, monkeypatch):
    """The files the cache gave are marked as given and not read; the changed one, one that
    vanished after discovery (it has no signature) and the glTF that uses it are read, and the
    scan is the one reading every file gives, in the files' order."""
    _warm(tree)
    path, rel = _png(tree)
    path.write_bytes(make_tree.png_bytes(64, 32, 6))
    _old(path)
    found = discover(tree, CONFIG["scan.include"], CONFIG["scan.exclude"], None)
    vanished = "scene/wall.png"
    (tree / vanished).unlink()
    read: list[str] = []
    real = job._read_file

    def counted(root: Path, name: str, sidecar: bool):
        read.append(name)
        return real(root, name, sidecar)

    monkeypatch.setattr(job, "_read_file", counted)
    after = read_scene(tree, CONFIG, jobs=1, use_cache=True, found=found)
    assert sorted(read) == sorted([rel, vanished, "scene/level.gltf"])  # the glTF uses the image
    assert after.cache == CacheStats("on", hits=119, misses=2, stored=2, pruned=0)  # the vanished file: neither
    assert same(after, read_scene(tree, CONFIG, jobs=1, found=found))


def test_gathered_records_come_out_in_the_files_order():
    """Files handed over in any order give their records in the files' order: per kind, the
    files that gave some, each file's in its own order; a kind whose files came in order is
    left as it came."""
    files = ["a", "b", "c", "d", "e"]
    gathered = scene._Gathered(files)

    def texture(rel: str, k: int) -> TextureFacts:
        return TextureFacts(path=f"{rel}#image/{k}", container="png", width=4, height=4)

    def note(rel: str, k: int) -> Finding:
        return Finding(rel, "TB081", Severity.INFO, f"note {k}")

    def mesh(rel: str) -> MeshFacts:
        return MeshFacts(f"{rel}#mesh/0", "m", (), 3, 0, 1, 36, 0)

    textures = {"c": 2, "a": 1, "b": 3}
    notes = {"e": 1, "b": 2}
    for rel in ("c", "a", "e", "b", "d"):  # meshes from a, then d: in order
        result = ReadResult(textures=tuple(texture(rel, k) for k in range(textures.get(rel, 0))),
                            meshes=(mesh(rel),) if rel in "ad" else (),
                            findings=tuple(note(rel, k) for k in range(notes.get(rel, 0))))
        gathered.take(rel, result, note(rel, 9) if rel == "d" else None)
    got_textures, got_meshes, scenes, got_findings, engine = gathered.ordered()
    assert [t.path for t in got_textures] == ["a#image/0", "b#image/0", "b#image/1", "b#image/2", "c#image/0", "c#image/1"]
    assert got_meshes is gathered.meshes and [m.path for m in got_meshes] == ["a#mesh/0", "d#mesh/0"]
    assert [(f.path, f.message) for f in got_findings] == [("b", "note 0"), ("b", "note 1"), ("d", "note 9"), ("e", "note 0")]
    assert scenes == [] and engine == {}


@pytest.mark.parametrize("arrival", ["chunks", "alternating", "shuffled"])
def test_gathered_records_come_out_in_the_files_order_however_the_chunks_came(arrival):
    """``_Gathered.ordered`` against the files' order written out: chunks that came in any
    order, the records from one type's files (merged a stretch at a time, ``_in_order``),
    chunks of two types whose files alternate (file by file once the stretches are too many)
    and files one by one in any order; each file's records in its own order, files that gave
    none left out."""
    import random

    rng = random.Random(arrival)
    files = [f"f{i:04d}" + (".glb" if i % 3 else ".png") for i in range(3000)]
    # chunks: the meshes of one type's files (their chunks hold stretches of them); otherwise
    # both types' files give some
    counts = {rel: 0 if arrival == "chunks" and rel.endswith(".png") else rng.choice((0, 1, 1, 2, 3)) for rel in files}
    if arrival == "shuffled":
        order = rng.sample(files, len(files))
    else:
        size = 128 if arrival == "chunks" else 16
        glb = [rel for rel in files if rel.endswith(".glb")]
        png = [rel for rel in files if rel.endswith(".png")]
        chunks = [group[i : i + size] for group in (glb, png) for i in range(0, len(group), size)]
        if arrival == "chunks":
            rng.shuffle(chunks)
        else:  # a glb chunk, then the png chunk of the same stretch of files: their files alternate
            half = len(chunks) // 2
            chunks = [c for pair in zip(chunks[:half], chunks[half : 2 * half], strict=True) for c in pair] + chunks[2 * half :]
        order = [rel for chunk in chunks for rel in chunk]
    gathered = scene._Gathered(files)
    for rel in order:
        gathered.take(rel, ReadResult(meshes=tuple(MeshFacts(f"{rel}#mesh/{k}", "m", 3, 0, 1, 36, 0) for k in range(counts[rel]))), None)
    meshes = gathered.ordered()[1]
    assert [m.path for m in meshes] == [f"{rel}#mesh/{k}" for rel in files for k in range(counts[rel])]


def test_a_new_mtime_alone_is_a_miss(tree):
    _warm(tree)
    path, _ = _png(tree)
    _old(path, OLD_NS + 1)
    after = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert (after.cache.hits, after.cache.misses) == (121, 1)


def test_a_sidecar_added_or_edited_is_a_miss_for_its_texture(tree):
    _warm(tree)
    path, rel = _png(tree)
    sidecar = path.with_name(path.name + ".import")
    sidecar.write_text(GODOT_IMPORT.format(mode=0))
    _old(sidecar)
    added = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert (added.cache.hits, added.cache.misses) == (121, 1)
    assert added.engine[rel].compress_mode == 0
    sidecar.write_text(GODOT_IMPORT.format(mode=1) + "\n")
    _old(sidecar)
    edited = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert (edited.cache.hits, edited.cache.misses) == (121, 1)
    assert edited.engine[rel].compress_mode == 1
    sidecar.unlink()
    removed = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert rel not in removed.engine and removed.cache.misses == 1


def test_a_gltf_is_read_again_when_its_buffer_or_image_changes(tree):
    warm = _warm(tree)
    assert not [f for f in warm.findings if f.path == "scene/level.gltf"]
    (tree / "scene" / "wall.png").unlink()
    after = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert [f.code for f in after.findings if f.path == "scene/level.gltf"] == ["TB075"]
    assert same(after, read_scene(tree, CONFIG, jobs=1))
    (tree / "scene" / "level.bin").write_bytes(b"\0" * 12)
    _old(tree / "scene" / "level.bin")
    again = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert same(again, read_scene(tree, CONFIG, jobs=1))
    assert again.cache.misses == 1  # the glTF (level.bin is not an asset of its own)


def test_another_texbudget_version_reads_everything_again(tree, monkeypatch):
    _warm(tree)
    monkeypatch.setattr(cache_mod, "CACHE_VERSION", "0.0.0/0")
    after = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert after.cache == CacheStats("on", hits=0, misses=122, stored=122)


def test_a_file_written_just_now_is_read_but_not_stored(tree):
    _warm(tree)
    path, _ = _png(tree)
    path.write_bytes(make_tree.png_bytes(64, 64, 2))
    first = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    second = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert (first.cache.misses, first.cache.stored) == (1, 0)
    assert (second.cache.misses, second.cache.stored) == (1, 0)
    assert same(first, second)


def test_a_whole_tree_scan_prunes_files_that_are_gone(tree):
    _warm(tree)
    path, rel = _png(tree)
    path.unlink()
    partial = read_scene(tree, CONFIG, [tree / "scene"], jobs=1, use_cache=True)
    assert partial.cache.pruned == 0
    whole = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert whole.cache == CacheStats("on", hits=121, misses=0, pruned=1)
    conn = __import__("sqlite3").connect(tree / ".texbudget" / "cache.sqlite")
    rels = {r for (r,) in conn.execute("SELECT rel FROM entries")}
    conn.close()
    assert rel not in rels and len(rels) == 121


def test_images_a_gltf_follows_outside_discovery_are_cached_and_kept(tree):
    config = config_mod.load(_config(tree, 'exclude = ["scene/wall.png"]'))
    plain = read_scene(tree, config, jobs=1)
    assert "scene/wall.png" not in plain.files and any(t.path == "scene/wall.png" for t in plain.textures)
    cold = read_scene(tree, config, jobs=1, use_cache=True)
    warm = read_scene(tree, config, jobs=1, use_cache=True)
    assert same(plain, cold) and same(plain, warm)
    assert (warm.cache.hits, warm.cache.misses, warm.cache.pruned) == (122, 0, 0)


def test_follow_gltf_reads_the_scenes_and_the_images_they_use(tree):
    whole = read_scene(tree, CONFIG, jobs=1)
    config = config_mod.load(_config(tree, 'follow = "gltf"'))
    scan = read_scene(tree, config, jobs=1)
    scenes = {f for f in whole.files if f.endswith((".glb", ".gltf"))}
    used = {tex for s in whole.scenes for tex, _, _ in s.texture_usage if "#" not in tex}
    assert len(scenes) > 10 and "scene/wall.png" in used and len(used) < len(whole.textures) / 2
    assert set(scan.files) == scenes | used
    assert {t.path: t for t in scan.textures} == {t.path: t for t in whole.textures if t.path in used}
    assert scan.meshes == whole.meshes and scan.scenes == whole.scenes
    for cached in (read_scene(tree, config, jobs=1, use_cache=True), read_scene(tree, config, jobs=1, use_cache=True)):
        assert same(scan, cached)
    # files named on the command line are read as given
    png = "characters/set_0000/char_000000.png"
    assert png not in used and [t.path for t in read_scene(tree, config, [tree / png], jobs=1).textures] == [png]


def _config(tree: Path, scan_section: str) -> Path:
    path = tree / "texbudget.toml"
    path.write_text(f"[scan]\n{scan_section}\n")
    return path


# --- the cache unusable, corrupt, or not for this reader --------------------------------------


def test_a_cache_that_cannot_be_created_is_reported_not_fatal(tree):
    (tree / ".texbudget").write_text("a file, not a folder")
    scan = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert same(scan, read_scene(tree, CONFIG, jobs=1))
    assert scan.cache.status == "unavailable" and scan.cache.reason.startswith("cannot create ")
    assert (scan.cache.hits, scan.cache.misses) == (0, 122)


def test_a_corrupt_cache_is_rebuilt_and_the_scan_says_so(tree):
    plain = read_scene(tree, CONFIG, jobs=1)
    (tree / ".texbudget").mkdir()
    (tree / ".texbudget" / "cache.sqlite").write_bytes(os.urandom(8192))
    scan = read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert scan.cache.status == "rebuilt" and scan.cache.stored == 122
    extra = [f for f in scan.findings if f not in plain.findings]
    assert [(f.path, f.code) for f in extra] == [(".texbudget/cache.sqlite", "TB007")]
    assert scan.textures == plain.textures and scan.meshes == plain.meshes
    assert same(read_scene(tree, CONFIG, jobs=1, use_cache=True), plain)


def _plain_reader(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    root, rel = args
    return rel, read_path(root, rel), None


def test_a_custom_reader_never_uses_the_cache(tree):
    with cache_mod.Cache.open(tree) as cache:
        scan = read_scene(tree, CONFIG, jobs=1, reader=_plain_reader, cache=cache)
        assert cache.stored == 0 and cache.hits == 0
    assert scan.cache.status == "off" and "custom reader" in scan.cache.reason
    assert scan.engine == {}
    assert scan.textures == read_scene(tree, CONFIG, jobs=1).textures


# --- the pool -----------------------------------------------------------------------------------


def test_the_pool_gives_the_same_scan(tree, monkeypatch):
    serial = read_scene(tree, CONFIG, jobs=1)
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    seen: list[tuple[int, int]] = []
    pooled = read_scene(tree, CONFIG, jobs=2, progress=lambda d, t: seen.append((d, t)))
    assert same(serial, pooled)
    assert seen[-1] == (122, 122) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    cold = read_scene(tree, CONFIG, jobs=2, use_cache=True)
    warm = read_scene(tree, CONFIG, jobs=2, use_cache=True)
    assert same(serial, cold) and same(serial, warm)
    assert (cold.cache.stored, warm.cache.hits) == (122, 122)
    # the workers found the glTF's dependencies: its image going away is a miss for it
    (tree / "scene" / "wall.png").unlink()
    after = read_scene(tree, CONFIG, jobs=2, use_cache=True)
    assert (after.cache.hits, after.cache.misses) == (120, 1)
    assert [f.code for f in after.findings if f.path == "scene/level.gltf"] == ["TB075"]


def _in_a_thread(work):
    """``work()`` run in a second thread (as the TUI reads), its result or exception here."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as threads:
        return threads.submit(work).result()


def test_the_spawned_pool_gives_the_same_scan(tree, monkeypatch):
    # A process with threads (the TUI reads in one) starts its workers with spawn, not fork.
    serial = read_scene(tree, CONFIG, jobs=1)
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    forked = _count_forks(monkeypatch)
    seen: list[tuple[int, int]] = []
    assert same(serial, _in_a_thread(lambda: read_scene(tree, CONFIG, jobs=2, progress=lambda d, t: seen.append((d, t)))))
    assert seen[-1] == (122, 122)
    assert same(serial, _in_a_thread(lambda: read_scene(tree, CONFIG, jobs=2, use_cache=True)))
    assert forked == []  # spawned: multiprocessing starts a fresh interpreter without os.fork


def test_files_are_read_grouped_by_type_and_the_scan_keeps_discovery_order(tree, monkeypatch):
    rels = ["a/1.png", "a/2.dds", "a/3.png", "b/4.glb", "b/5.dds", "b/6.png", "README"]
    assert job._by_type(rels) == ["b/4.glb", "a/1.png", "a/3.png", "b/6.png", "a/2.dds", "b/5.dds", "README"]  # scenes first
    assert job._by_type(["x.png", "y.png"]) == ["x.png", "y.png"]
    read: list[str] = []
    real = job._read_file

    def spy(root, rel, sidecar):
        read.append(rel)
        return real(root, rel, sidecar)

    monkeypatch.setattr(job, "_read_file", spy)
    scan = read_scene(tree, CONFIG, jobs=1)
    assert read == job._by_type(list(scan.files)) and read != list(scan.files)
    # the scan itself lists what it found in discovery's order, whatever the reading order
    order = {rel: k for k, rel in enumerate(scan.files)}
    paths = [t.path for t in scan.textures if "#" not in t.path]
    assert paths == sorted(paths, key=order.__getitem__)


def test_a_gltf_image_discovery_listed_needs_no_lstat_and_a_link_out_is_still_refused(tmp_path, monkeypatch):
    from tests.readers import factories as fx
    from tests.readers.gltf_factories import GltfBuilder

    root = tmp_path / "root"
    fx.write(root, "img/a.png", fx.png_bytes(8, 8))
    fx.write(tmp_path, "outside.png", fx.png_bytes(8, 8))
    (root / "img" / "link.png").symlink_to(tmp_path / "outside.png")
    b = GltfBuilder()
    b.add_image_uri("img/a.png")
    b.add_image_uri("img/link.png")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}}, normalTexture={"index": b.add_texture(1)})
    b.write_gltf(root / "s.gltf")
    walked: list[str] = []
    lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda path, *a, **k: walked.append(os.fspath(path)) or lstat(path, *a, **k))
    scan = read_scene(root, CONFIG, jobs=1)
    assert [(t, slot) for t, _, slot in scan.scenes[0].texture_usage] == [("img/a.png", "baseColor"), ("s.gltf#image/1", "normal")]
    assert [(f.path, f.code) for f in scan.findings if f.code in ("TB004", "TB074")] == [("img/link.png", "TB004"), ("s.gltf", "TB074")]
    assert not [p for p in walked if p.endswith("a.png")]  # listed by discovery: not walked again
    assert [p for p in walked if p.endswith("link.png")]  # not listed: walked, and refused
    assert scene.KNOWN_FILES.get() is None  # set only while the scan reads


def test_the_chunk_tickets_are_each_taken_once_own_queue_first():
    tickets = pool.Workers(6, split=2)
    try:
        own, theirs = tickets.tickets
        worker = functools.partial(pool._first, theirs, own)  # as a worker takes them
        # this process takes its own (0, 1) first, a worker the rest first; then each other's
        assert [worker(), tickets.next_chunk(), worker(), tickets.next_chunk(), tickets.next_chunk()] == [2, 0, 3, 1, 4]
        assert [worker(), worker(), tickets.next_chunk()] == [5, None, None]
    finally:
        tickets.close()
    many = pool.Workers(pool.MAX_CHUNKS + 10, split=0)  # past the cap: left for the end
    try:
        taken = list(iter(many.next_chunk, None))
    finally:
        many.close()
    assert taken == list(range(pool.MAX_CHUNKS))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_a_result_pipe_is_widened_where_the_system_allows():
    import fcntl

    read, write = os.pipe()
    try:
        pool._widen(write)
        size = fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
    finally:
        os.close(read)
        os.close(write)
    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    assert size == pool.PIPE_BYTES if os.geteuid() == 0 or limit >= pool.PIPE_BYTES else size >= 65536


def test_the_scenes_are_read_in_this_process_first(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    here: list[str] = []
    read_here = job._Job._read_here

    def spy(job, rel, sidecar):
        here.append(rel)
        return read_here(job, rel, sidecar)

    monkeypatch.setattr(job._Job, "_read_here", spy)
    scan = read_scene(tree, CONFIG, jobs=2)
    scenes = [rel for rel in scan.files if reading.is_scene(rel)]
    assert scenes and here[: len(scenes)] == scenes


def _count_forks(monkeypatch) -> list[int]:
    """The pids of the workers forked from now on (in the parent)."""
    forked: list[int] = []
    fork = os.fork

    def counted_fork() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted_fork)
    return forked


def test_forked_workers_share_the_tickets_and_are_all_waited_for(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    forked = _count_forks(monkeypatch)
    serial = read_scene(tree, CONFIG, jobs=1)
    assert same(serial, read_scene(tree, CONFIG, jobs=4))
    assert len(forked) == 3
    for pid in forked:  # every worker was waited for: none is left behind, not even a zombie
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_refused_fork_leaves_the_reading_to_this_process(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    serial = read_scene(tree, CONFIG, jobs=1)

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    seen: list[tuple[int, int]] = []
    assert same(serial, read_scene(tree, CONFIG, jobs=3, progress=lambda d, t: seen.append((d, t))))
    assert seen[-1] == (122, 122)
    if before is not None:  # the pipes made for the workers were closed
        assert len(os.listdir("/proc/self/fd")) == before


def test_no_more_workers_than_chunks_and_no_pipe_to_spare_is_fewer_workers(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    serial = read_scene(tree, CONFIG, jobs=1)
    forked = _count_forks(monkeypatch)
    assert same(serial, read_scene(tree, CONFIG, jobs=256))  # 122 files: 8 chunks of 16
    assert len(forked) == 7  # one chunk each at most, this process included
    # out of file descriptors after two workers' pipes: those two read with this process
    forked.clear()
    pipe, made = os.pipe, []

    def pipes_run_out() -> tuple[int, int]:
        if len(made) == 3:  # the tickets' two queues, then one worker's pipe
            raise OSError(errno.EMFILE, "Too many open files")
        made.append(1)
        return pipe()

    monkeypatch.setattr(os, "pipe", pipes_run_out)
    assert same(serial, read_scene(tree, CONFIG, jobs=8))
    assert len(forked) == 1


def test_the_pool_runs_a_custom_reader(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    assert same(read_scene(tree, CONFIG, jobs=2, reader=_plain_reader), read_scene(tree, CONFIG, jobs=1, reader=_plain_reader))


_MAIN_PID = os.getpid()


def _reader_dying_in_a_worker(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    """Dies in a pool worker (leaving a mark); reads slowly here, so the worker takes chunks."""
    if os.getpid() != _MAIN_PID:
        (args[0].parent / f"died-{os.getpid()}").touch()
        os._exit(3)
    time.sleep(0.002)
    return _plain_reader(args)


def test_chunks_a_dead_worker_took_are_read_here(tree, monkeypatch, capsys):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    seen: list[tuple[int, int]] = []
    pooled = read_scene(tree, CONFIG, jobs=2, reader=_reader_dying_in_a_worker, progress=lambda d, t: seen.append((d, t)))
    assert list(tree.parent.glob("died-*"))  # the worker took a chunk and died in it
    assert same(pooled, read_scene(tree, CONFIG, jobs=1, reader=_plain_reader))
    assert seen[-1] == (122, 122)
    # the output is complete, and stderr says why this scan took longer
    assert capsys.readouterr().err == "texbudget: note: a worker process ended early (exit code 3); its 16 files were read in the main process\n"


def _in_a_worker() -> bool:
    """This is a pool worker: forked (another pid) or spawned (by multiprocessing)."""
    import multiprocessing

    return os.getpid() != _MAIN_PID or multiprocessing.parent_process() is not None


def _reader_failing_in_a_worker(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    """A bug that shows in a pool worker only; reads slowly here, so that even a spawned
    worker (a fresh interpreter) starts in time to take chunks."""
    if _in_a_worker():
        raise ValueError("a bug in texbudget")
    time.sleep(0.02)
    return _plain_reader(args)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_an_exception_in_a_worker_is_raised_here_naming_the_file(tree, monkeypatch, start):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(job, "POOL_CHUNK", 16)
    forked = _count_forks(monkeypatch)
    scan = functools.partial(read_scene, tree, CONFIG, jobs=2, reader=_reader_failing_in_a_worker)
    with pytest.raises(pool.WorkerFailed) as failed:
        scan() if start == "fork" else _in_a_thread(scan)
    message = str(failed.value)
    assert "ValueError: a bug in texbudget" in message and "Traceback" in message
    read = message.rpartition("texbudget was reading ")[2].strip()
    assert (tree / read).is_file() and not reading.is_scene(read)  # the workers' files: not the scenes
    for pid in forked:  # the workers were waited for
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_bug_while_reading_is_an_internal_error_naming_the_file_pooled_or_not(tree, monkeypatch, capsys):
    from texbudget import cli

    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    bad = "characters/set_0000/char_000005.png"
    real = reading._read_file

    def buggy(root, rel, sidecar):
        if rel == bad:
            raise KeyError("a bug in texbudget")
        return real(root, rel, sidecar)

    monkeypatch.setattr(reading, "_read_file", buggy)  # a worker's
    monkeypatch.setattr(job, "_read_file", buggy)  # this process's
    for jobs in ("1", "2"):
        assert cli.main(["scan", "--no-cache", "--jobs", jobs, str(tree)]) == 3
        out, err = capsys.readouterr()
        assert out == "" and f"texbudget was reading {bad}" in err and "KeyError: 'a bug in texbudget'" in err
        assert err.endswith("texbudget: internal error; please report it with the traceback above\n")


def test_no_pipe_for_the_tickets_leaves_the_reading_to_this_process(tree, monkeypatch):
    monkeypatch.setattr(job, "POOL_MIN_FILES", 1)
    serial = read_scene(tree, CONFIG, jobs=1)
    forked = _count_forks(monkeypatch)

    def no_pipe() -> tuple[int, int]:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_pipe)
    assert same(serial, read_scene(tree, CONFIG, jobs=3))
    assert forked == []


#: A scan in a pool of three, slowed so that it is still reading when the signal comes (about
#: 8 s of reading: a busy host may take a second or two to get the signal sent).
_SLOW_SCAN = """
import sys, time
from texbudget.cli import run
from texbudget.scan import job, reading
job.POOL_MIN_FILES, job.POOL_CHUNK = 1, 8
real = reading._read_file
def slow(root, rel, sidecar):
    time.sleep(0.2)
    return real(root, rel, sidecar)
reading._read_file = job._read_file = slow
sys.argv = ["texbudget", "scan", "--no-cache", "--jobs", "3", sys.argv[1]]
run()
"""


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (one that ended, not yet waited for)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@pytest.mark.parametrize("how", ["ctrl-c", "sigint", "sigkill"])
def test_an_interrupted_or_killed_scan_leaves_no_worker_running(tree, how):
    import signal

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SCAN, str(tree)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert len(workers) == 2, "the pool did not start"
        time.sleep(0.2)  # reading
        sent = time.monotonic()
        if how == "ctrl-c":  # a terminal sends it to the whole foreground process group
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT if how == "sigint" else signal.SIGKILL)
        code = proc.wait(timeout=30)
        took = time.monotonic() - sent
        err = proc.stderr.read().decode()
        while any(_running(w) for w in workers) and time.monotonic() < sent + 10:
            time.sleep(0.02)  # a killed scan's workers end at their next message
        assert not [w for w in workers if _running(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    if how == "sigkill":
        assert code == -signal.SIGKILL
    else:
        assert (code, err) == (130, "texbudget: interrupted\n")
        assert took < 5  # promptly: the workers are terminated, not waited for to finish


def test_below_the_threshold_no_pool_is_started(tree, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(job._Job, "_pooled", no_pool)
    assert job.POOL_MIN_FILES > 122
    read_scene(tree, CONFIG, jobs=4)


def test_progress_counts_every_file_once_serial_and_from_the_cache(tree):
    for use_cache in (False, True, True):
        seen: list[tuple[int, int]] = []
        read_scene(tree, CONFIG, jobs=1, use_cache=use_cache, progress=lambda d, t, seen=seen: seen.append((d, t)))
        assert seen[-1] == (122, 122)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_garbage_collection_is_back_on_afterwards(tree):
    assert gc.isenabled()
    read_scene(tree, CONFIG, jobs=1, use_cache=True)
    assert gc.isenabled()
    gc.disable()
    try:
        read_scene(tree, CONFIG, jobs=1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_read_built_is_not_walked_by_the_collector_after(tree):
    """The facts a read builds live on: they go to the oldest generation whole, instead of
    setting off a collection that walks them all the moment the collector is back on."""
    walked: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            walked.append(info["generation"])

    scan = read_scene(tree, CONFIG, jobs=1, use_cache=False)
    gc.collect()
    gc.callbacks.append(seen)
    try:
        scan = read_scene(tree, CONFIG, jobs=1, use_cache=False)
        young = gc.get_count()[0]
        [object() for _ in range(100)]
    finally:
        gc.callbacks.remove(seen)
    assert scan.textures
    assert young < 100 and walked == [] and gc.get_freeze_count() == 0


# --- concurrent runs ----------------------------------------------------------------------------


_RUN = textwrap.dedent("""
    import hashlib, sys
    from pathlib import Path
    from texbudget import config
    from texbudget.scan.scene import read_scene
    scan = read_scene(Path(sys.argv[1]), config.load(None), jobs=1, use_cache=True)
    parts = (scan.textures, scan.meshes, scan.scenes, scan.findings, scan.files, sorted(scan.engine.items()))
    print(hashlib.sha256(repr(parts).encode()).hexdigest(), scan.cache.status)
""")


def test_two_runs_at_once_finish_with_equal_results(tmp_path):
    root = tmp_path / "tree"
    make_tree.make_tree(root, 600)
    expected = digest(read_scene(root, CONFIG, jobs=1))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    for _ in range(2):  # a cold race, then a warm one
        procs = [subprocess.Popen([sys.executable, "-c", _RUN, str(root)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (out, err) in zip(procs, outs, strict=True):
            assert p.returncode == 0, err
            assert out.split() == [expected, "on"]
    warm = read_scene(root, CONFIG, jobs=1, use_cache=True)
    assert warm.cache.hits == 600 and digest(warm) == expected


# --- reading one file ---------------------------------------------------------------------------


def test_read_one_is_the_registry_plus_the_sidecar(tree):
    path, rel = _png(tree)
    path.with_name(path.name + ".import").write_text(GODOT_IMPORT.format(mode=2))
    got = reading._read_one((tree, rel))
    assert got == (rel, read_path(tree, rel), read_engine_import(tree / rel, rel))
    assert got[2].compress_mode == 2


def test_the_prefetched_source_serves_small_files_from_memory(tmp_path):
    data = bytes(range(256)) * 4
    (tmp_path / "s.bin").write_bytes(data)
    src = reading._Prefetched(rel="s.bin", root=tmp_path, path=str(tmp_path / "s.bin"), known_size=len(data), prefix=data)
    (tmp_path / "s.bin").unlink()  # nothing below touches the disk
    assert src.size() == 1024 and src.head(16) == data[:16] and src.head(5000) == data
    with src.open() as f:
        f.seek(1000)
        assert f.read() == data[1000:]
    assert src.abspath == tmp_path / "s.bin"


def test_the_prefetched_source_reads_past_its_prefix_from_disk(tmp_path):
    data = os.urandom(reading.PREFETCH_BYTES + 5000)
    (tmp_path / "b.bin").write_bytes(data)
    prefix = data[: reading.PREFETCH_BYTES]
    src = reading._Prefetched(rel="b.bin", root=tmp_path, path=str(tmp_path / "b.bin"), known_size=len(data), prefix=prefix)
    assert src.head(100) == data[:100]
    assert src.head(len(data) + 10) == data
    with src.open() as f:
        f.seek(len(data) - 10)
        assert f.read() == data[-10:]


def test_a_file_that_cannot_be_opened_is_the_registrys_finding(tmp_path):
    result, engine = reading._read_file(tmp_path, "gone.png", True)
    assert engine is None
    assert result == read_path(tmp_path, "gone.png")
    assert [f.code for f in result.findings] in (["TB005"], ["TB001"])


_WARM_IMPORTS = textwrap.dedent("""
    import sys
    from pathlib import Path
    from texbudget import config
    from texbudget.pipeline import build_settings, evaluate
    from texbudget.scan.scene import read_scene
    cfg = config.load(None)
    scan = read_scene(Path(sys.argv[1]), cfg, use_cache=True)
    assert (scan.cache.hits, scan.cache.misses) == (122, 0), scan.cache
    evaluate(scan, build_settings(cfg, platform=None, quality=None, resolutions=None, rt=None, cards=None))
    heavy = ("PIL", "numpy", "trimesh", "textual", "multiprocessing", "concurrent.futures", "texbudget.readers.images", "texbudget.readers.gltf")
    print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy)))
""")


def test_a_warm_read_imports_no_reader_and_no_heavy_library(tree):
    read_scene(tree, CONFIG, jobs=1, use_cache=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", _WARM_IMPORTS, str(tree)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_a_rebuild_found_when_opening_is_reported_once(tree):
    (tree / ".texbudget").mkdir()
    (tree / ".texbudget" / "cache.sqlite").write_bytes(b"\0garbage" * 100)
    with cache_mod.Cache.open(tree) as cache:
        first = read_scene(tree, CONFIG, jobs=1, cache=cache)
        second = read_scene(tree, CONFIG, jobs=1, cache=cache)
    assert [f.code for f in first.findings if f.code == "TB007"] == ["TB007"] and first.cache.status == "rebuilt"
    assert [f.code for f in second.findings if f.code == "TB007"] == [] and second.cache.status == "on"


# --- the collector: what a caller froze stays frozen ---------------------------------------------


def _with_frozen(block) -> tuple[int, int]:
    """(objects the caller froze, still frozen after ``block``); the caller's are released."""
    kept = [object() for _ in range(1000)]
    gc.freeze()
    before = gc.get_freeze_count()
    try:
        block()
        return before, gc.get_freeze_count()
    finally:
        gc.unfreeze()
        del kept


def test_what_a_caller_froze_stays_frozen():
    from texbudget import collector

    def paused():
        with collector.paused():
            _ = [[] for _ in range(1000)]

    def own_garbage():
        with collector.own_garbage():
            _ = [[] for _ in range(1000)]

    def one_shot():
        with collector.one_shot(exiting=False):
            _ = [[] for _ in range(1000)]

    for block in (paused, own_garbage, one_shot):
        before, after = _with_frozen(block)
        assert before > 0 and after >= before, block.__name__
    # with nothing frozen before, each leaves nothing frozen behind
    if gc.get_freeze_count() == 0:
        for block in (paused, own_garbage, one_shot):
            block()
            assert gc.get_freeze_count() == 0, block.__name__


def test_inside_a_one_shot_block_nothing_counts_the_frozen_objects(tree, monkeypatch):
    """``gc.get_freeze_count`` walks every frozen object: once at the start of a command (the
    start-up's), and not by the pauses inside it, which know that ``one_shot`` froze them all.
    What each block leaves frozen is the same as when it counts (the test above)."""
    from texbudget import collector

    counted: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counted.append(1) or count())
    with collector.one_shot(exiting=False):
        assert counted == [1]
        with collector.paused(), collector.own_garbage():
            pass
        read_scene(tree, CONFIG, jobs=1, use_cache=False)
        assert gc.get_freeze_count() > 0  # (a count of its own)
    assert counted == [1, 1]


# --- big scans give freed big blocks back (scan.memory) --------------------------------------


def test_glibc_keeps_big_blocks_mapped_and_other_libraries_are_left_alone(monkeypatch):
    from texbudget.scan import memory

    if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
        pytest.skip("glibc only")
    assert memory.keep_big_blocks_mapped() is True  # mallopt answered 1: set
    monkeypatch.setattr(os, "confstr", lambda name: "musl 1.2")
    assert memory.keep_big_blocks_mapped() is False

    def unnamed(name):
        raise ValueError(name)

    monkeypatch.setattr(os, "confstr", unnamed)
    assert memory.keep_big_blocks_mapped() is False


def test_only_a_big_scan_sets_the_threshold(tmp_path, monkeypatch):
    (tmp_path / "a.png").write_bytes(make_tree.png_bytes(4, 4, 2))
    (tmp_path / "b.png").write_bytes(make_tree.png_bytes(8, 8, 2))
    calls: list[int] = []
    monkeypatch.setattr(scene, "keep_big_blocks_mapped", lambda: calls.append(1) or True)
    read_scene(tmp_path, CONFIG)
    assert calls == []
    monkeypatch.setattr(scene, "BIG_SCAN", 2)
    scan = read_scene(tmp_path, CONFIG)
    assert calls == [1] and [t.path for t in scan.textures] == ["a.png", "b.png"]
