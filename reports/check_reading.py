"""What a decided check rests on and the number a reader should take from it, in words, for the cover's table and
the check's page.

One estimate column cannot serve every check: a δ(ε) check's estimate is a δ, an attack's an ε, a goodness-of-fit
test's a p-value.  So each row states its **basis** -- the evidence the verdict stands on -- and its **reading**: the
number with its symbol (δ(ε) ≤ …, ε ≥ …, P[fails] ≤ …, p = …), read from the check's own fields and details:

* an exact check (no p-value) is decided by computation, to floating-point tolerance;
* a certified analytic bound (``details["certified_delta"]``) decides with sampling only required to agree;
* a closed form (``exact``) decides where the interval alone does not lie on the claim's side and sampling agrees
  with it (:mod:`pdp_audit.verify.core.checks`' rule); where the interval does lie on that side, the sampling decides;
* otherwise sampling decides: plain Monte Carlo, or importance sampling (``details["sampling"]``), at the stated
  simultaneous confidence.

The check's page leads its numbers with the one that decides (:func:`evidence_lines`): a certified bound or closed
form first and the sampling that must agree with it second; a sampled interval with no finite upper end (only its
lower end certified) is shown as that lower end, never as "[0, ∞]" beside a PASS.
"""

from __future__ import annotations

import math

from pdp_audit.reports.page_text import fmt, fmt_ci, fmt_level
from pdp_audit.reports.records import Check


def _sampling(check: Check) -> str:
    return "importance sampling" if check.details.get("sampling") == "importance" else "Monte Carlo"


def _level(check: Check) -> str:
    return f" at confidence {fmt_level(check.level)}" if check.level else ""


def _threshold(check: Check) -> float | None:
    """The claimed bound the check's interval is held against (δ, or the failure rate ρ), where the details say."""
    for key in ("delta_claim", "rho"):
        value = check.details.get(key)
        if isinstance(value, (int, float)):
            return float(value)
    return None


def interval_decides(check: Check) -> bool:
    """Whether the interval's upper end alone lies on the claim's side of its bound."""
    bound = _threshold(check)
    return check.ci is not None and bound is not None and check.ci[1] <= bound


def _is_fit(check: Check) -> bool:
    """A rate check of the claims ledger: an exponent fitted over a sweep's cells against the claimed one."""
    return "points" in check.details and "relation" in check.details and check.ci is not None


def basis(check: Check) -> str:
    """What the verdict stands on, in a few words."""
    if _untested(check):
        return "nothing tested (see the note)"
    if _is_fit(check):
        return f"power-law fit over the sweep's cells{_level(check)}"
    if not check.statistical:
        return "exact computation"
    how = _sampling(check)
    if _is_attack(check):  # an attack bounds ε from below on fresh releases: sampling alone, whatever is exact
        return f"attack on observed releases{_level(check)}"
    if check.details.get("certified_delta") is not None:
        return f"certified analytic bound; {how} agrees"
    if _closed_bound_decides(check):
        return f"closed-form bound; {how} agrees"
    if check.exact is not None and not interval_decides(check) and check.verdict != "inconclusive":
        return f"closed form; {how} agrees"
    return f"{how}{_level(check)}"  # an undecided check with a closed form: sampling could not settle it


def _is_attack(check: Check) -> bool:
    """An attack bounds ε from below: the likelihood-ratio attack, or any check on ε whose interval is [lo, ∞]."""
    one_sided = check.ci is not None and check.ci[1] == float("inf") and "epsilon" in check.id
    return "count_tp" in check.details or check.id.endswith("attack") or one_sided


def _closed_bound_decides(check: Check) -> bool:
    """A pass that stands on a closed-form upper bound of the failure probability (the sampled interval, wider than
    ρ, only agrees with it)."""
    upper = check.details.get("closed_form_upper")
    return check.verdict == "pass" and isinstance(upper, (int, float)) and not interval_decides(check)


def _untested(check: Check) -> bool:
    """Nothing was tested (a guarantee whose hypothesis never held, a sweep not run at --quick): no number at all."""
    return check.verdict == "inconclusive" and check.estimate is None and check.ci is None and check.pvalue is None


def _against(check: Check, value: float | None, bound: float) -> str:
    """``≤`` or ``>``: how a closed form compares with the claimed bound, as the verdict decided it (a calibrated
    mechanism's closed form equals δ to rounding: the checks' tolerance passes it)."""
    if check.verdict in ("pass", "fail"):
        return "≤" if check.verdict == "pass" else ">"
    return "≤" if value is not None and value <= bound else ">"


def _bounded(at: str, check: Check, bound: float, name: str) -> str:
    """A probability held against its claimed bound (δ, or ρ), read as the verdict stands: the closed form where it
    decides; else the sampled interval's upper end below the bound (pass), its lower end above it (fail), or the
    interval holding it (undecided)."""
    lo, hi = check.ci if check.ci is not None else (None, None)
    if check.exact is not None and not interval_decides(check):
        relation = _against(check, check.exact, bound)
        text = f"{at} = {fmt(check.exact, 3)} (closed form) {relation} {name} = {fmt(bound, 3)}"
        if check.verdict == "inconclusive" and lo is not None and hi is not None:
            text += f"; sampled in [{fmt(lo, 3)}, {fmt(hi, 3)}], undecided"
        return text
    if check.verdict == "fail" and lo is not None and lo > bound:
        return f"{at} ≥ {fmt(lo, 3)} > {name} = {fmt(bound, 3)}"
    if check.verdict == "inconclusive" and lo is not None and hi is not None:
        return f"{at} in [{fmt(lo, 3)}, {fmt(hi, 3)}], which contains {name} = {fmt(bound, 3)}"
    return f"{at} ≤ {fmt(hi, 3)}" + (f" ({name} = {fmt(bound, 3)})" if name == "ρ" else "")


def _fitted(check: Check) -> str:
    assert check.ci is not None and check.exact is not None  # a fit's: its interval (_is_fit), the claim
    lo, hi = check.ci
    fitted, claimed = f"exponent {fmt(check.estimate, 3)} in [{fmt(lo, 3)}, {fmt(hi, 3)}]", fmt(check.exact, 3)
    if check.details["relation"] == "<=":  # an upper bound: fails only when the whole interval lies above it
        return f"{fitted}, {'above' if lo > check.exact else 'not above'} the claimed bound {claimed}"
    return f"{fitted}, the claimed {claimed} {'inside' if lo <= check.exact <= hi else 'outside'}"


def reading(check: Check) -> str:
    """The number to take away, with its symbol: what the evidence shows about the claim, never contradicting the
    verdict beside it (a failed bound reads ≥ or >)."""
    d = check.details
    lo, hi = check.ci if check.ci is not None else (None, None)
    if _untested(check):
        return "nothing tested"
    if _is_fit(check):
        return _fitted(check)
    if not check.statistical:
        return {"pass": "holds", "fail": "violated"}.get(check.verdict, "undecided")
    if _is_attack(check):
        text = f"ε ≥ {fmt(lo, 3)} (attack's lower bound)"
        if d.get("certified_epsilon") is not None:
            text += f"; certified ε = {fmt(d['certified_epsilon'], 3)}"
        return text
    if "delta_claim" in d:
        at = f"δ({fmt(d['epsilon'], 3)})" if "epsilon" in d else "δ(ε)"
        if d.get("certified_delta") is not None:
            text = f"{at} ≤ {fmt(d['certified_delta'], 3)} (certified)"
            if d.get("certified_epsilon") is not None:
                text += f"; ε = {fmt(d['certified_epsilon'], 3)} at δ = {fmt(d['delta_claim'], 3)}"
            return text
        return _bounded(at, check, d["delta_claim"], "δ")
    if "rho" in d and hi is not None:
        if _closed_bound_decides(check):
            return f"P[bound fails] ≤ {fmt(d['closed_form_upper'], 3)} (closed-form bound) ≤ ρ = {fmt(d['rho'], 3)}"
        return _bounded("P[bound fails]", check, d["rho"], "ρ")
    if "worst_ratio" in d:  # the sampled loss against the sampler: a likelihood ratio that should be 1
        return f"worst ratio {fmt(d['worst_ratio'], 3)} (1 if consistent); p = {fmt(check.pvalue, 3)}"
    if "law" in d and hi is not None:  # Kolmogorov–Smirnov: the interval ends at the critical value
        return f"KS distance {fmt(check.estimate, 3)} (critical value {fmt(hi, 3)})"
    if check.ci is None:
        return f"agreement test: p = {fmt(check.pvalue, 3)}"
    sampled = f"{fmt(check.estimate, 3)} in [{fmt(lo, 3)}, {fmt(hi, 3)}]"
    if check.exact is not None:  # the closed form decides where sampling agrees with it (basis: closed form)
        printed = d.get("printed")
        against = f" vs printed {fmt(printed, 3)}" if isinstance(printed, (int, float)) else ""
        return f"closed form {fmt(check.exact, 3)}{against}; sampled {sampled}"
    return sampled


def key_number(check: Check) -> str:
    """The check's number in one line, for a summary table (the claims ledger's): :func:`reading`, or what an exact
    check computed."""
    if check.statistical or _is_fit(check) or _untested(check):
        return reading(check)
    closed = f", closed form {fmt(check.exact, 4)}" if check.exact is not None else ""
    return f"computed {fmt(check.estimate, 4)}{closed} ({reading(check)})"


def _sampled(check: Check) -> str:
    """The sampled estimate and its interval; an interval open above is its certified lower end alone."""
    lo, hi = check.ci if check.ci is not None else (None, None)
    estimate = f"estimate {fmt(check.estimate, 6)}"
    if check.ci is None:
        return estimate
    if hi is None or math.isinf(hi):
        return f"{estimate}, certified lower end {fmt(lo, 4)}{_level(check)} (no upper end is certified)"
    return f"{estimate}, interval {fmt_ci(check.ci)}{_level(check)}"


def evidence_lines(check: Check) -> list[str]:
    """The check page's numbers, the deciding one first (consistent with :func:`basis` on page 1)."""
    if _untested(check):  # basis and reading say so; the note says why
        return []
    if _is_fit(check):
        return [
            f"Decides: the fitted exponent {fmt(check.estimate, 4)}, interval {fmt_ci(check.ci)}{_level(check)}, "
            f"against the claimed {fmt(check.exact, 4)}."
        ]
    if not check.statistical:
        closed = f"; closed form {fmt(check.exact, 6)}" if check.exact is not None else ""
        return [f"Computed: {fmt(check.estimate, 6)}{closed}."]
    if _is_attack(check):
        lo = check.ci[0] if check.ci is not None else None
        estimate = "" if check.estimate is None else f"; its estimate (at confidence 1/2) {fmt(check.estimate, 6)}"
        return [f"Decides: the attack's lower bound ε ≥ {fmt(lo, 4)}{_level(check)}{estimate}."]
    if check.details.get("certified_delta") is not None or _closed_bound_decides(check):
        return [f"Decides: {reading(check)}.", f"Sampling, which must agree: {_sampled(check)}."]
    if check.exact is not None and not interval_decides(check) and check.verdict != "inconclusive":
        d = check.details
        printed = f" (printed {fmt(d['printed'], 6)})" if isinstance(d.get("printed"), (int, float)) else ""
        closed = f"the closed form {fmt(check.exact, 6)}{printed}"
        closed = reading(check) if "delta_claim" in d or "rho" in d else closed
        return [f"Decides: {closed}.", f"Sampling, which must agree: {_sampled(check)}."]
    if check.ci is None or "law" in check.details:  # a p-value, or a distance against its critical value, decides
        return [f"Decides: {_sampling(check)}, {reading(check)}."]
    closed = f"; closed form {fmt(check.exact, 6)}" if check.exact is not None else ""
    return [f"Decides: {_sampling(check)}, {_sampled(check)}{closed}."]
