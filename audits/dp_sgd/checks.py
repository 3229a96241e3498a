"""The checks of DP-SGD, declared as data (Abadi et al. 2016; Mironov, Talwar & Zhang 2019; Zhu, Dong & Wang 2022).

Text in braces is filled from the run's parameters (:meth:`pdp_audit.verify.core.checks.CheckSpec.fill`).  The
release is the T noisy gradient sums of a DP-SGD run; the claim is the (ε, δ) an accountant printed for it.

* ``dp-forward``, ``dp-reverse`` -- guarantees: δ(ε) ≤ δ of the T-fold composition of the per-step dominating pair,
  both directions (add/remove: removal and addition; replace-one: the symmetric pair's two sides), decided from
  exact samples of the T-step privacy loss, importance-sampled by exponential tilting with a certified empirical
  Bernstein interval (:mod:`pdp_audit.verify.estimators.composition`);
* ``exact-reference`` -- a finding: the same δ(ε) by FFT composition of the per-step privacy-loss distribution with
  certified discretisation bounds (:mod:`pdp_audit.mechanisms.pld_composition`), and the exact ε at δ it brackets.
"""

from __future__ import annotations

from pdp_audit.verify.core.checks import CheckSpec, declare

SOURCE = "Abadi et al. 2016, Alg. 1; Zhu, Dong & Wang 2022, Thm 11 (dominating pair)"

CHECKS = declare(
    CheckSpec(
        "dp-forward",
        "DP claim, δ_{{D‖D'}}(ε) over {steps} steps",
        "DP-SGD with σ = {sigma:g}, q = {q:g}, T = {steps} ({neighbours}) is ({eps:g}, {delta:g})-DP: "
        "P_D(S) ≤ e^ε P_D'(S) + δ ({forward})",
        "δ_{{D‖D'}}(ε) = E_{{P^T}}[(1 − e^{{ε − L_T}})₊] ≤ δ, L_T = Σ_t ℓ(x_t)",
        "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + SOURCE,
        delta_of="D||D'",
    ),
    CheckSpec(
        "dp-reverse",
        "DP claim, δ_{{D'‖D}}(ε) over {steps} steps",
        "DP-SGD with σ = {sigma:g}, q = {q:g}, T = {steps} ({neighbours}) is ({eps:g}, {delta:g})-DP: "
        "P_D'(S) ≤ e^ε P_D(S) + δ ({reverse})",
        "δ_{{D'‖D}}(ε) = E_{{Q^T}}[(1 − e^{{ε + L_T}})₊] ≤ δ",
        "(ε, δ)-DP: Dwork & Roth 2014, Definition 2.4; " + SOURCE,
        delta_of="D'||D",
    ),
    CheckSpec(
        "exact-reference",
        "Exact δ(ε) by FFT composition of the privacy-loss distribution",
        "The composed pair's exact ε at δ = {delta:g} lies in [{eps_low:.5g}, {eps_high:.5g}]; the claim ε = {eps:g} "
        "is at least the exact ε",
        "δ̃_low(ε + t) − η ≤ δ_T(ε) ≤ δ̃_up(ε − t) + η, t = {shift:.2g}, η = 1e-15",
        "Koskela, Jälkö & Honkela 2020; Gopi, Lee & Wutschitz 2021, §5 (mean-preserving discretisation)",
        role="paper",
    ),
)

#: Ids a run builds beyond :data:`CHECKS`: none.
RUN_CHECKS: tuple[str, ...] = ()
