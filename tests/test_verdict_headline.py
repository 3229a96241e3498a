"""One verdict about the claim (issue 60, item 3): the exit code and the headline both say whether the user's
(ε, δ) is certified (0), refuted (1) or not decided (3), and on what a pass rests -- never "certified …; the claim
is not" (:mod:`pdp_audit.reports.certified_claim`, :func:`pdp_audit.verify.core.checks.make_run`).

Seeded runs at small budgets; the statistical checks run at the API's family-wise α = 1e-6.
"""

from __future__ import annotations

import json

import pytest

import pdp_audit
from pdp_audit.reports.certified_claim import certified_claim
from pdp_audit.reports.records import Check
from pdp_audit.reports.run_text import describe
from pdp_audit.verify.core.checks import make_run

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process


def test_a_tight_gaussian_holds_by_its_exact_delta_and_says_so():
    """The README's default run (σ calibrated exactly to (1, 1e-5)): the interval's upper end exceeds the claim, so
    the claim rests on the exact δ(1), which sampling confirms.  Before: "PASS: (1, 1.1e-05)-DP certified; the claim
    (1, 1e-05) is not" with exit code 0."""
    run = pdp_audit.run_audit("gaussian", trials=20_000)
    claim = certified_claim(run.checks)
    first = describe(run).splitlines()[0]
    assert run.exit_code == 0 and claim is not None and claim.basis == "exact" and claim.covers_claim
    assert max(c.ci[1] for c in run.checks if c.id.startswith("dp-")) > 1e-5  # sampling alone would not decide
    low, high = claim.interval
    assert "CERTIFIED: the claim (1, 1e-05)-DP holds by the exact δ(1) = 1.0000e-05; sampling confirms [" in first
    assert low <= claim.exact_delta <= high and "is not" not in first


def test_a_built_in_pure_claim_holds_by_its_exact_delta():
    run = pdp_audit.run_audit("laplace", trials=20_000)
    first = describe(run).splitlines()[0]
    assert run.exit_code == 0
    assert "CERTIFIED: the claim (1, 0)-DP holds by the exact δ(1) = 0; sampling confirms [0, " in first


def _dp_checks(upper: float, exact: float | None, verdict: str = "pass", note: str = "") -> list[Check]:
    return [
        Check(
            id,
            "t",
            "c",
            "f",
            "s",
            verdict,
            estimate=upper / 2,
            exact=exact,
            pvalue=1.0,
            ci=(0.0, upper),
            level=1 - 1e-6,
            note=note,
            details={"epsilon": 1.0, "delta_claim": 1e-5},
        )
        for id in ("dp-forward", "dp-reverse")
    ]


def test_a_pass_that_nothing_makes_hold_is_not_decided():
    """Checks that passed while their intervals exceed the claim and no closed form decides it: the run is not
    decided (exit 3) and names the (ε, δ̄) its evidence supports -- before, PASS with exit 0 and "the claim is not"."""
    checks = _dp_checks(1.2e-5, exact=None)
    run = make_run("toy", checks, 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    assert run.verdict == "inconclusive" and run.exit_code == 3
    first = describe(run).splitlines()[0]
    assert "UNDECIDED: the claim (1, 1e-05)-DP is not decided; the evidence supports (1, 1.2e-05)-DP" in first
    held = make_run("toy", _dp_checks(1.2e-5, exact=0.9e-5), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    assert held.exit_code == 0 and "holds by the exact δ(1) = 9.0000e-06" in describe(held)
    below = make_run("toy", _dp_checks(0.8e-5, exact=None), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    assert below.exit_code == 0 and describe(below).splitlines()[0].startswith(
        "pdp-audit: toy: CERTIFIED: (1, 8e-06)-DP"
    )


def test_an_undecided_claim_names_the_budget_that_would_decide_it():
    note = "About 3.6e+05 samples per world (now 2.0e+04) would decide it, if the estimates stay where they are."
    run = make_run("toy", _dp_checks(1.2e-3, None, "inconclusive", note), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    claim = certified_claim(run.checks)
    assert run.exit_code == 3 and not claim.covers_claim
    assert claim.text() == (
        "the claim (1, 1e-05)-DP is not decided; the evidence supports (1, 0.0012)-DP; about 3.6e+05 samples per world "
        "would decide it"
    )


@pytest.mark.parametrize("example", ["deploy-laplace-mean.toml", "deploy-joint.toml"])
def test_the_examples_headlines_read_one_way(tmp_path, capsys, example):
    """`pdp-audit certify` of the examples at 2e4 trials: the pure mean holds by the exact δ = 0 (exit 0), the joint
    release is not decided (exit 3) and names what its evidence supports and the budget -- neither says "certified"
    beside a claim it does not certify."""
    from pdp_audit.cli.main import main

    assert main(["examples", str(tmp_path / "ex")]) == 0
    toml = tmp_path / "ex" / example
    toml.write_text(toml.read_text(encoding="utf-8").replace("trials = 1e6", "trials = 2e4"), encoding="utf-8")
    capsys.readouterr()
    out = tmp_path / "c.json"
    code = main(["certify", str(toml), "--report", "none", "--json", str(out)])
    first = capsys.readouterr().out.splitlines()[0]
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["certified_claim"]["headline"] in first and " is not" not in first.replace(" is not decided", "")
    if example == "deploy-laplace-mean.toml":
        assert code == 0 and "CERTIFIED: the claim (1, 0)-DP holds by the exact δ(1) = 0" in first
        assert document["certified_claim"]["basis"] == "exact"
    else:
        assert code == 3 and "the claim (2, 0.0001)-DP is not decided; the evidence supports (2, " in first
        assert "samples per world would decide it" in first and document["certified_claim"]["basis"] is None


def test_a_failed_run_says_the_claim_is_refuted_and_by_what():
    run = make_run("toy", _dp_checks(0.5, None, "fail"), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    assert run.exit_code == 1
    first = describe(run).splitlines()[0]
    assert (
        first
        == "pdp-audit: toy: REFUTED: the claim (1, 1e-05)-DP is refuted (dp-forward, dp-reverse fail) (exit code 1)"
    )
    assert certified_claim(run.checks) is None


def _bound(id: str, bounds: str, upper: float, level: float = 1 - 1e-6, role: str = "guarantee", epsilon=1.0):
    """A guarantee whose interval bounds ``bounds``'s δ(ε) by another estimator (AdaOPS's conditional checks)."""
    return Check(
        id,
        "t",
        "c",
        "f",
        "s",
        "pass",
        role=role,
        estimate=0.0,
        pvalue=1.0,
        ci=(0.0, upper),
        level=level,
        details={"epsilon": epsilon, "delta_claim": 1e-5, "bounds": bounds},
    )


def test_the_tightest_bound_at_the_runs_level_decides():
    """Issue 70: the plain checks bound δ(1) by 1.7e-5 and a second estimator of the same δ(1), in the same family,
    by 4.9e-6: the claim (1, 1e-5) is certified on the tighter bound and the headline names it (before: not decided,
    "the evidence supports (1, 1.7e-05)").  A bound outside the run's family -- a paper finding, another level, another
    ε -- is not one at the run's level and decides nothing."""
    params = {"epsilon": 1.0, "delta": 1e-5}
    tighter = [_bound("dp-conditional-forward", "dp-forward", 4.9e-6), _bound("dp-cond-r", "dp-reverse", 4.2e-6)]
    run = make_run("toy", _dp_checks(1.7e-5, None) + tighter, 1e-6, params, 0)
    claim = certified_claim(run.checks)
    assert run.exit_code == 0 and claim.basis == "sampling" and claim.delta == 4.9e-6
    assert describe(run).splitlines()[0] == (
        "pdp-audit: toy: CERTIFIED: (1, 4.9e-06)-DP certified by dp-conditional-forward and dp-cond-r (exit code 0)"
    )
    one_way = make_run("toy", _dp_checks(0.8e-5, None) + tighter[:1], 1e-6, params, 0)
    assert certified_claim(one_way.checks).text() == "(1, 8e-06)-DP certified by dp-conditional-forward and dp-reverse"
    for outside in (
        _bound("x", "dp-forward", 4.9e-6, role="paper"),
        _bound("x", "dp-forward", 4.9e-6, level=1 - 1e-3),
        _bound("x", "dp-forward", 4.9e-6, epsilon=2.0),
        _bound("x", "dp-reverse", 4.9e-6),  # one direction only: the other is still 1.7e-5
    ):
        loose = make_run("toy", _dp_checks(1.7e-5, None) + [outside], 1e-6, params, 0)
        assert loose.exit_code == 3 and certified_claim(loose.checks).delta == 1.7e-5
