"""A neighbour D′ read against the probe of D (:mod:`.trace`): D′ replayed with D's draws, the shift of each noise
element read from the release, the coefficients checked on D′.

The program replayed on D′ with the draws of D: where a coordinate carries element j with coefficient a on D and on
D′ (below), (R_i(D′) − R_i(D))/a is the shift of j's noisy value -- f(D′) − f(D) for ``f(D) + noise`` whether or not
the call shows f(D) -- and where no coordinate carries it, the shift of the value the call shows (``loc``).  A replay
on D′ with −w shifted reads each carried coordinate's response on D′ against its response on D (:func:`classified`):
the same bits, or within the proven rounding bound of D's -- the same coefficient; a response that vanishes (a flat
region: a clamp, a maximum with a constant) or changes sign (``abs`` past its fold) -- post-processing of the noisy
value, no finding of its own, and the shift is not read from that coordinate at these draws (:mod:`.through` reads
it past the post-processing); any other -- a coefficient that moved (a weight from the data: a finding for the black
box, exact only where the call's own scale moved, :attr:`.trace.Run.rescaled`).

What this reading is sound for, and its limits: :mod:`.trace`'s notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import carried_events, landing, lattice_noise, probing, trace
from pdp_audit.audits.program.events import Choice
from pdp_audit.audits.program.recorder import Divergence
from pdp_audit.audits.program.replay_bounds import response_bound, shift_bound, shift_bound_of_floats
from pdp_audit.audits.program.trace import Probe, ProgramFault, Run, Session, replay
from pdp_audit.verify.inputs import release_codec


@dataclass(frozen=True)
class Moved:
    """A sample where D′'s release is not D's at the noise shifted by Δ: ``noise`` its λ (in scales of each
    element, from its recorded draw), ``coordinate`` the first coordinate that differs (−1: the structure or the
    path), its values on D and on D′ as a report writes them, ``count`` the coordinates that differ, and ``moved``
    how far the pair's noisy values moved, x/(1 + x) of x = max |Δ̂_j|/b_j (the order among such pairs: a threshold
    that moves with the data opens the widest window where the data moved most)."""

    noise: float
    coordinate: int
    on_d: str
    on_d_prime: str
    count: int
    moved: float = 0.0


@dataclass(frozen=True)
class Comparison:
    """A neighbour D′ replayed with D's draws: ``divergence`` (None, or the first diverging call as one line) or
    the shift of each noise element (``shifts``, in the element's units; NaN: not visible), ``source`` of each
    (``release``, ``value``, ``none``), the noise-free coordinates that differ, the noisy non-affine ones that differ,
    whether the structure differs, the coefficients read on D′ (:func:`classified`), and the choice calls'
    probabilities."""

    divergence: Divergence | None
    shifts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    source: list[str] = field(default_factory=list)
    free_differ: list[int] = field(default_factory=list)
    noisy_differ: list[int] = field(default_factory=list)
    structure_differs: bool = False
    inconsistent: list[int] = field(default_factory=list)  # elements two coordinates disagree on
    #: elements a coordinate carries on D and on D′ with coefficients that differ beyond the rounding bound, both
    #: nonzero: a weight the data sets (exact evidence of a data-dependent scale only where the call's own scale
    #: moved, :attr:`.trace.Run.rescaled`; else a finding for the black box -- a post-processing with pieces of other
    #: slopes reads the same way)
    coefficient_changed: list[int] = field(default_factory=list)
    #: coordinates carried on D whose noise coefficient vanishes on D′ (a flat region of a clamp, a maximum or a
    #: minimum with a constant) or changes sign (``abs`` past its fold): post-processing of the noisy value, no
    #: finding of its own; the element's shift is not read from them at these draws
    post_processed: list[int] = field(default_factory=list)
    #: carried coordinates whose coefficient on D′ is not shown to be D's (post-processed, moved or undecided): no
    #: shift is read from them
    unread: list[int] = field(default_factory=list)
    #: carried coordinates not shown to carry D's element on D′ (:func:`_carriers_read`): unread
    carriers_moved: list[int] = field(default_factory=list)
    choices: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)
    replayed: Run | None = None
    fault: str | None = None  # what the program raised on D′ (it ran on D)
    #: per element, its shift read through a rounding (:mod:`.landing`; ``source`` "landing")
    landings: dict[int, landing.Reading] = field(default_factory=dict)
    #: per element, a proven bound on |shift − its exact value| (:func:`.replay_bounds.shift_bound` for a shift read
    #: off the release, 0 for the value a call shows; ∞: none proven -- a shift read through a post-processing)
    bounds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: per element, its shift in rationals where it is known exactly: the difference of the two locations a call
    #: shows, or the value the noise is added to read by a replay with the noise at 0 (:mod:`.exact_shifts`)
    exact: dict[int, Fraction] = field(default_factory=dict)
    #: the edges of the rescaled calls the release carries, verified by replay on D and on D′ (:mod:`.carried_events`,
    #: read by :func:`.judgement.read_exactly`)
    tails: list[carried_events.Edges] = field(default_factory=list)
    #: per element read off the release, the mass outside its range verified by replay (:func:`.carried_events.ranges`;
    #: None: not read -- its lower step is then not yet shown carried), and the edges verified where the range is not
    ranges: dict[int, float] | None = None
    events: dict[int, carried_events.Edges] = field(default_factory=dict)
    #: per element read through a post-processing (:mod:`.through`), a proven bound on its shift's error
    #: (:func:`.replay_bounds.offset_shift_bound`): the map's check only (:mod:`.same_map`; the composition keeps
    #: :attr:`bounds`)
    through_bounds: dict[int, float] = field(default_factory=dict)
    #: the release's map checked along the noise's range (:mod:`.same_map`): the samples compared on D′, and the
    #: first where D′'s release is not D's at the noise shifted by the pair's shifts (None: none, or not checked)
    map_samples: int = 0
    map_moved: Moved | None = None


def compare(
    program: Callable | Session,
    neighbour: Any,
    recorded: Run,
    found: Probe,
    data: Any = None,
    epsilon: float | None = None,
) -> Comparison:
    """D′ replayed with D's draws, read against the probe of D (module notes), and with the probe's shift, to read
    the coefficients on D′ (:func:`classified`) before any shift is read from them; ``data``: D, where the probe's
    landings are read (their edges are checked on D and on D′); ``epsilon``: the claim's, where a rescaled call's
    landing is read in its tails too (:mod:`.rounded_steps`)."""
    try:
        other = replay(program, neighbour, recorded.calls)
    except Divergence as divergence:
        return Comparison(divergence)
    except ProgramFault as fault:  # raises on D′ only: an observable difference, reported beside the others
        return Comparison(None, fault=str(fault))
    n = len(found.elements)
    out = _Read(other, np.full(n, math.inf))
    shifts = np.full(n, np.nan)
    exact: dict[int, Fraction] = {}
    source = np.full(n, "none", dtype=object)  # a list once read: set in numpy where a neighbour reads many
    if other.structure != recorded.structure or other.numbers.size != recorded.numbers.size:
        out.structure_differs = True
    else:
        weight = _coefficients_read(out, (program, neighbour), recorded, found)
        _read_release(out, (recorded.numbers, other.numbers), found, weight, shifts, source)
        if found.landings and data is not None:
            _read_landings(out, (program, data, neighbour), recorded, found, (shifts, source), epsilon)
    _read_values(recorded, other, found, (shifts, source), exact)
    lattice_noise.common_unmoved(found, (shifts, source), exact)
    choices = [
        (k, np.asarray(call.value, dtype=float), np.asarray(other.calls[k].value, dtype=float))
        for k, call in enumerate(recorded.calls)
        if isinstance(call, Choice) and call.value is not None
    ]
    return Comparison(None, shifts, source.tolist(), choices=choices, exact=exact, **vars(out))


@dataclass
class _Read:
    """What :func:`compare` reads of a replay on D′ (``replayed``) before it makes its :class:`Comparison`: the
    fields of the same names, written by this module's readers only."""

    replayed: Run
    bounds: np.ndarray
    structure_differs: bool = False
    free_differ: list[int] = field(default_factory=list)
    noisy_differ: list[int] = field(default_factory=list)
    inconsistent: list[int] = field(default_factory=list)
    coefficient_changed: list[int] = field(default_factory=list)
    post_processed: list[int] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)
    carriers_moved: list[int] = field(default_factory=list)
    landings: dict[int, landing.Reading] = field(default_factory=dict)


def _coefficients_read(
    out: _Read, runs: tuple[Callable | Session, Any], recorded: Run, found: Probe
) -> np.ndarray | None:
    """D′ (``runs``: the program and D′) replayed with the probe's −w where a coordinate carries noise, and its
    coefficients read (:func:`classified`) unless every response is D's (:func:`_as_on_d`); the weights of the
    rounding bounds (:func:`_weight`) where a coordinate carries noise (else None)."""
    program, neighbour = runs
    other = out.replayed
    if not found.elements or not found.carried().at.size:
        return None
    weight = _weight(found, other)  # every carried shift's rounding bound is read (:attr:`Comparison.bounds`)
    moved: Run | None
    try:
        moved = replay(program, neighbour, recorded.calls, found.backwards())
    except (Divergence, ProgramFault):  # D′'s fault at shifted draws: its coefficients are not read
        moved = None
    if moved is not None and moved.structure != other.structure:
        moved = None
    if moved is not None and not _as_on_d(found, moved, other):
        classified(out, moved.numbers, other.numbers, found, weight)
        _rescaled_read(out, found, other)
    if len(found.elements) > 1:
        _carriers_read(out, runs, recorded, found, moved)
    return weight


def _carriers_read(
    out: _Read, runs: tuple[Callable | Session, Any], recorded: Run, found: Probe, backwards: Run | None
) -> None:
    """Each coordinate carried on D checked to carry the same element on D′, as the probe named it on D: D′ replayed
    with the probe's naming shift v (:attr:`.trace.Probe.naming`, v_j = w_j(1 + rank_j/N)), and each carried
    coordinate's response to v read against its response to −w (``backwards``, :func:`_coefficients_read`'s
    replay). A coordinate carrying element j′ with coefficient a′ on D′ responds by a′v_j′ and −a′w_j′: their
    ratio is 1 + rank_j′/N whatever a′ (a rescaled call's coefficient moves, its element does not), read as the
    probe reads it on D (within :func:`.probing.naming_tolerance` of D's element's ratio; the ranks lie 1/N apart).
    Without this check a coordinate whose element changes between D and D′ at the same coefficient -- noise added
    in an order the data sets (groups in the order their first records come) -- responds to −w as on D, and would
    be read as D's element moved by R_i(D′) − R_i(D): a difference of two draws, which refuted a correct program
    by composition.

    A coordinate whose ratio names another element, or none (not finite, or no response to −w where
    :func:`classified` did not already leave it unread), is unread: no shift is read from it
    (:attr:`Comparison.carriers_moved`). Where either replay diverges, raises or changes the release's structure, no
    carrier is shown on D′ and every carried coordinate is unread. A coordinate not finite on D′ is left as
    :func:`classified` leaves it (its shift is read as ∞)."""
    program, neighbour = runs
    other = out.replayed
    carried = found.carried().at
    if not carried.size or found.naming.size != len(found.elements):
        return
    try:
        named = replay(program, neighbour, recorded.calls, found.named())
    except (Divergence, ProgramFault):
        named = None
    if backwards is None or named is None or named.structure != other.structure:
        apart = carried
    else:
        before = other.numbers[carried]
        with np.errstate(all="ignore"):
            by_v, by_minus = named.numbers[carried] - before, backwards.numbers[carried] - before
            ratio = by_v / -by_minus
            element = found.carrier[carried]
            expected = found.naming[element] / found.step[element]
            same = np.abs(ratio - expected) < probing.naming_tolerance(len(found.elements))
        same |= ~np.isfinite(before)
        apart = carried[~same]
    unread = set(out.unread)
    out.carriers_moved = [i for i in apart.tolist() if i not in unread]
    out.unread = sorted(unread | set(out.carriers_moved))


def _read_values(
    recorded: Run, other: Run, found: Probe, read: tuple[np.ndarray, np.ndarray], exact: dict[int, Fraction]
) -> None:
    """The shift of the value each call shows (``loc``), for the elements no coordinate carries (``read``: the
    shifts and their sources, "value" where read; ``exact``: the shift in rationals, each location exact), a call's
    elements at once."""
    shifts, source = read
    listed = source.tolist() if source.size <= trace.SMALL_RELEASE else None  # a few: looked at in Python
    for call, start, stop, indices in found.grouped():
        if listed is not None and "none" not in listed[start:stop]:  # every element read: nothing to read here
            continue
        unread = np.flatnonzero(source[start:stop] == "none")
        if not unread.size:
            continue
        before, after = recorded.calls[call].value, other.calls[call].value
        shown = before is not None and after is not None
        # a location left at 0 on both sides shows nothing: the data may be added outside the call
        shown = shown and bool(np.any(np.asarray(before) != 0) or np.any(np.asarray(after) != 0))
        if not shown:
            continue
        shape = np.shape(recorded.calls[call].noise)
        b = np.atleast_1d(np.broadcast_to(np.asarray(before, dtype=float), shape)).ravel()[indices[unread]]
        a = np.atleast_1d(np.broadcast_to(np.asarray(after, dtype=float), shape)).ravel()[indices[unread]]
        with np.errstate(all="ignore"):
            moved = np.where(np.isnan(a) != np.isnan(b), math.inf, np.where(np.isnan(a), 0.0, a - b))
        j = start + unread
        shifts[j], source[j] = moved, "value"
        finite = np.isfinite(a) & np.isfinite(b)
        exact.update(dict.fromkeys(j[finite & (a == b)].tolist(), ZERO))
        differ = finite & (a != b)
        moved_apart = zip(j[differ].tolist(), a[differ].tolist(), b[differ].tolist())
        exact.update((k, Fraction(x) - Fraction(y)) for k, x, y in moved_apart)


#: An exact shift of 0 (a location the same double on D and D′), shared by all.
ZERO = Fraction(0)


def _as_on_d(found: Probe, moved: Run, other: Run) -> bool:
    """Whether every carried coordinate responds to −w on D′ as on D, equal as numbers (an additive release: −a·w on
    both sides): each is then :func:`classified`'s first case, |Δ̂′ − Δ̂| = 0 ≤ B whatever the rounding bound B (a
    sum of magnitudes, ≥ 0), and neither B nor the weights it counts need be made."""
    if moved.numbers.size != other.numbers.size:  # classified reads nothing either
        return True
    carried = found.carried()
    if moved.numbers.size <= trace.SMALL_RELEASE:  # in Python: numpy's fixed cost per call exceeds the loop's
        after, before = moved.numbers.tolist(), other.numbers.tolist()
        return all(after[i] - before[i] == carried.minus[i] for i in carried.listed)
    with np.errstate(all="ignore"):
        return bool((moved.numbers[carried.at] - other.numbers[carried.at] == found.minus[carried.at]).all())


def _weight(found: Probe, other: Run) -> np.ndarray:
    """Per coordinate, |a|·(|loc| + |η| + w) of the element it carries, the larger location of D's and D′'s counted
    (0 where it carries none): the weights of the rounding bounds (:func:`response_bound`, :func:`shift_bound`)."""
    carried = found.carried()
    size = np.maximum(found.size, probing.neighbour_sizes(found, other.calls))
    weight = np.zeros(found.carrier.size)
    weight[carried.at] = carried.magnitude * size[carried.element]
    return weight


def _rescaled_read(out: _Read, found: Probe, other: Run) -> None:
    """A call replayed at another scale (:attr:`.trace.Run.rescaled`) rescales its noise on D′: its coefficient moves by
    the scales' ratio, as expected, and its coordinates are read as before the coefficients were (the scale's move
    is the exact finding, :mod:`.judgement`)."""
    if not other.rescaled or not out.unread:
        return
    calls = {index for index, _, _ in other.rescaled}
    kept = [i for i in out.unread if found.elements[int(found.carrier[i])].call not in calls]
    out.unread = kept
    out.post_processed = [i for i in out.post_processed if i in set(kept)]


def classified(out: _Read, moved: np.ndarray, other: np.ndarray, found: Probe, weight: np.ndarray) -> None:
    """Each coordinate carried on D read on D′: its response Δ̂′ to −w (``moved`` − ``other``) against its response
    on D, Δ̂ (``found.minus``), with B the sum of both rounding bounds (:func:`response_bound`, the magnitudes of D′'s
    call locations counted):

    * Δ̂′ = Δ̂, bit for bit, or |Δ̂′ − Δ̂| ≤ B: the same coefficient, to the resolution B/w of the reading (an
      additive release responds by exactly −a·w on both sides; a mean's division rounds differently on D and D′ --
      a bitwise-equal response shows no more, |a′ − a|·w ≤ B; a coefficient moved by less is not seen, module notes);
    * beyond B, Δ̂′ = 0: the noise's coefficient vanishes on D′ -- a flat region of a post-processing;
      |Δ̂′ + Δ̂| ≤ B: it changes sign (``abs`` past its fold) -- either is :attr:`Comparison.post_processed`, no
      finding of its own, and no shift is read from it (:attr:`Comparison.unread`);
    * else: :attr:`Comparison.coefficient_changed` (its shift read as before: a lower step that needs the finding's
      confirmation, as the finding does).

    A coordinate not finite on D′ (NaN through ``np.clip``) is left out: its shift is read as ∞ already, and no
    coefficient can be read there."""
    carried = found.carried().at
    if moved.size != other.size:
        return
    weight = weight[carried]
    before, after = other[carried], moved[carried]
    with np.errstate(all="ignore"):
        response = after - before
    finite = np.isfinite(before) & np.isfinite(after)
    on_d = found.minus[carried]
    bound = found.bound_minus[carried] + response_bound(after, before, response, weight)
    same = ~finite | (np.abs(response - on_d) <= bound)
    if same.all():  # every coefficient D's: nothing post-processed, moved or unread
        out.post_processed, out.coefficient_changed, out.unread = [], [], []
        return
    flat = ~same & (response == 0)
    folded = ~same & ~flat & (np.abs(response + on_d) <= bound)
    moved_apart = ~same & ~flat & ~folded
    elements = found.carrier[carried]
    out.post_processed = carried[flat | folded].tolist()
    out.coefficient_changed = sorted(set(elements[moved_apart].tolist()))
    out.unread = carried[flat | folded].tolist()


def _read_landings(
    out: _Read,
    runs: tuple,
    recorded: Run,
    found: Probe,
    read: tuple[np.ndarray, np.ndarray],
    epsilon: float | None = None,
) -> None:
    """The probe's landings read on D′ (:func:`.landing.read`; ``runs``: the program, D and D′): each element read
    gets its shift (source "landing"), and its coordinate is no longer a noisy one that differs unexplained."""
    program, data, neighbour = runs
    shifts, source = read
    other = out.replayed
    scales = {}
    for found_landing in found.landings:  # each landing's element's scale on D′
        element = found.elements[found_landing.element]
        scale = other.calls[element.call].scale
        scales[found_landing.element] = probing.noise_value(
            np.broadcast_to(
                np.asarray(1.0 if scale is None else scale, dtype=float), np.shape(other.calls[element.call].noise)
            ),
            element.index,
        )
    named = [landing.Noise(e.law, e.scale, 0.0) for e in found.elements]  # the element of each coordinate on D′
    readings = landing.read(
        found.landings,
        probing.replayer(program, data, recorded, found),
        probing.replayer(program, neighbour, recorded, found),
        other.numbers,
        scales,
        epsilon,
        named,
    )
    for j, reading in readings.items():
        shifts[j], source[j] = reading.shift, "landing"
        out.landings[j] = reading
    explained = {r.landing.coordinate for r in readings.values()}
    out.noisy_differ = [i for i in out.noisy_differ if i not in explained]


def _read_release(
    out: _Read,
    releases: tuple[np.ndarray, np.ndarray],
    found: Probe,
    weight: np.ndarray | None,
    shifts: np.ndarray,
    source: np.ndarray | list[str],
) -> None:
    """The release of D′ read against D's (``releases``) coordinate by coordinate, in numpy: a coordinate carrying
    element j (and not :attr:`Comparison.unread`) gives j's shift (∞ where it turns NaN or infinite; two
    coordinates of j whose shifts differ by more than their rounding bounds, :func:`shift_bound`, make j
    inconsistent), and one whose value is the same but whose bits differ (``-0.0`` for ``0.0``: no shift explains
    that) is a noisy coordinate that differs; any other whose bits differ
    (:func:`~pdp_audit.verify.inputs.release_codec.differ`) is a noise-free or a noisy non-affine coordinate that
    differs."""
    before, after = releases
    carrier = found.carrier
    if out.bounds.size != shifts.size:
        out.bounds = np.full(shifts.size, math.inf)
    if out.unread:
        carrier = carrier.copy()
        carrier[out.unread] = UNREAD
    if before.size <= trace.SMALL_RELEASE:
        _read_small_release(out, (before, after), found, carrier.tolist(), weight, (shifts, source))
        return
    differ = release_codec.differ(before, after)
    carried = np.flatnonzero(carrier >= 0)
    if carried.size and weight is not None:
        with np.errstate(all="ignore"):
            shift = (after[carried] - before[carried]) / found.coefficient[carried]
        shift[(np.isnan(after[carried]) != np.isnan(before[carried])) | ~np.isfinite(shift)] = math.inf
        pair, error = (before[carried], after[carried]), found.carried().error[carried]
        bound = shift_bound(pair, shift, found.coefficient[carried], weight[carried], error)
        elements = carrier[carried]
        order = np.argsort(elements, kind="stable")  # by element, each element's coordinates in release order
        by_element, in_order, bound = elements[order], shift[order], bound[order]
        repeated = np.flatnonzero(by_element[1:] == by_element[:-1]) + 1
        a, b = in_order[repeated], in_order[repeated - 1]
        with np.errstate(all="ignore"):
            near = np.abs(a - b) <= bound[repeated] + bound[repeated - 1]
        apart = repeated[~np.where(np.isinf(a) | np.isinf(b), a == b, near)]
        out.inconsistent = elements[np.sort(order[apart])].tolist() if apart.size else []
        last = np.append(by_element[1:] != by_element[:-1], True)  # each element's last coordinate gives its shift
        shifts[by_element[last]] = in_order[last]
        out.bounds[by_element[last]] = bound[last]
        if isinstance(source, np.ndarray):
            source[by_element[last]] = "release"
        else:  # a list (a caller's own)
            for j in by_element[last].tolist():
                source[j] = "release"
    # a carried coordinate of the same value in other bits: no shift explains it
    differ[carried] &= after[carried] == before[carried]
    differ[carrier == UNREAD] = False
    out.free_differ = np.flatnonzero(differ & (carrier == -1)).tolist()
    out.noisy_differ = np.flatnonzero(differ & (carrier != -1)).tolist()


#: A carried coordinate's mark while it is :attr:`Comparison.unread`.
UNREAD = -3


def _read_small_release(
    out: _Read,
    releases: tuple[np.ndarray, np.ndarray],
    found: Probe,
    carrier: list[int],
    weight: np.ndarray | None,
    read: tuple[np.ndarray, np.ndarray | list[str]],
) -> None:
    """:func:`_read_release` in Python, coordinate by coordinate (the same reading): the values as floats, the bits
    as the integers of their ``uint64`` views, the shifts' rounding bounds in floats
    (:func:`.replay_bounds.shift_bound_of_floats`, the same doubles as :func:`shift_bound`'s); where no weight is
    read (None), only those whose element another coordinate carries too, at weight 0 (:attr:`.trace.Carried.shared`:
    only their shifts are held against each other)."""
    shifts, source = read
    before, after = releases
    bits_before, bits_after = before.view(np.uint64).tolist(), after.view(np.uint64).tolist()
    carried = found.carried()
    coefficient, errors = carried.coefficient, carried.error.tolist()
    weights = weight.tolist() if weight is not None else None
    shared = set(carried.shared.tolist()) if weights is None else set()
    last: dict[int, float] = {}  # per element, the bound of the shift its last coordinate gave
    for i, (b, a) in enumerate(zip(before.tolist(), after.tolist())):
        j = carrier[i]
        if bits_before[i] == bits_after[i] and j < 0:
            continue
        if j >= 0:
            shift = _shift_read(b, a, coefficient[i])
            weighted = weights is not None or i in shared
            bound = math.inf
            if weighted:
                bound = shift_bound_of_floats(
                    (b, a), shift, coefficient[i], weights[i] if weights is not None else 0.0, errors[i]
                )
            if source[j] == "release" and not _within(float(shifts[j]), shift, last[j] + bound):
                out.inconsistent.append(j)
            shifts[j], source[j] = shift, "release"
            if weighted:
                last[j] = bound
            out.bounds[j] = last.get(j, math.inf)
            if a == b and bits_before[i] != bits_after[i]:  # the same value in other bits: no shift explains it
                out.noisy_differ.append(i)
        elif j != UNREAD:
            (out.free_differ if j == -1 else out.noisy_differ).append(i)


def _shift_read(before: float, after: float, coefficient: float) -> float:
    """The shift of the noise that moves a coordinate from ``before`` to ``after`` through ``coefficient``: ∞ where
    the move is not finite, the coefficient 0, or NaN on one side only."""
    shift = (after - before) / coefficient if math.isfinite(after - before) and coefficient else math.inf
    if math.isnan(after) != math.isnan(before) or not math.isfinite(shift):
        return math.inf
    return shift


def _within(a: float, b: float, bound: float) -> bool:
    """|a − b| ≤ ``bound``; infinities only with themselves."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= bound
