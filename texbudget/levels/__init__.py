"""Levels (issue 23, docs/levels.md): what a scene file loads, followed through the files it
names. ``graph`` walks the facts of a scan from a level's scene; the engines' project indexes
turn their ids (Godot ``res://`` and ``uid://``, Unity guids) into paths."""
