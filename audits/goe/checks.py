"""The GOE release's checks, declared as data ([RW] Algorithm 6, Theorem 17, Lemma 20, K15, K16; Chiani 2014).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  The DP
checks of
the two releases are the shared ones of :func:`pdp_audit.verify.evidence.dp_checks.dp_specs`, named by :data:`RELEASES`;
the claim and formula of ``goe-loss-law`` are the generic texts of its evidence constructor.

**Roles** (:class:`pdp_audit.verify.core.checks.CheckSpec`).  The audited deployment releases Ĥ = H(D) + N by Algorithm
6
(σ₃ from Theorem 17's DP bound, or exact with ``--calibration analytic``, or ``--sigma3``) beside the classical
Analyze Gauss release it is compared with (s at its own calibration), publishes Theorem 17's pDP and ex-post pDP
of individuals, and publishes the bound ‖N‖₂ ≤ σ₃τ of Lemma 20 with τ computed exactly (Chiani 2014).
Guarantees: the (ε, δ)-DP of both releases in both directions at the worst neighbour (``goe-dp-*``,
``ag-dp-*``) and the consistency of each release's privacy loss with its sampler on the same draws
(``goe-loss-consistency``, ``ag-loss-consistency``:
:func:`pdp_audit.verify.evidence.pair_validation.loss_consistency_check`), the law of Algorithm 6's privacy loss,
Theorem 17's pDP, ex-post bound and ex-post identity, the coverage of the published τ (``lemma20-coverage``) and the
exact CDF that τ is computed from (``goe-cdf``).

Paper statements (findings with ``--paper-claims``): K16's printed τ = 12 at d = 50 used for Algorithm 6's
noise (``k16-as-printed``: a guarantee exactly when ``--tau-reading unit-goe`` deploys that reading of τ),
12 as the quantile of Chiani's unit GOE (``k16-unit-goe``: a statement about the printed number, which no
deployment publishes), and K15's comparison of the two releases (``k15-factor-two``: a statement about the
paper's "factor of 2", not a property the deployment relies on).
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import PAIR_CHECKS, CheckSpec, declare

SOURCE_ALG6 = "[RW] Algorithm 6, Theorem 17"
SOURCE_AG = "Dwork et al. 2014b (Analyze Gauss); [RW] App. D"

#: The two releases audited for DP, by check-id prefix: (the release's name in the claim, source).
RELEASES = {
    "goe-": ("Algorithm 6 (σ₃ = {sigma:.4g})", SOURCE_ALG6),
    "ag-": ("Analyze Gauss (s = {sigma:.4g})", SOURCE_AG),
}

#: The worst-case neighbour of both releases, and why.
WORST_CASE = (
    "H_x = β e₁e₁ᵀ (a diagonal, rank-one term: x xᵀ with x = √β e₁), added to D. For Algorithm 6 the "
    "privacy loss is N(η²/2, η²) with η = ‖H_x‖_F/(√2 σ₃), so every H_x with ‖H_x‖_F = β is a worst case; "
    "for Analyze Gauss η = ‖vech H_x‖/s and ‖vech H_x‖² = Σᵢ H_ii² + Σ_{i<j} H_ij² ≤ ‖H_x‖_F², with "
    "equality iff H_x is diagonal. The one H_x is the worst case for both releases."
)

#: The law of Algorithm 6's privacy loss that ``goe-loss-law`` tests.
GOE_LOSS_LAW = "N(η²/2, η²), η = ‖H_x‖_F/(√2σ₃) = {eta:.4g} (noise drawn literally as (Z + Zᵀ)/√2)"

#: ``--tau-reading``: how the deployment computes τ of Lemma 20 (Q4), and how the claim names it.
TAU_READINGS = {
    "algorithm6": "the exact (1 − ρ/2)-quantile of λ_max((Z + Zᵀ)/√2), Chiani 2014",
    "unit-goe": "the (1 − ρ/2)-quantile of λ_max of Chiani's unit GOE (Z + Zᵀ)/2, the reading behind K16's 12 "
    "(deployed: --tau-reading unit-goe)",
}

CHECKS = declare(
    CheckSpec("goe-loss-law", "Law of Algorithm 6's privacy loss", "", "", "[RW] Theorem 17's proof (derived law)"),
    CheckSpec(
        "thm17-pdp",
        "Theorem 17 pDP of a typical individual",
        "The individual with H_x = x xᵀ, ‖H_x‖_F = {frobenius:.4g} (median-norm row, removed) has "
        "(ε, {delta:g})-pDP with ε = ‖H_x‖_F²/(4σ₃²) + ‖H_x‖_F√(2 log(1/δ))/(√2σ₃) = {eps17:.4g}",
        "δ_{{D‖D−z}}(ε_Thm17) ≤ δ",
        "[RW] Theorem 17",
    ),
    CheckSpec(
        "thm17-ex-post",
        "Theorem 17 ex-post pDP bound",
        "With probability ≥ 1 − 2δ (2δ = {two_delta:g}) over the release, the ex-post pDP of the same "
        "individual is ≤ ε_Thm17 = {eps17:.4g}",
        "P_D[|L(Ĥ)| > ε_Thm17] ≤ 2δ",
        "[RW] Theorem 17 (Q38: 1 − 2δ)",
    ),
    CheckSpec(
        "thm17-ex-post-identity",
        "Theorem 17 ex-post pDP formula",
        "The ex-post pDP of Algorithm 6 is | ‖H_x‖_F²/(4σ₃²) − ⟨H_x, N⟩_F/(2σ₃²) | (d = {d})",
        "ε(Ĥ) = |log p_D(Ĥ) − log p_D'(Ĥ)|",
        "[RW] Theorem 17 with Theorem 22",
    ),
    CheckSpec(
        "lemma20-coverage",
        "Lemma 20: ‖N‖₂ ≤ σ₃τ with the deployed τ",
        "With probability ≥ 1 − ρ (ρ = {rho:g}), ‖N‖₂ ≤ σ₃τ = {sigma3_tau:.6g} for Algorithm 6's noise at "
        "d = {d}, σ₃ = {sigma3:.4g} (τ = {tau:.6g}: {tau_reading})",
        "P[‖N‖₂ > σ₃τ] ≤ ρ",
        "[RW] Lemma 20; Chiani 2014, Theorem 2",
    ),
    CheckSpec(
        "goe-cdf",
        "Exact CDF of λ_max vs Monte Carlo of the noise",
        "Chiani's exact CDF, mapped to Algorithm 6's normalisation F_G(x) = F_unit(x/√2), is the law of "
        "λ_max((Z + Zᵀ)/√2)",
        "P[λ_max(G) ≤ x] = F_unit(x/√2), G = (Z + Zᵀ)/√2",
        "Chiani 2014, Theorem 2; [RW] Lemma 20 (Q4)",
    ),
    CheckSpec(
        "k16-as-printed",
        "K16: τ = 12 at d = 50 used as printed",
        "With probability ≥ 1 − ρ (ρ = {rho:g}), ‖N‖₂ ≤ 12σ₃ for Algorithm 6's noise at d = 50",
        "P[‖N‖₂ > 12σ₃] ≤ 8.465e-6",
        "[RW] Lemma 20 numerics (K16, Q4)",
        role="paper",
    ),
    CheckSpec(
        "k16-unit-goe",
        "K16: 12 is the quantile of Chiani's unit GOE",
        "F⁻¹(1 − ρ/2) = 12 at d = 50, ρ = {rho:g}, for λ_max of Chiani's unit GOE (Z + Zᵀ)/2 (diagonal variance 1)",
        "F_unit⁻¹(1 − ρ/2) = 12, F_unit the CDF of λ_max((Z + Zᵀ)/2)",
        "[RW] Lemma 20 numerics (K16, Q4); Chiani 2014",
        role="paper",
    ),
    CheckSpec(
        "k15-factor-two",
        "K15: GOE vs classical Analyze Gauss",
        "At equal exact ({eps:g}, {delta:g})-DP over ‖H_x‖_F ≤ β, Algorithm 6 needs half the off-diagonal noise "
        'variance of Analyze Gauss and the same diagonal variance ("roughly a constant factor of 2")',
        "σ₃²/s² = 1/2 off the diagonal, 2σ₃²/s² = 1 on it",
        "[RW] App. D, §1 (K15); Theorem 17",
        role="paper",
    ),
)

#: Ids a run builds beyond :data:`CHECKS` (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`): the checks at
#: the worst-case pair of each release, prefixed as :data:`RELEASES` names it (``goe-dp-forward``, ``ag-lr-attack``).
RUN_CHECKS = tuple(prefix + check for prefix in RELEASES for check in PAIR_CHECKS)
