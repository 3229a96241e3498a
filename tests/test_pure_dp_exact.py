"""Pure DP decided in rationals, no tolerance (:mod:`pdp_audit.verify.evidence.pure_dp`): the calibrated scales
are pure in exact arithmetic, δ(ε) = 0 only from ε ≥ η exactly, and a scale an ulp short is refuted, never
certified inside a rounding allowance."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from pdp_audit.audits.laplace import evidence as laplace_evidence
from pdp_audit.audits.laplace.checks import CHECKS
from pdp_audit.cli import main as cli
from pdp_audit.mechanisms import geometric as geo
from pdp_audit.mechanisms import laplace as lap
from pdp_audit.mechanisms import laplace_queries as lq
from pdp_audit.mechanisms import randomized_response as rr
from pdp_audit.verify.evidence import pure_dp as pure

#: ε whose float calibration Δ/ε rounds the scale down: Δ/fl(Δ/ε) > ε in rationals (by 2.9e-17 and 6.5e-17).
SHORT = [(0.7, 1.0), (0.7, 3.0)]


@pytest.mark.parametrize(("epsilon", "sensitivity"), SHORT)
def test_the_calibrated_scale_is_pure_in_rationals(epsilon, sensitivity):
    """Seen failing: b = Δ/ε in floats (1/(1/0.7) exceeds 0.7 by 2.9e-17 in rationals): not (ε, 0)-DP."""
    assert Fraction(sensitivity) / Fraction(sensitivity / epsilon) > Fraction(epsilon)  # the float quotient is short
    for scale in (lap.laplace_scale(epsilon, sensitivity), geo.geometric_scale(epsilon, sensitivity)):
        assert Fraction(sensitivity) / Fraction(scale) <= Fraction(epsilon)
        assert Fraction(sensitivity) / Fraction(np.nextafter(scale, 0)) > Fraction(epsilon)  # the smallest such


def test_the_mean_scales_share_epsilon_exactly():
    """Seen failing: C/(wε) and 1/((1 − w)ε) in floats, whose bounds add to ε + 7.6e-17 in rationals (w = 0.1)."""
    epsilon, split = 0.7, 0.1
    assert 1 / Fraction(1 / (split * epsilon)) + 1 / Fraction(1 / ((1 - split) * epsilon)) > Fraction(epsilon)
    scales = lq.mean_scales(epsilon, 1.0, split, 2)
    assert 1 / Fraction(scales[0]) + 1 / Fraction(scales[-1]) <= Fraction(epsilon)


def test_a_scale_an_ulp_short_is_not_certified_by_its_profile():
    """The user's b = fl(1/0.7): the exact η exceeds ε = 0.7 by 2.9e-17, so δ(0.7) > 0 -- the float formula gives 0
    there, and the profile gives the proven bound η − ε rounded up instead.  Seen failing: δ(ε) made 0 within 4 ulps
    below the float η (``BOUND_ROUNDING``), certifying the claim (0.7, 0)."""
    pair = lap.LaplacePair(np.zeros(1), np.ones(1), 1 / 0.7)
    profile = laplace_evidence.exact_profile(pair)
    assert pair.loss_bound == 0.7 and lap.laplace_delta(0.7, 1.0, pair.loss_bound) == 0.0  # floats see no gap
    gap = pair.exact_loss_bound - Fraction(0.7)
    assert profile.delta is not None and Fraction(profile.delta(0.7)) >= gap / 2 > 0  # δ(ε) ≥ (1 − e^(ε−η))/2
    assert profile.delta(float(pure.rounded_up(pair.exact_loss_bound))) == 0.0  # from the exact η on: 0


def test_loss_bound_fails_on_a_scale_an_ulp_short():
    """Seen failing: the draws' largest |L| = 0.7 passed within ε(1 + 1e-9), though the exact η exceeds ε."""
    pair = lap.LaplacePair(np.zeros(1), np.ones(1), 1 / 0.7)
    losses = np.array([0.7, -0.7])
    spec = CHECKS["loss-bound"].fill(eps=0.7, eta=pair.loss_bound)
    short = pure.loss_bound_check(spec, losses, losses, 0.7, pair, pair.exact_loss_bound)
    assert short.verdict == "fail"
    calibrated = lap.LaplacePair(np.zeros(1), np.ones(1), lap.laplace_scale(0.7))
    exact = pure.loss_bound_check(spec, losses, losses, 0.7, calibrated, calibrated.exact_loss_bound)
    assert exact.verdict == "pass"


def test_the_cli_refutes_a_scale_an_ulp_short_and_certifies_the_calibrated_one():
    """Seen failing: ``--scale 1.4285714285714286`` (= 1/0.7 in floats) at the claim (0.7, 0) exited 0."""
    words = ["run", "laplace", "--claim-epsilon", "0.7", "--query", "count", "--trials", "2e4", "--report", "none"]
    assert cli.main([*words, "--quiet", "--scale", repr(1 / 0.7)]) == 1
    assert cli.main([*words, "--quiet"]) == 0


def _truth(gap) -> mpmath.mpf:
    """1 − e^{−gap/2} at 300 bits from an exact gap."""
    with mpmath.workprec(300):
        return -mpmath.expm1(-(mpmath.mpf(gap.numerator) / gap.denominator) / 2)


def test_the_laplace_profile_is_an_upper_bound_an_ulp_below_the_bound():
    """b = fl(1/0.7), ε the double below 0.7: the exact δ(ε) is 7.0e-17; the float formula at the float η gives
    5.6e-17, below it.  The profile (the exact gap at 256 bits, rounded up) is at least the truth and within an ulp
    of it.  Seen failing: the profile gave 0 there (within ``BOUND_ROUNDING`` of η), certifying δ = 0."""
    pair = lap.LaplacePair(np.zeros(1), np.ones(1), 1 / 0.7)
    epsilon = float(np.nextafter(0.7, 0))
    truth = _truth(pair.exact_loss_bound - Fraction(epsilon))
    assert mpmath.mpf(lap.laplace_delta(epsilon, 1.0, pair.loss_bound)) < truth  # what was certified from
    profile = laplace_evidence.exact_profile(pair)
    assert profile.delta is not None
    value = profile.delta(epsilon)
    assert mpmath.mpf(value) >= truth and mpmath.mpf(float(np.nextafter(value, 0))) < truth


@pytest.mark.parametrize("gap", [Fraction(1, 3), Fraction(1, 10**17), Fraction(7, 2)])
def test_laplace_delta_upper_is_the_least_double_above(gap):
    """The rounded-up δ is at least the 300-bit value and at most one double above it."""
    value = lap.laplace_delta_upper(gap)
    assert mpmath.mpf(value) >= _truth(gap) > mpmath.mpf(float(np.nextafter(value, 0)))


def test_the_rr_profile_is_an_upper_bound():
    """k = 2, ε_r = 1.5842827116307445, ε = 1.5058032021218333: the float formula rounds below the exact δ(ε).
    Seen failing: ``rr_delta`` there (0.06263324103929106, under the 300-bit value)."""
    epsilon, eps_r = 1.5058032021218333, 1.5842827116307445
    with mpmath.workprec(300):
        big, small = mpmath.exp(mpmath.mpf(eps_r)), mpmath.exp(mpmath.mpf(epsilon))
        truth = (big - small) / (big + 1)
    assert mpmath.mpf(rr.rr_delta(epsilon, eps_r, 2)) < truth
    assert mpmath.mpf(rr.rr_delta_upper(epsilon, eps_r, 2)) >= truth


def _geometric_truth(epsilon: float, scale: float, shift: int) -> mpmath.mpf:
    """Σ_k (p_D(k) − e^ε p_D′(k))₊ at 300 bits, k within 200 of the pair's means (beyond: below 1e-80 here)."""
    with mpmath.workprec(300):
        alpha, lift = mpmath.exp(-1 / mpmath.mpf(scale)), mpmath.exp(mpmath.mpf(epsilon))
        norm = (1 - alpha) / (1 + alpha)
        terms = (norm * (alpha ** abs(k) - lift * alpha ** abs(k - shift)) for k in range(-200, shift + 200))
        return mpmath.fsum(t for t in terms if t > 0)


@pytest.mark.parametrize(
    ("epsilon", "scale", "shift"),
    [(1.1291957060087952, 2.656758243089381, 3), (2.5273428965180984, 0.3611522514555576, 1), (0.3, 2.0, 4)],
)
def test_the_geometric_profile_is_an_upper_bound(epsilon, scale, shift):
    """The rounded-up δ is at least the 300-bit sum; the first two are cases where the float formula falls below it
    (the first gives 0 an ulp below η, the exact δ being 4.1e-17).  Seen failing: ``geometric_delta`` there."""
    truth = _geometric_truth(epsilon, scale, shift)
    assert mpmath.mpf(geo.geometric_delta_upper(epsilon, scale, shift)) >= truth - mpmath.mpf(10) ** -80
    if shift < 4:
        assert mpmath.mpf(geo.geometric_delta(epsilon, scale, shift)) < truth


def test_the_bounded_loss_proof_needs_eta_at_most_epsilon_exactly():
    """``audit_pair`` of Lap(0, 1) vs Lap(1, 1) (η = 1): the pure claim at ε = 1 passes by the proof; at
    ε = 1 − 1e-12 its δ(ε) is 5e-13 > 0 and the claim is false, so it must not pass.  Seen failing: the proof took
    η ≤ ε + 4ρ(1 + η), ρ = 1e-8, and certified (1 − 1e-12, 0)."""
    import pdp_audit

    pair = lap.LaplacePair(np.zeros(1), np.ones(1), 1.0)
    budget = pdp_audit.PairBudget(20_000, law="ideal")
    assert pdp_audit.audit_pair(pair, 1.0, 0.0, seed=0, trials=budget).verdict == "pass"
    assert pdp_audit.audit_pair(pair, 1 - 1e-12, 0.0, seed=0, trials=budget).verdict != "pass"
