"""texbudget's process pool (``texbudget/scan/pool.py``) against the standard library's pools
doing the same job, on the benchmark trees (issue 22: a library where it does the job as well):

    python benchmarks/pool_libraries.py [--shapes mix,png,glb,ktx2] [--files 10000] [--rounds 8]
    python benchmarks/pool_libraries.py --robustness [--files 2500]

Each variant replaces ``_Job._pooled`` (the rest of the scan is the same code) in a fresh
``texbudget scan --no-cache --jobs 2`` process, text report:

- ``texbudget``: the pool as it is;
- ``executor``: ``concurrent.futures.ProcessPoolExecutor`` (fork context; spawn in a process
  with threads), ``jobs - 1`` workers; this process reads the scenes' chunks, then takes back
  from the end of the queue what no worker has started (``Future.cancel``), and decodes what
  the workers return (each chunk as the msgpack message the pool sends, ``reading._MESSAGES``:
  the library pickles those bytes for its own transport);
- ``executor-all``: the same with ``jobs`` workers, this process only decoding;
- ``mp-pool``: ``multiprocessing.Pool.imap_unordered`` (fork), ``jobs - 1`` workers, this
  process reading the scenes' chunks; ``mp-pool-all``: ``jobs`` workers.

Every round runs the floor (the raw read of ``run.py``), the scan of an empty folder and each
variant once, the variants in a rotating order; the fastest of all rounds counts. Reported per
variant: the wall time, the marginal cost per file against the raw read's (as ``run.py``'s
target), the CPU time of the scan and its workers less the empty folder's (user + system, the
least of all rounds: steadier than the wall time on a busy host), the least wall time that
CPU time allows on two idle cores (``_idle_estimate``: a busy host hides how well the work is
shared), and the peak RSS.

``--robustness`` runs, for each variant, a scan of a tree slowed to 50 ms a file with three
processes and: kills one worker with ``os._exit`` (is the output complete, or does the scan
hang?), sends Ctrl-C to the process group and SIGINT to the scan alone (exit code and time
to exit), and kills the scan (SIGKILL: are its workers still running 10 s later?).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import children  # noqa: E402  (this folder, not a package)
import make_tree  # noqa: E402
from run import raw_read, tree_path  # noqa: E402

VARIANTS = ("texbudget", "executor", "executor-all", "mp-pool", "mp-pool-all")
DEFAULT_TREES = Path(tempfile.gettempdir()) / "texbudget-bench-trees"


# --- the library pools (in the child) ----------------------------------------------------------

_TASK = None


def _init(task) -> None:
    global _TASK
    _TASK = task
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the main process ends the pool


def _read_numbered(k: int) -> bytes:
    from texbudget.scan.reading import _MESSAGES, _read_chunk

    t = _TASK
    read = _read_chunk(t.root, [(rel, rel in t.sidecar) for rel in t.chunks[k]], t.reader, t.for_cache)
    return _MESSAGES.dumps((k, *read))


def _library_pooled(job, rels, sidecar, arrived, paths=((), None), *, library: str, all_workers: bool) -> None:
    """``_Job._pooled`` with a library pool (the same chunks, task and decoding)."""
    import multiprocessing

    from texbudget import cache as cache_mod
    from texbudget import readers
    from texbudget.scan import job as job_mod
    from texbudget.scan import pool
    from texbudget.scan.reading import _MESSAGES, _read_one, is_scene

    default = job.reader is _read_one
    decoder = cache_mod.Decoder(*paths) if paths[1] is not None else cache_mod.Decoder(rels)
    keep = job.cache is not None
    if default:
        readers.preload({rel[rel.rfind("."):] for rel in rels})
    size = max(16, min(job_mod.POOL_CHUNK, len(rels) // (job.jobs * 8)), -(-len(rels) // pool.MAX_CHUNKS))
    chunks = [rels[i : i + size] for i in range(0, len(rels), size)]
    scenes = next((k for k, rel in enumerate(rels) if not is_scene(rel)), len(rels))
    split = 0 if all_workers else -(-scenes // size)
    task = pool.Task(root=job.root, chunks=chunks, sidecar=sidecar, reader=None if default else job.reader, for_cache=keep)
    done = [False] * len(chunks)

    def read_here(k: int) -> None:
        for rel in chunks[k]:
            value = job._read_here(rel, sidecar)
            decoder.share_sizes(value[0])
            arrived(rel, value, None, False)
        done[k] = True
        job.step(len(chunks[k]))

    def take(message: bytes) -> None:
        loaded = _MESSAGES.loads(message)
        number = loaded[0]
        job_mod.arrive_chunk(loaded, chunks[number], decoder, keep, arrived)
        done[number] = True
        job.step(len(chunks[number]))

    method = "fork" if threading.active_count() == 1 else "spawn"
    ctx = multiprocessing.get_context(method)
    workers = min(job.jobs, len(chunks)) - (0 if all_workers else 1)
    theirs = list(range(split, len(chunks)))
    if library == "executor":
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        executor = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(task,))
        try:
            futures = {}
            for k in theirs:
                try:
                    futures[k] = executor.submit(_read_numbered, k)
                except BrokenProcessPool:  # a worker has died already: the rest is read here
                    break
            pending = set(futures.values())

            def drain(block: bool) -> None:
                ready = wait(pending, return_when=FIRST_COMPLETED)[0] if block else [f for f in pending if f.done()]
                for future in ready:
                    pending.discard(future)
                    with contextlib.suppress(BrokenProcessPool):  # a worker died: read here at the end
                        take(future.result())

            for k in range(split):
                read_here(k)
                drain(False)
            for k in reversed(futures):  # take back what no worker has started
                if not futures[k].cancel():
                    break
                pending.discard(futures[k])
                read_here(k)
                drain(False)
            while pending:
                drain(True)
        except BaseException:
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        executor.shutdown(wait=True)
    else:
        with ctx.Pool(workers, initializer=_init, initargs=(task,)) as mp_pool:
            results = mp_pool.imap_unordered(_read_numbered, theirs)
            for k in range(split):
                read_here(k)
            for message in results:
                take(message)
    for k in range(len(chunks)):
        if not done[k]:
            read_here(k)


#: The library variants: (library, every worker a process of its own, this one only decoding).
LIBRARIES = {"executor": ("executor", False), "executor-all": ("executor", True),
             "mp-pool": ("mp", False), "mp-pool-all": ("mp", True)}


#: This process's CPU time in ``_Job._pooled`` (the part the workers share).
_POOLED_CPU = [0.0]


def _install(variant: str, slow: bool) -> None:
    from texbudget.scan import job, reading

    pooled = job._Job._pooled
    if variant in LIBRARIES:
        library, everyone = LIBRARIES[variant]
        pooled = functools.partial(_library_pooled, library=library, all_workers=everyone)

    def timed(self, rels, sidecar, arrived, paths=((), None)) -> None:
        started = time.process_time()
        try:
            pooled(self, rels, sidecar, arrived, paths)
        finally:
            _POOLED_CPU[0] += time.process_time() - started

    job._Job._pooled = timed
    if slow:  # the robustness runs: a pool however small the tree, small chunks, slow reads
        job.POOL_MIN_FILES, job.POOL_CHUNK = 1, 8
        real, main, die = reading._read_file, os.getpid(), bool(os.environ.get("POOL_DIE"))
        pause = float(os.environ.get("POOL_SLEEP", 0.002 if die else 0.05))

        def slowly(root, rel, sidecar):
            if die and os.getpid() != main:  # a worker that dies when asked
                os._exit(3)
            time.sleep(pause)
            return real(root, rel, sidecar)

        reading._read_file = job._read_file = slowly


def _cpu_line() -> None:
    """The CPU time of this process and of its workers (waited for), on stderr's last line."""
    import resource

    own, workers = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(f"\ncpu {own.ru_utime + own.ru_stime:.4f} {_POOLED_CPU[0]:.4f} {workers.ru_utime + workers.ru_stime:.4f}", file=sys.stderr)


# --- the runs ----------------------------------------------------------------------------------


def _argv(variant: str, tree: Path, slow: bool = False, jobs: int | None = None) -> list[str]:
    extra = ["--jobs", str(jobs)] if jobs else []
    return [sys.executable, str(Path(__file__)), "--child", variant, *(["--slow"] if slow else []), "--", "scan", "--no-cache", *extra, str(tree)]


def _run(argv: list[str]) -> dict:
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=children.child_env(), cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        err.seek(0)
        result = {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "rss_bytes": usage.ru_maxrss * 1024,
                  "code": os.waitstatus_to_exitcode(status), "stderr": err.read().decode(errors="replace")[-2000:]}
    if result["code"] not in (0, 1):
        raise SystemExit(f"pool_libraries: {' '.join(argv)} failed ({result['code']}):\n{result['stderr']}")
    result["own_cpu"], result["pooled_cpu"], result["workers_cpu"] = (float(x) for x in result["stderr"].rpartition("cpu ")[2].split())
    return result


def _idle_estimate(run: dict, workers: int) -> float:
    """The least wall time the run's CPU time allows on two idle cores (this host is seldom
    idle): what this process does outside the pooled read is serial; in it, no process ends
    before its own CPU time, the workers share theirs evenly at best, and two cores give at
    most two seconds of CPU a second."""
    here, theirs = run["pooled_cpu"], run["workers_cpu"]
    return run["own_cpu"] - here + max(here, theirs / workers, (here + theirs) / 2)


def compare(shapes: list[str], files: int, rounds: int, trees: Path, variants: list[str]) -> None:
    with tempfile.TemporaryDirectory() as empty:
        for shape in shapes:
            tree = tree_path(trees, shape, files)
            make_tree.make_tree(tree, files, shape=shape)
            raw_read(tree)  # into the page cache
            for variant in ("texbudget", *variants):  # untimed: the bytecode is compiled once
                _run(_argv(variant, tree, jobs=2))
            runs: dict[str, list[dict]] = {v: [] for v in ("raw", "empty", *variants)}
            for r in range(rounds):
                runs["raw"].append({"seconds": raw_read(tree)[1]})
                runs["empty"].append(_run(_argv("texbudget", Path(empty), jobs=2)))
                for variant in variants[r % len(variants):] + variants[: r % len(variants)]:
                    runs[variant].append(_run(_argv(variant, tree, jobs=2)))
            raw = min(x["seconds"] for x in runs["raw"])
            empty_s = min(x["seconds"] for x in runs["empty"])
            empty_cpu = min(x["cpu"] for x in runs["empty"])
            print(f"{shape} {files:,} files: raw read {raw:.3f} s, empty folder {empty_s:.3f} s ({empty_cpu:.3f} s CPU)")
            base = None
            for variant in variants:
                wall = min(x["seconds"] for x in runs[variant])
                cpu = min(x["cpu"] for x in runs[variant]) - empty_cpu
                idle = min(_idle_estimate(x, 2 if variant.endswith("-all") else 1) for x in runs[variant])
                base = base or (wall, cpu, idle)
                rss = max(x["rss_bytes"] for x in runs[variant]) / 2**20
                print(f"  {variant:13} {wall:6.3f} s  x{(wall - empty_s) / raw:5.2f} raw/file  ({wall / base[0]:.2f})"
                      f"  CPU {cpu:6.3f} s ({cpu / base[1]:.2f})  idle-estimate {idle:6.3f} s ({idle / base[2]:.2f})"
                      f"  {rss:4.0f} MiB", flush=True)


def _descendants_running(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
                alive.append(pid)
        except OSError:
            pass
    return alive


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
        except OSError:
            pass
    return found


def robustness(tree: Path, variants: list[str]) -> None:
    for variant in variants:
        env = dict(children.child_env(), POOL_DIE="1")
        started = time.perf_counter()
        try:
            done = subprocess.run(_argv(variant, tree, slow=True, jobs=3), env=env, capture_output=True, timeout=60, cwd=tempfile.gettempdir())
            dead = f"exit {done.returncode} in {time.perf_counter() - started:.1f} s, {len(done.stdout):,} bytes of report"
        except subprocess.TimeoutExpired:
            dead = "no end after 60 s (killed)"
        print(f"{variant}: a worker dies: {dead}", flush=True)
        for how in ("ctrl-c", "sigint", "sigkill"):
            scan = subprocess.Popen(_argv(variant, tree, slow=True, jobs=3), env=children.child_env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True, cwd=tempfile.gettempdir())
            deadline = time.monotonic() + 60
            while len(workers := _children_of(scan.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.3)
            sent = time.monotonic()
            if how == "ctrl-c":
                os.killpg(scan.pid, signal.SIGINT)
            else:
                os.kill(scan.pid, signal.SIGINT if how == "sigint" else signal.SIGKILL)
            try:
                code = scan.wait(timeout=30)
            except subprocess.TimeoutExpired:
                scan.kill()
                code = scan.wait()
            took = time.monotonic() - sent
            time.sleep(10 if how == "sigkill" else 1)
            left = _descendants_running(workers)
            print(f"  {how}: exit {code} after {took:.2f} s; workers still running: {len(left)} of {len(workers)}", flush=True)
            for pid in left:
                os.kill(pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # a scan with one variant: ``--child VARIANT [--slow] -- ARGS``
        _install(argv[1], "--slow" in argv[: argv.index("--")])
        atexit.register(_cpu_line)
        from texbudget.cli import run

        sys.argv = ["texbudget", *argv[argv.index("--") + 1 :]]
        run()  # as the console script: exits
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="mix,png,glb,ktx2")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES)
    parser.add_argument("--robustness", action="store_true", help="the failure cases instead of the timing")
    args = parser.parse_args(argv)
    children.PYCACHE = HERE / "out" / "pycache"
    variants = args.variants.split(",")
    if args.robustness:
        tree = tree_path(args.trees, "mix", args.files)
        make_tree.make_tree(tree, args.files)
        robustness(tree, variants)
    else:
        compare(args.shapes.split(","), args.files, args.rounds, args.trees, variants)
    return 0


if __name__ == "__main__":
    sys.exit(main())
