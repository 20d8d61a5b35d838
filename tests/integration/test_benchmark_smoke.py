"""The benchmark runs end to end on a tiny tree and writes every metric (issue 10 item 5).
No timing is asserted: only that each number is there and is a number."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SIZE_METRICS = {
    "files", "shape", "by_kind", "apparent_bytes", "raw_read_s", "raw_read_e2e_s", "raw_read_e2e_check_s",
    "raw_read_per_file_s", "scan_empty_s", "recompute_s",
    # text and JSON reports
    "scan_s", "scan_rss_bytes", "scan_marginal_per_file_s", "check_warm_s", "check_rss_bytes", "peak_rss_bytes",
    "scan_json_s", "scan_json_rss_bytes", "scan_json_marginal_per_file_s", "check_warm_json_s", "check_json_rss_bytes",
    "peak_rss_json_bytes",
}
TARGET_KEYS = ["scan_marginal_vs_raw", "scan_json_marginal_vs_raw", "check_warm_vs_raw_e2e", "check_warm_json_vs_raw_e2e",
               "peak_rss_100k_mib", "peak_rss_json_100k_mib", "scan_100k_vs_10k", "recompute_10k_ms"]
STARTUP_KEYS = ["startup_check_empty_vs_bare", "startup_check_named_vs_bare", "startup_version_vs_bare",
                "startup_help_vs_bare"]


def test_the_benchmark_writes_every_metric(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--sizes", "5,50", "--shapes", "mix,png", "--repeat", "1",
         "--startup-repeat", "1", "--no-peer", "--out", str(tmp_path / "out"), "--trees", str(tmp_path / "trees")],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert list(results["shapes"]) == ["mix", "png"]
    for shape, entry in results["shapes"].items():
        assert set(entry["sizes"]) == {"5", "50"}
        assert set(entry["sizes"]["5"]) == SIZE_METRICS
        m = entry["sizes"]["50"]
        # the 5-file tree is scanned in the 50-file rounds too: the linearity target's reference
        assert set(m) == SIZE_METRICS | {"reference_files", "scan_reference_s"}
        assert m["reference_files"] == 5 and isinstance(m["scan_reference_s"], float)
        assert m["files"] == 50 and m["shape"] == shape and sum(m["by_kind"].values()) == 50
        for key in SIZE_METRICS - {"files", "shape", "by_kind"} | {"scan_reference_s"}:
            assert isinstance(m[key], (int, float)) and m[key] >= 0, key
        for suffix in ("", "_json"):
            assert m[f"peak_rss{suffix}_bytes"] == max(m[f"scan{suffix}_rss_bytes"], m[f"check{suffix}_rss_bytes"])
            assert m[f"scan{suffix}_marginal_per_file_s"] == max(0.0, m[f"scan{suffix}_s"] - m["scan_empty_s"]) / 50
        assert [t["key"] for t in entry["targets"]] == TARGET_KEYS
        assert {t["status"] for t in entry["targets"]} == {"not measured"}  # 10k and 100k were not run
    # kinds are dealt in blocks of 100: 40 PNG then 10 TGA of the mix; 90 PNG first in the png shape
    assert results["shapes"]["mix"]["sizes"]["50"]["by_kind"] == {"png": 40, "tga": 10}
    assert results["shapes"]["png"]["sizes"]["50"]["by_kind"] == {"png": 50}
    assert isinstance(results["scan_empty_s"], float)
    assert results["scan_empty_s"] == min(e["sizes"][k]["scan_empty_s"] for e in results["shapes"].values() for k in ("5", "50"))
    assert results["check_command"] == "check --total"
    # start-up: each command against the bare interpreter, in the same rounds
    startup = results["startup"]
    assert startup["bare_command"].startswith('python -c "import argparse')
    assert set(startup["commands"]) == {"check_empty", "check_named", "version", "help"}
    for c in startup["commands"].values():
        assert c["ratio"] == c["seconds"] / startup["bare_s"]
    assert [t["key"] for t in results["startup_targets"]] == STARTUP_KEYS
    assert all(t["status"] in ("holds", "does not hold") for t in results["startup_targets"])
    assert results["peer"] == {"skipped": "--no-peer"}
    # the table: one row per shape and size, every target named
    assert "targets, mix tree:" in done.stdout and "targets, png tree:" in done.stdout and "targets, start-up:" in done.stdout
    assert any(line.split()[:2] == ["png", "50"] for line in done.stdout.splitlines())
    assert "scan of the 5-file tree in the 50-file rounds" in done.stdout
    # the targets as Markdown, from the results file: a row per target, a column per shape
    table = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "--markdown", str(tmp_path / "out" / "results.json")],
                           capture_output=True, text=True, env=env, timeout=60)
    assert table.returncode == 0 and table.stdout.splitlines()[0] == "| target | limit | mix | png |"
    assert len(table.stdout.splitlines()) == 2 + len(TARGET_KEYS) + len(STARTUP_KEYS)
    # the tree is made once and kept; the changed file is put back as it was
    for name, shape in (("50", "mix"), ("png-50", "png")):
        tree = tmp_path / "trees" / name
        assert json.loads((tree / ".tree.json").read_text())["files"] == 50
        assert json.loads((tree / ".tree.json").read_text())["shape"] == shape
        changed = tree / "characters" / "set_0000" / "char_000000.png"
        assert changed.stat().st_mtime_ns == 1_704_067_200 * 10**9


def test_each_library_pool_of_the_comparison_gives_the_same_report(tmp_path):
    """benchmarks/pool_libraries.py: each variant scans a small tree in a pool (``--slow``
    without the pause) and writes the report the pool of texbudget writes."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import make_tree
        import pool_libraries
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    tree = tmp_path / "tree"
    make_tree.make_tree(tree, 60)
    env = dict(os.environ, POOL_SLEEP="0", PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    reports = {}
    for variant in pool_libraries.VARIANTS:
        argv = [sys.executable, str(REPO / "benchmarks" / "pool_libraries.py"), "--child", variant, "--slow", "--",
                "scan", "--no-cache", "--format", "json", "--jobs", "2", str(tree)]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        reports[variant] = done.stdout
    assert json.loads(reports["texbudget"])["textures"]
    assert all(report == reports["texbudget"] for report in reports.values())
