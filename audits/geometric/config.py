"""The options of ``pdp-audit run geometric``, declared once: the claim, the mechanism, its data and the budget."""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_EPSILON,
    DATA_OPTION,
    DATASET_OPTION,
    SCALE,
    SEED_OPTION,
    TARGET_COLUMN_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.core.pure_dp_options import PURE_CLAIM_DELTA, SCALE_MULTIPLIER, check_deployed_scale

#: The column a discrete audit reads (a header name of --data, or a shipped dataset's feature name).
COLUMN_OPTION = Option("column", "str", None, "the column released (default: the first feature column)")


@dataclass(frozen=True)
class GeometricAuditConfig(AuditConfig):
    """The options of ``pdp-audit run geometric``: the claim, the mechanism, the data and the budget.

    The released value is the count of the rows, or the sum of ``column`` rounded to integers and clamped to
    [−C, C] (C = ``sensitivity``, a whole number), plus two-sided geometric noise of scale b = ``noise_multiplier``
    × (``scale``, or Δ/ε, the calibration of the pure claim) (:mod:`pdp_audit.mechanisms.geometric`).
    """

    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(PURE_CLAIM_DELTA)
    query: str = option(
        Option(
            "query",
            "str",
            "sum",
            "count of rows, or sum of --column rounded to integers and clamped to [-C, C] (default: sum)",
            choices=("sum", "count"),
        )
    )
    sensitivity: int | None = option(
        Option(
            "sensitivity",
            "int",
            None,
            "clamp bound C of the rounded values, a whole number = the sum's sensitivity (default: 20)",
            range=Range(1, 1e12),
        )
    )
    column: str | None = option(COLUMN_OPTION)
    scale: float | None = option(
        Option("scale", "float", None, "the noise's scale b, P(Z=k) ∝ e^(-|k|/b) (default: Δ/ε)", range=SCALE)
    )
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    dataset: str | None = option(DATASET_OPTION, help="shipped dataset, its raw values (default: wine, unless --data)")
    data: str | None = option(DATA_OPTION, help="your own numeric CSV with a header row (values rounded, clamped)")
    target_column: str | None = option(TARGET_COLUMN_OPTION)
    noise_multiplier: float = option(SCALE_MULTIPLIER)

    def resolve(self) -> None:
        if self.dataset is None and self.data is None:
            object.__setattr__(self, "dataset", "wine")
        if self.query == "sum" and self.sensitivity is None:
            object.__setattr__(self, "sensitivity", 20)

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.query == "count" and self.sensitivity is not None:
            raise names.error(f"{names.sensitivity} applies to {names.query} sum only (a count has sensitivity 1)")
        if self.query == "count" and self.column is not None:
            raise names.error(f"{names.column} applies to {names.query} sum only")
        sensitivity = 1 if self.query == "count" else self.sensitivity
        assert sensitivity is not None  # a sum's: set by resolve()
        scale = sensitivity / self.epsilon if self.scale is None else self.scale
        check_deployed_scale(names, scale, self.noise_multiplier, sensitivity)
        if self.target_column is not None and self.data is None:
            raise names.error(f"{names.target_column} applies to {names.data} only")
