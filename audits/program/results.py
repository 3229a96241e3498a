"""The program analysis's results, each frozen and made by one stage (docs/development.md): the draw sets the
neighbours were replayed on (:class:`DrawSet`), each pair's claim-free reading (:class:`PairReading`), its judgement
against the claim (:class:`PairResult`), and the analysis as a whole (:class:`Analysis`)."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from pdp_audit.audits.program import accounting, comparison, exact_shifts, lattice_noise, same_map, step_laws, trace
from pdp_audit.audits.program.events import LibraryCall, Located
from pdp_audit.audits.program.findings import (
    CarriedAbove,
    CoefficientMoved,
    Finding,
    Rescaled,
    Unaccounted,
    Unshifted,
    rank,
)
from pdp_audit.audits.program.fresh_process import Elsewhere
from pdp_audit.audits.program.neighbours import Neighbour, non_finite
from pdp_audit.audits.program.sources import replayable


@dataclass(frozen=True)
class Against:
    """A pair's compositions against the claim's δ, compared once, by :func:`.judgement.against` (every other stage
    reads these): the lower composition's proven low end above δ (:func:`.accounting.exceeds`), the upper one's high
    end above δ, and the upper one undecided by the rounding of its readings alone (a pure one within it, or a
    Gaussian one certified at the read μ but not at its proven top: :func:`.judgement.read_exactly` reads it again)."""

    lower_above: bool = False
    upper_above: bool = False
    within_readings: bool = False


@dataclass(frozen=True)
class PairResult:
    """One neighbour's outcome: its typed ``findings`` (:mod:`.findings`), the compositions of its steps (``lower``:
    the carried steps', ``upper``: all known steps'), how they lie against the claim's δ (``against``) and where it
    was read (``drawn``).  Made once, by :func:`.judgement.judge` of a :class:`PairReading` (a further reading makes
    a new one); its rank (:func:`.findings.rank`) orders the pairs, worst last."""

    neighbour: Neighbour
    comparison: comparison.Comparison
    #: the draw set the pair was replayed on: its index (0: the first), its record on D and its probe
    drawn: DrawSet = field(repr=False)
    findings: tuple[Finding, ...] = ()
    lower: accounting.Composed | None = None
    upper: accounting.Composed | None = None
    steps: list[step_laws.Step] = field(default_factory=list)
    #: the steps of the noise the release carries (the lower composition's)
    carried: list[step_laws.Step] = field(default_factory=list)
    #: the elements whose lower step is composed but not yet shown carried where the lower composition exceeds the
    #: claim (:mod:`.carried_events`: their ranges are read, and the pair judged anew)
    unshown: tuple[int, ...] = ()
    #: the share of the draw sets the pair was replayed on whose outcome has a finding of its rank's kind
    #: (:func:`.analysis._worst_outcome`; 1 where it was replayed on one)
    recurrence: float = 1.0
    against: Against = Against()

    @property
    def rank(self) -> tuple[int, float]:
        """The pair's rank (:func:`.findings.rank`): its most severe finding's kind, then its magnitude."""
        return rank(self.findings)

    @property
    def order(self) -> tuple[int, float, float]:
        """The pair's place as a witness: its rank's kind, then :attr:`recurrence`, then its magnitude.  A finding
        seen on every draw set comes from the data whatever the noise drew; one seen on some only follows the noise's
        values (a branch on a noisy count, a post-processing of noisy answers), which a correct program shows too --
        the black box confirms the first kind of pair first (dpmm's domain read from the data, against a sampling
        step whose path follows the noisy marginals)."""
        kind, magnitude = self.rank
        return (kind, self.recurrence, magnitude)

    @property
    def structural(self) -> list[Finding]:
        """The findings of the structure check, in the order found."""
        return [f for f in self.findings if f.check == "structure"]

    @property
    def unaccounted(self) -> list[Unaccounted]:
        """The noise the composition cannot account for on the pair."""
        return [f for f in self.findings if isinstance(f, Unaccounted)]

    @property
    def scale_moves(self) -> list[str]:
        """Released noise whose scale differs between D and D′ (a rescaled call the release carries, a coefficient
        that moved), in words: a pure claim is refuted by the first exactly (:class:`Rescaled`); the second is a
        finding the black box confirms (on a smaller pair, where a scale from the data moves most)."""
        return [move for f in self.findings if isinstance(f, (Rescaled, CoefficientMoved)) for move in f.moves]

    @property
    def refuted(self) -> bool:
        """Whether the composition of the noise the release carries refutes the claim on the pair."""
        return any(isinstance(f, CarriedAbove) for f in self.findings)


@dataclass(frozen=True)
class DrawSet:
    """One set of draws: its index, the generator's seed, the record on D and its probe."""

    index: int
    seed: int
    recorded: trace.Run
    probe: trace.Probe

    @functools.cached_property
    def signatures(self) -> list[str]:
        """Its calls' signatures on D, made once (each further draw set's record is compared with them)."""
        return [c.signature() for c in self.recorded.calls]

    @functools.cached_property
    def shared(self) -> exact_shifts.Shared:
        """What every pair's exact reading on it shares (:class:`.exact_shifts.Shared`: D's replay with the noise at 0
        among it), made once: D is not a neighbour's to change."""
        return exact_shifts.Shared.of(self.recorded, self.probe)

    @functools.cached_property
    def line(self) -> same_map.Line:
        """D's release along the noise's range (:class:`.same_map.Line`), read once on the draw set's first pair that
        is checked: every pair's check of its map compares with it."""
        return same_map.Line.of(self.recorded, self.probe)


@dataclass(frozen=True)
class Analysis:
    """The record on D and its probe (of the first draw set; ``draw_sets``: every draw set's), every pair's result,
    and the time the program's own run took."""

    recorded: trace.Run
    probe: trace.Probe
    pairs: list[PairResult]
    run_seconds: float
    analysis_seconds: float
    #: the draw sets replayed on every neighbour (the first, and those that took another path, at most
    #: :data:`.analysis.MOST_PATHS`); ``recorded_sets`` the draw sets recorded on D in all
    draw_sets: list[DrawSet]
    records: int = 0
    recorded_sets: int = 1
    #: further draw sets that took a path of their own past :data:`.analysis.MOST_PATHS`: recorded on D and replayed on
    #: the sentinels only
    unreplayed: int = 0
    #: D's record replayed in a fresh process (:mod:`.fresh_process`; None: not yet, made only where the exact checks
    #: would otherwise certify)
    elsewhere: Elsewhere | None = None

    @property
    def reproducible(self) -> bool:
        """Every draw set's record replays on D to its release, no neighbour's replay drew randomness the audit
        cannot replay (the program may draw it on D′ alone), and D's record gives its release in a fresh process
        where it was replayed there."""
        recorded = all(d.probe.reproducible for d in self.draw_sets)
        replays = [p.comparison.replayed for p in self.pairs]
        drawn = all(replayable(run.unrecorded) for run in replays if run is not None)
        return recorded and drawn and (self.elsewhere is None or self.elsewhere.same)

    def unshifted(self) -> Unshifted | None:
        """The calls whose draws the probe cannot shift nor the composition account (:func:`_blind`), where some
        release coordinate is moved by no draw it shifts (:class:`.findings.Unshifted`); None where every coordinate
        carries shiftable noise or no such call is made."""
        free = [d for d in self.draw_sets if (d.probe.carrier == -1).any()]
        blind = {c.signature() for d in free for c in d.recorded.calls if _blind(c) or lattice_noise.held(c, d.probe)}
        calls = sorted(blind)
        return Unshifted(tuple(calls)) if calls else None

    def seen_by(self, pair: PairResult | None) -> Analysis:
        """The analysis read on ``pair``'s draw set: its record on D and its probe."""
        if pair is None or pair.drawn.recorded is self.recorded:
            return self
        return dataclasses.replace(self, recorded=pair.drawn.recorded, probe=pair.drawn.probe)

    def worst(self, confirmable: bool = False) -> PairResult | None:
        """The pair of highest order (:attr:`PairResult.order`; ``confirmable``: among those the program runs on, a
        black box's witness); among pairs the composition refutes, one whose record is finite before one of NaN or
        ±inf -- a finite outlier shows a reviewer the data-dependent scale directly, where "+inf added" reads as an
        input-validation bug."""
        pairs = [p for p in self.pairs if not confirmable or p.comparison.fault is None]
        return max(pairs, key=_reading_order) if pairs else None


def _blind(call: Any) -> bool:
    """A numpy draw that is no location family (the probe shifts those) and has no law here (``choice`` has one,
    diffprivlib's and OpenDP's calls their declared budgets and privacy maps)."""
    return call.law is None and not isinstance(call, (Located, LibraryCall))


def _reading_order(p: PairResult) -> tuple:
    return (p.refuted, p.refuted and not non_finite(p.neighbour.name), p.order)


@dataclass(frozen=True)
class PairReading:
    """A neighbour's pair as read on a draw set, free of the claim's δ (nothing in it is compared with a claim): its
    comparison (:func:`.comparison.compare` and the readings made past it, each a new comparison) and the draw set.
    :func:`.judgement.judge` makes its :class:`PairResult`."""

    neighbour: Neighbour
    comparison: comparison.Comparison
    drawn: DrawSet
