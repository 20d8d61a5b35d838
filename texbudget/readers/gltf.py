"""glTF 2.0 (.gltf, .glb): meshes, images, materials and the node graph, from the JSON and the
accessor declarations. Vertex and index buffers are never decoded.

What is read:

- **Meshes** (``file#mesh/N``): per primitive the vertex count (its POSITION accessor), every
  attribute (component type, components, count, bytes), indices, the draw mode's triangles
  (list n/3, strip and fan n−2, points and lines 0), morph targets. Bytes are the accessor's
  typed-array length, ``count × components × component size`` (glTF-Transform's
  ``getArray().byteLength``; a bufferView's byteStride does not change it). A mesh's
  ``vertex_bytes`` / ``index_bytes`` / ``morph_bytes`` count each accessor once, so their sum is
  glTF-Transform ``inspect``'s mesh size; ``vertices`` counts each POSITION accessor once.
  KHR_draco_mesh_compression and EXT_meshopt_compression are priced at their decoded size:
  the accessor declarations give the decoded counts and types.
- **Buffers** are checked, not read: a .bin's size (stat) against its declared byteLength,
  bufferViews against their buffer, accessors against their bufferView (byteStride and matrix
  column padding included). A data: URI buffer is base64-checked (bounded by the JSON cap).
  A mesh whose accessor lies past its data is not priced; a buffer that is missing or refused
  is a finding, and its meshes are still priced from their declarations.
- **Images** in a bufferView or a data: URI are read in place through ``readers.read_bytes``
  as ``file#image/N``. An external image is not read here: its identity is its own path
  relative to the scan root, and the scan reads it as a file.
- **Scene graph**: nodes walked once, iteratively, over the default scene (all scenes when
  none is set, all root nodes when there are no scenes). A mesh used by 40 nodes has 40
  instances; EXT_mesh_gpu_instancing multiplies by its instance count. A node with a skin makes
  its mesh skinned. LODs come from MSFT_lod (LOD0 is the node's mesh) or ``_LODn`` names.
- **Materials**: every ``*Texture`` slot of the core material and its extensions, resolved
  through the texture's source (KHR_texture_basisu, EXT_texture_webp, EXT_texture_avif and
  MSFT_texture_dds preferred over the fallback ``source``) to the image's identity. An image
  that is only ever such a fallback is listed in ``SceneFacts.fallbacks`` (the pipeline does
  not count it; an embedded one is still read, for its findings). A material's ``alphaMode``
  other than OPAQUE is in ``SceneFacts.alpha_modes`` (the policy: does a use read alpha). A
  texture's own ``source`` that is neither PNG nor JPEG without the extension that allows it
  is TB088 (``gltf_images``).
- **EXT_lights_image_based**: each light a walked scene uses is one cubemap texture,
  ``file#light/N``, its faces listed in ``SceneFacts.cube_faces`` (``gltf_images``).

Hostile input: the JSON is refused above 64 MiB or above 1,000,000 objects and arrays or
4,000,000 values (counted before parsing), nesting too deep for the parser is a finding,
every field is type-checked, every index range-checked, counts above 2^31−1 are refused, and
URIs are resolved inside the scan root only: ``..`` escapes, absolute paths and any scheme
other than ``data:`` (``file:``, ``http:``…) are findings, never opened or fetched. The scene
graph is walked in time linear in nodes plus scene entries; at most 10,000 embedded images
are read, never more bytes in all than the buffers hold; at most 50 findings of a code are
listed per file.

Speed: most files are plain (fields of the right types, no extensions), so each array is read
with a fast path that checks the same rules inline and builds ``where`` labels only for a
message; anything else (an unexpected type, an extension, an out-of-range index) falls back to
the full checks of that item, which give every finding its message, in the same order.
"""

from __future__ import annotations

import binascii
import json
import math
import os
import posixpath
import re
import stat
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote

from msgspec.structs import replace

from texbudget import findings
from texbudget.model import (
    AttributeFacts,
    Finding,
    MeshFacts,
    PrimitiveFacts,
    ReadResult,
    SceneFacts,
    TextureFacts,
    file_of,
)
from texbudget.readers import KNOWN_FILES, Source, read_bytes
from texbudget.readers._common import read_upto
from texbudget.readers.gltf_images import (
    CORE_KINDS,
    image_kind,
    read_lights,
    refused,
    refused_message,
)
from texbudget.sizing.meshes import lod_of

#: Largest glTF JSON (a .gltf file or a GLB JSON chunk) texbudget parses.
MAX_JSON_BYTES = 64 * 1024 * 1024
#: Largest accessor count accepted (more than any GPU index range).
MAX_ACCESSOR_COUNT = 2**31 - 1
#: Largest embedded image (bufferView or data: URI) read into memory.
MAX_IMAGE_BYTES = 256 * 1024 * 1024
#: Largest data: URI decoded (the JSON cap bounds it anyway).
MAX_DATA_URI_BYTES = MAX_JSON_BYTES
#: GLB chunks looked at after the JSON chunk (only BIN matters; the rest are skipped).
MAX_GLB_CHUNKS = 64
#: Objects plus arrays (``{`` and ``[``) and values (``,``) a JSON may hold, counted before it
#: is parsed. Python takes about 70 bytes per empty object: 64 MiB of ``{},`` would parse into
#: 1.5 GiB over 15 seconds. A real glTF spends 40+ bytes of JSON per object, so these fit any
#: JSON under MAX_JSON_BYTES that is not built to explode.
MAX_JSON_CONTAINERS = 1_000_000
MAX_JSON_VALUES = 4_000_000
#: Embedded images (bufferView or data: URI) read in place per file; each is a full header
#: read through the image readers.
MAX_EMBEDDED_IMAGES = 10_000
#: Findings of one code kept per file; the rest are counted in one last finding.
MAX_NOTES_PER_CODE = 50

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

COMPONENT_TYPES: dict[int, tuple[str, int]] = {
    5120: ("BYTE", 1),
    5121: ("UNSIGNED_BYTE", 1),
    5122: ("SHORT", 2),
    5123: ("UNSIGNED_SHORT", 2),
    5125: ("UNSIGNED_INT", 4),
    5126: ("FLOAT", 4),
}
#: accessor type -> (components, columns); matrices pad each column to 4 bytes in a buffer.
TYPES: dict[str, tuple[int, int]] = {
    "SCALAR": (1, 1), "VEC2": (2, 1), "VEC3": (3, 1), "VEC4": (4, 1),
    "MAT2": (4, 2), "MAT3": (9, 3), "MAT4": (16, 4),
}
MIME_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/ktx2": ".ktx2",
               "image/vnd-ms.dds": ".dds", "image/avif": ".avif"}
#: Texture extensions whose ``source`` an engine that supports them uploads instead of the
#: fallback ``source`` (first found wins).
TEXTURE_SOURCE_EXTENSIONS = ("KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif", "MSFT_texture_dds")
#: Extensions whose presence in extensionsRequired does not change the sizes texbudget reads.
KNOWN_EXTENSIONS = frozenset({
    "KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression", "KHR_mesh_quantization",
    "EXT_mesh_gpu_instancing", "KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif", "MSFT_texture_dds",
    "KHR_texture_transform", "KHR_materials_unlit", "KHR_materials_emissive_strength", "KHR_materials_ior",
    "KHR_materials_volume", "KHR_materials_transmission", "KHR_materials_clearcoat", "KHR_materials_sheen",
    "KHR_materials_specular", "KHR_materials_iridescence", "KHR_materials_anisotropy", "KHR_materials_dispersion",
    "KHR_materials_diffuse_transmission", "KHR_materials_pbrSpecularGlossiness", "KHR_materials_variants",
    "KHR_lights_punctual", "MSFT_lod", "KHR_animation_pointer", "KHR_xmp_json_ld", "EXT_lights_image_based",
})
#: type -> componentType -> (component name, components, bytes of one element, bytes of one
#: element in a buffer, matrix columns padded): the accessor checks' arithmetic, done once for
#: the 42 valid pairs.
_LAYOUTS: dict[str, dict[int, tuple[str, int, int, int]]] = {
    type_name: {
        ctype: (name, components, components * size,
                columns * ((components // columns * size + 3) // 4 * 4) if columns > 1 else components * size)
        for ctype, (name, size) in COMPONENT_TYPES.items()
    }
    for type_name, (components, columns) in TYPES.items()
}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")
_TRIANGLE_MODES = (4, 5, 6)
_make_attribute = AttributeFacts  # (the records' own constructors, since model.builder is gone)
_make_primitive = PrimitiveFacts
_make_mesh = MeshFacts
_make_scene = SceneFacts
_make_result = ReadResult

#: Equal attributes, and the equal tuples of attributes and of accessor ids that primitives
#: hold, are kept once in a process, as the cache's decoder keeps them (``cache._SHARED_WHOLE``,
#: ``_SHARED_FIELDS``): meshes of a scene share vertex counts and layouts, and a scan of 100k
#: files would otherwise hold about 10 MB more of copies. Keyed by the attributes' fields;
#: emptied past ``_SHARED_MAX`` entries (a long TUI session).
_shared: dict[tuple, Any] = {}
_SHARED_MAX = 1 << 16


def _share(key: tuple, make: Any, *args: Any) -> Any:
    """The one kept ``make(*args)`` for ``key``."""
    found = _shared.get(key)
    if found is None:
        if len(_shared) >= _SHARED_MAX:
            _shared.clear()
        found = _shared[key] = make(*args)
    return found


class _Broken(Exception):
    """The file cannot be read further; carries the one finding that says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- typed field access: every JSON value is checked before it is used --------------------


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and math.isfinite(v) and v.is_integer())


def _get_int(d: dict, key: str, where: str, default: int | None = None, minimum: int = 0) -> int:
    v = d.get(key)
    if type(v) is int and v >= minimum:  # the usual case, checked first
        return v
    if v is None:
        if default is None:
            raise _Broken("TB073", f"{where}: required '{key}' is missing")
        return default
    if not _is_int(v):
        raise _Broken("TB073", f"{where}: '{key}' is {json.dumps(v)[:40]}, not an integer")
    v = int(v)
    if v < minimum:
        raise _Broken("TB073", f"{where}: '{key}' is {v}; it must be at least {minimum}")
    return v


def _get_index(d: dict, key: str, where: str, n: int, what: str) -> int | None:
    """An optional index into an array of ``n`` items; None when absent."""
    v = d.get(key)
    if type(v) is int and 0 <= v < n:  # the usual case, checked first
        return v
    if v is None:
        return None
    return _index_value(v, f"{where}: '{key}'", n, what)


def _need_index(d: dict, key: str, where: str, n: int, what: str) -> int:
    v = d.get(key)
    if type(v) is int and 0 <= v < n:
        return v
    if v is None:
        raise _Broken("TB073", f"{where}: required '{key}' is missing")
    return _index_value(v, f"{where}: '{key}'", n, what)


def _index_value(v: Any, where: str, n: int, what: str) -> int:
    if type(v) is int and 0 <= v < n:
        return v
    if not _is_int(v) or int(v) < 0:
        raise _Broken("TB073", f"{where} is {json.dumps(v)[:40]}, not an index")
    if int(v) >= n:
        raise _Broken("TB073", f"{where} points to {what} {int(v)}, but the file has {n}")
    return int(v)


def _get_dict(d: dict, key: str, where: str) -> dict:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _Broken("TB073", f"{where}: '{key}' is not a JSON object")
    return v


def _get_list(d: dict, key: str, where: str) -> list:
    """The array ``d[key]``; [] when absent. (A caller per item tests ``type(v) is list``
    itself first, so as not to build ``where`` for every item.)"""
    v = d.get(key)
    if type(v) is list:  # the usual case, checked first
        return v
    if v is None:
        return []
    if not isinstance(v, list):
        raise _Broken("TB073", f"{where}: '{key}' is not an array")
    return v


def _item(seq: list, i: int, where: str) -> dict:
    v = seq[i]
    if not isinstance(v, dict):
        raise _Broken("TB073", f"{where} is not a JSON object")
    return v


def _ext(d: dict, name: str, where: str) -> dict | None:
    if "extensions" not in d:
        return None
    exts = _get_dict(d, "extensions", where)
    v = exts.get(name)
    if v is None:
        return None
    if not isinstance(v, dict):
        raise _Broken("TB073", f"{where}: extension {name} is not a JSON object")
    return v


# --- JSON and GLB --------------------------------------------------------------------------


_BOM = b"\xef\xbb\xbf"
#: The scanner ``json.loads`` runs (``JSONDecoder()`` without hooks is its decoder).
_scan_once: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set by __init__, not declared


def _loads(text: str) -> Any:
    """``json.loads(text)``: a document that starts with "{" goes to the scanner directly
    (``loads`` adds a whitespace match on each side and three calls around it, for every
    GLB); anything else, and every error, takes ``json.loads`` itself, so the value and the
    error are its own."""
    if text[:1] == "{":
        try:
            doc, end = _scan_once(text, 0)
        except Exception:
            pass
        else:
            if end == len(text) or not text[end:].strip(" \t\n\r"):
                return doc
    return json.loads(text)


def _parse_json(data: bytes) -> dict:
    # Each container and value takes a byte at least: a JSON no longer than a cap needs no count.
    if len(data) > MAX_JSON_CONTAINERS:
        containers = data.count(b"{") + data.count(b"[")
        if containers > MAX_JSON_CONTAINERS:
            raise _Broken("TB071", f"the JSON holds {containers} objects and arrays; texbudget parses at most {MAX_JSON_CONTAINERS} (parsing takes about 70 bytes of memory each)")
    if len(data) > MAX_JSON_VALUES:
        values = data.count(b",")
        if values > MAX_JSON_VALUES:
            raise _Broken("TB071", f"the JSON holds {values} values; texbudget parses at most {MAX_JSON_VALUES}")
    bom = 3 if data[:3] == _BOM else 0  # one byte-order mark is allowed, as "utf-8-sig" decodes
    try:
        text = (data[3:] if bom else data).decode()
        doc = _loads(text)
    except RecursionError:
        raise _Broken("TB070", "the JSON is nested deeper than its parser can follow") from None
    except UnicodeDecodeError as exc:
        raise _Broken("TB070", f"the JSON is not UTF-8 (byte {exc.start + bom})") from None
    except json.JSONDecodeError as exc:
        raise _Broken("TB070", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise _Broken("TB070", f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise _Broken("TB070", f"the JSON's top level is {type(doc).__name__}, not an object")
    return doc


def read_gltf(src: Source) -> ReadResult:
    """A .gltf file: JSON with external or data: URI buffers and images."""
    try:
        size = src.size()
        if size > MAX_JSON_BYTES:
            raise _Broken("TB071", f"the JSON is {size} bytes; texbudget parses at most {MAX_JSON_BYTES}")
        with src.open() as f:
            raw = read_upto(f, MAX_JSON_BYTES + 1)
        if len(raw) > MAX_JSON_BYTES:  # it grew since it was measured
            raise _Broken("TB071", f"the JSON is over {MAX_JSON_BYTES} bytes; texbudget parses at most {MAX_JSON_BYTES}")
        doc = _parse_json(raw)
        return _Document(src, doc, None).read()
    except _Broken as exc:
        return ReadResult(findings=(findings.make(src.rel, exc.code, exc.message),))


def read_glb(src: Source) -> ReadResult:
    """A .glb file: 12-byte header, a JSON chunk and an optional BIN chunk (never read whole)."""
    try:
        doc, bin_chunk, extra = _read_glb_chunks(src, src.size())
        result = _Document(src, doc, bin_chunk).read()
        return ReadResult(findings=tuple(findings.make(src.rel, c, m) for c, m in extra)) + result if extra else result
    except _Broken as exc:
        return ReadResult(findings=(findings.make(src.rel, exc.code, exc.message),))


def _read_glb_chunks(src: Source, size: int) -> tuple[dict, tuple[int, int] | None, list[tuple[str, str]]]:
    """The JSON, the BIN chunk's (offset, length) and notes, from a few ``read_at`` looks
    (a prefetched source serves them from memory)."""
    header = src.read_at(0, 20)
    if len(header) < 12:
        raise _Broken("TB072", f"the file is {size} bytes; a GLB header needs 12")
    magic, version, length = struct.unpack_from("<4sII", header)
    if magic != GLB_MAGIC:
        raise _Broken("TB072", f"the file starts with {magic!r}, not the GLB magic b'glTF'")
    if version != 2:
        raise _Broken("TB082", f"the GLB header says version {version}; texbudget reads glTF 2.0")
    extra: list[tuple[str, str]] = []
    if length > size:
        raise _Broken("TB072", f"the GLB header says the file is {length} bytes, but it has {size} (truncated)")
    if length < size:
        extra.append(("TB072", f"the GLB header says the file is {length} bytes, but it has {size}; the {size - length} bytes after it were ignored"))
    if len(header) < 20:
        raise _Broken("TB072", "the GLB has no JSON chunk")
    json_len, json_type = struct.unpack_from("<II", header, 12)
    if json_type != CHUNK_JSON:
        raise _Broken("TB072", f"the first GLB chunk has type 0x{json_type:08X}, not JSON")
    if 20 + json_len > length:
        raise _Broken("TB072", f"the JSON chunk claims {json_len} bytes at offset 20, but the file ends at {length}")
    if json_len > MAX_JSON_BYTES:
        raise _Broken("TB071", f"the JSON chunk is {json_len} bytes; texbudget parses at most {MAX_JSON_BYTES}")
    doc = _parse_json(src.read_at(20, json_len).rstrip(b" \x00"))
    bin_chunk = None
    offset = 20 + json_len
    for _ in range(MAX_GLB_CHUNKS):
        if offset >= length:
            break
        if length - offset < 8:
            extra.append(("TB072", f"{length - offset} stray bytes at offset {offset} are not a GLB chunk"))
            break
        chunk_head = src.read_at(offset, 8)
        if len(chunk_head) < 8:  # the file was cut after it was measured
            raise _Broken("TB005", f"the chunk header at offset {offset} could not be read (the file changed while it was read)")
        chunk_len, chunk_type = struct.unpack("<II", chunk_head)
        if offset + 8 + chunk_len > length:
            raise _Broken("TB072", f"the chunk at offset {offset} claims {chunk_len} bytes, but the file ends at {length}")
        if chunk_type == CHUNK_BIN and bin_chunk is None:
            bin_chunk = (offset + 8, chunk_len)
        offset += 8 + chunk_len
    return doc, bin_chunk, extra


# --- the document --------------------------------------------------------------------------


@dataclass(slots=True)
class _Buffer:
    declared: int
    kind: str  # "glb", "file", "data", "fallback", "missing"
    available: int | None = None  # bytes that exist (None: unknown / not available)
    rel: str | None = None  # "file": path relative to the root
    data: bytes | None = None  # "data": decoded bytes
    glb_offset: int = 0


class _View(NamedTuple):
    buffer: int
    offset: int
    length: int
    stride: int | None
    state: str  # "ok", "nodata" (buffer not available: declarations still priced), "broken"
    meshopt: bool = False


class _Accessor(NamedTuple):
    component_type: str  # the first five fields are an AttributeFacts' after its name
    components: int
    count: int  # type: ignore[assignment]  # (the field hides tuple.count, unused here)
    bytes: int
    normalized: bool
    meshopt: bool


#: ``_new(_View, (all fields))`` builds a _View (or an _Accessor) at under half the cost of
#: calling the class, whose ``__new__`` is Python code: the fast paths build one per bufferView
#: and accessor.
_new = tuple.__new__


class _Document:
    """One glTF's reading: its JSON, buffers and views, and the findings so far. A plain
    class with slots: a dataclass's generated ``__init__``, with its eight default factories
    and ``__post_init__``, took several percent of a GLB read."""

    __slots__ = (
        "_accessors",
        "_base",
        "_image_bytes",
        "_meshopt_views",
        "_notes",
        "_plain_folders",
        "_view_results",
        "bin_chunk",
        "buffers",
        "doc",
        "found",
        "rel",
        "src",
        "views",
    )

    def __init__(self, src: Source, doc: dict, bin_chunk: tuple[int, int] | None) -> None:
        self.src = src
        self.doc = doc
        self.bin_chunk = bin_chunk
        self.found: list[Finding] = []
        self.buffers: list[_Buffer] = []
        self.views: list[_View] = []
        self._accessors: dict[int, _Accessor | None] = {}
        self._notes: dict[str, int] = {}  # findings per code, kept or not
        self._image_bytes = 0  # bytes of embedded images read so far
        self._view_results: dict[tuple[int, str | None], tuple[str, ReadResult]] = {}  # (view, type) -> (first identity, result)
        self._plain_folders: set[str] = set()  # folders _locate found plain (no link) in this read
        self._meshopt_views = False  # a bufferView is meshopt-compressed (else no accessor is)
        self.rel: str = src.rel  # the file's identity
        # the folder of the glTF, relative to the root: URIs resolve from it
        self._base = posixpath.dirname(file_of(self.rel))

    def note(self, code: str, message: str) -> None:
        """One finding; past MAX_NOTES_PER_CODE of a code they are only counted (a hostile
        file can break a rule a million times)."""
        count = self._notes[code] = self._notes.get(code, 0) + 1
        if count <= MAX_NOTES_PER_CODE:
            self.found.append(findings.make(self.rel, code, message))

    def _more_notes(self) -> None:
        for code, count in self._notes.items():
            if count > MAX_NOTES_PER_CODE:
                self.found.append(findings.make(self.rel, code, f"… and {count - MAX_NOTES_PER_CODE} more {code} findings in this file, not listed"))

    def read(self) -> ReadResult:
        self._check_asset()
        self._read_buffers()
        self._read_views()
        meshes = self._read_meshes()
        textures, image_ids, kinds = self._read_images()
        usage, used_images, fallbacks, alpha_modes = self._read_materials(image_ids, kinds)
        instances = self._walk_scene(meshes)
        cubes, cube_faces, notes = read_lights(self.doc, self.rel, image_ids, {t.path: t for t in textures})
        for code, message in notes:
            self.note(code, message)
        faces = {face for face, _ in cube_faces}
        for i, identity in enumerate(image_ids):
            if i not in used_images and identity not in faces:
                self.note("TB081", f"image {i} ({identity}) is used by no material")
        self._more_notes()
        scene = _make_scene(path=self.rel, instances=instances, texture_usage=usage, fallbacks=fallbacks,
                            alpha_modes=alpha_modes, cube_faces=tuple(cube_faces))
        return _make_result(textures + tuple(cubes), tuple(meshes.values()), (scene,), tuple(self.found))

    # --- asset and extensions

    def _check_asset(self) -> None:
        asset = self.doc.get("asset")
        if not isinstance(asset, dict):
            raise _Broken("TB073", "the required 'asset' object is missing")
        version = asset.get("version")
        if not isinstance(version, str):
            raise _Broken("TB073", "asset.version is missing")
        if not version.startswith("2."):
            raise _Broken("TB082", f"asset.version is {version[:20]!r}; texbudget reads glTF 2.x")
        for name in _get_list(self.doc, "extensionsRequired", "extensionsRequired"):
            if isinstance(name, str) and name not in KNOWN_EXTENSIONS:
                self.note("TB083", f"the file requires extension {name[:80]}, which texbudget does not know")

    # --- buffers and views

    def _read_buffers(self) -> None:
        seq = _get_list(self.doc, "buffers", "buffers")
        for i, buf in enumerate(seq):
            # Fast path: a GLB's own buffer (buffer 0, no uri) that its BIN chunk holds.
            if i == 0 and self.bin_chunk is not None and type(buf) is dict and "uri" not in buf:
                declared = buf.get("byteLength")
                offset, length = self.bin_chunk
                if type(declared) is int and 1 <= declared <= length:
                    self.buffers.append(_Buffer(declared, "glb", length, glb_offset=offset))
                    continue
            where = f"buffer {i}"
            buf = _item(seq, i, where)
            declared = _get_int(buf, "byteLength", where, minimum=1)
            uri = buf.get("uri")
            if uri is None:
                self.buffers.append(self._buffer_without_uri(i, buf, declared))
                continue
            if not isinstance(uri, str):
                raise _Broken("TB073", f"{where}: 'uri' is not a string")
            if uri.startswith("data:"):
                data = self._data_uri(uri, where)
                entry = _Buffer(declared, "data", None if data is None else len(data), data=data)
            else:
                rel = self._resolve(uri, where)
                entry = _Buffer(declared, "missing")
                if rel is not None:
                    entry = _Buffer(declared, "file", (self.src.root / rel).stat().st_size, rel=rel)  # type: ignore[operator]
            if entry.available is not None and entry.available < declared:
                self.note("TB076", f"{where} declares {declared} bytes, but {'its data' if entry.kind == 'data' else entry.rel} holds {entry.available}")
            self.buffers.append(entry)

    def _buffer_without_uri(self, i: int, buf: dict, declared: int) -> _Buffer:
        if i == 0 and self.bin_chunk is not None:
            offset, length = self.bin_chunk
            if length < declared:
                self.note("TB076", f"buffer 0 declares {declared} bytes, but the GLB's BIN chunk holds {length}")
            return _Buffer(declared, "glb", length, glb_offset=offset)
        ext = _ext(buf, "EXT_meshopt_compression", f"buffer {i}") or _ext(buf, "KHR_meshopt_compression", f"buffer {i}")
        if ext is not None and ext.get("fallback") is True:
            return _Buffer(declared, "fallback")
        where = "the GLB has no BIN chunk" if (i == 0 and self.bin_chunk is None and self.src.suffix == ".glb") else "it has no uri"
        self.note("TB073", f"buffer {i} has no data: {where}")
        return _Buffer(declared, "missing")

    def _read_views(self) -> None:
        n_buffers = len(self.buffers)
        buffers, views = self.buffers, self.views
        seq = _get_list(self.doc, "bufferViews", "bufferViews")
        for k, view in enumerate(seq):
            # Fast path: a plain view (integer fields in range, no extension) inside its buffer's
            # declared bytes. Anything else takes the full checks below, from the start.
            if type(view) is dict and "extensions" not in view:
                b = view.get("buffer")
                offset = view.get("byteOffset", 0)
                length = view.get("byteLength")
                stride = view.get("byteStride")
                if (type(b) is int and 0 <= b < n_buffers and type(offset) is int and offset >= 0
                        and type(length) is int and length >= 1
                        and (stride is None or (type(stride) is int and 4 <= stride <= 252))):
                    end = offset + length
                    buf = buffers[b]
                    if end <= buf.declared:
                        available = buf.available
                        state = "nodata" if available is None else "broken" if end > available else "ok"
                        views.append(_new(_View, (b, offset, length, stride, state, False)))
                        continue
            where = f"bufferView {k}"
            self._read_view(_item(seq, k, where), where, n_buffers)

    def _read_view(self, view: dict, where: str, n_buffers: int) -> None:
        """One bufferView, every field checked (the slow path of ``_read_views``)."""
        b = _need_index(view, "buffer", where, n_buffers, "buffer")
        offset = _get_int(view, "byteOffset", where, default=0)
        length = _get_int(view, "byteLength", where, minimum=1)
        stride = _get_int(view, "byteStride", where, default=0) or None
        if stride is not None and not 4 <= stride <= 252:
            raise _Broken("TB073", f"{where}: byteStride {stride} is outside 4–252")
        meshopt = _ext(view, "EXT_meshopt_compression", where) or _ext(view, "KHR_meshopt_compression", where)
        if meshopt is not None:
            # The view's own range is the decoded data; the compressed range is the extension's.
            mb = _need_index(meshopt, "buffer", f"{where} EXT_meshopt_compression", n_buffers, "buffer")
            m_off = _get_int(meshopt, "byteOffset", f"{where} EXT_meshopt_compression", default=0)
            m_len = _get_int(meshopt, "byteLength", f"{where} EXT_meshopt_compression", minimum=1)
            state = self._range_state(mb, m_off, m_len, f"{where} (compressed data)")
            if self.buffers[b].kind != "fallback" and state == "ok":
                state = self._range_state(b, offset, length, where)
            self.views.append(_View(b, offset, length, stride, state, meshopt=True))
            self._meshopt_views = True
            return
        self.views.append(_View(b, offset, length, stride, self._range_state(b, offset, length, where)))

    def _range_state(self, b: int, offset: int, length: int, where: str) -> str:
        buf = self.buffers[b]
        end = offset + length
        if end > buf.declared:
            self.note("TB076", f"{where} covers bytes {offset}–{end} of buffer {b}, which declares {buf.declared}")
            return "broken"
        if buf.available is None:
            return "nodata"
        if end > buf.available:
            return "broken"  # the short buffer has its own finding
        return "ok"

    # --- accessors

    def accessor(self, i: int) -> _Accessor | None:
        """The accessor's declaration, checked; None (with a finding, once) when it is unusable."""
        checked = self._accessors
        if i in checked:
            return checked[i]
        # Fast path: every field a plain valid value, inside its view. Anything else (a field
        # missing or of another type lands in the except) goes to _check_accessor, which
        # checks in its order and says what is wrong.
        acc = self.doc["accessors"][i]
        try:
            name, components, size, element = _LAYOUTS[acc["type"]][acc["componentType"]]
            count, v = acc["count"], acc.get("bufferView")
        except (KeyError, TypeError, AttributeError):
            pass
        else:
            if type(count) is int and 1 <= count <= MAX_ACCESSOR_COUNT:
                if v is None:
                    found = checked[i] = _new(_Accessor, (name, components, count, count * size, acc.get("normalized") is True, False))
                    return found
                views = self.views
                if type(v) is int and 0 <= v < len(views):
                    _, _, length, stride, state, meshopt = views[v]
                    offset = acc.get("byteOffset", 0)
                    if (state != "broken" and type(offset) is int and offset >= 0
                            and offset + (count - 1) * (stride or element) + element <= length):
                        found = checked[i] = _new(_Accessor, (name, components, count, count * size, acc.get("normalized") is True, meshopt))
                        return found
        try:
            checked[i] = self._check_accessor(i)
        except _Broken as exc:
            self.note(exc.code, exc.message)
            checked[i] = None
        return checked[i]

    def _check_accessor(self, i: int) -> _Accessor | None:
        where = f"accessor {i}"
        acc = _item(self.doc["accessors"], i, where)
        ctype = _get_int(acc, "componentType", where)
        if ctype not in COMPONENT_TYPES:
            raise _Broken("TB073", f"{where}: componentType {ctype} is not a glTF component type")
        type_name = acc.get("type")
        if not isinstance(type_name, str) or type_name not in TYPES:
            raise _Broken("TB073", f"{where}: type {str(type_name)[:20]!r} is not SCALAR, VEC2–4 or MAT2–4")
        count = _get_int(acc, "count", where, minimum=1)
        if count > MAX_ACCESSOR_COUNT:
            raise _Broken("TB078", f"{where}: count {count} is beyond {MAX_ACCESSOR_COUNT}; not priced")
        name, size = COMPONENT_TYPES[ctype]
        components, columns = TYPES[type_name]
        meshopt = False
        v = _get_index(acc, "bufferView", where, len(self.views), "bufferView")
        if v is not None:
            view = self.views[v]
            if view.state == "broken":
                return None  # the view's finding says why
            meshopt = view.meshopt
            rows = components // columns  # a matrix pads each column to 4 bytes in a buffer
            element = columns * ((rows * size + 3) // 4 * 4) if columns > 1 else components * size
            stride = view.stride or element
            offset = _get_int(acc, "byteOffset", where, default=0)
            need = offset + (count - 1) * stride + element
            if need > view.length:
                raise _Broken("TB077", f"{where} needs {need} bytes of bufferView {v} (offset {offset} + {count} × {stride}-byte stride), which holds {view.length}")
        return _Accessor(name, components, count, count * components * size, acc.get("normalized") is True, meshopt)

    # --- meshes

    def _read_meshes(self) -> dict[int, MeshFacts]:
        out: dict[int, MeshFacts] = {}
        doc = self.doc
        n_accessors = len(_get_list(doc, "accessors", "accessors"))
        n_materials = len(_get_list(doc, "materials", "materials"))
        seq = _get_list(doc, "meshes", "meshes")
        for n, mesh in enumerate(seq):
            if type(mesh) is not dict:
                mesh = _item(seq, n, f"mesh {n}")
            prims = mesh.get("primitives")
            if type(prims) is not list:
                prims = _get_list(mesh, "primitives", f"mesh {n}")
            if not prims:
                raise _Broken("TB073", f"mesh {n} has no primitives")
            facts = self._read_mesh(n, mesh, prims, n_accessors, n_materials)
            if facts is not None:
                out[n] = facts
        return out

    def _read_mesh(self, n: int, mesh: dict, prims: list, n_accessors: int, n_materials: int) -> MeshFacts | None:
        """One mesh, or None when an accessor it uses is unusable (its finding says why)."""
        primitives: list[PrimitiveFacts] = []
        counted: set[int] = set()  # each accessor once per mesh, in its first category
        vertex_bytes = index_bytes = morph_bytes = 0
        positions: set[int] = set()
        vertices = morph_targets = indices = triangles_sum = 0
        broken = False
        accessor = self.accessor
        rel = self.rel
        shared = _shared
        for p in range(len(prims)):
            parsed = _plain_primitive(prims[p], n_accessors, n_materials)
            if parsed is None:
                parsed = self._primitive(prims, p, f"mesh {n} primitive {p}", n_accessors, n_materials)
            attr_ids, targets, morph_ids, ii, mode, m, draco = parsed
            # Every accessor the primitive uses, in the order they are counted: attributes,
            # morph targets, indices.
            used = [*attr_ids.values(), *morph_ids] if ii is None else [*attr_ids.values(), *morph_ids, ii]
            accs: dict[int, _Accessor | None] = {}
            for i in used:  # (a loop, not a comprehension: no frame of its own)
                accs[i] = accessor(i)
            if None in accs.values():
                broken = True
                continue
            index_count = index_size = 0
            if ii is not None:
                index_acc = accs[ii]
                assert index_acc is not None
                if index_acc.component_type not in ("UNSIGNED_BYTE", "UNSIGNED_SHORT", "UNSIGNED_INT") or index_acc.components != 1:
                    raise _Broken("TB073", f"mesh {n} primitive {p}: index accessor {ii} is {index_acc.component_type} x{index_acc.components}; indices are UNSIGNED_BYTE/SHORT/INT scalars")
                index_count, index_size = index_acc.count, index_acc.bytes // index_acc.count
            first = attr_ids.get("POSITION")
            if first is None:
                first = next(iter(attr_ids.values()))
            vertex_count = accs[first].count  # type: ignore[union-attr]
            if first not in positions:
                positions.add(first)
                vertices += vertex_count
            drawn = index_count if ii is not None else vertex_count
            triangles = drawn // 3 if mode == 4 else max(drawn - 2, 0) if mode in _TRIANGLE_MODES else 0
            # Each accessor counted once per mesh, in the first category it is used in (``used``
            # lists attributes, then morph targets, then indices).
            attributes = []
            fields = []
            for name, i in attr_ids.items():
                acc = accs[i]
                key = (name, *acc[:5])  # type: ignore[index]  # an AttributeFacts' fields
                fields.append(key)
                attribute = shared.get(key)  # _share, with the usual hit inline
                attributes.append(attribute if attribute is not None else _share(key, _make_attribute, *key))
                if i not in counted:
                    counted.add(i)
                    vertex_bytes += acc.bytes  # type: ignore[union-attr]
            for i in morph_ids:
                if i not in counted:
                    counted.add(i)
                    morph_bytes += accs[i].bytes  # type: ignore[union-attr]
            if ii is not None and ii not in counted:
                counted.add(ii)
                index_bytes += accs[ii].bytes  # type: ignore[union-attr]
            morph_targets = max(morph_targets, len(targets))
            indices += index_count
            triangles_sum += triangles
            meshopt = self._meshopt_views and any(acc.meshopt for acc in accs.values())  # type: ignore[union-attr, misc]
            key = (*fields, "attributes")
            attribute_facts = shared.get(key)
            ids = (*accs, "ids")
            id_tuple = shared.get(ids)
            primitives.append(_make_primitive(
                mode,
                vertex_count,
                triangles,
                attribute_facts if attribute_facts is not None else _share(key, tuple, attributes),
                index_count,
                index_size,
                len(targets),
                sum(accs[i].bytes for i in dict.fromkeys(morph_ids)) if morph_ids else 0,  # type: ignore[union-attr, misc]
                None if m is None else f"{rel}#material/{m}",
                "draco" if draco is not None else "meshopt" if meshopt else None,
                id_tuple if id_tuple is not None else _share(ids, tuple, accs),
            ))
        if broken:
            return None
        name = mesh.get("name")
        name = name if isinstance(name, str) and name else f"mesh {n}"
        lod = lod_of(name) if "lod" in name.lower() else None  # a name without "lod" has no LOD suffix
        return _make_mesh(  # positional (MeshFacts' field order): a fifth cheaper than keywords
            f"{rel}#mesh/{n}",  # path
            name,
            tuple(primitives),
            vertices,
            indices,
            triangles_sum,  # triangles
            vertex_bytes,
            index_bytes,
            morph_bytes,
            False,  # skinned (set by the scene walk)
            morph_targets,
            "gltf",  # source
            None if lod is None else lod[1],  # lod
            None if lod is None else f"{rel}#lod/{lod[0]}",  # lod_group
        )

    def _primitive(self, prims: list, p: int, where: str, n_accessors: int, n_materials: int) -> tuple:
        """A primitive's fields, every one checked (the slow path of ``_plain_primitive``):
        (attribute name -> accessor, targets, morph target accessors, indices, mode, material,
        KHR_draco_mesh_compression)."""
        prim = _item(prims, p, where)
        attrs = _get_dict(prim, "attributes", where)
        if not attrs:
            raise _Broken("TB073", f"{where} has no attributes")
        attr_ids = {str(name): _need_index(attrs, name, where, n_accessors, "accessor") for name in attrs}
        targets = _get_list(prim, "targets", where)
        morph_ids: list[int] = []
        for t in range(len(targets)):
            target_where = f"{where} target {t}"
            target = _item(targets, t, target_where)
            morph_ids += [_need_index(target, name, target_where, n_accessors, "accessor") for name in target]
        ii = _get_index(prim, "indices", where, n_accessors, "accessor")
        mode = _get_int(prim, "mode", where, default=4)
        if mode > 6:
            raise _Broken("TB073", f"{where}: mode {mode} is not a glTF draw mode (0–6)")
        m = _get_index(prim, "material", where, n_materials, "material")
        draco = _ext(prim, "KHR_draco_mesh_compression", where)
        if draco is not None:
            _need_index(draco, "bufferView", f"{where} KHR_draco_mesh_compression", len(self.views), "bufferView")
        return attr_ids, targets, morph_ids, ii, mode, m, draco

    # --- images

    def _read_images(self) -> tuple[tuple[TextureFacts, ...], list[str], list[str | None]]:
        """TextureFacts of the embedded images, and every image's identity and declared
        kind (``gltf_images.image_kind``; the data's own for an embedded one that declares
        none), by index."""
        textures: list[TextureFacts] = []
        identities: list[str] = []
        kinds: list[str | None] = []
        seq = _get_list(self.doc, "images", "images")
        for i, img in enumerate(seq):
            # Fast path: an external image by a plain relative URI to a file inside the root
            # (no finding, nothing read: its identity is its path).
            if type(img) is dict and "bufferView" not in img:
                uri = img.get("uri")
                if type(uri) is str and not uri.startswith("data:"):
                    rel = self._plain_rel(uri)
                    if rel is not None:
                        identities.append(rel)
                        kinds.append(image_kind(img.get("mimeType"), uri))
                        continue
            where = f"image {i}"
            img = _item(seq, i, where)
            identity = f"{self.rel}#image/{i}"
            mime = img.get("mimeType")
            hint = MIME_SUFFIX.get(mime) if isinstance(mime, str) else None
            uri = img.get("uri")
            v = _get_index(img, "bufferView", where, len(self.views), "bufferView")
            data: bytes | None = None
            embedded = v is not None or (isinstance(uri, str) and uri.startswith("data:"))
            if embedded and i >= MAX_EMBEDDED_IMAGES:
                if i == MAX_EMBEDDED_IMAGES:
                    self.note("TB078", f"{where} and the images after it were not read: texbudget reads at most {MAX_EMBEDDED_IMAGES} embedded images per file")
            elif v is not None:
                if (v, hint) not in self._view_results:  # else: read for an earlier image
                    data = self._view_bytes(v, where)
            elif isinstance(uri, str) and uri.startswith("data:"):
                data = self._data_uri(uri, where, limit=MAX_IMAGE_BYTES)
                media = uri[5:].split(";", 1)[0].split(",", 1)[0].strip().lower()
                hint = MIME_SUFFIX.get(media, hint)
            elif isinstance(uri, str):
                identity = self._resolve(uri, where) or identity
            else:
                raise _Broken("TB073", f"{where} has neither a uri nor a bufferView")
            if data is not None:
                result = read_bytes(identity, data, hint)
                if v is not None:
                    self._view_results[(v, hint)] = (identity, result)
            elif v is not None and (v, hint) in self._view_results:  # a bufferView read before
                first, earlier = self._view_results[(v, hint)]
                result = ReadResult(textures=tuple(replace(t, path=identity) for t in earlier.textures),
                                    findings=tuple(replace(f, path=identity) if f.path == first else f for f in earlier.findings))
            else:
                result = ReadResult()
            textures.extend(result.textures)
            self.found.extend(result.findings)
            identities.append(identity)
            kind = image_kind(mime, uri)
            kinds.append(kind if kind is not None or not result.textures else result.textures[0].container)
        return tuple(textures), identities, kinds

    def _view_bytes(self, v: int, where: str) -> bytes | None:
        view = self.views[v]
        if view.state != "ok" or view.meshopt:
            return None
        if view.length > MAX_IMAGE_BYTES:
            self.note("TB078", f"{where} is {view.length} bytes; texbudget reads embedded images up to {MAX_IMAGE_BYTES}")
            return None
        # Images that share or overlap bufferViews could make a small file read terabytes:
        # all embedded images together may not need more bytes than the buffers hold.
        held = sum(b.available or 0 for b in self.buffers)
        if self._image_bytes + view.length > held:
            self.note("TB078", f"{where}: the embedded images so far need {self._image_bytes + view.length} bytes, more than the file's buffers hold ({held}); they overlap, and this one was not read")
            return None
        self._image_bytes += view.length
        buf = self.buffers[view.buffer]
        if buf.kind == "data":
            assert buf.data is not None
            return buf.data[view.offset : view.offset + view.length]
        if buf.kind == "glb":
            opener, start = self.src.open, buf.glb_offset + view.offset
        else:
            assert buf.rel is not None and self.src.root is not None
            path = self.src.root / buf.rel
            opener, start = (lambda: open(path, "rb")), view.offset  # noqa: SIM115 (opened by the with below)
        with opener() as f:
            f.seek(start)
            data = f.read(view.length)
        if len(data) != view.length:
            self.note("TB005", f"{where}: expected {view.length} bytes at offset {start}, got {len(data)} (the file changed while read)")
            return None
        return data

    # --- materials and textures

    def _read_materials(self, image_ids: list[str], kinds: list[str | None]) -> tuple[
            tuple[tuple[str, str, str], ...], set[int], tuple[str, ...], tuple[tuple[str, str], ...]]:
        """(image, material, slot) of every used texture slot, every image a used texture
        names (its extension sources and its fallback), the images that are only ever a used
        texture's fallback (an extension source was chosen over them), and (material,
        alphaMode) of the materials with slots that are not OPAQUE. Textures whose own
        ``source`` is neither PNG nor JPEG without the extension that allows it are one TB088
        per kind."""
        n_images = len(image_ids)
        texture_images: list[tuple[int | None, tuple[int, ...]]] = []  # (chosen image, all images)
        wrong: dict[str, list[tuple[int, str]]] = {}  # kind -> (texture, image) of refused sources
        seq = _get_list(self.doc, "textures", "textures")
        for t, tex in enumerate(seq):
            # Fast path: no extension, and a valid or no source.
            if type(tex) is dict and "extensions" not in tex:
                s = tex.get("source")
                if s is None:
                    texture_images.append((None, ()))
                    continue
                if type(s) is int and 0 <= s < n_images:
                    texture_images.append((s, (s,)))
                    kind = kinds[s]
                    if kind is not None and kind not in CORE_KINDS:  # and no extension allows it
                        wrong.setdefault(kind, []).append((t, image_ids[s]))
                    continue
            where = f"texture {t}"
            tex = _item(seq, t, where)
            sources = []
            for ext_name in TEXTURE_SOURCE_EXTENSIONS:
                ext = _ext(tex, ext_name, where)
                if ext is not None:
                    s = _get_index(ext, "source", f"{where} {ext_name}", n_images, "image")
                    if s is not None:
                        sources.append(s)
            s = _get_index(tex, "source", where, n_images, "image")
            if s is not None:
                sources.append(s)
                kind = kinds[s]
                if kind is not None and refused(kind, tex.get("extensions")):
                    wrong.setdefault(kind, []).append((t, image_ids[s]))
            texture_images.append((sources[0] if sources else None, tuple(sources)))
        for kind, refused_sources in wrong.items():
            self.note("TB088", refused_message(kind, refused_sources))
        usage: dict[tuple[str, str, str], None] = {}
        alpha_modes: list[tuple[str, str]] = []
        used: set[int] = set()
        chosen_images: set[int] = set()
        passed_over: set[int] = set()  # sources after the chosen one (it is the first)
        n_textures = len(texture_images)
        seq = _get_list(self.doc, "materials", "materials")
        for m, mat in enumerate(seq):
            slots = _plain_texture_slots(mat, n_textures)
            if slots is None:  # something unusual: every field checked, in order
                where = f"material {m}"
                slots = [(slot, _need_index(info, "index", info_where, n_textures, "texture"))
                         for slot, info, info_where in _texture_slots(_item(seq, m, where), where)]
            user = f"{self.rel}#material/{m}" if slots else ""
            if slots and "alphaMode" in mat:
                mode = mat["alphaMode"]
                if mode not in ("OPAQUE", "MASK", "BLEND"):
                    self.note("TB073", f"material {m}: alphaMode {json.dumps(mode)[:40]} is not OPAQUE, MASK or BLEND; its alpha is taken as read (BLEND)")
                    mode = "BLEND"
                if mode != "OPAQUE":
                    alpha_modes.append((user, mode))
            for slot, t in slots:
                chosen, all_sources = texture_images[t]
                used.update(all_sources)
                if chosen is not None:
                    usage[(image_ids[chosen], user, slot)] = None
                    chosen_images.add(chosen)
                    if len(all_sources) > 1:
                        passed_over.update(all_sources[1:])
        fallbacks = tuple(image_ids[i] for i in sorted(passed_over - chosen_images))
        return tuple(usage), used, fallbacks, tuple(alpha_modes)

    # --- URIs

    def _plain_rel(self, uri: str) -> str | None:
        """Fast path of ``_resolve``: its answer for a plain relative URI (no scheme, drive,
        percent-escape, backslash, query, fragment or NUL; not absolute) to a file inside the
        root, which needs no unquoting and gets no finding; None for anything else (then
        ``_resolve`` decides, with its findings). Nothing is opened."""
        if (":" in uri or "%" in uri or "\\" in uri or "?" in uri or "#" in uri or "\x00" in uri
                or uri.startswith("/") or self.src.root is None):
            return None
        rel = _join_normal(self._base, uri)
        if rel in (".", "..") or rel.startswith("../"):
            return None
        known = KNOWN_FILES.get()
        if known is not None and rel in known[1] and known[0] == os.fspath(self.src.root):
            return rel  # a file discovery listed: inside the root, nothing to walk
        return rel if _locate(self.src.root, rel, self._plain_folders) == "file" else None

    def _resolve(self, uri: str, where: str) -> str | None:
        """The URI as a POSIX path relative to the scan root; None with a TB074/TB075 finding
        when it is refused or missing. Nothing is opened."""
        shown = uri if len(uri) <= 120 else uri[:117] + "..."
        if "\x00" in uri:
            self.note("TB074", f"{where}: URI {shown!r} holds a NUL byte; not opened")
            return None
        if _DRIVE.match(uri) or uri.startswith(("/", "\\")):
            self.note("TB074", f"{where}: URI {shown!r} is an absolute path; not opened")
            return None
        scheme = _SCHEME.match(uri)
        if scheme:
            self.note("TB074", f"{where}: URI {shown!r} uses the {scheme.group(1).lower()}: scheme; texbudget never opens or fetches it")
            return None
        path = unquote(uri.split("#", 1)[0].split("?", 1)[0]).replace("\\", "/")
        if path.startswith("/") or "\x00" in path:
            what = "a NUL byte" if "\x00" in path else "an absolute path"
            self.note("TB074", f"{where}: URI {shown!r} decodes to {what}; not opened")
            return None
        rel = _join_normal(self._base, path)
        if rel in (".", "..") or rel.startswith("../"):
            self.note("TB074", f"{where}: URI {shown!r} leaves the scan root; not opened")
            return None
        if self.src.root is None:
            self.note("TB075", f"{where}: URI {shown!r} cannot be resolved: the glTF is not a file on disk")
            return None
        state = _locate(self.src.root, rel, self._plain_folders)
        if state == "outside":
            self.note("TB074", f"{where}: URI {shown!r} leads through a symbolic link out of the scan root; not opened")
            return None
        if state == "missing":
            self.note("TB075", f"{where}: {rel} does not exist")
            return None
        return rel

    def _data_uri(self, uri: str, where: str, limit: int = MAX_DATA_URI_BYTES) -> bytes | None:
        head, sep, payload = uri.partition(",")
        if not sep or not head.lower().endswith(";base64"):
            self.note("TB079", f"{where}: the data: URI is not base64 ('{head[:40]}')")
            return None
        claimed = len(payload) * 3 // 4
        if claimed > limit:
            self.note("TB079", f"{where}: the data: URI holds about {claimed} bytes; texbudget decodes at most {limit}")
            return None
        try:
            return binascii.a2b_base64(payload, strict_mode=True)
        except (binascii.Error, ValueError) as exc:
            self.note("TB079", f"{where}: the data: URI's base64 is invalid ({exc})")
            return None

    # --- scene graph

    def _walk_scene(self, meshes: dict[int, MeshFacts]) -> tuple[tuple[str, int], ...]:
        doc = self.doc
        nodes = _get_list(doc, "nodes", "nodes")
        n_meshes = len(_get_list(doc, "meshes", "meshes"))
        n_skins = len(_get_list(doc, "skins", "skins"))
        children, has_parent = self._tree(nodes)
        node_mesh: list[int | None] = []
        node_multiplier: list[int] = []
        skinned: set[int] = set()
        lods: dict[int, list[int]] = {}
        for k, node in enumerate(nodes):
            # Fast path: no extension, and a valid or no mesh (and skin, looked at with a mesh).
            if type(node) is dict and "extensions" not in node:
                m = node.get("mesh")
                if m is None:
                    node_mesh.append(None)
                    node_multiplier.append(1)
                    continue
                if type(m) is int and 0 <= m < n_meshes:
                    skin = node.get("skin")
                    if skin is None or (type(skin) is int and 0 <= skin < n_skins):
                        node_mesh.append(m)
                        node_multiplier.append(1)
                        if skin is not None:
                            skinned.add(m)
                        continue
            where = f"node {k}"
            node = _item(nodes, k, where)
            m = _get_index(node, "mesh", where, n_meshes, "mesh")
            node_mesh.append(m)
            if m is not None and _get_index(node, "skin", where, n_skins, "skin") is not None:
                skinned.add(m)
            node_multiplier.append(self._gpu_instances(node, where))
            lod_ext = _ext(node, "MSFT_lod", where)
            if lod_ext is not None:
                ids = _get_list(lod_ext, "ids", f"{where} MSFT_lod")
                lods[k] = [_index_value(x, f"{where} MSFT_lod ids", len(nodes), "node") for x in ids]
        counts = [0] * n_meshes
        reach = self._reach(nodes, children, has_parent)
        visited_nodes = {k: times for k, times in enumerate(reach) if times}  # node -> scenes reaching it
        for k, times in visited_nodes.items():
            if node_mesh[k] is not None:
                counts[node_mesh[k]] += times * node_multiplier[k]  # type: ignore[index]
        lod_of_mesh: dict[int, tuple[int, str]] = {}
        for host, ids in lods.items():
            host_mesh = node_mesh[host]
            if host_mesh is None:
                continue
            group = f"{self.rel}#lod/node/{host}"
            lod_of_mesh.setdefault(host_mesh, (0, group))
            for level, k in enumerate(ids, start=1):
                m = node_mesh[k]
                if m is None:
                    continue
                lod_of_mesh.setdefault(m, (level, group))
                if k not in visited_nodes:  # LOD nodes live outside the tree: placed where the host is
                    counts[m] += visited_nodes.get(host, 0) * node_multiplier[host]
        if skinned or lod_of_mesh:
            for m, facts in list(meshes.items()):
                changes: dict[str, Any] = {}
                if m in skinned:
                    changes["skinned"] = True
                if m in lod_of_mesh:
                    changes["lod"], changes["lod_group"] = lod_of_mesh[m]
                if changes:
                    meshes[m] = replace(facts, **changes)
        if not nodes:
            return ()
        for m, facts in meshes.items():
            if counts[m] == 0:
                self.note("TB084", f"mesh {m} ({facts.name}) is used by no node of the scene")
        return tuple([(facts.path, counts[m]) for m, facts in meshes.items()])

    def _reach(self, nodes: list, children: list[list[int]], has_parent: list[bool]) -> list[int]:
        """In how many walked scenes each node is reached (a scene reaches a node once).

        Linear in nodes plus scene entries, whatever the file: walking each scene's tree in
        turn costs scenes × depth, and a file of 10,000 scenes that each list the top of a
        10,000-node chain (half a megabyte) would take minutes. Instead the forest is numbered
        once in depth-first order (a node's subtree is the interval [enter, leave)); a listed
        node inside the interval of another listed node of its scene is reached twice (TB080,
        counted once), the others start a branch, and a node's reach is the number of
        branches started at it or above it."""
        n = len(nodes)
        if not any(has_parent):
            return self._reach_flat(nodes, has_parent)
        enter, leave, order = _number_forest(children, has_parent)
        starts = [0] * n
        for roots in self._scene_roots(nodes, has_parent):
            open_until = -1
            for k in sorted(roots, key=enter.__getitem__):  # stable: a node listed twice stays in order
                if enter[k] < open_until:
                    self.note("TB080", f"node {k} is reached twice in one scene (the scene lists a node that is also a child); counted once")
                    continue
                starts[k] += 1
                open_until = leave[k]
        reach = [0] * n
        for k in order:  # parents before children
            reach[k] += starts[k]
            for c in children[k]:
                reach[c] += reach[k]
        return reach

    def _reach_flat(self, nodes: list, has_parent: list[bool]) -> list[int]:
        """``_reach`` for a forest without links (the usual flat scene): each node is a tree of
        its own, numbered k, so a scene reaches each node it lists once, and a node it lists
        again is reached twice (TB080, in the same order ``_reach`` finds them)."""
        reach = [0] * len(nodes)
        for roots in self._scene_roots(nodes, has_parent):
            last = -1
            for k in sorted(roots):
                if k == last:
                    self.note("TB080", f"node {k} is reached twice in one scene (the scene lists a node that is also a child); counted once")
                    continue
                reach[k] += 1
                last = k
        return reach

    def _gpu_instances(self, node: dict, where: str) -> int:
        ext = _ext(node, "EXT_mesh_gpu_instancing", where)
        if ext is None:
            return 1
        attrs = _get_dict(ext, "attributes", f"{where} EXT_mesh_gpu_instancing")
        n_accessors = len(_get_list(self.doc, "accessors", "accessors"))
        for name in attrs:
            acc = self.accessor(_need_index(attrs, name, f"{where} EXT_mesh_gpu_instancing", n_accessors, "accessor"))
            return acc.count if acc is not None else 1
        return 1

    def _tree(self, nodes: list) -> tuple[list[list[int]], list[bool]]:
        """Children per node with every link that breaks the tree (a second parent, a cycle)
        dropped and reported; and whether each node has a parent."""
        n = len(nodes)
        parent: list[int | None] = [None] * n
        children: list[list[int]] = [[] for _ in range(n)]
        linked = False
        for k in range(n):
            node = nodes[k]
            if type(node) is not dict:
                node = _item(nodes, k, f"node {k}")
            kids = node.get("children")
            if kids is None:
                continue
            if type(kids) is not list:
                kids = _get_list(node, "children", f"node {k}")
            for x in kids:
                c = x if type(x) is int and 0 <= x < n else _index_value(x, f"node {k} children", n, "node")
                if c == k:
                    self.note("TB080", f"node {k} lists itself as a child (a cycle); the link was ignored")
                elif parent[c] is not None:
                    self.note("TB080", f"node {c} has two parents (nodes {parent[c]} and {k}); the link from {k} was ignored")
                else:
                    parent[c] = k
                    children[k].append(c)
                    linked = True
        if not linked:  # no link, no cycle
            return children, [False] * n
        # With one parent each, a cycle is a loop of parent links: follow them, colouring.
        state = [0] * n  # 0 new, 1 on the current path, 2 done
        for start in range(n):
            path: list[int] = []
            at: int | None = start
            while at is not None and state[at] == 0:
                state[at] = 1
                path.append(at)
                at = parent[at]
            if at is not None and state[at] == 1:  # at's chain came back to itself
                loop = path[path.index(at):]
                p = parent[at]
                assert p is not None
                cycle = [at, *reversed(loop[1:]), at]  # in child order, ending with the dropped link
                self.note("TB080", f"nodes {' → '.join(map(str, cycle))} form a cycle; the link from {p} to {at} was ignored")
                children[p].remove(at)
                parent[at] = None
            for x in path:
                state[x] = 2
        return children, [p is not None for p in parent]

    def _scene_roots(self, nodes: list, has_parent: list[bool]) -> Iterator[list[int]]:
        scenes = _get_list(self.doc, "scenes", "scenes")
        if not scenes:
            yield [k for k in range(len(nodes)) if not has_parent[k]]
            return
        default = _get_index(self.doc, "scene", "the document", len(scenes), "scene")
        n = len(nodes)
        for s in [default] if default is not None else range(len(scenes)):
            scene = scenes[s]
            if type(scene) is not dict:
                scene = _item(scenes, s, f"scene {s}")
            listed = scene.get("nodes")
            if type(listed) is not list:
                listed = _get_list(scene, "nodes", f"scene {s}")
            yield [x if type(x) is int and 0 <= x < n else _index_value(x, f"scene {s} nodes", n, "node") for x in listed]


def _number_forest(children: list[list[int]], has_parent: list[bool]) -> tuple[list[int], list[int], list[int]]:
    """The forest numbered in depth-first order: (enter, leave, order); a node's subtree is
    the interval [enter, leave) of ``order``."""
    n = len(children)
    enter, leave = [0] * n, [0] * n
    order: list[int] = []
    for top in range(n):
        if has_parent[top]:
            continue
        stack: list[tuple[int, bool]] = [(top, False)]
        while stack:
            k, done = stack.pop()
            if done:
                leave[k] = len(order)
                continue
            enter[k] = len(order)
            order.append(k)
            stack.append((k, True))
            stack.extend((c, False) for c in reversed(children[k]))
    return enter, leave, order


def _plain_primitive(prim: Any, n_accessors: int, n_materials: int) -> tuple | None:
    """Fast path of ``_Document._primitive``: its result when every field of the primitive is
    a plain valid value and it has no extension; None for anything else (the full checks then
    decide, in their order, with their messages). No side effects."""
    if type(prim) is not dict or "extensions" in prim:
        return None
    attrs = prim.get("attributes")
    if type(attrs) is not dict or not attrs:
        return None
    for name, i in attrs.items():
        if type(name) is not str or type(i) is not int or not 0 <= i < n_accessors:
            return None
    targets = prim.get("targets")
    morph_ids: list[int] = []
    if targets is None:
        targets = []
    elif type(targets) is list:
        for target in targets:
            if type(target) is not dict:
                return None
            for i in target.values():
                if type(i) is not int or not 0 <= i < n_accessors:
                    return None
                morph_ids.append(i)
    else:
        return None
    ii = prim.get("indices")
    if ii is not None and (type(ii) is not int or not 0 <= ii < n_accessors):
        return None
    mode = prim.get("mode")
    if mode is None:
        mode = 4
    elif type(mode) is not int or not 0 <= mode <= 6:
        return None
    m = prim.get("material")
    if m is not None and (type(m) is not int or not 0 <= m < n_materials):
        return None
    return attrs, targets, morph_ids, ii, mode, m, None


def _join_normal(base: str, path: str) -> str:
    """``posixpath.normpath(posixpath.join(base, path))``, without the work when ``path`` is
    already plain (no empty, ``.`` or ``..`` segment), as URIs in real files are."""
    joined = f"{base}/{path}" if base else path
    padded = f"/{joined}/"  # each segment between slashes
    if "//" in padded or "/./" in padded or "/../" in padded:
        return posixpath.normpath(posixpath.join(base, path))
    return joined


def _locate(root: Path, rel: str, plain_folders: set[str]) -> str:
    """Where a normalised relative path leads: "file" (a regular file inside ``root``),
    "outside" (a symbolic link on the way leads out of ``root``) or "missing". One ``lstat``
    per path segment; only a path through a symbolic link is resolved in full.
    ``plain_folders`` holds the folders (relative to ``root``) already found to be a chain of
    real folders in this read: the images of a glTF share their folder, walked once."""
    path = os.fspath(root)
    folder, _, name = rel.rpartition("/")
    if folder in plain_folders:  # only the last segment is new
        path, parts = f"{path}/{folder}", [name]
    else:
        parts = rel.split("/")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        path = f"{path}/{part}"
        try:
            mode = os.lstat(path).st_mode
        except (OSError, ValueError):
            return "missing"
        if stat.S_ISLNK(mode):
            return _locate_through_link(root, rel)
        if i == last:
            if folder:  # every segment before this one was a real folder
                plain_folders.add(folder)
            return "file" if stat.S_ISREG(mode) else "missing"
        if not stat.S_ISDIR(mode):
            return "missing"
    return "missing"


def _locate_through_link(root: Path, rel: str) -> str:
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        return "outside"
    return "file" if target.is_file() else "missing"


def _plain_texture_slots(mat: Any, n_textures: int) -> list[tuple[str, int]] | None:
    """Fast path of ``_texture_slots``: (slot, texture) for every ``*Texture`` of a material
    whose holders are objects and whose textureInfos are objects with a valid index, in
    ``_texture_slots``' order; None for anything else (a key that is no string lands in the
    except). No side effects."""
    if type(mat) is not dict:
        return None
    pbr = mat.get("pbrMetallicRoughness")
    exts = mat.get("extensions")
    if (pbr is not None and type(pbr) is not dict) or (exts is not None and type(exts) is not dict):
        return None
    holders = [mat] if pbr is None else [pbr, mat]
    if exts:
        holders += [ext for ext in exts.values() if isinstance(ext, dict)]
    out: list[tuple[str, int]] = []
    try:
        for holder in holders:
            for key, info in holder.items():
                if key.endswith("Texture") and len(key) > 7:
                    if type(info) is not dict:
                        return None
                    t = info.get("index")
                    if type(t) is not int or not 0 <= t < n_textures:
                        return None
                    out.append((key[:-7], t))
    except (AttributeError, TypeError):
        return None
    return out


def _texture_slots(mat: dict, where: str) -> Iterator[tuple[str, dict, str]]:
    """(slot, textureInfo, where) for every ``*Texture`` of the material, its
    pbrMetallicRoughness and its extensions. The slot is the property name without
    ``Texture``: baseColor, metallicRoughness, normal, occlusion, emissive, clearcoat, …"""
    holders = [(_get_dict(mat, "pbrMetallicRoughness", where), f"{where} pbrMetallicRoughness"), (mat, where)]
    for name, ext in _get_dict(mat, "extensions", where).items():
        if isinstance(ext, dict):
            holders.append((ext, f"{where} {name}"))
    for holder, holder_where in holders:
        for key, info in holder.items():
            if isinstance(key, str) and key.endswith("Texture") and len(key) > 7:
                if not isinstance(info, dict):
                    raise _Broken("TB073", f"{holder_where}: '{key}' is not a JSON object")
                yield key[:-7], info, f"{holder_where} {key}"

