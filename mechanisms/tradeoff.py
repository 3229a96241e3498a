"""The trade-off curve a privacy profile implies (f-DP from (ε, δ(ε))-DP for every ε).

Dong, Roth & Su, "Gaussian differential privacy", JRSS B 2022, Proposition 2.12: a mechanism that is (ε, δ(ε))-DP
for every ε ≥ 0 (both directions) is f-DP with the symmetric trade-off function

    f(x) = sup_ε f_{ε,δ(ε)}(x),   f_{ε,δ}(x) = max(0, 1 − δ − e^ε x, e^{−ε}(1 − δ − x)).

Over a finite grid of ε the supremum is taken over fewer curves, so the f returned is below the true one: a weaker
hypothesis, never a stronger one (what a test that rejects it needs).  With δ(ε) an upper bound (a certified
profile) the same holds.  Its inverse blow-up, the least probability in one world of an event of probability y in
the other, is ψ(y) = f(1 − y) (f symmetric).
"""

from __future__ import annotations

import numpy as np


class ProfileTradeoff:
    """f of the profile ``deltas`` at ``epsilons`` (module docstring), vectorised in x."""

    def __init__(self, epsilons, deltas) -> None:
        self.epsilons = np.asarray(epsilons, float)
        self.deltas = np.clip(np.asarray(deltas, float), 0.0, 1.0)
        if self.epsilons.shape != self.deltas.shape or self.epsilons.ndim != 1 or np.any(self.epsilons < 0):
            raise ValueError("epsilons and deltas: two 1-D arrays of one length, ε >= 0")

    def __call__(self, x) -> np.ndarray:
        x = np.clip(np.asarray(x, float), 0.0, 1.0)[..., None]
        slack = 1.0 - self.deltas
        steep = slack - np.exp(self.epsilons) * x
        flat = np.exp(-self.epsilons) * (slack - x)
        return np.maximum(0.0, np.maximum(steep, flat).max(axis=-1))

    def inverse_blowup(self, y, _parameter=None) -> np.ndarray:
        """ψ(y) = f(1 − y); the unused second argument makes it a family of one curve for the one-run recursion."""
        return self(1.0 - np.asarray(y, float))
