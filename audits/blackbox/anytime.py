"""The event test's fresh pass drawn in rounds, re-read after each, and stopped as soon as it decides (issue 43).

The fixed pass (:func:`pdp_audit.audits.blackbox.events.bound_events`) draws N ~ Poisson(λ) releases of D and
M ~ Poisson(λ) of D' and bounds each event's share of D among its releases by Clopper–Pearson, which is valid at one
sample size only.  Here the same budget is drawn in rounds r = 1, 2, … of Poisson means λ_r (:func:`round_means`:
from :data:`FIRST_ROUND`, growing by :data:`GROWTH`, summing to λ), N_r ~ Poisson(λ_r) releases of D and
M_r ~ Poisson(λ_r) of D' in round r (the numbers from the stream ``blackbox/rounds/{world}``, block r; the releases
from ``blackbox/fresh/{world}/{r}``, so that any executor gives the same counts).

Why the rounds keep the event test exact.  Read as a Poisson process in time, the releases of both worlds in one
event S arrive as a Poisson process, each labelled D independently of the arrival times (Kingman 1993, §5.2, the
marking theorem), with probability p_g ≤ π(ε) = e^ε / (1 + e^ε) for the part of P below e^ε Q (equal means in each
round), besides at most J ~ Poisson(≤ λδ) releases of the excess mass of D, J counted over the whole budget (module
docstring of :mod:`pdp_audit.audits.blackbox.events`, steps 1–3).  After round r the releases drawn number
N_1 + … + N_r ~ Poisson(λ_1 + … + λ_r), a mean fixed before the first draw, so the counts A_r (of D) and B_r (of D')
in S are those of a fixed pass of that mean: given K_r = A_r + B_r, the labels of its non-excess releases are
Binomial(K_r − J_r, p_g) with J_r ≤ J, and the exact test of that pass (Clopper–Pearson on A_r − j successes of K_r,
j the Poisson quantile of λδ at level a/2, for every round at once since J_r ≤ J, the binomial then read at a/2 in
place of a; :mod:`pdp_audit.audits.blackbox.events`, step 3) at level a_r rejects the true ε with probability at most
a_r.  The pass reads round r at a_r = a/(2R), R the number of rounds the budget
allows (:func:`round_means`, fixed by ``trials`` before any draw), and the last round also at a/2; by the union bound
over the R + 1 readings, Σ a_r ≤ a,

    P(some round's bound exceeds the true ε) ≤ R · a/(2R) + a/2 = a,

whatever rounds are read and whichever stops the pass; Bonferroni over the K events (a = α/K) makes the largest of
them an ε lower bound at level α at any round, in particular at one chosen by looking at the counts.  The pass stops
after the first round where that bound at the audit's α exceeds the claimed ε (``refuted``), where every event's share
is shown below π(ε) (the upper end of a binomial confidence sequence,
:mod:`pdp_audit.verify.estimators.confidence_sequences`, at level α: no later round could refute the claim except with
probability at most α; stopping for futility never adds a refutation), or where the next round would exceed
``trials`` releases of a world (``budget``; its numbers are drawn apart from the releases, so stopping on them is no
look at the labels).  The rounds' means sum to the λ of the fixed pass: a pass that never stops draws about as many
releases as it.

Why exact tests at the rounds, not a confidence sequence.  A confidence sequence is valid at every sample size, but
this pass reads only its R rounds (about 17 at 8e6 releases), and paying log R for them costs less than a mixture's
regret: Robbins' beta-binomial mixture (Jeffreys' prior) at a/2 needed 997,848 fresh releases per world to refute
SVT4 (DP-Sniper's pair, its best event: rates 0.0417 and 0.0360) at a quarter of α = 1e-6, the exact test at
a/(2R) with R = 17 needs 741,836, at the whole budget's a/2 622,256 (``benchmarks/confidence_sequences.py``: about
1.3× the exact interval's width at 1e5 releases in an event; a clear violation pays less, 3,267 against 3,748 for
rates 0.05 and 0.02).  Half the level is kept for the budget's end, so that the hardest violations keep their
refutation at the full budget: there the bound is the exact test's at a/2 (about 3% wider than the fixed pass's at
α = 1e-6).

A large budget is staged (:mod:`pdp_audit.audits.blackbox.stages`): a small pilot attack and larger ones, each with
its own streams (its training and selection reading the earlier stages' releases first, its fresh releases always
new) and its share of α fixed before the first draw, the attack of the full budget last, at half of α; the pass's
``share`` of the level says which part each spends.  A middle stage also reads the stage before's events again
(:class:`Carried`): their counts and Poisson means those of both stages' fresh passes, read after each of its
rounds as above at the part of its share the schedule gives them (the proof: that module's docstring).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.blackbox.events import EventAttack, EventHits, EventStatistic, lower_rate
from pdp_audit.verify.estimators.attack import poisson_mean_within, poisson_upper
from pdp_audit.verify.estimators.confidence_sequences import binomial_upper
from pdp_audit.verify.estimators.engine import block_rng, iter_blocks

#: The first round's Poisson mean of releases per world (a mechanism far from its claim is refuted in it) ...
FIRST_ROUND = 4096.0
#: ... and the growth of the rounds' means: a pass stopped in round r drew at most GROWTH times what it needed.
GROWTH = 1.5
#: The stopping rule reads the bound at this fraction of α, so that the check's p-value (a bisection in log α to
#: 1e-6: :func:`pdp_audit.verify.estimators.stats.pvalue_by_inversion`) is at most α when the pass says refuted.
STOP_MARGIN = 0.999
#: Why a pass stopped (``no-events``: the selection chose no event, so no fresh release could bound ε).
#: ``time-limit``: the run's time limit passed (``--time-limit``).
STOPPED = ("refuted", "within-claim", "budget", "no-events", "time-limit")


def round_means(total: float) -> list[float]:
    """The Poisson means of the rounds, per world: :data:`FIRST_ROUND`, then each :data:`GROWTH` times the last,
    the last cut so that they sum to ``total``."""
    means: list[float] = []
    size, drawn = FIRST_ROUND, 0.0
    while total - drawn > 0:
        step = min(size, total - drawn)
        means.append(step)
        drawn += step
        size *= GROWTH
    return means


@dataclass(frozen=True)
class AnytimeEventAttack(EventAttack):
    """The fresh counts of the chosen events after the rounds drawn (``n``, ``m`` releases of D and D', of Poisson
    means ``mean_d`` = ``mean_dp``, the rounds' means summed), bounded by the exact test of each round (module
    docstring):
    ``horizon`` the Poisson mean of every round the budget allowed (the excess J is counted over it), ``rounds``
    the rounds drawn, ``stopped`` why the pass stopped (:data:`STOPPED`), ``trials`` the budget, per world,
    ``complete`` whether every round of the budget was drawn (the exact test of the whole budget is then read too),
    and ``share`` the part of the level this pass may spend (a stage's of a staged attack:
    :mod:`pdp_audit.audits.blackbox.stages`), ``before`` the releases per world its earlier stages drew (training,
    selection and fresh), ``stage`` which: ``single`` (no stages), ``pilot``, ``middle`` or ``full``, and ``looks``
    the number of rounds R the budget allows, fixed before the first draw, among which half the level is split
    (module docstring; 1: a pass read once, at its end), and ``carried`` the fresh releases per world of the earlier
    stage whose events these are (their counts and means include that stage's fresh pass: :class:`Carried`; 0: the
    pass's own events)."""

    horizon: float = 0.0
    rounds: int = 0
    stopped: str = "budget"
    trials: int = 0
    complete: bool = False
    share: float = 1.0
    before: int = 0
    stage: str = "single"
    looks: int = 1
    carried: int = 0

    def event_bound(self, hits_for: int, hits_against: int, mean_for: float, mean_against: float, a: float) -> float:
        """logit(lo) + log(μ/λ), lo the exact lower end (Clopper–Pearson, A − j successes of A + B) at level b/(2R),
        R = ``looks``, and, once the budget is complete, at b/2: the event's share of the favoured world (b = a/2 and
        j the excess allowance at δ > 0, else b = a and j = 0; module docstring), a taken at this pass's ``share`` of
        it."""
        a = a * self.share
        excess = 0
        if self.delta > 0:
            a = a / 2
            excess = poisson_upper(self.horizon * self.delta, a)
        successes = hits_for - excess
        if successes <= 0:
            return 0.0
        lo = self._lower(successes, hits_for + hits_against, a)
        if lo <= 0:
            return 0.0
        eps = math.log(lo) - math.log1p(-lo) + math.log(mean_against / mean_for)
        return eps if math.isfinite(eps) and eps > 0 else 0.0

    def _lower(self, successes: float, total: float, a: float) -> float:
        """The share's lower end from ``successes`` of ``total`` at binomial level ``a``: Clopper–Pearson at a/(2R)
        after any round, the larger of it and Clopper–Pearson at a/2 once every round was drawn (module docstring)."""
        lo = float(lower_rate(successes, total, a / (2 * max(self.looks, 1))))
        if self.complete:
            lo = max(lo, float(lower_rate(successes, total, a / 2)))
        return lo

    def delta_lower_bound_at(self, alpha: float, epsilon: float) -> float:
        """The δ lower bound at ``epsilon``: the largest δ whose excess allowance still lets the rounds' exact test
        reject ε (level split a/2 to the excess, a/2 to the binomial, as :meth:`event_bound` at δ > 0), over the
        events; 0 if none."""
        a = alpha * self.share / (2 * max(len(self.events), 1))
        pi = 1 / (1 + math.exp(-epsilon))
        best = 0.0
        for hits_for, hits_against, _, _ in self._oriented():

            def rejects(j: int) -> bool:  # the binomial half of the level (fewer rejections as j grows)
                return hits_for - j > 0 and self._lower(hits_for - j, hits_for + hits_against, a) > pi

            if not rejects(0):
                continue
            lo, hi = 0, hits_for  # rejects(lo), not rejects(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if rejects(mid) else (lo, mid)
            mean = poisson_mean_within(lo, a) if lo > 0 else -math.log1p(-a)
            best = max(best, mean / self.horizon)
        return best

    def within_claim(self, epsilon: float, alpha: float) -> bool:
        """Every event's share of the world it favours is below π(ε) at level α/K (the upper end of its confidence
        sequence, from all its releases): no later round refutes ε except with probability at most α."""
        a = alpha * self.share / max(len(self.events), 1)
        pi = 1 / (1 + math.exp(-epsilon))
        return all(binomial_upper(kf, kf + ka, a) < pi for kf, ka, _, _ in self._oriented())


@dataclass(frozen=True)
class Carried:
    """The events of the stage before, read again on this stage's fresh releases (:mod:`pdp_audit.audits.blackbox.
    stages`, Carried events): its frozen ``statistic``, its completed fresh pass ``attack`` (every round of its budget
    drawn: the counts of a pass of the fixed mean ``attack.mean_d``) and the ``share`` of the level these readings
    spend, fixed by the schedule."""

    statistic: EventStatistic
    attack: AnytimeEventAttack
    share: float

    def read(self, hits: dict, drawn: float, horizon: float, state: tuple, level: tuple) -> AnytimeEventAttack:
        """The earlier stage's events after this pass's rounds so far: its counts plus ``hits`` (world → counts of
        its events, then this pass's releases), the Poisson means summed (``drawn`` this pass's, ``horizon`` its
        whole budget's), read at this pass's rounds (``state`` = (rounds, stopped, trials), ``level`` = (complete,
        looks))."""
        before, (rounds, stopped, trials), (complete, looks) = self.attack, state, level
        d, dp = hits["D"], hits["D'"]
        return AnytimeEventAttack(
            before.events,
            tuple(int(a + b) for a, b in zip(before.hits_d, d[:-1])),
            tuple(int(a + b) for a, b in zip(before.hits_dp, dp[:-1])),
            int(d[-1]),
            int(dp[-1]),
            before.delta,
            before.mean_d + drawn,
            before.mean_dp + drawn,
            True,
            horizon=before.horizon + horizon,
            rounds=rounds,
            stopped=stopped,
            trials=trials,
            complete=complete,
            share=self.share,
            looks=looks,
            carried=max(before.n, before.m),
        )


class _RoundHits:
    """Block work of a round: the counts of the pass's own events (``own``, an :class:`~pdp_audit.audits.blackbox.
    events.EventHits`) and of the carried ones (``carried``, another, or None) on the same releases: one row, the own
    counts, the carried counts, the block's size (with ``own.keep``: a pair, that row and the raw releases)."""

    def __init__(self, own, carried):
        self.own, self.carried = own, carried

    def __call__(self, size: int, rng: np.random.Generator):
        raw = self.own.raw(size, rng)
        counts = self.own.count(raw) + ([] if self.carried is None else self.carried.count(raw))
        row = np.array([[*counts, size]], dtype=np.int64)
        return (row, raw) if self.own.keep else row


def bound_events_anytime(
    fresh: dict,
    statistic,
    budget: tuple,
    stop_at: tuple,
    running: tuple = (None, None),
    stage: tuple = ("blackbox", 1.0),
    keep=None,
    carry: Carried | None = None,
):
    """The fresh pass in rounds (module docstring): ``fresh`` world → the fresh blocks of
    :mod:`pdp_audit.audits.blackbox.events`, ``statistic`` the frozen :class:`~pdp_audit.audits.blackbox.events.
    EventStatistic`, ``budget`` = (trials, delta, seed), ``stop_at`` = (the claimed ε, the audit's α, and optionally
    a deadline on :func:`time.monotonic`, after which no further round is drawn), ``running``
    = (executor, progress bar or None), ``stage`` = (the streams' prefix, the share of α this pass may spend),
    ``keep``: None, or ``keep(world, releases)`` called with each block of raw fresh releases once counted (a later
    stage learns from them: :class:`pdp_audit.audits.blackbox.stages.EarlierReleases`), ``carry``: None, or the
    earlier stage's events (:class:`Carried`), counted on the same releases and read after each round too (the pass
    stops refuted when either reading refutes, within the claim when both are).
    Returns the :class:`AnytimeEventAttack` of the rounds drawn: of the pass's own events, or of the carried ones
    when they refuted the claim (their ``carried`` then > 0)."""
    prefix, share = stage
    trials, delta, seed = budget
    epsilon, alpha, *rest = stop_at
    deadline = rest[0] if rest else None
    bar = running[1]
    horizon = poisson_mean_within(trials)
    worlds = ("D", "D'")
    events = statistic.events
    own = len(events)  # the own events' columns of a round's counts; the carried events' after them
    width = own + (0 if carry is None else len(carry.statistic.events)) + 1
    hits = {w: np.zeros(width, dtype=np.int64) for w in worlds}
    drawn, stopped, rounds = 0.0, "budget" if events else "no-events", 0
    means = round_means(horizon) if events else []
    looks = max(len(means), 1)  # the readings among which half the level is split, fixed before any draw
    attack = _attack(events, hits, delta, (drawn, horizon), (rounds, stopped, trials), False, (share, looks))
    works = {  # the same block work every round (an event's intervals are found once a pass, not once a round)
        w: _RoundHits(
            EventHits(fresh[w], statistic.score, events, keep=keep is not None),
            None if carry is None else EventHits(fresh[w], carry.statistic.score, carry.statistic.events),
        )
        for w in worlds
    }
    for r, mean in enumerate(means):
        sizes = {w: int(block_rng(seed, f"{prefix}/rounds/{w}", r).poisson(mean)) for w in worlds}
        if any(hits[w][-1] + sizes[w] > trials for w in worlds):
            break
        _draw_round(works, hits, sizes, (seed, f"{prefix}/fresh", r), running, keep)
        drawn, rounds = drawn + mean, r + 1
        state, level = (rounds, "budget", trials), (rounds == len(means), looks)
        attack = _attack(events, hits, delta, (drawn, horizon), state, level[0], (share, looks))
        readings = [attack]
        if carry is not None:
            readings.append(carry.read({w: h[own:] for w, h in hits.items()}, drawn, horizon, state, level))
        stopped, attack = _verdict(readings, (epsilon, alpha, deadline))
        if stopped != "budget":
            break
    if bar is not None:  # the bar counted the whole budget
        bar.total -= 2 * trials - int(hits["D"][-1] + hits["D'"][-1])
        bar.refresh()
    return dataclasses.replace(attack, stopped=stopped)


def _draw_round(works: dict, hits: dict, sizes: dict, where: tuple, running: tuple, keep) -> None:
    """Draw one round's fresh releases, ``sizes[w]`` of world ``w``, and add their event counts to ``hits[w]``
    (``where`` = (seed, streams' prefix, round): the streams of :func:`iter_blocks`; ``running`` = (executor, bar);
    ``keep`` as in :func:`bound_events_anytime`)."""
    seed, prefix, r = where
    executor, bar = running
    for w, size in sizes.items():
        for block in iter_blocks(works[w], size, seed, f"{prefix}/{w}/{r}", executor):
            if keep is not None:
                block, raw = block
                keep(w, raw)
            hits[w] += block[0]
            if bar is not None:
                bar.update(int(block[0, -1]))


def _verdict(readings: list, stop_at: tuple) -> tuple:
    """(why the pass stops, or ``"budget"`` to go on; the reading it reports) after a round: refuted when some
    reading's bound at α·:data:`STOP_MARGIN` exceeds the claimed ε (that reading, the highest), within the claim when
    every reading is, the time limit when ``stop_at`` = (ε, α, deadline or None) has passed; else the first reading."""
    epsilon, alpha, deadline = stop_at
    bounds = [reading.epsilon_lower_bound_at(alpha * STOP_MARGIN) for reading in readings]
    if max(bounds) > epsilon:
        return "refuted", readings[int(np.argmax(bounds))]
    if all(reading.within_claim(epsilon, alpha) for reading in readings):
        return "within-claim", readings[0]
    if deadline is not None and time.monotonic() > deadline:
        return "time-limit", readings[0]
    return "budget", readings[0]


def _attack(events, hits: dict, delta: float, means: tuple, state: tuple, complete: bool, level: tuple):
    """The :class:`AnytimeEventAttack` of the counts so far; ``level`` = (share, looks)."""
    (drawn, horizon), (rounds, stopped, trials), (share, looks) = means, state, level
    d, dp = hits["D"], hits["D'"]
    k = len(events)  # the own events' counts (the carried ones' follow them: :class:`Carried`)
    return AnytimeEventAttack(
        events,
        tuple(int(h) for h in d[:k]),
        tuple(int(h) for h in dp[:k]),
        int(d[-1]),
        int(dp[-1]),
        delta,
        drawn,
        drawn,
        True,
        horizon=horizon,
        rounds=rounds,
        stopped=stopped,
        trials=trials,
        complete=complete,
        share=share,
        looks=looks,
    )
