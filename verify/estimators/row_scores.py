"""A linear score as a fixed function of each row: the sum Σ_k w_k·x_k + b computed in one order of elementwise
float64 operations, the same double for a row whatever array it is in.

Why not ``X @ w`` (a BLAS product, as scikit-learn's ``decision_function``): its kernels sum a row in an order that
depends on where the row falls in its array -- the tail of a block, a block of 2 or 3 rows, another block length --
so the same row got scores 1 ulp apart in two blocks (measured on the black box's logistic score of Mironov's
snapping mechanism: the release −1 scored t alone and t − 2^−52 in a block of 2).  An event {score ≥ t} or a bin
(e_{i−1}, e_i] whose end is a repeated release's score then holds that release in some blocks and not in others, and
the counts of fresh releases in it are not those of one fixed set: the exact tests that count them lose their level
(the snapping mechanism, ε = 1, was refuted at ε ≥ 1.05 with p = 4e-24).

Sound for: each operation here (multiply, add) is one IEEE-754 operation per element, correctly rounded whatever
the array's length, alignment or the element's position (numpy never fuses two ufuncs into one), applied in the
order of the features; so the score of a row is a function of its features alone, and an event of the score is an
event of the row.
"""

from __future__ import annotations

import numpy as np

#: Rows summed a chunk at a time: a chunk's columns stay in the cache (on 1e6 rows of 14 features 0.34 s against
#: 1.19 s for whole columns, and 0.15 s for the BLAS product it replaces; 2 shared cores under load, 2026-11-27).
SCORE_ROWS = 8192


def linear_rows(features: np.ndarray, weights: np.ndarray, intercept: float) -> np.ndarray:
    """((w_0·x_0 + w_1·x_1) + … + w_{m−1}·x_{m−1}) + b for each row x of the float64 (rows, m) array ``features``,
    m ≥ 1 (module notes): a new array."""
    weights = np.asarray(weights, dtype=np.float64).reshape(-1)
    scores = np.empty(len(features))
    product = np.empty(min(SCORE_ROWS, len(features)))
    for start in range(0, len(features), SCORE_ROWS):
        rows, total = features[start : start + SCORE_ROWS], scores[start : start + SCORE_ROWS]
        np.multiply(rows[:, 0], weights[0], out=total)
        for k in range(1, weights.size):
            total += np.multiply(rows[:, k], weights[k], out=product[: len(rows)])
        total += intercept
    return scores
