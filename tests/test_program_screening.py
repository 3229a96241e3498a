"""The statistical screening of a program audit's pairs (:mod:`pdp_audit.audits.program.screening`): which pair it
selects for a discrete release whose loss the recorded draws do not show, that it selects none worth confirming for
an ε-DP twin, and how its confirmation joins the structural witness's; for a continuous release, the pair whose
releases take another structure (a class read from the data that the neighbour removes).

The bug is the sparse vector whose query noise is drawn once (:func:`tests.program_series.first_busy_week_shared_noise`,
Lyu, Su & Li 2017, §4): weeks 0 and 1 of :data:`tests.program_series.INCIDENTS` tie, so week 1 never wins on D; it
can win exactly on a D′ whose week 1 counts more than its week 0 (a week-0 incident removed, a week-1 incident
added) -- the pairs of infinite loss.  Before the screening this bug was misdecided (its witness a pair of finite
loss, the confirmation's p = 1: the series' strict xfail).  Statistical checks run at α = 1e-6 with seed 0; the
screening itself only selects (its p-values rank, they decide nothing).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import screening
from pdp_audit.audits.program.analysis import analyse
from pdp_audit.audits.program.config import CANDIDATES, DRAW_SETS, SEARCH
from pdp_audit.audits.program.confirmation_looks import Reading
from pdp_audit.audits.program.decision import CHECKS
from pdp_audit.audits.program.search import Budget
from pdp_audit.verify.core.checks import Evidence
from tests import program_series as s

ALPHA = 1e-6


def _week_one_can_win(data) -> bool:
    """Whether week 1 can be the first week above the one shared threshold on ``data``: it counts more than week 0."""
    counts = s._weekly(data)
    return bool(counts[1] > counts[0])


def _analysed(program):
    """The analysis the audit makes at seed 0 (its default draw sets and neighbour search)."""
    return analyse(program, s.INCIDENTS, "add-remove", None, (s.EPSILON, 0.0), 0, DRAW_SETS, Budget(SEARCH, CANDIDATES))


def _audit(program):
    return pdp_audit.audit_program(program, s.INCIDENTS, s.EPSILON, trials=2000, alpha=ALPHA, seed=0)


@pytest.mark.tier2
def test_screening_selects_a_pair_of_infinite_loss():
    analysis = _analysed(s.first_busy_week_shared_noise)
    witness = analysis.worst(confirmable=True)
    assert witness is not None and not _week_one_can_win(witness.neighbour.data)  # the structural witness misses
    found = screening.screen(s.first_busy_week_shared_noise, s.INCIDENTS, analysis.pairs, witness, s.EPSILON, 0)
    assert found is not None and found.worth and found.pair is not None
    assert _week_one_can_win(found.pair.neighbour.data), found.pair.neighbour.name
    assert found.event == "= 1" and found.counts[0] == 0 and found.counts[1] > 0  # week 1: never on D, seen on D′
    assert found.pairs * found.releases + found.releases <= screening.BUDGET


@pytest.mark.tier2
def test_the_audit_confirms_the_screened_pair_and_names_how_it_was_found():
    run = _audit(s.first_busy_week_shared_noise)
    confirm = next(c for c in run.checks if c.id == "program-confirm")
    assert run.verdict == "fail" and confirm.verdict == "fail" and confirm.pvalue <= ALPHA
    pairs = _analysed(s.first_busy_week_shared_noise).pairs
    pair = next(p for p in pairs if p.neighbour.name == confirm.details["witness"])
    assert _week_one_can_win(pair.neighbour.data)
    assert confirm.details["witness_found_by"].startswith("the statistical screening of ")
    assert "Bonferroni" in confirm.note and confirm.details["screened"]["count_on_d"] == 0
    witness = next(x for x in run.review.sections if x.heading == "Witness pair")
    assert pair.neighbour.name.split(" (")[0].replace("remove ", "") in witness.text
    assert "Found by the statistical screening of " in witness.text


@pytest.mark.tier2
def test_the_dp_twin_is_screened_and_nothing_is_confirmed():
    analysis = _analysed(s.first_busy_week)
    found = screening.screen(s.first_busy_week, s.INCIDENTS, analysis.pairs, None, s.EPSILON, 0)
    assert found is not None and not found.worth and found.pvalue > screening.LEVEL
    run = _audit(s.first_busy_week)
    confirm = next(c for c in run.checks if c.id == "program-confirm")
    assert run.verdict != "fail" and confirm.verdict != "fail", [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    assert "none confirmed" in confirm.note and confirm.details["screened"]["pairs_screened"] > 0


def test_a_continuous_release_whose_structure_never_moves_names_no_pair():
    """A noisy sum's releases are continuous: screened on their structure alone, which no neighbour moves."""

    def noisy_sum(data, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0)

    data = np.arange(6.0)
    analysis = analyse(noisy_sum, data, "add-remove", None, (1.0, 0.0), 0, 1)
    assert screening.screen(noisy_sum, data, analysis.pairs, None, 1.0, 0) is None


def test_the_event_test_is_the_conditional_binomial_of_two_poisson_rates():
    q = math.exp(1.0) / (1 + math.exp(1.0))
    p, event, x, y = screening.event_test(Counter({b"a": 20, b"b": 30}), Counter({b"b": 30}), 1.0)
    assert event == [b"a"] and (x, y) == (20, 0) and p == pytest.approx(q**20, rel=1e-9)
    p, _, _, _ = screening.event_test(Counter({b"a": 30, b"b": 30}), Counter({b"a": 30, b"b": 30}), 1.0)
    assert p > 0.5  # equal counts: nothing beyond e^ε


@pytest.mark.parametrize(("first", "second", "expected"), [(0.3, 1e-9, 2e-9), (1e-9, 0.3, 2e-9), (None, 4e-7, 4e-7)])
def test_two_confirmations_are_joined_by_bonferroni(first, second, expected):
    spec = CHECKS["program-confirm"]
    evidence = [] if first is None else [Reading(Evidence(spec, pvalue=first), True, first, details={"witness": "W"})]
    found = screening.Screened(None, 1e-5, "= 1", (0, 30), 47, 333)
    screened = Reading(Evidence(spec, pvalue=second), True, second, details={"witness": "S"})
    out = [r.check(spec) for r in screening.combined(evidence, [screened], found)]
    assert len(out) == 1 and out[0].pvalue == pytest.approx(expected)
    assert out[0].details["witness"] == ("W" if first is not None and first < second else "S")
    assert out[0].details["screened"]["pairs_screened"] == 47


def test_ties_are_broken_by_the_outcome_not_by_the_hash_seed():
    # the order of a set of bytes follows the process's hash seed (20 tied outcomes come out sorted by chance with
    # probability 1/20!): the screening's event, and so its numbers, must follow the run's seed only
    keys = [f"k{i:02d}".encode() for i in range(20)]
    _, event, x, y = screening.event_test(Counter(dict.fromkeys(keys, 5)), Counter(dict.fromkeys(keys, 1)), 1.0)
    assert event == sorted(keys) and (x, y) == (100, 20)


def classes_from_data(data, rng):
    """Noisy counts per class, the classes read from the data (``np.unique``: a domain inferred, as diffprivlib's
    ``GaussianNB`` reads its classes); a first draw whose range follows n (as its ``GeometricTruncated`` takes the
    dataset's size) makes every add/remove replay diverge at it, all alike."""
    x = np.clip(np.nan_to_num(np.asarray(data, dtype=float)).round(), 0, 2)
    rng.integers(0, len(x) + 1)
    classes = np.unique(x)
    counts = np.array([(x == c).sum() for c in classes], dtype=float)
    return {"classes": classes.tolist(), "counts": (counts + rng.laplace(0.0, 1.0, size=counts.size)).tolist()}


@pytest.mark.tier2
def test_a_continuous_release_of_another_structure_is_screened_and_refuted():
    """Removing the one record of class 2 removes a class from the release (another structure on every draw);
    every replay diverges alike, so the structural witness is the first pair (record 0 removed), whose releases have
    the same structure and a count moved by 1 (ε = 1 exactly: not refuted).  The structure screening names the
    separated pair, and the black box refutes on it (p ≤ α = 1e-6, seed 0).  Seen failing: before the structure
    screening, a continuous release was not screened and the run was undecided (exit 3)."""
    data = np.array([0, 0, 0, 1, 1, 1, 2.0])
    analysis = analyse(classes_from_data, data, "add-remove", (0, 2), (1.0, 0.0), 0)
    witness = analysis.worst(confirmable=True)
    assert witness is not None and witness.neighbour.name == "remove record 0 (the first)"
    found = screening.screen(classes_from_data, data, analysis.pairs, witness, 1.0, 0)
    assert found is not None and found.separated and found.worth and found.pair is not None
    assert 2.0 not in found.pair.neighbour.data, found.pair.neighbour.name
    assert found.counts == (0, screening.STRUCTURE_RELEASES)
    run = pdp_audit.audit_program(classes_from_data, data, 1.0, 0.0, bounds=(0, 2), trials=2000, alpha=ALPHA, seed=0)
    confirm = next(c for c in run.checks if c.id == "program-confirm")
    assert run.verdict == "fail" and confirm.pvalue <= ALPHA, confirm.note
    assert confirm.details["witness"] == found.pair.neighbour.name
    assert confirm.details["witness_found_by"].startswith("the statistical screening of ")


def _mis_scaled_sum(data, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 0.1)  # scale 0.1 for sensitivity 1: ε = 10, not 1


@pytest.mark.parametrize("share", [0.75, 0.4])
def test_a_screening_that_may_follow_keeps_the_level(monkeypatch, share):
    """The witness's confirmation is read at α/2 wherever a screening of other pairs could follow: at α, a p_W in
    (α/2, α] refuted outright, and a screening run only where p_W > α added its own α/2 (a correct program refuted
    with probability up to 1.5α).  Here the black box (one look: 1,000 releases at most) returns p_W = share·α: at
    0.75 the first test does not decide, the screening runs, and the p-value reported is 2·p_W (above α); at 0.4 the
    first decides, at 2·p_W."""
    from pdp_audit.audits.blackbox.evidence import BLACKBOX
    from pdp_audit.audits.program import audit
    from pdp_audit.audits.program.config import ProgramAuditConfig

    data = np.arange(6.0)
    analysis = analyse(_mis_scaled_sum, data, "add-remove", None, (1.0, 0.0), 0, 1)
    levels: list[float] = []

    def confirm(samplers, epsilon, delta, trials, seed, law, level=None):
        levels.append(level)
        return [Evidence(BLACKBOX, pvalue=share * ALPHA, note="stub", details={})]

    screened: list[bool] = []
    monkeypatch.setattr(audit.screening, "screen", lambda *a, **k: screened.append(True))
    target = (_mis_scaled_sum, data)
    config = ProgramAuditConfig(claim_epsilon=1.0, claim_delta=0.0, trials=1000, alpha=ALPHA, seed=0, target=target)
    out = audit._confirmation(analysis, target, config, confirm, None).checks
    assert screening.candidates(analysis.pairs, None)  # other pairs are left: a screening could follow
    assert levels == [ALPHA / 2]  # one look, read at α/2
    (check,) = [e for e in out if e.spec.id == "program-confirm"]
    assert check.pvalue == pytest.approx(2 * share * ALPHA)
    assert screened == ([True] if share > 0.5 else [])
