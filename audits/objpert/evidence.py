"""The audit of objective perturbation ([RW] Algorithm 1, Theorems 5–9, Corollary 7, Figure 1).

ObjPert releases θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ, J = Σᵢ ℓ(θ; zᵢ) + (λ/2)‖θ‖², b ~ N(0, σ²I).  Checks:

(a) [RW] Theorem 6 and Corollary 7 against the exact log-density ratio (change of variables, computed by
    :func:`pdp_audit.mechanisms.objpert.mechanism.log_density`) on many random (θ, z): identities (Corollary
    7 is printed "≤");
(b) [RW] Theorem 8 on the same instances (deterministic inequality) and Theorem 9 by Monte Carlo coverage of
    releases (:mod:`pdp_audit.audits.objpert.theorems`);
(c) DP of Theorem 5's calibration under both readings of its σ (ledger Q1: printed σ = ξ²(8 log(2/δ) + 4ε)/ε²,
    or σ² = that), each at an adversarial neighbour found by a cheap search and then audited with the full budget
    (:mod:`pdp_audit.audits.objpert.dp`), passing through the certified bound of
    :mod:`pdp_audit.mechanisms.objpert.certificate`;
(d) per instance: the ex-post pDP (Corollary 7) of every training point for one release, next to the DP ε
    (report pages, the audit's data and breast-cancer);
(e) [RW] Figure 1 (K17) as a report page, and its qualitative claims as exact checks; K19
    (:mod:`pdp_audit.audits.objpert.figure1`).

Roles (:mod:`pdp_audit.audits.objpert.checks`): the DP of the deployed σ, (a), (b) with |f′| and K19 for the
logistic loss are guarantees.  The paper statements -- Theorem 5 under a reading of σ that is not deployed, Theorem 9's
printed GLM form, Figure 1 and its claims (a ``paper`` page) -- are computed only with ``paper_claims``
(``--paper-claims``); ``--calibration printed`` deploys Theorem 5's printed σ, whose DP checks are then guarantees.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Callable

import numpy as np

from pdp_audit.audits.objpert.checks import SOURCE_THM5
from pdp_audit.audits.objpert.config import Reading
from pdp_audit.audits.objpert.context import (
    DEFAULT_SYNTHETIC,
    READINGS,
    Calibration,
    ObjPertAuditConfig,
    calibrate,
    check_hessian,
    load_data,
)
from pdp_audit.audits.objpert.dp import (
    AuditedSigma,
    DpSetting,
    dp_setting,
    instance_trials,
    instances_for_certificate,
    planned_setting,
)
from pdp_audit.audits.objpert.figure1 import FIG1_N, figure1, k17_checks, k19_check
from pdp_audit.audits.objpert.pages import figure1_page, per_instance_page, theorem5_page
from pdp_audit.audits.objpert.search import Problem
from pdp_audit.audits.objpert.theorems import identity_checks, theorem8_check, theorem9_checks
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.objpert.certificate import ex_post_all_points
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize, make_run
from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.estimators.progress import planned, planning

if TYPE_CHECKING:  # scipy: imported by the losses, not by every command's parser
    from pdp_audit.mechanisms.losses import GLMLoss


def per_instance_values(name: str, X, y, loss, lam, sigma, config: ObjPertAuditConfig) -> tuple[np.ndarray, dict]:
    """The ex-post pDP (Corollary 7) of every training point (removal neighbour) for one release θ̂ᴾ, seeded by the
    run, and its summary (median, 90th percentile, largest, fraction below a tenth of the DP ε)."""
    pair = op.ObjPertPair(X, y, X[0], y[0], relation="remove", mechanism=op.ObjPertMechanism(lam, sigma, loss))
    theta = pair.sample("D", 1, block_rng(config.seed, f"per-instance/{name}", 0))[0]
    eps = ex_post_all_points(X, y, loss, lam, sigma, theta)["epsilon"]
    summary = {
        "dataset": name,
        "n": int(len(X)),
        "median": float(np.median(eps)),
        "p90": float(np.quantile(eps, 0.9)),
        "max": float(np.max(eps)),
        "fraction_below_tenth_of_dp": float(np.mean(eps < 0.1 * config.epsilon)),
    }
    return eps, summary


def run_objpert_audit(config: ObjPertAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Validate ``config``, run checks (a)–(e) of the module docstring and return the decided run.  Where a whole
    audit's progress bar is shown, its total is planned before the first draw as an upper bound (the profiles' draws
    depend on the pair each search finds: :func:`~pdp_audit.audits.objpert.dp.planned_setting`), and each setting
    takes back what its profiles did not draw once they are done, so the bar ends exactly at its total."""
    loss = config.loss_object()
    X, y, description = load_data(config)
    cal = calibrate(config)
    lam = cal.lam
    theta_np = check_hessian(X, y, lam, loss)

    checks: list[Evidence] = []
    # (a)/(b) need releases; take them from the search of the mechanism's σ (cheap), then the instances
    problem = Problem(X, y, loss, lam, theta_np)
    first = config.sigma if config.sigma is not None else cal.sigmas[config.calibration]
    deployed = config.calibration if config.sigma is None else None
    readings = [r for r in (READINGS if cal.sigmas else ()) if r == deployed or config.paper_claims]
    if planning():  # an upper bound until each search has found its pair (dp_setting takes back the rest)
        planned(instance_trials(config) + planned_setting(config) * (len(readings) + (config.sigma is not None)))
    inst = instances_for_certificate(problem, first, config, executor, progress)
    checks += identity_checks(X, y, loss, lam, first, inst)
    thm8, cert_ok = theorem8_check(loss, lam, inst)
    checks.append(thm8)

    # (c) DP of the deployed σ (Theorem 5 under --calibration's reading, or --sigma); the other readings are paper
    settings = _dp_settings(problem, cal, config, readings, deployed, cert_ok, executor, progress)
    for s in settings:
        checks += s.checks

    # (b) Theorem 9 on the releases from D of the deployed σ (the printed GLM form: a paper finding)
    mech = next(
        s
        for s in settings
        if (config.sigma is not None and s.prefix == "")
        or (config.sigma is None and s.prefix == f"thm5-{config.calibration}-")
    )
    checks += theorem9_checks(X, y, loss, lam, mech.sigma, config.rho, mech.thetas_d, config.paper_claims)

    # (e) Figure 1 (paper) and K19 (a guarantee for the logistic loss: β = 1/4 behind the deployed λ = 1/(2ε))
    fig1 = figure1() if config.paper_claims else None
    if fig1 is not None:
        checks += k17_checks(fig1)
    if config.loss == "logistic" or config.paper_claims:
        k19 = k19_check(config.epsilon)
        checks.append(replace(k19, spec=k19.spec.deployed("--loss logistic")) if config.loss == "logistic" else k19)
    decided = finalize(checks, config.alpha)

    # (d) per instance
    values, summaries, descriptions = _per_instance(config, X, y, description, loss, lam, cal.sigma)
    pages = [replace(figure1_page(fig1), role="paper")] if fig1 is not None else []
    pages += [
        per_instance_page(values, summaries, descriptions, loss, lam, cal.sigma, config),
        theorem5_page(settings, config, config.alpha),
    ]
    parameters = _parameters(config, cal, X, description, settings, fig1 is not None, summaries)
    return make_run(
        "objpert", decided, config.alpha, parameters, config.seed, pages=pages, paper_claims=config.paper_claims
    )


def _dp_settings(
    problem: Problem,
    cal: Calibration,
    config: ObjPertAuditConfig,
    readings: list[Reading],
    deployed: Reading | None,
    cert_ok: bool,
    executor: Executor | None,
    progress: bool,
) -> list[DpSetting]:
    """Check (c): the DP audit of each σ -- Theorem 5's under each reading audited (the deployed one a guarantee,
    the others paper findings), and ``--sigma``'s when given."""
    lam = cal.lam
    lam_note = (
        ""
        if lam >= cal.lam_theorem5 * (1 - 1e-12)
        else f" λ = {lam:.4g} is below Theorem 5's 2β/ε = {cal.lam_theorem5:.4g}: the theorem does not apply."
    )
    settings: list[DpSetting] = []
    for reading in readings:
        audited = AuditedSigma(
            f"thm5-{reading}-",
            f"Theorem 5, {reading} reading",
            f"Thm 5 {reading} σ = {cal.sigmas[reading]:.4g}",
            cal.sigmas[reading],
            SOURCE_THM5 + f" ({reading} reading)",
            classify=_classify(reading, deployed),
        )
        s = dp_setting(problem, audited, config, cert_ok, executor, progress)
        settings.append(replace(s, checks=[replace(check, note=check.note + lam_note) for check in s.checks]))
    if config.sigma is not None:
        audited = AuditedSigma(
            "",
            "the released mechanism (--sigma)",
            f"ObjPert at σ = {config.sigma:.4g}",
            config.sigma,
            "(ε, δ)-DP at --sigma: Dwork & Roth 2014, Definition 2.4; " + SOURCE_THM5,
        )
        settings.append(dp_setting(problem, audited, config, cert_ok, executor, progress))
    return settings


def _per_instance(
    config: ObjPertAuditConfig, X: np.ndarray, y: np.ndarray, description: str, loss: GLMLoss, lam: float, sigma: float
) -> tuple[dict, list, dict]:
    """Check (d): the per-instance values on the audited data and, beside them, on breast-cancer (the paper's)."""
    own = (
        "breast-cancer" if config.dataset == "breast-cancer" else ("synthetic" if config.data is None else "your data")
    )
    values, summaries, descriptions = {}, [], {own: description}
    values[own], summary = per_instance_values(own, X, y, loss, lam, sigma, config)
    summaries.append(summary)
    if config.dataset != "breast-cancer":
        bc_cfg = ObjPertAuditConfig(
            **{**asdict(config), "data": None, "synthetic": None, "dataset": "breast-cancer", "normalize_rows": False}
        )
        Xb, yb, descriptions["breast-cancer"] = load_data(bc_cfg)
        values["breast-cancer"], summary = per_instance_values("breast-cancer", Xb, yb, loss, lam, sigma, config)
        summaries.append(summary)
    return values, summaries, descriptions


def _parameters(
    config: ObjPertAuditConfig,
    cal: Calibration,
    X: np.ndarray,
    description: str,
    settings: list[DpSetting],
    with_figure1: bool,
    summaries: list,
) -> dict:
    """The run's recorded parameters: the config, the calibration, the data's shape and each search's winner."""
    parameters = {
        **asdict(config),
        "sigma": cal.sigma,
        "sigma_source": cal.sigma_source,
        "lam_used": cal.lam,
        "lam_theorem5": cal.lam_theorem5,
        "xi": cal.xi,
        "beta": cal.beta,
        **{f"sigma_{r}": v for r, v in cal.sigmas.items()},
        "dataset_description": description,
        "n_rows": int(X.shape[0]),
        "dimension": int(X.shape[1]),
        **{f"worst_neighbour_{s.prefix or 'dp-'}".rstrip("-"): s.search.winner.label for s in settings},
        "figure1": None
        if not with_figure1
        else (
            f"n = {FIG1_N}, d = 2, margin 0.4, λ = 1, σ = {op.theorem5_sigma(1.0, 1e-5, 1.0, 'variance'):.6g} "
            "(Theorem 5 variance reading at (1, 1e-5))"
        ),
        "per_instance": "; ".join(f"{s['dataset']}: median {s['median']:.4g}, max {s['max']:.4g}" for s in summaries),
    }
    parameters["synthetic"] = (
        list(config.synthetic or DEFAULT_SYNTHETIC) if config.data is None and config.dataset is None else None
    )
    return parameters


def _classify(reading: str, deployed: str | None) -> Callable[[CheckSpec], CheckSpec]:
    """The role of Theorem 5's DP checks under ``reading``: a guarantee where deployed (the printed σ through
    ``--calibration printed``), else a paper finding (a reading of the theorem that nothing deployed uses)."""
    if reading != deployed:
        return lambda spec: replace(spec, role="paper")
    if reading == "printed":
        return lambda spec: replace(spec, role="paper").deployed("--calibration printed")
    return lambda spec: spec
