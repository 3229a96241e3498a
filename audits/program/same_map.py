"""Whether the release is the same post-processing of the noise on D and on D′ (issue 83, item 3): R_D′(η) =
R_D(η + Δ) across the noise's range, checked by replay.

**Why.**  The upper composition credits a pair's release with the privacy of its noise: where R_D′(η) = R_D(η + Δ)
for every η (R_X(η): the release on X with the noise elements set to η, every other draw as recorded; Δ the pair's
shifts), the release on D′ is D's map applied to the noise shifted by Δ, a post-processing of the shifted noise, so
its δ(ε) is at most the composition of the elements' shifted laws (Dwork & Roth 2014, Prop. 2.1).  The probe
(:mod:`.trace`) reads the release near the recorded draws only, where a map that moves with the data may look
affine on both sides: ``max(s + η, s)`` is s + η at a positive draw on D and on D′, yet it has an atom at s on D and
none at s on D′ = D with s + 1 (ε = ∞).

**What is replayed.**  One line through the recorded draws: element j at u_j = η_j + λ·b_j (η_j its recorded draw,
b_j its scale; an element of scale 0 stays at its draw, one on an integer lattice moves by whole numbers), λ in
[−Λ, Λ], Λ where the law's mass beyond is below the smallest double (:data:`.carried_events.RANGE_REACH`).  Every
element moves by the same number of its scales, so two noisy values compare at every λ as they do at the recorded
draws (a branch on which of two noisy counts is larger keeps its path), and each sits at a draw as generic as the
recorded one.  **On D, once per draw set** (:class:`Line`): the release on the grid :data:`GRID`, then each place
where a coordinate changes slope or jumps, or the release's structure or path changes, located to a bracket of
:data:`BRACKET`·(1 + |λ|); a run of more changes (a rounding's steps) is left at the grid's points.  **On D′, per
pair** (:func:`check`): the release at each sample λ with the noise at u(λ) − Δ̂, compared with D's at u(λ); the
first sample that differs ends the check, a finding (:class:`Moved`).  A pair costs one replay per sample: three for
a release affine across the range, seven for a clamp at two constants.

**Compared how.**  Two outcomes agree where both leave the recorded path alike (the same diverging call, the same
fault) or where the structures are equal and every coordinate is within :func:`.replay_bounds.map_bound`: its slope
A in the noise (the probe's coefficient, and the secants of D's samples beside the sample, over the element's
scale) times the mismatch m of the two noisy values (the shift's proven error plus the rounding of forming
fl(η₀ + t) on each side), plus the two computations' rounding.  No other tolerance: NaN agrees with NaN, ±∞ with
itself.

**Sound for** a release whose difference f(λ) = R_D′(u(λ) − Δ) − R_D(u(λ)) is, coordinate by coordinate, affine
between consecutive samples: f is then 0 on the whole range where it is 0 at the samples (an affine function 0 at
two points is 0 between), so R_D′ = R_D(· + Δ) there and the post-processing argument holds, up to the mass outside
the range and inside the brackets.  That holds where R_D and R_D′ are piecewise affine along the line with their
changes among D's located ones, or moving one of them, or adding one whose effect reaches a sample (a slope changed
for good, a jump that stays).  What is left: a piece of R_D narrower than the grid's step there is not seen on D;
a change of R_D′ that R_D lacks and that is undone before the next sample (a notch between two samples) is missed;
for several elements the check follows one line through the noise: a coordinate that mixes several (a sum of noisy
counts, a sort) is checked on that line only.  A slope A too large reads a rounding as a moved map (a finding, never
a pass).  Pairs with another finding already, an unread or infinite shift, a rescaled call, or a lattice element
moved off its lattice are not checked (none is certified on its composition alone).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.audits.program import probing, trace
from pdp_audit.audits.program.carried_events import RANGE_REACH
from pdp_audit.audits.program.comparison import Comparison, Moved
from pdp_audit.audits.program.events import Event
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.replay_bounds import COMPARISON_OPERATIONS, NOISE_OPERATIONS, map_bound
from pdp_audit.audits.program.through import THROUGH
from pdp_audit.mechanisms.rounding import gamma

#: The grid on D, in scales from the recorded draws (both signs, and 0): a quarter scale apart within one, then wider,
#: doubling from 16.
GRID = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0, 128.0, 256.0)
#: A located change's bracket, in λ, as a share of 1 + |λ| (:data:`.carried_events.BRACKET`'s width).
BRACKET = 2.0**-20
#: Changes located by bisection per draw set at most: past them the release is compared at the grid's points.
MOST_CHANGES = 8
#: Bisection replays on D per draw set at most (a change takes about twenty).
MOST_BISECTIONS = 256
#: The placement's collinearity test, as a multiple of its rounding estimate: it places samples, decides nothing.
LOOSE = 64.0

#: One replay's outcome: the release's structure and numbers, or how it left the recorded path (a string).
Outcome = Any


@dataclass
class Line:
    """D's release along the line (module notes), a cache filled once per draw set on its first checked pair
    (:meth:`read`): the samples a pair is checked at (``samples``, the range's ends first), D's outcome at each and,
    per coordinate, the bound of its slope in λ beside each (``slopes``); ``reach`` Λ; per element its scale b_j
    (0: not moved), whether it moves by whole numbers (``whole``: on a lattice) and its recorded draw ``eta``."""

    recorded: trace.Run
    found: trace.Probe
    reach: float = 0.0
    scales: np.ndarray = field(default_factory=lambda: np.zeros(0))
    whole: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    eta: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: per element, the unit roundoff of its noise's floats (2⁻⁵³ for doubles, 2⁻²⁴ for a tensor's float32: the
    #: shifted noise is rounded to them)
    unit: np.ndarray = field(default_factory=lambda: np.zeros(0))
    samples: tuple[float, ...] = ()
    on_d: dict[float, Outcome] = field(default_factory=dict)
    slopes: dict[float, np.ndarray] = field(default_factory=dict)
    done: bool = False

    @staticmethod
    def of(recorded: trace.Run, found: trace.Probe) -> Line:
        n = len(found.elements)
        columns = found.columns()
        scale = columns.scale if n else np.zeros(0)
        usable = (scale > 0) & np.isfinite(scale)
        lattice = np.array([bool(recorded.calls[e.call].lattice) for e in found.elements])
        laws = set(columns.law.tolist()) if n else set()
        reach = RANGE_REACH["gaussian"] if laws <= {"gaussian"} else RANGE_REACH["laplace"]
        eta = probing.draws(recorded.calls, found.grouped(), n)
        scales = np.where(usable, scale, 0.0)
        unit = np.array([_unit_roundoff(recorded.calls[e.call].noise) for e in found.elements]).reshape(n)
        return Line(recorded, found, reach, scales, lattice.astype(bool).reshape(n), eta, unit)

    def shifts(self, position: float) -> np.ndarray:
        """D's perturbation at λ = ``position``: t_j = λ·b_j, the noise at η_j + λ·b_j (0 for an element of scale 0;
        whole numbers on a lattice)."""
        t = position * self.scales
        return np.where(self.whole, np.round(t), t)

    def read(self, replay: Callable[[np.ndarray], Outcome]) -> None:
        """D's outcomes along the line and the samples (module notes), once."""
        if self.done:
            return
        self.done = True
        grid = sorted({0.0, self.reach, -self.reach, *GRID, *(-g for g in GRID)})
        seen = {x: replay(self.shifts(x)) for x in grid}
        changes = _changes(grid, seen, self._tolerance)
        located = _located(grid, seen, changes, lambda x: replay(self.shifts(x)), self._tolerance)
        self.samples, inside = _samples(grid, located)
        self.on_d = {x: seen[x] for x in self.samples}
        self.slopes = _slopes(self.samples, seen, inside)

    def _tolerance(self, points: list[tuple[float, np.ndarray]]) -> np.ndarray:
        """The placement's collinearity tolerance per coordinate at ``points`` ((λ, numbers) each): :data:`LOOSE`
        times the rounding of three values and of their noise's size (module notes); it places, never decides."""
        values = sum(np.abs(y) for _, y in points)
        found = self.found
        size = np.zeros(points[0][1].size)
        carried = found.carrier >= 0
        span = max(abs(x) for x, _ in points) + 1.0
        if carried.any() and size.size == carried.size:  # the recorded release's structure: its carriers are known
            element = found.carrier[carried]
            size[carried] = np.abs(found.coefficient[carried]) * (found.size[element] + span * self.scales[element])
        with np.errstate(all="ignore"):
            slope = np.abs(points[-1][1] - points[0][1]) / max(points[-1][0] - points[0][0], 1e-300)
        return LOOSE * gamma(NOISE_OPERATIONS + COMPARISON_OPERATIONS) * (values + 3 * (size + slope * span))


def _unit_roundoff(noise: Any) -> float:
    """The unit roundoff of a call's noise as the program reads it: its dtype's where it is a float narrower than a
    double (a tensor's float32), else a double's."""
    dtype = getattr(noise, "dtype", None)
    try:
        kind = np.dtype(str(dtype).removeprefix("torch.")) if dtype is not None else np.dtype(float)
    except TypeError:
        kind = np.dtype(float)
    return {np.dtype(np.float32): 2.0**-24, np.dtype(np.float16): 2.0**-11}.get(kind, 2.0**-53)


def _numbers(outcome: Outcome, like: Outcome) -> np.ndarray | None:
    """``outcome``'s numbers where it is a release of ``like``'s structure (None elsewhere)."""
    if isinstance(outcome, str) or isinstance(like, str) or outcome[0] != like[0]:
        return None
    return outcome[1] if outcome[1].size == like[1].size else None


def _kind(outcome: Outcome) -> Any:
    """What must be equal for two outcomes to be compared as numbers: the path left, or the structure."""
    return outcome if isinstance(outcome, str) else (outcome[0], outcome[1].size)


def _off_line(points: list[tuple[float, np.ndarray]], tolerance: Callable) -> np.ndarray:
    """Per coordinate, whether the middle of three (λ, numbers) points is off the line through the outer two."""
    (x0, y0), (x1, y1), (x2, y2) = points
    with np.errstate(all="ignore"):
        predicted = y0 + (y2 - y0) * ((x1 - x0) / (x2 - x0))
        both_nan = np.isnan(y1) & np.isnan(predicted)
        return ~both_nan & ~(np.abs(y1 - predicted) <= tolerance(points)) & ~((y1 == predicted) & np.isinf(y1))


def _changes(grid: list[float], seen: dict[float, Outcome], tolerance: Callable) -> list[tuple[str, int]]:
    """Where D's release changes along the grid: ("kind", k) where the outcomes at grid[k] and grid[k + 1] are of
    other kinds, ("off", k) where grid[k] is off the line through its neighbours (three of one kind)."""
    out: list[tuple[str, int]] = []
    for k in range(len(grid) - 1):
        if _kind(seen[grid[k]]) != _kind(seen[grid[k + 1]]):
            out.append(("kind", k))
    for k in range(1, len(grid) - 1):
        trio = [seen[grid[k - 1]], seen[grid[k]], seen[grid[k + 1]]]
        numbers = [y for y in (_numbers(o, trio[0]) for o in trio) if y is not None]
        if len(numbers) < 3:
            continue
        points = [(grid[k + d], numbers[d + 1]) for d in (-1, 0, 1)]
        if bool(_off_line(points, tolerance).any()):
            out.append(("off", k))
    return out


@dataclass(frozen=True)
class Located:
    """What D's reading located: the brackets (lo, hi) of the changes, and the grid runs left at the grid's points
    (their first and last grid index)."""

    brackets: tuple[tuple[float, float], ...]
    runs: tuple[tuple[int, int], ...]


def _located(
    grid: list[float], seen: dict[float, Outcome], changes: list[tuple[str, int]], replay: Callable, tolerance: Callable
) -> Located:
    """Each change bracketed (module notes), D's outcomes at the brackets' ends added to ``seen``: an isolated point
    off its line, by two replays beside it; two adjacent points off their lines, or a change of kind, by bisection
    between the lines (or kinds) on either side; anything else -- or more than :data:`MOST_CHANGES` -- left at the
    grid's points."""
    offs = sorted({k for kind, k in changes if kind == "off"})
    kinds = sorted({k for kind, k in changes if kind == "kind"})
    tasks, runs = _tasks(offs, kinds, len(grid))
    if len(tasks) > MOST_CHANGES:
        return Located((), ((0, len(grid) - 1),))
    brackets: list[tuple[float, float]] = []
    budget = [MOST_BISECTIONS]
    for task in tasks:
        bracket = _bracketed(grid, seen, task, replay, (tolerance, budget))
        if bracket is None:
            runs.append((max(task[1] - 1, 0), min(task[1] + 2, len(grid) - 1)))
        else:
            brackets.append(bracket)
    return Located(tuple(sorted(brackets)), tuple(sorted(runs)))


def _tasks(offs: list[int], kinds: list[int], size: int) -> tuple[list[tuple[str, int]], list[tuple[int, int]]]:
    """The changes to bracket -- ("vertex", k): grid[k] alone off its line; ("between", k): a change inside
    (grid[k], grid[k + 1]) -- and the runs left at the grid's points (module notes)."""
    tasks: list[tuple[str, int]] = []
    runs: list[tuple[int, int]] = []
    blocks: list[list[int]] = []
    for k in offs:
        if blocks and k == blocks[-1][-1] + 1:
            blocks[-1].append(k)
        else:
            blocks.append([k])
    for block in blocks:
        if len(block) == 1:
            tasks.append(("vertex", block[0]))
        elif len(block) == 2:
            tasks.append(("between", block[0]))
        else:
            runs.append((block[0] - 1, block[-1] + 1))
    for k in kinds:
        if not any(a <= k < b for a, b in runs) and ("between", k) not in tasks:
            tasks.append(("between", k))
    return tasks, runs


def _bracketed(
    grid: list[float], seen: dict[float, Outcome], task: tuple[str, int], replay: Callable, limits: tuple
) -> tuple[float, float] | None:
    """One change's bracket (``task``, :func:`_tasks`), its ends' outcomes added to ``seen``; None where the lines
    on either side do not explain the replays (more than one change), or past the bisection budget."""
    tolerance, budget = limits
    how, k = task
    if how == "vertex":
        centre = grid[k]
        half = BRACKET * (1.0 + abs(centre))
        lo, hi = centre - half, centre + half
        seen[lo], seen[hi] = replay(lo), replay(hi)
        left, right = (grid[k - 1], grid[k]), (grid[k], grid[k + 1])
        ok = _side(seen, left, lo, tolerance) == "on" and _side(seen, right, hi, tolerance) == "on"
        return (lo, hi) if ok else None
    left = (grid[k - 1], grid[k]) if k >= 1 else (grid[k], grid[k])
    right = (grid[k + 1], grid[k + 2]) if k + 2 < len(grid) else (grid[k + 1], grid[k + 1])
    lo, hi = grid[k], grid[k + 1]
    while hi - lo > BRACKET * (1.0 + max(abs(lo), abs(hi))):
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        middle = lo + (hi - lo) / 2
        seen[middle] = replay(middle)
        on_left, on_right = _side(seen, left, middle, tolerance), _side(seen, right, middle, tolerance)
        if on_left == "on" and on_right != "on":
            lo = middle
        elif on_right == "on" and on_left != "on":
            hi = middle
        elif on_left == "on":  # on both lines: their crossing, a continuous change
            lo = middle
        else:
            return None
    return (lo, hi)


def _side(seen: dict[float, Outcome], line: tuple[float, float], at: float, tolerance: Callable) -> str:
    """Whether D's outcome at ``at`` lies on the line through D's outcomes at ``line``'s two points ("on"), or not:
    of their kind and on it (within the placement's tolerance), every coordinate; a line of one point (the grid's
    end) asks the kind only."""
    a, b = line
    first, second, here = seen[a], seen[b], seen[at]
    if _kind(here) != _kind(first) or _kind(first) != _kind(second):
        return "off"
    if isinstance(here, str) or a == b:
        return "on"
    y0, y1, y = _numbers(first, first), _numbers(second, first), _numbers(here, first)
    if y0 is None or y1 is None or y is None:
        return "off"
    points = sorted([(a, y0), (b, y1), (at, y)], key=lambda p: p[0])
    return "off" if bool(_off_line(points, tolerance).any()) else "on"


def _samples(grid: list[float], located: Located) -> tuple[tuple[float, ...], list[tuple[float, float]]]:
    """The samples a pair is checked at (module notes): the range's ends first, the recorded draws (λ = 0), both ends
    of each bracket and the grid's points of each run; and the brackets (each pair of samples across one change,
    between which no secant is read)."""
    brackets = list(located.brackets)
    out = [grid[0], grid[-1]]
    if not any(lo < 0.0 < hi for lo, hi in brackets):
        out.append(0.0)
    for lo, hi in brackets:
        out += [lo, hi]
    for first, last in located.runs:
        out += grid[first : last + 1]
    return tuple(dict.fromkeys(out)), brackets


def _slopes(
    samples: tuple[float, ...], seen: dict[float, Outcome], brackets: list[tuple[float, float]]
) -> dict[float, np.ndarray]:
    """Per sample, per coordinate, the largest |secant| in λ between it and its neighbours among D's outcomes of its
    kind, no secant read across a bracket (0 where there is none)."""
    points = sorted(seen)
    across = set(brackets)
    out = {}
    for x in samples:
        k = points.index(x)
        here = _numbers(seen[x], seen[x])
        if here is None:
            out[x] = np.zeros(0)
            continue
        slope = np.zeros(here.size)
        for other in (points[k - 1] if k > 0 else None, points[k + 1] if k + 1 < len(points) else None):
            if other is None or (min(x, other), max(x, other)) in across:
                continue
            there = _numbers(seen[other], seen[x])
            if there is None:
                continue
            with np.errstate(all="ignore"):
                secant = np.abs(there - here) / abs(other - x)
            slope = np.fmax(slope, np.where(np.isfinite(secant), secant, 0.0))
        out[x] = slope
    return out


def check(session: trace.Session, datasets: tuple[Any, Any], line: Line, c: Comparison) -> Comparison:
    """``c`` with its release checked to be D's map at the noise shifted by its Δ (module notes), ``datasets`` (D, D′):
    a new comparison, the samples compared its ``map_samples``, the first that differs its ``map_moved`` -- one away
    from the recorded draws ends the check; one at them is kept, and the samples away from them still compared."""
    found = line.found
    read = _read_shifts(c, found) if _checkable(c, found) else None
    if read is None:
        return c
    shift, error = read
    data, neighbour = datasets
    line.read(lambda t: _outcome(session, data, line.recorded.calls, found.perturbation(t)))
    samples, first = 0, None
    for position in line.samples:
        on_d, t = line.on_d[position], line.shifts(position)
        with np.errstate(all="ignore"):
            moved = t - shift
        if line.whole.any() and not np.array_equal(moved[line.whole], np.round(moved[line.whole])):
            break  # a lattice element off its lattice: not checked
        other = _outcome(session, neighbour, line.recorded.calls, found.perturbation(moved))
        samples += 1
        differs = _differs(on_d, other, _bound_of(line, c, (position, t, moved, error)))
        if differs is not None:
            with np.errstate(all="ignore"):
                far = float(np.max(np.abs(shift) / np.where(line.scales > 0, line.scales, 1.0), initial=0.0))
            first = Moved(position, *differs, moved=far / (1.0 + far))
            if position != 0:  # away from the recorded draws: the shifts read there do not hold across the range
                break
    return dataclasses.replace(c, map_samples=c.map_samples + samples, map_moved=first)


def _checkable(c: Comparison, found: trace.Probe) -> bool:
    """Whether the pair is checked: it replayed with no finding of its own yet, every element's shift read and
    finite, no call rescaled (module notes)."""
    if c.replayed is None or c.divergence is not None or c.fault is not None or c.structure_differs:
        return False
    if c.free_differ or c.noisy_differ or c.inconsistent or c.coefficient_changed or c.carriers_moved:
        return False
    if c.replayed.rescaled or not found.elements or not found.reproducible:
        return False
    if len(c.source) != len(found.elements) or "none" in c.source:
        return False
    return bool(np.isfinite(c.shifts).all())


def _read_shifts(c: Comparison, found: trace.Probe) -> tuple[np.ndarray, np.ndarray] | None:
    """Per element, its shift Δ̂ and a proven bound on |Δ̂ − Δ| (module notes); None where one has none."""
    shift = np.asarray(c.shifts, dtype=float).copy()
    error = (
        np.where(np.isfinite(c.bounds), c.bounds, math.inf)
        if c.bounds.size == shift.size
        else np.full(shift.size, math.inf)
    )
    for j, exact in c.exact.items():
        shift[j] = float(exact)
        error[j] = abs(float(Fraction(shift[j]) - exact))  # the float nearest a rational: within half an ulp
        error[j] = math.ulp(shift[j]) if error[j] else 0.0
    for j, reading in c.landings.items():
        shift[j] = reading.shift
        error[j] = max(reading.high - shift[j], shift[j] - reading.low) * (1 + gamma(4))
    for j, bound in c.through_bounds.items():
        if c.source[j] == THROUGH and j not in c.exact:
            error[j] = bound
    return (shift, error) if bool(np.isfinite(error).all()) else None


def _outcome(session: trace.Session, data: Any, calls: Sequence[Event], perturbation: dict) -> Outcome:
    """The release replayed at ``perturbation``: (structure, numbers), or how it left the recorded path."""
    try:
        run = trace.replay(session, data, calls, perturbation)
    except Divergence as divergence:
        return f"diverged at call {divergence.index}"
    except trace.ProgramFault as fault:  # the exception's kind and line: its message may print the noisy value
        return f"raised {str(fault).partition(':')[0]} at {fault.place}"
    return (run.structure, run.numbers)


def _bound_of(line: Line, c: Comparison, at: tuple) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The comparison's bound per coordinate at one sample (:func:`.replay_bounds.map_bound`; ``at``: its λ, D's and
    D′'s perturbations and the shifts' errors)."""
    position, t, moved, error = at
    found = line.found
    n = len(found.elements)
    with np.errstate(all="ignore"):
        read_d, read_d_prime = line.eta + t, line.eta + moved
        mismatch = (error + line.unit * (np.abs(moved) + np.abs(read_d) + np.abs(read_d_prime))) * (1 + gamma(4))
    loc = probing.location_sizes(line.recorded.calls, found.grouped(), n)
    loc_after = probing.location_sizes(c.replayed.calls, found.grouped(), n) if c.replayed is not None else loc
    sizes = loc + loc_after + np.abs(read_d) + np.abs(read_d_prime)
    element = _elements_of(found, c)
    scale = np.where(line.scales > 0, line.scales, math.inf)
    smallest = int(np.argmin(scale)) if n else 0
    index = np.where(element >= 0, element, smallest)
    along = line.slopes.get(position, np.zeros(0))
    probe = np.abs(found.coefficient)

    def bound(before: np.ndarray, after: np.ndarray) -> np.ndarray:
        secant = along if along.size == before.size else np.zeros(before.size)
        if before.size != element.size:  # another structure than the recorded release's: no coordinate's element
            slope = np.fmax(probe.max(initial=0.0), secant / scale[smallest] if n else 0.0)
            return map_bound((before, after), slope, sizes.max(initial=0.0), mismatch.max(initial=0.0))
        slope = np.fmax(probe, secant / scale[index])
        m = np.where(element >= 0, mismatch[index], mismatch.max(initial=0.0))
        s = np.where(element >= 0, sizes[index], sizes.max(initial=0.0))
        return map_bound((before, after), slope, s, m)

    return bound


def _elements_of(found: trace.Probe, c: Comparison) -> np.ndarray:
    """Per coordinate, the element it is a map of: its carrier, a landing's element, else −1 (any)."""
    element = np.where(found.carrier >= 0, found.carrier, -1)
    for reading in c.landings.values():
        element[reading.landing.coordinate] = reading.landing.element
    return element


def _differs(on_d: Outcome, other: Outcome, bound: Callable) -> tuple[int, str, str, int] | None:
    """Where D′'s outcome is not D's (module notes): (first coordinate, its values on D and D′, how many), −1 for
    the structure or the path; None where they agree."""
    if isinstance(on_d, str) or isinstance(other, str):
        return None if on_d == other else (-1, _said(on_d), _said(other), 1)
    if on_d[0] != other[0] or on_d[1].size != other[1].size:
        return (-1, "a release of one structure", "another structure", 1)
    before, after = on_d[1], other[1]
    with np.errstate(all="ignore"):
        same = (np.isnan(before) & np.isnan(after)) | (before == after)
        same |= np.abs(after - before) <= bound(before, after)
    apart = np.flatnonzero(~same)
    if not apart.size:
        return None
    i = int(apart[0])
    return (i, f"{before[i]:.17g}", f"{after[i]:.17g}", int(apart.size))


def _said(outcome: Outcome) -> str:
    return outcome if isinstance(outcome, str) else "a release"
