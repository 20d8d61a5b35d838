"""The records (``texbudget.model.Record``, msgspec Structs) and the house rules issue 22 set
for them: built with keywords by the readers, no code written at run time, no class swapped,
no pickle.

The rules are checked on the source (``ast``): a positional call of a fact class in a reader,
an ``exec``/``eval``/``compile`` call, an assignment to ``__class__`` or an import of
``pickle`` anywhere in ``texbudget`` fails here with the file and line.
"""

from __future__ import annotations

import ast
import gc
import importlib
import pkgutil
from pathlib import Path

import msgspec
import pytest

import texbudget
from texbudget import formats
from texbudget.model import MeshFacts, Record, TextureFacts, evolve

PACKAGE = Path(texbudget.__file__).parent

#: The records a reader builds (``ReadResult`` and what it holds).
FACTS = frozenset({"TextureFacts", "MeshFacts", "PrimitiveFacts", "AttributeFacts", "SceneFacts", "SceneRef",
                   "ReadResult", "Finding"})


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _records() -> list[type[Record]]:
    for info in pkgutil.walk_packages([str(PACKAGE)], "texbudget."):
        if ".tui" not in info.name and not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    seen: list[type[Record]] = []
    todo: list[type] = [Record]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("texbudget.") and sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def test_readers_build_facts_with_keywords():
    found = []
    for path in sorted((PACKAGE / "readers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FACTS and node.args:
                found.append(f"{path.name}:{node.lineno} {node.func.id}(...) with {len(node.args)} positional argument(s)")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in FACTS:
                found.append(f"{path.name}:{node.lineno} {node.value.id} under another name (its calls are not checked)")
    assert found == []


def test_no_code_written_at_run_time_no_class_swapped_no_pickle():
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval", "compile"):
                found.append(f"{where} {node.func.id}()")
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [f"{where} __class__ assigned" for t in targets if isinstance(t, ast.Attribute) and t.attr == "__class__"]
            if isinstance(node, ast.Import):
                found += [f"{where} import {a.name}" for a in node.names if a.name.split(".")[0] in ("pickle", "marshal", "shelve")]
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("pickle", "marshal", "shelve"):
                found.append(f"{where} from {node.module} import …")
    assert found == []


def test_every_record_is_frozen_untracked_and_stored_as_an_array():
    records = _records()
    assert {"TextureFacts", "MeshFacts", "TexturePlan", "TextureCost", "EngineImport", "UnityPlatform", "MeshCost",
            "TextureRow", "ScenarioResult"} <= {r.__name__ for r in records}
    for cls in records:
        config = cls.__struct_config__
        assert (config.frozen, config.gc, config.array_like, config.forbid_unknown_fields) == (True, False, True, True), cls


def test_records_compare_and_hash_by_value_and_never_change():
    """What the code relies on of a record: equal by value, hashable by value (sets, dict
    keys), unchangeable, ``evolve`` a changed copy; not tracked by the cyclic collector."""
    made = MeshFacts("a.glb#mesh/0", "Rock", 100, 150, 50, 1200, 300, lod=0)
    same = MeshFacts(path="a.glb#mesh/0", name="Rock", vertices=100, indices=150, triangles=50,
                     vertex_bytes=1200, index_bytes=300, lod=0)
    assert made == same and hash(made) == hash(same) and len({made, same}) == 1
    assert made != evolve(made, lod=1) and made != TextureFacts(path="a.glb#mesh/0", container="png", width=1, height=1)
    with pytest.raises(AttributeError):
        made.name = "Stone"  # type: ignore[misc]
    for changes in ({}, {"name": "Stone"}, {"lod": None, "vertices": 7}):
        new = evolve(made, **changes)
        assert type(new) is MeshFacts and new == msgspec.structs.replace(made, **changes)
        assert all(getattr(new, k) == v for k, v in changes.items())
    assert made.name == "Rock" and made.lod == 0  # the original is untouched
    with pytest.raises(TypeError):
        evolve(made, colour="red")
    assert not gc.is_tracked(made) and not gc.is_tracked(TextureFacts(path="a", container="png", width=1, height=1))
    bc7 = formats.get("BC7_SRGB")
    assert hash(bc7) == hash("BC7_SRGB") and evolve(bc7, signed=True) != bc7  # hashed by name, equal by value
    with pytest.raises(TypeError):
        _ = made < same  # type: ignore[operator]  # no order, as the dataclasses had none
