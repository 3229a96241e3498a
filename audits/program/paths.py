"""Whether a neighbour fares alike on two draw sets: the test by which a further draw set of the structural
analysis (:mod:`.analysis`) takes a path already replayed.

Where the program's path does not depend on the draws, R(D′; z) − R(D; z) is the same at every z (the data's part of
an additive release): a sentinel D′ replayed on a further draw set e fares as on a draw set d already replayed where
that difference is the same at both and the same coordinates keep their bits (a ``-0.0`` for ``0.0`` at one draw set
is a difference of no value that the other must show too), or D′ diverges at the same call, or the program raises on
D′ at both.  "The same" is equality, or, for a coordinate d's probe found carrying noise affinely, a difference
within the proven rounding bound of the four releases (:func:`.replay_bounds.difference_bound`): no tolerance.

**Sound for** deciding "alike" only where both hold: a draw set wrongly taken as new costs a replay, one wrongly
taken as alike would go unread.  In the model of :mod:`.replay_bounds` (the coordinate c + a·(loc + η), a and the
path set by neither the data nor the draws) a program on one path always reads alike; a difference beyond the bound
is another path (or a program outside the model), replayed on every neighbour.
"""

from __future__ import annotations

import math

import numpy as np

from pdp_audit.audits.program import comparison, probing, trace
from pdp_audit.audits.program.replay_bounds import difference_bound
from pdp_audit.verify.inputs import release_codec


def same_outcome(
    d: trace.Run,
    then: comparison.Comparison,
    e: trace.Run,
    moved: trace.Run | trace.Divergence | None,
    found: trace.Probe | None = None,
) -> bool:
    """Whether a sentinel D′ fares alike on two draw sets: recorded ``d`` (its probe ``found``) and its comparison
    ``then``, recorded ``e`` and its replay ``moved`` on D′ (a divergence where it diverged, None where the program
    raised): the same difference R(D′) − R(D), the same first diverging call, or a fault on both."""
    if moved is None:
        return then.fault is not None
    if isinstance(moved, trace.Divergence):
        other = then.divergence
        return other is not None and (other.index, other.recorded, other.replayed) == (
            moved.index,
            moved.recorded,
            moved.replayed,
        )
    if then.replayed is None:
        return False
    runs = (d, then.replayed, e, moved)
    # the weights only widen the test of a finite coordinate whose two differences are unequal (:func:`_equal`)
    weight = _weights(found, runs) if found is not None and not _equal(runs) else None
    return _same_difference(d, then.replayed, e, moved, weight)


def _equal(runs: tuple[trace.Run, ...]) -> bool:
    """Whether the four releases (R(D), R(D′), R(E), R(E′)) have one size and, at every coordinate where both
    differences R(D′) − R(D) and R(E′) − R(E) are finite, equal ones: :func:`_same_difference` then decides alike
    with or without the weights (|Δ̂_d − Δ̂_e| = 0 is within any bound, which is ≥ 0 or +inf, never NaN), so the
    weights are made only where an allowance can change the answer."""
    numbers = [run.numbers for run in runs]
    if len({n.size for n in numbers}) != 1:
        return False
    if numbers[0].size <= trace.SMALL_RELEASE:  # in Python (numpy's fixed cost per call exceeds the loop's)
        for a, b, c, f in zip(*(n.tolist() for n in numbers)):
            first, second = b - a, f - c
            if first != second and math.isfinite(first) and math.isfinite(second):
                return False
        return True
    with np.errstate(all="ignore"):
        first, second = numbers[1] - numbers[0], numbers[3] - numbers[2]
        return bool(((first == second) | ~(np.isfinite(first) & np.isfinite(second))).all())


def _weights(found: trace.Probe, runs: tuple[trace.Run, ...]) -> np.ndarray | None:
    """Per release coordinate carried on the first draw set, |a|·(|loc| + |η| + w), the largest over the four runs'
    calls (:func:`.probing.sized`: the magnitudes :func:`.replay_bounds.difference_bound` counts); None where a run's
    calls do not hold the probe's elements (then no coordinate is given a rounding allowance)."""
    if found.carrier.size != runs[0].numbers.size or not found.elements:
        return None
    try:
        n = len(found.elements)
        sizes = [
            probing.sized(
                probing.noise_sizes(run.calls, found.spans, n),
                probing.location_sizes(run.calls, found.spans, n),
                found.step,
            )
            for run in runs
        ]
    except (IndexError, ValueError):
        return None
    return probing.weights(found, np.maximum.reduce(sizes))


def _same_difference(
    d: trace.Run, d_prime: trace.Run, e: trace.Run, e_prime: trace.Run, weight: np.ndarray | None
) -> bool:
    """Whether R(D′) − R(D) is the same on two draw sets and the same coordinates keep their bits at both: equal, or
    within the proven rounding bound of the four releases (:func:`.replay_bounds.difference_bound`) where the
    coordinate carries noise affinely on the first draw set (``weight`` > 0); any other coordinate's differences
    must be equal (a noise-free coordinate is computed alike at both draws; a noisy non-affine one -- a rounding --
    is compared with no allowance: a difference is read as another path, and costs a replay)."""
    if d.structure != e.structure or d_prime.structure != e_prime.structure:
        return False
    if d.numbers.size != d_prime.numbers.size:  # D′'s release shaped otherwise at both draws: not read further
        return True
    kept = release_codec.differ(d.numbers, d_prime.numbers) == release_codec.differ(e.numbers, e_prime.numbers)
    if not kept.all():
        return False
    carried = np.zeros(d.numbers.size) if weight is None or weight.size != d.numbers.size else weight
    if d.numbers.size <= trace.SMALL_RELEASE:  # in Python (numpy's fixed cost per call exceeds the loop's)
        runs = [run.numbers.tolist() for run in (d, d_prime, e, e_prime)]
        return _same_small_difference(runs[0], runs[1], runs[2], runs[3], carried.tolist())
    with np.errstate(all="ignore"):
        first, second = d_prime.numbers - d.numbers, e_prime.numbers - e.numbers
        bound = difference_bound((d.numbers, d_prime.numbers, e.numbers, e_prime.numbers), (first, second), carried)
        near = np.where(carried > 0, np.abs(first - second) <= bound, first == second)
    same = np.where(np.isfinite(first) & np.isfinite(second), near, True)
    nonfinite_alike = np.array_equal(np.isfinite(d_prime.numbers), np.isfinite(e_prime.numbers))
    return bool(same.all()) and nonfinite_alike


def _same_small_difference(d: list, d_prime: list, e: list, e_prime: list, weight: list) -> bool:
    """:func:`_same_difference`'s reading of four releases of one shape, in Python, number by number (the same
    comparisons in the same double arithmetic)."""
    for a, b, c, f, w in zip(d, d_prime, e, e_prime, weight):
        first, second = b - a, f - c
        if math.isfinite(first) and math.isfinite(second):
            if w > 0:
                if not abs(first - second) <= float(difference_bound((a, b, c, f), (first, second), w)):
                    return False
            elif first != second:
                return False
        if math.isfinite(b) != math.isfinite(f):
            return False
    return True
