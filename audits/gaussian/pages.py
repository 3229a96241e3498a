"""The Gaussian audit's report data: the per-instance record of every individual's exact pDP ε."""

from __future__ import annotations

import numpy as np

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_pdp as gp
from pdp_audit.reports.records import PerInstance


def per_instance_record(
    sensitivities: np.ndarray,
    delta: float,
    sigma: float,
    sensitivity: float,
    claim_epsilon: float,
    label: str = "sensitivity ‖Δ_z‖",
    order: np.ndarray | None = None,
) -> PerInstance:
    """Each individual's exact pDP ε at δ and Corollary 23's bound, both at her own sensitivity ‖Δ_z‖
    (``sensitivities``; ``order``: their argsort, where the caller has it), against the mechanism's DP ε at the global
    ``sensitivity`` and the claimed ε (per-instance DP, Wang 2019, §2; [RW] Corollary 23; Balle & Wang 2018,
    Theorem 8)."""
    epsilons = gp.per_instance_epsilons(sensitivities, delta, sigma, order)
    cor23 = gp.corollary23_pdp_epsilon(delta, sigma, np.asarray(sensitivities, dtype=float))  # vectorised: 1e6 rows
    dp_epsilon = g.analytic_epsilon(delta, sigma, sensitivity)
    return PerInstance(
        pdp_epsilon=epsilons,
        cor23_epsilon=cor23,
        delta=delta,
        dp_epsilon=dp_epsilon,
        claim_epsilon=claim_epsilon,
        median=float(np.median(epsilons)),
        max=float(np.max(epsilons)),
        fraction_below_half_dp=float(np.mean(epsilons < 0.5 * dp_epsilon)),
        sensitivity_label=label,
    )
