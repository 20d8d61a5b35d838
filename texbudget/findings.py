"""Every finding code texbudget emits, in one table (code, severity, meaning, what to do).

``make(path, code, message)`` is the only way findings are built, so every code used in the
code base is documented here; ``tests/unit/test_findings.py`` keeps the table and the README
in step. Ranges: TB001–TB009 discovery and general, TB010–TB019 texture policy and deep scan,
TB020–TB039 `check` limits and budgets, TB040–TB069 texture readers, TB070–TB099 glTF and
mesh readers.
"""

from __future__ import annotations

from dataclasses import dataclass

from texbudget.model import Finding, Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: Severity
    meaning: str
    hint: str


_TABLE: tuple[Code, ...] = (
    # --- discovery and general (TB001–TB009)
    Code("TB001", E, "The file or folder could not be read (permission, I/O error).", "Check the file's permissions, or exclude it in [scan] exclude."),
    Code("TB002", I, "Not a file type texbudget reads.", "Nothing to do; exclude it in [scan] exclude to silence this."),
    Code("TB003", W, "The file's content does not match its suffix (e.g. a JPEG saved as .png); it was read as what it is.", "Rename the file to its real type, or re-export it."),
    Code("TB004", W, "A symbolic link loops or leaves the scan root; it was not followed.", "Remove the link or point it inside the scan root."),
    Code("TB005", W, "The file changed or vanished while it was being scanned.", "Scan again once the files are settled."),
    Code("TB009", E, "texbudget failed on this file (an internal error); the scan went on.", "Please report it with the file attached."),
    # --- texture policy and deep scan (TB010–TB019)
    # --- check limits and budgets (TB020–TB039)
    # --- texture readers (TB040–TB069)
    Code("TB040", E, "The file is empty (0 bytes).", "An empty file is usually a failed save or copy; re-export it or delete it."),
    Code("TB041", E, "The file does not start with its format's signature (wrong magic), or is no image of the type its name says.", "Check that the file really is what its suffix says; re-export it."),
    Code("TB042", E, "The file ends inside its header.", "The file is cut short (a failed copy, download or export); re-export it."),
    Code("TB043", E, "The file is shorter than the pixel data its header describes; the message says how many bytes are missing.", "The file is cut short; re-export it. Engines reject or mis-load such files."),
    Code("TB044", E, "The header gives a zero width, height or depth.", "The header is corrupt or the export failed; re-export the file."),
    Code("TB045", E, "The header gives dimensions or counts beyond any GPU's limits (more than 65536 texels on a side, or more than 65536 layers).", "The header is probably corrupt; re-export the file, or split the image."),
    Code("TB046", E, "The pixel format is unknown or not supported; the message names the code.", "Re-export in a standard format (BC1–BC7, ASTC, ETC2, RGBA8, RGBA16F, …), or report the format code."),
    Code("TB047", E, "The file claims more mip levels than its dimensions allow (floor(log2(max dim)) + 1).", "Re-export the file with a correct mip chain."),
    Code("TB048", E, "A cubemap is incomplete or malformed: fewer than six faces, a face count other than 1 or 6, or non-square faces.", "Export all six faces, square, or export a 2D texture."),
    Code("TB049", E, "The array size is invalid (0 where at least 1 is required).", "Re-export the file; a texture array needs at least one layer."),
    Code("TB050", E, "A level in the level index lies outside the file.", "The file is cut short or its level index is corrupt; re-export it."),
    Code("TB051", E, "Levels in the level index overlap each other.", "The level index is corrupt; re-export the file."),
    Code("TB052", W, "The supercompression scheme is unknown to texbudget; the texture is still reported from its header.", "Check the sizes by hand, or re-encode with a standard scheme (none, BasisLZ, Zstandard, ZLIB)."),
    Code("TB053", W, "A level's stored byte length disagrees with the size its format and dimensions give; texbudget uses the computed size.", "The writer may pad or be buggy; re-export the file with a current tool."),
    Code("TB054", E, "A header field is invalid: a wrong header size, a malformed attribute or resolution line, a data format descriptor outside the file.", "The header is corrupt or non-standard; re-export the file."),
    Code("TB055", W, "The header breaks its format's rules, but the texture could still be read.", "Re-export the file with a current tool so every engine accepts it."),
    Code("TB056", W, "Only the first part of a multi-part OpenEXR file was read.", "Sizes cover the first part only; split the parts into separate files to size each."),
    # --- glTF and mesh readers (TB070–TB099)
)

CODES: dict[str, Code] = {c.code: c for c in _TABLE}


def make(path: str, code: str, message: str, hint: str | None = None) -> Finding:
    """A Finding with the table's severity and (unless given) its hint."""
    entry = CODES[code]
    return Finding(path, code, entry.severity, message, entry.hint if hint is None else hint)


def table() -> tuple[Code, ...]:
    return tuple(sorted(_TABLE, key=lambda c: c.code))
