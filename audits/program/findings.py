"""What the program audit finds on one neighbouring pair (D, D′): small frozen records, one type per kind of finding.

Each record holds its witness (the call, the coordinate, the values on D and on D′; the pair and its draw set are
those of the :class:`~pdp_audit.audits.program.results.PairResult` that holds it) and says its ``check``
(``structure``: the replay with D's draws; ``composition``: the exact composition of the recorded primitives),
whether it is ``exact`` (refutes the claim on its own: only :class:`CarriedAbove` and, for a pure claim, a verified
:class:`Rescaled`; every other finding needs the black box's confirmation on fresh releases, or leaves the claim
undecided), whether it is ``confirmable`` (the program runs on D′), and its ``line`` as a report shows it.

A pair's **rank** (:func:`rank`) orders the pairs for the witness and the search: the most severe kind first
(:data:`SEVERITY`), then the finding's magnitude (a δ(ε) bound), then nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Iterable, Sequence

from pdp_audit.audits.program.accounting import Composed


@dataclass(frozen=True)
class Finding:
    """A finding of the program audit on one pair (module notes)."""

    check: ClassVar[str] = "structure"
    #: the kind's place in :data:`SEVERITY`
    kind: ClassVar[str] = ""

    @property
    def exact(self) -> bool:
        """Whether the finding refutes the claim on its own (module notes)."""
        return False

    @property
    def confirmable(self) -> bool:
        """Whether the black box can confirm it on the pair's final release (the program runs on D′)."""
        return True

    @property
    def magnitude(self) -> float:
        """The finding's size within its kind: how far its values moved (its ``moved`` field, where it has one), or
        a δ(ε) bound; 0 where it has neither."""
        return getattr(self, "moved", 0.0)

    @property
    def line(self) -> str:
        """The finding in one line, as a report shows it."""
        raise NotImplementedError


@dataclass(frozen=True)
class Diverged(Finding):
    """The replay on D′ with D's draws makes another call than D's at call ``call``: the program's control flow
    depends on the data (a sparse vector's stopping time does so legitimately: a finding to confirm).  ``moved``:
    where the same primitive was called with other numeric parameters, how far they moved
    (:func:`~pdp_audit.audits.program.recorder.moved`, in [0, 1)): its magnitude, which orders the pairs for the
    witness only."""

    kind: ClassVar[str] = "diverged"
    call: int
    on_d: str
    on_d_prime: str
    moved: float = 0.0

    @property
    def line(self) -> str:
        return f"control flow diverges at call {self.call}: recorded {self.on_d}, on D′ {self.on_d_prime}"


@dataclass(frozen=True)
class Fault(Finding):
    """The program raises on D′ and runs on D: an observable difference, but no release the black box can sample."""

    kind: ClassVar[str] = "fault"
    message: str

    @property
    def confirmable(self) -> bool:
        return False

    @property
    def line(self) -> str:
        return f"on D′ {self.message} (it runs on D)"


@dataclass(frozen=True)
class Rescale:
    """Call ``call``'s scale: ``on_d`` recorded, ``on_d_prime`` on D′ (as the recorder writes them)."""

    call: int
    on_d: str
    on_d_prime: str


@dataclass(frozen=True)
class Rescaled(Finding):
    """Calls whose noise scale differs between D and D′ (the scale is read from the data); ``carried``: those whose
    noise a release coordinate carries affinely at the recorded draws; ``tails``: the largest lower bound on the
    release's δ(ε) of a carried call's tail partition verified by replay (:mod:`.carried_events`; 0: none shown).
    Lap(b) against Lap(b′ ≠ b) has log-likelihood ratio |x|(1/b − 1/b′) + log(b′/b), unbounded in x -- but the
    release carries it only where it carries the tails: a clamp after the noise (``clip(mean + η, 0, 1)``) folds
    them into point masses whose loss is bounded.  Exact for a pure claim (``pure``) only where the verified tail
    partition's δ(ε) is above 0: that partition is a post-processing of the release; else a finding for the black
    box to confirm."""

    kind: ClassVar[str] = "rescaled"
    calls: tuple[Rescale, ...]
    carried: tuple[int, ...]
    pure: bool
    tails: float = 0.0
    #: recorded draws the release does not reveal (:mod:`.conditioning`): the tail event is verified given them only
    secret: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.pure and bool(self.carried) and self.tails > 0 and not self.secret

    @property
    def magnitude(self) -> float:
        return self.tails

    @property
    def asks(self) -> bool:
        """Whether the carried calls' tails are to be read (:mod:`.carried_events`): a carried call, none shown yet
        (under any claim: their partition is the call's lower step)."""
        return bool(self.carried) and not self.tails > 0

    @property
    def line(self) -> str:
        first = self.calls[0]
        said = (
            f"the scale of a call depends on the data (call {first.call}: recorded {first.on_d}, on D′ "
            f"{first.on_d_prime})"
        )
        if self.pure and self.carried and self.tails > 0 and self.secret:
            said += f"; its tails are shown given draws the release does not reveal ({self.secret[0]}): not exact"
        elif self.pure and self.carried and not self.exact:
            said += "; its tails are not shown released as drawn (a clamp may end them): not exact"
        return said

    @property
    def moves(self) -> list[str]:
        """The released scales that moved (the carried calls rescaled), in words."""
        return [f"call {k} rescaled" for k in self.carried]


@dataclass(frozen=True)
class CoefficientMoved(Finding):
    """Noise elements whose coefficient in the release differs between D and D′ beyond the rounding bound, nonzero on
    both sides (:attr:`~.comparison.Comparison.coefficient_changed`): the noise weighted by the data -- or a
    post-processing whose pieces have other slopes, which the probe's local reading cannot tell apart.  A finding for
    the black box; exact only where the call's own scale moved, which :class:`Rescaled` holds."""

    kind: ClassVar[str] = "rescaled"
    elements: tuple[int, ...]

    @property
    def line(self) -> str:
        return f"the scale of {len(self.elements)} noise element(s) in the release depends on the data"

    @property
    def moves(self) -> list[str]:
        """The released scales that moved (each element's coefficient), in words."""
        return [f"noise element {j}'s coefficient in the release" for j in self.elements]


@dataclass(frozen=True)
class StructureDiffers(Finding):
    """The release's structure (its keys, shapes or strings) differs between D and D′ with the same draws."""

    kind: ClassVar[str] = "differs"

    @property
    def line(self) -> str:
        return "the release's structure (its keys, shapes or strings) differs with the same noise"


@dataclass(frozen=True)
class FreeDiffers(Finding):
    """Release coordinates that no probed draw moves differ between D and D′ with the same draws (``first``: the
    first, ``on_d``/``on_d_prime`` its values as a report writes them; ``free_of`` what they are free of)."""

    kind: ClassVar[str] = "differs"
    count: int
    first: int
    on_d: str
    on_d_prime: str
    free_of: str
    #: how far they moved (:func:`apart`): the order among such pairs, the black box's witness the furthest
    moved: float = 0.0

    @property
    def line(self) -> str:
        return (
            f"{self.count} release coordinate(s) {self.free_of} differ (first: coordinate {self.first}: "
            f"{self.on_d} on D, {self.on_d_prime} on D′)"
        )


def apart(on_d: Iterable[float], on_d_prime: Iterable[float]) -> float:
    """How far release coordinates moved between D and D′ with the same noise, in [0, 1]: m/(1 + m) for m the
    largest |b − a|/max(|a|, 1) over the coordinates, 1 where a finite coordinate became NaN or ±inf, 0 where none
    moved.  Not a privacy loss: an order among the pairs whose noise-free coordinates differ, so that the black box
    confirms first the pair a record moves most (an outlier, or a NaN its clipping passes); which pair it confirms
    never decides a verdict by itself."""
    largest = 0.0
    for a, b in zip(on_d, on_d_prime):
        x, y = float(a), float(b)
        if math.isfinite(x) and not math.isfinite(y):
            return 1.0
        change = abs(y - x) / max(abs(x), 1.0)
        largest = max(largest, change) if math.isfinite(change) else largest
    return largest / (1.0 + largest)


@dataclass(frozen=True)
class MapMoved(Finding):
    """The release on D′ is not D's map of the noise moved by the pair's shifts (:mod:`.same_map`): with the noise
    ``noise`` scales from its recorded draws on D and there less the shifts read on D′, the releases differ
    (``coordinate`` the first that does, −1 the structure or the path; ``count`` how many) -- R_D′(η) ≠ R_D(η + Δ̂):
    the post-processing moves with the data, or a shift is not what the release shows (a rounding read as affine),
    and no composition of the shifts read bounds the pair."""

    kind: ClassVar[str] = "differs"
    noise: float
    coordinate: int
    on_d: str
    on_d_prime: str
    count: int
    #: how far the pair's noisy values moved (:attr:`.comparison.Moved.moved`): the order among such pairs
    moved: float = 0.0

    @property
    def line(self) -> str:
        where = "the release's structure or path" if self.coordinate < 0 else f"coordinate {self.coordinate}"
        return (
            f"the release on D′ is not D's at the noise moved by the shifts read (a post-processing that moves with "
            f"the data, or a shift misread): with the noise {self.noise:.6g} scale(s) from its recorded draws, {where} "
            f"is {self.on_d} on D and {self.on_d_prime} on D′"
        )


@dataclass(frozen=True)
class Inconsistent(Finding):
    """Noise elements carried by two release coordinates that move apart between D and D′."""

    kind: ClassVar[str] = "differs"
    count: int

    @property
    def line(self) -> str:
        return f"{self.count} noise element(s) carried by coordinates that move apart"


@dataclass(frozen=True)
class NoisyDiffers(Finding):
    """Noisy release coordinates, not affine in the noise (rounded, thresholded), that differ between D and D′."""

    kind: ClassVar[str] = "noisy"
    count: int

    @property
    def line(self) -> str:
        return f"{self.count} noisy coordinate(s) not affine in the noise differ"


@dataclass(frozen=True)
class Unaccounted(Finding):
    """Noise of call ``call`` (``label``: its kind and element) that the composition cannot account for (``why``):
    no exact law here, a value it is added to that is not visible, a library budget not declared.  Leaves the claim
    undecided on the pair.  ``moved``: how far its input moved in the units of what is known of it, as x/(1 + x) in
    [0, 1) (0: not known) -- a library mechanism's excess x over its declared sensitivity, a noise with no exact law
    its shift over its scale: its magnitude, which orders the pairs for the witness only."""

    check: ClassVar[str] = "composition"
    kind: ClassVar[str] = "unaccounted"
    call: int
    label: str
    why: str
    moved: float = 0.0

    @property
    def line(self) -> str:
        return f"call {self.call} {self.label}: {self.why}"


@dataclass(frozen=True)
class CarriedAbove(Finding):
    """The composition of the noise the release carries has δ(ε) ≥ ``lower.low`` > δ: the release's δ(ε) is at least
    that (data processing read backwards), so the claim is refuted exactly (:func:`~.accounting.exceeds`)."""

    check: ClassVar[str] = "composition"
    kind: ClassVar[str] = "carried above"
    lower: Composed

    @property
    def exact(self) -> bool:
        return True

    @property
    def magnitude(self) -> float:
        return self.lower.low

    @property
    def line(self) -> str:
        return f"the carried noise's composition gives δ(ε) ≥ {self.lower.low:.4g}"


@dataclass(frozen=True)
class Conditioned(Finding):
    """The composition of the noise the release carries has δ(ε) ≥ ``lower.low`` > δ *given* recorded draws: a bound
    on the conditional laws, which the release's law -- their mixture over those draws -- may lose less than, so not
    a refutation: a finding for the black box, which conditions on nothing (:mod:`.conditioning`).  Either draws the
    release does not reveal (``secret``: Poisson subsampling's coins), or, with ``map_moved``, draws whose recorded
    values set the shifts read: the release on D′ was shown not to be D's at the noise moved by those shifts along
    the noise's range (:mod:`.same_map`), so a step's shift moves with another draw's value (an adaptive step: a
    query chosen by an earlier noisy answer) and the composition read at the recorded values is not the pair's."""

    check: ClassVar[str] = "composition"
    kind: ClassVar[str] = "conditioned"
    lower: Composed
    secret: tuple[str, ...]
    map_moved: bool = False

    @property
    def magnitude(self) -> float:
        return self.lower.low

    @property
    def line(self) -> str:
        if self.map_moved:
            return (
                f"the carried noise's composition gives δ(ε) ≥ {self.lower.low:.4g} at the recorded draws, whose "
                "values set the shifts read (the release on D′ is not D's at the noise moved by them along the "
                "noise's range): a bound on the laws given those draws, not on the release's"
            )
        return (
            f"the carried noise's composition gives δ(ε) ≥ {self.lower.low:.4g} given draws the release does not "
            f"reveal ({', '.join(self.secret[:2])}): a bound on the conditional laws, not on their mixture"
        )


@dataclass(frozen=True)
class UpperAbove(Finding):
    """The composition of every step (carried or not) has δ(ε) ≤ ``upper.high`` with ``upper.high`` > δ: a bound, not
    a refutation (the release may not carry every step)."""

    check: ClassVar[str] = "composition"
    kind: ClassVar[str] = "upper above"
    upper: Composed

    @property
    def magnitude(self) -> float:
        return self.upper.high

    @property
    def line(self) -> str:
        return f"the upper composition gives δ(ε) ≤ {self.upper.high:.4g}, above the claim"


@dataclass(frozen=True)
class Unshifted(Finding):
    """Of the whole run, not of a pair: some release coordinate is moved by no draw the probe shifts while the program
    draws noise the probe can neither shift nor the composition account (``calls``: their signatures; ``integers``,
    ``exponential``, a uniform turned into noise by hand).  That coordinate is not shown free of noise (a
    report-noisy-max with exponential noise releases an index no shift moves), so nothing certifies it: the claim is
    left undecided."""

    check: ClassVar[str] = "composition"
    kind: ClassVar[str] = "unaccounted"
    calls: tuple[str, ...]

    @property
    def line(self) -> str:
        return (
            f"the program draws noise the audit can neither shift nor account ({', '.join(self.calls[:2])}), and a "
            "release coordinate no shifted draw moves may depend on it: not shown free of noise, so not certified"
        )


#: The kinds of finding, least severe first: the order the witness and the search rank pairs by.  A refutation by
#: composition ranks above every structural finding (it is exact); structural findings that show the data in the
#: release directly (a structure, a noise-free coordinate) above a scale taken from the data, above a divergence
#: (legitimate in a sparse vector), above an upper composition over the claim (a bound), above a noisy coordinate
#: that is not affine, above noise not accounted for, above a fault on D′ (no witness the black box can run).
SEVERITY = (
    "fault", "unaccounted", "noisy", "upper above", "diverged", "rescaled", "conditioned", "differs", "carried above"
)  # fmt: skip


def rank(found: Sequence[Finding]) -> tuple[int, float]:
    """A pair's rank from its findings: its most severe kind's place in :data:`SEVERITY` (from 1; 0: no finding),
    then that finding's magnitude."""
    return max(((SEVERITY.index(f.kind) + 1, f.magnitude) for f in found), default=(0, 0.0))


def criterion(key: tuple[int, float], pure: float | None, epsilon: float) -> float:
    """The search's objective for a pair of rank ``key`` (:func:`rank`), as one number a search maximises: 4 × the
    kind's place, plus the finding's magnitude (a δ in [0, 1]), plus ε̂/(ε̂ + ε) in [0, 1] with ε̂ the pure ε of the
    pair's steps (``pure``) -- within a kind, the pair whose noise's inputs moved most against their scale first.  The
    three parts cannot overlap (each kind's values lie in [4k, 4k + 2]), so it orders pairs as their ranks do."""
    level, magnitude = key
    base = 4.0 * level + magnitude
    if pure is None or pure <= 0 or pure != pure:
        return base
    if pure == float("inf") or epsilon <= 0:
        return base + 1.0
    return base + pure / (pure + epsilon)
