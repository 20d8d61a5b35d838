"""The one place bytes become words for people, and words become bytes and resolutions.

Bytes are ints everywhere else. Binary units (KiB, MiB, GiB = 2^10, 2^20, 2^30), as card
makers use them: a "12 GB" card has 12 x 2^30 bytes.
"""

from __future__ import annotations

import re

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

RESOLUTIONS: dict[str, tuple[int, int]] = {
    "720p": (1280, 720),
    "1080p": (1920, 1080),
    "1440p": (2560, 1440),
    "4k": (3840, 2160),
    "2160p": (3840, 2160),
    "8k": (7680, 4320),
}

MAX_DIMENSION = 1 << 16  # no GPU API allows a larger texture or screen side


def human_bytes(n: int, signed: bool = False) -> str:
    """``22369648`` -> ``'21.33 MiB'``; negative values keep their sign."""
    sign = "-" if n < 0 else ("+" if signed and n > 0 else "")
    a = abs(n)
    if a < KIB:
        return f"{sign}{a} B"
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if a >= size:
            return f"{sign}{a / size:.2f} {unit}"
    return f"{sign}{a} B"  # pragma: no cover


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B?)?\s*$", re.IGNORECASE)
_FACTORS = {"": 1, "B": 1, "K": KIB, "M": MIB, "G": GIB, "T": GIB * 1024}


def parse_bytes(text: str | int) -> int:
    """``'16 MiB'``, ``'16MB'``, ``'512 KiB'``, ``1024`` -> bytes. MB and GB mean MiB and GiB
    (as on graphics cards). Raises ValueError with the accepted forms."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ValueError(f"{text}: a size cannot be negative")
        return text
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a size; use a number of bytes or e.g. '16 MiB', '2 GiB'")
    number, unit = float(m.group(1)), (m.group(2) or "").upper()
    return int(number * _FACTORS[unit[:1] if unit else ""])


def parse_resolution(text: str) -> tuple[int, int]:
    """``'1080p'``, ``'1440p'``, ``'4k'``, ``'2560x1080'`` -> (width, height)."""
    key = text.strip().lower()
    if key in RESOLUTIONS:
        return RESOLUTIONS[key]
    m = re.fullmatch(r"(\d+)x(\d+)", key)
    if m:
        w, h = int(m.group(1)), int(m.group(2))
        if 1 <= w <= MAX_DIMENSION and 1 <= h <= MAX_DIMENSION:
            return w, h
        raise ValueError(f"resolution {text!r}: each side must be 1 to {MAX_DIMENSION}")
    raise ValueError(f"resolution {text!r}: use one of {', '.join(RESOLUTIONS)} or WIDTHxHEIGHT")


def resolution_name(width: int, height: int) -> str:
    return f"{width}x{height}"
