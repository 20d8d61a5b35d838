"""What a command with nothing to do costs, against a bare interpreter (issue 22, item 5).

    python benchmarks/startup.py [--repeat 20] [--imports]

Each command runs in a fresh interpreter, as a user runs it (``python -m texbudget …``, the
same interpreter and bytecode as ``run.py``'s children):

- ``check`` on an empty folder: arguments, config search, discovery of nothing;
- ``check`` of named files none of which is there to read (the pre-commit hook's case when
  the files it names were deleted or are excluded): here one file that is gone;
- ``--version`` and ``--help``: the command line only.

Every command runs with the empty folder as its working folder.

The baseline (``BARE``) is the interpreter importing what such a command truly needs from
the standard library, and nothing of texbudget's: ``argparse`` (the command line),
``pathlib`` (paths and the config search), ``tomllib`` (``texbudget.toml``), ``sqlite3``
(the read cache) and ``json`` (the JSON report, glTF). A command that costs twice that or
less holds the target. The ratio is taken in one run: the rounds alternate the baseline and
each command, and the fastest of each counts (the host's speed drifts, see README.md).

``--imports`` adds, per command, what ``python -X importtime`` says it imports: each module
that the baseline does not import, who imported it, its own time and its cumulative time
(the median of ``--import-runs`` runs), biggest first.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import children  # noqa: E402  (this folder, not a package)

#: The standard library a command needs, imported by a bare interpreter: the baseline.
BARE_IMPORTS = "argparse, json, os, pathlib, sqlite3, tomllib"
BARE = ["-c", f"import {BARE_IMPORTS}"]

#: (name, arguments after ``texbudget``); ``{empty}`` is an empty folder, also the working one.
COMMANDS = (
    ("check_empty", ("check", "{empty}")),
    ("check_named", ("check", "gone.png")),
    ("version", ("--version",)),
    ("help", ("--help",)),
)


def _argv(args: tuple[str, ...], empty: Path) -> list[str]:
    return children.texbudget(*(a.format(empty=empty) for a in args))


def measure(repeat: int, empty: Path) -> dict:
    """The fastest time of the baseline and of each command, and each command's ratio to
    the baseline, from ``repeat`` interleaved rounds."""
    times: dict[str, list[float]] = {"bare": [], **{name: [] for name, _ in COMMANDS}}
    for _ in range(repeat):
        times["bare"].append(children.checked(children.run_child([sys.executable, *BARE], cwd=empty), "bare interpreter")["seconds"])
        for name, args in COMMANDS:
            times[name].append(children.checked(children.run_child(_argv(args, empty), cwd=empty), name)["seconds"])
    bare = min(times["bare"])
    out: dict = {"bare_command": f"python -c \"import {BARE_IMPORTS}\"", "bare_s": bare, "commands": {}}
    for name, args in COMMANDS:
        best = min(times[name])
        shown = " ".join(("texbudget", *args)).replace("{empty}", "EMPTY")
        out["commands"][name] = {"argv": shown, "seconds": best, "ratio": best / bare}
    return out


def _importtime(argv: list[str], cwd: Path) -> dict[str, tuple[int, int, int, str | None]]:
    """module -> (self µs, cumulative µs, nesting depth, importer) from one ``-X importtime``
    run. A module's lines come after its own imports' (``importtime`` writes each when it is
    done), so the importer of a line at depth d is the next line at depth d - 1; at depth 0
    there is none: the command imported it while it ran (an import inside a function) or
    ``python -m`` did."""
    env = children.child_env()
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, cwd=cwd)
    out: dict[str, tuple[int, int, int, str | None]] = {}
    pending: list[tuple[str, int, int, int]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = line[len("import time:"):].split("|")
        depth = (len(name) - len(name.lstrip(" "))) // 2
        module = name.strip()
        while pending and pending[-1][1] == depth + 1:
            child, child_depth, child_self, child_cumulative = pending.pop()
            out[child] = (child_self, child_cumulative, child_depth, module)
        pending.append((module, depth, int(self_us), int(cumulative)))
    for module, depth, self_us, cumulative in pending:
        out[module] = (self_us, cumulative, depth, None)
    return out


def imports(runs: int, empty: Path) -> dict[str, list[dict]]:
    """Per command, every module it imports that the baseline does not, with the median
    self and cumulative microseconds over ``runs`` runs and its importer, biggest
    cumulative first."""
    bare = set(_importtime([sys.executable, *BARE], empty))
    out = {}
    for name, args in COMMANDS:
        samples = [_importtime(_argv(args, empty), empty) for _ in range(runs)]
        rows = []
        for m in (m for m in samples[0] if m not in bare):
            got = [s[m] for s in samples if m in s]
            rows.append({"module": m, "self_us": int(statistics.median(g[0] for g in got)),
                         "cumulative_us": int(statistics.median(g[1] for g in got)), "importer": got[0][3]})
        out[name] = sorted(rows, key=lambda r: -r["cumulative_us"])
    return out


def table(result: dict) -> str:
    lines = [f"baseline: {result['bare_command']}: {result['bare_s'] * 1000:.1f} ms"]
    for name, c in result["commands"].items():
        lines.append(f"  {c['argv']:<28} {c['seconds'] * 1000:7.1f} ms  {c['ratio']:5.2f}× the baseline  ({name})")
    return "\n".join(lines)


def imports_table(rows: list[dict], top: int = 40) -> str:
    """Markdown: the ``top`` modules by cumulative time, each with its importer."""
    lines = ["| module | imported by | self µs | cumulative µs |", "|---|---|---:|---:|"]
    for r in rows[:top]:
        importer = f"`{r['importer']}`" if r["importer"] else "top level (`-m`, or an import inside a function)"
        lines.append(f"| `{r['module']}` | {importer} | {r['self_us']:,} | {r['cumulative_us']:,} |")
    total = sum(r["self_us"] for r in rows)
    lines.append(f"| all {len(rows)} modules the baseline does not import | | {total:,} | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="interleaved rounds; the fastest counts (default 20)")
    parser.add_argument("--imports", action="store_true", help="also list what each command imports (python -X importtime)")
    parser.add_argument("--import-runs", type=int, default=5, help="importtime runs per command; the median counts (default 5)")
    parser.add_argument("--top", type=int, default=40, help="modules per command in the import table (default 40)")
    args = parser.parse_args(argv)
    children.PYCACHE = HERE / "out" / "pycache"
    with tempfile.TemporaryDirectory(prefix="texbudget-startup-") as scratch:
        empty = Path(scratch)
        children.run_child(_argv(COMMANDS[0][1], empty), cwd=empty)  # compiles the bytecode, untimed
        print(table(measure(args.repeat, empty)))
        if args.imports:
            for name, rows in imports(args.import_runs, empty).items():
                print(f"\n{name}:\n{imports_table(rows, args.top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
