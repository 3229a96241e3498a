"""Linear (ridge) and logistic regression mechanisms of [PDP] §3–4 and [LR]: Gaussian output
perturbation, One-Posterior-Sample (OPS), their closed-form pDP/DP statements as printed, the four
(ε, δ) calibrations of [LR] Appendix F, and the non-private / trivial baselines.

The adaptive, multi-stage algorithms (AdaOPS of [PDP] Alg. 1 and [LR] Alg. 1, SSP, AdaSSP) live in
:mod:`mechanisms.linreg_adaptive`; data in :mod:`mechanisms.linreg_data`.

Conventions.  A neighbouring pair is built from a *base* data set ``Z = (X, y)`` that does not contain
the target ``z = (x, y_z)``; ``[Z, z]`` appends it.  ``kind="add"``: ``D = Z, D' = [Z, z]``;
``kind="remove"``: ``D = [Z, z], D' = Z`` ([RW] §2.1).  Every closed form below takes the base ``Z``
and the target, as in [PDP] Theorem 4.1.  Ridge regression minimises
``sum_i (y_i - x_i^T θ)^2 + λ||θ||^2`` so ``θ̂_λ = (X^T X + λI)^{-1} X^T y``; OPS samples
``p(θ) ∝ exp(-(γ/2)(||y - Xθ||^2 + λ||θ||^2)) = N(θ̂_λ, (X^T X + λI)^{-1}/γ)`` ([LR] Lemma 8(2)).

Privacy losses are computed from Gaussian log-densities of the actual samplers, never from the closed
forms, so that the closed forms can be audited against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import linalg, optimize, special

from mechanisms.base import RegisteredMechanism, World, check_world
from mechanisms.linreg_data import check_design, preprocess, synthetic_regression
from mechanisms.validation import InputError, probability
from mechanisms.validation import nonnegative as check_nonnegative
from mechanisms.validation import positive as check_positive

Loss = Literal["ridge", "logistic"]
LOG_2PI = float(np.log(2.0 * np.pi))


# --- validation -----------------------------------------------------------------------------------


def check_delta(delta: float, name: str = "delta") -> float:
    return probability(name, delta)


# --- Gaussian laws parametrised by their precision -----------------------------------------------


@dataclass(frozen=True)
class GaussianLaw:
    """``N(mean, P^{-1})`` stored through the lower Cholesky factor ``L`` of the precision ``P = L L^T``.

    Sampling ``mean + L^{-T} ξ`` has covariance ``L^{-T} L^{-1} = P^{-1}`` without ever inverting ``P``
    (which is ill-conditioned when the Gram matrix is), and the log-density needs only ``(o - mean)^T L``.
    """

    mean: np.ndarray
    chol: np.ndarray

    @classmethod
    def from_precision(cls, mean: np.ndarray, precision: np.ndarray) -> "GaussianLaw":
        precision = 0.5 * (np.asarray(precision, float) + np.asarray(precision, float).T)
        try:
            chol = np.linalg.cholesky(precision)
        except np.linalg.LinAlgError:
            raise InputError("precision matrix must be positive definite") from None
        return cls(np.asarray(mean, float), chol)

    @property
    def dim(self) -> int:
        return self.mean.shape[0]

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        xi = rng.standard_normal((int(size), self.dim))
        return self.mean + linalg.solve_triangular(self.chol, xi.T, lower=True, trans="T").T

    def log_density(self, outputs: np.ndarray) -> np.ndarray:
        w = (np.asarray(outputs, float) - self.mean) @ self.chol
        return -0.5 * np.einsum("ij,ij->i", w, w) + np.sum(np.log(np.diag(self.chol))) - 0.5 * self.dim * LOG_2PI


# --- neighbouring data sets -----------------------------------------------------------------------


@dataclass(frozen=True)
class Neighbours:
    """Base data ``Z = (X, y)`` without the target, the target ``z = (x, yz)``, and the direction."""

    X: np.ndarray
    y: np.ndarray
    x: np.ndarray
    yz: float
    kind: Literal["add", "remove"]

    def __post_init__(self) -> None:
        check_design(self.X, self.y)
        if np.shape(self.x) != (np.shape(self.X)[1],):
            raise InputError(f"target x must have shape ({np.shape(self.X)[1]},), got {np.shape(self.x)}")
        if self.kind not in ("add", "remove"):
            raise InputError(f"kind must be 'add' or 'remove', got {self.kind!r}")

    @classmethod
    def add(cls, X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float) -> "Neighbours":
        """``D = (X, y)``, ``D' = D ∪ {(x, yz)}``."""
        return cls(np.asarray(X, float), np.asarray(y, float), np.asarray(x, float), float(yz), "add")

    @classmethod
    def remove(cls, X: np.ndarray, y: np.ndarray, index: int) -> "Neighbours":
        """``D = (X, y)``, ``D' = D`` without row ``index``."""
        X, y = check_design(X, y)
        if not 0 <= int(index) < X.shape[0]:
            raise InputError(f"index must lie in [0, {X.shape[0] - 1}], got {index}")
        keep = np.arange(X.shape[0]) != int(index)
        return cls(X[keep], y[keep], X[int(index)].copy(), float(y[int(index)]), "remove")

    @property
    def with_target(self) -> tuple[np.ndarray, np.ndarray]:
        return np.vstack([self.X, self.x]), np.append(self.y, self.yz)

    def world(self, world: World) -> tuple[np.ndarray, np.ndarray]:
        """The data set of ``world`` ("D" or "D'")."""
        base_is_d = self.kind == "add"
        return (self.X, self.y) if (check_world(world) == "D") == base_is_d else self.with_target


# --- estimators (deterministic) ------------------------------------------------------------------


def gram(X: np.ndarray, lam: float = 0.0) -> np.ndarray:
    """``X^T X + λ I``."""
    return X.T @ X + lam * np.eye(X.shape[1])


def ridge(X: np.ndarray, y: np.ndarray, lam: float = 0.0) -> np.ndarray:
    """``θ̂_λ = (X^T X + λI)^{-1} X^T y`` (minimiser of ``||y - Xθ||^2 + λ||θ||^2``; [LR] §2, Q48)."""
    X, y = check_design(X, y)
    lam = check_nonnegative("lam", lam)
    try:
        return linalg.solve(gram(X, lam), X.T @ y, assume_a="pos")
    except linalg.LinAlgError:
        raise InputError("X^T X + lam I must be positive definite (use lam > 0 for rank-deficient X)") from None


def nonprivate_ridge(X: np.ndarray, y: np.ndarray, lam: float = 0.0) -> np.ndarray:
    """Non-private baseline of [LR] Tables 3–4 (``lam = 0``: least squares ``θ*``)."""
    return ridge(X, y, lam)


def trivial_predictor(d: int) -> np.ndarray:
    """The "Trivial" baseline of [LR] Tables 3–4: ``θ = 0`` (predicts 0 for every x)."""
    if int(d) < 1:
        raise InputError(f"d must be >= 1, got {d}")
    return np.zeros(int(d))


def _logistic_parts(X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row ``f'`` and ``f''`` of ``f(m) = log(1 + e^{-m})`` at margins ``m = y x^T θ`` (times y for f')."""
    m = y * (X @ theta)
    p = special.expit(-m)  # = -f'(m)
    return -y * p, p * (1.0 - p)


def loss_gradient(loss: Loss, X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``sum_i ∇ℓ(θ, z_i)`` for ridge ``ℓ = (y - x^Tθ)^2`` or logistic ``ℓ = log(1 + e^{-y x^Tθ})``."""
    if loss == "ridge":
        return -2.0 * X.T @ (y - X @ theta)
    if loss == "logistic":
        return X.T @ _logistic_parts(X, y, theta)[0]
    raise InputError(f"loss must be 'ridge' or 'logistic', got {loss!r}")


def loss_hessian(loss: Loss, X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``sum_i ∇²ℓ(θ, z_i)``."""
    if loss == "ridge":
        return 2.0 * X.T @ X
    if loss == "logistic":
        w = _logistic_parts(X, y, theta)[1]
        return (X * w[:, None]).T @ X
    raise InputError(f"loss must be 'ridge' or 'logistic', got {loss!r}")


def regulariser_scale(loss: Loss) -> float:
    """``r(θ) = c λ ||θ||^2``: ``c = 1`` for ridge (so ``θ̂ = θ̂_λ``), ``c = 1/2`` for logistic."""
    return 1.0 if loss == "ridge" else 0.5


def fit_erm(X: np.ndarray, y: np.ndarray, loss: Loss = "ridge", lam: float = 0.0) -> np.ndarray:
    """Exact minimiser of ``sum_i ℓ(θ, z_i) + r(θ)`` ([PDP] (3.1)).

    Ridge: closed form.  Logistic (labels ±1, ``r = (λ/2)||θ||^2``, ``λ > 0``): damped Newton until the Newton
    step is below ``1e-15 (1 + ||θ||)`` -- the pDP of output perturbation depends on ``θ̂ - θ̂'``,
    which is tiny, so the solver must be accurate well below it.
    """
    X, y = check_design(X, y)
    lam = check_nonnegative("lam", lam)
    if loss == "ridge":
        return ridge(X, y, lam)
    if loss != "logistic":
        raise InputError(f"loss must be 'ridge' or 'logistic', got {loss!r}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError("logistic regression needs labels y in {-1, +1}")
    check_positive("lam", lam)

    def objective(t: np.ndarray) -> float:
        return float(np.sum(np.logaddexp(0.0, -y * (X @ t))) + 0.5 * lam * t @ t)

    theta = np.zeros(X.shape[1])
    for _ in range(200):
        g = loss_gradient(loss, X, y, theta) + lam * theta
        step = linalg.solve(loss_hessian(loss, X, y, theta) + lam * np.eye(X.shape[1]), g, assume_a="pos")
        if np.linalg.norm(step) <= 1e-15 * (1.0 + np.linalg.norm(theta)):
            return theta
        # Armijo backtracking, with slack for round-off in f so that the final Newton steps are taken in full
        t, f0 = 1.0, objective(theta)
        while objective(theta - t * step) > f0 - 0.25 * t * (g @ step) + 1e-13 * abs(f0) and t > 1e-10:
            t *= 0.5
        theta = theta - t * step
    return theta


def integrated_hessian(
    loss: Loss,
    X: np.ndarray,
    y: np.ndarray,
    lam: float,
    theta_a: np.ndarray,
    theta_b: np.ndarray,
    nodes: int = 64,
) -> np.ndarray:
    """``∫_0^1 [sum_i ∇²ℓ(η_t, z_i) + ∇²r(η_t)] dt`` with ``η_t = tθ_a + (1-t)θ_b`` ([PDP] Lemma 3.1),
    by ``nodes``-point Gauss–Legendre quadrature (exact for ridge, spectrally accurate for logistic)."""
    t, w = np.polynomial.legendre.leggauss(int(nodes))
    t, w = 0.5 * (t + 1.0), 0.5 * w
    acc = sum(wk * loss_hessian(loss, X, y, tk * theta_a + (1 - tk) * theta_b) for tk, wk in zip(t, w))
    return acc + 2.0 * regulariser_scale(loss) * lam * np.eye(X.shape[1])


def lemma31_difference(nb: Neighbours, loss: Loss = "ridge", lam: float = 0.0, form: int = 1) -> np.ndarray:
    """Right-hand side of [PDP] Lemma 3.1 for ``θ̂ - θ̂'`` (``θ̂`` on ``Z``, ``θ̂'`` on ``[Z, z]``).

    ``form=1``: ``[∫ (sum_i ∇²ℓ + ∇²ℓ(·, z) + ∇²r)]^{-1} ∇ℓ(θ̂, z)``;
    ``form=2``: ``-[∫ (sum_i ∇²ℓ + ∇²r)]^{-1} ∇ℓ(θ̂', z)``.
    """
    theta, theta_p = fit_erm(nb.X, nb.y, loss, lam), fit_erm(*nb.with_target, loss, lam)
    xz, yz = nb.x[None, :], np.array([nb.yz])
    if form == 1:
        H = integrated_hessian(loss, *nb.with_target, lam, theta, theta_p)
        return linalg.solve(H, loss_gradient(loss, xz, yz, theta))
    if form == 2:
        H = integrated_hessian(loss, nb.X, nb.y, lam, theta, theta_p)
        return -linalg.solve(H, loss_gradient(loss, xz, yz, theta_p))
    raise InputError(f"form must be 1 or 2, got {form}")


# --- Gaussian output perturbation ([PDP] (3.2)) ---------------------------------------------------

NoiseShape = Literal["l2", "democratic", "fisher"]


def noise_shape_matrix(shape: NoiseShape | np.ndarray, X: np.ndarray, lam: float = 0.0) -> np.ndarray:
    """The matrix ``A`` of [PDP] §3 (after (3.4)), built from ``G = X^T X + λI``:
    ``"l2"``: ``λ_min(G) I`` (standard ℓ2 sensitivity); ``"democratic"``: ``G^2``; ``"fisher"``: ``G``.
    An explicit positive-definite array is returned unchanged."""
    if isinstance(shape, np.ndarray):
        return np.asarray(shape, float)
    G = gram(X, lam)
    if shape == "l2":
        return np.linalg.eigvalsh(G)[0] * np.eye(X.shape[1])
    if shape == "democratic":
        return G @ G
    if shape == "fisher":
        return G
    raise InputError(f"A must be 'l2', 'democratic', 'fisher' or a matrix, got {shape!r}")


class OutputPerturbationPair:
    """``θ̃ ~ N(θ̂(D), A^{-1}/γ)`` ([PDP] (3.2)) on the pair ``(D, D')``.

    ``a_from="D"`` (default, the setting of Lemma 2.4: ``A`` is chosen independently of the target):
    ``A`` is computed once from ``D`` and used in both worlds.  ``a_from="each"``: every world computes
    its own ``A`` from its own data (the mechanism run literally; covariances then differ).
    """

    def __init__(
        self,
        nb: Neighbours,
        gamma: float,
        A: NoiseShape | np.ndarray = "fisher",
        loss: Loss = "ridge",
        lam: float = 0.0,
        a_from: Literal["D", "each"] = "D",
    ):
        self.nb, self.gamma, self.loss, self.lam = nb, check_positive("gamma", gamma), loss, lam
        if a_from not in ("D", "each"):
            raise InputError(f"a_from must be 'D' or 'each', got {a_from!r}")
        self.theta_hat = {w: fit_erm(*nb.world(w), loss, lam) for w in ("D", "D'")}
        self.A = {w: noise_shape_matrix(A, nb.world("D" if a_from == "D" else w)[0], lam) for w in ("D", "D'")}
        self.laws = {w: GaussianLaw.from_precision(self.theta_hat[w], self.gamma * self.A[w]) for w in ("D", "D'")}
        self.output_dim = nb.X.shape[1]

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.laws[check_world(world)].sample(size, rng)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return self.laws["D"].log_density(outputs) - self.laws["D'"].log_density(outputs)

    def sensitivity_A(self) -> float:
        """Exact per-instance sensitivity ``Δ_A(Z, z) = ||θ̂(D) - θ̂(D')||_{A}`` (with ``A`` of world D)."""
        diff = self.theta_hat["D"] - self.theta_hat["D'"]
        return float(np.sqrt(diff @ self.A["D"] @ diff))


# --- OPS ------------------------------------------------------------------------------------------


class OPSPair:
    """One-Posterior-Sample ``θ̃ ~ N(θ̂_λ, (X^T X + λI)^{-1}/γ)`` ([PDP] Thm 4.1, [LR] Lemma 8(2))."""

    def __init__(self, nb: Neighbours, gamma: float, lam: float = 0.0):
        self.nb, self.gamma, self.lam = nb, check_positive("gamma", gamma), check_nonnegative("lam", lam)
        self.laws = {w: ops_law(*nb.world(w), self.gamma, self.lam) for w in ("D", "D'")}
        self.output_dim = nb.X.shape[1]

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.laws[check_world(world)].sample(size, rng)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return self.laws["D"].log_density(outputs) - self.laws["D'"].log_density(outputs)


def ops_law(X: np.ndarray, y: np.ndarray, gamma: float, lam: float) -> GaussianLaw:
    """The OPS posterior ``N(θ̂_λ, (γ (X^T X + λI))^{-1})`` as a :class:`GaussianLaw`."""
    return GaussianLaw.from_precision(ridge(X, y, lam), gamma * gram(X, lam))


# --- closed forms: [PDP] §2–3 --------------------------------------------------------------------


def lemma24_epsilon(sensitivity_A: float, gamma: float, delta: float) -> float:
    """[PDP] Lemma 2.4 as printed: ``ε(Z, z) = γ Δ_A(Z, z) sqrt(log(1.25/δ))`` for noise ``N(0, A^{-1}/γ)`` (Q8)."""
    return (
        check_positive("gamma", gamma)
        * check_nonnegative("sensitivity_A", sensitivity_A)
        * np.sqrt(np.log(1.25 / check_delta(delta)))
    )


def eq33_epsilon(grad: np.ndarray, H: np.ndarray, A: np.ndarray, delta: float) -> float:
    """[PDP] eq. (3.3) as printed (no γ, Q8): ``sqrt(∇ℓ(θ̂', z)^T H^{-1} A H^{-1} ∇ℓ(θ̂', z) log(1.25/δ))``,
    ``H`` the integrated Hessian of Lemma 3.1."""
    v = linalg.solve(H, grad)
    return float(np.sqrt(v @ A @ v * np.log(1.25 / check_delta(delta))))


def eq34_sensitivity(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, A: np.ndarray, lam: float = 0.0, line: int = 2
) -> float:
    """[PDP] eq. (3.4) (ridge penalty ``λ`` added to both Gram matrices), with ``θ̂'`` fitted on ``[Z, z]``:

    ``line=1``: ``|y - x^Tθ̂'| sqrt(x^T (X'^T X')^{-1} A (X'^T X')^{-1} x)`` (``X' = [X; x^T]``; Q9);
    ``line=2``: ``|y - x^Tθ̂'| sqrt(x^T (X^T X)^{-1} A (X^T X)^{-1} x)``.
    """
    if line not in (1, 2):
        raise InputError(f"line must be 1 or 2, got {line}")
    Xp, yp = np.vstack([X, x]), np.append(y, yz)
    resid = abs(yz - x @ ridge(Xp, yp, lam))
    v = linalg.solve(gram(Xp if line == 1 else X, lam), x, assume_a="pos")
    return float(resid * np.sqrt(v @ A @ v))


# --- closed forms: [PDP] §4 (OPS) ----------------------------------------------------------------


def leverages(X: np.ndarray, x: np.ndarray, lam: float = 0.0) -> tuple[float, float]:
    """[PDP] Thm 4.1's ``μ = x^T(X^TX + λI)^{-1}x`` (without z) and ``μ' = x^T(X'^TX' + λI)^{-1}x`` (with z)."""
    mu = float(x @ linalg.solve(gram(X, lam), x, assume_a="pos"))
    return mu, mu / (1.0 + mu)  # Sherman–Morrison: μ' = μ/(1+μ)


def ops_residuals(X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, lam: float = 0.0) -> tuple[float, float]:
    """``(y_z - x^Tθ̂, y_z - x^Tθ̂')`` with ``θ̂`` the ridge fit on ``Z``, ``θ̂'`` on ``[Z, z]``."""
    return float(yz - x @ ridge(X, y, lam)), float(yz - x @ ridge(np.vstack([X, x]), np.append(y, yz), lam))


def thm41_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float, form: str = "4.3"
) -> float:
    """[PDP] Theorem 4.1 as printed ((4.3) = [LR] (16), (4.4) = [LR] (17)); ``(X, y)`` is ``Z`` without z.

    (4.3): ``½|-log(1+μ) + γμ/(1+μ) r^2| + (μ/2)log(2/δ) + sqrt(γμ log(2/δ)) |r|``, ``r = y_z - x^Tθ̂``;
    (4.4): ``½|-log(1-μ') - γμ'/(1-μ') r'^2| + (μ'/2)log(2/δ) + sqrt(γμ' log(2/δ)) |r'|``, ``r' = y_z - x^Tθ̂'``.
    """
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    mu, mu_p = leverages(X, x, lam)
    r, r_p = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    if form == "4.3":
        return (
            0.5 * abs(-np.log1p(mu) + gamma * mu / (1 + mu) * r**2) + 0.5 * mu * ld + np.sqrt(gamma * mu * ld) * abs(r)
        )
    if form == "4.4":
        return (
            0.5 * abs(-np.log1p(-mu_p) - gamma * mu_p / (1 - mu_p) * r_p**2)
            + 0.5 * mu_p * ld
            + np.sqrt(gamma * mu_p * ld) * abs(r_p)
        )
    raise InputError(f"form must be '4.3' or '4.4', got {form!r}")


def remark42_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """[PDP] Remark 4.2 as printed (Q19, residual at ``θ̂'`` with ``μ``):
    ``(μ/2)(1 + log(2/δ)) + ½γ min(μ, 1) r'^2 + sqrt(γμ log(2/δ)) |r'|``."""
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    mu, _ = leverages(X, x, lam)
    _, r_p = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    return 0.5 * mu * (1 + ld) + 0.5 * gamma * min(mu, 1.0) * r_p**2 + np.sqrt(gamma * mu * ld) * abs(r_p)


def prop43_pdp_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """[PDP] Proposition 4.3(1), eq. (4.5) as printed (third term carries ``γ_n``, Q13), ``λ_min = λ_min(X^TX)``:
    ``sqrt(γ log(2/δ)/(λ+λ_min)) |r| + γ r^2/(2 max(λ+λ_min, 1)) + γ(1 + log(2/δ))/(2(λ+λ_min))``."""
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    s = check_nonnegative("lam", lam) + np.linalg.eigvalsh(X.T @ X)[0]
    r, _ = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    return np.sqrt(gamma * ld / s) * abs(r) + gamma * r**2 / (2 * max(s, 1.0)) + gamma * (1 + ld) / (2 * s)


def prop43_dp_epsilon(n: int, gamma: float, lam: float, delta: float) -> float:
    """[PDP] Proposition 4.3(1), eq. (4.6) as printed (domain ``||x|| <= 1, |y| < 1``):
    ``sqrt(2(n+λ)γ log(2/δ)/λ^2) + 2(n+λ)γ/(λ max(1, λ)) + γ(1 + log(2/δ))/(2λ)``."""
    gamma, lam, delta = check_positive("gamma", gamma), check_positive("lam", lam), check_delta(delta)
    ld = np.log(2.0 / delta)
    return (
        np.sqrt(2 * (n + lam) * gamma * ld / lam**2)
        + 2 * (n + lam) * gamma / (lam * max(1.0, lam))
        + gamma * (1 + ld) / (2 * lam)
    )


def prop43_sup_residual(n: int, lam: float, printed: bool = True) -> float:
    """[PDP] Prop. 4.3(1): ``sup |y - x^Tθ̂| = 1 + sqrt(n/λ)`` (statement) or ``1 + sqrt(n)/(2 sqrt(λ))`` (proof) (Q13)."""
    lam = check_positive("lam", lam)
    return 1.0 + (np.sqrt(n / lam) if printed else np.sqrt(n) / (2.0 * np.sqrt(lam)))


def prop43_mse_printed(X: np.ndarray, theta0: np.ndarray, sigma: float, gamma: float, lam: float) -> float:
    """[PDP] Prop. 4.3(3) as printed: ``E||θ̃ - θ0||^2 = σ^2 tr[(X^TX+λI)^{-1}](1 + 1/γ) + λ^2 ||(X^TX+λI)^{-1}θ0||^2``."""
    G = gram(X, lam)
    return float(
        sigma**2 * np.trace(np.linalg.inv(G)) * (1 + 1 / gamma) + lam**2 * np.sum(linalg.solve(G, theta0) ** 2)
    )


def ops_mse_exact(X: np.ndarray, theta0: np.ndarray, sigma: float, gamma: float, lam: float) -> float:
    """Exact ``E||θ̃ - θ0||^2`` of OPS when ``y ~ N(Xθ0, σ^2 I)`` (derived: bias + ridge variance + OPS noise):
    ``σ^2 tr(G^{-1}X^TX G^{-1}) + tr(G^{-1})/γ + λ^2||G^{-1}θ0||^2``, ``G = X^TX + λI``."""
    G = gram(X, lam)
    Gi = np.linalg.inv(G)
    return float(sigma**2 * np.trace(Gi @ X.T @ X @ Gi) + np.trace(Gi) / gamma + lam**2 * np.sum((Gi @ theta0) ** 2))


def prop43_objective(X: np.ndarray, y: np.ndarray, theta: np.ndarray, lam: float) -> np.ndarray:
    """[PDP] Prop. 4.3(4)'s ``F(θ) = 0.5||y - Xθ||^2 + λ||θ||^2`` (row-wise for a batch of θ)."""
    theta = np.atleast_2d(theta)
    res = y[None, :] - theta @ X.T
    return 0.5 * np.sum(res**2, axis=1) + lam * np.sum(theta**2, axis=1)


def prop43_gap_printed(d: int, gamma: float) -> float:
    """[PDP] Prop. 4.3(4) as printed: ``E F(θ̃) - F(θ̂) = d/γ``."""
    return d / check_positive("gamma", gamma)


def prop43_gap_tail_printed(d: int, gamma: float, delta: float) -> float:
    """[PDP] Prop. 4.3(4) as printed: w.p. ``>= 1-δ``, ``F(θ̃) - F(θ̂) <= d log(d/δ)/γ``."""
    return d * np.log(d / check_delta(delta)) / check_positive("gamma", gamma)


def ops_gap_exact(X: np.ndarray, y: np.ndarray, gamma: float, lam: float) -> float:
    """Exact ``E F(θ̃) - F(θ̂)`` for OPS(γ, λ) and Prop. 4.3(4)'s ``F`` (derived):
    ``½ tr(K G^{-1})/γ + ½||θ̂_λ - θ̂||_K^2``, ``K = X^TX + 2λI`` (Hessian of F), ``G = X^TX + λI``,
    ``θ̂ = K^{-1}X^Ty`` (argmin F).  Equals ``d/(2γ)`` when ``λ = 0`` (Q16)."""
    K, G = gram(X, 2 * lam), gram(X, lam)
    diff = ridge(X, y, lam) - ridge(X, y, 2 * lam)
    return float(0.5 * np.trace(linalg.solve(G, K)) / gamma + 0.5 * diff @ K @ diff)


# --- exact privacy profiles ----------------------------------------------------------------------


def gaussian_mechanism_delta(eps: float | np.ndarray, s: float) -> np.ndarray:
    """Exact ``δ(ε)`` of the Gaussian mechanism with whitened sensitivity ``s = Δ/σ``
    (Balle & Wang 2018, Thm 8): ``Φ(s/2 - ε/s) - e^ε Φ(-s/2 - ε/s)``; symmetric in the two directions."""
    eps = np.asarray(eps, float)
    if s <= 0:
        return np.zeros_like(eps)
    return np.maximum(special.ndtr(s / 2 - eps / s) - np.exp(eps + special.log_ndtr(-s / 2 - eps / s)), 0.0)


def gaussian_mechanism_epsilon(delta: float, s: float) -> float:
    """Smallest ``ε >= 0`` with ``gaussian_mechanism_delta(ε, s) <= δ``."""
    delta = check_delta(delta)
    if gaussian_mechanism_delta(0.0, s) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_mechanism_delta(hi, s) > delta:
        hi *= 2
    return float(
        optimize.brentq(lambda e: float(gaussian_mechanism_delta(e, s)) - delta, 0.0, hi, xtol=1e-13, rtol=1e-13)
    )


def _prob_outside(c: float, m: float, v: float) -> float:
    """``P(s^2 > c)`` for ``s ~ N(m, v)``."""
    if c <= 0:
        return 1.0
    r, sd = np.sqrt(c), np.sqrt(v)
    return float(special.ndtr((m - r) / sd) + special.ndtr((-r - m) / sd))


def ops_exact_delta(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, eps: float
) -> tuple[float, float]:
    """Exact hockey-stick divergences of OPS between ``P = OPS(Z)`` and ``Q = OPS([Z, z])``:
    ``(δ_{P||Q}(ε), δ_{Q||P}(ε))``; the pair is ``(ε, max)``-pDP in the sense of [PDP] Def. 2.2.

    Why exact: ``L = log p/q`` depends on ``θ`` only through ``s = y_z - x^Tθ`` (the two precisions
    differ by ``γ x x^T``): ``L = -½log(1+μ) + (γ/2)(s^2 - r^2/(1+μ))``, and ``s ~ N(r, μ/γ)`` under P,
    ``N(r', μ'/γ)`` under Q.  So ``{L > ε}`` and ``{-L > ε}`` are (complements of) intervals in ``s``
    and ``δ_{P||Q}(ε) = P(L > ε) - e^ε Q(L > ε)`` is a difference of normal probabilities.
    """
    gamma, eps = check_positive("gamma", gamma), check_nonnegative("eps", eps)
    mu, mu_p = leverages(X, x, lam)
    r, r_p = ops_residuals(X, y, x, yz, lam)
    base = r**2 / (1 + mu)
    c_up = 2 / gamma * (eps + 0.5 * np.log1p(mu)) + base
    fwd = _prob_outside(c_up, r, mu / gamma) - np.exp(eps) * _prob_outside(c_up, r_p, mu_p / gamma)
    c_lo = 2 / gamma * (-eps + 0.5 * np.log1p(mu)) + base
    bwd = 0.0
    if c_lo > 0:
        inside_q, inside_p = 1 - _prob_outside(c_lo, r_p, mu_p / gamma), 1 - _prob_outside(c_lo, r, mu / gamma)
        bwd = inside_q - np.exp(eps) * inside_p
    return max(float(fwd), 0.0), max(float(bwd), 0.0)


def ops_exact_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """Smallest ``ε`` at which OPS is ``(ε, δ)``-pDP for ``(Z, z)`` (both directions), by bisection on the
    exact profile of :func:`ops_exact_delta`."""
    delta = check_delta(delta)

    def excess(e: float) -> float:
        return max(ops_exact_delta(X, y, x, yz, gamma, lam, e)) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-12, rtol=1e-12))


# --- [LR] Remark 11 and Appendix F calibrations -------------------------------------------------


def remark11_epsilon(gamma: float, L: float, lam: float, lam_min: float, x_bound: float, delta: float) -> float:
    """[LR] Remark 11: OPS(λ, γ) is ``(ε, δ)``-pDP for all targets with
    ``ε = sqrt(γ L^2 log(2/δ)/(λ+λ_min)) + γL^2/(2(λ+λ_min+||X||^2)) + (1+log(2/δ))||X||^2/(2(λ+λ_min))``."""
    s = lam + lam_min
    if not s > 0:
        raise InputError(f"lam + lam_min must be > 0, got {s}")
    ld = np.log(2.0 / check_delta(delta))
    return float(
        np.sqrt(gamma * L**2 * ld / s) + gamma * L**2 / (2 * (s + x_bound**2)) + (1 + ld) * x_bound**2 / (2 * s)
    )


def appF_lipschitz(lam: float, n: int, x_bound: float = 1.0, y_bound: float = 1.0) -> float:
    """[LR] App. F: ``L(λ) = ||X|| ||Y|| (sqrt(n)||X||/sqrt(2λ) + 1)`` (from bound (23))."""
    return x_bound * y_bound * (np.sqrt(n) * x_bound / np.sqrt(2 * check_positive("lam", lam)) + 1.0)


def lr_C1(eps: float, delta: float, rho: float, d: int, log_arg: float = 2.0) -> float:
    """[LR] (18): ``C1 = [d/2 + sqrt(d log(1/ϱ)) + log(1/ϱ)] log(log_arg/δ)/ε^2`` (AdaOPS step 4 uses ``log_arg = 6``)."""
    lr = np.log(1.0 / check_delta(rho, "rho"))
    return (d / 2 + np.sqrt(d * lr) + lr) * np.log(log_arg / check_delta(delta)) / check_positive("eps", eps) ** 2


def _solve_gamma(eps: float, lam: float, n: int, x_bound: float, y_bound: float, delta: float) -> float:
    """The γ making the App. F condition an equality at ``λ`` (quadratic in ``sqrt(γ)``)."""
    L, ld = appF_lipschitz(lam, n, x_bound, y_bound), np.log(2.0 / delta)
    rem = eps - (1 + ld) * x_bound**2 / (2 * lam)
    if rem <= 0:
        raise InputError(f"lam = {lam} too small for eps = {eps}: need lam > (1+log(2/δ))||X||^2/(2ε)")
    a, b = np.sqrt(L**2 * ld / lam), L**2 / (2 * (lam + x_bound**2))
    u = 2 * rem / (a + np.sqrt(a * a + 4 * b * rem))  # positive root of b u^2 + a u - rem, cancellation-free
    return float(u * u)


OPSCalibration = Literal["diffuse", "concentrated", "balanced", "conservative"]


def ops_calibration(
    method: OPSCalibration,
    eps: float,
    delta: float,
    n: int,
    d: int,
    x_bound: float = 1.0,
    y_bound: float = 1.0,
    rho: float = 0.05,
    B: float = 1.0,
) -> tuple[float, float]:
    """``(λ, γ)`` of the four (ε, δ)-DP calibrations of OPS in [LR] Appendix F, each making
    :func:`appF_epsilon` equal to ``ε`` (the printed "ε ≤ bound" is read as "bound ≤ ε", Q46).

    * diffuse: ``λ = (1 + log(2/δ))||X||^2/ε``, calibrate γ;
    * concentrated: ``γ = 1``, calibrate λ;
    * balanced: ``λ = argmin_{λ >= λ_diffuse} C1(min(ε, sqrt ε), δ, ϱ, d) L(λ)^2/λ + λB^2`` (24), γ as diffuse;
    * conservative (our reading of item 4): ``L(λ) <= ||X||(||X|| ||θ*|| + ||Y||)`` makes the bound
      ``(||θ*|| + ||Y||/||X||)^2 [C1 ||X||^4/λ + λ]``, minimised at ``λ = sqrt(C1)||X||^2`` (floored at λ_diffuse).
    """
    eps, delta = check_positive("eps", eps), check_delta(delta)
    lam_diffuse = (1 + np.log(2 / delta)) * x_bound**2 / eps
    if method == "diffuse":
        lam = lam_diffuse
    elif method == "concentrated":
        f = lambda lg: appF_epsilon(1.0, float(np.exp(lg)), n, delta, x_bound, y_bound) - eps  # noqa: E731
        lo, hi = np.log(lam_diffuse / 2), np.log(lam_diffuse)
        while f(hi) > 0:
            hi += 1.0
        return float(np.exp(optimize.brentq(f, lo, hi, xtol=1e-13))), 1.0
    elif method in ("balanced", "conservative"):
        C1 = lr_C1(min(eps, np.sqrt(eps)), delta, rho, d)
        if method == "conservative":
            lam = max(np.sqrt(C1) * x_bound**2, lam_diffuse)
        else:
            obj = lambda lg: C1 * appF_lipschitz(np.exp(lg), n, x_bound, y_bound) ** 2 / np.exp(lg) + np.exp(lg) * B**2  # noqa: E731
            res = optimize.minimize_scalar(
                obj, bounds=(np.log(lam_diffuse), np.log(lam_diffuse) + 60), method="bounded", options={"xatol": 1e-10}
            )
            lam = max(float(np.exp(res.x)), lam_diffuse)
    else:
        raise InputError(f"method must be one of diffuse, concentrated, balanced, conservative; got {method!r}")
    return float(lam), _solve_gamma(eps, lam, n, x_bound, y_bound, delta)


def appF_epsilon(gamma: float, lam: float, n: int, delta: float, x_bound: float = 1.0, y_bound: float = 1.0) -> float:
    """[LR] App. F's DP bound: Remark 11 with ``L = L(λ)`` and ``λ_min = 0``."""
    return remark11_epsilon(gamma, appF_lipschitz(lam, n, x_bound, y_bound), lam, 0.0, x_bound, delta)


# --- registration -------------------------------------------------------------------------------


def example_data(rng: np.random.Generator, n: int = 50, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A small preprocessed synthetic data set (rows of norm 1, y in [-1, 1])."""
    X, y, _ = synthetic_regression(n, d, rng, noise_sd=0.5)
    return preprocess(X, y)


def example_neighbours(rng: np.random.Generator, n: int = 50, d: int = 3) -> list[Neighbours]:
    """An add pair (fresh unit-norm target) and a remove pair (the worst-fitted row) on :func:`example_data`."""
    X, y = example_data(rng, n, d)
    x_new = rng.standard_normal(d)
    add = Neighbours.add(X, y, x_new / np.linalg.norm(x_new), float(rng.uniform(-1, 1)))
    worst = int(np.argmax(np.abs(y - X @ ridge(X, y, 1.0))))
    return [add, Neighbours.remove(X, y, worst)]


def _output_perturbation_examples(rng: np.random.Generator) -> list[OutputPerturbationPair]:
    add, remove = example_neighbours(rng)
    Xl, yl = add.X, np.where(add.y >= 0, 1.0, -1.0)  # logistic labels from the same rows
    logistic = Neighbours.add(Xl, yl, add.x, 1.0)
    return [
        OutputPerturbationPair(add, 30.0, "fisher"),
        OutputPerturbationPair(remove, 3.0, "l2", lam=1.0),
        OutputPerturbationPair(remove, 0.2, "democratic", a_from="each"),
        OutputPerturbationPair(logistic, 3.0, "fisher", loss="logistic", lam=1.0),
    ]


def _ops_examples(rng: np.random.Generator) -> list[OPSPair]:
    add, remove = example_neighbours(rng)
    return [OPSPair(add, 30.0, 0.0), OPSPair(remove, 30.0, 1.0)]


OUTPUT_PERTURBATION = RegisteredMechanism(
    name="output-perturbation",
    description="Gaussian output perturbation N(θ̂, A^{-1}/γ) of ridge/logistic ERM ([PDP] (3.2), Lemma 2.4)",
    example_pairs=_output_perturbation_examples,
    tags=("linreg", "gaussian", "pdp"),
)
OPS = RegisteredMechanism(
    name="ops",
    description="One-Posterior-Sample N(θ̂_λ, (XᵀX+λI)^{-1}/γ) ([PDP] Thm 4.1, [LR] App. F)",
    example_pairs=_ops_examples,
    tags=("linreg", "gaussian", "pdp"),
)
