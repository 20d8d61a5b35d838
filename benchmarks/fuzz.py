"""The long fuzz run, outside the suite: every reader, for a number of seconds or inputs each.

    python benchmarks/fuzz.py [--seconds 40] [--inputs N] [--targets png,dds,...]
                              [--engine auto|atheris|hypothesis] [--jobs 2] [--python PY]

Targets are the containers (png, jpeg, tga, bmp, tiff, webp, gif, psd, dds, ktx, ktx2, exr,
hdr, gltf, glb, obj, ply, stl, off, fbx, unity). Each runs in its own process, starting from the valid
seed files of ``tests/robustness/seeds.py`` (with their header-field tables), and judges every
input with ``tests/robustness/harness.judge``: no exception out of ``read_source``, no TB009
finding, a result with facts or a finding, peak traced memory under 16 MiB; an input taking
more than ``SLOW_SECONDS`` is recorded too (readers read headers: nothing should take that long).

Engines:

- **atheris** (coverage-guided libFuzzer; ``pip install atheris``), used when the Python running
  the children can import it. texbudget's readers, Pillow and trimesh's exchange modules are
  instrumented; a custom mutator mixes libFuzzer's byte mutations with the structured ones of
  the suite (set a real header field to 0, 1, 2^31−1, 2^32−1…, cut, splice, graft another file).
  It is not a texbudget dependency; install it into a throwaway venv that also sees the
  project's environment (run these with the project's python)::

      python -m venv /tmp/fuzz-venv && /tmp/fuzz-venv/bin/pip install atheris
      python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > "$(/tmp/fuzz-venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/env.pth"
      python benchmarks/fuzz.py --python /tmp/fuzz-venv/bin/python

- **hypothesis** otherwise: the suite's mutation strategies with a large example budget.

Prints one line per target (inputs tried, failures found) and a total, and writes
``benchmarks/out/fuzz.json``; each failing input (the first per distinct problem) is saved
under ``benchmarks/out/fuzz-failures/`` beside a ``.txt`` saying what went wrong. Exit code 1
when anything failed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
#: An input slower than this is recorded as a failure (a header read of a few KiB).
SLOW_SECONDS = 2.0
#: Longest input libFuzzer builds.
MAX_LEN = 16384

TARGETS = {
    "png": (".png",), "jpeg": (".jpg", ".jpeg"), "tga": (".tga",), "bmp": (".bmp",), "tiff": (".tif", ".tiff"),
    "webp": (".webp",), "gif": (".gif",), "psd": (".psd",), "dds": (".dds",), "ktx": (".ktx",), "ktx2": (".ktx2",),
    "exr": (".exr",), "hdr": (".hdr",), "gltf": (".gltf",), "glb": (".glb",), "obj": (".obj",), "ply": (".ply",),
    "stl": (".stl",), "off": (".off",), "fbx": (".fbx",),
    "unity": (".unity", ".prefab", ".mat"),
}


# --- the child: one target ----------------------------------------------------------------------


class _Recorder:
    """Counts inputs and keeps the first input of each distinct problem; writes its state to
    ``out`` now and then (libFuzzer ends the process without running Python's atexit)."""

    def __init__(self, target: str, engine: str, out: Path, failures_dir: Path) -> None:
        self.target, self.engine, self.out, self.failures_dir = target, engine, out, failures_dir
        self.inputs = 0
        self.failures = 0
        self.unique: dict[str, dict] = {}
        self.slowest = 0.0
        self.peak = 0
        self.start = time.monotonic()

    def record(self, seed_name: str, data: bytes, where: str, outcome) -> None:
        self.inputs += 1
        self.slowest = max(self.slowest, outcome.seconds)
        self.peak = max(self.peak, outcome.peak_bytes)
        problems = list(outcome.problems)
        if outcome.seconds > SLOW_SECONDS:
            problems.append(f"slow: {outcome.seconds:.2f} s for a {len(data)}-byte file")
        if problems:
            self.failures += 1
            key = _signature(problems[0])
            if key not in self.unique:
                digest = hashlib.sha1(data).hexdigest()[:12]
                path = self.failures_dir / f"{self.target}-{digest}{Path(seed_name).suffix}"
                self.failures_dir.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                path.with_suffix(path.suffix + ".txt").write_text(f"seed {seed_name}, read {where}\n\n" + "\n".join(problems) + "\n")
                self.unique[key] = {"problem": problems[0].splitlines()[0][:300], "input": str(path.relative_to(ROOT)), "seed": seed_name, "count": 0}
            self.unique[key]["count"] += 1
            self.save()
        elif self.inputs % 2000 == 0:
            self.save()

    def save(self) -> None:
        self.out.write_text(json.dumps({
            "target": self.target, "engine": self.engine, "inputs": self.inputs,
            "seconds": round(time.monotonic() - self.start, 1), "failures": self.failures,
            "unique_failures": list(self.unique.values()), "slowest_seconds": round(self.slowest, 4),
            "peak_traced_bytes": self.peak,
        }, indent=2))


def _signature(problem: str) -> str:
    """Problems that differ only in numbers are the same problem."""
    first = problem.splitlines()[0]
    lines = [ln.strip() for ln in problem.splitlines() if ln.strip().startswith("File ")]
    where = lines[-1] if lines else ""
    return "".join(c for c in first + where if not c.isdigit())[:300]


def _run_child(target: str, engine: str, seconds: float, inputs: int | None, out: Path, failures_dir: Path) -> None:
    sys.path.insert(0, str(ROOT))
    if engine == "atheris":
        _child_atheris(target, seconds, inputs, out, failures_dir)
    else:
        _child_hypothesis(target, seconds, inputs, out, failures_dir)


def _target_seeds(target: str):
    from tests.robustness.seeds import all_seeds

    return [s for s in all_seeds() if s.suffix in TARGETS[target]]


def _child_hypothesis(target: str, seconds: float, inputs: int | None, out: Path, failures_dir: Path) -> None:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.robustness import harness
    from tests.robustness.seeds import mutate
    from tests.robustness.strategies import mutations

    ws = harness.Workspace()
    harness.warm_up(ws)
    rec = _Recorder(target, "hypothesis", out, failures_dir)
    deadline = time.monotonic() + seconds
    limit = inputs if inputs is not None else 10**12
    seeds = _target_seeds(target)
    def runner(s):
        @settings(max_examples=500, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(ops=mutations(s, max_ops=6), on_disk=...)
        def run(ops: list[tuple], on_disk: bool) -> None:
            if time.monotonic() > deadline or rec.inputs >= limit:
                return
            data = mutate(s.data, s.fields, ops)
            where = "disk" if on_disk else "memory"
            rec.record(s.name, data, where, harness.judge(s, data, where, ws))

        return run

    runs = [runner(s) for s in seeds]
    while time.monotonic() < deadline and rec.inputs < limit:
        for run in runs:
            run()
    rec.save()
    harness.cleanup(ws)


def _child_atheris(target: str, seconds: float, inputs: int | None, out: Path, failures_dir: Path) -> None:
    import random

    import atheris

    # Imported here, inside the instrumentation, so their branches count as coverage.
    with atheris.instrument_imports(include=["texbudget", "PIL", "trimesh.exchange"]):
        import PIL.BmpImagePlugin
        import PIL.GifImagePlugin
        import PIL.Image
        import PIL.ImageFile
        import PIL.JpegImagePlugin
        import PIL.PngImagePlugin
        import PIL.TgaImagePlugin
        import PIL.TiffImagePlugin  # noqa: F401
        import trimesh.exchange.load  # noqa: F401

        import texbudget.readers  # noqa: F401
        from texbudget.readers import dds, exr, gltf, hdr, images, ktx, meshes  # noqa: F401
    from tests.robustness import harness
    from tests.robustness.seeds import all_seeds, mutate, special_values

    ws = harness.Workspace()
    harness.warm_up(ws)
    seeds = _target_seeds(target)
    others = [s.data for s in all_seeds()]
    rec = _Recorder(target, "atheris", out, failures_dir)
    deadline = time.monotonic() + seconds
    limit = inputs if inputs is not None else 10**12

    def one_input(data: bytes) -> None:
        if time.monotonic() > deadline or rec.inputs >= limit:
            rec.save()
            harness.cleanup(ws)
            os._exit(0)
        s = seeds[len(data) % len(seeds)] if len(seeds) > 1 else seeds[0]
        where = "memory" if rec.inputs % 4 == 3 else "disk"
        rec.record(s.name, data, where, harness.judge(s, data, where, ws))

    def mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.5:
            return atheris.Mutate(data, max_size)
        s = rng.choice(seeds)
        n = len(data)
        ops: list[tuple] = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(("set", "set", "set", "cut", "flip", "splice", "graft", "append"))
            if kind == "set" and s.fields:
                i = rng.randrange(len(s.fields))
                ops.append(("set", i, rng.choice(special_values(s.fields[i]))))
            elif kind == "cut":
                ops.append(("cut", rng.randint(0, n)))
            elif kind == "flip":
                ops.append(("flip", rng.randrange(max(1, min(n, 512))), rng.randrange(8)))
            elif kind == "splice":
                ops.append(("splice", rng.randint(0, n), rng.randint(0, n), rng.randint(0, n)))
            elif kind == "graft":
                other = rng.choice(others)
                start = rng.randrange(len(other))
                ops.append(("overwrite", rng.randint(0, n), other[start : start + rng.randint(1, 256)]))
            else:
                ops.append(("append", rng.choice(others)[: rng.randint(0, 256)]))
        return mutate(data, s.fields, ops)[:max_size]

    corpus = Path(tempfile.mkdtemp(prefix=f"fuzz-corpus-{target}-"))
    for s in seeds:
        (corpus / s.name).write_bytes(s.data)
    failures_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.argv[0], str(corpus), f"-max_len={MAX_LEN}", "-timeout=60", "-rss_limit_mb=4096",
            f"-artifact_prefix={failures_dir}/{target}-libfuzzer-", "-print_final_stats=0"]
    atheris.Setup(argv, one_input, custom_mutator=mutator)
    atheris.Fuzz()


# --- the parent ---------------------------------------------------------------------------------


def _has_atheris(python: str) -> bool:
    done = subprocess.run([python, "-c", "import atheris"], capture_output=True)
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="seconds per target (default 40)")
    parser.add_argument("--inputs", type=int, help="stop a target after this many inputs")
    parser.add_argument("--targets", help=f"comma-separated subset of {','.join(TARGETS)}")
    parser.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    parser.add_argument("--jobs", type=int, default=2, help="targets run at once (default 2)")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the children (one that has atheris)")
    parser.add_argument("--out", type=Path, default=OUT / "fuzz.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args, _rest = parser.parse_known_args(argv)
    failures_dir = OUT / "fuzz-failures"
    if args.child:
        _run_child(args.child, args.engine, args.seconds, args.inputs, args.child_out, failures_dir)
        return 0

    targets = args.targets.split(",") if args.targets else list(TARGETS)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {', '.join(TARGETS)}")
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if _has_atheris(args.python) else "hypothesis"
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="texbudget-fuzz-run-"))
    print(f"fuzzing {len(targets)} targets with {engine} ({args.python}), {args.seconds:g} s each, {args.jobs} at a time", flush=True)
    pending = list(targets)
    running: dict[str, tuple[subprocess.Popen, Path, float]] = {}
    results: dict[str, dict] = {}
    started = time.time()
    while pending or running:
        while pending and len(running) < args.jobs:
            target = pending.pop(0)
            out = work / f"{target}.json"
            cmd = [args.python, str(Path(__file__).resolve()), "--child", target, "--child-out", str(out),
                   "--engine", engine, "--seconds", str(args.seconds)]
            if args.inputs is not None:
                cmd += ["--inputs", str(args.inputs)]
            log = open(work / f"{target}.log", "wb")  # noqa: SIM115 (closed when the child ends)
            running[target] = (subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT), out, time.monotonic())
        time.sleep(0.5)
        for target, (proc, out, t0) in list(running.items()):
            if proc.poll() is None:
                if time.monotonic() - t0 > args.seconds + 600:  # a hang no timeout caught
                    proc.kill()
                continue
            del running[target]
            result = json.loads(out.read_text()) if out.exists() else {"target": target, "engine": engine, "inputs": 0, "failures": 0, "unique_failures": []}
            if proc.returncode != 0:  # libFuzzer stopped the child: a crash, timeout or memory blow-up
                tail = (work / f"{target}.log").read_text(errors="replace")[-3000:]
                result["failures"] += 1
                result["unique_failures"].append({"problem": f"the fuzzing process ended with code {proc.returncode}", "log_tail": tail, "count": 1})
            _recheck_slow(result)
            results[target] = result
            print(_line(result), flush=True)
    total_inputs = sum(r["inputs"] for r in results.values())
    total_failures = sum(r["failures"] for r in results.values())
    unique = sum(len(r["unique_failures"]) for r in results.values())
    report = {
        "engine": engine, "python": args.python, "seconds_per_target": args.seconds,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
        "wall_seconds": round(time.time() - started, 1), "total_inputs": total_inputs,
        "total_failures": total_failures, "unique_failures": unique,
        "targets": {t: results[t] for t in targets if t in results},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"total: {total_inputs} inputs, {total_failures} failures ({unique} distinct) in {report['wall_seconds']} s; wrote {args.out}")
    return 1 if total_failures else 0


def _recheck_slow(result: dict) -> None:
    """Time each "slow" input again here, without coverage instrumentation or tracemalloc (both
    slow Python down many times over in the children, Pillow's BMP palette loop about 200
    times). One that reads in under SLOW_SECONDS is an artifact of the measuring: it is moved
    to ``slow_not_reproduced``."""
    slow = [u for u in result["unique_failures"] if u["problem"].startswith("slow:") and u.get("input")]
    if not slow:
        return
    sys.path.insert(0, str(ROOT))
    from tests.robustness import harness
    from tests.robustness.seeds import seed

    ws = harness.Workspace()
    for u in slow:
        data = (ROOT / u["input"]).read_bytes()
        times = [harness.judge(seed(u["seed"]), data, "disk", ws, trace=False).seconds for _ in range(3)]
        u["recheck_seconds"] = round(max(times), 4)
        if max(times) < SLOW_SECONDS:
            result["unique_failures"].remove(u)
            result["failures"] -= u["count"]
            result.setdefault("slow_not_reproduced", []).append(u)
    harness.cleanup(ws)


def _line(r: dict) -> str:
    return (f"{r['target']:5} {r.get('engine', ''):10} {r['inputs']:8} inputs  {r['failures']:4} failures"
            f" ({len(r['unique_failures'])} distinct)  slowest {1000 * r.get('slowest_seconds', 0):7.1f} ms"
            f"  peak {r.get('peak_traced_bytes', 0) / 2**20:5.1f} MiB"
            + (f"  ({len(r['slow_not_reproduced'])} slow only under tracing/instrumentation)" if r.get("slow_not_reproduced") else ""))


if __name__ == "__main__":
    sys.exit(main())
