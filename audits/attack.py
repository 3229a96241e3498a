"""The likelihood-ratio (Neyman–Pearson) membership attack and ε lower bounds from its ROC.

Convention: the attacker sees one release o and must say which world produced it.
*Positive* = world D, *negative* = world D' = D±z.  The score is the exact privacy loss
L(o) = log p_D(o) − log p_D'(o); the attack says "D" when L ≥ t.  TPR(t) = P_D[L ≥ t],
FPR(t) = P_D'[L ≥ t].  By the Neyman–Pearson lemma no test of D vs D' has a better ROC.

(ε, δ)-DP of the pair implies, for every threshold ([Kairouz et al. 2015]; the two inequalities of
D1 applied to S = {L ≥ t} and its complement):

    TPR ≤ e^ε FPR + δ        and        1 − FPR ≤ e^ε (1 − TPR) + δ,

so every (FPR, TPR) gives ε ≥ max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR))).  A valid
lower bound replaces TPR by a lower confidence bound and FPR by an upper one.  All samples are used: the
thresholds are order statistics of one world at ranks fixed in advance, whose rates have exact Beta laws,
and a union bound over those ranks pays for choosing the best (:class:`OrderStatisticAttack`).  On
identical Gaussian scores this is 5–30% tighter than choosing the threshold on a held-out half and ties
jax-privacy's Bonferroni Clopper–Pearson bound (benchmarks/epsilon_lower_bounds.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from audits.stats import clopper_pearson

POSITIVE_WORLD = "D"
LABEL_CONVENTION = (
    "positive = output of D, negative = output of D' = D±z; score = log p_D(o) − log p_D'(o); predict D when score ≥ t"
)


@dataclass(frozen=True)
class Roc:
    """The empirical ROC of a score threshold test: false- and true-positive rates at every threshold."""

    thresholds: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray


def roc_curve(scores_pos: np.ndarray, scores_neg: np.ndarray) -> Roc:
    """Empirical ROC of 'predict positive when score ≥ t' over every distinct score."""
    thresholds = np.unique(np.concatenate([scores_pos, scores_neg]))[::-1]
    pos, neg = np.sort(scores_pos), np.sort(scores_neg)
    tpr = (pos.size - np.searchsorted(pos, thresholds, side="left")) / pos.size
    fpr = (neg.size - np.searchsorted(neg, thresholds, side="left")) / neg.size
    return Roc(np.concatenate([[np.inf], thresholds]), np.concatenate([[0.0], tpr]), np.concatenate([[0.0], fpr]))


def tpr_at_fpr(scores_pos: np.ndarray, scores_neg: np.ndarray, fpr: float) -> float:
    """TPR of the test whose threshold is the empirical (1 − fpr)-quantile of the negative scores."""
    t = np.quantile(scores_neg, 1 - fpr, method="higher")
    return float(np.mean(scores_pos > t))


def best_balanced_accuracy(roc: Roc) -> float:
    """The best balanced accuracy (TPR + 1 − FPR)/2 over the ROC's thresholds."""
    return float(np.max((roc.tpr + 1 - roc.fpr) / 2))


def balanced_accuracy_bound(epsilon: float, delta: float = 0.0) -> float:
    """Largest balanced accuracy an (ε, δ)-DP pair allows: (e^ε + δ)/(1 + e^ε) (δ = 0: e^ε/(1+e^ε)).

    The feasible (TPR, TNR) region is convex and symmetric, so the optimum is at TPR = TNR = a with
    a ≤ e^ε (1 − a) + δ.
    """
    return (math.exp(epsilon) + delta) / (1 + math.exp(epsilon))


def epsilon_lower_bound(count_tp: int, n_pos: int, count_fp: int, n_neg: int, delta: float, alpha: float) -> float:
    """Valid (1 − alpha) lower bound on ε from one threshold's counts (both DP inequalities, Bonferroni)."""
    tpr_lo, _ = clopper_pearson(count_tp, n_pos, alpha / 2, side="lower")
    _, fpr_hi = clopper_pearson(count_fp, n_neg, alpha / 2, side="upper")
    return float(max(_log_ratio(tpr_lo - delta, fpr_hi), _log_ratio(1 - fpr_hi - delta, 1 - tpr_lo), 0.0))


def _log_ratio(num, den) -> float:
    num, den = float(num), float(den)
    if num <= 0:
        return -math.inf
    if den <= 0:
        return math.inf
    return math.log(num / den)


# --------------------------------------------------------------------------------------------
# ε lower bound from all samples: order statistics as thresholds, a union bound over fixed ranks
# --------------------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class AttackResult:
    """The likelihood-ratio attack: its ROC, the ε lower bound of :class:`OrderStatisticAttack` (re-evaluable at
    any α) and, for display, the threshold whose bound is largest at the attack's α with its counts."""

    roc: Roc
    tpr_at_1e3: float
    tpr_at_1e2: float
    balanced_accuracy: float
    threshold: float
    count_tp: int
    count_fp: int
    n_pos_eval: int
    n_neg_eval: int
    delta: float
    alpha: float
    bound: OrderStatisticAttack

    @property
    def epsilon_lower_bound(self) -> float:
        return self.epsilon_lower_bound_at(self.alpha)

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        return self.bound.epsilon_lower_bound_at(alpha)


def likelihood_ratio_attack(scores_pos: np.ndarray, scores_neg: np.ndarray, delta: float, alpha: float) -> AttackResult:
    """Run the NP attack on all samples and bound ε (:func:`order_statistic_attack`).

    ``scores_pos`` are privacy losses of releases from D, ``scores_neg`` of releases from D'.  Scores whose
    loss is negative for D are handled by the second DP inequality, so one threshold family covers both
    directions of the attack.
    """
    scores_pos, scores_neg = np.asarray(scores_pos, float), np.asarray(scores_neg, float)
    bound = order_statistic_attack(scores_pos, scores_neg, delta)
    threshold = bound.best_threshold(alpha)
    roc = roc_curve(scores_pos, scores_neg)
    return AttackResult(
        roc=roc,
        tpr_at_1e3=tpr_at_fpr(scores_pos, scores_neg, 1e-3),
        tpr_at_1e2=tpr_at_fpr(scores_pos, scores_neg, 1e-2),
        balanced_accuracy=best_balanced_accuracy(roc),
        threshold=threshold,
        count_tp=int(np.sum(scores_pos >= threshold)),
        count_fp=int(np.sum(scores_neg >= threshold)),
        n_pos_eval=int(scores_pos.size),
        n_neg_eval=int(scores_neg.size),
        delta=delta,
        alpha=alpha,
        bound=bound,
    )
