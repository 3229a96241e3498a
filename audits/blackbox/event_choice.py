"""The choice of the exact event test's events (:mod:`pdp_audit.audits.blackbox.events`), made before any bounding
draw: the candidate statistics fitted on the training releases, and for each the threshold events -- or, for a score
of few values, the prefix sets of its values ranked by likelihood ratio (the Neyman–Pearson sets) -- whose rates on one
half of the selection releases predict the largest bound, judged on the other half; kept, the candidate whose events'
predictions are largest, with its best event at each level of :data:`~pdp_audit.audits.blackbox.events.TUNED_AT`.
Choosing on draws apart from the bounding ones keeps the chosen events fixed sets when those are made (the module
docstring of :mod:`pdp_audit.audits.blackbox.events`).
"""

from __future__ import annotations

from typing import Callable, Literal

import numpy as np

from pdp_audit.audits.blackbox.cut_counts import CutCounts
from pdp_audit.audits.blackbox.events import (
    CHOICE_LEVEL,
    DISCRETE_VALUES,
    JUDGE_LEVEL,
    LEARNER_TRIALS,
    MAX_THRESHOLDS,
    MIN_EVENT_HITS,
    PREDICTION_LEVEL,
    SHORTLIST,
    TUNED_AT,
    Event,
    EventChoice,
    lower_rate,
    ratio_epsilon,
    upper_rate,
)
from pdp_audit.audits.blackbox.features import (
    HistogramScore,
    OutcomeIndex,
    OutcomeScore,
    PooledHistogramScore,
    pooled_sorted,
)
from pdp_audit.audits.blackbox.pooled_order import mixed_zeros, pooled_quantiles, pooled_unique
from pdp_audit.audits.blackbox.tallies import SelectionColumns, Tally, distinct_values


def _finite_sorted(scores: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The finite scores of D and of D', each sorted: what :func:`_event_counts` reads (sorted once per split of
    the selection pass, not once per count: the sorts were most of the choice's time), each in place in the copy
    that filtering makes (np.sort would copy it again)."""
    ordered = tuple(s[np.isfinite(s)] for s in scores)
    for s in ordered:
        s.sort()
    return ordered


def _distinct(ordered: np.ndarray) -> int:
    """The number of distinct values of a sorted array (equal as ``np.unique`` counts them: −0.0 == 0.0)."""
    return int(ordered.size and 1 + np.count_nonzero(ordered[1:] != ordered[:-1]))


def _event_counts(ordered: tuple[np.ndarray, np.ndarray], cuts: np.ndarray, favours_d: bool):
    """The counts of {score ≥ t} (``favours_d``) or {score ≤ t} at each cut t: (in the favoured world, in the
    other), from ``ordered`` = the finite scores of D and of D', sorted (:func:`_finite_sorted`); NaN scores are in
    no event."""
    sd, sdp = ordered
    if favours_d:
        return sd.size - _below(sd, cuts, "left"), sdp.size - _below(sdp, cuts, "left")
    return _below(sdp, cuts, "right"), _below(sd, cuts, "right")


def _below(ordered, cuts: np.ndarray, side: Literal["left", "right"]) -> np.ndarray:
    """How many of the sorted scores ``ordered`` (or a :class:`~pdp_audit.audits.blackbox.tallies.Tally` of them)
    are < each cut ("left") or ≤ it ("right")."""
    return np.searchsorted(ordered, cuts, side) if isinstance(ordered, np.ndarray) else ordered.below(cuts, side)


def _read_rates(counts, sizes, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The rates of events with validation ``counts`` = (favoured, other) of ``sizes`` read at ``level``: the
    favoured world's low, the other's high (Clopper–Pearson)."""
    return lower_rate(counts[0], sizes[0], level), upper_rate(counts[1], sizes[1], level)


def _few_event_counts(finite: tuple, cuts: np.ndarray, favours_d: bool):
    """:func:`_event_counts` of the ``finite`` scores (of D, of D'; :func:`_finite`) as they are, for a few cuts (the
    shortlist's, the chosen event): a pass over the finite scores a cut costs less than sorting them."""
    favoured, other = finite if favours_d else finite[::-1]
    if isinstance(favoured, Tally):  # a tally's counts are read off it
        return _event_counts(finite, cuts, favours_d)
    inside = np.greater_equal if favours_d else np.less_equal
    return tuple(np.array([np.count_nonzero(inside(s, t)) for t in cuts], dtype=np.intp) for s in (favoured, other))


class _CountsAt:
    """:func:`_few_event_counts` of the ``finite`` scores (of D, of D'), each (cut, direction) counted once: the two
    levels' shortlists share most of their cuts, and the judge of a score of many values reads the choice's."""

    def __init__(self, finite: tuple):
        self.finite = finite
        self.known: dict[tuple[float, bool], list] = {}  # (cut, direction) -> the counts in each world

    def counts(self, cuts: np.ndarray, favours_d: bool) -> tuple[np.ndarray, np.ndarray]:
        new = np.array([t for t in dict.fromkeys(cuts.tolist()) if (t, favours_d) not in self.known])
        if new.size:
            for t, *pair in zip(new.tolist(), *_few_event_counts(self.finite, new, favours_d)):
                self.known[t, favours_d] = pair
        found = [self.known[t, favours_d] for t in cuts.tolist()]
        return np.array([f[0] for f in found], dtype=np.intp), np.array([f[1] for f in found], dtype=np.intp)


def _finite(scores: tuple) -> tuple:
    """The finite scores of D and of D', in their order (filtered once per split, not once per count; tallies as
    they are; read only: scores all finite are not copied, their least and greatest finite -- a NaN or infinity
    shows in one of them -- where a copy was fresh memory for a million scores, whose first touch cost more than
    the two passes)."""
    return tuple(s if isinstance(s, Tally) or _all_finite(s) else s[np.isfinite(s)] for s in scores)


def _all_finite(scores: np.ndarray) -> bool:
    return not scores.size or bool(np.isfinite(scores.min()) and np.isfinite(scores.max()))


def _cuts(scores: tuple, ordered: tuple) -> np.ndarray:
    """The thresholds tried for the ``scores`` (of D, of D'; ``ordered``: their finite ones sorted): the pooled
    scores' distinct values, or past :data:`MAX_THRESHOLDS` of them, that many of their quantiles
    (``np.unique(np.quantile(pooled, ...))``), read off the sorted worlds (:mod:`pdp_audit.audits.blackbox.
    pooled_order`), or off the pooled scores as they are where they hold zeros of both signs."""
    probabilities = np.linspace(0, 1, MAX_THRESHOLDS)
    # the pooled scores have at least as many values as either world's: past MAX_THRESHOLDS, no need to list them
    many = max(_distinct(s) for s in ordered) > MAX_THRESHOLDS
    if mixed_zeros(ordered):
        pooled = np.concatenate(_finite(scores))
        if not many and (cuts := np.unique(pooled)).size <= MAX_THRESHOLDS:
            return cuts
        return np.unique(np.quantile(pooled, probabilities))
    if not many and (cuts := pooled_unique(ordered)).size <= MAX_THRESHOLDS:
        return cuts
    return np.unique(pooled_quantiles(ordered, probabilities))


#: A score of many values has its cuts chosen on at most this many of its first half's finite scores per world (the
#: first ones: draws like the others), then counted on all of them (:func:`_shortlist_counts`).
CUT_SAMPLE = 1 << 17


def _shortlist_counts(shortlist: tuple) -> tuple[tuple, np.ndarray]:
    """What the shortlist reads of its scores (of D, of D'), and its cuts: tallies as they are, and their values;
    scores of many values counted at cuts chosen on their first :data:`CUT_SAMPLE` finite ones per world
    (:func:`_cuts` of those: their pooled quantiles) by :class:`~pdp_audit.audits.blackbox.cut_counts.CutCounts`,
    where there are more of them (the sorts of a million scores per world that reading the cuts off all of them
    took were most of the choice's time on the benchmark's 1-D Laplace, issue 44); else all of them sorted, and
    :func:`_cuts` of all.

    Power: the cuts are quantiles of 2^18 pooled scores rather than of all (two million at the default budget): at
    the tail probability p their levels move by about √(1/(2^18·p)) relative (6% at p = 10⁻³), under the 24% between
    neighbouring cuts there, and every cut's counts are exact.  Measured 2026-11-26 on DP-Sniper's benchmark (α =
    1e-6): stopped at 8e6, SVT3 and SVT4 on seeds 0-2 and the other seven incorrect variants on seed 0 were refuted
    after the same releases with the same bounds; the whole budget on seed 0, SVT3, SVT4, SVT3‖SVT4 and Laplace at
    8e6 and the other sixteen at 2e6, no bound fell (twelve the same, eight up, SVT3‖SVT4 the most: 0.2094 to
    0.2136).  Validity is untouched: the cuts and counts are of the selection pass alone."""
    if isinstance(shortlist[0], Tally):
        return shortlist, np.unique(np.concatenate([t.values for t in shortlist]))
    finite = _finite(shortlist)
    if any(s.size > CUT_SAMPLE for s in finite):
        sample = _finite_sorted(tuple(s[:CUT_SAMPLE] for s in finite))
        if max(_distinct(s) for s in sample) > MAX_THRESHOLDS:  # _cuts takes quantiles: count at them
            cuts = _cuts(sample, sample)
            return tuple(CutCounts.of(s, cuts) for s in finite), cuts
    ordered = _finite_sorted(finite)
    return ordered, _cuts(finite, ordered)


def _predicted(counts, sizes, fresh, delta: float, a: float, level: float = PREDICTION_LEVEL, rates=None) -> np.ndarray:
    """The bound at level ``a`` that events with validation ``counts`` = (favoured, other) of ``sizes`` predict at
    ``fresh`` = (favoured, other) Poisson means of the bounding draws: the rates read cautiously (``level``,
    :data:`PREDICTION_LEVEL`; a small event seen 3 times in one world and never in the other must not predict an
    infinite ratio), 0 below :data:`MIN_EVENT_HITS`.  ``rates``: :func:`_read_rates` of the same, where known."""
    lo, hi = _read_rates(counts, sizes, level) if rates is None else rates
    bound = ratio_epsilon(lo * fresh[0], hi * fresh[1], fresh[0], fresh[1], delta, a)
    return np.where(counts[0] >= MIN_EVENT_HITS, bound, 0.0)


def choose_events(shortlist: tuple, choice: tuple, fresh: tuple[float, float], delta: float, judge=None) -> EventChoice:
    """For each level α of :data:`TUNED_AT`, a threshold event of the score: the :data:`SHORTLIST` events (each
    direction) that predict the largest bound at α/K on the ``shortlist`` scores (of D, of D') read cautiously
    (:data:`PREDICTION_LEVEL`), then among them the one that predicts the largest on the ``choice`` scores read as
    they are (:data:`CHOICE_LEVEL`); duplicates merged.  The chosen events' predicted bounds (their merit, by which
    the statistics are ranked) are read on the ``judge`` scores one standard error down when a judge is given
    (draws apart from the choice: :data:`JUDGE_LEVEL`), else on the ``choice`` scores cautiously (the best of a few
    noisy readings is not taken at its luck).  ``fresh`` = (λ, μ): the Poisson means of the fresh draws the
    prediction is for.  Each set of scores may be a :class:`~pdp_audit.audits.blackbox.tallies.Tally` of at most
    :data:`MAX_THRESHOLDS` values (:func:`_candidate_choice`), read for the same counts and cuts."""
    short_ordered, cuts = _shortlist_counts(shortlist)
    if not any(s.size for s in short_ordered):
        return EventChoice((), ())
    # with a judge apart, its point estimates are unbiased for the chosen events; without, the choice's readings are
    # of the events it maximised over, and are read cautiously
    judge, merit_level = (choice, PREDICTION_LEVEL) if judge is None else (judge, JUDGE_LEVEL)
    finite_choice = _CountsAt(_finite(choice))
    finite_judge = finite_choice if judge is choice else _CountsAt(_finite(judge))
    draws = {True: fresh, False: fresh[::-1]}
    counts = {way: _event_counts(short_ordered, cuts, way) for way in (True, False)}
    # the shortlist's predictions by (direction, level): their rates the same at every α (Beta quantiles are slow)
    readings: dict = {}

    def on_shortlist(way: bool, level: float, a: float) -> tuple[np.ndarray, float]:
        if (way, level) not in readings:
            readings[way, level] = _Predictions(counts[way], _sizes(shortlist, way), draws[way], delta, level)
        return readings[way, level].top(a, SHORTLIST)

    events: list[Event] = []
    predicted: list[float] = []
    for alpha in TUNED_AT:
        a = alpha / len(TUNED_AT)
        best, best_event = -1.0, None  # every prediction is at least 0: one event is kept
        # where no event predicts a positive bound read cautiously (a ratio near 1: parallel Laplace), the rates
        # are read as they are, so that the events are still the likeliest to bound ε
        level = PREDICTION_LEVEL
        cautious = {way: on_shortlist(way, level, a) for way in draws}
        if not any(cautious[w][1] > 0 for w in draws):
            level = 0.5
        for way in (True, False):
            on_a = cautious[way] if level == PREDICTION_LEVEL else on_shortlist(way, level, a)
            short = cuts[on_a[0]]
            on_b = _predicted(finite_choice.counts(short, way), _sizes(choice, way), draws[way], delta, a, CHOICE_LEVEL)
            i = int(np.argmax(on_b))
            if on_b[i] > best:
                best, best_event = float(on_b[i]), Event(float(short[i]), way)
        assert best_event is not None
        counts_j = finite_judge.counts(np.array([best_event.threshold]), best_event.favours_d)
        way = best_event.favours_d
        merit = _predicted(counts_j, _sizes(judge, way), draws[way], delta, a, merit_level)
        predicted.append(float(merit[0]))
        if best_event not in events:
            events.append(best_event)
    return EventChoice(tuple(events), tuple(predicted))


class _Predictions:
    """The predicted bounds (:func:`_predicted`) of one direction's events at the cuts, from their validation
    ``counts`` = (favoured, other) of ``sizes``, read at ``level`` for ``fresh`` draws: each cut's two rates read
    once, for every α (Beta quantiles are slow)."""

    def __init__(self, counts, sizes, fresh, delta: float, level: float):
        self.counts, self.sizes, self.fresh, self.delta, self.level = counts, sizes, fresh, delta, level
        self.rates = _read_rates(counts, sizes, level)

    def top(self, a: float, k: int) -> tuple[np.ndarray, float]:
        """The indices of the ``k`` largest predictions at level ``a`` (ties by index) and the largest prediction."""
        values = _predicted(self.counts, self.sizes, self.fresh, self.delta, a, self.level, self.rates)
        return np.argsort(-values, kind="stable")[:k], float(values.max(initial=0.0))


def _sizes(scores: tuple, favours_d: bool) -> tuple[int, int]:
    """(releases of the favoured world, of the other) among ``scores`` = (of D, of D')."""
    return (len(scores[0]), len(scores[1])) if favours_d else (len(scores[1]), len(scores[0]))


def candidate_scores(fit_d: np.ndarray, fit_dp: np.ndarray, learners: dict, ordered_by: Callable | None = None) -> dict:
    """The statistics the event test chooses among, fitted on the fitting part of the training split: the
    ``learners`` (name → fit(releases of D, releases of D') → score; :mod:`pdp_audit.audits.blackbox.attack` passes its
    logistic test and trees) on its first :data:`LEARNER_TRIALS` releases per world, the outcome score (discrete
    outputs only) and the per-column histogram scores (of the columns, and of their first differences when there
    are several, and pooled over the columns: :class:`~pdp_audit.audits.blackbox.features.PooledHistogramScore`).
    ``ordered_by``: what sorts the pooled columns (default :func:`~pdp_audit.audits.blackbox.features.pooled_sorted`;
    a staged run's merges the earlier stage's sorted columns)."""
    few_d, few_dp = fit_d[:LEARNER_TRIALS], fit_dp[:LEARNER_TRIALS]  # the learners' time grows with their data
    found = {name: fit(few_d, few_dp) for name, fit in learners.items()}
    ordered = (ordered_by or pooled_sorted)(fit_d, fit_dp)  # one sort a column for the histograms and the outcomes
    found["histograms"] = HistogramScore.fit(fit_d, fit_dp, ordered=ordered)
    if fit_d.shape[1] > 1:
        found["increments"] = HistogramScore.fit(fit_d, fit_dp, differences=True)
        found["pooled"] = PooledHistogramScore.fit(fit_d, fit_dp, ordered)
    outcomes = OutcomeScore.fit(fit_d, fit_dp, ordered)
    if outcomes is not None:
        found["outcomes"] = OutcomeIndex(outcomes)  # ranked again on the selection's first half
    return found


def _halves(scores: tuple[np.ndarray, np.ndarray]) -> tuple[tuple, tuple]:
    """(first halves, second halves) of the scores (of D, of D')."""
    d, dp = scores
    return (d[: len(d) // 2], dp[: len(dp) // 2]), (d[len(d) // 2 :], dp[len(dp) // 2 :])


def _candidate_choice(selection: tuple, c: int, candidate, fresh, delta: float):
    """Candidate ``c``'s events and merit, and the frozen score they are events of: (choice, score).

    A score of many values: events shortlisted on the first half of the selection pass, chosen and judged on the
    second (:func:`choose_events`).  A score of at most :data:`DISCRETE_VALUES` values (a discrete output), or an
    outcome ranking (:class:`~pdp_audit.audits.blackbox.features.OutcomeIndex`, refitted on the first half: the
    training split alone is too small to rank rare outcomes -- SVT1's best outcome, P ≈ 0.024 at a ratio e^0.088,
    ranks below the next, e^0.070, about one time in three there): its few events are all read and chosen on the
    first half, at their point estimates, and judged on the second, so that the merit by which the statistics
    are ranked is not the luckiest reading of the events it chose among.  ``selection``: per world, the candidates'
    scores (releases × candidates) or :class:`~pdp_audit.audits.blackbox.tallies.SelectionColumns`, where a step
    function's halves are its intervals' counts, read as tallies of its values (the same events and merits)."""
    scores = tuple(s.column(c) if isinstance(s, SelectionColumns) else s[:, c] for s in selection)
    steps = selection[0].steps[c] if isinstance(selection[0], SelectionColumns) else None
    if steps is not None:
        first, second = steps.tallies(tuple(zip(*scores)))  # (first, second) halves, each (of D, of D')
        if distinct_values(first + second) > DISCRETE_VALUES:
            return choose_events(first, second, fresh, delta), candidate
        return choose_events(first, first, fresh, delta, judge=second), candidate
    first, second = _halves(scores)
    if isinstance(candidate, OutcomeIndex):
        candidate = candidate.score.refitted(*first)
        first, second = ((candidate.of_index(x[0]), candidate.of_index(x[1])) for x in (first, second))
    elif not _is_discrete(scores):
        return choose_events(first, second, fresh, delta), candidate
    return choose_events(first, first, fresh, delta, judge=second), candidate


def _is_discrete(scores: tuple[np.ndarray, np.ndarray]) -> bool:
    """At most :data:`DISCRETE_VALUES` distinct scores (checked on a few first)."""
    d, dp = scores
    if np.unique(np.concatenate([d[:4096], dp[:4096]])).size > DISCRETE_VALUES:
        return False
    return np.unique(np.concatenate([d, dp])).size <= DISCRETE_VALUES


def select_events(selection: tuple, candidates: dict, fresh, delta: float):
    """The statistic and events of the event test (module docstring), chosen on the ``selection`` scores: for each
    world, the ``candidates``' (name → score) scores on releases drawn apart from the training and the bounding ones,
    an array (releases, candidates) or :class:`~pdp_audit.audits.blackbox.tallies.SelectionColumns` (a step
    function's intervals counted in each half, :attr:`CandidateScores.steps`); the first half of each shortlists
    events, the second chooses among them (:func:`choose_events`; a discrete score's or an outcome ranking's:
    :func:`_candidate_choice`).  Returns (the name of the statistic kept, the frozen score the fresh releases are
    counted with, its events, the predicted bounds by name)."""
    chosen = [
        _candidate_choice(selection, c, candidate, fresh, delta) for c, candidate in enumerate(candidates.values())
    ]
    choices, frozen = [choice for choice, _ in chosen], [score for _, score in chosen]
    names = tuple(candidates)
    best = max(range(len(names)), key=lambda c: choices[c].merit)  # the first listed on a tie
    return names[best], frozen[best], choices[best].events, {name: c.predicted for name, c in zip(names, choices)}
