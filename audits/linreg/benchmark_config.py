"""The options of ``pdp-audit benchmark linreg``, declared once (:mod:`pdp_audit.verify.core.config`): the command line
and :func:`pdp_audit.audits.linreg.benchmark.run_benchmark` build the same checked config."""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.mechanisms.linreg.data import REGRESSION_DATASETS
from pdp_audit.verify.core.config import SEED_OPTION, AuditConfig, Option, OptionNames, Range, option


def _known_datasets(datasets: tuple[str, ...]) -> str | None:
    unknown = [d for d in datasets if d not in REGRESSION_DATASETS]
    if unknown:
        return f"has unknown {', '.join(unknown)}; choose from {', '.join(sorted(REGRESSION_DATASETS))} or none"
    return None


@dataclass(frozen=True)
class BenchmarkConfig(AuditConfig):
    """Options of ``pdp-audit benchmark linreg`` (module notes), checked on construction."""

    datasets: tuple[str, ...] = tuple(REGRESSION_DATASETS)
    data: str | None = option(
        Option("data", "str", None, "also benchmark your own numeric CSV (needs --target-column)")
    )
    target_column: str | None = option(Option("target_column", "str", None, "CSV column holding the response y"))
    folds: int = option(Option("folds", "int", 5, "cross-validation folds (default: 5)", range=Range(2, 100)))
    draws: int = option(Option("draws", "int", 10, "releases per fold and method (default: 10)", range=Range(1, 1e4)))
    seed: int = option(SEED_OPTION)

    def check(self, names: OptionNames) -> None:
        why = _known_datasets(self.datasets)
        if why:
            raise names.error(f"--datasets {why}")
        if not self.datasets and self.data is None:
            raise names.error(f"--datasets none needs {names.data}")
        if self.data is not None and self.target_column is None:
            raise names.error(f"{names.data} needs {names.target_column} (the response y of the regression)")
        if self.data is None and self.target_column is not None:
            raise names.error(f"{names.target_column} applies to {names.data} only")
