"""Closed forms of the Gaussian mechanism against independent computations (mpmath, densities)."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_pdp as gp
from pdp_audit.mechanisms import gaussian_query as gq

mp.mp.dps = 60


def mp_delta(eps, sigma, sens):
    """Balle & Wang (2018) Theorem 8 at 60 digits."""
    eps, sigma, sens = mp.mpf(eps), mp.mpf(sigma), mp.mpf(sens)
    return mp.ncdf(sens / (2 * sigma) - eps * sigma / sens) - mp.exp(eps) * mp.ncdf(
        -sens / (2 * sigma) - eps * sigma / sens
    )


def mp_delta_by_integration(eps, sigma, sens):
    """Second derivation: the hockey-stick divergence E_P[(1 − e^{ε − L})_+] with L ~ N(η²/2, η²)."""
    eta = mp.mpf(sens) / sigma
    mean, sd = eta**2 / 2, eta

    def f(x):
        return (1 - mp.exp(eps - x)) * mp.npdf(x, mean, sd)

    return mp.quad(f, [eps, mean + 40 * sd if mean + 40 * sd > eps else eps + 40 * sd, mp.inf])


CASES = [
    (1.0, 3.7, 1.0),
    (0.1, 40.0, 1.0),
    (5.0, 1.0, 1.0),
    (10.0, 0.5, 1.0),
    (1.0, 10.0, 2.0),
    (0.5, 20.0, 3.0),
    (0.0, 2.0, 1.0),
    (3.0, 0.2, 0.1),
]


@pytest.mark.parametrize("eps,sigma,sens", CASES)
def test_analytic_delta_matches_mpmath(eps, sigma, sens):
    exact = mp_delta(eps, sigma, sens)
    assert g.analytic_delta(eps, sigma, sens) == pytest.approx(float(exact), rel=1e-10)


@pytest.mark.parametrize("eps,sigma,sens", CASES[:4])
def test_analytic_delta_is_the_hockey_stick_integral(eps, sigma, sens):
    assert float(mp_delta_by_integration(eps, sigma, sens)) == pytest.approx(
        float(mp_delta(eps, sigma, sens)), rel=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(0.01, 20), log_sigma=st.floats(-1.5, 2.0), sens=st.floats(0.1, 5))
def test_analytic_delta_random_against_mpmath(eps, log_sigma, sens):
    sigma = 10**log_sigma * sens
    exact = mp_delta(eps, sigma, sens)
    if exact < mp.mpf("1e-250"):  # below double range: nothing to compare
        return
    assert g.analytic_delta(eps, sigma, sens) == pytest.approx(float(exact), rel=1e-10)


@pytest.mark.parametrize(
    "eps,delta,sens", [(1.0, 1e-5, 1.0), (0.1, 1e-6, 1.0), (5.0, 1e-10, 2.0), (0.01, 0.1, 0.5), (20.0, 1e-3, 1.0)]
)
def test_analytic_sigma_and_epsilon_invert_delta(eps, delta, sens):
    sigma = g.analytic_sigma(eps, delta, sens)
    # Independent root in mpmath at 60 digits.
    ref_sigma = mp.findroot(lambda s: mp_delta(eps, s, sens) - delta, sigma)
    assert sigma == pytest.approx(float(ref_sigma), rel=1e-10)
    back = g.analytic_epsilon(delta, sigma, sens)
    ref_eps = mp.findroot(lambda e: mp_delta(e, sigma, sens) - delta, eps)
    assert back == pytest.approx(float(ref_eps), rel=1e-10)


def test_analytic_epsilon_is_zero_when_delta_is_large():
    assert g.analytic_epsilon(0.9, 10.0) == 0.0


@pytest.mark.parametrize(
    "bad", [dict(epsilon=-1, sigma=1), dict(epsilon=1, sigma=0), dict(epsilon=1, sigma=float("nan"))]
)
def test_analytic_delta_rejects_bad_input(bad):
    with pytest.raises(ValueError, match="epsilon|sigma"):
        g.analytic_delta(**bad)


def test_analytic_sigma_rejects_bad_delta():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        g.analytic_sigma(1.0, 1.5)


def test_classical_calibration_is_valid_for_small_epsilon_and_conservative():
    for eps in (0.1, 0.5, 0.99):
        sigma = g.classical_sigma(eps, 1e-5)
        assert g.analytic_delta(eps, sigma) <= 1e-5
        assert sigma > g.analytic_sigma(eps, 1e-5)


def test_theorem22_equals_density_ratio():
    rng = np.random.default_rng(1)
    pair = g.GaussianPair(rng.normal(size=4), rng.normal(size=4), 0.7)
    o = pair.sample("D", 1000, rng)
    # independent: scipy's multivariate normal log-densities
    ref = stats.multivariate_normal(pair.q_d, 0.49).logpdf(o) - stats.multivariate_normal(pair.q_dprime, 0.49).logpdf(o)
    np.testing.assert_allclose(pair.privacy_loss(o), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        gp.ex_post_pdp(o, pair.q_d, pair.delta_z, pair.sigma), np.abs(ref), rtol=1e-10, atol=1e-12
    )


def test_corollary23_failure_probability_against_numerical_integration():
    rho, sigma, dn = 0.05, 1.3, 0.9
    bound = gp.corollary23_ex_post_bound(rho, sigma, dn)
    mean, sd = gp.privacy_loss_law(dn, sigma)
    ref = stats.norm.sf(bound, mean, sd) + stats.norm.cdf(-bound, mean, sd)
    assert gp.corollary23_exact_failure_probability(rho, sigma, dn) == pytest.approx(ref, rel=1e-12)
    assert gp.corollary23_exact_failure_probability(rho, sigma, dn) < rho


def test_corollary23_pdp_bound_is_valid_but_loose():
    for dn in (0.1, 0.5, 1.0, 2.0):
        eps = gp.corollary23_pdp_epsilon(1e-5, 1.0, dn)
        assert g.analytic_delta(eps, 1.0, dn) <= 1e-5
        assert eps > g.analytic_epsilon(1e-5, 1.0, dn)


def test_optimal_tpr_matches_integration():
    eta = 0.8
    fpr = 0.01
    threshold = stats.norm.isf(fpr)  # in projected units: N(0,1) vs N(eta,1)
    ref = integrate.quad(lambda x: stats.norm.pdf(x, eta, 1), threshold, np.inf)[0]
    assert gp.optimal_test_tpr(fpr, eta, 1.0) == pytest.approx(ref, rel=1e-9)


def test_query_sensitivities_and_clipping():
    q = gq.Query("sum", 2.0)
    rows = np.array([[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_allclose(q(rows), [1.2 + 0.3, 1.6 + 0.4])
    mech = g.GaussianMechanism(q, 1.0)
    np.testing.assert_allclose(mech.per_instance_sensitivities(rows), [2.0, 0.5])
    pair = mech.pair(rows, rows[1], "remove")
    assert pair.delta_norm == pytest.approx(0.5)
    with pytest.raises(ValueError, match="remove"):
        mech.pair(rows, np.array([9.0, 9.0]), "remove")


def test_example4_candidates_footnote():
    loss = g.GaussianPair(np.zeros(1), np.ones(1), 1.0).privacy_loss(np.array([[0.1]]))[0]
    assert sorted(gp.example4_candidates(0.1, abs(loss), 1.0)) == pytest.approx([-0.8, 0.0])
    assert math.isclose(abs(loss), 0.4)


@pytest.mark.parametrize("eps,sigma", [(1.0, 1e300), (1e300, 1.0), (1.0, 1e160), (1e200, 1e-100)])
def test_delta_where_phi_underflows_is_zero_not_nan(eps, sigma):
    """main: NaN with a RuntimeWarning (log Φ(a) − log Φ(b) = −∞ + ∞).  δ ≤ Φ(a), a = Δ/(2σ) − εσ/Δ, which mpmath
    (Mills' ratio Φ(a) ≤ φ(a)/|a|) puts below the smallest normal float, so δ is 0 in float64."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        delta = g.analytic_delta(eps, sigma, 1.0)
    a = mp.mpf(1) / (2 * mp.mpf(sigma)) - mp.mpf(eps) * mp.mpf(sigma)
    bound = mp.exp(-(a**2) / 2) / (-a * mp.sqrt(2 * mp.pi))  # Φ(a) ≤ φ(a)/|a| for a < 0 (Mills' ratio)
    assert bound < mp.mpf(2.2250738585072014e-308) and delta == 0.0, (delta, bound)


def test_calibrations_beyond_the_range_searched_are_input_errors():
    """main: gaussian_epsilon(0.999999, 1e-300) raised ArithmeticError("could not bracket the root") after NaN
    warnings (its root, ≈ 1/(2σ²) = 5e599, is no float), as did gaussian_sigma(1e300, 1e-300)."""
    import warnings

    from pdp_audit.verify.inputs.validation import InputError

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match="sigma: 1e-300 with sensitivity 1 gives δ"):
            g.analytic_epsilon(0.999999, 1e-300)
        with pytest.raises(InputError, match="epsilon 1e\\+300 and delta 1e-300: the calibrated σ/Δ lies outside"):
            g.analytic_sigma(1e300, 1e-300)


def test_whitened_delta_and_epsilon_against_mpmath():
    """The vectorised forms the linear-regression audits use: the same δ(ε) at s = Δ/σ (relative 1e-12 of δ where δ is
    above 1e-300), 0 at s = 0, and the bisection's ε within its relative 1e-12 of the mpmath root."""
    eps = np.array([c[0] for c in CASES])
    s = np.array([c[2] / c[1] for c in CASES])
    got = g.whitened_delta(eps, s)
    want = np.array([float(mp_delta(*c)) for c in CASES])
    assert np.allclose(got, want, rtol=1e-12, atol=0.0)
    assert g.whitened_delta(1.0, 0.0) == 0.0
    for delta, sens in [(1e-5, 0.27), (1e-8, 1.0), (1e-3, 3.0)]:
        root = mp.findroot(lambda e: mp_delta(e, 1, sens) - delta, g.analytic_epsilon(delta, 1.0, sens))
        assert float(g.whitened_epsilon(delta, sens)[0]) == pytest.approx(float(root), rel=2e-12)


@pytest.mark.parametrize("sigma", [1e-163, 5e-155, 9.5e153, 1.3e154])
def test_gaussian_pair_names_the_sigma_its_loss_can_hold(sigma):
    """Outside SIGMA_RANGE the loss's 1/(2σ²) overflowed or divided by zero deep in an audit (an internal error);
    now the pair refuses σ in one line that names the range."""
    with pytest.raises(g.InputError, match=r"sigma must be between 1e-154 and 9e\+153"):
        g.GaussianPair([0.0], [1.0], sigma)


@pytest.mark.parametrize("sigma", [g.SIGMA_RANGE[0], 1e150])  # near the top, ‖o‖² itself overflows (numbers check it)
def test_gaussian_pair_losses_are_finite_at_the_ends_of_its_sigma_range(sigma):
    pair = g.GaussianPair([0.0], [sigma], sigma)  # Δ/σ = 1 at either end
    losses = pair.privacy_loss(pair.sample("D", 1000, np.random.default_rng(0)))
    assert np.all(np.isfinite(losses)) and abs(float(np.mean(losses)) - 0.5) < 0.2  # E[L] = Δ²/(2σ²) = 1/2
