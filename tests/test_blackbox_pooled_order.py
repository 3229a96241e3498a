"""The pooled scores' distinct values and quantiles read off each world's sorted scores
(pdp_audit.audits.blackbox.pooled_order): np.unique's and np.quantile's doubles bit for bit, ties across the worlds,
worlds of very different sizes, one empty, a single score; zeros of both signs told apart."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox.pooled_order import mixed_zeros, order_statistics, pooled_quantiles, pooled_unique

Q = np.linspace(0, 1, 4096)


def _worlds(seed):
    rng = np.random.default_rng(seed)
    m, p = (int(x) for x in rng.choice([0, 1, 2, 7, 300, 5000, 40_000], 2))
    if m + p == 0:
        m = 1
    digits = int(rng.integers(0, 4))
    a, b = (np.sort(np.round(rng.laplace(0.3 * k, 1, size), digits)) for k, size in enumerate((m, p)))
    return a, b


@pytest.mark.parametrize("seed", range(60))
def test_pooled_order_statistics_quantiles_and_values_are_numpys(seed):
    a, b = _worlds(seed)
    pooled = np.concatenate([a, b])
    if mixed_zeros((a, b)):
        a, b = a + 0.0, b + 0.0  # −0.0 + 0.0 is 0.0
        pooled = np.concatenate([a, b])
    ks = np.arange(pooled.size)
    assert np.array_equal(order_statistics((a, b), ks), np.sort(pooled))
    want = np.quantile(pooled, Q)
    assert np.array_equal(pooled_quantiles((a, b), Q).view(np.int64), want.view(np.int64))
    assert np.array_equal(pooled_unique((a, b)).view(np.int64), np.unique(pooled).view(np.int64))


def test_an_interpolation_without_numpys_turn_at_one_half_differs():
    """NumPy interpolates from the upper value where γ ≥ 1/2: a + (b − a)·γ throughout gives other doubles."""
    rng = np.random.default_rng(2)
    a, b = np.sort(rng.normal(size=3001)), np.sort(rng.normal(size=2000))
    pooled = np.sort(np.concatenate([a, b]))
    virtual = (pooled.size - 1) * Q
    below = np.floor(virtual).astype(int)
    low, high = pooled[below], pooled[np.minimum(below + 1, pooled.size - 1)]
    naive = low + (high - low) * (virtual - below)
    assert not np.array_equal(naive, np.quantile(pooled, Q))
    assert np.array_equal(pooled_quantiles((a, b), Q), np.quantile(pooled, Q))


def test_zeros_of_both_signs_are_told_apart():
    assert mixed_zeros((np.array([-1.0, -0.0]), np.array([0.0, 2.0])))
    assert not mixed_zeros((np.array([-1.0, 0.0]), np.array([0.0, 2.0])))
    assert not mixed_zeros((np.array([-0.0]), np.array([-0.0, 1.0])))
