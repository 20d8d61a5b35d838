"""The Unity project index: turns the ``unity:<guid>:<fileID>`` ids the Unity readers write
(``texbudget.readers.unity_scene``) into paths relative to the scan root, and names the
project's levels (docs/levels.md).

Every asset of a Unity project has a ``<asset>.meta`` beside it that starts with
``fileFormatVersion: 2`` and ``guid: <32 hex digits>``: the guid is how every other file names
the asset. ``parse_meta_ids`` reads what the index needs from one .meta's text (a pure function,
so a scan can cache it per file); ``assemble`` builds the index from those; ``read_project``
does both for a folder on disk. One index serves a whole scan.

Resolving ``unity:G:F`` (``UnityProject.resolve``):

- G is the guid of a file: a material, prefab, scene or texture is that file (its fileID is its
  main object, or a sub-asset such as a sprite, which loads the texture: the file either way);
- G is a model (``.fbx``, ``.obj``, ``.blend``, ``.glb``, …, imported by Unity's ModelImporter):
  fileID 100100000 is the model's own prefab (the file; an instance of it loads the model's
  graph); any other fileID is one object of the import. A mesh is found by name: through the
  model .meta's ``internalIDToNameTable`` (class 43 = Mesh; Unity 2019.1 on) or
  ``fileIDToRecycleName`` (before; a legacy fileID is class × 100000 + n), and, where the
  table does not list it (Unity 2019.3 on writes none for meshes), by the id Unity computes
  from the mesh's name: the signed 64-bit xxHash64 (seed 0) of ``"Type:Mesh->" + name + k``,
  ``k`` counting earlier meshes of the same name (checked on BoatAttack's rock prefabs against
  Env_Rocks.fbx: ``Rock_Large_01_LOD2`` → -4767823104392330369). The names come from the
  scan's facts (``meshes``: the part path and name of every mesh the model's reader gave;
  a mesh reader names a mesh as Unity does), and the fileID becomes that part,
  ``model.fbx#mesh/N``. A material of the model (asked for with ``kind="material"``) is ``""``:
  the mesh's own material, as the model's reader gives it;
- G is one of Unity's built-in resources (``0000000000000000e000000000000000``, the primitives
  Cube 10202, Cylinder 10206, Sphere 10207, Capsule 10208, Plane 10209, Quad 10210;
  ``0000000000000000f000000000000000``, Default-Material and the other built-in extras): None,
  and ``builtin`` names it. Not priced: their vertex layout is not published, and they ship in
  every player's own resources (a few KiB each).

Anything else is None, and ``explain`` says why (a guid no .meta gives: a deleted asset, or a
package outside the scan root such as Library/PackageCache; a fileID that is no mesh of the
model). Never raises for a bad file: a .meta without a guid is TB115, two .meta files with one
guid TB116, a build settings file that cannot be read or lists a missing scene TB117.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from texbudget import findings
from texbudget.model import Finding
from texbudget.readers.unity import MAX_META_BYTES, parse_meta

#: What the resolver supplies for a model file: (part path, mesh name) of every mesh the
#: scan read from it, in the file's order.
MeshNames = Callable[[str], Sequence[tuple[str, str]]]

#: The handle of a prefab asset, and of a model's own prefab (Unity's YAML prefab docs).
PREFAB_ROOT = 100100000
#: Unity's class IDs of a Mesh and a Material.
_MESH, _MATERIAL = 43, 21
#: Files Unity imports with its ModelImporter (and the glTF importers of the glTFast package).
MODEL_SUFFIXES = frozenset({".fbx", ".obj", ".blend", ".dae", ".3ds", ".dxf", ".max", ".ma", ".mb", ".c4d",
                            ".lxo", ".skp", ".jas", ".glb", ".gltf"})
_BUILTIN_GUIDS = {"0000000000000000e000000000000000": "unity default resources",
                  "0000000000000000f000000000000000": "unity_builtin_extra"}
_BUILTIN_MESHES = {10202: "Cube", 10206: "Cylinder", 10207: "Sphere", 10208: "Capsule", 10209: "Plane", 10210: "Quad"}
_BUILTIN_EXTRAS = {10303: "Default-Material", 10302: "Default-Diffuse", 10304: "Default-Skybox",
                   10754: "Sprites-Default", 10306: "Default-Line", 10301: "Default-Particle"}
_GUID = re.compile(r"^guid:[ \t]*([0-9A-Fa-f]{32})[ \t]*$", re.M)
_IMPORTER = re.compile(r"^(\w+Importer):[ \t]*$", re.M)
_TARGET = re.compile(r"unity:([0-9A-Fa-f]{32}):(-?\d{1,20})")
#: The keys of a ModelImporter that follow its name tables: the read stops there.
_AFTER_TABLES = ("externalObjects", "materials", "animations", "meshes")
#: Folders beside a project's Assets that hold no assets (Unity's caches and build output).
_NOT_ASSETS = frozenset({"Library", "Temp", "Logs", "obj", "UserSettings", "Build", "Builds"})
BUILD_SETTINGS = "ProjectSettings/EditorBuildSettings.asset"


@dataclass(frozen=True, slots=True)
class MetaIds:
    """What one ``.meta`` says about identities: the asset's guid, its importer, and the
    names of the meshes and materials of a model (class ID, fileID, name)."""

    guid: str
    importer: str = ""
    names: tuple[tuple[int, int, str], ...] = ()


def parse_meta_ids(text: str) -> MetaIds | str:
    """A .meta's ids from its text, or why there are none (a pure function of the text)."""
    found = _GUID.search(text[:4096])
    if found is None:
        return "no 'guid:' line: not a Unity .meta"
    guid = found.group(1)
    importer_line = _IMPORTER.search(text)
    if importer_line is None or importer_line.group(1) != "ModelImporter":
        return MetaIds(guid=guid, importer=importer_line.group(1) if importer_line else "")
    ends = [at for at in (text.find(f"\n  {key}:", importer_line.end()) for key in _AFTER_TABLES) if at >= 0]
    head = text[: min(ends) + 1] if ends else text  # the tables come first: the rest is not split into lines
    _, top, entries = parse_meta(head, lists=("internalIDToNameTable",), stop=_AFTER_TABLES)
    names: list[tuple[int, int, str]] = []
    for entry in entries:  # internalIDToNameTable: - first: {43: 4300000} second: Cube
        for key, value in entry.items():
            if key.startswith("first."):
                cls, file_id = _int(key[6:]), _int(value)
                if cls in (_MESH, _MATERIAL) and file_id is not None:
                    names.append((cls, file_id, _name(entry.get("second", ""))))
    for key, value in top.items():  # fileIDToRecycleName: 4300000: Cube
        if key.startswith("fileIDToRecycleName."):
            file_id = _int(key[20:])
            if file_id is not None and file_id // 100000 in (_MESH, _MATERIAL):
                names.append((file_id // 100000, file_id, _name(value)))
    return MetaIds(guid=guid, importer="ModelImporter", names=tuple(names))


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _name(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace("''", "'") if text[0] == "'" else text[1:-1]
    return text


def read_meta_ids(path: Path) -> MetaIds | str:
    """``parse_meta_ids`` of a .meta on disk (its head: name tables come first)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_META_BYTES)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if b"\0" in data[:1024]:
        return "binary content (Unity writes .meta files as text)"
    return parse_meta_ids(data.decode("utf-8-sig", errors="replace"))


def parse_build_settings(text: str) -> list[tuple[bool, str, str]] | None:
    """(enabled, path, guid) of every scene of ``EditorBuildSettings.asset``'s ``m_Scenes``,
    None when the text holds no ``EditorBuildSettings``."""
    if "EditorBuildSettings:" not in text:
        return None
    scenes: list[tuple[bool, str, str]] = []
    in_scenes = False
    current: dict[str, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if line.startswith("  ") and not line.startswith("   ") and not stripped.startswith("- "):
            in_scenes = stripped.startswith("m_Scenes:") and stripped != "m_Scenes: []"
            continue
        if not in_scenes:
            continue
        if stripped.startswith("- "):
            current = {}
            scenes.append((False, "", ""))
            stripped = stripped[2:]
        key, sep, value = stripped.partition(":")
        if current is None or not sep:
            continue
        current[key.strip()] = _name(value)
        scenes[-1] = (current.get("enabled", "0").strip() == "1", current.get("path", ""), current.get("guid", ""))
    return scenes


# --- xxHash64 (seed 0), for the ids Unity computes from names ---------------------------------

_P1, _P2, _P3, _P4, _P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                           0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
_M64 = (1 << 64) - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _M64, 31) * _P1) & _M64


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data`` (the xxHash specification, github.com/Cyan4973/xxHash doc/xxhash_spec.md)."""
    n = len(data)
    pos = 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M64, (seed + _P2) & _M64, seed & _M64, (seed - _P1) & _M64]
        while pos + 32 <= n:
            for i in range(4):
                v[i] = _round(v[i], int.from_bytes(data[pos + 8 * i : pos + 8 * i + 8], "little"))
            pos += 32
        acc = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M64
        for lane in v:
            acc = ((acc ^ _round(0, lane)) * _P1 + _P4) & _M64
    else:
        acc = (seed + _P5) & _M64
    acc = (acc + n) & _M64
    while pos + 8 <= n:
        acc = (_rotl(acc ^ _round(0, int.from_bytes(data[pos : pos + 8], "little")), 27) * _P1 + _P4) & _M64
        pos += 8
    if pos + 4 <= n:
        acc = (_rotl(acc ^ (int.from_bytes(data[pos : pos + 4], "little") * _P1) & _M64, 23) * _P2 + _P3) & _M64
        pos += 4
    while pos < n:
        acc = (_rotl(acc ^ (data[pos] * _P5) & _M64, 11) * _P1) & _M64
        pos += 1
    acc ^= acc >> 33
    acc = (acc * _P2) & _M64
    acc ^= acc >> 29
    acc = (acc * _P3) & _M64
    return acc ^ (acc >> 32)


def hashed_file_id(type_name: str, name: str, occurrence: int = 0) -> int:
    """The fileID Unity (2019.3 on) gives an imported object: the signed 64-bit
    xxHash64 of ``"Type:<type_name>-><name><occurrence>"``."""
    value = xxh64(f"Type:{type_name}->{name}{occurrence}".encode())
    return value - (1 << 64) if value >= 1 << 63 else value


# --- the index ------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnityProject:
    """One scan's Unity index: ``paths`` guid -> asset path (relative to the scan root),
    ``ids`` guid -> its MetaIds, ``levels`` the scenes Build Settings enables."""

    paths: Mapping[str, str]
    ids: Mapping[str, MetaIds]
    levels: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    _hashed: dict[str, dict[int, str]] = field(default_factory=dict, compare=False, repr=False)

    def resolve(self, target: str, holder_file: str = "", meshes: MeshNames | None = None, *, kind: str = "") -> str | None:
        """The path ``target`` (``unity:<guid>:<fileID>``) names, ``""`` for a model's own
        material (``kind="material"``), or None (``explain`` says why)."""
        return self._resolve(target, meshes, kind)[0]

    def explain(self, target: str, holder_file: str = "", meshes: MeshNames | None = None, *, kind: str = "") -> str:
        """What ``target`` is, in words: why it does not resolve, or what it resolves to."""
        path, why = self._resolve(target, meshes, kind)
        if path is None:
            return why
        return f"{target} is {path}" if path else f"{target} is a material of its model: the mesh's own"

    @staticmethod
    def builtin(target: str) -> str | None:
        """The name of one of Unity's built-in resources (``"Cube mesh (built-in)"``), or None."""
        m = _TARGET.fullmatch(target)
        if m is None or m.group(1).lower() not in _BUILTIN_GUIDS:
            return None
        file_id = int(m.group(2))
        if m.group(1).lower() == "0000000000000000e000000000000000" and file_id in _BUILTIN_MESHES:
            return f"{_BUILTIN_MESHES[file_id]} mesh (built-in)"
        name = _BUILTIN_EXTRAS.get(file_id)
        return f"{name} (built-in)" if name else f"built-in resource {file_id} of {_BUILTIN_GUIDS[m.group(1).lower()]}"

    def _resolve(self, target: str, meshes: MeshNames | None, kind: str) -> tuple[str | None, str]:
        m = _TARGET.fullmatch(target)
        if m is None:
            return None, f"{target!r} is not a Unity reference (unity:<guid>:<fileID>)"
        builtin = self.builtin(target)
        if builtin is not None:
            return None, f"{target} is Unity's {builtin}: in the player's own resources, not priced"
        guid, file_id = m.group(1), int(m.group(2))
        path = self.paths.get(guid)
        if path is None:
            return None, (f"guid {guid} is in no .meta under the scan root: a deleted asset, or one outside it "
                          "(a package in Library/PackageCache)")
        ids = self.ids.get(guid)
        if posixpath.splitext(path)[1].lower() not in MODEL_SUFFIXES and (ids is None or ids.importer != "ModelImporter"):
            return path, ""
        if file_id == PREFAB_ROOT:
            return path, ""
        part = self._mesh_part(path, ids, file_id, meshes)
        if part is not None:
            return part, ""
        table = {fid: cls for cls, fid, _ in ids.names} if ids is not None else {}
        if kind == "material" and (table.get(file_id) == _MATERIAL or file_id not in table):
            return "", ""
        if meshes is None:
            return None, f"fileID {file_id} of {path}: no mesh named in its .meta, and no mesh names to match it"
        return None, f"fileID {file_id} of {path} is none of the meshes the model's reader gave"

    def _mesh_part(self, path: str, ids: MetaIds | None, file_id: int, meshes: MeshNames | None) -> str | None:
        parts = list(meshes(path)) if meshes is not None else []
        if ids is not None:
            for cls, fid, name in ids.names:
                if fid == file_id and cls == _MESH:
                    return next((p for p, n in parts if n == name), None)
        if not parts:
            return None
        hashed = self._hashed.get(path)
        if hashed is None:
            hashed = {}
            seen: dict[str, int] = {}
            for part, name in parts:
                k = seen.get(name, 0)
                seen[name] = k + 1
                hashed.setdefault(hashed_file_id("Mesh", name, k), part)
            self._hashed[path] = hashed
        return hashed.get(file_id)


def assemble(metas: Iterable[tuple[str, MetaIds | str]], build_settings: tuple[str, str] | None = None) -> UnityProject:
    """The index from parsed .meta files, ``(path of the .meta relative to the scan root,
    parse_meta_ids of its text)``, and the Build Settings' ``(path, text)`` if there is one."""
    paths: dict[str, str] = {}
    ids: dict[str, MetaIds] = {}
    notes: list[Finding] = []
    for rel, parsed in sorted(metas, key=lambda item: item[0]):
        if isinstance(parsed, str):
            notes.append(findings.make(rel, "TB115", f"{parsed}; what references this asset cannot be resolved"))
            continue
        asset = rel[: -len(".meta")] if rel.endswith(".meta") else rel
        if parsed.guid in paths:
            notes.append(findings.make(rel, "TB116", f"guid {parsed.guid} is also the guid of {paths[parsed.guid]}; "
                                       f"references to it resolve to {paths[parsed.guid]}"))
            continue
        paths[parsed.guid] = asset
        ids[parsed.guid] = parsed
    levels: list[str] = []
    if build_settings is not None:
        levels, more = _levels(paths, *build_settings)
        notes += more
    return UnityProject(paths=paths, ids=ids, levels=tuple(levels), findings=tuple(notes))


def _levels(paths: Mapping[str, str], rel: str, text: str) -> tuple[list[str], list[Finding]]:
    scenes = parse_build_settings(text)
    if scenes is None:
        return [], [findings.make(rel, "TB117", "no EditorBuildSettings in the file: the project's levels are not known")]
    project = posixpath.dirname(posixpath.dirname(rel))  # the folder that holds ProjectSettings/
    levels: list[str] = []
    notes: list[Finding] = []
    assets = set(paths.values())
    for enabled, path, guid in scenes:
        if not enabled:
            continue
        found = paths.get(guid) or (posixpath.join(project, path) if path else "")
        if found in assets:
            levels.append(found)
        else:
            notes.append(findings.make(rel, "TB117", f"the enabled scene {path or guid!r} is not in the project: not a level"))
    return levels, notes


def find_metas(root: Path) -> tuple[list[str], str | None]:
    """The .meta files under ``root`` (paths relative to it, POSIX) and the Build Settings
    file if there is one. Skips what Unity does not import: hidden folders and those ending in
    ``~``, and beside a project's Assets its caches (Library, Temp, …)."""
    metas: list[str] = []
    settings: str | None = None
    root_text = os.fspath(root)
    for folder, dirs, files in os.walk(root_text):
        rel = os.path.relpath(folder, root_text).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        project = "Assets" in dirs and "ProjectSettings" in dirs
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.endswith("~") and not (project and d in _NOT_ASSETS))
        metas += [rel + name for name in files if name.endswith(".meta") and not name.startswith(".")]
        if (rel + "EditorBuildSettings.asset").endswith(BUILD_SETTINGS) and "EditorBuildSettings.asset" in files and settings is None:
            settings = rel + "EditorBuildSettings.asset"
    return sorted(metas), settings


def read_project(root: Path, metas: Iterable[str] | None = None, build_settings: str | None = None,
                 *, read: Callable[[str], MetaIds | str] | None = None) -> UnityProject:
    """The index of the Unity project(s) under ``root``: every .meta read once (``metas``:
    their paths relative to ``root``, found by ``find_metas`` when None; ``read(rel)``: the
    MetaIds of one, ``read_meta_ids`` of the file when None; a scan passes its cache's)."""
    if metas is None:
        metas, build_settings = find_metas(root)
    parsed = [(rel, read(rel) if read is not None else read_meta_ids(root / rel)) for rel in metas]
    if build_settings is None:
        return assemble(parsed)
    try:
        with open(root / build_settings, "rb") as f:
            text = f.read(MAX_META_BYTES).decode("utf-8-sig", errors="replace")
    except OSError as exc:
        project = assemble(parsed)
        unread = findings.make(build_settings, "TB117", f"cannot read: {exc.strerror or exc}; the project's levels are not known")
        return replace(project, findings=(*project.findings, unread))
    return assemble(parsed, (build_settings, text))
