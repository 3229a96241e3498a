"""The objective of objective perturbation and its exact batched minimiser.

ObjPert ([RW] Algorithm 1, eq. (1)) releases ``θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ`` with

    J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖².

:class:`Objective` evaluates J, its gradient and Hessian batched over rows of θ; :func:`solve_batch`
minimises ``J + bᵀθ`` for many noise vectors at once (damped lazy Newton, warm-started at the
first-order prediction around the non-private optimum).  The density, the neighbouring pair and the
paper's closed forms are in :mod:`mechanisms.objpert`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from mechanisms.losses import GLMLoss, Loss, Regulariser, get_loss
from mechanisms.validation import InputError, positive

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


def theta_rows(theta: np.ndarray, d: int) -> np.ndarray:
    """``theta`` of shape (d,) or (rows, d) as a 2-D array of rows (InputError for any other shape)."""
    theta = np.asarray(theta, dtype=float)
    if theta.shape[-1:] != (d,) or theta.ndim > 2:
        raise InputError(f"theta must have shape (d,) or (rows, d) with d = {d}, got {theta.shape}")
    return np.atleast_2d(theta)


_MAX_PACKED = 1 << 25


def chunk_rows(n: int, d: int) -> int:
    """Rows per batch so that the (rows, n) and (rows, d, d) work arrays stay around 32 MB."""
    return int(max(16, min(8192, (1 << 22) // (n + 3 * d * d + 1))))


# --------------------------------------------------------------------------------------------
# The objective J(θ; D) and its derivatives, batched over rows of θ
# --------------------------------------------------------------------------------------------
class Evaluation(NamedTuple):
    """``J(θ) + bᵀθ`` at rows of θ, with what the solver's convergence and line-search tests need."""

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


def cholesky_logdet(H: np.ndarray) -> np.ndarray:
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


def minimise(
    obj: Objective, b: np.ndarray, theta_ref: np.ndarray, M_ref: np.ndarray, rtol: float, max_iter: int
) -> np.ndarray:
    """Batched argmin of ``J(θ) + bᵀθ`` for the rows of ``b``, warm-started at the first-order prediction.

    Around the non-private optimum ``θ_ref`` (where ∇J = 0), ``∇J(θ_ref + Δ) + b ≈ HΔ + b``, so the start
    is ``θ_ref − H⁻¹b`` with ``H⁻¹ = M_ref``, shared by all trials until a trial needs its own Hessian.
    """
    out = np.empty_like(b)
    step = chunk_rows(obj.n, obj.d)
    for lo in range(0, b.shape[0], step):
        bc = b[lo : lo + step]
        FLOPS.add("gemm_start", 2.0 * bc.shape[0] * obj.d**2)
        out[lo : lo + step] = _solve(obj, bc, theta_ref - bc @ M_ref, M_ref, rtol, max_iter)
    return out


def reference_solution(obj: Objective, rtol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Non-private solution ``θ̂ = argmin J(θ; D)`` (damped Newton from 0) and ``∇²J(θ̂)⁻¹``."""
    zero = np.zeros((1, obj.d))
    theta = _solve(obj, zero, zero.copy(), np.eye(obj.d), rtol, max_iter, own=True)
    return theta[0], np.linalg.inv(obj.hessian(theta))[0]


def check_noise(noise: np.ndarray, d: int) -> np.ndarray:
    """``noise`` as a finite float array of shape (trials, d) (InputError otherwise)."""
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
    theta_ref, M_ref = reference_solution(obj, rtol, max_iter)
    return minimise(obj, check_noise(noise, obj.d), theta_ref, M_ref, rtol, max_iter)


def find_row(X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float) -> int:
    """Index of the first row of D equal to z, or -1."""
    hits = np.flatnonzero(np.all(X == x, axis=1) & (y == yz))
    return int(hits[0]) if hits.size else -1
