"""The black-box audit on DP-Sniper's and StatDP's benchmark: our ε lower bounds beside theirs.

The 20 mechanisms, their input pairs and the peers' published bounds are in :mod:`peer_mechanisms` (benchmark code,
written from the definitions).  For each mechanism, :func:`pdp_audit.audits.blackbox.blackbox_attack` learns its test
on ``--train-trials`` releases per world and bounds ε (pure DP, δ = 0) on ``--trials`` fresh ones; the one run gives
the bound at confidence 0.9 (the peers' level) and at α = 1e-6 (the audit's default).  ``--statistic events`` (the
default here): the exact event test of :mod:`pdp_audit.audits.blackbox_events`, which learns on at most 2e5
releases per world unless ``--train-trials`` says otherwise.  Prints one JSON line per mechanism::

    {"benchmark": "blackbox_peers", "mechanism", "correct", "claimed_epsilon", "exact_epsilon", "proved_epsilon",
     "bound_conf_0.9", "bound_alpha_1e-6", "refuted_at_1e-6", "dpsniper": {"logistic", "mlp"}, "statdp": [run 1,
     run 2], "dpsniper_samples": {"train", "bound"}, "statdp_samples": {...}, "train_per_world", "bound_per_world",
     "statistic_option", "statistic", "validation", "ratio_to_dpsniper", "seconds", "peak_mb"}

``statistic`` is the statistic kept (with ``select`` or ``events``: chosen on the training releases; ``validation``
its competitors' validation bounds, for ``events`` the bounds they predicted at the fresh budget at confidence 0.9).
``exact_epsilon`` is the pair's privacy loss where known (∞ where an output is impossible under one world), and
null otherwise; ``ratio_to_dpsniper`` is our bound at 0.9 over DP-Sniper's better published bound; ``peak_mb`` the
peak of Python's traced allocations (tracemalloc, numpy included) during the run.  A bound above ``exact_epsilon``
(or ``proved_epsilon``) would be invalid.

    python benchmarks/blackbox_peers.py --quick            # 1e4 per world, a few mechanisms (development)
    python benchmarks/blackbox_peers.py --trials 10000000 --train-trials 500000
    # the table of docs/how-to/blackbox.md: training 5e5 + selection 2.5e6 + fresh 1e7 = 1.3e7 per world,
    # about 1/16 of DP-Sniper's 10.7e6 + 2e8 releases per input
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_mechanisms import DPSNIPER_SAMPLES, PEERS, STATDP_SAMPLES, Peer  # noqa: E402

from pdp_audit.audits.blackbox import STATISTICS, AttackOptions, blackbox_attack  # noqa: E402
from pdp_audit.verify.processes import executor_for  # noqa: E402

QUICK = ("Laplace", "NoisyHist2", "ReportNoisyMax3", "SVT4", "OneTimeRappor")


def _finite(x: float | None):
    """JSON has no ∞: an infinite ε is written as the string "inf"."""
    return "inf" if x == float("inf") else x


def _events(attack) -> list | None:
    """The event test's events and their fresh counts (None for the other statistics)."""
    if not hasattr(attack, "events"):
        return None
    return [
        {"favours": "D" if e.favours_d else "D'", "threshold": e.threshold, "hits_d": kd, "hits_dprime": kdp}
        for e, kd, kdp in zip(attack.events, attack.hits_d, attack.hits_dp)
    ]


def run_one(
    peer: Peer, trials: int, train_trials: int | None, seed: int, workers: int = 1, statistic: str = "events"
) -> dict:
    """Our bounds for one mechanism, with the peers' published ones beside them."""

    tracemalloc.start()
    start = time.perf_counter()
    with executor_for(workers) as executor:
        result = blackbox_attack(
            peer.pair.sample_world("D"),
            peer.pair.sample_world("D'"),
            trials,
            0.0,
            seed,
            train_trials=train_trials,
            options=AttackOptions(statistic, executor),
        )
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    at_09, at_1e6 = result.epsilon_lower_bound_at(0.1), result.epsilon_lower_bound_at(1e-6)
    best_peer = max(peer.dpsniper.values())
    return {
        "benchmark": "blackbox_peers",
        "mechanism": peer.name,
        "correct": peer.correct,
        "claimed_epsilon": peer.claimed_epsilon,
        "exact_epsilon": _finite(peer.exact_epsilon),
        "proved_epsilon": peer.proved_epsilon,
        "bound_conf_0.9": round(at_09, 5),
        "bound_alpha_1e-6": round(at_1e6, 5),
        "refuted_at_1e-6": at_1e6 > peer.claimed_epsilon,
        "dpsniper": peer.dpsniper,
        "statdp": list(peer.statdp) or None,
        "dpsniper_samples": DPSNIPER_SAMPLES,
        "statdp_samples": STATDP_SAMPLES if peer.statdp else None,
        "train_per_world": result.train_per_world,
        "bound_per_world": result.test_per_world,
        "statistic_option": statistic,
        "statistic": result.statistic,
        "validation": {name: round(bound, 4) for name, bound in result.validation} or None,
        "events": _events(result.attack),
        "ratio_to_dpsniper": round(at_09 / best_peer, 3),
        "seconds": round(seconds, 2),
        "peak_mb": round(peak / 2**20, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000, help="releases per world for the bound")
    parser.add_argument("--train-trials", type=int, default=None, help="releases per world to learn (default trials)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--statistic", choices=STATISTICS, default="events")
    parser.add_argument("--only", nargs="*", default=None, help="mechanism names (default all 20)")
    parser.add_argument("--quick", action="store_true", help=f"1e4 per world on {', '.join(QUICK)}")
    args = parser.parse_args(argv)
    trials = 10_000 if args.quick else args.trials
    names = QUICK if args.quick else args.only
    chosen = [p for p in PEERS if names is None or p.name in names]
    for peer in chosen:
        row = run_one(peer, trials, args.train_trials, args.seed, args.workers, args.statistic)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
