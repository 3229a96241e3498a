"""The binomial confidence sequence (pdp_audit.verify.estimators.confidence_sequences): its closed form against
quadrature, its ends against the boundary they solve, its coverage over every sample size at once, and a fixed-n
interval re-read after every block shown to fail the same coverage test."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.special import betaln
from scipy.stats import binom

from pdp_audit.verify.estimators.confidence_sequences import (
    BET_CAP,
    JEFFREYS,
    betting_interval,
    binomial_lower,
    binomial_sequence,
    binomial_upper,
    log_hedged_capital,
    log_mixture,
    predictable_bets,
)
from pdp_audit.verify.estimators.stats import clopper_pearson

#: Sequences per coverage run, their length, and the loose level they are run at.
SEQUENCES, STEPS, LOOSE = 2000, 2000, 0.1
#: Misses (sequences whose interval ever excludes the rate) allowed: P(Binomial(SEQUENCES, LOOSE) > this) ≤ 1e-6, so
#: a correct confidence sequence (miss probability ≤ LOOSE each, independent sequences) fails with probability ≤ 1e-6.
ALLOWED = int(binom.isf(1e-6, SEQUENCES, LOOSE))


@pytest.mark.tier2(cases=("0-5-0.3",))
@pytest.mark.parametrize("successes, failures, p", [(3, 7, 0.2), (40, 60, 0.55), (0, 5, 0.3), (250, 750, 0.2)])
def test_log_mixture_matches_quadrature(successes, failures, p):
    mpmath.mp.dps = 40
    a = JEFFREYS

    def integrand(q):
        return q ** (a - 1 + successes) * (1 - q) ** (a - 1 + failures)

    # breakpoints around the peak (of width about σ) and near the ends, where the integrand is singular
    n = max(successes + failures, 1)
    mode, sigma = mpmath.mpf(successes) / n, mpmath.sqrt(mpmath.mpf(successes + 1) * (failures + 1)) / n**1.5
    points = sorted(
        {
            mpmath.mpf(0),
            mpmath.mpf(1),
            *(min(max(mode + k * sigma, 1e-12), 1 - 1e-12) for k in (-8, -4, -2, -1, 0, 1, 2, 4, 8)),
        }
    )
    marginal = mpmath.quad(integrand, points, maxdegree=10) / mpmath.beta(a, a)
    exact = mpmath.log(marginal) - successes * mpmath.log(p) - failures * mpmath.log(1 - p)
    # the terms summed are of the size n·|log p|: the tolerance is set by them, not by the result
    scale = 1 + (successes + failures) * abs(math.log(p)) + failures * abs(math.log1p(-p))
    assert abs(log_mixture(successes, failures, p) - float(exact)) <= 1e-12 * scale


@pytest.mark.parametrize("successes, trials", [(1, 10), (5, 10), (300, 1000), (7, 10**6), (999_990, 10**6)])
@pytest.mark.parametrize("alpha", [1e-6, 0.05])
def test_ends_solve_the_boundary(successes, trials, alpha):
    lo, hi = binomial_sequence(successes, trials, alpha)
    failures = trials - successes
    assert 0 < lo < successes / trials < hi <= 1
    for end in (lo, hi):
        if end < 1:  # M_n(end) = 1/α, up to the widening of the ends
            assert log_mixture(successes, failures, end) == pytest.approx(-math.log(alpha), rel=1e-6)
    # just inside the ends the rate is kept, just outside it is excluded
    assert log_mixture(successes, failures, lo * (1 + 1e-6)) < -math.log(alpha)
    assert log_mixture(successes, failures, lo * (1 - 1e-6)) > -math.log(alpha)


def test_degenerate_counts():
    assert binomial_lower(0, 50, 1e-6) == 0.0
    assert binomial_upper(50, 50, 1e-6) == 1.0
    assert binomial_upper(0, 50, 1e-6) < 1
    with pytest.raises(ValueError, match="alpha"):
        binomial_sequence(1, 2, 0.0)
    with pytest.raises(ValueError, match="successes"):
        binomial_sequence(3, 2, 0.1)


def _log_mixture_grid(successes: np.ndarray, p: float) -> np.ndarray:
    """log M_n(p) of every sequence at every n (vectorised: the same closed form as log_mixture)."""
    n = np.arange(1, successes.shape[1] + 1)
    failures = n - successes
    a = JEFFREYS
    return betaln(a + successes, a + failures) - betaln(a, a) - successes * math.log(p) - failures * math.log1p(-p)


def _paths(p: float, seed: int) -> np.ndarray:
    """Running success counts of SEQUENCES independent Bernoulli(p) sequences of STEPS draws."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.random((SEQUENCES, STEPS)) < p, axis=1)


@pytest.mark.tier2(cases=("0.5-1",))
@pytest.mark.parametrize("p, seed", [(0.5, 1), (0.05, 2), (0.73, 3)])
def test_coverage_at_every_sample_size(p, seed):
    """A sequence misses when its interval excludes p at any n (read after every draw): at most LOOSE of them
    (false-alarm probability ≤ 1e-6, ALLOWED)."""
    misses = np.any(_log_mixture_grid(_paths(p, seed), p) >= -math.log(LOOSE), axis=1)
    assert misses.sum() <= ALLOWED


def test_ends_agree_with_the_martingale_on_paths():
    """The root-searched ends exclude p exactly where the martingale crosses 1/α (on a few hundred path points)."""
    successes = _paths(0.3, 4)[:200]
    crossed = _log_mixture_grid(successes, 0.3) >= -math.log(LOOSE)
    for row in range(200):
        for n in (10, 100, 1000, STEPS):
            lo, hi = binomial_sequence(int(successes[row, n - 1]), n, LOOSE)
            assert (not lo < 0.3 < hi) == bool(crossed[row, n - 1])


def test_fixed_n_interval_re_read_fails_the_coverage_test():
    """The broken version: a Clopper–Pearson interval at the same level, re-read after every block of 10 draws and
    the run stopped at its first exclusion, misses far more often than LOOSE: the same test rejects it."""
    p = 0.5
    successes = _paths(p, 1)[:, 9::10]
    n = np.arange(10, STEPS + 1, 10)
    lo, hi = clopper_pearson(successes, np.broadcast_to(n, successes.shape), LOOSE)
    misses = np.any((lo > p) | (hi < p), axis=1)
    assert misses.sum() > ALLOWED


@pytest.mark.parametrize("alpha", [1e-6, 0.1])
def test_lower_end_grows_with_successes_and_level(alpha):
    """Non-decreasing in the successes at fixed failures (what subtracting an allowance from the successes needs),
    and in α (what inverting the bound into a p-value needs)."""
    for failures in range(0, 60, 7):
        ends = [binomial_lower(s, s + failures, alpha) for s in range(0, 80)]
        assert all(b >= a for a, b in zip(ends, ends[1:]))
    levels = [1e-9, 1e-6, 1e-3, 0.1, 0.5]
    ends = [binomial_lower(40, 100, x) for x in levels]
    assert all(b >= a for a, b in zip(ends, ends[1:]))


def test_one_sided_rejection_grows_with_successes():
    """{M_n(p0) ≥ 1/α and s > n p0} grows with s at fixed n (the coupling argument of the module docstring that
    makes lo > p0 a level-α test of p ≤ p0 for every p ≤ p0)."""
    level = -math.log(0.01)
    for n in (5, 40, 300):
        for p0 in (0.02, 0.3, 0.5, 0.9, 0.99):
            rejects = [log_mixture(s, n - s, p0) >= level and s > n * p0 for s in range(n + 1)]
            first = rejects.index(True) if True in rejects else n + 1
            assert all(rejects[first:])


def test_width_at_the_final_n_against_clopper_pearson():
    """The price of anytime validity at n = 1e5, α = 1e-6 (benchmarks/confidence_sequences.py reports the ratios):
    the interval is wider than Clopper–Pearson's, by less than 1.3×."""
    lo, hi = binomial_sequence(50_000, 100_000, 1e-6)
    cp_lo, cp_hi = clopper_pearson(50_000, 100_000, 1e-6)
    assert 1 < (hi - lo) / (cp_hi - cp_lo) < 1.3


# --- the betting confidence sequence of a bounded mean ---------------------------------------------------------

#: Sequences and steps of the bounded-mean coverage runs (at LOOSE), and the misses allowed (binomial tail ≤ 1e-6).
MEAN_SEQUENCES, MEAN_STEPS = 1000, 1000
MEAN_ALLOWED = int(binom.isf(1e-6, MEAN_SEQUENCES, LOOSE))


def _bounded_draws(kind: str, seed: int) -> tuple[np.ndarray, float]:
    """MEAN_SEQUENCES sequences of MEAN_STEPS draws in [0, 1] and their mean."""
    rng = np.random.default_rng(seed)
    shape = (MEAN_SEQUENCES, MEAN_STEPS)
    if kind == "beta":
        return rng.beta(2, 5, shape), 2 / 7
    return (rng.random(shape) < 0.9).astype(float), 0.9


def test_hedged_capital_against_a_loop():
    """The vectorised capital against the products written out draw by draw (bets from the plug-in rule)."""
    rng = np.random.default_rng(5)
    x = rng.beta(2, 5, 300)
    bets = predictable_bets(x, 0.05)
    for m in (0.1, 2 / 7, 0.6):
        up = down = 1.0
        for xi, lam in zip(x, bets):
            up *= 1 + min(lam, BET_CAP / m) * (xi - m)
            down *= 1 - min(lam, BET_CAP / (1 - m)) * (xi - m)
        got = log_hedged_capital(x, np.array([m]), 0.05)[-1, 0]
        assert got == pytest.approx(math.log((up + down) / 2), rel=1e-9, abs=1e-9)
    # the bets are predictable: λ_i does not move when X_i does
    changed = x.copy()
    changed[100] = 1 - changed[100]
    assert np.array_equal(predictable_bets(changed, 0.05)[:101], bets[:101])


@pytest.mark.parametrize("kind, seed", [("beta", 6), ("bernoulli", 7)])
def test_betting_coverage_at_every_sample_size(kind, seed):
    draws, mean = _bounded_draws(kind, seed)
    misses = sum(bool(np.any(log_hedged_capital(x, np.array([mean]), LOOSE) >= -math.log(LOOSE))) for x in draws)
    assert misses <= MEAN_ALLOWED


@pytest.mark.tier2
def test_betting_interval_holds_the_mean_where_the_capital_does():
    """The grid's interval contains every mean whose capital is below 1/α (checked at the true mean, 200 runs)."""
    draws, mean = _bounded_draws("beta", 8)
    for x in draws[:200, :300]:
        lo, hi = betting_interval(x, LOOSE)
        if log_hedged_capital(x, np.array([mean]), LOOSE)[-1, 0] < -math.log(LOOSE):
            assert lo <= mean <= hi


def test_a_normal_interval_re_read_after_every_draw_fails_the_coverage_test():
    """The broken version: mean ± z σ̂/√t at the same level, valid (approximately) at one t, read after every draw
    from t = 10 on and the run stopped at its first exclusion, misses far more often than LOOSE."""
    draws, mean = _bounded_draws("beta", 6)
    t = np.arange(1, MEAN_STEPS + 1)
    running = np.cumsum(draws, axis=1) / t
    spread = np.sqrt(np.maximum(np.cumsum(draws**2, axis=1) / t - running**2, 1e-12))
    half = 1.6449 * spread / np.sqrt(t)  # z at LOOSE / 2 on each side
    misses = np.any((np.abs(running - mean) > half)[:, 9:], axis=1)
    assert misses.sum() > MEAN_ALLOWED


def test_betting_interval_is_narrower_than_hoeffding_for_a_small_variance():
    """At n = 1e4 of Beta(2, 5) draws (variance 0.026) the sequence is narrower than the fixed-n Hoeffding interval
    at the same α, whatever the n (benchmarks/confidence_sequences.py reports the ratios)."""
    x = np.random.default_rng(9).beta(2, 5, 10_000)
    lo, hi = betting_interval(x, 1e-6)
    assert lo < 2 / 7 < hi and (hi - lo) < 2 * math.sqrt(math.log(2 / 1e-6) / (2 * x.size))


@pytest.mark.parametrize("successes, failures, p, prior", [(3, 37, 0.05, (1.0, 19.0)), (60, 940, 0.08, (0.4, 7.6))])
def test_log_mixture_of_an_asymmetric_prior_matches_mpmath(successes, failures, p, prior):
    """Beta(a, b) (``prior=(a, b)``): log B(a + s, b + f) − log B(a, b) − s log p − f log(1 − p), the beta functions by
    mpmath at 40 digits (terms of size n·|log p|: the tolerance is set by them)."""
    mpmath.mp.dps = 40
    a, b = (mpmath.mpf(x) for x in prior)
    exact = (
        mpmath.log(mpmath.beta(a + successes, b + failures) / mpmath.beta(a, b))
        - successes * mpmath.log(p)
        - failures * mpmath.log(1 - p)
    )
    scale = 1 + (successes + failures) * abs(math.log(p)) + failures * abs(math.log1p(-p))
    assert abs(log_mixture(successes, failures, p, prior) - float(exact)) <= 1e-12 * scale
    assert log_mixture(successes, failures, p, 0.5) == log_mixture(successes, failures, p, (0.5, 0.5))
