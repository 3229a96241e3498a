"""Multi-stage DP linear regression: AdaOPS ([PDP] Algorithm 1; [LR] Algorithm 1), SSP ([LR] §3.2,
App. C.1) and AdaSSP ([LR] Algorithm 2), with the exact log-density of the *joint* release.

Each pair's rows concatenate every released stage.  A later stage is Gaussian given the earlier
released values (its mean/covariance may depend on them), so the joint density factorises into one
Gaussian density per stage, evaluated on D and on D'.  Clipping ``max{·, 0}`` of a released noisy
value is post-processing: rows hold the raw Gaussian value and the clipping is applied identically in
both worlds.  Per-trial shifts ``λ`` of the Gram matrix are batched through one eigendecomposition of
``X^T X`` per world (:class:`EigenGram`), so no stage loops over trials in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize

from pdp_audit.mechanisms.base import WORLDS, RegisteredMechanism, World, check_world
from pdp_audit.mechanisms.linreg.calibration import lr_C1
from pdp_audit.mechanisms.linreg.mechanism import LOG_2PI, Neighbours, check_delta, check_positive, example_neighbours
from pdp_audit.verify.inputs.validation import InputError


class UnrunnableError(ValueError):
    """The algorithm, as printed, cannot produce an output on this input (e.g. an indefinite covariance)."""


# --- batched Gaussians with precision γ (X^T X + λ I)^p --------------------------------------------


class EigenGram:
    """``X^T X = V diag(e) V^T`` of one data set, for Gaussians whose precision is
    ``scale_t (X^T X + λ_t I)^power`` with per-trial ``λ_t, scale_t`` (arrays of shape ``(T,)``)."""

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.evals, self.evecs = np.linalg.eigh(X.T @ X)
        self.b = self.evecs.T @ (X.T @ y)  # X^T y in the eigenbasis
        self.n, self.d = X.shape
        self.lam_min = float(self.evals[0])

    def shifted(self, lam: np.ndarray) -> np.ndarray:
        """Eigenvalues of ``X^T X + λ_t I``, shape ``(T, d)``; raises if any is ``<= 0``."""
        e = self.evals[None, :] + np.asarray(lam, float)[:, None]
        if np.any(e <= 0):
            raise UnrunnableError(
                f"X^T X + λI is not positive definite for {int(np.sum(np.any(e <= 0, axis=1)))} trial(s) "
                f"(smallest λ_min + λ = {e.min():.4g})"
            )
        return e

    def ridge(self, lam: np.ndarray) -> np.ndarray:
        """``θ̂_λ`` per trial, shape ``(T, d)``."""
        return (self.b / self.shifted(lam)) @ self.evecs.T

    def ridge_norm(self, lam: np.ndarray) -> np.ndarray:
        return np.sqrt(np.sum((self.b / self.shifted(lam)) ** 2, axis=1))

    def sample(self, mean: np.ndarray, prec_eig: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        xi = rng.standard_normal(mean.shape)
        return mean + (xi / np.sqrt(prec_eig)) @ self.evecs.T

    def log_density(self, theta: np.ndarray, mean: np.ndarray, prec_eig: np.ndarray) -> np.ndarray:
        w = (theta - mean) @ self.evecs
        return -0.5 * np.sum(prec_eig * w * w, axis=1) + 0.5 * np.sum(np.log(prec_eig), axis=1) - 0.5 * self.d * LOG_2PI


def normal_logpdf(x: np.ndarray, mean: np.ndarray | float, sd: np.ndarray | float) -> np.ndarray:
    """Elementwise log-density of ``N(mean, sd^2)`` at ``x``."""
    z = (x - mean) / sd
    return -0.5 * z * z - np.log(sd) - 0.5 * LOG_2PI


def positive_root(a: float | np.ndarray, b: float | np.ndarray) -> np.ndarray:
    """Positive root of ``a x^2 + x - b = 0`` (``a, b > 0``), written without cancellation."""
    return 2.0 * np.asarray(b, float) / (1.0 + np.sqrt(1.0 + 4.0 * np.asarray(a, float) * b))


def _worlds(nb: Neighbours) -> dict[World, EigenGram]:
    return {w: EigenGram(*nb.world(w)) for w in ("D", "D'")}


# --- [PDP] Algorithm 1 (AdaOPS) and Proposition 4.4 -----------------------------------------------


def prop44_kappa_max(n: int, d: int, eps: float, delta: float) -> float:
    """[PDP] Algorithm 1's input constraint ``0 <= κ <= nε/(4d(1 + log(4/δ)))``."""
    return n * eps / (4 * d * (1 + np.log(4 / delta)))


def pdp_adaops_gamma(n: int, d: int, eps: float, delta: float, kappa: float) -> float:
    """[PDP] Algorithm 1: ``γ_n = min{nε^2/(16κ^2d^2 log(4/δ)), nε/(8κ^2d^2)}``."""
    return min(n * eps**2 / (16 * kappa**2 * d**2 * np.log(4 / delta)), n * eps / (8 * kappa**2 * d**2))


def pdp_adaops_lambda(
    lam_tilde: np.ndarray, n: int, d: int, eps: float, delta: float, kappa: float, printed: bool = False
) -> np.ndarray:
    """[PDP] Algorithm 1: ``λ_n = max{0, n/(dκ) - λ̃_min + log(4/δ)/(ε/2)}``; ``printed=True`` uses the printed
    ``min`` (Q5), which is always ``<= 0``."""
    inner = n / (d * kappa) - np.asarray(lam_tilde, float) + np.log(4 / delta) / (eps / 2)
    return np.minimum(0.0, inner) if printed else np.maximum(0.0, inner)


def prop44_ops_step_epsilon(n: int, d: int, eps: float, delta: float, kappa: float) -> float:
    """Proof of [PDP] Prop. 4.4: the OPS step's pDP bound
    ``κd(1+log(4/δ))/(2n) + (γ_nκd/(2n))·2κd + sqrt((γ_nκd/(2n))·2κd·log(4/δ))``, claimed ``<= ε/2``."""
    g = pdp_adaops_gamma(n, d, eps, delta, kappa)
    a = g * kappa * d / (2 * n) * 2 * kappa * d
    return kappa * d * (1 + np.log(4 / delta)) / (2 * n) + a + np.sqrt(a * np.log(4 / delta))


def prop44_mse(X: np.ndarray, sigma: float, gamma: float, printed: bool = True) -> float:
    """[PDP] Prop. 4.4(2): ``[1 + γ_n] σ^2 tr[(X^TX)^{-1}]`` as printed, or ``(1 + 1/γ_n) σ^2 tr[...]`` (proof; Q7),
    omitting the ``O(n^{-10})||θ0||^2`` term."""
    t = float(np.trace(np.linalg.inv(X.T @ X)))
    return (1 + gamma if printed else 1 + 1 / gamma) * sigma**2 * t


class PDPAdaOPSPair:
    """[PDP] Algorithm 1 on ``(D, D')``; rows ``[λ̃_min, θ̃]`` (dimension ``d + 1``).

    Stage 1: ``λ̃_min = λ_min(X^TX) + (sqrt(log(4/δ))/(ε/2)) Z``.  Stage 2 given ``λ̃_min``:
    ``θ̃ ~ N(θ̂_{λ_n}, (X^TX + λ_n I)^{-1}/γ_n)``.  ``n`` in ``λ_n, γ_n`` is each world's own size unless
    ``n_public`` is given.  ``printed=True`` uses the printed ``min`` (Q5): ``λ_n <= 0`` can make the
    covariance indefinite, in which case :class:`UnrunnableError` is raised (sampling or evaluating).
    """

    def __init__(
        self, nb: Neighbours, eps: float, delta: float, kappa: float, printed: bool = False, n_public: int | None = None
    ):
        self.eps, self.delta = check_positive("eps", eps), check_delta(delta)
        self.grams = _worlds(nb)
        d = nb.X.shape[1]
        self.n = {w: int(n_public) if n_public is not None else g.n for w, g in self.grams.items()}
        kmax = min(prop44_kappa_max(n, d, eps, delta) for n in self.n.values())
        if not 0 < kappa <= kmax:
            raise InputError(f"kappa must lie in (0, {kmax:.6g}] = (0, nε/(4d(1+log(4/δ)))], got {kappa}")
        self.kappa, self.printed, self.d = float(kappa), bool(printed), d
        self.sd1 = np.sqrt(np.log(4 / delta)) / (eps / 2)
        self.gamma = {w: pdp_adaops_gamma(self.n[w], d, eps, delta, kappa) for w in self.grams}
        self.output_dim = d + 1

    def _stage2(self, world: World, lam_tilde: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lam = pdp_adaops_lambda(lam_tilde, self.n[world], self.d, self.eps, self.delta, self.kappa, self.printed)
        g = self.grams[world]
        try:
            return g.ridge(lam), self.gamma[world] * g.shifted(lam)
        except UnrunnableError as err:
            raise UnrunnableError(
                f"[PDP] Algorithm 1 as printed (λ_n = min{{0, ...}}, Q5) cannot sample on world {world}: {err}"
            ) from None

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        g = self.grams[check_world(world)]
        lam_tilde = g.lam_min + self.sd1 * rng.standard_normal(int(size))
        mean, prec = self._stage2(world, lam_tilde)
        return np.column_stack([lam_tilde, g.sample(mean, prec, rng)])

    def log_density(self, world: World, outputs: np.ndarray) -> np.ndarray:
        g, lam_tilde, theta = self.grams[world], outputs[:, 0], outputs[:, 1:]
        mean, prec = self._stage2(world, lam_tilde)
        return normal_logpdf(lam_tilde, g.lam_min, self.sd1) + g.log_density(theta, mean, prec)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.asarray(outputs, float)
        return self.log_density("D", outputs) - self.log_density("D'", outputs)


# --- [LR] Algorithm 1 (AdaOPS) --------------------------------------------------------------------


@dataclass(frozen=True)
class LRAdaOPSConstants:
    """Data-independent constants of [LR] Algorithm 1 (Theorem 2(i)'s calibration), ``c = log(6/δ)``.

    ``sd_lambda = sqrt(c)/(ε/4)`` and ``shift_lambda = c/(ε/4)`` (step 2; times ``||X||^2`` if
    ``scale_lambda``, Q43); ``eps_bar`` (step 3); ``C1, C2, t_floor = ||X||^2(1+c)/(2ε)`` (step 4);
    ``u_star`` = unconstrained minimiser over ``u = t + λ̃_min`` of (7); ``eps_tilde`` (step 7, eq. (8):
    ``eq8="sum"`` App. D.5, ``"product"`` as printed in Algorithm 1; Q42).
    """

    eps: float
    delta: float
    d: int
    x_bound: float
    y_bound: float
    rho: float
    sd_lambda: float
    shift_lambda: float
    eps_bar: float
    C1: float
    C2: float
    t_floor: float
    u_star: float
    eps_tilde: float


def eq7_objective(u: np.ndarray, C1: float, C2: float, x_bound: float) -> np.ndarray:
    """[LR] (7) in ``u = t + λ̃_min``: ``||X||^4 C1 (1 + ||X||^2/u)^{2C2}/u + u`` (``- λ̃_min`` dropped)."""
    u = np.asarray(u, float)
    return x_bound**4 * C1 * np.exp(2 * C2 * np.log1p(x_bound**2 / u)) / u + u


def eq7_unconstrained_minimiser(C1: float, C2: float, x_bound: float) -> float:
    """Root of the derivative of :func:`eq7_objective` (convex in ``u``: its derivative
    ``1 - ||X||^4 C1 h(u)`` has ``h`` decreasing), found in log space since ``(1 + b/u)^{2C2}`` overflows."""
    b, k = x_bound**2, 2 * C2

    def log_h_gap(lu: float) -> float:
        u = np.exp(lu)
        # h(u) = (1+b/u)^{k-1} [ (1+b/u) + k b/u ] / u^2
        return (k - 1) * np.log1p(b / u) + np.log1p(b / u + k * b / u) - 2 * lu + np.log(x_bound**4 * C1)

    lo, hi = -10.0, 10.0
    while log_h_gap(lo) < 0:
        lo -= 10
    while log_h_gap(hi) > 0:
        hi += 10
    return float(np.exp(optimize.brentq(log_h_gap, lo, hi, xtol=1e-14, rtol=1e-14)))


def lr_adaops_constants(
    eps: float,
    delta: float,
    d: int,
    x_bound: float = 1.0,
    y_bound: float = 1.0,
    rho: float = 0.05,
    eq8: Literal["sum", "product"] = "sum",
    scale_lambda: bool = False,
) -> LRAdaOPSConstants:
    """The constants of [LR] Algorithm 1 (steps 2–4 and 7)."""
    eps, delta = check_positive("eps", eps), check_delta(delta)
    x_bound, y_bound = check_positive("x_bound", x_bound), check_positive("y_bound", y_bound)
    c = np.log(6 / delta)
    scale = x_bound**2 if scale_lambda else 1.0
    eps_bar = float(positive_root(1 / (2 * c), eps / 4))
    C1 = lr_C1(eps_bar, delta, rho, d, log_arg=6.0)
    C2 = c / (eps / 4)
    if eq8 == "sum":
        bracket = 1 / c + (1 + c) / c
    elif eq8 == "product":
        bracket = (1 / c) * ((1 + c) / c)
    else:
        raise InputError(f"eq8 must be 'sum' or 'product', got {eq8!r}")
    return LRAdaOPSConstants(
        eps,
        delta,
        int(d),
        x_bound,
        y_bound,
        rho,
        sd_lambda=scale * np.sqrt(c) / (eps / 4),
        shift_lambda=scale * c / (eps / 4),
        eps_bar=eps_bar,
        C1=C1,
        C2=C2,
        t_floor=x_bound**2 * (1 + c) / (2 * eps),
        u_star=eq7_unconstrained_minimiser(C1, C2, x_bound),
        eps_tilde=float(positive_root(bracket / 2, eps / 2)),
    )


def lr_adaops_lambda(lam_tilde: np.ndarray, k: LRAdaOPSConstants) -> np.ndarray:
    """[LR] (7): ``λ = argmin_{t >= t_min}``; with ``u = t + λ̃`` the feasible set is ``u >= max(t_floor, λ̃)``
    and the objective is convex in ``u``, so ``λ = max(u*, t_floor, λ̃) - λ̃``."""
    lam_tilde = np.asarray(lam_tilde, float)
    return np.maximum(np.maximum(k.u_star, k.t_floor), lam_tilde) - lam_tilde


class LRAdaOPSPair:
    """[LR] Algorithm 1 on ``(D, D')``; rows ``[ν, Δ, θ̃]`` (dimension ``d + 2``), ``c = log(6/δ)``.

    Stage 1: ``ν = λ_min + sd_lambda Z - shift_lambda``, released; ``λ̃_min = max(ν, 0)``, ``λ`` from (7).
    Stage 2 given ``ν``: ``Δ ~ N(log(||Y|| + ||X|| ||θ̂_λ||) + s c/(ε/4), (s sqrt(c)/(ε/4))^2)``,
    ``s = log(1 + ||X||^2/(λ + λ̃_min))``.  Stage 3 given ``(ν, Δ)``: ``γ = (λ̃_min + λ) ε̃^2/(c L̃^2)``,
    ``L̃ = ||X|| e^Δ``, ``θ̃ ~ N(θ̂_λ, (X^TX + λI)^{-1}/γ)``.
    """

    def __init__(
        self,
        nb: Neighbours,
        eps: float,
        delta: float,
        x_bound: float = 1.0,
        y_bound: float = 1.0,
        rho: float = 0.05,
        eq8: Literal["sum", "product"] = "sum",
        scale_lambda: bool = False,
    ):
        self.k = lr_adaops_constants(eps, delta, nb.X.shape[1], x_bound, y_bound, rho, eq8, scale_lambda)
        self.grams = _worlds(nb)
        self.c = np.log(6 / self.k.delta)
        self.output_dim = nb.X.shape[1] + 2

    def _schedule(self, nu: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(λ̃_min, λ, s)`` from the released ``ν`` (post-processing, identical in both worlds)."""
        lam_tilde = np.maximum(nu, 0.0)
        lam = lr_adaops_lambda(lam_tilde, self.k)
        return lam_tilde, lam, np.log1p(self.k.x_bound**2 / (lam + lam_tilde))

    def _delta_law(self, g: EigenGram, lam: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = self.k.eps / 4
        mean = np.log(self.k.y_bound + self.k.x_bound * g.ridge_norm(lam)) + s * self.c / q
        return mean, s * np.sqrt(self.c) / q

    def _gamma(self, lam_tilde: np.ndarray, lam: np.ndarray, big_delta: np.ndarray) -> np.ndarray:
        log_L = np.log(self.k.x_bound) + big_delta
        return (lam_tilde + lam) * self.k.eps_tilde**2 / self.c * np.exp(-2 * log_L)

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        g = self.grams[check_world(world)]
        nu = g.lam_min + self.k.sd_lambda * rng.standard_normal(int(size)) - self.k.shift_lambda
        lam_tilde, lam, s = self._schedule(nu)
        m, sd = self._delta_law(g, lam, s)
        big_delta = m + sd * rng.standard_normal(int(size))
        prec = self._gamma(lam_tilde, lam, big_delta)[:, None] * g.shifted(lam)
        return np.column_stack([nu, big_delta, g.sample(g.ridge(lam), prec, rng)])

    def log_density(self, world: World, outputs: np.ndarray) -> np.ndarray:
        g = self.grams[world]
        nu, big_delta, theta = outputs[:, 0], outputs[:, 1], outputs[:, 2:]
        lam_tilde, lam, s = self._schedule(nu)
        m, sd = self._delta_law(g, lam, s)
        prec = self._gamma(lam_tilde, lam, big_delta)[:, None] * g.shifted(lam)
        return (
            normal_logpdf(nu, g.lam_min - self.k.shift_lambda, self.k.sd_lambda)
            + normal_logpdf(big_delta, m, sd)
            + g.log_density(theta, g.ridge(lam), prec)
        )

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.asarray(outputs, float)
        return self.log_density("D", outputs) - self.log_density("D'", outputs)

    def estimate(self, outputs: np.ndarray) -> np.ndarray:
        """The released estimator ``θ̃`` (last ``d`` columns)."""
        return np.asarray(outputs)[:, 2:]


# --- SSP and AdaSSP ---------------------------------------------------------------------------------


def upper_triangle(M: np.ndarray) -> np.ndarray:
    """``UpperTriangle(M)`` including the diagonal, row-major (the released coordinates of Analyze-Gauss)."""
    return M[np.triu_indices(M.shape[-1])]


def symmetric_from_upper(u: np.ndarray, d: int) -> np.ndarray:
    """Batch inverse of :func:`upper_triangle`: rows ``(T, d(d+1)/2)`` -> symmetric ``(T, d, d)``."""
    M = np.zeros((u.shape[0], d, d))
    i, j = np.triu_indices(d)
    M[:, i, j] = u
    M[:, j, i] = u
    return M


class _GaussianStatsRelease:
    """Independent Gaussian releases of ``UpperTriangle(X^TX)`` (std ``sd_xtx``) and ``X^Ty`` (std ``sd_xy``)."""

    def __init__(self, nb: Neighbours, sd_xtx: float, sd_xy: float):
        self.d = nb.X.shape[1]
        self.sd_xtx, self.sd_xy = sd_xtx, sd_xy
        self.stats = {w: (upper_triangle(X.T @ X), X.T @ y) for w, (X, y) in ((w, nb.world(w)) for w in ("D", "D'"))}
        self.p = self.d * (self.d + 1) // 2

    def sample_stats(self, world: World, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        u, v = self.stats[world]
        return (
            u + self.sd_xtx * rng.standard_normal((int(size), self.p)),
            v + self.sd_xy * rng.standard_normal((int(size), self.d)),
        )

    def log_density_xtx(self, world: World, u_hat: np.ndarray) -> np.ndarray:
        return np.sum(normal_logpdf(u_hat, self.stats[world][0], self.sd_xtx), axis=1)

    def log_density_xy(self, world: World, v_hat: np.ndarray) -> np.ndarray:
        return np.sum(normal_logpdf(v_hat, self.stats[world][1], self.sd_xy), axis=1)


def ssp_sds(eps: float, delta: float, x_bound: float = 1.0, y_bound: float = 1.0) -> tuple[float, float]:
    """[LR] App. C.1: ``E1`` entries ``N(0, 4||X||^4 log(4/δ)/ε^2)``, ``E2 ~ N(0, 4||X||^2||Y||^2 log(4/δ)/ε^2 I)``."""
    eps, delta = check_positive("eps", eps), check_delta(delta)
    root = 2 * np.sqrt(np.log(4 / delta)) / eps
    return root * x_bound**2, root * x_bound * y_bound


class SSPPair:
    """SSP ([LR] §3.2 item 1, App. C.1); rows ``[UpperTriangle(X^TX + E1), X^Ty + E2]``.
    The estimator ``(X^TX + E1 + λI)^{-1}(X^Ty + E2)`` is post-processing (:meth:`estimate`)."""

    def __init__(self, nb: Neighbours, eps: float, delta: float, x_bound: float = 1.0, y_bound: float = 1.0):
        self.release = _GaussianStatsRelease(nb, *ssp_sds(eps, delta, x_bound, y_bound))
        self.d, self.output_dim = self.release.d, self.release.p + self.release.d

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.column_stack(self.release.sample_stats(check_world(world), size, rng))

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.asarray(outputs, float)
        u, v = outputs[:, : self.release.p], outputs[:, self.release.p :]
        log_d, log_dprime = (self.release.log_density_xtx(w, u) + self.release.log_density_xy(w, v) for w in WORLDS)
        return log_d - log_dprime

    def estimate(self, outputs: np.ndarray, lam: float = 0.0) -> np.ndarray:
        u, v = outputs[:, : self.release.p], outputs[:, self.release.p :]
        return np.linalg.solve(symmetric_from_upper(u, self.d) + lam * np.eye(self.d), v[:, :, None])[:, :, 0]


@dataclass(frozen=True)
class LRAdaSSPConstants:
    """[LR] Algorithm 2 / Theorem 3(i) calibration, ``c = log(6/δ)``, ``ε/3`` per release:
    ``sd_lambda = sqrt(c)||X||^2/(ε/3)``, ``shift_lambda = c||X||^2/(ε/3)``,
    ``lam_threshold = sqrt(d c log(2d^2/ρ))||X||^2/(ε/3)``, ``sd_xtx = sqrt(c)||X||^2/(ε/3)``,
    ``sd_xy = sqrt(c)||X|| ||Y||/(ε/3)``."""

    sd_lambda: float
    shift_lambda: float
    lam_threshold: float
    sd_xtx: float
    sd_xy: float


def lr_adassp_constants(
    eps: float, delta: float, d: int, x_bound: float = 1.0, y_bound: float = 1.0, rho: float = 0.05
) -> LRAdaSSPConstants:
    """The calibration of [LR] Algorithm 2 for bounds ``x_bound``, ``y_bound`` (see :class:`LRAdaSSPConstants`)."""
    eps, delta, rho = check_positive("eps", eps), check_delta(delta), check_delta(rho, "rho")
    c, q = np.log(6 / delta), eps / 3
    return LRAdaSSPConstants(
        sd_lambda=np.sqrt(c) * x_bound**2 / q,
        shift_lambda=c * x_bound**2 / q,
        lam_threshold=np.sqrt(d * c * np.log(2 * d**2 / rho)) * x_bound**2 / q,
        sd_xtx=np.sqrt(c) * x_bound**2 / q,
        sd_xy=np.sqrt(c) * x_bound * y_bound / q,
    )


class AdaSSPPair:
    """[LR] Algorithm 2 on ``(D, D')``.

    ``output="private"`` (default; rows ``[ν, UpperTriangle(X̂^TX), X̂y]``, dimension ``1 + d(d+1)/2 + d``):
    all three Gaussian releases; ``θ̃ = (X̂^TX + λI)^{-1} X̂y`` (the reading suggested by Q51) is
    post-processing (:meth:`estimate`).  ``output="printed"`` (rows ``[ν, UpperTriangle(X̂^TX), θ̃]``):
    the printed output ``θ̃ = (X^TX + λI)^{-1} X̂y`` uses the *non-private* ``X^TX``, so ``θ̃`` given ``ν``
    is ``N((X^TX+λI)^{-1}X^Ty, sd_xy^2 (X^TX+λI)^{-2})`` and is released instead of ``X̂y``
    (releasing both would reveal ``X^TX``).  ``λ̃_min = max(ν, 0)`` and ``λ`` are post-processing of ``ν``.
    """

    def __init__(
        self,
        nb: Neighbours,
        eps: float,
        delta: float,
        x_bound: float = 1.0,
        y_bound: float = 1.0,
        rho: float = 0.05,
        output: Literal["private", "printed"] = "private",
    ):
        if output not in ("private", "printed"):
            raise InputError(f"output must be 'private' or 'printed', got {output!r}")
        self.k = lr_adassp_constants(eps, delta, nb.X.shape[1], x_bound, y_bound, rho)
        self.release = _GaussianStatsRelease(nb, self.k.sd_xtx, self.k.sd_xy)
        self.grams = _worlds(nb)
        self.output, self.d = output, nb.X.shape[1]
        self.output_dim = 1 + self.release.p + self.d

    def lam(self, nu: np.ndarray) -> np.ndarray:
        """Step 3: ``λ = max{0, lam_threshold - max(ν, 0)}``."""
        return np.maximum(0.0, self.k.lam_threshold - np.maximum(np.asarray(nu, float), 0.0))

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        g = self.grams[check_world(world)]
        nu = g.lam_min + self.k.sd_lambda * rng.standard_normal(int(size)) - self.k.shift_lambda
        u_hat, v_hat = self.release.sample_stats(world, size, rng)
        if self.output == "printed":
            v_hat = ((v_hat @ g.evecs) / g.shifted(self.lam(nu))) @ g.evecs.T  # (X^TX + λI)^{-1} X̂y
        return np.column_stack([nu, u_hat, v_hat])

    def log_density(self, world: World, outputs: np.ndarray) -> np.ndarray:
        g, p = self.grams[world], self.release.p
        nu, u_hat, last = outputs[:, 0], outputs[:, 1 : 1 + p], outputs[:, 1 + p :]
        out = normal_logpdf(nu, g.lam_min - self.k.shift_lambda, self.k.sd_lambda) + self.release.log_density_xtx(
            world, u_hat
        )
        if self.output == "private":
            return out + self.release.log_density_xy(world, last)
        lam = self.lam(nu)
        return out + g.log_density(last, g.ridge(lam), g.shifted(lam) ** 2 / self.k.sd_xy**2)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.asarray(outputs, float)
        return self.log_density("D", outputs) - self.log_density("D'", outputs)

    def estimate(self, outputs: np.ndarray) -> np.ndarray:
        """``θ̃`` per row: ``(X̂^TX + λI)^{-1} X̂y`` ("private") or the released ``θ̃`` ("printed")."""
        outputs = np.asarray(outputs, float)
        if self.output == "printed":
            return outputs[:, 1 + self.release.p :]
        p, lam = self.release.p, self.lam(outputs[:, 0])
        M = symmetric_from_upper(outputs[:, 1 : 1 + p], self.d) + lam[:, None, None] * np.eye(self.d)
        return np.linalg.solve(M, outputs[:, 1 + p :, None])[:, :, 0]


# --- exact per-stage claims ------------------------------------------------------------------------


def stage_claims(
    eps: float, delta: float, d: int, x_bound: float = 1.0, y_bound: float = 1.0
) -> dict[str, tuple[float, float, float]]:
    """Each single Gaussian release of the three algorithms as ``name -> (s, ε_k, δ_k)``: the whitened
    sensitivity ``s = Δ/σ`` and the budget its paper assigns to it.  Sensitivities: ``λ_min`` (Weyl)
    ``||X||^2``; ``UpperTriangle(X^TX)`` ``<= ||xx^T||_F = ||X||^2``; ``X^Ty`` ``||X|| ||Y||``; [LR] Alg. 1's Δ
    release has sensitivity ``s_Δ = log(1 + ||X||^2/(λ+λ̃))`` (Lemma 12) and std ``s_Δ sqrt(c)/(ε/4)``."""
    eps, delta = check_positive("eps", eps), check_delta(delta)
    c6, c4 = np.log(6 / delta), np.log(4 / delta)
    ada = lr_adassp_constants(eps, delta, d, x_bound, y_bound)
    sd_ssp_xtx, sd_ssp_xy = ssp_sds(eps, delta, x_bound, y_bound)
    return {
        "pdp-adaops/lambda_min": (1.0 / (np.sqrt(c4) / (eps / 2)), eps / 2, delta / 2),
        "lr-adaops/lambda_min": ((eps / 4) / np.sqrt(c6), eps / 4, delta / 3),
        "lr-adaops/log-norm": ((eps / 4) / np.sqrt(c6), eps / 4, delta / 3),
        "adassp/lambda_min": (x_bound**2 / ada.sd_lambda, eps / 3, delta / 3),
        "adassp/xtx": (x_bound**2 / ada.sd_xtx, eps / 3, delta / 3),
        "adassp/xy": (x_bound * y_bound / ada.sd_xy, eps / 3, delta / 3),
        "ssp/xtx": (x_bound**2 / sd_ssp_xtx, eps / 2, delta / 2),
        "ssp/xy": (x_bound * y_bound / sd_ssp_xy, eps / 2, delta / 2),
    }


# --- registration -------------------------------------------------------------------------------


def _adaops_examples(rng: np.random.Generator) -> list:
    add, remove = example_neighbours(rng)
    kappa = lambda nb: prop44_kappa_max(nb.X.shape[0], nb.X.shape[1], 4.0, 1e-3)  # noqa: E731  (largest allowed on both worlds)
    return [
        LRAdaOPSPair(add, 4.0, 1e-3),
        LRAdaOPSPair(remove, 4.0, 1e-3, eq8="product"),
        PDPAdaOPSPair(add, 4.0, 1e-3, kappa(add)),
        PDPAdaOPSPair(remove, 4.0, 1e-3, kappa(remove)),
    ]


def _adassp_examples(rng: np.random.Generator) -> list:
    add, remove = example_neighbours(rng)
    return [AdaSSPPair(add, 4.0, 1e-3), AdaSSPPair(remove, 4.0, 1e-3, output="printed")]


def _ssp_examples(rng: np.random.Generator) -> list:
    add, remove = example_neighbours(rng)
    return [SSPPair(add, 2.0, 1e-3), SSPPair(remove, 2.0, 1e-3)]


ADAOPS = RegisteredMechanism(
    name="adaops",
    description="AdaOPS: [LR] Algorithm 1 (λ̃_min, Δ, θ̃) and [PDP] Algorithm 1 (λ̃_min, θ̃), joint release",
    example_pairs=_adaops_examples,
)
ADASSP = RegisteredMechanism(
    name="adassp",
    description="AdaSSP ([LR] Algorithm 2): λ̃_min, noisy XᵀX and Xᵀy, joint release",
    example_pairs=_adassp_examples,
)
SSP = RegisteredMechanism(
    name="ssp",
    description="Sufficient statistics perturbation ([LR] §3.2, App. C.1): noisy XᵀX and Xᵀy",
    example_pairs=_ssp_examples,
)
