"""Validation of the options every audit shares: the claim (ε, δ), α, a coverage ρ, the budget and the seed."""

from __future__ import annotations

import math

from pdp_audit.mechanisms.validation import InputError, positive, probability

# The largest claimed ε any audit accepts (as sweeps do): beyond it e^ε overflows the calibrations'
# root-finders (δ(ε) underflows to 0 long before), and no deployment claims it.
MAX_EPSILON = 100.0


#: The smallest family-wise α accepted: below it the Beta/binomial quantiles of the intervals (at α split
#: over checks and thresholds) leave the range their root-finders can resolve.
MIN_ALPHA = 1e-50


#: The smallest ρ accepted: a normal double (below, 1/ρ overflows and the calibrations fail).
MIN_RHO = 1e-300

#: The smallest claimed ε and δ: a subnormal δ or an ε near 0 makes the calibrations' noise scales (∝ 1/ε,
#: √log(1/δ)) overflow or their root-finders' brackets infinite (found by a probe of every float option).
MIN_EPSILON = 1e-6
MIN_DELTA = 1e-300


def check_alpha(alpha: float, option: str = "--alpha") -> None:
    """One-line InputError naming ``option`` unless α ∈ [1e-50, 1)."""
    if not MIN_ALPHA <= alpha < 1:
        raise InputError(f"{option} must be in [{MIN_ALPHA:g}, 1), got {alpha!r}")


def check_claim(epsilon: float, delta: float, alpha: float, rho: float | None = None) -> None:
    """One-line InputError naming the CLI option when ε ∉ [1e-6, 100], δ ∉ [1e-300, 1), α ∉ [1e-50, 1) or
    ρ ∉ [1e-300, 1)."""
    positive("--claim-epsilon", epsilon)
    if not MIN_EPSILON <= epsilon <= MAX_EPSILON:
        raise InputError(f"--claim-epsilon must be in [{MIN_EPSILON:g}, {MAX_EPSILON:g}], got {epsilon!r}")
    probability("--claim-delta", delta)
    if delta < MIN_DELTA:
        raise InputError(f"--claim-delta must be in [{MIN_DELTA:g}, 1), got {delta!r}")
    check_alpha(alpha)
    if rho is not None and not MIN_RHO <= rho < 1:  # subnormal ρ: log(1/ρ) and 1/ρ lose their precision
        raise InputError(f"--rho must be in [{MIN_RHO:g}, 1), got {rho!r}")


#: The range of every noise scale, precision and ridge term: beyond it the privacy loss overflows or vanishes in
#: double precision (σ → 0 makes 1/σ² infinite; σ → ∞ squares past the largest double).
SCALE_RANGE = (1e-12, 1e12)


def check_scales(*named: tuple[str, float | None]) -> None:
    """One-line InputError naming the first option whose value (when given) is outside :data:`SCALE_RANGE`."""
    lo, hi = SCALE_RANGE  # the message spells them as written here
    for name, value in named:
        if value is not None and not (math.isfinite(value) and lo <= value <= hi):
            raise InputError(f"{name} must be in [1e-12, 1e12], got {value}")


def check_budget(trials: int, seed: int, max_trials: int = 10**9) -> None:
    """One-line InputError naming --trials or --seed when out of range."""
    if not 1000 <= trials <= max_trials:
        raise InputError(f"--trials must be in [1000, {max_trials:.0e}], got {trials}".replace("e+0", "e"))
    if seed < 0:
        raise InputError(f"--seed must be >= 0, got {seed}")
