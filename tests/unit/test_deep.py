"""--deep: opaque alpha (TB013), greyscale colour (TB014), solid colour (TB016), undecodable or
too large (TB015), with the exact bytes each cheaper format saves."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from texbudget import deep
from texbudget.config import parse_rules
from texbudget.model import TextureFacts
from texbudget.policy.decision import decide, price
from texbudget.policy.profiles import PolicySettings


def block_chain(bpb: int, w: int, h: int) -> int:
    total = 0
    while True:
        total += -(-w // 4) * -(-h // 4) * bpb
        if w == 1 and h == 1:
            return total
        w, h = max(1, w // 2), max(1, h // 2)


def rgba8_chain(w: int, h: int) -> int:
    total = 0
    while True:
        total += w * h * 4
        if w == 1 and h == 1:
            return total
        w, h = max(1, w // 2), max(1, h // 2)


def noise(h: int, w: int, channels: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, channels), dtype=np.uint8)


def save(tmp_path: Path, name: str, arr: np.ndarray, mode: str) -> tuple[Path, TextureFacts]:
    path = tmp_path / name
    Image.fromarray(arr if arr.shape[2] > 1 else arr[:, :, 0], mode).save(path)
    h, w = arr.shape[:2]
    alpha = mode in ("RGBA", "LA")
    facts = TextureFacts(path=name, container="png", width=w, height=h,
                         channels={"RGBA": 4, "RGB": 3, "LA": 2, "L": 1}[mode], alpha=alpha,
                         grey=mode in ("L", "LA"))
    return path, facts


def test_twin_tables_name_real_formats() -> None:
    deep.check_tables()


def test_opaque_alpha_bc3_to_bc1(tmp_path: Path) -> None:
    arr = noise(256, 256, 4)
    arr[:, :, 3] = 255
    path, facts = save(tmp_path, "crate_albedo.png", arr, "RGBA")
    plan = decide(facts, PolicySettings())
    assert plan.gpu_format == "BC3_SRGB"
    (f,) = deep.deep_inspect(path, facts, plan)
    saves = block_chain(16, 256, 256) - block_chain(8, 256, 256)
    assert saves == 43704
    assert (f.code, f.path) == ("TB013", "crate_albedo.png")
    assert f.message == "alpha channel is fully opaque: BC3_SRGB → BC1_RGB_SRGB would save 43704 bytes (42.68 KiB)"


def test_opaque_alpha_etc2_and_tier(tmp_path: Path) -> None:
    arr = noise(512, 512, 4)
    arr[:, :, 3] = 255
    path, facts = save(tmp_path, "a.png", arr, "RGBA")
    plan = decide(facts, PolicySettings(platform="mobile-etc2", quality="high"))
    assert (plan.gpu_format, plan.tier_drop) == ("ETC2_R8G8B8A8_SRGB", 1)
    (f,) = deep.deep_inspect(path, facts, plan)
    saves = block_chain(16, 256, 256) - block_chain(8, 256, 256)  # the tier dropped the 512 level
    assert f.message == f"alpha channel is fully opaque: ETC2_R8G8B8A8_SRGB → ETC2_R8G8B8_SRGB would save {saves} bytes (42.68 KiB)"


def test_real_alpha_is_not_reported(tmp_path: Path) -> None:
    arr = noise(64, 64, 4)
    arr[0, 0, 3] = 0
    arr[1:, :, 3] = 255
    path, facts = save(tmp_path, "a.png", arr, "RGBA")
    assert deep.deep_inspect(path, facts, decide(facts, PolicySettings())) == ()


def test_no_saving_no_finding(tmp_path: Path) -> None:
    """Opaque RGBA under BC7 or ASTC, or RGBA8: the opaque twin is the same size."""
    arr = noise(64, 64, 4)
    arr[:, :, 3] = 255
    path, facts = save(tmp_path, "a.png", arr, "RGBA")
    for platform in ("desktop-bc7", "mobile-astc", "uncompressed"):
        assert deep.deep_inspect(path, facts, decide(facts, PolicySettings(platform=platform))) == ()


@pytest.mark.parametrize("platform,mode,before,after,saves", [
    ("desktop-bc7", "RGB", "BC7_SRGB", "BC4_UNORM", block_chain(16, 256, 256) - block_chain(8, 256, 256)),
    ("desktop", "RGBA", "BC3_SRGB", "BC4_UNORM", block_chain(16, 256, 256) - block_chain(8, 256, 256)),
    ("uncompressed", "RGB", "R8G8B8A8_SRGB", "R8_UNORM", rgba8_chain(256, 256) - rgba8_chain(256, 256) // 4),
    ("mobile-etc2", "RGBA", "ETC2_R8G8B8A8_SRGB", "EAC_R11_UNORM", block_chain(16, 256, 256) - block_chain(8, 256, 256)),
])
def test_greyscale_colour_image(tmp_path: Path, platform: str, mode: str, before: str, after: str, saves: int) -> None:
    grey = noise(256, 256, 1, seed=3)
    arr = np.repeat(grey, 4 if mode == "RGBA" else 3, axis=2)
    if mode == "RGBA":
        arr[:, :, 3] = 255
    path, facts = save(tmp_path, "stone_albedo.png", arr, mode)
    plan = decide(facts, PolicySettings(platform=platform))
    assert plan.gpu_format == before
    (f,) = deep.deep_inspect(path, facts, plan)
    if after == "R8_UNORM":
        assert saves == 262143  # 349524 - 87381: one byte per texel instead of four
    extra = " and its alpha is opaque" if mode == "RGBA" else ""
    assert f.code == "TB014"
    assert f.message.startswith(f"colour image is greyscale{extra}: {before} → {after} would save {saves} bytes (")


def test_greyscale_under_bc1_saves_nothing(tmp_path: Path) -> None:
    """BC1 and BC4 are both 8 bytes per block: no finding."""
    arr = np.repeat(noise(64, 64, 1), 3, axis=2)
    path, facts = save(tmp_path, "a.png", arr, "RGB")
    assert decide(facts, PolicySettings()).gpu_format == "BC1_RGB_SRGB"
    assert deep.deep_inspect(path, facts, decide(facts, PolicySettings())) == ()


def test_one_colour_pixel_in_the_last_band_breaks_grey(tmp_path: Path) -> None:
    h = deep.BAND_ROWS * 2 + 10
    arr = np.repeat(noise(h, 32, 1), 3, axis=2)
    arr[h - 1, 31] = (10, 20, 30)
    path, facts = save(tmp_path, "a.png", arr, "RGB")
    plan = decide(facts, PolicySettings(platform="uncompressed"))
    assert deep.deep_inspect(path, facts, plan) == ()


def test_solid_colour(tmp_path: Path) -> None:
    arr = np.zeros((128, 128, 3), dtype=np.uint8)
    arr[:, :] = (200, 100, 50)
    path, facts = save(tmp_path, "flat_albedo.png", arr, "RGB")
    plan = decide(facts, PolicySettings())
    (f,) = deep.deep_inspect(path, facts, plan)
    saves = block_chain(8, 128, 128) - 8
    assert (f.code, saves) == ("TB016", 10928)
    assert f.message == "every pixel has the same value: a 1x1 BC1_RGB_SRGB would save 10928 bytes (10.67 KiB)"


def test_palette_with_transparency_and_grey_modes(tmp_path: Path) -> None:
    im = Image.new("P", (64, 64))
    im.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    im.putpixel((1, 1), 1)
    im.info["transparency"] = 0
    path = tmp_path / "p.png"
    im.save(path, transparency=0)
    facts = TextureFacts(path="p.png", container="png", width=64, height=64, channels=4, alpha=True, palette=True)
    assert deep.deep_inspect(path, facts, decide(facts, PolicySettings())) == ()  # index 0 is transparent
    grey = noise(64, 64, 1)
    gpath, gfacts = save(tmp_path, "g.png", grey, "L")
    assert deep.deep_inspect(gpath, gfacts, decide(gfacts, PolicySettings(platform="uncompressed"))) == ()


def test_embedded_image_bytes(tmp_path: Path) -> None:
    arr = noise(64, 64, 4)
    arr[:, :, 3] = 255
    buf = io.BytesIO()
    Image.fromarray(arr, "RGBA").save(buf, "PNG")
    facts = TextureFacts(path="level.glb#image/0", container="png", width=64, height=64, channels=4, alpha=True)
    (f,) = deep.deep_inspect(Path("level.glb"), facts, decide(facts, PolicySettings()), data=buf.getvalue())
    assert f.code == "TB013"


def test_decompression_bomb_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, facts = save(tmp_path, "big.png", noise(64, 64, 3), "RGB")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    (f,) = deep.deep_inspect(path, facts, decide(facts, PolicySettings()))
    assert f.code == "TB015"
    assert f.message == "not decoded: 64x64 is 4096 pixels, above Pillow's decompression-bomb limit of 1000"
    # a header that under-reports its size is still caught by Pillow's own check
    small = TextureFacts(path="big.png", container="png", width=8, height=8, channels=3)
    (g,) = deep.deep_inspect(path, small, decide(small, PolicySettings()))
    assert g.code == "TB015" and g.message.startswith("not decoded: ")


def test_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    facts = TextureFacts(path="bad.png", container="png", width=64, height=64, channels=3)
    (f,) = deep.deep_inspect(path, facts, decide(facts, PolicySettings()))
    assert f.code == "TB015" and f.message.startswith("could not decode the pixels: ")


def test_skipped_kinds(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"")
    stored = TextureFacts(path="a.dds", container="dds", width=64, height=64, stored_format="BC7_SRGB")
    basis = TextureFacts(path="a.ktx2", container="ktx2", width=64, height=64, transcodable="ETC1S")
    hdr = TextureFacts(path="a.exr", container="exr", width=64, height=64, hdr=True)
    for f in (stored, basis, hdr):
        assert deep.deep_inspect(path, f, decide(f, PolicySettings())) == ()
    src = TextureFacts(path="a.png", container="png", width=64, height=64)
    rules = parse_rules([{"match": "*.png", "ignore": True}], "t.toml")
    assert deep.deep_inspect(path, src, decide(src, PolicySettings(), rules)) == ()


def test_savings_use_price() -> None:
    facts = TextureFacts(path="a.png", container="png", width=256, height=256, channels=4, alpha=True)
    plan = decide(facts, PolicySettings())
    assert price(plan).gpu_bytes == block_chain(16, 256, 256) == 87408
