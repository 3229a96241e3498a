"""Batched Cholesky kernels of the ObjPert solver, and the flop counter of its dense kernels.

numpy factorises stacks of matrices (``np.linalg.cholesky``) but has no batched triangular solve:
:func:`forward_substitution` and :func:`cholesky_solve` solve many systems with kept factors, batch-last, by
looping over the d unknowns on contiguous length-T vectors (one BLAS trsv per system when there are fewer systems
than unknowns).  :data:`FLOPS` counts the floating-point operations of GEMMs, factorisations and substitutions, for
benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from threading import Lock

import numpy as np

from pdp_audit.verify.inputs.validation import InputError


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
    from scipy.linalg.blas import dtrsv  # scipy where it is used: the plans' parsers import this module

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
