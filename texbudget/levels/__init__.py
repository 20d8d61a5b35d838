"""Levels (issue 23, docs/levels.md): what a scene file loads, resolved through an engine's
project index (``godot.GodotIndex`` for Godot projects)."""
