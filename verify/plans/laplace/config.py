"""The options of ``pdp-audit run laplace``, declared once: the claim, the mechanism, its data and the budget."""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.verify.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    SCALE,
    SEED_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.plans.gaussian.config import DATA_OPTION, DATASET_OPTION, TARGET_COLUMN_OPTION


@dataclass(frozen=True)
class LaplaceAuditConfig(AuditConfig):
    """The options of ``pdp-audit run laplace``: the claim, the mechanism, the data and the budget.

    The released value is the L1-clipped sum (rows clipped to L1 norm ``sensitivity`` = C, its global L1 sensitivity)
    or the count of the rows, plus b·Lap(0, 1) on each coordinate, b = ``noise_multiplier`` × (``scale``, or Δ/ε,
    the calibration of the pure claim).
    """

    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(
        CLAIM_DELTA,
        default=0.0,
        help="claimed δ (default: 0, pure DP)",
        range=Range(0, 1, open_high=True),
    )
    sensitivity: float = option(
        Option(
            "sensitivity",
            "float",
            1.0,
            "L1 clip bound C of the sum = its global L1 sensitivity (default: 1)",
            range=SCALE,
        )
    )
    query: str = option(
        Option(
            "query",
            "str",
            "sum",
            "count of rows, or sum of rows clipped to L1 norm = --sensitivity (default: sum)",
            choices=("sum", "count"),
        )
    )
    scale: float | None = option(
        Option("scale", "float", None, "Laplace scale b (default: Δ/ε, calibrated to the claim)", range=SCALE)
    )
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    dataset: str | None = option(DATASET_OPTION, help="shipped dataset (default: diabetes, unless --data)")
    data: str | None = option(DATA_OPTION)
    target_column: str | None = option(TARGET_COLUMN_OPTION)
    noise_multiplier: float = option(
        Option(
            "noise_multiplier",
            "float",
            1.0,
            "fault injection: the noise's scale times M, the claim kept (M < 1 breaks the calibration; default: 1)",
            range=Range(1e-3, 1e3),
        )
    )

    def resolve(self) -> None:
        if self.dataset is None and self.data is None:
            object.__setattr__(self, "dataset", "diabetes")

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.query == "count" and self.sensitivity != 1.0:
            raise names.error(f"{names.sensitivity} applies to {names.query} sum only (a count has sensitivity 1)")
        scale = self.sensitivity / self.epsilon if self.scale is None else self.scale
        if not 1e-9 <= scale * self.noise_multiplier / self.sensitivity <= 1e9:
            # beyond this range every privacy loss overflows or vanishes in double precision
            raise names.error(
                f"{names.scale} × {names.noise_multiplier} (the deployed scale) must be in [1e-9, 1e9] times the "
                f"sensitivity, got {scale * self.noise_multiplier:g}"
            )
        if self.target_column is not None and self.data is None:
            raise names.error(f"{names.target_column} applies to {names.data} only")
