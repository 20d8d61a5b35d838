"""The command output README.md shows is the real output of the code, byte for byte: each block
after a ``<!-- NAME -->`` marker is what the ``$ texbudget …`` line above it prints (run from
the repository's root, the cache off: the same stdout)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from texbudget.cli import main
from texbudget.units import human_bytes

REPO = Path(__file__).resolve().parents[2]

#: marker -> the command README shows above it
BLOCKS = {
    "scan-output": "texbudget scan assets/demo",
    "level-output": "texbudget scan assets/godot_demo/levels/market.tscn",
}


def readme_block(marker: str) -> tuple[str, str]:
    """(the command shown above the marker, the output block after it)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```\n\$ (texbudget [^\n]*)\n```\n<!-- " + re.escape(marker) + r" -->\n```\n(.*?)```\n", readme, re.S)
    assert m, f"README.md has no `$ texbudget …` block followed by <!-- {marker} --> and its output"
    return m.group(1), m.group(2)


@pytest.mark.parametrize("marker", sorted(BLOCKS))
def test_readme_shows_the_real_output(marker, capsys, monkeypatch: pytest.MonkeyPatch):
    command, shown = readme_block(marker)
    assert command == BLOCKS[marker]
    monkeypatch.chdir(REPO)
    main([*shlex.split(command)[1:], "--no-cache"])
    out = capsys.readouterr().out
    assert shown == out, f"README.md's <!-- {marker} --> block is not what `{command}` prints: paste the new output"


def test_the_level_block_says_what_the_demo_s_market_loads():
    """The numbers of the market as the demo was designed (tests/integration/test_demo.py)."""
    _, shown = readme_block("level-output")
    lines = shown.splitlines()
    assert lines[1] == ("level market: levels/market.tscn and what it loads: 10 textures (46.17 MiB content, "
                        "46.44 MiB allocated), 5 meshes (119 instances)")
    # the market's textures: 48,409,432 content bytes (test_demo.py), 48,693,248 allocated
    assert (human_bytes(48_409_432), human_bytes(48_693_248)) == ("46.17 MiB", "46.44 MiB")
    start = lines.index("Meshes the level places, by instances:")
    assert [(int(r.split()[0]), r.split()[1]) for r in lines[start + 2:start + 7]] == [
        (68, "meshes/paving_tile.tres#mesh/0"), (24, "models/lantern.glb#mesh/1"), (15, "models/crate.glb#mesh/0"),
        (6, "meshes/lamp_post.tres#mesh/0"), (6, "models/lantern.glb#mesh/0")]
    assert lines[-2:] == ["Findings:", "no findings"]
