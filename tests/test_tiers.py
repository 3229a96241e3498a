"""The suite's tiers (tests/tiers.py): ``--tier 1`` (the default) runs what the ``tier2`` marks leave, ``--tier 2``
what they take, ``--tier all`` both; a mark's ``representatives`` keep those cases of a series in tier 1, its
``cases`` move only those; a mark naming a case no test has stops the collection; each tier's count is recorded for
the figures of the suite.  Run in pytester sessions in this process, with this suite's own hooks."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

SERIES = """
import pytest

@pytest.mark.tier2(representatives=("a",))
@pytest.mark.parametrize("case", ["a", "b", "c"])
def test_series(case):
    pass

@pytest.mark.tier2(cases=("y",))
@pytest.mark.parametrize("case", ["x", "y"])
def test_one_case_moves(case):
    pass

@pytest.mark.tier2
def test_long():
    pass

@pytest.mark.slow
def test_slow():
    pass

def test_fast():
    pass
"""


@pytest.fixture
def suite(pytester, monkeypatch):
    """A suite with this suite's tier hooks (tests/conftest.py's options and its collection hook).  The counts file
    of a measured run of this suite is not this inner session's to write (its 8 tests were once recorded as the
    README's figure)."""
    monkeypatch.delenv("PDP_AUDIT_TIER_COUNTS", raising=False)
    pytester.makeconftest("from tests.conftest import pytest_addoption, pytest_collection_modifyitems\n")
    pytester.makeini("[pytest]\nmarkers =\n    tier2: tier 2\n    slow: slow\n")
    pytester.makepyfile(test_series=SERIES)
    return pytester


def _ran(result) -> set[str]:
    """The tests the session ran (a skipped one included), from its ``-v`` lines."""
    return {line.split("::")[1].split()[0] for line in result.outlines if line.startswith("test_series.py::")}


@pytest.mark.parametrize(
    ("tier", "expected"),
    [
        ("1", {"test_series[a]", "test_one_case_moves[x]", "test_slow", "test_fast"}),
        ("2", {"test_series[b]", "test_series[c]", "test_one_case_moves[y]", "test_long"}),
        ("all", {"test_series[a]", "test_series[b]", "test_series[c]", "test_one_case_moves[x]"}
         | {"test_one_case_moves[y]", "test_long", "test_slow", "test_fast"}),
    ],
)  # fmt: skip
def test_a_tier_runs_what_its_marks_say(suite, tier, expected):
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-v", "--tier", tier)
    assert _ran(result) == expected


def test_the_default_is_tier_1(suite):
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=3, skipped=1, deselected=4)  # test_slow: --run-slow


def test_each_tiers_tests_are_counted_for_its_figure(suite, tmp_path, monkeypatch):
    counts = tmp_path / "counts.json"
    monkeypatch.setenv("PDP_AUDIT_TIER_COUNTS", str(counts))
    suite.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--collect-only")
    assert json.loads(counts.read_text()) == {"1": 4, "2": 4, "slow": 1}


def test_a_mark_naming_a_case_no_test_has_stops_the_collection(suite):
    suite.makepyfile(test_renamed='import pytest\n\n@pytest.mark.tier2(representatives=("gone",))\n'
                     '@pytest.mark.parametrize("case", ["kept"])\ndef test_x(case):\n    pass\n')  # fmt: skip
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "test_renamed.py::test_x[gone]" in result.stderr.str()
