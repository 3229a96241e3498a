"""A statistical screening of the neighbouring pairs, for a finding the structural witness does not confirm: which
pair to confirm on, chosen from a sample of releases on each pair.

**Why.**  The structural analysis reads the release at a few recorded draw sets.  Where the release is an index or a
label and the privacy loss is carried by the draws that take another path -- AboveThreshold with its query noise
drawn once and reused (Lyu, Su & Li, PVLDB 2017, §4): on D′ a week wins that never wins on D, but only for the ~7% of
draws whose threshold falls between two counts -- every pair's releases agree at the recorded draws, the witness the
analysis names is a pair of finite loss, and its confirmation does not refute.  The loss shows in the releases'
distributions: an outcome seen in one world and never in the other.

**How** (:func:`screen`). Where the release is discrete -- at most :data:`OUTCOMES` distinct releases among ``m``
releases on D -- ``m`` releases are drawn on D and ``m`` on each of the candidate neighbours D′ (the pairs the analysis
searched, worst first, the witness already confirmed left out), with ``m`` = :data:`BUDGET` / (pairs + 1), at most
:data:`MOST`, the pairs screened cut to BUDGET / :data:`FEWEST` − 1 = 63 so that ``m`` is at least FEWEST: at most
``BUDGET`` = 16,000 runs of the program (65 where the release is not discrete), and memory for the outcome counts only.
Each pair is scored by the best event test its counts allow, as StatDP counts events (Ding et al., CCS 2018): in either
direction, with x(o) and y(o) the counts of outcome o in the world tested against and in the other, the outcomes sorted
by (x + ½)/(y + ½), and for each prefix S (an event: a union of outcomes) with X = Σ_S x, N = X + Σ_S y,

    p(S) = P[Binomial(N, q) ≥ X],  q = e^ε / (1 + e^ε),

the conditional test of two Poisson rates (Lehmann & Romano, Testing Statistical Hypotheses, 2005, §4.5): the chance
of X or more of the N releases in S falling on the first world's side were P₁(S) ≤ e^ε·P₂(S) (equal sample sizes).
The pair of smallest p is the screened pair.  Neither δ nor the choice of S is corrected for: p only ranks.

**A continuous release** (more than :data:`OUTCOMES` distinct releases on D) is screened on its *structure* alone:
the codec's types, dtypes, shapes and keys and the count of its numbers (:func:`structure_key`), on
:data:`STRUCTURE_RELEASES` releases a world.  A pair whose releases never share a structure with D's (a class read
from the data that the neighbour removes, a group key that appears: a release of another shape, on every draw) is
*separated*, and the separated pair of smallest p is confirmed whatever its p -- its releases differ on every draw
seen, and the confirmation, not the screening, tests the claim; no separated pair, no confirmation.

**Validity** (sample splitting, as DP-Sniper splits its releases: Bichsel et al., S&P 2021, §V).  The screening's
releases come from a generator of its own (seeded by [:data:`STREAM`, seed], whose entropy no other generator of the
run shares), and the confirmation runs on fresh releases.  The pair B chosen is a function of the screening sample S
alone, so for the confirmation's p-value p_B on releases R independent of S, under the claim (every pair within it):
P[p_B(R) ≤ a | S] ≤ a, hence P[p_B ≤ a] ≤ a.  The structural witness's own confirmation p_W was run first (its pair
fixed by the exact analysis alone); reporting min(1, 2·min(p_W, p_B)) is Bonferroni's over the two tests:
P[2·min(p_W, p_B) ≤ a] ≤ P[p_W ≤ a/2] + P[p_B ≤ a/2] ≤ a -- whether or not the second was run (a test not run
counts as p = 1, which only lowers the chance of a rejection) and whatever the two tests share (the releases on D).
So wherever a screening could follow the witness's test (other pairs left to screen), that test is read at α/2 --
the run stops there where p_W ≤ α/2 -- and its p-value is reported as 2·p_W where no screened pair is confirmed
(:func:`halved`).  Reading it at α and screening only where it does not refute would add the screening's α/2 to the
chance of refuting a correct program: P[p_W ≤ α] + P[p_B ≤ α/2] = 1.5α.  Where no other pair is left, no screening
can run and p_W is read at α, alone; where no structural confirmation ran, p_B is reported alone.  The run's Holm
correction then takes this p-value as one test of its family.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.confirmation_looks import Reading
from pdp_audit.audits.program.results import PairResult
from pdp_audit.audits.program.sources import sources_drawn
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.estimators.engine import one_blas_thread
from pdp_audit.verify.inputs import release_codec

#: The releases of the screening at most, in all (D's and the candidates').
BUDGET = 16_000
#: The releases per world: at least this many (fewer candidates screened where the budget does not allow more) and
#: at most this many.
FEWEST, MOST = 250, 1_000
#: A release with more distinct values than this among the releases on D is not screened (not discrete).
OUTCOMES = 64
#: Releases a world of a continuous release's structure screening (module notes): a pair's releases each of another
#: structure than D's on all of them, against D's on all of theirs.
STRUCTURE_RELEASES = 16
#: A screened pair is confirmed only where its screening p is at most this (else no pair's releases differ enough to
#: be worth a test).
LEVEL = 0.01
#: The first word of the screening generator's entropy (module notes: no other generator of the run starts so).
STREAM = 0x5C2EE7


@dataclass(frozen=True)
class Screened:
    """The screening's outcome: the ``pair`` of smallest screening ``pvalue`` (None where no candidate ran), the
    ``event`` its test used (outcomes as words) with its counts on D and on D′, the pairs screened and the releases
    per world."""

    pair: PairResult | None
    pvalue: float
    event: str
    counts: tuple[int, int]
    pairs: int
    releases: int
    #: a continuous release's pair whose releases never share a structure with D's (module notes)
    separated: bool = False

    @property
    def worth(self) -> bool:
        """Whether the screened pair is worth a confirmation (:data:`LEVEL`; a separated pair always is)."""
        return self.pair is not None and (self.pvalue <= LEVEL or self.separated)

    def words(self) -> str:
        """How the pair was found, as a clause: ``the statistical screening of 47 neighbouring pairs (…)``."""
        on_d, on_d_prime = self.counts
        return (
            f"the statistical screening of {self.pairs} neighbouring pairs ({self.releases:,} releases per world, "
            f"drawn apart from the confirmation's): the release {self.event} came {on_d} times on D and "
            f"{on_d_prime} times on D′ (screening p = {self.pvalue:.2g})"
        )

    def details(self) -> dict:
        """The screening as the JSON names it."""
        return {
            "neighbour": None if self.pair is None else self.pair.neighbour.name,
            "screening_pvalue": self.pvalue,
            "event": self.event,
            "count_on_d": self.counts[0],
            "count_on_d_prime": self.counts[1],
            "pairs_screened": self.pairs,
            "releases_per_world": self.releases,
        }


def candidates(pairs: Sequence[PairResult], confirmed: PairResult | None) -> list[PairResult]:
    """The pairs to screen: those the program ran on, worst first (stably), the pair already confirmed left out."""
    runnable = [p for p in pairs if p.comparison.fault is None and p is not confirmed]
    return sorted(runnable, key=lambda p: p.order, reverse=True)


def per_world(count: int) -> tuple[int, int]:
    """(pairs screened, releases per world) for ``count`` candidates within :data:`BUDGET` (module notes)."""
    pairs = min(count, BUDGET // FEWEST - 1)
    return pairs, max(FEWEST, min(MOST, BUDGET // (pairs + 1)))


def _outcomes(
    program: Callable, data: Any, size: int, rng: np.random.Generator, most: int = 0, key: Callable | None = None
) -> Counter | None:
    """The counts of the distinct releases among ``size`` releases on ``data``, each from its own generator seeded from
    ``rng`` and counted by its exact encoding (:meth:`~pdp_audit.verify.inputs.release_codec.EncodedRelease.key`: two
    releases are one outcome only where they are the same objects of the same bits) (None: the program raised);
    ``most`` > 0: cut short once more than ``most`` outcomes are seen (a continuous release costs ``most`` + 1 runs, not
    ``size``; the seeds are drawn first, so ``rng`` moves on alike). ``sys.modules`` is given back once, after the block
    (as a :class:`~pdp_audit.audits.program.trace.Session` does; every other piece of process state after each run): a
    set-up per run costs twice a small program's run.  ``key``: what counts as one outcome (default: the whole
    encoding; :func:`structure_key`: its structure alone).  Drawn with BLAS on one thread, as the black box's
    releases are (:class:`~.release_sampler.ReleaseSampler`: a program of many small BLAS calls is many times slower
    with BLAS's threads): the screening only chooses the pair, a function of its own sample whatever the environment
    it was drawn in, and the confirmation's fresh releases test it (module notes, validity)."""
    seeds = rng.integers(0, 2**63 - 1, size=size)
    out: Counter = Counter()
    with one_blas_thread(), user_modules(), np.errstate(all="ignore"), sources_drawn() as drawing:
        for seed in seeds.tolist():
            generator = np.random.default_rng(seed)
            try:
                with drawing(generator):  # numpy's global state, Python's random …: the release's generator
                    release = trace.call_program(program, data, generator, modules=False)
            except trace.ProgramFault:
                return None
            encoded = release_codec.encode(release)
            out[encoded.key() if key is None else key(encoded)] += 1
            if 0 < most < len(out):
                break
    return out


def structure_key(encoded: release_codec.EncodedRelease) -> bytes:
    """A release's structure as one outcome: the codec's structure and the count of its numbers (module notes)."""
    return repr((encoded.structure, encoded.numbers.size)).encode()


def _shown(key: bytes) -> str:
    """An outcome as words: its numbers (``= 1``, ``= (0, 1, 1)``)."""
    numbers = [f"{v:.6g}" for v in release_codec.numbers_of(key)]
    if len(numbers) == 1:
        return f"= {numbers[0]}"
    return f"= ({', '.join(numbers[:6])}{', …' if len(numbers) > 6 else ''})"


def event_test(first: Counter, second: Counter, epsilon: float) -> tuple[float, list[bytes], int, int]:
    """The best event test of P_first(S) ≤ e^ε·P_second(S) over the prefixes S of the outcomes sorted by their
    count ratio (module notes): (p, the outcomes of S, X, Y)."""
    from scipy.stats import binom  # deferred: loads scipy

    q = 1.0 / (1.0 + math.exp(-epsilon)) if epsilon < 700 else 1.0
    # ties broken by the outcome's bytes: a set's order of bytes follows the process's hash seed, and the numbers must
    # follow the run's seed only
    order = sorted(set(first) | set(second), key=lambda o: (-(first[o] + 0.5) / (second[o] + 0.5), o))
    best: tuple[float, list[bytes], int, int] = (1.0, [], 0, 0)
    x = y = 0
    for k, outcome in enumerate(order):
        x, y = x + first[outcome], y + second[outcome]
        if x == 0:
            continue
        p = float(binom.sf(x - 1, x + y, q))
        if p < best[0]:
            best = (p, order[: k + 1], x, y)
    return best


def screen(
    program: Callable, data: Any, pairs: Sequence[PairResult], confirmed: PairResult | None, epsilon: float, seed: int
) -> Screened | None:
    """The screening of ``pairs`` (module notes), ``confirmed`` the pair already confirmed (left out); None where
    there is no candidate, the release on D is not discrete or the program raises on D."""
    found = candidates(pairs, confirmed)
    count, size = per_world(len(found))
    if not count:
        return None
    rng = np.random.default_rng([STREAM, seed])
    on_d = _outcomes(program, data, size, rng, OUTCOMES)
    if on_d is None:
        return None
    if len(on_d) > OUTCOMES:
        return _by_structure(program, data, found[:count], rng, epsilon)
    best: Screened | None = None
    for pair in found[:count]:
        on_d_prime = _outcomes(program, pair.neighbour.data, size, rng)
        if on_d_prime is None:  # the program raises on D′: its structural finding says so, not a screening's
            continue
        for a, b, d_first in ((on_d_prime, on_d, False), (on_d, on_d_prime, True)):
            p, event, x, y = event_test(a, b, epsilon)
            if best is None or p < best.pvalue:
                words = _shown(event[0]) if len(event) == 1 else f"in {{{', '.join(_shown(o)[2:] for o in event[:4])}}}"
                counts = (x, y) if d_first else (y, x)
                best = Screened(pair, p, words, counts, count, size)
    return best


def combined(evidence: list[Reading], second: list[Reading], found: Screened) -> list[Reading]:
    """``evidence`` with the confirmation on the screened pair (``second``) joined to the structural witness's (the
    event test's reading in ``evidence``, where one ran) as one test: the reading of the smaller p-value, its p-value
    Bonferroni's over the k confirmations run, min(1, k·min p) (module notes), its event and interval read at the
    level over k; the screening named in its note and details."""
    first = next((e for e in evidence if e.confirm), None)
    rest = [e for e in second if not e.confirm]
    screened = next((e for e in second if e.confirm), None)
    if screened is None:  # the screened pair's run gave no test: the witness's alone, read at its share
        return halved(evidence) + rest
    tests = 1 if first is None else 2
    chosen = screened if first is None or _p(screened) <= _p(first) else first
    low = min(_p(screened), 1.0 if first is None else _p(first))
    words = found.words()
    out = dataclasses.replace(chosen, pvalue=min(1.0, tests * low), tests=tests)
    if tests == 2:
        on = "the screened pair" if chosen is screened else "the structural witness"
        out = out.noted(
            f"Two pairs confirmed: the structural witness (p = {_p(first):.3g}) and a pair found by {words} (p = "
            f"{_p(screened):.3g}); the p-value is Bonferroni's over the two, 2 × the smaller ({on}'s), the pair "
            "chosen on releases apart from the confirmation's (sample splitting).",
        )
    else:
        out = out.noted(f"The pair was found by {words}; the confirmation ran on releases apart from the screening's.")
    if chosen is screened:
        out = out.with_details(witness_found_by=words)
    out = out.with_details(screened=found.details(), screened_found_by=words)
    return [out if e is first else e for e in evidence] + ([] if first is not None else [out]) + rest


def halved(evidence: list[Reading]) -> list[Reading]:
    """``evidence`` with the structural witness's confirmation (the event test's reading) as Bonferroni's over two
    tests where it was read at α/2 and no screened pair was confirmed beside it (module notes: the screening's test
    counts as p = 1): its p-value min(1, 2p), its event and interval read at half the level."""
    out = []
    for e in evidence:
        if e.confirm and e.pvalue is not None:
            e = dataclasses.replace(e, pvalue=min(1.0, 2 * float(e.pvalue)), tests=2).noted(
                f"Read at α/2 (p = {float(e.pvalue):.3g}, reported × 2): a statistical screening of the other "
                "neighbouring pairs could follow, and Bonferroni's correction over the two tests keeps the level "
                "whatever the screening finds."
            )
        out.append(e)
    return out


def screened_on(details: Mapping[str, Any], name: str | None = None) -> bool:
    """Whether a confirmation (its ``details``) ran on the pair the screening found -- the neighbour ``name`` (None:
    any): the pair a report shows as its witness."""
    words = details.get("screened_found_by")
    found = bool(words) and details.get("witness_found_by") == words
    return found and (name is None or details.get("witness") == name)


def unscreened(evidence: list[Reading], found: Screened) -> list[Reading]:
    """``evidence`` with a screening that found no pair worth a confirmation named on the confirmation's note."""
    text = (
        f"Screened {found.pairs} further neighbouring pairs ({found.releases:,} releases per world): no event's "
        f"frequencies differ beyond e^ε (smallest screening p = {found.pvalue:.2g} > {LEVEL:g}); none confirmed."
    )
    return [e.noted(text).with_details(screened=found.details()) if e.confirm else e for e in evidence]


def _p(reading: Reading | None) -> float:
    return 1.0 if reading is None or reading.pvalue is None else float(reading.pvalue)


def _by_structure(
    program: Callable, data: Any, found: Sequence[PairResult], rng: np.random.Generator, epsilon: float
) -> Screened | None:
    """A continuous release's structure screening (module notes): the separated pair of smallest event-test p, or
    None where no pair is separated (or D's releases take more than :data:`OUTCOMES` structures)."""
    size = STRUCTURE_RELEASES
    on_d = _outcomes(program, data, size, rng, key=structure_key)
    if on_d is None or len(on_d) > OUTCOMES:
        return None
    best: Screened | None = None
    for pair in found:
        on_d_prime = _outcomes(program, pair.neighbour.data, size, rng, key=structure_key)
        if on_d_prime is None or set(on_d_prime) & set(on_d):
            continue
        p, _, x, y = event_test(on_d_prime, on_d, epsilon)
        if best is None or p < best.pvalue:
            words = "of another structure (types, shapes, keys) than any of D's"
            best = Screened(pair, p, words, (y, x), len(found), size, separated=True)
    return best
