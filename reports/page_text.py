"""The common ground of the suite's PDF pages: A4 size, verdict colours, matplotlib settings, numbers and text.

Text is written with matplotlib (no TeX): :func:`math` typesets ``x_{…}`` and ``x^{…}`` tokens as mathtext, and
:func:`text_block` writes wrapped, styled paragraphs down a page.  Every PDF writer of the suite
(:mod:`pdp_audit.reports.pdf`, the sweep, claims, mutants, benchmark and session reports) builds on these, so all
pages share one look.
"""

from __future__ import annotations

import logging
import re
import textwrap
from typing import Any

import matplotlib.patches
import numpy as np

# matplotlib's font subsetting (fontTools) warns on stderr that the embedded DejaVu fonts' timestamps are
# "very low" and reads them as Unix times; harmless for the PDF, noise for a user reading the run's output.
logging.getLogger("fontTools.ttLib.tables._h_e_a_d").setLevel(logging.ERROR)

A4 = (8.27, 11.69)
COLOURS = {"pass": "#1b7837", "fail": "#b2182b", "inconclusive": "#b35806"}
RC = {"font.family": "DejaVu Sans", "font.size": 9, "pdf.fonttype": 42, "axes.grid": True, "grid.alpha": 0.3}


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


# a token such as δ_{D‖D'}(ε) or e^{ε}; no backslash, so nothing in it can be read as a mathtext command
_SUBSCRIPTED = re.compile(r"(?<![\\\w])([^\s$(),;:=\\]*[_^]\{[^{}\\]*\}(?:\([^()\s\\]*\))?)")


def math(text: str) -> str:
    """``text`` for matplotlib: a literal ``$`` escaped, ``x_{…}`` and ``x^{…}`` typeset as mathtext."""
    return _SUBSCRIPTED.sub(r"$\1$", text.replace("$", r"\$"))


def _wrapped(lines: list[tuple[str, dict]], width: int) -> list[tuple[str, dict]]:
    """Each styled paragraph as its wrapped lines (a paragraph's last line carries its ``gap``)."""
    out = []
    for text, style in lines:
        rows = textwrap.wrap(text, width=style.get("width", width)) or [""]
        last = len(rows) - 1
        out += [(row, {**style, "gap": style.get("gap", 0.004) if k == last else 0}) for k, row in enumerate(rows)]
    return out


def text_height(lines: list[tuple[str, dict]], width: int = 100) -> float:
    """The height (figure coordinates) :func:`text_block` will take to write ``lines``."""
    return sum(style.get("size", 9) / 72 / A4[1] * 1.45 + style["gap"] for _, style in _wrapped(lines, width))


def text_block(fig, lines: list[tuple[str, dict]], top: float = 0.95, left: float = 0.07, width: int = 100) -> float:
    """Write wrapped lines from ``top`` downwards; return the y where the text ended."""
    y = top
    for line, style in _wrapped(lines, width):
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
    fig.text(0.5, y - 0.035, text, ha="center", va="center", fontsize=size, color="white", weight="bold")


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
    Newlines stay: they break the lines of a text block."""
    import matplotlib.text

    for artist in fig.findobj(matplotlib.text.Text):
        text = artist.get_text()
        if isinstance(text, str) and _CONTROL.search(text):
            artist.set_text(_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text))
