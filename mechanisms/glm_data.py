"""Datasets for the GLM mechanisms (objective perturbation): the papers' synthetic data and a bundled real one.

No network access: the real data set is scikit-learn's bundled copy of the Wisconsin breast-cancer data.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from pdp_audit.verify.inputs.validation import InputError


def margin_data(
    n: int, rng: np.random.Generator, margin: float = 0.4, d: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[RW] Figure 1 data (K17): ``n`` points uniform in the unit ball of ℝᵈ (d = 2 in the paper), two
    linearly separable classes separated by a margin ``m = 0.4``.

    Reading of "margin": the band ``|wᵀx| < m/2`` around the separating hyperplane through the origin is
    empty, i.e. the classes are ``m`` apart.  ``w`` is a uniformly random unit normal.  Points are drawn by
    rejection from the uniform distribution on the ball.  Returns ``(X, y, w)`` with ``y = sign(wᵀx) ∈ {±1}``.
    """
    if int(n) < 1:
        raise InputError(f"n must be >= 1, got {n!r}")
    if not (0 <= margin < 2):
        raise InputError(f"margin must be in [0, 2), got {margin!r}")
    if int(d) < 1:
        raise InputError(f"d must be >= 1, got {d!r}")
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    rows: list[np.ndarray] = []
    have = 0
    while have < n:
        g = rng.standard_normal((2 * n, d))
        x = g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random((2 * n, 1)) ** (1.0 / d)
        x = x[np.abs(x @ w) >= margin / 2]
        rows.append(x)
        have += x.shape[0]
    X = np.concatenate(rows)[:n]
    return X, np.where(X @ w > 0, 1.0, -1.0), w


def breast_cancer(row_scaling: Literal["unit", "max"] = "unit") -> tuple[np.ndarray, np.ndarray]:
    """Wisconsin breast-cancer data (n = 569, d = 30), preprocessed as in the papers ([LR] §5, K27; [RW] ‖x‖ ≤ 1):
    every feature z-scored, then rows scaled into the unit ball -- ``"unit"``: each row to norm 1 ([LR]),
    ``"max"``: all rows divided by the largest row norm.  Labels ±1 (benign = +1, malignant = −1).
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    X = np.asarray(data.data, dtype=float)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    if row_scaling == "unit":
        X = X / np.where(norms > 0, norms, 1.0)
    elif row_scaling == "max":
        X = X / norms.max()
    else:
        raise InputError(f"row_scaling must be 'unit' or 'max', got {row_scaling!r}")
    y = np.where(np.asarray(data.target) == 1, 1.0, -1.0)
    return X, y
