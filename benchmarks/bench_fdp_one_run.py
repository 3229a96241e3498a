"""The f-DP one-run bound (Mahloujifar, Melis & Chaudhuri 2025) against the (ε, δ) one (Steinke, Nasr & Jagielski
2023), on the same μ-GDP games: tightness and time, one JSON line per (μ, m).

Each game: m canaries in with probability 1/2, scores μ·bit + N(0, 1) (exactly μ-GDP for each canary), the audit's
16 guess sets at α/16 each, α = 0.05, δ = 1e-5.  Fields: "benchmark", "mu", "m", "true_epsilon" (ε of μ-GDP at δ),
"fdp_over_true" and "eps_delta_over_true" (means of bound / true ε over the seeds), "fdp_over_eps_delta" (ratio of
the means), "max_fdp_over_true" (above 1 would be invalid), "seconds_fdp", "seconds_eps_delta" (mean wall time of
one bound, on the same scores in the same process), "time_ratio" (f-DP ÷ (ε, δ)), "seeds".

    python benchmarks/bench_fdp_one_run.py [--seeds 5] [--m 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pdp_audit.audits.canaries import fdp_one_run as fdp
from pdp_audit.audits.canaries.one_run import one_run_attack

ALPHA, DELTA = 0.05, 1e-5


def one_game(mu: float, m: int, seed: int) -> tuple[float, float, float, float]:
    """(f-DP ε bound, (ε, δ) bound, seconds of each) on one game."""
    rng = np.random.default_rng([46, seed])
    bits = rng.random(m) < 0.5
    attack = one_run_attack(mu * bits + rng.standard_normal(m), bits, DELTA)
    start = time.perf_counter()
    eps_delta = attack.epsilon_lower_bound_at(ALPHA)
    middle = time.perf_counter()
    sets = [(kp + km, c) for (kp, km), c in zip(attack.pairs, attack.correct)]
    bound = fdp.gdp_epsilon(fdp.best_mu(m, sets, ALPHA)[0], DELTA)
    end = time.perf_counter()
    return bound, eps_delta, end - middle, middle - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--m", type=int, nargs="+", default=[1000, 10_000])
    args = parser.parse_args()
    for m in args.m:
        for mu in (0.5, 1.0, 2.0):
            truth = fdp.gdp_epsilon(mu, DELTA)
            games = np.array([one_game(mu, m, seed) for seed in range(args.seeds)])
            fdp_mean, ed_mean = games[:, 0].mean() / truth, games[:, 1].mean() / truth
            record = {
                "benchmark": "fdp_one_run",
                "mu": mu,
                "m": m,
                "true_epsilon": truth,
                "fdp_over_true": fdp_mean,
                "eps_delta_over_true": ed_mean,
                "fdp_over_eps_delta": fdp_mean / ed_mean if ed_mean > 0 else None,
                "max_fdp_over_true": float(games[:, 0].max() / truth),
                "seconds_fdp": float(games[:, 2].mean()),
                "seconds_eps_delta": float(games[:, 3].mean()),
                "time_ratio": float(games[:, 2].mean() / games[:, 3].mean()),
                "seeds": args.seeds,
            }
            print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
