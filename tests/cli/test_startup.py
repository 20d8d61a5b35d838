"""A command with nothing to do imports only what it uses (issue 22, item 5).

Each command runs in a fresh interpreter, and what it imported is read from ``sys.modules``
when it is done. ``benchmarks/startup.py`` measures what that saves; this keeps it saved.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from texbudget.cli import main

#: Runs ``main`` on its arguments, then writes every module loaded to stderr after a marker.
SCRIPT = """\
import sys
from texbudget.cli import main
code = main(sys.argv[1:])
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""

#: Never for a command with nothing to do: the libraries for pixels, meshes, the TUI and records.
LIBRARIES = ("numpy", "PIL", "trimesh", "textual", "msgspec")
#: Nor the pipeline (records, findings, the read cache's sqlite3, the tables and what reads
#: them), a report, or what only a mistake or a crash needs.
PIPELINE = (
    "texbudget.model", "texbudget.findings", "texbudget.pipeline", "texbudget.scan", "texbudget.cache",
    "texbudget.budget", "texbudget.policy", "texbudget.sizing", "texbudget.formats", "texbudget.format_table",
    "texbudget.levels", "texbudget.limits", "texbudget.report", "texbudget.engine",
    "sqlite3", "importlib.resources", "fractions", "decimal", "difflib", "traceback",
)
#: ``--version`` and ``--help`` read no config and walk no folder.
NO_CONFIG = ("texbudget.config", "texbudget.discover", "texbudget.readers", "tomllib", "dataclasses")


def imported(*argv: str, cwd: Path | None = None) -> tuple[int, str, set[str]]:
    """(exit code, stdout, the modules loaded) of ``texbudget ARGV`` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, cwd=cwd)
    _, _, modules = done.stderr.rpartition("\nMODULES ")
    assert modules, done.stderr
    return done.returncode, done.stdout, set(modules.split())


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of ``names`` (a package counts with everything under it) that were loaded."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("argv", [("--version",), ("--help",)])
def test_version_and_help_import_only_the_command_line(argv):
    code, out, modules = imported(*argv)
    assert code == 0 and out.startswith(("texbudget 0.", "usage: texbudget"))
    assert loaded(modules, LIBRARIES + PIPELINE + NO_CONFIG) == []
    assert "texbudget.cli" in modules and "argparse" in modules


def test_check_of_an_empty_folder_imports_no_pipeline(tmp_path):
    code, out, modules = imported("check", str(tmp_path))
    assert (code, out) == (0, "")
    assert loaded(modules, LIBRARIES + PIPELINE) == []
    assert {"texbudget.config", "texbudget.discover"} <= modules  # it did look
    assert not (tmp_path / ".texbudget").exists()  # nothing read, nothing cached


def test_check_of_named_files_none_to_read_imports_no_pipeline(tmp_path):
    """The pre-commit hook's case: the files named are gone (a commit deleted them) or
    excluded by ``[scan] exclude``."""
    (tmp_path / "texbudget.toml").write_text('[scan]\nexclude = ["raw/"]\n', encoding="utf-8")
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "rock.png").write_bytes(b"not read")
    code, out, modules = imported("check", "gone.png", "raw/rock.png", cwd=tmp_path)
    assert (code, out) == (0, "")
    assert loaded(modules, LIBRARIES + PIPELINE) == []


def test_the_scene_budget_of_an_empty_folder_still_runs_the_pipeline(tmp_path):
    """`check --total` judges the empty scene (render targets alone): the whole pipeline, and
    the same subprocess sees it, so the tests above can fail."""
    code, out, modules = imported("check", "--total", "--cards", "1GB", str(tmp_path))
    assert (code, out.splitlines()) == (1, [
        ".: 2560x1440 ultra rt off: over on 1GB by 71.35 MiB (total 327.35 MiB, usable 256.00 MiB) [TB030]",
        ".: 3840x2160 ultra rt off: over on 1GB by 397.26 MiB (total 653.26 MiB, usable 256.00 MiB) [TB030]",
        "texbudget check: 2 problems (2 scene-wide)",
    ])
    assert {"texbudget.pipeline", "texbudget.budget.assessment", "msgspec", "sqlite3"} <= modules
    assert loaded(modules, ("numpy", "PIL", "trimesh", "textual")) == []


# --- what the early return must keep -------------------------------------------------------


def test_check_of_an_empty_folder_still_checks_its_flags(tmp_path, capsys):
    assert main(["check", "--quality", "epic", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("texbudget: error: --quality epic: ")
    assert main(["check", "--jobs", "0", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "texbudget: error: --jobs 0: allowed 1 to 256\n"
    assert main(["check", "--max-growth", "5%", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "texbudget: error: --max-growth needs --baseline BASE.json to compare with\n"


def test_check_of_a_folder_with_nothing_to_read_but_a_broken_link_reports_it(tmp_path, capsys):
    """Discovery's own findings are problems too: nothing to read is not nothing to say."""
    (tmp_path / "rock.png").symlink_to(tmp_path / "missing.png")
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("rock.png: broken symbolic link (target ") and out[0].endswith("[TB001]")
    assert out[-1] == "texbudget check: 1 problem in 1 file"


@pytest.mark.parametrize(("argv", "first"), [
    (("--format", "markdown"), "## texbudget check"),
    (("--format", "json"), "{"),
])
def test_check_of_an_empty_folder_as_a_report_still_writes_it(tmp_path, capsys, argv, first):
    assert main(["check", *argv, str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(first)


# --- what a scan imports for levels ---------------------------------------------------------


def test_a_scan_without_levels_or_engine_scenes_imports_no_levels(tmp_path):
    """Levels come from [[level]] or a Godot or Unity scene: a texture tree's scan does not
    load the levels' modules (the Godot and Unity indexes); a Godot scene's does."""
    from PIL import Image

    Image.new("RGB", (4, 4)).save(tmp_path / "rock.png")
    code, out, modules = imported("scan", "--no-cache", str(tmp_path))
    assert code == 0 and out.startswith("texbudget: 1 textures, 0 meshes")
    assert loaded(modules, ("texbudget.levels",)) == []
    (tmp_path / "town.tscn").write_text('[gd_scene format=3]\n\n[node name="Town" type="Node3D"]\n', encoding="utf-8")
    code, out, modules = imported("scan", "--no-cache", str(tmp_path))
    assert code == 0 and {"texbudget.levels.reading", "texbudget.levels.project"} <= modules
