"""A noise element's shift between D and D′ as the exact composition of a pure claim needs it: its exact value, or a
proven interval of it.

**Why.**  A pure claim is certified where the steps' exact pure ε add up to at most ε, decided in rationals
(:func:`.accounting.certified`).  A shift read off the release, ŝ = (R_i(D′) − R_i(D))/a, carries the rounding of
the program's arithmetic after the noise: a count moved by 1 under noise of magnitude 10³ reads as 1 ± 2⁻⁴³, so a
composition at exactly ε reads a hair above it.  Each element's μ is therefore taken as an interval
(:func:`mu_interval`): exact where the shift is known exactly, else ŝ within its proven rounding bound e
(:func:`.replay_bounds.shift_bound`, in :attr:`.comparison.Comparison.bounds`), else unbounded above.  A sum whose
interval straddles ε leaves the pair undecided (:attr:`.accounting.Composed.rounding`), never certified; such a
pair's shifts are then read exactly (:func:`read`).

**The exact reading** (:func:`read`).  The program is replayed on D and on D′ with every noise element the probe
shifts set to 0 (the recorded draw η_j plus −η_j: exactly 0), every other draw as recorded.  A coordinate that
carries element j with coefficient 1 (read as 1 to the probe's proven error: :func:`unit_coordinates`) is then the
value x the noise is added to, to the last bit (fl(x + 0) = x), on D and x′ on D′; the shift is x′ − x in
rationals (``Fraction``), exactly, made only where x′ and x differ (the zeros of 10⁵ unmoved bins are one shared
0).  The reading is taken only where both replays keep the release's structure and, at the recorded draw, one float
addition gives the recorded coordinates bit for bit on both sides: fl(x + η_j) = R_i(D) and fl(x′ + η_j) = R_i(D′).
A location a call shows (``rng.laplace(x, b)``, no coordinate carrying it) is exact already:
:func:`.comparison.compare` keeps Fraction(x′) − Fraction(x).

**Sound for** a coordinate whose last operation is the addition of the noise to the value, x + η (a noisy sum, a
histogram's counts plus noise, ``rng.laplace(x, b)`` released as it is, a clamp not reached at these draws): the
replay at η = 0 then computes x itself.  A coordinate that rounds again after the addition (a constant added after
the noise, fl(fl(x + η) + c)) may pass the check at η, and its reading is then fl(x′ + c) − fl(x + c), which may
differ from x′ − x by an ulp of the coordinate: such a program is read exactly only to that rounding, which the
check cannot tell from outside.

A coordinate read through a post-processing (:mod:`.through`: a clamp's flat region on D′ at η) is read alike,
its check on D′ made at η = +w or −w instead (D′ with every element's noise there, w the probe's step: the
coordinate must be x′ + w or x′ − w, the post-processing the identity on one side of x′: a clamp's edge may lie at
x′ itself).  A coordinate of another coefficient (a mean's
(s + η)/n) is not read exactly: its shift
keeps its proven interval, and a composition within it stays undecided.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from pdp_audit.audits.program import probing, step_laws, trace
from pdp_audit.audits.program.comparison import Comparison
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.through import THROUGH
from pdp_audit.mechanisms.rounding import gamma
from pdp_audit.verify.inputs import release_codec

#: An interval of μ: exact rationals, its upper end None where no bound is proven.
Interval = tuple[Fraction, "Fraction | None"]


def mu_interval(comparison: Comparison, j: int, shift: float, scale: float) -> Interval:
    """A proven interval of element ``j``'s exact μ = |d|/b on the pair: |d|/b where d is known exactly, else
    (|ŝ| ∓ e)/b with e the shift's proven rounding bound, else [0, unbounded).  Each float is n/2^k: |ŝ| ∓ e is an
    integer over the larger power of two, and each end is made as one fraction, normalised once (the same rationals
    as their sums and quotients in ``Fraction``s, at a third of the cost: two on every pair)."""
    exact = comparison.exact.get(j)
    if exact is not None:
        mu = abs(exact) / Fraction(scale)
        return mu, mu
    e = shift_error(comparison, j)
    if not (math.isfinite(e) and math.isfinite(shift)):
        return Fraction(0), None
    (read, read_den), (error, error_den) = abs(shift).as_integer_ratio(), e.as_integer_ratio()
    b, b_den = scale.as_integer_ratio()
    den = max(read_den, error_den)  # powers of two: their least common multiple
    read, error = read * (den // read_den), error * (den // error_den)
    low = Fraction((read - error) * b_den, den * b) if read > error else Fraction(0)
    return low, Fraction((read + error) * b_den, den * b)


def shift_error(comparison: Comparison, j: int) -> float:
    """Element ``j``'s shift's proven rounding bound (:func:`.replay_bounds.shift_bound`; ∞ where none)."""
    return float(comparison.bounds[j]) if j < comparison.bounds.size else math.inf


def unmoved(
    comparison: Comparison, found: trace.Probe, laws: Mapping[str, Callable[..., step_laws.Step]]
) -> list[step_laws.Step]:
    """One step per call for its elements read as unmoved (shift 0) but not exactly so: μ 0 as read, within
    [0, Σ e_j/b_j] (``laws``: the step of each law).  The sum is computed in floats and raised by γ_{n+1} (Higham
    2002, §3.1: n − 1 additions and n divisions of non-negative terms), then to the next double: a proven upper end.
    A scale of 0 leaves the upper end unbounded.  The elements are chosen on the shifts and bounds first, in numpy,
    and only those on their sources and laws (object arrays): most pairs have none left by then (a noisy sum's one
    element moved; every element of a pair read exactly)."""
    n = min(len(found.elements), comparison.shifts.size, len(comparison.source))
    if not n or (n <= trace.SMALL_RELEASE and not _any_unmoved(comparison, n)):
        return []
    e = comparison.bounds[:n]
    if e.size < n:
        e = np.concatenate((e, np.full(n - e.size, math.inf)))
    taken = (comparison.shifts[:n] == 0) & (e != 0)  # NaN compares unequal
    if comparison.exact:
        exact = np.fromiter(comparison.exact, dtype=np.int64, count=len(comparison.exact))
        taken[exact[exact < n]] = False
    at = np.flatnonzero(taken)
    if not at.size:
        return []
    columns = found.columns()
    source = np.asarray(comparison.source[:n], dtype=object)[at]
    lawed = np.zeros(at.size, dtype=bool)
    for name in laws:
        lawed |= columns.law[at] == name
    at = at[(source != "none") & (source != "landing") & lawed]
    if not at.size:
        return []
    calls = columns.call[at]
    bounded = np.isfinite(e[at]) & (columns.scale[at] > 0)
    with np.errstate(all="ignore"):
        terms = e[at] / columns.scale[at]
    out: list[step_laws.Step] = []
    # a call's elements are consecutive (:func:`.probing.additive_elements`): one span of ``at`` per call
    cuts = (np.flatnonzero(calls[1:] != calls[:-1]) + 1).tolist()
    for start, stop in zip([0] + cuts, cuts + [at.size]):
        call = int(calls[start])
        kept = terms[start:stop][bounded[start:stop]]
        unbounded = not bounded[start:stop].all()
        high: Fraction | None = None
        if not unbounded:
            total = float(np.sum(kept)) * (1 + gamma(kept.size + 1))
            high = Fraction(math.nextafter(total, math.inf))
        label = f"{kept.size + unbounded} element(s) of call {call} read as unmoved"
        out.append(laws[columns.law[at[start]]](call=call, label=label, mu=0.0, within=(Fraction(0), high)))
    return out


def _any_unmoved(comparison: Comparison, n: int) -> bool:
    """Whether some of the first ``n`` elements is read as unmoved but not exactly so -- :func:`unmoved`'s first
    choice, made in Python for a few elements (numpy's fixed cost per call exceeds the loop's): shift 0, a bound
    that is not 0 (∞ where none is read; NaN compares unequal), no exact shift."""
    shifts, bounds, exact = comparison.shifts[:n].tolist(), comparison.bounds[:n].tolist(), comparison.exact
    return any(shifts[j] == 0 and (j >= len(bounds) or bounds[j] != 0) and j not in exact for j in range(n))


#: Elements read one at a time, at most, where setting every element's noise to 0 at once moved the program's path
#: (a branch on another noisy value): two more replays each (four through a post-processing).
MOST_SINGLE = 8


@dataclass
class Shared:
    """What the exact readings of every pair of one draw set share, made once (:meth:`of`): the record on D and its
    probe, the coordinates a reading is tried on (:func:`unit_coordinates`), each element's recorded noise η, and
    D's release replayed with every element's noise at 0 (``on_d``: kept once made where ``keep``; None there where
    that replay diverged, raised or took another structure).  D's replay is the same for every pair where the
    program is a function of its data and draws, shown where its record replays to its release
    (:attr:`.trace.Probe.reproducible`: ``keep``)."""

    recorded: trace.Run
    found: trace.Probe
    units: np.ndarray
    eta: np.ndarray
    keep: bool
    on_d: dict[str, np.ndarray | None] = field(default_factory=dict)
    #: a small release's coordinates that pass D's side of :func:`_read_few`'s tests with every element zeroed (D's
    #: replay ``on_d["all"]``), as (coordinate, element, x, η), made once: D's side is the same for every pair
    few_on_d: list[tuple[int, int, float, float]] | None = None
    #: each element's own step by its reading, made once for every pair of the draw set
    #: (:func:`.pair_steps.shifted_step`)
    steps: dict[tuple, step_laws.Step] = field(default_factory=dict)

    @staticmethod
    def of(recorded: trace.Run, found: trace.Probe) -> Shared:
        eta = probing.draws(recorded.calls, found.grouped(), len(found.elements))
        return Shared(recorded, found, unit_coordinates(found), eta, found.reproducible)


def read(session: trace.Session | Callable, data: tuple[Any, Any], shared: Shared, c: Comparison) -> Comparison:
    """``c`` with the exact shifts of the pair's carried elements (module notes) among its ``exact``, a new
    comparison; ``data`` is (D, D′),
    ``session`` the program's session at the pair's draw set (``shared``: its record, probe and what every pair's
    reading shares): every element's noise at 0 at once, then each element not read so (the others' noise as
    recorded: a branch on them keeps its path), at most :data:`MOST_SINGLE`."""
    found = shared.found
    if c.replayed is None or not found.elements or c.structure_differs:
        return c
    elements = found.carrier[shared.units]
    exact = _read_with(session, data, shared, c, np.ones(len(found.elements), dtype=bool))
    if elements.size <= trace.SMALL_RELEASE:  # in Python: the same elements, in the same (ascending) order
        unread = {j for j in elements.tolist() if c.source[j] in ("release", THROUGH) and j not in exact}
        singles = sorted(unread)[:MOST_SINGLE]
    else:
        source = np.asarray(c.source, dtype=object)
        readable = np.zeros(len(found.elements), dtype=bool)  # a mask: np.unique of 10⁵ elements costs more
        readable[elements[(source[elements] == "release") | (source[elements] == THROUGH)]] = True
        readable[np.fromiter(exact, dtype=np.int64, count=len(exact))] = False
        singles = np.flatnonzero(readable)[:MOST_SINGLE].tolist()
    for j in singles:
        alone = np.zeros(len(found.elements), dtype=bool)
        alone[j] = True
        exact.update({k: d for k, d in _read_with(session, data, shared, c, alone).items() if k == j})
    return dataclasses.replace(c, exact={**c.exact, **exact})


def unit_coordinates(found: trace.Probe) -> np.ndarray:
    """The coordinates whose element's coefficient may be 1, those an exact reading is tried on: read as 1, or within
    its proven relative error ρ of 1 (:func:`.trace.coefficient_error`: the probe's response x + η + w − (x + η)
    rounds by an ulp of the coordinate where the noisy value is large against w, and the coefficient is read as
    1 ± 2⁻⁴⁰; the true coefficient lies in [â/(1 + ρ), â/(1 − ρ)], which holds 1 where |â − 1| ≤ ρ, evaluated exactly
    near 1).  A candidate only: the reading itself is decided by the bit-for-bit checks of :func:`_read_with`."""
    carried = found.carrier >= 0
    error = found.carried().error
    with np.errstate(invalid="ignore"):
        near = np.abs(found.coefficient - 1.0) <= error if error.size == carried.size else False
    return np.flatnonzero(carried & ((found.coefficient == 1.0) | near))


def _read_with(
    session: trace.Session | Callable, data: tuple[Any, Any], shared: Shared, c: Comparison, zeroed: np.ndarray
) -> dict[int, Fraction]:
    """The exact shifts read with the ``zeroed`` elements' noise at 0 (the others' as recorded), per element; D's
    replay with every element zeroed made once per draw set where it is kept (:class:`Shared`)."""
    other = c.replayed
    assert other is not None
    recorded, found, eta = shared.recorded, shared.found, shared.eta
    source = np.asarray(c.source, dtype=object)
    through = bool((source[zeroed] == THROUGH).any())
    # D and D′ with the noise at 0; D′ also at ±w, where a coordinate read through a post-processing is flat at η
    settings = [(data[0], recorded, 0.0), (data[1], other, 0.0)]
    settings += [(data[1], other, 1.0), (data[1], other, -1.0)] if through else []
    values = []
    for k, (dataset, run, sign) in enumerate(settings):
        key = "all" if k == 0 and shared.keep and zeroed.all() else None  # one element's: rare, not kept
        if key is not None and key in shared.on_d:
            numbers = shared.on_d[key]
        else:
            shifts = np.where(zeroed, sign * found.step - eta, 0.0)
            numbers = _replayed_at(session, dataset, (recorded, run), found, shifts)
            if key is not None:
                shared.on_d[key] = numbers
        if numbers is None:
            return {}
        values.append(numbers)
    at = shared.units
    if at.size <= trace.SMALL_RELEASE and len(values) == 2:
        return _read_few(shared, c, zeroed, values)
    j = found.carrier[at]
    x, x_prime = values[0][at], values[1][at]
    with np.errstate(all="ignore"):
        # at the recorded draw, one float addition gives D's coordinate
        kept = zeroed[j] & np.isfinite(x) & np.isfinite(x_prime) & _same(x + eta[j], recorded.numbers[at])
        # D′ at η: one float addition gives its coordinate
        released = (source[j] == "release") & (~np.isin(at, c.unread) if c.unread else True)
        shown = released & _same(x_prime + eta[j], other.numbers[at])
        if len(values) == 4:  # D′ flat at η: the identity on one side of 0 instead
            w = found.step[j]
            side = _same(x_prime + w, values[2][at]) | _same(x_prime - w, values[3][at])
            shown |= ~released & (source[j] == THROUGH) & side
    shown &= kept
    return _differences(j[shown], x[shown], x_prime[shown])


def _read_few(shared: Shared, c: Comparison, zeroed: np.ndarray, values: list[np.ndarray]) -> dict[int, Fraction]:
    """:func:`_read_with`'s reading of D's and D′'s replays with the noise at 0 (``values``; none through a
    post-processing) for a few coordinates, in Python, coordinate by coordinate: the same tests (x and x′ finite,
    element zeroed, source "release" and not unread, one float addition giving the recorded coordinates bit for bit:
    the same doubles, their bits compared as ``struct`` packs them), the same differences in the same order.  D's
    side of the tests (element zeroed, x finite, D's coordinate given bit for bit) first (:func:`_on_d`), D′'s
    after: a conjunction of tests without side effects, in any order the same."""
    x_prime = values[1].tolist()
    on_d_prime = c.replayed.numbers.tolist() if c.replayed else []
    unread = set(c.unread)
    shown = [
        (j, x, x_prime[i])
        for i, j, x, eta in _on_d(shared, zeroed, values[0])
        if math.isfinite(x_prime[i])
        and c.source[j] == "release"
        and i not in unread
        and _BITS(x_prime[i] + eta) == _BITS(on_d_prime[i])
    ]
    out: dict[int, Fraction] = dict.fromkeys((j for j, a, b in shown if b == a), ZERO)  # unmoved first, as there
    conflicted: set[int] = set()
    for j, a, b in shown:
        if b != a:
            d = Fraction(b) - Fraction(a)
            if out.setdefault(j, d) != d:
                conflicted.add(j)
    return {j: d for j, d in out.items() if j not in conflicted} if conflicted else out


def _on_d(shared: Shared, zeroed: np.ndarray, on_d: np.ndarray) -> list[tuple[int, int, float, float]]:
    """The unit coordinates (in release order) that pass D's side of :func:`_read_few`'s tests -- their element
    zeroed, x (``on_d``: D's replay with the ``zeroed`` elements' noise at 0) finite, x + η the recorded coordinate
    bit for bit -- as (coordinate, element, x, η); made once where ``on_d`` is the one every pair shares
    (:attr:`Shared.on_d`, every element zeroed), which no pair changes."""
    shared_once = zeroed.all() and on_d is shared.on_d.get("all")
    if shared_once and shared.few_on_d is not None:
        return shared.few_on_d
    carrier, zero, eta = shared.found.carrier.tolist(), zeroed.tolist(), shared.eta.tolist()
    x, recorded = on_d.tolist(), shared.recorded.numbers.tolist()
    out = [
        (i, carrier[i], x[i], eta[carrier[i]])
        for i in shared.units.tolist()
        if zero[carrier[i]] and math.isfinite(x[i]) and _BITS(x[i] + eta[carrier[i]]) == _BITS(recorded[i])
    ]
    if shared_once:
        shared.few_on_d = out
    return out


#: A double's bits (what :func:`_same` compares, for one number).
_BITS = struct.Struct("<d").pack


def _replayed_at(
    session: trace.Session | Callable, dataset: Any, runs: tuple[trace.Run, trace.Run], found: trace.Probe, shifts: Any
) -> np.ndarray | None:
    """The release's numbers of ``dataset`` replayed with the record's draws (``runs``: the record on D, and the run
    whose structure the replay must keep) shifted by ``shifts`` per element; None where it diverges, raises or takes
    another structure."""
    recorded, run = runs
    try:
        again = trace.replay(session, dataset, recorded.calls, found.perturbation(shifts))
    except (Divergence, trace.ProgramFault):
        return None
    if again.structure != run.structure or again.numbers.size != run.numbers.size:
        return None
    return again.numbers


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per coordinate, whether two float64 vectors hold the same bits."""
    return ~release_codec.differ(a, b)


#: The exact shift of an element read unmoved (the same double on D and on D′), shared by all.
ZERO = Fraction(0)


def _differences(elements: np.ndarray, x: np.ndarray, x_prime: np.ndarray) -> dict[int, Fraction]:
    """Per element, x′ − x in rationals, from the coordinates that show it (in release order); an element two
    coordinates give different differences is left out (each coordinate's held against the first's).  Only the
    differences that are not 0 -- x′ and x not the same double -- are made (:func:`_exact_differences`: a
    histogram's neighbour moves two of its bins)."""
    moved = x_prime != x
    out: dict[int, Fraction] = dict.fromkeys(elements[~moved].tolist(), ZERO)
    conflicted: set[int] = set()
    for j, d in zip(elements[moved].tolist(), _exact_differences(x_prime[moved], x[moved])):
        first = out.setdefault(j, d)
        if first is not d and first != d:
            conflicted.add(j)
    return {j: d for j, d in out.items() if j not in conflicted} if conflicted else out


def _exact_differences(a: np.ndarray, b: np.ndarray) -> list[Fraction]:
    """a − b in rationals, per coordinate: s = fl(a − b) where that double is exact, one ``Fraction`` made per
    distinct double (a CDF's neighbour moves 10⁵ coordinates, each by exactly 1), else Fraction(a) − Fraction(b).
    Exactness is decided with no tolerance by Knuth's two-sum (TAOCP vol. 2, §4.2.2, Thm B; Møller 1965): in
    binary floating point rounding to nearest (numpy's element-wise float64), a′ = s + b, b′ = s − a′ and
    t = (a − a′) + (−b − b′) give a − b = s + t exactly where nothing overflows; an overflow or NaN leaves some term
    infinite or NaN, so t is not 0 and the coordinate takes the rational way."""
    with np.errstate(all="ignore"):
        s = a - b
        a_part = s + b
        b_part = s - a_part
        error = (a - a_part) + (-b - b_part)
    exact = np.isfinite(s) & (error == 0)
    made: dict[float, Fraction] = {}
    shown = np.where(exact, s, 0.0).tolist()  # each inexact one's replaced below
    out = [made[v] if v in made else made.setdefault(v, Fraction(v)) for v in shown]
    for k in np.flatnonzero(~exact).tolist():
        out[k] = Fraction(float(a[k])) - Fraction(float(b[k]))
    return out
