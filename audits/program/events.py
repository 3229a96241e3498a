"""The events of a recorded run: one frozen class per thing the recorder sees, built whole where it is seen.

A run's record is a tuple of events in the order the program made them (:attr:`.trace.Run.calls`); a replay builds
the event its call asks for and takes the recorded draw into a new one (:meth:`Event.replayed`), never editing either.

* :class:`Draw` -- a draw of the program's generator (numpy's, Python's ``random``): its output is its noise;
  :class:`Located` -- a location family's (``laplace``, ``normal``, ``gumbel``, ``logistic``): the ``loc`` its
  ``value``, its noise ``output − loc``, its ``scale`` and the exact ``law`` the accounting knows (None: none here);
  :class:`Choice` -- ``choice``: the index its noise, the probabilities its ``value`` (None: uniform).
* :class:`Mechanism` -- a library mechanism with a declared budget (diffprivlib's, PyDP's): the ``declared`` ε, δ
  and sensitivity, the ``input`` the data moves, the ``output`` it gave, a selecting mechanism's noted parts.
* :class:`Compiled` -- an output of a compiled sampler (an OpenDP measurement): its ``input``, its ``measurement``
  (its privacy map; None once sent to another process), whether it was ``interactive`` (a compositor) or collected
  ``once`` (a Polars frame), and the constructor's noise law where one was recorded.
* :class:`Unrecorded` -- a source whose draws are not recorded (a fixed seed, ``os.urandom``, a draw in a process
  the program forked), noted beside the record.

What every reader needs is on :class:`Event`: the ``signature`` a replay must repeat (``name``, ``shape`` and
``parameters``), the ``noise`` drawn, and, where the event has them, the ``value`` it is applied to, the noise's
``scale`` and ``law``, whether its output lies on the integers (``lattice``) and the program's ``line``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np


@dataclass(frozen=True)
class Event:
    """One primitive call: ``name`` (``laplace``, ``choice``, ``diffprivlib.Laplace`` …, as the report shows it),
    its ``parameters`` (compared on replay), the ``shape`` of its output and the ``noise`` it drew; ``value``: what
    it is applied to where the call shows it; ``scale``: the noise's scale where it has one; ``law``: the exact law
    the accounting knows for it; ``lattice``: its output lies on the integers; ``line``: where the recording run's
    program made it (``file.py:12``; "" on a replay)."""

    name: str
    parameters: Mapping[str, Any]
    shape: tuple | None  # None: a replay's call whose shape is its output's, until it has the recorded one
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
    """A draw of the program's generator (numpy's, Python's ``random``): its output recorded as its noise."""


@dataclass(frozen=True)
class Located(Draw):
    """A location family's draw: ``value`` its ``loc``, its noise ``output − loc`` at ``scale``."""


@dataclass(frozen=True)
class Choice(Draw):
    """``choice``: the index drawn its noise, its probabilities its ``value`` (None: uniform)."""


@dataclass(frozen=True)
class LibraryCall(Event):
    """A library's primitive: the ``input`` the data moves and the ``output`` it gave (None on a replay)."""

    input: Any = None
    output: Any = None

    @property
    def library(self) -> str:
        """``opendp``, ``diffprivlib`` or ``pydp``."""
        return self.name.partition(".")[0]


@dataclass(frozen=True)
class Mechanism(LibraryCall):
    """A mechanism with a declared budget (``diffprivlib.<class>``, ``pydp.<class>.<method>``): ``declared``, its
    ε, δ and sensitivity; ``selecting``: a selecting mechanism's candidates, measure and monotonicity (None for the
    others).  An additive diffprivlib mechanism's input is its ``value`` (its ``input`` None)."""

    declared: Mapping[str, Any] = field(default_factory=dict)
    selecting: Mapping[str, Any] | None = None

    @property
    def mechanism(self) -> str:
        """The mechanism's class (with PyDP's method): ``Laplace``, ``LaplaceMechanism.add_noise``."""
        return self.name.partition(".")[2]


@dataclass(frozen=True)
class Compiled(LibraryCall):
    """An output of a compiled sampler (an OpenDP measurement, ``opendp.Measurement``): ``measurement`` (its
    privacy map; None where it could not be sent to another process), ``interactive`` (a compositor: its queries
    are calls of their own), ``once`` (a Polars frame collected once), ``noise_law`` (the constructor's law, scale
    and grid, where recorded)."""

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


def _short(value: Any) -> str:
    array = np.asarray(value) if not isinstance(value, str) else None
    if array is not None and array.ndim == 0 and array.dtype.kind in "biuf":  # a number, not "array(1.)"
        return f"{array.item():.6g}"
    if array is not None and array.ndim > 0:
        if array.size <= 4:
            return np.array2string(array, precision=6, separator=",")
        return f"array{array.shape}"
    return repr(value) if not isinstance(value, float) else f"{value:.6g}"


def input_of(event: Event) -> Any:
    """The input a library's call was given (None for a draw, which shows its ``value``)."""
    return event.input if isinstance(event, LibraryCall) else None
