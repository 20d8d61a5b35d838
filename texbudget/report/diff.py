"""``texbudget diff BASE.json HEAD.json``: what changed between two JSON reports (schema 1),
as Markdown for a pull-request comment, and the growth figure behind
``check --baseline BASE.json --max-growth 5%``.

- **Scenarios** are matched by resolution, quality and RT (a repeated key, e.g. two
  upscalers, is matched in order). Each shows the total before and after and every card
  whose verdict changed ("8GB: fits → over").
- **Assets** are matched by kind and path. An asset's bytes are what the budget counts:
  a texture's ``allocated_bytes``, a mesh's ``buffer_bytes``. Grown and new assets come
  first, largest change first; shrunk and removed ones are collapsed in a ``<details>``.
- **Levels** (``levels``, docs/levels.md) are matched by name; each compares its own
  scenarios as the reports' are, shown by its headline scenario, with every verdict that
  changed. A level verdict that got worse is named in the summary line too.
- **The headline scenario** is the scenario of HEAD with the largest total that BASE also
  has (the worst case the team ships); ``growth`` and the summary line use it. With no
  scenario in common, both use the sum of the asset bytes.

Pure: dicts in, a ``Diff`` and text out; ``load_json_report`` reads a report file for the CLI.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from texbudget.errors import UsageError
from texbudget.report.md import cell, code
from texbudget.units import human_bytes

SCHEMA = 1
_RANK = {"fits": 0, "tight": 1, "over": 2}
_SYMBOL = {"fits": "✓", "tight": "!", "over": "✗"}
_RES_NAMES = {"3840x2160": "4K", "2560x1440": "1440p", "1920x1080": "1080p", "1280x720": "720p", "7680x4320": "8K"}
#: Verdict changes named in the summary line before "and N more".
SUMMARY_VERDICTS = 3


@dataclass(frozen=True, slots=True)
class VerdictChange:
    card: str
    base: str | None  # None: the card is not in that report
    head: str | None
    base_free_bytes: int | None = None
    head_free_bytes: int | None = None

    @property
    def worse(self) -> bool:
        return self.base is not None and self.head is not None and _RANK.get(self.head, 0) > _RANK.get(self.base, 0)

    @property
    def better(self) -> bool:
        return self.base is not None and self.head is not None and _RANK.get(self.head, 0) < _RANK.get(self.base, 0)

    @property
    def text(self) -> str:
        return f"{self.card}: {self.base or '—'} → {self.head or '—'}"


@dataclass(frozen=True, slots=True)
class ScenarioChange:
    label: str  # "4K ultra RT nvidia"
    key: tuple[str, str, str, int]  # resolution, quality, rt, occurrence
    base_bytes: int | None  # None: not in BASE
    head_bytes: int | None
    verdicts: tuple[VerdictChange, ...] = ()  # only the cards whose verdict changed

    @property
    def delta_bytes(self) -> int:
        return (self.head_bytes or 0) - (self.base_bytes or 0)


@dataclass(frozen=True, slots=True)
class AssetChange:
    kind: str  # "texture" or "mesh"
    path: str
    base_bytes: int | None  # None: new in HEAD
    head_bytes: int | None  # None: removed in HEAD
    base_what: str = ""  # "4096x4096 BC7_SRGB", "12,000 tris ×3"
    head_what: str = ""

    @property
    def delta_bytes(self) -> int:
        return (self.head_bytes or 0) - (self.base_bytes or 0)

    @property
    def status(self) -> str:
        if self.base_bytes is None:
            return "new"
        if self.head_bytes is None:
            return "removed"
        return "grew" if self.delta_bytes > 0 else "shrank" if self.delta_bytes < 0 else "same"


@dataclass(frozen=True, slots=True)
class LevelChange:
    """One level of either report (``levels``, matched by name): its scenarios compared as the
    reports' are, and the headline scenario's totals."""

    name: str
    scene: str
    scenarios: tuple[ScenarioChange, ...]
    headline: ScenarioChange | None
    in_base: bool = True
    in_head: bool = True

    @property
    def worse(self) -> tuple[tuple[ScenarioChange, VerdictChange], ...]:
        return _worse(self.scenarios)


@dataclass(frozen=True, slots=True)
class Diff:
    scenarios: tuple[ScenarioChange, ...]
    grown: tuple[AssetChange, ...]  # grew or new, largest change first
    shrunk: tuple[AssetChange, ...]  # shrank or removed, largest saving first
    changed: tuple[AssetChange, ...]  # same bytes, other size or format
    headline: ScenarioChange | None  # the scenario growth() and the summary use
    base_assets_bytes: int
    head_assets_bytes: int
    findings: tuple[tuple[str, int, int], ...] = ()  # (code, base count, head count) where they differ
    levels: tuple[LevelChange, ...] = ()  # every level of either report (docs/levels.md)

    @property
    def worse(self) -> tuple[tuple[ScenarioChange, VerdictChange], ...]:
        return _worse(self.scenarios)

    @property
    def better(self) -> tuple[tuple[ScenarioChange, VerdictChange], ...]:
        return tuple((s, v) for s in self.scenarios for v in s.verdicts if v.better)


def _worse(scenarios: Sequence[ScenarioChange]) -> tuple[tuple[ScenarioChange, VerdictChange], ...]:
    """Every (scenario, card) whose verdict got worse."""
    return tuple((s, v) for s in scenarios for v in s.verdicts if v.worse)


# --- reading ---------------------------------------------------------------------------------


def check_schema(report: Any, name: str = "report") -> Mapping[str, Any]:
    """``report`` as a schema-1 report dict, or a UsageError naming what is wrong."""
    if not isinstance(report, Mapping):
        raise UsageError(f"{name}: not a texbudget JSON report (a JSON object was expected)")
    schema = report.get("schema")
    if schema != SCHEMA:
        raise UsageError(
            f"{name}: report schema {json.dumps(schema)}; this texbudget reads schema {SCHEMA} "
            "(write the report again with `texbudget scan --format json`)"
        )
    for key in ("textures", "meshes", "scenarios"):
        if not isinstance(report.get(key, []), list):
            raise UsageError(f"{name}: {key!r} is not a list; not a texbudget JSON report")
    return report


def load_json_report(path: str | Path) -> Mapping[str, Any]:
    """Read one JSON report file (for ``diff`` and ``check --baseline``); a missing file, bad
    JSON or another schema is a UsageError naming the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{p}: cannot be read ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{p}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    return check_schema(data, str(p))


load = load_json_report


# --- comparing -------------------------------------------------------------------------------


def scenario_label(s: Mapping[str, Any]) -> str:
    res = str(s.get("resolution", "?"))
    scale = s.get("render_scale", 1.0)
    scale_text = "" if scale in (None, 1, 1.0) else f" @{scale:g}"
    rt = s.get("rt", "off")
    return f"{_RES_NAMES.get(res, res)}{scale_text} {s.get('quality', '?')} RT {rt}"


def _keyed_scenarios(report: Mapping[str, Any]) -> dict[tuple[str, str, str, int], Mapping[str, Any]]:
    seen: Counter[tuple[str, str, str]] = Counter()
    out = {}
    for s in report.get("scenarios", []):
        base = (str(s.get("resolution")), str(s.get("quality")), str(s.get("rt")))
        out[(*base, seen[base])] = s
        seen[base] += 1
    return out


def _cards(s: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    return {} if s is None else {str(c.get("name")): c for c in s.get("cards", [])}


def _verdicts(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None) -> tuple[VerdictChange, ...]:
    b, h = _cards(base), _cards(head)
    out = []
    for name in [*h, *(n for n in b if n not in h)]:
        bv = b[name].get("verdict") if name in b else None
        hv = h[name].get("verdict") if name in h else None
        if bv != hv and base is not None and head is not None:
            out.append(VerdictChange(name, bv, hv, b[name].get("free_bytes") if name in b else None,
                                     h[name].get("free_bytes") if name in h else None))
    return tuple(out)


def _asset_bytes(kind: str, a: Mapping[str, Any]) -> int:
    if kind == "texture":
        return int(a.get("allocated_bytes", a.get("gpu_bytes", 0)) or 0)
    if a.get("buffer_bytes") is not None:
        return int(a["buffer_bytes"])
    return int(a.get("vertex_bytes", 0) or 0) + int(a.get("index_bytes", 0) or 0) + int(a.get("morph_bytes", 0) or 0)


def _what(kind: str, a: Mapping[str, Any]) -> str:
    if kind == "texture":
        return f"{a.get('width', '?')}x{a.get('height', '?')} {a.get('gpu_format', '?')}"
    return f"{int(a.get('triangles', 0) or 0):,} tris ×{a.get('instances', 1)}"


def _assets(report: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    out: dict[tuple[str, str], Mapping[str, Any]] = {}
    for kind, key in (("texture", "textures"), ("mesh", "meshes")):
        for a in report.get(key, []):
            out[(kind, str(a.get("path")))] = a
    return out


def diff(base: Mapping[str, Any], head: Mapping[str, Any], *, base_name: str = "BASE", head_name: str = "HEAD") -> Diff:
    """Compare two schema-1 report dicts (``base`` before, ``head`` after)."""
    check_schema(base, base_name)
    check_schema(head, head_name)
    scenarios, headline = _scenario_changes(base, head)

    ba, ha = _assets(base), _assets(head)
    changes = []
    for asset_key in [*ha, *(k for k in ba if k not in ha)]:
        kind, path = asset_key
        b, h = ba.get(asset_key), ha.get(asset_key)
        changes.append(AssetChange(
            kind, path,
            None if b is None else _asset_bytes(kind, b), None if h is None else _asset_bytes(kind, h),
            "" if b is None else _what(kind, b), "" if h is None else _what(kind, h),
        ))
    grown = sorted((c for c in changes if c.status in ("grew", "new")), key=lambda c: (-c.delta_bytes, c.path))
    shrunk = sorted((c for c in changes if c.status in ("shrank", "removed")), key=lambda c: (c.delta_bytes, c.path))
    changed = tuple(c for c in changes if c.status == "same" and c.base_what != c.head_what)

    bf = Counter(str(f.get("code")) for f in base.get("findings", []))
    hf = Counter(str(f.get("code")) for f in head.get("findings", []))
    found = tuple((code, bf[code], hf[code]) for code in sorted(set(bf) | set(hf)) if bf[code] != hf[code])
    return Diff(
        scenarios=tuple(scenarios), grown=tuple(grown), shrunk=tuple(shrunk), changed=changed,
        headline=headline,
        base_assets_bytes=sum(c.base_bytes or 0 for c in changes),
        head_assets_bytes=sum(c.head_bytes or 0 for c in changes),
        findings=found,
        levels=_level_changes(base, head),
    )


def _scenario_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[tuple[ScenarioChange, ...], ScenarioChange | None]:
    """The scenarios of two reports (or two levels) compared, and the headline among them."""
    bs, hs = _keyed_scenarios(base), _keyed_scenarios(head)
    scenarios = []
    for key in [*hs, *(k for k in bs if k not in hs)]:
        b, h = bs.get(key), hs.get(key)
        shown = h if h is not None else b
        scenarios.append(ScenarioChange(
            label=scenario_label(shown), key=key,  # type: ignore[arg-type]
            base_bytes=None if b is None else int(b.get("total_bytes", 0)),
            head_bytes=None if h is None else int(h.get("total_bytes", 0)),
            verdicts=_verdicts(b, h),
        ))
    common = [s for s in scenarios if s.base_bytes is not None and s.head_bytes is not None]
    headline = max(common, key=lambda s: s.head_bytes or 0) if common else None  # first of equals
    return tuple(scenarios), headline


def _levels_of(report: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    levels = report.get("levels")
    if not isinstance(levels, list):
        return {}
    return {str(lv.get("name")): lv for lv in levels if isinstance(lv, Mapping) and isinstance(lv.get("scenarios", []), list)}


def _level_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[LevelChange, ...]:
    """Every level of either report, matched by name, HEAD's order first."""
    bl, hl = _levels_of(base), _levels_of(head)
    out = []
    for name in [*hl, *(n for n in bl if n not in hl)]:
        b, h = bl.get(name), hl.get(name)
        scenarios, headline = _scenario_changes(b or {}, h or {})
        shown = h if h is not None else b
        out.append(LevelChange(name=name, scene=str((shown or {}).get("scene", "")), scenarios=scenarios, headline=headline,
                               in_base=b is not None, in_head=h is not None))
    return tuple(out)


def _ratio(before: int, after: int) -> float:
    if before == 0:
        return 0.0 if after == 0 else float("inf")
    return (after - before) / before


def growth(base: Mapping[str, Any], head: Mapping[str, Any]) -> float:
    """Relative growth of the headline scenario's total (HEAD's largest total among the
    scenarios both reports have): 0.053 = +5.3 %, negative when it shrank, ``inf`` when
    BASE was 0. With no scenario in common: of the summed asset bytes."""
    d = diff(base, head)
    if d.headline is not None:
        return _ratio(d.headline.base_bytes or 0, d.headline.head_bytes or 0)
    return _ratio(d.base_assets_bytes, d.head_assets_bytes)


# --- rendering -------------------------------------------------------------------------------


def pct(before: int | None, after: int | None) -> str:
    """``+5.3 %``; ``new`` / ``removed`` when one side is missing; ``±0 %`` when equal."""
    if before is None:
        return "new"
    if after is None:
        return "removed"
    r = _ratio(before, after)
    if r == float("inf"):
        return "new"
    if after == before:
        return "±0 %"
    return f"{100 * r:+.1f} %"


def change(before: int | None, after: int | None) -> str:
    delta = (after or 0) - (before or 0)
    if delta == 0:
        return "±0 B"
    p = pct(before, after)
    return human_bytes(delta, signed=True) + ("" if p in ("new", "removed") else f" ({p})")


def _size(n: int | None) -> str:
    return "–" if n is None else human_bytes(n)


def summary(d: Diff) -> str:
    """One line for the top of a pull-request comment."""
    if d.headline is not None:
        before, after = d.headline.base_bytes or 0, d.headline.head_bytes or 0
        what, where = "Scene VRAM", f" at {d.headline.label}"
    else:
        before, after, what, where = d.base_assets_bytes, d.head_assets_bytes, "Asset VRAM", ""
    if before == after:
        parts = [f"{what} unchanged ({human_bytes(after)}){where}"]
    else:
        parts = [f"{what} {change(before, after)}{where}"]
    worse, better = d.worse, d.better
    if worse:
        parts.append(_got_worse("verdict", [(s.label, v) for s, v in worse]))
    if better:
        parts.append(f"{len(better)} verdict{'s' if len(better) != 1 else ''} got better")
    if not worse and not better:
        parts.append("no verdict changed")
    level_worse = [(f"{lv.name} {sc.label}", v) for lv in d.levels for sc, v in lv.worse]
    if level_worse:
        parts.append(_got_worse("level verdict", level_worse))
    return "; ".join(parts)


def _got_worse(what: str, worse: Sequence[tuple[str, VerdictChange]]) -> str:
    """The summary's part for verdicts that got worse, each (where, change): the first
    ``SUMMARY_VERDICTS`` named, the rest counted."""
    named = ", ".join(f"{where} on {v.card} {v.base} → {v.head}" for where, v in worse[:SUMMARY_VERDICTS])
    more = f" and {len(worse) - SUMMARY_VERDICTS} more" if len(worse) > SUMMARY_VERDICTS else ""
    return f"{len(worse)} {what}{'s' if len(worse) != 1 else ''} got worse: {named}{more}"


def _asset_rows(changes: Sequence[AssetChange]) -> list[str]:
    out = ["| asset | before | after | change | what |", "|---|--:|--:|--:|---|"]
    for c in changes:
        if c.base_what and c.head_what and c.base_what != c.head_what:
            what = f"{c.base_what} → {c.head_what}"
        else:
            what = c.head_what or c.base_what
        tag = f" ({c.status})" if c.status in ("new", "removed") else ""
        out.append(f"| {code(c.path)}{tag} | {_size(c.base_bytes)} | {_size(c.head_bytes)} | "
                   f"{change(c.base_bytes, c.head_bytes)} | {cell(what)} |")
    return out


def _shown(v: VerdictChange) -> str:
    """A verdict change as a table shows it: its text and the new verdict's symbol."""
    return f"{v.text}{' ' + _SYMBOL[v.head] if v.head in _SYMBOL else ''}"


def _verdict_text(scenarios: Sequence[tuple[ScenarioChange, VerdictChange]]) -> str:
    return "; ".join(f"{s.label}: {_shown(v)}" for s, v in scenarios)


def _level_rows(levels: Sequence[LevelChange]) -> list[str]:
    """A row per level: its headline scenario's total before and after, and every verdict
    that changed (scenario, card)."""
    out = ["| level | scenario | before | after | change | verdicts |", "|---|---|--:|--:|--:|---|"]
    for lv in levels:
        if not lv.in_base or not lv.in_head:
            shown = lv.headline or next(iter(lv.scenarios), None)
            total = None
            if shown is not None:
                total = shown.head_bytes if lv.in_head else shown.base_bytes
            before, after = (None, total) if not lv.in_base else (total, None)
            label = shown.label if shown is not None else "–"
            verdicts = "new level" if not lv.in_base else "level removed"
        else:
            h = lv.headline
            before, after = (h.base_bytes, h.head_bytes) if h is not None else (None, None)
            label = h.label if h is not None else "–"
            changed = [(s, v) for s in lv.scenarios for v in s.verdicts]
            verdicts = _verdict_text(changed) if changed else "unchanged"
        out.append(f"| {cell(lv.name)} ({code(lv.scene)}) | {cell(label)} | {_size(before)} | {_size(after)} | "
                   f"{change(before, after)} | {cell(verdicts)} |")
    return out


def render_markdown(d: Diff, *, top: int = 25) -> str:
    """The pull-request comment: summary line, scenarios, grown/new assets (at most ``top``),
    shrunk/removed assets collapsed, findings whose counts changed."""
    out = [f"**texbudget:** {cell(summary(d))}", "", "### Scenarios", ""]
    if d.scenarios:
        out += ["| scenario | before | after | change | verdicts |", "|---|--:|--:|--:|---|"]
        for s in d.scenarios:
            if s.verdicts:
                verdicts = "; ".join(map(_shown, s.verdicts))
            elif s.base_bytes is None:
                verdicts = "new scenario"
            elif s.head_bytes is None:
                verdicts = "scenario removed"
            else:
                verdicts = "unchanged"
            out.append(f"| {cell(s.label)} | {_size(s.base_bytes)} | {_size(s.head_bytes)} | "
                       f"{change(s.base_bytes, s.head_bytes)} | {cell(verdicts)} |")
    else:
        out.append("_No scenarios in either report._")
    if d.levels:
        out += ["", "### Levels", "", *_level_rows(d.levels)]
    out += ["", "### Assets that grew or appeared", ""]
    if d.grown:
        out += _asset_rows(d.grown[:top])
        if len(d.grown) > top:
            rest = sum(c.delta_bytes for c in d.grown[top:])
            out += ["", f"…and {len(d.grown) - top} more ({human_bytes(rest, signed=True)})."]
    else:
        out.append("None.")
    if d.shrunk:
        saved = sum(c.delta_bytes for c in d.shrunk)
        n = len(d.shrunk)
        out += ["", f"<details><summary>{n} asset{'s' if n != 1 else ''} shrank or {'were' if n != 1 else 'was'} removed "
                    f"({human_bytes(saved, signed=True)})</summary>", "", *_asset_rows(d.shrunk), "", "</details>"]
    if d.changed:
        n = len(d.changed)
        out += ["", f"<details><summary>{n} asset{'s' if n != 1 else ''} changed without changing size</summary>", "",
                *_asset_rows(d.changed), "", "</details>"]
    if d.findings:
        out += ["", "### Findings", "", "| code | before | after |", "|---|--:|--:|"]
        out += [f"| {cell(name)} | {b} | {h} |" for name, b, h in d.findings]
    return "\n".join(out) + "\n"
