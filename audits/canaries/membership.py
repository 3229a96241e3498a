"""Membership statistics of canary scores: TPR at a fixed FPR with exact intervals, AUROC, a thinned ROC.

Convention (as jax-privacy's ``CanaryScoreAuditor`` and TF-Privacy's membership-inference reports): a higher
score is more member-like; the attack says "in" when score > t.  *Positive* = a canary included in training
("in"), *negative* = one held out ("out").  The ε lower bound itself is :func:`pdp_audit.verify.estimators.attack.
pooled_rank_attack` on (in, out) = (D, D'): in-canary scores are draws of the score's law when the canary is in,
out-canary scores when it is out.

TPR at FPR f.  With m out-scores, k = ⌊f·m⌋ and t the (k+1)-th largest out-score, the rule "score > t" has at
most k out-scores above it (empirical FPR ≤ f).  t depends on the out-scores alone, so given t the number of
in-scores above it is Binomial(n, TPR(t)) (independent canaries): its Clopper–Pearson interval is exact for
TPR(t), the true rate of the rule chosen.  No rule is reported when k = 0 (fewer than 1/f out-scores: that FPR
is not resolved).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators.stats import clopper_pearson

#: The FPRs at which the TPR is reported, and the confidence of its two-sided interval.
FPR_LEVELS = (1e-3, 1e-2, 1e-1)
TPR_CONFIDENCE = 0.95


@dataclass(frozen=True)
class TprAtFpr:
    """The rule "score > threshold" at nominal FPR ``fpr``: its counts and the exact interval of its TPR."""

    fpr: float
    threshold: float
    false_positives: int
    n_out: int
    true_positives: int
    n_in: int
    tpr_lo: float
    tpr_hi: float
    confidence: float

    @property
    def tpr(self) -> float:
        return self.true_positives / self.n_in

    @property
    def empirical_fpr(self) -> float:
        return self.false_positives / self.n_out


def tpr_at_fpr(
    in_scores, out_scores, fpr: float, confidence: float = TPR_CONFIDENCE, presorted: bool = False
) -> TprAtFpr | None:
    """The TPR of the rule at nominal FPR ``fpr`` (module docstring), or None when ⌊fpr·m⌋ = 0.  ``presorted``:
    both arrays are sorted in increasing order already (the counts are then two binary searches)."""
    pos, neg = _sorted(in_scores, presorted), _sorted(out_scores, presorted)
    k = int(math.floor(fpr * neg.size + 1e-9))
    if k < 1 or k >= neg.size:
        return None
    threshold = float(neg[neg.size - 1 - k])  # the (k+1)-th largest out-score
    tp = pos.size - int(np.searchsorted(pos, threshold, "right"))
    lo, hi = clopper_pearson(tp, pos.size, 1 - confidence)
    return TprAtFpr(
        fpr,
        threshold,
        neg.size - int(np.searchsorted(neg, threshold, "right")),
        neg.size,
        tp,
        pos.size,
        float(lo),
        float(hi),
        confidence,
    )


def auroc(in_scores, out_scores, presorted: bool = False) -> float:
    """The area under the empirical ROC (ties count one half), computed as scikit-learn's ``roc_auc_score`` does
    (:func:`auroc_of_counts`)."""
    return auroc_of_counts(*roc_counts(_sorted(in_scores, presorted), _sorted(out_scores, presorted)))


def auroc_of_counts(in_above: np.ndarray, out_above: np.ndarray) -> float:
    """The AUROC from :func:`roc_counts` as scikit-learn's ``roc_auc_score`` computes it (its ``roc_curve`` with
    ``drop_intermediate``: the corners of the ROC, then scipy's trapezoidal rule), the same bits, without its own
    sort and label checks."""
    from scipy.integrate import trapezoid

    tps, fps = in_above.astype(float), out_above.astype(float)
    if fps.size > 2:  # drop the points collinear with their neighbours (they add no area)
        corner = (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0)
        keep = np.flatnonzero(np.concatenate([[True], corner, [True]]))
        tps, fps = tps[keep], fps[keep]
    tps, fps = np.concatenate([[0.0], tps]), np.concatenate([[0.0], fps])
    return float(trapezoid(tps / tps[-1], fps / fps[-1]))


def roc_counts(sorted_in: np.ndarray, sorted_out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(in-scores ≥ t, out-scores ≥ t) at every distinct score t, highest t first, from the two score arrays
    sorted in increasing order (a stable sort of two sorted runs is one linear merge)."""
    pooled = np.concatenate([sorted_in, sorted_out])
    order = np.argsort(pooled, kind="stable")
    ascending, is_in = pooled[order], order < sorted_in.size
    start = np.flatnonzero(np.concatenate([[True], ascending[1:] != ascending[:-1]]))  # first of each distinct value
    in_below = np.concatenate([[0], np.cumsum(is_in)])[start]
    return (sorted_in.size - in_below)[::-1], (sorted_out.size - (start - in_below))[::-1]


def thinned_roc(in_scores, out_scores, points: int = 400, presorted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of "score ≥ t" at every distinct score, kept at about ``points`` geometric FPRs (for a plot)."""
    pos, neg = _sorted(in_scores, presorted), _sorted(out_scores, presorted)
    return thinned_roc_of_counts(*roc_counts(pos, neg), pos.size, neg.size, points)


def thinned_roc_of_counts(
    in_above: np.ndarray, out_above: np.ndarray, n_in: int, n_out: int, points: int = 400
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`thinned_roc` from :func:`roc_counts` of ``n_in`` in- and ``n_out`` out-scores."""
    tpr, fpr = np.concatenate([[0.0], in_above / n_in]), np.concatenate([[0.0], out_above / n_out])
    keep = np.unique(np.concatenate([np.searchsorted(fpr, np.geomspace(1e-7, 1, points)), [fpr.size - 1]]))
    keep = keep[keep < fpr.size]
    return fpr[keep], tpr[keep]


def _sorted(scores, presorted: bool) -> np.ndarray:
    return np.asarray(scores, float) if presorted else np.sort(np.asarray(scores, float))
