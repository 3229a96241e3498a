"""The options of ``pdp-audit run {output-perturbation, ops, adaops, adassp, ssp}``, declared once.

The five linear-regression audits share one config; each exposes the options that apply to its mechanism (its
:class:`~pdp_audit.verify.core.plan.AuditPlan` hides the others).
"""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.mechanisms.linreg.data import REGRESSION_DATASETS
from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    PAPER_CLAIMS,
    POSITIVE,
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
from pdp_audit.verify.inputs.datasets import check_width

MECHANISMS = ("output-perturbation", "ops", "adaops", "adassp", "ssp")
CALIBRATIONS = ("balanced", "diffuse", "concentrated", "conservative")
#: The smallest n of [LR] Figure 3's design (d = 10): XᵀX is invertible and the MLE's error finite from d + 2 rows.
FIGURE3_MIN_N = 12

#: The options of one mechanism only (the plan of every other mechanism hides them).
SPECIFIC = {
    "output-perturbation": ("lam", "sigma"),
    "ops": ("calibration", "gamma", "lam"),
    "adaops": ("algorithm", "kappa", "printed"),
    "adassp": ("rho", "printed", "figure_n"),
    "ssp": (),
}


#: The most features of ``--synthetic`` (d), and of ``--data``.
MAX_SYNTHETIC_D = 200


def check_data_width(path: str, dataset) -> None:
    """``--data``'s feature columns (θ's coordinates) at most :data:`MAX_SYNTHETIC_D` (InputError)."""
    check_width(path, dataset.features, MAX_SYNTHETIC_D)


def _synthetic_size(size: tuple[int, int]) -> str | None:
    n, d = size
    if not (3 <= d + 2 <= n <= 10**6 and 1 <= d <= MAX_SYNTHETIC_D):
        return f"needs 1 <= d <= {MAX_SYNTHETIC_D} and d + 2 <= n <= 1e6"
    return None


@dataclass(frozen=True)
class LinregAuditConfig(AuditConfig):
    """Parameters of one ``pdp-audit run <linear-regression mechanism>``."""

    mechanism: str
    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(CLAIM_DELTA)
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    dataset: str = option(
        Option(
            "dataset",
            "str",
            "diabetes",
            "bundled regression data set (default: diabetes)",
            choices=tuple(sorted(REGRESSION_DATASETS)),
            group="data",
        )
    )
    data: str | None = option(
        Option("data", "str", None, "your own numeric CSV with a header row (needs --target-column)", group="data")
    )
    target_column: str | None = option(Option("target_column", "str", None, "CSV column holding the response y"))
    synthetic: tuple[int, int] | None = option(
        Option(
            "synthetic",
            "size",
            None,
            "synthetic linear Gaussian data, e.g. 500,5 ([LR] Fig. 3 design)",
            check=_synthetic_size,
            group="data",
            metavar="n,d",
        )
    )
    search: int = option(
        Option(
            "search",
            "int",
            128,
            "candidate neighbours scored by the adversarial search (default: 128)",
            range=Range(1, 10_000),
            table="audit",
        )
    )
    noise_multiplier: float = option(
        Option(
            "noise_multiplier",
            "float",
            1.0,
            "fault injection: multiply every noise standard deviation by M (M < 1 breaks the calibration; default: 1)",
            range=SCALE,
        )
    )
    reproduce: bool = option(
        Option(
            "no_reproduce",
            "bool",
            False,
            "skip the reproduced figures (output-perturbation, ops and adassp reproduce some)",
            negate=True,
        )
    )
    printed: bool = option(
        Option(
            "printed",
            "bool",
            False,
            "run the algorithm as printed (adaops [PDP]: λ_n = min{0, ·}, Q5; [LR]: eq. (8) product, Q42; adassp: "
            "release the printed output (XᵀX + λI)^{-1}X̂y, Q51)",
        )
    )
    lam: float | None = option(
        Option(
            "lam",
            "float",
            None,
            "ridge λ (output-perturbation: default 1, as [PDP] Fig. 1; ops: overrides the calibration's λ)",
            range=SCALE,
        )
    )
    sigma: float | None = option(
        Option(
            "sigma",
            "float",
            None,
            "noise σ (default: analytic calibration to the claim at the global sensitivity bound)",
            range=SCALE,
        )
    )
    gamma: float | None = option(Option("gamma", "float", None, "override γ of the calibration", range=SCALE))
    calibration: str = option(
        Option(
            "calibration",
            "str",
            "balanced",
            "[LR] App. F calibration (default: balanced)",
            choices=CALIBRATIONS,
        )
    )
    algorithm: str = option(
        Option(
            "algorithm",
            "str",
            "lr",
            "[LR] Algorithm 1 (default) or [PDP] Algorithm 1",
            choices=("lr", "pdp"),
        )
    )
    kappa: float | None = option(
        Option(
            "kappa",
            "float",
            None,
            "κ of [PDP] Algorithm 1 (default: its largest allowed value)",
            range=POSITIVE,
        )
    )
    rho: float = option(Option("rho", "float", 0.05, "ρ of step 3 (default: 0.05)", range=RHO))
    figure_n: int | None = option(
        Option(
            "figure_n",
            "int",
            None,
            "reproduce [LR] Figure 3 at this n only (with --paper-claims; default: n = 1e2, 1e3, …, 1e6); a sweep "
            "over it draws the figure",
            range=Range(FIGURE3_MIN_N, 1e6),
        )
    )
    paper_claims: bool = option(PAPER_CLAIMS)

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.mechanism not in MECHANISMS:
            raise names.error(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        if self.data is not None and self.target_column is None:
            raise names.error(f"{names.data} needs {names.target_column} (the response y of the regression)")
        if self.data is None and self.target_column is not None:
            raise names.error(f"{names.target_column} applies to {names.data} only")
        if self.figure_n is not None and not (self.paper_claims and self.reproduce):
            raise names.error(
                f"{names.figure_n} reproduces [LR] Figure 3: it needs {names.paper_claims}, and cannot skip the "
                f"reproductions ({names.reproduce})"
            )
