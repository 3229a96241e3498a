"""Checks that a pair is what it says before its claims are trusted (a user's pair above all).

* ``loss-consistency`` -- the loss is the privacy loss of the sampler: the change-of-measure identities with
  bounded summands.  A built-in audit's exact pair is checked on bins of L
  (:mod:`pdp_audit.verify.estimators.consistency`,
  :func:`loss_consistency_check`); a user's pair on events of its releases, intersected with the sign of L
  (:mod:`pdp_audit.verify.estimators.consistency_output`: adaptive bins of L down to its extreme quantiles, at ±ε and
  on its
  atoms; bins of the release's coordinates; bins of a classifier's score learned on a pilot split).  A loss
  written for another σ, another neighbour or swapped worlds, clipped, blind to a rare branch or to truncation,
  or the loss of a post-processing of the release (a coordinate or a report ignored) fails here, whatever its
  tails claim.
* ``noise-view`` -- where a pair exposes a noise view that importance sampling relies on (Gaussian:
  :func:`pdp_audit.verify.estimators.rare.noise_view`; Laplace or two-sided geometric:
  :mod:`pdp_audit.verify.estimators.tilting`),
  releases through the view and through ``sample`` must have the same privacy-loss law: two-sample
  Kolmogorov–Smirnov on the losses of both, and Mood's test of equal scale (a view a few per cent narrower than the
  sampler moves δ's tail most and hides from KS); where the view adds its noise to a centre per world, also the
  view's exact loss against ``privacy_loss`` and a one-sample scale test of ``sample()``'s noise
  (:mod:`pdp_audit.verify.estimators.view_structure`).

Malformed releases or losses (shape, NaN, impossible infinities) never reach a check: sampling raises
:class:`pdp_audit.mechanisms.base.MalformedPair` (:class:`pdp_audit.verify.estimators.engine.PrivacyLossSampler`), and
the
assertion is the exact fail ``pair-protocol``; so is a pair that does not draw from the generator it is given, and
from it only (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`, before the main draws).  The two
checks
above are statistical: their p-values join the family of the claim they guard (Holm), so the family's false-alarm
rate holds.  :func:`validated_dp_checks` is what the pytest plugin and the mutant zoo run on a pair; a closed form
the user supplies is a claim (``closed-form``), never evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from pdp_audit.mechanisms.base import (
    LOSS_RESOLUTION,
    MalformedPair,
    at_loss_resolution,
    check_world,
    checked_losses,
    checked_releases,
    grid_through,
    loss_resolution,
    release_epsilon,
    separating_resolution,
)
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.core.config import LAW_OPTION
from pdp_audit.verify.estimators import rare, tilting, view_replay, view_structure
from pdp_audit.verify.estimators.consistency import LossConsistency, loss_consistency
from pdp_audit.verify.estimators.consistency_output import EventConsistency, StreamedEventConsistency
from pdp_audit.verify.estimators.consistency_scale import ScaleIdentity, StreamedScaleIdentity
from pdp_audit.verify.estimators.engine import (
    Windowed,
    iter_blocks,
    pair_loss_resolution,
    run_blocks,
)
from pdp_audit.verify.estimators.loss_scale_band import StreamedScaleBand
from pdp_audit.verify.estimators.progress import progress_bar
from pdp_audit.verify.estimators.rng_discipline import check_rng_discipline
from pdp_audit.verify.estimators.stats import pvalue_by_inversion
from pdp_audit.verify.estimators.tails import StreamedTails, TailEstimate
from pdp_audit.verify.evidence import builders, pair_figures
from pdp_audit.verify.evidence import pair_sequential as sequential
from pdp_audit.verify.evidence.pair_claims import (
    StreamedHockeyMean,
    atom_estimate,
    band_estimates,
    importance_estimate,
    pair_claim_check,
    proof_estimate,
    replayed_bound_estimate,
)

#: Releases per world drawn through the noise view (and compared with as many from ``sample``).
VIEW_SAMPLES = 50_000

LOSS_CONSISTENCY = CheckSpec(
    "loss-consistency",
    "The privacy loss is the sampler's",
    "privacy_loss(o) = log p_D(o) − log p_D'(o) for the releases sample() draws: the change of measure holds "
    "on every bin A of L",
    "P_D'(L ∈ A) = E_D[e^{−L}1{L ∈ A}] (A ⊂ (0, ∞)), P_D(L ∈ A) = E_D'[e^{L}1{L ∈ A}] (A ⊂ (−∞, 0])",
    "definition of the privacy loss (Radon–Nikodym derivative)",
)
#: ``loss-consistency`` of a user's pair: the identities on events of the release (the same id and role).
PAIR_LOSS_CONSISTENCY = CheckSpec(
    LOSS_CONSISTENCY.id,
    LOSS_CONSISTENCY.title,
    "privacy_loss(o) = log p_D(o) − log p_D'(o) for the releases sample() draws: the change of measure holds "
    "on every event A of the release, on each side of L = 0",
    "P_D'(o ∈ A, L > 0) = E_D[e^{−L}1{o ∈ A, L > 0}], P_D(o ∈ A, L ≤ 0) = E_D'[e^{L}1{o ∈ A, L ≤ 0}]; A: bins of "
    "L (tails, ±ε, atoms), of coordinates of o, of a pilot-trained classifier's score",
    LOSS_CONSISTENCY.source,
)
#: ``loss-consistency`` of a pair audited as implemented: the events read the releases' bits too.
PAIR_FLOAT_CONSISTENCY = replace(
    PAIR_LOSS_CONSISTENCY,
    formula=PAIR_LOSS_CONSISTENCY.formula.replace(
        "classifier's score",
        "classifier's score, of the coordinates' bits as doubles (granularity, trailing zeros, low bits, grid "
        "residues: the program as implemented)",
    ),
)
NOISE_VIEW = CheckSpec(
    "noise-view",
    "The noise view releases what sample() releases",
    "release_from_noise(world, n), n of the declared noise law (Gaussian σ ⊙ w, w ~ N(0, I); Laplace or two-sided "
    "geometric of scale b), has the law of sample(world): the importance sampler draws from the view, the claim is "
    "about sample()",
    "KS and Mood's scale test between privacy losses via the view and via sample(), both worlds; for a view that adds "
    "its noise to a centre: privacy_loss = the view's exact loss, and sample()'s noise has the declared law",
    "the noise view importance sampling draws from (release_from_noise)",
)


def loss_consistency_check(loss_d: np.ndarray, loss_dp: np.ndarray, guards: CheckSpec | None = None) -> Evidence:
    """``loss-consistency`` from draws of the loss under D and under D' (see the module notes).

    ``guards``: the DP check these draws decide (a built-in audit's ``<prefix>dp-forward``); the check is then
    ``<prefix>loss-consistency`` in that check's role, so it is decided in the same family as the claim it guards.
    """
    spec = LOSS_CONSISTENCY
    if guards is not None:
        prefix = guards.id.removesuffix("dp-forward")
        spec = replace(spec, id=f"{prefix}{spec.id}", role=guards.role, source=f"{spec.source}; guards {guards.id}")
    return consistency_evidence(loss_consistency(loss_d, loss_dp), int(np.size(loss_d)), spec)


def consistency_evidence(
    test: LossConsistency | EventConsistency,
    draws_per_world: int,
    spec: CheckSpec = LOSS_CONSISTENCY,
    scale: ScaleIdentity | None = None,
) -> Evidence:
    """``loss-consistency`` from the test's bins or events (``draws_per_world``: the draws it was given per
    world), and for a user's pair the scale identity (:mod:`pdp_audit.verify.estimators.consistency_scale`; Bonferroni
    over
    the two tests)."""
    pvalue = test.pvalue if scale is None else min(1.0, 2 * min(test.pvalue, scale.pvalue))
    evidence = _consistency_at(test, (draws_per_world, pvalue), spec, scale, None)
    if not isinstance(test, EventConsistency):
        return evidence
    # a fail names an event that refutes on its own at the level it is read at (the scale identity takes half)
    factor = 1 if scale is None else 2
    return replace(
        evidence, failed=lambda level: _consistency_at(test, (draws_per_world, pvalue), spec, scale, level / factor)
    )


def _consistency_at(test, read: tuple[int, float], spec: CheckSpec, scale, level: float | None) -> Evidence:
    """:func:`consistency_evidence` (``read`` = (draws per world, p-value)) naming the event of
    :meth:`~pdp_audit.verify.estimators.consistency_output.EventConsistency.witness_at` ``level`` (None: the least
    consistent one)."""
    events = isinstance(test, EventConsistency)
    named = test.witness_at(level) if events else test.worst
    ratio = 1.0
    if named is not None and named.frequency > 0:
        ratio = named.weighted.estimate / named.frequency
    scale_note = "" if scale is None else f" And the {scale.describe()}: a loss of the wrong scale moves it."
    which = "Least consistent"
    if named is not None and named is not test.worst:
        which = f"Seen in one world only, and refuting on its own at level {level:.3g},"
    witness = test.witness(level) if events else None
    return Evidence(
        spec=spec,
        estimate=float(ratio),
        pvalue=read[1],
        supports=lambda ci, alpha: True,
        note=(
            f"{which} of {len(test.bins)} {test.noun}: {test.describe(level) if events else test.describe()}. The "
            f"estimate is that ratio (1 when the loss is the sampler's).{scale_note} A fail means privacy_loss does "
            "not match sample(): every other verdict on this pair is then void."
        ),
        details={
            "bins": len(test.bins),
            "worst_ratio": float(ratio),
            "draws_per_world": int(read[0]),
            **({"bins_by_family": dict(test.families)} if events else {}),
            **({"witness": witness} if witness is not None else {}),
        },
    )


class _ViewLoss:
    """Block work: privacy losses of releases drawn through the noise view on ``world`` (from its declared law:
    Gaussian, Laplace or two-sided geometric), rounded at ``resolution``."""

    def __init__(self, view, world: str, resolution: float):
        self.view, self.world, self.resolution = view, check_world(world), resolution

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        if tilting.has_tilted_view(self.view):
            losses = tilting.view_losses(self.view, self.world, size, rng)
        else:
            w = rng.standard_normal((size, int(self.view.noise_dim)))
            losses = rare.whitened_loss(self.view, self.world, 1.0, w)
        # at the resolution of the losses drawn through sample()
        # (pdp_audit.verify.estimators.engine.PrivacyLossSampler): an atom
        # of the loss must not look spread on one side of the comparison and whole on the other
        return at_loss_resolution(losses, self.resolution)


def view_capable(pair) -> bool:
    """Whether ``pair`` has a noise view importance sampling can draw from: the Gaussian view
    (:func:`pdp_audit.verify.estimators.rare.rare_capable`) or a Laplace or geometric one
    (:mod:`pdp_audit.verify.estimators.tilting`).
    MalformedPair for a declared view whose law or scale is out of range."""
    if tilting.has_tilted_view(pair):
        tilting.rates(pair)
        return True
    return rare.rare_capable(pair)


def replay_view(pair, seed: int, trials: int) -> view_replay.Replay | None:
    """Whether ``sample()`` is exactly its declared view (:mod:`pdp_audit.verify.estimators.view_replay`), over at
    most ``trials`` rows per world; None for a pair without a view."""
    if not view_capable(pair):
        return None
    law = tilting.declared_law(pair) or "gaussian"
    view = pair if tilting.has_tilted_view(pair) else rare.noise_view(pair)
    return view_replay.replay(pair, view, law, seed, trials)


def noise_view_check(
    pair,
    losses: dict[str, np.ndarray],
    seed: int,
    resolution: float = LOSS_RESOLUTION,
    replayed: view_replay.Replay | None = None,
) -> Evidence | None:
    """``noise-view`` for a pair with a noise view (None without one); ``losses``: draws of the loss via
    ``sample()`` per world, rounded at ``resolution``; ``replayed``: the replay's outcome, stated in the note (a
    view that does not replay is not a fail -- it is not used).  The p-value is Bonferroni's over the two worlds."""
    if not view_capable(pair):
        return None
    from scipy import stats  # here, not at the top: scipy.stats is most of a second of a process's start

    view = pair if tilting.has_tilted_view(pair) else rare.noise_view(pair)
    results, scales = {}, {}
    for world, sampled in losses.items():
        n = min(VIEW_SAMPLES, int(np.size(sampled)))
        via_view = run_blocks(_ViewLoss(view, world, resolution), n, seed, f"noise-view/{world}")
        results[world] = stats.ks_2samp(np.asarray(sampled)[:n], via_view)
        scales[world] = _scale_test(np.asarray(sampled)[:n], via_view)
    worst_world = max(results, key=lambda w: results[w].statistic)
    pvalues = [r.pvalue for r in results.values()] + list(scales.values())
    structure = _view_structure(view, min(VIEW_SAMPLES, *(int(np.size(v)) for v in losses.values())), seed)
    pvalues += structure.pvalues if structure is not None else []
    pvalue = min(1.0, len(pvalues) * min(pvalues))
    note = (
        f"Largest KS distance {results[worst_world].statistic:.4g} (world {worst_world}, "
        f"{min(VIEW_SAMPLES, int(np.size(losses[worst_world]))):,} releases each way). A fail means the "
        "importance sampler would audit another mechanism than sample()."
    )
    extra: dict = {}
    if structure is not None:
        note += " " + structure.describe()
        extra = {"loss_mismatches": structure.mismatches, "noise_scale_pvalues": structure.scale_pvalues}
    if replayed is not None:
        note += " " + replayed.describe()
        extra["replay"] = {"rows_per_world": replayed.rows, "mismatches": replayed.mismatches, "exact": replayed.exact}
    return Evidence(
        spec=NOISE_VIEW,
        estimate=float(results[worst_world].statistic),
        pvalue=float(pvalue),
        supports=lambda ci, alpha: True,
        note=note,
        details={
            **{w: float(r.statistic) for w, r in results.items()},
            "scale_pvalues": {w: float(p) for w, p in scales.items()},
            **extra,
        },
    )


def _view_structure(view, draws: int, seed: int) -> view_structure.StructureResult | None:
    """The translation view's checks (:mod:`pdp_audit.verify.estimators.view_structure`): the loss is the view's exact
    loss,
    and ``sample()``'s noise has the declared law (releases drawn through ``sample()`` in their own streams)."""
    law = tilting.declared_law(view) or "gaussian"
    if law == "gaussian" and not rare.has_noise_view(view):  # an adapted view (mean/noise_sd): nothing declared
        return None

    def sample_releases(world: str, size: int, stream: str) -> np.ndarray:
        blocks = iter_blocks(_Releases(view, world), size, seed, stream)
        return np.concatenate(list(blocks))

    return view_structure.structure_checks(view, law, draws, sample_releases)


class _Releases:
    """Block work: checked releases of ``sample()``."""

    def __init__(self, pair, world: str):
        self.pair, self.world = pair, check_world(world)

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return checked_releases(self.pair, self.world, size, self.pair.sample(self.world, size, rng))


def _scale_test(sampled: np.ndarray, via_view: np.ndarray) -> float:
    """Mood's two-sample test of equal scale of the losses via ``sample()`` and via the view: distribution-free
    under the null (both samples from one law) and far more powerful than KS against a view a few per cent too
    narrow (at 5e4 draws a 3% narrower noise has p ≈ 1e-11, where KS sees p ≈ 1e-3), the error that moves δ's
    tail most.  Infinite losses rank at the ends; NaN never reaches here (``checked_losses``)."""
    finite = np.isfinite(sampled).all() and np.isfinite(via_view).all()
    if not finite:  # ranks of ±∞ are still ranks: replace them by values beyond every finite one
        both = np.concatenate([sampled, via_view])
        big = float(np.max(np.abs(both[np.isfinite(both)]), initial=1.0)) * 2 + 1
        sampled, via_view = (np.clip(np.nan_to_num(v, posinf=big, neginf=-big), -big, big) for v in (sampled, via_view))
    if np.ptp(np.concatenate([sampled, via_view])) == 0:  # one value in both samples: no scale to compare
        return 1.0
    from scipy import stats  # here, not at the top: scipy.stats is most of a second of a process's start

    with np.errstate(invalid="ignore", divide="ignore"):
        pvalue = float(stats.mood(sampled, via_view).pvalue)
    return pvalue if np.isfinite(pvalue) else 1.0  # all ranks tied: Mood's statistic has no variance


@dataclass(frozen=True)
class MainPass:
    """How the main pass of ``sample`` and ``privacy_loss`` (:func:`stream_losses`) is drawn and read:
    ``progress``, a bar of its blocks with the estimated time on a terminal's stderr; ``workers``, its processes -- a
    number, or a function choosing them, called once the pair has passed the rng probe (a pair is timed only after it
    has shown it draws from its rng alone).  The numbers never depend on either.  ``stop``: drawn in looks, stopped
    once decided.  ``law`` (:data:`pdp_audit.verify.core.config.LAW_OPTION`): ``"as-implemented"`` (the
    default) checks the loss on the releases' bit structure too, so a sampler whose doubles differ between the
    worlds fails ``loss-consistency`` whatever its real-valued law; ``"ideal"`` leaves those events out."""

    progress: bool | None = None  # None: as the audit running the pass was asked (progress.asking)
    workers: int | Callable[[], int] = 1
    stop: sequential.Stopping | None = None
    law: str = LAW_OPTION.default  # what is certified: "as-implemented" reads the releases' bits, "ideal" not

    @property
    def float_structure(self) -> bool:
        """Whether ``loss-consistency`` reads the releases' bit structure (the program as implemented)."""
        return self.law != "ideal"

    def chosen_workers(self) -> int:
        """The processes of the pass (``workers`` called where it is a function)."""
        return self.workers() if callable(self.workers) else self.workers


def validated_dp_checks(
    pair,
    epsilon: float,
    delta: float,
    trials: int,
    seed: int,
    per_instance: bool,
    exact_delta: float | None = None,
    drawing: MainPass = MainPass(),
) -> list[Evidence]:
    """Everything an assertion about a user's pair rests on: the pair's validation and its two DP checks
    (:func:`dp_checks`), the exact fail ``pair-protocol`` instead when the pair is malformed or does not draw from
    its rng alone (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`, first), and ``closed-form``
    when the user supplied one.  ``drawing``: how the main pass is drawn (:class:`MainPass`)."""
    if exact_delta is not None and drawing.stop is not None:  # closed-form joins the family the pass is read against
        drawing = replace(drawing, stop=replace(drawing.stop, others=drawing.stop.others + 1))
    try:
        check_block_memory(pair)
        why = check_rng_discipline(
            pair.sample, lambda world, size, out: checked_releases(pair, check_world(world), size, out)
        )
        workers = drawing.chosen_workers()
        found = dp_checks(pair, epsilon, delta, trials, seed, per_instance, replace(drawing, workers=workers))
        checks = not_reproducible(found, why)
    except MalformedPair as err:
        checks = [malformed_check(str(err))]
    if exact_delta is not None:
        checks += closed_form_check(checks, float(exact_delta))
    return checks


def not_reproducible(checks: list, why: str) -> list:
    """``checks`` marked as drawn from a sampler of its own source (``details["reproducible"]`` False and ``why`` in
    each note: :func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`); unchanged for ``why`` "".
    Their verdicts stand: the draws are independent, only a rerun's numbers differ."""
    if not why:
        return checks
    said = why[0].upper() + why[1:] + "."
    return [c.with_details(reproducible=False).noted(said, before=True) for c in checks]


#: Copies of one block of releases alive at once while it is checked (the pair's array, its float copy, a slice, and
#: the copy the pair's privacy_loss is given: its own, so that writing into it changes nothing of ours).
BLOCK_COPIES = 4


def check_block_memory(pair) -> None:
    """Refuse, before the pair draws anything, releases too wide for this machine: the checks stream the releases in
    blocks of :data:`~pdp_audit.verify.estimators.engine.BLOCK_SIZE` rows whatever ``trials`` (the block size is part
    of the
    seeding, so it cannot shrink), and a block of ``output_dim`` doubles is held a few times over.  An
    ``output_dim`` of 200,000 needed 105 GB per block and died of MemoryError (exit 4) in the first probe."""
    from pdp_audit.mechanisms.base import pair_attribute
    from pdp_audit.mechanisms.validation import InputError
    from pdp_audit.verify.core.processes import MEMORY_SHARE, physical_memory
    from pdp_audit.verify.estimators.engine import BLOCK_SIZE

    dim = pair_attribute(pair, "output_dim")
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1:
        return  # not a width: the pair-protocol check names it
    total, per_dim = physical_memory(), BLOCK_SIZE * 8 * BLOCK_COPIES
    if total and int(dim) * per_dim > MEMORY_SHARE * total:
        raise InputError(
            f"the pair's output_dim {int(dim):,}: each block of {BLOCK_SIZE:,} releases is held in about "
            f"{int(dim) * per_dim / 1e9:.3g} GB of memory; this process may use {total / 1e9:.3g} GB: at most "
            f"{int(MEMORY_SHARE * total / per_dim):,} dimensions here (release fewer, or audit a projection)"
        )


@dataclass(frozen=True)
class StreamedLosses:
    """What the checks of one assertion need from ``trials`` draws of the loss per world, gathered block by
    block: the consistency test, the tails at ε both ways, the first :data:`VIEW_SAMPLES` losses per world and the
    resolution the losses were rounded at."""

    consistency: EventConsistency | None  # None: a sequential pass stopped before the test's pilot completed
    tails: dict[str, TailEstimate]
    heads: dict[str, np.ndarray]
    means: dict[str, StreamedHockeyMean]  # by direction: δ(ε) as one bounded mean, and the atom at +∞ (pair_claims)
    resolution: float = LOSS_RESOLUTION
    scale: ScaleIdentity | None = None
    band: StreamedScaleBand | None = None  # the loss-scale band's sums (pdp_audit.verify.estimators.loss_scale_band)
    float_structure: bool = False  # the consistency test read the releases' bits (the program as implemented)


class ReleasesAndLosses:
    """Block work: the releases of :class:`pdp_audit.verify.estimators.engine.PrivacyLossSampler` (same draws, same
    checks,
    same rounding of the losses) together with their losses."""

    def __init__(self, pair, world: str, resolution: float | None = None):
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
    pair,
    epsilon: float,
    trials: int,
    seed: int,
    progress: bool | None = False,
    workers: int = 1,
    float_structure: bool = False,
) -> StreamedLosses:
    """One pass over the blocks of both worlds (stream ``plugin/<world>``), interleaved.  Memory is bounded
    whatever ``trials``: a few blocks, :data:`VIEW_SAMPLES` losses, and the consistency test's pilot (at most
    :data:`pdp_audit.verify.estimators.consistency_events.RELEASE_PILOT_MAX` releases of at most
    :data:`pdp_audit.verify.estimators.consistency_events.COORDINATES_KEPT` coordinates per world, and the pilot's
    losses);
    the test's events are tallied on every draw past the pilot.  Losses and ε are compared at the resolution of
    the pair's floating-point type (:func:`pdp_audit.verify.estimators.engine.pair_loss_resolution`), on a grid through
    ±ε
    where that type is coarser than float64 (:func:`pdp_audit.mechanisms.base.grid_through`).

    ``workers`` > 1: the blocks are drawn by that many processes (the pair must pickle), a few blocks ahead of the
    pass (:class:`pdp_audit.verify.estimators.engine.Windowed`); each block is seeded by its identity, so the numbers
    are the same on any number of workers.  The pass of ``sample`` and ``privacy_loss`` is the audit's cost; the
    view's checks and importance sampling, where a pair has a view, draw in this process.  ``float_structure``: the
    consistency test reads the releases' bits too (:class:`MainPass` ``law``)."""
    from pdp_audit.verify.core.dask_cluster import block_executor

    if workers > 1:
        _check_picklable(pair)
    with block_executor(workers, shipped={"the pair": pair}) as executor:
        pool = None if executor is None else Windowed(executor, 2 * workers)
        return _stream_losses(pair, epsilon, trials, seed, (progress, pool, float_structure))


def _check_picklable(pair) -> None:
    """A pair of a class defined in a function cannot be sent to worker processes (one line)."""
    from pdp_audit.mechanisms.validation import check_picklable

    check_picklable("pair", "define its class at module level", pair)


def _stream_losses(pair, epsilon: float, trials: int, seed: int, running: tuple) -> StreamedLosses:
    progress, pool, float_structure = running
    state = _PassState(pair, epsilon, trials, float_structure)
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


class _PassState:
    """What the checks need of the draws of a pass so far (:class:`StreamedLosses`), fed the blocks of both worlds
    in lockstep; ``trials``: the draws per world the consistency test's pilot is sized from (the pass's, for the
    fixed pass)."""

    def __init__(self, pair, epsilon: float, trials: int, float_structure: bool = False):
        self.resolution = grid_through(
            separating_resolution(pair_loss_resolution(pair), float(epsilon)), float(epsilon)
        )
        self.consistency = StreamedEventConsistency(trials, trials, float(epsilon), float_structure)
        self.float_structure = float_structure
        self.scale = StreamedScaleIdentity()
        self.band = StreamedScaleBand(epsilon, self.resolution)
        self.tails = StreamedTails(np.array([float(epsilon)]), 0.5, self.resolution)
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


def dp_checks(
    pair,
    epsilon: float,
    delta: float,
    trials: int,
    seed: int,
    per_instance: bool,
    drawing: MainPass = MainPass(),
) -> list:
    """The pair's validation (``loss-consistency``, and ``noise-view`` where it has one) and the two
    hockey-stick checks δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ (plain, or importance-sampled through the view).

    Sampling raises :class:`pdp_audit.mechanisms.base.MalformedPair` for releases or losses of the wrong shape, NaN or
    impossible infinities.  The losses are streamed (:func:`stream_losses`): memory does not grow with
    ``trials``; ``drawing``: the processes its pass draws on (a number: the same numbers on any), its progress bar,
    and, with ``drawing.stop``, the pass drawn in looks and stopped once decided
    (:mod:`pdp_audit.verify.evidence.pair_sequential`), ``trials`` its maximum.
    """
    claim, budget = (float(epsilon), float(delta)), (trials, seed)
    if drawing.stop is not None:
        return _sequential_checks(pair, claim, budget, per_instance, drawing)
    streamed = stream_losses(
        pair, epsilon, trials, seed, drawing.progress, drawing.chosen_workers(), drawing.float_structure
    )
    replayed = replay_view(pair, seed, trials)
    view = noise_view_check(pair, streamed.heads, seed, streamed.resolution, replayed)
    checks = _checks_of(pair, streamed, claim, budget, per_instance, (replayed, view))
    return checks[:-2] + _with_figures(checks[-2:], streamed.heads, float(epsilon), float(delta))


def _checks_of(pair, streamed: StreamedLosses, claim: tuple, budget: tuple, per_instance: bool, views: tuple) -> list:
    """The checks of the draws ``streamed``: ``loss-consistency``, ``noise-view`` and the two DP checks; ``budget`` =
    (the draws per world, seed), ``views`` = (the view's replay, :func:`replay_view`; its check,
    :func:`noise_view_check`, or None)."""
    (epsilon, delta), trials, (replayed, view) = claim, budget[0], views
    if streamed.consistency is None:
        checks = [_unpiloted(trials)]
    else:
        spec = PAIR_FLOAT_CONSISTENCY if streamed.float_structure else PAIR_LOSS_CONSISTENCY
        checks = [consistency_evidence(streamed.consistency, trials, spec, streamed.scale)]
    checks += [view] if view is not None else []
    kind = "pDP for this (D, z)" if per_instance else "DP"
    source = "Wang 2019, §2 (per-instance DP)" if per_instance else "Dwork & Roth 2014, Definition 2.4"
    for suffix, direction, (p, q) in (("forward", "D||D'", ("D", "D'")), ("reverse", "D'||D", ("D'", "D"))):
        spec = CheckSpec(
            f"{'pdp' if per_instance else 'dp'}-{suffix}",
            f"({epsilon:g}, {delta:g})-{kind}, δ_{{{p}‖{q}}}(ε)",
            f"The pair is ({epsilon:g}, {delta:g})-{kind}: P_{p}(S) ≤ e^ε P_{q}(S) + δ for every event S",
            f"δ_{{{p}‖{q}}}(ε) = P_{p}[L_{p}{q} > ε] − e^ε P_{q}[L_{p}{q} > ε] ≤ δ",
            source,
        )
        checks.append(_claim_check(pair, spec, streamed, direction, (epsilon, delta), budget, replayed))
    return checks


def _unpiloted(drawn: int) -> Evidence:
    """``loss-consistency`` of a sequential pass stopped (by a fail elsewhere) before the test's pilot completed."""
    return Evidence(
        spec=PAIR_LOSS_CONSISTENCY,
        estimate=float("nan"),
        verdict="inconclusive",
        note=f"Not tested: the run stopped after {drawn:,} draws per world, before the test's pilot completed.",
        details={"draws_per_world": int(drawn)},
    )


def _sequential_checks(pair, claim: tuple, budget: tuple, per_instance: bool, drawing: MainPass) -> list:
    """The checks of a pass drawn in looks, read after each at its share of the level and stopped once decided
    (:mod:`pdp_audit.verify.evidence.pair_sequential`).  The noise view is checked at the first look and at each look
    that may pass until its :data:`VIEW_SAMPLES` heads are full, the last check read again between; the importance
    sampled tails through it are drawn (as many as the look's draws) at every other look and at each look that may
    pass, the last ones read again between (each a valid fixed-n estimate, read at the look's share): their draws
    add up to about twice the last look's, not three times."""
    from pdp_audit.verify.core.dask_cluster import block_executor

    (epsilon, delta), (trials, seed) = claim, budget
    workers, stop = drawing.chosen_workers(), drawing.stop
    assert stop is not None  # a pass is drawn in looks only under a stopping rule (dp_checks)
    sizes = sequential.looks(trials)
    shares = sequential.look_shares(len(sizes))
    replayed = replay_view(pair, seed, trials)
    views: dict = {}
    tails: dict = {}  # the importance-sampled tails by (check, draws): redrawn at the looks the view is checked

    def view_of(streamed: StreamedLosses, drawn: int):
        # its own VIEW_SAMPLES draws cost the same at every look (a wide pair's most): checked at the first look, then
        # at each look that may pass until its heads are full; between, the last check is read again (valid: it is a
        # fixed-n test, read at the look's share)
        full = min(h.size for h in streamed.heads.values()) >= VIEW_SAMPLES
        if "last" not in views or (not views.get("full") and (full or drawn >= sequential.pass_from(trials))):
            views.update(last=noise_view_check(pair, streamed.heads, seed, streamed.resolution, replayed), full=full)
        return views["last"]

    if workers > 1:
        _check_picklable(pair)
    state = _PassState(pair, epsilon, sequential.piloted_as(trials), drawing.float_structure)
    drawn, why = 0, "budget"
    # one bar for the whole pass, at the block level: its total the cap (the pass may stop before it)
    counted = progress_bar(trials, "plugin, releases per world (at most)", "release", drawing.progress, unit_scale=True)
    with block_executor(workers, shipped={"the pair": pair}) as executor, counted as bar:
        pool = None if executor is None else Windowed(executor, 2 * workers)
        for look, (size, share) in enumerate(zip(sizes, shares)):
            blocks = {
                w: iter_blocks(
                    ReleasesAndLosses(pair, w, state.resolution),
                    size - drawn,
                    seed,
                    f"plugin/{w}/look/{look}",
                    pool,
                    False,
                )
                for w in WORLDS
            }
            for block_d, block_dp in zip(blocks["D"], blocks["D'"]):
                state.add(block_d, block_dp)
                if bar is not None:
                    bar.update(len(block_d[1]))
            # a look that is not the last is read for its verdicts only, and the consistency test's p-value there
            # only against levels up to α·w (read at the look's share w, Holm's largest level α), so it is screened
            # at α·w (exact below, a placeholder of 1 above: the same verdicts for every check, a p-value above
            # every Holm level moving none); the look the pass stops at is read again in full, its numbers reported
            drawn = size
            screen = stop.alpha * share if stop.early_stop and drawn < trials else None
            if screen is not None and drawn >= sequential.pass_from(trials):  # a look that may pass reads the gate
                screen = max(screen, sequential.pass_gate(stop, drawn, trials))
            streamed = state.result(screen)
            views_now = (replayed, view_of(streamed, drawn))
            if look % 2 == 0 or drawn >= sequential.pass_from(trials):  # every other look, and each that may pass
                tails_at = drawn
            looked = (drawn, seed, (tails_at, tails))
            checks = _checks_of(pair, streamed, claim, looked, per_instance, views_now)
            found = sequential.stopped(checks, share, stop, drawn, trials, {NOISE_VIEW.id: VIEW_SAMPLES})
            if found is not None:
                why = found
                if screen is not None and state.piloted:
                    streamed = state.result()
                    checks = _checks_of(pair, streamed, claim, looked, per_instance, views_now)
                break
    checks = [sequential.at_look(c, share) for c in checks]
    said = sequential.record(drawn, trials, look + 1, len(sizes), why)
    checks = [c.with_details(early_stop=said) for c in checks]
    return checks[:-2] + _with_figures(checks[-2:], streamed.heads, epsilon, delta)


def _with_figures(claims: list, heads: dict, epsilon: float, delta: float) -> list:
    """The forward check with the pair's privacy profile, the reverse one with the attack's ROC
    (:mod:`pdp_audit.verify.evidence.pair_figures`): the pictures a report shows beside the verdict."""
    forward, reverse = claims
    return [
        replace(forward, make_figure=pair_figures.profile_figure(heads, epsilon, delta)).noted(
            pair_figures.figure_note(heads, "plain Monte Carlo δ̂(ε) of both directions")
        ),
        replace(reverse, make_figure=pair_figures.roc_figure(heads, epsilon, delta)).noted(
            pair_figures.figure_note(heads, "the ROC of the likelihood-ratio attack testing D' against D")
        ),
    ]


def _claim_check(
    pair, spec: CheckSpec, streamed: StreamedLosses, direction: str, claim, budget, replayed=None
) -> Evidence:
    """The DP check of one direction from every estimate of δ(ε) (:mod:`pdp_audit.verify.evidence.pair_claims`):
    the plain tails and the bounded mean of ``sample()``'s draws, and importance sampling through the noise view
    where plain draws cannot resolve δ -- only a view that replays ``sample()`` exactly (``replayed``,
    :mod:`pdp_audit.verify.estimators.view_replay`): a bound on another law than the sampler's certifies nothing.
    A replayed Laplace or geometric translation view whose loss bound η is at most ε adds the bounded-loss proof
    δ(ε) = 0 (:func:`pdp_audit.verify.evidence.pair_claims.proof_estimate`).  ``budget``: (draws per world, seed),
    and for a pass in looks (the view's draws per world, the tails drawn so far by (check, draws)): a look reads
    the tail of its last refresh again (:func:`_sequential_checks`)."""
    (epsilon, delta), (trials, seed, *looked) = claim, budget
    viewed, memo = looked[0] if looked else (trials, None)
    hockey = streamed.means[direction]
    atom = atom_estimate(hockey.infinite, hockey.n)
    # a pass in looks (``looked``) reads the band and the bounded mean with the relative-entropy bounds too
    # (ScaleBand.entropy: sharper where δ is small; the fixed pass's numbers stay as they were)
    assert streamed.band is not None  # every pass streams the band's sums (_PassState)
    band = replace(streamed.band.result(), entropy=bool(looked))
    estimates = band_estimates(band, direction) + ([atom] if atom is not None else [])
    wanted = view_capable(pair) and not builders.plain_sampling_resolves(delta, trials)
    tried = wanted and replayed is not None and replayed.exact
    tail, untilted = None, ""
    if tried and memo is not None and (spec.id, viewed) in memo:
        tail, untilted = memo[(spec.id, viewed)]
    elif tried and tilting.has_tilted_view(pair):
        tail, untilted = tilting.try_tilted_tail(pair, epsilon, direction, viewed, seed, stream=f"tilted/{spec.id}")
    elif tried:
        tail = rare.try_rare_tail(pair, epsilon, direction, viewed, seed, stream=f"rare/{spec.id}")
    if tried and memo is not None:
        memo[(spec.id, viewed)] = (tail, untilted)
    if tail is not None:
        estimates.append(importance_estimate(tail, (hockey.infinite, hockey.n), _unseen(pair, claim, replayed)))
    proof = _bounded_loss_proof(pair, tail, replayed)
    if proof is not None:
        estimates.append(proof)
    check = pair_claim_check(spec, estimates, *claim)
    if wanted and not tried and replayed is not None:
        return check.noted(replayed.describe())
    if tried and tail is None:
        if not tilting.has_tilted_view(pair):
            return check.noted(builders.no_shift_note(trials))
        return check.noted(_no_tilt(untilted, band))
    if isinstance(tail, tilting.TiltedTail):
        return check.noted(_tilt_note(tail))
    if tail is None:
        return check.noted(_band_note(band))
    return check


def _unseen(pair, claim: tuple, replayed):
    """How much a bound on the view's law may miss the sampler's δ(ε) at confidence 1 − a, where a pure claim
    (δ = 0) would rest on it: nothing for a pair that is the law by construction, the replay's rate otherwise
    (:mod:`pdp_audit.verify.estimators.view_replay`).  A claim of δ > 0 keeps the view's bound as it was: the rate,
    about 14/m for m replayed rows, would leave a view nothing to decide below δ ≈ 1e-3."""
    epsilon, delta = claim
    if replayed is None or delta != 0 or view_replay.built_from_law(pair):
        return None
    return lambda a: replayed.unseen_delta(epsilon, a)


def _bounded_loss_proof(pair, tail, replayed):
    """The bound δ(ε) = 0 of the view's law where the tilted tail verified the L1 form on every draw of a replayed
    view and its loss bound η = Σλ|d| is at most ε (to the releases' rounding slack): the view's law is then (η, 0)-DP
    exactly (Dwork & Roth 2014, Theorem 3.6, for any ε ≥ η).  It is the sampler's -- the bounded-loss proof -- where
    the pair is that law by construction (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`); otherwise
    the replay bounds what it may have missed by its rate (:meth:`~pdp_audit.verify.estimators.view_replay.Replay.
    unseen_delta`: :func:`pdp_audit.verify.evidence.pair_claims.replayed_bound_estimate`).  None otherwise."""
    if not isinstance(tail, tilting.TiltedTail) or not tail.certified:
        return None
    t = tail.tilt
    if t.eta > t.epsilon + 4 * t.rtol * (1 + t.eta):
        return None
    if view_replay.built_from_law(pair) or replayed is None:
        return proof_estimate(t.eta, tail.n)
    return replayed_bound_estimate(t.eta, t.epsilon, replayed)


def _band_note(band) -> str:
    """Why a correct loss may still leave the claim undecided (:mod:`pdp_audit.verify.estimators.loss_scale_band`)."""
    return (
        f"The upper bounds hold for every scale of the claimed loss the draws cannot refute: {band.describe(1e-6)}. "
        "A noise view lets the loss be checked exactly."
    )


def _no_tilt(reason: str, band) -> str:
    """Why the view's importance sampler was not used; the plain samples' bounds then hold for every scale of the
    claimed loss the draws cannot refute (the band), as for a pair without a view."""
    return (
        f"No tilt of the noise view was used ({reason}): the plain samples decide, and their upper bounds hold for "
        f"every scale of the claimed loss the draws cannot refute: {band.describe(1e-6)}."
    )


def _tilt_note(tail: tilting.TiltedTail) -> str:
    t = tail.tilt
    how = (
        f"certified by the L1 form of the loss, verified on all {tail.n:,} draws"
        if tail.certified
        else f"{tail.escapes:,} draws left the L1 form of the loss or the weight bound: lower bound only"
    )
    return (
        f"Importance sampling: {t.law} noise exponentially tilted (τ = {t.tau:.3g}) toward the largest losses, "
        f"sup L = {t.eta:.6g} under the view; the upper bound is {how} (exponential tilting, Siegmund 1976; Bucklew "
        "2004, ch. 5; empirical Bernstein interval on the bounded weights)."
    )


def malformed_check(why: str):
    """The exact fail of a pair that broke the protocol (:class:`pdp_audit.mechanisms.base.MalformedPair`)."""
    spec = CheckSpec(
        "pair-protocol",
        "The pair keeps the NeighbourPair protocol",
        "sample(world, n, rng) returns (n, output_dim) real releases drawn from rng alone, and privacy_loss their "
        "(n,) exact losses: no NaN, no −∞ under D, no +∞ under D'",
        "shapes and values of sample() and privacy_loss(); the same seed gives the same releases, distinct generator "
        "states distinct ones",
        "the NeighbourPair protocol (pdp_audit.NeighbourPair)",
    )
    return builders.exact_check(spec, holds=False, estimate=float("nan"), note=f"Malformed pair: {why}.")


def closed_form_check(checks: list, exact_delta: float) -> list:
    """A user's closed form δ(ε) is a claim to check, never evidence: ``closed-form`` fails where the sampled
    intervals of the DP checks exclude it, and no DP check passes because of it."""
    dp = [c for c in checks if c.id.endswith(("-forward", "-reverse"))]
    if not dp:  # a malformed pair: nothing was sampled to compare with
        return []
    spec = CheckSpec(
        "closed-form",
        "The supplied closed form agrees with sampling",
        f"The exact δ(ε) supplied with the assertion, {exact_delta:.4g}, is the pair's",
        "δ_supplied ∈ the sampled interval of δ_{D‖D'}(ε) and of δ_{D'‖D}(ε)",
        "user claim (exact_delta=)",
    )
    pvalues = [_two_sided_pvalue(c, exact_delta) for c in dp]
    return [
        Evidence(
            spec=spec,
            estimate=float(exact_delta),
            pvalue=min(1.0, len(pvalues) * min(pvalues)),
            supports=lambda ci, alpha: True,
            note="A supplied closed form is checked against the samples; it never makes a DP check pass.",
        )
    ]


def _two_sided_pvalue(evidence, value: float) -> float:
    """Smallest α at which the evidence's interval at level 1 − α excludes ``value`` (bisection in log α)."""

    def separation(alpha: float) -> float:
        lo, hi = evidence.interval(alpha)
        return max(lo - value, value - hi)

    return pvalue_by_inversion(separation, 0.0)
