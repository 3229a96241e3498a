"""The structural analysis of a program: recorded once on D, probed, replayed on every neighbour with each draw
set's draws, each pair judged (:mod:`.judgement`), further neighbours searched (:mod:`.search`) -- the pairs'
results (:mod:`.results`), the worst last.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import comparison, paths, probing, reproduction, same_map, search, through, trace
from pdp_audit.audits.program.config import DRAW_SETS
from pdp_audit.audits.program.findings import criterion as objective
from pdp_audit.audits.program.judgement import read_exactly
from pdp_audit.audits.program.neighbours import Neighbour, identity, neighbours
from pdp_audit.audits.program.results import Analysis, DrawSet, PairReading, PairResult
from pdp_audit.verify.core.candidate_search import maximise

#: Distinct paths replayed on every neighbour at most, the first draw set's included (see :func:`analyse`): a
#: program whose every draw takes a path of its own (a sparse vector's stopping time) costs at most this many full
#: replays; the draw sets past it are counted (:attr:`.results.Analysis.unreplayed`), recorded and replayed on the
#: sentinels.
MOST_PATHS = 4
#: Neighbours replayed on each further draw set before it is replayed on all of them (see :func:`analyse`).
SENTINELS = 2


@functools.lru_cache(maxsize=256)  # made once a process: a SeedSequence costs as much as a small program's run
def draw_seed(index: int, seed: int) -> int:
    """The generator's seed of draw set ``index``: the first the recorder's own (the same for every root seed), the
    others drawn from the root ``seed``."""
    if index == 0:
        return trace.BASE_SEED
    return int(np.random.SeedSequence([trace.BASE_SEED, seed, index]).generate_state(1, dtype=np.uint64)[0]) >> 1


def analyse(
    program: Callable,
    data: Any,
    relation: str,
    bounds: Any,
    claim: tuple[float, float],
    seed: int,
    draw_sets: int = DRAW_SETS,
    budget: search.Budget = search.Budget(),
) -> Analysis:
    """Record, probe, replay on every named neighbour, judge each pair (:mod:`.judgement`), then search further
    neighbours within ``budget`` (:mod:`.search`).  The runs share one
    :class:`~pdp_audit.audits.program.trace.Session` (a search's batch, one of its own), the exact readings' too; the
    compositions are made in it, under :meth:`~pdp_audit.audits.program.trace.Session.ours`.

    **Draw sets.**  A branch on a noisy value (a noisy count against a threshold) may touch the data differently on
    draws the first record does not take.  The first draw set is replayed on every neighbour; each further one is
    recorded on D and replayed on the :data:`SENTINELS` neighbours whose changed record is largest.  Where the
    program's path does not depend on the draws, R(D′; z) − R(D; z) is the same at every z (the data's part of an
    additive release); a further draw set takes a path already replayed where its calls on D and its outcome on
    every sentinel (its difference, or the same divergence or fault) are those of some draw set already replayed on
    every neighbour, and is then not replayed further; else it takes another path, and is probed and replayed on
    every neighbour -- at most :data:`MOST_PATHS` paths in all, the draw sets past them counted
    (:attr:`.results.Analysis.unreplayed`).  A program of p paths is so fully replayed on at most min(p, MOST_PATHS)
    draw sets, however many are recorded.  A bad path taken with probability q on each draw is missed by the k − 1
    further draw sets (independent draws) with probability (1 − q)^(k−1): for q = 1/2 and the default
    k = :data:`~pdp_audit.audits.program.config.DRAW_SETS` = 8, 2⁻⁷ < 1%.  Each neighbour keeps its worst outcome
    over the draw sets it was replayed on (:attr:`.results.PairResult.drawn` names it)."""
    epsilon, delta = claim
    start = time.perf_counter()
    candidates = neighbours(data, relation, bounds, seed)
    with trace.Session(program) as session:
        before = time.perf_counter()
        recorded = trace.record(session, data)
        run_seconds = time.perf_counter() - before
        first = DrawSet(0, trace.BASE_SEED, recorded, probing.probe(session, data, recorded, seed))
        sizes: list[float] = []  # of each neighbour's changed record, read where the first replay makes D′
        replays = [(first, _replayed(session, data, candidates, first, epsilon, sizes=sizes))]
        sets = (seed, max(1, draw_sets), epsilon)
        unreplayed = _further(session, data, candidates, _sentinels(sizes), replays, sets)
        readings = [PairReading(n, compared[i], drawn) for i, n in enumerate(candidates) for drawn, compared in replays]
        judged, per = read_exactly(session, data, readings, claim), len(replays)
    # each neighbour's worst outcome over its draw sets, the first of equals: the first draw set's where it ties
    pairs = [_worst_outcome(judged[i * per : (i + 1) * per]) for i in range(len(candidates))]
    replayed = [drawn for drawn, _ in replays]
    if budget.active:
        pairs += _searched(program, data, relation, bounds, (replayed, list(pairs)), claim, seed, budget)
    replayed = _replayed_last(program, data, replayed)  # the pairs keep the probes they were read with
    return Analysis(
        replayed[0].recorded,
        replayed[0].probe,
        pairs,
        run_seconds,
        time.perf_counter() - start,
        replayed,
        len(data),
        recorded_sets=max(1, draw_sets),
        unreplayed=unreplayed,
    )


def _replayed_last(program: Callable, data: Any, draw_sets: list[DrawSet]) -> list[DrawSet]:
    """The draw sets, each record replayed on D once more after every neighbour was replayed and read
    (:mod:`.reproduction`): where it no longer gives the record's release (a state the program keeps moved while the
    audit ran), with a new probe, not reproducible, saying how (its claim undecided, :func:`.decision.decide`)."""
    out = list(draw_sets)
    with trace.Session(program) as session:
        for k, drawn in enumerate(draw_sets):
            if not drawn.probe.reproducible:
                continue
            session.draws(drawn.seed)
            replayed = functools.partial(trace.replay, session, data, drawn.recorded.calls)
            try:
                again = reproduction.reproduced(replayed, drawn.recorded)
            except trace.ProgramFault as fault:  # a fault on D now, not on the record's run: the program's state
                again = reproduction.Reproduction(False, f"raises ({fault})")
            if not again.same:
                departed = f"after the neighbours {again.how or 'gives another release'}"
                probe = dataclasses.replace(drawn.probe, reproducible=False, departed=departed)
                out[k] = dataclasses.replace(drawn, probe=probe)
    return out


def _further(
    session: trace.Session,
    data: Any,
    candidates: list[Neighbour],
    sentinels: list[int],
    replays: list[tuple[DrawSet, list[comparison.Comparison]]],
    sets: tuple[int, int, float],
) -> int:
    """The further draw sets of ``sets`` = (root seed, draw sets in all, the claim's ε), each recorded on D and,
    where it takes a path no draw set in ``replays`` took (:func:`_other_path`), probed, replayed on every neighbour
    and appended to ``replays`` -- while they hold fewer than :data:`MOST_PATHS`; the number of those past it."""
    seed, count, epsilon = sets
    unreplayed = 0
    for index in range(1, count):
        drawn_seed = draw_seed(index, seed)
        recorded = _other_path(session, data, candidates, sentinels, replays, drawn_seed)
        if recorded is None:
            continue
        if len(replays) >= MOST_PATHS:
            unreplayed += 1
            continue
        drawn = DrawSet(index, drawn_seed, recorded, probing.probe(session, data, recorded, drawn_seed))
        replays.append((drawn, _replayed(session, data, candidates, drawn, epsilon)))
    return unreplayed


def _searched(
    program: Callable,
    data: Any,
    relation: str,
    bounds: Any,
    named: tuple[list[DrawSet], list[PairResult]],
    claim: tuple[float, float],
    seed: int,
    budget: search.Budget,
) -> list[PairResult]:
    """The pairs the search proposes (:mod:`.search`), each replayed and judged as a named one on the draw sets every
    named neighbour was replayed on (its worst outcome kept), in the order proposed; each batch's replays share a
    session, its compositions follow it.  optuna's TPE starts from the named pairs that are points of its box
    (:func:`.search.located`), enqueued with their own scores: they are told, not replayed again, and
    ``budget.candidates`` are proposed beyond them."""
    columns = search.fields(data, bounds)
    replayed, named_pairs = named
    out: list[PairResult] = []
    # by identity: a candidate proposed again (a whole-number field), or one the named list made under another
    # name (record 3 removed), is neither replayed nor listed again
    scores = {
        identity(p.neighbour): objective(p.rank, p.upper.pure if p.upper else None, claim[0]) for p in named_pairs
    }
    told: list[tuple[dict, float]] = []  # (point, score) of each named pair in the box: TPE's first trials
    for pair in named_pairs if budget.strategy == "optuna" else []:
        point = search.located(data, relation, columns, pair.neighbour)
        if point is not None:
            told.append((point, scores[identity(pair.neighbour)]))

    def criterion(batch: list[dict], first: int) -> list[float]:
        known = [score for _, score in told[first : first + len(batch)]]
        batch, first = batch[len(known) :], first + len(known) - len(told)
        if not batch:
            return known
        proposed: dict[tuple, Neighbour] = {}
        keys = []
        for i, params in enumerate(batch):
            how = search.found_by(budget.strategy, first + i, budget.candidates)
            neighbour = search.proposed(data, relation, columns, params, how)
            keys.append(identity(neighbour))
            if keys[-1] not in scores:
                proposed.setdefault(keys[-1], neighbour)
        fresh = list(proposed.values())
        with trace.Session(program) as session:
            compared = [_replayed(session, data, fresh, drawn, claim[0]) for drawn in replayed]
            readings = [PairReading(n, c[i], d) for i, n in enumerate(fresh) for d, c in zip(replayed, compared)]
            judged, per = read_exactly(session, data, readings, claim), len(replayed)
        for i, neighbour in enumerate(fresh):
            pair = _worst_outcome(judged[i * per : (i + 1) * per])
            out.append(pair)
            pure = pair.upper.pure if pair.upper else None
            scores[identity(neighbour)] = objective(pair.rank, pure, claim[0])
        return known + [scores[key] for key in keys]

    space = search.space(data, relation, columns)
    count = len(told) + budget.candidates
    maximise(space, criterion, budget.strategy, count, seed, search.BATCH, [point for point, _ in told])
    return out


def _worst_outcome(outcomes: list[PairResult]) -> PairResult:
    """One neighbour's worst outcome over the draw sets it was replayed on (the first of equals), with the share of
    them whose outcome has a finding of its kind (:attr:`.results.PairResult.recurrence`)."""
    worst = max(outcomes, key=lambda p: (p.rank, p.upper.high if p.upper is not None else 0.0))
    kind = worst.rank[0]
    return dataclasses.replace(worst, recurrence=sum(o.rank[0] == kind for o in outcomes) / len(outcomes))


def _replayed(
    session: trace.Session,
    data: Any,
    candidates: list[Neighbour],
    drawn: DrawSet,
    epsilon: float,
    sizes: list[float] | None = None,
) -> list:
    """Every neighbour replayed with the draw set's draws (``epsilon``: the claim's, for a rescaled call's rounded
    landing, :func:`.comparison.compare`; ``sizes``: each changed record's :func:`_magnitude`
    appended, read from D′ as it is made for the replay), each asked whether the noise's coefficients move (a second
    replay with the probe's shift).  Asked on every pair and every draw set replayed: a coefficient read from the
    data (its maximum, its size) moves with where a record is put in as much as with what is put in -- replacing the
    maximum by the domain's end moves it, replacing any other record by the same value does not -- and a path taken
    on other draws may weight the noise otherwise."""
    session.draws(drawn.seed)
    out = []
    for neighbour in candidates:
        made = neighbour.data  # made anew at each reading: once here
        if sizes is not None:
            sizes.append(_magnitude(data, neighbour, made))
        compared = comparison.compare(session, made, drawn.recorded, drawn.probe, data=data, epsilon=epsilon)
        compared = through.read_through(session, (data, made), drawn.recorded, drawn.probe, compared)  # a clamp
        out.append(same_map.check(session, (data, made), drawn.line, compared))  # the same map on D and D′
    return out


def _magnitude(data: Any, neighbour: Neighbour, made: Any) -> float:
    """The largest finite magnitude among the numeric fields of the record the neighbour (D′ = ``made``) adds, puts
    in or removes (−1 where none is finite: NaN and ±inf records are tried on the first draw set only)."""
    if len(made) < len(data):  # a record removed
        source, row = data, neighbour.position
    else:  # a record added (as the last) or put in place of one
        source = made
        row = len(source) - 1 if neighbour.position is None else neighbour.position
    if hasattr(source, "iat"):  # a frame: its numeric fields one by one (a row as a Series costs far more)
        fields = [j for j, kind in enumerate(source.dtypes) if getattr(kind, "kind", "O") in "iuf"]
        record = [source.iat[row, j] for j in fields]
    else:
        record = np.atleast_1d(np.asarray(source)[row]).tolist()
    numbers = [abs(float(v)) for v in record if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)]
    finite = [v for v in numbers if math.isfinite(v)]
    return max(finite) if finite else -1.0


def _sentinels(sizes: list[float]) -> list[int]:
    """The :data:`SENTINELS` neighbours whose changed record is largest (``sizes``; the first of equals)."""
    return sorted(sorted(range(len(sizes)), key=lambda i: -sizes[i])[:SENTINELS])


def _other_path(
    session: trace.Session,
    data: Any,
    candidates: list[Neighbour],
    sentinels: list[int],
    replays: list[tuple[DrawSet, list[comparison.Comparison]]],
    seed: int,
) -> trace.Run | None:
    """The record on D of the draw set of ``seed``, where the program takes another path on it than on every draw
    set of ``replays`` (:func:`analyse`); None where its calls on D and its outcomes on the sentinels are those of
    one of them.  Each sentinel is replayed once on it, however many draw sets it is compared with."""
    session.draws(seed)
    recorded = trace.record(session, data)
    signatures = [c.signature() for c in recorded.calls]
    alike = [
        (drawn, compared)
        for drawn, compared in replays
        if drawn.recorded.structure == recorded.structure and drawn.signatures == signatures
    ]
    for i in sentinels:
        if not alike:
            break
        moved: trace.Run | trace.Divergence | None
        try:
            moved = trace.replay(session, candidates[i].data, recorded.calls)
        except trace.Divergence as divergence:
            moved = divergence
        except trace.ProgramFault:
            moved = None
        alike = [(d, c) for d, c in alike if paths.same_outcome(d.recorded, c[i], recorded, moved, d.probe)]
    return None if alike else recorded
