"""The worker processes that read cache misses beside this one (``job._Job._pooled`` drives
them).

The files to read are cut into numbered chunks, and each chunk's number is a ticket: two
bytes in a pipe, all written before any worker starts. Every process, this one included,
takes its next ticket with one two-byte ``os.read`` (atomic on a pipe, so no lock) and reads
that chunk. There are two ticket pipes: the scenes' chunks, which this process reads first
(a glTF's meshes and scene graph cost the most to send), and the rest, which the workers read
first; a process whose pipe is empty takes from the other, so no core waits while another has
work. A worker sends each chunk back through its own result pipe as one message (its length
in 8 bytes, then ``reading._MESSAGES``: one msgpack message holding each file's value in the
cache's stored form, as the blob the cache stores when it is written, as records otherwise),
and this process takes the messages in between its own chunks. Workers are forked,
inheriting the imports and the task; in a process with other threads (the TUI), where a fork
could copy a lock another thread holds, multiprocessing spawns them and hands them the same
pipes. A worker's unexpected exception (a texbudget bug) is its
last message, raised here as ``WorkerFailed``; a worker that dies (a signal, the out-of-memory
killer) loses only the chunks it took, which this process reads at the end; a refused pipe or
fork means fewer workers; an interrupt or an exception here terminates the workers and waits
for each; and when this process is killed, each worker ends at its next message, which has no
reader. Why not ``concurrent.futures`` or ``multiprocessing.Pool``: docs/decisions.md ("The
process pool").
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from texbudget.scan.reading import _MESSAGES, Reader, _read_chunk

#: Most chunks of one pooled read (bigger chunks past that): each ticket pipe is written in
#: one write, which a pipe of a single page (4 KiB) always takes.
MAX_CHUNKS = 1024

#: A result pipe's buffer where the system allows it (Linux: up to ``pipe-max-size``, 1 MiB
#: by default): a worker sends on while this process reads a long chunk of its own (the
#: scenes), instead of waiting on a full 64 KiB pipe.
PIPE_BYTES = 1 << 20


class Task(msgspec.Struct, frozen=True):
    """What the workers read: the files of each chunk, those with an engine sidecar, the
    reader (None: texbudget's own) and whether each result's blob is kept for the cache
    (stored as is) and its glTF dependencies looked for."""

    root: Path
    chunks: list[list[str]]
    sidecar: set[str]
    reader: Reader | None
    for_cache: bool


class WorkerFailed(Exception):
    """A worker's unexpected exception; the message is its traceback, which names the file."""


@contextlib.contextmanager
def start(task: Task, split: int, workers: int) -> Iterator[Workers]:
    """Up to ``workers`` processes reading ``task``'s chunks beside this one, whose own are
    the chunks numbered before ``split``; none but this one where the system is not POSIX or
    refuses the ticket pipes."""
    pool = Workers(len(task.chunks), split)
    forking = threading.active_count() == 1 and hasattr(os, "fork")
    try:
        for _ in range(workers if pool.tickets and os.name == "posix" else 0):
            if not pool.add(task, forking):
                break
        yield pool
    finally:
        pool.close()


class Workers:
    """One pooled read's workers (``start`` makes them): the chunk this process reads next,
    the messages the workers send, and each worker (``processes``: its ``exitcode`` once it
    has ended, negative for the signal that ended it)."""

    def __init__(self, total: int, split: int) -> None:
        total = min(total, MAX_CHUNKS)  # the rest are read at the end
        self.tickets: tuple[int, int] | None = None  # the read ends: (own, theirs)
        self.here = iter(range(total))  # the tickets when no pipe was to be had
        with contextlib.suppress(OSError):
            own = _ticket_pipe(range(min(split, total)))
            try:
                self.tickets = (own, _ticket_pipe(range(min(split, total), total)))
            except OSError:
                os.close(own)
        self.processes: list[Any] = []  # _Forked, or multiprocessing's Process when spawned
        self.pipes: dict[int, Any] = {}  # the result pipe of each worker still sending

    def next_chunk(self) -> int | None:
        """This process's next chunk (its own tickets first); None when none is left."""
        return next(self.here, None) if self.tickets is None else _first(*self.tickets)

    def received(self, wait: bool = False) -> Iterator[bytes]:
        """The workers' messages: those already sent, or with ``wait`` all until each worker
        has ended."""
        while self.pipes:
            poller = select.poll()
            for fd in self.pipes:
                poller.register(fd, select.POLLIN)
            ready = poller.poll(None if wait else 0)
            if not ready:
                return
            for fd, _ in ready:
                message = _receive(fd)
                if message is not None:
                    yield message
                else:  # the worker has ended
                    os.close(fd)
                    del self.pipes[fd]

    def add(self, task: Task, forking: bool) -> bool:
        """One more worker; False when the system refuses a pipe or a process."""
        assert self.tickets is not None
        try:
            read, write = os.pipe()
        except OSError:  # no file descriptor to spare
            return False
        try:
            _widen(write)
            process = self._fork(task, read, write) if forking else _spawn(task, self.tickets, write)
        except OSError:  # no process to spare (a limit, memory)
            os.close(read)
            return False
        finally:
            os.close(write)
        self.processes.append(process)
        self.pipes[read] = process
        return True

    def _fork(self, task: Task, read: int, write: int) -> _Forked:
        assert self.tickets is not None
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                for fd in (read, *self.pipes):  # the results have one reader, this process
                    os.close(fd)
                code = _work(task, *self.tickets, write)
            finally:
                os._exit(code)
        return _Forked(pid)

    def close(self) -> None:
        """Wait for every worker, terminating them first when some still send (this process
        stopped early: an interrupt, an exception)."""
        for process in self.processes if self.pipes else ():
            if process.exitcode is None:
                process.terminate()
        for process in self.processes:
            process.join()
        for fd in (*self.pipes, *(self.tickets or ())):
            os.close(fd)
        self.pipes.clear()
        self.tickets = None


class _Forked:
    """A forked worker, with what ``Workers`` uses of multiprocessing's Process."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.exitcode: int | None = None

    def terminate(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)

    def join(self) -> None:
        if self.exitcode is None:  # waited for once (a pid waited for may be reused)
            self.exitcode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def _spawn(task: Task, tickets: tuple[int, int], write: int) -> Any:
    """A worker spawned by multiprocessing (a fresh interpreter); the pipes go to it as
    Connections of copies of the descriptors, closed here once it has them."""
    import multiprocessing
    from multiprocessing.connection import Connection

    ends = [Connection(os.dup(fd)) for fd in (*tickets, write)]
    try:
        process = multiprocessing.get_context("spawn").Process(target=_spawned, args=(task, *ends), daemon=True)
        process.start()
    finally:
        for end in ends:
            end.close()
    return process


def _spawned(task: Task, own: Any, theirs: Any, results: Any) -> None:
    """A spawned worker's start."""
    if code := _work(task, own.fileno(), theirs.fileno(), results.fileno()):
        raise SystemExit(code)


def _work(task: Task, own: int, theirs: int, results: int) -> int:
    """A worker: take tickets (the workers' first) and send each chunk back as it is read;
    an unexpected exception goes as the last message, its traceback. The exit code."""
    try:
        while (k := _first(theirs, own)) is not None:
            read = _read_chunk(task.root, [(rel, rel in task.sidecar) for rel in task.chunks[k]], task.reader, task.for_cache)
            _send(results, _MESSAGES.dumps((k, *read)))
    except (BrokenPipeError, KeyboardInterrupt):  # no one reads the results, or Ctrl-C
        return 0
    except Exception:  # a bug: raised in the main process (WorkerFailed)
        import traceback

        # (a string no msgpack form holds, a lone surrogate, leaves the chunk to be read again
        # in the main process, as when a worker dies)
        with contextlib.suppress(OSError, UnicodeEncodeError):
            _send(results, _MESSAGES.dumps(traceback.format_exc()))
        return 1
    return 0


# --- the pipes ---------------------------------------------------------------------------------


def _ticket_pipe(numbers: range) -> int:
    """A pipe holding ``numbers``, two bytes each; its read end (the write end is closed)."""
    read, write = os.pipe()
    try:
        os.set_blocking(write, False)
        with contextlib.suppress(BlockingIOError):
            os.write(write, b"".join(k.to_bytes(2, "little") for k in numbers))
    finally:
        os.close(write)
    return read


def _first(first: int, then: int) -> int | None:
    """The next ticket of pipe ``first``, or of ``then`` once ``first`` is empty."""
    for fd in (first, then):
        ticket = os.read(fd, 2)  # two bytes of a pipe holding an even number: atomic
        if len(ticket) == 2:
            return int.from_bytes(ticket, "little")
    return None


def _send(fd: int, data: bytes) -> None:
    """One message: its length in 8 bytes, then itself."""
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int) -> bytes | None:
    """The next message, None when the pipe has ended (also mid-message: the worker died)."""
    head = _exactly(fd, 8)
    return None if head is None else _exactly(fd, int.from_bytes(head, "little"))


def _exactly(fd: int, n: int) -> bytes | None:
    parts = []
    while n:
        part = os.read(fd, min(n, 1 << 20))
        if not part:
            return None
        parts.append(part)
        n -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _widen(fd: int) -> None:
    with contextlib.suppress(OSError, AttributeError, ImportError):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
