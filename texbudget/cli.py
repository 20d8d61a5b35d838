"""The command line (DESIGN.md §4). ``main`` is the one boundary where exceptions become an
exit code and one ``texbudget: error: …`` line; each subcommand is a short ``cmd_<name>``
that calls the domain and a renderer. stdout is data; stderr is diagnostics and progress.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import NoReturn

from texbudget import __version__, collector
from texbudget.errors import ExitCode, TexbudgetError, UsageError

OUTPUT_FORMATS = ("text", "json", "csv", "markdown", "sarif")
RT_CHOICES = ("off", "nvidia", "amd", "intel")


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so every usage error is
    one line from ``main``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _shared_options() -> _Parser:
    """Options every scanning subcommand shares, declared once."""
    p = _Parser(add_help=False)
    g = p.add_argument_group("scenario and output")
    g.add_argument("--platform", help="platform profile (desktop, desktop-bc7, mobile-astc, mobile-etc2, uncompressed)")
    g.add_argument("--quality", help="quality tier: ultra, high, medium, low")
    g.add_argument("--resolution", action="append", metavar="RES", help="1080p, 1440p, 4k or WxH; repeatable")
    g.add_argument("--rt", help="ray tracing: off, nvidia, amd, intel (or a driver profile)")
    g.add_argument("--cards", help="cards to judge against, e.g. 8GB,12GB,rtx-4070")
    g.add_argument("--config", metavar="FILE", help="texbudget.toml to use instead of the one found")
    g.add_argument("--format", dest="output", default="text", help=f"output: {', '.join(OUTPUT_FORMATS)}")
    g.add_argument("--no-cache", action="store_true", help="read every file again; do not use or write the cache")
    g.add_argument("--jobs", type=int, metavar="N", help="parallel readers, 1 to 256 (default: number of cores)")
    g.add_argument("--deep", action="store_true", help="decode pixels to find opaque alpha and grey colour (slow)")
    return p


def build_parser() -> argparse.ArgumentParser:
    shared = _shared_options()
    parser = _Parser(
        prog="texbudget",
        description="Does this scene fit in the VRAM of the cards we ship on?",
    )
    parser.add_argument("--version", action="version", version=f"texbudget {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("scan", parents=[shared], help="report: tables, totals, verdict matrix")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.set_defaults(func=cmd_scan)

    p = sub.add_parser("check", parents=[shared], help="pre-commit / CI: rules and budgets (exit 1 on violations)")
    p.add_argument("paths", nargs="*", metavar="FILE")
    p.add_argument("--total", action="store_true", help="also check the scene budget for the configured scenarios")
    p.add_argument("--baseline", metavar="BASE.json", help="a JSON report to compare against")
    p.add_argument("--max-growth", metavar="PCT", help="fail when the scene grew more than this, e.g. 5%%")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("tui", parents=[shared], help="the terminal UI")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.set_defaults(func=cmd_tui)

    p = sub.add_parser("explain", parents=[shared], help="one asset in depth: facts, decision, mip table, alternatives")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("diff", help="compare two JSON reports (Markdown for a pull request)")
    p.add_argument("base", metavar="BASE")
    p.add_argument("head", metavar="HEAD")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("formats", help="list the format table")
    p.add_argument("names", nargs="*", metavar="FORMAT", help="only these (names, aliases, vk:N, dxgi:N, gl:N)")
    p.add_argument("--family", help="only one family, e.g. astc, bc7, video, integer")
    p.add_argument("--format", dest="output", default="text", help="text, json or csv")
    p.set_defaults(func=cmd_formats)

    p = sub.add_parser("cards", help="list the card table")
    p.add_argument("--format", dest="output", default="text", help="text or json")
    p.set_defaults(func=cmd_cards)

    p = sub.add_parser("size", help="the calculator: one texture's mip table and bytes")
    p.add_argument("pixel_format", metavar="FORMAT", help="e.g. BC7_SRGB, BC1, RGBA8, ASTC_6x6, VK_FORMAT_R5G6B5_UNORM_PACK16, DXGI_FORMAT_NV12, vk:4, dxgi:85 (a bare number is a VkFormat)")
    p.add_argument("dims", metavar="WIDTHxHEIGHT[xDEPTH]")
    levels = p.add_mutually_exclusive_group()
    levels.add_argument("--mips", action="store_true", help="full mip chain")
    levels.add_argument("--levels", type=int, metavar="N", help="this many levels")
    p.add_argument("--faces", type=int, default=1, help="6 for a cubemap")
    p.add_argument("--layers", type=int, default=1, help="array layers")
    p.add_argument("--format", dest="output", default="text", help="text or json")
    p.set_defaults(func=cmd_size)
    return parser


def _check_output(args: argparse.Namespace, allowed: Sequence[str]) -> str:
    if args.output not in allowed:
        raise UsageError(f"--format {args.output}: allowed values are {', '.join(allowed)}")
    return args.output


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _write_chunks(chunks: Iterable[bytes]) -> None:
    """UTF-8 text written to stdout as it is made, then a newline: a JSON report is never
    held whole (130 MB at 100k textures). It goes to the bytes under the text stream, after
    what that stream holds."""
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    for chunk in chunks:
        if out is None:
            sys.stdout.write(chunk.decode())
            continue
        view = memoryview(chunk)
        while view:  # unbuffered (python -u) it is the file itself, which may take part of it
            view = view[out.write(view):]
    sys.stdout.write("\n")


# --- subcommands -------------------------------------------------------------------


def cmd_size(args: argparse.Namespace) -> int:
    from texbudget.report.sizes import size_json, size_text
    from texbudget.sizing.textures import allocated_bytes, full_mip_count, mip_chain
    from texbudget.units import MAX_DIMENSION

    output = _check_output(args, ("text", "json"))
    fmt = _format_arg(args.pixel_format)
    parts = args.dims.lower().split("x")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise UsageError(f"size {args.dims!r}: use WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, e.g. 4096x4096")
    w, h, d = (int(p) for p in (*parts, "1")[:3])
    if not all(1 <= v <= MAX_DIMENSION for v in (w, h, d)):
        raise UsageError(f"size {args.dims!r}: each side must be 1 to {MAX_DIMENSION}")
    if args.faces not in (1, 6):
        raise UsageError(f"--faces {args.faces}: allowed values are 1 and 6")
    if args.faces == 6 and (w != h or d != 1):
        raise UsageError(f"--faces 6: a cubemap must be square and 2D, not {args.dims}")
    if not 1 <= args.layers <= 2048:
        raise UsageError(f"--layers {args.layers}: allowed 1 to 2048")
    full = full_mip_count(w, h, d)
    if args.levels is not None and not 1 <= args.levels <= full:
        raise UsageError(f"--levels {args.levels}: a {w}x{h}{'x' + str(d) if d > 1 else ''} texture has 1 to {full} levels")
    if fmt.transcodable:
        raise UsageError(f"{fmt.name} is transcoded on load; size its GPU target instead (e.g. BC7_SRGB, ASTC_4x4_SRGB)")
    levels = None if args.mips else (args.levels or 1)
    mips = mip_chain(fmt, w, h, d, levels=levels, faces=args.faces, layers=args.layers)
    content = sum(m.bytes for m in mips)
    allocated = allocated_bytes(fmt, w, h, d, content, layers=args.layers)
    if output == "json":
        _write(json.dumps(size_json(fmt, mips, content, allocated), indent=2))
    else:
        _write(size_text(fmt, (w, h, d), args.faces, args.layers, mips, content, allocated))
    return ExitCode.OK


_NUMBER_KINDS = {"vk": "VkFormat", "dxgi": "DXGI_FORMAT", "gl": "GL internal format"}


def _format_arg(text: str):
    """The format a FORMAT argument names (``formats.find``), or one usage-error line with
    suggestions."""
    from texbudget import formats

    fmt = formats.find(text)
    if fmt is not None:
        return fmt
    number = formats.parse_number(text)
    if number is not None:
        kind, code = number
        raise UsageError(f"unknown format {text!r}: no {_NUMBER_KINDS[kind]} {code} in the table; `texbudget formats` lists them")
    near = formats.nearest(text)
    hint = f"; did you mean {', '.join(near)}?" if near else "; `texbudget formats` lists them"
    raise UsageError(f"unknown format {text!r}{hint}")


def cmd_formats(args: argparse.Namespace) -> int:
    from texbudget import formats
    from texbudget.report.sizes import formats_csv, formats_json, formats_text

    output = _check_output(args, ("text", "json", "csv"))
    rows = formats.all_formats()
    if args.names:
        rows = tuple(dict.fromkeys(_format_arg(name) for name in args.names))
    if args.family is not None:
        if args.family.lower() not in formats.FAMILIES:
            raise UsageError(f"--family {args.family}: allowed values are {', '.join(formats.FAMILIES)}")
        rows = tuple(f for f in rows if f.family == args.family.lower())
    if output == "json":
        _write(json.dumps(formats_json(rows), indent=2))
    else:
        _write(formats_csv(rows) if output == "csv" else formats_text(rows, whole=not args.names and args.family is None))
    return ExitCode.OK


def cmd_cards(args: argparse.Namespace) -> int:
    from texbudget.budget.cards import card_budget, load_cards
    from texbudget.report.sizes import cards_json, cards_text

    output = _check_output(args, ("text", "json"))
    rows = [(c, *card_budget(c)) for c in load_cards()]
    _write(json.dumps(cards_json(rows), indent=2) if output == "json" else cards_text(rows))
    return ExitCode.OK


def resolve_target(paths: Sequence[str], config_flag: str | None, *, missing_ok: bool = False):
    """(scan root, Config, explicit paths or None) for the given arguments; the rule is
    docs/decisions.md "The scan root". The root follows the named paths, not the current
    folder (which counts only when no path is named):

    1. the folder of the config file found at or above the paths (one for all of them);
    2. else a single folder named;
    3. else, when the command runs inside the git work tree holding them all, its top (a
       pre-commit hook runs there);
    4. else the folder holding the file, or the nearest folder holding all the paths.

    ``--config`` picks the file, not the root: 2 to 4 apply. A path that does not exist is a
    usage error, unless ``missing_ok`` (``check`` skips files a commit deleted)."""
    from pathlib import Path

    from texbudget import config as config_mod

    given = [Path(p) for p in paths]
    for p in given:
        if not p.exists() and not missing_ok:
            raise UsageError(f"{p}: no such file or folder")
    named = [p.resolve() for p in given if p.exists()]
    flag = Path(config_flag) if config_flag else None
    if not named:  # no path, or only files a commit deleted: the current folder
        here = Path.cwd()
        found = None if flag else config_mod.find_config(here)
        root = found.resolve().parent if found else here
        return root, config_mod.load(flag or found), [] if given else None
    found = None if flag else _config_of(named)
    config = config_mod.load(flag or found)
    root = found.resolve().parent if found else _root_of(named)
    root = _level_root(named, root if found else None) or root
    return root, config, None if named == [root] else named


def _level_root(named: Sequence, config_root):
    """A single level scene in a Godot or Unity project: the project's root (docs/levels.md,
    "The scan root of a level"), unless a config file's folder holds it; else None."""
    from texbudget.config import is_level_file

    # (not a scene file: no project to look for, and the levels' modules stay unimported)
    if len(named) != 1 or not is_level_file(named[0].name) or not named[0].is_file():
        return None
    from texbudget.levels.project import project_root

    project = project_root(named[0])
    if project is None or (config_root is not None and (config_root == project or config_root in project.parents)):
        return None
    return project


def _folders(named: Sequence) -> list:
    """The folder of each path: itself when it is a folder, else the one holding it."""
    return [p if p.is_dir() else p.parent for p in named]


def _config_of(named: Sequence):
    """The one config file found at or above every path (None: none is); paths under two
    different ones (or one and none) are a usage error, since their globs and roots differ."""
    from texbudget.config import find_config

    seen: dict = {}
    found = [seen[f] if f in seen else seen.setdefault(f, find_config(f)) for f in _folders(named)]
    first = found[0]
    other = next((i for i, f in enumerate(found) if f != first), None)
    if other is not None:
        raise UsageError(f"{named[0]} and {named[other]} have different config files "
                         f"({first or 'none'}; {found[other] or 'none'}): run texbudget once for each")
    return first


def _root_of(named: Sequence):
    """The root without a config file: rules 2 to 4 of ``resolve_target``."""
    from pathlib import Path

    from texbudget.config import find_repository

    if len(named) == 1 and named[0].is_dir():
        return named[0]
    folders = list(dict.fromkeys(_folders(named)))
    tops = {find_repository(f) for f in folders}
    here = Path.cwd().resolve()
    if len(tops) == 1 and None not in tops and (top := tops.pop()) in (here, *here.parents):
        return top  # the command runs inside the work tree that holds the paths (pre-commit)
    try:
        common = Path(os.path.commonpath(folders))
    except ValueError:  # Windows: folders on different drives
        common = None
    if common is None or (len(folders) > 1 and common == Path(common.anchor)):
        raise UsageError(f"{folders[0]} and {folders[-1]} share no folder but the file system's root: "
                         "run texbudget once for each, or put a texbudget.toml above them")
    return common


def _flags(args: argparse.Namespace) -> dict:
    """The scenario flags given, each checked as its config key is (``config.check_flag``)."""
    from texbudget.config import check_flag

    return {"platform": check_flag("--platform", args.platform), "quality": check_flag("--quality", args.quality),
            "resolutions": check_flag("--resolution", args.resolution), "rt": check_flag("--rt", args.rt),
            "cards": check_flag("--cards", args.cards)}


def _settings(args: argparse.Namespace, config):
    """The settings of a command: the config's, overridden by the flags given."""
    from texbudget.pipeline import build_settings

    return build_settings(config, **_flags(args))


#: Most readers ``--jobs`` may ask for: each is a process with its own pipe, and past the
#: cores they only wait on each other.
MAX_JOBS = 256


def _jobs(args: argparse.Namespace) -> int | None:
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"--jobs {args.jobs}: allowed 1 to {MAX_JOBS}")
    return args.jobs


def _progress():
    """A progress line on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        if done == total or done % 50 == 0:
            end = "\n" if done == total else ""
            sys.stderr.write(f"\rtexbudget: read {done}/{total} files{end}")
            sys.stderr.flush()

    return show


def load_report(args: argparse.Namespace, paths: Sequence[str], *, fixes: bool = True, target=None,
                level: str | None = None, levels: str = "", discovered=None):
    """The pipeline for one command: resolve, read, evaluate. Returns (report, config, scan).
    ``target``: what ``resolve_target`` gave already (None: ``paths`` are resolved here);
    ``fixes=False``: no fix search (for an output that shows none). ``level``: a level's
    scene (relative to the root): only what it loads is read and reported. ``levels``: for a
    whole-root scan, "reports" (each level's report, ``scan``) or "judged" (the levels
    ``[[level]]`` names, ``check``; levels found in the project give their findings only).
    ``discovered``: the discovery of the whole root, made already (``cmd_check``)."""
    from texbudget.model import evolve
    from texbudget.pipeline import evaluate
    from texbudget.scan.scene import read_scene

    root, config, explicit = target or resolve_target(paths, args.config)
    settings = _settings(args, config)
    if not fixes:
        settings = evolve(settings, budget=evolve(settings.budget, fixes=False))
    if level is not None:
        from texbudget.levels.reading import read_level
        from texbudget.levels.reports import path_report

        whole = None
        found = read_level(root, config, level, jobs=_jobs(args), progress=_progress(), use_cache=not args.no_cache)
        scan, report = found.scan, path_report(found, settings)
    else:
        scan = read_scene(root, config, explicit, jobs=_jobs(args), progress=_progress(), use_cache=not args.no_cache,
                          found=discovered)
        whole = None
        # levels come from [[level]] or a Godot or Unity scene (scan_levels): a texture or glTF
        # tree has none, and the levels' modules (~30 ms of imports) stay unloaded
        leveled = bool(levels) and explicit is None and (bool(config.levels) or any(s.role == "scene" for s in scan.scenes))
        if leveled or any(s.refs for s in scan.scenes):  # levels, or engine files
            from texbudget.levels.project import EngineProject
            from texbudget.levels.reading import project_scan, scan_levels

            project = EngineProject(root, scan.files, use_cache=not args.no_cache)  # its indexes built once
            if leveled:
                whole = scan_levels(scan, config, jobs=_jobs(args), progress=_progress(), use_cache=not args.no_cache,
                                    project=project)
            # what engine materials, scenes and levels use counts as a glTF's does (docs/levels.md)
            scan = project_scan(scan, whole, project=project)
        report = evaluate(scan, settings)
    if scan.cache.status == "unavailable":
        print(f"texbudget: note: running without the read cache: {scan.cache.reason}", file=sys.stderr)
    if args.deep:
        from texbudget.pipeline import deep_findings

        report = evolve(report, findings=report.findings + deep_findings(report))
    if level is None and whole is not None:
        from texbudget.levels.reports import with_levels

        report = with_levels(report, whole, settings, reports=levels == "reports" or whole.source != "auto")
    return report, config, scan


def level_target(root, explicit) -> str | None:
    """The level a command names: a single scene file (``scan town.tscn``), as a path
    relative to the root; None for anything else."""
    from texbudget.config import is_level_file

    if not explicit or len(explicit) != 1 or not explicit[0].is_file() or not is_level_file(explicit[0].name):
        return None
    return explicit[0].relative_to(root).as_posix()


def _render(report, output: str) -> str:
    if output == "csv":
        from texbudget.report import csv as csv_report

        return csv_report.render(report)
    if output == "markdown":
        from texbudget.report import markdown

        return markdown.render(report)
    if output == "sarif":
        from texbudget.report import sarif

        return sarif.render(report)
    from texbudget.report import text

    return text.render(report, colour=sys.stdout.isatty() and "NO_COLOR" not in os.environ)


def cmd_scan(args: argparse.Namespace) -> int:
    output = _check_output(args, OUTPUT_FORMATS)
    root, _, explicit = target = resolve_target(args.paths, args.config)
    report, _, _ = load_report(args, args.paths, target=target, levels="reports", level=level_target(root, explicit))
    if output == "json":
        from texbudget.report.json import chunks

        _write_chunks(chunks(report))
    else:
        _write(_render(report, output))
    return ExitCode.OK


def cmd_check(args: argparse.Namespace) -> int:
    """Quiet on success; one line per failing problem, then one summary line; exit 1."""
    from texbudget.discover import discover

    output = _check_output(args, ("text", "json", "sarif", "markdown"))
    root, config, explicit = resolve_target(args.paths, args.config, missing_ok=True)
    only = None
    found = None
    level = level_target(root, explicit) if args.total else None  # `check --total LEVEL`: that level
    if level is not None:
        explicit = None
    elif explicit is not None:
        # Files named on the command line still obey [scan] include/exclude; files a commit
        # deleted are gone already. The whole tree is read (from the cache) for context: a
        # texture's role can come from a glTF material elsewhere.
        from texbudget.readers import SIDECAR_SUFFIXES

        # a changed engine sidecar (`rock.png.import`) re-checks its texture
        targets = [p.with_suffix("") if p.suffix.lower() in SIDECAR_SUFFIXES else p for p in explicit]
        only = set(discover(root, config.scan.include, config.scan.exclude, [t for t in targets if t.exists()]).files)
        if not only:
            return ExitCode.OK
    elif (output == "text" and not (args.total or config.limits.total or config.levels)
          and args.baseline is None and args.max_growth is None):
        # Only the files' own problems to find, and nothing printed without one: a tree with
        # nothing to read (and nothing unreadable) has none, and returns before the pipeline
        # is imported (benchmarks/startup.py). Its flags are still checked.
        _flags(args)
        _jobs(args)
        found = discover(root, config.scan.include, config.scan.exclude)
        if not found.files and not found.findings:
            return ExitCode.OK
    from texbudget.limits import check_limits
    from texbudget.model import Severity, file_of

    # The text output is one line per problem, without the fixes' hints: no fix search.
    report, _, _ = load_report(args, args.paths, fixes=output != "text", target=(root, config, None), levels="judged",
                               level=level, discovered=found)
    limits = config.limits
    problems = [f for f in report.findings if f.severity is Severity.ERROR
                and (only is None or file_of(f.path) in only)]
    problems += check_limits(report, limits, only)
    if args.total or limits.total:
        problems += _total_problems(report, limits)
    problems += _growth_problems(args, report, limits)
    if output == "text":
        from texbudget.report.text import printable

        for p in problems:
            _write(printable(f"{p.path}: {p.message} [{p.code}]"))
        if problems:
            files = len({file_of(p.path) for p in problems if p.path != "."})
            scene = sum(1 for p in problems if p.path == ".")
            where = (f" in {files} file{'s' if files != 1 else ''}" if files else "") + (f" ({scene} scene-wide)" if scene else "")
            _write(f"texbudget check: {len(problems)} problem{'s' if len(problems) != 1 else ''}{where}")
    elif output == "json":
        from texbudget.report.json import chunks

        _write_chunks(chunks(report, violations=problems))
    else:
        _write(_render_check(report, problems, output))
    return ExitCode.VIOLATIONS if problems else ExitCode.OK


def _total_problems(report, limits) -> list:
    """``check --total``'s problems: with levels judged (``[[level]]`` or ``check --total
    LEVEL``) each level's alone, named; otherwise the whole scan's. ``texbudget.levels`` is
    imported only for a report with levels (a tree of textures and glTF files has none)."""
    if report.levels:
        from texbudget.levels.reports import judged, level_problems

        if judged(report):
            return level_problems(report, limits)
    from texbudget.limits import total_problems

    return total_problems(report, limits)


def _growth_problems(args: argparse.Namespace, report, limits) -> list:
    """``--baseline BASE.json --max-growth 5%``: TB028 when the scene grew more than allowed."""
    max_growth = limits.max_growth
    if args.max_growth is not None:
        from texbudget.config import check_flag

        max_growth = check_flag("--max-growth", args.max_growth)
    if args.baseline is None:
        if args.max_growth is not None:
            raise UsageError("--max-growth needs --baseline BASE.json to compare with")
        return []
    from texbudget import findings
    from texbudget.report.diff import growth, load_json_report
    from texbudget.report.json import report_dict

    base = load_json_report(args.baseline)
    grew = growth(base, report_dict(report))
    if max_growth is None or grew <= max_growth:
        return []
    return [findings.make(".", "TB028", f"scene grew {grew:+.1%} since {args.baseline} > max_growth {max_growth:.1%}")]


def _render_check(report, problems, output: str) -> str:
    if output == "sarif":
        from texbudget.report import sarif

        return sarif.render(report, extra=problems)
    lines = ["## texbudget check", ""]
    if not problems:
        lines.append("No problems.")
    else:
        lines += ["| file | problem | code |", "|---|---|---|"]
        from texbudget.report.md import cell, code

        lines += [f"| {code(p.path)} | {cell(p.message)} | {p.code} |" for p in problems]
        lines += ["", f"{len(problems)} problem{'s' if len(problems) != 1 else ''}."]
    return "\n".join(lines)


def cmd_tui(args: argparse.Namespace) -> int:
    """The Textual app; the only command that imports Textual."""
    if not sys.stdout.isatty() and "TEXBUDGET_TUI_FORCE" not in os.environ:
        raise UsageError("`texbudget tui` needs a terminal; use `texbudget scan` for a report")
    root, config, explicit = resolve_target(args.paths, args.config)
    settings = _settings(args, config)
    level = level_target(root, explicit)
    from texbudget.tui.app import run

    # the config file edited while the app runs is read again with the same flags; a level
    # named (`tui town.tscn`) opens on what that level loads
    more = {} if level is None else {"level": level}
    return run(root, config, settings, explicit, jobs=_jobs(args), use_cache=not args.no_cache,
               settings_for=functools.partial(_settings, args), **more)


def cmd_explain(args: argparse.Namespace) -> int:
    """One asset in depth. The whole scan root is read (from the cache), so the decision is
    the one `scan` makes: a texture's role can come from a glTF material elsewhere."""
    from pathlib import Path

    from texbudget.model import file_of
    from texbudget.report import explain

    output = _check_output(args, ("text", "json"))
    base = file_of(args.file)  # "level.glb#mesh/3": the file, then the part
    target = Path(base)
    if not target.exists():
        raise UsageError(f"{args.file}: no such file")
    root, config, _ = resolve_target([str(target)], args.config)
    report, _, scan = load_report(args, [], target=(root, config, None))
    rel = target.resolve().relative_to(root).as_posix() + args.file[len(base):]
    render = explain.render_json if output == "json" else explain.render
    _write(render(report, rel, engines=scan.engine))
    return ExitCode.OK


def cmd_diff(args: argparse.Namespace) -> int:
    from texbudget.report.diff import diff, load_json_report, render_markdown

    base, head = load_json_report(args.base), load_json_report(args.head)
    _write(render_markdown(diff(base, head, base_name=args.base, head_name=args.head)))
    return ExitCode.OK


def run() -> NoReturn:
    """The console script and ``python -m texbudget``: ``main``, then the interpreter's usual
    exit, so every exit handler runs (coverage.py's, a wrapper script's, ``weakref.finalize``).

    Output is flushed here first; when its reader has gone away (``texbudget scan | head``)
    what is left is dropped quietly: the stream is pointed at the null device, so the
    interpreter's own flush at exit neither fails nor prints, and the exit code stays
    ``main``'s. (This used to end with ``os._exit`` when CPython's private count of exit
    handlers was zero, to skip freeing the heap: 7 to 9 million instructions, about 0.3% of a
    scan or warm check of 10k files, measured with cachegrind; not worth a private API.)"""
    code = main(exiting=True)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except ValueError:  # closed
            pass
        except OSError:  # the reader went away: what is left goes nowhere
            with contextlib.suppress(OSError, ValueError, AttributeError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)
    sys.exit(code)


def main(argv: Sequence[str] | None = None, *, exiting: bool = False) -> int:
    # File names that are not UTF-8 reach text output as lone surrogates: escape, never crash.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return ExitCode.USAGE
        if args.func is cmd_tui:
            return int(args.func(args))
        with collector.one_shot(exiting):
            return int(args.func(args))
    except TexbudgetError as exc:
        print(f"texbudget: error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("texbudget: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    except BrokenPipeError:
        return ExitCode.OK
    except Exception:
        import traceback  # only here: 2 ms of imports (linecache, tokenize, textwrap) for every command

        traceback.print_exc()
        print("texbudget: internal error; please report it with the traceback above", file=sys.stderr)
        return ExitCode.INTERNAL
