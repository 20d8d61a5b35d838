"""Files like those in Pillow's own test suite (python-pillow/Pillow Tests/images) that Pillow
opens and decodes and texbudget called errors: each rebuilt here by the header its original
has, Pillow decoding it as the oracle."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import Image, PsdImagePlugin

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


def _psd_with_layer_info(count: int, info: bytes) -> bytes:
    """An 8x6 RGB PSD (raw merged image) whose layer info is ``info`` after a layer count."""
    block = struct.pack(">h", count) + info
    section = struct.pack(">I", len(block)) + block + struct.pack(">I", 0)  # layer info, empty global mask info
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, 6, 8, 8, 3)
    return header + struct.pack(">II", 0, 0) + struct.pack(">I", len(section)) + section + struct.pack(">H", 0) + bytes(3 * 6 * 8)


def test_a_psd_whose_layer_count_cannot_fit_its_layer_info_says_so() -> None:
    """Like Pillow's timeout-1ee28a24….psd: more layers claimed than the layer info can
    hold. Pillow decodes the merged image but refuses the layers ("Layer block too short");
    texbudget prices the merged image and warns. Before: not a word."""
    data = _psd_with_layer_info(5, bytes(4))
    im = PsdImagePlugin.PsdImageFile(io.BytesIO(data))
    im.load()
    assert (im.mode, im.size) == ("RGB", (8, 6))
    with pytest.raises(SyntaxError, match="Layer block too short"):
        _ = im.layers
    result = read_bytes("bad.psd", data, ".psd")
    assert [(t.width, t.height, t.channels) for t in result.textures] == [(8, 6, 3)]
    assert [(f.code, f.severity.value, f.message) for f in result.findings] == [
        ("TB055", "warning", "PSD: the layer info (6 bytes at offset 38) claims 5 layers; their records need at least 170; "
         "the merged image was read (Pillow reads it, not the layers)")]


def test_a_psd_with_no_layers_or_an_empty_layer_info_is_read() -> None:
    for data in (_psd_with_layer_info(0, b""), _psd_with_layer_info(0, bytes(2))):
        with Image.open(io.BytesIO(data)) as im:
            im.load()
        assert read_bytes("ok.psd", data, ".psd").findings == ()


def test_a_psd_whose_layer_info_runs_past_its_section_says_so() -> None:
    data = bytearray(_psd_with_layer_info(0, bytes(4)))
    data[38:42] = struct.pack(">I", 100)  # the layer info's length, inside a 14-byte section
    result = read_bytes("bad.psd", bytes(data), ".psd")
    assert len(result.textures) == 1
    assert [f.message for f in result.findings] == [
        "PSD: the layer info (100 bytes) runs past the layer and mask section (14 bytes) at offset 34; "
        "the merged image was read (Pillow reads it, not the layers)"]
