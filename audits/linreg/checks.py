"""The checks of the linear-regression audits, declared as data (id, title, claim, formula, source).

Text in ``{braces}`` is a run parameter filled in by :meth:`pdp_audit.verify.core.checks.CheckSpec.fill` (so a literal
brace of a formula is written ``{{`` or ``}}``).  [PDP] is Wang, "Per-instance differential privacy";
[LR] is Wang 2018, "Revisiting differentially private linear regression".  The findings (F1–F8) and
questions (Q…) that the sources cite are those of the claims ledger (:mod:`pdp_audit.ledger.entries`).

**Roles.**  What the deployed release relies on is a ``guarantee``: its (ε, δ)-DP in both directions at
the worst neighbour found (``dp-forward``, ``dp-reverse``, ``lr-attack``, ``loss-consistency``: the loss is the
sampler's on the same draws; for AdaOPS also the conditional
estimates ``dp-conditional-*`` that certify them).  Every statement checked *as printed* in [PDP] or [LR]
is a ``paper`` finding (``pdp-audit run … --paper-claims``): the pDP bounds of Lemma 2.4, eq. (3.3),
Theorem 4.1, Remark 4.2 and Proposition 4.3 (the audits never publish them; the per-instance page uses the
exact profiles), the identities (3.4) and Lemma 3.1 (no calibration rests on them: σ of output perturbation
comes from the global bound, OPS from [LR] App. F), Prop. 4.3's utility statements, the per-release
budgets of the proofs (F8: the joint release is audited directly), the reproduced figures, and [PDP]
Algorithm 1's printed ``min`` (Q5) -- which becomes a guarantee
(:meth:`~pdp_audit.verify.core.checks.CheckSpec.deployed`)
when ``run adaops --algorithm pdp --printed`` deploys the printed algorithm.
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare

# --- the DP claim at the worst neighbour found by the search (every mechanism) ---------------------------

DP_FORWARD = CheckSpec(
    "dp-forward",
    "DP claim at the worst neighbour, δ_{{D‖D'}}(ε)",
    "{name} (joint release of every stage) is ({epsilon:g}, {delta:g})-DP at the worst neighbour found",
    "δ_{{D‖D'}}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ",
    "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; {source}",
    delta_of="D||D'",
)
DP_REVERSE = CheckSpec(
    "dp-reverse",
    "DP claim at the worst neighbour, δ_{{D'‖D}}(ε)",
    "{name} (joint release of every stage) is ({epsilon:g}, {delta:g})-DP at the worst neighbour found",
    "δ_{{D'‖D}}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ",
    "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; {source}",
    delta_of="D'||D",
)
# claim and formula left empty: the attack's generic text (pdp_audit.verify.evidence.builders.attack_check)
LR_ATTACK = CheckSpec("lr-attack", "Likelihood-ratio attack at the worst neighbour", "", "", "{source}")

# AdaOPS: the DP claim by conditional Monte Carlo (released scalars sampled, the last OPS stage exact)
DP_CONDITIONAL_FORWARD = CheckSpec(
    "dp-conditional-forward",
    "DP claim, conditional Monte Carlo, δ_{{D‖D'}}(ε)",
    "{name} is ({epsilon:g}, {delta:g})-DP at the worst neighbour found ({target})",
    "δ(ε) = E_{{released scalars}}[δ_OPS(ε − L₁₂ | schedule)] ≤ δ (last stage exact given the earlier releases)",
    "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; {source}",
)
DP_CONDITIONAL_REVERSE = CheckSpec(
    "dp-conditional-reverse",
    "DP claim, conditional Monte Carlo, δ_{{D'‖D}}(ε)",
    DP_CONDITIONAL_FORWARD.claim,
    DP_CONDITIONAL_FORWARD.formula,
    DP_CONDITIONAL_FORWARD.source,
)
DP_CONDITIONAL_UNRUNNABLE = CheckSpec(
    "dp-conditional",
    "DP claim: conditional Monte Carlo",
    "the algorithm can run at the worst neighbour",
    "—",
    "{source}",
)

# --- per-release budgets of the multi-stage algorithms (finding F8) ---------------------------------------

STAGE_BUDGET = CheckSpec(
    "stage-{slug}",
    "Per-release budget: {release}",
    "The release {release} (whitened sensitivity Δ/σ = {s:.4g}) is ({epsilon_k:.4g}, {delta_k:.3g})-DP, "
    "its share of the budget",
    "δ(ε_k) = Φ(s/2 − ε_k/s) − e^{{ε_k}} Φ(−s/2 − ε_k/s) ≤ δ_k, s = Δ/σ",
    "{source}; budget split of the DP proof (Q52)",
    role="paper",
)

# --- output perturbation: [PDP] §2–3 ----------------------------------------------------------------------

LEMMA24 = CheckSpec(
    "lemma24",
    "Lemma 2.4 as printed, every target",
    "Noise N(0, A^{{-1}}/γ) gives (γ Δ_A(Z, z) √log(1.25/δ), {delta:g})-pDP for every target z "
    "(two readings of A, γ for the same noise σ²I)",
    "δ_exact(ε_2.4(z)) ≤ δ with ε_2.4 = γ Δ_A √log(1.25/δ); exact: whitened sensitivity √γ Δ_A = Δ/σ",
    "[PDP] Lemma 2.4 (Q8); finding F5",
    role="paper",
)
EQ33 = CheckSpec(
    "eq33",
    "Eq. (3.3) as printed, every target",
    "Output perturbation is (√(∇ℓᵀH^{{-1}}AH^{{-1}}∇ℓ log(1.25/δ)), {delta:g})-pDP for every target "
    "(two readings of A)",
    "ε_3.3 = √(∇ℓ(θ̂', z)ᵀ H^{{-1}} A H^{{-1}} ∇ℓ(θ̂', z) log(1.25/δ)) (no γ)",
    "[PDP] eq. (3.3) with Lemma 3.1 (Q8); finding F5",
    role="paper",
)
_EQ34_FORMULA = (
    "line 1: |y − xᵀθ̂'| √(xᵀ(X'ᵀX')^{{-1}}A(X'ᵀX')^{{-1}}x); line 2: |y − xᵀθ̂'| √(xᵀ(XᵀX)^{{-1}}A(XᵀX)^{{-1}}x)"
)
EQ34_LINE1 = CheckSpec(
    "eq34-line1",
    "Eq. (3.4) line 1 = Δ_A(Z, z)",
    "(3.4) line 1 equals the exact per-instance sensitivity ‖θ̂ − θ̂'‖_A (A = I) at every data point",
    _EQ34_FORMULA,
    "[PDP] eq. (3.4) (Q9); finding F2",
    role="paper",
)
EQ34_LINE2 = CheckSpec(
    "eq34-line2",
    "Eq. (3.4) line 2 = Δ_A(Z, z)",
    "(3.4) line 2 equals the exact per-instance sensitivity ‖θ̂ − θ̂'‖_A (A = I) at every data point",
    _EQ34_FORMULA,
    "[PDP] eq. (3.4)",
    role="paper",
)
LEMMA31 = CheckSpec(
    "lemma31",
    "Lemma 3.1: both stability identities",
    "θ̂ − θ̂' = [∫(Σ∇²ℓ + ∇²ℓ(·,z) + ∇²r)]^{{-1}}∇ℓ(θ̂, z) = −[∫(Σ∇²ℓ + ∇²r)]^{{-1}}∇ℓ(θ̂', z)",
    "relative error of each right-hand side against the exact ridge difference",
    "[PDP] Lemma 3.1; finding F1",
    role="paper",
)

# --- OPS: [PDP] §4 ------------------------------------------------------------------------------------

_OPS_EVERY_TARGET = "OPS(γ, λ) is (ε(z), {delta:g})-pDP for every target z with ε(z) = the printed bound"
THM41_43 = CheckSpec(
    "thm41-4.3",
    "Theorem 4.1 (4.3), every target",
    _OPS_EVERY_TARGET,
    "δ_exact(ε(z)) ≤ δ, ε(z) = ½|−log(1+μ) + γμ r²/(1+μ)| + (μ/2)log(2/δ) + √(γμ log(2/δ))|r|",
    "[PDP] Theorem 4.1 (4.3) = [LR] (16) (Q12); finding F3",
    role="paper",
)
THM41_44 = CheckSpec(
    "thm41-4.4",
    "Theorem 4.1 (4.4), every target",
    _OPS_EVERY_TARGET,
    "δ_exact(ε(z)) ≤ δ, ε(z) = ½|−log(1−μ') − γμ' r'²/(1−μ')| + (μ'/2)log(2/δ) + √(γμ' log(2/δ))|r'|",
    "[PDP] Theorem 4.1 (4.4) = [LR] (17) (Q11, Q12); finding F3",
    role="paper",
)
REMARK42 = CheckSpec(
    "remark42",
    "Remark 4.2, every target",
    _OPS_EVERY_TARGET,
    "δ_exact(ε(z)) ≤ δ, ε(z) = (μ/2)(1 + log(2/δ)) + ½γ min(μ, 1) r'² + √(γμ log(2/δ))|r'|",
    "[PDP] Remark 4.2 (Q19); finding F4",
    role="paper",
)
PROP43_PDP = CheckSpec(
    "prop43-pdp",
    "Proposition 4.3(1) eq. (4.5), every target",
    _OPS_EVERY_TARGET,
    "δ_exact(ε(z)) ≤ δ, ε(z) = √(γ log(2/δ)/(λ+λ_min))|r| + γr²/(2 max(λ+λ_min, 1)) + γ(1 + log(2/δ))/(2(λ+λ_min))",
    "[PDP] Prop. 4.3(1) (4.5) (Q13); finding F4",
    role="paper",
)
PROP43_DP = CheckSpec(
    "prop43-dp",
    "Proposition 4.3(1) eq. (4.6): DP bound",
    "OPS(γ, λ) is ({epsilon:.4g}, {delta:g})-DP on ‖x‖ ≤ 1, |y| < 1 (ε from (4.6))",
    "ε = √(2(n+λ)γ log(2/δ)/λ²) + 2(n+λ)γ/(λ max(1, λ)) + γ(1 + log(2/δ))/(2λ)",
    "[PDP] Prop. 4.3(1) (4.6) (Q13)",
    role="paper",
)
PROP43_MSE = CheckSpec(
    "prop43-mse",
    "Proposition 4.3(3): MSE of OPS",
    "E_y[‖θ̃ − θ0‖² | X] = σ² tr[(XᵀX+λI)^{{-1}}](1 + 1/γ) + λ²‖(XᵀX+λI)^{{-1}}θ0‖² for y ~ N(Xθ0, σ²I)",
    "Monte Carlo over y and the OPS noise vs the printed value",
    "[PDP] Prop. 4.3(3) (Q15); finding F6",
    role="paper",
)
PROP43_GAP = CheckSpec(
    "prop43-gap",
    "Proposition 4.3(4): optimisation error of OPS",
    "E F(θ̃) − F(θ̂) = d/γ with F(θ) = ½‖y − Xθ‖² + λ‖θ‖², θ̂ = argmin F",
    "Monte Carlo over the OPS noise vs d/γ",
    "[PDP] Prop. 4.3(4) (Q16); finding F7",
    role="paper",
)

# --- AdaOPS: [PDP] Algorithm 1 as printed -------------------------------------------------------------

ALG1_Q5 = CheckSpec(
    "alg1-q5",
    "[PDP] Algorithm 1 as printed (λ_n = min{{0, ·}})",
    "Algorithm 1 as printed is well defined on every data set and regularises as its privacy proof requires, "
    "λ_min(XᵀX + λ_nI) ≥ n/(dκ)",
    "λ_n = min{{0, n/(dκ) − λ̃_min + log(4/δ)/(ε/2)}} ≤ 0 (printed) vs max{{0, ·}} (intended)",
    "[PDP] Algorithm 1, proof of Prop. 4.4 (Q5)",
    role="paper",
)

# --- claims read off the papers' figures (reproductions) ------------------------------------------------

FIG1_ORDER_OF_MAGNITUDE = CheckSpec(
    "fig1-order-of-magnitude",
    "[PDP] Fig. 1: pDP of data points vs DP",
    "The pDP of users in the data set is more than an order of magnitude stronger than DP (DP ε / median pDP ε ≥ 10)",
    "ε_DP / median_i ε(Z_{{−i}}, z_i) ≥ 10",
    "[PDP] Figure 1 (K1)",
    role="paper",
)
FIG1_SIX_TIMES = CheckSpec(
    "fig1-six-times",
    "[PDP] Fig. 1: pDP for all vs DP",
    "pDP for all (fixed data, any target) is six times better than DP (DP ε / pDP-for-all ε ≥ 6)",
    "ε_DP / sup_z ε(Z, z) ≥ 6",
    "[PDP] Figure 1 (K1)",
    role="paper",
)
FIG2_ORDERS = CheckSpec(
    "fig2-orders",
    "[PDP] Fig. 2 (left): average pDP vs worst-case DP",
    "The average pDP over the data set is several orders of magnitude smaller than the worst-case DP "
    "(ratio ≥ 100 at every σ)",
    "min_σ ε_DP(σ) / mean_i ε_i(σ) ≥ 100",
    "[PDP] Figure 2 (K2)",
    role="paper",
)
FIG3_FOR_FREE = CheckSpec(
    "fig3-dp-for-free",
    "[LR] Fig. 3: AdaOPS and AdaSSP converge to the MLE",
    "AdaOPS and AdaSSP converge to the MLE faster than the MLE's statistical rate ('DP for free' for large n): "
    "their relative efficiency E‖θ̃ − θ0‖² / E‖θ̂ − θ0‖² tends to 1 (read on the grid: at ε = 0.1 and 1 the excess "
    "over 1 falls over the last decade of n)",
    "b = log₁₀[(r(n_max) − 1) / (r(n_max/10) − 1)] < 0 for AdaOPS and AdaSSP at ε = 0.1 and 1",
    "[LR] Figure 3 (c), (d) (K30)",
    role="paper",
)

FIG3_EFFICIENCY = CheckSpec(
    "fig3-relative-efficiency",
    "[LR] Fig. 3: the cost of privacy against the MLE's own error",
    "At n = {n} (d = 10, δ = 1/n²), AdaOPS's and AdaSSP's relative efficiency r = E‖θ̃ − θ0‖² / E‖θ̂ − θ0‖² at "
    "ε = 0.1 and 1 is at most 2: privacy costs no more than the MLE's statistical error (our per-n reading of 'DP "
    "for free'; the paper's statement is the limit r → 1, read by a sweep over n as the exponent of r − 1)",
    "max over {{AdaOPS, AdaSSP}} × {{0.1, 1}} of r − 1 ≤ 1 (one-sided t-test over the data sets, Bonferroni over "
    "the four)",
    "[LR] Figure 3 (c), (d) (K30)",
    role="paper",
)


CHECKS = declare(
    DP_FORWARD,
    DP_REVERSE,
    LR_ATTACK,
    DP_CONDITIONAL_FORWARD,
    DP_CONDITIONAL_REVERSE,
    DP_CONDITIONAL_UNRUNNABLE,
    STAGE_BUDGET,
    LEMMA24,
    EQ33,
    EQ34_LINE1,
    EQ34_LINE2,
    LEMMA31,
    THM41_43,
    THM41_44,
    REMARK42,
    PROP43_PDP,
    PROP43_DP,
    PROP43_MSE,
    PROP43_GAP,
    ALG1_Q5,
    FIG1_ORDER_OF_MAGNITUDE,
    FIG1_SIX_TIMES,
    FIG2_ORDERS,
    FIG3_FOR_FREE,
    FIG3_EFFICIENCY,
)

#: Ids a run builds beyond :data:`CHECKS` (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`): the
#: loss-consistency check guarding ``dp-forward``.
RUN_CHECKS = ("loss-consistency",)
