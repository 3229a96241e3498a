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

**Band: the likelihood score of the scale.**  If s*·L is the sampler's loss, the density ratio of the releases is
e^{s*L}, so conditionally on L a pooled draw came from D with probability σ(s*L) (σ the logistic function): the
scale is the slope of a logistic regression of the world on L, and its score at s is the difference
E_D[g(L)σ(−sL)] − E_D'[g(L)σ(sL)] with g(x) = x.  For any g the two means agree at s = s* (E_D[h(L)] =
E_D'[e^{s*L}h(L)] with h = gσ(−s*L), and e^{x}σ(−x) = σ(x)); g(x) = c·tanh(x/c), c = :data:`WEIGHT_CAP`, is the score's
weight where most losses lie, bounded.  Each pair (D's i-th draw x, D''s i-th draw y) gives

    z_s = g(x)σ(−sx) − g(y)σ(sy) ∈ [−2c, 2c],   E z_{s*} = 0,   and z_s decreases in s for every pair,

so T̂(s) = mean z_s decreases in s.  Maurer & Pontil's empirical Bernstein bound (2009, Thm 4, a/2 a side) gives
|T̂(s*)| ≤ ρ(V̂(s*)) with probability ≥ 1 − a.  The score points are t = 0, the grid, +∞ (limits written out); on
each interval [t_j, t_{j+1}], z_s² ≤ max(z_{t_j}², z_{t_{j+1}}²), so a variance bound, and the radius ρ_j, hold for
every s in it, and s* in it implies T̂(t_{j+1}) ≤ ρ_j and T̂(t_j) ≥ −ρ_j.  The band is the hull of the intervals
where both hold: it holds s* with probability ≥ 1 − a for every s* > 0, on or off the grid (no asymptotics); a band
reaching t = 0 or ∞ is open on that side; open above, the bounds take the limit s → ∞, where δ_s → P_P[L > 0] and
S⁺ = {L > 0} (a loss that is 0 everywhere still certifies δ = 0).  It replaces a band from the ``loss-consistency``
scale identity's two means (weight 1 − e^{−|L|}, two intervals at a/4 that had to be disjoint), about 1.3× wider.

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

**Measured** (``python benchmarks/scale_band.py --seed 0``: 1e5 draws a world, a = 1e-6): Gaussian shift η = 0.5:
[0.923, 1.062] (the scale identity's band, before: [0.905, 1.083]); η = 1: [0.951, 1.041] ([0.942, 1.051]); η = 2:
[0.970, 1.041] ([0.961, 1.051]); Laplace η = 1: [0.961, 1.041] ([0.951, 1.062]).  The statistical limit, a scale
MLE's Wald interval at 5 standard errors, is ±4.7%, ±2.8%, ±2.2%, ±2.8%: the band is within 1.3–1.6× of it plus the
grid's 1% step.  Coverage at a = 0.05: 0 misses in 1,000 bands (1e4 draws, s* = 1.0609 and 0.9).  Streamed: sums
per score point and interval, pairs scored :data:`PAIR_CHUNK` at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from pdp_audit.mechanisms.base import LOSS_RESOLUTION
from pdp_audit.verify.estimators.rare import BoundedMean
from pdp_audit.verify.estimators.stats import clopper_pearson, relative_entropy_upper
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


#: c of the score weight g(x) = c·tanh(x/c) (module notes): ≈ x where most losses lie, bounded by c.
WEIGHT_CAP = 0.5
#: Pairs scored at a time (memory: a few arrays of (grid + 2) × this many doubles).
PAIR_CHUNK = 8192


def _score_points() -> np.ndarray:
    """The points the score is evaluated at: 0, the grid, +∞ (so the band's intervals cover every s > 0)."""
    return np.concatenate([[0.0], SCALE_GRID, [np.inf]])


SCORE_POINTS = _score_points()


def _score_terms(losses: np.ndarray, sign: float) -> np.ndarray:
    """g(L)·σ(−sign·s·L) at every score point (rows) for ``losses`` (columns): sign +1 for D's draws (a_s), −1 for
    D''s (b_s).  Limits at s = 0 (σ = 1/2) and s = ∞ (σ = 1{−sign·L > 0} + ½·1{L = 0}) written out; L = ±∞ gives
    g = ±c and σ ∈ {0, 1} without NaN."""
    g = WEIGHT_CAP * np.tanh(losses / WEIGHT_CAP)
    inner = SCALE_GRID[:, None] * (-sign * losses)[None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        middle = special.expit(np.where(np.isnan(inner), 0.0, inner))
    at_zero = np.full((1, losses.size), 0.5)
    at_infinity = ((-sign * losses > 0) + 0.5 * (losses == 0))[None, :]
    return g[None, :] * np.concatenate([at_zero, middle, at_infinity])


class _PairedScore:
    """Sums over pairs (D's i-th loss, D''s i-th loss) of z_t = a_t − b_t at every score point t, and of
    max(z_{t_j}², z_{t_{j+1}}²) on each interval [t_j, t_{j+1}]: z_s decreases in s for every pair, so that bounds
    z_s² on the whole interval.  Pairs are formed in the order the losses arrive; a world's unpaired rest waits for
    the other."""

    def __init__(self):
        self.n = 0
        self.z = np.zeros(SCORE_POINTS.size)
        self.bound = np.zeros(SCORE_POINTS.size - 1)
        self.pending = {"D": np.zeros(0), "D'": np.zeros(0)}
        #: ScaleBand._entropy_radii by (a, n) for the sums as they stand (emptied when a pair is scored): a look reads
        #: the band at the same level for both directions and both estimates, and a budget hint at the same budgets
        self.radii: dict[tuple[float, int], np.ndarray] = {}

    def add(self, world: str, losses: np.ndarray) -> None:
        self.pending[world] = np.concatenate([self.pending[world], losses])
        k = min(self.pending["D"].size, self.pending["D'"].size)
        for start in range(0, k, PAIR_CHUNK):
            stop = min(start + PAIR_CHUNK, k)
            self._score(self.pending["D"][start:stop], self.pending["D'"][start:stop])
        self.pending = {w: rest[k:] for w, rest in self.pending.items()}

    def _score(self, x: np.ndarray, y: np.ndarray) -> None:
        z = _score_terms(x, 1.0) - _score_terms(y, -1.0)
        self.z += z.sum(axis=1)
        self.bound += np.maximum(np.square(z[:-1]), np.square(z[1:])).sum(axis=1)
        self.n += x.size
        self.radii.clear()


class StreamedScaleBand:
    """The band's ingredients fed blocks of (rounded) losses of either world: per grid scale s, the scale
    identity's two means for s·L, the bounded means E_P[(1 − e^{ε − sL})₊] of both directions, and the counts of
    {±L > ε/s} in both worlds."""

    def __init__(self, epsilon: float, resolution: float = LOSS_RESOLUTION):
        self.epsilon, self.resolution = float(epsilon), resolution
        self.score = _PairedScore()
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
        self.score.add(world, losses)
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
    #: Bounds sharpened by Hoeffding's relative-entropy bound: the band's radii (:meth:`_entropy_radii`) and the
    #: bounded mean's upper bound (:meth:`mean_upper`).  The pass in looks reads them so; the fixed pass keeps Maurer
    #: & Pontil's empirical Bernstein bounds alone, its numbers unchanged.
    entropy: bool = False

    def at_budget(self, n: int) -> ScaleBand:
        return replace(self, budget=int(n))

    def draws(self, world: str) -> int:
        return self.streamed.n[world] if self.budget is None else self.budget

    def _count(self, table: dict, world: str, index: int) -> float:
        count = float(table[world][index])
        return count if self.budget is None else round(count * self.budget / max(self.streamed.n[world], 1))

    def band(self, a: float) -> tuple[int | None, int | None] | None:
        """Grid indices of the band's ends at level a (None: open on that side, 0 or ∞); None when every interval is
        refuted (the loss is no scale of the sampler's).  Interval [t_j, t_{j+1}] of 0 < grid < ∞ is kept unless
        T̂(t_{j+1}) > ρ_j or T̂(t_j) < −ρ_j (module notes)."""
        score = self.streamed.score
        n = score.n if self.budget is None else self.budget
        if score.n < 2 or n < 2:
            return None, None
        t_hat = score.z / score.n
        radius = self._radii(a, n)
        kept = np.flatnonzero((t_hat[1:] <= radius) & (t_hat[:-1] >= -radius))
        if kept.size == 0:
            return None
        low, high = int(kept[0]), int(kept[-1]) + 1  # indices into SCORE_POINTS; grid index = point index − 1
        return (low - 1 if low > 0 else None), (high - 1 if high < SCORE_POINTS.size - 1 else None)

    def _radii(self, a: float, n: int) -> np.ndarray:
        """ρ_j: Maurer & Pontil's two-sided radius (a/2 a side) for pairs z ∈ [−2c, 2c], with the sample variance
        bounded on the whole interval j by n/(n − 1)·mean(bound_j)/(4c)² ≤ its largest value there; with
        :attr:`entropy`, :meth:`_entropy_radii`."""
        if self.entropy:
            return self._entropy_radii(a, n)
        score, width = self.streamed.score, 4 * WEIGHT_CAP
        variance = np.minimum(score.bound / score.n / width**2 * n / (n - 1), 0.25 * n / (n - 1))
        log_term = math.log(4 / a)
        return width * (np.sqrt(2 * variance * log_term / n) + 7 * log_term / (3 * (n - 1)))

    def _entropy_radii(self, a: float, n: int) -> np.ndarray:
        """ρ_j by Bernstein's inequality with a variance bound of its own: on interval j every z_s (s in it) has
        variance at most E z_s² ≤ (2c)²·E w, w = max(z_{t_j}², z_{t_{j+1}}²)/(2c)² ∈ [0, 1], and E w is at most its
        relative-entropy upper bound W at a/2 (:func:`pdp_audit.verify.estimators.stats.relative_entropy_upper`);
        given that, each side at a/4 (|z − E z| ≤ b = 4c): P(T̂ − E T̂ ≥ ρ) ≤ exp(−nρ²/(2σ² + 2bρ/3)) with σ² =
        (2c)²W (Bernstein 1924; Boucheron, Lugosi & Massart 2013, Theorem 2.10), so ρ = bℓ/(3n) + √((bℓ/(3n))² +
        2σ²ℓ/n), ℓ = log(4/a) -- the events at a/2 + a/4 + a/4, as Maurer & Pontil's.  About 30% narrower than
        theirs at 2e4–3e4 draws of a Gaussian at η ≈ 0.2, where their 7ℓ/(3n) term is half the radius."""
        score, c = self.streamed.score, WEIGHT_CAP
        radii = score.radii.get((a, n))
        if radii is None:
            proxy = relative_entropy_upper(np.minimum(score.bound / score.n / (2 * c) ** 2, 1.0), n, a / 2)
            log_term, linear = math.log(4 / a), 4 * c * math.log(4 / a) / (3 * n)
            radii = linear + np.sqrt(linear**2 + 2 * (2 * c) ** 2 * proxy * log_term / n)
            radii.setflags(write=False)  # shared by every reading of the same sums
            score.radii[(a, n)] = radii
        return radii

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
        mean = self.mean(direction, band[1])
        if not self.entropy:
            return mean.upper_bound(a / 2)
        # the smaller of two bounds at a/4 each: the relative-entropy bound near δ = 0 (about log(4/a)/n, where the
        # empirical Bernstein bound's 7·log(8/a)/(3n) holds a tight claim back), the empirical Bernstein bound where
        # the summands' variance is well below mean·(1 − mean)
        return min(mean.upper_bound(a / 4), relative_entropy_upper(mean.mean, mean.n, a / 4))

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
        count_p, count_q = (np.array([self._count(table, w, ONE)]) for w in (p, q))
        return TailEstimate(np.array([self.streamed.epsilon]), count_p, count_q, self.draws(p), self.draws(q), 0.5)

    def tails_upper(self, direction: str, a: float) -> float:
        """P(S⁺) − e^ε Q(S⁻) at confidence 1 − a (module notes)."""
        band = self.band(a / 2)
        if band is None:
            return 1.0
        low, high = band
        p, q = DIRECTIONS[direction]
        table = self.streamed.above if direction == "D||D'" else self.streamed.below
        hi_p: float | np.ndarray  # a bound of clopper_pearson's is a 0-d array
        if high is None:  # open above: S⁺ = {L > 0}
            hi_p = self._positive_upper(direction, a / 4)
        else:
            _, hi_p = clopper_pearson(self._count(table, p, high), self.draws(p), a / 4, side="upper")
        lo_q: float | np.ndarray = 0.0
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
