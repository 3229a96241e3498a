"""The privacy report's checks, declared as data ([RW] Algorithms 2–5, Propositions 12, 15, 21, Theorems 10,
11, 13, 14, Corollaries 7, 16, Lemma 20).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`); a
``{target}`` in
an id stands for the individual audited (``median``, ``added`` or ``random``, see
:mod:`pdp_audit.audits.privacy_report.evidence`).  The DP/pDP checks of the report's own releases
(``thm10-dp``, ``thm10-pdp``, ``thm14-pdp``, ``thm11-dp``, ``thm11-pdp``, ``alg4-overhead``) get a direction
suffix
(``-forward``/``-reverse``) where both directions are checked.

**Roles** (:class:`pdp_audit.verify.core.checks.CheckSpec`). The deployed pipeline is ObjPert followed by the report of
``--mode`` with the options' readings; guarantees are what it relies on and publishes: the truth ε₁ (``cor7-identity``),
the coverage of the published bound (``report-valid-*``), the statements behind the deployed report (Lemma 20 at the
deployed τ, Proposition 21's 3/2, Theorem 10(3)'s factor 12, Proposition 15 with the union-bound quantile,
Proposition 12, Weyl's inequality), the DP of ObjPert's release θ̂ᴾ at ε₁ (``thm8-bound``, ``objpert-dp-*``,
``objpert-lr-attack``, ``objpert-loss-consistency``, audited as ``pdp-audit run objpert`` audits it) and the DP/pDP
of the report's own releases (Theorems 10(1)(2), 11, 14, Algorithm 3's DP at ε₄, Algorithm 4's overhead; the DP
ones with ``thm10-loss-consistency``, ``thm11-loss-consistency``). Paper statements (findings with
``--paper-claims``, computed only then): ``thm13-accuracy-*`` (Theorem 13 bounds how loose the adaptive report is --
its utility, not a bound the report publishes; the published bound's coverage is ``report-valid-*``),
``q25-printed-gradient`` (the signed ḡ; a guarantee when ``--gradient-bound printed`` deploys it),
``lemma20-printed-tau`` (τ = 12 at d = 50 read as printed, K16/Q4; ``--tau-reading unit-goe`` deploys it as
``lemma20``), ``prop15-l1`` (Proposition 15's second statement), ``prop15-algorithm2`` (Proposition 15 read
literally of Algorithm 2's report), ``cor16`` (a calibration σ nothing deployed uses), ``q2-printed-dp`` (σ₃³ as
printed), ``q28-raw-lambda`` (Proposition 12 with the raw λ̂ᴾ; ``--lambda-hat raw`` deploys it as ``prop12``) and
the reproductions of [RW] Figures 2–6 (``paper`` pages).
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import PAIR_CHECKS, CheckSpec, declare

#: The source of the report's validity statement, and the multiple k of ρ it fails with, by mode.
MODE_SOURCES = {
    "independent": (1, "[RW] Theorems 8 and 9 (GLM form), Algorithm 2 DATA-INDEP"),
    "dependent": (3, "[RW] Theorem 10(3) (lower side), Algorithm 2 DATA-DEP, Proposition 21"),
    "adaptive": (3, "[RW] Theorem 13 (lower side), Algorithm 4, Proposition 12"),
}

#: Who the individual of a ``{target}`` check is.
TARGETS = {
    "median": "the median row of D (removed)",
    "added": "an individual not in D (added)",
    "random": "a row drawn uniformly from D on each repetition",
}

#: How the accuracy statements (Theorem 10(3)) name the individual of a ``{target}``.
ACCURACY_TARGETS = {"median": "the median row", "random": "a uniformly drawn row"}

#: The two readings of τ in Lemma 20 (Q4): the claim's words, and the title's and source's suffixes.
TAU_READINGS = {
    "algorithm6": {
        "what": "τ exact: the (1 − ρ/2)-quantile of λ_max((Z + Zᵀ)/√2) (Chiani 2014)",
        "title": " (τ exact)",
        "source": "",
    },
    "unit-goe": {
        "what": "τ read as printed: the quantile of Chiani's unit GOE (Z + Zᵀ)/2, i.e. the exact value / √2 "
        '("12 at d = 50", K16, Q4)',
        "title": " (printed τ reading)",
        "source": ", K16, Q4",
    },
}

_LEMMA20_CLAIM = (
    "With probability ≥ 1 − ρ (ρ = {rho:g}), Algorithm 6's noise has ‖N‖₂ ≤ σ₃τ = {threshold:.5g} at d = {d}; "
    "{what}, τ = {tau:.6g}"
)

CHECKS = declare(
    # --- the truth: the exact ex-post pDP ε₁ --------------------------------------------------------------
    CheckSpec(
        "cor7-identity",
        "The exact ex-post pDP ε₁ used as the truth",
        "Corollary 7 (with ∇J(θ̂ᴾ; D) = −b) equals |log p_D(θ̂ᴾ) − log p_D±z(θ̂ᴾ)| from ObjPert's exact output densities",
        "ε₁ = |−log(1 ± f''μ) + f'²‖x‖²/(2σ²) ∓ f' bᵀx/σ²|",
        "[RW] Theorem 6, Corollary 7",
    ),
    # --- validity of the report ----------------------------------------------------------------------------
    CheckSpec(
        "report-valid-{target}",
        "The report bounds the true ex-post pDP: {target}",
        "For {who}, ε₁(θ̂ᴾ, D, D±z) ≤ ε̄₁ᴾ(z) with probability ≥ 1 − {k}ρ ({k}ρ = {k_rho:g}) over ObjPert and the report",
        "P[ε₁ > ε̄₁ᴾ] ≤ {allowed}",
        "{source}",
    ),
    CheckSpec(
        "q25-printed-gradient",
        "Q25: the printed ḡ (signed) in the report",
        "With ḡ = min{{f'(J^P)ᵀx + σ₂|f'|‖x‖Φ⁻¹(1−ρ/2), σ|f'|‖x‖Φ⁻¹(1−ρ/2)}} as printed (no absolute value), "
        "ε₁ ≤ ε̄₁ᴾ w.p. ≥ 1 − {k}ρ for a row drawn uniformly from D",
        "P[ε₁ > ε̄₁ᴾ(printed ḡ)] ≤ 3ρ",
        "[RW] Algorithms 2, 4 (Q25)",
        role="paper",
    ),
    CheckSpec(
        "k18-constant-loss",
        "K18: ObjPert's test 0-1 loss across the λ-inflation",
        "On the synthetic logistic data of [RW] §4.1 (n = 1000, d = 50) the test 0-1 loss of ObjPert stays roughly "
        "constant as λ grows to c · 2β/ε₁, c from 1 to 1000 (read as: it varies by at most 0.05 at each ε₁ ∈ {0.1, "
        "0.5, 1}), so Algorithm 2's larger λ costs little utility (Figure 2)",
        "max over ε₁ of max_c loss − min_c loss ≤ 0.05",
        "[RW] §4.1, Figure 2 (K18)",
        role="paper",
    ),
    CheckSpec(
        "k21-worst-case",
        "K21: the report's worst case over D against the true worst case",
        "At one release θ̂ᴾ (n = {n}, d = {d}), the largest released bound max_z ε̄₁ᴾ(z) is at least the largest true "
        "ex-post pDP max_z ε₁(θ̂ᴾ, D, D₋z) over the rows z of D; across n and d (a sweep) the bound's strength "
        "max ε̄₁ᴾ / max ε₁ depends on neither (Figures 4 and 5)",
        "max_z ε̄₁ᴾ(z) ≥ max_z ε₁(z); estimate max ε̄₁ᴾ / max ε₁",
        "[RW] App. B.1, Figures 4–5 (K21)",
        role="paper",
    ),
    # --- Algorithm 2 (data-dependent) and Algorithm 4: Lemma 20 --------------------------------------------
    CheckSpec(
        "lemma20",
        "Lemma 20: ‖N‖₂ ≤ σ₃τ{title}",
        _LEMMA20_CLAIM,
        "P[‖N‖₂ > σ₃τ] ≤ ρ",
        "[RW] Lemma 20{source}",
    ),
    CheckSpec(
        "lemma20-printed-tau",
        "Lemma 20: ‖N‖₂ ≤ σ₃τ{title}",
        _LEMMA20_CLAIM,
        "P[‖N‖₂ > σ₃τ] ≤ ρ",
        "[RW] Lemma 20{source}",
        role="paper",
    ),
    # --- Algorithm 2 (data-dependent): Proposition 21, Theorem 10(3), Proposition 15, Corollary 16 ---------
    CheckSpec(
        "prop21",
        "Proposition 21: uniform approximation of the leverage",
        "If λ_min(H) ≥ 2σ₃τ, then with probability ≥ 1 − ρ (ρ = {rho:g}) for all x ∈ ℝᵈ simultaneously "
        "½xᵀĤ⁻¹x ≤ xᵀH⁻¹x ≤ (3/2)xᵀĤ⁻¹x",
        "all eigenvalues of L⁻¹(Ĥ − H)L⁻ᵀ in [−½, ½] (H = LLᵀ)",
        "[RW] Proposition 21 (Q3: σ₃)",
    ),
    CheckSpec(
        "thm10-accuracy-{target}",
        "Theorem 10(3): accuracy of the report ({target})",
        "For a fixed z ({who}), w.p. ≥ 1 − 3ρ: ε₁ ≤ ε̄₁ᴾ(z) ≤ 12ε₁ + |f'|‖x‖√(2 log(2/ρ))/σ₂",
        "P[ε₁ > ε̄₁ᴾ or ε̄₁ᴾ > 12ε₁ + |f'|‖x‖√(2 log(2/ρ))/σ₂] ≤ 3ρ",
        "[RW] Theorem 10(3) (Q24: the statement's additive term)",
    ),
    CheckSpec(
        "prop15-uniform",
        "Proposition 15: all n users at once (uniform report)",
        "With the report's quantile Φ⁻¹(1 − ρ/2) replaced by the union-bound Φ⁻¹(1 − ρ/(4n)), w.p. ≥ 1 − 2ρ, "
        "simultaneously for all n = {n} users: ε₁ ≤ ε̄₁ᴾ ≤ 12ε₁ + |f'|‖x‖√(2 log(n/ρ))/σ₂",
        "P[some user violates either side] ≤ 2ρ",
        "[RW] Proposition 15 (first statement)",
    ),
    CheckSpec(
        "prop15-l1",
        "Proposition 15: the data-independent ℓ₁ third term",
        "With the third term replaced by |f'|‖x‖₁√(2 log(2d/ρ))/σ, w.p. ≥ 1 − 2ρ, simultaneously for all x "
        "(here: the n = {n} users): ε₁ ≤ ε̄₁ᴾ ≤ 12ε₁ + |f'|‖x‖₁√(2 log(2d/ρ))/σ",
        "P[some user violates either side] ≤ 2ρ",
        "[RW] Proposition 15 (second statement)",
        role="paper",
    ),
    CheckSpec(
        "prop15-algorithm2",
        "Prop. 15 literally: Algorithm 2's report, all users",
        "Algorithm 2's report as released (per-individual quantile Φ⁻¹(1 − ρ/2)) satisfies ε₁ ≤ ε̄₁ᴾ "
        "simultaneously for all n = {n} users w.p. ≥ 1 − 2ρ",
        "P[some user has ε₁ > ε̄₁ᴾ] ≤ 2ρ",
        "[RW] Proposition 15 (literal reading)",
        role="paper",
    ),
    CheckSpec(
        "cor16",
        "Corollary 16: pDP of the Hessian release",
        "At σ = (β/ε₁)√(2 log(1.25/δ)) = {sigma:.4g} (ρ_max read as sup‖H_x‖_F = β, Q30), the GOE Hessian release "
        "is (ε₁, δ)-DP (ε₁ = {eps:g} < 1) and every row's pDP is at most "
        "ε²f''²‖x‖⁴/(8ρ_max² log(1.25/δ)) + εf''‖x‖²/(ρ_max√2)",
        "exact (analytic) pDP ε of each row ≤ Corollary 16's ε(·)",
        "[RW] Corollary 16 (Q30)",
        role="paper",
    ),
    CheckSpec(
        "q2-printed-dp",
        "Q2: Theorem 10(1) with σ₃³ as printed",
        "The printed DP ε = ξ²/(2σ₂²) + β²/(4σ₃²) + √(ξ²/σ₂² + β²/(2σ₃³))√(2 log(1/δ)) = {printed:.5g} is a "
        "valid DP bound for the gradient and Hessian releases (σ₂ = {sigma2:.4g}, σ₃ = {sigma3:.4g})",
        "printed ε ≥ exact ε of the worst-case neighbour (‖∇ℓ‖ = ξ, ‖H_x‖_F = β)",
        "[RW] Theorem 10(1) (Q2)",
        role="paper",
    ),
    # --- Algorithm 4 (adaptive): Proposition 12, Theorem 13 -------------------------------------------------
    CheckSpec(
        "prop12",
        "Proposition 12: λ̂ and both leverage estimators",
        "W.p. ≥ 1 − 2ρ (2ρ = {two_rho:g}): |λ̂ᴾ − λ_min| ≤ σ₄Φ⁻¹(1 − ρ/2); for all x, xᵀ(Ĥ + τσ₃I)⁻¹x ≤ μ(x) ≤ "
        "(λ̂ + 2τσ₃)/λ̂ · xᵀ(Ĥ + τσ₃I)⁻¹x; and if λ̂ ≥ 2τσ₃, (λ̂ − τσ₃)/λ̂ · xᵀĤ⁻¹x ≤ μ(x) ≤ "
        "(λ̂ + τσ₃)/λ̂ · xᵀĤ⁻¹x (λ̂ = max{{λ, λ̂ᴾ − σ₄Φ⁻¹(1 − ρ/2)}}{raw_reading})",
        "eigenvalues of the generalized problems within the stated ratios",
        "[RW] Proposition 12 (Q28: shifted λ̂)",
    ),
    CheckSpec(
        "q28-raw-lambda",
        "Q28: Proposition 12 with the raw λ̂ᴾ in the ratios",
        "The same statement with the released λ̂ᴾ = λ_min + N(0, σ₄²) itself in the ratios (the symbol is reused "
        "in Algorithm 4)",
        "as prop12, λ̂ := λ̂ᴾ",
        "[RW] Proposition 12, Algorithm 4 (Q28)",
        role="paper",
    ),
    CheckSpec(
        "thm13-accuracy-{target}",
        "Theorem 13: accuracy of the adaptive report ({target})",
        "For a fixed z, w.p. ≥ 1 − 3ρ: ε₁ ≤ ε₁ᴾ ≤ (1 + C/λ_min)ε₁ + |f'|‖x‖√(2 log(2/ρ))/σ₂ with "
        "C = 4τσ₃ + 2β = {C:.4g}",
        "P[hypothesis and (ε₁ > ε₁ᴾ or ε₁ᴾ > (1 + C/λ_min)ε₁ + add)] ≤ 3ρ",
        "[RW] Theorem 13 (K24, Q29)",
        role="paper",
    ),
    # --- the report's own privacy cost -----------------------------------------------------------------------
    CheckSpec(
        "pipeline-epsilon",
        "The claimed ε against the composition of the stages",
        "The pipeline's release (ObjPert's θ̂ᴾ, then the report's releases) is ε-DP as claimed (ε = {claimed:g}, "
        "--claim-epsilon): the ε's its stages are certified at add up to Σε_i = {total:.6g} ≤ {claimed:g}",
        "Σε_i ≤ ε (basic composition)",
        "Dwork & Roth 2014, Theorem 3.16; [RW] Theorems 8, 10(1), 11",
    ),
    CheckSpec(
        "thm10-dp",
        "Theorem 10(1): DP of the two releases",
        "Algorithm 2's releases (J^P, Ĥ) are (ε, {delta:g})-DP with ε = ξ²/(2σ₂²) + β²/(4σ₃²) + "
        "√(ξ²/σ₂² + β²/(2σ₃²))√(2 log(1/δ)) = {eps10:.4g} (σ₂ = {sigma2:.4g}, σ₃ = {sigma3:.4g}; worst-case "
        "neighbour ‖∇ℓ‖ = ξ = {xi:g}, ‖H_x‖_F = β = {beta:g})",
        "δ(ε_Thm10) ≤ δ",
        "[RW] Theorem 10(1) (Q2: σ₃²), Theorems 14, 17",
    ),
    CheckSpec(
        "thm10-pdp",
        "Theorem 10(2): pDP of the median row",
        "For the median row (|f'|‖x‖ = {gradient:.4g}, f''‖x‖² = {hessian:.4g} at one release θ̂ᴾ, removed), "
        "the releases are (ε(z), {delta:g})-pDP with ε(z) = {eps_pdp:.4g}",
        "δ_{{D‖D−z}}(ε(z)) ≤ δ",
        "[RW] Theorem 10(2)",
    ),
    CheckSpec(
        "thm14-pdp",
        "Theorem 14(1): pDP of the gradient release",
        "Algorithm 5's release is (ε₂, {delta:g})-pDP for the median row with "
        "ε₂ = ‖∇ℓ‖²/(2σ₂²) + ‖∇ℓ‖√(2 log(1/δ))/σ₂ = {eps14:.4g}",
        "δ(ε₂) ≤ δ",
        "[RW] Theorem 14(1) (Q34)",
    ),
    CheckSpec(
        "thm14-ex-post",
        "Theorem 14(2): ex-post pDP of the gradient release",
        "With probability ≥ 1 − ρ (ρ = {rho:g}), the ex-post pDP of J^P for the median row is "
        "≤ ‖∇ℓ‖²/(2σ₂²) + ‖∇ℓ‖√(2 log(2/ρ))/σ₂ = {ex_post:.4g}",
        "P_D[|L(J^P)| > ε₂(o)] ≤ ρ",
        "[RW] Theorem 14(2), Corollary 23",
    ),
    CheckSpec(
        "thm11-weyl",
        "Theorem 11's sensitivity: Weyl's inequality for λ_min",
        "Removing any row changes λ_min(H) by at most f''‖x‖² (the per-instance sensitivity of Algorithm 3)",
        "|λ_min(H) − λ_min(H − f''xxᵀ)| ≤ f''‖x‖²",
        "[RW] Theorem 11 (proof), Lemma 29",
    ),
    CheckSpec(
        "thm11-dp",
        "Algorithm 3: DP of the λ_min release",
        "Algorithm 3's release λ̂ᴾ = λ_min(H) + N(0, σ₄²) (σ₄ = {sigma4:.4g}) is (ε₄, {delta:g})-DP with the "
        "budget's ε₄ = {eps4:g}: worst-case neighbour |Δλ_min| = β = {beta:g} (Weyl's inequality, thm11-weyl)",
        "δ(ε₄) ≤ δ",
        "[RW] Algorithm 3, Theorem 11 (its DP form), Algorithm 4's budget",
    ),
    CheckSpec(
        "thm11-pdp",
        "Theorem 11: pDP of the λ_min release (median row)",
        "Algorithm 3 is (ε₄, {delta:g})-pDP for the median row with "
        "ε₄ = f''²‖x‖⁴/(2σ₄²) + f''‖x‖²√(2 log(1/δ))/σ₄ = {eps11:.4g}",
        "δ(ε₄) ≤ δ",
        "[RW] Theorem 11",
    ),
    CheckSpec(
        "alg4-overhead",
        "Algorithm 4's overhead ε₂ + ε₃ + ε₄ (median row)",
        "The three releases together are (ε₂ + ε₃ + ε₄, 3δ)-pDP for the median row: "
        "{e2:.4g} + {e3:.4g} + {eps11:.4g} = {total:.4g}",
        "δ(ε₂ + ε₃ + ε₄) ≤ 3δ",
        "[RW] Algorithm 4 (composition of Theorems 11, 14, 17)",
    ),
)

#: The claims on the report's releases checked in both directions: ``<id>-forward``, ``<id>-reverse``
#: (:func:`pdp_audit.audits.privacy_report.builders.gaussian_claim_checks`).
TWO_WAY_CLAIMS = ("thm10-dp", "thm11-dp")
#: The stage of the pipeline's release each claim of :data:`TWO_WAY_CLAIMS` is about: the release (θ̂ᴾ, the report,
#: and in the adaptive mode λ̂ᴾ_min) is their adaptive composition with ObjPert's θ̂ᴾ ([RW] Theorem 11's note on
#: Algorithm 4), so its (ε, δ) is the sum of theirs (:func:`pdp_audit.reports.certified_claim.composed_claim`).
STAGES = {"thm10-dp": "the report (Algorithm 2)", "thm11-dp": "λ̂ᴾ_min (Algorithm 3)"}

#: Ids a run builds beyond :data:`CHECKS` (:attr:`pdp_audit.verify.core.plan.AuditPlan.run_checks`): ObjPert's own
#: checks as the first stage (``thm8-bound`` and, prefixed ``objpert-``, the checks at its adversarial neighbour),
#: and each claim of :data:`TWO_WAY_CLAIMS` in both directions with the loss-consistency check guarding it
#: (``thm10-loss-consistency``).
RUN_CHECKS = (
    "thm8-bound",
    *(f"objpert-{check}" for check in PAIR_CHECKS),
    *(
        check
        for claim in TWO_WAY_CLAIMS
        for check in (f"{claim}-forward", f"{claim}-reverse", f"{claim.removesuffix('dp')}loss-consistency")
    ),
)
