"""What each texture becomes on the GPU, and why (DESIGN.md §1 "decide" and "price";
docs/policy.md).

Import the module you need; this package imports none of them (docs/decisions.md, "Modules
along their seams"):

- ``policy.profiles``: ``Profile``, ``load_platforms``, ``PolicySettings``, ``ROLES``,
  ``QUALITY_TIERS``;
- ``policy.rules``: ``Rule`` and the glob semantics (``[[rule]]`` tables are checked and made
  into rules by ``config.parse_rules``, with the rest of the config);
- ``policy.naming``: ``role_from_name``, ``role_from_header``, ``NAME_SUFFIXES``,
  ``UI_FOLDERS``;
- ``policy.decision``: ``decide``, ``decide_all``, ``content_role``, ``price``, and what
  Godot and Unity would make of a texture (``unity_automatic``).

What an engine sidecar says (``EngineImport``, ``UnityPlatform``, the Godot and Unity tables)
is in ``texbudget.engine``; reading it, ``read_engine_import``, in ``texbudget.readers.sidecars``.
"""
