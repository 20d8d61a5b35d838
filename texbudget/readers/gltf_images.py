"""What a glTF says about its images beyond the materials (used by ``readers.gltf``):

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

Everything is checked as the rest of the reader checks it; a light that breaks the
extension's schema is a finding and is not priced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from texbudget.model import COMPOSED_CONTAINER, TextureFacts
from texbudget.readers import suffix_of
from texbudget.units import MAX_DIMENSION

EXTENSION = "EXT_lights_image_based"

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


def image_kind(mime: Any, uri: Any) -> str | None:
    """The format an image declares: its ``mimeType`` (an unknown one as it is written), else
    a data: URI's ``image/…`` media type, else the suffix of its URI; None when it says
    nothing known."""
    if isinstance(mime, str) and mime:
        return _MIME_KINDS.get(mime.lower(), mime[:40])
    if not isinstance(uri, str):
        return None
    if uri.startswith("data:"):
        media = uri[5:].split(";", 1)[0].split(",", 1)[0].strip()
        return _MIME_KINDS.get(media.lower(), media[:40] if media.lower().startswith("image/") else None)
    return _SUFFIX_KINDS.get(suffix_of(uri.split("?", 1)[0].split("#", 1)[0]))


def refused(kind: str, extensions: Any) -> bool:
    """A texture's own ``source`` of ``kind`` is not allowed: neither PNG nor JPEG, and not
    the kind of an extension the texture has (``extensions``: its extensions object)."""
    if kind in CORE_KINDS:
        return False
    present = extensions if isinstance(extensions, dict) else {}
    return not any(EXTENSION_KINDS[name] == kind for name in present if name in EXTENSION_KINDS)


#: Textures named in a TB088 message; the rest are counted.
SHOWN_SOURCES = 3


def refused_message(kind: str, sources: Sequence[tuple[int, str]]) -> str:
    """The one TB088 message of a file for the textures whose source is ``kind`` without its
    extension; ``sources``: (texture, image identity) of each, in order."""
    name = _NAMES.get(kind, kind)
    needed = next((ext for ext, k in EXTENSION_KINDS.items() if k == kind), None)
    why = f"without {needed}" if needed else "which no glTF extension allows"
    shown = ", ".join(f"texture {t}: {identity}" for t, identity in sources[:SHOWN_SOURCES])
    more = f", and {len(sources) - SHOWN_SOURCES} more" if len(sources) > SHOWN_SOURCES else ""
    subject = "1 texture's source is" if len(sources) == 1 else f"{len(sources)} textures' sources are"
    return f"{subject} {name} ({shown}{more}), {why}; a texture's source must be PNG or JPEG"


class _Bad(Exception):
    """A light that breaks the extension's schema: the one finding that says why."""


def _index(v: Any, where: str, n: int, what: str) -> int:
    if type(v) is not int or v < 0:
        raise _Bad(f"{where} is {json.dumps(v)[:40]}, not an index")
    if v >= n:
        raise _Bad(f"{where} points to {what} {v}, but the file has {n}")
    return v


def _dict(v: Any, where: str) -> dict:
    if not isinstance(v, dict):
        raise _Bad(f"{where} is not a JSON object")
    return v


def _used_lights(doc: Mapping[str, Any], n_lights: int, notes: list[tuple[str, str]]) -> list[int]:
    """The lights the walked scenes use (the default scene, else every scene), in order."""
    scenes = doc.get("scenes")
    scenes = scenes if isinstance(scenes, list) else []
    default = doc.get("scene")
    walked = [default] if type(default) is int and 0 <= default < len(scenes) else range(len(scenes))
    used: dict[int, None] = {}
    for s in walked:
        scene = scenes[s]
        exts = scene.get("extensions") if isinstance(scene, dict) else None
        ref = exts.get(EXTENSION) if isinstance(exts, dict) else None
        if ref is None:
            continue
        where = f"scene {s} {EXTENSION}"
        try:
            used[_index(_dict(ref, where).get("light"), f"{where}: 'light'", n_lights, "light")] = None
        except _Bad as exc:
            notes.append(("TB073", str(exc)))
    return list(used)


def read_lights(doc: Mapping[str, Any], rel: str, image_ids: Sequence[str],
                embedded: Mapping[str, TextureFacts]) -> tuple[list[TextureFacts], list[tuple[str, str]], list[tuple[str, str]]]:
    """(cubemap textures, (face image, cubemap) pairs, findings as (code, message)) for the
    EXT_lights_image_based lights the walked scenes use. ``embedded``: the images read in
    place, by identity, whose sizes are checked against the light's."""
    exts = doc.get("extensions")
    ext = exts.get(EXTENSION) if isinstance(exts, dict) else None
    if ext is None:
        return [], [], []
    notes: list[tuple[str, str]] = []
    try:
        lights = _dict(ext, f"the document's {EXTENSION}").get("lights")
        if not isinstance(lights, list):
            raise _Bad(f"{EXTENSION}: 'lights' is not an array")
    except _Bad as exc:
        return [], [], [("TB073", str(exc))]
    cubes: list[TextureFacts] = []
    faces: list[tuple[str, str]] = []
    for n in _used_lights(doc, len(lights), notes):
        try:
            cube, listed = _light(n, lights[n], rel, image_ids, embedded, notes)
        except _Bad as exc:
            notes.append(("TB073", str(exc)))
            continue
        cubes.append(cube)
        faces += [(face, cube.path) for face in dict.fromkeys(listed)]
    return cubes, faces, notes


def _light(n: int, light: Any, rel: str, image_ids: Sequence[str], embedded: Mapping[str, TextureFacts],
           notes: list[tuple[str, str]]) -> tuple[TextureFacts, list[str]]:
    where = f"{EXTENSION} light {n}"
    light = _dict(light, where)
    size = light.get("specularImageSize")
    if type(size) is not int or size < 1:
        raise _Bad(f"{where}: 'specularImageSize' is {json.dumps(size)[:40]}, not a positive integer")
    if size > MAX_DIMENSION:
        raise _Bad(f"{where}: 'specularImageSize' is {size}, larger than any GPU allows ({MAX_DIMENSION})")
    levels = light.get("specularImages")
    if not isinstance(levels, list) or not levels:
        raise _Bad(f"{where}: 'specularImages' is not a non-empty array")
    listed: list[str] = []
    mismatch = None
    for level, row in enumerate(levels):
        if not isinstance(row, list) or len(row) != 6:
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
