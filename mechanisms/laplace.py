"""The Laplace mechanism on a count or an L1-clipped sum, its exact privacy loss, and its privacy profile.

Release ``o = Q(D) + b·Lap(0, 1)^d`` (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Definition 3.3),
with ``b = Δ/ε`` for the global L1 sensitivity Δ of the query: a count (Δ = 1) or the sum of rows clipped to L1
norm C (Δ = C), under add/remove neighbours.

**Pure DP, with its proof.**  The privacy loss of a pair (D, D') with sensitivity vector Δ_z = Q(D') − Q(D) is

    L(o) = log p_D(o) − log p_D'(o) = Σ_i (|o_i − Q(D')_i| − |o_i − Q(D)_i|) / b.

By the triangle inequality each term lies in [−|Δ_z,i|/b, |Δ_z,i|/b], so |L(o)| ≤ ‖Δ_z‖_1/b ≤ Δ/b = η for every
release o.  Hence P_D(S) = ∫_S p_D ≤ e^η ∫_S p_D' = e^η P_D'(S) for every event S, and symmetrically: the mechanism
is (η, 0)-DP, δ(ε) = 0 for every ε ≥ η; with b = Δ/ε, η = ε (Dwork & Roth 2014, Theorem 3.6).  An individual
whose row changes the query by ‖Δ_z‖_1 < Δ enjoys the smaller pure pDP ε_z = ‖Δ_z‖_1/b.

**Privacy profile of the worst-case pair** (Δ_z = Δ on one coordinate, η = Δ/b):

    δ(ε) = max(0, 1 − e^{(ε − η)/2}),  ε ≥ 0,

the same in both directions.  Derivation (b = 1 by scaling): on one coordinate L(o) = |o − η| − |o| is η for
o ≤ 0, −η for o ≥ η and η − 2o between, so {L > ε} = {o < t} with t = (η − ε)/2 for 0 ≤ ε < η, and
δ(ε) = P_D[o < t] − e^ε P_D'[o < t] = (1 − e^{−t}/2) − e^ε e^{t−η}/2 = 1 − e^{(ε−η)/2}.  At ε = 0 it is the total
variation 1 − e^{−η/2}.  The loss has atoms at ±η (probability 1/2 and e^{−η}/2 under D), which the auditors keep
whole (:func:`pdp_audit.mechanisms.base.at_loss_resolution`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Literal

import mpmath
import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world, neighbour_rows
from pdp_audit.mechanisms.gaussian_query import Query
from pdp_audit.verify.inputs.validation import InputError, nonnegative, positive, probability

Relation = Literal["add", "remove"]


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """The scale b = Δ/ε that makes the Laplace mechanism (ε, 0)-DP (Dwork & Roth 2014, Theorem 3.6), rounded up
    (:func:`scale_within`): the float quotient Δ/ε may round down, and then Δ/b > ε exactly (1/(1/0.7) > 0.7 by
    2.9e-17 in rationals) -- a mechanism that is not (ε, 0)-DP."""
    return scale_within(positive("sensitivity", sensitivity), Fraction(positive("epsilon", epsilon)))


def scale_within(numerator: float, budget: Fraction) -> float:
    """The smallest double b ≥ fl(numerator/budget) with numerator/b ≤ ``budget`` in exact arithmetic: a Laplace
    scale whose loss bound, taken in rationals, is within the budget (the float quotient is within an ulp of the
    exact one, so at most a step or two up)."""
    scale = float(Fraction(numerator) / budget)
    while Fraction(numerator) / Fraction(scale) > budget:
        scale = math.nextafter(scale, math.inf)
    return scale


def laplace_delta_upper(gap: Fraction) -> float:
    """δ(ε) = 1 − e^{−(η − ε)/2} of the one-coordinate pair (module notes) from the exact gap η − ε > 0, rounded up to
    a double: evaluated at 256 bits, whose error (a few units of 2⁻²⁵⁶ relative) is far below the 2⁻⁶⁰ relative
    margin added before rounding up.  *Sound for* an exact ``gap``, to mpmath's accuracy of expm1 at 256 bits --
    unlike :func:`laplace_delta`, whose ε − η loses the rounding of η to cancellation near the bound."""
    with mpmath.workprec(256):
        value = -mpmath.expm1(-(mpmath.mpf(gap.numerator) / gap.denominator) / 2) * (1 + mpmath.mpf(2) ** -60)
        near = float(value)
        return near if mpmath.mpf(near) >= value else math.nextafter(near, math.inf)


def laplace_delta(epsilon: float, scale: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the pair Lap(0, b) vs Lap(Δ, b) on one coordinate: max(0, 1 − e^{(ε − η)/2}), η = Δ/b
    (derived in the module notes).  ε ≥ 0, b > 0, Δ ≥ 0 (Δ = 0 gives δ = 0)."""
    epsilon = nonnegative("epsilon", epsilon)
    eta = nonnegative("sensitivity", sensitivity) / positive("scale", scale)
    return max(0.0, -math.expm1((epsilon - eta) / 2))


def laplace_epsilon(delta: float, scale: float, sensitivity: float = 1.0) -> float:
    """Smallest ε ≥ 0 with ``laplace_delta(ε, b, Δ) ≤ δ``: max(0, η + 2 log(1 − δ)) for δ ∈ [0, 1), η = Δ/b; at
    δ = 0 it is η, the pure-DP ε."""
    if delta != 0:
        delta = probability("delta", delta)
    eta = nonnegative("sensitivity", sensitivity) / positive("scale", scale)
    return max(0.0, eta + 2 * math.log1p(-delta))


def clip_rows_l1(rows: np.ndarray, bound: float) -> np.ndarray:
    """Scale each row into the L1 ball of radius ``bound`` (rows inside are unchanged)."""
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    norms = np.abs(rows).sum(axis=1, keepdims=True)
    return rows * np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))


class L1Query(Query):
    """A count of rows, or the sum of rows clipped to L1 norm ``clip`` (global L1 sensitivity = clip)."""

    def clipped(self, rows: np.ndarray, norms: np.ndarray | None = None) -> np.ndarray:
        """The rows scaled into the L1 ball of radius ``clip``; ``norms`` (the rows' L2 norms, which the L2 clip
        reuses) plays no part: the L1 norms are computed here."""
        return clip_rows_l1(rows, self.clip)

    def per_instance_sensitivities(self, data: np.ndarray) -> np.ndarray:
        """‖Δ_z‖_1 for every row z of ``data`` (removing z, or equally adding a copy of it)."""
        data = np.atleast_2d(np.asarray(data, dtype=float))
        if self.kind == "count":
            return np.ones(len(data))
        return np.abs(self.clipped(data)).sum(axis=1)


class LaplacePair:
    """The Laplace mechanism on a neighbouring pair: o ~ q_D + b·Lap(0, 1)^d versus q_D' + b·Lap(0, 1)^d.

    It declares its Laplace noise view (``noise_law``, ``noise_scale``, ``noise_dim``, ``release_from_noise``), and
    ``sample`` draws the noise as the view's replay does, so an audit of it as a pair (a joint release) may rest a
    pure claim on the bounded-loss proof (:mod:`pdp_audit.verify.estimators.view_replay`)."""

    noise_law = "laplace"
    #: ``sample`` is the declared law by construction (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`)
    built_from_law = True

    def __init__(self, q_d: np.ndarray, q_dprime: np.ndarray, scale: float | tuple[float, ...] | np.ndarray):
        """``scale``: one b for every coordinate, or a vector of per-coordinate scales b_i (a joint release such as
        the mean's (sum, count), :mod:`pdp_audit.mechanisms.laplace_queries`)."""
        self.q_d = np.atleast_1d(np.asarray(q_d, dtype=float))
        self.q_dprime = np.atleast_1d(np.asarray(q_dprime, dtype=float))
        if self.q_d.shape != self.q_dprime.shape or self.q_d.ndim != 1:
            raise InputError("q_d and q_dprime must be vectors of the same length")
        self.scale: float | np.ndarray
        if np.ndim(scale) == 0:
            self.scale = positive("scale", scale)
        else:
            self.scale = np.asarray(scale, dtype=float)
            if self.scale.shape != self.q_d.shape or not np.all(self.scale > 0):
                raise InputError("scale must be positive, one per coordinate of the release")
        self.output_dim = self.noise_dim = self.q_d.size

    @property
    def noise_scale(self) -> float | np.ndarray:
        return self.scale

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.mean(world) + noise

    @property
    def delta_z(self) -> np.ndarray:
        """Per-instance sensitivity vector Δ_z = Q(D') − Q(D)."""
        return self.q_dprime - self.q_d

    @property
    def loss_bound(self) -> float:
        """η_z = ‖Δ_z‖_1/b (Σ_i |Δ_z,i|/b_i for per-coordinate scales): |L(o)| ≤ η_z for every release (module
        notes, term by term), the pair's pure-DP ε."""
        if np.ndim(self.scale) == 0:
            return float(np.abs(self.delta_z).sum() / self.scale)
        return float(np.sum(np.abs(self.delta_z) / self.scale))

    @property
    def exact_loss_bound(self) -> Fraction:
        """η_z of :attr:`loss_bound` in exact arithmetic on the pair's doubles, Σ_i |q'_i − q_i|/b_i in rationals:
        what decides δ(ε) = 0 at an ε a rounding away from η_z (:func:`pdp_audit.verify.evidence.pure_dp.
        bounded_profile`)."""
        scales = np.broadcast_to(self.scale, self.q_d.shape)
        return sum(
            (abs(Fraction(a) - Fraction(b)) / Fraction(c) for a, b, c in zip(self.q_dprime, self.q_d, scales)),
            Fraction(0),
        )

    @property
    def coordinate_bounds(self) -> np.ndarray:
        """|Δ_z,i|/b_i of every coordinate: the loss bounds of the independent coordinates, summing to η_z."""
        return np.abs(self.delta_z) / self.scale

    def mean(self, world: World) -> np.ndarray:
        return self.q_d if check_world(world) == "D" else self.q_dprime

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.mean(world) + rng.laplace(0.0, self.scale, size=(size, self.output_dim))

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """log p_D(o) − log p_D'(o) from the two Laplace log-densities: their normalising constants cancel, leaving
        Σ_i (|o_i − q_D',i| − |o_i − q_D,i|)/b."""
        outputs = np.atleast_2d(outputs)
        if np.ndim(self.scale) != 0:  # per-coordinate scales: Σ_i (|o_i − q_D',i| − |o_i − q_D,i|)/b_i
            return np.sum((np.abs(outputs - self.q_dprime) - np.abs(outputs - self.q_d)) / self.scale, axis=1)
        far = np.abs(outputs - self.q_dprime).sum(axis=1)
        near = np.abs(outputs - self.q_d).sum(axis=1)
        return (far - near) / self.scale


@dataclass(frozen=True)
class LaplaceMechanism:
    """o = Q(D) + b·Lap(0, 1)^d for a query Q of the rows: an :class:`L1Query`, or the mean's and the histogram's
    (:mod:`pdp_audit.mechanisms.laplace_queries`)."""

    query: Callable[[np.ndarray], np.ndarray]
    scale: float | tuple[float, ...]

    def __post_init__(self) -> None:
        if np.ndim(self.scale) == 0:
            positive("scale", self.scale)

    def pair(self, data: np.ndarray, target: np.ndarray, relation: Relation = "add") -> LaplacePair:
        """The pair (D, D±z): ``relation="add"`` appends ``target``; ``"remove"`` deletes it (it must be a row of D)."""
        data, neighbour = neighbour_rows(data, target, relation)
        scale = self.scale if np.ndim(self.scale) == 0 else np.asarray(self.scale, dtype=float)
        return LaplacePair(self.query(data), self.query(neighbour), scale)


def _example_pairs(rng: np.random.Generator) -> list[LaplacePair]:
    data = rng.normal(size=(40, 3)) * 0.3
    sum_mech = LaplaceMechanism(L1Query("sum", 1.0), scale=1.0)
    count_mech = LaplaceMechanism(L1Query("count"), scale=2.0)
    return [
        sum_mech.pair(data, data[0], "remove"),
        sum_mech.pair(data, np.array([3.0, 0.0, 0.0]), "add"),  # clipped: ‖Δ‖_1 = C
        count_mech.pair(data, data[1], "add"),
    ]


LAPLACE = RegisteredMechanism(
    name="laplace",
    description="Laplace mechanism on a count or an L1-clipped sum, pure (ε, 0)-DP (Dwork et al. 2006)",
    example_pairs=_example_pairs,
)
