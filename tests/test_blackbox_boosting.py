"""The black box's gradient-boosted trees, fitted by :mod:`pdp_audit.audits.blackbox.boosting` (issue 61: the trees
were read out of scikit-learn's private ``_predictors``): a learner as good as scikit-learn's
``HistGradientBoostingClassifier`` at its defaults on the releases the audits see, Newton leaf values, real-valued
thresholds, early stopping, and the same trees from the same releases and seed."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from pdp_audit.audits.blackbox import boosting
from pdp_audit.audits.blackbox.trees import from_data, to_data


def labelled(d, dp) -> tuple[np.ndarray, np.ndarray]:
    return np.vstack([d, dp]), np.r_[np.ones(len(d)), np.zeros(len(dp))]


def mixed(world: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """A count, a Laplace answer and a flag that matters only beside a large answer (an interaction)."""
    shift = 0.0 if world == "D" else 0.4
    answer = rng.laplace(shift, 1.0, size)
    flag = (rng.random(size) < (0.3 if world == "D" else 0.2)) & (answer > 1)
    return np.column_stack([rng.binomial(4, 0.5 - shift / 8, size), answer, flag])


@pytest.mark.parametrize("columns", [1, 3])
def test_the_trees_classify_fresh_releases_as_well_as_scikit_learns(columns):
    """Held-out accuracy within 0.01 of HistGradientBoostingClassifier's (public API, its defaults) on 2 × 15,000
    training releases, early stopping on: a learner with a wrong gain, a wrong leaf sign or a threshold off by a bin
    falls well below."""
    rng = np.random.default_rng(5)
    x, y = labelled(mixed("D", 15_000, rng), mixed("D'", 15_000, rng))
    fresh, labels = labelled(mixed("D", 20_000, rng), mixed("D'", 20_000, rng))
    x, fresh = x[:, 1:2] if columns == 1 else x, fresh[:, 1:2] if columns == 1 else fresh
    ours = boosting.fit_trees(x, y, 0)
    theirs = HistGradientBoostingClassifier(random_state=0).fit(x, y)
    accuracy = np.mean((ours(fresh) > 0) == (labels == 1))
    assert accuracy > theirs.score(fresh, labels) - 0.01, (accuracy, theirs.score(fresh, labels))
    assert accuracy > 0.55 and 1 < len(ours.trees) < boosting.MAX_ROUNDS  # it learned, then stopped early


def test_the_first_tree_of_separable_releases_is_one_newton_step_at_the_gap():
    """Classes separated at 0, releases on a grid of 0.1 (fewer distinct values than bins: every midpoint is an
    edge): the first tree splits once, between the largest negative and the smallest positive release (x ≤ t goes
    left), and its leaves are −ν·G/H at p = 1/2: ±0.2 (a pure leaf gains nothing by a split)."""
    rng = np.random.default_rng(1)
    d, dp = (np.round(rng.uniform(lo, hi, (400, 1)), 1) for lo, hi in ((0.1, 3), (-3, -0.1)))
    ensemble = boosting.fit_trees(*labelled(d, dp), 0)
    assert ensemble.baseline == 0.0
    first = ensemble.trees[0]
    assert first.feature.tolist() == [0, -1, -1]
    assert dp.max() < first.threshold[0] < d.min()
    assert first.value[1:].tolist() == pytest.approx([-0.2, 0.2], abs=1e-12)
    assert len(ensemble.trees) == boosting.MAX_ROUNDS  # 800 releases: no early stopping below 10,000


def test_the_same_releases_and_seed_give_the_same_trees_and_they_survive_json():
    rng = np.random.default_rng(2)
    x, y = labelled(mixed("D", 6000, rng), mixed("D'", 6000, rng))
    first, again = boosting.fit_trees(x, y, 3), boosting.fit_trees(x, y, 3)
    assert to_data(first) == to_data(again)
    stored = from_data(to_data(first), 3)
    assert np.array_equal(stored(x).view(np.int64), first(x).view(np.int64))


def test_bin_edges_are_midpoints_of_the_distinct_values_or_of_quantiles():
    rng = np.random.default_rng(0)
    assert boosting.bin_edges(np.array([3.0, 1.0, 1.0, 2.0]), rng).tolist() == [1.5, 2.5]
    edges = boosting.bin_edges(rng.normal(size=50_000), rng)
    assert edges.size == boosting.MAX_BINS - 1 and np.all(np.diff(edges) > 0)


@pytest.mark.tier2(representatives=("1-15000-3", "3-15000-1"))
@pytest.mark.parametrize("columns, size, seed", [(1, 3000, 0), (1, 15_000, 3), (3, 15_000, 1), (3, 400, 2)])
def test_the_trees_are_those_of_the_plain_first_version(columns, size, seed):
    """The faster growth (histograms of the root read in place, positions instead of masks) changes no split, no
    threshold and no leaf value: the same trees, bit for bit, as :mod:`tests.reference_boosting` on releases with
    ties (rounded to 0.1), with and without early stopping."""
    from tests.reference_boosting import fit_trees as reference

    rng = np.random.default_rng(seed)
    x, y = labelled(mixed("D", size, rng), mixed("D'", size, rng))
    x = np.round(x, 1)[:, 1:2] if columns == 1 else x
    assert to_data(boosting.fit_trees(x, y, seed)) == to_data(reference(x, y, seed))
