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


#: The granularity given to 0, a multiple of every power of two: above that of every nonzero double (at most 971).
ZERO_GRANULARITY = 1100


def _significand_and_exponent(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 52 stored significand bits of each float64 and its unbiased exponent e (o = ±1.f·2^e for a normal
    number; a subnormal has e = −1022 and no implicit bit), as integers."""
    bits = np.ascontiguousarray(np.asarray(values, float) + 0.0).view(np.uint64)
    significand = bits & np.uint64((1 << 52) - 1)
    biased = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    return significand, np.maximum(biased, 1) - 1023


def trailing_zeros(values: np.ndarray) -> np.ndarray:
    """The number of trailing zero bits of each float64's stored significand (0–52; 52 for a power of two and
    for 0), as integers."""
    significand, _ = _significand_and_exponent(values)
    lowest_one = significand & (~significand + np.uint64(1))  # the lowest set bit (0 for a zero significand)
    _, exponent = np.frexp(lowest_one.astype(float))
    return np.where(significand == 0, 52, exponent - 1).astype(np.int64)


def granularity(values: np.ndarray) -> np.ndarray:
    """The dyadic granularity of each float64 o: the largest k with o ∈ 2^k·ℤ, i.e. its exponent minus 52 plus the
    trailing zeros of its significand (:data:`ZERO_GRANULARITY` for 0).  A double computed as v + noise in float64
    is a multiple of ulp(v + noise), so the precision of v shows in it (Haney et al. 2022, "Precision-based attacks
    and interval refining", §3): with v = 1, every release in (−1/2, 1/2) is a multiple of 2^−53; with v = 0 most
    are not."""
    values = np.asarray(values, float)
    _, exponent = _significand_and_exponent(values)
    k = exponent - 52 + trailing_zeros(values)
    return np.where(values == 0, ZERO_GRANULARITY, k).astype(np.int64)


def low_bits(values: np.ndarray, bits: int = 4) -> np.ndarray:
    """The value of the lowest ``bits`` bits of each float64's stored significand (0 … 2^bits − 1), as integers:
    the bits a rounding of v + noise decides (Mironov, CCS 2012, §3)."""
    significand, _ = _significand_and_exponent(values)
    return (significand & np.uint64((1 << bits) - 1)).astype(np.int64)


def grid_residue(values: np.ndarray, grid: int, modulus: int = 8) -> np.ndarray:
    """The residue of o/2^grid modulo ``modulus`` (a power of two) for each o on the grid 2^grid·ℤ, and ``modulus``
    for o off it: parity and small residues of integer releases (grid 0), the position on a snapping grid
    (Mironov 2012, §5), computed exactly (a scaling by a power of two and a remainder of an integer-valued
    double are exact; a quotient at or beyond 2^53·modulus is a multiple of modulus)."""
    values = np.asarray(values, float)
    on_grid = granularity(values) >= grid
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp(values, -int(grid))
        big = ~np.isfinite(scaled) | (np.abs(scaled) >= 2.0**53 * modulus)
        residue = np.mod(np.where(big, 0.0, scaled), float(modulus))
    return np.where(on_grid, residue, float(modulus)).astype(np.int64)
