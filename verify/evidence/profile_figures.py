"""Figures of a privacy profile (:class:`pdp_audit.verify.evidence.privacy_profile.PrivacyProfile`): δ(ε) of one
direction of a pair on its grid of ε, against the claim.

Each is a ``make_figure`` of :class:`pdp_audit.verify.core.checks.Evidence`, drawn at the check's level once the run is
decided (intervals at confidence 1 − alpha):

* :func:`tail_curves_figure` -- :class:`pdp_audit.reports.records.TailCurves`, one panel of plain Monte Carlo δ̂(ε)
  with its Clopper–Pearson band and, where there are importance-sampled points, a panel of their estimates and
  empirical Bernstein intervals; the exact δ(ε) of the pair in both (NaN where unknown).
* :func:`log_lines_figure` -- :class:`pdp_audit.reports.records.Lines` on a log axis: plain Monte Carlo with its
  band, importance-sampled estimates with the band from their certified lower bound (the loss need not be affine in
  the noise, so only that end is certified) up to the estimate, the known curve (exact or a bound) and the claim
  point; values below δ·``floor`` are left out.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from pdp_audit.reports.numbers import fmt_level
from pdp_audit.reports.records import Line, Lines, TailCurve, TailCurves
from pdp_audit.verify.estimators.rare import RareTail
from pdp_audit.verify.evidence.privacy_profile import PrivacyProfile


def _sampled(profile: PrivacyProfile) -> dict[int, RareTail]:
    """The importance-sampled points of ``profile`` (all of them where figures are drawn: a point is left unsampled,
    None, only where none is)."""
    return {i: point for i, point in profile.points.items() if point is not None}


def _arrow(direction: str) -> str:
    """``D||D'`` as the report writes it, ``D‖D'``."""
    return direction.replace("||", "‖")


def tail_curves_figure(
    profile: PrivacyProfile, plain_panel: str, importance_panel: str
) -> Callable[[float], TailCurves]:
    """The profile as :class:`TailCurves`: the panel ``<direction>, <plain_panel>`` and, where there are
    importance-sampled points, ``<direction>, <importance_panel>`` (an infinite interval end drawn at 1)."""
    grid, direction = profile.grid, profile.claim.direction
    curve = profile.curve if profile.curve is not None else np.full(len(grid), np.nan)

    def figure(alpha: float) -> TailCurves:
        lo, hi = profile.tails.interval(alpha)
        curves = {
            f"{_arrow(direction)}, {plain_panel}": TailCurve(estimate=profile.tails.estimate, lo=lo, hi=hi, exact=curve)
        }
        if profile.points:
            estimates, lows, highs = arrays = [np.full(len(grid), np.nan) for _ in range(3)]
            for i, point in _sampled(profile).items():
                for array, value in zip(arrays, (point.estimate, *point.interval(alpha))):
                    array[i] = value if np.isfinite(value) else 1.0
            curves[f"{_arrow(direction)}, {importance_panel}"] = TailCurve(estimates, lows, highs, exact=curve)
        return TailCurves(
            epsilons=grid,
            curves=curves,
            level=1 - alpha,
            epsilon_claim=float(profile.claim.epsilon),
            delta_claim=float(profile.claim.delta),
        )

    return figure


def log_lines_figure(profile: PrivacyProfile, curve_label: str, where: str, floor: float) -> Callable[[float], Lines]:
    """The profile as :class:`Lines` on a log axis (module notes): ``curve_label`` names the known curve, ``where``
    the pair in the axis label; values below δ·``floor`` are not drawn, values above 1 are drawn at 1."""
    grid, claim, tails = profile.grid, profile.claim, profile.tails
    lowest = float(claim.delta) * floor

    def shown(values) -> list:
        v = np.asarray(values, float)
        return np.where(np.isfinite(v) & (v >= lowest), np.minimum(v, 1.0), np.nan).tolist()

    def figure(alpha: float) -> Lines:
        lo, hi = tails.interval(alpha)
        series = [
            Line(
                label=f"plain Monte Carlo δ̂(ε), {int(tails.n_p):,} per world, interval at {fmt_level(1 - alpha)}",
                x=list(map(float, grid)),
                y=shown(tails.estimate),
                lo=shown(np.maximum(lo, lowest)),
                hi=shown(np.maximum(hi, lowest)),
                marker="o",
                style="none",
            )
        ]
        if profile.points:
            sampled = _sampled(profile)
            estimates = np.array([point.estimate for point in sampled.values()])
            certified = np.array([point.lower_bound(alpha / 2) for point in sampled.values()])
            series.append(
                Line(
                    label="importance sampling δ̂(ε) (band: certified lower bound)",
                    x=[float(grid[i]) for i in sampled],
                    y=shown(estimates),
                    lo=shown(np.maximum(certified, lowest)),
                    hi=shown(np.maximum(estimates, lowest)),
                    marker="s",
                    style="none",
                )
            )
        if profile.curve is not None:
            series.append(
                Line(label=curve_label, x=list(map(float, grid)), y=shown(profile.curve), marker="", style="--")
            )
        series.append(
            Line(
                label=f"claim (ε, δ) = ({claim.epsilon:g}, {claim.delta:g})",
                x=[float(claim.epsilon)],
                y=[float(claim.delta)],
                marker="*",
                style="none",
            )
        )
        return Lines(series=series, xlabel="ε", ylabel=f"δ(ε), {_arrow(claim.direction)}, {where}", logy=True)

    return figure
