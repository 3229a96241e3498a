"""The loss-scale band without a noise view, measured: its width at 1e5 draws a world, its coverage, and the limit.

For each case (a Gaussian shift at η = 0.5, 1, 2; a Laplace shift at η = 1), 1e5 draws a world at ``--seed``: the
band at a = 1e-6 (:mod:`pdp_audit.verify.estimators.loss_scale_band`) and the statistical limit, a scale MLE's Wald
interval ŝ ± 5·se (the logistic-regression slope of the world on L; 5 standard errors ≈ two-sided 1e-6).  Then the
coverage: ``--runs`` bands at a = ``--coverage-level`` on 1e4 draws a world, with the loss written for 1.0609 or 0.9
times the true scale (s* off the grid), and the count of bands that miss s*.  One JSON line per case, then one for
the coverage.

    python benchmarks/scale_band.py --seed 0 --runs 1000 --coverage-level 0.01
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
from scipy import optimize, special

from pdp_audit.verify.estimators.loss_scale_band import SCALE_GRID, StreamedScaleBand


def gaussian(eta: float):
    def draw(n, rng):
        return rng.normal(eta**2 / 2, eta, n), rng.normal(-(eta**2) / 2, eta, n)

    return draw


def laplace(eta: float):
    def draw(n, rng):
        loss = lambda o: eta * (np.abs(o) - np.abs(o - 1))  # noqa: E731  scale 1/η, shift 1
        return loss(1 + rng.laplace(0, 1 / eta, n)), loss(rng.laplace(0, 1 / eta, n))

    return draw


def band_of(x, y, a):
    band = StreamedScaleBand(0.1)
    band.add("D", x)
    band.add("D'", y)
    ends = band.result().band(a)
    if ends is None:
        return None
    low, high = ends
    return (0.0 if low is None else float(SCALE_GRID[low]), math.inf if high is None else float(SCALE_GRID[high]))


def wald(x, y, z=5.0):
    losses = np.concatenate([x, y])
    labels = np.r_[np.ones(x.size), np.zeros(y.size)]

    def nll(s):
        return -np.sum(labels * special.log_expit(s * losses) + (1 - labels) * special.log_expit(-s * losses))

    s = optimize.minimize_scalar(nll, bounds=(0.01, 100), method="bounded").x
    se = 1 / math.sqrt(np.sum(losses**2 * special.expit(s * losses) * special.expit(-s * losses)))
    return float(s - z * se), float(s + z * se)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--coverage-level", type=float, default=0.01)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = {"gaussian η=0.5": gaussian(0.5), "gaussian η=1": gaussian(1.0), "gaussian η=2": gaussian(2.0)}
    cases["laplace η=1"] = laplace(1.0)
    for name, draw in cases.items():
        x, y = draw(100_000, rng)
        print(json.dumps({"benchmark": "scale_band", "case": name, "band": band_of(x, y, 1e-6), "wald": wald(x, y)}))
    misses, runs = 0, 0
    for scale in (1.0609, 0.9):
        for _ in range(args.runs):
            x, y = gaussian(0.5)(10_000, rng)
            band = band_of(x / scale, y / scale, args.coverage_level)
            misses += band is None or not band[0] <= scale <= band[1]
            runs += 1
    print(
        json.dumps({"benchmark": "scale_band", "coverage_level": args.coverage_level, "runs": runs, "misses": misses})
    )


if __name__ == "__main__":
    main()
