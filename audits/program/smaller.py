"""A smaller neighbouring pair to confirm a finding on, where the witness pair's confirmation is out of reach.

ε-DP (and (ε, δ)-DP) quantifies over *every* pair of neighbouring datasets (Dwork & Roth 2014, Def. 2.4), so a pair
that refutes the claim need not contain the user's D: any dataset of the domain will do, D's own records among them.
A bug whose effect shrinks with the data's size -- a quantity of the data taken as public, such as the size setting
the noise's scale of a mean (Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026, §5: the size of the data is
private under add-remove) -- is exact on D but faint there: the mean of 12 records with Laplace noise of scale 1/n
moves its scale by 1/12 − 1/13 against its neighbour's, and an event test would need about 10⁷ releases per world
(:mod:`.feasibility`).  On a base of D's first record, its neighbour with a record at the domain's end added moves
the scale from 1 to 1/2, which a few hundred releases show.

:func:`smallest` analyses the bases made of D's first k records, k in :data:`SIZES` (fewer than D holds), each with
the named neighbours (:func:`~pdp_audit.audits.program.analysis.analyse`, one draw set, no search), keeps the pairs
that show the witness's class of finding (a scale that depends on the data, or a composition of the carried noise
above the claim), and ranks them by the releases per world an event test needs by the exact law of the noise they
carry (:func:`~pdp_audit.audits.program.feasibility.carried_needs`): the fewest first, the smaller base, then a
finite record before a non-finite one, where they tie.  A program that raises on a base (the mean of nothing, too
few classes) or on a base's neighbour is not a finding here: that base or pair is skipped.

The choice uses only the exact analyses, never the black box's releases, so the one confirmation run on the pair
chosen is a single test at the run's α (no search over tests to correct for).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pdp_audit.audits.program import feasibility, trace
from pdp_audit.audits.program.analysis import analyse
from pdp_audit.audits.program.neighbours import changed, non_finite
from pdp_audit.audits.program.results import PairResult

#: The sizes of the bases tried: D's first k records.
SIZES = (1, 2, 3, 4)
#: Subscripts of a base's name (D₁ … D₉).
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


@dataclass(frozen=True)
class Smaller:
    """A smaller pair: the base (D's first ``records`` records), the pair's analysis on it (its neighbour D′ of the
    base), and the releases per world an event test needs on it (``needed``, by the element ``by``)."""

    records: int
    base: Any
    pair: PairResult
    needed: float
    by: str

    @property
    def name(self) -> str:
        """The base as words: ``D₂ = records 0–1 of D``."""
        k = self.records
        which = "record 0" if k == 1 else f"records 0–{k - 1}"
        return f"D{str(k).translate(_SUBSCRIPT)} = {which} of D"

    def words(self) -> str:
        """The pair as words: ``D₁ = record 0 of D, and D₁′ = D₁ with a record at the domain's upper end added``."""
        base = self.name.split(" = ", 1)[0]
        return f"{self.name}, and {base}′ = {changed(base, self.pair.neighbour.name)}"

    def details(self) -> dict:
        """The pair as the JSON names it."""
        return {
            "pair": self.words(),
            "base": self.name,
            "base_records": list(range(self.records)),
            "neighbour": self.pair.neighbour.name,
            "releases_needed": self.needed,
            "releases_needed_by": self.by,
        }


def classes(pair: PairResult) -> set[str]:
    """The classes of finding a pair shows that a smaller pair may confirm: ``scale`` (released noise whose scale
    depends on the data) and ``composition`` (the carried noise's composition above δ)."""
    out = {"scale"} if pair.scale_moves else set()
    if pair.refuted:
        out.add("composition")
    return out


def first(data: Any, k: int) -> Any:
    """D's first ``k`` records (a frame's rows, an array's first axis)."""
    return data.iloc[:k] if hasattr(data, "iloc") else data[:k]


def smallest(program: Callable, data: Any, config: Any, witness: PairResult) -> Smaller | None:
    """The smaller pair of fewest releases needed that shows one of ``witness``'s :func:`classes` of finding (module
    notes); None where no base gives one or the witness shows none of them.  ``config``: the run's
    :class:`~pdp_audit.audits.program.config.ProgramAuditConfig` (its relation, bounds, claim, α and seed)."""
    epsilon, delta = config.claim_epsilon, config.claim_delta
    wanted = classes(witness)
    best: tuple[tuple, Smaller] | None = None
    for k in SIZES if wanted else ():
        if k >= len(data):
            break
        base = first(data, k)
        try:
            declared = config.domain_of(base)
            analysis = analyse(program, base, config.neighbours, declared, (epsilon, delta), config.seed, 1)
        except trace.ProgramFault:  # the program does not run on so few records: not a finding, another base
            continue
        for pair in analysis.pairs:
            if pair.comparison.fault is not None or not classes(pair) & wanted:
                continue
            needs = feasibility.carried_needs(pair, epsilon, config.alpha)
            if needs is None:
                continue
            # rounded: needs equal but for the grid's rounding tie, and the first of them (the smaller base) is kept
            key = (float(f"{needs[0]:.6g}"), non_finite(pair.neighbour.name))
            if best is None or key < best[0]:
                best = (key, Smaller(k, base, pair, *needs))
    return None if best is None else best[1]
