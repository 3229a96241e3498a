"""The objective-perturbation audit's configuration, data and calibration.

:class:`ObjPertAuditConfig` holds the run's options (validated by :meth:`~ObjPertAuditConfig.validate`:
user input raises :class:`~pdp_audit.mechanisms.validation.InputError`), :func:`load_data` the data set checked
against Theorem 5's assumptions, :func:`calibrate` Theorem 5's (σ, λ) under both readings of σ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms import objpert as op
from pdp_audit.mechanisms.datasets import load_csv
from pdp_audit.mechanisms.glm_data import breast_cancer, margin_data
from pdp_audit.mechanisms.losses import GLMLoss, PseudoHuberLoss, get_loss
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.plans.validation import check_budget, check_claim, check_scales

LOSSES = ("logistic", "squared", "huber")
READINGS = ("printed", "variance")
#: Default Monte Carlo budget (releases per world) of the full DP audits; --trials overrides it.
DEFAULT_TRIALS = 100_000
#: Releases from D used to rank the candidate neighbours before the full audit.
DEFAULT_SEARCH_TRIALS = 4000
DEFAULT_SYNTHETIC = (200, 2)
#: The synthetic data, the random instances of (a) and the Figure 1 data do not change with --seed.
DATA_SEED = 2021
#: [RW] Figure 1's margin between the two classes (K17), also that of the synthetic data.
FIG1_MARGIN = 0.4
UNIT_BALL_TOL = 1e-9


@dataclass(frozen=True)
class ObjPertAuditConfig:
    """The options of one ``pdp-audit run objpert`` (claim, loss, data source, calibration and budgets)."""

    loss: str = "logistic"
    huber_kappa: float = 1.0
    epsilon: float = 1.0
    delta: float = 1e-5
    lam: float | None = None
    sigma: float | None = None
    calibration: str = "variance"
    theta_radius: float | None = None
    data: str | None = None
    target_column: str | None = None
    synthetic: tuple[int, int] | None = None
    dataset: str | None = None
    normalize_rows: bool = False
    rho: float = 0.05
    trials: int = DEFAULT_TRIALS
    search_trials: int = DEFAULT_SEARCH_TRIALS
    seed: int = 0
    alpha: float = 1e-6
    paper_claims: bool = False

    def validate(self) -> None:
        """Raise :class:`InputError` (one line, exit 2) for any option outside its valid range."""
        if self.loss not in LOSSES:
            raise InputError(f"--loss must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        check_claim(self.epsilon, self.delta, self.alpha, self.rho)
        if not (math.isfinite(self.huber_kappa) and self.huber_kappa > 0):
            raise InputError(f"--huber-kappa must be a finite number > 0, got {self.huber_kappa}")
        if self.lam is not None and not (math.isfinite(self.lam) and self.lam > 0):
            raise InputError(
                f"--lam must be a finite number > 0 (no built-in loss is strongly convex in θ: the ridge term "
                f"λ‖θ‖²/2 makes θ ↦ b(θ) a bijection), got {self.lam}"
            )
        check_scales(("--sigma", self.sigma), ("--lam", self.lam))
        if self.calibration not in READINGS:
            raise InputError(f"--calibration must be 'printed' or 'variance', got {self.calibration!r}")
        if self.theta_radius is not None and not (math.isfinite(self.theta_radius) and self.theta_radius > 0):
            raise InputError(f"--theta-radius must be a finite number > 0, got {self.theta_radius}")
        if self.loss == "squared" and self.theta_radius is None and self.sigma is None:
            raise InputError(
                "--loss squared: Theorem 5 needs a gradient bound ξ, infinite for the squared loss on R^d; "
                "give --theta-radius R (ξ = 2(1 + R)) or --sigma"
            )
        sources = sum(x is not None for x in (self.data, self.synthetic, self.dataset))
        if sources > 1:
            raise InputError("give at most one of --data, --synthetic, --dataset")
        if self.dataset is not None and self.dataset != "breast-cancer":
            raise InputError(f"--dataset must be 'breast-cancer', got {self.dataset!r}")
        if self.synthetic is not None:
            n, d = self.synthetic
            if not (2 <= n <= 100_000 and 1 <= d <= 100):
                raise InputError(f"--synthetic n,d needs 2 <= n <= 100000 and 1 <= d <= 100, got {n},{d}")
        if self.target_column is not None and self.data is None:
            raise InputError("--target-column applies to --data only")
        if not 200 <= self.search_trials <= 10**6:
            raise InputError(f"--search-trials must be in [200, 1e6], got {self.search_trials}")
        check_budget(self.trials, self.seed, max_trials=10**8)

    def loss_object(self) -> GLMLoss:
        """The loss object named by ``loss`` (pseudo-Huber of width ``huber_kappa`` for ``huber``)."""
        return PseudoHuberLoss(self.huber_kappa) if self.loss == "huber" else get_loss(self.loss)


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
                raise InputError(f"--data: {config.data} needs at least one feature column and a label column")
            X, y = dataset.features[:, :-1], dataset.features[:, -1]
            description = dataset.description.replace("feature columns", "columns (label: the last)")
        else:
            X, y, description = dataset.features, dataset.target, dataset.description
            if X.shape[1] < 1:
                raise InputError(f"--data: {config.data} has no feature column besides --target-column")
        if len(X) < 2:
            raise InputError(f"--data: {config.data} needs at least 2 data rows")
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
    sigmas: dict[str, float]  # Theorem 5's σ under each reading (empty when ξ = ∞)
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
