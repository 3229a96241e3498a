"""The checks every pure-DP audit declares (the Laplace, geometric and randomized-response audits), as data.

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  The claim and
formula of ``tail-curve`` are the generic texts of its evidence constructor
(:mod:`pdp_audit.verify.evidence.builders`).  Each audit declares its claim table (``audits/<name>/checks.py``) from
:func:`pure_dp_specs` and its own pDP check:

* ``dp-forward``, ``dp-reverse`` -- the (ε, δ)-DP claim (δ = 0 by default: pure DP) at the audit's worst neighbour,
  both directions (Dwork & Roth 2014, Definition 2.4);
* ``loss-bound`` -- the bounded loss on which pure DP rests: |L(o)| ≤ ε for every release drawn in either world
  (Dwork & Roth 2014, Theorem 3.6 for the Laplace mechanism; each mechanism's module proves its bound);
* ``tail-curve`` -- the pair's exact privacy profile δ(ε) against Monte Carlo;
* ``loss-consistency`` -- the privacy loss is the sampler's, on the draws that decide ``dp-*`` (:data:`RUN_CHECKS`).
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec


def pure_dp_specs(source: str, loss_claim: str, loss_formula: str) -> tuple[CheckSpec, ...]:
    """The checks every pure-DP audit declares (the Laplace, geometric and randomized-response audits): its (ε, δ)
    claim both ways, its bounded privacy loss (``loss_claim`` and ``loss_formula`` in the audit's own words: a
    density or a probability mass) and its exact δ(ε) curve against Monte Carlo; ``source`` cites the mechanism."""
    return (
        CheckSpec(
            "dp-forward",
            "DP claim, δ_{{D‖D'}}(ε)",
            "The mechanism is ({eps:g}, {delta:g})-DP: P_D(S) ≤ e^ε P_D'(S) + δ for all S",
            "δ_{{D‖D'}}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ",
            "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + source,
            delta_of="D||D'",
        ),
        CheckSpec(
            "dp-reverse",
            "DP claim, δ_{{D'‖D}}(ε)",
            "The mechanism is ({eps:g}, {delta:g})-DP: P_D'(S) ≤ e^ε P_D(S) + δ for all S",
            "δ_{{D'‖D}}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ",
            "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + source,
            delta_of="D'||D",
        ),
        CheckSpec("loss-bound", "Bounded privacy loss (pure DP)", loss_claim, loss_formula, source),
        CheckSpec("tail-curve", "Exact δ(ε) curve vs Monte Carlo", "", "", source),
    )


#: Ids a pure-DP audit's run builds beyond its claim table (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`):
#: the generic ``loss-consistency`` of the pair its DP claim is decided at.
RUN_CHECKS = ("loss-consistency",)
