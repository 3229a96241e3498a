"""Noise read through a rounding: where a release coordinate is a monotone step function of one noise element
(``round(mean + η, 2)``, ``np.round(counts + η, 1)``), where the noise lands is read by replay with that element
shifted by known amounts, and the coordinate's own law is composed.

**The reading on D** (:func:`found`).  A coordinate i that the probe found noisy but not affine (carrier −2) is
taken to be moved by element j alone where, for every bit b of the elements' indices, exactly one of two replays
moves it: one with the elements whose index has bit b set shifted by a whole scale, one with the others
(2⌈log₂ n⌉ replays name j; with one element, one replay).  Shifting η_j alone by t, R_i(t) is sampled above and
below t = 0 until it changes; the two jumps nearest 0 are bisected (:data:`BISECTIONS`) -- where R_i is flat below
(a clamp), the first two above.  A replay that diverges during the search (a redraw loop's other path) leaves i
unread.  The three values must be strictly monotone in t (``direction`` σ = ±1): else i is left as it was (noisy,
not read).  Consecutive jumps are ``width`` W apart in t: for ``round(x + a·η, k)``, W = 10^−k/|a|.

**A level and its edge.**  For R_i monotone in the noise, the event {σR_i ≤ σc} (c a release value: a
post-processing of the release) is {η′_j ≤ e} for one edge e, η′_j = fl(η_j + t) being what the program reads (the
replay adds t to the recorded draw).  A bracket [lo, hi] of t with σR_i(lo) ≤ σc < σR_i(hi) puts e in
[fl(η_j + lo), fl(η_j + hi)]: that interval is exact, the bisection's width is its only error.

**A neighbour** (:func:`read`).  D′ replayed with D's draws; the level c₀ = R_i(0) of D's upper jump is bisected
on D′ from a bracket put where the grid predicts it (R_i(D′) − R_i(D) in grid steps, times W): its edge e′₀ is
e₀ − d, where d = (x′ − x)/a is the shift of the value η_j is added to (x + a·η_j rounded), in η_j's units, known to
the interval [L₀ − H′₀, H₀ − L′₀] of the two brackets.  Up to :data:`EDGES` further levels c_k (the value just
below D's k-th jump from e₀, predicted at e₀ + kW) are verified on both sides by two replays each, in a bracket
that covers W's error k-fold; an edge whose check fails is dropped (what remains is still exact).

**What is composed** (:mod:`.rounded_steps`): below, the coordinate's law partitioned by the verified levels;
above, the element's own step where D′'s grid is D's, shifted.  The edges are placed where the two laws' loss
varies (between 0 and d, and a scale beyond for a Gaussian); where the call is rescaled on D′ (its scale read
from the data), given the claim's ε, one more in each tail where the scales' loss exceeds it
(:func:`.tail_edges.tail_edges`, :mod:`.rounded_steps`).

**Sound for**: releases whose coordinate is, as a function of η_j, a monotone step function (a rounding, a floor,
a clamp then rounding) -- checked at the sampled points only: the reading is local, as the probe's affine one is.
A coordinate that is not read stays noisy and unexplained, so nothing is certified by it.  A coordinate non-finite
on D′ where it is finite on D at three shifts far apart is read as an infinite shift (δ = 1), as the affine reading
reads a NaN.

**Cost.**  On D, per draw set: 2⌈log₂ n⌉ + at most 2(:data:`BRACKETS` + :data:`BISECTIONS`) replays, shared by all
coordinates read.  Per neighbour: 2⌈log₂ n⌉ replays on D′ to name each landing's element there, at most
4 + :data:`BISECTIONS` + 2 :data:`EDGES` more, and 2 :data:`EDGES` on D (and 4 more per tail edge).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from pdp_audit.audits.program import tail_edges

#: A replay with some elements' noise shifted (element index → shift), giving the release's numbers; None where it
#: diverged, raised or changed the release's structure.
Replayer = Callable[[dict[int, float]], "np.ndarray | None"]

#: Bisection steps per jump (stopped sooner where the bracket reaches adjacent floats): from a bracket of a few
#: cells, 2⁻⁴⁰ of it, a relative 1e-12 of cells up to ~1,000 scales wide, far inside the composition's shift in ε.
BISECTIONS = 40
#: Doublings of the first shift (a quarter of the element's scale) in search of a jump on D.
BRACKETS = 6
#: Further edges verified per neighbour (each costs two replays on D and two on D′).
EDGES = 6
#: Laws whose CDF is composed here.
LAWS = ("laplace", "gaussian")
#: A step function's two jumps, bisected, are brackets narrower than this share of the cell between them (a
#: continuous function's "jumps" are as wide as its "cells": a float apart).
SHARP = 2.0**-20
#: A predicted edge's bracket is widened by this share of the width: the grid of a rounding is uniform in the
#: release's values to their float rounding, not exactly in the noise.
SLOP = 2.0**-30


@dataclass(frozen=True)
class Noise:
    """What the reading needs of one noise element: its law (``laplace``, ``gaussian`` or another), its scale and
    its recorded draw (the noise added, in its own units)."""

    law: str | None
    scale: float
    draw: float


@dataclass(frozen=True)
class Landing:
    """Coordinate ``coordinate`` is a monotone step function of element ``element`` (law ``law``, scale
    ``scale``, recorded draw ``draw``), in the direction ``direction``; at the recorded draws it is ``value``; its
    next jump above is bracketed by shifts ``up`` (``above``: the value beyond it), the jump a cell away by ``down``
    (the one below, or where the coordinate is flat below -- a clamp -- the one after ``up``); ``width`` is their
    distance, known to ``width_error``."""

    coordinate: int
    element: int
    law: str
    scale: float
    draw: float
    direction: int
    value: float
    above: float
    up: tuple[float, float]
    down: tuple[float, float]
    #: the value just below the jump ``up`` (``value``, but for a zero's sign: ``np.round`` splits a cell at 0)
    under: float = math.nan

    @property
    def width(self) -> float:
        return abs((self.up[0] + self.up[1]) / 2 - (self.down[0] + self.down[1]) / 2)

    @property
    def width_error(self) -> float:
        return (self.up[1] - self.up[0]) + (self.down[1] - self.down[0])

    @property
    def grid(self) -> float:
        return abs(self.above - self.value)


@dataclass(frozen=True)
class Reading:
    """One neighbour's reading of a landing: the shift d of the noisy value, in the element's units, within
    [``low``, ``high``] (∞ both where the coordinate is non-finite on D′ only); the edges in noise units, each a
    bracket, on D (``edges``) and D′ (``edges_after``), in increasing order; ``same_grid``: D′'s checked values are
    D's bit for bit and the scale is the same (the upper step is valid); ``stretch``: D's scale over D′'s (1: the
    call is not rescaled); ``tails``: the indices of the edges put in the tails (:mod:`.rounded_steps`)."""

    landing: Landing
    low: float
    high: float
    edges: tuple[tuple[float, float], ...] = ()
    edges_after: tuple[tuple[float, float], ...] = ()
    same_grid: bool = False
    stretch: float = 1.0
    tails: tuple[int, ...] = ()

    @property
    def shift(self) -> float:
        return self.low if math.isinf(self.low) else (self.low + self.high) / 2


@dataclass
class _Bracket:
    """One bisection: an element's shift between ``lo`` (its value not past the level) and ``hi`` (past it)."""

    element: int
    coordinate: int
    lo: float
    hi: float
    past: Callable[[float], bool | None]
    draw: float
    below: float = math.nan  # the value at ``lo``
    done: bool = False
    failed: bool = False
    values: list[float] = field(default_factory=list)  # the values at ``hi``, the last the nearest


def found(replay: Replayer, numbers: np.ndarray, carrier: np.ndarray, elements: list[Noise]) -> list[Landing]:
    """The landings of the release ``numbers`` at the recorded draws (module notes), among the coordinates the probe
    marked noisy but not affine (``carrier`` −2)."""
    candidates = [int(i) for i in np.flatnonzero(carrier == -2) if math.isfinite(float(numbers[i]))]
    if not candidates or not elements:
        return []
    chosen = _readable(elements_named(replay, numbers, candidates, elements), elements)
    if not chosen:
        return []
    starts = {j: (i, 0.0, float(numbers[i])) for j, i in chosen.items()}
    ups, _ = _jumps(replay, starts, elements, +1.0)
    downs, blocked = _jumps(replay, {j: starts[j] for j in ups}, elements, -1.0)
    # flat below (a clamp): the jump after the first above gives the width instead
    flat = {j: (chosen[j], ups[j].hi, ups[j].values[-1]) for j in ups if j not in downs and j not in blocked}
    nexts, _ = _jumps(replay, flat, elements, +1.0)
    out = []
    for j, i in sorted(chosen.items(), key=lambda item: item[1]):
        up, other = ups.get(j), downs.get(j) or nexts.get(j)
        if up is not None and other is not None:
            landing = _landing(i, elements[j], j, float(numbers[i]), up, other, below_read=j in downs)
            out.extend([landing] if landing is not None else [])
    return out


def _readable(named: dict[int, int], elements: list[Noise]) -> dict[int, int]:
    """Element → its first coordinate, for the elements of a known law, finite draw and positive finite scale: one
    coordinate per element is read."""
    chosen: dict[int, int] = {}
    for i, j in named.items():
        e = elements[j]
        if e.law in LAWS and 0 < e.scale < math.inf and math.isfinite(e.draw):
            chosen.setdefault(j, i)
    return chosen


def _landing(i: int, e: Noise, j: int, value: float, up: _Bracket, other: _Bracket, below_read: bool) -> Landing | None:
    """The landing of coordinate ``i`` (moved by element ``j`` alone) from its first jump ``up`` and the one
    ``other`` below it (``below_read``) or after it; None where the points sampled are not monotone or the jumps are
    as wide as the cell between them (a continuous function, no grid)."""
    above, beyond = up.values[-1], other.values[-1]
    direction = 1 if above > value else -1
    ordered = (beyond, value, above) if below_read else (value, above, beyond)
    if not direction * ordered[0] < direction * ordered[1] < direction * ordered[2]:
        return None
    if (up.hi - up.lo) + abs(other.hi - other.lo) > SHARP * abs(up.hi - other.hi):
        return None
    jump = (min(other.lo, other.hi), max(other.lo, other.hi))
    law = str(e.law)  # one of LAWS: chosen by _readable
    return Landing(i, j, law, e.scale, e.draw, direction, value, above, (up.lo, up.hi), jump, up.below)


def elements_named(
    replay: Replayer, numbers: np.ndarray, candidates: list[int], elements: list[Noise]
) -> dict[int, int]:
    """Coordinate → the one element that moves it, named bit by bit (module notes): on D, and on each D′ again
    before a landing is read there (:func:`read`)."""
    n = len(elements)
    scales = [e.scale if 0 < e.scale < math.inf else 1.0 for e in elements]
    if n == 1:
        moved = _moved(replay({0: scales[0]}), numbers, candidates)
        return {i: 0 for i in candidates if moved.get(i)}
    index = dict.fromkeys(candidates, 0)
    for b in range((n - 1).bit_length()):
        on = _moved(replay({j: scales[j] for j in range(n) if j >> b & 1}), numbers, candidates)
        off = _moved(replay({j: scales[j] for j in range(n) if not j >> b & 1}), numbers, candidates)
        for i in list(index):
            if on.get(i) is None or off.get(i) is None or on[i] == off[i]:
                del index[i]  # moved by elements on both sides of the bit, or by none: not one element's
            elif on[i]:
                index[i] |= 1 << b
    return {i: j for i, j in index.items() if j < n}


def _moved(release: np.ndarray | None, numbers: np.ndarray, coordinates: list[int]) -> dict[int, bool | None]:
    if release is None or release.size != numbers.size:
        return {}
    return {i: not _same(float(release[i]), float(numbers[i])) for i in coordinates}


def _differs_from(value: float) -> Callable[[float], bool | None]:
    """Whether a value is not ``value`` (NaN is NaN): past the level of a jump from ``value``."""

    def differs(v: float) -> bool | None:
        return not _same(v, value)

    return differs


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _identical(a: float, b: float) -> bool:
    """Equal bit for bit, the sign of a zero included (``np.round`` gives −0.0 in (−0.5, 0)): the grid is the same
    only where the release is."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _jumps(
    replay: Replayer, starts: dict[int, tuple[int, float, float]], elements: list[Noise], sign: float
) -> tuple[dict[int, _Bracket], set[int]]:
    """Per element, from ``starts`` (its coordinate, a shift t₀ and the value there), the jump of its coordinate
    nearest above (``sign`` +1) or below (−1) t₀, bracketed and bisected (``values[-1]``: the value beyond it); and
    the elements whose search met a replay that diverged, raised or changed the structure (a redraw loop's other
    path: not read)."""
    jobs = {}
    for j, (i, t0, value) in starts.items():
        jobs[j] = _Bracket(j, i, t0, math.nan, _differs_from(value), elements[j].draw, value)
    for k in range(BRACKETS):  # shifts of s/4, s/2, s, … from t₀ until the coordinate moves
        open_ = [b for b in jobs.values() if math.isnan(b.hi) and not b.failed]
        if not open_:
            break
        shifts = {b.element: b.lo + sign * elements[b.element].scale * 2.0 ** (k - 2) for b in open_}
        release = replay(shifts)
        for b in open_:
            if release is None:
                b.failed = True
            elif b.past(float(release[b.coordinate])):
                b.hi = shifts[b.element]
                b.values.append(float(release[b.coordinate]))
    ready = {j: b for j, b in jobs.items() if not math.isnan(b.hi) and not b.failed}
    _bisect(replay, list(ready.values()), BISECTIONS)
    return {j: b for j, b in ready.items() if not b.failed}, {j for j, b in jobs.items() if b.failed}


def _bisect(replay: Replayer, jobs: list[_Bracket], steps: int) -> None:
    """Each job's bracket halved ``steps`` times, all jobs in one replay per step (one element each); a job whose
    value at a midpoint is neither side (NaN), or whose replay fails, is failed; one whose bracket reaches adjacent
    floats of the noise is done."""
    for _ in range(steps):
        live = [b for b in jobs if not b.done and not b.failed]
        for b in live:
            if _adjacent(b.draw + b.lo, b.draw + b.hi):
                b.done = True
        live = [b for b in live if not b.done]
        if not live:
            return
        release = replay({b.element: (b.lo + b.hi) / 2 for b in live})
        for b in live:
            mid = (b.lo + b.hi) / 2
            past = None if release is None else b.past(float(release[b.coordinate]))
            if past is None:
                b.failed = True
            elif past:
                b.hi = mid
                b.values.append(float(release[b.coordinate]))  # type: ignore[index]
            else:
                b.lo, b.below = mid, float(release[b.coordinate])  # type: ignore[index]


def _adjacent(a: float, b: float) -> bool:
    """No float lies strictly between ``a`` and ``b`` (the noise the program reads cannot be placed closer)."""
    low, high = min(a, b), max(a, b)
    return bool(np.nextafter(low, math.inf) >= high)


def read(
    landings: list[Landing],
    on_d: Replayer,
    on_after: Replayer,
    after: np.ndarray,
    scales: dict[int, float],
    epsilon: float | None = None,
    elements: list[Noise] | None = None,
) -> dict[int, Reading]:
    """Per element, the neighbour's reading of its landing (module notes): ``on_d`` and ``on_after`` replay D and
    D′ with D's draws shifted, ``after`` is D′'s release at D's draws, ``scales`` each element's scale on D′;
    ``epsilon``: the claim's, where a rescaled call's tails are read (None: they are not); ``elements``: every
    noise element (where there are two or more), to name on D′ the element that moves each landing's coordinate
    (:func:`elements_named`): one another element moves on D′ is not read there."""
    out: dict[int, Reading] = {}
    usable = [L for L in landings if L.coordinate < after.size and 0 < scales.get(L.element, math.nan) < math.inf]
    finite = [L for L in usable if math.isfinite(float(after[L.coordinate]))]
    if finite and elements is not None and len(elements) > 1:
        named = elements_named(on_after, after, [L.coordinate for L in finite], elements)
        finite = [L for L in finite if named.get(L.coordinate) == L.element]
    out.update(_non_finite(on_after, [L for L in usable if L not in finite]))
    crossings = _crossings(on_after, finite, after, scales)
    plans = [_planned(L, b, scales[L.element], epsilon) for L, b in crossings.items()]
    _check(on_d, on_after, plans)
    for plan in plans:
        reading = plan.reading()
        if reading is not None:
            out[plan.landing.element] = reading
    return out


def _non_finite(on_after: Replayer, landings: list[Landing]) -> dict[int, Reading]:
    """The landings whose coordinate is non-finite on D′ at D's draws and at shifts of ±8 scales: an infinite
    shift (the coordinate is finite on D)."""
    if not landings:
        return {}
    far = [on_after({L.element: sign * 8 * L.scale for L in landings}) for sign in (1.0, -1.0)]
    out = {}
    for L in landings:
        if all(r is not None and not math.isfinite(float(r[L.coordinate])) for r in far):
            out[L.element] = Reading(L, math.inf, math.inf)
    return out


def _crossings(
    on_after: Replayer, landings: list[Landing], after: np.ndarray, scales: dict[int, float]
) -> dict[Landing, _Bracket]:
    """Per landing, where D′ crosses the level of D's upper jump (its value at D's draws), bisected from a bracket
    put where the grid predicts it: the value's move in grid steps, times the width (rescaled by the scale's ratio:
    the replay stretches the recorded noise to D′'s scale)."""
    predicted = _predicted(landings, after, scales)
    jobs = {L: _Bracket(L.element, L.coordinate, math.nan, math.nan, _past(L, L.value), L.draw) for L in predicted}
    unmoved = [L for L in jobs if float(after[L.coordinate]) == L.value]
    # D's own bracket first, where D′'s value is D's: two replays where it holds, not a bisection
    _bracketed(on_after, {L: L.up for L in unmoved}, jobs, done=True)
    for reach in (1.5, 8.0):  # a bracket of ±1.5 widths, then of ±8
        centre = {L: predicted[L][0] for L in _unbracketed(jobs)}
        _bracketed(
            on_after,
            {L: (c - reach * predicted[L][1], c + reach * predicted[L][1]) for L, c in centre.items()},
            jobs,
        )
    _searched(on_after, _unbracketed(jobs), jobs, predicted)
    ready = {L: jobs[L] for L in jobs if L not in _unbracketed(jobs)}
    _bisect(on_after, list(ready.values()), BISECTIONS)
    return {L: b for L, b in ready.items() if not b.failed}


def _predicted(
    landings: list[Landing], after: np.ndarray, scales: dict[int, float]
) -> dict[Landing, tuple[float, float]]:
    """Per landing whose move is finite and width positive, where the grid predicts D′'s crossing (the shift) and
    the width of a cell on D′ (the replay stretches the recorded noise to D′'s scale)."""
    predicted = {}
    for L in landings:
        width = L.width * (L.scale / scales[L.element])
        steps = L.direction * (float(after[L.coordinate]) - L.value) / L.grid
        if math.isfinite(steps) and width > 0:
            predicted[L] = ((L.up[0] + L.up[1]) / 2 - steps * width, width)
    return predicted


def _unbracketed(jobs: dict[Landing, _Bracket]) -> list[Landing]:
    """The landings whose bracket is not closed yet (either end unknown)."""
    return [L for L, b in jobs.items() if math.isnan(b.lo) or math.isnan(b.hi)]


def _bracketed(
    on_after: Replayer, ends: dict[Landing, tuple[float, float]], jobs: dict[Landing, _Bracket], done: bool = False
) -> None:
    """Each landing's bracket of shifts ``ends`` tried on D′ (two replays for all): kept where its lower end is not
    past the level and its upper end is (``done``: already as narrow as D's, no bisection)."""
    if not ends:
        return
    low = on_after({L.element: t[0] for L, t in ends.items()})
    high = on_after({L.element: t[1] for L, t in ends.items()})
    if low is None or high is None:
        return
    for L, (lo, hi) in ends.items():
        b, below, above = jobs[L], float(low[L.coordinate]), float(high[L.coordinate])
        if b.past(below) is False and b.past(above) is True:
            b.lo, b.hi, b.below, b.values, b.done = lo, hi, below, [above], done


def _searched(on_after: Replayer, landings: list[Landing], jobs: dict[Landing, _Bracket], predicted: dict) -> None:
    """Where the grid's prediction misses (D′'s value says nothing of the shift: both clamped), the level searched
    from the prediction outwards, by s/4, s/2, s, … (:data:`BRACKETS` + 4 replays at most), towards the side the
    level is on."""
    if not landings:
        return
    at = on_after({L.element: predicted[L][0] for L in landings})
    if at is None:
        return
    start = {L: (predicted[L][0], jobs[L].past(float(at[L.coordinate])), float(at[L.coordinate])) for L in landings}
    open_ = [L for L in landings if start[L][1] is not None]
    for k in range(BRACKETS + 4):
        if not open_:
            return
        shifts = {L: start[L][0] + (-1 if start[L][1] else 1) * L.scale * 2.0 ** (k - 2) for L in open_}
        release = on_after({L.element: shifts[L] for L in open_})
        if release is None:
            return
        for L in list(open_):
            value, b = float(release[L.coordinate]), jobs[L]
            past = b.past(value)
            if past is None:
                open_.remove(L)
            elif past != start[L][1]:
                t0, was, seen = start[L]
                b.lo, b.hi, b.below, b.values = (
                    (t0, shifts[L], seen, [value]) if past else (shifts[L], t0, value, [seen])
                )
                open_.remove(L)


def _past(L: Landing, level: float) -> Callable[[float], bool | None]:
    """Whether a value is past ``level`` in the landing's direction (None: NaN, on no side)."""

    def past(value: float) -> bool | None:
        return None if math.isnan(value) else L.direction * value > L.direction * level

    return past


@dataclass
class _Plan:
    """One landing's reading in the making: the first edge on D and on D′ (noise units), the shift's interval,
    whether D′'s values are D's so far, and the further edges to check (shift brackets on D and on D′)."""

    landing: Landing
    first: tuple[float, float]
    first_after: tuple[float, float]
    same: bool
    checks: list[tuple[tuple[float, float], tuple[float, float]]]
    scale_after: float
    edges: list[tuple[float, float]] = field(default_factory=list)
    edges_after: list[tuple[float, float]] = field(default_factory=list)
    levels: list[float] = field(default_factory=list)
    #: the checks put in a rescaled call's tails, and whether each edge verified is one of them
    tail_checks: set[int] = field(default_factory=set)
    tail: list[bool] = field(default_factory=list)

    @property
    def low(self) -> float:
        return _down(self.first[0] - self.first_after[1])

    @property
    def high(self) -> float:
        return _up(self.first[1] - self.first_after[0])

    def reading(self) -> Reading | None:
        """The reading, its edges in increasing order; None where D's levels are not in the edges' order (not a
        monotone step function where sampled)."""
        L = self.landing
        edges, edges_after, levels = [self.first, *self.edges], [self.first_after, *self.edges_after], self.levels
        order = np.argsort([e[0] for e in edges], kind="stable")
        ordered = [L.direction * [L.value, *levels][i] for i in order]
        if any(b <= a for a, b in zip(ordered, ordered[1:])):
            return None
        edges_sorted = tuple(edges[i] for i in order)
        tails = tuple(g for g, i in enumerate(order) if [False, *self.tail][i])
        after = tuple(edges_after[i] for i in order)
        return Reading(L, self.low, self.high, edges_sorted, after, self.same, self.stretch, tails)

    @property
    def stretch(self) -> float:
        """D's scale over D′'s."""
        return self.landing.scale / self.scale_after


def _planned(L: Landing, crossing: _Bracket, scale: float, epsilon: float | None) -> _Plan:
    """The reading of one landing from D′'s crossing of its first level, and the further edges to check: predicted
    k widths from the first, in a bracket covering the width's error k-fold, the first's bracket and :data:`SLOP`;
    where the call is rescaled and ``epsilon`` given, the tails' edges too (:func:`.tail_edges.tail_edges`)."""
    same = scale == L.scale and _identical(crossing.below, L.under) and _identical(crossing.values[-1], L.above)
    first_after = noise_bracket(L.draw, (crossing.lo, crossing.hi))
    plan = _Plan(L, noise_bracket(L.draw, L.up), first_after, same, [], scale)
    stretch = L.scale / scale
    centre, centre_after = (L.up[0] + L.up[1]) / 2, (crossing.lo + crossing.hi) / 2
    ks = _chosen(L, (plan.low + plan.high) / 2)
    if epsilon is not None and stretch != 1.0:
        firsts = (sum(plan.first) / 2, sum(plan.first_after) / 2)
        tails = tail_edges.tail_edges(L.law, L.scale, firsts, (L.width, L.width * stretch), epsilon)
        plan.tail_checks = {len(ks) + n for n in range(len(tails))}
        ks += tails
    for k in ks:
        u = abs(k) * L.width_error + (L.up[1] - L.up[0]) + SLOP * L.width
        u_after = abs(k) * L.width_error * stretch + (crossing.hi - crossing.lo) + SLOP * L.width * stretch
        t, t_after = centre + k * L.width, centre_after + k * L.width * stretch
        plan.checks.append(((t - u, t + u), (t_after - u_after, t_after + u_after)))
    return plan


def _check(on_d: Replayer, on_after: Replayer, plans: list[_Plan]) -> None:
    """Each plan's further edges checked, the n-th of every plan in the same four replays (two on D, two on D′):
    an edge holds where D's values at its bracket's ends are on either side of the lower one (its level) and D′'s
    too; D′'s values must also be D's for the grid to be the same."""
    for n in range(max((len(p.checks) for p in plans), default=0)):
        group = [p for p in plans if n < len(p.checks)]
        ends = [
            replayer({p.landing.element: p.checks[n][side][end] for p in group})
            for replayer, side in ((on_d, 0), (on_after, 1))
            for end in (0, 1)
        ]
        if any(r is None for r in ends):
            continue
        for p in group:
            i = p.landing.coordinate
            a, b, a_after, b_after = (float(r[i]) for r in ends)  # type: ignore[index]
            past = _past(p.landing, a)
            if not (math.isfinite(a) and past(b) is True and past(a_after) is False and past(b_after) is True):
                continue
            p.same = p.same and _identical(a_after, a) and _identical(b_after, b)
            p.edges.append(noise_bracket(p.landing.draw, p.checks[n][0]))
            p.edges_after.append(noise_bracket(p.landing.draw, p.checks[n][1]))
            p.levels.append(a)
            p.tail.append(n in p.tail_checks)


def _chosen(L: Landing, shift: float) -> list[int]:
    """The further edges (k jumps from D's first) placed where the two laws' loss varies: between the noise's centre
    on D (η = 0) and on D′ (η = d), one width beyond, and 1.5 scales beyond for a Gaussian; at most :data:`EDGES`,
    evenly spread."""
    margin = L.width + (1.5 * L.scale if L.law == "gaussian" else 0.0)
    first = L.draw + (L.up[0] + L.up[1]) / 2  # the first edge, in noise units
    start = math.ceil((min(0.0, shift) - margin - first) / L.width)
    stop = math.floor((max(0.0, shift) + margin - first) / L.width)
    ks = [k for k in range(start, stop + 1) if k != 0] if stop - start < 4 * EDGES else []
    if not ks:
        ks = sorted({int(round(k)) for k in np.linspace(start, stop, EDGES)} - {0})
    if len(ks) > EDGES:
        ks = [ks[int(round(i))] for i in np.linspace(0, len(ks) - 1, EDGES)]
    return ks


def noise_bracket(draw: float, shifts: tuple[float, float]) -> tuple[float, float]:
    """The edge's bracket in noise units: what the program reads at the bracket's ends (fl(draw + t))."""
    return (float(np.float64(draw) + np.float64(shifts[0])), float(np.float64(draw) + np.float64(shifts[1])))


def _down(x: float) -> float:
    return float(np.nextafter(x, -math.inf))


def _up(x: float) -> float:
    return float(np.nextafter(x, math.inf))
