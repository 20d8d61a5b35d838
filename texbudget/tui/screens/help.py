"""The ``?`` screen: every key of every screen (from their BINDINGS, so it cannot drift) and
what the symbols mean."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

LEGEND = (
    ("✓ fits", "the scene fits the card's usable VRAM with the headroom to spare"),
    ("! tight", "it fits, but inside the headroom"),
    ("✗ over", "it does not fit"),
    ("█ ▓ ▒ ░ ·", "textures, meshes, ray tracing (estimate), render targets, free"),
    ("┃", "the card's usable VRAM, when the scene is over it"),
)

KEY_NAMES = {"slash": "/", "question_mark": "?", "escape": "Esc", "enter": "Enter", "backspace": "Backspace",
             "f5": "F5", "tab": "Tab"}


def key_name(key: str) -> str:
    return ", ".join(KEY_NAMES.get(k, k) for k in key.split(","))


def key_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    out = []
    for b in bindings:
        if isinstance(b, Binding):
            out.append((b.key_display or key_name(b.key), b.tooltip or b.description))
        else:
            out.append((key_name(b[0]), b[2] if len(b) > 2 else b[1]))
    return out


class HelpScreen(ModalScreen[None]):
    """Keys by screen and the legend. Escape, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "back"),
        Binding("question_mark", "app.pop_screen", "back", show=False),
        Binding("q", "app.pop_screen", "back", show=False),
    ]

    def __init__(self, sections: Iterable[tuple[str, Iterable[BindingType]]]) -> None:
        super().__init__()
        self.sections = [(title, key_rows(bindings)) for title, bindings in sections]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(Text("texbudget: keys (Esc closes)", style="bold"), id="help-title")
            for title, rows in self.sections:
                table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), title=title, title_justify="left",
                              title_style="bold")
                table.add_column(style="bold", no_wrap=True, min_width=10)
                table.add_column()
                for key, words in rows:
                    table.add_row(Text(key), Text(words))
                yield Static(table)
            legend = Table(box=None, show_header=False, padding=(0, 2, 0, 0), title="Symbols", title_justify="left",
                           title_style="bold")
            legend.add_column(no_wrap=True, min_width=10)
            legend.add_column()
            for sym, words in LEGEND:
                legend.add_row(Text(sym), Text(words))
            yield Static(legend)
