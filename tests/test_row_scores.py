"""A linear score is a fixed function of each row (verify/estimators/row_scores.py): the same double for a row alone,
repeated in a block of any length, or among other rows -- for the black box's logistic score and for the pair
route's score bins (consistency_events.ScoreBins), whose events count fresh releases and must be fixed sets
(issue 70: a BLAS product rounded a row by its place in the block, and the snapping mechanism was refuted)."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.verify.estimators.consistency_events import ScoreBins
from pdp_audit.verify.estimators.row_scores import SCORE_ROWS, linear_rows

SIZES = (2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 1_000, SCORE_ROWS + 3)


def _same_in_every_block(score, rows: np.ndarray) -> None:
    alone = np.array([score(row[None, :])[0] for row in rows])
    for size in SIZES:
        for i, row in enumerate(rows):
            repeated = score(np.repeat(row[None, :], size, axis=0))
            assert np.all(repeated.view(np.uint64) == alone[i : i + 1].view(np.uint64)), (size, i)


@pytest.mark.parametrize("width", [1, 2, 5, 14, 40])
def test_linear_rows_is_the_fixed_order_sum_of_each_row(width):
    rng = np.random.default_rng(width)
    features = rng.normal(size=(3 * SCORE_ROWS + 5, width)) * rng.choice([1.0, 1e-8, 1e8], width)
    weights, intercept = rng.normal(size=width), float(rng.normal())
    scores = linear_rows(features, weights, intercept)
    for i in range(0, len(features), 997):
        total = features[i, 0] * weights[0]
        for k in range(1, width):
            total += features[i, k] * weights[k]
        assert scores[i] == total + intercept
    _same_in_every_block(lambda x: linear_rows(x, weights, intercept), features[::4_000])


def test_the_pair_routes_score_is_the_same_in_every_block():
    """ScoreBins.score of a pilot of integer releases (the atoms whose scores the bins' quantiles land on)."""
    rng = np.random.default_rng(3)
    pilot = {
        w: (rng.integers(-3, 4, (2_000, 3)).astype(float) + shift, rng.normal(size=2_000))
        for w, shift in (("D", 0.0), ("D'", 1.0))
    }
    bins = ScoreBins(pilot)
    coordinates, losses = pilot["D"]
    rows = np.column_stack([coordinates, losses])[::100]
    _same_in_every_block(lambda x: bins.score(x[:, :3], x[:, 3]), rows)
