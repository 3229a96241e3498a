"""The neighbour search on the benchmark's incorrect mechanisms: refuted without being handed DP-Sniper's pair?

    python benchmarks/blackbox_search_peers.py --trials 1000000 --pilot-trials 20000 [--only SVT3,SVT4] \
        [--statistic events] [--pilot-statistic logistic]

Each incorrect mechanism of :mod:`peer_mechanisms` is given to :func:`pdp_audit.audits.blackbox.search.search_pairs`
as ``release(dataset, size, rng)`` with the benchmark's neighbouring (each answer moves by at most 1: ``linf:1``)
and the generic pattern generator; one JSON line per mechanism: the pair chosen on the pilots, whether it is
DP-Sniper's (either order), the final bound at α = 1e-6 on fresh releases, refuted or not, seconds.  Also a module
of factories for ``pdp-audit blackbox benchmarks.blackbox_search_peers:svt3 --search patterns --neighbours linf:1``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_mechanisms import PEERS  # noqa: E402

from pdp_audit.audits.blackbox.attack import AttackOptions  # noqa: E402
from pdp_audit.audits.blackbox.defaults import PILOT_STATISTIC, SEARCH_STATISTIC  # noqa: E402
from pdp_audit.audits.blackbox.search import Neighbours, SearchBudget, search_pairs  # noqa: E402


@dataclass(frozen=True)
class PeerMechanism:
    """A benchmark mechanism as a :class:`pdp_audit.audits.blackbox.search.SearchMechanism` (no pair given)."""

    function: Callable
    dimension: int

    def release(self, dataset, size, rng):
        return self.function(dataset, size, rng)


def mechanism(name: str) -> PeerMechanism:
    peer = next(p for p in PEERS if p.name == name)
    return PeerMechanism(peer.pair.release, len(peer.pair.d))


def svt3() -> PeerMechanism:
    return mechanism("SVT3")


def svt6() -> PeerMechanism:
    return mechanism("SVT6")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--pilot-trials", type=int, default=20_000)
    parser.add_argument("--alpha", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", default="")
    parser.add_argument("--statistic", default=SEARCH_STATISTIC, help="the final attack's statistic")
    parser.add_argument("--pilot-statistic", default=PILOT_STATISTIC, help="the pilots' statistic")
    args = parser.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    for peer in PEERS:
        if peer.correct or (wanted and peer.name not in wanted):
            continue
        start = time.perf_counter()
        budget = SearchBudget(
            pilot_trials=args.pilot_trials,
            trials=args.trials,
            options=AttackOptions(args.statistic, law="ideal"),  # the papers' real-valued laws
            rounds=args.rounds,
            pilot_statistic=args.pilot_statistic,
        )
        result = search_pairs(mechanism(peer.name), Neighbours("linf", 1.0), "patterns", 0.0, args.seed, budget)
        bound = result.final.epsilon_lower_bound_at(args.alpha)
        pair = (result.chosen.d, result.chosen.dprime)
        given = (tuple(map(float, peer.pair.d)), tuple(map(float, peer.pair.dprime)))
        row = {
            "mechanism": peer.name,
            "chosen": result.chosen.name,
            "dpsniper_pair": pair in (given, given[::-1]),
            "candidates": len(result.ranking),
            "pilot_trials": args.pilot_trials,
            "rounds": args.rounds,
            "trials": args.trials,
            "statistic": args.statistic,
            "pilot_statistic": args.pilot_statistic,
            "kept": result.final.statistic,
            "bound": round(bound, 4),
            "claimed": peer.claimed_epsilon,
            "refuted": bound > peer.claimed_epsilon,
            "seconds": round(time.perf_counter() - start, 1),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
