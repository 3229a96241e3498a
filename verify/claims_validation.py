"""Validation of the options every audit shares: the claim (ε, δ), α, a coverage ρ, the budget and the seed."""
from __future__ import annotations

from mechanisms.validation import positive, probability


def check_claim(epsilon: float, delta: float, alpha: float, rho: float | None = None) -> None:
    """One-line ValueError naming the CLI option when ε ≤ 0 or δ, α, ρ ∉ (0, 1)."""
    positive("--claim-epsilon", epsilon)
    probability("--claim-delta", delta)
    probability("--alpha", alpha)
    if rho is not None:
        probability("--rho", rho)


def check_budget(trials: int, seed: int, max_trials: int = 10**9) -> None:
    """One-line ValueError naming --trials or --seed when out of range."""
    if not 1000 <= trials <= max_trials:
        raise ValueError(f"--trials must be in [1000, {max_trials:.0e}], got {trials}".replace("e+0", "e"))
    if seed < 0:
        raise ValueError(f"--seed must be >= 0, got {seed}")
