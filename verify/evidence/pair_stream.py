"""The main pass over a pair's draws, streamed: the blocks of ``sample`` and ``privacy_loss`` of both worlds in
lockstep, and the statistics the checks read of them, each fed block by block in memory of one block.

A :class:`StreamedStatistic` is one such accumulator of the losses of either world (the scale identity,
:mod:`pdp_audit.verify.estimators.consistency_scale`; the loss-scale band's sums,
:mod:`pdp_audit.verify.estimators.loss_scale_band`; the tails at ε, :mod:`pdp_audit.verify.estimators.tails`).  Beside
them :class:`PassState` feeds the consistency test the releases too
(:class:`pdp_audit.verify.estimators.consistency_output.StreamedEventConsistency`), and each direction's bounded mean
E_P[(1 − e^{ε − L})₊] the losses signed for that direction (:class:`pdp_audit.verify.evidence.pair_claims.
StreamedHockeyMean`: δ_{D'‖D}(ε) reads −L under D').  Every block is seeded by its identity
(:mod:`pdp_audit.verify.estimators.engine`), so the statistics are the same on any number of worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from pdp_audit.mechanisms.base import (
    LOSS_RESOLUTION,
    NeighbourPair,
    at_loss_resolution,
    check_world,
    checked_losses,
    checked_releases,
    grid_through,
    loss_resolution,
    release_epsilon,
    separating_resolution,
)
from pdp_audit.verify.core.dask_cluster import block_executor
from pdp_audit.verify.estimators.consistency_output import EventConsistency, StreamedEventConsistency
from pdp_audit.verify.estimators.consistency_scale import ScaleIdentity, StreamedScaleIdentity
from pdp_audit.verify.estimators.engine import (
    Windowed,
    iter_blocks,
    pair_loss_resolution,
)
from pdp_audit.verify.estimators.loss_scale_band import ScaleBand, StreamedScaleBand
from pdp_audit.verify.estimators.tails import StreamedTails, TailEstimate
from pdp_audit.verify.evidence.pair_claims import (
    StreamedHockeyMean,
)
from pdp_audit.verify.evidence.pair_validation import VIEW_SAMPLES
from pdp_audit.verify.inputs.validation import check_picklable

#: What a streamed statistic reads out.
R_co = TypeVar("R_co", covariant=True)


class StreamedStatistic(Protocol[R_co]):
    """A statistic of the privacy losses of a pass, fed the losses of one world a block at a time (memory of one
    block) and read at any point: what :class:`PassState` adds every block of both worlds to."""

    def add(self, world: str, losses: np.ndarray) -> None:
        """The losses of one block drawn on ``world`` ("D" or "D'")."""

    def result(self) -> R_co:
        """The statistic of the blocks added so far."""


@dataclass(frozen=True)
class StreamedLosses:
    """What the checks of one assertion need from ``trials`` draws of the loss per world, gathered block by
    block: the consistency test, the tails at ε both ways, the first
    :data:`~pdp_audit.verify.evidence.pair_validation.VIEW_SAMPLES` losses per world and the resolution the losses
    were rounded at."""

    consistency: EventConsistency | None  # None: a sequential pass stopped before the test's pilot completed
    tails: dict[str, TailEstimate]
    heads: dict[str, np.ndarray]
    means: dict[str, StreamedHockeyMean]  # by direction: δ(ε) as one bounded mean, and the atom at +∞ (pair_claims)
    resolution: float = LOSS_RESOLUTION
    scale: ScaleIdentity | None = None
    # the loss-scale band's sums (pdp_audit.verify.estimators.loss_scale_band)
    band: StreamedStatistic[ScaleBand] | None = None
    float_structure: bool = False  # the consistency test read the releases' bits (the program as implemented)


class ReleasesAndLosses:
    """Block work: the releases of :class:`pdp_audit.verify.estimators.engine.PrivacyLossSampler` (same draws, same
    checks,
    same rounding of the losses) together with their losses."""

    def __init__(self, pair: NeighbourPair, world: str, resolution: float | None = None):
        self.pair = pair
        self.world = check_world(world)
        self.resolution = resolution

    def __call__(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        outputs = checked_releases(self.pair, self.world, size, self.pair.sample(self.world, size, rng))
        losses = checked_losses(self.world, size, self.pair.privacy_loss(outputs))
        resolution = self.resolution
        if resolution is None:
            resolution = loss_resolution(release_epsilon(outputs, losses))
        return outputs, at_loss_resolution(losses, resolution)


def stream_losses(
    pair: NeighbourPair,
    epsilon: float,
    trials: int,
    seed: int,
    progress: bool | None = False,
    workers: int = 1,
    float_structure: bool = False,
) -> StreamedLosses:
    """One pass over the blocks of both worlds (stream ``plugin/<world>``), interleaved.  Memory is bounded
    whatever ``trials``: a few blocks, :data:`~pdp_audit.verify.evidence.pair_validation.VIEW_SAMPLES` losses, and
    the consistency test's pilot (at most :data:`pdp_audit.verify.estimators.consistency_events.RELEASE_PILOT_MAX`
    releases of at most :data:`pdp_audit.verify.estimators.consistency_events.COORDINATES_KEPT` coordinates per
    world, and the pilot's losses); the test's events are tallied on every draw past the pilot.  Losses and ε are
    compared at the resolution of the pair's floating-point type
    (:func:`pdp_audit.verify.estimators.engine.pair_loss_resolution`), on a grid through ±ε
    where that type is coarser than float64 (:func:`pdp_audit.mechanisms.base.grid_through`).

    ``workers`` > 1: the blocks are drawn by that many processes (the pair must pickle), a few blocks ahead of the
    pass (:class:`pdp_audit.verify.estimators.engine.Windowed`); each block is seeded by its identity, so the numbers
    are the same on any number of workers.  The pass of ``sample`` and ``privacy_loss`` is the audit's cost; the
    view's checks and importance sampling, where a pair has a view, draw in this process.  ``float_structure``: the
    consistency test reads the releases' bits too (:class:`pdp_audit.verify.evidence.pair_checks.MainPass` ``law``)."""
    if workers > 1:
        check_pair_picklable(pair)
    with block_executor(workers, shipped={"the pair": pair}) as executor:
        pool = None if executor is None else Windowed(executor, 2 * workers)
        return _stream_losses(pair, epsilon, trials, seed, (progress, pool, float_structure))


def check_pair_picklable(pair: NeighbourPair) -> None:
    """A pair of a class defined in a function cannot be sent to worker processes (one line)."""
    check_picklable("pair", "define its class at module level", pair)


def _stream_losses(pair: NeighbourPair, epsilon: float, trials: int, seed: int, running: tuple) -> StreamedLosses:
    progress, pool, float_structure = running
    state = PassState(pair, epsilon, trials, float_structure)
    shown = {"D": progress, "D'": False}  # one bar, D's: the worlds' blocks are drawn in lockstep
    blocks = {
        w: iter_blocks(ReleasesAndLosses(pair, w, state.resolution), trials, seed, f"plugin/{w}", pool, shown[w])
        for w in WORLDS
    }
    for block_d, block_dp in zip(blocks["D"], blocks["D'"]):
        state.add(block_d, block_dp)
    return state.result()


#: The worlds of a pass, in the order their blocks are added.
WORLDS = ("D", "D'")


class PassState:
    """What the checks need of the draws of a pass so far (:class:`StreamedLosses`), fed the blocks of both worlds
    in lockstep; ``trials``: the draws per world the consistency test's pilot is sized from (the pass's, for the
    fixed pass)."""

    def __init__(self, pair: NeighbourPair, epsilon: float, trials: int, float_structure: bool = False):
        self.resolution = grid_through(
            separating_resolution(pair_loss_resolution(pair), float(epsilon)), float(epsilon)
        )
        self.consistency = StreamedEventConsistency(trials, trials, float(epsilon), float_structure)
        self.float_structure = float_structure
        # the statistics of either world's losses (StreamedStatistic); the consistency test reads the releases too,
        # each direction's mean its own sign of the losses
        self.scale: StreamedStatistic[ScaleIdentity] = StreamedScaleIdentity()
        self.band: StreamedStatistic[ScaleBand] = StreamedScaleBand(epsilon, self.resolution)
        self.tails: StreamedStatistic[dict[str, TailEstimate]] = StreamedTails(
            np.array([float(epsilon)]), 0.5, self.resolution
        )
        self.means = {"D||D'": StreamedHockeyMean(epsilon), "D'||D": StreamedHockeyMean(epsilon)}
        self.heads: dict[str, list[np.ndarray]] = {"D": [], "D'": []}

    def add(self, block_d: tuple, block_dp: tuple) -> None:
        """One block of each world: (releases, losses)."""
        (releases_d, losses_d), (releases_dp, losses_dp) = block_d, block_dp
        for world, losses, releases in (("D", losses_d, releases_d), ("D'", losses_dp, releases_dp)):
            self.consistency.add(world, losses, releases)
            self.scale.add(world, losses)
            self.band.add(world, losses)
            self.tails.add(world, losses)
            if world == "D":
                self.means["D||D'"].add(losses)
            else:
                self.means["D'||D"].add(-losses)
            kept = sum(h.size for h in self.heads[world])
            if kept < VIEW_SAMPLES:
                self.heads[world].append(losses[: VIEW_SAMPLES - kept])

    @property
    def piloted(self) -> bool:
        """Whether the consistency test's pilot is complete (its events fixed): before, it has no result."""
        return self.consistency.events is not None

    def result(self, screen: float | None = None) -> StreamedLosses:
        """The draws so far (the accumulators are shared, not copied: read the result before adding more);
        ``screen``: the consistency test's p-value read only against levels up to it
        (:meth:`StreamedEventConsistency.result`)."""
        return StreamedLosses(
            self.consistency.result(screen) if self.piloted else None,
            self.tails.result(),
            {w: np.concatenate(h) for w, h in self.heads.items()},
            self.means,
            self.resolution,
            self.scale.result(),
            self.band,
            self.float_structure,
        )
