"""The DP checks every mechanism's audit shares: tails in both directions and the optimal attack.

Given one neighbouring pair and a claim (ε, δ), the families sample the exact privacy loss in both worlds
(:func:`sample_pair`) and build ``<prefix>dp-forward``, ``<prefix>dp-reverse`` (hockey-stick δ̂(ε) against δ)
and ``<prefix>lr-attack`` (likelihood-ratio attack, ε lower bound), declared here (:func:`dp_specs`), and
``<prefix>loss-consistency`` on the same draws
(:func:`pdp_audit.verify.evidence.pair_validation.loss_consistency_check`).
Where the exact δ(ε) of the pair is known, a pass needs the Monte Carlo interval to agree with it; otherwise a
tight claim can only come out inconclusive, never pass.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.base import NeighbourPair
from pdp_audit.verify.core.checks import CheckSpec
from pdp_audit.verify.estimators.engine import sample_privacy_loss


def dp_specs(
    claim: str, epsilon: float, delta: float, source: str, prefix: str = ""
) -> tuple[CheckSpec, CheckSpec, CheckSpec]:
    """The declarations of ``<prefix>dp-forward``, ``<prefix>dp-reverse`` and ``<prefix>lr-attack`` for ``claim``."""
    return (
        CheckSpec(
            f"{prefix}dp-forward",
            f"{claim}: δ_{{D‖D'}}(ε)",
            f"{claim} is ({epsilon:g}, {delta:g})-DP at this neighbour (D vs D')",
            "δ_{D‖D'}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ",
            source,
            delta_of="D||D'",
        ),
        CheckSpec(
            f"{prefix}dp-reverse",
            f"{claim}: δ_{{D'‖D}}(ε)",
            f"{claim} is ({epsilon:g}, {delta:g})-DP at this neighbour (D' vs D)",
            "δ_{D'‖D}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ",
            source,
            delta_of="D'||D",
        ),
        CheckSpec(f"{prefix}lr-attack", f"{claim}: likelihood-ratio attack", "", "", source),
    )


@dataclass
class PairSamples:
    """Exact privacy losses of samples drawn under D and under D'."""

    loss_d: np.ndarray
    loss_dprime: np.ndarray


def sample_pair(
    pair: NeighbourPair, trials: int, seed: int, stream: str, executor: Executor | None = None
) -> PairSamples:
    """``trials`` privacy losses in each world of ``pair``, seeded by ``seed`` and ``stream``."""
    return PairSamples(
        sample_privacy_loss(pair, "D", trials, seed, stream, executor),
        sample_privacy_loss(pair, "D'", trials, seed, stream, executor),
    )
