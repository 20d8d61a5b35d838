#!/usr/bin/env python3
"""texbudget's scene readers and level resolver against real projects (issue 23: "a file the
reference library opens is never an error"; test against the world, not only against yourself).

    python benchmarks/real_projects.py godot CHECKOUT [--json OUT.json]
    python benchmarks/real_projects.py unity CHECKOUT [--json OUT.json] [--all]
    python benchmarks/real_projects.py godot --git BARE_REPO [--into DIR]   # check out HEAD first

CHECKOUT is a plain folder; nothing here fetches anything. ``--git`` checks out the HEAD of a
(bare) repository on this machine into DIR (a temporary folder by default) with ``git
cat-file``, file by file: a mirror that lacks some large objects is still checked out, and
the files it lacks are listed; a TB120 finding that names one of them is counted apart
("absent from the checkout"), not as texbudget's. For Godot every folder with a ``project.godot`` is a project: the
project folder is the scan root, every file under it that texbudget reads is read (not the
folders Godot skips: hidden ones and those with a ``.gdignore``), every texture's ``.import``
is parsed as the scan would, and every level is resolved with ``GodotIndex``: the scenes no
other scene instances, and the project's ``application/run/main_scene``. For Unity the
checkout is the project (``Assets/`` beside ``ProjectSettings/``): every file under
``Assets/`` and ``Packages/`` is read, every texture's ``.meta`` parsed, and every level
resolved with the project's index: the enabled scenes of ``EditorBuildSettings.asset``, or
every ``.unity`` with ``--all``.

It prints how many files of each kind were read, then every error and warning finding (of the
readers, the sidecars, the project index and the levels), grouped by code, and with ``--json``
writes them all. Info findings are counted, not listed. The results as of this commit are in
``benchmarks/real_projects.md``.

This uses the readers (``readers.read_path``), the resolver (``levels.graph``) and, as the
resolver's ``Project``, ``levels.project.EngineProject`` of each project: the one the scan uses,
with the Godot and Unity indexes behind it (the Unity index read without the ``.meta`` cache).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from texbudget.levels.godot import GodotIndex
from texbudget.levels.graph import Graph, Level, instanced_scenes, resolve_level
from texbudget.levels.project import EngineProject
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, Severity
from texbudget.readers import kind_of, read_path, suffix_of
from texbudget.readers.godot import read_godot_import
from texbudget.readers.unity import read_unity_meta


@dataclass
class Corpus:
    """What one project gave: files read per kind, the facts, every finding."""

    name: str
    root: Path
    read: dict[str, ReadResult] = field(default_factory=dict)
    sidecars: int = 0
    levels: list[Level] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)

    def graph(self) -> Graph:
        meshes: list[MeshFacts] = []
        scenes: list[SceneFacts] = []
        textures: list[str] = []
        for result in self.read.values():
            meshes += result.meshes
            scenes += result.scenes
            textures += [t.path for t in result.textures]
        return Graph(meshes, scenes, textures, self.read.keys())

    def read_files(self, rels: Iterable[str]) -> None:
        for rel in rels:
            if rel not in self.read:
                result = read_path(self.root, rel)
                self.read[rel] = result
                self.found += result.findings


def _walk(root: Path, *, godot: bool, under: Sequence[str] = ("",)) -> list[str]:
    """Files under ``root`` (relative, POSIX) texbudget reads. Godot skips hidden folders and
    those holding a ``.gdignore``; Unity hidden folders and those ending in ``~``."""
    out = []
    for start in under:
        top = root / start if start else root
        for folder, dirs, names in os.walk(top):
            if godot and ".gdignore" in names:
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.endswith("~"))
            base = Path(folder).relative_to(root).as_posix()
            base = "" if base == "." else base + "/"
            out += [base + n for n in sorted(names) if not n.startswith(".") and kind_of(suffix_of(n)) is not None]
    return out


def _resolve(corpus: Corpus, levels: Sequence[tuple[str, str]], project: EngineProject) -> None:
    """Resolve every level, reading what a level wants that was not read yet (a file in a folder
    discovery skipped) and resolving again."""
    for _round in range(4):
        graph = corpus.graph()
        project.graph = graph
        resolved = [resolve_level(scene, graph, project, name) for scene, name in levels]
        wanted = {w for level in resolved for w in level.wanted if (corpus.root / w).is_file() and w not in corpus.read}
        if not wanted:
            break
        corpus.read_files(sorted(wanted))
    corpus.levels = resolved
    for level in resolved:
        corpus.found += level.findings


# --- Godot ---------------------------------------------------------------------------------------


def godot_projects(checkout: Path) -> list[Corpus]:
    out = []
    for folder in GodotIndex(checkout).projects():
        root = checkout / folder if folder else checkout
        corpus = Corpus(name=folder or ".", root=root)
        files = _walk(root, godot=True)
        corpus.read_files(files)
        for rel in files:  # the texture's engine settings, as the scan reads them
            if kind_of(suffix_of(rel)) == "texture" and (root / (rel + ".import")).is_file():
                corpus.sidecars += 1
                parsed = read_godot_import(root / (rel + ".import"), rel + ".import")
                corpus.found += [parsed] if isinstance(parsed, Finding) else parsed.findings
        project = EngineProject(root, files)
        graph = corpus.graph()
        project.graph = graph
        scenes = [s.path for s in graph.scenes.values() if s.role == "scene"]
        inner = instanced_scenes(graph, project)
        levels = [s for s in scenes if s not in inner]
        main = project.godot.main_scene("")
        if main and main not in levels:
            levels.append(main)
        _resolve(corpus, [(s, "") for s in sorted(levels)], project)
        corpus.found += project.findings()
        out.append(corpus)
    return out


# --- Unity ---------------------------------------------------------------------------------------


def unity_project(checkout: Path, *, every_scene: bool) -> Corpus:
    corpus = Corpus(name=checkout.name, root=checkout)
    files = _walk(checkout, godot=False, under=[d for d in ("Assets", "Packages") if (checkout / d).is_dir()])
    corpus.read_files(files)
    for rel in files:
        if kind_of(suffix_of(rel)) == "texture" and (checkout / (rel + ".meta")).is_file():
            corpus.sidecars += 1
            parsed = read_unity_meta(checkout / (rel + ".meta"), rel + ".meta")
            corpus.found += [parsed] if isinstance(parsed, Finding) else parsed.findings
    project = EngineProject(checkout, files)
    scenes = sorted(r for r in files if r.endswith(".unity"))
    levels = scenes if every_scene or not project.unity.levels else list(project.unity.levels)
    _resolve(corpus, [(s, "") for s in levels], project)
    corpus.found += project.findings()
    return corpus


# --- a checkout of a bare repository --------------------------------------------------------------


def checkout(repo: Path, into: Path) -> list[str]:
    """HEAD's files of ``repo`` written under ``into`` (symbolic links and submodules left
    out); returns the paths whose objects the repository lacks."""
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "HEAD"],
                             capture_output=True, check=True).stdout.split(b"\0")
    entries = []
    for entry in listing:
        if entry:
            meta, path = entry.split(b"\t", 1)
            mode, kind, oid = meta.split()
            if kind == b"blob" and mode != b"120000":
                entries.append((oid, path.decode("utf-8", "surrogateescape")))
    missing = []
    with subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for oid, path in entries:
            cat.stdin.write(oid + b"\n")
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            if header[-1] == b"missing":
                missing.append(path)
                continue
            data = cat.stdout.read(int(header[2]))
            cat.stdout.read(1)
            dest = into / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        cat.stdin.close()
    return missing


# --- the report ----------------------------------------------------------------------------------


def _absent(finding: Finding, absent: Sequence[str]) -> bool:
    """A TB120 naming a file the checkout lacks (the mirror's missing objects)."""
    return finding.code == "TB120" and any(f"({path.rsplit('/', 1)[-1]})" in finding.message
                                           or f"/{path.rsplit('/', 1)[-1]})" in finding.message for path in absent)


def summary(corpora: Sequence[Corpus], seconds: float, absent: Sequence[str] = ()) -> dict:
    kinds: Counter[str] = Counter()
    lfs = 0
    for c in corpora:
        for rel, result in c.read.items():
            kinds[suffix_of(rel)] += 1
            lfs += any(f.code == "TB008" for f in result.findings)
    everything = sorted({(c.name, f.path, f.code, f.message): f for c in corpora for f in c.found}.values(),
                        key=lambda f: (f.code, f.path, f.message))  # paths are relative to each project
    found = [f for f in everything if not _absent(f, absent)]
    by_severity = Counter(f.severity.value for f in found)
    levels = [lv for c in corpora for lv in c.levels]
    return {
        "projects": len(corpora),
        "files_read": sum(kinds.values()),
        "by_suffix": dict(sorted(kinds.items())),
        "lfs_pointers": lfs,
        "sidecars": sum(c.sidecars for c in corpora),
        "levels": len(levels),
        "level_meshes": sum(len(lv.meshes) for lv in levels),
        "level_instances": sum(sum(lv.meshes.values()) for lv in levels),
        "level_textures": sum(len(lv.textures) for lv in levels),
        "findings": dict(sorted(by_severity.items())),
        "by_code": dict(sorted(Counter(f"{f.code} {f.severity.value}" for f in found).items())),
        "absent_from_checkout": {"files": len(absent), "tb120": len(everything) - len(found)},
        "seconds": round(seconds, 1),
        "listed": [{"project": c.name, "path": f.path, "code": f.code, "severity": f.severity.value, "message": f.message,
                    "absent": _absent(f, absent)}
                   for c in corpora for f in sorted({(f.path, f.code, f.message): f for f in c.found}.values(),
                                                    key=lambda f: (f.code, f.path))
                   if f.severity is not Severity.INFO],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=("godot", "unity"))
    ap.add_argument("checkout", type=Path, nargs="?", help="the project (Unity) or a folder of projects (Godot), checked out")
    ap.add_argument("--git", type=Path, help="check out the HEAD of this (bare) repository first")
    ap.add_argument("--into", type=Path, help="with --git: the folder to check out into (default: a temporary one)")
    ap.add_argument("--json", type=Path, help="write the summary and every finding here")
    ap.add_argument("--all", action="store_true", help="Unity: every .unity is a level, not only the Build Settings' scenes")
    args = ap.parse_args(argv)
    if (args.checkout is None) == (args.git is None):
        ap.error("give a CHECKOUT folder or --git REPO")
    with tempfile.TemporaryDirectory(prefix="texbudget-real-") as tmp:
        root, absent = args.checkout, []
        if args.git is not None:
            root = args.into or Path(tmp) / args.git.name
            absent = checkout(args.git, root)
        start = time.perf_counter()
        corpora = godot_projects(root) if args.engine == "godot" else [unity_project(root, every_scene=args.all)]
        result = summary(corpora, time.perf_counter() - start, absent)
    listed = result.pop("listed")
    print(json.dumps(result, indent=1))
    for item in listed:
        mark = " (absent from the checkout)" if item["absent"] else ""
        print(f"{item['severity']:7} {item['code']} {item['project']}: {item['path']}: {item['message']}{mark}")
    if args.json:
        args.json.write_text(json.dumps({**result, "listed": listed}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
