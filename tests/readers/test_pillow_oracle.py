"""Files like those in Pillow's own test suite (python-pillow/Pillow Tests/images) that Pillow
opens and decodes and texbudget called errors: each rebuilt here by the header its original
has, Pillow decoding it as the oracle."""

from __future__ import annotations

import io

from PIL import Image

from tests.readers import factories as fx
from texbudget.readers import read_bytes


def test_a_dds_whose_dx10_resource_dimension_is_0_is_read_as_2d() -> None:
    """Pillow's bc1.dds and bc1_typeless.dds: a DX10 header of zeros but the DXGI format
    (resourceDimension 0 = unknown, arraySize 0). Before: TB054 'resourceDimension 0'."""
    for dxgi, name in ((71, "BC1_RGBA_UNORM"), (70, "BC1_RGBA_UNORM")):
        data = fx.dds_bytes(256, 256, dxgi=dxgi, dimension=0, array_size=0)
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            assert (im.mode, im.size) == ("RGBA", (256, 256))
        result = read_bytes("bc1.dds", data, ".dds")
        (facts,) = result.textures
        assert (facts.width, facts.height, facts.layers, facts.depth, facts.stored_format) == (256, 256, 1, 1, name)
        assert [(f.code, f.message) for f in result.findings] == [
            ("TB055", "DDS DX10 header gives resourceDimension 0 (unknown); read as 2D, as Pillow reads it (DirectXTex refuses it)"),
            ("TB049", "DDS DX10 header gives arraySize 0; read as 1")]
