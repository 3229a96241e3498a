"""A layout check of report pages: every drawn text inside the page (and its axes), no two texts overlapping, no
legend over the data, no missing glyph or other matplotlib warning, no truncation marker.

Measured, not guessed: the page is drawn once with matplotlib's Agg renderer and every :class:`~matplotlib.text.Text`
that is actually drawn (tick labels outside the view limits and empty strings are not) is recorded with its
``get_window_extent`` on that renderer.  :func:`page_problems` reads one figure; :func:`checking_pages` checks every
page any report writer saves (they all save through ``PdfPages.savefig``), for tests.

What is not flagged, on purpose:

* overlaps of less than :data:`TOLERANCE_PT` in width or height: a text's box is its font's line box (ascent to
  descent), taller than its ink, so lines set 1.45 font sizes apart may touch without their glyphs doing so;
* texts slanted at one angle whose lines lie at least a font size apart (:func:`_parallel_apart`): their upright
  boxes overlap, their glyphs do not;
* texts of one legend against the legend's own frame (they are inside it by construction), and shaded bands
  (``fill_between``) under a legend: only lines, markers, bars and scatter points count as data a legend may not
  cover.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator

import matplotlib
import matplotlib.axes
import matplotlib.collections
import matplotlib.legend
import matplotlib.lines
import matplotlib.patches
import matplotlib.path
import matplotlib.text
import numpy as np
from matplotlib.transforms import Bbox

#: Overlaps thinner than this (points) are line boxes touching, not glyphs colliding.
TOLERANCE_PT = 1.0
#: The string that means a text was cut rather than fitted (``textwrap.shorten``'s placeholder).  "[…]" is not one:
#: the papers' formulas use it for a bracketed matrix, as in ``[…]^{-1}``.
TRUNCATION_MARKERS = ("[...]",)


def _drawn_texts(fig) -> tuple[list[tuple[matplotlib.text.Text, Bbox]], list[str], object]:
    """Draw ``fig`` with Agg's renderer, its painting turned off (the texts are laid out and measured as Agg draws
    them, no glyph rasterized); every text drawn with its window extent, the warnings raised, the renderer."""
    drawn: list[tuple[matplotlib.text.Text, Bbox]] = []
    original = matplotlib.text.Text.draw

    def recording_draw(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip() and self._renderer is not None:
            drawn.append((self, self.get_window_extent(renderer)))

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig) if not isinstance(fig.canvas, FigureCanvasAgg) else fig.canvas
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        setattr(matplotlib.text.Text, "draw", recording_draw)  # every text drawn is recorded, restored below
        try:
            renderer = canvas.get_renderer()
            # laid out and measured as Agg draws, no pixel painted: what is checked is where each text lies
            with getattr(renderer, "_draw_disabled", contextlib.nullcontext)():
                fig.draw(renderer)
        finally:
            setattr(matplotlib.text.Text, "draw", original)
    return drawn, [str(w.message) for w in caught], renderer


def _owner(text: matplotlib.text.Text):
    """The legend or axes a text belongs to as content (None: the figure's own text, a tick or axis label)."""
    for legend in _legends(text.figure):
        if text in legend.texts or text is legend.get_title():
            return legend
    ax = text.axes
    if ax is not None and text in ax.texts:
        return ax
    return None


def _legends(fig) -> list[matplotlib.legend.Legend]:
    out = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return out + list(fig.legends)


def _inside(inner: Bbox, outer: Bbox, slack: float) -> bool:
    return (
        inner.x0 >= outer.x0 - slack
        and inner.y0 >= outer.y0 - slack
        and inner.x1 <= outer.x1 + slack
        and inner.y1 <= outer.y1 + slack
    )


def _overlap(a: Bbox, b: Bbox) -> tuple[float, float]:
    return min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)


def _data_paths(ax) -> Iterator[tuple[matplotlib.path.Path, bool]]:
    """The data of ``ax`` in display coordinates: (path, filled) of each line, marker set, bar and scatter point."""
    for line in ax.lines:
        if not line.get_visible():
            continue
        path = line.get_transform().transform_path(line.get_path())
        if line.get_linestyle() in ("None", "", " ", "none"):  # markers only: each vertex is a point of data
            for x, y in path.vertices:
                yield matplotlib.path.Path([[x, y], [x, y]]), False
        else:
            yield path, False
    for patch in ax.patches:
        if patch.get_visible() and isinstance(patch, matplotlib.patches.Rectangle) and patch.get_height() != 0:
            yield patch.get_transform().transform_path(patch.get_path()), True
    for collection in ax.collections:
        if isinstance(collection, matplotlib.collections.PathCollection):  # scatter points
            for x, y in collection.get_offset_transform().transform(collection.get_offsets()):
                yield matplotlib.path.Path([[x, y], [x, y]]), False


def _legend_over_data(fig, renderer) -> list[str]:
    """Legends drawn over their axes' data, or over another axes (a neighbouring panel)."""
    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        for other in fig.axes:
            width, height = _overlap(box, other.bbox)
            if other is not ax and width > 0 and height > 0:
                problems.append(f"legend of {ax.get_title() or ax.get_ylabel()!r} over another axes")
        clip = ax.bbox  # data outside the axes is not drawn
        for path, filled in _data_paths(ax):
            if np.asarray(path.vertices).size == 0:
                continue
            inside = Bbox.intersection(box, clip)
            if inside is not None and path.intersects_bbox(inside, filled=filled):
                title = ax.get_title() or ax.get_ylabel()
                problems.append(f"legend over the data in the axes {title!r}")
                break
    return problems


def _parallel_apart(text, other, slack: float) -> bool:
    """Whether two texts slanted at the same angle (a table's column names) lie on parallel lines at least a line
    apart: their upright bounding boxes then overlap, their glyphs do not."""
    angle = text.get_rotation()
    if angle % 180 == 0 or other.get_rotation() != angle:
        return False
    a = text.get_transform().transform(text.get_position())
    b = other.get_transform().transform(other.get_position())
    normal = np.array([-np.sin(np.radians(angle)), np.cos(np.radians(angle))])
    line = max(text.get_fontsize(), other.get_fontsize()) * text.figure.dpi / 72
    return abs(float(np.dot(b - a, normal))) >= line - slack


def page_problems(fig) -> list[str]:
    """What is wrong with the layout of the page ``fig``, one line each (empty: nothing)."""
    drawn, caught, renderer = _drawn_texts(fig)
    points = fig.dpi / 72  # pixels per point
    slack = TOLERANCE_PT * points
    problems = [f"warning while drawing: {message}" for message in caught]
    page = fig.bbox
    boxes = []
    for text, box in drawn:
        label = repr(text.get_text()[:60])
        if any(marker in text.get_text() for marker in TRUNCATION_MARKERS):
            problems.append(f"truncated text {label}")
        if not _inside(box, page, 0):
            problems.append(f"text off the page: {label}")
        owner = _owner(text)
        if isinstance(owner, matplotlib.axes.Axes) and not _inside(box, owner.bbox, 0):
            problems.append(f"text outside its axes: {label}")
        boxes.append((text, box, owner))
    for i, (text, box, owner) in enumerate(boxes):
        for other, other_box, other_owner in boxes[i + 1 :]:
            width, height = _overlap(box, other_box)
            if width > slack and height > slack and not _parallel_apart(text, other, slack):
                problems.append(f"texts overlap: {text.get_text()[:50]!r} and {other.get_text()[:50]!r}")
    return problems + _legend_over_data(fig, renderer)


@contextlib.contextmanager
def checking_pages(found: list[str]):
    """Inside the block, every page saved to a PDF is checked first; its problems are appended to ``found``, each
    prefixed by the PDF's name and the page's number."""
    from matplotlib.backends.backend_pdf import PdfPages

    original = PdfPages.savefig
    counts: dict[int, int] = {}

    def checked_savefig(self, figure=None, **kwargs):
        counts[id(self)] = counts.get(id(self), 0) + 1
        name = getattr(self, "_filename", None) or getattr(self, "_file", "PDF")
        where = f"{getattr(name, 'name', name)} p{counts[id(self)]}"
        found.extend(f"{where}: {problem}" for problem in page_problems(figure))
        with warnings.catch_warnings(record=True) as caught:  # the PDF backend's own warnings (missing glyphs)
            warnings.simplefilter("always")
            original(self, figure, **kwargs)
        found.extend(f"{where}: warning while saving: {w.message}" for w in caught)

    setattr(PdfPages, "savefig", checked_savefig)  # every page saved is checked, restored below
    try:
        yield found
    finally:
        setattr(PdfPages, "savefig", original)
