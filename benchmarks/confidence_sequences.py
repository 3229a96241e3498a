"""The price of anytime validity: the width of the binomial confidence sequence
(:mod:`pdp_audit.verify.estimators.confidence_sequences`) at its final n against the Clopper–Pearson interval at the
same n and level (two-sided, and the lower end alone against the one-sided bound, what a refutation reads).

Prints one JSON line: for each n and observed rate, the two width ratios (no timing: the intervals are closed forms).
The issue's goal is a ratio ≤ 1.3 at the full budget.  For bounded means (the betting sequence), the width at n of
Beta(2, 5) draws (seed 0) against the fixed-n Hoeffding interval and against the normal one (valid only
asymptotically, at one n) at the same level.  ``coverage``: the rates a coverage check reads (its ρ = 0.05 of the
mutant zoo, half of it where the twins sit, and rarer ones), with the upper end against the one-sided bound too (what
a pass reads), at the budgets of the zoo (1e5) and of ``pdp_audit.audit_coverage`` (its default), and beyond.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
from scipy import stats

from pdp_audit.verify.estimators.confidence_sequences import betting_interval, binomial_sequence
from pdp_audit.verify.estimators.stats import clopper_pearson


def ratios(n: int, rate: float, alpha: float) -> dict:
    successes = round(n * rate)
    lo, hi = binomial_sequence(successes, n, alpha)
    cp_lo, cp_hi = (float(x) for x in clopper_pearson(successes, n, alpha))
    cp_one, _ = clopper_pearson(successes, n, alpha, side="lower")
    mle = successes / n
    return {
        "n": n,
        "rate": rate,
        "two_sided": round((hi - lo) / (cp_hi - cp_lo), 4),
        "lower_end": round((mle - lo) / (mle - float(cp_one)), 4),
    }


def coverage_ratios(n: int, rate: float, alpha: float) -> dict:
    """:func:`ratios` and the upper end against the one-sided Clopper–Pearson upper bound (what a pass reads)."""
    row = ratios(n, rate, alpha)
    successes = round(n * rate)
    _, hi = binomial_sequence(successes, n, alpha)
    _, cp_upper = clopper_pearson(successes, n, alpha, side="upper")
    return {**row, "upper_end": round((hi - successes / n) / (float(cp_upper) - successes / n), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpha", type=float, default=1e-6)
    args = parser.parse_args()
    rows = [ratios(10**k, rate, args.alpha) for k in range(2, 8) for rate in (0.5, 0.73, 0.01)]
    means = [mean_ratios(10**k, args.alpha) for k in range(2, 6)]
    coverage = [coverage_ratios(n, rate, args.alpha) for n in (10**4, 10**5, 10**6) for rate in (0.05, 0.025, 0.001)]
    row = {"benchmark": "confidence_sequences", "alpha": args.alpha, "ratios": rows, "means": means}
    print(json.dumps({**row, "coverage": coverage}))


def mean_ratios(n: int, alpha: float) -> dict:
    """The betting sequence's width at ``n`` Beta(2, 5) draws against Hoeffding's and the normal interval's."""
    x = np.random.default_rng(0).beta(2, 5, n)
    lo, hi = betting_interval(x, alpha)
    hoeffding = 2 * math.sqrt(math.log(2 / alpha) / (2 * n))
    normal = 2 * float(stats.norm.isf(alpha / 2)) * float(x.std()) / math.sqrt(n)
    return {"n": n, "to_hoeffding": round((hi - lo) / hoeffding, 4), "to_normal": round((hi - lo) / normal, 4)}


if __name__ == "__main__":
    main()
