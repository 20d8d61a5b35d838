"""texbudget's speed and memory, measured against the cost of just reading the files.

    python benchmarks/run.py [--sizes 1000,10000,100000] [--repeat 5] [--out benchmarks/out]
                             [--trees DIR] [--no-peer] [--peer-files 20]

For each size the runner makes (or reuses) a synthetic tree (``make_tree.py``) and measures,
in this one run on this machine:

- ``raw_read``: the floor. Walk the tree, open every file, read its first 64 KiB, close it;
  in this process (``raw_read_s``) and end to end in a fresh interpreter (``raw_read_e2e_s``,
  interpreter start included).
- ``scan_s``: ``texbudget scan TREE --no-cache`` end to end (text report to a file), and
  ``scan_empty_s``, the same on an empty folder (start-up, imports, config: the fixed cost),
  timed in the same rounds as each size (the top-level value is the least of them).
- ``check_warm_s``: ``texbudget check --total TREE`` with a warm cache (filled by one run
  first) after one file changed, end to end; each run is followed by a raw read end to end
  (``raw_read_e2e_check_s``), the floor it is compared with, taken in the same rounds.
- ``peak_rss_bytes``: the largest resident set of the scan and warm-check processes (and their
  worker processes), from ``os.wait4``.
- ``recompute_s``: the TUI's work on a settings switch: ``pipeline.evaluate`` on a ``Scan``
  already read, in this process, after switching platform and quality.
- ``peer``: glTF-Transform ``inspect`` (npm ``@gltf-transform/cli``, installed into
  ``OUT/node_modules`` when npm is present) against ``texbudget scan --format json`` on the
  same GLB files, one process per file for both, as a ratio.

Times are the minimum of ``--repeat`` runs (the least disturbed run; the floor is measured the
same way). The rounds of all sizes of a shape are interleaved, so each size's minimum is taken
over the shape's whole span, not over the minute its own rounds would fill; the shapes run
one after another (their 100k trees do not fit in the page cache together). It prints a table of times and of the ratios the targets of issue 10 name, and
writes everything to ``OUT/results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import children  # noqa: E402  (this folder, not a package)
import make_tree  # noqa: E402
import startup  # noqa: E402
from children import best, checked, run_child, texbudget  # noqa: E402

MIB = 1 << 20
#: The trees live outside the source tree: a 100k tree is 550 MB on disk but 200 GB of
#: apparent size (sparse payloads), which a copy of the checkout (tar, cp, rsync without
#: sparse support) would write out in full.
DEFAULT_TREES = Path(tempfile.gettempdir()) / "texbudget-bench-trees"
RAW_READ_BYTES = 64 * 1024

#: (key, words, limit) of each shape: a value at or below the limit holds. Issue 10 set
#: them; issue 22 tightened the scan (3 -> 2.5), the warm check (2.5 -> 2) and the peak RSS
#: (200 -> 150 MB, in MiB as issue 10's was), and asks for the text and the JSON report both.
TARGETS = (
    ("scan_marginal_vs_raw", "marginal cost per file of `scan` (10k minus empty) vs the raw read's", 2.5),
    ("scan_json_marginal_vs_raw", "the same, `scan --format json`", 2.5),
    ("check_warm_vs_raw_e2e", "warm `check --total`, 10k files, one change, vs a raw read of the tree (end to end)", 2.0),
    ("check_warm_json_vs_raw_e2e", "the same, `check --total --format json`", 2.0),
    ("peak_rss_100k_mib", "peak RSS at 100k files (scan and warm check), MiB", 150.0),
    ("peak_rss_json_100k_mib", "the same, JSON reports", 150.0),
    ("scan_100k_vs_10k", "`scan` on 100k files vs on 10k (linear is 10)", 11.0),
    ("recompute_10k_ms", "recompute all scenarios for 10k assets after a switch, ms in-process", 100.0),
)
#: Issue 22, item 5: a command with nothing to do against a bare interpreter that imports
#: the standard library it needs (``startup.py`` says which and why).
STARTUP_TARGETS = (
    ("startup_check_empty_vs_bare", "`check` on an empty folder vs a bare interpreter", 2.0),
    ("startup_check_named_vs_bare", "`check` of named files, none to read, vs a bare interpreter", 2.0),
    ("startup_version_vs_bare", "`--version` vs a bare interpreter", 2.0),
    ("startup_help_vs_bare", "`--help` vs a bare interpreter", 2.0),
)


# --- the floor -------------------------------------------------------------------------------


def raw_read(root: Path) -> tuple[int, float]:
    """(files, seconds): walk, open, read the first 64 KiB, close — every file (hidden
    folders such as .texbudget skipped, as texbudget skips them)."""
    started = time.perf_counter()
    files = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.startswith("."):
                continue
            with open(os.path.join(folder, name), "rb") as f:
                f.read(RAW_READ_BYTES)
            files += 1
    return files, time.perf_counter() - started


#: The floor end to end: a fresh interpreter that does the raw read and nothing else.
RAW_READ_SCRIPT = """
import os, sys
for folder, dirs, names in os.walk(sys.argv[1]):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for name in names:
        if not name.startswith("."):
            with open(os.path.join(folder, name), "rb") as f:
                f.read(65536)
"""


# --- the warm check --------------------------------------------------------------------------


#: The warm check's command, without the tree.
CHECK_ARGS = ["check", "--total"]

#: The file the warm check finds changed (file 0 of every tree is a PNG).
CHANGED = "characters/set_0000/char_000000.png"


def touch_one(tree: Path, step: int) -> Path:
    """Change one PNG: alternate between two real images of different sizes."""
    target = tree / CHANGED
    side = 512 if step % 2 else 256
    target.write_bytes(make_tree.png_bytes(side, side, 6))
    return target


# --- the peer --------------------------------------------------------------------------------


def peer(out: Path, tree: Path, files: int) -> dict:
    """glTF-Transform `inspect` vs texbudget on the same GLBs, one process per file each."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        return {"skipped": "npm or node is not on PATH; glTF-Transform was not run"}
    cli = out / "node_modules" / "@gltf-transform" / "cli" / "bin" / "cli.js"
    if not cli.is_file():
        print("benchmark: installing @gltf-transform/cli with npm …", file=sys.stderr)
        done = subprocess.run([npm, "install", "--prefix", str(out), "--no-audit", "--no-fund", "@gltf-transform/cli"],
                              capture_output=True, text=True)
        if done.returncode != 0 or not cli.is_file():
            return {"skipped": f"npm install @gltf-transform/cli failed: {done.stderr.strip()[-300:]}"}
    glbs = sorted(tree.rglob("*.glb"))[:files]
    if not glbs:
        return {"skipped": "the tree has no GLB files"}
    version = subprocess.run([node, str(cli), "--version"], capture_output=True, text=True).stdout.strip()
    peer_s = tb_s = 0.0
    for glb in glbs:
        rel = str(glb.relative_to(tree))
        theirs = run_child([node, str(cli), "inspect", rel], cwd=tree)
        if theirs["code"] != 0:
            return {"skipped": f"gltf-transform inspect failed on {rel}: {theirs['stderr'].strip()[-300:]}"}
        ours = checked(run_child(texbudget("scan", "--format", "json", "--no-cache", rel), cwd=tree), "texbudget on one GLB")
        peer_s += theirs["seconds"]
        tb_s += ours["seconds"]
    return {"files": len(glbs), "gltf_transform_version": version, "gltf_transform_s": peer_s,
            "texbudget_s": tb_s, "ratio": tb_s / peer_s}


# --- the run ---------------------------------------------------------------------------------


def tree_path(trees: Path, shape: str, n: int) -> Path:
    """Where a tree of ``shape`` and ``n`` files is kept (the mix where it always was)."""
    return trees / (str(n) if shape == "mix" else f"{shape}-{n}")


#: The two outputs every scan and warm check is timed with: (suffix of the metric, arguments).
OUTPUTS = (("", ()), ("_json", ("--format", "json")))


def measure(shapes: list[str], sizes: list[int], trees: Path, repeat: int, empty: Path) -> dict[str, dict[int, dict]]:
    """Every measurement of every shape and size, by shape and size.

    The rounds of all the shapes and sizes given are interleaved (round 1 of each, then
    round 2 of each, …), so that each one's fastest run is taken over the whole run's span,
    not over the minute its own rounds would fill: the host has slow spells that last about
    a minute (one made a 10k scan 0.65 s at best in its five rounds and 0.46 s a minute
    later, in the 100k rounds). ``main`` gives one shape at a time: the raw read of a 100k
    tree keeps 6.4 GB in the page cache (64 KiB of each file, holes too), so the four shapes'
    trees together do not fit in memory, and a floor read after another shape's rounds read
    from the disk (24 s instead of 1.5 s for the 100k mix, in a run that interleaved them).
    Within a round, the floor, the fixed cost (the empty folder) and the scans (text, then
    JSON) run back to back, so that they see the same machine (other load, caches). A size
    whose tenth is also run scans that smaller tree of its shape in its rounds too, for the
    linearity target."""
    cases = [(shape, n) for n in sizes for shape in shapes]
    m: dict[str, dict[int, dict]] = {shape: {} for shape in shapes}
    for shape, n in cases:
        stats = make_tree.make_tree(tree_path(trees, shape, n), n, shape=shape)
        print(f"benchmark: {shape} {n} files ({stats.apparent_bytes / MIB:.0f} MiB apparent)", file=sys.stderr)
        m[shape][n] = {"files": n, "shape": shape, "by_kind": stats.by_kind, "apparent_bytes": stats.apparent_bytes}
    reference = {n: n // 10 if n % 10 == 0 and n // 10 in sizes else None for n in sizes}
    keys = ("raw", "raw_e2e", "empty", "scan", "scan_json", "reference")
    runs: dict[tuple[str, int], dict[str, list]] = {case: {k: [] for k in keys} for case in cases}
    for _ in range(repeat):
        for shape, n in cases:
            tree, r = tree_path(trees, shape, n), runs[shape, n]
            r["raw"].append(raw_read(tree)[1])
            r["raw_e2e"].append(checked(run_child([sys.executable, "-c", RAW_READ_SCRIPT, str(tree)]), "raw read"))
            r["empty"].append(checked(run_child(texbudget("scan", "--no-cache", str(empty))), "scan of an empty folder"))
            for suffix, output in OUTPUTS:
                r["scan" + suffix].append(checked(run_child(texbudget("scan", "--no-cache", *output, str(tree))), "scan"))
            if reference[n] is not None:
                smaller = tree_path(trees, shape, reference[n])
                r["reference"].append(checked(run_child(texbudget("scan", "--no-cache", str(smaller))), "scan"))
    for shape, n in cases:
        r, mn = runs[shape, n], m[shape][n]
        if reference[n] is not None:
            mn["reference_files"] = reference[n]
            mn["scan_reference_s"] = best(r["reference"])["seconds"]
        mn["raw_read_s"] = min(r["raw"])
        mn["raw_read_e2e_s"] = best(r["raw_e2e"])["seconds"]
        mn["scan_empty_s"] = best(r["empty"])["seconds"]
        mn["raw_read_per_file_s"] = mn["raw_read_s"] / n
        for suffix, _ in OUTPUTS:
            scan = best(r["scan" + suffix])
            mn[f"scan{suffix}_s"] = scan["seconds"]
            mn[f"scan{suffix}_rss_bytes"] = scan["rss_bytes"]
            mn[f"scan{suffix}_marginal_per_file_s"] = max(0.0, scan["seconds"] - mn["scan_empty_s"]) / n
    _warm_checks(cases, trees, repeat, m)
    return m


def _warm_checks(cases: list[tuple[str, int]], trees: Path, repeat: int, m: dict[str, dict[int, dict]]) -> None:
    """The warm checks of every case into ``m``: one run fills each tree's cache, then rounds
    interleaved as the scans' are, each a change to one PNG and the check with a text
    report, another change and the check with a JSON report, and their floor again (a raw
    read end to end, in the same round). Every changed file is put back after."""
    saved: dict[tuple[str, int], bytes] = {}
    keys = ("floor", *(f"check{suffix}" for suffix, _ in OUTPUTS))
    runs: dict[tuple[str, int], dict[str, list]] = {case: {k: [] for k in keys} for case in cases}
    try:
        for shape, n in cases:
            tree = tree_path(trees, shape, n)
            shutil.rmtree(tree / ".texbudget", ignore_errors=True)
            checked(run_child(texbudget(*CHECK_ARGS, str(tree))), "filling the cache")
            if not (tree / ".texbudget" / "cache.sqlite").is_file():
                raise SystemExit(f"benchmark: `texbudget {' '.join(CHECK_ARGS)}` wrote no cache in {tree}")
            saved[shape, n] = (tree / CHANGED).read_bytes()
        for step in range(repeat):
            for shape, n in cases:
                tree, r = tree_path(trees, shape, n), runs[shape, n]
                for i, (suffix, output) in enumerate(OUTPUTS):
                    touch_one(tree, 2 * step + i)
                    r["check" + suffix].append(checked(run_child(texbudget(*CHECK_ARGS, *output, str(tree))), "warm check"))
                r["floor"].append(checked(run_child([sys.executable, "-c", RAW_READ_SCRIPT, str(tree)]), "raw read"))
    finally:
        for (shape, n), data in saved.items():
            original = tree_path(trees, shape, n) / CHANGED
            original.write_bytes(data)
            os.utime(original, ns=(make_tree.MTIME_NS, make_tree.MTIME_NS))
    for case in cases:
        r, mn = runs[case], m[case[0]][case[1]]
        mn["raw_read_e2e_check_s"] = best(r["floor"])["seconds"]
        for suffix, _ in OUTPUTS:
            check = best(r["check" + suffix])
            mn[f"check_warm{suffix}_s"] = check["seconds"]
            mn[f"check{suffix}_rss_bytes"] = check["rss_bytes"]
            mn[f"peak_rss{suffix}_bytes"] = max(mn[f"scan{suffix}_rss_bytes"], check["rss_bytes"])


def recompute(tree: Path, repeat: int) -> float:
    """``pipeline.evaluate`` after a switch (desktop/ultra -> mobile-astc/medium and back),
    on a Scan read once; the fastest of the switches."""
    from texbudget import config as config_mod
    from texbudget.pipeline import build_settings, evaluate
    from texbudget.scan.scene import read_scene

    config = config_mod.load(config_mod.find_config(tree))
    scan = read_scene(tree, config, None, use_cache=True)
    a = build_settings(config, platform="desktop", quality="ultra", resolutions=None, rt=None, cards=None)
    b = build_settings(config, platform="mobile-astc", quality="medium", resolutions=None, rt=None, cards=None)
    evaluate(scan, a)
    times = []
    for i in range(max(2, repeat) * 2):
        started = time.perf_counter()
        evaluate(scan, b if i % 2 == 0 else a)
        times.append(time.perf_counter() - started)
    return min(times)


def targets(sizes: dict[int, dict]) -> list[dict]:
    """The targets of one shape's sizes."""
    ten, hundred = sizes.get(10_000), sizes.get(100_000)
    values: dict[str, float | None] = {}
    for suffix, _ in OUTPUTS:
        values[f"scan{suffix}_marginal_vs_raw"] = ten and ten[f"scan{suffix}_marginal_per_file_s"] / ten["raw_read_per_file_s"]
        values[f"check_warm{suffix}_vs_raw_e2e"] = ten and ten[f"check_warm{suffix}_s"] / ten["raw_read_e2e_check_s"]
        values[f"peak_rss{suffix}_100k_mib"] = hundred and hundred[f"peak_rss{suffix}_bytes"] / MIB
    # against the 10k scan timed in the 100k rounds when there is one (the host drifts
    # between the rounds of two sizes, minutes apart)
    values["scan_100k_vs_10k"] = (ten and hundred) and hundred["scan_s"] / hundred.get("scan_reference_s", ten["scan_s"])
    values["recompute_10k_ms"] = ten and ten["recompute_s"] * 1000
    return _judged(TARGETS, values)


def _judged(targets: tuple[tuple[str, str, float], ...], values: dict[str, float | None]) -> list[dict]:
    out = []
    for key, words, limit in targets:
        value = values.get(key)
        status = "not measured" if value is None else ("holds" if value <= limit else "does not hold")
        out.append({"key": key, "target": words, "limit": limit, "value": value, "status": status})
    return out


def startup_targets(startup: dict | None) -> list[dict]:
    commands = (startup or {}).get("commands", {})
    return _judged(STARTUP_TARGETS, {f"startup_{name}_vs_bare": c["ratio"] for name, c in commands.items()})


def _load() -> float | None:
    """The 1-minute load average: other work on the machine skews every time."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _target_lines(targets: list[dict]) -> list[str]:
    lines = []
    for t in targets:
        value = "—" if t["value"] is None else f"{t['value']:.2f}"
        lines.append(f"  {t['status']:>14}  {value:>8} ≤ {t['limit']:<6g} {t['target']}")
    return lines


def table(results: dict) -> str:
    machine = results["machine"]
    load = "" if machine["load_before"] is None else f", load average {machine['load_before']:.1f} before, {machine.get('load_after') or 0:.1f} after"
    lines = [f"texbudget benchmarks — {machine['cpus']} cores, Python {machine['python']}, {machine['system']}{load}"]
    head = (f"{'shape':>5} {'files':>7} {'raw read':>9} {'raw e2e':>8} {'scan':>8} {'×raw/file':>9} {'json':>8} {'×raw/file':>9} "
            f"{'warm check':>10} {'×raw e2e':>8} {'json':>8} {'×raw e2e':>8} {'peak RSS':>8} {'json':>8} {'recompute':>9}")
    for shape, entry in results["shapes"].items():
        lines += ["", head, "-" * len(head)]
        by_size = [m for _, m in sorted(entry["sizes"].items(), key=lambda kv: int(kv[0]))]
        for m in by_size:
            floor = m["raw_read_per_file_s"]
            lines.append(
                f"{shape:>5} {m['files']:>7} {m['raw_read_s']:>8.3f}s {m['raw_read_e2e_s']:>7.3f}s "
                f"{m['scan_s']:>7.3f}s {m['scan_marginal_per_file_s'] / floor:>8.2f}× "
                f"{m['scan_json_s']:>7.3f}s {m['scan_json_marginal_per_file_s'] / floor:>8.2f}× "
                f"{m['check_warm_s']:>9.3f}s {m['check_warm_s'] / m['raw_read_e2e_check_s']:>7.2f}× "
                f"{m['check_warm_json_s']:>7.3f}s {m['check_warm_json_s'] / m['raw_read_e2e_check_s']:>7.2f}× "
                f"{m['peak_rss_bytes'] / MIB:>5.0f}MiB {m['peak_rss_json_bytes'] / MIB:>5.0f}MiB {m['recompute_s'] * 1000:>7.1f}ms"
            )
        empties = ", ".join(f"{m['scan_empty_s']:.3f}s" for m in by_size)
        check_floors = ", ".join(f"{m['raw_read_e2e_check_s']:.3f}s" for m in by_size)
        lines += ["", f"scan of an empty folder (fixed cost), in each size's rounds: {empties}; "
                  f"warm check ({results['check_command']}), its raw read e2e in its own rounds: {check_floors}"]
        for m in by_size:
            if "scan_reference_s" in m:
                lines.append(f"scan of the {m['reference_files']}-file tree in the {m['files']}-file rounds (the linearity "
                             f"target's reference): {m['scan_reference_s']:.3f}s")
        lines += [f"targets, {shape} tree:", *_target_lines(entry["targets"])]
    startup = results.get("startup")
    if startup and "skipped" not in startup:
        lines += ["", f"start-up: baseline {startup['bare_command']}: {startup['bare_s'] * 1000:.1f} ms"]
        for c in startup["commands"].values():
            lines.append(f"  {c['argv']:<24} {c['seconds'] * 1000:7.1f} ms  {c['ratio']:5.2f}×")
        lines += ["targets, start-up:", *_target_lines(results["startup_targets"])]
    p = results["peer"]
    if "skipped" in p:
        lines.append(f"\npeer: skipped: {p['skipped']}")
    else:
        lines.append(f"\npeer: glTF-Transform {p['gltf_transform_version']} inspect, {p['files']} GLB files one process each: "
                     f"{p['gltf_transform_s']:.2f}s; texbudget scan --format json the same way: {p['texbudget_s']:.2f}s "
                     f"(texbudget/peer {p['ratio']:.2f}×)")
    return "\n".join(lines)


def markdown(results: dict) -> str:
    """The targets of a run as one Markdown table: a row per target, a column per shape."""
    shapes = list(results["shapes"])
    lines = ["| target | limit | " + " | ".join(shapes) + " |", "|---|---:|" + "---:|" * len(shapes)]

    def cell(t: dict) -> str:
        if t["value"] is None:
            return "—"
        return f"{t['value']:.2f}" + ("" if t["status"] == "holds" else " ✗")

    for i, (_, words, limit) in enumerate(TARGETS):
        row = [cell(results["shapes"][shape]["targets"][i]) for shape in shapes]
        lines.append(f"| {words} | {limit:g} | " + " | ".join(row) + " |")
    for t in results.get("startup_targets", []):
        lines.append(f"| {t['target']} | {t['limit']:g} | {cell(t)} (no tree) |" + " |" * (len(shapes) - 1))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="texbudget speed and memory against a raw-read baseline")
    parser.add_argument("--sizes", default="1000,10000,100000", help="tree sizes, comma-separated (default 1000,10000,100000)")
    parser.add_argument("--shapes", default=",".join(make_tree.SHAPES),
                        help=f"tree shapes (make_tree.py), comma-separated (default {','.join(make_tree.SHAPES)})")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the fastest counts (default 5)")
    parser.add_argument("--startup-repeat", type=int, default=20,
                        help="rounds of the start-up commands; the fastest counts (default 20; 0 skips them)")
    parser.add_argument("--out", type=Path, default=HERE / "out", help="results.json, node_modules and bytecode go here (default benchmarks/out)")
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES,
                        help=f"where the synthetic trees are made and kept (default {DEFAULT_TREES}; outside the "
                             "source tree, because their sparse files add up to 200 GB of apparent size)")
    parser.add_argument("--no-peer", action="store_true", help="skip glTF-Transform")
    parser.add_argument("--peer-files", type=int, default=20, help="GLB files for the peer comparison (default 20)")
    parser.add_argument("--markdown", type=Path, metavar="RESULTS", help="print the targets of a results.json as Markdown, and stop")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return 0
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: comma-separated numbers of files")
    if not sizes or min(sizes) < 1 or args.repeat < 1 or args.startup_repeat < 0:
        parser.error("sizes and --repeat must be 1 or more, --startup-repeat 0 or more")
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not shapes or any(s not in make_tree.SHAPES for s in shapes):
        parser.error(f"--shapes {args.shapes!r}: comma-separated, of {', '.join(make_tree.SHAPES)}")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    children.PYCACHE = out / "pycache"
    started = time.perf_counter()

    trees = args.trees.resolve()
    trees.mkdir(parents=True, exist_ok=True)
    empty = trees / "empty"
    shutil.rmtree(empty, ignore_errors=True)
    empty.mkdir(parents=True)
    run_child(texbudget("scan", "--no-cache", str(empty)))  # compiles texbudget's bytecode, untimed

    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "system": f"{platform.system()} {platform.machine()}",
                    "load_before": _load()},
        "repeat": args.repeat,
        "check_command": " ".join(CHECK_ARGS),
        "shapes": {},
    }
    measured = {shape: measure([shape], sizes, trees, args.repeat, empty)[shape] for shape in shapes}  # see measure
    results["scan_empty_s"] = min(m["scan_empty_s"] for e in measured.values() for m in e.values())
    if args.startup_repeat:
        results["startup"] = startup.measure(args.startup_repeat, empty)
    else:
        results["startup"] = {"skipped": "--startup-repeat 0"}
    results["startup_targets"] = startup_targets(results["startup"])
    if args.no_peer:
        results["peer"] = {"skipped": "--no-peer"}
    elif "mix" not in shapes:
        results["peer"] = {"skipped": "the peer runs on the mix tree, which was not run"}
    else:
        results["peer"] = peer(out, tree_path(trees, "mix", sizes[0]), args.peer_files)
    # In this process, after every child was timed: a read of a 100k tree here makes this
    # process hundreds of MiB, and a child started after it reports at least that as its
    # peak RSS (os.wait4 counts the pages it shares with its parent until it execs).
    for shape, n in ((shape, n) for shape in shapes for n in sizes):
        measured[shape][n]["recompute_s"] = recompute(tree_path(trees, shape, n), args.repeat)
    for shape in shapes:
        results["shapes"][shape] = {"sizes": {str(n): m for n, m in measured[shape].items()},
                                    "targets": targets(measured[shape])}
    results["seconds"] = time.perf_counter() - started
    results["machine"]["load_after"] = _load()
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print(f"\nwritten: {out / 'results.json'} ({results['seconds']:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
