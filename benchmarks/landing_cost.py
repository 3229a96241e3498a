"""Cost of reading a release through its rounding (:mod:`pdp_audit.audits.program.landing`): the structural
analysis (record, probe, every replay on the named neighbours, the compositions) of a program and of the same
program with its release rounded, side by side -- the replays made and the least wall time of three runs.

    python benchmarks/landing_cost.py

Prints one JSON line per program: pairs, replays per pair (unrounded, rounded), and seconds (unrounded, rounded).
The machine is shared: the least of three runs is kept, and the replay counts are exact.
"""

from __future__ import annotations

import json
import time

import numpy as np


def noisy_sum(data, rng):
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)


def noisy_sum_rounded(data, rng):
    return round(noisy_sum(data, rng), 2)


def histogram(data, rng):
    counts = np.bincount(np.clip(np.nan_to_num(data * 20).astype(int), 0, 19), minlength=20).astype(float)
    return counts + rng.laplace(0.0, 2.0, size=20)


def histogram_rounded(data, rng):
    return np.round(histogram(data, rng), 1)


def measured(program, data) -> tuple[int, int, float]:
    """Pairs, replays and the least seconds of three analyses on the named neighbours."""
    from pdp_audit.audits.program import trace
    from pdp_audit.audits.program.analysis import analyse
    from pdp_audit.audits.program.search import Budget
    from pdp_audit.verify.core.float_rules import own_float_rules

    count = [0]
    original = trace.replay

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    trace.replay = counted
    best, replays, pairs = float("inf"), 0, 0
    try:
        with own_float_rules():
            for _ in range(3):
                count[0] = 0
                began = time.perf_counter()
                analysis = analyse(program, data, "add-remove", (0.0, 1.0), (1.0, 0.0), 0, budget=Budget("named", 0))
                best = min(best, time.perf_counter() - began)
                replays, pairs = count[0], len(analysis.pairs)
    finally:
        trace.replay = original
    return pairs, replays, best


def main() -> None:
    data = np.random.default_rng(0).uniform(0, 1, 200)
    for plain, rounded in ((noisy_sum, noisy_sum_rounded), (histogram, histogram_rounded)):
        pairs, replays, seconds = measured(plain, data)
        _, replays_rounded, seconds_rounded = measured(rounded, data)
        row = {
            "case": plain.__name__,
            "pairs": pairs,
            "replays_per_pair": [round(replays / pairs, 1), round(replays_rounded / pairs, 1)],
            "seconds": [round(seconds, 3), round(seconds_rounded, 3)],
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
