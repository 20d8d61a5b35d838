"""The command line through main([...]): exit codes and exact lines (DESIGN.md §4)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from texbudget.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- size --------------------------------------------------------------------------------


def test_size_bc7_4k_json(capsys):
    code, out, err = run(capsys, "size", "BC7_SRGB", "4096x4096", "--mips", "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["gpu_bytes"] == 22369648
    assert data["gpu_format"] == "BC7_SRGB"
    assert data["vk_format"] == "VK_FORMAT_BC7_SRGB_BLOCK"
    assert data["dxgi_format"] == "DXGI_FORMAT_BC7_UNORM_SRGB"
    assert len(data["mips"]) == 13
    assert data["mips"][0] == {"level": 0, "width": 4096, "height": 4096, "depth": 1, "bytes": 16777216}
    assert data["mips"][-1] == {"level": 12, "width": 1, "height": 1, "depth": 1, "bytes": 16}
    assert data["allocated_bytes"] == 22413312  # 342 x 64 KiB


def test_size_text_table(capsys):
    code, out, _ = run(capsys, "size", "BC3", "1000x600", "--mips")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "BC3_UNORM 1000x600: 10 levels, 8 bits/px, 4x4 blocks of 16 B"
    assert lines[2] == "    0    1000     600         600,000"
    assert lines[-2] == "content           801,488 B  (782.70 KiB)"


def test_size_cube_array_and_levels(capsys):
    code, out, _ = run(capsys, "size", "BC6H", "256x256", "--mips", "--faces", "6", "--layers", "4", "--format", "json")
    assert code == 0 and json.loads(out)["gpu_bytes"] == 2097792
    code, out, _ = run(capsys, "size", "RGBA32F", "64x64x64", "--mips", "--format", "json")
    assert json.loads(out)["gpu_bytes"] == 4793488
    code, out, _ = run(capsys, "size", "RGBA8", "1920x1080", "--levels", "1", "--format", "json")
    assert json.loads(out)["gpu_bytes"] == 8294400


@pytest.mark.parametrize(("argv", "message"), [
    (["size", "BC7_SROB", "4x4"], "texbudget: error: unknown format 'BC7_SROB'; did you mean BC7_SRGB"),
    (["size", "BC7", "0x4"], "texbudget: error: size '0x4': each side must be 1 to 65536"),
    (["size", "BC7", "4096"], "texbudget: error: size '4096': use WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH"),
    (["size", "BC7", "100000x4"], "texbudget: error: size '100000x4': each side must be 1 to 65536"),
    (["size", "BC7", "64x32", "--faces", "6"], "texbudget: error: --faces 6: a cubemap must be square and 2D"),
    (["size", "BC7", "64x64", "--levels", "9"], "texbudget: error: --levels 9: a 64x64 texture has 1 to 7 levels"),
    (["size", "BC7", "64x64", "--format", "yaml"], "texbudget: error: --format yaml: allowed values are text, json"),
    (["size", "UASTC", "64x64"], "texbudget: error: UASTC is transcoded on load"),
    (["frobnicate"], "texbudget: error: texbudget: argument COMMAND: invalid choice: 'frobnicate'"),
    (["scan", "--jobs", "0", "."], "texbudget: error: --jobs 0: allowed 1 to 256"),
    (["check", "--total", "--jobs", "99999", "."], "texbudget: error: --jobs 99999: allowed 1 to 256"),
])
def test_usage_errors_are_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_formats_lists_every_row(capsys):
    from texbudget import formats

    code, out, _ = run(capsys, "formats", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(formats.all_formats())
    bc7 = next(r for r in rows if r["name"] == "BC7_SRGB")
    assert (bc7["vk_format"], bc7["dxgi_format"], bc7["gl_internal_format"], bc7["bytes_per_block"]) == (146, 99, 0x8E8D, 16)
    code, out, _ = run(capsys, "formats")
    assert out.splitlines()[-1].startswith(f"{len(rows)} formats: ")


def test_cards(capsys):
    code, out, _ = run(capsys, "cards", "--format", "json")
    cards = {c["id"]: c for c in json.loads(out)}
    assert code == 0
    assert cards["12GB"]["vram_bytes"] == 12 * 2**30
    assert cards["12GB"]["usable_bytes"] == 12 * 2**30 - (12 * 2**30 * 7 + 99) // 100
    assert cards["8GB"]["usable_bytes"] == 8 * 2**30 - max(768 * 2**20, (8 * 2**30 * 7 + 99) // 100)
    assert cards["rtx-4070"]["rt_vendor"] == "nvidia"


def test_help_lists_every_subcommand(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name in ("scan", "check", "tui", "explain", "diff", "formats", "cards", "size"):
        assert name in out


# --- scan and check on a small tree -------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "texbudget.toml").write_text(
        '[budget]\ncards = ["8GB"]\nresolutions = ["1080p"]\nrt = ["off"]\n\n'
        '[limits]\nmax_bytes = "4 MiB"\nmultiple_of_4 = true\n', encoding="utf-8")
    Image.new("RGB", (1024, 1024), (90, 80, 70)).save(tmp_path / "wall_albedo.png")  # BC1: 699,064
    Image.new("RGBA", (2048, 2048), (90, 80, 70, 100)).save(tmp_path / "flag_albedo.png")  # BC3: 5,592,432
    Image.new("RGB", (30, 30), (1, 2, 3)).save(tmp_path / "odd_albedo.png")
    (tmp_path / "broken.dds").write_bytes(b"DDS \x7c\x00\x00\x00")
    return tmp_path


def test_scan_json_every_file_is_a_texture_or_a_finding(capsys, tree):
    code, out, _err = run(capsys, "scan", str(tree), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == 1
    textures = {t["path"]: t for t in data["textures"]}
    assert set(textures) == {"wall_albedo.png", "flag_albedo.png", "odd_albedo.png"}
    assert textures["wall_albedo.png"]["gpu_format"] == "BC1_RGB_SRGB"
    assert textures["wall_albedo.png"]["gpu_bytes"] == 699064
    assert textures["flag_albedo.png"]["gpu_format"] == "BC3_SRGB"
    assert textures["flag_albedo.png"]["gpu_bytes"] == 5592432
    assert [f["path"] for f in data["findings"]] == ["broken.dds"]
    assert data["findings"][0]["code"] == "TB042"
    sc = data["scenarios"][0]
    assert sc["bytes"]["textures"] == sum(t["allocated_bytes"] for t in data["textures"])
    assert sc["total_bytes"] == sum(sc["bytes"].values())
    assert sc["cards"][0]["free_bytes"] == sc["cards"][0]["usable_bytes"] - sc["total_bytes"]


def test_scan_text_report(capsys, tree):
    code, out, _ = run(capsys, "scan", str(tree))
    assert code == 0
    assert out.startswith("texbudget: 3 textures, 0 meshes, 1 findings — platform desktop, config texbudget.toml")
    assert "1920x1080 ultra RT off" in out and "✓" in out
    assert "TB042 error" in out


def test_check_lines_and_exit_1(capsys, tree):
    code, out, _err = run(capsys, "check", str(tree))
    assert code == 1
    assert out.splitlines() == [
        "broken.dds: DDS header truncated: the file has 8 bytes, the header needs 128 [TB042]",
        "flag_albedo.png: 2048x2048 BC3_SRGB, 5.38 MiB > max_bytes 4.00 MiB [TB020]",
        "odd_albedo.png: 30x30 is not a multiple of 4 for BC1_RGB_SRGB (multiple_of_4) [TB024]",
        "texbudget check: 3 problems in 3 files",
    ]


def test_check_explicit_files_only_and_quiet_on_success(capsys, tree, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, _err = run(capsys, "check", "wall_albedo.png")
    assert (code, out) == (0, "")
    code, out, _ = run(capsys, "check", "wall_albedo.png", "flag_albedo.png", "deleted_albedo.png")
    assert code == 1
    assert out.splitlines()[-1] == "texbudget check: 1 problem in 1 file"


def test_check_total_over_budget(capsys, tree):
    (tree / "texbudget.toml").write_text('[budget]\ncards = ["4GB"]\nresolutions = ["4k"]\nrt = ["off"]\n', encoding="utf-8")
    (tree / "broken.dds").unlink()
    code, out, _ = run(capsys, "check", str(tree))
    assert (code, out) == (0, "")  # without --total the budget is not judged
    code, out, _ = run(capsys, "check", str(tree), "--total")
    assert (code, out) == (0, "")  # 4 GB fits
    code, out, _ = run(capsys, "check", str(tree), "--total", "--cards", "1GB")  # 256 MiB usable
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(".: 3840x2160 ultra rt off: over on 1GB by ")
    assert lines[0].endswith("[TB030]")
    assert lines[-1] == "texbudget check: 1 problem (1 scene-wide)"


def test_scan_missing_path(capsys, tmp_path):
    code, _out, err = run(capsys, "scan", str(tmp_path / "nope"))
    assert code == 2 and err == f"texbudget: error: {tmp_path / 'nope'}: no such file or folder\n"


@pytest.mark.parametrize(("flags", "message"), [
    (("--quality", "epic"), "--quality epic: allowed values are ultra, high, medium, low"),
    (("--quality", "ultar"), "--quality ultar: allowed values are ultra, high, medium, low (did you mean 'ultra'?)"),
    (("--platform", "console"), "--platform console: allowed values are desktop, desktop-bc7, mobile-astc, mobile-etc2, uncompressed"),
    (("--rt", "metal"), "--rt metal: allowed values are off, nvidia, nvidia-rtx50, amd, amd-rdna4, intel, radv, radv26, "
                        "radv26-rdna4, anv, anv-grl, lavapipe"),
    (("--rt", "off,nvidai"), "--rt nvidai: allowed values are off, nvidia, nvidia-rtx50, amd, amd-rdna4, intel, radv, radv26, "
                             "radv26-rdna4, anv, anv-grl, lavapipe (did you mean 'nvidia'?)"),
    (("--resolution", "1080p", "--resolution", "huge"), "--resolution huge: use one of 720p, 1080p, 1440p, 4k, 2160p, 8k or WIDTHxHEIGHT"),
    (("--resolution", "0x0"), "--resolution 0x0: each side must be 1 to 65536"),
    (("--cards", "8GB,9"), "--cards 9: not a card; allowed: a memory size such as 8GB, or a card `texbudget cards` lists"),
    (("--cards", "rtx-9999"), "--cards rtx-9999: not a card (did you mean 'rtx-5090', 'rtx-4090', 'rtx-3090'?); "
                              "allowed: a memory size such as 8GB, or a card `texbudget cards` lists"),
    # nothing to judge passed before (the configured cards were used instead)
    (("--cards", ","), "--cards ,: give at least one: a memory size such as 8GB, or a card `texbudget cards` lists"),
])
def test_a_bad_flag_is_one_line_naming_it(capsys, tmp_path, flags, message):
    """Each flag is checked as the config key it overrides is (config.check_flag), once."""
    code, out, err = run(capsys, "scan", str(tmp_path), *flags)
    assert (code, out, err) == (2, "", f"texbudget: error: {message}\n")


@pytest.mark.parametrize(("value", "message"), [
    ("x", "--max-growth x: must be a percentage such as 5 or \"5%\", from 0 to 100"),
    ("150", "--max-growth 150: must be a percentage from 0 to 100"),
])
def test_a_bad_max_growth_is_one_line(capsys, tmp_path, value, message):
    code, out, err = run(capsys, "check", str(tmp_path), "--max-growth", value)
    assert (code, out, err) == (2, "", f"texbudget: error: {message}\n")


def test_flags_take_names_in_any_case(capsys, tmp_path):
    """As the config does: --quality High was refused (the config lower-cased quality, the
    flag did not) and a platform in capitals from both."""
    code, out, err = run(capsys, "scan", str(tmp_path), "--quality", "High", "--platform", "Mobile-ASTC",
                         "--rt", "NVIDIA-RTX50", "--format", "json")
    assert (code, err) == (0, "")
    settings = json.loads(out)["settings"]
    assert (settings["quality"], settings["platform"], settings["rt"]) == ("high", "mobile-astc", "nvidia-rtx50")


def test_bad_config_is_one_line(capsys, tmp_path):
    (tmp_path / "texbudget.toml").write_text("[budget]\ncard = ['8GB']\n", encoding="utf-8")
    code, out, err = run(capsys, "scan", str(tmp_path))
    assert code == 2 and out == ""
    assert err == (f"texbudget: error: {tmp_path / 'texbudget.toml'}: [budget] unknown key 'card'; did you mean 'cards'? "
                   "(allowed: cards, resolutions, quality, platform, high_quality, rt, renderer, upscaler, shadows, msaa, "
                   "reserve, reserve_min, headroom, allocation, streaming, streaming_pool, rt_compaction)\n")


@pytest.mark.parametrize(("text", "message"), [
    # accepted when the file was read and refused later without the file or the key (issue 22)
    ("[budget]\nmsaa = 3\n", "[budget] msaa = 3: allowed values are 1, 2, 4, 8"),
    ("[budget]\nreserve = 100\n", "[budget] reserve = 100: must be a percentage from 0 to below 100"),
    ("[budget]\nheadroom = '100%'\n", "[budget] headroom = '100%': must be a percentage from 0 to below 100"),
    ("[budget]\ncards = ['8GB', 'rtx-9999']\n", "[budget] cards = 'rtx-9999': not a card (did you mean 'rtx-5090', 'rtx-4090', "
                                                 "'rtx-3090'?); allowed: a memory size such as 8GB, or a card `texbudget cards` lists"),
    ("[budget]\nplatform = 'console'\n", "[budget] platform = 'console': allowed values are desktop, desktop-bc7, mobile-astc, "
                                          "mobile-etc2, uncompressed"),
    ("[[rule]]\nmatch = 'a'\nrole = 'normals'\n", "[[rule]] #1 role = 'normals': allowed values are albedo, normal, mask, single, "
                                                   "height, hdr, emissive, ui (did you mean 'normal'?)"),
    ("[meshes]\nlayout = ['position:f64x3']\n", "[meshes] layout = 'position:f64x3': write NAME:TYPExCOUNT, TYPE one of f32, f16, "
                                                 "u32, u16, s16, u8, s8, COUNT 1 to 16 (e.g. 'position:f32x3')"),
])
def test_config_mistakes_found_later_before_are_one_line_with_the_file(capsys, tmp_path, text, message):
    config = tmp_path / "texbudget.toml"
    config.write_text(text, encoding="utf-8")
    for command in ("scan", "check"):
        code, out, err = run(capsys, command, str(tmp_path))
        assert (code, out, err) == (2, "", f"texbudget: error: {config}: {message}\n")


def test_a_config_accepted_now_that_it_was_refused_before(capsys, tmp_path):
    """ray-tracing profiles the table has but a list in config.py lacked; names in any case."""
    (tmp_path / "texbudget.toml").write_text("[budget]\nrt = ['nvidia-rtx50', 'RADV26-RDNA4']\nplatform = 'Desktop'\n",
                                              encoding="utf-8")
    code, out, err = run(capsys, "scan", str(tmp_path), "--format", "json")
    assert (code, err) == (0, "")
    assert [s["rt"] for s in json.loads(out)["scenarios"]] == ["nvidia-rtx50"] * 3 + ["radv26-rdna4"] * 3


def test_internal_error_exit_3(capsys, monkeypatch):
    import texbudget.cli as cli

    def boom(args):
        raise RuntimeError("bug")

    monkeypatch.setattr(cli, "cmd_formats", boom)
    code, _out, err = run(capsys, "formats")
    assert code == 3 and "RuntimeError: bug" in err and "Traceback" in err


def test_interrupted_exit_130(capsys, monkeypatch):
    import texbudget.cli as cli

    def stop(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_formats", stop)
    code, _, _ = run(capsys, "formats")
    assert code == 130


def test_main_leaves_the_garbage_collector_as_it_found_it(capsys, tree):
    """A one-shot command collects rarely and freezes what it built at the end; a caller of
    ``main`` gets the thresholds back and nothing left frozen (only the console script, which
    exits right after, stays frozen)."""
    import gc

    thresholds = gc.get_threshold()
    code, _, _ = run(capsys, "scan", str(tree))
    assert code == 0
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0 and gc.isenabled()


def test_the_console_script_exits_with_mains_code(tmp_path):
    import subprocess
    import sys

    ok = subprocess.run([sys.executable, "-m", "texbudget", "scan", str(tmp_path)], capture_output=True, text=True)
    bad = subprocess.run([sys.executable, "-m", "texbudget", "scan", "--quality", "nope", str(tmp_path)], capture_output=True, text=True)
    assert ok.returncode == 0 and "0 textures" in ok.stdout
    assert bad.returncode == 2 and bad.stderr.startswith("texbudget: error:")


def test_the_console_script_writes_everything_and_exits_quietly(tmp_path):
    """``run`` flushes and exits: a large report sent to a file or a pipe arrives whole, the
    exit code is kept, and a reader that stops early is no error (no message, exit 0)."""
    import subprocess
    import sys

    demo = str(Path(__file__).parents[2] / "assets" / "demo")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as usual
    out = tmp_path / "report.json"
    with out.open("w") as f:
        done = subprocess.run([sys.executable, "-m", "texbudget", "scan", "--format", "json", demo], stdout=f, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(out.read_text())["schema"] == 1
    copy = tmp_path / "demo"
    shutil.copytree(demo, copy, ignore=shutil.ignore_patterns(".texbudget"))  # mtimes kept: not racy
    over = subprocess.run([sys.executable, "-m", "texbudget", "check", "--total", "--cards", "2GB", str(copy)], capture_output=True, text=True, env=env)
    assert over.returncode == 1 and over.stdout.endswith("\n") and over.stdout.count("\n") >= 2
    with sqlite3.connect(copy / ".texbudget" / "cache.sqlite") as db:  # the cache was committed and closed
        assert db.execute("select count(*) from entries").fetchone()[0] > 200  # the demo's 244 files
    proc = subprocess.Popen([sys.executable, "-m", "texbudget", "scan", "--format", "json", demo], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # the reader goes away before the report is written out
    assert proc.wait(timeout=120) == 0 and proc.stderr.read() == b""


def test_an_exit_handler_registered_before_texbudget_still_runs(tmp_path):
    # coverage.py and wrapper scripts save their data in an exit handler: the console script
    # exits the usual way, so it runs.
    import subprocess
    import sys

    script = ("import atexit, runpy, sys\n"
              "atexit.register(lambda: print('handler ran', file=sys.stderr))\n"
              "sys.argv = ['texbudget', 'check', '--total', '--cards', '2GB', sys.argv[1]]\n"
              "runpy.run_module('texbudget', run_name='__main__', alter_sys=True)\n")
    demo = str(Path(__file__).parents[2] / "assets" / "demo")
    done = subprocess.run([sys.executable, "-c", script, demo], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, "handler ran\n")


def test_check_text_skips_the_fix_search_but_says_the_same(capsys):
    """The text output shows no fix hints, so it runs no fix search; its lines are the
    messages the JSON output (with hints) gives, in the same order."""
    demo = str(Path(__file__).parents[2] / "assets" / "demo")
    code, out, _ = run(capsys, "check", demo, "--total", "--cards", "2GB")
    assert code == 1
    code_json, out_json, _ = run(capsys, "check", demo, "--total", "--cards", "2GB", "--format", "json")
    violations = json.loads(out_json)["violations"]
    assert code_json == 1 and any(v["hint"].startswith("fix: ") for v in violations)
    assert out.splitlines()[:-1] == [f"{v['path']}: {v['message']} [{v['code']}]" for v in violations]
