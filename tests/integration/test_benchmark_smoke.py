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
    "files", "apparent_bytes", "raw_read_s", "raw_read_e2e_s", "raw_read_e2e_check_s", "raw_read_per_file_s", "scan_s",
    "scan_empty_s", "scan_rss_bytes", "scan_marginal_per_file_s", "check_warm_s", "check_rss_bytes",
    "peak_rss_bytes", "recompute_s",
}
TARGET_KEYS = ["scan_marginal_vs_raw", "check_warm_vs_raw_e2e", "scan_100k_vs_10k", "peak_rss_100k_mib", "recompute_10k_ms"]


def test_the_benchmark_writes_every_metric(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--sizes", "5,50", "--repeat", "1", "--no-peer",
         "--out", str(tmp_path / "out"), "--trees", str(tmp_path / "trees")],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(results["sizes"]) == {"5", "50"}
    assert set(results["sizes"]["5"]) == SIZE_METRICS
    m = results["sizes"]["50"]
    # the 5-file tree is scanned in the 50-file rounds too: the linearity target's reference
    assert set(m) == SIZE_METRICS | {"reference_files", "scan_reference_s"}
    assert m["reference_files"] == 5 and isinstance(m["scan_reference_s"], float)
    assert m["files"] == 50
    for key in SIZE_METRICS - {"files"} | {"scan_reference_s"}:
        assert isinstance(m[key], (int, float)) and m[key] >= 0, key
    assert m["peak_rss_bytes"] == max(m["scan_rss_bytes"], m["check_rss_bytes"])
    assert isinstance(results["scan_empty_s"], float)
    assert results["scan_empty_s"] == min(results["sizes"][k]["scan_empty_s"] for k in ("5", "50"))
    assert m["scan_marginal_per_file_s"] == max(0.0, m["scan_s"] - m["scan_empty_s"]) / 50
    assert results["check_command"] == "check --total"
    assert [t["key"] for t in results["targets"]] == TARGET_KEYS
    assert {t["status"] for t in results["targets"]} == {"not measured"}  # 10k and 100k were not run
    assert results["peer"] == {"skipped": "--no-peer"}
    # the table: one row for the size, every target named
    assert "targets (issue 10):" in done.stdout
    assert any(line.split()[:1] == ["50"] for line in done.stdout.splitlines())
    assert "scan of the 5-file tree in the 50-file rounds" in done.stdout
    # the tree is made once and kept; the changed file is put back as it was
    tree = tmp_path / "trees" / "50"
    assert json.loads((tree / ".tree.json").read_text())["files"] == 50
    changed = tree / "characters" / "set_0000" / "char_000000.png"
    assert changed.stat().st_mtime_ns == 1_704_067_200 * 10**9
