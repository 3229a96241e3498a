"""Exact draws, in bounded expected time, from a mixture of Gaussians each damped by a softplus factor:

    g(x) ∝ Σ_k w_k e^{h_k(x)},   h_k(x) = −(x − μ_k)²/(2σ²) − b·softplus(cx + d),   softplus(z) = log(1 + e^z),

with b ≥ 0 and any real c, d (the tilted step law of DP-SGD: :class:`pdp_audit.mechanisms.subsampled_gaussian.
TiltedStep`).  softplus is convex, so every h_k is strictly concave (h_k'' ≤ −1/σ²): each component is log-concave.

**Tangent envelopes** (von Neumann 1951; Gilks & Wild 1992 for tangents of a concave log-density).  A tangent line of
a concave h lies above h everywhere, so the lower hull ĥ_k of the three tangents of h_k at P₁ < m < P₃ is a valid
envelope, ĥ_k ≥ h_k, made of three exponential pieces (two tails and a middle piece), each drawn exactly by inversion,
with masses in closed form.  Draw a piece (k, j) with probability ∝ w_k ∫_piece e^{ĥ_k}, x from it, and accept with
probability e^{h_k(x) − ĥ_k(x)} ≤ 1: an accepted (k, x) has density ∝ w_k e^{h_k(x)}, whose marginal in x is g --
exactly, whatever the points P₁, m, P₃ are (they only decide how often a proposal is accepted).

**Bounded time.**  With m the mode of h_k and P₁, P₃ where h_k = h_k(m) − 1 (found by bisection: h_k' is decreasing,
the mode lies within b|c|σ² of μ_k and each unit drop within σ√2 of m, as h_k'' ≤ −1/σ²), the envelope's mass right
of m is exactly e^{h(m)}(P₃ − m) (the tangent at P₃ reaches h(m) at P₃ − 1/|h'(P₃)|), and by concavity h lies above
its chord from (m, h(m)) to (P₃, h(m) − 1), so h's mass there is at least (1 − 1/e)e^{h(m)}(P₃ − m); likewise left
of m.  Every proposal is therefore accepted with probability ≥ 1 − 1/e ≈ 0.63, for every σ, μ_k, b, c, d: the number
of proposals per draw is geometric with mean ≤ 1.6 (the rejection sampler this replaces, proposing from the
undamped mixture, accepted with probability e^{−b·softplus(cx + d)}, which tends to 0 as q → 1 in DP-SGD).

Exact up to the rounding of log-densities, as the mixture's weights are: the acceptance probability e^{h − ĥ} is
off by a relative error of about ulp(|h|) (1e-8 where |h| reaches 1e8: a tilt of 4096 at σ = 0.3), and where a
tangent touches h rounding can push it a few ulps above 1; it is then taken as 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

#: Bisection steps: each halves a bracket at most 2(b|c|σ² + σ√2) wide, so 200 reach double precision for any
#: bracket below 1e45.
BISECTION_STEPS = 200
#: The most proposals drawn at once (a dozen arrays of them are held: about 25 MB).
PROPOSALS_PER_ROUND = 1 << 18


@dataclass(frozen=True)
class TangentEnvelope:
    """The three tangents of every component's log-density (module notes): ``points`` (P₁, m, P₃), ``values`` h_k
    there, ``slopes`` h_k' there, each of shape (components, 3); ``breaks`` the lines' two crossings, shape
    (components, 2); ``log_masses`` log(w_k ∫ e^{ĥ_k}) of each piece, shape (components, 3)."""

    points: np.ndarray
    values: np.ndarray
    slopes: np.ndarray
    breaks: np.ndarray
    log_masses: np.ndarray


@dataclass(frozen=True)
class DampedGaussianMixture:
    """g ∝ Σ_k w_k e^{h_k} of the module notes: component ``means`` μ_k, ``log_weights`` log w_k (any common
    offset), Gaussian scale ``sigma``, damping ``b`` ≥ 0 of softplus(``c`` x + ``d``)."""

    means: np.ndarray
    log_weights: np.ndarray
    sigma: float
    b: float
    c: float
    d: float

    def log_density(self, means: np.ndarray, x: np.ndarray) -> np.ndarray:
        """h_k(x) for the components of ``means`` (broadcast with ``x``)."""
        return -((x - means) ** 2) / (2 * self.sigma**2) - self.b * np.logaddexp(0.0, self.c * x + self.d)

    def slope(self, means: np.ndarray, x: np.ndarray) -> np.ndarray:
        """h_k'(x) = −(x − μ_k)/σ² − b c·expit(cx + d), decreasing in x."""
        from scipy import special  # imported here: every command's parser imports this module (through the DP-SGD law)

        return -(x - means) / self.sigma**2 - self.b * self.c * special.expit(self.c * x + self.d)

    @cached_property
    def envelope(self) -> TangentEnvelope:
        """Each component's three tangents at its mode and its two unit drops, their crossings and pieces' masses."""
        means = np.asarray(self.means, float)
        reach = self.b * abs(self.c) * self.sigma**2
        mode = _bisect(lambda x: self.slope(means, x) <= 0, means - reach, means + reach)
        top = self.log_density(means, mode)
        width = math.sqrt(2.0) * self.sigma

        def above(x: np.ndarray) -> np.ndarray:
            return self.log_density(means, x) > top - 1.0

        left = _bisect(above, mode - width, mode)
        right = _bisect(lambda x: ~above(x), mode, mode + width)
        points = np.stack([left, mode, right], axis=1)
        values = self.log_density(means[:, None], points)
        slopes = self.slope(means[:, None], points)
        if not (np.all(slopes[:, 0] > 0) and np.all(slopes[:, 2] < 0)):
            raise ValueError("a tangent envelope needs a rising left tangent and a falling right one")
        breaks = np.stack([_crossing(points, values, slopes, 0), _crossing(points, values, slopes, 1)], axis=1)
        breaks[:, 0] = np.clip(breaks[:, 0], points[:, 0], points[:, 1])  # rounding only: the lines cross there
        breaks[:, 1] = np.clip(breaks[:, 1], np.maximum(points[:, 1], breaks[:, 0]), points[:, 2])
        return TangentEnvelope(points, values, slopes, breaks, self._log_masses(points, values, slopes, breaks))

    def _log_masses(self, points: np.ndarray, values: np.ndarray, slopes: np.ndarray, breaks: np.ndarray) -> np.ndarray:
        """log w_k + log ∫ e^{line} over each piece: (−∞, z₁], [z₁, z₂], [z₂, ∞)."""
        left = values[:, 0] + slopes[:, 0] * (breaks[:, 0] - points[:, 0]) - np.log(slopes[:, 0])
        right = values[:, 2] + slopes[:, 2] * (breaks[:, 1] - points[:, 2]) - np.log(-slopes[:, 2])
        length = breaks[:, 1] - breaks[:, 0]
        rate = np.abs(slopes[:, 1])
        high_end = np.where(slopes[:, 1] > 0, breaks[:, 1], breaks[:, 0])
        with np.errstate(divide="ignore"):
            middle = values[:, 1] + slopes[:, 1] * (high_end - points[:, 1]) + np.log(length * _shrink(rate * length))
        return np.asarray(self.log_weights, float)[:, None] + np.stack([left, middle, right], axis=1)

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` exact draws of g (module notes)."""
        env = self.envelope
        log_masses = env.log_masses.ravel()
        from scipy import special  # imported here, as above

        cumulative = np.cumsum(np.exp(log_masses - special.logsumexp(log_masses)))
        cumulative[-1] = 1.0
        out = np.empty(int(size))
        filled = 0
        while filled < size:
            need = int(size) - filled
            # each proposal is accepted with probability ≥ 1 − 1/e (module notes); rounds of bounded memory
            count = min(need + need // 2 + 64, PROPOSALS_PER_ROUND)
            piece = np.searchsorted(cumulative, rng.random(count), side="right")
            k, j = np.divmod(piece, 3)
            x = self._from_pieces(k, j, rng)
            line = env.values[k, j] + env.slopes[k, j] * (x - env.points[k, j])
            log_ratio = np.minimum(self.log_density(np.asarray(self.means, float)[k], x) - line, 0.0)
            x = x[np.log(rng.random(count)) < log_ratio][:need]
            out[filled : filled + x.size] = x
            filled += x.size
        return out

    def _from_pieces(self, k: np.ndarray, j: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One draw from each piece (k, j) by inversion: an exponential tail beyond z₁ (j = 0) or z₂ (j = 2), and
        on [z₁, z₂] (j = 1) the density ∝ e^{−|λ|y} of the distance y from the end where the line is higher."""
        env = self.envelope
        z1, z2 = env.breaks[k, 0], env.breaks[k, 1]
        slope = env.slopes[k, j]
        tail = rng.standard_exponential(k.size)
        u = rng.random(k.size)
        length = z2 - z1
        rate = np.abs(slope)
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.where(rate > 0, -np.log1p(u * np.expm1(-rate * length)) / rate, u * length)
            middle = np.where(slope > 0, z2 - np.minimum(y, length), z1 + np.minimum(y, length))
            return np.where(j == 0, z1 - tail / slope, np.where(j == 2, z2 + tail / -slope, middle))


def _bisect(rising: Callable[[np.ndarray], np.ndarray], low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The point in each [low, high] where the monotone predicate ``rising`` turns from False to True (low where it
    is True throughout, high where it is False throughout)."""
    low, high = np.array(low, float), np.array(high, float)
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        turned = rising(middle)
        high = np.where(turned, middle, high)
        low = np.where(turned, low, middle)
    return 0.5 * (low + high)


def _crossing(points: np.ndarray, values: np.ndarray, slopes: np.ndarray, i: int) -> np.ndarray:
    """Where the tangents at points i and i + 1 cross (between the two points, h being concave)."""
    gap = points[:, i + 1] - points[:, i]
    return points[:, i] + (values[:, i + 1] - values[:, i] - slopes[:, i + 1] * gap) / (slopes[:, i] - slopes[:, i + 1])


def _shrink(y: np.ndarray) -> np.ndarray:
    """(1 − e^{−y})/y (1 at y = 0): ∫₀^L e^{−λt} dt = L·(1 − e^{−λL})/(λL)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, -np.expm1(-y) / np.where(y > 0, y, 1.0), 1.0)
