"""A joint release as one neighbouring pair: several releases of one deployment (``[[release]]`` tables), the
product of their worst-case pairs.

    [[release]]                        # a Gaussian sum ...
    mechanism = "gaussian"
    [release.parameters]               # the options of `pdp-audit run gaussian` (the noise shipped is required)
    sigma = 3.8
    data = "deploy-data.csv"
    [[release]]                        # ... and a Laplace count of the same data
    mechanism = "laplace"
    [release.parameters]
    query = "count"
    scale = 2.0
    data = "deploy-data.csv"
    [claim]                            # one claim about everything released together
    epsilon = 2.0
    delta = 1e-5
    [audit]                            # trials, seed, alpha (as for a user's mechanism)
    trials = 1e5

Each release is an audit's config (every option, default and rule of ``pdp-audit run NAME``; errors name
``release[i].parameters.key``), and states the noise it ships (``sigma``, ``scale``): a release is never calibrated
to the joint claim.  Each release gives its **worst-case neighbouring pair** (its plan's
:class:`~pdp_audit.verify.core.plan.WorstCase`: the pair its own audit decides, the ``worst_case_pair`` of its
evidence module: for a sum, one row added on the clip sphere with all its mass on one coordinate; for a mean, that
row counted too; for a histogram, one row in one bin) and the joint release is their **product pair**
(:class:`ProductPair`): the releases concatenated, each with its own independent noise, and the privacy loss the sum
of the releases' losses (composition).  It is decided by exactly the checks of ``pdp_audit.audit_pair``
(:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`).

**Why the product of worst-case pairs is the right neighbour.**  A neighbouring dataset differs in one row z, and
every release sees that same z; with independent noise the joint pair at z is the product of the releases' pairs at
z.  For each release here the pair at any z is a post-processing (a Markov kernel applied to the release) of its
worst-case pair: for the Gaussian mechanism the pair at z is a Gaussian shift of norm ‖Δ_z‖₂ ≤ C, a post-processing
of the shift C·e₁ (rotate, then add independent noise along the shift to shrink its norm: Dong, Roth & Su 2022,
Gaussian DP, Prop. 2.8 / Blackwell), and for the Laplace mechanism the audit's own worst case
(:mod:`pdp_audit.audits.laplace.evidence`: all of ‖Δ_z‖₁ = C on one coordinate).  Applying the releases'
kernels coordinate-wise maps the product of the worst-case pairs onto the product at z, so by the data-processing
inequality of the hockey-stick divergence δ_z(ε) ≤ δ_worst(ε) for every z and ε: the product pair is a sound
neighbour.  It is also attained when one row is worst for every release (the same data and clip direction, or
counts), which is the usual deployment; where no single row is worst for all, the certificate is conservative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdp_audit.verify.estimators.rare import has_noise_view
from pdp_audit.verify.estimators.view_replay import built_from_law


class ProductPair:
    """The releases of several pairs at once, each with its own noise: releases concatenated, privacy loss the sum
    of the releases' losses (the densities of independent releases multiply).  Drawn from the one ``rng`` given,
    release after release.  With a Gaussian noise view on every release it has one too (the views side by side)."""

    def __init__(self, pairs: list[Any]):
        self.pairs = pairs
        self.dims = [int(p.output_dim) for p in pairs]
        self.edges = np.cumsum([0] + self.dims)
        self.output_dim = int(self.edges[-1])

    def _parts(self, outputs: np.ndarray) -> list[np.ndarray]:
        return [outputs[:, a:b] for a, b in zip(self.edges[:-1], self.edges[1:])]

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([p.sample(world, size, rng) for p in self.pairs], axis=1)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        outputs = np.atleast_2d(outputs)
        return np.sum([p.privacy_loss(part) for p, part in zip(self.pairs, self._parts(outputs))], axis=0)


class _ViewedProduct(ProductPair):
    """A :class:`ProductPair` whose releases all have a noise view: the view is theirs side by side, its noise
    coordinates laid out as the releases' (the replay draws the parts' noise one after the other, as
    :meth:`ProductPair.sample` does).  ``scale``: the attribute holding each part's noise scale."""

    scale = ""

    def __init__(self, pairs: list[Any]):
        super().__init__(pairs)
        self.noise_dim = self.output_dim
        scales = [np.broadcast_to(getattr(p, self.scale), (d,)) for p, d in zip(pairs, self.dims)]
        setattr(self, self.scale, np.concatenate(scales))

    def release_from_noise(self, world: str, noise: np.ndarray) -> np.ndarray:
        noise = np.atleast_2d(noise)
        return np.concatenate([p.release_from_noise(world, n) for p, n in zip(self.pairs, self._parts(noise))], axis=1)


class GaussianProductPair(_ViewedProduct):
    """A :class:`ProductPair` of pairs that all have the Gaussian noise-level view (``noise_sigma``)."""

    scale = "noise_sigma"

    @property
    def built_from_law(self) -> bool:
        """The declared law by construction where every release is
        (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`)."""
        return all(built_from_law(p) for p in self.pairs)


class LaplaceProductPair(_ViewedProduct):
    """A :class:`ProductPair` of pairs that all declare a Laplace noise view (``noise_scale``)."""

    noise_law = "laplace"
    scale = "noise_scale"

    @property
    def built_from_law(self) -> bool:
        """The declared law by construction where every release is (the built-in audits' worst-case pairs are:
        :func:`pdp_audit.verify.estimators.view_replay.built_from_law`)."""
        return all(built_from_law(p) for p in self.pairs)


def product_pair(pairs: list[Any]) -> ProductPair:
    """The joint release of ``pairs``, with the Gaussian or Laplace noise view where every release has one."""
    if all(has_noise_view(p) for p in pairs):
        return GaussianProductPair(pairs)
    if all(getattr(p, "noise_law", None) == "laplace" for p in pairs):
        return LaplaceProductPair(pairs)
    return ProductPair(pairs)
