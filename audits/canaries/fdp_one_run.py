"""The f-DP one-run audit: the largest μ-GDP hypothesis that m canaries' guesses of one run reject.

Source: Mahloujifar, Melis & Chaudhuri, "Auditing f-Differential Privacy in One Run", ICML 2025 (PMLR 267,
arXiv:2410.22235), the analysis of the guessing game with abstentions, specialised to membership (two values per
canary, so the paper's factor "alphabet size − 1" is 1).  The game is Steinke, Nasr & Jagielski's
(:mod:`pdp_audit.audits.canaries.one_run`): each of m canaries is included with probability 1/2, the auditor makes
k guesses from the output alone and v of them are right.

The hypothesis is a trade-off curve f (Dong, Roth & Su 2022): f(x) is the least type-II error of a test of one
canary's inclusion with type-I error x.  Its *blow-up* is x ↦ 1 − f(x) (the largest probability, under one world, of
an event of probability x under the other) and its *inverse blow-up* is ψ(y) = f(1 − y) for a symmetric f.  For
μ-GDP, f = G_μ, G_μ(x) = Φ(Φ⁻¹(1 − x) − μ), so ψ_μ(y) = Φ(Φ⁻¹(y) − μ).

The test at level τ of "the run is f-DP" from (m, k, v) is the paper's recursion: start from

    r_v = τ v / m,   h_v = τ (k − v) / m,

and for i = v − 1, …, 0

    h_i = max(h_{i+1}, ψ(r_{i+1})),   r_i = r_{i+1} + i / (k − i) · (h_i − h_{i+1});

if r_0 + h_0 > k / m (the mean number of guesses per canary), no f-DP mechanism lets any adversary make v or more
correct guesses of k with probability ≥ τ, and f is rejected at level τ.  Here r_i and h_i are the per-canary
probabilities of a right and of a wrong guess on the event of at least i right guesses; f-DP ties them canary by
canary (flipping one canary's coin turns a right guess into a wrong one: h ≥ ψ(r)), and the ratio i/(k − i) is the
share of right among all guesses on that event.  The tests run the recursion with the blow-up 1 − f in place of
its inverse ψ (the classic mix-up of the two directions) and see it exceed the truth.

The bound.  For fixed (m, k) the rejection is a threshold in v, and a μ₀-GDP mechanism is μ-GDP for every
μ ≥ μ₀; so, as in :mod:`~pdp_audit.audits.canaries.one_run`, the largest rejected μ, μ̂ (found by bisection that
keeps its lower end a rejected point), exceeds the true μ₀ only on one event {v ≥ v*(μ)} with μ ≥ μ₀, of probability
≤ τ.  The ε at δ is that of μ̂-GDP: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Corollary 2.13;
the Gaussian mechanism of sensitivity 1 and σ = 1/μ, taken from below, :func:`gdp_epsilon`).
It is a lower bound on the ε of a run whose privacy curve is Gaussian-shaped (μ-GDP); an (ε, δ)-DP run need not be
μ-GDP for any μ, so it refutes a Gaussian guarantee, never an (ε, δ) claim by itself.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import special

from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms.gaussian import analytic_epsilon, analytic_sigma

#: μ searched on [0, MU_MAX]: ψ_μ at μ = 40 is below 1e-300 for every y the recursion sees.
MU_MAX = 40.0
#: Bisection tolerance on μ.
MU_TOLERANCE = 1e-5
#: Points of each refining grid (one recursion pass evaluates them all).
GRID = 256


def gaussian_inverse_blowup(y: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """ψ_μ(y) = Φ(Φ⁻¹(y) − μ) = G_μ(1 − y): the least probability, in one world, of an event of probability y in
    the other, under μ-GDP (module docstring); elementwise, y clipped to [0, 1] (Φ⁻¹(0) = −∞ gives 0)."""
    return special.ndtr(special.ndtri(np.clip(y, 0.0, 1.0)) - mu)


#: A family of hypotheses: ψ(y, parameter) elementwise, the inverse blow-up of the curve of each parameter (a larger
#: parameter is a weaker hypothesis).
Family = Callable[[np.ndarray, np.ndarray], np.ndarray]


def recursion_total(m: int, guesses: int, correct: int, tau, mu, family: Family = gaussian_inverse_blowup):
    """r_0 + h_0 of the paper's recursion (module docstring) at levels ``tau`` for the curves of parameters ``mu``
    (broadcast together; one pass for all); > k/m rejects.

    The loop stops once each point is decided; which points reject is the full loop's, bit for bit:
    * r + h > k/m: both only grow as i falls (h_i ≥ h_{i+1}, and r_i ≥ r_{i+1} in floating point too), so the point
      rejects; its returned total is then some value > k/m, not the full loop's;
    * h_i = h_{i+1} (ψ(r_{i+1}) ≤ h_{i+1}): then r_i = r_{i+1} + (i/(k − i)) · 0 = r_{i+1} exactly, so the next step
      sees the same (r, h, μ) and again changes nothing: the state is a fixed point for every remaining i and its
      total is the full loop's.  Most points reach one (ψ(r) stops moving in the last bit) long before i = 0: a
      guess set that does not reject a large μ does so at the first step."""
    k, v = guesses, correct
    tau, mu = np.broadcast_arrays(np.asarray(tau, float), np.asarray(mu, float))
    r, h = tau * v / m, tau * (k - v) / m
    limit = k / m
    for i in range(v - 1, -1, -1):
        h_next = np.maximum(h, family(r, mu))
        fixed = h_next == h
        r, h = r + i / (k - i) * (h_next - h), h_next
        if np.all(fixed | (r + h > limit)):
            break
    return r + h


def rejects(m: int, guesses: int, correct: int, tau, mu, family: Family = gaussian_inverse_blowup) -> np.ndarray:
    """Whether v = ``correct`` of k = ``guesses`` rejects, at each level ``tau``, the curve of each parameter
    ``mu`` (the paper's test; nothing is rejected without a correct guess)."""
    shape = np.broadcast(np.asarray(tau), np.asarray(mu)).shape
    if guesses <= 0 or correct <= 0:
        return np.zeros(shape, bool)
    return np.asarray(recursion_total(m, guesses, correct, tau, mu, family) > guesses / m)


def _largest_rejected(rejected: Callable[[np.ndarray], np.ndarray], lo: float, hi: float, tolerance: float) -> float:
    """The largest point found rejected on [lo, hi] (``lo`` itself rejected), refining a grid of GRID points between
    the largest rejected one and the next until the step is below ``tolerance``.  Only a rejected point is returned,
    so the result is valid even where the rejected set is not an interval (module docstring)."""
    while hi - lo > tolerance:
        grid = np.linspace(lo, hi, GRID + 1)
        hits = np.flatnonzero(rejected(grid[1:]))
        if hits.size == 0:
            lo, hi = lo, grid[1]
        elif hits[-1] == GRID - 1:
            return float(grid[-1])
        else:
            lo, hi = grid[hits[-1] + 1], grid[hits[-1] + 2]
    return float(lo)


def mu_lower_bound(m: int, guesses: int, correct: int, alpha: float, family: Family = gaussian_inverse_blowup) -> float:
    """The largest μ rejected at level ``alpha`` (0 if μ = 0 is not rejected), on [0, MU_MAX] to MU_TOLERANCE, only a
    rejected point returned (module docstring: any rejected μ is a valid bound)."""
    if not rejects(m, guesses, correct, alpha, 0.0, family):
        return 0.0
    return _largest_rejected(lambda mu: rejects(m, guesses, correct, alpha, mu, family), 0.0, MU_MAX, MU_TOLERANCE)


def smallest_rejecting_level(
    m: int, guesses: int, correct: int, mu: float, below: float = 1.0, family: Family = gaussian_inverse_blowup
) -> float:
    """The smallest level τ ≤ ``below`` (on grids in log τ to 0.1%: a rejecting τ, never below the true one) at which
    v = ``correct`` of k = ``guesses`` rejects the curve of parameter ``mu``; ``below`` itself if it does not reject
    there."""
    if not rejects(m, guesses, correct, below, mu, family):
        return below

    def rejected_at(log_ratio: np.ndarray) -> np.ndarray:
        return rejects(m, guesses, correct, below * np.exp(-log_ratio), mu, family)

    # the largest −log(τ/below) rejected, i.e. the smallest τ, down to 1e-300
    return float(below * math.exp(-_largest_rejected(rejected_at, 0.0, -math.log(1e-300 / below), 1e-3)))


def best_mu(m: int, sets, alpha: float, family: Family = gaussian_inverse_blowup) -> tuple[float, int]:
    """The largest μ any of the guess ``sets`` ((k, v) pairs) rejects at α/len(sets) each (union bound) and the
    index of the set; a set that does not reject the best so far (just above it) is not searched."""
    level = alpha / len(sets)
    best, index = 0.0, 0
    for j, (k, v) in enumerate(sets):
        if rejects(m, k, v, level, best + MU_TOLERANCE if j else 0.0, family):
            mu = mu_lower_bound(m, k, v, level, family)
            if mu > best:
                best, index = mu, j
    return best, index


def claim_pvalue(m: int, sets, mu: float, family: Family = gaussian_inverse_blowup) -> float:
    """The smallest α at which one of the guess ``sets`` rejects the curve of parameter ``mu`` (μ-GDP by default) at
    α/len(sets): len(sets) times the smallest rejecting level of a set (capped at 1); a set that does not reject
    below the smallest so far is not searched."""
    smallest = 1.0
    for k, v in sets:
        smallest = smallest_rejecting_level(m, k, v, mu, smallest, family)
    return min(1.0, len(sets) * smallest)


def gdp_epsilon(mu: float, delta: float) -> float:
    """The ε at ``delta`` of μ-GDP (module docstring), from below: a double at which δ(ε) > ``delta`` is proven
    (:func:`~pdp_audit.mechanisms.gaussian_exact.epsilon_lower`; the float root may sit ulps above the true ε, and
    a lower bound must not); 0 for μ = 0 and, for δ = 0, infinite for μ > 0."""
    if mu <= 0:
        return 0.0
    if delta <= 0:
        return math.inf
    return gaussian_exact.epsilon_lower(delta, mu, analytic_epsilon(delta, 1.0 / mu))


def gdp_mu(epsilon: float, delta: float) -> float:
    """The μ-GDP whose ε at ``delta`` is ``epsilon``, from above: a double μ at which δ(ε) > ``delta`` is proven
    (:func:`~pdp_audit.mechanisms.gaussian_exact.shift_upper`), so rejecting μ-GDP rejects every μ the claim allows
    (a μ₀-GDP run is μ-GDP for μ ≥ μ₀); 1/σ of the calibrated σ lies below the claim's μ."""
    return gaussian_exact.shift_upper(epsilon, delta, 1.0 / analytic_sigma(epsilon, delta))
