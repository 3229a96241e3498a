"""The checks of k-ary randomized response, declared as data (Warner 1965; Kairouz, Oh & Viswanath 2016).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  Every check
is
a guarantee about the deployed reports (keep the true value with probability p, else a uniform other value),
neighbours differing in one individual's value:

* ``dp-forward``, ``dp-reverse`` -- the (ε, δ)-DP claim (δ = 0 by default: pure DP) at one individual's value
  changed (every change has the same loss law), both directions;
* ``loss-bound`` -- |L(o)| ≤ ε for every report drawn in either world
  (:mod:`pdp_audit.mechanisms.randomized_response` proves it);
* ``tail-curve`` -- the pair's exact privacy profile δ(ε) = max(0, p − e^ε q);
* ``loss-consistency`` -- the privacy loss is the sampler's, on the draws that decide ``dp-*``;
* ``pdp-individual`` -- the pure pDP of one individual (the middle row) when their value changes: ε_r, the same
  for every individual.
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare
from pdp_audit.verify.evidence.pure_dp_specs import pure_dp_specs

SOURCE = "Warner 1965; Kairouz, Oh & Viswanath 2016"

CHECKS = declare(
    *pure_dp_specs(
        SOURCE,
        "Every report o has |L(o)| ≤ ε = {eps:g} (the loss of the deployed p is bounded by ε_r = {eta:.4g})",
        "the bound ≤ ε in rationals, and max over draws of |log P_D(o) − log P_D'(o)| within ε(1 + 1e-9) + 2⁻³³",
    ),
    CheckSpec(
        "pdp-individual",
        "pDP of an individual",
        "Row {index} (value {value} changed to {other}) has ({eps_i:.4g}, {delta:g})-pDP, ε_z = ε_r: every "
        "individual's is the same",
        "δ_{{D‖D'}}(ε_z) ≤ δ, D' with row {index}'s value changed",
        "per-instance DP: Wang 2019, §2; " + SOURCE,
    ),
)
