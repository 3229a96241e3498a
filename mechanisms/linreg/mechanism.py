"""Linear (ridge) and logistic regression mechanisms of [PDP] §3–4 and [LR]: Gaussian output
perturbation, One-Posterior-Sample (OPS), the neighbouring data sets they are compared on, and the
non-private / trivial baselines.

Their closed-form pDP/DP statements as printed and the exact privacy profiles are in
:mod:`pdp_audit.mechanisms.linreg.bounds`; the (ε, δ) calibrations of [LR] Appendix F in
:mod:`pdp_audit.mechanisms.linreg.calibration`; the adaptive, multi-stage algorithms (AdaOPS of [PDP] Alg. 1 and
[LR] Alg. 1, SSP, AdaSSP) in :mod:`pdp_audit.mechanisms.linreg.adaptive`; data in
:mod:`pdp_audit.mechanisms.linreg.data`.

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
from scipy import linalg, special

from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world
from pdp_audit.mechanisms.linreg.data import check_design, preprocess, synthetic_regression
from pdp_audit.verify.inputs.validation import InputError, probability
from pdp_audit.verify.inputs.validation import nonnegative as check_nonnegative
from pdp_audit.verify.inputs.validation import positive as check_positive

Loss = Literal["ridge", "logistic"]
LOG_2PI = float(np.log(2.0 * np.pi))


# --- validation -----------------------------------------------------------------------------------


def check_delta(delta: float, name: str = "delta") -> float:
    """``delta`` if it is a probability in (0, 1), else :class:`~pdp_audit.verify.inputs.validation.InputError`."""
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
)
OPS = RegisteredMechanism(
    name="ops",
    description="One-Posterior-Sample N(θ̂_λ, (XᵀX+λI)^{-1}/γ) ([PDP] Thm 4.1, [LR] App. F)",
    example_pairs=_ops_examples,
)
