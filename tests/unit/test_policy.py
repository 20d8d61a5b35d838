"""texbudget.policy: profiles × roles, role inference order, rules, tiers, caps, Basis targets,
stored formats, and the `uncompressed` reference against glTF-Transform's gpuSize formula."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from texbudget.config import parse_rules
from texbudget.engine import EngineImport
from texbudget.errors import ConfigError, UsageError
from texbudget.model import TextureFacts, evolve
from texbudget.policy.decision import _facts_key, decide, decide_all, price
from texbudget.policy.naming import NAME_SUFFIXES, UI_FOLDERS, _role_from_folded, role_from_name
from texbudget.policy.profiles import ROLES, PolicySettings, load_platforms

DOCS = Path(__file__).resolve().parents[2] / "docs" / "policy.md"


def facts(path: str = "tex/rock.png", w: int = 256, h: int = 256, **kw) -> TextureFacts:
    kw.setdefault("container", "png")
    kw.setdefault("channels", 4 if kw.get("alpha") else 3)
    return TextureFacts(path=path, width=w, height=h, **kw)


def gltf_transform_gpu_size(w: int, h: int) -> int:
    """glTF-Transform ImageUtils.getVRAMByteLength for PNG/JPEG/WebP, re-implemented from
    spec/peers.md §1.2: while either side > 1 add w*h*4 and halve with floor (min 1), then
    add 4 bytes for the 1x1 level."""
    total = 0
    while w > 1 or h > 1:
        total += w * h * 4
        w = max(1, w // 2)
        h = max(1, h // 2)
    return total + 4


def block_chain(bytes_per_block: int, block: tuple[int, int], w: int, h: int, first: int = 0) -> int:
    """Independent full-chain size of a block format (ceil to whole blocks, 1-block minimum)."""
    total, level = 0, 0
    while True:
        if level >= first:
            total += -(-w // block[0]) * -(-h // block[1]) * bytes_per_block
        if w == 1 and h == 1:
            return total
        w, h, level = max(1, w // 2), max(1, h // 2), level + 1


# --- profiles × roles -------------------------------------------------------------------

#: (profile, role) -> (format without alpha, format with alpha, mips?) — docs/policy.md §2.
EXPECTED = {
    "desktop": {
        "albedo": ("BC1_RGB_SRGB", "BC3_SRGB", True), "emissive": ("BC1_RGB_SRGB", "BC3_SRGB", True),
        "normal": ("BC5_UNORM", "BC5_UNORM", True), "mask": ("BC1_RGB_UNORM", "BC3_UNORM", True),
        "single": ("BC4_UNORM", "BC4_UNORM", True), "height": ("BC4_UNORM", "BC4_UNORM", True),
        "hdr": ("BC6H_UFLOAT", "BC6H_UFLOAT", True), "ui": ("R8G8B8A8_SRGB", "R8G8B8A8_SRGB", False),
    },
    "desktop-bc7": {
        "albedo": ("BC7_SRGB", "BC7_SRGB", True), "emissive": ("BC7_SRGB", "BC7_SRGB", True),
        "normal": ("BC5_UNORM", "BC5_UNORM", True), "mask": ("BC7_UNORM", "BC7_UNORM", True),
        "single": ("BC4_UNORM", "BC4_UNORM", True), "height": ("BC4_UNORM", "BC4_UNORM", True),
        "hdr": ("BC6H_UFLOAT", "BC6H_UFLOAT", True), "ui": ("R8G8B8A8_SRGB", "R8G8B8A8_SRGB", False),
    },
    "mobile-astc": {
        "albedo": ("ASTC_6x6_SRGB", "ASTC_6x6_SRGB", True), "emissive": ("ASTC_6x6_SRGB", "ASTC_6x6_SRGB", True),
        "normal": ("ASTC_4x4_UNORM", "ASTC_4x4_UNORM", True), "mask": ("ASTC_8x8_UNORM", "ASTC_8x8_UNORM", True),
        "single": ("ASTC_8x8_UNORM", "ASTC_8x8_UNORM", True), "height": ("ASTC_8x8_UNORM", "ASTC_8x8_UNORM", True),
        "hdr": ("ASTC_4x4_SFLOAT", "ASTC_4x4_SFLOAT", True), "ui": ("ASTC_4x4_SRGB", "ASTC_4x4_SRGB", False),
    },
    "mobile-etc2": {
        "albedo": ("ETC2_R8G8B8_SRGB", "ETC2_R8G8B8A8_SRGB", True),
        "emissive": ("ETC2_R8G8B8_SRGB", "ETC2_R8G8B8A8_SRGB", True),
        "normal": ("EAC_R11G11_UNORM", "EAC_R11G11_UNORM", True),
        "mask": ("ETC2_R8G8B8_UNORM", "ETC2_R8G8B8A8_UNORM", True),
        "single": ("EAC_R11_UNORM", "EAC_R11_UNORM", True), "height": ("EAC_R11_UNORM", "EAC_R11_UNORM", True),
        "hdr": ("R16G16B16A16_SFLOAT", "R16G16B16A16_SFLOAT", True),
        "ui": ("ETC2_R8G8B8_SRGB", "ETC2_R8G8B8A8_SRGB", False),
    },
    "uncompressed": {
        "albedo": ("R8G8B8A8_SRGB", "R8G8B8A8_SRGB", True), "emissive": ("R8G8B8A8_SRGB", "R8G8B8A8_SRGB", True),
        "normal": ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM", True), "mask": ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM", True),
        "single": ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM", True), "height": ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM", True),
        "hdr": ("R16G16B16A16_SFLOAT", "R16G16B16A16_SFLOAT", True), "ui": ("R8G8B8A8_SRGB", "R8G8B8A8_SRGB", True),
    },
}

#: Role -> a file name that gives that role by convention (and an HDR container for hdr).
ROLE_FILES = {
    "albedo": "rock_albedo.png", "emissive": "lamp_emissive.png", "normal": "rock_normal.png",
    "mask": "rock_orm.png", "single": "rock_roughness.png", "height": "rock_height.png",
    "hdr": "sky.exr", "ui": "ui/button.png",
}


def test_profiles_load_in_file_order() -> None:
    assert list(load_platforms()) == ["desktop", "desktop-bc7", "mobile-astc", "mobile-etc2", "uncompressed"]


def test_expected_table_covers_every_profile_and_role() -> None:
    assert set(EXPECTED) == set(load_platforms())
    for table in EXPECTED.values():
        assert set(table) == set(ROLES)


@pytest.mark.parametrize("profile", list(EXPECTED))
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("alpha", [False, True])
def test_profile_role_format(profile: str, role: str, alpha: bool) -> None:
    name = ROLE_FILES[role]
    f = facts(f"tex/{name}", 512, 512, alpha=alpha, hdr=role == "hdr",
              container="exr" if role == "hdr" else "png", bit_depth=16 if role == "hdr" else 8)
    plan = decide(f, PolicySettings(platform=profile))
    opaque, with_alpha, mips = EXPECTED[profile][role]
    assert plan.role == role
    assert plan.gpu_format == (with_alpha if alpha else opaque)
    assert plan.mips == ("generated" if mips else "none")
    assert plan.levels == (10 if mips else 1)
    assert plan.width == plan.height == 512  # no cap at 512 on any profile


@pytest.mark.parametrize("profile", list(EXPECTED))
def test_docs_table_matches_profiles(profile: str) -> None:
    """docs/policy.md §2 names every profile format the data holds."""
    text = DOCS.read_text()
    p = load_platforms()[profile]
    for table in (p.formats, p.formats_alpha, p.transcode):
        for fmt in table.values():
            short = fmt.removesuffix("_UNORM").removesuffix("_SRGB")
            assert fmt in text or short in text, fmt


def test_docs_list_every_name_token() -> None:
    text = DOCS.read_text()
    for token in NAME_SUFFIXES:
        assert f"`{token}`" in text, token
    for folder in UI_FOLDERS:
        assert f"`{folder}/`" in text, folder


def test_profile_bytes_desktop_vs_mobile_1024_albedo() -> None:
    f = facts("a_albedo.png", 1024, 1024)
    assert price(decide(f, PolicySettings())).gpu_bytes == block_chain(8, (4, 4), 1024, 1024) == 699064
    assert price(decide(f, PolicySettings(platform="desktop-bc7"))).gpu_bytes == 1398128
    assert price(decide(f, PolicySettings(platform="mobile-astc"))).gpu_bytes == block_chain(16, (6, 6), 1024, 1024)


def test_high_quality_switch_uses_bc7_for_colour_and_masks_only() -> None:
    hq = PolicySettings(high_quality=True)
    assert decide(facts("a_albedo.png"), hq).gpu_format == "BC7_SRGB"
    assert decide(facts("a_albedo.png", alpha=True), hq).gpu_format == "BC7_SRGB"
    assert decide(facts("a_emissive.png"), hq).gpu_format == "BC7_SRGB"
    assert decide(facts("a_orm.png"), hq).gpu_format == "BC7_UNORM"
    assert decide(facts("a_normal.png"), hq).gpu_format == "BC5_UNORM"
    assert decide(facts("a_ao.png"), hq).gpu_format == "BC4_UNORM"
    plan = decide(facts("a_albedo.png"), hq)
    assert plan.decided_by == "name '_albedo' → albedo → BC7_SRGB (desktop high quality)"
    astc = PolicySettings(platform="mobile-astc", high_quality=True)
    assert decide(facts("a_albedo.png"), astc).gpu_format == "ASTC_4x4_SRGB"
    assert decide(facts("a_orm.png"), astc).gpu_format == "ASTC_6x6_UNORM"


def test_mobile_profiles_cap_every_role_at_2048() -> None:
    f = facts("big_albedo.png", 4096, 2048)
    plan = decide(f, PolicySettings(platform="mobile-astc"))
    assert (plan.width, plan.height, plan.levels, plan.max_size) == (2048, 1024, 12, 2048)
    assert plan.decided_by.endswith("; mobile-astc max_size 2048")
    assert price(plan).gpu_bytes == block_chain(16, (6, 6), 2048, 1024)
    etc = decide(f, PolicySettings(platform="mobile-etc2"))
    assert (etc.width, etc.height) == (2048, 1024)
    desktop = decide(f, PolicySettings())
    assert (desktop.width, desktop.height, desktop.max_size) == (4096, 2048, None)


def test_hdr_source_takes_hdr_format_but_keeps_role_label() -> None:
    f = facts("env/sky_emissive.exr", 1024, 512, container="exr", hdr=True, bit_depth=16, alpha=True, channels=4)
    plan = decide(f, PolicySettings())
    assert (plan.role, plan.gpu_format) == ("emissive", "BC6H_UFLOAT")
    assert plan.decided_by == "name '_emissive' → emissive, HDR data → BC6H_UFLOAT (desktop)"
    assert decide(f, PolicySettings(platform="mobile-etc2")).gpu_format == "R16G16B16A16_SFLOAT"


# --- the uncompressed reference = glTF-Transform inspect ---------------------------------


def test_uncompressed_anchor_256_png_is_349524() -> None:
    plan = decide(facts("tex/any.png", 256, 256, alpha=True), PolicySettings(platform="uncompressed"))
    assert price(plan).gpu_bytes == 349524 == 4 * 87381 == gltf_transform_gpu_size(256, 256)


@pytest.mark.parametrize("w,h", [(256, 64), (300, 200), (1000, 600), (257, 129), (1, 1), (4096, 1), (640, 480)])
def test_uncompressed_matches_gltf_transform_loop(w: int, h: int) -> None:
    for channels, alpha in ((3, False), (4, True), (1, False)):
        f = facts("tex/x.jpg", w, h, container="jpeg", channels=channels, alpha=alpha)
        assert price(decide(f, PolicySettings(platform="uncompressed"))).gpu_bytes == gltf_transform_gpu_size(w, h)


def test_uncompressed_ignores_rules_engine_and_role() -> None:
    rules = parse_rules([{"match": "*.png", "format": "BC1", "max_size": 16, "mips": False, "ignore": True}], "texbudget.toml")
    engine = EngineImport(engine="godot", source="n.png.import", importer="texture", compress_mode=2, normal_map=1)
    f = facts("tex/wall_normal.png", 256, 256)
    plan = decide(f, PolicySettings(platform="uncompressed"), rules, engine, ["normalTexture"])
    assert (plan.gpu_format, plan.levels, plan.ignored, plan.role) == ("R8G8B8A8_UNORM", 9, False, "normal")
    assert price(plan).gpu_bytes == 349524
    assert "rules and engine settings ignored" in plan.decided_by


def test_uncompressed_non_square_and_npot_exact() -> None:
    assert gltf_transform_gpu_size(256, 64) == 4 * (256 * 64 + 128 * 32 + 64 * 16 + 32 * 8 + 16 * 4 + 8 * 2 + 4 * 1 + 2 * 1 + 1)
    f = facts("a.png", 256, 64)
    assert price(decide(f, PolicySettings(platform="uncompressed"))).gpu_bytes == 87388 == 4 * 21847
    npot = facts("a.png", 300, 200)
    # 300x200, 150x100, 75x50, 37x25, 18x12, 9x6, 4x3, 2x1, 1x1
    assert price(decide(npot, PolicySettings(platform="uncompressed"))).gpu_bytes == 4 * (
        60000 + 15000 + 3750 + 925 + 216 + 54 + 12 + 2 + 1)


# --- roles: order of strength ------------------------------------------------------------


def test_role_order_rule_beats_engine_beats_slot_beats_name_beats_header() -> None:
    f = facts("tex/rock_orm.png")
    s = PolicySettings()
    rule = parse_rules([{"match": "*.png", "role": "height"}], "texbudget.toml")
    unity = EngineImport(engine="unity", source="rock_orm.png.meta", importer="TextureImporter", texture_type=1)
    assert decide(f, s, rule, unity, ["baseColorTexture"]).role == "height"
    assert decide(f, s, (), unity, ["baseColorTexture"]).role == "normal"
    assert decide(f, s, (), None, ["baseColorTexture"]).role == "albedo"
    assert decide(f, s).role == "mask"
    assert decide(facts("tex/rock.png"), s).role == "albedo"
    plan = decide(f, s, rule)
    assert plan.decided_by == "rule 1 in texbudget.toml: role height → height → BC4_UNORM (desktop)"


@pytest.mark.parametrize("name,role,shown", [
    ("T_Rock_D.tga", "albedo", "_d"), ("rock-Normal.png", "normal", "-normal"),
    ("Rock_ORM.png", "mask", "_orm"), ("wall_Roughness_2k.jpg", "single", "_roughness"),
    ("aerial_rocks_nor_gl_4k.png", "normal", "_nor"), ("cliff_disp_4k.png", "height", "_disp"),
    ("Brick_BaseColor.png", "albedo", "_basecolor"), ("brick_col_1024x1024.png", "albedo", "_col"),
    ("x_arm.png", "mask", "_arm"), ("x_rma.png", "mask", "_rma"), ("x_mask.png", "mask", "_mask"),
    ("x_metallic.png", "single", "_metallic"), ("x_metal.png", "single", "_metal"),
    ("x_ao.png", "single", "_ao"), ("x_occlusion.png", "single", "_occlusion"),
    ("x_rough.png", "single", "_rough"), ("x_height.png", "height", "_height"),
    ("x_emissive.png", "emissive", "_emissive"), ("x_emit.png", "emissive", "_emit"),
    ("x_diffuse.png", "albedo", "_diffuse"), ("x_color.png", "albedo", "_color"),
    ("x_nrm.png", "normal", "_nrm"), ("x_n.png", "normal", "_n"), ("x.albedo.png", "albedo", ".albedo"),
    ("Normal.png", "normal", "normal"), ("Rock_Normal_OpenGL.png", "normal", "_normal"),
])
def test_name_conventions(name: str, role: str, shown: str) -> None:
    plan = decide(facts(f"textures/rock/{name}"), PolicySettings())
    assert plan.role == role
    assert plan.decided_by.startswith(f"name '{shown}' → {role} → ")


@pytest.mark.parametrize("path", [
    "t/rock_0001_n.png", "t/rock_0412_albedo_2k.png", "t/1.png", "t/12.png", "t/0_n.png", "t/7_d.png",
    "t/rock_lod12_n.png", "t/rock_v3_orm.png", "t/rock_1024x1024.png", "t/rock_64px_d.png",
    "t/rock_12k.png", "t/a1b_n.png", "t/n1.png", "t/rock_n1.png", "t/rock_٣_n.png", "t/٣٣.png",
    "set_01/ui/x_0.png", "ui2/x_n.png", "hud9/x.png", "a/b.glb#image/12", "x/rock_2.5_n.png",
    "t/\udcff_9_n.png",  # a name that was not UTF-8 on disk (os.fsdecode's surrogate escape)
])
def test_role_from_name_is_the_same_with_digits_folded(path: str) -> None:
    # The cache key folds every ASCII digit to "0"; the answer must be the one the
    # unfolded name gives.
    assert role_from_name(path) == _role_from_folded.__wrapped__(path.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("path", ["ui/button.png", "Game/HUD/bar_n.png", "gui/x.png", "art/Icons/heart_albedo.png"])
def test_ui_folders_win_over_name_suffix(path: str) -> None:
    plan = decide(facts(path, alpha=True), PolicySettings())
    assert (plan.role, plan.gpu_format, plan.mips, plan.levels) == ("ui", "R8G8B8A8_SRGB", "none", 1)
    assert plan.decided_by.startswith("folder '")
    assert plan.decided_by.endswith("; no mips (ui)")
    assert price(plan).gpu_bytes == 256 * 256 * 4


@pytest.mark.parametrize("name", ["d.png", "rock_detail.png", "rock_2k.png", "rock.png", "n_rock.png"])
def test_names_without_a_convention_fall_to_the_header(name: str) -> None:
    plan = decide(facts(f"t/{name}"), PolicySettings())
    assert (plan.role, plan.decided_by) == ("albedo", "header: colour → albedo → BC1_RGB_SRGB (desktop)")


def test_header_roles() -> None:
    s = PolicySettings()
    assert decide(facts("t/x.png", channels=1, grey=True), s).decided_by == "header: one grey channel → single → BC4_UNORM (desktop)"
    assert decide(facts("t/x.png", alpha=True), s).decided_by == "header: colour with alpha → albedo → BC3_SRGB (desktop)"
    assert decide(facts("t/x.exr", container="exr", hdr=True), s).decided_by == "header: HDR → hdr → BC6H_UFLOAT (desktop)"
    grey_alpha = decide(facts("t/x.png", channels=2, grey=True, alpha=True), s)
    assert (grey_alpha.role, grey_alpha.gpu_format) == ("albedo", "BC3_SRGB")


@pytest.mark.parametrize("slots,role,fmt", [
    (["baseColorTexture"], "albedo", "BC1_RGB_SRGB"), (["baseColor"], "albedo", "BC1_RGB_SRGB"),
    (["normalTexture"], "normal", "BC5_UNORM"), (["normal"], "normal", "BC5_UNORM"),
    (["metallicRoughnessTexture"], "mask", "BC1_RGB_UNORM"), (["metallicRoughness"], "mask", "BC1_RGB_UNORM"),
    (["occlusionTexture"], "single", "BC4_UNORM"), (["occlusion"], "single", "BC4_UNORM"),
    (["emissiveTexture"], "emissive", "BC1_RGB_SRGB"), (["emissive"], "emissive", "BC1_RGB_SRGB"),
    (["occlusion", "metallicRoughness"], "mask", "BC1_RGB_UNORM"),
    (["emissive", "baseColor"], "albedo", "BC1_RGB_SRGB"),
    (["KHR_materials_clearcoat.clearcoatNormalTexture"], "normal", "BC5_UNORM"),
    (["KHR_materials_clearcoat.clearcoatTexture"], "single", "BC4_UNORM"),
    (["KHR_materials_volume.thicknessTexture"], "mask", "BC1_RGB_UNORM"),
    (["KHR_materials_transmission.transmissionTexture"], "single", "BC4_UNORM"),
    (["diffuseTexture"], "albedo", "BC1_RGB_SRGB"), (["specularGlossinessTexture"], "albedo", "BC1_RGB_SRGB"),  # sRGB specular colour (KHR_materials_pbrSpecularGlossiness)
])
def test_gltf_slots(slots: list[str], role: str, fmt: str) -> None:
    plan = decide(facts("level.glb#image/0", container="png"), PolicySettings(), slots=slots)
    assert (plan.role, plan.gpu_format) == (role, fmt)
    assert plan.decided_by.startswith("glTF slot ")


def test_unknown_slot_falls_through_to_name() -> None:
    plan = decide(facts("t/rock_n.png"), PolicySettings(), slots=["customSlot"])
    assert plan.role == "normal"


# --- tiers -------------------------------------------------------------------------------


@pytest.mark.parametrize("quality,drop", [("ultra", 0), ("high", 1), ("medium", 2), ("low", 3)])
def test_quality_tier_drops_top_mips(quality: str, drop: int) -> None:
    plan = decide(facts("t/a_albedo.png", 1024, 1024), PolicySettings(quality=quality))
    assert (plan.tier_drop, plan.levels, plan.width) == (drop, 11, 1024)
    cost = price(plan)
    assert cost.gpu_bytes == block_chain(8, (4, 4), 1024, 1024, first=drop)
    assert cost.mips[0].width == 1024 >> drop
    assert [m.level for m in cost.mips] == list(range(11 - drop))
    assert cost.gpu_bytes == {0: 699064, 1: 174776, 2: 43704, 3: 10936}[drop]


def test_tier_never_drops_the_last_level() -> None:
    plan = decide(facts("t/a_albedo.png", 4, 4), PolicySettings(quality="low"))
    assert (plan.levels, plan.tier_drop) == (3, 2)
    assert price(plan).gpu_bytes == 8  # the 1x1 level, one BC1 block
    one = decide(facts("t/a_albedo.png", 1, 1), PolicySettings(quality="low"))
    assert (one.levels, one.tier_drop) == (1, 0)


def test_tier_spares_ui_and_textures_without_mips() -> None:
    assert decide(facts("ui/a.png"), PolicySettings(quality="low")).tier_drop == 0
    rules = parse_rules([{"match": "*.png", "mips": False}], "t.toml")
    plan = decide(facts("t/a.png"), PolicySettings(quality="low"), rules)
    assert (plan.levels, plan.tier_drop) == (1, 0)


def test_tier_respects_unity_ignore_mipmap_limit() -> None:
    unity = EngineImport(engine="unity", source="a.png.meta", importer="TextureImporter", ignore_mipmap_limit=True)
    plan = decide(facts("t/a.png"), PolicySettings(quality="medium"), engine=unity)
    assert plan.tier_drop == 0
    assert plan.decided_by.endswith("; Unity .meta: ignores the mipmap limit")


# --- rules -------------------------------------------------------------------------------


def test_rule_precedence_later_overrides_key_by_key() -> None:
    rules = parse_rules([
        {"match": "**/*.png", "format": "BC7_SRGB", "max_size": 1024},
        {"match": "env/**", "max_size": 512},
        {"match": "nothing/**", "max_size": 64},
    ], "texbudget.toml")
    plan = decide(facts("env/sky_albedo.png", 2048, 2048), PolicySettings(), rules)
    assert (plan.gpu_format, plan.width, plan.max_size) == ("BC7_SRGB", 512, 512)
    assert plan.decided_by == ("name '_albedo' → albedo; rule 1 in texbudget.toml: format BC7_SRGB; "
                               "rule 2 in texbudget.toml: max_size 512")
    other = decide(facts("props/box_albedo.png", 2048, 2048), PolicySettings(), rules)
    assert (other.gpu_format, other.width) == ("BC7_SRGB", 1024)


def test_rule_ignore_then_unignore() -> None:
    rules = parse_rules([{"match": "wip/**", "ignore": True}, {"match": "wip/keep_*.png", "ignore": False}], "t.toml")
    gone = decide(facts("wip/junk.png"), PolicySettings(), rules)
    assert gone.ignored and gone.decided_by.startswith("rule 1 in t.toml: ignore; ")
    assert price(gone).gpu_bytes == 0 and price(gone).mips == ()
    assert not decide(facts("wip/keep_me.png"), PolicySettings(), rules).ignored


def test_rule_mips_and_role() -> None:
    rules = parse_rules([{"match": "decals/*.png", "mips": False, "role": "albedo"}], "t.toml")
    plan = decide(facts("decals/blood_n.png", 512, 512), PolicySettings(), rules)
    assert (plan.role, plan.mips, plan.levels, plan.gpu_format) == ("albedo", "none", 1, "BC1_RGB_SRGB")
    assert price(plan).gpu_bytes == 512 * 512 // 2
    assert plan.decided_by == ("rule 1 in t.toml: role albedo → albedo → BC1_RGB_SRGB (desktop); "
                               "rule 1 in t.toml: mips off")


def test_rule_format_alias_takes_role_colour_space() -> None:
    rules = parse_rules([{"match": "*_albedo.png", "format": "BC7"}, {"match": "*_orm.png", "format": "bc7"},
                         {"match": "*_exact.png", "format": "BC7_UNORM"}], "t.toml")
    assert decide(facts("t/a_albedo.png"), PolicySettings(), rules).gpu_format == "BC7_SRGB"
    assert decide(facts("t/a_orm.png"), PolicySettings(), rules).gpu_format == "BC7_UNORM"
    assert decide(facts("t/a_albedo_exact.png"), PolicySettings(), rules).gpu_format == "BC7_UNORM"


def test_rule_platform_filter() -> None:
    rules = parse_rules([{"match": "*.png", "format": "BC7_SRGB", "platform": ["desktop", "desktop-bc7"]},
                         {"match": "*.png", "max_size": 256, "platform": "mobile-astc"}], "t.toml")
    assert decide(facts("t/a_albedo.png", 1024, 1024), PolicySettings(), rules).gpu_format == "BC7_SRGB"
    mobile = decide(facts("t/a_albedo.png", 1024, 1024), PolicySettings(platform="mobile-astc"), rules)
    assert (mobile.gpu_format, mobile.width) == ("ASTC_6x6_SRGB", 256)


@pytest.mark.parametrize("pattern,path,hit", [
    ("*_n.png", "a/b/c/rock_n.png", True), ("*_n.png", "rock_n.png", True),
    ("textures/*.png", "textures/a.png", True), ("textures/*.png", "textures/sub/a.png", False),
    ("textures/**/*.png", "textures/a.png", True), ("textures/**/*.png", "textures/x/y/a.png", True),
    ("textures/**", "textures/x/y/a.png", True), ("**/env/*.exr", "level/env/sky.exr", True),
    ("**/env/*.exr", "env/sky.exr", True), ("tex?/a.png", "tex1/a.png", True), ("tex?/a.png", "tex/a.png", False),
    ("[ab]*.png", "apple.png", True), ("[!ab]*.png", "apple.png", False), ("*.PNG", "a.png", False),
    ("*.glb", "level.glb#image/3", True), ("levels/*.glb", "levels/a.glb#image/0", True),
    ("level.glb#image/*", "level.glb#image/3", True),
    # a leading "/" anchors at the scan root, as in .gitignore
    ("/hero.png", "hero.png", True), ("/hero.png", "chars/hero.png", False),
    ("/textures/*.png", "textures/a.png", True), ("/*.glb", "level.glb#image/0", True), ("/*.glb", "a/level.glb", False),
    # a class's members stand for themselves, as fnmatch reads them (the TUI's glob_escape
    # writes "[[]" and "[]]"); "^" is a member, not a negation
    ("[[]old[]].png", "[old].png", True), ("[[]old[]].png", "o.png", False), ("[&&]x.png", "&x.png", True),
    ("[^a]x.png", "^x.png", True), ("[^a]x.png", "bx.png", False), ("[]a]x.png", "]x.png", True),
    ("[!]a]x.png", "]x.png", False), ("[!]a]x.png", "bx.png", True), ("[~|]x.png", "|x.png", True),
    ("[a-c]x.png", "bx.png", True), ("[!].png", "[!].png", True), ("[]", "[]", True),
])
@pytest.mark.filterwarnings("error")
def test_rule_glob_semantics(pattern: str, path: str, hit: bool) -> None:
    rule = parse_rules([{"match": pattern, "ignore": True}], "t.toml")[0]
    assert rule.matches(path) is hit
    if "/" not in pattern and "#" not in path:  # one name: as fnmatch matches it
        assert fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern) is hit


def test_a_glob_with_a_backwards_range_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_rules([{"match": "*.png", "ignore": True}, {"match": "tex/[z-a]*.png", "ignore": True}], "t.toml")
    assert str(info.value) == "t.toml: [[rule]] #2 match = 'tex/[z-a]*.png': not a glob: bad character range z-a in a [...] class"


@pytest.mark.parametrize("table,message", [
    ({"match": "*.png", "formt": "BC7"},
     "texbudget.toml: [[rule]] #1: unknown key 'formt'; did you mean 'format'? (allowed: match, role, format, max_size, mips, ignore, platform, note)"),
    ({"match": "*.png", "role": "normals"},
     "texbudget.toml: [[rule]] #1 role = 'normals': allowed values are albedo, normal, mask, single, height, hdr, emissive, ui (did you mean 'normal'?)"),
    ({"match": "*.png", "max_size": 0},
     "texbudget.toml: [[rule]] #1 max_size = 0: must be a whole number from 1 to 65536 (texels on the longest side)"),
    ({"match": "*.png", "mips": "yes"}, "texbudget.toml: [[rule]] #1 mips = 'yes': must be true or false"),
    ({"match": "*.png", "ignore": 1}, "texbudget.toml: [[rule]] #1 ignore = 1: must be true or false"),
    ({"role": "normal"}, "texbudget.toml: [[rule]] #1: needs 'match', a glob such as \"textures/**/*_n.png\""),
    ({"match": "*.png"}, "texbudget.toml: [[rule]] #1: sets nothing; give at least one of role, format, max_size, mips, ignore"),
    ({"match": "*.png", "note": "x"}, "texbudget.toml: [[rule]] #1: sets nothing; give at least one of role, format, max_size, mips, ignore"),
    ({"match": "*.png", "ignore": True, "platform": "mobile"},
     "texbudget.toml: [[rule]] #1 platform = 'mobile': allowed values are desktop, desktop-bc7, mobile-astc, mobile-etc2, uncompressed (did you mean 'mobile-etc2'?)"),
])
def test_rule_errors_are_one_clear_line(table: dict, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_rules([table], "texbudget.toml")
    assert str(exc.value) == message
    assert "\n" not in str(exc.value)


def test_rule_error_names_the_rule_number_and_nearest_format() -> None:
    with pytest.raises(ConfigError) as exc:
        parse_rules([{"match": "a", "ignore": True}, {"match": "b", "format": "BC7_SRBG"}], "pyproject.toml")
    text = str(exc.value)
    assert text.startswith("pyproject.toml: [[rule]] #2 format = 'BC7_SRBG': not a GPU format (did you mean 'BC7_SRGB'")
    assert "allowed: the names `texbudget formats` lists" in text
    with pytest.raises(ConfigError, match=r"#1 format = 'ETC1S': not a GPU format"):
        parse_rules([{"match": "a", "format": "ETC1S"}], "t.toml")
    with pytest.raises(ConfigError, match=re.escape("t.toml: [[rule]] = ['*.png']: must be an array of tables ([[...]])")):
        parse_rules(["*.png"], "t.toml")  # type: ignore[list-item]


def test_parse_rules_fields() -> None:
    (rule,) = parse_rules([{"match": "a/**", "format": "dxt5", "max_size": 2048, "mips": True, "note": "n"}], "x.toml")
    assert (rule.index, rule.source, rule.format, rule.max_size, rule.mips, rule.ignore, rule.note) == (
        1, "x.toml", "BC3_UNORM", 2048, True, False, "n")
    assert rule.keys == frozenset({"format", "max_size", "mips"})
    assert rule.format_exact is False
    assert rule.where == "rule 1 in x.toml"


def test_settings_validation() -> None:
    with pytest.raises(UsageError, match=r"unknown platform 'desktop-bc6' \(did you mean 'desktop-bc7'\?\); allowed: desktop, desktop-bc7, mobile-astc, mobile-etc2, uncompressed"):
        PolicySettings(platform="desktop-bc6")
    with pytest.raises(UsageError, match=r"unknown quality 'hgh' \(did you mean 'high'\?\); allowed: ultra, high, medium, low"):
        PolicySettings(quality="hgh")
    assert evolve(PolicySettings(), quality="low").quality == "low"


# --- stored formats and Basis ------------------------------------------------------------


def test_stored_format_is_kept() -> None:
    f = facts("env/sky.dds", 512, 512, container="dds", stored_format="BC6H_UFLOAT", stored_levels=10, faces=6, hdr=True)
    plan = decide(f, PolicySettings(platform="mobile-astc"))
    assert (plan.gpu_format, plan.levels, plan.mips, plan.faces, plan.decided_by) == (
        "BC6H_UFLOAT", 10, "stored", 6, "stored format BC6H_UFLOAT")
    assert price(plan).gpu_bytes == 2097312  # spec/textures.md §7 #10


def test_stored_format_rule_cap_drops_stored_levels_and_reports_ignored_keys() -> None:
    f = facts("t/rock.dds", 4096, 4096, container="dds", stored_format="BC7_SRGB", stored_levels=13)
    rules = parse_rules([{"match": "*.dds", "max_size": 1024, "format": "BC1", "mips": False}], "t.toml")
    plan = decide(f, PolicySettings(), rules)
    assert (plan.gpu_format, plan.width, plan.levels, plan.max_size) == ("BC7_SRGB", 1024, 11, 1024)
    assert plan.decided_by == ("stored format BC7_SRGB; rule 1 in t.toml: max_size 1024 drops 2 stored levels; "
                               "rule 1 in t.toml: format ignored (the file stores BC7_SRGB); "
                               "rule 1 in t.toml: mips ignored (the file stores BC7_SRGB)")
    assert price(plan).gpu_bytes == block_chain(16, (4, 4), 1024, 1024)
    single = facts("t/one.dds", 4096, 4096, container="dds", stored_format="BC1_RGB_UNORM", stored_levels=1)
    kept = decide(single, PolicySettings(), rules)
    assert (kept.width, kept.levels) == (4096, 1)
    assert "cannot apply (only 1 stored level)" in kept.decided_by


def test_ktx_level_count_zero_means_generated_chain() -> None:
    f = facts("t/a.ktx2", 256, 256, container="ktx2", stored_format="R8G8B8A8_SRGB", stored_levels=1, mips_generate=True)
    plan = decide(f, PolicySettings())
    assert (plan.levels, plan.mips) == (9, "generated")
    assert price(plan).gpu_bytes == 349524


@pytest.mark.parametrize("profile,kind,alpha,channels,fmt,size40", [
    ("desktop", "ETC1S", False, 3, "BC7_SRGB", 2240), ("desktop", "ETC1S", True, 4, "BC7_SRGB", 2240),
    ("desktop", "UASTC", False, 3, "BC7_SRGB", 2240), ("desktop", "UASTC", False, 1, "BC4_UNORM", 1120),
    ("desktop", "UASTC", False, 2, "BC5_UNORM", 2240),
    ("mobile-astc", "UASTC", False, 3, "ASTC_4x4_SRGB", 2240), ("mobile-astc", "ETC1S", False, 3, "ETC2_R8G8B8_SRGB", 1120),
    ("mobile-astc", "ETC1S", True, 4, "ETC2_R8G8B8A8_SRGB", 2240), ("mobile-astc", "ETC1S", False, 1, "EAC_R11_UNORM", 1120),
    ("mobile-etc2", "UASTC", False, 3, "ETC2_R8G8B8_SRGB", 1120), ("mobile-etc2", "UASTC", True, 4, "ETC2_R8G8B8A8_SRGB", 2240),
    ("mobile-etc2", "ETC1S", False, 2, "EAC_R11G11_UNORM", 2240),
    ("uncompressed", "ETC1S", False, 3, "R8G8B8A8_SRGB", 8520),
])
def test_basis_transcode_targets(profile: str, kind: str, alpha: bool, channels: int, fmt: str, size40: int) -> None:
    """40x40 with 6 levels: glTF-Transform's KTX2 test anchors (BC1 1120, BC7 2240, RGBA8 8520)."""
    f = facts("t/a.ktx2", 40, 40, container="ktx2", transcodable=kind, stored_levels=6, alpha=alpha,
              channels=channels, color_space="srgb", supercompression="BasisLZ")
    plan = decide(f, PolicySettings(platform=profile))
    assert (plan.gpu_format, plan.mips, plan.levels) == (fmt, "stored", 6)
    assert plan.decided_by == f"{kind} → {fmt} ({profile} transcode target)"
    assert price(plan).gpu_bytes == size40


def test_basis_pseudo_format_named_as_stored_is_transcoded() -> None:
    f = facts("t/a.ktx2", 40, 40, container="ktx2", stored_format="UASTC", stored_levels=6, color_space="srgb")
    plan = decide(f, PolicySettings())
    assert (plan.gpu_format, plan.decided_by) == ("BC7_SRGB", "UASTC → BC7_SRGB (desktop transcode target)")


def test_basis_linear_data_and_rule_target() -> None:
    f = facts("t/n.ktx2", 40, 40, container="ktx2", transcodable="UASTC", stored_levels=6, color_space="linear")
    assert decide(f, PolicySettings()).gpu_format == "BC7_UNORM"
    rules = parse_rules([{"match": "*.ktx2", "format": "BC1"}], "t.toml")
    plan = decide(evolve(f, color_space="srgb"), PolicySettings(), rules)
    assert plan.gpu_format == "BC1_RGB_SRGB"
    assert price(plan).gpu_bytes == 1120
    assert plan.decided_by == "rule 1 in t.toml: format BC1_RGB_SRGB (transcode target for UASTC)"


# --- price -------------------------------------------------------------------------------


def test_price_allocated_bytes_follow_d3d12_alignment() -> None:
    plan = decide(facts("t/a_orm.png", 256, 256), PolicySettings())
    cost = price(plan)
    assert (cost.gpu_bytes, cost.allocated_bytes) == (43704, 45056)  # 11 × 4 KiB (small resource)
    big = price(decide(facts("t/a_orm.png", 2048, 2048), PolicySettings()))
    assert big.gpu_bytes == 2796216
    assert big.allocated_bytes == 43 * 65536  # too big for 4 KiB alignment: 64 KiB pages
    assert price(plan, model="none").allocated_bytes == 43704


def test_price_cube_and_array_counts_faces_and_layers() -> None:
    f = facts("t/a.dds", 256, 256, container="dds", stored_format="BC6H_UFLOAT", stored_levels=9, faces=6, layers=4)
    assert price(decide(f, PolicySettings())).gpu_bytes == 2097792  # spec/textures.md §7 #11


def test_decided_by_examples_from_the_brief() -> None:
    assert decide(facts("t/rock_orm.png"), PolicySettings()).decided_by == "name '_orm' → mask → BC1_RGB_UNORM (desktop)"
    assert decide(facts("t/x.png"), PolicySettings(), slots=["normalTexture"]).decided_by == \
        "glTF slot normalTexture → normal → BC5_UNORM (desktop)"
    assert re.fullmatch(r"[^\n]{10,200}", decide(facts("t/x.png"), PolicySettings()).decided_by)


# --- decide_all: the whole scan at once ------------------------------------------------------------


@pytest.mark.parametrize("platform", ["desktop", "mobile-astc", "uncompressed"])
@pytest.mark.parametrize("quality", ["ultra", "low"])
def test_decide_all_is_decide_then_price_for_each_texture(platform, quality):
    """On the demo scene (Godot sidecars, [[rule]]s, glTF slots, many textures alike): the
    shared decisions of ``decide_all`` are exactly each texture's own."""
    from texbudget import config as config_mod
    from texbudget import pipeline
    from texbudget.scan.scene import read_scene

    root = Path(__file__).parents[2] / "assets" / "demo"
    config = config_mod.load(root / "texbudget.toml")
    scan = read_scene(root, config, jobs=1)
    settings = pipeline.build_settings(config, platform=platform, quality=quality)
    prepared = pipeline.prepare(scan)
    psettings = evolve(settings.policy, quality=quality)
    together = decide_all(scan.textures, psettings, settings.rules, scan.engine, prepared.slots,
                          prepared.own_roles, "d3d12", prepared.alpha_unused)
    alone = tuple(
        price(decide(f, psettings, settings.rules, scan.engine.get(f.path), prepared.slots.get(f.path, ()),
                     alpha_unused=prepared.alpha_unused.get(f.path)), "d3d12")
        for f in scan.textures
    )
    assert together == alone
    assert [c.plan.path for c in together] == [f.path for f in scan.textures]
    assert settings.rules and scan.engine  # the demo exercises both paths
    kinds = {(_facts_key(f), prepared.slots.get(f.path, ()), r) for f, r in zip(scan.textures, prepared.own_roles, strict=True)}
    assert len(kinds) < len(scan.textures)  # and some decisions are shared
