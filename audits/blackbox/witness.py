"""The witness of a black-box attack: the frozen test as data, re-checkable on fresh releases.

A black-box bound says "this test separates D from D' this well"; the witness is that test, written out so that a
reviewer can re-run it without our training draws (:mod:`pdp_audit.audits.blackbox.score_data`: every score the
attack can freeze, as numbers).  Two tests:

* the pooled-rank test (``--statistic logistic`` or ``select``): the logistic score, or the gradient-boosted trees
  ``select`` kept, bounded at fixed pooled ranks of the fresh scores (:func:`fresh_scores_bound`);
* the exact event test (``events``, ``events-numbers``; :mod:`pdp_audit.audits.blackbox.events`): the kept score,
  whether it reads the releases augmented by the structure of their numbers, and the chosen events (threshold and
  direction), whose fresh counts are tested jointly (:func:`pdp_audit.audits.blackbox.events.bound_events`).

:func:`statistic_from_data` and :func:`events_from_data` rebuild the identical test (JSON keeps every float64
exactly: Python writes the shortest repr that reads back to the same number), and :func:`recheck` applies it to
fresh releases through the same seeded streams as the attack's bounding pass: the same seed gives the same bound
bit for bit, another seed an independent re-check.  The re-check's bound is valid for the same reason the attack's
is: the test is fixed before the fresh releases are drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdp_audit.audits.blackbox.attack import Sampler, _Releases, _Scores
from pdp_audit.audits.blackbox.events import TUNED_AT, Event, EventStatistic, _FreshBlocks, bound_events
from pdp_audit.audits.blackbox.learned_statistics import LearnedStatistic, TreeStatistic
from pdp_audit.audits.blackbox.score_data import (  # noqa: F401 (FEATURES, MAX_EXPONENT: re-exported)
    FEATURES,
    MAX_EXPONENT,
    FrozenScore,
    logistic_from_data,
    score_from_data,
    score_to_data,
)
from pdp_audit.verify.estimators.attack import PooledRankAttack, pooled_rank_attack
from pdp_audit.verify.estimators.engine import iter_blocks
from pdp_audit.verify.inputs.validation import InputError, finite_number

#: The candidates the event test may keep (:func:`pdp_audit.audits.blackbox.event_choice.candidate_scores`).
EVENT_SCORES = ("logistic", "trees", "histograms", "increments", "pooled", "outcomes")
#: What an ``events-numbers`` score reads, in words (its ``releases`` field).
NUMBERS = (
    "each release o of d columns followed, per column, by four: o_j is an integer (1 or 0), o_j - floor(o_j), the "
    "value of the lowest 8 bits of the float64 significand, its number of trailing zero bits (0-52): 5d columns"
)
#: The most columns a witness's releases may have (a plain run refuses far fewer for memory).
MAX_DIMENSION = 1 << 20


def statistic_to_data(statistic: Any) -> dict:
    """The frozen test of an attack as JSON-ready data: a logistic or trees score of the pooled-rank test, or the
    event test's :class:`~pdp_audit.audits.blackbox.events.EventStatistic` (:func:`events_to_data`)."""
    if isinstance(statistic, EventStatistic):
        return events_to_data(statistic)
    if isinstance(statistic, (LearnedStatistic, TreeStatistic)):
        return score_to_data(statistic, statistic.first_call[0])
    raise TypeError(f"no data form for a {type(statistic).__name__} statistic")


def statistic_from_data(data: dict) -> Any:
    """The pooled-rank test's score of :func:`statistic_to_data`'s data: a
    :class:`~pdp_audit.audits.blackbox.learned_statistics.LearnedStatistic`, or the trees as a
    :class:`~pdp_audit.audits.blackbox.score_data.FrozenScore` (InputError, one line, for anything else)."""
    kind = data.get("kind")
    if kind == "logistic":
        return logistic_from_data(data)
    if kind == "trees":
        width = data.get("dimension")
        if not (isinstance(width, int) and not isinstance(width, bool) and 1 <= width <= MAX_DIMENSION):
            raise InputError(f"witness: the statistic's 'dimension' must be an integer in [1, {MAX_DIMENSION}]")
        return FrozenScore(score_from_data(data, width), (width, "the witness's releases"))
    raise InputError(f"witness: a {kind!r} statistic is not stored as data and cannot be re-checked")


def events_to_data(statistic: EventStatistic) -> dict:
    """The event test's frozen statistic as data: the kept score (``chosen``: its candidate's name; ``score``: it
    as data, reading ``dimension`` columns, or 5 × that with ``numbers``) and the chosen events."""
    return {
        "kind": "events",
        "recheckable": True,
        "chosen": statistic.name,
        "dimension": int(statistic.dimension),
        "numbers": bool(statistic.numbers),
        **({"releases": NUMBERS} if statistic.numbers else {}),
        "score": score_to_data(statistic.score, statistic.width),
        "events": [
            {"favours": "D" if e.favours_d else "D'", "threshold": float(e.threshold)} for e in statistic.events
        ],
    }


def events_from_data(data: dict) -> EventStatistic:
    """The :class:`~pdp_audit.audits.blackbox.events.EventStatistic` of :func:`events_to_data`'s data, every field
    checked (InputError, one line, for a damaged or edited one)."""
    dimension, numbers, chosen = data.get("dimension"), data.get("numbers"), data.get("chosen")
    if not (isinstance(dimension, int) and not isinstance(dimension, bool) and 1 <= dimension <= MAX_DIMENSION):
        raise InputError(f"witness: the statistic's 'dimension' must be an integer in [1, {MAX_DIMENSION}]")
    if not isinstance(numbers, bool) or (numbers and data.get("releases") != NUMBERS):
        raise InputError("witness: the statistic's 'numbers' must be true or false (with true, 'releases' as written)")
    if chosen not in EVENT_SCORES:
        raise InputError(f"witness: the statistic's 'chosen' must be one of {', '.join(EVENT_SCORES)}, got {chosen!r}")
    rows = data.get("events")
    if not isinstance(rows, list) or len(rows) > len(TUNED_AT):
        raise InputError(f"witness: the statistic's 'events' must be a list of at most {len(TUNED_AT)} events")
    events = []
    for row in rows:
        if not (isinstance(row, dict) and row.get("favours") in ("D", "D'") and finite_number(row.get("threshold"))):
            raise InputError('witness: each event must be {"favours": "D" or "D\'", "threshold": a finite number}')
        events.append(Event(float(row["threshold"]), row["favours"] == "D"))
    width = dimension * (5 if numbers else 1)
    return EventStatistic(chosen, score_from_data(data.get("score"), width), tuple(events), dimension, numbers)


def fresh_scores_bound(worlds: tuple, statistic: Any, trials: int, delta: float, seed: int, executor=None):
    """The bounding pass of :func:`pdp_audit.audits.blackbox.attack.blackbox_attack` with a given statistic: ``trials``
    fresh releases per world of ``worlds`` ((sampler D, sampler D')), scored block by block in the streams
    ``blackbox/test/…`` of ``seed``; returns the :class:`PooledRankAttack`."""
    scores = []
    for sampler, world in zip(worlds, ("D", "D'")):
        blocks = iter_blocks(_Scores(sampler, world, statistic), trials, seed, f"blackbox/test/{world}", executor)
        parts = list(blocks)
        scores.append(np.concatenate(parts) if parts else np.empty(0))
    return pooled_rank_attack(scores[0], scores[1], delta, seed)


def rebuilt_test(data: Any) -> Any:
    """The test a witness's ``statistic`` holds, rebuilt and checked (InputError, one line, for one that is damaged,
    edited or not stored as data): an :class:`~pdp_audit.audits.blackbox.events.EventStatistic`, or the
    pooled-rank test's score."""
    if not isinstance(data, dict):
        raise InputError(f"witness: the statistic is malformed (a {type(data).__name__}, not a table)")
    return events_from_data(data) if data.get("kind") == "events" else statistic_from_data(data)


def recheck(worlds: tuple[Sampler, Sampler], data: dict, trials: int, delta: float, seed: int, executor=None):
    """The witness's test (``data``) re-applied to ``trials`` fresh releases per world drawn with ``seed``: a
    :class:`PooledRankAttack` for a logistic or trees score, an
    :class:`~pdp_audit.audits.blackbox.events.EventAttack` for the event test."""
    statistic = rebuilt_test(data)
    if isinstance(statistic, EventStatistic):
        first = (statistic.dimension, "the witness's releases")
        fresh = {w: _FreshBlocks(_Releases(s, w), first, statistic.numbers) for s, w in zip(worlds, ("D", "D'"))}
        return bound_events(fresh, statistic, (trials, delta, seed), (executor, None))
    return fresh_scores_bound(worlds, statistic, trials, delta, seed, executor)


def roc_points(attack: PooledRankAttack) -> tuple[np.ndarray, np.ndarray]:
    """The empirical ROC of the fresh scores at the attack's fixed pooled ranks (for display): calling D the top r
    pooled scores has TPR ≈ (D draws among them)/λ_D and FPR ≈ (the others)/λ_D'."""
    if not attack.poissonised:
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    top = np.asarray(attack.top_pos, float)
    tpr = np.clip(top / attack.lam_pos, 0, 1)
    fpr = np.clip((np.asarray(attack.ranks, float) - top) / attack.lam_neg, 0, 1)
    keep = fpr > 0
    return np.r_[fpr[keep], 1.0], np.r_[tpr[keep], 1.0]
