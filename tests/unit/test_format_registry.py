"""The format table against Khronos' own registry: the ``vulkan-object`` package (vk.xml).

Every VkFormat but the multi-planar and ``*SCALED`` ones has a row, and the row's number,
block extent, bytes per block, compression and components agree with vk.xml, except the
deliberate differences ``format_table.REFERENCE_DIFFERENCES`` lists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from texbudget import format_table, formats

try:
    from vulkan_object import get_vulkan_object
except ImportError:  # the oracle is part of the test extra; without it these tests mean nothing
    pytest.fail("vulkan-object is not installed: pip install -e '.[test]'", pytrace=False)

REPO = Path(__file__).resolve().parents[2]
# Rows no VkFormat has: ETC1 (GL only), the Basis pseudo-formats, and the DXGI-only formats.
NON_VULKAN = {"ETC1_R8G8B8_UNORM", "ETC1S", "UASTC", "UASTC_HDR_4x4", "UASTC_HDR_6x6i", *(row[0] for row in format_table.DXGI_ONLY)}


@pytest.fixture(scope="module")
def registry():
    vk = get_vulkan_object()
    values = {f.name: f.value for f in vk.enums["VkFormat"].fields}
    aliases = {a: f.name for f in vk.enums["VkFormat"].fields for a in f.aliases}
    single = {name: f for name, f in vk.formats.items() if not f.planes and "SCALED" not in name}
    return single, values, aliases


def test_every_single_plane_vkformat_has_a_row(registry):
    single, values, _ = registry
    assert len(single) == 245  # vulkan-object 1.4.366: 297 formats, 44 multi-planar, 8 SCALED
    table = {f.vk_name: f for f in formats.all_formats() if f.vk_format is not None}
    assert set(table) == set(single)
    for name, f in table.items():
        assert f.vk_format == values[name], name
        assert formats.by_vk(values[name]) is f
        assert f.name == format_table.canonical_name(name)


def test_block_extent_and_bytes_agree_with_vk_xml(registry):
    single, _, _ = registry
    checked = 0
    for name, ref in single.items():
        f = formats.find(name)
        extent = tuple(int(v) for v in ref.blockExtent) if ref.blockExtent else (1, 1, 1)
        assert (f.block_width, f.block_height, f.block_depth) == extent, name
        difference = format_table.REFERENCE_DIFFERENCES.get(f.name)
        if difference is not None and difference.reference == "vk.xml":
            assert f.bytes_per_block != ref.blockSize, f"{f.name}: listed as a difference but agrees"
            assert difference.says == f"blockSize {ref.blockSize}"
        else:
            assert f.bytes_per_block == ref.blockSize, name
        checked += 1
    assert checked == 245


def test_every_vk_xml_difference_is_a_vkformat(registry):
    single, _, _ = registry
    for name, difference in format_table.REFERENCE_DIFFERENCES.items():
        if difference.reference == "vk.xml":
            assert formats.get(name).vk_name in single
            assert difference.reason and difference.when == "always"


def test_components_agree_with_vk_xml(registry):
    """channels = distinct components, alpha = an A component, sRGB / float / signed from
    the components' numeric formats, compressed = vk.xml's ``compressed`` attribute."""
    single, _, _ = registry
    for name, ref in single.items():
        f = formats.find(name)
        types = {c.type for c in ref.components}
        numeric = {c.numericFormat for c in ref.components}
        depth = types <= {"D", "S"}
        assert f.channels == len(types), name
        assert f.alpha == ("A" in types), name
        assert f.srgb == ("SRGB" in numeric), name
        assert f.hdr == (bool(numeric & {"SFLOAT", "UFLOAT"}) and not depth), name
        # texbudget's ``signed``: signed-normalised, signed-integer or signed fixed-point data,
        # and BC6H's signed variant (the fix search pairs it with BC6H_SF16)
        assert f.signed == (bool(numeric & {"SNORM", "SINT", "SFIXED5"}) or f.name == "BC6H_SFLOAT"), name
        assert f.compressed == (ref.compressed is not None), name
        if depth:
            assert f.family == "depth", name
        elif ref.chroma == "422":
            assert f.family == "video", name
        elif numeric <= {"UINT", "SINT", "BOOL"}:
            assert f.family == "integer", name
        elif ref.compressed is None:
            assert f.family == "uncompressed", name
        else:
            assert f.family == name.removeprefix("VK_FORMAT_").split("_")[0].lower(), name
        assert (f.min_blocks_x, f.min_blocks_y) == ((2, 2) if f.family == "pvrtc1" else (1, 1)), name


def test_older_registry_names_resolve(registry):
    """Extensions promoted to core keep their old names (``VK_FORMAT_A8_UNORM_KHR``)."""
    single, _, aliases = registry
    resolved = 0
    for old, new in aliases.items():
        if new in single:
            assert formats.find(old) is formats.find(new), old
            resolved += 1
    assert resolved == 33
    listed = {a for names in format_table.VULKAN_ALIASES.values() for a in names}
    assert listed == {a for a, n in aliases.items() if n in single}


def test_the_count_is_the_registry_and_dxgi_and_the_rest(registry):
    single, _, _ = registry
    rows = formats.all_formats()
    assert {f.name for f in rows if f.vk_format is None} == NON_VULKAN
    assert len(rows) == len(single) + len(NON_VULKAN) == 277


def test_readme_states_the_count():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Formats", 1)[1].split("\n## ", 1)[0]
    rows = formats.all_formats()
    vk = sum(f.vk_format is not None for f in rows)
    assert f"{len(rows)} formats" in section
    assert f"{vk} Vulkan formats" in section
    assert f"{len(format_table.DXGI_ONLY)} DXGI-only formats" in section
    assert f"({len(format_table.DXGI_FORMATS)} numbers" in section
    assert re.search(r"`texbudget formats`", section)
