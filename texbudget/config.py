"""texbudget.toml (or ``[tool.texbudget]`` in pyproject.toml): found, read, validated.

The one place a configuration value or a flag that overrides one is validated (issue 22).
Read with tomllib, then checked once, at load, into typed frozen records: one per section
(``BudgetSection``, ``ScanSection``, ``LimitsSection``, ``MeshesSection``) and one per entry
of the arrays of tables (``[[rule]]`` → ``policy.rules.Rule``, ``[[instances]]`` →
``(match, count)``, ``[[level]]`` → ``(name, scene)``). Later stages take these values and
check nothing again. Every mistake is one ``ConfigError`` line naming the file, the key (with
the entry's number in an array: ``[[rule]] #3 format``), the value and what is allowed, with
the nearest name for a misspelling. A flag (``--quality``, ``--cards``…) goes through the same
checker as its key (``check_flag``) and a mistake is one ``UsageError`` line naming the flag.

Values that need a table are checked against the table itself, so the config and the code
cannot drift: cards (data/cards.toml), platforms (data/platforms.toml), ray-tracing profiles
(data/bvh_profiles.toml), renderers, upscalers and shadow presets (data/render_targets.toml),
formats (the format table), roles (policy.profiles). The keys and their defaults are
documented in README.md ("Configuration"); the section records below are the single source
and a test keeps the two in step. docs/decisions.md ("Configuration validated once") says why
this is hand-written rather than msgspec.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from texbudget.errors import ConfigError, UsageError
from texbudget.units import parse_bytes, parse_resolution

if TYPE_CHECKING:
    from texbudget.policy.rules import Rule
    from texbudget.sizing.meshes import VertexLayout

CONFIG_NAMES = ("texbudget.toml", ".texbudget.toml")
FOLLOW = ("tree", "gltf")
MSAA_SAMPLES = (1, 2, 4, 8)
#: The suffixes of a level's scene file (docs/levels.md): Godot scenes, Unity scenes and
#: prefabs, glTF.
LEVEL_SUFFIXES = (".tscn", ".scn", ".escn", ".unity", ".prefab", ".gltf", ".glb")
#: The keys of a ``[[rule]]`` that do something (one at least must be set).
RULE_ACTIONS = ("role", "format", "max_size", "mips", "ignore")


def is_level_file(path: str | os.PathLike[str]) -> bool:
    """A file a level can be (``LEVEL_SUFFIXES``): a Godot or Unity scene, a Unity prefab, a glTF."""
    return os.fspath(path).lower().endswith(LEVEL_SUFFIXES)


# --- checkers: each takes a value and returns it clean, or raises Invalid -------------------


class Invalid(ValueError):
    """A value a checker refuses. ``problem`` says what is wrong and what is allowed; ``item``
    is the entry at fault when the value is a list (None: the whole value)."""

    def __init__(self, problem: str, *, item: object = None) -> None:
        super().__init__(problem)
        self.problem, self.item = problem, item


Check = Callable[[Any], Any]


def _near(word: str, options: Iterable[str], n: int = 1) -> str:
    import difflib  # only for a mistake

    near = difflib.get_close_matches(word, list(options), n=n)
    return f" (did you mean {', '.join(repr(x) for x in near)}?)" if near else ""


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise Invalid("must be a string")
    return v


def _name(v: Any) -> str:
    """A non-empty string."""
    if not _text(v).strip():
        raise Invalid("must not be empty")
    return v


def _choice(options: Callable[[], Iterable[str]]) -> Check:
    """One of ``options()`` (a table read when a value is checked), any case; the value
    lower-cased."""

    def check(v: Any) -> str:
        allowed = list(options())
        if not isinstance(v, str):
            raise Invalid(f"must be a string, one of {', '.join(allowed)}")
        key = v.strip().lower()
        if key not in allowed:
            raise Invalid(f"allowed values are {', '.join(allowed)}{_near(key, allowed)}")
        return key
    return check


def _list(item: Check, needed: str, *, empty: bool = False) -> Check:
    """A string (one item) or a list of them, each checked by ``item``; ``needed`` says what
    to give. An empty list is refused unless ``empty`` (a budget with no cards or no
    resolutions judges nothing, and passes)."""

    def check(v: Any) -> tuple:
        values = [v] if isinstance(v, str) else v
        if not isinstance(values, list):
            raise Invalid(f"must be a string or a list of strings: {needed}")
        if not values and not empty:
            raise Invalid(f"give at least one: {needed}")
        out = []
        for x in values:
            try:
                out.append(item(x))
            except Invalid as exc:
                raise Invalid(exc.problem, item=x) from None
        return tuple(out)
    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Invalid("must be true or false")
    return v


def _int(lo: int, hi: int, unit: str = "") -> Check:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise Invalid(f"must be a whole number from {lo} to {hi}{unit}")
        return v
    return check


def _msaa(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v not in MSAA_SAMPLES:
        raise Invalid(f"allowed values are {', '.join(map(str, MSAA_SAMPLES))}")
    return v


def _bytes(v: Any) -> int:
    """A number of bytes, or a string with a unit: ``"16 MiB"`` (units.parse_bytes)."""
    try:
        return parse_bytes(v)
    except ValueError as exc:
        raise Invalid(str(exc).split(": ", 1)[-1]) from None


def _percent(top: float, *, below: bool = False) -> Check:
    """``5``, ``5.0`` or ``"5%"`` -> 0.05; from 0 to ``top`` (``below``: less than it)."""
    allowed = f"from 0 to {'below ' if below else ''}{top:g}"

    def check(v: Any) -> float:
        text = v.strip().removesuffix("%") if isinstance(v, str) else v
        try:
            pct = float(text)
        except (TypeError, ValueError):
            raise Invalid(f"must be a percentage such as 5 or \"5%\", {allowed}") from None
        if isinstance(v, bool) or not (0 <= pct < top if below else 0 <= pct <= top):
            raise Invalid(f"must be a percentage {allowed}")
        return pct / 100
    return check


def _resolution(v: Any) -> str:
    try:
        w, h = parse_resolution(_text(v))
    except ValueError as exc:
        raise Invalid(str(exc).split(": ", 1)[-1]) from None
    return f"{w}x{h}"


def _scan_glob(v: Any) -> str:
    """A ``[scan]`` include/exclude pattern git would match something with (discover.py)."""
    from texbudget.discover import GlobError, compile_glob

    try:
        if compile_glob(_text(v)) is None:
            raise Invalid("matches nothing (a blank pattern, a # comment, or / or ! alone)")
    except GlobError as exc:
        raise Invalid(f"not a glob: {exc}") from None
    return v


def _cards(v: Any) -> tuple[str, ...]:
    """Card ids: a list, or one string of ids separated by commas (as ``--cards``); each a
    card of data/cards.toml (an id or alias, any case) or a generic class ``<n>GB``."""
    from texbudget.budget.cards import load_cards, resolve_cards

    needed = "a memory size such as 8GB, or a card `texbudget cards` lists"
    values = [v] if isinstance(v, str) else v
    if not isinstance(values, list) or not all(isinstance(x, str) for x in values):
        raise Invalid(f"must be a string or a list of strings: {needed}")
    tokens = tuple(t.strip() for x in values for t in x.split(",") if t.strip())
    if not tokens:
        raise Invalid(f"give at least one: {needed}")
    for token in tokens:
        try:
            resolve_cards((token,))
        except UsageError:
            known = {key.lower() for card in load_cards() for key in (card.id, *card.aliases)}
            raise Invalid(f"not a card{_near(token.lower(), known, 3)}; allowed: {needed}", item=token) from None
    return tokens


def _rt(v: Any) -> tuple[str, ...]:
    from texbudget.sizing.bvh import load_profiles

    names = _list(_choice(lambda: ("off", *load_profiles())), "off or a ray-tracing profile")(v)
    return tuple(dict.fromkeys(names))


def _platform(v: Any) -> str:
    from texbudget.policy.profiles import load_platforms

    return _choice(load_platforms)(v)


def _quality(v: Any) -> str:
    from texbudget.policy.profiles import QUALITY_TIERS

    return _choice(lambda: QUALITY_TIERS)(v)


def _allocation(v: Any) -> str:
    from texbudget.sizing.textures import ALLOCATION_MODELS

    return _choice(lambda: ALLOCATION_MODELS)(v)


def _preset(kind: str) -> Check:
    """A name of one table of data/render_targets.toml: ``presets``, ``upscalers``, ``shadows``."""

    def names() -> Iterable[str]:
        from texbudget.sizing.targets import load_presets

        return getattr(load_presets(), kind)
    return _choice(names)


_COMPONENT_TYPES = {
    "f32": "FLOAT", "f16": "HALF_FLOAT", "u32": "UNSIGNED_INT", "u16": "UNSIGNED_SHORT",
    "s16": "SHORT", "u8": "UNSIGNED_BYTE", "s8": "BYTE",
}


def _layout(v: Any) -> VertexLayout:
    """``["position:f32x3", "normal:s8x4", "uv0:f16x2"]`` → a VertexLayout."""
    from texbudget.sizing.meshes import VertexLayout

    def attribute(entry: Any) -> tuple[str, str, int]:
        name, _, spec = _text(entry).partition(":")
        ctype, _, count = spec.partition("x")
        if not name or ctype not in _COMPONENT_TYPES or not count.isdigit() or not 1 <= int(count) <= 16:
            raise Invalid(f"write NAME:TYPExCOUNT, TYPE one of {', '.join(_COMPONENT_TYPES)}, COUNT 1 to 16 "
                          "(e.g. 'position:f32x3')")
        return name, _COMPONENT_TYPES[ctype], int(count)

    return VertexLayout(_list(attribute, "attributes such as 'position:f32x3'")(v), name="config")


def _key(check: Check) -> dict[str, Check]:
    """A section field's metadata: the checker of its config key."""
    return {"check": check}


# --- the sections ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BudgetSection:
    """``[budget]``: what the scene is judged against (README "Configuration";
    ``budget.settings.settings_from_config`` maps it to ``BudgetSettings``)."""

    cards: tuple[str, ...] = field(default=("8GB", "12GB", "16GB", "24GB"), metadata=_key(_cards))
    resolutions: tuple[str, ...] = field(default=("1920x1080", "2560x1440", "3840x2160"),
                                         metadata=_key(_list(_resolution, "1080p, 1440p, 4k or WxH")))
    quality: tuple[str, ...] = field(default=("ultra",), metadata=_key(_list(_quality, "ultra, high, medium, low")))
    platform: str = field(default="desktop", metadata=_key(_platform))
    high_quality: bool = field(default=False, metadata=_key(_bool))
    rt: tuple[str, ...] | None = field(default=None, metadata=_key(_rt))  # None: each card's vendor
    renderer: str = field(default="deferred", metadata=_key(_preset("presets")))
    upscaler: str = field(default="native", metadata=_key(_preset("upscalers")))
    shadows: str = field(default="csm", metadata=_key(_preset("shadows")))
    msaa: int = field(default=1, metadata=_key(_msaa))
    reserve: float = field(default=0.07, metadata=_key(_percent(100, below=True)))
    reserve_min: int = field(default=768 << 20, metadata=_key(_bytes))
    headroom: float = field(default=0.05, metadata=_key(_percent(100, below=True)))
    allocation: str = field(default="d3d12", metadata=_key(_allocation))
    streaming: bool = field(default=False, metadata=_key(_bool))
    streaming_pool: int | None = field(default=None, metadata=_key(_bytes))  # None: UE's 1000 MiB
    rt_compaction: bool = field(default=True, metadata=_key(_bool))


@dataclass(frozen=True, kw_only=True)
class ScanSection:
    """``[scan]``: which files are read (discover.py's gitignore globs)."""

    include: tuple[str, ...] = field(default=(), metadata=_key(_list(_scan_glob, "gitignore-style globs", empty=True)))
    exclude: tuple[str, ...] = field(default=(), metadata=_key(_list(_scan_glob, "gitignore-style globs", empty=True)))
    follow: str = field(default="tree", metadata=_key(_choice(lambda: FOLLOW)))


@dataclass(frozen=True, kw_only=True)
class LimitsSection:
    """``[limits]``: the per-file and scene rules of ``check`` (limits.py); None = not checked."""

    max_size: int | None = field(default=None, metadata=_key(_int(1, 65536)))
    max_bytes: int | None = field(default=None, metadata=_key(_bytes))
    require_mips: bool = field(default=False, metadata=_key(_bool))
    forbid_uncompressed: bool = field(default=False, metadata=_key(_bool))
    multiple_of_4: bool = field(default=False, metadata=_key(_bool))
    power_of_two: bool = field(default=False, metadata=_key(_bool))
    max_triangles: int | None = field(default=None, metadata=_key(_int(1, 1 << 40)))
    max_total: int | None = field(default=None, metadata=_key(_bytes))
    max_growth: float | None = field(default=None, metadata=_key(_percent(100)))
    forbid_unused: bool = field(default=False, metadata=_key(_bool))
    total: bool = field(default=False, metadata=_key(_bool))


@dataclass(frozen=True, kw_only=True)
class MeshesSection:
    """``[meshes]``: how meshes are priced (sizing.meshes, sizing.bvh)."""

    layout: VertexLayout | None = field(default=None, metadata=_key(_layout))  # None: the stored bytes
    skinned_copy: bool = field(default=False, metadata=_key(_bool))
    rt_lod: int = field(default=0, metadata=_key(_int(0, 16)))


SECTIONS: dict[str, type] = {
    "budget": BudgetSection, "scan": ScanSection, "limits": LimitsSection, "meshes": MeshesSection,
}


def section_keys(name: str) -> tuple[str, ...]:
    """The keys of a section, in the order README lists them."""
    return tuple(f.name for f in fields(SECTIONS[name]))


# --- the arrays of tables ------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    """The keys of one kind of array entry: key -> checker, and the required keys with what to
    say of each when it is missing."""

    keys: Mapping[str, Check]
    required: Mapping[str, str] = field(default_factory=dict)


def _entries(name: str, body: Any, where: str, first: int = 1) -> list[tuple[str, dict[str, Any]]]:
    """The tables of ``[[name]]``, each checked against ``ARRAYS[name]``: (where, clean values)."""
    spec = ARRAYS[name]
    if not isinstance(body, list) or not all(isinstance(t, dict) for t in body):
        raise ConfigError(f"{where}: [[{name}]] = {body!r}: must be an array of tables ([[...]])")
    out = []
    for i, table in enumerate(body, first):
        at = f"[[{name}]] #{i}"
        for key in table:
            if key not in spec.keys:
                raise ConfigError(f"{where}: {at}: {_unknown(f'key {key!r}', key, spec.keys)}")
        for key, what in spec.required.items():
            if key not in table:
                raise ConfigError(f"{where}: {at}: needs {key!r}, {what}")
        out.append((at, {key: _checked(spec.keys[key], value, f"{where}: {at} {key}") for key, value in table.items()}))
    return out


def _unknown(what: str, word: str, allowed: Iterable[str]) -> str:
    """``unknown key 'x'; did you mean 'y'? (allowed: …)``: ``what`` names the word."""
    import difflib  # only for a mistake

    names = list(allowed)
    near = difflib.get_close_matches(word, names, n=1, cutoff=0.5)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"unknown {what}{hint} (allowed: {', '.join(names)})"


def _checked(check: Check, value: Any, where: str) -> Any:
    """``check(value)``, or one ConfigError line: ``where = value: problem``."""
    try:
        return check(value)
    except Invalid as exc:
        shown = value if exc.item is None else exc.item
        raise ConfigError(f"{where} = {shown!r}: {exc.problem}") from None


def _rule_match(v: Any) -> str:
    from texbudget.policy.rules import glob_regex

    if not _text(v).strip():
        raise Invalid("must be a non-empty glob such as \"textures/**/*_n.png\"")
    try:
        glob_regex(v.removeprefix("/"))
    except re.error as exc:  # a class's range backwards: "[z-a]"
        raise Invalid(f"not a glob: {exc.msg} in a [...] class") from None
    return v


def _rule_role(v: Any) -> str:
    from texbudget.policy.profiles import ROLES

    return _choice(lambda: ROLES)(v)


def _rule_format(v: Any) -> tuple[str, bool]:
    """A GPU format (``formats.find``: a name, an alias, vk:N, dxgi:N, or a bare number, a
    VkFormat) → (canonical name, exact: False for an alias, whose role picks sRGB or linear)."""
    from texbudget import formats

    text = str(v) if isinstance(v, int) and not isinstance(v, bool) else v
    fmt = formats.find(text) if isinstance(text, str) else None
    if fmt is None or fmt.transcodable:
        near = formats.nearest(text) if isinstance(text, str) else []
        hint = f" (did you mean {', '.join(repr(x) for x in near)}?)" if near else ""
        raise Invalid(f"not a GPU format{hint}; allowed: the names `texbudget formats` lists, e.g. BC7_SRGB, "
                      "BC5_UNORM, ASTC_6x6_SRGB, R8G8B8A8_UNORM, a Vulkan or DXGI name, or a number: vk:37, dxgi:28")
    return fmt.name, not formats.is_alias(text)


def _level_scene(v: Any) -> str:
    scene = _text(v).strip().replace("\\", "/").removeprefix("./")
    if not is_level_file(scene):
        raise Invalid(f"a level is a scene file: {', '.join(LEVEL_SUFFIXES)}")
    parts = scene.split("/")
    if scene.startswith("/") or ":" in parts[0] or ".." in parts:
        raise Invalid("a path relative to the scan root, inside it")
    return scene


ARRAYS: dict[str, _Entry] = {
    "rule": _Entry(
        keys={"match": _rule_match, "role": _rule_role, "format": _rule_format, "max_size": _int(1, 65536, " (texels on the longest side)"),
              "mips": _bool, "ignore": _bool, "platform": _list(_platform, "a platform profile"), "note": _text},
        required={"match": "a glob such as \"textures/**/*_n.png\""},
    ),
    "instances": _Entry(
        keys={"match": _name, "count": _int(0, 1 << 31)},
        required={"match": "a mesh path or glob", "count": "how many instances (0 to 2147483648)"},
    ),
    "level": _Entry(
        keys={"name": _name, "scene": _level_scene},
        required={"scene": f"the level's scene file relative to the scan root ({', '.join(LEVEL_SUFFIXES)})"},
    ),
}


def parse_rules(raw: Sequence[Mapping[str, Any]], source: str, *, where: str | None = None, first: int = 1) -> tuple[Rule, ...]:
    """``[[rule]]`` tables → Rules (docs/policy.md §5). ``source`` names their file in
    ``decided_by`` ("rule 4 in texbudget.toml"); ``where`` starts an error line (default
    ``source``); ``first``: the number of the first table (the TUI numbers the rules it
    appended after the file's). A bad table raises one ConfigError line naming the rule's
    number, the key and what is allowed."""
    from texbudget.policy.rules import Rule

    rules: list[Rule] = []
    for at, values in _entries("rule", raw, where or source, first):
        keys = frozenset(k for k in RULE_ACTIONS if k in values)
        if not keys:
            raise ConfigError(f"{where or source}: {at}: sets nothing; give at least one of {', '.join(RULE_ACTIONS)}")
        fmt, exact = values.get("format", (None, True))
        rules.append(Rule(
            match=values["match"], index=first + len(rules), source=source, role=values.get("role"), format=fmt,
            max_size=values.get("max_size"), mips=values.get("mips"), ignore=values.get("ignore", False),
            platforms=values.get("platform", ()), note=values.get("note", ""), keys=keys, format_exact=exact,
        ))
    return tuple(rules)


def _levels(body: Any, where: str) -> tuple[tuple[str, str], ...]:
    """``[[level]]`` tables -> (name, scene): ``scene`` a level file's path relative to the scan
    root (required), ``name`` unique (default: the file's name without its suffix)."""
    out: dict[str, str] = {}
    for at, values in _entries("level", body, where):
        scene = values["scene"]
        name = values.get("name", scene.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip()
        if name in out:
            raise ConfigError(f"{where}: {at} name = {name!r}: another [[level]] has that name ({out[name]}); names must differ")
        out[name] = scene
    return tuple(out.items())


# --- the whole file ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """The validated configuration: one record per section, the arrays' entries, where it came
    from (``path`` None = the defaults) and the (section, key) pairs the file set itself."""

    path: Path | None = None
    budget: BudgetSection = field(default_factory=BudgetSection)
    scan: ScanSection = field(default_factory=ScanSection)
    limits: LimitsSection = field(default_factory=LimitsSection)
    meshes: MeshesSection = field(default_factory=MeshesSection)
    given: frozenset[tuple[str, str]] = frozenset()
    rules: tuple[Rule, ...] = ()
    instances: tuple[tuple[str, int], ...] = ()  # [[instances]]: (mesh path or glob, count)
    levels: tuple[tuple[str, str], ...] = ()  # [[level]]: (name, scene path relative to the scan root)

    def __getitem__(self, dotted: str) -> Any:
        """``config["scan.include"]``: a section's value by its dotted key."""
        section, key = dotted.split(".")
        return getattr(getattr(self, section), key)

    @property
    def label(self) -> str:
        return self.path.name if self.path else "defaults"


def validate(raw: Mapping[str, Any], path: Path | None) -> Config:
    """Check every section, key and array entry of a parsed TOML document."""
    name = str(path) if path else "config"
    values: dict[str, dict[str, Any]] = {s: {} for s in SECTIONS}
    given: set[tuple[str, str]] = set()
    arrays: dict[str, Any] = {}
    for section, body in raw.items():
        if section in ARRAYS:
            arrays[section] = body
            continue
        if section not in SECTIONS:
            allowed = [*SECTIONS, *(f"[[{a}]]" for a in ARRAYS)]
            raise ConfigError(f"{name}: {_unknown(f'section [{section}]', section, allowed)}")
        if not isinstance(body, dict):
            raise ConfigError(f"{name}: [{section}] = {body!r}: must be a table ([{section}])")
        checks = {f.name: f.metadata["check"] for f in fields(SECTIONS[section])}
        for key, value in body.items():
            if key not in checks:
                raise ConfigError(f"{name}: [{section}] {_unknown(f'key {key!r}', key, checks)}")
            values[section][key] = _checked(checks[key], value, f"{name}: [{section}] {key}")
            given.add((section, key))
    instances = tuple((v["match"], v["count"]) for _, v in _entries("instances", arrays["instances"], name)) if "instances" in arrays else ()
    return Config(
        path=path, **{s: SECTIONS[s](**values[s]) for s in SECTIONS}, given=frozenset(given),
        rules=parse_rules(arrays["rule"], path.name if path else "defaults", where=name) if "rule" in arrays else (),
        instances=instances, levels=_levels(arrays["level"], name) if "level" in arrays else (),
    )


# --- flags -------------------------------------------------------------------------------------

#: The flags that override a config key: flag -> (section, key). ``--cards`` and ``--rt`` take
#: names separated by commas; ``--resolution`` is given once per resolution.
FLAGS: dict[str, tuple[str, str]] = {
    "--platform": ("budget", "platform"), "--quality": ("budget", "quality"),
    "--resolution": ("budget", "resolutions"), "--rt": ("budget", "rt"), "--cards": ("budget", "cards"),
    "--max-growth": ("limits", "max_growth"),
}


def check_flag(flag: str, value: str | Sequence[str] | None) -> Any:
    """A flag's value checked as its config key is (``FLAGS``): the clean value, None when the
    flag was not given, or one UsageError line naming the flag, the value and what is
    allowed. ``--quality`` gives one tier."""
    if value is None:
        return None
    section, key = FLAGS[flag]
    check = next(f.metadata["check"] for f in fields(SECTIONS[section]) if f.name == key)
    given: Any = value if isinstance(value, str) else list(value)
    if flag in ("--cards", "--rt"):  # names separated by commas
        given = [t.strip() for t in value.split(",") if t.strip()] if isinstance(value, str) else given
    try:
        return check(given)
    except Invalid as exc:
        shown = exc.item if exc.item is not None else value if isinstance(value, str) else " ".join(value)
        raise UsageError(f"{flag} {shown}: {exc.problem}") from None


# --- finding and reading the file ----------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """texbudget.toml, or a pyproject.toml with [tool.texbudget], walking up from ``start``."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8-sig"))
            except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
                continue
            if "texbudget" in data.get("tool", {}):
                return pyproject
    return None


def find_repository(start: Path) -> Path | None:
    """The top folder of the git work tree that holds ``start``: the nearest folder at or
    above it with a ``.git`` entry (a folder, or the file a worktree or submodule has)."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def load(path: Path | None) -> Config:
    """Read and validate ``path`` (None = built-in defaults)."""
    if path is None:
        return Config()
    try:
        text = path.read_text(encoding="utf-8-sig")  # Windows editors may write a byte-order mark
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("texbudget", {})
    return validate(data, path)


def load_for(root: Path, explicit: str | None = None) -> Config:
    """The config for a scan of ``root``: ``--config`` if given, else the nearest one found."""
    if explicit:
        return load(Path(explicit))
    return load(find_config(root))
