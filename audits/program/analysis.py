"""The structural analysis of a program: recorded once on D, probed, replayed on every neighbour, each pair's
primitives composed -- the findings and the worst pair.

For each neighbour D′ (:mod:`.neighbours`) the replay (:mod:`.trace`) gives either a control-flow divergence (the
first diverging call), or per noise element its shift, from which the pair's composition is built
(:mod:`.accounting`):

* a **lower** composition of the elements the release carries affinely (their noisy values can be read off the
  release at the recorded draws, so the release's δ(ε) is at least theirs: the data-processing inequality read
  backwards) -- above the claim, the claim is refuted by composition;
* an **upper** composition of every element with a known law and a visible shift (the release, where it is a
  function of the noisy values, has δ(ε) at most theirs, by post-processing) -- within the claim, and nothing else
  unexplained, the pair is certified.

What neither explains is a finding for the black box to confirm: a release coordinate free of noise that differs,
a release whose structure differs, a noisy coordinate that differs but is not affine in the noise, a primitive
whose law or input is not visible, a scale that depends on the data.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import (
    accounting,
    carried_events,
    carried_steps,
    comparison,
    conditioning,
    exact_shifts,
    library_steps,
    paths,
    reproduction,
    rounded_steps,
    same_map,
    search,
    through,
    trace,
)
from pdp_audit.audits.program.config import DRAW_SETS
from pdp_audit.audits.program.findings import (
    CarriedAbove,
    CoefficientMoved,
    Conditioned,
    Diverged,
    Fault,
    Finding,
    FreeDiffers,
    Inconsistent,
    MapMoved,
    NoisyDiffers,
    Rescale,
    Rescaled,
    StructureDiffers,
    Unaccounted,
    Unshifted,
    UpperAbove,
    apart,
    rank,
)
from pdp_audit.audits.program.findings import (
    criterion as objective,
)
from pdp_audit.audits.program.fresh_process import Elsewhere
from pdp_audit.audits.program.neighbours import Neighbour, identity, neighbours, non_finite
from pdp_audit.audits.program.recorder import LOCATION_FAMILIES
from pdp_audit.audits.program.sources import replayable
from pdp_audit.verify.core.candidate_search import maximise


@dataclass
class PairResult:
    """One neighbour's outcome: its typed ``findings`` (:mod:`.findings`), the compositions of its steps (``lower``:
    the carried steps', ``upper``: all known steps'), and where it was read (the draw set, its record on D and probe).
    Built once by :func:`_judged`; its rank (:func:`.findings.rank`) orders the pairs, worst last."""

    neighbour: Neighbour
    comparison: comparison.Comparison
    findings: tuple[Finding, ...] = ()
    lower: accounting.Composed | None = None
    upper: accounting.Composed | None = None
    steps: list[accounting.Step] = field(default_factory=list)
    #: the steps of the noise the release carries (the lower composition's)
    carried: list[accounting.Step] = field(default_factory=list)
    #: the elements whose lower step is composed but not yet shown carried where the lower composition exceeds the
    #: claim (:mod:`.carried_events`: their ranges are read, and the pair judged anew)
    unshown: tuple[int, ...] = ()
    #: the draw set the pair was replayed on (0: the first), its record on D and its probe
    draw_set: int = 0
    recorded: trace.Run | None = field(default=None, repr=False)
    probe: trace.Probe | None = field(default=None, repr=False)
    #: the share of the draw sets the pair was replayed on whose outcome has a finding of its rank's kind
    #: (:func:`_worst_outcome`; 1 where it was replayed on one)
    recurrence: float = 1.0

    @property
    def rank(self) -> tuple[int, float]:
        """The pair's rank (:func:`.findings.rank`): its most severe finding's kind, then its magnitude."""
        return rank(self.findings)

    @property
    def order(self) -> tuple[int, float, float]:
        """The pair's place as a witness: its rank's kind, then :attr:`recurrence`, then its magnitude.  A finding
        seen on every draw set comes from the data whatever the noise drew; one seen on some only follows the noise's
        values (a branch on a noisy count, a post-processing of noisy answers), which a correct program shows too --
        the black box confirms the first kind of pair first (dpmm's domain read from the data, against a sampling
        step whose path follows the noisy marginals)."""
        kind, magnitude = self.rank
        return (kind, self.recurrence, magnitude)

    @property
    def structural(self) -> list[Finding]:
        """The findings of the structure check, in the order found."""
        return [f for f in self.findings if f.check == "structure"]

    @property
    def unaccounted(self) -> list[Unaccounted]:
        """The noise the composition cannot account for on the pair."""
        return [f for f in self.findings if isinstance(f, Unaccounted)]

    @property
    def scale_moves(self) -> list[str]:
        """Released noise whose scale differs between D and D′ (a rescaled call the release carries, a coefficient
        that moved), in words: a pure claim is refuted by the first exactly (:class:`Rescaled`); the second is a
        finding the black box confirms (on a smaller pair, where a scale from the data moves most)."""
        return [move for f in self.findings if isinstance(f, (Rescaled, CoefficientMoved)) for move in f.moves]

    @property
    def refuted(self) -> bool:
        """Whether the composition of the noise the release carries refutes the claim on the pair."""
        return any(isinstance(f, CarriedAbove) for f in self.findings)


@dataclass(frozen=True)
class DrawSet:
    """One set of draws: its index, the generator's seed, the record on D and its probe."""

    index: int
    seed: int
    recorded: trace.Run
    probe: trace.Probe

    @functools.cached_property
    def signatures(self) -> list[str]:
        """Its calls' signatures on D, made once (each further draw set's record is compared with them)."""
        return [c.signature() for c in self.recorded.calls]

    @functools.cached_property
    def shared(self) -> exact_shifts.Shared:
        """What every pair's exact reading on it shares (:class:`.exact_shifts.Shared`: D's replay with the noise at 0
        among it), made once: D is not a neighbour's to change."""
        return exact_shifts.Shared.of(self.recorded, self.probe)

    @functools.cached_property
    def line(self) -> same_map.Line:
        """D's release along the noise's range (:class:`.same_map.Line`), read once on the draw set's first pair that
        is checked: every pair's check of its map compares with it."""
        return same_map.Line.of(self.recorded, self.probe)


@dataclass(frozen=True)
class Named:
    """What the named list leaves the search: the draw sets its neighbours were replayed on, and its pairs."""

    draw_sets: list[DrawSet]
    pairs: list[PairResult]


@dataclass
class Analysis:
    """The record on D and its probe (of the first draw set; ``draw_sets``: every draw set's), every pair's result,
    and the time the program's own run took."""

    recorded: trace.Run
    probe: trace.Probe
    pairs: list[PairResult]
    run_seconds: float
    analysis_seconds: float
    records: int = 0
    #: the draw sets replayed on every neighbour (the first, and those that took another path, at most
    #: :data:`MOST_PATHS`); ``recorded_sets`` the draw sets recorded on D in all
    draw_sets: list[DrawSet] = field(default_factory=list)
    recorded_sets: int = 1
    #: further draw sets that took a path of their own past :data:`MOST_PATHS`: recorded on D and replayed on the
    #: sentinels only
    unreplayed: int = 0
    #: D's record replayed in a fresh process (:mod:`.fresh_process`; None: not yet, made only where the exact checks
    #: would otherwise certify)
    elsewhere: Elsewhere | None = None

    @property
    def reproducible(self) -> bool:
        """Every draw set's record replays on D to its release, no neighbour's replay drew randomness the audit
        cannot replay (the program may draw it on D′ alone), and D's record gives its release in a fresh process
        where it was replayed there."""
        recorded = all(d.probe.reproducible for d in self.draw_sets) if self.draw_sets else self.probe.reproducible
        replays = [p.comparison.replayed for p in self.pairs]
        drawn = all(replayable(run.unrecorded) for run in replays if run is not None)
        return recorded and drawn and (self.elsewhere is None or self.elsewhere.same)

    def unshifted(self) -> Unshifted | None:
        """The calls whose draws the probe cannot shift nor the composition account (:func:`_blind`), where some
        release coordinate is moved by no draw it shifts (:class:`.findings.Unshifted`); None where every coordinate
        carries shiftable noise or no such call is made."""
        sets = self.draw_sets or [DrawSet(0, 0, self.recorded, self.probe)]
        free = [d for d in sets if (d.probe.carrier == -1).any()]
        calls = sorted({c.signature() for d in free for c in d.recorded.calls if _blind(c)})
        return Unshifted(tuple(calls)) if calls else None

    def seen_by(self, pair: PairResult | None) -> Analysis:
        """The analysis read on ``pair``'s draw set: its record on D and its probe."""
        if pair is None or pair.recorded is None or pair.probe is None or pair.recorded is self.recorded:
            return self
        return dataclasses.replace(self, recorded=pair.recorded, probe=pair.probe)

    def worst(self, confirmable: bool = False) -> PairResult | None:
        """The pair of highest order (:attr:`PairResult.order`; ``confirmable``: among those the program runs on, a
        black box's witness); among pairs the composition refutes, one whose record is finite before one of NaN or
        ±inf -- a finite outlier shows a reviewer the data-dependent scale directly, where "+inf added" reads as an
        input-validation bug."""
        pairs = [p for p in self.pairs if not confirmable or p.comparison.fault is None]
        return max(pairs, key=_reading_order) if pairs else None


def _blind(call: Any) -> bool:
    """A numpy draw that is no location family (the probe shifts those) and has no law here (``choice`` has one,
    diffprivlib's and OpenDP's calls their declared budgets and privacy maps)."""
    library = call.kind.startswith(("diffprivlib.", "opendp.", "pydp."))
    return call.law is None and call.kind not in LOCATION_FAMILIES and not library


def _reading_order(p: PairResult) -> tuple:
    return (p.refuted, p.refuted and not non_finite(p.neighbour.name), p.order)


def _steps(
    result: PairResult, recorded: trace.Run, found: trace.Probe, epsilon: float, unmoved: bool = True
) -> tuple[list, list, list[Unaccounted], int]:
    """The carried steps (lower), all known steps (upper), and what cannot be accounted for.  An OpenDP
    measurement's element is a lower step by its recorded law where the release carries it, its call an upper step by
    its privacy map (:mod:`.library_steps`): those lower steps are not among the upper ones.  An element read
    through a rounding (:mod:`.landing`) is a lower step by its coordinate's own law (its slack at ``epsilon``) and
    an upper step by its element's law where D′'s release is D's at the shifted noise.  ``unmoved`` False: the steps
    of the elements read as unmoved (:func:`.exact_shifts.unmoved`) are not made; the last number says where among
    the known steps they go."""
    c = result.comparison
    carried, known, unaccounted = [], [], []
    for j in _stepped(c, found):
        element, shift, source = found.elements[j], float(c.shifts[j]), c.source[j]
        if source == "landing":
            label = f"{recorded.calls[element.call].kind}[{element.index}] read through a rounding"
            lower = rounded_steps.lower_step(c.landings[j], epsilon, element.call, label)
            carried += [lower] if lower is not None else []
            upper = rounded_steps.upper_step(c.landings[j], element.call, label)
            known += [upper] if upper is not None else []
            why = "the rounding's grid on D′ is not shown to be D's, shifted"
            unaccounted += [] if upper is not None else [Unaccounted(element.call, label, why)]
            continue
        if element.law == "library":  # above by its privacy map or budget (below), below by its law where carried
            error = exact_shifts.shift_error(c, j)
            lower = library_steps.opendp_law_step(
                element.call, element.index, recorded.calls[element.call], shift, error
            )
            carried += [lower] if lower is not None and source == "release" else []
            continue
        exact = c.exact.get(j)
        if shift == 0 and source != "none" and not exact:  # read as unmoved: :func:`.exact_shifts.unmoved`
            continue
        call = recorded.calls[element.call]
        label = f"{call.kind}[{element.index}]"
        if source == "none" or math.isnan(shift):
            if element.law is not None or call.kind in ("gumbel", "logistic"):
                unaccounted.append(Unaccounted(element.call, label, _not_visible(found)))
            continue
        scale = element.scale
        if element.law is None:
            unaccounted.append(_no_law(element.call, label, call.kind, (shift, scale)))
            continue
        if exact is not None and scale > 0:
            shift = float(exact)
        mu = math.inf if scale <= 0 or math.isinf(shift) else abs(shift) / scale
        within = exact_shifts.mu_interval(c, j, shift, scale) if math.isfinite(mu) else None
        step = SHIFTED[element.law](call=element.call, label=label, mu=mu, within=within)
        known.append(step)
        carried += carried_steps.shown(c, (found, j, source), step, epsilon)  # where the release carries it
    at = len(known)
    known += exact_shifts.unmoved(c, found, SHIFTED) if unmoved else []
    carried += carried_steps.tail_steps(c, recorded, found, epsilon)  # a rescaled call's verified partition
    if c.replayed is not None:
        budgets, problems = library_steps.call_steps(recorded.calls, c.replayed.calls)
        known += budgets
        unaccounted += problems
    for k, p, q in c.choices:
        weights = (tuple(p.tolist()), tuple(q.tolist()))
        step = accounting.Discrete(call=k, label="choice", p=tuple(p / p.sum()), q=tuple(q / q.sum()), weights=weights)
        known.append(step)  # the chosen index is rarely released as it is: an upper step, not a lower one
    return carried, known, unaccounted, at


def _no_law(call: int, label: str, kind: str, shifted: tuple[float, float]) -> Unaccounted:
    """The finding of noise with no exact law here whose input moved by ``shifted`` = (shift, scale): as x/(1 + x)
    of x = |shift|/scale, its magnitude, which orders the pairs for the black box's witness only
    (:attr:`.findings.Unaccounted.moved`)."""
    shift, scale = shifted
    moved = abs(shift) / scale if scale > 0 else math.inf
    reach = 1.0 if math.isinf(moved) else moved / (1.0 + moved)
    return Unaccounted(call, label, f"no exact law for {kind} noise here", reach)


def _stepped(c: comparison.Comparison, found: trace.Probe) -> list[int]:
    """The elements :func:`_steps` reads one by one: all but those read as unmoved (shift 0, read from the release
    or a location, not exactly moved), which :func:`.exact_shifts.unmoved` composes per call -- found in numpy (a
    histogram's neighbour moves two of its bins), or for a few elements in Python, the same tests one by one (a
    shift that is not 0, NaN included; a source "none" or "landing"; an OpenDP law; an exact shift that is not 0)."""
    n = min(len(found.elements), c.shifts.size, len(c.source))
    if n <= trace.SMALL_RELEASE:  # numpy's fixed cost per call exceeds the loop's
        shifts, law = c.shifts[:n].tolist(), found.columns().law[:n].tolist()
        return [
            j
            for j in range(n)
            if shifts[j] != 0 or c.source[j] in ("none", "landing") or law[j] == "library" or c.exact.get(j)
        ]
    needed = c.shifts[:n] != 0  # NaN too: it compares unequal, silently
    source = c.source[:n]
    if "none" in source or "landing" in source:  # a list, scanned in C: most pairs read every element off the release
        kinds = np.asarray(source, dtype=object)
        needed |= (kinds == "none") | (kinds == "landing")
    needed |= found.columns().law[:n] == "library"
    exact = [j for j, d in c.exact.items() if d and j < n]
    if exact:
        needed[exact] = True
    return np.flatnonzero(needed).tolist()


#: The step of a location family's element, by its law (numpy's float samplers: porous).
SHIFTED = {"laplace": accounting.Laplace, "gaussian": accounting.Gaussian}


def _not_visible(found: trace.Probe) -> str:
    """Why an element's shift is not read: its call shows no value and no release coordinate carries its noise
    additively -- plainly, where some coordinate is noisy but not affine in the noise (a rounding, a threshold)."""
    if (found.carrier == -2).any():
        return (
            "the value its noise is added to is not shown by the call, and the noise reaches the release only "
            "non-additively (rounded, thresholded or weighted by the data): that value is not read, not certified"
        )
    return "the value its noise is added to is not visible"


#: Distinct paths replayed on every neighbour at most, the first draw set's included (see :func:`analyse`): a
#: program whose every draw takes a path of its own (a sparse vector's stopping time) costs at most this many full
#: replays; the draw sets past it are counted (:attr:`Analysis.unreplayed`), recorded and replayed on the sentinels.
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
    """Record, probe, replay on every named neighbour, compose (module notes), then search further neighbours within
    ``budget`` (:mod:`.search`).  The runs share one :class:`~pdp_audit.audits.program.trace.Session` (a search's
    batch, one of its own), the exact readings' too; the compositions are made in it, under
    :meth:`~pdp_audit.audits.program.trace.Session.ours`.

    **Draw sets.**  A branch on a noisy value (a noisy count against a threshold) may touch the data differently on
    draws the first record does not take.  The first draw set is replayed on every neighbour; each further one is
    recorded on D and replayed on the :data:`SENTINELS` neighbours whose changed record is largest.  Where the
    program's path does not depend on the draws, R(D′; z) − R(D; z) is the same at every z (the data's part of an
    additive release); a further draw set takes a path already replayed where its calls on D and its outcome on
    every sentinel (its difference, or the same divergence or fault) are those of some draw set already replayed on
    every neighbour, and is then not replayed further; else it takes another path, and is probed and replayed on
    every neighbour -- at most :data:`MOST_PATHS` paths in all, the draw sets past them counted
    (:attr:`Analysis.unreplayed`).  A program of p paths is so fully replayed on at most min(p, MOST_PATHS) draw
    sets, however many are recorded.  A bad path taken with probability q on each draw is missed by the k − 1
    further draw sets (independent draws) with probability (1 − q)^(k−1): for q = 1/2 and the default
    k = :data:`~pdp_audit.audits.program.config.DRAW_SETS` = 8, 2⁻⁷ < 1%.  Each neighbour keeps its worst outcome
    over the draw sets it was replayed on (:attr:`PairResult.draw_set` names it)."""
    epsilon, delta = claim
    start = time.perf_counter()
    candidates = neighbours(data, relation, bounds, seed)
    with trace.Session(program) as session:
        before = time.perf_counter()
        recorded = trace.record(session, data)
        run_seconds = time.perf_counter() - before
        first = DrawSet(0, trace.BASE_SEED, recorded, trace.probe(session, data, recorded, seed))
        sizes: list[float] = []  # of each neighbour's changed record, read where the first replay makes D′
        replays = [(first, _replayed(session, data, candidates, first, epsilon, sizes=sizes))]
        sets = (seed, max(1, draw_sets), epsilon)
        unreplayed = _further(session, data, candidates, _sentinels(sizes), replays, sets)
        outcomes = [
            (_pair(n, compared[i], drawn), drawn) for i, n in enumerate(candidates) for drawn, compared in replays
        ]
        judged, per = _read_exactly(session, data, outcomes, claim), len(replays)
    # each neighbour's worst outcome over its draw sets, the first of equals: the first draw set's where it ties
    pairs = [_worst_outcome(judged[i * per : (i + 1) * per]) for i in range(len(candidates))]
    if budget.active:
        named = Named([drawn for drawn, _ in replays], list(pairs))
        pairs += _searched(program, data, relation, bounds, named, claim, seed, budget)
    _replayed_last(program, data, [drawn for drawn, _ in replays])
    return Analysis(
        first.recorded,
        first.probe,
        pairs,
        run_seconds,
        time.perf_counter() - start,
        len(data),
        draw_sets=[drawn for drawn, _ in replays],
        recorded_sets=max(1, draw_sets),
        unreplayed=unreplayed,
    )


def _replayed_last(program: Callable, data: Any, draw_sets: list[DrawSet]) -> None:
    """Each draw set's record replayed on D once more, after every neighbour was replayed and read
    (:mod:`.reproduction`): where it no longer gives the record's release (a state the program keeps moved while the
    audit ran), its probe is marked not reproducible, saying how (its claim undecided, :func:`.decision.decide`)."""
    with trace.Session(program) as session:
        for drawn in draw_sets:
            if not drawn.probe.reproducible:
                continue
            session.draws(drawn.seed)
            replayed = functools.partial(trace.replay, session, data, drawn.recorded.calls)
            try:
                again = reproduction.reproduced(replayed, drawn.recorded)
            except trace.ProgramFault as fault:  # a fault on D now, not on the record's run: the program's state
                again = reproduction.Reproduction(False, f"raises ({fault})")
            if not again.same:
                drawn.probe.reproducible = False
                drawn.probe.departed = f"after the neighbours {again.how or 'gives another release'}"


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
        drawn = DrawSet(index, drawn_seed, recorded, trace.probe(session, data, recorded, drawn_seed))
        replays.append((drawn, _replayed(session, data, candidates, drawn, epsilon)))
    return unreplayed


def _searched(
    program: Callable,
    data: Any,
    relation: str,
    bounds: Any,
    named: Named,
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
    replayed = named.draw_sets
    out: list[PairResult] = []
    # by identity: a candidate proposed again (a whole-number field), or one the named list made under another
    # name (record 3 removed), is neither replayed nor listed again
    scores = {
        identity(p.neighbour): objective(p.rank, p.upper.pure if p.upper else None, claim[0]) for p in named.pairs
    }
    told: list[tuple[dict, float]] = []  # (point, score) of each named pair in the box: TPE's first trials
    for pair in named.pairs if budget.strategy == "optuna" else []:
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
            outcomes = [(_pair(n, c[i], d), d) for i, n in enumerate(fresh) for d, c in zip(replayed, compared)]
            judged, per = _read_exactly(session, data, outcomes, claim), len(replayed)
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


def _worse(p: PairResult) -> tuple:
    return (p.rank, p.upper.high if p.upper is not None else 0.0)


def _worst_outcome(outcomes: list[PairResult]) -> PairResult:
    """One neighbour's worst outcome over the draw sets it was replayed on (the first of equals), with the share of
    them whose outcome has a finding of its kind (:attr:`PairResult.recurrence`)."""
    worst = max(outcomes, key=_worse)
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
        through.read_through(session, (data, made), drawn.recorded, drawn.probe, compared)  # a clamp's flat region
        same_map.check(session, (data, made), drawn.line, compared)  # the same post-processing on D and D′
        out.append(compared)
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


def _pair(neighbour: Neighbour, compared: comparison.Comparison, drawn: DrawSet) -> PairResult:
    return PairResult(neighbour, compared, draw_set=drawn.index, recorded=drawn.recorded, probe=drawn.probe)


def _read_exactly(
    session: trace.Session, data: Any, outcomes: list[tuple[PairResult, DrawSet]], claim: tuple
) -> list[PairResult]:
    """Each pair judged (:func:`_judged`) on its draw set; where its pure composition lies within the rounding of its
    readings (:attr:`.accounting.Composed.rounding`), its shifts are read exactly (:func:`.exact_shifts.read`: one
    more replay each, on D′, in the session of the pairs' replays; D's, the same for all, once per draw set), and
    where a rescaled call is carried, its tail edges (:mod:`.carried_events`); then, where the lower composition
    exceeds the claim on steps not yet shown carried, their ranges (:func:`.carried_steps.ranges_read`).  After each
    reading the pair is judged anew -- the earlier judgement is discarded, not changed.  Every judgement is made
    under :meth:`.trace.Session.ours` (the composition imports)."""
    epsilon, delta = claim
    with session.ours():
        judged = [
            _judged(pair, drawn.recorded, drawn.probe, epsilon, delta, provisional=True) for pair, drawn in outcomes
        ]
    for stage in ("shifts", "ranges"):
        wanted = {k: _wanted(pair, stage, claim[1]) for k, pair in enumerate(judged)}
        wanted = {k: asked for k, asked in wanted.items() if asked}
        if not wanted:
            continue
        read = []
        for k, asked in sorted(wanted.items()):
            pair, drawn = judged[k], outcomes[k][1]
            exact = dataclasses.replace(pair.comparison, exact=dict(pair.comparison.exact))
            session.draws(drawn.seed)
            _read_pair(session, (data, pair.neighbour.data), drawn, (pair, exact, asked), claim)
            read.append((k, exact))
        with session.ours():
            for k, exact in read:
                pair, drawn = judged[k], outcomes[k][1]
                judged[k] = _judged(_pair(pair.neighbour, exact, drawn), drawn.recorded, drawn.probe, *claim)
    return judged


def _within_readings(upper: accounting.Composed, delta: float) -> bool:
    """Whether the pair's upper composition is undecided by the rounding of its readings alone: a pure one within
    it (:attr:`.accounting.Composed.rounding`), or a Gaussian one certified at the read μ but not at its proven
    top (:attr:`.accounting.Composed.read`)."""
    return upper.rounding or (upper.read is not None and upper.read <= delta < upper.high)


def _wanted(pair: PairResult, stage: str, delta: float) -> set[str]:
    """What a judged pair asks to be read at ``stage`` (:func:`_read_exactly`)."""
    if stage == "ranges":
        return {"ranges"} if pair.unshown else set()
    asked = {"rounding"} if pair.upper is not None and _within_readings(pair.upper, delta) else set()
    if any(isinstance(f, Rescaled) and f.asks for f in pair.findings):
        asked.add("tails")
    return asked


def _read_pair(
    session: trace.Session, datasets: tuple[Any, Any], drawn: DrawSet, reading: tuple, claim: tuple[float, float]
) -> None:
    """``exact`` (a copy of ``pair``'s comparison, ``reading`` = (pair, exact, what is asked)) read on D and D′ =
    ``datasets`` with the draw set's draws: its shifts exactly, its rescaled calls' tail edges, its carried steps'
    ranges."""
    pair, exact, asked = reading
    data, made = datasets
    if "rounding" in asked:
        exact_shifts.read(session, (data, made), drawn.shared, exact)
    if exact.replayed is None or not asked & {"tails", "ranges"}:
        return
    replayers = (
        trace.replayer(session, data, drawn.recorded, drawn.probe),
        trace.replayer(session, made, drawn.recorded, drawn.probe),
    )
    found = drawn.probe
    among = np.zeros(len(found.elements), dtype=bool)  # the elements read: a histogram's pair moves 2 of 10⁵
    if "tails" in asked:
        among |= np.isin(found.columns().call, [index for index, _, _ in exact.replayed.rescaled])
    if "ranges" in asked:
        among[list(pair.unshown)] = True
    carriers = carried_events.carriers(drawn.recorded, exact.replayed, found, among)
    if "tails" in asked:
        exact.tails = carried_steps.tails_read(replayers, carriers, claim[0])
    if "ranges" in asked and pair.lower is not None:
        unshown = set(pair.unshown)
        chosen = [c for c in carriers if c.element in unshown]
        carried_steps.ranges_read(replayers, chosen, pair.lower.low, exact, claim)


def _judged(
    result: PairResult, recorded: trace.Run, found: trace.Probe, epsilon: float, delta: float, provisional: bool = False
) -> PairResult:
    """``result`` with its findings and compositions (module notes), built once.  ``provisional``: a first
    judgement, where a pure composition within the rounding of its readings is bounded by δ(ε) ≤ 1 without its
    ceiling (:func:`.accounting.composed_delta`): such a pair's shifts are read exactly and it is judged anew
    (:func:`_read_exactly`), this judgement discarded -- its lower composition is not made either."""
    c = result.comparison
    if c.divergence is not None:
        d = c.divergence
        result.findings = (Diverged(d.index, str(d.recorded), str(d.replayed), d.moved),)
        return result
    if c.fault is not None:  # not a witness for the black box (its sampler would raise): a finding to read
        result.findings = (Fault(c.fault),)
        return result
    structural = _structural(c, recorded, found, epsilon, delta)
    carried, known, unaccounted, at = _steps(result, recorded, found, epsilon, unmoved=not provisional)
    upper = accounting.composed_delta(known, epsilon, ceiling=not provisional)
    if provisional and not (upper.rounding and _pure_without_choices(known)):
        # without the elements read as unmoved, each [0, e_j] more on Σε_i: where the sum is undecided without them,
        # it is with them (its low end is the same, its high end higher, no choice's ratio), and the pair is read
        unmoved = exact_shifts.unmoved(c, found, SHIFTED)
        if unmoved:
            known[at:at] = unmoved
            upper = accounting.composed_delta(known, epsilon, ceiling=False)
    if provisional and upper.rounding:  # judged anew once read (_wanted asks for its upper's rounding)
        result.steps, result.carried, result.upper = known, carried, upper
        result.findings = (*structural, *unaccounted)
        return result
    same = carried == known  # the same steps composed once (an OpenDP law's lower steps are not among the known)
    lower = (upper if same else accounting.composed_delta(carried, epsilon)) if carried else None
    composition: list[Finding] = list(unaccounted) + _carriers_moved(c, found, recorded)
    above = lower is not None and accounting.exceeds(lower, delta)
    unshown = carried_steps.unshown(c, found) if above else ()
    result.unshown = unshown
    secret = conditioning.secret_draws(recorded, found) if above and not unshown else ()
    if above and not unshown:
        assert lower is not None  # given draws the release does not reveal, a bound on the conditional laws only
        composition.append(Conditioned(lower, secret) if secret else CarriedAbove(lower))
    elif upper.high > delta and not c.carriers_moved:  # else no composition of D's steps describes D′'s release
        composition.append(UpperAbove(upper))
    result.steps, result.carried, result.upper, result.lower = known, carried, upper, lower
    result.findings = tuple(structural + composition)
    return result


def _carriers_moved(c: comparison.Comparison, found: trace.Probe, recorded: trace.Run) -> list[Finding]:
    """The finding of a pair whose release coordinates carry other noise elements on D′ than on D
    (:func:`.comparison._carriers_read`: noise added in an order the data sets): the steps read per element compare
    D's draws with D′'s in an order that is not the release's, so no composition of them, upper or lower, describes
    the pair -- unaccounted, of magnitude 0 (a pair whose input moved out of a mechanism's reach ranks first)."""
    if not c.carriers_moved:
        return []
    element = found.elements[int(found.carrier[c.carriers_moved[0]])]
    label = f"{recorded.calls[element.call].kind}[{element.index}]"
    why = (
        f"{len(c.carriers_moved)} release coordinate(s) carry other noise on D′ than on D (noise added in an order "
        "the data sets): not composed"
    )
    return [Unaccounted(element.call, label, why)]


def _pure_without_choices(steps: list[accounting.Step]) -> bool:
    """No step is a choice (:class:`.accounting.Discrete`): the steps' pure composition has no ratio, and a step of
    pure ε in [0, e] more leaves a sum within the rounding of its readings within it (:func:`.accounting.certified`:
    Σ low ≤ ε < Σ high, or Σ low ≤ ε with a high end unbounded)."""
    return not any(isinstance(s, accounting.Discrete) for s in steps)


def _structural(
    c: comparison.Comparison, recorded: trace.Run, found: trace.Probe, epsilon: float, delta: float
) -> list[Finding]:
    """The structure check's findings on a pair that replayed (module notes), in the order a report lists them."""
    out: list[Finding] = []
    if c.replayed is not None and c.replayed.rescaled:
        carried_calls = {found.elements[int(j)].call for j in found.carrier if j >= 0}
        moved = tuple(Rescale(i, str(a), str(b)) for i, a, b in c.replayed.rescaled)
        carried = tuple(m.call for m in moved if m.call in carried_calls)
        tails = carried_steps.tails_shown(c, found, epsilon)
        secret = conditioning.secret_draws(recorded, found) if tails > 0 else ()
        out.append(Rescaled(moved, carried, delta == 0, tails, secret))
    if c.structure_differs:
        out.append(StructureDiffers())
    if c.free_differ:
        i, where = c.free_differ[0], c.free_differ
        on_d_prime = _value(c.replayed.numbers if c.replayed else None, i)
        far = apart(recorded.numbers[where], c.replayed.numbers[where]) if c.replayed else 0.0
        out.append(FreeDiffers(len(where), i, _value(recorded.numbers, i), on_d_prime, _free(found), far))
    if c.noisy_differ:
        out.append(NoisyDiffers(len(c.noisy_differ)))
    if c.inconsistent:
        out.append(Inconsistent(len(c.inconsistent)))
    if c.map_moved is not None:
        m = c.map_moved
        out.append(MapMoved(m.noise, m.coordinate, m.on_d, m.on_d_prime, m.count, m.moved))
    if c.coefficient_changed:  # exact only where the call's own scale moved (Rescaled, above)
        out.append(CoefficientMoved(tuple(c.coefficient_changed)))
    return out


def _free(found: trace.Probe) -> str:
    """What a coordinate no probed draw moved is free of: all the recorded noise, or only the noise the probe can
    shift where some draws it cannot (a uniform turned into Laplace noise by hand) may still carry it."""
    if not found.unperturbed:
        return "free of the recorded noise"
    return f"that no shifted draw moves (the draws of {found.unperturbed[0]} are not shifted)"


def _value(numbers: Any, i: int) -> str:
    if numbers is None or i >= len(numbers):
        return "absent"
    return f"{numbers[i]:.6g}"
