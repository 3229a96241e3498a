"""Text sizes and mathtext layouts kept on disk, in matplotlib's cache folder, so that a fresh process's first report
measures and typesets only the texts no earlier process did.

A PDF page's text is measured (FreeType and libraqm lay it out) and its mathtext parsed (pyparsing) in every process
again: a third to half a CPU second of a fresh process's first report (each command, each worker of a test run;
:mod:`pdp_audit.reports.render_cache` shares them only within a process).  A PDF renderer's text size is a pure
function of the text, its font properties, whether it is mathtext, the dpi, the rc settings the renderer reads
(``font.*``, ``text.*``, ``mathtext.*``, ``pdf.*``), the font files a family resolves to and the code that measures
(matplotlib, FreeType); a vector mathtext layout (``MathTextParser("path")``: what the PDF backend draws) likewise
of the string, dpi, font properties, antialiasing and glyph-loading flags.

Entries are grouped in one file a *context*: matplotlib's and FreeType's versions, the values of those rc settings
and the fonts matplotlib knows (every font file's path, size and modification time: a font added, removed or
rewritten is another context).  The context is stored in the file and compared whole on reading, and the entries with
their SHA-256, so a partial, damaged or foreign file is no file.  An entry's key is the text (or string), the
font properties as matplotlib compares them (family, style, variant, weight, stretch, size, file, math font family),
the dpi and the other arguments; a layout's glyph fonts are stored as their files and faces, and read back through
matplotlib's own font cache.  Values are stored as JSON numbers, which read back as the same doubles: the PDF's
bytes are the same cold or warm (tests/test_layout_store.py).

A process reads a context's file once, at its first miss; what it adds is written when its first report closes,
then in batches and at its exit (:func:`flush`): the file read again, merged, written to a temporary file beside it
(readable by the user only) and renamed over (``os.replace``), so a concurrent reader sees a whole file; two writers
at once may drop the other's new entries (a later miss measures them again), never mix them.  The folder is
``pdp-audit-text-layouts`` in :func:`matplotlib.get_cachedir`; it keeps the :data:`FILES_KEPT` contexts last used,
each at most :data:`ENTRIES_KEPT` entries.  Any OSError (a read-only or full disk) leaves the report to measure as
matplotlib would: the store only ever saves work.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from pdp_audit.reports.cache_files import prune, write_whole

#: the file format (a change makes every older file a miss)
FORMAT = 1
#: context files kept (one for each set of rc settings and fonts a user's processes draw with)
FILES_KEPT = 16
#: entries a file keeps (a report measures some hundreds of texts; each entry some hundred bytes, a layout a kilobyte)
ENTRIES_KEPT = 8000
#: after a process's first flush, entries waiting before the next one writes (see :func:`flush`)
FLUSH_FROM = 500
_SUFFIX = ".layouts"

_lock = threading.RLock()
_read: dict[str, dict[str, Any]] = {}  # a context file's name -> its entries (read once a process)
_added: dict[str, dict[str, Any]] = {}  # a context file's name -> the entries this process added since its flush
_contexts: dict[tuple, tuple[str, dict]] = {}  # the in-memory rc key -> (its file's name, its context)
_contexts_written: dict[str, dict] = {}  # a file name -> its context, for the files with entries to write
_flushes = 0  # the flushes that wrote, this process
_at_exit = False  # whether the last flush is registered to run at the process's exit


def folder() -> Path:
    """Where the files are: a folder of matplotlib's cache folder (``MPLCONFIGDIR``, the user's cache or the
    temporary folder matplotlib falls back to)."""
    import matplotlib

    return Path(matplotlib.get_cachedir()) / "pdp-audit-text-layouts"


@functools.lru_cache(maxsize=8)
def _fonts_digest(fonts_id: int, ttf: int, afm: int) -> str:
    """The SHA-256 of every font file matplotlib knows, by path, size and modification time (once a process for a
    font list; a missing file counts as such)."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    listed = []
    for entry in [*manager.ttflist, *manager.afmlist]:
        try:
            stat = os.stat(entry.fname)
            listed.append((str(entry.fname), stat.st_size, stat.st_mtime_ns))
        except OSError:
            listed.append((str(entry.fname), -1, -1))
    return hashlib.sha256(json.dumps(sorted(listed)).encode()).hexdigest()


def context(rc_names: tuple[str, ...], rc_key: tuple) -> tuple[str, dict]:
    """The file name and context of the rc settings ``rc_key`` (render_cache's key: the values of ``rc_names``,
    then the font list's identity)."""
    with _lock:
        known = _contexts.get(rc_key)
    if known is not None:
        return known
    import matplotlib
    from matplotlib import ft2font

    fonts = rc_key[-1]
    found = {
        "format": FORMAT,
        "matplotlib": matplotlib.__version__,
        "freetype": ft2font.__freetype_version__,
        "rc": repr(list(zip(rc_names, rc_key[:-1]))),
        "fonts": _fonts_digest(*fonts),
    }
    name = hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()[:40] + _SUFFIX
    with _lock:
        if len(_contexts) > 64:
            _contexts.clear()
        _contexts[rc_key] = (name, found)
    return name, found


def font_key(prop) -> list:
    """A FontProperties as matplotlib compares them (``FontProperties.__hash__``)."""
    return [
        list(prop.get_family()), prop.get_slant(), prop.get_variant(), prop.get_weight(), prop.get_stretch(),
        prop.get_size(), None if prop.get_file() is None else str(prop.get_file()), prop.get_math_fontfamily(),
    ]


def get(where: tuple[str, dict], key: list) -> Any:
    """The value kept for ``key`` in the context ``where`` (see :func:`context`), or None."""
    name, found = where
    text = _key_text(key)
    if text is None:
        return None
    with _lock:
        if name not in _read:
            _read[name] = _load(name, found)
        value = _read[name].get(text)
        if value is None:
            value = _added.get(name, {}).get(text)
    return value


def put(where: tuple[str, dict], key: list, value: Any) -> None:
    """Keep ``value`` (JSON numbers, strings, lists) for ``key``, written by a later :func:`flush` (at the latest
    when the process exits)."""
    global _at_exit
    text = _key_text(key)
    if text is None:
        return
    with _lock:
        if not _at_exit:
            atexit.register(flush, force=True)
            _at_exit = True
        _added.setdefault(where[0], {})[text] = value
        _contexts_written[where[0]] = where[1]


def _key_text(key: list) -> str | None:
    """The key as the file keeps it; None for one JSON cannot state exactly (an object of another kind: not kept)."""
    try:
        return json.dumps(key, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _load(name: str, found: dict) -> dict[str, Any]:
    """A context file's entries: empty where it is missing, partial, damaged, of another context or unreadable."""
    try:
        blob = (folder() / name).read_bytes()
        head, _, data = blob.partition(b"\n")
        header = json.loads(head)
        if header.get("context") != found or hashlib.sha256(data).hexdigest() != header["sha256"]:
            return {}
        entries = json.loads(data)
        if not isinstance(entries, dict):
            return {}
        os.utime(folder() / name)  # used: kept the longer
        return entries
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def flush(force: bool = False) -> None:
    """Write the entries added since the last flush into their context's file (merged with what another process
    wrote meanwhile); silently nothing where the folder cannot be written.  A process writes at its first flush
    (its first report: what a fresh process needs soonest), later only once :data:`FLUSH_FROM` entries wait, and
    what is left at its exit: rewriting the file at every report of a long-lived process (a test worker) cost more
    than the sizes it kept."""
    global _flushes
    with _lock:
        waiting = sum(len(entries) for entries in _added.values())
        if not waiting or (_flushes and waiting < FLUSH_FROM and not force):
            return
        _flushes += 1
        pending = {name: entries for name, entries in _added.items() if entries}
        _added.clear()
        for name, entries in pending.items():
            _read.setdefault(name, {}).update(entries)
            _write(name, _contexts_written[name], entries)


def _write(name: str, found: dict, entries: dict[str, Any]) -> None:
    try:
        where = folder()
        where.mkdir(parents=True, exist_ok=True)
        merged = {**_load(name, found), **entries}
        if len(merged) > ENTRIES_KEPT:  # the earliest first: this process's entries are the last
            merged = dict(list(merged.items())[-ENTRIES_KEPT:])
        data = json.dumps(merged).encode()
        header = {"context": found, "sha256": hashlib.sha256(data).hexdigest()}
        write_whole(where / name, header, data)
        prune(where, _SUFFIX, FILES_KEPT, FILES_KEPT)
    except (OSError, ValueError):
        pass


def forget() -> None:
    """Drop what this process read and added (tests: a fresh process's view of the folder)."""
    global _flushes
    with _lock:
        _flushes = 0
        _read.clear()
        _added.clear()
        _contexts.clear()
        _contexts_written.clear()
