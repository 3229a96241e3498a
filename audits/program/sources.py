"""Every randomness source a program may draw from, recorded and replayed like a draw from ``rng``, with no decoration.

A program's noise does not always come from its ``rng`` argument: numpy's global state (``np.random.laplace``,
``np.random.seed``), a ``RandomState``, a generator made inside the program or a library (``default_rng()``,
``Generator(PCG64())``, ``SeedSequence().spawn``), Python's ``random``, ``scipy.stats``' draws.  For the duration of a
:class:`~pdp_audit.audits.program.trace.Session` (:func:`sources_recorded`) each of them draws through the session's
:class:`~pdp_audit.audits.program.recorder.RecordingGenerator`, so each draw is a recorded
:class:`~pdp_audit.audits.program.events.Draw` -- a Laplace or normal draw with its law, composed exactly as a draw
from ``rng`` -- and a replay returns the recorded draw.  Only public names are replaced, in their modules'
namespaces, and given back on leaving:

* ``numpy.random``'s module-level functions (:data:`numpy.random.__all__`): each the method of one
  :class:`RecordingRandomState` (the legacy names mapped to the generator's: ``rand`` → ``random``, ``randn`` →
  ``standard_normal``, ``randint`` → ``integers``; the distributions keep their names, each the same law);
* ``numpy.random.RandomState``, ``Generator``, ``default_rng``, ``SeedSequence`` and the bit generators' constructors
  (stand-ins whose ``isinstance`` answers as the real class's: :func:`_standin`);
* ``random``'s module-level functions and ``random.Random`` (:class:`RecordingRandom`: its ``random``,
  ``getrandbits``, ``gauss`` and ``normalvariate`` recorded; every other method is Python's, built on them);
* ``scipy.stats``' draws, where scipy is already imported: ``rvs`` with no ``random_state`` of a distribution whose
  own is numpy's global state (the module's distributions, those frozen from them, the program's own) draws from
  the session's :class:`RecordingRandomState`, passed as its ``random_state``.

**Seeds the program chooses.**  A generator seeded with no seed (fresh entropy) or with a seed drawn from the audit's
``rng`` (:meth:`Sources.seed_kind`) is random: its draws are recorded.  Any other seed (``np.random.seed(0)``,
``default_rng(42)``, ``random.seed(7)``, ``np.random.set_state``) fixes the noise: the program's release is then a
deterministic function of the data on those draws.  Recording them would make fixed noise look random, so they are
*not* recorded: the generator is numpy's or Python's own, seeded as asked (the same draws on every run, replay
included), the noise is part of the release's noise-free function of the data -- where it alone hides the data, the
replay shows a noise-free coordinate that differs -- and the source is noted (:class:`Unrecorded`, "noise seeded with
a constant: not random") for page 1.

**Randomness that cannot be replayed** (:mod:`.entropy`): the operating system's entropy in every form Python offers
it -- ``os.urandom``, ``os.getrandom``, an open of ``/dev/urandom`` or ``/dev/random`` however it is reached,
``uuid``, ``ssl.RAND_bytes``, tempfile's names -- is noted where the program draws it: the record is then not
reproducible (the claim undecided), naming it.  ``secrets``' functions and ``random.SystemRandom``'s draws are noted
the same way where the program calls them; they draw, unrecorded, from the run's generator (the session's or the
black box's release's, the same law: 53 random bits for ``random()``, uniform bits for ``getrandbits`` and
``randbytes``), so that a library primitive built on them (diffprivlib's mechanisms, whose ``random_state=None``
is a ``secrets.SystemRandom``) draws the same noise on every run of one seed -- the audit's numbers follow its seed.
A ``SeedSequence()`` made with no entropy in a run takes its entropy from the run's generator instead of the
operating system (:meth:`Sources.minted`): a generator seeded from it is recorded as fresh, and what the program
reads of it directly (its ``entropy``, ``generate_state``, a bit generator's ``random_raw``) is the same on D and on
every D′ of a draw set, as a recorded draw is.

**Names bound at import** (``from numpy.random import laplace``, ``from numpy.random import RandomState``) in any
module outside the standard library are rebound for the block (:mod:`.bound_names`).  **Not covered** (the replay on
D then differs from the record: undecided, as before): a generator object made before the session (a
``default_rng()``, ``RandomState()`` or ``random.Random()`` made at the program's import: the object itself is
numpy's or Python's), a generator class of the program's own, draws inside
compiled code, OpenDP's sampler outside its measurements.  torch's draws, where a program imports torch, are
replaced the same way (:mod:`.torch_draws`; :meth:`Sources.wrap_new`).  numpy's global ``RandomState`` object,
which a library reaches directly (scikit-learn's ``check_random_state(None)``), is not replaced but seeded at each
run from the run's generator (:meth:`Sources.pin_global_state`): replayed, held fixed between D and D′.

**The black box** runs the program outside any session: there (:func:`sources_drawn`) the same names draw from each
release's own generator, unrecorded, so that its releases follow the run's seed.
"""

from __future__ import annotations

import contextlib
import random
import sys
import types
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pdp_audit.audits.program import audit_hooks, bound_names, entropy, torch_draws
from pdp_audit.audits.program.events import Event
from pdp_audit.audits.program.python_random import PYTHON, RecordingRandom
from pdp_audit.audits.program.recorder import (
    FIXED,
    REPEATED,
    SAVED,
    RecordingGenerator,
    Tape,
    Unrecorded,
    program_line,
)

#: The real classes and functions, as numpy defines them (captured at import, before any session; Python's: PYTHON).
_NUMPY = {name: getattr(np.random, name) for name in np.random.__all__}
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
#: A seed drawn from the audit's rng: equal to an ``integers`` draw of the run whose range has at least this many
#: values (a seed the program fixed equals such a draw with probability at most 2⁻³² per draw).
DRAWN_RANGE = 2**32

#: numpy's legacy function names that the generator spells otherwise (:class:`RecordingRandomState` maps each).
_LEGACY = ("rand", "randn", "randint", "random_integers", "random_sample", "random", "ranf", "sample")
#: Methods of the global state that are not draws.
_STATE = ("seed", "get_state", "set_state")


#: The reasons :class:`Unrecorded` gives.
REUSED = "a seed used twice in one run: its noise is drawn again, which the audit does not replay (undecided)"


def replayable(notes: Sequence[Unrecorded]) -> bool:
    """Whether no noted source keeps the record from being reproduced."""
    return not any(n.undecided for n in notes)


def named(runs: list[Any]) -> list[str]:
    """The unrecorded sources of ``runs`` (records on D: :class:`~pdp_audit.audits.program.trace.Run`), one line
    each, in the order first seen."""
    return list(dict.fromkeys(str(note) for run in runs for note in run.unrecorded))


class Sources:
    """The session's sources: its tape and generator (``tape()``, ``rng()``: the session's at each call; no tape: the
    draws are not recorded), whether a run of the program is under way (``active``: else every source draws as
    numpy's or Python's own), the entropies of the seed sequences minted fresh in the session, and the global
    sources (numpy's and Python's), each fixed where the program seeded it with a constant in this run."""

    def __init__(self, tape: Callable[[], Tape | None], rng: Callable[[], np.random.Generator]):
        self.tape, self.rng = tape, rng
        self.active = False
        self.fresh: set[int] = set()
        #: the streams seeded in this run (a seed's entropy and spawn key): one seeded twice draws its noise twice
        self.streams: set[tuple] = set()
        self.numpy_global = RecordingRandomState(self, fixed=None)
        self.python_global = RecordingRandom(self)
        #: torch's global generator seeded with a constant in this run (:mod:`.torch_draws`)
        self.torch_fixed = False
        #: how a name is replaced for the block (set by :func:`sources_recorded`), and whether torch's draws are
        self.replace: Callable[[Any, str, Any], None] | None = None
        self.torch_wrapped = False
        #: names bound at import rebound (set by :func:`sources_recorded`: :mod:`.bound_names`), and the count of
        #: loaded modules when they last were
        self.rebind: Callable[[], bool] | None = None
        #: the entropy functions of modules imported since replaced (set by :func:`sources_recorded`: :mod:`.entropy`)
        self.late: Callable[[], bool] | None = None
        self.modules_seen = 0
        #: the seed sequences minted with no entropy in this run (:meth:`minted`)
        self.minted_count = 0
        #: the process refused the audit hook that sees the random devices opened (:mod:`.audit_hooks`)
        self.unwatched = False
        #: numpy's global RandomState itself (the object its functions are methods of), and its seeds by draw set
        self.global_state = _NUMPY["random_sample"].__self__
        self._words: dict[int, np.ndarray] = {}

    def __enter__(self) -> Sources:
        """One run of the program (``with sources:``): the global sources draw from the run's tape (no seed the
        program set in an earlier run holds); outside it every source draws as numpy's or Python's own (our own code
        between two runs included).  A class's enter and exit, not a generator's: the black box enters it for each
        release."""
        self.numpy_global.fixed = self.python_global.fixed = None
        self.torch_fixed = False
        self.streams.clear()
        self.minted_count = 0
        self.active = True
        self.pin_global_state()
        entropy.run_started(self)
        return self

    def pin_global_state(self) -> None:
        """numpy's global ``RandomState`` object seeded from the run's generator (its seed sequence's first 128
        bits, not a draw of it): a library that reaches the object itself -- scikit-learn's and diffprivlib's
        ``check_random_state(None)`` return it, and no replaced name is on that path -- draws the same stream on the
        record and on every replay of one draw set, a stream of its own in each draw set and each black-box release.
        Those draws are held fixed between D and D′, as a recorded draw with no law is (a coupling: each side's draws
        are the stream's, of the right law), never composed as noise; before, they continued numpy's global stream,
        so the replay on D differed from its record and the claim stayed undecided."""
        rng = self.rng()
        if isinstance(rng, RecordingGenerator):  # the session's: a constant seed per draw set, read once
            words = self._words.get(rng.seed)
            if words is None:
                words = self._words[rng.seed] = _NUMPY["SeedSequence"](rng.seed).generate_state(4)
        else:
            sequence = getattr(rng.bit_generator, "seed_seq", None)
            if not isinstance(sequence, _NUMPY["SeedSequence"]):
                return
            words = sequence.generate_state(4)
        self.global_state.seed(words)

    def __exit__(self, *exc: Any) -> None:
        self.active = False

    def wrap_new(self) -> bool:
        """torch's draws replaced (:mod:`.torch_draws`) once torch is imported, and the names modules imported since
        the last look bound to a source rebound (:mod:`.bound_names`): whether any was now.  A program that imports
        torch (or a module binding such a name) in its body draws its first run's noise unrecorded; that run is made
        again (:meth:`~pdp_audit.audits.program.trace.Session.run`, as for a library wrapped late)."""
        if self.replace is None or len(sys.modules) == self.modules_seen:
            return False
        wrapped = False
        if not self.torch_wrapped and "torch" in sys.modules:
            self.torch_wrapped = wrapped = torch_draws.wrap(self, self.replace)
        rebound = self.rebind() if self.rebind is not None else False
        noted = self.late() if self.late is not None else False
        self.modules_seen = len(sys.modules)
        return wrapped or rebound or noted

    def note(self, what: str, why: str, undecided: bool = False) -> None:
        """Note an unrecorded source on the run's tape (once per source and line), where the program itself used it
        (not inside a recorded library primitive)."""
        tape = self.tape()
        if tape is None or tape.depth:
            return
        found = Unrecorded(what, why, program_line(), undecided)
        if found not in tape.unrecorded:
            tape.unrecorded.append(found)

    def seed_kind(self, seed: Any) -> str:
        """``"fresh"`` (no seed: entropy; a seed sequence or bit generator minted fresh in the session, or a child of
        one; the audit's own generator), ``"drawn"`` (an integer equal to an ``integers`` draw of this run of range
        at least :data:`DRAWN_RANGE`), else ``"fixed"``."""
        if seed is None or isinstance(seed, RecordingGenerator):
            return "fresh"
        if isinstance(seed, _NUMPY["BitGenerator"]):
            if seed is self.rng().bit_generator:
                return "fresh"
            seed = seed.seed_seq
        if isinstance(seed, _NUMPY["SeedSequence"]):
            if seed.entropy in self.fresh:
                return "fresh"
            seed = seed.entropy
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return "drawn" if int(seed) in self._drawn() else "fixed"
        return "fixed"

    # numpy's and Python's constructors in the session (module notes), called by their stand-ins (:func:`_standin`)
    def generator(self, bit_generator: Any) -> Any:
        if self.active and self.random_seed("numpy.random.Generator", bit_generator):
            return self.rng()
        return _NUMPY["Generator"](bit_generator)

    def default_rng(self, seed: Any = None) -> Any:
        if isinstance(seed, _NUMPY["Generator"]) or not self.active:
            return _NUMPY["default_rng"](seed)  # numpy gives a generator itself back
        if self.random_seed("numpy.random.default_rng", seed):
            return self.rng()
        return _NUMPY["default_rng"](seed)

    def random_state(self, seed: Any = None) -> Any:
        if self.active and self.random_seed("numpy.random.RandomState", seed):
            return RecordingRandomState(self, fixed=None)
        return _NUMPY["RandomState"](seed)

    def seed_sequence(self, entropy: Any = None, **kwargs: Any) -> Any:
        if entropy is None and self.active:
            made = _NUMPY["SeedSequence"](self.minted(), **kwargs)
            self.fresh.add(made.entropy)
            return made
        return _NUMPY["SeedSequence"](entropy, **kwargs)

    def minted(self) -> int:
        """The entropy of a seed sequence made with no entropy in a run: 128 bits from the run's generator, not the
        operating system's -- the k-th of a run of the session's draw set of seed s is the state SeedSequence([s,
        k]) generates (a function of the draw set, as :meth:`pin_global_state`'s seed: the same on D and on every
        D′, another in each draw set); the black box's, bits drawn from the release's own generator (fresh in each
        release).  numpy takes the operating system's entropy otherwise, which a program could read
        (``SeedSequence().entropy``) unrecorded and unnoted."""
        rng = self.rng()
        self.minted_count += 1
        if isinstance(rng, RecordingGenerator):
            words = _NUMPY["SeedSequence"]([rng.seed, self.minted_count]).generate_state(4)
            return int.from_bytes(words.tobytes(), "little")
        return int.from_bytes(np.random.Generator.bytes(rng, 16), "little")

    def bit_generator(self, name: str, seed: Any = None, *args: Any, **kwargs: Any) -> Any:
        if seed is None and self.active and not args and not kwargs:  # entropy: a fresh seed sequence, kept
            seed = self.seed_sequence()
        return _NUMPY[name](seed, *args, **kwargs)

    def python_random(self, x: Any = None) -> Any:
        if self.active and self.random_seed("random.Random", x, "python"):
            return RecordingRandom(self)
        return PYTHON["Random"](x)

    def _drawn(self) -> set[int]:
        """The integers drawn in this run by ``integers`` calls of range at least :data:`DRAWN_RANGE`."""
        tape = self.tape()
        if tape is None:
            return set()
        calls = tape.recorded if tape.recording else tape.replayed
        out: set[int] = set()
        for call in calls:
            if call.name == "integers" and _range(call) >= DRAWN_RANGE:
                out.update(int(v) for v in np.ravel(call.noise))
        return out

    def random_seed(self, what: str, seed: Any, family: str = "numpy") -> bool:
        """Whether ``seed`` leaves the noise random (fresh or drawn); else the source is noted as fixed.  A random
        seed that seeds a second stream of ``family`` in the run (the same entropy and spawn key) is noted as keeping
        the claim undecided: that stream repeats the first one's draws, which recording each draw afresh would hide
        (two noises the audit would compose as independent are one)."""
        if self.seed_kind(seed) == "fixed":
            self.note(f"{what}({_shown(seed)})", FIXED)
            return False
        stream = self._stream(seed)
        if stream is not None:
            if (family, stream) in self.streams:
                self.note(f"{what}({_shown(seed)})", REUSED, undecided=True)
            self.streams.add((family, stream))
        return True

    def _stream(self, seed: Any) -> tuple | None:
        """The stream a seed starts (its entropy and spawn key); None for entropy drawn anew or the audit's own
        generator, whose draws are never repeated."""
        if seed is None or isinstance(seed, RecordingGenerator) or seed is self.rng().bit_generator:
            return None
        if isinstance(seed, _NUMPY["BitGenerator"]):
            seed = seed.seed_seq
        if isinstance(seed, _NUMPY["SeedSequence"]):
            return (str(seed.entropy), tuple(seed.spawn_key))
        return (str(int(seed)), ()) if isinstance(seed, (int, np.integer)) else (repr(seed), ())


def _range(call: Event) -> int:
    """How many values an ``integers`` call draws from (its ``low``, ``high`` and ``endpoint`` parameters)."""
    names = ("low", "high", "size", "dtype", "endpoint")
    given = {names[int(k[3:])] if k.startswith("arg") else k: v for k, v in call.parameters.items()}
    try:
        low, high = given.get("low", 0), given.get("high")
        low, high = (0, low) if high is None else (low, high)
        span = np.asarray(high, dtype=object) - np.asarray(low, dtype=object) + (1 if given.get("endpoint") else 0)
        return int(np.min(span))
    except (TypeError, ValueError):
        return 0


def _shown(seed: Any) -> str:
    """A seed as one short line (a bit generator or seed sequence by its entropy: no object address)."""
    if isinstance(seed, _NUMPY["BitGenerator"]):
        return f"{type(seed).__name__}({_shown(seed.seed_seq)})"
    if isinstance(seed, _NUMPY["SeedSequence"]):
        return f"SeedSequence({_shown(seed.entropy)})"
    text = repr(seed)
    return text if len(text) <= 40 else text[:37] + "..."


# --- numpy's global state and RandomState ---------------------------------------------------------------------
class RecordingRandomState(np.random.RandomState):  # numpy's own class (this module is imported before a session)
    """A ``numpy.random.RandomState`` whose public draws are the session's generator's (recorded, replayed): the
    distributions by their names, the legacy names by the generator's (``rand`` → ``random``, ``randn`` →
    ``standard_normal``, ``randint`` → ``integers``).  ``fixed``: where the program seeded it with a constant, the
    state its draws then come from instead (numpy's global functions for the global state, a ``RandomState`` for an
    instance); outside the session it draws as numpy's own."""

    def __init__(self, sources: Sources, fixed: Any):
        super().__init__(0)  # its own state is never drawn from
        self.sources, self.fixed = sources, fixed
        self.outside = types.SimpleNamespace(**_NUMPY) if fixed is None else fixed

    def _target(self, name: str) -> Any:
        """Where a draw goes: the session's generator (None), or the fixed state's (or numpy's own) method."""
        if not self.sources.active:
            return getattr(self.outside, name)
        return None if self.fixed is None else getattr(self.fixed, name)

    def seed(self, seed: Any = None) -> None:  # type: ignore[override]
        if not self.sources.active:
            return self.outside.seed(seed)
        if self.sources.random_seed("numpy.random.seed", seed):
            self.fixed = None
            return
        if self is self.sources.numpy_global:
            _NUMPY["seed"](seed)
            self.fixed = types.SimpleNamespace(**_NUMPY)
        else:
            self.fixed = _NUMPY["RandomState"](seed)

    def set_state(self, state: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if self.sources.active:
            self.sources.note("numpy.random.set_state", SAVED)
            if self is self.sources.numpy_global:
                self.fixed = types.SimpleNamespace(**_NUMPY)
            elif self.fixed is None:
                self.fixed = _NUMPY["RandomState"]()
        return getattr(self.fixed if self.sources.active else self.outside, "set_state")(state, *args, **kwargs)

    def get_state(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """The state of the stream its draws come from; a random one's (recorded draws) cannot be handed out: a
        copy (``copy.deepcopy`` and ``pickle`` read it here) or a restore would draw its noise again -- noted as
        keeping the claim undecided."""
        if self.sources.active and self.fixed is None:
            self.sources.note("numpy.random.get_state / a copy of a RandomState", REPEATED, undecided=True)
        return getattr(self.fixed or self.outside, "get_state")(*args, **kwargs)

    def rand(self, *shape: int) -> Any:  # type: ignore[override]
        target = self._target("rand")
        return target(*shape) if target else self.sources.rng().random(shape or None)

    def randn(self, *shape: int) -> Any:  # type: ignore[override]
        target = self._target("randn")
        return target(*shape) if target else self.sources.rng().standard_normal(shape or None)

    def randint(self, low, high=None, size=None, dtype=int):  # type: ignore[override]
        target = self._target("randint")
        return target(low, high, size, dtype) if target else self.sources.rng().integers(low, high, size, dtype)

    def random_integers(self, low, high=None, size=None):  # type: ignore[override]
        target = self._target("random_integers")
        if target:
            return target(low, high, size)
        low, high = (1, low) if high is None else (low, high)
        return self.sources.rng().integers(low, high, size, endpoint=True)

    def random_sample(self, size=None):  # type: ignore[override]
        target = self._target("random_sample")
        return target(size) if target else self.sources.rng().random(size)

    random = ranf = sample = random_sample  # numpy's aliases of random_sample


def _legacy(name: str) -> Callable:
    """A distribution of ``RandomState`` drawn by the generator's method of the same name and law."""
    base = getattr(_NUMPY["RandomState"], name)

    def method(self: RecordingRandomState, *args: Any, **kwargs: Any) -> Any:
        target = self._target(name)
        return target(*args, **kwargs) if target else getattr(self.sources.rng(), name)(*args, **kwargs)

    method.__name__, method.__doc__ = name, base.__doc__
    return method


for _name in np.random.__all__:
    _value = _NUMPY[_name]
    if callable(_value) and not isinstance(_value, type) and _name not in _LEGACY + _STATE + ("default_rng",):
        setattr(RecordingRandomState, _name, _legacy(_name))


# --- the constructors ----------------------------------------------------------------------------------------------
#: The sources of the open session (at most one: sessions are not nested), which the stand-ins' calls go to.
_OPEN: list[Sources] = []


def _standin(real: type, make: str, *bound: Any) -> type:
    """A class standing for ``real`` in its module's namespace during a session: calling it calls the open
    :class:`Sources`' method ``make``, the arguments ``bound`` first (``real`` itself where none is open);
    ``isinstance`` and ``issubclass`` answer as ``real`` would (PEP 3119's ``__instancecheck__``), so a library's
    ``isinstance(x, np.random.Generator)`` holds for every generator, ours and numpy's alike.  Made once, at
    import."""

    class Standin(type):
        def __instancecheck__(cls, instance: Any) -> bool:
            return isinstance(instance, real)

        def __subclasscheck__(cls, subclass: type) -> bool:
            return issubclass(subclass, real)

        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            if cls is not made:  # a subclass the program defines in the session: its own
                return type.__call__(cls, *args, **kwargs)
            return getattr(_OPEN[-1], make)(*bound, *args, **kwargs) if _OPEN else real(*args, **kwargs)

    made = Standin(real.__name__, (real,), {"__doc__": real.__doc__, "__module__": real.__module__})
    return made


_STANDINS = {
    "Generator": _standin(_NUMPY["Generator"], "generator"),
    "RandomState": _standin(_NUMPY["RandomState"], "random_state"),
    "SeedSequence": _standin(_NUMPY["SeedSequence"], "seed_sequence"),
}
_STANDINS.update({name: _standin(_NUMPY[name], "bit_generator", name) for name in _BIT_GENERATORS})
_RANDOM = _standin(PYTHON["Random"], "python_random")


@contextlib.contextmanager
def sources_drawn() -> Iterator[Callable[[np.random.Generator], Sources]]:
    """For the black box's releases (outside any session): inside the block, ``drawing(rng)`` is one release's run,
    in which every source of the module notes draws from ``rng`` -- the release's own generator -- unrecorded, so
    that a release is a function of its seed (the black box's numbers follow the run's seed) and each release's
    noise is fresh, as the program's is where it runs."""
    current: list[np.random.Generator] = []
    with sources_recorded(lambda: None, lambda: current[-1]) as sources:

        def drawing(rng: np.random.Generator) -> Sources:
            current[:] = [rng]
            sources.wrap_new()  # torch imported by an earlier release
            return sources

        yield drawing


@contextlib.contextmanager
def sources_recorded(tape: Callable[[], Tape | None], rng: Callable[[], np.random.Generator]) -> Iterator[Sources]:
    """Inside the block every source of the module notes draws through ``rng()`` (recorded on ``tape()`` where it is
    a :class:`~pdp_audit.audits.program.recorder.RecordingGenerator`), or is noted; every replaced name given back on
    leaving."""
    sources = Sources(tape, rng)
    replaced: list[tuple[Any, str, Any]] = []

    def replace(owner: Any, name: str, value: Any) -> None:
        """``owner.name = value`` until the block ends (a class's inherited attribute: removed again then)."""
        before = vars(owner).get(name, _ABSENT) if isinstance(owner, type) else getattr(owner, name)
        replaced.append((owner, name, before))
        setattr(owner, name, value)

    for name in np.random.__all__:
        if hasattr(sources.numpy_global, name) and not isinstance(_NUMPY[name], type) and name != "default_rng":
            replace(np.random, name, getattr(sources.numpy_global, name))
    for name, value in _STANDINS.items():
        replace(np.random, name, value)
    replace(np.random, "default_rng", sources.default_rng)
    for name in random.__all__:
        if name not in ("Random", "SystemRandom"):
            replace(random, name, getattr(sources.python_global, name))
    replace(random, "Random", _RANDOM)
    sources.late = entropy.replace_names(sources, replace)
    _scipy(sources, replace)
    sources.replace = replace
    rebound: set[str] = set()
    sources.rebind = lambda: bound_names.rebind(bound_names.originals(replaced, getattr), replace, rebound)
    sources.wrap_new()
    _OPEN.append(sources)
    saved = sources.global_state.get_state()  # the user's global stream, as the block found it
    try:
        with audit_hooks.watching(entropy.events(sources)) as armed:
            sources.unwatched = not armed  # the process refused the hook: noted on each record (.entropy)
            yield sources
    finally:
        sources.active = False
        _OPEN.remove(sources)
        sources.global_state.set_state(saved)
        for owner, name, value in reversed(replaced):
            if value is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


_ABSENT = object()


def _scipy(sources: Sources, replace: Callable[[Any, str, Any], None]) -> None:
    """``scipy.stats``' draws from numpy's global state (``rvs`` with no ``random_state``, of a distribution whose
    own is numpy's global one: the module's, one frozen from it, one the program defines) draw from the session's
    :class:`RecordingRandomState`, passed as the call's ``random_state`` (``rv_continuous``/``rv_discrete``'s public
    ``rvs``); only where scipy is already imported (importing it here would cost each session its import)."""
    stats = sys.modules.get("scipy.stats")
    if stats is None:
        return
    global_state = _NUMPY["random_sample"].__self__  # numpy's global RandomState: the object its functions draw from
    for kind in (stats.rv_continuous, stats.rv_discrete):
        replace(kind, "rvs", _rvs(sources, kind.rvs, global_state))


def _rvs(sources: Sources, rvs: Callable, global_state: Any) -> Callable:
    def drawn(self: Any, *args: Any, **kwargs: Any) -> Any:
        if sources.active and kwargs.get("random_state") is None and self.random_state is global_state:
            kwargs["random_state"] = sources.numpy_global
        return rvs(self, *args, **kwargs)

    drawn.__name__, drawn.__doc__ = "rvs", rvs.__doc__
    return drawn
