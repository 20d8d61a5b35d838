"""What a screen asks of the app it runs in (``ScreenHost``).

``TexbudgetApp`` passes itself to the screens it pushes, typed as this protocol: the screens
never import ``tui.app`` (which imports them), and the type checker holds the app to what the
screens use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from texbudget.model import TextureCost
from texbudget.pipeline import Report


class ScreenHost(Protocol):
    """The app as the main and asset screens see it."""

    @property
    def report(self) -> Report | None:
        """The evaluation on screen (with the what-ifs)."""

    @property
    def what_ifs(self) -> dict[str, dict[str, object]]:
        """Each asset's what-if: ``[[rule]]`` keys and values, not yet written."""

    @property
    def config_target(self) -> Path:
        """The config file a what-if is written to."""

    def open_asset(self, key: str) -> None:
        """Push the asset screen of ``key``."""

    def pick(self, key: str) -> None:
        """Open the picker of the setting bound to ``key``."""

    @property
    def has_levels(self) -> bool:
        """Whether the scan has levels to pick (the level key is shown then)."""

    def pick_level(self) -> None:
        """Open the level picker (the whole scan, or one level)."""

    def set_what_if(self, key: str, what_if: dict[str, object]) -> None:
        """Make ``what_if`` the what-if of ``key`` (empty: drop it) and evaluate again."""

    def decided_cost(self, key: str) -> TextureCost | None:
        """What ``key`` costs as decided without its what-if."""

    def write_what_if(self, key: str) -> int | None:
        """Append the what-if of ``key`` to the config file as a ``[[rule]]``."""
