"""Monte Carlo of the GOE noise of [RW] Algorithm 6: extreme eigenvalues and spectral norms of N = σ(Z + Zᵀ)/√2.

Drawn in blocks of :data:`MATRIX_BLOCK` matrices, each seeded by its identity
(:mod:`pdp_audit.verify.estimators.engine`), with one
BLAS thread per process (small eigenproblems only lose time to threads).
"""

from __future__ import annotations

from concurrent.futures import Executor

import numpy as np

from pdp_audit.mechanisms import goe
from pdp_audit.verify.estimators.engine import one_blas_thread, run_blocks
from pdp_audit.verify.estimators.progress import weighted

#: Matrices per block of the Monte Carlo of ‖N‖₂ (part of the code version: results depend on it).
MATRIX_BLOCK = 1024


class ExtremeEigenvalues:
    """Picklable block work: (λ_min, λ_max) of ``size`` draws of N = σ (Z + Zᵀ)/√2 (Algorithm 6's noise)."""

    def __init__(self, d: int, sigma: float):
        self.d, self.sigma = d, sigma

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        with one_blas_thread():
            return goe.sample_goe_extreme_eigenvalues(self.d, size, rng, self.sigma)


def sample_extremes(
    d: int, sigma: float, n: int, seed: int, stream: str, executor: Executor | None, progress: bool
) -> np.ndarray:
    """(λ_min, λ_max) of ``n`` draws of Algorithm 6's d×d noise at scale ``sigma``, as an (n, 2) array; each draw
    weighs :func:`matrix_weight` on the whole audit's progress bar."""
    with weighted(matrix_weight(d)):
        return run_blocks(ExtremeEigenvalues(d, sigma), n, seed, stream, executor, progress, block_size=MATRIX_BLOCK)


def matrix_weight(d: int) -> int:
    """What one d×d noise matrix weighs on the whole audit's progress bar, in privacy-loss draws of the audit's pairs
    (:func:`pdp_audit.verify.estimators.progress.weighted`), so the bar's time left follows the work: its symmetric
    eigenproblem costs about 4 + d²/8 of them (CPU time on one BLAS thread: 2 µs at d = 1, 21 µs at 20, 136 µs at 50,
    450 µs at 100, against about 0.4 µs a draw for the audit's plain and importance-sampled losses at its defaults)."""
    return 4 + d * d // 8


def spectral_norms(extremes: np.ndarray) -> np.ndarray:
    """‖N‖₂ = max(−λ_min, λ_max) of each draw of :func:`sample_extremes`."""
    return np.maximum(-extremes[:, 0], extremes[:, 1])
