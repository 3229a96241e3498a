"""Sweep scaling: parallel efficiency from 1 to 2 local worker processes, and Dask's overhead.

Prints one JSON line per benchmark; both ratios are measured in the same run, on the same sweep of
equal Gaussian cells (each ≥ 1 s), so they are meaningful on a shared, noisy machine.  Targets (not
asserted): efficiency T1 / (2 T2) ≥ 0.9; Dask LocalCluster time / local-process time − 1 ≤ 0.10
(cluster start-up reported separately).

    python benchmarks/bench_sweep.py [--cells 8] [--trials 4e5] [--repeats 2] [--no-dask]

``--small TRIALS`` measures the README's sweep instead (``examples/sweep-100.toml`` with ``trials`` = TRIALS; issue
44 used 2e3, cells of a few tenths of a second): the whole ``pdp-audit sweep`` command timed as a process, serially,
on ``--workers 2`` and on ``--dask-local 2`` (cluster start and close included), interleaved, best of ``--repeats``;
one JSON line with the ratios to serial and Dask's overhead over local processes (target ≤ 0.10).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from pdp_audit.verify.sweeps.executors import DaskExecutor, ProcessExecutor
from pdp_audit.verify.sweeps.spec import parse_spec, run_sweep
from pdp_audit.verify.sweeps.store import Store


def spec_text(cells: int, trials: int) -> str:
    # equal cells: the same budget, different claims (ε does not change the work)
    epsilons = ", ".join(repr(0.5 + 0.1 * i) for i in range(cells))
    return (
        f'[sweep]\nmechanism = "gaussian"\nseed = 7\nchecks = ["dp-forward", "dp-reverse", "loss-law", "lr-attack"]\n'
        f"[fixed]\ntrials = {trials}\n[grid]\nclaim_epsilon = [{epsilons}]\n"
    )


CPU: dict[int, float] = {}  # CPU seconds of reaped worker processes, by number of workers (best run)


def timed(executor, text: str, directory: Path) -> float:
    spec = parse_spec(text)
    path = directory / f"{time.perf_counter_ns()}.sqlite"
    store = Store.for_sweep(path, spec, resume=False)
    before = os.times()
    start = time.perf_counter()
    try:
        outcome = run_sweep(spec, store, executor)
    finally:
        store.close()
    elapsed = time.perf_counter() - start
    after = os.times()
    assert outcome.ran == len(spec.cells)
    if isinstance(executor, ProcessExecutor):  # pool workers are reaped at the end of the run
        cpu = after.children_user + after.children_system - before.children_user - before.children_system
        CPU[executor.workers] = min(CPU.get(executor.workers, float("inf")), cpu)
    return elapsed


def best(executor, text: str, directory: Path, repeats: int) -> float:
    return min(timed(executor, text, directory) for _ in range(repeats))


def small_sweep(trials: float, repeats: int) -> None:
    """The README's 100-cell sweep at ``trials``, each way of running it timed as a whole command (module docstring)."""
    import re
    import subprocess
    import sys
    from importlib.resources import files

    text = (files("pdp_audit.examples") / "sweep-100.toml").read_text()
    text = re.sub(r"(?m)^trials = .*$", f"trials = {trials:g}", text)
    ways = {"serial": ["--workers", "1"], "local_2": ["--workers", "2"], "dask_local_2": ["--dask-local", "2"]}
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "sweep-100.toml"
        spec.write_text(text)
        for attempt in range(repeats):
            for way, flags in ways.items():
                store = Path(tmp) / f"{way}-{attempt}.sqlite"
                argv = [sys.executable, "-m", "pdp_audit.verify.cli", "sweep", str(spec), "--store", str(store)]
                start = time.perf_counter()
                done = subprocess.run([*argv, *flags, "--quiet"], cwd=tmp, capture_output=True, text=True)
                elapsed = time.perf_counter() - start
                if done.returncode not in (0, 1, 3):  # a verdict; anything else is the benchmark's failure
                    raise SystemExit(f"{way}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
                best[way] = min(best.get(way, float("inf")), elapsed)
    print(
        json.dumps(
            {
                "benchmark": "sweep_small_executors",
                "spec": "examples/sweep-100.toml",
                "trials": trials,
                **{f"t_{way}_s": round(t, 3) for way, t in best.items()},
                "speedup_local_2": round(best["serial"] / best["local_2"], 3),
                "speedup_dask_local_2": round(best["serial"] / best["dask_local_2"], 3),
                "dask_overhead": round(best["dask_local_2"] / best["local_2"] - 1, 3),
                "target": 0.10,
                "repeats": repeats,
                "cores": os.cpu_count(),
                "loadavg_1min": round(os.getloadavg()[0], 2),
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=8)
    parser.add_argument("--trials", type=float, default=4e5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--small", type=float, default=None, metavar="TRIALS", help="the README's sweep at TRIALS")
    args = parser.parse_args()
    if args.small is not None:
        small_sweep(args.small, args.repeats)
        return
    import pdp_audit.audits.gaussian.evidence  # noqa: F401  (imported once here, inherited by forked workers)

    text = spec_text(args.cells, int(args.trials))
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        timed(ProcessExecutor(1), spec_text(1, 1000), directory)  # warm caches (datasets, imports)
        CPU.clear()
        t1 = best(ProcessExecutor(1), text, directory, args.repeats)
        t2 = best(ProcessExecutor(2), text, directory, args.repeats)
        print(
            json.dumps(
                {
                    "benchmark": "sweep_parallel_efficiency",
                    "cells": args.cells,
                    "trials": int(args.trials),
                    "cell_s": round(t1 / args.cells, 3),
                    "t_1_worker_s": round(t1, 3),
                    "t_2_workers_s": round(t2, 3),
                    "efficiency": round(t1 / (2 * t2), 3),
                    "target": 0.9,
                    "cores": os.cpu_count(),
                    # CPU seconds of the workers: equal when parallelism adds no work (the wall-clock
                    # efficiency then depends only on free cores; on a shared machine it is lower)
                    "worker_cpu_s_1": round(CPU[1], 3),
                    "worker_cpu_s_2": round(CPU[2], 3),
                    "cpu_work_ratio": round(CPU[1] / CPU[2], 3),
                    "loadavg_1min": round(os.getloadavg()[0], 2),
                }
            ),
            flush=True,
        )
        if args.no_dask:
            return
        start = time.perf_counter()
        dask = DaskExecutor(local_workers=2, preload=parse_spec(text).kind.preload)  # as `sweep --dask-local` starts it
        try:
            timed(dask, spec_text(2, 1000), directory)  # workers import the code once
            startup = time.perf_counter() - start
            td = best(dask, text, directory, args.repeats)
            tl = best(ProcessExecutor(2), text, directory, args.repeats)  # local again, interleaved with Dask
        finally:
            dask.close()
        print(
            json.dumps(
                {
                    "benchmark": "sweep_dask_overhead",
                    "cells": args.cells,
                    "trials": int(args.trials),
                    "t_local_2_s": round(tl, 3),
                    "t_dask_local_2_s": round(td, 3),
                    "overhead": round(td / tl - 1, 3),
                    "cluster_start_s": round(startup, 3),
                    "target": 0.10,
                    "loadavg_1min": round(os.getloadavg()[0], 2),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
