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
from pdp_audit.audits.blackbox.events import EventStatistic, _FreshBlocks, bound_events
from pdp_audit.audits.blackbox.learned_statistics import LearnedStatistic, TreeStatistic
from pdp_audit.audits.blackbox.score_data import (  # noqa: F401 (FEATURES, MAX_EXPONENT: re-exported)
    FEATURES,
    MAX_EXPONENT,
    FrozenScore,
    logistic_from_data,
    score_from_data,
    score_to_data,
)
from pdp_audit.audits.blackbox.witness_file import (  # noqa: F401 (the readers: re-exported)
    NUMBERS,
    events_from_data,
    rebuilt_test,
    statistic_from_data,
)
from pdp_audit.verify.estimators.attack import PooledRankAttack, pooled_rank_attack
from pdp_audit.verify.estimators.engine import iter_blocks


def statistic_to_data(statistic: Any) -> dict:
    """The frozen test of an attack as JSON-ready data: a logistic or trees score of the pooled-rank test, or the
    event test's :class:`~pdp_audit.audits.blackbox.events.EventStatistic` (:func:`events_to_data`)."""
    if isinstance(statistic, EventStatistic):
        return events_to_data(statistic)
    if isinstance(statistic, (LearnedStatistic, TreeStatistic)):
        return score_to_data(statistic, statistic.first_call[0])
    raise TypeError(f"no data form for a {type(statistic).__name__} statistic")


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
