"""A composition's δ(ε) taken at the ends of its steps' proven intervals of μ (:mod:`pdp_audit.audits.program.
gaussian_bounds`, :func:`pdp_audit.audits.program.accounting.composed_delta`): the upper (what certifies) at the top,
the lower (what refutes) at the bottom, never at the float μ as read."""

import math
from fractions import Fraction

import mpmath

from pdp_audit.audits.program import accounting, gaussian_bounds, step_laws
from pdp_audit.audits.program.adapters import opendp_steps
from pdp_audit.audits.program.events import Compiled


def _gaussian(mu: float, low: Fraction, high: Fraction | None) -> step_laws.Gaussian:
    return step_laws.Gaussian(call=0, label="normal[0]", mu=mu, within=(low, high))


def test_a_claim_at_the_read_delta_is_not_certified_where_mu_may_be_larger():
    """μ read as 1.0, proven only to 1 ± 1e-12: δ(ε) at the read μ is no upper bound, the claim there undecided."""
    hair = Fraction(1, 10**12)
    delta = accounting.gaussian_delta(1.0, 1.0)
    composed = accounting.composed_delta([_gaussian(1.0, 1 - hair, 1 + hair)], 1.0)
    assert composed.high > delta  # certifies only what holds at 1 + 1e-12
    assert composed.read is not None and composed.read <= delta < composed.high  # so the shifts are read exactly
    assert not accounting.exceeds(composed, delta)


def test_a_claim_below_the_read_delta_is_not_refuted_where_mu_may_be_smaller():
    """μ read as 1.0, proven only in [0.99, 1.01]: a claim at δ(ε) of μ = 0.995 may hold; it is not refuted."""
    delta = float(gaussian_bounds.delta_bounds(0.995, 1.0)[0])
    composed = accounting.composed_delta([_gaussian(1.0, Fraction(99, 100), Fraction(101, 100))], 1.0)
    assert not accounting.exceeds(composed, delta)
    assert composed.high > delta


def test_a_gaussian_read_as_unmoved_counts_at_its_proven_top():
    """An element read as unmoved but proven only below 0.5 still composes at 0.5 in the upper bound."""
    steps = [_gaussian(1.0, Fraction(1), Fraction(1)), _gaussian(0.0, Fraction(0), Fraction(1, 2))]
    composed = accounting.composed_delta(steps, 1.0)
    assert composed.high >= gaussian_bounds.delta_bounds(float(mpmath.sqrt(1.25)) * (1 - 1e-15), 1.0)[1]
    assert composed.low <= gaussian_bounds.delta_bounds(1.0, 1.0)[1]


def test_the_grid_takes_each_step_at_its_interval_ends():
    """A Laplace and a Gaussian step on the grid: the upper at the intervals' tops, the lower at their bottoms."""
    laplace = step_laws.Laplace(call=1, label="laplace[0]", mu=0.5, within=(Fraction(1, 4), Fraction(1)))
    gaussian = _gaussian(0.5, Fraction(1, 4), Fraction(1))
    composed = accounting.composed_delta([laplace, gaussian], 0.5)
    tops = [step_laws.Laplace(call=1, label="laplace[0]", mu=1.0), step_laws.Gaussian(call=0, label="n", mu=1.0)]
    bottoms = [step_laws.Laplace(call=1, label="laplace[0]", mu=0.25), step_laws.Gaussian(call=0, label="n", mu=0.25)]
    assert composed.high >= accounting.composed_delta(tops, 0.5).high
    assert composed.low <= accounting.composed_delta(bottoms, 0.5).low


def test_delta_bounds_bracket_an_independent_quadrature():
    """δ(ε) = E[(1 − e^{ε − ω})₊], ω ~ N(μ²/2, μ²), by quadrature at 40 digits, lies within the bounds."""
    with mpmath.workdps(40):
        for mu, epsilon in [(0.2, 1.0), (3.0, 0.0), (0.001, 0.001)]:
            m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)

            def integrand(w, m=m, e=e):
                return (1 - mpmath.exp(e - w)) * mpmath.npdf(w, m * m / 2, m)

            exact = mpmath.quad(integrand, [e, e + m, e + 4 * m, mpmath.inf])
            low, high = gaussian_bounds.delta_bounds(mu, epsilon)
            assert low <= exact <= high, (mu, epsilon, low, float(exact), high)
            assert high - low <= 4 * 2.0**-52 * max(high, 1e-300)


def test_an_opendp_law_step_refutes_from_the_bottom_of_its_read_shift():
    """An OpenDP Gaussian's shift read as 1.0 within 0.01 of its exact value: its lower step is taken at 0.99."""
    law = {"constructor": "make_gaussian", "law": "gaussian", "scale": 1.0, "grid": 2.0**-1074}
    measured = Compiled("opendp.Measurement", {}, (), None, noise_law=law)
    step = opendp_steps.law_step(3, 0, measured, 1.0, 0.01)
    assert step is not None and step.within == (1 - Fraction(0.01), 1 + Fraction(0.01))
    delta = float(gaussian_bounds.delta_bounds(0.995, 1.0)[0])
    assert not accounting.exceeds(accounting.composed_delta([step], 1.0), delta)


def test_a_proven_lower_bound_above_delta_refutes_exactly():
    """A Gaussian composition's lower bound is proven (outward from 256 bits): above δ by any amount it refutes,
    at δ itself it does not.  Seen failing: a relative 1e-9 margin withheld a refutation that the proven bound
    gave (δ = low · (1 − 1e-12) stayed undecided)."""
    composed = accounting.composed_delta([_gaussian(1.0, Fraction(1), Fraction(1))], 1.0)
    assert accounting.exceeds(composed, composed.low * (1 - 1e-12))
    assert not accounting.exceeds(composed, composed.low)


def test_a_grid_lower_bound_is_proven_and_refutes_exactly():
    """A grid composition's lower bound carries its proven round-off (pld_composition's module notes), so it is
    compared with δ exactly like every other: above δ by any amount it refutes, at δ it does not.  Seen failing: a
    relative 1e-9 allowance withheld the refutation at δ = low · (1 − 1e-12)."""
    laplace = step_laws.Laplace(call=1, label="laplace[0]", mu=0.5)
    composed = accounting.composed_delta([laplace, _gaussian(0.5, Fraction(1, 2), Fraction(1, 2))], 0.1)
    assert composed.how.startswith("grid composition") and composed.low > 0
    assert accounting.exceeds(composed, composed.low * (1 - 1e-12))
    assert not accounting.exceeds(composed, composed.low)


def test_a_lower_bound_lowered_by_a_slack_is_rounded_down():
    """low − slack in floats may round up past the exact difference; the lowered bound is the double below it.
    Seen failing: max(0, 1.0 − 2⁻⁶⁰) was 1.0, above the exact 1 − 2⁻⁶⁰."""
    lowered = accounting._less(1.0, 2.0**-60)
    assert Fraction(lowered) <= 1 - Fraction(2) ** -60 and lowered == math.nextafter(1.0, 0.0)
    assert accounting._less(0.5, 0.25) == 0.25 and accounting._less(0.25, 0.5) == 0.0
