"""An ε lower bound of the likelihood-ratio attack from all samples, its thresholds at fixed ranks of one world's
order statistics: the previous bound of :mod:`pdp_audit.verify.estimators.attack`, kept for comparison
(``benchmarks/epsilon_lower_bounds.py``; the audits use :class:`pdp_audit.verify.estimators.attack.PooledRankAttack`).

(ε, δ)-DP of the pair implies TPR ≤ e^ε FPR + δ and 1 − FPR ≤ e^ε (1 − TPR) + δ at every threshold (Kairouz, Oh &
Viswanath 2015).  With the threshold the k-th largest score of one world, that world's rate above it has the exact law
Beta(k, n + 1 − k) (scores made continuous by an attached uniform), the other world's count above it is Binomial given
the threshold (Clopper–Pearson); a union bound over both rates and the 2K fixed thresholds keeps the level 1 − α.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators.stats import clopper_pearson

#: Ranks k of the order statistics used as thresholds, fixed before the data are seen (geometric from 1 to n/2).
ORDER_STATISTIC_RANKS = 48


def _fixed_ranks(n: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, max(1, n // 2), ORDER_STATISTIC_RANKS)).astype(int))


def _tie_broken_order(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scores with an independent uniform attached, as (score, u) pairs sorted in increasing lexicographic order:
    the randomised test "score > t, or score = t and u > u_t" has a continuous law, so order-statistic laws are
    exact even when scores tie."""
    u = rng.random(scores.size)
    order = np.lexsort((u, scores))
    return np.column_stack([scores[order], u[order]])


def _count_above(pairs: np.ndarray, threshold: np.ndarray) -> int:
    """How many (score, u) pairs are lexicographically above ``threshold``."""
    s, u = pairs[:, 0], pairs[:, 1]
    return int(np.count_nonzero((s > threshold[0]) | ((s == threshold[0]) & (u > threshold[1]))))


@dataclass(frozen=True)
class OrderStatisticAttack:
    """Counts for the ε lower bound of :func:`order_statistic_attack` (re-evaluable at any α).

    Direction "D": the threshold is the k-th largest score of D' (negatives); FPR(t_k) = P_D'(score above t_k)
    has the exact law Beta(k, n_neg + 1 − k) (continuous randomised scores), so its upper confidence bound is a
    Beta quantile; the positives above t_k are Binomial(n_pos, TPR(t_k)) given t_k (independent samples), so TPR
    gets a Clopper–Pearson lower bound.  Direction "D'" mirrors it (thresholds at the k-th smallest positive,
    bounding FNR and TNR: the second DP inequality).  Every (direction, rank) uses α/(4K) for each of its two
    bounds: the union bound over the 2K fixed thresholds makes the maximum valid at level 1 − α.
    """

    ranks: np.ndarray
    n_pos: int
    n_neg: int
    tp_at_neg_rank: np.ndarray  # positives above the k-th largest negative
    tn_at_pos_rank: np.ndarray  # negatives below the k-th smallest positive
    neg_thresholds: np.ndarray  # the k-th largest negative score
    pos_thresholds: np.ndarray  # the k-th smallest positive score
    delta: float

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        forward, reverse = self._bounds(alpha)
        return float(max(0.0, np.nanmax(forward), np.nanmax(reverse)))

    def best_threshold(self, alpha: float) -> float:
        """The score threshold whose bound is the largest at ``alpha`` (for display)."""
        forward, reverse = self._bounds(alpha)
        if np.nanmax(forward) >= np.nanmax(reverse):
            return float(self.neg_thresholds[int(np.nanargmax(forward))])
        return float(self.pos_thresholds[int(np.nanargmax(reverse))])

    def _bounds(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        from scipy import stats  # here, not at the top: scipy.stats is most of a second of a process's start

        a = alpha / (4 * self.ranks.size)
        k = self.ranks
        fpr_hi = stats.beta.isf(a, k, self.n_neg + 1 - k)
        tpr_lo = clopper_pearson(self.tp_at_neg_rank, self.n_pos, a, side="lower")[0]
        fnr_hi = stats.beta.isf(a, k, self.n_pos + 1 - k)
        tnr_lo = clopper_pearson(self.tn_at_pos_rank, self.n_neg, a, side="lower")[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            forward = np.log(np.maximum(tpr_lo - self.delta, 0.0) / fpr_hi)
            reverse = np.log(np.maximum(tnr_lo - self.delta, 0.0) / fnr_hi)
        return forward, reverse


def order_statistic_attack(
    scores_pos: np.ndarray, scores_neg: np.ndarray, delta: float, seed: int = 0
) -> OrderStatisticAttack:
    """The likelihood-ratio attack on *all* samples, its thresholds at fixed ranks of the other world's order
    statistics (see :class:`OrderStatisticAttack`); ``seed`` draws the tie-breaking uniforms."""
    rng = np.random.default_rng(seed)
    pos = _tie_broken_order(np.asarray(scores_pos, float), rng)
    neg = _tie_broken_order(np.asarray(scores_neg, float), rng)
    ranks = _fixed_ranks(min(len(pos), len(neg)))
    tp = np.array([_count_above(pos, neg[len(neg) - k]) for k in ranks])
    # negatives below the k-th smallest positive (equality has probability 0 for the randomised pairs)
    tn = np.array([len(neg) - _count_above(neg, pos[k - 1]) for k in ranks])
    neg_t, pos_t = neg[len(neg) - ranks, 0], pos[ranks - 1, 0]
    return OrderStatisticAttack(ranks, len(pos), len(neg), tp, tn, neg_t, pos_t, float(delta))
