"""Checks and verdicts.

A :class:`Check` states a claim from a paper (words, formula, source), the Monte Carlo estimate
bearing on it, and how to turn evidence into a verdict:

* **fail** -- the data show a violation at the run's family-wise significance ``alpha``
  (Holm's step-down over every statistical check of the run, via statsmodels);
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
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from verify.stats import holm

Verdict = Literal["pass", "fail", "inconclusive"]
VERDICT_ORDER = {"pass": 0, "inconclusive": 1, "fail": 2}
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}

Interval = tuple[float, float]


@dataclass
class Check:
    """One claim and the evidence about it.

    Statistical checks set ``pvalue`` (of the null hypothesis "the claim holds"), ``interval``
    (confidence bounds at a given alpha) and ``supports`` (does this interval support the claim?).
    Exact checks set ``verdict`` directly and leave ``pvalue`` as ``None``.
    """

    id: str
    title: str
    claim: str
    formula: str
    source: str
    estimate: float | None = None
    exact: float | None = None
    pvalue: float | None = None
    interval: Callable[[float], Interval] | None = None
    supports: Callable[[Interval | None, float], bool] | None = None
    budget_hint: Callable[[Interval | None], str] | None = None
    make_figure: Callable[[float], dict[str, Any]] | None = None
    verdict: Verdict | None = None
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    figure: dict[str, Any] | None = None
    # filled by finalize()
    ci: Interval | None = None
    level: float | None = None
    adjusted_pvalue: float | None = None

    @property
    def statistical(self) -> bool:
        return self.pvalue is not None


@dataclass
class Run:
    """The checks of one audit run, finalized together."""

    mechanism: str
    checks: list[Check]
    alpha: float
    parameters: dict[str, Any]
    seed: int
    per_instance: dict[str, Any] | None = None
    # Extra report pages (reproduced figures, per-instance views): each a dict with "title", "text"
    # and "figure" (a figure spec whose "kind" is one of reports.pdf.PLOTTERS).
    pages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        return worst(c.verdict for c in self.checks)  # type: ignore[arg-type]

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


def worst(verdicts) -> Verdict:
    verdicts = list(verdicts)
    return max(verdicts, key=VERDICT_ORDER.__getitem__) if verdicts else "inconclusive"


def finalize(checks: list[Check], alpha: float) -> list[Check]:
    """Decide every verdict of a run at family-wise error ``alpha`` (see the module docstring)."""
    statistical = [c for c in checks if c.statistical]
    reject, adjusted = holm([c.pvalue for c in statistical], alpha)
    per_check_alpha = alpha / max(1, len(statistical))
    for check, rejected, adj in zip(statistical, reject, adjusted):
        check.adjusted_pvalue = adj
        check.level = 1 - per_check_alpha
        check.ci = check.interval(per_check_alpha) if check.interval else None
        if rejected:
            check.verdict = "fail"
        elif check.supports is not None and check.supports(check.ci, per_check_alpha):
            check.verdict = "pass"
        else:
            check.verdict = "inconclusive"
            if check.budget_hint is not None:
                check.note = (check.note + " " + check.budget_hint(check.ci)).strip()
    for check in checks:
        if check.make_figure is not None:
            check.figure = check.make_figure(per_check_alpha)
        if check.verdict is None:
            raise ValueError(f"check {check.id} has neither a p-value nor a verdict")
    return checks


def samples_to_decide(n: int, ci: Interval, estimate: float, threshold: float) -> str:
    """Rough budget to separate an estimate from a threshold: intervals shrink like 1/√n."""
    half_width = max(ci[1] - estimate, estimate - ci[0])
    gap = abs(threshold - estimate)
    if gap == 0 or not math.isfinite(half_width):
        return "The estimate sits on the claimed value: no sample size can decide a claim that is exactly tight."
    needed = n * (half_width / gap) ** 2
    return f"About {needed:.1e} samples per world (now {n:.1e}) would separate the estimate from the claimed value."
