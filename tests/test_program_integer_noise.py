"""A histogram with numpy's uniform integer noise (``counts + rng.integers(-k, k + 1, size=n)``) audited by the law
numpy's implementation draws (:mod:`pdp_audit.audits.program.lattice_noise`, integers): uniform on its range, so a
count moved by 1 costs δ(ε) = 1/(2k + 1) at every ε -- certified at (1, δ ≥ 1/7) for k = 3, and named so
("certified at (1, 0.1429)") where the claim's δ is below it; a range or a size read from the data, the draw used as
an index of the data, the draw doubled, released beside the count or flagged at one value of its range, are never
certified; an ``integers`` draw the release does not carry additively (a seed, an index out of range when shifted, a
clamp) is held at its draw, as before.

Seen failing on main (c96a185): every ``rng.integers`` draw was recorded with no law, "noise the audit can neither
shift nor account", so the honest histogram was undecided at every δ (exit 3) and no tightest claim was said."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import pdp_audit
from pdp_audit.audits.program import lattice_noise
from pdp_audit.audits.program.accounting import exp_bounds
from pdp_audit.audits.program.events import Located
from pdp_audit.mechanisms import numpy_samplers

K = 3
EPSILON = 1.0
BINS = pd.DataFrame({"bin": [2, 1, 0, 4, 7, 7, 3, 1, 5, 6]})
OPTIONS = {"trials": 100, "seed": 0, "alpha": 1e-6, "search": "named", "draw_sets": 2}


def _counts(data) -> np.ndarray:
    return np.bincount(np.clip(data["bin"].to_numpy(), 0, 7), minlength=8)


def honest(data, rng):
    return _counts(data) + rng.integers(-K, K + 1, size=8)


def range_from_data(data, rng):
    k = len(data)
    return _counts(data) + rng.integers(-k, k + 1, size=8)


def size_from_data(data, rng):
    return int(_counts(data).sum()) + rng.integers(-K, K + 1, size=len(data))


def index_of_the_data(data, rng):
    return int(np.clip(data["bin"].to_numpy(), 0, 7)[rng.integers(0, 8)])


def doubled(data, rng):
    return _counts(data) + 2 * rng.integers(-K, K + 1, size=8)


def released_beside(data, rng):
    noise = rng.integers(-K, K + 1, size=8)
    return _counts(data) + noise, int(noise.sum())


def flagged(data, rng):  # the draw's value flagged beside the count: δ 2/7, not 1/7
    noise = rng.integers(-K, K + 1, size=8)
    return _counts(data) + noise, int(noise[0] == K)


def clipped(data, rng):  # a clamp at 0 is not told from a flag on D alone: held, undecided (as before)
    return np.clip(_counts(data) + rng.integers(-K, K + 1, size=8), 0, None)


def _composition(run):
    return next(c for c in run.checks if c.id == "program-composition")


@pytest.fixture(scope="module")
def certified():
    return pdp_audit.audit_program(honest, BINS, EPSILON, 0.15, **OPTIONS)


def test_uniform_noise_is_certified_at_one_over_its_width(certified):
    """δ̄ of the composition is 1/7 (rounded up, to 1e-9), the exact law's at every ε."""
    assert certified.verdict == "pass" and certified.exit_code == 0
    assert Fraction(1, 7) <= Fraction(_composition(certified).estimate) <= Fraction(1, 7) * (1 + Fraction(1, 10**9))


def test_a_smaller_delta_names_the_tightest_claim_certified():
    run = pdp_audit.audit_program(honest, BINS, EPSILON, 0.1, **OPTIONS)
    assert run.verdict != "pass" and run.exit_code in (1, 3)
    epsilon, tightest = _composition(run).details["certified_at"]
    assert epsilon == EPSILON and Fraction(1, 7) <= Fraction(tightest) <= Fraction(1, 7) * (1 + Fraction(1, 10**9))
    if run.exit_code == 3:
        assert run.review.headline.startswith("UNDECIDED: certified at (1, 0.1429), not at (1, 0.1)-DP")


@pytest.mark.parametrize(
    "program", [range_from_data, size_from_data, index_of_the_data, doubled, released_beside, flagged, clipped]
)
def test_planted_bugs_are_not_certified(program, certified):
    """Each beside the honest histogram, which the same options certify; none says a tightest claim either."""
    assert certified.verdict == "pass"
    run = pdp_audit.audit_program(program, BINS, EPSILON, 0.15, **OPTIONS)
    assert run.verdict != "pass" and run.exit_code in (1, 3)
    assert "certified_at" not in _composition(run).details


@pytest.mark.parametrize("k", [0, 1, 3, 10])
def test_the_step_is_the_exact_law_against_its_shift(k):
    """The three merged outcomes give numpy_samplers' δ of the whole law against its shift, at several e^ε (an
    independent path: the law's own sum over its support)."""
    law = numpy_samplers.integers_law(-k, k + 1)
    ends = {"low": np.array(-k), "high": np.array(k + 1)}
    call = Located("integers", ends, (), np.zeros(()), law=lattice_noise.INTEGERS, lattice=True)
    for shift in (0, 1, -2, 2 * k + 1, 5 * k + 3):
        p, q = lattice_noise.uniform_masses(call, shift)
        for ratio in (Fraction(1), *exp_bounds(Fraction(1)), Fraction(7)):
            merged = max(sum(max(a - ratio * b, Fraction(0)) for a, b in zip(x, y)) for x, y in ((p, q), (q, p)))
            assert merged == numpy_samplers.shift_delta(law, shift, ratio)
            assert merged == Fraction(min(abs(shift), 2 * k + 1), 2 * k + 1)


def test_which_calls_are_read_as_uniform_noise():
    """Scalar integer ends of numpy's default dtype, a range of at most 2^53 values: read; anything else, or
    arguments numpy refuses, recorded as before (None)."""
    assert lattice_noise.integers_range(-3, 4, size=8) == (-3, 4, 8)
    assert lattice_noise.integers_range(5) == (0, 5, None)
    assert lattice_noise.integers_range(np.int32(-2), 2, endpoint=np.True_) == (-2, 3, None)
    assert lattice_noise.integers_range(0, 4, None, int) == (0, 4, None)
    refused = [
        ((0, 4), {"dtype": np.int32}), ((0, 4), {"endpoint": 1}), ((0.0, 4),), ((0, True),), ((np.array([0, 1]), 4),),
        ((4, 4),), ((0, 2**63),), ((),), ((0, 4), {"nonsense": 1}), ((0, 4), {"dtype": "no such dtype"}),
    ]  # fmt: skip
    for args, *kwargs in refused:
        assert lattice_noise.integers_range(*args, **(kwargs[0] if kwargs else {})) is None, (args, kwargs)


def seeded(data, rng):  # a seed drawn by integers: the session's generator, held at its draw
    child = np.random.default_rng(rng.integers(2**32))
    return float(np.clip(data["bin"].to_numpy(), 0, 3).sum()) + child.laplace(0, 3.0)


def public_index(data, rng):  # an index of a public range: shifted, it leaves the array
    noisy = _counts(data) + rng.laplace(0.0, 2.0, size=8)
    return float(noisy[rng.integers(0, 8)])


def test_draws_not_carried_additively_are_held_as_before():
    """Guards of behaviour kept (they pass on main too): a seed drawn by ``integers`` is certified as before under
    ``--law ideal``; an index the probe's shift pushes out of range is no fault of the program on D (exit 2, before
    the probe held such draws), but undecided as before."""
    run = pdp_audit.audit_program(seeded, BINS, EPSILON, 0.15, **{**OPTIONS, "law": "ideal"})
    assert run.verdict == "pass"
    run = pdp_audit.audit_program(public_index, BINS, EPSILON, 0.15, **{**OPTIONS, "law": "ideal"})
    assert run.exit_code == 3
