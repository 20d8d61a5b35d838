"""Discovery: which files under a scan root texbudget reads (DESIGN.md §1, stage ``discover``).

``discover(root, include, exclude, paths)`` walks the root with ``os.scandir`` (or only the
given paths) and returns the files whose suffix has a reader (``readers.supported_suffixes``),
as sorted POSIX paths relative to the root, plus findings for what could not be walked.

Rules:
- Globs are gitignore-like and match the relative POSIX path: ``*`` and ``?`` stay inside one
  path segment, ``[abc]`` / ``[!abc]`` are classes, ``**/`` matches any number of folders,
  ``/**`` everything inside a folder, a trailing ``/`` matches folders only, a leading ``/``
  anchors to the root, and a pattern without any other ``/`` matches a name at any depth.
  A folder that matches matches everything inside it. ``!pattern`` re-includes, last match
  wins; as in git, nothing inside an excluded folder can be re-included. ``include`` empty
  means everything; ``exclude`` always wins over ``include``.
- Hidden files and folders (a leading ``.``) are skipped, which covers ``.git``, ``.hg``,
  ``.svn`` and ``.texbudget``. Engine sidecars (``.import``, ``.meta``) are never reported:
  the policy reads them next to their texture.
- Symbolic links are followed only while their target stays inside the root. A link that
  leaves the root, or a folder link back to one of its own ancestors (a loop), is a TB004
  finding; a folder reached a second time through another link is walked once (real
  folders are tracked by device and inode), its files reported under the first path met in
  sorted order. A broken link with a readable suffix is TB001.
- Folders that cannot be listed are TB001; files or folders that vanish during the walk are
  TB005. FIFOs, sockets and devices are never opened (a FIFO would block the scan); one with
  a readable suffix, or named explicitly, is TB001. Files of other types are counted in
  ``skipped``; when such a file was named explicitly in ``paths`` it is a TB002 info finding
  instead.
- Names that are not valid UTF-8 are kept as Python decodes them (``os.fsdecode``, with
  surrogate escapes): they open correctly, and writers must encode them with
  ``errors="surrogateescape"`` or escape them (``json.dumps`` does).
- Relative ``paths`` are relative to the root; a path outside the root is a TB004 finding.
"""

from __future__ import annotations

import operator
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from texbudget import findings
from texbudget.model import Finding
from texbudget.readers import SIDECAR_SUFFIXES, suffix_of, supported_suffixes


@dataclass(frozen=True, slots=True)
class Discovered:
    files: tuple[str, ...]  # sorted POSIX paths relative to the root
    findings: tuple[Finding, ...] = ()
    skipped: int = 0  # files of other types that were passed over
    #: The folders listed (relative; "" is the root) and, of those, the ones holding an engine
    #: sidecar (``.import`` / ``.meta``): the scan looks for a texture's sidecar only in the
    #: latter, or in a folder that was not listed.
    listed: frozenset[str] = frozenset()
    with_sidecars: frozenset[str] = frozenset()


# --- globs ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Glob:
    regex: re.Pattern[str]
    dir_only: bool
    negated: bool


#: Characters a regular expression's class reads as syntax, escaped in a glob's class.
_CLASS_SPECIAL = re.compile(r"[\\\[\]^&~|]")


def glob_class(pattern: str, i: int, negators: str) -> tuple[str, int] | None:
    """The glob class that opens at ``pattern[i]`` ("[") as a regular expression's class,
    and the index after its "]"; None when no "]" closes it (the "[" is then a plain
    character). One of ``negators`` first negates ("!" as fnmatch reads a class, "!^" as
    gitignore does), a "]" first (after it) is a member, and every member stands for itself
    but a range's "-": "^", "[", "&&", "~~", "||" and "\\" are syntax in re's class and
    are escaped. Shared by ``[scan]`` globs and ``[[rule]] match`` (policy.rules)."""
    j = i + 1
    if pattern[j : j + 1] and pattern[j] in negators:
        j += 1
    if pattern.startswith("]", j):
        j += 1
    end = pattern.find("]", j)
    if end < 0:
        return None
    body = pattern[i + 1 : end]
    negate = pattern[i + 1] in negators  # (a "]" was found, so the class has a first character)
    body = _CLASS_SPECIAL.sub(r"\\\g<0>", body[1:] if negate else body)
    return ("[^" if negate else "[") + body + "]", end + 1


def _segment(seg: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "\\" and i + 1 < len(seg):
            out.append(re.escape(seg[i + 1]))
            i += 2
            continue
        if c == "*":
            while i + 1 < len(seg) and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            found = glob_class(seg, i, "!^")
            if found is None:
                out.append(re.escape(c))
            else:
                out.append(found[0])
                i = found[1] - 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> _Glob | None:
    """One gitignore-like pattern as a regex over relative POSIX paths; None for a blank
    pattern or a comment. ``re.error`` for a class whose range runs backwards ("[z-a]"):
    the config refuses such a pattern when it is read (``config.py``)."""
    pat = pattern.strip()
    if not pat or pat.startswith("#"):
        return None
    negated = pat.startswith("!")
    if negated:
        pat = pat[1:]
    dir_only = pat.endswith("/")
    pat = pat.rstrip("/")
    anchored = "/" in pat
    pat = pat.lstrip("/")
    if not pat:
        return None
    parts = pat.split("/")
    pieces: list[str] = []
    for i, seg in enumerate(parts):
        last = i == len(parts) - 1
        if seg == "**":
            pieces.append(".*" if last else "(?:.*/)?")
        else:
            pieces.append(_segment(seg) + ("" if last else "/"))
    body = "".join(pieces)
    if not anchored:
        body = "(?:.*/)?" + body
    return _Glob(re.compile(body, re.DOTALL), dir_only, negated)


class PathGlobs:
    """A list of gitignore-like patterns; ``matches`` says whether a relative POSIX path (or
    any folder above it) is matched, the last matching pattern winning."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(g for g in (compile_glob(p) for p in patterns) if g is not None)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def _decide(self, path: str, is_dir: bool) -> bool:
        result = False
        for g in self.patterns:
            if (is_dir or not g.dir_only) and g.regex.fullmatch(path):
                result = not g.negated
        return result

    def matches(self, rel: str, is_dir: bool = False, *, parents: bool = True) -> bool:
        if not self.patterns:
            return False
        if parents:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                if self._decide("/".join(parts[:i]), True):
                    return True
        return self._decide(rel, is_dir)


# --- the walk ---------------------------------------------------------------------------------


@dataclass
class _Walk:
    real_root: str
    include: PathGlobs
    exclude: PathGlobs
    suffixes: frozenset[str]
    # a dict, not a set: it keeps the walk's order, whose long sorted runs make the final
    # sort cheap (100k files: 6 ms against 65 ms from a set's order)
    files: dict[str, None] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)
    skipped: int = 0
    visited: set[tuple[int, int]] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)
    with_sidecars: set[str] = field(default_factory=set)

    def note(self, rel: str, code: str, message: str) -> None:
        self.notes.append(findings.make(rel or ".", code, message))

    def inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self.real_root.rstrip(os.sep) + os.sep)

    def consider_file(self, rel: str, explicit: bool = False, suffix: str | None = None) -> None:
        if suffix is None:
            suffix = suffix_of(rel)
        if suffix in SIDECAR_SUFFIXES:
            self.with_sidecars.add(rel.rpartition("/")[0])
            return
        if suffix not in self.suffixes:
            if explicit:
                self.note(rel, "TB002", f"{suffix or 'no suffix'}: not a file type texbudget reads")
            else:
                self.skipped += 1
            return
        if self.exclude.matches(rel):
            return
        if self.include and not self.include.matches(rel):
            return
        self.files[rel] = None

    def walk(self, abs_dir: str, rel_dir: str, ancestors: frozenset[tuple[int, int]]) -> None:
        stack = [(abs_dir, rel_dir, ancestors)]
        # Without globs a regular file needs only its suffix looked at (the usual case, inline).
        plain, suffixes, files = not self.exclude and not self.include, self.suffixes, self.files
        while stack:
            directory, rel, anc = stack.pop()
            try:
                with os.scandir(directory) as it:
                    entries = sorted(it, key=_name)
            except FileNotFoundError:
                self.note(rel, "TB005", "the folder vanished while it was being scanned")
                continue
            except OSError as exc:
                self.note(rel, "TB001", f"cannot list the folder: {exc.strerror or exc}")
                continue
            self.listed.add(rel)
            subdirs = []
            prefix = f"{rel}/" if rel else ""
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                child = prefix + name
                if plain:
                    try:
                        regular = entry.is_file(follow_symlinks=False)  # settled by the listing
                    except OSError:
                        regular = False
                    if regular:
                        # suffix_of(name), inline: a name without "/" that does not start
                        # with "." (skipped above) has its suffix after its last dot
                        dot = name.rfind(".")
                        suffix = name[dot:].lower() if dot > 0 else ""
                        if suffix in suffixes:
                            files[child] = None
                        else:
                            self.consider_file(child, suffix=suffix)
                        continue
                item = self.entry(entry, child, anc)
                if item is not None:
                    subdirs.append(item)
            stack.extend(reversed(subdirs))

    def entry(self, entry: os.DirEntry[str], rel: str, anc: frozenset[tuple[int, int]]) -> tuple[str, str, frozenset[tuple[int, int]]] | None:
        """Handle one directory entry; a folder to descend into is returned."""
        try:
            if entry.is_file(follow_symlinks=False):  # the usual case, settled by the listing
                self.consider_file(rel, suffix=suffix_of(entry.name))
                return None
            is_link = entry.is_symlink()
            is_dir = entry.is_dir()
            is_file = not is_dir and entry.is_file()
        except OSError as exc:
            self.note(rel, "TB001", f"cannot read: {exc.strerror or exc}")
            return None
        readable_suffix = suffix_of(entry.name) in self.suffixes
        if is_link and not (is_dir or is_file) and not os.path.exists(entry.path):
            if readable_suffix:
                try:
                    target = repr(os.readlink(entry.path))
                except OSError:  # the link itself vanished meanwhile
                    target = "unknown"
                self.note(rel, "TB001", f"broken symbolic link (target {target} does not exist)")
            return None
        if is_link:
            target = os.path.realpath(entry.path)
            if not self.inside(target):
                if is_dir or readable_suffix:
                    self.note(rel, "TB004", "symbolic link leaves the scan root; not followed")
                return None
        if is_file:
            self.consider_file(rel)
            return None
        if not is_dir:  # a FIFO, socket or device: never opened (reading a FIFO would block)
            if readable_suffix:
                self.note(rel, "TB001", "not a regular file (a FIFO, socket or device); not read")
            return None
        if self.exclude.matches(rel, True, parents=False):
            return None
        try:
            st = os.stat(entry.path)
        except FileNotFoundError:
            self.note(rel, "TB005", "the folder vanished while it was being scanned")
            return None
        except OSError as exc:
            self.note(rel, "TB001", f"cannot read: {exc.strerror or exc}")
            return None
        key = (st.st_dev, st.st_ino)
        if key in anc:
            self.note(rel, "TB004", "symbolic link loops back to a folder above it; not followed")
            return None
        if key in self.visited:
            return None
        self.visited.add(key)
        return entry.path, rel, anc | {key}


_name = operator.attrgetter("name")


def _rel_to(root_abs: str, path_abs: str) -> str | None:
    rel = os.path.relpath(path_abs, root_abs)
    if rel == ".":
        return ""
    if rel == ".." or rel.startswith(".." + os.sep):
        return None
    return rel.replace(os.sep, "/")


def discover(
    root: Path,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    paths: Sequence[Path] | None = None,
) -> Discovered:
    """The readable files under ``root`` (or among ``paths``), sorted, with findings."""
    root_abs = os.path.abspath(os.fspath(root))
    if os.path.isfile(root_abs) and paths is None:
        root_abs, paths = os.path.dirname(root_abs), [Path(root_abs)]
    state = _Walk(os.path.realpath(root_abs), PathGlobs(include), PathGlobs(exclude), frozenset(supported_suffixes()))
    try:
        root_stat = os.stat(root_abs)
    except FileNotFoundError:
        return Discovered((), (findings.make(".", "TB005", f"{root}: the scan root does not exist"),), 0)
    except OSError as exc:
        return Discovered((), (findings.make(".", "TB001", f"{root}: cannot read the scan root: {exc.strerror or exc}"),), 0)
    root_key = (root_stat.st_dev, root_stat.st_ino)
    state.visited.add(root_key)
    if paths is None:
        state.walk(root_abs, "", frozenset({root_key}))
    else:
        for given in paths:
            _explicit(state, root_abs, root_key, given)
    return Discovered(tuple(sorted(state.files)), tuple(state.notes), state.skipped,
                      frozenset(state.listed), frozenset(state.with_sidecars))


def _explicit(state: _Walk, root_abs: str, root_key: tuple[int, int], given: Path) -> None:
    path_abs = os.path.abspath(os.path.join(root_abs, os.fspath(given)))
    rel = _rel_to(root_abs, path_abs)
    shown = os.fspath(given)
    if rel is None:
        state.note(shown, "TB004", "the path is outside the scan root; not read")
        return
    try:
        st = os.stat(path_abs)
    except FileNotFoundError:
        state.note(rel or shown, "TB005", "the path does not exist")
        return
    except OSError as exc:
        state.note(rel or shown, "TB001", f"cannot read: {exc.strerror or exc}")
        return
    if not state.inside(os.path.realpath(path_abs)):
        state.note(rel or shown, "TB004", "the path is a symbolic link that leaves the scan root; not followed")
        return
    if stat.S_ISDIR(st.st_mode):
        if rel and state.exclude.matches(rel, True):
            return
        key = (st.st_dev, st.st_ino)
        if key in state.visited and key != root_key:
            return
        state.visited.add(key)
        state.walk(path_abs, rel, frozenset({root_key, key}))
    elif stat.S_ISREG(st.st_mode):
        state.consider_file(rel, explicit=True)
    else:  # a FIFO, socket or device named on the command line: never opened
        state.note(rel or shown, "TB001", "not a regular file (a FIFO, socket or device); not read")
