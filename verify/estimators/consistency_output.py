"""Loss-consistency of a user's pair on events of the release: the identities of
:mod:`pdp_audit.verify.estimators.consistency_events`, tested with bounded summands, streamed with bounded memory.

Every event E -- a cell A ∩ {L > 0} or A ∩ {L ≤ 0} of a family of bins, or a tail {L > t} (t ≥ 0) or
{L ≤ t} (t ≤ 0) of the loss bins (a union of cells: against a loss of the wrong scale, whose errors on
neighbouring bins add up) -- compares the frequency of E ⊂ {L > 0} under D' (E ⊂ {L ≤ 0}: under D) with the mean
of e^{−|L|}1{o ∈ E} under the other world; both are means of summands in [0, 1].  The frequency gets an exact
Clopper–Pearson interval at level 1 − a.  The weighted mean, whose summands lie in [0, w_hi] with w_lo ≤ e^{−|L|}
≤ w_hi on E (on a bin (lo, hi] ⊂ (0, ∞) of L, [e^{−hi}, e^{−lo}]; [0, 1] on a cell of another family), gets the
intersection of two intervals at level 1 − a/2 each: the empirical Bernstein interval of Maurer & Pontil (2009,
Thm 4) for the summands divided by w_hi (in [0, 1]), scaled back, and [w_lo·p_lo, w_hi·p_hi] for the exact
Clopper–Pearson interval [p_lo, p_hi] of the frequency of E in that world (tight on atoms and thin bins of L,
where the Bernstein term 7 log(8/a)/3n dominates).  Under the identity the frequency interval misses the common
value with probability ≤ a and the weighted one with probability ≤ a, so "the intervals are disjoint, or the
weighted one is empty" has probability ≤ 2a: the event's p-value is 2a* for the smallest such a (found for all
events at once by bisection in log a, rounded up).  The test's p-value is Bonferroni's over the events fixed by
the pilot (those that hold at least one pilot draw), so its false-alarm probability is at most its p-value
whatever the number of events; it joins the Holm family of the claim it guards.

The pilot is the first :func:`pdp_audit.verify.estimators.consistency.pilot_size` draws of each world, as in the test on
bins of L; only the draws after it are tested, all of them (the tally is streamed).  Memory: the pilot's losses,
at most :data:`pdp_audit.verify.estimators.consistency_events.RELEASE_PILOT_MAX` releases ×
:data:`pdp_audit.verify.estimators.consistency_events.COORDINATES_KEPT` coordinates per world, a block, and three
numbers
per cell -- whatever the number of draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators.consistency import WORLDS, pilot_size
from pdp_audit.verify.estimators.consistency_events import (
    RELEASE_PILOT_MAX,
    Bins,
    CoordinateBins,
    FloatBins,
    ScoreBins,
    kept_coordinates,
    loss_bins,
)
from pdp_audit.verify.estimators.engine import BLOCK_SIZE
from pdp_audit.verify.estimators.rare import BoundedMean
from pdp_audit.verify.estimators.stats import PVALUE_FLOOR, beta_isf, beta_ppf


@dataclass(frozen=True)
class EventComparison:
    """One event: ``count`` of ``n`` draws of ``frequency_world`` in it, against the mean of e^{−|L|}1{o ∈ E}
    on the other world (``weighted``; ``members`` of its draws in E, where the weight lies in ``weight_range``)."""

    event: str
    frequency_world: str
    count: int
    n: int
    weighted: BoundedMean
    members: int
    weight_range: tuple[float, float]
    p: float

    @property
    def frequency(self) -> float:
        return self.count / self.n if self.n else 0.0

    @property
    def frequencies(self) -> dict[str, float]:
        """The frequency of E in each world (the weighted world's from the ``members`` of its draws in E)."""
        other = "D'" if self.frequency_world == "D" else "D"
        members = self.members / self.weighted.n if self.weighted.n else 0.0
        return {self.frequency_world: self.frequency, other: members}

    def pvalue(self) -> float:
        return self.p


def _difference(b: EventComparison) -> float:
    """|P_D(E) − P_D'(E)| of an event's draws."""
    return abs(b.frequencies["D"] - b.frequencies["D'"])


@dataclass(frozen=True)
class EventConsistency:
    """The events' comparisons; :attr:`pvalue` of "L is the privacy loss of the sampler" (Bonferroni over
    ``tested`` events, fixed by the pilot)."""

    bins: tuple[EventComparison, ...]
    tested: int
    families: tuple[tuple[str, int], ...]
    noun = "events"

    @property
    def pvalue(self) -> float:
        if not self.bins:
            return 1.0
        return min(1.0, self.tested * min(b.p for b in self.bins))

    @property
    def worst(self) -> EventComparison | None:
        """The event of the smallest p-value; among events tied there (at the p-value floor, say), one never seen in
        one world if there is one, then the one whose frequencies differ most between the worlds: the clearest
        witness."""
        if not self.bins:
            return None
        return min(self.bins, key=lambda b: (b.p, min(b.frequencies.values()) > 0, -_difference(b)))

    def witness_at(self, level: float | None = None) -> EventComparison | None:
        """The event a report names at ``level`` (the level its test is read at; None: :attr:`worst`): among the
        events that refute on their own there (Bonferroni, ``tested`` × p ≤ ``level``), one seen in one world and
        never in the other -- of the largest frequency -- before any of two non-zero frequencies: such an event E
        bounds δ(ε) ≥ P(E) − e^ε·0 at every ε by its count alone where the other world cannot reach it (an atom, a
        float structure one world's doubles never have: Mironov, CCS 2012), whatever the loss says; else the
        :attr:`worst`."""
        worst = self.worst
        if worst is None or level is None:
            return worst
        one_sided = [b for b in self.bins if self.tested * b.p <= level and _one_sided(b)]
        if not one_sided:
            return worst
        return min(one_sided, key=lambda b: (-max(b.frequencies.values()), b.p))

    def describe(self, level: float | None = None) -> str:
        """The event named at ``level`` (:meth:`witness_at`) in words: which probability, its two estimates and
        their ratio, its frequency in each world."""
        b = self.witness_at(level)
        if b is None:
            return "no event had draws"
        other = "D'" if b.frequency_world == "D" else "D"
        weight = "e^{L}" if b.frequency_world == "D" else "e^{−L}"
        ratio = b.weighted.estimate / b.frequency if b.frequency > 0 else math.inf
        in_d, in_dp = (b.frequencies[w] for w in WORLDS)
        return (
            f"E = {{{b.event}}}, P_{b.frequency_world}(E) = {b.frequency:.4g} sampled against "
            f"E_{other}[{weight}·1_E] = {b.weighted.estimate:.4g} (ratio {ratio:.4g}; E's frequencies "
            f"{in_d:.4g} under D and {in_dp:.4g} under D')"
        )

    def witness(self, level: float | None = None) -> dict | None:
        """The event named at ``level`` (:meth:`witness_at`) and its frequency in each world (a report's
        ``details["witness"]``)."""
        b = self.witness_at(level)
        if b is None:
            return None
        seen = b.frequencies
        return {"event": b.event, "P_D": float(seen["D"]), "P_D'": float(seen["D'"]), "p": float(b.p)}


def _one_sided(b: EventComparison) -> bool:
    """Whether the event was seen in one world and never in the other."""
    seen = b.frequencies.values()
    return min(seen) == 0 < max(seen)


@dataclass(frozen=True)
class _Event:
    """A tested event: its text, the range of e^{−|L|} on it, its side (1: ⊂ {L > 0}) and the tallied cells
    (family bins on that side) whose union it is."""

    text: str
    weight_range: tuple[float, float]
    side: int
    cells: np.ndarray


class _Events:
    """The event families fixed by the pilot: the cell of each draw in each family (2·bin + 1{L > 0}, offset
    per family), and the events tested -- each cell, the tails {L > t} and {L ≤ −t} of the loss bins
    (unions of cells: against a loss of the wrong scale, whose errors on neighbouring bins add up) and, with
    ``float_structure``, the cells and tails of the float bins (:class:`FloatBins`)."""

    def __init__(
        self,
        pilot: dict[str, tuple[np.ndarray, np.ndarray]],
        pilot_losses: np.ndarray,
        epsilon,
        float_structure: bool = False,
    ):
        self.loss = loss_bins(pilot_losses, epsilon)
        self.families: list[tuple[str, Bins]] = [("L", self.loss)]
        self.coordinates = self.score = self.floats = None
        if pilot["D"][0].shape[1] > 0:
            self.coordinates = CoordinateBins(pilot["D"][0], pilot["D'"][0])
            self.score = ScoreBins(pilot)
            self.families += [(f"o[{j}]", b) for j, b in zip(self.coordinates.columns, self.coordinates.bins)]
            self.families += [("s(o)", self.score.bins)]
            if float_structure:
                self.floats = FloatBins(pilot["D"][0], pilot["D'"][0])
                self.families += [(f.name, b) for f, b in zip(self.floats.features, self.floats.bins)]
        self.offsets = np.concatenate([[0], np.cumsum([2 * b.size for _, b in self.families])])

    @property
    def total(self) -> int:
        return int(self.offsets[-1])

    @property
    def sizes(self) -> tuple[tuple[str, int], ...]:
        return tuple((name, b.size) for name, b in self.families)

    def index(self, coordinates: np.ndarray, losses: np.ndarray) -> np.ndarray:
        """(rows, families): the cell of each draw in each family."""
        labels = [self.loss.labels(losses)]
        if self.coordinates is not None and self.score is not None:  # made together
            labels += [*self.coordinates.labels(coordinates).T, self.score.labels(coordinates, losses)]
        if self.floats is not None:
            labels += [*self.floats.labels(coordinates).T]
        side = (losses > 0).astype(np.int64)
        return np.column_stack([self.offsets[f] + 2 * label + side for f, label in enumerate(labels)])

    def events(self) -> list[_Event]:
        """Every cell, then the loss tails of more than one bin, then the float bins' tails."""
        out = []
        float_features = [] if self.floats is None else self.floats.features
        first_float = len(self.families) - len(float_features)
        for f, (name, bins) in enumerate(self.families):
            for label in range(bins.size):
                lo, hi = bins.bounds(label)
                where = f"= {hi:.6g}" if lo == np.nextafter(hi, -np.inf) else f"∈ ({lo:.4g}, {hi:.4g}]"
                for side in (0, 1):
                    cell = np.array([self.offsets[f] + 2 * label + side])
                    if f == 0 and (hi <= 0 if side else lo >= 0):
                        continue  # a bin of L on the other side of 0: the cell is empty
                    if f == 0:
                        weights = (math.exp(-hi), math.exp(-max(lo, 0.0))) if side else (math.exp(lo), math.exp(hi))
                        out.append(_Event(f"L {where}", _widened(weights), side, cell))
                    else:
                        sign = "L > 0" if side else "L ≤ 0"
                        if f >= first_float:
                            where = float_features[f - first_float].cell(lo, hi)
                            out.append(_Event(f"{where} and {sign}", (0.0, 1.0), side, cell))
                        else:
                            out.append(_Event(f"{name} {where} and {sign}", (0.0, 1.0), side, cell))
        bounds = [self.loss.bounds(label) for label in range(self.loss.size)]
        positive = [label for label, (lo, _) in enumerate(bounds) if lo >= 0]
        negative = [label for label, (_, hi) in enumerate(bounds) if hi <= 0]
        for label in positive[:-1]:
            lo = bounds[label][0]
            cells = 2 * np.arange(label, self.loss.size) + 1
            out.append(_Event(f"L > {lo:.4g}", _widened((0.0, math.exp(-lo))), 1, cells))
        for label in negative[1:]:
            hi = bounds[label][1]
            out.append(_Event(f"L ≤ {hi:.4g}", _widened((0.0, math.exp(hi))), 0, 2 * np.arange(label + 1)))
        return out + self._float_tails(first_float)

    def _float_tails(self, first_float: int) -> list[_Event]:
        """{x ≤ t} and {x > t} on each side of L = 0 for each ordered float feature x and inner edge t of its bins
        (a world finer than the other -- every value below t -- is one event, however its values spread)."""
        out = []
        float_features = [] if self.floats is None else self.floats.features
        for f in range(first_float, len(self.families)):
            feature, bins = float_features[f - first_float], self.families[f][1]
            if not feature.ordered:
                continue
            for i in range(1, bins.size - 2):
                t = float(bins.edges[i])
                for side, sign in ((0, "L ≤ 0"), (1, "L > 0")):
                    below = self.offsets[f] + 2 * np.arange(i + 1) + side
                    above = self.offsets[f] + 2 * np.arange(i + 1, bins.size) + side
                    text = f"{feature.name} ≤ {t:.0f}{feature.gloss(t)} and {sign}"
                    out.append(_Event(text, (0.0, 1.0), side, below))
                    out.append(_Event(f"{feature.name} > {t:.0f} and {sign}", (0.0, 1.0), side, above))
        return out


def _widened(weights: tuple[float, float]) -> tuple[float, float]:
    """A weight range widened by 1e-12 (relative) against the rounding of exp."""
    return weights[0] * (1 - 1e-12), min(1.0, weights[1] * (1 + 1e-12))


def _clopper_pearson(count: np.ndarray, n: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided intervals at level 1 − a, elementwise (a an array too): scipy's beta quantiles bit for bit,
    through their hooks (:func:`~pdp_audit.verify.estimators.stats.beta_ppf`; the wrapper's checks were most of the
    reading of a pass in looks after each look, 700 calls a pass in its bisection)."""
    with np.errstate(invalid="ignore"):
        lo = np.where(count > 0, beta_ppf(a / 2, np.maximum(count, 1), n - count + 1), 0.0)
        hi = np.where(count < n, beta_isf(a / 2, count + 1, np.maximum(n - count, 1)), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def _separation(a, freq, weighted) -> np.ndarray:
    """How far apart the intervals at level 1 − a are (> 0: disjoint, or the weighted interval empty)."""
    count, n = freq
    members, total, squares, n_w, w_lo, w_hi = weighted
    f_lo, f_hi = _clopper_pearson(count, n, a)
    mean = total / n_w
    variance = np.maximum((squares - n_w * mean**2) / np.maximum(n_w - 1, 1), 0.0)
    log_term = np.log(8 / a)  # Maurer–Pontil at a/4 on each side: two-sided at a/2
    # Maurer–Pontil on the summands divided by their bound w_hi (in [0, 1]), scaled back
    radius = np.sqrt(2 * variance * log_term / n_w) + w_hi * 7 * log_term / (3 * np.maximum(n_w - 1, 1))
    p_lo, p_hi = _clopper_pearson(members, n_w, a / 2)
    lo = np.maximum(np.maximum(mean - radius, 0.0), w_lo * p_lo)
    hi = np.minimum(np.minimum(mean + radius, w_hi), w_hi * p_hi)
    return np.maximum.reduce([f_lo - hi, lo - f_hi, lo - hi])


def event_pvalues(freq, weighted, screen: float | None = None) -> np.ndarray:
    """2a*, a* the smallest a at which :func:`_separation` is positive, for every event (bisection in log a;
    the a returned is on the disjoint side, so the p-value is conservative).

    ``screen``: a level a below which the caller reads no p-value.  Where no event's intervals are disjoint at a
    (one evaluation instead of the bisection's fifty), every a* exceeds it (the separation grows with a) and so does
    every 2a*, at least twice it: each p-value is returned as 1, a placeholder on the same side of every level up to
    2a (a stopped pass reads its looks so, :func:`pdp_audit.verify.evidence.pair_checks._sequential_checks`)."""
    size = np.asarray(freq[0]).size
    if screen is not None and (screen <= 0 or not np.any(_separation(np.full(size, screen), freq, weighted) > 0)):
        return np.ones(size)
    lo, hi = np.full(size, math.log(PVALUE_FLOOR)), np.full(size, math.log(0.5 - 1e-12))
    never = _separation(np.exp(hi), freq, weighted) <= 0
    floor = _separation(np.exp(lo), freq, weighted) > 0
    pvalues = np.where(never, 1.0, 2 * PVALUE_FLOOR)
    # the bisection runs on the events whose p-value neither end decides (a consistent pair's are mostly decided at
    # a = 1/2: 93% of the contract suite's); each event's steps are its own, elementwise, so the bits are the same
    undecided = ~never & ~floor
    if undecided.any():
        freq, weighted = (tuple(np.broadcast_to(x, (size,))[undecided] for x in part) for part in (freq, weighted))
        lo, hi = lo[undecided], hi[undecided]
        for _ in range(48):
            mid = (lo + hi) / 2
            disjoint = _separation(np.exp(mid), freq, weighted) > 0
            hi, lo = np.where(disjoint, mid, hi), np.where(disjoint, lo, mid)
        pvalues[undecided] = np.minimum(1.0, 2 * np.exp(hi))
    return pvalues


class StreamedEventConsistency:
    """The test of the module notes on draws fed a block at a time (losses and the releases they are the losses
    of), in draw order per world; the worlds interleaved (a world's draws past its pilot wait until both pilots
    are complete).  The result is the same for any cut of the draws into blocks of
    :data:`pdp_audit.verify.estimators.engine.BLOCK_SIZE` aligned to the first draw.  ``epsilon``: the claimed ε (bins
    of L
    are cut at ±ε), or None; ``float_structure``: the releases' bit structure is read too (:class:`FloatBins`:
    the program as implemented), else not (the real-valued law its sampler stands for)."""

    def __init__(self, n_d: int, n_dp: int, epsilon: float | None = None, float_structure: bool = False):
        self.pilot_sizes = {"D": pilot_size(n_d), "D'": pilot_size(n_dp)}
        self.epsilon, self.float_structure = epsilon, float_structure
        self.pilot_losses: dict[str, list[np.ndarray]] = {w: [] for w in WORLDS}
        self.pilot_releases: dict[str, list[np.ndarray]] = {w: [] for w in WORLDS}
        self.waiting: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {w: [] for w in WORLDS}
        self.seen = dict.fromkeys(WORLDS, 0)
        self.events: _Events | None = None
        self.tested: list[_Event] = []
        self.sums: dict[str, np.ndarray] = {}
        self.n = dict.fromkeys(WORLDS, 0)

    def add(self, world: str, losses: np.ndarray, releases: np.ndarray) -> None:
        losses, coordinates = np.asarray(losses, float), kept_coordinates(releases)
        start, self.seen[world] = self.seen[world], self.seen[world] + losses.size
        cut = int(np.clip(self.pilot_sizes[world] - start, 0, losses.size))
        if cut:
            self.pilot_losses[world].append(losses[:cut])
            room = max(0, RELEASE_PILOT_MAX - start)
            self.pilot_releases[world].append(coordinates[: min(cut, room)])
        if cut < losses.size:
            self.waiting[world].append((losses[cut:], coordinates[cut:]))
        if self.events is None and all(self.seen[w] >= self.pilot_sizes[w] for w in WORLDS):
            self._fix_events()
        if self.events is not None:
            for w in WORLDS:
                for block_losses, block_coordinates in self.waiting[w]:
                    self._tally(w, block_losses, block_coordinates)
                self.waiting[w] = []

    def _fix_events(self) -> None:
        losses = {w: np.concatenate(self.pilot_losses[w] or [np.empty(0)]) for w in WORLDS}
        pilot: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for w in WORLDS:
            kept = self.pilot_releases[w]
            coordinates = np.vstack(kept) if kept else np.empty((0, 0))
            pilot[w] = (coordinates, losses[w][: coordinates.shape[0]])
        if min(pilot[w][0].shape[0] for w in WORLDS) < 2:
            pilot = {w: (np.empty((pilot[w][1].size, 0)), pilot[w][1]) for w in WORLDS}
        pooled = np.concatenate([losses[w] for w in WORLDS])
        self.events = _Events(pilot, pooled, self.epsilon, self.float_structure)
        # the events tested: those the pilot reached (the loss bins on all pilot losses, the others on the
        # pilot releases kept)
        reached = np.zeros(self.events.total, dtype=bool)
        for w in WORLDS:
            reached[self.events.index(*pilot[w]).ravel()] = True
            reached[2 * self.events.loss.labels(losses[w]) + (losses[w] > 0)] = True
        self.tested = [e for e in self.events.events() if reached[e.cells].any()]
        self.sums = {w: np.zeros((3, self.events.total)) for w in WORLDS}
        self.pilot_losses = self.pilot_releases = {w: [] for w in WORLDS}

    def _tally(self, world: str, losses: np.ndarray, coordinates: np.ndarray) -> None:
        """Count of draws, sum and sum of squares of e^{−|L|} per event (bincount: the same order every run)."""
        events = self.events
        assert events is not None  # tallied once the pilot has fixed them (add)
        index = events.index(coordinates, losses)
        weights = np.exp(-np.abs(losses))
        flat = index.ravel()
        repeated = np.repeat(weights, index.shape[1])
        total = events.total
        self.sums[world][0] += np.bincount(flat, minlength=total)
        self.sums[world][1] += np.bincount(flat, weights=repeated, minlength=total)
        self.sums[world][2] += np.bincount(flat, weights=repeated**2, minlength=total)
        self.n[world] += losses.size

    def result(self, screen: float | None = None) -> EventConsistency:
        """The test on the draws so far.  ``screen``: the largest p-value of the test its reader compares with any
        level; where the events show it cannot be reached, their p-values are placeholders of 1 and the test's is 1,
        on the same side of every level up to ``screen`` as the exact one (:func:`event_pvalues`: each event screened
        at a level just above screen / (2 · tested), so that the Bonferroni p-value exceeds ``screen``)."""
        if self.events is None:
            raise ValueError("fewer draws than the pilot needs")
        side = np.array([e.side for e in self.tested])  # 1: E ⊂ {L > 0}, frequency under D', weights under D
        sums = {w: np.array([self.sums[w][:, e.cells].sum(axis=1) for e in self.tested]).T for w in WORLDS}
        count = np.where(side == 1, sums["D'"][0], sums["D"][0])
        members, total, squares = (np.where(side == 1, sums["D"][k], sums["D'"][k]) for k in range(3))
        n_freq = np.where(side == 1, self.n["D'"], self.n["D"]).astype(float)
        n_w = np.where(side == 1, self.n["D"], self.n["D'"]).astype(float)
        w_lo, w_hi = (np.array([e.weight_range[k] for e in self.tested]) for k in (0, 1))
        if min(self.n.values()) < 2:
            pvalues = np.ones(side.size)
        else:
            level = None if screen is None else screen / (2 * max(1, len(self.tested))) * (1 + 1e-9)
            pvalues = event_pvalues((count, n_freq), (members, total, squares, n_w, w_lo, w_hi), level)
        comparisons = []
        for k, event in enumerate(self.tested):
            nw = int(n_w[k])
            mean = total[k] / nw if nw else 0.0
            variance = max((squares[k] - nw * mean**2) / (nw - 1), 0.0) if nw > 1 else 0.0
            comparisons.append(
                EventComparison(
                    event.text,
                    "D'" if event.side else "D",
                    int(count[k]),
                    int(n_freq[k]),
                    BoundedMean(nw, mean, variance, 1.0),
                    int(members[k]),
                    event.weight_range,
                    float(pvalues[k]),
                )
            )
        return EventConsistency(tuple(comparisons), len(self.tested), self.events.sizes)


def event_consistency(
    losses: dict[str, np.ndarray], releases: dict[str, np.ndarray], epsilon=None, float_structure: bool = False
):
    """The test of the module notes on draws in memory (``losses[world]``, ``releases[world]`` in draw order):
    the same numbers as :class:`StreamedEventConsistency` fed the draws' blocks."""
    test = StreamedEventConsistency(losses["D"].size, losses["D'"].size, epsilon, float_structure)
    for start in range(0, max(losses["D"].size, losses["D'"].size, 1), BLOCK_SIZE):
        for world in WORLDS:
            block = slice(start, start + BLOCK_SIZE)
            test.add(world, np.asarray(losses[world], float)[block], np.asarray(releases[world])[block])
    return test.result()
