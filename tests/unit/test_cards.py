"""Cards, platforms and usable VRAM against spec/cards.md."""

from __future__ import annotations

import re

import pytest

from texbudget.budget.cards import (
    DEFAULT_CARDS,
    Card,
    card_budget,
    load_cards,
    parse_cards,
    resolve_cards,
    verdict_of,
)
from texbudget.budget.settings import BudgetSettings
from texbudget.errors import UsageError

GIB, MIB = 1 << 30, 1 << 20

# spec/cards.md, every named card: (id, VRAM GiB, vendor)
NAMED = [
    ("rtx-2060", 6, "nvidia"), ("rtx-2060-12gb", 12, "nvidia"), ("rtx-2070", 8, "nvidia"),
    ("rtx-2080", 8, "nvidia"), ("rtx-2080-ti", 11, "nvidia"),
    ("rtx-3050", 8, "nvidia"), ("rtx-3060", 12, "nvidia"), ("rtx-3060-8gb", 8, "nvidia"),
    ("rtx-3060-ti", 8, "nvidia"), ("rtx-3070", 8, "nvidia"), ("rtx-3070-ti", 8, "nvidia"),
    ("rtx-3080", 10, "nvidia"), ("rtx-3080-12gb", 12, "nvidia"), ("rtx-3080-ti", 12, "nvidia"),
    ("rtx-3090", 24, "nvidia"), ("rtx-3090-ti", 24, "nvidia"),
    ("rtx-4060", 8, "nvidia"), ("rtx-4060-ti", 8, "nvidia"), ("rtx-4060-ti-16gb", 16, "nvidia"),
    ("rtx-4070", 12, "nvidia"), ("rtx-4070-super", 12, "nvidia"), ("rtx-4070-ti", 12, "nvidia"),
    ("rtx-4070-ti-super", 16, "nvidia"), ("rtx-4080", 16, "nvidia"), ("rtx-4080-super", 16, "nvidia"),
    ("rtx-4090", 24, "nvidia"),
    ("rtx-5060", 8, "nvidia"), ("rtx-5060-ti", 8, "nvidia"), ("rtx-5060-ti-16gb", 16, "nvidia"),
    ("rtx-5070", 12, "nvidia"), ("rtx-5070-ti", 16, "nvidia"), ("rtx-5080", 16, "nvidia"),
    ("rtx-5090", 32, "nvidia"),
    ("rx-6600", 8, "amd"), ("rx-6600-xt", 8, "amd"), ("rx-6700-xt", 12, "amd"), ("rx-6800", 16, "amd"),
    ("rx-6800-xt", 16, "amd"), ("rx-6900-xt", 16, "amd"),
    ("rx-7600", 8, "amd"), ("rx-7600-xt", 16, "amd"), ("rx-7700-xt", 12, "amd"), ("rx-7800-xt", 16, "amd"),
    ("rx-7900-gre", 16, "amd"), ("rx-7900-xt", 20, "amd"), ("rx-7900-xtx", 24, "amd"),
    ("rx-9060-xt", 8, "amd"), ("rx-9060-xt-16gb", 16, "amd"), ("rx-9070", 16, "amd"), ("rx-9070-xt", 16, "amd"),
    ("arc-a750", 8, "intel"), ("arc-a770", 8, "intel"), ("arc-a770-16gb", 16, "intel"),
    ("arc-b570", 10, "intel"), ("arc-b580", 12, "intel"),
]


def by_id() -> dict[str, Card]:
    return {c.id: c for c in load_cards()}


@pytest.mark.parametrize(("card_id", "gib", "vendor"), NAMED)
def test_named_card(card_id, gib, vendor):
    card = by_id()[card_id]
    assert card.kind == "card"
    assert card.vram_bytes == gib * GIB
    assert card.vendor == vendor and card.rt_vendor == vendor
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", card.id)
    assert card.name


def test_every_named_card_is_in_the_table():
    assert sorted(c.id for c in load_cards() if c.kind == "card") == sorted(n for n, _, _ in NAMED)


def test_generic_classes():
    generic = [c for c in load_cards() if c.kind == "generic"]
    assert [c.id for c in generic] == ["4GB", "6GB", "8GB", "10GB", "12GB", "16GB", "20GB", "24GB", "32GB"]
    assert [c.vram_bytes // GIB for c in generic] == [4, 6, 8, 10, 12, 16, 20, 24, 32]
    assert all(c.vendor is None and c.rt_vendor is None for c in generic)
    assert DEFAULT_CARDS == ("8GB", "12GB", "16GB", "24GB")
    assert BudgetSettings().cards == DEFAULT_CARDS


@pytest.mark.parametrize(("card_id", "total_gib", "usable"), [
    ("ps5", 16, 13_421_772_800),  # 12.5 GiB
    ("xbox-series-x", 16, 14_495_514_624),  # 13.5 GiB
    ("xbox-series-s", 10, 8 * GIB),
    ("steam-deck", 16, 8 * GIB),
])
def test_unified_memory_platforms(card_id, total_gib, usable):
    card = by_id()[card_id]
    assert card.kind == "platform" and card.rt_vendor == "amd"
    assert card.vram_bytes == total_gib * GIB
    assert card.usable_bytes == usable
    assert card_budget(card) == (usable, total_gib * GIB - usable)  # the reserve is already out
    assert card_budget(card, 4 * GIB, 0.5) == (usable, total_gib * GIB - usable)
    assert "CPU" in card.note


@pytest.mark.parametrize(("card_id", "reserve"), [
    ("4GB", 768 * MIB),
    ("8GB", 768 * MIB),  # 7 % = 601,295,421.44 < 768 MiB
    ("10GB", 768 * MIB),  # 7 % = 751,619,276.8 < 768 MiB
    ("12GB", 901_943_133),  # ceil(0.07 x 12 GiB = 901,943,132.16)
    ("16GB", 1_202_590_843),
    ("24GB", 1_803_886_265),
    ("32GB", 2_405_181_686),
])
def test_default_reserve(card_id, reserve):
    card = resolve_cards(card_id)[0]
    assert card_budget(card) == (card.vram_bytes - reserve, reserve)


def test_reserve_is_configurable():
    card = resolve_cards("8GB")[0]
    assert card_budget(card, reserve_min_bytes=GIB, reserve_fraction=0.07) == (7 * GIB, GIB)
    assert card_budget(card, reserve_min_bytes=0, reserve_fraction=0.10) == (8 * GIB - 858_993_460, 858_993_460)
    assert card_budget(card, reserve_min_bytes=0, reserve_fraction=0.0) == (8 * GIB, 0)
    assert card_budget(card, reserve_min_bytes=100 * GIB, reserve_fraction=0.0) == (0, 8 * GIB)  # never negative


def test_resolve_list_and_string():
    assert [c.id for c in resolve_cards("8GB,12GB,rtx-4070")] == ["8GB", "12GB", "rtx-4070"]
    assert [c.id for c in resolve_cards(["8gb", " RTX-4070 ", "rtx-4070"])] == ["8GB", "rtx-4070"]
    assert [c.id for c in resolve_cards(["8GB,ps5"])] == ["8GB", "ps5"]
    assert resolve_cards("rtx-4060-ti-8gb")[0].id == "rtx-4060-ti"  # the base size's alias
    assert resolve_cards("arc-a770-8gb")[0].vram_bytes == 8 * GIB
    assert resolve_cards("") == ()


def test_custom_sizes_are_generic_classes():
    seven, half = resolve_cards("7GB,6.5GB")
    assert (seven.id, seven.vram_bytes, seven.kind) == ("7GB", 7 * GIB, "generic")
    assert (half.id, half.vram_bytes) == ("6.5GB", 6 * GIB + 512 * MIB)
    assert resolve_cards("7GiB")[0].vram_bytes == 7 * GIB


def test_unknown_card_names_the_nearest():
    with pytest.raises(UsageError) as err:
        resolve_cards("8GB,rtx-4070-tie")
    assert "unknown card 'rtx-4070-tie'" in str(err.value)
    assert "rtx-4070-ti" in str(err.value)
    with pytest.raises(UsageError, match="unknown card 'geforce'"):
        resolve_cards("geforce")


def test_verdict_boundaries():
    assert verdict_of(100, 100) == "fits"
    assert verdict_of(99, 100) == "tight"
    assert verdict_of(0, 100) == "tight"
    assert verdict_of(0, 0) == "fits"
    assert verdict_of(-1, 0) == "over"


def test_duplicate_ids_in_a_data_file_are_refused():
    text = '[[generic]]\nid = "8GB"\nvram_gib = 8\n[[card]]\nid = "8gb"\nname = "x"\nvram_gib = 8\nvendor = "amd"\nrt = "amd"\n'
    with pytest.raises(ValueError, match="duplicate card ids"):
        parse_cards(text)
