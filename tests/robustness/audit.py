"""Watch what a piece of code opens and whether it touches the network, with an audit hook
(``sys.addaudithook``; PEP 578). A hook cannot be removed, so one is installed once per process
and records only inside ``watching()``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

#: Audit events that mean the network: sockets, name lookups, urllib and the protocol clients.
NETWORK_PREFIXES = ("socket.", "urllib.", "http.client.", "ftplib.", "smtplib.", "imaplib.", "poplib.", "nntplib.", "telnetlib.", "webbrowser.")


@dataclass
class Watched:
    opened: list[str] = field(default_factory=list)  # paths given to open()
    listed: list[str] = field(default_factory=list)  # folders given to os.scandir / os.listdir
    network: list[tuple[str, str]] = field(default_factory=list)

    def outside(self, root: Path) -> list[str]:
        """Opened or listed paths outside ``root`` (symbolic links resolved), leaving out the
        Python installation (lazy imports of stdlib and site-packages modules)."""
        real_root = os.path.realpath(root)
        allowed = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
        out = []
        for path in self.opened + self.listed:
            real = os.path.realpath(path)
            if real == real_root or real.startswith(real_root + os.sep) or real.startswith(allowed):
                continue
            out.append(path)
        return out


_current: Watched | None = None
_installed = False


def _hook(event: str, args: tuple) -> None:
    w = _current
    if w is None:
        return
    if event == "open":
        path = args[0] if args else None
        if isinstance(path, (str, bytes, os.PathLike)):
            w.opened.append(os.fsdecode(path))
    elif event in ("os.scandir", "os.listdir"):
        path = args[0] if args else None
        if isinstance(path, (str, bytes, os.PathLike)):
            w.listed.append(os.fsdecode(path))
    elif event.startswith(NETWORK_PREFIXES):
        w.network.append((event, repr(args)[:200]))


@contextmanager
def watching() -> Iterator[Watched]:
    global _current, _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    watched = Watched()
    _current = watched
    try:
        yield watched
    finally:
        _current = None


def bytes_read() -> int | None:
    """Bytes this process has read through read() calls so far (Linux ``rchar``), or None."""
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None
