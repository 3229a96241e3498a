"""The options of ``pdp-audit run goe-release``, declared once: the claim, the releases' calibration and the
budgets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pdp_audit.audits.goe.checks import TAU_READINGS
from pdp_audit.mechanisms import goe
from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    PAPER_CLAIMS,
    RHO,
    SCALE,
    SEED_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)


@dataclass(frozen=True)
class GoeAuditConfig(AuditConfig):
    """The options of ``pdp-audit run goe-release``: the claim, the releases' calibration and the budgets."""

    d: int = option(
        Option(
            "d",
            "int",
            50,
            "matrix dimension for τ, ‖N‖₂ and the K15 per-instance view, 1..100 (default: 50, as in K16)",
            range=Range(1, goe.EXACT_MAX_D),
        )
    )
    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(CLAIM_DELTA)
    beta: float = option(
        Option("beta", "float", 1.0, "bound β on ‖H_x‖_F of one individual's term (default: 1)", range=SCALE)
    )
    sigma3: float | None = option(
        Option("sigma3", "float", None, "Algorithm 6's noise scale σ₃ (default: calibrated to the claim)", range=SCALE)
    )
    calibration: Literal["paper", "analytic"] = option(
        Option(
            "calibration",
            "str",
            "paper",
            "paper: σ₃ from Theorem 17's DP bound and s from the classical Analyze-Gauss bound; "
            "analytic: exact Gaussian calibration of both (default: paper)",
            choices=("paper", "analytic"),
        )
    )
    rho: float = option(
        Option(
            "rho",
            "float",
            0.01,
            "failure probability ρ of Lemma 20's bound ‖N‖₂ ≤ σ₃τ (default: 0.01)",
            range=RHO,
        )
    )
    trials: int = option(TRIALS_OPTION)
    matrices: int = option(
        Option(
            "matrices",
            "int",
            50_000,
            "Monte Carlo draws of the d×d noise (default: 5e4)",
            range=Range(1000, 1e7),
            table="audit",
        )
    )
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    tau_reading: str = option(
        Option(
            "tau_reading",
            "str",
            "algorithm6",
            "τ of Lemma 20 that the deployment publishes: algorithm6 (the exact quantile for the (Z + Zᵀ)/√2 that "
            "Algorithm 6 adds) or unit-goe (the quantile of Chiani's unit GOE (Z + Zᵀ)/2, K16's printed 12 at d = 50: "
            "deploys that reading, so the check k16-as-printed becomes a guarantee) (default: algorithm6)",
            choices=tuple(TAU_READINGS),
        )
    )
    paper_claims: bool = option(PAPER_CLAIMS)

    def check(self, names: OptionNames) -> None:
        """Theorem 17's ex-post bound holds with probability 1 − 2δ: δ must stay below 1/2."""
        if self.delta >= 0.5:
            raise names.error(
                f"{names.delta} must be below 0.5 (Theorem 17's ex-post bound holds w.p. 1 − 2δ), got {self.delta}"
            )
