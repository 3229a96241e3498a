"""numpy's randomness outside the program's ``rng``, drawn through the session's generator: ``numpy.random``'s module
functions, ``RandomState``, ``Generator``, ``default_rng``, ``SeedSequence`` and the bit generators.

* ``numpy.random``'s module-level functions (:data:`numpy.random.__all__`): each the method of one
  :class:`RecordingRandomState` (the legacy names mapped to the generator's: ``rand`` → ``random``, ``randn`` →
  ``standard_normal``, ``randint`` → ``integers``; the distributions keep their names, each the same law);
* ``numpy.random.RandomState``, ``Generator``, ``default_rng``, ``SeedSequence`` and the bit generators'
  constructors: stand-ins (:func:`.base.standin`) whose ``isinstance`` answers as the real class's; a generator seeded
  with no seed or a seed drawn from the audit's ``rng`` is the session's generator (its draws recorded), one seeded
  with a constant is numpy's own, noted as fixed (:meth:`..sources.Sources.random_seed`).
* numpy's global ``RandomState`` object, which a library reaches directly (scikit-learn's
  ``check_random_state(None)``), is not replaced but seeded at each run from the run's generator
  (:func:`_pinned`): replayed, held fixed between D and D′.
"""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources, standin
from pdp_audit.audits.program.recorder import REPEATED, SAVED, RecordingGenerator

#: The real classes and functions, as numpy defines them (captured at import, before any session).
NUMPY = {name: getattr(np.random, name) for name in np.random.__all__}
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
#: numpy's legacy function names that the generator spells otherwise (:class:`RecordingRandomState` maps each).
_LEGACY = ("rand", "randn", "randint", "random_integers", "random_sample", "random", "ranf", "sample")
#: Methods of the global state that are not draws.
_STATE = ("seed", "get_state", "set_state")
#: numpy's global RandomState itself: the object its module functions are methods of.
GLOBAL_STATE = NUMPY["random_sample"].__self__


class RecordingRandomState(np.random.RandomState):  # numpy's own class (this module is imported before a session)
    """A ``numpy.random.RandomState`` whose public draws are the session's generator's (recorded, replayed): the
    distributions by their names, the legacy names by the generator's.  ``fixed``: where the program seeded it with
    a constant, the state its draws then come from instead (numpy's global functions for the global state,
    ``is_global``, a ``RandomState`` for an instance); outside a run it draws as numpy's own."""

    def __init__(self, sources: Sources, is_global: bool = False):
        super().__init__(0)  # its own state is never drawn from
        self.sources, self.is_global = sources, is_global
        self.fixed: Any = None
        self.outside: Any = types.SimpleNamespace(**NUMPY)

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
        if self.is_global:
            NUMPY["seed"](seed)
            self.fixed = types.SimpleNamespace(**NUMPY)
        else:
            self.fixed = NUMPY["RandomState"](seed)

    def set_state(self, state: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if self.sources.active:
            self.sources.note("numpy.random.set_state", SAVED)
            if self.is_global:
                self.fixed = types.SimpleNamespace(**NUMPY)
            elif self.fixed is None:
                self.fixed = NUMPY["RandomState"]()
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
    base = getattr(NUMPY["RandomState"], name)

    def method(self: RecordingRandomState, *args: Any, **kwargs: Any) -> Any:
        target = self._target(name)
        return target(*args, **kwargs) if target else getattr(self.sources.rng(), name)(*args, **kwargs)

    method.__name__, method.__doc__ = name, base.__doc__
    return method


for _name in np.random.__all__:
    _value = NUMPY[_name]
    if callable(_value) and not isinstance(_value, type) and _name not in _LEGACY + _STATE + ("default_rng",):
        setattr(RecordingRandomState, _name, _legacy(_name))


# --- the constructors in a session, called by their stand-ins ----------------------------------------------------
def _generator(sources: Sources, bit_generator: Any) -> Any:
    if sources.active and sources.random_seed("numpy.random.Generator", bit_generator):
        return sources.rng()
    return NUMPY["Generator"](bit_generator)


def _default_rng(sources: Sources, seed: Any = None) -> Any:
    if isinstance(seed, NUMPY["Generator"]) or not sources.active:
        return NUMPY["default_rng"](seed)  # numpy gives a generator itself back
    if sources.random_seed("numpy.random.default_rng", seed):
        return sources.rng()
    return NUMPY["default_rng"](seed)


def _random_state(sources: Sources, seed: Any = None) -> Any:
    if sources.active and sources.random_seed("numpy.random.RandomState", seed):
        return RecordingRandomState(sources)
    return NUMPY["RandomState"](seed)


def _seed_sequence(sources: Sources, entropy: Any = None, **kwargs: Any) -> Any:
    """A seed sequence made with no entropy in a run takes its entropy from the run's generator instead of the
    operating system (:meth:`..sources.Sources.minted`): a generator seeded from it is recorded as fresh, and what
    the program reads of it directly is the same on D and on every D′ of a draw set, as a recorded draw is."""
    if entropy is None and sources.active:
        made = NUMPY["SeedSequence"](sources.minted(), **kwargs)
        sources.fresh.add(made.entropy)
        return made
    return NUMPY["SeedSequence"](entropy, **kwargs)


def _bit_generator(sources: Sources, name: str, seed: Any = None, *args: Any, **kwargs: Any) -> Any:
    if seed is None and sources.active and not args and not kwargs:  # entropy: a fresh seed sequence, kept
        seed = _seed_sequence(sources)
    return NUMPY[name](seed, *args, **kwargs)


_STANDINS = {
    "Generator": standin(NUMPY["Generator"], _generator),
    "RandomState": standin(NUMPY["RandomState"], _random_state),
    "SeedSequence": standin(NUMPY["SeedSequence"], _seed_sequence),
}
_STANDINS.update({name: standin(NUMPY[name], _bit_generator, name) for name in _BIT_GENERATORS})


def install(hooks: Hooks) -> None:
    """numpy's module functions, classes and ``default_rng`` replaced for the session (module notes); the global
    state given back on leaving."""
    sources = hooks.sources
    state = sources.numpy_global = RecordingRandomState(sources, is_global=True)
    for name in np.random.__all__:
        if hasattr(state, name) and not isinstance(NUMPY[name], type) and name != "default_rng":
            hooks.replace(np.random, name, getattr(state, name))
    for name, value in _STANDINS.items():
        hooks.replace(np.random, name, value)

    def default_rng(seed: Any = None) -> Any:
        return _default_rng(sources, seed)

    hooks.replace(np.random, "default_rng", default_rng)
    sources.each_run(lambda: _started(state))
    saved = GLOBAL_STATE.get_state()  # the user's global stream, as the session found it
    hooks.given_back(lambda: GLOBAL_STATE.set_state(saved))


def _started(state: RecordingRandomState) -> None:
    """A run begins: no constant seed of an earlier run holds, and numpy's global ``RandomState`` is pinned."""
    state.fixed = None
    _pinned(state.sources)


_WORDS: dict[int, np.ndarray] = {}


def _pinned(sources: Sources) -> None:
    """numpy's global ``RandomState`` object seeded from the run's generator (its seed sequence's first 128 bits, not
    a draw of it): a library that reaches the object itself -- scikit-learn's and diffprivlib's
    ``check_random_state(None)`` return it, and no replaced name is on that path -- draws the same stream on the
    record and on every replay of one draw set, a stream of its own in each draw set and each black-box release.
    Those draws are held fixed between D and D′, as a recorded draw with no law is (a coupling: each side's draws
    are the stream's, of the right law), never composed as noise."""
    rng = sources.rng()
    if isinstance(rng, RecordingGenerator):  # the session's: a constant seed per draw set, read once
        words = _WORDS.get(rng.seed)
        if words is None:
            words = _WORDS[rng.seed] = NUMPY["SeedSequence"](rng.seed).generate_state(4)
    else:
        sequence = getattr(rng.bit_generator, "seed_seq", None)
        if not isinstance(sequence, NUMPY["SeedSequence"]):
            return
        words = sequence.generate_state(4)
    GLOBAL_STATE.seed(words)


ADAPTER = Adapter("numpy", install, draws=True)
