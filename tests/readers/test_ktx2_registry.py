"""Every single-plane format of the Vulkan registry (Khronos' ``vulkan-object``: all VkFormats
but the multi-planar and ``*_SCALED`` ones KTX 2.0 prohibits), written as a valid KTX2 file
with a real data format descriptor (``ktx2_registry``), at awkward sizes: 1x1, 3x5, 64x64 with
a full chain, a cubemap, an array, and a volume where Vulkan allows one.

Each reads without an error and with ``level_bytes`` equal to its level index. A format
texbudget's table knows (``formats.by_vk``) reads with no finding at all, as the table's
format; any other is sized from its descriptor with exactly one TB057 warning. The table
growing makes the second case rarer, never the test weaker."""

from __future__ import annotations

import struct

import pytest

from tests.readers import ktx2_registry as reg
from texbudget import formats
from texbudget.readers import Source
from texbudget.readers import dfd as khr_dfd
from texbudget.readers.ktx import read_ktx2

FORMATS = reg.registry_formats()
SHAPES = {
    "1x1": {"width": 1, "height": 1},
    "3x5": {"width": 3, "height": 5},
    "64x64 full chain": {"width": 64, "height": 64, "levels": 7},
    "cube 8x8 chain": {"width": 8, "height": 8, "faces": 6, "levels": 4},
    "array of 3, 5x3": {"width": 5, "height": 3, "layers": 3, "levels": 3},
    "volume 7x5x3 chain": {"width": 7, "height": 5, "depth": 3, "levels": 3},
}


def _index(data: bytes) -> tuple[int, ...]:
    """uncompressedByteLength of every level of the file's level index."""
    levels = max(1, struct.unpack_from("<I", data, 40)[0])
    return tuple(struct.unpack_from("<3Q", data, 80 + 24 * i)[2] for i in range(levels))


def test_the_registry_is_all_there() -> None:
    """vulkan-object 1.4.366 (pinned in the test extra): 245 single-plane formats, among them
    the families the table lacks (3D ASTC, PVRTC2, 4:2:2, 64-bit, VK_ARM_format_pack)."""
    names = {f.name for f in FORMATS}
    assert len(FORMATS) == 245
    assert {"VK_FORMAT_ASTC_6x6x6_SFLOAT_BLOCK_EXT", "VK_FORMAT_PVRTC2_2BPP_UNORM_BLOCK_IMG", "VK_FORMAT_B16G16R16G16_422_UNORM",
            "VK_FORMAT_R64G64B64A64_SFLOAT", "VK_FORMAT_R14X2_UNORM_PACK16_ARM", "VK_FORMAT_BC7_SRGB_BLOCK"} <= names
    assert not any("SCALED" in n or "PLANE" in n for n in names)


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name.removeprefix("VK_FORMAT_") for f in FORMATS])
def test_every_registry_format_reads_with_its_exact_level_sizes(fmt: reg.RegistryFormat) -> None:
    known = formats.by_vk(fmt.value)
    for label, shape in SHAPES.items():
        if "depth" in shape and not fmt.allows_3d:
            continue
        data = reg.ktx2_file(fmt, **shape)  # type: ignore[arg-type]
        result = read_ktx2(Source(rel="t.ktx2", data=data, suffix_hint=".ktx2"))
        codes = [f.code for f in result.findings]
        assert len(result.textures) == 1, (label, result.findings)
        facts = result.textures[0]
        assert facts.level_bytes == _index(data), label
        assert (facts.width, facts.height, facts.layers, facts.faces) == (
            shape["width"], shape["height"], max(1, shape.get("layers", 0)), shape.get("faces", 1)), label
        if known is not None:
            assert (codes, facts.stored_format) == ([], known.name), label
        else:
            bw, bh, bd = fmt.block
            assert (codes, facts.stored_format) == (["TB057"], f"DFD_{bw}x{bh}x{bd}_{fmt.block_bytes}B"), label


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name.removeprefix("VK_FORMAT_") for f in FORMATS])
def test_block_size_from_the_samples_alone(fmt: reg.RegistryFormat) -> None:
    """The rule for descriptors whose bytesPlane0..7 are 0 (readers/dfd.py) gives the right
    texel block size for every registry format, from its samples alone."""
    dfd = bytearray(fmt.dfd)
    dfd[20:28] = bytes(8)
    desc = khr_dfd.parse(bytes(dfd))
    assert desc is not None and desc.block_bytes == 0
    assert desc.reconstructed_bytes() == fmt.block_bytes
    assert khr_dfd.problem(desc, len(dfd), supercompressed=True) is None
