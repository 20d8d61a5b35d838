"""The TUI's widgets. They format values from the report; they never compute bytes or open files."""
