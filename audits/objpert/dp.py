"""DP of a calibration of ObjPert at its adversarial neighbour: tails in both directions and the attack.

Each audited σ (the deployed one -- Theorem 5 under the reading of ``--calibration``, ledger Q1, or the user's
``--sigma`` -- and, with ``--paper-claims``, Theorem 5 under its other readings) is audited at its own adversarial
neighbour (:mod:`pdp_audit.audits.objpert.search`) with the full budget.  The two tail checks are decided by
importance sampling where plain sampling cannot resolve δ (:mod:`pdp_audit.audits.objpert.profile`) and carry the
privacy profile of the pair.  Where the loss has a certified bound (:mod:`pdp_audit.mechanisms.objpert.certificate`), a
check passes when that bound satisfies the claim *and* the Monte Carlo interval is consistent with it (its lower
end does not exceed the bound) -- the suite's rule for closed forms.  The squared loss has no certified bound
(its f′ is unbounded on R^d) but an exact δ(ε) (:func:`pdp_audit.mechanisms.objpert.certificate.squared_loss_profile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from pdp_audit.audits.objpert.checks import DP_TITLES
from pdp_audit.audits.objpert.context import ObjPertAuditConfig, check_hessian
from pdp_audit.audits.objpert.profile import DeltaBound, dp_profile_check, profile_draws_bound
from pdp_audit.audits.objpert.search import (
    SEARCH_QUANTILE,
    Problem,
    ReleaseAndLoss,
    Search,
    Target,
    search_worst_target,
)
from pdp_audit.audits.objpert.theorems import random_instances, theorem8_check
from pdp_audit.mechanisms.objpert.certificate import Certificate, certifiable, certificate, squared_loss_profile
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.estimators.progress import at_most
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_checks import PairSamples, dp_specs
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_validation import loss_consistency_check


def _as_declared(spec: CheckSpec) -> CheckSpec:
    return spec


#: The name of ObjPert's release as a stage of another audit's pipeline (the privacy report of θ̂ᴾ).
STAGE = "θ̂ᴾ (ObjPert)"


def _a_stage(spec: CheckSpec) -> CheckSpec:
    """``spec`` as a check of one stage of another audit's pipeline: its δ(ε₁) is the stage's, not the run's claim
    (:attr:`CheckSpec.stage`; the run composes its stages: :func:`pdp_audit.reports.certified_claim.composed_claim`)."""
    return replace(spec, stage=STAGE) if spec.delta_of is not None else spec


@dataclass(frozen=True)
class AuditedSigma:
    """One σ of ObjPert to audit, and how its checks are declared: ids prefixed ``prefix``, the claim naming the
    calibration ``name`` (from ``source``), titles starting ``short: …``, each spec's role set by ``classify``;
    ``importance=False``: tails from plain Monte Carlo only
    (:func:`pdp_audit.audits.objpert.profile.dp_profile_check`)."""

    prefix: str
    name: str
    short: str
    sigma: float
    source: str
    classify: Callable[[CheckSpec], CheckSpec] = _as_declared
    importance: bool = True


@dataclass
class DpSetting:
    """One audited σ: its search, the privacy losses sampled at the winner, the releases from D, the certificate
    (None when there is none) and its three DP checks."""

    prefix: str
    name: str
    sigma: float
    search: Search
    samples: PairSamples
    thetas_d: np.ndarray
    cert: Certificate | None
    checks: list[Evidence] = field(default_factory=list)


def _sample_world(pair, world, trials, seed, stream, executor, progress) -> np.ndarray:
    return run_blocks(ReleaseAndLoss(pair, world), trials, seed, f"{stream}/{world}", executor, progress)


def _delta_bound(cert: Certificate | None, exact, direction: str) -> DeltaBound | None:
    """The bound a pass may rest on in ``direction``: the certificate (both directions), else the exact δ(ε) of the
    squared loss, else none."""
    if cert is not None:
        return DeltaBound(cert.delta, cert.epsilon, "certified bound on δ(ε) (both directions)")
    if exact is not None:
        return DeltaBound(
            lambda e: exact.delta(e, direction),
            exact.epsilon,
            f"exact δ_{{{direction.replace('||', '‖')}}}(ε) (Gaussian release, one-dimensional quadrature)",
        )
    return None


def dp_setting(
    problem: Problem, audited: AuditedSigma, config: ObjPertAuditConfig, cert_ok: bool, executor, progress
) -> DpSetting:
    """Search the adversarial neighbour at ``audited.sigma``, sample ``config.trials`` releases per world there and
    build ``<prefix>dp-forward``, ``<prefix>dp-reverse`` (with their privacy profiles) and ``<prefix>lr-attack``
    (declared as ``audited`` says), supported by the certified bound where the loss has one and ``cert_ok`` (its
    log-det ingredient held on thm8-bound), or by the exact δ(ε) of the squared loss."""
    eps, delta, sigma = config.epsilon, config.delta, audited.sigma
    stream = f"objpert-dp/{audited.prefix or 'user'}"
    search = search_worst_target(problem, sigma, config.search_trials, config.seed, stream, executor, progress)
    pair = problem.pair(search.winner, sigma)
    rows_d = _sample_world(pair, "D", config.trials, config.seed, stream, executor, progress)
    rows_dp = _sample_world(pair, "D'", config.trials, config.seed, stream, executor, progress)
    samples = PairSamples(rows_d[:, -1], rows_dp[:, -1])
    cert, exact = _closed_forms(problem, search.winner, sigma, cert_ok)
    specs = _specs(problem, audited, config)
    draws = Draws(config.trials, config.seed, config.alpha, executor)
    with at_most(2 * profile_draws_bound(config.trials, audited.importance)):  # what planned_setting planned
        checks = [
            dp_profile_check(
                DpClaim(spec, direction, eps, delta),
                pair,
                (samples.loss_d, samples.loss_dprime),
                draws,
                _delta_bound(cert, exact, direction),
                importance=audited.importance,
            )
            for spec, direction in zip(specs[:2], ("D||D'", "D'||D"))
        ]
    attack = builders.attack_check(
        specs[2], likelihood_ratio_attack(samples.loss_d, samples.loss_dprime, delta, config.alpha), eps, delta
    )
    checks, attack, closed_form_note = _closed_form_support(checks, attack, cert, exact, problem.loss, config)
    checks = _at_neighbour([*checks, attack], search, problem, audited, config, closed_form_note)
    checks.append(loss_consistency_check(samples.loss_d, samples.loss_dprime, guards=specs[0]))
    return DpSetting(audited.prefix, audited.name, sigma, search, samples, rows_d[:, :-1], cert, checks)


def _closed_forms(problem: Problem, target: Target, sigma: float, cert_ok: bool):
    """(the certificate at ``target``, the exact profile of the squared loss), each None where there is none."""
    loss, lam = problem.loss, problem.lam
    cert = certificate(loss, float(np.linalg.norm(target.x)), lam, sigma) if cert_ok else None
    exact = None
    if loss.name == "squared":
        exact = squared_loss_profile(problem.X, problem.y, target.x, target.y, target.relation, lam, sigma)
    return cert, exact


def _specs(problem: Problem, audited: AuditedSigma, config: ObjPertAuditConfig) -> list[CheckSpec]:
    """The declared ``<prefix>dp-forward``, ``<prefix>dp-reverse`` and ``<prefix>lr-attack`` of ``audited``."""
    claim = f"ObjPert, {audited.name} (σ = {audited.sigma:.4g}, λ = {problem.lam:.4g})"
    declared = dp_specs(claim, config.epsilon, config.delta, audited.source, audited.prefix)
    specs = [audited.classify(spec) for spec in declared]
    return [replace(spec, title=f"{audited.short}: {what}") for spec, what in zip(specs, DP_TITLES)]


def _closed_form_support(checks: list[Evidence], attack: Evidence, cert, exact, loss, config: ObjPertAuditConfig):
    """The DP checks and the attack with the closed form a pass rests on (the certificate, else the exact profile
    of the squared loss) in their details and support, and the note that says which (or why there is none)."""
    eps, delta = config.epsilon, config.delta
    if cert is not None:
        cert_delta, cert_eps = cert.delta(eps), cert.epsilon(delta)
        note = (
            " Certified bound (derived by this audit from Corollary 7, the log-det bound log(1 + f″‖x‖²/λ) and bᵀx "
            f"~ N(0, σ²‖x‖²); see the module notes): δ({eps:g}) {_bound_text(cert_delta)} in both directions, i.e. "
            f"({cert_eps:.4g}, {delta:g}) at this neighbour; a pass needs this bound to satisfy the claim and the "
            "Monte Carlo interval to be consistent with it."
        )
        checks = [check.with_details(certified_delta=cert_delta, certified_epsilon=cert_eps) for check in checks]
        attack = replace(attack, supports=_attack_support(eps, cert_eps)).with_details(certified_epsilon=cert_eps)
        return checks, attack, note
    if exact is not None:
        exact_eps = exact.epsilon(delta)
        forward, reverse = exact.delta(eps, "D||D'"), exact.delta(eps, "D'||D")
        note = (
            " Exact privacy profile (squared loss: the release θ̂ᴾ = H⁻¹(c − b) is Gaussian given the data, so δ(ε) "
            "of this pair is one integral): "
            f"δ_{{D‖D'}}({eps:g}) = {forward:.3g}, δ_{{D'‖D}}({eps:g}) = {reverse:.3g}; exact ε at δ = {delta:g}: "
            f"{exact_eps:.4g}. A pass needs it to satisfy the claim and the Monte Carlo interval to be consistent with "
            "it. This certifies the pair found by the search only: Theorem 5's ξ = 2(1 + R) assumes ‖θ‖ ≤ R, which "
            "the unconstrained release does not enforce, so no bound holds for every neighbour at once."
        )
        checks = [check.with_details(exact_epsilon=exact_eps) for check in checks]
        attack = replace(attack, supports=_attack_support(eps, exact_eps)).with_details(exact_epsilon=exact_eps)
        return checks, attack, note
    why = (
        "an ingredient of the certified bound (the log-det bound) failed on the instances of thm8-bound"
        if certifiable(loss)
        else "the loss's gradient f′ is unbounded on R^d, so it has no certified bound"
    )
    note = (
        f" Why this check cannot pass: no bound on δ(ε) to rest on ({why}); sampling alone can refute the claim, "
        "never confirm a δ it cannot resolve."
    )
    return checks, attack, note


def _at_neighbour(
    checks: list[Evidence],
    search: Search,
    problem: Problem,
    audited: AuditedSigma,
    config: ObjPertAuditConfig,
    closed_form_note: str,
) -> list[Evidence]:
    """``checks`` (the first one the forward DP check) with the neighbour they were decided at in their notes (the
    first also says how the search found it) and details."""
    t = search.winner
    runner = search.ranking[1] if len(search.ranking) > 1 else ("—", float("nan"))
    search_note = (
        f"Adversarial neighbour: {t.label}. Search: {search.candidates} candidates (unit-sphere points in many "
        f"directions with both extreme labels; the training rows of largest leverage and of largest |f′|‖x‖ at the "
        f"non-private fit, removed, and the same rows with their label flipped, added), ranked by the "
        f"{100 * SEARCH_QUANTILE:g}th percentile of the ex-post pDP |L| (Corollary 7, an identity: cor7-identity) over "
        f"{search.releases} releases from D; winner {search.score:.4g}, runner-up {runner[1]:.4g} ({runner[0]}). "
        f"Full budget at the winner: {config.trials:,} releases per world."
    )
    neighbour_note = f" Neighbour: {t.label} (search in {audited.prefix}dp-forward)."
    checks = [replace(checks[0], note=(checks[0].note + " " + search_note + closed_form_note).strip())] + [
        replace(check, note=(check.note + neighbour_note + closed_form_note).strip()) for check in checks[1:]
    ]
    details = {
        "target": t.label,
        "relation": t.relation,
        "sigma": audited.sigma,
        "lam": problem.lam,
        "search_candidates": search.candidates,
        "search_winner_score": search.score,
    }
    return [check.with_details(**details) for check in checks]


def instance_trials(config: ObjPertAuditConfig) -> int:
    """The releases :func:`instances_for_certificate` draws."""
    return min(config.search_trials, 2000)


def planned_setting(config: ObjPertAuditConfig, importance: bool = True) -> int:
    """At most the draws of :func:`dp_setting` (the whole audit's progress bar), known before its search: the
    search's releases, ``trials`` per world at the pair found, and each DP check's profile at most
    (:func:`~pdp_audit.audits.objpert.profile.profile_draws_bound`).  Once the search has found the pair,
    :func:`dp_setting` takes back from the bar's total what its profiles did not draw
    (:func:`~pdp_audit.verify.estimators.progress.at_most`), so the bar still ends at its total."""
    return config.search_trials + 2 * config.trials + 2 * profile_draws_bound(config.trials, importance)


def instances_for_certificate(problem: Problem, sigma: float, config: ObjPertAuditConfig, executor, progress):
    """Random (θ, z) instances (:func:`pdp_audit.audits.objpert.theorems.random_instances`) drawn from a short
    search at ``sigma`` (at most 2,000 releases): the ground on which ``thm8-bound`` tests the certificate's
    ingredient."""
    trials = instance_trials(config)
    probe = search_worst_target(problem, sigma, trials, config.seed, "objpert-instances", executor, progress)
    return random_instances(problem.X, problem.y, problem.loss, problem.lam, sigma, probe)


def released_objpert_draws(config: ObjPertAuditConfig) -> int:
    """The draws :func:`released_objpert_checks` takes (plain tails: no profile draws), for the whole audit's
    progress bar of the audit that deploys it."""
    return instance_trials(config) + planned_setting(config, importance=False)


def released_objpert_checks(X, y, loss, config: ObjPertAuditConfig, executor, progress, source: str) -> list[Evidence]:
    """ObjPert as another audit deploys it (the first stage of the privacy report), with ridge ``config.lam`` and noise
    scale ``config.sigma`` on the data (``X``, ``y``) and ``loss``: ``thm8-bound`` (the ingredient of the certified
    bound) and ``objpert-dp-forward``, ``objpert-dp-reverse``, ``objpert-lr-attack`` at the adversarial neighbour, for
    the claim (``config.epsilon``, ``config.delta``).  Tails by plain Monte Carlo only: the importance sampler's
    dominating-point search costs thousands of single solves, minutes at d = 50; the pass rests on the certified
    bound, which the sampled interval must be consistent with."""
    lam, sigma = config.lam, config.sigma
    assert lam is not None and sigma is not None  # the deploying audit's (its calibration sets both)
    problem = Problem(X, y, loss, lam, check_hessian(X, y, lam, loss))
    inst = instances_for_certificate(problem, sigma, config, executor, progress)
    thm8, cert_ok = theorem8_check(loss, lam, inst)
    audited = AuditedSigma(
        "objpert-", "its release θ̂ᴾ", f"ObjPert σ = {sigma:.4g}", sigma, source, _a_stage, importance=False
    )
    setting = dp_setting(problem, audited, config, cert_ok, executor, progress)
    return [thm8, *setting.checks]


def _bound_text(value: float) -> str:
    return "< 1e-300" if value == 0 else f"≤ {value:.3g}"


def _attack_support(eps_claim: float, cert_eps: float):
    def supports(ci, alpha) -> bool:
        return cert_eps <= eps_claim and ci[0] <= cert_eps

    return supports
