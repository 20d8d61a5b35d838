"""The scan root follows the paths as users type them (docs/decisions.md "The scan root"):
a config file's folder, else a single folder named, else the git work tree holding the paths,
else the folder holding the file(s). Every case through ``main([...])`` from another current
folder, with exact output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.readers.gltf_factories import GltfBuilder, triangle_mesh
from texbudget.cli import main

BROKEN_DDS = b"DDS \x7c\x00\x00\x00"
BROKEN_LINE = "broken.dds: DDS header truncated: the file has 8 bytes, the header needs 128 [TB042]"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def paths_in(out: str) -> list[str]:
    return sorted(t["path"] for t in json.loads(out)["textures"])


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``downloads/`` with a texture, a broken DDS and a glTF that uses the texture; the
    current folder is ``work/``, a sibling. No config file, no repository."""
    down = tmp_path / "downloads"
    (down / "tex").mkdir(parents=True)
    Image.new("RGB", (256, 256)).save(down / "tex" / "rock_albedo.png")
    (down / "broken.dds").write_bytes(BROKEN_DDS)
    b = GltfBuilder()
    b.add_image_uri("tex/rock_albedo.png")
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(0)}})
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_glb(down / "model.glb")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return down


@pytest.mark.parametrize("absolute", [False, True])
def test_a_file_in_another_folder_is_read_from_its_own(capsys, place, absolute):
    name = str(place / "model.glb") if absolute else "../downloads/model.glb"
    code, out, err = run(capsys, "scan", name, "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [m["path"] for m in data["meshes"]] == ["model.glb#mesh/0"]
    # the glTF's image resolves inside the root: its path is relative to it, and it is used
    assert [(t["path"], t["used_by"]) for t in data["textures"]] == [("tex/rock_albedo.png", ["model.glb#material/0"])]


def test_check_an_absolute_path_from_anywhere(capsys, place):
    code, out, err = run(capsys, "check", str(place / "broken.dds"))
    assert (code, out.splitlines(), err) == (1, [BROKEN_LINE, "texbudget check: 1 problem in 1 file"], "")
    code, out, _ = run(capsys, "check", str(place / "tex" / "rock_albedo.png"))
    assert (code, out) == (0, "")


def test_explain_a_file_in_another_folder(capsys, place):
    code, out, err = run(capsys, "explain", "../downloads/tex/rock_albedo.png")
    assert (code, err) == (0, "")
    # its folder is the root, so the glTF one folder up is not read: no material uses it
    assert out.splitlines()[0] == "rock_albedo.png (texture)"
    code, out, _ = run(capsys, "explain", str(place / "model.glb") + "#mesh/0")
    assert code == 0 and out.splitlines()[0].startswith("model.glb#mesh/0")


def test_tui_gets_the_same_root(capsys, place, monkeypatch):
    import texbudget.tui.app as app

    seen = {}

    def fake_run(root, config, settings, explicit, **kwargs):
        seen.update(root=root, explicit=explicit)
        return 0

    monkeypatch.setattr(app, "run", fake_run)
    monkeypatch.setenv("TEXBUDGET_TUI_FORCE", "1")
    assert run(capsys, "tui", "../downloads/model.glb")[0] == 0
    assert seen == {"root": place, "explicit": [place / "model.glb"]}


def test_several_files_in_one_folder(capsys, place):
    Image.new("RGB", (64, 64)).save(place / "tex" / "moss_albedo.png")
    code, out, _ = run(capsys, "scan", "../downloads/tex/rock_albedo.png", str(place / "tex" / "moss_albedo.png"), "--format", "json")
    assert code == 0 and paths_in(out) == ["moss_albedo.png", "rock_albedo.png"]


def test_files_in_different_folders_take_their_common_folder(capsys, place):
    code, out, _ = run(capsys, "scan", "../downloads/tex/rock_albedo.png", "../downloads/model.glb", "--format", "json")
    assert code == 0 and paths_in(out) == ["tex/rock_albedo.png"]
    code, out, _ = run(capsys, "check", "../downloads/tex/rock_albedo.png", "../downloads/broken.dds")
    assert (code, out.splitlines()) == (1, [BROKEN_LINE, "texbudget check: 1 problem in 1 file"])


def test_no_common_folder_but_the_file_systems_root_is_one_line(capsys, place):
    if not Path("/dev/null").exists():
        pytest.skip("needs /dev/null")
    code, out, err = run(capsys, "scan", str(place / "broken.dds"), "/dev/null")
    assert (code, out) == (2, "")
    assert err == (f"texbudget: error: {place} and /dev share no folder but the file system's root: "
                   "run texbudget once for each, or put a texbudget.toml above them\n")


def test_a_config_above_the_file_sets_the_root(capsys, place):
    (place / "texbudget.toml").write_text('[budget]\ncards = ["4GB"]\n', encoding="utf-8")
    code, out, _ = run(capsys, "scan", "../downloads/tex/rock_albedo.png", "--format", "json")
    data = json.loads(out)
    assert code == 0 and paths_in(out) == ["tex/rock_albedo.png"]
    assert data["scenarios"][0]["cards"][0]["name"] == "4GB"


def test_config_flag_picks_the_file_not_the_root(capsys, place, tmp_path):
    (tmp_path / "work" / "mine.toml").write_text('[budget]\ncards = ["6GB"]\n', encoding="utf-8")
    code, out, _ = run(capsys, "scan", "../downloads/tex/rock_albedo.png", "--config", "mine.toml", "--format", "json")
    assert code == 0 and paths_in(out) == ["rock_albedo.png"]
    assert json.loads(out)["scenarios"][0]["cards"][0]["name"] == "6GB"
    # a config found above the file is not used when --config names another
    (place / "texbudget.toml").write_text('[budget]\ncards = ["4GB"]\n', encoding="utf-8")
    code, out, _ = run(capsys, "scan", "../downloads/tex/rock_albedo.png", "--config", "mine.toml", "--format", "json")
    assert code == 0 and paths_in(out) == ["rock_albedo.png"]
    assert json.loads(out)["scenarios"][0]["cards"][0]["name"] == "6GB"


def test_paths_under_different_configs_are_one_line(capsys, place, tmp_path):
    (place / "tex" / "texbudget.toml").write_text("", encoding="utf-8")
    code, out, err = run(capsys, "scan", "../downloads/tex/rock_albedo.png", "../downloads/broken.dds")
    assert (code, out) == (2, "")
    assert err == (f"texbudget: error: {place / 'tex' / 'rock_albedo.png'} and {place / 'broken.dds'} have different "
                   f"config files ({place / 'tex' / 'texbudget.toml'}; none): run texbudget once for each\n")


def test_a_path_that_does_not_exist_is_one_line(capsys, place):
    code, out, err = run(capsys, "scan", "../downloads/nope.png")
    assert (code, out, err) == (2, "", "texbudget: error: ../downloads/nope.png: no such file or folder\n")
    code, out, err = run(capsys, "explain", "../downloads/nope.png")
    assert (code, out, err) == (2, "", "texbudget: error: ../downloads/nope.png: no such file\n")
    # check skips a file a commit deleted
    assert run(capsys, "check", "../downloads/nope.png") == (0, "", "")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git work tree without a config file: a glTF in models/ uses textures/mask.png as
    its normal map; pre-commit runs hooks at the top with paths relative to it."""
    top = tmp_path / "game"
    (top / ".git").mkdir(parents=True)  # what find_repository looks for
    (top / "textures").mkdir()
    (top / "models").mkdir()
    Image.new("RGBA", (128, 128)).save(top / "textures" / "mask.png")
    (top / "textures" / "broken.dds").write_bytes(BROKEN_DDS)
    b = GltfBuilder()
    b.add_image_uri("../textures/mask.png")
    b.add_material(normalTexture={"index": b.add_texture(0)})
    b.add_scene([b.add_node(mesh=triangle_mesh(b, 3, [0, 1, 2], material=0))])
    b.write_gltf(top / "models" / "rock.gltf")
    monkeypatch.chdir(top)
    return top


def test_check_in_a_repository_keeps_its_precommit_behaviour(capsys, repo):
    code, out, _ = run(capsys, "check", "textures/broken.dds", "textures/mask.png")
    assert (code, out.splitlines()) == (1, ["textures/broken.dds: DDS header truncated: the file has 8 bytes, the header needs 128 [TB042]",
                                            "texbudget check: 1 problem in 1 file"])
    # the whole work tree is read for context: the glTF in models/ makes mask.png a normal map
    code, out, _ = run(capsys, "check", "textures/mask.png", "--format", "json")
    rows = {t["path"]: t for t in json.loads(out)["textures"]}
    assert code == 0 and rows["textures/mask.png"]["role"] == "normal"
    assert rows["textures/mask.png"]["used_by"] == ["models/rock.gltf#material/0"]


def test_a_repository_is_the_root_from_anywhere(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo / "textures")
    code, out, _ = run(capsys, "check", "broken.dds")
    assert out.splitlines()[0].startswith("textures/broken.dds: ")
    monkeypatch.chdir(repo / "models")
    code, out, _ = run(capsys, "scan", "../textures/mask.png", "--format", "json")
    assert code == 0 and paths_in(out) == ["textures/mask.png"]
    # run from outside the work tree, its top is not taken: the folder holding the file is
    # (a home folder kept in git must not be read whole for one file in ~/Downloads)
    monkeypatch.chdir(repo.parent)
    code, out, _ = run(capsys, "scan", "game/textures/mask.png", "--format", "json")
    assert code == 0 and paths_in(out) == ["mask.png"]
    # a single folder named is the root, as it always was
    code, out, _ = run(capsys, "scan", "game/textures", "--format", "json")
    assert code == 0 and paths_in(out) == ["mask.png"]
