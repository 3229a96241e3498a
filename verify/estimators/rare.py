"""Rare-event privacy-loss tails: importance sampling at the dominating point, with valid intervals.

Plain Monte Carlo with n draws cannot resolve δ much below 30/n.  For mechanisms driven by Gaussian
noise we sample the noise from a shifted law instead and reweight exactly.

**Noise-level view.**  A pair exposes ``noise_dim`` (k), ``noise_sigma`` (σ, a scalar or a length-k
vector) and ``release_from_noise(world, noise)``; the release on ``world`` is
``release_from_noise(world, σ ⊙ w)`` with whitened noise ``w ~ N(0, I_k)``.  Write
``ℓ(w) = s · L(release(σ ⊙ w))`` with ``s = +1`` for the direction δ_{D‖D'} (world D) and ``s = −1``
for δ_{D'‖D} (world D'), so that both directions are "the tail of ℓ under the world's own noise".
The Gaussian mechanism and objective perturbation expose the view; Analyze Gauss and the GOE release
(``mean`` and ``noise_sd``) are adapted by :func:`noise_view`; OPS and output perturbation by
:func:`pdp_audit.audits.linreg.views.view_of` (the loss of OPS is quadratic in w: lower bounds only).

**Three tails from one sample.**  With P the world's law, Q the other world's and ℓ = log p/q,

    P_P[ℓ > ε] = E_P[1{ℓ > ε}],    P_Q[ℓ > ε] = E_P[e^{−ℓ} 1{ℓ > ε}],
    δ_{P‖Q}(ε) = P_P[ℓ > ε] − e^ε P_Q[ℓ > ε] = E_P[(1 − e^{ε−ℓ})₊]                           (1)

(the change of measure q = p e^{−ℓ}, exact because ``privacy_loss`` is the exact log density ratio;
the contract suite checks E_P[e^{−ℓ}] = 1).  Estimating δ through the right side of (1) avoids the
cancellation of the difference, which loses a factor ~ε/η² of relative precision in the far tail.

**Importance sampling** (Siegmund 1976; Bucklew 2004, ch. 5).  Draw ``w ~ N(μ, I)`` and weight by the
exact likelihood ratio of the two noise laws,

    r(w) = φ_k(w) / φ_k(w − μ) = exp(−μᵀw + ‖μ‖²/2),    E_μ[r(w) f(w)] = E_0[f(w)].            (2)

The shift μ is the *dominating point* of the event A_ε = {ℓ > ε}: the point of A_ε closest to the
origin, μ = argmin{‖w‖ : ℓ(w) ≥ ε} (the FORM design point of structural reliability, Hasofer & Lind
1974; found by the Hasofer–Lind–Rackwitz–Fiessler iteration, Rackwitz & Fiessler 1978).

**Bounded weights (why the interval is valid).**  If A_ε lies in the half-space
H = {w : μᵀw ≥ ‖μ‖²} then on A_ε, by (2), r(w) ≤ exp(−‖μ‖²/2) =: b.  This holds whenever A_ε is convex
(separate the open ball of radius ‖μ‖, which misses A_ε, from A_ε: the separating hyperplane touches
both at μ and has normal μ), in particular when ℓ is affine in w -- the Gaussian mechanism, Analyze
Gauss and the GOE release, where A_ε *is* the half-space H.  In the affine case ℓ(w) − ε = γ z with
z = uᵀw − ‖μ‖ ≥ 0 on A_ε (u = μ/‖μ‖, γ = ‖∇ℓ‖) and r = b e^{−‖μ‖z}, so the three integrands of (1)
are bounded by

    b,    b e^{−ε},    b · sup_{z≥0} e^{−tz}(1 − e^{−γz}) = b · γ/(t+γ) · (t/(t+γ))^{t/γ}   (t = ‖μ‖).   (3)

The samples X_i = integrand/bound are then iid in [0, 1] and the empirical Bernstein bound of Maurer
& Pontil (2009, Theorem 4) gives, with probability ≥ 1 − α,

    E X ≤ X̄ + √(2 V_n log(2/α) / n) + 7 log(2/α) / (3(n − 1))                                  (4)

(V_n the unbiased sample variance), and the same below by symmetry (apply (4) to 1 − X).  This is a
finite-sample interval, not a CLT one.  Its relative width does not grow as δ shrinks: at the
dominating point E X is of order 1/t and 1/t³ for the tail and δ respectively.

For a non-affine loss (objective perturbation) A_ε need not be convex.  Samples are still clipped to
[0, 1] after dividing by b, so the *lower* bound stays valid (clipping only lowers the mean); the
upper bound is valid only if A_ε ⊂ H, which is not certified: :attr:`RareTail.certified` is False,
``upper_bound`` returns +inf unless the caller asks to assume containment, and draws that land in
A_ε outside H are counted (``escapes``).

**Precision of the releases.**  A view whose releases are float32 computes ℓ with absolute rounding noise of
order eps₃₂ = 2^-23 times the terms it is a difference of, 2^29 times float64's.  The affinity test then allows
|ℓ(w) − ℓ(0) − ∇ℓ(0)ᵀw| ≤ ρ (1 + |ℓ(w)| + |w|ᵀ|∇ℓ(0)|) with ρ = max(1e-8, 2^10 eps) (:func:`affine_rtol`: 1e-8 for
float64, as always; 1.2e-4 for float32), and a draw is an *escape* only when its weight exceeds what rounding
explains.  A computed ℓ̃ = ℓ + e with |e| ≤ τ(w) = 2^10 eps (1 + |ℓ̃(w)| + |w|ᵀ|∇ℓ(μ)|) lands on the event
only where γz > −τ, i.e. where r/b = e^{−tz} < e^{tτ/γ}; so r/b may exceed 1 by max(1e-9, e^{tτ/γ} − 1)
(:meth:`ShiftedTailSampler.slack`).  For float64, 2^10 eps = 2^-42 and the slack stays 1e-9, as always, while
t(1 + |ℓ̃| + |w|ᵀ|∇ℓ|)/γ < 4,000.  The weights of such draws are still clipped at b, which lowers the mean; the
upper bound is multiplied by the largest scaled value seen inside the slack (:attr:`BoundedMean.peak`: for
0 ≤ v ≤ peak, v ≤ peak · min(v, 1)), so a draw inside the slack never lowers it.

Sampling is seeded by the block engine: block j of the stream draws from
``SeedSequence(seed, spawn_key=(crc32(stream), j))`` and returns its moments, which are combined in
block order (Chan, Golub & LeVeque 1983), so results depend on the seed only, not on workers.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from scipy import optimize

from pdp_audit.mechanisms.base import ROUNDING_ULPS, World, release_epsilon
from pdp_audit.verify.estimators.engine import BLOCK_SIZE, block_rng, block_sizes
from pdp_audit.verify.estimators.progress import with_progress
from pdp_audit.verify.inputs.validation import InputError

Direction = Literal["D||D'", "D'||D"]
DIRECTIONS: dict[str, tuple[World, float]] = {"D||D'": ("D", 1.0), "D'||D": ("D'", -1.0)}


def check_direction(direction: str) -> Direction:
    """``direction`` if it is ``"D||D'"`` or ``"D'||D"``, else an InputError naming the two."""
    if direction == "D||D'":
        return "D||D'"
    if direction == "D'||D":
        return "D'||D"
    raise InputError(f"direction must be one of {tuple(DIRECTIONS)}, got {direction!r}")


# Relative slack on the weight bound: the shift is computed in floating point, so weights on the
# event may exceed b by rounding (relative ~1e-12); anything beyond 1e-9 counts as an escape.
BOUND_SLACK = 1e-9
#: Relative tolerance of the affinity test for float64 releases (:func:`affine_rtol` for coarser types).
AFFINE_RTOL = 1e-8
#: Machine epsilon of float64, the precision every built-in view releases at.
FLOAT64_EPS = float(np.finfo(np.float64).eps)


def affine_rtol(eps: float = FLOAT64_EPS) -> float:
    """Relative tolerance of the affinity test for releases with machine epsilon ``eps``: max(1e-8, 2^10 eps), i.e.
    1e-8 for float64 and 2^-13 ≈ 1.2e-4 for float32 (see the module notes)."""
    return max(AFFINE_RTOL, ROUNDING_ULPS * float(eps))


@runtime_checkable
class NoiseView(Protocol):
    """A pair whose releases are a deterministic function of Gaussian noise ``σ ⊙ w``, ``w ~ N(0, I)``."""

    noise_dim: int
    noise_sigma: float | np.ndarray

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        """Releases on ``world`` for each row of ``noise`` (shape ``(rows, noise_dim)``)."""

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """Exact ``log p_D(o) − log p_D'(o)`` of each row."""


def has_noise_view(pair: object) -> bool:
    """Whether ``pair`` exposes the Gaussian noise-level view (``noise_dim``, ``noise_sigma``, ``release_from_noise``;
    a view declaring another ``noise_law`` is :mod:`pdp_audit.verify.estimators.tilting`'s)."""
    return getattr(pair, "noise_law", "gaussian") == "gaussian" and all(
        hasattr(pair, name) for name in ("noise_dim", "noise_sigma", "release_from_noise", "privacy_loss")
    )


class DiagonalGaussianView:
    """Noise-level view of a pair released as ``mean(world) + N(0, diag(noise_sd²))``.

    Adapter for pairs that expose ``mean(world)`` and per-coordinate ``noise_sd`` but not the view
    itself (``pdp_audit.mechanisms.analyze_gauss``: Analyze Gauss and the GOE release, whose ``vech`` noise has
    exactly this law).  Sampling through the view changes the random stream, never the law.
    """

    def __init__(self, pair):
        self.pair = pair
        self.noise_sigma = np.asarray(pair.noise_sd, dtype=float)
        self.noise_dim = self.output_dim = int(self.noise_sigma.size)

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.pair.mean(world) + noise

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.release_from_noise(world, self.noise_sigma * rng.standard_normal((size, self.noise_dim)))

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return self.pair.privacy_loss(outputs)


def noise_view(pair) -> NoiseView:
    """``pair`` itself if it has the noise-level view, else :class:`DiagonalGaussianView` for pairs with
    ``mean``/``noise_sd`` (Analyze Gauss, GOE).  Linear-regression pairs:
    :func:`pdp_audit.audits.linreg.views.view_of`."""
    if has_noise_view(pair):
        return pair
    if hasattr(pair, "mean") and hasattr(pair, "noise_sd"):
        return DiagonalGaussianView(pair)
    raise TypeError(f"{type(pair).__name__} exposes no noise-level view (noise_dim, noise_sigma, release_from_noise)")


def rare_capable(pair: object) -> bool:
    """Whether :func:`noise_view` can see ``pair`` at the noise level (so :func:`rare_tail` applies)."""
    try:
        noise_view(pair)
    except TypeError:
        return False
    return True


def whitened_loss(view: NoiseView, world: World, sign: float, w: np.ndarray) -> np.ndarray:
    """ℓ(w) = sign · L(release_from_noise(world, σ ⊙ w)) for each row of the whitened noise ``w``."""
    w = np.atleast_2d(np.asarray(w, dtype=float))
    return sign * view.privacy_loss(view.release_from_noise(world, w * view.noise_sigma))


def view_epsilon(view: NoiseView, world: World) -> float:
    """Machine epsilon of the view's releases on ``world`` and of their loss (the coarser), from one release at
    zero noise: :func:`pdp_audit.mechanisms.base.release_epsilon`."""
    releases = view.release_from_noise(world, np.zeros((1, int(view.noise_dim))))
    return release_epsilon(releases, view.privacy_loss(releases))


# --------------------------------------------------------------------------------------------
# The dominating point
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DominatingPoint:
    """μ = argmin{‖w‖ : ℓ(w) ≥ ε}, with what is known about the event's shape there.

    ``affine``: ℓ was verified to be affine in w (relative tolerance :func:`affine_rtol` at random points), so
    A_ε is exactly the half-space at μ and the bounds (3) hold.  ``gradient`` is ∇ℓ at μ; ``release_epsilon`` the
    machine epsilon of the view's releases (:func:`view_epsilon`).
    """

    shift: np.ndarray
    epsilon: float
    gradient: np.ndarray
    affine: bool
    converged: bool
    iterations: int
    release_epsilon: float = FLOAT64_EPS

    @property
    def distance(self) -> float:
        """t = ‖μ‖ (the FORM reliability index β of Hasofer & Lind 1974)."""
        return float(np.linalg.norm(self.shift))

    @property
    def log_weight_bound(self) -> float:
        """log b = −‖μ‖²/2: the largest log-weight on the half-space H, eq. (2)."""
        return -0.5 * self.distance**2

    def delta_factor(self) -> float:
        """sup_{z≥0} e^{−tz}(1 − e^{−γz}) of (3) when ℓ is affine; 1 otherwise (the general bound b)."""
        t, gamma = self.distance, float(np.linalg.norm(self.gradient))
        if not self.affine or gamma == 0:
            return 1.0
        if t == 0:
            return 1.0
        return gamma / (t + gamma) * math.exp(-(t / gamma) * math.log1p(gamma / t))


def _gradient(loss, w: np.ndarray, step: float) -> tuple[float, np.ndarray]:
    """ℓ(w) and its central-difference gradient, from one batched call of 2k + 1 rows."""
    k = w.size
    rows = np.vstack([w, w + step * np.eye(k), w - step * np.eye(k)])
    values = loss(rows)
    return float(values[0]), (values[1 : k + 1] - values[k + 1 :]) / (2 * step)


def _is_affine(
    loss, value0: float, grad0: np.ndarray, scale: float, rng: np.random.Generator, rtol: float = AFFINE_RTOL
) -> bool:
    """Does ℓ(w) = ℓ(0) + ∇ℓ(0)ᵀw hold at 8 random points of norm ~``scale`` (relative ``rtol``)?"""
    points = rng.standard_normal((8, grad0.size)) * max(scale, 1.0)
    values = loss(points)
    model = value0 + points @ grad0
    return bool(np.all(np.abs(values - model) <= rtol * (1 + np.abs(values) + np.abs(points) @ np.abs(grad0))))


def _half_space_point(value: float, grad: np.ndarray, w: np.ndarray, epsilon: float) -> np.ndarray:
    """Closest point to 0 of {v : ℓ(w) + ∇ℓ(w)ᵀ(v − w) ≥ ε} (one HL-RF step)."""
    g2 = float(grad @ grad)
    if g2 == 0:
        raise NoDominatingPoint("the privacy loss is flat in the noise: no dominating point")
    level = epsilon - value + grad @ w  # need ∇ℓᵀv ≥ level
    return max(level, 0.0) * grad / g2


def dominating_point(
    view: NoiseView, epsilon: float, direction: Direction = "D||D'", max_iter: int = 100, tol: float = 1e-10
) -> DominatingPoint:
    """The dominating point of {ℓ > ε} in whitened noise space.

    Affine ℓ (verified numerically) gives the closed form μ = (ε − ℓ(0))₊ ∇ℓ/‖∇ℓ‖².  Otherwise the
    HL-RF iteration w ← closest point of the linearised event (Rackwitz & Fiessler 1978) is run, and if
    it does not settle, SLSQP on min ½‖w‖² s.t. ℓ(w) ≥ ε starting from its last iterate.  Gradients
    are central differences (step 1 for the affine test, where they are exact; 1e-5 otherwise).  The affinity
    tolerance is that of the view's floating-point type (:func:`affine_rtol` of :func:`view_epsilon`).
    """
    world, sign = DIRECTIONS[direction]
    epsilon = float(epsilon)

    def loss(rows: np.ndarray) -> np.ndarray:
        return whitened_loss(view, world, sign, rows)

    origin = np.zeros(int(view.noise_dim))
    value0, grad0 = _gradient(loss, origin, 1.0)
    shift0 = _half_space_point(value0, grad0, origin, epsilon)
    rng = np.random.default_rng(20240601)
    eps = view_epsilon(view, world)
    if _is_affine(loss, value0, grad0, float(np.linalg.norm(shift0)) + 3.0, rng, affine_rtol(eps)):
        return DominatingPoint(shift0, epsilon, grad0, affine=True, converged=True, iterations=1, release_epsilon=eps)
    w = shift0
    for it in range(1, max_iter + 1):
        value, grad = _gradient(loss, w, 1e-5)
        new = _half_space_point(value, grad, w, epsilon)
        if np.linalg.norm(new - w) <= tol * (1 + np.linalg.norm(w)) and abs(value - epsilon) <= 1e-8 * (
            1 + abs(epsilon)
        ):
            return DominatingPoint(new, epsilon, grad, False, True, it, release_epsilon=eps)
        w = new
    result = optimize.minimize(
        lambda v: 0.5 * v @ v,
        w,
        jac=lambda v: v,
        method="SLSQP",
        constraints=[
            {
                "type": "ineq",
                "fun": lambda v: float(loss(v[None])[0]) - epsilon,
                "jac": lambda v: _gradient(loss, v, 1e-5)[1],
            }
        ],
        options={"maxiter": 200, "ftol": 1e-12},
    )
    w = np.asarray(result.x, dtype=float)
    value, grad = _gradient(loss, w, 1e-5)
    ok = bool(result.success) and value >= epsilon - 1e-6 * (1 + abs(epsilon))
    return DominatingPoint(w, epsilon, grad, False, ok, max_iter + int(result.nit), release_epsilon=eps)


# --------------------------------------------------------------------------------------------
# Bounded means and the empirical Bernstein interval
# --------------------------------------------------------------------------------------------
def empirical_bernstein_radius(variance: float, n: int, alpha: float) -> float:
    """One-sided radius of eq. (4), Maurer & Pontil (2009) Thm 4, for iid X ∈ [0, 1] at confidence 1 − α."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if n < 2:
        return math.inf
    log_term = math.log(2 / alpha)
    return math.sqrt(2 * max(variance, 0.0) * log_term / n) + 7 * log_term / (3 * (n - 1))


@dataclass(frozen=True)
class BoundedMean:
    """n iid draws of Y ∈ [0, scale], summarised by the mean and variance of X = Y/scale."""

    n: int
    mean: float  # of X
    variance: float  # unbiased, of X
    scale: float
    #: ≥ 1: what the upper bound is multiplied by, where draws above the scale (inside a rounding slack) were clipped
    #: to it: for 0 ≤ v ≤ peak, v ≤ peak · min(v, 1), so peak times the clipped mean's bound bounds the mean
    peak: float = 1.0

    @property
    def estimate(self) -> float:
        return self.scale * self.mean

    def lower_bound(self, alpha: float) -> float:
        """One-sided (1 − α) lower confidence bound on E Y (eq. (4) applied to 1 − X)."""
        return self.scale * max(0.0, self.mean - empirical_bernstein_radius(self.variance, self.n, alpha))

    def upper_bound(self, alpha: float) -> float:
        """One-sided (1 − α) upper confidence bound on E Y, eq. (4)."""
        radius = empirical_bernstein_radius(self.variance, self.n, alpha)
        return self.scale * self.peak * min(1.0, self.mean + radius)

    def interval(self, alpha: float) -> tuple[float, float]:
        """Two-sided interval at confidence 1 − α (α/2 on each side)."""
        return self.lower_bound(alpha / 2), self.upper_bound(alpha / 2)

    def relative_half_width(self, alpha: float) -> float:
        lo, hi = self.interval(alpha)
        return math.inf if self.estimate <= 0 else (hi - lo) / (2 * self.estimate)


def _combine(moments: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Merge per-block (count, means, M2) rows in order (Chan, Golub & LeVeque 1983)."""
    first = moments[0]  # one row at least: a run has a block
    n, mean, m2 = int(first[0]), first[1::2][:3].copy(), first[2::2][:3].copy()
    for row in moments[1:]:
        nb, mb, m2b = int(row[0]), row[1::2][:3], row[2::2][:3]
        total = n + nb
        d = mb - mean
        mean = mean + d * nb / total
        m2 = m2 + m2b + d * d * n * nb / total
        n = total
    return n, mean, m2


# --------------------------------------------------------------------------------------------
# The importance sampler and the tail estimate
# --------------------------------------------------------------------------------------------
class ShiftedTailSampler:
    """Picklable block work: draws w ~ N(μ, I) and returns one row of moments.

    Row layout: ``[n, mean_δ, M2_δ, mean_P, M2_P, mean_Q, M2_Q, peak, escapes]`` (``peak`` the largest scaled value
    of a draw inside the rounding slack, at least 1) for the three scaled integrands
    of (1) (divided by their bounds (3) and clipped to [0, 1]).  Override :meth:`log_weight` to test
    that a wrong weight is caught.
    """

    def __init__(self, view: NoiseView, direction: Direction, point: DominatingPoint):
        self.view, self.direction, self.point = view, direction, point
        self.world, self.sign = DIRECTIONS[direction]

    def log_weight(self, w: np.ndarray) -> np.ndarray:
        """log r(w) = −μᵀw + ‖μ‖²/2, eq. (2)."""
        mu = self.point.shift
        return -(w @ mu) + 0.5 * float(mu @ mu)

    def slack(self, w: np.ndarray, ell: np.ndarray) -> np.ndarray | float:
        """How far r/b may exceed 1 on the event before a draw counts as an escape: max(1e-9, e^{tτ(w)/γ} − 1),
        τ(w) = 2^10 eps (1 + |ℓ(w)| + |w|ᵀ|∇ℓ(μ)|) the rounding noise of a loss computed at the releases' precision
        (module notes; 1e-9 for float64 in practice)."""
        t, gradient = self.point.distance, self.point.gradient
        gamma = float(np.linalg.norm(gradient))
        if t == 0 or gamma == 0:
            return BOUND_SLACK
        tau = ROUNDING_ULPS * self.point.release_epsilon * (1 + np.abs(ell) + np.abs(w) @ np.abs(gradient))
        return np.maximum(BOUND_SLACK, np.expm1(np.minimum(t * tau / gamma, 700.0)))

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        w = rng.standard_normal((size, self.point.shift.size))
        w += self.point.shift
        ell = whitened_loss(self.view, self.world, self.sign, w)
        eps, log_b = self.point.epsilon, self.point.log_weight_bound
        hit = ell > eps
        # scaled weight r/b on the event, computed in log space (r and b both underflow far out)
        ratio = np.where(hit, np.exp(np.minimum(self.log_weight(w) - log_b, 700.0)), 0.0)
        excess = np.where(hit, ell - eps, 0.0)
        delta_part = ratio * -np.expm1(-excess) / self.point.delta_factor()  # δ integrand / (b κ)
        slack = self.slack(w, ell)
        inside = ~((ratio > 1 + slack) | (delta_part > 1 + slack))
        escapes = int(np.sum(~inside))
        # the largest scaled value of a draw inside the slack: clipping it at 1 would lower the upper bound's mean,
        # so the upper bound is scaled by it instead (RareTail.peak)
        peak = float(np.max(np.where(inside, np.maximum(ratio, delta_part), 0.0), initial=1.0))
        ratio = np.minimum(ratio, 1.0)
        values = (
            np.minimum(delta_part, 1.0),
            ratio,  # 1{ℓ > ε} r / b
            ratio * np.exp(-excess),  # e^{−ℓ} 1{ℓ > ε} r / (b e^{−ε})
        )
        row = [float(size)]
        for v in values:
            mean = float(v.mean())
            row += [mean, float(np.sum((v - mean) ** 2))]
        return np.array([row + [peak, float(escapes)]])


def _run(args: tuple[ShiftedTailSampler, int, str, int, int]) -> np.ndarray:
    work, seed, stream, block, size = args
    return work(size, block_rng(seed, stream, block))


@dataclass(frozen=True)
class RareTail:
    """Importance-sampled δ_{P‖Q}(ε), P_P[ℓ > ε] and P_Q[ℓ > ε] for one ε and direction."""

    epsilon: float
    direction: str
    point: DominatingPoint
    delta: BoundedMean
    tail_p: BoundedMean
    tail_q: BoundedMean
    escapes: int
    #: The largest scaled integrand of a draw inside the rounding slack (≥ 1; :attr:`BoundedMean.peak` of the three)
    peak: float = 1.0

    @property
    def n(self) -> int:
        return self.delta.n

    @property
    def certified(self) -> bool:
        """Upper bounds are valid: ℓ is affine (A_ε is the half-space) and no draw escaped it."""
        return self.point.affine and self.point.converged and self.escapes == 0

    @property
    def estimate(self) -> float:
        return self.delta.estimate

    def lower_bound(self, alpha: float) -> float:
        """One-sided (1 − α) lower bound on δ(ε); valid for every mechanism (clipping lowers the mean)."""
        return self.delta.lower_bound(alpha)

    def upper_bound(self, alpha: float, assume_contained: bool = False) -> float:
        """One-sided (1 − α) upper bound on δ(ε); +inf unless certified or containment is assumed."""
        return self.delta.upper_bound(alpha) if self.certified or assume_contained else math.inf

    def interval(self, alpha: float, assume_contained: bool = False) -> tuple[float, float]:
        return self.lower_bound(alpha / 2), self.upper_bound(alpha / 2, assume_contained)


@dataclass(frozen=True)
class TailBlocks:
    """How :func:`rare_tail` splits its draws into seeded blocks and works each: ``block_size`` draws per block, and
    the ``sampler`` class that draws one block under the shifted law and returns its moments (the tests put a
    wrongly weighted one in its place)."""

    sampler: type[ShiftedTailSampler] = ShiftedTailSampler
    block_size: int = BLOCK_SIZE


def rare_tail(
    pair,
    epsilon: float,
    direction: Direction,
    n: int,
    seed: int,
    stream: str = "rare",
    executor: Executor | None = None,
    blocks: TailBlocks = TailBlocks(),
) -> RareTail:
    """Importance-sampled tails at one ε in one direction from ``n`` shifted draws (see the module notes).

    ``pair`` needs the noise-level view (or ``mean``/``noise_sd``, see :func:`noise_view`).  Block ``j``
    uses ``block_rng(seed, f"{stream}/{direction}", j)``.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {tuple(DIRECTIONS)}, got {direction!r}")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    view = noise_view(pair)
    point = dominating_point(view, epsilon, direction)
    work = blocks.sampler(view, direction, point)
    name = f"{stream}/{direction}"
    jobs = [(work, int(seed), name, b, size) for b, size in enumerate(block_sizes(n, blocks.block_size))]
    mapped = executor.map(_run, jobs) if executor is not None else map(_run, jobs)
    sizes = [job[4] for job in jobs]
    rows = np.concatenate(list(with_progress(mapped, len(jobs), name, "block", None, sizes)))  # where the audit asked
    count, means, m2 = _combine(rows)
    variances = m2 / max(count - 1, 1)
    b = math.exp(point.log_weight_bound)
    scales = (b * point.delta_factor(), b, b * math.exp(-float(epsilon)))
    escapes, peak = int(rows[:, -1].sum()), float(rows[:, -2].max())
    delta, tail_p, tail_q = (
        BoundedMean(count, float(m), float(v), s, peak) for m, v, s in zip(means, variances, scales)
    )
    return RareTail(float(epsilon), direction, point, delta, tail_p, tail_q, escapes=escapes, peak=peak)


class NoDominatingPoint(ArithmeticError):
    """The privacy loss is flat in the noise (numerically): there is no shift for importance sampling to use."""


def has_dominating_point(pair, epsilon: float, direction: str) -> bool:
    """Whether :func:`try_rare_tail` finds a shift at ``epsilon`` (it samples only then): decided before any draw."""
    try:
        dominating_point(noise_view(pair), epsilon, check_direction(direction))
    except NoDominatingPoint:
        return False
    return True


def try_rare_tail(
    pair, epsilon: float, direction: str, n: int, seed: int, stream: str = "rare", executor: Executor | None = None
) -> RareTail | None:
    """:func:`rare_tail`, or None where the loss has no dominating point (then only plain sampling can decide)."""
    try:
        return rare_tail(pair, epsilon, check_direction(direction), n, seed, stream=stream, executor=executor)
    except NoDominatingPoint:
        return None
