"""The PLD composition's convolution (:func:`pdp_audit.mechanisms.pld_composition.full_convolution`) is
``scipy.signal.fftconvolve`` to the bit: the composed bounds of every audit that uses them stay what they were
when the module convolved with ``scipy.signal`` (which it no longer imports: ``scipy.signal`` imports
``scipy.stats``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from pdp_audit.mechanisms.pld_composition import full_convolution


@pytest.mark.parametrize("sizes", [(1, 1), (1, 7), (9, 1), (2, 3), (17, 17), (101, 389), (1000, 4097), (6144, 5)])
def test_the_convolution_is_scipy_signals_to_the_bit(sizes):
    rng = np.random.default_rng(sum(sizes))
    x, y = (rng.dirichlet(np.ones(n)) * rng.uniform(0.5, 1.0) for n in sizes)
    x[::3] *= 1e-20  # masses of very different sizes, as in a law's tails
    expected = signal.fftconvolve(x, y)
    got = full_convolution(x, y)
    assert got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes()


def test_a_law_on_one_side_of_zero_is_discretised():
    """A step whose loss law puts less than TAIL_MASS below 0 (SmartNoise's MWEM gave one) ended the audit in an
    internal error: the grid's lower end was searched on [-1, 0], where the tail never crosses TAIL_MASS (seen
    failing: brentq's "f(a) and f(b) must have different signs", exit 4).  The grid now starts at 0 and keeps the
    law's mass."""
    from scipy import stats

    from pdp_audit.mechanisms.pld_composition import LossLaw, discretise

    shifted = stats.laplace(loc=80.0, scale=1.0)
    law = LossLaw(lambda w, upper=False: shifted.sf(w) if upper else shifted.cdf(w), (-np.inf, np.inf))
    grid = discretise(law, 0.01, pessimistic=True)
    assert grid.start == 0
    assert abs(grid.pmf.sum() + grid.infinity - 1.0) < 1e-12


@pytest.mark.parametrize("sizes", [(1, 7), (17, 17), (101, 389), (1000, 4097)])
def test_the_convolutions_round_off_is_within_its_bound(sizes):
    """The FFT's ℓ1 error against a direct convolution in extended precision (errors of order 1e-19 relative) is
    within :func:`fft_roundoff`, on masses of very different sizes."""
    from pdp_audit.mechanisms.pld_composition import fft_roundoff

    rng = np.random.default_rng(sum(sizes))
    x, y = (rng.dirichlet(np.ones(n)) * rng.uniform(0.5, 1.0) for n in sizes)
    x[::3] *= 1e-20
    exact = np.convolve(x.astype(np.longdouble), y.astype(np.longdouble))
    error = float(np.abs(full_convolution(x, y).astype(np.longdouble) - exact).sum())
    assert error <= fft_roundoff(x, y)


def test_the_composed_bounds_carry_their_round_off():
    """The bounds on δ of a grid composition move outward by the grid laws' proven round-off (module notes): the
    upper bound lies above the grid's own sum by at least its ``roundoff``, the lower below it, and the round-off
    grows with each convolution.  Seen failing: bounds that were the grid's sums ± η alone."""
    from scipy import stats

    from pdp_audit.mechanisms.pld_composition import LossLaw, composed_profile_of

    def gaussian_loss(mu):  # the loss of N(0, 1) against N(μ, 1): ω ~ N(μ²/2, μ²)
        law = stats.norm(mu * mu / 2, mu)
        return LossLaw(lambda w, upper=False: law.sf(w) if upper else law.cdf(w), (-np.inf, np.inf))

    two = composed_profile_of([gaussian_loss(0.5)] * 2)
    three = composed_profile_of([gaussian_loss(0.5)] * 3)
    assert 0 < two.upper.roundoff < three.upper.roundoff < 1e-9
    for profile in (two, three):
        low, high = profile.delta_bounds(0.3)
        assert high >= profile.upper.delta(0.3 - profile.shift) + profile.upper.roundoff + profile.eta
        assert low <= profile.lower.delta(0.3 + profile.shift) - profile.lower.roundoff - profile.eta
