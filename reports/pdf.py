"""PDF audit reports with matplotlib (no TeX): cover, one page per check, per-instance page, provenance.

Byte-identical for identical runs: no timestamps in the metadata, fixed figure sizes and fonts.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

from reports.files import atomic_path  # noqa: E402
from reports.json_report import library_versions, package_version  # noqa: E402
from reports.records import (  # noqa: E402
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


def _text_block(fig, lines: list[tuple[str, dict]], top: float = 0.95, left: float = 0.07, width: int = 100) -> float:
    """Write wrapped lines from ``top`` downwards; return the y where the text ended."""
    y = top
    for text, style in lines:
        size = style.get("size", 9)
        for line in textwrap.wrap(text, width=style.get("width", width)) or [""]:
            fig.text(
                left + style.get("indent", 0),
                y,
                line,
                fontsize=size,
                color=style.get("color", "black"),
                fontweight=style.get("weight", "normal"),
                family=style.get("family", "DejaVu Sans"),
                va="top",
            )
            y -= size / 72 / A4[1] * 1.45
        y -= style.get("gap", 0.004)
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
    fig.text(0.5, y - 0.035, text, ha="center", va="center", fontsize=12, color="white", weight="bold")


def cover_page(run: Run) -> plt.Figure:
    """Page 1: mechanism, claim, verdict banner, one row per check, and how to read a verdict."""
    fig = plt.figure(figsize=A4)
    p = run.parameters
    y = _text_block(
        fig,
        [
            ("pdp-audit — privacy audit report", {"size": 20, "weight": "bold", "gap": 0.01}),
            (f"Mechanism: {run.mechanism}.  Dataset: {p.get('dataset_description', '—')}", {"size": 10}),
            (
                f"Claim: ({fmt(p.get('epsilon'))}, {fmt(p.get('delta'))})-DP.  σ = {fmt(p.get('sigma'))} "
                f"({p.get('sigma_source', '')}).  Samples per world: {p.get('trials', 0):,}.  Seed: {run.seed}.",
                {"size": 10},
            ),
            (
                f"Family-wise false-alarm probability α = {fmt(run.alpha)} (Holm over "
                f"{sum(c.statistical for c in run.checks)} statistical checks).",
                {"size": 10},
            ),
            (findings_line(run), {"size": 10, "gap": 0.02}),
        ],
    )
    verdict_banner(fig, y, run.verdict, VERDICT_TEXT[run.verdict])
    y -= 0.09
    headers = ("check", "title", "estimate", "interval", "verdict")
    xs = (0.07, 0.27, 0.60, 0.71, 0.88)
    for x, h in zip(xs, headers):
        fig.text(x, y, h, fontsize=9, weight="bold", va="top")
    y -= 0.022
    for check in run.checks:
        row = (
            check.id,
            textwrap.shorten(check.title, 46),
            fmt(check.estimate, 3),
            fmt_ci(check.ci),
            check.verdict.upper(),
        )
        for x, cell in zip(xs, row):
            colour = COLOURS[check.verdict] if cell == row[-1] else "black"
            fig.text(x, y, cell, fontsize=8, va="top", color=colour, weight="bold" if cell == row[-1] else "normal")
        y -= 0.019
    _text_block(
        fig,
        [
            ("How to read a verdict", {"size": 10, "weight": "bold"}),
            (
                "FAIL: the data contradict the claim at the family-wise significance α (Holm-adjusted p-value ≤ α). "
                "PASS: not failed, and the evidence supports the claim — the whole confidence interval lies on the "
                "claim's side, "
                "or an exact closed form satisfies it and the Monte Carlo interval agrees with that closed form. "
                "INCONCLUSIVE: neither; the check's page says what budget would decide it. "
                "Intervals are simultaneous at level 1 − α/m (Bonferroni over the m statistical checks).",
                {"size": 8.5},
            ),
        ],
        top=max(y - 0.02, 0.2),
    )
    return fig


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


def check_page(check: Check) -> plt.Figure:
    """One page per check: claim, formula, source, estimate, interval, verdict, note and its figure."""
    fig = plt.figure(figsize=A4)
    y = _text_block(
        fig,
        [
            (f"{check.title}", {"size": 15, "weight": "bold"}),
            (
                f"[{check.id}]  verdict: {check.verdict.upper()}",
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
            (check.note, {"size": 9}),
        ],
    )
    if check.figure is not None:
        ax_top = min(y - 0.04, 0.62)
        plot(fig, check.figure, (0.1, 0.07, 0.82, ax_top - 0.07))
    return fig


def _tail_curves(fig, data: TailCurves, box) -> None:
    eps = np.asarray(data.epsilons)
    curves = data.curves
    height = box[3] / len(curves)
    for i, (name, c) in enumerate(curves.items()):
        ax = fig.add_axes((box[0], box[1] + (len(curves) - 1 - i) * height + 0.04, box[2], height - 0.06))
        floor = 1e-9
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
        ax.set_ylim(max(floor, 0.3 * data.delta_claim / 100), 1.5)
        ax.set_xlabel("ε")
        ax.set_ylabel(f"δ_{{{name}}}(ε)")
        ax.legend(fontsize=7, loc="upper right")


def _roc(fig, data: Roc, box) -> None:
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
    ax.set_title(
        f"ε lower bound at the held-out threshold: {data.epsilon_lower_bound:.4g} (confidence {data.level:.8g})",
        fontsize=9,
    )
    ax.legend(fontsize=7, loc="upper left")


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


def _lines(fig, data: Lines, box) -> None:
    ax = fig.add_axes(box)
    for series in data.series:
        x = np.asarray(series.x if series.x is not None else data.x, float)
        (line,) = ax.plot(x, series.y, marker=series.marker, ms=3, label=series.label, ls=series.style)
        if series.lo is not None:
            ax.fill_between(x, series.lo, series.hi, color=line.get_color(), alpha=0.2)
    ax.set_xscale("log" if data.logx else "linear")
    ax.set_yscale("log" if data.logy else "linear")
    ax.set_xlabel(data.xlabel)
    ax.set_ylabel(data.ylabel)
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
        with PdfPages(path, metadata={"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
            for page in _pages(run):  # one figure open at a time
                pdf.savefig(page)
                plt.close(page)


def write_pdf(run: Run, path: str) -> None:
    """Render the run to ``path`` atomically."""
    with atomic_path(path) as tmp:
        render_pdf(run, tmp)


def _pages(run: Run):
    yield cover_page(run)
    yield from (check_page(c) for c in run.checks)
    if run.per_instance is not None:
        yield per_instance_page(run)
    yield from (figure_page(page) for page in run.pages if page.role == "guarantee")
    if run.findings is not None:
        yield appendix_page(run)
        yield from (check_page(c) for c in run.findings)
        yield from (figure_page(page) for page in run.pages if page.role == "paper")
    yield provenance_page(run)
