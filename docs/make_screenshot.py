"""Make the README screenshot: the TUI on the demo scene, saved as docs/screenshot.svg.

    python docs/make_screenshot.py [--out docs/screenshot.svg] [--size 132x40]

It runs the app headless (``App.run_test``) through the same ``make_app`` factory the CLI
uses, with the real scanner on ``assets/demo`` (no cache written there), waits until the scan
and the evaluation are done (the flat table, biggest assets first, is the first view), puts the matrix
cursor on the first cell that does not fit, and exports the screen as SVG.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from texbudget import config as config_mod  # noqa: E402
from texbudget import pipeline  # noqa: E402
from texbudget.tui.app import make_app  # noqa: E402
from texbudget.tui.widgets.matrix import VerdictMatrix  # noqa: E402


async def _settle(app, pilot) -> None:
    for _ in range(600):
        await pilot.pause(0.02)
        busy = app.scanning or app._eval_timer is not None or any(
            w.group in ("scan", "evaluate") and not w.is_finished for w in app.workers)
        if not busy and app.report is not None:
            await pilot.pause(0.1)
            return
    raise SystemExit("make_screenshot: the app did not finish scanning in time")


async def shoot(out: Path, size: tuple[int, int], demo: Path) -> None:
    config = config_mod.load_for(demo)
    settings = pipeline.build_settings(config)
    app = make_app(settings, demo, config, watch=False)
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot)
        matrix = app.screen.query_one(VerdictMatrix)
        report = app.report
        for row, scenario in enumerate(report.scenarios):
            bad = next((c for c in scenario.cards if c.verdict != "fits"), None)
            if bad is not None:
                column = [str(c.key.value) for c in matrix.ordered_columns].index(bad.name)
                matrix.move_cursor(row=row, column=column, animate=False)
                break
        app.screen.query_one("#table").focus()
        await _settle(app, pilot)
        svg = app.export_screenshot(title="texbudget tui assets/demo")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(svg, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "screenshot.svg")
    parser.add_argument("--size", default="132x40", help="terminal COLSxROWS")
    parser.add_argument("--demo", type=Path, default=REPO / "assets" / "demo")
    args = parser.parse_args(argv)
    cols, rows = (int(x) for x in args.size.lower().split("x"))
    asyncio.run(shoot(args.out, (cols, rows), args.demo.resolve()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
