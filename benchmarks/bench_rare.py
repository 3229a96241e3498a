"""Smallest δ resolved to ±25% within a time budget: importance sampling versus plain Monte Carlo.

For each mechanism (the Gaussian mechanism; objective perturbation, which exposes the noise-level
view) and each method, walk ε upwards (δ(ε) downwards); at each ε double the number of draws, from
scratch, until the two-sided interval at confidence 1 − 1e-6 has relative half-width ≤ 25%, and stop
at the first ε whose time to solution (all its doublings) exceeds the budget, or once δ̂ < 1e-30.
Reports the smallest δ̂ reached, with its ε, draws per world and seconds.

* importance sampling: :func:`pdp_audit.verify.estimators.rare.rare_tail`, empirical Bernstein interval (for ObjPert the
  upper end assumes the event lies in the dominating half-space, which is not certified: reported);
* plain Monte Carlo (same run, same workers): counts of L > ε in both worlds, Clopper–Pearson.

Prints one JSON line.  Default budget 10 s per estimate; ``--full`` uses 600 s (target: δ ≤ 1e-10
within 10 minutes on 2 cores; expect a long run for the plain baseline).  ``--workers`` (default 2) processes.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import Executor, ProcessPoolExecutor

import numpy as np

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms.catalogue import registered
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.estimators.rare import rare_tail
from pdp_audit.verify.estimators.tails import TailEstimate

ALPHA = 1e-6
TARGET = 0.25
START_N = 1 << 16
DELTA_FLOOR = 1e-30  # the walk stops below this δ̂
GAUSSIAN_TARGETS = [10.0**-k for k in range(2, 31)]
OBJPERT_EPSILONS = [0.25, 0.5] + [float(k) for k in range(1, 31)]


class PlainCounts:
    """Block work: #{L > ε} among ``size`` releases on ``world`` (one row per block)."""

    def __init__(self, pair, world: str, epsilon: float):
        self.pair, self.world, self.epsilon = pair, world, epsilon

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.array(
            [np.count_nonzero(self.pair.privacy_loss(self.pair.sample(self.world, size, rng)) > self.epsilon)]
        )


def plain_estimate(pair, epsilon: float, n: int, executor: Executor | None) -> tuple[float, float]:
    """(δ̂, relative half-width) of plain Monte Carlo with n draws per world."""
    counts = [int(run_blocks(PlainCounts(pair, w, epsilon), n, 1, f"bench/{w}", executor).sum()) for w in ("D", "D'")]
    est = TailEstimate(np.array([epsilon]), np.array([counts[0]]), np.array([counts[1]]), n, n, ALPHA)
    lo, hi = est.interval()
    delta = float(est.estimate[0])
    return delta, (float(hi[0] - lo[0]) / (2 * delta) if delta > 0 else math.inf)


def rare_estimate(pair, epsilon: float, n: int, executor: Executor | None) -> tuple[float, float]:
    tail = rare_tail(pair, epsilon, "D||D'", n, 1, "bench", executor)
    lo, hi = tail.interval(ALPHA, assume_contained=True)
    return tail.estimate, ((hi - lo) / (2 * tail.estimate) if tail.estimate > 0 else math.inf)


def resolve(method, pair, epsilon: float, budget: float, executor) -> dict | None:
    """Double n until the relative half-width is ≤ 25%; None if the budget would be exceeded."""
    start, n = time.perf_counter(), START_N
    while True:
        t0 = time.perf_counter()
        delta, rel = method(pair, epsilon, n, executor)
        elapsed = time.perf_counter() - start
        if elapsed > budget:
            return None
        if rel <= TARGET:
            return {
                "delta": delta,
                "epsilon": epsilon,
                "n": n,
                "seconds": round(elapsed, 3),
                "rel_half_width": round(rel, 4),
            }
        if elapsed + 2 * (time.perf_counter() - t0) > budget:  # the next doubling cannot finish in time
            return None
        n *= 2


def smallest_delta(method, pair, epsilons, budget: float, executor) -> dict:
    best = None
    for eps in epsilons:
        result = resolve(method, pair, eps, budget, executor)
        if result is None:
            break
        best = result
        if result["delta"] < DELTA_FLOOR:
            break
    return best or {"delta": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per estimate (default 10)")
    parser.add_argument("--full", action="store_true", help="the full budget: 600 s per estimate")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args()
    budget = 600.0 if args.full else args.budget
    gaussian = g.GaussianPair(np.zeros(10), np.eye(10)[0], g.analytic_sigma(1.0, 1e-5))
    gaussian_eps = [g.analytic_epsilon(d, gaussian.sigma) for d in GAUSSIAN_TARGETS]
    objpert = registered()["objpert"].example_pairs(np.random.default_rng(0))[0]
    results = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for name, pair, grid in (("gaussian", gaussian, gaussian_eps), ("objpert", objpert, OBJPERT_EPSILONS)):
            results[name] = {
                "importance_sampling": smallest_delta(rare_estimate, pair, grid, budget, pool),
                "plain": smallest_delta(plain_estimate, pair, grid, budget, pool),
            }
    results["gaussian"]["importance_sampling"]["delta_floor"] = DELTA_FLOOR
    results["objpert"]["importance_sampling"]["upper_bound_certified"] = False
    print(
        json.dumps(
            {
                "benchmark": "rare_tails",
                "budget_s": budget,
                "workers": args.workers,
                "level": 1 - ALPHA,
                "target_rel_half_width": TARGET,
                "target_delta": 1e-10,
                **results,
            }
        )
    )


if __name__ == "__main__":
    main()
