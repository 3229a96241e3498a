"""Speed of ``audit_program``'s deterministic part (record, probe, replay on each neighbour, composition), against
the issue's targets (issue 63): at most 3 times the program's own run per neighbouring pair, and a program on 10⁴
records with about 100 neighbour candidates decided in at most 30 s on 2 cores.

    python benchmarks/bench_program.py

Prints one JSON line per case: the program's own run time (median of 5), the analysis time, the pairs, the time
per pair over the program's run, and the whole structural audit's time (without the black box's confirmation,
which only a finding triggers and whose budget is ``trials``).
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np


def noisy_sum(data, rng):
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)


def histogram(data, rng):
    counts = np.bincount(np.clip(np.nan_to_num(data * 20).astype(int), 0, 19), minlength=20).astype(float)
    return counts + rng.laplace(0.0, 2.0, size=20)


def grouped_means(frame, rng):
    """A pandas pipeline: per group, a noisy clipped sum and a noisy count (milliseconds a run)."""
    clipped = frame.assign(value=frame["value"].fillna(0.0).clip(0.0, 1.0))
    groups = clipped.groupby("group")["value"].agg(["sum", "count"]).reindex(list("abcd"), fill_value=0.0)
    noisy = groups.to_numpy(dtype=float) + rng.laplace(0.0, 4.0, size=groups.shape)
    return {"sums": noisy[:, 0], "counts": noisy[:, 1]}


def case(name, program, data, relation):
    from pdp_audit.audits.program.analysis import analyse

    rng = np.random.default_rng(0)
    own = []
    for _ in range(5):
        start = time.perf_counter()
        program(data, rng)
        own.append(time.perf_counter() - start)
    analyse(program, data, relation, (0.0, 1.0), (1.0, 0.0), 0)  # warm-up: the imports of a first run
    start = time.perf_counter()
    analysis = analyse(program, data, relation, (0.0, 1.0), (1.0, 0.0), 0)
    seconds = time.perf_counter() - start
    pairs = len(analysis.pairs)
    run = statistics.median(own)
    # what each pair costs beyond the fixed record and probe: the whole, less 5 runs on D, per pair
    per_pair = (seconds - 5 * run) / pairs
    print(
        json.dumps(
            {
                "benchmark": "bench_program",
                "case": name,
                "records": len(data),
                "relation": relation,
                "pairs": pairs,
                "program_seconds": round(run, 6),
                "analysis_seconds": round(seconds, 3),
                "per_pair_over_program": round(per_pair / run, 2),
                "target_per_pair": 3.0,
                "target_seconds": 30.0,
            }
        )
    )


if __name__ == "__main__":
    values = np.random.default_rng(1).uniform(0, 1, 10_000)
    case("noisy sum, 1e4 records", noisy_sum, values, "replace-one")
    case("histogram of 20 bins, 1e4 records", histogram, values, "replace-one")
    case("noisy sum, 1e4 records", noisy_sum, values, "add-remove")
    import pandas as pd

    frame = pd.DataFrame({"value": values, "group": np.array(list("abcd"))[np.arange(values.size) % 4]})
    case("pandas group-by, 1e4 records", grouped_means, frame, "replace-one")
    case("pandas group-by, 1e4 records", grouped_means, frame, "add-remove")
