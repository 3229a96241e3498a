"""The exact event test of the black-box audit: an event chosen before the bounding draws, its two counts tested
jointly on fresh ones.

(ε, δ)-DP of the pair means P(S) ≤ e^ε Q(S) + δ and Q(S) ≤ e^ε P(S) + δ for *every* set of outputs S (Dwork &
Roth 2014, Def. 2.4); more finely, P = P_g + P_e with P_g ≤ e^ε Q as measures and P_e of mass ≤ δ (Kairouz, Oh
& Viswanath 2015).  For one set S fixed before the fresh draws the audit tests the *ratio* of its two rates, not
each rate apart (DP-Sniper's final step, Bichsel et al. 2021, §V, bounds each rate by Clopper–Pearson and divides:
two intervals, each paying for its own noise):

1. Poissonisation.  The fresh releases per world number N ~ Poisson(λ) and M ~ Poisson(μ) (λ = μ the largest
   mean with P(Poisson > ``trials``) ≤ 1e-9; drawn from their own seeded stream, independent of the releases; if
   either exceeds ``trials`` the bound is 0: power, never level).  The releases in S then form independent Poisson
   counts, of means λP(S) and μQ(S).
2. Conditioning [Kingman 1993, §5.2].  Given the K = A + B releases in S (A of D, B of D'), each of those from
   λP_g or μQ is from D independently with probability ≤ π(ε) = λe^ε/(λe^ε + μ) (dP_g ≤ e^ε dQ); the releases
   from P_e number J_S ≤ J ~ Poisson(≤ λδ), independent of the labels.  So A ≤ J + W(K) with W(K) | K ~
   Binomial(K, π(ε)) [the walk of pdp_audit.verify.estimators.attack's module docstring, step 3].
3. Test.  With j the smallest integer with P(J > j) ≤ a/2 (j = 0 and all of a to the binomial when δ = 0), ε is
   rejected when the Clopper–Pearson lower bound on the binomial rate from A − j successes of K trials at level
   a/2 (a at δ = 0) exceeds π(ε): the largest ε rejected is

       ε ≥ logit(π_lo) + log(μ/λ),        π_lo = Beta(A − j, K − A + j + 1) quantile at a (or a/2),

   and the reverse direction swaps the worlds.  Its noise is that of log(A/B), √(1/A + 1/B), where dividing two
   Clopper–Pearson ends pays 1/√A + 1/√B: √2 narrower for an event of equal counts.

Choice of S, before any bounding draw (:mod:`pdp_audit.audits.blackbox.event_choice`).  Each candidate statistic (a
learned score: logistic, trees, the empirical likelihood ratio of discrete outcomes, per-column histograms, pooled over
the columns or not; :mod:`pdp_audit.audits.blackbox.features`) is fitted on the training releases.  A selection pass
then draws :data:`SELECTION_SHARE` × n further releases per world, at most :data:`SELECTION_MAX`
(:func:`selection_size`; apart from the training and the bounding ones; only the candidates' scores are kept), split in
halves.  For a score of many values: on the first half, for each direction and each level of :data:`TUNED_AT`, the
:data:`SHORTLIST` threshold events S = {score ≥ t} (favouring D) or {score ≤ t} (favouring D') whose rates, read
cautiously (:data:`PREDICTION_LEVEL`) and scaled to the bounding draws, *predict* the largest bound; on the second half,
the best of those, its rates read as they are (:data:`CHOICE_LEVEL`: unbiased, being independent of the shortlist).  (A
shortlist on one half and a choice on the other keep the choice from being the maximum over thousands of noisy
thresholds: on SVT3 with the choice on the training split alone, predictions of 0.33 gave 0.16.)  For a score of at most
:data:`DISCRETE_VALUES` values (a discrete output: SVT1's 11 outcomes), and for the outcome score, whose ranking of the
outcomes is refitted on the first half (the training split alone is too small to rank rare outcomes), the few events --
for outcomes, the prefix sets of the outcomes ranked by likelihood ratio, the Neyman–Pearson sets -- are chosen on the
first half and judged on the second (:data:`JUDGE_LEVEL`).  Kept: the candidate whose events' predictions (their merit,
summed over the levels) are largest,
with its best event at each level -- at most K = len(TUNED_AT) events.

Validity: the selection sees training and selection draws only, so the K events are fixed sets when the bounding
draws are made; the bound at α is the largest over the K events of the bound at α/K (Bonferroni over the events
tested on the bounding draws).  Whatever was learned, a poor choice only makes the bound loose.  "Fixed sets" needs
each frozen score to be a function of one release alone -- the same double for a release whatever block it is
scored in, at whatever position, alone or once per distinct release: the logistic score is a sum in a fixed order of
elementwise operations (:func:`~pdp_audit.audits.blackbox.learned_statistics.linear_scores`; a BLAS product rounds a
row by its place in the block, and a threshold at a repeated release's score then held it in some blocks only); the
trees compare coordinates with thresholds and add their leaves' values in tree order; the histograms look bins up by
comparisons and add their ratios in column order; the outcome score hashes the bits of a release's atoms; the number
structure (:func:`~pdp_audit.verify.estimators.float_structure.number_structure`) is read off each release's bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from pdp_audit.audits.blackbox.event_statistic import TUNED_AT, Event, EventStatistic  # noqa: F401 (TUNED_AT: re-exported)
from pdp_audit.audits.blackbox.intervals import event_intervals, one_column_steps
from pdp_audit.audits.blackbox.tallies import Scored, SharedSearch, Steps
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.verify.estimators.attack import poisson_mean_within, poisson_upper
from pdp_audit.verify.estimators.engine import block_rng, iter_blocks
from pdp_audit.verify.estimators.float_structure import number_structure
from pdp_audit.verify.estimators.stats import beta_isf, beta_ppf

#: The selection pass draws this share of the bounding budget ``trials`` per world (in addition to it) ...
SELECTION_SHARE = 0.25
#: ... and at most this many releases per world: the share of the benchmark's 1e7 (docs/how-to/blackbox.md; every
#: budget up to 1e7 is unchanged), so that the scores it keeps (8 bytes per candidate, at most 6 candidates: 240 MB
#: for both worlds) do not grow with the budget, which may reach 1e9.  At 4e7 the uncapped pass (1e7 per world)
#: bounded ε within 0.6% of the capped one on 4 benchmark mechanisms (docs/how-to/blackbox.md, "Budgets up to 1e9").
SELECTION_MAX = 2_500_000


def selection_size(trials: int) -> int:
    """The selection pass's releases per world for a bounding budget of ``trials``: :data:`SELECTION_SHARE` of it,
    at most :data:`SELECTION_MAX` (at least 2: one per half)."""
    return max(min(int(trials * SELECTION_SHARE), SELECTION_MAX), 2)


#: Events kept per direction from the first half of the validation split for the second half to choose from.
SHORTLIST = 8
#: The logistic test and the trees learn from at most this many releases per world (their fitting time grows with
#: it; the outcome and histogram scores, which only count, use the whole fitting part).
LEARNER_TRIALS = 100_000
#: The validation rates are read at this level (lower for the favoured world, upper for the other) to predict a
#: fresh bound, so that events seen a handful of times do not win on noise (a level near 0 predicts nothing at
#: all from a validation split much smaller than the fresh budget: 1e-3 predicted 0 for every event of SVT1).
PREDICTION_LEVEL = 0.05
#: The second half of the selection pass chooses among the shortlisted events with their rates read at this level:
#: 0.5, the point estimates (the shortlist keeps noisy small events out; 0.05 here left SVT1 at 0.068, 0.79×
#: DP-Sniper's, preferring larger events than its best outcomes).  The statistics are ranked by their chosen events'
#: predictions at :data:`PREDICTION_LEVEL`.
CHOICE_LEVEL = 0.5
#: A judge apart from the choice reads the chosen events' rates one standard error down (Φ(−1)): the statistics are
#: ranked by the largest of a handful of such readings, which gains about that much by luck, and an event seen a few
#: dozen times must not outrank one seen thousands of times on its luck (SVT3‖SVT4's outcome score: an event of 30
#: judged releases predicted 0.38 and gave 0.13); the full cautious reading (:data:`PREDICTION_LEVEL`) marked SVT1's
#: best outcome down by twice its noise against larger, worse events.
JUDGE_LEVEL = 0.1587
#: An event is a candidate only if the validation releases of the world it favours fall in it this many times.
MIN_EVENT_HITS = 10
#: A score of at most this many distinct values on the selection pass (a discrete output's) has its events chosen on
#: the whole pass: no more than 2 × this many events, all of which the choice can read.
DISCRETE_VALUES = 16
#: At most this many thresholds of a score are tried on the validation split (its quantiles).
MAX_THRESHOLDS = 4096


#: Relative widening of each Clopper–Pearson end (the lower end times 1 − ROUNDING, the upper end times 1 + ROUNDING):
#: the slack for the floating-point computation of the end, in the conservative direction only -- a widened interval
#: rejects less, so the widening can cost a refutation at the boundary, never make one.  It is sound where the
#: computed quantile overstates the exact one by less than a relative 5e-10: the widened end is then below it by at
#: least 5e-10 of it, which moves the logit by at least 5e-10, more than the rounding of the operations after it
#: (:func:`ratio_epsilon`: log, log1p, a difference and the shift log(μ/λ), each within an ulp or two of terms below
#: 750: under 1e-12, proven by their rounding).  The quantile's own error (Boost's ``ibeta_inv`` through
#: ``scipy.stats.beta.ppf``/``isf``) is not proven here, only measured: tests/test_blackbox_events.py checks the
#: binomial tails at the widened ends against mpmath's incomplete beta at 40 digits, each in [1 − 1e-6, 1] times
#: the level.
ROUNDING = 1e-9


def lower_rate(hits, n, a):
    """Clopper–Pearson: the a quantile of Beta(k, n − k + 1), 0 for k = 0 (vectorised, real k allowed; for
    0 < a < 1, ``scipy.stats.beta.ppf`` bit for bit without its generic wrapper, which cost more than the quantile in
    the stopped pass's thousands of scalar readings: :func:`pdp_audit.verify.estimators.stats.beta_ppf`)."""
    hits = np.asarray(hits, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = beta_ppf(a, np.maximum(hits, 1e-300), n - hits + 1)
    return np.where(hits > 0, lo * (1 - ROUNDING), 0.0)


def upper_rate(hits, n, a):
    """Clopper–Pearson: the 1 − a quantile of Beta(k + 1, n − k), 1 for k = n (``scipy.stats.beta.isf`` bit for
    bit, as :func:`lower_rate`)."""
    hits = np.asarray(hits, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        hi = beta_isf(a, hits + 1, np.maximum(n - hits, 1e-300))
    return np.where(hits < n, np.minimum(hi * (1 + ROUNDING), 1.0), 1.0)


def ratio_epsilon(hits_for, hits_against, mean_for: float, mean_against: float, delta: float, a: float):
    """The largest ε the joint test of one event rejects at level ``a`` (module docstring, steps 1–3):
    logit(π_lo) + log(μ/λ), π_lo the Clopper–Pearson lower end of A − j successes in K = A + B trials, where A =
    ``hits_for`` (of the favoured world, Poisson mean λ = ``mean_for``), B = ``hits_against`` (mean μ) and j the
    excess allowance of δ (0 at δ = 0; else the level is split, a/2 to it and a/2 to the binomial).  Vectorised
    over the hits (real counts allowed: the predictions of :func:`_predicted`); 0 where not positive."""
    hits_for, hits_against = np.asarray(hits_for, float), np.asarray(hits_against, float)
    excess = 0
    if delta > 0:
        a = a / 2
        excess = poisson_upper(mean_for * delta, a)
    lo = lower_rate(hits_for - excess, hits_for + hits_against, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(lo) - np.log1p(-lo) + math.log(mean_against / mean_for)
    return np.where(np.isfinite(eps) & (eps > 0), eps, 0.0)


@dataclass(frozen=True)
class EventChoice:
    """The events chosen on the validation split for one statistic and the bounds they predict (one per level of
    :data:`TUNED_AT`)."""

    events: tuple[Event, ...]
    predicted: tuple[float, ...]

    @property
    def merit(self) -> float:
        return float(sum(self.predicted))


@dataclass(frozen=True)
class EventAttack:
    """The fresh counts of the chosen events: ``hits_d[i]`` of the ``n`` releases of D and ``hits_dp[i]`` of the
    ``m`` of D' fall in event i, ``n`` ~ Poisson(``mean_d``) and ``m`` ~ Poisson(``mean_dp``) (``poissonised``
    False when either exceeded the budget: the bound is then 0); the bound is Bonferroni over the events (module
    docstring)."""

    events: tuple[Event, ...]
    hits_d: tuple[int, ...]
    hits_dp: tuple[int, ...]
    n: int
    m: int
    delta: float
    mean_d: float
    mean_dp: float
    poissonised: bool = True

    def _oriented(self) -> Iterator[tuple[int, int, float, float]]:
        """Per event: (hits of the favoured world, of the other, their Poisson means)."""
        for event, kd, kdp in zip(self.events, self.hits_d, self.hits_dp):
            yield (kd, kdp, self.mean_d, self.mean_dp) if event.favours_d else (kdp, kd, self.mean_dp, self.mean_d)

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        """The ε lower bound at confidence 1 − ``alpha`` (0 when no event gives a positive one)."""
        if not self.poissonised:
            return 0.0
        a = alpha / max(len(self.events), 1)
        return max((self.event_bound(*counts, a) for counts in self._oriented()), default=0.0)

    def event_bound(self, hits_for: int, hits_against: int, mean_for: float, mean_against: float, a: float) -> float:
        """One event's ε bound at level ``a`` from its oriented counts (:func:`ratio_epsilon`; the anytime-valid
        fresh pass, :mod:`pdp_audit.audits.blackbox.anytime`, reads each round at its share of the level instead)."""
        return float(ratio_epsilon(hits_for, hits_against, mean_for, mean_against, self.delta, a))

    def best_event(self, alpha: float) -> Event | None:
        """The event whose bound is the largest at confidence 1 − ``alpha`` (the first on a tie; None without
        events)."""
        if not self.events:
            return None
        a = alpha / len(self.events)
        bounds = [self.event_bound(*counts, a) for counts in self._oriented()]
        return self.events[int(np.argmax(bounds))]

    def witness_event(self, alpha: float, epsilon: float) -> int | None:
        """The index of the event a witness names at confidence 1 − ``alpha`` against the claim's ``epsilon``: among
        the events whose bound exceeds it (each refutes the claim on its own), one that no release of the world it
        disfavours fell in -- of the most releases of the other -- before those with two non-zero counts: an event
        one world never reaches bounds δ(ε) by its count alone at every ε, as an atom does (Mironov, CCS 2012, for
        the doubles one world's releases never have); else the event of :meth:`best_event`.  None without events."""
        if not self.events:
            return None
        a = alpha / len(self.events)
        oriented = list(self._oriented())
        bounds = [self.event_bound(*counts, a) if self.poissonised else 0.0 for counts in oriented]
        one_world = [i for i, (hits_for, hits_against, *_) in enumerate(oriented) if hits_against == 0 < hits_for]
        refuting = [i for i in one_world if bounds[i] > epsilon]
        if refuting:
            return max(refuting, key=lambda i: (oriented[i][0], -i))
        return int(np.argmax(bounds))

    def delta_lower_bound_at(self, alpha: float, epsilon: float) -> float:
        """The δ lower bound at ``epsilon``: the largest δ the test rejects with ε (level split as at δ > 0: a/2 to
        the excess, a/2 to the binomial), over the events; 0 if none."""
        if not self.poissonised:
            return 0.0
        a = alpha / (2 * max(len(self.events), 1))
        best = 0.0
        for hits_for, hits_against, mean_for, mean_against in self._oriented():
            pi = mean_for * math.exp(epsilon) / (mean_for * math.exp(epsilon) + mean_against)

            def rejects(j: int) -> bool:  # with an excess allowance of j (fewer rejections as j grows)
                return bool(lower_rate(hits_for - j, hits_for + hits_against, a) > pi)

            if hits_for == 0 or not rejects(0):
                continue
            lo, hi = 0, hits_for  # rejects(lo), not rejects(hi): the largest j that rejects is lo at the end
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if rejects(mid) else (lo, mid)
            mean = poisson_mean_within(lo, a) if lo > 0 else -math.log1p(-a)  # P(Poisson(mean) > lo) ≤ a
            best = max(best, mean / mean_for)
        return best


def bound_events(fresh: dict, statistic: EventStatistic, budget: tuple, running: tuple = (None, None)) -> EventAttack:
    """The bounding pass: the fresh releases of each world (``fresh``: world → :class:`_FreshBlocks`) counted in
    the frozen ``statistic``'s events.  ``budget`` = (trials, delta, seed): the numbers of releases are Poisson of
    the largest mean λ with P(Poisson(λ) > trials) ≤ 1e-9, drawn from the stream ``blackbox/poisson/{world}`` (block
    0), and the releases from ``blackbox/test/{world}`` in seeded blocks (any executor: the same counts); when a
    number exceeds ``trials`` only ``trials`` are drawn and the bound is 0 (module docstring, step 1).  ``running``
    = (executor, progress bar or None).  The attack's pass and a witness's re-check are this one function: the same
    seed gives the same counts."""
    trials, delta, seed = budget
    executor, bar = running
    mean = poisson_mean_within(trials)
    hits, drawn = [], [int(block_rng(seed, f"blackbox/poisson/{world}", 0).poisson(mean)) for world in ("D", "D'")]
    if bar is not None:  # the bar counted trials per world: the draws are Poisson, at most trials
        bar.total += sum(min(size, trials) for size in drawn) - 2 * trials
    for world, size in zip(("D", "D'"), drawn):
        total = np.zeros(len(statistic.events) + 1, dtype=np.int64)
        work = EventHits(fresh[world], statistic.score, statistic.events)
        for block in iter_blocks(work, min(size, trials), seed, f"blackbox/test/{world}", executor):
            total += block[0]
            if bar is not None:
                bar.update(int(block[0, -1]))
        hits.append(tuple(int(h) for h in total[:-1]))
    within = all(size <= trials for size in drawn)
    return EventAttack(statistic.events, hits[0], hits[1], drawn[0], drawn[1], delta, mean, mean, within)


@dataclass(frozen=True)
class EventReading:
    """One event of an :class:`EventAttack` as a reader sees it (display only; the bound is
    :meth:`EventAttack.epsilon_lower_bound_at`): ``rate`` = B/μ, its rate in the world it disfavours (B of that
    world's releases fell in it, of Poisson mean μ), with the exact Poisson interval ``rate_interval``;
    ``log_ratio`` = log((A/λ)/(B/μ)), the log ratio of its two rates, with the joint test's interval at δ = 0
    (the Clopper–Pearson ends of the share of the favoured world among the A + B releases in it, as logits plus
    log(μ/λ)); ``bound``: the event's ε bound with the attack's δ -- each at the level α/K of one side of the
    bound."""

    favours_d: bool
    threshold: float
    rate: float
    rate_interval: tuple[float, float]
    log_ratio: float
    log_ratio_interval: tuple[float, float]
    bound: float


def event_readings(attack: EventAttack, alpha: float) -> tuple[EventReading, ...]:
    """The :class:`EventReading` of each of the ``attack``'s events at confidence 1 − ``alpha`` (Bonferroni over the
    events, as the bound)."""
    from scipy.stats import gamma

    a = alpha / max(len(attack.events), 1)
    out = []
    for event, (hits_for, hits_against, mean_for, mean_against) in zip(attack.events, attack._oriented()):
        low = float(gamma.ppf(a, hits_against)) if hits_against > 0 else 0.0
        high = float(gamma.isf(a, hits_against + 1))
        total = hits_for + hits_against
        with np.errstate(divide="ignore", invalid="ignore"):
            shift = math.log(mean_against / mean_for)
            ends = [float(r) for r in (lower_rate(hits_for, total, a), upper_rate(hits_for, total, a))]
            logits = tuple(float(np.log(r) - np.log1p(-r) + shift) for r in ends)
            ratio = float(np.log(hits_for / mean_for) - np.log(hits_against / mean_against))
        bound = attack.event_bound(hits_for, hits_against, mean_for, mean_against, a)
        rate = (hits_against / mean_against, (low / mean_against, high / mean_against))
        bound = bound if attack.poissonised else 0.0  # a budget overrun bounds nothing (step 1)
        out.append(EventReading(event.favours_d, event.threshold, *rate, ratio, (logits[0], logits[1]), bound))
    return tuple(out)


class _FreshBlocks:
    """Blocks of ``size`` releases of ``world`` (``releases``: the checked block work of
    :mod:`pdp_audit.audits.blackbox.attack`), of the dimension of the first training block (``first_call``), augmented
    by
    :func:`pdp_audit.verify.estimators.float_structure.number_structure` when ``numbers``."""

    def __init__(self, releases, first_call: tuple[int, str], numbers: bool = False):
        self.releases, self.first_call, self.numbers = releases, first_call, numbers

    def block(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.augmented(self.raw(size, rng))

    def raw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` checked releases as the sampler gave them (what a later stage may learn from:
        :class:`pdp_audit.audits.blackbox.stages.EarlierReleases`)."""
        block = self.releases(size, rng)
        if block.shape[1] != self.first_call[0]:
            raise MalformedPair(
                f"sample({self.releases.world!r}, {size}) released {block.shape[1]} columns, {self.first_call[1]} "
                f"released {self.first_call[0]}: a mechanism's releases have one dimension"
            )
        return block

    def augmented(self, block: np.ndarray) -> np.ndarray:
        """Raw releases as the scores read them (with ``numbers``: augmented by their number structure)."""
        if self.numbers:
            block = number_structure(block)
        return block


class CandidateScores(_FreshBlocks):
    """Block work of the selection pass: each candidate statistic's (``scores``, a tuple) view of ``size`` fresh
    releases, a :class:`~pdp_audit.audits.blackbox.tallies.Scored` block (a step function's intervals, the others'
    scores); only those leave the block, and with ``keep`` the raw releases beside them (a pair: a later stage
    learns from them, :class:`pdp_audit.audits.blackbox.stages.EarlierReleases`)."""

    def __init__(self, fresh: _FreshBlocks, scores: tuple, keep: bool = False):
        super().__init__(fresh.releases, fresh.first_call, fresh.numbers)
        self.scores, self.keep = scores, keep
        #: per score, its :class:`~pdp_audit.audits.blackbox.tallies.Steps` where its selection pass is tallied
        self.steps = score_steps(scores, fresh)
        self.search = SharedSearch(self.steps)

    def __call__(self, size: int, rng: np.random.Generator):
        raw = self.raw(size, rng)
        scored = self.of(raw)
        return (scored, raw) if self.keep else scored

    def of(self, raw: np.ndarray) -> Scored:
        """The candidates' view of checked raw releases: the step functions' intervals, the others' scores.  Releases
        read with their number structure (no step function then) are augmented and scored once per distinct release
        where they repeat (:func:`~pdp_audit.audits.blackbox.features.distinct_rows`: the same numbers)."""
        repeated = None
        if self.numbers:
            # deferred: read at call time (tests replace features.distinct_rows)
            from pdp_audit.audits.blackbox.features import distinct_rows

            raw, repeated = distinct_rows(raw)
        block = self.augmented(raw)
        intervals = self.search(block[:, 0]) if self.search.which else {}
        scores = [s(block) for c, s in enumerate(self.scores) if c not in intervals]
        table = np.column_stack(scores) if scores else np.empty((len(block), 0))
        return Scored(table if repeated is None else table[repeated], intervals)


def score_steps(scores: tuple, fresh: _FreshBlocks) -> tuple:
    """Per candidate score, its :class:`~pdp_audit.audits.blackbox.tallies.Steps` where it is a step function of the
    one column of ``fresh``'s releases whose tallies stand for its scores (its selection pass is then tallied), else
    None."""
    found = (None if fresh.numbers else one_column_steps(score, fresh.first_call[0]) for score in scores)
    steps = (None if found_steps is None else Steps(*found_steps) for found_steps in found)
    return tuple(s if s is not None and s.can_tally(MAX_THRESHOLDS) else None for s in steps)


class EventHits(_FreshBlocks):
    """Block work of the bounding pass: ``size`` fresh releases scored by the frozen ``score``; returns one row:
    the count in each of the ``events``, then ``size`` (with ``keep``, a pair: that row and the raw releases, which a
    later stage may learn from -- never count again)."""

    def __init__(self, fresh: _FreshBlocks, score, events: tuple[Event, ...], keep: bool = False):
        super().__init__(fresh.releases, fresh.first_call, fresh.numbers)
        self.score, self.events, self.keep = score, events, keep
        steps = None if fresh.numbers else one_column_steps(score, fresh.first_call[0])
        #: the events as intervals of the release, where the score is a step function of one column: the same
        #: counts without scoring each release (:mod:`pdp_audit.audits.blackbox.intervals`)
        self.intervals = None if steps is None else event_intervals(steps, events)

    def __call__(self, size: int, rng: np.random.Generator):
        raw = self.raw(size, rng)
        row = np.array([[*self.count(raw), size]], dtype=np.int64)
        return (row, raw) if self.keep else row

    def count(self, raw: np.ndarray) -> list:
        """The count of checked releases ``raw`` in each of the events."""
        if self.intervals is not None:
            return list(self.intervals.counts(raw[:, 0]))
        if self.numbers:  # each distinct release scored once, counted as often as it was drawn
            # deferred: read at call time (tests replace features.distinct_rows)
            from pdp_audit.audits.blackbox.features import distinct_rows

            rows, repeated = distinct_rows(raw)
            if repeated is not None:
                drawn = np.bincount(repeated, minlength=len(rows))
                scores = self.score(self.augmented(rows))
                return [int(drawn[e.members(scores)].sum()) for e in self.events]
        scores = self.score(self.augmented(raw))
        return [np.count_nonzero(e.members(scores)) for e in self.events]
