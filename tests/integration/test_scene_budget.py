"""A GLB scene end to end: exact mesh counts and bytes, instances, BLAS estimates, the
acceleration-structure category as BLAS + TLAS + descriptors, --rt off, [[instances]]."""

from __future__ import annotations

import json

from tests.readers.gltf_factories import GltfBuilder, triangle_mesh
from texbudget.cli import main
from texbudget.sizing import bvh


def _level(tmp_path):
    b = GltfBuilder()
    rock = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Rock")  # 2 triangles
    wall = triangle_mesh(b, 6, [0, 1, 2, 3, 4, 5, 0, 2, 4], name="Wall")  # 3 triangles
    nodes = [b.add_node(mesh=rock) for _ in range(40)] + [b.add_node(mesh=wall) for _ in range(2)]
    b.add_scene(nodes)
    b.write_glb(tmp_path / "level.glb")
    (tmp_path / "texbudget.toml").write_text(
        '[budget]\ncards = ["8GB"]\nresolutions = ["1080p"]\nrt = ["off", "nvidia", "amd"]\n', encoding="utf-8")


def _scan(capsys, tmp_path, *extra):
    assert main(["scan", str(tmp_path), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_meshes_instances_and_acceleration(capsys, tmp_path):
    _level(tmp_path)
    data = _scan(capsys, tmp_path)
    meshes = {m["path"]: m for m in data["meshes"]}
    rock, wall = meshes["level.glb#mesh/0"], meshes["level.glb#mesh/1"]
    # POSITION f32x3 + NORMAL f32x3 per vertex, u16 indices, each accessor once
    assert (rock["vertices"], rock["triangles"], rock["instances"]) == (4, 2, 40)
    assert (rock["vertex_bytes"], rock["index_bytes"]) == (4 * 24, 6 * 2)
    assert (wall["vertices"], wall["triangles"], wall["instances"]) == (6, 3, 2)
    assert (wall["vertex_bytes"], wall["index_bytes"]) == (6 * 24, 9 * 2)
    assert rock["blas"]["profile"] == "nvidia" and rock["blas"]["estimate"] is True
    profiles = bvh.load_profiles()
    for sc in data["scenarios"]:
        if sc["rt"] == "off":
            assert sc["bytes"]["acceleration_structures"] == 0
            continue
        prof = profiles[sc["rt"]]
        blas = [bvh.estimate_blas(prof, t) for t in (2, 3)]
        tlas = bvh.estimate_tlas(prof, 42)
        expected = sum(b.resident_bytes for b in blas) + tlas.tlas_bytes + 64 * 42
        assert tlas.instance_desc_bytes == 64 * 42
        assert sc["bytes"]["acceleration_structures"] == expected
        assert data["acceleration"][sc["rt"]]["total_bytes"] == expected
    assert sc["bytes"]["meshes"] == rock["vertex_bytes"] + rock["index_bytes"] + wall["vertex_bytes"] + wall["index_bytes"]


def test_rt_flag_overrides_and_off_is_zero(capsys, tmp_path):
    _level(tmp_path)
    data = _scan(capsys, tmp_path, "--rt", "off")
    assert [s["rt"] for s in data["scenarios"]] == ["off"]
    assert data["scenarios"][0]["bytes"]["acceleration_structures"] == 0
    assert data["acceleration"] == {}


def test_instances_from_config(capsys, tmp_path):
    _level(tmp_path)
    with (tmp_path / "texbudget.toml").open("a", encoding="utf-8") as f:
        f.write('\n[[instances]]\nmatch = "level.glb#mesh/1"\ncount = 500\n')
    data = _scan(capsys, tmp_path, "--rt", "intel")
    meshes = {m["path"]: m for m in data["meshes"]}
    assert meshes["level.glb#mesh/1"]["instances"] == 500
    assert meshes["level.glb#mesh/0"]["instances"] == 40
    assert data["summary"]["instances"] == 540
    prof = bvh.load_profiles()["intel"]
    tlas = bvh.estimate_tlas(prof, 540)
    blas = sum(bvh.estimate_blas(prof, t).resident_bytes for t in (2, 3))
    assert data["scenarios"][0]["bytes"]["acceleration_structures"] == blas + tlas.tlas_bytes + 64 * 540


def test_a_basisu_texture_counts_its_ktx2_not_its_fallback(capsys, tmp_path):
    """KHR_texture_basisu: an engine that reads the extension loads the KTX2 and never the
    fallback PNG, so the PNG counts nothing (and is not "unused"); a PNG a material uses
    directly still counts."""
    from tests.readers import factories as fx
    from texbudget.pipeline import FALLBACK

    fx.write(tmp_path, "rock.ktx2", fx.ktx2_bytes(256, 256, levels=9))  # BC7 UNORM, a full chain
    fx.write(tmp_path, "rock.png", fx.png_bytes(256, 256))
    fx.write(tmp_path, "moss.png", fx.png_bytes(64, 64))
    b = GltfBuilder()
    ktx, png, moss = b.add_image_uri("rock.ktx2", mimeType="image/ktx2"), b.add_image_uri("rock.png"), b.add_image_uri("moss.png")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(png, KHR_texture_basisu={"source": ktx})}},
                   occlusionTexture={"index": b.add_texture(moss)})
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_glb(tmp_path / "level.glb")
    (tmp_path / "texbudget.toml").write_text('[budget]\ncards = ["8GB"]\nresolutions = ["1080p"]\nrt = ["off"]\n', encoding="utf-8")
    data = _scan(capsys, tmp_path)
    textures = {t["path"]: t for t in data["textures"]}
    assert textures["rock.png"]["allocated_bytes"] == 0 and textures["rock.png"]["decided_by"].startswith(FALLBACK)
    assert textures["rock.ktx2"]["allocated_bytes"] > 0 and textures["moss.png"]["allocated_bytes"] > 0
    counted = textures["rock.ktx2"]["allocated_bytes"] + textures["moss.png"]["allocated_bytes"]
    assert data["scenarios"][0]["bytes"]["textures"] == counted
    assert not [f for f in data["findings"] if f["code"] == "TB006"]
