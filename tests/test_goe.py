"""The largest GOE eigenvalue (Chiani 2014, Theorem 2), tau of [RW] Lemma 20, and the two Analyze-Gauss releases.

Every statistical test has a fixed seed and a false-alarm probability of at most 1e-6 (conftest), and
every one is shown able to fail: next to it the same statistic is computed for a broken variant
(wrong GOE scaling, wrong variance) and must land outside the acceptance region.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from pdp_audit.mechanisms import analyze_gauss as ag
from pdp_audit.mechanisms import goe
from pdp_audit.mechanisms.base import WORLDS

FALSE_ALARM = 1e-6


# ------------------------------------------------------------------------------------------------
# exact CDF: closed forms
# ------------------------------------------------------------------------------------------------
def test_d1_is_normal_with_variance_two():
    # d = 1: G = (Z + Z)/sqrt(2) = sqrt(2) Z ~ N(0, 2), so F(x) = Phi(x / sqrt(2)).
    x = np.array([-3.0, -0.7, 0.0, 0.4, 2.5, 5.0])
    np.testing.assert_allclose(goe.largest_eigenvalue_cdf(x, 1), stats.norm.cdf(x / math.sqrt(2)), rtol=1e-14, atol=0)
    # Chiani's unit normalisation would give Phi(x): must differ
    assert abs(goe.largest_eigenvalue_cdf(1.0, 1) - stats.norm.cdf(1.0)) > 0.05


def d2_closed_form(x: float) -> float:
    """d = 2, derived independently for G: lambda_max = (a+c)/2 + sqrt(((a-c)/2)^2 + b^2) with
    (a+c)/2, (a-c)/2, b iid N(0, 1) (a, c ~ N(0, 2), b ~ N(0, 1)); so lambda_max = M + R, M ~ N(0, 1),
    R Rayleigh(1) independent, and integrating by parts
        F(x) = int_0^inf r e^(-r^2/2) Phi(x - r) dr = Phi(x) - e^(-x^2/4) Phi(x / sqrt(2)) / sqrt(2).
    At x = 0 this is GOE.md's (1 - 1/sqrt(2)) / 2 (scale-free at 0)."""
    return stats.norm.cdf(x) - math.exp(-x * x / 4) * stats.norm.cdf(x / math.sqrt(2)) / math.sqrt(2)


@pytest.mark.parametrize("x", [-2.0, -0.5, 0.0, 0.8, 1.7, 3.0, 6.0])
def test_d2_closed_form(x):
    assert goe.largest_eigenvalue_cdf(x, 2) == pytest.approx(d2_closed_form(x), rel=1e-13, abs=1e-16)


def test_d2_value_at_zero_from_goe_md():
    assert goe.largest_eigenvalue_cdf(0.0, 2) == pytest.approx((1 - 1 / math.sqrt(2)) / 2, rel=1e-14)
    # the closed form itself integrates the density it claims (second, numerical, derivation)
    x = 1.3
    numeric = integrate.quad(lambda r: r * math.exp(-r * r / 2) * stats.norm.cdf(x - r), 0, np.inf)[0]
    assert numeric == pytest.approx(d2_closed_form(x), rel=1e-10)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 7, 12, 25, 40])
def test_cdf_at_plus_infinity_is_one(d):
    # evaluated through the formula's limit (E = 0), not special-cased: checks Chiani's constant K_n
    assert goe.largest_eigenvalue_cdf(math.inf, d) == pytest.approx(1.0, abs=1e-14)
    assert goe.largest_eigenvalue_cdf(2 * math.sqrt(d) + 14, d) == pytest.approx(1.0, abs=1e-14)
    assert goe.largest_eigenvalue_cdf(-math.inf, d) == 0.0


@pytest.mark.parametrize("d", [3, 8, 20])
def test_cdf_is_increasing_between_zero_and_one(d):
    x = 2 * math.sqrt(d) + np.linspace(-6, 6, 13)
    f = goe.largest_eigenvalue_cdf(x, d)
    assert f.shape == x.shape
    assert np.all(np.diff(f) > 0) and f[0] >= 0 and f[-1] <= 1


def test_skew_matrix_is_skew_symmetric():
    # rows are built by recursion in j and column 1 by skew-symmetry; the rest must come out skew
    for n in (5, 6):
        a = goe._skew_matrix(mpmath.mpf("1.3"), n, 60)
        tol = 1 << 40  # ~2^-(bits-40): rounding of independent recursions
        assert all(abs(a[i, j] + a[j, i]) < tol for i in range(a.shape[0]) for j in range(a.shape[0]))


def test_scalar_returns_float_and_array_keeps_shape():
    assert isinstance(goe.largest_eigenvalue_cdf(1.0, 3), float)
    out = goe.largest_eigenvalue_cdf(np.array([[0.0, 1.0], [2.0, 3.0]]), 3)
    assert out.shape == (2, 2) and out.dtype == float


# ------------------------------------------------------------------------------------------------
# exact CDF: precision
# ------------------------------------------------------------------------------------------------
@pytest.mark.tier2(cases=("100",))
@pytest.mark.parametrize("d", [20, 60, 100])
def test_two_precisions_agree(d):
    for offset in (-2.0, 0.0, 3.0, 6.0):
        u = (2 * math.sqrt(d) + offset) / math.sqrt(2)
        base = goe.default_dps(d, u)
        low = goe.unit_goe_cdf_mp(u, d, base)
        high = goe.unit_goe_cdf_mp(u, d, base + 60)
        assert abs(low - high) < 1e-12
        # the upper tail too, relatively (what tau is solved on)
        assert abs((1 - low) / (1 - high) - 1) < 1e-10


def test_too_low_precision_is_detected():
    # double-like precision is garbage at d = 60 (GOE.md): the comparison above would catch it
    u = (2 * math.sqrt(60) + 3.0) / math.sqrt(2)
    assert abs(goe.unit_goe_cdf_mp(u, 60, 20) - goe.unit_goe_cdf_mp(u, 60, 200)) > 1e-3


# ------------------------------------------------------------------------------------------------
# exact CDF against Monte Carlo of this very G
# ------------------------------------------------------------------------------------------------
MC_DIMS = {2: 40_000, 5: 40_000, 10: 40_000, 30: 20_000}
MC_OFFSETS = (-1.5, 0.0, 1.0)  # x = 2 sqrt(d) + offset: bulk, edge, upper tail
# 12 two-sided binomial tests, Bonferroni: each at 1e-6/12, so two-sided tails of 1e-6/24 each.
# Normal approximation of the critical value: |z| > 5.36 (stats.norm.isf(1e-6/24) = 5.3598);
# exact binomial critical counts are computed below with stats.binom.ppf / isf.
PER_TEST = FALSE_ALARM / (len(MC_DIMS) * len(MC_OFFSETS))


def binomial_acceptance(trials: int, p: float, alpha: float) -> tuple[int, int]:
    """Counts k with P[K < lo] <= alpha/2 and P[K > hi] <= alpha/2 under Bin(trials, p)."""
    return int(stats.binom.ppf(alpha / 2, trials, p)), int(stats.binom.isf(alpha / 2, trials, p))


@pytest.mark.tier2(cases=("30",))
@pytest.mark.parametrize("d", sorted(MC_DIMS))
def test_exact_cdf_matches_monte_carlo(d):
    trials = MC_DIMS[d]
    lam = goe.sample_goe_extreme_eigenvalues(d, trials, np.random.default_rng(20240 + d))[:, 1]
    for offset in MC_OFFSETS:
        x = 2 * math.sqrt(d) + offset
        p = goe.largest_eigenvalue_cdf(x, d)
        lo, hi = binomial_acceptance(trials, p, PER_TEST)
        count = int(np.sum(lam <= x))
        assert lo <= count <= hi, (d, x, p, count / trials, lo, hi)
        # power: Chiani's unit normalisation read as if it were G's (x not divided by sqrt 2) is rejected
        wrong = float(goe.unit_goe_cdf_mp(x, d))
        wlo, whi = binomial_acceptance(trials, wrong, PER_TEST)
        assert not wlo <= count <= whi


def test_monte_carlo_estimator_interval():
    est = goe.monte_carlo_cdf(2.0, 2, 20_000, np.random.default_rng(5), level=1 - FALSE_ALARM)
    assert est.lower <= d2_closed_form(2.0) <= est.upper
    assert est.trials == 20_000 and est.estimate == est.successes / est.trials


# ------------------------------------------------------------------------------------------------
# Tracy-Widom beta = 1
# ------------------------------------------------------------------------------------------------
@pytest.mark.tier2
def test_tracy_widom_moments():
    # E s = int_0^inf (1 - F) - int_-inf^0 F,  E s^2 = 2 int_0^inf s (1 - F) - 2 int_-inf^0 s F;
    # tails beyond [-10, 14] are below 1e-17; Gauss-Legendre with 60 nodes per half (smooth integrands: the moments
    # agree with 40 and 120 nodes' to 1e-13, and a CDF shifted by 1e-8 moves the mean by 1e-8, ten times the tolerance)
    t, w = np.polynomial.legendre.leggauss(60)
    neg, pos = 5 * (t - 1), 7 * (t + 1)  # [-10, 0] and [0, 14]
    f_neg = np.array([goe.tracy_widom1_cdf(s) for s in neg]) * 5 * w
    sf_pos = np.array([goe.tracy_widom1_sf(s) for s in pos]) * 7 * w
    mean = sf_pos.sum() - f_neg.sum()
    second = 2 * (pos * sf_pos).sum() - 2 * (neg * f_neg).sum()
    assert mean == pytest.approx(-1.2065335746, abs=1e-9)
    assert second - mean**2 == pytest.approx(1.6077810346, abs=1e-9)


def test_tracy_widom_quantile_inverts_cdf():
    for p in (1e-6, 0.3, 0.5, 0.9, 1 - 1e-7):
        s = goe.tracy_widom1_quantile(p)
        if p < 0.5:
            assert goe.tracy_widom1_cdf(s) == pytest.approx(p, rel=1e-9)
        else:
            assert goe.tracy_widom1_sf(s) == pytest.approx(1 - p, rel=1e-9)


def tw_sup_error(d: int, offsets: np.ndarray) -> float:
    xs = 2 * math.sqrt(d) + offsets
    return float(np.max(np.abs(goe.largest_eigenvalue_cdf(xs, d) - [goe.largest_eigenvalue_cdf_tw(x, d) for x in xs])))


# slow: fast elsewhere (test_tracy_widom_moments and the smaller dimensions)
@pytest.mark.slow
def test_tracy_widom_close_to_exact_at_d100():
    # stated tolerance: sup |F_TW - F_exact| <= 0.05 on the edge window (measured 0.034 at d = 100,
    # the O(d^(-2/3)) finite-size error) and tau within 1% (measured 0.27% at rho = 0.1, 0.39% at 8.5e-6)
    offsets = np.linspace(-3, 4, 8)
    err100 = tw_sup_error(100, offsets)
    assert err100 < 0.05
    t_exact = goe.tau(100, 1e-4, method="exact").tau
    t_tw = goe.tau(100, 1e-4, method="tracy-widom").tau
    assert abs(t_tw / t_exact - 1) < 0.01
    # and the approximation improves with d (it is an edge limit)
    assert err100 < tw_sup_error(10, offsets)


# ------------------------------------------------------------------------------------------------
# tau ([RW] Lemma 20) and the K16 / Q4 normalisation
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "d,rho,sigma", [(1, 0.1, 1.0), (2, 1e-3, 2.5), (7, 0.05, 0.3), (50, 8.465e-6, 1.0), (50, 0.2, 3.0)]
)
def test_tau_round_trips(d, rho, sigma):
    result = goe.tau(d, rho, sigma)
    assert result.method == "exact" and result.as_dict()["tau"] == result.tau
    u = result.tau / (sigma * math.sqrt(2))
    tail = 1 - goe.unit_goe_cdf_mp(u, d, goe.default_dps(d, u) + 20)
    assert float(tail / (rho / 2)) == pytest.approx(1.0, rel=1e-6)
    assert goe.largest_eigenvalue_cdf(result.tau / sigma, d) == pytest.approx(1 - rho / 2, abs=1e-12)


def test_tau_d1_closed_form():
    rho, sigma = 0.01, 1.7
    assert goe.tau(1, rho, sigma).tau == pytest.approx(sigma * math.sqrt(2) * stats.norm.isf(rho / 2), rel=1e-9)


def test_tau_methods_and_auto_switch():
    assert goe.tau(5, 0.1, exact_max_d=4).method == "tracy-widom"
    assert goe.tau(5, 0.1).method == "exact"
    assert goe.tau(400, 0.1).method == "tracy-widom"


def test_k16_twelve_is_the_unit_goe_quantile_not_algorithm6s():
    """[RW] K16 / Q4: "F^-1_(lambda_1 of GOE(50))(1 - rho/2) = 12 at rho = 8.465e-6" holds for Chiani's
    unit GOE (Z + Z^T)/2 (diagonal variance 1); for the (Z + Z^T)/sqrt(2) that Lemma 20 names and
    Algorithm 6 adds, the quantile is 12 sqrt(2) = 16.97, and ||N||_2 <= 12 sigma_3 holds w.p. < 0.9%."""
    result = goe.tau(50, 8.465e-6)
    assert result.tau / math.sqrt(2) == pytest.approx(12.0, abs=1e-5)  # unit GOE: 11.9999987
    assert result.tau == pytest.approx(12 * math.sqrt(2), abs=2e-5)
    lower, upper = goe.spectral_norm_probability_bounds(50, 12.0)
    assert upper < 0.01  # P[lambda_max(G) <= 12] = 0.00898


def test_lemma20_coverage_by_monte_carlo():
    # P[||N||_2 <= tau] >= 1 - rho (Lemma 20), exactly between 1 - rho and 1 - rho/2 (union bound);
    # one-sided test of ">= 1 - rho" and of the exact bracket, each inside a 1 - 1e-6 Clopper-Pearson interval.
    d, rho, sigma, trials = 10, 0.1, 2.0, 100_000
    t = goe.tau(d, rho, sigma).tau
    lower, upper = goe.spectral_norm_probability_bounds(d, t, sigma)
    assert lower == pytest.approx(1 - rho, abs=1e-9) and upper == pytest.approx(1 - rho / 2, abs=1e-9)
    est = goe.spectral_norm_coverage(d, t, trials, np.random.default_rng(77), sigma, level=1 - FALSE_ALARM)
    assert est.upper >= lower and est.lower <= upper
    # "how close to 1 - rho": lambda_1 and -lambda_d nearly independent, so about 1 - rho + rho^2/4
    assert est.lower <= 1 - rho + rho**2 / 4 <= est.upper
    # power: the paper's tau = 12 at d = 50 with Algorithm 6's noise is far from 1 - 8.5e-6
    bad = goe.spectral_norm_coverage(50, 12.0, 2_000, np.random.default_rng(78), 1.0, level=1 - FALSE_ALARM)
    assert bad.upper < 0.05


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: goe.tau(10, 0.0), "rho must be in (0, 1)"),
        (lambda: goe.tau(10, 1.5), "rho must be in (0, 1)"),
        (lambda: goe.tau(0, 0.1), "d must be an integer >= 1"),
        (lambda: goe.tau(10, 0.1, sigma=-1.0), "sigma must be a finite number > 0"),
        (lambda: goe.tau(10, 0.1, method="bogus"), "method must be one of"),
        (lambda: goe.largest_eigenvalue_cdf(1.0, 2.5), "d must be an integer >= 1"),
        (lambda: goe.largest_eigenvalue_cdf(float("nan"), 3), "x must not be NaN"),
        (lambda: goe.largest_eigenvalue_cdf(1.0, 3, dps=5), "dps must be an integer >= 15"),
    ],
)
def test_bad_input_raises(call, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


# ------------------------------------------------------------------------------------------------
# the releases: Analyze Gauss (M15) and Algorithm 6 (M14)
# ------------------------------------------------------------------------------------------------
def goe_vech_covariance(d: int, sigma3: float) -> np.ndarray:
    """Cov of vech((Z + Z^T)/sqrt(2)) from the linear map vec(Z) -> vech, independently of the per-coordinate sds."""
    rows, cols = np.triu_indices(d)
    t = np.zeros((len(rows), d * d))
    for k, (i, j) in enumerate(zip(rows, cols)):
        t[k, i * d + j] += 1 / math.sqrt(2)
        t[k, j * d + i] += 1 / math.sqrt(2)
    return sigma3**2 * t @ t.T


def random_problem(rng, d=4):
    x = rng.standard_normal((6, d))
    z = rng.standard_normal(d)
    return x.T @ x, 0.3 * np.outer(z, z)


@pytest.mark.parametrize("neighbour", ["add", "remove"])
def test_privacy_losses_equal_scipy_logpdf_difference(neighbour):
    rng = np.random.default_rng(11)
    h, delta = random_problem(rng)
    d = h.shape[0]
    sign = 1 if neighbour == "add" else -1
    m, mp_ = ag.vech(h), ag.vech(h + sign * delta)
    for pair, cov in [
        (ag.AnalyzeGaussPair(h, delta, 0.8, neighbour), 0.64 * np.eye(len(m))),
        (ag.GoeAnalyzeGaussPair(h, delta, 0.6, neighbour), goe_vech_covariance(d, 0.6)),
    ]:
        for world in WORLDS:
            o = pair.sample(world, 500, rng)
            assert o.shape == (500, pair.output_dim) == (500, d * (d + 1) // 2)
            expected = stats.multivariate_normal(m, cov).logpdf(o) - stats.multivariate_normal(mp_, cov).logpdf(o)
            np.testing.assert_allclose(pair.privacy_loss(o), expected, rtol=1e-9, atol=1e-9)


def test_algorithm6_noise_has_the_derived_covariance():
    # the sampler draws Z literally; its empirical covariance matches the sds used by privacy_loss
    pair = ag.GoeAnalyzeGaussPair(np.eye(3), np.eye(3), 1.5)
    noise = pair.sample("D", 200_000, np.random.default_rng(3)) - ag.vech(np.eye(3))
    np.testing.assert_allclose(np.cov(noise.T), np.diag(pair.noise_sd**2), atol=0.05)
    np.testing.assert_allclose(pair.noise_sd**2, np.diag(goe_vech_covariance(3, 1.5)))


def e_minus_l_statistic(pair, rng, trials=200_000) -> float:
    """z-statistic of mean(e^{-L}) - 1 under D (E_D[p_D'/p_D] = 1 for a correct density ratio)."""
    w = np.exp(-pair.privacy_loss(pair.sample("D", trials, rng)))
    return (w.mean() - 1) / (w.std(ddof=1) / math.sqrt(trials))


# two-sided z at false alarm 1e-6 over the 6 example pairs (Bonferroni): norm.isf(1e-6/12) = 5.36.
# e^{-L} is lognormal with eta <= 1.1 here (variance e^{eta^2} - 1 <= 2.4), so the CLT holds at 2e5.
Z_CRIT = stats.norm.isf(FALSE_ALARM / 12)


@pytest.mark.parametrize("examples", [ag._analyze_gauss_examples, ag._goe_examples])
def test_expected_likelihood_ratio_is_one(examples):
    rng = np.random.default_rng(99)
    for pair in examples(np.random.default_rng(1)):
        assert 0.3 < pair.eta < 1.5  # losses O(1)
        assert abs(e_minus_l_statistic(pair, rng)) < Z_CRIT


def test_broken_variance_fails_expected_likelihood_ratio():
    rng = np.random.default_rng(100)
    h, delta = np.eye(3), np.diag([1.0, 0.8, 0.6])
    # Algorithm 6's classic slip: diagonal variance sigma_3^2 instead of 2 sigma_3^2 in the density
    broken = ag.GoeAnalyzeGaussPair(h, delta, 0.8)
    broken.noise_sd = np.full(broken.output_dim, 0.8)
    assert abs(e_minus_l_statistic(broken, rng)) > Z_CRIT
    # Analyze Gauss with a 15% wrong sd
    broken = ag.AnalyzeGaussPair(h, delta, 1.0)
    broken.noise_sd = broken.noise_sd * 1.15
    assert abs(e_minus_l_statistic(broken, rng)) > Z_CRIT


def test_privacy_loss_law_is_gaussian_with_the_stated_eta():
    rng = np.random.default_rng(4)
    h, delta = random_problem(rng)
    for pair, eta in [
        (ag.AnalyzeGaussPair(h, delta, 0.8), ag.analyze_gauss_sensitivity(delta) / 0.8),
        (ag.GoeAnalyzeGaussPair(h, delta, 0.6), ag.goe_sensitivity(delta) / 0.6),
    ]:
        assert pair.eta == pytest.approx(eta, rel=1e-12)
        loss = pair.privacy_loss(pair.sample("D", 100_000, rng))
        # KS at level 1e-6 against N(eta^2/2, eta^2)
        assert stats.kstest(loss, "norm", args=(eta**2 / 2, eta)).pvalue > FALSE_ALARM


def test_theorem17_ex_post_equals_absolute_privacy_loss():
    rng = np.random.default_rng(8)
    h, delta = random_problem(rng, d=3)
    sigma3 = 0.7
    pair = ag.GoeAnalyzeGaussPair(h, delta, sigma3, "add")
    out = pair.sample("D", 1000, rng)
    noise = ag.unvech(out, 3) - h
    np.testing.assert_allclose(
        ag.theorem17_ex_post_epsilon(delta, noise, sigma3), np.abs(pair.privacy_loss(out)), rtol=1e-9
    )


@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_theorem17_and_classical_bounds_are_valid(delta):
    # Theorem 17's eps meets (eps, delta) for the exact Gaussian loss law, and is ex-post valid w.p. >= 1 - 2 delta
    from pdp_audit.mechanisms import gaussian

    h_x = np.diag([0.6, 0.3]) + 0.2 * np.ones((2, 2))
    for sigma3 in (0.3, 1.0, 4.0):
        eta = ag.goe_sensitivity(h_x) / sigma3
        eps = ag.theorem17_epsilon(float(np.linalg.norm(h_x)), sigma3, delta)
        assert eps == pytest.approx(eta**2 / 2 + eta * math.sqrt(2 * math.log(1 / delta)), rel=1e-12)
        assert gaussian.analytic_delta(eps, 1.0, eta) <= delta
        fail = stats.norm.sf(eps, eta**2 / 2, eta) + stats.norm.cdf(-eps, eta**2 / 2, eta)
        assert fail <= 2 * delta
        # classical bound of Analyze Gauss at s = sqrt(2) sigma_3: same number (K15, [RW] App D)
        beta = float(np.linalg.norm(h_x))
        assert ag.analyze_gauss_epsilon(beta, math.sqrt(2) * sigma3, delta) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-6), (1.0, 1e-5), (4.0, 1e-8)])
def test_k15_half_the_off_diagonal_variance(eps, delta):
    cmp = ag.k15_comparison(eps, delta, beta=1.0, d=50)
    assert cmp.off_diagonal_variance_ratio == pytest.approx(0.5, rel=1e-9)
    assert cmp.diagonal_variance_ratio == pytest.approx(1.0, rel=1e-9)
    assert cmp.frobenius_ratio == pytest.approx(51 / 100, rel=1e-9)
    # calibrated releases on their worst cases have the same exact privacy-loss law
    worst = np.diag([1.0, 0.0, 0.0])
    a = ag.AnalyzeGaussPair(np.eye(3), worst, cmp.analyze_gauss_sigma)
    g = ag.GoeAnalyzeGaussPair(np.eye(3), np.outer([1, 1, 1], [1, 1, 1]) / 3, cmp.goe_sigma3)
    assert a.eta == pytest.approx(g.eta, rel=1e-9)


def test_per_instance_variance_ratio_range():
    assert ag.per_instance_variance_ratio(np.diag([1.0, 0, 0])) == pytest.approx(0.5)
    x = np.ones(4) / 2
    assert ag.per_instance_variance_ratio(np.outer(x, x)) == pytest.approx(4 / 5)


def test_rank_one_variance_ratios_is_the_per_instance_ratio_of_x_xT():
    rows = np.random.default_rng(5).standard_normal((6, 4))
    expected = [ag.per_instance_variance_ratio(np.outer(x, x)) for x in rows]
    assert ag.rank_one_variance_ratios(rows) == pytest.approx(expected, rel=1e-12)


def test_paper_calibrations_are_the_closed_forms_inverted():
    eps, delta, beta = 0.7, 1e-6, 1.5
    sigma3, s = ag.calibrate_releases(eps, delta, beta, "paper")
    assert ag.theorem17_epsilon(beta, sigma3, delta) == pytest.approx(eps, rel=1e-12)
    assert ag.analyze_gauss_epsilon(beta, s, delta) == pytest.approx(eps, rel=1e-12)
    assert sigma3 == pytest.approx(s / math.sqrt(2), rel=1e-12)


def test_registered_examples_are_valid_pairs():
    from pdp_audit.mechanisms.base import NeighbourPair
    from pdp_audit.mechanisms.catalogue import registered

    for name in ("analyze-gauss", "goe-analyze-gauss"):
        pairs = registered()[name].example_pairs(np.random.default_rng(0))
        assert {p.neighbour for p in pairs} == {"add", "remove"}
        for p in pairs:
            assert isinstance(p, NeighbourPair) and p.output_dim == 6
            a = p.sample("D", 10, np.random.default_rng(5))
            np.testing.assert_array_equal(a, p.sample("D", 10, np.random.default_rng(5)))


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: ag.AnalyzeGaussPair(np.eye(2), np.eye(2), 0.0), "sigma must be a finite number > 0"),
        (lambda: ag.GoeAnalyzeGaussPair(np.eye(2), np.eye(3), 1.0), "delta must have the shape of h"),
        (lambda: ag.GoeAnalyzeGaussPair(np.eye(2), np.eye(2), 1.0, "swap"), "neighbour must be 'add' or 'remove'"),
        (
            lambda: ag.GoeAnalyzeGaussPair(np.array([[1.0, 2.0], [0.0, 1.0]]), np.eye(2), 1.0),
            "h must be a finite symmetric matrix",
        ),
        (lambda: ag.theorem17_epsilon(1.0, 1.0, 1.5), "delta must be in (0, 1)"),
    ],
)
def test_release_bad_input_raises(call, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()
