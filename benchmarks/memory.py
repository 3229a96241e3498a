"""Peak memory per trial of every audit: ``pdp-audit run NAME`` at two budgets, the growth of the peak resident
memory divided by the growth of ``--trials`` (every other option at its default: memory per trial grows with the data's
dimension, so the defaults, not the smoke budgets, are measured).

Prints one JSON line per audit: {"benchmark": "memory", "audit", "trials": [low, high], "peak_mb": [low, high],
"bytes_per_trial", "declared"} -- ``declared`` is the plan's ``bytes_per_trial``, which must not be below the
measurement (a budget the machine cannot hold is refused up front from it: :func:`pdp_audit.verify.core.plan.
check_memory`).  Exits 1 when a declared value is below what was measured.

    python benchmarks/memory.py [--only gaussian laplace] [--trials 20000 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from pdp_audit.catalogue.arguments import command_line
from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.verify.core.config import exact_text


def peak_bytes(argv: list[str]) -> int:
    """The peak resident memory of one command, in bytes (Linux reports ru_maxrss in KiB)."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1, 3):
        raise RuntimeError(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return int(usage.ru_maxrss) * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="audits to measure (default: all)")
    parser.add_argument("--trials", nargs=2, type=float, default=(2e4, 1e5), help="the two budgets")
    args = parser.parse_args(argv)
    low, high = (int(t) for t in args.trials)
    under = 0
    for name, plan in plans_by_name().items():
        if args.only and name not in args.only:
            continue
        peaks = []
        for trials in (low, high):
            words = command_line(plan, {"trials": trials})
            cli = [sys.executable, "-m", "pdp_audit.cli.main", "run", name]
            peaks.append(peak_bytes([*cli, *words, "--report", "none", "--quiet"]))
        measured = max(0.0, (peaks[1] - peaks[0]) / (high - low))
        under += plan.bytes_per_trial < measured
        line = {
            "benchmark": "memory",
            "audit": name,
            "trials": [exact_text(low), exact_text(high)],
            "peak_mb": [round(p / 2**20, 1) for p in peaks],
            "bytes_per_trial": round(measured, 1),
            "declared": plan.bytes_per_trial,
        }
        print(json.dumps(line), flush=True)
    return 1 if under else 0


if __name__ == "__main__":
    raise SystemExit(main())
