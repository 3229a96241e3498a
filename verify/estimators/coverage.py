"""Coverage of high-probability bounds: P[event] with exact one-sided confidence bounds.

A bound that "holds with probability ≥ 1 − ρ" is audited by counting the draws on which it fails.
The number of failures is Binomial(n, p_fail); the claim is p_fail ≤ ρ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators.stats import binomial_pvalue_exceeds, clopper_pearson


@dataclass(frozen=True)
class Coverage:
    """Failures of a high-probability bound over independent trials, with an exact binomial test of rate ≤ ρ."""

    failures: int
    trials: int
    rho: float  # the claimed failure probability

    @property
    def failure_rate(self) -> float:
        return self.failures / self.trials

    @property
    def coverage(self) -> float:
        return 1 - self.failure_rate

    def failure_interval(self, alpha: float) -> tuple[float, float]:
        """Two-sided Clopper–Pearson interval on the failure probability at confidence 1 − alpha."""
        lo, hi = clopper_pearson(self.failures, self.trials, alpha)
        return float(lo), float(hi)

    def upper_bound(self, alpha: float) -> float:
        """One-sided (1 − alpha) upper bound on the failure probability."""
        return float(clopper_pearson(self.failures, self.trials, alpha, side="upper")[1])

    @property
    def pvalue(self) -> float:
        """Exact p-value of H0: p_fail ≤ ρ (the claim) against p_fail > ρ."""
        return binomial_pvalue_exceeds(self.failures, self.trials, self.rho)


def coverage_of(holds: np.ndarray, rho: float) -> Coverage:
    """Coverage of a bound from a boolean array: ``holds[i]`` is whether the bound held on draw i."""
    holds = np.asarray(holds, dtype=bool)
    return Coverage(failures=int(holds.size - holds.sum()), trials=int(holds.size), rho=rho)
