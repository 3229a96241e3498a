"""The objective-perturbation audit's configuration, data and calibration.

:class:`ObjPertAuditConfig` (:mod:`pdp_audit.audits.objpert.config`) holds the run's options, checked on
construction; :func:`load_data` the data set checked against Theorem 5's assumptions, :func:`calibrate` Theorem 5's
(σ, λ) under both readings of σ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.objpert.config import (
    DEFAULT_SYNTHETIC,
    READINGS,
    ObjPertAuditConfig,
    Reading,
    check_data_width,
)
from pdp_audit.mechanisms.glm_data import breast_cancer, margin_data
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.verify.inputs.datasets import load_csv
from pdp_audit.verify.inputs.validation import InputError, shown

#: The synthetic data, the random instances of (a) and the Figure 1 data do not change with --seed.
DATA_SEED = 2021
#: [RW] Figure 1's margin between the two classes (K17), also that of the synthetic data.
FIG1_MARGIN = 0.4
UNIT_BALL_TOL = 1e-9


def synthetic_data(n: int, d: int, loss: str, seed: int = DATA_SEED) -> tuple[np.ndarray, np.ndarray, str]:
    """(X, y, description): [RW] Figure 1's generator (uniform in the unit ball, two classes m = 0.4 apart, K17);
    for the regression losses the label is wᵀx + N(0, 0.1²), clipped to [−1, 1]."""
    rng = np.random.default_rng(seed)
    X, y, w = margin_data(n, rng, margin=FIG1_MARGIN, d=d)
    if loss != "logistic":
        y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -1.0, 1.0)
        return (
            X,
            y,
            f"synthetic: {n} rows uniform in the unit ball of R^{d} (margin 0.4), y = wᵀx + N(0, 0.01) clipped to "
            "[−1, 1]",
        )
    return (
        X,
        y,
        f"synthetic: {n} rows uniform in the unit ball of R^{d}, two classes ±1 separated by a margin 0.4 "
        "([RW] Fig. 1 data)",
    )


def load_data(config: ObjPertAuditConfig) -> tuple[np.ndarray, np.ndarray, str]:
    """(X, y, description), validated against Theorem 5's assumptions ‖x‖ ≤ 1 and the loss's labels."""
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        if dataset.target is None:  # the last column is the label
            if dataset.features.shape[1] < 2:
                raise InputError(f"--data: {shown(config.data)} needs at least one feature column and a label column")
            X, y = dataset.features[:, :-1], dataset.features[:, -1]
            description = dataset.description.replace("feature columns", "columns (label: the last)")
        else:
            X, y, description = dataset.features, dataset.target, dataset.description
            if X.shape[1] < 1:
                raise InputError(f"--data: {shown(config.data)} has no feature column besides --target-column")
        if len(X) < 2:
            raise InputError(f"--data: {shown(config.data)} needs at least 2 data rows")
        check_data_width(config.data, dataset)
    elif config.dataset == "breast-cancer":
        X, y = breast_cancer("unit")
        description = (
            "breast-cancer (Wisconsin, n = 569, d = 30): z-scored, rows scaled to unit norm ([LR] K27), benign = +1"
        )
    else:
        n, d = config.synthetic or DEFAULT_SYNTHETIC
        X, y, description = synthetic_data(n, d, config.loss)
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise InputError("--data: the data contain non-finite values (nan or inf)")
    norms = np.linalg.norm(X, axis=1)
    if config.normalize_rows:
        X = X / np.where(norms > 0, norms, 1.0)[:, None]
        description += "; every row scaled to unit L2 norm (--normalize-rows)"
    elif np.any(norms > 1 + UNIT_BALL_TOL):
        bad = int(np.sum(norms > 1 + UNIT_BALL_TOL))
        raise InputError(
            f"--data: {bad} of {len(X)} rows have L2 norm > 1 (largest {norms.max():.4g}); Theorem 5 assumes "
            f"‖x‖ ≤ 1: rescale the features or pass --normalize-rows"
        )
    if config.loss == "logistic" and not np.all((y == 1) | (y == -1)):
        values = ", ".join(f"{v:g}" for v in np.unique(y)[:5])
        raise InputError(f"--data: labels must be -1 or +1 for --loss logistic, found {values}")
    if config.loss != "logistic" and np.any(np.abs(y) > 1):
        raise InputError(
            f"--data: labels must satisfy |y| <= 1 for --loss {config.loss} (Theorem 5's assumption), "
            f"largest |y| = {np.abs(y).max():.4g}"
        )
    return X, y, description


@dataclass(frozen=True)
class Calibration:
    """Theorem 5's constants for the run: λ used and λ = 2β/ε, ξ, β, σ under each reading, the released σ."""

    lam: float
    lam_theorem5: float
    xi: float  # inf for the squared loss without a radius
    beta: float
    sigmas: dict[Reading, float]  # Theorem 5's σ under each reading (empty when ξ = ∞)
    sigma: float  # the σ of the released mechanism (per-instance view, Theorem 9)
    sigma_source: str


def calibrate(config: ObjPertAuditConfig) -> Calibration:
    """[RW] Theorem 5's λ ≥ 2β/ε and σ under both readings of σ (ledger Q1), and the released σ."""
    loss = config.loss_object()
    radius = config.theta_radius if config.theta_radius is not None else math.inf
    xi, beta = loss.gradient_bound(radius), loss.hessian_bound()
    lam5 = op.theorem5_lambda(config.epsilon, beta)
    lam = config.lam if config.lam is not None else lam5
    sigmas = {r: op.theorem5_sigma(config.epsilon, config.delta, xi, r) for r in READINGS} if math.isfinite(xi) else {}
    if config.sigma is not None:
        sigma, source = config.sigma, "user (--sigma)"
    else:
        sigma, source = sigmas[config.calibration], f"Theorem 5, {config.calibration} reading (ξ = {xi:g})"
    return Calibration(lam, lam5, xi, beta, sigmas, sigma, source)


def check_hessian(X: np.ndarray, y: np.ndarray, lam: float, loss) -> np.ndarray:
    """The non-private solution, after checking that ∇²J there is numerically non-singular (else InputError)."""
    obj = op.Objective(X, y, lam, loss)
    try:
        theta, _ = op.reference_solution(obj, 1e-10, 200)
    except op.ObjPertSolverError as err:
        raise InputError(f"the non-private problem could not be solved ({err}); check --lam and the data") from None
    ev = np.linalg.eigvalsh(obj.hessian(theta[None])[0])
    if not (ev[0] > 0 and ev[0] >= 1e-12 * ev[-1]):
        raise InputError(
            f"the Hessian of J at the non-private solution is numerically singular (eigenvalues "
            f"{ev[0]:.3g} .. {ev[-1]:.3g}); increase --lam"
        )
    return theta
