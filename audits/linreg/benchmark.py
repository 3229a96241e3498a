"""``pdp-audit benchmark linreg``: a [LR] Table 3/4-style utility comparison of the DP linear-regression
mechanisms on every bundled regression data set and on a user CSV.

Protocol (parameters the paper does not state are chosen here and written into the report):

* preprocessing as [LR] §4: z-score, rows scaled to ‖x‖ = 1, y mapped onto [−1, 1] (so ‖𝒳‖ = ‖𝒴‖ = 1);
* K-fold cross-validation (``--folds``, default 5; folds from a seeded permutation); each method is
  fitted on the training folds and scored by the test-fold MSE mean_i (y_i − x_iᵀθ̃)², averaged over
  ``--draws`` independent releases (default 10);
* ε ∈ {0.1, 1}, δ = min(1e-6, 1/n²) with n the training size;
* methods: Trivial (θ = 0), non-private least squares, OPS (= OPS-Balanced, [LR] App. F), SSP
  ([LR] App. C.1, estimate (X̂ᵀX)^{-1}X̂y), AdaOPS ([LR] Algorithm 1), AdaSSP ([LR] Algorithm 2 with the
  private output); ObjPert is not included;
* reported: mean over folds ± the half-width of a 95% t-interval over folds (and the standard deviation).

The 36 UCI data sets of the paper are not available offline; the bundled ones are those of
:data:`pdp_audit.mechanisms.linreg.data.REGRESSION_DATASETS`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from pdp_audit.audits.linreg.benchmark_config import BenchmarkConfig
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.calibration import ops_calibration
from pdp_audit.mechanisms.linreg.data import load_regression, preprocess
from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.inputs.datasets import load_csv
from pdp_audit.verify.inputs.validation import InputError, shown

METHODS = ("Trivial", "non-private", "OPS", "SSP", "AdaOPS", "AdaSSP")
EPSILONS = (0.1, 1.0)


def _solve_batch(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(M, v[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:  # an exactly singular noisy Gram matrix: least-norm solution per release
        return np.stack([np.linalg.lstsq(m, b, rcond=None)[0] for m, b in zip(M, v)])


def fit(
    method: str, X: np.ndarray, y: np.ndarray, eps: float, delta: float, draws: int, rng: np.random.Generator
) -> np.ndarray:
    """``draws`` parameter vectors (rows) of ``method`` trained on (X, y)."""
    n, d = X.shape
    if method == "Trivial":
        return np.zeros((1, d))
    if method == "non-private":
        return np.linalg.lstsq(X, y, rcond=None)[0][None, :]
    nb = L.Neighbours.add(X, y, np.zeros(d), 0.0)  # only world D (the training data) is sampled
    if method == "OPS":
        lam, gamma = ops_calibration("balanced", eps, delta, n, d)
        return L.OPSPair(nb, gamma, lam).sample("D", draws, rng)
    if method == "AdaOPS":
        return A.LRAdaOPSPair(nb, eps, delta).sample("D", draws, rng)[:, 2:]
    if method == "SSP":
        pair = A.SSPPair(nb, eps, delta)
        rows = pair.sample("D", draws, rng)
        p = pair.release.p
        return _solve_batch(A.symmetric_from_upper(rows[:, :p], d), rows[:, p:])
    if method == "AdaSSP":
        ada = A.AdaSSPPair(nb, eps, delta)
        rows = ada.sample("D", draws, rng)
        p = ada.release.p
        M = A.symmetric_from_upper(rows[:, 1 : 1 + p], d) + ada.lam(rows[:, 0])[:, None, None] * np.eye(d)
        return _solve_batch(M, rows[:, 1 + p :])
    raise ValueError(f"unknown method {method!r}")  # METHODS lists every method: a programming error


def load_all(config: BenchmarkConfig) -> list[tuple[str, np.ndarray, np.ndarray, str]]:
    """``(name, X, y, source)`` of every bundled data set asked for, then of the user's CSV (preprocessed)."""
    out = []
    for name in config.datasets:
        X, y = load_regression(name)
        out.append((name, X, y, "bundled offline"))
    if config.data is not None:
        ds = load_csv(config.data, config.target_column)
        if len(ds.features) < 2 * config.folds:
            raise InputError(
                f"--data: {shown(config.data)} needs at least 2 × folds = {2 * config.folds} rows, "
                f"got {len(ds.features)}"
            )
        assert ds.target is not None  # check(): --data needs --target-column
        X, y = preprocess(ds.features, ds.target)
        out.append((ds.name, X, y, f"user CSV {config.data}"))
    return out


def benchmark_dataset(name: str, X: np.ndarray, y: np.ndarray, config: BenchmarkConfig) -> dict:
    """Test MSE of every method at every ε on one data set: per-fold values, mean, standard deviation and the
    half-width of a 95% t-interval over folds."""
    n, d = X.shape
    K = min(config.folds, n)
    perm = block_rng(config.seed, f"benchmark/{name}/folds", 0).permutation(n)
    parts = np.array_split(perm, K)
    scores: dict[tuple[float, str], list[float]] = {(eps, m): [] for eps in EPSILONS for m in METHODS}
    n_train = n - max(len(p) for p in parts)
    delta = min(1e-6, 1.0 / n_train**2)
    for k, test in enumerate(parts):
        train = np.setdiff1d(perm, test)
        Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
        for eps in EPSILONS:
            for m in METHODS:
                rng = block_rng(config.seed, f"benchmark/{name}/{eps}/{m}", k)
                theta = fit(m, Xtr, ytr, eps, min(1e-6, 1.0 / len(train) ** 2), config.draws, rng)
                mse = np.mean((yte[None, :] - theta @ Xte.T) ** 2, axis=1)
                scores[(eps, m)].append(float(np.mean(mse)))
    results: dict[str, dict] = {}
    for (eps, m), values in scores.items():
        v = np.array(values)
        sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        half = float(stats.t.isf(0.025, len(v) - 1) * sd / math.sqrt(len(v))) if len(v) > 1 else float("inf")
        results.setdefault(f"{eps:g}", {})[m] = {
            "mean": float(v.mean()),
            "std": sd,
            "half_width": half,
            "folds": values,
        }
    return {"name": name, "n": int(n), "d": int(d), "folds": K, "delta": delta, "results": results}


def run_benchmark(config: BenchmarkConfig, progress: bool = False) -> dict:
    """The whole benchmark as a plain dictionary (what :mod:`pdp_audit.reports.linreg_benchmark` renders)."""
    rows = []
    for name, X, y, source in load_all(config):
        row = benchmark_dataset(name, X, y, config)
        row["source"] = source
        rows.append(row)
    return {
        "benchmark": "linreg",
        "epsilons": list(EPSILONS),
        "methods": list(METHODS),
        "folds": config.folds,
        "draws": config.draws,
        "seed": config.seed,
        "datasets": rows,
        "protocol": (
            "z-score, rows to ‖x‖ = 1, y onto [−1, 1]; K-fold CV test MSE averaged over releases; "
            "δ = min(1e-6, 1/n_train²); mean over folds ± 95% t-interval half-width"
        ),
    }
