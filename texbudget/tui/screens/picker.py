"""A small modal list to pick one value (resolutions, quality, RT, platform, cards, upscaler)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option as ListOption

from texbudget.tui.state import Option


class PickerScreen(ModalScreen[Option | None]):
    """Enter picks the highlighted line, Escape keeps what was in force. The line in force
    is marked ● (and highlighted when the picker opens)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "back")]

    def __init__(self, title: str, options: Sequence[Option], current: int = 0) -> None:
        super().__init__()
        self.title_text = title
        self.options = tuple(options)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label(self.title_text, id="picker-title")
            yield OptionList(
                *(ListOption(("● " if i == self.current else "○ ") + o.label, id=f"o{i}") for i, o in enumerate(self.options)),
                id="picker-list",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.current
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[event.option_index])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
