"""OpenDP chains read as their parts: a measurement made by ``make_chain_mt(m, t)`` -- what ``t >> m`` and
``t >> dp.m.then_laplace(scale)`` build -- is recorded as the measurement ``m`` applied to ``t``'s output.

**Why.**  A pipeline over categorical data (``make_count_by_categories`` over a vector of strings, then Laplace noise)
is called on the strings: the argument the chain's ``__call__`` sees holds no number, so neither the distance it moved
nor the noise the release carries can be read off it.  Its transformation's output (the counts) can.

**Sound for.**  OpenDP's chain ``make_chain_mt(m, t)`` is "a Measurement that when invoked, computes
``measurement1(transformation0(x))``" (its documentation, OpenDP 0.16), and OpenDP's transformations are the
"functions that deterministicly transform datasets" (its ``transformations`` module; the programming framework of
Gaboardi, Hay & Vadhan, 2020, §2).  So ``chain(x) = m(t(x))`` in law, and ``t(x)``, computed by the transformation's
own public ``__call__``, is the argument ``m`` is applied to: the recorder reads the release as ``m``'s output on it,
accounts ``m`` by its privacy map at the distance ``t(x)`` moved (the chain's map at the distance ``x`` moved is
``m``'s map after ``t``'s stability map, which bounds that distance from above: no looser) and, where ``m`` was made
by a constructor whose law is read, below by that law.  A chain whose parts are not known here (built before the
recording, or by another combinator) is recorded as it is called.
"""

from __future__ import annotations

import importlib
import weakref
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Parts:
    """A chain's two parts: the ``measurement`` applied to the output of the ``transformation``."""

    measurement: Any
    transformation: Any


class Noted:
    """Objects noted by id while they live (chains, measurements, queryables): a weak reference to each and what is
    noted of it."""

    def __init__(self) -> None:
        self._noted: dict[int, tuple[weakref.ref, Any]] = {}

    def note(self, made: Any, what: Any) -> None:
        key = id(made)
        self._noted[key] = (weakref.ref(made, lambda _: self._noted.pop(key, None)), what)

    def get(self, made: Any) -> Any:
        """What was noted of ``made`` (None: nothing)."""
        entry = self._noted.get(id(made))
        return entry[1] if entry is not None and entry[0]() is made else None


def install(replace: Callable[[Any, str, Any], None], chains: Noted) -> None:
    """OpenDP's public ``make_chain_mt`` (which ``Transformation.__rshift__`` calls by its module name) replaced for
    the session: it notes in ``chains`` the :class:`Parts` of each chain it makes."""
    try:  # before 0.6 OpenDP named the module ``opendp.comb``
        combinators: Any = importlib.import_module("opendp.combinators")
    except ImportError:
        combinators = importlib.import_module("opendp.comb")
    original: Callable = combinators.make_chain_mt

    def make_chain_mt(measurement1: Any, transformation0: Any) -> Any:
        chain = original(measurement1, transformation0)
        chains.note(chain, Parts(measurement1, transformation0))
        return chain

    make_chain_mt.__doc__ = original.__doc__
    replace(combinators, "make_chain_mt", make_chain_mt)
