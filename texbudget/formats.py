"""The GPU format table: one PixelFormat row per format, and lookups by every id kind.

Sources (spec/textures.md §1): Vulkan registry vk.xml (blockSize, blockExtent, enum values),
DirectXTex ``BitsPerPixel`` and DDS tables (DXGI numbers, FourCCs), the KTX2 spec's
formats.json and the GL extension registries (internal formats). A new format is one row
in ``_rows()`` plus one test row.

Names are Vulkan's without ``VK_FORMAT_`` and the ``_BLOCK`` / ``_PACKnn`` / ``_IMG`` /
``_EXT`` suffixes. Lookups accept canonical names, Vulkan and DXGI names and the common
aliases (``BC7``, ``DXT1``, ``RGBA8``, ``RGBA16F``, ``ATI2``…), case-insensitively.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from functools import cache, lru_cache

from texbudget.model import PixelFormat

# ASTC 2D footprints, in Vulkan enum order (VK 157 = 4x4 UNORM … 184 = 12x12 SRGB).
ASTC_BLOCKS: tuple[tuple[int, int], ...] = (
    (4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8),
    (10, 5), (10, 6), (10, 8), (10, 10), (12, 10), (12, 12),
)


def _px(
    name: str, bpp: int, ch: int, *, vk: int | None = None, vkn: str | None = None,
    dxgi: int | None = None, dxgin: str | None = None, gl: int | None = None,
    srgb: bool = False, hdr: bool = False, alpha: bool = False, signed: bool = False,
    family: str = "uncompressed", d3dfmt: tuple[int, ...] = (), aliases: tuple[str, ...] = (),
) -> PixelFormat:
    return PixelFormat(
        name=name, block_width=1, block_height=1, block_depth=1, bytes_per_block=bpp,
        channels=ch, srgb=srgb, hdr=hdr, compressed=False, family=family,
        vk_format=vk, vk_name=f"VK_FORMAT_{vkn or name}" if vk is not None else None,
        dxgi_format=dxgi, dxgi_name=f"DXGI_FORMAT_{dxgin}" if dxgin else None,
        gl_internal_format=gl, d3dfmt=d3dfmt, aliases=aliases, alpha=alpha, signed=signed,
    )


def _bc(
    name: str, bpb: int, ch: int, vk: int, dxgi: int, dxgin: str, gl: int | None, *,
    srgb: bool = False, hdr: bool = False, alpha: bool = False, signed: bool = False,
    fourcc: tuple[str, ...] = (), aliases: tuple[str, ...] = (),
) -> PixelFormat:
    return PixelFormat(
        name=name, block_width=4, block_height=4, block_depth=1, bytes_per_block=bpb,
        channels=ch, srgb=srgb, hdr=hdr, compressed=True, family=name.split("_")[0].lower(),
        vk_format=vk, vk_name=f"VK_FORMAT_{name}_BLOCK", dxgi_format=dxgi,
        dxgi_name=f"DXGI_FORMAT_{dxgin}", gl_internal_format=gl, dds_fourcc=fourcc,
        aliases=aliases, alpha=alpha, signed=signed,
    )


def _mobile(
    name: str, bw: int, bh: int, bpb: int, ch: int, vk: int | None, vkn: str | None,
    gl: int | None, family: str, *, srgb: bool = False, hdr: bool = False,
    alpha: bool = False, signed: bool = False, min_blocks: int = 1,
    fourcc: tuple[str, ...] = (), aliases: tuple[str, ...] = (),
) -> PixelFormat:
    return PixelFormat(
        name=name, block_width=bw, block_height=bh, block_depth=1, bytes_per_block=bpb,
        channels=ch, srgb=srgb, hdr=hdr, compressed=True, family=family, vk_format=vk,
        vk_name=f"VK_FORMAT_{vkn}" if vkn else None, gl_internal_format=gl,
        dds_fourcc=fourcc, aliases=aliases, alpha=alpha, signed=signed,
        min_blocks_x=min_blocks, min_blocks_y=min_blocks,
    )


def _rows() -> Iterator[PixelFormat]:
    # --- uncompressed colour (vk.xml blockSize; DXGI per DirectXTex; GL sized internal formats)
    yield _px("R8_UNORM", 1, 1, vk=9, dxgi=61, dxgin="R8_UNORM", gl=0x8229, aliases=("R8", "L8"))
    yield _px("R8_SNORM", 1, 1, vk=10, dxgi=63, dxgin="R8_SNORM", gl=0x8F94, signed=True)
    yield _px("R8_SRGB", 1, 1, vk=15, srgb=True)
    yield _px("R8G8_UNORM", 2, 2, vk=16, dxgi=49, dxgin="R8G8_UNORM", gl=0x822B, alpha=False, aliases=("RG8", "L8A8"))
    yield _px("R8G8_SNORM", 2, 2, vk=17, dxgi=51, dxgin="R8G8_SNORM", gl=0x8F95, signed=True)
    yield _px("R8G8B8_UNORM", 3, 3, vk=23, gl=0x8051, aliases=("RGB8",))
    yield _px("R8G8B8_SRGB", 3, 3, vk=29, gl=0x8C41, srgb=True, aliases=("SRGB8",))
    yield _px("B8G8R8_UNORM", 3, 3, vk=30, aliases=("BGR8",))
    yield _px("R8G8B8A8_UNORM", 4, 4, vk=37, dxgi=28, dxgin="R8G8B8A8_UNORM", gl=0x8058, alpha=True, aliases=("RGBA8", "RGBA32"))
    yield _px("R8G8B8A8_SNORM", 4, 4, vk=38, dxgi=31, dxgin="R8G8B8A8_SNORM", gl=0x8F97, alpha=True, signed=True)
    yield _px("R8G8B8A8_SRGB", 4, 4, vk=43, dxgi=29, dxgin="R8G8B8A8_UNORM_SRGB", gl=0x8C43, srgb=True, alpha=True, aliases=("RGBA8_SRGB", "SRGB8_ALPHA8"))
    yield _px("B8G8R8A8_UNORM", 4, 4, vk=44, dxgi=87, dxgin="B8G8R8A8_UNORM", alpha=True, aliases=("BGRA8",))
    yield _px("B8G8R8A8_SRGB", 4, 4, vk=50, dxgi=91, dxgin="B8G8R8A8_UNORM_SRGB", srgb=True, alpha=True, aliases=("BGRA8_SRGB",))
    yield _px("R5G6B5_UNORM", 2, 3, vk=4, vkn="R5G6B5_UNORM_PACK16", dxgi=85, dxgin="B5G6R5_UNORM", gl=0x8D62, aliases=("RGB565", "B5G6R5"))
    yield _px("A1R5G5B5_UNORM", 2, 4, vk=8, vkn="A1R5G5B5_UNORM_PACK16", dxgi=86, dxgin="B5G5R5A1_UNORM", gl=0x8057, alpha=True, aliases=("RGB5A1", "B5G5R5A1"))
    yield _px("R4G4B4A4_UNORM", 2, 4, vk=2, vkn="R4G4B4A4_UNORM_PACK16", gl=0x8056, alpha=True, aliases=("RGBA4",))
    yield _px("A2B10G10R10_UNORM", 4, 4, vk=64, vkn="A2B10G10R10_UNORM_PACK32", dxgi=24, dxgin="R10G10B10A2_UNORM", gl=0x8059, alpha=True, aliases=("RGB10A2", "R10G10B10A2_UNORM"))
    yield _px("R16_UNORM", 2, 1, vk=70, dxgi=56, dxgin="R16_UNORM", gl=0x822A, aliases=("R16", "L16"))
    yield _px("R16_SNORM", 2, 1, vk=71, dxgi=58, dxgin="R16_SNORM", gl=0x8F98, signed=True)
    yield _px("R16_SFLOAT", 2, 1, vk=76, dxgi=54, dxgin="R16_FLOAT", gl=0x822D, hdr=True, d3dfmt=(111,), aliases=("R16F",))
    yield _px("R16G16_UNORM", 4, 2, vk=77, dxgi=35, dxgin="R16G16_UNORM", gl=0x822C, aliases=("RG16", "G16R16"))
    yield _px("R16G16_SNORM", 4, 2, vk=78, dxgi=37, dxgin="R16G16_SNORM", gl=0x8F99, signed=True)
    yield _px("R16G16_SFLOAT", 4, 2, vk=83, dxgi=34, dxgin="R16G16_FLOAT", gl=0x822F, hdr=True, d3dfmt=(112,), aliases=("RG16F",))
    yield _px("R16G16B16_UNORM", 6, 3, vk=84, gl=0x8054, aliases=("RGB16",))
    yield _px("R16G16B16_SFLOAT", 6, 3, vk=90, gl=0x881B, hdr=True, aliases=("RGB16F",))
    yield _px("R16G16B16A16_UNORM", 8, 4, vk=91, dxgi=11, dxgin="R16G16B16A16_UNORM", gl=0x805B, alpha=True, d3dfmt=(36,), aliases=("RGBA16",))
    yield _px("R16G16B16A16_SNORM", 8, 4, vk=92, dxgi=13, dxgin="R16G16B16A16_SNORM", gl=0x8F9B, alpha=True, signed=True, d3dfmt=(110,))
    yield _px("R16G16B16A16_SFLOAT", 8, 4, vk=97, dxgi=10, dxgin="R16G16B16A16_FLOAT", gl=0x881A, hdr=True, alpha=True, d3dfmt=(113,), aliases=("RGBA16F",))
    yield _px("R32_SFLOAT", 4, 1, vk=100, dxgi=41, dxgin="R32_FLOAT", gl=0x822E, hdr=True, d3dfmt=(114,), aliases=("R32F",))
    yield _px("R32_UINT", 4, 1, vk=98, dxgi=42, dxgin="R32_UINT", gl=0x8236)
    yield _px("R32G32_SFLOAT", 8, 2, vk=103, dxgi=16, dxgin="R32G32_FLOAT", gl=0x8230, hdr=True, d3dfmt=(115,), aliases=("RG32F",))
    yield _px("R32G32B32_SFLOAT", 12, 3, vk=106, dxgi=6, dxgin="R32G32B32_FLOAT", gl=0x8815, hdr=True, aliases=("RGB32F",))
    yield _px("R32G32B32A32_SFLOAT", 16, 4, vk=109, dxgi=2, dxgin="R32G32B32A32_FLOAT", gl=0x8814, hdr=True, alpha=True, d3dfmt=(116,), aliases=("RGBA32F",))
    yield _px("B10G11R11_UFLOAT", 4, 3, vk=122, vkn="B10G11R11_UFLOAT_PACK32", dxgi=26, dxgin="R11G11B10_FLOAT", gl=0x8C3A, hdr=True, aliases=("R11G11B10F", "RG11B10F"))
    yield _px("E5B9G9R9_UFLOAT", 4, 3, vk=123, vkn="E5B9G9R9_UFLOAT_PACK32", dxgi=67, dxgin="R9G9B9E5_SHAREDEXP", gl=0x8C3D, hdr=True, aliases=("RGB9E5",))
    # --- depth / stencil. D32_SFLOAT_S8_UINT is 8 B/px as D3D allocates it (DXGI
    # D32_FLOAT_S8X24_UINT, 64 bits); Vulkan's nominal blockSize is 5 (planar).
    yield _px("D16_UNORM", 2, 1, vk=124, dxgi=55, dxgin="D16_UNORM", gl=0x81A5, family="depth", aliases=("D16",))
    yield _px("X8_D24_UNORM", 4, 1, vk=125, vkn="X8_D24_UNORM_PACK32", gl=0x81A6, family="depth", aliases=("D24X8",))
    yield _px("D32_SFLOAT", 4, 1, vk=126, dxgi=40, dxgin="D32_FLOAT", gl=0x8CAC, family="depth", aliases=("D32F", "D32"))
    yield _px("S8_UINT", 1, 1, vk=127, gl=0x8D48, family="depth", aliases=("S8",))
    yield _px("D24_UNORM_S8_UINT", 4, 2, vk=129, dxgi=45, dxgin="D24_UNORM_S8_UINT", gl=0x88F0, family="depth", aliases=("D24S8",))
    yield _px("D32_SFLOAT_S8_UINT", 8, 2, vk=130, dxgi=20, dxgin="D32_FLOAT_S8X24_UINT", gl=0x8CAD, family="depth", aliases=("D32S8", "D32FS8"))

    # --- BC (S3TC / RGTC / BPTC): 4x4 blocks, 8 or 16 bytes
    yield _bc("BC1_RGBA_UNORM", 8, 4, 133, 71, "BC1_UNORM", 0x83F1, alpha=True, fourcc=("DXT1",), aliases=("DXT1", "BC1A"))
    yield _bc("BC1_RGBA_SRGB", 8, 4, 134, 72, "BC1_UNORM_SRGB", 0x8C4D, srgb=True, alpha=True, aliases=("BC1A_SRGB",))
    yield _bc("BC1_RGB_UNORM", 8, 3, 131, 71, "BC1_UNORM", 0x83F0, aliases=("BC1",))
    yield _bc("BC1_RGB_SRGB", 8, 3, 132, 72, "BC1_UNORM_SRGB", 0x8C4C, srgb=True, aliases=("BC1_SRGB",))
    yield _bc("BC2_UNORM", 16, 4, 135, 74, "BC2_UNORM", 0x83F2, alpha=True, fourcc=("DXT2", "DXT3"), aliases=("BC2", "DXT3"))
    yield _bc("BC2_SRGB", 16, 4, 136, 75, "BC2_UNORM_SRGB", 0x8C4E, srgb=True, alpha=True)
    yield _bc("BC3_UNORM", 16, 4, 137, 77, "BC3_UNORM", 0x83F3, alpha=True, fourcc=("DXT4", "DXT5"), aliases=("BC3", "DXT5"))
    yield _bc("BC3_SRGB", 16, 4, 138, 78, "BC3_UNORM_SRGB", 0x8C4F, srgb=True, alpha=True)
    yield _bc("BC4_UNORM", 8, 1, 139, 80, "BC4_UNORM", 0x8DBB, fourcc=("ATI1", "BC4U"), aliases=("BC4", "ATI1"))
    yield _bc("BC4_SNORM", 8, 1, 140, 81, "BC4_SNORM", 0x8DBC, signed=True, fourcc=("BC4S",))
    yield _bc("BC5_UNORM", 16, 2, 141, 83, "BC5_UNORM", 0x8DBD, fourcc=("ATI2", "BC5U"), aliases=("BC5", "ATI2"))
    yield _bc("BC5_SNORM", 16, 2, 142, 84, "BC5_SNORM", 0x8DBE, signed=True, fourcc=("BC5S",))
    yield _bc("BC6H_UFLOAT", 16, 3, 143, 95, "BC6H_UF16", 0x8E8F, hdr=True, fourcc=("BC6H",), aliases=("BC6H", "BC6"))
    yield _bc("BC6H_SFLOAT", 16, 3, 144, 96, "BC6H_SF16", 0x8E8E, hdr=True, signed=True)
    yield _bc("BC7_UNORM", 16, 4, 145, 98, "BC7_UNORM", 0x8E8C, alpha=True, fourcc=("BC7L", "BC7"), aliases=("BC7",))
    yield _bc("BC7_SRGB", 16, 4, 146, 99, "BC7_UNORM_SRGB", 0x8E8D, srgb=True, alpha=True)

    # --- ETC1 / ETC2 / EAC: 4x4 blocks
    yield _mobile("ETC1_R8G8B8_UNORM", 4, 4, 8, 3, None, None, 0x8D64, "etc1", fourcc=("ETC1",), aliases=("ETC1",))
    yield _mobile("ETC2_R8G8B8_UNORM", 4, 4, 8, 3, 147, "ETC2_R8G8B8_UNORM_BLOCK", 0x9274, "etc2", aliases=("ETC2_RGB", "ETC2_RGB8", "ETC2"))
    yield _mobile("ETC2_R8G8B8_SRGB", 4, 4, 8, 3, 148, "ETC2_R8G8B8_SRGB_BLOCK", 0x9275, "etc2", srgb=True)
    yield _mobile("ETC2_R8G8B8A1_UNORM", 4, 4, 8, 4, 149, "ETC2_R8G8B8A1_UNORM_BLOCK", 0x9276, "etc2", alpha=True, aliases=("ETC2_RGB8A1", "ETC2_RGBA1"))
    yield _mobile("ETC2_R8G8B8A1_SRGB", 4, 4, 8, 4, 150, "ETC2_R8G8B8A1_SRGB_BLOCK", 0x9277, "etc2", srgb=True, alpha=True)
    yield _mobile("ETC2_R8G8B8A8_UNORM", 4, 4, 16, 4, 151, "ETC2_R8G8B8A8_UNORM_BLOCK", 0x9278, "etc2", alpha=True, aliases=("ETC2_RGBA", "ETC2_RGBA8"))
    yield _mobile("ETC2_R8G8B8A8_SRGB", 4, 4, 16, 4, 152, "ETC2_R8G8B8A8_SRGB_BLOCK", 0x9279, "etc2", srgb=True, alpha=True)
    yield _mobile("EAC_R11_UNORM", 4, 4, 8, 1, 153, "EAC_R11_UNORM_BLOCK", 0x9270, "eac", aliases=("EAC_R11",))
    yield _mobile("EAC_R11_SNORM", 4, 4, 8, 1, 154, "EAC_R11_SNORM_BLOCK", 0x9271, "eac", signed=True)
    yield _mobile("EAC_R11G11_UNORM", 4, 4, 16, 2, 155, "EAC_R11G11_UNORM_BLOCK", 0x9272, "eac", aliases=("EAC_RG11",))
    yield _mobile("EAC_R11G11_SNORM", 4, 4, 16, 2, 156, "EAC_R11G11_SNORM_BLOCK", 0x9273, "eac", signed=True)

    # --- ASTC 2D: always 16 bytes per block. GL uses one enum for LDR and HDR data, so
    # the SFLOAT rows carry no GL number (the UNORM row answers by_gl).
    for i, (bw, bh) in enumerate(ASTC_BLOCKS):
        dims = f"{bw}x{bh}"
        yield _mobile(f"ASTC_{dims}_UNORM", bw, bh, 16, 4, 157 + 2 * i, f"ASTC_{dims}_UNORM_BLOCK", 0x93B0 + i, "astc", alpha=True, aliases=(f"ASTC_{dims}", f"ASTC{dims}"))
        yield _mobile(f"ASTC_{dims}_SRGB", bw, bh, 16, 4, 158 + 2 * i, f"ASTC_{dims}_SRGB_BLOCK", 0x93D0 + i, "astc", srgb=True, alpha=True)
        yield _mobile(f"ASTC_{dims}_SFLOAT", bw, bh, 16, 4, 1000066000 + i, f"ASTC_{dims}_SFLOAT_BLOCK", None, "astc", hdr=True, alpha=True)

    # --- PVRTC1 (VK_IMG_format_pvrtc): every level at least 2x2 blocks (spec §1.3)
    yield _mobile("PVRTC1_2BPP_UNORM", 8, 4, 8, 4, 1000054000, "PVRTC1_2BPP_UNORM_BLOCK_IMG", 0x8C03, "pvrtc1", alpha=True, min_blocks=2, aliases=("PVRTC1_2BPP",))
    yield _mobile("PVRTC1_4BPP_UNORM", 4, 4, 8, 4, 1000054001, "PVRTC1_4BPP_UNORM_BLOCK_IMG", 0x8C02, "pvrtc1", alpha=True, min_blocks=2, aliases=("PVRTC1_4BPP", "PVRTC"))
    yield _mobile("PVRTC1_2BPP_SRGB", 8, 4, 8, 4, 1000054004, "PVRTC1_2BPP_SRGB_BLOCK_IMG", 0x8A56, "pvrtc1", srgb=True, alpha=True, min_blocks=2)
    yield _mobile("PVRTC1_4BPP_SRGB", 4, 4, 8, 4, 1000054005, "PVRTC1_4BPP_SRGB_BLOCK_IMG", 0x8A57, "pvrtc1", srgb=True, alpha=True, min_blocks=2)

    # --- Basis Universal pseudo-formats: the GPU format is the policy's transcode target.
    # bytes_per_block is the data's own block size (UASTC 16, ETC1S nominally 8).
    for name, bpb in (("ETC1S", 8), ("UASTC", 16)):
        yield PixelFormat(name=name, block_width=4, block_height=4, block_depth=1,
                          bytes_per_block=bpb, channels=4, srgb=False, hdr=False,
                          compressed=True, family="basis", transcodable=True,
                          aliases=("BASISLZ",) if name == "ETC1S" else ())
    # Basis Universal HDR (basis_universal transcoder/basisu_transcoder.h; KTX-Software 5.0):
    # UASTC HDR 4x4 is ASTC HDR 4x4 data (vkFormat ASTC_4x4_SFLOAT, DFD colour model 167),
    # UASTC HDR 6x6 intermediate is supercompressed ASTC HDR 6x6 (vkFormat 0, model 168).
    for name, side in (("UASTC_HDR_4x4", 4), ("UASTC_HDR_6x6i", 6)):
        yield PixelFormat(name=name, block_width=side, block_height=side, block_depth=1,
                          bytes_per_block=16, channels=3, srgb=False, hdr=True,
                          compressed=True, family="basis", transcodable=True)


# Extra ids that mean an existing row: typeless/X variants and the RGB GL enums of
# formats whose row carries the RGBA one.
_DXGI_EXTRA: dict[int, str] = {
    1: "R32G32B32A32_SFLOAT", 9: "R16G16B16A16_SFLOAT", 27: "R8G8B8A8_UNORM",
    15: "R32G32_SFLOAT", 23: "A2B10G10R10_UNORM", 33: "R16G16_UNORM", 39: "R32_SFLOAT",
    48: "R8G8_UNORM", 53: "R16_UNORM", 60: "R8_UNORM", 19: "D32_SFLOAT_S8_UINT",
    44: "D24_UNORM_S8_UINT", 70: "BC1_RGBA_UNORM", 73: "BC2_UNORM", 76: "BC3_UNORM",
    79: "BC4_UNORM", 82: "BC5_UNORM", 88: "B8G8R8A8_UNORM", 90: "B8G8R8A8_UNORM",
    92: "B8G8R8A8_UNORM", 93: "B8G8R8A8_SRGB", 94: "BC6H_UFLOAT", 97: "BC7_UNORM",
}
_GL_EXTRA: dict[int, str] = {
    0x8C00: "PVRTC1_4BPP_UNORM", 0x8C01: "PVRTC1_2BPP_UNORM",
    0x8A54: "PVRTC1_2BPP_SRGB", 0x8A55: "PVRTC1_4BPP_SRGB",
    0x8D64: "ETC1_R8G8B8_UNORM",
}


@cache
def all_formats() -> tuple[PixelFormat, ...]:
    return tuple(_rows())


def _key(text: str) -> str:
    return text.strip().upper().replace("-", "_").replace(" ", "_")


@cache
def _indexes() -> dict[str, dict]:
    by_name: dict[str, PixelFormat] = {}
    by_vk: dict[int, PixelFormat] = {}
    by_dxgi: dict[int, PixelFormat] = {}
    by_gl: dict[int, PixelFormat] = {}
    by_fourcc: dict[str, PixelFormat] = {}
    by_d3dfmt: dict[int, PixelFormat] = {}
    for f in all_formats():
        by_name[_key(f.name)] = f
    for f in all_formats():  # ids and aliases never shadow a canonical name
        for extra in (*f.aliases, f.vk_name, f.dxgi_name):
            if extra:
                by_name.setdefault(_key(extra), f)
        if f.dxgi_name:
            by_name.setdefault(_key(f.dxgi_name.removeprefix("DXGI_FORMAT_")), f)
        if f.vk_format is not None:
            by_vk.setdefault(f.vk_format, f)
        if f.dxgi_format is not None:
            by_dxgi.setdefault(f.dxgi_format, f)
        if f.gl_internal_format is not None:
            by_gl.setdefault(f.gl_internal_format, f)
        for cc in f.dds_fourcc:
            by_fourcc.setdefault(cc, f)
        for code in f.d3dfmt:
            by_d3dfmt.setdefault(code, f)
    for code, name in _DXGI_EXTRA.items():
        by_dxgi.setdefault(code, by_name[_key(name)])
    for code, name in _GL_EXTRA.items():
        by_gl.setdefault(code, by_name[_key(name)])
    return {"name": by_name, "vk": by_vk, "dxgi": by_dxgi, "gl": by_gl,
            "fourcc": by_fourcc, "d3dfmt": by_d3dfmt}


def find(name: str) -> PixelFormat | None:
    """A format by canonical name, Vulkan or DXGI name, or alias (or a ``DFD_…`` name of
    ``self_sized``); None when unknown."""
    key = _key(name)
    return _indexes()["name"].get(key) or _self_sized_named(key)


# --- formats a KTX2 file sizes itself ---------------------------------------------------------

#: Texel block dimensions and bytesPlane0..7 are bytes in a data format descriptor: a side is
#: 1..256 texels, a block at most 8 x 255 bytes.
SELF_SIZED_MAX_SIDE, SELF_SIZED_MAX_BYTES = 256, 8 * 255
_SELF_SIZED_KEY = re.compile(r"DFD_([1-9]\d{0,2})X([1-9]\d{0,2})X([1-9]\d{0,2})_([1-9]\d{0,3})B")


# Cached and bounded: a hostile scan could name a new shape per file.
@lru_cache(maxsize=256)
def self_sized(block_width: int, block_height: int, block_depth: int, bytes_per_block: int) -> PixelFormat:
    """The format of a KTX2 file whose vkFormat the table lacks (or is 0 with a data format
    descriptor texbudget does not model), built from the descriptor's texel block dimensions
    and bytesPlane0..7 (readers/ktx.py): ``DFD_4x4x1_16B`` is 4x4x1 blocks of 16 bytes.

    It carries the block shape only: family "unknown" (no fix proposes another format for it;
    a stored format is kept as stored anyway), ``channels`` 0, not sRGB, not HDR (the file's
    facts say those), compressed when a block holds more than one texel. ``find`` resolves
    the name, so a plan that names it prices like any other format. ValueError outside the
    ranges a descriptor can hold."""
    if not (all(1 <= v <= SELF_SIZED_MAX_SIDE for v in (block_width, block_height, block_depth))
            and 1 <= bytes_per_block <= SELF_SIZED_MAX_BYTES):
        raise ValueError(f"no data format descriptor gives {block_width}x{block_height}x{block_depth} blocks of {bytes_per_block} bytes")
    return PixelFormat(
        name=f"DFD_{block_width}x{block_height}x{block_depth}_{bytes_per_block}B",
        block_width=block_width, block_height=block_height, block_depth=block_depth,
        bytes_per_block=bytes_per_block, channels=0, srgb=False, hdr=False,
        compressed=block_width * block_height * block_depth > 1, family="unknown",
    )


def _self_sized_named(key: str) -> PixelFormat | None:
    match = _SELF_SIZED_KEY.fullmatch(key)
    if match is None:
        return None
    w, h, d, n = (int(g) for g in match.groups())
    try:
        return self_sized(w, h, d, n)
    except ValueError:
        return None


def get(name: str) -> PixelFormat:
    fmt = find(name)
    if fmt is None:
        raise KeyError(name)
    return fmt


def by_vk(code: int) -> PixelFormat | None:
    return _indexes()["vk"].get(code)


def by_dxgi(code: int) -> PixelFormat | None:
    return _indexes()["dxgi"].get(code)


def by_gl(code: int) -> PixelFormat | None:
    return _indexes()["gl"].get(code)


def by_fourcc(code: str | bytes) -> PixelFormat | None:
    """A DDS FourCC (``DXT1``, ``ATI2``, ``BC5U``…); trailing NULs and spaces are ignored."""
    text = code.decode("latin-1") if isinstance(code, bytes) else code
    return _indexes()["fourcc"].get(text.rstrip("\0 "))


def by_d3dfmt(code: int) -> PixelFormat | None:
    """A numeric D3DFORMAT stored in a DDS FourCC field (36, 110–116)."""
    return _indexes()["d3dfmt"].get(code)


def nearest(name: str, n: int = 3) -> list[str]:
    """Closest canonical names and aliases, for 'did you mean' messages."""
    names = {f.name for f in all_formats()} | {a for f in all_formats() for a in f.aliases}
    by_upper = {_key(x): x for x in names}
    return [by_upper[k] for k in difflib.get_close_matches(_key(name), list(by_upper), n=n, cutoff=0.5)]


def with_srgb(fmt: PixelFormat, srgb: bool) -> PixelFormat:
    """The sRGB (or linear) twin of a format, or the format itself when it has none."""
    if fmt.srgb == srgb:
        return fmt
    if srgb:
        for suffix in ("_UNORM",):
            if fmt.name.endswith(suffix):
                twin = find(fmt.name[: -len(suffix)] + "_SRGB")
                if twin is not None:
                    return twin
        return fmt
    twin = find(fmt.name.removesuffix("_SRGB") + "_UNORM")
    return twin if twin is not None else fmt
