"""The selection pass's step-function scores read as tallies of their values (pdp_audit.audits.blackbox.tallies):
the same counts as the sorted scores, and the same events, merits and kept statistic as reading the scores, for the
trees and a histogram of one column, with a discrete histogram, and where the tallies cannot stand for the scores
(zeros of both signs, more values than cuts)."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox import events
from pdp_audit.audits.blackbox.events import CandidateScores, _FreshBlocks, select_events
from pdp_audit.audits.blackbox.tallies import Steps


class _Sampler:
    def __init__(self, world):
        self.world = world

    def __call__(self, size, rng):  # many releases on the trees' and bins' cuts
        return rng.laplace(1.0 if self.world == "D" else 0.0, 10.0, (size, 1)).round(1)


@pytest.mark.parametrize("seed", range(20))
def test_a_tally_counts_below_a_cut_as_the_sorted_scores(seed):
    rng = np.random.default_rng(seed)
    values = np.unique(rng.integers(-5, 6, 8).astype(float))
    positions = rng.integers(0, values.size, 1000).astype(float)
    steps = Steps(np.arange(values.size - 1) + 0.5, values, "left")
    (tally, _), _ = steps.tallies(((positions, positions), (positions, positions)), 4096)
    ordered = np.sort(steps.scores(positions))
    cuts = np.concatenate([values, values + 0.5, [-99.0, 99.0]])
    for side in ("left", "right"):
        assert np.array_equal(tally.below(cuts, side), np.searchsorted(ordered, cuts, side))
    assert tally.size == len(tally) == positions.size


def _selections(candidates, size=60_000):
    fresh = {w: _FreshBlocks(_Sampler(w), (1, "sample('D', 1)")) for w in ("D", "D'")}
    work = {w: CandidateScores(fresh[w], tuple(candidates.values())) for w in fresh}
    blocks = {w: work[w].raw(size, np.random.default_rng([3, w == "D"])) for w in fresh}
    positions = tuple(work[w].of(blocks[w]) for w in fresh)
    scores = tuple(np.column_stack([s(blocks[w]) for s in candidates.values()]) for w in fresh)
    return positions, scores, work["D"].steps


def _candidates():
    from pdp_audit.audits.blackbox.attack import learn_statistic, learn_trees
    from pdp_audit.audits.blackbox.features import HistogramScore

    rng = np.random.default_rng(1)
    d, dp = rng.laplace(1.0, 10.0, (20_000, 1)).round(1), rng.laplace(0.0, 10.0, (20_000, 1)).round(1)
    return {
        "logistic": learn_statistic(d, dp, (1, "x"), accuracy=False)[0],
        "trees": learn_trees(d, dp, (1, "x"), 0, accuracy=False)[0],
        "histograms": HistogramScore.fit(d, dp),
        "few": HistogramScore.fit(np.sign(d), np.sign(dp)),  # 3 values: the discrete choice
    }


def test_the_events_chosen_on_tallies_are_those_chosen_on_the_scores():
    """select_events on the step functions' intervals (CandidateScores' columns) and on their scores: the same kept
    statistic, events (thresholds bit for bit) and predicted bounds of every candidate."""
    candidates = _candidates()
    positions, scores, steps = _selections(candidates)
    assert [s is None for s in steps] == [True, False, False, False]
    assert not np.array_equal(positions[0], scores[0])  # the step functions' columns hold intervals
    fresh = (2e6, 2e6)
    for delta in (0.0, 1e-6):
        assert select_events(positions, candidates, fresh, delta, steps) == select_events(
            scores, candidates, fresh, delta
        )


@pytest.mark.parametrize("case", ["both zeros", "many values"])
def test_steps_whose_tallies_cannot_stand_for_the_scores_are_read_as_scores(case):
    rng = np.random.default_rng(5)
    size = 6000 if case == "many values" else 12
    values = np.round(rng.normal(0, 1, size), 3) + 1e-3 * np.arange(size)
    if case == "both zeros":
        values[[2, 7]] = (0.0, -0.0)
    steps = Steps(np.arange(size - 1) + 0.5, values, "left")
    positions = tuple(rng.integers(0, size, (40_000, 1)).astype(float) for _ in range(2))
    halves = events._halves((positions[0][:, 0], positions[1][:, 0]))
    assert steps.tallies(halves, events.MAX_THRESHOLDS) is None
    as_scores = tuple(steps.scores(p) for p in positions)
    got = events._candidate_choice(positions, 0, "score", (1e6, 1e6), 0.0, steps)
    assert got == events._candidate_choice(as_scores, 0, "score", (1e6, 1e6), 0.0)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("seed", range(10))
def test_one_search_among_all_cuts_finds_each_functions_intervals(side, seed):
    """SharedSearch's intervals are each step function's own search's, releases on the cuts included."""
    from pdp_audit.audits.blackbox.tallies import SharedSearch

    rng = np.random.default_rng(seed)
    steps = []
    for k in (int(rng.integers(1, 150)), int(rng.integers(1, 60))):
        cuts = np.unique(np.round(rng.normal(0, 3, k), 1))
        steps.append(Steps(cuts, rng.normal(size=cuts.size + 1), side))
    steps.insert(1, None)  # a score that is not a step function
    x = np.concatenate([np.round(rng.normal(0, 4, 3000), 1), steps[0].cuts, steps[2].cuts, [-1e9, 1e9]])
    found = SharedSearch(tuple(steps))(x)
    assert sorted(found) == [0, 2]
    for c in (0, 2):
        assert np.array_equal(found[c], steps[c].positions(x))
