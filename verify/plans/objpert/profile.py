"""DP checks of ObjPert at one neighbouring pair, decided by importance sampling and a certified (or exact) bound,
each with its privacy profile δ(ε) as a figure.

A claim δ_{P‖Q}(ε) ≤ δ at the pair (both directions, P the world of the direction) is decided from

* **plain Monte Carlo** where δ·n ≥ 30 expected exceedances resolve it (hockey-stick tails of the exact privacy
  loss, Clopper–Pearson intervals, :mod:`pdp_audit.audits.tails`), else
* **importance sampling** at the dominating point of {L > ε} in the whitened noise of ObjPert
  (:mod:`pdp_audit.audits.rare`): δ = E_μ[r(w)(1 − e^{ε−L})₊] with exact likelihood-ratio weights r.  The loss of
  ObjPert is not affine in the noise, so only the *lower* end of its empirical Bernstein interval (Maurer & Pontil 2009)
  is certified: it can refute a claim at any δ, never confirm it alone.

A pass needs a **bound** on δ(ε) of the pair that satisfies the claim *and* a Monte Carlo interval consistent
with it (its lower end at most the bound) -- the suite's rule for closed forms.  The bound is the certified one of
:mod:`pdp_audit.mechanisms.objpert_certificate` (logistic, pseudo-Huber) or, for the squared loss, the exact δ(ε) of
:func:`pdp_audit.mechanisms.objpert_certificate.squared_loss_delta` (the release is Gaussian given the data).  Without a
bound a check can fail or stay inconclusive, and its note says why it cannot pass.

The figure (:class:`pdp_audit.reports.records.Lines`, one per check, in the check's direction) shows on a grid of ε from
0 to where the bound falls to δ/100 (at least 1.5 ε): the plain Monte Carlo δ̂(ε) with its interval at the check's
level, importance-sampled estimates (:data:`IS_FIGURE_DRAWS` draws per ε, own seeded streams
``profile/<check id>/<i>``; at the claimed ε the verdict's own draws) with the band from their certified lower
bound to the estimate, the bound, and the claim point.  Values below δ·10⁻⁶ are left out (log axis).  Every
stream is seeded by the block engine, so figures and verdicts depend on the seed only, never on the workers.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import replace
from typing import Callable

import numpy as np

from pdp_audit.audits import rare
from pdp_audit.audits.tails import hockey_stick
from pdp_audit.reports.records import Line, Lines
from pdp_audit.verify.checks import CheckSpec, Evidence
from pdp_audit.verify.evidence import builders

#: Grid points of the figure between ε = 0 and the top of the profile (the claimed ε is added).
GRID_POINTS = 9
#: Importance-sampled draws of each figure point other than the claimed ε (at most the run's trials).
IS_FIGURE_DRAWS = 4000
#: Values below δ_claim times this factor are not drawn.
FIGURE_FLOOR = 1e-6


def profile_grid(epsilon: float, delta: float, epsilon_bound: Callable[[float], float] | None) -> np.ndarray:
    """ε from 0 to where the bound on δ(ε) falls to δ/100 (at least 1.5 ε, at most 6 ε), with ε on the grid."""
    top = 1.5 * float(epsilon)
    if epsilon_bound is not None:
        reach = float(epsilon_bound(float(delta) / 100))
        if np.isfinite(reach):
            top = min(max(top, 1.1 * reach), 6 * float(epsilon))
    return np.unique(np.concatenate([np.linspace(0.0, top, GRID_POINTS), [float(epsilon)]]))


def _arrow(direction: str) -> str:
    return direction.replace("||", "‖")


def bound_support(delta_claim: float, bound: float | None):
    """Pass rule: the interval lies below the claim, or the bound satisfies the claim and the interval's lower
    end does not exceed the bound (the interval is consistent with it)."""

    def supports(ci, alpha) -> bool:
        if ci[1] <= delta_claim:
            return True
        return bound is not None and bound <= delta_claim * (1 + builders.CLOSED_FORM_RTOL) and ci[0] <= bound

    return supports


def dp_profile_check(
    spec: CheckSpec,
    pair,
    losses: tuple[np.ndarray, np.ndarray],
    direction: str,
    epsilon: float,
    delta: float,
    trials: int,
    seed: int,
    alpha: float,
    delta_bound: Callable[[float], float] | None,
    epsilon_bound: Callable[[float], float] | None,
    bound_label: str,
    executor: Executor | None = None,
    importance: bool = True,
) -> Evidence:
    """δ_{direction}(ε) ≤ δ at ``pair`` (see the module notes), with its privacy-profile figure.

    ``losses``: the exact privacy losses L = log p_D/p_D' of ``trials`` releases under D and under D'.
    ``delta_bound`` / ``epsilon_bound``: the bound on δ(ε) of the pair and its inverse (None: no bound).
    ``importance=False`` decides and draws from plain Monte Carlo only (where each release is a costly solve and
    the bound carries the pass): it can then refute only a δ(ε) that plain sampling resolves.
    """
    importance = importance and rare.rare_capable(pair)
    loss_d, loss_dp = (np.asarray(v, float) for v in losses)
    grid = profile_grid(epsilon, delta, epsilon_bound)
    claim_index = int(np.flatnonzero(grid == float(epsilon))[0])
    if direction == "D||D'":
        tails = hockey_stick(loss_d, loss_dp, grid, alpha)
    elif direction == "D'||D":
        tails = hockey_stick(-loss_dp, -loss_d, grid, alpha)
    else:
        raise ValueError(f"direction must be D||D' or D'||D, got {direction!r}")
    bound = float(delta_bound(float(epsilon))) if delta_bound is not None else None
    points: dict[int, rare.RareTail] = {}
    tail = None
    if importance and not builders.plain_sampling_resolves(delta, trials):
        tail = rare.try_rare_tail(pair, float(epsilon), direction, trials, seed, f"rare/{spec.id}", executor)
    if tail is None:
        at_claim = hockey_stick(
            loss_d if direction == "D||D'" else -loss_dp,
            loss_dp if direction == "D||D'" else -loss_d,
            np.array([float(epsilon)]),
            alpha,
        )
        check = builders.tail_claim_check(spec, at_claim, epsilon, delta, None)
    else:
        check = builders.rare_tail_claim_check(spec, tail, delta, None)
        points[claim_index] = tail
    sampled = tail is not None
    check = replace(check, supports=bound_support(delta, bound))
    draws = min(int(trials), IS_FIGURE_DRAWS)
    if importance:
        for i in np.flatnonzero(grid > 0):
            if int(i) not in points:
                point = rare.try_rare_tail(
                    pair, float(grid[i]), direction, draws, seed, f"profile/{spec.id}/{i}", executor
                )
                if point is not None:
                    points[int(i)] = point
    curve = np.array([delta_bound(float(e)) for e in grid]) if delta_bound is not None else None
    how = "importance sampling" if sampled else "plain Monte Carlo"
    note = f"The verdict rests on {how} at the claimed ε" + (
        f" and on the {bound_label}: δ({epsilon:g}) ≤ {bound:.3g}." if bound is not None else "."
    )
    sampled_figure = (
        f" and importance-sampled ({draws:.0e} draws per ε; band from the certified lower bound to the estimate)"
        if importance
        else ""
    )
    note += (
        f" Figure: the privacy profile δ(ε) of this neighbour, plain Monte Carlo{sampled_figure}"
        + (f", and the {bound_label}" if curve is not None else "")
        + f"; values below {FIGURE_FLOOR:g}·δ omitted."
    )
    check = check.noted(note).with_details(
        sampling="importance" if sampled else "plain",
        profile_epsilons=[float(e) for e in grid],
        profile_importance_draws=draws if importance else 0,
        **({"bound_delta": bound} if bound is not None else {}),
    )
    figure = _figure(grid, direction, tails, points, curve, bound_label, epsilon, delta, trials)
    return replace(check, make_figure=figure)


def _figure(grid, direction, tails, points, curve, bound_label, epsilon, delta, trials):
    floor = float(delta) * FIGURE_FLOOR

    def shown(values) -> list:
        v = np.asarray(values, float)
        return np.where(np.isfinite(v) & (v >= floor), np.minimum(v, 1.0), np.nan).tolist()

    def figure(alpha: float) -> Lines:
        lo, hi = tails.interval(alpha)
        series = [
            Line(
                label=f"plain Monte Carlo δ̂(ε), {int(trials):,} per world, interval at {1 - alpha:.8g}",
                x=list(map(float, grid)),
                y=shown(tails.estimate),
                lo=shown(np.maximum(lo, floor)),
                hi=shown(np.maximum(hi, floor)),
                marker="o",
                style="none",
            )
        ]
        if points:
            idx = sorted(points)
            est = np.array([points[i].estimate for i in idx])
            low = np.array([points[i].lower_bound(alpha / 2) for i in idx])
            series.append(
                Line(
                    label="importance sampling δ̂(ε) (band: certified lower bound)",
                    x=[float(grid[i]) for i in idx],
                    y=shown(est),
                    lo=shown(np.maximum(low, floor)),
                    hi=shown(np.maximum(est, floor)),
                    marker="s",
                    style="none",
                )
            )
        if curve is not None:
            series.append(Line(label=bound_label, x=list(map(float, grid)), y=shown(curve), marker="", style="--"))
        series.append(
            Line(
                label=f"claim (ε, δ) = ({epsilon:g}, {delta:g})",
                x=[float(epsilon)],
                y=[float(delta)],
                marker="*",
                style="none",
            )
        )
        return Lines(
            series=series,
            xlabel="ε",
            ylabel=f"δ(ε), {_arrow(direction)}, at the worst neighbour found",
            logy=True,
        )

    return figure
