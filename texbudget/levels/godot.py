"""The Godot project index: the ids a Godot scene writes, as paths relative to the scan root.

The Godot readers (``readers/godot_scene.py``) write targets as the file writes them:
``res://props/barrel.tscn``, ``uid://c3k…``, or ``uid://c3k…::res://props/barrel.tscn`` when
the file gives both (Godot loads by the uid when it knows it, else by the path). This index
turns them into scan-root paths, from the project's own files:

- the project root: the folder of ``project.godot``, the nearest one above the referencing
  file (several projects may share one scan root; a ``project.godot`` above the scan root is
  found too, and ``res://`` paths outside the scan root then resolve to None); without one,
  the scan root;
- uids: ``<file>.import`` (``[remap] uid=``, for imported files: textures, ``.glb``), ``<file>.uid``
  (Godot 4.4+, scripts and shaders), the ``uid="uid://…"`` of a ``.tscn`` / ``.tres`` header
  and the uid of a binary resource's header. A uid is first checked against the file the
  fallback path names (one small read); the whole tree is indexed only when that fails or no
  path is given. Folders that start with "." (``.godot``) or hold a ``.gdignore`` are not
  part of a Godot project and are not indexed;
- an imported file's ``res://`` path is its source (``res://tex/rock.png`` is ``tex/rock.png``,
  which texbudget prices with its ``.import`` settings);
- ``material_remap``: a ``.glb``/``.gltf`` whose ``.import`` extracts a material to a file
  (``_subresources`` → ``materials`` → name → ``use_external/enabled`` and ``use_external/path``)
  has that file instead of its own material ``file.glb#material/N``. Godot names a glTF
  material by its ``name``, or ``material_N`` when it has none (GLTFDocument); the index
  reads the names from the glTF's JSON;
- ``main_scene``: ``application/run/main_scene`` of ``project.godot`` (a path or a uid).

Everything the index reads is parsed by pure functions of the file's text (``parse_import``,
``parse_uid_file``, ``parse_project``, ``text_uid``, ``binary_uid``), so their results can be
cached per file. Problems are collected in ``findings`` (TB109), never raised.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from texbudget import findings as findings_mod
from texbudget.model import Finding, file_of
from texbudget.readers.godot_binary import FLAG_UIDS, inflate_first_block, uid_text
from texbudget.readers.godot_variant import GodotSyntaxError, parse_sections

#: The small files the index reads are never larger than this (a project.godot with a big
#: input map is a few hundred KiB).
MAX_SMALL_BYTES = 4 * 1024 * 1024
#: A glTF JSON larger than this is not read for its material names.
MAX_GLTF_JSON_BYTES = 64 * 1024 * 1024
#: Bytes of a scene or resource read for its header's uid.
HEADER_BYTES = 4096
#: Bytes of a compressed binary resource (RSCC) read for its first block: the block table and
#: the first block of a file of up to about 50 MiB in 4 KiB blocks.
RSCC_HEAD_BYTES = 64 * 1024
_UID = re.compile(r"uid://[a-z0-9]+")
_HEADER_UID = re.compile(r'\[gd_(?:scene|resource)\b[^\]\n]*?\buid="(uid://[a-z0-9]+)"')
_TEXT_RESOURCES = (".tscn", ".tres", ".escn")
_BINARY_RESOURCES = (".scn", ".res", ".mesh", ".lmbake", ".meshlib")


# --- pure functions of one file -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportInfo:
    """What a ``<file>.import`` says: its uid, importer and imported type, and the materials
    its ``_subresources`` extract to files: ``(material name, target)``, the target written
    like a reader's (``uid://…::res://…``, ``res://…``)."""

    uid: str = ""
    importer: str = ""
    type: str = ""
    external_materials: tuple[tuple[str, str], ...] = ()


def _target(path: object, fallback: object = "") -> str:
    path = path if isinstance(path, str) else ""
    fallback = fallback if isinstance(fallback, str) else ""
    if _UID.fullmatch(path):
        return f"{path}::{fallback}" if fallback else path
    return path or fallback


def parse_import(text: str) -> ImportInfo | None:
    """An ``.import`` file's text → ImportInfo; None when it is not one (no ``[remap]``).
    Raises GodotSyntaxError for text that breaks the ConfigFile syntax."""
    sections: dict[str, dict[str, object]] = {}
    for name, _fields, props in parse_sections(text, simple_tags=True):
        sections.setdefault(name, {}).update(props)
    remap = sections.get("remap")
    if remap is None:
        return None
    subresources = sections.get("params", {}).get("_subresources")
    external: list[tuple[str, str]] = []
    materials = subresources.get("materials") if isinstance(subresources, dict) else None
    if isinstance(materials, dict):
        for name, options in materials.items():
            if isinstance(name, str) and isinstance(options, dict) and options.get("use_external/enabled") is True:
                target = _target(options.get("use_external/path"), options.get("use_external/fallback_path"))
                if target:
                    external.append((name, target))
    uid = remap.get("uid")
    return ImportInfo(uid=uid if isinstance(uid, str) and _UID.fullmatch(uid) else "",
                      importer=str(remap.get("importer", "")), type=str(remap.get("type", "")),
                      external_materials=tuple(external))


def parse_uid_file(text: str) -> str:
    """A ``<file>.uid``'s uid ("" when it holds none)."""
    first = text.strip().split("\n", 1)[0].strip() if text.strip() else ""
    return first if _UID.fullmatch(first) else ""


def parse_project(text: str) -> str:
    """``application/run/main_scene`` of a ``project.godot`` ("" when unset). Raises
    GodotSyntaxError for text that breaks the ConfigFile syntax."""
    for name, _fields, props in parse_sections(text, simple_tags=True):
        if name == "application":
            value = props.get("run/main_scene")
            if isinstance(value, str):
                return value
    return ""


def text_uid(head: str) -> str:
    """The uid of a ``.tscn`` / ``.tres`` header (its first tag), "" when it has none."""
    m = _HEADER_UID.search(head, 0, HEADER_BYTES)
    return m.group(1) if m else ""


def binary_uid(head: bytes) -> str:
    """The uid of a binary resource's header (``RSRC``, format 4+ with the uid flag; or
    ``RSCC``, compressed, when ``head`` holds its first block)."""
    if head[:4] == b"RSCC":
        head = b"RSRC" + inflate_first_block(head)
    if len(head) < 28 or head[:4] != b"RSRC":
        return ""
    e = ">" if struct.unpack_from("<I", head, 4)[0] else "<"
    type_len = struct.unpack_from(e + "I", head, 24)[0]
    at = 28 + type_len + 8
    if at + 12 > len(head):
        return ""
    flags, uid = struct.unpack_from(e + "IQ", head, at)
    return uid_text(uid) if flags & FLAG_UIDS else ""


def gltf_material_names(data: bytes) -> list[str] | None:
    """Godot's names for a glTF's materials (``name``, else ``material_N``), from a ``.glb``
    or ``.gltf``'s bytes; None when its JSON cannot be read."""
    if data[:4] == b"glTF":
        if len(data) < 20:
            return None
        length, kind = struct.unpack_from("<II", data, 12)
        if kind != 0x4E4F534A or 20 + length > len(data):
            return None
        data = data[20:20 + length]
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    materials = doc.get("materials") if isinstance(doc, dict) else None
    if not isinstance(materials, list):
        return []
    names = []
    for i, material in enumerate(materials):
        name = material.get("name") if isinstance(material, dict) else None
        names.append(name if isinstance(name, str) and name else f"material_{i}")
    return names


# --- the index ---------------------------------------------------------------------------------


def split_target(target: str) -> tuple[str, str]:
    """(uid, path) of a Godot target id: ``uid://x::res://p`` → both, else one of them."""
    if target.startswith("uid://"):
        uid, _, path = target.partition("::")
        return uid, path
    return "", target


class GodotIndex:
    """The index of the Godot projects under ``root``: ``resolve`` (an id → a scan-root path),
    ``material_remap`` and ``main_scene``. ``files`` (scan-root paths discovery listed) spare
    file-system checks for the files it names; others are looked up on disk."""

    def __init__(self, root: Path, files: Iterable[str] = ()) -> None:
        self.root = Path(root)
        self.real_root = os.path.realpath(self.root)
        self.files = frozenset(files)
        self.findings: list[Finding] = []
        self._projects: dict[str, str | None] = {}  # folder -> its project's absolute folder
        self._uids: dict[str, dict[str, str]] | None = None  # project -> uid -> path, once indexed
        self._imports: dict[str, ImportInfo | None] = {}
        self._file_uids: dict[str, str] = {}
        self._gltf_names: dict[str, list[str] | None] = {}

    # files
    def exists(self, rel: str) -> bool:
        return rel in self.files or os.path.isfile(os.path.join(self.root, rel))

    def _open(self, rel: str) -> str | None:
        """The file's real path when it stays inside the scan root (a link may lead out)."""
        real = os.path.realpath(os.path.join(self.root, rel))
        inside = real.startswith(self.real_root.rstrip(os.sep) + os.sep)
        return real if inside and os.path.isfile(real) else None

    def _read(self, rel: str, limit: int) -> bytes | None:
        real = self._open(rel)
        if real is None:
            return None
        try:
            with open(real, "rb") as f:
                data = f.read(limit + 1)
        except OSError:
            return None
        if len(data) > limit:
            self.findings.append(findings_mod.make(rel, "TB109", f"larger than {limit // 1024} KiB; not read by the project index"))
            return None
        return data

    def _text(self, rel: str) -> str | None:
        data = self._read(rel, MAX_SMALL_BYTES)
        return None if data is None else data.decode("utf-8-sig", "replace")

    def import_info(self, rel: str) -> ImportInfo | None:
        """The parsed ``rel.import`` (None when there is none or it is broken)."""
        if rel not in self._imports:
            info = None
            text = self._text(rel + ".import") if self.exists(rel + ".import") else None
            if text is not None:
                try:
                    info = parse_import(text)
                except GodotSyntaxError as exc:
                    self.findings.append(findings_mod.make(rel + ".import", "TB109", f"cannot be read: {exc}"))
            self._imports[rel] = info
        return self._imports[rel]

    def uid_of(self, rel: str) -> str:
        """The uid a file has: from its ``.import``, its ``.uid``, or its own header."""
        found = self._file_uids.get(rel)
        if found is None:
            found = ""
            info = self.import_info(rel)
            if info is not None and info.uid:
                found = info.uid
            elif self.exists(rel + ".uid"):
                found = parse_uid_file(self._text(rel + ".uid") or "")
            elif rel.lower().endswith(_TEXT_RESOURCES) and self.exists(rel):
                head = self._read_head(rel)
                found = text_uid(head.decode("utf-8", "replace")) if head else ""
            elif rel.lower().endswith(_BINARY_RESOURCES) and self.exists(rel):
                head = self._read_head(rel) or b""
                if head[:4] == b"RSCC":  # compressed: the uid is in the first block
                    head = self._read_head(rel, RSCC_HEAD_BYTES) or b""
                found = binary_uid(head)
            self._file_uids[rel] = found
        return found

    def _read_head(self, rel: str, limit: int = HEADER_BYTES) -> bytes | None:
        real = self._open(rel)
        if real is None:
            return None
        try:
            with open(real, "rb") as f:
                return f.read(limit)
        except OSError:
            return None

    # projects
    def project_dir(self, rel_file: str) -> str | None:
        """The absolute folder of the project ``rel_file`` belongs to (the nearest
        ``project.godot`` above it, inside or above the scan root), or the scan root."""
        folder = posixpath.dirname(rel_file)
        chain = []
        while True:
            if folder in self._projects:
                found = self._projects[folder]
                break
            chain.append(folder)
            if os.path.isfile(os.path.join(self.root, folder, "project.godot")):
                found = os.path.normpath(os.path.join(self.real_root, folder))
                break
            if folder == "":
                found = self._above_root()
                break
            folder = posixpath.dirname(folder)
        for f in chain:
            self._projects[f] = found
        return found

    def _above_root(self) -> str:
        here = self.real_root
        while True:
            parent = os.path.dirname(here)
            if parent == here:
                return self.real_root
            if os.path.isfile(os.path.join(parent, "project.godot")):
                return parent
            here = parent

    def _from_res(self, path: str, holder_file: str) -> str | None:
        """A ``res://`` path (or a scan-root path) as a scan-root path; None outside the root."""
        if not path.startswith("res://"):
            return posixpath.normpath(path) if path else None
        project = self.project_dir(holder_file) or self.real_root
        absolute = os.path.normpath(os.path.join(project, path[len("res://"):]))
        rel = os.path.relpath(absolute, self.real_root)
        if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
            return None
        return rel.replace(os.sep, "/")

    # uids
    def _uid_table(self, project: str) -> dict[str, str]:
        """uid -> path in one project (uids are unique per project; demos copied into one
        repository share them)."""
        if self._uids is None:
            self._uids = {}
            for rel, uid in self._walk_uids():
                table = self._uids.setdefault(self.project_dir(rel) or self.real_root, {})
                other = table.setdefault(uid, rel)
                if other != rel:
                    self.findings.append(findings_mod.make(rel, "TB109", f"{uid} is also the uid of {other}; {other} is used"))
        return self._uids.get(project, {})

    def _walk_uids(self) -> Iterable[tuple[str, str]]:
        for folder, dirs, names in os.walk(self.root):
            if ".gdignore" in names:
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = os.path.relpath(folder, self.root).replace(os.sep, "/")
            base = "" if base == "." else base + "/"
            for name in sorted(names):
                rel = base + name
                if name.endswith(".import"):
                    info = self.import_info(rel[: -len(".import")])
                    if info is not None and info.uid:
                        yield rel[: -len(".import")], info.uid
                elif name.endswith(".uid"):
                    uid = parse_uid_file(self._text(rel) or "")
                    if uid:
                        yield rel[: -len(".uid")], uid
                elif name.lower().endswith(_TEXT_RESOURCES + _BINARY_RESOURCES):
                    uid = self.uid_of(rel)
                    if uid:
                        yield rel, uid

    def by_uid(self, uid: str, holder_file: str) -> str | None:
        """The file of the holder's project whose uid is ``uid``."""
        return self._uid_table(self.project_dir(holder_file) or self.real_root).get(uid)

    # the protocol (texbudget.levels.graph.Project)
    def resolve(self, target: str, holder_file: str, *, kind: str = "") -> str | None:
        """The scan-root path a target id names, or None when it cannot be known (a uid no
        file has and no fallback path, a ``res://`` path outside the scan root). A path is
        returned whether or not the file exists (the caller says it is missing)."""
        if "#" in target and not target.startswith(("res://", "uid://")):
            return target  # a part of a file: "town.tscn#mesh/0"
        uid, path = split_target(target)
        fallback = self._from_res(path, holder_file) if path else None
        if not uid:
            return fallback
        if fallback is not None and self.exists(fallback) and self.uid_of(fallback) == uid:
            return fallback  # the usual case: the path's own uid is the one written
        return self.by_uid(uid, holder_file) or fallback

    def builtin(self, target: str) -> str | None:
        """Godot has no built-in resources a scene names by id: None."""
        return None

    def explain(self, target: str, holder_file: str, *, kind: str = "") -> str:
        """Why ``target`` does not resolve: a ``res://`` path outside the scan root, or a uid no
        file of the project has ("" for anything else)."""
        uid, path = split_target(target)
        if path and self.resolve(path, holder_file) is None:
            return f"{path} is outside the scan root (scan from the project's root)"
        if uid:
            return f"{uid} is the uid of no file of the project (.import, .uid or a resource's header)"
        return ""

    def material_remap(self, material_id: str) -> str | None:
        """The file that replaces a glTF's own material ``file.glb#material/N``, when the
        glTF's ``.import`` extracts that material; None otherwise."""
        file = file_of(material_id)
        m = re.search(r"#material/(\d+)$", material_id)
        if m is None or not file.lower().endswith((".glb", ".gltf")):
            return None
        info = self.import_info(file)
        if info is None or not info.external_materials:
            return None
        names = self._gltf_names.get(file, ())
        if names == ():
            data = self._read(file, MAX_GLTF_JSON_BYTES) if self.exists(file) else None
            names = gltf_material_names(data) if data is not None else None
            self._gltf_names[file] = names
        index = int(m.group(1))
        if not names or index >= len(names):
            return None
        for name, target in info.external_materials:
            if name == names[index]:
                return self.resolve(target, file)
        return None

    def main_scene(self, project: str = "") -> str | None:
        """The main scene of the project whose ``project.godot`` is in folder ``project``
        (scan-root relative; "" the root), as a scan-root path; None when it names none."""
        rel = posixpath.join(project, "project.godot") if project else "project.godot"
        text = self._text(rel) if self.exists(rel) else None
        if text is None:
            return None
        try:
            scene = parse_project(text)
        except GodotSyntaxError as exc:
            self.findings.append(findings_mod.make(rel, "TB109", f"cannot be read: {exc}"))
            return None
        return self.resolve(scene, rel) if scene else None

    def projects(self) -> tuple[str, ...]:
        """The folders (scan-root relative, "" the root) holding a ``project.godot``."""
        found = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if "project.godot" in names:
                rel = os.path.relpath(folder, self.root).replace(os.sep, "/")
                found.append("" if rel == "." else rel)
        return tuple(sorted(found))
