"""δ(ε) of discrete choices composed with at most one Laplace step, in closed form: a coordinate read through a
rounding is one such choice (its law partitioned by the verified levels, :mod:`.rounded_steps`), ``rng.choice`` is
another.

**The law.**  Choices with probabilities p_i on D and q_i on D′, drawn independently, are one choice over the tuples
J of their outcomes: P_J = Π_i p_{i,J_i}, Q_J = Π_i q_{i,J_i}.  Beside it, one Laplace step of shift μ (in its scale),
independent of it.  The pair's δ(ε) = sup_S P(S) − e^ε Q(S) is the hockey-stick divergence ∫ (p − e^ε q)₊ of the
product law, which splits over J (each outcome's part of the event is chosen on its own):

    δ(ε) = Σ_{J: Q_J = 0} P_J + Σ_{J: P_J > 0, Q_J > 0} P_J · g_μ(ε − log(P_J/Q_J)),

g_μ(t) = E[(1 − e^{t − L})₊] the Laplace step's profile extended to every real t
(:func:`pdp_audit.mechanisms.laplace_queries.extended_delta`; L its loss).  Without a Laplace step μ = 0 and
g_0(t) = (1 − e^t)₊: δ(ε) = Σ_J (P_J − e^ε Q_J)₊.  This is the expectation over the choice's privacy loss of the
Laplace step's δ at ε less that loss (the composition of privacy-loss distributions: Koskela, Jälkö & Honkela 2020,
§4; Dwork & Roth 2014, §3.5).  The direction D′‖D swaps P and Q (the Laplace loss is symmetric); δ(ε) is the larger.

**Exact for** the masses taken as the rationals they are (the doubles a step holds, or a choice's weights over their
exact sum), the Laplace step's μ anywhere in its proven interval [low, high] and ε the rational ``budget``: g_μ(t)
falls with t and grows with μ, so the lower bound takes μ's low end and each log(P_J/Q_J) at the bottom of its
enclosure, the upper bound μ's high end (none proven: 1) and each logarithm at its top; every term is enclosed in
mpmath's interval arithmetic at 256 bits and the sums' ends rounded outward to doubles.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import mpmath

from pdp_audit.mechanisms.laplace_queries import extended_delta_interval

#: The most outcome tuples composed in closed form (each a 256-bit logarithm and profile, ~50 µs): beyond, the grid.
MOST_OUTCOMES = 1024

#: A choice's masses on D and on D′, as exact rationals.
Masses = tuple[Sequence[Fraction], Sequence[Fraction]]


def choices_delta_bounds(
    choices: Sequence[Masses], mu: tuple[Fraction, Fraction | None], budget: Fraction
) -> tuple[float, float] | None:
    """Doubles (low, high) with low ≤ δ(ε) ≤ high for ``choices`` composed with a Laplace step whose μ lies in
    ``mu`` ((0, 0): none; high None: no upper end proven, high = 1), at the exact ε ``budget`` (module notes); None
    where their outcome tuples number more than :data:`MOST_OUTCOMES` (the caller composes them on the grid)."""
    joint = _joint(choices)
    if joint is None:
        return None
    iv, before = mpmath.iv, mpmath.iv.prec
    iv.prec = 256  # the interval context has no workprec; restored below
    try:
        forward = _one_way(joint[0], joint[1], mu, budget)
        backward = _one_way(joint[1], joint[0], mu, budget)
    finally:
        iv.prec = before
    return max(forward[0], backward[0]), max(forward[1], backward[1])


def _joint(choices: Sequence[Masses]) -> tuple[list[Fraction], list[Fraction]] | None:
    """The product of independent choices: the masses of each tuple of their outcomes on D and on D′ (None: more
    than :data:`MOST_OUTCOMES` tuples)."""
    if math.prod(len(p) for p, _ in choices) > MOST_OUTCOMES:
        return None
    joint_p, joint_q = [Fraction(1)], [Fraction(1)]
    for p, q in choices:
        joint_p = [a * b for a in joint_p for b in p]
        joint_q = [a * b for a in joint_q for b in q]
    return joint_p, joint_q


def _one_way(p: list[Fraction], q: list[Fraction], mu: tuple[Fraction, Fraction | None], budget: Fraction):
    """(low, high) of Σ_J ∫ (P_J a − e^ε Q_J b)₊ in the direction ``p`` ‖ ``q`` (module notes), rounded outward."""
    iv = mpmath.iv
    g = extended_delta_interval
    bottom, top = mu
    low = high = iv.mpf(0)
    for a, b in zip(p, q):
        if a == 0:
            continue
        weight = _interval(a)
        if b == 0:  # an outcome D′ never gives: its whole mass is in the event
            low, high = low + weight, high + weight
            continue
        loss = iv.log(_interval(a / b))
        low = low + weight * g(budget - _fraction(loss.a), bottom)
        if top is not None:
            high = high + weight * g(budget - _fraction(loss.b), top)
    return _double(low.a, up=False), (1.0 if top is None else _double(high.b, up=True))


def _interval(value: Fraction):
    """The rational ``value`` as a mpmath interval enclosing it (at the working precision)."""
    return mpmath.iv.mpf(value.numerator) / value.denominator


def _fraction(end) -> Fraction:
    """An interval's end (a binary floating-point number of mpmath, of at most the interval context's precision) as
    the rational it is: read at that precision, exactly; its mantissa ``man`` is the magnitude's."""
    with mpmath.workprec(mpmath.iv.prec):
        x = mpmath.mpf(end)
    magnitude = Fraction(int(x.man)) * Fraction(2) ** int(x.exp)
    return -magnitude if x < 0 else magnitude


def _double(end, up: bool) -> float:
    """The smallest double at least the interval end ``end`` (``up``), else the largest at most it, in [0, 1]."""
    value = float(end)
    kept = mpmath.mpf(value) >= end if up else mpmath.mpf(value) <= end
    value = value if kept else math.nextafter(value, math.inf if up else -math.inf)
    return min(1.0, max(0.0, value))
