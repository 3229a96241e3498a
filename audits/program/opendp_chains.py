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

import contextlib
import importlib
import math
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np


@dataclass(frozen=True)
class Parts:
    """A chain's two parts: the ``measurement`` applied to the output of the ``transformation``."""

    measurement: Any
    transformation: Any


class Chains:
    """The chains made while :func:`noted` is active, by the chain's id: a weak reference to it and its parts."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[weakref.ref, Parts]] = {}

    def note(self, chain: Any, parts: Parts) -> None:
        key = id(chain)
        self._made[key] = (weakref.ref(chain, lambda _: self._made.pop(key, None)), parts)

    def parts(self, measurement: Any) -> Parts | None:
        """The parts of ``measurement`` where it is a chain noted here, else None."""
        entry = self._made.get(id(measurement))
        return entry[1] if entry is not None and entry[0]() is measurement else None


@contextlib.contextmanager
def noted(chains: Chains) -> Iterator[None]:
    """Inside the block, OpenDP's public ``make_chain_mt`` (which ``Transformation.__rshift__`` calls by its module
    name) notes in ``chains`` the parts of each chain it makes; restored on leaving."""
    try:  # OpenDP is optional (the ``libraries`` extra), and before 0.6 it named the module ``opendp.comb``
        combinators: Any = importlib.import_module("opendp.combinators")
    except ImportError:
        combinators = importlib.import_module("opendp.comb")

    original: Callable = combinators.make_chain_mt

    def make_chain_mt(measurement1: Any, transformation0: Any) -> Any:
        chain = original(measurement1, transformation0)
        chains.note(chain, Parts(measurement1, transformation0))
        return chain

    make_chain_mt.__doc__ = original.__doc__
    combinators.make_chain_mt = make_chain_mt
    try:
        yield
    finally:
        combinators.make_chain_mt = original


def like(output: Any, moved: Any) -> Any:
    """``moved`` (a float array of ``output``'s shape) as an object of ``output``'s kind: a list, a number, an array
    of ``output``'s dtype -- so that a replayed release is compared as the recorded one is (its types are part of
    it).  An integer of ``output`` stays an integer where its replayed value is one (a count moved by whole units);
    a replay whose probe shifted the noise by a fraction returns that fraction, a float, never a truncation of it
    (the release then changes its structure, which the probe reads as noise that is not additive)."""
    if isinstance(output, list):
        return [_one_like(o, m) for o, m in zip(output, moved.ravel().tolist())]
    if moved.ndim == 0:
        return _one_like(output, float(moved))
    if hasattr(output, "dtype") and (output.dtype.kind == "f" or np.array_equal(moved, np.round(moved))):
        return moved.astype(output.dtype)
    return moved


def _one_like(output: Any, value: float) -> Any:
    """``value`` as an int where ``output`` is a Python or numpy integer and ``value`` a whole number, else a float."""
    integer = isinstance(output, (int, np.integer)) and not isinstance(output, bool)
    return int(value) if integer and math.isfinite(value) and value == int(value) else value


def integers(output: Any) -> bool:
    """Whether an OpenDP measurement's output is integers only (a Python int, a list of them, an integer array): its
    noise lies on the integer lattice, and a probe shifts it by whole units (:func:`.probing.probe`), the replay
    returning integers as the measurement does."""
    leaves = output if isinstance(output, list) else [output]
    if isinstance(output, np.ndarray):
        return output.dtype.kind in "iu"
    return bool(leaves) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in leaves)
