"""Checks that a pair is what it says before its claims are trusted (a user's pair above all).

* ``loss-consistency`` -- the loss is the privacy loss of the sampler: the change-of-measure identities with
  bounded summands.  A built-in audit's exact pair is checked on bins of L
  (:mod:`pdp_audit.verify.estimators.consistency`, :func:`loss_consistency_check`); a user's pair on events of its
  releases, intersected with the sign of L (:mod:`pdp_audit.verify.estimators.consistency_output`: adaptive bins of L
  down to its extreme quantiles, at ±ε and on its atoms; bins of the release's coordinates; bins of a classifier's
  score learned on a pilot split).  A loss written for another σ, another neighbour or swapped worlds, clipped, blind
  to a rare branch or to truncation, or the loss of a post-processing of the release (a coordinate or a report
  ignored) fails here, whatever its tails claim.
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
the assertion is the exact fail ``pair-protocol`` (:func:`malformed_check`); so is a pair that does not draw from the
generator it is given, and from it only (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`,
before the main draws), and a pair too wide for a block of its releases to fit this machine's memory
(:func:`check_block_memory`) is refused before it draws.  The two checks above are statistical: their p-values join
the family of the claim they guard (Holm), so the family's false-alarm rate holds.  A closed form the user supplies is
a claim (``closed-form``, :func:`closed_form_check`), never evidence.  What runs these on a pair:
:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Union, cast

import numpy as np

from pdp_audit.mechanisms.base import (
    LOSS_RESOLUTION,
    NeighbourPair,
    at_loss_resolution,
    check_world,
    checked_releases,
    pair_attribute,
)
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators import rare, tilting, view_replay, view_structure
from pdp_audit.verify.estimators.consistency import LossConsistency, loss_consistency
from pdp_audit.verify.estimators.consistency_output import EventConsistency
from pdp_audit.verify.estimators.consistency_scale import ScaleIdentity
from pdp_audit.verify.estimators.engine import (
    BLOCK_SIZE,
    iter_blocks,
    run_blocks,
)
from pdp_audit.verify.estimators.stats import pvalue_by_inversion
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.inputs.validation import InputError

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


#: A noise view importance sampling draws from: Gaussian noise σ ⊙ w (:class:`pdp_audit.verify.estimators.rare.
#: NoiseView`), or Laplace or two-sided geometric noise of scale b (:class:`pdp_audit.verify.estimators.tilting.
#: TiltedView`).
DeclaredView = Union[rare.NoiseView, tilting.TiltedView]


def declared_view(pair: NeighbourPair) -> DeclaredView:
    """The noise view of a pair that has one (:func:`view_capable`): the pair itself where it declares a Laplace or
    geometric law, else its Gaussian view (:func:`pdp_audit.verify.estimators.rare.noise_view`: the pair, or the
    adapter of a pair with ``mean``/``noise_sd``)."""
    return pair if tilting.has_tilted_view(pair) else rare.noise_view(pair)


class _ViewLoss:
    """Block work: privacy losses of releases drawn through the noise view on ``world`` (from its declared law:
    Gaussian, Laplace or two-sided geometric), rounded at ``resolution``."""

    def __init__(self, view: DeclaredView, world: str, resolution: float):
        self.view, self.world, self.resolution = view, check_world(world), resolution

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        if tilting.has_tilted_view(self.view):
            losses = tilting.view_losses(self.view, self.world, size, rng)
        else:
            gaussian = cast(rare.NoiseView, self.view)  # a view that declares no tilted law is the Gaussian one
            w = rng.standard_normal((size, int(gaussian.noise_dim)))
            losses = rare.whitened_loss(gaussian, self.world, 1.0, w)
        # at the resolution of the losses drawn through sample()
        # (pdp_audit.verify.estimators.engine.PrivacyLossSampler): an atom
        # of the loss must not look spread on one side of the comparison and whole on the other
        return at_loss_resolution(losses, self.resolution)


def view_capable(pair: object) -> bool:
    """Whether ``pair`` has a noise view importance sampling can draw from: the Gaussian view
    (:func:`pdp_audit.verify.estimators.rare.rare_capable`) or a Laplace or geometric one
    (:mod:`pdp_audit.verify.estimators.tilting`).
    MalformedPair for a declared view whose law or scale is out of range."""
    if tilting.has_tilted_view(pair):
        tilting.rates(pair)
        return True
    return rare.rare_capable(pair)


def replay_view(pair: NeighbourPair, seed: int, trials: int) -> view_replay.Replay | None:
    """Whether ``sample()`` is exactly its declared view (:mod:`pdp_audit.verify.estimators.view_replay`), over at
    most ``trials`` rows per world; None for a pair without a view."""
    if not view_capable(pair):
        return None
    law = tilting.declared_law(pair) or "gaussian"
    view = declared_view(pair)
    return view_replay.replay(pair, view, law, seed, trials)


def noise_view_check(
    pair: NeighbourPair,
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

    view = declared_view(pair)
    results, scales = {}, {}
    for world, sampled in losses.items():
        n = min(VIEW_SAMPLES, int(np.size(sampled)))
        via_view = run_blocks(_ViewLoss(view, world, resolution), n, seed, f"noise-view/{world}")
        results[world] = stats.ks_2samp(np.asarray(sampled)[:n], via_view)
        scales[world] = _scale_test(np.asarray(sampled)[:n], via_view)
    worst_world = max(results, key=lambda w: results[w].statistic)
    pvalues = [r.pvalue for r in results.values()] + list(scales.values())
    structure = _view_structure(pair, view, min(VIEW_SAMPLES, *(int(np.size(v)) for v in losses.values())), seed)
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


def _view_structure(
    pair: NeighbourPair, view: DeclaredView, draws: int, seed: int
) -> view_structure.StructureResult | None:
    """The translation view's checks (:mod:`pdp_audit.verify.estimators.view_structure`): the loss is the view's exact
    loss, and ``sample()``'s noise has the declared law (releases drawn through the pair's ``sample()`` in their own
    streams -- never through the view: an adapter's own sampler would be compared with itself)."""
    law = tilting.declared_law(view) or "gaussian"
    if law == "gaussian" and not rare.has_noise_view(pair):  # an adapted view (mean/noise_sd): nothing declared
        return None

    def sample_releases(world: str, size: int, stream: str) -> np.ndarray:
        blocks = iter_blocks(_Releases(pair, world), size, seed, stream)
        return np.concatenate(list(blocks))

    return view_structure.structure_checks(view, law, draws, sample_releases)


class _Releases:
    """Block work: checked releases of ``sample()``."""

    def __init__(self, pair: NeighbourPair, world: str):
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


def check_block_memory(pair: NeighbourPair) -> None:
    """Refuse, before the pair draws anything, releases too wide for this machine: the checks stream the releases in
    blocks of :data:`~pdp_audit.verify.estimators.engine.BLOCK_SIZE` rows whatever ``trials`` (the block size is part
    of the
    seeding, so it cannot shrink), and a block of ``output_dim`` doubles is held a few times over.  An
    ``output_dim`` of 200,000 needed 105 GB per block and died of MemoryError (exit 4) in the first probe."""
    # deferred: read at call time (tests replace processes.physical_memory)
    from pdp_audit.verify.core.processes import MEMORY_SHARE, physical_memory
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
