"""The Textual app: ``make_app`` builds it (for the CLI, the tests and the screenshot script),
``run`` runs it for ``texbudget tui``.

Threads and messages (STYLE.md, "The TUI"):

- The scan runs in ``@work(thread=True, exclusive=True, exit_on_error=False)``; the thread
  posts ``ScanProgressed``, then one ``AssetsRead`` per batch the scanner yields, then
  ``ScanFinished``. It never touches a widget and checks ``is_cancelled`` between batches.
- Every switch (keys, what-ifs, a batch read) re-runs ``pipeline.evaluate`` on the facts
  already read, in an exclusive worker; ``ReportEvaluated`` brings the immutable ``Report``
  back and the app assigns it to each screen's ``report`` inside ``batch_update``.
- The watch polls mtimes every ``watch_interval`` seconds in its own worker and posts
  ``FilesChanged``; the changed files are read again and merged in; selection is kept. It
  also stats the config file and posts ``ConfigChanged``: the file is read again
  (``reload_config``), its settings replace the starting ones, and a ``[scan]`` change scans
  again.
- After a scan (and a watch rescan) the levels are resolved once, in their own worker
  (``LevelReader.project``: it may read files the scan excluded), and ``LevelsResolved``
  brings them. The level picker (``m``) switches the whole screen to one level: the evaluation
  is the same ``evaluate`` on the level's view (``levels.reports.level_scan``), nothing is read
  again. ``tui LEVEL`` reads that level alone first (``LevelReader.one``), shows it, then scans
  the project so the picker offers its other levels.
- Every worker failure meets in ``on_worker_state_changed``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from texbudget import config as config_mod
from texbudget import configwrite, pipeline
from texbudget.budget.cards import resolve_cards
from texbudget.config import Config, parse_rules
from texbudget.errors import TexbudgetError
from texbudget.levels.graph import Level
from texbudget.levels.reading import LevelReader
from texbudget.levels.reports import LevelSet, level_scan, with_levels
from texbudget.model import TextureCost
from texbudget.pipeline import Report, Settings
from texbudget.policy.decision import decide, price
from texbudget.policy.rules import Rule
from texbudget.scan.scene import Scan
from texbudget.tui import browse as browse_mod
from texbudget.tui import scanning, state
from texbudget.tui.scanning import Scanner
from texbudget.tui.screens.asset import AssetScreen
from texbudget.tui.screens.help import HelpScreen
from texbudget.tui.screens.main import MainScreen
from texbudget.tui.screens.picker import PickerScreen
from texbudget.tui.widgets.assets import FolderTable
from texbudget.tui.widgets.settings_bar import WHAT_IF
from texbudget.units import human_bytes

#: During a scan, re-evaluate at most this often (seconds); the last batch always is.
EVALUATE_EVERY = 0.4


# --- messages (past events) ------------------------------------------------------------------


class ScanProgressed(Message):
    def __init__(self, done: int, total: int, generation: int) -> None:
        self.done, self.total, self.generation = done, total, generation
        super().__init__()


class AssetsRead(Message):
    """A batch of facts was read. ``touched``: the files it replaces on screen."""

    def __init__(self, part: Scan, generation: int, touched: frozenset[str] | None = None,
                 removed: frozenset[str] = frozenset()) -> None:
        self.part, self.generation, self.touched, self.removed = part, generation, touched, removed
        super().__init__()


class ScanFinished(Message):
    def __init__(self, generation: int, files: int, seconds: float) -> None:
        self.generation, self.files, self.seconds = generation, files, seconds
        super().__init__()


class ScanFailed(Message):
    def __init__(self, error: BaseException | None) -> None:  # Worker.error's type
        self.error = error
        super().__init__()


class FilesChanged(Message):
    def __init__(self, changed: frozenset[str], removed: frozenset[str]) -> None:
        self.changed, self.removed = changed, removed
        super().__init__()


class RescanDone(Message):
    """A watch rescan ended (its facts came in the AssetsRead before)."""


class ConfigChanged(Message):
    """The config file's stamp (mtime, size; None: no file) is not what the watch saw last."""

    def __init__(self, stamp: scanning.Stamp | None) -> None:
        self.stamp = stamp
        super().__init__()


class ReportEvaluated(Message):
    """A new report, with the browser rows built from it for ``browse.query`` (both pure,
    built in the worker so the main thread only assigns them), and the level it is of
    (``state.LevelLabel``)."""

    def __init__(self, report: Report, generation: int, browse: browse_mod.Browse | None = None,
                 level: state.LevelLabel | None = None) -> None:
        self.report, self.generation, self.browse, self.level = report, generation, browse, level
        super().__init__()


class LevelsResolved(Message):
    """The levels of a scan (``generation``: the resolution's), and ``whole``: the scan as the
    whole report counts it (``levels.reading.project_scan``: what engine materials and levels
    use). ``first``: the level ``tui LEVEL`` names, read alone before the project's scan."""

    def __init__(self, sets: tuple[LevelSet, ...], generation: int, first: bool = False,
                 whole: Scan | None = None) -> None:
        self.sets, self.generation, self.first, self.whole = sets, generation, first, whole
        super().__init__()


# --- the app ---------------------------------------------------------------------------------


class TexbudgetApp(App[int]):
    """Does the scene fit? The main screen answers; every key recomputes from facts read once."""

    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = False
    TITLE = "texbudget"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", tooltip="leave texbudget"),
        Binding("question_mark", "help", "help", key_display="?", tooltip="every key and symbol"),
    ]

    def __init__(
        self, settings: Settings, root: Path, config: Config, paths: Sequence[Path] | None = None,
        scanner: Scanner = scanning.read_in_batches, *, watch: bool = True, watch_interval: float = 2.0,
        settings_for: Callable[[Config], Settings] | None = None, level_reader: LevelReader | None = None,
        level: str | None = None,
    ) -> None:
        super().__init__()
        self.base_settings = settings
        self.settings_for = settings_for or _default_settings
        self.root = Path(root)
        self.config = config
        self.paths = list(paths) if paths else None
        self.scanner = scanner
        self.watch_files = watch
        self.watch_interval = watch_interval
        self.choices = state.Choices()
        self.what_ifs: dict[str, dict[str, object]] = {}
        self.written: list[dict[str, object]] = []
        self.config_target = config.path or self.root / "texbudget.toml"
        self._config_stamp = scanning.stamp(self.config_target)  # as last read or written here
        self.scan = Scan(root=self.root)
        self.report: Report | None = None
        self.scanning = False
        self.scan_generation = 0
        self.eval_generation = 0
        self.evaluations = 0  # how many reports were evaluated (tests: no rescan on a switch)
        self.scans = 0  # how many full scans ran
        self._fresh = Scan(root=self.root)
        self._last_eval = 0.0
        self._eval_timer: Timer | None = None
        self._dirty: set[str] = set()
        self._gone: set[str] = set()
        self._rescanning = False
        self.rescans = 0
        # levels: resolved once per scan (and watch rescan); the chosen one is (source, name)
        self.level_reader = level_reader or LevelReader()
        self.level_sets: tuple[LevelSet, ...] = ()
        self.counted: Scan | None = None  # ``scan`` as the whole report counts it (None: as read)
        # files the levels load that the scan does not hold (``[scan] exclude``): watched too
        self.level_only: frozenset[str] = frozenset()
        self.level: tuple[str, str] | None = None
        self.named_level = level  # `tui LEVEL`: its scene, always offered by the picker
        self._preselect = level is not None  # and chosen when it is first resolved
        self.levels_generation = 0
        self.resolutions = 0  # how many times the levels were resolved (tests)
        self.title = f"texbudget: {self.root.name or self.root}"

    # --- lifecycle -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self))
        self.start_scan()
        if self.watch_files:
            self._watch()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen([
            ("Main screen", MainScreen.BINDINGS),
            ("Folder tree", FolderTable.BINDINGS),
            ("Asset screen", AssetScreen.BINDINGS),
            ("Everywhere", self.BINDINGS),
        ]))

    # --- settings ------------------------------------------------------------------------

    def extra_rules(self, skip: str | None = None) -> tuple[Rule, ...]:
        """Rules written this session (as the config file now has them), then the what-ifs
        (all but the one of ``skip``)."""
        out: list[Rule] = []
        if self.written:
            source = (self.config.path or self.config_target).name  # as the config names them
            out += parse_rules(self.written, source, first=len(self.config.rules) + 1)
        what_ifs = [{"match": configwrite.glob_escape(k), **v} for k, v in self.what_ifs.items() if k != skip]
        if what_ifs:
            out += parse_rules(what_ifs, WHAT_IF)
        return tuple(out)

    def settings(self, choices: state.Choices | None = None, skip: str | None = None) -> Settings:
        """The settings of the next evaluation: starting ones, the keys' choices, the rules
        written this session and the what-ifs (but ``skip``'s)."""
        return state.apply(self.base_settings, choices or self.choices, self.extra_rules(skip))

    def pick(self, key: str) -> None:
        title, make_options = state.PICKERS[key]
        options = make_options(self.base_settings)
        current = state.current_index(options, self.choices, key)
        self.push_screen(PickerScreen(title, options, current), partial(self.choose, key))

    def choose(self, key: str, option: state.Option | None) -> None:
        if option is None:
            return
        choices = self.choices.set(key, option.value, option.configured)
        try:
            settings = self.settings(choices)
            resolve_cards(settings.budget.cards)
        except (ValueError, TexbudgetError) as exc:
            self.notify(str(exc), severity="error", title="not applied", markup=False)
            return
        self.choices = choices
        self.evaluate_now()

    # --- evaluation ---------------------------------------------------------------------------

    def evaluate_now(self) -> None:
        if self._eval_timer is not None:
            self._eval_timer.stop()
            self._eval_timer = None
        self._last_eval = time.monotonic()
        self.eval_generation += 1
        main = self.main_screen
        chosen = self.chosen_level()
        if chosen is not None:
            label: state.LevelLabel | None = state.LevelLabel(chosen[1].name, chosen[1].scene)
        else:
            label = state.LevelLabel("", "") if self.level_sets else None
        self._evaluate(self.counted or self.scan, self.settings(), self.eval_generation, main.filter_text if main else "",
                       chosen, self.primary_levels(), label)

    def evaluate_soon(self) -> None:
        """While a scan runs, at most every EVALUATE_EVERY seconds; else now."""
        if not self.scanning:
            self.evaluate_now()
            return
        wait = EVALUATE_EVERY - (time.monotonic() - self._last_eval)
        if wait <= 0:
            self.evaluate_now()
        elif self._eval_timer is None:
            self._eval_timer = self.set_timer(wait, self._timer_evaluate)

    def _timer_evaluate(self) -> None:
        self._eval_timer = None
        self.evaluate_now()

    @work(thread=True, exclusive=True, group="evaluate", exit_on_error=False)
    def _evaluate(self, scan: Scan, settings: Settings, generation: int, query: str,
                  chosen: tuple[LevelSet, Level] | None = None, primary: LevelSet | None = None,
                  label: state.LevelLabel | None = None) -> None:
        """The report on screen: the chosen level's (its view of the facts), else the whole
        scan's with the levels' findings, as ``texbudget scan`` gives them."""
        if chosen is not None:
            report = pipeline.evaluate(level_scan(*chosen), settings)
        else:
            report = with_levels(pipeline.evaluate(scan, settings), primary, settings, reports=False)
        if get_current_worker().is_cancelled:
            return
        rows = browse_mod.build(report, query)
        if not get_current_worker().is_cancelled:
            self.post_message(ReportEvaluated(report, generation, rows, label))

    def on_report_evaluated(self, message: ReportEvaluated) -> None:
        if message.generation != self.eval_generation:
            return
        self.report = message.report
        self.evaluations += 1
        level = message.level
        self.title = f"texbudget: {self.root.name or self.root}" + (f" · level {level.name}" if level and level.name else "")
        with self.batch_update():
            main = self.main_screen
            if main is not None:
                main.level = level
            for screen in self.screen_stack:
                if hasattr(type(screen), "report"):
                    target: Any = screen  # MainScreen or AssetScreen: a screen with a ``report`` reactive
                    if message.browse is not None and hasattr(target, "prebuilt"):
                        target.prebuilt = (message.report, message.browse)
                    target.report = message.report

    @property
    def main_screen(self) -> MainScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    # --- levels -------------------------------------------------------------------------------

    @property
    def has_levels(self) -> bool:
        return bool(self.level_sets)

    def chosen_level(self) -> tuple[LevelSet, Level] | None:
        """The level on screen and the set it is resolved in; None: the whole scan."""
        if self.level is None:
            return None
        source, name = self.level
        for levels in self.level_sets:
            if levels.source == source:
                found = levels.level(name)
                if found is not None:
                    return levels, found
        return None

    def primary_levels(self) -> LevelSet | None:
        return _primary(self.level_sets)

    def view_scan(self) -> Scan:
        """The facts on screen: the chosen level's view, else the whole scan."""
        chosen = self.chosen_level()
        return (self.counted or self.scan) if chosen is None else level_scan(*chosen)

    def pick_level(self) -> None:
        if not self.level_sets:
            self.notify("this scan has no levels (a Godot or Unity project's scenes, or [[level]])", timeout=3)
            return
        options = state.options_levels(self.level_sets, self.scan)
        current = state.current_index_of(options, self.level)
        self.push_screen(PickerScreen("Level", options, current), self.choose_level)

    def choose_level(self, option: state.Option | None) -> None:
        if option is None or option.value == self.level:
            return
        self.level = option.value
        self.evaluate_now()

    def _resolve_levels(self, scan: Scan) -> None:
        self.levels_generation += 1
        self._levels(scan, self.config, self.levels_generation)

    @work(thread=True, exclusive=True, group="levels", exit_on_error=False)
    def _levels(self, scan: Scan, config: Config, generation: int) -> None:
        engine = self.level_reader.engine(scan)
        sets = self.level_reader.project(scan, config, engine)
        named = self.named_level
        if named is not None and not any(lv.scene == named for levels in sets for lv in levels.levels):
            sets = (*sets, self.level_reader.one(self.root, config, named))
        whole = self.level_reader.counted(scan, _primary(sets), engine)
        if not get_current_worker().is_cancelled:
            self.post_message(LevelsResolved(sets, generation, whole=whole))

    def on_levels_resolved(self, message: LevelsResolved) -> None:
        if message.generation != (self.scan_generation if message.first else self.levels_generation):
            return
        before = self.chosen_level()
        self.level_sets = message.sets
        held = set(self.scan.files)
        self.level_only = frozenset(f for levels in message.sets for lv in levels.levels for f in lv.files if f not in held)
        if message.whole is not None:
            self.counted = message.whole
        if not message.first:
            self.resolutions += 1
        if self.level is not None and self.chosen_level() is None:
            # the same scene under its name in these sets (``tui LEVEL``'s, now the project's)
            scene = before[1].scene if before is not None else None
            self.level = next(((levels.source, lv.name) for levels in self.level_sets for lv in levels.levels
                               if lv.scene == scene), None)
            if self.level is None and before is not None:
                self.notify(f"level {before[1].name} ({scene}) is no longer a level of the scan: the whole scan is shown",
                            severity="warning", markup=False)
        if self._preselect and self.level is None:
            self.level = next(((levels.source, lv.name) for levels in self.level_sets for lv in levels.levels
                               if lv.scene == self.named_level), None)
        self._preselect = self._preselect and message.first
        main = self.main_screen
        if main is not None and main.is_mounted:
            main.refresh_bindings()
        self.evaluate_now()
        if not self.scanning:
            self._main_status("finished", text=self._finished_text())

    # --- scanning -----------------------------------------------------------------------------

    def action_rescan(self) -> None:
        self.start_scan()

    def start_scan(self) -> None:
        self.scan_generation += 1
        self.scans += 1
        self.scanning = True
        self._fresh = Scan(root=self.root)
        self._main_status("progress", 0, 0)
        self._scan(self.scan_generation, self.named_level if self._preselect else None)

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def _scan(self, generation: int, first: str | None = None) -> None:
        """Read the scan in batches; ``first``: a level to read alone and show before."""
        worker = get_current_worker()
        started = time.monotonic()
        if first is not None:
            one = self.level_reader.one(self.root, self.config, first)
            if worker.is_cancelled:
                return
            self.post_message(LevelsResolved((one,), generation, first=True))
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.05 or done == total:
                last[0] = now
                self.post_message(ScanProgressed(done, total, generation))

        files = 0
        for part in scanning.as_batches(self.scanner(self.root, self.config, self.paths, progress=progress)):
            if worker.is_cancelled:
                return
            files = max(files, len(part.files))
            self.post_message(AssetsRead(part, generation))
        if not worker.is_cancelled:
            self.post_message(ScanFinished(generation, files, time.monotonic() - started))

    def on_scan_progressed(self, message: ScanProgressed) -> None:
        if message.generation == self.scan_generation:
            self._main_status("progress", message.done, message.total)

    def on_assets_read(self, message: AssetsRead) -> None:
        if message.generation == -1:  # a watch rescan
            self.scan = scanning.merge(self.scan, message.part, message.touched, message.removed)
            self.counted = None  # counted again when the levels are
            if self.scanning:  # F5 pressed meanwhile: the full scan's result gets it too
                self._fresh = scanning.merge(self._fresh, message.part, message.touched, message.removed)
            self.evaluate_soon()
            return
        if message.generation != self.scan_generation:
            return
        self._fresh = scanning.merge(self._fresh, message.part)
        self.scan = scanning.merge(self.scan, message.part)
        self.counted = None
        if self.level is None:  # a level on screen has its facts already
            self.evaluate_soon()

    def on_scan_finished(self, message: ScanFinished) -> None:
        if message.generation != self.scan_generation:
            return
        self.scanning = False
        self.scan = self._fresh
        self.counted = None
        self.evaluate_now()
        self._resolve_levels(self.scan)
        self._main_status("finished", text=self._finished_text())
        if self._dirty or self._gone:
            self._start_rescan()

    def _finished_text(self) -> str:
        s = self.scan
        watching = " · watching" if self.watch_files else ""
        levels = sum(len(x.levels) for x in self.level_sets)
        shown = f" · {levels:,} level{'s' if levels != 1 else ''} (m)" if levels else ""
        return f"{len(s.files):,} files · {len(s.textures):,} textures · {len(s.meshes):,} meshes{shown}{watching}"

    def on_scan_failed(self, message: ScanFailed) -> None:
        self.scanning = False
        self._main_status("failed", text=f"the scan failed: {message.error}")

    def _main_status(self, what: str, done: int = 0, total: int = 0, text: str = "") -> None:
        screen = self.main_screen
        if screen is None or not screen.is_mounted:
            return
        status = screen.status
        if what == "progress":
            status.progress(done, total)
        elif what == "finished":
            status.finished(text)
        else:
            status.failed(text)

    # --- watch --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def _watch(self) -> None:
        worker = get_current_worker()
        watched = self.level_only
        before = scanning.snapshot(self.root, self.config, self.paths, watched)
        config_before = self._config_stamp
        while not worker.is_cancelled:
            deadline = time.monotonic() + self.watch_interval
            while time.monotonic() < deadline:
                if worker.is_cancelled:
                    return
                time.sleep(min(0.1, self.watch_interval))
            extra = self.level_only
            after = scanning.snapshot(self.root, self.config, self.paths, extra)
            if extra != watched:
                before, watched = scanning.rebase(before, after, watched, extra), extra
            found = scanning.changes(before, after)
            before = after
            if found and not worker.is_cancelled:
                self.post_message(FilesChanged(found.changed, found.removed))
            config_now = scanning.stamp(self.config_target)
            if config_now != config_before and not worker.is_cancelled:
                config_before = config_now
                self.post_message(ConfigChanged(config_now))

    def on_files_changed(self, message: FilesChanged) -> None:
        # a file only levels load (the scan leaves it out) is read again with the levels
        levels_only = (message.changed | message.removed) & self.level_only
        if levels_only and not self.scanning:
            self._resolve_levels(self.scan)
        changed, removed = message.changed - levels_only, message.removed - levels_only
        self._dirty |= scanning.to_read_again(changed, self.scan, self.config, self.paths)
        self._gone |= removed
        self._dirty -= removed
        if (self._dirty or self._gone) and not self.scanning and not self._rescanning:
            self._start_rescan()

    def on_config_changed(self, message: ConfigChanged) -> None:
        # the app's own write (``write_what_if``) is in force already: read it quietly, in
        # case the file was also edited between that write and the stamp taken after it
        self.reload_config(quiet=message.stamp == self._config_stamp)
        self._config_stamp = message.stamp

    def reload_config(self, quiet: bool = False) -> bool:
        """Read the config file again (an edit made outside the app) and use it: its settings
        with the command line's flags (``settings_for``), the keys' choices and the what-ifs
        kept; the rules this session wrote are in the file now. A change to ``[scan]`` scans
        again. A file that does not load changes nothing and says why, in one line."""
        try:
            config = config_mod.load(self.config_target)
            settings = self.settings_for(config)
            resolve_cards(state.apply(settings, self.choices).budget.cards)
        except (ValueError, TexbudgetError) as exc:
            self.notify(f"{exc}; the settings before it are kept", severity="error", title="config not reloaded", markup=False)
            return False
        rescan = config.scan != self.config.scan  # [scan] changes what a scan reads
        self.config, self.base_settings, self.written = config, settings, []
        if rescan:
            self.start_scan()
        else:
            self.evaluate_now()
        if not quiet:
            self.notify(f"{self.config_target.name} read again" + (": scanning again" if rescan else ""), title="config", markup=False)
        return True

    def _start_rescan(self) -> None:
        changed, removed = frozenset(self._dirty), frozenset(self._gone)
        self._dirty, self._gone = set(), set()
        self._rescanning = True
        self.rescans += 1
        self._rescan(changed, removed)

    @work(thread=True, exclusive=False, group="rescan", exit_on_error=False)
    def _rescan(self, changed: frozenset[str], removed: frozenset[str]) -> None:
        part = Scan(root=self.root)
        if changed:
            paths = [self.root / p for p in sorted(changed)]
            for batch in scanning.as_batches(self.scanner(self.root, self.config, paths, progress=None)):
                part = scanning.merge(part, batch)
        self.post_message(AssetsRead(part, -1, touched=changed | scanning.touched_by(part), removed=removed))
        self.post_message(RescanDone())

    def on_rescan_done(self, message: RescanDone) -> None:
        self._rescanning = False
        if not self.scanning:
            self._resolve_levels(self.scan)
        if (self._dirty or self._gone) and not self.scanning:
            self._start_rescan()

    # --- failures -----------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures arrive (scan, rescan, watch, evaluate)."""
        if event.state != WorkerState.ERROR:
            return
        worker = event.worker
        error = worker.error
        self.log.error(f"worker {worker.group}/{worker.name} failed", error)
        if worker.group == "scan":
            self.post_message(ScanFailed(error))
        elif worker.group == "rescan":
            self._rescanning = False
        self.notify(f"{worker.group} failed: {type(error).__name__}: {error}", severity="error", timeout=10, markup=False)

    # --- assets and what-ifs ------------------------------------------------------------------

    def open_asset(self, key: str) -> None:
        self.push_screen(AssetScreen(key, self))

    def set_what_if(self, key: str, what_if: dict[str, object]) -> None:
        clean = {k: v for k, v in what_if.items() if v is not None}
        if clean == self.what_ifs.get(key, {}):
            return
        if clean:
            try:
                parse_rules([{"match": configwrite.glob_escape(key), **clean}], WHAT_IF)
            except TexbudgetError as exc:
                self.notify(str(exc), severity="error", title="what-if not applied", markup=False)
                return
            self.what_ifs[key] = clean
        else:
            self.what_ifs.pop(key, None)
        self.evaluate_now()

    def decided_cost(self, key: str) -> TextureCost | None:
        """What ``key`` costs as decided without its what-if (first quality of the settings)."""
        scan = self.view_scan()
        facts = next((t for t in scan.textures if t.path == key), None)
        if facts is None:
            return None
        settings = self.settings(skip=key)
        prepared = pipeline.prepare(scan)
        plan = decide(facts, settings.policy, settings.rules, scan.engine.get(key), prepared.slots.get(key, ()),
                      alpha_unused=prepared.alpha_unused.get(key))
        return price(plan, settings.budget.allocation_model)

    def write_what_if(self, key: str) -> int | None:
        """Append the what-if of ``key`` to the config file as a ``[[rule]]``; it then counts
        as a rule of the file (not a what-if). Returns the rule's number."""
        what_if = self.what_ifs.get(key)
        if not what_if:
            self.notify("nothing to write: choose a format, a size cap or mips first", severity="warning")
            return None
        rule = {"match": configwrite.glob_escape(key), **what_if}
        decided = self.decided_cost(key)
        row = next((t for t in (self.report.textures if self.report else ()) if t.facts.path == key), None)
        words = ", ".join(f"{k} = {v}" for k, v in what_if.items())
        comment = f"texbudget tui what-if, {date.today().isoformat()}: {key}: {words}"
        if decided is not None and row is not None:
            comment += f" ({human_bytes(decided.allocated_bytes)} -> {human_bytes(row.cost.allocated_bytes)})"
        try:
            index = configwrite.append_rule(self.config_target, rule, comment=comment)
        except TexbudgetError as exc:
            self.notify(str(exc), severity="error", title="not written", markup=False)
            return None
        self.written.append(rule)
        self._config_stamp = scanning.stamp(self.config_target)
        del self.what_ifs[key]
        self.evaluate_now()
        self.notify(f"written as rule {index} in {self.config_target}", title="what-if kept", markup=False)
        return index


def make_app(
    settings: Settings, root: Path, config: Config, paths: Sequence[Path] | None = None,
    scanner: Scanner = scanning.read_in_batches, *, watch: bool = True, watch_interval: float = 2.0,
    settings_for: Callable[[Config], Settings] | None = None, level_reader: LevelReader | None = None,
    level: str | None = None,
) -> TexbudgetApp:
    """The one factory (CLI, tests, screenshot script). ``scanner(root, config, paths,
    progress=callback)`` returns a ``Scan`` or yields partial ones (``scanning.read_in_batches``
    by default; tests pass a fake). ``settings_for(config)``: the settings of a config file
    read again while the app runs, with the command line's flags (default: the file's own).
    ``level_reader``: how levels are read (jobs, cache); ``level``: a level's scene (relative
    to ``root``) to read first and show, the picker then offering the project's other levels."""
    return TexbudgetApp(settings, root, config, paths, scanner, watch=watch, watch_interval=watch_interval,
                        settings_for=settings_for, level_reader=level_reader, level=level)


def _primary(sets: Sequence[LevelSet]) -> LevelSet | None:
    """The levels whose findings and instances the whole report carries (``texbudget scan``'s:
    ``[[level]]``, else the project's own), not a level named alone."""
    first = sets[0] if sets else None
    return first if first is not None and first.source != "path" else None


def _default_settings(config: Config) -> Settings:
    return pipeline.build_settings(config)


def run(root: Path, config: Config, settings: Settings, paths: Sequence[Path] | None,
        *, jobs: int | None = None, use_cache: bool = False,
        settings_for: Callable[[Config], Settings] | None = None, level: str | None = None) -> int:
    """``texbudget tui``: run the app until the artist quits. Returns the exit code.
    ``level``: a level's scene (relative to ``root``): the app shows what that level loads
    first, then scans the whole root (``paths`` are the level's file: not a scan's) so the
    level picker offers every level of the project."""
    scanner: Scanner = partial(scanning.read_in_batches, jobs=jobs, use_cache=use_cache)
    app = make_app(settings, root, config, None if level is not None else paths, scanner, settings_for=settings_for,
                   level_reader=LevelReader(jobs=jobs, use_cache=use_cache), level=level)
    app.run()
    return app.return_code or 0


__all__ = [
    "AssetsRead", "FilesChanged", "LevelsResolved", "ReportEvaluated", "ScanFailed", "ScanFinished", "ScanProgressed",
    "TexbudgetApp", "make_app", "run",
]
