"""The core never imports Textual: scan, check and the JSON report start without it."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE = (
    "texbudget.cli", "texbudget.scan.scene", "texbudget.pipeline", "texbudget.readers", "texbudget.sizing",
    "texbudget.sizing.textures", "texbudget.policy.decision", "texbudget.budget.assessment", "texbudget.report",
    "texbudget.report.text", "texbudget.report.json", "texbudget.configwrite", "texbudget.alternatives",
    "texbudget.limits",
)


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_not_import_textual(module):
    code = f"import sys, {module}; assert 'textual' not in sys.modules, sorted(m for m in sys.modules if m.startswith('textual'))"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_scan_json_runs_without_textual(tmp_path):
    code = (
        "import sys, io, contextlib\n"
        "from texbudget import cli\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = cli.main(['scan', {str(tmp_path)!r}, '--format', 'json'])\n"
        "assert code == 0, code\n"
        "assert 'textual' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_tui_pure_parts_do_not_import_textual():
    code = ("import sys, texbudget.tui.browse, texbudget.tui.state, texbudget.tui.scanning; "
            "assert 'textual' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
