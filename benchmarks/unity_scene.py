"""The Unity scene reader's speed on a big scene, as a ratio to reading the same file's bytes.

    python benchmarks/unity_scene.py [--mb 30] [--repeat 5] [--out DIR]

Writes a deterministic text scene of about ``--mb`` megabytes laid out as Unity writes one (the
documents of ``tests/readers/unity_files.py``): per placed object a GameObject, a Transform, a
MeshFilter, a MeshRenderer of one to three materials, a BoxCollider and a MonoBehaviour; one
object in eight a prefab instance with twenty modifications (position, rotation, name, a
material override) and its stripped Transform; one in six a UI element (RectTransform and two
MonoBehaviours). Then, in this process, the fastest of ``--repeat`` runs of: a raw read (open,
read every byte, close) and ``readers.read_path`` of the file (the scan's entry point). Prints
the sizes, times and the ratio, and writes ``out/unity_scene.json``. With ``--pyyaml``, also
a smaller scene (``--pyyaml-mb``, 3 MB) read both ways: ``read_path`` and PyYAML's
``load_all`` (its C loader when built with libyaml) of the same documents, as Unity's tag and
``stripped`` marks are made plain YAML the way ``tests/readers/unity_oracle.py`` does.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.readers.unity_files import (  # noqa: E402
    HEAD,
    doc,
    game_object,
    guid,
    mesh_filter,
    modification,
    mono_behaviour,
    prefab_instance,
    ref,
    renderer,
    scene_settings,
    stripped,
    transform,
)
from texbudget.readers import read_path  # noqa: E402

MODELS = [guid(f"model-{i}") for i in range(40)]
MATERIALS = [guid(f"mat-{i}") for i in range(120)]
PREFABS = [guid(f"prefab-{i}") for i in range(30)]


def _collider(file_id: int, go: int) -> str:
    return doc(65, file_id, "BoxCollider", f"  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {go}}}\n  m_Material: {{fileID: 0}}\n"
               "  m_IsTrigger: 0\n  m_Enabled: 1\n  serializedVersion: 2\n  m_Size: {x: 1, y: 1, z: 1}\n  m_Center: {x: 0, y: 0, z: 0}\n")


def write_scene(path: Path, megabytes: float, seed: int = 23) -> dict[str, int]:
    """A scene of about ``megabytes`` MB; returns what it holds."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    counts = {"objects": 0, "instances": 0, "ui": 0, "documents": 4}
    next_id = 1000
    roots: list[int] = []
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        written = f.write(HEAD + scene_settings(ref(2100000, MATERIALS[0], 2)))
        while written < target:
            next_id += 10
            go, tf = next_id, next_id + 1
            parent = rng.choice(roots) if roots and rng.random() < 0.8 else 0
            kind = rng.random()
            if kind < 0.125:
                prefab = rng.choice(PREFABS)
                mods = [modification(ref(400000 + k, prefab), f"m_Local{axis}.{c}", f"{rng.uniform(-50, 50):.4f}")
                        for k in range(1) for axis in ("Position", "Rotation", "Scale") for c in "xyzw"][:18]
                mods += [modification(ref(100000, prefab), "m_Name", f"Prop {go}"),
                         modification(ref(2300000, prefab), "m_Materials.Array.data[0]", "", ref(2100000, rng.choice(MATERIALS), 2))]
                text = prefab_instance(go, prefab, parent, mods) + stripped(4, tf, "Transform", ref(400000, prefab), go)
                counts["instances"] += 1
                counts["documents"] += 2
            elif kind < 0.29:
                text = (game_object(go, f"Button {go}", [tf, go + 2, go + 3]) + transform(tf, go, parent, cls=224)
                        + mono_behaviour(go + 2, go) + mono_behaviour(go + 3, go))
                counts["ui"] += 1
                counts["documents"] += 4
            else:
                mats = [ref(2100000, rng.choice(MATERIALS), 2) for _ in range(rng.randint(1, 3))]
                text = (game_object(go, f"Object {go}", [tf, go + 2, go + 3, go + 4, go + 5]) + transform(tf, go, parent)
                        + mesh_filter(go + 2, go, ref(rng.randrange(-2**62, 2**62), rng.choice(MODELS)))
                        + renderer(go + 3, go, mats) + _collider(go + 4, go) + mono_behaviour(go + 5, go))
                counts["objects"] += 1
                counts["documents"] += 6
                if len(roots) < 2000 and rng.random() < 0.3:
                    roots.append(tf)
            written += f.write(text)
    counts["bytes"] = path.stat().st_size
    return counts


def raw_read(path: Path) -> int:
    with open(path, "rb") as f:
        return len(f.read())


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _pyyaml(megabytes: float) -> dict[str, object]:
    import yaml

    from tests.readers.unity_oracle import _HEADER

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader.add_multi_constructor("tag:unity3d.com,2011:", lambda ld, suffix, node: ld.construct_mapping(node))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        counts = write_scene(folder / "Small.unity", megabytes)
        text = (folder / "Small.unity").read_text(encoding="utf-8")
        plain = _HEADER.sub(lambda m: f"--- !<tag:unity3d.com,2011:{m.group(1)}> &{m.group(2)}", text)
        start = time.perf_counter()
        docs = sum(1 for _ in yaml.load_all(plain, Loader=loader))
        pyyaml_s = time.perf_counter() - start
        read_s = best(lambda: read_path(folder, "Small.unity"), 3)
    return {"loader": loader.__name__, "bytes": counts["bytes"], "documents": docs, "pyyaml_s": round(pyyaml_s, 3),
            "read_s": round(read_s, 4), "ratio": round(pyyaml_s / read_s, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=30.0, help="size of the scene in megabytes (default 30)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--pyyaml", action="store_true", help="also time PyYAML on a smaller scene")
    parser.add_argument("--pyyaml-mb", type=float, default=3.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        counts = write_scene(folder / "Big.unity", args.mb)
        raw_read(folder / "Big.unity")  # warm the page cache
        raw_s = best(lambda: raw_read(folder / "Big.unity"), args.repeat)
        result = read_path(folder, "Big.unity")
        read_s = best(lambda: read_path(folder, "Big.unity"), args.repeat)
    edges = len(result.scenes[0].refs) if result.scenes else 0
    out = {**counts, "edges": edges, "findings": [f.code for f in result.findings], "raw_read_s": round(raw_s, 4),
           "read_s": round(read_s, 4), "ratio": round(read_s / raw_s, 1), "repeat": args.repeat,
           "mb_per_s": round(counts["bytes"] / 1e6 / read_s, 1)}
    print(f"{counts['bytes'] / 1e6:.1f} MB, {counts['documents']:,} documents ({counts['objects']:,} meshes, "
          f"{counts['instances']:,} prefab instances, {counts['ui']:,} UI objects): {edges:,} edges")
    print(f"raw read {raw_s * 1000:.1f} ms, read_path {read_s * 1000:.1f} ms: {read_s / raw_s:.1f}x the raw read, "
          f"{out['mb_per_s']} MB/s")
    if args.pyyaml:
        out["pyyaml"] = _pyyaml(args.pyyaml_mb)
        p = out["pyyaml"]
        print(f"PyYAML ({p['loader']}) on a {p['bytes'] / 1e6:.1f} MB scene: {p['pyyaml_s']:.2f} s, read_path "
              f"{p['read_s'] * 1000:.1f} ms: PyYAML takes {p['ratio']:.0f}x as long")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "unity_scene.json").write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
