"""Config loading: defaults, every kind of mistake as one line naming file, key and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from texbudget import config
from texbudget.errors import ConfigError


def write(tmp_path: Path, text: str, name: str = "texbudget.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults():
    c = config.load(None)
    assert c["budget.cards"] == ("8GB", "12GB", "16GB", "24GB")
    assert c["budget.resolutions"] == ("1920x1080", "2560x1440", "3840x2160")
    assert c["budget.reserve"] == 0.07 and c["budget.reserve_min"] == 768 * 2**20
    assert c["budget.headroom"] == 0.05
    assert c["budget.rt"] is None
    assert c.label == "defaults"


def test_values_are_cleaned(tmp_path):
    p = write(tmp_path, """
[budget]
cards = "8GB"
resolutions = ["1080p", "4k", "2560x1080"]
quality = "High"
rt = ["off", "nvidia"]
headroom = "10%"
reserve_min = "1 GiB"
streaming_pool = "2GB"

[limits]
max_bytes = "16 MiB"
max_size = 4096

[[rule]]
match = "ui/**"
role = "ui"

[[instances]]
match = "props/crate.obj"
count = 40
""")
    c = config.load(p)
    assert c["budget.cards"] == ("8GB",)
    assert c["budget.resolutions"] == ("1920x1080", "3840x2160", "2560x1080")
    assert c["budget.quality"] == ("high",)
    assert c["budget.rt"] == ("off", "nvidia")
    assert c["budget.headroom"] == pytest.approx(0.10)
    assert c["budget.reserve_min"] == 2**30
    assert c["budget.streaming_pool"] == 2 * 2**30
    assert c["limits.max_bytes"] == 16 * 2**20
    assert c.rules == ({"match": "ui/**", "role": "ui"},)
    assert c.instances == (("props/crate.obj", 40),)
    assert ("limits", "max_size") in c.given and ("limits", "max_triangles") not in c.given


@pytest.mark.parametrize(("text", "message"), [
    ("[budget]\nresoluton = ['1080p']\n", "[budget] unknown key 'resoluton'; did you mean 'resolutions'?"),
    ("[budgte]\n", "unknown section [budgte]; did you mean 'budget'?"),
    ("[budget]\nquality = 'ultar'\n", "[budget] quality = 'ultar': allowed values are ultra, high, medium, low (did you mean 'ultra'?)"),
    ("[budget]\nrt = 'nvidai'\n", "[budget] rt = 'nvidai': allowed values are off, nvidia"),
    ("[budget]\nresolutions = ['huge']\n", "[budget] resolutions = 'huge': use one of 720p, 1080p"),
    ("[budget]\nheadroom = 'lots'\n", "[budget] headroom = 'lots': must be a percentage"),
    ("[budget]\nmsaa = 3.5\n", "[budget] msaa = 3.5: must be a whole number from 1 to 8"),
    ("[limits]\nmax_bytes = 'big'\n", "[limits] max_bytes = 'big': 'big' is not a size"),
    ("[limits]\nrequire_mips = 'yes'\n", "[limits] require_mips = 'yes': must be true or false"),
    ("[[instances]]\nmatch = 'a.obj'\n", "[[instances]] #1: needs both 'match'"),
    ("[[instances]]\nmatch = 'a.obj'\ncount = 2\ncuont = 3\n", "[[instances]] #1: unknown key 'cuont'; did you mean 'count'?"),
    ("[budget\n", "not valid TOML"),
    # an empty list would judge nothing (a check that cannot fail) or crash: refused
    ("[budget]\ncards = []\n", "[budget] cards = []: give at least one: a memory size such as 8GB, or a card `texbudget cards` lists"),
    ("[budget]\nresolutions = []\n", "[budget] resolutions = []: give at least one: 1080p, 1440p, 4k or WxH"),
    ("[budget]\nquality = []\n", "[budget] quality = []: give at least one: ultra, high, medium, low"),
    ("[budget]\nrt = []\n", "[budget] rt = []: give at least one: off, nvidia, amd, intel,"),
    # a glob's class with a backwards range compiles to no pattern: refused, not a crash later
    ("[scan]\nexclude = ['ok/**', '[z-a]*.png']\n", "[scan] exclude = '[z-a]*.png': not a glob: bad character range z-a in a [...] class"),
    ("[scan]\ninclude = '[b-a]'\n", "[scan] include = '[b-a]': not a glob: bad character range b-a in a [...] class"),
])
def test_errors_name_file_key_and_allowed(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        config.load(p)
    assert str(p) in str(info.value)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file():
    with pytest.raises(ConfigError, match="no such config file"):
        config.load(Path("/nonexistent/texbudget.toml"))


def test_found_by_walking_up(tmp_path):
    p = write(tmp_path, "[budget]\ncards = ['12GB']\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert config.find_config(deep) == p
    assert config.load_for(deep)["budget.cards"] == ("12GB",)


def test_pyproject_tool_section(tmp_path):
    write(tmp_path, "[project]\nname = 'x'\n\n[tool.texbudget.budget]\ncards = ['16GB']\n", "pyproject.toml")
    found = config.find_config(tmp_path)
    assert found == tmp_path / "pyproject.toml"
    assert config.load(found)["budget.cards"] == ("16GB",)


def test_pyproject_without_section_is_skipped(tmp_path):
    write(tmp_path, "[project]\nname = 'x'\n", "pyproject.toml")
    sub = tmp_path / "sub"
    sub.mkdir()
    assert config.find_config(sub) is None


def test_readme_documents_every_key():
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- config-table -->\n(.*?)<!-- /config-table -->", readme, re.S).group(1)
    documented = set(re.findall(r"^\| `\[(\w+)\] (\w+)`", table, re.M))
    schema = {(s, k) for s, keys in config.SCHEMA.items() for k in keys}
    assert documented == schema
    for array in config.ARRAYS:
        assert f"| `[[{array}]]`" in table


def test_a_byte_order_mark_and_windows_line_ends_are_read(tmp_path):
    """Notepad writes UTF-8 with a byte-order mark and CRLF; tomllib refuses the mark."""
    p = tmp_path / "texbudget.toml"
    p.write_bytes(b'\xef\xbb\xbf# ours\r\n[budget]\r\ncards = ["8GB"]\r\n')
    assert config.load(p)["budget.cards"] == ("8GB",)
    py = tmp_path / "sub" / "pyproject.toml"
    py.parent.mkdir()
    py.write_bytes(b'\xef\xbb\xbf[tool.texbudget.budget]\r\ncards = ["12GB"]\r\n')
    assert config.find_config(py.parent) == py
    assert config.load(py)["budget.cards"] == ("12GB",)
