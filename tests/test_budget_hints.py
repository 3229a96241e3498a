"""The budget an inconclusive check of a built-in audit names (:func:`pdp_audit.verify.core.checks.samples_to_decide`).

The interval is recomputed independently here (Clopper–Pearson bounds from scipy's beta quantiles) at the hinted
budget N with the same observed frequency: at 3N it must lie on one side of the threshold, at N/3 it must not
("right within a factor of 3", as ``benchmarks/budget_hints_builtin.py`` measures on whole audits).  An interval with
an infinite side -- the uncertified upper end of an importance-sampled tail, as ``objpert``'s logistic loss gives --
was reported as "the estimate sits on the claimed value" whatever the gap.
"""

from __future__ import annotations

import math
import re

import pytest
from scipy.stats import beta

from pdp_audit.verify.core.checks import samples_to_decide

ALPHA = 1e-6  # the audits' default family-wise level: intervals at 1 − α
HINT = re.compile(r"About ([0-9.]+e[+-]?[0-9]+) samples per world")


def clopper_pearson(frequency: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The exact two-sided interval of a binomial proportion with ``frequency·n`` successes in ``n`` trials."""
    k = round(frequency * n)
    lower = beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    upper = beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return float(lower), float(upper)


def hinted(n: int, ci, estimate: float, threshold: float) -> float:
    found = HINT.search(samples_to_decide(n, ci, estimate, threshold))
    assert found, samples_to_decide(n, ci, estimate, threshold)
    return float(found.group(1))


@pytest.mark.parametrize(("frequency", "threshold"), [(0.3, 0.31), (0.3, 0.289), (0.05, 0.045), (0.05, 0.056)])
def test_the_hint_of_a_two_sided_interval_decides_within_a_factor_of_3(frequency, threshold):
    n = 20_000
    lower, upper = clopper_pearson(frequency, n)
    assert lower <= threshold <= upper  # inconclusive at n
    needed = hinted(n, (lower, upper), frequency, threshold)
    lo3, hi3 = clopper_pearson(frequency, int(3 * needed))
    assert not lo3 <= threshold <= hi3, "not decided at 3× the hint"
    lo_third, hi_third = clopper_pearson(frequency, int(needed / 3))
    assert lo_third <= threshold <= hi_third, "decided at a third of the hint already"


@pytest.mark.parametrize(("frequency", "threshold"), [(0.3, 0.29), (0.05, 0.047)])
def test_an_uncertified_upper_end_still_names_the_budget_of_a_fail(frequency, threshold):
    """Estimate above the claim, upper end infinite: the lower end alone can cross the claim, and its budget is named
    (it said the estimate sat on the claimed value)."""
    n = 20_000
    lower = clopper_pearson(frequency, n)[0]
    assert lower <= threshold
    needed = hinted(n, (lower, math.inf), frequency, threshold)
    assert clopper_pearson(frequency, int(3 * needed))[0] > threshold
    assert clopper_pearson(frequency, int(needed / 3))[0] <= threshold


def test_an_uncertified_upper_end_below_the_claim_names_no_budget():
    """Estimate below the claim, upper end infinite: no budget confirms it (it said the estimate sat on the claim)."""
    note = samples_to_decide(10_000, (4.9e-7, math.inf), 2.9e-6, 1e-5)
    assert "No sample size can decide it" in note and "never confirm" in note
    assert "sits on the claimed value" not in note and not HINT.search(note)
    assert "sits on the claimed value" in samples_to_decide(10_000, (0.1, 0.3), 0.2, 0.2)
