"""Unity ``<texture>.meta`` sidecars → ``engine.EngineImport``, without a YAML library.

A ``.meta`` is Unity's YAML: ``fileFormatVersion``, ``guid``, then one importer mapping
(``TextureImporter:``) whose keys sit two spaces in, nested mappings four spaces in, and the
``platformSettings`` list (``buildTargetSettings`` before Unity 2017.3) as ``- key: value``
items. This purpose-built line parser reads only the keys in docs/policy.md §7 and stops at
``spriteSheet:`` (sprite rectangles can make a .meta megabytes long and nothing after them
matters here). The YAML key for the importer's Alpha Source is ``alphaUsage``.

Never raises for a bad file: an unreadable or foreign file is a TB010/TB011 Finding, a value
it does not understand a TB012 finding attached to the EngineImport.
"""

from __future__ import annotations

from pathlib import Path

from texbudget import findings
from texbudget.engine import UNITY_AUTOMATIC, UNITY_FORMATS, EngineImport, UnityPlatform
from texbudget.model import Finding

#: Only the head of a .meta is read; the importer settings come before the sprite sheet.
MAX_META_BYTES = 1024 * 1024
_LISTS = ("platformSettings", "buildTargetSettings")
_STOP = "spriteSheet"
#: TextureImporterType values Unity writes (TextureImporterEnums.cs), incl. the lightmap types.
_TYPES = frozenset(range(0, 13))


def parse_meta(text: str, *, lists: tuple[str, ...] = _LISTS, stop: tuple[str, ...] = (_STOP,)
               ) -> tuple[str | None, dict[str, str], list[dict[str, str]]]:
    """(importer name, top-level keys with ``section.key`` for nested mappings, list items of
    platformSettings) from the text of a .meta. ``lists`` names the lists whose items are
    kept (a mapping inside an item as ``key.subkey``: ``first.43``); the read stops at the
    first importer key in ``stop``."""
    importer: str | None = None
    top: dict[str, str] = {}
    entries: list[dict[str, str]] = []
    section: str | None = None
    in_list = False
    item_indent = 4
    item_key = ""
    started = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        stripped = line.strip()
        if indent == 0:
            if started:
                break
            key = stripped.split(":", 1)[0]
            if key.endswith("Importer") and stripped.endswith(":"):
                importer, started = key, True
            continue
        if not started:
            continue
        if stripped.startswith("- "):
            if not in_list:
                continue
            entries.append({})
            stripped = stripped[2:].strip()
            indent = item_indent = indent + 2
        key, sep, value = stripped.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if indent == 2:
            section, in_list = None, False
            if key in stop:
                break
            if value == "":
                section = key
                in_list = key in lists
            else:
                top[key] = value
        elif in_list:
            if entries and indent == item_indent:
                entries[-1][key] = value
                item_key = key if value == "" else ""
            elif entries and indent > item_indent and item_key:
                entries[-1][f"{item_key}.{key}"] = value
        elif section is not None and indent == 4:
            top[f"{section}.{key}"] = value
    return importer, top, entries


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def _overridden(entry: dict[str, str]) -> bool:
    """``overridden: 1``; entries of old files (``buildTargetSettings``) have no such key and
    exist only when the platform is overridden."""
    if "overridden" in entry:
        return _int(entry["overridden"]) == 1
    return entry.get("buildTarget") != "DefaultTexturePlatform"


def parse_unity_meta(text: str, source: str, rel: str) -> EngineImport | Finding:
    """An EngineImport from the text of a ``.meta``; ``source`` names it in ``decided_by``,
    ``rel`` in findings."""
    importer, top, entries = parse_meta(text)
    if importer is None:
        return findings.make(rel, "TB010", "not a Unity .meta: no importer mapping (e.g. 'TextureImporter:')")
    if importer == "IHVImageFormatImporter":  # DDS/KTX/PVR/ASTC files: Unity keeps the stored format
        return EngineImport(engine="unity", source=source, importer=importer,
                            ignore_mipmap_limit=_int(top.get("ignoreMipmapLimit", top.get("ignoreMasterTextureLimit"))) == 1,
                            settings=(("importer", importer),))
    if importer != "TextureImporter":
        return findings.make(rel, "TB011", f"Unity importer {importer} is not a TextureImporter; the platform profile decides")
    problems: list[Finding] = []

    def checked(key: str, allowed: frozenset[int] | tuple[int, ...] | None, words: str) -> int | None:
        raw = top.get(key)
        value = _int(raw)
        if raw is None:
            return None
        if value is None or (allowed is not None and value not in allowed):
            problems.append(findings.make(rel, "TB012", f"TextureImporter {key}: {raw} is not understood; allowed: {words}"))
            return None
        return value

    def flag(key: str) -> bool | None:
        value = _int(top.get(key))
        return None if value is None else value == 1

    texture_type = checked("textureType", _TYPES, "0 Default, 1 Normal map, 2 Editor GUI, 7 Cursor, 8 Sprite, 10 Single Channel, …")
    shape = checked("textureShape", (1, 2, 4, 8), "1 2D, 2 Cube, 4 2D Array, 8 3D")
    compression = checked("textureCompression", (0, 1, 2, 3), "0 None, 1 Normal, 2 High, 3 Low quality")
    alpha_key = "alphaUsage" if "alphaUsage" in top else "alphaSource"
    alpha_source = checked(alpha_key, (0, 1, 2), "0 None, 1 Input Texture Alpha, 2 From Gray Scale")
    srgb = flag("mipmaps.sRGBTexture")
    if srgb is None and "mipmaps.linearTexture" in top:
        srgb = not flag("mipmaps.linearTexture")
    platforms: list[UnityPlatform] = []
    for entry in entries:
        target = entry.get("buildTarget")
        if not target:
            continue
        fmt = _int(entry.get("textureFormat"))
        if fmt is None:
            fmt = -1
        elif fmt not in UNITY_FORMATS and fmt not in UNITY_AUTOMATIC:
            problems.append(findings.make(rel, "TB012", f"platformSettings {target} textureFormat: {fmt} is not a TextureImporterFormat texbudget knows; read as Automatic"))
            fmt = -1
        comp = _int(entry.get("textureCompression"))
        if comp is not None and comp not in (0, 1, 2, 3):
            problems.append(findings.make(rel, "TB012", f"platformSettings {target} textureCompression: {comp} is not understood; allowed: 0, 1, 2, 3"))
            comp = None
        size = _int(entry.get("maxTextureSize"))
        platforms.append(UnityPlatform(
            build_target=target, max_size=size if size and size > 0 else None, texture_format=fmt,
            compression=comp, overridden=_overridden(entry),
        ))
    # Modern files always carry a DefaultTexturePlatform entry and write a meaningless legacy
    # top-level textureFormat; before Unity 2017.3 the top level held the default format.
    has_default = any(p.build_target == "DefaultTexturePlatform" for p in platforms)
    legacy_format = None if has_default else _int(top.get("textureFormat"))
    if legacy_format is not None and legacy_format not in UNITY_FORMATS and legacy_format not in UNITY_AUTOMATIC:
        problems.append(findings.make(rel, "TB012", f"TextureImporter textureFormat: {legacy_format} is not a TextureImporterFormat texbudget knows; read as Automatic"))
        legacy_format = -1
    size = _int(top.get("maxTextureSize"))
    keys = ("textureType", "textureShape", "maxTextureSize", "textureCompression", "mipmaps.enableMipMap",
            "mipmaps.sRGBTexture", alpha_key, "alphaIsTransparency", "ignoreMipmapLimit")
    settings = (("importer", importer), *((k, top[k]) for k in keys if k in top),
                *((f"platformSettings[{p.build_target}]", f"format {p.texture_format}, compression {p.compression}, "
                   f"max {p.max_size}, overridden {int(p.overridden)}") for p in platforms))
    return EngineImport(
        engine="unity", source=source, importer=importer,
        texture_type=texture_type, texture_shape=shape, srgb=srgb, alpha_source=alpha_source,
        alpha_is_transparency=flag("alphaIsTransparency"),
        max_size=size if size and size > 0 else None, compression=compression,
        texture_format=legacy_format,
        single_channel_component=_int(top.get("singleChannelComponent")),
        mipmaps=flag("mipmaps.enableMipMap"),
        ignore_mipmap_limit=bool(flag("ignoreMipmapLimit") or flag("ignoreMasterTextureLimit")),
        flipbook_rows=_int(top.get("flipbookRows")), flipbook_columns=_int(top.get("flipbookColumns")),
        generate_cubemap=_int(top.get("generateCubemap")), platforms=tuple(platforms),
        findings=tuple(problems), settings=settings,
    )


def read_unity_meta(path: Path, rel: str | None = None) -> EngineImport | Finding:
    """Read the head of ``path`` (a ``<texture>.meta``); never raises for a bad file."""
    rel = rel or path.as_posix()
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_META_BYTES)
    except OSError as exc:
        return findings.make(rel, "TB010", f"cannot read: {exc.strerror or exc}")
    if b"\0" in data[:1024]:
        return findings.make(rel, "TB010", "not a Unity .meta: binary content (Unity writes .meta files as text)")
    return parse_unity_meta(data.decode("utf-8-sig", errors="replace"), path.name, rel)  # (and no BOM)
