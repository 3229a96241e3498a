"""The Gaussian mechanism's δ(ε) bounded both ways in 256-bit arithmetic with a stated error bound, and the closed
forms a certificate rests on taken at the safe end: δ(ε) rounded up, ε(δ) at a double proven to hold δ.

**Why.**  δ(ε) = Φ(s/2 − ε/s) − e^ε Φ(−s/2 − ε/s), s = Δ/σ (Balle & Wang 2018, Thm 8), evaluated in float64 is
a difference of two normal tails whose rounding reaches 1e-14 of δ: at the analytic calibration of (1, 1e-5) the
float form gives δ(1) = 1.00000000000003e-05, above the claim, where the exact value is 9.99999999999989e-06.
A claim is decided by a closed form only where the form's proven bound is on the claim's side (a rule without
tolerance), so the form is evaluated here with one.

**Monotone in μ.**  At every ε, δ(ε) of N(μ, 1) against N(0, 1) grows with μ: for μ′ < μ the pair of μ′ is a
post-processing of the pair of μ (x ↦ (μ′/μ)x + N(0, 1 − (μ′/μ)²) maps N(0, 1) to itself and N(μ, 1) to N(μ′, 1)),
and δ(ε) does not grow under post-processing (Dwork & Roth 2014, Prop. 2.1).  δ(ε) falls with ε.

**Evaluation** (:func:`delta_bounds`).  At precision P = :data:`PRECISION` bits (mpmath), with a = −ε/μ + μ/2,
b = −ε/μ − μ/2 (μ and ε doubles, exact in mpmath), the terms T_a = Φ(a), T_b = e^ε Φ(b).  mpmath rounds each
arithmetic operation correctly at P bits and evaluates exp and the normal CDF (by erfc, no cancellation in a
tail) to its working precision (mpmath's documentation, "Precision and representation issues") -- the stated bound
this module rests on.  So â = a(1 + θ), |θ| ≤ 2^{2−P}; the logarithmic derivative of Φ is at most |x| + 1 (for
x ≤ 0 by the Mills-ratio bound φ(t)/Φ(−t) ≤ (t + √(t² + 4))/2 ≤ t + 1, Sampford 1953; for x ≥ 0 by φ(x)/Φ(x) ≤
φ(0)/Φ(0) < 1), so each computed term is its exact value to a relative 2^{4−P}(1 + |a| + |b|)² plus a few roundings,
and |δ̂ − δ| ≤ 2^{8−P}(2 + |a| + |b|)²(T̂_a + T̂_b) with a factor of 16 spare.  The bounds are δ̂ ∓ that error, taken
outward to doubles: valid for any μ and ε a double holds, only looser (down to [0, 1]) where the error is large.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import mpmath

#: Working precision of :func:`delta_bounds`, in bits: the error bound is 2^{8−P}(2 + |a| + |b|)² of the terms, far
#: below a double's resolution of δ for any |a|, |b| < 2^{100}.
PRECISION = 256
#: Largest μ and ε/μ evaluated (2^40): beyond them a bound at the edge, valid by monotonicity in μ (module notes); it
#: keeps |a|, |b| below 2^42, where the error bound is below 2^{-160} of the terms and mpmath's erfc is in range.
REACH = 2.0**40


def delta_bounds(mu: float, epsilon: float) -> tuple[float, float]:
    """Doubles (lower, upper) around δ(ε) of the Gaussian shift μ (Balle & Wang 2018, Thm 8), from a 256-bit
    evaluation with the module's error bound.  *Sound for*: μ ≥ 0 and ε ≥ 0 doubles taken as exact (μ = ∞: δ = 1),
    to the accuracy of mpmath's exp and normal CDF at their working precision (module notes)."""
    if mu == 0:
        return 0.0, 0.0
    if math.isinf(mu):
        return 1.0, 1.0
    if mu > REACH:  # δ grows with μ: the bound at REACH is one from below; 1 from above
        return delta_bounds(REACH, epsilon)[0], 1.0
    if mu < epsilon / REACH:  # likewise δ ≥ 0 from below, the bound at ε/REACH from above
        return 0.0, delta_bounds(epsilon / REACH, epsilon)[1]
    with mpmath.workprec(PRECISION):
        m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
        a, b = -e / m + m / 2, -e / m - m / 2
        upper_term, lower_term = mpmath.ncdf(a), mpmath.exp(e) * mpmath.ncdf(b)
        value = upper_term - lower_term
        error = mpmath.ldexp((2 + abs(a) + abs(b)) ** 2, 8 - PRECISION) * (upper_term + lower_term)
        return max(0.0, _down(value - error)), min(1.0, _up(value + error))


def shift_up(sigma: float, sensitivity: float) -> float:
    """The smallest double at least μ = Δ/σ, exactly (σ > 0)."""
    exact = Fraction(sensitivity) / Fraction(sigma)
    value = float(exact)
    return value if Fraction(value) >= exact else math.nextafter(value, math.inf)


def delta_upper(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """A proven upper bound on δ(ε) of the Gaussian mechanism N(Q(D), σ²I) of L2 sensitivity Δ (Balle & Wang 2018,
    Thm 8), within a few ulps of it: :func:`delta_bounds` at the smallest double above Δ/σ.  *Sound for* the
    real-valued mechanism of that σ and Δ (doubles taken as exact), as :func:`delta_bounds` is."""
    return delta_bounds(shift_up(sigma, sensitivity), epsilon)[1] if sensitivity else 0.0


def epsilon_upper(delta: float, sigma: float, guess: float, sensitivity: float = 1.0) -> float:
    """A double ε with δ(ε) ≤ ``delta`` proven (:func:`delta_upper`), the smallest such near ``guess`` (a float
    inversion of δ(ε), :func:`pdp_audit.mechanisms.gaussian.analytic_epsilon`): so ε(δ) ≤ it, as δ(ε) falls with
    ε.  Found by stepping from the guess in doubling numbers of ulps, then bisecting on the doubles' bit patterns
    (ordered as the non-negative doubles are).  *Sound for* what :func:`delta_upper` is."""

    def holds(e: float) -> bool:
        return delta_upper(e, sigma, sensitivity) <= delta

    if holds(0.0):
        return 0.0
    return _least_holding(holds, max(guess, 0.0), 0)


def sigma_upper(epsilon: float, delta: float, guess: float, sensitivity: float = 1.0) -> float:
    """A double σ with δ(ε) ≤ ``delta`` proven (:func:`delta_upper`) for the Gaussian mechanism of that σ, the
    smallest such near ``guess`` (a float calibration, :func:`pdp_audit.mechanisms.gaussian.analytic_sigma`): δ(ε)
    falls as σ grows, so the search is :func:`epsilon_upper`'s on σ.  *Sound for* what :func:`delta_upper` is."""

    def holds(s: float) -> bool:
        return delta_upper(epsilon, s, sensitivity) <= delta

    return _least_holding(holds, guess, 1)


def epsilon_lower(delta: float, mu: float, guess: float) -> float:
    """A double ε below ε(δ) of the Gaussian shift μ proven (μ-GDP's ε at δ, Dong, Roth & Su 2022, Corollary 2.13):
    the largest near ``guess`` (a float inversion) where :func:`delta_bounds` proves δ(ε) > ``delta`` -- as δ(ε) falls
    with ε, every ε at which δ(ε) ≤ ``delta`` lies above it; 0 where none is proven.  *Sound for* what
    :func:`delta_bounds` is, μ taken as exact."""

    def settled(e: float) -> bool:  # not proven above δ: ε(δ) may lie at or below e
        return delta_bounds(mu, e)[0] <= delta

    if settled(0.0):
        return 0.0
    above = _least_holding(settled, max(guess, 0.0), 0)
    below = _double(_bits(above) - 1)
    return below if not settled(below) else 0.0


def shift_upper(epsilon: float, delta: float, guess: float) -> float:
    """A double μ above every Gaussian shift whose δ(ε) is at most ``delta`` (the μ-GDP an (ε, δ) claim allows):
    the least near ``guess`` where :func:`delta_bounds` proves δ(ε) > ``delta`` -- δ(ε) grows with μ (module notes),
    so every μ with δ(ε) ≤ ``delta`` lies below it (∞ for ``delta`` ≥ 1, which every μ meets).  *Sound for* what
    :func:`delta_bounds` is."""
    if delta >= 1:
        return math.inf
    return _least_holding(lambda m: delta_bounds(m, epsilon)[0] > delta, guess, 1)


def _least_holding(holds, guess: float, floor: int) -> float:
    """The least double ≥ the one of bit index ``floor`` at which ``holds`` (monotone: false, then true) is true,
    found near ``guess``: stepping up from it in doubling numbers of ulps until it holds, down until it does not
    (or ``floor``), then bisecting on the doubles' bit patterns (ordered as the non-negative doubles are)."""
    above = below = _bits(guess)
    step = 1
    while not holds(_double(above)):
        above, step = above + step, step * 2
    step = 1
    while below > floor and holds(_double(below)):
        below, step = max(floor, below - step), step * 2
    while above - below > 1:  # holds at ``above``; not at ``below`` (or ``below`` is ``floor``)
        middle = (above + below) // 2
        above, below = (middle, below) if holds(_double(middle)) else (above, middle)
    return _double(above)


def _bits(x: float) -> int:
    """The index of a non-negative double among them (its bit pattern as an integer)."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _double(n: int) -> float:
    """The non-negative double of index ``n`` (:func:`_bits`)."""
    return struct.unpack("<d", struct.pack("<q", n))[0]


def _up(x: mpmath.mpf) -> float:
    """The smallest double at least ``x``."""
    value = float(x)
    return value if mpmath.mpf(value) >= x else math.nextafter(value, math.inf)


def _down(x: mpmath.mpf) -> float:
    """The largest double at most ``x``."""
    value = float(x)
    return value if mpmath.mpf(value) <= x else math.nextafter(value, -math.inf)
