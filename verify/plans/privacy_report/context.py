"""What one privacy-report audit works on: its options, the data, the calibration and the sampled pipeline."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from pdp_audit.mechanisms import objpert as op
from pdp_audit.mechanisms import privacy_report as pr
from pdp_audit.mechanisms.glm_data import breast_cancer
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.plans.validation import MIN_DELTA, MIN_RHO, check_alpha, check_budget, check_scales

DATA_SEED = 2021
DATASETS = ("synthetic", "breast-cancer")
DEFAULT_BUDGETS = {"independent": (1.0,), "dependent": (0.2, 0.7, 0.1), "adaptive": (0.2, 0.6, 0.1, 0.1)}


@dataclass(frozen=True)
class PrivacyReportAuditConfig:
    """The options of ``pdp-audit run privacy-report``: the mode and budget, the data, the calibration and its
    overrides, the readings of printed formulas, and the Monte Carlo budgets."""

    mode: str = "dependent"
    budget: tuple[float, ...] | str | None = None
    delta: float = 1e-5
    rho: float = 0.01
    dataset: str = "synthetic"
    n: int | None = None
    d: int | None = None
    lam: float | None = None
    lambda_inflation: float | None = None
    sigma: float | None = None
    sigma2: float | None = None
    sigma3: float | None = None
    sigma4: float | None = None
    calibration: str = "analytic"
    tau_reading: str = "algorithm6"
    lambda_condition: str = "sigma3"
    gradient_bound: str = "absolute"
    lambda_hat: str = "shifted"
    noise_scale2: float = 1.0
    noise_scale3: float = 1.0
    repetitions: int = 20_000
    trials: int = 1_000_000
    seed: int = 0
    alpha: float = 1e-6
    figures: bool = True
    paper_claims: bool = False

    def resolved_budget(self) -> tuple[float, ...]:
        """The budget (ε₁[, ε₂, ε₃[, ε₄]]): ``--budget`` parsed, or the mode's default."""
        if self.budget is None:
            return DEFAULT_BUDGETS[self.mode] if self.mode in DEFAULT_BUDGETS else ()
        return pr.parse_budget(self.budget, self.mode)

    def validate(self) -> None:
        """One-line InputError naming the option when a value is out of its range."""
        if self.mode not in pr.MODES:
            raise InputError(f"--mode must be one of {pr.MODES}, got {self.mode!r}")
        self.resolved_budget()
        if not MIN_DELTA <= self.delta < 1:
            raise InputError(f"--claim-delta must be in [{MIN_DELTA:g}, 1), got {self.delta}")
        if not MIN_RHO <= self.rho < 1 / 3:
            raise InputError(
                f"--rho must be in [{MIN_RHO:g}, 1/3) (the statements hold with probability 1 − 3ρ), got {self.rho}"
            )
        check_alpha(self.alpha)
        if self.dataset not in DATASETS:
            raise InputError(f"--dataset must be one of {DATASETS}, got {self.dataset!r}")
        if self.dataset == "breast-cancer" and (self.n is not None or self.d is not None):
            raise InputError("--n and --d apply to --dataset synthetic only (breast-cancer has n = 569, d = 30)")
        if self.n is not None and not 20 <= self.n <= 100_000:
            raise InputError(f"--n must be an integer in [20, 1e5], got {self.n}")
        if self.d is not None and not 1 <= self.d <= 100:
            raise InputError(f"--d must be an integer in [1, 100] (τ is exact up to d = 100), got {self.d}")
        check_scales(
            ("--lambda", self.lam),
            ("--lambda-inflation", self.lambda_inflation),
            ("--sigma", self.sigma),
            ("--sigma2", self.sigma2),
            ("--sigma3", self.sigma3),
            ("--sigma4", self.sigma4),
            ("--noise-scale2", self.noise_scale2),
            ("--noise-scale3", self.noise_scale3),
        )
        if self.lam is not None and self.lambda_inflation is not None:
            raise InputError("give at most one of --lambda and --lambda-inflation")
        if self.mode == "independent" and any(v is not None for v in (self.sigma2, self.sigma3, self.sigma4)):
            raise InputError(
                "--sigma2/--sigma3/--sigma4 need --mode dependent or adaptive "
                "(the data-independent report releases nothing)"
            )
        if self.mode == "dependent" and self.sigma4 is not None:
            raise InputError("--sigma4 needs --mode adaptive (Algorithm 3 is part of Algorithm 4 only)")
        if self.calibration not in ("analytic", "classical"):
            raise InputError(f"--calibration must be 'analytic' or 'classical', got {self.calibration!r}")
        pr.Readings(
            tau=self.tau_reading,
            lambda_condition=self.lambda_condition,
            gradient=self.gradient_bound,
            lambda_hat=self.lambda_hat,
        ).validate()
        if not 100 <= self.repetitions <= 10**7:
            raise InputError(f"--repetitions must be in [100, 1e7], got {self.repetitions}")
        check_budget(self.trials, self.seed)

    @property
    def readings(self) -> pr.Readings:
        """The readings of the printed formulas that the options select."""
        return pr.Readings(
            tau=self.tau_reading,
            lambda_condition=self.lambda_condition,
            gradient=self.gradient_bound,
            lambda_hat=self.lambda_hat,
        )


@dataclass
class AuditData:
    """The audited dataset D, an individual z = (x_new, y_new) ∉ D from the same population, and the row of D
    whose gradient norm at the non-private fit is the median."""

    X: np.ndarray
    y: np.ndarray
    x_new: np.ndarray
    y_new: float
    median: int
    description: str


def load_data(dataset: str, n: int | None, d: int | None, lam_for_median: float = 1.0) -> AuditData:
    """The audited dataset D and an individual z ∉ D from the same population (fixed: independent of --seed)."""
    rng = np.random.default_rng(DATA_SEED)
    if dataset == "synthetic":
        n, d = n or 1000, d or 50
        X, y = pr.synthetic_logistic(n + 1, d, rng)
        desc = (
            f"synthetic logistic data ([RW] §4.1, K18): n = {n}, d = {d}, x ~ N(0, I) scaled to ‖x‖ = 1, "
            "y = ±1 with P(y = 1) = s(xᵀθ₀), θ₀ ~ N(0, I) (label rule not stated in the paper, Q39)"
        )
    else:
        X, y = breast_cancer("unit")
        perm = rng.permutation(len(y))
        X, y = X[perm], y[perm]
        desc = (
            "Wisconsin breast-cancer (scikit-learn; n = 568 + 1 held out, d = 30; z-scored, rows scaled to ‖x‖ = 1) "
            "— a bundled substitute for the UCI credit-card and kidney data of [RW] §4.2 and App. B, "
            "which are not shipped"
        )
    X_d, y_d, x_new, y_new = X[:-1], y[:-1], X[-1], float(y[-1])
    obj = op.Objective(X_d, y_d, lam_for_median, "logistic")
    theta = op.solve_batch(X_d, y_d, lam_for_median, np.zeros((1, X.shape[1])))[0]
    grad = np.abs(obj.loss.f1(X_d @ theta, y_d)) * np.linalg.norm(X_d, axis=1)
    median = int(np.argsort(grad, kind="stable")[len(grad) // 2])
    return AuditData(X_d, y_d, x_new, y_new, median, desc)


def calibration_for(config: PrivacyReportAuditConfig, d: int) -> pr.ReportCalibration:
    """The pipeline's constants for ``config`` at dimension ``d``
    (:func:`pdp_audit.mechanisms.privacy_report.calibrate`), with the user's noise scales where given (λ then raised to
    the requirement they imply)."""
    budget = config.resolved_budget()
    cal = pr.calibrate(
        config.mode,
        budget,
        d,
        config.delta,
        config.rho,
        lam=config.lam,
        lambda_inflation=config.lambda_inflation,
        rule=config.calibration,
        readings=config.readings,
        noise_scale2=config.noise_scale2,
        noise_scale3=config.noise_scale3,
    )
    overrides = {
        k: v
        for k, v in (
            ("sigma", config.sigma),
            ("sigma2", config.sigma2),
            ("sigma3", config.sigma3),
            ("sigma4", config.sigma4),
        )
        if v is not None
    }
    if overrides:
        cal = replace(cal, **overrides)
        if config.lam is None and config.lambda_inflation is None:
            cal = replace(cal, lam=max(cal.lam_objpert, cal.lambda_requirement))
    return cal


@dataclass
class Context:
    """One audit run's inputs: the options, the data, the calibration, the Monte Carlo repetitions of the whole
    pipeline (:mod:`pdp_audit.audits.privacy_report_trials`) and one typical release."""

    config: PrivacyReportAuditConfig
    data: AuditData
    cal: pr.ReportCalibration
    trials: dict[str, np.ndarray]
    typical: pr.Release
