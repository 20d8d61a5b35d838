"""configwrite: a [[rule]] appended as text; every byte already in the file is kept."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from texbudget import config as config_mod
from texbudget import configwrite
from texbudget.config import parse_rules
from texbudget.errors import ConfigError

RULE = {"match": "textures/props/crate_normal.png", "format": "BC5_UNORM", "max_size": 1024, "mips": True}
BLOCK = (
    '[[rule]]\nmatch = "textures/props/crate_normal.png"\nformat = "BC5_UNORM"\nmax_size = 1024\nmips = true\n'
)

ORIGINAL = (
    "# texbudget.toml — our budget\n"
    "\n"
    "[budget]\n"
    "cards = [\"8GB\", \"12GB\"]   # min spec, recommended\n"
    "resolutions = [\"1080p\"]\n"
    "\n"
    "# the HUD stays uncompressed\n"
    "[[rule]]\n"
    "match = \"textures/ui/*\"\n"
    "role = \"ui\"\n"
)


def tables(path: Path) -> list[dict]:
    """The file's rules as read back by the config, each as the table that made it."""
    return [{"match": r.match, **{k: getattr(r, k) for k in r.keys}} for r in config_mod.load(path).rules]


def test_appends_after_a_blank_line_and_keeps_every_byte(tmp_path):
    path = tmp_path / "texbudget.toml"
    path.write_bytes(ORIGINAL.encode("utf-8"))
    index = configwrite.append_rule(path, RULE, comment="what-if from the TUI")
    data = path.read_bytes()
    assert data == ORIGINAL.encode("utf-8") + b"\n# what-if from the TUI\n" + BLOCK.encode("utf-8")
    assert index == 2
    cfg = config_mod.load(path)
    assert tables(path)[-1] == RULE
    assert cfg["budget.cards"] == ("8GB", "12GB")
    rules = cfg.rules
    assert (rules[1].format, rules[1].max_size, rules[1].mips, rules[1].where) == ("BC5_UNORM", 1024, True, "rule 2 in texbudget.toml")


def test_a_file_without_a_trailing_newline(tmp_path):
    path = tmp_path / "texbudget.toml"
    path.write_bytes(b"[budget]\nplatform = \"desktop\"  # no newline at the end")
    configwrite.append_rule(path, {"match": "a.png", "max_size": 512})
    assert path.read_bytes() == (
        b"[budget]\nplatform = \"desktop\"  # no newline at the end\n\n[[rule]]\nmatch = \"a.png\"\nmax_size = 512\n"
    )
    assert tables(path) == [{"match": "a.png", "max_size": 512}]


def test_no_file_creates_one_with_a_header(tmp_path):
    path = tmp_path / "texbudget.toml"
    assert configwrite.append_rule(path, {"match": "a.png", "mips": False}, comment="kept from the TUI") == 1
    text = path.read_text(encoding="utf-8")
    assert text == configwrite.HEADER + "\n# kept from the TUI\n[[rule]]\nmatch = \"a.png\"\nmips = false\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()
    assert tables(path) == [{"match": "a.png", "mips": False}]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_crlf_files_get_crlf(tmp_path):
    path = tmp_path / "texbudget.toml"
    original = ORIGINAL.replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(original)
    configwrite.append_rule(path, RULE, comment="two\nlines")
    data = path.read_bytes()
    assert data == original + b"\r\n# two\r\n# lines\r\n" + BLOCK.replace("\n", "\r\n").encode("utf-8")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert tables(path)[-1] == RULE


def test_a_blank_last_line_is_not_doubled_and_a_bom_is_kept(tmp_path):
    path = tmp_path / "texbudget.toml"
    path.write_bytes(b"\xef\xbb\xbf[budget]\n\n")
    configwrite.append_rule(path, {"match": "b.png", "ignore": True})
    assert path.read_bytes() == b"\xef\xbb\xbf[budget]\n\n[[rule]]\nmatch = \"b.png\"\nignore = true\n"


def test_atomic_mode_kept_and_no_temp_file_left(tmp_path):
    path = tmp_path / "texbudget.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    os.chmod(path, 0o640)
    inode = path.stat().st_ino
    configwrite.append_rule(path, RULE)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino != inode  # replaced, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["texbudget.toml"]


def test_a_failed_write_leaves_the_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "texbudget.toml"
    path.write_text(ORIGINAL, encoding="utf-8")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(configwrite.os, "replace", boom)
    with pytest.raises(ConfigError, match="cannot write: No space left on device"):
        configwrite.append_rule(path, RULE)
    assert path.read_text(encoding="utf-8") == ORIGINAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["texbudget.toml"]


def test_a_symlink_stays_a_link(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text(ORIGINAL, encoding="utf-8")
    link = tmp_path / "texbudget.toml"
    link.symlink_to(real)
    configwrite.append_rule(link, RULE)
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").endswith(BLOCK)


def test_an_append_that_would_not_read_back_is_refused(tmp_path):
    path = tmp_path / "texbudget.toml"
    original = 'rule = [{ match = "a.png", role = "ui" }]\n'
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ConfigError, match="would not give valid TOML"):
        configwrite.append_rule(path, RULE)
    assert path.read_text(encoding="utf-8") == original


def test_pyproject_gets_a_tool_table(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "game"\n\n[tool.texbudget.budget]\ncards = ["8GB"]\n', encoding="utf-8")
    assert configwrite.append_rule(path, {"match": "a.png", "max_size": 256}) == 1
    assert path.read_text(encoding="utf-8").endswith('\n\n[[tool.texbudget.rule]]\nmatch = "a.png"\nmax_size = 256\n')
    assert tables(path) == [{"match": "a.png", "max_size": 256}]


def test_values_are_escaped_as_toml_strings(tmp_path):
    path = tmp_path / "texbudget.toml"
    weird = 'textures/"quoted" \\ [1]/tab\there.png'
    configwrite.append_rule(path, {"match": configwrite.glob_escape(weird), "platform": ["desktop", "mobile-astc"]})
    rule = tomllib.loads(path.read_text(encoding="utf-8"))["rule"][0]
    assert rule == {"match": 'textures/"quoted" \\ [[]1[]]/tab\there.png', "platform": ["desktop", "mobile-astc"]}
    parsed = parse_rules([{**rule, "max_size": 64}], "t")[0]
    assert parsed.matches(weird)
    assert not parsed.matches('textures/"quoted" \\ 1/tab\there.png')


def test_glob_escape_matches_exactly_one_path():
    for path in ("a/b*c?.png", "x[2].png", "level.glb#image/3", "plain/file.png"):
        rule = parse_rules([{"match": configwrite.glob_escape(path), "max_size": 64}], "t")[0]
        assert rule.matches(path), path
    star = parse_rules([{"match": configwrite.glob_escape("a/b*c.png"), "max_size": 64}], "t")[0]
    assert not star.matches("a/bXc.png")


def test_bad_rules_are_refused_before_writing(tmp_path):
    path = tmp_path / "texbudget.toml"
    with pytest.raises(ConfigError, match="needs a non-empty 'match'"):
        configwrite.append_rule(path, {"max_size": 64})
    with pytest.raises(ConfigError, match="only letters, digits"):
        configwrite.append_rule(path, {"match": "a.png", "bad key": 1})
    with pytest.raises(ConfigError, match="not valid UTF-8"):
        configwrite.append_rule(path, {"match": "caf\udce9.png", "max_size": 64})
    assert not path.exists()


def test_none_values_are_left_out(tmp_path):
    path = tmp_path / "texbudget.toml"
    configwrite.append_rule(path, {"match": "a.png", "format": None, "max_size": 128, "mips": None})
    assert path.read_text(encoding="utf-8").endswith('[[rule]]\nmatch = "a.png"\nmax_size = 128\n')


def test_unreadable_file_is_a_config_error(tmp_path):
    folder = tmp_path / "texbudget.toml"
    folder.mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        configwrite.append_rule(Path(folder), RULE)
