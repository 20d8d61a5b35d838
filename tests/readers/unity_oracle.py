"""An independent reading of Unity's YAML with PyYAML, for the tests of
``texbudget.readers.unity_scene``: the same edges (kind, target, surfaces, slot) from a
general YAML parser, without the reader's line-oriented shortcuts.

Unity's files are YAML 1.1 with two liberties PyYAML needs help with: the ``!u!<classID>`` tag
of each document (a local tag: its documents are plain mappings here) and the word
``stripped`` after a document's anchor, which is not YAML (it is taken off, and the document
remembered as stripped).
"""

from __future__ import annotations

import re
from collections import Counter

import yaml

_HEADER = re.compile(r"^--- !u!(\d+) &(-?\d+)( stripped)?$", re.M)


class _Repeated(list):
    """The values of a key a mapping repeats (Unity 4's materials repeat ``data:``)."""


class _Loader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        out: dict = {}
        for key, value in self.construct_pairs(node, deep=True):
            if key in out:
                previous = out[key]
                out[key] = _Repeated([*previous, value] if isinstance(previous, _Repeated) else [previous, value])
            else:
                out[key] = value
        return out


_Loader.add_multi_constructor("tag:unity3d.com,2011:", lambda loader, suffix, node: loader.construct_mapping(node, deep=True))


def documents(text: str) -> list[tuple[int, int, bool, str, dict]]:
    """(classID, fileID, stripped, class name, fields) of every document."""
    heads = [(int(m.group(1)), int(m.group(2)), bool(m.group(3))) for m in _HEADER.finditer(text)]
    body = _HEADER.sub(lambda m: f"--- !<tag:unity3d.com,2011:{m.group(1)}> &{m.group(2)}", text)
    out = []
    for (cls, fid, stripped), doc in zip(heads, yaml.load_all(body, Loader=_Loader), strict=True):
        (name, fields), = doc.items()
        out.append((cls, fid, stripped, name, fields or {}))
    return out


def _target(ref: dict | None) -> str | None:
    if not isinstance(ref, dict) or not ref.get("fileID") or "guid" not in ref:
        return None
    return f"unity:{ref['guid']}:{ref['fileID']}"


def scene_edges(text: str) -> Counter:
    """Counter of (kind, target, surfaces, slot) a scene or prefab gives."""
    docs = documents(text)
    filters, renderers, out = {}, {}, Counter()
    for cls, _fid, stripped, name, f in docs:
        if stripped:
            continue
        go = (f.get("m_GameObject") or {}).get("fileID")
        if cls == 33:
            filters[go] = _target(f.get("m_Mesh"))
        elif cls in (23, 137):
            renderers[go] = (cls, [_target(m) or "" for m in f.get("m_Materials") or []], _target(f.get("m_Mesh")))
        elif cls in (199, 212, 120, 96):
            out.update(("material", t, (), "") for t in map(_target, f.get("m_Materials") or []) if t)
            if cls == 212 and _target(f.get("m_Sprite")):
                out[("texture", _target(f.get("m_Sprite")), (), "m_Sprite")] += 1
        elif cls == 108 and _target(f.get("m_Cookie")):
            out[("texture", _target(f.get("m_Cookie")), (), "m_Cookie")] += 1
        elif cls == 104 and _target(f.get("m_SkyboxMaterial")):
            out[("material", _target(f.get("m_SkyboxMaterial")), (), "")] += 1
        elif cls == 1001 and name == "PrefabInstance":
            if _target(f.get("m_SourcePrefab")):
                out[("instance", _target(f["m_SourcePrefab"]), (), "")] += 1
            for mod in (f.get("m_Modification") or {}).get("m_Modifications") or []:
                path, ref = mod.get("propertyPath", ""), _target(mod.get("objectReference"))
                if ref and (path == "m_Mesh" or re.fullmatch(r"m_Materials\.Array\.data\[\d+\]", path)):
                    out[("mesh" if path == "m_Mesh" else "material", ref, (), "")] += 1
    for go in {**filters, **renderers}:
        cls, materials, own = renderers.get(go, (23, [], None))
        mesh = own if cls == 137 else filters.get(go)
        if mesh:
            out[("mesh", mesh, tuple(materials), "")] += 1
        else:
            out.update(("material", m, (), "") for m in materials if m)
    return out


def material_edges(text: str) -> Counter:
    """Counter of (kind, target, surfaces, slot) a material gives."""
    out = Counter()
    for cls, _fid, _stripped, _name, f in documents(text):
        if cls != 21:
            continue
        if _target(f.get("m_Parent")):
            out[("material", _target(f["m_Parent"]), (), "")] += 1
        envs = (f.get("m_SavedProperties") or {}).get("m_TexEnvs") or []
        if isinstance(envs, dict):  # Unity 4: data: {first: {name: …}, second: {…}}
            data = envs.get("data", [])
            envs = data if isinstance(data, _Repeated) else [data]
        for item in envs:
            if "first" in item:
                first = item["first"]
                slot, env = (first.get("name") if isinstance(first, dict) else first), item.get("second") or {}
            else:
                (slot, env), = item.items()
            if _target(env.get("m_Texture")):
                out[("texture", _target(env["m_Texture"]), (), slot)] += 1
    return out
