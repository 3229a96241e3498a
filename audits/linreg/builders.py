"""Evidence constructors of the linear-regression audits, built on :mod:`pdp_audit.verify.evidence.builders`.

Each takes the declared :class:`~pdp_audit.verify.core.checks.CheckSpec` of its check
(:mod:`pdp_audit.audits.linreg.checks`, already filled with the run's parameters) and returns
:class:`~pdp_audit.verify.core.checks.Evidence`:

* :func:`dp_claim_checks` — ``dp-forward``, ``dp-reverse``, ``lr-attack`` and ``loss-consistency`` for one
  pair (:mod:`pdp_audit.verify.evidence.dp_checks`), with rare-event importance sampling where plain sampling
  cannot resolve δ (:func:`pdp_audit.verify.evidence.privacy_profile.dp_check_with_profile`, through the noise-level
  views of :mod:`pdp_audit.audits.linreg.views`), with the exact δ of each direction and the exact optimal ROC where
  known.
* :func:`every_target_check` — a printed pDP bound ε(z) claimed "for every target z": the exact δ at
  ε(z) is computed at every target (data points and off-dataset targets, possibly in several
  settings); the target with the largest exact δ is then audited by sampling at the run's budget, so
  that a fail verdict always rests on Monte Carlo evidence at the run's significance.
* :func:`mean_claim_check` — a printed expectation ("E X = value") against a Monte Carlo mean with a
  CLT interval; a pass needs a derived exact value equal to the printed one inside the interval.
* :func:`gaussian_release_check` — one Gaussian release (sensitivity over noise s) at its assigned
  budget (ε_k, δ_k), audited through importance sampling of the whitened Gaussian mechanism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np
from scipy import stats

from pdp_audit.audits.linreg.checks import DP_FORWARD, DP_REVERSE, LR_ATTACK
from pdp_audit.audits.linreg.views import view_of
from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms.gaussian import GaussianPair, whitened_epsilon
from pdp_audit.reports.records import Histograms, Marker, Series, TailCurve, TailCurves
from pdp_audit.verify.core.checks import CheckSpec, Evidence, samples_to_decide
from pdp_audit.verify.estimators import rare
from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.stats import pvalue_by_inversion
from pdp_audit.verify.estimators.tails import both_directions
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_validation import loss_consistency_check
from pdp_audit.verify.evidence.privacy_profile import ProfilePlan, dp_check_with_profile
from pdp_audit.verify.evidence.profile_figures import tail_curves_figure

DIRECTIONS = ("D||D'", "D'||D")


def _plain_tail(pair, claim: DpClaim, draws: Draws, stream: str):
    loss_d = sample_privacy_loss(pair, "D", draws.trials, draws.seed, stream, draws.executor)
    loss_dp = sample_privacy_loss(pair, "D'", draws.trials, draws.seed, stream, draws.executor)
    return both_directions(loss_d, loss_dp, np.array([claim.epsilon]), draws.alpha)[claim.direction]


def tail_check(claim: DpClaim, pair, draws: Draws, exact: float | None) -> Evidence:
    """``claim`` (δ_direction(ε) ≤ δ) for ``pair``: plain tails where they resolve δ, importance sampling otherwise
    (the plain draws, stream ``<id>/plain``, are taken only where they decide)."""

    def plain():
        return _plain_tail(pair, claim, draws, f"{claim.spec.id}/plain")

    check = builders.dp_claim_check(
        replace(claim, epsilon=float(claim.epsilon)),
        plain,
        view_of(pair),
        draws.trials,
        draws.seed,
        exact=exact,
        executor=draws.executor,
    )
    return check.with_details(sampling=check.sampling)


def tail_check_draws(trials: int) -> int:
    """At most the draws of :func:`tail_check` (the whole audit's progress bar): ``trials`` per world of plain tails,
    or ``trials`` importance-sampled (a loss without a dominating point says so before it draws)."""
    return 2 * int(trials)


def dp_claim_draws(trials: int) -> int:
    """At most the draws of :func:`dp_claim_checks`: ``trials`` per world, and each direction's importance-sampled
    tail at the claimed ε (``trials``) where plain sampling cannot resolve δ (the linear-regression profiles draw no
    importance-sampled figure points)."""
    return 4 * int(trials)


def profile_grid(epsilon: float) -> np.ndarray:
    """The ε grid of the privacy-profile figures: 0, ε/4, …, 2ε (the claimed ε is its fifth point)."""
    return np.linspace(0.0, 2.0 * float(epsilon), 9)


PROFILE_CLAIM_INDEX = 4


def _panel_name(direction: str, how: str) -> str:
    return f"{direction.replace('||', '‖')}, {how}"


def profile_figure(
    grid: np.ndarray,
    panels: Callable[[float], dict[str, TailCurve]],
    epsilon: float,
    delta: float,
) -> Callable[[float], TailCurves]:
    """A ``make_figure`` of :class:`~pdp_audit.verify.core.checks.Evidence`: the panels δ(ε) at the check's level
    against the
    claim."""

    def figure(alpha: float) -> TailCurves:
        return TailCurves(
            epsilons=grid, curves=panels(alpha), level=1 - alpha, epsilon_claim=float(epsilon), delta_claim=float(delta)
        )

    return figure


@dataclass(frozen=True)
class PairClaim:
    """The (``epsilon``, ``delta``)-DP claim audited at one neighbouring pair, made for the mechanism titled ``name`` by
    ``source`` (what the declared DP checks are filled with)."""

    epsilon: float
    delta: float
    name: str
    source: str


@dataclass(frozen=True)
class KnownAtPair:
    """What is known in closed form at one neighbouring pair (None: unknown): ``deltas``, the exact δ_{D‖D'} and
    δ_{D'‖D} at the claimed ε; ``attack``, the exact ε at δ and the (threshold, TPR, FPR) points of the optimal test;
    ``curve``, the exact δ(ε) on the profile grid, shape (grid, 2) in the same order."""

    deltas: tuple[float, float] | None = None
    attack: tuple[float, list] | None = None
    curve: np.ndarray | None = None


def dp_claim_checks(
    pair,
    claim: PairClaim,
    draws: Draws,
    known: KnownAtPair = KnownAtPair(),
    progress: bool = False,
    note: str = "",
) -> list[Evidence]:
    """``dp-forward``, ``dp-reverse`` and ``lr-attack`` of one neighbouring pair (module notes).

    Each DP check carries the privacy profile of the pair (:func:`profile_grid`): the plain Monte Carlo δ̂(ε)
    of both worlds' samples with its Clopper–Pearson band, the importance-sampled estimate at the claimed ε
    where it decided the check, and ``known.curve`` where known.
    """
    epsilon, delta, alpha = claim.epsilon, claim.delta, draws.alpha
    loss_d = sample_privacy_loss(pair, "D", draws.trials, draws.seed, "dp-pair", draws.executor, progress)
    loss_dp = sample_privacy_loss(pair, "D'", draws.trials, draws.seed, "dp-pair", draws.executor, progress)
    grid = profile_grid(epsilon)
    view = view_of(pair)
    checks = []
    for i, (direction, spec) in enumerate(zip(DIRECTIONS, (DP_FORWARD, DP_REVERSE))):
        plan = ProfilePlan(
            grid,
            curve=None if known.curve is None else np.asarray(known.curve)[:, i],
            exact=None if known.deltas is None else float(known.deltas[i]),
        )
        filled = spec.fill(name=claim.name, epsilon=epsilon, delta=delta, source=claim.source)
        check, profile = dp_check_with_profile(
            DpClaim(filled, direction, epsilon, delta), view, (loss_d, loss_dp), draws, plan
        )
        figure = tail_curves_figure(profile, "plain Monte Carlo", "importance sampling at the claimed ε")
        checks.append(replace(check, make_figure=figure).noted(note, before=True))
    exact_eps, points = known.attack if known.attack is not None else (None, [])
    attack = builders.attack_check(
        LR_ATTACK.fill(source=claim.source),
        likelihood_ratio_attack(loss_d, loss_dp, delta, alpha),
        epsilon,
        delta,
        exact_epsilon=exact_eps,
        exact_points=points,
        scores=(loss_d, loss_dp) if points else None,
    )
    return checks + [attack, loss_consistency_check(loss_d, loss_dp, guards=checks[0].spec)]


def gaussian_attack_exact(s: float, delta: float) -> tuple[float, list]:
    """Exact ε at δ and optimal-test ROC points of a Gaussian mechanism with whitened sensitivity ``s``
    (L ~ N(s²/2, s²) under D, N(−s²/2, s²) under D')."""
    points = []
    for fpr in (1e-3, 1e-2, 1e-1, 0.5):
        t = -(s**2) / 2 + s * stats.norm.isf(fpr)
        points.append((float(t), float(stats.norm.sf((t - s**2 / 2) / s)), fpr))
    return float(whitened_epsilon(delta, s)[0]), points


def roc_points(
    tail_d: Callable[[float], float], tail_dp: Callable[[float], float], fprs=(1e-3, 1e-2, 1e-1, 0.5)
) -> list:
    """(threshold, TPR, FPR) of the optimal test from exact tail functions P_D[L ≥ t], P_D'[L ≥ t] (bisection)."""
    points = []
    for fpr in fprs:
        lo, hi = -1.0, 1.0
        while tail_dp(lo) < fpr:
            lo *= 2
        while tail_dp(hi) > fpr:
            hi *= 2
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if tail_dp(mid) > fpr else (lo, mid)
        points.append((float(hi), float(tail_d(hi)), float(tail_dp(hi))))
    return points


@dataclass
class Setting:
    """One parameter setting of a printed per-target claim: printed ε and exact (δ_{D‖D'}, δ_{D'‖D}) per target."""

    name: str
    labels: list[str]
    epsilons: np.ndarray
    exact: np.ndarray  # (k, 2)
    make_pair: Callable[[int], object]  # target index -> pair
    extra: dict = field(default_factory=dict)


def every_target_check(spec: CheckSpec, settings: Sequence[Setting], delta: float, draws: Draws) -> Evidence:
    """The printed pDP bound at every target of every setting; the worst target audited by sampling."""
    rows = []
    for s_idx, setting in enumerate(settings):
        worst = np.max(setting.exact, axis=1)
        for k in range(len(setting.labels)):
            rows.append((s_idx, k, float(worst[k]), float(setting.epsilons[k])))
    worst_delta = np.array([r[2] for r in rows])
    violating = worst_delta > delta
    pick = int(np.argmax(worst_delta))
    s_idx, k, _, eps = rows[pick]
    setting = settings[s_idx]
    direction_index = int(np.argmax(setting.exact[k]))
    direction = DIRECTIONS[direction_index]
    exact = float(setting.exact[k, direction_index])
    pair = setting.make_pair(k)
    check = tail_check(DpClaim(spec, direction, eps, delta), pair, draws, exact)
    per_setting = []
    for setting in settings:
        w = np.max(setting.exact, axis=1)
        per_setting.append(
            f"{setting.name}: {int(np.sum(w > delta))} of {len(w)} targets "
            f"(largest exact δ/δ = {np.max(w) / delta:.3g})"
        )
    check = replace(
        check,
        note=f"Exact δ at the printed ε exceeds δ = {delta:g} at {int(violating.sum())} of {len(rows)} targets — "
        + "; ".join(per_setting)
        + f". Audited by sampling at the target with the largest exact δ: "
        f"{settings[s_idx].labels[k]} ({settings[s_idx].name}; printed ε = {eps:.4g}, "
        f"exact δ_{{{direction.replace('||', '‖')}}} = {exact:.3g}). " + check.note,
    )
    series = []
    for st in settings:
        w = np.max(st.exact, axis=1)
        ratio = np.log10(np.maximum(w, delta * 1e-12) / delta)
        series.append(
            Series(label=f"{st.name}: {int(np.sum(ratio > 0))} of {len(w)} targets above the claim", values=ratio)
        )
    low = float(np.floor(min(float(np.min(s_.values)) for s_ in series)))
    figure = Histograms(
        series=series,
        bins=48,
        xmin=min(low, -1.0),
        markers=[Marker("the claim: exact δ = δ", 0.0)],
        xlabel="log10(exact δ at the printed ε / δ)   (floored at −12)",
        ylabel="number of targets",
    )
    return replace(check, figure=figure).with_details(
        **{
            "targets": len(rows),
            "violations": int(violating.sum()),
            "max_exact_over_delta": float(np.max(worst_delta) / delta),
            "audited_target": settings[s_idx].labels[k],
            "audited_setting": settings[s_idx].name,
            "direction": direction,
            "settings": [
                {
                    "name": st.name,
                    "targets": len(st.labels),
                    **st.extra,
                    "violations": int(np.sum(np.max(st.exact, axis=1) > delta)),
                    "max_exact_over_delta": float(np.max(st.exact) / delta),
                    "median_printed_epsilon": float(np.median(st.epsilons)),
                }
                for st in settings
            ],
        }
    )


def mean_claim_check(
    spec: CheckSpec,
    values: np.ndarray,
    claimed: float,
    exact: float | None,
    note: str = "",
) -> Evidence:
    """ "E X = claimed" from iid draws of X (CLT interval; p-value of the two-sided z-test).

    Pass needs the derived ``exact`` to equal the printed value (relative 1e-9) and lie in the interval:
    agreement of the data with an equality is never proof on its own.
    """
    values = np.asarray(values, float)
    n = values.size
    mean, se = float(values.mean()), float(values.std(ddof=1) / math.sqrt(n))

    def interval(alpha: float) -> tuple[float, float]:
        z = float(stats.norm.isf(alpha / 2))
        return float(mean - z * se), float(mean + z * se)

    def supports(ci, alpha) -> bool:
        equal = exact is not None and math.isclose(exact, claimed, rel_tol=1e-9, abs_tol=1e-12)
        return equal and ci[0] <= claimed <= ci[1]

    pvalue = (
        float(max(2 * stats.norm.sf(abs(mean - claimed) / se), 1e-300))
        if se > 0
        else (1.0 if mean == claimed else 1e-300)
    )
    return Evidence(
        spec=spec,
        estimate=mean,
        exact=exact,
        pvalue=pvalue,
        interval=interval,
        supports=supports,
        budget_hint=lambda ci: samples_to_decide(n, ci, mean, claimed),
        note=(
            f"Monte Carlo mean of {n:.1e} draws with a CLT interval; printed value {claimed:.6g}"
            + ("" if exact is None else f", derived exact value {exact:.6g}")
            + ". "
            + note
        ).strip(),
        details={"draws": n, "printed": claimed, "exact": exact, "standard_error": se},
    )


def gaussian_release_check(
    spec: CheckSpec, s: float, epsilon: float, delta: float, draws: Draws, note: str = ""
) -> Evidence:
    """One Gaussian release with whitened sensitivity ``s`` at its budget (ε_k, δ_k) (both directions are equal).

    Exact: δ(ε_k) = Φ(s/2 − ε_k/s) − e^{ε_k} Φ(−s/2 − ε_k/s) (Balle & Wang 2018, Thm 8); declared as
    :data:`pdp_audit.audits.linreg.checks.STAGE_BUDGET`.
    """
    pair = GaussianPair(np.zeros(1), np.array([float(s)]), 1.0)
    exact = gaussian_exact.delta_bounds(float(s), epsilon)[1]  # a proven upper bound (s taken as exact)
    check = tail_check(DpClaim(spec, "D||D'", epsilon, delta), pair, draws, exact)
    return check.noted(note, before=True).with_details(
        whitened_sensitivity=float(s), epsilon_k=float(epsilon), delta_k=float(delta), exact_over_delta_k=exact / delta
    )


def bounded_mean_check(
    spec: CheckSpec,
    terms: np.ndarray | rare.BoundedMean,
    delta: float,
    note: str = "",
    **details,
) -> Evidence:
    """δ ≤ δ_claim from iid [0, 1]-valued summands whose mean is δ (empirical Bernstein interval, Maurer &
    Pontil 2009 — valid at every sample size; used for the conditional estimator of AdaOPS).  ``terms`` are
    the summands or their :class:`pdp_audit.verify.estimators.rare.BoundedMean` summary."""
    if isinstance(terms, rare.BoundedMean):
        bm = terms
    else:
        terms = np.asarray(terms, float)
        bm = rare.BoundedMean(int(terms.size), float(terms.mean()), float(terms.var(ddof=1)), 1.0)
    return Evidence(
        spec=spec,
        estimate=bm.estimate,
        pvalue=pvalue_by_inversion(bm.lower_bound, delta),
        interval=bm.interval,
        supports=lambda ci, alpha: ci is not None and ci[1] <= delta,
        budget_hint=lambda ci: samples_to_decide(bm.n, ci, bm.estimate, delta),
        note=(note + f" {bm.n:.1e} draws; empirical Bernstein interval on summands in [0, 1].").strip(),
        details={"draws": bm.n, "delta_claim": delta, **details},
    )
