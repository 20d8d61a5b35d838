"""How to store a file's facts in the read cache: load speed of the candidates, measured;
and (``--reports``) how long each report takes to write.

    python benchmarks/serialise.py [--files 10000] [--trees DIR] [--reports [--repeat 7]]

Reads a synthetic tree (``make_tree.py``) once, then for every file's value
``(ReadResult, engine)`` times dumping and loading it one entry at a time, as the cache does:

- ``pickle``: the standard pickler; frozen slots dataclasses load through their
  ``__setstate__``, which calls ``dataclasses.fields`` for every object.
- ``pickle ctor, restricted`` (what ``texbudget.cache`` does): each dataclass stored as its
  constructor arguments, loaded by an unpickler that only builds texbudget's own types.
- ``json`` and ``marshal``: the dataclasses as nested lists with a class tag, parsed and then
  rebuilt into objects (the rebuild is part of the load; enums stay plain strings, which
  flatters these two a little).

Prints a table of microseconds per entry and bytes per entry.

``--reports`` instead reads the tree, evaluates it once (the default settings) and times
each renderer on that one report, in this process: the fastest of ``--repeat`` runs, with
the report's length and a SHA-256 of its text (the same before and after a change that
must not alter the output).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import hashlib
import json
import marshal
import pickle
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_tree  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cache value formats: load speed")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--trees", type=Path, default=Path(tempfile.gettempdir()) / "texbudget-bench-trees",
                        help="where the synthetic trees are kept (as run.py)")
    parser.add_argument("--reports", action="store_true", help="time the report renderers instead")
    parser.add_argument("--repeat", type=int, default=7, help="runs per renderer with --reports; the fastest counts")
    args = parser.parse_args(argv)
    if args.reports:
        return reports(args.trees.resolve() / str(args.files), args.files, args.repeat)

    from texbudget import cache, engine, model
    from texbudget.discover import discover
    from texbudget.scan.reading import _read_one

    tree = args.trees.resolve() / str(args.files)
    make_tree.make_tree(tree, args.files)
    values = [_read_one((tree, rel))[1:] for rel in discover(tree).files]

    classes = [c for m in (model, engine) for c in vars(m).values() if isinstance(c, type) and dataclasses.is_dataclass(c)]
    tag = {c: i for i, c in enumerate(classes)}
    names = {c: [f.name for f in dataclasses.fields(c)] for c in classes}

    def encode(o):
        if type(o) in tag:
            return [tag[type(o)], *[encode(getattr(o, n)) for n in names[type(o)]]]
        if isinstance(o, enum.Enum):
            return o.value
        if isinstance(o, tuple):
            return {"t": [encode(x) for x in o]}
        return o

    def decode(o):
        if type(o) is list:
            cls = classes[o[0]]
            return cls(*[decode(x) for x in o[1:]])
        if type(o) is dict:
            return tuple(decode(x) for x in o["t"])
        return o

    formats = {
        "pickle": (lambda v: pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL), pickle.loads),
        "pickle ctor, restricted (texbudget.cache)": (cache.dumps, cache.loads),
        "json + rebuild": (lambda v: json.dumps(encode(v)).encode(), lambda b: decode(json.loads(b))),
        "marshal + rebuild": (lambda v: marshal.dumps(encode(v)), lambda b: decode(marshal.loads(b))),
    }
    print(f"{len(values)} entries from {tree}")
    print(f"{'format':<44} {'dump µs':>8} {'load µs':>8} {'bytes':>7}")
    for name, (dump, load) in formats.items():
        started = time.perf_counter()
        blobs = [dump(v) for v in values]
        dumped = time.perf_counter() - started
        loads = []
        for _ in range(3):
            started = time.perf_counter()
            for b in blobs:
                load(b)
            loads.append(time.perf_counter() - started)
        n = len(values)
        print(f"{name:<44} {dumped / n * 1e6:>8.1f} {min(loads) / n * 1e6:>8.1f} {sum(map(len, blobs)) / n:>7.0f}")
    return 0


def reports(tree: Path, files: int, repeat: int) -> int:
    """Each renderer's time on one evaluated report of ``tree``."""
    from texbudget import config as config_mod
    from texbudget.pipeline import build_settings, evaluate
    from texbudget.report import csv, markdown, sarif, text
    from texbudget.report import json as json_report
    from texbudget.scan.scene import read_scene

    make_tree.make_tree(tree, files)
    config = config_mod.load(config_mod.find_config(tree))
    scan = read_scene(tree, config, None, use_cache=False)
    report = evaluate(scan, build_settings(config, platform=None, quality=None, resolutions=None, rt=None, cards=None))
    renderers = {
        "json": json_report.render, "text": lambda r: text.render(r, colour=False), "csv": csv.render,
        "markdown": markdown.render, "sarif": sarif.render,
    }
    print(f"{len(report.textures)} textures, {len(report.meshes)} meshes, {len(report.findings)} findings from {tree}")
    print(f"{'report':<10} {'best ms':>8} {'median ms':>10} {'characters':>11}  sha256")
    for name, render in renderers.items():
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            out = render(report)
            times.append(time.perf_counter() - started)
        times.sort()
        digest = hashlib.sha256(out.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        print(f"{name:<10} {times[0] * 1000:>8.1f} {times[len(times) // 2] * 1000:>10.1f} {len(out):>11,}  {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
