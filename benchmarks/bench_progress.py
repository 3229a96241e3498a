"""What the progress bars cost an audit: one audit's wall and CPU time with its bars drawn against without them.

Prints two JSON lines.  ``progress_audit``: the audit ``--audit`` at ``--trials`` run in this process with
``progress`` off, then with the bars forced on (``PDP_AUDIT_PROGRESS=1``, no delay: every pass draws its bar and
redraws it at the rate limit, written to /dev/null -- the worst case; a terminal shows fewer), alternating (A B A B
…, best of ``--repeats`` each) so the ratio holds on a shared, noisy machine; target: ratio ≤ 1.02 (issue 43 item 5:
progress never slows the work measurably).  ``progress_update``: the cost of one ``update(1)`` of a shown bar
(tqdm's rate limit: between two redraws an update is a counter and a comparison), in nanoseconds.

    python benchmarks/bench_progress.py [--audit gaussian] [--trials 200000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time

from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.verify.estimators import progress


def best_pair(first, second, repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) seconds of ``first`` and of ``second``, each the best of ``repeats`` alternating runs."""
    best = [[float("inf")] * 2, [float("inf")] * 2]
    for _ in range(repeats):
        for slot, fn in enumerate((first, second)):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            best[slot][0] = min(best[slot][0], time.perf_counter() - wall)
            best[slot][1] = min(best[slot][1], time.process_time() - cpu)
    return (best[0][0], best[0][1]), (best[1][0], best[1][1])


@contextlib.contextmanager
def bars_to_devnull():
    """Bars forced on, at once, into /dev/null (stderr restored after)."""
    saved = sys.stderr, progress.DELAY, os.environ.get(progress.ENV)
    with open(os.devnull, "w") as sink:
        sys.stderr, progress.DELAY, os.environ[progress.ENV] = sink, 0.0, "1"
        try:
            yield
        finally:
            sys.stderr, progress.DELAY = saved[0], saved[1]
            if saved[2] is None:
                os.environ.pop(progress.ENV)
            else:
                os.environ[progress.ENV] = saved[2]


def update_cost(updates: int) -> float:
    """Nanoseconds per ``update(1)`` of a bar that is shown (into /dev/null)."""
    with bars_to_devnull(), progress.progress_bar(updates, "bench", "item", True) as bar:
        start = time.perf_counter()
        for _ in range(updates):
            bar.update(1)
        return (time.perf_counter() - start) / updates * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audit", default="gaussian")
    parser.add_argument("--trials", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    plan = plans_by_name()[args.audit]
    config = plan.configure({"trials": args.trials})
    plan.execute(config, 1, False)  # warm: imports, data, caches

    def shown() -> None:
        with bars_to_devnull():
            plan.execute(config, 1, True)

    (off_wall, off_cpu), (on_wall, on_cpu) = best_pair(lambda: plan.execute(config, 1, False), shown, args.repeats)
    common = {"load_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    line = {
        "benchmark": "progress_audit",
        "audit": args.audit,
        "trials": args.trials,
        "off_wall_s": round(off_wall, 3),
        "on_wall_s": round(on_wall, 3),
        "ratio_wall": round(on_wall / off_wall, 4),
        "ratio_cpu": round(on_cpu / off_cpu, 4),
        "repeats": args.repeats,
        **common,
    }
    print(json.dumps(line))
    print(json.dumps({"benchmark": "progress_update", "ns_per_update": round(update_cost(1_000_000), 1), **common}))


if __name__ == "__main__":
    main()
