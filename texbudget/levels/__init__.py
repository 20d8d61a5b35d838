"""Levels (docs/levels.md): what a scene file loads, followed through the project's ids.

The engine project indexes live here, one module an engine (``unity``: the guid map of a Unity
project's ``.meta`` files); each turns the ids its engine's readers write into paths relative
to the scan root.
"""
