"""The events of a recorded run: one frozen class per thing the recorder sees, each built whole where it is seen.

A run's record is the tuple of its events in the order the program made them (:attr:`.trace.Run.calls`); a replay
builds the event its call asks for and takes the recorded draw into a new one (:meth:`Event.replayed`).  The draws of
the program's generators are :class:`Draw` (:class:`Located`, :class:`Choice`); a library's primitive is a
:class:`LibraryCall` (:class:`Mechanism`: a declared budget; :class:`Compiled`: an OpenDP measurement's output); a
source whose draws are not recorded is noted beside the record as :class:`Unrecorded`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np


@dataclass(frozen=True)
class Event:
    """One primitive call: ``name`` (``laplace``, ``choice``, ``diffprivlib.Laplace`` …), its ``parameters``
    (compared on replay), the ``shape`` of its output (None: a replay's call whose shape is its output's, until it
    has the recorded one) and the ``noise`` it drew; ``value``: what it is applied to where the call shows it;
    ``scale``, ``law``: its noise's scale and the exact law the accounting knows; ``lattice``: its output lies on
    the integers; ``line``: where the recording run's program made it (``file.py:12``; "" on a replay)."""

    name: str
    parameters: Mapping[str, Any]
    shape: tuple | None
    noise: Any
    value: Any = None
    scale: Any = None
    law: str | None = None
    lattice: bool = False
    line: str = ""

    def signature(self) -> str:
        """What a replay must repeat: name, shape and parameters, as one line."""
        shown = ", ".join(f"{k}={_short(v)}" for k, v in sorted(self.parameters.items()))
        return f"{self.name}(shape={self.shape}{', ' if shown else ''}{shown})"

    def replayed(self, recorded: Event) -> Event:
        """This call as a replay makes it: with the ``recorded`` call's draw and shape."""
        return dataclasses.replace(self, noise=recorded.noise, shape=recorded.shape)


@dataclass(frozen=True)
class Draw(Event):
    """A draw of the program's generator (numpy's, Python's ``random``): its output is its noise."""


@dataclass(frozen=True)
class Located(Draw):
    """A location family's draw (``laplace``, ``normal``, ``gumbel``, ``logistic``): its ``loc`` the ``value``, its
    noise ``output − loc``."""


@dataclass(frozen=True)
class Choice(Draw):
    """``choice``: the index drawn its noise, its probabilities its ``value`` (None: uniform)."""


@dataclass(frozen=True)
class LibraryCall(Event):
    """A library's primitive (``<library>.<name>``): the ``input`` the data moves, the ``output`` it gave (None on a
    replay)."""

    input: Any = None
    output: Any = None

    @property
    def library(self) -> str:
        """``opendp``, ``diffprivlib`` or ``pydp``."""
        return self.name.partition(".")[0]


@dataclass(frozen=True)
class Mechanism(LibraryCall):
    """A mechanism with a declared budget (``diffprivlib.<class>``, ``pydp.<class>.<method>``): ``declared``, its ε,
    δ and sensitivity; ``selecting``: a selecting mechanism's candidates, measure and monotonicity (else None).  An
    additive diffprivlib mechanism's input is its ``value``."""

    declared: Mapping[str, Any] = field(default_factory=dict)
    selecting: Mapping[str, Any] | None = None

    @property
    def mechanism(self) -> str:
        """The mechanism's class (with PyDP's method): ``Laplace``, ``LaplaceMechanism.add_noise``."""
        return self.name.partition(".")[2]


@dataclass(frozen=True)
class Compiled(LibraryCall):
    """An output of a compiled sampler, an OpenDP measurement's: the ``measurement`` (its privacy map; None once
    sent to another process), ``interactive`` (a compositor: its queries are calls of their own), ``once`` (a Polars
    frame collected once), ``noise_law`` (its constructor's law, scale and grid, where recorded)."""

    measurement: Any = None
    interactive: bool = False
    once: bool = False
    noise_law: Mapping[str, Any] | None = None

    def replayed(self, recorded: Event) -> Event:
        """This call as a replay makes it: with the ``recorded`` call's draw, shape and interactivity."""
        interactive = isinstance(recorded, Compiled) and recorded.interactive
        return dataclasses.replace(self, noise=recorded.noise, shape=recorded.shape, interactive=interactive)


@dataclass(frozen=True)
class Unrecorded:
    """A randomness source a run used whose draws are not recorded: ``what`` (``np.random.seed(0)``,
    ``os.urandom``), ``why`` (one line), the program's line that used it, and ``undecided``: the source cannot be
    replayed, so the record is not reproducible (a fixed seed is replayable: the same draws on every run)."""

    what: str
    why: str
    line: str
    undecided: bool

    def __str__(self) -> str:
        return f"{self.what}{f' at {self.line}' if self.line else ''}: {self.why}"


def input_of(event: Event) -> Any:
    """The input a library's call was given (None for a draw, which shows its ``value``)."""
    return event.input if isinstance(event, LibraryCall) else None


def _short(value: Any) -> str:
    array = np.asarray(value) if not isinstance(value, str) else None
    if array is not None and array.ndim == 0 and array.dtype.kind in "biuf":  # a number, not "array(1.)"
        return f"{array.item():.6g}"
    if array is not None and array.ndim > 0:
        if array.size <= 4:
            return np.array2string(array, precision=6, separator=",")
        return f"array{array.shape}"
    return repr(value) if not isinstance(value, float) else f"{value:.6g}"
