"""The demo scene (assets/demo) and the Godot project beside it (assets/godot_demo):
reproducible from assets/make_demo.py, small on disk, and the story they tell through the tool
(issues 9 and 23).

The generator runs once per session in a subprocess with this interpreter (about 10–20 s); the
committed trees must be byte-for-byte what it writes. The scan/check tests call the CLI on the
committed tree and pin the counts and verdicts the demo is designed for; the Godot tests read
the project with the readers and resolve its levels with the pure resolver and the Godot
project index, against numbers written out here by hand from the design.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "assets"
DEMO = ASSETS / "demo"
GODOT = ASSETS / "godot_demo"
SCRIPT = ASSETS / "make_demo.py"
MIB = 1 << 20

# One file of each kind the issue names, plus the README the script writes. JPEGs are left out:
# their bytes come from Pillow's libjpeg build (the script writes PNG and TGA itself).
PINNED = (
    "level.gltf",
    "level.bin",
    "texbudget.toml",
    "README.md",
    "textures/street/cobblestone_albedo.ktx2",  # BC7, Zstandard (hand-made RLE frames)
    "textures/buildings/clocktower_normal.ktx2",  # R8G8B8A8_UNORM, ZLIB (planted)
    "textures/env/sky_dusk_cube.ktx2",  # BC6H cubemap, ZLIB
    "textures/street/ground_layers_normal.ktx2",  # BC5 array, 8 layers
    "textures/market/lantern_albedo.ktx2",  # UASTC
    "textures/props/graffiti_albedo.dds",  # DX10 BC7 with mips
    "textures/props/sign_decal_albedo.dds",  # DXT1 without mips (planted)
    "textures/market/stall_albedo.png",
    "textures/market/crate_albedo.tga",
    "textures/env/market_probe.hdr",
    "textures/market/awning_normal.png.import",
    "textures/market/crate_albedo.tga.meta",
)


def _tree(root: Path) -> list[str]:
    """Committed files under ``root``; hidden ones (a ``.texbudget/`` scan cache, editor
    files) are not part of the demo."""
    rels = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
    return sorted(r.as_posix() for r in rels if not any(part.startswith(".") for part in r.parts))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "demo"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return out


# --- reproducible and small ------------------------------------------------------------------


def test_generator_writes_the_committed_file_list(generated: Path) -> None:
    assert _tree(generated) == _tree(DEMO)
    assert _tree(generated.parent / "godot_demo") == _tree(GODOT)  # --godot-out's default: beside --out


@pytest.mark.parametrize("rel", _tree(GODOT))
def test_generated_godot_file_is_byte_identical_to_the_committed_one(generated: Path, rel: str) -> None:
    made = (generated.parent / "godot_demo" / rel).read_bytes()
    assert made == (GODOT / rel).read_bytes(), f"godot_demo/{rel} differs: run `python assets/make_demo.py --out assets/demo`"


@pytest.mark.parametrize("rel", PINNED)
def test_generated_file_is_byte_identical_to_the_committed_one(generated: Path, rel: str) -> None:
    assert (generated / rel).read_bytes() == (DEMO / rel).read_bytes(), f"{rel} differs: run `python assets/make_demo.py --out assets/demo`"


def test_assets_folder_is_under_20_mib_on_disk() -> None:
    total = sum((ASSETS / rel).stat().st_size for rel in _tree(ASSETS))
    assert total < 20 * MIB, f"assets/ is {total / MIB:.1f} MiB"


def test_demo_has_the_planted_files_and_sidecars() -> None:
    files = set(_tree(DEMO))
    for rel in (
        "textures/ui/hud_atlas.png",
        "textures/props/old_cart_albedo.png",
        "textures/market/awning_albedo.png.import",
        "textures/props/bench_normal.png.meta",
    ):
        assert rel in files
    assert sum(1 for f in files if f.endswith(".import")) == 6
    assert sum(1 for f in files if f.endswith(".meta")) == 9


def test_gltf_materials_reference_textures_that_exist() -> None:
    doc = json.loads((DEMO / "level.gltf").read_text(encoding="utf-8"))
    uris = [img["uri"] for img in doc["images"]]
    assert all((DEMO / uri).is_file() for uri in uris)
    assert not any(u.startswith("textures/props/old_cart") for u in uris)  # planted: unused
    slots = {"baseColorTexture", "normalTexture", "metallicRoughnessTexture", "occlusionTexture"}
    used = set()
    for mat in doc["materials"]:
        refs = {**mat.get("pbrMetallicRoughness", {}), **mat}
        used |= {k for k in slots if k in refs}
    assert used == slots
    assert doc["buffers"] == [{"uri": "level.bin", "byteLength": (DEMO / "level.bin").stat().st_size}]


def test_gltf_scene_counts_from_the_json_itself() -> None:
    """>= 10 unique meshes, >= 300 instances, >= 1,000,000 triangles counting instances, read
    straight from the glTF node graph and index accessors (no texbudget code involved)."""
    doc = json.loads((DEMO / "level.gltf").read_text(encoding="utf-8"))
    acc = doc["accessors"]
    triangles = [sum(acc[p["indices"]]["count"] // 3 for p in m["primitives"]) for m in doc["meshes"]]
    placed = [n["mesh"] for n in doc["nodes"] if "mesh" in n]
    assert len(doc["meshes"]) == 27
    assert len(placed) == 548
    assert set(placed) == set(range(len(doc["meshes"])))  # every mesh is instanced
    assert sum(triangles[m] for m in placed) == 2_509_104
    assert doc["meshes"][18]["name"] == "fountain" and triangles[18] == 24_704
    assert {acc[p["indices"]]["componentType"] for m in doc["meshes"] for p in m["primitives"]} == {5123, 5125}
    for m in doc["meshes"]:
        for p in m["primitives"]:
            assert set(p["attributes"]) == {"POSITION", "NORMAL", "TANGENT", "TEXCOORD_0"}


# --- the containers, checked against their specs without texbudget ----------------------------


def _chain(w: int, h: int, block_bytes: int, block: int = 4, copies: int = 1) -> list[int]:
    """Exact bytes per mip level (floor halving, block rounding), spec/textures.md §2."""
    levels = max(w, h).bit_length()
    return [max(1, -(-max(1, w >> i) // block)) * max(1, -(-max(1, h >> i) // block)) * block_bytes * copies
            for i in range(levels)]


def _unzstd_rle(frame: bytes) -> int:
    """Decoded length of a Zstandard frame made of raw/RLE blocks (what make_demo writes)."""
    assert int.from_bytes(frame[:4], "little") == 0xFD2FB528
    fhd = frame[4]
    assert fhd == 0xA0  # FCS 4 bytes, single segment
    content = int.from_bytes(frame[5:9], "little")
    pos, total = 9, 0
    while True:
        header = int.from_bytes(frame[pos:pos + 3], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        assert kind in (0, 1) and size <= 128 * 1024
        pos += 3 + (1 if kind == 1 else size)
        total += size
        if last:
            break
    assert pos == len(frame) and total == content
    return total


KTX2_CASES = {
    # path: (vkFormat, width, height, faces, layers, scheme, exact level bytes)
    "textures/street/cobblestone_albedo.ktx2": (146, 8192, 8192, 1, 0, 2, _chain(8192, 8192, 16)),
    "textures/street/ground_layers_normal.ktx2": (141, 4096, 4096, 1, 8, 2, _chain(4096, 4096, 16, copies=8)),
    "textures/buildings/clocktower_normal.ktx2": (37, 8192, 8192, 1, 0, 3, _chain(8192, 8192, 4, block=1)),
    "textures/env/sky_dusk_cube.ktx2": (143, 2048, 2048, 6, 0, 3, _chain(2048, 2048, 16, copies=6)),
    "textures/market/lantern_albedo.ktx2": (0, 1024, 1024, 1, 0, 2, _chain(1024, 1024, 16)),
}


@pytest.mark.parametrize("rel", sorted(KTX2_CASES))
def test_ktx2_header_and_level_index_follow_the_spec(rel: str) -> None:
    import struct
    import zlib

    vk, w, h, faces, layers, scheme, sizes = KTX2_CASES[rel]
    data = (DEMO / rel).read_bytes()
    assert data[:12] == b"\xabKTX 20\xbb\r\n\x1a\n"
    fields = struct.unpack_from("<13I", data, 12)
    assert fields[:9] == (vk, 1, w, h, 0, layers, faces, len(sizes), scheme)
    dfd_at, dfd_len = fields[9], fields[10]
    assert dfd_at == 80 + 24 * len(sizes) and struct.unpack_from("<I", data, dfd_at)[0] == dfd_len
    index = [struct.unpack_from("<QQQ", data, 80 + 24 * i) for i in range(len(sizes))]
    assert [u for _, _, u in index] == sizes
    offsets = [o for o, _, _ in index]
    assert offsets == sorted(offsets, reverse=True)  # smallest level first in the file
    assert offsets[0] + index[0][1] == len(data)
    for offset, length, unpacked in index:
        blob = data[offset:offset + length]
        if scheme == 3:
            assert zlib.decompress(blob) == bytes(unpacked)
        else:
            assert _unzstd_rle(blob) == unpacked


def test_ktx2_exact_sizes_match_the_spec_vectors() -> None:
    # spec/textures.md §7 row 5 (BC7 4096² chain) and row 10 (BC6H 512² cube), by the same rule
    assert sum(_chain(4096, 4096, 16)) == 22_369_648
    assert sum(_chain(512, 512, 16, copies=6)) == 2_097_312
    assert sum(KTX2_CASES["textures/buildings/clocktower_normal.ktx2"][6]) == 357_913_940  # 341.33 MiB


@pytest.mark.parametrize(("rel", "dxgi", "levels", "payload"), [
    ("textures/props/graffiti_albedo.dds", 99, 10, sum(_chain(512, 512, 16))),
    ("textures/props/graffiti_normal.dds", 83, 10, sum(_chain(512, 512, 16))),
    ("textures/props/sign_decal_albedo.dds", None, 1, 524_288),
])
def test_dds_headers_and_payload_sizes(rel: str, dxgi: int | None, levels: int, payload: int) -> None:
    import struct

    data = (DEMO / rel).read_bytes()
    assert data[:4] == b"DDS "
    size, flags, height, width, _, _, mips = struct.unpack_from("<7I", data, 4)
    fourcc = data[84:88]
    side = 1 << (levels - 1) if levels > 1 else 1024
    assert (size, height, width, mips, bool(flags & 0x20000)) == (124, side, side, levels, levels > 1)
    if dxgi is None:
        assert fourcc == b"DXT1" and len(data) == 128 + payload
    else:
        assert fourcc == b"DX10" and struct.unpack_from("<5I", data, 128) == (dxgi, 3, 0, 1, 0)
        assert len(data) == 148 + payload


def test_hdr_probe_decodes_to_every_scanline() -> None:
    data = (DEMO / "textures/env/market_probe.hdr").read_bytes()
    head, _, body = data.partition(b"\n\n")
    assert head.startswith(b"#?RADIANCE") and b"FORMAT=32-bit_rle_rgbe" in head
    size_line, _, pixels = body.partition(b"\n")
    assert size_line == b"-Y 256 +X 512"
    pos = 0
    for _ in range(256):
        assert pixels[pos:pos + 4] == bytes((2, 2, 2, 0))  # new RLE, width 512
        pos += 4
        for _channel in range(4):
            filled = 0
            while filled < 512:
                count = pixels[pos]
                if count > 128:
                    filled, pos = filled + count - 128, pos + 2
                else:
                    filled, pos = filled + count, pos + 1 + count
            assert filled == 512
    assert pos == len(pixels)


# --- through the tool ------------------------------------------------------------------------


def _scan_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    cli = pytest.importorskip("texbudget.cli")
    monkeypatch.chdir(REPO)
    code = cli.main(["scan", "assets/demo", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_scan_counts_textures_meshes_instances_and_triangles(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = _scan_json(capsys, monkeypatch)
    meshes = report["meshes"]
    assert len(report["textures"]) >= 90
    assert len(meshes) >= 10
    assert sum(m["instances"] for m in meshes) >= 300
    assert sum(m["instances"] * m["triangles"] for m in meshes) >= 1_000_000


def test_scan_tells_the_budget_story(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Fits everywhere on 24 GB, over on 8 GB at 4K with RT, tight on 12 GB at 4K with RT at
    ultra, everything fits at high, and the matrix shows all three verdicts
    (assets/demo/README.md, "The budget story")."""
    report = _scan_json(capsys, monkeypatch)
    verdicts: dict[tuple[str, str, str, str], str] = {}
    for sc in report["scenarios"]:
        for card in sc["cards"]:
            verdicts[(sc["quality"], sc["resolution"], sc["rt"], card["name"])] = card["verdict"]
    assert len(verdicts) == 2 * 3 * 2 * 4
    assert {v for key, v in verdicts.items() if key[3] == "24GB"} == {"fits"}
    assert verdicts[("ultra", "3840x2160", "nvidia", "8GB")] == "over"
    assert verdicts[("ultra", "3840x2160", "nvidia", "12GB")] == "tight"
    assert verdicts[("ultra", "1920x1080", "off", "12GB")] == "fits"
    assert {v for key, v in verdicts.items() if key[0] == "high"} == {"fits"}
    assert set(verdicts.values()) == {"fits", "tight", "over"}
    fixes = {sc["quality"] + sc["resolution"] + sc["rt"]: sc["fixes"] for sc in report["scenarios"]}
    assert fixes["ultra3840x2160nvidia"], "the over and tight cells come with fixes"


def test_scan_lists_the_unused_textures(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    report = _scan_json(capsys, monkeypatch)
    flagged = {f["path"] for f in report["findings"]}
    for role in ("albedo", "normal", "orm"):
        assert f"textures/props/old_cart_{role}.png" in flagged
    by_path = {t["path"]: t for t in report["textures"]}
    assert by_path["textures/props/old_cart_albedo.png"]["used_by"] == []


def test_check_exits_1_and_names_every_planted_problem(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    cli = pytest.importorskip("texbudget.cli")
    monkeypatch.chdir(REPO)
    code = cli.main(["check", "assets/demo"])
    out = capsys.readouterr().out
    assert code == 1, out
    for planted in (
        "textures/buildings/clocktower_normal.ktx2",  # uncompressed 8K normal, over max_bytes
        "textures/market/awning_normal.png",  # Godot lossless: uncompressed
        "textures/market/poster_albedo.jpg",  # 1000x750, not a multiple of 4
        "textures/props/sign_decal_albedo.dds",  # no mips
        "level.gltf#mesh/18",  # the fountain, over max_triangles
    ):
        assert planted in out, f"check does not flag {planted}:\n{out}"


# --- the Godot project: its levels through the readers, the resolver and the project index -----

BC1, BC5 = 8, 16  # bytes per 4x4 block

#: What each level loads, written out from the design (assets/godot_demo/README.md), not taken
#: from the generator: mesh -> instances (nested instances multiply) and the textures.
MARKET_MESHES = {
    "meshes/paving_tile.tres#mesh/0": 8 * 8 + 4,  # the ground MultiMesh (instance_count 64) + 4 stall awnings
    "meshes/lamp_post.tres#mesh/0": 6,  # 6 lantern posts
    "models/lantern.glb#mesh/0": 6,  # the frame, once in each post's lantern.glb
    "models/lantern.glb#mesh/1": 6 * 4,  # the pane, 4 nodes of the glb in each of 6 posts
    "models/crate.glb#mesh/0": (4 + 1) * 3,  # 4 stalls with a crate stack each + 1 stack; 3 crates a stack
}
HARBOR_MESHES = {
    "meshes/paving_tile.tres#mesh/0": 8 * 5 + 1,  # the ground MultiMesh (instance_count 40) + the water
    "meshes/lamp_post.tres#mesh/0": 4,
    "models/lantern.glb#mesh/0": 4,
    "models/lantern.glb#mesh/1": 4 * 4,
    "models/crate.glb#mesh/0": 2 * 3,  # 2 crate stacks
}
SHARED_TEXTURES = {
    "textures/iron_albedo.png", "textures/iron_normal.png",  # the lamp post's material
    "textures/brass_albedo.png", "textures/brass_orm.png",  # the lantern's material, extracted to a .tres
    "textures/lantern_glow.png",  # the lantern glass: the glb's own material
    "textures/crate_albedo.png", "textures/crate_normal.png",  # the crate glb's own material
}
MARKET_TEXTURES = SHARED_TEXTURES | {"textures/cobble_albedo.png", "textures/cobble_normal.png", "textures/awning_albedo.png"}
HARBOR_TEXTURES = SHARED_TEXTURES | {"textures/planks_albedo.png", "textures/planks_normal.png", "textures/water_foam.png"}
#: Desktop GPU bytes of every texture of the project (Godot VRAM Compressed: BC1 colour, BC5
#: normal maps, full mip chains; the title card Lossless without mips: RGBA8).
GODOT_TEXTURE_BYTES = {
    "textures/cobble_albedo.png": sum(_chain(4096, 4096, BC1)),
    "textures/cobble_normal.png": sum(_chain(4096, 4096, BC5)),
    "textures/planks_albedo.png": sum(_chain(4096, 4096, BC1)),
    "textures/planks_normal.png": sum(_chain(4096, 4096, BC5)),
    "textures/iron_albedo.png": sum(_chain(1024, 1024, BC1)),
    "textures/iron_normal.png": sum(_chain(1024, 1024, BC5)),
    "textures/brass_albedo.png": sum(_chain(1024, 1024, BC1)),
    "textures/brass_orm.png": sum(_chain(1024, 1024, BC1)),
    "textures/lantern_glow.png": sum(_chain(512, 512, BC1)),
    "textures/crate_albedo.png": sum(_chain(2048, 2048, BC1)),
    "textures/crate_normal.png": sum(_chain(2048, 2048, BC5)),
    "textures/awning_albedo.png": sum(_chain(2048, 2048, BC1)),
    "textures/water_foam.png": sum(_chain(1024, 1024, BC1)),
    "ui/title_card.png": 1920 * 1080 * 4,
    "textures/test/uv_checker.png": sum(_chain(4096, 4096, BC1)),
}


@pytest.fixture(scope="module")
def godot_project():
    """Every file of the project read by its reader, the graph, the project index, and the
    levels: the scenes no other scene instances, and the main scene."""
    from texbudget.levels.godot import GodotIndex
    from texbudget.levels.graph import Graph, instanced_scenes, resolve_level
    from texbudget.readers import kind_of, read_path, suffix_of

    files = [rel for rel in _tree(GODOT) if kind_of(suffix_of(rel)) is not None]
    results = {rel: read_path(GODOT, rel) for rel in files}
    graph = Graph([m for r in results.values() for m in r.meshes], [s for r in results.values() for s in r.scenes],
                  [t.path for r in results.values() for t in r.textures], files)
    index = GodotIndex(GODOT, files)
    inner = instanced_scenes(graph, index)
    scenes = sorted(s.path for s in graph.scenes.values() if s.role == "scene" and s.path not in inner)
    levels = {scene: resolve_level(scene, graph, index) for scene in scenes}
    return results, graph, index, levels


def test_godot_project_reads_without_a_finding(godot_project) -> None:
    results, _graph, index, levels = godot_project
    assert [f for r in results.values() for f in r.findings] == []
    assert [f for level in levels.values() for f in level.findings] == []
    assert index.findings == []
    assert all(level.wanted == () for level in levels.values())
    kinds = {}
    for rel in results:
        kinds[rel.rsplit(".", 1)[1]] = kinds.get(rel.rsplit(".", 1)[1], 0) + 1
    assert kinds == {"png": 15, "tscn": 7, "tres": 6, "glb": 2}


def test_godot_levels_are_the_unreferenced_scenes_and_the_main_scene_is_the_menu(godot_project) -> None:
    _results, _graph, index, levels = godot_project
    assert sorted(levels) == ["levels/harbor.tscn", "levels/market.tscn", "menu/main_menu.tscn"]
    assert index.main_scene("") == "menu/main_menu.tscn"  # run/main_scene is a uid://


def test_godot_levels_place_their_meshes_with_nested_counts(godot_project) -> None:
    _results, _graph, _index, levels = godot_project
    assert dict(levels["levels/market.tscn"].meshes) == MARKET_MESHES
    assert dict(levels["levels/harbor.tscn"].meshes) == HARBOR_MESHES
    assert dict(levels["menu/main_menu.tscn"].meshes) == {}


def test_godot_levels_load_their_textures_once_shared_ones_in_both(godot_project) -> None:
    _results, _graph, _index, levels = godot_project
    market, harbor = levels["levels/market.tscn"], levels["levels/harbor.tscn"]
    assert set(market.textures) == MARKET_TEXTURES and len(market.textures) == 10
    assert set(harbor.textures) == HARBOR_TEXTURES and len(harbor.textures) == 10
    assert set(market.textures) & set(harbor.textures) == SHARED_TEXTURES
    assert set(levels["menu/main_menu.tscn"].textures) == {"ui/title_card.png"}
    # who loads them: a .tres material, a material the glb's .import extracts (not the glb's
    # own), the glb's own material, a sub-resource material of a prop and of a level
    assert market.textures["textures/cobble_normal.png"] == (("materials/cobble.tres", "normal_texture"),)
    assert market.textures["textures/brass_orm.png"] == (("materials/brass.tres", "orm_texture"),)
    assert market.textures["textures/lantern_glow.png"] == (("models/lantern.glb#material/1", "emissive"),)
    assert market.textures["textures/awning_albedo.png"] == (("props/stall.tscn#material/0", "albedo_texture"),)
    assert harbor.textures["textures/water_foam.png"] == (("levels/harbor.tscn#material/0", "shader_parameter/foam_texture"),)
    level_bytes = {name: sum(GODOT_TEXTURE_BYTES[t] for t in level.textures) for name, level in levels.items()}
    assert level_bytes == {"levels/market.tscn": 48_409_432, "levels/harbor.tscn": 46_312_280, "menu/main_menu.tscn": 8_294_400}


def test_godot_unused_texture_is_in_the_folder_but_in_no_level(godot_project) -> None:
    results, _graph, _index, levels = godot_project
    in_folder = {t.path for r in results.values() for t in r.textures}
    loaded = set().union(*(level.textures for level in levels.values()))
    assert in_folder == set(GODOT_TEXTURE_BYTES)
    assert in_folder - loaded == {"textures/test/uv_checker.png"}


def test_godot_meshes_are_priced_from_their_stored_arrays(godot_project) -> None:
    """The ArrayMesh .tres surfaces (format version 2, uncompressed: position f32x3, then
    normal + tangent u16x2 each; UV f32x2; u16 indices) and the two glb files."""
    _results, graph, _index, _levels = godot_project
    facts = {path: (m.vertices, m.triangles, m.vertex_bytes, m.index_bytes) for path, m in graph.meshes.items()}
    assert facts["meshes/paving_tile.tres#mesh/0"] == (81, 128, 81 * (12 + 8 + 8), 384 * 2)  # 8x8 quads
    assert facts["meshes/lamp_post.tres#mesh/0"] == (24, 12, 24 * (12 + 8 + 8), 36 * 2)  # a box
    assert {p: f[:2] for p, f in facts.items() if p.startswith("models/")} == {
        "models/crate.glb#mesh/0": (54, 48),  # a box of 2x2 quads a face
        "models/lantern.glb#mesh/0": (24, 12),
        "models/lantern.glb#mesh/1": (4, 2),
    }
    assert graph.meshes["meshes/lamp_post.tres#mesh/0"].primitives[0].material == "uid://b53hvmx220pso::res://materials/iron.tres"


def test_godot_folder_scan_prices_every_texture_as_designed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scan of the whole folder (the .import settings decide each format)."""
    cli = pytest.importorskip("texbudget.cli")
    monkeypatch.chdir(REPO)
    code = cli.main(["scan", "assets/godot_demo", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads(out)
    assert {t["path"]: t["gpu_bytes"] for t in report["textures"]} == GODOT_TEXTURE_BYTES
    assert sum(GODOT_TEXTURE_BYTES.values()) == 102_142_192  # 97.41 MiB


def test_godot_folder_scan_names_the_materials_that_use_each_texture(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A texture a Godot material or scene of the project references is used (its material in
    ``used_by``, no TB006); only the one nothing references is TB006. The meshes the levels
    place count every level's instances (the whole scan is every level loaded at once)."""
    cli = pytest.importorskip("texbudget.cli")
    monkeypatch.chdir(REPO)
    assert cli.main(["scan", "assets/godot_demo", "--format", "json", "--no-cache"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {t["path"]: t["used_by"] for t in report["textures"]} == {
        "textures/awning_albedo.png": ["props/stall.tscn#material/0"],
        "textures/brass_albedo.png": ["materials/brass.tres"],
        "textures/brass_orm.png": ["materials/brass.tres"],
        "textures/cobble_albedo.png": ["materials/cobble.tres"],
        "textures/cobble_normal.png": ["materials/cobble.tres"],
        "textures/crate_albedo.png": ["models/crate.glb#material/0"],
        "textures/crate_normal.png": ["models/crate.glb#material/0"],
        "textures/iron_albedo.png": ["materials/iron.tres"],
        "textures/iron_normal.png": ["materials/iron.tres"],
        "textures/lantern_glow.png": ["models/lantern.glb#material/1"],
        "textures/planks_albedo.png": ["materials/planks.tres"],
        "textures/planks_normal.png": ["materials/planks.tres"],
        "textures/test/uv_checker.png": [],
        "textures/water_foam.png": ["levels/harbor.tscn#material/0"],
        "ui/title_card.png": ["menu/main_menu.tscn"],
    }
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("textures/test/uv_checker.png", "TB006")]
    # market + harbor (test_godot_levels_place_their_meshes_with_nested_counts)
    assert {m["path"]: m["instances"] for m in report["meshes"]} == {
        path: MARKET_MESHES[path] + HARBOR_MESHES[path] for path in MARKET_MESHES}
    assert {m["path"]: m["instances"] for m in report["meshes"]} == {
        "meshes/lamp_post.tres#mesh/0": 10, "meshes/paving_tile.tres#mesh/0": 109, "models/crate.glb#mesh/0": 21,
        "models/lantern.glb#mesh/0": 10, "models/lantern.glb#mesh/1": 40}
    # the title card is a TextureRect's (a 2D node's "texture"): detect_3d leaves it lossless,
    # RGBA8 without mips (GODOT_TEXTURE_BYTES), in the whole scan and in the menu's level:
    # 8,294,400 bytes in 127 64-KiB pages
    levels = {lv["name"]: lv["texture_bytes"] for lv in report["levels"]}
    assert levels["main_menu"] == 127 * 65536
