"""What one privacy-report audit works on: its options, the data, the calibration and the sampled pipeline."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pdp_audit.audits.privacy_report.config import PrivacyReportAuditConfig
from pdp_audit.mechanisms.glm_data import breast_cancer
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.privacy_report import mechanism as pr

DATA_SEED = 2021


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
    grad = np.abs(obj.glm_loss.f1(X_d @ theta, y_d)) * np.linalg.norm(X_d, axis=1)
    median = int(np.argsort(grad, kind="stable")[len(grad) // 2])
    return AuditData(X_d, y_d, x_new, y_new, median, desc)


def calibration_for(config: PrivacyReportAuditConfig, d: int) -> pr.ReportCalibration:
    """The pipeline's constants for ``config`` at dimension ``d``
    (:func:`pdp_audit.mechanisms.privacy_report.mechanism.calibrate`), with the user's noise scales where
    given (λ then raised to
    the requirement they imply)."""
    budget = config.resolved_budget()
    choices = pr.CalibrationChoices(
        lam=config.lam,
        lambda_inflation=config.lambda_inflation,
        rule=config.calibration,
        readings=config.readings,
        noise_scale2=config.noise_scale2,
        noise_scale3=config.noise_scale3,
    )
    cal = pr.calibrate(config.mode, budget, d, config.delta, config.rho, choices=choices)
    overrides: dict[str, Any] = {
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
    pipeline (:mod:`pdp_audit.audits.privacy_report.trials`) and one typical release."""

    config: PrivacyReportAuditConfig
    data: AuditData
    cal: pr.ReportCalibration
    trials: dict[str, np.ndarray]
    typical: pr.Release
