"""A noise element's shift read through a post-processing of its noisy value (issue 70, item 4): where a release
coordinate carries the element on D but its coefficient vanishes on D′ (the noisy value in a clamp's flat region, a
maximum or a minimum with a constant) or changes sign (``abs`` past its fold), the coordinate on D′ does not show
the noisy value, and (R_i(D′) − R_i(D))/a is not the shift (:attr:`.comparison.Comparison.post_processed`).

The read: D′ is replayed with the element's noise shifted by t until the coordinate responds to −w as it does on D
(the same bits: the same coefficient a), then by one Newton step t ← t + (R_i(D) − R_i(D′; η + t))/a so that D′'s
noisy value lands next to D's; where the coordinate still responds as on D there, the shift of the noisy value is
s = (R_i(D′; η + t) − R_i(D))/a − t.  A flat region is passed by doubling the step (t, 2t, 4t, … of the Newton
step, or of the scale where that is 0), at most :data:`ROUNDS` rounds of two replays each, every element searched
in the same replays.  Last, D is replayed with the noise shifted by s: its coordinate must give D′'s value at η, to
the rounding bound (:func:`.replay_bounds.response_bound`), else the value there depends on the data (a threshold
from the data, ``max(y, median(D))``): the element is left unread and the coordinate is a noisy coordinate that
differs, a finding for the black box.

**Sound for** a coordinate g(f(D) + η) with g the same on D and D′ (checked at D′'s noisy value, the last step) and
injective where its slope is a (a clamp, a maximum or a minimum with a constant, ``abs``): the point found has D's
value and slope, so it is D's noisy value moved by the shift read.  The read is local, as the probe's
(:mod:`.trace`): a g with several pieces of slope a and one value (a sawtooth) may be misread.  The shift is an
upper step of the composition only (source :data:`THROUGH`, :mod:`.analysis`): the release does not show the noisy
value on D′, so no refutation rests on it; its proven error (:func:`.replay_bounds.offset_shift_bound`, in
:attr:`.comparison.Comparison.through_bounds`) serves the check that the map is D's on D′ (:mod:`.same_map`), not the
composition.  Not reached: a coordinate flat on D and carried on D′ (the noisy value clamped on D only) stays a
noisy or noise-free coordinate that differs (undecided); a coordinate carrying several elements (a sort).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import comparison, probing, trace
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.replay_bounds import offset_shift_bound, response_bound

#: Rounds of the search (two replays each): a flat region up to 2⁶ − 1 times the first step wide is passed.
ROUNDS = 6
#: The source of a shift read through a post-processing (:attr:`.comparison.Comparison.source`).
THROUGH = "through"


def read_through(
    program: Callable | trace.Session,
    data: tuple[Any, Any],
    recorded: trace.Run,
    found: trace.Probe,
    out: comparison.Comparison,
) -> comparison.Comparison:
    """``out`` with the shifts of the post-processed elements no other coordinate or call shows read through the
    post-processing (module notes: ``shifts``; ``source`` :data:`THROUGH`), a new comparison; ``data`` is (D, D′).
    A coordinate whose value on D′ D does not give at D′'s noisy value joins its ``noisy_differ``."""
    other = out.replayed
    if other is None or not out.post_processed or len(out.source) != len(found.elements):
        return out
    first: dict[int, int] = {}
    for i in out.post_processed:
        j = int(found.carrier[i])
        if out.source[j] == "none":
            first.setdefault(j, i)
    if not first:
        return out
    targets = (np.array(list(first)), np.array(list(first.values())))
    searched = _search(program, (data[1], other.numbers), recorded, found, targets)
    if searched is None:
        return out
    read, shift, offset, value = searched
    elements, at = targets[0][read], targets[1][read]
    if not elements.size:
        return out
    moved = np.zeros(len(found.elements))
    moved[elements] = shift[read]
    try:
        back = trace.replay(program, data[0], recorded.calls, found.perturbation(moved))
    except (Divergence, trace.ProgramFault):
        return out
    if back.structure != recorded.structure or back.numbers.size != recorded.numbers.size:
        return out
    on_d, on_d_prime = back.numbers[at], other.numbers[at]
    with np.errstate(all="ignore"):
        difference = on_d - on_d_prime
    weight = np.abs(found.coefficient[at]) * (found.size[elements] + np.abs(shift[read]))
    agree = np.abs(difference) <= 2 * response_bound(on_d, on_d_prime, difference, weight)
    bounds = _bounds((recorded, other), found, (elements, at), (shift[read], offset[read], value[read]))
    shifts, source, errors, differ = out.shifts.copy(), list(out.source), dict(out.through_bounds), [*out.noisy_differ]
    for j, i, s, ok, e in zip(elements.tolist(), at.tolist(), shift[read].tolist(), agree.tolist(), bounds.tolist()):
        if ok:
            shifts[j], source[j], errors[j] = s, THROUGH, e
        else:
            differ.append(i)
    return dataclasses.replace(out, shifts=shifts, source=source, through_bounds=errors, noisy_differ=differ)


def _bounds(
    runs: tuple[trace.Run, trace.Run], found: trace.Probe, targets: tuple[np.ndarray, np.ndarray], read: tuple
) -> np.ndarray:
    """Per element read, a proven bound on its shift's error (:func:`.replay_bounds.offset_shift_bound`; ``runs``:
    the record on D and D′'s replay at D's draws; ``read``: the shifts, the offsets t they were read at and D′'s
    values there), for the map's check (:mod:`.same_map`; the composition keeps its own reading's bound)."""
    recorded, other = runs
    elements, at = targets
    shift, offset, after = read
    before, a = recorded.numbers[at], found.coefficient[at]
    eta = probing.draws(recorded.calls, found.grouped(), len(found.elements))[elements]
    size = np.maximum(found.size, probing.neighbour_sizes(found, other.calls))[elements]
    with np.errstate(all="ignore"):
        quotient = (after - before) / a
        weight = np.abs(a) * (size + np.abs(offset))
        read_noise = eta + offset
    error = trace.coefficient_error(found)[at]
    return np.asarray(offset_shift_bound((before, after), quotient, read_noise, shift, a, weight, error))


def _search(
    program: Callable | trace.Session,
    neighbour: tuple[Any, np.ndarray],
    recorded: trace.Run,
    found: trace.Probe,
    targets: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Per target (element, coordinate), whether a point of D′ with D's coefficient was reached by a Newton step
    from another (``read``), the shift read there, the offset t it was read at and D′'s value there (module notes);
    ``neighbour``: D′ and its release at D's draws; None where a replay diverges, raises or changes the release's
    structure."""
    neighbour, other = neighbour
    elements, at = targets
    a, y, on_d = found.coefficient[at], recorded.numbers[at], found.minus[at]
    w = found.step[elements]
    scale = np.array([_unit(found.elements[j].scale) for j in elements.tolist()])
    t, r = np.zeros(elements.size), other[at]
    same = np.zeros(elements.size, dtype=bool)  # at t = 0 the coordinate is flat or folded on D′
    slope = np.zeros(elements.size)  # D′'s local coefficient at t (unknown at t = 0: the search starts along a)
    read, shift = np.zeros(elements.size, dtype=bool), np.full(elements.size, math.nan)
    for k in range(ROUNDS):
        with np.errstate(all="ignore"):
            along = np.where(same | (slope == 0), a, slope)  # Newton along D's slope, or D′'s own past a fold
            newton = (y - r) / along
        # from a point of D's slope: one Newton step; elsewhere, doubled (a flat region), or a whole scale each way
        # in turn where the values already agree (the mirror point of a fold)
        wide = np.where(newton != 0, newton * 2.0**k, scale * 2.0**k * (-1.0) ** k)
        stepped = np.where(same, newton, np.where(slope == 0, wide, np.where(newton != 0, newton, wide)))
        newtoned = same.copy()
        t = np.where(read, t, t + stepped)
        at_t = _value_on(program, neighbour, recorded, found, (elements, at), t)
        at_back = _value_on(program, neighbour, recorded, found, (elements, at), t - w)
        if at_t is None or at_back is None:
            return None
        r = at_t
        with np.errstate(all="ignore"):
            same = (at_back - r) == on_d
            slope = np.where(np.isfinite(at_back - r), (r - at_back) / w, 0.0)
            fresh = ~read & newtoned & same & np.isfinite(r)
            shift = np.where(fresh, (r - y) / a - t, shift)
        read |= fresh
        if read.all():
            break
    return read, shift, t, r


def _value_on(
    program: Callable | trace.Session,
    neighbour: Any,
    recorded: trace.Run,
    found: trace.Probe,
    targets: tuple[np.ndarray, np.ndarray],
    t: np.ndarray,
) -> np.ndarray | None:
    """The target coordinates of D′ replayed with the target elements' noise shifted by ``t`` (None where the
    replay diverges or its release is shaped otherwise)."""
    elements, at = targets
    shifts = np.zeros(len(found.elements))
    shifts[elements] = t
    try:
        moved = trace.replay(program, neighbour, recorded.calls, found.perturbation(shifts))
    except (Divergence, trace.ProgramFault):  # the path or the program's fault moved with the noise: not read
        return None
    if moved.structure != recorded.structure or moved.numbers.size != recorded.numbers.size:
        return None
    return moved.numbers[at]


def _unit(scale: float) -> float:
    return scale if scale > 0 and math.isfinite(scale) else 1.0
