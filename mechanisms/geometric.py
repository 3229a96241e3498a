"""The two-sided geometric (discrete Laplace) mechanism on an integer query, its exact privacy loss and profile.

Release ``o = Q(D) + Z`` with Q integer-valued and Z two-sided geometric on the integers,

    P(Z = k) = (1 − α)/(1 + α) · α^{|k|},   α = e^{−1/b},  k ∈ ℤ

(Ghosh, Roughgarden & Sundararajan 2012; Inusah & Kozubowski 2006 for the law), sampled exactly as the difference
G_1 − G_2 of two independent geometric variables on {0, 1, …} with P(G = j) = (1 − α)α^j.  The queries: a count
(Δ = 1), or the sum of one column's values rounded to the nearest integer (ties to even) and clamped to [−C, C]
for a whole C (Δ = C), under add/remove neighbours (one row added to or removed from D).

**Privacy loss and pure DP, with its proof.**  For a pair with integer shift m = Q(D') − Q(D), the normalising
constants cancel and L(o) = log P_D(o) − log P_D'(o) = (|o − Q(D')| − |o − Q(D)|)/b.  By the triangle inequality
|L(o)| ≤ |m|/b = η for every integer release o, so P_D(S) ≤ e^η P_D'(S) for every set S of releases, both ways:
the mechanism is (η, 0)-DP, and b = Δ/ε makes it (ε, 0)-DP (the calibration; Ghosh et al. 2012).  An individual
whose row moves the query by |m| < Δ enjoys the pure pDP ε_z = |m|/b.

**Exact profile** (m ≥ 1 by symmetry, η = m/b, 0 ≤ ε < η; δ(ε) = 0 for ε ≥ η).  With Q(D) = 0: L = η for o ≤ 0,
−η for o ≥ m and (m − 2o)/b between, so {L > ε} = {o ≤ K} with K = ⌈(m − εb)/2⌉ − 1 ∈ [0, m − 1], and with
P(Z ≥ j) = α^j/(1 + α) for j ≥ 1,

    δ(ε) = P_D[o ≤ K] − e^ε P_D'[o ≤ K] = 1 − α^{K+1}/(1 + α) − e^ε α^{m−K}/(1 + α).

A release with L = ε exactly (where (m − εb)/2 is an integer) adds P_D(o) − e^ε P_D'(o) = 0 on either side, so the
choice of K there does not matter and δ is continuous in ε.  The reverse direction has the same profile
(o ↦ m − o exchanges the worlds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import mpmath
import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism, neighbour_rows
from pdp_audit.mechanisms.laplace import LaplacePair, laplace_scale
from pdp_audit.verify.inputs.validation import InputError, nonnegative, positive

Relation = Literal["add", "remove"]


def geometric_scale(epsilon: float, sensitivity: int = 1) -> float:
    """b = Δ/ε, which makes the geometric mechanism (ε, 0)-DP (module notes), rounded up as the Laplace scale is
    (:func:`pdp_audit.mechanisms.laplace.laplace_scale`: Δ/b ≤ ε in exact arithmetic)."""
    return laplace_scale(epsilon, positive("sensitivity", sensitivity))


def geometric_delta(epsilon: float, scale: float, shift: int = 1) -> float:
    """Exact δ(ε) of Q(D) + Z vs Q(D) + m + Z, Z two-sided geometric of scale b (module notes); ε ≥ 0, m ≥ 0."""
    epsilon = nonnegative("epsilon", epsilon)
    scale = positive("scale", scale)
    if float(shift) != round(float(shift)):
        raise InputError(f"shift must be a whole number, got {shift}")
    m = abs(int(round(float(shift))))
    if m == 0 or epsilon >= m / scale:
        return 0.0
    last = math.ceil((m - epsilon * scale) / 2) - 1  # K: the largest release with L > ε
    last = min(max(last, 0), m - 1)
    log_alpha = -1.0 / scale
    tail_d = math.exp((last + 1) * log_alpha)  # α^{K+1}
    tail_dprime = math.exp(epsilon + (m - last) * log_alpha)  # e^ε α^{m−K}
    return max(0.0, 1.0 - (tail_d + tail_dprime) / (1.0 + math.exp(log_alpha)))


def geometric_delta_upper(epsilon: float, scale: float, shift: int) -> float:
    """:func:`geometric_delta` rounded up to a double: K, the largest release with L > ε (m − 2K > εb), found in
    rationals -- the float ceil((m − εb)/2) can land a release off, and either way the sum loses a term it needs or
    takes one it must not, falling below δ(ε) -- and 1 − (α^{K+1} + e^ε α^{m−K})/(1 + α), α = e^{−1/b}, evaluated at
    256 bits, a 2⁻⁶⁰ relative margin added (far above the evaluation's error) before rounding up.  *Sound for* ε, b
    taken as exact and ε < m/b, to mpmath's accuracy of exp at 256 bits."""
    m = abs(int(shift))
    reach = m - Fraction(epsilon) * Fraction(scale)
    if reach <= 0:
        return 0.0
    last = min(max(math.ceil(reach / 2) - 1, 0), m - 1)
    with mpmath.workprec(256):
        alpha = mpmath.exp(-1 / mpmath.mpf(scale))
        tails = alpha ** (last + 1) + mpmath.exp(mpmath.mpf(epsilon)) * alpha ** (m - last)
        value = (1 - tails / (1 + alpha)) * (1 + mpmath.mpf(2) ** -60)
        near = float(value)
        return near if mpmath.mpf(near) >= value else math.nextafter(near, math.inf)


def geometric_epsilon(delta: float, scale: float, shift: int = 1) -> float:
    """Smallest ε ≥ 0 with ``geometric_delta(ε, b, m) ≤ δ`` (δ(ε) is continuous and decreasing to 0 at ε = |m|/b;
    bisection to 1e-12 relative).  δ = 0 gives |m|/b, the pure-DP ε."""
    from scipy import optimize

    top = abs(int(shift)) / positive("scale", scale)
    if delta <= 0 or top == 0:
        return top
    if geometric_delta(0.0, scale, shift) <= delta:
        return 0.0
    return float(optimize.brentq(lambda e: geometric_delta(e, scale, shift) - delta, 0.0, top, xtol=1e-14 * top))


def two_sided_geometric(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Draws of Z with P(Z = k) ∝ e^{−|k|/b}: G_1 − G_2, each G on {0, 1, …} with success probability 1 − α
    (numpy's geometric counts trials, starting at 1: the two offsets cancel)."""
    success = -math.expm1(-1.0 / scale)  # 1 − α, accurate for large b
    return (rng.geometric(success, size=size) - rng.geometric(success, size=size)).astype(float)


@dataclass(frozen=True)
class IntegerQuery:
    """A count of rows (Δ = 1), or the sum of column ``column`` rounded to integers and clamped to [−C, C]
    (Δ = C, a whole number)."""

    kind: Literal["sum", "count"] = "sum"
    clip: int = 1
    column: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("sum", "count"):
            raise InputError(f"query must be 'sum' or 'count', got {self.kind!r}")
        if int(self.clip) != self.clip or self.clip < 1:
            raise InputError(f"clip must be a whole number >= 1, got {self.clip}")

    @property
    def sensitivity(self) -> int:
        return 1 if self.kind == "count" else int(self.clip)

    def values(self, rows: np.ndarray) -> np.ndarray:
        """Each row's contribution: 1 (count), or its column rounded to an integer and clamped to [−C, C]."""
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        if self.kind == "count":
            return np.ones(len(rows))
        return np.clip(np.rint(rows[:, self.column]), -self.clip, self.clip)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return np.array([float(self.values(rows).sum())])

    def per_instance_sensitivities(self, rows: np.ndarray) -> np.ndarray:
        """|m| of every row (removing it, or adding a copy of it)."""
        return np.abs(self.values(rows))


class GeometricPair(LaplacePair):
    """The geometric mechanism on a pair: o ~ q_D + Z versus q_D' + Z; the privacy loss is the Laplace pair's
    formula Σ (|o − q_D'| − |o − q_D|)/b, exact on the integers (module notes)."""

    built_from_law = True  # its own ``sample``: the two-sided geometric law by construction
    scale: float  # one b for every coordinate (LaplacePair's per-coordinate scales are not taken)

    def __init__(self, q_d: np.ndarray, q_dprime: np.ndarray, scale: float):
        super().__init__(q_d, q_dprime, scale)
        if not (np.all(self.q_d == np.rint(self.q_d)) and np.all(self.q_dprime == np.rint(self.q_dprime))):
            raise InputError("the geometric mechanism needs integer query values")

    def sample(self, world, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.mean(world) + two_sided_geometric(self.scale, (size, self.output_dim), rng)


@dataclass(frozen=True)
class GeometricMechanism:
    """o = Q(D) + Z for an :class:`IntegerQuery`, Z two-sided geometric of scale b."""

    query: IntegerQuery
    scale: float

    def __post_init__(self) -> None:
        positive("scale", self.scale)

    def pair(self, data: np.ndarray, target: np.ndarray, relation: Relation = "add") -> GeometricPair:
        """The pair (D, D±z): ``relation="add"`` appends ``target``; ``"remove"`` deletes it (a row of D)."""
        data, neighbour = neighbour_rows(data, target, relation)
        return GeometricPair(self.query(data), self.query(neighbour), self.scale)


def _example_pairs(rng: np.random.Generator) -> list[GeometricPair]:
    data = np.round(rng.normal(size=(40, 2)) * 3)
    sum_mech = GeometricMechanism(IntegerQuery("sum", 5, column=0), scale=3.0)
    count_mech = GeometricMechanism(IntegerQuery("count"), scale=0.8)
    return [
        sum_mech.pair(data, data[0], "remove"),
        sum_mech.pair(data, np.array([9.0, 0.0]), "add"),  # clamped: m = C
        count_mech.pair(data, data[1], "add"),
    ]


GEOMETRIC = RegisteredMechanism(
    name="geometric",
    description="two-sided geometric (discrete Laplace) mechanism on a count or integer clamped sum, pure (ε, 0)-DP",
    example_pairs=_example_pairs,
)
