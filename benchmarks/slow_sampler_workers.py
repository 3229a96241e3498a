"""From what cost a release do worker processes pay off for a black-box run?  The threshold ``pdp-audit blackbox``
uses to start the available cores by default (:data:`pdp_audit.audits.blackbox.time_budget.PARALLEL_FROM_S`).

A sampler that burns ``cost`` µs of CPU a release (a Python loop, like a library called once per release) is
audited black-box at fixed ``--trials`` with 1 worker and with ``--workers`` N, alternating (1, N, 1, N, …) so the
machine's drift falls on both; one JSON line per cost with the median wall times and their ratio, then one line
with the threshold.  Worker processes cost a start-up and the releases' transfer (the overhead: parallel minus serial
wall time at cost 0); on N idle cores they save (1 − 1/N) of the draws' time, so they pay off from
overhead / (releases drawn × (1 − 1/N)) a release -- the modelled threshold, which a loaded machine (no idle core
to gain) cannot show as a speed-up; where some cost's ratio is below 0.8 the line also names the measured one.

With ``--white-box`` the same for a white-box pair (``audit_pair``'s checks at ``--trials`` per world, its pass of
``sample`` and ``privacy_loss`` on 1 and N workers): the threshold both audits share (one rule,
:func:`pdp_audit.verify.evidence.user_audits.chosen_workers`).

    python benchmarks/slow_sampler_workers.py [--trials 20000] [--workers 2] [--runs 2] [--costs 0 3 10 30 100]
        [--white-box]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

from pdp_audit.audits.blackbox.evidence import BlackBoxBudget


class BusySampler:
    """Laplace releases of a counting query (1 on D, 0 on D'), each after ``loops`` iterations of a Python loop."""

    def __init__(self, loops: int):
        self.loops = loops

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        total = 0
        for _ in range(self.loops * int(size)):
            total += 1
        return (1.0 if world == "D" else 0.0) + rng.laplace(0.0, 1.0, (int(size), 1))


class BusyPair(BusySampler):
    """The same releases with their exact privacy loss (Laplace of scale 1, sensitivity 1): a white-box pair."""

    output_dim = 1

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return np.abs(outputs[:, 0]) - np.abs(outputs[:, 0] - 1.0)


def loops_per_microsecond() -> float:
    start, n, total = time.perf_counter(), 2_000_000, 0
    for _ in range(n):
        total += 1
    return n / ((time.perf_counter() - start) * 1e6)


def wall(cost_us: float, per_us: float, trials: int, workers: int, white_box: bool = False) -> float:
    from pdp_audit.audits.blackbox.audit import audit_blackbox
    from pdp_audit.audits.pair.audit import run_pair
    from pdp_audit.audits.pair.config import PairAuditConfig
    from pdp_audit.verify.core.config import build

    loops = int(round(cost_us * per_us))
    start = time.perf_counter()
    if white_box:
        values = {"epsilon": 1.0, "delta": 1e-5, "trials": trials, "seed": 0, "alpha": 1e-6, "workers": workers}
        run_pair(build(PairAuditConfig, values, extra={"target": BusyPair(loops)}))
    else:
        audit_blackbox(BusySampler(loops), 1.0, 1e-5, trials=trials, alpha=1e-6, budget=BlackBoxBudget(workers=workers))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--costs", type=float, nargs="+", default=[0.0, 3.0, 10.0, 30.0, 100.0])
    parser.add_argument("--white-box", action="store_true", help="a white-box pair's audit (audit_pair's checks)")
    args = parser.parse_args()
    per_us, threshold, overhead = loops_per_microsecond(), None, None
    white = args.white_box
    wall(0.0, per_us, 2_000, args.workers, white)  # warm-up: imports, the first pool's start
    for cost in args.costs:
        serial, parallel = [], []
        for _ in range(args.runs):
            serial.append(wall(cost, per_us, args.trials, 1, white))
            parallel.append(wall(cost, per_us, args.trials, args.workers, white))
        ratio = statistics.median(parallel) / statistics.median(serial)
        if threshold is None and ratio < 0.8 and cost > 0:
            threshold = cost
        if cost == 0:
            overhead = statistics.median(parallel) - statistics.median(serial)
        line = {
            "benchmark": "slow_sampler_workers" + ("_white_box" if white else ""),
            "cost_us_per_release": cost,
            "trials": args.trials,
            "workers": args.workers,
            "serial_s": round(statistics.median(serial), 2),
            "parallel_s": round(statistics.median(parallel), 2),
            "ratio": round(ratio, 3),
            "load": round(os.getloadavg()[0], 1),
        }
        print(json.dumps(line), flush=True)
    # training, selection and fresh releases of both worlds; a white-box pass: trials per world
    drawn = 2 * args.trials if white else 2 * (args.trials + args.trials / 4 + args.trials)
    modelled = None if overhead is None else max(overhead, 0.0) / (drawn * (1 - 1 / args.workers)) * 1e6
    summary = {
        "benchmark": "slow_sampler_workers_threshold" + ("_white_box" if white else ""),
        "overhead_s": None if overhead is None else round(overhead, 2),
        "modelled_threshold_us_per_release": None if modelled is None else round(modelled, 1),
        "measured_threshold_us_per_release": threshold,
        "rule": "modelled: overhead / (releases x (1 - 1/workers)); measured: smallest cost with ratio < 0.8",
        "load": round(os.getloadavg()[0], 1),
        "workers": args.workers,
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
    }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
