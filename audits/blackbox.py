"""Black-box auditing: ε lower bounds for a mechanism that can only be sampled.

Without the exact privacy loss the Neyman–Pearson test is unknown, so a test statistic is *learned* on a
training split, in the spirit of DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021): a logistic regression of
"released on D" against "released on D'" on the outputs and their squares (linear and quadratic features:
it recovers the optimal test of Gaussian releases whose means or variances differ), standardised on the
training split.  The statistic is then frozen and applied to fresh releases of both worlds, and ε is bounded from
those scores exactly as for the white-box attack (:func:`pdp_audit.audits.attack.pooled_rank_attack`: Poissonised
samples, a joint exact test of both rates on ramps of pooled ranks fixed in advance, union bound), which assumes nothing
of the scores but that they are independent draws of a fixed statistic.  The bound is valid whatever the classifier
learned, because the scores it is computed from are independent of the training draws; a poor classifier only
makes it loose.

A black-box audit can refute a claim (the lower bound exceeds the claimed ε) but never certify one: no sample of
outputs proves that no better test exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from pdp_audit.audits.attack import PooledRankAttack, pooled_rank_attack
from pdp_audit.audits.engine import run_blocks

Sampler = Callable[[int, np.random.Generator], np.ndarray]


class _Releases:
    """Block work: ``size`` releases of one world as a float array of shape (size, d)."""

    def __init__(self, sample: Sampler):
        self.sample = sample

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        out = np.asarray(self.sample(size, rng), dtype=float)
        out = out.reshape(size, -1) if out.ndim == 1 and out.size == size else out
        if out.ndim != 2 or out.shape[0] != size or not np.all(np.isfinite(out)):
            raise ValueError(f"a sampler must return {size} finite releases as an array of shape ({size}, d)")
        return out


def _features(outputs: np.ndarray) -> np.ndarray:
    return np.hstack([outputs, outputs**2])


@dataclass(frozen=True)
class BlackBoxAttack:
    """The learned test and the ε lower bound of its scores on fresh releases."""

    attack: PooledRankAttack
    train_per_world: int
    test_per_world: int
    dim: int
    train_accuracy: float

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        return self.attack.epsilon_lower_bound_at(alpha)


def blackbox_attack(
    sample_d: Sampler, sample_dprime: Sampler, trials: int, delta: float, seed: int, stream: str = "blackbox"
) -> BlackBoxAttack:
    """Learn a statistic on ``trials`` releases per world, bound ε on ``trials`` fresh ones (seeded streams)."""
    train_d = run_blocks(_Releases(sample_d), trials, seed, f"{stream}/train/D")
    train_dp = run_blocks(_Releases(sample_dprime), trials, seed, f"{stream}/train/D'")
    if train_d.shape[1] != train_dp.shape[1]:
        raise ValueError(f"the two worlds release different dimensions: {train_d.shape[1]} and {train_dp.shape[1]}")
    X = _features(np.vstack([train_d, train_dp]))
    y = np.concatenate([np.ones(len(train_d)), np.zeros(len(train_dp))])
    scaler = StandardScaler().fit(X)
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(X), y)
    test_d = run_blocks(_Releases(sample_d), trials, seed, f"{stream}/test/D")
    test_dp = run_blocks(_Releases(sample_dprime), trials, seed, f"{stream}/test/D'")
    scores_d = model.decision_function(scaler.transform(_features(test_d)))
    scores_dp = model.decision_function(scaler.transform(_features(test_dp)))
    return BlackBoxAttack(
        pooled_rank_attack(scores_d, scores_dp, delta, seed),
        trials,
        trials,
        int(train_d.shape[1]),
        float(model.score(scaler.transform(X), y)),
    )
