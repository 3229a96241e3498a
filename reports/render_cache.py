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
matplotlib's own, fixed in its code, so the bytes are the ones it would write; a subset not in memory is looked up in,
and written to, the disk store of :mod:`pdp_audit.reports.font_subset_store`, which a fresh process reads.

A PDF text's size and a vector mathtext layout not in memory are looked up in, and written to, the disk store of
:mod:`pdp_audit.reports.layout_store` (flushed when :func:`shared` closes), which a fresh process reads.

The functions are matplotlib's, patched while any context is open in any thread; the contexts and the caches are
counted and changed under one lock, since a report may be drawn from another thread.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import threading
from typing import Any, Callable, Iterator, cast

from pdp_audit.reports import font_subset_store, layout_store

#: rc settings a mathtext layout or a PDF text's size may read (the fonts, their hinting and fallback, font types)
_RC_PREFIXES = ("mathtext.", "text.", "font.", "pdf.")
#: layouts kept (a report has about a hundred distinct strings; the suite's processes a few thousand)
CACHE_SIZE = 4096

#: font subsets kept (a report embeds about ten; each is some tens of kilobytes)
SUBSETS_KEPT = 128

_lock = threading.RLock()  # the patches' depths and the caches: a report may be rendered from another thread
_depths: dict[str, int] = {}  # a patched function's name -> how many contexts hold it (the patch lives while > 0)
_originals: dict[str, Any] = {}  # a patched function's name -> matplotlib's own (kept: a call may still be under way)
_parsers: dict[str, Any] = {}  # one parser per output type, the one that parses for every other


@contextlib.contextmanager
def _patched(owner: Any, name: str, replacement: Any, usable: Callable[[Any], bool]) -> Iterator[None]:
    """``owner.name`` is ``replacement`` while any context of this name is open, in any thread (a report may render
    another's pages, two threads two reports): the first to open patches it, the last to close gives matplotlib's
    own back, the count kept under a lock.  Where ``usable(own)`` is false (another matplotlib) nothing changes."""
    with _lock:
        depth = _depths.get(name, 0)
        held = depth > 0 or usable(vars(owner).get(name))
        if held and depth == 0:
            _originals[name] = vars(owner)[name]
            setattr(owner, name, replacement)
        if held:
            _depths[name] = depth + 1
    if not held:
        yield
        return
    try:
        yield
    finally:
        with _lock:
            _depths[name] -= 1
            if _depths[name] == 0:
                setattr(owner, name, _originals[name])


_rc_names: tuple[str, ...] = ()  # the rc settings of _RC_PREFIXES (matplotlib's set of names is fixed)


def _rc_key() -> tuple:
    """The values of the rc settings a layout or a text's size may read, hashable, and the fonts the process knows
    (a font added with ``fontManager.addfont`` may change the file a family resolves to).  Read as a plain dict's
    items: ``RcParams.__getitem__`` (validation, deprecations) made it several times as costly as the parse it
    spares."""
    global _rc_names
    import matplotlib
    from matplotlib import font_manager

    rc = matplotlib.rcParams
    if not _rc_names:
        _rc_names = tuple(name for name in rc if name.startswith(_RC_PREFIXES))
    plain = cast("dict[str, Any]", rc) if isinstance(rc, dict) else dict(rc)
    values = [dict.__getitem__(plain, name) for name in _rc_names]
    fonts = font_manager.fontManager
    return (
        *(tuple(value) if isinstance(value, list) else value for value in values),
        (id(fonts), len(fonts.ttflist), len(fonts.afmlist)),
    )


@functools.lru_cache(maxsize=CACHE_SIZE)
def _layout(output_type: str, s: str, dpi: float, prop, rest: tuple, rc: tuple):
    """The layout of ``s``: parsed by the first parser seen of ``output_type`` with matplotlib's uncached parse
    (``rc`` is only part of the key: the parse reads the same settings from matplotlib itself)."""
    parser = _parsers[output_type]
    stored = _stored_layout(output_type, s, dpi, prop, rest, rc)
    if stored is not None:
        where, key, layout = stored
        if layout is not None:
            return layout
    layout = _originals["_parse_cached"].__wrapped__(parser, s, dpi, prop, *rest)
    if stored is not None:
        layout_store.put(where, key, _layout_to_json(layout))
    return layout


def _stored_layout(output_type: str, s: str, dpi: float, prop, rest: tuple, rc: tuple):
    """(context, key, the layout kept on disk or None) of a vector layout (what a PDF draws); None for another
    output type or arguments the store cannot key."""
    plain = [r.value if isinstance(r, enum.Enum) else r for r in rest]  # (the glyph flags: an enum.Flag)
    if output_type != "vector" or prop is None or not all(isinstance(r, (bool, int)) for r in plain):
        return None
    where = layout_store.context(_rc_names, rc)
    key = ["layout", s, float(dpi), layout_store.font_key(prop), [type(r).__name__ for r in rest], plain]
    kept = layout_store.get(where, key)
    return where, key, None if kept is None else _layout_from_json(kept)


def _layout_to_json(layout) -> list:
    """A VectorParse as JSON: each glyph's font as its file and face (numbers as doubles: read back the same)."""
    width, height, depth, glyphs, rects = layout
    fonts: dict[tuple[str, int], int] = {}
    for font, *_ in glyphs:
        fonts.setdefault((str(font.fname), int(font.face_index)), len(fonts))
    return [
        float(width), float(height), float(depth), [list(font) for font in fonts],
        [[fonts[str(font.fname), int(font.face_index)], float(size), int(code), int(index), float(ox), float(oy)]
         for font, size, code, index, ox, oy in glyphs],
        [[float(v) for v in rect] for rect in rects],
    ]


def _layout_from_json(kept: list):
    """The VectorParse of :func:`_layout_to_json`, its fonts matplotlib's own (``get_font``: the objects the parse
    would have used); None where a font cannot be opened or the entry has another shape."""
    from matplotlib._mathtext import VectorParse
    from matplotlib.font_manager import FontPath, get_font

    try:
        width, height, depth, files, glyphs, rects = kept
        fonts = [get_font(fname if face == 0 else FontPath(fname, face)) for fname, face in files]
        out = [(fonts[font], size, code, index, ox, oy) for font, size, code, index, ox, oy in glyphs]
        return VectorParse(width, height, depth, out, [tuple(rect) for rect in rects])
    except (OSError, ValueError, TypeError, RuntimeError):
        return None


def _parse_shared(self, s, dpi, prop, *rest):
    output_type = getattr(self, "_output_type", None)
    if output_type is None:  # a parser of another shape: matplotlib's own cache
        return _originals["_parse_cached"](self, s, dpi, prop, *rest)
    with _lock:
        _parsers.setdefault(output_type, self)
    return _layout(output_type, s, dpi, prop, rest, _rc_key())


def shared_mathtext() -> contextlib.AbstractContextManager[None]:
    """Within this context every mathtext parser of the process shares one cache (see the module's docstring);
    matplotlib's own method is restored on leaving.  Without the cached method this matplotlib does not have,
    nothing is changed."""
    from matplotlib.mathtext import MathTextParser

    return _patched(MathTextParser, "_parse_cached", _parse_shared, lambda own: hasattr(own, "__wrapped__"))


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
    with _lock:
        kept = _subsets.get(key)
    if kept is None:
        kept = font_subset_store.read(fontfile, glyphs)  # written by an earlier process
    if kept is None:
        with _originals["get_glyphs_subset"](fontfile, glyphs) as subset:
            kept = (_backend_pdf_ps.font_as_file(subset.font).getvalue(), dict(subset.glyph_index_map))
        font_subset_store.write(fontfile, glyphs, *kept)
    with _lock:
        if key not in _subsets:
            _subsets[key] = kept
        while len(_subsets) > SUBSETS_KEPT:  # the oldest first
            del _subsets[next(iter(_subsets))]
    data, glyph_map = kept
    return _backend_pdf_ps.SubsetResults(_SavedFont(data), dict(glyph_map))._as_cm()


def shared_subsets() -> contextlib.AbstractContextManager[None]:
    """Within this context a font subset matplotlib embedded before is embedded again from its bytes (see the
    module's docstring); matplotlib's function is restored on leaving.  A matplotlib whose subsetting returns
    something else (before 3.11) is left as it is."""
    from matplotlib.backends import _backend_pdf_ps

    usable = hasattr(_backend_pdf_ps, "SubsetResults") and hasattr(_backend_pdf_ps, "font_as_file")
    return _patched(_backend_pdf_ps, "get_glyphs_subset", _subset_shared, lambda own: usable and own is not None)


_metrics: dict[tuple, tuple] = {}  # (text, font properties, ismath, dpi, rc) -> (width, height, descent)


def _measures_as_pdf(renderer) -> bool:
    """Whether ``renderer`` sizes text as a PDF page does: the PDF renderer itself, or the mixed-mode renderer a
    PDF page is drawn with (``print_pdf``) while it draws vectors -- a rasterized artist's text is Agg's."""
    from matplotlib.backends.backend_mixed import MixedModeRenderer
    from matplotlib.backends.backend_pdf import RendererPdf

    if type(renderer) is MixedModeRenderer:
        renderer = vars(renderer).get("_renderer")
    return type(renderer) is RendererPdf


def _metrics_shared(renderer, text, fontprop, ismath, dpi):
    if ismath == "TeX" or not _measures_as_pdf(renderer):  # another renderer's sizes depend on it
        return _originals["_get_text_metrics_with_cache"](renderer, text, fontprop, ismath, dpi)
    fontprop = fontprop.copy()  # (mutable: a later change must not reach the key)
    key = (text, fontprop, ismath, dpi, _rc_key())
    with _lock:
        size = _metrics.get(key)
    if size is None:
        size = _stored_size(renderer, text, fontprop, ismath, dpi, key[-1])
        with _lock:
            _metrics[key] = size
            while len(_metrics) > CACHE_SIZE:  # the oldest first
                del _metrics[next(iter(_metrics))]
    return size


def _stored_size(renderer, text, fontprop, ismath, dpi, rc: tuple) -> tuple:
    """A PDF renderer's size of ``text``: kept on disk by an earlier process, else measured (and kept)."""
    where = layout_store.context(_rc_names, rc)
    key = ["size", text, layout_store.font_key(fontprop), bool(ismath), float(dpi)]
    kept = layout_store.get(where, key)
    if isinstance(kept, list) and len(kept) == 3:
        return tuple(kept)
    size = renderer.get_text_width_height_descent(text, fontprop, ismath)
    layout_store.put(where, key, [float(v) for v in size])
    return size


def shared_text_metrics() -> contextlib.AbstractContextManager[None]:
    """Within this context a PDF renderer's text sizes are shared by every page and report of the process.
    matplotlib keeps them per renderer, and a page is a renderer of its own: the tick labels, titles and lines of
    each page were laid out again (FreeType and libraqm) to be measured.  A PDF renderer's sizes depend only on the
    text, its font properties, the dpi and the rc settings (its fonts are the process's, at 72 dpi), so the bytes do
    not change; other renderers and TeX keep matplotlib's cache.  Restored on leaving; a matplotlib without the
    function is left as it is."""
    import matplotlib.text

    return _patched(matplotlib.text, "_get_text_metrics_with_cache", _metrics_shared, lambda own: own is not None)


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """All three: the mathtext layouts (:func:`shared_mathtext`), the PDF text sizes (:func:`shared_text_metrics`)
    and the font subsets (:func:`shared_subsets`)."""
    try:
        with shared_mathtext(), shared_text_metrics(), shared_subsets():
            yield
    finally:
        layout_store.flush()  # what this report measured, for the next process
