"""The options of ``pdp-audit run privacy-report``, declared once: the mode and budget, the data, the calibration
and its overrides, the readings of printed formulas, and the Monte Carlo budgets."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pdp_audit.mechanisms.privacy_report import calibration as pr  # not the mechanism's module: its solver
from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    PAPER_CLAIMS,
    SCALE,
    SEED_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)

DATASETS = ("synthetic", "breast-cancer")
DEFAULT_BUDGETS = {"independent": (1.0,), "dependent": (0.2, 0.7, 0.1), "adaptive": (0.2, 0.6, 0.1, 0.1)}


def _scale(key: str, help_text: str, default: float | None = None) -> Option:
    return Option(key, "float", default, help_text, range=SCALE)


@dataclass(frozen=True)
class PrivacyReportAuditConfig(AuditConfig):
    """The options of ``pdp-audit run privacy-report``: the mode and budget, the data, the calibration and its
    overrides, the readings of printed formulas, and the Monte Carlo budgets."""

    mode: str = option(
        Option(
            "mode",
            "str",
            "dependent",
            "Algorithm 2 data-independent or data-dependent report, or Algorithm 4 (default: dependent)",
            choices=pr.MODES,
        )
    )
    budget: tuple[float, ...] | str | None = option(
        Option(
            "budget",
            "str",
            None,
            "ε₁[,ε₂,ε₃[,ε₄]] of ObjPert and of the report's releases (default: 1 | 0.2,0.7,0.1 | 0.2,0.6,0.1,0.1)",
        )
    )
    delta: float = option(CLAIM_DELTA)
    rho: float = option(
        Option(
            "rho",
            "float",
            0.01,
            "failure probability ρ of the report's bounds, in (0, 1/3) (the statements hold with probability 1 − 3ρ; "
            "default: 0.01)",
            range=Range(1e-300, 1 / 3, open_high=True, high_text="1/3"),
        )
    )
    dataset: str = option(
        Option(
            "dataset",
            "str",
            "synthetic",
            "synthetic logistic data ([RW] §4.1) or breast-cancer (bundled substitute for the UCI data) "
            "(default: synthetic)",
            choices=DATASETS,
        )
    )
    n: int | None = option(
        Option("n", "int", None, "rows of the synthetic data (default: 1000)", range=Range(20, 100_000))
    )
    d: int | None = option(
        Option(
            "d",
            "int",
            None,
            "dimension of the synthetic data, 1..100 (τ is exact up to d = 100; default: 50)",
            range=Range(1, 100),
        )
    )
    lam: float | None = option(
        _scale(
            "lambda",
            "ridge λ of ObjPert (default: Theorem 5's 2β/ε₁, raised to Algorithm 2's 2σ₃τ in the data-dependent mode)",
        )
    )
    lambda_inflation: float | None = option(_scale("lambda_inflation", "λ = c · 2β/ε₁ ([RW] Fig. 2's λ-inflation)"))
    sigma: float | None = option(_scale("sigma", "ObjPert's noise σ (default: Theorem 5)"))
    sigma2: float | None = option(_scale("sigma2", "Algorithm 5's noise σ₂ (default: calibrated to ε₂)"))
    sigma3: float | None = option(_scale("sigma3", "Algorithm 6's noise σ₃ (default: calibrated to ε₃)"))
    sigma4: float | None = option(_scale("sigma4", "Algorithm 3's noise σ₄ (default: calibrated to ε₄)"))
    calibration: str = option(
        Option(
            "calibration",
            "str",
            "analytic",
            "σ₂, σ₃, σ₄ by the analytic Gaussian mechanism ([RW] §4.2) or the theorems' classical bounds "
            "(default: analytic)",
            choices=("analytic", "classical"),
        )
    )
    tau_reading: str = option(
        Option(
            "tau_reading",
            "str",
            "algorithm6",
            "τ of Lemma 20: exact for (Z + Zᵀ)/√2, or the printed unit-GOE value (12 at d = 50, Q4) "
            "(default: algorithm6)",
            choices=("algorithm6", "unit-goe"),
        )
    )
    lambda_condition: str = option(
        Option(
            "lambda_condition",
            "str",
            "sigma3",
            "λ requirement 2σ₃τ (Algorithm 2) or 2σ₂τ as printed in Prop. 21 (Q3) (default: sigma3)",
            choices=("sigma3", "sigma2"),
        )
    )
    gradient_bound: str = option(
        Option(
            "gradient_bound",
            "str",
            "absolute",
            "ḡ with |f'(J^P)ᵀx| or the printed signed form (Q25; deploys it: q25-printed-gradient becomes a "
            "guarantee) (default: absolute)",
            choices=("absolute", "printed"),
        )
    )
    lambda_hat: str = option(
        Option(
            "lambda_hat",
            "str",
            "shifted",
            "λ̂ in Prop. 12 / Algorithm 4: the shifted lower bound or the raw release (Q28) (default: shifted)",
            choices=("shifted", "raw"),
        )
    )
    noise_scale2: float = option(
        _scale(
            "noise_scale2",
            "multiply the gradient noise actually added by this (< 1: a broken release; the accounting keeps σ₂)",
            1.0,
        )
    )
    noise_scale3: float = option(
        _scale(
            "noise_scale3",
            "multiply the Hessian noise actually added by this (< 1: a broken release; the accounting keeps σ₃)",
            1.0,
        )
    )
    repetitions: int = option(
        Option(
            "repetitions",
            "int",
            20_000,
            "repetitions of the whole pipeline ObjPert → report for the coverage checks (default: 2e4)",
            range=Range(100, 1e7),
            table="audit",
        )
    )
    trials: int = option(TRIALS_OPTION)
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    figures: bool = option(
        Option(
            "no_figures",
            "bool",
            False,
            "with --paper-claims, leave out the reproductions of [RW] Figures 2–6 (paper pages)",
            negate=True,
        )
    )
    paper_claims: bool = option(PAPER_CLAIMS)
    claim_epsilon: float | None = option(
        CLAIM_EPSILON,
        default=None,
        help="the total ε of the report's stages, if given: must equal the sum of --budget's ε's (a deployment "
        "file's [claim] epsilon, which certify requires)",
    )

    def resolved_budget(self) -> tuple[float, ...]:
        """The budget (ε₁[, ε₂, ε₃[, ε₄]]): ``--budget`` parsed, or the mode's default."""
        if self.budget is None:
            return DEFAULT_BUDGETS[self.mode] if self.mode in DEFAULT_BUDGETS else ()
        return pr.parse_budget(self.budget, self.mode)

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.budget is not None:
            try:
                pr.parse_budget(self.budget, self.mode)
            except ValueError as err:  # InputError: named with the command line's words, renamed here
                raise names.error(str(err).replace("--budget", names.budget).replace("--mode", names.mode)) from None
        # the claim is meant as the budget's total (a different one would be ignored); within 1e-9 is input only: the
        # pipeline-epsilon check decides the claim against the exact sum, undecided a hair below it
        if self.claim_epsilon is not None:
            stages = self.resolved_budget()
            total = math.fsum(stages)
            if not math.isclose(self.claim_epsilon, total, rel_tol=1e-9):
                spent = " + ".join(f"{e:g}" for e in stages)
                default = "" if self.budget is not None else f" (the default of {names.mode} {self.mode})"
                raise names.error(
                    f"{names.claim_epsilon} = {self.claim_epsilon:g} is not the total of the report's stages: "
                    f"{names.budget} is {spent} = {total:g}{default}; give {names.claim_epsilon} = {total:g}, or "
                    f"a {names.budget} whose ε's add up to {self.claim_epsilon:g}"
                )
        if self.dataset == "breast-cancer" and (self.n is not None or self.d is not None):
            raise names.error(
                f"{names.n} and {names.d} apply to {names.dataset} synthetic only (breast-cancer has n = 569, d = 30)"
            )
        if self.lam is not None and self.lambda_inflation is not None:
            raise names.error(f"give at most one of {names.lam} and {names.lambda_inflation}")
        if self.mode == "independent" and any(v is not None for v in (self.sigma2, self.sigma3, self.sigma4)):
            raise names.error(
                f"{names.sigma2}/{names.sigma3}/{names.sigma4} need {names.mode} dependent or adaptive "
                "(the data-independent report releases nothing)"
            )
        if self.mode == "dependent" and self.sigma4 is not None:
            raise names.error(f"{names.sigma4} needs {names.mode} adaptive (Algorithm 3 is part of Algorithm 4 only)")

    @property
    def readings(self) -> pr.Readings:
        """The readings of the printed formulas that the options select."""
        return pr.Readings(
            tau=self.tau_reading,
            lambda_condition=self.lambda_condition,
            gradient=self.gradient_bound,
            lambda_hat=self.lambda_hat,
        )
