"""The program audit's stages over frozen values (issue 84, step 2; docs/development.md, "The program audit's
stages"): a pair's reading is made once and a further reading makes a new one, never edits it; the reading holds no
comparison with the claim, and the claim's δ meets the pair's compositions in one place, :func:`.judgement.against`.

Seen failing on main (99f9805): the comparison was mutable and :func:`.through.read_through` wrote its reading into
the comparison it was given (returning None); :class:`.results.PairReading` and :attr:`.results.PairResult.against`
did not exist (the pair was judged by writing into a result already made).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pdp_audit.audits.program import comparison, judgement, probing, results, through, trace
from pdp_audit.audits.program.neighbours import Neighbour

LABELS = np.array([0, 0, 1, 1, 1, 2, 3, 3, 0, 1])
WITHOUT_THE_TWO = LABELS[LABELS != 2]  # record 5, the only 2, removed


def clamped_count(data, rng):
    """The count of 2s plus Laplace noise of scale 1, clamped at 0."""
    return max(float((data == 2).sum()) + rng.laplace(0.0, 1.0), 0.0)


def count(data, rng):
    """The count of 2s plus Laplace noise of scale 1: ε = 1 on removing the 2."""
    return float((data == 2).sum()) + rng.laplace(0.0, 1.0)


def test_a_read_through_a_clamp_makes_a_new_comparison_and_leaves_the_first_as_it_was():
    """The noise at −0.5: 1 − 0.5 > 0 on D, 0 − 0.5 clamped to 0 on D′ -- the shift −1 is read past the clamp
    (:mod:`.through`) into a new comparison; the comparison read first still says it was not read."""
    recorded = trace.record(clamped_count, LABELS)
    at = dataclasses.replace(recorded.calls[0], noise=np.asarray(-0.5))
    recorded = trace.replay(clamped_count, LABELS, [at])
    found = probing.probe(clamped_count, LABELS, recorded, 0)
    compared = comparison.compare(clamped_count, WITHOUT_THE_TWO, recorded, found)
    read = through.read_through(clamped_count, (LABELS, WITHOUT_THE_TWO), recorded, found, compared)
    assert compared.source == ["none"] and np.isnan(compared.shifts[0]) and not compared.through_bounds
    assert read.source == [through.THROUGH] and read.shifts.tolist() == [-1.0] and list(read.through_bounds) == [0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(compared, "source", read.source)


def test_one_reading_judged_under_two_claims_is_left_as_it_was_and_only_its_judgement_differs():
    """Laplace noise of scale 1 on a count that moves by 1: μ = 1, within ε = 2 (δ(2) = 0), above ε = 1/2 (δ(1/2) =
    1 − e^(−1/4) > 0, carried by the release: its lower composition is above δ = 0 too)."""
    recorded = trace.record(count, LABELS)
    found = probing.probe(count, LABELS, recorded, 0)
    compared = comparison.compare(count, WITHOUT_THE_TWO, recorded, found)
    drawn = results.DrawSet(0, trace.BASE_SEED, recorded, found)
    reading = results.PairReading(Neighbour("remove record 5", WITHOUT_THE_TWO, 5), compared, drawn)
    within = judgement.judge(reading, (2.0, 0.0))
    above = judgement.judge(reading, (0.5, 0.0))
    assert within.against == results.Against() and not within.findings
    assert above.against.lower_above and above.against.upper_above and above.findings
    assert within.comparison is above.comparison is compared and within.drawn is above.drawn is drawn
    assert compared.source == ["release"] and abs(compared.shifts[0] + 1.0) <= compared.bounds[0]
