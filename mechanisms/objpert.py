"""Objective perturbation (ObjPert): exact batched sampler, exact output density, closed forms.

Mechanism ([RW] Algorithm 1, eq. (1); Kifer et al. 2012):

    θ̂ᴾ = argmin_{θ ∈ ℝᵈ}  J(θ; D) + bᵀθ,   J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖²,   b ~ N(0, σ² I_d).

Exact density (derived here, independently of the paper).  J is λ-strongly convex, so the first-order
condition ``b = −∇J(θ; D) =: b(θ; D)`` is a C¹ bijection ℝᵈ → ℝᵈ with Jacobian ``−∇²J(θ; D)``; by the
change of variables

    log p_D(θ) = log N(b(θ; D); 0, σ²I) + log det ∇²J(θ; D).

The privacy loss of a pair is the difference of two such log-densities (:func:`log_density`,
:class:`ObjPertPair`).  The papers' closed forms ([RW] Theorems 5, 6, 8, 9, Corollary 7) are plain
functions below, each checked against that density in ``tests/test_objpert.py``.

Neighbours: ``D' = D ∪ {z}`` ("add", z ∉ D) or ``D' = D \\ {z}`` ("remove", z ∈ D).  In the closed forms
the paper's "±" is "+ if z ∉ D" ([RW] §2.1) and is decided by membership of z in D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from mechanisms.base import RegisteredMechanism, World, check_world
from mechanisms.losses import GLMLoss, Loss, Regulariser, get_loss
from mechanisms.validation import InputError, positive, probability

Relation = Literal["add", "remove"]
Calibration = Literal["printed", "variance"]

_LOG_2PI = math.log(2.0 * math.pi)
_EPS = np.finfo(float).eps


class ObjPertSolverError(RuntimeError):
    """The perturbed objective was not minimised to the requested tolerance."""


@dataclass
class FlopCounter:
    """Floating-point operations of the dense kernels (GEMM, factorisations, mat-vecs), for benchmarks."""

    total: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, flops: float, calls: int = 1) -> None:
        self.total += flops
        self.counts[kind] = self.counts.get(kind, 0) + calls

    def reset(self) -> None:
        self.total = 0.0
        self.counts.clear()


FLOPS = FlopCounter()


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _data(X: np.ndarray, y: np.ndarray, loss: Loss) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[1] < 1:
        raise InputError(f"X must be a 2-D array (n, d) with d >= 1, got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise InputError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("X must be finite")
    loss.check_labels(y)
    return X, y


def _theta_rows(theta: np.ndarray, d: int) -> np.ndarray:
    theta = np.asarray(theta, dtype=float)
    if theta.shape[-1:] != (d,) or theta.ndim > 2:
        raise InputError(f"theta must have shape (d,) or (rows, d) with d = {d}, got {theta.shape}")
    return np.atleast_2d(theta)


_MAX_PACKED = 1 << 25


def _chunk_rows(n: int, d: int) -> int:
    """Rows per batch so that the (rows, n) and (rows, d, d) work arrays stay around 32 MB."""
    return int(max(16, min(8192, (1 << 22) // (n + 3 * d * d + 1))))


# --------------------------------------------------------------------------------------------
# The objective J(θ; D) and its derivatives, batched over rows of θ
# --------------------------------------------------------------------------------------------
class Evaluation(NamedTuple):
    value: np.ndarray  # J(θ) + bᵀθ                       (T,)
    grad: np.ndarray  # ∇J(θ) + b                          (T, d)
    scale: np.ndarray  # ‖b‖ + λ‖θ‖ + Σᵢ‖∇ℓᵢ‖ + ‖∇r‖      (T,)  size of the terms that cancel at θ̂
    magnitude: np.ndarray  # Σᵢ|ℓᵢ| + |r| + λ‖θ‖²/2 + |bᵀθ|   (T,)  rounding scale of ``value``


class Objective:
    """``J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖²`` for one dataset.

    For GLM losses the Hessian ``Σᵢ f''ᵢ xᵢxᵢᵀ`` is one GEMM ``W @ K`` with ``K[i] = upper triangle of
    xᵢxᵢᵀ`` (``d(d+1)/2`` columns): half the flops of a full outer product and a single large BLAS call.
    """

    def __init__(
        self, X: np.ndarray, y: np.ndarray, lam: float, loss: str | Loss = "logistic", reg: Regulariser | None = None
    ):
        self.loss = get_loss(loss)
        self.X, self.y = _data(X, y, self.loss)
        self.lam = positive("lam", lam, " (the ridge term makes θ ↦ b(θ) a bijection)")
        self.reg = reg
        self.n, self.d = self.X.shape
        self.glm = isinstance(self.loss, GLMLoss)
        rows, cols = np.triu_indices(self.d)
        full = np.empty((self.d, self.d), dtype=np.intp)
        full[rows, cols] = np.arange(rows.size)
        full[cols, rows] = np.arange(rows.size)
        self._full_index = full.ravel()
        self._xnorm = np.linalg.norm(self.X, axis=1)
        # The packed outer products cost n·d(d+1)/2 doubles; beyond ~256 MB fall back to per-row products.
        self._K = self.X[:, rows] * self.X[:, cols] if self.glm and self.n * rows.size <= _MAX_PACKED else None

    # -- GLM pieces -------------------------------------------------------------------------
    def _t(self, theta: np.ndarray) -> np.ndarray:
        FLOPS.add("gemm_t", 2.0 * theta.shape[0] * self.n * self.d)
        return theta @ self.X.T

    def _hessian_from_weights(self, w: np.ndarray) -> np.ndarray:
        """``Σᵢ wᵢ xᵢxᵢᵀ`` for each row of ``w`` (T, n), as (T, d, d)."""
        if self._K is None:
            FLOPS.add("gemm_hess", 2.0 * w.shape[0] * self.n * self.d**2)
            return np.matmul(self.X.T[None] * w[:, None, :], self.X)
        FLOPS.add("gemm_hess", 2.0 * w.shape[0] * self.n * self._K.shape[1])
        packed = w @ self._K
        return packed[:, self._full_index].reshape(w.shape[0], self.d, self.d)

    def _add_ridge(self, H: np.ndarray, theta: np.ndarray) -> np.ndarray:
        H[:, np.arange(self.d), np.arange(self.d)] += self.lam
        if self.reg is not None:
            H += self.reg.hess(theta)
        return H

    # -- public ---------------------------------------------------------------------------
    def evaluate(self, theta: np.ndarray, b: np.ndarray | None = None) -> Evaluation:
        """Value, gradient, gradient scale and value magnitude of ``J(θ) + bᵀθ`` for rows of θ."""
        theta = np.atleast_2d(theta)
        if self.glm:
            t = self._t(theta)
            fv, f1 = self.loss.f_f1(t, self.y)
            FLOPS.add("gemm_grad", 2.0 * theta.shape[0] * self.n * (self.d + 2))
            value, grad = fv.sum(axis=1), f1 @ self.X
            gscale, mag = np.abs(f1) @ self._xnorm, np.abs(fv).sum(axis=1)
        else:
            value = np.zeros(theta.shape[0])
            grad = np.zeros_like(theta)
            gscale, mag = np.zeros(theta.shape[0]), np.zeros(theta.shape[0])
            for x, yi in zip(self.X, self.y):
                v, g = self.loss.point_value(theta, x, yi), self.loss.point_grad(theta, x, yi)
                value, grad = value + v, grad + g
                gscale, mag = gscale + np.linalg.norm(g, axis=1), mag + np.abs(v)
        ridge = 0.5 * self.lam * np.einsum("ti,ti->t", theta, theta)
        value = value + ridge
        grad = grad + self.lam * theta
        gscale = gscale + self.lam * np.linalg.norm(theta, axis=1)
        mag = mag + ridge
        if self.reg is not None:
            rv, rg = self.reg.value(theta), self.reg.grad(theta)
            value, grad = value + rv, grad + rg
            gscale, mag = gscale + np.linalg.norm(rg, axis=1), mag + np.abs(rv)
        if b is not None:
            lin = np.einsum("ti,ti->t", theta, b)
            value, grad = value + lin, grad + b
            gscale, mag = gscale + np.linalg.norm(b, axis=1), mag + np.abs(lin)
        return Evaluation(value, grad, gscale, mag)

    def grad_hess(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(∇J(θ), ∇²J(θ))`` for rows of θ, sharing the products ``xᵢᵀθ``."""
        theta = np.atleast_2d(theta)
        if self.glm:
            t = self._t(theta)
            FLOPS.add("gemm_grad", 2.0 * theta.shape[0] * self.n * self.d)
            grad = self.loss.f1(t, self.y) @ self.X
            H = self._hessian_from_weights(self.loss.f2(t, self.y))
        else:
            grad = np.zeros_like(theta)
            H = np.zeros((theta.shape[0], self.d, self.d))
            for x, yi in zip(self.X, self.y):
                grad += self.loss.point_grad(theta, x, yi)
                H += self.loss.point_hess(theta, x, yi)
        grad = grad + self.lam * theta
        if self.reg is not None:
            grad = grad + self.reg.grad(theta)
        return grad, self._add_ridge(H, theta)

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """``∇²J(θ)`` for rows of θ, shape (T, d, d)."""
        theta = np.atleast_2d(theta)
        if self.glm:
            H = self._hessian_from_weights(self.loss.f2(self._t(theta), self.y))
        else:
            H = np.zeros((theta.shape[0], self.d, self.d))
            for x, yi in zip(self.X, self.y):
                H += self.loss.point_hess(theta, x, yi)
        return self._add_ridge(H, theta)


def _cholesky_logdet(H: np.ndarray) -> np.ndarray:
    """``log det H`` of stacked symmetric positive-definite matrices via Cholesky (d³/3 flops each)."""
    FLOPS.add("cholesky", H.shape[0] * H.shape[-1] ** 3 / 3.0, H.shape[0])
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError as exc:
        raise InputError("the Hessian of J is not positive definite: the loss or regulariser is not convex") from exc
    return 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)


# --------------------------------------------------------------------------------------------
# Batched solver
# --------------------------------------------------------------------------------------------
_ARMIJO_C = 1e-4
_CONTRACTION = 0.25  # a step that shrinks ‖∇‖ by less than this factor earns the trial a new Hessian
_MAX_LAZY_STEPS = 2  # ... and so does a predicted tail of more lazy steps than this
_MAX_HALVINGS = 40
_START_REFRESH = 1e-2  # a first-order start this far off (relative ‖∇‖) means the curvature changed a lot


class _Chunk:
    """Solver state of a batch of trials: iterate, its evaluation, and each trial's Hessian.

    Until a trial needs its own Hessian it uses the shared ``M_ref = ∇²J(θ_ref)⁻¹`` (one GEMM for all);
    ``own`` trials keep ``∇²J`` at some earlier iterate (``H``), ``fresh`` ones at the current iterate.
    """

    def __init__(self, obj: Objective, b: np.ndarray, theta: np.ndarray, M_ref: np.ndarray, own: bool):
        self.obj, self.b, self.theta, self.M_ref = obj, b, theta, M_ref
        self.ev = list(obj.evaluate(theta, b))
        self.gnorm = np.linalg.norm(self.ev[1], axis=1)
        size = b.shape[0]
        self.H = np.empty((size, obj.d, obj.d))
        self.own = np.zeros(size, dtype=bool)
        self.fresh = np.zeros(size, dtype=bool)
        self.refresh(np.arange(size) if own else np.flatnonzero(self.gnorm > _START_REFRESH * self.ev[2]))

    def refresh(self, rows: np.ndarray) -> None:
        if rows.size:
            self.H[rows] = self.obj.hessian(self.theta[rows])
            self.own[rows] = self.fresh[rows] = True

    def direction(self, rows: np.ndarray) -> np.ndarray:
        """``−∇²J⁻¹ ∇`` (own Hessian, batched LU solve) or ``−M_ref ∇`` (shared, one GEMM)."""
        g = self.ev[1][rows]
        p = np.empty_like(g)
        own = self.own[rows]
        if np.any(own):
            k = rows[own]
            FLOPS.add("solve", (2.0 / 3.0 * self.obj.d**3 + 2.0 * self.obj.d**2) * k.size, k.size)
            p[own] = -np.linalg.solve(self.H[k], g[own][:, :, None])[:, :, 0]
        if not np.all(own):
            FLOPS.add("gemm_dir", 2.0 * self.obj.d**2 * int((~own).sum()))
            p[~own] = -g[~own] @ self.M_ref
        return p

    def line_search(self, rows: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        """Backtracking from the full step.  Accept Armijo decrease, or -- once the decrease is below the
        rounding of the objective -- any step that reduces ‖∇‖.  Returns (accepted mask, step sizes, evals)."""
        value, mag = self.ev[0][rows], self.ev[3][rows]
        slope = np.einsum("ti,ti->t", self.ev[1][rows], p)
        if np.any(slope >= 0):
            raise InputError("the Hessian of J is not positive definite: the loss or regulariser is not convex")
        alpha = np.ones(rows.size)
        done = np.zeros(rows.size, dtype=bool)
        new = [
            np.empty_like(self.theta[rows]),
            np.empty(rows.size),
            np.empty_like(p),
            np.empty(rows.size),
            np.empty(rows.size),
        ]
        todo = np.arange(rows.size)
        for _ in range(_MAX_HALVINGS):
            th = self.theta[rows[todo]] + alpha[todo, None] * p[todo]
            e = self.obj.evaluate(th, self.b[rows[todo]])
            slack = 64 * _EPS * np.maximum(mag[todo], e.magnitude)
            armijo = e.value <= value[todo] + _ARMIJO_C * alpha[todo] * slope[todo]
            rounding = (e.value - value[todo] <= slack) & (np.linalg.norm(e.grad, axis=1) < self.gnorm[rows[todo]])
            ok = armijo | rounding
            for slot, arr in zip(new, (th, *e)):
                slot[todo[ok]] = arr[ok]
            done[todo[ok]] = True
            todo = todo[~ok]
            if todo.size == 0:
                break
            alpha[todo] *= 0.5
        return done, alpha, new

    def step(self, rtol: float) -> bool:
        """One damped (lazy) Newton step of every unconverged trial; False once all have converged."""
        rows = np.flatnonzero(self.gnorm > rtol * self.ev[2])
        if rows.size == 0:
            return False
        done, alpha, new = self.line_search(rows, self.direction(rows))
        stuck = rows[~done]
        if np.any(self.fresh[stuck]):
            worst = float(np.max(self.gnorm[stuck] / self.ev[2][stuck]))
            raise ObjPertSolverError(
                f"line search failed along an exact Newton direction (relative gradient {worst:.3g})"
            )
        moved = rows[done]
        new_gnorm = np.linalg.norm(new[2][done], axis=1)
        rate = new_gnorm / np.maximum(self.gnorm[moved], np.finfo(float).tiny)
        self.theta[moved] = new[0][done]
        for i in range(4):
            self.ev[i][moved] = new[i + 1][done]
        self.gnorm[moved] = new_gnorm
        self.fresh[moved] = False
        # Lazy steps contract ‖∇‖ at about the last rate; refresh when that would take too many of them.
        with np.errstate(divide="ignore", invalid="ignore"):
            lazy_steps = np.log(np.maximum(new_gnorm / (rtol * self.ev[2][moved]), 1.0)) / -np.log(
                np.minimum(rate, 0.5)
            )
        slow = (rate > _CONTRACTION) | (alpha[done] < 1) | (lazy_steps > _MAX_LAZY_STEPS)
        self.refresh(np.concatenate([moved[slow], stuck]))
        return True


def _solve(
    obj: Objective, b: np.ndarray, theta: np.ndarray, M_ref: np.ndarray, rtol: float, max_iter: int, own: bool = False
) -> np.ndarray:
    """Minimise ``J(θ) + bᵀθ`` row-wise from ``theta``: damped Newton, with each trial's Hessian reused
    while it keeps contracting ‖∇‖ fast (lazy / Shamanskii Newton), batched over trials."""
    chunk = _Chunk(obj, b, theta, M_ref, own)
    for _ in range(max_iter):
        if not chunk.step(rtol):
            return chunk.theta
    bad = chunk.gnorm > rtol * chunk.ev[2]
    if not np.any(bad):
        return chunk.theta
    raise ObjPertSolverError(
        f"ObjPert solver did not converge in max_iter={max_iter} iterations for {int(bad.sum())} of {bad.size} trials "
        f"(worst relative gradient {float(np.max(chunk.gnorm / chunk.ev[2])):.3g} > rtol={rtol:g})"
    )


def _minimise(
    obj: Objective, b: np.ndarray, theta_ref: np.ndarray, M_ref: np.ndarray, rtol: float, max_iter: int
) -> np.ndarray:
    """Batched argmin of ``J(θ) + bᵀθ`` for the rows of ``b``, warm-started at the first-order prediction.

    Around the non-private optimum ``θ_ref`` (where ∇J = 0), ``∇J(θ_ref + Δ) + b ≈ HΔ + b``, so the start
    is ``θ_ref − H⁻¹b`` with ``H⁻¹ = M_ref``, shared by all trials until a trial needs its own Hessian.
    """
    out = np.empty_like(b)
    step = _chunk_rows(obj.n, obj.d)
    for lo in range(0, b.shape[0], step):
        bc = b[lo : lo + step]
        FLOPS.add("gemm_start", 2.0 * bc.shape[0] * obj.d**2)
        out[lo : lo + step] = _solve(obj, bc, theta_ref - bc @ M_ref, M_ref, rtol, max_iter)
    return out


def _reference(obj: Objective, rtol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Non-private solution ``θ̂ = argmin J(θ; D)`` (damped Newton from 0) and ``∇²J(θ̂)⁻¹``."""
    zero = np.zeros((1, obj.d))
    theta = _solve(obj, zero, zero.copy(), np.eye(obj.d), rtol, max_iter, own=True)
    return theta[0], np.linalg.inv(obj.hessian(theta))[0]


def _check_noise(noise: np.ndarray, d: int) -> np.ndarray:
    noise = np.asarray(noise, dtype=float)
    if noise.ndim != 2 or noise.shape[1] != d:
        raise InputError(f"noise must have shape (trials, {d}), got {noise.shape}")
    if not np.all(np.isfinite(noise)):
        raise InputError("noise must be finite")
    return noise


def solve_batch(
    X: np.ndarray,
    y: np.ndarray,
    lam: float,
    noise: np.ndarray,
    loss: str | Loss = "logistic",
    reg: Regulariser | None = None,
    rtol: float = 1e-10,
    max_iter: int = 100,
) -> np.ndarray:
    """``θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ`` for every row ``b`` of ``noise`` (shape (trials, d)) ([RW] eq. (1)).

    Converged means ``‖∇J(θ) + b‖ ≤ rtol · (‖b‖ + λ‖θ‖ + Σᵢ‖∇ℓ(θ; zᵢ)‖ + ‖∇r(θ)‖)``, i.e. relative to the
    size of the terms that cancel at the optimum; otherwise :class:`ObjPertSolverError` is raised.
    """
    obj = Objective(X, y, lam, loss, reg)
    positive("rtol", rtol)
    theta_ref, M_ref = _reference(obj, rtol, max_iter)
    return _minimise(obj, _check_noise(noise, obj.d), theta_ref, M_ref, rtol, max_iter)


# --------------------------------------------------------------------------------------------
# Exact output density
# --------------------------------------------------------------------------------------------
def _gaussian_logpdf(b: np.ndarray, sigma: float) -> np.ndarray:
    d = b.shape[-1]
    return -0.5 * np.einsum("ti,ti->t", b, b) / sigma**2 - d * math.log(sigma) - 0.5 * d * _LOG_2PI


def _objective_log_density(obj: Objective, theta: np.ndarray, sigma: float) -> np.ndarray:
    out = np.empty(theta.shape[0])
    step = _chunk_rows(obj.n, obj.d)
    for lo in range(0, theta.shape[0], step):
        grad, H = obj.grad_hess(theta[lo : lo + step])
        out[lo : lo + step] = _gaussian_logpdf(-grad, sigma) + _cholesky_logdet(H)
    return out


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
    rows = _theta_rows(theta, obj.d)
    out = _objective_log_density(obj, rows, sigma)
    return out.reshape(np.shape(theta)[:-1])


# --------------------------------------------------------------------------------------------
# The neighbouring pair
# --------------------------------------------------------------------------------------------
def _find_row(X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float) -> int:
    """Index of the first row of D equal to z, or -1."""
    hits = np.flatnonzero(np.all(X == x, axis=1) & (y == yz))
    return int(hits[0]) if hits.size else -1


class ObjPertPair:
    """ObjPert on ``(D, D')`` with ``D' = D ∪ {z}`` (``relation="add"``) or ``D \\ {z}`` (``"remove"``).

    ``sample`` draws ``b ~ N(0, σ²I)`` and solves exactly (batched); ``privacy_loss`` is
    ``log p_D(θ) − log p_D'(θ)`` from :func:`log_density`'s change of variables, using that
    ``J(·; D') = J(·; D) ± ℓ(·; z)`` so the data sum is formed once.  Noise-level view (for rare-event
    importance sampling): ``noise_dim``, ``noise_sigma``, ``release_from_noise(world, b)``.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        target_x: np.ndarray,
        target_y: float,
        *,
        relation: Relation,
        lam: float,
        sigma: float,
        loss: str | Loss = "logistic",
        reg: Regulariser | None = None,
        rtol: float = 1e-10,
        max_iter: int = 100,
    ):
        if relation not in ("add", "remove"):
            raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")
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
            i = _find_row(X, y, self.target_x, self.target_y)
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
            self._ref[world] = _reference(self.obj[world], self.rtol, self.max_iter)
        return self._ref[world]

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        """θ̂ᴾ on ``world`` for each row ``b`` of ``noise`` (shape (trials, d))."""
        theta_ref, M_ref = self.reference(world)
        return _minimise(
            self.obj[world], _check_noise(noise, self.noise_dim), theta_ref, M_ref, self.rtol, self.max_iter
        )

    def noise_from_release(self, world: World, theta: np.ndarray) -> np.ndarray:
        """The noise ``b(θ; world) = −∇J(θ; world)`` that produces ``θ`` (inverse of ``release_from_noise``)."""
        return -self.obj[check_world(world)].evaluate(_theta_rows(theta, self.output_dim)).grad

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        noise = self.sigma * rng.standard_normal((int(size), self.noise_dim))
        return self.release_from_noise(world, noise)

    def log_density(self, world: World, theta: np.ndarray) -> np.ndarray:
        return _objective_log_density(self.obj[check_world(world)], _theta_rows(theta, self.output_dim), self.sigma)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        theta = _theta_rows(outputs, self.output_dim)
        out = np.empty(theta.shape[0])
        step = _chunk_rows(self.obj_d.n, self.obj_d.d)
        for lo in range(0, theta.shape[0], step):
            th = theta[lo : lo + step]
            grad, H = self.obj_d.grad_hess(th)
            gz = self.loss.point_grad(th, self.target_x, self.target_y)
            Hz = self.loss.point_hess(th, self.target_x, self.target_y)
            log_p = _gaussian_logpdf(-grad, self.sigma) + _cholesky_logdet(H)
            log_q = _gaussian_logpdf(-(grad + self.sign * gz), self.sigma) + _cholesky_logdet(H + self.sign * Hz)
            out[lo : lo + step] = log_p - log_q
        return out


# --------------------------------------------------------------------------------------------
# [RW] Theorem 5: calibration
# --------------------------------------------------------------------------------------------
def theorem5_sigma(epsilon: float, delta: float, xi: float, calibration: Calibration = "variance") -> float:
    """Noise scale of ObjPert for (ε, δ)-DP, [RW] Theorem 5 (Kifer et al. 2012).

    Printed: ``σ = ξ²(8 log(2/δ) + 4ε)/ε²``.  ``calibration="printed"`` returns that; ``"variance"`` reads
    the right side as σ² (THEORY.md Q1: b enters the objective like a gradient, so σ must scale like ξ,
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
    return x, float(target_y), _find_row(X, y, x, float(target_y)) >= 0


def theorem6_log_ratio(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    target_x: np.ndarray,
    target_y: float,
    lam: float,
    sigma: float,
    loss: str | Loss = "logistic",
    reg: Regulariser | None = None,
) -> np.ndarray:
    """The expression inside |·| of [RW] Theorem 6 (ex-post pDP of ObjPert, convex loss), rows of θ:

        −log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²,
        μⱼ = λⱼ uⱼᵀ (∇b(θ; D) ∓ Σ_{k<j} λₖuₖuₖᵀ)⁻¹ uⱼ,   ∇²ℓ(θ; z) = Σₖ λₖuₖuₖᵀ,   ∇b(θ; D) = −∇²J(θ; D).

    "±" is "+" if z ∉ D (add) and "−" if z ∈ D (remove), decided by membership.  The eigendecomposition
    is taken at the released θ (the statement writes ∇²ℓ(θ; z) with θ unbound; THEORY.md Q37).
    """
    loss = get_loss(loss)
    obj = Objective(X, y, lam, loss, reg)
    sigma = positive("sigma", sigma)
    x, yz, z_in_d = _target(obj.X, obj.y, target_x, target_y, loss)
    pm = -1.0 if z_in_d else 1.0
    shape = np.shape(theta)[:-1]
    theta = _theta_rows(theta, obj.d)
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


def theorem6_epsilon(theta, X, y, target_x, target_y, lam, sigma, loss="logistic", reg=None) -> np.ndarray:
    """[RW] Theorem 6: ex-post pDP ``ε₁(θ, D, D±z) = |theorem6_log_ratio(...)|``."""
    return np.abs(theorem6_log_ratio(theta, X, y, target_x, target_y, lam, sigma, loss, reg))


def _glm(loss: str | Loss) -> GLMLoss:
    loss = get_loss(loss)
    if not isinstance(loss, GLMLoss):
        raise InputError(f"loss must be a GLM loss (ℓ = f(xᵀθ; y)) for this closed form, got {loss!r}")
    return loss


def generalized_leverage(theta, X, y, target_x, lam, loss="logistic", reg=None) -> np.ndarray:
    """Generalised leverage ``μ(x) = xᵀ(∇²J(θ; D))⁻¹x`` ([RW] Corollary 7; Wei et al. 1998)."""
    obj = Objective(X, y, lam, loss, reg)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    H = obj.hessian(_theta_rows(theta, obj.d))
    return np.linalg.solve(H, np.broadcast_to(x, (H.shape[0], obj.d))[:, :, None])[:, :, 0] @ x


def corollary7_log_ratio(theta, X, y, target_x, target_y, lam, sigma, loss="logistic", reg=None) -> np.ndarray:
    """The expression inside |·| of [RW] Corollary 7 (ex-post pDP of ObjPert for GLMs), rows of θ:

        −log(1 ± f''(·)μ(x)) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²,
        μ(x) = xᵀ(∇²J(θ; D))⁻¹x,  ∇ℓ = f'(xᵀθ; y) x,  f'' = f''(xᵀθ; y);  "±" = "+" iff z ∉ D.

    Printed with "≤"; it is the rank-one case of Theorem 6 and holds with equality (see the tests).
    """
    f = _glm(loss)
    obj = Objective(X, y, lam, f, reg)
    sigma = positive("sigma", sigma)
    x, yz, z_in_d = _target(obj.X, obj.y, target_x, target_y, f)
    pm = -1.0 if z_in_d else 1.0
    theta = _theta_rows(theta, obj.d)
    grad, H = obj.grad_hess(theta)
    t = theta @ x
    f1, f2 = f.f1(t, yz), f.f2(t, yz)
    mu = np.linalg.solve(H, np.broadcast_to(x, theta.shape)[:, :, None])[:, :, 0] @ x
    return -np.log1p(pm * f2 * mu) + (f1**2) * (x @ x) / (2 * sigma**2) + pm * f1 * (grad @ x) / sigma**2


def corollary7_epsilon(theta, X, y, target_x, target_y, lam, sigma, loss="logistic", reg=None) -> np.ndarray:
    """[RW] Corollary 7: ``|corollary7_log_ratio(...)|``."""
    return np.abs(corollary7_log_ratio(theta, X, y, target_x, target_y, lam, sigma, loss, reg))


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
    theta = _theta_rows(theta, x.size)
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
    a = f.f2(_theta_rows(theta, x.size) @ x, float(target_y)) * (x @ x) / lam
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
    g = loss.point_grad(_theta_rows(theta, x.size), x, float(target_y))
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
    """[RW] Theorem 9, GLM form (main text, THEORY.md Q23), for a fixed z, w.p. 1 − ρ over b:

    * ``form="printed"``: ``f'(xᵀθ̂ᴾ; y) σ ‖x‖₂ √(2 log(2/ρ))`` -- signed f', negative when f' < 0;
    * ``form="derived"``: ``|f'(xᵀθ̂ᴾ; y)| σ ‖x‖₂ √(2 log(2/ρ))``.  Valid for each fixed z: the left side is
      ``|f'|·|bᵀx|`` and ``bᵀx ~ N(0, σ²‖x‖²)`` whatever the dependence of f' on b (not uniform in z).
    """
    f = _glm(loss)
    sigma, rho = positive("sigma", sigma), probability("rho", rho)
    x = np.asarray(target_x, dtype=float).reshape(-1)
    f1 = f.f1(_theta_rows(theta, x.size) @ x, float(target_y))
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
        theta_hat = _reference(obj, 1e-10, 100)[0]
        i = int(np.argmax(np.abs(obj.loss.f1(X @ theta_hat, y)) * np.linalg.norm(X, axis=1)))
        z_y = 1.0 if loss == "logistic" else float(np.clip(z_x @ w, -1, 1))
        pairs.append(ObjPertPair(X, y, z_x, z_y, relation="add", lam=lam, sigma=sigma, loss=loss))
        pairs.append(ObjPertPair(X, y, X[i], y[i], relation="remove", lam=lam, sigma=sigma, loss=loss))
    return pairs


OBJPERT = RegisteredMechanism(
    name="objpert",
    description="Objective perturbation ([RW] Alg. 1): argmin J(θ;D) + bᵀθ, exact batched solver and change-of-variables density",
    example_pairs=_example_pairs,
    tags=("continuous", "erm", "pdp"),
)
