"""Throughput of exact privacy-loss sampling for AdaOPS's joint release ([LR] Algorithm 1: ν, Δ, θ̃).

Prints one JSON line: {"benchmark": "linreg_adaops_plv", "samples_per_s", "naive_samples_per_s", "ratio", ...}.
Setting: n = 10000, d = 20 synthetic data (preprocessed), an added unit-norm target, ε = 1, δ = 1e-6.
The vectorised path is :func:`pdp_audit.verify.estimators.engine.sample_privacy_loss` on
:class:`pdp_audit.mechanisms.linreg.adaptive.LRAdaOPSPair` (one eigendecomposition per world, every trial batched in the
eigenbasis).  The baseline, measured in the same process, runs one trial at a time with scipy/numpy per trial: solve for
θ̂_λ in both worlds, draw θ̃ with ``rng.multivariate_normal`` and evaluate the three stage densities with
``scipy.stats`` (Gram matrices X^TX and X^Ty precomputed once, as any implementation would).  Best of several runs.
"""

from __future__ import annotations

import json

import numpy as np
from scipy import linalg, stats
from timing import best_rate

from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.data import preprocess, synthetic_regression
from pdp_audit.verify.estimators.engine import sample_privacy_loss

N, D = 10_000, 20
EPS, DELTA = 1.0, 1e-6
VECTOR_SAMPLES = 200_000
NAIVE_SAMPLES = 300


def naive_losses(nb: L.Neighbours, size: int, rng: np.random.Generator) -> np.ndarray:
    k = A.lr_adaops_constants(EPS, DELTA, D)
    c, q = np.log(6 / DELTA), EPS / 4
    worlds = {}
    for w in ("D", "D'"):
        X, y = nb.world(w)
        G = X.T @ X
        worlds[w] = (G, X.T @ y, float(linalg.eigvalsh(G)[0]))
    out = np.empty(size)
    for t in range(size):
        G, b, lmin = worlds["D"]
        nu = lmin - k.shift_lambda + k.sd_lambda * rng.standard_normal()
        lt = max(nu, 0.0)
        lam = float(A.lr_adaops_lambda(np.array([lt]), k)[0])
        s = np.log1p(k.x_bound**2 / (lam + lt))
        theta_hat = {w: linalg.solve(worlds[w][0] + lam * np.eye(D), worlds[w][1], assume_a="pos") for w in worlds}
        mean = {w: np.log(k.y_bound + k.x_bound * np.linalg.norm(theta_hat[w])) + s * c / q for w in worlds}
        sd = s * np.sqrt(c) / q
        big_delta = mean["D"] + sd * rng.standard_normal()
        gamma = (lt + lam) * k.eps_tilde**2 / c / (k.x_bound * np.exp(big_delta)) ** 2
        cov = {w: linalg.inv(gamma * (worlds[w][0] + lam * np.eye(D))) for w in worlds}
        theta = rng.multivariate_normal(theta_hat["D"], cov["D"])
        log_p = {
            w: stats.norm.logpdf(nu, worlds[w][2] - k.shift_lambda, k.sd_lambda)
            + stats.norm.logpdf(big_delta, mean[w], sd)
            + stats.multivariate_normal.logpdf(theta, theta_hat[w], cov[w])
            for w in worlds
        }
        out[t] = log_p["D"] - log_p["D'"]
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    X, y, _ = synthetic_regression(N, D, rng)
    X, y = preprocess(X, y)
    x = rng.standard_normal(D)
    nb = L.Neighbours.add(X, y, x / np.linalg.norm(x), 1.0)
    pair = A.LRAdaOPSPair(nb, EPS, DELTA)
    fast = best_rate(lambda: sample_privacy_loss(pair, "D", VECTOR_SAMPLES, seed=1), VECTOR_SAMPLES)
    naive = best_rate(lambda: naive_losses(nb, NAIVE_SAMPLES, np.random.default_rng(2)), NAIVE_SAMPLES)
    # the two paths sample the same law: their mean losses differ by sampling noise only
    slow = naive_losses(nb, 600, np.random.default_rng(3))
    quick = sample_privacy_loss(pair, "D", 200_000, seed=4)
    z = float((slow.mean() - quick.mean()) / np.sqrt(slow.var() / slow.size + quick.var() / quick.size))
    print(
        json.dumps(
            {
                "benchmark": "linreg_adaops_plv",
                "n": N,
                "d": D,
                "epsilon": EPS,
                "delta": DELTA,
                "samples_per_s": round(fast),
                "naive_samples_per_s": round(naive, 1),
                "ratio": round(fast / naive, 1),
                "vector_samples": VECTOR_SAMPLES,
                "naive_samples": NAIVE_SAMPLES,
                "mean_loss_z": round(z, 2),  # same law on both paths: |z| is a standard-normal deviate
            }
        )
    )


if __name__ == "__main__":
    main()
