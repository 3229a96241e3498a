"""The pair audit's sequential main pass (issue 43, :mod:`pdp_audit.verify.evidence.pair_sequential`): the looks and
their shares of the level keep the false-alarm probability whenever the run stops, a clear answer stops early, and the
record says how many draws were used and why."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import pdp_audit
from pdp_audit.cli.main import main
from pdp_audit.mutants import gaussian
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize
from pdp_audit.verify.evidence import pair_sequential as sequential
from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks

from .user_pairs import ShiftedGaussian

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
pytest_plugins = ["pytester"]


def json_report(run) -> str:
    from pdp_audit.reports.json_report import dumps

    return dumps(run)


SPEC = CheckSpec("rate", "A rate at most p0", "", "", "")


def test_the_schedule_ends_at_the_budget_and_its_shares_sum_to_one():
    sizes = sequential.looks(100_000)
    assert sizes[0] == sequential.FIRST_LOOK and sizes[-1] == 100_000
    assert all(b > a for a, b in zip(sizes, sizes[1:]))
    early = [n for n in sizes if n < sequential.pass_from(100_000)]
    assert all(b == math.ceil(a * sequential.GROWTH) for a, b in zip(early, early[1:]))
    # from the floor on, fixed fractions of the budget: a pass stopped at the third drew at most a third of it
    assert sizes[len(early) :] == (20_000, 25_000, 33_333, 50_000, 75_000, 100_000)
    assert sequential.looks(40_000)[-6:] == (8_000, 10_000, 13_333, 20_000, 30_000, 40_000)
    assert sequential.looks(1_000) == (1_000,)
    for count in (1, 2, len(sizes)):
        shares = sequential.look_shares(count)
        assert len(shares) == count and math.isclose(sum(shares), 1.0)
    assert sequential.look_shares(len(sizes))[-1] == sequential.FINAL_SHARE


def _false_fails(share_of, runs: int, alpha: float, seed: int) -> int:
    """Runs (of ``runs``) that refute "rate ≤ p0" with draws of rate exactly p0, read after every look of the
    default schedule through :func:`pair_sequential.at_look` at the share ``share_of(r, K)`` and stopped at the first
    refutation: the exact binomial p-value of the draws so far, decided as a one-check family (p ≤ α)."""
    rng = np.random.default_rng(seed)
    p0, sizes = 0.01, sequential.looks(100_000)
    counts, drawn = np.zeros(runs, dtype=np.int64), 0
    refuted = np.zeros(runs, dtype=bool)
    for r, size in enumerate(sizes):
        counts += rng.binomial(size - drawn, p0, size=runs)
        drawn = size
        pvalues = stats.binom.sf(counts - 1, size, p0)
        share = share_of(r, len(sizes))
        read = np.array([sequential.at_look(Evidence(SPEC, pvalue=float(p)), share).pvalue for p in pvalues])
        refuted |= read <= alpha
    return int(refuted.sum())


RUNS, ALPHA = 4_000, 0.05
#: The most false alarms a procedure of level ALPHA gives in RUNS runs except with probability ≤ 1e-6.
MOST = int(stats.binom.isf(1e-6, RUNS, ALPHA))


def test_reading_every_look_at_its_share_keeps_alpha_and_the_fixed_n_reading_does_not():
    """Each run's false-alarm probability is at most ALPHA (the union bound over the looks), so more than MOST of
    RUNS independent runs refuting has probability ≤ 1e-6 (fixed seed).  The broken reading -- the fixed-n p-value
    re-read at the full α after every look -- exceeds MOST on the same draws: the test catches it."""
    valid = _false_fails(lambda r, k: sequential.look_shares(k)[r], RUNS, ALPHA, seed=43)
    broken = _false_fails(lambda r, k: 1.0, RUNS, ALPHA, seed=43)
    assert valid <= MOST, (valid, MOST)
    assert broken > MOST, (broken, MOST)


def test_a_look_reads_pvalues_and_intervals_at_its_share():
    e = Evidence(SPEC, pvalue=0.01, interval=lambda a: (a, 1 - a))
    read = sequential.at_look(e, 0.05)
    assert read.pvalue == pytest.approx(0.2) and read.interval(0.1) == pytest.approx((0.005, 0.995))
    assert sequential.at_look(Evidence(SPEC, pvalue=0.5), 0.05).pvalue == 1.0
    exact = Evidence(SPEC, verdict="pass")
    assert sequential.at_look(exact, 0.05) is exact


def test_a_pass_stops_only_from_the_floor_and_a_fail_at_any_look():
    stop = sequential.Stopping(1e-6)
    passing = [Evidence(SPEC, pvalue=1.0, interval=lambda a: (0.0, 0.0), supports=lambda ci, a: True)]
    failing = [Evidence(SPEC, pvalue=1e-12, interval=lambda a: (0.0, 0.0), supports=lambda ci, a: True)]
    floor = math.ceil(sequential.PASS_FLOOR * 100_000)
    assert sequential.stopped(passing, 1.0, stop, floor - 1, 100_000) is None
    assert sequential.stopped(passing, 1.0, stop, floor, 100_000) == "passed"
    assert sequential.stopped(failing, 1.0, stop, sequential.FIRST_LOOK, 100_000) == "failed"
    assert sequential.stopped(passing, 1.0, sequential.Stopping(1e-6, early_stop=False), 100_000, 100_000) == "budget"


def test_a_pass_stops_only_where_the_guards_clear_the_gate():
    """The gate (module notes, "The pass gate"): a guarding check's fixed-n p-value under g_r keeps a passing look
    drawing on; g_r falls with the draws, and a check that is no guard never holds a pass back."""
    stop, trials = sequential.Stopping(1e-6), 100_000
    gates = [sequential.pass_gate(stop, n, trials) for n in (23_328, 52_488, 78_732)]
    assert gates == sorted(gates, reverse=True) and 0.4 < gates[0] < 0.6 and gates[-1] < 0.05
    guard = CheckSpec("loss-consistency", "t", "c", "f", "s")

    def look(pvalue, spec=guard):
        return [Evidence(spec, pvalue=pvalue, interval=lambda a: (0.0, 0.0), supports=lambda ci, a: True)]

    assert sequential.stopped(look(gates[1] / 2), 1.0, stop, 52_488, trials) is None
    assert sequential.stopped(look(gates[1] * 2), 1.0, stop, 52_488, trials) == "passed"
    assert sequential.stopped(look(gates[1] / 2, SPEC), 1.0, stop, 52_488, trials) == "passed"


def test_a_guard_of_capped_draws_is_gated_by_its_own():
    """The noise view compares at most VIEW_SAMPLES releases a world: at 20,000 of 1e5 draws it has 40% of the
    fixed pass's 50,000 (not 20%), so its gate is that of 20,000 of 50,000 -- lower; from 50,000 on it is the fixed
    pass's check, and its gate the budget's own.  loss-consistency, uncapped, keeps the gate of 20,000 of 1e5."""
    stop, trials, cap = sequential.Stopping(1e-6), 100_000, {"noise-view": 50_000}
    view, loss = (CheckSpec(name, "t", "c", "f", "s") for name in ("noise-view", "loss-consistency"))
    own, plain = sequential.pass_gate(stop, 20_000, 50_000), sequential.pass_gate(stop, 20_000, trials)
    assert own < plain / 2

    def look(pvalue, spec):
        return [Evidence(spec, pvalue=pvalue, interval=lambda a: (0.0, 0.0), supports=lambda ci, a: True)]

    between = (own + plain) / 2
    assert sequential.stopped(look(between, view), 1.0, stop, 20_000, trials, cap) == "passed"
    assert sequential.stopped(look(between, view), 1.0, stop, 20_000, trials) is None
    assert sequential.stopped(look(between, loss), 1.0, stop, 20_000, trials, cap) is None
    assert sequential.stopped(look(own / 2, view), 1.0, stop, 20_000, trials, cap) is None
    full = sequential.pass_gate(stop, trials, trials)
    assert sequential.stopped(look(full * 2, view), 1.0, stop, 75_000, trials, cap) == "passed"


def test_a_clipped_loss_the_fixed_pass_refutes_is_refuted_by_default_and_passed_without_the_gate(monkeypatch):
    """A loss clipped at 2 (its sampler's true δ(2.5) ten times the claimed 1e-3): the default stopped pass keeps
    drawing past the fifth of the budget, where loss-consistency is not yet significant but under the gate, and
    refutes it; with the gate broken (a margin so large that every p-value clears it) the pass stops at 25,000 draws
    (a quarter of the budget) and certifies it -- the failure this test exists to catch."""
    from pdp_audit.mechanisms.gaussian import analytic_delta, analytic_sigma
    from pdp_audit.mechanisms.mutant_pairs import Shift

    sigma = analytic_sigma(2.5, 1e-2)
    assert analytic_delta(2.5, sigma) > 5.9e-3
    run = pdp_audit.audit_pair(
        Shift(sigma, clip=2.0), 2.5, 1e-3, trials=pdp_audit.PairBudget(100_000, law="ideal"), seed=0
    )
    assert run.verdict == "fail" and {c.id: c.verdict for c in run.checks}["loss-consistency"] == "fail"
    monkeypatch.setattr(sequential, "GATE_MARGIN", -100.0)
    run = pdp_audit.audit_pair(
        Shift(sigma, clip=2.0), 2.5, 1e-3, trials=pdp_audit.PairBudget(100_000, law="ideal"), seed=0
    )
    assert run.verdict == "pass" and run.checks[0].details["early_stop"]["drawn_per_world"] == 25_000


def test_a_pass_in_a_larger_family_stops_at_the_level_that_family_judges_it_at():
    """A pass of 4 checks whose run decides them among 16 others (a certificate's 4 individuals): its intervals are
    read at α/20, not α/4 -- one supported at α/4 and not at α/20 does not stop the pass as ``passed``; a p-value
    Holm over the 20 rejects (≤ α/20) stops it ``failed``, one only Holm over 4 rejects does not."""
    alpha = 1e-6

    def checks(pvalue=1.0, edge=alpha / 10):  # the interval inside the claim (supports) at level a iff a ≥ edge
        supports = lambda ci, a: a >= edge  # noqa: E731
        return [Evidence(SPEC, pvalue=p, interval=lambda a: (0.0, a), supports=supports) for p in (pvalue, 1, 1, 1)]

    alone, among = sequential.Stopping(alpha), sequential.Stopping(alpha, others=16)
    assert among.level(4) == pytest.approx(alpha / 5) and alone.level(4) == alpha and among.level(0) == alpha
    assert sequential.stopped(checks(), 1.0, alone, 100_000, 100_000) == "passed"
    assert sequential.stopped(checks(), 1.0, among, 50_000, 100_000) is None
    assert sequential.stopped(checks(edge=alpha / 25), 1.0, among, 50_000, 100_000) == "passed"
    assert sequential.stopped(checks(pvalue=alpha / 8), 1.0, alone, 50_000, 100_000) == "failed"
    assert sequential.stopped(checks(pvalue=alpha / 8), 1.0, among, 50_000, 100_000) is None
    assert sequential.stopped(checks(pvalue=alpha / 25), 1.0, among, 50_000, 100_000) == "failed"


#: A user's Gaussian with its noise view (the package's GaussianPair) at ``factor`` times the σ that (1, 1e-5) needs,
#: and ``individuals`` copies of it as its per-instance pairs.
INDIVIDUALS = """
import functools

import numpy as np
from pdp_audit.mechanisms.gaussian import GaussianPair, analytic_sigma

# the suite's own Gaussian pair (its sample() is its law by construction, so its view's bound stands; a subclass of
# the user's would be bounded by the replay's rate), given the per-instance individuals on the instance
def pair(factor):
    return GaussianPair(np.zeros(1), np.ones(1), factor * analytic_sigma(1.0, 1e-5))

def rows(factor, n):
    for row in range(n):
        yield f"row-{row + 1}", pair(factor)

def make(data, factor=1.0, individuals=0):
    whole = pair(factor)
    whole.per_instance = functools.partial(rows, factor, individuals)
    return whole
"""


@pytest.mark.tier2
def test_a_certificates_individuals_never_turn_a_stopped_pass_inconclusive(tmp_path):
    """Issue 43's wrinkle: each pass of a certificate with individuals stopped on its own 4 checks (Holm at α), the
    certificate decides all 20 as one family (α/20 a check).  At 1.007× the needed σ every pass stopped ``passed`` at
    10,368 draws a world and the certificate ended INCONCLUSIVE (exit 3, dp-reverse; seed 0).  Read at the family's
    level, a pass stops only where the certificate's verdict is the one it stopped on."""
    from tests.test_certify_own import certify, project

    toml = project(tmp_path, module=INDIVIDUALS, parameters="factor = 1.007\nindividuals = 4", delta="1e-5")
    toml.write_text(toml.read_text(encoding="utf-8") + 'law = "ideal"\n', encoding="utf-8")  # [audit]: a float Gaussian
    code, document = certify(toml)
    stopped = {c["details"]["early_stop"]["stopped"] for c in document["checks"]}
    assert len(document["checks"]) == 20 and stopped <= {"passed", "budget"}, stopped
    assert code == 0 and {c["verdict"] for c in document["checks"]} == {"pass"}


def _audit(pair, claim: tuple, stop, trials: int = 100_000, seed: int = 0):
    evidence = validated_dp_checks(pair, *claim, trials, seed, False, drawing=MainPass(stop=stop, law="ideal"))
    return finalize(evidence, 1e-6)


def test_a_plain_gaussian_at_twice_its_sigma_passes_by_a_third_of_the_budget():
    """Issue 43's goal on a pair without a noise view: σ = 2 × 2.5747, what (1, 1e-3) needs.  Plain draws bound δ by
    about log(1/a)/n at best; the empirical Bernstein bound's 7·log(2/a)/(3n), over a band of loss scales as wide as
    [0.52, 1.65], held it to 52,488 draws (0.52 of 1e5); the relative-entropy bounds a look reads pass it at 25,000
    or 33,333."""
    checks = _audit(ShiftedGaussian(2 * 2.5747), (1.0, 1e-3), sequential.Stopping(1e-6))
    record = checks[-1].details["early_stop"]
    assert {c.verdict for c in checks} == {"pass"} and record["stopped"] == "passed"
    assert record["drawn_per_world"] <= 100_000 / 3


def test_a_correct_gaussian_with_a_margin_passes_early_and_says_so():
    checks = _audit(gaussian(2 * 3.731), (1.0, 1e-5), sequential.Stopping(1e-6))  # σ twice what (1, 1e-5) needs
    assert {c.verdict for c in checks} == {"pass"}
    record = checks[-1].details["early_stop"]
    assert record["stopped"] == "passed" and record["drawn_per_world"] <= 100_000 / 3
    assert record["max_per_world"] == 100_000 and record["of_looks"] == len(sequential.looks(100_000))
    again = _audit(gaussian(2 * 3.731), (1.0, 1e-5), sequential.Stopping(1e-6))
    assert [(c.verdict, c.estimate, c.ci, c.pvalue) for c in again] == [
        (c.verdict, c.estimate, c.ci, c.pvalue) for c in checks
    ]


def test_a_clear_violation_fails_at_the_first_look():
    checks = _audit(gaussian(1.0), (1.0, 1e-3), sequential.Stopping(1e-6))  # δ(1) ≈ 0.13
    assert {c.id: c.verdict for c in checks}["dp-forward"] == "fail"
    record = checks[-1].details["early_stop"]
    assert record == {**record, "stopped": "failed", "looks": 1, "drawn_per_world": sequential.FIRST_LOOK}
    assert {c.id: c.verdict for c in checks}["loss-consistency"] == "inconclusive"  # stopped before its pilot


def test_a_passed_deadline_stops_after_the_first_look_and_reports_its_draws():
    stop = sequential.Stopping(1e-6, deadline=time.monotonic() - 1.0, early_stop=False)
    checks = _audit(gaussian(2 * 3.731), (1.0, 1e-5), stop)
    record = checks[-1].details["early_stop"]
    assert record["stopped"] == "time-limit" and record["drawn_per_world"] == sequential.FIRST_LOOK
    assert record["level_share"] == sequential.look_shares(record["of_looks"])[0]


def test_early_stopping_is_the_default_and_the_fixed_pass_is_asked_for():
    assert sequential.Stopping.of(1e-6, False, None) is None
    assert sequential.Stopping.of(1e-6, True, None) == sequential.Stopping(1e-6)
    assert "early_stop" not in _audit(gaussian(1.0), (1.0, 1e-3), None, trials=5_000)[-1].details
    assert pdp_audit.PairBudget().early_stop is True
    run = pdp_audit.audit_pair(gaussian(1.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"))
    assert run.parameters["early_stop"] is True and run.checks[-1].details["early_stop"]["stopped"] == "failed"
    fixed = pdp_audit.audit_pair(
        gaussian(1.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, early_stop=False, law="ideal")
    )
    assert "early_stop" not in fixed.parameters and "early_stop" not in fixed.checks[-1].details
    assert fixed.checks[0].details["draws_per_world"] == 5_000  # the whole budget, as before the default changed


# --- reached from the API, a deployment file and a sweep's keys: one config (audits/pair/config.py) ---------------
def test_audit_pair_takes_a_pair_budget_and_records_the_draws_it_used():
    run = pdp_audit.audit_pair(
        gaussian(2 * 3.731), 1.0, 1e-5, trials=pdp_audit.PairBudget(early_stop=True, law="ideal")
    )
    assert run.verdict == "pass" and run.parameters["early_stop"] is True and run.parameters["trials"] == 100_000
    record = run.checks[-1].details["early_stop"]
    assert record["stopped"] == "passed" and record["drawn_per_world"] < 100_000


def test_a_pair_budget_without_stopping_is_the_fixed_pass_byte_for_byte():
    """``early_stop=False`` is the pass of the versions before the default changed: the fixed pass's checks, decided
    as the run decides them (no record of looks), byte for byte; and a bare ``trials`` is the default budget's."""
    from pdp_audit.reports.records import Run

    fixed = pdp_audit.PairBudget(5_000, workers=1, early_stop=False, law="ideal")
    budget = pdp_audit.audit_pair(gaussian(1.0), 1.0, 1e-3, trials=fixed, seed=2)
    checks = _audit(gaussian(1.0), (1.0, 1e-3), None, trials=5_000, seed=2)
    assert [(c.id, c.verdict, c.estimate, c.ci, c.pvalue, c.details) for c in budget.checks] == [
        (c.id, c.verdict, c.estimate, c.ci, c.pvalue, c.details) for c in checks
    ]
    assert isinstance(budget, Run) and "early_stop" not in budget.parameters
    plain = pdp_audit.audit_pair(gaussian(1.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=2)
    default = pdp_audit.audit_pair(
        gaussian(1.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, workers=1, law="ideal"), seed=2
    )
    assert json_report(plain) == json_report(default)


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("workers", 0, "workers must be a whole number in [1, 256], got 0"),
        ("time_limit", 0.0, "time_limit must be a finite number > 0, got 0.0"),
        ("early_stop", "yes", "early_stop must be true or false, got 'yes'"),
        ("trials", 10, "trials must be a whole number in [100, 1e8], got 10"),
    ],
)
def test_a_pair_budget_is_checked_on_construction_in_one_line(field, value, words):
    with pytest.raises(pdp_audit.InputError) as error:
        pdp_audit.PairBudget(**{field: value})
    assert str(error.value) == words


def test_a_deployment_states_early_stop_and_time_limit_in_its_audit_table(tmp_path):
    from pdp_audit.audits.pair.config import OWN_OPTIONS, own_budget
    from pdp_audit.deployment import load_deployment

    assert {"early_stop", "time_limit", "workers"} <= set(OWN_OPTIONS)
    toml = tmp_path / "deploy.toml"
    text = 'mechanism = "mymod:make"\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n[audit]\nlaw = "ideal"\n'
    text += "early_stop = true\ntime_limit = "
    toml.write_text(text + "60\n", encoding="utf-8")
    budget = own_budget(load_deployment(str(toml)))
    assert budget.early_stop is True and budget.time_limit == 60.0 and budget.law == "ideal"
    toml.write_text(text + "-1\n", encoding="utf-8")
    with pytest.raises(pdp_audit.InputError, match="audit.time_limit must be a finite number > 0"):
        own_budget(load_deployment(str(toml)))


def test_certify_early_stop_and_time_limit_set_the_deployments_audit_table(tmp_path, capsys):
    """``pdp-audit certify`` (early stopping the default; ``--early-stop``, its spelling from before, still
    accepted): the user's Laplace histogram (pure claim, proven by its view) passes at a look before its 2e4 budget,
    and the certificate states the stopping; a built-in mechanism refuses the flags."""
    from tests.test_certify_own import certify, project

    code, document = certify(project(tmp_path / "user"), "--early-stop", "--time-limit", "600")
    assert code == 0 and document["certified"]["audit"] == {
        "trials": 20_000,
        "seed": 0,
        "alpha": 1e-6,
        "early_stop": True,
        "time_limit": 600.0,
        "law": "as-implemented",  # integer counts plus Laplace noise: no float porosity seen at this budget
    }
    record = document["checks"][-1]["details"]["early_stop"]
    assert record["stopped"] == "passed" and record["drawn_per_world"] < 20_000
    builtin = str(EXAMPLES / "deploy-gaussian.toml")
    assert main(["certify", builtin, "--report", "none", "--quiet", "--early-stop"]) == 2
    assert "--early-stop: only a user's mechanism" in capsys.readouterr().err
    assert main(["certify", builtin, "--report", "none", "--quiet", "--time-limit", "0"]) == 2
    assert "--time-limit must be a finite number > 0, got 0" in capsys.readouterr().err


@pytest.mark.tier2
def test_a_sampler_only_deployment_passes_early_stop_to_the_black_box(tmp_path):
    from tests.test_certify_own import BLACKBOX, certify, project

    code, document = certify(project(tmp_path, module=BLACKBOX, parameters="scale = 0.1"))
    assert code == 1 and document["certified"]["audit"]["early_stop"] is True
    assert document["checks"][0]["details"]["early_stop"]["stopped"] == "refuted"
    code, document = certify(project(tmp_path / "fixed", module=BLACKBOX, parameters="scale = 0.1"), "--no-early-stop")
    assert code == 1 and "early_stop" not in document["certified"]["audit"]
    assert "early_stop" not in document["checks"][0]["details"]


def test_the_zoo_with_early_stop_still_catches_and_records_the_draws(tmp_path, capsys):
    out = tmp_path / "zoo.json"
    assert main(["mutants", "--only", "noise-halved", "--json", str(out), "--quiet"]) == 0  # the default
    (row,) = json.loads(out.read_text(encoding="utf-8"))["mutants"]
    assert row["verdict"] == "fail" and row["twin_verdict"] == "pass" and row["trials"] == 100_000
    assert row["drawn_per_world"]["mutant"] == sequential.FIRST_LOOK and row["drawn_per_world"]["twin"] < 100_000


def test_a_stopped_pass_is_the_same_on_one_and_two_workers():
    runs = [
        pdp_audit.audit_pair(
            gaussian(2 * 3.731), 1.0, 1e-5, trials=pdp_audit.PairBudget(30_000, workers=w, early_stop=True, law="ideal")
        )
        for w in (1, 2)
    ]
    assert json_report(runs[0]) == json_report(runs[1])
    assert runs[0].checks[-1].details["early_stop"]["drawn_per_world"] < 30_000


PLUGIN_TESTS = """
import numpy as np
import pytest
from pdp_audit.mechanisms.gaussian import GaussianPair, analytic_sigma


@pytest.mark.audit
def test_correct(privacy_audit):
    pair = GaussianPair(np.zeros(1), np.ones(1), 2 * analytic_sigma(1.0, 1e-5))
    privacy_audit.assert_dp(pair, 1.0, 1e-5, law="ideal")


@pytest.mark.audit
def test_broken(privacy_audit):
    pair = GaussianPair(np.zeros(1), np.ones(1), analytic_sigma(1.0, 1e-5) / 5)
    privacy_audit.assert_dp(pair, 1.0, 1e-5, law="ideal")
"""


# The plugin's sessions below run in this process (runpytest_inprocess): what they test is an option's meaning and
# its default, not the process (the plugin as a user runs it in a subprocess: tests/test_pytest_plugin.py); each
# subprocess paid an interpreter and the imports, 1.5-2 CPU s.
def test_the_pytest_plugin_stops_its_white_box_assertions_by_default(pytester):
    pytester.makepyfile(test_user=PLUGIN_TESTS)
    result = pytester.runpytest_inprocess("-m", "audit", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*2,048 of at most 100,000 samples, failed*"])


def test_the_pytest_plugin_draws_the_whole_budget_with_audit_no_early_stop(pytester):
    pytester.makepyfile(test_user=PLUGIN_TESTS.replace("def test_correct", "def _correct"))
    result = pytester.runpytest_inprocess("-m", "audit", "--audit-no-early-stop", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*(100,000 samples, seed 0*"])
    assert "of at most" not in result.stdout.str()
    again = pytester.runpytest_inprocess("-m", "audit", "--audit-early-stop", "-p", "no:cacheprovider")
    again.stdout.fnmatch_lines(["*2,048 of at most 100,000 samples, failed*"])  # the spelling from before: the default


class _WrongScaleLoss:
    """N(1, σ²) against N(0, σ²) whose privacy_loss is 1.3 times the true one: the consistency test refutes it, at a
    look past its pilot (the screened reading's other branch: an event separated at the screen's level)."""

    output_dim = 1
    sigma = 4.0

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return 1.3 * (o**2 - (o - 1.0) ** 2) / (2 * self.sigma**2)


@pytest.mark.tier2(representatives=("<lambda>-claim0",))
@pytest.mark.parametrize("make, claim", [(lambda: gaussian(2 * 3.731), (1.0, 1e-5)), (_WrongScaleLoss, (1.0, 1e-3))])
def test_screened_looks_decide_and_report_as_the_full_reading(monkeypatch, make, claim):
    """The looks before the last read the consistency test screened at α·w (a placeholder p-value above it): the
    pass stops at the same look with the same numbers, byte for byte, as when every look is read in full."""
    from pdp_audit.verify.estimators.consistency_output import StreamedEventConsistency

    def shown(checks):
        return repr([(c.id, c.verdict, c.estimate, c.pvalue, c.ci, c.note, dict(c.details)) for c in checks])

    screened = _audit(make(), claim, sequential.Stopping(1e-6))
    full = StreamedEventConsistency.result
    monkeypatch.setattr(StreamedEventConsistency, "result", lambda self, screen=None: full(self))
    assert shown(_audit(make(), claim, sequential.Stopping(1e-6))) == shown(screened)
    record = screened[-1].details["early_stop"]
    assert record["looks"] > 1 and record["stopped"] in ("passed", "failed")


def test_event_pvalues_screened_are_exact_below_the_screen_and_placeholders_above():
    """event_pvalues(..., screen=a): the exact p-values bit for bit where some event is separated at a, else ones --
    and then every exact p-value exceeds 2a (what lets a reader compare them with any level up to 2a)."""
    from pdp_audit.verify.estimators.consistency_output import event_pvalues

    rng, seen = np.random.default_rng(5), {"screened": 0, "exact": 0}
    for _ in range(40):
        k, n = 6, int(rng.integers(2_000, 200_000))
        p = rng.uniform(0.01, 0.3, k)
        skew = np.ones(k)
        skew[0] = rng.choice([1.0, 1.03, 1.1, 1.5])  # consistent, or one event a little or much off
        count = rng.binomial(n, p).astype(float)
        members = rng.binomial(n, np.clip(p * skew, 0, 1)).astype(float)  # weights 1: the weighted mean is members/n
        freq = (count, np.full(k, float(n)))
        weighted = (members, members, members, np.full(k, float(n)), np.full(k, 0.999), np.ones(k))
        exact = event_pvalues(freq, weighted)
        for screen in (1e-12, 1e-7, 1e-3):
            got = event_pvalues(freq, weighted, screen)
            if np.all(got == 1.0) and not np.all(exact == 1.0):
                seen["screened"] += 1
                assert np.all(exact > 2 * screen)
            else:
                seen["exact"] += 1
                assert got.tobytes() == exact.tobytes()
    assert min(seen.values()) >= 10  # both branches, many times


def test_the_certificate_says_how_many_draws_a_stopped_pass_used():
    """The cover page of a run whose passes stopped early states the draws they used of the budget; a fixed pass
    (no record) says nothing, and the black box's record (fresh releases by world) is left to its own pages."""
    from pdp_audit.reports.cover import _draws_used

    def check(record):
        return Evidence(SPEC, verdict="pass", details={} if record is None else {"early_stop": record})

    stopped = sequential.record(52_488, 200_000, 9, 13, "passed")
    assert _draws_used([check(stopped), check(stopped)]).endswith("52,488 of at most 200,000 releases per world.")
    later = sequential.record(78_732, 200_000, 10, 13, "passed")
    assert "52,488 to 78,732 of at most 200,000" in _draws_used([check(stopped), check(later)])
    assert _draws_used([check(None)]) == ""
    assert _draws_used([check({"fresh_drawn": {"D": 5, "D'": 5}, "max_per_world": 10})]) == ""
