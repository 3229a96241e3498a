"""Convex, twice-differentiable losses and regularisers for objective perturbation ([RW] §2.3, M9).

Two representations:

* :class:`GLMLoss` -- a generalised linear loss ``ℓ(θ; (x, y)) = f(xᵀθ; y)`` ([RW] §1.1 GLM).  Only the
  scalar ``f, f', f''`` are coded, so ``∇ℓ = f'(·) x`` and ``∇²ℓ = f''(·) x xᵀ`` (the closed forms of
  [RW] Corollary 7 and Algorithm 2 need exactly these).  Built-ins: :class:`LogisticLoss`,
  :class:`SquaredLoss`, :class:`PseudoHuberLoss`.
* :class:`ConvexLoss` -- any convex C² loss given by value / gradient / Hessian callables (the general
  non-GLM case of [RW] Theorem 6).

Constants ``xi`` (gradient bound) and ``beta`` (Hessian bound) are those of [RW] Theorem 5 under the
paper's assumptions ``‖x‖₂ ≤ 1``, ``|y| ≤ 1``, with ``θ ∈ ℝᵈ`` unless a radius is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pdp_audit.verify.inputs.validation import InputError

#: labels: one per row of ``t``, or one shared by every row (the per-point paths below)
Labels = np.ndarray | float


class GLMLoss:
    """``ℓ(θ; (x, y)) = f(xᵀθ; y)``; subclasses implement ``f``, ``f1 = ∂f/∂t``, ``f2 = ∂²f/∂t²``.

    All three are elementwise in ``t`` and broadcast against ``y``.
    """

    name: str = "glm"

    def f(self, t: np.ndarray, y: Labels) -> np.ndarray:
        raise NotImplementedError

    def f1(self, t: np.ndarray, y: Labels) -> np.ndarray:
        raise NotImplementedError

    def f2(self, t: np.ndarray, y: Labels) -> np.ndarray:
        raise NotImplementedError

    def f_f1(self, t: np.ndarray, y: Labels) -> tuple[np.ndarray, np.ndarray]:
        """``(f, f')`` together (subclasses fuse them where that saves transcendental calls)."""
        return self.f(t, y), self.f1(t, y)

    def f1_near(self, t: np.ndarray, y: Labels) -> np.ndarray:
        """f' within a few units in the last place of :meth:`f1`'s (subclasses compute it more cheaply), for bounds
        whose margins are far above rounding."""
        return self.f1(t, y)

    def check_labels(self, y: np.ndarray) -> None:
        """Raise InputError if ``y`` holds labels the loss is not defined for."""
        if not np.all(np.isfinite(y)):
            raise InputError("y must be finite")

    def gradient_bound(self, theta_radius: float = math.inf) -> float:
        """ξ with ``‖∇ℓ(θ; z)‖₂ ≤ ξ`` for ``‖x‖ ≤ 1``, ``|y| ≤ 1``, ``‖θ‖ ≤ theta_radius`` ([RW] Thm 5)."""
        raise NotImplementedError

    def hessian_bound(self) -> float:
        """β with ``∇²ℓ(θ; z) ⪯ β I`` for ``‖x‖ ≤ 1``, ``|y| ≤ 1`` ([RW] Thm 5)."""
        raise NotImplementedError

    # Per-point derivatives in the common (θ-batched) form used by the general code paths.
    def point_value(self, theta: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        return self.f(theta @ x, y)

    def point_grad(self, theta: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        return self.f1(theta @ x, y)[:, None] * x

    def point_hess(self, theta: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        return self.f2(theta @ x, y)[:, None, None] * np.outer(x, x)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class LogisticLoss(GLMLoss):
    """Logistic loss ``f(t; y) = log(1 + e^{−y t})``, labels ``y ∈ {−1, +1}``.

    ``f' = −y·s(−y t)``, ``f'' = y²·s(y t)·s(−y t)`` with the logistic sigmoid ``s``; computed with
    ``logaddexp`` / ``expit`` so that no exponential overflows.  ξ = 1, β = 1/4 (the maximum of
    ``s(1 − s)``), which makes Theorem 5's ``λ ≥ 2β/ε`` the paper's ``λ ≥ 1/(2ε)`` ([RW] §4, K19).
    """

    name = "logistic"

    def f(self, t, y):
        return np.logaddexp(0.0, -y * t)

    def f1(self, t, y):
        from scipy import special  # scipy where it is used: every command's parser imports this module

        return -y * special.expit(-y * t)

    def f2(self, t, y):
        """s(a)s(−a) = e^{−|a|}/(1 + e^{−|a|})² at a = yt: y²e/(1 + e)², the products in place (the same roundings)."""
        e = np.abs(np.multiply(y, t, dtype=float))
        if e.ndim == 0:
            e = np.exp(-e)
            return y * y * e / (1.0 + e) ** 2
        np.negative(e, out=e)
        np.exp(e, out=e)
        square = 1.0 + e
        square **= 2
        e *= y * y
        e /= square
        return e

    def f1_near(self, t, y):
        """f' = −y/(1 + e^{yt}) to 2–3 units in the last place with one ``exp`` (``expit`` costs ~6×); an overflowing
        e^{yt} gives 0, where f' underflows."""
        e = np.multiply(y, t, dtype=float)
        with np.errstate(over="ignore"):
            if e.ndim == 0:
                return -y / (1.0 + np.exp(e))
            np.exp(e, out=e)
        e += 1.0
        return np.divide(-np.asarray(y, dtype=float), e, out=e)

    def f_f1(self, t, y):
        """Both with one ``exp``, one ``log1p`` and one ``expit`` per element, in place:
        with ``u = −y t``, ``f = max(u, 0) + log1p(e^{−|u|})`` and ``f' = −y·s(u)``."""
        from scipy import special

        u = -y * t
        f = np.abs(u)
        np.negative(f, out=f)
        np.exp(f, out=f)
        np.log1p(f, out=f)
        f += np.maximum(u, 0.0)
        s = special.expit(u, out=u)
        s *= -y
        return f, s

    def check_labels(self, y):
        if not np.all((y == 1) | (y == -1)):
            raise InputError("y must be in {-1, +1} for the logistic loss")

    def gradient_bound(self, theta_radius=math.inf):
        return 1.0

    def hessian_bound(self):
        return 0.25


class SquaredLoss(GLMLoss):
    """Squared loss ``f(t; y) = (y − t)²`` -- the convention of [PDP] §1 / [RW] (no factor 1/2).

    ``f' = 2(t − y)``, ``f'' = 2``; β = 2.  The gradient is unbounded on ``θ ∈ ℝᵈ`` (ξ = ∞, so Theorem 5
    cannot be applied, cf. [RW] App. B.3 / K23); on ``‖θ‖ ≤ R`` it is ``ξ = 2(1 + R)``.
    """

    name = "squared"

    def f(self, t, y):
        return (y - t) ** 2

    def f1(self, t, y):
        return 2.0 * (t - y)

    def f2(self, t, y):
        return np.full(np.broadcast(t, y).shape, 2.0)

    def gradient_bound(self, theta_radius=math.inf):
        return 2.0 * (1.0 + theta_radius)

    def hessian_bound(self):
        return 2.0


class PseudoHuberLoss(GLMLoss):
    """Pseudo-Huber loss ``f(t; y) = κ²(√(1 + ((t − y)/κ)²) − 1)`` (C^∞ smooth Huber, width ``κ``).

    With ``r = t − y``, ``s = √(1 + (r/κ)²)``: ``f = r²/(1 + s)`` (cancellation-free form), ``f' = r/s``,
    ``f'' = s⁻³``.  Quadratic ``r²/2`` near 0, linear ``κ|r|`` in the tails.  ξ = κ, β = 1.
    """

    name = "pseudo_huber"

    def __init__(self, kappa: float = 1.0):
        if not (math.isfinite(kappa) and kappa > 0):
            raise InputError(f"kappa must be a finite number > 0, got {kappa!r}")
        self.kappa = float(kappa)

    def _s(self, t, y):
        return np.hypot(1.0, (t - y) / self.kappa)

    def f(self, t, y):
        r = t - y
        return r * r / (1.0 + self._s(t, y))

    def f1(self, t, y):
        return (t - y) / self._s(t, y)

    def f2(self, t, y):
        return self._s(t, y) ** -3

    def gradient_bound(self, theta_radius=math.inf):
        return self.kappa

    def hessian_bound(self):
        return 1.0

    def __repr__(self) -> str:
        return f"PseudoHuberLoss(kappa={self.kappa})"


PointFn = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


@dataclass(frozen=True)
class ConvexLoss:
    """A user-supplied convex C² loss ``ℓ(θ; (x, y))`` (general, non-GLM).

    Each callable takes ``theta`` of shape ``(T, d)`` (a batch of parameters), one feature vector ``x``
    of shape ``(d,)`` and a label ``y``, and returns shapes ``(T,)``, ``(T, d)``, ``(T, d, d)``.
    ``xi``/``beta`` are the Theorem 5 constants if known (``nan`` otherwise).  Convexity is the
    caller's promise; a non-positive-definite Hessian of J is detected by the solver.
    """

    value: PointFn
    grad: PointFn
    hess: PointFn
    name: str = "custom"
    xi: float = math.nan
    beta: float = math.nan

    def point_value(self, theta, x, y):
        return self.value(theta, x, y)

    def point_grad(self, theta, x, y):
        return self.grad(theta, x, y)

    def point_hess(self, theta, x, y):
        return self.hess(theta, x, y)

    def check_labels(self, y) -> None:
        if not np.all(np.isfinite(y)):
            raise InputError("y must be finite")

    def gradient_bound(self, theta_radius: float = math.inf) -> float:
        return self.xi

    def hessian_bound(self) -> float:
        return self.beta


ThetaFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Regulariser:
    """A convex C² regulariser ``r(θ)``: callables of ``theta`` ``(T, d)`` returning ``(T,)``, ``(T, d)`` and
    ``(T, d, d)``."""

    value: ThetaFn
    grad: ThetaFn
    hess: ThetaFn
    name: str = "r"


Loss = GLMLoss | ConvexLoss

_BUILTIN = {
    "logistic": LogisticLoss,
    "squared": SquaredLoss,
    "pseudo_huber": PseudoHuberLoss,
    "huber": PseudoHuberLoss,
}


def get_loss(loss: str | Loss) -> Loss:
    """A loss object from a built-in name (``logistic``, ``squared``, ``pseudo_huber``/``huber``) or itself."""
    if isinstance(loss, (GLMLoss, ConvexLoss)):
        return loss
    if isinstance(loss, str) and loss in _BUILTIN:
        return _BUILTIN[loss]()
    raise InputError(f"loss must be one of {sorted(_BUILTIN)} or a GLMLoss/ConvexLoss, got {loss!r}")
