"""Per-instance DP of the Gaussian mechanism ``o = Q(D) + N(0, σ² I_d)`` ([RW] M1) at an individual z of
per-instance sensitivity ``Δ_z = Q(D±z) − Q(D)``: closed forms, each cited where it is defined.

* the exact pDP ε of every individual at δ: the analytic Gaussian ε at her own ‖Δ_z‖ (Wang 2019, §2; Balle & Wang
  2018, Theorem 8; :mod:`pdp_audit.mechanisms.gaussian` for δ(ε));
* [RW] Theorem 22 -- ex-post pDP ``|‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ²|``;
* [RW] Corollary 23 -- pDP bound and the high-probability ex-post bound;
* the law of the privacy loss, N(η²/2, η²) with η = ‖Δ‖/σ, and the Neyman–Pearson test of D against D' it gives;
* [RW] Example 4 -- what an attacker learns from a released ex-post ε.
"""

from __future__ import annotations

import math
from typing import Literal, TypeVar

import numpy as np

from pdp_audit.mechanisms.gaussian import log_analytic_delta, log_delta_parts
from pdp_audit.verify.inputs.validation import probability

Values = TypeVar("Values", float, np.ndarray)  # one release's number or an array of them, elementwise


def per_instance_epsilons(
    sensitivities: np.ndarray, delta: float, sigma: float, order: np.ndarray | None = None
) -> np.ndarray:
    """Exact pDP ε of every individual at δ: the analytic Gaussian ε at her own ‖Δ_z‖ (per-instance DP, Wang 2019, §2;
    Balle & Wang 2018, Theorem 8), one root of log δ(ε; σ/‖Δ_z‖) = log δ per distinct sensitivity.

    Each ε returned has δ(ε) ≤ δ as evaluated, at the root to the rounding of log δ (:func:`_bracketed_roots`): an
    ε at which the individual's (ε, δ) holds, never one just below the root.  The bracket starts at [0, the
    classical ε = Δ²/(2σ²) + Δ√(2 log(1/δ))/σ] ([RW] Appendix D), at which δ(ε) ≤ P(L > ε) = Φ(−√(2 log(1/δ))) ≤ δ.
    ``order``: an argsort of ``sensitivities`` where the caller has one (:func:`distinct_values`).
    """
    unique, inverse = distinct_values(np.asarray(sensitivities, dtype=float), order)
    values = np.zeros(unique.shape)
    leaking = unique > 0
    s = sigma / unique[leaking]
    log_target = math.log(delta)
    needs_root = log_analytic_delta(0.0, s) > log_target  # else δ(0) ≤ δ already: ε = 0
    ratio = 1.0 / s[needs_root]
    upper = ratio**2 / 2 + ratio * math.sqrt(2 * math.log(1 / delta))
    leaking_values = np.zeros(s.shape)
    leaking_values[needs_root] = _bracketed_roots(s[needs_root], upper, log_target)
    values[leaking] = leaking_values
    return values[inverse]


def distinct_values(values: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of finite ``values``, read from ``order`` (any permutation that
    sorts them: how ties are ordered changes neither the distinct values nor each value's index among them) where
    the caller has sorted them already."""
    if order is None:
        return np.unique(values, return_inverse=True)
    ordered = values[order]
    first = np.ones(len(ordered), dtype=bool)  # where a new distinct value starts
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(values), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


#: Where an element stops (:func:`_bracketed_roots`): a bracket of this relative width (scipy's find_root's xrtol) ...
_ROOT_RTOL = 4 * np.finfo(float).eps
#: ... or a Newton step of at most this relative size that lands where δ(ε) ≤ δ: Newton's error after a step is of
#: the order of the step squared (here ~1e-24), far below the rounding of log δ itself.
_NEWTON_RTOL = 1e-12


def _bracketed_roots(s: np.ndarray, upper: np.ndarray, log_target: float, steps: int = 100) -> np.ndarray:
    """For each s, an ε in (0, ``upper``] with log δ(ε; s) ≤ ``log_target`` (as evaluated) at the root of
    log δ(ε; s) = ``log_target``, by Newton's method kept in a bracket [lo, hi] (log δ(lo) > target ≥ log δ(hi)),
    all at once.

    The step is Newton's on h(ε) = log δ(ε) − target, h'(ε) = −e^ε Φ(b)/δ (:func:`log_delta_parts`), from the last
    point; a step that leaves the bracket (or is not a number) is a bisection.  An element stops at hi once the step
    that found hi was below :data:`_NEWTON_RTOL` of it, or the bracket is narrower than :data:`_ROOT_RTOL`;
    ArithmeticError where ``upper`` is no upper end or ``steps`` do not suffice.  (scipy's vectorised Chandrupatla
    search took 17 steps on 4e5 sensitivities, this one 5 or 6, and its answer could lie on either side of the
    root: in 70% of them δ(ε) > δ by rounding.)"""
    lo, hi = np.zeros_like(upper), upper.copy()
    log_delta, log_slope = log_delta_parts(hi, s)
    if not np.all(log_delta <= log_target):
        raise ArithmeticError("per-instance ε: the classical ε is no upper end of the root's bracket")
    x, fx, lx = hi.copy(), log_delta - log_target, log_slope
    active = np.arange(len(s))
    for _ in range(steps):
        a_lo, a_hi, a_x = lo[active], hi[active], x[active]
        with np.errstate(over="ignore", invalid="ignore"):  # a step through −∞ or 0/0 is NaN: a bisection
            guess = a_x + fx[active] * np.exp(log_delta[active] - lx[active])
        guess = np.where((guess > a_lo) & (guess < a_hi), guess, 0.5 * (a_lo + a_hi))
        new_log_delta, new_log_slope = log_delta_parts(guess, s[active])
        above = new_log_delta > log_target
        lo[active], hi[active] = np.where(above, guess, a_lo), np.where(above, a_hi, guess)
        x[active], log_delta[active], lx[active] = guess, new_log_delta, new_log_slope
        fx[active] = new_log_delta - log_target
        settled = ~above & (np.abs(guess - a_x) <= _NEWTON_RTOL * guess)
        narrow = hi[active] - lo[active] <= _ROOT_RTOL * hi[active]
        active = active[~(settled | narrow)]
        if active.size == 0:
            return hi
    raise ArithmeticError("per-instance ε: the root of δ(ε) = δ was not found for every individual")


def ex_post_pdp(outputs: np.ndarray, q_d: np.ndarray, delta_z: np.ndarray, sigma: float) -> np.ndarray:
    """[RW] Theorem 22: ex-post pDP of the Gaussian mechanism at each released ``o``.

        ε(o, D, D±z) = | ‖Δ_z‖² / (2σ²) − Δ_zᵀ (o − Q(D)) / σ² |,   Δ_z = Q(D±z) − Q(D).

    A deterministic identity: it equals |log p_D(o) − log p_D±z(o)| (the hypothesis is printed with a
    norm, Q31, but the identity needs Δ_z as a vector).
    """
    outputs = np.atleast_2d(outputs)
    delta_z = np.asarray(delta_z, dtype=float)
    return np.abs(delta_z @ delta_z / (2 * sigma**2) - (outputs - q_d) @ delta_z / sigma**2)


def corollary23_pdp_epsilon(delta: float, sigma: float, delta_norm):
    """[RW] Corollary 23 (first bound): ε(D, D±z) ≤ ‖Δ_z‖²/(2σ²) + ‖Δ_z‖ Φ⁻¹(1 − δ) / σ.

    Printed twice identically (Q32); this is the printed expression.  ``delta_norm`` may be an array (one bound per
    individual, computed elementwise with the same operations).
    """
    from scipy import stats

    delta = probability("delta", delta)
    return delta_norm**2 / (2 * sigma**2) + delta_norm * stats.norm.isf(delta) / sigma


def corollary23_ex_post_bound(
    rho: float, sigma: float, delta_norm: float, form: Literal["quantile", "log"] = "quantile"
) -> float:
    """[RW] Corollary 23, eq. (5): with probability ≥ 1 − ρ over o, the ex-post pDP is at most

    ‖Δ_z‖²/(2σ²) + ‖Δ_z‖ Φ⁻¹(1 − ρ/2) / σ          (``form="quantile"``)
    ≤ ‖Δ_z‖²/(2σ²) + ‖Δ_z‖ √(2 log(2/ρ)) / σ      (``form="log"``).
    """
    from scipy import stats

    rho = probability("rho", rho)
    z = stats.norm.isf(rho / 2) if form == "quantile" else math.sqrt(2 * math.log(2 / rho))
    return delta_norm**2 / (2 * sigma**2) + delta_norm * z / sigma


def corollary23_exact_failure_probability(
    rho: float, sigma: float, delta_norm: float, form: Literal["quantile", "log"] = "quantile"
) -> float:
    """Exact P[ε(o) > bound] for Corollary 23's bound, derived independently of the paper.

    With W = Δᵀ(o − Q(D))/(σ‖Δ‖) ~ N(0, 1) and η = ‖Δ‖/σ, ε(o) = |η²/2 − ηW|; the bound η²/2 + ηc is
    exceeded iff W < −c or W > η + c.  Hence P = Φ(−c) + Φ(−η − c).
    """
    eta = delta_norm / sigma
    c = (corollary23_ex_post_bound(rho, sigma, delta_norm, form) - eta**2 / 2) / eta
    from scipy import stats

    return float(stats.norm.sf(c) + stats.norm.sf(eta + c))


def privacy_loss_law(delta_norm: float, sigma: float) -> tuple[float, float]:
    """(mean, sd) of the privacy loss L = log p_D(o) − log p_D'(o) under o ~ p_D: N(η²/2, η²), η = ‖Δ‖/σ."""
    eta = delta_norm / sigma
    return eta**2 / 2, eta


def optimal_test_tpr(fpr: Values, delta_norm: float, sigma: float) -> Values:
    """True-positive rate of the Neyman–Pearson test D vs D' at false-positive rate ``fpr``.

    The log-likelihood ratio is monotone in the projection of o on Δ, which is N(0, 1) vs N(η, 1) in
    units of σ: TPR = Φ(η − Φ⁻¹(1 − FPR)) (the Gaussian trade-off curve of Dong, Roth & Su 2019).
    """
    from scipy import stats

    eta = delta_norm / sigma
    return stats.norm.sf(stats.norm.isf(np.asarray(fpr, dtype=float)) - eta)


def optimal_test_threshold(fpr: float, delta_norm: float, sigma: float) -> float:
    """The privacy-loss threshold of the Neyman–Pearson test D vs D' at false-positive rate ``fpr``.

    Under D' the loss L is N(−η²/2, η²) (η = ‖Δ‖/σ), so L > −η²/2 + η Φ⁻¹(1 − FPR) has rate FPR there.
    """
    from scipy import stats

    eta = delta_norm / sigma
    return -(eta**2) / 2 + eta * stats.norm.isf(fpr)


def example4_candidates(output: Values, ex_post_epsilon: Values, sigma: float) -> tuple[Values, Values]:
    """[RW] Example 4: an attacker z ∉ D who sees o and ε(o, D, D+z) of a counting query learns

        Q(D) = o − 0.5 ± σ² ε(o, D, D+z);

    exactly one candidate is an integer with probability 1.
    """
    spread = sigma**2 * ex_post_epsilon
    return output - 0.5 + spread, output - 0.5 - spread


# --------------------------------------------------------------------------------------------
# Queries and the mechanism
# --------------------------------------------------------------------------------------------
