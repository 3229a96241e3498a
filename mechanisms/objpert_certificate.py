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
from scipy import optimize, stats

from mechanisms import objpert as op
from mechanisms.losses import LogisticLoss, PseudoHuberLoss

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
        f2, f1 = loss_profile(self.loss, np.asarray(p, dtype=float))
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
        ref = op.corollary7_log_ratio(theta, X, y, X[i], y[i], lam, sigma, loss)
        assert abs(float(np.ravel(ref)[0]) - total[i]) <= 1e-9 * max(1.0, abs(total[i]))
    return {"epsilon": np.abs(total), "logdet": logdet, "gradient": square + cross, "margin": t, "loss": loss.f(t, y)}
