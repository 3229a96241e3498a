"""Checks and verdicts: a claim declared as data, the evidence about it, and the rules that decide it.

Every check has a **role**.  A ``guarantee`` is what the deployed release relies on (its DP in both
directions, the pDP values and bounds it publishes, the identities its calibration rests on): the run's
verdict and exit code come from guarantees only.  A ``paper`` check is a statement checked as printed in
a paper -- a finding reported beside the verdict, never inside it, unless the user's configuration deploys
that printed form (:meth:`CheckSpec.deployed`), which makes it a guarantee.  Each role is decided as its
own family of tests, so asking for paper findings never changes a guarantee's verdict or interval.

An audit family declares each claim once as a :class:`CheckSpec` (id, title, claim, formula, source) in
its ``audits/<family>/checks.py``.  Its evidence module pairs a spec with Monte Carlo or exact
evidence as an :class:`Evidence`; :func:`finalize` decides every piece of evidence of a run together
and returns the frozen :class:`pdp_audit.reports.records.Check` records that reports render:

* **fail** -- the data show a violation at the run's family-wise significance ``alpha``
  (Holm's step-down over every statistical check of the run, :func:`~pdp_audit.verify.estimators.stats.holm`);
* **pass** -- not failed, and the evidence supports the claim: the whole confidence interval lies on
  the claim's side, or an exact closed form satisfies the claim *and* the Monte Carlo interval is
  consistent with that closed form (a closed form alone is never evidence);
* **inconclusive** -- otherwise, with a sentence on what budget would decide it.

Confidence intervals are reported at the Bonferroni level ``1 − alpha/m`` (m = number of
statistical checks), so all intervals of a run hold simultaneously with probability ≥ 1 − alpha.
Exact (deterministic) checks carry no p-value and decide their verdict themselves.
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Mapping, Sequence

if TYPE_CHECKING:  # at run time imported where a record is made: the audits' parsers import this module, not them
    from pdp_audit.reports.records import Check, Direction, Figure, Interval, Page, PerInstance, Run, Verdict

Role = Literal["guarantee", "paper"]
Sampling = Literal["plain", "importance"]
ROLES: tuple[Role, ...] = ("guarantee", "paper")
VERDICT_ORDER = {"pass": 0, "inconclusive": 1, "fail": 2}
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}


@dataclass(frozen=True)
class CheckSpec:
    """What a check claims, declared as data.

    Text fields may hold ``{name}`` placeholders for the run's parameters; :meth:`fill` substitutes them.
    ``role`` is ``guarantee`` (decides the run's verdict) or ``paper`` (a statement as printed: a finding).
    ``delta_of``: the direction P‖Q of the run's claimed δ_{P‖Q}(ε) whose value the check's interval bounds (its
    evidence states ε as ``details["epsilon"]``): the check decides the user's (ε, δ) claim and the headline states
    what it certifies (:mod:`pdp_audit.reports.certified_claim`).  None for every other check -- among them a DP
    check of one stage of a pipeline at the stage's own ε, which is not the run's claim.
    ``stage``: the name of the stage of the run's release whose δ_{P‖Q}(ε) a ``delta_of`` check bounds, where the
    release is the adaptive composition of stages each audited at its own (ε_i, δ_i) (ObjPert's θ̂ᴾ and the privacy
    report of it); None where the check is of the release as a whole.
    """

    id: str
    title: str
    claim: str
    formula: str
    source: str
    role: Role = "guarantee"
    delta_of: Direction | None = None
    stage: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"check {self.id}: role must be one of {ROLES}, got {self.role!r}")
        if self.stage is not None and self.delta_of is None:
            raise ValueError(f"check {self.id}: a stage ({self.stage!r}) is named only on a check of a δ(ε) (delta_of)")

    def deployed(self, option: str) -> CheckSpec:
        """This printed statement as a guarantee, because the user's configuration (``option``) deploys it."""
        if self.role == "guarantee":
            return self
        return replace(self, role="guarantee", source=f"{self.source} (deployed: {option})")

    def fill(self, **values: Any) -> CheckSpec:
        """This spec with ``{name}`` placeholders of every text field formatted from ``values``."""
        return replace(
            self,
            **{name: getattr(self, name).format(**values) for name in ("id", "title", "claim", "formula", "source")},
        )


def declare(*specs: CheckSpec) -> dict[str, CheckSpec]:
    """A family's checks by id (ids must be unique)."""
    table = {spec.id: spec for spec in specs}
    if len(table) != len(specs):
        raise ValueError("duplicate check ids in a family's declaration")
    return table


#: The checks every audit builds at one neighbouring pair, each id after the family's prefix (``<prefix>dp-forward``):
#: the DP tails both ways and the attack (:func:`pdp_audit.verify.evidence.dp_checks.dp_specs`), and the
#: loss-consistency check that guards them (:func:`pdp_audit.verify.evidence.pair_validation.loss_consistency_check`).
PAIR_CHECKS = ("dp-forward", "dp-reverse", "lr-attack", "loss-consistency")


def id_matches(declared: str, check_id: str) -> bool:
    """Whether ``check_id`` is an id of the ``declared`` one: equal to it, where a ``{…}`` part of ``declared`` stands
    for any non-empty text a run fills in (``stage-{slug}`` matches ``stage-ssp-xtx``)."""
    pattern = ".+".join(re.escape(part) for part in re.split(r"\{[^{}]*\}", declared))
    return re.fullmatch(pattern, check_id) is not None


@dataclass(frozen=True)
class Evidence:
    """A claim and the evidence about it, not yet decided.

    Statistical evidence sets ``pvalue`` (of the null hypothesis "the claim holds"), ``interval``
    (confidence bounds at a given alpha) and ``supports`` (does this interval support the claim?);
    their level is known only when the whole run is finalized, hence functions of alpha.
    Exact evidence sets ``verdict`` directly and leaves ``pvalue`` as ``None``.
    ``sampling`` says how a claim on δ(ε) was decided: ``plain`` (hockey-stick tails of plain draws) or
    ``importance`` (importance sampling at the dominating point); None for evidence of any other kind.
    """

    spec: CheckSpec
    estimate: float | None = None
    exact: float | None = None
    pvalue: float | None = None
    interval: Callable[[float], Interval] | None = None
    supports: Callable[[Interval | None, float], bool] | None = None
    budget_hint: Callable[..., str] | None = None  # (ci) -> text, or (ci, alpha) -> text with ``hint_alpha``
    make_figure: Callable[[float], Figure] | None = None
    verdict: Verdict | None = None
    note: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    figure: Figure | None = None
    sampling: Sampling | None = None
    hint_alpha: bool = False
    #: (the level a fail is read at: Holm's smallest, α/m) -> this evidence as a fail reports it, its note and details
    #: naming the witness that refutes at that level (an event seen in one world only, where one does); None: as is
    failed: Callable[[float], Evidence] | None = None

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def statistical(self) -> bool:
        return self.pvalue is not None

    def noted(self, text: str, before: bool = False) -> Evidence:
        """This evidence with ``text`` added to its note (after it, or before it)."""
        parts = (text, self.note) if before else (self.note, text)
        return replace(self, note=" ".join(parts).strip())

    def retitled(self, title: str) -> Evidence:
        return replace(self, spec=replace(self.spec, title=title))

    def with_details(self, **details: Any) -> Evidence:
        return replace(self, details={**self.details, **details})


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The most severe verdict (fail > inconclusive > pass); inconclusive when there is none."""
    verdicts = list(verdicts)
    return max(verdicts, key=VERDICT_ORDER.__getitem__) if verdicts else "inconclusive"


#: Whether the checks' figures are drawn: only a PDF shows them (the JSON leaves them out), so a command whose report
#: is ``none`` draws none, nor samples the points only a figure shows (:func:`without_figures`).
FIGURES = ContextVar("pdp_audit_figures", default=True)


@contextmanager
def without_figures() -> Iterator[None]:
    """Inside the block no figure is drawn (every check's ``figure`` is None) and no point only a figure shows is
    sampled; everything else -- verdicts, estimates, details, notes, the JSON -- is what it is with figures.  For a
    caller that writes no PDF of the run (``--report none``); an API caller may write one later, so the API keeps
    them."""
    token = FIGURES.set(False)
    try:
        yield
    finally:
        FIGURES.reset(token)


def finalize(evidence: Sequence[Evidence], alpha: float) -> list[Check]:
    """Decide every verdict of a run, each role at family-wise error ``alpha`` (see the module docstring)."""
    decided: dict[int, Check] = {}
    for role in ROLES:
        decided.update(_decide_family([e for e in evidence if e.spec.role == role], alpha))
    return [decided[id(e)] for e in evidence]


def _decide_family(evidence: Sequence[Evidence], alpha: float) -> dict[int, Check]:
    """Holm's step-down over the statistical checks of ``evidence``; exact checks keep their own verdict."""
    # deferred: loads scipy; list --help and pytest's start-up must not
    from pdp_audit.verify.estimators.stats import holm

    statistical = [e for e in evidence if e.statistical]
    reject, adjusted = holm([e.pvalue for e in statistical if e.pvalue is not None], alpha)  # each has one
    per_check_alpha = alpha / max(1, len(statistical))
    # a failed check reports the witness read at the smallest level Holm could have rejected it at (so the event it
    # names refutes on its own wherever the check does)
    shown = {
        id(e): e.failed(per_check_alpha) if rejected and e.failed is not None else e
        for e, rejected in zip(statistical, reject)
    }
    decided = {
        id(e): _decide(shown[id(e)], rejected, adj, per_check_alpha)
        for e, rejected, adj in zip(statistical, reject, adjusted)
    }
    # deferred: loads pdp_audit.reports.records; list --help must not
    from pdp_audit.reports.records import Check

    checks = {}
    for e in evidence:
        fields = decided.get(id(e), {"verdict": e.verdict, "note": e.note})
        if fields["verdict"] is None:
            raise ValueError(f"check {e.id} has neither a p-value nor a verdict")
        figure = e.make_figure(per_check_alpha) if e.make_figure is not None and FIGURES.get() else e.figure
        checks[id(e)] = Check(
            id=e.spec.id,
            title=e.spec.title,
            claim=e.spec.claim,
            formula=e.spec.formula,
            source=e.spec.source,
            role=e.spec.role,
            estimate=e.estimate,
            exact=e.exact,
            pvalue=e.pvalue,
            details=shown[id(e)].details if id(e) in shown else e.details,
            figure=figure,
            delta_of=e.spec.delta_of,
            stage=e.spec.stage,
            **fields,
        )
    return checks


def _decide(e: Evidence, rejected: bool, adjusted: float, alpha: float) -> dict[str, Any]:
    ci = e.interval(alpha) if e.interval else None
    note = e.note
    if rejected:
        verdict = "fail"
    elif e.supports is not None and e.supports(ci, alpha):
        verdict = "pass"
    else:
        verdict = "inconclusive"
        if e.budget_hint is not None:
            note = (note + " " + (e.budget_hint(ci, alpha) if e.hint_alpha else e.budget_hint(ci))).strip()
    return {"verdict": verdict, "note": note, "ci": ci, "level": 1 - alpha, "adjusted_pvalue": adjusted}


def make_run(
    mechanism: str,
    checks: Sequence[Check],
    alpha: float,
    parameters: Mapping[str, Any],
    seed: int,
    per_instance: PerInstance | None = None,
    pages: Sequence[Page] = (),
    paper_claims: bool = True,
) -> Run:
    """The run record: guarantees in ``checks``, paper findings apart; verdict and exit code from guarantees.

    With ``paper_claims`` false the paper findings and pages are left out (``findings`` is None: not run).
    """
    guarantees = tuple(c for c in checks if c.role == "guarantee")
    verdict = worst(c.verdict for c in guarantees)
    if verdict == "pass" and not _claim_holds(guarantees):
        verdict = "inconclusive"  # every check passed, yet nothing makes the claim itself hold: not decided
    certified = delta_certified(guarantees) if verdict == "pass" and parameters.get("delta") == 0 else None
    if certified is not None:  # a pure claim: what its pass certifies, stated (sampling cannot prove δ = 0)
        parameters = {**parameters, "delta_certified": certified}
    # deferred: loads pdp_audit.reports.records; list --help must not
    from pdp_audit.reports.records import Run

    return Run(
        mechanism=mechanism,
        checks=guarantees,
        findings=tuple(c for c in checks if c.role == "paper") if paper_claims else None,
        verdict=verdict,
        exit_code=EXIT_CODES[verdict],
        alpha=alpha,
        parameters=parameters,
        seed=seed,
        per_instance=per_instance,
        pages=tuple(p for p in pages if paper_claims or p.role == "guarantee"),
    )


def _claim_holds(guarantees: Sequence[Check]) -> bool:
    """Whether a passing run's claim holds by what decided it (its exact closed form, a proof or its intervals:
    :mod:`pdp_audit.reports.certified_claim`); True for a run that decides no pair's claim."""
    # deferred: loads pdp_audit.reports.certified_claim; list --help must not
    from pdp_audit.reports.certified_claim import certified_claim

    claim = certified_claim(guarantees)
    return claim is None or claim.covers_claim


def delta_certified(checks: Sequence[Check]) -> float | None:
    """What a pure claim's pass certifies (δ = 0 cannot be proven by sampling): over the checks of the claim (each
    direction's δ_{P‖Q}(ε), :attr:`CheckSpec.delta_of`), the largest of their tightest upper ends at the run's level
    (:func:`pdp_audit.reports.certified_claim.tightest`); None where none has a finite one."""
    # deferred: loads pdp_audit.reports.certified_claim; list --help must not
    from pdp_audit.reports.certified_claim import claim_checks, tightest

    upper = [tightest(c, checks)[0] for c in claim_checks(checks) if c.ci is not None]
    return max(upper) if upper and all(math.isfinite(u) for u in upper) else None


def without_findings(run: Run) -> Run:
    """``run`` as if its paper findings had not been asked for (verdict and guarantees unchanged); a run of an audit
    that has no paper statements keeps its empty findings (there is nothing it could have been asked for)."""
    findings = () if run.findings == () else None
    return replace(run, findings=findings, pages=tuple(p for p in run.pages if p.role == "guarantee"))


def samples_to_decide(n: int, ci: Interval, estimate: float, threshold: float) -> str:
    """Rough budget to separate an estimate from a threshold: intervals shrink like 1/√n, so N = n·(w/g)² where g is
    the gap between estimate and threshold and w the interval's half-width, the larger of its two sides where both are
    finite (``benchmarks/budget_hints_builtin.py`` measures it on the built-in audits: right within a factor of 3).

    Only the side facing the threshold can cross it.  A side that is infinite -- the upper end of an importance-sampled
    tail whose weights are not certified bounded (:mod:`pdp_audit.verify.estimators.rare`) -- never shrinks: with the
    estimate
    below the threshold no budget decides, and above it the finite lower side sets w.  (Both sides were compared
    before, and an infinite one was reported as an estimate sitting on the claimed value, whatever the gap.)"""
    gap = abs(threshold - estimate)
    if gap == 0:
        return "The estimate sits on the claimed value: no sample size can decide a claim that is exactly tight."
    facing = ci[1] - estimate if estimate < threshold else estimate - ci[0]
    if not math.isfinite(facing):
        return (
            "No sample size can decide it: the interval's upper end is not certified (it stays infinite), so sampling "
            "can refute the claim but never confirm it while the estimate lies below the claimed value."
            if estimate < threshold
            else "No sample size can decide it: the interval's lower end is unbounded."
        )
    sides = [side for side in (ci[1] - estimate, estimate - ci[0]) if math.isfinite(side)]
    ratio = max(sides) / gap
    if ratio > 1e100:  # e.g. a claimed δ of 1e-250: (ratio)² would overflow, and no budget could reach it
        return "No feasible budget separates the estimate from the claimed value (more than 1e200 samples per world)."
    needed = max(n * ratio**2, 1.25 * n)  # never the budget that was just run: the estimate moves as n grows
    return f"About {needed:.1e} samples per world (now {n:.1e}) would separate the estimate from the claimed value."
