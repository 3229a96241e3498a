"""The plain records a report renders: decided checks, runs, extra pages and their figures.

Everything here is frozen data with no behaviour beyond what rendering needs.  :mod:`verify` decides
verdicts and builds these records; :mod:`pdp_audit.reports.pdf` and :mod:`pdp_audit.reports.json_report` render them.
This module imports nothing of the suite's, so the renderer depends on no mathematics, audit or verdict rule.

Arrays in figure records are whatever array-like the producer had (numpy arrays or lists); the plotters
convert them.  Records are compared by identity, not value (``eq=False``), because arrays have no
single truth value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence, Union

Verdict = Literal["pass", "fail", "inconclusive"]
Role = Literal["guarantee", "paper"]  # decides the verdict, or a statement as printed (a finding beside it)
Interval = tuple[float, float]
#: The direction P‖Q of a hockey-stick divergence δ_{P‖Q}(ε): D‖D' (forward) or D'‖D (reverse).
Direction = Literal["D||D'", "D'||D"]
ArrayLike = Any  # a numpy array or a sequence of numbers

# --- figures -------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class TailCurve:
    """δ(ε) of one direction: the Monte Carlo estimate, its interval and the exact curve, on a grid of ε."""

    estimate: ArrayLike
    lo: ArrayLike
    hi: ArrayLike
    exact: ArrayLike


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class TailCurves:
    """One panel per direction (``curves`` keyed by the direction's name, e.g. ``D||D'``), with the claim point."""

    epsilons: ArrayLike
    curves: Mapping[str, TailCurve]
    level: float
    epsilon_claim: float
    delta_claim: float


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Roc:
    """The empirical ROC of the likelihood-ratio attack against the region an (ε, δ)-DP claim allows.

    ``exact_points``: optional (threshold, tpr, fpr) triples of the exact optimal trade-off.
    """

    fpr: ArrayLike
    tpr: ArrayLike
    epsilon_claim: float
    delta_claim: float
    epsilon_lower_bound: float
    level: float
    exact_points: Sequence[Sequence[float]] = ()
    curve_label: str = "likelihood-ratio attack (empirical ROC)"
    xlabel: str = "false-positive rate (output of D' called D)"
    ylabel: str = "true-positive rate (output of D called D)"
    region_label: str = ""  # default: "allowed by (ε, δ)-DP"


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class EventPoint:
    """One event S of the black-box event test, oriented so that P is the rate of the world it favours and Q of the
    other: ``rate`` = Q(S) and its interval, ``log_ratio`` = log(P(S)/Q(S)) and its interval (±inf where a count
    is 0), ``bound`` its ε lower bound, ``label`` what S is."""

    label: str
    rate: float
    rate_interval: Interval
    log_ratio: float
    log_ratio_interval: Interval
    bound: float


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class EventRates:
    """The events of the black-box event test against the region an (ε, δ)-DP claim allows: every set S has
    P(S) ≤ e^ε Q(S) + δ (each world's rate in turn as P), i.e. log(P(S)/Q(S)) ≤ log(e^ε + δ/Q(S))."""

    events: Sequence[EventPoint]
    epsilon_claim: float
    delta_claim: float
    epsilon_lower_bound: float
    level: float


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class CoverageFigure:
    """An observed failure rate with its interval against the claimed maximum ρ (and the exact rate, if known)."""

    failure_rate: float
    lo: float
    hi: float
    level: float
    rho: float
    trials: int
    exact: float | None = None


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Series:
    """A labelled sample of values, drawn as a histogram."""

    label: str
    values: ArrayLike


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Marker:
    """A labelled vertical line at ``value`` (matplotlib line style ``style``)."""

    label: str
    value: float
    style: str = "-"


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Histograms:
    """Overlaid histograms on shared bins from ``xmin`` to just above the largest value or marker."""

    series: Sequence[Series]
    markers: Sequence[Marker] = ()
    xlabel: str = ""
    ylabel: str = "count"
    xmin: float = 0.0
    bins: int = 50


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Panel:
    """One scatter plot of ``(x, y)`` coloured by ``c``, with an optional arrow from the origin."""

    title: str
    x: ArrayLike
    y: ArrayLike
    c: ArrayLike
    arrow: Sequence[float] | None = None


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class ScatterPanels:
    """A grid of scatter panels on one shared colour scale (logarithmic if ``log_colour``)."""

    panels: Sequence[Panel]
    clabel: str = ""
    columns: int = 3
    log_colour: bool = False


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Line:
    """One curve ``y`` against ``x`` (or the figure's shared ``x``), with an optional band ``lo``–``hi``."""

    label: str
    y: ArrayLike
    x: ArrayLike | None = None
    lo: ArrayLike | None = None
    hi: ArrayLike | None = None
    marker: str = "o"
    style: str = "-"


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Lines:
    """Several curves on one axis (shared ``x`` unless a line has its own)."""

    series: Sequence[Line]
    x: ArrayLike | None = None
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    #: names of the x positions 1, 2, …: discrete cases (individuals), each series' interval drawn as an error bar
    #: at each (a band between two individuals would mean nothing) and the y axis fitted to the intervals
    categories: Sequence[str] | None = None


Figure = Union[TailCurves, Roc, EventRates, CoverageFigure, Histograms, ScatterPanels, Lines]


# --- checks, pages, runs ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Check:
    """One decided claim: what it states (words, formula, source), the evidence and the verdict.

    Statistical checks carry ``pvalue`` (of "the claim holds"), its Holm-adjusted value and a
    confidence interval ``ci`` at confidence ``level``; exact checks carry none of these.
    ``delta_of``: the direction of the run's claimed δ_{P‖Q}(ε) (ε in ``details["epsilon"]``) whose value this
    check's interval bounds -- a check of the user's claim (:mod:`pdp_audit.reports.certified_claim`); None for any
    other check.  ``stage``: the stage of the run's release (an adaptive composition) whose δ(ε) that is; None where
    it is the release's own (:mod:`pdp_audit.reports.certified_claim`).
    """

    id: str
    title: str
    claim: str
    formula: str
    source: str
    verdict: Verdict
    role: Role = "guarantee"
    estimate: float | None = None
    exact: float | None = None
    pvalue: float | None = None
    ci: Interval | None = None
    level: float | None = None
    adjusted_pvalue: float | None = None
    note: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    figure: Figure | None = None
    delta_of: Direction | None = None
    stage: str | None = None

    @property
    def statistical(self) -> bool:
        return self.pvalue is not None


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Page:
    """An extra report page: a title, explanatory text, table ``rows`` (one line each) and at most one figure.

    A ``paper`` page (a reproduction of a paper's figure) goes to the appendix of paper findings.
    """

    title: str
    text: str = ""
    figure: Figure | None = None
    role: Role = "guarantee"
    rows: Sequence[str] = ()


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Table:
    """A small table: column headings, rows of cells (text as shown), the indices of the rows to highlight (what a
    reader looks for first: a diverging call, an over-sensitive one) and the columns' relative widths (default:
    equal)."""

    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    highlight: Sequence[int] = ()
    widths: Sequence[float] = ()


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Section:
    """One part of a review page: a heading, a sentence or two, an optional table and a sentence below it."""

    heading: str
    text: str = ""
    table: Table | None = None
    after: str = ""


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class ReviewPage:
    """The page a reviewer reads first (the report's page 1): a title, a line stating the claim, the verdict's
    headline (in the verdict's colour) with its one reading, then sections in order; ``footnote``: one short line in
    the bottom margin of the first page, below everything the page fits (where its words are explained), not part of
    the page's data (the JSON's ``review``)."""

    title: str
    claim: str
    verdict: Verdict
    headline: str
    reading: str
    sections: Sequence[Section] = ()
    footnote: str = ""


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class PerInstance:
    """Every individual's exact pDP ε and its Corollary 23 bound, against the mechanism's DP ε and the claim."""

    pdp_epsilon: ArrayLike
    cor23_epsilon: ArrayLike
    delta: float
    dp_epsilon: float
    claim_epsilon: float
    median: float
    max: float
    fraction_below_half_dp: float
    #: What each individual's ε is computed at (the page's wording; not in the JSON).
    sensitivity_label: str = "sensitivity ‖Δ_z‖"

    def summary(self) -> dict[str, float]:
        """The scalar fields (what the JSON report keeps)."""
        return {
            "delta": self.delta,
            "dp_epsilon": self.dp_epsilon,
            "claim_epsilon": self.claim_epsilon,
            "median": self.median,
            "max": self.max,
            "fraction_below_half_dp": self.fraction_below_half_dp,
        }


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Clipping:
    """How many rows the query's clip bound changed: ``clipped`` of ``rows`` had ``norm`` norm above ``bound``, a
    ``share`` of them; ``warning`` is the sentence the report shows when the share is large (above 20%; else None)."""

    clipped: int
    rows: int
    bound: float
    norm: str
    share: float
    warning: str | None = None

    def summary(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "clipped_rows": self.clipped,
            "rows": self.rows,
            "clipped_share": self.share,
            "clip": self.bound,
            "norm": self.norm,
            "warning": self.warning,
        }


@dataclass(frozen=True, eq=False)  # records compare by identity: their arrays have no ==
class Run:
    """The decided checks of one audit run, with the verdict and exit code :mod:`verify` assigned them.

    ``checks`` are the guarantees (they decide ``verdict``); ``findings`` the statements checked as printed
    in the papers, each with its own verdict, or None when they were not asked for (empty for an audit that has
    none, such as a user's pair).  ``certified`` is set by
    ``pdp-audit certify``: what was certified (mechanism, parameters, claim, data fingerprint, code version).
    ``clipping``: the share of rows a clipping query changed, for the audits of such queries (None otherwise).
    ``subject``: what the run audited when it is not a run of a named audit -- the test and assertion of the pytest
    plugin's report -- stated once on its cover (None for ``pdp-audit run``).  ``review``: the one page a reviewer
    reads, where the audit writes one (the report's page 1).
    """

    mechanism: str
    checks: Sequence[Check]
    verdict: Verdict
    exit_code: int
    alpha: float
    parameters: Mapping[str, Any]
    seed: int
    per_instance: PerInstance | None = None
    pages: Sequence[Page] = ()
    findings: Sequence[Check] | None = None
    certified: Mapping[str, Any] | None = None
    clipping: Clipping | None = None
    subject: str | None = None
    #: the page a reviewer reads first, where the audit draws one: drawn as the report's page 1, before the cover
    review: ReviewPage | None = None
