"""A release that branches on a noisy statistic (``pdp-audit program``'s guide): a bug that only some draws reveal,
and the fix.

Run on the shipped data (``pdp-audit examples DIR`` writes it)::

    pdp-audit program program_branch:shortcut_when_large --data program-values.csv --claim-epsilon 1 \\
        --claim-delta 0 --bounds 0,1 --trials 2000

The branch is taken on about half of the draws (the data holds as many values above 1/2 as below), so the audit
records the program on several sets of draws (``--draw-sets``, 8 by default) and replays the neighbours on them in
turn; the report names the draw set that found the witness.
"""

import numpy as np


def _values(data):
    return np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0)


def shortcut_when_large(data, rng):
    """Bug, on some draws only: a noisy count of the values at most 1/2 and above it (ε/2: one record moves one
    count by 1), then a noisy sum (ε/2) -- but when the values look mostly large the clipping is skipped as a
    shortcut ("they are in [0, 1] anyway"), so one outlier moves the sum by far more than its noise allows."""
    values = _values(data)
    counts = np.array([np.count_nonzero(values <= 0.5), np.count_nonzero(values > 0.5)], dtype=float)
    counts = counts + rng.laplace(0.0, 2.0, size=2)
    total = values.sum() if counts[1] > counts[0] else np.clip(values, 0.0, 1.0).sum()
    return {"counts": counts, "sum": total + rng.laplace(0.0, 2.0)}


def fixed(data, rng):
    """The fix: the values clipped on every branch; the two counts (ε/2) and the sum (ε/2) compose to ε = 1."""
    values = _values(data)
    counts = np.array([np.count_nonzero(values <= 0.5), np.count_nonzero(values > 0.5)], dtype=float)
    counts = counts + rng.laplace(0.0, 2.0, size=2)
    return {"counts": counts, "sum": np.clip(values, 0.0, 1.0).sum() + rng.laplace(0.0, 2.0)}
