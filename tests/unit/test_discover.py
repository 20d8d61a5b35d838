"""Discovery: walking, globs, hidden and VCS folders, symlinks, permissions, odd names."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from texbudget.discover import Discovered, GlobError, PathGlobs, discover


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")


def _codes(d: Discovered) -> list[tuple[str, str]]:
    return [(f.path, f.code) for f in d.findings]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    _touch(
        tmp_path,
        "a.png", "b.DDS", "readme.txt", "notes.md",
        "tex/c.ktx2", "tex/d.tga", "tex/d.tga.import", "tex/d.tga.meta", "tex/sub/e.exr",
        "build/out.png", "src/build/old.png",
        "meshes/rock.glb", "meshes/rock.bin",
        ".hidden.png", ".git/objects/x.png", ".hg/y.png", ".svn/z.png", ".texbudget/cache/c.png",
        "tex/.cache/f.png",
    )
    return tmp_path


def test_walk_lists_supported_files_sorted(tree: Path) -> None:
    d = discover(tree)
    assert d.files == (
        "a.png", "b.DDS", "build/out.png", "meshes/rock.glb", "src/build/old.png",
        "tex/c.ktx2", "tex/d.tga", "tex/sub/e.exr",
    )
    assert d.findings == ()
    assert d.skipped == 3  # readme.txt, notes.md, rock.bin; sidecars are not counted
    # every folder walked, and the one holding engine sidecars (the scan looks only there)
    assert d.listed == {"", "build", "meshes", "src", "src/build", "tex", "tex/sub"}
    assert d.with_sidecars == {"tex"}


def test_the_folders_listed_are_the_same_with_globs(tree: Path) -> None:
    d = discover(tree, exclude=["src/"], include=["*.png", "*.tga"])
    assert d.files == ("a.png", "build/out.png", "tex/d.tga")
    assert d.listed == {"", "build", "meshes", "tex", "tex/sub"} and d.with_sidecars == {"tex"}


def test_exclude_folder_pattern_at_any_depth(tree: Path) -> None:
    d = discover(tree, exclude=["build/"])
    assert "build/out.png" not in d.files and "src/build/old.png" not in d.files
    assert "tex/c.ktx2" in d.files


def test_anchored_exclude(tree: Path) -> None:
    d = discover(tree, exclude=["/build"])
    assert "build/out.png" not in d.files
    assert "src/build/old.png" in d.files


def test_include_by_suffix_and_folder(tree: Path) -> None:
    assert discover(tree, include=["*.png"]).files == ("a.png", "build/out.png", "src/build/old.png")
    assert discover(tree, include=["tex/"]).files == ("tex/c.ktx2", "tex/d.tga", "tex/sub/e.exr")
    assert discover(tree, include=["tex/**/*.exr"]).files == ("tex/sub/e.exr",)
    assert discover(tree, include=["tex/*"]).files == ("tex/c.ktx2", "tex/d.tga", "tex/sub/e.exr")


def test_exclude_wins_over_include_and_negation(tree: Path) -> None:
    d = discover(tree, include=["*.png"], exclude=["*.png", "!a.png"])
    assert d.files == ("a.png",)


def test_explicit_paths(tree: Path) -> None:
    d = discover(tree, paths=[Path("a.png"), tree / "tex", Path("readme.txt"), Path("tex/d.tga.import"), Path("missing.png")])
    assert d.files == ("a.png", "tex/c.ktx2", "tex/d.tga", "tex/sub/e.exr")
    assert _codes(d) == [("readme.txt", "TB002"), ("missing.png", "TB005")]
    # a named file's folder is not listed: the scan looks for its sidecar itself
    assert d.listed == {"tex", "tex/sub"} and d.with_sidecars == {"tex"}


def test_explicit_path_outside_root(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    other = tmp_path_factory.mktemp("other")
    _touch(other, "x.png")
    d = discover(tree, paths=[other / "x.png"])
    assert d.files == ()
    assert [f.code for f in d.findings] == ["TB004"]


def test_explicit_hidden_file_is_read(tree: Path) -> None:
    assert discover(tree, paths=[Path(".hidden.png")]).files == (".hidden.png",)


def test_root_that_is_a_file(tree: Path) -> None:
    d = discover(tree / "tex" / "d.tga")
    assert d.files == ("d.tga",)


def test_missing_root() -> None:
    d = discover(Path("/nonexistent/texbudget/root"))
    assert (d.files, [f.code for f in d.findings]) == ((), ["TB005"])


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlink_loop_is_reported_and_not_followed(tmp_path: Path) -> None:
    _touch(tmp_path, "a/b/t.png")
    os.symlink(tmp_path / "a", tmp_path / "a" / "b" / "loop")
    d = discover(tmp_path)
    assert d.files == ("a/b/t.png",)
    assert _codes(d) == [("a/b/loop", "TB004")]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlink_leaving_the_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    _touch(outside, "o.png", "dir/p.png")
    root = tmp_path / "root"
    _touch(root, "in.png")
    os.symlink(outside / "o.png", root / "link.png")
    os.symlink(outside / "dir", root / "linkdir")
    os.symlink(outside / "o.png", root / "link.txt")  # not a texture: silently skipped
    d = discover(root)
    assert d.files == ("in.png",)
    assert sorted(_codes(d)) == [("link.png", "TB004"), ("linkdir", "TB004")]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlinks_inside_the_root_are_followed_once(tmp_path: Path) -> None:
    _touch(tmp_path, "real/t.png", "z.png")
    os.symlink(tmp_path / "z.png", tmp_path / "alias.png")
    os.symlink(tmp_path / "real", tmp_path / "zz_link")
    d = discover(tmp_path)
    assert d.files == ("alias.png", "real/t.png", "z.png")  # zz_link is the already-walked real/
    assert d.findings == ()


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_broken_symlink(tmp_path: Path) -> None:
    os.symlink(tmp_path / "gone.png", tmp_path / "dead.png")
    os.symlink(tmp_path / "gone.txt", tmp_path / "dead.txt")
    d = discover(tmp_path)
    assert (d.files, _codes(d)) == ((), [("dead.png", "TB001")])


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="permissions (root reads everything)")
def test_unreadable_folder_is_tb001(tmp_path: Path) -> None:
    _touch(tmp_path, "ok.png", "locked/x.png")
    (tmp_path / "locked").chmod(0)
    try:
        d = discover(tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert d.files == ("ok.png",)
    assert [(f.path, f.code) for f in d.findings] == [("locked", "TB001")]
    assert "cannot list the folder" in d.findings[0].message


def test_permission_error_is_tb001_even_as_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _touch(tmp_path, "ok.png", "locked/x.png")
    real_scandir = os.scandir

    def scandir(path: str):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    d = discover(tmp_path)
    assert d.files == ("ok.png",)
    assert [(f.path, f.code, f.message) for f in d.findings] == [("locked", "TB001", "cannot list the folder: Permission denied")]


def test_vanished_folder_is_tb005(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _touch(tmp_path, "ok.png", "gone/x.png")
    real_scandir = os.scandir

    def scandir(path: str):  # the folder disappears between listing its parent and opening it
        if os.path.basename(path) == "gone":
            raise FileNotFoundError(2, "No such file or directory", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    d = discover(tmp_path)
    assert d.files == ("ok.png",)
    assert _codes(d) == [("gone", "TB005")]


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs a filesystem that takes any bytes")
def test_non_utf8_names_are_kept(tmp_path: Path) -> None:
    raw = os.fsencode(tmp_path) + b"/caf\xe9.png"
    with open(raw, "wb") as f:
        f.write(b"x")
    d = discover(tmp_path)
    (name,) = d.files
    assert os.fsencode(name) == b"caf\xe9.png"
    assert (tmp_path / name).exists()
    assert json.dumps(name) == '"caf\\udce9.png"'


def test_files_only_counts_each_file_once(tree: Path) -> None:
    d = discover(tree, paths=[tree, tree / "tex", Path("a.png")])
    assert len(d.files) == len(set(d.files)) == 8


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.png", "a.png", False, True),
        ("*.png", "x/y/a.png", False, True),
        ("*.png", "a.png.meta", False, False),
        ("/a.png", "x/a.png", False, False),
        ("x/*.png", "x/a.png", False, True),
        ("x/*.png", "x/y/a.png", False, False),
        ("x/**/a.png", "x/a.png", False, True),
        ("x/**/a.png", "x/y/z/a.png", False, True),
        ("**/a.png", "a.png", False, True),
        ("x/**", "x/y/z.png", False, True),
        ("x/**", "x", True, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("build/", "a/build/c.png", False, True),
        ("tex?.png", "tex1.png", False, True),
        ("tex?.png", "tex/.png", False, False),
        ("[ab].png", "b.png", False, True),
        ("[!ab].png", "b.png", False, False),
        ("[!ab].png", "c.png", False, True),
        ("\\*.png", "*.png", False, True),
        ("\\*.png", "a.png", False, False),
        ("# comment", "# comment", False, False),
        ("", "a.png", False, False),
        ("ui", "ui/atlas.png", False, True),
        ("*_n.png", "rock_n.png", False, True),
        # a class's members stand for themselves: re's set syntax is escaped ("[[]" is a
        # FutureWarning and "&&" an operator to re), and "]" first is a member
        ("[[]old].png", "[old].png", False, True),
        ("[[]old].png", "o.png", False, False),
        ("[&&]x.png", "&x.png", False, True),
        ("[a^]x.png", "^x.png", False, True),
        ("[^a]x.png", "bx.png", False, True),
        ("[^a]x.png", "ax.png", False, False),
        ("[]a]x.png", "]x.png", False, True),
        ("[!]a]x.png", "]x.png", False, False),
        ("[!]a]x.png", "bx.png", False, True),
        ("[~|]x.png", "|x.png", False, True),
        ("[a-c]x.png", "bx.png", False, True),
        ("[a-c]x.png", "-x.png", False, False),
    ],
)
@pytest.mark.filterwarnings("error")
def test_glob_semantics(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    assert PathGlobs([pattern]).matches(path, is_dir) is expected


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    # git's character classes (wildmatch.c), ASCII
    ("[[:digit:]]*.png", "7up.png", True),
    ("[[:digit:]]*.png", "up.png", False),
    ("[[:upper:]].png", "A.png", True),
    ("[[:upper:]].png", "a.png", False),
    ("[a-c[:digit:]]x.png", "1x.png", True),
    ("[![:alpha:]]x.png", "-x.png", True),
    ("[![:alpha:]]x.png", "ax.png", False),
    ("[[:alpha:]-]x.png", "-x.png", True),
    ("[[:punct:]]*.png", "#c.png", True),
    ("[[:xdigit:]].png", "F.png", True),
    ("[[:xdigit:]].png", "g.png", False),
    ("[[:a]x:]b.png", "ax:]b.png", True),  # "[:a]" is not a class: "[" is a member, as git reads it
    ("[[:a]x:]b.png", ":b.png", False),
    # a backslash escapes in a class too; a class never matches "/"
    ("[\\]]x.png", "]x.png", True),
    ("[\\]]x.png", "\\x.png", False),
    ("a[!b]c.png", "a/c.png", False),
    ("a[!b]c.png", "adc.png", True),
    # an escaped trailing space is kept, others are dropped
    ("a\\ ", "a ", True),
    ("a.png ", "a.png", True),
])
@pytest.mark.filterwarnings("error")
def test_git_classes_and_escapes(pattern: str, path: str, expected: bool) -> None:
    assert PathGlobs([pattern]).matches(path) is expected


@pytest.mark.parametrize(("pattern", "message"), [
    ("[ab.png", "the [ at 1 opens a [...] class that no ] closes (write \\[ for a [)"),
    ("[!].png", "the [ at 1 opens a [...] class that no ] closes (write \\[ for a [)"),
    ("x/[z-a].png", "bad character range z-a in a [...] class"),
    ("[[:foo:]]x.png", "unknown class [:foo:] in a [...] class; allowed: alnum, alpha, blank, cntrl, digit, graph, lower, print, "
                       "punct, space, upper, xdigit"),
])
def test_a_pattern_git_would_never_match_is_an_error(pattern: str, message: str) -> None:
    """git matches nothing with these (wildmatch aborts); the config refuses them at load."""
    with pytest.raises(GlobError) as info:
        PathGlobs([pattern])
    assert str(info.value) == message


def test_a_folder_include_matched_keeps_everything_under_it(tree: Path) -> None:
    """As in git, a negation cannot take back a file inside a folder that matched: the walk
    carries the folder's decision down (it is not asked again for every file)."""
    assert discover(tree, include=["tex/", "!tex/sub/"]).files == ("tex/c.ktx2", "tex/d.tga", "tex/sub/e.exr")
    assert discover(tree, include=["tex/*", "!tex/sub/"]).files == ("tex/c.ktx2", "tex/d.tga")
    assert discover(tree, paths=[tree / "tex" / "sub"], include=["tex/"]).files == ("tex/sub/e.exr",)
    assert discover(tree, paths=[tree / "tex" / "sub"], include=["*.png"]).files == ()


#: Files and patterns against git itself (``git ls-files --others --ignored``): what git
#: ignores is what ``exclude`` leaves out and what ``include`` keeps.
GIT_FILES = (
    "a.png", "b.PNG", "A.png", "x/a.png", "x/y/a.png", "x/y/z/a.png", "build/out.png", "build/sub/deep.png",
    "src/build/old.png", "src/build.png", "tex/c.dds", "tex/sub/e.png", "tex1.png", "tex/1.png", "[old].png",
    "^x.png", "bx.png", "ax.png", "]x.png", "-x.png", "&x.png", "*.png", "#c.png", "!bang.png", "sp ace.png",
    "a .png", "1x.png", "ui/atlas.png", "ui/icons/i.png", "deep/ui/atlas.png", "rock_n.png", "keep/k.png",
    "keep/drop.png", "keep/sub/k.png", "a/b/c/d.png", "a/c/d.png", "a/d.png", "foo/bar/foo/z.png",
)
GIT_PATTERNS = (
    ["*.png"], ["/a.png"], ["a.png"], ["x/*.png"], ["x/**/a.png"], ["**/a.png"], ["x/**"], ["build/"], ["build"],
    ["/build"], ["build/**"], ["tex?.png"], ["[ab].png"], ["[!ab].png"], ["[^a]x.png"], ["[]a]x.png"], ["[!]a]x.png"],
    ["[a-c]x.png"], ["[&&]x.png"], ["[[]old].png"], ["\\*.png"], ["\\#c.png"], ["\\!bang.png"], ["ui"], ["ui/"],
    ["*_n.png"], ["**/ui/*.png"], ["a/**/d.png"], ["**"], ["*"], ["x/**/"], ["**/build"], ["foo/**/z.png"], ["A.png"],
    ["*.PNG"], ["sp ace.png"], ["a .png"], ["x/y"], ["x/y/"], ["/x/y/"], ["tex/"], ["tex/*"], ["a/*/d.png"],
    ["a/**/c/d.png"], ["*/build/"], ["ui/**/"], ["[[:alpha:]]x.png"], ["[\\]]x.png"], ["[[:digit:]]*.png"],
    ["[![:alpha:]]x.png"], ["[[:punct:]]*.png"], ["*.p[!m]g"], ["[a-]x.png"],
    ["keep/", "!keep/k.png"], ["keep/*", "!keep/k.png"], ["keep/**", "!keep/k.png"], ["*.png", "!a.png"],
    ["x/", "!x/a.png"], ["*.png", "!*/", "x/"], ["keep/*", "!keep/sub/"], ["build", "!build/out.png"], ["/*", "!/keep/"],
)


@pytest.fixture(scope="module")
def git_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("git-globs")
    _touch(root, *GIT_FILES)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "config", "core.ignorecase", "false"], cwd=root, check=True)
    return root


@pytest.mark.parametrize("patterns", GIT_PATTERNS, ids=" ".join)
def test_globs_match_what_git_ignores(git_tree: Path, patterns: list[str]) -> None:
    import subprocess

    (git_tree / ".gitignore").write_text("\n".join(patterns) + "\n", encoding="utf-8")
    listed = subprocess.run(["git", "ls-files", "--others", "--ignored", "--exclude-standard", "-z"], cwd=git_tree,
                            capture_output=True, check=True).stdout.decode()
    ignored = {p for p in listed.split("\0") if p and p != ".gitignore"}
    assert set(GIT_FILES) - set(discover(git_tree, exclude=patterns).files) == ignored
    assert set(discover(git_tree, include=patterns).files) == ignored


@pytest.mark.parametrize("name", ["a.png", "A.PNG", "dir.d/a", "dir/.hidden", ".hidden", "..", "a..b", "a.", "x/y.tar.gz",
                                  "README", "..png", "dir/..png", "a.b/c.KTX2", "", "/", "a/b/.c.d"])
def test_suffix_of_is_splitext_lowered(name):
    from texbudget.readers import suffix_of

    assert suffix_of(name) == os.path.splitext(name)[1].lower()
