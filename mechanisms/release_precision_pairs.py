"""Users' pairs whose releases are rounded to a lower precision than the noise is drawn in (float32, float16): the
loss must be the law of the rounded release, cell by cell, or the suite's checks refute it.  Their correct twins and
the mutants built on them are in :mod:`pdp_audit.mechanisms.mutant_pairs`; the precision checks are tested in
``tests/test_release_precision.py``.
"""

from __future__ import annotations

import numpy as np


class GaussianF32:
    """The Gaussian mechanism on a sum of sensitivity 1, released in float32 (N(0, σ²) noise on 0 or 1), with its
    noise view: importance sampling decides δ = 1e-5 at 1e5 releases."""

    output_dim = noise_dim = 1

    built_from_law = True  # its sample() is its declared Gaussian law through its view (a pair the suite wrote)

    def __init__(self, sigma: float, dtype=np.float32):
        self.sigma = self.noise_sigma = sigma
        self.dtype = dtype

    def release_from_noise(self, world, noise):
        return ((0.0 if world == "D" else 1.0) + np.asarray(noise)).astype(self.dtype)

    def sample(self, world, size, rng):
        return self.release_from_noise(world, self.sigma * rng.standard_normal((size, 1)))

    def privacy_loss(self, outputs):
        o = np.asarray(outputs)[:, 0]
        return ((o - self.dtype(1.0)) ** 2 - o**2) / self.dtype(2 * self.sigma**2)


class LaplaceF32:
    """The Laplace mechanism on a count, released and its loss computed in float32: b = 1/ε gives (ε, 0)-DP with
    the loss an atom at ±ε on each half-line, which float32 rounding spreads by ~1e-7."""

    output_dim = 1

    def __init__(self, scale: float, offset: float = 0.0):
        self.scale, self.offset = np.float32(scale), np.float32(offset)

    def sample(self, world, size, rng):
        centre = self.offset + (0.0 if world == "D" else 1.0)
        return rng.laplace(centre, self.scale, (size, 1)).astype(np.float32)

    def privacy_loss(self, outputs):
        o = np.asarray(outputs)[:, 0] - self.offset
        return (np.abs(o - np.float32(1.0)) - np.abs(o)) / self.scale


#: The Gaussian σ of a claim (1, δ) at the worst case, for δ = 1e-5 (the claim) and 1e-6 (twins, with a margin).
class GaussianF16Cells:
    """A count plus Gaussian noise released in float16, with the *exact* loss of a float16 release: the log ratio of
    the two worlds' masses of its rounding cell (the midpoints to its float16 neighbours), from log Φ -- not the
    density.  ``sampler_sigma`` breaks the sampler (its loss stays that of ``sigma``)."""

    output_dim = 1

    def __init__(self, sigma: float, sampler_sigma: float | None = None):
        self.sigma, self.sampler_sigma = sigma, sampler_sigma or sigma

    def sample(self, world, size, rng):
        centre = 0.0 if world == "D" else 1.0
        return (centre + self.sampler_sigma * rng.standard_normal((size, 1))).astype(np.float16)

    def privacy_loss(self, outputs):
        from scipy.special import log_ndtr

        o = np.asarray(outputs, dtype=np.float16)[:, 0]
        lo = (o.astype(float) + np.nextafter(o, np.float16(-np.inf)).astype(float)) / 2
        hi = (o.astype(float) + np.nextafter(o, np.float16(np.inf)).astype(float)) / 2

        def log_mass(centre):
            a, b = (lo - centre) / self.sigma, (hi - centre) / self.sigma
            left = b <= 0  # a difference of CDFs on the left, of survival functions on the right: no cancellation
            big = np.where(left, log_ndtr(b), log_ndtr(-a))
            small = np.where(left, log_ndtr(a), log_ndtr(-b))
            return big + np.log1p(-np.exp(small - big))

        return log_mass(0.0) - log_mass(1.0)


class LaplaceF16:
    """A count plus Laplace noise of scale 1 (``sampler_scale`` breaks it) released in float16, its loss in float16
    arithmetic: exact on every cell off [0, 1] (the atoms ±1 are exact in float16)."""

    output_dim = 1

    def __init__(self, sampler_scale: float = 1.0):
        self.sampler_scale = sampler_scale

    def sample(self, world, size, rng):
        return ((0.0 if world == "D" else 1.0) + rng.laplace(0.0, self.sampler_scale, (size, 1))).astype(np.float16)

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return np.abs(o - np.float16(1)) - np.abs(o)
