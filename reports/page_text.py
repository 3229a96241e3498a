"""The common ground of the suite's PDF pages: A4 size, verdict colours, matplotlib settings, numbers and text.

Text is written with matplotlib (no TeX): :func:`math` (:mod:`pdp_audit.reports.math_text`) typesets the scripts of
plain-text mathematics as mathtext, and :func:`text_block` writes wrapped, styled paragraphs down a page.  Every PDF
writer of the suite (:mod:`pdp_audit.reports.pdf`, the sweep, claims, mutants, benchmark and session reports) builds
on these, so all pages share one look.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
from typing import TYPE_CHECKING, Any, Iterator

import matplotlib.patches
import numpy as np

from pdp_audit.reports.math_text import bind_scripts, math  # noqa: F401 (math: the pages' one, imported from here)
from pdp_audit.reports.numbers import fmt_level  # noqa: F401 (the pages' one, imported from here)

if TYPE_CHECKING:  # matplotlib's backends and typing are loaded where a page is drawn, not at import
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.typing import RcKeyType

# matplotlib's font subsetting (fontTools) warns on stderr that the embedded DejaVu fonts' timestamps are
# "very low" and reads them as Unix times; harmless for the PDF, noise for a user reading the run's output.
logging.getLogger("fontTools.ttLib.tables._h_e_a_d").setLevel(logging.ERROR)

A4 = (8.27, 11.69)
COLOURS = {"pass": "#1b7837", "fail": "#b2182b", "inconclusive": "#b35806"}
RC: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "pdf.fonttype": 42,
    # matplotlib (3.11) sizes the PDF's font subsets by ps.fonttype: at its default (3) a font's characters past
    # U+00FF (ε, δ, ≤, −) go to a second subset, which fontTools subsets again from the whole font at the close
    "ps.fonttype": 42,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


def fmt(value: Any, digits: int = 4) -> str:
    """A number for a report: 4 significant digits, ∞ for infinities, — for missing values."""
    if value is None:
        return "—"
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return "∞" if value > 0 else "−∞"
        return f"{value:.{digits}g}"
    return str(value)


def fmt_ci(ci) -> str:
    """An interval as ``[lo, hi]`` with :func:`fmt`, or — when there is none."""
    return "—" if ci is None else f"[{fmt(ci[0])}, {fmt(ci[1])}]"


#: The width text may take on a page (figure fraction): A4 less margins of 0.07 on either side.
TEXT_WIDTH = 0.86


@functools.lru_cache(maxsize=None)
def _font(size: float, family: str, weight: str):
    from matplotlib.font_manager import FontProperties

    return FontProperties(family=family, size=size, weight=weight)


@functools.lru_cache(maxsize=200_000)
def word_width(word: str, size: float, family: str = "DejaVu Sans", weight: str = "normal") -> float:
    """The width (points) matplotlib draws ``word`` in: a mathtext token measured whole, plain text as the sum of
    its characters' widths (each measured once) plus 2% for kerning, which can only be smaller."""
    from matplotlib import cbook

    drawn = word if "$" in word else math(word)  # a label may be typeset already
    if cbook.is_math_text(drawn):
        return _measured(drawn, size, family, weight, True)
    # a control character (a newline, an escape from a sweep's name) has no glyph: it is escaped before drawing
    return 1.02 * sum(_measured(char, size, family, weight, False) for char in word if char.isprintable())


@functools.lru_cache(maxsize=20_000)
def _measured(text: str, size: float, family: str, weight: str, ismath: bool) -> float:
    global _RENDERER
    if _RENDERER is None:
        from matplotlib.backends.backend_agg import RendererAgg

        _RENDERER = RendererAgg(8, 8, 720)  # 720 dpi: widths in tenths of points, free of pixel rounding
    if text == " ":
        return _measured("x x", size, family, weight, False) - 2 * _measured("x", size, family, weight, False)
    width, _, _ = _RENDERER.get_text_width_height_descent(text, _font(size, family, weight), ismath=ismath)
    return float(width) / 10


_RENDERER: RendererAgg | None = None


def line_width(line: str, size: float, family: str = "DejaVu Sans", weight: str = "normal") -> float:
    """The width (points) of a line, as the sum of its words' and spaces' widths (kerning across a space is nil)."""
    words = line.split(" ")
    space = word_width("x x", size, family, weight) - 2 * word_width("x", size, family, weight)
    return sum(word_width(w, size, family, weight) for w in words if w) + space * (len(words) - 1)


#: a hexadecimal digest (a SHA-256): split, where it must be, only into whole groups of this many digits
HEX_GROUP = 16
_HEX = re.compile(r"[0-9a-f]{32,}")


def _cut(word: str, width_pt: float, size: float, family: str, weight: str) -> int:
    """Where to split a word wider than the line: a digest at a multiple of :data:`HEX_GROUP` digits (so that a
    reader can compare it group by group), an identifier after its last hyphen, slash, underscore or dot that fits
    (``thm5-variance-`` / ``loss-consistency``), anything else at the last character that fits."""
    cut = max(1, int(len(word) * width_pt / word_width(word, size, family, weight)) - 1)
    digest = _HEX.search(word)
    if digest and digest.start() < cut:
        whole = digest.start() + (cut - digest.start()) // HEX_GROUP * HEX_GROUP
        return whole if whole > 0 else cut
    joint = max(word.rfind(mark, 0, cut) for mark in "-/_.")  # an identifier: after its last joint that fits
    return joint + 1 if joint > 0 else cut


def wrap_to_width(
    text: str,
    width_pt: float,
    size: float,
    family: str = "DejaVu Sans",
    weight: str = "normal",
    max_chars: int | None = None,
):
    """``text`` broken at spaces into lines no wider than ``width_pt`` points, measured in the font it is drawn in,
    and no longer than ``max_chars`` characters where given (both limits at once, so that a paragraph never ends a
    line with a stray word); a single word wider than the line is broken between characters (never cut), a digest
    only between groups of :data:`HEX_GROUP` digits.  A text that fits stays as it is (the runs of spaces aligning
    a monospaced table kept)."""
    if line_width(text, size, family, weight) <= width_pt and (max_chars is None or len(text) <= max_chars):
        return [text]
    text = bind_scripts(text)  # a script such as n^(a/4 − 1/2) is never broken across lines
    lines: list[str] = []
    current = ""
    for word in (w for w in text.split(" ") if w):
        while word_width(word, size, family, weight) > width_pt and len(word) > 1:  # a hash, a path: split it
            cut = _cut(word, width_pt, size, family, weight)
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{current} {word}" if current else word
        too_long = max_chars is not None and len(candidate) > max_chars
        if current and (too_long or line_width(candidate, size, family, weight) > width_pt):
            lines.append(current)
            current = word
        else:
            current = candidate
    return lines + [current] if current or not lines else lines


def _wrapped(lines: list[tuple[str, dict]], width: int | None, room: float = TEXT_WIDTH) -> list[tuple[str, dict]]:
    """Each styled paragraph as its wrapped lines (a paragraph's last line carries its ``gap``): at most the style's
    own ``width`` in characters (else ``width``, where given), and never wider than ``room`` (figure fraction, less
    the indent) as measured in its font."""
    out = []
    for text, style in lines:
        room_pt = (room - style.get("indent", 0)) * A4[0] * 72
        font = (style.get("size", 9), style.get("family", "DejaVu Sans"), style.get("weight", "normal"))
        limit = style.get("width", width)  # a style's own width in characters, if any, is kept
        if limit:  # as textwrap did: a newline or tab in a paragraph is a space
            text = text.translate({ord("\n"): " ", ord("\t"): " "}).strip()
        rows = wrap_to_width(text, room_pt, *font, max_chars=limit) if text else [""]
        last = len(rows) - 1
        out += [(row, {**style, "gap": style.get("gap", 0.004) if k == last else 0}) for k, row in enumerate(rows)]
    return out


def text_height(lines: list[tuple[str, dict]], width: int | None = None, room: float = TEXT_WIDTH) -> float:
    """The height (figure coordinates) :func:`text_block` will take to write ``lines`` into ``room``."""
    return sum(style.get("size", 9) / 72 / A4[1] * 1.45 + style["gap"] for _, style in _wrapped(lines, width, room))


def text_block(
    fig, lines: list[tuple[str, dict]], top: float = 0.95, left: float = 0.07, width: int | None = None, room: float = 0
) -> float:
    """Write wrapped lines from ``top`` downwards, each fitted into ``room`` (figure fraction; default: to the right
    margin at 0.93); return the y where the text ended."""
    y = top
    for line, style in _wrapped(lines, width, room or 0.93 - left):
        size = style.get("size", 9)
        fig.text(
            left + style.get("indent", 0),
            y,
            math(line),
            fontsize=size,
            color=style.get("color", "black"),
            fontweight=style.get("weight", "normal"),
            family=style.get("family", "DejaVu Sans"),
            va="top",
        )
        y -= size / 72 / A4[1] * 1.45 + style["gap"]
    return y


def verdict_banner(fig, y: float, verdict: str, text: str) -> None:
    """The cover's coloured verdict banner, its top at height ``y`` (figure coordinates)."""
    fig.patches.append(
        matplotlib.patches.FancyBboxPatch(
            (0.07, y - 0.06),
            0.86,
            0.05,
            boxstyle="round,pad=0.005",
            transform=fig.transFigure,
            color=COLOURS[verdict],
            alpha=0.9,
        )
    )
    size = 12 if len(text) <= 60 else 10
    if len(text) > 90:  # a headline naming what decided the claim: two lines, at the banner's width
        import textwrap

        text = "\n".join(textwrap.wrap(text, width=max(60, (len(text) + 1) // 2 + 8)))
    fig.text(0.5, y - 0.035, text, ha="center", va="center", fontsize=size, color="white", weight="bold")


#: held while a report is drawn: matplotlib's rc settings are the process's, and a second thread's report leaving
#: its ``rc_context`` would give a report still drawing the default settings (other bytes); one report at a time
_drawing = threading.RLock()


@contextlib.contextmanager
def pdf_document(path, metadata: dict) -> Iterator:
    """An open ``PdfPages`` at ``path`` with ``metadata``, its pages drawn with :data:`RC`; a report drawn in another
    thread waits for it (:data:`_drawing`)."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with _drawing, plt.rc_context(RC), PdfPages(path, metadata=metadata) as pdf:
        yield pdf


def save_pages(pdf, pages) -> None:
    """Save each figure of ``pages`` into the open PdfPages ``pdf`` and close it -- also when saving fails (a full
    disk), so that no figure outlives a failed report.  ``pages`` is best a generator: one figure open at a time."""
    import matplotlib.pyplot as plt

    for page in pages:
        try:
            escape_control_characters(page)
            pdf.savefig(page)
        finally:
            plt.close(page)


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # C0 and C1 control characters but the newline


def escape_control_characters(fig) -> None:
    """Show every control character of the figure's text escaped (ESC as ``\\x1b``): a name read from a user's file
    may hold one, which no font has a glyph for (matplotlib then warns on stderr, with the raw byte in the line).
    Newlines stay: they break the lines of a text block.  Tick labels given as strings (``set_xticks(ticks,
    labels)``: a sweep's categories, certified individuals' names) are escaped in their formatter, since the draw
    sets every tick label again from it."""
    import matplotlib.text
    import matplotlib.ticker

    for artist in fig.findobj(matplotlib.text.Text):
        text = artist.get_text()
        if isinstance(text, str) and _CONTROL.search(text):
            artist.set_text(_escaped(text))
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            for formatter in (axis.get_major_formatter(), axis.get_minor_formatter()):
                if isinstance(formatter, matplotlib.ticker.FixedFormatter):
                    formatter.seq = [_escaped(s) if isinstance(s, str) else s for s in formatter.seq]
                elif isinstance(formatter, matplotlib.ticker.FuncFormatter):  # labels given as strings, since 3.9
                    formatter.func = _escaping(formatter.func)


def _escaped(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _escaping(func):
    """A tick formatter's function whose labels come out escaped (once: a wrapped one is returned as it is)."""
    if getattr(func, "escapes_control_characters", False):
        return func

    def escaped(value, pos=None):
        label = func(value, pos)
        return _escaped(label) if isinstance(label, str) else label

    escaped.escapes_control_characters = True  # type: ignore[attr-defined]
    return escaped


# --- tables whose cells are wrapped to their column's measured width ------------------------------------------


def line_height(size: float) -> float:
    """The height (figure coordinates) of one line of text of ``size`` points in a table."""
    return size / 72 / A4[1] * 1.4


def wrap_cells(cells, columns, size: float, family: str = "DejaVu Sans", bold=()) -> list[list[str]]:
    """Each cell wrapped into its column: ``columns`` are (left, width) in figure coordinates; ``bold``: the indices
    of the cells drawn bold (measured so)."""
    return [
        wrap_to_width(str(cell), width * A4[0] * 72, size, family, "bold" if k in bold else "normal")
        for k, (cell, (_, width)) in enumerate(zip(cells, columns))
    ]


def row_height(wrapped: list[list[str]], size: float) -> float:
    """The height of a row of wrapped cells: its tallest cell, and a small gap below."""
    return max(len(cell) for cell in wrapped) * line_height(size) + 0.0025


def draw_row(fig, y: float, wrapped: list[list[str]], columns, size: float, styles=None) -> float:
    """Draw a row of wrapped cells at height ``y`` (the top); ``styles``: extra keywords of each cell's text."""
    styles = styles or [{}] * len(wrapped)
    for lines, (left, _), style in zip(wrapped, columns, styles):
        for k, line in enumerate(lines):
            fig.text(left, y - k * line_height(size), math(line), fontsize=size, va="top", **style)
    return y - row_height(wrapped, size)


def page_chunks(items: list, first: int, per_page: int) -> list[list]:
    """``items`` split into pages of ``first`` then ``per_page`` rows, never leaving a page with a single row when
    the page before it can give one (an orphan row)."""
    chunks = [items[:first]] + [items[i : i + per_page] for i in range(first, len(items), per_page)]
    if len(chunks) > 1 and len(chunks[-1]) == 1 and len(chunks[-2]) > 2:
        chunks[-1] = chunks[-2][-1:] + chunks[-1]
        chunks[-2] = chunks[-2][:-1]
    return chunks
