"""The budget: costs + scenario + cards → verdicts, and the cheapest changes that make it fit.

Pure (no I/O except reading the shipped ``data/cards.toml`` and, for the fixes' compression
family, ``data/platforms.toml`` once each, cached). DESIGN.md §1 "assess"; facts in
spec/cards.md and spec/textures.md §5–§6; the rules in docs/budget.md.

Import the module you need; this package imports none of them (docs/decisions.md, "Modules
along their seams"):

- ``budget.cards``: ``Card``, the card table (``load_cards``, ``parse_cards``),
  ``resolve_cards``, ``card_budget``, ``verdict_of``;
- ``budget.settings``: ``BudgetSettings``, ``settings_from_config``, ``fix_family_for``,
  ``scenarios``, ``cards_for``;
- ``budget.inputs``: ``BudgetInputs``, ``price_plan``, ``resident_floor_bytes``,
  ``AccelerationSummary``, ``summarize_acceleration``;
- ``budget.assessment``: ``assess``, ``assess_all``, ``budget_findings``;
- ``budget.changes``: the changes a fix can make (tiers, ``apply_change``) and the texture
  states the search works on;
- ``budget.fixes``: the fix search and ``apply_fixes``.
"""
