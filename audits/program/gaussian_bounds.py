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
Cor. 3.3).  Each μ_i lies in a proven interval [l_i, h_i] of rationals (:attr:`.step_laws.Step.within`; a step
without one is its float μ exactly -- a step *of* that μ), so Σl_i² ≤ μ² ≤ Σh_i² in exact arithmetic, and the ends
are taken outward to doubles: the largest double whose square is at most Σl_i², the smallest whose square is at
least Σh_i² (each checked in rationals).

**Monotone in μ; the evaluation.**  δ(ε) grows with μ at every ε, so δ at the interval's top bounds the exact δ
from above and at its bottom from below; each is evaluated in 256-bit arithmetic with a stated error bound and
rounded outward (:func:`pdp_audit.mechanisms.gaussian_exact.delta_bounds`, where both are proven).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

from pdp_audit.mechanisms.gaussian_exact import delta_bounds

__all__ = ["composed_ends", "delta_bounds"]

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
    return _root_down(low), math.inf if unbounded else root_up(high)


def _root_down(square: Fraction) -> float:
    """The largest double whose square is at most ``square`` (≥ 0)."""
    root = math.sqrt(float(square))
    while root > 0 and Fraction(root) ** 2 > square:
        root = math.nextafter(root, 0.0)
    while math.isfinite(root) and Fraction(math.nextafter(root, math.inf)) ** 2 <= square:
        root = math.nextafter(root, math.inf)
    return root


def root_up(square: Fraction) -> float:
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
