"""The black box's confirmation of a program audit's finding, a stage before :func:`.decision.decide`, which reads
its frozen record (:class:`Confirmation`): the runs on the witness pair or a smaller pair (:mod:`.smaller`), then,
where that does not refute and the release is discrete, on the pair the screening of releases found
(:mod:`.screening`, the two joined by Bonferroni's correction), its one check ``program-confirm`` built once.

The confirmation's p-value is the black box's; what is added here are words and details: the pair it ran on, the law
it read, and, where the noise the release carries has an exact law, how many releases per world an event test at α
needs by it (:mod:`.feasibility`) -- beyond the budget, the note says the confirmation was out of reach.  Its verdict is
decided with the run's family (Holm's procedure), after this.

A wide release (more than :data:`~.release_sampler.MOST_COLUMNS` numbers) is read on the numbers that differ on the
pair (:func:`~.release_sampler.witness_columns`: a post-processing, so a refutation of it refutes the release), on at
most :attr:`Budget.trials` releases per world: the program draws every number of each release, whatever the black
box reads.  Where an exact check already refutes the claim, the confirmation is one short look that corroborates it
(:func:`corroborating`), or is not run (:func:`not_run`): its releases could not change the verdict
(:mod:`.confirmation_looks`); a wide release's never runs then, as its releases would cost thousands of the program's
runs.  Neither is ever an error of the user's: the budget is the audit's own.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from pdp_audit.audits.program import screening
from pdp_audit.audits.program.confirmation_looks import CORROBORATION, Look, Reading, words
from pdp_audit.audits.program.decision import CHECKS, found
from pdp_audit.audits.program.release_sampler import MOST_COLUMNS
from pdp_audit.audits.program.results import Analysis, PairResult
from pdp_audit.audits.program.smaller import Smaller
from pdp_audit.verify.core.checks import Evidence


@dataclass(frozen=True)
class Run:
    """One confirmation run: the black box's ``evidence`` on the releases of ``pair`` read at ``law``, as its
    ``looks`` (those planned) read it (:mod:`.confirmation_looks`), for the finding of ``witness`` (D's pair; ``pair``
    is a smaller one where ``small`` names it); ``needs``: the releases per world an event test at α needs on ``pair``
    by the exact law of the noise its release carries, with the element (None: not read); ``witness_needs``: the same
    on the witness pair, where a smaller pair was chosen; ``columns``: the release's numbers the black box read."""

    evidence: list[Reading]
    pair: PairResult
    witness: PairResult
    law: str
    needs: tuple[float, str] | None = None
    small: Smaller | None = None
    witness_needs: float | None = None
    columns: int | None = None
    looks: tuple[Look, ...] = ()


#: The numbers the confirmation's releases carry per world at most (releases × numbers a release): the program draws
#: every number of each release, whatever the black box reads, and a histogram of 10⁵ bins costs milliseconds a run.
MOST_NUMBERS = 100_000_000
#: ... but never fewer releases per world than this (or than asked).
FEWEST_RELEASES = 1_000


@dataclass(frozen=True)
class Budget:
    """The confirmation's releases per world asked (``asked``: the run's ``trials``), the run's ``alpha``, and the
    numbers of the release on D (``numbers``; 0: not counted), which cap the releases drawn (:attr:`trials`)."""

    asked: int
    alpha: float
    numbers: int = 0

    @property
    def trials(self) -> int:
        """The fresh releases per world drawn: ``asked``; for a wide release (:func:`wide`), at most
        :data:`MOST_NUMBERS` / ``numbers`` (but :data:`FEWEST_RELEASES`).  Any number of releases gives a test of its
        level; fewer lose power only."""
        if not wide(self.numbers):
            return self.asked
        return min(self.asked, max(MOST_NUMBERS // self.numbers, FEWEST_RELEASES))

    def words(self, columns: int | None) -> str:
        """What the black box read where it is not every number of ``asked`` releases (empty where it is); ``columns``:
        the numbers read (None: all)."""
        said = []
        if self.trials < self.asked:
            said.append(
                f"Run on {self.trials:,} releases per world, not the {self.asked:,} asked: each release carries "
                f"{self.numbers:,} numbers, all drawn by the program whatever the black box reads, and a confirmation "
                f"draws at most {MOST_NUMBERS:.0e} numbers per world (at least {FEWEST_RELEASES:,} releases)."
            )
        if columns is not None:
            said.append(
                f"The black box read {columns:,} of the release's {self.numbers:,} numbers, those that differ on the "
                "pair at the record's draws (with the release's structure and counts): a post-processing of the "
                "release, so a refutation of what it read refutes the release (Dwork & Roth 2014, Prop. 2.1)."
            )
        return " ".join(said)


def witness(analysis: Analysis) -> PairResult | None:
    """The pair the black box confirms first, chosen by the exact analysis alone: the pair the composition refutes,
    where one does; else the structure check's witness -- the pair of highest order among those with a structural
    finding the black box can run (a difference the noise does not explain: the NaN record a fallback maps to a
    constant, the record whose removal takes a category out), as :func:`.decision.decide` names it; else the witness
    of every finding (:meth:`.Analysis.worst`).  A composition's bound above the claim (:class:`.findings.UpperAbove`)
    ranks above a noisy coordinate that differs, but it is a bound, often above the claim by its readings' rounding
    alone, which no release can show: confirming it first left a rounded NaN fallback undecided while its NaN pair,
    named by the structure check, refutes at once."""
    worst = analysis.worst(confirmable=True)
    if worst is None or worst.refuted:
        return worst
    named = [p for p in analysis.pairs if p.structural and p.comparison.fault is None]
    return max(named, key=lambda p: p.order) if named else worst


def refutes(run: Run | None, alpha: float) -> bool:
    """Whether a confirmation run's own p-value is within ``alpha`` (before the run's correction)."""
    return run is not None and any(r.confirm and r.pvalue is not None and r.pvalue <= alpha for r in run.evidence)


@dataclass(frozen=True)
class Confirmation:
    """The confirmation's runs, made once by its stage (module notes): ``first`` on the witness or a smaller pair
    (``shared``: read at α/2, a screening able to follow), the ``screened`` pairs' outcome and ``second`` the run on
    the pair it found, within ``budget``; where an exact check refutes the claim (``refuted``: its name and witness),
    ``first`` a corroboration, or None: not run (``needed``: the releases an event test needs by the exact law)."""

    budget: Budget
    first: Run | None = None
    screened: screening.Screened | None = None
    second: Run | None = None
    shared: bool = False
    refuted: tuple[str, str | None] | None = None
    needed: float | None = None

    @functools.cached_property
    def checks(self) -> list[Evidence]:
        """The confirmation's checks, each built once from the runs' readings: ``first``'s and the screening's with
        ``second``'s (``shared``: ``first``'s p-value Bonferroni's over the two tests whatever the screening found or
        whether it ran, :mod:`.screening`'s notes); a corroboration's, said so; or the confirmation not run."""
        spec, refuted, first, screened = CHECKS["program-confirm"], self.refuted, self.first, self.screened
        if refuted is not None and first is None:
            return [not_run(refuted, self.budget, self.needed)]
        if refuted is not None and first is not None:  # one look, on the releases its exact law says refute
            releases = first.looks[0].trials
            found = _read(first, dataclasses.replace(self.budget, asked=releases))
            return [corroborating(r, refuted[0], releases).check(spec) for r in found]
        out = _read(first, self.budget)
        if screened is not None and screened.worth:
            out = screening.combined(out, _read(self.second, self.budget), screened)
        else:
            out = screening.halved(out) if self.shared else out
            out = out if screened is None or screened.pair is None else screening.unscreened(out, screened)
        return [r.check(spec) for r in out]


def _read(run: Run | None, budget: Budget) -> list[Reading]:
    """Each piece of the black box's evidence as the program audit reads it: the pair and law it ran on, and what it
    would have needed (none where no run was made)."""
    return [] if run is None else [_one(r, run, budget) for r in run.evidence]


def _one(r: Reading, run: Run, budget: Budget) -> Reading:
    """One piece of the black box's evidence as the program audit reads it (:func:`_read`)."""
    confirm, e = r.confirm, r.raw
    at = "as implemented (the releases' float structure read)" if run.law == "as-implemented" else "the real-valued law"
    notes = [
        f"Witness pair: D and {run.witness.neighbour.name}; confirmed at {at}.",
        budget.words(run.columns),
        words(r.details.get("looks")) if confirm else "",
    ]
    details = {
        "witness": run.witness.neighbour.name,
        "witness_found_by": found(run.witness)["found_by"],
        "confirmation_law": run.law,
    }
    if budget.trials < budget.asked:
        details["releases_per_world"] = budget.trials
    if run.columns is not None:
        details["numbers_read"] = run.columns
    refuted = e.verdict == "fail" or (r.pvalue is not None and r.pvalue <= budget.alpha)
    if confirm and not refuted and run.needs is not None:
        # left out where the test's own p-value is within α: the estimate is of an event test at the expected
        # counts, and a confirmation that refuted despite it must not read as one that did not
        needed, what = run.needs
        details.update(releases_needed=needed, releases_needed_by=what)
        notes[:0] = [_out_of_reach(needed, what, budget)] if needed > budget.trials else []
    if confirm and run.small is not None and run.witness_needs is not None:
        notes.insert(0, _on_smaller(run.small, run.witness_needs))
        details.update(smaller_pair=run.small.details(), witness_releases_needed=run.witness_needs)
    note = " ".join(n for n in [*notes, e.note] if n).strip()
    return dataclasses.replace(r, note=note, details={**r.details, **details})


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


def not_run(refuted: tuple[str, str | None], budget: Budget, needed: float | None = None) -> Evidence:
    """The confirmation where the exact check ``refuted`` (its name and witness) already refutes the claim and no
    short corroboration can refute too (:mod:`.confirmation_looks`): not run.  Its releases could only corroborate:
    an exact check's fail is the run's verdict whatever a statistical check says (Holm's procedure decides only the
    statistical ones), so skipping them changes no verdict and no exit code.  ``needed``: the releases per world an
    event test needs by the exact law of the noise the witness pair's release carries (None: no exact law says)."""
    check, witness = refuted
    drawn = budget.trials
    if wide(budget.numbers):
        why = (
            f"on a release of {budget.numbers:,} numbers they would cost about {round(4.5 * drawn):,} runs of the "
            f"program ({drawn:,} fresh releases per world, as many to learn from and a quarter as many to choose "
            "events on)"
        )
    elif needed is not None:
        why = (
            f"by the exact law of the noise the release carries, an event test at α = {budget.alpha:g} would need "
            f"about {needed:.2g} releases per world, more than a short corroboration draws "
            f"({min(drawn, CORROBORATION):,})"
        )
    else:
        why = (
            "no one coordinate's exact law says how many releases an event test would need (the loss is spread over "
            "several, or its law is not one the audit sizes)"
        )
    return Evidence(
        CHECKS["program-confirm"],
        verdict="inconclusive",
        note=f"Not run: {check} refutes the claim exactly, so the black box is not needed -- its releases "
        f"could not change that verdict; {why}. The exact finding stands on its own.",
        details={
            "witness": witness,
            "not_run": f"{check} refutes the claim exactly",
            "release_numbers": budget.numbers,
        },
    )


def corroborating(r: Reading, refuted: str, releases: int) -> Reading:
    """The confirmation ``r`` of a claim the exact check ``refuted`` already refutes (:mod:`.confirmation_looks`): a
    corroboration on ``releases`` fresh releases per world, said so; its p-value decides nothing the exact check has
    not."""
    if not r.confirm:
        return r
    said = (
        f"A corroboration only ({refuted} refutes the claim exactly): one look of {releases:,} releases per "
        "world, the exact law's budget, not the --trials cap."
    )
    return dataclasses.replace(r, note=f"{said} {r.note}").with_details(corroboration=releases)


def wide(numbers: int) -> bool:
    """Whether a release of ``numbers`` numbers is read on a projection (:data:`~.release_sampler.MOST_COLUMNS`)."""
    return numbers > MOST_COLUMNS
