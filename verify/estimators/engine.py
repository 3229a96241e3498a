"""Chunked, seeded execution: results depend on the seed, the parameters and the code only.

Work is cut into fixed-size *blocks*.  Block ``b`` of stream ``s`` draws its randomness from
``SeedSequence(seed, spawn_key=(stream_key(s), b))``, so a block's numbers do not depend on which
chunk, worker or order it ran in.  Changing the number of workers never changes a result; changing
``BLOCK_SIZE`` does (it is part of the code version).
"""

from __future__ import annotations

import functools
import mmap
import os
import threading
import zlib
from collections import deque
from concurrent.futures import Executor, wait
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

import numpy as np

from pdp_audit.mechanisms.base import (
    WORLDS,
    NeighbourPair,
    World,
    at_loss_resolution,
    check_world,
    checked_losses,
    checked_releases,
    loss_resolution,
    release_epsilon,
)
from pdp_audit.verify.estimators.block_seeds import State, block_states, generators
from pdp_audit.verify.estimators.progress import with_progress
from pdp_audit.verify.inputs.blas_threads import native_pools

BLOCK_SIZE = 1 << 16


#: Whether BLAS runs on one thread in this process already: for good (a worker process that limited it at its start:
#: :func:`blas_limited_for_good`), or, per thread, inside an enclosing :func:`one_blas_thread`.
_BLAS_FOR_GOOD = False
_BLAS_HELD = threading.local()


def blas_limited_for_good() -> None:
    """Say that this process limited BLAS to one thread for its life (a pool worker's initializer, after it did)."""
    global _BLAS_FOR_GOOD
    _BLAS_FOR_GOOD = True


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS to one thread inside the block (a no-op without threadpoolctl, and where BLAS is limited already:
    in a worker that limited it at its start, or inside another such block of this thread -- threadpoolctl's scan of
    the loaded libraries took half a millisecond a call, and the GOE audit's blocks made one each).

    Small eigenproblems are many times slower with a multithreaded BLAS (measured on 2 cores: batched
    ``eigvalsh`` 20x slower at d = 100, the Tracy–Widom quantile 3x); one thread per process is also what
    the worker pool wants.
    """
    if _BLAS_FOR_GOOD or getattr(_BLAS_HELD, "held", False):
        yield
        return
    pools = native_pools()
    if pools is None:  # pragma: no cover - threadpoolctl is a scikit-learn dependency, normally present
        yield
        return
    with pools.limit(limits=1, user_api="blas"):
        _BLAS_HELD.held = True
        try:
            yield
        finally:
            _BLAS_HELD.held = False


def stream_key(name: str) -> int:
    """A stable 32-bit integer for a stream name (crc32, identical on every platform and run)."""
    return zlib.crc32(name.encode("utf-8"))


def block_rng(seed: int, stream: str, block: int) -> np.random.Generator:
    """The generator of one block: keyed by identity, not by position in a run."""
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(stream_key(stream), int(block))))


def pass_generators(
    work: PrivacyLossSampler, seed: int, stream: str, blocks: range, states: list[State] | None
) -> Iterator[np.random.Generator]:
    """The generators of ``blocks`` of a pass: one generator set to each block's state in turn (``states``, of the
    pass's blocks from ``blocks.start`` on: :mod:`pdp_audit.verify.estimators.block_seeds`), where ``work``'s pair
    draws through ``rounded_losses_into`` (a pair of ours, which keeps no generator past its block); else a
    :func:`block_rng` a block.  The same numbers either way."""
    if states is not None and work.draws_rounded:
        return generators(states)
    return (block_rng(seed, stream, block) for block in blocks)


def pass_states(work: PrivacyLossSampler, seed: int, stream: str, count: int) -> list[State] | None:
    """The states of the ``count`` blocks of a pass for :func:`pass_generators` (None where it makes a generator a
    block)."""
    return block_states(int(seed), stream_key(stream), count) if work.draws_rounded else None


def block_sizes(n: int, block_size: int = BLOCK_SIZE) -> list[int]:
    """``n`` split into blocks of ``block_size`` (the last one shorter): the units that are seeded by identity."""
    if n < 0:
        raise ValueError(f"number of samples must be >= 0, got {n}")
    full, rest = divmod(int(n), block_size)
    return [block_size] * full + ([rest] if rest else [])


BlockWork = Callable[[int, np.random.Generator], np.ndarray]
#: What a block's work returns: an array of losses, or more (releases with their losses)
Block = TypeVar("Block")


def _run_block(args: tuple[Callable[[int, np.random.Generator], Block], int, str, int, int]) -> Block:
    work, seed, stream, block, size = args
    return work(size, block_rng(seed, stream, block))


def run_blocks(
    work: BlockWork,
    n: int,
    seed: int,
    stream: str,
    executor: Executor | None = None,
    progress: bool | None = None,
    block_size: int = BLOCK_SIZE,
) -> np.ndarray:
    """Concatenate ``work(size, rng)`` over the blocks of ``n`` draws of ``stream``.

    ``work`` returns an array whose first axis has length ``size``.  With an ``executor`` the blocks
    run in parallel (``work`` must then be picklable); the result is identical either way.  ``progress``: a bar of
    the blocks on stderr (None: where the audit running this pass asked for one,
    :func:`pdp_audit.verify.estimators.progress.asking`).
    """
    sizes = block_sizes(n, block_size)
    if sizes and type(work) is PrivacyLossSampler:  # a subclass may return more than losses
        if executor is None:
            return _written(work, seed, stream, progress, sizes)
        slots = _SLOTS
        if slots is not None and slots.pool is executor and max(sizes) <= slots.block:
            return _written_through(slots, work, seed, stream, progress, sizes)
    return gathered(iter_blocks(work, n, seed, stream, executor, progress, block_size), sizes)


class SharedSlots:
    """Slots of memory shared with the worker processes of a local pool
    (:func:`pdp_audit.verify.core.processes.executor_for`), each room for a *job* of ``blocks`` consecutive blocks: an
    anonymous shared mapping made before the pool forks its workers, which inherit it -- nothing named, so nothing to
    remove after a signal (the kernel frees it with the last process that maps it).  A worker rounds a job's losses
    into a slot; this process copies them into the result, and a slot is written again only after that
    (:func:`_written_through`: at most ``count`` jobs in flight).  ``token`` tells a worker forked with these slots
    from one that was not (a pool of spawned workers)."""

    def __init__(self, count: int, blocks: int = 1, block: int = BLOCK_SIZE):
        self.count, self.blocks, self.block = count, blocks, block
        self.token = os.urandom(8).hex()
        self.memory = mmap.mmap(-1, count * blocks * block * 8)  # anonymous, MAP_SHARED: shared with the children
        self.pool: Executor | None = None

    def view(self, slot: int, size: int) -> np.ndarray:
        """The first ``size`` float64s of slot ``slot``."""
        return np.frombuffer(self.memory, dtype=np.float64, count=size, offset=slot * self.blocks * self.block * 8)


#: The slots of the local pool this process runs (:func:`shared_slots`); in its workers, the ones they inherited.
_SLOTS: SharedSlots | None = None

#: Blocks of the slots of all a pool's workers together, at most (2^7 blocks of 2^16 float64s: 64 MiB).
SLOT_BLOCKS = 1 << 7


@contextmanager
def shared_slots(workers: int) -> Iterator[SharedSlots | None]:
    """Slots for a pool of ``workers`` processes, to be forked inside the block (set its ``pool``); None where a pool
    has them already or processes are not forked here.  Two slots a worker (one job running, one waiting), sharing
    :data:`SLOT_BLOCKS` blocks among them (32 blocks a slot for 2 workers): a slot's pages are faulted in on its
    first job and reused by every later one."""
    global _SLOTS
    if _SLOTS is not None or not hasattr(os, "fork"):
        yield None
        return
    count = 2 * workers
    slots = _SLOTS = SharedSlots(count, max(1, SLOT_BLOCKS // count))
    try:
        yield slots
    finally:
        _SLOTS = None
        try:
            slots.memory.close()
        except BufferError:  # a view of a slot is still held somewhere: the mapping goes with it
            pass


def jobs_of(blocks: int, slots: SharedSlots) -> list[range]:
    """The blocks of a pass cut into jobs of consecutive blocks, each at most a slot's ``blocks`` and at most a
    ``1 / (2 * slots.count)`` share of the blocks not yet given out (at least one): large jobs first, shrinking to
    one block at the pass's end, so that no worker waits long for another's last job (guided self-scheduling).
    A job sent to a worker costs this process and the worker a few hundred microseconds on a loaded 2-core machine
    (pickling, pipes, futures, the wake-ups of both): a pass of 4e7 losses is 49 jobs here, where jobs of at most
    8 blocks were 77 and took a quarter more of this process's CPU (``benchmarks/bench_gaussian.py``)."""
    jobs, first = [], 0
    while first < blocks:
        size = max(1, min(slots.blocks, (blocks - first) // (2 * slots.count)))
        jobs.append(range(first, first + size))
        first += size
    return jobs


def _written_through(
    slots: SharedSlots, work: PrivacyLossSampler, seed: int, stream: str, progress: bool | None, sizes: list[int]
) -> np.ndarray:
    """:func:`run_blocks` of losses on the pool of ``slots``: each worker rounds a job's blocks into a slot of the
    shared memory and this process copies the slot into the result.  The blocks were pickled back through a pipe:
    on a loaded 2-core machine that took twice as long as drawing them, and two workers ran slower than one.  Each
    block is drawn from its own generator (:func:`block_rng`) into its own place: how blocks are grouped into jobs
    changes no number."""
    executor = slots.pool
    assert executor is not None
    out = np.empty(sum(sizes))
    starts = np.cumsum([0, *sizes])
    jobs = jobs_of(len(sizes), slots)
    states = pass_states(work, seed, stream, len(sizes))
    pending: deque = deque()

    def submit(job: int) -> None:
        slot = job % slots.count  # free: the job that used it last is copied (at most ``count`` in flight)
        blocks = jobs[job]
        job_states = None if states is None else states[blocks.start : blocks.stop]
        args = (work, seed, stream, blocks.start, sizes[blocks.start : blocks.stop], slots.token, slot, job_states)
        pending.append((executor.submit(_slot_job, args), blocks, slot))

    def copy(future, blocks: range, slot: int) -> range:
        returned = future.result()
        start, size = starts[blocks.start], starts[blocks.stop] - starts[blocks.start]
        out[start : start + size] = slots.view(slot, size) if returned is None else returned
        return blocks

    def done() -> Iterator[None]:  # one item a block, as the bar counts them
        for job in range(len(jobs)):
            submit(job)
            if len(pending) >= slots.count:
                yield from (None for _ in copy(*pending.popleft()))
        while pending:
            yield from (None for _ in copy(*pending.popleft()))

    try:
        for _ in with_progress(done(), len(sizes), stream, "block", progress, sizes):
            pass
    finally:  # a pass that failed leaves no job running that would write into a slot the next pass reads
        for future, _, _ in pending:
            future.cancel()
        wait([future for future, _, _ in pending])
    return out


#: A worker's scratch array for its blocks' losses (:func:`_slot_job`), reused block after block.
_SCRATCH: list[np.ndarray] = []


def _slot_job(
    args: tuple[PrivacyLossSampler, int, str, int, list[int], str, int, list[State] | None],
) -> np.ndarray | None:
    """In a worker: the losses of the blocks ``first``, ``first + 1``, … (of ``sizes``; their generators' ``states``
    where given: :func:`pass_generators`) rounded into its slot one after the other (None), or returned where the
    worker was not forked with the slots."""
    work, seed, stream, first, sizes, token, slot, states = args
    rngs = pass_generators(work, seed, stream, range(first, first + len(sizes)), states)
    slots = _SLOTS
    if slots is None or slots.token != token:
        return np.concatenate([work(size, rng) for size, rng in zip(sizes, rngs)])
    if not _SCRATCH or len(_SCRATCH[0]) < max(sizes):
        _SCRATCH[:] = [np.empty(max(*sizes, BLOCK_SIZE))]
    into, at = slots.view(slot, sum(sizes)), 0
    for size, rng in zip(sizes, rngs):
        work.into(size, rng, into[at : at + size], _SCRATCH[0][:size])
        at += size
    return None


def _written(work: PrivacyLossSampler, seed: int, stream: str, progress: bool | None, sizes: list[int]) -> np.ndarray:
    """:func:`run_blocks` of losses in this process, each block rounded straight into its slice of the result: no
    block-sized array for the rounded losses and no copy of it into the result, and the losses of a pair of ours
    computed into one scratch array reused by every block (a fresh block-sized array faulted its pages in anew:
    on a shared 2-core machine that cost as much as the draws)."""
    out, scratch = np.empty(sum(sizes)), np.empty(max(sizes))
    starts = np.cumsum([0, *sizes[:-1]])
    states = pass_states(work, seed, stream, len(sizes))
    rngs = pass_generators(work, seed, stream, range(len(sizes)), states)

    def blocks() -> Iterator[None]:
        for start, size, rng in zip(starts, sizes, rngs):
            work.into(size, rng, out[start : start + size], scratch[:size])
            yield None

    for _ in with_progress(blocks(), len(sizes), stream, "block", progress, sizes):
        pass
    return out


def gathered(blocks: Iterator, sizes: list[int]) -> np.ndarray:
    """``np.concatenate`` of ``blocks`` (of lengths ``sizes``), copied into one array as they come: each block's
    memory is free for the next, where a list of them faulted in fresh pages for every block (a quarter of the
    time of a cheap sampler's draws on a shared 2-core machine).  Blocks of another type or shape than the first,
    or of another length than planned, are concatenated as before (the same array)."""
    if not sizes:
        return np.empty(0)
    out, at = None, 0
    for size, block in zip(sizes, blocks):
        block = np.asarray(block)
        if out is None and block.ndim:
            out = np.empty((sum(sizes), *block.shape[1:]), block.dtype)
        if out is None or block.dtype != out.dtype or block.shape != (size, *out.shape[1:]):
            done = [] if out is None else [out[:at]]
            return np.concatenate([*done, block, *blocks])
        out[at : at + size] = block
        at += size
    if out is None:  # no block came: what concatenating none says
        return np.concatenate([])
    return out


def iter_blocks(
    work: Callable[[int, np.random.Generator], Block],
    n: int,
    seed: int,
    stream: str,
    executor: Executor | Windowed | None = None,
    progress: bool | None = None,
    block_size: int = BLOCK_SIZE,
) -> Iterator[Block]:
    """The blocks of :func:`run_blocks` one at a time, in order (lazily without an executor: memory of a
    block, whatever ``n``)."""
    sizes = block_sizes(n, block_size)
    jobs = [(work, seed, stream, b, size) for b, size in enumerate(sizes)]
    results = executor.map(_run_block, jobs) if executor is not None else map(_run_block, jobs)
    return with_progress(results, len(jobs), stream, "block", progress, sizes)


class Windowed:
    """``executor``'s ``map`` with at most ``window`` blocks submitted ahead of the one consumed.  ``Executor.map``
    submits every block at once: two worlds' passes zipped on one pool would hold all of D's blocks in memory before
    the first of D' ran; here the memory is ``window`` blocks a pass, whatever ``n``.  Results come in order."""

    def __init__(self, executor: Executor, window: int):
        self.executor, self.window = executor, max(1, int(window))

    def map(self, fn: Callable, jobs) -> Iterator:
        pending: deque = deque()
        for job in jobs:
            pending.append(self.executor.submit(fn, job))
            if len(pending) >= self.window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def writes_losses_into(pair) -> bool:
    """Whether ``pair.privacy_loss`` takes ``out=``: declared (``writes_losses_into = True``) by the class that
    defines the method the pair runs.  A subclass that overrides ``privacy_loss`` -- a user's, deriving from one of
    ours -- inherits the flag but not the keyword: its method is called plainly."""
    if "privacy_loss" in getattr(pair, "__dict__", {}):
        return False
    for klass in type(pair).__mro__:
        if "privacy_loss" in vars(klass):
            return vars(klass).get("writes_losses_into", False) is True
    return False


#: What a pair of ours defines to draw its releases and round their losses in one go (the same numbers).
_DRAWN_AND_ROUNDED = ("sample", "privacy_loss", "rounded_losses_into")


def draws_rounded_losses(pair) -> bool:
    """Whether ``pair.rounded_losses_into`` stands for its ``sample`` and ``privacy_loss`` followed by the rounding
    (:meth:`pdp_audit.mechanisms.gaussian.GaussianPair.rounded_losses_into`): where one class defines all three for
    the pair.  A subclass that overrides one of the first two -- a user's, deriving from one of ours -- is sampled,
    and its losses computed, by its own methods."""
    if any(name in getattr(pair, "__dict__", {}) for name in _DRAWN_AND_ROUNDED):
        return False
    owners = {next((k for k in type(pair).__mro__ if name in vars(k)), None) for name in _DRAWN_AND_ROUNDED}
    return len(owners) == 1 and None not in owners


class PrivacyLossSampler:
    """Picklable block work: release on ``world`` and return the exact privacy loss of each release (shapes and
    values checked: :class:`pdp_audit.mechanisms.base.MalformedPair` for a broken pair), rounded at ``resolution``
    (by default that of the floating-point type of each block's releases and losses:
    :func:`pdp_audit.mechanisms.base.loss_resolution`; 2^-32 for float64)."""

    def __init__(self, pair: NeighbourPair, world: World, resolution: float | None = None):
        self.pair = pair
        self.world = check_world(world)
        self.resolution = resolution

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.into(size, rng)

    @functools.cached_property
    def draws_rounded(self) -> bool:
        """:func:`draws_rounded_losses` of the pair, asked once (its walk of the pair's classes took 2-7 us a block)."""
        return draws_rounded_losses(self.pair)

    def into(
        self, size: int, rng: np.random.Generator, out: np.ndarray | None = None, scratch: np.ndarray | None = None
    ) -> np.ndarray:
        """The block's losses, rounded into ``out`` (``size`` float64s: the run's own array) where given; a pair of
        ours (``writes_losses_into``) computes them into ``scratch`` (as many float64s, reused block after block:
        no fresh pages for them), and one that draws and rounds them in one go (:func:`draws_rounded_losses`) does
        so into ``out``: the same numbers."""
        if out is not None and scratch is not None and self.draws_rounded:
            grid = loss_resolution() if self.resolution is None else self.resolution  # float64 releases' and losses'
            outputs = self.pair.rounded_losses_into(self.world, size, rng, out, scratch, grid)  # type: ignore[attr-defined]
            if outputs is None:
                return out
        else:
            outputs = self.pair.sample(self.world, size, rng)
        # Checked on every block (cheap next to sampling): a malformed pair is an error, never a number.
        outputs = checked_releases(self.pair, self.world, size, outputs)
        if scratch is not None and writes_losses_into(self.pair):
            losses = self.pair.privacy_loss(outputs, out=scratch)  # type: ignore[call-arg]
        else:
            losses = self.pair.privacy_loss(outputs)
        losses = checked_losses(self.world, size, losses)
        resolution = self.resolution
        if resolution is None:
            resolution = loss_resolution(release_epsilon(outputs, losses))
        return at_loss_resolution(losses, resolution, out)


#: Releases per world that :func:`pair_loss_resolution` looks at.
RESOLUTION_PROBE_SIZE = 8


def pair_loss_resolution(pair: NeighbourPair) -> float:
    """The resolution of ``pair``'s losses (:func:`pdp_audit.mechanisms.base.loss_resolution`), from the
    floating-point types of a few releases of each world (a fixed generator) and of their losses: fixed before the
    main draws, so that their losses and the thresholds they are compared with are rounded alike."""
    eps = release_epsilon()
    for world in WORLDS:
        size = RESOLUTION_PROBE_SIZE
        outputs = checked_releases(pair, world, size, pair.sample(world, size, np.random.default_rng(0)))
        eps = max(eps, release_epsilon(outputs, pair.privacy_loss(outputs)))
    return loss_resolution(eps)


def sample_privacy_loss(
    pair: NeighbourPair,
    world: World,
    n: int,
    seed: int,
    stream: str = "plv",
    executor: Executor | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """``n`` exact privacy-loss samples ``log p_D(o) - log p_D'(o)`` with ``o`` released on ``world``."""
    return run_blocks(PrivacyLossSampler(pair, world), n, seed, f"{stream}/{world}", executor, progress)
