"""Formatting for the TUI's tables: sortable cells and the verdict's symbol and words.

A ``Cell`` shows text and sorts by a raw value (bytes sort as bytes, not as "9.5 MiB" vs
"10 KiB"). Verdicts always carry a symbol (✓ fits, ! tight, ✗ over); colour only adds to it.
"""

from __future__ import annotations

from functools import total_ordering
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from texbudget.report.text import SYMBOL, printable
from texbudget.units import GIB, human_bytes

#: Severity -> the symbol that carries it without colour.
SEVERITY_SYMBOL = {"error": "✗", "warning": "!", "info": "i"}
#: Verdict / severity -> the CSS-like class name and the Rich style used for its text.
STYLE = {
    "fits": "green", "tight": "yellow", "over": "bold red",
    "error": "bold red", "warning": "yellow", "info": "cyan",
}


@total_ordering
class Cell:
    """A DataTable cell: ``plain`` text to show (with ``style`` and ``justify``, or a ready
    ``Text``), ``raw`` to sort by. The Rich ``Text`` is made only when the cell is drawn:
    with 10,000 rows most cells never are."""

    __slots__ = ("_text", "justify", "plain", "raw", "style")

    _text: Text | None

    def __init__(self, text: str | Text, raw: Any, style: str = "", justify: str = "left") -> None:
        if isinstance(text, Text):
            plain = printable(text.plain)  # a file's name: shown, never acted on by the terminal
            if plain != text.plain:
                text = Text(plain, style=text.style, justify=text.justify, no_wrap=text.no_wrap, end=text.end)
            self.plain, self._text = plain, text
        else:
            self.plain, self._text = printable(text), None
        self.raw = raw
        self.style = style
        self.justify = justify

    @property
    def width(self) -> int:
        """Cells on screen (one line of text): what DataTable would measure."""
        return cell_len(self.plain)

    def styled(self, style: str) -> Cell:
        return Cell(self.plain, self.raw, style, self.justify)

    def __rich__(self) -> Text:
        if self._text is None:
            self._text = Text(self.plain, style=self.style, justify=self.justify, no_wrap=True, end="")  # type: ignore[arg-type]
        return self._text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cell):
            return self.raw == other.raw and self.plain == other.plain and self.style == other.style
        return NotImplemented

    def __lt__(self, other: Cell) -> bool:
        return self.raw < other.raw

    def __hash__(self) -> int:
        return hash((self.raw, self.plain))

    def __str__(self) -> str:
        return self.plain

    def __repr__(self) -> str:
        return f"Cell({self.plain!r}, {self.raw!r})"


def right(text: str, raw: Any, style: str = "") -> Cell:
    return Cell(text, raw, style, "right")


def gib(n: int, digits: int = 1) -> str:
    return f"{n / GIB:.{digits}f}"


def verdict_text(verdict: str) -> str:
    return f"{SYMBOL[verdict]} {verdict}"


def bytes_cell(n: int) -> Cell:
    return right(human_bytes(n), n)


def share_text(share: float) -> str:
    return f"{100 * share:5.1f}%"


def bar(share: float, width: int = 10) -> str:
    """An ncdu-like bar of ``share`` (0..1) in ``width`` cells: ``[####      ]``."""
    full = round(max(0.0, min(1.0, share)) * width)
    return "#" * full + " " * (width - full)
