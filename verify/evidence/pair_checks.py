"""Checks that a pair is what it says before its claims are trusted (a user's pair above all).

* ``loss-consistency`` -- the loss is the privacy loss of the sampler: the change-of-measure identities on
  bins of L with bounded summands (:mod:`audits.consistency`).  A loss written for another σ, another neighbour
  or swapped worlds fails here, whatever its tails claim.
* ``noise-view`` -- where a pair exposes the Gaussian noise-level view that importance sampling relies on
  (:func:`audits.rare.noise_view`), releases through the view and through ``sample`` must have the same
  privacy-loss law: two-sample Kolmogorov–Smirnov on the losses of both.

Malformed releases or losses (shape, NaN, impossible infinities) never reach a check: sampling raises
:class:`mechanisms.base.MalformedPair` (:class:`audits.engine.PrivacyLossSampler`).  Both checks are statistical:
their p-values join the family of the claim they guard (Holm), so the family's false-alarm rate holds.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from audits import rare
from audits.consistency import loss_consistency
from audits.engine import run_blocks
from verify.checks import CheckSpec, Evidence

#: Releases per world drawn through the noise view (and compared with as many from ``sample``).
VIEW_SAMPLES = 50_000

LOSS_CONSISTENCY = CheckSpec(
    "loss-consistency",
    "The privacy loss is the sampler's",
    "privacy_loss(o) = log p_D(o) − log p_D'(o) for the releases sample() draws: the change of measure holds "
    "on every bin A of L",
    "P_D'(L ∈ A) = E_D[e^{−L}1{L ∈ A}] (A ⊂ (0, ∞)), P_D(L ∈ A) = E_D'[e^{L}1{L ∈ A}] (A ⊂ (−∞, 0])",
    "definition of the privacy loss (Radon–Nikodym derivative); audits.consistency",
)
NOISE_VIEW = CheckSpec(
    "noise-view",
    "The noise view releases what sample() releases",
    "release_from_noise(world, σ ⊙ w), w ~ N(0, I), has the law of sample(world): the importance sampler "
    "draws from the view, the claim is about sample()",
    "KS two-sample statistic between privacy losses via the view and via sample(), both worlds",
    "audits.rare (noise-level view)",
)


def loss_consistency_check(loss_d: np.ndarray, loss_dp: np.ndarray) -> Evidence:
    """``loss-consistency`` from draws of the loss under D and under D' (see the module notes)."""
    test = loss_consistency(loss_d, loss_dp)
    worst = test.worst
    ratio = 1.0
    if worst is not None and worst.frequency > 0:
        ratio = worst.weighted.estimate / worst.frequency
    return Evidence(
        spec=LOSS_CONSISTENCY,
        estimate=float(ratio),
        pvalue=test.pvalue,
        supports=lambda ci, alpha: True,
        note=(
            f"Least consistent of {len(test.bins)} bins: {test.describe()}. The estimate is that ratio (1 when the "
            "loss is the sampler's). A fail means privacy_loss does not match sample(): every other verdict on "
            "this pair is then void."
        ),
        details={"bins": len(test.bins), "worst_ratio": float(ratio), "draws_per_world": int(np.size(loss_d))},
    )


class _ViewLoss:
    """Block work: privacy losses of releases drawn through the noise view on ``world``."""

    def __init__(self, view, world: str):
        self.view, self.world = view, world

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        w = rng.standard_normal((size, int(self.view.noise_dim)))
        return rare.whitened_loss(self.view, self.world, 1.0, w)


def noise_view_check(pair, losses: dict[str, np.ndarray], seed: int) -> Evidence | None:
    """``noise-view`` for a pair with a noise view (None without one); ``losses``: draws of the loss via
    ``sample()`` per world.  The p-value is Bonferroni's over the two worlds."""
    if not rare.rare_capable(pair):
        return None
    view = rare.noise_view(pair)
    results = {}
    for world, sampled in losses.items():
        n = min(VIEW_SAMPLES, int(np.size(sampled)))
        via_view = run_blocks(_ViewLoss(view, world), n, seed, f"noise-view/{world}")
        results[world] = stats.ks_2samp(np.asarray(sampled)[:n], via_view)
    worst_world = max(results, key=lambda w: results[w].statistic)
    pvalue = min(1.0, len(results) * min(r.pvalue for r in results.values()))
    return Evidence(
        spec=NOISE_VIEW,
        estimate=float(results[worst_world].statistic),
        pvalue=float(pvalue),
        supports=lambda ci, alpha: True,
        note=(
            f"Largest KS distance {results[worst_world].statistic:.4g} (world {worst_world}, "
            f"{min(VIEW_SAMPLES, int(np.size(losses[worst_world]))):,} releases each way). A fail means the "
            "importance sampler would audit another mechanism than sample()."
        ),
        details={w: float(r.statistic) for w, r in results.items()},
    )
