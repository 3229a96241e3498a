"""Validation of the options every audit shares: the claim (ε, δ), α, a coverage ρ, the budget and the seed."""

from __future__ import annotations

from mechanisms.validation import InputError, positive, probability

# The largest claimed ε any audit accepts (as sweeps do): beyond it e^ε overflows the calibrations'
# root-finders (δ(ε) underflows to 0 long before), and no deployment claims it.
MAX_EPSILON = 100.0


#: The smallest family-wise α accepted: below it the Beta/binomial quantiles of the intervals (at α split
#: over checks and thresholds) leave the range their root-finders can resolve.
MIN_ALPHA = 1e-50


#: The smallest ρ accepted: a normal double (below, 1/ρ overflows and the calibrations fail).
MIN_RHO = 1e-300


def check_alpha(alpha: float, option: str = "--alpha") -> None:
    """One-line InputError naming ``option`` unless α ∈ [1e-50, 1)."""
    if not MIN_ALPHA <= alpha < 1:
        raise InputError(f"{option} must be in [{MIN_ALPHA:g}, 1), got {alpha!r}")


def check_claim(epsilon: float, delta: float, alpha: float, rho: float | None = None) -> None:
    """One-line InputError naming the CLI option when ε ∉ (0, 100] or δ, α, ρ ∉ (0, 1)."""
    positive("--claim-epsilon", epsilon)
    if epsilon > MAX_EPSILON:
        raise InputError(f"--claim-epsilon must be in (0, {MAX_EPSILON:g}], got {epsilon!r}")
    probability("--claim-delta", delta)
    check_alpha(alpha)
    if rho is not None and not MIN_RHO <= rho < 1:  # subnormal ρ: log(1/ρ) and 1/ρ lose their precision
        raise InputError(f"--rho must be in [{MIN_RHO:g}, 1), got {rho!r}")


def check_budget(trials: int, seed: int, max_trials: int = 10**9) -> None:
    """One-line InputError naming --trials or --seed when out of range."""
    if not 1000 <= trials <= max_trials:
        raise InputError(f"--trials must be in [1000, {max_trials:.0e}], got {trials}".replace("e+0", "e"))
    if seed < 0:
        raise InputError(f"--seed must be >= 0, got {seed}")
