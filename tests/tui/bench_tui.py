"""How fast the TUI repaints with many assets (a measurement, not a test; never asserted).

    python tests/tui/bench_tui.py [N]        (default 10,000 textures)

A synthetic scene of N textures in 350 folders goes through ``make_app`` with a fake scanner.
For each switch it prints the whole time (evaluation in the worker thread + repaint) and the
part spent on the main thread (assigning the report, diffing the tables), which is what
makes keys feel slow.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from texbudget import config as config_mod
from texbudget import pipeline
from texbudget.model import TextureFacts
from texbudget.scan.scene import Scan
from texbudget.tui.app import TexbudgetApp, make_app
from texbudget.tui.widgets.assets import AssetTable


def scene(n: int) -> Scan:
    textures = []
    for i in range(n):
        folder = f"textures/f{i % 50}/sub{i % 7}"
        kind = ("albedo", "normal", "orm")[i % 3]
        size = 2 ** (8 + i % 5)
        if i % 4 == 0:
            textures.append(TextureFacts(path=f"{folder}/t{i}_{kind}.png", container="png", width=size, height=size,
                                         channels=3, disk_bytes=size * size))
        else:
            textures.append(TextureFacts(path=f"{folder}/t{i}_{kind}.ktx2", container="ktx2", width=size, height=size,
                                         stored_levels=9, stored_format="BC7_SRGB", disk_bytes=size * size))
    return Scan(root=Path("/bench"), textures=tuple(textures), files=tuple(t.path for t in textures))


async def settle(app, pilot) -> None:
    while True:
        await pilot.pause()
        await app.workers.wait_for_complete([w for w in app.workers if w.group != "watch"] or None)
        await pilot.pause()
        if app._eval_timer is None and not app.scanning:
            return


async def main(n: int) -> None:
    scan = scene(n)
    config = config_mod.load(None)
    settings = pipeline.build_settings(config)
    main_thread: list[float] = []
    original = TexbudgetApp.on_report_evaluated

    def timed(self, message):
        start = time.perf_counter()
        original(self, message)
        main_thread.append(time.perf_counter() - start)

    TexbudgetApp.on_report_evaluated = timed
    app = make_app(settings, scan.root, config, scanner=lambda *a, **k: scan, watch=False)
    start = time.perf_counter()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        rows = app.screen.query_one(AssetTable).row_count
        print(f"{n:,} textures: first screen, flat table filled ({rows:,} rows): {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        pipeline.evaluate(scan, app.settings())
        print(f"  pipeline.evaluate alone: {time.perf_counter() - start:.2f} s")
        switches = [
            ("quality high (every row changes)", lambda: app.choices.set("quality", ("high",))),
            ("RT nvidia (no row changes)", lambda: app.choices.set("rt", ("nvidia",))),
            ("platform mobile-astc", lambda: app.choices.set("platform", "mobile-astc")),
            ("resolution 4k", lambda: app.choices.set("resolutions", ("3840x2160",))),
        ]
        for label, change in switches:
            app.choices = change()
            start = time.perf_counter()
            app.evaluate_now()
            await settle(app, pilot)
            print(f"  {label}: {time.perf_counter() - start:.2f} s, main thread {main_thread[-1]:.3f} s")
        start = time.perf_counter()
        app.set_what_if(scan.textures[4].path, {"max_size": 256})
        await settle(app, pilot)
        print(f"  what-if on one asset: {time.perf_counter() - start:.2f} s, main thread {main_thread[-1]:.3f} s, "
              f"table {app.screen.query_one(AssetTable).last_sync}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
