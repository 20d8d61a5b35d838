"""Config loading: defaults, every key of every section with good and bad values, and every
mistake as one line naming the file, the key (with the entry's number in an array), the value
and what is allowed. The flags that override a key go through the same checker."""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from texbudget import config
from texbudget.budget.settings import BudgetSettings, settings_from_config
from texbudget.errors import ConfigError, UsageError
from texbudget.policy.rules import Rule
from texbudget.sizing.meshes import VertexLayout

GIB, MIB = 2**30, 2**20
RT = "off, nvidia, nvidia-rtx50, amd, amd-rdna4, intel, radv, radv26, radv26-rdna4, anv, anv-grl, lavapipe"
PLATFORMS = "desktop, desktop-bc7, mobile-astc, mobile-etc2, uncompressed"
CARDS = "a memory size such as 8GB, or a card `texbudget cards` lists"
SIZE = "is not a size; use a number of bytes or e.g. '16 MiB', '2 GiB'"
LAYOUT = "write NAME:TYPExCOUNT, TYPE one of f32, f16, u32, u16, s16, u8, s8, COUNT 1 to 16 (e.g. 'position:f32x3')"
SCENES = ".tscn, .scn, .escn, .unity, .prefab, .gltf, .glb"


def write(tmp_path: Path, text: str, name: str = "texbudget.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def every_key() -> set[tuple[str, str]]:
    return {(s, k) for s in config.SECTIONS for k in config.section_keys(s)}


def test_defaults():
    c = config.load(None)
    assert c["budget.cards"] == ("8GB", "12GB", "16GB", "24GB")
    assert c["budget.resolutions"] == ("1920x1080", "2560x1440", "3840x2160")
    assert c["budget.reserve"] == 0.07 and c["budget.reserve_min"] == 768 * MIB
    assert c["budget.headroom"] == 0.05
    assert c["budget.rt"] is None
    assert c.label == "defaults" and c.rules == () and c.instances == () and c.levels == ()
    assert c == config.validate({}, None)


def test_the_config_defaults_are_the_budget_defaults():
    """One default for each value: the budget's record built from the default section is the
    budget's own default record (they used to be written twice)."""
    assert settings_from_config(config.BudgetSection()) == BudgetSettings()


# --- every key of every section: a good value and what it becomes --------------------------------

GOOD = [
    ("budget", "cards", '"8GB"', ("8GB",)),
    ("budget", "cards", '["8GB", "RTX-4070", "ps5"]', ("8GB", "RTX-4070", "ps5")),
    ("budget", "cards", '"8GB, 12GB,"', ("8GB", "12GB")),  # as --cards: names separated by commas
    ("budget", "resolutions", '["1080p", "4K", "2560x1080"]', ("1920x1080", "3840x2160", "2560x1080")),
    ("budget", "resolutions", '"1440p"', ("2560x1440",)),
    ("budget", "quality", '"High"', ("high",)),
    ("budget", "quality", '["ultra", "low"]', ("ultra", "low")),
    ("budget", "platform", '"Mobile-ASTC"', "mobile-astc"),
    ("budget", "high_quality", "true", True),
    ("budget", "rt", '["off", "NVIDIA", "nvidia"]', ("off", "nvidia")),
    ("budget", "rt", '"nvidia-rtx50"', ("nvidia-rtx50",)),  # a profile of the table: refused before
    ("budget", "renderer", '"Forward"', "forward"),
    ("budget", "upscaler", '"ultra-performance"', "ultra-performance"),
    ("budget", "shadows", '"vsm"', "vsm"),
    ("budget", "msaa", "4", 4),
    ("budget", "reserve", "10", 0.1),
    ("budget", "reserve", '"7 %"', 0.07),
    ("budget", "reserve", "99.5", 0.995),
    ("budget", "reserve_min", '"1 GiB"', GIB),
    ("budget", "reserve_min", "0", 0),
    ("budget", "headroom", '"2.5%"', 0.025),
    ("budget", "allocation", '"none"', "none"),
    ("budget", "streaming", "true", True),
    ("budget", "streaming_pool", '"2GB"', 2 * GIB),
    ("budget", "rt_compaction", "false", False),
    ("scan", "include", '"*.png"', ("*.png",)),
    ("scan", "include", '["tex/", "!tex/wip/"]', ("tex/", "!tex/wip/")),
    ("scan", "include", "[]", ()),  # everything, as when it is not set
    ("scan", "exclude", '["build/", "**/[Bb]ackup/**"]', ("build/", "**/[Bb]ackup/**")),
    ("scan", "follow", '"GLTF"', "gltf"),
    ("limits", "max_size", "4096", 4096),
    ("limits", "max_bytes", '"16 MiB"', 16 * MIB),
    ("limits", "require_mips", "true", True),
    ("limits", "forbid_uncompressed", "true", True),
    ("limits", "multiple_of_4", "true", True),
    ("limits", "power_of_two", "true", True),
    ("limits", "max_triangles", "100000", 100000),
    ("limits", "max_total", '"6 GiB"', 6 * GIB),
    ("limits", "max_growth", '"5%"', 0.05),
    ("limits", "max_growth", "100", 1.0),
    ("limits", "forbid_unused", "true", True),
    ("limits", "total", "true", True),
    ("meshes", "layout", '["position:f32x3", "normal:s8x4"]',
     VertexLayout((("position", "FLOAT", 3), ("normal", "BYTE", 4)), name="config")),
    ("meshes", "skinned_copy", "true", True),
    ("meshes", "rt_lod", "2", 2),
]


@pytest.mark.parametrize(("section", "key", "text", "value"), GOOD)
def test_a_good_value_is_cleaned(tmp_path, section, key, text, value):
    c = config.load(write(tmp_path, f"[{section}]\n{key} = {text}\n"))
    assert c[f"{section}.{key}"] == value
    assert c.given == {(section, key)}


def test_every_key_has_a_good_and_a_bad_value():
    assert {(s, k) for s, k, _, _ in GOOD} == every_key()
    assert {(s, k) for s, k, _, _ in BAD} == every_key()


# --- every key of every section: bad values, each one line naming file, key and what is allowed ---

BAD = [
    ("budget", "cards", "3", f"[budget] cards = 3: must be a string or a list of strings: {CARDS}"),
    ("budget", "cards", "[]", f"[budget] cards = []: give at least one: {CARDS}"),
    ("budget", "cards", '", "', f"[budget] cards = ', ': give at least one: {CARDS}"),
    ("budget", "cards", '["8GB", "rtx-9999"]',
     f"[budget] cards = 'rtx-9999': not a card (did you mean 'rtx-5090', 'rtx-4090', 'rtx-3090'?); allowed: {CARDS}"),
    ("budget", "resolutions", '["1080p", "huge"]',
     "[budget] resolutions = 'huge': use one of 720p, 1080p, 1440p, 4k, 2160p, 8k or WIDTHxHEIGHT"),
    ("budget", "resolutions", '["0x0"]', "[budget] resolutions = '0x0': each side must be 1 to 65536"),
    ("budget", "resolutions", "[1080]", "[budget] resolutions = 1080: must be a string"),
    ("budget", "resolutions", "[]", "[budget] resolutions = []: give at least one: 1080p, 1440p, 4k or WxH"),
    ("budget", "quality", '"ultar"', "[budget] quality = 'ultar': allowed values are ultra, high, medium, low (did you mean 'ultra'?)"),
    ("budget", "quality", "[]", "[budget] quality = []: give at least one: ultra, high, medium, low"),
    ("budget", "platform", '"console"', f"[budget] platform = 'console': allowed values are {PLATFORMS}"),
    ("budget", "platform", "3", f"[budget] platform = 3: must be a string, one of {PLATFORMS}"),
    ("budget", "high_quality", "1", "[budget] high_quality = 1: must be true or false"),
    ("budget", "rt", '"nvidai"', f"[budget] rt = 'nvidai': allowed values are {RT} (did you mean 'nvidia'?)"),
    ("budget", "rt", "[]", "[budget] rt = []: give at least one: off or a ray-tracing profile"),
    ("budget", "renderer", '"tiled"', "[budget] renderer = 'tiled': allowed values are deferred, forward"),
    ("budget", "upscaler", '"dlss"', "[budget] upscaler = 'dlss': allowed values are native, quality, balanced, performance, ultra-performance"),
    ("budget", "shadows", '"pcss"', "[budget] shadows = 'pcss': allowed values are csm, vsm, none"),
    # 3 passed the file's check (1 to 8) and was refused later with no file or key (issue 22)
    ("budget", "msaa", "3", "[budget] msaa = 3: allowed values are 1, 2, 4, 8"),
    ("budget", "msaa", "4.0", "[budget] msaa = 4.0: allowed values are 1, 2, 4, 8"),
    ("budget", "msaa", "true", "[budget] msaa = True: allowed values are 1, 2, 4, 8"),
    # 100 passed the file's check (0 to 100) and was refused later with no file or key
    ("budget", "reserve", "100", "[budget] reserve = 100: must be a percentage from 0 to below 100"),
    ("budget", "reserve", "-1", "[budget] reserve = -1: must be a percentage from 0 to below 100"),
    ("budget", "reserve", '"lots"', "[budget] reserve = 'lots': must be a percentage such as 5 or \"5%\", from 0 to below 100"),
    ("budget", "reserve", "true", "[budget] reserve = True: must be a percentage from 0 to below 100"),
    ("budget", "reserve", "nan", "[budget] reserve = nan: must be a percentage from 0 to below 100"),
    ("budget", "reserve_min", "-1", "[budget] reserve_min = -1: a size cannot be negative"),
    ("budget", "reserve_min", '"big"', f"[budget] reserve_min = 'big': 'big' {SIZE}"),
    ("budget", "headroom", '"100%"', "[budget] headroom = '100%': must be a percentage from 0 to below 100"),
    ("budget", "allocation", '"d3d11"', "[budget] allocation = 'd3d11': allowed values are d3d12, none (did you mean 'd3d12'?)"),
    ("budget", "streaming", '"yes"', "[budget] streaming = 'yes': must be true or false"),
    ("budget", "streaming_pool", "true", f"[budget] streaming_pool = True: True {SIZE}"),
    ("budget", "rt_compaction", "0", "[budget] rt_compaction = 0: must be true or false"),
    ("scan", "include", '"[b-a]"', "[scan] include = '[b-a]': not a glob: bad character range b-a in a [...] class"),
    ("scan", "include", "[3]", "[scan] include = 3: must be a string"),
    # as include, a list of such patterns meant everything; git matches nothing with them
    ("scan", "include", '["/"]', "[scan] include = '/': matches nothing (a blank pattern, a # comment, or / or ! alone)"),
    ("scan", "exclude", '["# old"]', "[scan] exclude = '# old': matches nothing (a blank pattern, a # comment, or / or ! alone)"),
    ("scan", "exclude", '["[ab.png"]',
     "[scan] exclude = '[ab.png': not a glob: the [ at 1 opens a [...] class that no ] closes (write \\[ for a [)"),
    ("scan", "exclude", '["[[:foo:]]x.png"]', "[scan] exclude = '[[:foo:]]x.png': not a glob: unknown class [:foo:] in a [...] class; "
     "allowed: alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit"),
    ("scan", "exclude", '["ok/**", "[z-a]*.png"]', "[scan] exclude = '[z-a]*.png': not a glob: bad character range z-a in a [...] class"),
    ("scan", "exclude", "{a = 1}", "[scan] exclude = {'a': 1}: must be a string or a list of strings: gitignore-style globs"),
    ("scan", "follow", '"all"', "[scan] follow = 'all': allowed values are tree, gltf"),
    ("limits", "max_size", "0", "[limits] max_size = 0: must be a whole number from 1 to 65536"),
    ("limits", "max_size", "65537", "[limits] max_size = 65537: must be a whole number from 1 to 65536"),
    ("limits", "max_size", "true", "[limits] max_size = True: must be a whole number from 1 to 65536"),
    ("limits", "max_bytes", '"big"', f"[limits] max_bytes = 'big': 'big' {SIZE}"),
    ("limits", "require_mips", '"yes"', "[limits] require_mips = 'yes': must be true or false"),
    ("limits", "forbid_uncompressed", "1", "[limits] forbid_uncompressed = 1: must be true or false"),
    ("limits", "multiple_of_4", '"true"', "[limits] multiple_of_4 = 'true': must be true or false"),
    ("limits", "power_of_two", "0", "[limits] power_of_two = 0: must be true or false"),
    ("limits", "max_triangles", "0", "[limits] max_triangles = 0: must be a whole number from 1 to 1099511627776"),
    ("limits", "max_total", "-5", "[limits] max_total = -5: a size cannot be negative"),
    ("limits", "max_growth", "150", "[limits] max_growth = 150: must be a percentage from 0 to 100"),
    ("limits", "forbid_unused", '"no"', "[limits] forbid_unused = 'no': must be true or false"),
    ("limits", "total", "1", "[limits] total = 1: must be true or false"),
    ("meshes", "layout", '["position:f64x3"]', f"[meshes] layout = 'position:f64x3': {LAYOUT}"),
    ("meshes", "layout", '["position:f32x17"]', f"[meshes] layout = 'position:f32x17': {LAYOUT}"),
    # an empty layout was taken for no layout (the stored bytes)
    ("meshes", "layout", "[]", "[meshes] layout = []: give at least one: attributes such as 'position:f32x3'"),
    ("meshes", "skinned_copy", '"no"', "[meshes] skinned_copy = 'no': must be true or false"),
    ("meshes", "rt_lod", "17", "[meshes] rt_lod = 17: must be a whole number from 0 to 16"),
]


@pytest.mark.parametrize(("section", "key", "text", "message"), BAD)
def test_a_bad_value_is_one_line_naming_file_key_and_allowed(tmp_path, section, key, text, message):
    p = write(tmp_path, f"[{section}]\n{key} = {text}\n")
    with pytest.raises(ConfigError) as info:
        config.load(p)
    assert str(info.value) == f"{p}: {message}"


@pytest.mark.parametrize(("text", "message"), [
    ("[budget]\nresoluton = ['1080p']\n", "[budget] unknown key 'resoluton'; did you mean 'resolutions'? (allowed: cards, resolutions, "
     "quality, platform, high_quality, rt, renderer, upscaler, shadows, msaa, reserve, reserve_min, headroom, allocation, streaming, "
     "streaming_pool, rt_compaction)"),
    ("[limits]\nmax_sizes = 1\n", "[limits] unknown key 'max_sizes'; did you mean 'max_size'? (allowed: max_size, max_bytes, "
     "require_mips, forbid_uncompressed, multiple_of_4, power_of_two, max_triangles, max_total, max_growth, forbid_unused, total)"),
    ("[scan]\nignore = []\n", "[scan] unknown key 'ignore' (allowed: include, exclude, follow)"),
    ("[budgte]\n", "unknown section [budgte]; did you mean 'budget'? (allowed: budget, scan, limits, meshes, [[rule]], "
     "[[instances]], [[level]])"),
    ("budget = 3\n", "[budget] = 3: must be a table ([budget])"),
    ("[budget\n", "not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 8)"),
    # [[rule]] (every key's own values: tests/unit/test_policy.py, test_rule_errors_are_one_clear_line)
    ("[[rule]]\nmatch = 'a'\nformt = 'BC7'\n", "[[rule]] #1: unknown key 'formt'; did you mean 'format'? "
     "(allowed: match, role, format, max_size, mips, ignore, platform, note)"),
    ("[[rule]]\nmatch = 'a'\nignore = true\n[[rule]]\nmatch = 'b'\nformat = 'BC7_SRBG'\n",
     "[[rule]] #2 format = 'BC7_SRBG': not a GPU format (did you mean 'BC7_SRGB', 'BC3_SRGB', 'BC2_SRGB'?); allowed: the names "
     "`texbudget formats` lists, e.g. BC7_SRGB, BC5_UNORM, ASTC_6x6_SRGB, R8G8B8A8_UNORM, a Vulkan or DXGI name, or a number: vk:37, dxgi:28"),
    ("[[rule]]\nmatch = ''\nignore = true\n", "[[rule]] #1 match = '': must be a non-empty glob such as \"textures/**/*_n.png\""),
    ("[[rule]]\nmatch = 'a'\nignore = true\nplatform = []\n", "[[rule]] #1 platform = []: give at least one: a platform profile"),
    ("[[rule]]\nmatch = 'a'\nignore = true\nnote = 3\n", "[[rule]] #1 note = 3: must be a string"),
    ("[[rule]]\nmatch = 'a'\nmax_size = 4096.0\n",
     "[[rule]] #1 max_size = 4096.0: must be a whole number from 1 to 65536 (texels on the longest side)"),
    ("rule = [1]\n", "[[rule]] = [1]: must be an array of tables ([[...]])"),
    # [[instances]]
    ("[[instances]]\nmatch = 'a.obj'\n", "[[instances]] #1: needs 'count', how many instances (0 to 2147483648)"),
    ("[[instances]]\ncount = 2\n", "[[instances]] #1: needs 'match', a mesh path or glob"),
    ("[[instances]]\nmatch = 'a.obj'\ncount = 2\ncuont = 3\n",
     "[[instances]] #1: unknown key 'cuont'; did you mean 'count'? (allowed: match, count)"),
    ("[[instances]]\nmatch = 'a.obj'\ncount = 1\n[[instances]]\nmatch = 'b.obj'\ncount = -1\n",
     "[[instances]] #2 count = -1: must be a whole number from 0 to 2147483648"),
    ("[[instances]]\nmatch = 'a.obj'\ncount = '3'\n", "[[instances]] #1 count = '3': must be a whole number from 0 to 2147483648"),
    ("[[instances]]\nmatch = ''\ncount = 3\n", "[[instances]] #1 match = '': must not be empty"),
    ("[[instances]]\nmatch = 3\ncount = 3\n", "[[instances]] #1 match = 3: must be a string"),
    ("instances = {match = 'a'}\n", "[[instances]] = {'match': 'a'}: must be an array of tables ([[...]])"),
    # [[level]] (as the levels branch reads them)
    ('[[level]]\nname = "town"\n', f"[[level]] #1: needs 'scene', the level's scene file relative to the scan root ({SCENES})"),
    ('[[level]]\nscene = "a.tscn"\nnmae = "x"\n', "[[level]] #1: unknown key 'nmae'; did you mean 'name'? (allowed: name, scene)"),
    ('[[level]]\nscene = "a.png"\n', f"[[level]] #1 scene = 'a.png': a level is a scene file: {SCENES}"),
    ('[[level]]\nscene = "../a.tscn"\n', "[[level]] #1 scene = '../a.tscn': a path relative to the scan root, inside it"),
    ('[[level]]\nscene = "/a.tscn"\n', "[[level]] #1 scene = '/a.tscn': a path relative to the scan root, inside it"),
    ('[[level]]\nscene = "a.tscn"\n[[level]]\nscene = "b/a.tscn"\n',
     "[[level]] #2 name = 'a': another [[level]] has that name (a.tscn); names must differ"),
    ('[[level]]\nscene = 3\n', "[[level]] #1 scene = 3: must be a string"),
    ('[[level]]\nscene = "a.tscn"\nname = " "\n', "[[level]] #1 name = ' ': must not be empty"),
    ('level = "a.tscn"\n', "[[level]] = 'a.tscn': must be an array of tables ([[...]])"),
])
def test_errors_name_file_key_and_allowed(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        config.load(p)
    assert str(info.value) == f"{p}: {message}"


def test_arrays_of_tables(tmp_path):
    p = write(tmp_path, """
[[rule]]
match = "ui/**"
role = "UI"

[[rule]]
match = "env/*.exr"
format = "BC6H"
max_size = 2048
platform = "Desktop"
note = "far away"

[[instances]]
match = "props/crate.obj"
count = 40

[[level]]
scene = "./levels\\\\town.tscn"

[[level]]
name = "Boss"
scene = "levels/boss.glb"
""")
    c = config.load(p)
    assert c.rules == (
        Rule(match="ui/**", index=1, source="texbudget.toml", role="ui", keys=frozenset({"role"})),
        Rule(match="env/*.exr", index=2, source="texbudget.toml", format="BC6H_UFLOAT", max_size=2048, platforms=("desktop",),
             note="far away", keys=frozenset({"format", "max_size"}), format_exact=False),
    )
    assert c.instances == (("props/crate.obj", 40),)
    assert c.levels == (("town", "levels/town.tscn"), ("Boss", "levels/boss.glb"))


def test_rules_appended_after_the_file_are_numbered_after_it():
    """The TUI's rules written this session: numbered as the file will have them."""
    (rule,) = config.parse_rules([{"match": "a.png", "mips": False}], "texbudget.toml", first=4)
    assert (rule.index, rule.where) == (4, "rule 4 in texbudget.toml")
    with pytest.raises(ConfigError, match=re.escape("what-if: [[rule]] #4 mips = 'no': must be true or false")):
        config.parse_rules([{"match": "a.png", "mips": "no"}], "what-if", first=4)


# --- flags: the same checker as their key, the flag named ---------------------------------------


@pytest.mark.parametrize(("flag", "value", "clean"), [
    ("--platform", "Desktop-BC7", "desktop-bc7"),
    ("--quality", "High", ("high",)),
    ("--resolution", ["1080p", "3440x1440"], ("1920x1080", "3440x1440")),
    ("--rt", "off, NVIDIA,off", ("off", "nvidia")),
    ("--cards", "8GB, rtx-4070", ("8GB", "rtx-4070")),
    ("--max-growth", "5%", 0.05),
    ("--cards", None, None),
])
def test_a_flag_is_cleaned_as_its_key(flag, value, clean):
    assert config.check_flag(flag, value) == clean


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--platform", "console", f"--platform console: allowed values are {PLATFORMS}"),
    ("--quality", "ultar", "--quality ultar: allowed values are ultra, high, medium, low (did you mean 'ultra'?)"),
    ("--resolution", ["4k", "huge"], "--resolution huge: use one of 720p, 1080p, 1440p, 4k, 2160p, 8k or WIDTHxHEIGHT"),
    ("--rt", "off,nvidai", f"--rt nvidai: allowed values are {RT} (did you mean 'nvidia'?)"),
    ("--rt", ",", "--rt ,: give at least one: off or a ray-tracing profile"),
    ("--cards", "8GB,rtx-9999", f"--cards rtx-9999: not a card (did you mean 'rtx-5090', 'rtx-4090', 'rtx-3090'?); allowed: {CARDS}"),
    ("--max-growth", "150", "--max-growth 150: must be a percentage from 0 to 100"),
])
def test_a_bad_flag_is_one_line_naming_the_flag(flag, value, message):
    with pytest.raises(UsageError) as info:
        config.check_flag(flag, value)
    assert str(info.value) == message


def test_every_flag_overrides_a_key():
    assert set(config.FLAGS.values()) <= every_key()


# --- finding and reading ----------------------------------------------------------------------


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


def test_pyproject_errors_name_the_pyproject(tmp_path):
    p = write(tmp_path, "[tool.texbudget.budget]\nmsaa = 3\n\n[[tool.texbudget.rule]]\nmatch = 'a'\n", "pyproject.toml")
    with pytest.raises(ConfigError) as info:
        config.load(p)
    assert str(info.value) == f"{p}: [budget] msaa = 3: allowed values are 1, 2, 4, 8"


def test_pyproject_without_section_is_skipped(tmp_path):
    write(tmp_path, "[project]\nname = 'x'\n", "pyproject.toml")
    sub = tmp_path / "sub"
    sub.mkdir()
    assert config.find_config(sub) is None


def test_readme_documents_every_key():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- config-table -->\n(.*?)<!-- /config-table -->", readme, re.S).group(1)
    documented = set(re.findall(r"^\| `\[(\w+)\] (\w+)`", table, re.M))
    assert documented == every_key()
    for array in config.ARRAYS:
        assert f"| `[[{array}]]`" in table
    for name in config.SECTIONS:
        assert all(f.metadata["check"] for f in fields(config.SECTIONS[name]))


#: Keys whose README default says what the missing value means rather than a value to write.
DESCRIBED_DEFAULTS = {("budget", "rt"), ("budget", "streaming_pool"), ("meshes", "layout")}


def test_readme_defaults_are_the_code_defaults():
    """The README's default of each key, read through the key's own checker, is the record's
    default ("—" for a key that is not set)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- config-table -->\n(.*?)<!-- /config-table -->", readme, re.S).group(1)
    rows = re.findall(r"^\| `\[(\w+)\] (\w+)` \| [^|]+ \| ([^|]+) \|", table, re.M)
    assert {(s, k) for s, k, _ in rows} == every_key()
    for section, key, cell in rows:
        default = next(f.default for f in fields(config.SECTIONS[section]) if f.name == key)
        if (section, key) in DESCRIBED_DEFAULTS:
            assert default is None, (section, key)
            continue
        written = re.match(r"\s*`([^`]+)`", cell)
        if written is None:
            assert cell.strip().startswith("—") and default is None, (section, key, cell)
            continue
        check = next(f.metadata["check"] for f in fields(config.SECTIONS[section]) if f.name == key)
        assert check(tomllib.loads(f"v = {written.group(1)}")["v"]) == default, (section, key, cell)


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
