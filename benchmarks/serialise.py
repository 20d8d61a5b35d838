"""How to store a file's facts in the read cache: dump and load speed of the candidates,
measured; and (``--reports``) how long each report takes to write.

    python benchmarks/serialise.py [--files 10000] [--trees DIR] [--before COMMIT] [--rounds 3]
    python benchmarks/serialise.py --reports [--repeat 7]

Reads a synthetic tree (``make_tree.py``) once, then for every file's value
``(ReadResult, engine)`` times dumping and loading it one entry at a time, as the cache does:

- ``msgpack`` (what ``texbudget.cache`` does since issue 22): ``cache.dumps``, and loading
  with ``cache.loads`` (each value alone) and with one ``cache.Decoder`` for all (as a lookup
  or a pooled scan loads them: equal strings, sizes and tuples shared across values).
- ``pickle``: the standard pickler on the same records.
- ``json`` and ``marshal``: the records as nested lists with a class tag, parsed and then
  rebuilt into records (the rebuild is part of the load; enums stay plain strings, which
  flatters these two a little).
- with ``--before COMMIT`` (default: issue 22's starting point), the cache's codec of that
  commit, in this process: its ``texbudget`` package is taken out of git into a scratch
  folder and imported beside this one (each generation's modules are put in
  ``sys.modules`` while its code runs, so its lazy imports find its own), and it reads the
  same tree with its own readers. Before issue 22 that was a pickle of constructor calls
  loaded by a restricted unpickler through ``model.builder``.

The rounds of all formats are interleaved (``--rounds``, the fastest counts), so each sees
the same machine. Prints microseconds per entry and bytes per entry, and each format's
times over the msgpack codec's.

``--reports`` instead reads the tree, evaluates it once (the default settings) and times
each renderer on that one report, in this process: the fastest of ``--repeat`` runs, with
the report's length and a SHA-256 of its text (the same before and after a change that
must not alter the output).
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import hashlib
import io
import json
import marshal
import pickle
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import make_tree  # noqa: E402

#: The last commit whose cache pickled its values (issue 22's starting point).
BEFORE = "c468ef9"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cache value formats: dump and load speed")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--trees", type=Path, default=Path(tempfile.gettempdir()) / "texbudget-bench-trees",
                        help="where the synthetic trees are kept (as run.py)")
    parser.add_argument("--before", default=BEFORE, help="a commit whose cache codec to time beside this one ('' for none)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of every format; the fastest counts")
    parser.add_argument("--reports", action="store_true", help="time the report renderers instead")
    parser.add_argument("--repeat", type=int, default=7, help="runs per renderer with --reports; the fastest counts")
    args = parser.parse_args(argv)
    if args.reports:
        return reports(args.trees.resolve() / str(args.files), args.files, args.repeat)

    tree = args.trees.resolve() / str(args.files)
    make_tree.make_tree(tree, args.files)
    formats: dict[str, tuple[Callable[[], None], list, Callable, Callable]] = {}
    if args.before:
        old = _generation(args.before)
        with old.active():
            old_values = old.read(tree)
            cache = old.modules["texbudget.cache"]
            formats[f"pickle ctor, restricted ({args.before} texbudget.cache.loads)"] = (old.active, old_values, cache.dumps, cache.loads)
            formats[f"  the same, one Decoder for all ({args.before})"] = (old.active, old_values, cache.dumps, "decoder")
    new = _generation(None)
    with new.active():
        values = new.read(tree)
        from texbudget import cache, model

        formats["msgpack (texbudget.cache.loads)"] = (new.active, values, cache.dumps, cache.loads)
        formats["  the same, one Decoder for all"] = (new.active, values, cache.dumps, "decoder")
        formats["pickle of the records"] = (new.active, values, lambda v: pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL), pickle.loads)
        encode, decode = _tagged(model)
        formats["json + rebuild"] = (new.active, values, lambda v: json.dumps(encode(v)).encode(), lambda b: decode(json.loads(b)))
        formats["marshal + rebuild"] = (new.active, values, lambda v: marshal.dumps(encode(v)), lambda b: decode(marshal.loads(b)))

    n = len(values)
    best: dict[str, list[float]] = {name: [float("inf")] * 2 for name in formats}
    sizes: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, (active, vals, dump, load) in formats.items():
            with active():
                started = time.perf_counter()
                blobs = [dump(v) for v in vals]
                dumped = time.perf_counter() - started
                if load == "decoder":
                    decoder = sys.modules["texbudget.cache"].Decoder()
                    load = decoder.loads
                started = time.perf_counter()
                for b in blobs:
                    load(b)
                loaded = time.perf_counter() - started
            best[name] = [min(best[name][0], dumped), min(best[name][1], loaded)]
            sizes[name] = sum(map(len, blobs)) / n
    base = best["msgpack (texbudget.cache.loads)"]
    print(f"{n} entries from {tree}, fastest of {args.rounds} interleaved rounds")
    print(f"{'format':<58} {'dump µs':>8} {'load µs':>8} {'bytes':>7} {'dump ×':>7} {'load ×':>7}")
    for name, (dumped, loaded) in best.items():
        print(f"{name:<58} {dumped / n * 1e6:>8.2f} {loaded / n * 1e6:>8.2f} {sizes[name]:>7.0f} "
              f"{dumped / base[0]:>7.2f} {loaded / base[1]:>7.2f}")
    return 0


class _Generation:
    """One ``texbudget`` package's modules, put in ``sys.modules`` by ``active`` while its
    code runs (its functions import lazily by name)."""

    def __init__(self, modules: dict, path: str | None) -> None:
        self.modules = modules
        self.path = path

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        theirs = {k: sys.modules.pop(k) for k in [k for k in sys.modules if k == "texbudget" or k.startswith("texbudget.")]}
        sys.modules.update(self.modules)
        if self.path:
            sys.path.insert(0, self.path)
        try:
            yield
        finally:
            if self.path:
                sys.path.remove(self.path)
            self.modules.update({k: v for k, v in sys.modules.items() if k == "texbudget" or k.startswith("texbudget.")})
            for k in list(self.modules):
                sys.modules.pop(k, None)
            sys.modules.update(theirs)

    def read(self, tree: Path) -> list:
        """Every file's (ReadResult, engine) of ``tree``, read by this generation's code."""
        from texbudget.discover import discover

        try:  # texbudget.scan is a package of modules since issue 22's split
            from texbudget.scan.reading import _read_one  # type: ignore[import-not-found]
        except ImportError:
            from texbudget.scan import _read_one

        return [_read_one((tree, rel))[1:] for rel in discover(tree).files]


def _generation(commit: str | None) -> _Generation:
    """The checkout's texbudget (``commit`` None) or the one of ``commit``, imported apart."""
    path = None
    if commit is not None:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "texbudget"], check=True, capture_output=True).stdout
        folder = Path(tempfile.mkdtemp(prefix="texbudget-before-"))
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        path = str(folder)
    generation = _Generation({}, path)
    with generation.active():
        if path is None:
            sys.path.insert(0, str(ROOT))
        import texbudget.cache
        import texbudget.scan
        assert Path(texbudget.cache.__file__).is_relative_to(path or ROOT), texbudget.cache.__file__
    return generation


def _tagged(model) -> tuple[Callable, Callable]:
    """Encode and decode records as ``[class number, *fields]`` lists (tuples as ``{"t": [...]}``)."""
    classes, todo = [], [model.Record]
    while todo:  # every record class, wherever it is defined
        for sub in todo.pop().__subclasses__():
            classes.append(sub)
            todo.append(sub)
    tag = {c: i for i, c in enumerate(classes)}
    names = {c: c.__struct_fields__ for c in classes}

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

    return encode, decode


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
