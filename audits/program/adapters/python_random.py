"""Python's ``random`` drawn through the session's generator: its module functions and ``random.Random``
(:class:`RecordingRandom`, whose draws are the session generator's); a ``Random`` seeded with a constant is Python's
own, noted as fixed (:meth:`..sources.Sources.random_seed`)."""

from __future__ import annotations

import functools
import random
import types
from typing import Any, Callable

from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources, standin
from pdp_audit.audits.program.events import Draw
from pdp_audit.audits.program.recorder import REPEATED, SAVED, Tape

#: Python's real functions and ``Random``, as it defines them (captured at import, before any session).
PYTHON = {name: getattr(random, name) for name in random.__all__}


class RecordingRandom(random.Random):  # Python's own class (this module is imported before a session)
    """A ``random.Random`` whose ``random``, ``getrandbits``, ``gauss`` and ``normalvariate`` draw from the session's
    generator (recorded, replayed: ``gauss(μ, σ)`` as a normal draw of law N(μ, σ²)); Python's other methods are
    built on them.  ``fixed``: where the program seeded it with a constant (or set a saved state), the generator
    its draws then come from instead (Python's own module functions for the global one); outside the session it
    draws as Python's own."""

    def __init__(self, sources: Sources, is_global: bool = False):
        self.sources, self.is_global = sources, is_global
        self.fixed: Any = None
        self.outside: Any = PYTHON["Random"]()
        super().__init__()

    def _target(self, name: str) -> Any:
        if not self.sources.active:
            return getattr(self.outside, name)
        return None if self.fixed is None else getattr(self.fixed, name)

    def seed(self, a: Any = None, version: int = 2) -> None:  # type: ignore[override]
        if not hasattr(self, "sources"):  # Python's __init__ seeds before ours has run: its own state, never drawn
            super().seed(a, version)
            return
        if not self.sources.active or self.sources.random_seed("random.seed", a, "python"):
            self.fixed = None
            return
        if self.is_global:
            PYTHON["seed"](a, version)
            self.fixed = types.SimpleNamespace(**PYTHON)
        else:
            self.fixed = PYTHON["Random"](a)

    def setstate(self, state: Any) -> None:
        if not hasattr(self, "sources") or not self.sources.active:
            super().setstate(state)
            return
        self.sources.note("random.setstate", SAVED)
        if self.is_global:
            self.fixed = types.SimpleNamespace(**PYTHON)
        elif self.fixed is None:
            self.fixed = PYTHON["Random"]()
        self.fixed.setstate(state)

    def getstate(self) -> Any:
        """As :meth:`.sources.RecordingRandomState.get_state`: a random one's state read is noted as keeping the claim
        undecided (a copy or a restore would draw its noise again)."""
        if hasattr(self, "sources") and self.sources.active and self.fixed is None:
            self.sources.note("random.getstate / a copy of a random.Random", REPEATED, undecided=True)
        return (self.fixed or self.outside).getstate()

    def __reduce__(self) -> tuple:
        """A copy (``copy.deepcopy``, ``pickle``) is Python's own ``Random`` in the state :meth:`getstate` gives
        (this class needs its session to be made)."""
        return (PYTHON["Random"], (), self.getstate())

    def random(self) -> float:
        target = self._target("random")
        return target() if target else float(self.sources.rng().random())

    def getrandbits(self, k: int) -> int:
        target = self._target("getrandbits")
        if target:
            return target(k)
        rng = self.sources.rng()
        tape = self.sources.tape()

        def draw() -> int:
            size = (k + 7) // 8
            return int.from_bytes(rng.bytes(size), "little") >> (8 * size - k) if k > 0 else 0

        return _recorded(tape, "getrandbits", {"k": k}, draw)

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        target = self._target("gauss")
        return target(mu, sigma) if target else float(self.sources.rng().normal(mu, abs(sigma)))

    def normalvariate(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        target = self._target("normalvariate")
        return target(mu, sigma) if target else float(self.sources.rng().normal(mu, abs(sigma)))


def _recorded(tape: Tape | None, kind: str, parameters: dict, draw: Callable[[], Any]) -> Any:
    """One draw with no law, recorded (its output) or replayed (the recorded output), as the generator's own
    methods are; inside a recorded library primitive (or with no tape), drawn as it is."""
    if tape is None or tape.depth:
        return draw()
    return tape.made(functools.partial(Draw, kind, parameters), None, draw).noise


def _random(sources: Sources, x: Any = None) -> Any:
    if sources.active and sources.random_seed("random.Random", x, "python"):
        return RecordingRandom(sources)
    return PYTHON["Random"](x)


_RANDOM = standin(PYTHON["Random"], _random)


def install(hooks: Hooks) -> None:
    """``random``'s module functions (each a method of one :class:`RecordingRandom`) and ``random.Random`` replaced
    for the session; no constant seed of an earlier run holds in the next."""
    state = RecordingRandom(hooks.sources, is_global=True)
    for name in random.__all__:
        if name not in ("Random", "SystemRandom"):
            hooks.replace(random, name, getattr(state, name))
    hooks.replace(random, "Random", _RANDOM)
    hooks.sources.each_run(lambda: setattr(state, "fixed", None))


ADAPTER = Adapter("random", install, draws=True)
