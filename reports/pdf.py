"""PDF audit reports with matplotlib (no TeX): cover, one page per check, per-instance page, provenance.

Byte-identical for identical runs: no timestamps in the metadata, fixed figure sizes and fonts.
"""

from __future__ import annotations

import logging
import re
import textwrap
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

from pdp_audit.reports.files import atomic_path  # noqa: E402
from pdp_audit.reports.json_report import library_versions, package_version  # noqa: E402
from pdp_audit.reports.records import (  # noqa: E402
    Check,
    CoverageFigure,
    Figure,
    Histograms,
    Lines,
    Page,
    Roc,
    Run,
    ScatterPanels,
    TailCurves,
)

# matplotlib's font subsetting (fontTools) warns on stderr that the embedded DejaVu fonts' timestamps are
# "very low" and reads them as Unix times; harmless for the PDF, noise for a user reading the run's output.
logging.getLogger("fontTools.ttLib.tables._h_e_a_d").setLevel(logging.ERROR)

A4 = (8.27, 11.69)
COLOURS = {"pass": "#1b7837", "fail": "#b2182b", "inconclusive": "#b35806"}
VERDICT_TEXT = {
    "pass": "PASS — every guarantee is supported by the evidence",
    "fail": "FAIL — a guarantee is violated at the stated significance",
    "inconclusive": "INCONCLUSIVE — no violation found, but not every guarantee could be confirmed",
}
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
    """The height (figure coordinates) :func:`_text_block` will take to write ``lines``."""
    return sum(style.get("size", 9) / 72 / A4[1] * 1.45 + style["gap"] for _, style in _wrapped(lines, width))


def _text_block(fig, lines: list[tuple[str, dict]], top: float = 0.95, left: float = 0.07, width: int = 100) -> float:
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


def cover_page(run: Run) -> plt.Figure:
    """Page 1: what was audited or certified, the verdict, the central figure, one row per guarantee, scope.

    The central figure is the privacy profile δ(ε) of the audited neighbouring pair (the first DP check
    carrying one) beside the likelihood-ratio attack's ROC against the region the claim allows.  Rows that
    do not fit continue on :func:`cover_continued`.
    """
    fig = plt.figure(figsize=A4)
    y = _text_block(fig, _identity_lines(run), top=0.965)
    verdict_banner(fig, y, run.verdict, VERDICT_TEXT[run.verdict])
    y -= 0.075
    y = _central_figure(fig, run, y)
    _guarantee_rows(fig, run.checks[: cover_rows(run)], y)
    _text_block(fig, _scope_lines(run), top=0.03 + text_height(_scope_lines(run)))
    return fig


def cover_continued(run: Run, first: int) -> plt.Figure:
    """The guarantees the cover had no room for."""
    fig = plt.figure(figsize=A4)
    y = _text_block(fig, [("Guarantees (continued)", {"size": 13, "weight": "bold", "gap": 0.01})])
    _guarantee_rows(fig, run.checks[first:], y)
    return fig


def cover_rows(run: Run) -> int:
    """How many guarantee rows fit on the cover (the rest go to :func:`cover_continued`)."""
    top = 0.965 - text_height(_identity_lines(run)) - 0.075 - (_CENTRAL_HEIGHT if _profile(run) else 0)
    return max(0, int((top - 0.03 - text_height(_scope_lines(run)) - 0.02) / _ROW) - 1)


_CENTRAL_HEIGHT = 0.29
_ROW = 0.017  # height of a guarantee's row on the cover


def _identity_lines(run: Run) -> list[tuple[str, dict]]:
    """Title, mechanism, claim, data and its fingerprint, seed, α, code version, every parameter."""
    p, c = run.parameters, run.certified
    title = f"pdp-audit certificate — {run.mechanism}" if c else f"pdp-audit — privacy audit of {run.mechanism}"
    data = p.get("dataset_description") or p.get("dataset") or p.get("data") or "—"
    lines = [
        (title, {"size": 18, "weight": "bold", "gap": 0.008}),
        (
            f"Claim: ({fmt(p.get('epsilon'))}, {fmt(p.get('delta'))})-DP.   Seed {run.seed}.   "
            f"Family-wise false-alarm probability α = {fmt(run.alpha)} (Holm over "
            f"{sum(x.statistical for x in run.checks)} statistical guarantees).",
            {"size": 9.5},
        ),
        (f"Data: {data}", {"size": 9.5}),
    ]
    if c:
        lines.append(
            (
                f"Data fingerprint: sha256 {c.get('data_sha256', '—')}, shape {c.get('data_shape', '—')}.   "
                f"Code: pdp-audit {c.get('code_version', '—')}.",
                {"size": 8.5, "family": "DejaVu Sans Mono"},
            )
        )
    if run.findings is None or run.findings:  # an audit without paper statements (a user's pair) says nothing
        lines.append((findings_line(run), {"size": 8.5, "gap": 0.006}))
    shown = [(k, v) for k, v in (c.get("parameters", p) if c else p).items() if not isinstance(v, (dict, list))]
    cells = [f"{k} = {textwrap.shorten(fmt(v, 6), 34)}" for k, v in shown]
    width = 3
    for i in range(0, len(cells), width):
        row = "".join(cell[:44].ljust(46) for cell in cells[i : i + width])
        lines.append((row, {"size": 6.5, "family": "DejaVu Sans Mono", "width": 160}))
    lines[-1] = (lines[-1][0], {**lines[-1][1], "gap": 0.012})
    return lines


def _floor(figure: TailCurves) -> float:
    """The bottom of a δ(ε) axis: below the claimed δ and every positive estimate (at most 6 decades below δ)."""
    values = [np.asarray(v, float) for c in figure.curves.values() for v in (c.estimate, c.hi)]
    positive = [float(np.min(v[v > 0])) for v in values if np.any(v > 0)]
    lowest = min([figure.delta_claim / 100, *positive])
    return max(0.3 * lowest, figure.delta_claim * 1e-6, 1e-300)


def _direction(name: str) -> str:
    """A panel's direction name for a label: ``D||D'`` typeset as a subscripted δ, longer names as they are."""
    return math(f"δ_{{{name}}}") if " " not in name and "," not in name else name


def _profile(run: Run):
    """The (privacy profile, ROC) the cover draws: the first guarantee carrying each (None where absent)."""
    profile = next((c.figure for c in run.checks if isinstance(c.figure, (TailCurves, Lines))), None)
    roc = next((c.figure for c in run.checks if isinstance(c.figure, Roc)), None)
    return (profile, roc) if profile is not None or roc is not None else None


def _central_figure(fig, run: Run, top: float) -> float:
    """Draw the privacy profile and the ROC side by side below ``top``; return the y below them."""
    figures = _profile(run)
    if figures is None:
        return top
    profile, roc = figures
    box_height = _CENTRAL_HEIGHT - 0.09
    bottom = top - _CENTRAL_HEIGHT + 0.06
    if profile is not None and roc is not None:
        _profile_panel(fig, profile, (0.09, bottom, 0.37, box_height))
        _roc(fig, roc, (0.58, bottom, 0.37, box_height), compact=True)
    elif profile is not None:
        _profile_panel(fig, profile, (0.09, bottom, 0.84, box_height))
    else:
        _roc(fig, roc, (0.09, bottom, 0.84, box_height), compact=True)
    return top - _CENTRAL_HEIGHT


def _profile_panel(fig, figure, box) -> None:
    """One axis: δ(ε) of every direction (exact or certified curve, estimates, intervals) and the claim."""
    if isinstance(figure, Lines):
        _lines(fig, figure, box, compact=True)
        return
    ax = fig.add_axes(box)
    eps = np.asarray(figure.epsilons)
    floor = _floor(figure)
    for (name, c), colour in zip(figure.curves.items(), ("#2166ac", "#b35806")):
        est, lo, hi, exact = (np.asarray(v, float) for v in (c.estimate, c.lo, c.hi, c.exact))
        ax.fill_between(eps, np.maximum(lo, floor), np.maximum(hi, floor), color=colour, alpha=0.2)
        ax.plot(eps, np.where(est > 0, est, np.nan), "o", ms=2.5, color=colour, label=f"estimate, {_direction(name)}")
        if np.any(np.isfinite(exact)):
            ax.plot(eps, np.maximum(exact, floor), "-", color=colour, lw=1, label=f"exact, {_direction(name)}")
    ax.plot([figure.epsilon_claim], [figure.delta_claim], "*", ms=11, color="#b2182b", label="claim (ε, δ)")
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.5)
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.set_title(f"Privacy profile (intervals at {figure.level:.8g})", fontsize=8)
    ax.legend(fontsize=6, loc="upper right")


def _guarantee_rows(fig, checks, y: float) -> float:
    """One row per guarantee of ``checks`` from ``y`` down; return the y below the last row."""
    xs = (0.07, 0.27, 0.62, 0.73, 0.88)
    for x, h in zip(xs, ("guarantee", "title", "estimate", "interval", "verdict")):
        fig.text(x, y, h, fontsize=8.5, weight="bold", va="top")
    y -= 0.02
    for check in checks:
        row = (check.id, textwrap.shorten(check.title, 50), fmt(check.estimate, 3), fmt_ci(check.ci))
        for x, cell in zip(xs, row):
            fig.text(x, y, math(cell), fontsize=7.5, va="top")
        fig.text(xs[-1], y, check.verdict.upper(), fontsize=7.5, va="top", color=COLOURS[check.verdict], weight="bold")
        y -= _ROW
    return y


def _scope_lines(run: Run) -> list[tuple[str, dict]]:
    """What the verdict does and does not cover, from the run's own checks."""
    exact = sum(not c.statistical for c in run.checks)
    sampled = len(run.checks) - exact
    target = run.parameters.get("worst_case_target") or run.parameters.get("pair")
    neighbour = (
        f"The DP guarantees are checked at the neighbouring pair {target}."
        if target
        else "The DP guarantees are checked at the worst neighbour the audit searched for, not one proven worst; "
        "each check's page says which pair it used."
    )
    return [
        ("What this does and does not cover", {"size": 9.5, "weight": "bold"}),
        (
            f"{neighbour} {exact} guarantees rest on exact mathematics (closed forms and identities computed by the "
            f"suite, to floating-point tolerance); {sampled} rest on sampling, decided at family-wise false-alarm "
            f"probability α = {fmt(run.alpha)} (simultaneous intervals at level 1 − α/{max(sampled, 1)}). "
            "PASS: the whole interval lies on the claim's side (or an exact closed form computed here satisfies the "
            "claim and the sampled estimate agrees with it); FAIL: the data contradict the claim at α; INCONCLUSIVE: "
            "neither, and the page says what budget decides it. Out of scope: floating-point and timing side "
            "channels, the random number generator of the deployment, and any mechanism or parameter other than "
            "those listed above.",
            {"size": 8, "width": 120},
        ),
    ]


def findings_line(run: Run) -> str:
    """One sentence on the paper findings: not run, or their counts by verdict (never part of the verdict)."""
    if run.findings is None:
        return (
            "Statements as printed in the papers were not checked in this run (ask with --paper-claims, or run "
            "pdp-audit claims); the verdict is about the deployed mechanism only."
        )
    counts = {v: sum(c.verdict == v for c in run.findings) for v in COLOURS}
    return (
        f"Paper findings (appendix, not part of the verdict): {len(run.findings)} statements checked as printed — "
        f"{counts['pass']} pass, {counts['fail']} fail, {counts['inconclusive']} inconclusive."
    )


def appendix_page(run: Run) -> plt.Figure:
    """The title page of the appendix of paper findings: what they are, and one row per finding."""
    fig = plt.figure(figsize=A4)
    y = _text_block(
        fig,
        [
            ("Appendix: paper findings", {"size": 18, "weight": "bold", "gap": 0.01}),
            (
                "Statements checked as printed in the papers. Each has its own verdict, decided as a separate "
                f"family of tests at α = {fmt(run.alpha)}; none of them is part of the deployment's verdict, "
                "unless the audited configuration deploys the printed form (it is then listed among the guarantees).",
                {"size": 9.5, "gap": 0.02},
            ),
        ],
    )
    for check in run.findings:
        fig.text(0.07, y, check.id, fontsize=8, va="top")
        fig.text(0.3, y, textwrap.shorten(check.title, 70), fontsize=8, va="top")
        fig.text(0.88, y, check.verdict.upper(), fontsize=8, va="top", color=COLOURS[check.verdict], weight="bold")
        y -= 0.019
    return fig


def check_lines(check: Check) -> list[tuple[str, dict]]:
    """A check's text: title, verdict, claim, formula, source, estimate, interval, p-values, note."""
    role = "" if check.role == "guarantee" else "  (paper finding: not part of the verdict)"
    return [
        (f"{check.title}", {"size": 15, "weight": "bold"}),
        (
            f"[{check.id}]  verdict: {check.verdict.upper()}{role}",
            {"size": 11, "weight": "bold", "color": COLOURS[check.verdict], "gap": 0.012},
        ),
        ("Claim: " + check.claim, {"size": 9.5}),
        ("Formula: " + check.formula, {"size": 9.5}),
        ("Source: " + check.source, {"size": 9.5, "gap": 0.012}),
        (f"Estimate: {fmt(check.estimate, 6)}    exact (closed form): {fmt(check.exact, 6)}", {"size": 9.5}),
        (
            f"Interval: {fmt_ci(check.ci)}" + (f" at confidence {check.level:.10g}" if check.level else ""),
            {"size": 9.5},
        ),
        (
            f"p-value of 'claim holds': {fmt(check.pvalue)}    Holm-adjusted: {fmt(check.adjusted_pvalue)}"
            if check.statistical
            else "Exact check (no sampling error; decided to floating-point tolerance).",
            {"size": 9.5, "gap": 0.012},
        ),
        (check.note, {"size": 9, "gap": 0.03}),
    ]


def check_page(check: Check) -> plt.Figure:
    """One page for a check with a figure: its text (:func:`check_lines`), then the figure."""
    fig = plt.figure(figsize=A4)
    y = _text_block(fig, check_lines(check))
    if check.figure is not None:
        ax_top = min(y - 0.02, 0.62)
        plot(fig, check.figure, (0.1, 0.07, 0.82, ax_top - 0.07))
    return fig


def text_checks_page(checks: list[Check]) -> plt.Figure:
    """Checks without a figure, one below the other on one page (no half-empty pages)."""
    fig = plt.figure(figsize=A4)
    y = 0.95
    for check in checks:
        y = _text_block(fig, check_lines(check), top=y)
    return fig


def check_pages(checks) -> list:
    """The pages of ``checks``, as functions drawing them: a page per check with a figure, in order; then the
    checks without one, stacked as many to a page as fit (no half-empty pages)."""
    pages = [lambda check=check: check_page(check) for check in checks if check.figure is not None]
    stack, height = [], 0.0
    for check in (c for c in checks if c.figure is None):
        h = text_height(check_lines(check))
        if stack and height + h > 0.9:
            pages.append(lambda stack=stack: text_checks_page(stack))
            stack, height = [], 0.0
        stack, height = stack + [check], height + h
    if stack:
        pages.append(lambda stack=stack: text_checks_page(stack))
    return pages


def _tail_curves(fig, data: TailCurves, box) -> None:
    eps = np.asarray(data.epsilons)
    curves = data.curves
    height = box[3] / len(curves)
    for i, (name, c) in enumerate(curves.items()):
        ax = fig.add_axes((box[0], box[1] + (len(curves) - 1 - i) * height + 0.04, box[2], height - 0.06))
        floor = _floor(data)
        est, lo, hi, exact = (np.asarray(v) for v in (c.estimate, c.lo, c.hi, c.exact))
        ax.fill_between(
            eps,
            np.maximum(lo, floor),
            np.maximum(hi, floor),
            color="#92c5de",
            alpha=0.6,
            label=f"Monte Carlo interval ({data.level:.8g})",
        )
        ax.plot(eps, np.where(est > 0, est, np.nan), "o", ms=3, color="#2166ac", label="Monte Carlo estimate δ̂(ε)")
        ax.plot(eps, np.maximum(exact, floor), "-", color="black", lw=1.2, label="exact δ(ε)")
        ax.plot([data.epsilon_claim], [data.delta_claim], "*", ms=12, color="#b2182b", label="claim (ε, δ)")
        ax.set_yscale("log")
        ax.set_ylim(floor, 1.5)
        ax.set_xlabel("ε")
        ax.set_ylabel(f"δ(ε), {_direction(name)}")
        ax.legend(fontsize=7, loc="upper right")


def _roc(fig, data: Roc, box, compact: bool = False) -> None:
    ax = fig.add_axes(box)
    fpr, tpr = np.asarray(data.fpr), np.asarray(data.tpr)
    grid = np.geomspace(1e-7, 1, 400)
    e, d = np.exp(data.epsilon_claim), data.delta_claim
    region = np.clip(np.minimum(e * grid + d, 1 - (1 - grid - d) / e), 0, 1)
    ax.fill_between(grid, 0, region, color="#d9f0d3", label=f"allowed by ({data.epsilon_claim:g}, {d:g})-DP")
    ax.plot(fpr, tpr, "-", color="#2166ac", lw=1.5, label="likelihood-ratio attack (empirical ROC)")
    pts = data.exact_points
    if pts:
        ax.plot([p[2] for p in pts], [p[1] for p in pts], "kx", ms=7, label="exact optimal trade-off")
    ax.set_xscale("log")
    ax.set_xlim(1e-6, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("false-positive rate (output of D' called D)")
    ax.set_ylabel("true-positive rate (output of D called D)")
    title = f"ε lower bound of the attack: {data.epsilon_lower_bound:.4g} (confidence {data.level:.8g})"
    if compact:
        title = f"Attack ROC; ε lower bound {data.epsilon_lower_bound:.3g}"
    ax.set_title(title, fontsize=8 if compact else 9)
    ax.legend(fontsize=6 if compact else 7, loc="upper left")


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
        label=f"observed failure rate, interval at {data.level:.8g}",
    )
    ax.axvline(data.rho, color="#b2182b", lw=2, label=f"claimed maximum ρ = {data.rho:g}")
    if data.exact is not None:
        ax.axvline(data.exact, color="black", ls="--", label=f"exact failure probability {data.exact:.4g}")
    ax.set_yticks([])
    ax.set_xlim(0, max(data.rho, data.hi) * 1.3)
    ax.set_xlabel(f"P[bound fails]  ({data.trials:,} draws)")
    ax.legend(fontsize=7, loc="upper right")


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
    ax.legend(fontsize=8)


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
    for series in data.series:
        x = np.asarray(series.x if series.x is not None else data.x, float)
        (line,) = ax.plot(x, series.y, marker=series.marker, ms=3, label=series.label, ls=series.style)
        if series.lo is not None:
            ax.fill_between(x, series.lo, series.hi, color=line.get_color(), alpha=0.2)
    ax.set_xscale("log" if data.logx else "linear")
    ax.set_yscale("log" if data.logy else "linear")
    size = 7 if compact else None
    ax.set_xlabel(data.xlabel, fontsize=size)
    ax.set_ylabel(data.ylabel, fontsize=size)
    if compact:
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=5.5, loc="lower left", framealpha=0.85)
    else:
        ax.legend(fontsize=8)


PLOTTERS = {
    TailCurves: _tail_curves,
    Roc: _roc,
    CoverageFigure: _coverage,
    Histograms: _histograms,
    ScatterPanels: _scatter_panels,
    Lines: _lines,
}


def plot(fig, figure: Figure, box) -> None:
    """Draw a figure record into ``box`` (left, bottom, width, height in figure coordinates)."""
    PLOTTERS[type(figure)](fig, figure, box)


def figure_page(page: Page) -> plt.Figure:
    """A report page with a title, explanatory text and one figure (see ``Run.pages``)."""
    fig = plt.figure(figsize=A4)
    y = _text_block(fig, [(page.title, {"size": 15, "weight": "bold"}), (page.text, {"size": 9.5})])
    if page.figure is not None:
        top = min(y - 0.04, 0.7)
        plot(fig, page.figure, (0.1, 0.07, 0.8, top - 0.07))
    return fig


def per_instance_page(run: Run) -> plt.Figure:
    """Every individual's exact pDP ε against the Corollary 23 bound, the DP ε and the claim."""
    pi = run.per_instance
    fig = plt.figure(figsize=A4)
    eps = np.asarray(pi.pdp_epsilon)
    y = _text_block(
        fig,
        [
            ("Per-instance privacy: every individual's ε", {"size": 15, "weight": "bold"}),
            (
                f"For each of the {eps.size} individuals z in the dataset, the exact per-instance ε at δ = "
                f"{pi.delta:g}: the "
                "analytic Gaussian ε at her own sensitivity ‖Δ_z‖ (Definition D2). Rows well inside the clip ball "
                "change the "
                "query less than the worst case, so they enjoy a smaller ε than the worst-case DP guarantee.",
                {"size": 9.5},
            ),
            (
                f"Median pDP ε = {pi.median:.4g}; largest = {pi.max:.4g}; worst-case DP ε = {pi.dp_epsilon:.4g}; "
                f"{100 * pi.fraction_below_half_dp:.1f}% of individuals have less than half the DP ε.",
                {"size": 9.5},
            ),
        ],
    )
    ax = fig.add_axes((0.1, 0.08, 0.82, min(y - 0.05, 0.6) - 0.08))
    top = max(pi.dp_epsilon, float(np.max(pi.cor23_epsilon))) * 1.05
    bins = np.linspace(0, top, 50)
    ax.hist(eps, bins=bins, color="#4393c3", label="exact pDP ε (analytic Gaussian)")
    ax.hist(pi.cor23_epsilon, bins=bins, histtype="step", color="black", lw=1.2, label="Corollary 23 bound on pDP ε")
    ax.axvline(pi.dp_epsilon, color="#b2182b", lw=2, label="worst-case DP ε of the mechanism")
    ax.axvline(pi.claim_epsilon, color="#b35806", ls="--", lw=1.5, label="claimed ε")
    ax.set_xlabel(f"ε at δ = {pi.delta:g}")
    ax.set_ylabel("number of individuals")
    ax.legend(fontsize=8)
    return fig


def provenance_page(run: Run) -> plt.Figure:
    """The last page: parameters, seed and library versions, so the run can be reproduced."""
    fig = plt.figure(figsize=A4)
    lines = [("Parameters, seed and versions", {"size": 15, "weight": "bold", "gap": 0.01})]
    for key, value in run.parameters.items():
        lines.append((f"{key}: {fmt(value, 10)}", {"size": 9, "family": "DejaVu Sans Mono"}))
    lines.append(("", {}))
    lines.append(
        (
            f"seed: {run.seed}    family-wise α: {run.alpha:g}    pdp-audit {package_version()}",
            {"size": 9, "family": "DejaVu Sans Mono"},
        )
    )
    lines.append(
        (
            "versions: " + ", ".join(f"{k} {v}" for k, v in library_versions().items()),
            {"size": 9, "family": "DejaVu Sans Mono"},
        )
    )
    lines.append(
        (
            "Reproduce: the same seed and parameters give the same numbers and a byte-identical report, "
            "whatever the number of workers.",
            {"size": 9},
        )
    )
    _text_block(fig, lines)
    return fig


def render_pdf(run: Run, path: str | Path) -> None:
    """Render the run to ``path`` (not atomically: see :func:`write_pdf`)."""
    with plt.rc_context(RC):
        metadata = {
            "Title": f"pdp-audit {'certificate' if run.certified else 'audit'}: {run.mechanism}",
            "Subject": f"verdict: {run.verdict}",
            "Creator": "pdp-audit",
            "Producer": "pdp-audit",
            "CreationDate": None,
        }
        with PdfPages(path, metadata=metadata) as pdf:
            for page in _pages(run):  # one figure open at a time
                pdf.savefig(page)
                plt.close(page)


def write_pdf(run: Run, path: str) -> None:
    """Render the run to ``path`` atomically."""
    with atomic_path(path) as tmp:
        render_pdf(run, tmp)


def _pages(run: Run):
    yield cover_page(run)
    if cover_rows(run) < len(run.checks):
        yield cover_continued(run, cover_rows(run))
    yield from (page() for page in check_pages(run.checks))
    if run.per_instance is not None:
        yield per_instance_page(run)
    yield from (figure_page(page) for page in run.pages if page.role == "guarantee")
    if run.findings:
        yield appendix_page(run)
        yield from (page() for page in check_pages(run.findings))
        yield from (figure_page(page) for page in run.pages if page.role == "paper")
    yield provenance_page(run)
