"""The corpus tests' shared parts: a case (a writer and what the file must read as), the sizes
every case is written at, and the check every file passes.

A case's writer is a reference encoder (Pillow, the ``openexr`` package) or, for what no
library here writes, the format's specification; the oracle that the file is valid is the
reference reader (Pillow, ``openexr``), opened and decoded in the test before texbudget reads
the header. A valid file must read with no error finding and the exact facts the case states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.readers import factories as fx
from texbudget.model import Severity, TextureFacts
from texbudget.readers import read_path

#: Awkward sizes: one texel, odd and prime sides, a non-square odd size, the widest texture a
#: GPU takes (16384; WebP's limit is 16383) and the tallest.
SIZES: tuple[tuple[int, int], ...] = ((1, 1), (3, 5), (17, 9), (16384, 2), (2, 16384))
#: Sizes for encoders that stop at 16383 (WebP) or whose data would be large to write by hand.
SMALL_SIZES: tuple[tuple[int, int], ...] = SIZES[:3]


@dataclass(frozen=True, slots=True)
class Expect:
    """What the file reads as (besides its size)."""

    channels: int
    alpha: bool
    grey: bool = False
    palette: bool = False
    bit_depth: int = 8
    hdr: bool = False
    stored_format: str | None = None
    levels: int = 1
    findings: tuple[str, ...] = ()  # warnings (or infos) the file gives; never an error


@dataclass(frozen=True, slots=True)
class Case:
    """One kind of file: ``write(width, height)`` makes its bytes; ``oracle(path)`` opens it
    with the reference reader and returns the size that reader sees (None: the format has
    no reader here, the spec is the oracle); ``levels`` may depend on the size."""

    name: str
    suffix: str
    write: Callable[[int, int], bytes]
    expect: Expect | Callable[[int, int], Expect]
    oracle: Callable[[Path], tuple[int, int]] | None
    sizes: tuple[tuple[int, int], ...] = SIZES


def params(cases: list[Case]) -> tuple[list[tuple[Case, int, int]], list[str]]:
    """(case, width, height) for every case at every one of its sizes, and their test ids."""
    rows = [(c, w, h) for c in cases for w, h in c.sizes]
    return rows, [f"{c.name}-{w}x{h}" for c, w, h in rows]


def check(tmp_path: Path, case: Case, width: int, height: int) -> TextureFacts:
    """Write the file, open it with the oracle, read it with texbudget: no error finding, the
    oracle's size, and the case's facts."""
    name = f"{case.name}{case.suffix}"
    fx.write(tmp_path, name, case.write(width, height))
    if case.oracle is not None:
        assert case.oracle(tmp_path / name) == (width, height)
    result = read_path(tmp_path, name)
    errors = [f for f in result.findings if f.severity is Severity.ERROR]
    assert errors == [], errors
    (facts,) = result.textures
    expect = case.expect(width, height) if callable(case.expect) else case.expect
    assert (facts.width, facts.height) == (width, height)
    got = Expect(channels=facts.channels, alpha=facts.alpha, grey=facts.grey, palette=facts.palette,
                 bit_depth=facts.bit_depth, hdr=facts.hdr, stored_format=facts.stored_format,
                 levels=facts.stored_levels, findings=tuple(f.code for f in result.findings))
    assert got == expect, (got, expect)
    assert facts.disk_bytes == (tmp_path / name).stat().st_size
    return facts
