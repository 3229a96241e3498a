"""The exact batched minimiser of objective perturbation.

ObjPert ([RW] Algorithm 1, eq. (1)) releases ``θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ`` with

    J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖²

(:class:`pdp_audit.mechanisms.objpert.objective.Objective`).  :func:`solve_batch` minimises ``J + bᵀθ`` for many
noise vectors at once, warm-started at the first-order prediction around the non-private optimum.  The method is
damped lazy Newton on ``F(θ) = ∇J(θ) + b = 0``:

* a step ``p = −A⁻¹F`` uses a Hessian ``A`` of J kept from some earlier iterate (its Cholesky factor, so
  the step costs two triangular substitutions), or the shared ``∇²J(θ_ref)⁻¹`` until a trial has its own;
* a fresh factor (``A = ∇²J(θ)``, one packed GEMM for all trials that need one) is taken when the last
  step contracted ‖F‖ too little or the predicted tail of lazy steps is long;
* the merit is ‖F‖ (no objective values): an exact Newton step is backtracked until
  ``‖F(θ + αp)‖² ≤ (1 − 2cα)‖F(θ)‖²``; a lazy step that fails at α = 1 is dropped for a fresh factor.

Converged means ``‖F‖ ≤ rtol · scale`` (:class:`pdp_audit.mechanisms.objpert.objective.Gradient`).  Chunks of
trials run side by side on the cores (:func:`pdp_audit.verify.inputs.blas_threads.for_chunks`).  The density, the
neighbouring pair and the paper's closed forms are in :mod:`pdp_audit.mechanisms.objpert.mechanism`.
"""

from __future__ import annotations

import numpy as np

from pdp_audit.mechanisms.batched_cholesky import FLOPS, cholesky_solve
from pdp_audit.mechanisms.losses import Loss, Regulariser
from pdp_audit.mechanisms.objpert.objective import Gradient, Objective
from pdp_audit.verify.inputs.blas_threads import for_chunks
from pdp_audit.verify.inputs.validation import InputError, positive


class ObjPertSolverError(RuntimeError):
    """The perturbed objective was not minimised to the requested tolerance."""


def theta_rows(theta: np.ndarray, d: int) -> np.ndarray:
    """``theta`` of shape (d,) or (rows, d) as a 2-D array of rows (InputError for any other shape)."""
    theta = np.asarray(theta, dtype=float)
    if theta.shape[-1:] != (d,) or theta.ndim > 2:
        raise InputError(f"theta must have shape (d,) or (rows, d) with d = {d}, got {theta.shape}")
    return np.atleast_2d(theta)


def chunk_rows(n: int, d: int) -> int:
    """Rows per batch so that the (rows, n) and (rows, d, d) work arrays stay around 32 MB."""
    return int(max(16, min(8192, (1 << 22) // (n + 3 * d * d + 1))))


def _rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``a[rows]`` for sorted distinct ``rows``, without the copy when they are all of ``a``'s rows."""
    return a if rows.size == a.shape[0] else a[rows]


def _subset(g: Gradient, mask: np.ndarray) -> Gradient:
    return Gradient(g.grad[mask], g.scale[mask], None if g.t is None else g.t[mask])


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
                if mine is not None and trial is not None:  # t is kept by both or neither (the same loss)
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
