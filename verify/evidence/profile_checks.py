"""DP checks of a Gaussian-noise pair that carry their privacy profile: δ(ε) of the pair against the claim.

A DP (or pDP) claim δ_{P‖Q}(ε) ≤ δ at one neighbouring pair is decided by
:func:`pdp_audit.verify.evidence.privacy_profile.dp_check_with_profile`: plain hockey-stick tails where δ·n ≥ 30
expected exceedances resolve the claim, otherwise importance sampling at the dominating point
(:mod:`pdp_audit.verify.estimators.rare`: exact likelihood-ratio weights, empirical Bernstein interval of Maurer &
Pontil 2009,
certified for the affine losses of every pair audited here).  The check's figure
(:class:`pdp_audit.reports.records.TailCurves`, two panels of the check's direction) shows on a grid of ε around the
claim:

* **plain Monte Carlo** -- δ̂(ε) = P̂_P[L > ε] − e^ε P̂_Q[L > ε] from the same ``trials`` draws per world,
  with Clopper–Pearson intervals at the check's level (:mod:`pdp_audit.verify.estimators.tails`);
* **importance sampling** -- δ̂(ε) = mean of r(w)(1 − e^{ε−ℓ(w)})₊ under the shifted noise law, with its
  empirical Bernstein interval at the check's level, at every grid point ε > 0: at the claimed ε the
  estimate the verdict rests on when the check was decided by importance sampling, elsewhere
  :data:`IS_FIGURE_DRAWS` draws each (own seeded streams ``profile/<check id>/<i>``, dominating point of
  each ε);
* the **exact** curve δ(ε) of the pair where it is known: for a Gaussian privacy loss N(η²/2, η²) it is
  Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η) (Balle & Wang 2018, Theorem 8), the same in both directions.

The extra figure points never enter the verdict.  Every stream is seeded by the block engine, so the
figure, like the verdict, depends on the seed only, never on the number of workers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from pdp_audit.verify.core.checks import FIGURES, Evidence
from pdp_audit.verify.evidence import privacy_profile as pp
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.profile_figures import tail_curves_figure

#: Grid points of the figure between ε = 0 and the top of the profile (the claimed ε is added).
GRID_POINTS = 17
#: Draws of each importance-sampled figure point other than the claimed ε (at most ``trials``).
IS_FIGURE_DRAWS = 50_000


def profile_grid(epsilon: float, delta: float, exact_epsilon: Callable[[float], float] | None) -> np.ndarray:
    """ε from 0 to where the exact δ(ε) falls to δ/100 (at least 1.5 ε), with the claimed ε on the grid."""
    top = 1.5 * float(epsilon)
    if exact_epsilon is not None:
        top = max(top, 1.1 * float(exact_epsilon(float(delta) / 100)))
    return np.unique(np.concatenate([np.linspace(0.0, top, GRID_POINTS), [float(epsilon)]]))


def dp_check_with_profile(
    claim: DpClaim,
    pair,
    losses: tuple[np.ndarray, np.ndarray],
    draws: Draws,
    exact_delta: Callable[[float], float] | None = None,
    exact_epsilon: Callable[[float], float] | None = None,
) -> Evidence:
    """``claim`` (δ_{direction}(ε) ≤ δ) at ``pair`` (decided as in the module notes), with its privacy-profile figure.

    ``losses`` are the exact privacy losses L = log p_D/p_D' of ``draws.trials`` draws under D and under D'
    (:func:`pdp_audit.verify.estimators.engine.sample_privacy_loss`); ``exact_delta`` / ``exact_epsilon`` are the
    pair's exact
    δ(ε) and its inverse where known (they set the curve and the extent of the grid).
    """
    epsilon = claim.epsilon
    grid = profile_grid(epsilon, claim.delta, exact_epsilon)
    curve = np.array([exact_delta(float(e)) for e in grid]) if exact_delta is not None else None
    plan = pp.ProfilePlan(
        grid,
        curve=curve,
        exact=exact_delta(float(epsilon)) if exact_delta is not None else None,
        figure_draws=IS_FIGURE_DRAWS,
    )
    check, profile = pp.dp_check_with_profile(claim, pair, losses, draws, plan)
    check = check.with_details(sampling=check.sampling).noted(_figure_note(check, profile))
    return replace(check, make_figure=tail_curves_figure(profile, "plain", "importance sampling")).with_details(
        profile_epsilons=[float(e) for e in grid],
        profile_importance_epsilons=profile.importance_epsilons,
        profile_importance_draws=profile.importance_draws if profile.points else 0,
    )


def profile_draws(claim: DpClaim, pair, trials: int, exact_epsilon: Callable[[float], float] | None = None) -> int:
    """The draws :func:`dp_check_with_profile` of ``claim`` at ``pair`` takes beyond its ``trials`` losses per world
    (:func:`pdp_audit.verify.evidence.privacy_profile.planned_draws` on the same grid), decided before any draw."""
    grid = profile_grid(claim.epsilon, claim.delta, exact_epsilon)
    return pp.planned_draws(claim, pair, trials, pp.ProfilePlan(grid, figure_draws=IS_FIGURE_DRAWS))


def profile_draws_bound(trials: int) -> int:
    """At most :func:`profile_draws` of one claim at any pair, known before the pair is: its own importance-sampled
    tail and :data:`IS_FIGURE_DRAWS` at each of the grid's at most :data:`GRID_POINTS` positive points other than the
    claim's (where figures are drawn)."""
    return int(trials) + (min(int(trials), IS_FIGURE_DRAWS) * GRID_POINTS if FIGURES.get() else 0)


def _figure_note(check: Evidence, profile: pp.PrivacyProfile) -> str:
    """What the verdict rests on, and what the figure shows."""
    sampled = check.sampling == "importance"
    how = "importance sampling" if sampled else "plain Monte Carlo"
    note = f"The verdict rests on {how} at the claimed ε. Figure: the pair's δ(ε), exact and plain Monte Carlo"
    if profile.points:
        own = ", the verdict's own draws at the claimed ε" if sampled else ""
        note += f", and importance-sampled ({profile.importance_draws:.0e} draws per ε{own})"
    return note + ", with intervals at the check's level."
