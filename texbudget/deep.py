"""``--deep``: decode a source image's pixels to find memory the header cannot show.

Three checks, each a Finding that names the cheaper format and the bytes it would save
(priced with the same ``policy.decision.price`` as the report, so tiers and caps are included):

- TB016 every pixel has the same value → a 1x1 texture (or a material constant) would do;
- TB014 a colour image whose R, G and B are equal everywhere (and whose alpha, if any, is
  opaque) → a one-channel format (BC4, EAC R11, R8);
- TB013 an alpha channel that is 255 everywhere → the opaque twin of the format (BC3 → BC1,
  ETC2 RGBA → ETC2 RGB).

Only the most useful finding per texture is reported (solid beats grey beats opaque alpha),
so savings never double count. Decoding goes through Pillow with its decompression-bomb
limit enforced (the warning is an error here: TB015), one image at a time, scanned in row
bands with numpy so the extra memory is one band, not a second copy of the image. Stored GPU
formats, Basis data and HDR sources are not decoded.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

from msgspec.structs import replace

from texbudget import findings, formats
from texbudget.model import Finding, TextureFacts, TexturePlan
from texbudget.policy.decision import price
from texbudget.units import human_bytes

#: Rows decoded per band.
BAND_ROWS = 256

#: A format with alpha -> its opaque twin, where the twin is smaller.
OPAQUE_TWIN: dict[str, str] = {
    "BC3_UNORM": "BC1_RGB_UNORM", "BC3_SRGB": "BC1_RGB_SRGB",
    "BC2_UNORM": "BC1_RGB_UNORM", "BC2_SRGB": "BC1_RGB_SRGB",
    "ETC2_R8G8B8A8_UNORM": "ETC2_R8G8B8_UNORM", "ETC2_R8G8B8A8_SRGB": "ETC2_R8G8B8_SRGB",
}
#: A colour format -> the one-channel format of the same family, where it is smaller.
GREY_TWIN: dict[str, str] = {
    **dict.fromkeys(("BC1_RGB_UNORM", "BC1_RGB_SRGB", "BC1_RGBA_UNORM", "BC1_RGBA_SRGB"), "BC4_UNORM"),
    **dict.fromkeys(("BC3_UNORM", "BC3_SRGB", "BC2_UNORM", "BC2_SRGB", "BC7_UNORM", "BC7_SRGB"), "BC4_UNORM"),
    **dict.fromkeys(("ETC2_R8G8B8A8_UNORM", "ETC2_R8G8B8A8_SRGB"), "EAC_R11_UNORM"),
    **dict.fromkeys(("R8G8B8A8_UNORM", "R8G8B8A8_SRGB", "B8G8R8A8_UNORM", "B8G8R8A8_SRGB"), "R8_UNORM"),
}
_GREY_MODES = frozenset({"L", "I", "I;16", "I;16B", "I;16L", "I;16N", "F", "1"})
_DECODABLE = frozenset({"png", "jpeg", "tga", "bmp", "tiff", "webp", "gif", "psd"})


def _bytes(plan: TexturePlan) -> int:
    return price(plan).gpu_bytes


def deep_inspect(path: Path, facts: TextureFacts, plan: TexturePlan, *, data: bytes | None = None) -> tuple[Finding, ...]:
    """Findings from the pixels of ``path`` (or ``data``, for an image inside a GLB)."""
    if facts.stored_format or facts.transcodable or facts.hdr or plan.ignored:
        return ()
    if facts.container not in _DECODABLE:
        return ()
    from texbudget.readers.images import pillow_image

    Image = pillow_image()
    limit = Image.MAX_IMAGE_PIXELS
    if limit and facts.width * facts.height > limit:
        return (findings.make(facts.path, "TB015",
                              f"not decoded: {facts.width}x{facts.height} is {facts.width * facts.height} pixels, "
                              f"above Pillow's decompression-bomb limit of {limit}"),)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            source = io.BytesIO(data) if data is not None else path
            with Image.open(source) as im:
                im.load()
                stats = _scan(im)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        return (findings.make(facts.path, "TB015", f"not decoded: {exc}"),)
    except (OSError, ValueError, SyntaxError, MemoryError) as exc:
        return (findings.make(facts.path, "TB015", f"could not decode the pixels: {exc}"),)
    return _findings(facts, plan, stats)


class _Stats:
    __slots__ = ("alpha_opaque", "colour_mode", "first", "grey", "has_alpha", "solid")

    def __init__(self) -> None:
        self.has_alpha = False
        self.alpha_opaque = True
        self.grey = True
        self.solid = True
        self.colour_mode = True
        self.first: object = None


def _scan(im) -> _Stats:
    import numpy as np

    stats = _Stats()
    mode = im.mode
    stats.colour_mode = mode not in _GREY_MODES and mode not in ("LA", "La")
    stats.has_alpha = mode in ("RGBA", "RGBa", "LA", "La", "PA") or (mode == "P" and "transparency" in im.info)
    width, height = im.size
    for top in range(0, height, BAND_ROWS):
        band = im.crop((0, top, width, min(height, top + BAND_ROWS)))
        if mode in ("P", "PA", "1", "CMYK", "YCbCr", "LAB", "HSV", "RGBX", "RGBa", "La"):
            band = band.convert("RGBA" if stats.has_alpha else ("L" if mode == "1" else "RGB"))
        arr = np.asarray(band)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        px = arr.reshape(-1, arr.shape[2])
        if stats.first is None:
            stats.first = px[0].copy()
        if stats.solid and not (px == stats.first).all():
            stats.solid = False
        channels = px.shape[1]
        if stats.has_alpha and stats.alpha_opaque:
            alpha = px[:, channels - 1]
            full = 65535 if alpha.dtype == np.uint16 else 255
            if not (alpha == full).all():
                stats.alpha_opaque = False
        if (stats.colour_mode and stats.grey and channels >= 3
                and not ((px[:, 0] == px[:, 1]).all() and (px[:, 1] == px[:, 2]).all())):
            stats.grey = False
        band.close()
        if not stats.solid and not stats.grey and not (stats.has_alpha and stats.alpha_opaque):
            break
    if not stats.has_alpha:
        stats.alpha_opaque = False
    return stats


def _saving(plan: TexturePlan, cheaper: TexturePlan) -> int:
    return _bytes(plan) - _bytes(cheaper)


def _findings(facts: TextureFacts, plan: TexturePlan, stats: _Stats) -> tuple[Finding, ...]:
    before = _bytes(plan)
    if stats.solid and (plan.width > 1 or plan.height > 1):
        one = replace(plan, width=1, height=1, depth=1, levels=1, tier_drop=0)
        saves = before - _bytes(one)
        if saves > 0:
            return (findings.make(facts.path, "TB016",
                                  f"every pixel has the same value: a 1x1 {plan.gpu_format} would save "
                                  f"{saves} bytes ({human_bytes(saves)})"),)
    alpha_unused = not stats.has_alpha or stats.alpha_opaque
    if stats.colour_mode and stats.grey and alpha_unused and plan.gpu_format in GREY_TWIN:
        twin = GREY_TWIN[plan.gpu_format]
        saves = _saving(plan, replace(plan, gpu_format=twin))
        if saves > 0:
            extra = " and its alpha is opaque" if stats.has_alpha else ""
            return (findings.make(facts.path, "TB014",
                                  f"colour image is greyscale{extra}: {plan.gpu_format} → {twin} would save "
                                  f"{saves} bytes ({human_bytes(saves)})"),)
    if stats.has_alpha and stats.alpha_opaque and plan.gpu_format in OPAQUE_TWIN:
        twin = OPAQUE_TWIN[plan.gpu_format]
        saves = _saving(plan, replace(plan, gpu_format=twin))
        if saves > 0:
            return (findings.make(facts.path, "TB013",
                                  f"alpha channel is fully opaque: {plan.gpu_format} → {twin} would save "
                                  f"{saves} bytes ({human_bytes(saves)})"),)
    return ()


def check_tables() -> None:
    """Every twin names a real format (tests call this)."""
    for table in (OPAQUE_TWIN, GREY_TWIN):
        for a, b in table.items():
            formats.get(a)
            formats.get(b)
