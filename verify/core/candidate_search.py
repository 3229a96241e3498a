"""Candidates proposed over a box of named parameters and ranked by a deterministic criterion: the strategies the
black box's neighbour search uses (:mod:`pdp_audit.audits.blackbox.search`), here for any audit that scores a
candidate exactly.

* ``random``: each parameter drawn independently and uniformly (a float in [low, high], a whole number in
  {low, …, high}, one of a list of choices), from a generator seeded by the caller;
* ``optuna``: the tree-structured Parzen estimator of Bergstra, Bardenet, Bengio & Kégl (NeurIPS 2011) as optuna
  implements it (``TPESampler``, seeded), maximising the criterion.  optuna is optional (``pip install optuna``):
  :func:`require` refuses it in one line before any work.

The fixed patterns that precede a search (StatDP's input patterns, Ding et al., CCS 2018, as DP-Sniper, Bichsel et
al., S&P 2021, uses them; an audit's own named candidates) are the caller's: given as ``enqueued`` points of the box,
they are scored first, and under ``optuna`` they are TPE's first trials (``Study.enqueue_trial``), so that its model
of the criterion starts from them.

**What a search may claim.**  The criterion is computed by the caller; the search only chooses which candidates are
scored.  Where the caller's verdict on each candidate is exact (a deterministic check of that one candidate), a
search over more candidates adds no false alarm; where a statistical test follows, it must run on draws the search
never saw (sample splitting: the selected candidate is fixed given the search, and the test on fresh draws is one
level-α test of that fixed candidate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.verify.inputs.validation import InputError

#: The strategies that propose candidates.
STRATEGIES = ("random", "optuna")
#: What a strategy that needs optuna says without it (one line, before any work).
NEEDS_OPTUNA = "search optuna needs optuna: pip install optuna"


@dataclass(frozen=True)
class Parameter:
    """One coordinate of the box: a float in [low, high] (``kind`` ``"float"``), a whole number in {low, …, high}
    (``"int"``), or one of ``choices`` (``"choice"``: str, int, float, bool or None each)."""

    name: str
    kind: str
    low: float = 0.0
    high: float = 1.0
    choices: tuple = ()


def require(strategy: str) -> None:
    """InputError (one line) where ``strategy`` cannot run here: an unknown name, or optuna not installed."""
    if strategy not in STRATEGIES:
        raise InputError(f"search must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if strategy == "optuna":
        try:
            import optuna  # noqa: F401
        except ImportError:
            raise InputError(NEEDS_OPTUNA) from None


def _drawn(space: Sequence[Parameter], rng: np.random.Generator) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in space:
        if p.kind == "float":
            out[p.name] = float(rng.uniform(p.low, p.high))
        elif p.kind == "int":
            out[p.name] = int(rng.integers(int(p.low), int(p.high) + 1))
        else:
            out[p.name] = p.choices[int(rng.integers(len(p.choices)))]
    return out


def _suggested(space: Sequence[Parameter], trial: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in space:
        if p.kind == "float":
            out[p.name] = float(trial.suggest_float(p.name, p.low, p.high))
        elif p.kind == "int":
            out[p.name] = int(trial.suggest_int(p.name, int(p.low), int(p.high)))
        else:
            out[p.name] = trial.suggest_categorical(p.name, list(p.choices))
    return out


def maximise(
    space: Sequence[Parameter],
    criterion: Callable[[list[dict[str, Any]], int], list[float]],
    strategy: str,
    count: int,
    seed: int,
    batch: int = 8,
    enqueued: Sequence[dict[str, Any]] = (),
) -> list[tuple[dict[str, Any], float]]:
    """``count`` candidates over ``space``, from streams of ``seed`` alone: the ``enqueued`` ones first (points of the
    box, the first ``count``; a parameter a point leaves out is the strategy's to propose), then those ``strategy``
    proposes.  They are scored by ``criterion(candidates, index of the first)`` in batches (random: all at once, since
    no score steers it; optuna: ``batch`` proposed before their scores are told, the enqueued ones told as TPE's first
    trials); returns (params, score) of each, in the order proposed.  TPE reads a score of NaN as the worst and clamps
    infinite ones to ±1e300 (they are returned as given)."""
    require(strategy)
    state = np.random.SeedSequence([int(seed), 0x5EA2C5])
    first = [dict(params) for params in enqueued][:count]
    if strategy == "random":
        rng = np.random.default_rng(state)
        drawn = [{**_drawn(space, rng), **params} for params in first]
        drawn += [_drawn(space, rng) for _ in range(count - len(first))]
        return list(zip(drawn, criterion(drawn, 0) if drawn else []))
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=int(state.generate_state(1)[0]))
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for params in first:  # asked before any proposal: optuna hands out the enqueued trials first, in order
        study.enqueue_trial(params)
    out: list[tuple[dict[str, Any], float]] = []
    while len(out) < count:
        trials = [study.ask() for _ in range(min(batch, count - len(out)))]
        proposals = [_suggested(space, trial) for trial in trials]
        scores = criterion(proposals, len(out))
        for trial, params, score in zip(trials, proposals, scores):
            study.tell(trial, -1e300 if math.isnan(score) else min(max(score, -1e300), 1e300))
            out.append((params, score))
    return out
