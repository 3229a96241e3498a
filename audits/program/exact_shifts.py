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
carries element j with coefficient exactly 1 is then the value x the noise is added to, to the last bit (fl(x + 0)
= x), on D and x′ on D′; the shift is x′ − x in rationals (``Fraction``), exactly.  The reading is taken only where
both replays keep the release's structure and, at the recorded draw, one float addition gives the recorded
coordinates bit for bit on both sides: fl(x + η_j) = R_i(D) and fl(x′ + η_j) = R_i(D′).  A location a call shows
(``rng.laplace(x, b)``, no coordinate carrying it) is exact already: :func:`.comparison.compare` keeps Fraction(x′) −
Fraction(x).

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

import math
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from pdp_audit.audits.program import accounting, trace
from pdp_audit.audits.program.comparison import Comparison
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.replay_bounds import gamma
from pdp_audit.audits.program.through import THROUGH

#: An interval of μ: exact rationals, its upper end None where no bound is proven.
Interval = tuple[Fraction, "Fraction | None"]


def mu_interval(comparison: Comparison, j: int, shift: float, scale: float) -> Interval:
    """A proven interval of element ``j``'s exact μ = |d|/b on the pair: |d|/b where d is known exactly, else
    (|ŝ| ∓ e)/b with e the shift's proven rounding bound, else [0, unbounded)."""
    b = Fraction(scale)
    exact = comparison.exact.get(j)
    if exact is not None:
        return abs(exact) / b, abs(exact) / b
    e = shift_error(comparison, j)
    if not (math.isfinite(e) and math.isfinite(shift)):
        return Fraction(0), None
    read, error = Fraction(abs(shift)), Fraction(e)
    return max(Fraction(0), read - error) / b, (read + error) / b


def shift_error(comparison: Comparison, j: int) -> float:
    """Element ``j``'s shift's proven rounding bound (:func:`.replay_bounds.shift_bound`; ∞ where none)."""
    return float(comparison.bounds[j]) if j < comparison.bounds.size else math.inf


def unmoved(
    comparison: Comparison, found: trace.Probe, laws: Mapping[str, Callable[..., accounting.Step]]
) -> list[accounting.Step]:
    """One step per call for its elements read as unmoved (shift 0) but not exactly so: μ 0 as read, within
    [0, Σ e_j/b_j] (``laws``: the step of each law).  The sum is computed in floats and raised by γ_{n+1} (Higham
    2002, §3.1: n − 1 additions and n divisions of non-negative terms), then to the next double: a proven upper end.
    A scale of 0 leaves the upper end unbounded."""
    per_call: dict[int, list[float]] = {}
    unbounded: set[int] = set()
    law_of: dict[int, str] = {}
    for j, (element, shift, source) in enumerate(zip(found.elements, comparison.shifts.tolist(), comparison.source)):
        law = element.law
        if shift != 0 or source in ("none", "landing") or law is None or law not in laws or j in comparison.exact:
            continue
        e = float(comparison.bounds[j]) if j < comparison.bounds.size else math.inf
        if e == 0:
            continue
        law_of[element.call] = law
        if not (math.isfinite(e) and element.scale > 0):
            unbounded.add(element.call)
            continue
        per_call.setdefault(element.call, []).append(e / element.scale)
    out: list[accounting.Step] = []
    for call in sorted(law_of):
        terms = per_call.get(call, [])
        high: Fraction | None = None
        if call not in unbounded:
            total = float(np.sum(terms)) * (1 + gamma(len(terms) + 1))
            high = Fraction(math.nextafter(total, math.inf))
        label = f"{len(terms) + (call in unbounded)} element(s) of call {call} read as unmoved"
        out.append(laws[law_of[call]](call=call, label=label, mu=0.0, within=(Fraction(0), high)))
    return out


#: Elements read one at a time, at most, where setting every element's noise to 0 at once moved the program's path
#: (a branch on another noisy value): two more replays each (four through a post-processing).
MOST_SINGLE = 8


def read(
    session: trace.Session | Callable,
    data: tuple[Any, Any],
    recorded: trace.Run,
    found: trace.Probe,
    c: Comparison,
) -> None:
    """The exact shifts of the pair's carried elements (module notes) into ``c.exact``; ``data`` is (D, D′),
    ``session`` the program's session at the pair's draw set: every element's noise at 0 at once, then each element
    not read so (the others' noise as recorded: a branch on them keeps its path), at most :data:`MOST_SINGLE`."""
    if c.replayed is None or not found.elements or c.structure_differs:
        return
    readable = {
        int(found.carrier[i])
        for i in np.flatnonzero((found.carrier >= 0) & (found.coefficient == 1.0)).tolist()
        if c.source[int(found.carrier[i])] in ("release", THROUGH)
    }
    exact = _read_with(session, data, recorded, found, c, np.ones(len(found.elements), dtype=bool))
    for j in sorted(readable - set(exact))[:MOST_SINGLE]:
        alone = np.zeros(len(found.elements), dtype=bool)
        alone[j] = True
        exact.update({k: d for k, d in _read_with(session, data, recorded, found, c, alone).items() if k == j})
    c.exact.update(exact)


def _read_with(
    session: trace.Session | Callable,
    data: tuple[Any, Any],
    recorded: trace.Run,
    found: trace.Probe,
    c: Comparison,
    zeroed: np.ndarray,
) -> dict[int, Fraction]:
    """The exact shifts read with the ``zeroed`` elements' noise at 0 (the others' as recorded), per element."""
    other = c.replayed
    assert other is not None
    eta = np.array([_draw(recorded.calls[e.call].noise, e.index) for e in found.elements])
    through = any(c.source[j] == THROUGH for j in np.flatnonzero(zeroed).tolist())
    # D and D′ with the noise at 0; D′ also at ±w, where a coordinate read through a post-processing is flat at η
    settings = [(data[0], recorded, 0.0), (data[1], other, 0.0)]
    settings += [(data[1], other, 1.0), (data[1], other, -1.0)] if through else []
    values = []
    for dataset, run, sign in settings:
        try:
            shifts = np.where(zeroed, sign * found.step - eta, 0.0)
            again = trace.replay(session, dataset, recorded.calls, found.perturbation(shifts))
        except (Divergence, trace.ProgramFault):
            return {}
        if again.structure != run.structure or again.numbers.size != run.numbers.size:
            return {}
        values.append(again.numbers)
    found_exact: dict[int, Fraction] = {}
    conflicted: set[int] = set()
    for i in np.flatnonzero((found.carrier >= 0) & (found.coefficient == 1.0)).tolist():
        j = int(found.carrier[i])
        x, x_prime = float(values[0][i]), float(values[1][i])
        if not zeroed[j] or not (math.isfinite(x) and math.isfinite(x_prime)):
            continue
        if _bits(x + eta[j]) != _bits(recorded.numbers[i]):
            continue
        if c.source[j] == "release" and i not in c.unread:  # D′ at η: one float addition gives its coordinate
            shown = _bits(x_prime + eta[j]) == _bits(other.numbers[i])
        elif c.source[j] == THROUGH and len(values) == 4:  # D′ flat at η: the identity on one side of 0 instead
            w = float(found.step[j])
            shown = _bits(x_prime + w) == _bits(values[2][i]) or _bits(x_prime - w) == _bits(values[3][i])
        else:
            continue
        if shown:
            d = Fraction(x_prime) - Fraction(x)
            if found_exact.setdefault(j, d) != d:
                conflicted.add(j)
    return {j: d for j, d in found_exact.items() if j not in conflicted}


def _draw(noise: Any, index: int) -> float:
    return float(np.atleast_1d(np.asarray(noise, dtype=float)).ravel()[index])


def _bits(x: Any) -> int:
    return int(np.float64(x).view(np.uint64))
