"""Godot 4 .import and Unity .meta sidecars: parsing, and every setting of the tables in
docs/policy.md §6–§7 mapped to the GPU format, size and mips the engine produces.

The sidecars are written in the shape the engines write them: the Godot template follows a
Godot 4 ``icon.png.import`` (``[remap]`` with a multi-line ``metadata``, ``[deps]``,
``[params]`` in the importer's order); the Unity template follows a Unity 2022 TextureImporter
``.meta`` (serializedVersion 13, ``platformSettings`` with serializedVersion 4 entries, a
``spriteSheet``), and a Unity 5.4 one with ``buildTargetSettings``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from texbudget import findings
from texbudget.engine import (
    GODOT_MODES,
    UNITY_COMPRESSION,
    UNITY_FORMATS,
    EngineImport,
    UnityPlatform,
)
from texbudget.model import Finding, TextureFacts, evolve
from texbudget.policy.decision import _UNITY_TYPES, decide, price
from texbudget.policy.profiles import PolicySettings
from texbudget.readers import godot, unity
from texbudget.readers.sidecars import read_engine_import

DESKTOP = PolicySettings()
MOBILE = PolicySettings(platform="mobile-astc")


def facts(path: str = "tex/rock.png", w: int = 1024, h: int = 1024, **kw) -> TextureFacts:
    kw.setdefault("container", "png")
    kw.setdefault("channels", 4 if kw.get("alpha") else 3)
    return TextureFacts(path=path, width=w, height=h, **kw)


def chain(bpb: int, block: tuple[int, int], w: int, h: int, d: int = 1, levels: int | None = None) -> int:
    """Independent chain size: ceil to whole blocks per level, depth halves too."""
    total, i = 0, 0
    while True:
        total += -(-w // block[0]) * -(-h // block[1]) * bpb * d
        i += 1
        if (w == 1 and h == 1 and d == 1) or (levels is not None and i == levels):
            return total
        w, h, d = max(1, w // 2), max(1, h // 2), max(1, d // 2)


# --- Godot -------------------------------------------------------------------------------

GODOT_PARAMS_2D = {
    "compress/mode": "0", "compress/high_quality": "false", "compress/lossy_quality": "0.7",
    "compress/hdr_compression": "1", "compress/normal_map": "0", "compress/channel_pack": "0",
    "mipmaps/generate": "false", "mipmaps/limit": "-1", "roughness/mode": "0",
    "roughness/src_normal": '""', "process/fix_alpha_border": "true", "process/premult_alpha": "false",
    "process/normal_map_invert_y": "false", "process/hdr_as_srgb": "false",
    "process/hdr_clamp_exposure": "false", "process/size_limit": "0", "detect_3d/compress_to": "1",
}
GODOT_PARAMS_LAYERED = {
    "compress/mode": "1", "compress/high_quality": "false", "compress/lossy_quality": "0.7",
    "compress/uastc_level": "0", "compress/rdo_quality_loss": "0.0", "compress/hdr_compression": "1",
    "compress/channel_pack": "0", "mipmaps/generate": "true", "mipmaps/limit": "-1",
}
GODOT_TYPES = {"texture": "CompressedTexture2D", "2d_array_texture": "CompressedTexture2DArray",
               "3d_texture": "CompressedTexture3D", "cubemap_texture": "CompressedCubemap",
               "cubemap_array_texture": "CompressedCubemapArray", "skip": ""}


def godot_text(name: str = "rock.png", importer: str = "texture", drop: tuple[str, ...] = (), **params: str) -> str:
    base = dict(GODOT_PARAMS_2D if importer == "texture" else GODOT_PARAMS_LAYERED)
    base.update({k.replace("__", "/"): v for k, v in params.items()})
    for key in drop:
        base.pop(key, None)
    body = "\n".join(f"{k}={v}" for k, v in base.items())
    return (
        f'[remap]\n\nimporter="{importer}"\ntype="{GODOT_TYPES.get(importer, "Resource")}"\n'
        f'uid="uid://b0lxboblea5rm"\n'
        f'path.s3tc="res://.godot/imported/{name}-487276ed1e3a0c39cad0279d744ee560.s3tc.ctex"\n'
        f'metadata={{\n"imported_formats": ["s3tc_bptc", "etc2_astc"],\n"vram_texture": true\n}}\n\n'
        f'[deps]\n\nsource_file="res://{name}"\n'
        f'dest_files=["res://.godot/imported/{name}-487276ed1e3a0c39cad0279d744ee560.s3tc.ctex"]\n\n'
        f"[params]\n\n{body}\n"
    )


def gd(importer: str = "texture", **params: str) -> EngineImport:
    out = godot.parse_godot_import(godot_text(importer=importer, **params), "rock.png.import", "tex/rock.png.import")
    assert isinstance(out, EngineImport), out
    return out


def test_godot_template_parses_every_key() -> None:
    e = gd(compress__mode="2", compress__high_quality="true", mipmaps__generate="true", process__size_limit="512")
    assert (e.engine, e.importer, e.source) == ("godot", "texture", "rock.png.import")
    assert (e.compress_mode, e.high_quality, e.hdr_compression, e.normal_map, e.channel_pack) == (2, True, 1, 0, 0)
    assert (e.mipmaps, e.mipmap_limit, e.size_limit, e.detect_3d) == (True, -1, 512, 1)
    assert e.findings == ()
    assert ("compress/mode", "2") in e.settings and e.settings[0] == ("importer", "texture")


def test_godot_config_parser_joins_multiline_values() -> None:
    sections = godot.parse_config(godot_text())
    assert sections is not None
    assert sections["remap"]["metadata"] == '{\n"imported_formats": ["s3tc_bptc", "etc2_astc"],\n"vram_texture": true\n}'
    assert sections["deps"]["source_file"] == '"res://rock.png"'
    assert sections["params"]["roughness/src_normal"] == '""'


@pytest.mark.parametrize("mode,fx,fmt,bpp", [
    ("0", {}, "R8G8B8A8_SRGB", 4), ("1", {}, "R8G8B8A8_SRGB", 4), ("3", {}, "R8G8B8A8_SRGB", 4),
    ("0", {"channels": 1, "grey": True}, "R8_UNORM", 1), ("1", {"channels": 2, "grey": True, "alpha": True}, "R8G8_UNORM", 2),
    ("3", {"alpha": True}, "R8G8B8A8_SRGB", 4),
    ("0", {"container": "hdr", "hdr": True, "bit_depth": 32}, "E5B9G9R9_UFLOAT", 4),
    ("0", {"container": "exr", "hdr": True, "bit_depth": 16}, "R16G16B16A16_SFLOAT", 8),
    ("3", {"container": "exr", "hdr": True, "bit_depth": 32}, "R32G32B32A32_SFLOAT", 16),
])
def test_godot_uncompressed_modes(mode: str, fx: dict, fmt: str, bpp: int) -> None:
    e = gd(compress__mode=mode, detect_3d__compress_to="0")
    for settings in (DESKTOP, MOBILE):
        plan = decide(facts("tex/rock.png", 512, 256, **fx), settings, engine=e)
        assert (plan.gpu_format, plan.levels, plan.mips) == (fmt, 1, "none")
        assert price(plan).gpu_bytes == 512 * 256 * bpp
    words = GODOT_MODES[int(mode)]
    assert f"Godot .import: {words} → {fmt}, no mipmaps" in decide(facts(**fx), DESKTOP, engine=e).decided_by


@pytest.mark.parametrize("fx,slots,normal_map,desktop,mobile", [
    ({}, (), "0", "BC1_RGB_SRGB", "ETC2_R8G8B8_SRGB"),
    ({"alpha": True}, (), "0", "BC3_SRGB", "ETC2_R8G8B8A8_SRGB"),
    ({"channels": 1, "grey": True}, (), "0", "BC1_RGB_UNORM", "ETC2_R8G8B8_UNORM"),
    ({"channels": 2, "grey": True, "alpha": True}, (), "0", "BC3_SRGB", "ETC2_R8G8B8A8_SRGB"),
    ({}, (), "1", "BC5_UNORM", "EAC_R11G11_UNORM"),
    ({}, ("normalTexture",), "0", "BC5_UNORM", "EAC_R11G11_UNORM"),
    ({}, ("normalTexture",), "2", "BC1_RGB_UNORM", "ETC2_R8G8B8_UNORM"),
])
def test_godot_vram_compressed_s3tc_and_etc2(fx: dict, slots: tuple, normal_map: str, desktop: str, mobile: str) -> None:
    e = gd(compress__mode="2", compress__normal_map=normal_map, mipmaps__generate="true")
    f = facts(**fx)
    d = decide(f, DESKTOP, engine=e, slots=slots)
    m = decide(f, MOBILE, engine=e, slots=slots)
    assert (d.gpu_format, m.gpu_format) == (desktop, mobile)
    assert (d.levels, d.mips) == (11, "generated")
    bpb = 16 if desktop in ("BC3_SRGB", "BC5_UNORM") else 8
    assert price(d).gpu_bytes == chain(bpb, (4, 4), 1024, 1024)


def test_godot_decided_by_sentences() -> None:
    e = gd(compress__mode="2", compress__normal_map="1", mipmaps__generate="true")
    assert decide(facts(), DESKTOP, engine=e).decided_by == "Godot .import: VRAM compressed, normal map → BC5_UNORM"
    detect = gd(compress__mode="2", mipmaps__generate="true")
    assert decide(facts(), DESKTOP, engine=detect, slots=["normalTexture"]).decided_by == (
        "glTF slot normalTexture; Godot .import: VRAM compressed, normal map (detected) → BC5_UNORM")
    plain = decide(facts("tex/rock_albedo.png"), DESKTOP, engine=detect)
    assert plain.decided_by == "name '_albedo'; Godot .import: VRAM compressed → BC1_RGB_SRGB"


@pytest.mark.parametrize("fx,hq_mode,normal,desktop,mobile", [
    ({}, "0", "0", "BC7_SRGB", "ASTC_4x4_SRGB"),
    ({"alpha": True}, "0", "0", "BC7_SRGB", "ASTC_4x4_SRGB"),
    ({"channels": 1, "grey": True}, "0", "0", "BC7_UNORM", "ASTC_8x8_UNORM"),
    ({"channels": 2, "grey": True, "alpha": True}, "0", "0", "BC7_SRGB", "ASTC_6x6_SRGB"),
    ({}, "0", "1", "BC7_UNORM", "ASTC_6x6_UNORM"),
    ({}, "1", "0", "BC7_SRGB", "ASTC_4x4_SRGB"),
    ({}, "2", "0", "BC7_SRGB", "ASTC_6x6_SRGB"),
    ({}, "3", "0", "BC7_SRGB", "ASTC_8x8_SRGB"),
])
def test_godot_high_quality_bptc_and_astc(fx: dict, hq_mode: str, normal: str, desktop: str, mobile: str) -> None:
    e = gd(compress__mode="2", compress__high_quality="true", compress__high_quality_mode=hq_mode,
           compress__normal_map=normal, mipmaps__generate="true")
    assert decide(facts(**fx), DESKTOP, engine=e).gpu_format == desktop
    m = decide(facts(**fx), MOBILE, engine=e)
    assert m.gpu_format == mobile
    block = int(mobile.split("_")[1].split("x")[0])
    # mobile-astc's 2048 cap does not apply: the engine's settings beat the profile
    assert price(m).gpu_bytes == chain(16, (block, block), 1024, 1024)


@pytest.mark.parametrize("alpha,hdr_mode,desktop,mobile,note", [
    (False, None, "BC6H_UFLOAT", "ASTC_4x4_SFLOAT", "HDR"),
    (False, "1", "BC6H_UFLOAT", "ASTC_4x4_SFLOAT", "HDR"),
    (True, "1", "E5B9G9R9_UFLOAT", "E5B9G9R9_UFLOAT", "HDR with alpha (opaque only)"),
    (True, "2", "BC6H_UFLOAT", "ASTC_4x4_SFLOAT", "HDR, alpha dropped"),
    (False, "0", "E5B9G9R9_UFLOAT", "E5B9G9R9_UFLOAT", "HDR compression disabled"),
])
def test_godot_hdr_compression(alpha: bool, hdr_mode: str | None, desktop: str, mobile: str, note: str) -> None:
    params = {"compress__mode": "2", "mipmaps__generate": "true"}
    if hdr_mode is not None:
        params["compress__hdr_compression"] = hdr_mode
    e = gd(**params) if hdr_mode is not None else godot.parse_godot_import(
        godot_text(drop=("compress/hdr_compression",), compress__mode="2", mipmaps__generate="true"), "s.exr.import", "s.exr.import")
    assert isinstance(e, EngineImport)
    f = facts("env/sky.exr", 1024, 512, container="exr", hdr=True, bit_depth=16, alpha=alpha)
    d = decide(f, DESKTOP, engine=e)
    assert (d.gpu_format, decide(f, MOBILE, engine=e).gpu_format) == (desktop, mobile)
    assert d.decided_by == f"Godot .import: VRAM compressed, {note} → {desktop}"
    expected = chain(16, (4, 4), 1024, 512) if desktop == "BC6H_UFLOAT" else chain(4, (1, 1), 1024, 512)
    assert price(d).gpu_bytes == expected


def test_godot_basis_universal_transcodes_at_load() -> None:
    e = gd(compress__mode="4", mipmaps__generate="true")
    d = decide(facts(), DESKTOP, engine=e)
    assert (d.gpu_format, d.decided_by) == ("BC7_SRGB", "Godot .import: Basis Universal, transcoded for desktop → BC7_SRGB")
    assert decide(facts(), MOBILE, engine=e).gpu_format == "ASTC_4x4_SRGB"


def test_godot_mipmaps_generate_and_limit() -> None:
    on = decide(facts(), DESKTOP, engine=gd(compress__mode="2", mipmaps__generate="true"))
    off = decide(facts(), DESKTOP, engine=gd(compress__mode="2", mipmaps__generate="false"))
    assert (on.levels, off.levels) == (11, 1)
    assert price(off).gpu_bytes == 1024 * 1024 // 2
    assert off.decided_by.endswith(", no mipmaps")
    limited = decide(facts(), DESKTOP, engine=gd(compress__mode="2", mipmaps__generate="true", mipmaps__limit="3"))
    assert limited.levels == 11
    assert limited.decided_by.endswith("(mipmaps/limit has no effect in Godot 4)")


@pytest.mark.parametrize("w,h,limit,out", [
    (2048, 1024, "512", (512, 256)), (1000, 600, "512", (512, 307)), (600, 1000, "512", (307, 512)),
    (300, 200, "512", (300, 200)), (4096, 4096, "0", (4096, 4096)),
])
def test_godot_size_limit_scales_proportionally(w: int, h: int, limit: str, out: tuple[int, int]) -> None:
    plan = decide(facts(w=w, h=h), DESKTOP, engine=gd(compress__mode="2", mipmaps__generate="true", process__size_limit=limit))
    assert (plan.width, plan.height) == out
    assert price(plan).gpu_bytes == chain(8, (4, 4), *out)
    if out != (w, h):
        assert plan.decided_by.endswith(f", size_limit {limit}")


@pytest.mark.parametrize("compress_to,slots,mode_words,fmt,levels", [
    ("1", ("baseColorTexture",), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    ("2", ("baseColorTexture",), "lossless, used in 3D → Basis Universal (detect_3d)", "BC7_SRGB", 11),
    ("0", ("baseColorTexture",), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", (), "lossless", "R8G8B8A8_SRGB", 1),
    # a Godot material's slot converts it; a 2D node's (TextureRect, TextureButton) does not
    ("1", ("albedo_texture",), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    ("1", ("texture",), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("texture", "texture_normal", "icon"), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("texture", "shader_parameter/mask"), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    # a 3D sprite's texture is its own material's albedo; a SpriteFrames' or an AtlasTexture's
    # textures are their user's (2D unless a 3D sprite or a material adds its slot); a Decal's
    # and a projector's go to the decal atlas; a MeshLibrary preview is drawn in the editor
    ("1", ("Sprite3D.texture",), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    ("1", ("animations", "AnimatedSprite3D.sprite_frames"), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    ("1", ("atlas", "albedo_texture"), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
    ("1", ("animations", "atlas", "frames"), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("texture_albedo", "texture_orm", "texture_emission", "light_projector", "preview"), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("item_2/icon", "popup/item_0/icon", "tab_11/icon", "diffuse_texture", "specular_texture"), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("metadata/_editor_icon", "__meta__"), "lossless", "R8G8B8A8_SRGB", 1),
    ("1", ("normal_texture",), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC5_UNORM", 11),  # a normal map
    ("1", ("shader_parameter/item_2/icon",), "lossless, used in 3D → VRAM compressed (detect_3d)", "BC1_RGB_SRGB", 11),
])
def test_godot_detect_3d(compress_to: str, slots: tuple, mode_words: str, fmt: str, levels: int) -> None:
    e = gd(compress__mode="0", detect_3d__compress_to=compress_to)
    plan = decide(facts(), DESKTOP, engine=e, slots=slots)
    assert (plan.gpu_format, plan.levels) == (fmt, levels)
    assert f"Godot .import: {mode_words}" in plan.decided_by


def test_godot_detect_3d_turns_mipmaps_on_for_vram_textures() -> None:
    e = gd(compress__mode="2", mipmaps__generate="false", detect_3d__compress_to="1")
    plan = decide(facts(), DESKTOP, engine=e, slots=["baseColor"])
    assert (plan.levels, plan.decided_by) == (11, "glTF slot baseColor; Godot .import: VRAM compressed, used in 3D → mipmaps (detect_3d) → BC1_RGB_SRGB")
    assert decide(facts(), DESKTOP, engine=e).levels == 1


def test_godot_2d_array_slices() -> None:
    e = gd("2d_array_texture", compress__mode="2", slices__horizontal="4", slices__vertical="2")
    plan = decide(facts("tex/terrain.png", 1024, 512), DESKTOP, engine=e)
    assert (plan.width, plan.height, plan.depth, plan.layers, plan.faces, plan.levels) == (256, 256, 1, 8, 1, 9)
    assert price(plan).gpu_bytes == 8 * chain(8, (4, 4), 256, 256)
    assert "Godot 2D array: 4x2 slices of 256x256" in plan.decided_by
    default = decide(facts("tex/t.png", 1024, 1024), DESKTOP, engine=gd("2d_array_texture", compress__mode="2"))
    assert (default.width, default.layers) == (128, 64)  # slices default to 8 x 8


def test_godot_3d_texture_depth_halves_with_mips() -> None:
    e = gd("3d_texture", compress__mode="3", slices__horizontal="8", slices__vertical="8")
    plan = decide(facts("fx/noise.png", 512, 512, alpha=True), DESKTOP, engine=e)
    assert (plan.width, plan.height, plan.depth, plan.layers, plan.levels) == (64, 64, 64, 1, 7)
    assert price(plan).gpu_bytes == chain(4, (1, 1), 64, 64, 64)  # RGBA8 64³ full 3D chain


@pytest.mark.parametrize("arrangement,w,h", [("0", 256, 1536), ("1", 512, 768), ("2", 768, 512), ("3", 1536, 256)])
def test_godot_cubemap_arrangements(arrangement: str, w: int, h: int) -> None:
    e = gd("cubemap_texture", compress__mode="2", compress__high_quality="true", slices__arrangement=arrangement)
    plan = decide(facts("env/sky.png", w, h), DESKTOP, engine=e)
    assert (plan.width, plan.height, plan.faces, plan.layers, plan.gpu_format) == (256, 256, 6, 1, "BC7_SRGB")
    assert price(plan).gpu_bytes == 6 * chain(16, (4, 4), 256, 256)


def test_godot_cubemap_default_arrangement_is_2x3() -> None:
    text = godot_text(importer="cubemap_texture", compress__mode="2")
    e = godot.parse_godot_import(text, "s.png.import", "s.png.import")
    assert isinstance(e, EngineImport) and e.arrangement is None
    plan = decide(facts("env/sky.png", 512, 768), DESKTOP, engine=e)
    assert (plan.width, plan.faces) == (256, 6)


def test_godot_cubemap_array() -> None:
    e = gd("cubemap_array_texture", compress__mode="2", slices__arrangement="3", slices__layout="1", slices__amount="2")
    plan = decide(facts("env/probes.png", 1536, 512), DESKTOP, engine=e)
    assert (plan.width, plan.faces, plan.layers) == (256, 6, 2)
    assert price(plan).gpu_bytes == 12 * chain(8, (4, 4), 256, 256)


def test_godot_layered_channel_pack_normal_map() -> None:
    e = gd("2d_array_texture", compress__mode="2", compress__channel_pack="2", slices__horizontal="2", slices__vertical="1")
    plan = decide(facts("t/detail.png", 512, 256), DESKTOP, engine=e)
    assert (plan.role, plan.gpu_format) == ("normal", "BC5_UNORM")


def test_godot_slices_that_do_not_fit_read_as_2d() -> None:
    e = gd("2d_array_texture", compress__mode="2", slices__horizontal="16", slices__vertical="16")
    plan = decide(facts("t/tiny.png", 8, 8), DESKTOP, engine=e)
    assert (plan.width, plan.layers) == (8, 1)
    assert "do not fit a 8x8 image; read as 2D" in plan.decided_by


def test_godot_skip_importer_ignores_the_texture() -> None:
    e = godot.parse_godot_import('[remap]\n\nimporter="skip"\n', "a.png.import", "a.png.import")
    assert isinstance(e, EngineImport)
    plan = decide(facts(), DESKTOP, engine=e)
    assert plan.ignored and "importer skip (not imported)" in plan.decided_by
    assert price(plan).gpu_bytes == 0


@pytest.mark.parametrize("text,code,message", [
    ('[remap]\n\nimporter="image"\ntype="Image"\n', "TB011", "Godot importer 'image' is not a texture importer texbudget models"),
    ('[remap]\n\nimporter="keep"\n', "TB011", "Godot importer 'keep'"),
    ('[remap]\n\nimporter="texture"\ntype="StreamTexture"\n\n[params]\n\ncompress/mode=0\nflags/mipmaps=false\n',
     "TB011", "Godot 3 .import (StreamTexture)"),
    ("[deps]\nsource_file=\"res://a.png\"\n", "TB010", "not a Godot .import file: no [remap] section"),
    ("", "TB010", "not a Godot .import file"),
    ("[remap]\n\ntype=\"CompressedTexture2D\"\n", "TB010", "Godot .import has no importer= in [remap]"),
])
def test_godot_unusable_sidecars_are_findings(text: str, code: str, message: str) -> None:
    out = godot.parse_godot_import(text, "a.png.import", "tex/a.png.import")
    assert isinstance(out, Finding)
    assert (out.code, out.path) == (code, "tex/a.png.import")
    assert message in out.message


def test_godot_bad_values_are_tb012_and_defaults_apply() -> None:
    e = gd(compress__mode="7", compress__high_quality="maybe", slices__horizontal="0")
    assert e.compress_mode is None and e.high_quality is None
    messages = [f.message for f in e.findings]
    assert [f.code for f in e.findings] == ["TB012", "TB012", "TB012"]
    assert messages == [
        "[params] compress/mode=7 is not understood; allowed: 0, 1, 2, 3, 4; Godot's default applies",
        "[params] compress/high_quality=maybe is not understood; allowed: true or false; Godot's default applies",
        "[params] slices/horizontal=0 is not understood; allowed: an integer from 1 to 256; Godot's default applies",
    ]
    plan = decide(facts(), DESKTOP, engine=e)
    assert plan.gpu_format == "R8G8B8A8_SRGB"  # default compress/mode 0 for the 2D importer


def test_godot_file_limits(tmp_path: Path) -> None:
    big = tmp_path / "a.png.import"
    big.write_bytes(b"[remap]\n" + b";" * (godot.MAX_IMPORT_BYTES + 1))
    out = godot.read_godot_import(big, "a.png.import")
    assert isinstance(out, Finding) and out.code == "TB010" and "a real one is under" in out.message


# --- Unity -------------------------------------------------------------------------------

UNITY_ENTRY = """  - serializedVersion: 4
    buildTarget: {target}
    maxTextureSize: {max}
    resizeAlgorithm: 0
    textureFormat: {fmt}
    textureCompression: {comp}
    compressionQuality: 50
    crunchedCompression: 0
    allowsAlphaSplitting: 0
    overridden: {over}
    ignorePlatformSupport: 0
    androidETC2FallbackOverride: 0
    forceMaximumCompressionQuality_BC6H_BC7: 0
"""


def unity_text(*, texture_type: int = 0, shape: int = 1, mip: int = 1, srgb: int = 1, alpha_usage: int = 1,
               ignore_limit: int = 0, rows: int = 1, cols: int = 1, max_size: int = 2048, fmt: int = -1,
               comp: int = 1, platforms: tuple[tuple[str, int, int, int, int], ...] = ()) -> str:
    entries = UNITY_ENTRY.format(target="DefaultTexturePlatform", max=max_size, fmt=fmt, comp=comp, over=0)
    for target, pmax, pfmt, pcomp, over in platforms:
        entries += UNITY_ENTRY.format(target=target, max=pmax, fmt=pfmt, comp=pcomp, over=over)
    return f"""fileFormatVersion: 2
guid: 5e97eb03825dee720800000000000000
TextureImporter:
  internalIDToNameTable: []
  externalObjects: {{}}
  serializedVersion: 13
  mipmaps:
    mipMapMode: 0
    enableMipMap: {mip}
    sRGBTexture: {srgb}
    linearTexture: 0
    fadeOut: 0
    borderMipMap: 0
    mipMapsPreserveCoverage: 0
    alphaTestReferenceValue: 0.5
    mipMapFadeDistanceStart: 1
    mipMapFadeDistanceEnd: 3
  bumpmap:
    convertToNormalMap: 0
    externalNormalMap: 0
    heightScale: 0.25
    normalMapFilter: 0
    flipGreenChannel: 0
  isReadable: 0
  streamingMipmaps: 0
  streamingMipmapsPriority: 0
  vTOnly: 0
  ignoreMipmapLimit: {ignore_limit}
  grayScaleToAlpha: 0
  generateCubemap: 6
  cubemapConvolution: 0
  seamlessCubemap: 0
  textureFormat: 1
  maxTextureSize: 2048
  textureSettings:
    serializedVersion: 2
    filterMode: 1
    aniso: 1
    mipBias: 0
    wrapU: 0
    wrapV: 0
    wrapW: 0
  nPOTScale: 1
  lightmap: 0
  compressionQuality: 50
  spriteMode: 0
  spriteExtrude: 1
  spriteMeshType: 1
  alignment: 0
  spritePivot: {{x: 0.5, y: 0.5}}
  spritePixelsToUnits: 100
  spriteBorder: {{x: 0, y: 0, z: 0, w: 0}}
  spriteGenerateFallbackPhysicsShape: 1
  alphaUsage: {alpha_usage}
  alphaIsTransparency: 0
  spriteTessellationDetail: -1
  textureType: {texture_type}
  textureShape: {shape}
  singleChannelComponent: 0
  flipbookRows: {rows}
  flipbookColumns: {cols}
  maxTextureSizeSet: 0
  compressionQualitySet: 0
  textureFormatSet: 0
  ignorePngGamma: 0
  applyGammaDecoding: 0
  swizzle: 50462976
  cookieLightType: 0
  platformSettings:
{entries}  spriteSheet:
    serializedVersion: 2
    sprites: []
    outline: []
    physicsShape: []
    bones: []
    spriteID: 
    internalID: 0
    vertices: []
    indices: 
    edges: []
    weights: []
    secondaryTextures: []
    nameFileIdTable: {{}}
  mipmapLimitGroupName: 
  pSDRemoveMatte: 0
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""


UNITY_54 = """fileFormatVersion: 2
guid: 0b4fcb8b2e4f0c04a9bd7e0a1f2f6d8e
timeCreated: 1474000000
licenseType: Free
TextureImporter:
  fileIDToRecycleName: {}
  serializedVersion: 2
  mipmaps:
    mipMapMode: 0
    enableMipMap: 1
    linearTexture: 0
    correctGamma: 0
    fadeOut: 0
    borderMipMap: 0
    mipMapFadeDistanceStart: 1
    mipMapFadeDistanceEnd: 3
  bumpmap:
    convertToNormalMap: 0
    externalNormalMap: 0
    heightScale: 0.25
    normalMapFilter: 0
  isReadable: 0
  grayScaleToAlpha: 0
  generateCubemap: 0
  cubemapConvolution: 0
  seamlessCubemap: 0
  textureFormat: 12
  maxTextureSize: 1024
  textureSettings:
    filterMode: -1
    aniso: -1
    mipBias: -1
    wrapMode: -1
  nPOTScale: 1
  lightmap: 0
  rGBM: 0
  compressionQuality: 50
  allowsAlphaSplitting: 0
  spriteMode: 0
  alphaIsTransparency: 0
  spriteTessellationDetail: -1
  textureType: -1
  buildTargetSettings:
  - buildTarget: Android
    maxTextureSize: 512
    textureFormat: 47
    compressionQuality: 50
    allowsAlphaSplitting: 0
  spriteSheet:
    serializedVersion: 2
    sprites: []
  spritePackingTag: 
  userData: 
  assetBundleName: 
  assetBundleVariant: 
"""


def un(**kw) -> EngineImport:
    out = unity.parse_unity_meta(unity_text(**kw), "rock.png.meta", "tex/rock.png.meta")
    assert isinstance(out, EngineImport), out
    return out


def test_unity_template_parses_every_key() -> None:
    e = un(texture_type=1, shape=1, mip=0, srgb=0, alpha_usage=2, ignore_limit=1,
           platforms=(("Standalone", 1024, 25, 2, 1), ("Android", 512, 47, 1, 0)))
    assert (e.engine, e.importer, e.texture_type, e.texture_shape, e.mipmaps, e.srgb) == ("unity", "TextureImporter", 1, 1, False, False)
    assert (e.alpha_source, e.alpha_is_transparency, e.ignore_mipmap_limit, e.max_size) == (2, False, True, 2048)
    assert e.texture_format is None  # the legacy top-level value is not used next to platformSettings
    assert e.platforms == (
        UnityPlatform("DefaultTexturePlatform", 2048, -1, 1, False),
        UnityPlatform("Standalone", 1024, 25, 2, True),
        UnityPlatform("Android", 512, 47, 1, False),
    )
    assert e.findings == ()


@pytest.mark.parametrize("comp,fx,fmt,bpb", [
    (1, {}, "BC1_RGB_SRGB", 8), (1, {"alpha": True}, "BC3_SRGB", 16), (3, {}, "BC1_RGB_SRGB", 8),
    (3, {"alpha": True}, "BC3_SRGB", 16), (2, {}, "BC7_SRGB", 16), (2, {"alpha": True}, "BC7_SRGB", 16),
    (0, {}, "R8G8B8A8_SRGB", 4), (0, {"alpha": True}, "R8G8B8A8_SRGB", 4),
])
def test_unity_automatic_standalone(comp: int, fx: dict, fmt: str, bpb: int) -> None:
    plan = decide(facts(**fx), DESKTOP, engine=un(comp=comp))
    assert plan.gpu_format == fmt
    assert price(plan).gpu_bytes == (chain(4, (1, 1), 1024, 1024) if bpb == 4 else chain(bpb, (4, 4), 1024, 1024))
    words = UNITY_COMPRESSION[comp]
    assert plan.decided_by == f"Unity .meta (Default): Automatic, {words}, {'RGBA' if fx else 'RGB'} → {fmt}"


@pytest.mark.parametrize("texture_type,comp,role,fmt", [
    (1, 1, "normal", "BC3_UNORM"), (1, 3, "normal", "BC3_UNORM"), (1, 2, "normal", "BC5_UNORM"),
    (1, 0, "normal", "R8G8B8A8_UNORM"), (10, 1, "single", "BC4_UNORM"), (10, 2, "single", "BC4_UNORM"),
    (10, 0, "single", "R8_UNORM"), (8, 1, "ui", "BC1_RGB_SRGB"), (2, 0, "ui", "R8G8B8A8_SRGB"),
    (7, 1, "ui", "BC1_RGB_SRGB"), (0, 1, "albedo", "BC1_RGB_SRGB"),
])
def test_unity_texture_types(texture_type: int, comp: int, role: str, fmt: str) -> None:
    plan = decide(facts(), DESKTOP, engine=un(texture_type=texture_type, comp=comp, srgb=0 if texture_type in (1, 10) else 1))
    assert (plan.role, plan.gpu_format) == (role, fmt)
    if texture_type in _UNITY_TYPES:
        assert plan.decided_by.startswith("Unity .meta (Default): Automatic")


def test_unity_ui_roles_keep_the_engine_mips() -> None:
    sprite = decide(facts(alpha=True), PolicySettings(quality="low"), engine=un(texture_type=8, mip=0))
    assert (sprite.role, sprite.levels, sprite.tier_drop, sprite.gpu_format) == ("ui", 1, 0, "BC3_SRGB")


@pytest.mark.parametrize("comp,fx,fmt", [
    (1, {"container": "exr", "hdr": True, "bit_depth": 16}, "BC6H_UFLOAT"),
    (2, {"container": "exr", "hdr": True, "bit_depth": 16}, "BC6H_UFLOAT"),
    (0, {"container": "exr", "hdr": True, "bit_depth": 16}, "R16G16B16A16_SFLOAT"),
])
def test_unity_hdr(comp: int, fx: dict, fmt: str) -> None:
    assert decide(facts("env/sky.exr", **fx), DESKTOP, engine=un(comp=comp, srgb=0)).gpu_format == fmt


@pytest.mark.parametrize("comp,texture_type,fx,fmt", [
    (1, 0, {}, "ASTC_6x6_SRGB"), (2, 0, {}, "ASTC_4x4_SRGB"), (3, 0, {}, "ASTC_8x8_SRGB"),
    (0, 0, {}, "R8G8B8A8_SRGB"), (1, 0, {"alpha": True}, "ASTC_6x6_SRGB"), (1, 1, {}, "ASTC_6x6_UNORM"),
    (1, 10, {}, "EAC_R11_UNORM"), (1, 0, {"container": "exr", "hdr": True}, "ASTC_6x6_SFLOAT"),
    (2, 0, {"container": "exr", "hdr": True}, "ASTC_4x4_SFLOAT"),
])
def test_unity_automatic_android_astc(comp: int, texture_type: int, fx: dict, fmt: str) -> None:
    plan = decide(facts(**fx), MOBILE, engine=un(comp=comp, texture_type=texture_type))
    assert plan.gpu_format == fmt
    assert plan.width == 1024  # the engine's Max Size 2048 applies, not the profile's


@pytest.mark.parametrize("texture_type,fx,fmt", [
    (0, {}, "ETC2_R8G8B8_SRGB"), (0, {"alpha": True}, "ETC2_R8G8B8A8_SRGB"), (1, {}, "ETC2_R8G8B8_UNORM"),
    (10, {}, "EAC_R11_UNORM"), (0, {"container": "exr", "hdr": True}, "R16G16B16A16_SFLOAT"),
])
def test_unity_automatic_android_etc2(texture_type: int, fx: dict, fmt: str) -> None:
    settings = PolicySettings(platform="mobile-etc2")
    assert decide(facts(**fx), settings, engine=un(texture_type=texture_type)).gpu_format == fmt


@pytest.mark.parametrize("code", sorted(UNITY_FORMATS))
def test_unity_every_texture_format_number(code: int) -> None:
    e = un(srgb=0, platforms=(("Standalone", 2048, code, 1, 1),))
    plan = decide(facts(w=256, h=256), DESKTOP, engine=e)
    name, unity_name = UNITY_FORMATS[code]
    assert plan.gpu_format == name
    assert plan.decided_by.endswith(f"Unity .meta (Standalone override): format {unity_name} → {name}")
    assert price(plan).gpu_bytes > 0 and price(plan).mips[0].width == 256


@pytest.mark.parametrize("code,fmt", [(10, "BC1_RGB_SRGB"), (12, "BC3_SRGB"), (25, "BC7_SRGB"), (26, "BC4_UNORM"),
                                      (4, "R8G8B8A8_SRGB"), (48, "ASTC_4x4_SRGB"), (47, "ETC2_R8G8B8A8_SRGB")])
def test_unity_explicit_format_follows_srgb(code: int, fmt: str) -> None:
    e = un(srgb=1, platforms=(("Standalone", 2048, code, 1, 1), ("Android", 2048, code, 1, 1)))
    assert decide(facts(), DESKTOP, engine=e).gpu_format == fmt
    assert decide(facts(), MOBILE, engine=e).gpu_format == fmt


def test_unity_override_selection() -> None:
    e = un(platforms=(("Standalone", 1024, 25, 2, 1), ("Android", 512, 47, 1, 0), ("iOS", 256, 50, 1, 1)))
    d = decide(facts(w=2048, h=2048), DESKTOP, engine=e)
    assert (d.gpu_format, d.width, d.max_size) == ("BC7_SRGB", 1024, 1024)
    assert d.decided_by == "Unity .meta (Standalone override): format BC7 → BC7_SRGB, Max Size 1024"
    a = decide(facts(w=2048, h=2048), MOBILE, engine=e)  # Android not overridden → Default entry
    assert (a.gpu_format, a.width) == ("ASTC_6x6_SRGB", 2048)
    assert "Unity .meta (Default)" in a.decided_by
    ios = decide(facts(w=2048, h=2048), PolicySettings(platform="mobile-astc", unity_build_target="iPhone"), engine=e)
    assert (ios.gpu_format, ios.width) == ("ASTC_6x6_SRGB", 256)
    assert "(iOS override): format ASTC_6x6" in ios.decided_by


@pytest.mark.parametrize("w,h,max_size,out", [
    (4096, 2048, 2048, (2048, 1024)), (3000, 1500, 2048, (2048, 1024)), (1500, 3000, 1024, (512, 1024)),
    (1000, 600, 512, (512, 307)), (512, 512, 2048, (512, 512)),
])
def test_unity_max_texture_size(w: int, h: int, max_size: int, out: tuple[int, int]) -> None:
    plan = decide(facts(w=w, h=h), DESKTOP, engine=un(max_size=max_size))
    assert (plan.width, plan.height) == out
    assert price(plan).gpu_bytes == chain(8, (4, 4), *out)


def test_unity_mipmaps_srgb_alpha_usage() -> None:
    assert decide(facts(), DESKTOP, engine=un(mip=0)).levels == 1
    assert decide(facts(), DESKTOP, engine=un(mip=1)).levels == 11
    assert decide(facts("t/rock_albedo.png"), DESKTOP, engine=un(srgb=0)).gpu_format == "BC1_RGB_UNORM"
    assert decide(facts("t/rock_orm.png"), DESKTOP, engine=un(srgb=1)).gpu_format == "BC1_RGB_SRGB"
    assert decide(facts(alpha=True), DESKTOP, engine=un(alpha_usage=0)).gpu_format == "BC1_RGB_SRGB"
    assert decide(facts(alpha=True), DESKTOP, engine=un(alpha_usage=1)).gpu_format == "BC3_SRGB"
    assert decide(facts(), DESKTOP, engine=un(alpha_usage=2)).gpu_format == "BC3_SRGB"


def test_unity_ignore_mipmap_limit_from_file() -> None:
    plan = decide(facts(), PolicySettings(quality="low"), engine=un(ignore_limit=1))
    assert plan.tier_drop == 0
    assert decide(facts(), PolicySettings(quality="low"), engine=un(ignore_limit=0)).tier_drop == 3


@pytest.mark.parametrize("w,h,face,layout", [
    (1536, 256, 256, "6x1 strip"), (256, 1536, 256, "1x6 strip"), (1024, 768, 256, "4x3 cross"),
    (768, 1024, 256, "3x4 cross"), (2048, 1024, 512, "panorama; face size estimated as width/4"),
])
def test_unity_cubemap_shapes(w: int, h: int, face: int, layout: str) -> None:
    plan = decide(facts("env/sky.png", w, h), DESKTOP, engine=un(shape=2))
    assert (plan.width, plan.height, plan.faces) == (face, face, 6)
    assert f"Unity cubemap ({layout}): faces {face}x{face}" in plan.decided_by
    assert price(plan).gpu_bytes == 6 * chain(8, (4, 4), face, face)


def test_unity_2d_array_and_3d_flipbooks() -> None:
    arr = decide(facts("t/flip.png", 1024, 1024), DESKTOP, engine=un(shape=4, rows=4, cols=4))
    assert (arr.width, arr.layers, arr.depth) == (256, 16, 1)
    assert price(arr).gpu_bytes == 16 * chain(8, (4, 4), 256, 256)
    vol = decide(facts("t/vol.png", 1024, 1024), DESKTOP, engine=un(shape=8, rows=4, cols=4, comp=0))
    assert (vol.width, vol.depth, vol.layers) == (256, 16, 1)
    assert price(vol).gpu_bytes == chain(4, (1, 1), 256, 256, 16)


def test_unity_bad_values_are_tb012() -> None:
    text = unity_text(texture_type=42, shape=3, platforms=(("Standalone", 2048, 99, 7, 1),))
    e = unity.parse_unity_meta(text, "a.png.meta", "t/a.png.meta")
    assert isinstance(e, EngineImport)
    assert [f.code for f in e.findings] == ["TB012"] * 4
    assert [f.message for f in e.findings] == [
        "TextureImporter textureType: 42 is not understood; allowed: 0 Default, 1 Normal map, 2 Editor GUI, 7 Cursor, 8 Sprite, 10 Single Channel, …",
        "TextureImporter textureShape: 3 is not understood; allowed: 1 2D, 2 Cube, 4 2D Array, 8 3D",
        "platformSettings Standalone textureFormat: 99 is not a TextureImporterFormat texbudget knows; read as Automatic",
        "platformSettings Standalone textureCompression: 7 is not understood; allowed: 0, 1, 2, 3",
    ]
    plan = decide(facts(), DESKTOP, engine=e)
    assert plan.gpu_format == "BC1_RGB_SRGB"  # Automatic, Normal Quality (the default entry's compression is not used: the override applies)


def test_unity_legacy_54_meta() -> None:
    e = unity.parse_unity_meta(UNITY_54, "rock.png.meta", "rock.png.meta")
    assert isinstance(e, EngineImport)
    assert (e.texture_format, e.max_size, e.srgb, e.mipmaps) == (12, 1024, True, True)
    assert e.platforms == (UnityPlatform("Android", 512, 47, None, True),)
    d = decide(facts(w=2048, h=2048), DESKTOP, engine=e)
    assert (d.gpu_format, d.width) == ("BC3_SRGB", 1024)
    assert d.decided_by == "Unity .meta (TextureImporter): format DXT5 → BC3_SRGB, Max Size 1024"
    m = decide(facts(w=2048, h=2048), MOBILE, engine=e)
    assert (m.gpu_format, m.width) == ("ETC2_R8G8B8A8_SRGB", 512)


def test_unity_list_items_indented_further() -> None:
    text = unity_text().replace("  - serializedVersion: 4\n", "    - serializedVersion: 4\n")
    lines = []
    in_list = False
    for line in text.splitlines():
        if line == "  platformSettings:":
            in_list = True
        elif line.startswith("  spriteSheet"):
            in_list = False
        elif in_list and line.startswith("    ") and not line.startswith("    - "):
            line = "  " + line
        lines.append(line)
    e = unity.parse_unity_meta("\n".join(lines) + "\n", "a.meta", "a.meta")
    assert isinstance(e, EngineImport)
    assert e.platforms == (UnityPlatform("DefaultTexturePlatform", 2048, -1, 1, False),)


def test_unity_parser_stops_at_the_sprite_sheet() -> None:
    sprites = "".join(f"    - name: s{i}\n      rect:\n        x: {i}\n        y: 0\n" for i in range(20000))
    text = unity_text(mip=0).replace("    sprites: []\n", "    sprites:\n" + sprites)
    importer, top, entries = unity.parse_meta(text)
    assert importer == "TextureImporter" and len(entries) == 1
    assert "spriteSheet.serializedVersion" not in top


def test_unity_other_importers() -> None:
    ihv = unity.parse_unity_meta("fileFormatVersion: 2\nguid: ab\nIHVImageFormatImporter:\n  externalObjects: {}\n"
                                 "  serializedVersion: 1\n  isReadable: 0\n  sRGBTexture: 1\n  ignoreMipmapLimit: 1\n"
                                 "  userData: \n", "a.dds.meta", "a.dds.meta")
    assert isinstance(ihv, EngineImport) and (ihv.importer, ihv.ignore_mipmap_limit) == ("IHVImageFormatImporter", True)
    dds = facts("t/a.dds", 256, 256, container="dds", stored_format="BC7_SRGB", stored_levels=9)
    plan = decide(dds, PolicySettings(quality="high"), engine=ihv)
    assert (plan.gpu_format, plan.tier_drop) == ("BC7_SRGB", 0)
    other = unity.parse_unity_meta("fileFormatVersion: 2\nguid: ab\nDefaultImporter:\n  externalObjects: {}\n",
                                   "a.psd.meta", "t/a.psd.meta")
    assert isinstance(other, Finding) and other.code == "TB011"
    assert other.message == "Unity importer DefaultImporter is not a TextureImporter; the platform profile decides"
    junk = unity.parse_unity_meta("hello: world\n", "a.meta", "t/a.meta")
    assert isinstance(junk, Finding) and junk.code == "TB010"


# --- read_engine_import (I/O) ------------------------------------------------------------


def test_read_engine_import_finds_sidecars(tmp_path: Path) -> None:
    (tmp_path / "tex").mkdir()
    png = tmp_path / "tex" / "rock.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    assert read_engine_import(png) is None
    (tmp_path / "tex" / "rock.png.meta").write_text(unity_text(comp=2))
    meta = read_engine_import(png, "tex/rock.png")
    assert isinstance(meta, EngineImport) and (meta.engine, meta.source) == ("unity", "rock.png.meta")
    (tmp_path / "tex" / "rock.png.import").write_text(godot_text(compress__mode="2"))
    imp = read_engine_import(png, "tex/rock.png")
    assert isinstance(imp, EngineImport) and (imp.engine, imp.source, imp.compress_mode) == ("godot", "rock.png.import", 2)
    (tmp_path / "tex" / "rock.png.import").write_text("not an import file")
    bad = read_engine_import(png, "tex/rock.png")
    assert isinstance(bad, Finding) and (bad.code, bad.path) == ("TB010", "tex/rock.png.import")
    (tmp_path / "tex" / "b.png.meta").write_bytes(b"\x00\x01binary")
    binary = read_engine_import(tmp_path / "tex" / "b.png")
    assert isinstance(binary, Finding) and binary.code == "TB010"
    assert binary.path == (tmp_path / "tex" / "b.png.meta").as_posix()


def test_sidecars_with_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    png = tmp_path / "rock.png"
    png.write_bytes(b"")
    (tmp_path / "rock.png.import").write_bytes(b"\xef\xbb\xbf" + godot_text(compress__mode="2").encode())
    imp = read_engine_import(png, "rock.png")
    assert isinstance(imp, EngineImport) and (imp.engine, imp.compress_mode) == ("godot", 2)
    (tmp_path / "rock.png.import").unlink()
    (tmp_path / "rock.png.meta").write_bytes(b"\xef\xbb\xbf" + unity_text(comp=2).encode())
    meta = read_engine_import(png, "rock.png")
    assert isinstance(meta, EngineImport) and meta == read_engine_import_text(unity_text(comp=2))


def read_engine_import_text(text: str) -> EngineImport | Finding | None:
    return unity.parse_unity_meta(text, "rock.png.meta", "rock.png")


def test_read_engine_import_end_to_end(tmp_path: Path) -> None:
    png = tmp_path / "rock_n.png"
    png.write_bytes(b"")
    (tmp_path / "rock_n.png.import").write_text(godot_text("rock_n.png", compress__mode="2", compress__normal_map="1",
                                                           mipmaps__generate="true"))
    engine = read_engine_import(png, "rock_n.png")
    assert isinstance(engine, EngineImport)
    plan = decide(facts("rock_n.png", 2048, 2048), DESKTOP, engine=engine)
    assert (plan.gpu_format, plan.levels, plan.decided_by) == (
        "BC5_UNORM", 12, "Godot .import: VRAM compressed, normal map → BC5_UNORM")
    assert price(plan).gpu_bytes == 5592432  # spec/textures.md §7 #8


def test_engine_findings_use_table_codes() -> None:
    e = gd(compress__mode="9")
    (f,) = e.findings
    assert f == findings.make("tex/rock.png.import", "TB012", f.message)
    assert evolve(e, findings=()).findings == ()
