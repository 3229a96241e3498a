"""The black-box event test's fresh pass stopped once decided (pdp_audit.audits.blackbox.anytime, issue 43): its level
under every reading of the rounds, a fixed-n reading of the same rounds shown to fail that test, and the audit's
record of the releases drawn and why it stopped, the same on one process and on two."""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pytest
from scipy.stats import binom

import pdp_audit
from pdp_audit.audits.blackbox.anytime import FIRST_ROUND, GROWTH, AnytimeEventAttack, round_means
from pdp_audit.audits.blackbox.attack import PILOT_TRAIN, STAGED_FROM
from pdp_audit.audits.blackbox.events import Event, EventAttack
from pdp_audit.cli.main import main
from pdp_audit.reports.json_report import check_to_dict

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

#: Simulated passes per level test, at a loose level; a pass misses when some round's bound exceeds the true ε.
PASSES, LOOSE = 2000, 0.1
#: P(Binomial(PASSES, LOOSE) > ALLOWED) ≤ 1e-6: a valid reading (miss probability ≤ LOOSE a pass) fails w.p. ≤ 1e-6.
ALLOWED = int(binom.isf(1e-6, PASSES, LOOSE))
#: The simulated event: its rate in D' and the mechanism's true ε (the share of D in it is then exactly π(ε)).
RATE, EPSILON, HORIZON = 0.02, 0.5, 300_000.0


class Shift:
    """Laplace(1, 1) on D, Laplace(0, 1) on D' (ε = 1; module level: picklable for worker processes)."""

    def sample(self, world, size, rng):
        return rng.laplace(1.0 if world == "D" else 0.0, 1.0, size=(size, 1))


def test_round_means_sum_to_the_budget():
    means = round_means(1e6)
    assert means[0] == FIRST_ROUND and math.isclose(sum(means), 1e6)
    assert all(b == pytest.approx(a * GROWTH) for a, b in zip(means[:-2], means[1:-1]))
    assert round_means(50.0) == [50.0]


def _paths(seed: int, delta: float) -> np.ndarray:
    """Cumulative (A, B) after each round of PASSES simulated passes: the event's releases of D (those below e^ε Q,
    and the excess of mass δ, all in the event) and of D', Poisson in each round of :func:`round_means`."""
    rng = np.random.default_rng(seed)
    means = np.array(round_means(HORIZON))
    below = rng.poisson(means * RATE * math.exp(EPSILON), (PASSES, means.size))
    excess = rng.poisson(means * delta, (PASSES, means.size))
    against = rng.poisson(means * RATE, (PASSES, means.size))
    return np.cumsum(np.stack([below + excess, against], axis=-1), axis=1)


def _misses(paths: np.ndarray, delta: float, make) -> int:
    """Passes in which the bound at LOOSE exceeds the true ε after some round (what a stopping rule would take)."""
    event = (Event(0.0, True),)
    misses = 0
    for path in paths:
        for r, (hits_d, hits_dp) in enumerate(path):
            complete = r == len(path) - 1  # the last round: the whole budget drawn
            if make(event, int(hits_d), int(hits_dp), delta, complete).epsilon_lower_bound_at(LOOSE) > EPSILON:
                misses += 1
                break
    return misses


def _anytime(event, hits_d, hits_dp, delta, complete):
    looks = len(round_means(HORIZON))  # the rounds the pass reads: its level is split among them
    return AnytimeEventAttack(
        event, (hits_d,), (hits_dp,), 0, 0, delta, 1.0, 1.0, horizon=HORIZON, complete=complete, looks=looks
    )


def _fixed(event, hits_d, hits_dp, delta, complete):
    return EventAttack(event, (hits_d,), (hits_dp,), 0, 0, delta, HORIZON, HORIZON)


@pytest.mark.tier2(representatives=("0.0-1",))
@pytest.mark.parametrize("delta, seed", [(0.0, 1), (2e-4, 2)])
def test_the_bound_read_after_every_round_keeps_its_level(delta, seed):
    """At the boundary of the claim (the share of D exactly π(ε), plus an excess of mass δ at δ > 0), the
    bound (the exact test's after every round at the level split among the rounds, and at half the level after the
    last) exceeds ε after some round in at most LOOSE of the passes (false alarm ≤ 1e-6)."""
    assert _misses(_paths(seed, delta), delta, _anytime) <= ALLOWED


def test_the_fixed_n_bound_read_after_every_round_fails_the_same_test():
    """The broken reading: the exact (Clopper–Pearson) bound of the fixed pass, valid at one sample size, re-read
    after every round and taken the first time it exceeds ε, misses far more often than LOOSE."""
    assert _misses(_paths(1, 0.0), 0.0, _fixed) > ALLOWED


def _unsplit(event, hits_d, hits_dp, delta, complete):
    """The broken reading: every round read at the level of a pass read once (looks=1: half the level each time)."""
    return AnytimeEventAttack(event, (hits_d,), (hits_dp,), 0, 0, delta, 1.0, 1.0, horizon=HORIZON, complete=complete)


def test_every_round_read_at_the_level_of_one_reading_fails_the_same_test():
    """The level split among the rounds the budget allows is what keeps the reading after every round valid: without
    it (each round at half the level) a claim that holds is refuted after some round in more than LOOSE of the
    passes."""
    assert _misses(_paths(1, 0.0), 0.0, _unsplit) > ALLOWED


def _run(early_stop: bool, **budget):
    budget = pdp_audit.BlackBoxBudget(train_trials=20_000, early_stop=early_stop, **budget)
    return pdp_audit.audit_blackbox(Shift(), 0.5, 0.0, trials=400_000, seed=3, budget=budget)


@pytest.mark.tier2
def test_a_clear_violation_is_refuted_in_the_first_rounds():
    run = _run(True)
    check = run.checks[0]
    record = check.details["early_stop"]
    assert run.verdict == "fail" and record["stopped"] == "refuted"
    assert record["max_per_world"] == 400_000 and max(record["fresh_drawn"].values()) < 400_000 / 10
    assert "an anytime-valid bound" in check.note and "Poisson round" in check.note


@pytest.mark.tier2
def test_the_budget_stated_before_the_run_is_a_maximum(capsys):
    budget = pdp_audit.BlackBoxBudget(train_trials=20_000, early_stop=True, workers=1)
    pdp_audit.audit_blackbox(Shift(), 0.5, 0.0, trials=400_000, seed=3, progress=True, budget=budget)
    assert "at most these: the run stops once decided" in capsys.readouterr().err


def test_the_fixed_budget_run_records_nothing_new():
    """early_stop=False is the run as it was: no record of rounds, the whole budget drawn.  At a tenth of the budget
    of the tests above (a fixed run draws all of it: 11.1 CPU s at 400,000 under load, 2.4 at 40,000); at 40,000 the
    same run with early_stop=True records its rounds and says "anytime" (it stops refuted), so this still fails if
    the flag were ignored."""
    budget = pdp_audit.BlackBoxBudget(train_trials=20_000, early_stop=False)
    check = pdp_audit.audit_blackbox(Shift(), 0.5, 0.0, trials=40_000, seed=3, budget=budget).checks[0]
    assert "early_stop" not in check.details and "anytime" not in check.note


def test_a_large_budget_is_staged_behind_a_pilot():
    """From STAGED_FROM fresh releases a pilot attack runs first, at half the level: a clear violation is refuted by
    it alone; a claim it cannot refute (here one that holds) is decided by the full attack, at the other half."""
    budget = pdp_audit.BlackBoxBudget(early_stop=True, law="ideal")  # Shift: the real-valued Laplace
    run = pdp_audit.audit_blackbox(Shift(), 0.5, 0.0, trials=STAGED_FROM, seed=3, budget=budget)
    record = run.checks[0].details["early_stop"]
    assert run.verdict == "fail" and record["stage"] == "pilot" and record["stopped"] == "refuted"
    assert run.checks[0].details["train_per_world"] == PILOT_TRAIN and max(record["fresh_drawn"].values()) < 10_000
    run = pdp_audit.audit_blackbox(Shift(), 1.5, 0.0, trials=STAGED_FROM, seed=3, budget=budget)
    record = run.checks[0].details["early_stop"]
    assert run.verdict == "inconclusive" and record["stage"] == "full" and record["pilot_per_world"] > 0
    assert record["stopped"] == "within-claim"


def test_a_time_limit_stops_the_fresh_pass_after_a_round():
    """A limit that has passed when the first round is read: the run stops there and reports what it supports."""
    budget = pdp_audit.BlackBoxBudget(train_trials=20_000, time_limit=1e-9, law="ideal")
    run = pdp_audit.audit_blackbox(Shift(), 1.0, 0.0, trials=400_000, seed=3, budget=budget)  # ε = 1: undecided
    record = run.checks[0].details["early_stop"]
    assert run.verdict == "inconclusive" and record["stopped"] == "time-limit" and record["rounds"] == 1
    assert "at the time limit" in run.checks[0].note


def test_a_time_limit_out_of_range_is_one_line(capsys):
    argv = ["blackbox", "leaky_mech:leaky", "--claim-epsilon", "1", "--claim-delta", "0", "--time-limit", "0"]
    assert main(argv) == 2  # refused before the target is imported
    err = capsys.readouterr().err.strip()
    assert "--time-limit" in err and "> 0" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("flag", [["--early-stop"], ["--time-limit", "60"]])
@pytest.mark.parametrize("other", [["--search", "patterns"], ["--report", "r.pdf"]])
def test_stopping_flags_with_a_search_or_a_report_are_one_line(flag, other, capsys):
    """The search's and the report's attacks draw the whole budget (the witness re-counts it): refused, not ignored."""
    argv = ["blackbox", "leaky_mech:leaky", "--claim-epsilon", "1", "--claim-delta", "0", *flag, *other]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert flag[0] in err and len(err.splitlines()) == 1


#: End-to-end runs of a claim that holds exactly (Laplace(1) against Laplace(0) of scale 1 claimed 1-DP) at LOOSE,
#: and the refutations allowed: P(Binomial(RUNS, LOOSE) > this) ≤ 1e-6.
RUNS = 200
RUNS_ALLOWED = int(binom.isf(1e-6, RUNS, LOOSE))


@pytest.mark.slow  # 200 whole audits (training, selection and the stopped pass)
def test_a_claim_that_holds_is_refuted_at_most_at_its_level_end_to_end():
    """The whole pipeline stopped on what it sees -- the events chosen, the rounds read, the stop -- refutes a claim
    that holds exactly in at most LOOSE of the runs (false alarm ≤ 1e-6 by the binomial tail)."""
    budget = pdp_audit.BlackBoxBudget(train_trials=2_000, early_stop=True, workers=1, law="ideal")
    refuted = sum(
        pdp_audit.audit_blackbox(Shift(), 1.0, 0.0, trials=20_000, seed=seed, alpha=LOOSE, budget=budget).verdict
        == "fail"
        for seed in range(RUNS)
    )
    assert refuted <= RUNS_ALLOWED


@pytest.mark.slow  # worker processes start slowly on a loaded machine; the streams are keyed by round and block
def test_worker_processes_give_the_numbers_of_one_process():
    one = json.dumps(check_to_dict(_run(True).checks[0]), sort_keys=True)
    assert json.dumps(check_to_dict(_run(True, workers=2).checks[0]), sort_keys=True) == one


MODULE = textwrap.dedent(
    """
    import numpy as np

    class Leaky:
        def sample(self, world, size, rng):
            return rng.laplace(1.0 if world == "D" else 0.0, 1.0, size=(size, 1))

    def leaky():
        return Leaky()
    """
)


@pytest.mark.tier2
def test_the_command_line_flag(tmp_path, monkeypatch):
    from pdp_audit.audits.blackbox.config import BlackBoxAuditConfig
    from pdp_audit.verify.core.config import options

    option = options(BlackBoxAuditConfig)["early_stop"]
    (tmp_path / "leaky_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "bb.json"
    # 40,000 fresh releases (200,000 before): the fixed-budget run draws them all (14.7 CPU s under load, 10.8 now)
    argv = ["blackbox", "leaky_mech:leaky", "--claim-epsilon", "0.5", "--claim-delta", "0", "--trials", "40000"]
    argv += ["--train-trials", "20000", "--workers", "1", "--json", str(out)]
    assert main(argv + ([] if option.default else [option.cli_flag])) == 1
    details = json.loads(out.read_text())["check"]["details"]
    assert details["early_stop"]["stopped"] == "refuted"
    assert main(argv + ([option.cli_flag] if option.default else [])) == 1
    assert "early_stop" not in json.loads(out.read_text())["check"]["details"]
