"""Releases per second of the black-box audit at its defaults, against the raw sampler's draws per second.

The mechanism is DP-Sniper's 1-D Laplace (``benchmarks/peer_mechanisms.py``: o = a + Lap(1/0.1), a = 1 against 2).
The floor draws, in the same run and process, as many releases of each world as the audit draws (training, the event
test's selection pass and the fresh ones, :func:`pdp_audit.audits.blackbox.time_budget.releases_per_world`), in the
engine's seeded blocks (:data:`pdp_audit.verify.estimators.engine.BLOCK_SIZE`) and nothing else.  The audit is
:func:`pdp_audit.audit_blackbox` with no ``trials`` and no budget (the statistic, trials and workers its defaults
choose), ``law="ideal"``: the Laplace is sampled in float64, whose doubles carry its input (Mironov, CCS 2012), so as
implemented the default refutes it after a pilot and draws no full budget to time. Each is warmed up before the clock
starts, as a throughput is measured: the floor by a draw of 65,536 releases, the audit by one of :data:`WARM_UP_TRIALS`
fresh releases a world (its imports, the modules it loads on first use, and its libraries' first calls: about 0.07 s of
CPU, paid once a process; ``benchmarks/startup.py`` times start-up).  Both are timed in wall-clock and in CPU seconds
of the process (all its threads); the ratios are the audit's releases per second over the sampler's (1: no cost
beyond drawing).  The machine may be shared: the load average is printed.  Prints one JSON line.

    python benchmarks/blackbox_throughput.py [--trials N]   # N fresh releases per world (default: the audit's)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peer_mechanisms import PEERS  # noqa: E402

import pdp_audit  # noqa: E402
from pdp_audit.audits.blackbox.defaults import DEFAULT_STATISTIC, DEFAULT_TRIALS  # noqa: E402
from pdp_audit.audits.blackbox.time_budget import releases_per_world  # noqa: E402
from pdp_audit.verify.estimators.engine import block_rng, block_sizes  # noqa: E402

#: The audit's warm-up run: fresh releases per world (its own streams are drawn again by the timed run).
WARM_UP_TRIALS = 20_000


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def floor(pair, releases: int) -> tuple[float, float]:
    """(wall, CPU) seconds to draw ``releases`` of each world in the engine's seeded blocks."""
    wall, cpu = clocks()
    for world in ("D", "D'"):
        for b, size in enumerate(block_sizes(releases)):
            pair.sample(world, size, block_rng(0, f"floor/{world}", b))
    end_wall, end_cpu = clocks()
    return end_wall - wall, end_cpu - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=None, help="fresh releases per world (default: the audit's)")
    args = parser.parse_args()
    peer = next(p for p in PEERS if p.name == "Laplace")
    pair = peer.pair
    trials = args.trials or DEFAULT_TRIALS
    releases = int(releases_per_world(trials, DEFAULT_STATISTIC))
    floor(pair, 1 << 16)  # warm-up
    floor_wall, floor_cpu = floor(pair, releases)
    ideal = pdp_audit.BlackBoxBudget(law="ideal")
    pdp_audit.audit_blackbox(pair, peer.claimed_epsilon, 0.0, trials=WARM_UP_TRIALS, budget=ideal)  # warm-up
    wall, cpu = clocks()
    run = pdp_audit.audit_blackbox(pair, peer.claimed_epsilon, 0.0, trials=args.trials, budget=ideal)
    end_wall, end_cpu = clocks()
    audit_wall, audit_cpu = end_wall - wall, end_cpu - cpu
    check = run.checks[0]
    print(
        json.dumps(
            {
                "benchmark": "blackbox_throughput",
                "mechanism": "Laplace (DP-Sniper), 1-D",
                "statistic": check.details.get("statistic"),
                "law": "ideal",
                "trials": trials,
                "releases_per_world": releases,
                "audit_warm_up_trials": WARM_UP_TRIALS,
                "bound": check.estimate,
                "audit_wall_s": round(audit_wall, 2),
                "audit_cpu_s": round(audit_cpu, 2),
                "floor_wall_s": round(floor_wall, 2),
                "floor_cpu_s": round(floor_cpu, 2),
                "baseline": "the raw sampler's draws in the engine's seeded blocks, as many per world",
                "releases_per_s_over_floor_wall": round(floor_wall / audit_wall, 3),
                "releases_per_s_over_floor_cpu": round(floor_cpu / audit_cpu, 3),
                "cpus": os.cpu_count(),
                "load_average_1min": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
