"""A texture's role from what its path and header say: a UI folder, or the last
meaningful token of its name (``NAME_SUFFIXES``, documented in docs/policy.md), else its
header (``role_from_header``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from texbudget.model import TextureFacts, file_of

# --- naming conventions ------------------------------------------------------------------

#: Last name token (before the extension, after dropping resolution/API tokens) -> role.
#: Case-insensitive; tokens are split on "_", "-", "." and spaces. Documented in docs/policy.md.
NAME_SUFFIXES: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("albedo", "basecolor", "basecolour", "diffuse", "diff", "col", "color",
                     "colour", "d", "alb", "albedotransparency", "maintex"), "albedo"),
    **dict.fromkeys(("normal", "normals", "nrm", "nor", "norm", "n", "nml", "normalmap",
                     "bumpmap"), "normal"),
    **dict.fromkeys(("orm", "arm", "rma", "mra", "mask", "maskmap", "metallicsmoothness",
                     "metallicroughness", "occlusionroughnessmetallic"), "mask"),
    **dict.fromkeys(("roughness", "rough", "metallic", "metal", "metalness", "ao", "occlusion",
                     "ambientocclusion", "gloss", "glossiness", "smoothness", "opacity"), "single"),
    **dict.fromkeys(("height", "disp", "displacement", "heightmap", "parallax"), "height"),
    **dict.fromkeys(("emissive", "emission", "emit", "glow"), "emissive"),
})
#: Folder names (any level, case-insensitive) that make a texture UI.
UI_FOLDERS: frozenset[str] = frozenset({"ui", "hud", "gui", "icons"})
#: Tokens skipped at the end of a name: resolutions (2k, 4096, 1024x1024), normal-map API
#: flavours (gl, dx), LOD and version marks.
_NOISE = re.compile(r"^(?:\d+k|\d+|\d+x\d+|\d+px|gl|dx|ogl|opengl|directx|lod\d+|v\d+|srgb|linear)$")

#: A name token and the separators before it.
_NAME_TOKEN = re.compile(r"([_\-. ]*)([^_\-. ]+)")


# Cached: a scene has far fewer folders than textures.
@lru_cache(maxsize=4096)
def _ui_folder(folders: str) -> str | None:
    """The first folder of a ``/``-separated folder path that makes a texture UI, or None."""
    return next((f for f in folders.split("/") if f.lower() in UI_FOLDERS), None)


#: Every digit to "0": ``role_from_name`` gives the same answer for the folded path (a
#: table for bytes: a UTF-8 path's multi-byte characters never hold an ASCII byte).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def role_from_name(path: str) -> tuple[str, str] | None:
    """(role, reason) from a UI folder, else the name's last meaningful token, or None.

    Cached on the path with every digit folded to "0", which changes no answer: every token
    with a digit is noise (``_NOISE`` matches "2k", "lod12", "v3", … whatever the digits) or
    is no role name (none has a digit), a first token of digits is no convention whatever its
    digits, and no UI folder name has a digit. So ``rock_0001_n.png`` and ``rock_0412_n.png``
    are worked out once: a scene's generated names differ mostly in their numbers. (Only
    ASCII digits are folded; a path with other digits is worked out as it is.) The key is
    the path's UTF-8 bytes, folded by a byte table: a fifth of the cost of a regular
    expression's substitution ("surrogatepass" keeps a name that was not UTF-8 on disk)."""
    return _role_from_folded(path.encode("utf-8", "surrogatepass").translate(_ZEROS))


@lru_cache(maxsize=16384)
def _role_from_folded(folded: bytes) -> tuple[str, str] | None:
    path = folded.decode("utf-8", "surrogatepass")
    folders, _, name = file_of(path).rpartition("/")
    ui = _ui_folder(folders) if folders else None
    if ui is not None:
        return "ui", f"folder '{ui}/'"
    stem = name.rsplit(".", 1)[0] if "." in name else name
    tokens = _NAME_TOKEN.findall(stem)
    for i in range(len(tokens) - 1, -1, -1):
        sep, token = tokens[i]
        low = token.lower()
        if i > 0 and _NOISE.match(low):
            continue
        if i == 0 and len(low) < 2:
            return None  # "d.png" is no convention; "albedo.png" and "rock_d.png" are
        role = NAME_SUFFIXES.get(low)
        if role is None:
            return None
        return role, f"name '{(sep[-1:] if sep else '')}{low}'"
    return None


def role_from_header(facts: TextureFacts) -> tuple[str, str]:
    if facts.hdr:
        return "hdr", "header: HDR"
    if facts.channels == 1 or (facts.grey and not facts.alpha):
        return "single", "header: one grey channel"
    if facts.alpha:
        return "albedo", "header: colour with alpha"
    return "albedo", "header: colour"
