"""Levels as the engine loads them (issue 23, docs/levels.md), through ``main([...])`` on the
hand-made projects of ``level_projects``: ``scan LEVEL`` prices exactly what the level loads
(nested instances multiply, overrides replace, MultiMesh counts, a shared texture counts once,
missing and unreadable files and cycles are findings naming both files, uid:// and Unity
fileIDs resolve), ``[[level]]`` reports in every format, ``check --total`` names the level,
``diff`` compares levels, and a project without ``[[level]]`` lists its own levels."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.integration import level_projects as lp
from texbudget.cli import main
from texbudget.units import human_bytes

FLAGS = ("--cards", "8GB", "--resolution", "1080p", "--no-cache")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def scan_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "scan", *argv, "--format", "json", *FLAGS)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def findings(data: dict) -> list[tuple[str, str, str]]:
    return [(f["path"], f["code"], f["message"]) for f in data["findings"]]


@pytest.fixture
def godot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Godot project, run from a folder beside it (the root follows the level named)."""
    root = lp.godot_project(tmp_path / "game")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return root


@pytest.fixture
def unity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = lp.unity_project(tmp_path / "proj")
    monkeypatch.chdir(tmp_path)
    return root


def render_targets(data: dict) -> int:
    return data["scenarios"][0]["bytes"]["render_targets"]


# --- scan LEVEL -----------------------------------------------------------------------------------


def test_a_godot_level_prices_what_it_loads(capsys, godot):
    data = scan_json(capsys, str(godot / "levels" / "town.tscn"))
    assert [(m["path"], m["instances"], m["buffer_bytes"]) for m in data["meshes"]] == [
        ("meshes/rock.tres#mesh/0", 251, 780), ("meshes/barrel.tres#mesh/0", 4, 1800), ("meshes/stall.tres#mesh/0", 1, 1200)]
    assert {m["path"]: m["instances"] for m in data["meshes"]} == lp.TOWN_MESHES
    textures = {t["path"]: (t["allocated_bytes"], t["used_by"]) for t in data["textures"]}
    assert sorted(textures) == lp.TOWN_TEXTURES  # stone.png, cloth.png too (the meshes' own), not unused.png
    assert textures["tex/shared_n.png"] == (90112, ["mat/moss.tres", "mat/iron.tres"])  # shared: once, both users
    assert textures["tex/wood.png"] == (lp.ALLOCATED[256], ["mat/wood.tres"])
    assert sum(a for a, _ in textures.values()) == lp.TOWN_TEXTURE_BYTES == 249856
    scenario = data["scenarios"][0]
    assert scenario["bytes"]["textures"] == lp.TOWN_TEXTURE_BYTES and scenario["bytes"]["meshes"] == lp.TOWN_MESH_BYTES == 3780
    assert scenario["total_bytes"] == lp.TOWN_TEXTURE_BYTES + lp.TOWN_MESH_BYTES + render_targets(data)
    # a missing and an unreadable file: findings naming both files; the scan goes on
    assert findings(data) == [
        ("levels/town.tscn", "TB120", "loads res://props/gone.tscn (props/gone.tscn) (Town/Gone), which does not exist; not priced"),
        ("levels/town.tscn", "TB121", "loads res://props/broken.tscn (props/broken.tscn) (Town/Broken), which could not be read "
                                      "(its own finding says why); not priced"),
        ("props/broken.tscn", "TB100", "not a valid Godot text resource: line 3: expected '=' after this in [node …], got 'line'"),
    ]
    (level,) = data["levels"]
    assert {k: v for k, v in level.items() if k != "scenarios"} == {
        "name": "town", "scene": "levels/town.tscn", "source": "path", "textures": 6, "meshes": 3,
        "texture_bytes": lp.TOWN_TEXTURE_BYTES, "mesh_bytes": lp.TOWN_MESH_BYTES, "instances": 256}
    assert level["scenarios"] == data["scenarios"]


def test_the_level_is_read_alone_and_its_root_is_the_project(capsys, godot):
    """Only what the level loads is read: the other scenes, materials and textures are not."""
    code, out, _ = run(capsys, "scan", str(godot / "levels" / "town.tscn"), *FLAGS)
    assert code == 0
    # content: 3 × 43,704 (256²) + 2 × 10,936 (128²) + 87,408 (the BC5 normal map) = 240,392 bytes
    assert out.splitlines()[:2] == ["texbudget: 6 textures, 3 meshes, 3 findings — platform desktop, config defaults",
                                    "level town: levels/town.tscn and what it loads: 6 textures (234.76 KiB content, "
                                    "244.00 KiB allocated), 3 meshes (256 instances)"]
    start = out.splitlines().index("Meshes the level places, by instances:")
    assert out.splitlines()[start + 1:start + 5] == [
        "instances  mesh                         buffer",
        "      251  meshes/rock.tres#mesh/0       780 B",
        "        4  meshes/barrel.tres#mesh/0  1.76 KiB",
        "        1  meshes/stall.tres#mesh/0   1.17 KiB",
    ]
    # the root is the folder of project.godot, though the file is two folders down
    data = scan_json(capsys, "../game/levels/town.tscn")
    assert data["meshes"][0]["path"] == "meshes/rock.tres#mesh/0"


def test_a_scene_that_instances_itself_is_a_finding_not_a_hang(capsys, godot):
    data = scan_json(capsys, str(godot / "levels" / "loop.tscn"))
    assert [(m["path"], m["instances"]) for m in data["meshes"]] == [("meshes/barrel.tres#mesh/0", 1)]
    assert findings(data) == [("levels/loop.tscn", "TB122", "instances res://levels/loop.tscn (Loop/Again), which instances this "
                                                            "scene again (levels/loop.tscn -> levels/loop.tscn); that instance is not followed")]


def test_a_cycle_through_other_scenes(capsys, godot):
    lp.write(godot, "props/a.tscn", '[gd_scene format=3]\n[ext_resource type="PackedScene" path="res://props/b.tscn" id="1"]\n'
                                    '[node name="A" type="Node3D"]\n[node name="B" parent="." instance=ExtResource("1")]\n')
    lp.write(godot, "props/b.tscn", '[gd_scene format=3]\n[ext_resource type="PackedScene" path="res://props/a.tscn" id="1"]\n'
                                    '[ext_resource type="ArrayMesh" path="res://meshes/rock.tres" id="2"]\n'
                                    '[node name="B" type="Node3D"]\n[node name="A" parent="." instance=ExtResource("1")]\n'
                                    '[node name="Rock" type="MeshInstance3D" parent="."]\nmesh = ExtResource("2")\n')
    data = scan_json(capsys, str(godot / "props" / "a.tscn"))
    assert [(m["path"], m["instances"]) for m in data["meshes"]] == [("meshes/rock.tres#mesh/0", 1)]
    assert [t["path"] for t in data["textures"]] == ["tex/stone.png"]  # the rock's own material here
    assert findings(data) == [("props/b.tscn", "TB122", "instances res://props/a.tscn (B/A), which instances this scene again "
                                                        "(props/a.tscn -> props/b.tscn -> props/a.tscn); that instance is not followed")]


def test_a_unity_level_prices_what_it_loads(capsys, unity):
    data = scan_json(capsys, "proj/Assets/Scenes/Main.unity")
    assert [(m["path"], m["name"], m["instances"], m["buffer_bytes"]) for m in data["meshes"]] == [
        ("Assets/Models/Crate.fbx#mesh/0", "Crate", 8, lp.MAIN_MESH_BYTES)]
    assert lp.MAIN_MESH_BYTES == 648
    textures = {t["path"]: (t["gpu_format"], t["allocated_bytes"], t["used_by"]) for t in data["textures"]}
    assert textures == {
        "Assets/Textures/normal.png": ("BC1_RGB_UNORM", lp.ALLOCATED[256], ["Assets/Materials/Painted.mat"]),
        "Assets/Textures/paint.png": ("BC1_RGB_SRGB", lp.ALLOCATED[128], ["Assets/Materials/Painted.mat"]),
        "Assets/Textures/wood.png": ("BC1_RGB_SRGB", lp.ALLOCATED[256], ["Assets/Materials/Wood.mat"]),
    }
    assert data["levels"][0]["texture_bytes"] == lp.MAIN_TEXTURE_BYTES == 102400
    ghost = uf_guid("deleted-model")
    assert findings(data) == [
        ("Assets/Scenes/Main.unity", "TB124", "material unity:0000000000000000f000000000000000:10303 is Unity's Default-Material "
                                              "(built-in): shipped with the engine, not priced"),
        ("Assets/Scenes/Main.unity", "TB124", "mesh unity:0000000000000000e000000000000000:10202 (Box) is Unity's Cube mesh "
                                              "(built-in): shipped with the engine, not priced"),
        ("Assets/Scenes/Main.unity", "TB123", f"mesh unity:{ghost}:4300000 (Ghost): guid {ghost} is in no .meta under the scan root: "
                                              "a deleted asset, or one outside it (a package in Library/PackageCache); not priced"),
        ("Assets/Scenes/Main.unity", "TB113", "1 prefab instance overrides 1 material or mesh: the overriding assets are counted as "
                                              "well as the prefab's own (an overestimate where nothing else uses them)"),
        ("Assets/Prefabs/CrateVariant.prefab", "TB113", "1 prefab instance overrides 1 material or mesh: the overriding assets are "
                                                        "counted as well as the prefab's own (an overestimate where nothing else uses them)"),
    ]


def uf_guid(name: str) -> str:
    from tests.readers.unity_files import guid

    return guid(name)


def test_a_unity_folder_scan_names_the_materials_that_use_each_texture(capsys, unity):
    """The whole scan of a Unity project: a texture a .mat references is used (the .mat in
    ``used_by``, no TB006); the unreferenced one is TB006; the FBX's mesh counts the instances
    the project's one Build Settings scene places (8), not its own scene graph's (1)."""
    code, out, _ = run(capsys, "scan", str(unity), "--no-cache", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert {t["path"]: t["used_by"] for t in data["textures"]} == {
        "Assets/Textures/normal.png": ["Assets/Materials/Painted.mat"],
        "Assets/Textures/paint.png": ["Assets/Materials/Painted.mat"],
        "Assets/Textures/unused.png": [],
        "Assets/Textures/wood.png": ["Assets/Materials/Wood.mat"],
    }
    assert [p for p, c, _ in findings(data) if c == "TB006"] == ["Assets/Textures/unused.png"]
    assert {m["path"]: m["instances"] for m in data["meshes"]} == lp.MAIN_MESHES == {"Assets/Models/Crate.fbx#mesh/0": 8}


def test_a_unity_mesh_named_by_the_model_meta_table(capsys, unity):
    """A legacy fileID (4300000) the model's .meta names: the mesh of that name."""
    lp.write(unity, "Assets/Models/Crate.fbx.meta", lp._meta(lp.GUIDS["model"], "ModelImporter",
                                                             "  fileIDToRecycleName:\n    4300000: Crate\n    2100000: Wood\n"))
    text = (unity / "Assets/Scenes/Main.unity").read_text()
    from texbudget.levels.unity import hashed_file_id

    (unity / "Assets/Scenes/Main.unity").write_text(text.replace(f"fileID: {hashed_file_id('Mesh', 'Crate')},", "fileID: 4300000,"))
    data = scan_json(capsys, "proj/Assets/Scenes/Main.unity")
    # the scene's two loose crates now name the mesh by the table; the prefabs still by the hash
    assert [(m["path"], m["instances"]) for m in data["meshes"]] == [("Assets/Models/Crate.fbx#mesh/0", 8)]


def test_a_model_that_cannot_be_read_is_a_finding_naming_both(capsys, unity):
    (unity / "Assets/Models/Crate.fbx").write_bytes(b"Kaydara FBX Binary  \x00\x1a\x00" + b"\x00" * 8)
    data = scan_json(capsys, "proj/Assets/Prefabs/Crate.prefab")
    assert data["meshes"] == []
    assert [(p, c) for p, c, _ in findings(data)] == [("Assets/Prefabs/Crate.prefab", "TB121"), ("Assets/Models/Crate.fbx", "TB093")]
    assert findings(data)[0][2] == (f"loads unity:{lp.GUIDS['model']}:{crate_id()} (Assets/Models/Crate.fbx) (Crate), which could "
                                    "not be read (its own finding says why); not priced")


def crate_id() -> int:
    from texbudget.levels.unity import hashed_file_id

    return hashed_file_id("Mesh", lp.CRATE_MESH)


def test_a_gltf_level_loads_its_materials_images(capsys, tmp_path, monkeypatch):
    from tests.readers.gltf_factories import GltfBuilder, triangle_mesh

    lp.png(tmp_path / "tex" / "used.png", 256)
    lp.png(tmp_path / "tex" / "other.png", 128)
    b = GltfBuilder()
    b.add_image_uri("tex/used.png")
    b.add_image_uri("tex/other.png")  # an image no material uses: not loaded
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}})
    mesh = triangle_mesh(b, 3, [0, 1, 2], material=0)
    b.add_scene([b.add_node(mesh=mesh), b.add_node(mesh=mesh)])
    b.write_gltf(tmp_path / "level.gltf")
    monkeypatch.chdir(tmp_path)
    data = scan_json(capsys, "level.gltf")
    assert [(t["path"], t["allocated_bytes"]) for t in data["textures"]] == [("tex/used.png", lp.ALLOCATED[256])]
    assert [(m["path"], m["instances"]) for m in data["meshes"]] == [("level.gltf#mesh/0", 2)]
    assert data["levels"][0]["name"] == "level"


def test_a_level_follows_files_the_scan_excludes(capsys, godot):
    """The engine loads what the level names, whatever [scan] exclude says; the whole scan
    leaves the folder out, the level counts it."""
    (godot / "texbudget.toml").write_text('[scan]\nexclude = ["tex/**"]\n\n[[level]]\nscene = "levels/town.tscn"\n')
    data = scan_json(capsys, str(godot))
    assert [t["path"] for t in data["textures"]] == []
    assert data["levels"][0]["textures"] == 6 and data["levels"][0]["texture_bytes"] == lp.TOWN_TEXTURE_BYTES


# --- [[level]] ---------------------------------------------------------------------------------

CONFIG = """[budget]
cards = ["8GB", "1GB"]
resolutions = ["1080p"]
reserve_min = "900 MiB"

[[level]]
name = "town"
scene = "levels/town.tscn"

[[level]]
scene = "levels/loop.tscn"
"""
#: 1 GiB less the 900 MiB reserve
USABLE_1GB = (1024 - 900) << 20


@pytest.fixture
def configured(godot: Path) -> Path:
    (godot / "texbudget.toml").write_text(CONFIG)
    return godot


def test_levels_in_json(capsys, configured):
    code, out, _ = run(capsys, "scan", str(configured), "--no-cache", "--format", "json")
    data = json.loads(out)
    assert code == 0 and len(data["textures"]) == 7  # the top level stays the whole scan
    rt = render_targets(data)
    town, loop = data["levels"]
    assert {k: v for k, v in town.items() if k != "scenarios"} == {
        "name": "town", "scene": "levels/town.tscn", "source": "config", "textures": 6, "meshes": 3,
        "texture_bytes": 249856, "mesh_bytes": 3780, "instances": 256}
    assert {k: v for k, v in loop.items() if k != "scenarios"} == {
        "name": "loop", "scene": "levels/loop.tscn", "source": "config", "textures": 1, "meshes": 1,
        "texture_bytes": lp.ALLOCATED[256], "mesh_bytes": 1800, "instances": 1}
    (s,) = town["scenarios"]
    assert s["bytes"] == {"textures": 249856, "meshes": 3780, "acceleration_structures": 0, "render_targets": rt}
    assert s["total_bytes"] == 249856 + 3780 + rt
    assert [(c["name"], c["usable_bytes"], c["free_bytes"], c["verdict"]) for c in s["cards"]][1] == (
        "1GB", USABLE_1GB, USABLE_1GB - s["total_bytes"], "over")
    assert set(s) == set(data["scenarios"][0])  # the shape of the top-level scenarios
    assert s["fixes"] and all(f["card"] == "1GB" for f in s["fixes"])  # a named level's fixes are searched
    # the levels' findings join the report's, each once; the one texture no material of the
    # project references is unused (its materials' textures are used: no TB006 for them)
    assert [c for _, c, _ in findings(data)] == ["TB100", "TB006", "TB120", "TB121", "TB122"]
    assert [p for p, c, _ in findings(data) if c == "TB006"] == ["tex/unused.png"]


def test_levels_in_text_markdown_and_csv(capsys, configured):
    code, out, _ = run(capsys, "scan", str(configured), "--no-cache")
    total = json.loads(run(capsys, "scan", str(configured), "--no-cache", "--format", "json")[1])["levels"]
    town_total, loop_total = (human_bytes(lv["scenarios"][0]["total_bytes"]) for lv in total)
    lines = out.splitlines()
    at = lines.index("Levels ([[level]]), each judged alone:")
    assert lines[at + 1: at + 4] == [
        "level  scene             textures  meshes  texture VRAM  mesh VRAM  largest total   worst",
        f"town   levels/town.tscn         6       3    244.00 KiB   3.69 KiB     {town_total}  ✗ over",
        f"loop   levels/loop.tscn         1       1     44.00 KiB   1.76 KiB     {loop_total}  ✗ over",
    ]
    assert lines[at + 5: at + 9] == ["Level town (levels/town.tscn), verdict:", "                              8GB        1GB   (GiB used/usable)",
                                     "1920x1080 ultra RT off  0.2/7.1 ✓  0.2/0.1 ✗", ""]
    # each judged level's fixes, as its JSON scenarios hold them (1GB is over by the JSON's free bytes)
    town_free = human_bytes(-total[0]["scenarios"][0]["cards"][1]["free_bytes"])
    assert lines[at + 9: at + 15] == [
        "What would make level town fit:",
        f"1GB, 1920x1080 ultra RT off (over, -{town_free} free):",
        "  - render at the upscaler's performance preset (was native; working set is an estimate): saves 39.05 MiB",
        "  - drop the top 3 mips of every texture in tex/*: saves 220.00 KiB",
        "    together: 39.27 MiB — not enough on its own",
        "",
    ]
    assert [(f["action"], f["saves_bytes"]) for f in total[0]["scenarios"][0]["fixes"]][1] == (
        "drop the top 3 mips of every texture in tex/*", 220 * 1024)
    assert human_bytes(249856) == "244.00 KiB" and human_bytes(3780) == "3.69 KiB"
    code, md, _ = run(capsys, "scan", str(configured), "--no-cache", "--format", "markdown")
    assert (f"| town | `levels/town.tscn` | 6 | 3 | 244.00 KiB | 3.69 KiB | {town_total} | ✗ over |") in md.splitlines()
    assert md.count("What would make level town fit:") == 1 and md.count("What would make level loop fit:") == 1
    assert "#### Level loop (`levels/loop.tscn`)" in md.splitlines()
    code, csv_text, _ = run(capsys, "scan", str(configured), "--no-cache", "--format", "csv")
    rows = csv_text.split("\r\n")
    assert code == 0 and rows[0].endswith(",blas_bytes,level,scenario,card,total_bytes,usable_bytes,free_bytes,verdict")
    town = [r for r in rows if r.startswith("level,levels/town.tscn,")]
    total_bytes = total[0]["scenarios"][0]["total_bytes"]
    usable_8gb = total[0]["scenarios"][0]["cards"][0]["usable_bytes"]
    assert town == [
        f"level,levels/town.tscn,,,,,,,,,,,,249856,,,,,3780,,town,1920x1080 ultra RT off,8GB,{total_bytes},{usable_8gb},"
        f"{usable_8gb - total_bytes},fits",
        f"level,levels/town.tscn,,,,,,,,,,,,249856,,,,,3780,,town,1920x1080 ultra RT off,1GB,{total_bytes},{USABLE_1GB},"
        f"{USABLE_1GB - total_bytes},over",
    ]
    assert usable_8gb == (8 << 30) - (900 << 20)  # the reserve: max(900 MiB, 7 % of 8 GiB)


def test_check_total_judges_each_level_and_names_it(capsys, configured):
    data = json.loads(run(capsys, "scan", str(configured), "--no-cache", "--format", "json")[1])
    town, loop = (lv["scenarios"][0]["total_bytes"] for lv in data["levels"])
    code, out, err = run(capsys, "check", "--total", str(configured), "--no-cache")
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "props/broken.tscn: not a valid Godot text resource: line 3: expected '=' after this in [node …], got 'line' [TB100]",
        "levels/town.tscn: loads res://props/gone.tscn (props/gone.tscn) (Town/Gone), which does not exist; not priced [TB120]",
        "levels/loop.tscn: instances res://levels/loop.tscn (Loop/Again), which instances this scene again "
        "(levels/loop.tscn -> levels/loop.tscn); that instance is not followed [TB122]",
        f"levels/town.tscn: level town: 1920x1080 ultra rt off: over on 1GB by {human_bytes(town - USABLE_1GB)} "
        f"(total {human_bytes(town)}, usable 124.00 MiB) [TB030]",
        f"levels/loop.tscn: level loop: 1920x1080 ultra rt off: over on 1GB by {human_bytes(loop - USABLE_1GB)} "
        f"(total {human_bytes(loop)}, usable 124.00 MiB) [TB030]",
        "texbudget check: 5 problems in 3 files",
    ]
    # a level that fits and a project whose references all resolve: exit 0, quiet
    shutil.rmtree(configured / "props")
    (configured / "texbudget.toml").write_text(CONFIG.replace('"8GB", "1GB"', '"8GB"').replace(
        '[[level]]\nname = "town"\nscene = "levels/town.tscn"\n\n', ""))
    (configured / "levels" / "town.tscn").unlink()
    (configured / "levels" / "loop.tscn").write_text(lp.LOOP.replace('[node name="Again" parent="." instance=ExtResource("1_self")]\n', ""))
    assert run(capsys, "check", "--total", str(configured), "--no-cache") == (0, "", "")


def test_check_total_of_one_level_names_it(capsys, godot):
    (godot / "texbudget.toml").write_text('[budget]\ncards = ["1GB"]\nresolutions = ["1080p"]\nreserve_min = "900 MiB"\n')
    (godot / "levels" / "town.tscn").write_text(lp.TOWN.replace('[node name="Gone" parent="." instance=ExtResource("5_g")]\n', "")
                                                .replace('[node name="Broken" parent="." instance=ExtResource("6_x")]\n', ""))
    code, out, _ = run(capsys, "check", "--total", str(godot / "levels" / "town.tscn"), "--no-cache")
    data = scan_json(capsys, str(godot / "levels" / "town.tscn"))
    total = data["scenarios"][0]["total_bytes"]
    assert total == lp.TOWN_TEXTURE_BYTES + lp.TOWN_MESH_BYTES + render_targets(data)
    assert (code, out.splitlines()) == (1, [
        f"levels/town.tscn: level town: 1920x1080 ultra rt off: over on 1GB by {human_bytes(total - USABLE_1GB)} "
        f"(total {human_bytes(total)}, usable 124.00 MiB) [TB030]",
        "texbudget check: 1 problem in 1 file"])
    # without --total a scene named is a file to check (the pre-commit hook): its own findings only
    assert run(capsys, "check", str(godot / "levels" / "town.tscn"), "--no-cache") == (0, "", "")


def test_diff_compares_levels(capsys, configured, tmp_path):
    base = tmp_path / "base.json"
    head = tmp_path / "head.json"
    base.write_text(run(capsys, "scan", str(configured), "--no-cache", "--format", "json")[1])
    # the town's barrels get a 512 px texture instead: +150 KiB in the town, the loop too
    (configured / "mat" / "wood.tres").write_text(lp.material(("albedo_texture", "res://tex/unused.png")))
    head.write_text(run(capsys, "scan", str(configured), "--no-cache", "--format", "json")[1])
    b, h = (json.loads(p.read_text()) for p in (base, head))
    town_before, town_after = b["levels"][0]["scenarios"][0]["total_bytes"], h["levels"][0]["scenarios"][0]["total_bytes"]
    assert town_after - town_before == lp.ALLOCATED[512] - lp.ALLOCATED[256] == 151552
    code, out, _ = run(capsys, "diff", str(base), str(head))
    assert code == 0
    lines = out.splitlines()
    at = lines.index("### Levels")
    assert lines[at + 2: at + 6] == [
        "| level | scenario | before | after | change | verdicts |", "|---|---|--:|--:|--:|---|",
        f"| town (`levels/town.tscn`) | 1080p ultra RT off | {human_bytes(town_before)} | {human_bytes(town_after)} | "
        f"+148.00 KiB (+0.1 %) | unchanged |",
        f"| loop (`levels/loop.tscn`) | 1080p ultra RT off | {human_bytes(b['levels'][1]['scenarios'][0]['total_bytes'])} | "
        f"{human_bytes(h['levels'][1]['scenarios'][0]['total_bytes'])} | +148.00 KiB (+0.1 %) | unchanged |",
    ]


# --- levels found in the project ---------------------------------------------------------------


def test_a_godot_project_lists_its_levels(capsys, godot):
    code, out, _ = run(capsys, "scan", str(godot), *FLAGS)
    lines = out.splitlines()
    at = lines.index("Levels: the project's main scene and the scenes nothing else instances (set [[level]] to judge them):")
    data = scan_json(capsys, str(godot))
    totals = [human_bytes(lv["scenarios"][0]["total_bytes"]) for lv in data["levels"]]
    assert lines[at - 1: at + 5] == [
        "", lines[at],
        "level  scene             textures  meshes  texture VRAM  mesh VRAM  largest total   worst",
        f"town   levels/town.tscn         6       3    244.00 KiB   3.69 KiB     {totals[0]}  ✓ fits",
        f"loop   levels/loop.tscn         1       1     44.00 KiB   1.76 KiB     {totals[1]}  ✓ fits",
        "",
    ]
    assert lines[at - 2].startswith("1920x1080 ultra RT off")  # under the matrix
    assert [(lv["name"], lv["source"], lv["scenarios"][0]["fixes"]) for lv in data["levels"]] == [("town", "auto", []), ("loop", "auto", [])]
    # check does not judge them, but their findings are the project's
    code, out, _ = run(capsys, "check", str(godot), "--no-cache")
    assert code == 1 and [line.rsplit(" ", 1)[-1] for line in out.splitlines()[:-1]] == ["[TB100]", "[TB120]", "[TB122]"]


def test_a_unity_project_lists_its_build_settings_scenes(capsys, unity):
    lp.write(unity, "Assets/Scenes/Sandbox.unity", lp.uf.HEAD + lp.uf.scene_settings())  # not in Build Settings
    data = scan_json(capsys, str(unity))
    assert [(lv["name"], lv["scene"], lv["meshes"], lv["instances"], lv["texture_bytes"]) for lv in data["levels"]] == [
        ("Main", "Assets/Scenes/Main.unity", 1, 8, lp.MAIN_TEXTURE_BYTES)]
    # without Build Settings every scene is a level
    (unity / "ProjectSettings" / "EditorBuildSettings.asset").unlink()
    data = scan_json(capsys, str(unity))
    assert [lv["name"] for lv in data["levels"]] == ["Main", "Sandbox"]


def test_a_tree_without_engine_scenes_has_no_levels(capsys, tmp_path):
    lp.png(tmp_path / "a.png", 128)
    data = scan_json(capsys, str(tmp_path))
    assert "levels" not in data
    code, csv_text, _ = run(capsys, "scan", str(tmp_path), "--no-cache", "--format", "csv")
    from texbudget.report.csv import COLUMNS

    assert code == 0 and csv_text.split("\r\n")[0] == ",".join(COLUMNS)
    # scenes in no project are no levels either
    lp.write(tmp_path, "loose/a.tscn", lp.BARREL)
    assert "levels" not in scan_json(capsys, str(tmp_path))


# --- the config ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "message"), [
    ('[[level]]\nname = "town"\n', "[[level]] #1: needs 'scene', the level's scene file relative to the scan root (.tscn, .scn, .escn, .unity, .prefab, .gltf, .glb)"),
    ('[[level]]\nscene = "a.tscn"\nnmae = "x"\n', "[[level]] #1: unknown key 'nmae'; did you mean 'name'? (allowed: name, scene)"),
    ('[[level]]\nscene = "a.png"\n', "[[level]] #1 scene = 'a.png': a level is a scene file: .tscn, .scn, .escn, .unity, .prefab, .gltf, .glb"),
    ('[[level]]\nscene = "../a.tscn"\n', "[[level]] #1 scene = '../a.tscn': a path relative to the scan root, inside it"),
    ('[[level]]\nscene = "a.tscn"\n[[level]]\nscene = "b/a.tscn"\n', "[[level]] #2 name = 'a': another [[level]] has that name (a.tscn); names must differ"),
    ('[[level]]\nscene = 3\n', "[[level]] #1 scene = 3: must be a string"),
    ('level = "a.tscn"\n', "[[level]] = 'a.tscn': must be an array of tables ([[...]])"),
])
def test_bad_level_tables_are_one_line(capsys, tmp_path, table, message):
    (tmp_path / "texbudget.toml").write_text(table)
    code, out, err = run(capsys, "scan", str(tmp_path), "--no-cache")
    assert (code, out) == (2, "")
    assert err == f"texbudget: error: {tmp_path / 'texbudget.toml'}: {message}\n"


def test_a_level_scene_that_does_not_exist_is_one_line(capsys, godot):
    (godot / "texbudget.toml").write_text('[[level]]\nname = "old"\nscene = "levels/old.tscn"\n')
    code, out, err = run(capsys, "scan", str(godot), "--no-cache")
    assert (code, out) == (2, "")
    assert err == (f"texbudget: error: {godot / 'texbudget.toml'}: [[level]] #1 (old) scene = 'levels/old.tscn': "
                   f"no such file under the scan root {godot}\n")


def test_an_unknown_uid_is_a_finding_saying_why(capsys, godot):
    """A uid no file of the project has, without a path to fall back on (TB123), and the
    Godot index used directly as the resolver's project."""
    lp.write(godot, "levels/lost.tscn", '[gd_scene format=3]\n[ext_resource type="PackedScene" uid="uid://cnothing" id="1"]\n'
                                        '[node name="Lost" type="Node3D"]\n[node name="X" parent="." instance=ExtResource("1")]\n')
    data = scan_json(capsys, str(godot / "levels" / "lost.tscn"))
    assert findings(data) == [("levels/lost.tscn", "TB123", "instance uid://cnothing (Lost/X): uid://cnothing is the uid of no file of "
                                                            "the project (.import, .uid or a resource's header); not priced")]
    from texbudget import config as config_mod
    from texbudget.levels.godot import GodotIndex
    from texbudget.levels.graph import resolve_level
    from texbudget.levels.reading import graph_of
    from texbudget.scan.scene import read_scene

    scan = read_scene(godot, config_mod.load(None))
    level = resolve_level("levels/town.tscn", graph_of(scan, set(scan.files)), GodotIndex(godot, scan.files))
    assert level.meshes == lp.TOWN_MESHES


def test_a_level_with_many_meshes_lists_the_most_placed(capsys, godot, monkeypatch: pytest.MonkeyPatch):
    import texbudget.report.levels as levels_report

    monkeypatch.setattr(levels_report, "MAX_PLACED_ROWS", 2)
    _, out, _ = run(capsys, "scan", str(godot / "levels" / "town.tscn"), *FLAGS)
    lines = out.splitlines()
    start = lines.index("Meshes the level places, by instances:")
    assert lines[start + 2:start + 5] == [
        "      251  meshes/rock.tres#mesh/0       780 B",
        "        4  meshes/barrel.tres#mesh/0  1.76 KiB",
        "… and 1 more mesh (--format json lists every one)",
    ]


def test_a_level_s_markdown_says_what_it_loads_and_places(capsys, godot):
    _, md, _ = run(capsys, "scan", str(godot / "levels" / "town.tscn"), *FLAGS, "--format", "markdown")
    lines = md.splitlines()
    start = lines.index("Level town: `levels/town.tscn` and what it loads: 6 textures (234.76 KiB content, "
                        "244.00 KiB allocated), 3 meshes (256 instances).")
    assert lines[start + 1:start + 9] == [
        "", "#### Meshes the level places", "",
        "| instances | mesh | buffer |", "|--:|---|--:|",
        "| 251 | `meshes/rock.tres#mesh/0` | 780 B |",
        "| 4 | `meshes/barrel.tres#mesh/0` | 1.76 KiB |",
        "| 1 | `meshes/stall.tres#mesh/0` | 1.17 KiB |",
    ]
