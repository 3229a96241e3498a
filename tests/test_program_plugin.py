"""``privacy_audit.assert_program_dp``: a correct program passes, a double-spending one fails with the witness in
its message (pytester, in process); it takes the program audit's options as ``audit_program`` does -- ``draw_sets``
reaches the audit (one draw set misses a branch the default's eight find), and a bad value is one ``InputError``
naming the option.  Seen failing: with the assertion's verdict forced to pass; with ``draw_sets`` dropped before the
audit (one draw set then refutes the branch too)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = """
import numpy as np
import pytest

VALUES = np.array([0, 1, 2, 3, 5, 6, 7, 8]) / 8  # dyadic: exact sums, certified at exactly ε


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


@pytest.mark.tier2
def test_assert_program_dp_passes_the_fix_and_fails_the_bug(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    # the float Laplace sum: certified for its real-valued law, undecided as implemented
    assert (outcomes.get("passed", 0), outcomes.get("failed", 0), outcomes.get("undecided", 0)) == (1, 1, 1), outcomes
    text = result.stdout.str()
    assert "program-composition" in text and "Refuted by composition" in text


BRANCH_TESTS = """
import numpy as np
import pandas as pd
import pytest

DATA = pd.DataFrame({"value": np.r_[1:7, 10:16] / 16})  # dyadic: exact sums, certified at exactly ε


def shortcut_when_large(data, rng):
    values = np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0)
    counts = np.array([np.count_nonzero(values <= 0.5), np.count_nonzero(values > 0.5)], dtype=float)
    counts = counts + rng.laplace(0.0, 2.0, size=2)
    total = values.sum() if counts[1] > counts[0] else np.clip(values, 0.0, 1.0).sum()
    return {"counts": counts, "sum": total + rng.laplace(0.0, 2.0)}


def _audit(privacy_audit, **options):
    options = {"trials": 100, "law": "ideal", "search": "named", **options}
    return privacy_audit.assert_program_dp(shortcut_when_large, DATA, 1.0, bounds=(0, 1), **options)


@pytest.mark.audit
def test_one_draw_set(privacy_audit):
    _audit(privacy_audit, draw_sets=1)


@pytest.mark.audit
def test_default_draw_sets(privacy_audit):
    _audit(privacy_audit)


@pytest.mark.audit
@pytest.mark.parametrize(
    "options",
    [{"draw_sets": 0}, {"draw_sets": 17}, {"search": "bogus"}, {"candidates": -1}, {"draw_set": 2}, {"seed": 3}],
)
def test_bad(privacy_audit, options):
    _audit(privacy_audit, **options)
"""


def test_assert_program_dp_takes_the_audits_options_through_its_declaration(pytester):
    pytester.makepyfile(test_user=BRANCH_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rA")
    text = result.stdout.str()
    assert "PASSED test_user.py::test_one_draw_set" in text  # the first draw set takes the clipped branch
    assert "FAILED test_user.py::test_default_draw_sets" in text and "Refuted by composition" in text
    errors = [line for line in text.splitlines() if line.startswith("E ") and "InputError" in line]
    assert [line.split("InputError: ", 1)[1] for line in errors] == [
        "draw_sets must be a whole number in [1, 16], got 0",
        "draw_sets must be a whole number in [1, 16], got 17",
        "search must be one of 'named', 'random', 'optuna', got 'bogus'",
        "candidates must be a whole number in [0, 100000], got -1",
        "assert_program_dp() has no option 'draw_set' (its options: trials, draw_sets, law, search, candidates; "
        "the seed and alpha are --audit-seed's and --audit-alpha's)",
        "assert_program_dp() has no option 'seed' (its options: trials, draw_sets, law, search, candidates; the "
        "seed and alpha are --audit-seed's and --audit-alpha's)",
    ]
