"""The protocol between mechanisms and auditors, and the record of a mechanism known to the suite.

A mechanism applied to a dataset ``D`` and a target individual ``z`` gives a *neighbouring pair*
``(D, D')`` with ``D' = D±z`` ([RW] §2.1: ``z`` is removed if it is in ``D``, added otherwise).
Everything an auditor needs is:

* ``sample(world, size, rng)`` -- ``size`` independent releases of the mechanism run on ``D``
  (``world="D"``) or on ``D'`` (``world="D'"``), as a float array of shape ``(size, output_dim)``.
  Multi-stage mechanisms concatenate every released stage into one row.
* ``privacy_loss(outputs)`` -- the exact privacy loss ``log p_D(o) - log p_D'(o)`` of each row,
  computed from the output densities themselves (never from the papers' closed forms, which
  the auditors are there to check).

Both must be vectorised over rows, and ``sample`` must consume ``rng`` only, so that results depend
on the seed alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Protocol, runtime_checkable

import numpy as np

from pdp_audit.mechanisms.validation import InputError

World = Literal["D", "D'"]
WORLDS: tuple[World, World] = ("D", "D'")


@runtime_checkable
class NeighbourPair(Protocol):
    """A mechanism on a neighbouring pair of datasets (D, D±z)."""

    output_dim: int

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` releases on ``world``; shape ``(size, output_dim)``."""

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """Exact ``log p_D(o) - log p_D'(o)`` for each row of ``outputs``; shape ``(rows,)``."""


def check_world(world: str) -> World:
    """``world`` if it is ``"D"`` or ``"D'"``, else a ValueError."""
    if world not in WORLDS:
        raise InputError(f"world must be one of {WORLDS}, got {world!r}")
    return world  # type: ignore[return-value]


class MalformedPair(ValueError):
    """A pair broke the protocol: releases of the wrong shape, or losses that cannot be exact privacy losses.
    The message names the method, what it returned and what was expected."""


def checked_releases(pair: NeighbourPair, world: World, size: int, outputs) -> np.ndarray:
    """``outputs`` of ``pair.sample(world, size, …)`` as a float array, or :class:`MalformedPair` unless it has
    shape ``(size, output_dim)``."""
    outputs = np.asarray(outputs)
    expected = (size, int(pair.output_dim))
    if outputs.shape != expected:
        raise MalformedPair(f"sample({world!r}, {size}) returned shape {outputs.shape}; expected {expected}")
    if not np.issubdtype(outputs.dtype, np.number) or np.iscomplexobj(outputs):
        raise MalformedPair(f"sample({world!r}, {size}) returned {outputs.dtype} values; expected real numbers")
    return outputs


def checked_losses(world: World, size: int, losses) -> np.ndarray:
    """The privacy losses of ``size`` releases drawn on ``world``, or :class:`MalformedPair`: a shape other than
    ``(size,)``, NaN, or the impossible infinity of that world (−∞ under D says p_D(o) = 0 for a release drawn
    from D; +∞ under D' likewise)."""
    losses = np.asarray(losses)
    if losses.shape != (size,):
        raise MalformedPair(f"privacy_loss returned shape {losses.shape} for {size} releases; expected ({size},)")
    if not np.issubdtype(losses.dtype, np.number) or np.iscomplexobj(losses):
        raise MalformedPair(f"privacy_loss returned {losses.dtype} values; expected real numbers")
    nan = int(np.count_nonzero(np.isnan(losses)))
    if nan:
        raise MalformedPair(f"privacy_loss returned NaN for {nan:,} of {size:,} releases drawn on {world}")
    impossible = -np.inf if world == "D" else np.inf
    bad = int(np.count_nonzero(losses == impossible))
    if bad:
        raise MalformedPair(
            f"privacy_loss returned {impossible} for {bad:,} of {size:,} releases drawn on {world}: a release drawn "
            f"on {world} cannot be impossible under {world}"
        )
    return losses


#: Losses are compared at this absolute resolution (2^-32 ≈ 2.3e-10): :func:`at_loss_resolution`.
LOSS_RESOLUTION = 2.0**-32


def at_loss_resolution(losses: np.ndarray) -> np.ndarray:
    """Losses rounded to the nearest multiple of :data:`LOSS_RESOLUTION` (|L| ≥ 2^20 and ±∞ unchanged).

    Why: a loss with an atom (the Laplace mechanism's L = ε on a half-line) is computed with a few ulp of
    rounding noise, and that noise differs between the worlds (o = 0 + noise and o = 1 + noise lie on different
    floating-point grids).  Compared exactly with ε or with a bin edge, the atom would then split between the two
    sides differently in D and in D': a correct (ε, 0)-DP pair would show δ ≈ 0.03.  Rounded, the atom stays
    whole; a whole atom at L = ε contributes P(atom) − e^ε Q(atom) = 0 to δ(ε), wherever it lies.  Moving L by at
    most 2^-33 changes δ(ε) by at most (e^{2^-33} − 1)·e^ε·Q(|L − ε| ≤ 2^-33) and each likelihood-ratio identity
    by a factor e^{±2^-33}: far below any sampled interval.
    """
    losses = np.asarray(losses, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(losses) < 2.0**20, np.rint(losses / LOSS_RESOLUTION) * LOSS_RESOLUTION, losses)


class SwappedPair:
    """The pair (D', D): same mechanism, roles of the two worlds exchanged.

    Its privacy loss is ``-privacy_loss`` of the original, which is how the auditors get the reverse
    direction of every hockey-stick divergence without special cases.
    """

    def __init__(self, pair: NeighbourPair):
        self.pair = pair
        self.output_dim = pair.output_dim

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.pair.sample("D'" if check_world(world) == "D" else "D", size, rng)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return -self.pair.privacy_loss(outputs)


@dataclass(frozen=True)
class RegisteredMechanism:
    """A mechanism known to the suite.

    ``example_pairs(rng)`` returns a few small, representative neighbouring pairs (add and remove
    neighbours, varied sensitivities) on which the common contract suite is run; ``description`` is
    what ``pdp-audit list`` prints.
    """

    name: str
    description: str
    example_pairs: Callable[[np.random.Generator], list[NeighbourPair]]
