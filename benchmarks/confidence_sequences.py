"""The price of anytime validity: the width of the binomial confidence sequence
(:mod:`pdp_audit.verify.estimators.confidence_sequences`) at its final n against the Clopper–Pearson interval at the
same n and level (two-sided, and the lower end alone against the one-sided bound, what a refutation reads).

Prints one JSON line: for each n and observed rate, the two width ratios (no timing: the intervals are closed forms).
The issue's goal is a ratio ≤ 1.3 at the full budget.
"""

from __future__ import annotations

import argparse
import json

from pdp_audit.verify.estimators.confidence_sequences import binomial_sequence
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpha", type=float, default=1e-6)
    args = parser.parse_args()
    rows = [ratios(10**k, rate, args.alpha) for k in range(2, 8) for rate in (0.5, 0.73, 0.01)]
    print(json.dumps({"benchmark": "confidence_sequences", "alpha": args.alpha, "ratios": rows}))


if __name__ == "__main__":
    main()
