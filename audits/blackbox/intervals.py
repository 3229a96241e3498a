"""The fresh pass's counts of an event of a step function of one column, read off the releases as intervals.

A score that is a step function of a one-column release -- gradient-boosted trees written as one
(:class:`~pdp_audit.audits.blackbox.trees.StepFunction`), a histogram of one column
(:class:`~pdp_audit.audits.blackbox.features.HistogramScore`) -- is f(x) = v_i for x in the i-th interval between
its sorted cuts c_1 < … < c_k: (c_{i−1}, c_i] when the cuts are searched on the "left" (i = #{c < x}), [c_{i−1}, c_i)
on the "right" (i = #{c ≤ x}), with c_0 = −∞ and c_{k+1} = +∞.  An event {f ≥ t} or {f ≤ t}
(:class:`~pdp_audit.audits.blackbox.events.Event`) is then the union of the intervals whose value is in it, and a run
of such intervals i..j is one interval of x: its count among n finite releases is #(x > c_{i−1}) − #(x > c_j) (≥ on
the "right"), #(x > −∞) = n and #(x > +∞) = 0.  So the counts are the same integers as scoring every release and
comparing its score with t, from one comparison of the releases per boundary of the event instead of a binary
search per release over all the cuts (which cost several times the draw itself on the benchmark's 1-D Laplace:
``benchmarks/blackbox_throughput.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdp_audit.audits.blackbox.features import HistogramScore
from pdp_audit.audits.blackbox.trees import StepFunction

#: An event read as intervals has at most this many boundaries in all (each a pass over the releases; a lookup of
#: every release among the cuts costs far more than this many comparisons).
MAX_BOUNDARIES = 64


@dataclass(frozen=True)
class EventIntervals:
    """The ``events`` of a one-column step function as signed boundaries: the count of event e among finite
    releases x is Σ_b sign[e, b] · #(x ▷ boundary[b]) (▷ is > for cuts searched on the "left", ≥ on the "right"),
    plus ``whole[e]`` · n for an event that begins at −∞."""

    boundaries: np.ndarray
    signs: np.ndarray  # (events, boundaries) of −1, 0, +1
    whole: np.ndarray  # (events,): 1 where the event's first run starts at −∞
    right: bool

    def counts(self, column: np.ndarray) -> np.ndarray:
        """The count of each event among the finite releases ``column``."""
        above = np.greater_equal if self.right else np.greater
        beyond = np.array([np.count_nonzero(above(column, b)) for b in self.boundaries], dtype=np.int64)
        return self.signs @ beyond + self.whole * column.size


def event_intervals(steps: tuple[np.ndarray, np.ndarray, str], events) -> EventIntervals | None:
    """``events`` of the step function ``steps`` = (cuts, values, side) as :class:`EventIntervals`, or None where
    they have more than :data:`MAX_BOUNDARIES` boundaries in all."""
    cuts, values, side = steps
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])  # interval i is between edges[i] and edges[i + 1]
    found: dict[float, int] = {}
    rows, whole = [], []
    for event in events:
        inside = event.members(values).astype(np.int8)
        change = np.diff(np.concatenate([[0], inside, [0]]))  # +1 where a run starts, −1 after it ends
        row: dict[int, int] = {}
        starts_low = False
        for i in np.flatnonzero(change):
            edge = edges[i]  # a run starting at interval i begins above edges[i]; one ending before i stops there
            if edge == -np.inf:
                starts_low = True
                continue
            if edge == np.inf:
                continue
            b = found.setdefault(float(edge), len(found))
            row[b] = row.get(b, 0) + int(change[i])
        rows.append(row)
        whole.append(1 if starts_low else 0)
        if len(found) > MAX_BOUNDARIES:
            return None
    signs = np.zeros((len(rows), len(found)), dtype=np.int64)
    for e, row in enumerate(rows):
        for b, s in row.items():
            signs[e, b] = s
    return EventIntervals(np.array(list(found), dtype=float), signs, np.array(whole, dtype=np.int64), side == "right")


def one_column_steps(score, width: int) -> tuple[np.ndarray, np.ndarray, Literal["left", "right"]] | None:
    """(cuts, values, side) of a frozen ``score`` that is a step function of releases of ``width`` = 1 column (module
    docstring): trees with their step function, a histogram of the one column; None for any other."""
    if width != 1:
        return None
    steps = getattr(score, "steps", None)  # trees on one column score finite releases by their step function
    if isinstance(steps, StepFunction):
        return steps.cuts, steps.values, "left"
    if isinstance(score, HistogramScore) and len(score.edges) == 1:  # its sum of one term: 0.0 + the bin's ratio
        return score.edges[0], np.zeros(score.log_ratio[0].size) + score.log_ratio[0], "left"
    return None
