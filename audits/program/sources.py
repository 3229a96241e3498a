"""Every randomness source a program may draw from, recorded and replayed like a draw from ``rng``, with no decoration.

A program's noise does not always come from its ``rng`` argument: numpy's global state, a ``RandomState``, a
generator made inside the program or a library, Python's ``random``, ``scipy.stats``' draws.  For the duration of a
session (:func:`sources_recorded`) each of them draws through the session's
:class:`~pdp_audit.audits.program.recorder.RecordingGenerator`, so each draw is recorded, composed exactly as a draw
from ``rng``, and a replay returns the recorded draw.  Only public names are replaced, in their modules'
namespaces, and given back on leaving, each library's by its adapter (:mod:`.adapters`).

**Seeds the program chooses.**  A generator seeded with no seed (fresh entropy) or with a seed drawn from the audit's
``rng`` (:meth:`Sources.seed_kind`) is random: its draws are recorded.  Any other seed (``np.random.seed(0)``,
``default_rng(42)``, ``random.seed(7)``, ``np.random.set_state``) fixes the noise: the program's release is then a
deterministic function of the data on those draws.  Recording them would make fixed noise look random, so they are
*not* recorded: the generator is numpy's or Python's own, seeded as asked (the same draws on every run, replay
included), the noise is part of the release's noise-free function of the data, and the source is noted
(:class:`Unrecorded`, :data:`~.recorder.FIXED`) for page 1.

**Randomness that cannot be replayed** -- the operating system's entropy in every form Python offers it -- is noted
where the program draws it (:mod:`.entropy`): the claim undecided.  A ``SeedSequence()`` made with no entropy in a
run takes its entropy from the run's generator (:meth:`Sources.minted`): what the program reads of it is the same on
D and on every D′ of a draw set, as a recorded draw is.

**Names bound at import** (``from numpy.random import laplace``) in any module outside the standard library are
rebound for the block (:mod:`.bound_names`).  Each library is installed once the program imports it
(:meth:`Sources.wrap_new`).  **Not covered** (the replay on D then differs from the record: undecided): a generator
object made before the session (at the program's import), a generator class of the program's own, draws inside
compiled code, OpenDP's sampler outside its measurements.

**The black box** runs the program outside any session: there (:func:`sources_drawn`) the same names draw from each
release's own generator, unrecorded, so that its releases follow the run's seed.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pdp_audit.audits.program import audit_hooks, bound_names, entropy
from pdp_audit.audits.program.adapters import ADAPTERS
from pdp_audit.audits.program.adapters.base import OPEN, Adapter, Hooks
from pdp_audit.audits.program.events import Event
from pdp_audit.audits.program.recorder import FIXED, RecordingGenerator, Tape, Unrecorded, program_line

#: numpy's real seed classes (captured at import, before any session replaces their names).
_BIT_GENERATOR, _SEED_SEQUENCE = np.random.BitGenerator, np.random.SeedSequence
#: A seed drawn from the audit's rng: equal to an ``integers`` draw of the run whose range has at least this many
#: values (a seed the program fixed equals such a draw with probability at most 2⁻³² per draw).
DRAWN_RANGE = 2**32

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
    numpy's or Python's own), the entropies of the seed sequences minted fresh in the session, and the adapters
    installed (:mod:`.adapters`), each told when a run begins (:meth:`each_run`)."""

    def __init__(self, tape: Callable[[], Tape | None], rng: Callable[[], np.random.Generator]):
        self.tape, self.rng = tape, rng
        self.active = False
        self.fresh: set[int] = set()
        #: the streams seeded in this run (a seed's entropy and spawn key): one seeded twice draws its noise twice
        self.streams: set[tuple] = set()
        #: numpy's global state as the session replaces it (:mod:`.adapters.numpy_random`)
        self.numpy_global: Any = None
        #: the adapters newly imported installed (set by :func:`sources_recorded`): whether any was
        self.install: Callable[[], bool] | None = None
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
        self._started: list[Callable[[], None]] = []

    def each_run(self, started: Callable[[], None]) -> None:
        """``started()`` at the beginning of each run (an adapter's per-run state: no constant seed of an earlier run
        holds)."""
        self._started.append(started)

    def __enter__(self) -> Sources:
        """One run of the program (``with sources:``): the sources draw from the run's tape (no seed the program set
        in an earlier run holds); outside it every source draws as numpy's or Python's own."""
        self.streams.clear()
        self.minted_count = 0
        self.active = True
        for started in self._started:
            started()
        entropy.run_started(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.active = False

    def wrap_new(self) -> bool:
        """The adapters of libraries imported since the last look installed (:mod:`.adapters`), and the names modules
        imported since bound to a source rebound (:mod:`.bound_names`): whether any was now.  A program that imports a
        library (or a module binding such a name) in its body draws its first run's noise unrecorded; that run is
        made again (:meth:`~pdp_audit.audits.program.trace.Session.run`)."""
        if self.install is None or len(sys.modules) == self.modules_seen:
            return False
        installed = self.install()
        rebound = self.rebind() if self.rebind is not None else False
        noted = self.late() if self.late is not None else False
        self.modules_seen = len(sys.modules)
        return installed or rebound or noted

    def note(self, what: str, why: str, undecided: bool = False) -> None:
        """Note an unrecorded source on the run's tape (once per source and line), where the program itself used it
        (not inside a recorded library primitive)."""
        tape = self.tape()
        if tape is not None and not tape.depth:
            tape.note(Unrecorded(what, why, program_line(), undecided))

    def seed_kind(self, seed: Any) -> str:
        """``"fresh"`` (no seed: entropy; a seed sequence or bit generator minted fresh in the session, or a child of
        one; the audit's own generator), ``"drawn"`` (an integer equal to an ``integers`` draw of this run of range
        at least :data:`DRAWN_RANGE`), else ``"fixed"``."""
        if seed is None or isinstance(seed, RecordingGenerator):
            return "fresh"
        if isinstance(seed, _BIT_GENERATOR):
            if seed is self.rng().bit_generator:
                return "fresh"
            seed = seed.seed_seq
        if isinstance(seed, _SEED_SEQUENCE):
            if seed.entropy in self.fresh:
                return "fresh"
            seed = seed.entropy
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return "drawn" if int(seed) in self._drawn() else "fixed"
        return "fixed"

    def minted(self) -> int:
        """The entropy of a seed sequence made with no entropy in a run: 128 bits from the run's generator, not the
        operating system's (which a program could read unrecorded) -- the k-th of a run of the session's draw set of
        seed s is the state SeedSequence([s, k]) generates (the same on D and on every D′); the black box's, bits
        drawn from the release's own generator (fresh in each release)."""
        rng = self.rng()
        self.minted_count += 1
        if isinstance(rng, RecordingGenerator):
            words = _SEED_SEQUENCE([rng.seed, self.minted_count]).generate_state(4)
            return int.from_bytes(words.tobytes(), "little")
        return int.from_bytes(np.random.Generator.bytes(rng, 16), "little")

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
        if isinstance(seed, _BIT_GENERATOR):
            seed = seed.seed_seq
        if isinstance(seed, _SEED_SEQUENCE):
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
    if isinstance(seed, _BIT_GENERATOR):
        return f"{type(seed).__name__}({_shown(seed.seed_seq)})"
    if isinstance(seed, _SEED_SEQUENCE):
        return f"SeedSequence({_shown(seed.entropy)})"
    text = repr(seed)
    return text if len(text) <= 40 else text[:37] + "..."


@contextlib.contextmanager
def sources_drawn() -> Iterator[Callable[[np.random.Generator], Sources]]:
    """For the black box's releases (outside any session): inside the block, ``drawing(rng)`` is one release's run,
    in which every ``draws`` adapter's names draw from ``rng`` -- the release's own generator -- unrecorded, so that a
    release is a function of its seed and each release's noise is fresh."""
    current: list[np.random.Generator] = []
    with sources_recorded(lambda: None, lambda: current[-1]) as sources:

        def drawing(rng: np.random.Generator) -> Sources:
            current[:] = [rng]
            sources.wrap_new()  # torch imported by an earlier release
            return sources

        yield drawing


@contextlib.contextmanager
def sources_recorded(tape: Callable[[], Tape | None], rng: Callable[[], np.random.Generator]) -> Iterator[Sources]:
    """Inside the block every adapter (:mod:`.adapters`) whose library the program has imported is installed -- with
    no tape (the black box), only those whose names draw from ``rng()`` -- and the operating system's entropy is
    noted (:mod:`.entropy`); every replaced name given back on leaving."""
    sources = Sources(tape, rng)
    undo: list[Callable[[], None]] = []
    drawn: list[tuple[Any, str, Any]] = []  # the names the draws adapters replaced: rebound where bound at import

    def replacing(into: list | None) -> Callable[[Any, str, Any], None]:
        def replace(owner: Any, name: str, value: Any) -> None:
            """``owner.name = value`` until the block ends (a class's inherited attribute: removed again then)."""
            before = vars(owner).get(name, _ABSENT) if isinstance(owner, type) else getattr(owner, name)
            undo.append(lambda: delattr(owner, name) if before is _ABSENT else setattr(owner, name, before))
            if into is not None:
                into.append((owner, name, before))
            setattr(owner, name, value)

        return replace

    hooks = {True: Hooks(replacing(drawn), undo.append, sources), False: Hooks(replacing(None), undo.append, sources)}
    sources.late = entropy.replace_names(sources, hooks[True].replace)
    installed: set[str] = set()
    sources.install = lambda: _installed(ADAPTERS if tape() is not None else _DRAWS, hooks, installed)
    rebound: set[str] = set()
    sources.rebind = lambda: bound_names.rebind(bound_names.originals(drawn, getattr), hooks[True].replace, rebound)
    sources.wrap_new()
    OPEN.append(sources)
    try:
        with audit_hooks.watching(entropy.events(sources)) as armed:
            sources.unwatched = not armed  # the process refused the hook: noted on each record (.entropy)
            yield sources
    finally:
        sources.active = False
        OPEN.remove(sources)
        for given_back in reversed(undo):
            given_back()


_ABSENT = object()
#: The adapters installed in the black box's releases: those whose names draw from the release's generator.
_DRAWS = tuple(adapter for adapter in ADAPTERS if adapter.draws)


def _installed(adapters: Sequence[Adapter], hooks: dict[bool, Hooks], done: set[str]) -> bool:
    """Each adapter of ``adapters`` whose package is imported and not yet installed (``done``), installed; whether
    any was.  One whose package's import is not complete (ImportError) is tried again at the next look."""
    found = False
    for adapter in adapters:
        if adapter.package in done or adapter.package not in sys.modules:
            continue
        try:
            adapter.install(hooks[adapter.draws])
        except ImportError:
            continue
        done.add(adapter.package)
        found = True
    return found
