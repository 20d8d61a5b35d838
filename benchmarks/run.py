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
same way). The rounds of all sizes are interleaved, so each size's minimum is taken over the
whole run, not over the minute its own rounds would fill. It prints a table of times and of the ratios the targets of issue 10 name, and
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

import make_tree  # noqa: E402  (this folder, not a package)

MIB = 1 << 20
#: The trees live outside the source tree: a 100k tree is 550 MB on disk but 200 GB of
#: apparent size (sparse payloads), which a copy of the checkout (tar, cp, rsync without
#: sparse support) would write out in full.
DEFAULT_TREES = Path(tempfile.gettempdir()) / "texbudget-bench-trees"
RAW_READ_BYTES = 64 * 1024

#: Issue 10, item 2: (key, words, limit). A ratio at or below the limit holds.
TARGETS = (
    ("scan_marginal_vs_raw", "marginal cost per file of `scan` (10k minus empty) vs the raw read's", 3.0),
    ("check_warm_vs_raw_e2e", "warm `check --total`, 10k files, one change, vs a raw read of the tree (end to end)", 2.5),
    ("scan_100k_vs_10k", "`scan` on 100k files vs on 10k (linear is 10)", 11.0),
    ("peak_rss_100k_mib", "peak RSS at 100k files, MiB", 200.0),
    ("recompute_10k_ms", "recompute all scenarios for 10k assets after a switch, ms in-process", 100.0),
)


# --- child processes -------------------------------------------------------------------------


#: Where child interpreters keep bytecode (set by ``main``): an installed texbudget has its
#: .pyc files, so the benchmark must not compile every module on every run, even where
#: PYTHONDONTWRITEBYTECODE is set; the prefix keeps them out of the source tree.
PYCACHE: Path | None = None


def run_child(argv: list[str], cwd: Path | None = None) -> dict:
    """Run ``argv`` to the end: wall seconds, peak RSS (of the child and the children it
    waited for, e.g. its process pool) in bytes, exit code, bytes written to stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env.pop("NO_COLOR", None)
    if PYCACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0, os.SEEK_END)
        err.seek(0)
        return {
            "seconds": seconds,
            "rss_bytes": usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
            "code": proc.returncode,
            "stdout_bytes": out.tell(),
            "stderr": err.read().decode(errors="replace")[-2000:],
        }


def texbudget(*args: str) -> list[str]:
    return [sys.executable, "-m", "texbudget", *args]


def best(runs: list[dict]) -> dict:
    """The fastest run, with the largest RSS of all runs."""
    fastest = min(runs, key=lambda r: r["seconds"])
    return {**fastest, "rss_bytes": max(r["rss_bytes"] for r in runs)}


def checked(result: dict, what: str) -> dict:
    if result["code"] not in (0, 1):
        raise SystemExit(f"benchmark: {what} failed with exit code {result['code']}:\n{result['stderr']}")
    return result


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


def measure(sizes: list[int], trees: Path, repeat: int, empty: Path) -> dict[int, dict]:
    """Every measurement of every size, by size.

    The rounds of all sizes are interleaved (round 1 of each size, then round 2 of each, …),
    so that each size's fastest run is taken over the whole run's span, not over the minute
    its own rounds would fill: the host has slow spells that last about a minute (one made a
    10k scan 0.65 s at best in its five rounds and 0.46 s a minute later, in the 100k rounds).
    Within a round, the floor, the fixed cost (the empty folder) and the scan run back to
    back, so that they see the same machine (other load, caches). A size whose tenth is also
    run scans that smaller tree in its rounds too, for the linearity target."""
    m: dict[int, dict] = {}
    for n in sizes:
        stats = make_tree.make_tree(trees / str(n), n)
        print(f"benchmark: {n} files ({stats.apparent_bytes / MIB:.0f} MiB apparent)", file=sys.stderr)
        m[n] = {"files": n, "apparent_bytes": stats.apparent_bytes}
    reference = {n: n // 10 if n % 10 == 0 and n // 10 in sizes else None for n in sizes}
    runs: dict[int, dict[str, list]] = {n: {k: [] for k in ("raw", "raw_e2e", "empty", "scan", "reference")} for n in sizes}
    for _ in range(repeat):
        for n in sizes:
            tree, r = trees / str(n), runs[n]
            r["raw"].append(raw_read(tree)[1])
            r["raw_e2e"].append(checked(run_child([sys.executable, "-c", RAW_READ_SCRIPT, str(tree)]), "raw read"))
            r["empty"].append(checked(run_child(texbudget("scan", "--no-cache", str(empty))), "scan of an empty folder"))
            r["scan"].append(checked(run_child(texbudget("scan", "--no-cache", str(tree))), "scan"))
            if reference[n] is not None:
                r["reference"].append(checked(run_child(texbudget("scan", "--no-cache", str(trees / str(reference[n])))), "scan"))
    for n in sizes:
        r, mn = runs[n], m[n]
        if reference[n] is not None:
            mn["reference_files"] = reference[n]
            mn["scan_reference_s"] = best(r["reference"])["seconds"]
        mn["raw_read_s"] = min(r["raw"])
        mn["raw_read_e2e_s"] = best(r["raw_e2e"])["seconds"]
        mn["scan_empty_s"] = best(r["empty"])["seconds"]
        scan = best(r["scan"])
        mn["scan_s"] = scan["seconds"]
        mn["scan_rss_bytes"] = scan["rss_bytes"]
        mn["scan_marginal_per_file_s"] = max(0.0, scan["seconds"] - mn["scan_empty_s"]) / n
        mn["raw_read_per_file_s"] = mn["raw_read_s"] / n
    _warm_checks(sizes, trees, repeat, m)
    for n in sizes:
        m[n]["recompute_s"] = recompute(trees / str(n), repeat)
    return m


def _warm_checks(sizes: list[int], trees: Path, repeat: int, m: dict[int, dict]) -> None:
    """The warm check of every size into ``m``: one run fills each tree's cache, then rounds
    interleaved as the scans' are, each a change to one PNG, the check, and its floor again
    (a raw read end to end, in the same round). Every changed file is put back after."""
    saved: dict[int, bytes] = {}
    runs: dict[int, tuple[list, list]] = {n: ([], []) for n in sizes}
    try:
        for n in sizes:
            tree = trees / str(n)
            shutil.rmtree(tree / ".texbudget", ignore_errors=True)
            checked(run_child(texbudget(*CHECK_ARGS, str(tree))), "filling the cache")
            if not (tree / ".texbudget" / "cache.sqlite").is_file():
                raise SystemExit(f"benchmark: `texbudget {' '.join(CHECK_ARGS)}` wrote no cache in {tree}")
            saved[n] = (tree / CHANGED).read_bytes()
        for step in range(repeat):
            for n in sizes:
                tree = trees / str(n)
                touch_one(tree, step)
                runs[n][0].append(checked(run_child(texbudget(*CHECK_ARGS, str(tree))), "warm check"))
                runs[n][1].append(checked(run_child([sys.executable, "-c", RAW_READ_SCRIPT, str(tree)]), "raw read"))
    finally:
        for n, data in saved.items():
            original = trees / str(n) / CHANGED
            original.write_bytes(data)
            os.utime(original, ns=(make_tree.MTIME_NS, make_tree.MTIME_NS))
    for n in sizes:
        warm, floors = runs[n]
        check = best(warm)
        m[n]["raw_read_e2e_check_s"] = best(floors)["seconds"]
        m[n]["check_warm_s"] = check["seconds"]
        m[n]["check_rss_bytes"] = check["rss_bytes"]
        m[n]["peak_rss_bytes"] = max(m[n]["scan_rss_bytes"], check["rss_bytes"])


def recompute(tree: Path, repeat: int) -> float:
    """``pipeline.evaluate`` after a switch (desktop/ultra -> mobile-astc/medium and back),
    on a Scan read once; the fastest of the switches."""
    from texbudget import config as config_mod
    from texbudget.pipeline import build_settings, evaluate
    from texbudget.scan import read_scene

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
    ten, hundred = sizes.get(10_000), sizes.get(100_000)
    values: dict[str, float | None] = {
        "scan_marginal_vs_raw": ten and ten["scan_marginal_per_file_s"] / ten["raw_read_per_file_s"],
        "check_warm_vs_raw_e2e": ten and ten["check_warm_s"] / ten["raw_read_e2e_check_s"],
        # against the 10k scan timed in the 100k rounds when there is one (the host drifts
        # between the rounds of two sizes, minutes apart)
        "scan_100k_vs_10k": (ten and hundred) and hundred["scan_s"] / hundred.get("scan_reference_s", ten["scan_s"]),
        "peak_rss_100k_mib": hundred and hundred["peak_rss_bytes"] / MIB,
        "recompute_10k_ms": ten and ten["recompute_s"] * 1000,
    }
    out = []
    for key, words, limit in TARGETS:
        value = values[key]
        status = "not measured" if value is None else ("holds" if value <= limit else "does not hold")
        out.append({"key": key, "target": words, "limit": limit, "value": value, "status": status})
    return out


def _load() -> float | None:
    """The 1-minute load average: other work on the machine skews every time."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def table(results: dict) -> str:
    machine = results["machine"]
    load = "" if machine["load_before"] is None else f", load average {machine['load_before']:.1f} before, {machine.get('load_after') or 0:.1f} after"
    lines = [f"texbudget benchmarks — {machine['cpus']} cores, Python {machine['python']}, {machine['system']}{load}", ""]
    head = f"{'files':>8} {'raw read':>9} {'raw e2e':>8} {'scan':>8} {'scan/file':>10} {'×raw/file':>10} {'warm check':>11} {'×raw e2e':>9} {'peak RSS':>9} {'recompute':>10}"
    lines += [head, "-" * len(head)]
    for n, m in sorted(results["sizes"].items(), key=lambda kv: int(kv[0])):
        ratio = m["scan_marginal_per_file_s"] / m["raw_read_per_file_s"]
        lines.append(
            f"{int(n):>8} {m['raw_read_s']:>8.3f}s {m['raw_read_e2e_s']:>7.3f}s {m['scan_s']:>7.3f}s "
            f"{m['scan_marginal_per_file_s'] * 1e6:>8.1f}µs {ratio:>9.1f}× {m['check_warm_s']:>10.3f}s "
            f"{m['check_warm_s'] / m['raw_read_e2e_check_s']:>8.1f}× {m['peak_rss_bytes'] / MIB:>7.0f}MiB {m['recompute_s'] * 1000:>8.1f}ms"
        )
    by_size = [m for _, m in sorted(results["sizes"].items(), key=lambda kv: int(kv[0]))]
    empties = ", ".join(f"{m['scan_empty_s']:.3f}s" for m in by_size)
    check_floors = ", ".join(f"{m['raw_read_e2e_check_s']:.3f}s" for m in by_size)
    lines += ["", f"scan of an empty folder (fixed cost), in each size's rounds: {empties}; "
              f"warm check timed as: {results['check_command']}, against a raw read e2e in its own rounds: {check_floors}"]
    for m in by_size:
        if "scan_reference_s" in m:
            lines.append(f"scan of the {m['reference_files']}-file tree in the {m['files']}-file rounds (the linearity "
                         f"target's reference): {m['scan_reference_s']:.3f}s")
    lines += ["", "targets (issue 10):"]
    for t in results["targets"]:
        value = "—" if t["value"] is None else f"{t['value']:.2f}"
        lines.append(f"  {t['status']:>14}  {value:>8} ≤ {t['limit']:<6g} {t['target']}")
    p = results["peer"]
    if "skipped" in p:
        lines.append(f"\npeer: skipped: {p['skipped']}")
    else:
        lines.append(f"\npeer: glTF-Transform {p['gltf_transform_version']} inspect, {p['files']} GLB files one process each: "
                     f"{p['gltf_transform_s']:.2f}s; texbudget scan --format json the same way: {p['texbudget_s']:.2f}s "
                     f"(texbudget/peer {p['ratio']:.2f}×)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="texbudget speed and memory against a raw-read baseline")
    parser.add_argument("--sizes", default="1000,10000,100000", help="tree sizes, comma-separated (default 1000,10000,100000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the fastest counts (default 5)")
    parser.add_argument("--out", type=Path, default=HERE / "out", help="results.json, node_modules and bytecode go here (default benchmarks/out)")
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES,
                        help=f"where the synthetic trees are made and kept (default {DEFAULT_TREES}; outside the "
                             "source tree, because their sparse files add up to 200 GB of apparent size)")
    parser.add_argument("--no-peer", action="store_true", help="skip glTF-Transform")
    parser.add_argument("--peer-files", type=int, default=20, help="GLB files for the peer comparison (default 20)")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: comma-separated numbers of files")
    if not sizes or min(sizes) < 1 or args.repeat < 1:
        parser.error("sizes and --repeat must be 1 or more")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    global PYCACHE
    PYCACHE = out / "pycache"
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
        "sizes": {},
    }
    for n, measured in measure(sizes, trees, args.repeat, empty).items():
        results["sizes"][str(n)] = measured
    results["scan_empty_s"] = min(m["scan_empty_s"] for m in results["sizes"].values())
    results["targets"] = targets({int(k): v for k, v in results["sizes"].items()})
    if args.no_peer:
        results["peer"] = {"skipped": "--no-peer"}
    else:
        results["peer"] = peer(out, trees / str(sizes[0]), args.peer_files)
    results["seconds"] = time.perf_counter() - started
    results["machine"]["load_after"] = _load()
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print(f"\nwritten: {out / 'results.json'} ({results['seconds']:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
