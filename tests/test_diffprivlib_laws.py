"""The closed forms of :mod:`pdp_audit.mechanisms.adapters.diffprivlib_laws` against mpmath: tail masses and
normalisers by quadrature of the Laplace density, the exponential mechanism's and randomised response's
probabilities summed at 40 digits.  Tolerances: 1e-12 relative to the size of the terms (every closed form here is a
few float operations on O(1) numbers).  Needs no diffprivlib (the adapter's audits are in tests/test_adapters.py)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pdp_audit.mechanisms.adapters import diffprivlib_laws as laws

mpmath.mp.dps = 40
TOL = 1e-12


def _density(v, b):
    return lambda o: mpmath.exp(-abs(o - v) / b) / (2 * b)


def _mass(v, b, lo, hi):
    """P(lo ≤ v + X ≤ hi) by quadrature, split at the kink."""
    points = [lo] + ([mpmath.mpf(v)] if lo < v < hi else []) + [hi]
    return mpmath.quad(_density(mpmath.mpf(v), mpmath.mpf(b)), points)


@pytest.mark.parametrize("t", [-30.0, -5.0, -0.3, 0.0, 0.7, 30.0])
def test_the_laplace_upper_tail_is_the_integral_of_the_density(t):
    b = 0.8
    exact = mpmath.log(_mass(0, b, mpmath.mpf(t), mpmath.inf))
    assert float(laws.log_upper_tail(t, b)) == pytest.approx(float(exact), rel=TOL, abs=TOL)


@pytest.mark.parametrize("v, v_prime", [(1.0, 2.0), (0.2, 2.9), (-1.0, 4.0), (3.5, 0.5)])
def test_the_truncated_laplace_loss_is_the_log_ratio_of_its_atoms_and_its_density(v, v_prime):
    """Inputs inside and outside [0, 3] (the library does not clip them): at the bounds the atoms' masses, inside
    the density; all by quadrature."""
    b, lower, upper = 0.9, 0.0, 3.0
    for o in (lower, upper):
        lo, hi = (-mpmath.inf, mpmath.mpf(lower)) if o == lower else (mpmath.mpf(upper), mpmath.inf)
        exact = mpmath.log(_mass(v, b, lo, hi)) - mpmath.log(_mass(v_prime, b, lo, hi))
        got = float(laws.truncated_laplace_loss(np.array([o]), v, v_prime, b, lower, upper)[0])
        assert got == pytest.approx(float(exact), rel=TOL, abs=TOL)
    for o in (0.4, 1.5, 2.99):
        exact = mpmath.log(_density(v, b)(o)) - mpmath.log(_density(v_prime, b)(o))
        got = float(laws.truncated_laplace_loss(np.array([o]), v, v_prime, b, lower, upper)[0])
        assert got == pytest.approx(float(exact), rel=TOL, abs=TOL)


@pytest.mark.parametrize("v, v_prime", [(0.15, 1.15), (0.0, 3.0), (-2.0, 1.0), (2.75, 0.75)])
def test_the_bounded_domain_loss_is_the_log_ratio_of_the_conditioned_densities(v, v_prime):
    """Laplace(v, b) conditioned on [0, 3], inputs clipped to it first: densities normalised by quadrature."""
    b, lower, upper = 1.52, 0.0, 3.0
    cv, cw = (min(max(x, lower), upper) for x in (v, v_prime))
    assert laws.log_bounded_mass(cv, b, lower, upper) == pytest.approx(float(mpmath.log(_mass(cv, b, 0, 3))), rel=TOL)
    for o in (0.0, 0.1, 1.4, 3.0):
        p, p_prime = (_density(x, b)(o) / _mass(x, b, 0, 3) for x in (cv, cw))
        exact = mpmath.log(p) - mpmath.log(p_prime)
        got = float(laws.bounded_domain_loss(np.array([o]), v, v_prime, b, lower, upper)[0])
        assert got == pytest.approx(float(exact), rel=TOL, abs=TOL)


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("measure", [None, [1.0, 2.0, 0.5, 1.0]])
def test_the_exponential_mechanism_log_probabilities_are_its_normalised_weights(monotonic, measure):
    """Utilities up to 1e3 (the exponentials overflow a float: the log-sum-exp must not)."""
    utility, epsilon, sensitivity = [0.0, 3.0, 1000.0, 999.5], 0.7, 2.0
    scale = mpmath.mpf(epsilon) / sensitivity / (2 - int(monotonic))
    weights = [mpmath.exp(scale * u) * (1 if measure is None else measure[i]) for i, u in enumerate(utility)]
    exact = [mpmath.log(w / mpmath.fsum(weights)) for w in weights]
    got = laws.exponential_log_probabilities(utility, epsilon, sensitivity, monotonic, measure)
    for g, e in zip(got, exact):
        assert g == pytest.approx(float(e), rel=TOL, abs=TOL * 1e3)  # terms of size ε·u/Δ ≈ 350


@pytest.mark.parametrize("epsilon", [0.01, 1.0, 30.0])
def test_randomised_response_keeps_the_label_with_probability_e_eps_over_e_eps_plus_one(epsilon):
    keep = mpmath.log(mpmath.exp(epsilon) / (mpmath.exp(epsilon) + 1))
    flip = mpmath.log(1 / (mpmath.exp(epsilon) + 1))
    for indicator, expected in ((0, (keep, flip)), (1, (flip, keep))):
        got = laws.binary_log_probabilities(epsilon, indicator)
        assert got == pytest.approx([float(x) for x in expected], rel=TOL, abs=TOL)
