"""A noisy sum of values in [0, 1] (``pdp-audit program``'s guide): two bugs and the fix.

Run on the shipped data (``pdp-audit examples DIR`` writes it)::

    pdp-audit program program_sum:nan_through_clip --data program-values.csv --claim-epsilon 1 --claim-delta 0 \\
        --bounds 0,1 --trials 2000
"""

import numpy as np


def nan_through_clip(data, rng):
    """Bug: ``np.clip`` keeps NaN, so one NaN record turns the release into NaN (Cebere et al. 2026, §5)."""
    values = np.clip(data["value"].to_numpy(dtype=float), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 1.0)


def raw_sum(data, rng):
    """Bug: the noise is calibrated for the clipped values (sensitivity 1) but the raw sum is released."""
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    sensitivity = 1.0  # of the sum of values clipped to [0, 1] -- but the clipping was forgotten
    return values.sum() + rng.laplace(0.0, sensitivity)


def fixed(data, rng):
    """The fix: every value mapped into [0, 1] (NaN to 0, ±inf to the ends) before the sum; Laplace of scale 1/ε."""
    values = np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0)
    return np.clip(values, 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)
