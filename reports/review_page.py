"""The page a reviewer reads first (:class:`~pdp_audit.reports.records.ReviewPage`): the title and claim, the
verdict's headline in a coloured banner with its one reading below it, then the audit's sections -- a heading, a
sentence, a small table whose highlighted rows are shaded and set in bold in the verdict's colour.

Everything drawn is what the record holds: the words, the cells and which rows to highlight are the audit's.  A
section that does not fit on the page goes on to a page headed "(continued)", never cut.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.lines  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.page_text import (  # noqa: E402
    A4,
    COLOURS,
    TEXT_WIDTH,
    draw_row,
    row_height,
    text_block,
    text_height,
    verdict_banner,
    wrap_cells,
)
from pdp_audit.reports.records import ReviewPage, Section, Table  # noqa: E402

#: The font sizes (points) of a section's heading, its sentences and its tables at full size; a page whose sections
#: do not fit is drawn smaller, down to :data:`SMALLEST` of these, before a section goes on to another page.
HEADING, TEXT, TABLE = 10.5, 8.5, 7.5
SCALES = (1.0, 0.95, 0.9, 0.86, 0.82)
SMALLEST = SCALES[-1]
#: The shade behind a highlighted row, by the page's verdict (its text is in the verdict's colour).
SHADES = {"fail": "#fbe3e3", "inconclusive": "#fcebd6", "pass": "#e2f0e2"}
#: The lowest a section may reach (figure coordinates): the page's bottom margin.
BOTTOM = 0.035
LEFT = 0.07


def _columns(table: Table) -> list[tuple[float, float]]:
    """(left, width) of each column in figure coordinates, a small gap to the right of each."""
    widths = list(table.widths) or [1.0] * len(table.columns)
    total = sum(widths)
    out, left = [], LEFT
    for w in widths:
        width = TEXT_WIDTH * w / total
        out.append((left, width - 0.008))
        left += width
    return out


def _wrapped_rows(table: Table, size: float) -> tuple[list[list[str]], list[list[list[str]]]]:
    columns = _columns(table)
    header = wrap_cells(table.columns, columns, size, bold=range(len(columns)))
    body = [
        wrap_cells(row, columns, size, bold=range(len(columns)) if k in table.highlight else ())
        for k, row in enumerate(table.rows)
    ]
    return header, body


def table_height(table: Table, size: float = TABLE) -> float:
    """The height (figure coordinates) :func:`draw_table` takes at font ``size``."""
    header, body = _wrapped_rows(table, size)
    return row_height(header, size) + 0.003 + sum(row_height(r, size) for r in body) + 0.004


def draw_table(fig, table: Table, top: float, verdict: str, size: float = TABLE) -> float:
    """Draw ``table`` from ``top`` down at font ``size``: a bold header ruled below, then its rows (highlighted ones
    shaded and in bold, in the colours of ``verdict``); the y where it ended."""
    columns = _columns(table)
    header, body = _wrapped_rows(table, size)
    bold = [{"weight": "bold"}] * len(columns)
    y = draw_row(fig, top, header, columns, size, bold)
    fig.add_artist(matplotlib.lines.Line2D([LEFT, LEFT + TEXT_WIDTH], [y + 0.001, y + 0.001], color="#888888", lw=0.6))
    y -= 0.003
    for k, row in enumerate(body):
        height = row_height(row, size)
        styles = None
        if k in table.highlight:
            fig.patches.append(
                matplotlib.patches.Rectangle(
                    (LEFT - 0.005, y - height + 0.001),
                    TEXT_WIDTH + 0.01,
                    height,
                    transform=fig.transFigure,
                    color=SHADES[verdict],
                    zorder=-1,
                )
            )
            styles = [{"weight": "bold", "color": COLOURS[verdict]}] * len(columns)
        y = draw_row(fig, y, row, columns, size, styles)
    return y - 0.004


def _section_lines(section: Section, scale: float) -> tuple[list, list]:
    """The heading and sentence above the table, and the sentence below it, as styled paragraphs."""
    head = [(section.heading, {"size": HEADING * scale, "weight": "bold", "gap": 0.001})]
    if section.text:
        head.append((section.text, {"size": TEXT * scale, "gap": 0.003}))
    after = [(section.after, {"size": TEXT * scale, "gap": 0.003})] if section.after else []
    return head, after


def section_height(section: Section, scale: float = 1.0) -> float:
    """The height (figure coordinates) :func:`draw_section` takes at ``scale``."""
    head, after = _section_lines(section, scale)
    table = 0.002 + table_height(section.table, TABLE * scale) if section.table is not None else 0.0
    return text_height(head) + table + (text_height(after) if after else 0.0) + 0.006


def draw_section(fig, section: Section, top: float, verdict: str, scale: float = 1.0) -> float:
    """Draw ``section`` from ``top`` down at ``scale``; the y where it ended."""
    head, after = _section_lines(section, scale)
    y = text_block(fig, head, top=top, left=LEFT)
    if section.table is not None:
        y = draw_table(fig, section.table, y - 0.002, verdict, TABLE * scale)
    if after:
        y = text_block(fig, after, top=y, left=LEFT)
    return y - 0.006


def _reading(page: ReviewPage, scale: float) -> list:
    return [(page.reading, {"size": 9.5 * scale, "gap": 0.01})]


def review_pages(page: ReviewPage) -> list:
    """The review page as figures: one page, its reading and sections drawn at the largest of :data:`SCALES` at which
    they fit; where none does, a page headed "(continued)" for the sections that do not."""
    fig = plt.figure(figsize=A4)
    y = text_block(fig, [(page.title, {"size": 15, "weight": "bold"}), (page.claim, {"size": 9.5, "gap": 0.006})])
    verdict_banner(fig, y, page.verdict, page.headline)
    if page.footnote:  # in the bottom margin, under what the page fits: it takes no room from the sections
        fig.text(LEFT, BOTTOM / 2, page.footnote, size=TABLE * SMALLEST, color="#555555", va="center")
    y -= 0.07

    def fits(scale: float) -> bool:
        return y - text_height(_reading(page, scale)) - sum(section_height(x, scale) for x in page.sections) >= BOTTOM

    scale = next((s for s in SCALES if fits(s)), SMALLEST)
    y = text_block(fig, _reading(page, scale), top=y)
    figures = [fig]
    for section in page.sections:
        if y - section_height(section, scale) < BOTTOM and y < 0.8:  # a section too tall for any page is drawn whole
            fig = plt.figure(figsize=A4)
            figures.append(fig)
            y = text_block(fig, [(f"{page.title} (continued)", {"size": 13, "weight": "bold", "gap": 0.01})])
        y = draw_section(fig, section, y, page.verdict, scale)
    return figures
