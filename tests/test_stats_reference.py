"""Clopper–Pearson and Holm (``pdp_audit.verify.estimators.stats``) against statsmodels, their independent reference:
the same bits on random inputs, degenerate counts and ties included (statsmodels is installed for the linear-regression
benchmark's data sets; the suite's own code no longer imports it)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from pdp_audit.verify.estimators.stats import clopper_pearson, holm

ALPHAS = st.sampled_from([1e-12, 1e-7, 1e-6, 1e-3, 0.05, 0.3])


@settings(max_examples=100, deadline=None)
@given(
    nobs=st.integers(min_value=1, max_value=10**9),
    share=st.floats(min_value=0, max_value=1),
    alpha=ALPHAS,
    side=st.sampled_from(["two-sided", "lower", "upper"]),
)
def test_clopper_pearson_is_statsmodels_beta_interval(nobs, share, alpha, side):
    count = float(round(share * nobs))
    lo, hi = clopper_pearson(count, nobs, alpha, side)
    ref_lo, ref_hi = proportion_confint(count, nobs, alpha=alpha if side == "two-sided" else 2 * alpha, method="beta")
    ref_lo = 0.0 if count == 0 or side == "upper" else ref_lo
    ref_hi = 1.0 if count == nobs or side == "lower" else ref_hi
    assert (float(lo), float(hi)) == (float(ref_lo), float(ref_hi))


def test_clopper_pearson_vectorised_matches_elementwise():
    counts = np.array([0.0, 1.0, 50.0, 99.0, 100.0])
    lo, hi = clopper_pearson(counts, 100, 1e-6)
    for c, l_, h in zip(counts, lo, hi):
        assert (l_, h) == tuple(float(x) for x in clopper_pearson(c, 100, 1e-6))


@pytest.mark.parametrize("side", ["two-sided", "lower", "upper"])
@pytest.mark.parametrize("alpha", [1e-60, 1e-6, 0.05, 0.999])
def test_clopper_pearson_is_scipys_public_beta_quantiles_bit_for_bit(side, alpha):
    """The bounds call the beta distribution's own quantile hooks on the valid parameters, skipping scipy's generic
    wrapper: the same bits as ``stats.beta.ppf``/``isf`` on arrays with fractional, degenerate and impossible
    counts (above nobs, negative: NaN from the wrapper, an end of [0, 1] here as before)."""
    from scipy import stats

    nobs = 2000.0
    counts = np.array([-1.0, 0.0, 0.5, 1.0, 7.25, 999.0, 1999.0, 1999.5, 2000.0, 2001.0, 1e4])
    q = (alpha if side == "two-sided" else 2 * alpha) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ref_lo = np.where(counts == 0, 0.0, np.nan_to_num(stats.beta.ppf(q, counts, nobs - counts + 1), nan=0.0))
        ref_hi = np.where(counts == nobs, 1.0, np.nan_to_num(stats.beta.isf(q, counts + 1, nobs - counts), nan=1.0))
    lo, hi = clopper_pearson(counts, nobs, alpha, side)
    assert lo.tobytes() == (np.zeros_like(ref_lo) if side == "upper" else ref_lo).tobytes()
    assert hi.tobytes() == (np.ones_like(ref_hi) if side == "lower" else ref_hi).tobytes()


def statsmodels_holm(pvalues, alpha):
    """statsmodels' ``multipletests(method="holm")`` without the ``gc.collect()`` it runs on every Holm call (most of
    this file's time in a test process full of objects); its numbers do not depend on it."""
    with mock.patch("gc.collect"):
        return multipletests(pvalues, alpha=alpha, method="holm")


@settings(max_examples=40, deadline=None)
@given(
    pvalues=st.lists(
        st.one_of(st.floats(min_value=0, max_value=1), st.sampled_from([0.0, 1e-7, 0.01, 0.5, 1.0])),
        min_size=1,
        max_size=30,
    ),
    alpha=ALPHAS,
)
def test_holm_is_statsmodels_holm(pvalues, alpha):
    reject, adjusted, _, _ = statsmodels_holm(pvalues, alpha)
    assert holm(pvalues, alpha) == ([bool(r) for r in reject], [float(p) for p in adjusted])


@pytest.mark.parametrize("broken", ["no-step-down", "no-monotone"])
def test_the_comparison_catches_a_wrong_holm(broken):
    """A Bonferroni in Holm's place, or adjusted values left unaccumulated, differ from statsmodels somewhere."""
    pvalues = [0.01, 0.015, 0.04, 0.9] if broken == "no-step-down" else [0.011, 0.04, 0.01, 0.9]
    alpha = 0.05
    reject, adjusted, _, _ = statsmodels_holm(pvalues, alpha)
    ordered = np.sort(pvalues)
    if broken == "no-step-down":
        wrong = [bool(p <= alpha / len(pvalues)) for p in pvalues]
        assert wrong != [bool(r) for r in reject]
    else:
        raw = ordered * np.arange(len(ordered), 0, -1)
        assert not np.array_equal(np.minimum(raw, 1), np.sort(adjusted))


def test_beta_quantiles_with_a_level_per_element_are_scipys_bit_for_bit():
    """beta_ppf/beta_isf (one level per element, what the consistency test's bisection asks) give the bits of
    ``stats.beta.ppf``/``isf``, invalid parameters NaN as there."""
    from scipy import stats

    from pdp_audit.verify.estimators.stats import beta_isf, beta_ppf

    rng = np.random.default_rng(3)
    q = np.exp(rng.uniform(np.log(1e-300), np.log(0.5), 400))
    a, b = rng.integers(1, 10**6, 400).astype(float), rng.integers(1, 10**6, 400).astype(float)
    a[:5], b[5:10] = 0.0, -1.0
    with np.errstate(invalid="ignore"):
        assert beta_ppf(q, a, b).tobytes() == stats.beta.ppf(q, a, b).tobytes()
        assert beta_isf(q, a, b).tobytes() == stats.beta.isf(q, a, b).tobytes()


@pytest.mark.parametrize(
    "mean, nobs, alpha", [(0.0, 23_328, 1e-9), (1e-4, 23_328, 1e-9), (0.3, 100, 0.05), (0.9, 50, 1e-6), (0.0, 1, 0.5)]
)
def test_the_relative_entropy_bound_is_the_root_mpmath_finds(mean, nobs, alpha):
    """relative_entropy_upper against the root of n·kl(x ‖ q) = log(1/α) above x found by mpmath at 50 digits: equal
    to a relative 1e-8 (the bisection's halvings and the conservative rounding are far below it), and never below."""
    import mpmath

    from pdp_audit.verify.estimators.stats import relative_entropy_upper

    mpmath.mp.dps = 50
    x, level = mpmath.mpf(mean), mpmath.log(1 / mpmath.mpf(alpha)) / nobs

    def kl(q):
        left = x * mpmath.log(x / q) if x > 0 else 0
        return left + (1 - x) * mpmath.log((1 - x) / (1 - q)) - level

    root = float(mpmath.findroot(kl, (x + mpmath.mpf(10) ** -30, 1 - mpmath.mpf(10) ** -30), solver="bisect"))
    bound = relative_entropy_upper(mean, nobs, alpha)
    assert root <= bound <= root * (1 + 1e-8)


def test_the_relative_entropy_bound_is_never_below_the_exact_binomial_bound():
    """For Bernoulli draws the Clopper–Pearson upper bound is exact and Hoeffding's is a Chernoff bound of the same
    tail, P(X̄ ≤ x) ≤ exp(−n·kl(x ‖ q)): so the relative-entropy bound is at least Clopper–Pearson's at every count,
    size and level -- an independent computation (scipy's beta quantiles), below which a bound with twice the draws it
    was given falls (the broken input the comparison catches)."""
    from pdp_audit.verify.estimators.stats import relative_entropy_upper

    counts = np.array([0, 1, 2, 5, 30, 99, 500, 999])
    for nobs in (1_000, 23_328, 10**6):
        for alpha in (1e-9, 1e-3, 0.05, 0.3):
            exact = clopper_pearson(counts, nobs, alpha, side="upper")[1]
            assert np.all(relative_entropy_upper(counts / nobs, nobs, alpha) >= exact)
            assert np.any(relative_entropy_upper(counts / nobs, 2 * nobs, alpha) < exact)


def test_one_means_relative_entropy_bound_is_the_arrays_bit_for_bit():
    """The scalar path of ``relative_entropy_upper`` (the looks read thousands of single bounds) repeats the array
    path's bisection and IEEE operations: the same float for every mean, count and level, edges included."""
    from pdp_audit.verify.estimators.stats import relative_entropy_upper

    rng = np.random.default_rng(5)
    means = np.concatenate([rng.random(400), rng.random(200) * 1e-5, [0.0, 1.0, 1 - 1e-12, 1e-300, 0.5, -0.1, 1.5]])
    counts = rng.integers(1, 10**6, size=means.size).astype(float)
    counts[:3] = [0.0, 0.5, 1.0]
    for alpha in (1e-6, 0.05, 2.5e-7):
        arrays = relative_entropy_upper(means, counts, alpha)
        ones = np.array([relative_entropy_upper(float(m), float(n), alpha) for m, n in zip(means, counts)])
        assert ones.tobytes() == arrays.tobytes()


def test_the_beta_quantiles_are_scipy_stats_beta_bit_for_bit_far_beyond_the_audits():
    """The bounds take the beta quantiles from scipy.special's public inverses of the incomplete beta function
    without importing scipy.stats: on this scipy they must be ``stats.beta.ppf`` and ``isf``'s bits, over parameters
    far beyond what the audits ask and levels down to 1e-60 (α ≥ 1e-50 split over checks).  Below, scipy.stats'
    ppf gives up in its root finding and returns its last iterate (I_x(a, b) off by e^200 at 1e-150): where the
    two differ there, ours is the one that inverts I_x(a, b)."""
    from scipy import special, stats

    from pdp_audit.verify.estimators import stats as ours

    rng = np.random.default_rng(7)
    a, b = (10.0 ** rng.uniform(-3, 9, 20_000) for _ in range(2))
    with np.errstate(all="ignore"):
        q = 10.0 ** rng.uniform(-60, 0, 20_000) * (1 - 1e-16)
        assert ours.beta_ppf(q, a, b).tobytes() == stats.beta.ppf(q, a, b).tobytes()
        assert ours.beta_isf(q, a, b).tobytes() == stats.beta.isf(q, a, b).tobytes()
        assert ours.beta_ppf(0.5, 3.0, 4.0) == stats.beta.ppf(0.5, 3.0, 4.0)
        q = 10.0 ** rng.uniform(-300, -60, 20_000)
        assert ours.beta_isf(q, a, b).tobytes() == stats.beta.isf(q, a, b).tobytes()
        x, theirs = ours.beta_ppf(q, a, b), stats.beta.ppf(q, a, b)
        differ = x.view(np.int64) != theirs.view(np.int64)
        assert 0 < differ.sum() < 0.02 * differ.size
        assert np.all(np.abs(np.log(special.betainc(a[differ], b[differ], x[differ]) / q[differ])) < 1e-12)
