"""Privacy-loss tails: Monte Carlo hockey-stick divergences with exact binomial intervals.

For a pair (P, Q) of output laws and the privacy loss L = log p(o) − log q(o), the smallest δ for
which P(S) ≤ e^ε Q(S) + δ holds for every event S is the hockey-stick divergence

    δ_{P‖Q}(ε) = P_P[L > ε] − e^ε P_Q[L > ε]                                           (*)

(the optimal S is {L > ε}; [RW] Lemma 27 is the one-term bound P_P[L > ε] ≤ δ ⇒ (ε, δ)).  We
estimate the two probabilities in (*) by their empirical frequencies from n_P draws under P and n_Q
draws under Q, and form a simultaneous interval at confidence 1 − α from two Clopper–Pearson
intervals at 1 − α/2 each:

    [ lo_P − e^ε hi_Q ,  hi_P − e^ε lo_Q ].

Both directions of a neighbouring pair are audited: δ_{D‖D'} uses L, δ_{D'‖D} uses −L.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.base import LOSS_RESOLUTION, at_loss_resolution
from pdp_audit.verify.estimators.stats import clopper_pearson


def hockey_integrand(losses: np.ndarray, epsilon: float) -> np.ndarray:
    """(1 − e^{ε − L})₊ ∈ [0, 1] of each loss L (1 at L = +∞, 0 at L = −∞): its mean under P is δ_{P‖Q}(ε).

    Computed as −expm1(min(ε − L, 0)), exact near L = ε where 1 − e^{ε−L} would lose its digits to cancellation.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return np.maximum(0.0, -np.expm1(np.minimum(float(epsilon) - np.asarray(losses, float), 0.0)))


def exceedances(losses: np.ndarray, thresholds: np.ndarray, resolution: float = LOSS_RESOLUTION) -> np.ndarray:
    """#{L > t} for each threshold t (one sort, then binary search), t rounded as the sampled losses are
    (:func:`pdp_audit.mechanisms.base.at_loss_resolution` at ``resolution``, that of the losses): an atom of the loss
    at L = ε then lies whole on the side L ≤ ε, where it belongs, rather than wherever a loss's last bits put it."""
    ordered = np.sort(np.asarray(losses, dtype=float))
    return ordered.size - np.searchsorted(ordered, at_loss_resolution(thresholds, resolution), side="right")


def _scaled(epsilons, probabilities) -> np.ndarray:
    """e^ε · q, where a zero q gives 0 even when e^ε overflows (ε > 709 on a degenerate pair's grid)."""
    q = np.asarray(probabilities, float)
    with np.errstate(over="ignore"):
        scaled = np.exp(epsilons) * np.where(q > 0, q, 1.0)
    return np.where(q > 0, scaled, 0.0)


@dataclass(frozen=True)
class TailEstimate:
    """δ̂_{P‖Q}(ε) on a grid, with a simultaneous-per-point interval at confidence ``1 − alpha``."""

    epsilons: np.ndarray
    count_p: np.ndarray  # #{L > ε} among n_p draws under P
    count_q: np.ndarray  # #{L > ε} among n_q draws under Q
    n_p: int
    n_q: int
    alpha: float

    @property
    def estimate(self) -> np.ndarray:
        return self.count_p / self.n_p - _scaled(self.epsilons, self.count_q) / self.n_q

    def interval(self, alpha: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on δ_{P‖Q}(ε) at each grid point, confidence 1 − alpha (default: the estimate's)."""
        alpha = self.alpha if alpha is None else alpha
        lo_p, hi_p = clopper_pearson(self.count_p, self.n_p, alpha / 2)
        lo_q, hi_q = clopper_pearson(self.count_q, self.n_q, alpha / 2)
        # δ is a probability: a bound outside [0, 1] says nothing more than the end of [0, 1] (and read as a δ < 0)
        return _unit(lo_p - _scaled(self.epsilons, hi_q)), _unit(hi_p - _scaled(self.epsilons, lo_q))

    def lower_bound(self, index: int, alpha: float) -> float:
        """One-sided (1 − alpha) lower bound on δ(ε_index): lo_P − e^ε hi_Q, each at 1 − alpha/2."""
        lo_p, _ = clopper_pearson(self.count_p[index], self.n_p, alpha / 2, side="lower")
        _, hi_q = clopper_pearson(self.count_q[index], self.n_q, alpha / 2, side="upper")
        return float(_unit(lo_p - _scaled(self.epsilons[index], hi_q)))

    def upper_bound(self, index: int, alpha: float) -> float:
        """One-sided (1 − alpha) upper bound on δ(ε_index): hi_P − e^ε lo_Q, each at 1 − alpha/2."""
        _, hi_p = clopper_pearson(self.count_p[index], self.n_p, alpha / 2, side="upper")
        lo_q, _ = clopper_pearson(self.count_q[index], self.n_q, alpha / 2, side="lower")
        return float(_unit(hi_p - _scaled(self.epsilons[index], lo_q)))


def _unit(bound):
    """A bound on δ clipped to [0, 1], where δ lies: the same statement, never a negative δ on a report."""
    return np.clip(bound, 0.0, 1.0)


def hockey_stick(
    loss_under_p: np.ndarray, loss_under_q: np.ndarray, epsilons: np.ndarray, alpha: float
) -> TailEstimate:
    """Estimate δ_{P‖Q}(ε) from samples of L = log p/q drawn under P and under Q (see (*))."""
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    return TailEstimate(
        epsilons=epsilons,
        count_p=exceedances(loss_under_p, epsilons),
        count_q=exceedances(loss_under_q, epsilons),
        n_p=int(np.size(loss_under_p)),
        n_q=int(np.size(loss_under_q)),
        alpha=alpha,
    )


class StreamedTails:
    """:func:`both_directions` on draws of L fed a block at a time (exact integer counts: the same estimates
    whatever the blocks; memory of a block).  ``resolution``: the one the losses were rounded at (the thresholds
    are rounded alike: :func:`exceedances`)."""

    def __init__(self, epsilons: np.ndarray, alpha: float, resolution: float = LOSS_RESOLUTION):
        self.epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
        self.alpha = alpha
        self.resolution = resolution
        zeros = np.zeros(self.epsilons.size, dtype=np.int64)
        self.above = {"D": zeros.copy(), "D'": zeros.copy()}  # #{L > ε}
        self.below = {"D": zeros.copy(), "D'": zeros.copy()}  # #{−L > ε}
        self.n = {"D": 0, "D'": 0}

    def add(self, world: str, losses: np.ndarray) -> None:
        losses = np.asarray(losses, dtype=float)
        self.above[world] += exceedances(losses, self.epsilons, self.resolution)
        self.below[world] += exceedances(-losses, self.epsilons, self.resolution)
        self.n[world] += losses.size

    def result(self) -> dict[str, TailEstimate]:
        """δ_{D‖D'} (L under D against L under D') and δ_{D'‖D} (−L under D' against −L under D)."""
        e, a = self.epsilons, self.alpha
        return {
            "D||D'": TailEstimate(e, self.above["D"], self.above["D'"], self.n["D"], self.n["D'"], a),
            "D'||D": TailEstimate(e, self.below["D'"], self.below["D"], self.n["D'"], self.n["D"], a),
        }


def both_directions(
    loss_d: np.ndarray, loss_dprime: np.ndarray, epsilons: np.ndarray, alpha: float
) -> dict[str, TailEstimate]:
    """δ_{D‖D'} and δ_{D'‖D} from L = log p_D/p_D' sampled under D and under D'."""
    tails = StreamedTails(epsilons, alpha)
    tails.add("D", loss_d)
    tails.add("D'", loss_dprime)
    return tails.result()
