"""The platform profiles (``data/platforms.toml``, read once; documented in
docs/policy.md), the roles and quality tiers, and ``PolicySettings``: the knobs of
``policy.decision.decide``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from types import MappingProxyType

import msgspec

from texbudget import formats
from texbudget.errors import UsageError

# --- vocabulary --------------------------------------------------------------------------

#: Every role a texture can have. Colour roles are sampled as sRGB.
ROLES: tuple[str, ...] = ("albedo", "normal", "mask", "single", "height", "hdr", "emissive", "ui")
COLOUR_ROLES = frozenset({"albedo", "emissive", "ui"})

#: Quality tier -> top mip levels dropped (Unity's global texture mipmap limit).
QUALITY_TIERS: Mapping[str, int] = MappingProxyType({"ultra": 0, "high": 1, "medium": 2, "low": 3})


#: A profile's Basis transcode targets: LDR payloads by channels, HDR ones (RGB only) by codec.
_TRANSCODE_KEYS = (*(f"{k}_{v}" for k in ("uastc", "etc1s") for v in ("rgb", "rgba", "r", "rg")),
                   "uastc_hdr_4x4", "uastc_hdr_6x6i")

_PROFILE_KEYS = frozenset({
    "description", "family", "reference", "godot_target", "unity_build_target", "no_mips",
    "formats", "formats_alpha", "high_quality", "high_quality_alpha", "max_size", "transcode",
})
FAMILIES = ("bc", "astc", "etc2", "uncompressed")


# --- platform profiles -------------------------------------------------------------------


class Profile(msgspec.Struct, frozen=True):
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
    max_size: Mapping[str, int] = msgspec.field(default_factory=lambda: MappingProxyType({}))
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


class PolicySettings(msgspec.Struct, frozen=True):
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


def _did_you_mean(word: str, options: Sequence[str]) -> str:
    import difflib  # only for a mistake

    near = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return f" (did you mean {near[0]!r}?)" if near else ""
