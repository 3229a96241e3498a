"""Auditors and statistics: intervals that cover, attacks that refute broken claims and only those."""

import math

import numpy as np
import pytest
from scipy import stats

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize
from pdp_audit.verify.estimators.attack import (
    balanced_accuracy_bound,
    epsilon_lower_bound,
    likelihood_ratio_attack,
    poisson_mean_within,
    pooled_rank_attack,
    ramp_tail_bound,
)
from pdp_audit.verify.estimators.coverage import coverage_of
from pdp_audit.verify.estimators.engine import block_rng, block_sizes, sample_privacy_loss
from pdp_audit.verify.estimators.order_statistic_attack import order_statistic_attack
from pdp_audit.verify.estimators.stats import binomial_pvalue_exceeds, clopper_pearson, holm, pvalue_by_inversion
from pdp_audit.verify.estimators.tails import both_directions

FALSE_ALARM = 1e-6


def gaussian_losses(sigma, n=400_000, seed=5):
    pair = g.GaussianPair(np.zeros(2), np.array([1.0, 0.0]), sigma)
    return pair, sample_privacy_loss(pair, "D", n, seed), sample_privacy_loss(pair, "D'", n, seed)


@pytest.fixture(scope="module")
def million():
    """The losses of a million draws a world at σ = 1 (seed 5), and the attacks at δ = 1e-3 the tests below read of
    them, each computed once: the likelihood-ratio attack and the order-statistic attack are the same runs on the same
    draws in every test that asks (a second run repeats every sort, not the test)."""
    _, ld, ldp = gaussian_losses(1.0, n=1_000_000)
    return {
        "losses": (ld, ldp),
        "likelihood-ratio": likelihood_ratio_attack(ld, ldp, delta=1e-3, alpha=FALSE_ALARM),
        "order-statistic": order_statistic_attack(ld, ldp, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM),
    }


def test_clopper_pearson_one_sided_and_edges():
    lo, hi = clopper_pearson(0, 100, 0.05, side="upper")
    assert lo == 0 and hi == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-9)  # exact: (1 − p)^n = α
    lo, hi = clopper_pearson(100, 100, 0.05, side="lower")
    assert hi == 1 and lo == pytest.approx(0.05 ** (1 / 100), rel=1e-9)


def test_binomial_pvalue_and_inversion_agree():
    # For a single binomial, inverting one-sided CP lower bounds gives the exact binomial p-value.
    k, n, p0 = 30, 1000, 0.02
    inverted = pvalue_by_inversion(lambda a: float(clopper_pearson(k, n, a, side="lower")[0]), p0)
    assert inverted == pytest.approx(binomial_pvalue_exceeds(k, n, p0), rel=1e-4)


def test_holm_rejects_stepwise():
    reject, adjusted = holm([1e-9, 0.01, 0.5], alpha=0.05)
    assert reject == [True, True, False]
    assert adjusted[0] == pytest.approx(3e-9)


def test_hockey_stick_interval_covers_exact_curve():
    sigma = 1.2
    _, ld, ldp = gaussian_losses(sigma)
    grid = np.linspace(0, 2.5, 11)
    for name, est in both_directions(ld, ldp, grid, FALSE_ALARM).items():
        lo, hi = est.interval()
        exact = np.array([g.analytic_delta(e, sigma) for e in grid])
        assert np.all((lo <= exact) & (exact <= hi)), name


def test_hockey_stick_detects_a_wrong_curve():
    _, ld, ldp = gaussian_losses(1.2)
    est = both_directions(ld, ldp, np.array([0.5]), FALSE_ALARM)["D||D'"]
    lo, hi = est.interval()
    wrong = g.analytic_delta(0.5, 1.5)  # the curve of a different σ
    assert not lo[0] <= wrong <= hi[0]


@pytest.mark.tier2
def test_attack_lower_bound_is_valid_and_refutes_a_false_claim(million):
    true_eps = g.analytic_epsilon(1e-3, 1.0)
    result = million["likelihood-ratio"]
    assert result.epsilon_lower_bound <= true_eps  # valid: never above the truth (false alarm 1e-6)
    assert result.epsilon_lower_bound > 0.5 * true_eps  # a claim of ε = half the truth is refuted
    assert result.balanced_accuracy <= balanced_accuracy_bound(true_eps, 1e-3) + 5e-3


def test_order_statistic_bound_is_valid_and_refutes_a_false_claim(million):
    ld, ldp = million["losses"]
    true_eps = g.analytic_epsilon(1e-3, 1.0)
    bound = million["order-statistic"]
    assert bound <= true_eps  # valid (false alarm 1e-6)
    assert bound > 0.6 * true_eps  # a claim of 0.6 of the true ε is refuted
    # the reverse inequality alone: swap the worlds, the bound is the same pair's
    swapped = order_statistic_attack(-ldp, -ld, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM)
    assert 0.8 * bound <= swapped <= true_eps


def test_pooled_rank_bound_is_the_attacks_valid_tighter_and_symmetric(million):
    """δ n = 1000 excess draws: the excess points take ranks instead of adding to them (module docstring, 3)."""
    ld, ldp = million["losses"]
    true_eps = g.analytic_epsilon(1e-3, 1.0)
    bound = pooled_rank_attack(ld, ldp, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM)
    assert million["likelihood-ratio"].epsilon_lower_bound == bound
    assert bound <= true_eps  # valid (false alarm 1e-6)
    assert bound > 0.85 * true_eps  # a claim of 0.85 of the true ε is refuted
    assert bound >= million["order-statistic"]
    swapped = pooled_rank_attack(-ldp, -ld, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM)
    assert 0.95 * bound <= swapped <= true_eps


def _score_pair(shape: str, n: int, seed: int, scale: float = 1.0):
    """Scores of both worlds, the δ of the claim and the exact ε of the pair at that δ, for shapes other than
    the Gaussian's: the exact Laplace loss (atoms at ±ε; |o − 1| − |o| in floating point would leak, Mironov
    2012), randomised response (a binary score), and randomised response with an atom of mass δ only D produces.
    ``scale`` < 1 breaks the mechanism (less noise than its ε = 1 claim)."""
    rng = np.random.default_rng([seed, 7])
    if shape.startswith("gaussian"):
        sigma = (g.analytic_sigma(1.0, 1e-5) if shape == "gaussian-calibrated" else 1.87) * scale
        pair = g.GaussianPair([0.0], [1.0], sigma)
        losses = [sample_privacy_loss(pair, w, n, seed) for w in ("D", "D'")]
        return losses[0], losses[1], 1e-5, g.analytic_epsilon(1e-5, sigma)
    if shape == "laplace":
        b = scale
        o_d, o_dp = rng.laplace(0.0, b, n), rng.laplace(1.0, b, n)
        loss = lambda o: np.clip((1 - 2 * o) / b, -1 / b, 1 / b)  # noqa: E731
        return loss(o_d), loss(o_dp), 0.0, 1.0 / b
    eps = 1.0 / scale
    p = math.exp(eps) / (1 + math.exp(eps))
    d, dp = (rng.random(n) < p).astype(float), (rng.random(n) < 1 - p).astype(float)
    if shape == "randomised-response":
        return d, dp, 0.0, eps
    delta = 1e-3  # D alone releases 2 with probability δ: the forward inequality is tight at δ
    d[rng.random(n) < delta] = 2.0
    # the exact ε(δ) is set by the reverse inequality: Q(0) ≤ e^ε P(0) + δ with P(0) = (1 − δ)(1 − p)
    return d, dp, delta, max(eps + math.log1p(-delta), math.log((p - delta) / ((1 - delta) * (1 - p))))


SHAPES = ["gaussian-calibrated", "gaussian-mutant", "laplace", "randomised-response", "randomised-response-delta"]


@pytest.mark.parametrize("shape", SHAPES)
def test_pooled_rank_bound_never_exceeds_the_exact_epsilon(shape):
    """Valid on shapes the Gaussian's scores do not have (atoms, ties, an excess of mass δ), also at α = 0.1."""
    d, dp, delta, exact = _score_pair(shape, 100_000, seed=3)
    bound = pooled_rank_attack(d, dp, delta, seed=3)
    assert 0 < bound.epsilon_lower_bound_at(FALSE_ALARM) <= bound.epsilon_lower_bound_at(0.1) <= exact
    if shape.startswith("randomised"):  # the only test is the atom, its ratio is exactly e^ε: the bound is close
        assert bound.epsilon_lower_bound_at(FALSE_ALARM) > 0.85 * exact


@pytest.mark.parametrize("shape", SHAPES)
def test_pooled_rank_bound_refutes_a_broken_mechanism(shape):
    """Each shape with its noise scale halved (the Gaussian's σ, the Laplace scale, RR's ε doubled) against its
    ε = 1 (Gaussian: (1, 1e-5) and the mutant's 2.15) claim: the bound exceeds the claim."""
    d, dp, delta, exact = _score_pair(shape, 100_000, seed=4, scale=0.5)
    claim = g.analytic_epsilon(1e-5, 1.87) if shape == "gaussian-mutant" else 1.0
    assert claim < pooled_rank_attack(d, dp, delta, seed=4).epsilon_lower_bound_at(FALSE_ALARM) <= exact


def test_ramp_tail_bound_is_the_exact_tail_from_above():
    """The tilted FFT tail against a direct convolution: never below, within 1e-8 (tails above 1e-60), J mixed in
    exactly."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        levels = int(rng.integers(1, 5))
        sizes, weights = rng.integers(1, 120, size=levels), np.arange(levels, 0, -1)
        pi, c = float(rng.uniform(0.05, 0.95)), float(rng.choice([0.0, 0.5, 4.0, 40.0]))
        rest = np.ones(1)
        for m, w in zip(sizes[1:], weights[1:]):
            rest = np.convolve(rest, np.kron(stats.binom.pmf(np.arange(m + 1), m, pi), np.eye(1, w)[0])[: w * m + 1])
        m0, w0, z = int(sizes[0]), int(weights[0]), np.zeros(int(sizes[0]) + 1)
        for j in range(m0 + 1):  # Z = J + Binomial(m0 − J, π), J ~ Poisson(c); J > m0 counts as the tail
            z[j:] += (stats.poisson.pmf(j, c) if c > 0 else float(j == 0)) * stats.binom.pmf(
                np.arange(m0 - j + 1), m0 - j, pi
            )
        pmf = np.convolve(np.kron(z, np.eye(1, w0)[0])[: w0 * m0 + 1], rest)
        mean = float(np.sum(np.arange(pmf.size) * pmf))
        t = int(mean + rng.uniform(0, 8) * math.sqrt(float(np.sum((np.arange(pmf.size) - mean) ** 2 * pmf))))
        exact = float(pmf[t:].sum()) + (float(stats.poisson.sf(m0, c)) if c > 0 else 0.0)
        bound = math.exp(ramp_tail_bound(t, sizes, weights, math.log(pi / (1 - pi)), c))
        assert bound >= exact * (1 - 1e-12), (t, sizes, pi, c, exact, bound)
        if exact > 1e-60:  # below, P(J beyond its computed range) ≤ 1e-75 is added as it is
            assert bound <= exact * (1 + 1e-8), (t, sizes, pi, c, exact, bound)


def test_poissonised_sizes_exceed_the_sample_with_probability_1e_9():
    for n in (100, 20_000, 1_000_000):
        lam = poisson_mean_within(n)
        assert stats.poisson.sf(n, lam) == pytest.approx(1e-9, rel=1e-3)
        assert n - 7 * math.sqrt(n) < lam < n - 4 * math.sqrt(n)  # about 6√n draws left out (4.8√n at n = 100)


@pytest.mark.parametrize("attack", [order_statistic_attack, pooled_rank_attack])
def test_bounds_are_zero_for_identical_worlds_even_with_ties(attack):
    """Randomised tie-breaking: a pair whose worlds are identical (every loss 0) gives no evidence of leakage."""
    zeros = np.zeros(100_000)
    assert attack(zeros, zeros, delta=0.0).epsilon_lower_bound_at(FALSE_ALARM) == 0.0
    coarse = np.round(np.random.default_rng(3).standard_normal(100_000), 1)  # many ties, same law both sides
    other = np.round(np.random.default_rng(4).standard_normal(100_000), 1)
    assert attack(coarse, other, delta=0.0).epsilon_lower_bound_at(FALSE_ALARM) == 0.0


def test_epsilon_lower_bound_uses_both_inequalities():
    # TPR = 0.5 at FPR = 0.01 implies ε ≥ log(0.5/0.01) ≈ 3.9 (ignoring sampling error)
    assert epsilon_lower_bound(5_000_000, 10_000_000, 100_000, 10_000_000, 0.0, 1e-6) == pytest.approx(
        np.log(50), rel=0.02
    )
    # the mirrored rates exercise the second inequality
    assert epsilon_lower_bound(9_900_000, 10_000_000, 5_000_000, 10_000_000, 0.0, 1e-6) == pytest.approx(
        np.log(50), rel=0.02
    )


def test_coverage_counts_failures():
    cov = coverage_of(np.array([True] * 990 + [False] * 10), rho=0.05)
    assert cov.failures == 10 and cov.coverage == pytest.approx(0.99)
    assert cov.upper_bound(0.05) < 0.05 and cov.pvalue > 0.99


def test_block_rngs_are_keyed_by_identity():
    a = block_rng(1, "s", 3).standard_normal(4)
    assert np.array_equal(a, block_rng(1, "s", 3).standard_normal(4))
    assert not np.array_equal(a, block_rng(1, "s", 4).standard_normal(4))
    assert not np.array_equal(a, block_rng(1, "t", 3).standard_normal(4))
    assert block_sizes(5, 2) == [2, 2, 1] and block_sizes(0) == []


def _check(pvalue, supported):
    return Evidence(
        CheckSpec("x", "x", "x", "x", "x"),
        pvalue=pvalue,
        interval=lambda a: (0.0, 1.0),
        supports=lambda ci, a: supported,
    )


def test_verdict_rules():
    checks = finalize([_check(1e-12, True), _check(0.5, True), _check(0.5, False)], alpha=1e-6)
    assert [c.verdict for c in checks] == ["fail", "pass", "inconclusive"]
    assert checks[1].level == pytest.approx(1 - 1e-6 / 3)


def test_a_bound_floored_at_the_claim_refutes_it_only_where_its_interval_excludes_it():
    # A lower bound floored at 0 (an ε or δ bound) against the claim 0: the p-value is the smallest α whose interval
    # excludes 0, here the edge α = 0.7 -- Brent's method on the gap stopped at the floor 1e-60, where the gap is 0.
    def floored(a):
        return max(0.0, a - 0.7)

    assert pvalue_by_inversion(floored, 0.0) == pytest.approx(0.7, rel=1e-5)
    assert pvalue_by_inversion(lambda a: 0.0, 0.0) == 1.0
    # a bound that crosses the claim keeps Brent's root
    assert pvalue_by_inversion(lambda a: a - 0.3, 0.0) == pytest.approx(0.3, rel=1e-5)


@pytest.mark.parametrize("shape", ["linear", "cubic"])
def test_the_inverted_pvalue_is_an_alpha_whose_interval_excludes_the_claim(shape):
    """The p-value is an α at which the bound exceeds the claim (a refutation at p is one): Brent's root lies within
    its tolerance of the crossing on either side, and on the lower side the bound at it did not exclude the claim
    (seen failing: 195 of 200 crossings of a bound linear in log α, 82 of a cubic one, flat at the crossing).  The
    p-value stays within e^1e-5 of the crossing."""
    for i in range(200):
        crossing = -3.0 - 0.0731 * i

        def bound(a, c=crossing):
            return (math.log(a) - c) ** (1 if shape == "linear" else 3)

        p = pvalue_by_inversion(bound, 0.0)
        assert bound(p) > 0.0, (crossing, p)
        assert p <= math.exp(crossing + 1e-5), (crossing, p)
