"""The options of ``pdp-audit run gaussian``, declared once: the claim, the mechanism, its data and the budget."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    DATA_OPTION,
    DATASET_OPTION,
    PAPER_CLAIMS,
    RHO,
    SEED_OPTION,
    TARGET_COLUMN_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.inputs.datasets import check_width

#: ``--calibration``: the rule that sets σ when ``--sigma`` does not.
CALIBRATIONS = ("analytic", "classical")


#: The widest release of ``--synthetic`` (d), and of ``--data`` (its feature columns).
MAX_SYNTHETIC_D = 100


def check_data_width(path: str, dataset) -> None:
    """``--data``'s feature columns (the release's coordinates) at most :data:`MAX_SYNTHETIC_D` (InputError)."""
    check_width(path, dataset.features, MAX_SYNTHETIC_D)


def _synthetic_size(size: tuple[int, int]) -> str | None:
    n, d = size
    if not (2 <= n <= 100_000 and 1 <= d <= MAX_SYNTHETIC_D and n * d <= 1_000_000):
        return f"needs 2 <= n <= 1e5, 1 <= d <= {MAX_SYNTHETIC_D} and n·d <= 1e6"
    return None


@dataclass(frozen=True)
class GaussianAuditConfig(AuditConfig):
    """The options of ``pdp-audit run gaussian``: the claim, the mechanism, the data and the budget.

    The released value is the clipped sum (rows clipped to L2 norm ``sensitivity`` = C, its global sensitivity) or
    the count of the rows, plus N(0, σ²I), σ = ``noise_multiplier`` × (``sigma``, or the calibration of the claim);
    or, for ``query = "mean"``, both together, the count's σ = the sum's σ / C (the equal-μ rule of
    :mod:`pdp_audit.mechanisms.gaussian_mean`).
    """

    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(CLAIM_DELTA)
    sensitivity: float = option(
        Option(
            "sensitivity",
            "float",
            1.0,
            "L2 clip bound C of the sum = its global sensitivity (default: 1)",
            # far from 1, σ² (σ within 1e±9 of C) leaves the normal doubles: 1/σ² is then inf (fuzz-found)
            range=Range(1e-100, 1e100),
        )
    )
    query: Literal["sum", "count", "mean"] = option(
        Option(
            "query",
            "str",
            "sum",
            "count of rows, sum of rows clipped to L2 norm = --sensitivity, or mean: that sum and the count released "
            "together, σ split by the equal-μ rule (default: sum)",
            choices=("sum", "count", "mean"),
        )
    )
    sigma: float | None = option(
        Option(
            "sigma",
            "float",
            None,
            "noise standard deviation (default: calibrated to the claim by --calibration)",
            range=Range(0, open_low=True),
        )
    )
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    rho: float = option(
        Option("rho", "float", 0.01, "failure probability of Corollary 23's ex-post bound (default: 0.01)", range=RHO)
    )
    dataset: str | None = option(DATASET_OPTION)
    data: str | None = option(DATA_OPTION)
    target_column: str | None = option(TARGET_COLUMN_OPTION)
    calibration: str = option(
        Option(
            "calibration",
            "str",
            "analytic",
            "how σ is calibrated to the claim: analytic (exact, Balle & Wang 2018) or classical "
            "(Δ√(2 log(1.25/δ))/ε, Dwork & Roth 2014, proved for ε < 1: deploys that printed calibration, whose "
            "check becomes a guarantee) (default: analytic)",
            choices=CALIBRATIONS,
        )
    )
    paper_claims: bool = option(PAPER_CLAIMS)
    noise_multiplier: float = option(
        Option(
            "noise_multiplier",
            "float",
            1.0,
            "fault injection and λ-inflation: the noise's σ times M, the claim kept (M < 1 breaks the calibration; "
            "default: 1)",
            range=Range(1e-3, 1e3),
        )
    )
    synthetic: tuple[int, int] | None = option(
        Option(
            "synthetic",
            "size",
            None,
            "synthetic data: N rows of D iid N(0, 1) features drawn from the seed, scaled like the shipped data",
            check=_synthetic_size,
            group="data",
            metavar="N,D",
        )
    )

    def resolve(self) -> None:
        if self.dataset is None and self.data is None and self.synthetic is None:
            object.__setattr__(self, "dataset", "diabetes")

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.query == "count" and self.sensitivity != 1.0:
            raise names.error(f"{names.sensitivity} applies to {names.query} sum only (a count has sensitivity 1)")
        if self.sigma is not None and not (math.isfinite(self.sigma) and 1e-9 <= self.sigma / self.sensitivity <= 1e9):
            # beyond this range every privacy loss overflows or vanishes in double precision
            raise names.error(f"{names.sigma} must be in [1e-9, 1e9] times the sensitivity, got {self.sigma}")
        deployed = None if self.sigma is None else self.sigma * self.noise_multiplier
        if deployed is not None and not 1e-9 <= deployed / self.sensitivity <= 1e9:
            # the deployed σ, not only the given one: at σ = 1e10 × Δ the loss law's test failed a correct mechanism
            raise names.error(
                f"{names.sigma} × {names.noise_multiplier} (the deployed σ) must be in [1e-9, 1e9] times the "
                f"sensitivity, got {deployed:g}"
            )
        if self.calibration != "analytic" and self.sigma is not None:
            raise names.error(f"give one of {names.sigma} and {names.calibration} classical, not both")
        if self.target_column is not None and self.data is None:
            raise names.error(f"{names.target_column} applies to {names.data} only")

    @property
    def deploys_classical(self) -> bool:
        """Whether the deployed σ is the classical calibration (``classical-calibration`` is then a guarantee)."""
        return self.calibration == "classical"
