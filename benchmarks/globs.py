"""Discovery with ``[scan]`` globs against discovery without, in one process (issue 22).

    python benchmarks/globs.py [--files 100000] [--repeat 5] [--trees DIR]

On a tree of ``make_tree.py`` (the ``mix`` shape, made once and kept like ``run.py``'s), times
``discover`` alone, the fastest of ``--repeat`` rounds that alternate:

- ``none``: no globs (the baseline);
- ``exclude``: four exclude patterns of the kind a game tree has (a folder, ``**/x/**``, a name
  glob, an anchored folder), by discover's own compiler;
- ``exclude12``: twelve, with a negation and classes;
- ``include``: two include patterns (a folder and a suffix);
- ``pathspec``: when the ``pathspec`` package is installed, the same four exclude patterns by
  ``pathspec.GitIgnoreSpec.match_file`` over the files discovery lists without globs (what the
  library would cost at the least: it matches paths, so nothing is pruned while walking).

Each is printed as milliseconds and as a ratio to ``none``. The files each run keeps are
checked equal between discover's compiler and pathspec (docs/decisions.md "The [scan] globs").
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from texbudget.discover import discover  # noqa: E402

EXCLUDE = ["build/", "**/wip/**", "*_old.png", "/raw"]
EXCLUDE12 = [*EXCLUDE, "*.tmp", "temp/", "[Bb]ackup/", "**/cache/**", "textures/**/*_hi.dds", "!textures/keep_hi.dds",
             "docs/", "*.psd"]
INCLUDE = ["textures/", "*.dds"]


def _tree(trees: Path, files: int) -> Path:
    import make_tree  # this folder's, like run.py's: the tree is made once and kept

    root = trees / str(files)
    make_tree.make_tree(root, files)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trees", type=Path, default=Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "texbudget-bench-trees")
    args = parser.parse_args(argv)
    root = _tree(args.trees, args.files)
    runs = {
        "none": lambda: discover(root),
        "exclude": lambda: discover(root, exclude=EXCLUDE),
        "exclude12": lambda: discover(root, exclude=EXCLUDE12),
        "include": lambda: discover(root, include=INCLUDE),
    }
    try:
        import pathspec
    except ImportError:
        pathspec = None
    if pathspec is not None:
        spec = pathspec.GitIgnoreSpec.from_lines(EXCLUDE)
        runs["pathspec"] = lambda: [f for f in discover(root).files if not spec.match_file(f)]
        assert runs["pathspec"]() == list(runs["exclude"]().files)
    best = {name: float("inf") for name in runs}
    for _ in range(args.repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    count = len(runs["none"]().files)
    print(f"discover, {count:,} files (best of {args.repeat}):")
    for name, seconds in best.items():
        print(f"  {name:10} {seconds * 1000:8.0f} ms  {seconds / best['none']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
