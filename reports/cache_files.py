"""The files of the two caches kept in matplotlib's cache folder (:mod:`.font_subset_store`,
:mod:`.layout_store`): each file one JSON header line and its data, written whole or not at all, and pruned by
last use.

A file is written to a temporary file of the same folder (``tempfile`` makes it readable and writable by the user
only) and renamed over its name, so a reader in another process sees a whole file or none: never one half
written.  A writer killed before its rename leaves its temporary file behind; a later prune removes it once it is
older than :data:`TEMPORARY_AGE_S` (a live writer's is seconds old)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path

#: a temporary file older than this is a killed writer's (seconds)
TEMPORARY_AGE_S = 3600
TEMPORARY = ".tmp"


def write_whole(path: Path, header: dict, data: bytes) -> None:
    """``path`` holds ``header`` (as one sorted JSON line) and then ``data``, replaced in one rename; an OSError
    leaves no temporary file behind and propagates."""
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", suffix=TEMPORARY, delete=False) as file:
            tmp = file.name  # (made readable and writable by the user only)
            file.write(json.dumps(header, sort_keys=True).encode() + b"\n" + data)
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def prune(where: Path, suffix: str, kept: int, down_to: int) -> None:
    """Where more than ``kept`` files end in ``suffix``, remove the least recently used down to ``down_to`` (fewer
    than ``kept`` spares a removal at every write); and remove killed writers' temporary files."""
    with os.scandir(where) as listing:
        found = list(listing)
    files = [entry for entry in found if entry.name.endswith(suffix)]
    stale = time.time() - TEMPORARY_AGE_S
    doomed = [entry for entry in found if entry.name.endswith(TEMPORARY) and _mtime(entry) < stale]
    if len(files) > kept:
        files.sort(key=_mtime)
        doomed += files[: len(files) - down_to]
    for entry in doomed:
        with contextlib.suppress(OSError):
            os.unlink(entry.path)  # another process may have removed it first


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0
