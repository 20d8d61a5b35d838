"""A glTF's images (used by ``readers.gltf``):

- **Images** in a bufferView or a data: URI are read in place through ``readers.read_bytes``
  as ``file#image/N`` (``read_images``). An external image is not read here: its identity is
  its own path relative to the scan root, and the scan reads it as a file. Images that share a
  bufferView are read once; at most MAX_EMBEDDED_IMAGES are read, never more bytes in all than
  the buffers hold.
- **Kinds**: the format an image declares (``mimeType``, a data: URI's media type, else the
  URI's suffix). A texture's ``source`` must be PNG or JPEG (glTF 2.0, images); another
  format loads only through the texture extension that allows it (KHR_texture_basisu: KTX2,
  EXT_texture_webp: WebP, EXT_texture_avif: AVIF, MSFT_texture_dds: DDS). A file's textures
  whose source does not are one TB088 warning per kind (``refused_message``).
- **EXT_lights_image_based** (KhronosGroup/glTF ``extensions/2.0/Vendor``): a light is one
  prefiltered specular cubemap, ``specularImages`` an N×6 array of images (mip level × face,
  +X −X +Y −Y +Z −Z) whose level 0 is ``specularImageSize`` square. ``read_lights`` makes
  each light a walked scene uses one cubemap texture, ``file#light/N``: 6 faces × the N
  levels it lists (Babylon.js' loader and Wicked Engine allocate exactly those). Runtimes
  decode the faces (RGBD PNG, LDR JPEG) to a float cubemap, so the facts say HDR and the
  platform's HDR format prices it. Its faces are priced there, not as images of their own.
  A light whose values break the extension's rules (a size, a row that is not 6 faces, an
  image index) is a finding and is not priced; the rest of the file is read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from texbudget.model import COMPOSED_CONTAINER, Finding, ReadResult, TextureFacts, evolve
from texbudget.readers import read_bytes, suffix_of
from texbudget.readers.gltf_accessors import Layout
from texbudget.readers.gltf_container import (
    MAX_EMBEDDED_IMAGES,
    MAX_IMAGE_BYTES,
    Broken,
    Context,
    index,
    shown,
)
from texbudget.readers.gltf_schema import Light
from texbudget.readers.gltf_uris import Resolver, media_type
from texbudget.units import MAX_DIMENSION

EXTENSION = "EXT_lights_image_based"

MIME_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/ktx2": ".ktx2",
               "image/vnd-ms.dds": ".dds", "image/avif": ".avif"}
_MIME_KINDS = {"image/png": "png", "image/jpeg": "jpeg", "image/ktx2": "ktx2", "image/webp": "webp",
               "image/vnd-ms.dds": "dds", "image/avif": "avif"}
_SUFFIX_KINDS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".ktx2": "ktx2", ".webp": "webp",
                 ".dds": "dds", ".avif": "avif", ".ktx": "ktx", ".tga": "tga", ".bmp": "bmp",
                 ".gif": "gif", ".tif": "tiff", ".tiff": "tiff", ".psd": "psd", ".exr": "exr", ".hdr": "hdr"}
#: The kinds a texture's own ``source`` may hold.
CORE_KINDS = frozenset({"png", "jpeg"})
#: Texture extension -> the kind its ``source`` may hold (and that the fallback may not).
EXTENSION_KINDS = {"KHR_texture_basisu": "ktx2", "EXT_texture_webp": "webp", "EXT_texture_avif": "avif",
                   "MSFT_texture_dds": "dds"}
_NAMES = {"ktx2": "KTX2", "webp": "WebP", "avif": "AVIF", "dds": "DDS", "ktx": "KTX 1", "tga": "TGA",
          "bmp": "BMP", "gif": "GIF", "tiff": "TIFF", "psd": "PSD", "exr": "OpenEXR", "hdr": "Radiance HDR"}


def image_kind(mime: str | None, uri: str | None) -> str | None:
    """The format an image declares: its ``mimeType`` (an unknown one as it is written), else
    a data: URI's ``image/…`` media type, else the suffix of its URI; None when it says
    nothing known."""
    if mime:
        return _MIME_KINDS.get(mime.lower(), mime[:40])
    if uri is None:
        return None
    if uri.startswith("data:"):
        media = uri[5:].split(";", 1)[0].split(",", 1)[0].strip()
        return _MIME_KINDS.get(media.lower(), media[:40] if media.lower().startswith("image/") else None)
    return _SUFFIX_KINDS.get(suffix_of(uri.partition("?")[0].partition("#")[0] if "?" in uri or "#" in uri else uri))


def refused(kind: str, extensions: Collection[str]) -> bool:
    """A texture's own ``source`` of ``kind`` is not allowed: neither PNG nor JPEG, and not
    the kind of an extension the texture has (``extensions``: their names)."""
    if kind in CORE_KINDS:
        return False
    return not any(EXTENSION_KINDS.get(name) == kind for name in extensions)


#: Textures named in a TB088 message; the rest are counted.
SHOWN_SOURCES = 3


def refused_message(kind: str, sources: Sequence[tuple[int, str]]) -> str:
    """The one TB088 message of a file for the textures whose source is ``kind`` without its
    extension; ``sources``: (texture, image identity) of each, in order."""
    name = _NAMES.get(kind, kind)
    needed = next((ext for ext, k in EXTENSION_KINDS.items() if k == kind), None)
    why = f"without {needed}" if needed else "which no glTF extension allows"
    shown_sources = ", ".join(f"texture {t}: {identity}" for t, identity in sources[:SHOWN_SOURCES])
    more = f", and {len(sources) - SHOWN_SOURCES} more" if len(sources) > SHOWN_SOURCES else ""
    subject = "1 texture's source is" if len(sources) == 1 else f"{len(sources)} textures' sources are"
    return f"{subject} {name} ({shown_sources}{more}), {why}; a texture's source must be PNG or JPEG"


# --- images ---------------------------------------------------------------------------------------


def read_images(ctx: Context, layout: Layout, resolver: Resolver) -> tuple[list[TextureFacts], list[str], list[str | None]]:
    """TextureFacts of the embedded images, and every image's identity and declared kind
    (``image_kind``; the data's own for an embedded one that declares none), by index."""
    textures: list[TextureFacts] = []
    identities: list[str] = []
    kinds: list[str | None] = []
    n_views = layout.n_views
    read_views: dict[tuple[int, str | None], tuple[str, ReadResult]] = {}  # (view, hint) -> (first identity, result)
    for i, img in enumerate(ctx.doc.images or ()):
        uri, v, mime = img.uri, img.buffer_view, img.mime_type
        if v is None and uri is not None and not uri.startswith("data:"):  # an external file
            identities.append(resolver.resolve(uri, f"image {i}") or f"{ctx.rel}#image/{i}")
            kinds.append(image_kind(mime, uri))
            continue
        where = f"image {i}"
        identity = f"{ctx.rel}#image/{i}"
        hint = MIME_SUFFIX.get(mime) if mime is not None else None
        if v is not None:
            index(v, f"{where}: 'bufferView'", n_views, "bufferView")
        elif uri is None:
            raise Broken("TB073", f"{where} has neither a uri nor a bufferView")
        result = None
        if i >= MAX_EMBEDDED_IMAGES:
            if i == MAX_EMBEDDED_IMAGES:
                ctx.note("TB078", f"{where} and the images after it were not read: texbudget reads at most {MAX_EMBEDDED_IMAGES} embedded images per file")
        elif v is not None:
            earlier = read_views.get((v, hint))
            if earlier is not None:  # the same bytes, read for an earlier image
                result = _as(identity, *earlier)
            else:
                data = layout.view_bytes(v, where)
                if data is not None:
                    result = read_bytes(identity, data, hint)
                    read_views[(v, hint)] = (identity, result)
        elif uri is not None:  # a data: URI
            data = resolver.data(uri, where, limit=MAX_IMAGE_BYTES)
            hint = MIME_SUFFIX.get(media_type(uri), hint)
            if data is not None:
                result = read_bytes(identity, data, hint)
        identities.append(identity)
        kind = image_kind(mime, uri)
        if result is not None:
            textures.extend(result.textures)
            ctx.found.extend(result.findings)
            if kind is None and result.textures:
                kind = result.textures[0].container
        kinds.append(kind)
    return textures, identities, kinds


def _as(identity: str, first: str, earlier: ReadResult) -> ReadResult:
    """The result of an image read for an earlier image of the same bufferView, under this
    image's identity."""
    return ReadResult(textures=tuple(evolve(t, path=identity) for t in earlier.textures),
                      findings=tuple(Finding(path=identity, code=f.code, severity=f.severity, message=f.message, hint=f.hint)
                                     if f.path == first else f for f in earlier.findings))


# --- EXT_lights_image_based -----------------------------------------------------------------------


class _Bad(Exception):
    """A light that breaks the extension's rules: the one finding that says why."""


def _index(v: int | None, where: str, n: int, what: str) -> int:
    if v is None or v < 0:
        raise _Bad(f"{where} is {shown(v)}, not an index")
    if v >= n:
        raise _Bad(f"{where} points to {what} {v}, but the file has {n}")
    return v


def _used_lights(ctx: Context, n_lights: int, notes: list[tuple[str, str]]) -> list[int]:
    """The lights the walked scenes use (the default scene, else every scene), in order."""
    scenes = ctx.doc.scenes or []
    default = ctx.doc.scene
    walked = [default] if default is not None and 0 <= default < len(scenes) else range(len(scenes))
    used: dict[int, None] = {}
    for s in walked:
        exts = scenes[s].extensions
        ref = exts.lights if exts is not None else None
        if ref is None:
            continue
        try:
            used[_index(ref.light, f"scene {s} {EXTENSION}: 'light'", n_lights, "light")] = None
        except _Bad as exc:
            notes.append(("TB073", str(exc)))
    return list(used)


def read_lights(ctx: Context, image_ids: Sequence[str],
                embedded: Mapping[str, TextureFacts]) -> tuple[list[TextureFacts], list[tuple[str, str]], list[tuple[str, str]]]:
    """(cubemap textures, (face image, cubemap) pairs, findings as (code, message)) for the
    EXT_lights_image_based lights the walked scenes use. ``embedded``: the images read in
    place, by identity, whose sizes are checked against the light's."""
    exts = ctx.doc.extensions
    ext = exts.lights if exts is not None else None
    if ext is None:
        return [], [], []
    lights = ext.lights
    if lights is None:
        return [], [], [("TB073", f"{EXTENSION}: 'lights' is not an array")]
    notes: list[tuple[str, str]] = []
    cubes: list[TextureFacts] = []
    faces: list[tuple[str, str]] = []
    for n in _used_lights(ctx, len(lights), notes):
        try:
            cube, listed = _light(n, lights[n], ctx.rel, image_ids, embedded, notes)
        except _Bad as exc:
            notes.append(("TB073", str(exc)))
            continue
        cubes.append(cube)
        faces += [(face, cube.path) for face in dict.fromkeys(listed)]
    return cubes, faces, notes


def _light(n: int, light: Light, rel: str, image_ids: Sequence[str], embedded: Mapping[str, TextureFacts],
           notes: list[tuple[str, str]]) -> tuple[TextureFacts, list[str]]:
    where = f"{EXTENSION} light {n}"
    size = light.specular_image_size
    if size is None or size < 1:
        raise _Bad(f"{where}: 'specularImageSize' is {shown(size)}, not a positive integer")
    if size > MAX_DIMENSION:
        raise _Bad(f"{where}: 'specularImageSize' is {size}, larger than any GPU allows ({MAX_DIMENSION})")
    levels = light.specular_images
    if not levels:
        raise _Bad(f"{where}: 'specularImages' is not a non-empty array")
    listed: list[str] = []
    mismatch = None
    for level, row in enumerate(levels):
        if len(row) != 6:
            raise _Bad(f"{where}: specularImages[{level}] is not an array of 6 images (one per cube face)")
        side = max(1, size >> level)
        for face, value in enumerate(row):
            i = _index(value, f"{where}: specularImages[{level}][{face}]", len(image_ids), "image")
            listed.append(image_ids[i])
            facts = embedded.get(image_ids[i])
            if mismatch is None and facts is not None and (facts.width, facts.height) != (side, side):
                mismatch = f"image {i} ({image_ids[i]}), face {face} of level {level}, is {facts.width}x{facts.height}, not {side}x{side}"
    full = size.bit_length()  # levels of a size×size chain down to 1×1
    stored = min(len(levels), full)
    if size & (size - 1):
        notes.append(("TB089", f"{where}: specularImageSize {size} is not a power of two; priced as declared"))
    if len(levels) > full:
        notes.append(("TB089", f"{where} lists {len(levels)} levels, but a {size}x{size} cubemap has {full}; "
                               f"the last {len(levels) - full} are not counted"))
    if mismatch is not None:
        notes.append(("TB089", f"{where}: {mismatch}; priced as the light declares"))
    cube = TextureFacts(
        path=f"{rel}#light/{n}", container=COMPOSED_CONTAINER, width=size, height=size, faces=6,
        stored_levels=stored, channels=3, alpha=False, hdr=True,
    )
    return cube, listed

