"""Validation of the options every audit shares: the claim (ε, δ), the run's α and a coverage ρ."""
from __future__ import annotations

from mechanisms.validation import positive, probability


def check_claim(epsilon: float, delta: float, alpha: float, rho: float | None = None) -> None:
    """One-line ValueError naming the CLI option when ε ≤ 0 or δ, α, ρ ∉ (0, 1)."""
    positive("--claim-epsilon", epsilon)
    probability("--claim-delta", delta)
    probability("--alpha", alpha)
    if rho is not None:
        probability("--rho", rho)
