"""glTF 2.0 (.gltf, .glb): meshes, images, materials and the node graph, from the JSON and the
accessor declarations. Vertex and index buffers are never decoded.

The reader is split along the format's seams; each module's docstring says what it reads:

- ``gltf_container``: the JSON (decoded by msgspec into ``gltf_schema``'s Structs), the GLB
  header and chunks, the limits, and the per-file state findings go to;
- ``gltf_accessors``: buffers, bufferViews and accessors, checked, never read;
- ``gltf_meshes``: meshes and primitives (``file#mesh/N``), priced from the declarations;
- ``gltf_images``: embedded images read in place (``file#image/N``), image kinds (TB088) and
  EXT_lights_image_based cubemaps (``file#light/N``);
- ``gltf_materials``: textures and materials: which image each texture slot uses;
- ``gltf_uris``: URIs, resolved inside the scan root only;
- ``gltf_scene``: the node graph: instances, skins, LODs.

Hostile input: the JSON is refused above 64 MiB or above 1,000,000 objects and arrays or
4,000,000 values (counted before parsing), nesting too deep for the parser is a finding,
every field is type-checked (by the schema, naming the field), every index range-checked,
counts above 2^31−1 are refused, and URIs are resolved inside the scan root only: ``..``
escapes, absolute paths and any scheme other than ``data:`` (``file:``, ``http:``…) are
findings, never opened or fetched. The scene graph is walked in time linear in nodes plus
scene entries; at most 10,000 embedded images are read, never more bytes in all than the
buffers hold; at most 50 findings of a code are listed per file.
"""

from __future__ import annotations

from texbudget import findings
from texbudget.model import ReadResult, SceneFacts
from texbudget.readers import Source
from texbudget.readers.gltf_accessors import Layout
from texbudget.readers.gltf_container import (
    Broken,
    Context,
    kept_column,
    read_glb_chunks,
    read_gltf_json,
)
from texbudget.readers.gltf_images import read_images, read_lights
from texbudget.readers.gltf_materials import read_materials
from texbudget.readers.gltf_meshes import placed, read_meshes
from texbudget.readers.gltf_scene import SceneGraph
from texbudget.readers.gltf_schema import Document
from texbudget.readers.gltf_uris import Resolver

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


def read_gltf(src: Source) -> ReadResult:
    """A .gltf file: JSON with external or data: URI buffers and images."""
    try:
        return read_document(src, read_gltf_json(src), None)
    except Broken as exc:
        return ReadResult(findings=(findings.make(src.rel, exc.code, exc.message),))


def read_glb(src: Source) -> ReadResult:
    """A .glb file: 12-byte header, a JSON chunk and an optional BIN chunk (never read whole)."""
    try:
        doc, bin_chunk, extra = read_glb_chunks(src, src.size())
        result = read_document(src, doc, bin_chunk)
    except Broken as exc:
        return ReadResult(findings=(findings.make(src.rel, exc.code, exc.message),))
    if extra:
        return ReadResult(findings=tuple(findings.make(src.rel, code, message) for code, message in extra)) + result
    return result


def read_document(src: Source, doc: Document, bin_chunk: tuple[int, int] | None) -> ReadResult:
    """Everything a decoded document says; ``bin_chunk``: a GLB's BIN chunk (offset, length).
    Raises Broken when the file cannot be read further."""
    ctx = Context(src, doc)
    _check_asset(ctx)
    resolver = Resolver(ctx)
    layout = Layout(ctx)
    layout.read_buffers(resolver, bin_chunk)
    layout.read_views()
    read = read_meshes(ctx, layout)
    textures, image_ids, kinds = read_images(ctx, layout, resolver)
    usage = read_materials(ctx, image_ids, kinds)
    placement = SceneGraph(ctx, layout).walk(read)
    meshes = placed(read, placement.skinned, placement.lods)
    cubes, cube_faces, notes = ([], [], []) if ctx.doc.extensions is None else read_lights(ctx, image_ids, {t.path: t for t in textures})
    for code, message in notes:
        ctx.note(code, message)
    faces = {face for face, _ in cube_faces} if cube_faces else ()
    used = usage.used
    for i, identity in enumerate(image_ids):
        if i not in used and identity not in faces:
            ctx.note("TB081", f"image {i} ({identity}) is used by no material")
    ctx.more_notes()
    counts = placement.counts
    scene = SceneFacts(
        path=ctx.rel,
        mesh_paths=tuple([mesh.path for mesh in meshes]) if counts else (),
        mesh_counts=kept_column(tuple([counts[m] for m in read]), "counts") if counts else (),
        texture_paths=usage.images, texture_users=usage.users, texture_slots=usage.slots,
        fallbacks=usage.fallbacks, alpha_modes=usage.alpha_modes, cube_faces=tuple(cube_faces) if cube_faces else (),
    )
    return ReadResult(textures=(*textures, *cubes), meshes=meshes, scenes=(scene,), findings=tuple(ctx.found))


def _check_asset(ctx: Context) -> None:
    asset = ctx.doc.asset
    if asset is None:
        raise Broken("TB073", "the required 'asset' object is missing")
    version = asset.version
    if version is None:
        raise Broken("TB073", "asset.version is missing")
    if not version.startswith("2."):
        raise Broken("TB082", f"asset.version is {version[:20]!r}; texbudget reads glTF 2.x")
    for name in ctx.doc.extensions_required or ():
        if name not in KNOWN_EXTENSIONS:
            ctx.note("TB083", f"the file requires extension {name[:80]}, which texbudget does not know")
