"""The Gaussian mechanism's checks, declared as data ([RW] Theorem 22, Corollary 23, Example 4, Appendix D;
Balle & Wang 2018; Dwork & Roth 2014).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  The claim and
formula of ``tail-curve``, ``loss-law`` and ``lr-attack`` are the generic texts of their evidence
constructors (:mod:`pdp_audit.verify.evidence.builders`).

**Roles** (:class:`pdp_audit.verify.core.checks.CheckSpec`).  The deployed release is Q(D) + N(0, σ²I) with σ from the
analytic calibration (Balle & Wang 2018, Theorem 8: δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ), or
the user's ``--sigma``, or -- deployed with ``--calibration classical`` -- the classical σ; its report
publishes every individual's pDP ε and Corollary 23 bound, and the ex-post pDP it would publish is Theorem
22's formula.  Guarantees, therefore:

* ``dp-forward``, ``dp-reverse``, ``lr-attack`` -- the (ε, δ)-DP of the deployed σ at the worst neighbour
  (‖Δ_z‖ = C), both directions;
* ``tail-curve``, ``loss-law`` -- the exact δ(ε) curve and the law N(η²/2, η²) of the privacy loss, the
  identities the analytic calibration and every published ε rest on;
* ``loss-consistency`` -- the privacy loss is the sampler's, on the draws that decide ``dp-*``
  (:func:`pdp_audit.verify.evidence.pair_validation.loss_consistency_check`);
* ``cor23-pdp``, ``cor23-ex-post`` -- Corollary 23's pDP bound (published per individual on the
  per-instance page and in the JSON) and its ex-post bound at ``--rho`` (the privately publishable bound that
  replaces the exact ex-post value, Example 4);
* ``theorem22`` -- the ex-post pDP identity (the published ex-post value);
* ``pdp-median-individual`` -- the published pDP ε of an individual, at her own sensitivity.

Paper statements (findings with ``--paper-claims``): ``classical-epsilon`` ([RW] App. D's ε of the standard
mechanism at the deployed σ: nothing deployed publishes it), ``classical-calibration`` (Dwork & Roth's σ,
proved only for ε < 1: a guarantee exactly when ``--calibration classical`` deploys it) and ``example4`` (a
statement about publishing the *exact* ex-post pDP of a count, which the deployed mechanism does not do).
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare

SOURCE_BW = "Balle & Wang 2018, Theorem 8"

CHECKS = declare(
    CheckSpec(
        "dp-forward",
        "DP claim, δ_{{D‖D'}}(ε)",
        "The mechanism is ({eps:g}, {delta:g})-DP: P_D(S) ≤ e^ε P_D'(S) + δ for all S",
        "δ_{{D‖D'}}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ",
        "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + SOURCE_BW,
        delta_of="D||D'",
    ),
    CheckSpec(
        "dp-reverse",
        "DP claim, δ_{{D'‖D}}(ε)",
        "The mechanism is ({eps:g}, {delta:g})-DP: P_D'(S) ≤ e^ε P_D(S) + δ for all S",
        "δ_{{D'‖D}}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ",
        "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + SOURCE_BW,
        delta_of="D'||D",
    ),
    CheckSpec("tail-curve", "Exact δ(ε) curve vs Monte Carlo", "", "", SOURCE_BW),
    CheckSpec("loss-law", "Law of the privacy loss", "", "", "[RW] Theorem 22 (derived law)"),
    CheckSpec("lr-attack", "", "", "", "[RW] §1 (membership attacks); Kairouz et al. 2015"),
    CheckSpec(
        "cor23-ex-post",
        "Corollary 23 high-probability ex-post bound",
        "With probability ≥ 1 − ρ (ρ = {rho:g}) over o ~ A(D), ex-post ε(o) ≤ ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1−ρ/2)/σ "
        "= {bound:.4g}",
        "P[ε(o) > bound] ≤ ρ",
        "[RW] Corollary 23, eq. (5)",
    ),
    CheckSpec(
        "cor23-pdp",
        "Corollary 23 pDP bound",
        "The pair is (ε, {delta:g})-pDP with ε = ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1−δ)/σ = {eps_cor23:.4g}",
        "δ(ε_Cor23) ≤ δ",
        "[RW] Corollary 23",
    ),
    CheckSpec(
        "classical-epsilon",
        "Classical ε of the standard Gaussian mechanism",
        "The mechanism is (ε, {delta:g})-DP with ε = Δ²/(2σ²) + Δ√(2 log(1/δ))/σ = {eps_classical:.4g}",
        "δ(ε_classical) ≤ δ",
        "[RW] Appendix D",
        role="paper",
    ),
    CheckSpec(
        "classical-calibration",
        "Classical calibration σ = Δ√(2 log(1.25/δ))/ε",
        "σ = {sigma_classical:.4g} gives ({eps:g}, {delta:g})-DP (proved for ε < 1)",
        "δ(ε) at σ_classical ≤ δ",
        "Dwork & Roth 2014 Thm A.1; [RW] Corollary 16",
        role="paper",
    ),
    CheckSpec(
        "theorem22",
        "Theorem 22 ex-post pDP identity",
        "The ex-post pDP of the Gaussian mechanism is exactly |‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ²|",
        "ε(o) = |log p_D(o) − log p_D±z(o)|",
        "[RW] Theorem 22",
    ),
    CheckSpec(
        "example4",
        "Example 4: exposing ex-post pDP leaks the data",
        "An attacker z ∉ D who sees o and ε(o, D, D+z) of a count recovers Q(D) = o − 0.5 ± σ²ε "
        "(exactly one candidate is an integer)",
        "Q(D) = o − 0.5 ± σ² ε(o, D, D+z)",
        "[RW] Example 4 and footnote (K14)",
        role="paper",
    ),
    CheckSpec(
        "pdp-median-individual",
        "pDP of the median individual",
        "Row {index} (‖Δ_z‖ = {sensitivity:.4g}) has ({eps_i:.4g}, {delta:g})-pDP, the analytic ε at her own "
        "sensitivity",
        "δ_{{D‖D−z}}(ε_z) ≤ δ",
        "per-instance DP: Wang 2019, §2; " + SOURCE_BW,
    ),
)

#: Ids a run builds beyond :data:`CHECKS` (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`): the
#: loss-consistency check guarding ``dp-forward``.
RUN_CHECKS = ("loss-consistency",)
