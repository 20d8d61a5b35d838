"""What each texture becomes on the GPU, and why (DESIGN.md §1 "decide" and "price").

``decide`` turns the facts of one texture into a ``TexturePlan``: GPU format, size after any
cap, mip chain, quality-tier mip drop, role, and ``decided_by`` — a short sentence naming the
rule, engine setting, glTF slot, file name or header that chose it. ``price`` turns a plan
into bytes with ``sizing.textures``. Both are pure; ``read_engine_import`` is the one I/O
function here (it reads the Godot ``.import`` / Unity ``.meta`` sidecar beside a texture).

Order of strength (docs/policy.md §3):

- **Stored GPU formats** (DDS, KTX/KTX2 with a real format) are kept as they are; only a rule
  can drop their top levels (``max_size``) or ignore them.
- **Basis Universal** data (KTX2 ETC1S / UASTC) gets the profile's transcode target, or a
  rule's ``format``.
- **Source images**: the role comes from a ``[[rule]]``, then the engine's import settings,
  then the glTF material slot, then the file name, then the header. The format comes from a
  rule, then the engine (what Godot / Unity would produce), then the platform profile for the
  role. The ``uncompressed`` reference profile ignores rules and engine settings.

Rules are applied like CSS or ``.gitattributes``: every rule whose ``match`` fits the path
applies in file order, and for each key the LAST matching rule that sets it wins.
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from operator import attrgetter
from pathlib import Path
from types import MappingProxyType

from msgspec.structs import fields, replace

from texbudget import formats
from texbudget.discover import glob_class
from texbudget.errors import ConfigError, UsageError
from texbudget.model import (
    COMPOSED_CONTAINER,
    Finding,
    PixelFormat,
    Record,
    TextureCost,
    TextureFacts,
    TexturePlan,
    file_of,
    is_part,
)
from texbudget.sizing import textures as sizing
from texbudget.slots import role_from_slots

# --- vocabulary --------------------------------------------------------------------------

#: Every role a texture can have. Colour roles are sampled as sRGB.
ROLES: tuple[str, ...] = ("albedo", "normal", "mask", "single", "height", "hdr", "emissive", "ui")
COLOUR_ROLES = frozenset({"albedo", "emissive", "ui"})

#: Quality tier -> top mip levels dropped (Unity's global texture mipmap limit).
QUALITY_TIERS: Mapping[str, int] = MappingProxyType({"ultra": 0, "high": 1, "medium": 2, "low": 3})

#: Keys a ``[[rule]]`` table may hold.
RULE_KEYS: tuple[str, ...] = ("match", "role", "format", "max_size", "mips", "ignore", "platform", "note")
_RULE_ACTIONS = ("role", "format", "max_size", "mips", "ignore")

#: A profile's Basis transcode targets: LDR payloads by channels, HDR ones (RGB only) by codec.
_TRANSCODE_KEYS = (*(f"{k}_{v}" for k in ("uastc", "etc1s") for v in ("rgb", "rgba", "r", "rg")),
                   "uastc_hdr_4x4", "uastc_hdr_6x6i")
#: Basis HDR pseudo-formats (formats.py) -> their transcode key.
_HDR_TRANSCODE = {"UASTC_HDR_4x4": "uastc_hdr_4x4", "UASTC_HDR_6x6i": "uastc_hdr_6x6i"}
_PROFILE_KEYS = frozenset({
    "description", "family", "reference", "godot_target", "unity_build_target", "no_mips",
    "formats", "formats_alpha", "high_quality", "high_quality_alpha", "max_size", "transcode",
})
FAMILIES = ("bc", "astc", "etc2", "uncompressed")


# --- platform profiles -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Profile:
    """One platform profile from ``data/platforms.toml`` (documented in docs/policy.md)."""

    name: str
    description: str
    family: str
    godot_target: str  # "desktop" or "mobile"
    unity_build_target: str
    formats: Mapping[str, str]
    formats_alpha: Mapping[str, str]
    high_quality: Mapping[str, str]
    high_quality_alpha: Mapping[str, str]
    transcode: Mapping[str, str]
    no_mips: frozenset[str] = frozenset()
    max_size: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    reference: bool = False

    def format_for(self, role: str, alpha: bool, high_quality: bool = False) -> str:
        """The profile's format for a role (``hdr`` sources pass role "hdr")."""
        if high_quality:
            table = self.high_quality_alpha if alpha else self.high_quality
            if role in table:
                return table[role]
        if alpha and role in self.formats_alpha:
            return self.formats_alpha[role]
        return self.formats[role]

    def cap_for(self, role: str) -> int | None:
        return self.max_size.get(role, self.max_size.get("*"))


def _profile(name: str, raw: object) -> Profile:
    where = f"platforms.toml [{name}]"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} is not a table")
    unknown = set(raw) - _PROFILE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}")

    def table(key: str, *, full: bool = False) -> Mapping[str, str]:
        body = raw.get(key, {})
        bad = set(body) - set(ROLES)
        if bad:
            raise ValueError(f"{where}.{key}: unknown role {sorted(bad)[0]!r}")
        if full and set(body) != set(ROLES):
            raise ValueError(f"{where}.{key}: missing roles {sorted(set(ROLES) - set(body))}")
        for role, fmt in body.items():
            _check_format_name(fmt, f"{where}.{key}.{role}")
        return MappingProxyType(dict(body))

    transcode = raw.get("transcode", {})
    if set(transcode) != set(_TRANSCODE_KEYS):
        raise ValueError(f"{where}.transcode: needs exactly {', '.join(_TRANSCODE_KEYS)}")
    for key, fmt in transcode.items():
        _check_format_name(fmt, f"{where}.transcode.{key}")
    caps = raw.get("max_size", {})
    for role, cap in caps.items():
        if role != "*" and role not in ROLES:
            raise ValueError(f"{where}.max_size: unknown role {role!r}")
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
            raise ValueError(f"{where}.max_size.{role}: must be a positive integer")
    no_mips = raw.get("no_mips", [])
    if any(r not in ROLES for r in no_mips):
        raise ValueError(f"{where}.no_mips: unknown role")
    family = raw.get("family")
    if family not in FAMILIES:
        raise ValueError(f"{where}.family: {family!r} is not one of {', '.join(FAMILIES)}")
    godot = raw.get("godot_target")
    if godot not in ("desktop", "mobile"):
        raise ValueError(f"{where}.godot_target: must be 'desktop' or 'mobile'")
    return Profile(
        name=name, description=str(raw.get("description", "")), family=family,
        godot_target=godot, unity_build_target=str(raw.get("unity_build_target", "Standalone")),
        formats=table("formats", full=True), formats_alpha=table("formats_alpha"),
        high_quality=table("high_quality"), high_quality_alpha=table("high_quality_alpha"),
        transcode=MappingProxyType(dict(transcode)), no_mips=frozenset(no_mips),
        max_size=MappingProxyType(dict(caps)), reference=bool(raw.get("reference", False)),
    )


def _check_format_name(name: object, where: str) -> None:
    if not isinstance(name, str):
        raise ValueError(f"{where}: format must be a string")
    fmt = formats.find(name)
    if fmt is None or fmt.name != name or fmt.transcodable:
        raise ValueError(f"{where}: {name!r} is not a canonical GPU format name")


@cache
def load_platforms() -> Mapping[str, Profile]:
    """The shipped platform profiles, by name, in file order."""
    text = resources.files("texbudget.data").joinpath("platforms.toml").read_text("utf-8")
    raw = tomllib.loads(text)
    return MappingProxyType({name: _profile(name, body) for name, body in raw.items()})


# --- settings, rules, engine sidecars ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class PolicySettings:
    """The knobs of ``decide``: platform profile, quality tier, the high-quality switch.

    ``unity_build_target`` overrides the profile's Unity platform (e.g. "iPhone")."""

    platform: str = "desktop"
    quality: str = "ultra"
    high_quality: bool = False
    unity_build_target: str | None = None

    def __post_init__(self) -> None:
        platforms = load_platforms()
        if self.platform not in platforms:
            raise UsageError(
                f"unknown platform {self.platform!r}{_did_you_mean(self.platform, list(platforms))}; "
                f"allowed: {', '.join(platforms)}"
            )
        if self.quality not in QUALITY_TIERS:
            raise UsageError(
                f"unknown quality {self.quality!r}{_did_you_mean(self.quality, list(QUALITY_TIERS))}; "
                f"allowed: {', '.join(QUALITY_TIERS)}"
            )

    @property
    def profile(self) -> Profile:
        return load_platforms()[self.platform]


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


def _did_you_mean(word: str, options: Sequence[str]) -> str:
    near = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return f" (did you mean {near[0]!r}?)" if near else ""


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


class UnityPlatform(Record, frozen=True):
    """One ``platformSettings`` entry of a Unity TextureImporter."""

    build_target: str
    max_size: int | None = None
    texture_format: int = -1  # TextureImporterFormat number, -1 = Automatic
    compression: int | None = None  # TextureImporterCompression: 0 none, 1 normal, 2 HQ, 3 LQ
    overridden: bool = False


class EngineImport(Record, frozen=True):
    """What a Godot 4 ``.import`` or Unity ``.meta`` beside a texture says. ``None`` = the key
    is absent (the engine's default applies). ``findings`` are settings texbudget did not
    understand (the profile decided those); ``settings`` are the raw pairs read, for
    ``texbudget explain``."""

    engine: str  # "godot" or "unity"
    source: str  # the sidecar's file name, e.g. "rock_n.png.import"
    importer: str  # Godot importer ("texture", "2d_array_texture", …) or Unity importer class
    # --- Godot 4 [params]
    compress_mode: int | None = None  # 0 lossless, 1 lossy, 2 VRAM compressed, 3 VRAM uncompressed, 4 Basis
    high_quality: bool | None = None
    high_quality_mode: int | None = None  # 0 automatic, 1 max quality, 2 compressed, 3 max compression
    normal_map: int | None = None  # 0 detect, 1 enable, 2 disable
    hdr_compression: int | None = None  # 0 disabled, 1 opaque only, 2 always
    channel_pack: int | None = None  # 0 sRGB friendly, 1 optimized, 2 normal map (RG)
    mipmaps: bool | None = None
    mipmap_limit: int | None = None
    size_limit: int | None = None  # 0 = none
    detect_3d: int | None = None  # detect_3d/compress_to: 0 disabled, 1 VRAM compressed, 2 Basis
    slices_horizontal: int | None = None
    slices_vertical: int | None = None
    arrangement: int | None = None  # cubemaps: 0 1x6, 1 2x3, 2 3x2, 3 6x1
    layout: int | None = None  # cubemap arrays: 0 horizontal, 1 vertical
    amount: int | None = None  # cubemap arrays: number of cubemaps
    # --- Unity TextureImporter
    texture_type: int | None = None  # 0 default, 1 normal map, 2 editor GUI, 7 cursor, 8 sprite, 10 single channel …
    texture_shape: int | None = None  # 1 2D, 2 cube, 4 2D array, 8 3D
    srgb: bool | None = None
    alpha_source: int | None = None  # 0 none, 1 from input, 2 from grey scale
    alpha_is_transparency: bool | None = None
    max_size: int | None = None  # top-level maxTextureSize (legacy default)
    compression: int | None = None  # top-level textureCompression (legacy default)
    texture_format: int | None = None  # top-level textureFormat (legacy; used only without platformSettings)
    single_channel_component: int | None = None
    ignore_mipmap_limit: bool = False
    flipbook_rows: int | None = None
    flipbook_columns: int | None = None
    generate_cubemap: int | None = None
    platforms: tuple[UnityPlatform, ...] = ()
    # --- both
    findings: tuple[Finding, ...] = ()
    settings: tuple[tuple[str, str], ...] = ()


# --- naming conventions ------------------------------------------------------------------

#: Last name token (before the extension, after dropping resolution/API tokens) -> role.
#: Case-insensitive; tokens are split on "_", "-", "." and spaces. Documented in docs/policy.md.
NAME_SUFFIXES: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("albedo", "basecolor", "basecolour", "diffuse", "diff", "col", "color",
                     "colour", "d", "alb", "albedotransparency", "maintex"), "albedo"),
    **dict.fromkeys(("normal", "normals", "nrm", "nor", "norm", "n", "nml", "normalmap",
                     "bumpmap"), "normal"),
    **dict.fromkeys(("orm", "arm", "rma", "mra", "mask", "maskmap", "metallicsmoothness",
                     "metallicroughness", "occlusionroughnessmetallic"), "mask"),
    **dict.fromkeys(("roughness", "rough", "metallic", "metal", "metalness", "ao", "occlusion",
                     "ambientocclusion", "gloss", "glossiness", "smoothness", "opacity"), "single"),
    **dict.fromkeys(("height", "disp", "displacement", "heightmap", "parallax"), "height"),
    **dict.fromkeys(("emissive", "emission", "emit", "glow"), "emissive"),
})
#: Folder names (any level, case-insensitive) that make a texture UI.
UI_FOLDERS: frozenset[str] = frozenset({"ui", "hud", "gui", "icons"})
#: Tokens skipped at the end of a name: resolutions (2k, 4096, 1024x1024), normal-map API
#: flavours (gl, dx), LOD and version marks.
_NOISE = re.compile(r"^(?:\d+k|\d+|\d+x\d+|\d+px|gl|dx|ogl|opengl|directx|lod\d+|v\d+|srgb|linear)$")

#: A name token and the separators before it.
_NAME_TOKEN = re.compile(r"([_\-. ]*)([^_\-. ]+)")


# Cached: a scene has far fewer folders than textures.
@lru_cache(maxsize=4096)
def _ui_folder(folders: str) -> str | None:
    """The first folder of a ``/``-separated folder path that makes a texture UI, or None."""
    return next((f for f in folders.split("/") if f.lower() in UI_FOLDERS), None)


#: Every digit to "0": ``role_from_name`` gives the same answer for the folded path (a
#: table for bytes: a UTF-8 path's multi-byte characters never hold an ASCII byte).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def role_from_name(path: str) -> tuple[str, str] | None:
    """(role, reason) from a UI folder, else the name's last meaningful token, or None.

    Cached on the path with every digit folded to "0", which changes no answer: every token
    with a digit is noise (``_NOISE`` matches "2k", "lod12", "v3", … whatever the digits) or
    is no role name (none has a digit), a first token of digits is no convention whatever its
    digits, and no UI folder name has a digit. So ``rock_0001_n.png`` and ``rock_0412_n.png``
    are worked out once: a scene's generated names differ mostly in their numbers. (Only
    ASCII digits are folded; a path with other digits is worked out as it is.) The key is
    the path's UTF-8 bytes, folded by a byte table: a fifth of the cost of a regular
    expression's substitution ("surrogatepass" keeps a name that was not UTF-8 on disk)."""
    return _role_from_folded(path.encode("utf-8", "surrogatepass").translate(_ZEROS))


@lru_cache(maxsize=16384)
def _role_from_folded(folded: bytes) -> tuple[str, str] | None:
    path = folded.decode("utf-8", "surrogatepass")
    folders, _, name = file_of(path).rpartition("/")
    ui = _ui_folder(folders) if folders else None
    if ui is not None:
        return "ui", f"folder '{ui}/'"
    stem = name.rsplit(".", 1)[0] if "." in name else name
    tokens = _NAME_TOKEN.findall(stem)
    for i in range(len(tokens) - 1, -1, -1):
        sep, token = tokens[i]
        low = token.lower()
        if i > 0 and _NOISE.match(low):
            continue
        if i == 0 and len(low) < 2:
            return None  # "d.png" is no convention; "albedo.png" and "rock_d.png" are
        role = NAME_SUFFIXES.get(low)
        if role is None:
            return None
        return role, f"name '{(sep[-1:] if sep else '')}{low}'"
    return None


def role_from_header(facts: TextureFacts) -> tuple[str, str]:
    if facts.hdr:
        return "hdr", "header: HDR"
    if facts.channels == 1 or (facts.grey and not facts.alpha):
        return "single", "header: one grey channel"
    if facts.alpha:
        return "albedo", "header: colour with alpha"
    return "albedo", "header: colour"


# --- the decision ------------------------------------------------------------------------


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


# Cached: a lookup in the fixed format table by name (the canonical names plans carry).
@lru_cache(maxsize=512)
def _find(name: str) -> PixelFormat | None:
    return formats.find(name)


def _fmt(name: str) -> PixelFormat:
    fmt = _find(name)
    if fmt is None:
        raise KeyError(name)
    return fmt


# Cached: the twin depends only on the name and the flag (the format table is fixed).
@lru_cache(maxsize=512)
def _srgb_twin(name: str, srgb: bool) -> str:
    return formats.with_srgb(_fmt(name), srgb).name


# Cached: a pure function of four ints.
@lru_cache(maxsize=4096)
def _cap_halving(width: int, height: int, depth: int, max_size: int | None) -> tuple[int, int, int]:
    """Dimensions after dropping top mip levels until the longest side fits (rules, profiles,
    Unity's Max Size)."""
    if not max_size:
        return width, height, depth
    full = sizing.full_mip_count(width, height, depth)
    drop = sizing.cap_levels(width, height, depth, full, max_size)
    return sizing.level_dims(width, height, depth, drop)


def _cap_scaled(width: int, height: int, max_size: int | None) -> tuple[int, int]:
    """Godot's ``process/size_limit``: the longer side becomes the limit, the other scales
    with integer division (resource_importer_texture.cpp)."""
    if not max_size or (width <= max_size and height <= max_size):
        return width, height
    if width >= height:
        return max_size, max(1, height * max_size // width)
    return max(1, width * max_size // height), max_size


@dataclass(slots=True)
class _Shape:
    width: int
    height: int
    depth: int
    layers: int
    faces: int
    note: str = ""


def _shape_of(facts: TextureFacts) -> _Shape:
    return _Shape(facts.width, facts.height, facts.depth, facts.layers, facts.faces)


def content_role(facts: TextureFacts, slots: Sequence[str] = ()) -> tuple[str, str]:
    """(role, reason) from what the texture itself tells: its glTF material slots, then its
    file name, then its header. It does not depend on settings, so a caller deciding many
    settings for one scan computes it once and passes it to ``decide``."""
    if facts.container == COMPOSED_CONTAINER:  # declared by the glTF, not by a file's header
        return "hdr", "EXT_lights_image_based radiance cubemap"
    found = _role_from_slot_tuple(tuple(slots)) if slots else None
    return found or role_from_name(facts.path) or role_from_header(facts)


# Cached: a scene's materials use a handful of slot combinations for thousands of textures.
@lru_cache(maxsize=1024)
def _role_from_slot_tuple(slots: tuple[str, ...]) -> tuple[str, str] | None:
    return role_from_slots(slots)


def decide(
    facts: TextureFacts,
    settings: PolicySettings,
    rules: Sequence[Rule] = (),
    engine: EngineImport | None = None,
    slots: Sequence[str] = (),
    own_role: tuple[str, str] | None = None,
    *,
    applied: _Applied | None = None,
    alpha_unused: str | None = None,
) -> TexturePlan:
    """What ``facts`` becomes on the GPU under ``settings``, and why. ``own_role`` is
    ``content_role(facts, slots)`` when the caller has it already (None: found here);
    ``applied`` the rules' cascade on this path (``decide_all`` has it; None: found here);
    ``alpha_unused``: why no use reads the image's alpha (``slots.alpha_unread``), which makes
    a source image with alpha opaque for the platform profile's format."""
    if own_role is None:
        own_role = content_role(facts, slots)
    if facts.stored_format and not facts.transcodable:
        stored = _find(facts.stored_format)
        if stored is not None and stored.transcodable:  # a reader that names ETC1S/UASTC as stored
            facts = replace(facts, stored_format=None, transcodable=stored.name)
    profile = settings.profile
    if profile.reference:
        return _decide_reference(facts, settings, own_role)
    if applied is None:
        applied = _cascade(facts.path, rules, settings.platform)
    role, role_reason = _infer_role(applied, engine, own_role)
    tier = QUALITY_TIERS[settings.quality]
    if facts.stored_format and not facts.transcodable:
        plan = _decide_stored(facts, role, applied, tier, engine)
    elif facts.transcodable:
        plan = _decide_transcoded(facts, settings, role, role_reason, applied, tier, engine)
    else:
        plan = _decide_source(facts, settings, role, role_reason, applied, engine, slots, alpha_unused)
    ignore = applied.get("ignore")
    if ignore is not None and ignore[0]:
        plan = replace(plan, ignored=True, decided_by=f"{ignore[1].where}: ignore; {plan.decided_by}")
    return plan


#: The facts a decision reads, all but the texture's path and file size (``_facts_key``).
_DECISION_FACTS = tuple(f.name for f in fields(TextureFacts) if f.name not in ("path", "disk_bytes"))
_facts_key = attrgetter(*_DECISION_FACTS)


def decide_all(
    textures: Sequence[TextureFacts],
    settings: PolicySettings,
    rules: Sequence[Rule],
    engines: Mapping[str, EngineImport],
    slots: Mapping[str, Sequence[str]],
    own_roles: Sequence[tuple[str, str]],
    model: str = "d3d12",
    alpha_unused: Mapping[str, str] = MappingProxyType({}),
) -> tuple[TextureCost, ...]:
    """``price(decide(...))`` of every texture of a scan (``own_roles``: ``content_role`` of
    each; ``alpha_unused``: path -> why its alpha is read by no use). Textures that no rule and no engine sidecar touch and that agree in every fact
    but their path and file size are decided alike: the plan is made and priced once and
    copied with each one's path (a scene has thousands of textures and a few hundred kinds;
    a settings switch in the TUI decides them all again)."""
    memo: dict[tuple, TextureCost] = {}
    out: list[TextureCost] = []
    platform = settings.platform
    for facts, own_role in zip(textures, own_roles, strict=True):
        path = facts.path
        engine = engines.get(path) if engines else None
        on = slots.get(path, ())
        unused = alpha_unused.get(path) if alpha_unused else None
        applied = _cascade(path, rules, platform) if rules else _NO_RULES
        if engine is not None or applied.values:
            out.append(price(decide(facts, settings, rules, engine, on, own_role, applied=applied, alpha_unused=unused), model))
            continue
        key = (_facts_key(facts), on if type(on) is tuple else tuple(on), own_role, unused)
        cost = memo.get(key)
        if cost is None:
            cost = memo[key] = price(decide(facts, settings, (), None, on, own_role, alpha_unused=unused), model)
            out.append(cost)
            continue
        out.append(replace(cost, plan=replace(cost.plan, path=path)))
    return tuple(out)


# The plans' ``decided_by`` texts are interned (``sys.intern``): textures decided alike share
# one string (a scan of 85,000 textures has a few hundred distinct texts, not 85,000 copies).


def _tier(levels: int, role: str, drop: int, engine: EngineImport | None) -> tuple[int, str]:
    """(top levels the quality tier drops, a note for ``decided_by``): ``drop`` but keeping
    the last level; none for one-level or UI textures, nor when a Unity .meta says the
    texture ignores the mipmap limit."""
    if levels <= 1 or role == "ui" or drop == 0:
        return 0, ""
    if engine is not None and engine.ignore_mipmap_limit:
        return 0, "; Unity .meta: ignores the mipmap limit"
    return min(drop, levels - 1), ""


def _infer_role(applied: _Applied, engine: EngineImport | None, own_role: tuple[str, str]) -> tuple[str, str]:
    """A rule's role, else the engine's, else the texture's own (slot, name, header)."""
    rule = applied.get("role")
    if rule is not None:
        return str(rule[0]), f"{rule[1].where}: role {rule[0]}"
    if engine is not None:
        found = _engine_role(engine)
        if found is not None:
            return found
    return own_role


_UNITY_TYPES = {1: ("normal", "Normal map"), 2: ("ui", "Editor GUI"), 7: ("ui", "Cursor"),
                8: ("ui", "Sprite"), 10: ("single", "Single Channel")}


def _engine_role(engine: EngineImport) -> tuple[str, str] | None:
    if engine.engine == "godot":
        if engine.normal_map == 1 or engine.channel_pack == 2:
            return "normal", "Godot .import: normal map"
        return None
    if engine.texture_type in _UNITY_TYPES:
        role, name = _UNITY_TYPES[engine.texture_type]
        return role, f"Unity .meta: texture type {name}"
    return None


def _is_colour(role: str, srgb_hint: bool | None) -> bool:
    return srgb_hint if srgb_hint is not None else role in COLOUR_ROLES


def _decide_reference(facts: TextureFacts, settings: PolicySettings, own_role: tuple[str, str]) -> TexturePlan:
    """``uncompressed``: RGBA8 (RGBA16F for HDR data), full chain — glTF-Transform's gpuSize.
    Rules, engine sidecars and the quality tier are ignored; stored formats are still kept."""
    profile = settings.profile
    role = own_role[0]
    if facts.stored_format and not facts.transcodable:
        return _decide_stored(facts, role, _Applied())
    if facts.transcodable:
        return _decide_transcoded(facts, settings, role, "", _Applied())
    key = "hdr" if facts.hdr else role
    fmt = profile.format_for(key, facts.alpha)
    levels = sizing.full_mip_count(facts.width, facts.height, facts.depth)
    mips, chain = "generated", "full mip chain (as glTF-Transform inspect)"
    if facts.container == COMPOSED_CONTAINER:
        levels, mips = _listed_levels(facts, facts.width), "stored"
        chain = f"{levels} level{'s' if levels != 1 else ''} as EXT_lights_image_based lists them"
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=facts.width, height=facts.height, depth=facts.depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=f"uncompressed reference: {fmt}, {chain}; rules and engine settings ignored",
        streamed=levels > 1 and role != "ui",
    )


def _listed_levels(facts: TextureFacts, width: int) -> int:
    """The levels an EXT_lights_image_based cubemap lists (Babylon.js and Wicked Engine
    allocate exactly those; the last is the most blurred, roughness 1), less those a cap
    dropped to bring the top size to ``width`` (at least one)."""
    dropped = (facts.width // width).bit_length() - 1 if width < facts.width else 0
    return max(1, facts.stored_levels - dropped)


def _decide_stored(facts: TextureFacts, role: str, applied: _Applied, tier: int = 0,
                   engine: EngineImport | None = None) -> TexturePlan:
    fmt = facts.stored_format or "R8G8B8A8_UNORM"
    if facts.mips_generate:
        levels = sizing.full_mip_count(facts.width, facts.height, facts.depth)
        mips, reason = "generated", f"stored format {fmt}, mips generated at load (levelCount 0)"
    else:
        levels, mips, reason = max(1, facts.stored_levels), "stored", f"stored format {fmt}"
    width, height, depth = facts.width, facts.height, facts.depth
    cap = applied.get("max_size")
    max_size = None
    if cap is not None:
        max_size = int(cap[0])  # type: ignore[call-overload]
        drop = sizing.cap_levels(width, height, depth, levels, max_size)
        if drop:
            width, height, depth = sizing.level_dims(width, height, depth, drop)
            levels -= drop
            reason += f"; {cap[1].where}: max_size {max_size} drops {drop} stored level{'s' if drop > 1 else ''}"
        elif max(width, height, depth) > max_size:
            reason += f"; {cap[1].where}: max_size {max_size} cannot apply (only {levels} stored level)"
    for key in ("format", "mips"):
        hit = applied.get(key)
        if hit is not None:
            reason += f"; {hit[1].where}: {key} ignored (the file stores {fmt})"
    tier_drop, note = _tier(levels, role, tier, engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=sys.intern(reason + note), tier_drop=tier_drop, max_size=max_size,
        streamed=levels > 1 and role != "ui",
    )


def _decide_transcoded(
    facts: TextureFacts, settings: PolicySettings, role: str, role_reason: str, applied: _Applied,
    tier: int = 0, engine: EngineImport | None = None,
) -> TexturePlan:
    profile = settings.profile
    srgb = facts.color_space == "srgb" if facts.color_space else role in COLOUR_ROLES
    rule_fmt = applied.get("format")
    if rule_fmt is not None:
        fmt = _rule_format(rule_fmt, role, srgb)
        reason = f"{rule_fmt[1].where}: format {fmt} (transcode target for {facts.transcodable})"
    else:
        fmt = _srgb_twin(profile.transcode[_transcode_key(facts)], srgb)
        reason = f"{facts.transcodable} → {fmt} ({settings.platform} transcode target)"
    if facts.mips_generate:
        levels, mips = sizing.full_mip_count(facts.width, facts.height, facts.depth), "generated"
    else:
        levels, mips = max(1, facts.stored_levels), "stored"
    width, height, depth = facts.width, facts.height, facts.depth
    max_size = None
    cap = applied.get("max_size")
    if cap is not None:
        max_size = int(cap[0])  # type: ignore[call-overload]
        drop = sizing.cap_levels(width, height, depth, levels, max_size)
        if drop:
            width, height, depth = sizing.level_dims(width, height, depth, drop)
            levels -= drop
            reason += f"; {cap[1].where}: max_size {max_size}"
    tier_drop, note = _tier(levels, role, tier, engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=facts.layers, faces=facts.faces, levels=levels, mips=mips, role=role,
        decided_by=sys.intern(reason + note), tier_drop=tier_drop, max_size=max_size,
        streamed=levels > 1 and role != "ui",
    )


def _transcode_key(facts: TextureFacts) -> str:
    """The profile's ``[transcode]`` key for a Basis payload: the HDR codec (UASTC HDR is RGB
    only), or the LDR codec and the channels the DFD gives (an unknown name counts as ETC1S)."""
    name = facts.transcodable or "ETC1S"
    if name in _HDR_TRANSCODE:
        return _HDR_TRANSCODE[name]
    kind = name.lower() if name in ("ETC1S", "UASTC") else "etc1s"
    variant = "r" if facts.channels == 1 else "rg" if facts.channels == 2 else "rgba" if facts.alpha else "rgb"
    return f"{kind}_{variant}"


def _rule_format(hit: tuple[object, Rule], role: str, srgb: bool | None = None) -> str:
    name = str(hit[0])
    if hit[1].format_exact:
        return name
    return _srgb_twin(name, role in COLOUR_ROLES if srgb is None else srgb)


@dataclass(slots=True)
class _EngineChoice:
    fmt: str | None = None  # None = the profile decides
    mips: bool | None = None
    max_size: int | None = None
    cap_mode: str = "halve"  # "halve" (mip drop) or "scale" (Godot's proportional resize)
    reason: str = ""
    shape: _Shape | None = None
    ignored: bool = False


#: No engine sidecar: the profile decides (shared; nothing writes to a choice once made).
_NO_ENGINE = _EngineChoice()


def _decide_source(
    facts: TextureFacts, settings: PolicySettings, role: str, role_reason: str,
    applied: _Applied, engine: EngineImport | None, slots: Sequence[str], alpha_unused: str | None = None,
) -> TexturePlan:
    profile = settings.profile
    choice = _NO_ENGINE
    if engine is not None:
        if engine.engine == "godot":
            choice = _godot_choice(engine, facts, role, profile.godot_target, slots)
        elif engine.engine == "unity":
            target = settings.unity_build_target or profile.unity_build_target
            choice = _unity_choice(engine, facts, role, target, profile.family)
    shape = choice.shape or _shape_of(facts)
    alpha = facts.alpha and alpha_unused is None
    srgb_hint = engine.srgb if engine is not None and engine.engine == "unity" else None
    colour = _is_colour(role, srgb_hint)
    parts: list[str] = []

    # format: rule > engine > profile
    rule_fmt = applied.get("format")
    if rule_fmt is not None:
        fmt = _rule_format(rule_fmt, role, colour)
        parts.append(f"{role_reason} → {role}; {rule_fmt[1].where}: format {fmt}")
    elif choice.fmt is not None:
        fmt = choice.fmt
        if not role_reason.startswith(("Godot", "Unity", "header")):
            parts.append(role_reason)  # a slot or name that told the engine's mapping the role
        parts.append(choice.reason)
    else:
        key = "hdr" if facts.hdr or role == "hdr" else role
        base = profile.format_for(key, alpha, settings.high_quality)
        fmt = base if key == "hdr" else _srgb_twin(base, colour)
        hq = " high quality" if settings.high_quality and base != profile.format_for(key, alpha) else ""
        shown = role if key == role else f"{role}, HDR data"
        parts.append(f"{role_reason} → {shown} → {fmt} ({settings.platform}{hq})")
        if alpha_unused is not None and facts.alpha and base != profile.format_for(key, True, settings.high_quality):
            parts.append(alpha_unused)
        if choice.reason:
            parts.append(choice.reason)

    # mips: rule > engine > profile
    rule_mips = applied.get("mips")
    if rule_mips is not None:
        mips_on = bool(rule_mips[0])
        parts.append(f"{rule_mips[1].where}: mips {'on' if mips_on else 'off'}")
    elif choice.mips is not None:
        mips_on = choice.mips
    else:
        mips_on = role not in profile.no_mips
        if not mips_on:
            parts.append(f"no mips ({role})")

    # size cap: rule > engine > profile
    rule_cap = applied.get("max_size")
    cap_mode = "halve"
    if rule_cap is not None:
        max_size: int | None = int(rule_cap[0])  # type: ignore[call-overload]
        parts.append(f"{rule_cap[1].where}: max_size {max_size}")
    elif choice.max_size:
        max_size, cap_mode = choice.max_size, choice.cap_mode
    else:
        max_size = profile.cap_for(role)
        if max_size and max(shape.width, shape.height, shape.depth) > max_size:
            parts.append(f"{settings.platform} max_size {max_size}")
    if cap_mode == "scale":
        width, height = _cap_scaled(shape.width, shape.height, max_size)
        depth = shape.depth
    else:
        width, height, depth = _cap_halving(shape.width, shape.height, shape.depth, max_size)
    if shape.note:
        parts.append(shape.note)

    levels = sizing.full_mip_count(width, height, depth) if mips_on else 1
    mips = "generated" if mips_on else "none"
    if mips_on and facts.container == COMPOSED_CONTAINER:
        levels, mips = _listed_levels(facts, width), "stored"
        parts.append(f"{levels} level{'s' if levels != 1 else ''} as EXT_lights_image_based lists them")
    tier_drop, note = _tier(levels, role, QUALITY_TIERS[settings.quality], engine)
    return TexturePlan(
        path=facts.path, gpu_format=fmt, width=width, height=height, depth=depth,
        layers=shape.layers, faces=shape.faces, levels=levels,
        mips=mips, role=role,
        decided_by=sys.intern("; ".join(filter(None, parts)) + note), tier_drop=tier_drop,
        max_size=max_size, ignored=choice.ignored, streamed=mips_on and role != "ui",
    )


# --- Godot 4 -----------------------------------------------------------------------------

GODOT_MODES: Mapping[int, str] = MappingProxyType({
    0: "lossless", 1: "lossy", 2: "VRAM compressed", 3: "VRAM uncompressed", 4: "Basis Universal",
})
#: Godot importer -> (defaults for compress/mode, mipmaps/generate)
GODOT_IMPORTERS: Mapping[str, tuple[int, bool]] = MappingProxyType({
    "texture": (0, False), "2d_array_texture": (1, True), "3d_texture": (1, True),
    "cubemap_texture": (1, True), "cubemap_array_texture": (1, True),
})
GODOT_ARRANGEMENTS: Mapping[int, tuple[int, int]] = MappingProxyType({0: (1, 6), 1: (2, 3), 2: (3, 2), 3: (6, 1)})


def _godot_channels(facts: TextureFacts, normal: bool) -> str:
    """Godot's ``Image::UsedChannels`` as far as the header tells it: L, LA, RG, RGB, RGBA."""
    if normal:
        return "RG"
    if facts.channels <= 2 or facts.grey:
        return "LA" if facts.alpha else "L"
    return "RGBA" if facts.alpha else "RGB"


def _godot_uncompressed(facts: TextureFacts, colour: bool) -> str:
    """The GPU format of an image Godot keeps uncompressed (lossless, lossy, VRAM uncompressed):
    L8 → R8, LA8 → RG8, RGB8/RGBA8 → RGBA8 (RGB8 is expanded on upload), Radiance HDR →
    RGBE9995, other float images → RGBA half or float (16-bit PNGs load as 8-bit)."""
    if facts.hdr:
        if facts.container == "hdr":
            return "E5B9G9R9_UFLOAT"
        return "R32G32B32A32_SFLOAT" if facts.bit_depth >= 32 else "R16G16B16A16_SFLOAT"
    if facts.channels == 1:
        return "R8_UNORM"
    if facts.channels == 2:
        return "R8G8_UNORM"
    return "R8G8B8A8_SRGB" if colour else "R8G8B8A8_UNORM"


_GODOT_ASTC_MODES = {1: "4x4", 2: "6x6", 3: "8x8"}


def _godot_vram(facts: TextureFacts, engine: EngineImport, target: str, normal: bool, colour: bool) -> tuple[str, str]:
    """(format, words) for VRAM compressed on ``target`` (resource_importer_texture.cpp):
    high quality or HDR → BPTC (BC7 / BC6H) on desktop, ASTC on mobile; otherwise S3TC
    (BC1 opaque, BC3 alpha, BC5 normal) on desktop, ETC2 on mobile."""
    hq = bool(engine.high_quality)
    if facts.hdr:
        hdr_mode = 1 if engine.hdr_compression is None else engine.hdr_compression
        if hdr_mode == 0:
            return "E5B9G9R9_UFLOAT", "HDR compression disabled"
        if facts.alpha and hdr_mode == 1:
            return "E5B9G9R9_UFLOAT", "HDR with alpha (opaque only)"
        fmt = "BC6H_UFLOAT" if target == "desktop" else "ASTC_4x4_SFLOAT"
        return fmt, "HDR" + (", alpha dropped" if facts.alpha else "")
    channels = _godot_channels(facts, normal)
    words = ", normal map" if normal else ""
    if target == "desktop":
        if hq:
            return _srgb_twin("BC7_UNORM", colour), f"high quality{words}"
        fmt = {"RG": "BC5_UNORM", "L": "BC1_RGB_UNORM", "RGB": "BC1_RGB_UNORM",
               "LA": "BC3_UNORM", "RGBA": "BC3_UNORM"}[channels]
        return (fmt if channels == "RG" else _srgb_twin(fmt, colour)), words.lstrip(", ")
    if hq:
        mode = engine.high_quality_mode or 0
        block = _GODOT_ASTC_MODES.get(mode) or {"L": "8x8", "LA": "6x6", "RG": "6x6"}.get(channels, "4x4")
        fmt = f"ASTC_{block}_UNORM"
        return (_srgb_twin(fmt, colour) if not normal else fmt), f"high quality{words}"
    fmt = {"RG": "EAC_R11G11_UNORM", "L": "ETC2_R8G8B8_UNORM", "RGB": "ETC2_R8G8B8_UNORM",
           "LA": "ETC2_R8G8B8A8_UNORM", "RGBA": "ETC2_R8G8B8A8_UNORM"}[channels]
    return (fmt if channels == "RG" else _srgb_twin(fmt, colour)), words.lstrip(", ")


def _godot_shape(engine: EngineImport, facts: TextureFacts) -> _Shape | None:
    importer = engine.importer
    if importer == "texture":
        return None
    if importer in ("2d_array_texture", "3d_texture"):
        h = engine.slices_horizontal or 8
        v = engine.slices_vertical or 8
    else:
        h, v = GODOT_ARRANGEMENTS.get(engine.arrangement if engine.arrangement is not None else 1, (2, 3))
        if importer == "cubemap_array_texture":
            amount = max(1, engine.amount or 1)
            if (engine.layout if engine.layout is not None else 1) == 0:
                h *= amount
            else:
                v *= amount
    sw, sh = facts.width // h, facts.height // v
    if sw < 1 or sh < 1:
        return _Shape(facts.width, facts.height, 1, 1, 1,
                      note=f"Godot .import: {h}x{v} slices do not fit a {facts.width}x{facts.height} image; read as 2D")
    if importer == "2d_array_texture":
        return _Shape(sw, sh, 1, h * v, 1, note=f"Godot 2D array: {h}x{v} slices of {sw}x{sh}")
    if importer == "3d_texture":
        return _Shape(sw, sh, h * v, 1, 1, note=f"Godot 3D texture: {h * v} slices of {sw}x{sh}")
    if importer == "cubemap_texture":
        return _Shape(sw, sh, 1, 1, 6, note=f"Godot cubemap: {h}x{v} faces of {sw}x{sh}")
    return _Shape(sw, sh, 1, max(1, (h * v) // 6), 6, note=f"Godot cubemap array: {(h * v) // 6} cubes of {sw}x{sh}")


def _godot_choice(engine: EngineImport, facts: TextureFacts, role: str, target: str, slots: Sequence[str]) -> _EngineChoice:
    if engine.importer == "skip":
        return _EngineChoice(reason="Godot .import: importer skip (not imported)", ignored=True)
    if engine.importer not in GODOT_IMPORTERS:
        return _EngineChoice()
    default_mode, default_mips = GODOT_IMPORTERS[engine.importer]
    mode = default_mode if engine.compress_mode is None else engine.compress_mode
    mips = default_mips if engine.mipmaps is None else engine.mipmaps
    words = GODOT_MODES.get(mode, f"compress/mode {mode}")
    detect = (engine.detect_3d or 0) if engine.importer == "texture" else 0
    if detect and slots:
        # Godot rewrites the .import the first time a 3D material uses the texture
        # (ResourceImporterTexture::update_imports): compress/mode and mipmaps/generate.
        new_mode = 2 if detect == 1 else 4
        if new_mode != mode:
            words = f"{words}, used in 3D → {GODOT_MODES[new_mode]} (detect_3d)"
        elif not mips:
            words = f"{words}, used in 3D → mipmaps (detect_3d)"
        mode, mips = new_mode, True
    normal = engine.normal_map == 1 or engine.channel_pack == 2 or (engine.normal_map in (None, 0) and role == "normal")
    if engine.normal_map == 2:
        normal = False
    colour = role in COLOUR_ROLES
    if mode in (0, 1, 3):
        fmt = _godot_uncompressed(facts, colour)
        detail = ""
    elif mode == 2:
        fmt, detail = _godot_vram(facts, engine, target, normal, colour)
        if normal and engine.normal_map in (None, 0) and "normal" in detail:
            detail = detail.replace("normal map", "normal map (detected)")
    else:  # Basis Universal: transcoded at load — BC7 on desktop, ASTC 4x4 on mobile
        fmt = _srgb_twin("BC7_UNORM" if target == "desktop" else "ASTC_4x4_UNORM", colour)
        detail = f"transcoded for {target}"
    reason = f"Godot .import: {words}" + (f", {detail}" if detail else "") + f" → {fmt}"
    if not mips:
        reason += ", no mipmaps"
    size_limit = engine.size_limit if engine.importer == "texture" and engine.size_limit else None
    if size_limit and max(facts.width, facts.height) > size_limit:
        reason += f", size_limit {size_limit}"
    if engine.mipmap_limit not in (None, -1):
        reason += " (mipmaps/limit has no effect in Godot 4)"
    return _EngineChoice(fmt=fmt, mips=mips, max_size=size_limit, cap_mode="scale", reason=reason,
                         shape=_godot_shape(engine, facts))


# --- Unity -------------------------------------------------------------------------------

#: TextureImporterFormat number -> (canonical format, Unity name). Source: UnityCsReference
#: Editor/Mono/AssetPipeline/TextureImporterEnums.cs. RGB24 / RGB48 are expanded to four
#: channels on the GPU (spec/textures.md §1.2); crunched formats are DXT/ETC on the GPU.
UNITY_FORMATS: Mapping[int, tuple[str, str]] = MappingProxyType({
    1: ("R8_UNORM", "Alpha8"),
    2: ("R4G4B4A4_UNORM", "ARGB16"),
    3: ("R8G8B8A8_UNORM", "RGB24"),
    4: ("R8G8B8A8_UNORM", "RGBA32"),
    5: ("B8G8R8A8_UNORM", "ARGB32"),
    7: ("R5G6B5_UNORM", "RGB16"),
    9: ("R16_UNORM", "R16"),
    10: ("BC1_RGB_UNORM", "DXT1"),
    12: ("BC3_UNORM", "DXT5"),
    13: ("R4G4B4A4_UNORM", "RGBA16"),
    15: ("R16_SFLOAT", "RHalf"),
    16: ("R16G16_SFLOAT", "RGHalf"),
    17: ("R16G16B16A16_SFLOAT", "RGBAHalf"),
    18: ("R32_SFLOAT", "RFloat"),
    19: ("R32G32_SFLOAT", "RGFloat"),
    20: ("R32G32B32A32_SFLOAT", "RGBAFloat"),
    22: ("E5B9G9R9_UFLOAT", "RGB9E5"),
    24: ("BC6H_UFLOAT", "BC6H"),
    25: ("BC7_UNORM", "BC7"),
    26: ("BC4_UNORM", "BC4"),
    27: ("BC5_UNORM", "BC5"),
    28: ("BC1_RGB_UNORM", "DXT1Crunched"),
    29: ("BC3_UNORM", "DXT5Crunched"),
    30: ("PVRTC1_2BPP_UNORM", "PVRTC_RGB2"),
    31: ("PVRTC1_2BPP_UNORM", "PVRTC_RGBA2"),
    32: ("PVRTC1_4BPP_UNORM", "PVRTC_RGB4"),
    33: ("PVRTC1_4BPP_UNORM", "PVRTC_RGBA4"),
    34: ("ETC1_R8G8B8_UNORM", "ETC_RGB4"),
    35: ("ETC1_R8G8B8_UNORM", "ATC_RGB4 (obsolete, now ETC_RGB4)"),
    36: ("ETC2_R8G8B8A8_UNORM", "ATC_RGBA8 (obsolete, now ETC2_RGBA8)"),
    41: ("EAC_R11_UNORM", "EAC_R"),
    42: ("EAC_R11_SNORM", "EAC_R_SIGNED"),
    43: ("EAC_R11G11_UNORM", "EAC_RG"),
    44: ("EAC_R11G11_SNORM", "EAC_RG_SIGNED"),
    45: ("ETC2_R8G8B8_UNORM", "ETC2_RGB4"),
    46: ("ETC2_R8G8B8A1_UNORM", "ETC2_RGB4_PUNCHTHROUGH_ALPHA"),
    47: ("ETC2_R8G8B8A8_UNORM", "ETC2_RGBA8"),
    48: ("ASTC_4x4_UNORM", "ASTC_4x4"),
    49: ("ASTC_5x5_UNORM", "ASTC_5x5"),
    50: ("ASTC_6x6_UNORM", "ASTC_6x6"),
    51: ("ASTC_8x8_UNORM", "ASTC_8x8"),
    52: ("ASTC_10x10_UNORM", "ASTC_10x10"),
    53: ("ASTC_12x12_UNORM", "ASTC_12x12"),
    54: ("ASTC_4x4_UNORM", "ASTC_RGBA_4x4 (obsolete)"),
    55: ("ASTC_5x5_UNORM", "ASTC_RGBA_5x5 (obsolete)"),
    56: ("ASTC_6x6_UNORM", "ASTC_RGBA_6x6 (obsolete)"),
    57: ("ASTC_8x8_UNORM", "ASTC_RGBA_8x8 (obsolete)"),
    58: ("ASTC_10x10_UNORM", "ASTC_RGBA_10x10 (obsolete)"),
    59: ("ASTC_12x12_UNORM", "ASTC_RGBA_12x12 (obsolete)"),
    62: ("R8G8_UNORM", "RG16"),
    63: ("R8_UNORM", "R8"),
    64: ("ETC1_R8G8B8_UNORM", "ETC_RGB4Crunched"),
    65: ("ETC2_R8G8B8A8_UNORM", "ETC2_RGBA8Crunched"),
    66: ("ASTC_4x4_SFLOAT", "ASTC_HDR_4x4"),
    67: ("ASTC_5x5_SFLOAT", "ASTC_HDR_5x5"),
    68: ("ASTC_6x6_SFLOAT", "ASTC_HDR_6x6"),
    69: ("ASTC_8x8_SFLOAT", "ASTC_HDR_8x8"),
    70: ("ASTC_10x10_SFLOAT", "ASTC_HDR_10x10"),
    71: ("ASTC_12x12_SFLOAT", "ASTC_HDR_12x12"),
    72: ("R16G16_UNORM", "RG32"),
    73: ("R16G16B16A16_UNORM", "RGB48"),
    74: ("R16G16B16A16_UNORM", "RGBA64"),
})
#: Negative TextureImporterFormat values: Automatic (-1) and the obsolete automatic variants.
UNITY_AUTOMATIC = frozenset({-1, -2, -3, -5, -6, -7})
UNITY_COMPRESSION: Mapping[int, str] = MappingProxyType({0: "None", 1: "Normal Quality", 2: "High Quality", 3: "Low Quality"})
UNITY_SHAPES: Mapping[int, str] = MappingProxyType({1: "2D", 2: "Cube", 4: "2D Array", 8: "3D"})
_UNITY_KINDS = {"rgb": "RGB", "rgba": "RGBA", "hdr": "HDR", "normal": "normal map", "single": "single channel"}
_UNITY_TARGET_ALIASES = {"iPhone": ("iPhone", "iOS"), "iOS": ("iPhone", "iOS")}


def unity_automatic(family: str, compression: int, kind: str, colour: bool) -> str:
    """Unity's Automatic format (manual "Texture formats reference", default formats per
    platform) for ``kind`` in {"rgb", "rgba", "normal", "single", "hdr"}."""
    if compression == 0:
        fmt = {"hdr": "R16G16B16A16_SFLOAT", "single": "R8_UNORM", "normal": "R8G8B8A8_UNORM"}.get(kind, "R8G8B8A8_UNORM")
    elif family == "astc":
        block = {1: "6x6", 2: "4x4", 3: "8x8"}.get(compression, "6x6")
        fmt = {"hdr": f"ASTC_{block}_SFLOAT", "single": "EAC_R11_UNORM"}.get(kind, f"ASTC_{block}_UNORM")
    elif family == "etc2":
        fmt = {"hdr": "R16G16B16A16_SFLOAT", "single": "EAC_R11_UNORM", "normal": "ETC2_R8G8B8_UNORM",
               "rgba": "ETC2_R8G8B8A8_UNORM"}.get(kind, "ETC2_R8G8B8_UNORM")
    elif compression == 2:
        fmt = {"hdr": "BC6H_UFLOAT", "single": "BC4_UNORM", "normal": "BC5_UNORM"}.get(kind, "BC7_UNORM")
    else:
        fmt = {"hdr": "BC6H_UFLOAT", "single": "BC4_UNORM", "normal": "BC3_UNORM",
               "rgba": "BC3_UNORM"}.get(kind, "BC1_RGB_UNORM")
    return _srgb_twin(fmt, colour) if kind in ("rgb", "rgba") else fmt


def _unity_entry(engine: EngineImport, target: str) -> tuple[UnityPlatform | None, str]:
    names = _UNITY_TARGET_ALIASES.get(target, (target,))
    for entry in engine.platforms:
        if entry.build_target in names and entry.overridden:
            return entry, f"{entry.build_target} override"
    for entry in engine.platforms:
        if entry.build_target == "DefaultTexturePlatform":
            return entry, "Default"
    return None, "TextureImporter"


def _unity_shape(engine: EngineImport, facts: TextureFacts) -> _Shape | None:
    shape = engine.texture_shape or 1
    w, h = facts.width, facts.height
    if shape in (4, 8):
        cols, rows = max(1, engine.flipbook_columns or 1), max(1, engine.flipbook_rows or 1)
        sw, sh = w // cols, h // rows
        if sw < 1 or sh < 1:
            return None
        n = cols * rows
        if shape == 4:
            return _Shape(sw, sh, 1, n, 1, note=f"Unity 2D array: {cols}x{rows} flipbook of {sw}x{sh}")
        return _Shape(sw, sh, n, 1, 1, note=f"Unity 3D texture: {n} slices of {sw}x{sh}")
    if shape == 2:
        if w == 6 * h:
            face, layout = h, "6x1 strip"
        elif h == 6 * w:
            face, layout = w, "1x6 strip"
        elif 3 * w == 4 * h:
            face, layout = w // 4, "4x3 cross"
        elif 4 * w == 3 * h:
            face, layout = w // 3, "3x4 cross"
        else:
            face, layout = max(1, w // 4), "panorama; face size estimated as width/4"
        return _Shape(face, face, 1, 1, 6, note=f"Unity cubemap ({layout}): faces {face}x{face}")
    return None


def _unity_choice(engine: EngineImport, facts: TextureFacts, role: str, target: str, family: str) -> _EngineChoice:
    if engine.importer != "TextureImporter":
        return _EngineChoice()
    entry, which = _unity_entry(engine, target)
    colour = engine.srgb if engine.srgb is not None else role in COLOUR_ROLES
    if engine.alpha_source == 0:
        alpha = False
    elif engine.alpha_source == 2:
        alpha = True
    else:
        alpha = facts.alpha
    max_size = entry.max_size if entry and entry.max_size else engine.max_size
    mips = engine.mipmaps if engine.mipmaps is not None else True
    code = entry.texture_format if entry is not None else (engine.texture_format if engine.texture_format is not None else -1)
    compression = entry.compression if entry and entry.compression is not None else engine.compression
    compression = 1 if compression is None else compression
    if code not in UNITY_AUTOMATIC and code in UNITY_FORMATS:
        name, unity_name = UNITY_FORMATS[code]
        fmt = _srgb_twin(name, colour)
        reason = f"Unity .meta ({which}): format {unity_name} → {fmt}"
    else:
        if code == -3:  # obsolete AutomaticTruecolor: uncompressed
            compression = 0
        if facts.hdr:
            kind = "hdr"
        elif engine.texture_type == 1:
            kind = "normal"
        elif engine.texture_type == 10:
            kind = "single"
        else:
            kind = "rgba" if alpha else "rgb"
        fmt = unity_automatic("bc" if family == "uncompressed" else family, compression, kind, colour)
        words = UNITY_COMPRESSION.get(compression, f"compression {compression}")
        reason = f"Unity .meta ({which}): Automatic, {words}, {_UNITY_KINDS[kind]} → {fmt}"
    if not mips:
        reason += ", no mipmaps"
    if max_size and max(facts.width, facts.height) > max_size:
        reason += f", Max Size {max_size}"
    return _EngineChoice(fmt=fmt, mips=mips, max_size=max_size, cap_mode="scale", reason=reason,
                         shape=_unity_shape(engine, facts))


# --- price -------------------------------------------------------------------------------


def price(plan: TexturePlan, model: str = "d3d12") -> TextureCost:
    """Bytes of a plan: each mip level after the tier drop (every face and layer), their sum,
    and the allocation model's rounding. An ignored plan costs nothing."""
    if plan.ignored:
        return TextureCost(plan=plan, mips=(), gpu_bytes=0, allocated_bytes=0)
    mips, content, allocated = sizing.chain_cost(
        _fmt(plan.gpu_format), plan.width, plan.height, plan.depth, plan.levels,
        plan.faces, plan.layers, plan.tier_drop, model,
    )
    return TextureCost(plan=plan, mips=mips, gpu_bytes=content, allocated_bytes=allocated)


# --- engine sidecars (I/O) ---------------------------------------------------------------


def read_engine_import(texture_abspath: Path, rel: str | None = None) -> EngineImport | Finding | None:
    """The Godot ``<file>.import`` or Unity ``<file>.meta`` beside a texture: an EngineImport,
    a Finding when the sidecar exists but cannot be used, or None when there is none.
    ``rel`` (the texture's path relative to the scan root) names the sidecar in findings."""
    from texbudget.readers import godot, unity

    godot_path = texture_abspath.with_name(texture_abspath.name + ".import")
    if godot_path.is_file():
        return godot.read_godot_import(godot_path, (rel + ".import") if rel else None)
    unity_path = texture_abspath.with_name(texture_abspath.name + ".meta")
    if unity_path.is_file():
        return unity.read_unity_meta(unity_path, (rel + ".meta") if rel else None)
    return None
