"""The objective-perturbation audit's checks, declared as data ([RW] Theorems 5, 6, 8, 9, Corollary 7, §3, §4).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`); specs without
placeholders are used as declared.  The DP checks of each calibration (``<prefix>dp-forward``,
``<prefix>dp-reverse``, ``<prefix>lr-attack``) are declared by :func:`pdp_audit.verify.evidence.dp_checks.dp_specs`
and retitled with :data:`DP_TITLES`.

**Roles** (:class:`pdp_audit.verify.core.checks.CheckSpec`).  The deployed mechanism is ObjPert at the σ of
``--calibration``
(Theorem 5 under that reading of σ, ledger Q1; default the variance reading) or the user's ``--sigma``, with
λ = 2β/ε unless ``--lam``; what it publishes per individual is the ex-post pDP of Corollary 7 and Theorem 9's
high-probability bounds.  Guarantees, therefore: the DP checks of the deployed σ (``thm5-<reading>-*`` or
``dp-*``, with ``<prefix>loss-consistency``: the loss is the sampler's on the same draws), ``thm6-identity`` and
``cor7-identity`` (the identities the published ex-post pDP, the neighbour search and the certified bound rest on),
``thm8-bound`` (the log-det bound, an ingredient of the certificate), ``thm9-glm-derived`` and ``thm9-general``
(Theorem 9 with |f′|, as a report uses it) and, for the logistic loss, ``k19-lambda`` (β = 1/4 behind the deployed
λ = 1/(2ε)).

Paper statements (findings with ``--paper-claims``, computed only then): Theorem 5's DP under a reading of σ that
is not deployed (a guarantee when ``--calibration`` deploys it), ``thm9-glm-printed`` (Theorem 9's GLM form as
printed, signed f′: nothing deployed uses it), the Figure 1 observations ``k17-*`` (with the Figure 1 page) and,
for the other losses, ``k19-lambda``.
"""

from __future__ import annotations

from pdp_audit.audits.objpert.config import READINGS
from pdp_audit.verify.core.checks import PAIR_CHECKS, CheckSpec, declare

SOURCE_THM5 = "[RW] Theorem 5 (Kifer et al. 2012); ledger Q1"
SOURCE_K17 = "[RW] §3, Figure 1 (K17)"
#: Titles of the three shared DP checks, after the calibration's short name ("Thm 5 printed σ = …: ").
DP_TITLES = ("DP, δ_{D‖D'}(ε)", "DP, δ_{D'‖D}(ε)", "likelihood-ratio attack")

CHECKS = declare(
    CheckSpec(
        "thm6-identity",
        "Theorem 6: ex-post pDP of ObjPert",
        "For a convex loss, ε₁(θ̂ᴾ, D, D±z) = |−log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ‖²/(2σ²) ± ∇J(θ̂ᴾ; D)ᵀ∇ℓ/σ²| "
        "is the ex-post privacy loss |log p_D(θ̂ᴾ) − log p_D±z(θ̂ᴾ)| exactly",
        "−log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²  =  log p_D(θ) − log p_D±z(θ)",
        "[RW] Theorem 6 (ledger Q37: eigendecomposition of ∇²ℓ at the released θ)",
    ),
    CheckSpec(
        "cor7-identity",
        "Corollary 7: ex-post pDP for GLMs (identity, printed as ≤)",
        "For ℓ = f(xᵀθ; y), ε(θ̂ᴾ, D, D±z) ≤ |−log(1 ± f″μ(x)) + ‖∇ℓ‖²/(2σ²) ± ∇J(θ̂ᴾ; D)ᵀ∇ℓ/σ²| with "
        "μ(x) = xᵀ∇²J(θ̂ᴾ; D)⁻¹x; printed as '≤', it holds with equality",
        "−log(1 ± f″μ) + f′²‖x‖²/(2σ²) ± f′ ∇J(θ; D)ᵀx/σ²  =  log p_D(θ) − log p_D±z(θ)",
        "[RW] Corollary 7 (ledger Q37)",
    ),
    CheckSpec(
        "thm8-bound",
        "Theorem 8: data-independent bound on the log-det term",
        "|−log Πⱼ(1 ∓ μⱼ)| ≤ −Σⱼ log(1 − λⱼ/λ), λⱼ the eigenvalues of ∇²ℓ(θ̂ᴾ; z) (GLM: −log(1 − f″‖x‖²/λ))",
        "|log det ∇²J(θ; D) − log det ∇²J(θ; D±z)| ≤ −Σⱼ log(1 − λⱼ/λ)",
        "[RW] Theorem 8 (ledger Q37)",
    ),
    CheckSpec(
        "thm9-glm-printed",
        "Theorem 9, GLM form as printed (signed f′)",
        "For a fixed z, with probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ f′(xᵀθ̂ᴾ; y) σ‖x‖√(2 log(2/ρ))",
        "P[|∇Jᵀ∇ℓ| > f′ σ‖x‖√(2 log(2/ρ))] ≤ ρ",
        "[RW] Theorem 9, main text (ledger Q23)",
        role="paper",
    ),
    CheckSpec(
        "thm9-glm-derived",
        "Theorem 9, GLM form with |f′| (per fixed z)",
        "For a fixed z, with probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ "
        "|f′(xᵀθ̂ᴾ; y)| σ‖x‖√(2 log(2/ρ))",
        "P[|f′|·|bᵀx| > |f′| σ‖x‖√(2 log(2/ρ))] ≤ ρ",
        "[RW] Theorem 9 (GLM case, derived: |∇Jᵀ∇ℓ| = |f′|·|bᵀx|, bᵀx ~ N(0, σ²‖x‖²))",
    ),
    CheckSpec(
        "thm9-general",
        "Theorem 9, general ℓ₁ form, simultaneously over z ∈ D",
        "With probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ σ√(2 log(2d/ρ))‖∇ℓ(θ̂ᴾ; z)‖₁ "
        "for every z ∈ D at once",
        "P[∃z ∈ D: |∇Jᵀ∇ℓ| > σ√(2 log(2d/ρ))‖∇ℓ‖₁] ≤ ρ",
        "[RW] Theorem 9 (general ℓ)",
    ),
    CheckSpec(
        "k17-boundary",
        "Figure 1: small ω, boundary points least protected",
        "For ω ∈ {0, π/12} the points with the highest ex-post pDP are near the decision boundary of θ_ω",
        "Spearman(ε, distance to boundary) ≤ −0.5 and median distance of the top 5% ≤ ½ the median over all points",
        SOURCE_K17,
        role="paper",
    ),
    CheckSpec(
        "k17-terms",
        "Figure 1: leverage vs gradient terms",
        "At ω = 0 the leverage (log-det) term dominates the ex-post pDP of the least protected points; for larger "
        "rotations the gradient terms dominate",
        "median share |log-det| / (|log-det| + |gradient terms|) over the top 5%: > ½ at ω = 0, < ½ at ω ≥ π/4",
        SOURCE_K17,
        role="paper",
    ),
    CheckSpec(
        "k17-misfit",
        "Figure 1: large ω, misfits least protected",
        "For ω ≥ π/4 the points with the highest ex-post pDP are those θ_ω predicts badly",
        "≥ 90% of the top 5% misclassified by θ_ω and Spearman(ε, ℓ(θ_ω; z)) ≥ 0.5",
        SOURCE_K17,
        role="paper",
    ),
    CheckSpec(
        "k17-unlikely",
        "Figure 1: θ_π is astronomically unlikely",
        "The release θ_π (θ̂ rotated by π) is 'astronomically' unlikely under ObjPert on D",
        "log p_D(θ_π) − log p_D(θ̂) < log(1e-100) = −230.3 (exact log density)",
        SOURCE_K17,
        role="paper",
    ),
    CheckSpec(
        "k19-lambda",
        "K19: Theorem 5's λ for logistic regression",
        "Theorem 5's λ ≥ 2β/ε equals the stated logistic requirement λ ≥ 1/(2ε), since β = sup f″ = 1/4",
        "2β/ε = 1/(2ε), β = max_t s(t)(1 − s(t))",
        "[RW] Theorem 5, §4 (K19)",
        role="paper",
    ),
)

#: Ids a run builds beyond :data:`CHECKS` (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`): the checks at the
#: adversarial neighbour of each audited σ, prefixed ``thm5-<reading>-`` for Theorem 5's σ under a reading, nothing
#: for the user's ``--sigma``.
RUN_CHECKS = tuple(prefix + check for prefix in ("", *(f"thm5-{r}-" for r in READINGS)) for check in PAIR_CHECKS)
