"""A Godot 4 ``ArrayMesh`` resource → ``MeshFacts``, from what its ``_surfaces`` declare.

Each surface is a dictionary (``ArrayMesh::_set_surfaces``, ``scene/resources/mesh.cpp``):
``format`` (the ``RenderingServer.ArrayFormat`` flags), ``primitive``, ``vertex_count``,
``vertex_data``, ``attribute_data``, ``skin_data`` (byte arrays), ``index_count`` and
``index_data``, ``lods`` ([edge length, index bytes] pairs), ``blend_shapes`` (byte array),
``material``. Godot uploads the byte arrays to the GPU as they are, so the stored sizes are the
GPU sizes: ``vertex_bytes`` = vertex + attribute + skin bytes, ``index_bytes`` = index bytes
of LOD 0 and of every generated LOD, ``morph_bytes`` = the blend shape bytes. Exact for what
the file holds; not included (so the total is a floor): a skinned or blend-shaped mesh's
per-instance deformed copy, which the renderer allocates per MeshInstance3D.

The format flags give the layout that the stored sizes are checked against (Godot's
``RenderingServer::mesh_surface_make_offsets_from_format``, format version 2, Godot 4.2+):
three streams per vertex —

- vertex: position f32×3 (f32×2 for 2D; u16×4 when ``ARRAY_FLAG_COMPRESS_ATTRIBUTES``), then
  after all positions the normal (u16×2 octahedral) and tangent (u16×2; none when compressed);
- attribute: colour u8×4, UV and UV2 f32×2 (u16×2 compressed), custom 0–3 by their 3-bit
  format (RGBA8 unorm/snorm 4 B, RG half 4, RGBA half 8, R/RG/RGB/RGBA float 4/8/12/16);
- skin: bones u16×4 and weights u16×4 (×8 with ``ARRAY_FLAG_USE_8_BONE_WEIGHTS``);

and indices u16 when the surface has at most 65536 vertices, else u32. A surface whose stored
bytes disagree with its flags is priced as stored, with a note. Surfaces saved by Godot 4.0–4.1
(format version 1) interleave the vertex stream, with the same byte counts.
"""

from __future__ import annotations

from collections.abc import Callable

from texbudget.model import AttributeFacts, MeshFacts, PrimitiveFacts
from texbudget.readers.godot_variant import Packed
from texbudget.sizing.meshes import lod_of

# RenderingServer::ArrayType bits of the format (servers/rendering_server.h)
VERTEX, NORMAL, TANGENT, COLOR, TEX_UV, TEX_UV2 = (1 << i for i in range(6))
CUSTOM = tuple(1 << i for i in range(6, 10))
BONES, WEIGHTS, INDEX = 1 << 10, 1 << 11, 1 << 12
CUSTOM_BASE, CUSTOM_BITS, CUSTOM_MASK = 13, 3, 0x7
FLAG_USE_2D_VERTICES = 1 << 25
FLAG_USE_8_BONE_WEIGHTS = 1 << 27
FLAG_COMPRESS_ATTRIBUTES = 1 << 29
FORMAT_VERSION_SHIFT, FORMAT_VERSION_MASK = 35, 0xFF

#: ArrayCustomFormat -> (glTF component type, components, normalized): 4, 4, 4, 8, 4, 8, 12, 16 bytes.
_CUSTOM_FORMATS = (("UNSIGNED_BYTE", 4, True), ("BYTE", 4, True), ("HALF_FLOAT", 2, False), ("HALF_FLOAT", 4, False),
                   ("FLOAT", 1, False), ("FLOAT", 2, False), ("FLOAT", 3, False), ("FLOAT", 4, False))
_COMPONENT_BYTES = {"UNSIGNED_BYTE": 1, "BYTE": 1, "UNSIGNED_SHORT": 2, "HALF_FLOAT": 2, "FLOAT": 4}
#: Godot's PrimitiveType -> glTF draw mode (points, lines, line strip, triangles, triangle strip).
_MODES = {0: 0, 1: 1, 2: 3, 3: 4, 4: 5}
#: Godot indexes with u16 up to this many vertices (RenderingServer's index stride rule).
U16_MAX_VERTICES = 65536
#: Surfaces in one mesh beyond which the declaration is not believed (Godot's limit is 256).
MAX_SURFACES = 4096


def layout(fmt: int) -> tuple[list[tuple[str, str, int, bool]], list[tuple[str, str, int, bool]], list[tuple[str, str, int, bool]]]:
    """The (vertex, attribute, skin) streams of a format: per stream its attributes as
    ``(name, component type, components, normalized)``, in Godot's order."""
    compress = bool(fmt & FLAG_COMPRESS_ATTRIBUTES)
    vertex: list[tuple[str, str, int, bool]] = []
    attribute: list[tuple[str, str, int, bool]] = []
    skin: list[tuple[str, str, int, bool]] = []
    if fmt & VERTEX:
        if fmt & FLAG_USE_2D_VERTICES:
            vertex.append(("POSITION", "FLOAT", 2, False))
        elif compress:
            vertex.append(("POSITION", "UNSIGNED_SHORT", 4, True))
        else:
            vertex.append(("POSITION", "FLOAT", 3, False))
    if fmt & NORMAL:
        vertex.append(("NORMAL", "UNSIGNED_SHORT", 2, True))
    if fmt & TANGENT and not compress:
        vertex.append(("TANGENT", "UNSIGNED_SHORT", 2, True))
    if fmt & COLOR:
        attribute.append(("COLOR_0", "UNSIGNED_BYTE", 4, True))
    for bit, name in ((TEX_UV, "TEXCOORD_0"), (TEX_UV2, "TEXCOORD_1")):
        if fmt & bit:
            attribute.append((name, "UNSIGNED_SHORT", 2, True) if compress else (name, "FLOAT", 2, False))
    for i, bit in enumerate(CUSTOM):
        if fmt & bit:
            ctype, components, normalized = _CUSTOM_FORMATS[(fmt >> (CUSTOM_BASE + CUSTOM_BITS * i)) & CUSTOM_MASK]
            attribute.append((f"CUSTOM{i}", ctype, components, normalized))
    bones = 8 if fmt & FLAG_USE_8_BONE_WEIGHTS else 4
    if fmt & BONES:
        skin.append(("JOINTS_0", "UNSIGNED_SHORT", bones, False))
    if fmt & WEIGHTS:
        skin.append(("WEIGHTS_0", "UNSIGNED_SHORT", bones, True))
    return vertex, attribute, skin


def stride(attributes: list[tuple[str, str, int, bool]]) -> int:
    return sum(_COMPONENT_BYTES[ctype] * n for _, ctype, n, _ in attributes)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bytes(value: object) -> int | None:
    return value.length if isinstance(value, Packed) and value.type == "PackedByteArray" else None


def is_godot3_mesh(props: dict[str, object]) -> bool:
    """Godot 3's ArrayMesh text form: ``surfaces/0 = {"array_data": …}``."""
    return any(key.startswith("surfaces/") for key in props)


def array_mesh(path: str, name: str, props: dict[str, object],
               material_of: Callable[[object], str]) -> tuple[MeshFacts | None, list[str]]:
    """The MeshFacts of an ArrayMesh's properties, and notes on what did not add up.
    ``material_of`` names a surface's material (a Ref) as a holder id, "" for none."""
    notes: list[str] = []
    surfaces = props.get("_surfaces")
    if not isinstance(surfaces, list):
        return None, ["the ArrayMesh holds no _surfaces list; nothing was priced"]
    if len(surfaces) > MAX_SURFACES:
        return None, [f"the ArrayMesh declares {len(surfaces)} surfaces, more than {MAX_SURFACES}; it was not priced"]
    prims: list[PrimitiveFacts] = []
    vertex_bytes = index_bytes = morph_bytes = 0
    skinned = False
    names = props.get("blend_shape/names")
    shape_count = names.length if isinstance(names, Packed) else 0
    for i, surface in enumerate(surfaces):
        if not isinstance(surface, dict):
            notes.append(f"surface {i} is not a dictionary; it was not priced")
            continue
        fmt, primitive, vertices = _int(surface.get("format")), _int(surface.get("primitive")), _int(surface.get("vertex_count"))
        stored = _bytes(surface.get("vertex_data"))
        if fmt is None or primitive is None or vertices is None or stored is None or vertices < 0 or fmt < 0:
            notes.append(f"surface {i} lacks a valid format, primitive, vertex_count or vertex_data; it was not priced")
            continue
        if primitive not in _MODES:
            notes.append(f"surface {i} has primitive type {primitive}, which Godot does not know; it was not priced")
            continue
        streams = layout(fmt)
        wanted = [stride(s) * vertices for s in streams]
        got = [stored, _bytes(surface.get("attribute_data")) or 0, _bytes(surface.get("skin_data")) or 0]
        for what, want, have in zip(("vertex_data", "attribute_data", "skin_data"), wanted, got, strict=True):
            if want != have:
                notes.append(f"surface {i}: {what} holds {have:,} bytes; its format flags and {vertices:,} vertices "
                             f"make {want:,}; priced as stored")
        indices = _int(surface.get("index_count")) or 0
        stored_index = _bytes(surface.get("index_data"))
        per = 0
        if stored_index is not None and indices > 0:
            per = 2 if 0 < vertices <= U16_MAX_VERTICES else 4
            if stored_index != indices * per:
                notes.append(f"surface {i}: index_data holds {stored_index:,} bytes for {indices:,} indices "
                             f"(u{per * 8} expected: {indices * per:,}); priced as stored")
        else:
            indices, stored_index = 0, 0
        lods = surface.get("lods")
        lod_bytes = sum(_bytes(v) or 0 for v in lods) if isinstance(lods, list) else 0
        blend = _bytes(surface.get("blend_shapes")) or 0
        counted = indices if indices else vertices
        mode = _MODES[primitive]
        triangles = counted // 3 if mode == 4 else (max(counted - 2, 0) if mode == 5 else 0)
        attributes = tuple(
            AttributeFacts(name=a_name, component_type=ctype, components=n, count=vertices,
                           bytes=_COMPONENT_BYTES[ctype] * n * vertices, normalized=normalized)
            for stream in streams for a_name, ctype, n, normalized in stream)
        targets = shape_count if blend else 0
        if blend and not targets and wanted[0]:
            targets = blend // wanted[0]
        prims.append(PrimitiveFacts(
            mode=mode, vertex_count=vertices, triangles=triangles, attributes=attributes, index_count=indices,
            index_bytes_per=per if indices else 0, morph_targets=targets, morph_bytes=blend,
            material=material_of(surface.get("material")) or None))
        vertex_bytes += sum(got)
        index_bytes += stored_index + lod_bytes
        morph_bytes += blend
        skinned = skinned or bool(fmt & BONES)
    if not prims:
        return None, notes or ["the ArrayMesh has no surface; nothing was priced"]
    lod = lod_of(name) if "lod" in name.lower() else None
    return MeshFacts.from_primitives(
        path=path, name=name, primitives=prims, vertices=sum(p.vertex_count for p in prims),
        indices=sum(p.index_count for p in prims), triangles=sum(p.triangles for p in prims),
        vertex_bytes=vertex_bytes, index_bytes=index_bytes, morph_bytes=morph_bytes, skinned=skinned,
        morph_targets=max((p.morph_targets for p in prims), default=0), source="godot",
        lod=lod[1] if lod else None, lod_group=lod[0] if lod else None,
    ), notes
