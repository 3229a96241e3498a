"""A step-function score of the selection pass as a tally of its values, not a sort of its millions of scores.

A candidate score that is a step function of a one-column release (:func:`~pdp_audit.audits.blackbox.intervals.
one_column_steps`: the trees' :class:`~pdp_audit.audits.blackbox.trees.StepFunction`, a histogram of the one column)
takes one of its few values v_i on the i-th interval between its cuts.  Its selection-pass column then holds each
release's interval i (:meth:`Steps.positions`), and a half of the pass is read as the count of each distinct value
(:class:`Tally`: a ``np.bincount`` of the intervals, merged where two intervals have equal values).  What the event
choice reads of a half's scores -- their number, how many lie below a cut, the distinct values -- are then the same
integers and doubles as from the sorted scores (:func:`pdp_audit.audits.blackbox.events.choose_events`), without the
two sorts of a million scores per candidate that were most of the choice's time on the benchmark's 1-D Laplace
(issue 44).  Where the values hold zeros of both signs (whose order a sort leaves to its algorithm) or more distinct
values than the choice lists as cuts, the scores are read as they are (:meth:`Steps.scores`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np


@dataclass(frozen=True)
class Tally:
    """Scores as their distinct ``values`` (increasing, each drawn at least once) and the ``counts`` of each."""

    values: np.ndarray
    counts: np.ndarray

    @property
    def size(self) -> int:
        """The number of scores (all finite: a step function of finite releases)."""
        return int(self.counts.sum())

    def __len__(self) -> int:
        return self.size

    def below(self, cuts: np.ndarray, side: Literal["left", "right"]) -> np.ndarray:
        """How many scores are < each cut ("left") or ≤ it ("right"): ``np.searchsorted`` of the sorted scores."""
        running = np.concatenate([[0], np.cumsum(self.counts)])
        return running[np.searchsorted(self.values, cuts, side)]


@dataclass(frozen=True)
class Steps:
    """A one-column step function (cuts, values, side: :func:`~pdp_audit.audits.blackbox.intervals.
    one_column_steps`) whose selection-pass column holds intervals, not scores."""

    cuts: np.ndarray
    values: np.ndarray
    side: Literal["left", "right"]

    def positions(self, column: np.ndarray) -> np.ndarray:
        """Each release's interval, as a float (exact: at most a few thousand), what the score looks up."""
        from pdp_audit.audits.blackbox.features import sorted_position

        return sorted_position(self.cuts, column, self.side).astype(float)

    def scores(self, positions: np.ndarray) -> np.ndarray:
        """The scores of releases given by their intervals: the score's own numbers."""
        return self.values[positions.astype(np.intp)]

    def tallies(self, halves: tuple, most: int) -> tuple | None:
        """Each half's scores of each world (``halves`` = (first, second), each (of D, of D') as intervals) as
        :class:`Tally`, or None where their values hold zeros of both signs or more than ``most`` distinct values
        (read the scores then)."""
        zeros = np.signbit(self.values[self.values == 0])
        if zeros.any() and not zeros.all():
            return None
        distinct, value_of = np.unique(self.values, return_inverse=True)
        out = []
        for half in halves:
            tallied = []
            for positions in half:
                per_step = _interval_counts(positions, self.values.size)
                counts = np.bincount(value_of, weights=per_step, minlength=distinct.size).astype(np.int64)
                drawn = counts > 0
                tallied.append(Tally(distinct[drawn], counts[drawn]))
            out.append(tuple(tallied))
        seen = np.unique(np.concatenate([t.values for half in out for t in half]))
        return tuple(out) if seen.size <= most else None


#: Intervals converted to integers and counted at a time: a million at once were 8 MB of fresh memory per half and
#: world, whose first touch cost more than the count.
CHUNK = 1 << 16


def _interval_counts(positions: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(positions.astype(np.intp), minlength=size)`` of the intervals ``positions`` (floats), a
    :data:`CHUNK` at a time."""
    counts = np.zeros(size, dtype=np.intp)
    for start in range(0, positions.size, CHUNK):
        counts += np.bincount(positions[start : start + CHUNK].astype(np.intp), minlength=size)
    return counts


def distinct_values(tallies: tuple) -> int:
    """The number of distinct scores among ``tallies`` (np.unique's, zeros of one sign only)."""
    return int(np.unique(np.concatenate([t.values for t in tallies])).size)


class SharedSearch:
    """The intervals (:meth:`Steps.positions`) of several step functions of the same column, searched on the same
    side, from one search among all their cuts: for a release x passing k of the pooled cuts u_0 < u_1 < … (k = #(u <
    x) on the "left", #(u ≤ x) on the "right"), each function's own cuts are among the u, so it passes those of its
    cuts ≤ u_{k−1}: a lookup by k.  The trees and the histogram of one column then cost one search of the selection
    pass's releases, not two (a search costs a pass over the releases per level)."""

    def __init__(self, steps: tuple):
        self.steps = steps
        self.which = [c for c, s in enumerate(steps) if s is not None]
        sides = {steps[c].side for c in self.which}
        self.pooled = None
        if len(self.which) > 1 and len(sides) == 1:
            self.side = sides.pop()
            self.pooled = np.unique(np.concatenate([steps[c].cuts for c in self.which]))
            self.lookup = [
                np.concatenate([[0], np.searchsorted(steps[c].cuts, self.pooled, "right")]) for c in self.which
            ]

    def __call__(self, column: np.ndarray) -> dict[int, np.ndarray]:
        """Per step function (by its index among ``steps``), the intervals of the releases ``column``."""
        if self.pooled is None:
            return {c: self.steps[c].positions(column) for c in self.which}
        from pdp_audit.audits.blackbox.features import sorted_position

        passed = sorted_position(self.pooled, column, self.side)
        return {c: lookup[passed].astype(float) for c, lookup in zip(self.which, self.lookup)}
