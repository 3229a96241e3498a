"""The program audit's stages over frozen values (issue 84, step 2; docs/development.md, "The program audit's
stages"): a pair's reading is made once and a further reading makes a new one, never edits it; the reading holds no
comparison with the claim, and the claim's δ meets the pair's compositions in one place, :func:`.judgement.against`.

Seen failing on main (99f9805): the comparison was mutable and :func:`.through.read_through` wrote its reading into
the comparison it was given (returning None); :class:`.results.PairReading` and :attr:`.results.PairResult.against`
did not exist (the pair was judged by writing into a result already made).
"""

from __future__ import annotations

import dataclasses
import os

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


def test_a_probe_is_built_once_and_frozen():
    """:func:`.probing.probe` returns its probe whole (the count of 2s carries the one noise element with coefficient
    1), and nothing writes into it after.  Seen failing on main (c96a185): the probe was written while it was made."""
    recorded = trace.record(count, LABELS)
    found = probing.probe(count, LABELS, recorded, 0)
    assert found.carrier.tolist() == [0] and found.coefficient.tolist() == [1.0] and found.reproducible
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(found, "carrier", np.array([-1]))


def spent_twice(data, rng):
    """Bug: the count of 2s released twice, each with the whole ε = 1 (ε = 2 in all, one per coordinate)."""
    return count(data, rng), count(data, rng)


def test_decide_runs_once_and_reads_the_confirmation_made_before_it(monkeypatch):
    """:func:`.decision.decide` builds the run's checks once: before a certificate, after D's record is replayed in a
    fresh process; where the confirmation runs, from its frozen record (:class:`.confirmation.Confirmation`), made by
    the stage before -- here an exact refutation no one coordinate's law sizes, so the black box is not run.  Seen
    failing on main (c96a185): ``decide`` ran twice before a certificate, and the confirmation's check was made after
    it and added to its checks."""
    from pdp_audit import audit_program
    from pdp_audit.audits.program import audit, confirmation, decision

    calls: list = []

    def decide(*args, **kwargs):
        calls.append((args, kwargs))
        return decision.decide(*args, **kwargs)

    monkeypatch.setattr(audit, "decide", decide)
    options = dict(neighbours="add-remove", bounds=(0, 3), law="ideal", seed=0)
    assert audit_program(count, LABELS, 1.0, 0.0, **options).verdict == "pass" and len(calls) == 1
    calls.clear()
    run = audit_program(spent_twice, LABELS, 1.0, 0.0, **options)
    ((args, kwargs),) = calls
    confirmed = args[5] if len(args) > 5 else kwargs.get("confirmation")
    assert run.verdict == "fail" and isinstance(confirmed, confirmation.Confirmation), confirmed
    assert confirmed.refuted is not None and confirmed.refuted[0] == "program-composition"
    (check,) = [c for c in run.checks if c.id == "program-confirm"]
    assert check.note == confirmed.checks[0].note and check.note.startswith("Not run: program-composition refutes")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(confirmed, "first", None)


def rescaled_count(data, rng):
    """Bug: the count of 2s with noise of scale 1/len(data), released (a scale taken from the data: a pure claim is
    refuted exactly)."""
    return float((data == 2).sum()) + rng.laplace(0.0, 1.0 / len(data))


def unreplayable_twice(data, rng):
    """:func:`spent_twice`, drawing from ``os.urandom`` too: its record does not reproduce, and no refutation read
    from its replays is exact."""
    os.urandom(4)
    return spent_twice(data, rng)


@pytest.mark.parametrize(
    ("program", "law", "certified", "refuted"),
    [
        (count, "ideal", True, None),
        (count, "as-implemented", False, None),  # float noise added to a value: not certified as implemented
        (spent_twice, "ideal", False, "program-composition"),
        (rescaled_count, "ideal", False, "program-structure"),
        (unreplayable_twice, "ideal", False, None),  # the composition's refutation is not exact: undecided
    ],
)
def test_the_exact_verdicts_the_confirmation_reads_are_those_decide_builds(program, law, certified, refuted):
    """The confirmation runs before :func:`.decision.decide`, on :func:`.decision.certifies` and
    :func:`.decision.refutation` read from the analysis: each must say what the checks ``decide`` builds say -- every
    one a pass; the first that fails, with the witness it names."""
    from pdp_audit.audits.program import analysis, decision

    found = analysis.analyse(program, LABELS, "add-remove", (0, 3), (1.0, 0.0), 0)
    checks = decision.decide(found, (1.0, 0.0), law, [])
    failed = next((c for c in checks if c.verdict == "fail"), None)
    assert decision.certifies(found, (1.0, 0.0), law, [], tightest=False) is certified
    assert all(c.verdict == "pass" for c in checks) is certified, [(c.id, c.verdict) for c in checks]
    assert decision.refutation(found) == (None if failed is None else (failed.id, failed.details["witness"]))
    assert (failed and failed.id) == refuted, [(c.id, c.verdict, c.note[:80]) for c in checks]
    assert (program is unreplayable_twice) is checks[2].note.startswith("Not exact: the record on D does not reproduce")
