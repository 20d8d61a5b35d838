"""The cyclic garbage collector around texbudget's work: three blocks, one rule.

- ``one_shot``: a command that runs once (``cli.main``).
- ``paused``: a read or an evaluation, which builds tens of thousands of objects and no cycles.
- ``own_garbage``: a trimesh read, whose meshes hold cycles.

The rule: what was frozen before a block (the console script's start-up, or a caller's own)
stays frozen; unfreezing would release it too. Whether anything was is known without asking
the collector inside ``one_shot``, which froze everything alive as it began: ``gc.
get_freeze_count`` walks every frozen object, and after a scan of 10k files that was 5 ms a
call (``pipeline.evaluate``'s pause asks once; 25 ms in all on 100k files). Elsewhere (the
TUI, a library caller) the pauses leave nothing frozen, so the count walks a caller's own.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: ``one_shot`` blocks running (a count: a caller's ``main`` may run inside another's).
_one_shots = 0


def _frozen() -> bool:
    """Something is frozen that a block must leave frozen."""
    return _one_shots > 0 or gc.get_freeze_count() > 0


@contextlib.contextmanager
def one_shot(exiting: bool) -> Iterator[None]:
    """A command that runs once builds a few hundred thousand objects that live until it
    exits, and no cycles worth finding: the default thresholds would walk them again and again
    (10% of a warm ``check`` on 10k files). Collect rarely instead (mypy does the same); the
    TUI keeps the defaults, and so does a caller of ``main`` once it returns.

    At the end everything still alive is frozen first, so neither the collection that
    restoring the thresholds sets off nor the one at interpreter exit walks it (together 50
    to 80 ms after a scan of 10k files). ``exiting``: the process ends right after (the
    console script), so it stays frozen; otherwise it goes to the oldest generation, unless the
    caller had frozen objects of its own."""
    global _one_shots
    thresholds = gc.get_threshold()
    frozen = _frozen()
    gc.freeze()
    gc.set_threshold(200_000, 20, 20)
    _one_shots += 1
    try:
        yield
    finally:
        _one_shots -= 1
        gc.freeze()
        gc.set_threshold(*thresholds)
        if not exiting and not frozen:
            gc.unfreeze()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic garbage collection while facts or a report are built: they hold no cycles,
    and the collector's passes over tens of thousands of new objects cost about 20% of a warm
    read (10k files from the cache: 0.25 s -> 0.20 s) and of a recompute (109 -> 87 ms)."""
    was = gc.isenabled()
    gc.disable()
    frozen = _frozen()
    try:
        yield
    finally:
        # What the block built lives on (the scan, the report); the collection that the
        # allocation count now due would set off walks every object of it (0.4 s after a scan
        # of 100k files). Promote it all to the oldest generation instead, without walking
        # it: freeze and unfreeze move the lists whole (or, with something frozen before, it
        # stays frozen too).
        gc.freeze()
        if not frozen:
            gc.unfreeze()
        if was:
            gc.enable()


@contextlib.contextmanager
def own_garbage() -> Iterator[None]:
    """Free the reference cycles made in the block now, even with the collector paused, at
    the cost of the block's own objects only: everything older is set aside first (frozen),
    the youngest generation is collected, then the older objects come back (to the oldest
    generation; freezing and unfreezing move the lists whole, without walking them), or stay
    frozen with what was frozen before."""
    frozen = _frozen()
    gc.freeze()
    try:
        yield
    finally:
        gc.collect(0)
        if not frozen:
            gc.unfreeze()
