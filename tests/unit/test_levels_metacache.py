"""The Unity index's .meta files kept between runs (``levels/metacache.py``): a warm run reads
none, a changed .meta is read again, a damaged or foreign file is ignored, nothing is written
where the read cache's folder is not, and a .meta changed within the racy window is not kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.integration import level_projects as lp
from texbudget.cache import CACHE_DIR, CACHE_VERSION
from texbudget.levels import metacache
from texbudget.levels.unity import read_project

OLD = 1_700_000_000  # an mtime far outside the racy window


def _project(tmp_path: Path) -> Path:
    root = lp.unity_project(tmp_path / "proj")
    for meta in root.rglob("*.meta"):
        os.utime(meta, (OLD, OLD))
    (root / CACHE_DIR).mkdir()
    return root


def _read(root: Path) -> tuple[metacache.MetaReader, object]:
    reader = metacache.MetaReader(root, use_cache=True)
    project = read_project(root, read=reader)
    reader.save()
    return reader, project


def test_a_warm_run_reads_no_meta(tmp_path):
    root = _project(tmp_path)
    cold, first = _read(root)
    assert (cold.hits, cold.misses) == (0, 11)  # 4 textures, 3 prefabs, the scene, the model, 2 materials
    kept = json.loads((root / CACHE_DIR / metacache.FILE).read_text())
    assert kept["version"] == CACHE_VERSION and len(kept["metas"]) == 11
    warm, second = _read(root)
    assert (warm.hits, warm.misses) == (11, 0)
    assert second == first == read_project(root)  # the same index as one read from the files
    # a .meta edited: that one is read again
    meta = root / "Assets/Models/Crate.fbx.meta"
    meta.write_text(lp._meta(lp.GUIDS["model"], "ModelImporter", "  fileIDToRecycleName:\n    4300000: Crate\n"))
    os.utime(meta, (OLD + 10, OLD + 10))
    again, third = _read(root)
    assert (again.hits, again.misses) == (10, 1)
    assert third.ids[lp.GUIDS["model"]].names == ((43, 4300000, "Crate"),)


def test_a_damaged_or_foreign_file_is_ignored(tmp_path):
    root = _project(tmp_path)
    path = root / CACHE_DIR / metacache.FILE
    for text in ("{not json", json.dumps({"version": "0/0", "metas": {}}), json.dumps([1, 2]),
                 json.dumps({"version": CACHE_VERSION, "metas": {"Assets/Models/Crate.fbx.meta": ["x", [1, 2]]}})):
        path.write_text(text)
        reader, project = _read(root)
        assert (reader.hits, reader.misses) == (0, 11)
        assert project == read_project(root)


def test_nothing_is_written_without_the_cache_folder_or_for_a_racy_meta(tmp_path):
    root = _project(tmp_path)
    (root / CACHE_DIR).rmdir()
    metacache.read_index(root, use_cache=True)
    assert not (root / CACHE_DIR).exists()
    (root / CACHE_DIR).mkdir()
    os.utime(root / "Assets/Materials/Wood.mat.meta")  # now: within the racy window
    reader, _ = _read(root)
    assert reader.misses == 11
    kept = json.loads((root / CACHE_DIR / metacache.FILE).read_text())["metas"]
    assert len(kept) == 10 and "Assets/Materials/Wood.mat.meta" not in kept
    assert metacache.read_index(root, use_cache=False) == read_project(root)
