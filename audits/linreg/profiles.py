"""Vectorised privacy profiles of the linear-regression mechanisms, for many targets at once.

Three families, each computed from the output laws of the samplers in :mod:`pdp_audit.mechanisms.linreg.mechanism` and
:mod:`pdp_audit.mechanisms.linreg.adaptive` (never from the papers' pDP closed forms, which they are used to
audit):

* **Gaussian mechanisms with a shared covariance** (isotropic output perturbation, SSP, AdaSSP's
  private output): the privacy loss is N(±s²/2, s²) with whitened sensitivity ``s``, so
  δ(ε) = Φ(s/2 − ε/s) − e^ε Φ(−s/2 − ε/s) (Balle & Wang 2018, Thm 8), both directions alike.
* **OPS** θ̃ ~ N(θ̂_λ, (XᵀX + λI)^{-1}/γ): with base data Z (without the target z = (x, y_z)) and
  W = [Z, z], the loss ℓ = log p_Z − log p_W depends on θ only through s = y_z − xᵀθ,
  ℓ(s) = −½ log(1+μ) + (γ/2)(s² − r²/(1+μ)), and s ~ N(r, μ/γ) under Z, N(r', μ'/γ) under W, where
  μ = xᵀ(ZᵀZ + λI)^{-1}x, r = y_z − xᵀθ̂_Z, μ' = μ/(1+μ), r' = r/(1+μ) (Sherman–Morrison).  So
  δ(t) is a difference of normal probabilities for every real t (also t < 0, which the conditional
  estimator below needs); :func:`ops_delta` agrees with :func:`pdp_audit.mechanisms.linreg.bounds.ops_exact_delta`.
* **AdaOPS** ([LR] Algorithm 1; [PDP] Algorithm 1 with n public): the last stage is OPS given the
  released earlier stages, so with L₁₂ the loss of the earlier stages,
  δ_{P‖Q}(ε) = E_{earlier stages ~ P}[δ_OPS(ε − L₁₂ | schedule)]  (conditioning on the released
  values; the inner hockey-stick is exact).  :class:`AdaOPSConditional` estimates this by drawing only
  the scalar earlier stages (T draws, common to all targets) — a Rao–Blackwellised estimator whose
  summands lie in [0, 1].

  :func:`conditional_profile` runs the same estimator at one target with many draws, seeded per block
  by the block engine (results depend on the seed only, not on the workers), and summarises each
  direction and ε by the mean and variance of its summands (:class:`pdp_audit.verify.estimators.rare.BoundedMean`: the
  empirical Bernstein interval of Maurer & Pontil 2009, valid at every sample size for summands in
  [0, 1]).

Ridge quantities for a batch of targets come from one eigendecomposition (:class:`RidgeBatch`); per-
draw regularisations λ are handled in the eigenbasis.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import special

from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg.adaptive import UnrunnableError
from pdp_audit.verify.estimators.engine import BLOCK_SIZE, block_rng, block_sizes
from pdp_audit.verify.estimators.progress import weighted, with_progress
from pdp_audit.verify.estimators.rare import BoundedMean, _combine

Kind = Literal["add", "remove"]
LOG_FLOOR = -745.0  # exp of anything below underflows to 0


# --------------------------------------------------------------------------------------------
# Gaussian mechanism (shared covariance)
# --------------------------------------------------------------------------------------------
def _log_prob_outside(c, m, v):
    """log P(s² > c) for s ~ N(m, v) (c ≤ 0 gives 0)."""
    c, m, v = np.broadcast_arrays(np.asarray(c, float), np.asarray(m, float), np.asarray(v, float))
    root = np.sqrt(np.maximum(c, 0.0))
    sd = np.sqrt(v)
    out = np.logaddexp(special.log_ndtr((m - root) / sd), special.log_ndtr((-root - m) / sd))
    return np.where(c <= 0, 0.0, out)


def _log_prob_inside(c, m, v):
    """log P(s² < c) for s ~ N(m, v) (−inf for c ≤ 0), computed without cancellation on either tail."""
    c, m, v = np.broadcast_arrays(np.asarray(c, float), np.asarray(m, float), np.asarray(v, float))
    root = np.sqrt(np.maximum(c, 0.0))
    sd = np.sqrt(v)
    a, b = (-root - m) / sd, (root - m) / sd  # P = Φ(b) − Φ(a), a < b
    # Φ(b) − Φ(a) = Φ(−a) − Φ(−b); use the form whose terms are both small
    with np.errstate(divide="ignore", invalid="ignore"):
        left = special.log_ndtr(b) + np.log(-np.expm1(np.minimum(special.log_ndtr(a) - special.log_ndtr(b), -1e-300)))
        right = special.log_ndtr(-a) + np.log(
            -np.expm1(np.minimum(special.log_ndtr(-b) - special.log_ndtr(-a), -1e-300))
        )
    out = np.where(b < -a, left, right)  # interval mostly left of 0 ⇒ use Φ(b) − Φ(a)
    return np.where(c <= 0, -np.inf, out)


def _hockey(log_p, log_q, t):
    """exp(log_p) − e^t exp(log_q), clipped at 0 (computed in log space against overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        p = np.exp(np.maximum(log_p, LOG_FLOOR))
        q = np.exp(np.clip(t + log_q, LOG_FLOOR, 700.0))
    return np.maximum(np.where(np.isfinite(log_p), p, 0.0) - np.where(np.isfinite(log_q), q, 0.0), 0.0)


def ops_hockey(
    t: npt.ArrayLike, mu: npt.ArrayLike, r: npt.ArrayLike, gamma: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """``(δ_{Z‖W}(t), δ_{W‖Z}(t))`` of OPS for every real ``t`` (arrays broadcast).

    ℓ > t ⟺ s² > c_t with c_t = (2/γ)(t + ½log(1+μ)) + r²/(1+μ); −ℓ > t ⟺ s² < c_{−t}.
    """
    t, mu, r, gamma = (np.asarray(a, float) for a in (t, mu, r, gamma))
    mu_p, r_p = mu / (1 + mu), r / (1 + mu)
    base = r**2 / (1 + mu)
    half_log = 0.5 * np.log1p(mu)
    with np.errstate(divide="ignore", invalid="ignore"):  # μ = 0 (x = 0): identical laws, δ = 0
        c_up = 2 / gamma * (t + half_log) + base
        fwd = _hockey(_log_prob_outside(c_up, r, mu / gamma), _log_prob_outside(c_up, r_p, mu_p / gamma), t)
        c_lo = 2 / gamma * (-t + half_log) + base
        bwd = _hockey(_log_prob_inside(c_lo, r_p, mu_p / gamma), _log_prob_inside(c_lo, r, mu / gamma), t)
    degenerate = mu <= 0
    return np.where(degenerate | np.isnan(fwd), 0.0, fwd), np.where(degenerate | np.isnan(bwd), 0.0, bwd)


def orient(z_w: np.ndarray, w_z: np.ndarray, kind: Kind) -> tuple[np.ndarray, np.ndarray]:
    """``(δ_{D‖D'}, δ_{D'‖D})`` from ``(δ_{Z‖W}, δ_{W‖Z})``: "add" has D = Z, "remove" has D = W = [Z, z]."""
    return (z_w, w_z) if kind == "add" else (w_z, z_w)


def ops_delta(eps, mu, r, gamma, kind: Kind) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``(δ_{D‖D'}(ε), δ_{D'‖D}(ε))`` of OPS at the pair described by (μ, r) and ``kind``."""
    return orient(*ops_hockey(eps, mu, r, gamma), kind)


def bisect_epsilon(delta_of, delta: float, size: int, hi: float = 1.0, iterations: int = 80) -> np.ndarray:
    """Smallest ε ≥ 0 with ``delta_of(ε) ≤ δ`` for ``size`` monotone profiles at once (``delta_of`` maps an
    array of ε of shape (size,) to δ of shape (size,))."""
    lo = np.zeros(size)
    top = np.full(size, float(hi))
    for _ in range(200):
        bad = delta_of(top) > delta
        if not bad.any():
            break
        top = np.where(bad, 2 * top, top)
    for _ in with_progress(range(iterations), iterations, "linreg, ε by bisection", "step"):  # where asked
        mid = 0.5 * (lo + top)
        bad = delta_of(mid) > delta
        lo, top = np.where(bad, mid, lo), np.where(bad, top, mid)
    return np.where(delta_of(np.zeros(size)) <= delta, 0.0, top)


def ops_epsilon(delta: float, mu, r, gamma) -> np.ndarray:
    """Exact pDP ε of OPS at δ (max over both directions) for every (μ, r)."""
    mu, r = np.atleast_1d(np.asarray(mu, float)), np.atleast_1d(np.asarray(r, float))

    def worst(eps):
        return np.maximum(*ops_hockey(eps, mu, r, gamma))

    return bisect_epsilon(worst, delta, mu.size)


def ops_tail_probability(t, mu, r, gamma, kind: Kind, world: str) -> np.ndarray:
    """P[L ≥ t] with L = log p_D − log p_D' and the release drawn on ``world`` (exact ROC of the LR attack)."""
    mu, r = np.asarray(mu, float), np.asarray(r, float)
    mu_p, r_p = mu / (1 + mu), r / (1 + mu)
    sign = 1.0 if kind == "add" else -1.0  # L = sign · ℓ
    on_z = (world == "D") == (kind == "add")
    m, v = (r, mu / gamma) if on_z else (r_p, mu_p / gamma)
    half_log, base = 0.5 * np.log1p(mu), r**2 / (1 + mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        if sign > 0:  # ℓ ≥ t ⟺ s² ≥ c_t
            return np.exp(_log_prob_outside(2 / gamma * (t + half_log) + base, m, v))
        return np.exp(_log_prob_inside(2 / gamma * (-t + half_log) + base, m, v))  # −ℓ ≥ t


# --------------------------------------------------------------------------------------------
# Ridge quantities for many targets from one eigendecomposition
# --------------------------------------------------------------------------------------------
class RidgeBatch:
    """Targets ``(xs, ys)`` against one data set ``(X, y)``.

    ``kind="add"``: the targets are *not* in (X, y), which is the base Z of every pair.
    ``kind="remove"``: target k *is* row ``rows[k]`` of (X, y) = W; its base is W without that row.
    :meth:`at` returns, for per-(target, draw) regularisations λ, the OPS quantities μ and r with
    respect to each target's base Z, ‖θ̂_λ‖ on Z and on W = [Z, z], and ``shift`` = ‖θ̂_λ(W) − θ̂_λ(Z)‖.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, xs: np.ndarray, ys: np.ndarray, kind: Kind):
        self.kind = kind
        gram = X.T @ X
        self.evals, self.evecs = np.linalg.eigh(gram)
        self.b = self.evecs.T @ (X.T @ y)
        self.w = np.atleast_2d(xs) @ self.evecs
        self.ys = np.asarray(ys, float)
        self.n, self.d = X.shape
        outer = np.einsum("ki,kj->kij", np.atleast_2d(xs), np.atleast_2d(xs))
        others = np.linalg.eigvalsh(gram[None] + (outer if kind == "add" else -outer))[:, 0]
        own = np.full(len(self.ys), self.evals[0])
        # λ_min of the base Z and of W = [Z, z]
        self.lam_min_z: np.ndarray
        self.lam_min_w: np.ndarray
        self.lam_min_z, self.lam_min_w = (own, others) if kind == "add" else (others, own)

    def at(self, lam: np.ndarray) -> dict[str, np.ndarray]:
        """Quantities for ``lam`` of shape (k,) or (k, T) (one λ per target and draw)."""
        lam = np.asarray(lam, float)
        squeeze = lam.ndim == 1
        lam = lam[:, None] if squeeze else lam
        g = self.evals[None, None, :] + lam[:, :, None]  # (k, T, d)
        if np.any(g <= 0):
            raise UnrunnableError(f"XᵀX + λI is not positive definite (smallest λ_min + λ = {g.min():.4g})")
        w = self.w[:, None, :]
        coef = self.b[None, None, :] / g  # θ̂ of the eigen data set, in the eigenbasis
        lev = np.sum(w * w / g, axis=2)
        fit = self.ys[:, None] - np.sum(w * coef, axis=2)
        cw = np.sum(coef * w / g, axis=2)
        w2 = np.sum(w * w / g**2, axis=2)
        norm2 = np.sum(coef * coef, axis=2)
        if self.kind == "add":  # eigen data = Z
            mu, r = lev, fit
            step = r / (1 + mu)  # θ̂_W = θ̂_Z + H_Z^{-1} x r/(1+μ)
            out = {
                "mu": mu,
                "r": r,
                "norm_z": np.sqrt(norm2),
                "norm_w": np.sqrt(np.maximum(norm2 + 2 * step * cw + step**2 * w2, 0)),
                "shift": np.abs(step) * np.sqrt(w2),
            }
        else:  # eigen data = W; lev = μ', fit = r'
            if np.any(lev >= 1):
                raise UnrunnableError("removing the target leaves XᵀX + λI singular")
            mu, r = lev / (1 - lev), fit / (1 - lev)
            out = {
                "mu": mu,
                "r": r,
                "norm_w": np.sqrt(norm2),
                "norm_z": np.sqrt(np.maximum(norm2 - 2 * r * cw + r**2 * w2, 0)),
                "shift": np.abs(r) * np.sqrt(w2),
            }
        return {k: v[:, 0] for k, v in out.items()} if squeeze else out


def loo_batch(X: np.ndarray, y: np.ndarray) -> RidgeBatch:
    """Every data point as a "remove" target of its own data set."""
    return RidgeBatch(X, y, X, y, "remove")


# --------------------------------------------------------------------------------------------
# AdaOPS: conditional (Rao–Blackwellised) estimator
# --------------------------------------------------------------------------------------------
def _normal_loss(v, mean_p, mean_q, sd):
    """log N(v; mean_p, sd²) − log N(v; mean_q, sd²)."""
    return ((v - mean_q) ** 2 - (v - mean_p) ** 2) / (2 * sd**2)


@dataclass
class Conditional:
    """Per-direction arrays (k targets × T draws): the earlier stages' loss and the OPS schedule.

    Evaluating δ only needs the one direction's two normal probabilities; plain ``ndtr`` is used (absolute
    accuracy ~1e-16, ample for δ ≥ 1e-12), which keeps the per-instance bisection fast.
    """

    l12: np.ndarray
    mu: np.ndarray
    r: np.ndarray
    gamma: np.ndarray
    p_is_z: bool  # the direction's P world is the base Z (True) or W = [Z, z] (False)

    def __post_init__(self) -> None:
        mu, r, g = self.mu, self.r, self.gamma
        self._slope = 2 / g
        self._offset = np.log1p(mu) / g + r**2 / (1 + mu)
        self._m = {"z": r, "w": r / (1 + mu)}
        self._sd = {"z": np.sqrt(mu / g), "w": np.sqrt(mu / (1 + mu) / g)}

    def _outside(self, c, world):
        root = np.sqrt(np.maximum(c, 0.0))
        m, sd = self._m[world], self._sd[world]
        return np.where(c <= 0, 1.0, special.ndtr((m - root) / sd) + special.ndtr((-root - m) / sd))

    def _inside(self, c, world):
        root = np.sqrt(np.maximum(c, 0.0))
        m, sd = self._m[world], self._sd[world]
        return np.where(c <= 0, 0.0, special.ndtr((root - m) / sd) - special.ndtr((-root - m) / sd))

    def terms(self, eps) -> np.ndarray:
        """The [0, 1]-valued summands δ_OPS(ε − L₁₂) (``eps`` scalar or shape (k,))."""
        eps = np.asarray(eps, float)
        t = (eps[:, None] if eps.ndim else eps) - self.l12
        scale = np.exp(np.minimum(t, 700.0))
        with np.errstate(divide="ignore", invalid="ignore"):  # μ = 0: identical last stages, term 0
            if self.p_is_z:  # P_Z[ℓ > t] − e^t P_W[ℓ > t]
                c = self._slope * t + self._offset
                out = self._outside(c, "z") - scale * self._outside(c, "w")
            else:  # P_W[ℓ < −t] − e^t P_Z[ℓ < −t]
                c = -self._slope * t + self._offset
                out = self._inside(c, "w") - scale * self._inside(c, "z")
        return np.where(np.isnan(out) | (self.mu <= 0), 0.0, np.maximum(out, 0.0))

    def delta(self, eps) -> np.ndarray:
        """Estimated δ_{P‖Q}(ε) per target."""
        return np.mean(self.terms(eps), axis=1)


class AdaOPSConditional:
    """δ(ε) of AdaOPS at many targets by conditioning on the earlier stages (module notes).

    ``pair`` is a :class:`pdp_audit.mechanisms.linreg.adaptive.LRAdaOPSPair` or ``PDPAdaOPSPair`` (with
    ``n_public``) built for *any* target: only its constants are used, so the fault-injection changes
    of the audit (scaled ``k.sd_lambda``, ``k.eps_tilde``, ``sd1``, ``gamma``) carry over.
    """

    def __init__(self, pair, batch: RidgeBatch, draws: int, rng: np.random.Generator):
        self.pair, self.batch = pair, batch
        self.xi = rng.standard_normal((2, 2, int(draws)))  # [direction, stage, draw]
        self.directions = {name: self._direction(name, self.xi[i]) for i, name in enumerate(("D||D'", "D'||D"))}

    def _direction(self, name: str, xi: np.ndarray) -> Conditional:
        kind = self.batch.kind
        d_is_z = kind == "add"
        p_is_z = d_is_z if name == "D||D'" else not d_is_z
        lmin = {"z": self.batch.lam_min_z[:, None], "w": self.batch.lam_min_w[:, None]}
        P, Q = ("z", "w") if p_is_z else ("w", "z")
        if isinstance(self.pair, A.LRAdaOPSPair):
            k, c = self.pair.k, np.log(6 / self.pair.k.delta)
            nu = lmin[P] - k.shift_lambda + k.sd_lambda * xi[0][None, :]
            l1 = _normal_loss(nu, lmin[P] - k.shift_lambda, lmin[Q] - k.shift_lambda, k.sd_lambda)
            lam_tilde = np.maximum(nu, 0.0)
            lam = A.lr_adaops_lambda(lam_tilde, k)
            q = ridge = self.batch.at(lam)
            s = np.log1p(k.x_bound**2 / (lam + lam_tilde))
            m = {w: np.log(k.y_bound + k.x_bound * ridge[f"norm_{w}"]) + s * c / (k.eps / 4) for w in ("z", "w")}
            sd = s * np.sqrt(c) / (k.eps / 4)
            big_delta = m[P] + sd * xi[1][None, :]
            l2 = _normal_loss(big_delta, m[P], m[Q], sd)
            gamma = (lam_tilde + lam) * k.eps_tilde**2 / c * np.exp(-2 * (np.log(k.x_bound) + big_delta))
            return Conditional(l1 + l2, q["mu"], q["r"], gamma, p_is_z)
        if isinstance(self.pair, A.PDPAdaOPSPair):
            p = self.pair
            if len(set(p.n.values())) != 1:
                raise ValueError(
                    "the conditional estimator of [PDP] Algorithm 1 needs n public (PDPAdaOPSPair(n_public=...))"
                )
            n = next(iter(p.n.values()))
            lam_tilde = lmin[P] + p.sd1 * xi[0][None, :]
            l1 = _normal_loss(lam_tilde, lmin[P], lmin[Q], p.sd1)
            lam = A.pdp_adaops_lambda(lam_tilde, n, p.d, p.eps, p.delta, p.kappa, p.printed)
            q = self.batch.at(lam)
            gamma = np.full_like(lam, next(iter(p.gamma.values())))
            return Conditional(l1, q["mu"], q["r"], gamma, p_is_z)
        raise TypeError(f"no conditional estimator for {type(self.pair).__name__}")

    def delta(self, eps) -> tuple[np.ndarray, np.ndarray]:
        """Estimated ``(δ_{D‖D'}(ε), δ_{D'‖D}(ε))`` per target."""
        return self.directions["D||D'"].delta(eps), self.directions["D'||D"].delta(eps)

    def epsilon(self, delta: float) -> np.ndarray:
        """Estimated pDP ε at δ per target (max over both directions; bisection on the fixed draws)."""
        size = len(self.batch.ys)
        return bisect_epsilon(lambda e: np.maximum(*self.delta(e)), delta, size, iterations=36)


def _conditional_block(args) -> np.ndarray:
    """Moments (count, mean, M2) of the summands of one block, shape (2 directions, len(epsilons), 3)."""
    pair, batch, epsilons, seed, stream, block, size = args
    cond = AdaOPSConditional(pair, batch, size, block_rng(seed, stream, block))
    out = np.empty((2, len(epsilons), 3))
    for i, name in enumerate(("D||D'", "D'||D")):
        terms = cond.directions[name].terms(epsilons)  # (G, size): one target
        mean = terms.mean(axis=1)
        out[i, :, 0] = size
        out[i, :, 1] = mean
        out[i, :, 2] = np.sum((terms - mean[:, None]) ** 2, axis=1)
    return out


#: What one conditional draw at one target weighs on the whole audit's progress bar
#: (:func:`pdp_audit.verify.estimators.progress.weighted`), in units of one privacy loss of a joint AdaOPS release:
#: a target's pDP ε by bisection on fixed draws evaluates δ about 38 times (:meth:`AdaOPSConditional.epsilon`), eight
#: times a release's cost (12–14 µs a target and draw against 1.3–2.5 µs a release, 200 × 3 data, 2 loaded cores).
EPSILON_WEIGHT = 8


def conditional_weight(epsilons: int) -> int:
    """What one draw of :func:`conditional_profile` at ``epsilons`` ε weighs on the whole audit's bar: drawing the
    scalars and solving the ridge costs about one joint release's privacy loss, and every three ε about one more
    (1.7–2.1 µs a draw at one ε, 5–10 µs at nine, against 1.3–2.5 µs a release, measured as :data:`EPSILON_WEIGHT`)."""
    return 1 + int(epsilons) // 3


def conditional_profile(
    pair,
    batch: RidgeBatch,
    epsilons,
    draws: int,
    seed: int,
    stream: str,
    executor: Executor | None = None,
    block_size: int = BLOCK_SIZE,
) -> dict[str, list[BoundedMean]]:
    """δ(ε) of AdaOPS at the one target of ``batch``, per direction and ε, from ``draws`` conditional draws.

    Block ``j`` draws the released scalars from ``block_rng(seed, stream, j)`` (:class:`AdaOPSConditional`);
    block moments are merged in block order (Chan, Golub & LeVeque 1983).  The summands lie in [0, 1], so
    each result is a :class:`~pdp_audit.verify.estimators.rare.BoundedMean` with scale 1.  Raises
    :class:`UnrunnableError` where
    the algorithm cannot run.
    """
    epsilons = np.atleast_1d(np.asarray(epsilons, float))
    if len(batch.ys) != 1:
        raise ValueError("conditional_profile takes a batch of exactly one target")
    sizes = block_sizes(draws, block_size)
    jobs = [(pair, batch, epsilons, int(seed), stream, b, size) for b, size in enumerate(sizes)]
    mapped = executor.map(_conditional_block, jobs) if executor is not None else map(_conditional_block, jobs)
    with weighted(conditional_weight(len(epsilons))):  # a bar where the audit asked; the audit's bar weighs the draws
        blocks = list(with_progress(mapped, len(jobs), stream, "block", None, sizes))
    out: dict[str, list[BoundedMean]] = {}
    for i, name in enumerate(("D||D'", "D'||D")):
        means = []
        for g in range(len(epsilons)):
            rows = np.array([[b[i, g, 0], b[i, g, 1], b[i, g, 2]] for b in blocks])
            n, mean, m2 = _combine(rows)
            means.append(BoundedMean(n, float(mean[0]), float(m2[0]) / max(n - 1, 1), 1.0))
        out[name] = means
    return out
