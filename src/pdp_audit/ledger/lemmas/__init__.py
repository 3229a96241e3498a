"""The papers' deterministic and tail lemmas, checked by exact computation (the ledger's own checks).

These statements concern no deployed mechanism, so no ``pdp-audit run`` audit carries them; the claims ledger
runs them (``pdp-audit claims --run``), each entry just the checks it cites.  Every check is exact --
high-precision arithmetic (mpmath, 50 digits) or closed-form tail probabilities -- and reports the worst case
found with the instance that produced it.  One module per subject:

* :mod:`.identities` -- matrix identities at 50 digits on random and ill-conditioned (condition number 1e12)
  instances: pass when the relative difference is below 1e-30 on every instance, fail when it exceeds 1e-3 on one;
* :mod:`.inequalities` -- Weyl, [PDP] Lemma A.1 and K5, [LR] App. C's direction: the ratio left/right over random
  and adversarial instances, in float64 with a 1e-9 relative allowance for rounding;
* :mod:`.tails` -- tail bounds ([PDP] B.5, [RW] 26 and 28, [LR] 13 and 14) and statements with a hidden range
  ([LR] Lemma 6's constant, Lemmas 8–9's "≤ 5d log(1/ϱ)/γ"): exact probabilities against the bound on a grid of
  the free parameters, in log space (scipy's log-survival functions, spot-checked with mpmath);
* :mod:`.privacy_loss` -- from privacy-loss tails to (ε, δ) and [PDP] Facts 2.5–2.6, on exact pairs;
* :mod:`.generalisation` -- [PDP] §2.3's generalisation bounds on a Bernoulli data domain;
* :mod:`.ridge_pdp` -- [PDP] §4: assumption (d), Propositions 4.3–4.4's constants, Remark 4.2;
* :mod:`.privacy_report` -- [RW] §3.3 and Corollary 16: the privacy report's constants;
* :mod:`.lr_algorithms` -- [LR] Algorithms 1–2: the constants their proofs account with;
* :mod:`.ops` -- [LR] App. D and F: OPS's pDP, Lemma 12's sensitivity, Proposition 18, the calibrations.

Each check's :class:`~pdp_audit.verify.core.checks.CheckSpec` is declared beside its function
(:func:`~pdp_audit.ledger.lemmas.exact.exact_check`), and each draws its random instances from its own
stream, keyed by the seed and its id: a check's numbers do not depend on which other checks run.  :data:`LEMMAS`
lists every check.

Sources: Wang 2017 [PDP] §2–4, App. A–B; Redberg & Wang 2021 [RW] §3.3, App. E; Wang 2018 [LR] Algorithms 1–2,
App. C–F.
"""

from __future__ import annotations

from typing import Iterable

from pdp_audit.ledger.lemmas import (
    generalisation,
    identities,
    inequalities,
    lr_algorithms,
    ops,
    privacy_loss,
    privacy_report,
    ridge_pdp,
    tails,
)
from pdp_audit.ledger.lemmas.exact import DIGITS, Lemma
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import Evidence, declare, finalize, make_run

#: Every exact check of the ledger, in the order of its run record.
LEMMAS: tuple[Lemma, ...] = (
    identities.smw_printed,
    identities.smw,
    identities.det_lemma,
    identities.perturbed_solution,
    identities.ridge_decomposition,
    identities.excess_risk,
    inequalities.weyl,
    inequalities.lemma_a1,
    tails.gaussian_tail_two_sided,
    tails.gaussian_tail_rw26,
    tails.laurent_massart,
    tails.subgaussian_max,
    identities.change_of_variables,
    privacy_loss.tail_to_dp,
    privacy_loss.tail_to_dp_two_sided,
    tails.lemma6_constant,
    tails.lemma8_numeric,
    tails.lemma8_chi2,
    privacy_loss.fact25_event_ratio,
    privacy_loss.fact25_printed_min,
    privacy_loss.fact26_composition,
    privacy_loss.fact26_group,
    privacy_loss.fact26_post_processing,
    inequalities.k5_hat_norm,
    identities.q48_ridge_objective,
    privacy_loss.lemma27_reverse_readings,
    ridge_pdp.k3_assumption_d,
    ridge_pdp.q14_xxt_printed,
    ridge_pdp.q14_omega_d_over_n,
    ridge_pdp.q14_n_over_d,
    ridge_pdp.k9_ops_budget,
    ridge_pdp.k9_event_e,
    ridge_pdp.q22_a5_printed,
    ridge_pdp.q22_a5_corrected,
    ridge_pdp.q7_mse_printed,
    ridge_pdp.q7_mse_proof,
    ridge_pdp.q7_gamma_bound,
    ridge_pdp.k10_gap_rate,
    ridge_pdp.q19_remark42_printed,
    ridge_pdp.q19_remark42_theta_hat,
    generalisation.prop29_bound,
    generalisation.prop211_printed,
    generalisation.prop211_equality,
    generalisation.prop211_corrected,
    generalisation.cor212_hypothesis,
    generalisation.cor212_bound,
    privacy_report.k25_dp_twice,
    privacy_report.k25_logistic_condition,
    privacy_report.q26_alg2_no_min,
    privacy_report.q26_pointwise_min,
    privacy_report.q36_sqrt_d_sigma,
    privacy_report.q36_sigma_sqrt_d,
    lr_algorithms.q42_eq8_sum,
    lr_algorithms.q42_eq8_product,
    lr_algorithms.q44_ops_step_budget,
    lr_algorithms.q43_step2_printed,
    lr_algorithms.q43_step2_scaled,
    lr_algorithms.q43_proof_events,
    lr_algorithms.q45_eps_bar,
    inequalities.q49_e1_direction_printed,
    inequalities.q49_e1_direction,
    identities.q49_excess_risk_norm,
    identities.q51_printed_unbiased,
    lr_algorithms.q51_private_mean,
    identities.q53_recovers,
    ops.rem11_pdp,
    ops.lemma12_sensitivity,
    ops.prop18_dp,
    ops.k31_no_dominant,
    ops.k31_ranking,
)
#: Every check's declaration by id (ids unique).
CHECKS = declare(*(lemma.spec for lemma in LEMMAS))
BY_ID: dict[str, Lemma] = {lemma.spec.id: lemma for lemma in LEMMAS}


def evidence(seed: int, checks: Iterable[str] | None = None) -> list[Evidence]:
    """The evidence of ``checks`` (every check when None), in :data:`LEMMAS`'s order, each from its own stream."""
    wanted = set(BY_ID) if checks is None else set(checks)
    unknown = sorted(wanted - set(BY_ID))
    if unknown:
        raise KeyError(f"unknown lemma checks {unknown} (see src/pdp_audit/ledger/lemmas/)")
    return [lemma.evidence(seed) for lemma in LEMMAS if lemma.spec.id in wanted]


def run_lemmas(seed: int, alpha: float = 1e-6, checks: Iterable[str] | None = None) -> Run:
    """The lemma checks ``checks`` (every one when None) as a run record (each check is a paper statement)."""
    decided = finalize(evidence(seed, checks), alpha)
    return make_run("ledger-lemmas", decided, alpha, {"digits": DIGITS}, seed, paper_claims=True)
