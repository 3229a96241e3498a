"""The options of ``pdp-audit run randomized-response``, declared once: the claim, the mechanism, its data and the
budget."""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_EPSILON,
    DATA_OPTION,
    DATASET_OPTION,
    SEED_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.core.pure_dp_options import PURE_CLAIM_DELTA


@dataclass(frozen=True)
class RandomizedResponseAuditConfig(AuditConfig):
    """The options of ``pdp-audit run randomized-response``: the claim, the mechanism, the data and the budget.

    Every individual reports their value of ``column`` (a category in {0, …, k − 1}, k = ``categories``) with
    probability p, else one of the k − 1 others uniformly; p = ``keep_probability``, or e^ε/(e^ε + k − 1), the
    calibration of the pure claim, with its randomization ε_r divided by ``noise_multiplier``
    (:mod:`pdp_audit.mechanisms.randomized_response`).
    """

    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(PURE_CLAIM_DELTA)
    categories: int | None = option(
        Option(
            "categories",
            "int",
            None,
            "number k of categories, public: values are 0..k-1 (default: a shipped dataset's classes; required with "
            "--data)",
            range=Range(2, 1e6),
        )
    )
    column: str | None = option(
        Option(
            "column",
            "str",
            None,
            "the categorical column reported (default: a shipped dataset's class label; required with --data)",
        )
    )
    keep_probability: float | None = option(
        Option(
            "keep_probability",
            "float",
            None,
            "probability p of reporting the true value (default: e^ε/(e^ε+k-1), calibrated to the claim)",
            range=Range(0, 1, open_low=True, open_high=True),
        )
    )
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    dataset: str | None = option(DATASET_OPTION, help="shipped dataset (default: wine, unless --data)")
    data: str | None = option(DATA_OPTION, help="your own numeric CSV with a header row (categories as 0..k-1)")
    noise_multiplier: float = option(
        Option(
            "noise_multiplier",
            "float",
            1.0,
            "fault injection: the randomization's ε_r divided by M, the claim kept (M < 1 reports the truth too "
            "often; default: 1)",
            range=Range(1e-3, 1e3),
        )
    )

    def resolve(self) -> None:
        if self.dataset is None and self.data is None:
            object.__setattr__(self, "dataset", "wine")

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.data is not None and (self.column is None or self.categories is None):
            raise names.error(
                f"{names.data} needs {names.column} and {names.categories}: the column reported and its number of "
                "categories (public, never read from the data)"
            )
        if self.column is not None and self.categories is None:
            raise names.error(f"{names.column} needs {names.categories} (the category set is public)")
        if self.keep_probability is not None and self.categories is not None:
            if not self.keep_probability > 1 / self.categories:
                raise names.error(
                    f"{names.keep_probability} must be above 1/k = {1 / self.categories:g} (k = {names.categories}): "
                    f"at or below it the report carries no information for, or against, the truth"
                )
        eps_r = self.epsilon / self.noise_multiplier
        if eps_r > 700:
            # e^{ε_r} overflows double precision beyond ~709
            raise names.error(
                f"{names.epsilon} / {names.noise_multiplier} (the deployed randomization) must be at most 700, "
                f"got {eps_r:g}"
            )
