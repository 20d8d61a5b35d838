"""Markdown text that shows as itself wherever it is rendered (a wiki, a pull request): the
helpers the Markdown report, the diff comment and ``check --format markdown`` share. A file's
name or a glTF's strings reach their cells; none of it may break a table or become a link, an
image or HTML."""

from __future__ import annotations

import re

#: Free text's characters that Markdown would read as syntax, and what shows them as
#: themselves: a backslash escape, or an entity for the HTML brackets.
_INERT = str.maketrans({"\\": "\\\\", "|": "\\|", "[": "\\[", "]": "\\]", "<": "&lt;", ">": "&gt;",
                        "\r": " ", "\n": " "})


def cell(text: object) -> str:
    """Free text for a table cell, shown as it is: no table break, link, image or HTML."""
    return str(text).translate(_INERT)


def code(text: str) -> str:
    """A code span of any text: its fence is longer than the longest run of backticks in it
    (padded when the text starts or ends with one). Inside, only ``|`` is escaped (a table
    reads it first, in a span too) and line breaks are flattened."""
    longest = max(map(len, re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    inner = text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")
    return f"{fence}{pad}{inner}{pad}{fence}"
