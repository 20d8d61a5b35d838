"""Reading a scene (the I/O stage of DESIGN.md §1): discover, read each file with its
engine sidecar, and gather everything into one immutable ``Scan``.

``read_scene`` is the only function here the rest of texbudget calls; the TUI keeps the
``Scan`` it returns and re-runs ``pipeline.evaluate`` on it for every settings switch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from texbudget import policy
from texbudget.config import Config
from texbudget.discover import discover
from texbudget.model import Finding, MeshFacts, ReadResult, SceneFacts, TextureFacts
from texbudget.readers import read_path

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Scan:
    """Everything read from disk for one scan root. Immutable; the TUI keeps it."""

    root: Path
    textures: tuple[TextureFacts, ...] = ()
    meshes: tuple[MeshFacts, ...] = ()
    scenes: tuple[SceneFacts, ...] = ()
    findings: tuple[Finding, ...] = ()
    engine: Mapping[str, policy.EngineImport] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    skipped: int = 0


def _read_one(args: tuple[Path, str]) -> tuple[str, ReadResult, object]:
    """Read one file and, for a texture, the engine sidecar beside it."""
    root, rel = args
    result = read_path(root, rel)
    engine = None
    if result.textures and "#" not in rel:
        engine = policy.read_engine_import(root / rel, rel)
    return rel, result, engine


def read_scene(
    root: Path,
    config: Config,
    paths: Sequence[Path] | None = None,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    reader: Callable[[tuple[Path, str]], tuple[str, ReadResult, object]] = _read_one,
) -> Scan:
    """Discover and read every asset under ``root`` (or just ``paths``)."""
    found = discover(root, config["scan.include"], config["scan.exclude"], paths)
    files = list(found.files)
    results: list[tuple[str, ReadResult, object]] = []
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs > 1 and len(files) >= 64:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, item in enumerate(pool.map(reader, [(root, f) for f in files], chunksize=32), 1):
                results.append(item)
                if progress:
                    progress(i, len(files))
    else:
        for i, rel in enumerate(files, 1):
            results.append(reader((root, rel)))
            if progress:
                progress(i, len(files))
    return _combine(root, found, results, reader)


def _keep_engine(rel: str, eng: object, engine: dict, findings: list[Finding]) -> None:
    if isinstance(eng, Finding):
        findings.append(eng)
    elif isinstance(eng, policy.EngineImport):
        engine[rel] = eng
        findings.extend(eng.findings)


def _combine(root: Path, found, results, reader) -> Scan:
    textures: list[TextureFacts] = []
    meshes: list[MeshFacts] = []
    scenes: list[SceneFacts] = []
    findings: list[Finding] = list(found.findings)
    engine: dict[str, policy.EngineImport] = {}
    for rel, result, eng in results:
        textures += result.textures
        meshes += result.meshes
        scenes += result.scenes
        findings += result.findings
        _keep_engine(rel, eng, engine, findings)
    # Images a glTF references but discovery did not list (excluded, or a `gltf` follow scan)
    read_paths = {t.path for t in textures} | set(found.files)
    for scene in scenes:
        for tex, _, _ in scene.texture_usage:
            if "#" not in tex and tex not in read_paths and (root / tex).is_file():
                rel, result, eng = reader((root, tex))
                read_paths.add(tex)
                textures += result.textures
                findings += result.findings
                _keep_engine(rel, eng, engine, findings)
    return Scan(
        root=root, textures=tuple(textures), meshes=tuple(meshes), scenes=tuple(scenes),
        findings=tuple(findings), engine=engine, files=tuple(found.files), skipped=found.skipped,
    )


