"""The price of anytime validity: the width of the binomial confidence sequence
(:mod:`pdp_audit.verify.estimators.confidence_sequences`) at its final n against the Clopper–Pearson interval at the
same n and level (two-sided, and the lower end alone against the one-sided bound, what a refutation reads).

Prints one JSON line: for each n and observed rate, the two width ratios (no timing: the intervals are closed forms).
The issue's goal is a ratio ≤ 1.3 at the full budget.  For bounded means (the betting sequence), the width at n of
Beta(2, 5) draws (seed 0) against the fixed-n Hoeffding interval and against the normal one (valid only
asymptotically, at one n) at the same level.  ``coverage``: the coverage check's sequence (its prior centred on the
claimed ρ) at the rates it reads -- the zoo's ρ = 0.05 and half of it, where its twins sit, and a rarer claim -- with
each end against the one-sided bound (the upper end is what a pass reads), at 1e4 to 1e6 draws (the zoo's 1e5).
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


def coverage_ratios(n: int, rho: float, rate: float, alpha: float) -> dict:
    """The coverage check's sequence (its prior centred on the claimed ``rho``,
    :func:`pdp_audit.verify.evidence.coverage_sequential.coverage_prior`) at ``rate``: two-sided against
    Clopper–Pearson, each end against the one-sided bound (the upper end is what a pass reads, the lower what a fail
    reads), and the upper end of Jeffreys' prior for comparison."""
    from pdp_audit.verify.evidence.coverage_sequential import coverage_prior

    f = round(n * rate)
    mle = f / n
    lo, hi = binomial_sequence(f, n, alpha, coverage_prior(rho))
    _, jeffreys_hi = binomial_sequence(f, n, alpha)
    cp_lo, cp_hi = (float(x) for x in clopper_pearson(f, n, alpha))
    one_lo, _ = clopper_pearson(f, n, alpha, side="lower")
    _, one_hi = clopper_pearson(f, n, alpha, side="upper")
    return {
        "n": n,
        "rho": rho,
        "rate": rate,
        "two_sided": round((hi - lo) / (cp_hi - cp_lo), 4),
        "lower_end": round((mle - lo) / (mle - float(one_lo)), 4),
        "upper_end": round((hi - mle) / (float(one_hi) - mle), 4),
        "upper_end_jeffreys": round((jeffreys_hi - mle) / (float(one_hi) - mle), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpha", type=float, default=1e-6)
    args = parser.parse_args()
    rows = [ratios(10**k, rate, args.alpha) for k in range(2, 8) for rate in (0.5, 0.73, 0.01)]
    means = [mean_ratios(10**k, args.alpha) for k in range(2, 6)]
    cases = [(0.05, 0.05), (0.05, 0.025), (0.001, 0.001), (0.001, 0.0005)]  # (claimed ρ, observed rate)
    coverage = [coverage_ratios(n, rho, rate, args.alpha) for n in (10**4, 10**5, 10**6) for rho, rate in cases]
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
