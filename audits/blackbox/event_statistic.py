"""The frozen statistic of the black box's exact event test (:mod:`pdp_audit.audits.blackbox.events`): the events
on a kept score, as the attack froze them and as a witness stores them, with nothing of the attack imported (a
witness file is read and checked before the audit's process starts: :mod:`pdp_audit.audits.blackbox.witness_file`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

#: The levels each chosen event is tuned for (one event per level; the bound uses all, Bonferroni).
TUNED_AT = (0.1, 1e-6)


@dataclass(frozen=True)
class Event:
    """S = {score ≥ threshold} when ``favours_d`` (the bound is on P(S)/Q(S)), else {score ≤ threshold} (on
    Q(S)/P(S)); a NaN score (an outcome never seen in training) is in no event."""

    threshold: float
    favours_d: bool

    def members(self, scores: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return scores >= self.threshold if self.favours_d else scores <= self.threshold


@dataclass(frozen=True, eq=False)
class EventStatistic:
    """What the event test froze before its bounding draws: the kept candidate's ``name`` (``logistic``, ``trees``,
    ``histograms``, ``increments``, ``pooled`` or ``outcomes``), its ``score`` (a function of a block of releases,
    row by row), the ``events`` on that score, the releases' ``dimension`` and ``numbers``: whether the score reads
    the releases augmented by :func:`pdp_audit.verify.estimators.float_structure.number_structure`
    (``events-numbers``).  A witness writes it as data (:func:`pdp_audit.audits.blackbox.witness.events_to_data`)."""

    name: str
    score: Callable[[np.ndarray], np.ndarray]
    events: tuple[Event, ...]
    dimension: int
    numbers: bool = False

    @property
    def width(self) -> int:
        """The columns the score reads: the releases', and four more per column with ``numbers``."""
        return self.dimension * (5 if self.numbers else 1)
