"""Font subsets kept on disk, in matplotlib's cache folder, so that a fresh process embeds them without subsetting.

A PDF embeds the glyphs it drew of each font as a subset of the font file (fontTools reads and prunes every table
of the file: about a twentieth of a CPU second a font, half a second for a report's ten, paid again by every process
that writes its first report -- each command, each worker of a test run).  The subset is a pure function of the
font file's bytes, its face, the set of glyphs and the code that subsets (matplotlib's options, fixed in its code;
fontTools); it reads no rc setting.  An entry is keyed by all of them: matplotlib's and fontTools' versions, the
font file's SHA-256 (its bytes, wherever it lies: the same font of another environment shares the entries; hashed
once a process for a given path, size and modification time), the face and the sorted glyph indices.  The key is
stored in the entry and compared whole on reading, and the subset's bytes with their SHA-256, so that a partial,
corrupt or foreign entry is read as no entry (and written again).

Entries are written to a temporary file beside them and renamed over (``os.replace``): a concurrent reader sees the
whole old entry, the whole new one or none; two writers of one key write the same bytes.  The folder is
``pdp-audit-font-subsets`` in :func:`matplotlib.get_cachedir` (never the working folder); it keeps the
:data:`ENTRIES_KEPT` entries last used (by modification time, renewed on use).  Any OSError (a read-only or full
disk) leaves the report to subset as matplotlib would: the store only ever saves work.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from pdp_audit.reports.cache_files import prune, write_whole

#: the entry format (a change makes every older entry a miss)
FORMAT = 1
#: entries kept (a report writes about ten, of some tens of kilobytes; the test suite some hundreds)
ENTRIES_KEPT = 2000
_SUFFIX = ".subset"


def folder() -> Path:
    """Where the entries are: a folder of matplotlib's cache folder (the user's cache, ``MPLCONFIGDIR`` or the
    temporary folder matplotlib falls back to)."""
    import matplotlib

    return Path(matplotlib.get_cachedir()) / "pdp-audit-font-subsets"


@functools.lru_cache(maxsize=64)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    """The SHA-256 of a font file (once a process for a given size and modification time)."""
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def _key(fontfile, glyphs) -> dict:
    """Everything a subset's bytes depend on (see the module's docstring)."""
    import fontTools
    import matplotlib

    path = str(fontfile)  # (matplotlib's FontPath is a str with a face index)
    stat = os.stat(path)
    return {
        "format": FORMAT,
        "matplotlib": matplotlib.__version__,
        "fontTools": fontTools.version,
        "font_sha256": _file_digest(path, stat.st_size, stat.st_mtime_ns),
        "face": int(getattr(fontfile, "face_index", 0)),
        "glyphs": sorted(int(glyph) for glyph in glyphs),
    }


def _entry(key: dict) -> Path:
    name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return folder() / (name + _SUFFIX)


def read(fontfile, glyphs) -> tuple[bytes, dict[int, int]] | None:
    """The subset's bytes and glyph map kept for ``glyphs`` of ``fontfile``, or None (no entry, another key, an
    entry cut short or damaged, an unreadable folder)."""
    try:
        key = _key(fontfile, glyphs)
        path = _entry(key)
        blob = path.read_bytes()
        head, _, data = blob.partition(b"\n")
        header = json.loads(head)
        if header.get("key") != key or len(data) != header["bytes"]:
            return None
        if hashlib.sha256(data).hexdigest() != header["sha256"]:
            return None
        glyph_map = {int(a): int(b) for a, b in header["map"]}
        os.utime(path)  # used: kept the longer
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data, glyph_map


def write(fontfile, glyphs, data: bytes, glyph_map: dict) -> None:
    """Keep a subset (see :func:`read`); silently nothing where the folder cannot be written."""
    try:
        key = _key(fontfile, glyphs)
        path = _entry(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "key": key,
            "map": sorted([int(a), int(b)] for a, b in glyph_map.items()),
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        write_whole(path, header, data)
        prune(path.parent, _SUFFIX, ENTRIES_KEPT, ENTRIES_KEPT * 3 // 4)
    except (OSError, ValueError):
        pass
