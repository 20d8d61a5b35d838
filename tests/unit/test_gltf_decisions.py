"""What glTF materials tell the texture decision, through ``texbudget scan --format json``:

- an RGBA image only alpha-free slots read (metallicRoughness, occlusion, emissive, normal,
  the KHR_materials_* colour channels; baseColor of an OPAQUE material) is opaque for the
  format: BC1, not BC3, on desktop; ETC2 RGB, not RGBA, on mobile. One use that reads alpha
  (a BLEND or MASK baseColor, sheenRoughness, specular, specularGlossiness) keeps it;
- KHR_materials_pbrSpecularGlossiness textures are colour (sRGB);
- an EXT_lights_image_based light is one cubemap: 6 faces x its listed levels, in the
  platform's HDR format; its face images are not counted.

Sizes are the block arithmetic of spec/textures.md: BC1 / ETC2 RGB 8 bytes per 4x4 block,
BC3 / ETC2 RGBA / BC6H / ASTC 16, RGBA16F 8 bytes a texel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.readers.gltf_factories import GltfBuilder, png_bytes, triangle_mesh
from tests.readers.test_gltf_images import ibl_glb
from texbudget import pipeline
from texbudget.cli import main
from texbudget.config import load
from texbudget.scan.scene import read_scene

#: 256x256, full chain, 4x4 blocks: 4096 + 1024 + 256 + 64 + 16 + 4 + 1 + 1 + 1 = 5463 blocks.
BLOCKS_256 = 5463
BC1_256, BC3_256 = 8 * BLOCKS_256, 16 * BLOCKS_256  # 43,704 and 87,408


def scan_json(capsys, root: Path, *flags: str) -> dict:
    code = main(["scan", str(root), "--format", "json", "--no-cache", *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def rows(data: dict) -> dict[str, dict]:
    return {t["path"]: t for t in data["textures"]}


def scene_with(tmp_path: Path, materials: list[dict], images: int = 1) -> Path:
    """``images`` external RGBA PNGs 256x256 (t0.png, …), one texture each, and the given
    materials (``{"T0"}``-style placeholders are texture indices already)."""
    b = GltfBuilder()
    for i in range(images):
        (tmp_path / f"t{i}.png").write_bytes(png_bytes(256, 256, "RGBA"))
        b.add_texture(b.add_image_uri(f"t{i}.png"))
    for m in materials:
        b.add_material(**m)
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_gltf(tmp_path / "scene.gltf")
    return tmp_path


def tex(i: int = 0) -> dict:
    return {"index": i}


@pytest.mark.parametrize("material,fmt,gpu_bytes,why", [
    ({"pbrMetallicRoughness": {"metallicRoughnessTexture": tex()}, "occlusionTexture": tex()},
     "BC1_RGB_UNORM", BC1_256, "opaque: only metallicRoughness and occlusion read it"),
    ({"emissiveTexture": tex()}, "BC1_RGB_SRGB", BC1_256, "opaque: only emissive reads it"),
    ({"pbrMetallicRoughness": {"baseColorTexture": tex()}}, "BC1_RGB_SRGB", BC1_256,
     "opaque: only baseColor (alphaMode OPAQUE) reads it"),
    ({"pbrMetallicRoughness": {"baseColorTexture": tex()}, "alphaMode": "MASK"}, "BC3_SRGB", BC3_256, None),
    ({"pbrMetallicRoughness": {"baseColorTexture": tex()}, "alphaMode": "BLEND"}, "BC3_SRGB", BC3_256, None),
    ({"extensions": {"KHR_materials_sheen": {"sheenColorTexture": tex(), "sheenRoughnessTexture": tex()}}},
     "BC3_SRGB", BC3_256, None),  # sheen roughness is in A
    ({"extensions": {"KHR_materials_sheen": {"sheenColorTexture": tex()}}}, "BC1_RGB_SRGB", BC1_256,
     "opaque: only sheenColor reads it"),
    ({"extensions": {"KHR_materials_specular": {"specularTexture": tex()}}}, "BC3_UNORM", BC3_256, None),  # A
    ({"extensions": {"KHR_materials_clearcoat": {"clearcoatTexture": tex(), "clearcoatRoughnessTexture": tex()}}},
     "BC1_RGB_UNORM", BC1_256, "opaque: only clearcoat and clearcoatRoughness read it"),
    ({"extensions": {"KHR_materials_transmission": {"transmissionTexture": tex()},
                     "KHR_materials_volume": {"thicknessTexture": tex()}}},
     "BC1_RGB_UNORM", BC1_256, "opaque: only transmission and thickness read it"),
    ({"extensions": {"KHR_materials_iridescence": {"iridescenceTexture": tex(), "iridescenceThicknessTexture": tex()}}},
     "BC1_RGB_UNORM", BC1_256, "opaque: only iridescence and iridescenceThickness read it"),
    ({"extensions": {"KHR_materials_anisotropy": {"anisotropyTexture": tex()}}}, "BC1_RGB_UNORM", BC1_256,
     "opaque: only anisotropy reads it"),
    ({"extensions": {"KHR_materials_diffuse_transmission": {"diffuseTransmissionTexture": tex()}}},
     "BC3_UNORM", BC3_256, None),  # A
    ({"extensions": {"EXT_unknown_material": {"customTexture": tex()}}}, "BC3_SRGB", BC3_256, None),  # unknown: read
])
def test_which_uses_read_alpha(capsys, tmp_path, material, fmt, gpu_bytes, why):
    row = rows(scan_json(capsys, scene_with(tmp_path, [material])))["t0.png"]
    assert (row["gpu_format"], row["gpu_bytes"]) == (fmt, gpu_bytes)
    if why is None:
        assert "opaque" not in row["decided_by"]
    else:
        assert row["decided_by"].endswith(f"{fmt} (desktop); {why}")


def test_decided_by_in_full(capsys, tmp_path):
    root = scene_with(tmp_path, [{"pbrMetallicRoughness": {"metallicRoughnessTexture": tex()}}])
    row = rows(scan_json(capsys, root))["t0.png"]
    assert row["decided_by"] == ("glTF slot metallicRoughness → mask → BC1_RGB_UNORM (desktop); "
                                 "opaque: only metallicRoughness reads it")
    assert row["role"] == "mask" and row["mips_policy"] == "generated"


def test_one_use_that_reads_alpha_keeps_it(capsys, tmp_path):
    """A texture used by several materials reads alpha if any use does: an OPAQUE material's
    baseColor and a BLEND material's baseColor (in another file, too)."""
    root = scene_with(tmp_path, [{"pbrMetallicRoughness": {"baseColorTexture": tex()}}])
    assert rows(scan_json(capsys, root))["t0.png"]["gpu_format"] == "BC1_RGB_SRGB"
    b = GltfBuilder()
    b.add_texture(b.add_image_uri("t0.png"))
    b.add_material(pbrMetallicRoughness={"baseColorTexture": tex()}, alphaMode="BLEND")
    b.write_gltf(tmp_path / "glass.gltf")
    row = rows(scan_json(capsys, root))["t0.png"]
    assert (row["gpu_format"], row["gpu_bytes"]) == ("BC3_SRGB", BC3_256)
    assert row["used_by"] == ["glass.gltf#material/0", "scene.gltf#material/0"]


def test_mobile_takes_etc2_rgb(capsys, tmp_path):
    root = scene_with(tmp_path, [{"pbrMetallicRoughness": {"metallicRoughnessTexture": tex()}}])
    row = rows(scan_json(capsys, root, "--platform", "mobile-etc2"))["t0.png"]
    assert (row["gpu_format"], row["gpu_bytes"]) == ("ETC2_R8G8B8_UNORM", BC1_256)
    assert row["decided_by"].endswith("; opaque: only metallicRoughness reads it")
    # where alpha changes nothing (ASTC has no alpha variant), nothing is said
    row = rows(scan_json(capsys, root, "--platform", "mobile-astc"))["t0.png"]
    assert row["gpu_format"] == "ASTC_8x8_UNORM" and "opaque" not in row["decided_by"]


def test_spec_gloss_textures_are_colour(capsys, tmp_path):
    """KHR_materials_pbrSpecularGlossiness: diffuse (RGB sRGB, A coverage) and
    specularGlossiness (RGB sRGB specular, A linear glossiness: read)."""
    root = scene_with(tmp_path, [{"extensions": {"KHR_materials_pbrSpecularGlossiness": {
        "diffuseTexture": tex(0), "specularGlossinessTexture": tex(1)}}}], images=2)
    got = rows(scan_json(capsys, root))
    assert (got["t0.png"]["role"], got["t0.png"]["gpu_format"]) == ("albedo", "BC1_RGB_SRGB")
    assert got["t0.png"]["decided_by"].endswith("; opaque: only diffuse (alphaMode OPAQUE) reads it")
    assert (got["t1.png"]["role"], got["t1.png"]["gpu_format"], got["t1.png"]["gpu_bytes"]) == ("albedo", "BC3_SRGB", BC3_256)


def test_the_opaque_set_counts_alpha_no_use_reads(tmp_path):
    """The budget's fixes treat such a texture as opaque (BC1 for a stored BC3, …)."""
    root = scene_with(tmp_path, [{"occlusionTexture": tex(0), "pbrMetallicRoughness": {"baseColorTexture": tex(1)},
                                  "alphaMode": "BLEND"}], images=2)
    prepared = pipeline.prepare(read_scene(root, load(None)))
    assert "t0.png" in prepared.opaque and "t1.png" not in prepared.opaque
    assert prepared.alpha_unused == {"t0.png": "opaque: only occlusion reads it"}


def test_decide_all_keeps_apart_textures_that_differ_only_in_alpha_use(tmp_path):
    """Two RGBA PNGs alike in every fact but path: one read as metallicRoughness only, the
    other as a BLEND baseColor. ``decide_all`` shares decisions between alike textures; the
    alpha use is part of what makes them alike."""
    root = scene_with(tmp_path, [{"pbrMetallicRoughness": {"metallicRoughnessTexture": tex(0)}},
                                 {"pbrMetallicRoughness": {"metallicRoughnessTexture": tex(1)}, "occlusionTexture": tex(1),
                                  "extensions": {"KHR_materials_specular": {"specularTexture": tex(1)}}}], images=2)
    scan = read_scene(root, load(None))
    settings = pipeline.build_settings(load(None))
    report = pipeline.evaluate(scan, settings)
    got = {r.facts.path: r.plan.gpu_format for r in report.textures}
    assert got == {"t0.png": "BC1_RGB_UNORM", "t1.png": "BC3_UNORM"}


# --- EXT_lights_image_based -----------------------------------------------------------------

#: BC6H (16 bytes a 4x4 block) of a 256x256 cube face, levels 256..16: 65536 + 16384 + 4096 +
#: 1024 + 256 bytes, times 6 faces.
BC6H_CUBE_256_5 = 6 * (65536 + 16384 + 4096 + 1024 + 256)  # 523,776
#: RGBA16F (8 bytes a texel), same chain.
RGBA16F_CUBE_256_5 = 6 * 8 * (256 * 256 + 128 * 128 + 64 * 64 + 32 * 32 + 16 * 16)  # 4,190,208


def test_the_light_is_priced_as_one_cubemap(capsys, tmp_path):
    ibl_glb(tmp_path / "env.glb")
    data = scan_json(capsys, tmp_path)
    got = rows(data)
    cube = got["env.glb#light/0"]
    assert {k: cube[k] for k in ("container", "width", "height", "faces", "layers", "stored_levels", "gpu_format",
                                 "role", "mips_policy", "gpu_bytes", "disk_bytes", "used_by")} == {
        "container": "gltf", "width": 256, "height": 256, "faces": 6, "layers": 1, "stored_levels": 5,
        "gpu_format": "BC6H_UFLOAT", "role": "hdr", "mips_policy": "stored", "gpu_bytes": BC6H_CUBE_256_5,
        "disk_bytes": 0, "used_by": []}
    assert [(m["level"], m["width"], m["bytes"]) for m in cube["mips"]] == [
        (0, 256, 6 * 65536), (1, 128, 6 * 16384), (2, 64, 6 * 4096), (3, 32, 6 * 1024), (4, 16, 6 * 256)]
    assert cube["decided_by"] == "EXT_lights_image_based radiance cubemap → hdr → BC6H_UFLOAT (desktop); 5 levels as EXT_lights_image_based lists them"
    # its 30 faces are listed, not counted; the material's own texture counts
    faces = [p for p in got if p.startswith("env.glb#image/") and p != "env.glb#image/0"]
    assert len(faces) == 30
    assert all(got[p]["decided_by"].startswith("a face of the cubemap env.glb#light/0 (EXT_lights_image_based), priced there: not counted; ")
               for p in faces)
    counted = got["env.glb#light/0"]["allocated_bytes"] + got["env.glb#image/0"]["allocated_bytes"]
    assert data["scenarios"][0]["bytes"]["textures"] == counted
    assert [f["code"] for f in data["findings"]] == []  # no TB081, no TB006


@pytest.mark.parametrize("platform,fmt,gpu_bytes", [
    ("mobile-astc", "ASTC_4x4_SFLOAT", BC6H_CUBE_256_5),
    ("mobile-etc2", "R16G16B16A16_SFLOAT", RGBA16F_CUBE_256_5),
    ("uncompressed", "R16G16B16A16_SFLOAT", RGBA16F_CUBE_256_5),
])
def test_the_light_on_other_platforms(capsys, tmp_path, platform, fmt, gpu_bytes):
    ibl_glb(tmp_path / "env.glb")
    cube = rows(scan_json(capsys, tmp_path, "--platform", platform))["env.glb#light/0"]
    assert (cube["gpu_format"], cube["gpu_bytes"], cube["mips_policy"]) == (fmt, gpu_bytes, "stored")


def test_a_cap_drops_listed_levels(capsys, tmp_path):
    (tmp_path / "texbudget.toml").write_text('[[rule]]\nmatch = "env.glb#light/0"\nmax_size = 64\n', encoding="utf-8")
    ibl_glb(tmp_path / "env.glb")
    cube = rows(scan_json(capsys, tmp_path))["env.glb#light/0"]
    assert [(m["width"], m["bytes"]) for m in cube["mips"]] == [(64, 6 * 4096), (32, 6 * 1024), (16, 6 * 256)]


def test_a_stored_bc3_only_occlusion_reads_is_offered_bc1(capsys, tmp_path):
    """The opaque set feeds the fix search: a BC3 DDS (8192², full chain: 89,522,176 bytes
    allocated) that only occlusionTexture reads keeps its stored format, but BC1 (the same
    colour blocks without the alpha half: 44,761,088 bytes less) is the quality-neutral fix."""
    from tests.readers import factories as fx

    (tmp_path / "orm.dds").write_bytes(fx.dds_bytes(8192, 8192, fourcc=b"DXT5", block=(4, 4, 16), mips=14))
    b = GltfBuilder()
    b.add_texture(b.add_image_uri("orm.dds"), MSFT_texture_dds={"source": 0})
    b.add_material(occlusionTexture=tex())
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_gltf(tmp_path / "a.gltf")
    data = scan_json(capsys, tmp_path, "--cards", "1GB", "--resolution", "1760x990", "--rt", "off")
    assert [(t["path"], t["gpu_format"], t["allocated_bytes"]) for t in data["textures"]] == [("orm.dds", "BC3_UNORM", 89522176)]
    assert data["scenarios"][0]["fixes"] == [{"card": "1GB", "action": "use BC1_RGB_UNORM for this opaque BC3_UNORM texture",
                                              "path": "orm.dds", "saves_bytes": 44761088}]
