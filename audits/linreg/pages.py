"""The extra report pages of the linear-regression audits, as :class:`~pdp_audit.reports.records.Page` records with
typed figures: the per-instance page of every run and the pages of the reproduced figures (their numbers come
from :mod:`pdp_audit.audits.linreg.reproductions`).
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from pdp_audit.audits.linreg.context import Context, offdata_targets
from pdp_audit.reports.records import Histograms, Line, Lines, Marker, Page, Series


class Figure3(TypedDict):
    """The design of [LR] Fig. 3 (c), (d): dimension, the n swept, data sets per n and releases per data set."""

    d: int
    ns: tuple[int, ...]
    datasets: int
    releases: int


def log_histogram(values: np.ndarray, markers: list[Marker], xlabel: str, series_label: str) -> Histograms:
    """Histogram of the positive finite ``values`` (and vertical ``markers``) on a log10 scale when they span
    more than a factor 20, else linear."""
    values = np.asarray(values, float)
    positive = values[np.isfinite(values) & (values > 0)]
    marker_values = [m.value for m in markers if np.isfinite(m.value) and m.value > 0]
    everything = np.concatenate([positive, marker_values]) if positive.size or marker_values else np.array([1.0])
    use_log = everything.max() / max(everything.min(), 1e-300) > 20
    f = np.log10 if use_log else (lambda v: v)
    series = [Series(series_label, f(positive))]
    shown = [Marker(m.label, float(f(m.value)), m.style) for m in markers if np.isfinite(m.value) and m.value > 0]
    lo = min([float(np.min(s.values)) for s in series if len(s.values)] + [m.value for m in shown])
    return Histograms(
        series=series,
        markers=shown,
        bins=40,
        xmin=float(np.floor(lo * 2) / 2) if use_log else 0.0,
        xlabel=("log10 " if use_log else "") + xlabel,
        ylabel="number of data points",
    )


def per_instance_page(ctx: Context, audit, cands, worst_eps_dp: float) -> tuple[Page, dict]:
    """The page of every data point's pDP ε against the worst DP ε found and the claim, and its summary numbers.

    ``audit`` is the run's :class:`~pdp_audit.audits.linreg.audit.MechanismAudit` (its ``target_epsilons`` give
    the pDP ε of a list of targets); ``cands`` the searched candidates.
    """
    c = ctx.config
    data = ctx.data_targets()
    eps_data = audit.target_epsilons(ctx, data, c.delta)
    if eps_data is None:
        text = (
            f"{audit.title} with these options has no closed-form privacy profile and no conditional estimator, "
            "so the pDP ε of the data points is not computed; the DP checks above rest on sampling at the worst "
            "candidate found."
        )
        return Page("Per-instance privacy over the data set", text), {}
    off = offdata_targets(ctx.X, ctx.y, audit.typical_lambda(), c.seed)
    eps_off = audit.target_epsilons(ctx, off, c.delta)
    for_all = float(np.nanmax(eps_off))
    finite = eps_data[np.isfinite(eps_data)]
    summary = {
        "pdp_epsilon_median": float(np.median(finite)),
        "pdp_epsilon_max": float(np.max(finite)),
        "pdp_for_all_epsilon": for_all,
        "dp_epsilon_worst_found": worst_eps_dp,
        "fraction_below_half_dp": float(np.mean(finite < 0.5 * worst_eps_dp)) if np.isfinite(worst_eps_dp) else None,
    }
    markers = [
        Marker(f"worst-case ε over the {len(cands)} searched neighbours ({worst_eps_dp:.3g})", worst_eps_dp),
        Marker(f"pDP for all: largest ε over {len(off)} off-dataset targets ({for_all:.3g})", for_all, "--"),
        Marker(f"claimed DP ε = {c.epsilon:g}", c.epsilon, ":"),
    ]
    figure = log_histogram(
        eps_data, markers, f"ε at δ = {c.delta:g}", f"pDP ε of each of the {len(finite)} data points (removed)"
    )
    text = (
        f"For every data point z of the {ctx.name} data (n = {ctx.n}, d = {ctx.d}), the pDP ε at δ = {c.delta:g} "
        f"of the pair (D, D − z) for {audit.title} — {audit.per_instance_how}. Median "
        f"{summary['pdp_epsilon_median']:.3g}, largest {summary['pdp_epsilon_max']:.3g}; the worst-case neighbour "
        f"found by the search has ε = {worst_eps_dp:.3g} (a lower estimate of the mechanism's DP ε), against the "
        f"claimed ε = {c.epsilon:g}. Most individuals in the data are protected far better than the worst case."
    )
    return Page("Per-instance privacy: the pDP ε of every data point vs DP", text, figure), summary


def figure1_page(
    pdp: np.ndarray, dp: float, for_all: float, global_sensitivity: float, setting: str, n: int, delta: float
) -> Page:
    """[PDP] Figure 1: the pDP ε of each data point against DP ε and pDP for all (``setting`` describes the data)."""
    ratio_median, ratio_all = dp / float(np.median(pdp)), dp / for_all
    figure = log_histogram(
        pdp,
        [Marker(f"DP ε (global sensitivity) = {dp:.3g}", dp), Marker(f"pDP for all = {for_all:.3g}", for_all, "--")],
        f"ε at δ = {delta:g}",
        f"pDP ε of each of the {n} data points",
    )
    return Page(
        "Reproduction: [PDP] Figure 1 (output perturbation, σ = 4)",
        (
            "DP vs pDP for all vs the distribution of pDP over the data set for θ̃ ~ N((XᵀX + I)^{-1}Xᵀy, σ²I). "
            f"Setting: {setting}. DP ε = {dp:.4g} (analytic Gaussian at the global bound Δ ≤ (1 + √n/2) = "
            f"{global_sensitivity:.4g}); pDP for all = {for_all:.4g} (ratio {ratio_all:.3g}); median pDP over the "
            f"data = {float(np.median(pdp)):.3g} (ratio {ratio_median:.3g}). "
            "The claims are checked as fig1-order-of-magnitude and fig1-six-times."
        ),
        figure,
    )


def figure2_left_page(sigmas, rows, worst_ratio: float, delta: float) -> Page:
    """[PDP] Figure 2 (left): per σ of ``sigmas``, a row (DP ε, pDP quartiles, largest pDP, mean pDP, pDP for all)."""
    figure = Lines(
        x=list(sigmas),
        logx=True,
        logy=True,
        xlabel="noise standard deviation σ",
        ylabel=f"ε at δ = {delta:g}",
        series=[
            Line("DP (global sensitivity)", [r[0] for r in rows]),
            Line("pDP for all", [r[4] for r in rows], style="--"),
            Line(
                "pDP of data points: median (band: 25–75%)",
                [r[1][1] for r in rows],
                lo=[r[1][0] for r in rows],
                hi=[r[1][2] for r in rows],
            ),
            Line("pDP of data points: largest", [r[2] for r in rows], style=":"),
        ],
    )
    return Page(
        "Reproduction: [PDP] Figure 2 (left), noise on the coefficients",
        (
            "Worst-case DP against the distribution of pDP over the data points (median with the inter-quartile band "
            "and the largest, standing in for the paper's box plots) for isotropic Gaussian noise σ on the ridge "
            f"coefficients, same data as Figure 1, δ = {delta:g}. Smallest DP / mean-pDP ratio over the grid: "
            f"{worst_ratio:.3g} (check fig2-orders)."
        ),
        figure,
    )


def figure2_right_page(rows, gammas, radius: float, delta: float) -> Page:
    """[PDP] Figure 2 (right): per γ of ``gammas``, a row (excess risk d/(2γ), the exponential mechanism's ε on
    the ball of ``radius``, median, largest and mean pDP of the data points, pDP for all)."""
    ratios = [r[1] / r[4] for r in rows]
    order = np.argsort([r[0] for r in rows], kind="stable")
    figure = Lines(
        x=[rows[i][0] for i in order],
        logx=True,
        logy=True,
        xlabel="excess empirical risk E J(θ̃) − J(θ̂_λ) = d/(2γ)",
        ylabel=f"ε (pDP at δ = {delta:g})",
        series=[
            Line(f"ε-DP of the exponential mechanism, ‖θ‖ ≤ {radius:g}", [rows[i][1] for i in order]),
            Line("pDP for all (exact OPS profile)", [rows[i][5] for i in order], style="--"),
            Line("pDP of data points: median", [rows[i][2] for i in order]),
            Line("pDP of data points: largest", [rows[i][3] for i in order], style=":"),
        ],
    )
    return Page(
        "Reproduction: [PDP] Figure 2 (right), OPS vs exp. mechanism",
        (
            "Privacy against utility for the scaled posterior sampler θ̃ ∝ exp(−(γ/2)(‖y − Xθ‖² + λ‖θ‖²)), λ = 1, on "
            f"the data of Figure 1 as γ varies: the ε-DP it has as an exponential mechanism on a ball of radius R = "
            f"{radius:g} (Wang et al. 2015; our choice of R), against its exact (ε, {delta:g})-pDP of the data points "
            f"and for all targets. The ratio of the EM's ε to the mean pDP ranges from {min(ratios):.3g} "
            f"(γ = {gammas[int(np.argmin(ratios))]:.3g}) to {max(ratios):.3g} over the grid; the figure's range of γ "
            "is not stated in the paper, so its claim is checked on the left pane only (fig2-orders)."
        ),
        figure,
    )


def figure3_pages(results: dict, methods, epsilons, design: Figure3) -> list[Page]:
    """[LR] Figure 3 (c), (d): one page per ε; ``results[(ε, method)]`` holds (mean, standard error) of the
    relative efficiency per n of ``design["ns"]``."""
    d, ns, R, S = design["d"], design["ns"], design["datasets"], design["releases"]
    pages = []
    for eps in epsilons:
        series = []
        for m in methods:
            mean = np.array([a for a, _ in results[(eps, m)]])
            se = np.array([b for _, b in results[(eps, m)]])
            series.append(
                Line(
                    m,
                    mean,
                    lo=np.maximum(mean - 2 * se, mean * 1e-3),
                    hi=mean + 2 * se,
                    style="--" if m == "non-private" else "-",
                )
            )
        last = {m: results[(eps, m)][-1][0] for m in methods}
        pages.append(
            Page(
                f"Reproduction: [LR] Figure 3, relative efficiency at ε = {eps:g}",
                (
                    f"E‖θ̃ − θ0‖² / E‖θ* − θ0‖² against n for d = {d}, θ0 ~ U[0,1]^d, X iid N(0, 1), y ~ N(Xθ0, I), "
                    f"δ = 1/n², ε = {eps:g}; {R} data sets per n (the same for both ε), {S} releases each; bounds "
                    f"max‖x‖, max|y| = the data's own (our choice, as is the n grid {list(ns)}); OPS = OPS-Balanced; "
                    f"bands ±2 standard errors over data sets. At n = {ns[-1]:,}: "
                    + ", ".join(f"{m} {v:.3g}" for m, v in last.items())
                    + ". The paper's claim (K30): AdaOPS and AdaSSP approach the MLE (ratio → 1) as n grows; SSP is "
                    "unstable for small n."
                ),
                Lines(
                    x=list(ns), logx=True, logy=True, xlabel="n", ylabel="relative efficiency (1 = MLE)", series=series
                ),
            )
        )
    return pages
