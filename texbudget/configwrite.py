"""Writing ``[[rule]]`` tables into a config file as text (DESIGN.md §6).

The TUI keeps a what-if decision by appending one rule to texbudget.toml. The file is never
parsed and written back: every byte already there (comments, order, blank lines, a byte-order
mark, CRLF line ends) stays as it is, and the new table is appended after it. A later rule
overrides an earlier one, so an appended rule wins over what the file said before.

The write is atomic: the new text goes to a temporary file in the same folder, which then
replaces the original with ``os.replace`` (keeping its permission bits; a symbolic link is
followed so the link stays a link). Before anything is replaced the new text is parsed with
``tomllib`` and must hold the new rule as its last ``[[rule]]`` table, so a file that the
append would break (e.g. ``rule = [...]`` written as an inline array) is refused with a
``ConfigError`` and left untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from texbudget.errors import ConfigError

#: What a new texbudget.toml starts with when the TUI creates it.
HEADER = (
    "# texbudget.toml: the texbudget configuration of this folder.\n"
    "# Keys and defaults: see the texbudget README (\"Configuration\"). Later [[rule]] tables\n"
    "# override earlier ones.\n"
)

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_GLOB_SPECIAL = re.compile(r"([*?\[\]])")


def glob_escape(path: str) -> str:
    """A ``[[rule]] match`` glob that matches exactly ``path``: the glob characters ``*``,
    ``?``, ``[`` and ``]`` are each wrapped in a class (``[*]``), the way ``fnmatch`` escapes."""
    return _GLOB_SPECIAL.sub(r"[\1]", path)


def toml_value(value: object, where: str = "value") -> str:
    """One TOML value as text: a basic string, an integer, a boolean, or a list of those."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ConfigError(f"{where} {value!r}: a name that is not valid UTF-8 cannot be written to TOML") from None
        # JSON's escapes (\" \\ \n \t \uXXXX …) are a subset of TOML basic-string escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v, where) for v in value) + "]"
    raise ConfigError(f"{where} {value!r}: only strings, integers, booleans and lists can be written")


def _comment_lines(comment: str | None) -> list[str]:
    if not comment:
        return []
    return ["# " + line.rstrip() if line.strip() else "#" for line in comment.splitlines()]


def _table_name(path: Path) -> tuple[str, tuple[str, ...]]:
    """The array-of-tables header and the key path of the rules in the file."""
    if path.name == "pyproject.toml":
        return "tool.texbudget.rule", ("tool", "texbudget", "rule")
    return "rule", ("rule",)


def rule_text(rule: Mapping[str, object], comment: str | None = None, *, table: str = "rule") -> str:
    """The lines of one ``[[rule]]`` table (with ``\\n`` line ends), ``match`` first."""
    if not isinstance(rule.get("match"), str) or not rule["match"]:
        raise ConfigError("a [[rule]] needs a non-empty 'match' glob")
    lines = [*_comment_lines(comment), f"[[{table}]]"]
    for key in sorted(rule, key=lambda k: k != "match"):
        value = rule[key]
        if value is None:
            continue
        if not _BARE_KEY.match(key):
            raise ConfigError(f"[[rule]] key {key!r}: only letters, digits, '_' and '-' are written")
        lines.append(f"{key} = {toml_value(value, f'[[rule]] {key}')}")
    return "\n".join(lines) + "\n"


def _new_text(old: bytes, block: str) -> bytes:
    """``old`` with ``block`` appended after one blank line, in the file's line-end style."""
    newline = b"\r\n" if b"\r\n" in old else b"\n"
    out = bytearray(old)
    body = old[3:] if old.startswith(b"\xef\xbb\xbf") else old
    if body.strip():
        if not out.endswith(b"\n"):
            out += newline
        if not out.endswith(newline * 2) and not out.endswith(b"\n\n"):
            out += newline
    out += block.replace("\n", newline.decode()).encode("utf-8")
    return bytes(out)


def _check(text: bytes, keys: tuple[str, ...], rule: Mapping[str, object], path: Path) -> int:
    """Parse the new text; the new rule must be the last table of ``keys``. Its 1-based index."""
    try:
        data = tomllib.loads(text.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: appending the rule would not give valid TOML ({exc}); the file was not changed") from None
    node: object = data
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    expected = {k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in rule.items() if v is not None}
    if not isinstance(node, list) or not node or node[-1] != expected:
        raise ConfigError(
            f"{path}: the appended [[{'.'.join(keys)}]] would not be read back as the last rule "
            "(is 'rule' written as an inline array?); the file was not changed"
        )
    return len(node)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` through a temporary file in the same folder, keeping
    the file's permission bits (a new file gets the default ones)."""
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def append_rule(path: Path, rule: Mapping[str, object], comment: str | None = None) -> int:
    """Append ``rule`` (``{"match": ..., "format": ..., "max_size": ..., "mips": ...}``;
    ``None`` values are left out) as a ``[[rule]]`` table at the end of ``path``, with
    ``comment`` as ``#`` lines above it. A missing file is created with a header comment; in a
    ``pyproject.toml`` the table is ``[[tool.texbudget.rule]]``. Returns the rule's 1-based
    position among the file's rules (what ``policy`` calls "rule N"). Raises ConfigError when
    the file cannot be read or written or the result would not read back."""
    path = Path(path)
    table, keys = _table_name(path)
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        old = HEADER.encode("utf-8") if table == "rule" else b""
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    new = _new_text(old, rule_text(rule, comment, table=table))
    index = _check(new, keys, rule, path)
    try:
        write_atomic(path, new)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return index
