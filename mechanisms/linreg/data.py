"""Regression data for the linear-regression mechanisms: a synthetic generator, the papers'
preprocessing, and loaders for the regression data sets shipped offline with installed packages.

[LR] §4 preprocesses every UCI data set by z-scoring the features and scaling every data
point to Euclidean norm 1; responses are brought into [-1, 1] so that ``||X|| = ||Y|| = 1``.
The 36 UCI sets of [LR] Tables 3–4 are not shipped with any installed package (no network here);
the loaders below cover what scikit-learn and statsmodels bundle.
"""

from __future__ import annotations

import importlib
from typing import Callable

import numpy as np

from pdp_audit.verify.inputs import shipped_store
from pdp_audit.verify.inputs.validation import InputError


def check_design(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate and return ``(X, y)`` as float arrays of shapes ``(n, d)`` and ``(n,)``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"X must be a non-empty 2-D array (n, d), got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise InputError(f"y must have shape ({X.shape[0]},) to match X, got {y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise InputError("X and y must be finite")
    return X, y


def synthetic_regression(
    n: int, d: int, rng: np.random.Generator, noise_sd: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[LR] Figure 3 setup (K30): ``X`` iid N(0,1) entries, ``theta0 ~ U[0,1]^d``,
    ``y ~ N(X theta0, noise_sd^2 I_n)`` (printed ``I_d``, Q47: the dimension must be ``n``).

    Returns ``(X, y, theta0)``.
    """
    if int(n) < 1:
        raise InputError(f"n must be >= 1, got {n}")
    if int(d) < 1:
        raise InputError(f"d must be >= 1, got {d}")
    if not noise_sd >= 0:
        raise InputError(f"noise_sd must be >= 0, got {noise_sd}")
    X = rng.standard_normal((int(n), int(d)))
    theta0 = rng.uniform(0.0, 1.0, int(d))
    y = X @ theta0 + noise_sd * rng.standard_normal(int(n))
    return X, y, theta0


def preprocess(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The papers' preprocessing ([LR] §4, K27; [PDP] Fig. 1, K1).

    1. z-score every feature (constant features become 0);
    2. scale every row to Euclidean norm 1 (rows that are 0 stay 0), so ``||X|| = 1``;
    3. map ``y`` affinely onto ``[-1, 1]`` (min -> -1, max -> 1; a constant ``y`` becomes 0), so ``||Y|| = 1``.
    """
    X, y = check_design(X, y)
    sd = X.std(axis=0)
    Xz = np.where(sd > 0, (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), 0.0)
    norms = np.linalg.norm(Xz, axis=1, keepdims=True)
    Xn = np.where(norms > 0, Xz / np.where(norms > 0, norms, 1.0), 0.0)
    span = y.max() - y.min()
    yn = 2.0 * (y - y.min()) / span - 1.0 if span > 0 else np.zeros_like(y)
    return Xn, yn


# --- offline loaders ---------------------------------------------------------------------------


def _sklearn(name: str, target: int | None = None) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """scikit-learn's data set ``name`` (the target's column ``target`` of a multi-target one), read from the store
    where it holds the arrays (importing scikit-learn costs more than a small audit: :mod:`.shipped_store`)."""
    loader_name = f"load_{name}" if target is None else f"load_{name}_target{target}"

    def load() -> tuple[np.ndarray, np.ndarray]:
        features, y, _ = shipped_store.load(loader_name, loaded)
        return features, y

    def loaded() -> shipped_store.Arrays:
        import sklearn.datasets as skd

        bunch = getattr(skd, f"load_{name}")()
        y = bunch.target if target is None else bunch.target[:, target]
        return np.asarray(bunch.data, float), np.asarray(y, float), tuple(str(n) for n in bunch.feature_names)

    return load


def _statsmodels(name: str) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    def load() -> tuple[np.ndarray, np.ndarray]:
        data = importlib.import_module(f"statsmodels.datasets.{name}").load_pandas()
        exog = data.exog.select_dtypes(include=[np.number])  # drop categorical columns (e.g. firm names)
        return np.asarray(exog, float).reshape(len(exog), -1), np.asarray(data.endog, float).ravel()

    return load


REGRESSION_DATASETS: dict[str, Callable[[], tuple[np.ndarray, np.ndarray]]] = {
    "diabetes": _sklearn("diabetes"),
    "linnerud": _sklearn("linnerud", target=0),  # target 0 = Weight
    "longley": _statsmodels("longley"),
    "stackloss": _statsmodels("stackloss"),
    "statecrime": _statsmodels("statecrime"),
    "ccard": _statsmodels("ccard"),
    "copper": _statsmodels("copper"),
    "cpunish": _statsmodels("cpunish"),
    "committee": _statsmodels("committee"),
    "fair": _statsmodels("fair"),
    "grunfeld": _statsmodels("grunfeld"),
    "engel": _statsmodels("engel"),
    "strikes": _statsmodels("strikes"),
}


def load_regression(name: str, preprocessed: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Load a bundled regression data set as ``(X, y)`` (preprocessed with :func:`preprocess` by default)."""
    if name not in REGRESSION_DATASETS:
        raise InputError(f"name must be one of {sorted(REGRESSION_DATASETS)}, got {name!r}")
    X, y = check_design(*REGRESSION_DATASETS[name]())
    return preprocess(X, y) if preprocessed else (X, y)
