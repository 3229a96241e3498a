"""δ(ε) of a composition of Gaussian steps, bounded both ways for an exact decision: each step's shift μ_i known to a
proven interval of its reading, δ(ε) evaluated at the composed interval's ends in 256-bit arithmetic with a stated
error bound.

**Why.**  A Gaussian step's μ = |d|/σ is read in float64 (a shift read off the release carries the rounding of the
program's arithmetic: :mod:`.replay_bounds`), and its δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang
2018, Thm 8) was a difference of two float normal tails.  A claim a hair from δ(ε) at the read μ was then decided by
the rounding.  Here the decision rests on bounds alone: the upper composition (what certifies) is δ(ε) at the top of
μ's proven interval rounded up, the lower (what refutes) δ(ε) at its bottom rounded down, and a claim between them
is undecided.

**The interval of μ.**  Gaussians of shifts μ_i compose into one of μ = (Σμ_i²)^{1/2} (Dong, Roth & Su 2022,
Cor. 3.3).  Each μ_i lies in a proven interval [l_i, h_i] of rationals (:attr:`.accounting.Step.within`; a step
without one is its float μ exactly -- a step *of* that μ), so Σl_i² ≤ μ² ≤ Σh_i² in exact arithmetic, and the ends
are taken outward to doubles: the largest double whose square is at most Σl_i², the smallest whose square is at
least Σh_i² (each checked in rationals).

**Monotone in μ.**  At every ε, δ(ε) of N(μ, 1) against N(0, 1) grows with μ: for μ′ < μ the pair of μ′ is a
post-processing of the pair of μ (x ↦ (μ′/μ)x + N(0, 1 − (μ′/μ)²) maps N(0, 1) to itself and N(μ, 1) to N(μ′, 1)),
and δ(ε) does not grow under post-processing (Dwork & Roth 2014, Prop. 2.1).  So δ at the interval's top bounds
the exact δ from above, at its bottom from below.

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
from fractions import Fraction
from typing import Iterable

import mpmath

#: Working precision of :func:`delta_bounds`, in bits: the error bound is 2^{8−P}(2 + |a| + |b|)² of the terms, far
#: below a double's resolution of δ for any |a|, |b| < 2^{100}.
PRECISION = 256

#: Largest μ and ε/μ evaluated (2^40): beyond them a bound at the edge, valid by monotonicity in μ (module notes); it
#: keeps |a|, |b| below 2^42, where the error bound is below 2^{-160} of the terms and mpmath's erfc is in range.
REACH = 2.0**40

#: A proven interval of a shift μ: rationals, its upper end None where no bound is proven.
Interval = tuple[Fraction, "Fraction | None"]


def composed_ends(intervals: Iterable[Interval]) -> tuple[float, float]:
    """Doubles m ≤ μ ≤ M around the composed μ = (Σμ_i²)^{1/2} of Gaussian steps whose μ_i lie in ``intervals``
    (module notes); M is ∞ where an interval has no upper end.  *Sound for*: intervals that contain the steps'
    exact μ_i."""
    low, high = Fraction(0), Fraction(0)
    unbounded = False
    for a, b in intervals:
        low += a * a
        if b is None:
            unbounded = True
        else:
            high += b * b
    return _root_down(low), math.inf if unbounded else _root_up(high)


def _root_down(square: Fraction) -> float:
    """The largest double whose square is at most ``square`` (≥ 0)."""
    root = math.sqrt(float(square))
    while root > 0 and Fraction(root) ** 2 > square:
        root = math.nextafter(root, 0.0)
    while math.isfinite(root) and Fraction(math.nextafter(root, math.inf)) ** 2 <= square:
        root = math.nextafter(root, math.inf)
    return root


def _root_up(square: Fraction) -> float:
    """The smallest double whose square is at least ``square`` (∞ beyond the doubles)."""
    try:
        root = math.sqrt(float(square))
    except OverflowError:
        return math.inf
    while math.isfinite(root) and Fraction(root) ** 2 < square:
        root = math.nextafter(root, math.inf)
    while root > 0 and Fraction(math.nextafter(root, 0.0)) ** 2 >= square:
        root = math.nextafter(root, 0.0)
    return root


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
        low, high = value - error, value + error
        return max(0.0, _down(low)), min(1.0, _up(high))


def _up(x: mpmath.mpf) -> float:
    """The smallest double at least ``x``."""
    value = float(x)
    return value if mpmath.mpf(value) >= x else math.nextafter(value, math.inf)


def _down(x: mpmath.mpf) -> float:
    """The largest double at most ``x``."""
    value = float(x)
    return value if mpmath.mpf(value) <= x else math.nextafter(value, -math.inf)
