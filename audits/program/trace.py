"""One recorded run of the program and its replays: the release encoded, the noise it carries, and what a
neighbouring dataset changes with the randomness held fixed.

**The release.**  ``program(data, rng)`` returns a number, an array, a pandas object, or a tuple/list/dict of them;
:func:`~pdp_audit.verify.inputs.release_codec.encode` encodes it losslessly into its structure (types, dtypes,
shapes, keys in order, strings, pandas labels, and what float64 cannot hold: one tuple) and its numbers (one float64
vector).  Two releases are the same only where their structures are equal and their numbers bitwise equal: a
coordinate *differs* where its bits differ (``-0.0`` from ``0.0``, one NaN payload from another); a coordinate that
carries noise is still read arithmetically, by its shift.  A release the codec cannot encode exactly (a generator, a
set, an object) is one :class:`~pdp_audit.verify.inputs.release_codec.UnencodableRelease`, exit 2.

**What carries the noise** (:func:`probe`).  Every noise element of an additive primitive (a location family, an
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

**A neighbour** is read against the probe in :mod:`.comparison`: D′ replayed at −w shows each carried coordinate's
coefficient, and at v which element it carries -- the same ratio test, so a coordinate whose element changes with
the data (noise added in an order the data sets) is not read as D's element moved.

**What this reading is sound for.**  It reads the release at the recorded draws and at a few draws near them: it is
sound for a release g(f(D) + η) whose coordinates are, near the recorded draws, affine in each noise element with a
coefficient the data does not set (each coordinate's element checked on each D′ as on D), computed in the model of
:mod:`.replay_bounds` (at most 16 rounded operations after the noise), and whose post-processing g does not depend
on the data.  What it cannot see it leaves undecided,
never certified: a path, a weight or a threshold the data moves only away from the recorded draws is the further
draw sets' (:mod:`.analysis`) and the black box's to find.  Its limits: a coefficient moved by less than the rounding
resolution of the shift (about 2⁻⁴⁰ of it for a release of the noise's magnitude) is not seen; and the ratio test
names one element where several share a coordinate with coefficients whose weighted ranks average to a rank (a sum
of every noisy count): the neighbour's reading of it is then inconsistent or its shift misread.
"""

from __future__ import annotations

import contextlib
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from pdp_audit.audits.program import landing, reproduction
from pdp_audit.audits.program.faults import raised_at
from pdp_audit.audits.program.libraries import libraries_wrapped
from pdp_audit.audits.program.recorder import (
    LOCATION_FAMILIES,
    Call,
    Divergence,
    RecordingGenerator,
    Tape,
)
from pdp_audit.audits.program.replay_bounds import response_bound
from pdp_audit.audits.program.sources import sources_recorded
from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.inputs import release_codec
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS

#: Size of the probe's shifts, as a share of each noise element's scale (rounded down to a power of two).
PROBE_STEP = 1e-3
#: Relative agreement asked of the probe's responses to v and w (the rank's test, with ``1/(1000 N)``) and to w and −w
#: before a coordinate is read as affine.  Not a rounding bound and not a decision: a coordinate that fails it is
#: noisy but not affine (its shift unread: undecided); one that passes is read as affine at the recorded draws and its
#: coefficient is then held, on every neighbour, to the exact comparison of :func:`.comparison.classified`.
PROBE_TOLERANCE = 1e-6
#: Releases of at most this many numbers are read in Python (numpy's fixed cost per call exceeds the loop's).
SMALL_RELEASE = 32
#: The generator's seed of the recorded run, for the draws no primitive records (the same in every replay).
BASE_SEED = 20_240_601


class ProgramFault(Exception):
    """The user's program raised (or returned what cannot be read as a release): their fault, in one line;
    ``place``: the line of their code it came from (:func:`.faults.raised_at`; None: not shown)."""

    def __init__(self, message: str, place: str | None = None):
        super().__init__(message)
        self.place = place


def call_program(program: Callable, data: Any, rng: np.random.Generator, modules: bool = True) -> Any:
    """The one crossing into the user's program: ``program(data, rng)`` under the sandbox's
    :func:`~pdp_audit.verify.core.sandbox.user_state` (the process state it changes is given back; ``modules``
    False: ``sys.modules`` by an enclosing :class:`Session`); whatever it raises, ``sys.exit`` included, becomes
    :class:`ProgramFault` naming it in one line; a :class:`Divergence` and an interruption (Ctrl-C, SIGTERM) pass
    through.  The program is given a copy of ``data`` (:func:`given`)."""
    try:
        with user_state(modules=modules):
            return program(given(data), rng)
    except Divergence:
        raise
    except BaseException as err:  # the user's code: whatever it raises is its fault, reported as such
        if isinstance(err, INTERRUPTIONS):
            raise
        raise ProgramFault(f"the program raised {user_error(err)}"[:300], raised_at(err)) from None


def given(data: Any) -> Any:
    """``data`` as one call of the program gets it: a copy (numpy's, pandas' own ``copy``, deep).  A program may
    change its input in place (``data.drop(..., inplace=True)``, ``data["x"] = ...``) as it may in deployment, where
    it is called once; here D and each D′ are run again and again, and the next run -- the audit's own reading of D
    too -- saw the changed data (an internal error, exit 4, where a record had gone)."""
    copy = getattr(data, "copy", None)
    return data if copy is None else copy()


@dataclass
class Run:
    """One run of the program: its release (:func:`~pdp_audit.verify.inputs.release_codec.encode`'s structure and
    numbers) and the calls it made."""

    structure: tuple
    numbers: np.ndarray
    calls: list[Call]
    rescaled: list = field(default_factory=list)  # (index, recorded, replayed) of calls replayed at another scale
    unrecorded: list = field(default_factory=list)  # randomness used but not recorded (sources.Unrecorded)


class Session:
    """The runs of one program in one analysis, set up once (a set-up per run cost several times a small program's
    run): diffprivlib's and OpenDP's primitives wrapped on entering and restored on leaving, one
    :class:`RecordingGenerator` rewound for each run, and ``sys.modules`` given back on leaving
    (:func:`~pdp_audit.verify.core.float_rules.user_modules`; every other piece of process state after each run).
    Between two runs only code that imports nothing runs (the replay's comparison, in numpy); what imports -- the
    composition -- runs after the block, or within it under :meth:`ours`."""

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
        self._modules = user_modules()
        self._modules.__enter__()
        self._stack.callback(self._modules_back)  # the first entered, the last left: as ``enter_context`` would
        self.libraries = self._stack.enter_context(libraries_wrapped(lambda: self.tape))
        self.sources = self._stack.enter_context(sources_recorded(lambda: self.tape, lambda: self.rng))
        # every run's floating-point conditions ignored, entered once: what a run sets is undone after it
        # (call_program's user_state), back to this
        self._stack.enter_context(np.errstate(all="ignore"))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _modules_back(self) -> None:
        self._modules.__exit__(None, None, None)

    @contextlib.contextmanager
    def ours(self) -> Iterator[None]:
        """A stretch of our own code that imports (the composition) between two blocks of runs, in the session:
        ``sys.modules`` given back first, as on leaving the session, and taken anew after it, as on entering one
        (an import of ours never meets a module the program removed or blocked, ``sys.modules["scipy.stats"] =
        None``).  The rest of the session stays: the libraries' primitives wrapped (our code calls none: an OpenDP
        privacy map is not wrapped) and the randomness sources replaced, each drawing as numpy's or Python's own
        outside a run (:class:`~pdp_audit.audits.program.sources.Sources`); entering a new session instead cost
        more than a small program's run on a hundred neighbours (its generators made again, every source
        replaced)."""
        self._modules_back()
        try:
            yield
        finally:
            self._modules = user_modules()
            self._modules.__enter__()

    def run(self, data: Any, tape: Tape) -> Run:
        """The program on ``data`` with the generator on ``tape`` (recording or replaying); its release encoded after
        the call (a release the codec refuses is the user's input error, exit 2, not a fault of the call).  A run
        that imported a library the session had not wrapped (an import in the program's body) drew its noise
        unwrapped: the library is wrapped and the run made again on its tape, restarted.  So is a run that imported
        any module: what a module draws while it is first imported (a library sampling its constants at import)
        is drawn once in a process, not once a release, and would stand first on the record and on no replay (the
        replay on D diverging at its first call); the run after it draws the release's noise alone.  Sound: the
        import's draws do not depend on the data, and the record, its replays and the black box's releases all
        run with the modules imported, their state fixed (a guarantee that holds at each fixed state holds for
        their mixture)."""
        modules = len(sys.modules)
        try:
            done = self._once(data, tape)
        except (Exception, Divergence):
            if not self._again(modules):
                raise
        else:
            if not self._again(modules):
                return done
        tape.restart()
        return self._once(data, tape)

    def _again(self, modules: int) -> bool:
        """Whether the run just made is made again: a library newly wrapped, or a module imported during it."""
        # both called whatever the count says: each wraps what was newly imported
        wrapped = self.libraries.wrap_new()
        drawn = self.sources.wrap_new()
        return wrapped or drawn or len(sys.modules) > modules

    def _once(self, data: Any, tape: Tape) -> Run:
        self.tape = tape
        with tape.running(), self.sources:  # numpy's global state, Python's random …: drawn from the tape for this run
            release = call_program(self.program, data, self.rng.rewind(tape), modules=False)
        tape.finish()
        structure, numbers = release_codec.parts(release)
        calls = tape.recorded if tape.recording else tape.replayed
        return Run(structure, numbers, calls, tape.rescaled, tape.unrecorded)


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


#: One call's noise elements: the call's index, the elements' range [start, stop) in the probe's list, their flat
#: indices in the call's noise.
Span = tuple[int, int, int, np.ndarray]


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
    ``step`` the shift w of each (a power of two; a whole number on an integer lattice); ``reproducible``: the record
    replays to the same release on D.
    ``minus`` and ``plus``: each coordinate's response on D to −w and to +w, as computed (every neighbour's response
    is read against them, :func:`.comparison.classified`), and ``bound_minus``, ``bound_plus`` their rounding bounds
    (:func:`response_bound`); ``size``: per element, |location| + |noise| + w on D (the magnitudes the bound counts)."""

    elements: list[Element]
    carrier: np.ndarray
    coefficient: np.ndarray
    step: np.ndarray
    reproducible: bool
    unperturbed: list[str] = field(default_factory=list)  # calls whose draws the probe cannot shift
    #: how a replay on D departed from the record, in words (:mod:`.reproduction`; "" where none did, or where a
    #: source the record noted says why)
    departed: str = ""
    minus: np.ndarray = field(default_factory=lambda: np.zeros(0))
    plus: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bound_minus: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bound_plus: np.ndarray = field(default_factory=lambda: np.zeros(0))
    size: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: the probe's second shift v = w·(1 + rank/N), one ratio v/w per element (its rank names it): a neighbour's
    #: check that each carried coordinate carries the same element on D′ (:func:`.comparison._carriers_read`)
    naming: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: the noisy, non-affine coordinates read as a rounding of one element's noisy value (:mod:`.landing`)
    landings: list[landing.Landing] = field(default_factory=list)
    #: per element, |noise| at the recorded draws (every replay's calls carry them, :meth:`.recorder.Tape.next_call`),
    #: and the elements grouped by call (:func:`spans`)
    noise: np.ndarray = field(default_factory=lambda: np.zeros(0))
    spans: tuple[Span, ...] = ()
    _backwards: dict[int, np.ndarray] | None = field(default=None, repr=False, compare=False)
    _named: dict[int, np.ndarray] | None = field(default=None, repr=False, compare=False)
    _carried: Carried | None = field(default=None, repr=False, compare=False)
    _columns: Columns | None = field(default=None, repr=False, compare=False)

    def backwards(self) -> dict[int, np.ndarray]:
        """:meth:`perturbation` by −``step`` (every neighbour's check of the coefficients), made once."""
        if self._backwards is None:
            self._backwards = self.perturbation(-self.step)
        return self._backwards

    def named(self) -> dict[int, np.ndarray]:
        """:meth:`perturbation` by the naming shift v (:attr:`naming`), made once."""
        if self._named is None:
            self._named = self.perturbation(self.naming)
        return self._named

    def carried(self) -> Carried:
        """The :class:`Carried` coordinates, made once (read after the probe is complete: every neighbour reads
        the same)."""
        if self._carried is None:
            self._carried = Carried.of(self)
        return self._carried

    def perturbation(self, shifts: np.ndarray) -> dict[int, np.ndarray]:
        """Per call index, the array added to its recorded noise (each call's elements at their flat indices, 0
        elsewhere, as long as its largest index)."""
        shifts = np.asarray(shifts, dtype=float)
        result = {}
        for call, start, stop, indices in self.grouped():
            array = np.zeros(int(indices.max()) + 1)
            array[indices] = shifts[start:stop]
            result[call] = array
        return result

    def columns(self) -> Columns:
        """The elements' fields as arrays (:class:`Columns`), made once."""
        if self._columns is None:
            self._columns = Columns.of(self.elements)
        return self._columns

    def grouped(self) -> tuple[Span, ...]:
        """The elements grouped by call (:func:`spans`), made once."""
        if not self.spans and self.elements:
            self.spans = spans(self.elements)
        return self.spans


@dataclass(frozen=True)
class Columns:
    """The probe's elements as arrays, for the readings of every neighbour in numpy: per element its call, its flat
    index in the call's noise, its scale, and its law (None: no exact law; an object array)."""

    call: np.ndarray
    index: np.ndarray
    scale: np.ndarray
    law: np.ndarray

    @staticmethod
    def of(elements: list[Element]) -> Columns:
        call = np.fromiter((e.call for e in elements), dtype=np.int64, count=len(elements))
        index = np.fromiter((e.index for e in elements), dtype=np.int64, count=len(elements))
        scale = np.fromiter((e.scale for e in elements), dtype=float, count=len(elements))
        law = np.empty(len(elements), dtype=object)
        law[:] = [e.law for e in elements]
        return Columns(call, index, scale, law)


@dataclass(frozen=True)
class Carried:
    """What every neighbour's reading of a probe needs and no neighbour changes, made once
    (:meth:`Probe.carried`): ``at`` the coordinates that carry a noise element, ``element`` the element each carries
    and ``magnitude`` its coefficient's |a|; ``shared`` those of ``at`` whose element another coordinate carries too
    (only their shifts are held against each other, :func:`.comparison._read_release`); ``error`` per coordinate, the
    relative error bound of its coefficient as read (:func:`coefficient_error`); and as Python lists, for the
    readings of a small release (:data:`SMALL_RELEASE`): ``listed`` the coordinates of ``at``, ``coefficient`` and
    ``minus`` per coordinate, the probe's."""

    at: np.ndarray
    element: np.ndarray
    magnitude: np.ndarray
    shared: np.ndarray
    error: np.ndarray
    listed: list[int]
    coefficient: list[float]
    minus: list[float]

    @staticmethod
    def of(found: Probe) -> Carried:
        at = np.flatnonzero(found.carrier >= 0)
        element = found.carrier[at]
        counts = np.bincount(element, minlength=len(found.elements)) if at.size else np.zeros(0, dtype=int)
        shared = at[counts[element] > 1] if at.size else at
        magnitude = np.abs(found.coefficient[at])
        lists = (at.tolist(), found.coefficient.tolist(), found.minus.tolist())
        return Carried(at, element, magnitude, shared, coefficient_error(found), *lists)


def coefficient_error(found: Probe) -> np.ndarray:
    """Per coordinate, a bound on the relative error of its coefficient â = Δ̂(w)/w as read (w a power of two: the
    division is exact; the response's bound, :func:`response_bound`, over |Δ̂(w)| -- where that exceeds 1/2, ∞)."""
    if found.plus.size != found.carrier.size:
        return np.zeros(found.carrier.size)
    with np.errstate(all="ignore"):
        error = found.bound_plus / np.abs(found.plus)
    return np.where(error <= 0.5, error / (1 - error), math.inf)


def additive_elements(calls: list[Call]) -> tuple[list[Element], list[str]]:
    """The noise elements a probe can shift (location families and additive diffprivlib mechanisms) and the
    signatures of the calls it cannot."""
    elements, others = [], []
    for k, call in enumerate(calls):
        library = call.kind.startswith("diffprivlib.") and call.law is not None
        if call.kind not in LOCATION_FAMILIES and not library and call.law != "library":
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
    again = reproduction.reproduced(lambda: replay(program, data, recorded.calls), recorded)
    reproducible = again.same
    elements, others = additive_elements(recorded.calls)
    m = recorded.numbers.size
    carrier, coefficient = np.full(m, -1), np.zeros(m)
    n = len(elements)
    step = _powers_of_two([PROBE_STEP * (e.scale if e.scale > 0 and math.isfinite(e.scale) else 1.0) for e in elements])
    step = _on_lattices(step, elements, recorded.calls)
    probe = Probe(elements, carrier, coefficient, step, reproducible, others, departed=again.how)
    if n == 0 or m == 0:
        return probe
    ranks = np.random.default_rng(seed).permutation(n)
    responses, moved_releases = [], []
    naming = step * (1 + ranks / n)
    for shifts in (step, naming, -step):
        try:
            moved = replay(program, data, recorded.calls, probe.perturbation(shifts))
        except Divergence:  # the path moved with the noise (a stopping time): nothing is read as affine here
            carrier[:] = -2
            return probe
        if moved.structure != recorded.structure:  # a threshold crossed: nothing is read as affine here
            carrier[:] = -2
            return probe
        with np.errstate(all="ignore"):
            responses.append(moved.numbers - recorded.numbers)
        moved_releases.append(moved.numbers)
    by_w, by_v, by_minus = responses
    probe.grouped()
    probe.noise = noise_sizes(recorded.calls, probe.spans, n)
    probe.size = sized(probe.noise, location_sizes(recorded.calls, probe.spans, n), step)
    # free of this noise at the recorded draws: its replays are the recorded bits (a zero whose sign the noise flips
    # moves by 0 and is not free)
    moved_bits = [release_codec.differ(moved, recorded.numbers) for moved in moved_releases]
    unmoved = ~(moved_bits[0] | moved_bits[1] | moved_bits[2])
    at_w, at_minus = moved_releases[0], moved_releases[2]
    _read_affine(probe, (by_w, by_v, by_minus), (at_w, at_minus, recorded.numbers), unmoved, ranks)
    weight = weights(probe, probe.size)
    probe.minus, probe.plus = by_minus, by_w
    probe.bound_minus = response_bound(moved_releases[2], recorded.numbers, by_minus, weight)
    probe.bound_plus = response_bound(moved_releases[0], recorded.numbers, by_w, weight)
    probe.naming = naming
    _coarse(program, data, recorded, probe)
    if (carrier == -2).any():  # a landing is read among those coordinates only
        drawn = draws(recorded.calls, probe.spans, n).tolist()
        noises = [landing.Noise(e.law, e.scale, d) for e, d in zip(elements, drawn)]
        probe.landings = landing.found(replayer(program, data, recorded, probe), recorded.numbers, carrier, noises)
    return probe


def _on_lattices(step: np.ndarray, elements: list[Element], calls: list[Call]) -> np.ndarray:
    """``step`` with each element whose noise lies on the integer lattice (an OpenDP measurement's integer output:
    :func:`.opendp_chains.integers`) shifted by n, the number of elements, instead: its three shifts n, n + rank and
    −n are whole numbers, so its replays stay integers of the measurement's own type (a fraction would change the
    release's structure, and nothing would be read), and the ratios 1 + rank/n the probe decodes are the same."""
    lattice = [calls[e.call].details.get("lattice", False) for e in elements]
    return np.where(lattice, float(len(elements)), step) if any(lattice) else step


def _read_affine(
    probe: Probe, responses: tuple[np.ndarray, ...], releases: tuple[np.ndarray, ...], unmoved: np.ndarray, ranks: Any
) -> None:
    """Each coordinate the probe moved read as carrying one element affinely, or not (module notes), into
    ``probe.carrier`` and ``probe.coefficient``: ``responses`` to w, v and −w, ``releases`` the replays at w and −w
    and the recorded one; ``ranks`` the permutation that sets v.  The ratio ΔR_i(v)/ΔR_i(w) names the element of
    rank round((ratio − 1)·N) (within 1e-3/N + :data:`PROBE_TOLERANCE` of it), whose coefficient is ΔR_i(w)/w_j;
    −w must undo w to :data:`PROBE_TOLERANCE` plus the two responses' proven rounding bounds.  Every coordinate at
    once, in numpy (each operation the same float operation as for one coordinate alone)."""
    by_w, by_v, by_minus = responses
    at_w, at_minus, numbers = releases
    n = len(probe.elements)
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
        a = np.where(named, by_w / probe.step[j], 0.0)
        affine = named & (np.abs(ratio - (1 + rank / n)) < tolerance)
        # −w undoes w to the two responses' proven rounding bounds (a mean's division at a large offset rounds)
        weight = np.abs(a) * probe.size[j]
        rounding = response_bound(at_minus, numbers, by_minus, weight)
        rounding += response_bound(at_w, numbers, by_w, weight)
        affine &= np.abs(by_minus + by_w) <= PROBE_TOLERANCE * np.abs(by_w) + rounding
    probe.carrier[moved] = -2
    probe.carrier[affine] = j[affine]
    probe.coefficient[affine] = a[affine]


def naming_tolerance(n: int) -> float:
    """How near a coordinate's ratio ΔR(v)/ΔR(w) must lie to 1 + r/N to name the element of rank r, of N: 1e-3/N +
    :data:`PROBE_TOLERANCE`, below 1/(2N), so one rank at most (the probe's reading on D and each neighbour's check
    on D′, :func:`.comparison._carriers_read`)."""
    return 1e-3 / n + PROBE_TOLERANCE


def _powers_of_two(sizes: list[float]) -> np.ndarray:
    """The largest power of two at most each of ``sizes`` (all > 0): ``frexp`` is exact, so is ``ldexp``."""
    exponents = np.frexp(np.asarray(sizes, dtype=float))[1] - 1
    return np.ldexp(1.0, exponents)


def spans(elements: list[Element]) -> tuple[Span, ...]:
    """The ``elements`` grouped by call (a call's elements are consecutive: :func:`additive_elements`)."""
    if not elements:
        return ()
    columns = Columns.of(elements)
    starts = np.flatnonzero(np.diff(columns.call, prepend=columns.call[0] - 1))
    stops = np.append(starts[1:], len(elements))
    return tuple(
        (int(columns.call[a]), int(a), int(b), columns.index[a:b]) for a, b in zip(starts.tolist(), stops.tolist())
    )


def draws(calls: list[Call], grouped: tuple[Span, ...], count: int) -> np.ndarray:
    """Per element, its noise in ``calls`` (signed, in its own units)."""
    out = np.zeros(count)
    for call, start, stop, indices in grouped:
        out[start:stop] = np.atleast_1d(np.asarray(calls[call].noise, dtype=float)).ravel()[indices]
    return out


def noise_sizes(calls: list[Call], grouped: tuple[Span, ...], count: int) -> np.ndarray:
    """Per element, |noise| in ``calls``."""
    out = np.zeros(count)
    for call, start, stop, indices in grouped:
        out[start:stop] = np.abs(np.atleast_1d(np.asarray(calls[call].noise, dtype=float)).ravel())[indices]
    return out


def location_sizes(calls: list[Call], grouped: tuple[Span, ...], count: int) -> np.ndarray:
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


def neighbour_sizes(found: Probe, calls: list[Call]) -> np.ndarray:
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


def _coarse(program: Callable | Session, data: Any, recorded: Run, found: Probe) -> None:
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
    # any change is the noise's: a coordinate free of it replays to the recorded bits
    found.carrier[free & release_codec.differ(moved.numbers, recorded.numbers)] = -2
