"""Noise-level views of the linear-regression pairs, for rare-event importance sampling
(:mod:`pdp_audit.verify.estimators.rare`).

A view is the pair itself (``sample`` and ``privacy_loss`` are delegated unchanged, so plain Monte
Carlo sees exactly the mechanism's own sampler) plus the map from whitened noise w ~ N(0, I) to a
release, which :func:`pdp_audit.verify.estimators.rare.rare_tail` shifts and reweights.  The maps reproduce the
samplers'
laws exactly:

* :class:`GaussianLawView` — output perturbation and OPS, θ̃ = mean_w + L_w^{-T} w with L_w the Cholesky
  factor of world w's precision (``pdp_audit.mechanisms.linreg.mechanism.GaussianLaw.sample`` draws L^{-T}ξ
  the same way);
  the OPS loss is quadratic in w, so only the lower confidence bound of a rare tail is certified
  (enough to refute a claim); output perturbation with a shared covariance is affine (certified).
* :class:`DiagonalStatsView` — SSP and AdaSSP's private output: every released coordinate is its
  world's mean plus independent N(0, sd²) noise (``mean``/``noise_sd``, wrapped by
  noise ``σ ⊙ w``); the loss is affine, so rare tails are certified both ways.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from pdp_audit.mechanisms.base import World, check_world
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L


class _Delegate:
    def __init__(self, pair):
        self.pair = pair
        self.output_dim = pair.output_dim

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.pair.sample(world, size, rng)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return self.pair.privacy_loss(outputs)


class GaussianLawView(_Delegate):
    """Noise-level view of :class:`~pdp_audit.mechanisms.linreg.mechanism.OPSPair` /
    :class:`~pdp_audit.mechanisms.linreg.mechanism.OutputPerturbationPair`."""

    def __init__(self, pair):
        super().__init__(pair)
        self.noise_dim = pair.output_dim
        self.noise_sigma = 1.0
        # θ̃ = mean + ξ L^{-1}  (row form of L^{-T} ξ)
        self._maps = {w: linalg.solve_triangular(law.chol, np.eye(law.dim), lower=True) for w, law in pair.laws.items()}

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        world = check_world(world)
        return self.pair.laws[world].mean + np.asarray(noise, float) @ self._maps[world]

    def whitened_sensitivity(self) -> float:
        """‖θ̂_D − θ̂_D'‖ in the (shared) noise metric; only meaningful when both worlds share the noise
        covariance."""
        diff = self.pair.laws["D"].mean - self.pair.laws["D'"].mean
        return float(np.linalg.norm(diff @ self.pair.laws["D"].chol))


class DiagonalStatsView(_Delegate):
    """``mean(world)`` and ``noise_sd`` of :class:`~pdp_audit.mechanisms.linreg.adaptive.SSPPair` and of
    :class:`~pdp_audit.mechanisms.linreg.adaptive.AdaSSPPair` with ``output="private"``."""

    def __init__(self, pair):
        super().__init__(pair)
        rel = pair.release
        if isinstance(pair, A.AdaSSPPair):
            if pair.output != "private":
                raise ValueError("AdaSSP's printed output is not a fixed-covariance Gaussian release")
            self._means = {
                w: np.concatenate([[pair.grams[w].lam_min - pair.k.shift_lambda], *rel.stats[w]]) for w in ("D", "D'")
            }
            self.noise_sd = np.concatenate([[pair.k.sd_lambda], np.full(rel.p, rel.sd_xtx), np.full(rel.d, rel.sd_xy)])
        elif isinstance(pair, A.SSPPair):
            self._means = {w: np.concatenate(rel.stats[w]) for w in ("D", "D'")}
            self.noise_sd = np.concatenate([np.full(rel.p, rel.sd_xtx), np.full(rel.d, rel.sd_xy)])
        else:
            raise TypeError(f"no diagonal view for {type(pair).__name__}")

        self.noise_sigma = self.noise_sd
        self.noise_dim = int(self.noise_sd.size)

    def mean(self, world: World) -> np.ndarray:
        return self._means[check_world(world)]

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.mean(world) + np.asarray(noise, float)

    def whitened_sensitivity(self) -> float:
        return float(np.linalg.norm((self._means["D"] - self._means["D'"]) / self.noise_sd))


def view_of(pair):
    """The noise-level view of a linear-regression pair, or the pair itself when it has none (AdaOPS,
    AdaSSP's printed output: adaptive covariances)."""
    if isinstance(pair, (L.OPSPair, L.OutputPerturbationPair)):
        return GaussianLawView(pair)
    if isinstance(pair, A.SSPPair) or (isinstance(pair, A.AdaSSPPair) and pair.output == "private"):
        return DiagonalStatsView(pair)
    return pair
