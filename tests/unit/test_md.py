"""Markdown cells show their text as it is: a file's name or a glTF's strings never break a
table or become a link, an image or HTML in a wiki or a pull request."""

from __future__ import annotations

import pytest

from texbudget.report.md import cell, code


@pytest.mark.parametrize(("text", "expected"), [
    ("plain BC7_SRGB 1.00 MiB", "plain BC7_SRGB 1.00 MiB"),
    ("a|b", "a\\|b"),
    ("![pixel](https://e.example/t.png)", "!\\[pixel\\](https://e.example/t.png)"),
    ("<img src=x onerror=y>", "&lt;img src=x onerror=y&gt;"),
    ("C:\\tex\\a.png", "C:\\\\tex\\\\a.png"),
    ("two\nlines\r", "two lines "),
])
def test_cell(text: str, expected: str) -> None:
    assert cell(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("textures/a.png", "`textures/a.png`"),
    ("a`b.png", "``a`b.png``"),
    ("x``y", "```x``y```"),
    ("`start.png", "`` `start.png ``"),
    # a span holds the text as it is: no escapes but the table's pipe
    ("a|b\\c[d](e)<f>.png", "`a\\|b\\c[d](e)<f>.png`"),
    # the path a span could once be left by: the fence outgrows its backticks
    ("x`![i](https://e.example/t.png)`.png", "``x`![i](https://e.example/t.png)`.png``"),
])
def test_code(text: str, expected: str) -> None:
    assert code(text) == expected
