"""δ(ε) when the claimed loss may be of the wrong scale: a confidence band on the scale, and δ's bounds over it.

The bounded mean E_P[(1 − e^{ε − L})₊] and the tails P_P[L > ε] − e^ε P_Q[L > ε] bound δ_{P‖Q}(ε) from above only
if L is the sampler's loss, and a loss written for σ (or b) a few per cent too large is the error no identity test
sees at small η = ‖Δ‖/σ with 1e5 draws (:mod:`pdp_audit.verify.estimators.consistency_scale`: at η = 0.5, p ≈
0.003–0.02 for a
6% error in the loss's scale, which moves δ by 6%).  So the upper bounds here do not take the loss's scale on
trust: they hold for every scale the draws cannot refute.

**Model.**  The sampler's loss is s*·L for an unknown s* > 0 (L the claimed loss): a Gaussian or Laplace loss
written for the wrong σ or b is exactly that.  Other errors of the loss are the business of the other identities of
``loss-consistency``; at s* = 1 everything below is the usual estimate.

**Band.**  For each s of :data:`SCALE_GRID` the scale identity of :mod:`pdp_audit.verify.estimators.consistency_scale`
is
computed for the loss s·L (its two means streamed per s).  The band at level a is the set of grid scales whose
identity is not refuted at a; the sampler's s* is refuted with probability at most a, so the band *between its
neighbouring grid points* (one step beyond its lowest and highest member) holds s* with probability ≥ 1 − a when
s* lies inside the grid's range.  A band reaching the grid's end is open on that side; open above, the bounds take
the limit s → ∞, where δ_s → P_P[L > 0] and S⁺ = {L > 0} (a loss that is 0 everywhere still certifies δ = 0).

**Bounds over the band** (each at a/2, the band at a/2: Bonferroni):

* bounded mean: δ_s = E_P[(1 − e^{ε − sL})₊] increases with s (each summand does, for L > 0; it is 0 for L ≤ 0),
  so δ(s*) ≤ δ_{s_hi} ≤ its empirical Bernstein upper bound;
* tails: the optimal event S* = {s*L > ε} = {L > ε/s*} lies between S⁻ = {L > ε/s_lo} and S⁺ = {L > ε/s_hi}, so
  δ(s*) = P(S*) − e^ε Q(S*) ≤ P(S⁺) − e^ε Q(S⁻): Clopper–Pearson at a/4 on each.  The tails' *lower* bound needs no
  band (every event bounds δ from below, whatever L).

The lower bounds that fail a claim are not widened: the bounded mean's lower bound is taken at s = 1, so a claimed
loss that states *more* leakage than the sampler's can fail the claim -- the loss is part of what the user claims, and
``loss-consistency`` names the inconsistency (widening it instead would make a total leak at ε = 20 inconclusive:
the scale identity has no power when every |L| is huge, and the band is open below).

**Measured** (Gaussian shift, 1e5 draws a world, α = 1e-6): the band is about ±8% at η = 0.5, ±5% at η = 1, ±4%
at η = 2; the upper bound of δ(0.1) at η = 0.5 rises from 0.162 to 0.175 (true 0.159), and with a loss for σ 3% too
large from 0.153 -- a pass of any claim in [0.153, 0.159] -- to 0.177: those claims are now inconclusive, with a
budget hint.  Streamed: a few sums per grid scale and world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from pdp_audit.mechanisms.base import LOSS_RESOLUTION
from pdp_audit.verify.estimators.rare import BoundedMean
from pdp_audit.verify.estimators.stats import clopper_pearson
from pdp_audit.verify.estimators.tails import TailEstimate, exceedances, hockey_integrand


def _scale_grid() -> np.ndarray:
    """Steps of 1% within ±20% of 1, then steps of e^0.15 out to ×e² and ÷e²; 1 exactly on the grid."""
    fine = np.arange(-20, 21) * 0.01
    coarse = 0.2 + 0.15 * np.arange(1, 13)
    logs = np.concatenate([-coarse[::-1], fine, coarse])
    grid = np.exp(logs)
    grid[np.flatnonzero(logs == 0)] = 1.0
    return grid


#: The scales s the band is drawn from (sorted; 1 exactly included).
SCALE_GRID = _scale_grid()
ONE = int(np.flatnonzero(SCALE_GRID == 1.0)[0])
DIRECTIONS = {"D||D'": ("D", "D'"), "D'||D": ("D'", "D")}


class _Moments:
    """Count, means and sums of squared deviations of one value per grid scale, merged block by block (Chan,
    Golub & LeVeque 1983), so the numbers do not depend on the blocks' sizes beyond rounding."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, np.zeros(SCALE_GRID.size), np.zeros(SCALE_GRID.size)

    def add(self, values: np.ndarray) -> None:  # values: (grid, block)
        nb = values.shape[1]
        if nb == 0:
            return
        mb = values.mean(axis=1)
        m2b = np.sum((values - mb[:, None]) ** 2, axis=1)
        total = self.n + nb
        gap = mb - self.mean
        self.mean = self.mean + gap * nb / total
        self.m2 = self.m2 + m2b + gap * gap * self.n * nb / total
        self.n = total

    def bounded(self, index: int, n: int | None = None) -> BoundedMean:
        return BoundedMean(int(self.n if n is None else n), float(self.mean[index]), self._variance(index), 1.0)

    def _variance(self, index: int) -> float:
        return float(self.m2[index] / max(self.n - 1, 1))


def _scale_identity_values(world: str, scaled: np.ndarray) -> np.ndarray:
    """The summands of :class:`pdp_audit.verify.estimators.consistency_scale.StreamedScaleIdentity` for losses
    ``scaled``,
    mapped onto [0, 1]."""
    positive = scaled > 0
    e = np.exp(-np.abs(scaled))
    if world == "D'":
        values = np.where(positive, 1 - e, -(e - e * e))
    else:
        values = np.where(positive, e - e * e, -(1 - e))
    return (values + 0.25) / 1.25


class StreamedScaleBand:
    """The band's ingredients fed blocks of (rounded) losses of either world: per grid scale s, the scale
    identity's two means for s·L, the bounded means E_P[(1 − e^{ε − sL})₊] of both directions, and the counts of
    {±L > ε/s} in both worlds."""

    def __init__(self, epsilon: float, resolution: float = LOSS_RESOLUTION):
        self.epsilon, self.resolution = float(epsilon), resolution
        self.identity = {"D": _Moments(), "D'": _Moments()}
        self.hockey = {"D||D'": _Moments(), "D'||D": _Moments()}
        zeros = np.zeros(SCALE_GRID.size, dtype=np.int64)
        self.above = {w: zeros.copy() for w in ("D", "D'")}  # #{L > ε/s}
        self.below = {w: zeros.copy() for w in ("D", "D'")}  # #{−L > ε/s}
        self.positive = {"D||D'": 0, "D'||D": 0}  # #{L > 0} under D, #{−L > 0} under D': the limit s → ∞
        self.n = {"D": 0, "D'": 0}

    def add(self, world: str, losses: np.ndarray) -> None:
        losses = np.asarray(losses, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            scaled = SCALE_GRID[:, None] * losses[None, :]
        self.identity[world].add(_scale_identity_values(world, scaled))
        direction, sign = ("D||D'", 1.0) if world == "D" else ("D'||D", -1.0)
        self.hockey[direction].add(hockey_integrand(sign * scaled, self.epsilon))
        thresholds = self.epsilon / SCALE_GRID
        self.above[world] += exceedances(losses, thresholds, self.resolution)
        self.below[world] += exceedances(-losses, thresholds, self.resolution)
        self.positive[direction] += int(np.count_nonzero(sign * losses > 0))
        self.n[world] += losses.size

    def result(self) -> ScaleBand:
        return ScaleBand(self, None)


@dataclass(frozen=True)
class ScaleBand:
    """The band and the bounds of δ over it (module notes); ``budget``: the draws per world the bounds are computed
    for (None: those drawn), with every mean and frequency held -- how a budget hint asks what N draws would give."""

    streamed: StreamedScaleBand
    budget: int | None

    def at_budget(self, n: int) -> ScaleBand:
        return replace(self, budget=int(n))

    def draws(self, world: str) -> int:
        return self.streamed.n[world] if self.budget is None else self.budget

    def _count(self, table: dict, world: str, index: int) -> float:
        count = float(table[world][index])
        return count if self.budget is None else round(count * self.budget / max(self.streamed.n[world], 1))

    def band(self, a: float) -> tuple[int | None, int | None] | None:
        """Grid indices one step beyond the band's ends at level a (None: open on that side); None when every grid
        scale is refuted (the loss is no scale of the sampler's)."""
        accepted = [i for i in range(SCALE_GRID.size) if self._separation(i, a) <= 0]
        if not accepted:
            return None
        low, high = accepted[0] - 1, accepted[-1] + 1
        return (low if low >= 0 else None), (high if high < SCALE_GRID.size else None)

    def _separation(self, index: int, a: float) -> float:
        x = self.streamed.identity["D'"].bounded(index, self.budget)
        y = self.streamed.identity["D"].bounded(index, self.budget)
        if x.n < 2 or y.n < 2:
            return -1.0
        return max(x.lower_bound(a / 4) - y.upper_bound(a / 4), y.lower_bound(a / 4) - x.upper_bound(a / 4))

    def mean(self, direction: str, index: int = ONE) -> BoundedMean:
        return self.streamed.hockey[direction].bounded(index, self.budget)

    def mean_upper(self, direction: str, a: float) -> float:
        """The upper bound on δ(ε) at confidence 1 − a from the bounded mean over the band (open above: its limit
        s → ∞, P_P[L > 0])."""
        band = self.band(a / 2)
        if band is None:
            return 1.0
        if band[1] is None:
            return self._positive_upper(direction, a / 2)
        return self.mean(direction, band[1]).upper_bound(a / 2)

    def _positive_upper(self, direction: str, a: float) -> float:
        """Clopper–Pearson upper bound on P_P[L > 0] = lim_{s → ∞} δ_s and the largest P(S⁺) (module notes)."""
        p = DIRECTIONS[direction][0]
        count = float(self.streamed.positive[direction])
        if self.budget is not None:
            count = round(count * self.budget / max(self.streamed.n[p], 1))
        return float(clopper_pearson(count, self.draws(p), a, side="upper")[1])

    def tails(self, direction: str) -> TailEstimate:
        """The plain tails at ε itself (s = 1), at the band's budget."""
        p, q = DIRECTIONS[direction]
        table = self.streamed.above if direction == "D||D'" else self.streamed.below
        counts = [np.array([self._count(table, w, ONE)]) for w in (p, q)]
        return TailEstimate(np.array([self.streamed.epsilon]), *counts, self.draws(p), self.draws(q), 0.5)

    def tails_upper(self, direction: str, a: float) -> float:
        """P(S⁺) − e^ε Q(S⁻) at confidence 1 − a (module notes)."""
        band = self.band(a / 2)
        if band is None:
            return 1.0
        low, high = band
        p, q = DIRECTIONS[direction]
        table = self.streamed.above if direction == "D||D'" else self.streamed.below
        if high is None:  # open above: S⁺ = {L > 0}
            hi_p = self._positive_upper(direction, a / 4)
        else:
            _, hi_p = clopper_pearson(self._count(table, p, high), self.draws(p), a / 4, side="upper")
        lo_q = 0.0
        if low is not None:
            lo_q, _ = clopper_pearson(self._count(table, q, low), self.draws(q), a / 4, side="lower")
        scaled = 0.0 if lo_q == 0 else math.exp(min(self.streamed.epsilon, 700.0)) * float(lo_q)
        return float(hi_p) - scaled

    def describe(self, a: float) -> str:
        """The band at level a in words."""
        band = self.band(a)
        if band is None:
            return "no scale of the claimed loss is consistent with the draws"
        low, high = band
        lo = "0" if low is None else f"{SCALE_GRID[low]:.3g}"
        hi = "∞" if high is None else f"{SCALE_GRID[high]:.3g}"
        return f"the sampler's loss is s × the claimed one for some s in [{lo}, {hi}] (confidence 1 − {a:g})"
