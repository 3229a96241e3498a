"""The page of a joint release's certificate: each release's privacy profile beside the joint release's."""

from __future__ import annotations

from typing import Any

import numpy as np

from pdp_audit.reports.records import Line, Lines, Page
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.tails import hockey_integrand

#: Draws per world of each profile drawn on the certificate's page (a figure, not evidence).
PROFILE_DRAWS = 100_000


def hockey_stick_profile(pair: Any, grid: np.ndarray, draws: int, seed: int, stream: str) -> np.ndarray:
    """max of δ_{D‖D'}(ε) = E_D[(1 − e^{ε−L})₊] and δ_{D'‖D}(ε) = E_D'[(1 − e^{ε+L})₊] on ``grid`` (Monte Carlo;
    Balle et al. 2018, Theorem 5), from ``draws`` losses per world."""
    loss_d = sample_privacy_loss(pair, "D", draws, seed, stream)
    loss_dp = sample_privacy_loss(pair, "D'", draws, seed, stream)
    forward = [np.mean(hockey_integrand(loss_d, e)) for e in grid]
    reverse = [np.mean(hockey_integrand(-loss_dp, e)) for e in grid]
    return np.maximum(forward, reverse)


def profiles_page(pairs: list[Any], joint: Any, names: list[str], budget) -> Page:
    """Each release's privacy profile δ(ε) beside the joint release's, against the claim."""
    grid = np.linspace(0.0, 2.0 * max(budget.epsilon, 0.5), 41)
    draws = min(budget.trials, PROFILE_DRAWS)
    curves = [(f"release {i}: {n}", p) for i, (n, p) in enumerate(zip(names, pairs), start=1)]
    lines = []
    for label, pair in curves + [("joint release (the certified one)", joint)]:
        delta = hockey_stick_profile(pair, grid, draws, budget.seed, f"joint-profile/{label}")
        lines.append(Line(label, np.where(delta > 0, delta, np.nan), marker="", style="-"))
    lines.append(Line(f"claim ({budget.epsilon:g}, {budget.delta:g})", [budget.delta], x=[budget.epsilon], style=""))
    return Page(
        "Each release's privacy profile beside the joint release's",
        f"δ(ε) of each release's worst-case pair and of their product, the joint release that is certified (its "
        f"privacy loss is the sum of the releases' losses: composition). Monte Carlo estimates from {draws:,} draws "
        "per world of each pair (a figure, not evidence: the verdict rests on the guarantees' checks). The joint "
        "release's profile lies above each release's: releasing them together costs more privacy than either alone.",
        Lines(lines, x=grid, xlabel="ε", ylabel="δ(ε) (worse direction)", logy=True),
    )
