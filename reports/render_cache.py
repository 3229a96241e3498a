"""The work a PDF report repeats, done once a process: matplotlib's mathtext layouts, shared by every page and report.

matplotlib caches a parsed mathtext string (``MathTextParser._parse_cached``, an LRU of 50) per *parser*, and every
figure's renderer makes a parser of its own: a check's claim, formula and source lines, typeset on one page and
measured on another, were parsed (pyparsing, about 10 ms a line) once per page and again in every report of the
process.  While :func:`shared_mathtext` is active the layouts are kept in one cache keyed by what a layout depends
on -- the parser's output type, the string, the dpi, the font properties, the remaining arguments matplotlib passes
(antialiasing, the glyph loading flags) and the rc settings the parse reads (``mathtext.*``, ``text.*``,
``font.*``) -- so each distinct string is parsed once a process.  A layout is a pure function of that key (the
parser's own cache shares it between calls just so), hence the PDF's bytes do not change.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Iterator

#: rc settings a mathtext layout may read (the fonts, their hinting and fallback)
_RC_PREFIXES = ("mathtext.", "text.", "font.")
#: layouts kept (a report has about a hundred distinct strings; the suite's processes a few thousand)
CACHE_SIZE = 4096

_active = 0  # nesting depth of shared_mathtext (a report may render another's pages)
_original: Any = None  # MathTextParser._parse_cached as matplotlib defines it, while patched
_parsers: dict[str, Any] = {}  # one parser per output type, the one that parses for every other


def _rc_key() -> tuple:
    import matplotlib

    return tuple(
        (name, tuple(value) if isinstance(value, list) else value)
        for name, value in matplotlib.rcParams.items()
        if name.startswith(_RC_PREFIXES)
    )


@functools.lru_cache(maxsize=CACHE_SIZE)
def _layout(output_type: str, s: str, dpi: float, prop, rest: tuple, rc: tuple):
    """The layout of ``s``: parsed by the first parser seen of ``output_type`` with matplotlib's uncached parse
    (``rc`` is only part of the key: the parse reads the same settings from matplotlib itself)."""
    parser = _parsers[output_type]
    return _original.__wrapped__(parser, s, dpi, prop, *rest)


def _parse_shared(self, s, dpi, prop, *rest):
    output_type = getattr(self, "_output_type", None)
    if output_type is None:  # a parser of another shape: matplotlib's own cache
        return _original(self, s, dpi, prop, *rest)
    _parsers.setdefault(output_type, self)
    return _layout(output_type, s, dpi, prop, rest, _rc_key())


@contextlib.contextmanager
def shared_mathtext() -> Iterator[None]:
    """Within this context every mathtext parser of the process shares one cache (see the module's docstring);
    matplotlib's own method is restored on leaving.  Without the cached method this matplotlib does not have,
    nothing is changed."""
    global _active, _original
    from matplotlib.mathtext import MathTextParser

    if _active == 0:
        method = MathTextParser.__dict__.get("_parse_cached")
        if method is None or not hasattr(method, "__wrapped__"):
            yield
            return
        _original = method
        setattr(MathTextParser, "_parse_cached", _parse_shared)  # private: not in its type stubs
    _active += 1
    try:
        yield
    finally:
        _active -= 1
        if _active == 0:
            setattr(MathTextParser, "_parse_cached", _original)
