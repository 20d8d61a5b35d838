"""What a glTF says about its images beyond the slots: the alphaMode of the materials that
use them, sources that are neither PNG nor JPEG without the extension that allows them
(TB088), and EXT_lights_image_based cubemaps (``file#light/N``, TB089). The files are written
by the test builder after the real glTF they stand for (Khronos glTF-Sample-Assets
EnvironmentTest/glTF-IBL, exported by Adobe Dimension: 256 px, 5 levels, 30 embedded PNGs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readers.gltf_factories import GltfBuilder, png_bytes, triangle_mesh
from texbudget.model import COMPOSED_CONTAINER, TextureFacts, file_of, is_part
from texbudget.readers import read_path


def read(root: Path, rel: str):
    result = read_path(root, rel)
    assert not [f for f in result.findings if f.code == "TB009"], result.findings
    return result


def messages(result, code: str) -> list[str]:
    return [f.message for f in result.findings if f.code == code]


# --- alphaMode ---------------------------------------------------------------------------


def test_alpha_modes_of_materials_that_are_not_opaque(tmp_path):
    b = GltfBuilder()
    t = b.add_texture(b.add_image_view(png_bytes(8, 8)))
    info = {"baseColorTexture": {"index": t}}
    b.add_material(pbrMetallicRoughness=info)  # default: OPAQUE
    b.add_material(pbrMetallicRoughness=info, alphaMode="OPAQUE")
    b.add_material(pbrMetallicRoughness=info, alphaMode="MASK", alphaCutoff=0.3)
    b.add_material(pbrMetallicRoughness=info, alphaMode="BLEND")
    b.add_material(pbrMetallicRoughness=info, alphaMode="blend")  # not the enum: taken as read
    b.add_material(alphaMode="BLEND")  # no texture: nothing to say
    b.write_glb(tmp_path / "a.glb")
    r = read(tmp_path, "a.glb")
    assert r.scenes[0].alpha_modes == (("a.glb#material/2", "MASK"), ("a.glb#material/3", "BLEND"),
                                       ("a.glb#material/4", "BLEND"))
    assert messages(r, "TB073") == ['material 4: alphaMode "blend" is not OPAQUE, MASK or BLEND; its alpha is taken as read (BLEND)']


# --- sources that glTF does not load (TB088) ---------------------------------------------


def test_sources_neither_png_nor_jpeg_without_their_extension(tmp_path):
    for name in ("a.ktx2", "b.ktx2", "c.webp", "d.dds", "e.tga", "f.png", "g.jpg", "h.ktx2", "i.webp"):
        (tmp_path / name).write_bytes(b"located, not read by the glTF reader")
    b = GltfBuilder()
    ktx_a, ktx_b = b.add_image_uri("a.ktx2"), b.add_image_uri("b.ktx2", mimeType="image/ktx2")
    webp, dds, tga = b.add_image_uri("c.webp"), b.add_image_uri("d.dds"), b.add_image_uri("e.tga")
    png, jpg = b.add_image_uri("f.png"), b.add_image_uri("g.jpg")
    ktx_h, webp_i = b.add_image_uri("h.ktx2"), b.add_image_uri("i.webp")
    embedded_webp = b.add_image_view(b"RIFF\x00\x00\x00\x00WEBP", mime="image/webp")
    data_tga = b.add_image_uri("data:image/x-tga;base64,AAAA")
    textures = [
        b.add_texture(ktx_a),  # 0: KTX2 by its suffix, no extension
        b.add_texture(ktx_b),  # 1: KTX2 by its mimeType
        b.add_texture(webp),  # 2: WebP without EXT_texture_webp
        b.add_texture(dds),  # 3: DDS without MSFT_texture_dds
        b.add_texture(tga),  # 4: TGA: no extension allows it
        b.add_texture(png), b.add_texture(jpg),  # 5, 6: fine
        b.add_texture(ktx_h, KHR_texture_basisu={"source": ktx_h}),  # 7: its extension allows it
        b.add_texture(webp_i, KHR_texture_basisu={"source": ktx_h}),  # 8: WebP, but only basisu
        b.add_texture(png, MSFT_texture_dds={"source": dds}),  # 9: a PNG fallback: fine
        b.add_texture(embedded_webp),  # 10: embedded WebP by its mimeType
        b.add_texture(ktx_a),  # 11: KTX2 again
        b.add_texture(data_tga),  # 12: a data: URI's media type, as written
    ]
    b.add_material(emissiveTexture={"index": textures[0]})
    b.write_gltf(tmp_path / "s.gltf")
    r = read(tmp_path, "s.gltf")
    assert messages(r, "TB088") == [
        "3 textures' sources are KTX2 (texture 0: a.ktx2, texture 1: b.ktx2, texture 11: a.ktx2), "
        "without KHR_texture_basisu; a texture's source must be PNG or JPEG",
        "3 textures' sources are WebP (texture 2: c.webp, texture 8: i.webp, texture 10: s.gltf#image/9), "
        "without EXT_texture_webp; a texture's source must be PNG or JPEG",
        "1 texture's source is DDS (texture 3: d.dds), without MSFT_texture_dds; a texture's source must be PNG or JPEG",
        "1 texture's source is TGA (texture 4: e.tga), which no glTF extension allows; a texture's source must be PNG or JPEG",
        "1 texture's source is image/x-tga (texture 12: s.gltf#image/10), which no glTF extension allows; "
        "a texture's source must be PNG or JPEG",
    ]
    assert all(f.severity.value == "warning" for f in r.findings if f.code == "TB088")


def test_more_than_three_are_counted(tmp_path):
    b = GltfBuilder()
    for i in range(5):
        (tmp_path / f"t{i}.ktx2").write_bytes(b"x")
        b.add_texture(b.add_image_uri(f"t{i}.ktx2"))
    b.write_gltf(tmp_path / "s.gltf")
    assert messages(read(tmp_path, "s.gltf"), "TB088") == [
        "5 textures' sources are KTX2 (texture 0: t0.ktx2, texture 1: t1.ktx2, texture 2: t2.ktx2, and 2 more), "
        "without KHR_texture_basisu; a texture's source must be PNG or JPEG"]


# --- EXT_lights_image_based ----------------------------------------------------------------


def ibl_glb(path: Path, size: int = 256, levels: int = 5, sides=None, light_in_scene: bool = True, **light) -> Path:
    """The layout of EnvironmentTest/glTF-IBL: a material with one texture, then the light's
    faces as embedded PNGs, level by level, +X −X +Y −Y +Z −Z."""
    b = GltfBuilder()
    mr = b.add_texture(b.add_image_view(png_bytes(16, 16)))
    b.add_material(pbrMetallicRoughness={"metallicRoughnessTexture": {"index": mr}})
    rows = []
    for level in range(levels):
        side = sides[level] if sides else max(1, size >> level)
        rows.append([b.add_image_view(png_bytes(side, side)) for _ in range(6)])
    scene = b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    if light_in_scene:
        b.doc["scenes"][scene]["extensions"] = {"EXT_lights_image_based": {"light": 0}}
    b.doc["extensions"] = {"EXT_lights_image_based": {"lights": [{
        "intensity": 1, "irradianceCoefficients": [[0.5, 0.5, 0.5]] * 9, "specularImageSize": size,
        "specularImages": rows, **light}]}}
    b.doc["extensionsUsed"] = ["EXT_lights_image_based"]
    return b.write_glb(path)


def test_a_light_is_one_cubemap_of_its_listed_levels(tmp_path):
    ibl_glb(tmp_path / "env.glb")
    r = read(tmp_path, "env.glb")
    assert r.findings == ()  # its 30 images are used: no TB081
    cube = r.textures[-1]
    assert cube == TextureFacts(path="env.glb#light/0", container=COMPOSED_CONTAINER, width=256, height=256,
                                faces=6, stored_levels=5, channels=3, alpha=False, hdr=True)
    assert is_part(cube.path) and file_of(cube.path) == "env.glb"
    assert [t.path for t in r.textures[:-1]] == [f"env.glb#image/{i}" for i in range(31)]
    faces = r.scenes[0].cube_faces
    assert faces == tuple((f"env.glb#image/{i}", "env.glb#light/0") for i in range(1, 31))


def test_a_light_no_scene_uses_is_not_priced(tmp_path):
    ibl_glb(tmp_path / "env.glb", light_in_scene=False)
    r = read(tmp_path, "env.glb")
    assert [t.path for t in r.textures] == [f"env.glb#image/{i}" for i in range(31)]
    assert r.scenes[0].cube_faces == ()
    assert len(messages(r, "TB081")) == 30


@pytest.mark.parametrize("size,levels,sides,light,expected", [
    (48, 2, None, {}, ["EXT_lights_image_based light 0: specularImageSize 48 is not a power of two; priced as declared"]),
    (16, 6, [16, 8, 4, 2, 1, 1], {}, ["EXT_lights_image_based light 0 lists 6 levels, but a 16x16 cubemap has 5; the last 1 are not counted"]),
    (64, 2, [64, 16], {}, ["EXT_lights_image_based light 0: image 7 (env.glb#image/7), face 0 of level 1, is 16x16, not 32x32; priced as the light declares"]),
])
def test_a_light_that_is_not_its_cubemap_is_priced_as_declared(tmp_path, size, levels, sides, light, expected):
    ibl_glb(tmp_path / "env.glb", size=size, levels=levels, sides=sides, **light)
    r = read(tmp_path, "env.glb")
    assert messages(r, "TB089") == expected
    assert all(f.severity.value == "warning" for f in r.findings)
    cube = r.textures[-1]
    assert (cube.path, cube.width, cube.stored_levels) == ("env.glb#light/0", size, min(levels, size.bit_length()))


@pytest.mark.parametrize("light,message", [
    ({"specularImageSize": 0}, "EXT_lights_image_based light 0: 'specularImageSize' is 0, not a positive integer"),
    ({"specularImageSize": None}, "EXT_lights_image_based light 0: 'specularImageSize' is null, not a positive integer"),
    ({"specularImageSize": 1 << 17}, "EXT_lights_image_based light 0: 'specularImageSize' is 131072, larger than any GPU allows (65536)"),
    ({"specularImages": []}, "EXT_lights_image_based light 0: 'specularImages' is not a non-empty array"),
    ({"specularImages": [[1, 2, 3]]}, "EXT_lights_image_based light 0: specularImages[0] is not an array of 6 images (one per cube face)"),
    ({"specularImages": [[1, 2, 3, 4, 5, 99]]}, "EXT_lights_image_based light 0: specularImages[0][5] points to image 99, but the file has 31"),
    ({"specularImages": [[1, 2, 3, 4, 5, -1]]}, "EXT_lights_image_based light 0: specularImages[0][5] is -1, not an index"),
])
def test_a_light_that_breaks_the_schema_is_a_finding_and_not_priced(tmp_path, light, message):
    ibl_glb(tmp_path / "env.glb", **light)
    r = read(tmp_path, "env.glb")
    assert messages(r, "TB073") == [message]
    assert not any(t.path.endswith("#light/0") for t in r.textures)
    assert r.meshes  # the rest of the file is read


def test_a_light_value_of_the_wrong_type_is_the_file_s_schema_error(tmp_path):
    """Types are the schema's (msgspec, as everywhere in the document): the file stops there."""
    ibl_glb(tmp_path / "env.glb", specularImageSize="256")
    r = read(tmp_path, "env.glb")
    assert [(f.code, f.message) for f in r.findings] == [
        ("TB073", "$.extensions.EXT_lights_image_based.lights[0].specularImageSize: expected `int | null`, got `str`")]
    assert (r.textures, r.meshes) == ((), ())


def test_a_scene_that_names_no_light(tmp_path):
    path = ibl_glb(tmp_path / "env.glb")
    import json
    import struct

    data = path.read_bytes()
    (n,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20:20 + n])
    doc["scenes"][0]["extensions"]["EXT_lights_image_based"]["light"] = 3
    b = GltfBuilder()
    b.doc, b.bin = doc, bytearray(data[20 + n + 8:])
    b.write_glb(path)
    r = read(tmp_path, "env.glb")
    assert messages(r, "TB073") == ["scene 0 EXT_lights_image_based: 'light' points to light 3, but the file has 1"]
