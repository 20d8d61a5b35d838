"""Exceptions for usage, configuration and internal faults, and the exit codes (DESIGN.md §4).

A bad *file* is never an exception: it is a Finding (texbudget/findings.py).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    VIOLATIONS = 1  # `check`: a rule or budget was broken
    USAGE = 2  # bad flag, config, path or value
    INTERNAL = 3  # a bug in texbudget (a traceback is printed)
    INTERRUPTED = 130


class TexbudgetError(Exception):
    """Base class; ``cli.main`` turns it into one ``texbudget: error: …`` line."""

    exit_code = ExitCode.USAGE


class UsageError(TexbudgetError):
    """A flag, argument or path the user gave is wrong."""


class ConfigError(TexbudgetError):
    """texbudget.toml (or [tool.texbudget]) is wrong: the message names file, key and what is allowed."""
