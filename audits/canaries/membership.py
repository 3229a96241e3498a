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


def tpr_at_fpr(in_scores, out_scores, fpr: float, confidence: float = TPR_CONFIDENCE) -> TprAtFpr | None:
    """The TPR of the rule at nominal FPR ``fpr`` (module docstring), or None when ⌊fpr·m⌋ = 0."""
    pos, neg = np.asarray(in_scores, float), np.sort(np.asarray(out_scores, float))[::-1]
    k = int(math.floor(fpr * neg.size + 1e-9))
    if k < 1 or k >= neg.size:
        return None
    threshold = float(neg[k])
    tp = int(np.count_nonzero(pos > threshold))
    lo, hi = clopper_pearson(tp, pos.size, 1 - confidence)
    return TprAtFpr(
        fpr,
        threshold,
        int(np.count_nonzero(neg > threshold)),
        neg.size,
        tp,
        pos.size,
        float(lo),
        float(hi),
        confidence,
    )


def auroc(in_scores, out_scores) -> float:
    """The area under the empirical ROC (ties count one half): scikit-learn's ``roc_auc_score``."""
    from sklearn.metrics import roc_auc_score

    pos, neg = np.asarray(in_scores, float), np.asarray(out_scores, float)
    labels = np.concatenate([np.ones(pos.size), np.zeros(neg.size)])
    return float(roc_auc_score(labels, np.concatenate([pos, neg])))


def thinned_roc(in_scores, out_scores, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of "score ≥ t" at every distinct score, kept at about ``points`` geometric FPRs (for a plot)."""
    from pdp_audit.verify.estimators.attack import roc_curve

    roc = roc_curve(np.asarray(in_scores, float), np.asarray(out_scores, float))
    keep = np.unique(np.concatenate([np.searchsorted(roc.fpr, np.geomspace(1e-7, 1, points)), [roc.fpr.size - 1]]))
    keep = keep[keep < roc.fpr.size]
    return roc.fpr[keep], roc.tpr[keep]
