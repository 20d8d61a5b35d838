"""One fuzz input, read through the registry and judged: the harness the suite's fuzz tests and
``benchmarks/fuzz.py`` share.

``problems(seed, data, where)`` writes ``data`` under the seed's name (on disk, beside the
seed's companion files, or as an in-memory Source) and reads it with
``texbudget.readers.read_source`` while tracemalloc watches. It returns what went wrong, as
plain sentences (empty when the read behaved):

- an exception escaped ``read_source`` (it must never raise);
- a TB009 finding (an exception a reader let escape: a reader bug);
- the result holds neither facts nor a finding (a file silently lost);
- the read's peak of traced memory passed ``MEMORY_LIMIT`` (memory followed a claimed size).
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

from tests.robustness.seeds import Seed, all_seeds
from texbudget.model import ReadResult
from texbudget.readers import Source, read_source

#: Peak traced memory one read may take. The seeds are a few KiB and their mutations claim up
#: to 2^64 bytes; a reader that allocates from a claim goes far past this.
MEMORY_LIMIT = 16 * 1024 * 1024


@dataclass
class Outcome:
    result: ReadResult | None
    problems: list[str]
    peak_bytes: int
    seconds: float


@dataclass
class Workspace:
    """A folder holding one sub-folder per seed (with its companions), where inputs are written."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="texbudget-fuzz-")))
    _ready: set[str] = field(default_factory=set)

    def path_for(self, seed: Seed) -> tuple[Path, str]:
        folder = self.root / seed.name.replace(".", "_")
        if seed.name not in self._ready:
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in seed.companions:
                (folder / name).write_bytes(data)
            self._ready.add(seed.name)
        return folder, seed.name


_WARM = False


def warm_up(workspace: Workspace) -> None:
    """Read every seed once, untraced: imports (Pillow plugins, trimesh) and lazily built
    tables are not the read's memory."""
    global _WARM
    if _WARM:
        return
    for s in all_seeds():
        judge(s, s.data, "memory", workspace, trace=False)
        judge(s, s.data, "disk", workspace, trace=False)
    _WARM = True


def judge(seed: Seed, data: bytes, where: str, workspace: Workspace, *, trace: bool = True) -> Outcome:
    """Read ``data`` as ``seed.name`` (``where`` is "disk" or "memory") and judge the read."""
    if where == "disk":
        folder, name = workspace.path_for(seed)
        (folder / name).write_bytes(data)
        src = Source(rel=name, root=folder)
    else:
        src = Source(rel=seed.name, data=data, suffix_hint=seed.suffix)
    problems: list[str] = []
    result: ReadResult | None = None
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        result = read_source(src)
    except BaseException as exc:  # the property under test: nothing escapes
        if isinstance(exc, KeyboardInterrupt):
            raise
        problems.append(f"exception escaped read_source: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    seconds = time.perf_counter() - start
    peak = 0
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if result is not None:
        internal = [f for f in result.findings if f.code == "TB009"]
        if internal:
            problems.append(f"TB009 (a reader bug): {internal[0].message}")
        if not (result.textures or result.meshes or result.scenes or result.findings):
            problems.append("the result holds no facts and no finding: the file was silently lost")
    if peak > MEMORY_LIMIT:
        problems.append(f"peak traced memory {peak} bytes > {MEMORY_LIMIT} for a {len(data)}-byte file")
    return Outcome(result, problems, peak, seconds)


def cleanup(workspace: Workspace) -> None:
    for folder, _dirs, files in os.walk(workspace.root, topdown=False):
        for name in files:
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
