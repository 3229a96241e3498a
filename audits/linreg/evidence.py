"""The audits of the linear-regression mechanisms: ``pdp-audit run {output-perturbation, ops, adaops,
adassp, ssp}``, from the configuration to the :class:`~pdp_audit.reports.records.Run`.

Every run, whatever the mechanism (one :class:`~pdp_audit.audits.linreg.audit.MechanismAudit` each,
:data:`AUDITS`):

1. loads and preprocesses the data (:mod:`pdp_audit.audits.linreg.context`) and calibrates the mechanism to the
   claim (ε, δ);
2. **searches adversarial neighbours**: every candidate of :func:`pdp_audit.audits.linreg.context.candidates`
   (near-singular XᵀX, points aligned with θ̂, |y| = 1, large leverage, high-influence rows) is scored
   by the mechanism's exact δ(ε) where its output law gives one (output perturbation, OPS, SSP,
   AdaSSP), by a conditional Monte Carlo δ(ε) for AdaOPS, or by a small-sample privacy-loss mean
   otherwise; the worst candidate is audited with the full budget: ``dp-forward``, ``dp-reverse``
   (plain tails, or rare-event importance sampling when δ·trials < 30) and ``lr-attack``
   (:func:`pdp_audit.audits.linreg.builders.dp_claim_checks`); the check note says how many candidates were
   searched and which one was worst;
3. adds the printed statements the configuration deploys (guarantees: [PDP] Algorithm 1's printed
   ``min`` under ``run adaops --algorithm pdp --printed``) and, only with ``paper_claims``
   (``--paper-claims``), the mechanism's checks of printed statements (pDP at every data point and at
   off-dataset targets, per-release budgets, Prop. 4.3 by Monte Carlo, identities, Q5) -- paper findings,
   never computed otherwise (:mod:`pdp_audit.audits.linreg.checks` gives every check's role);
4. builds the per-instance page (histogram of the pDP ε of every data point against the worst DP ε
   found and the claim, :func:`pdp_audit.audits.linreg.pages.per_instance_page`) and, with ``paper_claims``,
   the reproductions (paper pages; ``--no-reproduce`` skips them, :mod:`pdp_audit.audits.linreg.reproductions`):
   [PDP] Fig. 1 and Fig. 2 (left) with ``run output-perturbation``, [PDP] Fig. 2 (right) with ``run ops``,
   [LR] Fig. 3 with ``run adassp``.

Every DP check (``dp-forward``, ``dp-reverse``, ``dp-conditional-*``) carries the privacy profile δ(ε) of
the worst neighbour on a grid of ε around the claim (:func:`pdp_audit.audits.linreg.builders.dp_claim_checks`).
The verdict and exit code come from the guarantees only (:func:`pdp_audit.verify.core.checks.make_run`).

The per-instance summary numbers go into ``parameters`` (``pdp_epsilon_median`` …), since the report's
built-in per-instance page is specific to the Gaussian mechanism.

The search is a heuristic: its worst candidate is a lower estimate of the worst case over all
neighbouring data sets, and the notes say so.  Not covered: ObjPert in the benchmark, and the tail bound
of Prop. 4.3(4) (it needs a generalised-χ² CDF at δ).
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, replace

import numpy as np

from pdp_audit.audits.linreg.adaops import AdaOPSAudit
from pdp_audit.audits.linreg.audit import MechanismAudit
from pdp_audit.audits.linreg.builders import KnownAtPair, PairClaim, dp_claim_checks, dp_claim_draws, profile_grid
from pdp_audit.audits.linreg.context import Context, LinregAuditConfig, candidates, load_data, make_bases
from pdp_audit.audits.linreg.ops import OPSAudit
from pdp_audit.audits.linreg.output_perturbation import OutputPerturbationAudit
from pdp_audit.audits.linreg.pages import per_instance_page
from pdp_audit.audits.linreg.sufficient_statistics import AdaSSPAudit, SSPAudit
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.estimators.engine import one_blas_thread
from pdp_audit.verify.estimators.progress import at_most, planned, planning

AUDITS: dict[str, type[MechanismAudit]] = {
    "output-perturbation": OutputPerturbationAudit,
    "ops": OPSAudit,
    "adaops": AdaOPSAudit,
    "adassp": AdaSSPAudit,
    "ssp": SSPAudit,
}
COMMON_KEYS = (
    "mechanism",
    "epsilon",
    "delta",
    "trials",
    "seed",
    "alpha",
    "dataset",
    "data",
    "target_column",
    "search",
    "noise_multiplier",
)


def search_worst(ctx: Context, audit: MechanismAudit) -> tuple[int, list, np.ndarray, str]:
    """Score every candidate neighbour; return (index of the worst, candidates, scores, how scored).  Where the
    whole audit's progress bar is shown, the audit's draws are planned first (:func:`planned_draws`)."""
    cands = candidates(ctx.bases, audit.typical_lambda(), ctx.config.search)
    if planning():
        planned(planned_draws(ctx, audit, cands))
    with at_most(audit.search_draws(ctx, cands)):  # a candidate the algorithm cannot run draws less
        scores, how = audit.score(ctx, cands, ctx.config.epsilon)
    safe = np.where(np.isfinite(scores), scores, -np.inf)
    return int(np.argmax(safe)), cands, scores, how


def planned_draws(ctx: Context, audit: MechanismAudit, cands: list) -> int:
    """At most the draws of the audit, known before its first (the whole audit's progress bar,
    :func:`pdp_audit.verify.estimators.progress.planned`; each pass weighed as it weighs its draws): the search's,
    the DP checks' at the worst neighbour (:func:`~pdp_audit.audits.linreg.builders.dp_claim_draws`), the
    mechanism's further evidence there, the per-instance ε and, with ``paper_claims``, the printed statements'.  Each
    bounded part takes back what it did not draw once done
    (:func:`~pdp_audit.verify.estimators.progress.at_most`), so the bar ends at its total.  The reproductions'
    figures draw from their own generators and are not counted."""
    config = ctx.config
    total = audit.search_draws(ctx, cands) + dp_claim_draws(config.trials) + audit.worst_target_draws()
    total += audit.per_instance_draws(ctx)
    return total + (audit.extra_draws() if config.paper_claims else 0)


def search_note(cands, scores, how: str, worst: int) -> tuple[str, dict]:
    """The note that every DP check of the worst neighbour carries, and the search's details (top five)."""
    order = np.argsort(-np.where(np.isfinite(scores), scores, -np.inf), kind="stable")
    top = [{"target": cands[i].label, "score": float(scores[i])} for i in order[:5]]
    unrunnable = int(np.sum(np.isnan(scores)))
    note = (
        f"Adversarial search: {len(cands)} candidate neighbours on 3 base data sets (the data; the singular copy, "
        f"with XᵀX singular along e₁; the aligned copy, n rows aligned with e₁ and y = 1), scored by {how}; worst: "
        f"{cands[worst].label} "
        f"(score {scores[worst]:.4g})."
        + (
            f" {unrunnable} candidates could not be run (the printed algorithm is undefined there)."
            if unrunnable
            else ""
        )
    )
    return note, {
        "candidates": len(cands),
        "scored_by": how,
        "worst": cands[worst].label,
        "top5": top,
        "unrunnable": unrunnable,
    }


def run_linreg_audit(config: LinregAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Run the audit of ``config.mechanism`` (module notes) and return its decided
    :class:`~pdp_audit.reports.records.Run`.

    Raises :class:`~pdp_audit.verify.inputs.validation.InputError` for an invalid configuration or data file.

    BLAS runs on one thread, as in a sweep's worker processes: a threaded BLAS may round differently (OpenBLAS
    0.3.21 did, in the search's scores), and the numbers must not depend on where the audit runs.
    """
    with one_blas_thread():
        return _run_linreg_audit(config, executor, progress)


def _run_linreg_audit(config: LinregAuditConfig, executor: Executor | None, progress: bool) -> Run:
    X, y, name, description = load_data(config)
    audit = AUDITS[config.mechanism](config, X, y)
    ctx = Context(config, X, y, name, description, make_bases(X, y, audit.typical_lambda()), executor, progress)
    worst, cands, scores, how = search_worst(ctx, audit)
    target = cands[worst]
    note, search_details = search_note(cands, scores, how, worst)
    exact = audit.target_deltas(ctx, [target], config.epsilon)
    pair = audit.pair(ctx.neighbours(target))
    known = KnownAtPair(
        deltas=None if exact is None else tuple(exact[0]),
        attack=audit.attack_exact(ctx, target),
        curve=audit.exact_profile(ctx, target, profile_grid(config.epsilon)),
    )
    with at_most(dp_claim_draws(config.trials)):  # importance sampling only where plain tails cannot resolve δ
        checks = dp_claim_checks(
            pair,
            PairClaim(config.epsilon, config.delta, audit.title, audit.source),
            ctx.draws(),
            known,
            progress=progress,
            note=note,
        )
    with at_most(audit.worst_target_draws()):
        worst_checks = audit.worst_target_checks(ctx, target)
    checks = audit.support_dp_checks(checks) + worst_checks
    checks = [check.with_details(search=search_details) for check in checks]
    checks += audit.deployed_checks(ctx)
    if config.paper_claims:
        with at_most(audit.extra_draws()):
            checks += audit.extra_checks(ctx)
    eps_cands = audit.target_epsilons(ctx, [target], config.delta)
    worst_eps = float(eps_cands[0]) if eps_cands is not None else float("nan")
    page, summary = per_instance_page(ctx, audit, cands, worst_eps)
    pages = [page]
    if config.reproduce and config.paper_claims:
        extra_checks, extra_pages = audit.reproductions(ctx)
        checks += extra_checks
        pages += [replace(p, role="paper") for p in extra_pages]
    decided = finalize(checks, config.alpha)
    parameters = {
        **{k: v for k, v in asdict(config).items() if v is not None and (k in COMMON_KEYS or k in audit.config_keys)},
        "synthetic": None if config.synthetic is None else f"{config.synthetic[0]},{config.synthetic[1]}",
        "mechanism_title": audit.title,
        "sigma": None,
        "sigma_source": audit.noise_description(),
        **audit.parameters(),
        "dataset_description": description,
        "n_rows": ctx.n,
        "dimension": ctx.d,
        "worst_neighbour": target.label,
        "candidates_searched": len(cands),
        **summary,
    }
    parameters = {k: v for k, v in parameters.items() if v is not None or k == "sigma"}
    if config.data is not None or config.synthetic is not None:
        parameters.pop("dataset", None)
    return make_run(
        config.mechanism, decided, config.alpha, parameters, config.seed, pages=pages, paper_claims=config.paper_claims
    )
