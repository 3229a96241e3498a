"""The objective of objective perturbation and its exact batched minimiser.

ObjPert ([RW] Algorithm 1, eq. (1)) releases ``θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ`` with

    J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖².

:class:`Objective` evaluates J, its gradient and Hessian batched over rows of θ; :func:`solve_batch`
minimises ``J + bᵀθ`` for many noise vectors at once, warm-started at the first-order prediction around
the non-private optimum.  The method is damped lazy Newton on ``F(θ) = ∇J(θ) + b = 0``:

* a step ``p = −A⁻¹F`` uses a Hessian ``A`` of J kept from some earlier iterate (its Cholesky factor, so
  the step costs two triangular substitutions), or the shared ``∇²J(θ_ref)⁻¹`` until a trial has its own;
* a fresh factor (``A = ∇²J(θ)``, one packed GEMM for all trials that need one) is taken when the last
  step contracted ‖F‖ too little or the predicted tail of lazy steps is long;
* the merit is ‖F‖ (no objective values): an exact Newton step is backtracked until
  ``‖F(θ + αp)‖² ≤ (1 − 2cα)‖F(θ)‖²``; a lazy step that fails at α = 1 is dropped for a fresh factor.

Converged means ``‖F‖ ≤ rtol · scale`` (:class:`Gradient`).  Chunks of trials run side by side on the cores
(:func:`for_chunks`).  The density, the neighbouring pair and the paper's closed forms are in
:mod:`pdp_audit.mechanisms.objpert`.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from threading import Lock
from typing import Callable, NamedTuple

import numpy as np
from scipy.linalg.blas import dtrsv

from pdp_audit.mechanisms.losses import GLMLoss, Loss, Regulariser, get_loss
from pdp_audit.mechanisms.validation import InputError, positive


class ObjPertSolverError(RuntimeError):
    """The perturbed objective was not minimised to the requested tolerance."""


@dataclass
class FlopCounter:
    """Floating-point operations of the dense kernels (GEMM, factorisations, mat-vecs), for benchmarks."""

    total: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    _lock: Lock = field(default_factory=Lock, repr=False, compare=False)  # chunks run on several threads

    def add(self, kind: str, flops: float, calls: int = 1) -> None:
        with self._lock:
            self.total += flops
            self.counts[kind] = self.counts.get(kind, 0) + calls

    def reset(self) -> None:
        with self._lock:
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
_FACTOR_ROWS = 32  # Hessians unpacked and factorised per LAPACK call: 32 · d² doubles fit a 1 MB L2 up to d ≈ 60


def chunk_rows(n: int, d: int) -> int:
    """Rows per batch so that the (rows, n) and (rows, d, d) work arrays stay around 32 MB."""
    return int(max(16, min(8192, (1 << 22) // (n + 3 * d * d + 1))))


@cache
def _blas_controller():
    """threadpoolctl's controller of the loaded BLAS (created on first use, once numpy's BLAS is loaded), or None."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    return ThreadpoolController()


class _OneBlasThread:
    """BLAS limited to one thread while any caller is inside.  The limit is process-wide, so concurrent callers
    share it: the first to enter sets it, the last to leave restores the original."""

    def __init__(self):
        self._lock, self._users, self._limiter = Lock(), 0, None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0 and _blas_controller() is not None:
                self._limiter = _blas_controller().limit(limits=1, user_api="blas")
            self._users += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._limiter is not None:
                self._limiter.restore_original_limits()
                self._limiter = None


_ONE_BLAS_THREAD = _OneBlasThread()


def _cores() -> int:
    """Threads for the chunks: the cores this process may use, but no more than BLAS is allowed now -- a worker
    process whose pool limited BLAS to one thread (one worker per core) must not add threads of its own."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    controller = _blas_controller()
    if controller is None:
        return cores
    blas = [lib.num_threads for lib in controller.select(user_api="blas").lib_controllers]
    return min(cores, max(blas, default=cores))


def for_chunks(work: Callable[[slice], None], rows: int, step: int, parallel: bool = True) -> None:
    """``work(chunk)`` for the consecutive slices of ``step`` rows of ``rows``, the chunks spread over the cores.

    Several chunks run on threads, each with single-threaded BLAS: a chunk's GEMMs are mid-sized and the rest
    (ufuncs, per-matrix LAPACK calls) is single-threaded anyway, so chunks side by side use the cores better than
    one chunk at a time with BLAS threads waiting on each other -- which also stall badly when the machine is
    shared (2.7x slower, measured on 2 busy cores).  numpy releases the GIL in all of these; the chunks and the
    BLAS setting, and so the results, do not depend on the number of threads or cores.  ``parallel=False``: one
    chunk at a time (work that holds the GIL, such as the per-point Python loops of a non-GLM loss, gains nothing
    from threads).  A single chunk runs as called: switching BLAS's thread count would slow the caller's next
    small BLAS calls.
    """
    chunks = [slice(lo, lo + step) for lo in range(0, rows, step)]
    if len(chunks) < 2:
        for chunk in chunks:
            work(chunk)
        return
    threads = min(len(chunks), _cores()) if parallel else 1  # read before BLAS is limited below
    with _ONE_BLAS_THREAD:
        if threads < 2:
            for chunk in chunks:
                work(chunk)
            return
        with ThreadPoolExecutor(threads) as pool:
            for _ in pool.map(work, chunks):  # re-raises the first error of a chunk
                pass


# --------------------------------------------------------------------------------------------
# The objective J(θ; D) and its derivatives, batched over rows of θ
# --------------------------------------------------------------------------------------------
class Evaluation(NamedTuple):
    """``J(θ) + bᵀθ`` at rows of θ, with its gradient, the gradient's scale and the value's rounding scale."""

    value: np.ndarray  # J(θ) + bᵀθ                       (T,)
    grad: np.ndarray  # ∇J(θ) + b                          (T, d)
    scale: np.ndarray  # ‖b‖ + λ‖θ‖ + Σᵢ‖∇ℓᵢ‖ + ‖∇r‖      (T,)  size of the terms that cancel at θ̂
    magnitude: np.ndarray  # Σᵢ|ℓᵢ| + |r| + λ‖θ‖²/2 + |bᵀθ|   (T,)  rounding scale of ``value``


class Gradient(NamedTuple):
    """The gradient of ``J(θ) + bᵀθ`` at rows of θ: all a solver step needs (its merit is ‖∇J + b‖, not J)."""

    grad: np.ndarray  # ∇J(θ) + b                          (T, d)
    scale: np.ndarray  # ‖b‖ + λ‖θ‖ + Σᵢ‖∇ℓᵢ‖ + ‖∇r‖      (T,)  as in Evaluation
    t: np.ndarray | None  # xᵢᵀθ (T, n) of a GLM loss, kept for the Hessian at the same θ; None otherwise


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

    def _weights(self, theta: np.ndarray, t: np.ndarray | None) -> np.ndarray:
        return self.loss.f2(self._t(theta) if t is None else t, self.y)

    def _packed(self, w: np.ndarray) -> np.ndarray:
        """Upper triangles of ``Σᵢ wᵢ xᵢxᵢᵀ`` for each row of ``w`` (T, n): one GEMM, (T, d(d+1)/2)."""
        FLOPS.add("gemm_hess", 2.0 * w.shape[0] * self.n * self._K.shape[1])
        return w @ self._K

    def _unpack(self, packed: np.ndarray) -> np.ndarray:
        return packed[:, self._full_index].reshape(packed.shape[0], self.d, self.d)

    def _hessian_from_weights(self, w: np.ndarray) -> np.ndarray:
        """``Σᵢ wᵢ xᵢxᵢᵀ`` for each row of ``w`` (T, n), as (T, d, d)."""
        if self._K is None:
            FLOPS.add("gemm_hess", 2.0 * w.shape[0] * self.n * self.d**2)
            return np.matmul(self.X.T[None] * w[:, None, :], self.X)
        return self._unpack(self._packed(w))

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

    def gradient(self, theta: np.ndarray, b: np.ndarray | None = None) -> Gradient:
        """Gradient and gradient scale of ``J(θ) + bᵀθ`` for rows of θ, as in :meth:`evaluate` but without the
        value: f' alone costs about half of (f, f') for the logistic loss (no log1p)."""
        theta = np.atleast_2d(theta)
        t = None
        if self.glm:
            t = self._t(theta)
            f1 = self.loss.f1(t, self.y)
            FLOPS.add("gemm_grad", 2.0 * theta.shape[0] * self.n * (self.d + 1))
            grad = f1 @ self.X
            scale = np.abs(f1, out=f1) @ self._xnorm
        else:
            grad, scale = np.zeros_like(theta), np.zeros(theta.shape[0])
            for x, yi in zip(self.X, self.y):
                g = self.loss.point_grad(theta, x, yi)
                grad, scale = grad + g, scale + np.linalg.norm(g, axis=1)
        grad += self.lam * theta
        scale += self.lam * np.linalg.norm(theta, axis=1)
        if self.reg is not None:
            rg = self.reg.grad(theta)
            grad += rg
            scale += np.linalg.norm(rg, axis=1)
        if b is not None:
            grad += b
            scale += np.linalg.norm(b, axis=1)
        return Gradient(grad, scale, t)

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

    def hessian(self, theta: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """``∇²J(θ)`` for rows of θ, shape (T, d, d); ``t``: the products ``xᵢᵀθ`` if already at hand (GLM)."""
        theta = np.atleast_2d(theta)
        if self.glm:
            H = self._hessian_from_weights(self._weights(theta, t))
        else:
            H = np.zeros((theta.shape[0], self.d, self.d))
            for x, yi in zip(self.X, self.y):
                H += self.loss.point_hess(theta, x, yi)
        return self._add_ridge(H, theta)

    def hessian_factors(self, theta: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """Lower Cholesky factors of ``∇²J(θ)`` for rows of θ, batch-last (d, d, T) for :func:`cholesky_solve`.

        One GEMM forms the packed Hessians of all rows; unpacking and factorising then go block by block, so
        that each block of (d, d) matrices is still in cache when numpy copies it in and out of LAPACK.
        """
        theta = np.atleast_2d(theta)
        packed = H = None
        if self.glm and self._K is not None:
            packed = self._packed(self._weights(theta, t))
        else:
            H = self.hessian(theta, t)
        LT = np.empty((self.d, self.d, theta.shape[0]))
        for lo in range(0, theta.shape[0], _FACTOR_ROWS):
            rows = slice(lo, lo + _FACTOR_ROWS)
            block = H[rows] if packed is None else self._add_ridge(self._unpack(packed[rows]), theta[rows])
            LT[:, :, rows] = cholesky(block).transpose(1, 2, 0)
        return LT


def cholesky(H: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors of stacked Hessians of J (d³/3 flops each); InputError if one is not PD."""
    FLOPS.add("cholesky", H.shape[0] * H.shape[-1] ** 3 / 3.0, H.shape[0])
    try:
        return np.linalg.cholesky(H)
    except np.linalg.LinAlgError as exc:
        raise InputError("the Hessian of J is not positive definite: the loss or regulariser is not convex") from exc


def cholesky_logdet(H: np.ndarray) -> np.ndarray:
    """``log det H`` of stacked symmetric positive-definite matrices via Cholesky."""
    return 2.0 * np.log(np.diagonal(cholesky(H), axis1=-2, axis2=-1)).sum(axis=-1)


def _per_system(LT: np.ndarray, x: np.ndarray, trans: int) -> np.ndarray:
    """``L⁻¹x`` (``trans=0``) or ``L⁻ᵀx`` (``trans=1``) column by column of x (d, T), one BLAS trsv each."""
    for t in range(x.shape[1]):
        x[:, t] = dtrsv(LT[:, :, t], x[:, t], lower=1, trans=trans)
    return x


def forward_substitution(LT: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``L⁻¹g`` for each system, as (d, T); lower factors batch-last, ``LT[i, j, t] = L_t[i, j]``, and right
    sides ``g`` of shape (d, T) (or (d,) for all).  d² flops per system.

    numpy has no batched triangular solve, so the substitution loops over the d unknowns, every step one
    operation on contiguous length-T vectors.  Those steps cost some µs each whatever T, so fewer systems than
    unknowns are solved one BLAS trsv each instead.
    """
    d, T = LT.shape[1:]
    FLOPS.add("substitution", 1.0 * d * d * T, T)
    x = np.array(np.broadcast_to(g.reshape(d, -1), (d, T)))
    if T < d:
        return _per_system(LT, x, trans=0)
    for j in range(d):  # y_j = (g_j − Σ_{k<j} L_jk y_k) / L_jj
        x[j] -= np.einsum("kt,kt->t", LT[j, :j], x[:j])
        x[j] /= LT[j, j]
    return x


def cholesky_solve(LT: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``(L Lᵀ)⁻¹ g`` for rows ``g`` (T, d), with lower factors batch-last as in :func:`forward_substitution`.

    Solving with a kept factor is what makes lazy steps cheap: ``np.linalg.solve`` would refactorise (LU,
    2d³/3 flops and a copy in and out per system) every time.  2d² flops per system.
    """
    x = forward_substitution(LT, g.T)
    d, T = x.shape
    FLOPS.add("substitution", 1.0 * d * d * T, T)
    if T < d:
        return _per_system(LT, x, trans=1).T
    for j in range(d - 1, -1, -1):  # Lᵀ x = y by columns of Lᵀ (rows of L): x_j, then y_<j −= x_j L_j,<j
        x[j] /= LT[j, j]
        x[:j] -= LT[j, :j] * x[j]
    return x.T


def _rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``a[rows]`` for sorted distinct ``rows``, without the copy when they are all of ``a``'s rows."""
    return a if rows.size == a.shape[0] else a[rows]


def _subset(g: Gradient, mask: np.ndarray) -> Gradient:
    return Gradient(*(None if a is None else a[mask] for a in g))


# --------------------------------------------------------------------------------------------
# Batched solver
# --------------------------------------------------------------------------------------------
_ARMIJO_C = 1e-4
_CONTRACTION = 0.25  # a step that shrinks ‖∇‖ by less than this factor earns the trial a new Hessian
_MAX_LAZY_STEPS = 2  # ... and so does a predicted tail of more lazy steps than this
_MAX_HALVINGS = 40


class _Chunk:
    """Solver state of a batch of trials: iterate, its gradient, and each trial's Hessian factor.

    Until a trial needs its own Hessian it uses the shared ``M_ref = ∇²J(θ_ref)⁻¹`` (one GEMM for all);
    ``own`` trials keep the Cholesky factor ``L`` of ``∇²J`` at some earlier iterate, ``fresh`` ones at the
    current iterate.
    """

    def __init__(self, obj: Objective, b: np.ndarray, theta: np.ndarray, M_ref: np.ndarray, own: bool):
        self.obj, self.b, self.theta, self.M_ref = obj, b, theta, M_ref
        self.at = obj.gradient(theta, b)
        self.gnorm = np.linalg.norm(self.at.grad, axis=1)
        size = b.shape[0]
        self.LT = np.empty((obj.d, obj.d, size))  # Cholesky factors of own Hessians, batch-last
        self.own = np.zeros(size, dtype=bool)
        self.fresh = np.zeros(size, dtype=bool)
        if own:  # no useful shared M_ref (the reference solution itself): every trial starts with its own Hessian
            self.refresh(np.arange(size))

    def refresh(self, rows: np.ndarray) -> None:
        """Factorise ``∇²J`` at the current iterate of ``rows`` (sorted, distinct)."""
        if rows.size == 0:
            return
        t = None if self.at.t is None else _rows(self.at.t, rows)
        LT = self.obj.hessian_factors(_rows(self.theta, rows), t)
        if rows.size == self.own.size:
            self.LT = LT
        else:
            self.LT[:, :, rows] = LT
        self.own[rows] = self.fresh[rows] = True

    def direction(self, rows: np.ndarray) -> np.ndarray:
        """``−∇²J⁻¹ ∇`` (own factor, two substitutions) or ``−M_ref ∇`` (shared, one GEMM)."""
        g = _rows(self.at.grad, rows)
        own = self.own[rows]
        if np.all(own):
            return -cholesky_solve(self.LT if rows.size == self.own.size else self.LT[:, :, rows], g)
        p = np.empty_like(g)
        if np.any(own):
            p[own] = -cholesky_solve(self.LT[:, :, rows[own]], g[own])
        FLOPS.add("gemm_dir", 2.0 * self.obj.d**2 * int((~own).sum()))
        p[~own] = -g[~own] @ self.M_ref
        return p

    def line_search(self, rows: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Gradient]:
        """Backtracking on the merit ``‖F‖``, ``F = ∇J + b``, from the full step.

        An exact Newton direction ``p = −∇²J⁻¹F`` has slope ``−‖F‖²`` on ``½‖F‖²``, so Armijo reads
        ``‖F(θ + αp)‖² ≤ (1 − 2cα)‖F(θ)‖²``; with ∇²J ⪰ λI that damped Newton converges globally (Nocedal &
        Wright, Thm 11.6).  A lazy direction need not descend: one whose full step fails is not shortened,
        the trial gets a fresh Hessian instead.  Returns (accepted, α, θ + αp, its Gradient) for ``rows``.
        """
        fresh, old = self.fresh[rows], _rows(self.gnorm, rows) ** 2
        alpha = np.ones(rows.size)
        theta = _rows(self.theta, rows) + p
        new = self.obj.gradient(theta, _rows(self.b, rows))  # rejected rows are overwritten while backtracking
        accepted = np.einsum("ti,ti->t", new.grad, new.grad) <= (1.0 - 2.0 * _ARMIJO_C) * old
        todo = np.flatnonzero(~accepted & fresh)
        for _ in range(_MAX_HALVINGS - 1):
            if todo.size == 0:
                break
            alpha[todo] *= 0.5
            theta[todo] = self.theta[rows[todo]] + alpha[todo, None] * p[todo]
            at = self.obj.gradient(theta[todo], self.b[rows[todo]])
            ok = np.einsum("ti,ti->t", at.grad, at.grad) <= (1.0 - 2.0 * _ARMIJO_C * alpha[todo]) * old[todo]
            for mine, trial in zip(new, at):
                if mine is not None:
                    mine[todo[ok]] = trial[ok]
            accepted[todo[ok]] = True
            todo = todo[~ok]
        return accepted, alpha, theta, new

    def accept(self, rows: np.ndarray, theta: np.ndarray, new: Gradient, gnorm: np.ndarray) -> None:
        """Move ``rows`` (sorted, distinct) to ``theta`` with gradient ``new``."""
        if rows.size == self.theta.shape[0]:
            self.theta, self.at, self.gnorm = theta, new, gnorm
            return
        self.theta[rows], self.gnorm[rows] = theta, gnorm
        for mine, moved in zip(self.at, new):
            if mine is not None:
                mine[rows] = moved

    def step(self, rtol: float) -> bool:
        """One damped (lazy) Newton step of every unconverged trial; False once all have converged."""
        rows = np.flatnonzero(self.gnorm > rtol * self.at.scale)
        if rows.size == 0:
            return False
        accepted, alpha, theta, new = self.line_search(rows, self.direction(rows))
        stuck = rows[~accepted]
        if np.any(self.fresh[stuck]):
            worst = float(np.max(self.gnorm[stuck] / self.at.scale[stuck]))
            raise ObjPertSolverError(
                f"line search failed along an exact Newton direction (relative gradient {worst:.3g})"
            )
        if not np.all(accepted):
            alpha, theta, new = alpha[accepted], theta[accepted], _subset(new, accepted)
        moved = rows[accepted]
        new_gnorm = np.linalg.norm(new.grad, axis=1)
        rate = new_gnorm / np.maximum(self.gnorm[moved], np.finfo(float).tiny)
        self.accept(moved, theta, new, new_gnorm)
        self.fresh[moved] = False
        # Lazy steps contract ‖∇‖ at about the last rate; refresh when that would take too many of them.
        with np.errstate(divide="ignore", invalid="ignore"):
            lazy_steps = np.log(np.maximum(new_gnorm / (rtol * new.scale), 1.0)) / -np.log(np.minimum(rate, 0.5))
        slow = (rate > _CONTRACTION) | (alpha < 1) | (lazy_steps > _MAX_LAZY_STEPS)
        self.refresh(np.union1d(moved[slow], stuck))
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
    bad = chunk.gnorm > rtol * chunk.at.scale
    if not np.any(bad):
        return chunk.theta
    raise ObjPertSolverError(
        f"ObjPert solver did not converge in max_iter={max_iter} iterations for {int(bad.sum())} of {bad.size} trials "
        f"(worst relative gradient {float(np.max(chunk.gnorm / chunk.at.scale)):.3g} > rtol={rtol:g})"
    )


def minimise(
    obj: Objective, b: np.ndarray, theta_ref: np.ndarray, M_ref: np.ndarray, rtol: float, max_iter: int
) -> np.ndarray:
    """Batched argmin of ``J(θ) + bᵀθ`` for the rows of ``b``, warm-started at the first-order prediction.

    Around the non-private optimum ``θ_ref`` (where ∇J = 0), ``∇J(θ_ref + Δ) + b ≈ HΔ + b``, so the start
    is ``θ_ref − H⁻¹b`` with ``H⁻¹ = M_ref``, shared by all trials until a trial needs its own Hessian.
    """
    out = np.empty_like(b)

    def solve(chunk: slice) -> None:
        bc = b[chunk]
        FLOPS.add("gemm_start", 2.0 * bc.shape[0] * obj.d**2)
        out[chunk] = _solve(obj, bc, theta_ref - bc @ M_ref, M_ref, rtol, max_iter)

    for_chunks(solve, b.shape[0], chunk_rows(obj.n, obj.d), parallel=obj.glm)
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
