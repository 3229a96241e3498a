"""A noisy mean (``pdp-audit program``'s guide): the size taken as public, and the fix."""

import numpy as np


def size_as_public(data, rng):
    """Bug: n = len(data) is private under add/remove, yet it sets the noise (1/(nε)) and divides the sum."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return values.mean() + rng.laplace(0.0, 1.0 / len(values))


def size_released(data, rng):
    """Bug: a noisy sum released beside the exact count."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return {"sum": values.sum() + rng.laplace(0.0, 1.0), "count": len(values)}


def fixed(data, rng):
    """The fix: a noisy sum and a noisy count at ε/2 each; their ratio is post-processing."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    noisy_sum = values.sum() + rng.laplace(0.0, 2.0)
    noisy_count = len(values) + rng.laplace(0.0, 2.0)
    return {"sum": noisy_sum, "count": noisy_count}
