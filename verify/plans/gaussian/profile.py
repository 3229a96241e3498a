"""DP checks of a Gaussian-noise pair that carry their privacy profile: δ(ε) of the pair against the claim.

A DP (or pDP) claim δ_{P‖Q}(ε) ≤ δ at one neighbouring pair is decided by
:func:`pdp_audit.verify.evidence.builders.dp_claim_check`: plain hockey-stick tails where δ·n ≥ 30 expected
exceedances resolve the claim, otherwise importance sampling at the dominating point
(:mod:`pdp_audit.audits.rare`: exact likelihood-ratio weights, empirical Bernstein interval of Maurer & Pontil 2009,
certified for the affine losses of every pair audited here).  The check's figure
(:class:`pdp_audit.reports.records.TailCurves`, two panels of the check's direction) shows on a grid of ε around the
claim:

* **plain Monte Carlo** -- δ̂(ε) = P̂_P[L > ε] − e^ε P̂_Q[L > ε] from the same ``trials`` draws per world,
  with Clopper–Pearson intervals at the check's level (:mod:`pdp_audit.audits.tails`);
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

from concurrent.futures import Executor
from dataclasses import replace
from typing import Callable

import numpy as np

from pdp_audit.audits import rare
from pdp_audit.audits.tails import hockey_stick
from pdp_audit.reports.records import TailCurve, TailCurves
from pdp_audit.verify.checks import CheckSpec, Evidence
from pdp_audit.verify.evidence import builders

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


def _panel_name(direction: str, how: str) -> str:
    return f"{direction.replace('||', '‖')}, {how}"


def dp_check_with_profile(
    spec: CheckSpec,
    pair,
    losses: tuple[np.ndarray, np.ndarray],
    direction: str,
    epsilon: float,
    delta: float,
    trials: int,
    seed: int,
    alpha: float,
    exact_delta: Callable[[float], float] | None = None,
    exact_epsilon: Callable[[float], float] | None = None,
    executor: Executor | None = None,
) -> Evidence:
    """δ_{direction}(ε) ≤ δ at ``pair`` (decided as in the module notes), with its privacy-profile figure.

    ``losses`` are the exact privacy losses L = log p_D/p_D' of ``trials`` draws under D and under D'
    (:func:`pdp_audit.audits.engine.sample_privacy_loss`); ``exact_delta`` / ``exact_epsilon`` are the pair's exact
    δ(ε) and its inverse where known (they set the curve and the extent of the grid).
    """
    loss_d, loss_dp = (np.asarray(v, float) for v in losses)
    grid = profile_grid(epsilon, delta, exact_epsilon)
    claim_index = int(np.flatnonzero(grid == float(epsilon))[0])
    if direction == "D||D'":
        tails = hockey_stick(loss_d, loss_dp, grid, alpha)
    elif direction == "D'||D":
        tails = hockey_stick(-loss_dp, -loss_d, grid, alpha)
    else:
        raise ValueError(f"direction must be D||D' or D'||D, got {direction!r}")
    exact = exact_delta(float(epsilon)) if exact_delta is not None else None
    check = builders.dp_claim_check(spec, tails, pair, direction, epsilon, delta, trials, seed, exact, executor)
    sampled = "shift_norm" in check.details
    check = check.with_details(sampling="importance" if sampled else "plain")
    curve = np.array([exact_delta(float(e)) for e in grid]) if exact_delta is not None else np.full(len(grid), np.nan)
    points: dict[int, object] = {}
    draws = min(int(trials), IS_FIGURE_DRAWS)
    if rare.rare_capable(pair):
        for i in np.flatnonzero(grid > 0):
            if i == claim_index and sampled:
                points[int(i)] = check  # the verdict's own estimate and interval
            else:  # a point without a dominating shift is left out of the figure
                tail = rare.try_rare_tail(
                    pair, float(grid[i]), direction, draws, seed, f"profile/{spec.id}/{i}", executor
                )
                if tail is not None:
                    points[int(i)] = tail
    figure = _figure(grid, direction, tails, curve, points, epsilon, delta)
    how = "importance sampling" if sampled else "plain Monte Carlo"
    figure_note = f"The verdict rests on {how} at the claimed ε. Figure: the pair's δ(ε), exact and plain Monte Carlo"
    if points:
        own = ", the verdict's own draws at the claimed ε" if sampled else ""
        figure_note += f", and importance-sampled ({draws:.0e} draws per ε{own})"
    check = check.noted(figure_note + ", with intervals at the check's level.")
    return replace(check, make_figure=figure).with_details(
        profile_epsilons=[float(e) for e in grid],
        profile_importance_epsilons=[float(grid[i]) for i in points],
        profile_importance_draws=draws if points else 0,
    )


def _figure(grid, direction, tails, curve, points: dict, epsilon: float, delta: float):
    """A ``make_figure``: the plain panel and, where there are importance-sampled points, their panel.

    ``points`` maps grid indices to anything with ``estimate`` and ``interval(alpha)`` (a
    :class:`pdp_audit.audits.rare.RareTail`, or the decided check's own :class:`~pdp_audit.verify.checks.Evidence`)."""

    def figure(alpha: float) -> TailCurves:
        lo, hi = tails.interval(alpha)
        curves = {_panel_name(direction, "plain"): TailCurve(estimate=tails.estimate, lo=lo, hi=hi, exact=curve)}
        if points:
            arrays = [np.full(len(grid), np.nan) for _ in range(3)]
            for i, source in points.items():
                interval = source.interval(alpha)
                for array, value in zip(arrays, (source.estimate, *interval)):
                    array[i] = value if np.isfinite(value) else 1.0
            curves[_panel_name(direction, "importance sampling")] = TailCurve(*arrays, exact=curve)
        return TailCurves(
            epsilons=grid, curves=curves, level=1 - alpha, epsilon_claim=float(epsilon), delta_claim=float(delta)
        )

    return figure
