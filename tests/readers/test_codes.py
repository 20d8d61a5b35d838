"""Every texture-reader finding code (TB040–TB069) in findings.py is produced by a file, with
the table's severity; the table and the readers stay in step."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.readers import factories as fx
from texbudget import findings
from texbudget.model import ReadResult
from texbudget.readers import Source
from texbudget.readers.dds import read_dds
from texbudget.readers.exr import read_exr
from texbudget.readers.hdr import read_hdr
from texbudget.readers.images import read_image
from texbudget.readers.ktx import read_ktx1, read_ktx2

Reader = Callable[[Source], ReadResult]

#: code -> (file name, reader, bytes): one file that produces the code
EXAMPLES: dict[str, tuple[str, Reader, bytes]] = {
    "TB040": ("e.png", read_image, b""),
    "TB041": ("w.dds", read_dds, b"XXXX" + bytes(200)),
    "TB042": ("h.ktx2", read_ktx2, fx.ktx2_bytes(16, 16)[:50]),
    "TB043": ("p.dds", read_dds, fx.dds_bytes(64, 64, mips=7)[:-8]),
    "TB044": ("z.exr", read_exr, fx.exr_bytes(0, 4)),
    "TB045": ("a.hdr", read_hdr, fx.hdr_bytes(8, 8, resolution=b"-Y 8 +X 100000")),
    "TB046": ("u.ktx", read_ktx1, fx.ktx1_bytes(8, 8, gl_internal=0xBEEF)),
    "TB047": ("m.ktx2", read_ktx2, fx.ktx2_bytes(8, 8, levels=5)),
    "TB048": ("c.dds", read_dds, fx.dds_bytes(8, 8, caps2=fx.CAPS2_CUBEMAP | 0x400, images=6)),
    "TB049": ("a0.dds", read_dds, fx.dds_bytes(8, 8, dxgi=71, array_size=0)),
    "TB050": ("l.ktx2", read_ktx2, fx.ktx2_bytes(16, 16)[:-1]),
    "TB051": ("o.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, levels=2, index=[(200, 256, 256), (300, 64, 64)]) + bytes(400)),
    "TB052": ("s.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, scheme=99)),
    "TB053": ("k.ktx", read_ktx1, fx.ktx1_bytes(8, 8, image_sizes=[60])),
    "TB054": ("r.hdr", read_hdr, fx.hdr_bytes(8, 8, resolution=b"8 by 8")),
    "TB055": ("g.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, levels=0)),
    "TB056": ("mp.exr", read_exr, fx.exr_bytes(8, 8, parts=3)),
    "TB060": ("p8.dds", read_dds, fx.dds_bytes(8, 8, fourcc=None, pf_flags=0x20, bit_count=8, payload=1024 + 64)),
    "TB057": ("v.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, vk_format=1000999000)),  # no VkFormat has this number
    "TB058": ("x.ktx2", read_ktx2, fx.ktx2_bytes(16, 16, vk_format=1000999000, level_lengths=[200])),
    "TB062": ("anim.webp", read_image, fx.animated_bytes("WEBP", (17, 9))),
}


def test_every_reader_code_has_an_example() -> None:
    table = {c.code for c in findings.table() if "TB040" <= c.code <= "TB069"}
    assert table == set(EXAMPLES)


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_example_produces_its_code_with_the_table_severity(code: str) -> None:
    name, reader, data = EXAMPLES[code]
    result = reader(Source(rel=name, data=data, suffix_hint="." + name.rsplit(".", 1)[1]))
    produced = {f.code: f for f in result.findings}
    assert code in produced, result.findings
    finding = produced[code]
    assert finding.severity is findings.CODES[code].severity
    assert finding.hint == findings.CODES[code].hint
    assert finding.message and finding.path == name
    if finding.severity.value == "error":
        assert result.textures == ()  # a broken file gives its finding and nothing else
    else:
        assert len(result.textures) == 1  # a warning still reports the texture


LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


@pytest.mark.parametrize("name", ["rock_albedo.png", "hero.ktx2", "sky.dds", "level.glb", "scene.gltf", "sky.exr"])
def test_a_git_lfs_pointer_is_tb008_whatever_its_suffix(tmp_path, name):
    from texbudget.readers import read_path

    fx.write(tmp_path, name, LFS_POINTER)
    result = read_path(tmp_path, name)
    assert not result.textures and not result.meshes
    assert [(f.code, f.severity.value, f.message) for f in result.findings] == [
        ("TB008", "error", "a Git LFS pointer, not the file: its content of 12,345 bytes was not fetched; not priced")]


def test_an_lfs_like_file_that_is_no_pointer_is_read_as_what_it_claims(tmp_path):
    from texbudget.readers import read_path

    fx.write(tmp_path, "big.png", LFS_POINTER + b"x" * 2000)  # longer than any pointer
    assert [f.code for f in read_path(tmp_path, "big.png").findings] == ["TB041"]
    fx.write(tmp_path, "nosize.png", LFS_POINTER.split(b"size")[0])
    assert [f.message for f in read_path(tmp_path, "nosize.png").findings] == [
        "a Git LFS pointer, not the file: its content was not fetched; not priced"]
