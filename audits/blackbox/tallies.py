"""A step-function score of the selection pass as a tally of its values, not a sort of its millions of scores.

A candidate score that is a step function of a one-column release (:func:`~pdp_audit.audits.blackbox.intervals.
one_column_steps`: the trees' :class:`~pdp_audit.audits.blackbox.trees.StepFunction`, a histogram of the one column)
takes one of its few values v_i on the i-th interval between its cuts.  Each block of its selection pass is then
looked up as each release's interval i (:meth:`Steps.positions`) and only the count of each interval in each half of
the pass is kept (:class:`SelectionColumns`), and a half is read as the count of each distinct value (:class:`Tally`:
the intervals' counts merged where two intervals have equal values).  What the event choice reads of a half's scores --
their number, how many lie below a cut, the distinct values -- are then the same integers and doubles as from the sorted
scores (:func:`pdp_audit.audits.blackbox.event_choice.choose_events`), without the two sorts of a million scores per
candidate that were most of the choice's time on the benchmark's 1-D Laplace (issue 44), nor a column of them kept.
Where the values hold zeros of both signs (whose order a sort leaves to its algorithm) or more distinct
values than the choice lists as cuts (:meth:`Steps.can_tally`), the candidate's scores are kept and read as they
are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdp_audit.audits.blackbox.features import sorted_position


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
    one_column_steps`) whose selection pass is kept as the count of each of its intervals in each half
    (:class:`SelectionColumns`), not as scores."""

    cuts: np.ndarray
    values: np.ndarray
    side: Literal["left", "right"]

    def positions(self, column: np.ndarray) -> np.ndarray:
        """Each release's interval, what the score looks up."""
        return sorted_position(self.cuts, column, self.side)

    def can_tally(self, most: int) -> bool:
        """Whether tallies stand for its scores: its values hold no zeros of both signs (whose order a sort leaves
        to its algorithm) and at most ``most`` distinct values (what the choice lists as cuts) whatever is drawn."""
        zeros = np.signbit(self.values[self.values == 0])
        return not (zeros.any() and not zeros.all()) and self.values.size <= most

    def tallies(self, halves: tuple) -> tuple:
        """Each half's scores of each world as :class:`Tally`, from ``halves`` = (first, second), each (of D, of D')
        the count of each interval (:class:`SelectionColumns`)."""
        distinct, value_of = np.unique(self.values, return_inverse=True)
        out = []
        for half in halves:
            tallied = []
            for per_step in half:
                counts = np.bincount(value_of, weights=per_step, minlength=distinct.size).astype(np.int64)
                drawn = counts > 0
                tallied.append(Tally(distinct[drawn], counts[drawn]))
            out.append(tuple(tallied))
        return tuple(out)


@dataclass(frozen=True)
class Intervals:
    """A step function's intervals of a block of releases: ``searched`` itself, or with a ``table`` (a search among
    several functions' cuts together, :class:`SharedSearch`) ``table[searched]``."""

    searched: np.ndarray
    table: np.ndarray | None = None

    @property
    def values(self) -> np.ndarray:
        return self.searched if self.table is None else self.table[self.searched]


@dataclass(frozen=True)
class Scored:
    """A block of the selection pass: ``scores``, its releases × the candidates read as scores (in their order), and
    ``intervals``, per candidate read as tallies (by its index among all), its releases' :class:`Intervals`."""

    scores: np.ndarray
    intervals: dict

    def __len__(self) -> int:
        return len(self.scores)


class SelectionColumns:
    """One world's selection pass of ``n`` releases, filled block by block (:class:`Scored`): the scores of the
    candidates read as scores in one array, column by column in memory (Fortran order: the event choice reads each
    candidate's column, which then lies in one piece), and for each candidate of ``steps`` (per candidate, its
    :class:`Steps` or None) the count of each of its intervals among the releases of each half, rows [0, n // 2)
    and [n // 2, n) (:func:`~pdp_audit.audits.blackbox.event_choice._halves`): all the choice reads of a step function
    (its tallies), where a column of intervals was 16 MB per candidate and world at the default budget, written,
    converted and counted again."""

    def __init__(self, n: int, steps: tuple):
        self.n, self.at, self.steps = n, 0, steps
        self.out: np.ndarray | None = None  # made at the first block
        self.stored = [c for c, s in enumerate(steps) if s is None]
        self.counts = {c: (np.zeros(s.values.size, np.int64), np.zeros(s.values.size, np.int64))
                       for c, s in enumerate(steps) if s is not None}  # fmt: skip

    @classmethod
    def filled(cls, blocks, n: int, steps: tuple) -> SelectionColumns:
        """The ``n`` rows of ``blocks`` (:class:`Scored`), filled as they arrive (no list of blocks beside it)."""
        columns = cls(n, steps)
        for block in blocks:
            columns.add(block)
        return columns

    def add(self, block: Scored) -> None:
        rows = len(block)
        if self.out is None:
            self.out = np.empty((self.n, len(self.stored)), order="F")  # float64, as the scores were ever stacked
        self.out[self.at : self.at + rows] = block.scores
        split = min(max(self.n // 2 - self.at, 0), rows)  # this block's rows in the first half
        searched: dict = {}  # a shared search's positions counted once in each half, each function's read off them
        for c, found in block.intervals.items():
            size = self.counts[c][0].size if found.table is None else found.table.size
            if id(found.searched) not in searched:
                halves = (found.searched[:split], found.searched[split:])
                searched[id(found.searched)] = [np.bincount(half, minlength=size) for half in halves]
            for total, counted in zip(self.counts[c], searched[id(found.searched)]):
                if found.table is not None:  # float weights: exact, a block's counts are far below 2⁵³
                    counted = np.bincount(found.table, weights=counted, minlength=total.size).astype(np.int64)
                total += counted
        self.at += rows

    def column(self, c: int):
        """Candidate ``c``'s scores (a column), or its interval counts (first half, second half) if tallied."""
        if c in self.counts:
            return self.counts[c]
        return self.out[:, self.stored.index(c)] if self.out is not None else np.empty(0)


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

    def __call__(self, column: np.ndarray) -> dict[int, Intervals]:
        """Per step function (by its index among ``steps``), the :class:`Intervals` of the releases ``column``."""
        if self.pooled is None:
            return {c: Intervals(self.steps[c].positions(column)) for c in self.which}

        passed = sorted_position(self.pooled, column, self.side)
        return {c: Intervals(passed, lookup) for c, lookup in zip(self.which, self.lookup)}
