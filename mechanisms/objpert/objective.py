"""The objective of objective perturbation, ``J(θ; D) = Σᵢ ℓ(θ; zᵢ) + r(θ) + (λ/2)‖θ‖²`` ([RW] Algorithm 1,
eq. (1)), with its gradient and Hessian batched over rows of θ.

For GLM losses ``ℓ(θ; (x, y)) = f(xᵀθ; y)`` every derivative is a few large BLAS calls on the products ``xᵢᵀθ``:
the gradient ``Σᵢ f′ᵢ xᵢ`` one GEMM, the Hessian ``Σᵢ f″ᵢ xᵢxᵢᵀ`` one GEMM on the packed upper triangles of the
outer products; other convex losses are summed point by point.  :mod:`pdp_audit.mechanisms.objpert.solver`
minimises ``J + bᵀθ``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pdp_audit.mechanisms.batched_cholesky import FLOPS, cholesky
from pdp_audit.mechanisms.losses import GLMLoss, Loss, Regulariser, get_loss
from pdp_audit.verify.inputs.validation import InputError, positive


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


_MAX_PACKED = 1 << 25
_FACTOR_ROWS = 32  # Hessians unpacked and factorised per LAPACK call: 32 · d² doubles fit a 1 MB L2 up to d ≈ 60


class Evaluation(NamedTuple):
    """``J(θ) + bᵀθ`` at rows of θ, with its gradient and the gradient's scale."""

    value: np.ndarray  # J(θ) + bᵀθ                       (T,)
    grad: np.ndarray  # ∇J(θ) + b                          (T, d)
    scale: np.ndarray  # ‖b‖ + λ‖θ‖ + Σᵢ‖∇ℓᵢ‖ + ‖∇r‖      (T,)  size of the terms that cancel at θ̂


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
    @property
    def glm_loss(self) -> GLMLoss:
        """The loss as a GLM: read only on the paths taken where ``self.glm``."""
        assert isinstance(self.loss, GLMLoss)
        return self.loss

    def _t(self, theta: np.ndarray) -> np.ndarray:
        FLOPS.add("gemm_t", 2.0 * theta.shape[0] * self.n * self.d)
        return theta @ self.X.T

    def _weights(self, theta: np.ndarray, t: np.ndarray | None) -> np.ndarray:
        return self.glm_loss.f2(self._t(theta) if t is None else t, self.y)

    def _packed(self, w: np.ndarray) -> np.ndarray:
        """Upper triangles of ``Σᵢ wᵢ xᵢxᵢᵀ`` for each row of ``w`` (T, n): one GEMM, (T, d(d+1)/2)."""
        K = self._K
        assert K is not None  # called only where the packed outer products were formed
        FLOPS.add("gemm_hess", 2.0 * w.shape[0] * self.n * K.shape[1])
        return w @ K

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
        """Value, gradient and gradient scale of ``J(θ) + bᵀθ`` for rows of θ."""
        theta = np.atleast_2d(theta)
        if self.glm:
            t = self._t(theta)
            fv, f1 = self.glm_loss.f_f1(t, self.y)
            FLOPS.add("gemm_grad", 2.0 * theta.shape[0] * self.n * (self.d + 2))
            value, grad = fv.sum(axis=1), f1 @ self.X
            gscale = np.abs(f1) @ self._xnorm
        else:
            value = np.zeros(theta.shape[0])
            grad = np.zeros_like(theta)
            gscale = np.zeros(theta.shape[0])
            for x, yi in zip(self.X, self.y):
                v, g = self.loss.point_value(theta, x, yi), self.loss.point_grad(theta, x, yi)
                value, grad = value + v, grad + g
                gscale = gscale + np.linalg.norm(g, axis=1)
        ridge = 0.5 * self.lam * np.einsum("ti,ti->t", theta, theta)
        value = value + ridge
        grad = grad + self.lam * theta
        gscale = gscale + self.lam * np.linalg.norm(theta, axis=1)
        if self.reg is not None:
            rv, rg = self.reg.value(theta), self.reg.grad(theta)
            value, grad = value + rv, grad + rg
            gscale = gscale + np.linalg.norm(rg, axis=1)
        if b is not None:
            lin = np.einsum("ti,ti->t", theta, b)
            value, grad = value + lin, grad + b
            gscale = gscale + np.linalg.norm(b, axis=1)
        return Evaluation(value, grad, gscale)

    def gradient(self, theta: np.ndarray, b: np.ndarray | None = None) -> Gradient:
        """Gradient and gradient scale of ``J(θ) + bᵀθ`` for rows of θ, as in :meth:`evaluate` but without the
        value: f' alone costs about half of (f, f') for the logistic loss (no log1p)."""
        theta = np.atleast_2d(theta)
        t = None
        if self.glm:
            t = self._t(theta)
            f1 = self.glm_loss.f1(t, self.y)
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
            grad = self.glm_loss.f1(t, self.y) @ self.X
            H = self._hessian_from_weights(self.glm_loss.f2(t, self.y))
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

    def glm_hessian(self, theta: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``∇²J(θ)`` for rows of θ of a GLM loss whose weights ``w = f''(xᵢᵀθ)`` (T, n) are at hand (a caller that
        needs f'' anyway: the same arithmetic as :meth:`hessian`, without the products xᵢᵀθ and f'' again)."""
        if not self.glm:
            raise TypeError("glm_hessian needs a GLM loss")
        return self._add_ridge(self._hessian_from_weights(w), np.atleast_2d(theta))

    def hessian_factors(self, theta: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """Lower Cholesky factors of ``∇²J(θ)`` for rows of θ, batch-last (d, d, T) for :func:`cholesky_solve`.

        One GEMM forms the packed Hessians of all rows; unpacking and factorising then go block by block, so
        that each block of (d, d) matrices is still in cache when numpy copies it in and out of LAPACK.
        """
        theta = np.atleast_2d(theta)
        packed: np.ndarray | None = None
        H: np.ndarray | None = None
        if self.glm and self._K is not None:
            packed = self._packed(self._weights(theta, t))
        else:
            H = self.hessian(theta, t)
        LT = np.empty((self.d, self.d, theta.shape[0]))
        for lo in range(0, theta.shape[0], _FACTOR_ROWS):
            rows = slice(lo, lo + _FACTOR_ROWS)
            if packed is not None:
                block = self._add_ridge(self._unpack(packed[rows]), theta[rows])
            else:
                assert H is not None  # formed whole where the packed products are not
                block = H[rows]
            LT[:, :, rows] = cholesky(block).transpose(1, 2, 0)
        return LT
