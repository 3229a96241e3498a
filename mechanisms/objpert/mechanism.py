"""Objective perturbation (ObjPert): exact batched sampler, exact output density, closed forms.

Mechanism ([RW] Algorithm 1, eq. (1); Kifer et al. 2012):

    θ̂ᴾ = argmin_{θ ∈ ℝᵈ}  J(θ; D) + bᵀθ,   J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖²,   b ~ N(0, σ² I_d).

Exact density (derived here, independently of the paper).  J is λ-strongly convex, so the first-order
condition ``b = −∇J(θ; D) =: b(θ; D)`` is a C¹ bijection ℝᵈ → ℝᵈ with Jacobian ``−∇²J(θ; D)``; by the
change of variables

    log p_D(θ) = log N(b(θ; D); 0, σ²I) + log det ∇²J(θ; D).

The privacy loss of a pair is the difference of two such log-densities (:func:`log_density`,
:class:`ObjPertPair`); the objective and its batched minimiser are :mod:`pdp_audit.mechanisms.objpert.objective`
and :mod:`pdp_audit.mechanisms.objpert.solver`.  The papers' closed forms ([RW] Theorems 5, 6, 8, 9, Corollary 7)
are plain functions below, each checked against that density in ``tests/test_objpert.py``.

Neighbours: ``D' = D ∪ {z}`` ("add", z ∉ D) or ``D' = D \\ {z}`` ("remove", z ∈ D).  In the closed forms
the paper's "±" is "+ if z ∉ D" ([RW] §2.1) and is decided by membership of z in D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world
from pdp_audit.mechanisms.batched_cholesky import FLOPS, cholesky_logdet, forward_substitution
from pdp_audit.mechanisms.losses import GLMLoss, Loss, Regulariser, get_loss
from pdp_audit.mechanisms.objpert.objective import Objective
from pdp_audit.mechanisms.objpert.solver import (
    ObjPertSolverError,
    check_noise,
    chunk_rows,
    find_row,
    minimise,
    reference_solution,
    solve_batch,
    theta_rows,
)
from pdp_audit.verify.inputs.blas_threads import for_chunks
from pdp_audit.verify.inputs.validation import InputError, positive, probability

# The solver's public names stay importable from here: this module is the mechanism's entry point.
__all__ = [
    "FLOPS",
    "OBJPERT",
    "Calibration",
    "ObjPertMechanism",
    "ObjPertPair",
    "ObjPertSolverError",
    "Objective",
    "Relation",
    "corollary7_epsilon",
    "corollary7_log_ratio",
    "generalized_leverage",
    "jacobian_log_ratio",
    "log_density",
    "reference_solution",
    "solve_batch",
    "theorem5_calibration",
    "theorem5_lambda",
    "theorem5_sigma",
    "theorem6_epsilon",
    "theorem6_log_ratio",
    "theorem8_bound",
    "theorem8_bound_glm",
    "theorem9_bound",
    "theorem9_bound_glm",
]

Relation = Literal["add", "remove"]
Calibration = Literal["printed", "variance"]

_LOG_2PI = math.log(2.0 * math.pi)


# --------------------------------------------------------------------------------------------
# Exact output density
# --------------------------------------------------------------------------------------------
def _gaussian_logpdf(b: np.ndarray, sigma: float) -> np.ndarray:
    d = b.shape[-1]
    return -0.5 * np.einsum("ti,ti->t", b, b) / sigma**2 - d * math.log(sigma) - 0.5 * d * _LOG_2PI


def _objective_log_density(obj: Objective, theta: np.ndarray, sigma: float) -> np.ndarray:
    out = np.empty(theta.shape[0])
    step = chunk_rows(obj.n, obj.d)
    for lo in range(0, theta.shape[0], step):
        grad, H = obj.grad_hess(theta[lo : lo + step])
        out[lo : lo + step] = _gaussian_logpdf(-grad, sigma) + cholesky_logdet(H)
    return out


def jacobian_log_ratio(
    obj: Objective, theta: np.ndarray, t: np.ndarray | None, x: np.ndarray, yz: float, sign: float
) -> np.ndarray:
    """``log det ∇²J(θ; D) − log det ∇²J(θ; D')`` for rows of θ, where ``∇²J(·; D') = ∇²J(·; D) + sign·∇²ℓ(·; z)``.

    For a GLM loss ``∇²ℓ(θ; z) = f''(xᵀθ; y) xxᵀ`` has rank one, and the matrix determinant lemma gives
    ``−log(1 + sign·f''·xᵀ∇²J(θ; D)⁻¹x)`` with ``xᵀ∇²J⁻¹x = ‖L⁻¹x‖²`` from the Cholesky factor L of ∇²J(θ; D):
    one factorisation instead of two, and no cancellation between two log-determinants of size d·log‖∇²J‖.
    Other losses: the difference of two Cholesky log-determinants.  ``t``: the products ``xᵢᵀθ`` (GLM) or None.
    """
    if not obj.glm:
        H = obj.hessian(theta)
        return cholesky_logdet(H) - cholesky_logdet(H + sign * obj.loss.point_hess(theta, x, yz))
    v = forward_substitution(obj.hessian_factors(theta, t), x)
    lemma = sign * obj.glm_loss.f2(theta @ x, yz) * np.einsum("jt,jt->t", v, v)
    if np.any(lemma <= -1.0):
        raise InputError("the Hessian of J(·; D') is not positive definite: the loss or regulariser is not convex")
    return -np.log1p(lemma)


def log_density(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    lam: float,
    sigma: float,
    loss: str | Loss = "logistic",
    reg: Regulariser | None = None,
) -> np.ndarray:
    """Exact log-density of the ObjPert output at each row of ``theta`` (change of variables).

        log p_D(θ) = log N(b(θ; D); 0, σ²I_d) + log det ∇²J(θ; D),   b(θ; D) = −∇J(θ; D)

    (the first-order condition of [RW] eq. (1); Jacobian of θ ↦ b is −∇²J, cf. [RW] eqs. (3)–(4)).
    ``theta`` is (d,) or (rows, d); the result has shape ``theta.shape[:-1]``.
    """
    obj = Objective(X, y, lam, loss, reg)
    sigma = positive("sigma", sigma)
    rows = theta_rows(theta, obj.d)
    out = _objective_log_density(obj, rows, sigma)
    return out.reshape(np.shape(theta)[:-1])


# --------------------------------------------------------------------------------------------
# The neighbouring pair
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ObjPertMechanism:
    """ObjPert apart from its data: the ridge ``lam`` (λ of J), the noise scale ``sigma`` of b ~ N(0, σ²I_d), the loss
    ℓ (a built-in name or a :class:`~pdp_audit.mechanisms.losses.Loss`) and the extra regulariser ``reg`` (r; None:
    none).  Checked where it is used (:class:`ObjPertPair` and the closed forms), with their messages."""

    lam: float
    sigma: float
    loss: str | Loss = "logistic"
    reg: Regulariser | None = None


class ObjPertPair:
    """ObjPert on ``(D, D')`` with ``D' = D ∪ {z}`` (``relation="add"``) or ``D \\ {z}`` (``"remove"``).

    ``sample`` draws ``b ~ N(0, σ²I)`` and solves exactly (batched); ``privacy_loss`` is
    ``log p_D(θ) − log p_D'(θ)`` from :func:`log_density`'s change of variables, using that
    ``J(·; D') = J(·; D) ± ℓ(·; z)`` so the data sum is formed once (and the log-determinants differ by a
    rank-one term for a GLM, :func:`jacobian_log_ratio`).  Noise-level view (for rare-event importance
    sampling): ``noise_dim``, ``noise_sigma``, ``release_from_noise(world, b)``.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        target_x: np.ndarray,
        target_y: float,
        *,
        relation: Relation,
        mechanism: ObjPertMechanism,
        rtol: float = 1e-10,
        max_iter: int = 100,
    ):
        if relation not in ("add", "remove"):
            raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")
        lam, sigma, loss, reg = mechanism.lam, mechanism.sigma, mechanism.loss, mechanism.reg
        self.obj_d = Objective(X, y, lam, loss, reg)
        self.loss, self.relation = self.obj_d.loss, relation
        self.target_x = np.asarray(target_x, dtype=float).reshape(-1)
        self.target_y = float(target_y)
        if self.target_x.shape != (self.obj_d.d,):
            raise InputError(f"target_x must have shape ({self.obj_d.d},), got {self.target_x.shape}")
        self.loss.check_labels(np.array([self.target_y]))
        X, y = self.obj_d.X, self.obj_d.y
        if relation == "add":
            Xp, yp = np.vstack([X, self.target_x]), np.append(y, self.target_y)
        else:
            i = find_row(X, y, self.target_x, self.target_y)
            if i < 0:
                raise InputError("target (target_x, target_y) must be a row of D for relation='remove'")
            Xp, yp = np.delete(X, i, axis=0), np.delete(y, i)
        self.obj = {"D": self.obj_d, "D'": Objective(Xp, yp, lam, self.loss, reg)}
        self.sign = 1.0 if relation == "add" else -1.0  # J(·; D') = J(·; D) + sign · ℓ(·; z)
        self.sigma = positive("sigma", sigma)
        self.lam = self.obj_d.lam
        self.rtol = positive("rtol", rtol)
        self.max_iter = int(max_iter)
        self.output_dim = self.noise_dim = self.obj_d.d
        self.noise_sigma = self.sigma
        self._ref: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def reference(self, world: World) -> tuple[np.ndarray, np.ndarray]:
        """Non-private solution on ``world`` and the inverse Hessian there (cached)."""
        world = check_world(world)
        if world not in self._ref:
            self._ref[world] = reference_solution(self.obj[world], self.rtol, self.max_iter)
        return self._ref[world]

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        """θ̂ᴾ on ``world`` for each row ``b`` of ``noise`` (shape (trials, d))."""
        theta_ref, M_ref = self.reference(world)
        return minimise(self.obj[world], check_noise(noise, self.noise_dim), theta_ref, M_ref, self.rtol, self.max_iter)

    def noise_from_release(self, world: World, theta: np.ndarray) -> np.ndarray:
        """The noise ``b(θ; world) = −∇J(θ; world)`` that produces ``θ`` (inverse of ``release_from_noise``)."""
        return -self.obj[check_world(world)].evaluate(theta_rows(theta, self.output_dim)).grad

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        noise = self.sigma * rng.standard_normal((int(size), self.noise_dim))
        return self.release_from_noise(world, noise)

    def log_density(self, world: World, theta: np.ndarray) -> np.ndarray:
        return _objective_log_density(self.obj[check_world(world)], theta_rows(theta, self.output_dim), self.sigma)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """``log p_D(θ) − log p_D'(θ) = (‖b(θ; D')‖² − ‖b(θ; D)‖²)/(2σ²) + log det ∇²J(θ; D) − log det ∇²J(θ; D')``."""
        theta = theta_rows(outputs, self.output_dim)
        out = np.empty(theta.shape[0])

        def loss(chunk: slice) -> None:
            th = theta[chunk]
            at = self.obj_d.gradient(th)  # ∇J(θ; D) = −b(θ; D), with the products xᵢᵀθ for the Hessian
            b_d, b_dp = -at.grad, -(at.grad + self.sign * self.loss.point_grad(th, self.target_x, self.target_y))
            gauss = (np.einsum("ti,ti->t", b_dp, b_dp) - np.einsum("ti,ti->t", b_d, b_d)) / (2 * self.sigma**2)
            out[chunk] = gauss + jacobian_log_ratio(self.obj_d, th, at.t, self.target_x, self.target_y, self.sign)

        for_chunks(loss, theta.shape[0], chunk_rows(self.obj_d.n, self.obj_d.d), parallel=self.obj_d.glm)
        return out


# --------------------------------------------------------------------------------------------
# [RW] Theorem 5: calibration
# --------------------------------------------------------------------------------------------
def theorem5_sigma(epsilon: float, delta: float, xi: float, calibration: Calibration = "variance") -> float:
    """Noise scale of ObjPert for (ε, δ)-DP, [RW] Theorem 5 (Kifer et al. 2012).

    Printed: ``σ = ξ²(8 log(2/δ) + 4ε)/ε²``.  ``calibration="printed"`` returns that; ``"variance"`` reads
    the right side as σ² (ledger Q1: b enters the objective like a gradient, so σ must scale like ξ,
    not ξ²) and returns ``σ = ξ √(8 log(2/δ) + 4ε) / ε``.
    """
    epsilon, xi = positive("epsilon", epsilon), positive("xi", xi, " (Theorem 5 needs a bounded gradient)")
    delta = probability("delta", delta)
    printed = xi**2 * (8 * math.log(2 / delta) + 4 * epsilon) / epsilon**2
    if calibration == "printed":
        return printed
    if calibration == "variance":
        return math.sqrt(printed)
    raise InputError(f"calibration must be 'printed' or 'variance', got {calibration!r}")


def theorem5_lambda(epsilon: float, beta: float) -> float:
    """Smallest ridge parameter of [RW] Theorem 5: ``λ ≥ 2β/ε`` (β: Hessian bound of ℓ)."""
    return 2.0 * positive("beta", beta) / positive("epsilon", epsilon)


def theorem5_calibration(
    epsilon: float,
    delta: float,
    loss: str | Loss = "logistic",
    calibration: Calibration = "variance",
    theta_radius: float = math.inf,
) -> tuple[float, float]:
    """``(σ, λ)`` of [RW] Theorem 5 for a loss, with its ξ, β under ``‖x‖ ≤ 1, |y| ≤ 1`` (and ``‖θ‖ ≤ theta_radius``).

    Built-ins: logistic ξ = 1, β = 1/4; squared ``(y − xᵀθ)²`` ξ = 2(1 + R), β = 2 (ξ = ∞ on ℝᵈ: raises);
    pseudo-Huber(κ) ξ = κ, β = 1.
    """
    loss = get_loss(loss)
    xi, beta = loss.gradient_bound(theta_radius), loss.hessian_bound()
    if not math.isfinite(xi):
        raise InputError(
            f"theta_radius must be finite for the {loss.name} loss: its gradient is unbounded on R^d (xi = inf)"
        )
    return theorem5_sigma(epsilon, delta, xi, calibration), theorem5_lambda(epsilon, beta)


# --------------------------------------------------------------------------------------------
# [RW] Theorem 6, Corollary 7: ex-post pDP
# --------------------------------------------------------------------------------------------
def _target(X, y, target_x, target_y, loss: Loss) -> tuple[np.ndarray, float, bool]:
    x = np.asarray(target_x, dtype=float).reshape(-1)
    if x.shape != (X.shape[1],):
        raise InputError(f"target_x must have shape ({X.shape[1]},), got {x.shape}")
    loss.check_labels(np.array([float(target_y)]))
    return x, float(target_y), find_row(X, y, x, float(target_y)) >= 0


def theorem6_log_ratio(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    target_x: np.ndarray,
    target_y: float,
    mechanism: ObjPertMechanism,
) -> np.ndarray:
    """The expression inside |·| of [RW] Theorem 6 (ex-post pDP of ObjPert, convex loss), rows of θ:

        −log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²,
        μⱼ = λⱼ uⱼᵀ (∇b(θ; D) ∓ Σ_{k<j} λₖuₖuₖᵀ)⁻¹ uⱼ,   ∇²ℓ(θ; z) = Σₖ λₖuₖuₖᵀ,   ∇b(θ; D) = −∇²J(θ; D).

    "±" is "+" if z ∉ D (add) and "−" if z ∈ D (remove), decided by membership.  The eigendecomposition
    is taken at the released θ (the statement writes ∇²ℓ(θ; z) with θ unbound; ledger Q37).
    """
    loss = get_loss(mechanism.loss)
    obj = Objective(X, y, mechanism.lam, loss, mechanism.reg)
    sigma = positive("sigma", mechanism.sigma)
    x, yz, z_in_d = _target(obj.X, obj.y, target_x, target_y, loss)
    pm = -1.0 if z_in_d else 1.0
    shape = np.shape(theta)[:-1]
    theta = theta_rows(theta, obj.d)
    grad, H = obj.grad_hess(theta)
    gz, Hz = loss.point_grad(theta, x, yz), loss.point_hess(theta, x, yz)
    lam_k, U = np.linalg.eigh(Hz)
    A = -H  # ∇b(θ; D)
    log_prod = np.zeros(theta.shape[0])
    for j in range(obj.d):
        u, lj = U[:, :, j], lam_k[:, j]
        mu = lj * np.einsum("ti,ti->t", u, np.linalg.solve(A, u[:, :, None])[:, :, 0])
        log_prod += np.log1p(-pm * mu)  # factor (1 ∓ μⱼ)
        A = A - pm * lj[:, None, None] * np.einsum("ti,tj->tij", u, u)
    out = -log_prod + np.einsum("ti,ti->t", gz, gz) / (2 * sigma**2) + pm * np.einsum("ti,ti->t", grad, gz) / sigma**2
    return out.reshape(shape)


def theorem6_epsilon(theta, X, y, target_x, target_y, mechanism: ObjPertMechanism) -> np.ndarray:
    """[RW] Theorem 6: ex-post pDP ``ε₁(θ, D, D±z) = |theorem6_log_ratio(...)|``."""
    return np.abs(theorem6_log_ratio(theta, X, y, target_x, target_y, mechanism))


def _glm(loss: str | Loss) -> GLMLoss:
    loss = get_loss(loss)
    if not isinstance(loss, GLMLoss):
        raise InputError(f"loss must be a GLM loss (ℓ = f(xᵀθ; y)) for this closed form, got {loss!r}")
    return loss


def generalized_leverage(theta, X, y, target_x, lam, loss="logistic", reg=None) -> np.ndarray:
    """Generalised leverage ``μ(x) = xᵀ(∇²J(θ; D))⁻¹x`` ([RW] Corollary 7; Wei et al. 1998)."""
    obj = Objective(X, y, lam, loss, reg)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    H = obj.hessian(theta_rows(theta, obj.d))
    return np.linalg.solve(H, np.broadcast_to(x, (H.shape[0], obj.d))[:, :, None])[:, :, 0] @ x


def corollary7_log_ratio(theta, X, y, target_x, target_y, mechanism: ObjPertMechanism) -> np.ndarray:
    """The expression inside |·| of [RW] Corollary 7 (ex-post pDP of ObjPert for GLMs), rows of θ:

        −log(1 ± f''(·)μ(x)) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²,
        μ(x) = xᵀ(∇²J(θ; D))⁻¹x,  ∇ℓ = f'(xᵀθ; y) x,  f'' = f''(xᵀθ; y);  "±" = "+" iff z ∉ D.

    Printed with "≤"; it is the rank-one case of Theorem 6 and holds with equality (see the tests).
    """
    f = _glm(mechanism.loss)
    obj = Objective(X, y, mechanism.lam, f, mechanism.reg)
    sigma = positive("sigma", mechanism.sigma)
    x, yz, z_in_d = _target(obj.X, obj.y, target_x, target_y, f)
    pm = -1.0 if z_in_d else 1.0
    theta = theta_rows(theta, obj.d)
    grad, H = obj.grad_hess(theta)
    t = theta @ x
    f1, f2 = f.f1(t, yz), f.f2(t, yz)
    mu = np.linalg.solve(H, np.broadcast_to(x, theta.shape)[:, :, None])[:, :, 0] @ x
    return -np.log1p(pm * f2 * mu) + (f1**2) * (x @ x) / (2 * sigma**2) + pm * f1 * (grad @ x) / sigma**2


def corollary7_epsilon(theta, X, y, target_x, target_y, mechanism: ObjPertMechanism) -> np.ndarray:
    """[RW] Corollary 7: ``|corollary7_log_ratio(...)|``."""
    return np.abs(corollary7_log_ratio(theta, X, y, target_x, target_y, mechanism))


# --------------------------------------------------------------------------------------------
# [RW] Theorems 8 and 9: data-independent bounds
# --------------------------------------------------------------------------------------------
def theorem8_bound(
    theta: np.ndarray, target_x: np.ndarray, target_y: float, lam: float, loss: str | Loss = "logistic"
) -> np.ndarray:
    """[RW] Theorem 8 (general ℓ): ``|−log Πⱼ(1 ∓ μⱼ)| ≤ −Σⱼ log(1 − λⱼ/λ)``, λⱼ the eigenvalues of ∇²ℓ(θ; z).

    Returns the right side for rows of θ; ``inf`` where some ``λⱼ ≥ λ`` (the bound is then void, Q37).
    """
    loss = get_loss(loss)
    lam = positive("lam", lam)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    theta = theta_rows(theta, x.size)
    ev = np.linalg.eigvalsh(loss.point_hess(theta, x, float(target_y))) / lam
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -np.log1p(-np.clip(ev, 0.0, None)).sum(axis=1)
    return np.where(np.all(ev < 1, axis=1), out, np.inf)


def theorem8_bound_glm(
    theta: np.ndarray, target_x: np.ndarray, target_y: float, lam: float, loss: str | Loss = "logistic"
) -> np.ndarray:
    """[RW] Theorem 8, GLM form: ``−log(1 − f''(xᵀθ; y)‖x‖²/λ)`` (``inf`` if ``f''‖x‖² ≥ λ``)."""
    f = _glm(loss)
    lam = positive("lam", lam)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    a = f.f2(theta_rows(theta, x.size) @ x, float(target_y)) * (x @ x) / lam
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a < 1, -np.log1p(-np.minimum(a, 1.0)), np.inf)


def theorem9_bound(
    theta: np.ndarray, target_x: np.ndarray, target_y: float, sigma: float, rho: float, loss: str | Loss = "logistic"
) -> np.ndarray:
    """[RW] Theorem 9 (general ℓ): w.p. ≥ 1 − ρ over b, simultaneously for all z,

    |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ σ √(2 log(2d/ρ)) ‖∇ℓ(θ̂ᴾ; z)‖₁     (Hölder with ∇J(θ̂ᴾ; D) = −b).
    """
    loss = get_loss(loss)
    sigma, rho = positive("sigma", sigma), probability("rho", rho)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    g = loss.point_grad(theta_rows(theta, x.size), x, float(target_y))
    return sigma * math.sqrt(2 * math.log(2 * x.size / rho)) * np.abs(g).sum(axis=1)


def theorem9_bound_glm(
    theta: np.ndarray,
    target_x: np.ndarray,
    target_y: float,
    sigma: float,
    rho: float,
    loss: str | Loss = "logistic",
    form: Literal["printed", "derived"] = "printed",
) -> np.ndarray:
    """[RW] Theorem 9, GLM form (main text, ledger Q23), for a fixed z, w.p. 1 − ρ over b:

    * ``form="printed"``: ``f'(xᵀθ̂ᴾ; y) σ ‖x‖₂ √(2 log(2/ρ))`` -- signed f', negative when f' < 0;
    * ``form="derived"``: ``|f'(xᵀθ̂ᴾ; y)| σ ‖x‖₂ √(2 log(2/ρ))``.  Valid for each fixed z: the left side is
      ``|f'|·|bᵀx|`` and ``bᵀx ~ N(0, σ²‖x‖²)`` whatever the dependence of f' on b (not uniform in z).
    """
    f = _glm(loss)
    sigma, rho = positive("sigma", sigma), probability("rho", rho)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    f1 = f.f1(theta_rows(theta, x.size) @ x, float(target_y))
    if form == "derived":
        f1 = np.abs(f1)
    elif form != "printed":
        raise InputError(f"form must be 'printed' or 'derived', got {form!r}")
    return f1 * sigma * np.linalg.norm(x) * math.sqrt(2 * math.log(2 / rho))


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------
def _unit_ball(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """n points uniform in the d-dimensional unit ball."""
    g = rng.standard_normal((n, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random((n, 1)) ** (1.0 / d)


def _example_pairs(rng: np.random.Generator) -> list[ObjPertPair]:
    """Small pairs (n = 50, d = 3): logistic and squared loss, add and remove; σ, λ give O(1) losses.

    The removed point is the worst-fitted one (largest ‖∇ℓ‖ at the non-private fit), the added one a
    fresh draw, so that both neighbours have privacy losses of order one.
    """
    n, d = 50, 3
    X = _unit_ball(rng, n, d)
    w = rng.standard_normal(d)
    y_cls = np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y_reg = np.clip(X @ w / np.linalg.norm(w) + 0.2 * rng.standard_normal(n), -1, 1)
    z_x = _unit_ball(rng, 1, d)[0]
    pairs = []
    for loss, y, lam, sigma in (("logistic", y_cls, 1.0, 0.5), ("squared", y_reg, 2.0, 1.0)):
        obj = Objective(X, y, lam, loss)
        theta_hat = reference_solution(obj, 1e-10, 100)[0]
        i = int(np.argmax(np.abs(obj.glm_loss.f1(X @ theta_hat, y)) * np.linalg.norm(X, axis=1)))
        z_y = 1.0 if loss == "logistic" else float(np.clip(z_x @ w, -1, 1))
        mechanism = ObjPertMechanism(lam, sigma, loss)
        pairs.append(ObjPertPair(X, y, z_x, z_y, relation="add", mechanism=mechanism))
        pairs.append(ObjPertPair(X, y, X[i], y[i], relation="remove", mechanism=mechanism))
    return pairs


OBJPERT = RegisteredMechanism(
    name="objpert",
    description=(
        "Objective perturbation ([RW] Alg. 1): argmin J(θ;D) + bᵀθ, exact batched solver and "
        "change-of-variables density"
    ),
    example_pairs=_example_pairs,
)
