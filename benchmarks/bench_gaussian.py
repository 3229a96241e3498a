"""Throughput of exact privacy-loss sampling for the Gaussian mechanism, relative to raw RNG speed.

Prints one JSON line: {"benchmark": "gaussian_plv", "samples_per_s", "rng_normals_per_s", "ratio", ...}.
The baseline (``rng.standard_normal``) is measured in the same process, so the ratio is meaningful
on a shared, noisy machine.  Target: ratio ≥ 0.5 for the scalar (count) query.
"""

from __future__ import annotations

import json

import numpy as np
from timing import best_rate

from pdp_audit.mechanisms.gaussian import GaussianPair
from pdp_audit.verify.estimators.engine import sample_privacy_loss

N = 4_000_000


def main() -> None:
    rng = np.random.default_rng(0)
    rng_rate = best_rate(lambda: rng.standard_normal(N), N, repeats=5)
    scalar = GaussianPair(np.array([100.0]), np.array([101.0]), 3.7)
    plv_rate = best_rate(lambda: sample_privacy_loss(scalar, "D", N, seed=1), N, repeats=5)
    d = 10
    vector = GaussianPair(np.zeros(d), np.eye(d)[0], 3.7)
    plv_rate_d = best_rate(lambda: sample_privacy_loss(vector, "D", N // d, seed=1), N // d, repeats=5)
    print(
        json.dumps(
            {
                "benchmark": "gaussian_plv",
                "samples_per_s": round(plv_rate),
                "rng_normals_per_s": round(rng_rate),
                "ratio": round(plv_rate / rng_rate, 3),
                "dim10_samples_per_s": round(plv_rate_d),
                "dim10_ratio_per_normal": round(plv_rate_d * d / rng_rate, 3),
                "target_ratio": 0.5,
                "samples": N,
            }
        )
    )


if __name__ == "__main__":
    main()
