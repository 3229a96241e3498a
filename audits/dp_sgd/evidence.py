"""The audit of DP-SGD: the evidence for every check of :mod:`pdp_audit.audits.dp_sgd.checks`.

A DP-SGD run with noise multiplier σ, Poisson sample rate q and T steps is, for one individual, the T-fold
composition of the per-step dominating pair (:mod:`pdp_audit.mechanisms.subsampled_gaussian`): its privacy loss is
the sum of T i.i.d. per-step losses.  Each direction's claim δ_T(ε) ≤ δ is decided from ``trials`` exact samples
of that sum, drawn under the exponentially tilted step law that minimises the Rényi bound B(θ) and reweighted
exactly (:mod:`pdp_audit.verify.estimators.composition`): the empirical Bernstein interval is certified on both
sides, whatever the loss's shape, so the verdict rests on sampling alone.  Beside it, the FFT composition of the
per-step privacy-loss distribution brackets the exact δ_T(ε) and ε_T(δ) (:mod:`pdp_audit.mechanisms.pld_composition`):
the curve on each check's figure and the ``exact-reference`` finding.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, replace
from functools import partial

import numpy as np

from pdp_audit.audits.dp_sgd.checks import CHECKS
from pdp_audit.audits.dp_sgd.config import REFERENCE_ERROR, DpSgdAuditConfig
from pdp_audit.mechanisms import accountants
from pdp_audit.mechanisms import pld_composition as pld
from pdp_audit.mechanisms import subsampled_gaussian as sg
from pdp_audit.reports.records import Line, Lines, Run
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize, make_run, samples_to_decide
from pdp_audit.verify.estimators.composition import ComposedTail, composed_tail
from pdp_audit.verify.estimators.progress import planned, with_progress
from pdp_audit.verify.evidence import builders

#: The two sides of each relation, in words.
SIDES = {
    "add-remove": {"D||D'": "the individual's record removed", "D'||D": "the individual's record added"},
    "replace-one": {"D||D'": "a record replaced, one side", "D'||D": "a record replaced, the other side"},
}
#: Points of the figure's exact curve.
FIGURE_POINTS = 41


def _spec(check_id: str, **values) -> CheckSpec:
    return CHECKS[check_id].fill(**values)


@dataclass(frozen=True)
class Reference:
    """Certified bounds on both directions' composed profiles (:class:`pdp_audit.mechanisms.pld_composition.
    ComposedProfile`), by direction."""

    profiles: dict[str, pld.ComposedProfile]

    def delta_bounds(self, direction: str, epsilon: float) -> tuple[float, float]:
        return self.profiles[direction].delta_bounds(epsilon)

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """Bounds on the pair's exact ε at δ: the larger of the two directions' ε."""
        brackets = [profile.epsilon_bounds(delta) for profile in self.profiles.values()]
        return max(low for low, _ in brackets), max(high for _, high in brackets)


def reference(pair: sg.SubsampledGaussian, steps: int, epsilon: float) -> Reference:
    """Both directions' composed profiles, at Hoeffding shift t = 2e-3·max(1, ε)."""
    error = REFERENCE_ERROR * max(1.0, epsilon)
    profiles = {}
    for direction in sg.DIRECTIONS:
        law = sg.StepLossLaw(pair, direction)
        profiles[direction] = pld.composed_profile(pld.LossLaw(law.cdf, law.support), steps, error)
    return Reference(profiles)


def run_dp_sgd_audit(config: DpSgdAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Every check of the DP-SGD audit, decided together at family-wise error ``config.alpha``."""
    pair = sg.SubsampledGaussian(config.noise_multiplier, config.sample_rate, config.neighbours)
    source = "--claim-epsilon"
    if config.accountant is not None:  # the claim is the library's ε: decided like any claimed ε
        epsilon = accountants.accountant_epsilon(
            config.accountant, pair.sigma, pair.q, config.steps, config.delta, config.neighbours
        )
        source = f"accountant {config.accountant} (ε = {epsilon:.6g})"
        config = replace(config, epsilon=epsilon, accountant=None)
    ref = reference(pair, config.steps, config.epsilon)
    checks = finalize(dp_sgd_evidence(config, pair, ref, executor, progress), config.alpha)
    low, high = ref.epsilon_bounds(config.delta)
    parameters = {
        **asdict(config),
        "clip_norm": "C (every quantity is in units of C)",
        "dominating_pair": _pair_text(pair),
        # the cover's scope line: this pair dominates every two neighbouring datasets (not a searched worst case)
        "worst_case_target": f"the dominating pair of one step of clipped, Poisson-subsampled Gaussian noise for "
        f"{config.neighbours} neighbours, composed over T = {config.steps} steps (Zhu, Dong & Wang 2022): "
        f"{_pair_text(pair)}",
        "exact_epsilon_low": low,
        "exact_epsilon_high": high,
        "claim_source": source,
    }
    return make_run("dp-sgd", checks, config.alpha, parameters, config.seed)


def _pair_text(pair: sg.SubsampledGaussian) -> str:
    if pair.replace:
        return (
            f"(1 − q)N(0, σ²) + qN(1, σ²) vs (1 − q)N(0, σ²) + qN(−1, σ²) per step, σ = {pair.sigma:g}, q = {pair.q:g}"
        )
    return f"(1 − q)N(0, σ²) + qN(1, σ²) vs N(0, σ²) per step, σ = {pair.sigma:g}, q = {pair.q:g}"


def dp_sgd_evidence(
    config: DpSgdAuditConfig,
    pair: sg.SubsampledGaussian,
    ref: Reference,
    executor: Executor | None = None,
    progress: bool = False,
) -> list[Evidence]:
    """The evidence of every check, not yet decided.  Where a whole audit's progress bar is shown, it is told first
    what the checks draw: ``trials`` composed losses per direction (the exact reference is computed before)."""
    planned(2 * config.trials)
    sides = SIDES[config.neighbours]
    words = dict(
        sigma=config.noise_multiplier,
        q=config.sample_rate,
        steps=config.steps,
        neighbours=config.neighbours,
        eps=config.epsilon,
        delta=config.delta,
        forward=sides["D||D'"],
        reverse=sides["D'||D"],
    )
    evidence = []
    for check_id, direction in (("dp-forward", "D||D'"), ("dp-reverse", "D'||D")):
        tail = composed_tail(
            partial(pair.step, direction),
            config.steps,
            config.epsilon,
            (config.trials, config.seed, f"dp-sgd/{direction}"),
            integer=direction == "D||D'" or pair.replace,
            executor=executor,
            progress=progress,
        )
        evidence.append(_dp_check(_spec(check_id, **words), tail, config, ref))
    evidence.append(_reference_check(config, ref, words))
    return evidence


def _dp_check(spec: CheckSpec, tail: ComposedTail, config: DpSgdAuditConfig, ref: Reference) -> Evidence:
    """δ_T(ε) ≤ δ from the tilted samples: pass when the certified interval lies below δ, fail when its lower
    bound is above δ (the p-value inverts the one-sided lower bounds)."""
    delta = config.delta
    exact_low, exact_high = ref.delta_bounds(tail.direction.split("/")[-1], config.epsilon)
    return Evidence(
        spec=spec,
        estimate=tail.estimate,
        pvalue=tail.pvalue(delta),
        interval=tail.interval,
        supports=lambda ci, alpha: ci is not None and ci[1] <= delta,
        budget_hint=lambda ci: samples_to_decide(tail.n, ci, tail.estimate, delta),
        make_figure=_profile_figure(tail, config, ref),
        sampling="importance",
        note=(
            f"Exact samples of the {config.steps}-step privacy loss under the exponentially tilted step law "
            f"(θ = {tail.theta:.4g}, the tilt minimising the Rényi bound B = {math.exp(tail.log_scale):.3g}), "
            f"{tail.n:,} samples, exact likelihood-ratio weights; every summand is bounded by B, so the empirical "
            f"Bernstein interval is certified on both sides. The FFT reference puts δ(ε) in "
            f"[{exact_low:.4g}, {exact_high:.4g}]."
        ),
        details={
            "epsilon": tail.epsilon,
            "delta_claim": float(delta),
            "direction": tail.direction.split("/")[-1],
            "n": tail.n,
            "steps": tail.steps,
            "tilt": tail.theta,
            "log_bound": tail.log_scale,
            "tilted_mean_loss": tail.losses_mean,
            "mean_of_bounded_summand": tail.delta.mean,
            "reference_delta_low": exact_low,
            "reference_delta_high": exact_high,
            "estimator": "delta = B E_g[exp(-theta (L - eps)) (1 - exp(eps - L))_+ / kappa], L a sum of T tilted "
            "steps; empirical Bernstein (Maurer & Pontil 2009)",
        },
    )


def figure_top(claim: float, bracket: tuple[float, float]) -> float:
    """The right end of a figure's ε axis: 1.5 × the largest finite of the claimed ε and the exact ε's bracket.  The
    bracket's upper end is +∞ where the grid cannot show any ε holds δ (a δ below its round-off:
    :meth:`pdp_audit.mechanisms.pld_composition.ComposedProfile.epsilon_bounds`); an axis to it would be NaN points."""
    return 1.5 * max(e for e in (claim, *bracket) if math.isfinite(e))


def _profile_figure(tail: ComposedTail, config: DpSgdAuditConfig, ref: Reference):
    """δ(ε) of the check's direction on a log axis: the FFT reference's two bounds, the importance-sampled estimate
    at the claimed ε with its certified interval, and the claim."""
    direction = tail.direction.split("/")[-1]
    lowest = config.delta * 1e-4
    curve: list = []  # (grid, bounds), computed when the figure is first drawn: a run without a PDF draws none

    def exact_curve():
        if not curve:
            grid = np.linspace(
                0.0, figure_top(config.epsilon, ref.profiles[direction].epsilon_bounds(config.delta)), FIGURE_POINTS
            )
            points = with_progress(grid, len(grid), f"dp-sgd, exact δ(ε) of {direction}", "point")
            curve.append((grid, np.array([ref.delta_bounds(direction, float(e)) for e in points])))
        return curve[0]

    def shown(values) -> list:
        v = np.asarray(values, float)
        return np.where(v >= lowest, np.minimum(v, 1.0), np.nan).tolist()

    def figure(alpha: float) -> Lines:
        grid, bounds = exact_curve()
        lo, hi = tail.interval(alpha)
        series = [
            Line(label="exact δ(ε), FFT reference (upper bound)", x=grid.tolist(), y=shown(bounds[:, 1]), marker=""),
            Line(
                label="exact δ(ε), FFT reference (lower bound)",
                x=grid.tolist(),
                y=shown(bounds[:, 0]),
                marker="",
                style="--",
            ),
            Line(
                label=f"importance-sampled δ̂(ε), {tail.n:,} samples, certified interval",
                x=[tail.epsilon],
                y=shown([tail.estimate]),
                lo=shown([max(lo, lowest)]),
                hi=shown([max(hi, lowest)]),
                marker="s",
                style="none",
            ),
            Line(
                label=f"claim (ε, δ) = ({config.epsilon:g}, {config.delta:g})",
                x=[config.epsilon],
                y=[config.delta],
                marker="*",
                style="none",
            ),
        ]
        arrow = direction.replace("||", "‖")
        return Lines(series=series, xlabel="ε", ylabel=f"δ(ε), {arrow}, {config.steps} steps", logy=True)

    return figure


def _reference_check(config: DpSgdAuditConfig, ref: Reference, words: dict) -> Evidence:
    """The finding: the exact ε at δ bracketed by the FFT composition, and whether the claimed ε is at least it."""
    low, high = ref.epsilon_bounds(config.delta)
    shift = REFERENCE_ERROR * max(1.0, config.epsilon)
    spec = _spec("exact-reference", eps_low=low, eps_high=high, shift=shift, **words)
    worst = max(ref.delta_bounds(d, config.epsilon)[1] for d in sg.DIRECTIONS)
    holds = worst <= config.delta
    note = (
        f"At the claimed ε = {config.epsilon:g} the larger direction's δ(ε) is at most {worst:.4g}. "
        f"Exact ε at δ = {config.delta:g}: between {low:.5g} and {high:.5g}."
    )
    if not holds and config.epsilon >= low:
        note += (
            " The claim lies inside the reference's bracket: its grid cannot confirm it (the sampled checks decide)."
        )
    return builders.exact_check(spec, holds, high, note, epsilon_low=low, epsilon_high=high, delta_at_claim=worst)
