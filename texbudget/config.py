"""texbudget.toml (or ``[tool.texbudget]`` in pyproject.toml): found, read, validated.

Read with tomllib into frozen dataclasses. Every mistake is one ConfigError line that names
the file, the key, the value and what is allowed, with the nearest key for a misspelling.
The keys and their defaults are documented in README.md ("Configuration"); ``SCHEMA`` below
is the single source and a test keeps the two in step.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from texbudget.errors import ConfigError
from texbudget.units import parse_bytes, parse_resolution

CONFIG_NAMES = ("texbudget.toml", ".texbudget.toml")
QUALITIES = ("ultra", "high", "medium", "low")
RT_VENDORS = ("off", "nvidia", "amd", "intel", "radv", "radv26", "amd-rdna4", "anv", "anv-grl", "lavapipe")
RENDERERS = ("deferred", "forward")
UPSCALERS = ("native", "quality", "balanced", "performance", "ultra-performance")
SHADOWS = ("csm", "vsm", "none")
ALLOCATIONS = ("d3d12", "none")
FOLLOW = ("tree", "gltf")


# --- value checkers: each takes (value, where) and returns the clean value or raises ---

Check = Callable[[Any, str], Any]


def _fail(where: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(f"{where} = {value!r}: {allowed}")


def _str(allowed: tuple[str, ...] | None = None) -> Check:
    def check(v: Any, where: str) -> str:
        if not isinstance(v, str):
            raise _fail(where, v, "must be a string" + (f", one of {', '.join(allowed)}" if allowed else ""))
        if allowed and v.lower() not in allowed:
            near = difflib.get_close_matches(v.lower(), allowed, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise _fail(where, v, f"allowed values are {', '.join(allowed)}{hint}")
        return v.lower() if allowed else v
    return check


def _glob(v: Any, where: str) -> str:
    """A ``[scan]`` include/exclude pattern that compiles (discover's gitignore-like globs)."""
    import re

    from texbudget.discover import compile_glob

    pattern = _str()(v, where)
    try:
        compile_glob(pattern)
    except re.error as exc:  # a class's range backwards: "[z-a]"
        raise _fail(where, v, f"not a glob: {exc.msg} in a [...] class") from None
    return pattern


def _list_of(item: Check, needed: str = "") -> Check:
    """A string or a list of them; ``needed``: what to say of an empty list, which is then
    refused (a budget with no cards or no resolutions judges nothing, and passes)."""
    def check(v: Any, where: str) -> tuple:
        values = [v] if isinstance(v, str) else v
        if not isinstance(values, list):
            raise _fail(where, v, "must be a list of strings")
        if needed and not values:
            raise _fail(where, v, f"give at least one: {needed}")
        return tuple(item(x, where) for x in values)
    return check


def _bool(v: Any, where: str) -> bool:
    if not isinstance(v, bool):
        raise _fail(where, v, "must be true or false")
    return v


def _int(lo: int, hi: int) -> Check:
    def check(v: Any, where: str) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise _fail(where, v, f"must be a whole number from {lo} to {hi}")
        return v
    return check


def _bytes(v: Any, where: str) -> int:
    try:
        return parse_bytes(v)
    except ValueError as exc:
        raise _fail(where, v, str(exc).split(": ", 1)[-1]) from None


def _percent(v: Any, where: str) -> float:
    """``5``, ``5.0`` or ``"5%"`` -> 0.05."""
    text = v.strip().removesuffix("%") if isinstance(v, str) else v
    try:
        pct = float(text)
    except (TypeError, ValueError):
        raise _fail(where, v, "must be a percentage such as 5 or \"5%\"") from None
    if isinstance(v, bool) or not 0 <= pct <= 100:
        raise _fail(where, v, "must be a percentage from 0 to 100")
    return pct / 100


def _resolution(v: Any, where: str) -> str:
    try:
        w, h = parse_resolution(str(v))
    except ValueError as exc:
        raise _fail(where, v, str(exc).split(": ", 1)[-1]) from None
    return f"{w}x{h}"


def _any_table_list(v: Any, where: str) -> tuple[dict, ...]:
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise _fail(where, v, "must be an array of tables ([[...]])")
    return tuple(v)


# section -> key -> (checker, default). ``None`` default = "not set".
SCHEMA: dict[str, dict[str, tuple[Check, Any]]] = {
    "budget": {
        "cards": (_list_of(_str(), "a memory size such as 8GB, or a card `texbudget cards` lists"), ("8GB", "12GB", "16GB", "24GB")),
        "resolutions": (_list_of(_resolution, "1080p, 1440p, 4k or WxH"), ("1920x1080", "2560x1440", "3840x2160")),
        "quality": (_list_of(_str(QUALITIES), ", ".join(QUALITIES)), ("ultra",)),
        "platform": (_str(), "desktop"),
        "high_quality": (_bool, False),
        "rt": (_list_of(_str(RT_VENDORS), ", ".join(RT_VENDORS)), None),
        "renderer": (_str(RENDERERS), "deferred"),
        "upscaler": (_str(UPSCALERS), "native"),
        "shadows": (_str(SHADOWS), "csm"),
        "msaa": (_int(1, 8), 1),
        "reserve": (_percent, 0.07),
        "reserve_min": (_bytes, 768 << 20),
        "headroom": (_percent, 0.05),
        "allocation": (_str(ALLOCATIONS), "d3d12"),
        "streaming": (_bool, False),
        "streaming_pool": (_bytes, None),
        "rt_compaction": (_bool, True),
    },
    "scan": {
        "include": (_list_of(_glob), ()),
        "exclude": (_list_of(_glob), ()),
        "follow": (_str(FOLLOW), "tree"),
    },
    "limits": {
        "max_size": (_int(1, 65536), None),
        "max_bytes": (_bytes, None),
        "require_mips": (_bool, False),
        "forbid_uncompressed": (_bool, False),
        "multiple_of_4": (_bool, False),
        "power_of_two": (_bool, False),
        "max_triangles": (_int(1, 1 << 40), None),
        "max_total": (_bytes, None),
        "max_growth": (_percent, None),
        "forbid_unused": (_bool, False),
        "total": (_bool, False),
    },
    "meshes": {
        "layout": (_list_of(_str()), None),
        "skinned_copy": (_bool, False),
        "rt_lod": (_int(0, 16), 0),
    },
}
ARRAYS = {"rule": _any_table_list, "instances": _any_table_list, "level": _any_table_list}
#: The suffixes of a level's scene file (docs/levels.md): Godot scenes, Unity scenes and
#: prefabs, glTF.
LEVEL_SUFFIXES = (".tscn", ".scn", ".escn", ".unity", ".prefab", ".gltf", ".glb")


@dataclass(frozen=True)
class Config:
    """The validated configuration. ``sections`` holds every key of SCHEMA with its value or
    default; ``rules`` and ``instances`` are the raw ``[[rule]]`` / ``[[instances]]`` tables
    (validated by the modules that own them); ``path`` is where it came from (None = defaults)."""

    path: Path | None = None
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    given: frozenset[tuple[str, str]] = frozenset()  # (section, key) the file set itself
    rules: tuple[dict, ...] = ()
    instances: tuple[tuple[str, int], ...] = ()
    levels: tuple[tuple[str, str], ...] = ()  # [[level]]: (name, scene path relative to the scan root)

    def __getitem__(self, dotted: str) -> Any:
        section, key = dotted.split(".")
        return self.sections[section][key]

    @property
    def label(self) -> str:
        return self.path.name if self.path else "defaults"


def _nearest(word: str, options: list[str]) -> str:
    near = difflib.get_close_matches(word, options, n=1, cutoff=0.5)
    return f"; did you mean {near[0]!r}?" if near else f"; allowed: {', '.join(options)}"


def validate(raw: Mapping[str, Any], path: Path | None) -> Config:
    """Check every section and key of a parsed TOML document."""
    name = str(path) if path else "config"
    sections: dict[str, dict[str, Any]] = {s: {k: d for k, (_, d) in keys.items()} for s, keys in SCHEMA.items()}
    given: set[tuple[str, str]] = set()
    rules: tuple[dict, ...] = ()
    instances: list[tuple[str, int]] = []
    levels: tuple[tuple[str, str], ...] = ()
    for section, body in raw.items():
        if section in ARRAYS:
            tables = ARRAYS[section](body, f"{name}: [[{section}]]")
            if section == "rule":
                rules = tables
            elif section == "level":
                levels = _levels(tables, name)
            else:
                for i, t in enumerate(tables, 1):
                    where = f"{name}: [[instances]] #{i}"
                    _known_keys(t, ("match", "count"), where)
                    if "match" not in t or "count" not in t:
                        raise ConfigError(f"{where}: needs both 'match' (a mesh path or glob) and 'count'")
                    instances.append((_str()(t["match"], f"{where} match"), _int(0, 1 << 31)(t["count"], f"{where} count")))
            continue
        if section not in SCHEMA:
            raise ConfigError(f"{name}: unknown section [{section}]{_nearest(section, [*SCHEMA, *ARRAYS])}")
        if not isinstance(body, dict):
            raise ConfigError(f"{name}: [{section}] must be a table")
        for key, value in body.items():
            if key not in SCHEMA[section]:
                raise ConfigError(f"{name}: [{section}] unknown key {key!r}{_nearest(key, list(SCHEMA[section]))}")
            check, _ = SCHEMA[section][key]
            sections[section][key] = check(value, f"{name}: [{section}] {key}")
            given.add((section, key))
    return Config(path=path, sections=sections, given=frozenset(given), rules=rules, instances=tuple(instances), levels=levels)


def _known_keys(table: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    """A ConfigError for the first key of an array's table that is not one of ``keys``."""
    unknown = set(table) - set(keys)
    if unknown:
        key = sorted(unknown)[0]
        raise ConfigError(f"{where}: unknown key {key!r}{_nearest(key, list(keys))}")


def _levels(tables: tuple[dict, ...], name: str) -> tuple[tuple[str, str], ...]:
    """``[[level]]`` tables -> (name, scene): ``scene`` a level file's path relative to the scan
    root (required), ``name`` unique (default: the file's name without its suffix)."""
    out: dict[str, str] = {}
    for i, t in enumerate(tables, 1):
        where = f"{name}: [[level]] #{i}"
        _known_keys(t, ("name", "scene"), where)
        if "scene" not in t:
            raise ConfigError(f"{where}: needs 'scene', the level's scene file relative to the scan root "
                              f"({', '.join(LEVEL_SUFFIXES)})")
        scene = _str()(t["scene"], f"{where} scene").strip().replace("\\", "/").removeprefix("./")
        if not scene.lower().endswith(LEVEL_SUFFIXES):
            raise _fail(f"{where} scene", t["scene"], f"a level is a scene file: {', '.join(LEVEL_SUFFIXES)}")
        parts = scene.split("/")
        if scene.startswith("/") or ":" in parts[0] or ".." in parts:
            raise _fail(f"{where} scene", t["scene"], "a path relative to the scan root, inside it")
        level = _str()(t.get("name", parts[-1].rsplit(".", 1)[0]), f"{where} name").strip()
        if not level:
            raise _fail(f"{where} name", t.get("name"), "must not be empty")
        if level in out:
            raise _fail(f"{where} name", level, f"another [[level]] has that name ({out[level]}); names must differ")
        out[level] = scene
    return tuple(out.items())


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
        return validate({}, None)
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
