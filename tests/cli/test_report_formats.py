"""Golden outputs of ``texbudget scan --format json|csv|markdown|sarif`` for one small,
fixed scene (``build_scene``), and the SARIF structure checked against the key parts of
the SARIF 2.1.0 schema.

To rewrite the golden files after an intended change of output, run
``REGENERATE=1 pytest tests/cli/test_report_formats.py`` and review the diff of
``tests/cli/golden/`` before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.readers import factories as fx
from tests.readers.gltf_factories import GltfBuilder
from texbudget.cli import main

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("REGENERATE") == "1"

CONFIG = """\
[budget]
cards = ["1GB", "8GB"]
resolutions = ["1080p", "4k"]
rt = ["off", "nvidia"]
quality = ["ultra"]
platform = "desktop"
"""

GODOT_IMPORT = """\
[remap]

importer="texture"
type="CompressedTexture2D"

[deps]

source_file="res://textures/crate_albedo.png"

[params]

compress/mode=2
compress/high_quality=false
compress/normal_map=0
mipmaps/generate=true
process/size_limit=0
detect_3d/compress_to=1
"""


def build_scene(base: Path) -> Path:
    """A small scene, the same bytes every time: a BC7 KTX2 no material uses (TB006), a PNG
    with a Godot .import that a glTF material uses, a UI PNG, a glTF with one mesh placed
    twice, and an empty DDS (TB040)."""
    root = base / "scene"
    fx.write(root, "texbudget.toml", CONFIG.encode())
    fx.write(root, "textures/rock_albedo.ktx2",
             fx.ktx2_bytes(256, 256, vk_format=146, levels=9, dfd=fx.dfd_bytes(transfer=2)))
    fx.write(root, "textures/crate_albedo.png", fx.png_bytes(64, 64, color_type=6))
    fx.write(root, "textures/crate_albedo.png.import", GODOT_IMPORT.encode())
    fx.write(root, "ui/icon.png", fx.png_bytes(32, 32, color_type=2))
    fx.write(root, "broken.dds", b"")
    b = GltfBuilder()
    pos = b.add_accessor([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0], 5126, "VEC3",
                         min=[0.0, 0.0, 0.0], max=[1.0, 1.0, 0.0])
    nrm = b.vec(4, "VEC3")
    idx = b.indices([0, 1, 2, 0, 2, 3])
    b.add_image_uri("textures/crate_albedo.png")
    b.add_texture(0)
    b.add_material(name="crate", pbrMetallicRoughness={"baseColorTexture": {"index": 0}})
    b.add_mesh([{"attributes": {"POSITION": pos, "NORMAL": nrm}, "indices": idx, "material": 0}], "crate")
    n0 = b.add_node(mesh=0, name="crate_a")
    n1 = b.add_node(mesh=0, name="crate_b", translation=[2.0, 0.0, 0.0])
    b.add_scene([n0, n1])
    b.write_gltf(root / "scene.gltf")
    return root


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    return build_scene(tmp_path)


def scan(capsys: pytest.CaptureFixture[str], root: Path, fmt: str) -> str:
    code = main(["scan", str(root), "--format", fmt, "--no-cache", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def golden(name: str, text: str) -> None:
    """Compare ``text`` with ``golden/<name>``; with REGENERATE=1, rewrite the file instead."""
    path = GOLDEN / name
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    assert path.exists(), f"{path} is missing; run REGENERATE=1 pytest {__file__}"
    assert text == path.read_bytes().decode("utf-8")


# --- JSON (schema 1) ---------------------------------------------------------------------------

DESIGN_TEXTURE_KEYS = {
    "path", "container", "width", "height", "depth", "layers", "faces", "stored_levels", "stored_format",
    "vk_format", "gpu_format", "dxgi_format", "role", "decided_by", "mips", "gpu_bytes", "allocated_bytes",
    "disk_bytes", "used_by",
}
DESIGN_MESH_KEYS = {
    "path", "name", "primitives", "vertices", "indices", "triangles", "vertex_bytes", "index_bytes",
    "morph_bytes", "skinned", "engine_vertex_bytes", "instances", "blas",
}


def test_json_one_entry_per_line(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each texture, mesh, finding and scenario is one line, so grep and git diff show one
    asset at a time; the envelope is indented."""
    out = scan(capsys, scene, "json")
    data = json.loads(out)
    lines = out.splitlines()
    for key in ("textures", "meshes", "findings", "scenarios"):
        start = lines.index(f'  "{key}": [')
        entries = lines[start + 1:start + 1 + len(data[key])]
        assert [json.loads(line.strip().rstrip(",")) for line in entries] == data[key]
        assert lines[start + 1 + len(data[key])].strip() in ("]", "],")
    assert lines[:2] == ["{", '  "schema": 1,']


def test_json_dumps_layout_and_escapes() -> None:
    from texbudget.report.json import dumps

    text = dumps({"a": [], "b": {"c": [1, {"d": "\udcff é"}]}, "e": [{"f": 1}, 2]})
    assert text == (
        '{\n  "a": [],\n  "b": {\n    "c": [1, {"d": "\\udcff é"}]\n  },\n'
        '  "e": [\n    {"f": 1},\n    2\n  ]\n}'
    )
    assert json.loads(text)["b"]["c"][1]["d"] == "\udcff é"


def test_json_golden(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = scan(capsys, scene, "json")
    golden("scene.json", out)
    data = json.loads(out)
    assert data["schema"] == 1
    assert {"schema", "tool", "settings", "textures", "meshes", "findings", "scenarios"} <= set(data)
    for t in data["textures"]:
        assert set(t) >= DESIGN_TEXTURE_KEYS
    for m in data["meshes"]:
        assert set(m) >= DESIGN_MESH_KEYS


def test_json_numbers(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pinned numbers, computed here from the block formula."""
    data = json.loads(scan(capsys, scene, "json"))
    tex = {t["path"]: t for t in data["textures"]}
    # BC7 256x256, 9 stored levels: 16-byte 4x4 blocks, at least one block per level
    assert tex["textures/rock_albedo.ktx2"]["gpu_bytes"] == fx.chain_bytes(256, 256, levels=9, block=(4, 4, 16)) == 87408
    assert tex["textures/rock_albedo.ktx2"]["allocated_bytes"] == 22 * 4096  # 4 KiB small-resource alignment
    # Godot VRAM compressed, RGBA source -> BC3 (16-byte blocks), mips generated: 7 levels
    assert tex["textures/crate_albedo.png"]["gpu_bytes"] == fx.chain_bytes(64, 64, levels=7, block=(4, 4, 16)) == 5488
    assert tex["textures/crate_albedo.png"]["allocated_bytes"] == 2 * 4096
    # UI: RGBA8 without mips, 32x32x4
    assert tex["ui/icon.png"]["gpu_bytes"] == 32 * 32 * 4 == 4096
    (mesh,) = data["meshes"]
    assert (mesh["vertex_bytes"], mesh["index_bytes"], mesh["instances"]) == (4 * 12 + 4 * 12, 6 * 2, 2)
    assert [f["code"] for f in data["findings"]] == ["TB040", "TB006"]


# --- CSV ---------------------------------------------------------------------------------------


def test_csv_golden(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import csv as csv_mod
    import io

    from texbudget.report.csv import COLUMNS

    out = scan(capsys, scene, "csv")
    golden("scene.csv", out)
    assert out.endswith("\r\n")
    rows = list(csv_mod.reader(io.StringIO(out, newline="")))
    assert tuple(rows[0]) == COLUMNS
    by_path = {r[1]: dict(zip(COLUMNS, r, strict=True)) for r in rows[1:]}
    assert list(by_path) == ["textures/crate_albedo.png", "textures/rock_albedo.ktx2", "ui/icon.png", "scene.gltf#mesh/0"]
    crate = by_path["textures/crate_albedo.png"]
    assert (crate["kind"], crate["width"], crate["levels"], crate["stored_format"], crate["gpu_format"]) == ("texture", "64", "7", "", "BC3_SRGB")
    assert (crate["gpu_bytes"], crate["allocated_bytes"], crate["triangles"]) == ("5488", "8192", "")
    total = 8192 + 90112 + 4096 + 108
    assert crate["share_pct"] == f"{100 * 8192 / total:.2f}" == "7.99"
    mesh = by_path["scene.gltf#mesh/0"]
    assert (mesh["kind"], mesh["gpu_format"], mesh["triangles"], mesh["instances"], mesh["buffer_bytes"]) == ("mesh", "", "2", "2", "108")
    assert mesh["blas_bytes"] == "512"  # nvidia: 256 + 26 B/tri, aligned to 256 (an estimate)


def test_csv_quotes_per_rfc4180(scene: Path) -> None:
    """A field holding a comma, a quote and a line break survives a round trip."""
    import csv as csv_mod
    import io

    from texbudget.model import evolve
    from texbudget.report import csv as csv_report

    report = _report(scene)
    tricky = 'rule "a, b"\nsecond line'
    row = report.textures[0]
    report = evolve(report, textures=(evolve(row, plan=evolve(row.plan, decided_by=tricky)), *report.textures[1:]))
    text = csv_report.render(report)
    assert '"rule ""a, b""\nsecond line"' in text
    parsed = list(csv_mod.reader(io.StringIO(text, newline="")))
    assert parsed[1][csv_report.COLUMNS.index("decided_by")] == tricky


def test_csv_cells_never_start_a_formula(scene: Path) -> None:
    """OWASP's rule for CSV injection: text that a spreadsheet would run ("=…", "+…", "-…",
    "@…", tab, CR) is written after an apostrophe; no other cell changes."""
    import csv as csv_mod
    import io

    from texbudget.model import evolve
    from texbudget.report import csv as csv_report

    report = _report(scene)
    rows = list(report.textures)
    names = ['=HYPERLINK("https://e.example/?"&A1)', "+1.png", "-x.png", "@sum.png", "\tx.png", "ok=1.png"]
    for i, name in enumerate(names):
        row = rows[i % len(rows)]
        rows.append(evolve(row, facts=evolve(row.facts, path=name), plan=evolve(row.plan, path=name)))
    mesh = report.meshes[0]
    tricky = evolve(mesh, facts=evolve(mesh.facts, path="=cmd|x"))
    report = evolve(report, textures=tuple(rows), meshes=(tricky, *report.meshes[1:]))
    parsed = list(csv_mod.DictReader(io.StringIO(csv_report.render(report), newline="")))
    paths = [r["path"] for r in parsed]
    assert paths[len(rows) - len(names):len(rows)] == ["'" + n for n in names[:-1]] + ["ok=1.png"]
    assert paths[len(rows)] == "'=cmd|x"
    assert paths[: len(rows) - len(names)] == [r.facts.path for r in report.textures[: len(rows) - len(names)]]


def _report(root: Path):
    from texbudget import config, pipeline
    from texbudget.scan.scene import read_scene

    cfg = config.load(root / "texbudget.toml")
    return pipeline.evaluate(read_scene(root, cfg, jobs=1), pipeline.build_settings(cfg))



def test_json_entries_in_batches_with_names_msgspec_refuses(scene: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``chunks`` writes the long lists in batches, each entry from a template: batches of
    two and memos of one value (so every batch boundary, every memo's restart and the batch
    written again with json's encoder are taken), a name that is not UTF-8 in a texture's
    path, a finding and a mesh's name, every mesh with a BLAS and an engine vertex layout:
    the text is ``dumps`` of the report's dicts, byte for byte, and so is ``check``'s with its
    violations."""
    from texbudget.report import json as json_report

    monkeypatch.setattr(json_report, "_BATCH", 2)
    monkeypatch.setattr(json_report, "_MEMO_MAX", 1)
    for i in range(5):
        fx.write(scene, f"textures/n{i}_albedo.png", fx.png_bytes(8 << i, 8, color_type=2 + 4 * (i % 2)))
    (scene / os.fsdecode(b"textures/bad\xff_n.png")).write_bytes(fx.png_bytes(8, 8))
    gltf = json.loads((scene / "scene.gltf").read_text())
    gltf["meshes"][0]["name"] = "crate \udcff"
    (scene / "scene.gltf").write_text(json.dumps(gltf))
    fx.write(scene, "texbudget.toml", (CONFIG + '\n[meshes]\nlayout = ["position:f32x3", "normal:s8x4"]\n').encode())
    report = _report(scene)
    assert len(report.textures) > 5 and report.meshes and all(m.blas and m.engine_vertex_bytes for m in report.meshes)
    assert any("\udcff" in m.facts.name for m in report.meshes)
    assert any("\udcff" in f.path for f in report.findings)
    data = json_report.report_dict(report)
    assert json_report.render(report) == json_report.dumps(data)
    violations = report.findings[:3]
    checked = b"".join(json_report.chunks(report, violations=violations)).decode()
    assert checked == json_report.dumps({**data, "violations": [json_report.finding_entry(f) for f in violations]})
    assert json_report.dumps({**data, "violations": []}) == b"".join(json_report.chunks(report, violations=())).decode()


@given(st.text())
def test_json_msgspec_writes_every_string_as_json_does(text: str) -> None:
    """The templates write free text (paths, names, messages) with msgspec: json's text of
    any string that is valid Unicode, byte for byte (control characters, quotes, backslashes,
    non-ASCII, U+2028 kept), and an error for a lone surrogate, whose batch json writes."""
    from texbudget.report.json import _ENCODE, _small

    if any("\ud800" <= c <= "\udfff" for c in text):
        with pytest.raises(UnicodeEncodeError):
            _ENCODE(text)
        assert json.loads(_small(text)) == text
    else:
        assert _ENCODE(text) == _small(text) == json.dumps(text, ensure_ascii=False).encode()


def test_json_report_to_a_stdout_without_bytes(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A caller's stdout that holds text only (``io.StringIO``) gets the same report."""
    import contextlib
    import io

    expected = scan(capsys, scene, "json")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["scan", str(scene), "--format", "json", "--no-cache", "--jobs", "1"]) == 0
    assert buf.getvalue() == expected and expected.endswith("}\n")


def test_json_report_to_a_stdout_that_takes_part_of_each_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unbuffered (``python -u``), stdout's bytes are the file itself, whose ``write`` may
    take part of what it is given: the rest is written again, nothing is lost."""
    import io

    from texbudget import cli

    class Stingy(io.RawIOBase):
        def __init__(self) -> None:
            self.got = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, data) -> int:  # type: ignore[override]
            self.got += bytes(data[:3])
            return min(3, len(data))

    raw = Stingy()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    monkeypatch.setattr("sys.stdout", stdout)
    cli._write_chunks([b'{"a": "\xc3\xa9",', b"", b' "b": 1}'])
    stdout.flush()
    assert bytes(raw.got) == b'{"a": "\xc3\xa9", "b": 1}\n'


# --- Markdown ----------------------------------------------------------------------------------


def _tables(text: str) -> list[list[str]]:
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def _cells(line: str) -> int:
    import re

    return len(re.split(r"(?<!\\)\|", line.strip())) - 2


def test_markdown_golden(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = scan(capsys, scene, "markdown")
    golden("scene.md", out)
    lines = out.splitlines()
    assert lines[0] == "## texbudget: scene over on some cards ✗"
    assert "| 3840x2160 ultra RT nvidia | 1.0 / 0.2 GiB ✗ | 1.0 / 7.2 GiB ✓ |" in lines
    assert "| 1920x1080 ultra RT off | 0.2 / 0.2 GiB ✓ | 0.2 / 7.2 GiB ✓ |" in lines
    assert "| 1 | `textures/rock_albedo.ktx2` | 88.00 KiB | 87.9 % | 256x256 | `BC7_SRGB` | stored format BC7_SRGB |" in lines
    assert "- **3840x2160 ultra RT off on 1GB**: over ✗, -397.36 MiB free" in lines
    # every table is well formed: the same number of cells in every row as in the header
    tables = _tables(out)
    assert len(tables) == 4
    for table in tables:
        assert {_cells(r) for r in table} == {_cells(table[0])}


def test_markdown_escapes_pipes(scene: Path) -> None:
    from texbudget.model import evolve
    from texbudget.report import markdown

    report = _report(scene)
    row = report.textures[1]
    report = evolve(report, textures=(report.textures[0], evolve(row, plan=evolve(row.plan, decided_by="a | b")), *report.textures[2:]))
    text = markdown.render(report)
    assert "a \\| b" in text
    for table in _tables(text):
        assert {_cells(r) for r in table} == {_cells(table[0])}


# --- SARIF -------------------------------------------------------------------------------------

# The key parts of the SARIF 2.1.0 schema (OASIS, sarif-schema-2.1.0.json), transcribed: for
# every object texbudget writes, its allowed properties (additionalProperties: false), the
# required ones, and the types and enums of those it uses.
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
_MSG = {"$ref": "multiformatMessageString"}
SARIF_SCHEMA: dict[str, dict] = {
    "sarifLog": {
        "required": ["version", "runs"],
        "properties": {"$schema": {"type": "string", "format": "uri"}, "version": {"enum": ["2.1.0"]},
                       "runs": {"type": "array", "items": {"$ref": "run"}},
                       "inlineExternalProperties": {}, "properties": {}},
    },
    "run": {
        "required": ["tool"],
        "properties": {
            "tool": {"$ref": "tool"}, "results": {"type": "array", "items": {"$ref": "result"}},
            "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
            **{k: {} for k in ("invocations", "conversion", "language", "versionControlProvenance",
                               "originalUriBaseIds", "artifacts", "logicalLocations", "graphs",
                               "automationDetails", "runAggregates", "baselineGuid", "redactionTokens",
                               "defaultEncoding", "defaultSourceLanguage", "newlineSequences",
                               "externalPropertyFileReferences", "threadFlowLocations", "taxonomies",
                               "addresses", "translations", "policies", "webRequests", "webResponses",
                               "specialLocations", "properties")},
        },
    },
    "tool": {"required": ["driver"], "properties": {"driver": {"$ref": "toolComponent"}, "extensions": {}, "properties": {}}},
    "toolComponent": {
        "required": ["name"],
        "properties": {
            "name": {"type": "string"}, "version": {"type": "string"},
            "informationUri": {"type": "string", "format": "uri"},
            "rules": {"type": "array", "items": {"$ref": "reportingDescriptor"}, "uniqueItems": True},
            **{k: {} for k in ("guid", "organization", "product", "productSuite", "shortDescription",
                               "fullDescription", "fullName", "semanticVersion", "dottedQuadFileVersion",
                               "releaseDateUtc", "downloadUri", "globalMessageStrings", "notifications",
                               "taxa", "locations", "language", "contents", "isComprehensive",
                               "localizedDataSemanticVersion", "minimumRequiredLocalizedDataSemanticVersion",
                               "associatedComponent", "translationMetadata", "supportedTaxonomies", "properties")},
        },
    },
    "reportingDescriptor": {
        "required": ["id"],
        "properties": {
            "id": {"type": "string"}, "name": {"type": "string"}, "shortDescription": _MSG,
            "fullDescription": _MSG, "help": _MSG, "helpUri": {"type": "string", "format": "uri"},
            "defaultConfiguration": {"$ref": "reportingConfiguration"},
            **{k: {} for k in ("deprecatedIds", "guid", "deprecatedGuids", "deprecatedNames", "messageStrings",
                               "relationships", "properties")},
        },
    },
    "reportingConfiguration": {"required": [], "properties": {"enabled": {"type": "boolean"}, "level": _LEVEL,
                                                              "rank": {}, "parameters": {}, "properties": {}}},
    "multiformatMessageString": {"required": ["text"], "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}, "properties": {}}},
    "message": {"anyOf": [["text"], ["id"]], "required": [],
                "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}, "id": {"type": "string"},
                               "arguments": {}, "properties": {}}},
    "result": {
        "required": ["message"],
        "properties": {
            "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": -1}, "level": _LEVEL,
            "message": {"$ref": "message"}, "locations": {"type": "array", "items": {"$ref": "location"}},
            "properties": {"type": "object"},
            **{k: {} for k in ("rule", "kind", "analysisTarget", "guid", "correlationGuid", "occurrenceCount",
                               "partialFingerprints", "fingerprints", "stacks", "codeFlows", "graphs",
                               "graphTraversals", "relatedLocations", "suppressions", "baselineState", "rank",
                               "attachments", "hostedViewerUri", "workItemUris", "provenance", "fixes", "taxa",
                               "webRequest", "webResponse")},
        },
    },
    "location": {"required": [], "properties": {"physicalLocation": {"$ref": "physicalLocation"},
                                                **{k: {} for k in ("id", "logicalLocations", "message", "annotations", "relationships", "properties")}}},
    "physicalLocation": {"anyOf": [["address"], ["artifactLocation"]], "required": [],
                         "properties": {"artifactLocation": {"$ref": "artifactLocation"},
                                        **{k: {} for k in ("address", "region", "contextRegion", "properties")}}},
    "artifactLocation": {"required": [], "properties": {"uri": {"type": "string", "format": "uri-reference"},
                                                        "uriBaseId": {"type": "string"},
                                                        **{k: {} for k in ("index", "description", "properties")}}},
}
_TYPES = {"string": str, "array": list, "object": dict, "boolean": bool, "integer": int}


def _check_uri(value: str, fmt: str, where: str) -> None:
    import re
    from urllib.parse import urlsplit

    assert not re.search(r"[\s\"<>\\^`{|}#]", value.split("#", 1)[0] if fmt == "uri" else value), f"{where}: {value!r} is no {fmt}"
    if fmt == "uri":
        assert urlsplit(value).scheme in ("http", "https"), f"{where}: {value!r} is not absolute"


def validate(value: object, definition: str, where: str = "$") -> None:
    """Check ``value`` against SARIF_SCHEMA[definition] (types, required, enums, no unknown
    properties, anyOf-required), recursively."""
    spec = SARIF_SCHEMA[definition]
    assert isinstance(value, dict), f"{where}: {definition} must be an object"
    unknown = set(value) - set(spec["properties"])
    assert not unknown, f"{where}: {definition} does not allow {sorted(unknown)}"
    for key in spec["required"]:
        assert key in value, f"{where}: {definition} requires {key!r}"
    if "anyOf" in spec:
        assert any(all(k in value for k in group) for group in spec["anyOf"]), f"{where}: {definition} needs one of {spec['anyOf']}"
    for key, v in value.items():
        _check_property(v, spec["properties"][key], f"{where}.{key}")


def _check_property(v: object, prop: dict, where: str) -> None:
    if "$ref" in prop:
        validate(v, prop["$ref"], where)
        return
    if "enum" in prop:
        assert v in prop["enum"], f"{where}: {v!r} not in {prop['enum']}"
    if "type" in prop:
        assert isinstance(v, _TYPES[prop["type"]]) and not (prop["type"] == "integer" and isinstance(v, bool)), f"{where}: not {prop['type']}"
    if "minimum" in prop:
        assert v >= prop["minimum"], where
    if "format" in prop:
        _check_uri(v, prop["format"], where)
    if "items" in prop:
        for i, item in enumerate(v):
            _check_property(item, prop["items"], f"{where}[{i}]")
    if prop.get("uniqueItems"):
        assert len({json.dumps(x, sort_keys=True) for x in v}) == len(v), f"{where}: items not unique"


def test_sarif_golden_and_schema(scene: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from texbudget import findings

    out = scan(capsys, scene, "sarif")
    golden("scene.sarif.json", out)
    data = json.loads(out)
    validate(data, "sarifLog")
    assert data["version"] == "2.1.0" and data["$schema"].startswith("https://")
    (run,) = data["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("texbudget", "0.1.0")
    assert [r["id"] for r in driver["rules"]] == ["TB006", "TB040"]
    for r in driver["rules"]:
        code = findings.CODES[r["id"]]
        assert r["shortDescription"]["text"] == code.meaning
        assert r["help"]["text"] == code.hint
    results = [(r["ruleId"], r["ruleIndex"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
               for r in run["results"]]
    assert results == [("TB040", 1, "error", "broken.dds"), ("TB006", 0, "warning", "textures/rock_albedo.ktx2")]
    assert run["results"][0]["message"]["text"] == "the file is empty (0 bytes)"


def test_sarif_fragments_levels_and_extra(scene: Path) -> None:
    """``file.gltf#mesh/0`` is located at the file, its fragment starts the message; info is a
    note; a path with a space is percent-encoded; a scene-wide finding is located at the
    config file (GitHub code scanning needs a location on every result)."""
    from texbudget import findings
    from texbudget.report import sarif

    report = _report(scene)
    extra = [
        findings.make("scene.gltf#mesh/0", "TB084", "no node uses this mesh"),
        findings.make("my textures/a b.png", "TB003", "a JPEG saved as .png"),
        findings.make(".", "TB030", "over on 1GB at 3840x2160"),
    ]
    data = json.loads(sarif.render(report, extra))
    validate(data, "sarifLog")
    run = data["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["TB003", "TB006", "TB030", "TB040", "TB084"]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    mesh = by_rule["TB084"]
    assert mesh["level"] == "note"
    assert mesh["message"]["text"] == "mesh/0: no node uses this mesh"
    assert mesh["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "scene.gltf", "uriBaseId": "%SRCROOT%"}
    assert mesh["ruleIndex"] == 4
    assert by_rule["TB003"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20textures/a%20b.png"
    assert by_rule["TB030"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "texbudget.toml"
    assert by_rule["TB030"]["level"] == "error"
    # without a config file a scene-wide finding has no location
    (scene / "texbudget.toml").unlink()
    data = json.loads(sarif.render(report, extra))
    by_rule = {r["ruleId"]: r for r in data["runs"][0]["results"]}
    assert "locations" not in by_rule["TB030"]


def test_sarif_validator_rejects_bad_documents() -> None:
    """The transcribed schema is not vacuous: it catches a wrong level, a missing message and
    an unknown property."""
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {"text": "m"}, "level": "warning"}]}]}
    validate(good, "sarifLog")
    for bad in (
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {"text": "m"}, "level": "info"}]}]},
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"level": "note"}]}]},
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "colour": 1}}}]},
        {"version": "2.0.0", "runs": []},
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {}}]}]},
    ):
        with pytest.raises(AssertionError):
            validate(bad, "sarifLog")


def test_people_reports_list_the_largest_fixes_and_sum_the_rest(scene: Path) -> None:
    """A scene far over budget gets hundreds of one-texture steps: text and Markdown list the
    first MAX_FIXES_SHOWN and sum the rest on one line; the together line still counts all."""
    from texbudget.model import Fix, evolve
    from texbudget.report import markdown, text
    from texbudget.units import human_bytes

    report = _report(scene)
    over = next(s for s in report.scenarios if any(c.verdict == "over" and c.name == "1GB" for c in s.cards))
    shown = text.MAX_FIXES_SHOWN
    many = tuple(Fix("1GB", "compress to BC7_SRGB", f"ui/icon_{i:03}.png", (100 - i) * 1024 * 1024, kind="compress")
                 for i in range(shown + 7))
    report = evolve(report, scenarios=(evolve(over, fixes=many),))
    rest_mib = sum(100 - i for i in range(shown, shown + 7))
    for out in (text.render(report), markdown.render(report)):
        lines = out.splitlines()
        listed = [line for line in lines if "compress to BC7_SRGB" in line]
        assert len(listed) == shown and "ui/icon_000.png" in listed[0] and f"icon_{shown - 1:03}" in listed[-1]
        assert sum(f"… and 7 smaller changes: save {rest_mib}.00 MiB more" in line for line in lines) == 1
        assert sum(f"together: {human_bytes(sum(f.saves_bytes for f in many))}" in line for line in lines) == 1
    exactly = evolve(report, scenarios=(evolve(over, fixes=many[:shown]),))
    assert "smaller changes" not in text.render(exactly) + markdown.render(exactly)


def test_json_render_writes_what_the_plain_encoder_writes(scene: Path) -> None:
    """``render`` splices each mip chain in once; the text is the same as the report's dict
    through ``dumps``, and each entry's line is what ``json.dumps`` writes of it, byte for
    byte, with non-ASCII names, a name that is not UTF-8, an ignored texture and an empty
    file."""
    from texbudget.report import json as json_report

    fx.write(scene, "textures/café_albedo.png", fx.png_bytes(16, 16))
    (scene / os.fsdecode(b"textures/bad\xff_n.png")).write_bytes(fx.png_bytes(8, 8))
    fx.write(scene, "texbudget.toml", (CONFIG + '\n[[rule]]\nmatch = "ui/*"\nignore = true\n').encode())
    report = _report(scene)
    assert any(t.plan.ignored and not t.cost.mips for t in report.textures)
    fast = json_report.render(report)
    data = json_report.report_dict(report)
    assert json_report.dumps(data) == fast
    lines = fast.splitlines()
    for key in ("textures", "meshes", "findings", "scenarios"):
        start = lines.index(f'  "{key}": [')
        written = [line.removesuffix(",") for line in lines[start + 1:start + 1 + len(data[key])]]
        plain = ["    " + json.dumps(entry, ensure_ascii=False).replace("\udcff", "\\udcff") for entry in data[key]]
        assert written == plain and plain, key
    assert "café_albedo.png" in fast and "bad\\udcff_n.png" in fast
