"""The glTF reader's cost per GLB of the ``glb`` tree shape, in this process, against reading
the same bytes.

    python benchmarks/gltf_reader.py [--files 10000] [--repeat 7] [--trees DIR]

Makes (or reuses) the ``glb`` tree of ``--files`` files (``make_tree.py``), takes the first
bytes of every GLB once as the scan does (``scan._read_file``'s prefetch: a file of up to
64 KiB whole, a larger one its first 16 KiB), then times, as the fastest of ``--repeat``
interleaved rounds over all of them: the raw read (open, read, close: the floor ``run.py``
compares with), the JSON chunk decoded into the reader's schema (``gltf_container.parse_json``:
msgspec), the same JSON by ``json.loads`` (what the reader used before issue 22, for
scale), and the whole read (``readers.read_source`` on the prefetched source, as a scan reads
a file, the discovery's file list set). Prints µs per GLB and the ratios, and writes
``out/gltf_reader.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import make_tree  # noqa: E402
from run import DEFAULT_TREES, tree_path  # noqa: E402

from texbudget.readers import KNOWN_FILES, read_source  # noqa: E402
from texbudget.readers.gltf_container import parse_json  # noqa: E402
from texbudget.scan.reading import PREFETCH_BYTES, PREFETCH_HEAD_BYTES, _Prefetched  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the glTF reader per GLB against a raw read")
    parser.add_argument("--files", type=int, default=10_000, help="files in the glb tree (default 10000; 80%% GLB)")
    parser.add_argument("--repeat", type=int, default=7, help="rounds; the fastest counts (default 7)")
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES, help=f"where the trees are kept (default {DEFAULT_TREES})")
    args = parser.parse_args(argv)
    root = tree_path(args.trees, "glb", args.files)
    make_tree.make_tree(root, args.files, shape="glb")
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != ".tree.json")
    glbs = [rel for rel in files if rel.endswith(".glb")]
    KNOWN_FILES.set((os.fspath(root), frozenset(files)))
    sources, chunks = [], []
    for rel in glbs:
        path = os.path.join(root, rel)
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            prefix = f.read(size if size <= PREFETCH_BYTES else PREFETCH_HEAD_BYTES)
        sources.append(_Prefetched(rel=rel, root=root, path=path, known_size=size, prefix=prefix))
        (json_len,) = struct.unpack_from("<I", prefix, 12)
        chunks.append(prefix[20 : 20 + json_len].rstrip(b" \x00"))

    def raw() -> None:
        for src in sources:
            fd = os.open(src.path, os.O_RDONLY)
            os.fstat(fd)
            os.read(fd, len(src.prefix))
            os.close(fd)

    def schema() -> None:
        for chunk in chunks:
            parse_json(chunk)

    def json_loads() -> None:
        for chunk in chunks:
            json.loads(chunk)

    def read() -> None:
        for src in sources:
            read_source(src)

    stages = {"raw read": raw, "JSON into the schema (msgspec)": schema, "json.loads (for scale)": json_loads,
              "read_source": read}
    read()  # imports, lazily built tables
    best = dict.fromkeys(stages, float("inf"))
    gc.disable()  # as read_scene reads
    for _ in range(args.repeat):
        for name, stage in stages.items():
            start = time.perf_counter()
            stage()
            best[name] = min(best[name], time.perf_counter() - start)
    gc.enable()
    n = len(glbs)
    print(f"{n} GLBs of {root} (fastest of {args.repeat} rounds), µs per GLB:")
    for name, seconds in best.items():
        print(f"  {name:32} {seconds / n * 1e6:8.1f} µs  {seconds / best['raw read']:6.2f}× the raw read")
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "gltf_reader.json").write_text(json.dumps({"glbs": n, "repeat": args.repeat,
                                                      "seconds": best}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
