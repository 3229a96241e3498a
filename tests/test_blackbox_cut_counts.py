"""Counts of unsorted scores at cuts by a grid lookup (pdp_audit.audits.blackbox.cut_counts): the integers of
np.searchsorted of the sorted scores, on light and heavy tails (a cell crowded with cuts), scores equal to cuts,
zeros of both signs, one cut, a span too narrow for the grid and one that overflows; a lookup that skips the scan of
a cell's cuts is shown to miscount."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox import cut_counts
from pdp_audit.audits.blackbox.cut_counts import CutCounts, positions


def _case(law: str, rng: np.random.Generator):
    """(scores, cuts) of one law; the cuts are quantiles of a subsample as the event choice takes them, or special."""
    n = 50_000
    scores = {
        "laplace": lambda: rng.laplace(0, 10, n),
        "cauchy": lambda: rng.standard_cauchy(n),  # quantiles crowd the centre: binary search in a cell
        "rounded": lambda: np.round(rng.normal(0, 1, n), 2),  # many scores equal to a cut
        "zeros": lambda: np.where(rng.random(n) < 0.3, rng.choice([-0.0, 0.0], n), rng.normal(0, 1, n)),
        "huge": lambda: rng.choice([-1.5e308, 1.5e308, 0.0, 1.0], n),  # c_last − c_0 overflows
        "narrow": lambda: 1.0 + rng.integers(0, 3, n) * np.spacing(1.0),  # a span of two ulps
    }[law]()
    if law in ("huge", "narrow"):
        cuts = np.unique(scores)
    else:
        cuts = np.unique(np.quantile(scores[:5000], np.linspace(0, 1, 4096)))
    return scores, cuts


@pytest.mark.parametrize("law", ["laplace", "cauchy", "rounded", "zeros", "huge", "narrow"])
@pytest.mark.parametrize("seed", range(3))
def test_counts_at_the_cuts_are_those_of_the_sorted_scores(law, seed, monkeypatch):
    scores, cuts = _case(law, np.random.default_rng(seed))
    ordered = np.sort(scores)
    crowded, most = [], cut_counts.most_in_a_cell
    monkeypatch.setattr(cut_counts, "most_in_a_cell", lambda before: crowded.append(most(before)) or crowded[-1])
    assert np.array_equal(positions(scores, cuts), np.searchsorted(cuts, scores, "left"))
    counts = CutCounts.of(scores, cuts)
    picked = cuts[:: max(1, cuts.size // 97)]
    for side in ("left", "right"):
        assert np.array_equal(counts.below(picked, side), np.searchsorted(ordered, picked, side))
    assert len(counts) == scores.size
    if law == "cauchy":  # some cell holds more cuts than a scan reads: the binary search ran
        assert max(crowded) > cut_counts.SCAN


def test_one_cut_and_scores_outside_the_cuts_range():
    scores = np.array([-3.0, 2.0, 2.0, 5.0, -0.0])
    counts = CutCounts.of(scores, np.array([2.0]))
    assert counts.below(np.array([2.0]), "left").tolist() == [2]
    assert counts.below(np.array([2.0]), "right").tolist() == [4]
    scores = np.array([-1e9, 1e9, 0.5])
    assert positions(scores, np.array([0.0, 0.25, 1.0])).tolist() == [0, 3, 2]


def test_a_lookup_that_skips_the_scan_of_a_cells_cuts_miscounts(monkeypatch):
    """With no scan (a cell's cuts taken as all ≥ the score), every score above a cut of its own cell is placed
    below it: the counts then differ from the sorted scores'."""
    scores, cuts = _case("laplace", np.random.default_rng(0))
    monkeypatch.setattr(cut_counts, "most_in_a_cell", lambda before: 0)
    assert not np.array_equal(positions(scores, cuts), np.searchsorted(cuts, scores, "left"))


def test_the_choice_counts_a_many_valued_score_at_its_subsamples_quantiles():
    """A score of many values whose half exceeds CUT_SAMPLE per world: its cuts are the pooled quantiles of the first
    CUT_SAMPLE finite scores of each world, its counts those of all (NaN in no event); below that, all are sorted."""
    from pdp_audit.audits.blackbox.event_choice import CUT_SAMPLE, _shortlist_counts
    from pdp_audit.audits.blackbox.events import MAX_THRESHOLDS

    rng = np.random.default_rng(1)
    d, dp = rng.normal(0.1, 1, CUT_SAMPLE + 2000), rng.normal(0, 1, CUT_SAMPLE + 1000)
    d[::1000] = np.nan
    counted, cuts = _shortlist_counts((d, dp))
    finite = [s[np.isfinite(s)] for s in (d, dp)]
    pooled = np.concatenate([s[:CUT_SAMPLE] for s in finite])
    assert np.array_equal(cuts, np.unique(np.quantile(pooled, np.linspace(0, 1, MAX_THRESHOLDS))))
    for c, s in zip(counted, finite):
        assert isinstance(c, CutCounts) and len(c) == s.size
        assert np.array_equal(c.below(cuts, "right"), np.searchsorted(np.sort(s), cuts, "right"))
    ordered, _ = _shortlist_counts((d[:1000], dp[:1000]))
    assert all(isinstance(s, np.ndarray) for s in ordered)
