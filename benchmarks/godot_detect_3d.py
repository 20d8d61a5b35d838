#!/usr/bin/env python3
"""texbudget's ``detect_3d`` prediction against the Godot editor's own record, on real projects.

    python benchmarks/godot_detect_3d.py CHECKOUT [--json OUT.json]

CHECKOUT is a folder of Godot projects (every folder with a ``project.godot``; check the demo
projects out with ``real_projects.py godot --git BARE_REPO --into CHECKOUT``). Each project is
scanned by ``texbudget scan . --format json --no-cache`` in its folder (a child process each,
importing the texbudget this interpreter finds: set ``PYTHONPATH`` to compare another checkout).

A texture whose ``.import`` still sets ``detect_3d/compress_to`` (1 or 2) has not been drawn by
a 3D material in the editor since it was imported: the first such draw rewrites the
``.import`` (``compress/mode`` VRAM Compressed or Basis Universal, ``mipmaps/generate`` true,
``detect_3d/compress_to`` 0; ``ResourceImporterTexture::update_imports``). Where texbudget
predicts the conversion for such a texture (``decided_by`` says "(detect_3d)"), its model and
the editor's record disagree: either a use texbudget counts as 3D is not one, or the scene was
never opened in the editor. The script lists them; the results as of this commit are in
``benchmarks/real_projects.md`` ("detect_3d").
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: A ``.import`` that still asks for the conversion on the first 3D use.
_PENDING = re.compile(r"^detect_3d/compress_to=[12]\s*$", re.M)


def pending(project: Path, rel: str) -> bool:
    sidecar = project / f"{rel}.import"
    return sidecar.is_file() and _PENDING.search(sidecar.read_text(encoding="utf-8", errors="replace")) is not None


def check(checkout: Path) -> dict:
    checkout = checkout.resolve()
    projects = sorted(p.parent for p in checkout.rglob("project.godot"))
    pending_count, converted, unreadable = 0, [], []
    for project in projects:
        done = subprocess.run([sys.executable, "-m", "texbudget", "scan", ".", "--format", "json", "--no-cache"],
                              capture_output=True, text=True, check=False, cwd=project)
        try:
            report = json.loads(done.stdout)
        except json.JSONDecodeError:
            unreadable.append(str(project.relative_to(checkout)))
            continue
        for texture in report["textures"]:
            if pending(project, texture["path"]):
                pending_count += 1
                if "(detect_3d)" in texture["decided_by"]:
                    converted.append(f"{project.relative_to(checkout)}/{texture['path']}")
    return {"projects": len(projects), "detect_3d_pending": pending_count, "predicted_converted": len(converted),
            "which": converted, "not_scanned": unreadable}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path, help="a folder of Godot projects, checked out")
    ap.add_argument("--json", type=Path, help="write the result here too")
    args = ap.parse_args(argv)
    result = check(args.checkout)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
