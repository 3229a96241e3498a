"""The one interface through which the program audit reads a library a program draws its noise from: an
:class:`Adapter`, one per library (numpy, Python's ``random``, ``scipy.stats``, torch, diffprivlib, OpenDP, PyDP),
each in its own module of this folder; the core (:mod:`..sources`, :mod:`..pair_steps`) calls nothing else of them.

**What an adapter must guarantee for the audit to be sound** (the recorder's replay holds the randomness fixed
between D and D′: what differs is the data's doing -- Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026, §4):

* ``install`` replaces only public names, and only through ``hooks.replace`` (given back when the session ends).
  Each replacement either draws from the run's generator (``hooks.sources.rng()``: a ``draws`` adapter), or records
  one event on the run's tape per call of the library's primitive (a library adapter), or notes the source as not
  recorded (``hooks.sources.note``).  It never draws noise into a run that the run's tape does not show or note: a
  draw the tape does not show is composed by nobody.
* **A replay returns the recorded draw**: the recorded output, or -- for a call that adds its noise to a value it
  shows -- the value given plus the recorded noise (moved by the probe as a location family's is:
  :func:`replayed_sum`), never a fresh draw; a call whose name, class or parameters differ from the recorded one's
  is a divergence (:meth:`.recorder.Tape.next_call`), never matched to another call.  Inside a recorded primitive
  (``tape.depth``) the library's own draws are its own, unrecorded: they are the primitive's law.
* **Its steps** (``upper_step``, ``lower_step``): the upper step of a call bounds the call's privacy loss from above
  at the distance its input moved between D and D′ (a privacy map, a declared budget at a move within its declared
  sensitivity), or the call is reported :class:`~.findings.Unaccounted` (the claim undecided on the pair); a lower
  step is made only from a law the adapter recorded for that very call.

A ``draws`` adapter (numpy, ``random``, ``scipy.stats``, torch) has no steps of its own: its draws are the
generator's events, composed by their law (:mod:`..step_laws`); it is installed in the black box's releases too
(drawing from each release's generator, unrecorded), and a name a module bound at its import to one of its originals
is rebound (:mod:`..bound_names`).  A library adapter (diffprivlib, OpenDP, PyDP) is installed for recorded runs
only.  Either is installed once the program has imported its ``package`` (our code never imports one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

from pdp_audit.audits.program import step_laws
from pdp_audit.audits.program.events import Event, LibraryCall
from pdp_audit.audits.program.findings import Unaccounted
from pdp_audit.audits.program.recorder import Tape

#: ``replace(owner, name, value)``: ``owner.name = value`` until the session ends.
Replace = Callable[[Any, str, Any], None]
#: A call's upper step, or what it leaves unaccounted (each may be None).
Stepped = tuple[step_laws.Step | None, Unaccounted | None]


class Sources(Protocol):
    """What an adapter reads of the session's sources (:class:`..sources.Sources`; a protocol: sources imports the
    adapters): the run's ``tape()`` (None: the black box's releases, unrecorded) and ``rng()``, whether a run of the
    program is under way (``active``: else every replacement calls the original), and the seeds' bookkeeping."""

    active: bool
    #: the process refused the audit hook that sees the random devices opened (:mod:`..audit_hooks`)
    unwatched: bool
    #: numpy's global state as the session replaces it (set by :mod:`.numpy_random`, read by :mod:`.scipy_stats`)
    numpy_global: Any
    tape: Callable[[], Tape | None]
    rng: Callable[[], np.random.Generator]
    fresh: set[int]

    def note(self, what: str, why: str, undecided: bool = False) -> None: ...

    def random_seed(self, what: str, seed: Any, family: str = "numpy") -> bool: ...

    def seed_kind(self, seed: Any) -> str: ...

    def minted(self) -> int: ...

    def each_run(self, started: Callable[[], None]) -> None: ...


@dataclass(frozen=True)
class Hooks:
    """What an adapter's ``install`` is given: ``replace`` (:data:`Replace`), ``given_back(undo)`` (``undo()`` when
    the session ends, with the names given back) and the session's ``sources``."""

    replace: Replace
    given_back: Callable[[Callable[[], None]], None]
    sources: Sources


#: The sources of the open session (at most one: sessions are not nested), which the stand-ins' calls go to.
OPEN: list[Sources] = []


def standin(real: type, make: Callable[..., Any], *bound: Any) -> type:
    """A class standing for ``real`` in its module's namespace during a session: calling it calls ``make(sources,
    *bound, ...)`` with the open session's sources (``real`` itself where none is open); ``isinstance`` and
    ``issubclass`` answer as ``real`` would (PEP 3119's ``__instancecheck__``), so a library's ``isinstance(x,
    np.random.Generator)`` holds for every generator, ours and numpy's alike.  Made once, at import."""

    class Standin(type):
        def __instancecheck__(cls, instance: Any) -> bool:
            return isinstance(instance, real)

        def __subclasscheck__(cls, subclass: type) -> bool:
            return issubclass(subclass, real)

        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            if cls is not made:  # a subclass the program defines in the session: its own
                return type.__call__(cls, *args, **kwargs)
            return make(OPEN[-1], *bound, *args, **kwargs) if OPEN else real(*args, **kwargs)

    made = Standin(real.__name__, (real,), {"__doc__": real.__doc__, "__module__": real.__module__})
    return made


def no_upper_step(k: int, call: LibraryCall, replayed: Event) -> Stepped:
    """A ``draws`` adapter's: its draws are composed by their law, not as calls."""
    return None, None


def no_lower_step(k: int, index: int, call: Event, shift: float, error: float) -> step_laws.Step | None:
    """An adapter that records no law of a call's noise makes no lower step."""
    return None


@dataclass(frozen=True)
class Adapter:
    """One library as the audit reads it (module notes: what each member must guarantee).  ``package``: the top-level
    module it adapts, installed once imported; ``install(hooks)``: its public names replaced; ``draws``: its
    replacements draw from the run's generator (numpy, ``random``, ``scipy.stats``, torch), else it records its
    primitives' calls; ``upper_step(k, call, replayed)``: call ``k``'s step on a pair (its record ``call`` on D,
    ``replayed`` on D′); ``lower_step(k, index, call, shift, error)``: the lower step of element ``index`` of call
    ``k``, which the release carries moved by ``shift`` (read within ``error``)."""

    package: str
    install: Callable[[Hooks], None]
    draws: bool = False
    upper_step: Callable[[int, LibraryCall, Event], Stepped] = no_upper_step
    lower_step: Callable[[int, int, Event, float, float], step_laws.Step | None] = no_lower_step


# --- the replay every additive library call shares (diffprivlib's, OpenDP's, PyDP's) -----------------------------
def additive(noise: Any, output: Any) -> dict[str, Any]:
    """The fields of an additive call's event whose noise ``output − value`` is ``noise``: its scale 1, its law
    ``"library"`` (moved by a probe like a location family's), on the integers where the output is."""
    return {
        "noise": np.asarray(noise),
        "scale": np.ones(np.shape(noise)),
        "law": "library",
        "lattice": integers(output),
    }


def replayed_sum(tape: Tape, recorded: LibraryCall, given: Any, before: Any) -> Any:
    """An additive call's output on a replay: the value ``given`` plus the recorded noise (moved by the probe where
    it moves this call: :meth:`.recorder.Tape.noise`), as an object of the recorded output's kind (:func:`like`).
    Where the probe did not move it, each coordinate whose value is the recorded one (``before``, equal as a double,
    NaN as NaN) is the recorded output's own, bit for bit -- not a sum ``v + (output − v)`` that may round otherwise."""
    unshifted = np.asarray(recorded.noise, dtype=float)  # a new array where the noise is a numpy scalar
    noise = tape.noise(len(tape.replayed) - 1, unshifted)
    new = np.asarray(given, dtype=float)
    moved = new + noise
    old = np.asarray(before, dtype=float)
    if noise is unshifted and old.shape == new.shape:
        same = (new == old) | (np.isnan(new) & np.isnan(old))
        if same.all():
            return recorded.output
        moved = np.where(same, np.asarray(recorded.output, dtype=float), moved)
    return like(recorded.output, moved)


def like(output: Any, moved: Any) -> Any:
    """``moved`` (a float array of ``output``'s shape) as an object of ``output``'s kind: a list, a number, an array
    of ``output``'s dtype (its types are part of the release).  An integer of ``output`` stays an integer where its
    replayed value is one; a fraction a probe shifted the noise by stays a float, never a truncation of it."""
    if isinstance(output, list):
        return [_one_like(o, m) for o, m in zip(output, moved.ravel().tolist())]
    if moved.ndim == 0:
        return _one_like(output, float(moved))
    if hasattr(output, "dtype") and (output.dtype.kind == "f" or np.array_equal(moved, np.round(moved))):
        return moved.astype(output.dtype)
    return moved


def _one_like(output: Any, value: float) -> Any:
    """``value`` as ``output``'s numpy float type where it is one, as an int where ``output`` is a Python or numpy
    integer and ``value`` a whole number, else a float."""
    if isinstance(output, np.floating):
        return type(output)(value)
    integer = isinstance(output, (int, np.integer)) and not isinstance(output, bool)
    return int(value) if integer and math.isfinite(value) and value == int(value) else value


def integers(output: Any) -> bool:
    """Whether a library call's output is integers only (a Python int, a list of them, an integer array): its noise
    lies on the integer lattice, and a probe shifts it by whole units (:func:`..probing.probe`), the replay returning
    integers as the library does."""
    leaves = output if isinstance(output, list) else [output]
    if isinstance(output, np.ndarray):
        return output.dtype.kind in "iu"
    return bool(leaves) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in leaves)
