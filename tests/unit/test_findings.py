"""Every finding code is in one table, documented in README.md, used in the code and tested."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from texbudget import findings

REPO = Path(__file__).resolve().parents[2]
CODE = re.compile(r'"(TB\d{3})"')


def _codes_in(folder: Path) -> set[str]:
    return {c for p in folder.rglob("*.py") for c in CODE.findall(p.read_text(encoding="utf-8"))}


def test_table_is_sorted_unique_and_well_formed():
    codes = [c.code for c in findings.table()]
    assert codes == sorted(set(codes))
    for c in findings.table():
        assert re.fullmatch(r"TB\d{3}", c.code)
        assert c.meaning.endswith(".") and c.hint


def test_every_code_used_in_the_code_is_in_the_table():
    used = _codes_in(REPO / "texbudget") - {c for c in ()}
    assert used <= set(findings.CODES), sorted(used - set(findings.CODES))


def test_every_code_in_the_table_is_used_and_tested():
    table = set(findings.CODES)
    source = {c for p in (REPO / "texbudget").rglob("*.py") if p.name != "findings.py"
              for c in CODE.findall(p.read_text(encoding="utf-8"))}
    assert table <= source, f"documented but never emitted: {sorted(table - source)}"
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("*.py"))
    untested = sorted(c for c in table if c not in tests)
    assert not untested, f"no test mentions {untested}"


def test_readme_table_is_the_generated_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- findings-table -->\n(.*?)\n<!-- /findings-table -->", readme, re.S)
    assert m, "README.md needs the findings table between <!-- findings-table --> markers"
    assert m.group(1) == findings.render_markdown(), "regenerate: python -c 'from texbudget.findings import render_markdown; print(render_markdown())'"


def test_make_uses_table_severity_and_hint():
    f = findings.make("a.png", "TB040", "empty")
    assert f.severity.value == "error" and f.hint == findings.CODES["TB040"].hint
    assert findings.make("a.png", "TB040", "empty", hint="x").hint == "x"
    with pytest.raises(KeyError):
        findings.make("a.png", "TB999", "nope")
