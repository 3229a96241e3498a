"""Figures of check and report pages: each figure record of :mod:`pdp_audit.reports.records` drawn into a box of a
page (:func:`plot`), and the cover's compact privacy-profile and ROC panels (:func:`draw_profile`, :func:`draw_roc`).

A δ(ε) axis is logarithmic, from below the claimed δ and every positive estimate (at most six decades below δ) up
to 1.5; an ROC's allowed region is the (ε, δ)-DP trade-off TPR ≤ min(e^ε FPR + δ, 1 − e^{−ε}(1 − FPR − δ)).
"""

from __future__ import annotations

from typing import Callable

import matplotlib.colors
import matplotlib.ticker
import numpy as np

from pdp_audit.reports.page_text import A4, fmt_level, line_width, math
from pdp_audit.reports.records import (
    CoverageFigure,
    EventRates,
    Figure,
    Histograms,
    Lines,
    Roc,
    ScatterPanels,
    TailCurves,
)


def legend_below(fig, ax, size: float, room: float = 0.035) -> None:
    """The axes' legend below it, off the data: the axes shrink from the bottom by the legend's height and ``room``
    (figure coordinates) for the tick labels and the x label; two columns where the labels fit side by side."""
    handles, labels = ax.get_legend_handles_labels()
    if not labels:
        return
    left, bottom, width, height = ax.get_position().bounds
    widest = max(line_width(label, size) for label in labels) + 3 * size  # the handle and its padding
    ncol = 2 if len(labels) > 1 and 2 * widest < width * A4[0] * 72 else 1
    rows = -(-len(labels) // ncol)
    legend_height = (rows * size * 1.5 + 4) / 72 / A4[1]
    ax.set_position((left, bottom + legend_height + room, width, height - legend_height - room))
    ax.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(left, bottom, width, legend_height),
        bbox_transform=fig.transFigure,
        ncol=ncol,
        fontsize=size,
        frameon=False,
        borderaxespad=0,
        handlelength=1.8,
        columnspacing=1.0,
    )


def _floor(figure: TailCurves) -> float:
    """The bottom of a δ(ε) axis: below the claimed δ and every positive estimate (at most 6 decades below δ)."""
    values = [np.asarray(v, float) for c in figure.curves.values() for v in (c.estimate, c.hi)]
    positive = [float(np.min(v[v > 0])) for v in values if np.any(v > 0)]
    # a pure claim (δ = 0) has no place on a log axis: the smallest positive value drawn sets the scale instead
    reference = figure.delta_claim if figure.delta_claim > 0 else min(positive, default=1.0)
    lowest = min([reference / 100, *positive])
    return max(0.3 * lowest, reference * 1e-6, 1e-300)


def _claim_height(figure: TailCurves, floor: float) -> float:
    """Where the claim's star is drawn: at δ, or on the bottom of the axis for a pure claim (δ = 0)."""
    return figure.delta_claim if figure.delta_claim > 0 else floor


def _direction(name: str) -> str:
    """A panel's direction name for a label: ``D||D'`` typeset as a subscripted δ, longer names as they are."""
    return math(f"δ_{{{name}}}") if " " not in name and "," not in name else name


def draw_profile(fig, figure, box) -> None:
    """One axis: δ(ε) of every direction (exact or certified curve, estimates, intervals) and the claim."""
    if isinstance(figure, Lines):
        _lines(fig, figure, box, compact=True)
        return
    ax = fig.add_axes(box)
    eps = np.asarray(figure.epsilons)
    floor = _floor(figure)
    drawn: list[np.ndarray] = []  # exact curves already drawn: the same curve of two panels is listed once
    for (name, c), colour in zip(figure.curves.items(), ("#2166ac", "#b35806")):
        est, lo, hi, exact = (np.asarray(v, float) for v in (c.estimate, c.lo, c.hi, c.exact))
        ax.fill_between(eps, np.maximum(lo, floor), np.maximum(hi, floor), color=colour, alpha=0.2)
        ax.plot(eps, np.where(est > 0, est, np.nan), "o", ms=2.5, color=colour, label=f"estimate, {_direction(name)}")
        if np.any(np.isfinite(exact)) and not any(np.array_equal(exact, d, equal_nan=True) for d in drawn):
            label = "exact" if len(figure.curves) > 1 and _same_pair(figure) else f"exact, {_direction(name)}"
            ax.plot(eps, np.maximum(exact, floor), "-", color=colour, lw=1, label=label)
            drawn.append(exact)
    ax.plot([figure.epsilon_claim], [_claim_height(figure, floor)], "*", ms=11, color="#b2182b", label="claim (ε, δ)")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(DECADES)
    ax.set_ylim(floor, 1.5)
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.set_title(f"Privacy profile (intervals at {fmt_level(figure.level)})", fontsize=8)
    legend_below(fig, ax, 6)


def _same_pair(figure: TailCurves) -> bool:
    """Whether every panel is one direction of one pair (plain and importance-sampled panels of it)."""
    return len({name.split(",")[0] for name in figure.curves}) == 1


def _tail_curves(fig, data: TailCurves, box) -> None:
    eps = np.asarray(data.epsilons)
    curves = data.curves
    height = box[3] / len(curves)
    for i, (name, c) in enumerate(curves.items()):
        ax = fig.add_axes((box[0], box[1] + (len(curves) - 1 - i) * height + 0.04, box[2], height - 0.06))
        floor = _floor(data)
        est, lo, hi, exact = (np.asarray(v) for v in (c.estimate, c.lo, c.hi, c.exact))
        sampled = "importance-sampling" if "importance" in name else "Monte Carlo"  # the panel's own method
        ax.fill_between(
            eps,
            np.maximum(lo, floor),
            np.maximum(hi, floor),
            color="#92c5de",
            alpha=0.6,
            label=f"{sampled} interval ({fmt_level(data.level)})",
        )
        ax.plot(eps, np.where(est > 0, est, np.nan), "o", ms=3, color="#2166ac", label=f"{sampled} estimate δ̂(ε)")
        ax.plot(eps, np.maximum(exact, floor), "-", color="black", lw=1.2, label="exact δ(ε)")
        ax.plot([data.epsilon_claim], [_claim_height(data, floor)], "*", ms=12, color="#b2182b", label="claim (ε, δ)")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(DECADES)
        ax.set_ylim(floor, 1.5)
        ax.set_xlabel("ε")
        if " " in name:  # a long panel name (sampling method and all) heads the panel; a y label has no room
            ax.set_title(f"δ(ε), {name}", fontsize=8)
            ax.set_ylabel("δ(ε)")
        else:
            ax.set_ylabel(f"δ(ε), {_direction(name)}")
        legend_below(fig, ax, 7)


def draw_roc(fig, data: Roc, box, compact: bool = False) -> None:
    """The attack's empirical ROC against the region the claim allows; ``compact``: the cover's small panel."""
    ax = fig.add_axes(box)
    fpr, tpr = np.asarray(data.fpr), np.asarray(data.tpr)
    grid = np.geomspace(1e-7, 1, 400)
    e, d = np.exp(data.epsilon_claim), data.delta_claim
    region = np.clip(np.minimum(e * grid + d, 1 - (1 - grid - d) / e), 0, 1)
    region_label = data.region_label or f"allowed by ({data.epsilon_claim:g}, {d:g})-DP"
    ax.fill_between(grid, 0, region, color="#d9f0d3", label=region_label)
    ax.plot(fpr, tpr, "-", color="#2166ac", lw=1.5, label=data.curve_label)
    pts = data.exact_points
    if pts:
        ax.plot([p[2] for p in pts], [p[1] for p in pts], "kx", ms=7, label="exact optimal trade-off")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(DECADES)
    ax.set_xlim(1e-6, 1)
    ax.set_ylim(0, 1)
    size = 7 if compact else None  # the cover's panel: the profile's sizes (a 10-point y label overran its top)
    ax.set_xlabel(data.xlabel, fontsize=size)
    ax.set_ylabel(data.ylabel, fontsize=size)
    if compact:
        ax.tick_params(labelsize=7)
    title = f"ε lower bound of the attack: {data.epsilon_lower_bound:.4g} (confidence {fmt_level(data.level)})"
    if compact:
        title = f"Attack ROC; ε lower bound {data.epsilon_lower_bound:.3g}"
    ax.set_title(title, fontsize=8 if compact else 9)
    if compact:  # the cover's small panel: below it, as the profile beside it (a steep ROC fills the upper left)
        legend_below(fig, ax, 5.5, room=0.042)  # room for 10⁻⁶ tick labels and the x label
    else:
        ax.legend(fontsize=7, loc="upper left")


def _event_limits(data: EventRates) -> tuple[tuple[float, float], tuple[float, float]]:
    """The axes' (x, y) limits of :func:`draw_event_rates`: every finite positive rate and finite log ratio drawn,
    the claim's ε and the bound, with a margin (an infinite end of an interval is drawn to the edge)."""
    rates = [v for p in data.events for v in (p.rate, *p.rate_interval) if np.isfinite(v) and v > 0]
    ratios = [v for p in data.events for v in (p.log_ratio, *p.log_ratio_interval) if np.isfinite(v)]
    ratios += [data.epsilon_claim, data.epsilon_lower_bound, 0.0]
    low, high = min(ratios), max(ratios)
    pad = 0.12 * (high - low) if high > low else 0.1
    return (min(min(rates, default=1.0) / 4, 1e-2), 1.0), (low - pad, high + pad)  # at least two decades


def draw_event_rates(fig, data: EventRates, box, compact: bool = False) -> None:
    """Each event of the black-box event test at (Q(S), log P(S)/Q(S)) with its intervals, against the region the
    claim allows (log(P/Q) ≤ log(e^ε + δ/Q)) and the bound; ``compact``: the cover's small panel.  An event with no
    release of the disfavoured world is drawn at the upper end of its rate; an infinite end reaches the edge."""
    ax = fig.add_axes(box)
    (x_low, x_high), (y_low, y_high) = _event_limits(data)
    grid = np.geomspace(x_low, x_high, 400)
    allowed = np.minimum(np.log(np.exp(data.epsilon_claim) + data.delta_claim / grid), y_high)
    e, d = data.epsilon_claim, data.delta_claim
    ax.fill_between(grid, y_low, allowed, color="#d9f0d3", label=f"allowed by ({e:g}, {d:g})-DP: P(S) ≤ e^ε Q(S) + δ")
    for k, point in enumerate(data.events):
        x = point.rate if point.rate > 0 else point.rate_interval[1]
        lo, hi = (float(np.clip(v, y_low, y_high)) for v in point.log_ratio_interval)
        y = float(np.clip(point.log_ratio, lo, hi)) if not np.isnan(point.log_ratio) else (lo + hi) / 2
        x_lo, x_hi = max(point.rate_interval[0], x_low), min(point.rate_interval[1], x_high)
        ax.errorbar(
            [x],
            [y],
            xerr=[[x - min(x_lo, x)], [max(x_hi, x) - x]],
            yerr=[[y - lo], [hi - y]],
            fmt="os"[k % 2],
            ms=4 if compact else 5,
            capsize=3,
            color=f"C{k}",
            label=f"{point.label}: ε ≥ {point.bound:.4g}",
        )
    bound = data.epsilon_lower_bound
    label = f"ε lower bound {bound:.4g} (confidence {fmt_level(data.level)})"
    ax.axhline(bound, ls="--", lw=1, color="#b2182b", label=label)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(DECADES)
    ax.set_xlim(x_low, x_high)
    ax.set_ylim(y_low, y_high)
    size = 7 if compact else None
    ax.set_xlabel("Q(S): the event's rate in the world it disfavours", fontsize=size)
    ax.set_ylabel("log P(S)/Q(S)", fontsize=size)
    if compact:
        ax.tick_params(labelsize=7)
        ax.set_title(f"Events of the attack; ε lower bound {bound:.3g}", fontsize=8)
    else:
        ax.set_title(f"ε lower bound of the event test: {bound:.4g} (confidence {fmt_level(data.level)})", fontsize=9)
    legend_below(fig, ax, 5.5 if compact else 7, room=0.042 if compact else 0.035)


def _coverage(fig, data: CoverageFigure, box) -> None:
    ax = fig.add_axes((box[0], box[1] + box[3] * 0.45, box[2], box[3] * 0.45))
    rate = data.failure_rate
    ax.errorbar(
        [rate],
        [0],
        xerr=[[rate - data.lo], [data.hi - rate]],
        fmt="o",
        color="#2166ac",
        capsize=6,
        label=f"observed failure rate, interval at {fmt_level(data.level)}",
    )
    ax.axvline(data.rho, color="#b2182b", lw=2, label=f"claimed maximum ρ = {data.rho:g}")
    if data.exact is not None:
        ax.axvline(data.exact, color="black", ls="--", label=f"exact failure probability {data.exact:.4g}")
    ax.set_yticks([])
    ax.set_xlim(0, max(data.rho, data.hi) * 1.3)
    ax.set_xlabel(f"P[bound fails]  ({data.trials:,} draws)")
    legend_below(fig, ax, 7)


def _histograms(fig, data: Histograms, box) -> None:
    ax = fig.add_axes(box)
    values = [np.asarray(s.values, float) for s in data.series]
    top = max([float(np.max(v)) for v in values if v.size] + [m.value for m in data.markers]) * 1.05
    bins = np.linspace(data.xmin, top, data.bins)
    for i, (series, v) in enumerate(zip(data.series, values)):
        style = dict(histtype="step", lw=1.3, color="black") if i else dict(color="#4393c3")
        ax.hist(v, bins=bins, label=series.label, **style)
    for marker, colour in zip(data.markers, ("#b2182b", "#b35806", "#1b7837", "#762a83")):
        ax.axvline(marker.value, color=colour, lw=2, ls=marker.style, label=marker.label)
    ax.set_xlabel(data.xlabel)
    ax.set_ylabel(data.ylabel)
    legend_below(fig, ax, 8)


def _scatter_panels(fig, data: ScatterPanels, box) -> None:
    panels = data.panels
    columns = data.columns
    rows = -(-len(panels) // columns)
    colours = np.concatenate([np.asarray(p.c, float) for p in panels])
    norm = (
        matplotlib.colors.LogNorm(max(colours[colours > 0].min(), 1e-12), colours.max())
        if data.log_colour
        else matplotlib.colors.Normalize(colours.min(), colours.max())
    )
    width, height = box[2] / columns, box[3] / rows
    for k, panel in enumerate(panels):
        r, c = divmod(k, columns)
        ax = fig.add_axes(
            (box[0] + c * width + 0.01, box[1] + (rows - 1 - r) * height + 0.03, width - 0.04, height - 0.06)
        )
        points = ax.scatter(panel.x, panel.y, c=panel.c, s=4, cmap="viridis", norm=norm)
        if panel.arrow is not None:
            ax.annotate("", xy=panel.arrow, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="red", lw=1.5))
        ax.set_title(panel.title, fontsize=8)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=6)
    cax = fig.add_axes((box[0] + box[2] + 0.005, box[1] + 0.03, 0.015, box[3] - 0.06))
    fig.colorbar(points, cax=cax).set_label(data.clabel, fontsize=8)


def _lines(fig, data: Lines, box, compact: bool = False) -> None:
    """Labelled series with optional bands; ``compact`` (the cover's small panel) shrinks labels and legend."""
    ax = fig.add_axes(box)
    if data.categories is not None:
        _categorical(ax, data)
    for series in data.series if data.categories is None else ():
        x = np.asarray(series.x if series.x is not None else data.x, float)
        (line,) = ax.plot(x, series.y, marker=series.marker, ms=3, label=series.label, ls=series.style)
        if series.lo is not None:
            ax.fill_between(x, series.lo, series.hi, color=line.get_color(), alpha=0.2)
    if data.categories is None:  # (setting a scale resets the named ticks of categories)
        ax.set_xscale("log" if data.logx else "linear")
        ax.set_yscale("log" if data.logy else "linear")
    for axis, log, limits in ((ax.xaxis, data.logx, ax.get_xlim()), (ax.yaxis, data.logy, ax.get_ylim())):
        if log:  # plain numbers (2.4, not 2.4 × 10⁰); minor ticks labelled only where the axis spans a small range
            axis.set_major_formatter(_PLAIN)
            narrow = limits[0] > 0 and limits[1] / limits[0] < 4
            axis.set_minor_formatter(_PLAIN if narrow else matplotlib.ticker.NullFormatter())
    size = 7 if compact else None
    ax.set_xlabel(data.xlabel, fontsize=size)
    ax.set_ylabel(data.ylabel, fontsize=size)
    if compact:
        ax.tick_params(labelsize=7)
    legend_below(fig, ax, 5.5 if compact else 8, room=0.03 if compact else 0.035)


def _categorical(ax, data: Lines) -> None:
    """Each series' value and interval at each named case as a point with an error bar, the series side by side;
    a series without an interval (a claimed level) as a horizontal line.  On a log axis an interval reaching 0 is
    drawn down to the axis' floor, a decade below the smallest positive value."""
    names = list(data.categories or ())
    x = np.arange(1, len(names) + 1, dtype=float)
    ranged = [s for s in data.series if s.lo is not None]
    values = np.concatenate([np.asarray(v, float) for s in data.series for v in (s.y, s.lo, s.hi) if v is not None])
    positive = values[np.isfinite(values) & (values > 0)]
    floor = positive.min() / 10 if data.logy and positive.size else 0.0
    ax.set_yscale("log" if data.logy and positive.size else "linear")
    for k, series in enumerate(data.series):
        y = np.asarray(series.y, float)
        if series.lo is None:
            if data.logy and not y[0] > 0:  # δ = 0 has no place on a log axis: the page's text states it
                continue
            ax.axhline(y[0], ls=series.style or "--", color=f"C{k}", lw=1, label=series.label)
            continue
        shift = (ranged.index(series) - (len(ranged) - 1) / 2) * 0.12
        lo, hi = (np.maximum(np.asarray(v, float), floor) for v in (series.lo, series.hi))
        shown = np.maximum(y, floor)
        ax.errorbar(
            x + shift,
            shown,
            yerr=(shown - lo, hi - shown),
            fmt=series.marker or "o",
            ms=4,
            capsize=3,
            color=f"C{k}",
            label=f"{series.label} (estimate, interval)",
        )
    ax.set_xticks(x, names, fontsize=7)
    ax.set_xlim(0.5, len(names) + 0.5)
    if data.logy and positive.size:
        ax.set_ylim(floor / 2, positive.max() * 3)


_PLAIN = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _decade(value: float, _=None) -> str:
    """A log axis' tick at a power of ten labelled as plain text, ``10⁻³`` (any other value as ``%g``)."""
    exponent = round(np.log10(value)) if value > 0 else 0
    if value > 0 and np.isclose(value, 10.0**exponent, rtol=1e-9, atol=0):
        return "10" + str(exponent).translate(_SUPERSCRIPTS)
    return f"{value:g}"


#: The major ticks of a log axis as 10⁻³ in plain text: matplotlib's own labels (``$10^{-3}$``) are mathtext, parsed
#: again on every page that draws them (a page's renderer keeps its own parser), at a few ms each.
DECADES = matplotlib.ticker.FuncFormatter(_decade)

#: each figure record's drawer: ``(fig, figure, box) -> None``, its figure of the record's own type
PLOTTERS: dict[type, Callable[..., None]] = {
    TailCurves: _tail_curves,
    Roc: draw_roc,
    EventRates: draw_event_rates,
    CoverageFigure: _coverage,
    Histograms: _histograms,
    ScatterPanels: _scatter_panels,
    Lines: _lines,
}


def plot(fig, figure: Figure, box) -> None:
    """Draw a figure record into ``box`` (left, bottom, width, height in figure coordinates)."""
    PLOTTERS[type(figure)](fig, figure, box)
