"""What a glTF material slot reads of its texture: the role it gives the image, and whether it
reads the image's alpha channel (docs/policy.md §4).

The channels are the glTF 2.0 specification's (``Specification.adoc``: metallicRoughness B and
G, occlusion R, emissive and normal RGB, baseColor RGBA with alpha per ``alphaMode``) and each
extension's README in KhronosGroup/glTF (``extensions/2.0``). A slot name is the property
without ``Texture`` (``metallicRoughness``), as the glTF reader reports it; ``slot_key``
normalises it (``KHR_materials_clearcoat.clearcoatNormalTexture`` → ``clearcoatnormal``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType

#: glTF material slot (normalised) -> role. A slot whose channel is not R (BC4/EAC keep only
#: R) is a mask. specularGlossiness holds sRGB specular colour in RGB (and linear glossiness
#: in A, which sRGB formats keep linear): a colour role, like specularColor and sheenColor.
SLOT_ROLES: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("basecolor", "diffuse", "sheencolor", "specularcolor", "specularglossiness",
                     "diffusetransmissioncolor"), "albedo"),
    **dict.fromkeys(("normal", "clearcoatnormal"), "normal"),
    **dict.fromkeys(("metallicroughness", "thickness", "clearcoatroughness", "sheenroughness",
                     "specular", "iridescencethickness", "anisotropy", "diffusetransmission"), "mask"),
    **dict.fromkeys(("occlusion", "transmission", "clearcoat", "iridescence"), "single"),
    "emissive": "emissive",
})
#: When one image fills several slots, the strongest role wins.
_SLOT_PRIORITY = ("normal", "albedo", "emissive", "mask", "single")

#: Slots whose alpha is coverage: read unless the material's ``alphaMode`` is OPAQUE ("The
#: rendered output is fully opaque and any alpha value is ignored"), the default.
COVERAGE_SLOTS = frozenset({"basecolor", "diffuse"})  # diffuse: KHR_materials_pbrSpecularGlossiness
#: Slots that read colour channels only. The others read alpha: coverage (above),
#: specularGlossiness (glossiness in A), sheenRoughness (A), specular (A, KHR_materials_specular),
#: diffuseTransmission (A); and a slot not listed here, known or not, is taken to read it.
SLOTS_WITHOUT_ALPHA = frozenset({
    "metallicroughness",  # core: B metalness, G roughness
    "normal", "occlusion", "emissive",  # core: RGB, R, RGB
    "clearcoat", "clearcoatroughness", "clearcoatnormal",  # R, G, RGB
    "sheencolor",  # RGB
    "transmission",  # R
    "thickness",  # KHR_materials_volume: G
    "iridescence", "iridescencethickness",  # R, G
    "specularcolor",  # RGB
    "anisotropy",  # RG direction, B strength
    "diffusetransmissioncolor",  # RGB
})


@lru_cache(maxsize=1024)
def slot_key(slot: str) -> str:
    """``KHR_materials_clearcoat.clearcoatNormalTexture`` → ``clearcoatnormal``: the last
    ``.``-separated part, letters only, lower case, a trailing ``texture`` removed."""
    key = re.split(r"[./:#]", slot)[-1].lower()
    key = re.sub(r"[^a-z]", "", key)
    return key.removesuffix("texture") or key


def role_from_slots(slots: Sequence[str]) -> tuple[str, str] | None:
    """(role, reason) of an image that fills ``slots``; None when no slot gives a role."""
    found: dict[str, str] = {}
    for slot in slots:
        role = SLOT_ROLES.get(slot_key(slot))
        if role is not None:
            found.setdefault(role, slot)
    for role in _SLOT_PRIORITY:
        if role in found:
            return role, f"glTF slot {found[role]}"
    return None


@lru_cache(maxsize=1024)
def _reads_alpha(slot: str, opaque: bool) -> bool:
    key = slot_key(slot)
    if key in COVERAGE_SLOTS:
        return not opaque
    return key not in SLOTS_WITHOUT_ALPHA


def alpha_unread(uses: Iterable[tuple[str, str]]) -> str | None:
    """Why no use reads the texture's alpha, for ``decided_by`` ("opaque: only
    metallicRoughness and occlusion read it"), or None when one does (or there is no use).
    ``uses``: (slot, alphaMode of its material) for every glTF use of one texture; a texture
    used by several slots or materials reads alpha if any use does."""
    shown: dict[str, None] = {}
    for slot, mode in uses:
        opaque = mode == "OPAQUE"
        if _reads_alpha(slot, opaque):
            return None
        shown[f"{slot} (alphaMode OPAQUE)" if slot_key(slot) in COVERAGE_SLOTS else slot] = None
    if not shown:
        return None
    names = list(shown)
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"opaque: only {listed} read{'s' if len(names) == 1 else ''} it"

