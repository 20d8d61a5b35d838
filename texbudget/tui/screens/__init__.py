"""The TUI's screens: main, asset, help and the pickers."""
