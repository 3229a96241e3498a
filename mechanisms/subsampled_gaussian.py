"""The Poisson-subsampled Gaussian mechanism of DP-SGD: its dominating pair per step, the exact per-step privacy
loss, and the exponentially tilted law that importance-samples the T-step loss.

**The mechanism** (Abadi et al. 2016, Algorithm 1).  Each of T steps includes every record independently with
probability q (Poisson sampling), clips each included record's gradient to L2 norm C, sums them and adds
N(0, σ²C²I); σ is the *noise multiplier*.  Everything below is in units of C (sensitivity 1).

**Dominating pairs per step** (φ = the N(0, σ²) density; R₊(x) = (1 − q) + q e^{(2x − 1)/(2σ²)},
R₋(x) = (1 − q) + q e^{(−2x − 1)/(2σ²)}, so that (1 − q)φ(x) + qφ(x ∓ 1) = φ(x)R_±(x)):

* **add/remove** (D holds the individual, D' does not): P = (1 − q)N(0, σ²) + qN(1, σ²) = φR₊ against
  Q = N(0, σ²) = φ (Mironov, Talwar & Zhang 2019, §3; Zhu, Dong & Wang 2022, Thm 11: the pair dominates every
  add/remove neighbour of Poisson-subsampled clipped gradients, in the direction P‖Q for removal and Q‖P for
  addition).  Loss L(x) = log R₊(x).
* **replace-one** (the individual's gradient replaced by another of norm ≤ C): P = φR₊ against Q = φR₋, the
  individual's gradient +C e₁ in D and −C e₁ in D' (the pair of dp-accounting's ``REPLACE`` adjacency for the
  sampled Gaussian; at q = 1 it is N(1, σ²) against N(−1, σ²), sensitivity 2C).  Loss L(x) = log R₊(x) − log R₋(x).
  The pair is symmetric under x → −x, so both directions have the same profile.

The T steps use independent noise and sampling, so the T-step loss is the sum of T i.i.d. per-step losses, and
δ_{P^T‖Q^T}(ε) = E_{P^T}[(1 − e^{ε − L_T})₊] (Dong, Roth & Su 2022; the identity (1) of
:mod:`pdp_audit.verify.estimators.rare`).

**Exponential tilting** (Siegmund 1976; Bucklew 2004, ch. 5).  In a direction whose world draws x from the density
p and whose per-step loss is ℓ(x), the tilted law is g_θ = p e^{θℓ}/M(θ), M(θ) = E_p[e^{θℓ}] (M(θ) is the Rényi
moment: log M(θ) = θ D_{1+θ}, Mironov 2017).  Under every direction, g_θ ∝ φ R_s^a R_t^{−b} with an integer a ≥ 0
on one of R₊, R₋ and a real b ≥ 0 on one of them (:class:`TiltedStep`):

    φ R_s^a = Σ_k C(a, k)(1 − q)^{a−k} q^k e^{k(k−1)/(2σ²)} φ(x ∓ k)

is a finite Gaussian mixture (means ±k), drawn exactly, and ((1 − q)/R_t)^b = e^{−b·softplus(z_t(x))},
z_t(x) = log(q/(1 − q)) + (2tx − 1)/(2σ²), a log-concave damping of each component.  g_θ is drawn exactly by
rejection from each component's tangent envelope (:mod:`pdp_audit.mechanisms.tangent_envelope`), which accepts a
proposal with probability ≥ 1 − 1/e for every σ, q, a, b.  (Proposing from the undamped mixture and accepting with
probability ((1 − q)/R_t(x))^b is exact too, but accepts with probability about ((1 − q)/q)^b e^{…} → 0 as q → 1:
at q = 1 − 1e-9 it drew forever.)  The integer a is why the forward directions (a = 1 + θ) tilt by integer θ only;
the reverse add/remove direction (a = 0) tilts by any θ ≥ 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pdp_audit.mechanisms.tangent_envelope import DampedGaussianMixture
from pdp_audit.verify.inputs.validation import InputError

#: The neighbouring relations DP-SGD is audited under.
NEIGHBOURS = ("add-remove", "replace-one")
#: The directions of a pair: D‖D' (world D, the individual's record in) and D'‖D.
DIRECTIONS = ("D||D'", "D'||D")
#: Gauss–Hermite nodes of :meth:`TiltedStep.log_mgf` (the integrand is analytic in a strip of half-width πσ/√2 in
#: standard units, so the error falls like e^{−2πσ√n}: below 1e-15 relative at σ ≥ 0.3).
HERMITE_NODES = 256


def log_r(x: np.ndarray, sigma: float, q: float, sign: float) -> np.ndarray:
    """log R_±(x) = log((1 − q) + q e^{(±2x − 1)/(2σ²)}) (``sign`` ±1), without overflow."""
    return np.logaddexp(math.log1p(-q), math.log(q) + (sign * 2.0 * np.asarray(x, float) - 1.0) / (2.0 * sigma**2))


def check_parameters(sigma: float, q: float, neighbours: str) -> None:
    """One-line errors for parameters outside the mechanism's range."""
    if not (math.isfinite(sigma) and sigma > 0):
        raise InputError(f"noise multiplier must be finite and > 0, got {sigma!r}")
    if not 0 < q <= 1:
        raise InputError(f"sample rate must be in (0, 1], got {q!r}")
    if neighbours not in NEIGHBOURS:
        raise InputError(f"neighbours must be one of {', '.join(NEIGHBOURS)}, got {neighbours!r}")


@dataclass(frozen=True)
class SubsampledGaussian:
    """One step of DP-SGD as its dominating pair: noise multiplier ``sigma``, sample rate ``q``, ``neighbours``."""

    sigma: float
    q: float
    neighbours: str = "add-remove"

    def __post_init__(self) -> None:
        check_parameters(self.sigma, self.q, self.neighbours)

    @property
    def replace(self) -> bool:
        return self.neighbours == "replace-one"

    def privacy_loss(self, x: np.ndarray) -> np.ndarray:
        """L(x) = log p_D(x) − log p_D'(x) of one step's release x (the first coordinate; the others have the same
        law in both worlds and cancel)."""
        loss = log_r(x, self.sigma, self.q, 1.0)
        return loss - log_r(x, self.sigma, self.q, -1.0) if self.replace else loss

    def log_density(self, world: str, x: np.ndarray) -> np.ndarray:
        """log p_world(x) from the mixture's definition (an independent path to the loss, for the tests)."""
        from scipy import stats  # imported here: every command's parser imports this module, scipy.stats is slow

        x = np.asarray(x, float)
        base = stats.norm.logpdf(x, 0.0, self.sigma)
        if world == "D":
            return np.logaddexp(math.log1p(-self.q) + base, math.log(self.q) + stats.norm.logpdf(x, 1.0, self.sigma))
        if not self.replace:
            return base
        return np.logaddexp(math.log1p(-self.q) + base, math.log(self.q) + stats.norm.logpdf(x, -1.0, self.sigma))

    def cdf(self, world: str, x: np.ndarray, upper: bool = False) -> np.ndarray:
        """P_world[X ≤ x] (``upper``: P_world[X > x], computed directly for precision in the right tail)."""
        x = np.asarray(x, float)
        other = 1.0 if world == "D" else (-1.0 if self.replace else None)
        base = _normal_cdf(x, 0.0, self.sigma, upper)
        if other is None:
            return base
        return (1 - self.q) * base + self.q * _normal_cdf(x, other, self.sigma, upper)

    def step(self, direction: str, theta: float) -> TiltedStep:
        """The tilted law g_θ of one step in ``direction`` (module notes)."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        forward = direction == "D||D'"
        if forward:  # p = φR₊, ℓ = log R₊ (− log R₋): φ R₊^{1+θ} R₋^{−θ}
            return TiltedStep(self, direction, theta, 1.0, 1 + theta, -1.0 if self.replace else 0.0, theta)
        if self.replace:  # p = φR₋, ℓ = log R₋ − log R₊: φ R₋^{1+θ} R₊^{−θ}
            return TiltedStep(self, direction, theta, -1.0, 1 + theta, 1.0, theta)
        return TiltedStep(self, direction, theta, 1.0, 0.0, 1.0, theta)  # p = φ, ℓ = −log R₊: φ R₊^{−θ}


def _normal_cdf(x: np.ndarray, loc: float, sigma: float, upper: bool) -> np.ndarray:
    """``scipy.stats.norm.cdf(x, loc, sigma)`` (``upper``: ``.sf``) bit for bit, for σ > 0: the distribution's own
    hook, Φ((x − loc)/σ) = ndtr(z) (its survival function ndtr(−z)), without the generic wrapper's argument masks
    and copies around it (the same values at ±inf and NaN) -- the FFT reference's discretisation reads thousands of
    these CDFs on large grids."""
    from scipy import special  # imported here: every command's parser imports this module

    z = (x - loc) / sigma
    return special.ndtr(-z if upper else z)


@dataclass(frozen=True)
class TiltedStep:
    """g_θ ∝ φ R_s^a R_t^{−b} of one step in ``direction``: ``s``, ``t`` the signs ±1 of R_s, R_t (t = 0: no
    R_t factor), ``a`` a non-negative integer, ``b`` ≥ 0; the per-step loss ℓ in that direction."""

    pair: SubsampledGaussian
    direction: str
    theta: float
    s: float
    a: float
    t: float
    b: float

    def __post_init__(self) -> None:
        if self.theta < 0 or self.a != round(self.a) or self.b < 0:
            raise ValueError(f"a tilted step needs θ ≥ 0, an integer a and b ≥ 0; got {self.theta}, {self.a}, {self.b}")

    def loss(self, x: np.ndarray) -> np.ndarray:
        """ℓ(x): the pair's loss L(x) in the direction D‖D', −L(x) in D'‖D."""
        loss = self.pair.privacy_loss(x)
        return loss if self.direction == "D||D'" else -loss

    def _log_weights(self) -> np.ndarray:
        """log C(a, k)(1 − q)^{a−k} q^k e^{k(k−1)/(2σ²)}, k = 0..a: the unnormalised weights of φR_s^a's components
        (φ(x) e^{k(±2x−1)/(2σ²)} = e^{k(k−1)/(2σ²)} φ(x ∓ k))."""
        from scipy import special

        sigma, q, a = self.pair.sigma, self.pair.q, int(self.a)
        k = np.arange(a + 1, dtype=float)
        return (
            special.gammaln(a + 1)
            - special.gammaln(k + 1)
            - special.gammaln(a - k + 1)
            + (a - k) * math.log1p(-q)
            + k * math.log(q)
            + k * (k - 1) / (2 * sigma**2)
        )

    def mixture(self) -> tuple[np.ndarray, np.ndarray]:
        """The components of φR_s^a: (means ±k, log weights normalised to sum 1), k = 0..a."""
        from scipy import special

        log_w = self._log_weights()
        return self.s * np.arange(log_w.size, dtype=float), log_w - special.logsumexp(log_w)

    def log_normaliser(self) -> float:
        """log Z_a = log ∫ φ R_s^a (closed form: the unnormalised mixture weights' sum)."""
        from scipy import special

        return float(special.logsumexp(self._log_weights()))

    def log_acceptance(self, x: np.ndarray) -> np.ndarray:
        """log of ((1 − q)/R_t(x))^b ≤ 0."""
        if self.b == 0 or self.t == 0:
            return np.zeros(np.shape(x))
        return -self.b * (log_r(x, self.pair.sigma, self.pair.q, self.t) - math.log1p(-self.pair.q))

    def log_mgf(self) -> float:
        """log M(θ) = log E_p[e^{θℓ}] = log Z_a − b log(1 − q) + log E_mixture[((1 − q)/R_t)^b], the last by
        Gauss–Hermite quadrature per component (exact when b = 0)."""
        from scipy import special

        log_m = self.log_normaliser()
        if self.b == 0 or self.t == 0:
            return log_m
        log_m -= self.b * math.log1p(-self.pair.q)
        nodes, weights = special.roots_hermite(HERMITE_NODES)
        means, log_w = self.mixture()
        x = means[:, None] + math.sqrt(2.0) * self.pair.sigma * nodes[None, :]
        terms = log_w[:, None] + np.log(weights)[None, :] - 0.5 * math.log(math.pi) + self.log_acceptance(x)
        return log_m + float(special.logsumexp(terms))

    @cached_property
    def damped(self) -> DampedGaussianMixture:
        """g_θ as φR_s^a's components, each damped by ((1 − q)/R_t)^b = e^{−b·softplus(tx/σ² + log(q/(1 − q))
        − 1/(2σ²))} (module notes)."""
        means, log_w = self.mixture()
        sigma, q = self.pair.sigma, self.pair.q
        offset = math.log(q) - math.log1p(-q) - 1.0 / (2 * sigma**2)
        return DampedGaussianMixture(means, log_w, sigma, self.b, self.t / sigma**2, offset)

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` exact draws of g_θ: a mixture component and its Gaussian where there is no R_t factor, else
        rejection from the components' tangent envelopes (module notes)."""
        if self.b > 0 and self.t != 0:
            return self.damped.draw(size, rng)
        means, log_w = self.mixture()
        cumulative = np.cumsum(np.exp(log_w))
        cumulative[-1] = 1.0
        count = int(size) + int(size) // 4 + 64  # as many as the former sampler drew: the same seed, the same draws
        comp = np.searchsorted(cumulative, rng.random(count), side="right") if means.size > 1 else np.zeros(count, int)
        return (means[comp] + self.pair.sigma * rng.standard_normal(count))[: int(size)]


def kappa(theta: float) -> float:
    """κ(θ) = sup_{z ≥ 0} e^{−θz}(1 − e^{−z}) = (θ/(1 + θ))^θ/(1 + θ) (1 at θ = 0): the integrand's bound factor."""
    if theta <= 0:
        return 1.0
    return math.exp(theta * (math.log(theta) - math.log1p(theta)) - math.log1p(theta))


@dataclass(frozen=True)
class StepLossLaw:
    """The law of one step's loss ℓ in ``direction`` under that direction's world: ℓ = L(x) (D‖D', x ~ P) or
    ℓ = −L(x) (D'‖D, x ~ Q), L increasing in x, so that {ℓ ≤ w} is a half-line of x with an end in closed form
    (:meth:`release_at`)."""

    pair: SubsampledGaussian
    direction: str

    @property
    def world(self) -> str:
        return "D" if self.direction == "D||D'" else "D'"

    @property
    def support(self) -> tuple[float, float]:
        """inf and sup of ℓ: add/remove's loss is bounded below by log(1 − q) (D‖D') or above by −log(1 − q)."""
        if self.pair.replace:
            return -math.inf, math.inf
        bound = math.log1p(-self.pair.q)
        return (bound, math.inf) if self.direction == "D||D'" else (-math.inf, -bound)

    def release_at(self, w: np.ndarray) -> np.ndarray:
        """x with L(x) = ±w (the sign of the direction), inside the support.  With u = e^{x/σ²},
        c = q e^{−1/(2σ²)}, r = 1 − q: add/remove e^L = r + cu; replace-one e^L = u(r + cu)/(ru + c), whose root
        u = [(y − 1)r + √((y − 1)²r² + 4c²y)]/(2c) is taken in the cancellation-free form."""
        sigma, q = self.pair.sigma, self.pair.q
        level = np.asarray(w, float) if self.direction == "D||D'" else -np.asarray(w, float)
        r, log_c = 1.0 - q, math.log(q) - 1.0 / (2 * sigma**2)
        if not self.pair.replace:  # e^L − r = c u  ⇒  log u = log(e^L − r) − log c
            with np.errstate(divide="ignore"):
                return sigma**2 * (np.log(np.exp(level) - r) - log_c)
        y, c = np.exp(level), math.exp(log_c)
        b = (y - 1.0) * r
        root = np.sqrt(b * b + 4.0 * c * c * y)
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(b >= 0, (b + root) / (2 * c), 2 * c * y / (root - b))
        return sigma**2 * np.log(u)

    def cdf(self, w: np.ndarray, upper: bool = False) -> np.ndarray:
        """P[ℓ ≤ w] (``upper``: P[ℓ > w]) under the direction's world, exact through :meth:`release_at`."""
        w = np.asarray(w, float)
        low, high = self.support
        inside = np.clip(w, np.nextafter(low, 0.0) if math.isfinite(low) else -1e300, high)
        x = self.release_at(np.where((w > low) & (w < high), inside, 0.0))
        # ℓ ≤ w ⟺ x ≤ x(w) in D‖D' (L increasing), x ≥ x(w) in D'‖D
        below = self.direction == "D||D'"
        value = self.pair.cdf(self.world, x, upper=(upper == below))
        value = np.where(w <= low, 1.0 if upper else 0.0, value)
        return np.where(w >= high, 0.0 if upper else 1.0, value)
