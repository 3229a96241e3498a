"""The geometric mechanism's checks, declared as data (Ghosh, Roughgarden & Sundararajan 2012).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  Every check
is
a guarantee about the deployed release Q(D) + Z, Z two-sided geometric of scale b = Δ/ε (or the user's ``--scale``):

* ``dp-forward``, ``dp-reverse`` -- the (ε, δ)-DP claim (δ = 0 by default: pure DP) at the worst neighbour (a row
  that moves the query by Δ), both directions;
* ``loss-bound`` -- |L(o)| ≤ ε for every release drawn in either world (:mod:`pdp_audit.mechanisms.geometric`
  proves it);
* ``tail-curve`` -- the pair's exact privacy profile (the closed form of the same module);
* ``loss-consistency`` -- the privacy loss is the sampler's, on the draws that decide ``dp-*``;
* ``pdp-median-individual`` -- the pure pDP ε_z = |m_z|/b of a typical individual.
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare
from pdp_audit.verify.evidence.pure_dp_specs import pure_dp_specs

SOURCE = "Ghosh, Roughgarden & Sundararajan 2012"

CHECKS = declare(
    *pure_dp_specs(
        SOURCE,
        "Every release o has |L(o)| ≤ ε = {eps:g} (the loss of the deployed scale is bounded by Δ/b = {eta:.4g})",
        "the bound ≤ ε in rationals, and max over draws of |log P_D(o) − log P_D'(o)| within ε(1 + 1e-9) + 2⁻³³",
    ),
    CheckSpec(
        "pdp-median-individual",
        "pDP of the median individual",
        "Row {index} (moves the query by |m_z| = {sensitivity:g}) has ({eps_i:.4g}, {delta:g})-pDP, ε_z = |m_z|/b",
        "δ_{{D‖D−z}}(ε_z) ≤ δ",
        "per-instance DP: Wang 2019, §2; " + SOURCE,
    ),
)
