"""The work PDF reports repeat, done once a process: mathtext layouts, text sizes, font subsets (:func:`shared`).

matplotlib caches a parsed mathtext string (``MathTextParser._parse_cached``, an LRU of 50) per *parser*, and every
figure's renderer makes a parser of its own: a check's claim, formula and source lines, typeset on one page and
measured on another, were parsed (pyparsing) once per page and again in every report of the
process.  While :func:`shared_mathtext` is active the layouts are kept in one cache keyed by what a layout depends
on -- the parser's output type, the string, the dpi, the font properties, the remaining arguments matplotlib passes
(antialiasing, the glyph loading flags) and the rc settings the parse reads (``mathtext.*``, ``text.*``,
``font.*``) -- so each distinct string is parsed once a process.  A layout is a pure function of that key (the
parser's own cache shares it between calls just so), hence the PDF's bytes do not change.

At its close a PDF embeds the glyphs it drew of each font as a subset of the font file (fontTools: the whole file's
tables read and pruned, once per font and PDF).  While :func:`shared_subsets` is active a subset's bytes and glyph
map are kept, keyed by the file, its face and the set of glyphs, so a report whose fonts draw the glyphs of an
earlier one (the same report again, a report of the same audit) embeds them without subsetting; the options are
matplotlib's own, fixed in its code, so the bytes are the ones it would write.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Iterator, cast

#: rc settings a mathtext layout or a PDF text's size may read (the fonts, their hinting and fallback, font types)
_RC_PREFIXES = ("mathtext.", "text.", "font.", "pdf.")
#: layouts kept (a report has about a hundred distinct strings; the suite's processes a few thousand)
CACHE_SIZE = 4096

#: font subsets kept (a report embeds about ten; each is some tens of kilobytes)
SUBSETS_KEPT = 128

_active = 0  # nesting depth of shared_mathtext (a report may render another's pages)
_original: Any = None  # MathTextParser._parse_cached as matplotlib defines it, while patched
_parsers: dict[str, Any] = {}  # one parser per output type, the one that parses for every other


_rc_names: tuple[str, ...] = ()  # the rc settings of _RC_PREFIXES (matplotlib's set of names is fixed)


def _rc_key() -> tuple:
    """The values of the rc settings a layout or a text's size may read, hashable.  Read as a plain dict's items:
    ``RcParams.__getitem__`` (validation, deprecations) made it several times as costly as the parse it spares."""
    global _rc_names
    import matplotlib

    rc = matplotlib.rcParams
    if not _rc_names:
        _rc_names = tuple(name for name in rc if name.startswith(_RC_PREFIXES))
    plain = cast("dict[str, Any]", rc) if isinstance(rc, dict) else dict(rc)
    values = [dict.__getitem__(plain, name) for name in _rc_names]
    return tuple(tuple(value) if isinstance(value, list) else value for value in values)


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


_subsets_active = 0  # nesting depth of shared_subsets
_original_subset: Any = None  # _backend_pdf_ps.get_glyphs_subset as matplotlib defines it, while patched
_subsets: dict[tuple, tuple[bytes, dict]] = {}  # (file, face, glyphs) -> (the subset's bytes, its glyph map)


class _SavedFont:
    """A subset already written: what matplotlib's PDF writer asks of the subset's font (``font_as_file`` saves it;
    the subset's context closes it)."""

    def __init__(self, data: bytes):
        self.data = data

    def save(self, file, reorderTables=False) -> None:  # noqa: N803 (fontTools' keyword)
        file.write(self.data)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _subset_shared(fontfile, glyphs):
    from matplotlib.backends import _backend_pdf_ps

    glyphs = frozenset(glyphs)
    key = (str(fontfile), getattr(fontfile, "face_index", 0), glyphs)
    if key not in _subsets:
        with _original_subset(fontfile, glyphs) as subset:
            _subsets[key] = (_backend_pdf_ps.font_as_file(subset.font).getvalue(), dict(subset.glyph_index_map))
        while len(_subsets) > SUBSETS_KEPT:  # the oldest first
            del _subsets[next(iter(_subsets))]
    data, glyph_map = _subsets[key]
    return _backend_pdf_ps.SubsetResults(_SavedFont(data), dict(glyph_map))._as_cm()


@contextlib.contextmanager
def shared_subsets() -> Iterator[None]:
    """Within this context a font subset matplotlib embedded before is embedded again from its bytes (see the
    module's docstring); matplotlib's function is restored on leaving.  A matplotlib whose subsetting returns
    something else (before 3.11) is left as it is."""
    global _subsets_active, _original_subset
    from matplotlib.backends import _backend_pdf_ps

    if _subsets_active == 0:
        if not hasattr(_backend_pdf_ps, "SubsetResults") or not hasattr(_backend_pdf_ps, "font_as_file"):
            yield
            return
        _original_subset = _backend_pdf_ps.get_glyphs_subset
        _backend_pdf_ps.get_glyphs_subset = _subset_shared
    _subsets_active += 1
    try:
        yield
    finally:
        _subsets_active -= 1
        if _subsets_active == 0:
            _backend_pdf_ps.get_glyphs_subset = _original_subset


_metrics_active = 0  # nesting depth of shared_text_metrics
_original_metrics: Any = None  # matplotlib.text._get_text_metrics_with_cache, while patched
_metrics: dict[tuple, tuple] = {}  # (text, font properties, ismath, dpi, rc) -> (width, height, descent)


def _metrics_shared(renderer, text, fontprop, ismath, dpi):
    from matplotlib.backends.backend_pdf import RendererPdf

    if type(renderer) is not RendererPdf or ismath == "TeX":  # another renderer's sizes depend on it
        return _original_metrics(renderer, text, fontprop, ismath, dpi)
    fontprop = fontprop.copy()  # (mutable: a later change must not reach the key)
    key = (text, fontprop, ismath, dpi, _rc_key())
    if key not in _metrics:
        _metrics[key] = renderer.get_text_width_height_descent(text, fontprop, ismath)
        while len(_metrics) > CACHE_SIZE:  # the oldest first
            del _metrics[next(iter(_metrics))]
    return _metrics[key]


@contextlib.contextmanager
def shared_text_metrics() -> Iterator[None]:
    """Within this context a PDF renderer's text sizes are shared by every page and report of the process.
    matplotlib keeps them per renderer, and a page is a renderer of its own: the tick labels, titles and lines of
    each page were laid out again (FreeType and libraqm) to be measured.  A PDF renderer's sizes depend only on the
    text, its font properties, the dpi and the rc settings (its fonts are the process's, at 72 dpi), so the bytes do
    not change; other renderers and TeX keep matplotlib's cache.  Restored on leaving; a matplotlib without the
    function is left as it is."""
    global _metrics_active, _original_metrics
    import matplotlib.text

    if _metrics_active == 0:
        if not hasattr(matplotlib.text, "_get_text_metrics_with_cache"):
            yield
            return
        _original_metrics = getattr(matplotlib.text, "_get_text_metrics_with_cache")
        setattr(matplotlib.text, "_get_text_metrics_with_cache", _metrics_shared)  # private: not in its stubs
    _metrics_active += 1
    try:
        yield
    finally:
        _metrics_active -= 1
        if _metrics_active == 0:
            setattr(matplotlib.text, "_get_text_metrics_with_cache", _original_metrics)


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """All three: the mathtext layouts (:func:`shared_mathtext`), the PDF text sizes (:func:`shared_text_metrics`)
    and the font subsets (:func:`shared_subsets`)."""
    with shared_mathtext(), shared_text_metrics(), shared_subsets():
        yield
