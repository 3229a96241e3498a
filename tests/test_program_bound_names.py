"""Names bound at a module's import to a randomness source, rebound for the audit (:mod:`pdp_audit.audits.program
.bound_names`).

A module that does ``from numpy.random import laplace`` (or ``RandomState``, ``default_rng``; ``from random import
gauss``) holds numpy's or Python's own object, which replacing ``numpy.random.laplace`` does not reach: dpmm's
binners and models call ``RandomState()`` imported so.  The module below is written and imported as a user's would
be; a clipped sum of five records (sensitivity 1, add-remove) plus noise drawn through each bound name is certified
at ``--law ideal`` with Laplace of scale 1 (ε = 1) or a Gaussian of σ = 5 ((1, 1e-5): Dwork & Roth 2014, Thm A.1) and
refuted with half that scale or σ = 1; the module's names are numpy's and Python's again after the audit.

Fixed seeds; α = 1e-6.  Seen failing on main (4218f04): every program here "inconclusive: the replay on D gives
another release".
"""

from __future__ import annotations

import importlib
import random
import textwrap

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import trace

DATA = np.array([0.1, 0.5, 0.9, 0.3, 0.7])

SOURCE = textwrap.dedent(
    '''
    import numpy as np
    from numpy.random import RandomState, default_rng, laplace
    from random import gauss


    def _sum(data):
        values = np.nan_to_num(np.asarray(data, dtype=float).ravel(), nan=0.0, posinf=1.0, neginf=0.0)
        return np.clip(values, 0.0, 1.0).sum()


    def bound_laplace(scale):
        return lambda data, rng: _sum(data) + laplace(0.0, scale)


    def bound_random_state(scale):
        return lambda data, rng: _sum(data) + RandomState().laplace(0.0, scale)


    def bound_default_rng(scale):
        return lambda data, rng: _sum(data) + default_rng().laplace(0.0, scale)


    def bound_gauss(sigma):
        return lambda data, rng: _sum(data) + gauss(0.0, sigma)
    '''
)


@pytest.fixture(scope="module")
def bound(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bound")
    (folder / "bound_noise.py").write_text(SOURCE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        yield importlib.import_module("bound_noise")


@pytest.mark.tier2(representatives=("bound_laplace-1.0-0.5-0.0",))
@pytest.mark.parametrize(
    "maker, correct, broken, delta",
    [
        ("bound_laplace", 1.0, 0.5, 0.0),
        ("bound_random_state", 1.0, 0.5, 0.0),
        ("bound_default_rng", 1.0, 0.5, 0.0),
        ("bound_gauss", 5.0, 1.0, 1e-5),
    ],
)
def test_noise_through_a_name_bound_at_import_is_recorded(bound, maker, correct, broken, delta):
    make = getattr(bound, maker)
    fixed = pdp_audit.audit_program(make(correct), DATA, 1.0, delta, bounds=(0, 1), law="ideal", trials=2000)
    record = next(c for c in fixed.checks if c.id == "program-record")
    assert fixed.verdict == "pass", record.note
    assert len(record.details["trace"]) == 1
    broke = pdp_audit.audit_program(make(broken), DATA, 1.0, delta, bounds=(0, 1), law="ideal", trials=2000)
    assert broke.verdict == "fail"


def test_the_bound_names_are_given_back(bound):
    trace.record(bound.bound_laplace(1.0), DATA)
    assert bound.laplace is np.random.laplace and bound.RandomState is np.random.RandomState
    assert bound.default_rng is np.random.default_rng and bound.gauss is random.gauss
    assert type(bound.RandomState()) is np.random.RandomState
