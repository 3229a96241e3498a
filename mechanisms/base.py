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

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS, Terminated
from pdp_audit.verify.inputs.validation import InputError

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


def user_error(err: BaseException) -> str:
    """An exception raised by the user's code, in one line: its type and its message quoted (a message with a newline
    must not print a second line, which could forge a verdict in a CI log)."""
    if isinstance(err, SystemExit):
        return f"SystemExit (sys.exit({_cut(_text(err.code, repr))}))"
    return f"{type(err).__name__}: {_cut(repr(_text(err, str)))}"


#: The longest message of the user's exception shown (a 10 MB message made a 10 MB verdict line).
USER_MESSAGE_CHARS = 300


def _text(value: object, how) -> str:
    """``how(value)`` (``str`` or ``repr``), or a placeholder where the user's ``__str__``/``__repr__`` raises
    (that was an internal error, exit 4, and a KeyboardInterrupt raised there read as Ctrl-C).  A SIGTERM arriving
    meanwhile (:class:`~pdp_audit.verify.inputs.interruptions.Terminated`, which the user's code has no cause to raise)
    goes on as it came."""
    try:
        return how(value)
    except Terminated:
        raise
    except BaseException as err:  # noqa: BLE001 (whatever their method raises, the fault being reported stays theirs)
        return f"<its message could not be formed: {type(err).__name__}>"


def _cut(text: str) -> str:
    return text if len(text) <= USER_MESSAGE_CHARS else f"{text[:USER_MESSAGE_CHARS]}… ({len(text):,} characters)"


def pair_attribute(pair: Any, name: str, owner: str = "the pair") -> Any:
    """``pair.name``, or None where it has none; a property of the user's that raises (or exits) is
    :class:`MalformedPair` naming it -- the user's bug, never our internal error."""
    try:
        return getattr(pair, name, None)
    except BaseException as err:
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise MalformedPair(f"{owner}: reading .{name} raised {user_error(err)}") from None


def returned_array(call: str, returned: Any) -> np.ndarray:
    """What ``call`` returned as a numpy array, or :class:`MalformedPair` naming the call where numpy cannot make one
    (a tuple ``(array, 5)`` of ragged parts, an ``__array__`` of the user's that raises)."""
    try:
        return np.asarray(returned)
    except BaseException as err:
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise MalformedPair(
            f"{call} returned a {type(returned).__name__} that is not an array of numbers ({user_error(err)})"
        ) from None


def checked_releases(pair: NeighbourPair, world: World, size: int, outputs) -> np.ndarray:
    """``outputs`` of ``pair.sample(world, size, …)`` as a float array, or :class:`MalformedPair` unless it has
    shape ``(size, output_dim)``."""
    outputs = returned_array(f"sample({world!r}, {size})", outputs)
    dim = pair_attribute(pair, "output_dim")
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1:
        raise MalformedPair(f"the pair's output_dim is {dim!r}; expected a whole number >= 1")
    expected = (size, int(dim))
    if outputs.shape != expected:
        raise MalformedPair(f"sample({world!r}, {size}) returned shape {outputs.shape}; expected {expected}")
    if not np.issubdtype(outputs.dtype, np.number) or np.iscomplexobj(outputs):
        raise MalformedPair(f"sample({world!r}, {size}) returned {outputs.dtype} values; expected real numbers")
    return outputs


def checked_losses(world: World, size: int, losses) -> np.ndarray:
    """The privacy losses of ``size`` releases drawn on ``world``, or :class:`MalformedPair`: a shape other than
    ``(size,)``, NaN, or the impossible infinity of that world (−∞ under D says p_D(o) = 0 for a release drawn
    from D; +∞ under D' likewise)."""
    losses = returned_array(f"privacy_loss of {size} releases", losses)
    if losses.shape != (size,):
        raise MalformedPair(f"privacy_loss returned shape {losses.shape} for {size} releases; expected ({size},)")
    if not np.issubdtype(losses.dtype, np.number) or np.iscomplexobj(losses):
        raise MalformedPair(f"privacy_loss returned {losses.dtype} values; expected real numbers")
    impossible = -np.inf if world == "D" else np.inf
    # one pass where all is well: the extreme on the impossible side is NaN if any loss is, ±∞ if one is impossible
    extreme = (np.min if world == "D" else np.max)(losses) if size else 0.0
    if not (np.isnan(extreme) or extreme == impossible):
        return losses
    nan = int(np.count_nonzero(np.isnan(losses)))
    if nan:
        raise MalformedPair(f"privacy_loss returned NaN for {nan:,} of {size:,} releases drawn on {world}")
    bad = int(np.count_nonzero(losses == impossible))
    if bad:
        raise MalformedPair(
            f"privacy_loss returned {impossible} for {bad:,} of {size:,} releases drawn on {world}: a release drawn "
            f"on {world} cannot be impossible under {world}"
        )
    return losses


#: Losses of float64 releases are compared at this absolute resolution (2^-32 ≈ 2.3e-10): :func:`at_loss_resolution`.
LOSS_RESOLUTION = 2.0**-32
#: A loss computed from releases with machine epsilon ``eps`` carries absolute rounding noise of a few ulps of the terms
#: it is a difference of (|o|/b of a Laplace loss, z²/2 of a Gaussian one): trusted to ``ROUNDING_ULPS · eps``, which
#: allows terms up to 2^9 in magnitude.  The affinity tolerance and weight slack of the noise view use it
#: (:mod:`pdp_audit.verify.estimators.rare`).
ROUNDING_ULPS = 2.0**10
#: Losses are rounded to multiples of ``RESOLUTION_ULPS · eps`` (at least 2^-32): :func:`loss_resolution`.
RESOLUTION_ULPS = 2.0**13


def release_epsilon(*arrays) -> float:
    """Machine epsilon of the coarsest floating-point type among ``arrays`` (releases, losses): 2^-52 for float64,
    2^-23 for float32.  Integers and booleans are exact and count as float64 (their losses are computed in it)."""
    eps = float(np.finfo(np.float64).eps)
    for array in arrays:
        dtype = np.asarray(array).dtype
        if np.issubdtype(dtype, np.floating):
            eps = max(eps, float(np.finfo(dtype).eps))
    return eps


def loss_resolution(eps: float = float(np.finfo(np.float64).eps)) -> float:
    """The resolution at which losses of releases with machine epsilon ``eps`` are compared:
    R = max(2^-32, 2^13·eps), i.e. 2^-32 for float64 (as always) and 2^-10 ≈ 9.8e-4 for float32.

    An atom of the loss (:func:`at_loss_resolution`) is computed with noise of a few ulps of its terms, ≲ 2^6·eps
    for the losses of Laplace and Gaussian mechanisms (≲ 2^2·eps for the bulk of their releases), and stays whole
    unless it lies within that noise of a midpoint of the grid: for a position at random and a step of R/2 or more,
    probability ≲ 2·2^6/2^12 = 1/32 for the rare releases far out in the tails and ≲ 2^-9 for the bulk (float64:
    2^-32 and below).  An atom at the claimed ±ε, or at a simple fraction of it, is never split on a grid through ±ε
    (:func:`grid_through`).  2^-32 is already coarse for float64 (2^20 ulps of 1); for
    float32 2^-32 is far below the noise (2^-23 and up), and 2^-10 moves L by at most 2^-11, which changes δ(ε) by
    at most (e^{2^-11} − 1)·e^ε·Q(|L − ε| ≤ 2^-11) and each likelihood-ratio identity by a factor e^{±2^-11} ≈
    1 ± 5e-4.
    """
    return max(LOSS_RESOLUTION, RESOLUTION_ULPS * float(eps))


#: The coarsest loss resolution whatever the type: float32's (2^13·2^-23), or ε/64 where that is coarser.
COARSEST_RESOLUTION = 2.0**-10
SEPARATION = 64


def separating_resolution(resolution: float, epsilon: float) -> float:
    """``resolution`` capped at max(2^-10, |ε|/64): never coarser than the losses the claim at ε must separate.

    2^13·eps is 8 for float16 (and 64 for bfloat16): every loss of a correct pair rounded to 0 and its DP checks
    failed.  The atoms that rounding keeps whole are computed with a few ulps of noise of the *loss's* arithmetic;
    a low-precision release's loss is either computed exactly from its values (an atom such as |o − 1| − |o| = −1 is
    exact in float16) or in float64, so a step of ε/64 (at least float32's 2^-10) keeps them whole and moves δ(ε) by
    at most the mass within ε/128 of ε times e^ε − e^{ε(1 − 1/128)}.  float64 and float32 are unchanged (their
    resolution is already at most 2^-10)."""
    eps = abs(float(epsilon))
    cap = max(COARSEST_RESOLUTION, eps / SEPARATION) if math.isfinite(eps) else COARSEST_RESOLUTION
    return min(float(resolution), cap)


#: The grid through ±ε cuts ε into a multiple of the first of these that is at most ε/R: :func:`grid_through`.
GRID_DIVISORS = (840, 420, 120, 60, 24, 12, 6, 2, 1)


def grid_through(resolution: float, epsilon: float) -> float:
    """The step of a grid through 0 and ±``epsilon``, between R/2 and R = ``resolution``, for releases coarser than
    float64 (R > 2^-32; float64's grid is kept as it is, so float64 results do not change).

    An atom of the loss at a point of the grid stays whole however its last bits fall; one at a midpoint splits.
    With d the first of :data:`GRID_DIVISORS` with d ≤ ε/R and m = d·⌈ε/(dR)⌉ (so ε/R ≤ m < 2ε/R), the step ε/m
    puts ±ε on the grid, and every fraction pε/q with q dividing d on a grid point, never a midpoint (a midpoint is
    (2j + 1)ε/(2m), and 2m·p/q is even): the atom at ±ε/2 of a Laplace mechanism calibrated with a margin of 2
    whenever ε ≥ 2R, the fractions with q = 3, 4, 5, 6, 7, 8, 10, 12, … for ε ≥ 840R (0.82 for float32).  ε < R
    keeps R.
    """
    eps = abs(float(epsilon))
    if resolution <= LOSS_RESOLUTION or not math.isfinite(eps) or eps < resolution:
        return resolution
    divisor = next(d for d in GRID_DIVISORS if d <= eps / resolution)
    return eps / (divisor * math.ceil(eps / (divisor * resolution)))


def at_loss_resolution(
    losses: np.ndarray, resolution: float = LOSS_RESOLUTION, out: np.ndarray | None = None
) -> np.ndarray:
    """Losses rounded to the nearest multiple of ``resolution`` (:func:`loss_resolution` of the releases' type;
    |L| ≥ 2^20 and ±∞ unchanged); into ``out`` (a float64 array of their shape, not ``losses`` itself) where given.

    Why: a loss with an atom (the Laplace mechanism's L = ε on a half-line) is computed with a few ulp of
    rounding noise, and that noise differs between the worlds (o = 0 + noise and o = 1 + noise lie on different
    floating-point grids).  Compared exactly with ε or with a bin edge, the atom would then split between the two
    sides differently in D and in D': a correct (ε, 0)-DP pair would show δ ≈ 0.03.  Rounded, the atom stays
    whole; a whole atom at L = ε contributes P(atom) − e^ε Q(atom) = 0 to δ(ε), wherever it lies.  Moving L by at
    most R/2 (2^-33 for float64) changes δ(ε) by at most (e^{R/2} − 1)·e^ε·Q(|L − ε| ≤ R/2) and each
    likelihood-ratio identity by a factor e^{±R/2}: far below any sampled interval.
    """
    losses = np.asarray(losses, dtype=float)
    if losses.ndim and scales_exactly(resolution):
        with np.errstate(over="ignore"):  # detected below, and the general form then says it as before
            rounded = np.multiply(losses, 1.0 / resolution, out=out)
        np.rint(rounded, out=rounded)
        rounded *= resolution
        # a finite sum: no ±∞ (from an infinite L, or a finite |L| ≥ 2^20 whose scaling overflowed) and no NaN; else
        # the general form (a sum that overflows on finite terms takes it too: the same numbers, more slowly)
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(np.sum(rounded))
        if finite:
            return rounded
    with np.errstate(invalid="ignore"):
        general = np.where(np.abs(losses) < 2.0**20, np.rint(losses / resolution) * resolution, losses)
    if out is None:
        return general
    out[...] = general
    return out


def scales_exactly(resolution: float) -> bool:
    """Whether :func:`at_loss_resolution` may skip its ``|L| < 2^20`` test, bit for bit: for R a power of two
    no coarser than 2^-32, L/R = L·(1/R) exactly, and for |L| ≥ 2^20 the scaled |L/R| ≥ 2^52 is already a whole
    number, so rint(L/R)·R gives L back (±∞ and NaN pass through alike); only a finite L whose scaling overflows
    (|L| ≳ 2^992) differs, and the caller detects it.  Three passes over a block instead of six."""
    mantissa, _ = math.frexp(resolution)
    return mantissa == 0.5 and 0.0 < resolution <= LOSS_RESOLUTION


def neighbour_rows(data, target, relation: str = "add") -> tuple[np.ndarray, np.ndarray]:
    """(D, D±z) as float row arrays: ``relation="add"`` appends ``target``; ``"remove"`` deletes its first copy (it
    must be a row of D).  One-line InputErrors otherwise."""
    data = np.atleast_2d(np.asarray(data, dtype=float))
    target = np.asarray(target, dtype=float).ravel()
    return data, neighbour_of(data, data, target, relation, target)


def neighbour_of(rows: np.ndarray, data: np.ndarray, target: np.ndarray, relation: str, row) -> np.ndarray:
    """D±z of a row-by-row transform of the data (the rows a query sees, clipped): ``rows`` (the transform of each
    row of ``data``) with ``row`` (that of ``target``) appended, or without the row of ``target``'s first copy in
    ``data`` -- as :func:`neighbour_rows` makes D±z of the rows themselves, so the transform is not run again on
    D±z (bit for bit the same rows: each is transformed on its own).  ``data`` and ``target`` as float arrays."""
    if relation == "add":
        return np.vstack([rows, row])
    if relation == "remove":
        return np.delete(rows, removed_index(data, target), axis=0)
    raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")


#: Rows :func:`removed_index` compares at a time (a block of 30 columns is 480 KB: its comparison stays in the cache).
SEARCH_ROWS = 2048


def removed_index(data: np.ndarray, target: np.ndarray) -> int:
    """The index of ``target``'s first copy in ``data``, the row ``relation="remove"`` deletes; a one-line InputError
    if it is not a row of the data set.  Compared a block of rows at a time up to the first copy: a comparison of the
    whole table stored a boolean of every cell (30 MB for 1e6 x 30 rows) and went on past the copy."""
    for start in range(0, len(data), SEARCH_ROWS):
        hits = np.flatnonzero(np.all(data[start : start + SEARCH_ROWS] == target, axis=1))
        if hits.size:
            return start + int(hits[0])
    raise InputError("relation='remove' needs a target that is a row of the dataset")


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
    example_pairs: Callable[[np.random.Generator], Sequence[NeighbourPair]]
