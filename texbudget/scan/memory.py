"""Freed memory given back to the system during a big scan (glibc's ``mallopt``).

Python keeps its small objects (records, strings, small tuples) in arenas of its own; blocks of
more than 512 bytes (the lists, tuples and dict tables of a scan's 100k files) come from the C
library's ``malloc``. glibc serves a block of 128 KiB or more from a mapping of its own, returned
to the system when the block is freed, but it raises that threshold to the size of the largest
such block freed so far (up to 32 MiB): after the first big table of a scan is freed, the next
ones come from the heap, and when they are freed in turn their pages stay resident, holes that
the small objects never fill. On the 100k-file ``glb`` benchmark tree those holes were 5-9 MiB
of the scan's and of the warm check's peak resident memory (``benchmarks/README.md``, "Third round: the
lead's merges, glibc's heap and the JSON pieces"). Fixing the threshold at glibc's default keeps every big
block its own mapping. Nothing is done on other C libraries and systems.
"""

from __future__ import annotations

import os

#: ``M_MMAP_THRESHOLD`` of glibc's ``<malloc.h>``.
M_MMAP_THRESHOLD = -3

#: glibc's default threshold (``DEFAULT_MMAP_THRESHOLD_MIN``), kept instead of raised.
MMAP_THRESHOLD = 128 * 1024


def keep_big_blocks_mapped() -> bool:
    """Fix glibc's mapping threshold for the rest of the process (and of the workers it forks);
    True when it was set. Called once a scan is known to be big: ``ctypes`` costs 2 ms to
    import, which a small scan's start-up does not pay."""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):  # not a system that names its C library this way
        return False
    if not libc or not libc.startswith("glibc"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
