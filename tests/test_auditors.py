"""Auditors and statistics: intervals that cover, attacks that refute broken claims and only those."""

import numpy as np
import pytest

from audits.attack import (
    balanced_accuracy_bound,
    epsilon_lower_bound,
    likelihood_ratio_attack,
    order_statistic_attack,
)
from audits.coverage import coverage_of
from audits.engine import block_rng, block_sizes, sample_privacy_loss
from audits.stats import binomial_pvalue_exceeds, clopper_pearson, holm, pvalue_by_inversion
from audits.tails import both_directions
from mechanisms import gaussian as g
from verify.checks import CheckSpec, Evidence, finalize

FALSE_ALARM = 1e-6


def gaussian_losses(sigma, n=400_000, seed=5):
    pair = g.GaussianPair(np.zeros(2), np.array([1.0, 0.0]), sigma)
    return pair, sample_privacy_loss(pair, "D", n, seed), sample_privacy_loss(pair, "D'", n, seed)


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


def test_attack_lower_bound_is_valid_and_refutes_a_false_claim():
    sigma = 1.0
    _, ld, ldp = gaussian_losses(sigma, n=1_000_000)
    true_eps = g.analytic_epsilon(1e-3, sigma)
    result = likelihood_ratio_attack(ld, ldp, delta=1e-3, alpha=FALSE_ALARM)
    assert result.epsilon_lower_bound <= true_eps  # valid: never above the truth (false alarm 1e-6)
    assert result.epsilon_lower_bound > 0.5 * true_eps  # a claim of ε = half the truth is refuted
    assert result.balanced_accuracy <= balanced_accuracy_bound(true_eps, 1e-3) + 5e-3


def test_order_statistic_bound_is_valid_and_refutes_a_false_claim():
    sigma = 1.0
    _, ld, ldp = gaussian_losses(sigma, n=1_000_000)
    true_eps = g.analytic_epsilon(1e-3, sigma)
    bound = order_statistic_attack(ld, ldp, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM)
    assert likelihood_ratio_attack(ld, ldp, delta=1e-3, alpha=FALSE_ALARM).epsilon_lower_bound == bound
    assert bound <= true_eps  # valid (false alarm 1e-6)
    assert bound > 0.6 * true_eps  # a claim of 0.6 of the true ε is refuted
    # the reverse inequality alone: swap the worlds, the bound is the same pair's
    swapped = order_statistic_attack(-ldp, -ld, delta=1e-3).epsilon_lower_bound_at(FALSE_ALARM)
    assert 0.8 * bound <= swapped <= true_eps


def test_order_statistic_bound_is_zero_for_identical_worlds_even_with_ties():
    """Randomised tie-breaking: a pair whose worlds are identical (every loss 0) gives no evidence of leakage."""
    zeros = np.zeros(100_000)
    assert order_statistic_attack(zeros, zeros, delta=0.0).epsilon_lower_bound_at(FALSE_ALARM) == 0.0
    coarse = np.round(np.random.default_rng(3).standard_normal(100_000), 1)  # many ties, same law both sides
    other = np.round(np.random.default_rng(4).standard_normal(100_000), 1)
    assert order_statistic_attack(coarse, other, delta=0.0).epsilon_lower_bound_at(FALSE_ALARM) == 0.0


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
