"""`pdp_audit.audit_coverage` stops a sampler's draws once decided (issue 43): looks read by the beta-binomial
mixture confidence sequence (verify/evidence/coverage_sequential.py), the budget a maximum, the draws used and why
it stopped recorded; `early_stop=False` the exact binomial test of the whole budget, byte for byte the run of the
versions before.

Each statistical test below has a fixed seed and is decided at α = 1e-6, the run's false-alarm probability: a
correct interval fails it with probability at most 1e-6 (Ville's inequality at every look at once), and a
deliberately broken one -- an interval that undercovers tenfold -- is shown to fail."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import pdp_audit
from pdp_audit.audits.coverage.evidence import STREAM, sampler_work
from pdp_audit.verify.core.checks import CheckSpec
from pdp_audit.verify.estimators.coverage import coverage_of
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.user_audits import decided

ALPHA, RHO, BUDGET, SEED = 1e-6, 0.01, 200_000, 11


def interval_covers(level: float):
    """A vectorised sampler of "the z-interval of the mean of 20 N(μ, 1) draws at ``level`` covers μ": it covers with
    probability ``level`` exactly (σ known)."""
    z = float(stats.norm.isf((1 - level) / 2))

    def holds(size: int, rng: np.random.Generator) -> np.ndarray:
        means = rng.standard_normal((size, 20)).mean(axis=1) + 3.0
        return np.abs(means - 3.0) <= z / np.sqrt(20)

    return holds


def test_a_correct_interval_passes_early():
    """A 99.9% interval claimed at 99% (ρ = 0.01, true failure 0.001) passes at α = 1e-6 in a tenth of the budget."""
    run = pdp_audit.audit_coverage(interval_covers(0.999), RHO, trials=BUDGET, seed=SEED, alpha=ALPHA)
    stopped = run.checks[0].details["early_stop"]
    assert run.verdict == "pass"
    assert stopped["stopped"] == "passed" and stopped["max_per_world"] == BUDGET
    assert stopped["drawn_per_world"] <= BUDGET // 10
    assert run.checks[0].details["trials"] == stopped["drawn_per_world"]
    assert run.parameters["early_stop"] is True and run.parameters["trials"] == BUDGET


def test_a_broken_interval_fails():
    """A 90% interval claimed at 99% (true failure 0.1, ten times ρ) is refuted at α = 1e-6, at the first look."""
    run = pdp_audit.audit_coverage(interval_covers(0.90), RHO, trials=BUDGET, seed=SEED, alpha=ALPHA)
    stopped = run.checks[0].details["early_stop"]
    assert run.verdict == "fail" and stopped["stopped"] == "failed"
    assert stopped["drawn_per_world"] == 2048


def test_a_tight_claim_draws_the_whole_budget():
    """At the claim's own rate nothing decides: every look drawn, the check inconclusive."""
    run = pdp_audit.audit_coverage(interval_covers(0.99), RHO, trials=20_000, seed=SEED, alpha=ALPHA)
    assert run.verdict == "inconclusive"
    assert run.checks[0].details["early_stop"]["stopped"] == "budget"
    assert run.checks[0].details["trials"] == 20_000


def _written(run, path) -> bytes:
    pdp_audit.write_report(run, json=str(path))
    return path.read_bytes()


def test_the_same_seed_gives_the_same_run(tmp_path):
    first = pdp_audit.audit_coverage(interval_covers(0.999), RHO, trials=BUDGET, seed=SEED, alpha=ALPHA)
    again = pdp_audit.audit_coverage(interval_covers(0.999), RHO, trials=BUDGET, seed=SEED, alpha=ALPHA)
    assert _written(first, tmp_path / "first.json") == _written(again, tmp_path / "again.json")


@pytest.mark.parametrize(
    "holds, rho, trials",
    [(interval_covers(0.999), RHO, 20_000), (interval_covers(0.90), RHO, 5_000), (interval_covers(0.99), RHO, 3_000)],
)
def test_no_early_stop_is_the_run_of_the_versions_before(tmp_path, holds, rho, trials):
    """`early_stop=False`: the exact binomial test of every draw of the stream the versions before drew, its JSON
    byte for byte that run's (rebuilt here from its parts: the block engine's draws, Clopper-Pearson, the run)."""
    run = pdp_audit.audit_coverage(holds, rho, trials=trials, seed=SEED, alpha=ALPHA, early_stop=False)
    outcomes = run_blocks(sampler_work(holds), trials, SEED, STREAM).astype(bool)
    spec = CheckSpec(
        "coverage",
        "High-probability bound",
        f"The event holds with probability ≥ 1 − ρ (ρ = {rho:g})",
        "P[event fails] ≤ ρ",
        "user claim",
    )
    check = builders.coverage_check(spec, coverage_of(outcomes, rho))
    before = decided("holds", [check], ALPHA, {"claim": "coverage", "rho": rho, "trials": trials}, SEED)
    assert "early_stop" not in run.checks[0].details and "early_stop" not in run.parameters
    assert _written(run, tmp_path / "now.json") == _written(before, tmp_path / "before.json")


def test_an_array_of_outcomes_is_read_as_before(tmp_path):
    """Outcomes already drawn: nothing to stop; the exact test whatever early_stop says."""
    outcomes = np.arange(1000) % 50 != 0
    default = pdp_audit.audit_coverage(outcomes, 0.05)
    fixed = pdp_audit.audit_coverage(outcomes, 0.05, early_stop=False)
    assert _written(default, tmp_path / "default.json") == _written(fixed, tmp_path / "fixed.json")
    assert "early_stop" not in default.parameters


def test_early_stop_must_be_a_boolean():
    with pytest.raises(pdp_audit.InputError, match=r"^early_stop must be True or False, got 'no'$"):
        pdp_audit.audit_coverage(interval_covers(0.999), RHO, early_stop="no")


def _slowly(holds):
    """``holds`` at a fixed pace (a sampler slow enough that a time limit, not the budget, ends its looks)."""
    import time

    def slow(size: int, rng: np.random.Generator) -> np.ndarray:
        time.sleep(0.02)
        return holds(size, rng)

    return slow


@pytest.mark.parametrize("early_stop", [True, False])
def test_a_time_limit_ends_the_looks_and_reports_what_they_support(early_stop):
    """``time_limit=`` stops a sampler's looks once the seconds have passed, whatever ``early_stop`` says; a claim
    exactly tight stays inconclusive (nothing wrong passes), and the run says why it stopped and that it had a
    limit."""
    run = pdp_audit.audit_coverage(
        _slowly(interval_covers(0.99)), RHO, trials=10**8, seed=SEED, alpha=ALPHA, early_stop=early_stop, time_limit=0.3
    )
    stopped = run.checks[0].details["early_stop"]
    assert stopped["stopped"] == "time-limit" and stopped["drawn_per_world"] < 10**8
    assert run.verdict == "inconclusive" and run.parameters["time_limit"] == 0.3


def test_a_broken_interval_still_fails_under_a_time_limit():
    """An interval that undercovers tenfold (90% claimed at 99%) fails at its first look, before any deadline."""
    run = pdp_audit.audit_coverage(
        _slowly(interval_covers(0.90)), RHO, trials=10**8, seed=SEED, alpha=ALPHA, time_limit=60.0
    )
    assert run.verdict == "fail" and run.checks[0].details["early_stop"]["stopped"] == "failed"


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "soon"])
def test_a_bad_time_limit_is_one_line_naming_the_range(bad):
    with pytest.raises(pdp_audit.InputError, match=r"^time_limit must be a finite number > 0"):
        pdp_audit.audit_coverage(interval_covers(0.99), RHO, time_limit=bad)
