"""The parts of glTF 2.0 texbudget reads, as msgspec Structs: ``msgspec.json`` decodes a
glTF's JSON into them and checks every type on the way, in C, naming the field of a value of
the wrong type (``$.accessors[3].count``). Unknown fields and extensions are skipped, as glTF
allows. Attributes are the glTF names in snake_case (``byte_offset`` for ``byteOffset``);
extension names are kept as written.

Every field is optional and ``null`` reads as absent: the reader says which required field is
missing, in its own words and order (``accessor 3: required 'count' is missing``), and checks
values and indices itself (ranges, enums, limits).

Materials stay plain JSON objects: their texture slots are an open set (every ``*Texture`` of
the core material and of any extension, known or not) read in the file's key order, which a
fixed schema would lose; ``gltf_materials`` checks them.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _Part(msgspec.Struct, rename="camel", gc=False):
    """A glTF object: decoded once per read, never in a cycle (no garbage-collector tracking)."""


class Asset(_Part):
    version: str | None = None


# --- buffers, views, accessors (EXT_meshopt_compression / KHR_meshopt_compression) ------------


class MeshoptBuffer(_Part):
    fallback: bool | None = None


class BufferExtensions(_Part):
    ext_meshopt: MeshoptBuffer | None = msgspec.field(default=None, name="EXT_meshopt_compression")
    khr_meshopt: MeshoptBuffer | None = msgspec.field(default=None, name="KHR_meshopt_compression")


class Buffer(_Part):
    byte_length: int | None = None
    uri: str | None = None
    extensions: BufferExtensions | None = None


class MeshoptView(_Part):
    """The compressed range of a meshopt bufferView (its own range is the decoded data)."""

    buffer: int | None = None
    byte_offset: int | None = None
    byte_length: int | None = None


class ViewExtensions(_Part):
    ext_meshopt: MeshoptView | None = msgspec.field(default=None, name="EXT_meshopt_compression")
    khr_meshopt: MeshoptView | None = msgspec.field(default=None, name="KHR_meshopt_compression")


class BufferView(_Part):
    buffer: int | None = None
    byte_offset: int | None = None
    byte_length: int | None = None
    byte_stride: int | None = None
    extensions: ViewExtensions | None = None


class Accessor(_Part):
    """KHR_mesh_quantization changes no field: it allows other component types, which the
    reader prices as declared."""

    component_type: int | None = None
    type: str | None = None
    count: int | None = None
    buffer_view: int | None = None
    byte_offset: int | None = None
    normalized: bool | None = None


# --- meshes (KHR_draco_mesh_compression) --------------------------------------------------------


class Draco(_Part):
    buffer_view: int | None = None


class PrimitiveExtensions(_Part):
    draco: Draco | None = msgspec.field(default=None, name="KHR_draco_mesh_compression")


class Primitive(_Part):
    attributes: dict[str, int] | None = None
    targets: list[dict[str, int]] | None = None
    indices: int | None = None
    mode: int | None = None
    material: int | None = None
    extensions: PrimitiveExtensions | None = None


class Mesh(_Part):
    name: str | None = None
    primitives: list[Primitive] | None = None


# --- images and textures (KHR_texture_basisu, EXT_texture_webp, EXT_texture_avif, MSFT_texture_dds)


class Image(_Part):
    uri: str | None = None
    mime_type: str | None = None
    buffer_view: int | None = None


class TextureSource(_Part):
    source: int | None = None


class TextureExtensions(_Part):
    """The texture extensions whose ``source`` an engine that supports them uploads instead of
    the fallback ``source``; first found wins, in this order (``SOURCE_EXTENSIONS``)."""

    KHR_texture_basisu: TextureSource | None = msgspec.field(default=None, name="KHR_texture_basisu")
    EXT_texture_webp: TextureSource | None = msgspec.field(default=None, name="EXT_texture_webp")
    EXT_texture_avif: TextureSource | None = msgspec.field(default=None, name="EXT_texture_avif")
    MSFT_texture_dds: TextureSource | None = msgspec.field(default=None, name="MSFT_texture_dds")


#: TextureExtensions' fields, in the order they are preferred.
SOURCE_EXTENSIONS = ("KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif", "MSFT_texture_dds")


class Texture(_Part):
    source: int | None = None
    extensions: TextureExtensions | None = None


# --- the scene graph (EXT_mesh_gpu_instancing, MSFT_lod, EXT_lights_image_based) ---------------


class GpuInstancing(_Part):
    attributes: dict[str, int] | None = None


class Lod(_Part):
    ids: list[int] | None = None


class NodeExtensions(_Part):
    gpu_instancing: GpuInstancing | None = msgspec.field(default=None, name="EXT_mesh_gpu_instancing")
    lod: Lod | None = msgspec.field(default=None, name="MSFT_lod")


class Node(_Part):
    mesh: int | None = None
    skin: int | None = None
    children: list[int] | None = None
    extensions: NodeExtensions | None = None


class SceneLight(_Part):
    light: int | None = None


class SceneExtensions(_Part):
    lights: SceneLight | None = msgspec.field(default=None, name="EXT_lights_image_based")


class Scene(_Part):
    nodes: list[int] | None = None
    extensions: SceneExtensions | None = None


class Skin(_Part):
    """Only counted: a node's ``skin`` makes its mesh skinned."""


class Light(_Part):
    """An EXT_lights_image_based light: a prefiltered specular cubemap, ``specularImages`` an
    N×6 array of images (mip level × face) whose level 0 is ``specularImageSize`` square."""

    specular_image_size: int | None = None
    specular_images: list[list[int]] | None = None


class Lights(_Part):
    lights: list[Light] | None = None


class DocumentExtensions(_Part):
    lights: Lights | None = msgspec.field(default=None, name="EXT_lights_image_based")


class Document(_Part):
    asset: Asset | None = None
    extensions_required: list[str] | None = None
    buffers: list[Buffer] | None = None
    buffer_views: list[BufferView] | None = None
    accessors: list[Accessor] | None = None
    meshes: list[Mesh] | None = None
    images: list[Image] | None = None
    textures: list[Texture] | None = None
    materials: list[dict[str, Any]] | None = None
    nodes: list[Node] | None = None
    scenes: list[Scene] | None = None
    scene: int | None = None
    skins: list[Skin] | None = None
    extensions: DocumentExtensions | None = None
