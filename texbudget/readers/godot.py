"""Godot 4 ``<texture>.import`` sidecars → ``engine.EngineImport``.

The file is Godot's ConfigFile text format: ``[remap]``, ``[deps]`` and ``[params]``
sections of ``key=value`` lines, values written as Godot Variants (``"text"``, ``true``,
``2``, ``0.7``, and arrays/dictionaries that may span lines). Only ``importer`` from
``[remap]`` and the texture options of ``[params]`` are used; their meaning and defaults
are in docs/policy.md §6 (from Godot's ``resource_importer_texture.cpp`` and
``resource_importer_layered_texture.cpp``).

Not a registry reader: it never raises for a bad file, it returns a TB010/TB011 Finding, and
values it does not understand become TB012 findings attached to the EngineImport.
"""

from __future__ import annotations

from pathlib import Path

from texbudget import findings
from texbudget.engine import EngineImport
from texbudget.model import Finding

#: A .import is a few hundred bytes; anything this large is not one.
MAX_IMPORT_BYTES = 256 * 1024

#: [params] key -> (EngineImport field, kind, allowed values or None)
_PARAMS: dict[str, tuple[str, str, tuple[int, ...] | None]] = {
    "compress/mode": ("compress_mode", "int", (0, 1, 2, 3, 4)),
    "compress/high_quality": ("high_quality", "bool", None),
    "compress/high_quality_mode": ("high_quality_mode", "int", (0, 1, 2, 3)),
    "compress/normal_map": ("normal_map", "int", (0, 1, 2)),
    "compress/hdr_compression": ("hdr_compression", "int", (0, 1, 2)),
    "compress/channel_pack": ("channel_pack", "int", (0, 1, 2)),
    "mipmaps/generate": ("mipmaps", "bool", None),
    "mipmaps/limit": ("mipmap_limit", "int", None),
    "process/size_limit": ("size_limit", "int", None),
    "detect_3d/compress_to": ("detect_3d", "int", (0, 1, 2)),
    "slices/horizontal": ("slices_horizontal", "int", None),
    "slices/vertical": ("slices_vertical", "int", None),
    "slices/arrangement": ("arrangement", "int", (0, 1, 2, 3)),
    "slices/layout": ("layout", "int", (0, 1)),
    "slices/amount": ("amount", "int", None),
}
_RANGES = {"slices/horizontal": (1, 256), "slices/vertical": (1, 256), "slices/amount": (1, 1024),
           "process/size_limit": (0, 65536), "mipmaps/limit": (-1, 256)}
#: Importers whose options texbudget models; "skip" means Godot does not import the file.
KNOWN_IMPORTERS = ("texture", "2d_array_texture", "3d_texture", "cubemap_texture", "cubemap_array_texture", "skip")


def parse_config(text: str) -> dict[str, dict[str, str]] | None:
    """Sections of a Godot ConfigFile as raw value text (multi-line values joined), or None
    when the text has no section header at all."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    pending_key: str | None = None
    pending: list[str] = []
    depth = 0
    for line in text.splitlines():
        if pending_key is not None:
            pending.append(line)
            depth += _depth(line)
            if depth <= 0:
                assert current is not None
                current[pending_key] = "\n".join(pending).strip()
                pending_key, pending, depth = None, [], 0
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith((";", "#")):
            continue
        if stripped.startswith("[") and stripped.endswith("]") and "=" not in stripped:
            current = sections.setdefault(stripped[1:-1].strip(), {})
            continue
        if current is None or "=" not in stripped:
            continue
        key, _, value = stripped.partition("=")
        key, value = key.strip(), value.strip()
        d = _depth(value)
        if d > 0:
            pending_key, pending, depth = key, [value], d
        else:
            current[key] = value
    if pending_key is not None and current is not None:
        current[pending_key] = "\n".join(pending).strip()
    return sections or None


def _depth(text: str) -> int:
    """Net bracket depth of a line, ignoring brackets inside strings."""
    depth, in_str, escape = 0, False, False
    for ch in text:
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
    return depth


def _string(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def _bool(value: str) -> bool | None:
    return {"true": True, "false": False}.get(value.strip().lower())


def _int(value: str) -> int | None:
    try:
        return int(value.strip())
    except ValueError:
        try:
            as_float = float(value.strip())
        except ValueError:
            return None
        return int(as_float) if as_float.is_integer() else None


def parse_godot_import(text: str, source: str, rel: str) -> EngineImport | Finding:
    """An EngineImport from the text of a ``.import`` file; ``source`` is the sidecar's name
    for ``decided_by``, ``rel`` its path for findings."""
    sections = parse_config(text)
    if sections is None or "remap" not in sections:
        return findings.make(rel, "TB010", "not a Godot .import file: no [remap] section")
    remap = sections["remap"]
    importer = _string(remap.get("importer", ""))
    if not importer:
        return findings.make(rel, "TB010", "Godot .import has no importer= in [remap]")
    if _string(remap.get("type", "")) == "StreamTexture" or "flags/mipmaps" in sections.get("params", {}):
        return findings.make(rel, "TB011", "Godot 3 .import (StreamTexture); texbudget models Godot 4 import settings")
    if importer not in KNOWN_IMPORTERS:
        return findings.make(rel, "TB011", f"Godot importer {importer!r} is not a texture importer texbudget models; "
                                           f"known: {', '.join(KNOWN_IMPORTERS)}")
    params = sections.get("params", {})
    values: dict[str, object] = {}
    problems: list[Finding] = []
    for key, (field_name, kind, allowed) in _PARAMS.items():
        if key not in params:
            continue
        raw = params[key]
        if kind == "bool":
            parsed: object = _bool(raw)
            ok = parsed is not None
            expect = "true or false"
        else:
            parsed = _int(raw)
            low, high = _RANGES.get(key, (None, None))
            ok = parsed is not None and (allowed is None or parsed in allowed) and (
                low is None or low <= parsed <= high)  # type: ignore[operator]
            expect = (", ".join(str(a) for a in allowed) if allowed else f"an integer from {low} to {high}")
        if not ok:
            problems.append(findings.make(rel, "TB012", f"[params] {key}={raw} is not understood; allowed: {expect}; Godot's default applies"))
            continue
        values[field_name] = parsed
    settings = (("importer", importer), *((k, params[k]) for k in _PARAMS if k in params))
    return EngineImport(engine="godot", source=source, importer=importer, findings=tuple(problems),
                        settings=settings, **values)  # type: ignore[arg-type]


def read_godot_import(path: Path, rel: str | None = None) -> EngineImport | Finding:
    """Read ``path`` (a ``<texture>.import``); never raises for a bad file."""
    rel = rel or path.as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            return findings.make(rel, "TB010", f"Godot .import is {size} bytes; a real one is under {MAX_IMPORT_BYTES}")
        data = path.read_bytes()
    except OSError as exc:
        return findings.make(rel, "TB010", f"cannot read: {exc.strerror or exc}")
    text = data.decode("utf-8-sig", errors="replace")  # a byte-order mark an editor wrote is no text
    return parse_godot_import(text, path.name, rel)
