"""A level scan's speed (issue 23), as ratios to a raw read of the same files.

    python benchmarks/levels.py [--unity-mb 30] [--godot-nodes 20000] [--repeat 3] [--out DIR]

Writes two deterministic projects to a scratch folder (``--keep DIR`` keeps them):

- **Godot**: 400 props (a ``.tscn`` placing one or two ArrayMesh ``.tres`` files of 200 to
  2,000 vertices, each surface with a ``StandardMaterial3D`` ``.tres`` of one to three PNGs
  from a pool of 600, 64 to 512 px), 60 clusters (scenes instancing 5 to 20 props, some of
  them other clusters: nested scenes), and a level of ``--godot-nodes`` nodes instancing
  props and clusters, with MultiMeshes of 100 to 1,000 instances (the level scene itself a
  few MB).
- **Unity**: 60 FBX models (a cube each, named for Unity's hashed mesh ids), 150 materials
  (``_BaseMap``, ``_BumpMap``), 40 prefabs (a model and one to three materials; one in four
  nesting two others), 600 textures, a ``.meta`` beside every asset, and a scene of about
  ``--unity-mb`` MB laid out as Unity writes one (``benchmarks/unity_scene.py``'s documents:
  GameObjects with MeshFilter and MeshRenderer into the models, prefab instances with twenty
  modifications, UI objects).

For each level, in this process, the fastest of ``--repeat`` runs of:

- ``raw``: open and read every byte of every file the level loads, and of every ``.meta``
  the Unity index reads (the floor: the same files, no parsing);
- ``cold``: ``levels.reading.read_level`` without the cache, then ``evaluate`` of its level;
- ``warm``: the same with the read cache (and the Unity ``.meta`` cache) filled;
- for Unity, ``index_cold`` / ``index_warm``: the Unity index alone (every ``.meta`` of the
  project, read, or from ``.texbudget/unity-meta.json``).

Prints a table and writes ``out/levels.json``. Numbers are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from PIL import Image  # noqa: E402
from unity_scene import best  # noqa: E402  (the fastest of ``repeat`` runs)

from tests.integration.level_projects import array_mesh  # noqa: E402
from tests.readers import fbx_factories as fbx  # noqa: E402
from tests.readers import unity_files as uf  # noqa: E402
from texbudget import config as config_mod  # noqa: E402
from texbudget.levels.metacache import read_index  # noqa: E402
from texbudget.levels.reading import read_level  # noqa: E402
from texbudget.levels.reports import level_report  # noqa: E402
from texbudget.levels.unity import hashed_file_id  # noqa: E402
from texbudget.pipeline import build_settings  # noqa: E402


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)


def _png(path: Path, side: int, rng: random.Random) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (side, side), (rng.randrange(256), rng.randrange(256), rng.randrange(256))).save(path)


# --- Godot ------------------------------------------------------------------------------------


def godot_project(root: Path, nodes: int, seed: int = 23) -> str:
    """The Godot project; returns its level's path."""
    rng = random.Random(seed)
    _write(root / "project.godot", '[application]\nrun/main_scene="res://levels/world.tscn"\n')
    textures = [f"res://tex/t{i:03d}.png" for i in range(600)]
    for tex in textures:
        _png(root / tex[6:], rng.choice((64, 128, 256, 512)), rng)
    materials = []
    for i in range(200):
        slots = [("albedo_texture", rng.choice(textures)), ("normal_texture", rng.choice(textures)),
                 ("roughness_texture", rng.choice(textures))][: rng.randint(1, 3)]
        ext = "".join(f'[ext_resource type="Texture2D" path="{t}" id="{k}"]\n' for k, (_, t) in enumerate(slots, 1))
        props = "".join(f'{p} = ExtResource("{k}")\n' for k, (p, _) in enumerate(slots, 1))
        _write(root / f"mat/m{i:03d}.tres", f'[gd_resource type="StandardMaterial3D" format=3]\n{ext}[resource]\n{props}')
        materials.append(f"res://mat/m{i:03d}.tres")
    meshes = []
    for i in range(500):
        mats = [rng.choice(materials) for _ in range(rng.randint(1, 2))]
        v = rng.randint(200, 2000)
        _write(root / f"meshes/g{i:03d}.tres", array_mesh(f"G{i}", v, 3 * v, *mats))
        meshes.append(f"res://meshes/g{i:03d}.tres")
    scenes = []
    for i in range(400):
        parts = [rng.choice(meshes) for _ in range(rng.randint(1, 2))]
        ext = "".join(f'[ext_resource type="ArrayMesh" path="{m}" id="{k}"]\n' for k, m in enumerate(parts, 1))
        body = "".join(f'\n[node name="Part{k}" type="MeshInstance3D" parent="."]\nmesh = ExtResource("{k}")\n' for k in range(1, len(parts) + 1))
        _write(root / f"props/p{i:03d}.tscn", f'[gd_scene format=3]\n{ext}\n[node name="Prop{i}" type="Node3D"]\n{body}')
        scenes.append(f"res://props/p{i:03d}.tscn")
    clusters: list[str] = []
    for i in range(60):
        pool = scenes + clusters[: max(0, len(clusters) - 1)]  # earlier clusters only: no cycle
        members = [rng.choice(pool) for _ in range(rng.randint(5, 20))]
        ext = "".join(f'[ext_resource type="PackedScene" path="{m}" id="{k}"]\n' for k, m in enumerate(dict.fromkeys(members), 1))
        ids = {m: k for k, m in enumerate(dict.fromkeys(members), 1)}
        body = "".join(f'\n[node name="N{k}" parent="." instance=ExtResource("{ids[m]}")]\n' for k, m in enumerate(members))
        _write(root / f"clusters/c{i:02d}.tscn", f'[gd_scene format=3]\n{ext}\n[node name="Cluster{i}" type="Node3D"]\n{body}')
        clusters.append(f"res://clusters/c{i:02d}.tscn")
    placed = scenes + clusters
    ext = "".join(f'[ext_resource type="PackedScene" path="{m}" id="s{k}"]\n' for k, m in enumerate(placed))
    ext += "".join(f'[ext_resource type="ArrayMesh" path="{m}" id="m{k}"]\n' for k, m in enumerate(meshes[:40]))
    subs = "".join(f'\n[sub_resource type="MultiMesh" id="MM{k}"]\ntransform_format = 1\ninstance_count = {rng.randint(100, 1000)}\n'
                   f'mesh = ExtResource("m{k}")\n' for k in range(40))
    body = []
    for k in range(nodes):
        if k % 500 == 0:
            body.append(f'\n[node name="Field{k}" type="MultiMeshInstance3D" parent="."]\nmultimesh = SubResource("MM{(k // 500) % 40}")\n')
        body.append(f'\n[node name="I{k}" parent="." instance=ExtResource("s{rng.randrange(len(placed))}")]\n'
                    f'transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, {rng.uniform(-500, 500):.3f}, 0, {rng.uniform(-500, 500):.3f})\n')
    _write(root / "levels/world.tscn", f'[gd_scene format=3]\n{ext}{subs}\n[node name="World" type="Node3D"]\n{"".join(body)}')
    return "levels/world.tscn"


# --- Unity ------------------------------------------------------------------------------------


def _meta(guid: str, importer: str) -> str:
    return f"fileFormatVersion: 2\nguid: {guid}\n{importer}:\n  externalObjects: {{}}\n  userData: \n"


def unity_project(root: Path, megabytes: float, seed: int = 23) -> str:
    """The Unity project; returns its scene's path."""
    rng = random.Random(seed)
    assets = root / "Assets"
    textures = [uf.guid(f"tex-{i}") for i in range(600)]
    for i, g in enumerate(textures):
        _png(assets / f"Textures/t{i:03d}.png", rng.choice((64, 128, 256, 512)), rng)
        _write(assets / f"Textures/t{i:03d}.png.meta", _meta(g, "TextureImporter"))
    materials = [uf.guid(f"mat-{i}") for i in range(150)]
    for i, g in enumerate(materials):
        slots = [uf.texture_slot("_BaseMap", uf.ref(2800000, rng.choice(textures))),
                 uf.texture_slot("_BumpMap", uf.ref(2800000, rng.choice(textures)))][: rng.randint(1, 2)]
        _write(assets / f"Materials/m{i:03d}.mat", uf.material(f"M{i}", slots))
        _write(assets / f"Materials/m{i:03d}.mat.meta", _meta(g, "NativeFormatImporter"))
    models = [uf.guid(f"model-{i}") for i in range(60)]
    for i, g in enumerate(models):
        name = f"Model{i}"
        scene = fbx.Scene(meshes=[fbx.cube(name, models=(name,), layers=[fbx.flat_normals()], materials=[0])], materials=["M"])
        _write(assets / f"Models/{name}.fbx", scene.binary())
        _write(assets / f"Models/{name}.fbx.meta", _meta(g, "ModelImporter"))

    def mesh_object(go: int, father: int) -> str:
        k = rng.randrange(len(models))
        mats = [uf.ref(2100000, rng.choice(materials), 2) for _ in range(rng.randint(1, 3))]
        return (uf.game_object(go, f"Object {go}", [go + 1, go + 2, go + 3]) + uf.transform(go + 1, go, father)
                + uf.mesh_filter(go + 2, go, uf.ref(hashed_file_id("Mesh", f"Model{k}"), models[k]))
                + uf.renderer(go + 3, go, mats))

    prefabs = [uf.guid(f"prefab-{i}") for i in range(40)]
    for i, g in enumerate(prefabs):
        text = uf.HEAD + mesh_object(100, 0)
        if i % 4 == 3:  # nests two earlier prefabs
            text += "".join(uf.prefab_instance(1000 * k, prefabs[rng.randrange(i)], parent=101) for k in (1, 2))
        _write(assets / f"Prefabs/p{i:02d}.prefab", text)
        _write(assets / f"Prefabs/p{i:02d}.prefab.meta", _meta(g, "PrefabImporter"))
    target = int(megabytes * 1_000_000)
    scene = assets / "Scenes/World.unity"
    scene.parent.mkdir(parents=True, exist_ok=True)
    next_id = 1000
    roots: list[int] = []
    with open(scene, "w", encoding="utf-8", newline="\n") as f:
        written = f.write(uf.HEAD + uf.scene_settings(uf.ref(2100000, materials[0], 2)))
        while written < target:
            next_id += 10
            go = next_id
            parent = rng.choice(roots) if roots and rng.random() < 0.8 else 0
            kind = rng.random()
            if kind < 0.125:
                prefab = rng.choice(prefabs)
                mods = [uf.modification(uf.ref(400000, prefab), f"m_Local{axis}.{c}", f"{rng.uniform(-50, 50):.4f}")
                        for axis in ("Position", "Rotation", "Scale") for c in "xyzw"][:18]
                mods += [uf.modification(uf.ref(100000, prefab), "m_Name", f"Prop {go}"),
                         uf.modification(uf.ref(2300000, prefab), "m_Materials.Array.data[0]", "", uf.ref(2100000, rng.choice(materials), 2))]
                text = uf.prefab_instance(go, prefab, parent, mods) + uf.stripped(4, go + 1, "Transform", uf.ref(400000, prefab), go)
            elif kind < 0.29:
                text = (uf.game_object(go, f"Button {go}", [go + 1, go + 2, go + 3]) + uf.transform(go + 1, go, parent, cls=224)
                        + uf.mono_behaviour(go + 2, go) + uf.mono_behaviour(go + 3, go))
            else:
                text = mesh_object(go, parent)
                if len(roots) < 2000 and rng.random() < 0.3:
                    roots.append(go + 1)
            written += f.write(text)
    _write(assets / "Scenes/World.unity.meta", _meta(uf.guid("world"), "DefaultImporter"))
    return "Assets/Scenes/World.unity"


# --- measuring --------------------------------------------------------------------------------


#: Every file's mtime after writing (2024-01-01, as the benchmark trees'): outside the read
#: cache's racy window, so the warm runs find what the first run stored.
MTIME = 1704067200


def age(root: Path) -> None:
    for folder, _, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(folder, name), (MTIME, MTIME))


def raw_read(root: Path, rels: list[str]) -> int:
    n = 0
    for rel in rels:
        with open(root / rel, "rb") as f:
            n += len(f.read())
    return n


def measure(root: Path, scene: str, repeat: int, unity: bool) -> dict[str, object]:
    config = config_mod.load(None)
    settings = build_settings(config)

    def level(use_cache: bool) -> object:
        found = read_level(root, config, scene, use_cache=use_cache, jobs=1)
        return level_report(found, found.levels[0], settings)

    cache = root / ".texbudget"
    shutil.rmtree(cache, ignore_errors=True)
    found = read_level(root, config, scene, jobs=1)
    lv = found.levels[0]
    files = [f for f in lv.files if (root / f).is_file()]
    sidecars = [f + s for f in files for s in (".meta", ".import") if (root / (f + s)).is_file()]
    metas = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.meta")) if unity else []
    floor_files = sorted(set(files + sidecars + metas))
    floor_bytes = raw_read(root, floor_files)  # warms the page cache too
    out: dict[str, object] = {
        "scene_bytes": (root / scene).stat().st_size, "files": len(files), "floor_files": len(floor_files),
        "floor_bytes": floor_bytes, "meshes": len(lv.meshes), "instances": sum(lv.meshes.values()),
        "textures": len(lv.textures), "findings": sorted({f.code for f in found.findings}),
    }
    out["raw_s"] = best(lambda: raw_read(root, floor_files), repeat)
    out["cold_s"] = best(lambda: level(False), repeat)
    level(True)  # fill the caches
    out["warm_s"] = best(lambda: level(True), repeat)
    if unity:
        out["index_raw_s"] = best(lambda: raw_read(root, metas), repeat)
        out["index_cold_s"] = best(lambda: read_index(root, use_cache=False), repeat)
        out["index_warm_s"] = best(lambda: read_index(root, use_cache=True), repeat)
        out["metas"] = len(metas)
    for key in ("cold_s", "warm_s"):
        out[key.replace("_s", "_ratio")] = round(out[key] / out["raw_s"], 1)  # type: ignore[operator]
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--unity-mb", type=float, default=30.0)
    parser.add_argument("--godot-nodes", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--keep", type=Path, help="write the projects here and keep them")
    args = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        for name, make, size, unity in (("godot", godot_project, args.godot_nodes, False), ("unity", unity_project, args.unity_mb, True)):
            root = base / name
            if root.exists():
                shutil.rmtree(root)
            start = time.perf_counter()
            scene = make(root, size)
            age(root)
            made = time.perf_counter() - start
            r = results[name] = {"scene": scene, "made_s": round(made, 1), **measure(root, scene, args.repeat, unity)}
            print(f"{name}: {r['scene']} {r['scene_bytes'] / 1e6:.1f} MB; the level loads {r['files']:,} files, "
                  f"{r['meshes']:,} meshes ({r['instances']:,} instances), {r['textures']:,} textures; "
                  f"raw read of {r['floor_files']:,} files ({r['floor_bytes'] / 1e6:.1f} MB) {r['raw_s'] * 1000:.0f} ms")
            print(f"  level scan cold {r['cold_s'] * 1000:.0f} ms ({r['cold_ratio']}x the raw read), "
                  f"warm {r['warm_s'] * 1000:.0f} ms ({r['warm_ratio']}x)")
            if unity:
                print(f"  Unity index of {r['metas']:,} .meta files: raw read {r['index_raw_s'] * 1000:.0f} ms, "
                      f"cold {r['index_cold_s'] * 1000:.0f} ms, warm {r['index_warm_s'] * 1000:.0f} ms")
    args.out.mkdir(parents=True, exist_ok=True)
    results["load"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    (args.out / "levels.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
