"""The Textual terminal UI (DESIGN.md §1 "present"). Only this package imports Textual."""
