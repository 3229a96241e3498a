"""Releasing a symmetric matrix H(D) = sum_i H_(z_i): "Analyze Gauss" and its GOE variant.

* [RW-app D] / Dwork et al. (2014b), "Analyze Gauss": release the upper triangle
  (diagonal included) of ``H`` plus iid ``N(0, s^2)`` noise.
* [RW] Algorithm 6, the GOE variant: release ``H + (Z + Z^T)/sqrt(2)`` with
  ``Z_ij ~ N(0, sigma_3^2)`` iid -- off-diagonal noise variance ``sigma_3^2``, diagonal ``2 sigma_3^2``.

Both outputs are represented by ``vech(H_hat)``, the upper triangle in ``np.triu_indices`` order, of
dimension ``d (d + 1) / 2``.  A neighbour changes ``H`` by ``Delta = H_x`` (added individual) or
``-H_x`` (removed), e.g. ``H_x = f''(x^T theta) x x^T`` for a GLM Hessian or ``x x^T`` for ``X^T X``.

The privacy loss of either release is that of a Gaussian with independent coordinates of known
variances, computed here from the two output densities; its law under ``D`` is
``N(eta^2/2, eta^2)`` with ``eta = ||vech(Delta) / sd||``.  The papers' closed forms
([RW] Theorem 17, the classical Analyze-Gauss bound) are plain functions below, for the auditors to
check rather than assume.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdp_audit.mechanisms import gaussian
from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world
from pdp_audit.verify.inputs.validation import InputError, positive, probability

Neighbour = Literal["add", "remove"]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def vech(h: np.ndarray) -> np.ndarray:
    """Upper triangle incl. diagonal of the last two axes, in ``np.triu_indices`` order."""
    h = np.asarray(h, dtype=float)
    rows, cols = np.triu_indices(h.shape[-1])
    return h[..., rows, cols]


def unvech(v: np.ndarray, d: int) -> np.ndarray:
    """Inverse of :func:`vech` on the last axis: the symmetric matrix with upper triangle ``v``."""
    v = np.asarray(v, dtype=float)
    if v.shape[-1] != d * (d + 1) // 2:
        raise InputError(f"v must have d(d+1)/2 = {d * (d + 1) // 2} entries on its last axis, got {v.shape[-1]}")
    rows, cols = np.triu_indices(d)
    out = np.zeros(v.shape[:-1] + (d, d))
    out[..., rows, cols] = v
    out[..., cols, rows] = v
    return out


def _symmetric(name: str, h: np.ndarray) -> np.ndarray:
    h = np.asarray(h, dtype=float)
    if h.ndim != 2 or h.shape[0] != h.shape[1] or h.shape[0] < 1:
        raise InputError(f"{name} must be a square d x d matrix with d >= 1, got shape {h.shape}")
    if not np.all(np.isfinite(h)) or not np.allclose(h, h.T, rtol=0.0, atol=1e-12 * (1 + np.abs(h).max())):
        raise InputError(f"{name} must be a finite symmetric matrix")
    return (h + h.T) / 2


# ---------------------------------------------------------------------------------------------
# the releases as neighbouring pairs
# ---------------------------------------------------------------------------------------------
class _SymmetricMatrixRelease:
    """``vech(H(world)) + noise`` with independent Gaussian coordinates of standard deviations ``noise_sd``.

    ``H(D) = h``; ``H(D') = h + delta`` ("add") or ``h - delta`` ("remove").  Subclasses fix the noise
    law and how it is drawn.
    """

    def __init__(self, h: np.ndarray, delta: np.ndarray, neighbour: Neighbour, noise_sd: np.ndarray):
        self.h = _symmetric("h", h)
        self.delta = _symmetric("delta", delta)
        if self.delta.shape != self.h.shape:
            raise InputError(f"delta must have the shape of h {self.h.shape}, got {self.delta.shape}")
        if neighbour not in ("add", "remove"):
            raise InputError(f"neighbour must be 'add' or 'remove', got {neighbour!r}")
        self.neighbour = neighbour
        self.d = self.h.shape[0]
        self.output_dim = self.d * (self.d + 1) // 2
        self.noise_sd = np.asarray(noise_sd, dtype=float)
        sign = 1.0 if neighbour == "add" else -1.0
        self._means = {"D": vech(self.h), "D'": vech(self.h + sign * self.delta)}

    def mean(self, world: World) -> np.ndarray:
        return self._means[check_world(world)]

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        mean = self.mean(world)
        if size < 0:
            raise InputError(f"size must be >= 0, got {size}")
        return mean + self._noise(size, rng)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """``log p_D(o) - log p_D'(o)`` of the two diagonal Gaussians (common normalisers cancel):

        ``sum_k [(o_k - m'_k)^2 - (o_k - m_k)^2] / (2 sd_k^2) = sum_k (m_k - m'_k)(2 o_k - m_k - m'_k) / (2 sd_k^2)``
        -- the factored form avoids subtracting two large quadratic forms.
        """
        o = np.atleast_2d(np.asarray(outputs, dtype=float))
        if o.shape[-1] != self.output_dim:
            raise InputError(f"outputs must have {self.output_dim} columns, got {o.shape[-1]}")
        m, mp = self._means["D"], self._means["D'"]
        return ((m - mp) * (2 * o - m - mp) / (2 * self.noise_sd**2)).sum(axis=-1)

    @property
    def eta(self) -> float:
        """``||(m_D - m_D') / sd||``: the privacy loss is ``N(eta^2/2, eta^2)`` under D.

        (And ``N(-eta^2/2, eta^2)`` under D'.)
        """
        return float(np.linalg.norm((self._means["D"] - self._means["D'"]) / self.noise_sd))


class AnalyzeGaussPair(_SymmetricMatrixRelease):
    """Standard Analyze Gauss (Dwork et al. 2014b; [RW-app D]): ``vech(H) + N(0, sigma^2 I)``."""

    def __init__(self, h: np.ndarray, delta: np.ndarray, sigma: float, neighbour: Neighbour = "add"):
        self.sigma = positive("sigma", sigma)
        d = np.asarray(h).shape[0] if np.ndim(h) == 2 else 0
        super().__init__(h, delta, neighbour, np.full(d * (d + 1) // 2, self.sigma))

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sigma * rng.standard_normal((size, self.output_dim))


class GoeAnalyzeGaussPair(_SymmetricMatrixRelease):
    """[RW] Algorithm 6: ``H + (Z + Z^T)/sqrt(2)``, ``Z_ij ~ N(0, sigma_3^2)`` iid, released as ``vech``.

    Noise is drawn literally as in Algorithm 6 (all d^2 entries of Z), while the density used by
    :meth:`privacy_loss` is the derived one (diagonal sd ``sqrt(2) sigma_3``, off-diagonal ``sigma_3``),
    so the contract tests check the derivation.
    """

    def __init__(self, h: np.ndarray, delta: np.ndarray, sigma3: float, neighbour: Neighbour = "add"):
        self.sigma3 = positive("sigma3", sigma3)
        d = np.asarray(h).shape[0] if np.ndim(h) == 2 else 0
        rows, cols = np.triu_indices(d)
        super().__init__(h, delta, neighbour, np.where(rows == cols, math.sqrt(2.0), 1.0) * self.sigma3)

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        z = self.sigma3 * rng.standard_normal((size, self.d, self.d))
        return vech((z + np.swapaxes(z, -1, -2)) / math.sqrt(2.0))


# ---------------------------------------------------------------------------------------------
# sensitivities and the papers' closed forms
# ---------------------------------------------------------------------------------------------
def goe_sensitivity(h_x: np.ndarray) -> float:
    """Whitened sensitivity of Algorithm 6 in units of ``sigma_3``: ``||H_x||_F / sqrt(2)``.

    [RW] Theorem 17's proof: Algorithm 6 is equivalent to releasing ``[diag(H)/sqrt(2), strict upper(H)]``
    with ``N(0, sigma_3^2 I)``, whose l2 sensitivity is ``sqrt(sum_(i<j) H_x[i,j]^2 + sum_k H_x[k,k]^2/2)``.
    """
    return float(np.linalg.norm(_symmetric("h_x", h_x)) / math.sqrt(2.0))


def analyze_gauss_sensitivity(h_x: np.ndarray) -> float:
    """l2 sensitivity of Analyze Gauss: ``||vech(H_x)||_2``, between ``||H_x||_F/sqrt(2)`` and ``||H_x||_F`` (M15)."""
    return float(np.linalg.norm(vech(_symmetric("h_x", h_x))))


def theorem17_epsilon(h_x_frobenius: float, sigma3: float, delta: float) -> float:
    """[RW] Theorem 17: ``eps = ||H_x||_F^2 / (4 sigma_3^2) + ||H_x||_F sqrt(2 log(1/delta)) / (sqrt(2) sigma_3)``.

    pDP of Algorithm 6 for the individual with ``||H_x||_F`` given; with ``beta = sup_x ||H_x||_F`` in
    place of ``||H_x||_F``, the (eps, delta)-DP bound of the same theorem.  Also the ex-post pDP bound
    that holds with probability ``1 - 2 delta`` (Q38).
    """
    if not (isinstance(h_x_frobenius, (int, float, np.floating)) and 0.0 <= h_x_frobenius < math.inf):
        raise InputError(f"h_x_frobenius must be a finite number >= 0, got {h_x_frobenius!r}")
    sigma3, delta = positive("sigma3", sigma3), probability("delta", delta)
    f = float(h_x_frobenius)
    return f**2 / (4 * sigma3**2) + f * math.sqrt(2 * math.log(1 / delta)) / (math.sqrt(2) * sigma3)


def theorem17_ex_post_epsilon(h_x: np.ndarray, noise: np.ndarray, sigma3: float) -> np.ndarray:
    """[RW] Theorem 17 / Theorem 22 ex-post pDP of Algorithm 6 at released ``H_hat = H(D) + noise``:

    ``eps(H_hat) = | ||H_x||_F^2 / (4 sigma_3^2) - <H_x, noise>_F / (2 sigma_3^2) |``, ``H_x = H(D') - H(D)``,

    i.e. Theorem 22's ``| ||v||^2/(2 s^2) - v^T e / s^2 |`` in the whitened coordinates of Theorem 17's
    proof (``v = [diag(H_x)/sqrt(2), upper(H_x)]``, ``v^T e = <H_x, noise>_F / 2``).  ``noise`` may carry
    leading batch axes (..., d, d).
    """
    h_x = _symmetric("h_x", h_x)
    sigma3 = positive("sigma3", sigma3)
    inner = np.einsum("ij,...ij->...", h_x, np.asarray(noise, dtype=float))
    return np.abs(np.sum(h_x**2) / (4 * sigma3**2) - inner / (2 * sigma3**2))


def analyze_gauss_epsilon(beta: float, sigma: float, delta: float) -> float:
    """Classical Analyze-Gauss bound (Dwork et al. 2014b; [RW-app D]):

    ``eps = beta^2 / (2 sigma^2) + beta sqrt(2 log(1/delta)) / sigma`` for ``||H_x||_F <= beta``.
    """
    beta, sigma, delta = positive("beta", beta), positive("sigma", sigma), probability("delta", delta)
    return beta**2 / (2 * sigma**2) + beta * math.sqrt(2 * math.log(1 / delta)) / sigma


def theorem17_sigma3(epsilon: float, delta: float, beta: float) -> float:
    """σ₃ at which Theorem 17's DP bound β²/(4σ₃²) + β√(2 log(1/δ))/(√2σ₃) equals ε (root of a quadratic in 1/σ₃).

    With L = log(1/δ): σ₃ = β / (2(√(L + ε) − √L)).  It is s/√2 for the classical Analyze-Gauss calibration s
    (:func:`classical_ag_sigma`): Theorem 17 at σ₃ = s/√2 is the classical bound at s ([RW] K15).
    """
    L = math.log(1 / delta)
    return beta / (2 * (math.sqrt(L + epsilon) - math.sqrt(L)))


def classical_ag_sigma(epsilon: float, delta: float, beta: float) -> float:
    """s at which the classical Analyze-Gauss bound β²/(2s²) + β√(2 log(1/δ))/s equals ε.

    With L = log(1/δ): s = β / (√2(√(L + ε) − √L)).
    """
    L = math.log(1 / delta)
    return beta / (math.sqrt(2) * (math.sqrt(L + epsilon) - math.sqrt(L)))


Calibration = Literal["paper", "analytic"]


def calibrate_releases(epsilon: float, delta: float, beta: float, rule: Calibration = "paper") -> tuple[float, float]:
    """(σ₃, s): the noise scales of Algorithm 6 and of Analyze Gauss for (ε, δ)-DP over ‖H_x‖_F ≤ β.

    ``"paper"``: the closed forms :func:`theorem17_sigma3` and :func:`classical_ag_sigma`; ``"analytic"``: the
    exact Gaussian calibration (Balle & Wang 2018, Theorem 8) at each release's worst-case sensitivity,
    β/√2 in units of σ₃ for Algorithm 6 and β for Analyze Gauss.
    """
    if rule == "paper":
        return theorem17_sigma3(epsilon, delta, beta), classical_ag_sigma(epsilon, delta, beta)
    if rule == "analytic":
        goe_scale = gaussian.analytic_sigma(epsilon, delta, beta / math.sqrt(2))
        return goe_scale, gaussian.analytic_sigma(epsilon, delta, beta)
    raise InputError(f"calibration must be 'paper' or 'analytic', got {rule!r}")


@dataclass(frozen=True)
class K15Comparison:
    """Noise of the two releases calibrated to the same exact (eps, delta)-DP over ``||H_x||_F <= beta``."""

    epsilon: float
    delta: float
    beta: float
    d: int
    analyze_gauss_sigma: float
    goe_sigma3: float

    @property
    def off_diagonal_variance_ratio(self) -> float:
        """GOE / Analyze-Gauss noise variance off the diagonal: ``sigma_3^2 / s^2``."""
        return self.goe_sigma3**2 / self.analyze_gauss_sigma**2

    @property
    def diagonal_variance_ratio(self) -> float:
        """GOE / Analyze-Gauss noise variance on the diagonal: ``2 sigma_3^2 / s^2``."""
        return 2 * self.goe_sigma3**2 / self.analyze_gauss_sigma**2

    @property
    def frobenius_ratio(self) -> float:
        """``E||N_GOE||_F^2 / E||N_AG||_F^2 = d (d+1) sigma_3^2 / (d^2 s^2)``."""
        return (self.d + 1) * self.goe_sigma3**2 / (self.d * self.analyze_gauss_sigma**2)


def k15_comparison(epsilon: float, delta: float, beta: float = 1.0, d: int = 50) -> K15Comparison:
    """Measure K15 ("GOE Analyze Gauss improves Analyze Gauss by roughly a factor of 2", [RW] App. D).

    Both privacy losses are exactly Gaussian, ``N(eta^2/2, eta^2)`` with ``eta`` = whitened sensitivity /
    noise scale, so each release is calibrated by the exact Gaussian-mechanism delta(eps) of Balle & Wang
    (2018, Theorem 8; :func:`pdp_audit.mechanisms.gaussian.analytic_sigma`) at its worst case over ``||H_x||_F <=
    beta``: Analyze Gauss has sensitivity ``sup ||vech(H_x)|| = beta`` (a diagonal ``H_x``); Algorithm 6 has
    ``||H_x||_F / sqrt(2)`` in units of ``sigma_3`` for every ``H_x`` ([RW] Theorem 17's proof).
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise InputError(f"d must be an integer >= 1, got {d!r}")
    beta = positive("beta", beta)
    epsilon, delta = positive("epsilon", epsilon), probability("delta", delta)
    return K15Comparison(
        epsilon=epsilon,
        delta=delta,
        beta=beta,
        d=int(d),
        analyze_gauss_sigma=gaussian.analytic_sigma(epsilon, delta, beta),
        goe_sigma3=gaussian.analytic_sigma(epsilon, delta, beta / math.sqrt(2)),
    )


def per_instance_variance_ratio(h_x: np.ndarray) -> float:
    """``sigma_3^2 / s^2`` at which Algorithm 6 and Analyze Gauss have the *same* privacy-loss law for this ``H_x``.

    Equal ``eta``: ``||H_x||_F^2 / (2 sigma_3^2) = ||vech(H_x)||^2 / s^2``.  It is 1/2 for a diagonal ``H_x``
    (the worst case that sets DP calibration) and up to ``d/(d+1)`` for ``x x^T`` with x spread evenly.
    """
    return goe_sensitivity(h_x) ** 2 / analyze_gauss_sensitivity(h_x) ** 2


def rank_one_variance_ratios(rows: np.ndarray) -> np.ndarray:
    """:func:`per_instance_variance_ratio` of ``H_x = x xᵀ`` for every row x, vectorised: ‖x‖⁴ / (‖x‖⁴ + Σᵢ xᵢ⁴).

    Also the ratio of a GLM Hessian term f''·x xᵀ: it is scale-free.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    sq = np.sum(rows**2, axis=1) ** 2
    return sq / (sq + np.sum(rows**4, axis=1))


# ---------------------------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------------------------
def _example_data(rng: np.random.Generator, d: int = 3, n: int = 8) -> tuple[np.ndarray, list[np.ndarray]]:
    """``H = X^T X + I`` for rows in the unit ball, and three per-example terms: ``z z^T`` (``X^T X``), a
    logistic GLM Hessian ``f'' x x^T`` (f'' = 0.25, its maximum; x = first row scaled to the unit sphere),
    and a diagonal ``H_x`` (the worst case for Analyze Gauss)."""
    x = rng.standard_normal((n, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
    z = rng.standard_normal(d)
    z /= np.linalg.norm(z)
    x0 = x[0] / np.linalg.norm(x[0])
    return x.T @ x + np.eye(d), [np.outer(z, z), 0.25 * np.outer(x0, x0), np.diag(rng.uniform(0.2, 1.0, d))]


def _analyze_gauss_examples(rng: np.random.Generator) -> list[AnalyzeGaussPair]:
    h, terms = _example_data(rng)
    return [
        AnalyzeGaussPair(h, terms[0], 1.0, "add"),
        AnalyzeGaussPair(h, terms[1], 0.3, "remove"),
        AnalyzeGaussPair(h, terms[2], 1.5, "add"),
    ]


def _goe_examples(rng: np.random.Generator) -> list[GoeAnalyzeGaussPair]:
    h, terms = _example_data(rng)
    return [
        GoeAnalyzeGaussPair(h, terms[0], 0.7, "add"),
        GoeAnalyzeGaussPair(h, terms[1], 0.2, "remove"),
        GoeAnalyzeGaussPair(h, terms[2], 1.0, "remove"),
    ]


ANALYZE_GAUSS = RegisteredMechanism(
    name="analyze-gauss",
    description="Analyze Gauss (Dwork et al. 2014b): symmetric matrix + iid N(0, s^2) on the upper triangle",
    example_pairs=_analyze_gauss_examples,
)

GOE_ANALYZE_GAUSS = RegisteredMechanism(
    name="goe-analyze-gauss",
    description="[RW] Algorithm 6: symmetric matrix + (Z + Z^T)/sqrt(2), Z_ij ~ N(0, sigma_3^2) (GOE noise)",
    example_pairs=_goe_examples,
)
