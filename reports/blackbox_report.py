"""The PDF of ``pdp-audit blackbox --report``: the run's report (:mod:`pdp_audit.reports.pdf`: cover with the verdict
banner, the claim and the attack against the claim's (ε, δ) region -- the ROC of a learned score at pooled ranks,
or the event test's events at (Q(S), log P(S)/Q(S)); the check's page; provenance) with more pages: the pair and its
witness, the witness's test as a reader sees it, and the search's ranking of candidate pairs by their pilot bound.

Byte-identical for identical runs, as every report: the pages are plain records and the renderer stamps no date.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from pdp_audit.reports.records import Page, Run


@dataclass(frozen=True)
class BlackBoxReport:
    """What the black-box PDF shows beyond the run: ``pair`` lines (the chosen pair, or how the target drew it),
    ``ranking`` rows (rank, pilot bound, name, D'; best first; empty without a search), ``witness`` lines and
    ``statistic`` lines (the witness's test: its events and the parameters of its score that weigh most)."""

    run: Run
    pair: tuple[str, ...] = ()
    ranking: tuple[str, ...] = ()
    witness: tuple[str, ...] = ()
    statistic: tuple[str, ...] = ()


PAIR_TEXT = (
    "The neighbouring pair the bound is about, and the witness: the frozen test, stored as data in the JSON (the "
    "score's parameters -- coefficients, trees, bins or outcomes -- and its threshold or events), which "
    "“pdp-audit blackbox TARGET --witness JSON --seed S” re-applies to fresh releases of the same target."
)
STATISTIC_TEXT = (
    "The test as the witness stores it, fitted on training releases and chosen on further ones before the fresh "
    "releases were drawn: what it computes of a release, the parameters that weigh most (the JSON holds every "
    "number, to full precision) and, for the event test, the events whose fresh counts bound ε. Any fixed test "
    "gives a valid bound; a better one only a higher bound."
)
RANKING_TEXT = (
    "Each candidate pair was attacked on a pilot budget and ranked by that attack's ε lower bound at confidence "
    "0.9 (with several rounds, the better half again on twice the pilot releases, fresh ones, each round; a "
    "candidate's last round is shown). The pilots only select: the first pair was then attacked on fresh "
    "releases, and only that bound enters the verdict (one test of one pair, fixed before its releases were drawn, "
    "so the run's level needs no correction for the search)."
)


def report_pages(record: BlackBoxReport) -> tuple[Page, ...]:
    """The pair-and-witness page, the test's page when the witness holds one as data, and the ranking page when
    there was a search."""
    pages = [Page("The pair and its witness", PAIR_TEXT, rows=record.pair + ("",) + record.witness)]
    if record.statistic:
        pages.append(Page("The witness's test", STATISTIC_TEXT, rows=record.statistic))
    if record.ranking:
        header = f"{'rank':>4}  {'pilot ε':>8}  {'pilot n':>9}  {'candidate':<36}  {'D':<32}  D'"
        pages.append(Page("Search over neighbouring inputs", RANKING_TEXT, rows=(header, *record.ranking)))
    return tuple(pages)


def render_blackbox_pdf(record: BlackBoxReport, path: str | Path) -> None:
    """Render the black-box report to ``path`` (not atomically: callers write through
    :func:`pdp_audit.reports.publish.write_together`)."""
    # deferred: loads matplotlib; the record is built by every black-box run, most of them drawing no PDF
    from pdp_audit.reports.pdf import render_pdf

    run = dataclasses.replace(record.run, pages=(*record.run.pages, *report_pages(record)))
    render_pdf(run, path)
