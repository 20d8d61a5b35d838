"""A small fixed scene for the TUI tests, a fake scanner, and helpers to let the app settle.

The scene is built from facts (no files), so every number on screen is known: the scanner is
injected into ``make_app`` exactly as the CLI injects the real one.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from texbudget import config as config_mod
from texbudget import findings, pipeline
from texbudget.model import AttributeFacts, MeshFacts, PrimitiveFacts, SceneFacts, TextureFacts
from texbudget.scan.scene import Scan

ROOT = Path("/scene")

TEXTURES = (
    TextureFacts(path="textures/env/sky.ktx2", container="ktx2", width=1024, height=1024, faces=6,
                 stored_levels=11, stored_format="BC6H_UFLOAT", channels=3, hdr=True, disk_bytes=8_400_000),
    TextureFacts(path="textures/props/crate_albedo.png", container="png", width=2048, height=2048,
                 channels=3, color_space="srgb", disk_bytes=4_000_000),
    TextureFacts(path="textures/props/crate_normal.png", container="png", width=2048, height=2048,
                 channels=3, disk_bytes=5_000_000),
    TextureFacts(path="textures/props/crate_orm.png", container="png", width=1024, height=1024,
                 channels=3, disk_bytes=1_000_000),
    TextureFacts(path="textures/buildings/wall_albedo.ktx2", container="ktx2", width=4096, height=4096,
                 stored_levels=13, stored_format="BC7_SRGB", disk_bytes=22_000_000),
    TextureFacts(path="textures/buildings/wall_normal.dds", container="dds", width=4096, height=4096,
                 stored_levels=13, stored_format="BC5_UNORM", disk_bytes=22_000_000),
    TextureFacts(path="textures/ui/hud_atlas.png", container="png", width=2048, height=1024,
                 channels=4, alpha=True, color_space="srgb", disk_bytes=900_000),
    TextureFacts(path="level.glb#image/0", container="png", width=512, height=512, channels=3, disk_bytes=90_000),
)


def _mesh(path: str, name: str, triangles: int) -> MeshFacts:
    vertices = triangles + 2
    attrs = (
        AttributeFacts("POSITION", "FLOAT", 3, vertices, 12 * vertices),
        AttributeFacts("NORMAL", "FLOAT", 3, vertices, 12 * vertices),
        AttributeFacts("TEXCOORD_0", "FLOAT", 2, vertices, 8 * vertices),
    )
    prim = PrimitiveFacts(mode=4, vertex_count=vertices, triangles=triangles, attributes=attrs,
                          index_count=3 * triangles, index_bytes_per=4, material="level.glb#material/0")
    return MeshFacts.from_primitives(path=path, name=name, primitives=(prim,), vertices=vertices, indices=3 * triangles,
                                     triangles=triangles, vertex_bytes=32 * vertices, index_bytes=12 * triangles)


MESHES = (_mesh("level.glb#mesh/0", "Crate", 12), _mesh("level.glb#mesh/1", "Wall", 20_000))

SCENES = (SceneFacts.from_uses(
    path="level.glb",
    instances=(("level.glb#mesh/0", 40), ("level.glb#mesh/1", 6)),
    texture_usage=(
        ("textures/props/crate_albedo.png", "level.glb#material/0", "baseColorTexture"),
        ("textures/props/crate_normal.png", "level.glb#material/0", "normalTexture"),
        ("textures/props/crate_orm.png", "level.glb#material/0", "metallicRoughnessTexture"),
        ("textures/buildings/wall_albedo.ktx2", "level.glb#material/1", "baseColorTexture"),
        ("level.glb#image/0", "level.glb#material/2", "baseColorTexture"),
    ),
),)

FINDINGS = (findings.make("broken/empty.dds", "TB040", "the file is empty (0 bytes)"),)

FILES = (
    "broken/empty.dds", "level.glb", "textures/buildings/wall_albedo.ktx2", "textures/buildings/wall_normal.dds",
    "textures/env/sky.ktx2", "textures/props/crate_albedo.png", "textures/props/crate_normal.png",
    "textures/props/crate_orm.png", "textures/ui/hud_atlas.png",
)

SCAN = Scan(root=ROOT, textures=TEXTURES, meshes=MESHES, scenes=SCENES, findings=FINDINGS, files=FILES)

CONFIG_RAW = {
    "budget": {"cards": ["1GB", "1.85GB", "8GB"], "resolutions": ["1080p", "4k"], "rt": ["off", "nvidia"],
               "quality": ["ultra"]},
    "rule": [{"match": "textures/ui/*", "role": "ui"}],
}


def make_config(raw: dict | None = None, path: Path | None = None) -> config_mod.Config:
    return config_mod.validate(raw if raw is not None else CONFIG_RAW, path)


class FakeScanner:
    """Returns the fixed scene (or parts of it, one per ``AssetsRead``); counts its calls and
    remembers the paths it was asked for. ``gate``: the second batch waits for it."""

    def __init__(self, scan: Scan = SCAN, batches: int = 1, gate: threading.Event | None = None,
                 fail: Exception | None = None) -> None:
        self.scan = scan
        self.batches = batches
        self.gate = gate
        self.fail = fail
        self.calls: list[object] = []

    def __call__(self, root, config, paths, progress=None) -> Scan | Iterator[Scan]:
        self.calls.append(paths)
        if self.fail is not None:
            raise self.fail
        if self.batches == 1:
            if progress:
                progress(len(self.scan.files), len(self.scan.files))
            return self.scan
        return self._parts(progress)

    def _parts(self, progress) -> Iterator[Scan]:
        s = self.scan
        half = len(s.textures) // 2
        yield Scan(root=s.root, findings=s.findings, files=s.files)
        yield Scan(root=s.root, textures=s.textures[:half], files=tuple(t.path for t in s.textures[:half]))
        if progress:
            progress(half, len(s.textures))
        if self.gate is not None:
            self.gate.wait(10)
        yield Scan(root=s.root, textures=s.textures[half:], meshes=s.meshes, scenes=s.scenes,
                   files=(*(t.path for t in s.textures[half:]), "level.glb"))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests with ``asyncio.run`` (no asyncio plugin needed)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**args))
        return True
    return None


@pytest.fixture
def config() -> config_mod.Config:
    return make_config()


@pytest.fixture
def settings(config) -> pipeline.Settings:
    return pipeline.build_settings(config)


async def settle(app, pilot, rounds: int = 200) -> None:
    """Wait until no worker runs, no evaluation is pending and the screen has the newest report."""
    for _ in range(rounds):
        await pilot.pause()
        others = [w for w in app.workers if w.group != "watch"]
        if others:  # an empty list would wait for every worker, the endless watch too
            await app.workers.wait_for_complete(others)
        await pilot.pause()
        busy = (app.scanning or app._eval_timer is not None or app._rescanning
                or any(w.group in ("scan", "evaluate", "rescan", "levels") and not w.is_finished for w in app.workers))
        if not busy:
            await pilot.pause()
            return
    raise AssertionError("the app did not settle")
