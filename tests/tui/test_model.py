"""The TUI's pure parts: browser rows and folder sums, choices, batched reading, merging."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.model import evolve
from texbudget.scan.scene import Scan, read_scene
from texbudget.sizing.meshes import MeshCost
from texbudget.tui import browse, scanning, state

from .conftest import SCAN, make_config

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"


@pytest.fixture(scope="module")
def report():
    return pipeline.evaluate(SCAN, pipeline.build_settings(make_config()))


# --- browse ---------------------------------------------------------------------------------


def test_rows_carry_raw_values(report):
    b = browse.build(report)
    by = b.by_key()
    wall = by["textures/buildings/wall_albedo.ktx2"]
    assert (wall.name, wall.folder, wall.kind, wall.format) == ("wall_albedo.ktx2", "textures/buildings", "albedo", "BC7_SRGB")
    assert (wall.dims, wall.pixels, wall.mips, wall.vram_bytes) == ("4096x4096", 4096 * 4096, 13, 22_413_312)
    sky = by["textures/env/sky.ktx2"]
    assert (sky.dims, sky.pixels, sky.mips) == ("1024x1024 cube", 1024 * 1024 * 6, 11)
    mesh = by["level.glb#mesh/1"]
    assert (mesh.name, mesh.folder, mesh.kind, mesh.dims, mesh.pixels, mesh.mips, mesh.instances) == (
        "#mesh/1", "level.glb", "mesh", "20,000 tris", 20_000, 0, 6)
    total = sum(t.cost.allocated_bytes for t in report.textures) + sum(m.buffer_bytes for m in report.meshes)
    assert b.total_bytes == b.shown_bytes == total
    assert wall.share == pytest.approx(22_413_312 / total)
    assert by["textures/props/crate_albedo.png"].used_by == ("level.glb#material/0",)


def test_tree_sums_every_folder_biggest_first(report):
    b = browse.build(report)
    root = b.children("")
    assert [(e.key, e.count) for e in root] == [("textures/", 7), ("level.glb/", 3)]
    textures = b.children("textures")
    assert [e.key for e in textures] == ["textures/buildings/", "textures/props/", "textures/env/", "textures/ui/"]
    by = b.by_key()
    for folder in textures:
        inside = [r for r in b.rows if r.key.startswith(folder.key)]
        assert folder.vram_bytes == sum(r.vram_bytes for r in inside)
    assert root[0].vram_bytes == sum(e.vram_bytes for e in textures)
    assert [e.key for e in b.children("level.glb")] == ["level.glb#mesh/1", "level.glb#image/0", "level.glb#mesh/0"]
    assert by["level.glb#image/0"].folder == "level.glb"


@pytest.mark.parametrize(("query", "keys"), [
    ("normal", {"textures/buildings/wall_normal.dds", "textures/props/crate_normal.png"}),
    ("BC1", {"textures/props/crate_albedo.png", "textures/props/crate_orm.png", "level.glb#image/0"}),
    ("mask", {"textures/props/crate_orm.png"}),
    ("props albedo", {"textures/props/crate_albedo.png"}),
    ("MESH", {"level.glb#mesh/0", "level.glb#mesh/1"}),
    ("nothing-like-this", set()),
])
def test_filter_by_path_format_or_role(report, query, keys):
    b = browse.build(report, query)
    assert {r.key for r in b.rows} == keys
    assert b.shown_bytes == sum(r.vram_bytes for r in b.rows)
    assert b.total_bytes == browse.build(report).total_bytes


def test_split_treats_a_gltf_as_a_folder():
    assert browse.split("a/b/c.png") == ("a/b", "c.png")
    assert browse.split("c.png") == ("", "c.png")
    assert browse.split("m/x.glb#mesh/1") == ("m/x.glb", "#mesh/1")


# --- state ----------------------------------------------------------------------------------


def test_choices_override_and_go_back_to_configured():
    base = pipeline.build_settings(make_config())
    c = state.Choices().set("platform", "mobile-astc").set("resolutions", ("3840x2160",))
    got = state.apply(base, c)
    assert (got.policy.platform, got.budget.platform, got.budget.resolutions) == ("mobile-astc", "mobile-astc", ("3840x2160",))
    back = state.apply(base, c.set("platform", None, configured=True))
    assert back.policy.platform == "desktop" and back.budget.resolutions == ("3840x2160",)
    assert base.budget.platform == "desktop"  # the starting settings are never changed
    with pytest.raises(KeyError):
        state.Choices().set("colour", "red")


def test_picker_options_and_the_one_in_force():
    base = pipeline.build_settings(make_config())
    res = state.options_resolutions(base)
    assert [o.label for o in res] == ["as configured: 1080p, 4k", "1080p", "1440p", "4k", "1080p, 1440p, 4k", "720p", "8k"]
    assert res[3].value == ("3840x2160",)
    assert state.current_index(res, state.Choices(), "resolutions") == 0
    assert state.current_index(res, state.Choices().set("resolutions", ("3840x2160",)), "resolutions") == 3
    rt = state.options_rt(base)
    assert [o.value for o in rt] == [("off", "nvidia"), ("off",), ("nvidia",), ("amd",), ("intel",), ("off", "nvidia", "amd", "intel"), None]
    cards = state.options_cards(base)
    assert cards[0].value == ("1GB", "1.85GB", "8GB")
    assert any(o.label.startswith("NVIDIA RTX 40") for o in cards)
    assert [o.value for o in state.options_quality(base)][1:5] == [("ultra",), ("high",), ("medium",), ("low",)]
    assert state.short_resolution("2560x1080") == "2560x1080" and state.short_resolution("3840x2160") == "4k"


# --- scanning -------------------------------------------------------------------------------


@pytest.mark.parametrize("follow", ["tree", "gltf"])
def test_batches_hold_what_one_read_scene_returns(follow):
    config = config_mod.load_for(DEMO)
    config = replace(config, scan=replace(config.scan, follow=follow))
    seen: list[tuple[int, int]] = []
    parts = list(scanning.read_in_batches(DEMO, config, progress=lambda d, n: seen.append((d, n)), first=4))
    assert parts[0].files and not parts[0].textures  # discovery first
    merged = Scan(root=DEMO)
    for part in parts:
        merged = scanning.merge(merged, part)
    whole = read_scene(DEMO, config)
    assert sorted(t.path for t in merged.textures) == sorted(t.path for t in whole.textures)
    assert {t.path: t for t in merged.textures} == {t.path: t for t in whole.textures}
    assert {m.path: m for m in merged.meshes} == {m.path: m for m in whole.meshes}
    assert set(merged.findings) == set(whole.findings)
    assert merged.files == whole.files
    # the demo's old cart textures are in the tree, and no material uses them
    assert any("old_cart" in t.path for t in whole.textures) == (follow == "tree")
    # each file read once: the scene batch reads the images its glTF references
    read = [t.path for p in parts for t in p.textures]
    assert len(read) == len(set(read))
    # under follow = "gltf" the images are known once the scene is read: the total grows
    assert seen[0] == (0, len(whole.files) if follow == "tree" else 1) and seen[-1][0] == seen[-1][1]
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_merge_replaces_what_a_file_gave_and_keeps_the_rest():
    half = Scan(root=SCAN.root, textures=SCAN.textures[:3], files=("a",))
    again = Scan(root=SCAN.root, textures=(SCAN.textures[0],))
    merged = scanning.merge(SCAN, again, touched={SCAN.textures[0].path, SCAN.textures[1].path})
    assert [t.path for t in merged.textures] == [t.path for t in SCAN.textures if t.path != SCAN.textures[1].path]
    gone = scanning.merge(SCAN, Scan(root=SCAN.root), touched=(), removed={"level.glb"})
    assert not gone.meshes and not gone.scenes
    assert "level.glb#image/0" not in {t.path for t in gone.textures}
    assert "level.glb" not in gone.files
    assert scanning.prune(SCAN, SCAN.files) is SCAN
    pruned = scanning.prune(SCAN, [f for f in SCAN.files if f != "textures/env/sky.ktx2"])
    assert "textures/env/sky.ktx2" not in {t.path for t in pruned.textures}
    assert scanning.touched_by(half) == {"a", "textures/env/sky.ktx2", "textures/props/crate_albedo.png",
                                         "textures/props/crate_normal.png"}


def test_a_settings_switch_reuses_the_meshes_but_an_instance_change_prices_them_again():
    """evaluate keeps the last scan's mesh costs for a platform or quality switch; any change
    of instances (or layout) prices them again, and going back gives the first numbers."""
    base = pipeline.build_settings(make_config(), rt=["off"])  # no BLAS: the rows are the costs
    first = pipeline.evaluate(SCAN, base)
    switched = pipeline.evaluate(SCAN, evolve(base, policy=evolve(base.policy, platform="mobile-astc")))
    assert switched.meshes is first.meshes  # the same objects: not priced again
    more = pipeline.evaluate(SCAN, evolve(base, instances=(("*", 7),)))
    assert {m.instances for m in more.meshes} == {7}
    back = pipeline.evaluate(SCAN, base)
    assert back.meshes == first.meshes and back.meshes[0] is not first.meshes[0]


#: The fixed scene's meshes: (path, buffer bytes, instances), stored bytes (32 B a vertex, u32 indices).
MESH_COSTS = [("level.glb#mesh/0", 32 * 14 + 12 * 12, 40), ("level.glb#mesh/1", 32 * 20_002 + 12 * 20_000, 6)]


def test_without_ray_tracing_the_mesh_rows_are_the_priced_costs_themselves():
    """No RT vendor: a report's mesh rows are the priced ``MeshCost``s, no BLAS, no second
    object per mesh; a switch that keeps the pricing gives the very same tuple."""
    settings = pipeline.build_settings(make_config(), rt=["off"])
    report = pipeline.evaluate(SCAN, settings)
    assert type(report.meshes[0]) is MeshCost and report.meshes == pipeline.price_meshes(SCAN, settings)
    assert [(m.path, m.buffer_bytes, m.instances, m.blas) for m in report.meshes] == [(*c, None) for c in MESH_COSTS]
    assert [m.facts for m in report.meshes] == list(SCAN.meshes) and report.meshes[1].facts is SCAN.meshes[1]
    other = pipeline.evaluate(SCAN, evolve(settings, policy=evolve(settings.policy, platform="mobile-astc")))
    assert other.meshes is report.meshes


def test_with_ray_tracing_each_mesh_row_carries_the_first_vendors_blas():
    """With RT the rows are the costs with the first vendor's BLAS estimate (AMD here: 512 +
    60 B a triangle compacted, 256-byte aligned), the acceleration's own per-mesh estimates."""
    base = pipeline.build_settings(make_config(), rt=["off"])
    plain = pipeline.evaluate(SCAN, base).meshes
    report = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=["amd", "nvidia"]))
    assert list(report.acceleration) == ["amd", "nvidia"]
    assert [(m.path, m.buffer_bytes, m.instances) for m in report.meshes] == MESH_COSTS
    assert [(m.blas.profile, m.blas.resident_bytes) for m in report.meshes if m.blas] == [("amd", 1_280), ("amd", 1_200_640)]
    assert [m.blas for m in report.meshes] == [b for _, b in report.acceleration["amd"].per_mesh]
    assert [evolve(m, blas=None) for m in report.meshes] == list(plain)
    assert all(m.facts is p.facts for m, p in zip(report.meshes, plain, strict=True))
    nvidia = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=["nvidia"]))
    assert [m.blas.resident_bytes for m in nvidia.meshes if m.blas] == [768, 520_448]  # 256 + 26 B a triangle


def test_a_switch_of_rt_vendor_leaves_the_cached_costs_blas_free():
    """The BLAS goes on a copy: after reports with AMD and NVIDIA, the report without RT still
    gets the first priced costs, the same objects, without a BLAS."""
    off = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=["off"])).meshes
    for vendor in ("amd", "nvidia", "amd"):
        rows = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=[vendor])).meshes
        assert {m.blas.profile for m in rows if m.blas} == {vendor} and not any(r is o for r, o in zip(rows, off, strict=True))
    again = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=["off"])).meshes
    assert again is off and all(m.blas is None for m in again)


def test_a_platform_switch_with_ray_tracing_keeps_the_rows_with_blas():
    """The rows with a vendor's BLAS are made once for that vendor: a platform switch gives the
    same rows; another vendor makes its own, and coming back makes them again, equal."""
    nvidia = pipeline.build_settings(make_config(), rt=["nvidia"])
    first = pipeline.evaluate(SCAN, nvidia).meshes
    mobile = pipeline.evaluate(SCAN, evolve(nvidia, policy=evolve(nvidia.policy, platform="mobile-astc"))).meshes
    assert mobile is first and all(m.blas is not None and m.blas.profile == "nvidia" for m in first)
    amd = pipeline.evaluate(SCAN, pipeline.build_settings(make_config(), rt=["amd"])).meshes
    assert [m.blas.profile for m in amd if m.blas] == ["amd", "amd"]
    back = pipeline.evaluate(SCAN, nvidia).meshes
    assert back == first and back is not first
