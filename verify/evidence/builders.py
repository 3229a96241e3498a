"""Reusable check constructors: one per kind of evidence, shared by every mechanism's audit.

Each takes the :class:`pdp_audit.verify.core.checks.CheckSpec` its family declared and returns an
:class:`pdp_audit.verify.core.checks.Evidence` whose p-value tests the null hypothesis "the claim holds";
:func:`pdp_audit.verify.core.checks.finalize` turns them into verdicts for the whole run.  The constructors of the
generic checks (tail curve, loss law, attack) supply the claim and formula text a spec leaves empty.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.reports.records import CoverageFigure, Roc, TailCurve, TailCurves
from pdp_audit.verify.core.checks import CheckSpec, Evidence, samples_to_decide
from pdp_audit.verify.estimators import rare
from pdp_audit.verify.estimators.attack import LABEL_CONVENTION, THRESHOLD_ALPHA, AttackResult
from pdp_audit.verify.estimators.coverage import Coverage
from pdp_audit.verify.estimators.stats import clopper_pearson, pvalue_by_inversion
from pdp_audit.verify.estimators.tails import TailEstimate
from pdp_audit.verify.evidence.dp_claim import DpClaim


def _with_defaults(spec: CheckSpec, **text: str) -> CheckSpec:
    """``spec`` with each empty text field among ``text`` set to the given generic text."""
    changes: dict[str, Any] = {name: value for name, value in text.items() if not getattr(spec, name)}
    return replace(spec, **changes)


def _lower_at(tails: TailEstimate, index: int) -> Callable[[float], float]:
    """α ↦ the lower confidence bound at grid point ``index``."""
    return lambda a: tails.lower_bound(index, a)


def _negated_upper_at(tails: TailEstimate, index: int) -> Callable[[float], float]:
    """α ↦ minus the upper confidence bound at grid point ``index`` (a lower bound on −δ)."""
    return lambda a: -tails.upper_bound(index, a)


def _tail_pvalue(tails: TailEstimate, index: int, delta_claim: float) -> float:
    return pvalue_by_inversion(lambda a: tails.lower_bound(index, a), delta_claim)


def tail_claim_check(
    spec: CheckSpec,
    tails: TailEstimate,
    epsilon: float,
    delta_claim: float,
    exact: float | None = None,
) -> Evidence:
    """Claim δ_{P‖Q}(ε) ≤ δ_claim at one ε, from the hockey-stick estimate of
    :mod:`pdp_audit.verify.estimators.tails`."""
    index = int(np.argmin(np.abs(tails.epsilons - epsilon)))
    if not math.isclose(tails.epsilons[index], epsilon, rel_tol=1e-12, abs_tol=1e-12):
        raise ValueError(f"epsilon {epsilon} is not on the tail grid")

    def interval(alpha: float) -> tuple[float, float]:
        return tails.lower_bound(index, alpha), tails.upper_bound(index, alpha)

    def supports(ci, alpha) -> bool:
        return _claim_supported(ci, delta_claim, exact)

    estimate = float(tails.estimate[index])
    return Evidence(
        spec=spec,
        estimate=estimate,
        exact=exact,
        pvalue=_tail_pvalue(tails, index, delta_claim),
        interval=interval,
        supports=supports,
        budget_hint=lambda ci: samples_to_decide(min(tails.n_p, tails.n_q), ci, estimate, delta_claim),
        sampling="plain",
        details={
            "epsilon": float(epsilon),
            "delta_claim": float(delta_claim),
            "count_p": int(tails.count_p[index]),
            "count_q": int(tails.count_q[index]),
            "n_p": tails.n_p,
            "n_q": tails.n_q,
            "estimator": "P_P[L > eps] - e^eps P_Q[L > eps], Clopper-Pearson at 1 - alpha/2 on each term",
        },
    )


def tail_curve_check(
    spec: CheckSpec,
    tails: dict[str, TailEstimate],
    exact: dict[str, np.ndarray],
    epsilon_claim: float,
    delta_claim: float,
) -> Evidence:
    """The Monte Carlo δ̂(ε) curves agree with the exact curves at every grid point, both directions.

    Null hypothesis: the exact curve is the true one.  Each grid point and side is tested by inverting
    its confidence bounds; Bonferroni over the 2·(grid size)·(directions) one-sided tests.
    """
    pvalues = []
    for name, est in tails.items():
        for i, value in enumerate(exact[name]):
            pvalues.append(pvalue_by_inversion(_lower_at(est, i), value))
            pvalues.append(pvalue_by_inversion(_negated_upper_at(est, i), -value))
    pvalue = min(1.0, len(pvalues) * min(pvalues))

    def figure(alpha: float) -> TailCurves:
        curves = {}
        for name, est in tails.items():
            lo, hi = est.interval(alpha)
            curves[name] = TailCurve(estimate=est.estimate, lo=lo, hi=hi, exact=np.asarray(exact[name]))
        first = next(iter(tails.values()))
        return TailCurves(
            epsilons=first.epsilons,
            curves=curves,
            epsilon_claim=epsilon_claim,
            delta_claim=delta_claim,
            level=1 - alpha,
        )

    n = min(min(e.n_p, e.n_q) for e in tails.values())
    return Evidence(
        spec=_with_defaults(
            spec,
            claim="The sampled privacy-loss tails reproduce the exact hockey-stick curve δ(ε) in both directions",
            formula="δ_{P‖Q}(ε) = P_P[L > ε] − e^ε P_Q[L > ε]  vs  exact δ(ε) on the ε grid",
        ),
        estimate=float(min(pvalues)),
        pvalue=pvalue,
        supports=lambda ci, alpha: True,
        make_figure=figure,
        note=f"Estimate = smallest unadjusted p-value over {len(pvalues)} one-sided comparisons ({n:.1e} samples per "
        "world).",
        details={"comparisons": len(pvalues)},
    )


def loss_law_check(spec: CheckSpec, losses: np.ndarray, cdf: Callable, law: str) -> Evidence:
    """Kolmogorov–Smirnov test of the sampled privacy loss against its exact law ``cdf``."""
    from scipy import stats  # here, not at the top: scipy.stats is most of a second of a process's start

    result = stats.kstest(losses, cdf)
    n = losses.size

    def critical(alpha: float) -> float:
        return float(stats.kstwo.isf(alpha, n))

    return Evidence(
        spec=_with_defaults(
            spec,
            claim=f"The sampled privacy loss under D follows its exact law {law}",
            formula="KS statistic sup_x |F̂_n(x) − F(x)|",
        ),
        estimate=float(result.statistic),
        pvalue=float(result.pvalue),
        interval=lambda alpha: (0.0, critical(alpha)),
        supports=lambda ci, alpha: True,
        note=f"Kolmogorov–Smirnov on {n:.1e} samples; the interval's upper end is the critical value at the check's "
        "level.",
        details={"n": int(n), "law": law},
    )


def attack_check(
    spec: CheckSpec,
    attack: AttackResult,
    epsilon_claim: float,
    delta_claim: float,
    exact_epsilon: float | None = None,
    exact_points: Sequence[tuple[float, float, float]] = (),
    scores: tuple[np.ndarray, np.ndarray] | None = None,
) -> Evidence:
    """No test of D vs D' beats the (ε, δ) trade-off: the attack's ε lower bound does not exceed the claim.

    ``exact_points`` are (threshold, exact TPR, exact FPR) of the optimal test where its law is known;
    with ``scores`` (positive, negative), the empirical rates at those exact thresholds must be
    consistent with the exact ones for a pass (a closed form is evidence only with a consistent run).

    ``exact_epsilon`` supports the claim where it is at most ε exactly (no tolerance): *sound for* a proven upper
    bound on the pair's ε(δ) (the Gaussian's, :func:`pdp_audit.mechanisms.gaussian_exact.epsilon_upper`); a
    family's float closed form is taken as exact, sound where its rounding is below its distance to the claim.
    """
    tp, fp = attack.count_tp / attack.n_pos_eval, attack.count_fp / attack.n_neg_eval
    point = max(
        _safe_log((tp - delta_claim) / fp if fp > 0 else math.inf),
        _safe_log((1 - fp - delta_claim) / (1 - tp) if tp < 1 else math.inf),
        0.0,
    )

    def supports(ci, alpha) -> bool:
        if exact_epsilon is None or exact_epsilon > epsilon_claim or scores is None:
            return False
        return _roc_consistent(scores, exact_points, alpha)

    def interval(alpha: float):
        return (attack.epsilon_lower_bound_at(alpha), math.inf)

    def figure(alpha: float) -> Roc:
        roc = attack.roc
        keep = np.unique(np.concatenate([np.searchsorted(roc.fpr, np.geomspace(1e-7, 1, 400)), [roc.fpr.size - 1]]))
        keep = keep[keep < roc.fpr.size]
        return Roc(
            fpr=roc.fpr[keep],
            tpr=roc.tpr[keep],
            epsilon_claim=epsilon_claim,
            delta_claim=delta_claim,
            epsilon_lower_bound=attack.epsilon_lower_bound_at(alpha),
            exact_points=tuple(exact_points),
            level=1 - alpha,
        )

    return Evidence(
        spec=_with_defaults(
            spec,
            title="Likelihood-ratio membership attack",
            claim=f"No test of D vs D' has (FPR, TPR) outside the ({epsilon_claim:g}, {delta_claim:g})-DP region",
            formula="ε ≥ max(log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR)))",
        ),
        estimate=float(point),
        exact=exact_epsilon,
        pvalue=pvalue_by_inversion(attack.epsilon_lower_bound_at, epsilon_claim),
        interval=interval,
        supports=supports,
        budget_hint=lambda ci: (
            "No violation found; without a closed form for the optimal trade-off an attack "
            "can only refute a claim, never prove it."
        ),
        make_figure=figure,
        note=(
            f"Labels: {LABEL_CONVENTION}. ε bounded on all samples by a joint test of both rates: ramps over "
            f"{attack.bound.ranks.size} ranks of the pooled scores fixed in advance (Poissonised sizes, exact tails, "
            "union bound over both directions); the threshold shown, and the point estimate at it, are those of the "
            f"best ramp at level 1 − {THRESHOLD_ALPHA:g} whatever the run's α. "
            f"TPR@FPR=1e-3: {attack.tpr_at_1e3:.4f}; TPR@FPR=1e-2: {attack.tpr_at_1e2:.4f}; best balanced accuracy "
            f"{attack.balanced_accuracy:.4f}."
        ),
        details={
            "threshold": attack.threshold,
            "count_tp": attack.count_tp,
            "count_fp": attack.count_fp,
            "n_pos_eval": attack.n_pos_eval,
            "n_neg_eval": attack.n_neg_eval,
            "tpr_at_fpr_1e-3": attack.tpr_at_1e3,
            "tpr_at_fpr_1e-2": attack.tpr_at_1e2,
            "best_balanced_accuracy": attack.balanced_accuracy,
            "labels": LABEL_CONVENTION,
        },
    )


def _safe_log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _roc_consistent(scores: tuple[np.ndarray, np.ndarray], exact_points, alpha: float) -> bool:
    """Empirical TPR and FPR at each exact threshold inside their Clopper–Pearson intervals (Bonferroni)."""
    pos, neg = scores
    a = alpha / max(1, 2 * len(exact_points))
    for threshold, tpr, fpr in exact_points:
        for sample, rate in ((pos, tpr), (neg, fpr)):
            lo, hi = clopper_pearson(int(np.sum(sample >= threshold)), sample.size, a)
            if not lo <= rate <= hi:
                return False
    return True


def coverage_check(spec: CheckSpec, coverage: Coverage, exact_failure: float | None = None) -> Evidence:
    """A high-probability bound fails with probability at most ρ (exact binomial test)."""
    rho = coverage.rho

    def interval(alpha: float) -> tuple[float, float]:
        return coverage.failure_interval(alpha)

    def supports(ci, alpha) -> bool:
        return ci[1] <= rho

    def figure(alpha: float) -> CoverageFigure:
        lo, hi = coverage.failure_interval(alpha)
        return CoverageFigure(
            failure_rate=coverage.failure_rate,
            lo=lo,
            hi=hi,
            rho=rho,
            exact=exact_failure,
            trials=coverage.trials,
            level=1 - alpha,
        )

    return Evidence(
        spec=spec,
        estimate=coverage.failure_rate,
        exact=exact_failure,
        pvalue=coverage.pvalue,
        interval=interval,
        supports=supports,
        budget_hint=lambda ci: samples_to_decide(coverage.trials, ci, coverage.failure_rate, rho),
        make_figure=figure,
        note=f"Estimate = observed failure rate ({coverage.failures} of {coverage.trials:.1e}); the claim is failure "
        f"rate ≤ ρ = {rho:g}.",
        details={"failures": coverage.failures, "trials": coverage.trials, "rho": rho},
    )


def exact_check(spec: CheckSpec, holds: bool, estimate: float, note: str, **details) -> Evidence:
    """A deterministic identity or inequality checked to floating-point tolerance (no p-value)."""
    return Evidence(
        spec=spec, estimate=float(estimate), verdict="pass" if holds else "fail", note=note, details=details
    )


# --------------------------------------------------------------------------------------------
# Rare-event tails: claims on δ below what plain sampling can resolve
# --------------------------------------------------------------------------------------------
RARE_EVENT_MIN_EXPECTED = 30.0


def plain_sampling_resolves(delta_claim: float, trials: int, min_expected: float = RARE_EVENT_MIN_EXPECTED) -> bool:
    """Whether n = ``trials`` plain draws per world can resolve δ_claim: δ_claim · n ≥ 30 expected exceedances.

    Below that a Clopper–Pearson interval on P[L > ε] is wider than the claim itself, so plain
    sampling can refute a gross violation but never confirm the claim or see a subtle violation.
    """
    return delta_claim * trials >= min_expected


def _claim_supported(ci: tuple[float, float], delta_claim: float, exact: float | None) -> bool:
    """Pass evidence for δ ≤ δ_claim: the interval lies below the claim, or a closed form satisfies the
    claim and lies inside the interval (the rule of :func:`tail_claim_check`).  The closed form satisfies the claim
    where it is at most δ_claim exactly, no tolerance: *sound for* ``exact`` a proven upper bound on the pair's δ(ε)
    (the Gaussian's, :func:`pdp_audit.mechanisms.gaussian_exact.delta_upper`) or its exact value; a family's float
    closed form is taken as exact, sound where its rounding is below its distance to the claim."""
    if ci[1] <= delta_claim:
        return True
    return exact is not None and exact <= delta_claim and ci[0] <= exact <= ci[1]


def rare_tail_claim_check(
    spec: CheckSpec,
    tail: rare.RareTail,
    delta_claim: float,
    exact: float | None = None,
) -> Evidence:
    """Claim δ_{P‖Q}(ε) ≤ δ_claim from an importance-sampled tail (:mod:`pdp_audit.verify.estimators.rare`).

    The interval is the empirical Bernstein interval of the bounded importance-sampling integrand
    δ = E_μ[r(w)(1 − e^{ε−ℓ})₊] (Maurer & Pontil 2009, Thm 4); the p-value of "the claim holds" inverts
    its one-sided lower bounds, which are valid for every mechanism.  The upper end is +inf unless the
    weights are certified bounded (ℓ affine in the noise), so an uncertified tail can refute a claim
    but confirm it only through a consistent closed form.
    """

    def interval(alpha: float) -> tuple[float, float]:
        return tail.interval(alpha)

    return Evidence(
        spec=spec,
        estimate=tail.estimate,
        exact=exact,
        pvalue=pvalue_by_inversion(tail.lower_bound, delta_claim),
        interval=interval,
        supports=lambda ci, alpha: ci is not None and _claim_supported(ci, delta_claim, exact),
        budget_hint=lambda ci: samples_to_decide(tail.n, ci, tail.estimate, delta_claim),
        sampling="importance",
        note=(
            f"Importance sampling at the dominating point (‖μ‖ = {tail.point.distance:.4g}) with exact "
            "likelihood-ratio "
            f"weights, {tail.n:.1e} draws; empirical Bernstein interval on the bounded integrand"
            + (
                "."
                if tail.certified
                else f"; the loss is not affine in the noise, so only the lower bound is certified ({tail.escapes} "
                "draws escaped the half-space)."
            )
        ),
        details={
            "epsilon": tail.epsilon,
            "delta_claim": float(delta_claim),
            "direction": tail.direction,
            "n": tail.n,
            "shift_norm": tail.point.distance,
            "log_weight_bound": tail.point.log_weight_bound,
            "affine_loss": tail.point.affine,
            "certified_upper_bound": tail.certified,
            "escapes": tail.escapes,
            "tail_p": tail.tail_p.estimate,
            "tail_q": tail.tail_q.estimate,
            "estimator": "delta = E_mu[r(w) (1 - exp(eps - L))_+], r = exp(-mu'w + |mu|^2/2); empirical Bernstein "
            "(Maurer & Pontil 2009)",
        },
    )


def dp_claim_check(
    claim: DpClaim,
    plain: TailEstimate | Callable[[], TailEstimate],
    pair,
    trials: int,
    seed: int,
    exact: float | None = None,
    executor=None,
) -> Evidence:
    """δ_{P‖Q}(ε) ≤ δ_claim (``claim``), from plain tails where they resolve δ_claim, else from importance sampling.

    Plain sampling (:func:`tail_claim_check` on ``plain``, a tail estimate or a function computing it
    only when needed) is used when δ_claim · trials ≥ 30 or the pair has no Gaussian noise-level view;
    otherwise :func:`pdp_audit.verify.estimators.rare.rare_tail` draws ``trials`` shifted samples (stream ``rare/<id>``)
    and :func:`rare_tail_claim_check` decides.
    """
    spec, direction, epsilon, delta_claim = claim.spec, claim.direction, claim.epsilon, claim.delta
    if plain_sampling_resolves(delta_claim, trials) or not rare.rare_capable(pair):
        tails = plain() if callable(plain) else plain
        return tail_claim_check(spec, tails, epsilon, delta_claim, exact)
    tail = rare.try_rare_tail(pair, epsilon, direction, trials, seed, stream=f"rare/{spec.id}", executor=executor)
    if tail is None:  # the loss is flat in the noise (e.g. at a δ of 1e-200): no shift to sample with
        tails = plain() if callable(plain) else plain
        return tail_claim_check(spec, tails, epsilon, delta_claim, exact).noted(no_shift_note(trials))
    return rare_tail_claim_check(spec, tail, delta_claim, exact)


def no_shift_note(trials: int) -> str:
    """Why plain tails decided a claim that importance sampling was to decide: the loss gave it no shift."""
    return (
        f"Importance sampling had no shift to use (the privacy loss is flat in the noise): the tails are "
        f"{trials:,} plain samples per world, which resolve δ only down to about {30 / trials:.1g}."
    )
