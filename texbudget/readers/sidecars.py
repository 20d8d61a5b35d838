"""The engine sidecar beside a texture (the one I/O of the policy's inputs):
``read_engine_import`` reads a Godot ``<file>.import`` (``readers.godot``) or a Unity
``<file>.meta`` (``readers.unity``) into a ``texbudget.engine.EngineImport``. The readers are
imported when a sidecar is there: most textures have none.
"""

from __future__ import annotations

from pathlib import Path

from texbudget.engine import EngineImport
from texbudget.model import Finding


def read_engine_import(texture_abspath: Path, rel: str | None = None) -> EngineImport | Finding | None:
    """The Godot ``<file>.import`` or Unity ``<file>.meta`` beside a texture: an EngineImport,
    a Finding when the sidecar exists but cannot be used, or None when there is none.
    ``rel`` (the texture's path relative to the scan root) names the sidecar in findings."""
    from texbudget.readers import godot, unity

    godot_path = texture_abspath.with_name(texture_abspath.name + ".import")
    if godot_path.is_file():
        return godot.read_godot_import(godot_path, (rel + ".import") if rel else None)
    unity_path = texture_abspath.with_name(texture_abspath.name + ".meta")
    if unity_path.is_file():
        return unity.read_unity_meta(unity_path, (rel + ".meta") if rel else None)
    return None
