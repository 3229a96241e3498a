"""Pairs written as a user writes them (``audit_pair``'s docstring), shared by the tests that need a plain one."""

from __future__ import annotations


class ShiftedGaussian:
    """Releases 1 + N(0, σ²) on D and N(0, σ²) on D' (a sum of sensitivity 1); ``loss_sigma`` may differ from σ."""

    output_dim = 1

    def __init__(self, sigma: float, loss_sigma: float | None = None):
        self.sigma, self.loss_sigma = sigma, loss_sigma or sigma

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (o**2 - (o - 1.0) ** 2) / (2 * self.loss_sigma**2)
