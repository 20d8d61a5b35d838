"""The DDS reader against DirectXTex's DDS loader (``tests/directxtex.py``): every legacy
pixel format of its ``g_LegacyDDSMap`` reads as the DXGI format DirectXTex loads it as, with
the file's payload checked at the file's own bytes a texel; every DXGI format DirectXTex
sizes reads from a DX10 header, its payload the ComputePitch slice."""

from __future__ import annotations

import pytest

from tests.directxtex import (
    BITS_PER_PIXEL,
    LEGACY_MAP,
    PAL8,
    PALETTE_BYTES,
    Legacy,
    directxtex_slice,
)
from tests.readers import factories as fx
from texbudget import format_table, formats
from texbudget.model import ReadResult
from texbudget.readers import Source
from texbudget.readers.dds import LEGACY_FORMATS, read_dds

W, H = 6, 4


def _read(data: bytes) -> ReadResult:
    return read_dds(Source(rel="t.dds", data=data, suffix_hint=".dds"))


def _legacy_file(e: Legacy, payload: int) -> bytes:
    if e.flags == 0x4:
        return fx.dds_bytes(W, H, fourcc=e.fourcc, payload=payload)
    return fx.dds_bytes(W, H, fourcc=None, pf_flags=e.flags, bit_count=e.bits, masks=e.masks, payload=payload)


def _file_bytes(e: Legacy) -> int:
    """The bytes DirectXTex reads from the file: the palette, then the texels at the file's
    own bits a texel (or the DXGI format's ComputePitch)."""
    texels = W * H * e.file_bits // 8 if e.file_bits else directxtex_slice(e.dxgi, W, H)
    return texels + (PALETTE_BYTES if e.flags & PAL8 else 0)


@pytest.mark.parametrize("e", LEGACY_MAP, ids=lambda e: e.name)
def test_legacy_format_reads_as_directxtex_loads_it(e: Legacy) -> None:
    payload = _file_bytes(e)
    result = _read(_legacy_file(e, payload))
    (f,) = result.textures
    difference = format_table.REFERENCE_DIFFERENCES.get(f"D3DFMT_{e.name}")
    if difference is None:
        assert f.stored_format == formats.by_dxgi(e.dxgi).name
    else:  # 24-bit RGB: kept in its own 3-byte layout
        assert difference.reference == "DirectXTex"
        assert (f.stored_format, e.dxgi) == ("B8G8R8_UNORM", 28)
    expanded = e.file_bits and difference is None
    assert [x.code for x in result.findings] == (["TB060"] if expanded else [])
    assert sum(f.level_bytes) == payload - (PALETTE_BYTES if e.flags & PAL8 else 0)
    truncated = _read(_legacy_file(e, payload - 1))
    assert [x.code for x in truncated.findings] == ["TB043"]


def test_every_legacy_bitmask_entry_is_directxtex_s():
    """texbudget's table holds DirectXTex's bit-mask entries and one more (24-bit RGB in R-low
    order, which DirectXTex refuses), with the same masks."""
    ours = {(e.flags, e.bits, e.masks) for e in LEGACY_FORMATS}
    theirs = {(e.flags, e.bits, e.masks) for e in LEGACY_MAP if e.flags != 0x4}
    assert ours - theirs == {(0x40, 24, (0xFF, 0xFF00, 0xFF0000, 0))}
    assert theirs <= ours


def test_expanded_legacy_sizes_the_gpu_format() -> None:
    """A P8 file: 1 byte a texel after the 1 KiB palette; on the GPU 4 bytes (RGBA8), 64x64
    with a full chain: 4 * (4096 + 1024 + 256 + 64 + 16 + 4 + 1) = 21844."""
    disk = sum(max(1, 64 >> i) ** 2 for i in range(7))
    data = fx.dds_bytes(64, 64, fourcc=None, pf_flags=0x20, bit_count=8, mips=7, payload=PALETTE_BYTES + disk)
    result = _read(data)
    (f,) = result.textures
    assert (f.stored_format, f.stored_levels, sum(f.level_bytes)) == ("R8G8B8A8_UNORM", 7, 5461)
    assert "D3DFMT_P8 (1 byte(s) a texel in the file)" in result.findings[0].message
    from texbudget.sizing.textures import chain_bytes
    assert chain_bytes(formats.get(f.stored_format), 64, 64, levels=7) == 21844


@pytest.mark.parametrize(("fourcc", "name", "texel"), [(117, "R8G8_SNORM", 2), (82, "D32_SFLOAT", 4)])
def test_d3dfmt_codes_directxtex_does_not_load(fourcc: int, name: str, texel: int) -> None:
    """D3DFMT_CxV8U8 (117) and D3DFMT_D32F_LOCKABLE (82), sized as Direct3D 9 defines them."""
    result = _read(fx.dds_bytes(W, H, fourcc=fourcc, payload=W * H * texel))
    assert result.findings == ()
    assert (result.textures[0].stored_format, result.textures[0].level_bytes) == (name, (W * H * texel,))


@pytest.mark.parametrize("code", sorted(BITS_PER_PIXEL))
def test_dx10_header_reads_every_dxgi_format(code: int) -> None:
    slice_bytes = directxtex_slice(code, W, H)
    result = _read(fx.dds_bytes(W, H, dxgi=code, payload=slice_bytes))
    assert result.findings == ()
    (f,) = result.textures
    assert (f.stored_format, f.level_bytes) == (formats.by_dxgi(code).name, (slice_bytes,))
    truncated = _read(fx.dds_bytes(W, H, dxgi=code, payload=slice_bytes - 1))
    assert [x.code for x in truncated.findings] == ["TB043"]


def test_dx10_nv12_mip_chain_and_array() -> None:
    """NV12 64x32, 3 levels, 2 layers: 2x2 blocks of 6 bytes: 3072 + 768 + 192 per layer."""
    data = fx.dds_bytes(64, 32, dxgi=103, mips=3, array_size=2, payload=2 * (3072 + 768 + 192))
    (f,) = _read(data).textures
    assert (f.stored_format, f.level_bytes) == ("NV12", (6144, 1536, 384))


#: Legacy formats Pillow decodes, and so bounds: it reads exactly the payload texbudget
#: requires (one byte less and it stops short).
PILLOW_AGREES = {
    "DXT1", "DXT3", "DXT5", "BC4U", "BC5U", "BC5S", "ATI1", "ATI2", "A8R8G8B8", "X8R8G8B8", "A8B8G8R8",
    "X8B8G8R8", "G16R16", "A2R10G10B10", "A2B10G10R10", "R8G8B8", "R5G6B5", "A1R5G5B5", "X1R5G5B5",
    "A8R3G3B2", "R3G3B2", "L8", "A8L8", "L8_NVTT1", "L16_NVTT1", "A8L8_NVTT1", "R32F_RGB", "P8",
    "A4R4G4B4", "X4R4G4B4", "A4L4",
}
#: Where Pillow reads fewer bytes than DirectXTex: it takes the 8 in A8L8_ALT's bit count at
#: its word and reads A8P8 as one byte a texel; texbudget sizes both as DirectXTex does (R8G8).
PILLOW_READS_LESS = {"A8L8_ALT", "A8P8"}


def _pillow_reads(data: bytes) -> bool | None:
    """True when Pillow decodes the file, False when it runs out of data, None when it does
    not know the format."""
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    except NotImplementedError:
        return None
    except (OSError, ValueError) as exc:
        if "Unsupported bitcount" in str(exc):
            return None
        return False
    return True


def test_pillow_reads_the_payload_texbudget_requires() -> None:
    agrees, reads_less = set(), set()
    for e in LEGACY_MAP:
        payload = _file_bytes(e)
        whole, short = _pillow_reads(_legacy_file(e, payload)), _pillow_reads(_legacy_file(e, payload - 1))
        if whole and short is False:
            agrees.add(e.name)
        elif whole and short:
            reads_less.add(e.name)
        else:
            assert whole is None and short is None, e.name  # a format Pillow does not decode
    assert agrees == PILLOW_AGREES
    assert reads_less == PILLOW_READS_LESS
