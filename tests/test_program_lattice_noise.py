"""A histogram with numpy's two-sided geometric noise (``counts + rng.geometric(p, k) - rng.geometric(p, k)``, p = 1 −
e^{−ε}) audited by the law numpy's implementation draws (:mod:`pdp_audit.audits.program.lattice_noise`): certified
at the tightest (ε, δ) its exact law holds, and named so where the claim's δ is below it; the same histogram with a
p for twice the claim's ε, a p read from the data, the second draw discarded, the second draw's sum released beside
the difference (it passed until the probe moved the common part alone), or a p numpy draws by inversion is never
certified.

Seen failing on main (99f9805): every ``rng.geometric`` draw was recorded with no law, "noise the audit can neither
shift nor account", so the honest histogram was undecided at every δ (exit 3) and no tightest claim was said."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import pdp_audit
from pdp_audit.audits.program.accounting import exp_bounds
from pdp_audit.mechanisms import numpy_samplers

EPSILON = 1.0
P = 1 - math.exp(-EPSILON)
BINS = pd.DataFrame({"bin": [2, 1, 0, 4, 7, 7, 3, 1, 5, 6]})
OPTIONS = {"trials": 400, "seed": 0, "alpha": 1e-6, "search": "named", "draw_sets": 2}


def _counts(data) -> np.ndarray:
    return np.bincount(np.clip(data["bin"].to_numpy(), 0, 7), minlength=8)


def honest(data, rng):
    return _counts(data) + rng.geometric(P, size=8) - rng.geometric(P, size=8)


def twice_the_epsilon(data, rng):
    p = 1 - math.exp(-2 * EPSILON)
    return _counts(data) + rng.geometric(p, size=8) - rng.geometric(p, size=8)


def p_from_data(data, rng):
    p = 1 - math.exp(-EPSILON * len(data) / 10)
    return _counts(data) + rng.geometric(p, size=8) - rng.geometric(p, size=8)


def one_sided(data, rng):
    kept = rng.geometric(P, size=8)
    rng.geometric(P, size=8)
    return _counts(data) + kept


def reveals_h(data, rng):  # the difference, and beside it the sum of the second draw
    g, h = rng.geometric(P, size=8), rng.geometric(P, size=8)
    return _counts(data) + g - h, int(h.sum())


def by_inversion(data, rng):  # p < 1/3: numpy draws by inverting a ziggurat exponential, no exact law here
    p = 1 - math.exp(-0.25)
    return _counts(data) + rng.geometric(p, size=8) - rng.geometric(p, size=8)


def _exact_delta() -> tuple[Fraction, Fraction]:
    """δ(1) of the implemented G − H against its shift by 1, between e's rational bounds (an independent path: the
    laws' own arithmetic, no audit)."""
    law = numpy_samplers.geometric_law(P)
    z = law.difference(law)
    low, high = exp_bounds(Fraction(1))
    return numpy_samplers.shift_delta(z, 1, high), numpy_samplers.shift_delta(z, 1, low)


@pytest.fixture(scope="module")
def certified():
    return pdp_audit.audit_program(honest, BINS, EPSILON, 1e-14, **OPTIONS)


@pytest.fixture(scope="module")
def at_zero():
    return pdp_audit.audit_program(honest, BINS, EPSILON, 0.0, **OPTIONS)


def _composition(run):
    return next(c for c in run.checks if c.id == "program-composition")


def test_histogram_certified_at_its_exact_delta(certified):
    low, high = _exact_delta()
    assert certified.verdict == "pass" and certified.exit_code == 0
    # the composed δ̄ is the exact law's, rounded up
    assert low <= Fraction(_composition(certified).estimate) <= high * (1 + Fraction(1, 10**9))


def test_pure_claim_names_the_tightest_claim_certified(at_zero):
    """At (1, 0) the implemented law's finite support costs a δ of about 1e-15: not certified, and the tightest claim
    the exact composition certifies is said in the headline, never a violation."""
    low, high = _exact_delta()
    assert at_zero.verdict == "inconclusive" and at_zero.exit_code == 3
    epsilon, tightest = _composition(at_zero).details["certified_at"]
    assert epsilon == EPSILON and low <= Fraction(tightest) <= high * (1 + Fraction(1, 10**9))
    assert 0 < tightest < 1e-14
    assert at_zero.review.headline.startswith(f"UNDECIDED: certified at (1, {tightest:.4g}), not at (1, 0)-DP")


@pytest.mark.parametrize("program", [p_from_data, one_sided, reveals_h, by_inversion])
def test_planted_bugs_are_not_certified(program, certified):
    """Each bug beside its honest twin, which the same options certify."""
    assert certified.verdict == "pass"
    run = pdp_audit.audit_program(program, BINS, EPSILON, 1e-14, **OPTIONS)
    assert run.verdict != "pass"
    assert "certified_at" not in _composition(run).details


def test_noise_for_twice_the_epsilon_is_certified_only_at_its_own_delta():
    """p = 1 − e^{−2}: the claim (1, 1e-14) is not certified; what the exact law certifies at ε = 1 is its own δ,
    about 0.56, the implemented law's computed apart (to 1e-9)."""
    run = pdp_audit.audit_program(twice_the_epsilon, BINS, EPSILON, 1e-14, **OPTIONS)
    assert run.verdict != "pass"
    _, tightest = _composition(run).details["certified_at"]
    wide = numpy_samplers.geometric_law(1 - math.exp(-2 * EPSILON))
    low, high = exp_bounds(Fraction(1))
    z = wide.difference(wide)
    assert numpy_samplers.shift_delta(z, 1, high) <= Fraction(tightest)
    assert Fraction(tightest) <= numpy_samplers.shift_delta(z, 1, low) * (1 + Fraction(1, 10**9))


def test_a_wide_histogram_is_read():
    """200 bins, 400 lattice elements: the probe's naming shifts n + rank are whole numbers (n·(1 + rank/n) was not,
    for n no power of two, and a histogram of more than a few bins was left unread)."""
    bins = pd.DataFrame({"bin": np.arange(40) * 37 % 200})

    def wide(data, rng):
        counts = np.bincount(np.clip(data["bin"].to_numpy(), 0, 199), minlength=200)
        return counts + rng.geometric(P, size=200) - rng.geometric(P, size=200)

    run = pdp_audit.audit_program(wide, bins, EPSILON, 1e-14, **{**OPTIONS, "bounds": {"bin": (0, 199)}})
    assert run.verdict == "pass"
