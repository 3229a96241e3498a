"""DP checks of ObjPert at one neighbouring pair, decided by importance sampling and a certified (or exact) bound,
each with its privacy profile δ(ε) as a figure.

A claim δ_{P‖Q}(ε) ≤ δ at the pair (both directions, P the world of the direction) is decided from

* **plain Monte Carlo** where δ·n ≥ 30 expected exceedances resolve it (hockey-stick tails of the exact privacy
  loss, Clopper–Pearson intervals, :mod:`pdp_audit.verify.estimators.tails`), else
* **importance sampling** at the dominating point of {L > ε} in the whitened noise of ObjPert
  (:mod:`pdp_audit.verify.estimators.rare`): δ = E_μ[r(w)(1 − e^{ε−L})₊] with exact likelihood-ratio weights r.  The
  loss of
  ObjPert is not affine in the noise, so only the *lower* end of its empirical Bernstein interval (Maurer & Pontil 2009)
  is certified: it can refute a claim at any δ, never confirm it alone.

A pass needs a **bound** on δ(ε) of the pair that satisfies the claim *and* a Monte Carlo interval consistent
with it (its lower end at most the bound) -- the suite's rule for closed forms.  The bound is the certified one of
:mod:`pdp_audit.mechanisms.objpert.certificate` (logistic, pseudo-Huber) or, for the squared loss, the exact δ(ε) of
:func:`pdp_audit.mechanisms.objpert.certificate.squared_loss_profile` (the release is Gaussian given the data).
Without a bound a check can fail or stay inconclusive, and its note says why it cannot pass.

The figure (:class:`pdp_audit.reports.records.Lines`, one per check, in the check's direction) shows on a grid of ε from
0 to where the bound falls to δ/100 (at least 1.5 ε): the plain Monte Carlo δ̂(ε) with its interval at the check's
level, importance-sampled estimates (:data:`IS_FIGURE_DRAWS` draws per ε, own seeded streams
``profile/<check id>/<i>``; at the claimed ε the verdict's own draws) with the band from their certified lower
bound to the estimate, the bound, and the claim point.  Values below δ·10⁻⁶ are left out (log axis).  Every
stream is seeded by the block engine, so figures and verdicts depend on the seed only, never on the workers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from pdp_audit.reports.certified_claim import BOUND_DELTA
from pdp_audit.verify.core.checks import FIGURES, Evidence
from pdp_audit.verify.evidence import privacy_profile as pp
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.profile_figures import log_lines_figure

#: Grid points of the figure between ε = 0 and the top of the profile (the claimed ε is added).
GRID_POINTS = 9
#: Importance-sampled draws of each figure point other than the claimed ε (at most the run's trials).
IS_FIGURE_DRAWS = 4000
#: Values below δ_claim times this factor are not drawn.
FIGURE_FLOOR = 1e-6


@dataclass(frozen=True)
class DeltaBound:
    """An upper bound on δ(ε) of the pair in the check's direction (certified, or the exact δ(ε) of the squared
    loss), its inverse ε(δ), and its name in notes and figures."""

    delta: Callable[[float], float]
    epsilon: Callable[[float], float]
    label: str


def profile_grid(epsilon: float, delta: float, epsilon_bound: Callable[[float], float] | None) -> np.ndarray:
    """ε from 0 to where the bound on δ(ε) falls to δ/100 (at least 1.5 ε, at most 6 ε), with ε on the grid."""
    top = 1.5 * float(epsilon)
    if epsilon_bound is not None:
        reach = float(epsilon_bound(float(delta) / 100))
        if np.isfinite(reach):
            top = min(max(top, 1.1 * reach), 6 * float(epsilon))
    return np.unique(np.concatenate([np.linspace(0.0, top, GRID_POINTS), [float(epsilon)]]))


def _profile_plan(claim: DpClaim, bound: DeltaBound | None, importance: bool) -> pp.ProfilePlan:
    """How :func:`dp_profile_check` decides ``claim`` and draws its profile."""
    grid = profile_grid(claim.epsilon, claim.delta, bound.epsilon if bound is not None else None)
    return pp.ProfilePlan(
        grid,
        curve=np.array([bound.delta(float(e)) for e in grid]) if bound is not None else None,
        bound=float(bound.delta(float(claim.epsilon))) if bound is not None else None,
        figure_draws=IS_FIGURE_DRAWS,
        importance=importance,
        explain_fallback=False,  # the note below says what the verdict rests on
    )


def profile_draws_bound(trials: int, importance: bool = True) -> int:
    """At most the draws :func:`dp_profile_check` takes beyond its ``trials`` losses per world at any pair, known
    before the pair is (the search decides it; working them out at the pair would repeat its dominating-point
    searches, thousands of solves): the claim's own
    importance-sampled tail and :data:`IS_FIGURE_DRAWS` at each of the grid's at most :data:`GRID_POINTS` positive
    points other than the claim's (where figures are drawn)."""
    if not importance:
        return 0
    return int(trials) + (min(int(trials), IS_FIGURE_DRAWS) * GRID_POINTS if FIGURES.get() else 0)


def dp_profile_check(
    claim: DpClaim,
    pair,
    losses: tuple[np.ndarray, np.ndarray],
    draws: Draws,
    bound: DeltaBound | None,
    importance: bool = True,
) -> Evidence:
    """``claim`` at ``pair`` (see the module notes), with its privacy-profile figure.

    ``losses``: the exact privacy losses L = log p_D/p_D' of ``draws.trials`` releases under D and under D'.
    ``bound``: the bound on δ(ε) of the pair (None: no bound).  ``importance=False`` decides and draws from plain
    Monte Carlo only (where each release is a costly solve and the bound carries the pass): it can then refute only
    a δ(ε) that plain sampling resolves.
    """
    plan = _profile_plan(claim, bound, importance)
    grid = plan.grid
    check, profile = pp.dp_check_with_profile(claim, pair, losses, draws, plan)
    label = bound.label if bound is not None else ""
    check = check.noted(_note(check, profile, plan.bound, label)).with_details(
        sampling=check.sampling,
        profile_epsilons=[float(e) for e in grid],
        profile_importance_draws=profile.importance_draws,
        **({BOUND_DELTA: plan.bound} if plan.bound is not None else {}),  # the headline's basis where sampling is open
    )
    figure = log_lines_figure(profile, label, "at the worst neighbour found", FIGURE_FLOOR)
    return replace(check, make_figure=figure)


def _note(check: Evidence, profile: pp.PrivacyProfile, bound: float | None, bound_label: str) -> str:
    """What the verdict rests on, and what the figure shows."""
    how = "importance sampling" if check.sampling == "importance" else "plain Monte Carlo"
    epsilon = profile.claim.epsilon
    note = f"The verdict rests on {how} at the claimed ε" + (
        f" and on the {bound_label}: δ({epsilon:g}) ≤ {bound:.3g}." if bound is not None else "."
    )
    sampled_figure = (
        f" and importance-sampled ({profile.importance_draws:.0e} draws per ε; band from the certified lower bound to "
        "the estimate)"
        if profile.importance_draws
        else ""
    )
    return note + (
        f" Figure: the privacy profile δ(ε) of this neighbour, plain Monte Carlo{sampled_figure}"
        + (f", and the {bound_label}" if profile.curve is not None else "")
        + f"; values below {FIGURE_FLOOR:g}·δ omitted."
    )
