"""The fresh pass's counts of an event of a one-column step function read as intervals of the releases
(pdp_audit.audits.blackbox.intervals): the same integers as scoring every release and comparing, for cuts searched on
either side, releases on the cuts, events of every shape; and through the fresh pass's block work, for trees and a
histogram, the same rows as the scores give."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox.events import Event, EventHits, _FreshBlocks
from pdp_audit.audits.blackbox.intervals import MAX_BOUNDARIES, event_intervals, one_column_steps


def _scored_counts(cuts, values, side, events, x):
    scores = values[np.searchsorted(cuts, x, side)]
    return np.array([np.count_nonzero(e.members(scores)) for e in events])


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("seed", range(40))
def test_interval_counts_are_the_scored_counts(side, seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(0, 12))
    cuts = np.unique(rng.integers(-20, 20, k).astype(float))
    values = rng.integers(-3, 4, cuts.size + 1).astype(float)  # ties between intervals, runs of every length
    x = np.concatenate([rng.integers(-25, 25, 500).astype(float), rng.normal(0, 15, 500), cuts])  # on the cuts too
    events = [Event(float(t), bool(way)) for t, way in zip(rng.integers(-4, 5, 3), rng.integers(0, 2, 3))]
    intervals = event_intervals((cuts, values, side), events)
    assert np.array_equal(intervals.counts(x), _scored_counts(cuts, values, side, events, x))


def test_too_many_boundaries_are_left_to_the_scores():
    cuts = np.arange(2.0 * MAX_BOUNDARIES)
    values = np.arange(cuts.size + 1) % 2.0  # alternating: every cut a boundary
    assert event_intervals((cuts, values, "left"), [Event(0.5, True)]) is None
    assert event_intervals((cuts[: MAX_BOUNDARIES // 2], values[: MAX_BOUNDARIES // 2 + 1], "left"), [Event(0.5, True)])


class _Sampler:
    world = "D"

    def __call__(self, size, rng):
        return rng.laplace(0.0, 10.0, (size, 1)).round(1)  # many releases on the trees' and bins' cuts


def test_the_fresh_pass_counts_trees_and_histograms_as_their_scores_do():
    """EventHits with the intervals and with them removed (the scores compared), for the two step-function scores."""
    from pdp_audit.audits.blackbox.features import HistogramScore
    from pdp_audit.audits.blackbox.learned_statistics import learn_trees

    rng = np.random.default_rng(1)
    d, dp = rng.laplace(1.0, 10.0, (20_000, 1)).round(1), rng.laplace(0.0, 10.0, (20_000, 1)).round(1)
    fresh = _FreshBlocks(_Sampler(), (1, "sample('D', 1)"))
    for score in (learn_trees(d, dp, (1, "x"), 0, accuracy=False)[0], HistogramScore.fit(d, dp)):
        assert one_column_steps(score, 1) is not None and one_column_steps(score, 2) is None
        values = np.unique(score(d))
        events = (Event(float(values[-3]), True), Event(float(values[2]), False), Event(float(values[0]), True))
        work = EventHits(fresh, score, events)
        assert work.intervals is not None
        quick = work(50_000, np.random.default_rng(7))
        work.intervals = None
        assert np.array_equal(quick, work(50_000, np.random.default_rng(7)))
