"""A certified DP bound for ObjPert with a GLM loss, and the vectorised GLM log-density ratio.

Derived here, not printed in [RW].  For a GLM loss ℓ = f(xᵀθ; y), by [RW] Corollary 7 (an identity: the
rank-one case of Theorem 6, checked against the exact density) the privacy loss of a neighbour
z = (x, y) at a release θ̂ᴾ of world W is

    L = −log(1 ± f″μ) + f′²‖x‖²/(2σ²) ∓ f′ · b_Wᵀx/σ²        (∇J(θ̂ᴾ; W) = −b_W, the first-order condition)

with f′, f″ at xᵀθ̂ᴾ.  The log-det term is at most log(1 + f″‖x‖²/λ) in absolute value (Sherman–Morrison and
∇²J ⪰ λI for the smaller data set), and W = b_Wᵀx/(σ‖x‖) ~ N(0, 1) exactly under world W whatever θ̂ᴾ is.
Hence |L| ≤ G(|W|) with

    G(w) = sup_t [ log(1 + f″(t)‖x‖²/λ) + f′(t)²‖x‖²/(2σ²) + |f′(t)| ‖x‖ w/σ ],

an increasing convex function, and in both directions δ(ε) ≤ P_W[L > ε] ≤ P[|W| > w*] = 2Φ̄(w*), G(w*) = ε
([RW] Lemma 27's one-term bound).  The sup runs over a compact re-parametrisation of f′, f″ (logistic:
|f′| = s, f″ = s(1 − s), s ∈ [0, 1]; pseudo-Huber: f″ = v³, |f′| = κ√(1 − v²), v ∈ [0, 1]); the squared loss has
unbounded f′ and no certificate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import integrate, optimize, stats

from pdp_audit.mechanisms.losses import LogisticLoss, PseudoHuberLoss
from pdp_audit.mechanisms.objpert import mechanism as op

_PROFILE_GRID = np.linspace(0.0, 1.0, 20001)


def loss_profile(loss, p: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(f″, |f′|) over a compact parameter p ∈ [0, 1] that covers every value of xᵀθ (None: f′ unbounded)."""
    if isinstance(loss, LogisticLoss):
        return p * (1 - p), p
    if isinstance(loss, PseudoHuberLoss):
        return p**3, loss.kappa * np.sqrt(np.clip(1 - p**2, 0.0, None))
    return None


def certifiable(loss) -> bool:
    """Whether ``loss`` has a bounded f′ and hence a certificate (logistic and pseudo-Huber do; squared does not)."""
    return loss_profile(loss, np.zeros(1)) is not None


@dataclass(frozen=True)
class Certificate:
    """|L| ≤ G(|W|), W ~ N(0, 1), for a target of norm ``x_norm`` (see the module docstring)."""

    loss: Any
    x_norm: float
    lam: float
    sigma: float

    def _h(self, p, w: float):
        profile = loss_profile(self.loss, np.asarray(p, dtype=float))
        assert profile is not None  # a Certificate is made only for a certifiable loss (`certificate`)
        f2, f1 = profile
        r2 = self.x_norm**2
        return np.log1p(f2 * r2 / self.lam) + f1**2 * r2 / (2 * self.sigma**2) + f1 * self.x_norm * w / self.sigma

    def G(self, w: float) -> float:
        """G(w): the sup over the profile on a grid, refined by a bounded scalar search, plus a safety margin."""
        values = self._h(_PROFILE_GRID, w)
        k = int(np.argmax(values))
        step = _PROFILE_GRID[1] - _PROFILE_GRID[0]
        lo, hi = max(0.0, _PROFILE_GRID[k] - step), min(1.0, _PROFILE_GRID[k] + step)
        res = optimize.minimize_scalar(
            lambda p: -float(self._h(p, w)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}
        )
        best = max(float(values[k]), -float(res.fun))
        return best + 1e-9 * (1 + abs(best))  # safety margin against the numerical sup

    def w_star(self, epsilon: float) -> float:
        """w* with G(w*) = ε (0 if G(0) ≥ ε already, ∞ if G stays below ε up to 1e6)."""
        if self.G(0.0) >= epsilon:
            return 0.0
        hi = 1.0
        while self.G(hi) <= epsilon:
            hi *= 2
            if hi > 1e6:
                return math.inf
        return float(optimize.brentq(lambda w: self.G(w) - epsilon, 0.0, hi, xtol=1e-13, rtol=1e-13))

    def delta(self, epsilon: float) -> float:
        """Certified δ(ε) of the pair, both directions: 2Φ̄(w*)."""
        return float(min(1.0, 2 * stats.norm.sf(self.w_star(epsilon))))

    def epsilon(self, delta: float) -> float:
        """Certified ε at δ: G(Φ̄⁻¹(δ/2))."""
        return self.G(float(stats.norm.isf(delta / 2)))


def certificate(loss, x_norm: float, lam: float, sigma: float) -> Certificate | None:
    """The certificate of a target of norm ``x_norm`` at (λ, σ), or None when the loss has none."""
    return Certificate(loss, float(x_norm), lam, sigma) if certifiable(loss) else None


def glm_log_ratio(loss, theta, grad, hinv, x, yz, sign: float, sigma: float) -> np.ndarray:
    """[RW] Corollary 7's expression (an identity), vectorised over rows of θ with ∇J(θ; D) and ∇²J(θ; D)⁻¹
    shared by every target: −log(1 + s f″μ) + f′²‖x‖²/(2σ²) + s f′ ∇Jᵀx/σ², s = +1 (add) or −1 (remove)."""
    t = theta @ x
    f1, f2 = loss.f1(t, yz), loss.f2(t, yz)
    mu = np.einsum("i,tij,j->t", x, hinv, x)
    return -np.log1p(sign * f2 * mu) + f1**2 * (x @ x) / (2 * sigma**2) + sign * f1 * (grad @ x) / sigma**2


def ex_post_all_points(X, y, loss, lam, sigma, theta) -> dict[str, np.ndarray]:
    """[RW] Corollary 7 for every training point (removal neighbours) at one θ, split into its three terms.

    Returns ``epsilon`` (the ex-post pDP |L|), ``logdet`` (−log(1 − f″μ)), ``gradient`` (the two gradient
    terms), ``margin`` (xᵀθ) and ``loss`` (f(xᵀθ; y)), one value per training point.
    """
    obj = op.Objective(X, y, lam, loss)
    grad, hess = obj.grad_hess(theta[None])
    grad, hinv = grad[0], np.linalg.inv(hess[0])
    t = X @ theta
    f1, f2 = loss.f1(t, y), loss.f2(t, y)
    mu = np.einsum("ni,ij,nj->n", X, hinv, X)
    logdet = -np.log1p(-f2 * mu)
    square = f1**2 * np.sum(X**2, axis=1) / (2 * sigma**2)
    cross = -f1 * (X @ grad) / sigma**2
    total = logdet + square + cross
    for i in range(0, len(X), max(1, len(X) // 5)):  # the vectorised form is the module's closed form
        ref = op.corollary7_log_ratio(theta, X, y, X[i], y[i], op.ObjPertMechanism(lam, sigma, loss))
        assert abs(float(np.ravel(ref)[0]) - total[i]) <= 1e-9 * max(1.0, abs(total[i]))
    return {"epsilon": np.abs(total), "logdet": logdet, "gradient": square + cross, "margin": t, "loss": loss.f(t, y)}


# ------------------------------------------------------------------------------------------------
# The squared loss: an exact δ(ε) (the release is Gaussian given the data)
# ------------------------------------------------------------------------------------------------
#: Quadrature nodes of the standard normal variable v/q (trapezoid on [−38, 38]; φ(38) < 1e-313).
_QUAD_T = np.linspace(-38.0, 38.0, 30001)


@dataclass(frozen=True)
class SquaredLossProfile:
    """Exact δ(ε) of ObjPert with the squared loss ℓ = (y − xᵀθ)² at one neighbouring pair, both directions.

    Derived here, not printed in [RW].  With f″ = 2 the objective of a data set W is quadratic:
    θ̂ᴾ = H_W⁻¹(c_W − b), H_W = 2X_WᵀX_W + λI, c_W = 2X_Wᵀy_W, b ~ N(0, σ²I) -- a Gaussian release whatever
    the data, so Theorem 5's gradient bound ξ (infinite on R^d) is not needed for the privacy loss itself.  Let
    S be the smaller data set and B = S + z, z = (x, y_z).  Under world W ∈ {S, B}, with b the noise of W and
    f′ = 2(xᵀθ̂ᴾ − y_z) = 2(a_W − xᵀH_W⁻¹b), a_W = xᵀH_W⁻¹c_W − y_z, the first-order conditions give
    (Corollary 7, an identity)

        ℓ_W = log p_W(θ̂ᴾ) − log p_other(θ̂ᴾ) = s log(1 + 2μ) + (f′²‖x‖² + 2 s f′ xᵀb)/(2σ²),

    s = +1 for W = B and −1 for W = S, μ = xᵀH_S⁻¹x.  The pair (u, v) = (xᵀb, xᵀH_W⁻¹b)/σ is bivariate normal
    (variances ‖x‖², q² = ‖H_W⁻¹x‖², covariance m = xᵀH_W⁻¹x); given v, f′ is fixed and ℓ_W is normal
    N(M, S²) in u, whose hockey-stick E[(1 − e^{ε−ℓ})₊] = Φ((M − ε)/S) − e^{ε − M + S²/2} Φ((M − ε)/S − S) is
    closed form.  δ_{W‖other}(ε) = E_W[(1 − e^{ε−ℓ_W})₊] is then one integral over v ~ N(0, q²), computed by the
    trapezoid rule on 30001 nodes (the integrand is smooth; its error is far below any δ audited).
    """

    small: tuple[float, float, float, float]  # H_S⁻¹x-derived constants per world: see _world
    big: tuple[float, float, float, float]
    x_norm2: float
    log1p_2mu: float
    sigma: float
    relation: str

    def delta(self, epsilon: float, direction: str) -> float:
        """δ_{direction}(ε), direction ``D||D'`` or ``D'||D`` of the pair (D is S when z is added, B when removed)."""
        forward = direction == "D||D'"
        world_is_big = (self.relation == "remove") == forward
        return _hockey_stick(
            self.big if world_is_big else self.small,
            +1.0 if world_is_big else -1.0,
            self.x_norm2,
            self.log1p_2mu,
            self.sigma,
            float(epsilon),
        )

    def worse(self, epsilon: float) -> float:
        """The larger δ(ε) of the two directions."""
        return max(self.delta(epsilon, "D||D'"), self.delta(epsilon, "D'||D"))

    def epsilon(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ ``delta`` in both directions (bisection; ∞ beyond ε = 1e3)."""
        lo, hi = 0.0, 1.0
        if self.worse(0.0) <= delta:
            return 0.0
        while self.worse(hi) > delta:
            lo, hi = hi, 2 * hi
            if hi > 1e3:
                return math.inf
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if self.worse(mid) > delta else (lo, mid)
        return hi


def _world(H: np.ndarray, c: np.ndarray, x: np.ndarray, yz: float) -> tuple[float, float, float, float]:
    hx = np.linalg.solve(H, x)
    return float(hx @ c - yz), float(hx @ hx), float(hx @ x), 0.0


def _hockey_stick(world, s: float, r2: float, k: float, sigma: float, epsilon: float) -> float:
    a, q2, m, _ = world
    q = math.sqrt(q2)
    v = q * _QUAD_T
    f1 = 2.0 * (a - sigma * v)
    cond_var = max(r2 - m * m / q2, 0.0)  # Var(u | v)
    mean_u = (m / q2) * v
    M = s * k + f1**2 * r2 / (2 * sigma**2) + s * f1 * mean_u / sigma
    S = np.maximum(np.abs(f1) * math.sqrt(cond_var) / sigma, 1e-12)
    z = (M - epsilon) / S
    with np.errstate(over="ignore"):
        inner = stats.norm.cdf(z) - np.exp(np.minimum(epsilon - M + S**2 / 2 + stats.norm.logcdf(z - S), 700.0))
    integrand = np.clip(inner, 0.0, 1.0) * stats.norm.pdf(_QUAD_T)
    return float(min(1.0, integrate.trapezoid(integrand, _QUAD_T)))


def squared_loss_profile(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, relation: str, lam: float, sigma: float
) -> SquaredLossProfile:
    """The exact profile of the pair (D, D ± z) of ObjPert with the squared loss (``relation``: add or remove;
    when removing, z must be a row of D)."""
    X, y, x = np.asarray(X, float), np.asarray(y, float), np.asarray(x, float)
    if relation == "remove":
        i = int(np.flatnonzero(np.all(X == x, axis=1) & (y == yz))[0])
        Xs, ys = np.delete(X, i, axis=0), np.delete(y, i)
    elif relation == "add":
        Xs, ys = X, y
    else:
        raise ValueError(f"relation must be add or remove, got {relation!r}")
    d = X.shape[1]
    Hs = 2 * Xs.T @ Xs + lam * np.eye(d)
    cs = 2 * Xs.T @ ys
    Hb, cb = Hs + 2 * np.outer(x, x), cs + 2 * yz * x
    mu = float(x @ np.linalg.solve(Hs, x))
    return SquaredLossProfile(
        _world(Hs, cs, x, yz), _world(Hb, cb, x, yz), float(x @ x), math.log1p(2 * mu), float(sigma), relation
    )
