"""The process pool that reads cache misses (``job._Job._pooled`` drives it): the chunk
tickets every process takes from (``_Tickets``; ``_Counter`` when spawned), the result pipes
(``_PipeSender`` / ``_PipeReceiver``), the forked and spawned starts and the worker's loop.
Measured and explained in benchmarks/README.md ("Process pool threshold").
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from texbudget.scan.reading import _MESSAGES, Reader, _read_chunk

#: Most chunks of one pooled read (bigger chunks past that): ``_Tickets`` writes every chunk
#: number into a pipe up front, in one write that a pipe of a single page always takes.
MAX_CHUNKS = 1024

#: What a pool start gives ``_pooled``: the next chunk's number (None when none is left), the
#: workers' channels (``recv_bytes``, ``poll``, ``fileno``), and ``stop(finished)``, which
#: ends the workers (killing them unless ``finished``) and waits for them.
_Pool = tuple[Callable[[], int | None], list[Any], Callable[[bool], None]]


class _Tickets:
    """The chunk numbers, each taken by one process, from two queues: chunks before ``split``
    are this process's own (the scenes: a glTF's meshes and scene graph cost the most to
    send from a worker and to load here, so they are best read here), the rest the
    workers'. Each process takes from its own queue first and from the other once its own is
    empty, so neither waits while the other has work.

    A queue is a pipe holding its numbers, two bytes each, written at once before the
    workers are forked. A read of two bytes from a pipe holding an even number of them is
    atomic, so no lock is needed, and a worker that dies loses only the numbers it took
    (their chunks are read at the end). Numbers that did not fit in a pipe (never, below
    ``MAX_CHUNKS``) are left to that end too."""

    def __init__(self, total: int, split: int = 0) -> None:
        total = min(total, MAX_CHUNKS)
        split = min(split, total)
        self.own = self._queue(range(0, split))
        self.theirs = self._queue(range(split, total))

    @staticmethod
    def _queue(numbers: range) -> int:
        read, write = os.pipe()
        try:
            os.set_blocking(write, False)
            with contextlib.suppress(BlockingIOError):
                os.write(write, b"".join(k.to_bytes(2, "little") for k in numbers))
        finally:
            os.close(write)
        return read

    def __call__(self) -> int | None:
        """The next chunk for this process."""
        return self._first(self.own, self.theirs)

    def worker(self) -> int | None:
        """The next chunk for a worker."""
        return self._first(self.theirs, self.own)

    def close(self) -> None:
        os.close(self.own)
        os.close(self.theirs)

    @classmethod
    def _first(cls, queue: int, other: int) -> int | None:
        k = cls._take(queue)
        return k if k is not None else cls._take(other)

    @staticmethod
    def _take(queue: int) -> int | None:
        ticket = os.read(queue, 2)
        return int.from_bytes(ticket, "little") if len(ticket) == 2 else None


class _PipeSender:
    """A worker's end of its result pipe: each message is its length (8 bytes) and itself."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send_bytes(self, data: bytes) -> None:
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(self.fd, view):]

    def close(self) -> None:
        os.close(self.fd)


class _PipeReceiver:
    """This process's end of a forked worker's result pipe (``_PipeSender`` writes it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def poll(self) -> bool:
        return bool(_wait([self], timeout=0))

    def recv_bytes(self) -> bytes:
        return self._exactly(int.from_bytes(self._exactly(8), "little"))

    def _exactly(self, n: int) -> bytes:
        parts, left = [], n
        while left:
            part = os.read(self.fd, min(left, 1 << 20))
            if not part:
                raise EOFError("the worker ended")
            parts.append(part)
            left -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        os.close(self.fd)


def _wait(receivers: list[Any], timeout: float | None = None) -> list[Any]:
    """The receivers with a message or an end to take (``timeout`` None: wait for one)."""
    if not hasattr(select, "poll"):  # Windows (spawned workers only): multiprocessing's own wait
        from multiprocessing.connection import wait

        return list(wait(receivers, timeout))
    poller = select.poll()
    by_fd = {}
    for r in receivers:
        by_fd[r.fileno()] = r
        poller.register(r.fileno(), select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(None if timeout is None else timeout * 1000)]


#: A result pipe's buffer where the system allows it (Linux: up to ``pipe-max-size``, 1 MiB
#: by default): a worker sends on while this process reads a long chunk of its own (the
#: scenes), instead of waiting on a full 64 KiB pipe.
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    with contextlib.suppress(OSError, AttributeError, ImportError):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


@contextlib.contextmanager
def _forked(task: tuple, total: int, workers: int, split: int = 0) -> Iterator[_Pool]:
    """Workers made with ``os.fork``: they inherit the imports and the task, take chunk
    numbers from ``_Tickets`` and send through plain pipes (no multiprocessing import, a
    tenth of the start-up). When the system refuses a fork, the workers already made (or
    this process alone) read everything."""
    tickets = _Tickets(total, split)
    pids: list[int] = []

    def stop(finished: bool) -> None:
        while pids:  # each worker is waited for once (a pid waited for may be reused)
            pid = pids.pop()
            if not finished:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    receivers: list[_PipeReceiver] = []
    try:
        for _ in range(workers):
            try:
                read, write = os.pipe()
            except OSError:  # no file descriptor to spare: fewer workers, or none
                break
            _widen(write)
            try:
                pid = os.fork()
            except OSError:  # no process to spare (a limit, memory): fewer workers, or none
                os.close(read)
                os.close(write)
                break
            if pid == 0:  # the worker: never returns into the caller's code
                code = 1
                try:
                    os.close(read)
                    _pool_worker(task, tickets.worker, _PipeSender(write))
                    code = 0
                finally:
                    os._exit(code)
            os.close(write)
            pids.append(pid)
            receivers.append(_PipeReceiver(read))
        yield tickets, list(receivers), stop  # (``_pooled`` removes each as it ends)
    finally:
        stop(False)
        for receive in receivers:
            receive.close()
        tickets.close()


@contextlib.contextmanager
def _spawned(task: tuple, total: int, workers: int, split: int = 0) -> Iterator[_Pool]:
    """Workers started by multiprocessing's spawn (fresh interpreters), for a process with
    threads, where a fork could copy a lock another thread holds."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    counter = _Counter(ctx.Value("q", 0), total)
    procs: list[tuple[Any, Any]] = []

    def stop(finished: bool) -> None:
        for worker, _ in procs:
            if worker.is_alive() and not finished:
                worker.terminate()
            worker.join()

    try:
        for _ in range(workers):
            try:
                receive, send = ctx.Pipe(duplex=False)
            except OSError:  # no file descriptor to spare: fewer workers, or none
                break
            worker = ctx.Process(target=_pool_worker, args=(task, counter, send), daemon=True)
            try:
                worker.start()
            except OSError:  # no process to spare: fewer workers, or none
                receive.close()
                send.close()
                break
            send.close()
            procs.append((worker, receive))
        yield counter, [receive for _, receive in procs], stop
    finally:
        stop(False)
        for _, receive in procs:
            receive.close()


class _Counter:
    """The chunk numbers from a shared integer under its lock (a spawned worker gets it
    pickled; ``_Tickets``' pipe is not passed to a fresh interpreter)."""

    def __init__(self, value: Any, total: int) -> None:
        self.value, self.total = value, total

    def __call__(self) -> int | None:
        with self.value.get_lock():
            k = self.value.value
            if k >= self.total:
                return None
            self.value.value = k + 1
            return k


def _pool_worker(task: tuple[Path, list[list[str]], set[str], Reader | None, bool], next_chunk: Callable[[], int | None], send: Any) -> None:
    """A pool worker: take chunks until none is left, send each back as it is read."""
    root, chunks, sidecar, reader, for_cache = task
    try:
        while (k := next_chunk()) is not None:
            blobs, deps = _read_chunk(root, [(rel, rel in sidecar) for rel in chunks[k]], reader, for_cache)
            send.send_bytes(_MESSAGES.dumps((k, blobs, deps)))
    except (BrokenPipeError, KeyboardInterrupt):  # the main process has stopped listening
        pass
    finally:
        send.close()
