"""Every reader, fuzzed over mutated valid files (``seeds.py``): truncation at every header byte,
every real header field set to 0, 1, 2^31−1 and 2^32−1 (and the other values of
``seeds.special_values``), and random lists of bit flips, field sets, splices, grafts of other
files, deletions and appended bytes (hypothesis).

The property, judged by ``harness.judge`` for every input: no exception escapes
``readers.read_source`` (on disk, as ``read_path`` reads, or in memory, as a GLB's images are
read), no TB009 internal-error finding, the result holds facts or a finding, and the read's
peak of traced memory stays under ``harness.MEMORY_LIMIT`` (16 MiB) whatever sizes the file
claims. ``test_field_offsets_are_real`` proves the field tables point at the real fields: each
row sets one field and gets the exact finding the reader gives for that value.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.robustness import harness
from tests.robustness.seeds import (
    Seed,
    all_seeds,
    checked_length,
    mutate,
    seed,
    set_field,
    special_values,
)
from tests.robustness.strategies import mutations
from texbudget.model import Severity

SEEDS = all_seeds()
IDS = [s.name for s in SEEDS]
#: Hypothesis examples per seed in the suite (benchmarks/fuzz.py runs the long campaign).
EXAMPLES_PER_SEED = 60
#: Every cut point below this many bytes is tried, and CUT_SPREAD more spread over the rest.
CUT_HEAD = 160
CUT_SPREAD = 24


@pytest.fixture(scope="module")
def ws():
    workspace = harness.Workspace()
    harness.warm_up(workspace)
    yield workspace
    harness.cleanup(workspace)


def _ok(s: Seed, data: bytes, where: str, ws: harness.Workspace, what: object) -> harness.Outcome:
    outcome = harness.judge(s, data, where, ws)
    assert outcome.problems == [], (s.name, where, what, outcome.problems)
    return outcome


#: What each seed reads as, on disk: (facts, finding codes); textures as (container, width,
#: height), meshes as (vertices, triangles), engine scenes as (role, edges).
SEED_FACTS = {
    "palette.png": ((("png", 16, 8),), ()),
    "grey16.png": ((("png", 16, 8),), ()),
    "photo.jpg": ((("jpeg", 16, 8),), ()),
    "progressive.jpeg": ((("jpeg", 16, 8),), ()),
    "rgba.tga": ((("tga", 16, 8),), ()),
    "rle.tga": ((("tga", 16, 8),), ()),
    "rgb.bmp": ((("bmp", 16, 8),), ()),
    "palette.bmp": ((("bmp", 16, 8),), ()),
    "rgb.tif": ((("tiff", 16, 8),), ()),
    "float.tiff": ((("tiff", 16, 8),), ()),
    "lossless.webp": ((("webp", 16, 8),), ()),
    "lossy.webp": ((("webp", 16, 8),), ()),
    "extended.webp": ((("webp", 16, 8),), ()),
    "animated.webp": ((("webp", 16, 8),), ("TB062",)),
    "anim.gif": ((("gif", 16, 8),), ()),
    "art.psd": ((("psd", 16, 8),), ()),
    "big.psd": ((("psd", 16, 8),), ()),
    "cube_bc1.dds": ((("dds", 16, 16),), ()),
    "array_bc7.dds": ((("dds", 16, 16),), ()),
    "volume_rgba8.dds": ((("dds", 8, 8),), ()),
    "masks_bgra8.dds": ((("dds", 8, 4),), ()),
    "bc7.ktx": ((("ktx", 16, 16),), ()),
    "cube_be.ktx": ((("ktx", 8, 8),), ()),
    "array.ktx": ((("ktx", 8, 8),), ()),
    "bc7.ktx2": ((("ktx2", 16, 16),), ()),
    "etc1s.ktx2": ((("ktx2", 32, 16),), ()),
    "uastc_cube.ktx2": ((("ktx2", 8, 8),), ()),
    "zstd_array.ktx2": ((("ktx2", 8, 8),), ()),
    "astc3d.ktx2": ((("ktx2", 16, 16),), ("TB057",)),
    "hdr6x6i.ktx2": ((("ktx2", 24, 12),), ()),
    "scan.exr": ((("exr", 16, 8),), ()),
    "tiled.exr": ((("exr", 16, 8),), ()),
    "zip.exr": ((("exr", 16, 40),), ()),
    "multi.exr": ((("exr", 16, 8),), ("TB056",)),
    "sky.hdr": ((("hdr", 16, 8),), ()),
    "flat.hdr": ((("hdr", 4, 2),), ()),
    "embedded.gltf": ((("png", 8, 8), (4, 2), (5, 3)), ()),
    "external.gltf": ((("png", 8, 8), (4, 2), (5, 3)), ()),
    "scene.glb": ((("png", 8, 8), (4, 2), (5, 3)), ()),
    "two.obj": (((6, 4),), ()),
    "cube_ascii.ply": (((8, 12),), ()),
    "cube_binary.ply": (((8, 12),), ()),
    "cube.stl": (((8, 12),), ()),
    "cube_ascii.stl": (((8, 12),), ()),
    "cube.off": (((8, 12),), ()),
    "crate_7400.fbx": (((24, 12), (5, 3)), ()),
    "crate_7500.fbx": (((24, 12), (5, 3)), ()),
    "crate_6100.fbx": (((24, 12), (24, 12), (5, 3)), ()),  # FBX 6: each Model its own geometry
    "crate_ascii_7400.fbx": (((24, 12), (5, 3)), ()),
    "crate_ascii_6100.fbx": (((24, 12), (24, 12), (5, 3)), ()),
    "town.tscn": (((4, 2), ("scene", 4)), ()),
    "plank.tres": (((5, 2), ("resource", 2)), ()),
    "export.escn": (((5, 2), ("scene", 3)), ()),
    "town.scn": (((7, 2), ("scene", 2)), ()),
    "rock.res": (((9, 2), ("resource", 1)), ()),
    "rock.mesh": (((11, 2), ("resource", 1)), ()),
    "level.lmbake": ((("resource", 1),), ()),
    "grid.tscn": ((("scene", 10),), ()),
    "tiles.meshlib": (((3, 2), ("resource", 4)), ()),
    "town.unity": ((("scene", 6),), ("TB113",)),
    "variant.prefab": ((("scene", 2),), ()),
    "stone.mat": ((("resource", 3),), ()),
}


def test_every_reader_has_seeds() -> None:
    from texbudget.readers import supported_suffixes

    assert set(SEED_FACTS) == set(IDS)
    assert {s.suffix for s in SEEDS} == set(supported_suffixes())


@pytest.mark.parametrize("s", SEEDS, ids=IDS)
def test_seed_reads_clean(s: Seed, ws: harness.Workspace) -> None:
    result = _ok(s, s.data, "disk", ws, "seed").result
    assert result is not None
    facts = (tuple((t.container, t.width, t.height) for t in result.textures) + tuple((m.vertices, m.triangles) for m in result.meshes)
             + tuple((sc.role, len(sc.refs)) for sc in result.scenes if sc.role))
    assert (facts, tuple(f.code for f in result.findings)) == SEED_FACTS[s.name]


#: (seed, field, value, finding codes, textures, meshes): one field set, the exact outcome.
FIELD_CASES = [
    ("palette.png", "width", 0, ["TB044"], 0, 0),
    ("palette.png", "width", 2**31 - 1, ["TB045"], 0, 0),
    ("palette.png", "IHDR.length", 2**32 - 1, ["TB042"], 0, 0),
    ("photo.jpg", "markerE0.length", 0xFFFF, ["TB042"], 0, 0),
    ("rgba.tga", "width", 0, ["TB044"], 0, 0),
    ("rgba.tga", "image_type", 255, ["TB041"], 0, 0),
    ("rgb.bmp", "width", 2**31 - 1, ["TB045"], 0, 0),
    ("rgb.bmp", "height", 0, ["TB044"], 0, 0),
    ("rgb.bmp", "data_offset", 2**32 - 1, ["TB043"], 0, 0),
    ("rgb.tif", "tag273.value", 2**32 - 1, ["TB043"], 0, 0),
    ("lossless.webp", "riff_size", 2**32 - 1, ["TB043"], 0, 0),
    ("lossy.webp", "riff_size", 2**32 - 1, ["TB043"], 0, 0),
    ("lossy.webp", "vp8_tag", 1, ["TB054"], 0, 0),
    ("extended.webp", "canvas_width", 0, ["TB054"], 0, 0),
    ("extended.webp", "ICCP.size", 2**32 - 1, ["TB054"], 0, 0),
    ("animated.webp", "flags", 0, ["TB054"], 0, 0),
    ("animated.webp", "frame1.x", 2**24 - 1, ["TB054"], 0, 0),
    ("anim.gif", "width", 0, ["TB044"], 0, 0),
    ("art.psd", "width", 0, ["TB044"], 0, 0),
    ("art.psd", "height", 2**32 - 1, ["TB045"], 0, 0),
    ("art.psd", "resources_length", 2**32 - 1, ["TB042"], 0, 0),
    ("big.psd", "version", 0, ["TB054"], 0, 0),
    ("cube_bc1.dds", "width", 0, ["TB044"], 0, 0),
    ("cube_bc1.dds", "height", 2**32 - 1, ["TB045"], 0, 0),
    ("cube_bc1.dds", "mip_count", 2**32 - 1, ["TB047"], 0, 0),
    ("cube_bc1.dds", "header_size", 0, ["TB054"], 0, 0),
    ("array_bc7.dds", "array_size", 2**32 - 1, ["TB045"], 0, 0),
    ("array_bc7.dds", "array_size", 0, ["TB049"], 1, 0),
    ("array_bc7.dds", "dxgi_format", 2**32 - 1, ["TB046"], 0, 0),
    ("volume_rgba8.dds", "depth", 2**31 - 1, ["TB045"], 0, 0),
    ("bc7.ktx", "width", 2**32 - 1, ["TB045"], 0, 0),
    ("bc7.ktx", "mip_levels", 2**32 - 1, ["TB047"], 0, 0),
    ("bc7.ktx", "faces", 0, ["TB048"], 0, 0),
    ("bc7.ktx", "kvd_bytes", 2**32 - 1, ["TB042"], 0, 0),
    ("bc7.ktx", "endianness", 0, ["TB054"], 0, 0),
    ("bc7.ktx", "level0.image_size", 2**32 - 1, ["TB043"], 0, 0),
    ("array.ktx", "array_elements", 2**32 - 1, ["TB045"], 0, 0),
    ("cube_be.ktx", "height", 1, ["TB048"], 0, 0),
    ("bc7.ktx2", "width", 0, ["TB044"], 0, 0),
    ("bc7.ktx2", "height", 2**32 - 1, ["TB045"], 0, 0),
    ("bc7.ktx2", "levels", 2**32 - 1, ["TB047"], 0, 0),
    ("bc7.ktx2", "faces", 0, ["TB048"], 0, 0),
    ("bc7.ktx2", "layers", 2**32 - 1, ["TB045"], 0, 0),
    ("bc7.ktx2", "dfd_offset", 2**32 - 1, ["TB054"], 0, 0),
    ("bc7.ktx2", "kvd_length", 2**32 - 1, ["TB054"], 0, 0),
    ("etc1s.ktx2", "sgd_length", 2**64 - 1, ["TB054"], 0, 0),
    ("bc7.ktx2", "level0.offset", 2**64 - 1, ["TB050"], 0, 0),
    ("bc7.ktx2", "level0.length", 0, ["TB054"], 0, 0),
    ("bc7.ktx2", "level1.offset", 80, ["TB054"], 0, 0),
    ("bc7.ktx2", "dfd.block_size", 1, ["TB054"], 0, 0),
    ("bc7.ktx2", "vk_format", 2**31 - 1, ["TB057"], 1, 0),
    ("astc3d.ktx2", "dfd.bytes_plane0", 0, ["TB054"], 0, 0),
    ("astc3d.ktx2", "dfd.block3", 1, ["TB054"], 0, 0),
    ("astc3d.ktx2", "dfd.block0", 7, ["TB058"], 0, 0),
    ("astc3d.ktx2", "dfd.sample0.bit_length", 255, ["TB054"], 0, 0),
    ("astc3d.ktx2", "dfd.total_size", 2**32 - 1, ["TB054"], 0, 0),
    ("astc3d.ktx2", "level1.length", 63, ["TB058"], 0, 0),
    ("hdr6x6i.ktx2", "scheme", 2, ["TB055", "TB053"], 1, 0),
    ("hdr6x6i.ktx2", "dfd.model", 169, ["TB057", "TB055"], 1, 0),
    ("scan.exr", "dataWindow.xmax", 2**31 - 1, ["TB045"], 0, 0),
    ("scan.exr", "dataWindow.size", 2**31 - 1, ["TB042"], 0, 0),
    ("scan.exr", "channels.size", 2**32 - 1, ["TB054"], 0, 0),
    ("scan.exr", "channels.0.pixel_type", 2**31 - 1, ["TB054"], 0, 0),
    ("tiled.exr", "tiles.x", 0, ["TB054"], 0, 0),
    ("sky.hdr", "width", 0, ["TB044"], 0, 0),
    ("sky.hdr", "height", 2**32 - 1, ["TB045"], 0, 0),
    ("scene.glb", "glb.length", 2**32 - 1, ["TB072"], 0, 0),
    ("scene.glb", "json.length", 2**32 - 1, ["TB072"], 0, 0),
    ("scene.glb", "bin.length", 2**31 - 1, ["TB072"], 0, 0),
    ("scene.glb", "count#0", 2**40, ["TB078"], 1, 1),
    ("scene.glb", "byteLength#0", 2**40, ["TB076"], 1, 1),
    ("embedded.gltf", "count#0", 2**40, ["TB078"], 1, 1),
    ("embedded.gltf", "mesh#0", 2**31 - 1, ["TB073"], 0, 0),
    ("cube_binary.ply", "vertex_count", 2**32 - 1, ["TB085"], 0, 0),
    ("cube.stl", "triangle_count", 2**32 - 1, ["TB085"], 0, 0),
    ("cube.off", "vertex_count", 2**31 - 1, ["TB085"], 0, 0),
    ("two.obj", "obj.0", 2**63 - 1, ["TB085"], 0, 0),
    ("crate_7400.fbx", "version", 0, ["TB093"], 0, 0),
    ("crate_7400.fbx", "Objects.end", 2**32 - 1, ["TB091"], 0, 0),
    ("crate_7400.fbx", "Objects/Geometry/PolygonVertexIndex.array0.encoding", 2, ["TB092"], 0, 1),
    ("crate_7500.fbx", "Objects/Geometry/Vertices.array0.count", 2**32 - 1, ["TB092"], 0, 1),
    ("crate_7500.fbx", "Objects/Geometry/Vertices.plen", 2**64 - 1, ["TB091"], 0, 0),
    ("crate_6100.fbx", "Objects/Model/Vertices.plen", 2**32 - 1, ["TB091"], 0, 0),
    ("crate_ascii_6100.fbx", "pvi0", 2**40, ["TB092"], 0, 2),  # the first Model's copy; the other two stay
    ("town.tscn", "vertex_count", 2**40, ["TB104"], 0, 1),
    ("town.tscn", "instance_count", 2**31 - 1, [], 0, 1),
    ("plank.tres", "format", 0, ["TB104"], 0, 1),
    ("plank.tres", "index_count", 1, ["TB104"], 0, 1),
    ("town.scn", "ver_format", 7, ["TB102"], 0, 0),
    ("town.scn", "string_count", 2**32 - 1, ["TB101"], 0, 0),
    ("town.scn", "int.1.offset", 2**40, ["TB101"], 0, 0),
    ("rock.res", "ver_major", 5, ["TB102"], 0, 0),
    ("rock.res", "vertex_count", 2**31 - 1, ["TB104"], 0, 1),
    ("rock.mesh", "type_len", 2**32 - 1, ["TB101"], 0, 0),
    ("level.lmbake", "int.0.props", 2**31 - 1, ["TB101"], 0, 0),
    ("grid.tscn", "cell0.item", 2**40, ["TB104"], 0, 0),  # not a 32-bit integer: the map's cells not counted
    ("grid.tscn", "cell0.item", 2**32 - 1, [], 0, 0),  # wraps to -1: item 65535
    ("tiles.meshlib", "int.1.props", 2**31 - 1, ["TB101"], 0, 0),
    ("town.unity", "fileID.1", 2**64 - 1, ["TB113", "TB112"], 0, 0),  # the RenderSettings header: a fileID past 64 bits
    ("stone.mat", "fileID.5", 2**63, ["TB112"], 0, 0),  # a texture's fileID past 64 bits
]


@pytest.mark.parametrize(("name", "field", "value", "codes", "textures", "meshes"), FIELD_CASES,
                         ids=[f"{c[0]}:{c[1]}={c[2]}" for c in FIELD_CASES])
def test_field_offsets_are_real(name, field, value, codes, textures, meshes, ws) -> None:
    s = seed(name)
    result = _ok(s, set_field(s.data, s.fields[s.field(field)], value), "disk", ws, (field, value)).result
    assert result is not None
    assert ([f.code for f in result.findings], len(result.textures), len(result.meshes)) == (codes, textures, meshes)


def field_inputs(s: Seed) -> list[tuple[str, int, bytes]]:
    return [(f.name, v, set_field(s.data, f, v)) for f in s.fields for v in special_values(f)]


@pytest.mark.parametrize("s", SEEDS, ids=IDS)
def test_every_field_at_every_special_value(s: Seed, ws: harness.Workspace) -> None:
    for name, value, data in field_inputs(s):
        _ok(s, data, "disk", ws, (name, value))


def cut_points(s: Seed) -> list[int]:
    n = len(s.data)
    spread = {CUT_HEAD + (n - CUT_HEAD) * k // CUT_SPREAD for k in range(CUT_SPREAD)} if n > CUT_HEAD else set()
    return sorted(set(range(min(n, CUT_HEAD))) | spread)


@pytest.mark.parametrize("s", SEEDS, ids=IDS)
def test_cut_at_every_header_byte(s: Seed, ws: harness.Workspace) -> None:
    """Every cut is judged; a cut inside the bytes the container checks (``checked_length``)
    must give no facts and an error finding."""
    checked = checked_length(s)
    for cut in cut_points(s):
        result = _ok(s, s.data[:cut], "disk", ws, ("cut", cut)).result
        if cut < checked:
            assert result is not None and not (result.textures or result.meshes), (s.name, cut)
            assert any(f.severity is Severity.ERROR for f in result.findings), (s.name, cut, result.findings)


@pytest.mark.parametrize("s", SEEDS, ids=IDS)
def test_random_mutations(s: Seed, ws: harness.Workspace) -> None:
    @settings(max_examples=EXAMPLES_PER_SEED, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(ops=mutations(s), on_disk=...)
    def run(ops: list[tuple], on_disk: bool) -> None:
        _ok(s, mutate(s.data, s.fields, ops), "disk" if on_disk else "memory", ws, ops)

    run()


#: Container names for the table (one reader path each; .jpg/.jpeg and .tif/.tiff together).
_CONTAINER = {".jpg": "jpeg", ".jpeg": "jpeg", ".tif": "tiff", ".tiff": "tiff"}


def suite_counts() -> dict[str, dict[str, int]]:
    """Inputs the suite reads per container (docs/robustness.md shows this table)."""
    out: dict[str, dict[str, int]] = {}
    for s in SEEDS:
        name = _CONTAINER.get(s.suffix, s.suffix.lstrip("."))
        row = out.setdefault(name, {"seeds": 0, "fields": 0, "field_inputs": 0, "cuts": 0, "random": 0})
        row["seeds"] += 1
        row["fields"] += len(s.fields)
        row["field_inputs"] += len(field_inputs(s))
        row["cuts"] += len(cut_points(s))
        row["random"] += EXAMPLES_PER_SEED
    return out


def suite_table() -> str:
    """The Markdown table of ``suite_counts`` (between the ``suite-counts`` markers of
    docs/robustness.md; ``test_docs_show_the_suite_counts`` keeps them equal)."""
    rows = ["| container | seeds | header fields | field × value inputs | cut points | random mutation lists | inputs |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    total = dict.fromkeys(("seeds", "fields", "field_inputs", "cuts", "random"), 0)
    for name, r in suite_counts().items():
        rows.append(f"| {name} | {r['seeds']} | {r['fields']} | {r['field_inputs']} | {r['cuts']} | {r['random']} | {r['field_inputs'] + r['cuts'] + r['random']} |")
        for k in total:
            total[k] += r[k]
    rows.append(f"| **all** | {total['seeds']} | {total['fields']} | {total['field_inputs']} | {total['cuts']} | {total['random']} | {total['field_inputs'] + total['cuts'] + total['random']} |")
    return "\n".join(rows)


def test_docs_show_the_suite_counts() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "robustness.md").read_text()
    start, end = "<!-- suite-counts -->\n", "\n<!-- /suite-counts -->"
    assert doc[doc.index(start) + len(start) : doc.index(end)] == suite_table()
