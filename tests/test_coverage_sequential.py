"""The coverage check drawn in looks (pdp_audit.verify.evidence.coverage_sequential): its anytime p-value against
the beta functions computed by mpmath, its agreement with the confidence sequence's interval, its false-alarm
probability at the least favourable true claim over every look at once, a fixed-n test re-read after every look shown
to fail the same test, and the pass itself: stopped early on a clear answer, drawn to the budget on a tight one."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

from pdp_audit.verify.core.checks import CheckSpec, finalize
from pdp_audit.verify.estimators.confidence_sequences import binomial_sequence
from pdp_audit.verify.estimators.coverage import Coverage
from pdp_audit.verify.estimators.stats import binomial_pvalue_exceeds
from pdp_audit.verify.evidence.coverage_sequential import (
    PRIOR_WEIGHT,
    anytime_coverage_check,
    anytime_pvalue,
    coverage_prior,
    sequential_coverage_check,
)
from pdp_audit.verify.evidence.pair_sequential import Stopping, looks

SPEC = CheckSpec("coverage", "Bound", "holds w.p. ≥ 1 − ρ", "P[fails] ≤ ρ", "test")
#: Sequences per false-alarm run, the loose level they are read at, the budget whose looks they are read at.
SEQUENCES, LOOSE, BUDGET = 2000, 0.1, 100_000
#: False alarms allowed: P(Binomial(SEQUENCES, LOOSE) > ALLOWED) ≤ 1e-6, so a valid sequential test (false-alarm
#: probability ≤ LOOSE per sequence, the sequences independent) fails this test with probability ≤ 1e-6.
ALLOWED = int(binom.isf(1e-6, SEQUENCES, LOOSE))


@pytest.mark.parametrize("failures, trials, rho", [(3, 10, 0.1), (9, 40, 0.05), (30, 200, 0.1), (120, 1000, 0.08)])
def test_pvalue_against_mpmath_beta_functions(failures, trials, rho):
    """1/M_n(ρ) with M_n = B(a + f, b + n − f) / (B(a, b) ρ^f (1 − ρ)^(n−f)), a = κρ, b = κ(1 − ρ), the beta
    functions by mpmath at 40 digits; the terms are O(n) in log, so a relative tolerance of 1e-9 is far above the
    rounding of either side."""
    mpmath.mp.dps = 40
    f, s, rate = mpmath.mpf(failures), mpmath.mpf(trials - failures), mpmath.mpf(rho)
    a, b = PRIOR_WEIGHT * rate, PRIOR_WEIGHT * (1 - rate)
    martingale = mpmath.beta(a + f, b + s) / (mpmath.beta(a, b) * rate**f * (1 - rate) ** s)
    assert failures > trials * rho
    assert anytime_pvalue(failures, trials, rho) == pytest.approx(float(min(1, 1 / martingale)), rel=1e-9)


def test_pvalue_is_one_at_or_below_the_claim():
    assert anytime_pvalue(5, 100, 0.05) == 1.0
    assert anytime_pvalue(0, 100, 0.05) == 1.0
    assert anytime_pvalue(0, 0, 0.05) == 1.0


@pytest.mark.parametrize("failures, trials", [(12, 100), (80, 1000), (700, 10_000), (5300, 100_000)])
@pytest.mark.parametrize("alpha", [1e-6, 1e-3, 0.1])
def test_refutation_agrees_with_the_interval(failures, trials, alpha):
    """P_n ≤ a exactly where the sequence's lower end at a lies above ρ (up to the ends' outward rounding): the
    p-value Holm reads and the interval the report prints tell one story."""
    rho = 0.05
    lo, _ = binomial_sequence(failures, trials, alpha, coverage_prior(rho))
    if abs(lo - rho) > 1e-6 * rho:
        assert (anytime_pvalue(failures, trials, rho) <= alpha) == (lo > rho)


def _looked_counts(p: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The failure counts of SEQUENCES independent Bernoulli(p) runs at every look of BUDGET (rows: runs)."""
    sizes = np.array(looks(BUDGET))
    steps = np.diff(sizes, prepend=0)
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.binomial(steps, p, size=(SEQUENCES, steps.size)), axis=1), sizes


def _false_alarms(pvalue, p: float, rho: float, seed: int) -> int:
    """Runs refuted at LOOSE at any look: those that a pass stopping at its first refutation would report failed."""
    counts, sizes = _looked_counts(p, seed)
    return sum(any(pvalue(int(f), int(n), rho) <= LOOSE for f, n in zip(row, sizes)) for row in counts)


@pytest.mark.parametrize("p, rho, seed", [(0.05, 0.05, 1), (0.01, 0.01, 2), (0.03, 0.05, 3)])
def test_false_alarms_over_every_look(p, rho, seed):
    """A true claim (p = ρ, the least favourable, and one below) read at every look of a 1e5 budget: at most LOOSE
    of the runs ever refuted (false-alarm probability of this test ≤ 1e-6, ALLOWED)."""
    assert _false_alarms(anytime_pvalue, p, rho, seed) <= ALLOWED


@pytest.mark.tier2
def test_fixed_n_test_re_read_after_every_look_fails_the_false_alarm_test():
    """The broken version: the exact binomial test of the fixed pass (Clopper–Pearson's), re-read after every look and
    stopped at its first refutation, refutes a true claim far more often than LOOSE: the same test rejects it."""
    assert _false_alarms(binomial_pvalue_exceeds, 0.05, 0.05, 1) > ALLOWED


def test_holm_decides_as_the_pvalue_and_the_interval_say():
    fail = finalize([anytime_coverage_check(SPEC, Coverage(400, 2048, 0.05))], 1e-6)[0]
    passed = finalize([anytime_coverage_check(SPEC, Coverage(40, 4096, 0.05))], 1e-6)[0]
    tight = finalize([anytime_coverage_check(SPEC, Coverage(102, 2048, 0.05))], 1e-6)[0]
    assert (fail.verdict, passed.verdict, tight.verdict) == ("fail", "pass", "inconclusive")
    assert fail.details["interval"].startswith("beta-binomial mixture")


def _bernoulli(p: float):
    def holds(size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.random(size) >= p

    return holds


def test_pass_stops_at_the_first_deciding_look_and_is_reproducible():
    stop = Stopping(1e-6)
    broken = sequential_coverage_check(SPEC, _bernoulli(0.2), 0.05, (100_000, 7, "t"), stop)
    correct = sequential_coverage_check(SPEC, _bernoulli(0.02), 0.05, (100_000, 7, "t"), stop)
    again = sequential_coverage_check(SPEC, _bernoulli(0.02), 0.05, (100_000, 7, "t"), stop)
    assert broken.details["early_stop"] == {
        "drawn_per_world": 2048,
        "max_per_world": 100_000,
        "looks": 1,
        "of_looks": len(looks(100_000)),
        "stopped": "failed",
        "level_share": 1.0,
    }
    assert correct.details["early_stop"]["stopped"] == "passed"
    assert correct.details["early_stop"]["drawn_per_world"] <= 10_000
    assert (again.details, again.pvalue) == (correct.details, correct.pvalue)
    assert finalize([correct], 1e-6)[0].verdict == "pass"


def test_tight_claim_draws_the_whole_budget():
    """At p = ρ nothing decides: every look is drawn, the check reports the budget and stays inconclusive."""
    check = sequential_coverage_check(SPEC, _bernoulli(0.05), 0.05, (20_000, 3, "t"), Stopping(1e-6))
    assert check.details["early_stop"]["stopped"] == "budget"
    assert check.details["trials"] == check.details["early_stop"]["drawn_per_world"] == 20_000
    assert finalize([check], 1e-6)[0].verdict == "inconclusive"


def test_no_early_stop_draws_to_the_budget():
    check = sequential_coverage_check(SPEC, _bernoulli(0.2), 0.05, (20_000, 3, "t"), Stopping(1e-6, None, False))
    assert check.details["early_stop"]["stopped"] == "budget"
    assert math.isclose(check.estimate, check.details["failures"] / 20_000)


def test_mutant_zoo_coverage_cases_stop_early_and_stay_caught():
    """The zoo's coverage mutants still fail and their twins still pass with early stopping, each in at most a tenth
    of the budget (the issue's goal for the zoo)."""
    from pdp_audit import mutant_runs as runs
    from pdp_audit import mutants as zoo

    for mutant in (m for m in zoo.MUTANTS if m.expected == ("coverage",)):
        outcome = runs.run_mutant(mutant, runs.TRIALS, 0, 1e-6, early_stop=True)
        assert (outcome.verdict, outcome.twin_verdict) == ("fail", "pass")
        assert max(outcome.drawn.values()) <= runs.TRIALS / 10
