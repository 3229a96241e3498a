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
