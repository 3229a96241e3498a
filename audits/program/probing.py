"""The probe of a recorded run (:func:`probe`): which release coordinates carry which noise element, affinely,
at the recorded draws, and the elements' magnitudes its readings are bounded by.

**What carries the noise.**  Every noise element of an additive primitive (a location family, an
additive diffprivlib mechanism) is shifted by a small known amount -- w_j, the power of two at most h·s_j (s_j its
scale, 1 where the scale is 0), then v_j = w_j(1 + r_j/N) with r a random permutation of the N elements, then −w --
and the release replayed.  A coordinate i that moves by ΔR_i(w) = a·w_j, ΔR_i(v) = a·v_j and ΔR_i(−w) = −a·w_j for one
element j carries that element affinely with coefficient a (the ratio ΔR_i(v)/ΔR_i(w) = 1 + r_j/N names j); one that
moves under none of them (its replays are bit for bit the recorded release: a run is a function of its draws, as
``reproducible`` checks) is free of this noise at the recorded draws; any other is noisy but not affine (a
threshold, a maximum, a product).  Where an element reaches no coordinate affinely, one more replay shifts the noise
by a whole scale: a coordinate that moves only then carries the noise through a rounding or a threshold, and is noisy
but not affine, not free.  w_j is a power of two so that the shift and the additions after it are exact where the
release's magnitude is below 2⁵²·w_j: an additive release then responds by exactly ±a·w_j, on D and on every D′ alike.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.audits.program import landing, lattice_noise, reproduction
from pdp_audit.audits.program.events import Event, LibraryCall, Located
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.replay_bounds import response_bound
from pdp_audit.audits.program.trace import Element, Probe, ProgramFault, Run, Session, Span, replay, spans
from pdp_audit.verify.inputs import release_codec

#: Size of the probe's shifts, as a share of each noise element's scale (rounded down to a power of two).
PROBE_STEP = 1e-3
#: Relative agreement asked of the probe's responses to v and w (the rank's test, with ``1/(1000 N)``) and to w and −w
#: before a coordinate is read as affine.  Not a rounding bound and not a decision: a coordinate that fails it is
#: noisy but not affine (its shift unread: undecided); one that passes is read as affine at the recorded draws and its
#: coefficient is then held, on every neighbour, to the exact comparison of :func:`.comparison.classified`.
PROBE_TOLERANCE = 1e-6


def additive_elements(calls: Sequence[Event], held: frozenset[int] = frozenset()) -> tuple[list[Element], list[str]]:
    """The noise elements a probe can shift (location families and additive diffprivlib mechanisms) and the
    signatures of the calls it cannot, or holds (``held``); paired integer draws read as their difference and common
    part (:func:`.lattice_noise.paired`)."""
    elements, others = [], []
    pairs = lattice_noise.paired(calls)
    for k, call in enumerate(calls):
        shiftable = isinstance(call, Located) or isinstance(call, LibraryCall) and call.law is not None
        if not shiftable or k in held:
            others.append(call.signature())
            continue
        noise = np.atleast_1d(np.asarray(call.noise, dtype=float)).ravel()
        scale = np.asarray(call.scale if call.scale is not None else 1.0, dtype=float)
        shaped = np.ndim(call.noise)
        scales = np.broadcast_to(scale, np.shape(call.noise)).ravel() if shaped else np.atleast_1d(scale).ravel()[:1]
        law, partner = pairs.get(k, (call.law, -1))
        partner = partner if law == lattice_noise.COMMON else -1
        for i in range(noise.size):
            elements.append(Element(k, i, float(scales[i]), law, partner))
    return elements, others


def probe(program: Callable | Session, data: Any, recorded: Run, seed: int) -> Probe:
    """Which release coordinates carry which noise element, affinely, at the recorded draws (module notes).

    ``integers`` calls read as noise (:data:`.lattice_noise.INTEGERS`) are composed only where the release carries
    each of their draws and its shifts leave no coordinate unread; else (an index, a seed, a threshold, a draw the
    release does not use) they are held at their draws, as a draw with no law is (:func:`.lattice_noise.held`): the
    same law on D and D′ (their ranges compared on every replay), so holding them is a coupling, never composed, and
    a coordinate no shifted draw moves keeps the claim undecided as such a draw's does."""
    found = _probed(program, data, recorded, seed, frozenset())
    integers = {j for j, e in enumerate(found.elements) if e.law == lattice_noise.INTEGERS}
    if not integers:
        return found
    carried = (found.carrier != -2).all() and integers <= set(found.carrier.tolist())
    if not carried or not _affine_across(replayer(program, data, recorded, found), found, recorded, sorted(integers)):
        return _probed(program, data, recorded, seed, frozenset(found.elements[j].call for j in integers))
    return found


#: The most replays :func:`_affine_across` makes (a wider window is left to the same map's grid, :mod:`.same_map`).
MOST_RANGE_REPLAYS = 64


def _affine_across(replayed: landing.Replayer, found: Probe, recorded: Run, integers: list[int]) -> bool:
    """Whether D's release moves by exactly t times its move at t = 1 when every ``integers`` element moves by t,
    for each whole t that puts one of them anywhere in its range -- a flag or branch on a draw's value inside its
    range (``(c + U, U == 3)``: not additive, δ 2/7 for k = 3, not 1/7) that the probe's three shifts and the same
    map's grid (0, ±1, ±2, ±3, ±4, ±6, …) step over.  Every bit compared (:func:`.release_codec.differ`): a
    rounding too is read as not affine (held: undecided, never a pass).  True without a check where the window
    exceeds :data:`MOST_RANGE_REPLAYS` (the same map's grid alone then, as for any noise)."""
    eta = draws(recorded.calls, found.spans, len(found.elements))[integers]
    ends = [recorded.calls[found.elements[j].call].parameters for j in integers]
    low = min(int(e["low"]) - u for e, u in zip(ends, eta.tolist()))
    high = max(int(e["high"]) - 1 - u for e, u in zip(ends, eta.tolist()))
    if high - low + 1 > MOST_RANGE_REPLAYS:
        return True
    one = replayed(dict.fromkeys(integers, 1.0))
    if one is None:
        return False
    with np.errstate(all="ignore"):
        slope = one - recorded.numbers
    for t in range(int(low), int(high) + 1):
        moved = replayed(dict.fromkeys(integers, float(t)))
        if moved is None or release_codec.differ(moved, recorded.numbers + t * slope).any():
            return False
    return True


def _probed(program: Callable | Session, data: Any, recorded: Run, seed: int, held: frozenset[int]) -> Probe:
    """:func:`probe`, the calls ``held`` not shifted."""
    again = reproduction.reproduced(lambda: replay(program, data, recorded.calls), recorded)
    elements, others = additive_elements(recorded.calls, held)
    m, n = recorded.numbers.size, len(elements)
    step = _powers_of_two([PROBE_STEP * (e.scale if e.scale > 0 and math.isfinite(e.scale) else 1.0) for e in elements])
    step = _on_lattices(step, elements, recorded.calls)
    bare = Probe(elements, np.full(m, -1), np.zeros(m), step, again.same, others, departed=again.how)
    if n == 0 or m == 0:
        return bare
    bare = dataclasses.replace(bare, spans=spans(elements))
    ranks = np.random.default_rng(seed).permutation(n)
    naming = step * (1 + ranks / n)
    lattice = np.array([bool(recorded.calls[e.call].lattice) for e in elements], dtype=bool)
    if lattice.any():  # n + rank exactly: n·(1 + rank/n) rounds off the integers where n is no power of two
        naming = np.where(lattice, step + ranks, naming)
    moved_releases = []
    for shifts in (step, naming, -step):
        try:
            moved = replay(program, data, recorded.calls, bare.perturbation(shifts))
        except (Divergence, ProgramFault):  # the path moved with the noise (a stopping time, an index out of its
            # range: D's own draws run): nothing is read as affine here
            return dataclasses.replace(bare, carrier=np.full(m, -2))
        if moved.structure != recorded.structure:  # a threshold crossed: nothing is read as affine here
            return dataclasses.replace(bare, carrier=np.full(m, -2))
        moved_releases.append(moved.numbers)
    with np.errstate(all="ignore"):
        by_w, by_v, by_minus = np.subtract(moved_releases, recorded.numbers)
    noise = noise_sizes(recorded.calls, bare.spans, n)
    size = sized(noise, location_sizes(recorded.calls, bare.spans, n), step)
    # free of this noise at the recorded draws: its replays are the recorded bits (a zero whose sign the noise flips
    # moves by 0 and is not free)
    moved_bits = [release_codec.differ(moved, recorded.numbers) for moved in moved_releases]
    unmoved = ~(moved_bits[0] | moved_bits[1] | moved_bits[2])
    at_w, at_minus = moved_releases[0], moved_releases[2]
    carrier, coefficient = _read_affine(bare, size, (by_w, by_v, by_minus), (at_w, at_minus, recorded.numbers),
                                        unmoved, ranks)  # fmt: skip
    weight = np.where(carrier >= 0, np.abs(coefficient) * size[np.maximum(carrier, 0)], 0.0)  # as :func:`weights`
    bound_minus = response_bound(moved_releases[2], recorded.numbers, by_minus, weight)
    bound_plus = response_bound(moved_releases[0], recorded.numbers, by_w, weight)
    carrier = _coarse(program, data, recorded, bare, carrier)
    common_moved = lattice_noise.common_moves(replayer(program, data, recorded, bare), bare, recorded)
    landings = []
    if (carrier == -2).any():  # a landing is read among those coordinates only
        drawn = draws(recorded.calls, bare.spans, n).tolist()
        noises = [landing.Noise(e.law, e.scale, d) for e, d in zip(elements, drawn)]
        landings = landing.found(replayer(program, data, recorded, bare), recorded.numbers, carrier, noises)
    readings = dict(minus=by_minus, plus=by_w, bound_minus=bound_minus, bound_plus=bound_plus, naming=naming)
    return dataclasses.replace(bare, carrier=carrier, coefficient=coefficient, size=size, noise=noise,
                               common_moved=common_moved, landings=landings, **readings)  # fmt: skip


def _on_lattices(step: np.ndarray, elements: list[Element], calls: Sequence[Event]) -> np.ndarray:
    """``step`` with each element whose noise lies on the integer lattice (an OpenDP measurement's integer output:
    :func:`.adapters.base.integers`) shifted by n, the number of elements, instead: its three shifts n, n + rank (made
    so in :func:`probe`: n·(1 + rank/n) is not a whole double where n is no power of two) and −n are whole numbers,
    so its replays stay integers of the measurement's own type (a fraction would change the release's structure, and
    nothing would be read), and the ratios 1 + rank/n the probe decodes are the same."""
    lattice = [calls[e.call].lattice for e in elements]
    return np.where(lattice, float(len(elements)), step) if any(lattice) else step


def _read_affine(
    bare: Probe, size: np.ndarray, responses: tuple, releases: tuple, unmoved: np.ndarray, ranks: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Each coordinate the probe moved read as carrying one element affinely, or not (module notes): the carrier and
    coefficient of each; ``bare``: the probe's elements and steps, ``size`` the elements' magnitudes
    (:func:`sized`), ``responses`` to w, v and −w, ``releases`` the replays at w and −w and the recorded one;
    ``ranks`` the permutation that sets v.  The ratio ΔR_i(v)/ΔR_i(w) names the element of rank round((ratio − 1)·N)
    (within 1e-3/N + :data:`PROBE_TOLERANCE` of it), whose coefficient is ΔR_i(w)/w_j; −w must undo w to
    :data:`PROBE_TOLERANCE` plus the two responses' proven rounding bounds.  Every coordinate at once, in numpy (each
    operation the same float operation as for one coordinate alone)."""
    by_w, by_v, by_minus = responses
    at_w, at_minus, numbers = releases
    n = len(bare.elements)
    tolerance = naming_tolerance(n)
    moved = ~unmoved
    readable = moved & np.isfinite(by_w) & np.isfinite(by_v) & (by_w != 0)
    with np.errstate(all="ignore"):
        ratio = np.where(readable, by_v / np.where(readable, by_w, 1.0), math.nan)
        scaled = np.rint((ratio - 1) * n)
    named = readable & (scaled >= 0) & (scaled < n)  # NaN and ±inf compare False
    rank = np.where(named, scaled, 0).astype(np.int64)
    inverse = np.empty(n, dtype=np.int64)
    inverse[ranks] = np.arange(n)
    j = np.where(named, inverse[rank], 0)
    with np.errstate(all="ignore"):
        a = np.where(named, by_w / bare.step[j], 0.0)
        affine = named & (np.abs(ratio - (1 + rank / n)) < tolerance)
        # −w undoes w to the two responses' proven rounding bounds (a mean's division at a large offset rounds)
        weight = np.abs(a) * size[j]
        rounding = response_bound(at_minus, numbers, by_minus, weight)
        rounding += response_bound(at_w, numbers, by_w, weight)
        affine &= np.abs(by_minus + by_w) <= PROBE_TOLERANCE * np.abs(by_w) + rounding
    carrier = np.where(affine, j, np.where(moved, -2, -1))
    return carrier, np.where(affine, a, 0.0)


def naming_tolerance(n: int) -> float:
    """How near a coordinate's ratio ΔR(v)/ΔR(w) must lie to 1 + r/N to name the element of rank r, of N: 1e-3/N +
    :data:`PROBE_TOLERANCE`, below 1/(2N), so one rank at most (the probe's reading on D and each neighbour's check
    on D′, :func:`.comparison._carriers_read`)."""
    return 1e-3 / n + PROBE_TOLERANCE


def _powers_of_two(sizes: list[float]) -> np.ndarray:
    """The largest power of two at most each of ``sizes`` (all > 0): ``frexp`` is exact, so is ``ldexp``."""
    exponents = np.frexp(np.asarray(sizes, dtype=float))[1] - 1
    return np.ldexp(1.0, exponents)


def draws(calls: Sequence[Event], grouped: tuple[Span, ...], count: int) -> np.ndarray:
    """Per element, its noise in ``calls`` (signed, in its own units)."""
    out = np.zeros(count)
    for call, start, stop, indices in grouped:
        out[start:stop] = np.atleast_1d(np.asarray(calls[call].noise, dtype=float)).ravel()[indices]
    return out


def noise_sizes(calls: Sequence[Event], grouped: tuple[Span, ...], count: int) -> np.ndarray:
    """Per element, |noise| in ``calls``."""
    return np.abs(draws(calls, grouped, count))


def location_sizes(calls: Sequence[Event], grouped: tuple[Span, ...], count: int) -> np.ndarray:
    """Per element, |location| of its call in ``calls`` (0 where the call does not show it, or it cannot be read as
    numbers).  A location recorded as a float array of the noise's shape or a scalar (:mod:`.recorder`'s location
    families) is read as it is; any other broadcast to the noise's shape."""
    out = np.zeros(count)
    for index, start, stop, indices in grouped:
        call = calls[index]
        shape, value = np.shape(call.noise), call.value
        if type(value) is np.ndarray and value.dtype == np.float64 and (value.shape == shape or value.ndim == 0):
            out[start:stop] = np.abs(value.ravel()[indices] if value.ndim else value)
            continue
        try:
            where = np.abs(np.broadcast_to(np.asarray(value, dtype=float), shape)).ravel()
        except (TypeError, ValueError):
            continue
        if where.size == np.size(call.noise):
            out[start:stop] = where[indices]
    return out


def sized(noise: np.ndarray, location: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Per element, |location| + |noise| + w: a bound on the magnitude of the shifted noisy value η + loc ± w as the
    call forms it (a location the call does not show, or cannot be read as numbers, counts as 0: a bound too small
    reads a rounding as a moved coefficient, a finding, never a pass; a sum that is not finite, as 0)."""
    with np.errstate(all="ignore"):
        out = noise + location
        return np.where(np.isfinite(out), out, 0.0) + step


def neighbour_sizes(found: Probe, calls: Sequence[Event]) -> np.ndarray:
    """:func:`sized` for a replay's ``calls`` (their noise is the probe's: :attr:`Probe.noise`)."""
    return sized(found.noise, location_sizes(calls, found.spans, len(found.elements)), found.step)


def weights(found: Probe, size: np.ndarray) -> np.ndarray:
    """Per release coordinate, |a|·size of the element it carries (0 where it carries none)."""
    carried = found.carrier >= 0
    out = np.zeros(found.carrier.size)
    out[carried] = np.abs(found.coefficient[carried]) * size[found.carrier[carried]]
    return out


def noise_value(noise: Any, index: int) -> float:
    """The ``index``-th number of a call's ``noise`` (flat), as a float."""
    return float(np.atleast_1d(np.asarray(noise, dtype=float)).ravel()[index])


def replayer(program: Callable | Session, data: Any, recorded: Run, found: Probe) -> landing.Replayer:
    """``data`` replayed with the recorded draws, some elements shifted (element index → shift): the release's
    numbers, or None where the replay diverges, raises or changes the release's structure."""

    def replayed(shifts: dict[int, float]) -> np.ndarray | None:
        vector = np.zeros(len(found.elements))
        for j, t in shifts.items():
            vector[j] = t
        try:
            moved = replay(program, data, recorded.calls, found.perturbation(vector))
        except (Divergence, ProgramFault):
            return None
        return moved.numbers if moved.structure == recorded.structure else None

    return replayed


#: The coarse probe's shift, in units of each noise element's scale.
COARSE_STEP = 1.0


def _coarse(program: Callable | Session, data: Any, recorded: Run, bare: Probe, carrier: np.ndarray) -> np.ndarray:
    """``carrier`` where some noise element reaches no coordinate affinely, with the recorded noise shifted once by a
    whole scale (:data:`COARSE_STEP`): a coordinate the small shifts left unmoved that moves now carries the noise,
    but not additively (``round(x + η)``, a threshold): marked noisy and not affine (−2), not free of noise."""
    carried = set(carrier[carrier >= 0].tolist())
    free = carrier == -1
    if len(carried) == len(bare.elements) or not free.any():
        return carrier
    shifts = bare.step * (COARSE_STEP / PROBE_STEP)
    try:
        moved = replay(program, data, recorded.calls, bare.perturbation(shifts))
    except (Divergence, ProgramFault):
        return carrier
    if moved.structure != recorded.structure or moved.numbers.size != recorded.numbers.size:
        return carrier
    # any change is the noise's: a coordinate free of it replays to the recorded bits
    return np.where(free & release_codec.differ(moved.numbers, recorded.numbers), -2, carrier)
