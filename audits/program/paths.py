"""Whether a neighbour fares alike on two draw sets: the test by which a further draw set of the structural
analysis (:mod:`.analysis`) takes a path already replayed on every neighbour.

Where the program's path does not depend on the draws, R(D′; z) − R(D; z) is the same at every z (the data's part of
an additive release): a sentinel D′ replayed on a further draw set e fares as on a draw set d already replayed where
that difference is the same at both (to rounding of the releases' magnitude) and the same coordinates keep their
bits (a ``-0.0`` for ``0.0`` at one draw set is a difference of no value that the other must show too), or D′
diverges at the same call, or the program raises on D′ at both.  Deciding "alike" only where both hold is safe: a
draw set wrongly taken as new costs a replay, one wrongly taken as alike would go unread.
"""

from __future__ import annotations

import math

import numpy as np

from pdp_audit.audits.program import comparison, trace
from pdp_audit.verify.inputs import release_codec


def same_outcome(
    d: trace.Run, then: comparison.Comparison, e: trace.Run, moved: trace.Run | trace.Divergence | None
) -> bool:
    """Whether a sentinel D′ fares alike on two draw sets: recorded ``d`` and its comparison ``then``, recorded ``e``
    and its replay ``moved`` on D′ (a divergence where it diverged, None where the program raised): the same
    difference R(D′) − R(D), the same first diverging call, or a fault on both."""
    if moved is None:
        return then.fault is not None
    if isinstance(moved, trace.Divergence):
        other = then.divergence
        return other is not None and (other.index, other.recorded, other.replayed) == (
            moved.index,
            moved.recorded,
            moved.replayed,
        )
    return then.replayed is not None and _same_difference(d, then.replayed, e, moved)


def _same_difference(d: trace.Run, d_prime: trace.Run, e: trace.Run, e_prime: trace.Run) -> bool:
    """Whether R(D′) − R(D) is the same on two draw sets (to rounding of the releases' magnitude) and the same
    coordinates keep their bits at both."""
    if d.structure != e.structure or d_prime.structure != e_prime.structure:
        return False
    if d.numbers.size != d_prime.numbers.size:  # D′'s release shaped otherwise at both draws: not read further
        return True
    kept = release_codec.differ(d.numbers, d_prime.numbers) == release_codec.differ(e.numbers, e_prime.numbers)
    if not kept.all():
        return False
    if d.numbers.size <= trace.SMALL_RELEASE:  # in Python (numpy's fixed cost per call exceeds the loop's)
        return _same_small_difference(*(run.numbers.tolist() for run in (d, d_prime, e, e_prime)))
    with np.errstate(all="ignore"):
        first, second = d_prime.numbers - d.numbers, e_prime.numbers - e.numbers
        size = np.maximum.reduce([np.abs(x) for x in (d.numbers, d_prime.numbers, e.numbers, e_prime.numbers)])
    same = np.where(np.isfinite(first) & np.isfinite(second), np.abs(first - second) <= 1e-9 * (size + 1.0), True)
    nonfinite_alike = np.array_equal(np.isfinite(d_prime.numbers), np.isfinite(e_prime.numbers))
    return bool(same.all()) and nonfinite_alike


def _same_small_difference(d: list, d_prime: list, e: list, e_prime: list) -> bool:
    """:func:`_same_difference`'s reading of four releases of one shape, in Python, number by number (the same
    comparisons in the same double arithmetic)."""
    for a, b, c, f in zip(d, d_prime, e, e_prime):
        first, second = b - a, f - c
        if math.isfinite(first) and math.isfinite(second):
            if not abs(first - second) <= 1e-9 * (max(abs(a), abs(b), abs(c), abs(f)) + 1.0):
                return False
        if math.isfinite(b) != math.isfinite(f):
            return False
    return True
