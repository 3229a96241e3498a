"""δ(ε) of a T-fold composition from exact samples of the T-step privacy loss, importance-sampled by exponential
tilting, with a certified finite-sample interval.

**The estimand.**  In a direction whose world draws each step's release from p (the other world's density q_), the
per-step loss ℓ = log p/q_ is i.i.d. over the T steps and the T-step loss is L = ℓ₁ + … + ℓ_T, so

    δ_T(ε) = E_{p^T}[(1 − e^{ε − L})₊]                                                                    (1)

(the identity (1) of :mod:`pdp_audit.verify.estimators.rare`, applied to the product pair).

**Exponential tilting** (Siegmund 1976; Bucklew 2004, ch. 5; Sadowsky & Bucklew 1990 for sums of i.i.d. terms).
Each step is drawn from g_θ = p e^{θℓ}/M(θ), M(θ) = E_p[e^{θℓ}] (a Rényi moment: log M(θ) = θ D_{1+θ}(p‖q_)); the
likelihood ratio of the T steps is r = M(θ)^T e^{−θL}, exact, and on {L > ε}, writing L = ε + z,

    r (1 − e^{ε − L}) = M(θ)^T e^{−θε} · e^{−θz}(1 − e^{−z}) ≤ B := M(θ)^T e^{−θε} κ(θ),
    κ(θ) = sup_{z ≥ 0} e^{−θz}(1 − e^{−z}) = (θ/(1 + θ))^θ/(1 + θ).                                     (2)

So X = r(1 − e^{ε−L})₊/B = e^{−θ(L−ε)}(1 − e^{ε−L})₊/κ(θ) lies in [0, 1] for *every* draw -- no assumption on the
shape of the loss, unlike the half-space bound of a dominating point -- and δ_T(ε) = B·E_{g_θ}[X].  The empirical
Bernstein bound (Maurer & Pontil 2009, Thm 4; :class:`pdp_audit.verify.estimators.rare.BoundedMean`) then gives a
finite-sample interval valid on both sides.  X does not involve M(θ): M enters only through the scale B, computed by
the mechanism (:meth:`TiltedLaw.log_mgf`); its relative error e scales δ by (1 + e)^T.

**The tilt.**  B(θ) is itself the Rényi-DP bound on δ_T(ε) (Canonne, Kamath & Steinke 2020, Prop. 12; Asoodeh et
al. 2021), and E[X] = δ_T(ε)/B(θ): the θ that minimises B, over the tilts the mechanism can draw exactly (integers,
or any θ ≥ 0), maximises E[X] and so minimises the interval's relative width (about √(2 log(2/α)/(n E[X]))).  θ = 0
is plain sampling (B = 1).

Sampling is seeded by the block engine (block j of stream ``s`` draws from ``block_rng(seed, s, j)``; blocks of
:data:`COMPOSITION_BLOCK` T-step samples), so results depend on the seed only, never on the number of workers.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np
from scipy import optimize

from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.estimators.rare import BoundedMean
from pdp_audit.verify.estimators.stats import pvalue_by_inversion

#: T-step samples per seeded block (part of the code version: changing it changes the numbers).
COMPOSITION_BLOCK = 4096
#: Per-step draws held in memory at once by one block.
CHUNK_DRAWS = 1 << 21
#: Largest tilt searched.
THETA_MAX = 4096


class TiltedLaw(Protocol):
    """One step's tilted law g_θ in one direction: exact draws, the per-step loss ℓ, and log M(θ)."""

    @property
    def theta(self) -> float: ...

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray: ...

    def loss(self, x: np.ndarray) -> np.ndarray: ...

    def log_mgf(self) -> float: ...


def kappa(theta: float) -> float:
    """κ(θ) of (2) (1 at θ = 0)."""
    if theta <= 0:
        return 1.0
    return math.exp(theta * (math.log(theta) - math.log1p(theta)) - math.log1p(theta))


def log_bound(law: TiltedLaw, steps: int, epsilon: float) -> float:
    """log B(θ) = T log M(θ) − θε + log κ(θ), eq. (2)."""
    return steps * law.log_mgf() - law.theta * epsilon + math.log(kappa(law.theta))


def best_tilt(tilted: Callable[[float], TiltedLaw], steps: int, epsilon: float, integer: bool) -> TiltedLaw:
    """The tilt minimising B(θ) (module notes): log B is convex in θ (log M is a cumulant generating function and
    (log κ)'' = 1/(θ(1 + θ)) > 0), so the least integer in [0, :data:`THETA_MAX`] is found by bisection on the
    forward difference; where any θ ≥ 0 can be drawn it is then refined between its neighbours."""

    def value(theta: float) -> float:
        return log_bound(tilted(float(theta)), steps, epsilon)

    low, high = 0, THETA_MAX  # the least integer θ with value(θ + 1) ≥ value(θ) lies in [low, high]
    while low < high:
        middle = (low + high) // 2
        if value(middle + 1) >= value(middle):
            high = middle
        else:
            low = middle + 1
    best = tilted(float(low))
    if integer:
        return best
    found = optimize.minimize_scalar(value, bounds=(max(0.0, low - 1.0), low + 1.0), method="bounded")
    refined = tilted(float(found.x))
    return refined if log_bound(refined, steps, epsilon) < log_bound(best, steps, epsilon) else best


class ComposedLossSampler:
    """Picklable block work: ``size`` T-step losses L = Σℓ(x_i), x_i i.i.d. from the tilted law."""

    def __init__(self, law: TiltedLaw, steps: int):
        self.law, self.steps = law, int(steps)

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        total = np.zeros(size)
        chunk = max(1, CHUNK_DRAWS // max(size, 1))
        for start in range(0, self.steps, chunk):
            count = min(chunk, self.steps - start)
            x = self.law.draw(size * count, rng)
            total += self.law.loss(x).reshape(count, size).sum(axis=0)
        return total


@dataclass(frozen=True)
class ComposedTail:
    """Importance-sampled δ_T(ε) of one direction: the tilt θ, log B(θ), and the bounded mean of X (eq. (2))."""

    epsilon: float
    direction: str
    steps: int
    theta: float
    log_scale: float
    delta: BoundedMean
    losses_mean: float  # the tilted mean of L: about ε at the best tilt

    @property
    def n(self) -> int:
        return self.delta.n

    @property
    def estimate(self) -> float:
        return self.delta.estimate

    def lower_bound(self, alpha: float) -> float:
        return self.delta.lower_bound(alpha)

    def upper_bound(self, alpha: float) -> float:
        return self.delta.upper_bound(alpha)

    def interval(self, alpha: float) -> tuple[float, float]:
        return self.delta.interval(alpha)

    def pvalue(self, delta_claim: float) -> float:
        """p-value of "δ_T(ε) ≤ δ_claim", by inverting the one-sided lower bounds."""
        return pvalue_by_inversion(self.lower_bound, delta_claim)


def composed_tail(
    tilted: Callable[[float], TiltedLaw],
    steps: int,
    epsilon: float,
    draws: tuple[int, int, str],
    integer: bool = True,
    executor: Executor | None = None,
    progress: bool = False,
) -> ComposedTail:
    """δ_T(ε) in one direction from n T-step losses drawn at the best tilt; ``draws`` = (n, seed, stream), the
    stream also naming the direction; ``tilted(θ)`` the direction's tilted step law."""
    n, seed, stream = draws
    law = best_tilt(tilted, steps, epsilon, integer)
    losses = run_blocks(
        ComposedLossSampler(law, steps), n, seed, stream, executor, progress, block_size=COMPOSITION_BLOCK
    )
    theta = float(law.theta)
    excess = losses - epsilon
    with np.errstate(over="ignore", invalid="ignore"):  # e^{−θ(L−ε)} overflows only where L ≤ ε, set to 0
        x = np.where(excess > 0, np.exp(-theta * excess) * -np.expm1(-np.maximum(excess, 0.0)), 0.0) / kappa(theta)
    x = np.minimum(x, 1.0)  # ≤ 1 by (2); rounding can exceed it by an ulp
    mean = float(x.mean())
    variance = float(x.var(ddof=1)) if n > 1 else 0.0
    scale = log_bound(law, steps, epsilon)
    bounded = BoundedMean(n, mean, variance, math.exp(scale))
    return ComposedTail(float(epsilon), stream, int(steps), theta, scale, bounded, float(losses.mean()))
