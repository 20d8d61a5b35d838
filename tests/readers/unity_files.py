"""Unity YAML written as Unity writes it, for the tests: the two header lines, one document per
object (``--- !u!<classID> &<fileID>``, `` stripped`` for a prefab instance's placeholder), the
class name, fields two spaces in, lists at their key's indent, references as flow mappings,
wrapped onto the next line past Unity's line width as Unity wraps them (the layout of
BoatAttack's and game-programming-patterns-demo's files).
"""

from __future__ import annotations

HEAD = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n"
BUILTIN = "0000000000000000e000000000000000"
#: A guid per name, 32 hex digits (``guid("barrel")``).


def guid(name: str) -> str:
    return (name.encode().hex() + "0" * 32)[:32]


def ref(file_id: int = 0, guid_: str | None = None, type_: int | None = None, *, wrap: bool = False) -> str:
    """``{fileID: F, guid: G, type: T}``; ``wrap`` breaks it before ``type`` as Unity does when
    the line is long."""
    if guid_ is None:
        return f"{{fileID: {file_id}}}"
    t = 3 if type_ is None else type_
    return f"{{fileID: {file_id}, guid: {guid_},\n        type: {t}}}" if wrap else f"{{fileID: {file_id}, guid: {guid_}, type: {t}}}"


def doc(cls: int, file_id: int, name: str, body: str, *, stripped: bool = False) -> str:
    return f"--- !u!{cls} &{file_id}{' stripped' if stripped else ''}\n{name}:\n{body}"


_NONE = "  m_CorrespondingSourceObject: {fileID: 0}\n  m_PrefabInstance: {fileID: 0}\n  m_PrefabAsset: {fileID: 0}\n"


def game_object(file_id: int, name: str, components: list[int]) -> str:
    comps = "".join(f"  - component: {{fileID: {c}}}\n" for c in components)
    return doc(1, file_id, "GameObject", f"  m_ObjectHideFlags: 0\n{_NONE}  serializedVersion: 6\n  m_Component:\n{comps}"
               f"  m_Layer: 0\n  m_Name: {name}\n  m_TagString: Untagged\n  m_IsActive: 1\n")


def transform(file_id: int, go: int, father: int = 0, children: list[int] = (), cls: int = 4) -> str:
    kids = "".join(f"  - {{fileID: {c}}}\n" for c in children) if children else ""
    return doc(cls, file_id, "Transform" if cls == 4 else "RectTransform",
               f"  m_ObjectHideFlags: 0\n{_NONE}  m_GameObject: {{fileID: {go}}}\n"
               f"  m_LocalRotation: {{x: 0, y: 0, z: 0, w: 1}}\n  m_LocalPosition: {{x: 0, y: 0, z: 0}}\n"
               f"  m_Children:{' []' if not children else ''}\n{kids}  m_Father: {{fileID: {father}}}\n  m_RootOrder: 0\n")


def mesh_filter(file_id: int, go: int, mesh: str) -> str:
    return doc(33, file_id, "MeshFilter", f"  m_ObjectHideFlags: 0\n{_NONE}  m_GameObject: {{fileID: {go}}}\n  m_Mesh: {mesh}\n")


def renderer(file_id: int, go: int, materials: list[str], *, skinned_mesh: str | None = None, cls: int = 23,
             name: str = "MeshRenderer", extra: str = "") -> str:
    mats = "".join(f"  - {m}\n" for m in materials)
    body = (f"  m_ObjectHideFlags: 0\n{_NONE}  m_GameObject: {{fileID: {go}}}\n  m_Enabled: 1\n  m_CastShadows: 1\n"
            f"  m_Materials:{' []' if not materials else ''}\n{mats}  m_StaticBatchInfo:\n    firstSubMesh: 0\n    subMeshCount: 0\n")
    if skinned_mesh is not None:
        cls, name = 137, "SkinnedMeshRenderer"
        body += f"  serializedVersion: 2\n  m_Quality: 0\n  m_Mesh: {skinned_mesh}\n  m_Bones: []\n"
    return doc(cls, file_id, name, body + extra)


def mono_behaviour(file_id: int, go: int) -> str:
    return doc(114, file_id, "MonoBehaviour", f"  m_ObjectHideFlags: 0\n{_NONE}  m_GameObject: {{fileID: {go}}}\n  m_Enabled: 1\n"
               f"  m_Script: {{fileID: 11500000, guid: {guid('script')}, type: 3}}\n  m_Name: \n  m_Mesh: {{fileID: 4300000, guid: {guid('not-a-mesh')}, type: 3}}\n")


def modification(target: str, path: str, value: str = "", reference: str = "{fileID: 0}") -> str:
    return f"    - target: {target}\n      propertyPath: {path}\n      value: {value}\n      objectReference: {reference}\n"


def prefab_instance(file_id: int, source_guid: str, parent: int = 0, modifications: list[str] = (),
                    removed: list[str] = (), source_type: int = 3) -> str:
    mods = "".join(modifications)
    rem = "".join(f"    - {r}\n" for r in removed)
    return doc(1001, file_id, "PrefabInstance",
               f"  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n    serializedVersion: 3\n"
               f"    m_TransformParent: {{fileID: {parent}}}\n    m_Modifications:{' []' if not modifications else ''}\n{mods}"
               f"    m_RemovedComponents:{' []' if not removed else ''}\n{rem}    m_RemovedGameObjects: []\n"
               f"    m_AddedGameObjects: []\n    m_AddedComponents: []\n"
               f"  m_SourcePrefab: {{fileID: 100100000, guid: {source_guid}, type: {source_type}}}\n")


def stripped(cls: int, file_id: int, name: str, source: str, instance: int) -> str:
    return doc(cls, file_id, name, f"  m_CorrespondingSourceObject: {source}\n  m_PrefabInstance: {{fileID: {instance}}}\n"
               "  m_PrefabAsset: {fileID: 0}\n", stripped=True)


def scene_settings(skybox: str = "{fileID: 0}") -> str:
    """The four documents every scene starts with."""
    return (doc(29, 1, "OcclusionCullingSettings", "  m_ObjectHideFlags: 0\n  serializedVersion: 2\n")
            + doc(104, 2, "RenderSettings", f"  m_ObjectHideFlags: 0\n  serializedVersion: 9\n  m_Fog: 0\n"
                  f"  m_SkyboxMaterial: {skybox}\n  m_HaloTexture: {{fileID: 0}}\n"
                  f"  m_SpotCookie: {{fileID: 10001, guid: {BUILTIN}, type: 0}}\n")
            + doc(157, 3, "LightmapSettings", "  m_ObjectHideFlags: 0\n  serializedVersion: 12\n  m_LightingDataAsset: {fileID: 0}\n")
            + doc(196, 4, "NavMeshSettings", "  serializedVersion: 2\n  m_ObjectHideFlags: 0\n  m_NavMeshData: {fileID: 0}\n"))


def texture_slot(name: str, texture: str) -> str:
    return f"    - {name}:\n        m_Texture: {texture}\n        m_Scale: {{x: 1, y: 1}}\n        m_Offset: {{x: 0, y: 0}}\n"


def material(name: str, slots: list[str], *, parent: str = "{fileID: 0}", shader: str | None = None) -> str:
    shader = shader or f"{{fileID: 4800000, guid: {guid('urp-lit')}, type: 3}}"
    return HEAD + doc(21, 2100000, "Material",
                      f"  serializedVersion: 8\n  m_ObjectHideFlags: 0\n{_NONE}  m_Name: {name}\n  m_Shader: {shader}\n"
                      f"  m_Parent: {parent}\n  m_ModifiedSerializedProperties: 0\n  m_ValidKeywords: []\n"
                      f"  m_SavedProperties:\n    serializedVersion: 3\n    m_TexEnvs:{' []' if not slots else ''}\n{''.join(slots)}"
                      "    m_Ints: []\n    m_Floats:\n    - _Cutoff: 0.5\n    m_Colors:\n    - _BaseColor: {r: 1, g: 1, b: 1, a: 1}\n"
                      "  m_BuildTextureStacks: []\n")
