"""The black box's confirmation of a program audit's finding as one check, ``program-confirm``, built once from the
runs made (:func:`evidence`): on the witness pair or a smaller pair (:mod:`.smaller`), then, where that does not
refute and the release is discrete, on the pair the screening of releases found (:mod:`.screening`, the two joined
by Bonferroni's correction).

The confirmation's p-value is the black box's; what is added here are words and details: the pair it ran on, the law
it read, and, where the noise the release carries has an exact law, how many releases per world an event test at α
needs by it (:mod:`.feasibility`) -- beyond the budget, the note says the confirmation was out of reach.  Its verdict is
decided with the run's family (Holm's procedure), after this.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pdp_audit.audits.program import screening
from pdp_audit.audits.program.analysis import PairResult
from pdp_audit.audits.program.decision import CHECKS, found
from pdp_audit.audits.program.smaller import Smaller
from pdp_audit.verify.core.checks import Evidence


@dataclass(frozen=True)
class Run:
    """One confirmation run: the black box's ``evidence`` on the releases of ``pair`` read at ``law``, for the
    finding of ``witness`` (D's pair; ``pair`` is a smaller one where ``small`` names it); ``needs``: the releases per
    world an event test at α needs on ``pair`` by the exact law of the noise its release carries, with the element
    (None: not read); ``witness_needs``: the same on the witness pair, where a smaller pair was chosen."""

    evidence: list[Evidence]
    pair: PairResult
    witness: PairResult
    law: str
    needs: tuple[float, str] | None = None
    small: Smaller | None = None
    witness_needs: float | None = None


@dataclass(frozen=True)
class Budget:
    """The confirmation's releases per world (``trials``) and the run's ``alpha``."""

    trials: int
    alpha: float


def refutes(run: Run | None, alpha: float) -> bool:
    """Whether a confirmation run's own p-value is within ``alpha`` (before the run's correction)."""
    return run is not None and any(
        e.spec.id in ("program-confirm", "blackbox-attack") and e.pvalue is not None and e.pvalue <= alpha
        for e in run.evidence
    )


def evidence(
    first: Run | None, screened: screening.Screened | None, second: Run | None, budget: Budget
) -> list[Evidence]:
    """The confirmation's evidence (module notes): ``first``'s run on the witness (or smaller) pair, and the screening's
    outcome with its run on the screened pair (``second``, where it was worth one)."""
    out = _read(first, budget) if first is not None else []
    if screened is None or screened.pair is None:
        return out
    if not screened.worth:
        return screening.unscreened(out, screened)
    return screening.combined(out, _read(second, budget) if second is not None else [], screened)


def _read(run: Run, budget: Budget) -> list[Evidence]:
    """Each piece of the black box's evidence as the program audit's: the confirmation named ``program-confirm``, the
    pair and law it ran on, and what it would have needed."""
    return [_one(e, run, budget) for e in run.evidence]


def _one(e: Evidence, run: Run, budget: Budget) -> Evidence:
    """One piece of the black box's evidence as the program audit's (:func:`_read`)."""
    confirm = e.spec.id in ("blackbox-attack", "program-confirm")
    at = "as implemented (the releases' float structure read)" if run.law == "as-implemented" else "the real-valued law"
    notes = [f"Witness pair: D and {run.witness.neighbour.name}; confirmed at {at}."]
    details = {
        "witness": run.witness.neighbour.name,
        "witness_found_by": found(run.witness)["found_by"],
        "confirmation_law": run.law,
    }
    refuted = e.verdict == "fail" or (e.pvalue is not None and e.pvalue <= budget.alpha)
    if confirm and not refuted and run.needs is not None:
        # left out where the test's own p-value is within α: the estimate is of an event test at the expected
        # counts, and a confirmation that refuted despite it must not read as one that did not
        needed, what = run.needs
        details.update(releases_needed=needed, releases_needed_by=what)
        notes[:0] = [_out_of_reach(needed, what, budget)] if needed > budget.trials else []
    if confirm and run.small is not None and run.witness_needs is not None:
        notes.insert(0, _on_smaller(run.small, run.witness_needs))
        details.update(smaller_pair=run.small.details(), witness_releases_needed=run.witness_needs)
    spec = CHECKS["program-confirm"] if confirm else e.spec
    note = " ".join([*notes, e.note]).strip()
    return dataclasses.replace(e, spec=spec, note=note, details={**e.details, **details})


def _out_of_reach(needed: float, what: str, budget: Budget) -> str:
    return (
        f"Not confirmed within {budget.trials:,} releases per world: by the exact law of the noise the release carries "
        f"({what}), an event test at α = {budget.alpha:g} would need about {needed:.2g} per world; the exact finding "
        "stands on its own."
    )


def _on_smaller(small: Smaller, witness_needs: float) -> str:
    """A confirmation run on a smaller pair, named beside the witness pair (the witness stays D's)."""
    return (
        f"Run on a smaller pair: {small.words()} (DP quantifies over every neighbouring pair: Dwork & Roth 2014, "
        f"Def. 2.4); by the exact law of the noise the release carries ({small.by}), an event test at this α needs "
        f"about {small.needed:.2g} releases per world there, about {witness_needs:.2g} on the witness pair."
    )
