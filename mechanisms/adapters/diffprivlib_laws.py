"""The exact laws of diffprivlib's samplers (0.6), as privacy losses log p_D(o) − log p_D'(o) of one release.

Each follows the library's ``randomise`` line by line (the comments name what it does); none needs diffprivlib.

* **Laplace** (``Laplace.randomise``): v − b·(log(1 − U₁)cos πU₂ + log(1 − U₃)cos πU₄), four uniforms
  (Holohan & Braghin 2021); E·cos πU has characteristic function (1 + t²)^{−1/2}, so the sum of two is exactly a
  standard Laplace: density e^{−|o − v|/b}/(2b), b = Δ/(ε − log(1 − δ)).
* **LaplaceTruncated**: the Laplace release clipped to [l, u] (``_truncate``): the density above inside (l, u) and
  atoms P(o = u) = P(v + X ≥ u), P(o = l) = P(v + X ≤ l) at the bounds (X ~ Laplace(0, b); the input itself is
  not clipped).  For v, v' inside [l, u] the atoms' log-ratio equals the density's at the bound; outside it is the
  log-ratio of the two tail masses.
* **LaplaceBoundedDomain** (Holohan, Antonatos, Braghin & Mac Aonghusa 2020): the input is clipped to [l, u], then
  iid Laplace(v, b) draws (in batches) are made until one falls in [l, u] and the first such is returned -- exactly
  Laplace(v, b) conditioned on [l, u]: density e^{−|o − v|/b}/(2b·C(v)) with
  C(v) = 1 − e^{−(v − l)/b}/2 − e^{−(u − v)/b}/2; b is the library's ``_find_scale()``.
* **Exponential** (McSherry & Talwar 2007): one uniform against the cumulative sum of
  p_i ∝ μ_i·exp(ε·u_i/((2 − m)·Δ)) (m = 1 for a monotonic utility, μ the measure, 1 if none): candidate i with
  probability p_i, up to the 2^-53 grid of the uniform.
* **Binary** (randomised response, Holohan et al. 2017): the label is kept with probability e^ε/(e^ε + 1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

LOG_HALF = math.log(0.5)


def laplace_loss(o: np.ndarray, v: float, v_prime: float, b: float) -> np.ndarray:
    """(|o − v'| − |o − v|)/b: the log-ratio of two Laplace densities of scale b centred at v and v'."""
    return (np.abs(o - v_prime) - np.abs(o - v)) / b


def log_upper_tail(t: np.ndarray | float, b: float) -> np.ndarray:
    """log P(X ≥ t) for X ~ Laplace(0, b): log ½ − t/b for t ≥ 0, log(1 − ½e^{t/b}) below (no cancellation)."""
    t = np.asarray(t, dtype=float)
    return np.where(t >= 0, LOG_HALF - np.maximum(t, 0) / b, np.log1p(-0.5 * np.exp(np.minimum(t, 0) / b)))


def truncated_laplace_loss(o, v: float, v_prime: float, b: float, lower: float, upper: float) -> np.ndarray:
    """The loss of Laplace(v, b) clipped to [lower, upper]: the density's log-ratio inside, the tail masses' at the
    atoms o = lower (P(X ≤ lower − v) = P(X ≥ v − lower)) and o = upper (P(X ≥ upper − v))."""
    o = np.asarray(o, dtype=float)
    at_upper = log_upper_tail(upper - v, b) - log_upper_tail(upper - v_prime, b)
    at_lower = log_upper_tail(v - lower, b) - log_upper_tail(v_prime - lower, b)
    inside = laplace_loss(o, v, v_prime, b)
    return np.where(o >= upper, at_upper, np.where(o <= lower, at_lower, inside))


def log_bounded_mass(v: float, b: float, lower: float, upper: float) -> float:
    """log C(v) = log P(v + X ∈ [lower, upper]) for v in [lower, upper], X ~ Laplace(0, b)."""
    return math.log1p(-0.5 * math.exp(-(v - lower) / b) - 0.5 * math.exp(-(upper - v) / b))


def bounded_domain_loss(o, v: float, v_prime: float, b: float, lower: float, upper: float) -> np.ndarray:
    """The loss of Laplace(v, b) conditioned on [lower, upper], the inputs clipped to it first as the library does:
    (|o − v'| − |o − v|)/b + log C(v') − log C(v)."""
    v, v_prime = min(max(v, lower), upper), min(max(v_prime, lower), upper)
    shift = log_bounded_mass(v_prime, b, lower, upper) - log_bounded_mass(v, b, lower, upper)
    return laplace_loss(np.asarray(o, dtype=float), v, v_prime, b) + shift


def exponential_log_probabilities(utility, epsilon: float, sensitivity: float, monotonic: bool, measure=None):
    """log p_i of the exponential mechanism: log μ_i + ε·u_i/((2 − m)Δ), normalised (log-sum-exp)."""
    logits = float(epsilon) / float(sensitivity) / (2 - int(bool(monotonic))) * np.asarray(utility, dtype=float)
    if measure is not None:
        with np.errstate(divide="ignore"):
            logits = logits + np.log(np.asarray(measure, dtype=float))
    return logits - logsumexp(logits)


def binary_log_probabilities(epsilon: float, indicator: int) -> np.ndarray:
    """log P(o = 0), log P(o = 1) of randomised response on the label ``indicator``: kept w.p. e^ε/(e^ε + 1)."""
    keep, flip = -math.log1p(math.exp(-epsilon)), -math.log1p(math.exp(epsilon))
    return np.array([keep, flip] if indicator == 0 else [flip, keep])
