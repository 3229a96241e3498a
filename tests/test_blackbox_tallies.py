"""The selection pass's step-function scores read as tallies of their values (pdp_audit.audits.blackbox.tallies):
the same counts as the sorted scores, and the same events, merits and kept statistic as reading the scores, for the
trees and a histogram of one column, with a discrete histogram, blocks that straddle the halves, and where the
tallies cannot stand for the scores (zeros of both signs, more values than cuts: kept as scores)."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox import events
from pdp_audit.audits.blackbox.event_choice import select_events
from pdp_audit.audits.blackbox.events import CandidateScores, _FreshBlocks
from pdp_audit.audits.blackbox.tallies import SelectionColumns, Steps


class _Sampler:
    def __init__(self, world):
        self.world = world

    def __call__(self, size, rng):  # many releases on the trees' and bins' cuts
        return rng.laplace(1.0 if self.world == "D" else 0.0, 10.0, (size, 1)).round(1)


@pytest.mark.parametrize("seed", range(20))
def test_a_tally_counts_below_a_cut_as_the_sorted_scores(seed):
    rng = np.random.default_rng(seed)
    values = np.unique(rng.integers(-5, 6, 8).astype(float))
    positions = rng.integers(0, values.size, 1000)
    steps = Steps(np.arange(values.size - 1) + 0.5, values, "left")
    counts = np.bincount(positions, minlength=values.size)
    (tally, _), _ = steps.tallies(((counts, counts), (counts, counts)))
    ordered = np.sort(steps.values[positions])
    cuts = np.concatenate([values, values + 0.5, [-99.0, 99.0]])
    for side in ("left", "right"):
        assert np.array_equal(tally.below(cuts, side), np.searchsorted(ordered, cuts, side))
    assert tally.size == len(tally) == positions.size


def _selections(candidates, size=60_000, block=7_000):
    """Each world's selection pass filled from blocks of ``block`` releases (one straddles the halves), and the same
    releases' scores as arrays."""
    fresh = {w: _FreshBlocks(_Sampler(w), (1, "sample('D', 1)")) for w in ("D", "D'")}
    work = {w: CandidateScores(fresh[w], tuple(candidates.values())) for w in fresh}
    raw = {w: work[w].raw(size, np.random.default_rng([3, w == "D"])) for w in fresh}
    blocks = {w: [work[w].of(raw[w][at : at + block]) for at in range(0, size, block)] for w in fresh}
    tallied = tuple(SelectionColumns.filled(blocks[w], size, work[w].steps) for w in fresh)
    scores = tuple(np.column_stack([s(raw[w]) for s in candidates.values()]) for w in fresh)
    return tallied, scores, work["D"].steps


def _candidates():
    from pdp_audit.audits.blackbox.features import HistogramScore
    from pdp_audit.audits.blackbox.learned_statistics import learn_statistic, learn_trees

    rng = np.random.default_rng(1)
    d, dp = rng.laplace(1.0, 10.0, (20_000, 1)).round(1), rng.laplace(0.0, 10.0, (20_000, 1)).round(1)
    return {
        "logistic": learn_statistic(d, dp, (1, "x"), accuracy=False)[0],
        "trees": learn_trees(d, dp, (1, "x"), 0, accuracy=False)[0],
        "histograms": HistogramScore.fit(d, dp),
        "few": HistogramScore.fit(np.sign(d), np.sign(dp)),  # 3 values: the discrete choice
    }


def test_the_events_chosen_on_tallies_are_those_chosen_on_the_scores():
    """select_events on the selection pass with the step functions' intervals counted per half (SelectionColumns)
    and on all the scores: the same kept statistic, events (thresholds bit for bit) and predicted bounds of every
    candidate."""
    candidates = _candidates()
    tallied, scores, steps = _selections(candidates)
    assert [s is None for s in steps] == [True, False, False, False]
    assert tallied[0].out.shape == (scores[0].shape[0], 1)  # only the logistic scores are kept
    fresh = (2e6, 2e6)
    for delta in (0.0, 1e-6):
        assert select_events(tallied, candidates, fresh, delta) == select_events(scores, candidates, fresh, delta)
    alone = {name: candidates[name] for name in ("logistic", "histograms")}  # one step function: its own search
    tallied, scores, _ = _selections(alone)
    assert select_events(tallied, alone, fresh, 0.0) == select_events(scores, alone, fresh, 0.0)


def test_half_counts_that_shift_a_block_across_the_halves_differ():
    """The halves' counts are the choice's evidence: the same intervals with one block's rows moved from the first
    half to the second give other counts (the test above can fail)."""
    candidates = _candidates()
    tallied, _, _ = _selections(candidates)
    first, second = tallied[0].column(1)
    assert first.sum() == second.sum() == 30_000
    moved, _, _ = _selections(candidates, size=60_000, block=60_000)
    assert np.array_equal(moved[0].column(1)[0], first)  # one block split at the half: the same counts
    shifted = SelectionColumns(60_000, tallied[0].steps)
    fresh = _FreshBlocks(_Sampler("D"), (1, "sample('D', 1)"))
    work = CandidateScores(fresh, tuple(candidates.values()))
    raw = work.raw(60_000, np.random.default_rng([3, True]))
    shifted.add(work.of(raw[7_000:37_000]))  # the first half misses the first block
    shifted.add(work.of(raw[:7_000]))
    shifted.add(work.of(raw[37_000:]))
    assert not np.array_equal(shifted.column(1)[0], first)


@pytest.mark.parametrize("case", ["both zeros", "many values"])
def test_steps_whose_tallies_cannot_stand_for_the_scores_are_kept_as_scores(case):
    """A step function with zeros of both signs or more values than the choice lists as cuts is not tallied
    (score_steps: None), so its selection column holds its scores, as the choice reads them."""
    rng = np.random.default_rng(5)
    size = 6000 if case == "many values" else 12
    values = np.round(rng.normal(0, 1, size), 3) + 1e-3 * np.arange(size)
    if case == "both zeros":
        values[[2, 7]] = (0.0, -0.0)
    steps = Steps(np.arange(size - 1) + 0.5, values, "left")
    assert not steps.can_tally(events.MAX_THRESHOLDS)
    assert Steps(steps.cuts, np.abs(values[:12]) + 1.0, "left").can_tally(events.MAX_THRESHOLDS)

    class _StepScore:  # a histogram of one column with these values
        def __call__(self, releases):
            return steps.values[steps.positions(releases[:, 0])]

    from pdp_audit.audits.blackbox import intervals

    fresh = _FreshBlocks(_Sampler("D"), (1, "sample('D', 1)"))
    original = intervals.one_column_steps
    intervals.one_column_steps = lambda score, width: (steps.cuts, steps.values, "left")
    try:
        assert events.score_steps((_StepScore(),), fresh) == (None,)
    finally:
        intervals.one_column_steps = original


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
        assert np.array_equal(found[c].values, steps[c].positions(x))
