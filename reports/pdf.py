"""PDF audit reports with matplotlib (no TeX): cover, one page per check, per-instance page, provenance.

Byte-identical for identical runs: no timestamps in the metadata, fixed figure sizes and fonts.  The cover and the
appendix's title page are :mod:`pdp_audit.reports.cover`, the figures :mod:`pdp_audit.reports.plots`, the text
:mod:`pdp_audit.reports.page_text`.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pdp_audit.reports.check_reading import basis, evidence_lines, reading  # noqa: E402
from pdp_audit.reports.cover import appendix_page, cover_continued, cover_page, cover_rows  # noqa: E402
from pdp_audit.reports.files import atomic_path  # noqa: E402
from pdp_audit.reports.json_report import code_version, library_versions  # noqa: E402
from pdp_audit.reports.page_text import A4, COLOURS, fmt, pdf_document, save_pages, text_block, text_height  # noqa: E402
from pdp_audit.reports.plots import legend_below, plot  # noqa: E402
from pdp_audit.reports.records import Check, Clipping, Page, Run  # noqa: E402
from pdp_audit.reports.review_page import review_pages  # noqa: E402
from pdp_audit.reports.verdict_words import check_word


def check_lines(check: Check) -> list[tuple[str, dict]]:
    """A check's text: title, verdict, claim, formula, source, the deciding number then the others, p-values, note."""
    role = "" if check.role == "guarantee" else "  (paper finding: not part of the verdict)"
    return [
        (f"{check.title}", {"size": 15, "weight": "bold"}),
        (
            f"[{check.id}]  verdict: {check_word(check.verdict)}{role}",
            {"size": 11, "weight": "bold", "color": COLOURS[check.verdict], "gap": 0.012},
        ),
        (f"Basis of the verdict: {basis(check)}.   The evidence shows: {reading(check)}.", {"size": 9.5}),
        ("Claim: " + check.claim, {"size": 9.5}),
        ("Formula: " + check.formula, {"size": 9.5}),
        ("Source: " + check.source, {"size": 9.5, "gap": 0.012}),
        *((line, {"size": 9.5}) for line in evidence_lines(check)),
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
    y = text_block(fig, check_lines(check))
    if check.figure is not None:
        ax_top = min(y - 0.02, 0.62)
        plot(fig, check.figure, (0.1, 0.07, 0.82, ax_top - 0.07))
    return fig


def text_checks_page(checks: list[Check]) -> plt.Figure:
    """Checks without a figure, one below the other on one page (no half-empty pages)."""
    fig = plt.figure(figsize=A4)
    y = 0.95
    for check in checks:
        y = text_block(fig, check_lines(check), top=y)
    return fig


def check_pages(checks) -> list:
    """The pages of ``checks``, as functions drawing them: a page per check with a figure, in order; then the
    checks without one, stacked as many to a page as fit (no half-empty pages)."""
    pages = [lambda check=check: check_page(check) for check in checks if check.figure is not None]
    stack: list[Check] = []
    height = 0.0
    for check in (c for c in checks if c.figure is None):
        h = text_height(check_lines(check))
        if stack and height + h > 0.9:
            pages.append(lambda stack=stack: text_checks_page(stack))
            stack, height = [], 0.0
        stack, height = stack + [check], height + h
    if stack:
        pages.append(lambda stack=stack: text_checks_page(stack))
    return pages


def figure_page(page: Page) -> plt.Figure:
    """A report page with a title, explanatory text and one figure (see ``Run.pages``)."""
    fig = plt.figure(figsize=A4)
    text = {"size": 9.5, **({"gap": 0.012} if page.rows else {})}  # a table below: a gap before it
    y = text_block(fig, [(page.title, {"size": 15, "weight": "bold"}), (page.text, text)])
    rows = [(row, {"size": 7, "family": "DejaVu Sans Mono", "width": 160}) for row in page.rows]
    y = text_block(fig, rows, top=y) if rows else y
    if page.figure is not None:
        top = min(y - 0.04, 0.7)
        plot(fig, page.figure, (0.1, 0.07, 0.8, top - 0.07))
    return fig


#: Relative gap below the worst-case DP ε under which an individual's ε counts as the worst case (the per-instance
#: ε are root-finds at sensitivities rounded to 12 decimals; a real gap is far larger).
WORST_CASE_RTOL = 1e-9


def per_instance_wording(epsilons: np.ndarray, dp_epsilon: float, clipping: Clipping | None) -> str:
    """What the per-instance page says about who enjoys a smaller ε, from the numbers themselves: the share of
    individuals strictly below the worst-case DP ε, and (for a clipping query) the share clipped to the bound."""
    below = float(np.mean(epsilons < dp_epsilon * (1 - WORST_CASE_RTOL))) if epsilons.size else 0.0
    clipped = ""
    if clipping is not None:
        clipped = f" {clipping.clipped} of {clipping.rows} rows ({clipping.share:.1%}) are clipped to the bound."
    if below == 0:
        if clipping is not None and clipping.clipped == clipping.rows:
            why, clipped = f"every row ({clipping.rows} of {clipping.rows}) is clipped to the bound", ""
        else:
            why = "every row changes the query by the worst-case amount"
        return (
            f"Here {why}, so every individual has the worst-case ε: per-instance DP gives no one a smaller ε "
            f"than the DP guarantee.{clipped}"
        )
    return (
        f"{below:.1%} of individuals change the query less than the worst case (rows inside the clip ball) and so "
        f"have a smaller ε than the worst-case DP guarantee; the other {1 - below:.1%} have the worst-case ε." + clipped
    )


def per_instance_page(run: Run) -> plt.Figure:
    """Every individual's exact pDP ε against the Corollary 23 bound, the DP ε and the claim."""
    pi = run.per_instance
    if pi is None:  # drawn only for a run that has the record (run_pages)
        raise ValueError("the run has no per-instance record to draw")
    fig = plt.figure(figsize=A4)
    eps = np.asarray(pi.pdp_epsilon)
    y = text_block(
        fig,
        [
            ("Per-instance privacy: every individual's ε", {"size": 15, "weight": "bold"}),
            (
                f"For each of the {eps.size} individuals z in the dataset, the exact per-instance ε at δ = "
                f"{pi.delta:g}: the analytic Gaussian ε at her own {pi.sensitivity_label} "
                "(per-instance DP, Wang 2019, §2). " + per_instance_wording(eps, pi.dp_epsilon, run.clipping),
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
    bins = np.linspace(0, top, 50).tolist()  # the edges as the Sequence[float] matplotlib's signature names
    ax.hist(eps, bins=bins, color="#4393c3", label="exact pDP ε (analytic Gaussian)")
    ax.hist(pi.cor23_epsilon, bins=bins, histtype="step", color="black", lw=1.2, label="Corollary 23 bound on pDP ε")
    ax.axvline(pi.dp_epsilon, color="#b2182b", lw=2, label="worst-case DP ε of the mechanism")
    ax.axvline(pi.claim_epsilon, color="#b35806", ls="--", lw=1.5, label="claimed ε")
    ax.set_xlabel(f"ε at δ = {pi.delta:g}")
    ax.set_ylabel("number of individuals")
    legend_below(fig, ax, 8)
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
            f"seed: {run.seed}    family-wise α: {run.alpha:g}    pdp-audit {code_version()}",
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
    text_block(fig, lines)
    return fig


def render_pdf(run: Run, path: str | Path) -> None:
    """Render the run to ``path`` (not atomically: see :func:`write_pdf`)."""
    metadata = {
        "Title": f"pdp-audit {'certificate' if run.certified else 'audit'}: {run.mechanism}",
        "Subject": f"verdict: {run.verdict}",
        "Creator": "pdp-audit",
        "Producer": "pdp-audit",
        "CreationDate": None,
    }
    with pdf_document(path, metadata) as pdf:
        save_pages(pdf, run_pages(run))  # one figure open at a time


def write_pdf(run: Run, path: str) -> None:
    """Render the run to ``path`` atomically."""
    with atomic_path(path) as tmp:
        render_pdf(run, tmp)


def run_pages(run: Run, provenance: bool = True):
    """The run's pages in order; ``provenance=False`` leaves out the last (a session report states it once)."""
    if run.review is not None:  # the page a reviewer reads: page 1
        yield from review_pages(run.review)
    yield cover_page(run)
    if cover_rows(run) < len(run.checks):
        yield from cover_continued(run, cover_rows(run))
    yield from (page() for page in check_pages(run.checks))
    if run.per_instance is not None:
        yield per_instance_page(run)
    yield from (figure_page(page) for page in run.pages if page.role == "guarantee")
    if run.findings:
        yield from appendix_page(run)
        yield from (page() for page in check_pages(run.findings))
        yield from (figure_page(page) for page in run.pages if page.role == "paper")
    if provenance:
        yield provenance_page(run)
