"""Tail bounds against exact probabilities, in log space on grids of their free parameters.

Gaussian tails ([PDP] Lemma B.5, [LR] Lemma 13, [RW] Lemma 26), χ² tails (Laurent & Massart 2000, [LR] Lemma 14;
the OPS excess-risk tail of [LR] Lemmas 8–9), the maximum of n sub-Gaussians ([RW] Lemma 28, exact for Gaussians),
and statements whose range is not stated: [LR] Lemma 6's constant (exact failure probability for A = vvᵀ) and
Lemmas 8–9's simplification "≤ 5d log(1/ϱ)/γ" (holds only for ϱ ≤ 1/e).  Probabilities come from scipy's
log-survival functions, spot-checked against mpmath at 50 digits.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy import stats

from pdp_audit.ledger.lemmas.exact import (
    INEQUALITY_SLACK,
    Outcome,
    decided,
    exact_check,
    grid_bound,
    max_log_ratio,
    spot_check,
)
from pdp_audit.verify.core.checks import CheckSpec


@exact_check(
    CheckSpec(
        "gaussian-tail-two-sided",
        "Two-sided Gaussian tail bound",
        "X ~ N(0, 1): P(|X| > ε) ≤ 2e^(−ε²/2)/ε",
        "max over ε ∈ [1e-3, 37] of P(|X| > ε) / (2e^(−ε²/2)/ε) ≤ 1 (exact, log space)",
        "[PDP] Lemma B.5; [LR] Lemma 13",
        role="paper",
    ),
)
def gaussian_tail_two_sided() -> Outcome:
    """[PDP] Lemma B.5, [LR] Lemma 13: 2Φ̄(ε) against 2e^(−ε²/2)/ε on a grid of ε."""
    eps = np.logspace(-3, math.log10(37), 2000)
    log_prob = math.log(2) + stats.norm.logsf(eps)
    log_bound = math.log(2) - eps**2 / 2 - np.log(eps)
    ratio, where = max_log_ratio(log_prob, log_bound, [f"ε = {e:.4g}" for e in eps])
    spot_check(lambda e: 2 * mpmath.ncdf(-e), eps[[0, 1000, -1]], log_prob[[0, 1000, -1]])
    return decided(
        ratio <= 1,
        ratio,
        1.0,
        f"2000 values of ε; largest ratio {ratio:.6g} at {where} (→ 1/√(2π) as ε grows: the bound is "
        "loose by a factor of at least √(2π) ≈ 2.5 there).",
    )


@exact_check(
    CheckSpec(
        "gaussian-tail-rw26",
        "Gaussian tail bounds of [RW] Lemma 26",
        "X ~ N(0, σ²): P(X > σε) ≤ e^(−ε²/2)/ε; P(X > σ√(2 log(1/δ))) ≤ δ; P(|X| > σ√(2 log(2/δ))) ≤ δ",
        "max ratio probability/bound over ε ∈ [1e-3, 37] and δ ∈ [1e-300, 1) ≤ 1 (exact, log space)",
        "[RW] Lemma 26",
        role="paper",
    ),
)
def gaussian_tail_rw26() -> Outcome:
    """[RW] Lemma 26: Φ̄(ε) against e^(−ε²/2)/ε, and the δ-thresholds against δ, on grids of ε and δ."""
    eps = np.logspace(-3, math.log10(37), 2000)
    one = stats.norm.logsf(eps) - (-(eps**2) / 2 - np.log(eps))
    delta = np.logspace(-300, -1e-9, 3000)
    two = stats.norm.logsf(np.sqrt(2 * np.log(1 / delta))) - np.log(delta)
    three = math.log(2) + stats.norm.logsf(np.sqrt(2 * np.log(2 / delta))) - np.log(delta)
    parts = {
        "P(X > σε) ≤ e^(−ε²/2)/ε": (one, eps, "ε"),
        "P(X > σ√(2 log(1/δ))) ≤ δ": (two, delta, "δ"),
        "P(|X| > σ√(2 log(2/δ))) ≤ δ": (three, delta, "δ"),
    }
    worst, where = 0.0, ""
    for name, (excess, grid, symbol) in parts.items():
        i = int(np.argmax(excess))
        if math.exp(excess[i]) >= worst:
            worst, where = math.exp(excess[i]), f"{name} at {symbol} = {grid[i]:.4g}"
    return decided(
        worst <= 1,
        worst,
        1.0,
        f"2000 values of ε, 3000 of δ; largest ratio {worst:.6g} ({where}). The statement is scale-free "
        "in σ. δ ≥ 1 makes the first two thresholds undefined or 0 and is left out.",
    )


@exact_check(
    CheckSpec(
        "laurent-massart",
        "Laurent–Massart χ² tail bounds",
        "X ~ χ²_k: P(X − k ≥ 2√(kt) + 2t) ≤ e^(−t) and P(k − X > 2√(kt)) ≤ e^(−t)",
        "max ratio probability/e^(−t) over k ∈ [1, 2000], t ∈ [1e-3, 600] ≤ 1 (exact, log space)",
        "[LR] Lemma 14 (Laurent & Massart 2000, Lemma 1)",
        role="paper",
    ),
)
def laurent_massart() -> Outcome:
    """[LR] Lemma 14 (Laurent & Massart 2000): both χ²_k tails against e^(−t) on a grid of k, t."""
    k = np.unique(np.round(np.logspace(0, math.log10(2000), 60)))[:, None]
    t = np.logspace(-3, math.log10(600), 400)[None, :]
    upper = stats.chi2.logsf(k + 2 * np.sqrt(k * t) + 2 * t, k) + t
    low = k - 2 * np.sqrt(k * t)
    lower = np.where(low > 0, stats.chi2.logcdf(np.maximum(low, 0), k), -np.inf) + t  # P(X < k − 2√(kt))
    grid = [f"k = {int(a)}, t = {b:.4g}" for a in k[:, 0] for b in t[0]]
    r_up, w_up = max_log_ratio(upper, np.zeros_like(upper), grid)
    r_lo, w_lo = max_log_ratio(lower, np.zeros_like(lower), grid)
    points = np.array([0.5, 3.0, 40.0, 400.0])
    spot_check(
        lambda x: mpmath.gammainc(mpmath.mpf(3) / 2, x / 2, mpmath.inf, regularized=True),
        points,
        stats.chi2.logsf(points, 3),
    )
    worst = max(r_up, r_lo)
    return decided(
        worst <= 1,
        worst,
        1.0,
        f"{k.size} values of k × {t.size} of t; largest ratio upper tail {r_up:.6g} ({w_up}), lower tail "
        f"{r_lo:.6g} ({w_lo}).",
    )


@exact_check(
    CheckSpec(
        "subgaussian-max",
        "Maximum of n sub-Gaussians",
        "P[max_i X_i ≥ √(2σ²(log n + t))] ≤ e^(−t) for n i.i.d. σ²-sub-Gaussian X_i",
        "exact for X_i ~ N(0, σ²): 1 − Φ(x)ⁿ over n ∈ [1, 1e6], t ∈ [1e-3, 600]; ratio ≤ 1",
        "[RW] Lemma 28",
        role="paper",
    ),
)
def subgaussian_max() -> Outcome:
    """[RW] Lemma 28: 1 − Φ(√(2(log n + t)))ⁿ against e^(−t) for Gaussians (σ = 1: scale-free)."""
    n = np.unique(np.round(np.logspace(0, 6, 60)))[:, None]
    t = np.logspace(-3, math.log10(600), 400)[None, :]
    x = np.sqrt(2 * (np.log(n) + t))
    log_prob = np.log(-np.expm1(n * stats.norm.logcdf(x)))  # 1 − Φ(x)ⁿ without cancellation
    labels = [f"n = {int(a)}, t = {b:.4g}" for a in n[:, 0] for b in t[0]]
    return grid_bound(log_prob + t, labels, f"{n.size} values of n × {t.size} of t, X_i ~ N(0, σ²) (scale-free)")


@exact_check(
    CheckSpec(
        "lemma6-constant",
        "Symmetric Gaussian perturbation, high-probability bound",
        "w.p. 1 − ρ: ‖Eθ‖²_A ≤ w² tr(A)‖θ‖² log(2d²/ρ), E symmetric, upper triangle i.i.d. N(0, w²), A ⪰ 0",
        "exact failure probability for A = vvᵀ, v = θ/‖θ‖ (vᵀEθ ~ N(0, w²‖θ‖²(2 − Σv_i⁴))) against ρ",
        "[LR] Lemma 6 (its proof ends with O(·))",
        role="paper",
    ),
)
def lemma6_constant() -> Outcome:
    """[LR] Lemma 6: the exact failure probability P(χ²_1 > log(2d²/ρ)/(2 − 1/d)) against ρ = 0.05."""
    rho = 0.05
    rows = []
    for d in (1, 2, 3, 5, 10, 50):
        scale = 2 - 1 / d  # Var(vᵀEv)/w² = 2 − Σv_i⁴, largest for v spread evenly (Σv_i⁴ = 1/d)
        threshold = math.log(2 * d * d / rho)
        rows.append((d, float(stats.chi2.sf(threshold / scale, 1))))
    d_bad = [d for d, p in rows if p > rho]
    worst = max(p for _, p in rows)
    note = f"ρ = {rho}: exact failure probability {', '.join(f'd = {d}: {p:.4f}' for d, p in rows)}. " + (
        f"Exceeds ρ at d ∈ {d_bad}: the constant 1 in front of log(2d²/ρ) is too small there (the proof "
        "ends with O(·))."
        if d_bad
        else "Within ρ at every d."
    )
    return decided(not d_bad, worst, rho, note, failure_probabilities=dict(rows))


@exact_check(
    CheckSpec(
        "lemma8-numeric",
        "The simplification '≤ 5d log(1/ϱ)/γ'",
        "(d + 2√(d log(1/ϱ)) + 2 log(1/ϱ)) ≤ 5d log(1/ϱ) (and its half ≤ 2.5d log(1/ϱ))",
        "over ϱ ∈ (0, 1) as printed (no range stated), and over ϱ ≤ 1/e",
        "[LR] Lemmas 8–9; K35",
        role="paper",
    ),
)
def lemma8_numeric() -> Outcome:
    """[LR] Lemmas 8–9 (K35): (d + 2√(dL) + 2L)/(5dL), L = log(1/ϱ), over every ϱ ∈ (0, 1)."""
    worst, where = 0.0, ""
    for d in (1, 2, 5, 10, 50, 500):
        L = np.logspace(-6, 3, 4000)  # L = log(1/ϱ)
        ratio = (d + 2 * np.sqrt(d * L) + 2 * L) / (5 * d * L)
        i = int(np.argmax(ratio))
        if ratio[i] > worst:
            worst, where = float(ratio[i]), f"d = {d}, ϱ = {math.exp(-L[i]):.6g}"
        if np.any(ratio[L >= 1] > 1 + INEQUALITY_SLACK):
            raise ArithmeticError("lemma8: the inequality failed for ϱ ≤ 1/e, which is proved to hold")
    return decided(
        worst <= 1,
        worst,
        1.0,
        f"As printed (every ϱ ∈ (0, 1)): largest ratio {worst:.4g} at {where} — it fails as ϱ → 1. It holds "
        "exactly when log(1/ϱ) ≥ 1 at d = 1, i.e. ϱ ≤ 1/e = 0.3679 (d + 2√d + 2 ≤ 5d for d ≥ 1, and the "
        "right side grows faster in log(1/ϱ)): checked on 6 values of d.",
    )


@exact_check(
    CheckSpec(
        "lemma8-chi2",
        "OPS excess risk tail",
        "γ‖θ̃ − θ*_λ‖²_(XᵀX+λI) ~ χ²_d ⇒ P(‖θ̃ − θ*_λ‖² ≥ (d + 2√(d log(1/ϱ)) + 2 log(1/ϱ))/γ) ≤ ϱ",
        "exact χ²_d survival over d ∈ [1, 500], ϱ ∈ [1e-300, 1)",
        "[LR] Lemmas 8–9",
        role="paper",
    ),
)
def lemma8_chi2() -> Outcome:
    """[LR] Lemmas 8–9: P(χ²_d ≥ d + 2√(dL) + 2L) against ϱ = e^(−L) on a grid of d, ϱ."""
    d = np.unique(np.round(np.logspace(0, math.log10(500), 40)))[:, None]
    L = -np.log(np.logspace(-300, -1e-6, 400))[None, :]
    log_prob = stats.chi2.logsf(d + 2 * np.sqrt(d * L) + 2 * L, d)
    labels = [f"d = {int(a)}, ϱ = {math.exp(-b):.4g}" for a in d[:, 0] for b in L[0]]
    return grid_bound(
        log_prob + L,
        labels,
        f"{d.size} values of d × {L.size} of ϱ, P(χ²_d ≥ threshold)/ϱ. The law χ²_d/γ of the OPS excess risk is exact "
        "for θ̃ ~ N(θ*_λ, γ⁻¹(XᵀX + λI)⁻¹) (the mean and covariance claims are the sampler's definition)",
    )
