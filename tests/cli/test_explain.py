"""``texbudget explain``: one asset in depth — a BC7 KTX2, a PNG source with a Godot
``.import``, and a glTF mesh — with golden text files and exact lines whose numbers are
recomputed here (block formula, the NVIDIA BLAS model), plus path lookup.

To rewrite the golden files after an intended change, run
``REGENERATE=1 pytest tests/cli/test_explain.py`` and review the diff of ``tests/cli/golden/``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.readers import factories as fx
from tests.readers.gltf_factories import GltfBuilder, png_bytes
from texbudget import config, pipeline
from texbudget.errors import UsageError
from texbudget.pipeline import TextureRow
from texbudget.report import explain
from texbudget.scan.scene import read_scene
from texbudget.sizing.meshes import MeshCost

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("REGENERATE") == "1"

CONFIG = """\
[budget]
cards = ["8GB"]
resolutions = ["1080p"]
rt = ["nvidia"]
quality = ["ultra"]
"""

DOOR_IMPORT = """\
[remap]

importer="texture"
type="CompressedTexture2D"

[params]

compress/mode=2
compress/high_quality=false
compress/normal_map=1
mipmaps/generate=true
process/size_limit=0
detect_3d/compress_to=1
"""


def build(base: Path, quality: str = "ultra") -> Path:
    root = base / "explain"
    fx.write(root, "texbudget.toml", CONFIG.replace('"ultra"', f'"{quality}"').encode())
    fx.write(root, "textures/wall_albedo.ktx2",
             fx.ktx2_bytes(1024, 1024, vk_format=146, levels=11, dfd=fx.dfd_bytes(transfer=2)))
    fx.write(root, "textures/door_normal.png", fx.png_bytes(512, 512, color_type=2))
    fx.write(root, "textures/door_normal.png.import", DOOR_IMPORT.encode())
    b = GltfBuilder()
    pos = b.positions(4)
    nrm = b.vec(4, "VEC3")
    uv = b.vec(4, "VEC2")
    idx = b.indices([0, 1, 2, 0, 2, 3])
    strip_pos = b.positions(5)
    b.add_image_uri("textures/door_normal.png")
    b.add_texture(0)
    b.add_material(name="door", normalTexture={"index": 0})
    b.add_mesh([
        {"attributes": {"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv}, "indices": idx, "material": 0},
        {"attributes": {"POSITION": strip_pos}, "mode": 5},
    ], "door")
    nodes = [b.add_node(mesh=0, translation=[float(i), 0.0, 0.0]) for i in range(3)]
    b.add_scene(nodes)
    b.write_gltf(root / "house.gltf")
    g = GltfBuilder()
    g.add_image_view(png_bytes(8, 8))
    g.add_texture(0)
    g.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": 0}})
    from tests.readers.gltf_factories import triangle_mesh

    triangle_mesh(g, 3, [0, 1, 2], name="tri", material=0)
    g.add_scene([g.add_node(mesh=0)])
    g.write_glb(root / "props.glb")
    return root


def report_of(root: Path):
    cfg = config.load(root / "texbudget.toml")
    scan = read_scene(root, cfg, jobs=1)
    return pipeline.evaluate(scan, pipeline.build_settings(cfg)), scan


@pytest.fixture
def scene(tmp_path: Path):
    return report_of(build(tmp_path))


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGENERATE:
        path.write_bytes((text + "\n").encode("utf-8"))
        return
    assert path.exists(), f"{path} is missing; run REGENERATE=1 pytest {__file__}"
    assert text + "\n" == path.read_bytes().decode("utf-8")


def bc7(w: int, h: int, levels: int) -> list[int]:
    return [-(-max(1, w >> i) // 4) * -(-max(1, h >> i) // 4) * 16 for i in range(levels)]


# --- a BC7 KTX2 ---------------------------------------------------------------------------------


def test_bc7_ktx2(scene) -> None:
    report, _ = scene
    text = explain.render(report, "textures/wall_albedo.ktx2")
    golden("explain_wall_albedo.txt", text)
    lines = text.splitlines()
    assert lines[0] == "textures/wall_albedo.ktx2 (texture)"
    assert "  stored format     BC7_SRGB" in lines
    assert "  gpu format    BC7_SRGB (VK_FORMAT_BC7_SRGB_BLOCK, DXGI_FORMAT_BC7_UNORM_SRGB)" in lines
    assert "  decided by    stored format BC7_SRGB" in lines
    levels = bc7(1024, 1024, 11)
    assert levels[:3] == [1048576, 262144, 65536]
    for i, n in enumerate(levels):
        side = max(1, 1024 >> i)
        assert f"  {i:>5}  {side:>6}  {side:>6}  {n:>14,}" in lines
    content = sum(levels)
    assert content == 1398128
    assert f"  content    {content:,} B (1.33 MiB)" in lines
    assert "  allocated  1,441,792 B (1.38 MiB), D3D12 placement alignment; an estimate" in lines  # 22 x 64 KiB
    # alternatives: the current row, and BC7 capped at 512 saving 1,441,792 - 393,216 (6 x 64 KiB)
    assert "  BC7_SRGB                    —   1024x1024     11      1,398,128    1.38 MiB            —  ← current" in lines
    assert f"  BC7_SRGB                  512     512x512     10        {sum(bc7(512, 512, 10)):,}  384.00 KiB    +1.00 MiB" in lines
    assert "Engine import settings" not in text


# --- a PNG with a Godot .import -----------------------------------------------------------------


def test_png_with_godot_import(scene) -> None:
    report, scan = scene
    text = explain.render(report, "textures/door_normal.png")
    assert text == explain.render(report, "textures/door_normal.png", engines=scan.engine)
    golden("explain_door_normal.txt", text)
    lines = text.splitlines()
    assert "  stored format     —" in lines
    assert "  channels          3" in lines
    assert "  gpu format    BC5_UNORM (VK_FORMAT_BC5_UNORM_BLOCK, DXGI_FORMAT_BC5_UNORM)" in lines
    assert "  role          normal" in lines
    assert "  mips          generated at load, 10 levels" in lines
    assert "  decided by    Godot .import: VRAM compressed, normal map → BC5_UNORM" in lines
    i = lines.index("Engine import settings (Godot, door_normal.png.import):")
    assert lines[i + 1:i + 8] == [
        "  importer               texture",
        "  compress/mode          2",
        "  compress/high_quality  false",
        "  compress/normal_map    1",
        "  mipmaps/generate       true",
        "  process/size_limit     0",
        "  detect_3d/compress_to  1",
    ]
    assert "  house.gltf#material/0" in lines
    content = sum(bc7(512, 512, 10))  # BC5 has BC7's 16-byte 4x4 blocks
    assert f"  content    {content:,} B (341.36 KiB)" in lines
    assert "  BC5_UNORM                   —     512x512     10        349,552  384.00 KiB            —  ← current" in lines
    assert "  R8G8B8A8_UNORM              —     512x512     10      1,398,100    1.38 MiB    -1.00 MiB" in lines


def test_quality_tier_drop_is_marked(tmp_path: Path) -> None:
    report, _ = report_of(build(tmp_path, quality="high"))
    lines = explain.render(report, "textures/door_normal.png").splitlines()
    assert "  quality tier  high: drops 1 top level" in lines
    assert "      0     512     512         262,144  dropped by the quality tier" in lines
    assert "      1     256     256          65,536" in lines
    assert f"  content    {sum(bc7(256, 256, 9)):,} B (85.36 KiB)" in lines


# --- a glTF mesh --------------------------------------------------------------------------------


def nvidia_blas(triangles: int) -> tuple[int, int]:
    """(prebuild, compacted): compacted 256 + 26 B/triangle rounded up to 256, prebuild twice
    that (spec/bvh.md §8, NVIDIA column), both 256-byte aligned."""
    compacted = -(-(256 + 26 * triangles) // 256) * 256
    return 2 * compacted, compacted


def test_gltf_mesh(scene) -> None:
    report, _ = scene
    text = explain.render(report, "house.gltf#mesh/0")
    golden("explain_house_mesh.txt", text)
    lines = text.splitlines()
    assert lines[0] == "house.gltf#mesh/0 (mesh, 'door')"
    assert "  vertices       9" in lines and "  triangles      5" in lines
    assert lines[lines.index("Primitives:") + 1:lines.index("Primitives:") + 4] == [
        "    #  mode             vertices    indices type  triangles  attributes",
        "    0  triangles               4          6  u16          2  POSITION f32x3, NORMAL f32x3, TEXCOORD_0 f32x2; material house.gltf#material/0",
        "    1  triangle strip          5          0    —          3  POSITION f32x3",
    ]
    vertex = 4 * (12 + 12 + 8) + 5 * 12
    assert vertex == 188
    assert f"  stored         vertex {vertex} B + index 12 B + morph 0 B = 200 B (each accessor once, as the file declares)" in lines
    # default engine layout: 48 B/vertex; every triangle as a u16 list: (2 + 3) x 3 x 2 B
    assert f"  engine layout  vertex {9 * 48} B (48 B/vertex) + index {5 * 3 * 2} B (u16 up to 65,535 vertices, else u32) + morph 0 B = {9 * 48 + 30} B" in lines
    assert "  instances         3" in lines and "  triangles drawn   15" in lines
    prebuild, compacted = nvidia_blas(5)
    assert (prebuild, compacted) == (1024, 512)
    assert f"  nvidia         {prebuild:>12,} {compacted:>12,} {prebuild:>12,} {compacted:>12,}  spec/bvh.md §7, §10  ← in this report" in lines
    assert "Estimates from each profile's published measurements; sizes 256-byte aligned." in lines
    profiles = [line.split()[0] for line in lines[lines.index("Estimates from each profile's published measurements; sizes 256-byte aligned.") + 2:]]
    from texbudget.sizing.bvh import load_profiles

    assert profiles == list(load_profiles())


def test_explain_json(scene) -> None:
    report, _ = scene
    data = json.loads(explain.render_json(report, "textures/wall_albedo.ktx2"))
    assert data["schema"] == 1
    (tex,) = data["assets"]
    assert (tex["kind"], tex["path"], tex["gpu_bytes"], tex["allocated_bytes"]) == ("texture", "textures/wall_albedo.ktx2", 1398128, 1441792)
    assert [m["bytes"] for m in tex["mips"]] == bc7(1024, 1024, 11)
    assert tex["plan"]["decided_by"] == "stored format BC7_SRGB"
    current = [a for a in tex["alternatives"] if a["current"]]
    assert current == [{"gpu_format": "BC7_SRGB", "max_size": None, "mips": True, "width": 1024, "height": 1024,
                        "levels": 11, "gpu_bytes": 1398128, "allocated_bytes": 1441792, "saves_bytes": 0,
                        "current": True, "depth": 1}]
    door = json.loads(explain.render_json(report, "textures/door_normal.png"))["assets"][0]
    assert door["engine"]["settings"]["compress/mode"] == "2"
    mesh = json.loads(explain.render_json(report, "house.gltf#mesh/0"))["assets"][0]
    assert mesh["buffers"]["stored_bytes"] == 200 and mesh["instances"] == 3
    assert mesh["blas"][0]["profile"] == "nvidia" and mesh["blas"][0]["estimate"] is True
    assert (mesh["blas"][0]["prebuild_bytes"], mesh["blas"][0]["compacted_bytes"]) == nvidia_blas(5)


def test_explain_json_lists_a_meshs_primitives_whichever_form_holds_them(scene) -> None:
    """A mesh's facts are its fields with its primitives as one list after its name, for a mesh
    of two primitives (``surfaces``) and one of one held inline alike."""
    report, _ = scene
    keys = ["path", "name", "primitives", "vertices", "indices", "triangles", "vertex_bytes", "index_bytes",
            "morph_bytes", "skinned", "morph_targets", "source", "lod", "lod_group"]
    primitive_keys = ["mode", "vertex_count", "triangles", "attributes", "index_count", "index_bytes_per",
                      "morph_targets", "morph_bytes", "material", "compression"]
    door, tri = (json.loads(explain.render_json(report, path))["assets"][0]["facts"]
                 for path in ("house.gltf#mesh/0", "props.glb#mesh/0"))
    assert list(door) == list(tri) == keys
    assert [list(p) for p in door["primitives"] + tri["primitives"]] == [primitive_keys] * 3
    assert [(p["mode"], p["vertex_count"], p["index_count"], p["triangles"]) for p in door["primitives"]] == [(4, 4, 6, 2), (5, 5, 0, 3)]
    (p,) = tri["primitives"]
    assert (p["mode"], p["vertex_count"], p["index_count"], p["triangles"], p["material"]) == (4, 3, 3, 1, "props.glb#material/0")
    assert [a["name"] for a in p["attributes"]] == ["POSITION", "NORMAL"]


# --- finding the asset --------------------------------------------------------------------------


def test_find_asset(scene, monkeypatch: pytest.MonkeyPatch) -> None:
    report, _ = scene
    root = Path(report.root)
    wall = explain.find_asset(report, "textures/wall_albedo.ktx2")
    assert isinstance(wall, TextureRow) and wall.facts.path == "textures/wall_albedo.ktx2"
    assert explain.find_asset(report, "./textures//wall_albedo.ktx2") is wall
    assert explain.find_asset(report, root / "textures" / "wall_albedo.ktx2") is wall
    monkeypatch.chdir(root.parent)
    assert explain.find_asset(report, "explain/textures/wall_albedo.ktx2") is wall
    mesh = explain.find_asset(report, "house.gltf#mesh/0")
    assert isinstance(mesh, MeshCost)
    assert explain.find_asset(report, "house.gltf") is mesh  # the file holds one asset
    assert explain.find_asset(report, "props.glb") is None  # an image and a mesh: use find_assets
    assert [r.facts.path for r in explain.find_assets(report, "props.glb")] == ["props.glb#image/0", "props.glb#mesh/0"]
    assert explain.find_asset(report, "textures/nothing.png") is None
    assert explain.find_assets(report, "textures") == ()


def test_a_bare_glb_explains_everything_inside(scene) -> None:
    report, _ = scene
    text = explain.render(report, "props.glb")
    assert text.startswith("props.glb#image/0 (texture)\n")
    assert "\n\nprops.glb#mesh/0 (mesh, 'tri')\n" in text


def test_unknown_path_is_a_usage_error(scene) -> None:
    report, _ = scene
    with pytest.raises(UsageError) as err:
        explain.render(report, "textures/wall_albdo.ktx2")
    assert str(err.value) == (
        f"textures/wall_albdo.ktx2: no texture or mesh with this path in the scan of {report.root}; "
        "did you mean textures/wall_albedo.ktx2?"
    )
