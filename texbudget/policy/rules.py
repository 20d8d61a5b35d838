"""``[[rule]]`` tables: ``Rule``, ``parse_rules`` (a bad rule is one line naming the file,
the rule, the key and what is allowed) and the glob semantics of ``match`` (docs/policy.md §5).

Rules are applied like CSS or ``.gitattributes``: every rule whose ``match`` fits the path
applies in file order, and for each key the LAST matching rule that sets it wins
(``_cascade``; ``_Applied`` is its result, read by ``policy.decision``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from texbudget import formats
from texbudget.discover import glob_class
from texbudget.errors import ConfigError
from texbudget.model import file_of, is_part
from texbudget.policy.profiles import ROLES, _did_you_mean, load_platforms

#: Keys a ``[[rule]]`` table may hold.
RULE_KEYS: tuple[str, ...] = ("match", "role", "format", "max_size", "mips", "ignore", "platform", "note")
_RULE_ACTIONS = ("role", "format", "max_size", "mips", "ignore")


@dataclass(frozen=True, slots=True)
class Rule:
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
        regex = _glob_regex(self.match.removeprefix("/"))
        return next(filter(regex.fullmatch, paths if "/" in self.match else names), None) is not None

    def matches(self, path: str) -> bool:
        """Glob semantics in docs/policy.md §5: a pattern without "/" matches the file name;
        one with "/" matches the whole relative path; ``**`` crosses folders. Images inside a
        glTF (``level.glb#image/2``) also match through their container's path."""
        # A leading "/" anchors the pattern at the scan root, as in .gitignore ("/hero.png"
        # is the root's hero.png only); a "/" anywhere else already does.
        anchored = "/" in self.match
        regex = _glob_regex(self.match.removeprefix("/"))
        candidates = [path]
        if is_part(path):
            candidates.append(file_of(path))
        for cand in candidates:
            target = cand if anchored else cand.rsplit("/", 1)[-1]
            if regex.fullmatch(target):
                return True
        return False


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
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
            found = glob_class(pattern, i, "!")  # as fnmatch reads a class
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


def parse_rules(raw: Sequence[Mapping[str, object]], source: str) -> tuple[Rule, ...]:
    """Validate ``[[rule]]`` tables. A bad rule raises ``ConfigError`` with one line naming the
    file, the rule number, the key and what is allowed."""
    rules: list[Rule] = []
    platforms = list(load_platforms())
    for index, table in enumerate(raw, 1):
        where = f"{source}: [[rule]] #{index}"
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: must be a table like {{ match = \"textures/**\", role = \"normal\" }}")
        for key in table:
            if key not in RULE_KEYS:
                raise ConfigError(
                    f"{where}: unknown key {key!r}{_did_you_mean(str(key), RULE_KEYS)}; "
                    f"allowed: {', '.join(RULE_KEYS)}"
                )
        match = table.get("match")
        if not isinstance(match, str) or not match.strip():
            raise ConfigError(f"{where}: 'match' must be a non-empty glob string such as \"textures/**/*_n.png\"")
        try:
            _glob_regex(match.removeprefix("/"))
        except re.error as exc:  # a class's range backwards: "[z-a]"
            raise ConfigError(f"{where}: match {match!r} is not a glob: {exc.msg} in a [...] class") from None
        values: dict[str, object] = {}
        role = table.get("role")
        if role is not None:
            if role not in ROLES:
                raise ConfigError(
                    f"{where}: role {role!r} is unknown{_did_you_mean(str(role), ROLES)}; allowed: {', '.join(ROLES)}"
                )
            values["role"] = role
        fmt_text = table.get("format")
        if fmt_text is not None:
            if isinstance(fmt_text, int) and not isinstance(fmt_text, bool):
                fmt_text = str(fmt_text)  # format = 37: a VkFormat, as formats.find reads a bare number
            fmt = formats.find(fmt_text) if isinstance(fmt_text, str) else None
            if fmt is None or fmt.transcodable:
                near = formats.nearest(str(fmt_text)) if isinstance(fmt_text, str) else []
                hint = f" (did you mean {', '.join(repr(x) for x in near)}?)" if near else ""
                raise ConfigError(
                    f"{where}: format {fmt_text!r} is not a GPU format{hint}; "
                    "allowed: the names `texbudget formats` lists, e.g. BC7_SRGB, BC5_UNORM, ASTC_6x6_SRGB, R8G8B8A8_UNORM, "
                    "a Vulkan or DXGI name, or a number: vk:37, dxgi:28"
                )
            values["format"] = fmt.name
            values["format_exact"] = not formats.is_alias(str(fmt_text))
        max_size = table.get("max_size")
        if max_size is not None:
            if not isinstance(max_size, int) or isinstance(max_size, bool) or not 1 <= max_size <= 65536:
                raise ConfigError(f"{where}: max_size {max_size!r} must be an integer from 1 to 65536 (texels on the longest side)")
            values["max_size"] = max_size
        for key in ("mips", "ignore"):
            value = table.get(key)
            if value is not None:
                if not isinstance(value, bool):
                    raise ConfigError(f"{where}: {key} {value!r} must be true or false")
                values[key] = value
        plat = table.get("platform")
        plats: tuple[str, ...] = ()
        if plat is not None:
            items = [plat] if isinstance(plat, str) else plat
            if not isinstance(items, list) or not items or not all(isinstance(p, str) for p in items):
                raise ConfigError(f"{where}: platform must be a name or a list of names; allowed: {', '.join(platforms)}")
            for p in items:
                if p not in platforms:
                    raise ConfigError(
                        f"{where}: platform {p!r} is unknown{_did_you_mean(p, platforms)}; allowed: {', '.join(platforms)}"
                    )
            plats = tuple(items)
        note = table.get("note", "")
        if not isinstance(note, str):
            raise ConfigError(f"{where}: note must be a string")
        keys = frozenset(k for k in _RULE_ACTIONS if k in table)
        if not keys:
            raise ConfigError(f"{where}: sets nothing; give at least one of {', '.join(_RULE_ACTIONS)}")
        rules.append(Rule(
            match=match, index=index, source=source, role=values.get("role"),  # type: ignore[arg-type]
            format=values.get("format"), max_size=values.get("max_size"),  # type: ignore[arg-type]
            mips=values.get("mips"), ignore=bool(values.get("ignore", False)),  # type: ignore[arg-type]
            platforms=plats, note=note, keys=keys,
            format_exact=bool(values.get("format_exact", True)),
        ))
    return tuple(rules)


@dataclass(slots=True)
class _Applied:
    """Rule keys after the cascade: key -> (value, rule that set it)."""

    values: dict[str, tuple[object, Rule]] = field(default_factory=dict)

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
