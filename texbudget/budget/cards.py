"""The cards a budget is judged on (spec/cards.md): the shipped card table
(``data/cards.toml``, read once, cached), ids and aliases resolved (any "<n>GB" is a custom
generic class), and each card's usable memory, reserve and verdict.

Per card: usable = VRAM − reserve, reserve = max(reserve_min_bytes, ⌈reserve_fraction ×
VRAM⌉) (unified-memory platforms give their usable memory directly); headroom =
⌈headroom_fraction × usable⌉; free = usable − total; ``fits`` when free ≥ headroom, ``tight``
when 0 ≤ free < headroom, ``over`` when free < 0.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

import msgspec

from texbudget.errors import UsageError
from texbudget.units import GIB, MIB

DEFAULT_CARDS: tuple[str, ...] = ("8GB", "12GB", "16GB", "24GB")

DEFAULT_RESERVE_MIN_BYTES = 768 * MIB
DEFAULT_RESERVE_FRACTION = 0.07
DEFAULT_HEADROOM_FRACTION = 0.05

VERDICTS = ("fits", "tight", "over")


# --- cards --------------------------------------------------------------------------------


class Card(msgspec.Struct, frozen=True):
    """A graphics card, a generic VRAM class or a unified-memory platform (spec/cards.md)."""

    id: str  # "8GB", "rtx-4070", "ps5"
    name: str  # display name
    vram_bytes: int  # GiB × 2^30 (platforms: total memory)
    kind: str  # "generic", "card" or "platform"
    vendor: str | None = None  # "nvidia", "amd", "intel"; None for generic classes
    rt_vendor: str | None = None  # BVH profile its acceleration structures are priced with
    usable_bytes: int | None = None  # platforms: the memory a game may use (reserve taken out)
    series: str = ""
    note: str = ""
    aliases: tuple[str, ...] = ()


_CUSTOM = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*gi?b\s*$", re.IGNORECASE)


def _gib(value: Any) -> int:
    """GiB as written (an int, a decimal such as 13.5, or its text) in bytes, exactly."""
    if type(value) is int:  # most of the table: no Fraction needed
        return value * GIB
    return int(Fraction(str(value)) * GIB)


def parse_cards(text: str) -> tuple[tuple[Card, ...], tuple[str, ...]]:
    """Cards and the default id list from a cards data file (``load_cards`` reads the shipped one)."""
    data = tomllib.loads(text)
    cards: list[Card] = []
    for g in data.get("generic", ()):
        gib = g["vram_gib"]
        cards.append(Card(id=g["id"], name=f"{gib} GB", vram_bytes=_gib(gib), kind="generic"))
    for c in data.get("card", ()):
        cards.append(Card(
            id=c["id"], name=c["name"], vram_bytes=_gib(c["vram_gib"]), kind="card",
            vendor=c["vendor"], rt_vendor=c["rt"], series=c.get("series", ""),
            aliases=tuple(c.get("aliases", ())),
        ))
    for p in data.get("platform", ()):
        cards.append(Card(
            id=p["id"], name=p["name"], vram_bytes=_gib(p["memory_gib"]), kind="platform",
            vendor=p.get("vendor"), rt_vendor=p.get("rt"), usable_bytes=_gib(p["usable_gib"]),
            note=p.get("note", ""), aliases=tuple(p.get("aliases", ())),
        ))
    ids = [k.lower() for c in cards for k in (c.id, *c.aliases)]
    dupes = sorted({k for k in ids if ids.count(k) > 1})
    if dupes:
        raise ValueError(f"cards.toml: duplicate card ids {dupes}")
    return tuple(cards), tuple(data.get("default", DEFAULT_CARDS))


@cache
def _shipped_cards() -> tuple[tuple[Card, ...], tuple[str, ...]]:
    text = resources.files("texbudget.data").joinpath("cards.toml").read_text(encoding="utf-8")
    return parse_cards(text)


def load_cards() -> tuple[Card, ...]:
    """Every shipped card: the generic classes, the named cards, the platforms (cached)."""
    return _shipped_cards()[0]


@cache
def _card_index() -> dict[str, Card]:
    index: dict[str, Card] = {}
    for card in load_cards():
        for key in (card.id, *card.aliases):
            index[key.lower()] = card
    return index


def _custom_card(token: str) -> Card | None:
    m = _CUSTOM.match(token)
    if not m:
        return None
    number = m.group(1)
    vram = _gib(number)
    if vram <= 0:
        return None
    label = number.rstrip("0").rstrip(".") if "." in number else number
    return Card(id=f"{label}GB", name=f"{label} GB (custom)", vram_bytes=vram, kind="generic")


def resolve_cards(spec: str | Sequence[str]) -> tuple[Card, ...]:
    """Cards from "8GB,12GB,rtx-4070" or a list of ids (case-insensitive; aliases such as
    "rtx-4060-ti-8gb" work; any "<n>GB" is a custom generic class). Duplicates are dropped.
    An unknown id raises UsageError naming it and the nearest ids."""
    tokens = spec.split(",") if isinstance(spec, str) else [t for s in spec for t in str(s).split(",")]
    out: list[Card] = []
    seen: set[str] = set()
    index = _card_index()
    for raw in tokens:
        token = raw.strip()
        if not token:
            continue
        card = index.get(token.lower()) or _custom_card(token)
        if card is None:
            import difflib  # only for a mistake

            near = difflib.get_close_matches(token.lower(), list(index), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise UsageError(f"unknown card {token!r}{hint} (`texbudget cards` lists them; any '<n>GB' is a generic class)")
        if card.id not in seen:
            seen.add(card.id)
            out.append(card)
    return tuple(out)


def _ceil_share(n: int, fraction: float) -> int:
    """⌈n × fraction⌉ with the fraction read exactly as written (0.07 is 7/100)."""
    f = Fraction(str(fraction))
    return -(-n * f.numerator // f.denominator)


def card_budget(card: Card, reserve_min_bytes: int = DEFAULT_RESERVE_MIN_BYTES,
                reserve_fraction: float = DEFAULT_RESERVE_FRACTION) -> tuple[int, int]:
    """(usable_bytes, reserve_bytes). PC cards: reserve = max(reserve_min, ⌈fraction × VRAM⌉);
    platforms: their published game budget (reserve = the rest)."""
    if card.usable_bytes is not None:
        return card.usable_bytes, card.vram_bytes - card.usable_bytes
    reserve = min(card.vram_bytes, max(reserve_min_bytes, _ceil_share(card.vram_bytes, reserve_fraction)))
    return card.vram_bytes - reserve, reserve


def verdict_of(free_bytes: int, headroom_bytes: int) -> str:
    if free_bytes < 0:
        return "over"
    return "fits" if free_bytes >= headroom_bytes else "tight"
