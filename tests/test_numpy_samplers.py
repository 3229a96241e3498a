"""numpy's discrete samplers read by the law their implementation draws (:mod:`pdp_audit.mechanisms.numpy_samplers`):
each law against numpy's own draws (draw for draw from the bit generator's raw words, and an exact test of the
counts at α = 1e-7 on a fixed seed), against the ideal law it approximates (by an independent mpmath computation),
and the privacy of a two-sided geometric shift read from it."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from pdp_audit.audits.program.accounting import exp_bounds
from pdp_audit.mechanisms import numpy_samplers as ns

#: p of the search branch (p ≥ 1/3: a two-sided geometric of ε ≥ log 3/2): ε = 1's, 0.4, 1/2, 0.9, numpy's threshold
#: itself, and one whose sums stall below 1 − 2^−53.
SEARCH = (1 - math.exp(-1.0), 0.4, 0.5, 0.9, ns.SEARCH_FROM, 1 / 3 + 1e-16)


def _uniforms(seed: int, n: int) -> np.ndarray:
    """numpy's ``next_double`` on PCG64(seed)'s raw words: (word >> 11) · 2^−53."""
    raw = np.random.PCG64(seed).random_raw(n)
    return (raw >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


@pytest.mark.parametrize("p", SEARCH)
def test_geometric_search_is_numpy_draw_for_draw(p):
    """The partial sums the law is read from are numpy's: each draw is the first k whose sum is ≥ its uniform."""
    sums = ns.geometric_sums(p)
    drawn = np.random.Generator(np.random.PCG64(11)).geometric(p, size=100_000)
    searched = np.searchsorted(np.asarray(sums), _uniforms(11, 100_000), side="left") + 1
    assert np.array_equal(drawn, searched)


@pytest.mark.parametrize("p", SEARCH)
def test_geometric_law_is_exact_and_near_the_ideal(p):
    """Masses sum to 1 with the stalled mass; each is within (k + 2)·2^−52 of p·q^{k−1}, computed by mpmath at 60
    digits (a partial sum of k terms rounds k times, each by half an ulp ≤ 2^−54, and the grid adds 2^−53)."""
    law = ns.geometric_law(p)
    assert sum(law.counts) + law.never == law.denominator == 2**53
    with mpmath.workdps(60):
        q = 1 - mpmath.mpf(p)
        for k in range(law.start, law.stop):
            ideal = mpmath.mpf(p) * q ** (k - 1)
            assert abs(mpmath.mpf(law.mass(k).numerator) / law.mass(k).denominator - ideal) <= (k + 2) * 2.0**-52


@pytest.mark.parametrize("p", (1 - math.exp(-1.0), 0.5))
def test_geometric_law_fits_numpy_draws(p):
    """An exact test of numpy's counts against the law: the chi-square statistic over the values of mass ≥ 1e-3
    (the rest pooled), α = 1e-7, a fixed seed."""
    law = ns.geometric_law(p)
    n = 200_000
    drawn = np.random.Generator(np.random.PCG64(5)).geometric(p, size=n)
    masses = np.array([float(law.mass(k)) for k in range(law.start, law.stop)])
    kept = np.flatnonzero(masses >= 1e-3)
    observed = [np.count_nonzero(drawn == law.start + i) for i in kept]
    expected = [n * masses[i] for i in kept]
    observed.append(n - sum(observed))
    expected.append(n - sum(expected))
    assert stats.chisquare(observed, expected).pvalue > 1e-7


def test_inversion_branch_has_no_law():
    """Below 1/3 numpy draws by inversion of a ziggurat exponential: no exact law here, never the ideal one."""
    assert ns.geometric_law(1 - math.exp(-0.25)) is None
    assert ns.geometric_law(0.01) is None
    with pytest.raises(ValueError):
        ns.geometric_law(0.0)


def test_stalled_sums_leave_a_mass_numpy_never_returns():
    """At p = 1/3 + 1e-16 the sums stall at 1 − 3·2^−53: the two largest uniforms never end numpy's loop."""
    law = ns.geometric_law(1 / 3 + 1e-16)
    assert law.never == 2
    assert ns.geometric_law(1 - math.exp(-1.0)).never == 0


def test_choice_law_is_numpy_draw_for_draw():
    """``choice(k, p=w)`` is the cdf's searchsorted of one uniform: the law's intervals give numpy's draws."""
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    law = ns.choice_law(weights)
    drawn = np.random.Generator(np.random.PCG64(3)).choice(4, size=50_000, p=weights)
    edges = np.cumsum(law.counts)[:-1]
    grid = np.round(_uniforms(3, 50_000) * 2.0**53).astype(np.int64)
    assert np.array_equal(drawn, np.searchsorted(edges, grid, side="right"))
    assert sum(law.counts) == 2**53
    for i, w in enumerate(weights):
        assert abs(law.mass(i) - Fraction(float(w)) / Fraction(1.0)) <= Fraction(4, 2**53)


def test_integers_law_is_uniform_and_fits_numpy_draws():
    law = ns.integers_law(3, 10)
    assert [law.mass(k) for k in range(3, 10)] == [Fraction(1, 7)] * 7 and law.mass(10) == 0
    assert ns.integers_law(0, 4, endpoint=True).stop == 5
    drawn = np.random.Generator(np.random.PCG64(9)).integers(3, 10, size=70_000)
    assert stats.chisquare(np.bincount(drawn - 3, minlength=7)).pvalue > 1e-7


def test_two_sided_geometric_delta_at_its_own_epsilon():
    """G1 − G2 at p = 1 − e^{−1}: a shift of 1 costs, at e^ε bracketed around e, a δ of the mass its support's edge
    alone carries and the masses' roundings (about 1e-15): positive, as the support is finite, and below 1e-14; pure
    ε is infinite.  At p = 1 − e^{−2} (twice the claim's ε) the δ at ε = 1 is the ideal law's, about 0.2."""
    law = ns.geometric_law(1 - math.exp(-1.0))
    z = law.difference(law)
    assert sum(z.counts) == z.denominator and z.start == -(law.stop - 2)
    low, high = exp_bounds(Fraction(1))
    assert ns.shift_ratio(z, 1) is None
    above, below = ns.shift_delta(z, 1, low), ns.shift_delta(z, 1, high)
    assert 0 < below <= above < Fraction(1, 10**14)
    assert ns.shift_delta(z, 0, Fraction(1)) == 0
    wide = ns.geometric_law(1 - math.exp(-2.0))
    assert ns.shift_delta(wide.difference(wide), 1, high) > Fraction(1, 10)


def _lemire(seed: int, low: int, high: int, n: int) -> list[int]:
    """numpy's ``integers(low, high)`` of a range of at most 2^32 values as its C code draws it
    (``buffered_bounded_lemire_uint32``: m = w·n for a 32-bit word w -- PCG64's ``next_uint32``: each raw word's low
    half, then its high half --, w drawn again while m mod 2^32 < (2^32 − n) mod n, value low + m >> 32)."""
    raw = np.random.PCG64(seed).random_raw(4 * n)
    halves = np.empty(2 * raw.size, dtype=np.uint64)
    halves[0::2], halves[1::2] = raw & np.uint64(0xFFFFFFFF), raw >> np.uint64(32)
    words, width = iter(halves.tolist()), high - low
    threshold, out = (2**32 - width) % width, []
    for _ in range(n):
        m = next(words) * width
        while m % 2**32 < threshold:
            m = next(words) * width
        out.append(low + (m >> 32))
    return out


@pytest.mark.parametrize("low, high", [(-3, 4), (0, 10), (-(10**6), 10**6 + 1), (0, 2**31 + 1)])
def test_integers_is_lemires_rejection_draw_for_draw(low, high):
    """The draws :func:`~pdp_audit.mechanisms.numpy_samplers.integers_law` reads as exactly uniform are Lemire's
    multiply-and-reject on the bit generator's words (arXiv:1805.10941, Lemma 4.1: each value has the same number of
    accepted words), draw for draw: the small ranges reject almost no word, the last about every second one."""
    drawn = np.random.Generator(np.random.PCG64(9)).integers(low, high, size=20_000)
    assert drawn.tolist() == _lemire(9, low, high, 20_000)
