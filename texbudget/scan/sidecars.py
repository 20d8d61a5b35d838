"""What the file system says about engine sidecars: ``_Folders`` finds them from one
listing per folder (a texture without one costs no extra ``stat``), with their stats for the
cache's signatures.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Engine sidecars, in the order ``readers.sidecars.read_engine_import`` prefers them.
SIDECARS = (".import", ".meta")

# --- what the file system says --------------------------------------------------------------


class _Folders:
    """Engine sidecars per folder, from one listing each: name -> stat of the sidecar.
    ``without``: folders known to hold none (discovery listed them and saw none)."""

    def __init__(self, root: Path, without: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.without = without
        self.listed: dict[str, dict[str, os.stat_result | None]] = {}

    def sidecars(self, rel: str) -> list[os.stat_result]:
        folder, _, name = rel.rpartition("/")
        if folder in self.without:
            return []
        names = self.listed.get(folder)
        if names is None:
            names = self.listed[folder] = self._list(folder)
        if not names:  # the usual case: a folder without engine sidecars
            return []
        out = []
        for suffix in SIDECARS:
            key = name + suffix
            if key in names:
                st = names[key]
                if st is None:
                    st = names[key] = _stat(os.path.join(self.root, folder, key))
                if st is not None:
                    out.append(st)
        return out

    def _list(self, folder: str) -> dict[str, os.stat_result | None]:
        try:
            with os.scandir(os.path.join(self.root, folder)) as it:
                return {e.name: None for e in it if e.name.endswith(SIDECARS) and e.is_file()}
        except OSError:
            return {}


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
