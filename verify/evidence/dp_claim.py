"""The two records a DP check at one neighbouring pair is built from: the claim it decides and how it samples.

:func:`pdp_audit.verify.evidence.builders.dp_claim_check` and
:func:`pdp_audit.verify.evidence.privacy_profile.dp_check_with_profile` take them, and so do the families' helpers
built on those.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

from pdp_audit.verify.core.checks import CheckSpec


@dataclass(frozen=True)
class DpClaim:
    """δ_{direction}(ε) ≤ δ at one neighbouring pair, as the check ``spec`` declares it."""

    spec: CheckSpec
    direction: str  # "D||D'" or "D'||D"
    epsilon: float
    delta: float


@dataclass(frozen=True)
class Draws:
    """How a run samples: ``trials`` draws per world (and per importance-sampled verdict), the ``seed`` of every
    stream, the confidence ``alpha`` the plain tails carry by default, and the block engine's executor."""

    trials: int
    seed: int
    alpha: float
    executor: Executor | None = None
