"""Godot's text resource syntax: the sections and Variant values of ``.tscn``, ``.tres`` and
``.escn`` files, and of Godot's ConfigFile text (``project.godot``, ``.import``).

A file is a list of sections. A section opens with a tag, ``[name key=value …]``, and holds
``key = value`` lines until the next tag; a value is a Godot Variant written as text (Godot's
``VariantParser``, ``core/variant/variant_parser.cpp``): ``"strings"`` (with ``\\n``,
``\\uXXXX`` escapes, and real newlines inside), ``&"StringName"``, numbers, ``true``,
``null``, ``[arrays]``, ``{dictionaries}``, constructors such as ``Vector3(0, 1, 0)``,
``PackedByteArray(…)`` (decimal bytes, or one base64 string since Godot 4.3), ``Array[int]([…])``,
``Object(Type, "key": value)``, and the references ``ExtResource("1_ab")``,
``SubResource("Mesh_x")`` and ``Resource("res://…")``. ``;`` starts a comment. A value may span
any number of lines.

Values become plain Python values (str, int, float, bool, None, list, dict) and three small
records: ``Ref`` (a reference), ``Packed`` (a packed array: its element count, never its
elements) and ``Call`` (any other constructor). Packed arrays, which hold nearly all of a
big file's bytes, are checked and counted with one regular expression each, never tokenised
number by number. A file that breaks the syntax raises ``GodotSyntaxError`` with its line.

The same document model serves the binary format (``godot_binary``): ``Doc`` with its external
resources, sub-resources, main resource and nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

#: Nesting deeper than this (arrays in dictionaries in arrays …) is refused; Godot's own writer
#: stops at 1024, real files nest a few levels.
MAX_DEPTH = 64


class GodotSyntaxError(ValueError):
    """The text breaks Godot's resource syntax; ``line`` is 1-based."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class Ref(NamedTuple):
    """A reference: ``kind`` "ext" (``ExtResource(id)``), "sub" (``SubResource(id)``) or "path"
    (``Resource("res://…")``, ``id`` the path or uid, ``fallback`` the path after a uid)."""

    kind: str
    id: str
    fallback: str = ""


class Packed(NamedTuple):
    """A packed array: ``length`` elements (bytes for PackedByteArray, vectors for
    PackedVector3Array). ``data`` holds the strings of a PackedStringArray, and for a
    PackedInt32Array its raw bytes (binary files) or where its numbers lie in the text
    (``TextSpan``); otherwise None."""

    type: str
    length: int
    data: object = None


@dataclass(frozen=True, slots=True, eq=False)
class TextSpan:
    """Where a packed array's numbers lie in a text file (``text[start:end]``, between its
    parentheses): kept, not copied, and read only by what needs the numbers (a GridMap's
    cells, ``readers.godot_gridmap``)."""

    text: str
    start: int
    end: int


class Call(NamedTuple):
    """Any other constructor: ``Vector3(…)``, ``NodePath("…")``, ``Object(…)``. Numeric
    constructors keep no arguments (nothing here needs them)."""

    name: str
    args: tuple = ()


# --- the document --------------------------------------------------------------------------------


@dataclass(slots=True)
class ExtRes:
    """An ``[ext_resource]``: its type, its path and its uid as the file writes them."""

    type: str
    path: str
    uid: str = ""


@dataclass(slots=True)
class Res:
    """A resource of the file: a ``[sub_resource]`` (``id`` its id) or the main ``[resource]``
    (``id`` "")."""

    type: str
    id: str
    props: dict[str, object]


@dataclass(slots=True)
class Node:
    """A ``[node]``: ``parent`` as the file writes it ("." for a child of the root, None for
    the root), ``instance`` a Ref or None, ``placeholder`` an ``instance_placeholder`` path."""

    name: str
    type: str
    parent: str | None
    instance: object
    props: dict[str, object]
    placeholder: str = ""


@dataclass(slots=True)
class Doc:
    """One Godot scene or resource file, text or binary. ``kind`` is "scene" (the main
    resource is a PackedScene: ``nodes``) or "resource" (``main``)."""

    kind: str
    type: str
    uid: str = ""
    format: int = 0
    ext: dict[str, ExtRes] = field(default_factory=dict)
    subs: list[Res] = field(default_factory=list)
    main: Res | None = None
    nodes: list[Node] = field(default_factory=list)
    base_scene: object = None  # a binary inherited scene's base (a Ref), else None
    notes: list[str] = field(default_factory=list)  # what was odd but not fatal


# --- the tokenizer ---------------------------------------------------------------------------------

_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_NUMBER = r"-?[0-9]++(?:\.[0-9]*+)?+(?:[eE][-+]?+[0-9]*+)?+"
#: Whitespace and ``;`` comments, then one token.
_TOKEN = re.compile(
    r"(?:\s++|;[^\n]*+)*+(?:"
    rf"(?P<s>{_STRING})|(?P<n>{_NUMBER})|(?P<i>-?[A-Za-z_][A-Za-z0-9_]*+)"
    rf"|(?P<sn>[&@]{_STRING})|(?P<c>\#[0-9A-Fa-f]*+)|(?P<p>[\[\]{{}}(),:=.]))",
    re.S,
)
_SKIP = re.compile(r"(?:\s++|;[^\n]*+)*+")
_NUM_ITEM = rf"(?:{_NUMBER}|-?inf|inf_neg|nan)"
#: The inside of a numeric constructor or packed array: numbers separated by commas.
_NUMBERS = re.compile(rf"\s*+(?:{_NUM_ITEM}\s*+(?:,\s*+{_NUM_ITEM}\s*+)*+)?+")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*+={0,2}")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{6}|.)", re.S)
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}
_WHITESPACE = re.compile(r"\s+")
_BLANK = re.compile(r"\s*+")
_SIMPLE_TAG = re.compile(r"(?:[^\]\\]|\\.)*+\]", re.S)

#: Numeric constructors and the number of arguments each takes.
_MATH: dict[str, int] = {
    "Vector2": 2, "Vector2i": 2, "Rect2": 4, "Rect2i": 4, "Vector3": 3, "Vector3i": 3,
    "Vector4": 4, "Vector4i": 4, "Transform2D": 6, "Matrix32": 6, "Plane": 4, "Quaternion": 4,
    "Quat": 4, "AABB": 6, "Rect3": 6, "Basis": 9, "Matrix3": 9, "Transform3D": 12,
    "Transform": 12, "Projection": 16, "Color": 4,
}
#: Numeric packed arrays (old names too) -> (canonical name, numbers per element).
_PACKED: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("PackedInt32Array", "PackedIntArray", "PoolIntArray", "IntArray"), ("PackedInt32Array", 1)),
    "PackedInt64Array": ("PackedInt64Array", 1),
    **dict.fromkeys(("PackedFloat32Array", "PackedRealArray", "PoolRealArray", "FloatArray"), ("PackedFloat32Array", 1)),
    "PackedFloat64Array": ("PackedFloat64Array", 1),
    **dict.fromkeys(("PackedVector2Array", "PoolVector2Array", "Vector2Array"), ("PackedVector2Array", 2)),
    **dict.fromkeys(("PackedVector3Array", "PoolVector3Array", "Vector3Array"), ("PackedVector3Array", 3)),
    **dict.fromkeys(("PackedVector4Array", "PoolVector4Array", "Vector4Array"), ("PackedVector4Array", 4)),
    **dict.fromkeys(("PackedColorArray", "PoolColorArray", "ColorArray"), ("PackedColorArray", 4)),
}
_BYTES = frozenset(("PackedByteArray", "PoolByteArray", "ByteArray"))
_STRINGS = frozenset(("PackedStringArray", "PoolStringArray", "StringArray"))
_KEYWORDS: dict[str, object] = {"true": True, "false": False, "null": None, "nil": None,
                                "inf": float("inf"), "-inf": float("-inf"), "inf_neg": float("-inf"),
                                "nan": float("nan")}


def unescape(body: str) -> str:
    """A string literal's text without its quotes, escapes resolved as Godot does (``\\n``,
    ``\\uXXXX``, ``\\UXXXXXX``, a UTF-16 pair of ``\\u`` escapes; any other ``\\x`` is x)."""
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if len(code) > 1:
            return chr(int(code[1:], 16)) if int(code[1:], 16) <= 0x10FFFF else "\ufffd"
        return _ESCAPES.get(code, code)

    text = _ESCAPE.sub(one, body)
    if any("\ud800" <= ch <= "\udfff" for ch in text):  # UTF-16 pairs written as two escapes
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


class _Parser:
    """Recursive descent over ``text``, one regular-expression match per token."""

    __slots__ = ("end", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.end = len(text)

    # tokens
    def fail(self, message: str, pos: int | None = None) -> GodotSyntaxError:
        at = self.pos if pos is None else pos
        return GodotSyntaxError(message, self.text.count("\n", 0, min(at, self.end)) + 1)

    def token(self) -> tuple[str, str]:
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            skipped = _SKIP.match(self.text, self.pos)
            at = skipped.end() if skipped else self.pos
            if at >= self.end:
                raise self.fail("unexpected end of file", at)
            raise self.fail(f"unexpected character {self.text[at]!r}", at)
        self.pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        return kind, m.group(kind)

    def expect(self, punct: str, what: str) -> None:
        kind, text = self.token()
        if kind != "p" or text != punct:
            raise self.fail(f"expected '{punct}' {what}, got {text!r}")

    def at_punct(self, punct: str) -> bool:
        """The next token is ``punct`` (not consumed)."""
        m = _SKIP.match(self.text, self.pos)
        at = m.end() if m else self.pos
        return self.text.startswith(punct, at)

    # values
    def value(self, kind: str, text: str, depth: int) -> object:
        if kind == "s":
            return unescape(text[1:-1])
        if kind == "n":
            return _number(text)
        if kind == "i":
            return self.identifier(text, depth)
        if kind == "p":
            if text == "[":
                return self.array(depth + 1)
            if text == "{":
                return self.dictionary(depth + 1)
            raise self.fail(f"expected a value, got {text!r}")
        if kind == "sn":
            return unescape(text[2:-1])
        return Call("Color", (text,))  # "#rrggbb"

    def next_value(self, depth: int) -> object:
        kind, text = self.token()
        return self.value(kind, text, depth)

    def array(self, depth: int) -> list:
        if depth > MAX_DEPTH:
            raise self.fail(f"values nested deeper than {MAX_DEPTH}")
        return self.items("]", "an array", depth, trailing=True)

    def items(self, close: str, what: str, depth: int, *, trailing: bool) -> list:
        """Values separated by commas up to ``close`` (a last comma allowed when ``trailing``:
        arrays allow one, constructors do not)."""
        out: list = []
        while True:
            kind, text = self.token()
            if kind == "p" and text == close:
                return out
            if out:
                if kind != "p" or text != ",":
                    raise self.fail(f"expected ',' or '{close}' in {what}, got {text!r}")
                kind, text = self.token()
                if trailing and kind == "p" and text == close:
                    return out
            out.append(self.value(kind, text, depth))

    def dictionary(self, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise self.fail(f"values nested deeper than {MAX_DEPTH}")
        out: dict = {}
        first = True
        while True:
            kind, text = self.token()
            if kind == "p" and text == "}":
                return out
            if not first:
                if kind != "p" or text != ",":
                    raise self.fail(f"expected ',' or '}}' in a dictionary, got {text!r}")
                kind, text = self.token()
                if kind == "p" and text == "}":
                    return out
            first = False
            key = self.value(kind, text, depth)
            self.expect(":", "after a dictionary key")
            out[_hashable(key)] = self.next_value(depth)

    def numbers(self, name: str) -> int:
        """The numbers inside ``name(…)`` after its "(": their count. Checked by one match."""
        close = self.text.find(")", self.pos)
        if close >= 0:
            m = _NUMBERS.fullmatch(self.text, self.pos, close)
            if m is not None:
                blank = _BLANK.fullmatch(self.text, self.pos, close) is not None
                count = 0 if blank else self.text.count(",", self.pos, close) + 1
                self.pos = close + 1
                return count
        count = 0  # not plain numbers (a comment inside, or an error): token by token, for the message
        while True:
            kind, text = self.token()
            if kind == "p" and text == ")":
                return count
            if count:
                if kind != "p" or text != ",":
                    raise self.fail(f"expected ',' or ')' in {name}(), got {text!r}")
                kind, text = self.token()
            if kind != "n" and not (kind == "i" and text in ("inf", "-inf", "inf_neg", "nan")):
                raise self.fail(f"expected a number in {name}(), got {text!r}")
            count += 1

    def identifier(self, name: str, depth: int) -> object:
        if name in _KEYWORDS:
            return _KEYWORDS[name]
        if name in _MATH:
            self.expect("(", f"after {name}")
            count = self.numbers(name)
            if count != _MATH[name]:
                raise self.fail(f"{name}() takes {_MATH[name]} numbers, got {count}")
            return Call(name)
        packed = _PACKED.get(name)
        if packed is not None:
            self.expect("(", f"after {name}")
            start = self.pos
            count = self.numbers(name)
            if packed[0] == "PackedInt32Array":
                return Packed(packed[0], count, TextSpan(self.text, start, self.pos - 1))
            return Packed(packed[0], count // packed[1])
        if name in _BYTES:
            self.expect("(", f"after {name}")
            return Packed("PackedByteArray", self.byte_array())
        if name in _STRINGS:
            self.expect("(", f"after {name}")
            items = self.call_args(name, depth)
            if not all(isinstance(s, str) for s in items):
                raise self.fail(f"{name}() holds strings only")
            return Packed("PackedStringArray", len(items), tuple(items))
        if name in ("ExtResource", "SubResource", "Resource"):
            return self.reference(name)
        if name in ("Array", "Dictionary") and self.at_punct("["):
            return self.typed(name, depth)
        if name == "Object":
            return self.object_call(depth)
        if self.at_punct("("):  # NodePath("…"), RID(), Callable(), and constructors of later versions
            self.expect("(", f"after {name}")
            return Call(name, tuple(self.call_args(name, depth)))
        raise self.fail(f"unexpected identifier {name!r}")

    def call_args(self, name: str, depth: int) -> list:
        return self.items(")", f"{name}()", depth + 1, trailing=False)

    def byte_array(self) -> int:
        """The bytes of ``PackedByteArray(…)`` after its "(": decimal numbers or one base64
        string (Godot 4.3+)."""
        m = _TOKEN.match(self.text, self.pos)
        if m is None or m.lastgroup != "s":
            return self.numbers("PackedByteArray")
        start, end = m.start("s") + 1, m.end("s") - 1
        self.pos = m.end()
        self.expect(")", "after the base64 string of PackedByteArray")
        length = end - start
        pad = self.text.count("=", max(start, end - 2), end)
        if length % 4 or _BASE64.fullmatch(self.text, start, end) is None:
            raise self.fail("PackedByteArray(): the string is not base64")
        return length // 4 * 3 - pad

    def reference(self, name: str) -> Ref:
        self.expect("(", f"after {name}")
        kind, text = self.token()
        if kind == "s":
            ident = unescape(text[1:-1])
        elif kind == "n" and name != "Resource":  # Godot 3: ExtResource( 1 )
            ident = text
        else:
            raise self.fail(f"expected a string in {name}(), got {text!r}")
        fallback = ""
        kind, text = self.token()
        if name == "Resource" and kind == "p" and text == ",":
            kind, text = self.token()
            if kind != "s":
                raise self.fail(f"expected a path string in Resource(), got {text!r}")
            fallback = unescape(text[1:-1])
            kind, text = self.token()
        if kind != "p" or text != ")":
            raise self.fail(f"expected ')' after {name}(\"…\", got {text!r}")
        return Ref({"ExtResource": "ext", "SubResource": "sub"}.get(name, "path"), ident, fallback)

    def typed(self, name: str, depth: int) -> object:
        """``Array[Type]([…])`` or ``Dictionary[K, V]({…})``: the values; the types are skipped
        (a type may be a reference to a script: ``Array[ExtResource("1")]``)."""
        self.expect("[", f"after {name}")
        for i in range(1 if name == "Array" else 2):
            if i:
                self.expect(",", f"between the types of {name}[…]")
            kind, text = self.token()
            if kind != "i":
                raise self.fail(f"expected a type name in {name}[…], got {text!r}")
            if text in ("ExtResource", "SubResource", "Resource"):
                self.reference(text)
        self.expect("]", f"after the type of {name}[…]")
        self.expect("(", f"after {name}[…]")
        opening = "[" if name == "Array" else "{"
        self.expect(opening, f"in {name}[…](")
        values = self.array(depth + 1) if name == "Array" else self.dictionary(depth + 1)
        self.expect(")", f"after {name}[…](…")
        return values

    def object_call(self, depth: int) -> Call:
        """``Object(Type, "key": value, …)`` (an input event in project.godot)."""
        self.expect("(", "after Object")
        kind, type_name = self.token()
        if kind != "i":
            raise self.fail(f"expected a type name in Object(), got {type_name!r}")
        props: dict = {}
        while True:
            kind, text = self.token()
            if kind == "p" and text == ")":
                return Call("Object", (type_name, props))
            if kind != "p" or text != ",":
                raise self.fail(f"expected ',' or ')' in Object(), got {text!r}")
            kind, text = self.token()
            if kind != "s":
                raise self.fail(f"expected a property name string in Object(), got {text!r}")
            self.expect(":", "after a property name in Object()")
            props[unescape(text[1:-1])] = self.next_value(depth + 1)

    # sections
    def tag(self, simple: bool) -> tuple[str, dict[str, object]]:
        """A tag after its "[": its name and fields. A simple tag (ConfigFile sections) is the
        raw text up to the first "]" not escaped by a backslash."""
        if simple:
            m = _SIMPLE_TAG.match(self.text, self.pos)
            if m is None:
                raise self.fail("a section header is never closed by ']'")
            self.pos = m.end()
            return m.group()[:-1].strip(), {}
        kind, name = self.token()
        if kind != "i":
            raise self.fail(f"expected a tag name after '[', got {name!r}")
        fields: dict[str, object] = {}
        naming = True
        while True:
            kind, text = self.token()
            if kind == "p" and text == "]":
                return name, fields
            if naming and kind == "p" and text in ".:":  # [someprop.Android]
                kind2, text2 = self.token()
                if kind2 != "i":
                    raise self.fail(f"expected an identifier after {text!r} in a tag name")
                name += text + text2
                continue
            naming = False
            if kind != "i":
                raise self.fail(f"expected a field name in [{name} …], got {text!r}")
            self.expect("=", f"after {text} in [{name} …]")
            fields[text] = self.next_value(0)

    def sections(self, simple: bool) -> list[tuple[str, dict[str, object], dict[str, object]]]:
        out: list[tuple[str, dict[str, object], dict[str, object]]] = []
        props: dict[str, object] | None = None
        text, end = self.text, self.end
        while True:
            m = _SKIP.match(text, self.pos)
            self.pos = m.end() if m else self.pos
            if self.pos >= end:
                return out
            if text[self.pos] == "[":
                self.pos += 1
                name, fields = self.tag(simple)
                props = {}
                out.append((name, fields, props))
                continue
            if text[self.pos] == '"':
                _kind, key_text = self.token()
                key = unescape(key_text[1:-1])
                self.expect("=", f"after the key {key!r}")
            else:
                eq = text.find("=", self.pos)
                if eq < 0:  # Godot stops reading here, as at the end of the file
                    return out
                key = _WHITESPACE.sub("", text[self.pos:eq])
                self.pos = eq + 1
            if props is None:
                props = {}
                out.append(("", {}, props))
            props[key] = self.next_value(0)


def _number(text: str) -> int | float:
    if "." not in text and "e" not in text and "E" not in text:
        return int(text)
    try:
        return float(text)
    except ValueError:  # "1.5e" or "1e-": Godot reads the digits it has
        return float(text.rstrip("eE+-") or 0)


def _hashable(key: object) -> object:
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


def parse_sections(text: str, *, simple_tags: bool = False) -> list[tuple[str, dict[str, object], dict[str, object]]]:
    """The sections of a Godot text file: ``(tag name, tag fields, properties)`` in order;
    properties before any tag (a ConfigFile's ``config_version=5``) form a section named "".
    ``simple_tags`` reads section headers as ConfigFile does (raw names). Raises
    GodotSyntaxError."""
    return _Parser(text).sections(simple_tags)


def parse_value(text: str) -> object:
    """One Variant written as text (a ConfigFile value). Raises GodotSyntaxError."""
    parser = _Parser(text)
    value = parser.next_value(0)
    m = _SKIP.match(text, parser.pos)
    if m is not None and m.end() < len(text):
        raise parser.fail("text after the value", m.end())
    return value


# --- a text file as a document -----------------------------------------------------------------

#: Sections a scene or resource holds besides the ones read (signals, editable children).
_IGNORED_TAGS = frozenset(("connection", "editable"))


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _ident(value: object) -> str | None:
    """An id as the file writes it: a string (Godot 4) or an integer (Godot 3)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def text_doc(sections: list[tuple[str, dict[str, object], dict[str, object]]]) -> Doc:
    """The document of a parsed ``.tscn`` / ``.tres`` / ``.escn``. Raises GodotSyntaxError
    (line 1) when the first section is not ``[gd_scene …]`` or ``[gd_resource …]``."""
    if not sections or sections[0][0] not in ("gd_scene", "gd_resource"):
        first = sections[0][0] if sections else ""
        found = f"[{first}]" if first else ("properties before any tag" if sections else "no section")
        raise GodotSyntaxError(f"not a Godot scene or resource: it starts with {found}, not [gd_scene] or [gd_resource]", 1)
    name, fields, _ = sections[0]
    fmt = fields.get("format")
    doc = Doc(kind="scene" if name == "gd_scene" else "resource",
              type="PackedScene" if name == "gd_scene" else (_text(fields.get("type")) or "Resource"),
              uid=_text(fields.get("uid")), format=fmt if isinstance(fmt, int) and not isinstance(fmt, bool) else 0)
    for tag, fields, props in sections[1:]:
        if tag == "ext_resource":
            ident = _ident(fields.get("id"))
            if ident is None:
                doc.notes.append(f"an [ext_resource] without an id ({_text(fields.get('path')) or 'no path'}) was skipped")
                continue
            doc.ext[ident] = ExtRes(type=_text(fields.get("type")), path=_text(fields.get("path")), uid=_text(fields.get("uid")))
        elif tag == "sub_resource":
            ident = _ident(fields.get("id"))
            if ident is None:
                doc.notes.append(f"a [sub_resource] of type {_text(fields.get('type')) or '?'} without an id was skipped")
                continue
            doc.subs.append(Res(type=_text(fields.get("type")), id=ident, props=props))
        elif tag == "resource":
            doc.main = Res(type=doc.type, id="", props=props)
        elif tag == "node":
            parent = fields.get("parent")
            instance = fields.get("instance")
            doc.nodes.append(Node(name=_text(fields.get("name")), type=_text(fields.get("type")),
                                  parent=parent if isinstance(parent, str) else None,
                                  instance=instance if isinstance(instance, Ref) else None, props=props,
                                  placeholder=_text(fields.get("instance_placeholder"))))
        elif tag not in _IGNORED_TAGS:
            doc.notes.append(f"an unknown section [{tag}] was skipped")
    return doc
