"""What spawning a Dask LocalCluster's workers costs against forking them (issue 61: no fork of a process whose
OpenMP or BLAS threads may have run).

``spawned`` (what ``--dask-local N`` does now): the cluster started, then each worker's first task, which imports the
sweep's heavy modules (a Gaussian cell's evidence module and scikit-learn's data sets).  ``forked`` (the baseline,
before): the same modules imported here first and the workers forked from this process (Dask's
``distributed.worker.multiprocessing-method = "fork"``), their first task then importing nothing.  Wall seconds to
the end of the first task on every worker, best of ``--repeats``, alternating; one JSON line.

    python benchmarks/dask_start.py [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import time

MODULES = ("pdp_audit.audits.gaussian.evidence", "sklearn.datasets")


def _imported() -> int:
    for module in MODULES:
        importlib.import_module(module)
    return os.getpid()


def start(workers: int, forked: bool) -> float:
    import dask

    from pdp_audit.verify.core.dask_cluster import connect, disconnect

    begin = time.perf_counter()
    if forked:
        for module in MODULES:
            importlib.import_module(module)
    setting = dask.config.set({"distributed.worker.multiprocessing-method": "fork"}) if forked else None
    with setting if setting is not None else contextlib.nullcontext():
        client, cluster, _ = connect(None, workers)
    try:
        client.run(_imported)
        return time.perf_counter() - begin
    finally:
        disconnect(client, cluster)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spawned, forked = [], []
    for _ in range(args.repeats):
        spawned.append(start(args.workers, False))
        forked.append(start(args.workers, True))
    line = {
        "benchmark": "dask_start",
        "workers": args.workers,
        "spawned_s": round(min(spawned), 3),
        "forked_s": round(min(forked), 3),
        "ratio_spawned_to_forked": round(min(spawned) / min(forked), 2),
        "load_1min": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
    }
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
