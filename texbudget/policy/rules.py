"""``[[rule]]`` tables as ``Rule`` records (validated and made by ``config.parse_rules``, the
one place a config value is checked) and the glob semantics of ``match`` (docs/policy.md §5).

Rules are applied like CSS or ``.gitattributes``: every rule whose ``match`` fits the path
applies in file order, and for each key the LAST matching rule that sets it wins
(``_cascade``; ``_Applied`` is its result, read by ``policy.decision``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import cache

import msgspec

from texbudget.model import file_of, is_part


class Rule(msgspec.Struct, frozen=True):
    """One ``[[rule]]`` table. ``index`` is its 1-based position in ``source``; ``keys`` are
    the action keys the table sets (so a later ``ignore = false`` can undo an earlier one)."""

    match: str
    index: int
    source: str
    role: str | None = None
    format: str | None = None  # canonical name
    max_size: int | None = None
    mips: bool | None = None
    ignore: bool = False
    platforms: tuple[str, ...] = ()  # empty = every platform
    note: str = ""
    keys: frozenset[str] = frozenset()
    format_exact: bool = True  # False when the user wrote an alias ("BC7"): the role picks sRGB (a name or number is exact)

    @property
    def where(self) -> str:
        return f"rule {self.index} in {self.source}"

    def matches_any(self, paths: Collection[str], names: Collection[str]) -> bool:
        """``matches`` for at least one of ``paths`` (every texture path and the file of
        each part), ``names`` their last segments: one regular expression run over a set,
        for ``pipeline.unmatched_rules``."""
        regex = glob_regex(self.match.removeprefix("/"))
        return next(filter(regex.fullmatch, paths if "/" in self.match else names), None) is not None

    def matches(self, path: str) -> bool:
        """Glob semantics in docs/policy.md §5: a pattern without "/" matches the file name;
        one with "/" matches the whole relative path; ``**`` crosses folders. Images inside a
        glTF (``level.glb#image/2``) also match through their container's path."""
        # A leading "/" anchors the pattern at the scan root, as in .gitignore ("/hero.png"
        # is the root's hero.png only); a "/" anywhere else already does.
        anchored = "/" in self.match
        regex = glob_regex(self.match.removeprefix("/"))
        candidates = [path]
        if is_part(path):
            candidates.append(file_of(path))
        for cand in candidates:
            target = cand if anchored else cand.rsplit("/", 1)[-1]
            if regex.fullmatch(target):
                return True
        return False


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A ``match`` glob (its leading "/" removed) as a regular expression (docs/policy.md §5);
    ``re.error`` for a class whose range runs backwards, which the config refuses when read."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            found = _fnmatch_class(pattern, i)
            if found is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(found[0])
                i = found[1]
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out))


#: Characters a regular expression's class reads as syntax, escaped in a glob's class.
_CLASS_SPECIAL = re.compile(r"[\\\[\]^&~|]")


def _fnmatch_class(pattern: str, i: int) -> tuple[str, int] | None:
    """The class that opens at ``pattern[i]`` ("[") read as fnmatch reads it, as a regular
    expression's class, and the index after its "]"; None when no "]" closes it (the "[" is
    then a plain character). A "!" first negates, a "]" first (after it) is a member, and
    every member stands for itself but a range's "-": "^", "[", "&&", "~~", "||" and "\\"
    are syntax in re's class and are escaped. The ``[scan]`` globs read a class as git does
    (``discover._git_class``)."""
    j = i + 1
    if pattern[j : j + 1] == "!":
        j += 1
    if pattern.startswith("]", j):
        j += 1
    end = pattern.find("]", j)
    if end < 0:
        return None
    body = pattern[i + 1 : end]
    negate = pattern[i + 1] == "!"  # (a "]" was found, so the class has a first character)
    body = _CLASS_SPECIAL.sub(r"\\\g<0>", body[1:] if negate else body)
    return ("[^" if negate else "[") + body + "]", end + 1


class _Applied(msgspec.Struct):
    """Rule keys after the cascade: key -> (value, rule that set it)."""

    values: dict[str, tuple[object, Rule]] = msgspec.field(default_factory=dict)

    def get(self, key: str) -> tuple[object, Rule] | None:
        return self.values.get(key)


#: The cascade of no rules, shared: nothing writes to an _Applied once _cascade returns it.
_NO_RULES = _Applied()


def _cascade(path: str, rules: Sequence[Rule], platform: str) -> _Applied:
    if not rules:
        return _NO_RULES
    applied = _Applied()
    for rule in rules:
        if rule.platforms and platform not in rule.platforms:
            continue
        if not rule.matches(path):
            continue
        for key in rule.keys:
            applied.values[key] = (getattr(rule, key), rule)
    return applied
