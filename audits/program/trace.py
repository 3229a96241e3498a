"""One recorded run of the program and its replays: the release encoded, the noise it carries, and what a
neighbouring dataset changes with the randomness held fixed.

**The release.**  ``program(data, rng)`` returns a number, an array, a pandas object, or a tuple/list/dict of them;
:func:`~pdp_audit.verify.inputs.release_codec.encode` encodes it losslessly into its structure (types, dtypes,
shapes, keys in order, strings, pandas labels, and what float64 cannot hold: one tuple) and its numbers (one float64
vector).  Two releases are the same only where their structures are equal and their numbers bitwise equal: a
coordinate *differs* where its bits differ (``-0.0`` from ``0.0``, one NaN payload from another); a coordinate that
carries noise is still read arithmetically, by its shift.  A release the codec cannot encode exactly (a generator, a
set, an object) is one :class:`~pdp_audit.verify.inputs.release_codec.UnencodableRelease`, exit 2.

**What carries the noise** is read by the probe (:mod:`.probing`).

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
import functools
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pdp_audit.audits.program import landing
from pdp_audit.audits.program.events import Event, Unrecorded
from pdp_audit.audits.program.faults import raised_at
from pdp_audit.audits.program.recorder import Divergence, RecordingGenerator, Tape
from pdp_audit.audits.program.sources import sources_recorded
from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.inputs import release_codec
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS

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


@dataclass(frozen=True)
class Run:
    """One run of the program: its release (:func:`~pdp_audit.verify.inputs.release_codec.encode`'s structure and
    numbers) and the calls it made (its record: :mod:`.events`)."""

    structure: tuple
    numbers: np.ndarray
    calls: tuple[Event, ...]
    rescaled: tuple[tuple[int, str, str], ...] = ()  # (index, recorded, replayed) of calls replayed at another scale
    unrecorded: tuple[Unrecorded, ...] = ()  # randomness used but not recorded


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
        return self.sources.wrap_new() or len(sys.modules) > modules

    def _once(self, data: Any, tape: Tape) -> Run:
        self.tape = tape
        with tape.running(), self.sources:  # numpy's global state, Python's random …: drawn from the tape for this run
            release = call_program(self.program, data, self.rng.rewind(tape), modules=False)
        tape.finish()
        structure, numbers = release_codec.parts(release)
        calls = tape.recorded if tape.recording else tape.replayed
        return Run(structure, numbers, tuple(calls), tuple(tape.rescaled), tuple(tape.unrecorded))


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


def replay(program: Callable | Session, data: Any, recorded: Sequence[Event], perturb: dict | None = None) -> Run:
    """``program`` run on ``data`` with the ``recorded`` calls' draws (``perturb``: shifts of some of them)."""
    return run(program, data, Tape(recorded, perturb))


#: One call's noise elements: the call's index, the elements' range [start, stop) in the probe's list, their flat
#: indices in the call's noise.
Span = tuple[int, int, int, np.ndarray]


@dataclass(frozen=True)
class Element:
    """One noise element: call ``call``, flat index ``index`` in it, its scale and law (None: no exact law);
    ``partner``: a call whose element ``index`` moves with it, the same shift added to both (−1: none; the common
    part of two paired integer draws, :mod:`.lattice_noise`)."""

    call: int
    index: int
    scale: float
    law: str | None
    partner: int = -1


@dataclass(frozen=True)
class Probe:
    """What carries the noise at the recorded draws, built once by :func:`.probing.probe`: per release coordinate, the
    element it carries (``carrier``: −1 none, −2 noisy but not affine) and its coefficient; ``elements`` the additive
    noise elements; ``step`` the shift w of each (a power of two; a whole number on an integer lattice);
    ``reproducible``: the record replays to the same release on D.
    ``minus`` and ``plus``: each coordinate's response on D to −w and to +w, as computed (every neighbour's response
    is read against them, :func:`.comparison.classified`), and ``bound_minus``, ``bound_plus`` their rounding bounds
    (:func:`.replay_bounds.response_bound`); ``size``: per element, |location| + |noise| + w on D (the magnitudes
    the bound counts)."""

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
    #: whether the release on D moves with the common part of paired integer draws (:mod:`.lattice_noise`)
    common_moved: bool = False
    #: the noisy, non-affine coordinates read as a rounding of one element's noisy value (:mod:`.landing`)
    landings: list[landing.Landing] = field(default_factory=list)
    #: per element, |noise| at the recorded draws (every replay's calls carry them, :meth:`.recorder.Tape.next_call`),
    #: and the elements grouped by call (:func:`spans`)
    noise: np.ndarray = field(default_factory=lambda: np.zeros(0))
    spans: tuple[Span, ...] = ()

    def backwards(self) -> dict[int, np.ndarray]:
        """:meth:`perturbation` by −``step`` (every neighbour's check of the coefficients), made once."""
        return self._backwards

    def named(self) -> dict[int, np.ndarray]:
        """:meth:`perturbation` by the naming shift v (:attr:`naming`), made once."""
        return self._named

    def carried(self) -> Carried:
        """The :class:`Carried` coordinates, made once (every neighbour reads the same)."""
        return self._carried

    def columns(self) -> Columns:
        """The elements' fields as arrays (:class:`Columns`), made once."""
        return self._columns

    # made on first use (a probe no neighbour reads needs none), each a function of the fields above
    _backwards = functools.cached_property(lambda self: self.perturbation(-self.step))
    _named = functools.cached_property(lambda self: self.perturbation(self.naming))
    _carried = functools.cached_property(lambda self: Carried.of(self))
    _columns = functools.cached_property(lambda self: Columns.of(self.elements))

    def perturbation(self, shifts: np.ndarray) -> dict[int, np.ndarray]:
        """Per call index, the array added to its recorded noise (each call's elements at their flat indices, 0
        elsewhere, as long as its largest index; an element with a partner call adds its shift there too)."""
        shifts = np.asarray(shifts, dtype=float)
        result = {}
        for call, start, stop, indices in self.grouped():
            array = np.zeros(int(indices.max()) + 1)
            array[indices] = shifts[start:stop]
            result[call] = array
        for call, start, _, indices in self.grouped():
            partner = self.elements[start].partner
            if partner >= 0:  # the partner's own elements precede (pairs are made in call order): its array exists
                result[partner][indices] += result[call][indices]
        return result

    def grouped(self) -> tuple[Span, ...]:
        """The elements grouped by call (:attr:`spans`, or :func:`spans` where the probe was made without them)."""
        return self.spans or spans(self.elements)


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
    division is exact; the response's bound, :func:`.replay_bounds.response_bound`, over |Δ̂(w)| -- where that
    exceeds 1/2, ∞)."""
    if found.plus.size != found.carrier.size:
        return np.zeros(found.carrier.size)
    with np.errstate(all="ignore"):
        error = found.bound_plus / np.abs(found.plus)
    return np.where(error <= 0.5, error / (1 - error), math.inf)


def spans(elements: list[Element]) -> tuple[Span, ...]:
    """The ``elements`` grouped by call (a call's elements are consecutive: :func:`.probing.additive_elements`)."""
    if not elements:
        return ()
    columns = Columns.of(elements)
    starts = np.flatnonzero(np.diff(columns.call, prepend=columns.call[0] - 1))
    stops = np.append(starts[1:], len(elements))
    return tuple(
        (int(columns.call[a]), int(a), int(b), columns.index[a:b]) for a, b in zip(starts.tolist(), stops.tolist())
    )
