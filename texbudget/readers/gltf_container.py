"""The glTF container and its limits: the JSON of a .gltf file or of a GLB's JSON chunk, decoded
into ``gltf_schema.Document`` (refused above the caps before it is parsed), the GLB header and
chunks, and the per-file state every part of the reader writes its findings to (``Context``).

JSON: ``msgspec.json`` decodes the document into the schema, checking every type as it parses.
A JSON it refuses is handed to Python's ``json``, whose grammar is wider, and the objects
converted to the schema by ``msgspec.convert``: ``NaN`` and ``Infinity`` (written by Python
exporters) and lone surrogate escapes are read as ``json`` reads them, an integer written as a
float (``4.0``, as glTF-Validator accepts it) is an integer, and a document that is not JSON
gets ``json``'s own message, with its line and column. A value of the wrong type is TB073,
naming its field (``$.accessors[3].count: expected `int | null`, got `str```).
"""

from __future__ import annotations

import json
import struct
from typing import Any

import msgspec

from texbudget import findings
from texbudget.model import Finding, file_of
from texbudget.readers import Source
from texbudget.readers._common import read_upto
from texbudget.readers.gltf_schema import Document

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
#: 1.5 GiB over 15 seconds (the fallback parser builds every object; msgspec skips unknown
#: ones). A real glTF spends 40+ bytes of JSON per object, so these fit any JSON under
#: MAX_JSON_BYTES that is not built to explode.
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

_BOM = b"\xef\xbb\xbf"
_DECODER = msgspec.json.Decoder(Document)


class Broken(Exception):
    """The file (or, caught by its reader, one part of it) cannot be read further; carries
    the one finding that says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Context:
    """One glTF's reading: where it is, its document, and the findings so far."""

    __slots__ = ("_counts", "_materials", "base", "doc", "found", "rel", "src")

    def __init__(self, src: Source, doc: Document) -> None:
        self.src = src
        self.doc = doc
        self.rel: str = src.rel  # the file's identity
        self.base = (file_of(self.rel) if "#" in self.rel else self.rel).rpartition("/")[0]  # its folder: URIs resolve from it
        self.found: list[Finding] = []
        self._counts: dict[str, int] = {}  # findings per code, kept or not
        self._materials: dict[int, str] = {}

    def material_id(self, m: int) -> str:
        """Material ``m``'s identity, ``file.glb#material/N``: one string for its primitives
        and its texture slots."""
        found = self._materials.get(m)
        if found is None:
            found = self._materials[m] = f"{self.rel}#material/{m}"
        return found

    def note(self, code: str, message: str) -> None:
        """One finding; past MAX_NOTES_PER_CODE of a code they are only counted (a hostile
        file can break a rule a million times)."""
        count = self._counts[code] = self._counts.get(code, 0) + 1
        if count <= MAX_NOTES_PER_CODE:
            self.found.append(findings.make(self.rel, code, message))

    def more_notes(self) -> None:
        """One finding per code that had more than MAX_NOTES_PER_CODE: how many were not listed."""
        for code, count in self._counts.items():
            if count > MAX_NOTES_PER_CODE:
                self.found.append(findings.make(self.rel, code, f"… and {count - MAX_NOTES_PER_CODE} more {code} findings in this file, not listed"))


# --- values kept once in a process ---------------------------------------------------------------

#: Equal values the readers' records hold are kept once in a process, as the cache's decoder
#: keeps them (``cache.Decoder``): a primitive's attributes and their tuple, its accessor ids,
#: a scene's column of instance counts and of texture slots. Meshes and scenes of a library
#: share them, and a scan of 100k files would otherwise hold megabytes of copies. Keyed by
#: the values' fields and what they are (a key ends with its kind: "attributes", "ids", …);
#: emptied past ``SHARED_MAX`` entries (a long TUI session).
SHARED: dict[tuple, Any] = {}
SHARED_MAX = 1 << 16


def kept(key: tuple, value: Any) -> Any:
    """The one kept value for ``key``: ``value`` the first time."""
    found = SHARED.get(key)
    if found is None:
        if len(SHARED) >= SHARED_MAX:
            SHARED.clear()
        found = SHARED[key] = value
    return found


def kept_column(items: tuple, kind: str) -> tuple:
    """The one kept tuple equal to ``items`` (a column of ``kind``: "counts", "slots")."""
    if not items:
        return items
    key = (*items, kind)
    found = SHARED.get(key)
    return found if found is not None else kept(key, items)


# --- checks of values the schema cannot say ------------------------------------------------------


def shown(value: Any) -> str:
    """A JSON value as a message shows it: at most 40 characters."""
    return str(value)[:40] if type(value) is int else json.dumps(value)[:40]


def required(value: int | None, key: str, where: str) -> int:
    if value is None:
        raise Broken("TB073", f"{where}: required '{key}' is missing")
    return value


def at_least(value: int, key: str, where: str, minimum: int) -> int:
    if value < minimum:
        raise Broken("TB073", f"{where}: '{key}' is {value}; it must be at least {minimum}")
    return value


def index(value: int, where: str, n: int, what: str) -> int:
    """``value`` as an index into an array of ``n`` items (``where`` names it: "node 3: 'mesh'")."""
    if 0 <= value < n:
        return value
    if value < 0:
        raise Broken("TB073", f"{where} is {shown(value)}, not an index")
    raise Broken("TB073", f"{where} points to {what} {value}, but the file has {n}")


def optional_index(value: int | None, where: str, n: int, what: str) -> int | None:
    return None if value is None or 0 <= value < n else index(value, where, n, what)


# --- JSON ---------------------------------------------------------------------------------------


def parse_json(data: bytes) -> Document:
    """The document, decoded into the schema; Broken (TB070, TB071, TB073) when it cannot be."""
    # Each container and value takes a byte at least: a JSON no longer than a cap needs no count.
    if len(data) > MAX_JSON_CONTAINERS:
        containers = data.count(b"{") + data.count(b"[")
        if containers > MAX_JSON_CONTAINERS:
            raise Broken("TB071", f"the JSON holds {containers} objects and arrays; texbudget parses at most {MAX_JSON_CONTAINERS} (parsing takes about 70 bytes of memory each)")
    if len(data) > MAX_JSON_VALUES:
        values = data.count(b",")
        if values > MAX_JSON_VALUES:
            raise Broken("TB071", f"the JSON holds {values} values; texbudget parses at most {MAX_JSON_VALUES}")
    bom = 3 if data[:3] == _BOM else 0  # one byte-order mark is allowed, as "utf-8-sig" decodes
    if bom:
        data = data[3:]
    if not data.isascii():  # every byte UTF-8 (msgspec checks only the strings it keeps)
        try:
            data.decode()
        except UnicodeDecodeError as exc:
            raise Broken("TB070", f"the JSON is not UTF-8 (byte {exc.start + bom})") from None
    try:
        return _DECODER.decode(data)
    except RecursionError:
        raise Broken("TB070", "the JSON is nested deeper than its parser can follow") from None
    except msgspec.MsgspecError:
        pass  # not strict JSON, or a value of the wrong type: json and convert say which
    return _parse_loosely(data.decode())


def _parse_loosely(text: str) -> Document:
    """A document msgspec refused, parsed by ``json`` and converted to the schema."""
    try:
        doc = json.loads(text, parse_float=_number)
    except RecursionError:
        raise Broken("TB070", "the JSON is nested deeper than its parser can follow") from None
    except json.JSONDecodeError as exc:
        raise Broken("TB070", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise Broken("TB070", f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise Broken("TB070", f"the JSON's top level is {type(doc).__name__}, not an object")
    try:
        return msgspec.convert(doc, Document)
    except RecursionError:
        raise Broken("TB070", "the JSON is nested deeper than its parser can follow") from None
    except msgspec.ValidationError as exc:
        raise Broken("TB073", _type_message(str(exc))) from None


def _number(literal: str) -> int | float:
    """A JSON number with a fraction or an exponent: an integer when it is one (``4.0``)."""
    value = float(literal)
    return int(value) if value.is_integer() else value


def _type_message(error: str) -> str:
    """msgspec's "Expected `int`, got `str` - at `$.accessors[0].count`" as
    "$.accessors[0].count: expected `int`, got `str`"."""
    what, sep, where = error.rpartition(" - at ")
    if not sep:
        return f"the document: {error[:1].lower()}{error[1:]}"
    return f"{where.strip('`')}: {what[:1].lower()}{what[1:]}"


# --- GLB ------------------------------------------------------------------------------------------


def read_glb_chunks(src: Source, size: int) -> tuple[Document, tuple[int, int] | None, list[tuple[str, str]]]:
    """The document, the BIN chunk's (offset, length) and notes, from a few ``read_at`` looks
    (a prefetched source serves them from memory)."""
    header = src.read_at(0, 20)
    if len(header) < 12:
        raise Broken("TB072", f"the file is {size} bytes; a GLB header needs 12")
    magic, version, length = struct.unpack_from("<4sII", header)
    if magic != GLB_MAGIC:
        raise Broken("TB072", f"the file starts with {magic!r}, not the GLB magic b'glTF'")
    if version != 2:
        raise Broken("TB082", f"the GLB header says version {version}; texbudget reads glTF 2.0")
    extra: list[tuple[str, str]] = []
    if length > size:
        raise Broken("TB072", f"the GLB header says the file is {length} bytes, but it has {size} (truncated)")
    if length < size:
        extra.append(("TB072", f"the GLB header says the file is {length} bytes, but it has {size}; the {size - length} bytes after it were ignored"))
    if len(header) < 20:
        raise Broken("TB072", "the GLB has no JSON chunk")
    json_len, json_type = struct.unpack_from("<II", header, 12)
    if json_type != CHUNK_JSON:
        raise Broken("TB072", f"the first GLB chunk has type 0x{json_type:08X}, not JSON")
    if 20 + json_len > length:
        raise Broken("TB072", f"the JSON chunk claims {json_len} bytes at offset 20, but the file ends at {length}")
    if json_len > MAX_JSON_BYTES:
        raise Broken("TB071", f"the JSON chunk is {json_len} bytes; texbudget parses at most {MAX_JSON_BYTES}")
    doc = parse_json(src.read_at(20, json_len).rstrip(b" \x00"))
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
            raise Broken("TB005", f"the chunk header at offset {offset} could not be read (the file changed while it was read)")
        chunk_len, chunk_type = struct.unpack("<II", chunk_head)
        if offset + 8 + chunk_len > length:
            raise Broken("TB072", f"the chunk at offset {offset} claims {chunk_len} bytes, but the file ends at {length}")
        if chunk_type == CHUNK_BIN and bin_chunk is None:
            bin_chunk = (offset + 8, chunk_len)
        offset += 8 + chunk_len
    return doc, bin_chunk, extra


def read_gltf_json(src: Source) -> Document:
    """A .gltf file's document."""
    size = src.size()
    if size > MAX_JSON_BYTES:
        raise Broken("TB071", f"the JSON is {size} bytes; texbudget parses at most {MAX_JSON_BYTES}")
    with src.open() as f:
        raw = read_upto(f, MAX_JSON_BYTES + 1)
    if len(raw) > MAX_JSON_BYTES:  # it grew since it was measured
        raise Broken("TB071", f"the JSON is over {MAX_JSON_BYTES} bytes; texbudget parses at most {MAX_JSON_BYTES}")
    return parse_json(raw)
