"""What a decided check rests on and the number a reader should take from it, in words, for the cover's table and
the check's page.

One estimate column cannot serve every check: a δ(ε) check's estimate is a δ, an attack's an ε, a goodness-of-fit
test's a p-value.  So each row states its **basis** -- the evidence the verdict stands on -- and its **reading**: the
number with its symbol (δ(ε) ≤ …, ε ≥ …, P[fails] ≤ …, p = …), read from the check's own fields and details:

* an exact check (no p-value) is decided by computation, to floating-point tolerance;
* a certified analytic bound (``details["certified_delta"]``) decides with sampling only required to agree;
* a closed form (``exact``) decides where the interval alone does not lie on the claim's side and sampling agrees
  with it (:mod:`pdp_audit.verify.checks`' rule); where the interval does lie on that side, the sampling decides;
* otherwise sampling decides: plain Monte Carlo, or importance sampling (``details["sampling"]``), at the stated
  simultaneous confidence.

The check's page leads its numbers with the one that decides (:func:`evidence_lines`): a certified bound or closed
form first and the sampling that must agree with it second; a sampled interval with no finite upper end (only its
lower end certified) is shown as that lower end, never as "[0, ∞]" beside a PASS.
"""

from __future__ import annotations

import math

from pdp_audit.reports.page_text import fmt, fmt_ci
from pdp_audit.reports.records import Check


def _sampling(check: Check) -> str:
    return "importance sampling" if check.details.get("sampling") == "importance" else "Monte Carlo"


def _level(check: Check) -> str:
    return f" at confidence {check.level:.8g}" if check.level else ""


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


def basis(check: Check) -> str:
    """What the verdict stands on, in a few words."""
    if not check.statistical:
        return "exact computation"
    how = _sampling(check)
    if _is_attack(check):  # an attack bounds ε from below on fresh releases: sampling alone, whatever is exact
        return f"attack on observed releases{_level(check)}"
    if check.details.get("certified_delta") is not None:
        return f"certified analytic bound; {how} agrees"
    if check.exact is not None and not interval_decides(check):
        return f"closed form; {how} agrees"
    return f"{how}{_level(check)}"


def _is_attack(check: Check) -> bool:
    """An attack bounds ε from below: the likelihood-ratio attack, or any check on ε whose interval is [lo, ∞]."""
    one_sided = check.ci is not None and check.ci[1] == float("inf") and "epsilon" in check.id
    return "count_tp" in check.details or check.id.endswith("attack") or one_sided


def reading(check: Check) -> str:
    """The number to take away, with its symbol: what the evidence shows about the claim."""
    d = check.details
    hi = check.ci[1] if check.ci is not None else None
    lo = check.ci[0] if check.ci is not None else None
    if not check.statistical:
        return {"pass": "holds", "fail": "violated"}.get(check.verdict, "undecided")
    if _is_attack(check):
        text = f"ε ≥ {fmt(lo, 3)} (attack's lower bound)"
        if d.get("certified_epsilon") is not None:
            text += f"; certified ε = {fmt(d['certified_epsilon'], 3)}"
        return text
    if "delta_claim" in d and "epsilon" in d:
        at = f"δ({fmt(d['epsilon'], 3)})"
        if d.get("certified_delta") is not None:
            text = f"{at} ≤ {fmt(d['certified_delta'], 3)} (certified)"
            if d.get("certified_epsilon") is not None:
                text += f"; ε = {fmt(d['certified_epsilon'], 3)} at δ = {fmt(d['delta_claim'], 3)}"
            return text
        if check.exact is not None and not interval_decides(check):
            return f"{at} = {fmt(check.exact, 3)} (closed form) ≤ δ = {fmt(d['delta_claim'], 3)}"
        return f"{at} ≤ {fmt(hi, 3)}"
    if "rho" in d and hi is not None:
        return f"P[bound fails] ≤ {fmt(hi, 3)} (ρ = {fmt(d['rho'], 3)})"
    if "worst_ratio" in d:  # the sampled loss against the sampler: a likelihood ratio that should be 1
        return f"worst ratio {fmt(d['worst_ratio'], 3)} (1 if consistent); p = {fmt(check.pvalue, 3)}"
    if "law" in d and hi is not None:  # Kolmogorov–Smirnov: the interval ends at the critical value
        return f"KS distance {fmt(check.estimate, 3)} (critical value {fmt(hi, 3)})"
    if check.ci is None:
        return f"agreement test: p = {fmt(check.pvalue, 3)}"
    return f"{fmt(check.estimate, 3)} in [{fmt(lo, 3)}, {fmt(hi, 3)}]"


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
    if not check.statistical:
        closed = f"; closed form {fmt(check.exact, 6)}" if check.exact is not None else ""
        return [f"Computed: {fmt(check.estimate, 6)}{closed}."]
    if _is_attack(check):
        lo = check.ci[0] if check.ci is not None else None
        return [
            f"Decides: the attack's lower bound ε ≥ {fmt(lo, 4)}{_level(check)}; "
            f"its estimate (at confidence 1/2) {fmt(check.estimate, 6)}."
        ]
    if check.details.get("certified_delta") is not None:
        return [f"Decides: {reading(check)}.", f"Sampling, which must agree: {_sampled(check)}."]
    if check.exact is not None and not interval_decides(check):
        closed = reading(check) if "delta_claim" in check.details else f"the closed form {fmt(check.exact, 6)}"
        return [f"Decides: {closed}.", f"Sampling, which must agree: {_sampled(check)}."]
    if check.ci is None or "law" in check.details:  # a p-value, or a distance against its critical value, decides
        return [f"Decides: {_sampling(check)}, {reading(check)}."]
    closed = f"; closed form {fmt(check.exact, 6)}" if check.exact is not None else ""
    return [f"Decides: {_sampling(check)}, {_sampled(check)}{closed}."]
