"""The options of ``pdp-audit run laplace``, declared once: the claim, the mechanism, its data and the budget."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

#: ``--query``: the released statistic.
QUERIES = ("sum", "count", "mean", "histogram")
#: Histogram options apply to ``--query histogram`` only; ``--mean-split`` to ``--query mean``.
HISTOGRAM_KEYS = ("column", "bins", "bin_low", "bin_high")
BINS = Range(1, 10_000)
EDGE = Range(-1e100, 1e100)


@dataclass(frozen=True)
class LaplaceAuditConfig(AuditConfig):
    """The options of ``pdp-audit run laplace``: the claim, the mechanism, the data and the budget.

    The released value is the L1-clipped sum (rows clipped to L1 norm ``sensitivity`` = C, its global L1 sensitivity)
    or the count of the rows, plus b·Lap(0, 1) on each coordinate, b = ``noise_multiplier`` × (``scale``, or Δ/ε,
    the calibration of the pure claim); or the mean, released as (noisy clipped sum, noisy count) with a share
    ``mean_split`` of ε on the sum; or the histogram of ``column`` over ``bins`` public bins between ``bin_low`` and
    ``bin_high`` (:mod:`pdp_audit.mechanisms.laplace_queries`).
    """

    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(PURE_CLAIM_DELTA)
    sensitivity: float = option(
        Option(
            "sensitivity",
            "float",
            1.0,
            "L1 clip bound C of the sum = its global L1 sensitivity (default: 1)",
            range=SCALE,
        )
    )
    query: Literal["sum", "count", "mean", "histogram"] = option(
        Option(
            "query",
            "str",
            "sum",
            "count of rows; sum of rows clipped to L1 norm = --sensitivity; mean, released as (noisy clipped "
            "sum, noisy count); or histogram of --column (default: sum)",
            choices=QUERIES,
        )
    )
    mean_split: float | None = option(
        Option(
            "mean_split",
            "float",
            None,
            "--query mean: the share w of ε spent on the sum, 1 − w on the count (default: 0.5)",
            range=Range(0, 1, open_low=True, open_high=True),
        )
    )
    column: str | None = option(
        Option("column", "str", None, "--query histogram: the column binned (default: the first feature column)")
    )
    bins: int | None = option(
        Option("bins", "int", None, "--query histogram: number of equal-width public bins (default: 10)", range=BINS)
    )
    bin_low: float | None = option(
        Option(
            "bin_low",
            "float",
            None,
            "--query histogram: lower edge of the bins, public (values below count in the first bin; default -3 "
            "on a shipped dataset's z-scores, required with --data)",
            range=EDGE,
        )
    )
    bin_high: float | None = option(
        Option(
            "bin_high",
            "float",
            None,
            "--query histogram: upper edge of the bins (values above count in the last bin; default 3 on a "
            "shipped dataset's z-scores, required with --data)",
            range=EDGE,
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
    noise_multiplier: float = option(SCALE_MULTIPLIER)

    def resolve(self) -> None:
        if self.dataset is None and self.data is None:
            object.__setattr__(self, "dataset", "diabetes")
        if self.query == "mean" and self.mean_split is None:
            object.__setattr__(self, "mean_split", 0.5)
        if self.query == "histogram" and self.bins is None:
            object.__setattr__(self, "bins", 10)
        if self.query == "histogram" and self.data is None:
            for key, default in (("bin_low", -3.0), ("bin_high", 3.0)):
                if getattr(self, key) is None:
                    object.__setattr__(self, key, default)

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.query in ("count", "histogram") and self.sensitivity != 1.0:
            raise names.error(
                f"{names.sensitivity} applies to {names.query} sum and mean only (a {self.query} has sensitivity 1)"
            )
        self._check_query_options(names)
        scale = self.sensitivity / self.epsilon if self.scale is None else self.scale
        check_deployed_scale(names, scale, self.noise_multiplier, self.sensitivity)
        if self.target_column is not None and self.data is None:
            raise names.error(f"{names.target_column} applies to {names.data} only")

    def _check_query_options(self, names: OptionNames) -> None:
        """The mean's and the histogram's own options, given only with their query, and the histogram's edges."""
        if self.query != "mean" and self.mean_split is not None:
            raise names.error(f"{names.mean_split} applies to {names.query} mean only")
        if self.query == "mean" and self.scale is not None:
            raise names.error(
                f"{names.scale} applies to {names.query} sum, count and histogram (the mean's two scales are "
                f"calibrated to the claim by {names.mean_split})"
            )
        if self.query != "histogram":
            given = [key for key in HISTOGRAM_KEYS if getattr(self, key) is not None]
            if given:
                raise names.error(f"{getattr(names, given[0])} applies to {names.query} histogram only")
            return
        if self.bin_low is None or self.bin_high is None:
            raise names.error(
                f"{names.query} histogram on {names.data} needs {names.bin_low} and {names.bin_high}: the bins must be "
                "public, never read from the data"
            )
        if not self.bin_low < self.bin_high:
            raise names.error(
                f"{names.bin_low} must be below {names.bin_high}, got {self.bin_low:g} and {self.bin_high:g}"
            )
