"""Two statistics of one budget (``pdp-audit program``'s guide): the budget spent twice, and the fix."""

import numpy as np


def spent_twice(data, rng):
    """Bug: the sum and the mean of the same values each get the whole ε (the release is 2ε-DP)."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 1.0), values.sum() + rng.laplace(0.0, 1.0)


def fixed(data, rng):
    """The fix: ε/2 each."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 2.0), values.sum() + rng.laplace(0.0, 2.0)
