"""The Laplace audit (``pdp-audit run laplace``): its closed forms against quadrature, and its verdicts on a correct
and a deliberately broken deployment."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.mechanisms import laplace as lap


def _quadrature_delta(epsilon: float, eta: float) -> float:
    """δ(ε) = ∫ (p_D − e^ε p_D')₊ of Lap(0, 1) vs Lap(η, 1), by mpmath quadrature split at the kinks 0 and η and
    where the positive part starts (p_D = e^ε p_D' at o = (η − ε)/2 inside [0, η]), found by bisection here."""
    mpmath.mp.dps = 30
    eps, eta = mpmath.mpf(epsilon), mpmath.mpf(eta)

    def integrand(o):
        return max(mpmath.mpf(0), mpmath.exp(-abs(o)) / 2 - mpmath.exp(eps) * mpmath.exp(-abs(o - eta)) / 2)

    def gap(o):
        return mpmath.exp(-abs(o)) - mpmath.exp(eps) * mpmath.exp(-abs(o - eta))

    kinks = [mpmath.mpf(0), eta]
    if gap(0) > 0 > gap(eta):
        kinks.append(mpmath.findroot(gap, (mpmath.mpf(0), eta), solver="bisect"))
    return float(mpmath.quad(integrand, [-mpmath.inf, *sorted(kinks), mpmath.inf]))


@pytest.mark.parametrize("eta", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.9, 1.0, 1.5])
def test_profile_matches_quadrature(eta, fraction):
    epsilon = fraction * eta
    exact = lap.laplace_delta(epsilon, 1.0, eta)
    assert exact == pytest.approx(_quadrature_delta(epsilon, eta), rel=1e-12, abs=1e-15)
    if exact > 0:
        assert lap.laplace_epsilon(exact, 1.0, eta) == pytest.approx(epsilon, rel=1e-12, abs=1e-12)


def test_loss_is_bounded_by_l1_sensitivity_over_scale():
    rng = np.random.default_rng(5)
    pair = lap.LaplacePair(np.array([0.0, 1.0, -2.0]), np.array([0.4, 0.8, -2.3]), scale=0.7)
    losses = np.concatenate([pair.privacy_loss(pair.sample(w, 50_000, rng)) for w in ("D", "D'")])
    assert pair.loss_bound == pytest.approx(0.9 / 0.7)
    assert np.max(np.abs(losses)) <= pair.loss_bound * (1 + 1e-12)
    assert np.max(np.abs(losses)) == pytest.approx(pair.loss_bound)  # the atoms at ±η are attained


def test_pure_scale_is_sensitivity_over_epsilon():
    assert lap.laplace_scale(0.5, 2.0) == 4.0
    assert lap.laplace_epsilon(0.0, 4.0, 2.0) == 0.5
    assert math.isclose(lap.laplace_delta(0.0, 1.0, 2.0), 1 - math.exp(-1.0))


def _run(**values):
    plan = plans_by_name()["laplace"]
    return plan.execute(plan.configure({"trials": 20_000, **values}))


def test_correct_pure_deployment_passes():
    run = _run()
    assert run.verdict == "pass", [(c.id, c.verdict) for c in run.checks]
    assert {c.id for c in run.checks} >= {"dp-forward", "dp-reverse", "loss-bound", "pdp-median-individual"}


@pytest.mark.parametrize("multiplier", [0.5, 0.8])
def test_deflated_noise_fails(multiplier):
    run = _run(noise_multiplier=multiplier)
    verdicts = {c.id: c.verdict for c in run.checks}
    assert run.verdict == "fail"
    assert verdicts["dp-forward"] == verdicts["loss-bound"] == "fail"


def test_approximate_claim_on_count_passes():
    assert _run(query="count", claim_epsilon=0.1, claim_delta=1e-6).verdict == "pass"
