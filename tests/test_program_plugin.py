"""``privacy_audit.assert_program_dp``: a correct program passes, a double-spending one fails with the witness in
its message (pytester, in process).  Seen failing: with the assertion's verdict forced to pass."""

from __future__ import annotations

pytest_plugins = ["pytester"]

USER_TESTS = """
import numpy as np
import pytest

VALUES = np.linspace(0.0, 1.0, 8)


def noisy_sum(data, rng):
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)


def spent_twice(data, rng):
    total = np.clip(np.nan_to_num(data), 0.0, 1.0).sum()
    return total + rng.laplace(0.0, 1.0), total + rng.laplace(0.0, 1.0)


@pytest.mark.audit
def test_correct(privacy_audit):
    privacy_audit.assert_program_dp(noisy_sum, VALUES, 1.0, bounds=(0, 1), trials=2000, law="ideal")


@pytest.mark.audit
def test_correct_as_implemented(privacy_audit):
    privacy_audit.assert_program_dp(noisy_sum, VALUES, 1.0, bounds=(0, 1), trials=2000)


@pytest.mark.audit
def test_spent_twice(privacy_audit):
    privacy_audit.assert_program_dp(spent_twice, VALUES, 1.0, bounds=(0, 1), trials=2000)
"""


def test_assert_program_dp_passes_the_fix_and_fails_the_bug(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    # the float Laplace sum: certified for its real-valued law, undecided as implemented
    assert (outcomes.get("passed", 0), outcomes.get("failed", 0), outcomes.get("undecided", 0)) == (1, 1, 1), outcomes
    text = result.stdout.str()
    assert "program-composition" in text and "Refuted by composition" in text
