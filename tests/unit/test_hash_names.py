"""A "#" in a path means a part inside a file (``level.glb#mesh/3``) only when what follows
it is a part's ending; a file whose own name holds a "#" (``rock#1_n.png``) is a file like any
other: its name gives its role, its engine sidecar is read, it can be unused, and a check of
only that file keeps its findings."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.readers import factories as fx
from texbudget import config as config_mod
from texbudget import limits, pipeline
from texbudget.config import LimitsSection, parse_rules
from texbudget.model import file_of, is_part
from texbudget.policy.naming import role_from_name
from texbudget.report import sarif
from texbudget.scan.scene import read_scene
from texbudget.tui.browse import split

GODOT_IMPORT = '[remap]\n\nimporter="texture"\ntype="CompressedTexture2D"\n\n[params]\n\ncompress/mode={mode}\nmipmaps/generate=true\n'


@pytest.mark.parametrize(("path", "file"), [
    ("a/b.glb#mesh/2", "a/b.glb"), ("a/b.glb#image/0", "a/b.glb"), ("x.gltf#material/12", "x.gltf"),
    ("m.obj#mesh/0", "m.obj"), ("rock#1_n.tga", "rock#1_n.tga"), ("tex#2/a.png", "tex#2/a.png"),
    ("tex#mesh/a.png", "tex#mesh/a.png"), ("a#1/b#2.glb#mesh/0", "a#1/b#2.glb"), ("plain.png", "plain.png"),
    ("x.glb#mesh/a", "x.glb#mesh/a"), ("x.glb#lod/node/3", "x.glb#lod/node/3"),
])
def test_file_of_cuts_only_a_parts_ending(path: str, file: str) -> None:
    assert file_of(path) == file
    assert is_part(path) == (file != path)


def test_a_names_role_comes_from_the_whole_name() -> None:
    assert role_from_name("t/rock#1_n.png") == ("normal", "name '_n'")
    assert role_from_name("t/a.glb#image/3") == role_from_name("t/a.glb")  # a part: its file's name


def _scene(root: Path) -> None:
    """t/level.gltf, a triangle whose material uses t/wall.png: the scene is glTF-driven."""
    (root / "t").mkdir()
    (root / "t" / "level.bin").write_bytes(struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0))
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}], "images": [{"uri": "wall.png"}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"uri": "level.bin", "byteLength": 36}],
    }
    (root / "t" / "level.gltf").write_text(json.dumps(doc))
    fx.write(root, "t/wall.png", fx.png_bytes(64, 64))


def test_a_file_named_with_a_hash_is_priced_as_a_file(tmp_path: Path) -> None:
    _scene(tmp_path)
    fx.write(tmp_path, "t/rock#1_n.png", fx.png_bytes(64, 64))
    fx.write(tmp_path, "t#2/moss.png", fx.png_bytes(64, 64))
    (tmp_path / "t" / "rock#1_n.png.import").write_text(GODOT_IMPORT.format(mode=2))
    config = config_mod.load(None)
    scan = read_scene(tmp_path, config, jobs=1)
    assert scan.engine["t/rock#1_n.png"].compress_mode == 2  # its sidecar was read
    settings = pipeline.build_settings(config)
    report = pipeline.evaluate(scan, settings)
    rows = {r.facts.path: r for r in report.textures}
    assert rows["t/rock#1_n.png"].plan.role == "normal"
    unused = {f.path for f in report.findings if f.code == "TB006"}
    assert unused == {"t/rock#1_n.png", "t#2/moss.png"}  # no material uses them
    # a check of only that file keeps its findings; SARIF locates them at the file itself
    kept = limits.check_limits(report, LimitsSection(max_size=32, forbid_unused=True), only={"t/rock#1_n.png"})
    assert sorted((f.code, f.path) for f in kept) == [("TB021", "t/rock#1_n.png"), ("TB029", "t/rock#1_n.png")]
    finding = next(f for f in report.findings if f.path == "t/rock#1_n.png")
    located = sarif.result(finding, 0)
    assert located["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("rock%231_n.png")
    assert located["message"]["text"] == finding.message  # no "part" prefix
    assert split("t/rock#1_n.png") == ("t", "rock#1_n.png")
    assert split("t/level.gltf#mesh/0") == ("t/level.gltf", "#mesh/0")


def test_rules_match_such_a_file_by_its_whole_name() -> None:
    (rule,) = parse_rules([{"match": "rock*", "role": "height"}], "texbudget.toml")
    assert rule.matches("t/rock#1_n.png")
    (rule,) = parse_rules([{"match": "rock", "role": "height"}], "texbudget.toml")
    assert not rule.matches("t/rock#1_n.png")  # "rock" is not its file
    assert parse_rules([{"match": "a.glb", "role": "height"}], "t.toml")[0].matches("t/a.glb#image/0")  # a part: its file too


def test_a_gltf_in_a_folder_named_with_a_hash_finds_its_files(tmp_path: Path) -> None:
    _scene(tmp_path)
    (tmp_path / "t").rename(tmp_path / "t#1")
    scan = read_scene(tmp_path, config_mod.load(None), jobs=1)
    assert [f for f in scan.findings if f.code in ("TB074", "TB075")] == []
    assert scan.scenes[0].texture_usage[0][0] == "t#1/wall.png"


def test_explain_takes_a_hash_in_a_name_as_part_of_the_name(tmp_path: Path) -> None:
    from texbudget.report import explain

    _scene(tmp_path)
    fx.write(tmp_path, "t/rock#1_n.png", fx.png_bytes(64, 64))
    config = config_mod.load(None)
    report = pipeline.evaluate(read_scene(tmp_path, config, jobs=1), pipeline.build_settings(config))
    assert explain.find_assets(report, "t/rock") == ()  # not the file "t/rock#1_n.png"
    (row,) = explain.find_assets(report, "t/rock#1_n.png")
    assert row.facts.path == "t/rock#1_n.png"
    assert [m.facts.path for m in explain.find_assets(report, "t/level.gltf")] == ["t/level.gltf#mesh/0"]
    assert {f.path for f in explain._findings_for(report, "t/rock#1_n.png")} == {"t/rock#1_n.png"}
    assert explain._findings_for(report, "t/rock") == []
