"""The PDF report of a sweep: cover (overall verdict, counts, family-wise error), a table of cells
(with every check's verdict), plots of estimates against each swept parameter, and provenance.

Rendered from the store alone (complete or not), with matplotlib; no timestamp (in the metadata or on a page) and
not the store's name or path: the same spec and seed give the same bytes, whatever store, executor or time.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from pdp_audit.reports.files import atomic_path  # noqa: E402
from pdp_audit.reports.json_report import code_version, library_versions  # noqa: E402
from pdp_audit.reports.page_panels import LEGEND_ROOM, page_legend, share_y  # noqa: E402
from pdp_audit.reports.page_text import (  # noqa: E402
    A4,
    COLOURS,
    fmt,
    page_chunks,
    pdf_document,
    save_pages,
    text_block,
    verdict_banner,
)
from pdp_audit.reports.sweep_fits import exponent_pages  # noqa: E402
from pdp_audit.reports.sweep_json import FWER_STATEMENT  # noqa: E402
from pdp_audit.reports.verdict_words import check_word  # noqa: E402


def _listed_colours(name: str) -> tuple:
    """The colours of matplotlib's listed colormap ``name`` (a qualitative one, such as tab10), as it lists them."""
    colormap = matplotlib.colormaps[name]
    colours = colormap.colors if isinstance(colormap, ListedColormap) else None
    if not isinstance(colours, (list, tuple)):
        raise TypeError(f"the colormap {name} lists no colours")
    return tuple(colours)


GREY = "#888888"
LINE_COLOURS = ("#9ecae1", "#bcbddc", "#fdd0a2", "#c7e9c0", "#d9d9d9", "#fcbba1", "#dadaeb", "#a1d99b")
ROWS_PER_PAGE = 44
GLYPH = {"pass": "✓", "fail": "✗", "inconclusive": "?"}
#: Columns per page of the small multiples (one per value of the first other swept parameter).
PANEL_COLUMNS = 4
#: One colour per quantity of a check's curves (e.g. the released bound, the truth; up to 10 apart).
CURVE_COLOURS = _listed_colours("tab10")
HEADLINE_CHECKS = ("dp-forward", "dp-reverse", "lr-attack", "cor23-ex-post", "loss-law", "pdp-median-individual")
SWEEP_VERDICT_TEXT = {
    "pass": "CERTIFIED — every check of every cell is supported by the evidence",
    "fail": "REFUTED — some claim is violated in at least one cell",
    "inconclusive": "UNDECIDED — no violation found, but not every claim could be confirmed",
}


def _value(v) -> str:
    return fmt(v, 4) if isinstance(v, float) else str(v)


def _check_ids(results) -> list[str]:
    ids: list[str] = []
    for cell in results.cells:
        for check in cell["checks"]:
            if check["id"] not in ids:
                ids.append(check["id"])
    return ids


def cover_page(results) -> plt.Figure:
    """The first page: the sweep's verdict and counts, its spec summary and the family-wise error statement."""
    spec = results.spec
    fig = plt.figure(figsize=A4)
    total = len(spec["cells"])
    counts = results.counts
    fixed = {k: v for k, v in spec["cells"][0]["parameters"].items() if k not in spec["swept"]} if spec["cells"] else {}
    lines: list[tuple[str, dict]] = [
        ("pdp-audit — sweep report", {"size": 20, "weight": "bold", "gap": 0.01}),
        (f"Sweep: {spec['name']}.  Mechanism: {spec['mechanism']}.", {"size": 11}),
    ]
    if spec.get("description"):
        lines.append((spec["description"], {"size": 10}))
    lines += [
        (
            f"Cells: {total} ({len(results.cells)} in the store).  Root seed: {spec['seed']}.  "
            f"Checks per cell: {', '.join(spec['checks']) if spec['checks'] else 'all of the audit'}.",
            {"size": 10},
        ),
        (
            f"Family-wise false-alarm probability α = {fmt(spec['alpha'])}; "
            f"per cell α/{total} = {fmt(spec['alpha_per_cell'])}. " + FWER_STATEMENT,
            {"size": 9.5, "gap": 0.02},
        ),
    ]
    y = text_block(fig, lines)
    verdict_banner(fig, y, results.verdict, SWEEP_VERDICT_TEXT[results.verdict])
    y -= 0.09
    # counts as a bar
    ax = fig.add_axes((0.07, y - 0.06, 0.86, 0.05))
    left = 0
    for verdict in ("pass", "inconclusive", "fail"):
        if counts[verdict]:
            ax.barh(0, counts[verdict], left=left, color=COLOURS[verdict])
            ax.text(
                left + counts[verdict] / 2,
                0,
                f"{counts[verdict]} {check_word(verdict)}",
                ha="center",
                va="center",
                color="white",
                fontsize=9,
                weight="bold",
            )
            left += counts[verdict]
    if results.missing:
        ax.barh(0, len(results.missing), left=left, color="#cccccc")
        ax.text(
            left + len(results.missing) / 2, 0, f"{len(results.missing)} not run", ha="center", va="center", fontsize=9
        )
    ax.set_xlim(0, max(total, 1))
    ax.axis("off")
    y -= 0.09
    more = []
    if results.missing:
        more.append(
            (
                f"INCOMPLETE: {len(results.missing)} of {total} cells are not in the store yet; finish them with "
                "pdp-audit sweep SPEC --store STORE --resume (STORE: the store this report was rendered from).  The "
                "verdict above covers the stored cells and is at best inconclusive until the sweep is complete.",
                {"size": 10, "weight": "bold", "color": COLOURS["inconclusive"], "gap": 0.01, "width": 88},
            )
        )
    more.append(("Swept parameters", {"size": 11, "weight": "bold"}))
    for key in spec["swept"]:
        values = sorted({_value(c["parameters"].get(key, "—")) for c in spec["cells"]}, key=_sort_key)
        more.append((f"{key}: " + ", ".join(values), {"size": 9.5, "indent": 0.02}))
    more.append(("Fixed parameters", {"size": 11, "weight": "bold"}))
    more.append((_fixed_text(fixed), {"size": 9.5, "indent": 0.02, "gap": 0.015}))
    more.append(("How to read a verdict", {"size": 11, "weight": "bold"}))
    more.append(
        (
            "A cell's verdict is the worst of its checks: refuted when the data contradict a claim at the cell's α "
            "(Holm-adjusted p-value ≤ α/cells); certified when every check's interval (or an exact closed form that "
            "the interval agrees with) supports its claim; undecided otherwise. The sweep's verdict is the worst over "
            "its cells. A sweep that deliberately includes broken settings (e.g. σ deflated below the calibration) is "
            "expected to be refuted in exactly those cells: read the table and the plots.",
            {"size": 9},
        )
    )
    text_block(fig, more, top=y)
    return fig


def _fixed_text(fixed: dict) -> str:
    """The fixed parameters as "k = v", a default left open (``None``: resolved per cell, e.g. σ calibrated, or not
    applicable, e.g. ``data`` of a shipped dataset) named once as such rather than printed as "None"."""
    given = ", ".join(f"{k} = {_value(v)}" for k, v in fixed.items() if v is not None) or "—"
    open_ = [k for k, v in fixed.items() if v is None]
    return given + (
        f"; left to their defaults (resolved per cell or not applicable): {', '.join(open_)}" if open_ else ""
    )


def _sort_key(text: str):
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def table_pages(results) -> list[plt.Figure]:
    """One row per spec cell (missing cells too): its swept parameters and every check's verdict."""
    spec = results.spec
    swept = spec["swept"][:5]
    checks = _check_ids(results)
    stored = {c["cell_id"]: c for c in results.cells}
    rows = []
    for cell in spec["cells"]:
        record = stored.get(cell["id"])
        rows.append((cell, record))
    pages, start = [], 0
    for chunk in page_chunks(rows, ROWS_PER_PAGE, ROWS_PER_PAGE):
        fig = plt.figure(figsize=A4)
        y = text_block(
            fig,
            [
                (
                    f"Cells {start + 1}–{start + len(chunk)} of {len(rows)}",
                    {"size": 14, "weight": "bold"},
                ),
                (
                    "One row per cell: the swept parameters, the cell's verdict, then each check's verdict "
                    "(✓ pass, ✗ fail, ? inconclusive, blank: not run).",
                    {"size": 8.5, "gap": 0.01},
                ),
            ],
        )
        y -= 0.06  # room for the slanted check names
        # a column per swept parameter, as wide as its bold 8-pt name (about 0.0085 of the page per character)
        widths = [max(0.1, 0.0085 * len(key) + 0.02) for key in swept]
        xs_params = [0.07 + 0.055 + sum(widths[:i]) for i in range(len(swept))]
        x_verdict = 0.07 + 0.055 + sum(widths)
        x_checks0 = x_verdict + 0.12
        width = min(0.035, (0.95 - x_checks0) / max(len(checks), 1))
        fig.text(0.07, y, "#", fontsize=8, weight="bold", va="bottom")
        for x, key in zip(xs_params, swept):
            fig.text(x, y, key, fontsize=8, weight="bold", va="bottom")
        fig.text(x_verdict, y, "verdict", fontsize=8, weight="bold", va="bottom")
        for j, cid in enumerate(checks):
            fig.text(x_checks0 + j * width, y, cid, fontsize=6.5, rotation=60, va="bottom", ha="left")
        y -= 0.012
        for cell, record in chunk:
            fig.text(0.07, y, str(cell["position"] + 1), fontsize=7.5, va="top", color=GREY)
            for x, key in zip(xs_params, swept):
                fig.text(x, y, _value(cell["parameters"].get(key, "—")), fontsize=7.5, va="top")
            if record is None:
                fig.text(x_verdict, y, "not run", fontsize=7.5, va="top", color=GREY)
            else:
                fig.text(
                    x_verdict,
                    y,
                    check_word(record["verdict"]),
                    fontsize=7.5,
                    va="top",
                    weight="bold",
                    color=COLOURS[record["verdict"]],
                )
                by_id = {c["id"]: c["verdict"] for c in record["checks"]}
                for j, cid in enumerate(checks):
                    if cid in by_id:
                        fig.text(
                            x_checks0 + j * width + 0.005,
                            y,
                            GLYPH[by_id[cid]],
                            fontsize=8,
                            va="top",
                            color=COLOURS[by_id[cid]],
                            weight="bold",
                        )
            y -= 0.0185
        start += len(chunk)
        pages.append(fig)
    return pages


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def plot_pages(results) -> list[plt.Figure]:
    """For each numeric swept parameter (at most 4): the headline checks' estimates and intervals against it (at
    most 4 checks, one row each), one column per value of the other swept parameter with the fewest values, one
    line per combination of the rest.  A check whose details carry ``curves`` (the quantities a paper's figure
    plots, e.g. a bound and the truth) gets a row of those absolute curves above its estimates, so the page
    reproduces the figure as printed."""
    spec = results.spec
    if not results.cells or not spec["swept"]:
        return []
    ids = _check_ids(results)
    shown = [c for c in HEADLINE_CHECKS if c in ids] or ids
    shown = [c for c in shown if any(_estimate(cell, c) is not None for cell in results.cells)][:4]
    rows = [(c, kind) for c in shown for kind in (("curves",) if _has_curves(results.cells, c) else ()) + ("estimate",)]
    swept = spec["swept"]
    numeric = [k for k in swept if _numeric([c["parameters"].get(k) for c in results.cells])]
    pages = []
    for key in (numeric or swept)[:4]:  # a categorical parameter (a mode) is a column or a line, not an x axis
        others = [k for k in swept if k != key]
        panel_key, line_keys = _panel_split(results.cells, others)
        panels = _panels(results.cells, panel_key)
        for start in range(0, len(panels), PANEL_COLUMNS):
            pages.append(_plot_page(key, rows, panel_key, line_keys, panels[start : start + PANEL_COLUMNS], start))
    return pages


def _has_curves(cells, check_id) -> bool:
    return any(_curves(cell, check_id) for cell in cells)


def _panel_split(cells, others: list[str]) -> tuple[str | None, list[str]]:
    """The swept parameter that gets one column per value -- the one with the fewest values, if it has at most
    two pages of columns -- and those drawn as lines."""
    if not others:
        return None, []
    distinct = {k: len({str(c["parameters"].get(k)) for c in cells}) for k in others}
    panel_key = min(others, key=lambda k: distinct[k])
    if distinct[panel_key] > 2 * PANEL_COLUMNS:
        return None, others
    return panel_key, [k for k in others if k != panel_key]


def _panels(cells, panel_key: str | None) -> list[tuple[str, list]]:
    """(title, cells) per value of ``panel_key`` in sorted order; one untitled panel when there is none."""
    if panel_key is None:
        return [("", list(cells))]
    values = sorted({str(c["parameters"].get(panel_key)) for c in cells}, key=_sort_key)
    return [(f"{panel_key} = {v}", [c for c in cells if str(c["parameters"].get(panel_key)) == v]) for v in values]


def _plot_page(key, rows, panel_key, line_keys, panels, start: int) -> plt.Figure:
    """One page of small multiples: a row per (check, curves or estimate), a column per panel."""
    fig = plt.figure(figsize=A4)
    _page_heading(fig, key, rows, (panel_key, line_keys, panels), start)
    top = 0.8
    height = min(top - 0.05 - LEGEND_ROOM, 0.25 * len(rows))
    grid = fig.add_gridspec(
        len(rows), len(panels), left=0.11, right=0.96, bottom=top - height, top=top, hspace=0.45, wspace=0.3
    )
    by_row = [_plot_row(fig, grid, r, rows, (key, line_keys, panels)) for r in range(len(rows))]
    for axes in by_row:
        share_y(axes)
    page_legend(fig, [ax for axes in by_row for ax in axes], top - height - 0.05)
    return fig


def _page_heading(fig, key, rows, layout: tuple, start: int) -> None:
    """The page's title, how to read its panels and the titles of its checks; ``layout`` = (panel key or None, line
    keys, panels)."""
    panel_key, line_keys, panels = layout
    titles = {}
    for check_id, _ in rows:
        check = next((_estimate(c, check_id) for _, cells in panels for c in cells if _estimate(c, check_id)), None)
        titles[check_id] = (check or {}).get("title", "")
    split = f"one column per {panel_key}" if panel_key else "one panel per check"
    lines = f"; lines join cells sharing {', '.join(line_keys)}" if line_keys else ""
    curves = any(kind == "curves" for _, kind in rows)
    text_block(
        fig,
        [
            (f"Estimates against {key}" + (" (continued)" if start else ""), {"size": 15, "weight": "bold"}),
            (
                "Each point is one cell's estimate with its simultaneous interval (level 1 − α_{cell}/m, m the "
                "cell's statistical checks); colour = the check's "
                f"verdict; {split}{lines}."
                + (
                    " A 'value' row plots the absolute quantities its check compares (the curves of the paper's "
                    "figure); the row below it, their comparison with its verdict."
                    if curves
                    else ""
                ),
                {"size": 9},
            ),
            ("; ".join(f"{c}: {t}" for c, t in titles.items() if t), {"size": 8}),
        ],
    )


def _plot_row(fig, grid, r: int, rows, plotted: tuple) -> list:
    """The axes of row ``r`` of the page, one a panel: check ``rows[r]``'s curves or estimates against ``key``, on a
    log scale when its curves span a factor of 5 or more; ``plotted`` = (key, line keys, panels)."""
    key, line_keys, panels = plotted
    check_id, kind = rows[r]
    values, axes = [], []
    for col, (panel_title, cells) in enumerate(panels):
        ax = fig.add_subplot(grid[r, col])
        if kind == "curves":
            values += _plot_curves(ax, cells, key, line_keys, check_id)
        else:
            _plot_check(ax, cells, key, line_keys, check_id)
        if r == 0 and panel_title:
            ax.set_title(panel_title, fontsize=8.5)
        if col == 0:
            ax.set_ylabel(f"{check_id}\n{'value' if kind == 'curves' else _quantity(check_id)}", fontsize=7.5)
        if r < len(rows) - 1:
            ax.set_xlabel("")
        legend = ax.get_legend()
        if legend:  # one legend for the page, below the panels (off the data)
            legend.remove()
        axes.append(ax)
    if values and min(values) > 0 and max(values) / min(values) >= 5:
        for ax in axes:  # one scale for the row: the curves span decades
            ax.set_yscale("log")
    return axes


#: What a check's estimate is, for the y axis (by the end of its id); any other check: its estimate.
QUANTITIES = {
    "dp-forward": "δ(ε) estimate",
    "dp-reverse": "δ(ε) estimate",
    "lr-attack": "ε estimate (attack)",
    "tail-curve": "smallest p-value",
    "loss-law": "KS distance",
    "loss-consistency": "likelihood ratio",
}


def _quantity(check_id: str) -> str:
    return next((q for end, q in QUANTITIES.items() if check_id.endswith(end)), "estimate")


def _estimate(cell, check_id):
    for check in cell["checks"]:
        if check["id"] == check_id:
            return check
    return None


def _curves(cell, check_id) -> dict:
    check = _estimate(cell, check_id)
    return ((check or {}).get("details") or {}).get("curves") or {}


def _x_positions(cells, key):
    """(numeric?, position of a parameter value, category labels) for the x axis of ``key``."""
    values = [c["parameters"].get(key) for c in cells]
    numeric = _numeric(values)
    categories = sorted({str(v) for v in values}, key=_sort_key)
    return numeric, ((lambda v: float(v)) if numeric else (lambda v: categories.index(str(v)))), categories


def _finish_x(ax, cells, key) -> None:
    numeric, _, categories = _x_positions(cells, key)
    if numeric:
        finite = [float(c["parameters"].get(key)) for c in cells]
        if min(finite) > 0 and max(finite) / min(finite) >= 5:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels such as 3×10⁰ overlap
            distinct = sorted(set(finite))
            if len(distinct) <= 8:  # few values: label each one as written in the spec
                ax.set_xticks(distinct, [_value(v) for v in distinct])
    else:
        ax.set_xticks(range(len(categories)), categories, fontsize=7, rotation=15 if len(categories) > 1 else 0)
    ax.set_xlabel(key)


def _line_groups(cells, line_keys) -> list[tuple[str, list]]:
    groups: dict[tuple, list] = {}
    for cell in cells:
        groups.setdefault(tuple(str(cell["parameters"].get(k)) for k in line_keys), []).append(cell)
    return [
        (", ".join(f"{k}={v}" for k, v in zip(line_keys, label)), members) for label, members in sorted(groups.items())
    ]


def _plot_curves(ax, cells, key, line_keys, check_id) -> list[float]:
    """The absolute quantities a check compares (its details' ``curves``), one colour per quantity; returns the
    values plotted."""
    _, xpos, _ = _x_positions(cells, key)
    labels = list(dict.fromkeys(label for cell in cells for label in _curves(cell, check_id)))
    styles = ("-", "--", ":", "-.")
    values = []
    for g, (name, members) in enumerate(_line_groups(cells, line_keys)):
        for j, label in enumerate(labels):
            points = sorted(
                (xpos(c["parameters"].get(key)), _curves(c, check_id)[label])
                for c in members
                if _curves(c, check_id).get(label) is not None
            )
            if not points:
                continue
            values += [y for _, y in points]
            ax.plot(
                [x for x, _ in points],
                [y for _, y in points],
                styles[g % len(styles)],
                marker="o",
                ms=2.5,
                lw=1.0,
                color=CURVE_COLOURS[j % len(CURVE_COLOURS)],
                label=f"{label} ({name})" if name else label,
            )
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, loc="best")
    _finish_x(ax, cells, key)
    return values


def _plot_check(ax, cells, key, line_keys, check_id) -> None:
    """One check's estimates against the swept ``key``: a line per group of the other swept keys, each point coloured
    by its verdict with its interval, the claimed δ where the cells share one, on a scale that fits the estimates."""
    numeric, xpos, _ = _x_positions(cells, key)
    groups = _line_groups(cells, line_keys)
    claims: set = set()
    for index, (name, members) in enumerate(groups):
        points = []
        for cell in members:
            check = _estimate(cell, check_id)
            if check is None or check.get("estimate") is None:
                continue
            points.append((xpos(cell["parameters"].get(key)), check))
            claims.add((check.get("details") or {}).get("delta_claim"))
        points.sort(key=lambda p: p[0])
        if points:
            offset = 0 if numeric else (index - (len(groups) - 1) / 2) * 0.06
            _plot_line(ax, points, offset, LINE_COLOURS[index % len(LINE_COLOURS)], name)
    estimates = [p.get("estimate") for _, members in groups for c in members if (p := _estimate(c, check_id))]
    _scale_y(ax, [e for e in estimates if e is not None], sorted(c for c in claims if c), check_id)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, loc="best")
    _finish_x(ax, cells, key)


def _plot_line(ax, points: list, offset: float, colour: str, name: str) -> None:
    """A group's estimates joined by a line, each point in its verdict's colour with its confidence interval."""
    xs = [p[0] + offset for p in points]
    ax.plot(xs, [p[1]["estimate"] for p in points], "-", color=colour, lw=0.9, zorder=1, label=name or None)
    for x, (_, check) in zip(xs, points):
        verdict_colour = COLOURS[check["verdict"]]
        ci = check.get("ci")
        if ci is not None:
            lo = ci[0] if ci[0] is not None else check["estimate"]
            hi = ci[1] if ci[1] is not None else check["estimate"]
            ax.vlines(x, lo, hi, color=verdict_colour, lw=1.2, alpha=0.7, zorder=2)
        ax.plot([x], [check["estimate"]], "o", ms=4, color=verdict_colour, zorder=3)


def _scale_y(ax, estimates: list, known: list, check_id: str) -> None:
    """Log scale for positive estimates spanning decades; for a δ check, a symlog scale at the claimed δ (drawn as a
    dashed line where every cell claims the same δ) with no negative tick."""
    if estimates and min(estimates) > 0 and max(estimates) / min(estimates) >= 20:
        ax.set_yscale("log")  # positive estimates spanning decades (e.g. a relative efficiency against n)
    if known and check_id.startswith(("dp-", "pdp-")):
        if len(set(known)) == 1:  # one claimed δ shared by every cell
            ax.axhline(known[0], color="black", ls="--", lw=0.8, label=f"claimed δ = {known[0]:g}")
        ax.set_yscale("symlog", linthresh=known[0])  # δ estimates span decades and may be slightly negative
        ax.set_ylim(bottom=-known[0])
        ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= ax.get_ylim()[1]])  # δ ≥ 0: no negative tick


def provenance_page(results) -> plt.Figure:
    """Store, seeds, α, code and library versions, the seeding rule and the spec's TOML source."""
    spec = results.spec
    fig = plt.figure(figsize=A4)
    mono = {"size": 8, "family": "DejaVu Sans Mono", "width": 110}
    lines: list[tuple[str, dict]] = [
        ("Provenance", {"size": 15, "weight": "bold", "gap": 0.01}),
        (
            "Rendered from the sweep's store alone; the store's name and path and the times its cells ran are left "
            "out (they stay in the store), so the same spec and seed give the same PDF, whatever store, executor, "
            "worker count or day.",
            {"size": 8.5, "gap": 0.006},
        ),
        (
            f"root seed: {spec['seed']}    family-wise α: {fmt(spec['alpha'])}    "
            f"per cell: {fmt(spec['alpha_per_cell'])}",
            mono,
        ),
        ("code versions of the stored cells: " + ("; ".join(results.code_versions) or "—"), mono),
        (
            f"report rendered by pdp-audit {code_version()}; "
            + ", ".join(f"{k} {v}" for k, v in library_versions().items()),
            mono,
        ),
        (
            "Seeding: a cell's identity is the SHA-256 of its canonical parameters (not its position); "
            "its seed is drawn from SeedSequence(root seed, spawn_key = that hash), and every chunk of its samples "
            "from SeedSequence(cell seed, spawn_key = (stream, block)). The numbers are identical whatever executor, "
            "worker count or order ran the cells.",
            {"size": 8.5, "gap": 0.012},
        ),
        ("Spec (TOML):", {"size": 10, "weight": "bold"}),
    ]
    source = results.spec_source.splitlines()
    for line in source[:70]:
        lines.append(
            (line.replace("\t", "    ") or " ", {"size": 7.5, "family": "DejaVu Sans Mono", "width": 130, "gap": 0})
        )
    if len(source) > 70:
        lines.append((f"... ({len(source) - 70} more lines)", {"size": 7.5, "family": "DejaVu Sans Mono"}))
    text_block(fig, lines)
    return fig


def render_sweep_pdf(results, path) -> None:
    """Render a sweep (:class:`pdp_audit.sweeps.store.SweepResults`) into the file ``path`` (a temporary of
    :func:`pdp_audit.reports.publish.write_together`)."""
    with pdf_document(path, {"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
        save_pages(pdf, _pages(results))


def _pages(results):
    """The report's pages in order, each made when the one before is saved (one page's figures open at a time)."""
    yield cover_page(results)
    yield from table_pages(results)
    yield from plot_pages(results)
    yield from exponent_pages(results)
    yield provenance_page(results)


def write_sweep_pdf(results, path: str) -> None:
    """Render a sweep to ``path`` atomically."""
    with atomic_path(path) as tmp:
        render_sweep_pdf(results, tmp)
