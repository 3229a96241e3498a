"""A closed form decides a claim with no tolerance (issue 70, item 3): it certifies only where its value, a proven
upper bound of the pair's δ(ε), is at most the claim; the Gaussian's is evaluated in 256-bit arithmetic with a
stated error bound (:mod:`pdp_audit.mechanisms.gaussian_exact`), so a calibration exactly at the claim still holds
by it."""

from __future__ import annotations

import math

import mpmath

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_exact, goe
from pdp_audit.reports.records import Check
from pdp_audit.verify.core.checks import make_run
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.privacy_profile import bound_supported

#: The default gaussian audit's σ: the analytic calibration of (1, 1e-5) at sensitivity 1.
CALIBRATED = g.analytic_sigma(1.0, 1e-5)


def _checks(exact: float) -> list[Check]:
    details = {"epsilon": 1.0, "delta_claim": 1e-5}
    return [
        Check(i, "t", "c", "f", "s", "pass", estimate=6e-6, exact=exact, pvalue=1.0, ci=(0.0, 1.2e-5), details=details)
        for i in ("dp-forward", "dp-reverse")
    ]


def test_a_closed_form_a_hair_above_the_claim_does_not_certify_it():
    """δ(1) = 1e-5·(1 + 1e-12) against a claim of 1e-5, sampling unable to decide: not certified (it was, within a
    relative 1e-9); at the claim exactly, it is."""
    hair = 1e-5 * (1 + 1e-12)
    assert not builders._claim_supported((0.0, 1.2e-5), 1e-5, hair)
    assert not bound_supported((0.0, 1.2e-5), 1e-5, hair)
    assert make_run("toy", _checks(hair), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0).exit_code == 3
    assert builders._claim_supported((0.0, 1.2e-5), 1e-5, 1e-5) and bound_supported((0.0, 1.2e-5), 1e-5, 1e-5)
    assert make_run("toy", _checks(1e-5), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0).exit_code == 0


def test_the_calibrated_gaussian_holds_by_its_exact_delta_where_the_float_form_says_otherwise():
    """The analytic calibration of (1, 1e-5) is the smallest σ whose δ(1) is proven ≤ 1e-5 (the float root, a double
    below, gave δ(1) a hair above: it certified only by the old tolerance); ε(1e-5) at most 1 there."""
    below = math.nextafter(CALIBRATED, 0.0)  # the float root brentq gives: its float form a hair above 1e-5
    assert g.analytic_delta(1.0, below) > 1e-5 and gaussian_exact.delta_upper(1.0, below) > 1e-5  # σ is the least
    low, high = gaussian_exact.delta_bounds(gaussian_exact.shift_up(CALIBRATED, 1.0), 1.0)
    assert low <= high == gaussian_exact.delta_upper(1.0, CALIBRATED) <= 1e-5
    assert high - low <= 4 * 2.0**-52 * high
    guess = g.analytic_epsilon(1e-5, CALIBRATED)
    assert gaussian_exact.epsilon_upper(1e-5, CALIBRATED, guess) <= 1.0


def test_epsilon_upper_is_the_smallest_double_that_holds():
    """ε at its proven bound holds δ; the double below it does not."""
    for sigma, delta in [(1.0, 1e-5), (0.5, 1e-3), (10.0, 1e-9)]:
        epsilon = gaussian_exact.epsilon_upper(delta, sigma, g.analytic_epsilon(delta, sigma))
        below = math.nextafter(epsilon, 0.0)
        assert gaussian_exact.delta_upper(epsilon, sigma) <= delta < gaussian_exact.delta_upper(below, sigma)


def test_lemma20s_failure_bracket_is_rounded_outward_not_subtracted_in_floats():
    """At τ = 15.315407205338465 (the (50, 0.01) quantile of Lemma 20 as the audit solves it), 1 minus the float
    CDF's lower bound puts the union bound at 0.010000000000000009, above ρ = 0.01; read outward from the CDF's own
    precision, the bracket holds a 60-digit-finer evaluation and its top is below ρ."""
    tau = 15.315407205338465
    assert 1 - goe.spectral_norm_probability_bounds(50, tau)[0] > 0.01  # the float subtraction's rounding
    low, high = goe.failure_probability_bounds(50, tau)
    digits = goe.default_dps(50, tau / math.sqrt(2)) + 60
    with mpmath.workdps(digits + 20):
        tail = 1 - goe.unit_goe_cdf_mp(mpmath.mpf(tau) / mpmath.sqrt(2), 50, digits)
        assert low <= tail and 2 * tail <= high
    assert high <= 0.01


def test_lemma20s_calibrated_tau_holds_its_union_bound_with_room():
    """τ of (d, ρ) = (10, 0.01), solved to ~1e-13, was 1.5e-13 below the exact quantile, where the union bound
    2(1 − F(τ)) is 0.010000000000001515 > ρ (the goe audit's coverage rested on the tolerance); raised until the bound
    is proven at most ρ a few roundings below it."""
    tau = goe.unit_tau(10, 0.01)
    assert goe.failure_probability_bounds(10, tau.tau * (1 - goe.TAU_ROOM))[1] <= 0.01
    assert goe.failure_probability_bounds(10, math.nextafter(tau.tau * (1 - 2**-40), 0.0))[1] > 0.01
