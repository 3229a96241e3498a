"""The pytest plugin (verify/pytest_plugin.py), run as a user would: a small test file in a subprocess.

The user file audits a correct Gaussian mechanism (σ for δ = 1e-6, claim 1e-5: must pass), a broken one (σ at a
fifth of the calibrated value, δ(1) ≈ 0.26 against a claim of 1e-5: must fail with a readable message), a tight
claim with no closed form (inconclusive: recorded, fails only under --audit-strict) and a coverage
claim.  Each assertion is decided at false-alarm probability 1e-6 (the plugin's default α), seeds
fixed by --audit-seed and the node ids.
"""

import json

import numpy as np
import pytest

from verify import pytest_plugin

pytest_plugins = ["pytester"]

USER_TESTS = """
import numpy as np
import pytest
from mechanisms.gaussian import GaussianPair, analytic_sigma

SIGMA = analytic_sigma(1.0, 1e-5)


@pytest.mark.audit
def test_correct(privacy_audit):
    # calibrated to δ = 1e-6 and claimed at 1e-5: the interval alone confirms the claim
    privacy_audit.assert_dp(GaussianPair(np.zeros(2), np.array([1.0, 0.0]), analytic_sigma(1.0, 1e-6)), 1.0, 1e-5)


@pytest.mark.audit
def test_broken(privacy_audit):
    privacy_audit.assert_dp(GaussianPair(np.zeros(2), np.array([1.0, 0.0]), SIGMA / 5), 1.0, 1e-5)


@pytest.mark.audit
def test_tight_without_closed_form(privacy_audit):
    sigma = analytic_sigma(1.0, 1e-2)
    privacy_audit.assert_pdp(GaussianPair(np.zeros(1), np.ones(1), sigma), 1.0, 1e-2)


@pytest.mark.audit
def test_coverage(privacy_audit):
    privacy_audit.assert_coverage(lambda size, rng: rng.standard_normal(size) < 2.5758293035489004, rho=0.01)
"""

ARGS = ("-m", "audit", "--audit-trials", "2e4", "--audit-seed", "5", "-p", "no:cacheprovider")


@pytest.fixture
def user_suite(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    return pytester


def report(path):
    return json.loads(path.with_suffix(".json").read_text())


def test_broken_mechanism_fails_with_a_readable_message_and_the_report_is_written(user_suite):
    result = user_suite.runpytest_subprocess(*ARGS, "--audit-report", "audit.pdf")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_broken*",
            "pdp-audit: (1, 1e-05) DP claim of GaussianPair: FAIL",
            "*[[]dp-forward] FAIL: The pair is (1, 1e-05)-DP*",
            "*estimate *, interval [[]*, *[]] at confidence 0.9999995, Holm-adjusted p-value*",
            "*20,000 samples, seed 5, false-alarm probability α = 1e-06*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*4 assertions: 2 pass, 1 inconclusive, 1 fail*", "*INCONCLUSIVE*test_tight_without_closed_form*"]
    )
    doc = report(user_suite.path / "audit.pdf")
    assert (user_suite.path / "audit.pdf").read_bytes().startswith(b"%PDF")
    verdicts = {a["nodeid"].split("::")[1]: a["verdict"] for a in doc["assertions"]}
    assert verdicts == {
        "test_broken": "fail",
        "test_correct": "pass",
        "test_coverage": "pass",
        "test_tight_without_closed_form": "inconclusive",
    }
    assert doc["verdict"] == "fail" and doc["counts"] == {"pass": 2, "inconclusive": 1, "fail": 1}


def test_under_xdist_the_broken_mechanism_fails_and_the_workers_records_are_merged(user_suite):
    result = user_suite.runpytest_subprocess(*ARGS, "-n", "2", "--audit-report", "parallel.pdf")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*2 workers*",
            "*pdp-audit: (1, 1e-05) DP claim of GaussianPair: FAIL*",
            "*4 assertions: 2 pass, 1 inconclusive, 1 fail*",
        ]
    )
    assert (user_suite.path / "parallel.pdf").read_bytes().startswith(b"%PDF")
    doc = report(user_suite.path / "parallel.pdf")
    assert [a["nodeid"].split("::")[1] for a in doc["assertions"]] == sorted(
        ["test_broken", "test_correct", "test_coverage", "test_tight_without_closed_form"]
    )


@pytest.mark.slow  # two subprocess sessions, one with two xdist workers: ~25 s
def test_merged_report_is_byte_identical_with_or_without_xdist(user_suite):
    serial = user_suite.runpytest_subprocess(*ARGS, "--audit-report", "serial.pdf")
    parallel = user_suite.runpytest_subprocess(*ARGS, "-n", "2", "--audit-report", "parallel.pdf")
    serial.assert_outcomes(passed=3, failed=1)
    parallel.assert_outcomes(passed=3, failed=1)
    assert (user_suite.path / "serial.json").read_bytes() == (user_suite.path / "parallel.json").read_bytes()
    assert (user_suite.path / "serial.pdf").read_bytes() == (user_suite.path / "parallel.pdf").read_bytes()


def test_strict_turns_inconclusive_into_failure(user_suite):
    result = user_suite.runpytest_subprocess(*ARGS, "--audit-strict", "-k", "tight")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*INCONCLUSIVE*", "*--audit-strict: inconclusive counts as failure*"])


def test_bad_options_are_usage_errors(pytester):
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    assert pytester.runpytest_subprocess("--audit-trials", "1e6").ret == 0
    cases = (
        (("--audit-trials", "abc"), "--audit-trials"),
        (("--audit-alpha", "2"), "--audit-alpha must be in (0, 1)"),
        (("--audit-trials", "1e13"), "--audit-trials must be in [100, 1e+09]"),
        (("--audit-seed=-1",), "--audit-seed must be >= 0"),
        (("--audit-report", "/proc/x"), "--audit-report: cannot write"),
    )
    for bad, needle in cases:
        result = pytester.runpytest_subprocess(*bad)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert needle in result.stderr.str()


# ------------------------------------------------------------------------------------------------
# The pure parts, in process
# ------------------------------------------------------------------------------------------------
def test_assertion_seeds_depend_on_identity_only():
    a = pytest_plugin.assertion_seed(0, "t.py::test_a", 0)
    assert a == pytest_plugin.assertion_seed(0, "t.py::test_a", 0)
    assert (
        len(
            {
                a,
                pytest_plugin.assertion_seed(0, "t.py::test_a", 1),
                pytest_plugin.assertion_seed(0, "t.py::test_b", 0),
                pytest_plugin.assertion_seed(1, "t.py::test_a", 0),
            }
        )
        == 4
    )


def test_coverage_accepts_samplers_per_trial_functions_and_arrays():
    vectorised = pytest_plugin.coverage_outcomes(lambda size, rng: rng.random(size) < 0.5, 1000, 3)
    per_trial = pytest_plugin.coverage_outcomes(lambda rng: rng.random() < 0.5, 1000, 3)
    np.testing.assert_array_equal(vectorised, per_trial)  # same block generators, same uniform draws
    assert pytest_plugin.coverage_outcomes([True, False, True], 10, 0).tolist() == [True, False, True]
    with pytest.raises(ValueError, match="shape"):
        pytest_plugin.coverage_outcomes(lambda size, rng: np.ones(3, bool), 10, 0)
