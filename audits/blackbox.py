"""Black-box auditing: ε lower bounds for a mechanism that can only be sampled.

Without the exact privacy loss the Neyman–Pearson test is unknown, so a test statistic is *learned* on a
training split, in the spirit of DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021): a logistic regression of
"released on D" against "released on D'" on the standardised outputs and their squares (linear and quadratic
features: it recovers the optimal test of Gaussian releases whose means or variances differ; see
:class:`Standardiser` for why no magnitude of finite release can overflow them), fitted on the training split
alone.  The statistic is then frozen and applied to fresh releases of both worlds, and ε is bounded from
those scores exactly as for the white-box attack (:func:`pdp_audit.audits.attack.pooled_rank_attack`: Poissonised
samples, a joint exact test of both rates on ramps of pooled ranks fixed in advance, union bound), which assumes nothing
of the scores but that they are independent draws of a fixed statistic.  The bound is valid whatever the classifier
learned, because the scores it is computed from are independent of the training draws; a poor classifier only
makes it loose.

A black-box audit can refute a claim (the lower bound exceeds the claimed ε) but never certify one: no sample of
outputs proves that no better test exists.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from pdp_audit.audits.attack import PooledRankAttack, pooled_rank_attack
from pdp_audit.audits.engine import run_blocks
from pdp_audit.mechanisms.base import MalformedPair, returned_array

Sampler = Callable[[int, np.random.Generator], np.ndarray]


def checked_blackbox_releases(world: str, size: int, outputs) -> np.ndarray:
    """``outputs`` of ``sample(world, size, …)`` as a float array of shape (size, d) (a vector of ``size`` is one
    column), or :class:`pdp_audit.mechanisms.base.MalformedPair` naming the call: another shape, values that are not
    real numbers, or NaN or infinite releases (a learned test needs numbers to order)."""
    call = f"sample({world!r}, {size})"
    out = returned_array(call, outputs)
    if not np.issubdtype(out.dtype, np.number) or np.iscomplexobj(out):
        raise MalformedPair(f"{call} returned {out.dtype} values; expected real numbers")
    out = out.reshape(size, -1) if out.ndim == 1 and out.size == size else out
    if out.ndim != 2 or out.shape[0] != size or out.shape[1] < 1:
        raise MalformedPair(f"{call} returned shape {out.shape}; expected ({size}, d) with d >= 1")
    out = out.astype(float)
    bad = int(np.count_nonzero(~np.isfinite(out).all(axis=1)))
    if bad:
        raise MalformedPair(
            f"{call} returned {bad:,} of {size:,} releases with NaN or infinite values; a black-box audit needs "
            "finite releases"
        )
    return out


class _Releases:
    """Block work: ``size`` releases of ``world``, shape (size, d) (:func:`checked_blackbox_releases`), counted on
    ``bar`` (a user's sampler may take minutes: the four passes over it show where the audit is)."""

    def __init__(self, sample: Sampler, world: str, bar=None, seen: dict | None = None):
        self.sample, self.world, self.bar = sample, world, bar
        self.seen = {} if seen is None else seen  # the first call's dimension, shared by the attack's four passes

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        releases = checked_blackbox_releases(self.world, size, self.sample(size, rng))
        call = f"sample({self.world!r}, {size})"
        first = self.seen.setdefault("dimension", (releases.shape[1], call))
        if releases.shape[1] != first[0]:
            raise MalformedPair(
                f"{call} released {releases.shape[1]} columns, {first[1]} released {first[0]}: a mechanism's "
                "releases have one dimension"
            )
        if self.bar is not None:
            self.bar.update(size)
        return releases


def _progress_bar(trials: int, progress: bool):
    """A bar of the 4 × ``trials`` releases the attack draws, on a terminal's stderr when ``progress``."""
    if not (progress and sys.stderr.isatty()):
        return contextlib.nullcontext(None)
    from tqdm import tqdm

    return tqdm(
        total=4 * trials, desc="blackbox, releases drawn", unit="release", unit_scale=True, file=sys.stderr, leave=False
    )


#: Standardised releases are clipped to ±Z_MAX (never on the training split, where |z| ≤ √(n − 1) ≤ 1.5e4).
Z_MAX = 2.0**20


@dataclass(frozen=True)
class Standardiser:
    """z = clip((o / p − c) / s, −Z_MAX, Z_MAX) per coordinate, fitted on the training releases.

    p = 2^e is the power of two with max |o| < p on the training split (o/p is computed as ldexp(o, −e): exact, no
    overflow even where p itself is not a float64, e = 1024 for |o| ≥ 2^1023, and |o/p| < 1),
    c and s the mean and standard deviation of o/p there (s = 1 for a constant coordinate).  No sum or square is
    ever taken of a number above 1 in magnitude before standardising, so finite releases of any magnitude, 1e300 or
    1e-300, give finite features z and z² (and z² ≤ 2^40).  On the training split |z| ≤ √(n − 1) (Samuelson's
    inequality: no value lies more than √(n − 1) standard deviations from the mean of n), so the clip acts only on
    fresh releases beyond the training range, where it keeps the statistic finite.  The statistic learned from
    [z, z²] is the one learned from [o, o²] (each is an affine function of the other's span), and like it depends on
    the training split only: the scores of the test split stay independent draws of a fixed statistic.
    """

    exponent: np.ndarray  # e per coordinate: max |o| < 2^e on the training split
    centre: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, releases: np.ndarray) -> Standardiser:
        largest = np.max(np.abs(releases), axis=0)
        _, exponent = np.frexp(largest)  # largest = f·2^e with f in [0.5, 1): |o| < 2^e (e = 0 for largest = 0)
        unit = cls._unit(releases, exponent)
        centre = unit.mean(axis=0)
        scale = unit.std(axis=0)
        return cls(exponent, centre, np.where(scale > 0, scale, 1.0))

    @staticmethod
    def _unit(releases: np.ndarray, exponent: np.ndarray) -> np.ndarray:
        """o · 2^−e, by ldexp: exact, and never forming 2^e itself, which overflows for e = 1024 (|o| ≥ 2^1023,
        e.g. 1e308: the power of two was inf, every release 0, the bound 0)."""
        return np.ldexp(releases, -exponent)

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            z = (self._unit(releases, self.exponent) - self.centre) / self.scale
        return np.clip(z, -Z_MAX, Z_MAX)


def _features(standardised: np.ndarray) -> np.ndarray:
    return np.hstack([standardised, standardised**2])


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


#: Peak memory of the attack per release per world, in bytes, for d-dimensional releases: a + b·d (1.5 × the
#: 120 + 110·d measured with `/usr/bin/time` at 2e5 and 1e6 releases, d = 1 and 10: releases, features, scores).
MEMORY_PER_TRIAL = (180.0, 165.0)


def attack_memory(trials: int, dim: int) -> float:
    """The attack's peak memory in bytes for ``trials`` releases per world of dimension ``dim``."""
    fixed, per_dimension = MEMORY_PER_TRIAL
    return trials * (fixed + per_dimension * dim)


def blackbox_attack(
    sample_d: Sampler, sample_dprime: Sampler, trials: int, delta: float, seed: int, progress: bool = False
) -> BlackBoxAttack:
    """Learn a statistic on ``trials`` releases per world, bound ε on ``trials`` fresh ones (seeded streams).

    Releases that are not a (size, d) array of finite numbers raise :class:`pdp_audit.mechanisms.base.MalformedPair`
    (:func:`checked_blackbox_releases`), as do worlds of different dimensions.  ``progress``: a bar of the releases
    drawn on stderr, where it is a terminal."""
    seen: dict = {}
    with _progress_bar(trials, progress) as bar:
        train_d, train_dp, test_d, test_dp = (
            run_blocks(_Releases(sampler, world, bar, seen), trials, seed, f"blackbox/{split}/{world}")
            for split in ("train", "test")
            for sampler, world in ((sample_d, "D"), (sample_dprime, "D'"))
        )
        return _attack(train_d, train_dp, test_d, test_dp, delta, seed)


def _attack(train_d, train_dp, test_d, test_dp, delta: float, seed: int) -> BlackBoxAttack:
    """The statistic learned on the training releases, and the ε lower bound from its scores on the test ones."""
    train = np.vstack([train_d, train_dp])
    standardise = Standardiser.fit(train)
    X = _features(standardise(train))
    y = np.concatenate([np.ones(len(train_d)), np.zeros(len(train_dp))])
    scaler = StandardScaler().fit(X)
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(X), y)
    scores_d = model.decision_function(scaler.transform(_features(standardise(test_d))))
    scores_dp = model.decision_function(scaler.transform(_features(standardise(test_dp))))
    return BlackBoxAttack(
        pooled_rank_attack(scores_d, scores_dp, delta, seed),
        len(train_d),
        len(test_d),
        int(train_d.shape[1]),
        float(model.score(scaler.transform(X), y)),
    )
