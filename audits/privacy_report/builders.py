"""The privacy-report audit's evidence constructors: coverage of a "with probability ≥ 1 − kρ" statement over
repetitions of the pipeline, and the (ε, δ) claims of the report's own Gaussian releases."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import replace

import numpy as np

from pdp_audit.audits.privacy_report.context import PrivacyReportAuditConfig
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms.privacy_report import mechanism as pr
from pdp_audit.reports.records import Direction
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators.coverage import coverage_of
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.progress import at_most
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_validation import loss_consistency_check
from pdp_audit.verify.evidence.profile_checks import dp_check_with_profile, profile_draws_bound


def does_not_apply(spec: CheckSpec, requirement: str, **details) -> Evidence:
    """An inconclusive check for a statement whose hypothesis does not hold (not an error)."""
    return Evidence(
        spec=spec,
        verdict="inconclusive",
        note=f"The guarantee does not apply: its hypothesis {requirement} did not hold on any repetition. "
        "Nothing was tested.",
        details={"hypothesis": requirement, **details},
    )


def coverage(
    spec: CheckSpec,
    fails: np.ndarray,
    rho_claim: float,
    cond: np.ndarray | None = None,
    requirement: str = "",
    exact_bracket: tuple[float, float] | None = None,
    exact_upper: float | None = None,
    **details,
) -> Evidence:
    """P[(cond and) the bound fails] ≤ ρ_claim by an exact binomial test over the repetitions.

    ``fails``: per repetition, whether the bound failed.  ``cond``: per repetition, whether the statement's
    hypothesis (``requirement``, in words) held; the check counts repetitions where it held and the bound failed,
    and does not apply if it never held.  ``exact_bracket = (lo, hi)``: the failure probability is known to lie in
    [lo, hi]; a pass then also needs the Monte Carlo interval to meet it.  ``exact_upper``: a closed-form upper
    bound on it, which the interval must not exceed.  Otherwise a pass needs the whole interval below ρ_claim.
    """
    fails = np.asarray(fails, bool)
    if cond is not None:
        cond = np.asarray(cond, bool)
        if not cond.any():
            return does_not_apply(
                spec, requirement, failures_without_hypothesis=int(fails.sum()), repetitions=int(fails.size)
            )
        fails = fails & cond
    cov = coverage_of(~fails, rho_claim)
    check = builders.coverage_check(spec, cov, exact_failure=None if exact_bracket is None else exact_bracket[1])
    if exact_bracket is not None:
        lo, hi = exact_bracket
        check = replace(
            check,
            supports=lambda ci, a: (
                ci is not None and (ci[1] <= rho_claim or (hi <= rho_claim and ci[0] <= hi and ci[1] >= lo))
            ),
        )
    elif exact_upper is not None:
        check = replace(
            check,
            supports=lambda ci, a: (
                ci is not None and (ci[1] <= rho_claim or (exact_upper <= rho_claim and ci[0] <= exact_upper))
            ),
        ).with_details(closed_form_upper=exact_upper)  # what a pass then stands on (the pages read it)
    if cond is not None and not cond.all():
        check = check.noted(
            f"The hypothesis ({requirement}) held on {int(cond.sum())} of {cond.size} repetitions; "
            "counted: repetitions where it held and the bound failed."
        )
    return check.with_details(**details)


def gaussian_claim_checks(
    spec: CheckSpec,
    pair: pr.ReportReleasePair,
    epsilon: float,
    delta_claim: float,
    config: PrivacyReportAuditConfig,
    executor: Executor | None,
    directions: tuple[Direction, ...] = ("D||D'", "D'||D"),
    stage: str | None = None,
) -> list[Evidence]:
    """δ_{P‖Q}(ε) ≤ δ for the report's releases (a Gaussian pair: exact δ(ε) from its whitened shift η), each
    with its privacy profile (:func:`pdp_audit.verify.evidence.profile_checks.dp_check_with_profile`: plain tails where
    they resolve δ, importance sampling otherwise, the exact curve Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η)).

    With both directions, each check's id gets ``-forward``/``-reverse`` and its title the direction; a ``stage``
    names the stage of the pipeline's release whose (ε, δ) claim they are (:attr:`CheckSpec.stage`).
    """
    losses = (
        sample_privacy_loss(pair, "D", config.trials, config.seed, spec.id, executor),
        sample_privacy_loss(pair, "D'", config.trials, config.seed, spec.id, executor),
    )
    eta = pair.eta
    # a proven upper bound on δ(ε) (the pass rule compares it with the claim exactly)
    exact_delta = (lambda e: gaussian_exact.delta_upper(e, 1.0, eta)) if eta > 0 else (lambda e: 0.0)
    exact_epsilon = (lambda d: g.analytic_epsilon(d, 1.0, eta)) if eta > 0 else None
    exact, exact_eps = exact_delta(epsilon), (exact_epsilon(delta_claim) if exact_epsilon else 0.0)
    checks = []
    for direction in directions:
        directed = spec
        if len(directions) > 1:
            suffix = "-forward" if direction == "D||D'" else "-reverse"
            title = spec.title + f", δ_{{{direction.replace('||', '‖')}}}"
            directed = replace(spec, id=spec.id + suffix, title=title)
            if stage is not None:
                directed = replace(directed, delta_of=direction, stage=stage)
        with at_most(profile_draws_bound(config.trials)):  # what the audit planned for this profile
            check = dp_check_with_profile(
                DpClaim(directed, direction, epsilon, delta_claim),
                pair,
                losses,
                Draws(config.trials, config.seed, config.alpha, executor),
                exact_delta=exact_delta,
                exact_epsilon=exact_epsilon,
            )
        check = check.noted(
            f"Exact: the privacy loss is N(η²/2, η²), η = {eta:.4g}; exact δ(ε) = {exact:.4g}, "
            f"exact ε at δ = {exact_eps:.4g}."
        )
        checks.append(check.with_details(eta=eta, exact_delta=exact))
    if len(directions) > 1:  # a DP claim: its worst-case pair's loss is validated against its sampler
        checks.append(loss_consistency_check(losses[0], losses[1], guards=checks[0].spec))
    return checks
