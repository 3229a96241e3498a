"""The DP checks of a pair (a user's, a mutant's, a deployed one's): its validation
(:mod:`pdp_audit.verify.evidence.pair_validation`: ``pair-protocol``, ``loss-consistency``, ``noise-view``) and the
two hockey-stick checks of the claim

    δ_{D‖D'}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ   and   δ_{D'‖D}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ

(Dwork & Roth 2014, Definition 2.4; per instance, Wang 2019, §2), each decided from every estimate of δ(ε)
(:mod:`pdp_audit.verify.evidence.pair_claims`): the plain tails and bounded mean of the main pass
(:mod:`pdp_audit.verify.evidence.pair_stream`), and importance sampling through a noise view that replays ``sample()``
exactly.  A pass is drawn whole, or in looks read at their share of the level and stopped once decided
(:mod:`pdp_audit.verify.evidence.pair_sequential`).  The statistical checks' p-values join the family of the claim
they guard (Holm), so the family's false-alarm rate holds.  :func:`validated_dp_checks` is what the pytest plugin and
the mutant zoo run on a pair; a closed form the user supplies is a claim (``closed-form``), never evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

from pdp_audit.mechanisms.base import (
    MalformedPair,
    NeighbourPair,
    check_world,
    checked_releases,
)
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.core.config import LAW_OPTION
from pdp_audit.verify.core.dask_cluster import block_executor
from pdp_audit.verify.estimators import rare, tilting, view_replay
from pdp_audit.verify.estimators.engine import (
    Windowed,
    iter_blocks,
)
from pdp_audit.verify.estimators.progress import progress_bar
from pdp_audit.verify.estimators.rng_discipline import check_rng_discipline
from pdp_audit.verify.evidence import builders, pair_figures
from pdp_audit.verify.evidence import pair_sequential as sequential
from pdp_audit.verify.evidence.pair_claims import (
    atom_estimate,
    band_estimates,
    importance_estimate,
    pair_claim_check,
    proof_estimate,
    replayed_bound_estimate,
)
from pdp_audit.verify.evidence.pair_stream import (
    WORLDS,
    PassState,
    ReleasesAndLosses,
    StreamedLosses,
    check_pair_picklable,
    stream_losses,
)
from pdp_audit.verify.evidence.pair_validation import (
    NOISE_VIEW,
    PAIR_FLOAT_CONSISTENCY,
    PAIR_LOSS_CONSISTENCY,
    VIEW_SAMPLES,
    check_block_memory,
    closed_form_check,
    consistency_evidence,
    malformed_check,
    noise_view_check,
    not_reproducible,
    replay_view,
    view_capable,
)


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
    pair: NeighbourPair,
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


def dp_checks(
    pair: NeighbourPair,
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
        check_pair_picklable(pair)
    state = PassState(pair, epsilon, sequential.piloted_as(trials), drawing.float_structure)
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
    assert streamed.band is not None  # every pass streams the band's sums (PassState)
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
    """How much a bound on the view's law may miss the sampler's δ(ε) at confidence 1 − a: nothing for a pair that is
    the law by construction, the replay's rate otherwise (:mod:`pdp_audit.verify.estimators.view_replay`), for every
    claim.  A user's view is a claim to check, not evidence: a branch of ``sample()`` rarer than the replayed rows
    (probability 3e-6, keyed on the noise) was certified under a claim of δ = 1e-6 in 6 of 12 runs when the rate was
    left out of δ > 0 claims (``benchmarks/replay_rate.py``).  The price: through a user's view, δ̄ ≥ about 14/m for
    m replayed rows per world."""
    epsilon, _ = claim
    if replayed is None or view_replay.built_from_law(pair):
        return None
    return lambda a: replayed.unseen_delta(epsilon, a)


def _bounded_loss_proof(pair, tail, replayed):
    """The bound δ(ε) = 0 of the view's law where the tilted tail verified the L1 form on every draw of a replayed
    view and its loss bound η = Σ|d|/b is at most ε in exact arithmetic on the view's doubles
    (:attr:`~pdp_audit.verify.estimators.tilting.Tilt.exact_eta`; no slack): the view's law is then (η, 0)-DP
    exactly (Dwork & Roth 2014, Theorem 3.6, for any ε ≥ η).  It is the sampler's -- the bounded-loss proof -- where
    the pair is that law by construction (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`); otherwise
    the replay bounds what it may have missed by its rate (:meth:`~pdp_audit.verify.estimators.view_replay.Replay.
    unseen_delta`: :func:`pdp_audit.verify.evidence.pair_claims.replayed_bound_estimate`).  None otherwise."""
    if not isinstance(tail, tilting.TiltedTail) or not tail.certified:
        return None
    t = tail.tilt
    if t.exact_eta is None or t.exact_eta > Fraction(t.epsilon):
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
