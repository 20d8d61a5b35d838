"""Reading a scene (the I/O stage of DESIGN.md §1): discover, read each file with its
engine sidecar, and gather everything into one immutable ``Scan``.

``scan.scene.read_scene`` is the only function here the rest of texbudget calls; the TUI keeps
the ``Scan`` it returns and re-runs ``pipeline.evaluate`` on it for every settings switch.

Import the module you need; this package imports none of them (docs/decisions.md, "Modules
along their seams"):

- ``scan.scene``: ``read_scene``, ``Scan``, ``follows_gltf``;
- ``scan.job``: ``CacheStats`` and one scan's reading (cache lookups and stores, the serial
  or pooled reads of misses, ``POOL_MIN_FILES``);
- ``scan.reading``: one file's read (``_Prefetched``, ``PREFETCH_BYTES``), ``is_scene``,
  ``has_dependencies``;
- ``scan.sidecars``: where the engine sidecars are (``SIDECARS``, one listing per folder);
- ``scan.pool``: the worker processes.

How a file is read, cheaply:

- One ``os.stat`` per file gives the size (readers never stat again) and the cache signature.
- One ``read`` serves every header look of the readers: a file of at most ``PREFETCH_BYTES``
  is read whole and served from memory (``_Prefetched``), a larger one only its first
  ``PREFETCH_HEAD_BYTES`` (headers, a GLB's JSON), so most files are opened once. Reading
  64 KiB of a large file costs three times as much as 16 KiB (measured: 13 µs against 5 µs on
  the benchmark tree's DDS, KTX2 and GLB files).
- Engine sidecars (``.import`` / ``.meta``) are found from one listing per folder, so a
  texture without one costs no extra ``stat``.
- With a ``cache`` (``texbudget.cache.Cache``), files whose signature is unchanged are not
  read at all; the rest are read and stored. After a whole-tree scan, entries of files that
  are gone are pruned.
- Files are read grouped by type (``_by_type``): one reader after another keeps its code and
  data hot, a fifth faster than the walk's mixed order.
- Cache misses are read in a process pool when there are at least ``POOL_MIN_FILES`` of them
  and ``jobs`` > 1; below that a pool's start-up costs more than it saves (measured on a
  2-core machine, see ``benchmarks/README.md``). The main process reads too; workers are
  forked (spawned by multiprocessing in a process with threads, the TUI) and send each chunk
  back as one msgpack message holding each file's value as the cache stores it (its blob,
  which the cache stores as is when it is on).
- A glTF's image URIs that name files discovery listed are not walked again
  (``readers.KNOWN_FILES``).
"""
