"""The black box's shortcuts give scikit-learn's and numpy's numbers bit for bit: the logistic statistic's scores
(attack.linear_scores) against scikit-learn's decision function of its scaled features, and the histogram score fitted
with its values counted on a prefix first (features.FEW_FIRST) against the one that lists them all."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox import features
from pdp_audit.audits.blackbox.attack import learn_statistic


@pytest.mark.parametrize("seed", range(4))
def test_logistic_scores_are_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    n = 5_000
    d = np.column_stack([rng.laplace(1.0, 3.0, n), rng.choice([0.0, -1000.0, 2.5], n), rng.normal(0, 1e6, n)])
    dp = np.column_stack([rng.laplace(0.0, 3.0, n), rng.choice([0.0, -1000.0, 7.0], n), rng.normal(0, 1, n)])
    statistic, _ = learn_statistic(d[:, : seed % 3 + 1], dp[:, : seed % 3 + 1], (seed % 3 + 1, "x"))
    fresh = np.vstack([d, dp])[:, : seed % 3 + 1] * rng.choice([1.0, 1e3], (10_000, 1))  # beyond the training range
    expected = statistic.model.decision_function(statistic.scaler.transform(statistic.features(fresh)))
    assert np.array_equal(statistic(fresh).view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("values", [3, 64, 65, 5_000, None])
def test_a_histogram_fitted_from_a_prefix_first_is_the_one_fitted_from_all_values(monkeypatch, values):
    """A column with few values in its first releases and many later, or many throughout, or few throughout."""
    rng = np.random.default_rng(values or 0)
    draw = (lambda n: rng.integers(0, values, n).astype(float)) if values else (lambda n: rng.normal(size=n))
    d, dp = draw((20_000, 1)), draw((20_000, 1)) + 1
    d[features.FEW_FIRST :, 0] += rng.normal(size=20_000 - features.FEW_FIRST) * (values == 64)  # few, then many
    quick = features.HistogramScore.fit(d, dp)
    monkeypatch.setattr(features, "FEW_FIRST", None)  # pooled[:None]: every value listed, as before
    full = features.HistogramScore.fit(d, dp)
    assert all(np.array_equal(a, b) for a, b in zip(quick.edges + quick.log_ratio, full.edges + full.log_ratio))
