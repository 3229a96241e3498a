"""How many of a million unsorted scores lie below each of a few thousand cuts fixed in advance, in a few passes over
the scores: no sort of them.

The event choice of a score of many values (the logistic score: :func:`pdp_audit.audits.blackbox.events.
choose_events`) reads, on the first half of the selection pass, the counts of {score ≥ t} and {score ≤ t} in each
world at its cuts t.  Read off each world's sorted scores, that was two sorts of a million scores per candidate, most
of the choice's time on the benchmark's 1-D Laplace (issue 44).  Here the cuts c_0 < … < c_{K−1} come first (the
choice takes them from a subsample) and each score x is placed among them exactly, by a lookup on a uniform grid of
their range and a few comparisons:

* the cell of x, g(x) = ⌊clip((x − c_0)·s, 0, G − 1)⌋ with s = (G − 1)/(c_{K−1} − c_0), is non-decreasing in x as
  computed (a rounded difference, a rounded product by s > 0, a clip and a truncation are each monotone);
* so a cut in a cell before g(x) is < x and a cut in a cell after it is > x, and #{k: c_k < x} is the number of cuts
  in the cells before g(x) (a table of G + 1 entries) plus those of its own cell that are < x: a scan of the at most
  :data:`SCAN` cuts a cell holds (on the benchmark, one), or a binary search among them where a cell holds more (a
  heavy-tailed score's quantiles crowd its centre).

Then #{x ≤ c_k} = #{x: #{c < x} ≤ k} (the cuts increase) is a cumulative ``np.bincount`` of the positions, and
#{x < c_k} that less the scores equal to c_k: the same integers as ``np.searchsorted`` of the sorted scores
(tests/test_blackbox_cut_counts.py), whatever the scores' law.

The grid earns its place (issue 61's rule: ≥ 10% of a user-visible command): with ``np.searchsorted`` in
:func:`~pdp_audit.audits.blackbox.features.sorted_position` and here, ``pdp-audit blackbox`` of DP-Sniper's Laplace
at its defaults (``--law ideal``: the histogram score) took 1.28x the CPU and 1.32x the wall time of the whole
process (3 paired runs, 2 shared cores, 2026-11-27).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

#: Cells of the grid over the cuts' range: 2^18 for a few thousand cuts, so that on a light-tailed score a cell holds
#: at most one (a table of 2 MB).
CELLS = 1 << 18
#: A cell holding at most this many cuts is scanned, one comparison a cut; past it, searched by halves.
SCAN = 4
#: Scores placed at a time: the temporaries of a chunk (512 kB each) stay in the cache and are reused, where those of
#: a million scores were fresh memory, whose first touch cost as much as the arithmetic in a run of the audit.
CHUNK = 1 << 16


@dataclass(frozen=True)
class CutCounts:
    """Finite scores counted at increasing ``cuts``: ``at_most[k]`` of them ≤ ``cuts[k]``, ``less[k]`` < it, of
    ``size`` in all."""

    cuts: np.ndarray
    at_most: np.ndarray
    less: np.ndarray
    size: int

    @classmethod
    def of(cls, scores: np.ndarray, cuts: np.ndarray) -> CutCounts:
        """The counts of the finite ``scores`` at the increasing, distinct, finite ``cuts`` (module docstring), placed
        :data:`CHUNK` at a time."""
        grid = CutGrid(cuts)
        per_position = np.zeros(cuts.size + 1, dtype=np.intp)
        ties = np.zeros(cuts.size + 1, dtype=np.intp)
        for start in range(0, scores.size, CHUNK):
            chunk = scores[start : start + CHUNK]
            position = grid.place(chunk)
            per_position += np.bincount(position, minlength=cuts.size + 1)
            ties += np.bincount(position[grid.padded[position] == chunk], minlength=cuts.size + 1)
        at_most = np.cumsum(per_position[: cuts.size])
        return cls(cuts, at_most, at_most - ties[: cuts.size], int(scores.size))

    def __len__(self) -> int:
        return self.size

    def below(self, cuts: np.ndarray, side: Literal["left", "right"]) -> np.ndarray:
        """How many scores are < each of ``cuts`` ("left") or ≤ it ("right"), each of them one of :attr:`cuts`:
        ``np.searchsorted`` of the sorted scores."""
        at = np.searchsorted(self.cuts, cuts)
        return (self.less if side == "left" else self.at_most)[at]


def positions(scores: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """#{k: cuts[k] < x} for each finite score x (``np.searchsorted(cuts, scores, "left")``) by the grid of the
    module docstring."""
    return CutGrid(cuts).place(scores)


class CutGrid:
    """The uniform grid of ``cells`` cells (default :data:`CELLS`) over the increasing ``cuts``' range: ``before[g]``
    cuts lie in the cells before cell g, at most ``crowded`` in one cell."""

    def __init__(self, cuts: np.ndarray, cells: int = CELLS):
        self.lo, self.size, self.cells_in_all = cuts[0], cuts.size, cells
        with np.errstate(over="ignore", divide="ignore"):  # a span that overflows, or too narrow for the grid
            span = cuts[-1] - self.lo
            scale = (cells - 1) / span if span > 0 else 0.0
        self.scale = scale if scale > 0 and np.isfinite(scale) else None  # None: one cell
        if self.scale is None:
            self.before = np.array([0, cuts.size])
        else:
            of_cut = np.clip((cuts - self.lo) * self.scale, 0, cells - 1).astype(np.intp)
            self.before = np.concatenate([[0], np.cumsum(np.bincount(of_cut, minlength=cells))])
        self.crowded = most_in_a_cell(self.before)
        # +∞ pads: a scan from the last cut of the last cell reads past the cuts (x = +∞ passes them on the "right")
        self.padded = np.concatenate([cuts, np.full(max(self.crowded, 1), np.inf)])

    @classmethod
    def sized(cls, cuts: np.ndarray) -> CutGrid:
        """The grid with the fewest cells (from 16 a cut, at least 1024, at most :data:`CELLS`, 8-fold steps) whose
        cells hold at most :data:`SCAN` cuts each: a small table stays in the processor's cache."""
        cells = max(1024, 1 << (16 * int(cuts.size)).bit_length())
        grid = cls(cuts, min(cells, CELLS))
        while grid.crowded > SCAN and grid.cells_in_all < CELLS:
            grid = cls(cuts, min(grid.cells_in_all << 3, CELLS))
        return grid

    def cells(self, scores: np.ndarray) -> np.ndarray:
        """Each score's cell: the same arithmetic as the cuts' (monotone in the score)."""
        if self.scale is None:
            return np.zeros(scores.shape, dtype=np.intp)
        cell = scores - self.lo  # ±∞ where the difference overflows: clipped to the first or last cell
        cell *= self.scale
        np.clip(cell, 0, self.cells_in_all - 1, out=cell)
        return cell.astype(np.intp)

    def place(self, scores: np.ndarray, side: Literal["left", "right"] = "left") -> np.ndarray:
        """#{k: cuts[k] < x} ("left") or #{k: cuts[k] ≤ x} ("right") for each score x that is not NaN."""
        cell = self.cells(scores)
        position = self.before[cell]
        passes = np.less if side == "left" else np.less_equal
        if self.crowded <= SCAN:
            for _ in range(self.crowded):  # past its cell's cuts, the next cut (or the +∞ pad) is > x: no step
                position += passes(self.padded[position], scores)
            if side != "left":  # x = +∞ also passes the pads
                np.minimum(position, self.size, out=position)
            return position
        end = self.before[cell + 1]
        for _ in range(self.crowded.bit_length()):  # #{c ▷ x} in [position, end]: halved each step
            middle = (position + end) >> 1
            less = passes(self.padded[middle], scores)
            np.copyto(position, middle + 1, where=less & (position < end))
            np.copyto(end, middle, where=~less)
        return position


def most_in_a_cell(before: np.ndarray) -> int:
    """The most cuts one cell holds, from the cuts before each cell: how far a score's scan may go."""
    return int(np.diff(before).max())
