"""Every report texbudget writes, of the demo and of the benchmark trees, into a folder; and
a comparison of two such folders. For a refactor that must not change behaviour (issue 22):

    python benchmarks/identity.py OUT_BEFORE            # on the code before the change
    python benchmarks/identity.py OUT_AFTER             # on the code after it
    python benchmarks/identity.py --compare OUT_BEFORE OUT_AFTER

Writing (``OUT [--files 2500] [--shapes mix,png,glb,ktx2] [--trees DIR] [--no-demo]``): for
the demo (``assets/demo``, copied to a scratch folder so its cache does not land in the
checkout) and a tree of each shape of ``make_tree.py``, every command below runs in a fresh
interpreter with the corpus as its working folder and ``.`` as its target, and its stdout is
written to ``OUT/CORPUS/NAME``. Its exit code and stderr go to ``OUT/CORPUS/commands.txt``.
Nothing written depends on the time or on where the corpus is: the corpus's absolute path,
wherever it occurs, is written ``<ROOT>``; the environment is fixed (no colour, no terminal,
UTF-8). The default size, 2,500 files, is above the process pool's threshold
(``POOL_MIN_FILES``), so the pool's path is covered; the whole run takes about a minute.

The commands, in this order (the cache is emptied first):

- ``scan --no-cache`` in each output format (text, JSON, CSV, Markdown, SARIF), and JSON with
  other settings (a mobile platform at medium quality; AMD ray tracing at 4K; one reader);
- ``check --total``: with the cache cold (it fills it), then warm, as text and JSON; and
  ``check`` alone (the files' own problems);
- ``scan --format json`` from the warm cache (the cache's codec must give the same facts);
- ``explain`` (text and JSON) of the first texture of each container and of the first mesh;
- ``diff`` of the default JSON report against the mobile one;
- for the trees only: ``check --total``, ``check`` and ``scan`` with a config of every limit
  and a rule (``LIMITS_TOML``; the trees have none of their own); for the demo only:
  ``scan --deep``; and once, the tables (``formats``, ``cards``, ``size``) and ``check`` and
  ``scan`` in an empty folder (``EMPTY``).

Comparing (``--compare A B``) lists every file that is only in one folder or differs, with
its first differing line, and exits 1 if any does (0 when the folders are identical).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import make_tree  # noqa: E402  (this folder, not a package)

DEFAULT_TREES = Path(tempfile.gettempdir()) / "texbudget-bench-trees"
DEFAULT_FILES = 2500
#: The reports every corpus gets: (file name, arguments after ``texbudget``).
SCANS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scan.txt", ("scan", "--no-cache", ".")),
    ("scan.json", ("scan", "--no-cache", "--format", "json", ".")),
    ("scan.csv", ("scan", "--no-cache", "--format", "csv", ".")),
    ("scan.md", ("scan", "--no-cache", "--format", "markdown", ".")),
    ("scan.sarif", ("scan", "--no-cache", "--format", "sarif", ".")),
    ("scan.mobile-medium.json", ("scan", "--no-cache", "--format", "json", "--platform", "mobile-astc", "--quality", "medium", ".")),
    ("scan.amd-4k.json", ("scan", "--no-cache", "--format", "json", "--rt", "amd", "--resolution", "4k", ".")),
    ("scan.jobs1.json", ("scan", "--no-cache", "--format", "json", "--jobs", "1", ".")),
    ("check-total.cold.txt", ("check", "--total", ".")),
    ("check-total.txt", ("check", "--total", ".")),
    ("check-total.json", ("check", "--total", "--format", "json", ".")),
    ("check.txt", ("check", ".")),
    ("scan.warm.json", ("scan", "--format", "json", ".")),
)
#: The trees have no config of their own: these checks give them one, with every limit and a
#: rule, so that ``check`` has something to find (a hidden file: discovery skips it).
LIMITS_TOML = """\
[budget]
cards = ["4GB", "8GB"]
resolutions = ["1080p", "4k"]
rt = ["off", "nvidia"]
quality = ["ultra", "medium"]

[limits]
max_size = 1024
max_bytes = "8MiB"
require_mips = true
forbid_uncompressed = true
multiple_of_4 = true
max_triangles = 10000
forbid_unused = true

[[rule]]
match = "ui/**"
role = "ui"
"""
LIMITS = ".identity-limits.toml"
TREES_ONLY = (
    ("check-limits.txt", ("check", "--total", "--config", LIMITS, ".")),
    ("check-limits.json", ("check", "--total", "--config", LIMITS, "--format", "json", ".")),
    ("check-limits.files.txt", ("check", "--config", LIMITS, ".")),
    ("scan.limits.json", ("scan", "--config", LIMITS, "--format", "json", ".")),
)
#: Only the demo (small): pixels decoded.
DEMO_ONLY = (("scan.deep.json", ("scan", "--no-cache", "--deep", "--format", "json", ".")),)
#: Once per run, in an empty folder: ``check`` with nothing to read, which returns before the
#: pipeline unless something else is asked (the scene budget, a report), and a scan of nothing.
EMPTY = (
    ("check.txt", ("check", ".")),
    ("check.md", ("check", "--format", "markdown", ".")),
    ("check-total.txt", ("check", "--total", ".")),
    ("check.json", ("check", "--format", "json", ".")),
    ("check-total.json", ("check", "--total", "--format", "json", ".")),
    ("check-named.txt", ("check", "gone.png")),
    ("check-bad-flag.txt", ("check", "--quality", "epic", ".")),
    ("scan.json", ("scan", "--format", "json", ".")),
)
#: Once per run: the tables, which read no corpus.
TABLES = (
    ("formats.txt", ("formats",)),
    ("formats.json", ("formats", "--format", "json")),
    ("cards.txt", ("cards",)),
    ("cards.json", ("cards", "--format", "json")),
    ("size.txt", ("size", "BC7_SRGB", "4096x4096", "--mips")),
    ("size.json", ("size", "ASTC_6x6_SRGB", "1000x750", "--mips", "--format", "json")),
)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
    env.update(NO_COLOR="1", TERM="dumb", PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8")
    return env


def _normal(text: str, root: Path) -> str:
    """``text`` with the corpus's absolute path (as given and as resolved) written ``<ROOT>``."""
    for where in sorted({str(root), str(root.resolve())}, key=len, reverse=True):
        text = text.replace(where, "<ROOT>")
    return text


def run_reports(corpus: Path, out: Path, commands, log: list[str]) -> None:
    """Run each ``(name, args)`` in ``corpus``; stdout to ``out/name``, the rest to ``log``."""
    out.mkdir(parents=True, exist_ok=True)
    env = _env()
    for name, args in commands:
        done = subprocess.run([sys.executable, "-m", "texbudget", *args], cwd=corpus, env=env,
                              capture_output=True, stdin=subprocess.DEVNULL)
        stdout = done.stdout.decode("utf-8", errors="backslashreplace")
        stderr = done.stderr.decode("utf-8", errors="backslashreplace")
        (out / name).write_text(_normal(stdout, corpus), encoding="utf-8", newline="")
        log.append(f"{name}: texbudget {' '.join(args)} -> exit {done.returncode}")
        log += [f"    {line}" for line in _normal(stderr, corpus).splitlines()]


def _explained(report_json: Path) -> list[str]:
    """The first texture (in the report's order) of each container, and the first mesh."""
    try:
        report = json.loads(report_json.read_text(encoding="utf-8"))
    except ValueError:
        return []
    chosen: dict[str, str] = {}
    for t in report.get("textures", []):
        chosen.setdefault(t["container"], t["path"])
    paths = list(chosen.values())
    if report.get("meshes"):
        paths.append(report["meshes"][0]["path"])
    return paths


def write_corpus(name: str, corpus: Path, out: Path, extra=()) -> str:
    """Every report of one corpus into ``out/name``; returns a one-line summary."""
    started = time.perf_counter()
    shutil.rmtree(corpus / ".texbudget", ignore_errors=True)
    target = out / name
    log: list[str] = []
    run_reports(corpus, target, (*SCANS, *extra), log)
    explains = []
    for i, path in enumerate(_explained(target / "scan.json")):
        explains += [(f"explain.{i}.txt", ("explain", path)), (f"explain.{i}.json", ("explain", "--format", "json", path))]
    run_reports(corpus, target, explains, log)
    run_reports(corpus, target, [("diff.md", ("diff", str(target / "scan.json"), str(target / "scan.mobile-medium.json")))], log)
    log = [line.replace(str(target), "<OUT>") for line in log]
    (target / "diff.md").write_text((target / "diff.md").read_text(encoding="utf-8").replace(str(target), "<OUT>"),
                                    encoding="utf-8", newline="")
    (target / "commands.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
    return f"{name}: {len(list(target.iterdir()))} files in {time.perf_counter() - started:.1f}s"


def write_all(out: Path, files: int, shapes: list[str], trees: Path, demo: bool) -> None:
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"identity: {out} is not empty; give a new folder")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="texbudget-identity-") as scratch:
        root = Path(scratch) / "tables"
        root.mkdir()
        log: list[str] = []
        run_reports(root, out / "tables", TABLES, log)
        (out / "tables" / "commands.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
        empty, log = Path(scratch) / "empty", []
        empty.mkdir()
        run_reports(empty, out / "empty", EMPTY, log)
        (out / "empty" / "commands.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
        if demo:
            copy = Path(scratch) / "demo"
            shutil.copytree(REPO / "assets" / "demo", copy, ignore=shutil.ignore_patterns(".texbudget"))
            print(write_corpus("demo", copy, out, DEMO_ONLY), file=sys.stderr)
    for shape in shapes:
        tree = trees / f"identity-{shape}-{files}"
        make_tree.make_tree(tree, files, shape=shape)
        (tree / LIMITS).write_text(LIMITS_TOML, encoding="utf-8")
        print(write_corpus(f"{shape}-{files}", tree, out, TREES_ONLY), file=sys.stderr)


# --- comparing ---------------------------------------------------------------------------


def _first_difference(a: str, b: str) -> tuple[int, str, str]:
    """(line number from 1, line in a, line in b) where a and b first differ."""
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    for i, (x, y) in enumerate(zip(la, lb, strict=False)):
        if x != y:
            return i + 1, x, y
    n = min(len(la), len(lb))
    return n + 1, la[n] if n < len(la) else "(end of file)", lb[n] if n < len(lb) else "(end of file)"


def _clip(line: str, width: int = 160) -> str:
    line = line.rstrip("\r\n")
    if len(line) <= width:
        return line
    return line[:width] + f"… ({len(line)} characters)"


def compare(a: Path, b: Path) -> list[str]:
    """One paragraph per differing file; empty when the folders are identical."""
    names_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    out = []
    for name in sorted(names_a | names_b):
        if name not in names_b:
            out.append(f"only in {a}: {name}")
            continue
        if name not in names_a:
            out.append(f"only in {b}: {name}")
            continue
        ta, tb = (a / name).read_bytes(), (b / name).read_bytes()
        if ta == tb:
            continue
        line, x, y = _first_difference(ta.decode("utf-8", "backslashreplace"), tb.decode("utf-8", "backslashreplace"))
        out.append(f"differs: {name}, first at line {line}\n  - {_clip(x)}\n  + {_clip(y)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="folder to write every report into (new or empty)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two folders this script wrote")
    parser.add_argument("--files", type=int, default=DEFAULT_FILES, help=f"files per benchmark tree (default {DEFAULT_FILES})")
    parser.add_argument("--shapes", default=",".join(make_tree.SHAPES),
                        help=f"tree shapes, comma-separated (default {','.join(make_tree.SHAPES)}; empty for none)")
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES, help=f"where the trees are made and kept (default {DEFAULT_TREES})")
    parser.add_argument("--no-demo", action="store_true", help="leave out the demo")
    args = parser.parse_args(argv)
    if args.compare:
        a, b = args.compare
        for folder in (a, b):
            if not folder.is_dir():
                parser.error(f"{folder}: not a folder")
        differences = compare(a, b)
        for paragraph in differences:
            print(paragraph)
        count = sum(1 for p in a.rglob("*") if p.is_file())
        print(f"identity: {len(differences)} of {count} files differ" if differences else f"identity: {count} files, all identical")
        return 1 if differences else 0
    if args.out is None:
        parser.error("give OUT, or --compare A B")
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in make_tree.SHAPES]
    if unknown:
        parser.error(f"--shapes: unknown {', '.join(unknown)} (known: {', '.join(make_tree.SHAPES)})")
    if args.files < 1:
        parser.error("--files must be 1 or more")
    started = time.perf_counter()
    write_all(args.out.resolve(), args.files, shapes, args.trees.resolve(), not args.no_demo)
    print(f"identity: written {args.out} ({time.perf_counter() - started:.0f}s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
