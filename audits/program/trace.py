"""One recorded run of the program and its replays: the release flattened, the noise it carries, and what a
neighbouring dataset changes with the randomness held fixed.

**The release.**  ``program(data, rng)`` returns a number, an array, a pandas object, or a tuple/list/dict of them;
:func:`flattened` splits it into its structure (types, shapes, keys, strings: one tuple) and its numbers (one float
vector).

**What carries the noise** (:func:`probe`).  Every noise element of an additive primitive (a location family, an
additive diffprivlib mechanism) is shifted by a small known amount -- w_j = h·s_j (s_j its scale, 1 where the scale
is 0), then v_j = w_j(1 + r_j/N) with r a random permutation of the N elements, then −w -- and the release replayed.
A coordinate i that moves by ΔR_i(w) = a·w_j, ΔR_i(v) = a·v_j and ΔR_i(−w) = −a·w_j for one element j carries that
element affinely with coefficient a (the ratio ΔR_i(v)/ΔR_i(w) = 1 + r_j/N names j); one that moves under none of
them is free of this noise at the recorded draws; any other is noisy but not affine (a threshold, a maximum, a
product).  This is local: the release is read at the recorded draws.  Where an element reaches no coordinate
affinely, one more replay shifts the noise by a whole scale: a coordinate that moves only then carries the noise
through a rounding or a threshold, and is noisy but not affine, not free.

**A neighbour** (:func:`compare`).  The program replayed on D′ with the draws of D: where a coordinate carries
element j with coefficient a, (R_i(D′) − R_i(D))/a is the shift of j's noisy value -- f(D′) − f(D) for ``f(D) +
noise`` whether or not the call shows f(D) -- and where no coordinate carries it, the shift of the value the call
shows (``loc``).  A replay on D′ with −w shifted says whether the coefficients are the same in D′ (a scale taken from
the data, such as 1/len(D), changes them).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.recorder import (
    LOCATION_FAMILIES,
    Call,
    Divergence,
    RecordingGenerator,
    Tape,
    libraries_wrapped,
)
from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS

#: Size of the probe's shifts, as a share of each noise element's scale.
PROBE_STEP = 1e-3
#: Relative agreement asked of the probe's linear responses.
PROBE_TOLERANCE = 1e-6
#: The generator's seed of the recorded run, for the draws no primitive records (the same in every replay).
BASE_SEED = 20_240_601


class ProgramFault(Exception):
    """The user's program raised (or returned what cannot be read as a release): their fault, in one line."""


def call_program(program: Callable, data: Any, rng: np.random.Generator, modules: bool = True) -> Any:
    """The one crossing into the user's program: ``program(data, rng)`` under the sandbox's
    :func:`~pdp_audit.verify.core.sandbox.user_state` (the process state it changes is given back; ``modules``
    False: ``sys.modules`` by an enclosing :class:`Session`); whatever it raises, ``sys.exit`` included, becomes
    :class:`ProgramFault` naming it in one line; a :class:`Divergence` and an interruption (Ctrl-C, SIGTERM) pass
    through."""
    try:
        with user_state(modules=modules):
            return program(data, rng)
    except Divergence:
        raise
    except BaseException as err:  # the user's code: whatever it raises is its fault, reported as such
        if isinstance(err, INTERRUPTIONS):
            raise
        raise ProgramFault(f"the program raised {user_error(err)}"[:300]) from None


def flattened(release: Any) -> tuple[tuple, np.ndarray]:
    """The release's structure (a tuple) and numbers (a float vector), in a fixed order (dict keys sorted)."""
    kind = type(release)
    if kind is float or kind is np.float64:  # one number (most releases): what walk gives it, without the walk
        return (("array", ()),), np.array([release], dtype=float)
    if kind is np.ndarray and release.dtype.kind in "biuf":
        return (("array", release.shape),), release.astype(float).ravel()
    structure: list = []
    numbers: list[np.ndarray] = []

    def walk(x: Any) -> None:
        if x is None or isinstance(x, (str, bytes)):
            structure.append(("value", x))
        elif isinstance(x, dict):
            keys = sorted(x, key=repr)
            structure.append(("dict", tuple(repr(k) for k in keys)))
            for k in keys:
                walk(x[k])
        elif isinstance(x, (tuple, list)):
            structure.append((type(x).__name__, len(x)))
            for item in x:
                walk(item)
        elif hasattr(x, "to_numpy") and hasattr(x, "index"):  # a pandas Series or DataFrame
            structure.append(("pandas", tuple(map(repr, x.index)), tuple(map(repr, getattr(x, "columns", ())))))
            walk(x.to_numpy())
        else:
            array = np.asarray(x)
            if array.dtype.kind in "biuf":
                structure.append(("array", array.shape))
                numbers.append(array.astype(float).ravel())
            elif (
                array.dtype.kind == "O"
                and array.size
                and all(isinstance(v, (int, float, np.number)) for v in array.ravel())
            ):
                structure.append(("array", array.shape))
                numbers.append(array.astype(float).ravel())
            else:
                structure.append(("other", array.shape, tuple(map(repr, array.ravel().tolist()))))

    walk(release)
    if len(numbers) == 1:  # one number or one array (most releases): already a copy of its own
        return tuple(structure), numbers[0]
    return tuple(structure), (np.concatenate(numbers) if numbers else np.zeros(0))


@dataclass
class Run:
    """One run of the program: its release (structure and numbers) and the calls it made."""

    structure: tuple
    numbers: np.ndarray
    calls: list[Call]
    rescaled: list = field(default_factory=list)  # (index, recorded, replayed) of calls replayed at another scale


class Session:
    """The runs of one program in one analysis, set up once (a set-up per run cost several times a small program's
    run): diffprivlib's and OpenDP's primitives wrapped on entering and restored on leaving, one
    :class:`RecordingGenerator` rewound for each run, and ``sys.modules`` given back on leaving
    (:func:`~pdp_audit.verify.core.float_rules.user_modules`; every other piece of process state after each run).
    Between two runs only code that imports nothing runs (the replay's comparison, in numpy); what imports -- the
    composition -- runs after the block."""

    def __init__(self, program: Callable):
        self.program = program
        self.tape = Tape()
        self.rng = RecordingGenerator(self.tape, BASE_SEED)
        self._generators = {BASE_SEED: self.rng}
        self._stack = contextlib.ExitStack()

    def draws(self, seed: int) -> None:
        """The runs that follow draw from a generator seeded by ``seed`` (one per seed, made once: a draw set)."""
        if seed not in self._generators:
            self._generators[seed] = RecordingGenerator(self.tape, seed)
        self.rng = self._generators[seed]

    def __enter__(self) -> Session:
        self._stack.enter_context(user_modules())
        self._stack.enter_context(libraries_wrapped(lambda: self.tape))
        # every run's floating-point conditions ignored, entered once: what a run sets is undone after it
        # (call_program's user_state), back to this
        self._stack.enter_context(np.errstate(all="ignore"))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def run(self, data: Any, tape: Tape) -> Run:
        """The program on ``data`` with the generator on ``tape`` (recording or replaying)."""
        self.tape = tape
        release = call_program(self.program, data, self.rng.rewind(tape), modules=False)
        tape.finish()
        structure, numbers = flattened(release)
        return Run(structure, numbers, tape.recorded if tape.recording else tape.replayed, tape.rescaled)


def run(program: Callable | Session, data: Any, tape: Tape) -> Run:
    """``program`` on ``data`` with a recording (or replaying) generator on ``tape`` (in ``program``'s session where
    it is one, else in a session of its own)."""
    if isinstance(program, Session):
        return program.run(data, tape)
    with Session(program) as session:
        return session.run(data, tape)


def record(program: Callable | Session, data: Any) -> Run:
    """``program`` run on ``data``, every primitive call recorded."""
    return run(program, data, Tape())


def replay(program: Callable | Session, data: Any, recorded: list[Call], perturb: dict | None = None) -> Run:
    """``program`` run on ``data`` with the ``recorded`` calls' draws (``perturb``: shifts of some of them)."""
    return run(program, data, Tape(recorded, perturb))


@dataclass(frozen=True)
class Element:
    """One noise element: call ``call``, flat index ``index`` in it, its scale and law (None: no exact law)."""

    call: int
    index: int
    scale: float
    law: str | None


@dataclass
class Probe:
    """What carries the noise at the recorded draws (module notes): per release coordinate, the element it carries
    (``carrier``: −1 none, −2 noisy but not affine) and its coefficient; ``elements`` the additive noise elements;
    ``step`` the shift w of each; ``reproducible``: the record replays to the same release on D."""

    elements: list[Element]
    carrier: np.ndarray
    coefficient: np.ndarray
    step: np.ndarray
    reproducible: bool
    unperturbed: list[str] = field(default_factory=list)  # calls whose draws the probe cannot shift
    _backwards: dict[int, np.ndarray] | None = field(default=None, repr=False, compare=False)
    _carried: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def carried(self) -> tuple[np.ndarray, np.ndarray]:
        """The coordinates that carry an element, and how each moves under :meth:`backwards` at the recorded
        coefficients (every neighbour's check of the coefficients reads them), made once."""
        if self._carried is None:
            carried = np.flatnonzero(self.carrier >= 0)
            self._carried = carried, -self.coefficient[carried] * self.step[self.carrier[carried]]
        return self._carried

    def backwards(self) -> dict[int, np.ndarray]:
        """:meth:`perturbation` by −``step`` (every neighbour's check of the coefficients), made once."""
        if self._backwards is None:
            self._backwards = self.perturbation(-self.step)
        return self._backwards

    def perturbation(self, shifts: np.ndarray) -> dict[int, np.ndarray]:
        """Per call index, the array added to its recorded noise."""
        out: dict[int, list] = {}
        for element, shift in zip(self.elements, shifts):
            out.setdefault(element.call, []).append((element.index, shift))
        result = {}
        for call, pairs in out.items():
            size = max(i for i, _ in pairs) + 1
            array = np.zeros(size)
            for i, s in pairs:
                array[i] = s
            result[call] = array
        return result


def additive_elements(calls: list[Call]) -> tuple[list[Element], list[str]]:
    """The noise elements a probe can shift (location families and additive diffprivlib mechanisms) and the
    signatures of the calls it cannot."""
    elements, others = [], []
    for k, call in enumerate(calls):
        library = call.kind.startswith("diffprivlib.") and call.law is not None
        if call.kind not in LOCATION_FAMILIES and not library and call.law != "opendp":
            others.append(call.signature())
            continue
        noise = np.atleast_1d(np.asarray(call.noise, dtype=float)).ravel()
        scales = (
            np.broadcast_to(
                np.asarray(call.scale if call.scale is not None else 1.0, dtype=float), np.shape(call.noise)
            ).ravel()
            if np.ndim(call.noise)
            else np.atleast_1d(np.asarray(call.scale if call.scale is not None else 1.0, dtype=float)).ravel()[:1]
        )
        for i in range(noise.size):
            elements.append(Element(k, i, float(scales[i]), call.law))
    return elements, others


def probe(program: Callable | Session, data: Any, recorded: Run, seed: int) -> Probe:
    """Which release coordinates carry which noise element, affinely, at the recorded draws (module notes)."""
    again = replay(program, data, recorded.calls)
    reproducible = again.structure == recorded.structure and np.array_equal(
        again.numbers, recorded.numbers, equal_nan=True
    )
    elements, others = additive_elements(recorded.calls)
    m = recorded.numbers.size
    carrier, coefficient = np.full(m, -1), np.zeros(m)
    n = len(elements)
    step = np.array([PROBE_STEP * (e.scale if e.scale > 0 and math.isfinite(e.scale) else 1.0) for e in elements])
    if n == 0 or m == 0:
        return Probe(elements, carrier, coefficient, step, reproducible, others)
    ranks = np.random.default_rng(seed).permutation(n)
    probe = Probe(elements, carrier, coefficient, step, reproducible, others)
    responses = []
    for shifts in (step, step * (1 + ranks / n), -step):
        try:
            moved = replay(program, data, recorded.calls, probe.perturbation(shifts))
        except Divergence:  # the path moved with the noise (a stopping time): nothing is read as affine here
            carrier[:] = -2
            return probe
        if moved.structure != recorded.structure:  # a threshold crossed: nothing is read as affine here
            carrier[:] = -2
            return probe
        responses.append(moved.numbers - recorded.numbers)
    by_w, by_v, by_minus = responses
    base = np.abs(recorded.numbers) + 1.0
    noise_floor = 64 * np.finfo(float).eps * base
    for i in range(m):
        if abs(by_w[i]) <= noise_floor[i] and abs(by_v[i]) <= noise_floor[i] and abs(by_minus[i]) <= noise_floor[i]:
            continue  # free of this noise at the recorded draws
        if not (np.isfinite(by_w[i]) and np.isfinite(by_v[i]) and by_w[i] != 0):
            carrier[i] = -2
            continue
        ratio = by_v[i] / by_w[i]
        rank = int(round((ratio - 1) * n))
        j = int(np.flatnonzero(ranks == rank)[0]) if 0 <= rank < n else -1
        tolerance = 1e-3 / n + 1e-6
        a = by_w[i] / step[j] if j >= 0 else 0.0
        affine = j >= 0 and abs(ratio - (1 + rank / n)) < tolerance
        affine = affine and abs(by_minus[i] + by_w[i]) <= 1e-6 * abs(by_w[i]) + noise_floor[i]
        if affine:
            carrier[i], coefficient[i] = j, a
        else:
            carrier[i] = -2
    _coarse(program, data, recorded, probe, noise_floor)
    return probe


#: The coarse probe's shift, in units of each noise element's scale.
COARSE_STEP = 1.0


def _coarse(program: Callable | Session, data: Any, recorded: Run, found: Probe, floor: np.ndarray) -> None:
    """Where some noise element reaches no coordinate affinely, the recorded noise shifted once by a whole scale
    (:data:`COARSE_STEP`): a coordinate the small shifts left unmoved that moves now carries the noise, but not
    additively (``round(x + η)``, a threshold): marked noisy and not affine (−2), not free of noise."""
    carried = set(found.carrier[found.carrier >= 0].tolist())
    free = found.carrier == -1
    if len(carried) == len(found.elements) or not free.any():
        return
    shifts = found.step * (COARSE_STEP / PROBE_STEP)
    try:
        moved = replay(program, data, recorded.calls, found.perturbation(shifts))
    except Divergence:
        return
    if moved.structure != recorded.structure or moved.numbers.size != recorded.numbers.size:
        return
    with np.errstate(all="ignore"):
        change = np.abs(moved.numbers - recorded.numbers)
    differs = np.where(np.isnan(change), np.isnan(moved.numbers) != np.isnan(recorded.numbers), change > floor)
    found.carrier[free & differs] = -2


@dataclass
class Comparison:
    """A neighbour D′ replayed with D's draws: ``divergence`` (None, or the first diverging call as one line) or
    the shift of each noise element (``shifts``, in the element's units; NaN: not visible), ``source`` of each
    (``release``, ``value``, ``none``), the noise-free coordinates that differ, the noisy non-affine ones that differ,
    whether the structure differs, the coefficients that changed, and the choice calls' probabilities."""

    divergence: Divergence | None
    shifts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    source: list[str] = field(default_factory=list)
    free_differ: list[int] = field(default_factory=list)
    noisy_differ: list[int] = field(default_factory=list)
    structure_differs: bool = False
    inconsistent: list[int] = field(default_factory=list)  # elements two coordinates disagree on
    coefficient_changed: list[int] = field(default_factory=list)
    choices: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)
    replayed: Run | None = None
    fault: str | None = None  # what the program raised on D′ (it ran on D)


def compare(program: Callable | Session, neighbour: Any, recorded: Run, found: Probe, scale: bool = True) -> Comparison:
    """D′ replayed with D's draws, read against the probe of D (module notes); ``scale``: also replay D′ with the
    probe's shift, to see whether the coefficients moved."""
    try:
        other = replay(program, neighbour, recorded.calls)
    except Divergence as divergence:
        return Comparison(divergence)
    except ProgramFault as fault:  # raises on D′ only: an observable difference, reported beside the others
        return Comparison(None, fault=str(fault))
    out = Comparison(None, replayed=other)
    n = len(found.elements)
    shifts = np.full(n, np.nan)
    source = ["none"] * n
    if other.structure != recorded.structure or other.numbers.size != recorded.numbers.size:
        out.structure_differs = True
    else:
        _read_release(out, recorded.numbers, other.numbers, found, shifts, source)
    for j, element in enumerate(found.elements):  # the value the call shows, where no coordinate carries it
        if source[j] == "none":
            before, after = recorded.calls[element.call].value, other.calls[element.call].value
            shown = before is not None and after is not None
            # a location left at 0 on both sides shows nothing: the data may be added outside the call
            shown = shown and bool(np.any(np.asarray(before) != 0) or np.any(np.asarray(after) != 0))
            if shown:
                b = np.broadcast_to(np.asarray(before, dtype=float), np.shape(recorded.calls[element.call].noise))
                a = np.broadcast_to(np.asarray(after, dtype=float), np.shape(recorded.calls[element.call].noise))
                b, a = np.atleast_1d(b).ravel()[element.index], np.atleast_1d(a).ravel()[element.index]
                shifts[j] = math.inf if np.isnan(a) != np.isnan(b) else (0.0 if np.isnan(a) else a - b)
                source[j] = "value"
    out.shifts, out.source = shifts, source
    for k, call in enumerate(recorded.calls):
        if call.kind == "choice" and call.value is not None:
            out.choices.append((k, np.asarray(call.value, dtype=float), np.asarray(other.calls[k].value, dtype=float)))
    if scale and not out.structure_differs and n:
        if found.carried()[0].size:
            try:
                moved = replay(program, neighbour, recorded.calls, found.backwards())
            except Divergence:
                return out
            if moved.structure == other.structure:
                out.coefficient_changed += _moved_coefficients(moved.numbers, other.numbers, found)
    return out


def _moved_coefficients(moved: np.ndarray, other: np.ndarray, found: Probe) -> list[int]:
    """The elements whose coordinates, D′ replayed with the probe's −w (``moved``) against D′ (``other``), do not
    move by −a·w at D's coefficient a (to 1e-4); in Python for a small release (numpy's fixed cost per call exceeds
    the loop's).  A coordinate not finite on D′ (NaN through ``np.clip``) is left out: its shift is read as ∞
    already, and no coefficient can be read there."""
    carried, expected = found.carried()
    if moved.size > SMALL_RELEASE:
        changed = ~_close_arrays((moved - other)[carried], expected, 1e-4) & np.isfinite(other[carried])
        return found.carrier[carried][changed].tolist()
    after, before, carrier = moved.tolist(), other.tolist(), found.carrier.tolist()
    return [
        carrier[i]
        for i, e in zip(carried.tolist(), expected.tolist())
        if math.isfinite(before[i]) and not _close(after[i] - before[i], e, 1e-4)
    ]


def _read_release(
    out: Comparison, before: np.ndarray, after: np.ndarray, found: Probe, shifts: np.ndarray, source: list[str]
) -> None:
    """The release of D′ read against D's coordinate by coordinate, in numpy: a coordinate carrying element j gives
    j's shift (∞ where it turns NaN or infinite; two coordinates of j that disagree make j inconsistent); any other
    that differs is a noise-free or a noisy non-affine coordinate that differs."""
    if before.size <= SMALL_RELEASE:
        _read_small_release(out, before.tolist(), after.tolist(), found, shifts, source)
        return
    carrier = found.carrier
    carried = np.flatnonzero(carrier >= 0)
    if carried.size:
        with np.errstate(all="ignore"):
            shift = (after[carried] - before[carried]) / found.coefficient[carried]
        shift[(np.isnan(after[carried]) != np.isnan(before[carried])) | ~np.isfinite(shift)] = math.inf
        elements = carrier[carried]
        order = np.argsort(elements, kind="stable")  # by element, each element's coordinates in release order
        by_element, in_order = elements[order], shift[order]
        repeated = np.flatnonzero(by_element[1:] == by_element[:-1]) + 1
        apart = repeated[~_close_arrays(in_order[repeated], in_order[repeated - 1])]
        out.inconsistent = elements[np.sort(order[apart])].tolist() if apart.size else []
        last = np.append(by_element[1:] != by_element[:-1], True)  # each element's last coordinate gives its shift
        shifts[by_element[last]] = in_order[last]
        for j in by_element[last].tolist():
            source[j] = "release"
    rest = np.flatnonzero(carrier < 0)
    a, b = before[rest], after[rest]
    differ = np.where(np.isnan(a) | np.isnan(b), np.isnan(a) != np.isnan(b), a != b)
    out.free_differ = rest[differ & (carrier[rest] == -1)].tolist()
    out.noisy_differ = rest[differ & (carrier[rest] != -1)].tolist()


#: Releases of at most this many numbers are read in Python (numpy's fixed cost per call exceeds the loop's).
SMALL_RELEASE = 32


def _read_small_release(
    out: Comparison, before: list, after: list, found: Probe, shifts: np.ndarray, source: list[str]
) -> None:
    """:func:`_read_release` in Python, coordinate by coordinate (the same reading)."""
    carrier, coefficient = found.carrier.tolist(), found.coefficient.tolist()
    for i, (b, a) in enumerate(zip(before, after)):
        j = carrier[i]
        if j >= 0:
            shift = (a - b) / coefficient[i] if math.isfinite(a - b) and coefficient[i] else math.inf
            if math.isnan(a) != math.isnan(b) or not math.isfinite(shift):
                shift = math.inf
            if source[j] == "release" and not _close(float(shifts[j]), shift):
                out.inconsistent.append(j)
            shifts[j], source[j] = shift, "release"
        elif (math.isnan(a) != math.isnan(b)) if (math.isnan(a) or math.isnan(b)) else a != b:
            (out.free_differ if j == -1 else out.noisy_differ).append(i)


def _close(a: float, b: float, relative: float = 1e-6) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= relative * max(abs(a), abs(b)) + 1e-12


def _close_arrays(a: np.ndarray, b: np.ndarray, relative: float = 1e-6) -> np.ndarray:
    """Whether ``a`` and ``b`` agree, element by element, to ``relative`` (and 1e-12 absolute); infinities only
    with themselves."""
    with np.errstate(all="ignore"):
        near = np.abs(a - b) <= relative * np.maximum(np.abs(a), np.abs(b)) + 1e-12
    return np.where(np.isinf(a) | np.isinf(b), a == b, near)
