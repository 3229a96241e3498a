"""Pairs that are differentially private *as implemented* in floating point, with their exact losses: the twins
of the float-porous textbook samplers (Mironov, CCS 2012, "On significance of the least significant bits for
differential privacy").  Their releases are integers or points of a fixed grid, so the doubles they release carry
nothing of the input beyond the law the loss states; the pair route's float-structure events
(:mod:`pdp_audit.verify.estimators.float_structure`) must find nothing in them.
"""

from __future__ import annotations

import numpy as np


class IntegerLaplace:
    """The two-sided geometric mechanism at ε = 1 on v = 0 or 1: integer releases, the exact loss |o − 1| − |o|."""

    output_dim = 1

    def sample(self, world, size, rng):
        p = 1 - np.exp(-1.0)
        noise = rng.geometric(p, (size, 1)) - rng.geometric(p, (size, 1))
        return (0.0 if world == "D" else 1.0) + noise.astype(float)

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return np.abs(o - 1.0) - np.abs(o)


class SnappedLaplace:
    """Mironov's snapping (CCS 2012, §5) of v + Laplace(1) noise: rounded to the grid Λ·ℤ (Λ = 2^−4) and clamped to
    [−B, B] (B = 4): the releases are the grid's points whatever the float noise below the grid, and the loss is the
    exact one of that law, log P_0(o) − log P_1(o) -- P_v(o) the Laplace mass of [o − Λ/2, o + Λ/2] around v inside,
    of the tail beyond ±(B − Λ/2) at the atoms ±B."""

    output_dim, grid, bound = 1, 2.0**-4, 4.0

    def sample(self, world, size, rng):
        released = (0.0 if world == "D" else 1.0) + rng.laplace(0.0, 1.0, (size, 1))
        return np.clip(np.round(released / self.grid) * self.grid, -self.bound, self.bound)

    def _log_mass(self, o, v):
        a, c = o - self.grid / 2 - v, o + self.grid / 2 - v
        edge = self.bound - self.grid / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            below = c + np.log(0.5) + np.log1p(-np.exp(-self.grid))  # the interval below v
            above = -a + np.log(0.5) + np.log1p(-np.exp(-self.grid))  # above v
            around = np.log1p(-0.5 * np.exp(a) - 0.5 * np.exp(-c))  # v inside it
        inside = np.where(c <= 0, below, np.where(a >= 0, above, around))
        top, bottom = np.log(0.5) - (edge - v), np.log(0.5) + (-edge - v)  # P(v + n ≥ B − Λ/2), P(v + n ≤ −B + Λ/2)
        return np.where(o >= self.bound, top, np.where(o <= -self.bound, bottom, inside))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return self._log_mass(o, 0.0) - self._log_mass(o, 1.0)
