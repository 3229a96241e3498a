"""The Laplace mechanism's checks, declared as data (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  The claim and
formula of ``tail-curve`` are the generic texts of its evidence constructor
(:mod:`pdp_audit.verify.evidence.builders`).

Every check is a guarantee about the deployed release Q(D) + b·Lap(0, 1)^d, b = Δ/ε (or the user's ``--scale``;
the mean: (sum, count) with the scales b_s, b_c of :mod:`pdp_audit.mechanisms.laplace_queries`):

* ``dp-forward``, ``dp-reverse`` -- the (ε, δ)-DP claim (δ = 0 by default: pure DP) at the worst neighbour
  (‖Δ_z‖_1 = C on one coordinate; the mean's also moves the count; a histogram's moves one count), both directions;
* ``loss-bound`` -- the bounded loss on which pure DP rests: |L(o)| ≤ ε for every release drawn in either world
  (Dwork & Roth 2014, Theorem 3.6; :mod:`pdp_audit.mechanisms.laplace` proves it);
* ``tail-curve`` -- the pair's exact privacy profile δ(ε) = max(0, 1 − e^{(ε−η)/2}) (the mean's: the
  two-coordinate profile of :func:`pdp_audit.mechanisms.laplace_queries.two_coordinate_delta`);
* ``loss-consistency`` -- the privacy loss is the sampler's, on the draws that decide ``dp-*``;
* ``pdp-median-individual`` -- the pure pDP ε_z = ‖Δ_z‖_1/b of a typical individual.
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare
from pdp_audit.verify.evidence.pure_dp_specs import pure_dp_specs

SOURCE = "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.6"

CHECKS = declare(
    *pure_dp_specs(
        SOURCE,
        "Every release o has |L(o)| ≤ ε = {eps:g} (the loss of the deployed scale is bounded by ‖Δ‖_1/b = {eta:.4g})",
        "‖Δ‖_1/b ≤ ε in rationals, and max over draws of |log p_D(o) − log p_D'(o)| within ε(1 + 1e-9) + 2⁻³³",
    ),
    CheckSpec(
        "pdp-median-individual",
        "pDP of the median individual",
        "Row {index} (‖Δ_z‖_1 = {sensitivity:.4g}) has ({eps_i:.4g}, {delta:g})-pDP, ε_z = ‖Δ_z‖_1/b",
        "δ_{{D‖D−z}}(ε_z) ≤ δ",
        "per-instance DP: Wang 2019, §2; " + SOURCE,
    ),
)
