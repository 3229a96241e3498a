"""Draws as real libraries make them, recorded and replayed (:mod:`pdp_audit.audits.program.recorder`,
:mod:`pdp_audit.audits.program.trace`), and the black box's witness among pairs that all differ.

SmartNoise synth's ``DPcovariance`` (its issue #622, fixed in smartnoise-synth 1.0.6) draws ``np.random.uniform``,
turns the draws into Laplace noise in place by the inverse CDF, and is imported in the program's body, where its
package draws at import.  Each of these made its audit fail: an import's draws stood first on the record and on no
replay (an internal error, exit 4, whose exception could not even be carried out of the sandbox); the draws changed in
place reached the next replay changed (the replay on D did not reproduce the release: undecided); and with every
neighbour's noise-free coordinates differing (a uniform is no shift the probe reads), the black box confirmed the
first neighbour searched, a record at the domain's end, and did not refute (p = 1) where the bug shows on an outlier
or a NaN.

Fixed seeds; α = 1e-6 (the audit's default).  Seen failing before the changes: each test here (the first with
"Divergence: call 0: recorded normal(shape=(4,)…), replayed uniform(…)", the second with the replay's release
differing, the third inconclusive, p = 1, its witness "a record at the domain's lower end").
"""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import trace
from pdp_audit.audits.program.recorder import Divergence

DATA = np.array([0.1, 0.5, 0.9, 0.3, 0.7, 0.2, 0.4, 0.6])


def _inverse_cdf_laplace(u, scale):
    """SmartNoise's ``q_lap_iter``: the uniform draws overwritten by Laplace noise of ``scale``."""
    for i in range(len(u)):
        u[i] = scale * np.log(2 * u[i]) if u[i] < 0.5 else -scale * np.log(2 - 2 * u[i])
    return u


def clipped_copy_sum(clip_the_sum):
    """A copy of the data clipped to [0, 1] and a sum released with Laplace noise of scale 1 (sensitivity 1 under
    replace-one); ``clip_the_sum`` False sums the data given, unclipped (issue #622's bug)."""

    def program(data, rng):
        values = np.asarray(data, dtype=float).ravel()
        clipped = np.clip(np.nan_to_num(values, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        total = clipped.sum() if clip_the_sum else values.sum()
        return float(total + _inverse_cdf_laplace(np.random.uniform(size=1), 1.0)[0])

    return program


def test_a_divergence_crosses_the_sandbox():
    """An exception is pickled as its class and ``args`` (the message alone): Divergence keeps its own fields."""
    fields = (3, "laplace(shape=(1,))", "normal(shape=(1,))", 0.25)
    again = pickle.loads(pickle.dumps(Divergence(*fields)))
    assert (again.index, again.recorded, again.replayed, again.moved) == fields


def test_a_module_that_draws_at_import_is_recorded_after_its_import(tmp_path, monkeypatch):
    """A package imported in the program's body that draws at import (SmartNoise's does, through its dependencies):
    the record holds the program's draws alone, and the replay on D reproduces it."""
    (tmp_path / "draws_at_import.py").write_text("import numpy as np\nCONSTANTS = np.random.normal(size=4)\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def program(data, rng):
        importlib.import_module("draws_at_import")
        return float(np.clip(data, 0, 1).sum() + np.random.laplace(0.0, 1.0))

    with trace.Session(program) as session:
        recorded = trace.record(session, DATA)
        assert [c.name for c in recorded.calls] == ["laplace"]
        again = trace.replay(session, DATA, recorded.calls)
    assert again.numbers.tolist() == recorded.numbers.tolist()


def test_draws_changed_in_place_are_replayed_as_drawn():
    """The uniform draws overwritten by the program: the record keeps them as drawn, each replay gets its own."""
    program = clipped_copy_sum(True)
    recorded = trace.record(program, DATA)
    assert 0.0 <= float(recorded.calls[0].noise[0]) < 1.0
    for _ in range(2):
        assert trace.replay(program, DATA, recorded.calls).numbers.tolist() == recorded.numbers.tolist()


@pytest.mark.tier2
def test_the_black_box_confirms_the_pair_that_moved_the_release_most():
    """Every neighbour's noise-free release differs (a uniform is not shifted): the witness is a record the unclipped
    sum releases unchecked (a NaN: the sum NaN on D′, never on D), refuted; summing the clipped copy is not refuted."""
    bug = pdp_audit.audit_program(clipped_copy_sum(False), DATA, 1.0, 0.0, bounds=(0, 1), trials=2000, seed=0)
    assert bug.verdict == "fail"
    confirm = next(c for c in bug.checks if c.id == "program-confirm")
    assert confirm.verdict == "fail" and "a record of NaN" in confirm.details["witness"], confirm.note
    fixed = pdp_audit.audit_program(clipped_copy_sum(True), DATA, 1.0, 0.0, bounds=(0, 1), trials=2000, seed=0)
    assert fixed.verdict != "fail"


def test_apart_orders_by_the_largest_finite_move():
    from pdp_audit.audits.program.findings import apart

    assert apart([0.5], [0.5]) == 0.0
    assert apart([0.5, 2.0], [0.75, 4.0]) == 0.5  # |4 − 2|/2 = 1 → 1/2
    assert apart([0.5], [float("nan")]) == 1.0 and apart([float("nan")], [float("nan")]) == 0.0
    assert 1.0 > apart([0.5], [1e6]) > apart([0.5], [2.0])
