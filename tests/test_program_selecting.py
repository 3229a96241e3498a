"""diffprivlib's selecting mechanisms and numpy's global ``RandomState`` reached directly, in the program audit.

* ``Exponential`` and ``PermuteAndFlip`` select with ``randomise()``, no value: their input is the utility they were
  made with (:data:`pdp_audit.audits.program.adapters.diffprivlib_mechanisms.SELECTING`), read on each neighbour by
  its largest move against the declared sensitivity (McSherry & Talwar 2007).  Counts above and below 0.5 of values
  clipped to [0, 1] move by at most 1 when a record is added or removed: sensitivity 1, ε = 1 declared, certified;
  five times the counts with sensitivity 1 declared is (2.5, 0)-DP at best on the pair that moves a count, refuted.
* ``check_random_state(None)`` (scikit-learn's and diffprivlib's) returns numpy's global ``RandomState`` object, on
  which no replaced name lies: it is seeded from the run's generator at each run
  (:func:`pdp_audit.audits.program.adapters.numpy_random._pinned`), so the replay on D reproduces the record and
  the black box's releases follow its seed; the user's global stream is given back after the audit.

Fixed seeds; α = 1e-6.  Seen failing on main (b6b5d71): every selecting program exit 2, "the program raised
TypeError: randomise() missing 1 required positional argument: 'value'" (our wrapper's signature, blamed on the
user); diffprivlib's median "inconclusive: the replay on D gives another release"; the black box's releases of a
global-state draw not a function of its seed.
"""

from __future__ import annotations

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import trace
from pdp_audit.audits.program.release_sampler import ReleaseSampler

mechanisms = pytest.importorskip("diffprivlib.mechanisms", reason="diffprivlib is not installed")
tools = pytest.importorskip("diffprivlib.tools", reason="diffprivlib is not installed")
utils = pytest.importorskip("sklearn.utils", reason="scikit-learn is not installed")

DATA = np.array([0.1, 0.5, 0.9, 0.3, 0.7, 0.6, 0.2, 0.8])


def _clipped(data):
    return np.clip(np.nan_to_num(np.asarray(data, dtype=float).ravel()), 0.0, 1.0)


def _counts(data):
    values = _clipped(data)
    return [float((values > 0.5).sum()), float((values <= 0.5).sum())]


def exponential(data, rng):
    return mechanisms.Exponential(epsilon=1.0, sensitivity=1.0, utility=_counts(data)).randomise()


def permute_and_flip(data, rng):
    return mechanisms.PermuteAndFlip(epsilon=1.0, sensitivity=1.0, utility=_counts(data)).randomise()


def scaled(data, rng):
    """Bug: each utility five counts (sensitivity 5), sensitivity 1 declared."""
    return mechanisms.Exponential(epsilon=1.0, sensitivity=1.0, utility=[5 * c for c in _counts(data)]).randomise()


def monotonic_both_ways(data, rng):
    """Bug: ``monotonic=True`` declared (every utility moves one way), but the utilities are (count above 0.5, −count
    above 0.5): a record above 0.5 added moves them (+1, −1)."""
    above = _counts(data)[0]
    return mechanisms.Exponential(epsilon=1.0, sensitivity=1.0, utility=[above, -above], monotonic=True).randomise()


def _audit(program):
    return pdp_audit.audit_program(program, DATA, 1.0, 0.0, bounds=(0, 1), law="ideal", trials=2000)


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


@pytest.mark.parametrize("program", [exponential, permute_and_flip], ids=["Exponential", "PermuteAndFlip"])
def test_a_selecting_mechanism_within_its_sensitivity_is_certified(program):
    run = _audit(program)
    assert run.verdict == "pass", _check(run, "program-composition").note


def test_a_selecting_mechanism_beyond_its_sensitivity_is_refuted():
    run = _audit(scaled)
    assert run.verdict == "fail"
    assert "its input moved by 5 > its declared sensitivity 1" in _check(run, "program-composition").note


def test_monotonic_utilities_moving_both_ways_are_not_certified():
    run = _audit(monotonic_both_ways)
    assert run.verdict != "pass"
    assert "its monotonic utilities moved both ways" in _check(run, "program-composition").note


def median(data, rng):
    """diffprivlib's median: its interval chosen by ``Exponential`` (recorded), its value drawn uniformly in the
    interval from ``check_random_state(None)``, numpy's global RandomState object."""
    return float(tools.median(_clipped(data), epsilon=1.0, bounds=(0.0, 1.0)))


def test_the_global_random_state_reached_directly_is_replayed():
    recorded = trace.record(median, DATA)
    assert [c.name for c in recorded.calls] == ["diffprivlib.Exponential"]
    again = trace.replay(median, DATA, recorded.calls)
    assert again.numbers.tolist() == recorded.numbers.tolist()


def global_normal(data, rng):
    return float(_clipped(data).sum() + utils.check_random_state(None).normal())


def test_the_black_box_draws_the_global_random_state_from_the_release_seed():
    sampler = ReleaseSampler(global_normal, DATA, 4)
    first, again = sampler(50, np.random.default_rng(1)), sampler(50, np.random.default_rng(1))
    assert np.array_equal(first, again)
    assert np.unique(first[:, 3]).size == 50


def test_the_users_global_stream_is_given_back():
    np.random.seed(11)
    np.random.random()
    before = np.random.get_state()
    _audit(exponential)
    trace.record(global_normal, DATA)
    after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]
