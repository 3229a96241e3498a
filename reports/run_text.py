"""A run as text, for a terminal or a log: :func:`describe` (each check's claim, formula, estimate, interval and
Holm-adjusted p-value; ``pdp_audit.describe`` and the pytest plugin's messages) and :func:`summary_lines` (one line a
check, as ``pdp-audit run`` prints them).  Plain records in, strings out: one place that words a verdict."""

from __future__ import annotations

from typing import Sequence

from pdp_audit.reports.certified_claim import verdict_suffix
from pdp_audit.reports.numbers import fmt_level
from pdp_audit.reports.records import Check, Run
from pdp_audit.reports.verdict_words import check_word, claim_word


def verdict_words(verdict: str, checks) -> str:
    """``CERTIFIED``, and what it certified where it decides a pair's claim (``CERTIFIED: (1, 3.3e-11)-DP
    certified``), with "not reproducible" where the sampler draws from its own source
    (:mod:`pdp_audit.reports.certified_claim`)."""
    return claim_word(verdict) + verdict_suffix(checks)


def describe(run: Run) -> str:
    """A readable account of a run: its verdict, then each check's claim, formula, estimate, interval and
    Holm-adjusted p-value (the note of each check that did not pass).

    Example::

        print(pdp_audit.describe(run))

    Anything but a :class:`~pdp_audit.reports.records.Run` is a one-line TypeError naming what it takes.
    """
    if not isinstance(run, Run):
        raise TypeError(
            "describe takes a Run (what pdp_audit.run_audit, audit_pair, audit_blackbox, audit_canary_scores, "
            f"audit_coverage and certify return; a search's outcome holds it as .run), got {type(run).__name__}"
        )
    lines = [f"pdp-audit: {run.mechanism}: {verdict_words(run.verdict, run.checks)} (exit code {run.exit_code})"]
    lines += check_lines(run.checks)
    lines.append(f"  (seed {run.seed}, false-alarm probability α = {run.alpha:g}, Holm over the run's checks)")
    scope = (run.parameters or {}).get("scope")
    if scope:  # what the verdict is about: the float program as implemented, or the real-valued law
        lines.append(f"  (scope: {scope})")
    return "\n".join(lines)


def check_lines(checks: Sequence[Check]) -> list[str]:
    """Two lines per check (three with its note when it did not pass), as :func:`describe` prints them."""
    lines = []
    for c in checks:
        ci = (
            ""
            if c.ci is None or c.level is None  # set together (the level the interval is read at)
            else f", interval [{c.ci[0]:.4g}, {c.ci[1]:.4g}] at confidence {fmt_level(c.level)}"
        )
        adj = "" if c.adjusted_pvalue is None else f", Holm-adjusted p-value {c.adjusted_pvalue:.3g}"
        lines.append(f"  [{c.id}] {check_word(c.verdict)}: {c.claim}")
        estimate = "—" if c.estimate is None else f"{c.estimate:.4g}"
        exact = "" if c.exact is None else f"; exact {c.exact:.4g}"
        lines.append(f"      {c.formula}; estimate {estimate}{ci}{adj}{exact}")
        if c.verdict != "pass" and c.note:
            lines.append(f"      {c.note}")
    return lines


def summary_lines(run: Run, elapsed: float) -> list[str]:
    """What ``pdp-audit run`` prints: one line for the run's verdict, one per guarantee and one per paper finding."""
    lines = [f"pdp-audit run {run.mechanism}: {verdict_words(run.verdict, run.checks)} ({elapsed:.1f} s)"]
    lines += [_summary_line(check) for check in run.checks]
    if run.findings:
        lines.append("  paper findings (statements as printed; not part of the verdict):")
        lines += [_summary_line(check) for check in run.findings]
    if (run.parameters or {}).get("scope"):
        lines.append(f"  scope: {run.parameters['scope']}")
    return lines


def _summary_line(check: Check) -> str:
    ci = "" if check.ci is None else f"  CI [{check.ci[0]:.4g}, {check.ci[1]:.4g}]"
    est = "" if check.estimate is None else f"estimate {check.estimate:.4g}"
    return f"  {check_word(check.verdict):13s} {check.id:24s} {est}{ci}"
