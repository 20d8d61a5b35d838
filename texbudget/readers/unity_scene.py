"""Unity scenes (``.unity``), prefabs (``.prefab``) and materials (``.mat``) as the engine
loads them: what each file references, as ``SceneRef`` edges (docs/levels.md).

Unity writes these files in its YAML subset ("UnityYAML", with Asset Serialization set to Force
Text): ``%YAML 1.1`` and ``%TAG !u! tag:unity3d.com,2011:``, then one document per object,
``--- !u!<classID> &<fileID>`` (`` stripped`` for a placeholder of an object inside a prefab
instance), the class name on the next line and its fields two spaces in. References are flow
mappings, ``{fileID: F, guid: G, type: T}``, which Unity wraps onto the next line when long;
``{fileID: F}`` alone is an object of the same file, ``{fileID: 0}`` none. No YAML library
(PyYAML's C loader takes 50 times as long): one regex pass (``_FAST``) takes the fields of the
four classes most of a scene is where Unity writes them, finds the headers of the other
documents needed, and skips the rest (MonoBehaviours, colliders, …) by their header; a scene
of tens of megabytes reads at 40-100 MB/s (benchmarks/unity_scene.py).

What a scene or prefab gives (holder: the file itself):

- a ``PrefabInstance`` (1001): an "instance" edge to its ``m_SourcePrefab`` (count 1; a prefab
  whose root is one is a prefab variant, an instance of its base). Its ``m_Modifications`` that
  set ``m_Materials.Array.data[i]`` or ``m_Mesh`` add a "material" / "mesh" edge for the new
  asset; the prefab's own asset is still counted by the resolver (not modelled: which object
  inside the prefab the override replaces), and so are removed components and GameObjects. A
  TB113 note says so. Unity before 2018.3 wrote a ``Prefab`` (also 1001) beside a full copy of
  every instance's objects: that copy is read, the ``Prefab`` is not followed.
- a ``MeshFilter`` (33) and the renderer of the same GameObject (``MeshRenderer`` 23): one "mesh"
  edge, ``surfaces`` = the renderer's ``m_Materials`` ("" for an empty slot); a
  ``SkinnedMeshRenderer`` (137) with its own ``m_Mesh`` likewise. ``where`` is the GameObject's
  path in the Transform (4) / RectTransform (224) hierarchy, ``Town/Market/Barrel``; an object
  of a prefab instance is named by the instance. A renderer without a mesh, and the
  ``ParticleSystemRenderer``, ``SpriteRenderer``, ``LineRenderer`` and ``TrailRenderer``, give
  "material" edges; a ``SpriteRenderer``'s ``m_Sprite`` and a ``Light``'s ``m_Cookie`` "texture"
  edges; a scene's ``RenderSettings`` its skybox material.
- Disabled renderers and inactive GameObjects count: Unity loads every asset a scene references.

Not modelled (left for later, said here so nothing is silently lost): meshes and materials
stored inside the file itself (ProBuilder, script-made; a TB114 note counts them), mesh
colliders (physics, not VRAM), particle meshes, terrains, lightmaps and reflection probes (in
``LightingData.asset``), UI images and any asset a script's fields reference.

A material gives a "texture" edge per texture slot of ``m_SavedProperties.m_TexEnvs`` (both the
``- _MainTex:`` lists of Unity 5.6 on and the ``data: first: name:`` maps before), ``slot`` the
property name; Unity keeps slots a previous shader set, and so does this reader. A material
variant (``m_Parent``, Unity 2022.1 on) adds a "material" edge to its parent: it inherits the
parent's textures (a slot it overrides is still counted for the parent).

Ids are written as the file writes them: ``unity:<guid>:<fileID>``; the project index
(``texbudget.levels.unity``) turns them into paths. Never raises for a bad file: a binary
(not Force Text) file is TB110 (a warning: the file is fine, only not readable here), a file
that is no Unity YAML TB111, a document or reference
that cannot be read TB112 (the rest is read).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator

from texbudget import findings
from texbudget.model import Finding, ReadResult, SceneFacts, SceneRef
from texbudget.readers import Source

#: Scenes of a few hundred megabytes exist (big open worlds with everything in one file);
#: past this a file is not read whole.
MAX_BYTES = 512 * 1024 * 1024
#: Problems a TB112 finding lists by name (it counts the rest).
_SHOWN = 3
#: A Transform hierarchy deeper than this is a cycle or hostile.
_MAX_DEPTH = 4096
#: Unity's fileIDs are signed 64-bit integers.
_INT64 = 1 << 63

# Class IDs (Unity's YAML Class ID Reference).
_GAME_OBJECT, _TRANSFORM, _RECT_TRANSFORM = 1, 4, 224
_MESH_FILTER, _MESH_RENDERER, _SKINNED = 33, 23, 137
_PREFAB_INSTANCE, _RENDER_SETTINGS, _LIGHT, _MATERIAL = 1001, 104, 108, 21
#: Renderers whose materials are loaded but that place no mesh of a MeshFilter.
_OTHER_RENDERERS = {199: "ParticleSystemRenderer", 212: "SpriteRenderer", 120: "LineRenderer", 96: "TrailRenderer"}
_CLASS_NAMES = {_GAME_OBJECT: "GameObject", _TRANSFORM: "Transform", _RECT_TRANSFORM: "RectTransform",
                _MESH_FILTER: "MeshFilter", _MESH_RENDERER: "MeshRenderer", _SKINNED: "SkinnedMeshRenderer",
                _PREFAB_INSTANCE: "PrefabInstance", _RENDER_SETTINGS: "RenderSettings", _LIGHT: "Light", **_OTHER_RENDERERS}
_SCENE_CLASSES = (_GAME_OBJECT, _TRANSFORM, _RECT_TRANSFORM, _MESH_FILTER, _MESH_RENDERER, _SKINNED,
                  _PREFAB_INSTANCE, _RENDER_SETTINGS, _LIGHT, *_OTHER_RENDERERS)


def _headers(classes: tuple[int, ...]) -> re.Pattern[bytes]:
    """Headers of the documents of ``classes``: ``\\n--- !u!<class> &<fileID><rest>\\n``."""
    alternatives = b"|".join(str(c).encode() for c in sorted(classes, key=lambda c: -len(str(c))))
    return re.compile(rb"\n--- !u!(" + alternatives + rb") &(-?\d{1,20})([^\n]*)\n")


_MATERIAL_HEADERS = _headers((_MATERIAL,))
_ANY_HEADER = re.compile(rb"\n--- !u!\d{1,10} &-?\d{1,20}(?: stripped)?\n")
_SEPARATOR = b"\n--- "
_DOC_START = b"\n--- !u!"

_REF_TEXT = rb"\{\s*fileID:\s*(-?\d{1,20})\s*(?:,\s*guid:\s*([0-9A-Fa-f]{32})\s*)?(?:,\s*type:\s*-?\d{1,9}\s*)?\}"
_REF = re.compile(_REF_TEXT)
_ITEM = re.compile(rb"\n  - " + _REF_TEXT)
#: A modification of a prefab instance's name, mesh or materials (Unity 2020 on quotes a path
#: with brackets: ``'m_Materials.Array.data[0]'``).
_MODIFIED = re.compile(rb"\n      propertyPath: (['\"]?)(m_Name|m_Mesh|m_Materials\.Array\.data\[\d{1,9}\])\1[ \t]*\n")
_REMOVED = re.compile(rb"\n    (m_RemovedComponents|m_RemovedGameObjects):[ \t]*\n((?:    - [^\n]*\n(?:      [^\n]*\n)*)+)")

#: The one pass over a scene: at every ``\n--- `` either a document of the four classes most
#: of a scene is (GameObject, Transform/RectTransform, MeshFilter, MeshRenderer) with the fields
#: needed, where Unity writes them (``go``, ``tf``, ``mf``, ``mr``: one C-speed match, no Python
#: per line); or the header of another document to read (``doc``: the other classes, stripped
#: placeholders, and any of the four laid out otherwise, read field by field); or a header that
#: is not one Unity writes (``bad``). Headers of the classes not needed match nothing. A match
#: never takes the newline that starts the next document.
_LINES = rb"(?:  [^\n]*\n)*?"  # the fields before the one wanted (none is a document separator)
_FAST = re.compile(
    rb"\n--- (?:!u!(?:"
    rb"1 &(?P<go_id>-?\d{1,20})\nGameObject:\n" + _LINES + rb"  m_Name:(?P<go_name>[^\n]*)(?P<go>)"
    rb"|(?:4|224) &(?P<tf_id>-?\d{1,20})\n(?:Rect)?Transform:\n" + _LINES + rb"  m_GameObject: \{fileID: (?P<tf_go>-?\d{1,20})\}\n"
    + _LINES + rb"  m_Father: \{fileID: (?P<tf_father>-?\d{1,20})\}(?=\n)(?P<tf>)"
    rb"|33 &(?P<mf_id>-?\d{1,20})\nMeshFilter:\n" + _LINES + rb"  m_GameObject: \{fileID: (?P<mf_go>-?\d{1,20})\}\n  m_Mesh: "
    rb"\{fileID: (?P<mf_mesh>-?\d{1,20})(?:,\s*guid: (?P<mf_guid>[0-9A-Fa-f]{32}))?(?:,\s*type: -?\d{1,9})?\}(?=\n)(?P<mf>)"
    rb"|23 &(?P<mr_id>-?\d{1,20})\nMeshRenderer:\n" + _LINES + rb"  m_GameObject: \{fileID: (?P<mr_go>-?\d{1,20})\}\n"
    + _LINES + rb"  m_Materials:(?P<mr_items>(?: \[\])?(?:\n  - [^\n]*(?:\n    [^\n]*)*)*)(?=\n)(?P<mr>)"
    rb"|(?P<doc_class>" + b"|".join(str(c).encode() for c in sorted(_SCENE_CLASSES, key=lambda c: -len(str(c))))
    + rb") &(?P<doc_id>-?\d{1,20})(?P<doc_rest>[^\n]*)\n(?P<doc>)"
    rb")|(?!!u!\d{1,10} &-?\d{1,20}(?: stripped)?\n)[^\n]{0,60}(?P<bad>))")
#: An item of a MeshRenderer's m_Materials as ``_FAST`` found them: (fileID, guid).
_ITEM_IDS = re.compile(rb"\n  - \{fileID: (-?\d{1,20})(?:,\s*guid: ([0-9A-Fa-f]{32}))?(?:,\s*type: -?\d{1,9})?\}")


#: A reference: (fileID, guid or None for an object of the same file).
_Ref = tuple[int, str | None]


class _Problems:
    """What could not be read, for one TB112 finding."""

    def __init__(self) -> None:
        self.count = 0
        self.shown: list[str] = []

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.shown) < _SHOWN:
            self.shown.append(message)

    def finding(self, rel: str) -> Finding | None:
        if not self.count:
            return None
        more = f"; and {self.count - len(self.shown)} more" if self.count > len(self.shown) else ""
        return findings.make(rel, "TB112", f"{self.count} part{'s' if self.count != 1 else ''} could not be read and "
                             f"{'were' if self.count != 1 else 'was'} skipped: {'; '.join(self.shown)}{more}")


def _target(ref: _Ref) -> str:
    return f"unity:{ref[1]}:{ref[0]}"


def _ref_at(body: bytes, key: bytes, problems: _Problems, what: str) -> _Ref | None:
    """The reference after ``key`` (``b"\\n  m_Mesh: "``), None when the key is absent or the
    reference is ``{fileID: 0}``."""
    at = body.find(key)
    if at < 0:
        return None
    return _ref_from(_REF.match(body, at + len(key)), body, at + len(key), problems, what)


def _ref_from(m: re.Match[bytes] | None, body: bytes, at: int, problems: _Problems, what: str) -> _Ref | None:
    if m is None:
        problems.add(f"{what}: not a reference: {_excerpt(body[at : at + 60])}")
        return None
    file_id = int(m.group(1))
    if not -_INT64 <= file_id < _INT64:
        problems.add(f"{what}: fileID {file_id} is not a 64-bit integer")
        return None
    if file_id == 0:
        return None
    guid = m.group(2)
    return file_id, guid.decode("ascii") if guid is not None else None


def _excerpt(raw: bytes) -> str:
    text = raw.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def _scalar(body: bytes, key: bytes) -> str | None:
    """The plain or quoted scalar after ``key`` (to the end of its line), None when absent."""
    at = body.find(key)
    if at < 0:
        return None
    start = at + len(key)
    end = body.find(b"\n", start)
    return _unquote((body[start:] if end < 0 else body[start:end]).strip())


def _unescape(text: str) -> str:
    """A YAML double-quoted scalar's escapes (``\\"``, ``\\\\``, ``\\n``, ``\\t``, ``\\uXXXX``)."""
    if "\\" not in text:
        return text
    simple = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " "}

    def one(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "xuU":
            try:
                return chr(int(s[1:], 16))
            except (ValueError, OverflowError):
                return m.group(0)
        return simple.get(s, m.group(0))

    return re.sub(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", one, text)


def _materials(body: bytes, problems: _Problems, what: str) -> list[_Ref | None] | None:
    """A renderer's ``m_Materials`` list (None for an empty slot), None when it has none."""
    key = b"\n  m_Materials:"
    at = body.find(key)
    if at < 0:
        return None
    out: list[_Ref | None] = []
    pos = at + len(key)
    while True:
        m = _ITEM.match(body, pos)
        if m is None:
            if body.startswith(b"\n  - ", pos):  # an item that is no reference
                problems.add(f"{what}: m_Materials item is not a reference: {_excerpt(body[pos + 5 : pos + 65])}")
                nl = body.find(b"\n", pos + 1)
                if nl < 0:
                    break
                pos = nl
                out.append(None)
                continue
            break
        out.append(_ref_from(m, body, m.start(1), problems, what))
        pos = m.end()
    return out


def _load(src: Source, what: str) -> tuple[bytes, None] | tuple[None, Finding]:
    """The file's bytes, LF line ends, starting with a newline before its first document; or
    the finding that says why it is not a Unity text file."""
    size = src.size()
    if size > MAX_BYTES:
        return None, findings.make(src.rel, "TB111", f"{size:,} bytes: larger than texbudget reads ({MAX_BYTES // 2**20} MiB); not read")
    with src.open() as f:
        data = f.read(size + 1)  # the size the file system gives, not one the file claims
    if len(data) > MAX_BYTES:
        return None, findings.make(src.rel, "TB111", f"{len(data):,} bytes: larger than texbudget reads ({MAX_BYTES // 2**20} MiB); not read")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        return None, findings.make(src.rel, "TB111", f"the file is empty: no Unity {what}")
    if not data.startswith((b"%YAML", b"--- !u!")):
        if data.startswith(b"MATLAB") and what == "material":  # .mat is MATLAB's suffix too
            return None, findings.make(src.rel, "TB002", ".mat: a MATLAB data file, not a Unity material; not read")
        if _serialized_file(data):
            return None, findings.make(src.rel, "TB110", f"binary serialization: Unity wrote this {what} in its binary format, which texbudget does not read")
        if b"\0" in data[:1024]:
            return None, findings.make(src.rel, "TB111", f"not a Unity text {what}: binary content, and no Unity serialized-file header")
        return None, findings.make(src.rel, "TB111", f"not a Unity text {what}: it does not start with '%YAML' ({_excerpt(data[:60])})")
    if b"\r\n" in data[:65536]:
        data = data.replace(b"\r\n", b"\n")
    if data.startswith(b"--- "):
        data = b"\n" + data
    if data.find(_DOC_START) < 0:
        return None, findings.make(src.rel, "TB111", f"no Unity object in the file ('--- !u!' documents): an empty or cut {what}")
    return data, None


def _serialized_file(data: bytes) -> bool:
    """``data`` starts with the header of Unity's binary serialized file: big-endian metadata
    size, file size, format version (9 on) and data offset, and from version 22 a second
    metadata size and 64-bit file size and offset; the file size is the file's (the check
    AssetStudio and its ports make)."""
    if len(data) < 20:
        return False
    _meta, size, version, offset = struct.unpack_from(">IIII", data)
    if version >= 22:
        if len(data) < 48:
            return False
        size, offset = struct.unpack_from(">qq", data, 24)
    return 9 <= version < 1000 and size == len(data) and offset <= len(data)


def _documents(data: bytes, headers: re.Pattern[bytes], problems: _Problems) -> Iterator[tuple[int, int, bool, bytes]]:
    """(classID, fileID, stripped, body) of every document whose header ``headers`` matches;
    the body runs from the class name's line to the next document."""
    for m in headers.finditer(data):
        start = m.end()
        end = data.find(_SEPARATOR, start - 1)
        body = data[start:] if end < 0 else data[start:end]
        file_id = int(m.group(2))
        rest = m.group(3)
        if not -_INT64 <= file_id < _INT64 or rest not in (b"", b" stripped"):
            problems.add(f"document header {_excerpt(data[m.start() + 1 : m.end()])} is not one Unity writes")
            continue
        yield int(m.group(1)), file_id, rest == b" stripped", body


def _check_headers(data: bytes, problems: _Problems) -> None:
    """Every ``---`` line is a well-formed document header (counted, not parsed)."""
    separators = data.count(_SEPARATOR)
    good = sum(1 for _ in _ANY_HEADER.finditer(data))
    if good < separators:
        problems.add(f"{separators - good} document header{'s' if separators - good != 1 else ''} not of the form '--- !u!<classID> &<fileID>'")


# --- scenes and prefabs ---------------------------------------------------------------------



class _Scene:
    """The objects of one scene or prefab file that say what it loads, gathered document by
    document; ``edges`` builds the SceneRefs once every Transform is known (a component may
    come before its GameObject's Transform in the file)."""

    def __init__(self, rel: str, problems: _Problems) -> None:
        self.rel = rel
        self.problems = problems
        self.names: dict[int, str] = {}  # GameObject -> m_Name
        self.transform_of: dict[int, int] = {}  # GameObject -> its Transform
        self.game_object: dict[int, int] = {}  # Transform -> its GameObject
        self.father: dict[int, int] = {}  # Transform -> parent Transform (0: a root)
        self.in_instance: dict[int, int] = {}  # stripped object -> its PrefabInstance
        self.instances: dict[int, tuple[int, str]] = {}  # PrefabInstance -> (parent Transform, name)
        self.filters: dict[int, _Ref | None] = {}  # GameObject -> its MeshFilter's mesh
        self.renderers: dict[int, tuple[list[_Ref | None], _Ref | None, bool]] = {}  # GO -> (materials, own mesh, skinned)
        self.order: dict[int, None] = {}  # GameObjects with a filter or renderer, first seen first
        # (where: ("go", id) / ("instance", id) / ("", text), kind, target, surfaces, slot)
        self.pending: list[tuple[tuple[str, int | str], str, str, tuple[str, ...], str]] = []
        self.paths: dict[int, str] = {}  # Transform -> path
        self.overrides = 0  # material and mesh overrides of prefab instances
        self.overriding = 0  # prefab instances with at least one
        self.removed = 0  # removed components and GameObjects of prefab instances
        self.inside = 0  # references to meshes or materials stored in this file

    # --- documents

    def add(self, cls: int, file_id: int, stripped: bool, body: bytes) -> None:
        what = f"{_CLASS_NAMES.get(cls, f'class {cls}')} &{file_id}"
        if stripped:
            ref = _ref_at(body, b"\n  m_PrefabInstance: ", self.problems, what)
            if ref is not None:
                self.in_instance[file_id] = ref[0]
            return
        if cls == _GAME_OBJECT:
            self.names[file_id] = _scalar(body, b"\n  m_Name:") or ""
        elif cls in (_TRANSFORM, _RECT_TRANSFORM):
            go = self.component(body, what)
            if go is not None:
                self.game_object[file_id] = go
                self.transform_of[go] = file_id
            father = _ref_at(body, b"\n  m_Father: ", self.problems, what)
            self.father[file_id] = father[0] if father is not None else 0
        elif cls == _MESH_FILTER:
            go = self.component(body, what)
            if go is not None:
                self.filters[go] = self.asset(_ref_at(body, b"\n  m_Mesh: ", self.problems, what))
                self.order[go] = None
        elif cls in (_MESH_RENDERER, _SKINNED):
            go = self.component(body, what)
            if go is not None:
                materials = _materials(body, self.problems, what) or []
                mesh = self.asset(_ref_at(body, b"\n  m_Mesh: ", self.problems, what)) if cls == _SKINNED else None
                self.renderers[go] = (materials, mesh, cls == _SKINNED)
                self.order[go] = None
        elif cls in _OTHER_RENDERERS:
            go = self.component(body, what)
            if go is not None:
                for ref in _materials(body, self.problems, what) or []:
                    self.later(("go", go), "material", ref)
                if cls == 212:
                    self.later(("go", go), "texture", _ref_at(body, b"\n  m_Sprite: ", self.problems, what), slot="m_Sprite")
        elif cls == _LIGHT:
            go = self.component(body, what)
            if go is not None:
                self.later(("go", go), "texture", _ref_at(body, b"\n  m_Cookie: ", self.problems, what), slot="m_Cookie")
        elif cls == _RENDER_SETTINGS:
            self.later(("", "RenderSettings"), "material", _ref_at(body, b"\n  m_SkyboxMaterial: ", self.problems, what))
        elif cls == _PREFAB_INSTANCE and body.startswith(b"PrefabInstance:"):
            self.prefab_instance(file_id, body, what)
        # a "Prefab:" (1001 before Unity 2018.3) comes with a full copy of its objects: read them instead

    def component(self, body: bytes, what: str) -> int | None:
        ref = _ref_at(body, b"\n  m_GameObject: ", self.problems, what)
        if ref is None:
            self.problems.add(f"{what} names no GameObject")
            return None
        return ref[0]

    def asset(self, ref: _Ref | None) -> _Ref | None:
        """``ref`` when it names an object of an asset file; one of this file (a mesh that
        ProBuilder or a script stored in the scene) is counted for the TB114 note."""
        if ref is not None and ref[1] is None:
            self.inside += 1
            return None
        return ref

    def later(self, where: tuple[str, int | str], kind: str, ref: _Ref | None, slot: str = "",
              surfaces: tuple[str, ...] = ()) -> None:
        ref = self.asset(ref)
        if ref is not None:
            self.pending.append((where, kind, _target(ref), surfaces, slot))

    def prefab_instance(self, file_id: int, body: bytes, what: str) -> None:
        source = _ref_at(body, b"\n  m_SourcePrefab: ", self.problems, what)
        if source is None or source[1] is None:
            self.problems.add(f"{what} has no m_SourcePrefab asset")
        else:
            self.pending.append((("instance", file_id), "instance", _target(source), (), ""))
        parent = _ref_at(body, b"\n    m_TransformParent: ", self.problems, what)
        name = ""
        overrides = 0
        for m in _MODIFIED.finditer(body):
            nxt = body.find(b"\n    - target: ", m.end())
            entry = body[m.end() - 1 : nxt if nxt >= 0 else len(body)]
            prop = m.group(2)
            if prop == b"m_Name":
                name = name or (_scalar(entry, b"\n      value:") or "")
                continue
            ref = _ref_at(entry, b"\n      objectReference: ", self.problems, f"{what} {prop.decode()}")
            if ref is not None:
                overrides += 1
                self.later(("instance", file_id), "mesh" if prop == b"m_Mesh" else "material", ref)
        if b"\n    m_RemovedComponents:\n" in body or b"\n    m_RemovedGameObjects:\n" in body:
            for m in _REMOVED.finditer(body):
                self.removed += m.group(2).count(b"\n    - ") + 1
        self.overrides += overrides
        self.overriding += overrides > 0
        self.instances[file_id] = (parent[0] if parent is not None else 0, name or f"(prefab instance &{file_id})")

    # --- paths

    def transform_path(self, transform: int) -> str:
        """The path of a Transform's GameObject from the root (``Town/Market/Barrel``); an
        object inside a prefab instance is named by the instance."""
        parts: list[tuple[int, str]] = []
        seen: set[int] = set()
        current, base = transform, ""
        while current:
            known = self.paths.get(current)
            if known is not None:
                base = known
                break
            if current in seen or len(seen) >= _MAX_DEPTH:
                self.problems.add(f"the Transform hierarchy loops (or is deeper than {_MAX_DEPTH}) at &{current}")
                base = "…"
                break
            seen.add(current)
            instance = self.in_instance.get(current)
            if instance is not None:
                parent, name = self.instances.get(instance, (0, f"(prefab instance &{instance})"))
                parts.append((current, name))
                current = parent
            else:
                parts.append((current, self.names.get(self.game_object.get(current, 0), "?")))
                current = self.father.get(current, 0)
        path = base
        for t, name in reversed(parts):
            path = f"{path}/{name}" if path else name
            self.paths[t] = path
        return path

    def where(self, where: tuple[str, int | str]) -> str:
        kind, key = where
        if kind == "":
            return str(key)
        assert isinstance(key, int)
        if kind == "go":
            if key in self.in_instance:
                return self.where(("instance", self.in_instance[key]))
            transform = self.transform_of.get(key)
            return self.transform_path(transform) if transform is not None else self.names.get(key, "?")
        parent, name = self.instances.get(key, (0, f"(prefab instance &{key})"))
        base = self.transform_path(parent) if parent and self.in_instance.get(parent) != key else ""
        return f"{base}/{name}" if base else name

    # --- the edges

    def edges(self) -> tuple[SceneRef, ...]:
        out: list[SceneRef] = []
        rel, renderers, filters, paths = self.rel, self.renderers, self.filters, self.paths
        none: tuple[list[_Ref | None], _Ref | None, bool] = ([], None, False)
        for go in self.order:
            materials, own_mesh, skinned = renderers.get(go, none)
            mesh = own_mesh if skinned else filters.get(go)
            if mesh is None and not any(r is not None for r in materials):
                continue
            transform = self.transform_of.get(go)
            if go in self.in_instance or transform is None:
                where = self.where(("go", go))
            else:
                where = paths.get(transform) or self.transform_path(transform)
            if mesh is not None:
                surfaces = tuple(f"unity:{r[1]}:{r[0]}" if r is not None and r[1] is not None else "" for r in materials)
                self.inside += sum(1 for r in materials if r is not None and r[1] is None)
                out.append(SceneRef(holder=rel, target=f"unity:{mesh[1]}:{mesh[0]}", kind="mesh", surfaces=surfaces, where=where))
            else:
                for ref in materials:
                    ref = self.asset(ref)
                    if ref is not None:
                        out.append(SceneRef(holder=rel, target=_target(ref), kind="material", where=where))
        for place, kind, target, surfaces, slot in self.pending:
            out.append(SceneRef(holder=rel, target=target, kind=kind, surfaces=surfaces, slot=slot, where=self.where(place)))
        return tuple(out)

    def notes(self) -> list[Finding]:
        out = []
        if self.overrides or self.removed:
            parts = []
            if self.overrides:
                parts.append(f"{self.overriding} prefab instance{'s' if self.overriding != 1 else ''} override{'' if self.overriding != 1 else 's'} "
                             f"{self.overrides} material{'s' if self.overrides != 1 else ''} or mesh{'es' if self.overrides != 1 else ''}: "
                             "the overriding assets are counted as well as the prefab's own")
            if self.removed:
                parts.append(f"{self.removed} component{'s' if self.removed != 1 else ''} or GameObject{'s' if self.removed != 1 else ''} "
                             "removed from prefab instances still count")
            out.append(findings.make(self.rel, "TB113", "; ".join(parts) + " (an overestimate where nothing else uses them)"))
        if self.inside:
            out.append(findings.make(self.rel, "TB114", f"{self.inside} reference{'s' if self.inside != 1 else ''} to meshes or "
                                     "materials stored inside this file (made by ProBuilder or a script) are not priced"))
        return out


_G = _FAST.groupindex
_GO, _TF, _MF, _MR, _DOC = _G["go"], _G["tf"], _G["mf"], _G["mr"], _G["doc"]
_GO_FIELDS = (_G["go_id"], _G["go_name"])
_TF_FIELDS = (_G["tf_id"], _G["tf_go"], _G["tf_father"])
_MF_FIELDS = (_G["mf_id"], _G["mf_go"], _G["mf_mesh"], _G["mf_guid"])
_MR_FIELDS = (_G["mr_id"], _G["mr_go"], _G["mr_items"])
_DOC_FIELDS = (_G["doc_class"], _G["doc_id"], _G["doc_rest"])


def _read_documents(data: bytes, scene: _Scene) -> None:
    """Every document ``_FAST`` finds, into ``scene``: the common ones from the match, the
    others (and a common one that does not fit the pattern) through ``_Scene.add``."""
    names, game_object, transform_of, father = scene.names, scene.game_object, scene.transform_of, scene.father
    filters, renderers, order = scene.filters, scene.renderers, scene.order
    bad = 0
    for m in _FAST.finditer(data):
        kind = m.lastindex
        if kind == _GO:
            file_id, raw = m.group(*_GO_FIELDS)
            raw = raw.strip()
            names[int(file_id)] = raw.decode("utf-8", "replace") if raw[:1] not in (b"'", b'"') else _unquote(raw)
        elif kind == _TF:
            tf_text, go_text, father_text = m.group(*_TF_FIELDS)
            tf, go = int(tf_text), int(go_text)
            game_object[tf] = go
            transform_of[go] = tf
            father[tf] = int(father_text)
        elif kind == _MF:
            mf, go_text, mesh_text, guid = m.group(*_MF_FIELDS)
            mesh_id = int(mesh_text)
            if not -_INT64 <= mesh_id < _INT64:
                scene.add(33, int(mf), False, _body(data, m))
                continue
            go = int(go_text)
            if mesh_id and not guid:
                scene.inside += 1
            filters[go] = (mesh_id, guid.decode("ascii")) if mesh_id and guid else None
            order[go] = None
        elif kind == _MR:
            mr, go_text, items = m.group(*_MR_FIELDS)
            found = _ITEM_IDS.findall(items)
            if len(found) != items.count(b"\n  - ") or any(len(f) > 18 and not -_INT64 <= int(f) < _INT64 for f, _ in found):
                scene.add(23, int(mr), False, _body(data, m))  # an item that is no reference: said there
                continue
            go = int(go_text)
            renderers[go] = ([(int(f), g.decode("ascii") if g else None) if f != b"0" else None for f, g in found], None, False)
            order[go] = None
        elif kind == _DOC:
            cls, id_text, rest = m.group(*_DOC_FIELDS)
            file_id = int(id_text)
            if not -_INT64 <= file_id < _INT64 or rest not in (b"", b" stripped"):
                scene.problems.add(f"document header {_excerpt(m.group(0)[1:])} is not one Unity writes")
                continue
            scene.add(int(cls), file_id, rest == b" stripped", _body(data, m))
        else:
            bad += 1
    if bad:
        scene.problems.add(f"{bad} document header{'s' if bad != 1 else ''} not of the form '--- !u!<classID> &<fileID>'")


def _body(data: bytes, m: re.Match[bytes]) -> bytes:
    """The document a ``_FAST`` match starts: from its class name's line to the next document."""
    start = data.index(b"\n", m.start() + 1) + 1
    end = data.find(_SEPARATOR, start - 1)
    return data[start:] if end < 0 else data[start:end]


def _unquote(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return _unescape(text[1:-1])
    return text


def read_unity_scene(src: Source) -> ReadResult:
    """A ``.unity`` scene or ``.prefab``: its SceneRef edges (role "scene")."""
    data, failed = _load(src, "scene" if src.suffix == ".unity" else "prefab")
    if data is None:
        return ReadResult(findings=(failed,) if failed is not None else ())
    problems = _Problems()
    scene = _Scene(src.rel, problems)
    _read_documents(data, scene)
    refs = scene.edges()
    notes = scene.notes()
    problem = problems.finding(src.rel)
    return ReadResult(scenes=(SceneFacts(path=src.rel, refs=refs, role="scene"),),
                      findings=tuple(notes) + ((problem,) if problem is not None else ()))


# --- materials ------------------------------------------------------------------------------

#: In ``m_TexEnvs``: a slot (``    - _MainTex:``; ``name: _MainTex`` before Unity 5.6) or its texture.
_TEX_ENV = re.compile(rb"\n(?:    - first: \{name: ([^}\n]{1,200})\}|    - first: ([^{\n][^\n]{0,199})|    - ([^\n:]{1,200}):[ \t]*(?=\n)"
                      rb"|[ ]{6,12}name: ([^\n]{1,200})|[ ]{6,12}m_Texture: )")
_TEX_ENVS = b"\n    m_TexEnvs:"
#: The end of ``m_TexEnvs``: the next key four spaces in or less.
_SECTION_END = re.compile(rb"\n {0,4}(?! |- )[^\n]")


def _texture_slots(body: bytes, rel: str, problems: _Problems, what: str) -> tuple[list[SceneRef], int]:
    """"texture" edges of a Material's ``m_TexEnvs``, and the count of textures of the same file."""
    at = body.find(_TEX_ENVS)
    if at < 0:
        return [], 0
    start = at + len(_TEX_ENVS)
    end_m = _SECTION_END.search(body, start)
    end = end_m.start() if end_m else len(body)
    out: list[SceneRef] = []
    inside = 0
    slot = ""
    for m in _TEX_ENV.finditer(body, start, end):
        if m.lastindex:
            slot = (m.group(m.lastindex) or b"").decode("utf-8", "replace").strip().strip("'\"")
            continue
        ref = _ref_from(_REF.match(body, m.end()), body, m.end(), problems, f"{what} {slot or 'texture'}")
        if ref is None:
            continue
        if ref[1] is None:
            inside += 1
            continue
        out.append(SceneRef(holder=rel, target=_target(ref), kind="texture", slot=slot))
    return out, inside


def read_unity_material(src: Source) -> ReadResult:
    """A ``.mat``: a "texture" edge per texture slot (role "resource")."""
    data, failed = _load(src, "material")
    if data is None:
        return ReadResult(findings=(failed,) if failed is not None else ())
    problems = _Problems()
    _check_headers(data, problems)
    refs: list[SceneRef] = []
    inside = materials = 0
    for _cls, file_id, _stripped, body in _documents(data, _MATERIAL_HEADERS, problems):
        materials += 1
        what = f"Material &{file_id}"
        parent = _ref_at(body, b"\n  m_Parent: ", problems, what)
        if parent is not None and parent[1] is not None:
            refs.append(SceneRef(holder=src.rel, target=_target(parent), kind="material", where="m_Parent"))
        slots, n = _texture_slots(body, src.rel, problems, what)
        refs += slots
        inside += n
    if not materials:
        return ReadResult(findings=(findings.make(src.rel, "TB111", "no Material (class 21) in the file: not a Unity material"),))
    notes = [findings.make(src.rel, "TB114", f"{inside} texture{'s' if inside != 1 else ''} stored inside this file "
                           "are not priced")] if inside else []
    problem = problems.finding(src.rel)
    return ReadResult(scenes=(SceneFacts(path=src.rel, refs=tuple(refs), role="resource"),),
                      findings=tuple(notes) + ((problem,) if problem is not None else ()))
