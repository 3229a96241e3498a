"""A noisy total of scores in [0, 2] (``pdp-audit program``'s guide): the noise added outside its call, as most
programs write it -- ``total + rng.laplace(0, b)`` --, with the wrong sensitivity, the fix, and the fix rounded.

The call ``rng.laplace(0, b)`` does not show the value its noise is added to (its ``loc`` is 0); the audit finds it
by shifting the recorded noise and reading which release coordinate moves by as much, then reads the total off the
release on D and on D′ with the same noise.  Run on the shipped data (``pdp-audit examples DIR`` writes it)::

    pdp-audit program program_scores:half_the_noise --data program-values.csv --claim-epsilon 1 --claim-delta 0 \\
        --bounds 0,2 --trials 2000
"""

import numpy as np


def _scores(data):
    return np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=2.0, neginf=0.0), 0.0, 2.0)


def half_the_noise(data, rng):
    """Bug: the scores lie in [0, 2], so one record moves the total by up to 2, but the noise is calibrated for a
    sensitivity of 1 (b = 1/ε): the release is 2ε-DP, not ε-DP."""
    total = _scores(data).sum()
    return total + rng.laplace(0.0, 1.0)


def fixed(data, rng):
    """The fix: Laplace noise of scale sensitivity/ε = 2."""
    total = _scores(data).sum()
    return total + rng.laplace(0.0, 2.0)


def fixed_rounded(data, rng):
    """The fix, released as a whole number: DP by post-processing.  Its noise reaches the release only through the
    rounding, so the audit reads the total it is added to by replaying with the noise shifted until the rounded
    value jumps, on D and on D′: certified with ``--law ideal``, like the fix."""
    total = _scores(data).sum()
    return float(np.round(total + rng.laplace(0.0, 2.0)))
