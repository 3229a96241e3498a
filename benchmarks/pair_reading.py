"""What reading a white-box pass costs after each look (:mod:`pdp_audit.verify.evidence.pair_sequential`): the pass
stopped once decided against the fixed pass, each with today's reading and with the reading before it, in one process
(issue 43: "the reading after each look costs about as much as the draws it saves on a cheap plain pair").

The reading before: the consistency test's event p-values bisected in full at every look, each Clopper–Pearson
bound through scipy's generic ``beta.ppf``/``isf`` wrapper.  Today: the same quantiles through their hooks (the same
bits, :func:`pdp_audit.verify.estimators.stats.beta_ppf`), and the looks before the last screened at α·w (one
evaluation of the separation instead of fifty; the look the pass stops at read in full).  One JSON line per pair and
pass: CPU seconds of each (best of ``--repeats``, alternating), their ratio, and whether the checks are the same, byte
for byte (their verdicts, numbers, notes and details).

    python benchmarks/pair_reading.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from pdp_audit.verify.estimators import consistency_output as co

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pair_early_stop: its pairs and its audit

TODAY_CP, TODAY_RESULT = co._clopper_pearson, co.StreamedEventConsistency.result


def wrapped_cp(count, n, a):
    """The bounds as they were computed before: scipy's public beta quantiles."""
    with np.errstate(invalid="ignore"):
        lo = np.where(count > 0, stats.beta.ppf(a / 2, np.maximum(count, 1), n - count + 1), 0.0)
        hi = np.where(count < n, stats.beta.isf(a / 2, count + 1, np.maximum(n - count, 1)), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def unscreened(self, screen=None):
    """Every look read in full."""
    return TODAY_RESULT(self)


VARIANTS = {"before": (wrapped_cp, unscreened), "today": (TODAY_CP, TODAY_RESULT)}


def cases() -> dict:
    from pair_early_stop import PlainGaussian, needed_sigma

    from pdp_audit.mutants import gaussian

    plain = 2 * needed_sigma(1.0, 1e-3)
    return {
        "plain, twice its sigma": (lambda: PlainGaussian(plain), (1.0, 1e-3)),
        "view, twice its sigma": (lambda: gaussian(2 * needed_sigma(1.0, 1e-5)), (1.0, 1e-5)),
        "plain, a third of its sigma": (lambda: PlainGaussian(plain / 3), (1.0, 1e-3)),
    }


def main() -> None:
    from pair_early_stop import _audit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    chosen = cases()
    _audit(chosen["plain, twice its sigma"][0](), (1.0, 1e-3), True)  # warm: imports
    best: dict = {}
    shown: dict = {}
    for _ in range(args.repeats):
        for case, (make, claim) in chosen.items():
            for variant, (cp, result) in VARIANTS.items():
                co._clopper_pearson, co.StreamedEventConsistency.result = cp, result
                for early in (True, False):
                    start = time.process_time()
                    checks, _ = _audit(make(), claim, early)
                    key = (case, variant, early)
                    best[key] = min(best.get(key, float("inf")), time.process_time() - start)
                    shown[key] = repr([(c.id, c.verdict, c.pvalue, c.ci, c.note, c.details) for c in checks])
    co._clopper_pearson, co.StreamedEventConsistency.result = TODAY_CP, TODAY_RESULT
    for case in chosen:
        for early in (True, False):
            before, today = best[(case, "before", early)], best[(case, "today", early)]
            line = {
                "benchmark": "pair_reading",
                "pair": case,
                "pass": "stopped once decided" if early else "fixed",
                "before_cpu_s": round(before, 3),
                "today_cpu_s": round(today, 3),
                "ratio": round(today / before, 3),
                "identical": shown[(case, "before", early)] == shown[(case, "today", early)],
                "repeats": args.repeats,
                "load_1min": round(os.getloadavg()[0], 2),
                "cpus": os.cpu_count(),
            }
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
