"""benchmarks/real_projects.py runs end to end without the real corpora: on the Godot demo
project (assets/godot_demo, every finding known: none) checked out from a git repository made
here, as the script checks out a bare mirror (a missing object is listed, not fatal)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GODOT = REPO / "assets" / "godot_demo"


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    work = tmp_path_factory.mktemp("work")
    shutil.copytree(GODOT, work / "godot_demo")
    _git("init", "-q", cwd=work)
    _git("add", "-A", cwd=work)
    _git("commit", "-q", "-m", "demo", cwd=work)
    bare = tmp_path_factory.mktemp("mirror") / "repo"
    _git("clone", "-q", "--bare", str(work), str(bare), cwd=work)
    return bare


def test_godot_demo_through_the_script_has_no_finding(bare: Path, tmp_path: Path) -> None:
    out = tmp_path / "godot.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "real_projects.py"), "godot", "--git", str(bare),
                           "--into", str(tmp_path / "checkout"), "--json", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert (result["projects"], result["files_read"], result["levels"]) == (1, 30, 3)
    assert (result["level_meshes"], result["level_textures"]) == (5 + 5, 10 + 10 + 1)
    assert result["sidecars"] == 15 and result["findings"] == {} and result["listed"] == []
    assert result["absent_from_checkout"] == {"files": 0, "tb120": 0}


def test_checkout_lists_the_objects_a_mirror_lacks(bare: Path, tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import real_projects
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    mirror = shutil.copytree(bare, tmp_path / "mirror")
    blob = _git("rev-parse", "HEAD:godot_demo/textures/cobble_albedo.png", cwd=mirror).strip()
    (mirror / "objects" / blob[:2] / blob[2:]).unlink()  # a loose object (a local clone's): the mirror lacks it
    missing = real_projects.checkout(mirror, tmp_path / "co")
    assert missing == ["godot_demo/textures/cobble_albedo.png"]
    assert (tmp_path / "co" / "godot_demo" / "project.godot").read_bytes() == (GODOT / "project.godot").read_bytes()
    assert not (tmp_path / "co" / "godot_demo" / "textures" / "cobble_albedo.png").exists()


def test_a_unity_project_through_the_script(tmp_path: Path) -> None:
    """The hand-made Unity project of the level tests (tests/integration/level_projects.py) read
    and resolved by the script with ``levels.project.EngineProject``, as the scan resolves it:
    its Build Settings scene, the FBX crate's mesh, the three textures its materials load, the
    two built-ins (TB124) and the deleted model (TB123) as the level tests find them."""
    from tests.integration import level_projects as lp

    root = lp.unity_project(tmp_path / "proj")
    out = tmp_path / "unity.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "real_projects.py"), "unity", str(root), "--json", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert (result["projects"], result["files_read"], result["sidecars"], result["lfs_pointers"]) == (1, 11, 4, 0)
    assert result["by_suffix"] == {".fbx": 1, ".mat": 2, ".png": 4, ".prefab": 3, ".unity": 1}
    assert (result["levels"], result["level_meshes"], result["level_textures"]) == (1, len(lp.MAIN_MESHES), len(lp.MAIN_TEXTURES))
    assert result["by_code"] == {"TB113 info": 2, "TB123 warning": 1, "TB124 info": 2}
    assert [(f["path"], f["code"]) for f in result["listed"]] == [("Assets/Scenes/Main.unity", "TB123")]
    assert "(Ghost): guid 64656c657465642d6d6f64656c000000 is in no .meta" in result["listed"][0]["message"]
