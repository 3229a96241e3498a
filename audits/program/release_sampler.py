"""A program's final release as a black-box sampler: the form in which the black box confirms a finding on a pair
of datasets (:func:`release_samplers`), every release a fixed-width row of numbers.

**The row** (:func:`encoded`), a function of the release's exact encoding
(:func:`~pdp_audit.verify.inputs.release_codec.encode`: its ``structure`` and its float64 view ``numbers``):

0. a hash of ``structure`` -- the types, dtypes, shapes, keys in order, pandas labels, attrs and flags, and the
   residues float64 cannot hold (integers beyond 2^53, extended-precision values, a float16/32 NaN's bits);
1. the count of ``numbers``;
2. the count of non-finite numbers, plus, where the value columns do not hold a number as it is, a hash in [0, 1) of
   the positions and bits of every such number: a NaN (its payload), an infinity, a zero of negative sign (the value
   columns hold it, but every score save the outcomes' compares it as 0), a magnitude beyond :data:`LARGEST` (the
   value columns clip it), a number beyond the row's width (cut);
3. … the numbers in order, a non-finite one as 0, clipped to ±:data:`LARGEST`, padded with zeros or cut to the width.

So nothing of the release is lost but for a collision of the 32-bit hashes: every part of the encoding the value
columns drop is a function of column 0 or 2, an event the black box's statistics can choose.

**Why a test on these columns is valid.**  Each column is a fixed function of the release -- CRC-32 of bytes
(``repr`` of a tuple of plain values, the numbers' little-endian bits) is the same in every process, and the rest are
counts and copies -- fixed before any release is drawn.  An event of the row is then an event of the release,
chosen by the black box on its training and selection draws and counted on fresh ones
(:mod:`pdp_audit.audits.blackbox.events`): its level holds whatever the columns are.  A collision only merges two
releases' parts into one event: a loss of power, never of level.  A release of more than :data:`MOST_COLUMNS`
numbers is read on the :data:`HEAD` columns and the numbers that differ on the pair (:func:`witness_columns`).
"""

from __future__ import annotations

import zlib
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.sources import sources_drawn
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.estimators.engine import one_blas_thread
from pdp_audit.verify.estimators.rng_discipline import SeededPerRelease
from pdp_audit.verify.inputs import release_codec


class ReleaseSampler:
    """The program's final release on one dataset as a black-box sampler ``(size, rng) -> (size, width)``: each
    release from its own generator seeded from ``rng``, encoded as the fixed-width row of the module notes
    (:func:`encoded`), of which only the :data:`HEAD` columns and those of the numbers ``columns`` names are kept
    where it names some (:func:`witness_columns`: a projection fixed before any release is drawn).

    A block's releases are drawn with BLAS on one thread (:func:`~pdp_audit.verify.estimators.engine
    .one_blas_thread`), as a worker of the black box's pool draws them (``processes._block_worker_init``).  Sound:
    the releases of both worlds are those of the program run where BLAS has one thread (a one-core machine,
    ``OPENBLAS_NUM_THREADS=1``), an environment the claim covers as much as any other, so a test at level α on them
    refutes the claim at level α; and the black box reads no release of the analysis's (its witness columns are
    positions).  Why: a program of many small BLAS calls is many times slower with BLAS's threads waiting on each
    other (diffprivlib's ``LogisticRegression`` on 20 records, L-BFGS-B's small factorisations: 237 ms a fit on 2
    busy cores against 20 ms on one thread, measured 2026-11-29 at load 9)."""

    def __init__(self, program: Callable, data: Any, width: int, columns: np.ndarray | None = None):
        self.program, self.data, self.width = program, data, width
        # the row's columns kept (None: all): the HEAD columns and those of the numbers ``columns`` names
        self.kept = None if columns is None else np.concatenate([np.arange(HEAD), HEAD + columns])

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        seeds = rng.integers(0, 2**63 - 1, size=size)
        kept = self.kept
        out = np.zeros((size, self.width if kept is None else kept.size))
        # sys.modules given back once for the block: between two runs only the encoding runs, which imports nothing
        # (BLAS limited before: its first limit may import threadpoolctl, which the block would give back)
        with one_blas_thread(), user_modules(), np.errstate(all="ignore"), sources_drawn() as drawing:
            for i, seed in enumerate(seeds):
                generator = np.random.default_rng(int(seed))
                try:
                    with drawing(generator):  # numpy's global state, Python's random …: the release's generator
                        release = trace.call_program(self.program, self.data, generator, modules=False)
                except trace.ProgramFault as fault:  # the black box's word for the user's fault: pair-protocol
                    raise MalformedPair(str(fault)) from None
                row = encoded(release, self.width)
                out[i] = row if kept is None else row[kept]
        return out


#: The columns before the numbers: the structure's hash, the count of numbers, the count and hash of those the value
#: columns do not hold (module notes).
HEAD = 3
#: The largest magnitude a value column holds (squares of the standardised values stay finite); a number beyond it
#: is clipped there, and its bits are in column 2.
LARGEST = 1e100


#: A negative zero's bits.
NEGATIVE_ZERO = np.uint64(1 << 63)


def encoded(release: Any, width: int) -> np.ndarray:
    """The release as the fixed-width row of the module notes (``width`` > :data:`HEAD`)."""
    encoding = release_codec.encode(release)
    structure, numbers = encoding.structure, encoding.numbers
    row = np.zeros(width)
    row[0] = _hashed(repr(structure).encode())
    row[1] = numbers.size
    values = row[HEAD : HEAD + numbers.size]
    values[:] = numbers[: values.size]
    if values.size < numbers.size or not _held(values):  # column 2 (a release of finite numbers has its zero)
        finite = np.isfinite(values)
        values[:] = np.clip(np.where(finite, values, 0.0), -LARGEST, LARGEST)
        row[2] = float(np.count_nonzero(~np.isfinite(numbers))) + _dropped(numbers, values)
    return row


def _held(values: np.ndarray) -> bool:
    """Whether the value columns hold ``values`` as they are: no NaN, no magnitude beyond :data:`LARGEST` (an
    infinity included), no negative zero."""
    return bool((np.abs(values) <= LARGEST).all()) and not (values.view(np.uint64) == NEGATIVE_ZERO).any()


def _dropped(numbers: np.ndarray, values: np.ndarray) -> float:
    """A hash in [0, 1) of the positions and bits of the ``numbers`` the value columns (``values``) do not hold as
    they are, or of their negative zeros (module notes, column 2)."""
    kept = numbers[: values.size]
    lost = release_codec.differ(values, kept) | (kept.view(np.uint64) == NEGATIVE_ZERO)
    where = np.concatenate([np.flatnonzero(lost), np.arange(values.size, numbers.size)])
    return _hashed(where.astype("<i8").tobytes() + numbers[where].astype("<f8").tobytes())


def _hashed(data: bytes) -> float:
    """CRC-32 of ``data`` scaled to [0, 1): exact in float64, the same in every process."""
    return zlib.crc32(data) / 2**32


def release_samplers(
    program: Callable, data: Any, neighbour: Any, seed: int, columns: np.ndarray | None = None
) -> SeededPerRelease:
    """The program's releases on D (``data``) and on D′ (``neighbour``) as a pair of :class:`ReleaseSampler`, of one
    width: that of the longest of 4 releases on each (from a generator of ``seed``); each release from its own
    generator (:class:`~pdp_audit.verify.estimators.rng_discipline.SeededPerRelease`); ``columns``: the numbers
    kept beside the :data:`HEAD` columns (:func:`witness_columns`; None: all)."""
    rng = np.random.default_rng(seed)
    sizes = []
    for d in (data, neighbour):
        for _ in range(4):
            try:
                with np.errstate(all="ignore"):
                    sizes.append(release_codec.encode(trace.call_program(program, d, rng)).numbers.size)
            except trace.ProgramFault:  # the black box's releases meet it again: the user's fault, pair-protocol
                continue
    width = max(sizes, default=0) + HEAD
    if columns is not None:
        columns = columns[HEAD + columns < width]
    return SeededPerRelease(
        ReleaseSampler(program, data, width, columns), ReleaseSampler(program, neighbour, width, columns)
    )


#: Numbers of a release the black box reads at most beside the :data:`HEAD` columns (:func:`witness_columns`): read
#: whole, a histogram of 10⁵ bins at the default 20,000 releases per world needs about 660 GB.
MOST_COLUMNS = 1024


def witness_columns(recorded: np.ndarray | None, replayed: np.ndarray | None) -> np.ndarray | None:
    """The numbers of a release of more than :data:`MOST_COLUMNS` numbers the black box reads on a pair (None: all of
    them): those whose bits differ between D's release (``recorded``) and D′'s (``replayed``: D′ replayed with D's
    draws, :mod:`.comparison`), the first :data:`MOST_COLUMNS` of them; where none differ or the two releases' sizes
    differ, the first :data:`MOST_COLUMNS` numbers.

    *Sound (a post-processing).*  The columns are fixed by the analysis, from its own recorded draws, before the black
    box draws any release, and its releases come from generators of their own: given the columns, each row the
    sampler returns is a fixed function f of the release (its :data:`HEAD` columns, read from the whole release, and
    the numbers named).  If the program is (ε, δ)-DP, so is f ∘ program (post-processing: Dwork & Roth 2014,
    Prop. 2.1), so a test that refutes (ε, δ) on f's rows at level α refutes it for the full release at level α.
    What the projection drops is power only: a difference that shows in other numbers may go unconfirmed, never
    wrongly confirmed."""
    if recorded is None or recorded.size <= MOST_COLUMNS:
        return None
    differing = np.zeros(0, dtype=np.int64)
    if replayed is not None and replayed.size == recorded.size:
        differing = np.flatnonzero(release_codec.differ(recorded, replayed))
    if not differing.size:
        differing = np.arange(recorded.size)
    return differing[:MOST_COLUMNS]
