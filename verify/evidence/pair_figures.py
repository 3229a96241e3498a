"""The figures of a user's pair (the pytest plugin's and ``pdp_audit.audit_pair``'s DP checks): its privacy profile
δ(ε) and the likelihood-ratio attack's ROC, drawn from the first losses of the assertion's own draws.

The DP checks of a pair stream ``trials`` losses per world and keep the first
:data:`pdp_audit.verify.evidence.pair_checks.VIEW_SAMPLES` of each (``heads``).  From those:

* **profile** (on the forward check) -- plain Monte Carlo δ̂(ε) = P̂_D[L > ε] − e^ε P̂_D'[L > ε] in both directions
  on a grid of ε around the claim, with Clopper–Pearson intervals at the check's level
  (:func:`pdp_audit.verify.estimators.tails.both_directions`); the exact curve where the user supplied none is unknown
  (NaN);
* **ROC** (on the reverse check, δ_{D'‖D}) -- the Neyman–Pearson attack testing D' against D, thresholding the
  reverse loss −L = log p_D'/p_D (:func:`pdp_audit.verify.estimators.attack.likelihood_ratio_attack`), against the
  region the
  claim allows: the roles of D and D' are the check's.

They are figures only: the verdict rests on every draw (and importance sampling where plain draws cannot resolve δ),
never on these.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from pdp_audit.reports.records import Roc, TailCurve, TailCurves
from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
from pdp_audit.verify.estimators.tails import both_directions

#: Grid points of the profile between ε = 0 and its top (the claimed ε is added).
GRID_POINTS = 17


def profile_figure(heads: dict[str, np.ndarray], epsilon: float, delta: float) -> Callable[[float], TailCurves]:
    """δ̂(ε) of both directions from ``heads`` (losses L = log p_D/p_D' under ``"D"`` and ``"D'"``), from ε = 0 to
    1.5 ε (to 1 for ε = 0)."""
    top = 1.5 * epsilon if epsilon > 0 else 1.0
    grid = np.unique(np.concatenate([np.linspace(0.0, top, GRID_POINTS), [float(epsilon)]]))

    def figure(alpha: float) -> TailCurves:
        tails = both_directions(heads["D"], heads["D'"], grid, alpha)
        curves = {}
        for name, est in tails.items():
            lo, hi = est.interval(alpha)
            curves[name] = TailCurve(estimate=est.estimate, lo=lo, hi=hi, exact=np.full(grid.size, np.nan))
        return TailCurves(epsilons=grid, curves=curves, level=1 - alpha, epsilon_claim=epsilon, delta_claim=delta)

    return figure


def roc_figure(heads: dict[str, np.ndarray], epsilon: float, delta: float) -> Callable[[float], Roc]:
    """The ROC of the likelihood-ratio attack of the reverse direction on ``heads`` (400 points, log-spaced in the
    false-positive rate): releases of D' are the positives, scored by their reverse loss −L."""

    def figure(alpha: float) -> Roc:
        attack = likelihood_ratio_attack(-heads["D'"], -heads["D"], delta, alpha)
        roc = attack.roc
        keep = np.unique(np.concatenate([np.searchsorted(roc.fpr, np.geomspace(1e-7, 1, 400)), [roc.fpr.size - 1]]))
        keep = keep[keep < roc.fpr.size]
        return Roc(
            fpr=roc.fpr[keep],
            tpr=roc.tpr[keep],
            epsilon_claim=epsilon,
            delta_claim=delta,
            epsilon_lower_bound=attack.epsilon_lower_bound_at(alpha),
            level=1 - alpha,
            curve_label="likelihood-ratio attack testing D' against D (empirical ROC)",
            xlabel="false-positive rate (output of D called D')",
            ylabel="true-positive rate (output of D' called D')",
        )

    return figure


def figure_note(heads: dict[str, np.ndarray], what: str) -> str:
    """The sentence a check carrying one of these figures adds to its note."""
    n = min(h.size for h in heads.values())
    return f"Figure: {what} from the first {n:,} draws per world (a figure only: the verdict rests on every draw)."
