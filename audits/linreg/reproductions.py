"""Reproductions of the papers' figures: their numbers, the checks of their claims and their report pages
(built by :mod:`pdp_audit.audits.linreg.pages`), with the parameters we chose.

* [PDP] Figure 1 (K1) and Figure 2 left (K2) — ``pdp-audit run output-perturbation``: θ̃ ~ N((XᵀX + I)^{-1}Xᵀy, σ²I),
  δ = 1e-6, rows normalised to ‖x‖ = 1, y clipped to [−1, 1].  Not stated in the paper, chosen here:
  n = 1000, d = 10, x iid N(0, I) then normalised, θ0 uniform on the unit sphere, y = xᵀθ0 + N(0, 0.1²).
  DP ε uses the global sensitivity bound (1 + √n/(2√λ))/λ; "pDP for all" is the largest ε over targets
  z = (x, ±1) outside the data (random directions and eigenvectors, refined by local optimisation);
  the pDP of each data point uses its exact leave-one-out sensitivity.  Checks: "more than an order
  of magnitude" (DP ε / median pDP ε over the data ≥ 10), "six times" (DP ε / pDP-for-all ε ≥ 6, read
  as "at least six times"; the measured ratio is reported), Fig. 2 "several orders of magnitude"
  (DP ε / mean pDP ε ≥ 100 at every σ of the grid).
* [PDP] Figure 2 right (K2) — ``pdp-audit run ops``: the same data, OPS with λ = 1 and γ on a grid;
  x = excess risk E J(θ̃) − J(θ̂_λ) = d/(2γ) of J = ½‖y − Xθ‖² + (λ/2)‖θ‖² (exact); y = ε.  The ε-DP of the
  exponential mechanism (Wang et al. 2015) for the sampler restricted to Θ = {‖θ‖ ≤ R}, R = 2 (our
  choice), add/remove neighbours: ε = γ(1 + R)²/2 (the per-example loss (γ/2)(y − xᵀθ)² lies in
  [0, (γ/2)(1 + R)²]); against it the exact (ε, 1e-6)-pDP of the data points and pDP for all.  The γ
  range of the paper's figure is not stated, so its claim is checked on the left pane only.
* [LR] Figure 3 (K30) — ``pdp-audit run adassp``: relative efficiency E‖θ̃ − θ0‖² / E‖θ* − θ0‖² vs n,
  d = 10, θ0 ~ U[0,1]^d, X iid N(0, 1), y ~ N(Xθ0, I), δ = 1/n², ε ∈ {0.1, 1}; AdaOPS, AdaSSP, SSP,
  OPS (balanced), non-private; bounds ‖𝒳‖, ‖𝒴‖ set to the data's own maxima (as an experiment would;
  not private); n ∈ {1e2, …, 1e6}, 5 data sets per n (shared by both ε), 20 releases per data set;
  denominator σ² tr((XᵀX)^{-1}) (exact); bands ±2 standard errors over data sets.
"""

from __future__ import annotations

import math
from typing import TypedDict

import numpy as np
from scipy import optimize, stats

from pdp_audit.audits.linreg import pages as P
from pdp_audit.audits.linreg.checks import (
    FIG1_ORDER_OF_MAGNITUDE,
    FIG1_SIX_TIMES,
    FIG2_ORDERS,
    FIG3_EFFICIENCY,
    FIG3_FOR_FREE,
)
from pdp_audit.audits.linreg.pages import Figure3
from pdp_audit.audits.linreg.profiles import RidgeBatch, loo_batch, ops_epsilon
from pdp_audit.mechanisms.gaussian import whitened_epsilon
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.bounds import ridge_global_sensitivity
from pdp_audit.mechanisms.linreg.calibration import RowBounds, ops_calibration
from pdp_audit.mechanisms.linreg.data import synthetic_regression
from pdp_audit.reports.records import Page
from pdp_audit.verify.core.checks import Evidence
from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.evidence.builders import exact_check


class Figure1(TypedDict):
    """The design of [PDP] Fig. 1's data and release."""

    n: int
    d: int
    sigma: float
    delta: float
    lam: float
    noise: float


FIG1: Figure1 = {"n": 1000, "d": 10, "sigma": 4.0, "delta": 1e-6, "lam": 1.0, "noise": 0.1}
FIG2_SIGMAS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
FIG2_GAMMAS = tuple(np.geomspace(0.1, 1000.0, 9))
EM_RADIUS = 2.0
FIG3: Figure3 = {"d": 10, "ns": (100, 1000, 10_000, 100_000, 1_000_000), "datasets": 5, "releases": 20}
#: Data sets of a one-n reproduction (``--figure-n``, a sweep cell): at 5 the Student-t test of its check at
#: α = 1e-6 has 4 degrees of freedom and leaves r − 1 = 340 ± 25 (n = 1000, ε = 0.1) undecided.
FIG3_CELL_DATASETS = 40


def fig1_data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic data of [PDP] Fig. 1 as we chose it (module notes): unit rows, y clipped to [−1, 1]."""
    rng = block_rng(seed, "pdp-figure-1-data", 0)
    n, d = FIG1["n"], FIG1["d"]
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    theta0 = rng.standard_normal(d)
    theta0 /= np.linalg.norm(theta0)
    y = np.clip(X @ theta0 + FIG1["noise"] * rng.standard_normal(n), -1, 1)
    return X, y


def _sup_shift(X, y, lam, seed: int, draws: int = 4000) -> float:
    """max over ‖x‖ ≤ 1, y_z = ±1 of ‖θ̂(Z) − θ̂([Z, z])‖ = |y_z − xᵀθ̂| ‖H^{-1}x‖/(1 + xᵀH^{-1}x)."""
    d = X.shape[1]
    H = X.T @ X + lam * np.eye(d)
    theta = np.linalg.solve(H, X.T @ y)
    Hinv = np.linalg.inv(H)

    def shift(V):
        V = np.atleast_2d(V)
        norms = np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1.0)
        V = V / norms  # project into the unit ball
        hx = V @ Hinv
        return (1 + np.abs(V @ theta)) * np.linalg.norm(hx, axis=1) / (1 + np.einsum("ij,ij->i", hx, V))

    rng = block_rng(seed, "pdp-for-all", 0)
    V = rng.standard_normal((draws, d))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    evecs = np.linalg.eigh(H)[1].T
    starts = np.vstack([V, evecs, -evecs])
    for t in (0.25, 0.5, 0.75):
        starts = np.vstack([starts, t * evecs])
    values = shift(starts)
    best = float(values.max())
    for i in np.argsort(-values, kind="stable")[:5]:
        res = optimize.minimize(
            lambda v: -float(shift(v)[0]),
            starts[i],
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000},
        )
        best = max(best, -float(res.fun))
    return best


def _fig1_numbers(seed: int, sigma: float) -> dict:
    X, y = fig1_data(seed)
    n, lam, delta = FIG1["n"], FIG1["lam"], FIG1["delta"]
    glob = ridge_global_sensitivity(n, lam)
    shifts = loo_batch(X, y).at(np.full(n, lam))["shift"]
    pdp = whitened_epsilon(delta, shifts / sigma)
    for_all = float(whitened_epsilon(delta, _sup_shift(X, y, lam, seed) / sigma)[0])
    dp = float(whitened_epsilon(delta, glob / sigma)[0])
    return {"pdp": pdp, "for_all": for_all, "dp": dp, "global_sensitivity": glob}


def pdp_figures_1_2_left(config) -> tuple[list[Evidence], list[Page]]:
    """[PDP] Fig. 1 and Fig. 2 (left): pages and the checks of their claims."""
    f1 = _fig1_numbers(config.seed, FIG1["sigma"])
    pdp, dp, for_all = f1["pdp"], f1["dp"], f1["for_all"]
    ratio_median, ratio_all = dp / float(np.median(pdp)), dp / for_all
    setting = (
        f"n = {FIG1['n']}, d = {FIG1['d']}, σ = {FIG1['sigma']:g}, λ = 1, δ = {FIG1['delta']:g}; rows ~ N(0, I) "
        f"normalised, θ0 uniform on the unit sphere, y = xᵀθ0 + N(0, {FIG1['noise']:g}²) clipped to [−1, 1] "
        "(n, d, θ0 and noise not stated in the paper)"
    )
    checks = [
        exact_check(
            FIG1_ORDER_OF_MAGNITUDE.fill(),
            holds=ratio_median >= 10,
            estimate=ratio_median,
            note=(
                f"Reproduction ({setting}): DP ε = {dp:.4g}, median pDP ε over the data = {float(np.median(pdp)):.4g}, "
                f"largest {float(np.max(pdp)):.4g} (ratio to the largest {dp / float(np.max(pdp)):.3g}); "
                f"pDP for all = {for_all:.4g}."
            ),
            dp_epsilon=dp,
            median_pdp=float(np.median(pdp)),
            max_pdp=float(np.max(pdp)),
        ),
        exact_check(
            FIG1_SIX_TIMES.fill(),
            holds=ratio_all >= 6,
            estimate=ratio_all,
            note=f"Reproduction ({setting}): DP ε = {dp:.4g}, pDP for all = {for_all:.4g}: ratio {ratio_all:.3g} "
            "(the paper's figure shows about 6).",
            dp_epsilon=dp,
            pdp_for_all=for_all,
        ),
    ]
    pages = [P.figure1_page(pdp, dp, for_all, f1["global_sensitivity"], setting, FIG1["n"], FIG1["delta"])]
    # Figure 2 (left): DP vs the distribution of pDP over the data, across noise levels
    X, y = fig1_data(config.seed)
    n = FIG1["n"]
    shifts = loo_batch(X, y).at(np.full(n, FIG1["lam"]))["shift"]
    sup = _sup_shift(X, y, FIG1["lam"], config.seed)
    rows = []
    for sigma in FIG2_SIGMAS:
        e = whitened_epsilon(FIG1["delta"], shifts / sigma)
        rows.append(
            (
                float(whitened_epsilon(FIG1["delta"], f1["global_sensitivity"] / sigma)[0]),
                np.quantile(e, [0.25, 0.5, 0.75]),
                float(e.max()),
                float(e.mean()),
                float(whitened_epsilon(FIG1["delta"], sup / sigma)[0]),
            )
        )
    worst_ratio = min(r[0] / r[3] for r in rows)
    checks.append(
        exact_check(
            FIG2_ORDERS.fill(),
            holds=worst_ratio >= 100,
            estimate=worst_ratio,
            note=f"Same data as Fig. 1; σ ∈ {list(FIG2_SIGMAS)}; smallest ratio DP / mean pDP over the grid = "
            f"{worst_ratio:.3g}.",
            sigmas=list(FIG2_SIGMAS),
        )
    )
    pages.append(P.figure2_left_page(FIG2_SIGMAS, rows, worst_ratio, FIG1["delta"]))
    return checks, pages


def pdp_figure2_right(config) -> tuple[list[Evidence], list[Page]]:
    """[PDP] Fig. 2 (right): OPS (scaled posterior sampling), pDP vs the exponential mechanism's ε-DP (a page, no
    check)."""
    X, y = fig1_data(config.seed)
    n, d, lam, delta = FIG1["n"], FIG1["d"], FIG1["lam"], FIG1["delta"]
    q = loo_batch(X, y).at(np.full(n, lam))
    rng = block_rng(config.seed, "fig2-right-targets", 0)
    V = rng.standard_normal((256, d))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    V = np.vstack([V, np.linalg.eigh(X.T @ X)[1].T])
    xs, ys = np.vstack([V, V]), np.concatenate([np.ones(len(V)), -np.ones(len(V))])
    off = RidgeBatch(X, y, xs, ys, "add").at(np.full(len(xs), lam))
    rows = []
    for g in FIG2_GAMMAS:
        e = ops_epsilon(delta, q["mu"], q["r"], g)
        rows.append(
            (
                d / (2 * g),
                g * (1 + EM_RADIUS) ** 2 / 2,
                float(np.median(e)),
                float(e.max()),
                float(e.mean()),
                float(ops_epsilon(delta, off["mu"], off["r"], g).max()),
            )
        )
    return [], [P.figure2_right_page(rows, FIG2_GAMMAS, EM_RADIUS, delta)]


FIG3_METHODS = ("AdaOPS", "AdaSSP", "SSP", "OPS", "non-private")
FIG3_EPSILONS = (0.1, 1.0)


def lr_figure3(config) -> tuple[list[Evidence], list[Page]]:
    """[LR] Fig. 3 (c), (d): relative efficiency against n at ε = 0.1 and 1 (the same data sets for both ε), the
    check of its claim (K30) and the relative efficiency at the largest n (``--figure-n`` gives one n: a sweep
    cell)."""
    design: Figure3
    if config.figure_n is None:
        design = FIG3
    else:  # one n, as a sweep cell: more data sets, so that its own check can decide
        design = {**FIG3, "ns": (config.figure_n,), "datasets": FIG3_CELL_DATASETS}
    ns = design["ns"]
    results: dict[tuple[float, str], list[tuple[float, float]]] = {
        (eps, m): [] for eps in FIG3_EPSILONS for m in FIG3_METHODS
    }
    for n in ns:
        per_dataset = relative_efficiency_at(config.seed, n, design["datasets"])
        for key, v in per_dataset.items():
            results[key].append((float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v)))))
    checks = [_for_free_check(results, FIG3_EPSILONS, ns), efficiency_check(per_dataset, ns[-1])]
    return checks, P.figure3_pages(results, FIG3_METHODS, FIG3_EPSILONS, design)


def relative_efficiency_at(seed: int, n: int, datasets: int) -> dict[tuple[float, str], np.ndarray]:
    """E‖θ̃ − θ0‖² over the releases of each of ``datasets`` data sets of [LR] Fig. 3's design at ``n``, divided by
    the MLE's exact E‖θ* − θ0‖² averaged over the data sets: one value per data set, for every (ε, method)."""
    d, R, S = FIG3["d"], datasets, FIG3["releases"]
    delta = 1.0 / n**2
    per: dict[tuple[float, str], list[float]] = {(eps, m): [] for eps in FIG3_EPSILONS for m in FIG3_METHODS}
    denominators = []
    for r in range(R):
        rng = block_rng(seed, f"lr-fig3/{n}", r)
        X, y, theta0 = synthetic_regression(n, d, rng, noise_sd=1.0)
        xb, yb = float(np.max(np.linalg.norm(X, axis=1))), float(np.max(np.abs(y)))
        nb = L.Neighbours.add(X, y, np.zeros(d), 0.0)
        denominators.append(float(np.trace(np.linalg.inv(X.T @ X))))  # E‖θ* − θ0‖² = σ² tr((XᵀX)^{-1}), σ = 1
        mle = np.linalg.lstsq(X, y, rcond=None)[0][None, :]
        for eps in FIG3_EPSILONS:
            lam, gamma = ops_calibration("balanced", eps, delta, n, d, RowBounds(xb, yb))
            ada, ssp = A.AdaSSPPair(nb, eps, delta, xb, yb), A.SSPPair(nb, eps, delta, xb, yb)
            draws = {
                "AdaOPS": A.LRAdaOPSPair(nb, eps, delta, xb, yb).sample("D", S, rng)[:, 2:],
                "AdaSSP": ada.estimate(ada.sample("D", S, rng)),
                "SSP": ssp.estimate(ssp.sample("D", S, rng)),
                "OPS": L.OPSPair(nb, gamma, lam).sample("D", S, rng),
                "non-private": mle,
            }
            for m, theta in draws.items():
                per[(eps, m)].append(float(np.mean(np.sum((theta - theta0) ** 2, axis=1))))
    den = float(np.mean(denominators))
    return {key: np.array(values) / den for key, values in per.items()}


def _for_free_check(results: dict, epsilons, ns) -> Evidence:
    """K30's "DP for free": AdaOPS's and AdaSSP's excess relative efficiency r − 1 falls over the last decade of n
    (the estimate is the largest local exponent: negative means r approaches 1)."""
    if len(ns) < 2:
        return Evidence(
            spec=FIG3_FOR_FREE,
            verdict="inconclusive",
            note=f"One n ({ns[0]:,}, --figure-n): the trend of r − 1 needs two; a sweep over n reads it.",
        )
    rows = {(eps, m): [r for r, _ in results[(eps, m)]] for eps in epsilons for m in ("AdaOPS", "AdaSSP")}
    slopes = {
        key: math.log10((r[-1] - 1) / (r[-2] - 1)) / math.log10(ns[-1] / ns[-2]) if min(r[-2:]) > 1 else -math.inf
        for key, r in rows.items()
    }
    worst = max(slopes, key=slopes.__getitem__)
    values = "; ".join(f"{m} at ε = {eps:g}: {r[-2]:.4g} → {r[-1]:.4g}" for (eps, m), r in rows.items())
    return exact_check(
        FIG3_FOR_FREE,
        holds=slopes[worst] < 0,
        estimate=slopes[worst],
        note=(
            f"Relative efficiency at n = {ns[-2]:.0e} → {ns[-1]:.0e} (mean over the data sets): {values}. The "
            "estimate is the largest local exponent of r − 1 (negative: r falls towards 1). With the bounds ‖𝒳‖, "
            "‖𝒴‖ at the data's own maxima (which grow with n) and δ = 1/n², r first rises with n; at n = 1e6 it is "
            f"still {rows[(0.1, 'AdaOPS')][-1]:.3g} at ε = 0.1 and {rows[(1.0, 'AdaOPS')][-1]:.3g} at ε = 1 "
            "(AdaOPS): 'for free' is a large-n limit, not reached on this grid at ε = 0.1."
        ),
        local_exponent={f"{m}@{eps:g}": s for (eps, m), s in slopes.items()},
        relative_efficiency={f"{m}@{eps:g}": r for (eps, m), r in rows.items()},
    )


#: The adaptive methods whose efficiency K30 is about, and the bound on r − 1 read as "for free" at one n.
FIG3_ADAPTIVE = ("AdaOPS", "AdaSSP")
FOR_FREE_EXCESS = 1.0


def efficiency_check(per_dataset: dict[tuple[float, str], np.ndarray], n: int) -> Evidence:
    """``fig3-relative-efficiency`` at ``n`` from the per-data-set relative efficiencies: for each of AdaOPS and
    AdaSSP at ε = 0.1 and 1, a one-sided Student-t test of H0 "mean r − 1 ≤ 1" over the data sets (the releases of
    one data set are averaged first, so data sets are the independent units), Bonferroni over the four; the
    interval of the largest mean is the four t-intervals' largest bounds, each at level 1 − α/4 (simultaneous).
    The check carries every method's mean r (``curves``): a sweep over n draws Figure 3 from them."""
    series = {key: per_dataset[key] - 1 for key in per_dataset if key[1] in FIG3_ADAPTIVE}
    R = len(next(iter(series.values())))
    means = {key: float(v.mean()) for key, v in series.items()}
    ses = {key: float(v.std(ddof=1) / math.sqrt(R)) for key, v in series.items()}
    k = len(series)

    def pvalue_of(key) -> float:
        if ses[key] == 0:
            return 0.0 if means[key] > FOR_FREE_EXCESS else 1.0
        return float(stats.t.sf((means[key] - FOR_FREE_EXCESS) / ses[key], R - 1))

    def interval(alpha: float):
        q = stats.t.isf(alpha / (2 * k), R - 1)
        return (max(means[x] - q * ses[x] for x in series), max(means[x] + q * ses[x] for x in series))

    worst = max(means, key=means.__getitem__)
    return Evidence(
        spec=FIG3_EFFICIENCY.fill(n=f"{n:,}"),
        estimate=means[worst],
        pvalue=min(1.0, k * min(pvalue_of(x) for x in series)),
        interval=interval,
        supports=lambda ci, alpha: ci is not None and ci[1] <= FOR_FREE_EXCESS,
        note=(
            f"Mean r − 1 over {R} data sets ({FIG3['releases']} releases each): "
            + "; ".join(f"{m} at ε = {eps:g}: {means[(eps, m)]:.4g} (s.e. {ses[(eps, m)]:.2g})" for eps, m in series)
            + f". The estimate is the largest ({worst[1]} at ε = {worst[0]:g})."
        ),
        details={
            "n": n,
            "curves": {f"{m}, ε = {eps:g}": float(v.mean()) for (eps, m), v in sorted(per_dataset.items())},
        },
    )
