"""Valid seed files for every reader, each with a table of its real header fields, and the
mutations the fuzz tests, the hostile folder (``hostile.py``) and ``benchmarks/fuzz.py`` apply.

A ``Seed`` is one small valid file (``name`` with the suffix that picks its reader) plus its
``fields``: where each integer of its header lives — binary (offset + struct format, found by
walking the container: PNG chunks, JPEG segments, the TIFF IFD, KTX1 imageSize words, KTX2
level index and DFD, EXR attribute sizes, GLB chunks) or decimal text (the resolution line of
a Radiance file, a PLY element count, every integer of a glTF's JSON, which is written with
each integer padded to 20 characters so a GLB's chunk lengths stay true when one is changed).

``mutate(data, fields, ops)`` applies a list of operations: ``("cut", n)``,
``("flip", offset, bit)``, ``("set", field_index, value)``, ``("splice", at, start, end)``
(bytes of the file itself inserted elsewhere), ``("overwrite", at, bytes)``,
``("delete", start, end)`` and ``("append", bytes)``. ``special_values(field)`` are the
integers every field is set to: 0, 1, 2^31−1 and 2^32−1 (masked to the field's width; for
8-byte and decimal fields also 2^63−1, 2^64−1 and 2^40).
"""

from __future__ import annotations

import base64
import io
import json
import re
import struct
from dataclasses import dataclass
from functools import cache

from PIL import Image

from tests.readers import factories as fx
from tests.readers import fbx_factories as fbx
from tests.readers import godot_factories as gf
from tests.readers import unity_files as uf
from tests.readers.gltf_factories import FLOAT, GltfBuilder, triangle_mesh
from tests.readers.gltf_factories import png_bytes as gltf_png


@dataclass(frozen=True, slots=True)
class Field:
    """An integer in a file: ``fmt`` is a struct format ("<I", ">H", "<Q", "B", …), "u24"
    (3 bytes little-endian) or "dec" (decimal digits; ``width`` characters, padding spaces
    included, are replaced)."""

    name: str
    offset: int
    fmt: str
    width: int = 0

    @property
    def size(self) -> int:
        if self.fmt == "dec":
            return self.width
        if self.fmt == "u24":
            return 3
        return struct.calcsize(self.fmt)


@dataclass(frozen=True, slots=True)
class Seed:
    name: str  # file name; its suffix picks the reader
    data: bytes
    fields: tuple[Field, ...]
    kind: str  # "texture", "mesh" or "scene" (an engine scene or resource file: SceneFacts.refs)
    companions: tuple[tuple[str, bytes], ...] = ()  # files beside it (a .gltf's .bin)

    @property
    def suffix(self) -> str:
        return "." + self.name.rsplit(".", 1)[1]

    def field(self, name: str) -> int:
        """Index of the field called ``name``."""
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        raise KeyError(f"{self.name} has no field {name!r}: {[f.name for f in self.fields]}")


# --- mutations ----------------------------------------------------------------------------------


def special_values(field: Field) -> tuple[int, ...]:
    """0, 1, 2^31−1, 2^32−1 for the field's width (2^15−1 and 2^16−1 for 2 bytes, …)."""
    if field.fmt == "dec":
        return (0, 1, 2**31 - 1, 2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1)
    bits = 8 * field.size
    base = (0, 1, 2**31 - 1, 2**32 - 1, 2**63 - 1, 2**64 - 1)
    out = sorted({v & ((1 << bits) - 1) for v in base} | {(1 << (bits - 1)) - 1, (1 << bits) - 1})
    return tuple(out)


def set_field(data: bytes, field: Field, value: int) -> bytes:
    """``data`` with the field set to ``value`` (masked to its width; a decimal field keeps
    its width when the digits fit, else the file grows)."""
    end = field.offset + field.size
    if end > len(data):
        return data
    if field.fmt == "dec":
        text = str(value).encode()
        text = text.ljust(field.width) if len(text) <= field.width else text
        return data[: field.offset] + text + data[end:]
    value &= (1 << (8 * field.size)) - 1
    if field.fmt == "u24":
        raw = value.to_bytes(3, "little")
    else:
        unsigned = field.fmt.replace("i", "I").replace("h", "H").replace("q", "Q").replace("b", "B")
        raw = struct.pack(unsigned, value)
    return data[: field.offset] + raw + data[end:]


def mutate(data: bytes, fields: tuple[Field, ...], ops: list[tuple]) -> bytes:
    """Apply the operations in order. Offsets past the end are clamped, so any list is valid."""
    out = bytes(data)
    for op in ops:
        kind = op[0]
        n = len(out)
        if kind == "cut":
            out = out[: min(op[1], n)]
        elif kind == "flip":
            if n:
                pos = op[1] % n
                out = out[:pos] + bytes([out[pos] ^ (1 << (op[2] & 7))]) + out[pos + 1 :]
        elif kind == "set":
            if fields:
                out = set_field(out, fields[op[1] % len(fields)], op[2])
        elif kind == "splice":
            at, start, end = (min(x, n) for x in op[1:4])
            out = out[:at] + out[min(start, end) : max(start, end)] + out[at:]
        elif kind == "overwrite":
            at = min(op[1], n)
            out = out[:at] + op[2] + out[at + len(op[2]) :]
        elif kind == "delete":
            start, end = sorted((min(op[1], n), min(op[2], n)))
            out = out[:start] + out[end:]
        elif kind == "append":
            out = out + op[1]
        else:
            raise ValueError(f"unknown mutation {kind!r}")
    return out


# --- field tables, by walking each container ---------------------------------------------------


def _png_fields(data: bytes) -> list[Field]:
    fields = [Field("width", 16, ">I"), Field("height", 20, ">I"), Field("bit_depth", 24, "B"),
              Field("color_type", 25, "B"), Field("interlace", 28, "B")]
    pos = 8
    while pos + 8 <= len(data):
        length = struct.unpack_from(">I", data, pos)[0]
        kind = data[pos + 4 : pos + 8].decode("latin-1")
        fields.append(Field(f"{kind}.length", pos, ">I"))
        pos += 12 + length
    return fields


def _jpeg_fields(data: bytes) -> list[Field]:
    fields: list[Field] = []
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        length = struct.unpack_from(">H", data, pos + 2)[0]
        fields.append(Field(f"marker{marker:02X}.length", pos + 2, ">H"))
        if marker in (0xC0, 0xC1, 0xC2):
            fields += [Field("precision", pos + 4, "B"), Field("height", pos + 5, ">H"),
                       Field("width", pos + 7, ">H"), Field("components", pos + 9, "B")]
        if marker == 0xDA:
            break
        pos += 2 + length
    return fields


_TGA_FIELDS = [Field("id_length", 0, "B"), Field("cmap_type", 1, "B"), Field("image_type", 2, "B"),
               Field("cmap_first", 3, "<H"), Field("cmap_length", 5, "<H"), Field("cmap_bits", 7, "B"),
               Field("width", 12, "<H"), Field("height", 14, "<H"), Field("depth", 16, "B"),
               Field("descriptor", 17, "B")]
_BMP_FIELDS = [Field("file_size", 2, "<I"), Field("data_offset", 10, "<I"), Field("header_size", 14, "<I"),
               Field("width", 18, "<i"), Field("height", 22, "<i"), Field("planes", 26, "<H"),
               Field("bits", 28, "<H"), Field("compression", 30, "<I"), Field("image_size", 34, "<I"),
               Field("colors_used", 46, "<I")]


def _tiff_fields(data: bytes) -> list[Field]:
    ifd = struct.unpack_from("<I", data, 4)[0]
    fields = [Field("ifd_offset", 4, "<I"), Field("entry_count", ifd, "<H")]
    count = struct.unpack_from("<H", data, ifd)[0]
    for i in range(count):
        at = ifd + 2 + 12 * i
        tag = struct.unpack_from("<H", data, at)[0]
        fields += [Field(f"tag{tag}.type", at + 2, "<H"), Field(f"tag{tag}.count", at + 4, "<I"),
                   Field(f"tag{tag}.value", at + 8, "<I")]
    fields.append(Field("next_ifd", ifd + 2 + 12 * count, "<I"))
    return fields


def _webp_fields(data: bytes, pos: int = 12, end: int | None = None, prefix: str = "") -> list[Field]:
    """The RIFF size and every chunk's size and header fields, into each ANMF frame's chunks
    (named ``frame1.VP8 .size``, …)."""
    fields = [] if prefix else [Field("riff_size", 4, "<I")]
    end = len(data) if end is None else end
    frames = 0
    while pos + 8 <= end:
        kind = data[pos : pos + 4].decode("latin-1")
        size = struct.unpack_from("<I", data, pos + 4)[0]
        frames += kind == "ANMF"
        fields.append(Field(f"frame{frames}.ANMF.size" if kind == "ANMF" else f"{prefix}{kind}.size", pos + 4, "<I"))
        if kind == "VP8X":
            fields += [Field("flags", pos + 8, "B"), Field("canvas_width", pos + 12, "u24"), Field("canvas_height", pos + 15, "u24")]
        elif kind == "VP8L":
            fields.append(Field(f"{prefix}vp8l_bits", pos + 9, "<I"))
        elif kind == "VP8 ":
            fields += [Field(f"{prefix}vp8_tag", pos + 8, "u24"), Field(f"{prefix}vp8_width", pos + 14, "<H"),
                       Field(f"{prefix}vp8_height", pos + 16, "<H")]
        elif kind == "ANMF":
            name = f"frame{frames}"
            fields += [Field(f"{name}.{k}", pos + 8 + 3 * i, "u24") for i, k in enumerate(("x", "y", "width", "height"))]
            fields += _webp_fields(data, pos + 8 + 16, min(end, pos + 8 + size), f"{name}.")
        pos += 8 + size + (size & 1)
    return fields


def _gif_fields(data: bytes) -> list[Field]:
    fields = [Field("width", 6, "<H"), Field("height", 8, "<H"), Field("flags", 10, "B")]
    pos = 13 + (3 * (2 << (data[10] & 7)) if data[10] & 0x80 else 0)
    while pos < len(data) and data[pos] == 0x21:  # extensions: label, then sub-blocks
        fields.append(Field(f"ext{data[pos + 1]:02X}.size", pos + 2, "B"))
        pos += 2
        while pos < len(data) and data[pos]:
            pos += 1 + data[pos]
        pos += 1
    if pos < len(data) and data[pos] == 0x2C:
        fields += [Field("frame_left", pos + 1, "<H"), Field("frame_top", pos + 3, "<H"),
                   Field("frame_width", pos + 5, "<H"), Field("frame_height", pos + 7, "<H"),
                   Field("frame_flags", pos + 9, "B"), Field("lzw_min", pos + 10, "B")]
    return fields


_PSD_FIELDS = [Field("version", 4, ">H"), Field("channels", 12, ">H"), Field("height", 14, ">I"),
               Field("width", 18, ">I"), Field("depth", 22, ">H"), Field("mode", 24, ">H"),
               Field("colour_mode_length", 26, ">I"), Field("resources_length", 30, ">I"),
               Field("layers_length", 34, ">I")]
_DDS_FIELDS = [Field("header_size", 4, "<I"), Field("flags", 8, "<I"), Field("height", 12, "<I"),
               Field("width", 16, "<I"), Field("pitch", 20, "<I"), Field("depth", 24, "<I"),
               Field("mip_count", 28, "<I"), Field("pf_size", 76, "<I"), Field("pf_flags", 80, "<I"),
               Field("fourcc", 84, "<I"), Field("bit_count", 88, "<I"), Field("mask_r", 92, "<I"),
               Field("mask_a", 104, "<I"), Field("caps", 108, "<I"), Field("caps2", 112, "<I")]
_DX10_FIELDS = [Field("dxgi_format", 128, "<I"), Field("dimension", 132, "<I"), Field("misc", 136, "<I"),
                Field("array_size", 140, "<I"), Field("misc2", 144, "<I")]
_KTX1_NAMES = ("endianness", "gl_type", "type_size", "gl_format", "gl_internal", "gl_base", "width",
               "height", "depth", "array_elements", "faces", "mip_levels", "kvd_bytes")


def _ktx1_fields(data: bytes) -> list[Field]:
    order = "<" if struct.unpack_from("<I", data, 12)[0] == 0x04030201 else ">"
    fields = [Field(name, 12 + 4 * i, order + "I") for i, name in enumerate(_KTX1_NAMES)]
    (_, _, _, _, _, _, _, _, _, array_elements, faces, levels, kvd) = struct.unpack_from(order + "13I", data, 12)
    copies = 6 if faces == 6 and array_elements == 0 else 1
    pos = 64 + kvd
    for i in range(max(1, levels)):
        fields.append(Field(f"level{i}.image_size", pos, order + "I"))
        size = struct.unpack_from(order + "I", data, pos)[0]
        pos += 4 + ((size + 3) & ~3) * copies
    return fields


_KTX2_NAMES = ("vk_format", "type_size", "width", "height", "depth", "layers", "faces", "levels",
               "scheme", "dfd_offset", "dfd_length", "kvd_offset", "kvd_length")


def _ktx2_fields(data: bytes) -> list[Field]:
    fields = [Field(name, 12 + 4 * i, "<I") for i, name in enumerate(_KTX2_NAMES)]
    fields += [Field("sgd_offset", 64, "<Q"), Field("sgd_length", 72, "<Q")]
    levels = max(1, struct.unpack_from("<I", data, 40)[0])
    for i in range(levels):
        at = 80 + 24 * i
        fields += [Field(f"level{i}.offset", at, "<Q"), Field(f"level{i}.length", at + 8, "<Q"),
                   Field(f"level{i}.uncompressed", at + 16, "<Q")]
    dfd = struct.unpack_from("<I", data, 48)[0]
    fields += [Field("dfd.total_size", dfd, "<I"), Field("dfd.block_size", dfd + 10, "<H"),
               Field("dfd.model", dfd + 12, "B"), Field("dfd.transfer", dfd + 14, "B")]
    # what a file sized from its own descriptor reads (readers/dfd.py)
    fields += [Field(f"dfd.block{i}", dfd + 16 + i, "B") for i in range(4)]
    fields += [Field("dfd.bytes_plane0", dfd + 20, "B"), Field("dfd.bytes_plane1", dfd + 21, "B"),
               Field("dfd.sample0.bit_offset", dfd + 28, "<H"), Field("dfd.sample0.bit_length", dfd + 30, "B")]
    return fields


def _exr_fields(data: bytes) -> list[Field]:
    fields = [Field("version", 4, "<I")]
    pos = 8
    while pos < len(data) and data[pos] != 0:
        name_end = data.index(b"\0", pos)
        name = data[pos:name_end].decode("latin-1")
        type_end = data.index(b"\0", name_end + 1)
        size_at = type_end + 1
        size = struct.unpack_from("<i", data, size_at)[0]
        fields.append(Field(f"{name}.size", size_at, "<i"))
        value = size_at + 4
        if name == "dataWindow":
            fields += [Field(f"dataWindow.{k}", value + 4 * j, "<i") for j, k in enumerate(("xmin", "ymin", "xmax", "ymax"))]
        elif name == "tiles":
            fields += [Field("tiles.x", value, "<I"), Field("tiles.y", value + 4, "<I"), Field("tiles.mode", value + 8, "B")]
        elif name == "channels":
            fields.append(Field("channels.0.pixel_type", data.index(b"\0", value) + 1, "<i"))
        elif name == "compression":
            fields.append(Field("compression.value", value, "B"))
        pos = value + size
    fields.append(Field("offset_table.0", pos + 1, "<Q"))
    return fields


_DEC = re.compile(rb"\d+ *")


def _dec_fields(data: bytes, pattern: bytes, names: tuple[str, ...]) -> list[Field]:
    """Decimal fields for the groups of ``pattern`` (a regex with one group per name)."""
    m = re.search(pattern, data, re.DOTALL)
    assert m is not None, pattern
    return [Field(name, m.start(i + 1), "dec", m.end(i + 1) - m.start(i + 1)) for i, name in enumerate(names)]


def _padded_json(doc: dict) -> bytes:
    """JSON whose integers are padded with spaces to 20 characters, so any value up to 2^64
    replaces one in place."""
    text = json.dumps(doc, separators=(",", ":"))
    return re.sub(r'(?<=[:\[,])(-?\d+)(?=[,\]}])', lambda m: m.group(1).ljust(20), text).encode()


def _json_fields(data: bytes, base: int = 0) -> list[Field]:
    """Every integer of a padded JSON, named by the key before it (``count#3`` is the fourth)."""
    fields: list[Field] = []
    seen: dict[str, int] = {}
    for m in re.finditer(rb'(?:"([A-Za-z_]+)":|[\[,])(-?\d+ {0,19})(?=[,\]}])', data):
        key = (m.group(1) or b"item").decode()
        seen[key] = seen.get(key, -1) + 1
        fields.append(Field(f"{key}#{seen[key]}", base + m.start(2), "dec", m.end(2) - m.start(2)))
    return fields


# --- seeds --------------------------------------------------------------------------------------


def _pil(fmt: str, mode: str, size: tuple[int, int], **params: object) -> bytes:
    return fx.pillow_bytes(fmt, mode, size, **params)


def _rich_gltf() -> GltfBuilder:
    """Meshes with indices, a morph target, a fan, an embedded PNG, a material, a skin,
    GPU instancing, MSFT_lod and a node tree: every part of the glTF reader."""
    b = GltfBuilder()
    m = triangle_mesh(b, 4, [0, 1, 2, 0, 2, 3], name="Rock_LOD0", targets=[{"POSITION": b.vec(4, "VEC3")}])
    triangle_mesh(b, 5, [], name="Fan", mode=6)
    img = b.add_image_view(gltf_png(8, 8))
    b.add_material(pbrMetallicRoughness={"baseColorTexture": {"index": b.add_texture(img)}})
    inst = b.add_accessor([0.0] * 9, FLOAT, "VEC3")
    kids = [b.add_node(mesh=1), b.add_node(mesh=m, skin=0, extensions={"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": inst}}})]
    b.doc["skins"] = [{"joints": [kids[0]]}]
    b.add_scene([b.add_node(children=kids, extensions={"MSFT_lod": {"ids": [kids[0]]}})])
    return b


def _gltf_embedded() -> bytes:
    b = _rich_gltf()
    b._pad()
    b._buffers("data:application/octet-stream;base64," + base64.b64encode(bytes(b.bin)).decode())
    return _padded_json(b.doc)


def _gltf_external() -> tuple[bytes, bytes]:
    b = _rich_gltf()
    b._buffers("ext.bin")
    return _padded_json(b.doc), bytes(b.bin)


def _glb() -> bytes:
    b = _rich_gltf()
    b._buffers(None)
    js = _padded_json(b.doc)
    js += b" " * (-len(js) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(b.bin), 0x004E4942) + bytes(b.bin)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def _glb_fields(data: bytes) -> list[Field]:
    json_len = struct.unpack_from("<I", data, 12)[0]
    fields = [Field("glb.length", 8, "<I"), Field("json.length", 12, "<I"), Field("json.type", 16, "<I"),
              Field("bin.length", 20 + json_len, "<I"), Field("bin.type", 24 + json_len, "<I"), Field("version", 4, "<I")]
    return fields + _json_fields(data[20 : 20 + json_len], base=20)


_OBJ = b"""# two objects, normals and UVs; the material library is outside any root
mtllib ../../outside.mtl
o Box
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
vt 0 0
vt 1 0
vt 1 1
vn 0 0 1
usemtl stone
f 1/1/1 2/2/1 3/3/1
f 1/1/1 3/3/1 4/1/1
o Wedge
f 5/1/1 6/2/1 3/3/1
f 1 5 6
"""

_CUBE_V = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
_CUBE_F = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
           (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def _ply_ascii() -> bytes:
    head = f"ply\nformat ascii 1.0\nelement vertex {len(_CUBE_V)}\nproperty float x\nproperty float y\nproperty float z\nelement face {len(_CUBE_F)}\nproperty list uchar int vertex_indices\nend_header\n"
    body = "".join(f"{x} {y} {z}\n" for x, y, z in _CUBE_V) + "".join(f"3 {a} {b} {c}\n" for a, b, c in _CUBE_F)
    return (head + body).encode()


def _ply_binary() -> bytes:
    head = f"ply\nformat binary_little_endian 1.0\nelement vertex {len(_CUBE_V)}\nproperty float x\nproperty float y\nproperty float z\nelement face {len(_CUBE_F)}\nproperty list uchar int vertex_indices\nend_header\n"
    body = b"".join(struct.pack("<3f", *v) for v in _CUBE_V) + b"".join(struct.pack("<B3i", 3, *f) for f in _CUBE_F)
    return head.encode() + body


def _stl_binary() -> bytes:
    out = bytearray(b"binary stl".ljust(80, b"\0") + struct.pack("<I", len(_CUBE_F)))
    for f in _CUBE_F:
        out += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *_CUBE_V[i]) for i in f) + b"\0\0"
    return bytes(out)


def _stl_ascii() -> bytes:
    lines = ["solid cube"]
    for f in _CUBE_F:
        lines += ["facet normal 0 0 0", "outer loop", *(f"vertex {x} {y} {z}" for x, y, z in (_CUBE_V[i] for i in f)), "endloop", "endfacet"]
    return ("\n".join([*lines, "endsolid cube"]) + "\n").encode()


def _off() -> bytes:
    return (f"OFF\n{len(_CUBE_V)} {len(_CUBE_F)} 0\n" + "".join(f"{x} {y} {z}\n" for x, y, z in _CUBE_V)
            + "".join(f"3 {a} {b} {c}\n" for a, b, c in _CUBE_F)).encode()


def _fbx_scene() -> fbx.Scene:
    """A cube with flat normals, seamed UVs, two materials by polygon, a texture, a 2-bone
    skin and a blend shape, placed by two Models: every part of the FBX reader."""
    uv_index = [k % 4 for k in range(24)]
    layers = [fbx.flat_normals(), fbx.Layer("UV", [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0], reference="IndexToDirect", index=uv_index),
              fbx.Layer("Material", [0, 0, 0, 0, 1, 1], mapping="ByPolygon", reference="IndexToDirect")]
    return fbx.Scene(meshes=[fbx.cube("Crate", models=("Crate", "Crate2"), layers=layers, materials=[0, 1], skin_bones=2, shapes=[True]),
                             fbx.Mesh("Fan", [float(i % 5) for i in range(15)], [[0, 1, 2, 3, 4]], models=["Fan"])],
                     materials=["Wood", "Iron"], textures=[fbx.Texture("Grain", 0, "DiffuseColor", relative="rock.png", filename="C:\\art\\rock.png")])


def _fbx_binary(version: int, compress: bool) -> tuple[bytes, list[Field]]:
    data, fields = _fbx_scene().binary_fields(version, compress)
    # the header's version, the top-level records, the geometries' records down to their
    # arrays and every array header (the Models', materials' and deformers' records are alike)
    def keep(name: str) -> bool:
        path, _, what = name.rpartition(".")
        if "/" not in name:
            return True
        if ".array" in name:
            return path.split(".array")[0].rsplit("/", 1)[-1] in ("Vertices", "PolygonVertexIndex", "UV", "UVIndex", "Materials")
        return path.startswith(("Objects/Geometry", "Objects/Model")) and path.count("/") <= 2 and what in ("end", "plen")

    kept = [f for f in fields if keep(f[0])]
    return data, [Field(name, offset, fmt) for name, offset, fmt in kept]


def _fbx_ascii_fields(data: bytes) -> list[Field]:
    """Every array count (``*N``) and the integers of the Connections (object ids)."""
    fields = [Field(f"count#{k}", m.start(1), "dec", m.end(1) - m.start(1)) for k, m in enumerate(re.finditer(rb"\*(\d+) \{", data))]
    links = data.index(b"Connections:")
    fields += [Field(f"link#{k}", links + m.start(1), "dec", m.end(1) - m.start(1))
               for k, m in enumerate(re.finditer(rb",(\d+)", data[links:]))]
    return fields


def _jpeg_with_icc() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 8), (10, 200, 30)).save(out, format="JPEG", icc_profile=fx.icc_profile(b"sRGB IEC61966-2.1"), quality=80)
    return out.getvalue()


# --- Godot scenes and resources -------------------------------------------------------------------

#: Godot 4 mesh format flags: vertex, uv, index, format version 2.
_GODOT_FORMAT = 1 | 16 | 4096 | (1 << 35)


def _godot_surface_text(vertices: int, material: str, b64: bool) -> str:
    # position 12 B + uv 8 B per vertex, u16 indices of two triangles
    return gf.text_surface(_GODOT_FORMAT, vertices, vertices * 12, vertices * 8, index_count=6, index_bytes=12,
                           material=material, b64=b64)


def _godot_scene() -> bytes:
    """A level: an instanced prop, a mesh sub-resource placed with a material override, a
    MultiMesh of 64 and a material with a texture."""
    return f"""[gd_scene load_steps=6 format=3 uid="uid://btown"]

[ext_resource type="PackedScene" uid="uid://bbarrel" path="res://props/barrel.tscn" id="1_b"]
[ext_resource type="Texture2D" path="res://tex/wall.png" id="2_t"]
[ext_resource type="Material" path="res://mat/iron.tres" id="3_m"]

[sub_resource type="StandardMaterial3D" id="Wall"]
albedo_texture = ExtResource("2_t")

[sub_resource type="ArrayMesh" id="Block"]
_surfaces = [{_godot_surface_text(4, 'SubResource("Wall")', b64=False)}]

[sub_resource type="MultiMesh" id="Crowd"]
transform_format = 1
instance_count = 64
mesh = SubResource("Block")

[node name="Town" type="Node3D"]

[node name="Barrel" parent="." instance=ExtResource("1_b")]

[node name="Block" type="MeshInstance3D" parent="."]
mesh = SubResource("Block")
surface_material_override/0 = ExtResource("3_m")

[node name="Crowd" type="MultiMeshInstance3D" parent="."]
multimesh = SubResource("Crowd")
""".encode()


def _godot_mesh_text(kind: str) -> bytes:
    head = ('[gd_resource type="ArrayMesh" load_steps=3 format=4 uid="uid://bwood"]\n\n' if kind == "tres"
            else '[gd_scene load_steps=3 format=3]\n\n')
    body = """[ext_resource type="Texture2D" path="wood.png" id="1"]

[sub_resource type="StandardMaterial3D" id="Wood"]
albedo_texture = ExtResource("1")
roughness_texture = ExtResource("1")

"""
    surface = _godot_surface_text(5, 'SubResource("Wood")', b64=True)
    surfaces = f"_surfaces = [{surface}]\n"
    if kind == "tres":
        return (head + body + "[resource]\nresource_name = \"Plank\"\n" + surfaces).encode()
    return (head + body + '[sub_resource type="ArrayMesh" id="Plank"]\n' + surfaces
            + '\n[node name="Export" type="Node3D"]\n\n[node name="Plank" type="MeshInstance3D" parent="."]\n'
            + 'mesh = SubResource("Plank")\n').encode()


def _godot_binary_surface(vertices: int) -> dict:
    return {"format": _GODOT_FORMAT, "primitive": 3, "vertex_count": vertices,
            "vertex_data": gf.V(gf.BYTES, bytes(vertices * 12)), "attribute_data": gf.V(gf.BYTES, bytes(vertices * 8)),
            "aabb": gf.V(gf.AABB), "index_count": 6, "index_data": gf.V(gf.BYTES, bytes(12)), "material": gf.Sub(0)}


def _godot_binary(kind: str) -> bytes:
    material = ("Mat", "StandardMaterial3D", {"albedo_texture": gf.Ext(0), "albedo_color": gf.V(gf.COLOR)})
    ext = [("Texture2D", "res://tex/rock.png", "uid://brock")]
    if kind == "scn":
        names = ["Town", "Node3D", "Rock", "MeshInstance3D", "mesh"]
        nodes = [(-1, "Node3D", "Town", -1, []), (0, "MeshInstance3D", "Rock", -1, [("mesh", 0)])]
        return gf.rsrc("PackedScene", ext, [material, ("Rock", "ArrayMesh", {"_surfaces": [_godot_binary_surface(7)]}),
                                            ("", "PackedScene", {"_bundled": gf.bundled(names, [gf.Sub(1)], nodes)})],
                       uid="uid://bscene")
    if kind == "lmbake":
        return gf.rsrc("LightmapGIData", [("TextureLayered", "res://level.exr", "uid://blight")], [
            ("", "LightmapGIData", {"lightmap_textures": [gf.Ext(0)], "uses_spherical_harmonics": True,
                                    "probe_data": {"bsp": gf.V(gf.INT32S, [0] * 6), "points": gf.V(gf.FLOAT32S, [0.0] * 3)}})])
    vertices = {"res": 9, "mesh": 11}[kind]
    return gf.rsrc("ArrayMesh", ext, [material, ("", "ArrayMesh", {"resource_name": "Rock", "_surfaces": [_godot_binary_surface(vertices)]})],
                   fmt=5 if kind == "mesh" else 6, minor=2 if kind == "mesh" else 3)


def _godot_gridmap() -> bytes:
    """A level of GridMaps: one of a MeshLibrary file (three cells of two items, one turned),
    one of a MeshLibrary sub-resource, and an instanced GridMap scene whose cells it sets."""
    return b"""[gd_scene load_steps=4 format=3]

[ext_resource type="MeshLibrary" uid="uid://btiles" path="res://tiles.meshlib" id="1_l"]
[ext_resource type="PackedScene" path="res://room.tscn" id="2_r"]
[ext_resource type="ArrayMesh" path="res://rock.mesh" id="3_m"]

[sub_resource type="MeshLibrary" id="Inline"]
item/0/mesh = ExtResource("3_m")

[node name="Level" type="Node3D"]

[node name="Map" type="GridMap" parent="."]
mesh_library = ExtResource("1_l")
data = {
"cells": PackedInt32Array(0, 0, 3, 1, 0, 1048579, 65536, 0, 5)
}

[node name="Inline" type="GridMap" parent="."]
mesh_library = SubResource("Inline")
data = {
"cells": PackedInt32Array(0, 0, 0)
}

[node name="Room" parent="." instance=ExtResource("2_r")]
data = {
"cells": PackedInt32Array(7, 0, 5)
}
"""


def _godot_mesh_library() -> bytes:
    """A MeshLibrary saved as the editor exports one (binary, its own ``.meshlib`` suffix):
    two items with a mesh file each and a preview, one with an inline ArrayMesh."""
    ext = [("ArrayMesh", "res://floor.mesh", "uid://bfloor"), ("ArrayMesh", "res://wall.res", "uid://bwall"),
           ("Texture2D", "res://previews/floor.png", "uid://bprev")]
    return gf.rsrc("MeshLibrary", ext, [
        ("Inline", "ArrayMesh", {"resource_name": "Inline", "_surfaces": [_godot_binary_surface(3)]}),
        ("", "MeshLibrary", {"item/3/name": "Floor", "item/3/mesh": gf.Ext(0), "item/3/preview": gf.Ext(2),
                             "item/5/name": "Wall", "item/5/mesh": gf.Ext(1), "item/9/mesh": gf.Sub(0)})])


def _rsrc_fields(data: bytes) -> list[Field]:
    """The header integers of a binary resource, found by walking it: format, the main type's
    length, flags, string count and lengths, external and internal counts and entries, each
    internal resource's type length and property count, and every surface's vertex_count."""
    fields = [Field("big_endian", 4, "<I"), Field("ver_major", 12, "<I"), Field("ver_format", 20, "<I")]
    pos = 24

    def string(name: str) -> None:
        nonlocal pos
        fields.append(Field(name, pos, "<I"))
        pos += 4 + struct.unpack_from("<I", data, pos)[0]

    string("type_len")
    fields.append(Field("flags", pos + 8, "<I"))
    pos += 8 + 4 + 8 + 44
    for table in ("string", "ext"):
        count = struct.unpack_from("<I", data, pos)[0]
        fields.append(Field(f"{table}_count", pos, "<I"))
        pos += 4
        for i in range(count):
            string(f"{table}.{i}.len")
            if table == "ext":
                string(f"ext.{i}.path_len")
                pos += 8
    count = struct.unpack_from("<I", data, pos)[0]
    fields.append(Field("int_count", pos, "<I"))
    pos += 4
    offsets = []
    for i in range(count):
        string(f"int.{i}.path_len")
        fields.append(Field(f"int.{i}.offset", pos, "<Q"))
        offsets.append(struct.unpack_from("<Q", data, pos)[0])
        pos += 8
    for i, offset in enumerate(offsets):
        length = struct.unpack_from("<I", data, offset)[0]
        fields += [Field(f"int.{i}.type_len", offset, "<I"), Field(f"int.{i}.props", offset + 4 + length, "<I")]
    for m in re.finditer(rb"vertex_count\x00\x03\x00\x00\x00", data):  # the key, then an INT value
        fields.append(Field("vertex_count", m.end(), "<i"))
    return fields


def _godot_seeds(add) -> None:
    scene = _godot_scene()
    add("town.tscn", scene, _dec_fields(scene, rb'"index_count": (\d+),.*"vertex_count": (\d+),.*instance_count = (\d+)',
                                         ("index_count", "vertex_count", "instance_count")), "scene")
    for name, kind in (("plank.tres", "tres"), ("export.escn", "escn")):
        data = _godot_mesh_text(kind)
        add(name, data, _dec_fields(data, rb'"format": (\d+),.*"index_count": (\d+),.*"vertex_count": (\d+),',
                                    ("format", "index_count", "vertex_count")), "scene")
    for name, kind in (("town.scn", "scn"), ("rock.res", "res"), ("rock.mesh", "mesh"), ("level.lmbake", "lmbake")):
        data = _godot_binary(kind)
        add(name, data, _rsrc_fields(data), "scene")
    grid = _godot_gridmap()
    add("grid.tscn", grid, _dec_fields(grid, rb'"cells": PackedInt32Array\((\d+), (\d+), (\d+), (\d+), (\d+), (\d+),',
                                       ("cell0.lo", "cell0.hi", "cell0.item", "cell1.lo", "cell1.hi", "cell1.item")), "scene")
    library = _godot_mesh_library()
    add("tiles.meshlib", library, _rsrc_fields(library), "scene")


def _webp_extended() -> bytes:
    """VP8X, ICCP, ALPH and VP8: a lossy image with alpha and a colour profile."""
    out = io.BytesIO()
    Image.new("RGBA", (16, 8), (10, 200, 30, 128)).save(out, format="WEBP", quality=50, icc_profile=fx.icc_profile(b"sRGB IEC61966-2.1"))
    return out.getvalue()


def _unity_fields(data: bytes) -> list[Field]:
    """Every fileID of a Unity YAML file: in document headers (``&N``) and references."""
    return [Field(f"fileID.{i}", m.start(1), "dec", m.end(1) - m.start(1))
            for i, m in enumerate(re.finditer(rb"(?:&|fileID: )(-?\d+)", data))]


def _unity_scene() -> bytes:
    """A scene as Unity writes one: settings with a skybox, a hierarchy with a mesh of two
    materials (one reference wrapped), a skinned renderer, a prefab instance with a material
    override and a child under its stripped Transform."""
    crate, fbx, mat = uf.guid("crate"), uf.guid("fbx"), uf.guid("mat")
    return (uf.HEAD + uf.scene_settings(uf.ref(2100000, uf.guid("sky"), 2)) + uf.game_object(10, "Town", [11]) + uf.transform(11, 10, 0, [21])
            + uf.game_object(20, "Barrel", [21, 22, 23]) + uf.transform(21, 20, 11) + uf.mesh_filter(22, 20, uf.ref(-4767823104392330369, fbx))
            + uf.renderer(23, 20, [uf.ref(2100000, mat, 2), uf.ref(2100000, uf.guid("moss"), 2, wrap=True)])
            + uf.game_object(30, "Hero", [31, 32]) + uf.transform(31, 30, 11)
            + uf.renderer(32, 30, [uf.ref(2100000, mat, 2)], skinned_mesh=uf.ref(4300000, fbx))
            + uf.prefab_instance(40, crate, 11, [uf.modification(uf.ref(100000, crate), "m_Name", "Crate"),
                                                 uf.modification(uf.ref(2300000, crate), "'m_Materials.Array.data[0]'", "", uf.ref(2100000, mat, 2))])
            + uf.stripped(4, 41, "Transform", uf.ref(400000, crate), 40)
            + uf.game_object(50, "Label", [51, 52, 53]) + uf.transform(51, 50, 41) + uf.mesh_filter(52, 50, uf.ref(10202, uf.BUILTIN, 0))
            + uf.renderer(53, 50, [uf.ref(2100000, mat, 2)])).encode()


def _unity_prefab() -> bytes:
    """A prefab variant: its root a prefab instance, a renderer added to the base's root."""
    base = uf.guid("base")
    return (uf.HEAD + uf.prefab_instance(1, base, 0, [uf.modification(uf.ref(100000, base), "m_Name", "Variant")])
            + uf.stripped(1, 2, "GameObject", uf.ref(100000, base), 1) + uf.renderer(3, 2, [uf.ref(2100000, uf.guid("mat"), 2)])).encode()


def _unity_material() -> bytes:
    return uf.material("Stone", [uf.texture_slot("_BaseMap", uf.ref(2800000, uf.guid("albedo"))),
                                 uf.texture_slot("_BumpMap", uf.ref(2800000, uf.guid("normal"), wrap=True)),
                                 uf.texture_slot("_EmissionMap", "{fileID: 0}")], parent=uf.ref(2100000, uf.guid("parent"), 2)).encode()


@cache
def all_seeds() -> tuple[Seed, ...]:
    """One Seed per reader path; every one reads clean (tests check it)."""
    s: list[Seed] = []

    def add(name: str, data: bytes, fields: list[Field], kind: str = "texture", companions: tuple = ()) -> None:
        s.append(Seed(name, data, tuple(fields), kind, companions))

    png1 = fx.png_bytes(16, 8, color_type=3, trns=b"\0", icc_name=b"sRGB")
    add("palette.png", png1, _png_fields(png1))
    png2 = fx.png_bytes(16, 8, color_type=4, bit_depth=16, gamma=45455)
    add("grey16.png", png2, _png_fields(png2))
    jpg = _jpeg_with_icc()
    add("photo.jpg", jpg, _jpeg_fields(jpg))
    prog = _pil("JPEG", "L", (16, 8), progressive=True)
    add("progressive.jpeg", prog, _jpeg_fields(prog))
    add("rgba.tga", _pil("TGA", "RGBA", (16, 8)), _TGA_FIELDS)
    add("rle.tga", _pil("TGA", "RGB", (16, 8), compression="tga_rle"), _TGA_FIELDS)
    add("rgb.bmp", _pil("BMP", "RGB", (16, 8)), _BMP_FIELDS)
    add("palette.bmp", _pil("BMP", "P", (16, 8)), _BMP_FIELDS)
    tif = _pil("TIFF", "RGB", (16, 8))
    add("rgb.tif", tif, _tiff_fields(tif))
    tif_f = _pil("TIFF", "F", (16, 8))
    add("float.tiff", tif_f, _tiff_fields(tif_f))
    webp_l = _pil("WEBP", "RGBA", (16, 8), lossless=True)
    add("lossless.webp", webp_l, _webp_fields(webp_l))
    webp_v = _pil("WEBP", "RGB", (16, 8), quality=50)
    add("lossy.webp", webp_v, _webp_fields(webp_v))
    webp_x = _webp_extended()
    add("extended.webp", webp_x, _webp_fields(webp_x))
    webp_a = fx.animated_bytes("WEBP", (16, 8), frames=2, mode="RGBA", lossless=True)
    add("animated.webp", webp_a, _webp_fields(webp_a))
    gif = _pil("GIF", "P", (16, 8), transparency=0)
    add("anim.gif", gif, _gif_fields(gif))
    add("art.psd", fx.psd_bytes(16, 8), _PSD_FIELDS)
    add("big.psd", fx.psd_bytes(16, 8, version=2, depth=16, channels=4), _PSD_FIELDS)

    add("cube_bc1.dds", fx.dds_bytes(16, 16, fourcc=b"DXT1", mips=5, caps2=fx.CAPS2_CUBEMAP | fx.CAPS2_ALL_FACES, images=6), _DDS_FIELDS)
    add("array_bc7.dds", fx.dds_bytes(16, 16, dxgi=98, array_size=2, mips=5, block=(4, 4, 16), images=2), _DDS_FIELDS + _DX10_FIELDS)
    add("volume_rgba8.dds", fx.dds_bytes(8, 8, dxgi=28, dimension=4, depth=4, mips=4, block=(1, 1, 4)), _DDS_FIELDS + _DX10_FIELDS)
    add("masks_bgra8.dds", fx.dds_bytes(8, 4, fourcc=None, pf_flags=fx.DDPF_RGB | fx.DDPF_ALPHAPIXELS, bit_count=32,
                                        masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000), mips=4, block=(1, 1, 4)), _DDS_FIELDS)

    for name, data in (
        ("bc7.ktx", fx.ktx1_bytes(16, 16, levels=5, kvd=bytes(8))),
        ("cube_be.ktx", fx.ktx1_bytes(8, 8, gl_internal=0x8058, faces=6, levels=4, texel_bytes=4, big_endian=True)),
        ("array.ktx", fx.ktx1_bytes(8, 8, gl_internal=0x8058, array_elements=3, levels=2, texel_bytes=4)),
    ):
        add(name, data, _ktx1_fields(data))
    for name, data in (
        ("bc7.ktx2", fx.ktx2_bytes(16, 16, levels=5, kvd=b"\x0c\x00\x00\x00KTXorient\x00rd\x00")),
        ("etc1s.ktx2", fx.ktx2_bytes(32, 16, vk_format=0, levels=6, scheme=1, sgd=bytes(32),
                                     dfd=fx.dfd_bytes(fx.KHR_DF_MODEL_ETC1S, channel_ids=(0, 15)),
                                     level_lengths=[40, 20, 10, 8, 8, 8])),
        ("uastc_cube.ktx2", fx.ktx2_bytes(8, 8, vk_format=0, faces=6, levels=4, dfd=fx.dfd_bytes(fx.KHR_DF_MODEL_UASTC, channel_ids=(3,)))),
        ("zstd_array.ktx2", fx.ktx2_bytes(8, 8, layers=3, levels=2, scheme=2, level_lengths=[30, 20])),
        # ASTC 4x4x4's descriptor under a vkFormat no format has: sized from its DFD
        ("astc3d.ktx2", fx.ktx2_bytes(16, 16, depth=4, vk_format=1000999000, levels=3, level_lengths=[256, 64, 16], uncompressed=[256, 64, 16],
                                      dfd=fx.dfd_descriptor(162, [fx.DfdSample(0, 128, 0)], block=(4, 4, 4), planes=(16,)))),
        ("hdr6x6i.ktx2", fx.ktx2_bytes(24, 12, vk_format=0, levels=3, scheme=4, dfd=fx.uastc_hdr_dfd(6), sgd=bytes(36),
                                       level_lengths=[60, 20, 10])),
    ):
        add(name, data, _ktx2_fields(data))

    for name, data in (
        ("scan.exr", fx.exr_bytes(16, 8, channels=(("A", 1), ("B", 1), ("G", 1), ("R", 1)))),
        ("tiled.exr", fx.exr_bytes(16, 8, tiles=(8, 8, 1), chunks=2 + 1 + 1 + 1 + 1, payload=0)),
        ("zip.exr", fx.exr_bytes(16, 40, compression=3, chunks=3, channels=(("diffuse.R", 2), ("diffuse.G", 2)))),
    ):
        add(name, data, _exr_fields(data))
    multi = fx.exr_bytes(16, 8, parts=2)
    add("multi.exr", multi, _exr_fields(multi))

    hdr = fx.hdr_bytes(16, 8)
    add("sky.hdr", hdr, _dec_fields(hdr, rb"-Y (\d+) \+X (\d+)\n", ("height", "width")))
    flat = fx.hdr_bytes(4, 2, rle=False, resolution=b"+X 4 -Y 2")
    add("flat.hdr", flat, _dec_fields(flat, rb"\+X (\d+) -Y (\d+)\n", ("width", "height")))

    emb = _gltf_embedded()
    add("embedded.gltf", emb, _json_fields(emb), "mesh")
    ext, ext_bin = _gltf_external()
    add("external.gltf", ext, _json_fields(ext), "mesh", (("ext.bin", ext_bin),))
    glb = _glb()
    add("scene.glb", glb, _glb_fields(glb), "mesh")

    shift = _OBJ.index(b"usemtl")  # the face lines' indices
    obj_fields = [Field(f"obj.{i}", shift + m.start(), "dec", m.end() - m.start()) for i, m in enumerate(re.finditer(rb"\d+", _OBJ[shift:]))]
    add("two.obj", _OBJ, obj_fields[:12], "mesh")
    ply_a = _ply_ascii()
    add("cube_ascii.ply", ply_a, _dec_fields(ply_a, rb"element vertex (\d+)\n.*element face (\d+)\n", ("vertex_count", "face_count")), "mesh")
    ply_b = _ply_binary()
    head = ply_b.index(b"end_header\n") + len(b"end_header\n")
    add("cube_binary.ply", ply_b, [*_dec_fields(ply_b, rb"element vertex (\d+)\n.*element face (\d+)\n", ("vertex_count", "face_count")),
                                   Field("face0.n", head + 12 * len(_CUBE_V), "B"), Field("face0.v0", head + 12 * len(_CUBE_V) + 1, "<i")], "mesh")
    stl = _stl_binary()
    add("cube.stl", stl, [Field("triangle_count", 80, "<I")], "mesh")
    add("cube_ascii.stl", _stl_ascii(), [], "mesh")
    off = _off()
    add("cube.off", off, _dec_fields(off, rb"OFF\n(\d+) (\d+) (\d+)\n", ("vertex_count", "face_count", "edge_count")), "mesh")

    rock = (("rock.png", fx.png_bytes(8, 8)),)
    for name, version, compress in (("crate_7400.fbx", 7400, True), ("crate_7500.fbx", 7500, False), ("crate_6100.fbx", 6100, False)):
        data, fields = _fbx_binary(version, compress)
        add(name, data, fields, "mesh", rock)
    for name, version in (("crate_ascii_7400.fbx", 7400), ("crate_ascii_6100.fbx", 6100)):
        text = _fbx_scene().ascii(version)
        add(name, text, _fbx_ascii_fields(text) if version >= 7000 else _dec_fields(text, rb"PolygonVertexIndex: (\d+),(\d+)", ("pvi0", "pvi1")), "mesh", rock)
    _godot_seeds(add)
    for name, data in (("town.unity", _unity_scene()), ("variant.prefab", _unity_prefab()), ("stone.mat", _unity_material())):
        add(name, data, _unity_fields(data), "scene")
    return tuple(s)


#: Containers that check their length: every cut inside ``checked_length`` bytes is an error.
#: JPEG, GIF, TGA and PSD tolerate a cut payload (headers only are read); text meshes and the
#: JSON of a .gltf may still parse when cut.
STRICT_SUFFIXES = frozenset({".png", ".bmp", ".tif", ".tiff", ".webp", ".dds", ".ktx", ".ktx2", ".exr", ".hdr", ".glb", ".stl", ".fbx",
                             ".scn", ".res", ".mesh", ".lmbake", ".meshlib"})
#: Trailing bytes a reader does not check the length of: the EXR reader checks the header and
#: the chunk offset table, not the chunks (64 payload bytes in these seeds), and of a
#: multi-part file only the first header (the TB056 warning says so); a flat (not run-length)
#: Radiance file needs one 4-byte pixel after its header.
_UNCHECKED_TAIL = {"scan.exr": 64, "zip.exr": 64, "flat.hdr": 4 * 4 * 2 - 4,
                   # a binary FBX's footer (160 bytes after the top-level null record) is not read
                   "crate_7400.fbx": 160, "crate_7500.fbx": 160, "crate_6100.fbx": 160,
                   # a Godot binary resource ends with "RSRC", which the reader does not need
                   "town.scn": 4, "rock.res": 4, "rock.mesh": 4, "level.lmbake": 4, "tiles.meshlib": 4}
#: Seeds whose only facts are SceneFacts (what a file loads): the JSON report does not list
#: scene files yet (issue 23 wires levels into it), so a scan's report shows such a file only
#: by its findings.
SCENE_ONLY_SEEDS = frozenset({"level.lmbake", "town.unity", "variant.prefab", "stone.mat", "grid.tscn"})
#: Binary seeds whose suffix other programs use too (an Ogre .mesh, a Windows .res): content
#: without Godot's signature is noted (TB108, info), not an error.
SHARED_SUFFIX_SEEDS = frozenset({"rock.res", "rock.mesh"})
#: Seeds that are text with no magic: empty, zero or random content may read as nothing.
TEXT_SEEDS = frozenset({"two.obj", "cube_ascii.ply", "cube_ascii.stl", "cube.off", "embedded.gltf", "external.gltf",
                        "crate_ascii_7400.fbx", "crate_ascii_6100.fbx"})


def checked_length(s: Seed) -> int:
    """Leading bytes inside which every cut of the seed must be an error (0: none must)."""
    if s.suffix not in STRICT_SUFFIXES or s.name in TEXT_SEEDS:
        return 0
    if s.name == "multi.exr":
        return s.fields[s.field("offset_table.0")].offset
    return len(s.data) - _UNCHECKED_TAIL.get(s.name, 0)


def seed(name: str) -> Seed:
    for s in all_seeds():
        if s.name == name:
            return s
    raise KeyError(name)
