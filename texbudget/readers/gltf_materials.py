"""A glTF's textures and materials: which image each material's texture slot uses.

Every ``*Texture`` slot of the core material, its pbrMetallicRoughness and its extensions
(known or not: KHR_materials_clearcoat's ``clearcoatTexture``, KHR_materials_sheen's
``sheenColorTexture``, …), in the file's order, is resolved through the texture's source
(KHR_texture_basisu, EXT_texture_webp, EXT_texture_avif and MSFT_texture_dds preferred over the
fallback ``source``) to the image's identity. An image that is only ever such a fallback is
listed in ``SceneFacts.fallbacks`` (the pipeline does not count it). A material's
``alphaMode`` other than OPAQUE is in ``SceneFacts.alpha_modes``. A texture's own ``source``
that is neither PNG nor JPEG without the extension that allows it is TB088.

Materials are plain JSON objects (``gltf_schema``): their values are checked here, an integer
written as a float (``4.0``) taken as the integer, as the rest of the document's are.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec

from texbudget.readers.gltf_container import Broken, Context, index, kept_column, shown
from texbudget.readers.gltf_images import CORE_KINDS, refused, refused_message
from texbudget.readers.gltf_schema import SOURCE_EXTENSIONS

#: A material property's slot: its name without ``Texture`` for a ``*Texture`` property, ""
#: for any other; one string per name in a process (a scan holds one per used slot).
_SLOTS: dict[str, str] = {}
_SLOTS_MAX = 4096


class Usage(msgspec.Struct, gc=False):
    """What a glTF's materials use: every used texture slot as columns (the image, the
    material, the slot: ``SceneFacts.texture_paths``, ``texture_users``, ``texture_slots``),
    every image a used texture names (its extension sources and its fallback), the images
    that are only ever a used texture's fallback (an extension source was chosen over them),
    and (material, alphaMode) of the materials with slots that are not OPAQUE."""

    images: tuple[str, ...]
    users: tuple[str, ...]
    slots: tuple[str, ...]
    used: set[int]
    fallbacks: tuple[str, ...]
    alpha_modes: tuple[tuple[str, str], ...]


def read_materials(ctx: Context, image_ids: list[str], kinds: list[str | None]) -> Usage:
    """Every used texture slot of the materials, each (image, material, slot) once."""
    texture_images = _read_textures(ctx, image_ids, kinds)
    usage: dict[tuple[str, str, str], None] = {}  # (image, material, slot), in the file's order
    alpha_modes: list[tuple[str, str]] = []
    used: set[int] = set()
    chosen_images: set[int] = set()
    passed_over: set[int] = set()  # sources after the chosen one (it is the first)
    n_textures = len(texture_images)
    for m, mat in enumerate(ctx.doc.materials or ()):
        slots = _texture_slots(mat, m, n_textures)
        if not slots:
            continue
        user = ctx.material_id(m)
        if "alphaMode" in mat:
            mode = mat["alphaMode"]
            if mode not in ("OPAQUE", "MASK", "BLEND"):
                ctx.note("TB073", f"material {m}: alphaMode {json.dumps(mode)[:40]} is not OPAQUE, MASK or BLEND; its alpha is taken as read (BLEND)")
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
    fallbacks = tuple([image_ids[i] for i in sorted(passed_over - chosen_images)]) if passed_over else ()
    images, users, slot_names = zip(*usage, strict=True) if usage else ((), (), ())
    return Usage(images=images, users=users, slots=kept_column(slot_names, "slots"), used=used, fallbacks=fallbacks,
                 alpha_modes=tuple(alpha_modes))


def _read_textures(ctx: Context, image_ids: list[str], kinds: list[str | None]) -> list[tuple[int | None, tuple[int, ...]]]:
    """Per texture: (the image an engine loads, every image it names), the extension sources
    first. Sources that are neither PNG nor JPEG without their extension: one TB088 per kind."""
    n_images = len(image_ids)
    out: list[tuple[int | None, tuple[int, ...]]] = []
    wrong: dict[str, list[tuple[int, str]]] = {}  # kind -> (texture, image) of refused sources
    for t, tex in enumerate(ctx.doc.textures or ()):
        sources: list[int] = []
        present: list[str] = []
        exts = tex.extensions
        if exts is not None:
            for name in SOURCE_EXTENSIONS:
                ext = getattr(exts, name)
                if ext is not None:
                    present.append(name)
                    s = ext.source
                    if s is not None:
                        if not 0 <= s < n_images:
                            index(s, f"texture {t} {name}: 'source'", n_images, "image")
                        sources.append(s)
        s = tex.source
        if s is not None:
            if not 0 <= s < n_images:
                index(s, f"texture {t}: 'source'", n_images, "image")
            sources.append(s)
            kind = kinds[s]
            if kind is not None and kind not in CORE_KINDS and refused(kind, present):
                wrong.setdefault(kind, []).append((t, image_ids[s]))
        out.append((sources[0] if sources else None, tuple(sources)))
    for kind, refused_sources in wrong.items():
        ctx.note("TB088", refused_message(kind, refused_sources))
    return out


def _texture_slots(mat: dict[str, Any], m: int, n_textures: int) -> list[tuple[str, int]]:
    """(slot, texture) for every ``*Texture`` of material ``m``, its pbrMetallicRoughness and
    its extensions. The slot is the property name without ``Texture``: baseColor,
    metallicRoughness, normal, occlusion, emissive, clearcoat, …"""
    pbr = mat.get("pbrMetallicRoughness")
    holders: list[tuple[dict[str, Any], str]] = [(mat, "")] if pbr is None else [
        (pbr if type(pbr) is dict else _object(pbr, m, "pbrMetallicRoughness"), "pbrMetallicRoughness"), (mat, "")]
    exts = mat.get("extensions")
    if exts is not None:
        holders += [(ext, name) for name, ext in _object(exts, m, "extensions").items() if isinstance(ext, dict)]
    out: list[tuple[str, int]] = []
    for holder, holder_name in holders:
        for key, info in holder.items():
            slot = _SLOTS.get(key)
            if slot is None:
                slot = _slot(key)
            if slot:
                t = info.get("index") if type(info) is dict else None
                if type(t) is not int or not 0 <= t < n_textures:
                    holder_where = f"material {m} {holder_name}" if holder_name else f"material {m}"
                    if not isinstance(info, dict):
                        raise Broken("TB073", f"{holder_where}: '{key}' is not a JSON object")
                    t = _texture_index(t, f"{holder_where} {key}", n_textures)
                out.append((slot, t))
    return out


def _object(value: Any, m: int, key: str) -> dict[str, Any]:
    """Material ``m``'s ``key``, which must be a JSON object."""
    if not isinstance(value, dict):
        raise Broken("TB073", f"material {m}: '{key}' is not a JSON object")
    return value


def _slot(key: str) -> str:
    """The slot a material property names ("" when it is no ``*Texture``), kept in ``_SLOTS``."""
    slot = key[:-7] if key.endswith("Texture") and len(key) > 7 else ""
    if len(_SLOTS) < _SLOTS_MAX:
        _SLOTS[key] = slot
    return slot


def _texture_index(value: Any, where: str, n_textures: int) -> int:
    """A textureInfo's ``index``: an integer (or a float that is one) into the textures."""
    if type(value) is int:
        return index(value, f"{where}: 'index'", n_textures, "texture")
    if value is None:
        raise Broken("TB073", f"{where}: required 'index' is missing")
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return index(int(value), f"{where}: 'index'", n_textures, "texture")
    raise Broken("TB073", f"{where}: 'index' is {shown(value)}, not an index")
