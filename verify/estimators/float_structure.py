"""The structure of a release as a floating-point number: what a real-valued law leaves no trace in and a
floating-point implementation can.

Mironov (CCS 2012, "On significance of the least significant bits for differential privacy") shows that the
textbook Laplace sampler x + λ·sign·ln(u) reaches different sets of doubles for different x; Haney et al. (2022,
"Precision-based attacks and interval refining") that a value added to noise in float64 leaves its precision in the
release.  Each function here is a fixed function of a release, so an event of its output is an event of the release
and every privacy check may read it.
"""

from __future__ import annotations

import numpy as np

#: The low bits of a float64 significand that :func:`number_structure` exposes.
LOW_BITS = 8


def number_structure(releases: np.ndarray) -> np.ndarray:
    """The releases with, per column, four columns on the structure of the number appended (``events-numbers``):
    whether it is an integer, its fractional part o − ⌊o⌋, the value of the lowest :data:`LOW_BITS` bits of its
    float64 significand, and the number of trailing zero bits of the significand (0–52).  A real-valued mechanism
    leaves no trace in these, but a floating-point implementation can: Mironov (CCS 2012, "On significance of the
    least significant bits for differential privacy") shows that the textbook Laplace sampler x + λ·sign·ln(u)
    reaches different sets of doubles for different x, so its low bits reveal x.  A fixed function of each release:
    a statistic of the augmented releases is a statistic of the releases."""
    bits = np.ascontiguousarray(releases + 0.0).view(np.uint64)
    significand = bits & np.uint64((1 << 52) - 1)
    low = (significand & np.uint64((1 << LOW_BITS) - 1)).astype(float)
    lowest_one = significand & (~significand + np.uint64(1))  # the lowest set bit (0 for a zero significand)
    _, exponent = np.frexp(lowest_one.astype(float))
    trailing = np.where(significand == 0, 52.0, exponent - 1.0)
    whole = np.floor(releases)
    return np.hstack([releases, (releases == whole).astype(float), releases - whole, low, trailing])
