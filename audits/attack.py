"""The likelihood-ratio (Neyman–Pearson) membership attack and ε lower bounds from its ROC.

Convention: the attacker sees one release o and must say which world produced it.
*Positive* = world D, *negative* = world D' = D±z.  The score is the exact privacy loss
L(o) = log p_D(o) − log p_D'(o); the attack says "D" when L ≥ t.  TPR(t) = P_D[L ≥ t],
FPR(t) = P_D'[L ≥ t].  By the Neyman–Pearson lemma no test of D vs D' has a better ROC.

(ε, δ)-DP of the pair implies, for every threshold ([Kairouz et al. 2015]; the two inequalities of
D1 applied to S = {L ≥ t} and its complement):

    TPR ≤ e^ε FPR + δ        and        1 − FPR ≤ e^ε (1 − TPR) + δ,

so every (FPR, TPR) gives ε ≥ max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR))).  A valid
lower bound replaces TPR by its Clopper–Pearson lower bound and FPR by its upper bound.  The
threshold is chosen on one half of the samples and the bound evaluated on the other half, so the
selection costs no multiplicity correction (cf. jax_privacy's canary-score auditor).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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


@dataclass(frozen=True)
class AttackResult:
    """The likelihood-ratio attack: its ROC, the held-out threshold's counts and the ε lower bound they give."""

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

    @property
    def epsilon_lower_bound(self) -> float:
        return self.epsilon_lower_bound_at(self.alpha)

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        return epsilon_lower_bound(self.count_tp, self.n_pos_eval, self.count_fp, self.n_neg_eval, self.delta, alpha)


def _candidate_thresholds(scores_neg: np.ndarray, count: int = 256) -> np.ndarray:
    """Thresholds at geometric FPR levels of the negatives, from 1/n up to 1/2, plus the median."""
    n = scores_neg.size
    levels = np.unique(np.geomspace(1.0 / n, 0.5, count))
    return np.unique(np.quantile(scores_neg, 1 - levels, method="higher"))


def likelihood_ratio_attack(scores_pos: np.ndarray, scores_neg: np.ndarray, delta: float, alpha: float) -> AttackResult:
    """Run the NP attack; pick the threshold on the first half, bound ε on the second half.

    ``scores_pos`` are privacy losses of releases from D, ``scores_neg`` of releases from D'.
    Scores whose loss is negative for D are handled by the second DP inequality, so one threshold
    family covers both directions of the attack.
    """
    half_pos, half_neg = scores_pos.size // 2, scores_neg.size // 2
    sel_pos, eval_pos = np.sort(scores_pos[:half_pos]), scores_pos[half_pos:]
    sel_neg, eval_neg = np.sort(scores_neg[:half_neg]), scores_neg[half_neg:]
    candidates = _candidate_thresholds(sel_neg)
    tp = sel_pos.size - np.searchsorted(sel_pos, candidates, side="left")
    fp = sel_neg.size - np.searchsorted(sel_neg, candidates, side="left")
    bounds = [epsilon_lower_bound(a, sel_pos.size, b, sel_neg.size, delta, alpha) for a, b in zip(tp, fp)]
    best = candidates[int(np.argmax(bounds))]
    roc = roc_curve(scores_pos, scores_neg)
    return AttackResult(
        roc=roc,
        tpr_at_1e3=tpr_at_fpr(scores_pos, scores_neg, 1e-3),
        tpr_at_1e2=tpr_at_fpr(scores_pos, scores_neg, 1e-2),
        balanced_accuracy=best_balanced_accuracy(roc),
        threshold=float(best),
        count_tp=int(np.sum(eval_pos >= best)),
        count_fp=int(np.sum(eval_neg >= best)),
        n_pos_eval=int(eval_pos.size),
        n_neg_eval=int(eval_neg.size),
        delta=delta,
        alpha=alpha,
    )
