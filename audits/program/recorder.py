"""Record and replay of a program's noise primitives, with no decoration by the user.

A program ``program(data, rng)`` draws its randomness from ``rng``, a :class:`RecordingGenerator` (a
``numpy.random.Generator`` whose public methods are wrapped); the libraries' mechanisms are wrapped too
(:mod:`~pdp_audit.audits.program.adapters`).  Each primitive call becomes a frozen event (:mod:`.events`).

**Replay** (the grey-box idea of Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026, §4, realised here
without decorators): the program runs again, on a neighbouring dataset D′, and every primitive returns the noise
recorded on D -- a location family returns ``loc′ + z`` for the recorded ``z``, ``choice`` the recorded index, any
other method the recorded output.  Holding the randomness fixed, what differs between the two runs is the data's
doing: the values the primitives are applied to (their sensitivity) and the release's noise-free parts.  A call whose
kind, shape or parameters differ from the recorded one's is a control-flow divergence (:class:`Divergence`, raised
as a ``BaseException`` so that the program's own ``except Exception`` does not swallow it).

A replay can also shift the recorded noise (``perturb``): how the release moves when a primitive's noise moves says
which release coordinates carry that noise additively (:mod:`pdp_audit.audits.program.trace`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
import sys
import traceback
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar, cast

import numpy as np

from pdp_audit.audits.program import file_reads, lattice_noise
from pdp_audit.audits.program.events import Choice, Draw, Event, Located, Unrecorded
from pdp_audit.audits.program.forked_notes import ForkedNote

#: An event of one class: a replay's call and the recorded one it stands for.
AnEvent = TypeVar("AnEvent", bound=Event)
#: The noise law of each location-scale family as the accounting knows it (None: no exact privacy-loss law here):
#: ``method(loc, scale, size)``, its noise ``output − loc``.
NOISE_LAW = {"laplace": "laplace", "normal": "gaussian", "gumbel": None, "logistic": None}
#: Methods never wrapped: not randomness.
_UNWRAPPED = ("bit_generator",)
#: Randomness the recorder cannot see: the certificate says so.
NOT_RECORDED = (
    "randomness the audit does not record that rarely changes the release (compiled code, the clock, hash seed) -- "
    "a replay on D, here or in a fresh process, shows the rest"
)


#: Why a copy or a saved state of a recorded stream keeps the claim undecided (:class:`WatchedPCG64`).
REPEATED = (
    "a recorded generator's state copied, saved or restored: its draws repeat recorded ones, which the audit would "
    "count as fresh noise (undecided)"
)

#: Why a source the audit cannot replay keeps the claim undecided (:mod:`.entropy`; :mod:`.sources`).
UNREPLAYABLE = "randomness the audit cannot replay: the claim stays undecided"
#: Why a draw in a process the program forked keeps the claim undecided (:attr:`Tape.depth`).
ELSEWHERE = "randomness drawn in another process, which the audit does not record: the claim stays undecided"
#: Where a copy the program forked notes a draw it made (:class:`~.forked_notes.ForkedNote`, made before any fork).
DRAWN_ELSEWHERE = ForkedNote()

#: Why a seeded source is not recorded (:mod:`.sources`, :mod:`.adapters.torch_draws`).
FIXED = "noise seeded with a constant: not random (its draws are not recorded; the audit does not count them as noise)"
SAVED = "noise from a saved state: fixed, not random (its draws are not recorded)"


class Divergence(BaseException):
    """A replay's call differs from the recorded one (or the program made more or fewer calls): ``index`` of the
    first diverging call, ``recorded`` and ``replayed`` as one line each; ``line``: the program's line where the
    replay diverged (the replayed call's, or the recorded call's where the replay made no further call; "" where
    none is known)."""

    def __init__(self, index: int, recorded: str, replayed: str, moved: float = 0.0, line: str = ""):
        super().__init__(f"call {index}: recorded {recorded}, replayed {replayed}")
        self.index, self.recorded, self.replayed = index, recorded, replayed
        #: where the same primitive was called with other numeric parameters: how far they moved (:func:`moved`)
        self.moved = moved
        self.line = line

    def __reduce__(self) -> tuple:
        """Its arguments, not its message: an exception is pickled as ``(class, args)``, and ``args`` holds the
        message alone, so a Divergence raised in the sandbox's child could not be rebuilt in the parent."""
        return (type(self), (self.index, self.recorded, self.replayed, self.moved, self.line))

    def words(self) -> str:
        """The divergence in one line, with the program's line: ``call 1: recorded …, replayed … (at prog.py:8)``."""
        return f"{self}{f' (at {self.line})' if self.line else ''}"


def moved(expected: Mapping[str, Any], given: Mapping[str, Any]) -> float:
    """How far a call's numeric parameters moved, in [0, 1): m/(1 + m) for m the largest relative change |b − a|/|a|
    over the finite parameters that differ (|b| where a = 0; 0 where none is).  Not a privacy loss: an order among
    divergences, so that the black box confirms first the pair whose mechanism was re-parameterised most."""
    largest = 0.0
    for key, a in expected.items():
        b: Any = given.get(key)
        numbers = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in (a, b))
        if not numbers or a == b:
            continue
        x, y = float(a), float(b)
        change = abs(y - x) / abs(x) if x != 0 else abs(y)
        largest = max(largest, change) if math.isfinite(change) else largest
    return largest / (1.0 + largest)


def _same(a: Any, b: Any) -> bool:
    """Parameters compared exactly (NaN equal to NaN: the same parameter, recomputed)."""
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 0 == b.ndim and a.dtype.kind in "biuf":
        x, y = a.item(), b.item()  # a scalar parameter (most calls): without array_equal's cost
        return bool(x == y or (x != x and y != y))
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            return bool(np.array_equal(x, y, equal_nan=True))
        return bool(np.array_equal(x, y))
    except (TypeError, ValueError):
        return a == b


class Tape:
    """The calls of one run, in order; a replay reads them back (``perturb``: per call index, an array added to a
    location family's recorded noise).  A tape is live while its run is under way (:meth:`running`), in the process
    that made it: a draw anywhere else is not the run's (:attr:`depth`)."""

    def __init__(self, calls: Sequence[Event] | None = None, perturb: dict[int, np.ndarray] | None = None):
        self.recording = calls is None
        self.recorded: list[Event] = [] if calls is None else list(calls)
        self.replayed: list[Event] = []
        self.perturb = perturb or {}
        self._depth = 0  # > 0 inside a wrapped library primitive: its own draws are not primitives of the program
        self.pid = os.getpid()
        self.closed = False  # its run has ended (:meth:`running`)
        #: calls replayed with another scale (a location family whose scale alone differs): (index, recorded, replayed)
        self.rescaled: list[tuple[int, str, str]] = []
        #: randomness the run used whose draws are not recorded (:class:`~pdp_audit.audits.program.sources.Unrecorded`)
        self.unrecorded: list = []

    @property
    def depth(self) -> int:
        """Above 0 where a draw on this tape is not a call of its run, and is drawn as it is, unrecorded: inside a
        wrapped library primitive (its own draws); in a copy of the process the program forked (a pool's worker: a
        replay's divergence there would kill the worker, whose task the pool then awaits forever), noted to the audit's
        process (:data:`DRAWN_ELSEWHERE`); on a tape whose run has ended (a generator the program kept, drawn in the
        black box's releases: :attr:`RecordingGenerator._tape`)."""
        if self._depth:
            return self._depth
        if self.pid != os.getpid():
            DRAWN_ELSEWHERE.post(program_line())
            return 1
        return 1 if self.closed else 0

    def running(self) -> _Run:
        """The run of this tape (a context, :class:`_Run`): live inside the block, closed after it, the draws a copy
        the run forked noted (:attr:`depth`), a read of the audited data file refused (:func:`.file_reads.noted`)."""
        return _Run(self)

    def restart(self) -> None:
        """The tape as before its run: a recording emptied, a replay read again from its first call."""
        if self.recording:
            self.recorded = []
        self.replayed, self.rescaled, self.unrecorded, self._depth = [], [], [], 0

    def next_call(self, call: AnEvent, soft: tuple[str, ...] = ()) -> AnEvent:
        """The recorded call this replayed ``call`` stands for (:meth:`_matched`); the replay's call, with the recorded
        draw, joins :attr:`replayed`."""
        recorded = self._matched(call, call.shape, soft)
        self.replayed.append(call.replayed(recorded))
        return recorded

    def _matched(self, call: AnEvent, shape: tuple | None, soft: tuple[str, ...]) -> AnEvent:
        """The recorded call the replay's ``call`` stands for: its kind, its ``shape`` as the program asked it (None:
        its output's) and its parameters checked (a parameter of ``soft`` may differ: the call is then noted in
        :attr:`rescaled`), else a :class:`Divergence`."""
        index = len(self.replayed)

        def said() -> str:  # the call as the program made it
            return (call if call.shape == shape else dataclasses.replace(call, shape=shape)).signature()

        if index >= len(self.recorded):
            raise Divergence(index, "no further call", said(), line=program_line())
        recorded = self.recorded[index]
        expected, given = recorded.parameters, call.parameters
        if (
            recorded.name != call.name
            or type(recorded) is not type(call)
            or expected.keys() != given.keys()
            or (shape is not None and recorded.shape != shape)
        ):
            raise Divergence(index, recorded.signature(), said(), line=program_line())
        differing = [k for k, v in expected.items() if not _same(v, given[k])]
        if differing:
            if any(k not in soft for k in differing):
                raise Divergence(index, recorded.signature(), said(), moved(expected, given), program_line())
            self.rescaled.append((index, recorded.signature(), said()))
        return cast(AnEvent, recorded)  # of the call's class, checked above

    def note(self, found: Unrecorded) -> None:
        """Note an unrecorded source (once per source and line): on the run under way where this tape's has ended,
        nowhere in a copy the program forked (:attr:`depth`)."""
        if self.closed and _LIVE:
            _LIVE[-1].note(found)
            return
        if self.closed or self.pid != os.getpid():
            return
        if found not in self.unrecorded:
            self.unrecorded.append(found)

    def made(
        self, event: Callable[..., AnEvent], shape: tuple | None, draw: Callable[[], Any], soft: tuple[str, ...] = ()
    ) -> AnEvent:
        """The event ``event(shape=…, noise=…, line=…)`` of a call whose output has ``shape`` (None: its noise's).
        On a recording run ``draw()`` (the primitive's own draws) is its noise, and the event joins the record with
        the program's line that made it.  On a replay the event with the recorded draw joins :attr:`replayed`, and
        the recorded event it stands for is returned (:meth:`_matched`)."""
        if self.recording:
            with self.inside():
                noise = draw()
            made = event(shape=np.shape(noise) if shape is None else shape, noise=noise, line=program_line())
            self.recorded.append(made)
            return made
        index = len(self.replayed)
        recorded = self.recorded[index] if index < len(self.recorded) else None
        call = event(shape=shape, noise=None) if recorded is None else event(shape=recorded.shape, noise=recorded.noise)
        matched = self._matched(call, shape, soft)
        self.replayed.append(call)
        return matched

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        """A primitive's own draws inside the block: not calls of the program."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def noise(self, index: int, noise: Any) -> Any:
        shift = self.perturb.get(index)
        return noise if shift is None else np.asarray(noise) + shift.reshape(np.shape(noise))

    def finish(self) -> None:
        """A replay that made fewer calls than recorded diverges at its first missing call."""
        if not self.recording and len(self.replayed) < len(self.recorded):
            index = len(self.replayed)
            missing = self.recorded[index]
            raise Divergence(index, missing.signature(), "no further call", line=missing.line)


#: The tapes whose runs are under way, the innermost last (:meth:`Tape.running`).
_LIVE: list[Tape] = []


class _Run:
    """:meth:`Tape.running`'s context (a replay crosses it once a run; a generator's context cost as much as a small
    program's noise call)."""

    __slots__ = ("tape",)

    def __init__(self, tape: Tape):
        self.tape = tape

    def __enter__(self) -> None:
        self.tape.closed = False
        _LIVE.append(self.tape)

    def __exit__(self, *exc: Any) -> None:
        tape = self.tape
        line = DRAWN_ELSEWHERE.take()
        if line is not None:
            tape.note(Unrecorded("a draw in a process the program forked", ELSEWHERE, line, True))
        _LIVE.pop()
        tape.closed = True
        file_reads.noted()  # the audited data file read in this run: refused before anything of the run is read


#: Modules whose frames are not the program's: ours, the recorded libraries and the libraries a program hands its
#: generator to (pandas' ``sample(random_state=rng)``, scipy's ``rvs(random_state=rng)``), what they call through,
#: Python's ``random`` and ``secrets`` (their methods built on the recorded draws: :mod:`.sources`), and ``copy`` and
#: ``pickle`` (a copy of a generator is the program's line that asked for it).
_NOT_THE_PROGRAM = (
    "pdp_audit", "numpy", "diffprivlib", "opendp", "sklearn", "pandas", "scipy", "contextlib", "functools", "random",
    "secrets", "copy", "copyreg", "pickle", "torch", "opacus", "pydp",
)  # fmt: skip


#: The standard library's top-level modules: a frame of theirs is not the program's either (``uuid.uuid4``'s
#: ``os.urandom``, ``pathlib``'s ``open`` are the program's call of ``uuid4``, of ``Path.open``).
_STANDARD = frozenset(sys.stdlib_module_names)


def program_line() -> str:
    """``file.py:line`` of the innermost frame outside :data:`_NOT_THE_PROGRAM` and the standard library (the
    program's own call of the primitive, or of the library that made it), or "" where there is none."""
    for frame, line in traceback.walk_stack(None):
        top = str(frame.f_globals.get("__name__", "")).split(".", 1)[0]
        if top not in _NOT_THE_PROGRAM and top not in _STANDARD:
            return f"{os.path.basename(frame.f_code.co_filename)}:{line}"
    return ""


#: Python's and numpy's scalar number types: a call's parameters given as such have the shape ().
_SCALARS = (float, int, np.float64, np.int64)


def _size_shape(size: Any, *arrays: Any) -> tuple:
    if size is None and all(type(a) in _SCALARS for a in arrays):
        return ()
    if size is not None:
        return tuple(np.atleast_1d(np.asarray(size, dtype=int)).tolist()) if np.ndim(size) else (int(size),)
    return tuple(np.broadcast_shapes(*(np.shape(a) for a in arrays))) if arrays else ()


#: numpy's own accessors of a PCG64's state and raw stream (the audit's, which :class:`WatchedPCG64` bypasses).
_PCG64_STATE: Any = np.random.PCG64.state
_PCG64_CAPSULE: Any = np.random.PCG64.capsule


class WatchedPCG64(np.random.PCG64):
    """The bit generator of a :class:`RecordingGenerator`: every way a program can draw its stream twice or outside
    the recorder is noted on the generator's tape as keeping the claim undecided (:data:`REPEATED`).

    A recorded draw is composed as fresh noise, independent of every other.  A copy of the stream breaks that: its
    draws repeat recorded ones (``x + N`` and ``y + N`` published with one ``N`` release ``x − y`` exactly), and the
    replay, which returns each recorded draw without drawing, cannot tell.  Every such copy reads the state or the
    raw stream through this object: ``state`` (read by ``copy.deepcopy`` and ``pickle`` of the generator or of its
    bit generator, by ``jumped``, by a program saving it; written by one restoring it), ``advance`` (which can move
    the stream back), ``random_raw``, the ``capsule`` through which another generator draws from it (its
    foreign-function views are not watched: the product reads none), and the ``seed_seq`` from which the same
    stream can be made again.  Soundness: a run that noted none of them drew its stream through the recorder only,
    each draw once, unless it drew through the bit generator's ``ctypes`` or ``cffi`` view (a gap, in the closing
    note).  A bit generator made from this one (a copy, ``spawn``'s children) has no ``owner`` and notes nothing."""

    owner: Any = None

    def _noted(self, what: str) -> None:
        if self.owner is not None:
            self.owner._tape.note(Unrecorded(f"rng.bit_generator.{what}", REPEATED, program_line(), True))

    @property  # type: ignore[override]
    def state(self) -> dict:
        self._noted("state (read)")
        return _PCG64_STATE.__get__(self)

    @state.setter
    def state(self, value: dict) -> None:
        self._noted("state (restored)")
        _PCG64_STATE.__set__(self, value)

    @property  # type: ignore[override]
    def capsule(self) -> Any:
        self._noted("capsule")
        return _PCG64_CAPSULE.__get__(self)

    @property  # type: ignore[override]
    def seed_seq(self) -> Any:
        self._noted("seed_seq")
        return np.random.PCG64.seed_seq.__get__(self)

    def advance(self, delta: int) -> Any:
        self._noted("advance")
        return super().advance(delta)

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        self._noted("random_raw")
        return super().random_raw(size, output)  # type: ignore[call-overload]


class RecordingGenerator(np.random.Generator):
    """A ``numpy.random.Generator`` that records (or replays) every public method called on it (module notes).
    Its own draws come from a :class:`WatchedPCG64` seeded by ``seed``; ``tape`` holds the calls."""

    def __init__(self, tape: Tape, seed: int):
        watched = WatchedPCG64(seed)
        super().__init__(watched)
        self.seed = seed
        self._run_tape = tape
        self._start = _PCG64_STATE.__get__(watched)
        watched.owner = self  # from here on, the program's copies of the stream are noted

    def rewind(self, tape: Tape) -> RecordingGenerator:
        """The generator in its first state, on ``tape`` (one generator serves every run of an analysis)."""
        _PCG64_STATE.__set__(self.bit_generator, self._start)
        self._run_tape = tape
        return self

    @property
    def _tape(self) -> Tape:
        """The tape this generator's draws go to: its run's, or, where that run has ended (a generator the program
        kept from an earlier call), the run's under way -- a draw from a kept generator is a draw of the run that
        makes it.  Outside every run (the black box's releases) its own ended tape: drawn as it is from its stream
        (:attr:`Tape.depth`)."""
        tape = self._run_tape
        return _LIVE[-1] if tape.closed and _LIVE else tape

    def __copy__(self) -> RecordingGenerator:
        """Itself: a shallow copy of a numpy ``Generator`` shares its bit generator, so the two draw one stream in
        turn -- as this one generator does (a deep copy or a pickle reads the state: :class:`WatchedPCG64`)."""
        return self

    # --- location families ---------------------------------------------------------------------------------------
    def _located(self, kind: str, loc: Any, scale: Any, size: Any) -> Any:
        tape = self._tape
        if tape.depth:
            return getattr(np.random.Generator, kind)(self, loc, scale, size)
        shape = _size_shape(size, loc, scale)
        # copies (the caller may change its arrays after the call); the scale's one copy is both the parameter
        # compared on replay and the noise's scale (neither is changed in place)
        scales = np.array(scale, dtype=float)
        value = np.array(loc, dtype=float)
        event = functools.partial(Located, kind, {"scale": scales}, value=value, scale=scales, law=NOISE_LAW[kind])
        draw = getattr(np.random.Generator, kind)
        made = tape.made(
            event, shape, lambda: np.asarray(draw(self, 0.0, scale, shape or None), dtype=float), ("scale",)
        )
        noise = made.noise
        if not tape.recording:  # a scale alone may differ: the recorded standardised noise, at the replayed scale
            noise = tape.noise(len(tape.replayed) - 1, noise)
            old = made.scale
            moved = old.item() != scales.item() if old.ndim == 0 == scales.ndim else not np.array_equal(old, scales)
            if moved:
                with np.errstate(all="ignore"):
                    noise = np.where(old > 0, noise * scales / np.where(old > 0, old, 1.0), 0.0)
        values = value + noise
        # numpy's convention: a Python float where no size was asked and the parameters are scalars
        return float(values) if size is None and not shape else values

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        return self._located("laplace", loc, scale, size)

    def normal(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        return self._located("normal", loc, scale, size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        return self._located("gumbel", loc, scale, size)

    def logistic(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        return self._located("logistic", loc, scale, size)

    def standard_normal(self, size=None, dtype=np.float64, out=None):  # type: ignore[override]
        if out is not None:  # an output array given: recorded as a normal of that shape
            out[...] = self._located("normal", 0.0, 1.0, out.shape)
            return out
        return self._located("normal", 0.0, 1.0, size)

    # --- integer noise on the lattice, read by its implemented law (:mod:`.lattice_noise`) -----------------------
    def _lattice(self, kind: str, parameters: dict, law: str, shape: tuple, draw: Callable[[], Any]) -> np.ndarray:
        """A draw of integer noise of ``law``, its value 0 and its scale the lattice's unit: the recorded draw, or on
        a replay the recorded draw moved by the probe's shift (integers where it moves by whole numbers)."""
        tape = self._tape
        event = functools.partial(
            Located, kind, parameters, value=np.zeros(()), scale=np.ones(()), law=law, lattice=True
        )  # fmt: skip
        made = tape.made(event, shape, lambda: np.asarray(draw()))
        values = np.asarray(made.noise if tape.recording else tape.noise(len(tape.replayed) - 1, made.noise))
        if values.dtype.kind == "f" and np.array_equal(values, np.round(values)):  # whole shifts: still integers
            values = values.astype(np.int64)
        return values

    def geometric(self, p, size=None):  # type: ignore[override]
        law = lattice_noise.recorded_law(p)
        if self._tape.depth or law is None:  # in a primitive, or no exact law: recorded as any other draw
            return _GEOMETRIC(self, p, size)
        shape = _size_shape(size, p)
        draw = functools.partial(np.random.Generator.geometric, self, p, shape or None)
        values = self._lattice("geometric", {"p": np.array(p, dtype=float)}, law, shape, draw)
        return int(values) if size is None and not shape and values.dtype.kind == "i" else copied(values)

    def integers(self, *args, **kwargs):  # type: ignore[override]
        span = lattice_noise.integers_range(*args, **kwargs)
        if self._tape.depth or span is None:  # in a primitive, or no law here: recorded as any other draw
            return _INTEGERS(self, *args, **kwargs)
        low, stop, size = span
        shape = _size_shape(size)
        draw = functools.partial(np.random.Generator.integers, self, low, stop, shape or None)
        parameters = {"low": np.array(low), "high": np.array(stop)}  # high: one past the largest
        values = self._lattice("integers", parameters, lattice_noise.INTEGERS, shape, draw)
        return values[()] if size is None and values.dtype.kind == "i" else copied(values)  # numpy's np.int64

    # --- choice: the index recorded, the probabilities the value applied to ------------------------------------
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):  # type: ignore[override]
        tape = self._tape
        if tape.depth:
            return super().choice(a, size, replace, p, axis, shuffle)
        population = int(a) if np.ndim(a) == 0 and np.issubdtype(np.asarray(a).dtype, np.integer) else len(a)
        parameters = {"population": population, "replace": bool(replace), "axis": axis, "weighted": p is not None}
        probabilities = None if p is None else np.asarray(p, dtype=float).copy()
        law = "discrete" if p is not None else "uniform-choice"
        event = functools.partial(Choice, "choice", parameters, value=probabilities, law=law)
        sample = np.random.Generator.choice
        index = tape.made(
            event, _size_shape(size), lambda: np.asarray(sample(self, population, size, replace, p, 0, shuffle))
        ).noise
        if np.ndim(a) == 0 and np.issubdtype(np.asarray(a).dtype, np.integer):
            return copied(index) if size is not None else int(index)
        return np.take(np.asarray(a), index, axis=axis)

    def permutation(self, x, axis=0):  # type: ignore[override]
        tape = self._tape
        if tape.depth:
            return super().permutation(x, axis)
        n = int(x) if np.ndim(x) == 0 else np.shape(x)[axis]
        event = functools.partial(Draw, "permutation", {"n": n, "axis": axis})
        order = tape.made(event, (n,), lambda: np.random.Generator.permutation(self, n)).noise
        return copied(order) if np.ndim(x) == 0 else np.take(np.asarray(x), order, axis=axis)

    def shuffle(self, x, axis=0):  # type: ignore[override]
        if self._tape.depth:  # numpy's permutation shuffles through this method: its own draw, not a call
            return super().shuffle(x, axis)
        order = self.permutation(np.shape(x)[axis], axis)
        x[...] = np.take(np.asarray(x).copy(), order, axis=axis)

    def spawn(self, n_children):  # type: ignore[override]
        """Children that draw from this generator, each draw recorded in turn: draws of one stream, one after
        another, are independent, as the draws of independent children are."""
        return [self] * n_children


def _generic(name: str) -> Callable:
    """A wrapped public method of Generator: every argument a parameter (compared on replay), the output recorded
    and returned on replay."""
    base = getattr(np.random.Generator, name)

    def method(self: RecordingGenerator, *args: Any, **kwargs: Any) -> Any:
        tape = self._tape
        if tape.depth:
            return base(self, *args, **kwargs)
        parameters = {f"arg{i}": copied(a) for i, a in enumerate(args)}
        parameters.update({k: copied(v) for k, v in kwargs.items()})
        # the record keeps its own output and each run gets a copy: a program may change its draws in place
        # (SmartNoise's inverse-CDF Laplace writes its noise over its uniform draws), and the same recorded array
        # handed to every replay would then reach the next one changed
        recorded = tape.made(functools.partial(Draw, name, parameters), None, lambda: base(self, *args, **kwargs))
        return copied(recorded.noise)

    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


def copied(value: Any) -> Any:
    """``value`` as it is now: an array copied (the program may change it after the call), anything else as is."""
    return value.copy() if isinstance(value, np.ndarray) else value


#: ``geometric`` of a ``p`` with no exact law here: recorded as any other draw (:func:`_generic`).
_GEOMETRIC = _generic("geometric")
#: ``integers`` of a range not read as noise (:func:`.lattice_noise.integers_range`): recorded as any other draw.
_INTEGERS = _generic("integers")

_OWN = {
    "laplace", "normal", "gumbel", "logistic", "standard_normal", "choice", "permutation", "shuffle", "spawn",
    "geometric", "integers",
}  # fmt: skip
for _name in dir(np.random.Generator):
    if not _name.startswith("_") and _name not in _OWN and _name not in _UNWRAPPED:
        if callable(getattr(np.random.Generator, _name)):
            setattr(RecordingGenerator, _name, _generic(_name))
