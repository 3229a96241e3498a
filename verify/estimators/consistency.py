"""Is a privacy loss the loss of its sampler?  Change-of-measure identities tested with bounded summands.

For a pair (P_D, P_D') with exact privacy loss L = log p_D/p_D', every event A satisfies

    P_D'(L ∈ A) = E_D[e^{−L} 1{L ∈ A}]        and        P_D(L ∈ A) = E_D'[e^{L} 1{L ∈ A}].

(The first is E_D[e^{−L}] = 1 restricted to A; summed over a partition they give both normalisations.)  A loss
written for another σ, another neighbour or another world breaks them on some bin of L.  The test takes the two
half-lines L ≤ 0 and L > 0 (the most power against a misnormalised loss) and bins cut at 0 and at quantiles of L
on each side (against a loss of the wrong shape; taken from a pilot share of the draws, so the bins do not depend
on the draws that test them) and, on each bin, compares

* for A ⊂ [0, ∞): the frequency of A under D' with the mean of e^{−L}1{L ∈ A} ∈ [0, 1] under D;
* for A ⊂ (−∞, 0): the frequency of A under D with the mean of e^{L}1{L ∈ A} ∈ [0, 1] under D'.

Every summand lies in [0, 1], so both sides have finite-sample intervals whatever the tails of L: an exact
Clopper–Pearson interval for the frequency and the empirical Bernstein interval of Maurer & Pontil (2009,
Thm 4) for the weighted mean.  Under the identity both intervals at level 1 − a cover the common value with
probability ≥ 1 − 2a, so "disjoint at a" has probability ≤ 2a; the bin's p-value is 2a* for the smallest such
a, and the test's p-value is Bonferroni's over the bins.  (Losses that are not numbers, or that call a release
impossible in the world that drew it, are refused earlier: :func:`pdp_audit.mechanisms.base.checked_losses`.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators.engine import BLOCK_SIZE
from pdp_audit.verify.estimators.rare import BoundedMean
from pdp_audit.verify.estimators.stats import clopper_pearson, pvalue_by_inversion

#: Bins on each side of 0.
BINS_PER_SIDE = 4
#: Share of each world's draws used only to place the bin edges.
PILOT_SHARE = 0.2


@dataclass(frozen=True)
class BinComparison:
    """One bin (lo, hi] of L: the frequency side (``count`` of ``n`` draws on ``frequency_world``) against the
    weighted side (mean of e^{∓L}1{L ∈ bin} on the other world)."""

    lo: float
    hi: float
    frequency_world: str
    count: int
    n: int
    weighted: BoundedMean

    @property
    def frequency(self) -> float:
        return self.count / self.n

    def intervals(self, a: float) -> tuple[tuple[float, float], tuple[float, float]]:
        lo, hi = clopper_pearson(self.count, self.n, a)
        return (float(lo), float(hi)), self.weighted.interval(a)

    def separation(self, a: float) -> float:
        """How far apart the two intervals at level 1 − a are (> 0: disjoint)."""
        (f_lo, f_hi), (w_lo, w_hi) = self.intervals(a)
        return max(f_lo - w_hi, w_lo - f_hi)

    def pvalue(self) -> float:
        return min(1.0, 2 * pvalue_by_inversion(self.separation, 0.0))


@dataclass(frozen=True)
class LossConsistency:
    """The bins' comparisons; :attr:`pvalue` of "L is the privacy loss of the sampler"."""

    bins: tuple[BinComparison, ...]
    noun = "bins"

    @property
    def pvalue(self) -> float:
        if not self.bins:
            return 1.0
        return min(1.0, len(self.bins) * min(b.pvalue() for b in self.bins))

    @property
    def worst(self) -> BinComparison | None:
        return min(self.bins, key=lambda b: b.pvalue()) if self.bins else None

    def describe(self) -> str:
        """The worst bin in words: which probability, its two estimates and their ratio."""
        b = self.worst
        if b is None:
            return "no bin had draws"
        other = "D'" if b.frequency_world == "D" else "D"
        weight = "e^{L}" if b.frequency_world == "D" else "e^{−L}"
        ratio = b.weighted.estimate / b.frequency if b.frequency > 0 else math.inf
        return (
            f"A = ({b.lo:.4g}, {b.hi:.4g}], P_{b.frequency_world}(L ∈ A) = {b.frequency:.4g} sampled against "
            f"E_{other}[{weight}·1{{L ∈ A}}] = {b.weighted.estimate:.4g} (ratio {ratio:.4g})"
        )


#: At most this many draws of each world place the bin edges (quantiles need no more; keeps streaming bounded).
PILOT_MAX = 1 << 18
WORLDS = ("D", "D'")


def pilot_size(n: int) -> int:
    """Draws of a world of ``n`` that only place the bin edges: the first :data:`PILOT_SHARE`, at most
    :data:`PILOT_MAX`."""
    return min(int(n * PILOT_SHARE), PILOT_MAX)


def _edges(pilot: np.ndarray) -> np.ndarray:
    """0, ±∞ and quantiles of the pilot losses on each side of 0."""
    quantiles = np.linspace(0, 1, BINS_PER_SIDE + 1)[1:-1]
    finite = pilot[np.isfinite(pilot)]
    neg, pos = finite[finite < 0], finite[finite >= 0]
    inner = [np.quantile(side, quantiles) for side in (neg, pos) if side.size]
    return np.unique(np.concatenate([[-np.inf, 0.0, np.inf], *inner]))


class _BinTally:
    """Running sums of the bins of ``edges``: the frequency side's count and the weighted side's members, sum
    and sum of squares of e^{∓L}1{L ∈ A} (a block at a time)."""

    def __init__(self, edges: np.ndarray):
        # the two half-lines (most power against a misnormalised loss) and the quantile bins (against a loss of
        # the wrong shape)
        self.bins = [(-np.inf, 0.0), (0.0, np.inf), *zip(edges[:-1], edges[1:])]
        self.count = [0] * len(self.bins)
        self.members = [0] * len(self.bins)
        self.sum = [0.0] * len(self.bins)
        self.squares = [0.0] * len(self.bins)
        self.n = dict.fromkeys(WORLDS, 0)

    @staticmethod
    def frequency_world(hi: float) -> str:
        """A ⊂ (−∞, 0]: frequency under D, weight e^{L} ≤ 1 under D'; A ⊂ (0, ∞): frequency under D',
        weight e^{−L} ≤ 1 under D."""
        return "D" if hi <= 0 else "D'"

    def add(self, world: str, losses: np.ndarray) -> None:
        self.n[world] += losses.size
        for i, (lo, hi) in enumerate(self.bins):
            inside = (losses > lo) & (losses <= hi)
            if self.frequency_world(hi) == world:
                self.count[i] += int(np.count_nonzero(inside))
            else:
                weights = np.exp((1.0 if world == "D'" else -1.0) * losses[inside])
                self.members[i] += weights.size
                self.sum[i] += float(weights.sum())
                self.squares[i] += float(np.square(weights).sum())

    def comparisons(self) -> tuple[BinComparison, ...]:
        out = []
        for i, (lo, hi) in enumerate(self.bins):
            world = self.frequency_world(hi)
            other_n = self.n["D" if world == "D'" else "D'"]
            if self.count[i] or self.members[i]:
                weighted = _weighted(self.sum[i], self.squares[i], other_n)
                out.append(BinComparison(float(lo), float(hi), world, self.count[i], self.n[world], weighted))
        return tuple(out)


def _weighted(total: float, squares: float, n: int) -> BoundedMean:
    """The mean of n draws of Y ∈ [0, 1] with sum ``total`` and sum of squares ``squares``."""
    mean = total / n
    variance = (squares - n * mean**2) / (n - 1) if n > 1 else 0.0
    return BoundedMean(n, mean, max(variance, 0.0), 1.0)


class StreamedConsistency:
    """The test of the module notes on draws fed a block at a time, in draw order per world (interleave the
    worlds: a world's draws past its pilot wait until both pilots are complete).  Memory: the pilots and a block,
    whatever the number of draws; the result is the same for any cut of the draws into blocks of
    :data:`pdp_audit.verify.estimators.engine.BLOCK_SIZE` aligned to the first draw."""

    def __init__(self, n_d: int, n_dp: int):
        self.pilot_sizes = {"D": pilot_size(n_d), "D'": pilot_size(n_dp)}
        self.pilot: dict[str, list[np.ndarray]] = {w: [] for w in WORLDS}
        self.waiting: dict[str, list[np.ndarray]] = {w: [] for w in WORLDS}
        self.seen = dict.fromkeys(WORLDS, 0)
        self.tally: _BinTally | None = None

    def add(self, world: str, losses: np.ndarray) -> None:
        losses = np.asarray(losses, float)
        start, self.seen[world] = self.seen[world], self.seen[world] + losses.size
        cut = int(np.clip(self.pilot_sizes[world] - start, 0, losses.size))
        if cut:
            self.pilot[world].append(losses[:cut])
        if cut < losses.size:
            self.waiting[world].append(losses[cut:])
        if self.tally is None and all(self.seen[w] >= self.pilot_sizes[w] for w in WORLDS):
            pilot = [np.concatenate(self.pilot[w] or [np.empty(0)]) for w in WORLDS]
            self.tally = _BinTally(_edges(np.concatenate(pilot)))
            self.pilot = {w: [] for w in WORLDS}
        if self.tally is not None:
            for w in WORLDS:
                for block in self.waiting[w]:
                    self.tally.add(w, block)
                self.waiting[w] = []

    def result(self) -> LossConsistency:
        if self.tally is None:
            raise ValueError("fewer draws than the pilot needs")
        return LossConsistency(self.tally.comparisons())


def loss_consistency(loss_d: np.ndarray, loss_dp: np.ndarray) -> LossConsistency:
    """The change-of-measure test of the module notes on draws of L under D and under D' (in draw order); the
    same numbers as :class:`StreamedConsistency` fed the draws' blocks."""
    loss_d, loss_dp = np.asarray(loss_d, float), np.asarray(loss_dp, float)
    test = StreamedConsistency(loss_d.size, loss_dp.size)
    for start in range(0, max(loss_d.size, loss_dp.size, 1), BLOCK_SIZE):
        for world, losses in (("D", loss_d), ("D'", loss_dp)):
            test.add(world, losses[start : start + BLOCK_SIZE])
    return test.result()
