"""The witness of a black-box attack: the learned test as data, re-checkable on fresh releases.

A black-box bound says "this test separates D from D' this well"; the witness is that test, written out so that a
reviewer can re-run it without our training draws: the pair, the logistic statistic as numbers (the standardiser's
power-of-two exponents, centres and scales per column, the point masses and their fills, the feature scaler's means
and scales, the coefficients and intercept: :class:`pdp_audit.audits.blackbox.LearnedStatistic` exactly) and the
threshold of the best ramp.  :func:`statistic_from_data` rebuilds the identical statistic (JSON keeps every float64
exactly: Python writes the shortest repr that reads back to the same number), and :func:`recheck` scores fresh
releases with it through the same seeded streams as the attack's bounding pass: the same seed gives the same bound
bit for bit, another seed an independent re-check.  The re-check's bound is valid for the same reason the attack's
is: the statistic is fixed before the fresh releases are drawn.

Gradient-boosted trees (``--statistic select`` may keep them) are not written as data here: their witness says so
and cannot be re-checked.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from pdp_audit.audits.attack import PooledRankAttack, pooled_rank_attack
from pdp_audit.audits.blackbox import Atoms, LearnedStatistic, Sampler, Standardiser, _Scores
from pdp_audit.audits.engine import iter_blocks
from pdp_audit.mechanisms.validation import InputError

#: What a logistic witness's features are, in words (its ``features`` field).
FEATURES = (
    "per column j of a release o: z_j = clip((o_j·2^-exponent_j - centre_j) / scale_j, -2^20, 2^20), computed after "
    "each atom of the column is replaced by its fill; features [z_1..z_d, z_1^2..z_d^2, then one indicator per atom]; "
    "score = sum_k coefficients_k (feature_k - feature_mean_k) / feature_scale_k + intercept"
)


def statistic_to_data(statistic: Any) -> dict:
    """The statistic as JSON-ready data (logistic), or ``{"kind": "trees", "recheckable": False}``."""
    if not isinstance(statistic, LearnedStatistic):
        return {"kind": "trees", "recheckable": False}
    s, atoms = statistic.standardise, statistic.atoms
    return {
        "kind": "logistic",
        "recheckable": True,
        "features": FEATURES,
        "dimension": int(statistic.first_call[0]),
        "exponent": [int(v) for v in s.exponent],
        "centre": [float(v) for v in s.centre],
        "scale": [float(v) for v in s.scale],
        "atoms": []
        if atoms is None
        else [
            {"column": int(j), "values": [float(v) for v in values], "fill": float(fill)}
            for j, values, fill in zip(atoms.columns, atoms.values, atoms.fill)
        ],
        "feature_mean": [float(v) for v in statistic.scaler.mean_],
        "feature_scale": [float(v) for v in statistic.scaler.scale_],
        "coefficients": [float(v) for v in statistic.model.coef_[0]],
        "intercept": float(statistic.model.intercept_[0]),
    }


def statistic_from_data(data: dict) -> LearnedStatistic:
    """The :class:`LearnedStatistic` of :func:`statistic_to_data`'s data (InputError for a witness that is not a
    logistic one or whose arrays do not fit together)."""
    if data.get("kind") != "logistic":
        raise InputError(f"witness: a {data.get('kind')!r} statistic is not stored as data and cannot be re-checked")
    if data.get("features") not in (FEATURES, list(FEATURES)):  # the re-check computes FEATURES, nothing else
        raise InputError("witness: the statistic's 'features' are not the ones this version computes (edited?)")
    _check_numbers(data)
    try:
        dim = int(data["dimension"])
        standardise = Standardiser(
            np.asarray(data["exponent"], dtype=int), np.asarray(data["centre"], float), np.asarray(data["scale"], float)
        )
        rows = data["atoms"]
        atoms = (
            Atoms(
                tuple(int(a["column"]) for a in rows),
                tuple(np.asarray(a["values"], float) for a in rows),
                tuple(float(a["fill"]) for a in rows),
            )
            if rows
            else None
        )
        mean, scale = np.asarray(data["feature_mean"], float), np.asarray(data["feature_scale"], float)
        coef = np.asarray(data["coefficients"], float)
        intercept = float(data["intercept"])
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise InputError(f"witness: the statistic is malformed ({type(err).__name__}: {err})") from None
    width = 2 * dim + sum(len(a) for a in (atoms.values if atoms else ()))
    if not (standardise.exponent.size == standardise.centre.size == standardise.scale.size == dim) or not (
        mean.size == scale.size == coef.size == width
    ):
        raise InputError(f"witness: the statistic's arrays do not fit {dim}-dimensional releases")
    scaler = StandardScaler()
    scaler.mean_, scaler.scale_, scaler.var_ = mean, scale, scale**2
    scaler.n_features_in_, scaler.n_samples_seen_ = width, 2
    model = LogisticRegression()
    model.coef_, model.intercept_, model.classes_ = coef[None, :], np.array([intercept]), np.array([0.0, 1.0])
    model.n_features_in_ = width
    return LearnedStatistic(standardise, scaler, model, (dim, "the witness's releases"), atoms)


#: The largest |exponent| of the standardising power of two: a double's exponents lie in [-1074, 1023].
MAX_EXPONENT = 1100


def _check_numbers(data: dict) -> None:
    """Every number of a stored statistic must be one :func:`statistic_to_data` can write: finite, not a boolean,
    the exponents integers within a double's range and the scales (which divide) > 0.  A damaged or edited value
    would otherwise reach scikit-learn as an infinity (an internal error) or give every release the same score (a
    re-check that cannot refute, reported as a bound)."""

    def numbers(key: str) -> list:
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            raise InputError(f"witness: the statistic's {key!r} must hold finite numbers")
        return values

    for key in ("centre", "coefficients", "feature_mean", "intercept"):
        numbers(key)
    for key in ("scale", "feature_scale"):
        if not all(v > 0 for v in numbers(key)):
            raise InputError(f"witness: the statistic's {key!r} must be > 0 (a scale divides)")
    if not all(isinstance(v, int) and abs(v) <= MAX_EXPONENT for v in numbers("exponent")):
        raise InputError(f"witness: the statistic's 'exponent' must hold integers in [-{MAX_EXPONENT}, {MAX_EXPONENT}]")
    if not (isinstance(data.get("dimension"), int) and not isinstance(data.get("dimension"), bool)):
        raise InputError(f"witness: the statistic's 'dimension' must be an integer, got {data.get('dimension')!r}")


def fresh_scores_bound(worlds: tuple, statistic: Any, trials: int, delta: float, seed: int, executor=None):
    """The bounding pass of :func:`pdp_audit.audits.blackbox.blackbox_attack` with a given statistic: ``trials``
    fresh releases per world of ``worlds`` ((sampler D, sampler D')), scored block by block in the streams
    ``blackbox/test/…`` of ``seed``; returns the :class:`PooledRankAttack`."""
    scores = []
    for sampler, world in zip(worlds, ("D", "D'")):
        blocks = iter_blocks(_Scores(sampler, world, statistic), trials, seed, f"blackbox/test/{world}", executor)
        parts = list(blocks)
        scores.append(np.concatenate(parts) if parts else np.empty(0))
    return pooled_rank_attack(scores[0], scores[1], delta, seed)


def recheck(worlds: tuple[Sampler, Sampler], data: dict, trials: int, delta: float, seed: int, executor=None):
    """The witness's statistic (``data``) re-applied to ``trials`` fresh releases per world drawn with ``seed``."""
    return fresh_scores_bound(worlds, statistic_from_data(data), trials, delta, seed, executor)


def roc_points(attack: PooledRankAttack) -> tuple[np.ndarray, np.ndarray]:
    """The empirical ROC of the fresh scores at the attack's fixed pooled ranks (for display): calling D the top r
    pooled scores has TPR ≈ (D draws among them)/λ_D and FPR ≈ (the others)/λ_D'."""
    if not attack.poissonised:
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    top = np.asarray(attack.top_pos, float)
    tpr = np.clip(top / attack.lam_pos, 0, 1)
    fpr = np.clip((np.asarray(attack.ranks, float) - top) / attack.lam_neg, 0, 1)
    keep = fpr > 0
    return np.r_[fpr[keep], 1.0], np.r_[tpr[keep], 1.0]
